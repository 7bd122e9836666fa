"""``cupy.random._generator_api``: ``Generator``, the new random API, on the server."""
from __future__ import annotations

from typing import Any

import numpy

from .. import _objects
from .._objects import RemoteObjectProxy
from ._bit_generator import BitGenerator
from ._generator import _dev


def _param(x: Any, name: str, exc: type = TypeError, kinds: tuple = (float, int)) -> Any:
    """CuPy's parameter rule (``_generator_api.pyx``): a ``cupy.ndarray`` or
    ``type(x) in (float, int)``; a list, a NumPy array or a NumPy scalar is refused."""
    from .._ndarray import ndarray
    if not isinstance(x, ndarray) and type(x) not in kinds:
        raise exc(f"{name} is required to be a cupy.ndarray or a scalar")


@_objects.register("Generator")
class Generator(RemoteObjectProxy):
    """Container of a BitGenerator, drawing from the distributions on the server.

    Parameters
    ----------
    bit_generator : cupy.random.BitGenerator
        The stream of random bits to use.

    See Also
    --------
    cupy.random.Generator
    """

    __slots__ = ("_bit_generator",)

    def __new__(cls, bit_generator: Any) -> "Generator":
        if not isinstance(bit_generator, BitGenerator):
            raise TypeError("bit_generator must be an instance of cupy.random.BitGenerator")
        gen = _objects.create_queued(cls, "cupy.random.default_rng", "Generator",
                                     bit_generator)
        gen._bit_generator = bit_generator
        return gen

    def __init__(self, bit_generator: Any) -> None:
        pass

    @property
    def bit_generator(self) -> Any:
        """The BitGenerator the distributions draw from."""
        return getattr(self, "_bit_generator", None)

    @bit_generator.setter
    def bit_generator(self, bit_generator: Any) -> None:
        if not isinstance(bit_generator, BitGenerator):
            raise TypeError("bit_generator must be an instance of cupy.random.BitGenerator")
        # the server's Generator keeps its BitGenerator: swap in a new one, and let the
        # temporary proxy release the old handle
        other = _objects.create(Generator, "cupy.random.default_rng", "Generator",
                                bit_generator)
        old_id, self._gs_id = self._gs_id, other._gs_id
        other._gs_id = old_id
        self._gs_session.proxies[self._gs_id] = self
        self._gs_session.proxies[old_id] = other
        self._bit_generator = bit_generator

    def _run(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self._gs_session.call("method", name, (self, *args), kwargs)

    def integers(self, low: Any, high: Any = None, size: Any = None,
                 dtype: Any = numpy.int64, endpoint: bool = False) -> Any:
        """See Also: cupy.random.Generator.integers (integer bounds that CuPy's checks
        pass and an integer ``dtype``: ``cupy.add(lo, y, dtype=dtype)`` of the draws
        ``y``, a new array of ``size``; queued)"""
        from .._routines import _submit
        from ._generator import _holds, _shape_of
        shape = _shape_of(size)
        ints = (int, numpy.integer)
        if shape is not None and isinstance(low, ints) and not isinstance(low, bool) and (
                high is None or isinstance(high, ints) and not isinstance(high, bool)) and \
                type(endpoint) is bool:
            try:
                dt = numpy.dtype(dtype)
            except TypeError:
                dt = None
            lo, hi1 = (0, int(low)) if high is None else (int(low), int(high))
            hi1 -= not endpoint
            if dt is not None and _holds(dt, lo, hi1):
                return _submit(self._gs_session, "integers",
                               (self, low, high, size, dtype, endpoint), {}, shape, dt,
                               op="method", description="cupy.random.Generator.integers")
        return self._run("integers", _dev(low), _dev(high), size, dtype, endpoint)

    def _drawn(self, name: str, size: Any, dtype: Any, out: Any, first: tuple = ()) -> Any:
        """``name(*first, size, dtype)`` of a float32 or float64 ``dtype`` without
        ``out``: CuPy draws into ``_core.ndarray(size, dtype)`` (or float64, then
        ``astype(dtype)``), a new C-ordered array; queued."""
        from .._routines import _submit
        from ._generator import _shape_of
        shape = _shape_of(size)
        try:
            dt = numpy.dtype(dtype)
        except TypeError:
            return None
        if out is not None or shape is None or dt.char not in "fd":
            return None
        return _submit(self._gs_session, name, (self, *first, size, dtype), {}, shape, dt,
                       op="method", description=f"cupy.random.Generator.{name}")

    def random(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> Any:
        """See Also: cupy.random.Generator.random (queued: see ``_drawn``)"""
        drawn = self._drawn("random", size, dtype, out)
        return drawn if drawn is not None else self._run("random", size, dtype, out)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None,
                dtype: Any = numpy.float64) -> Any:
        """See Also: cupy.random.Generator.uniform (``cupy.asarray(low)``: NumPy data
        is copied to the device. Python numbers for bounds, a ``size`` and a float32
        or float64 ``dtype``: ``(low + (high - low) * y).astype(dtype)`` of the draws
        ``y``, a new array of ``size``; queued)"""
        if type(low) in (int, float) and type(high) in (int, float) and size is not None:
            drawn = self._drawn("uniform", size, dtype, None, (low, high))
            if drawn is not None:
                return drawn
        return self._run("uniform", _dev(low), _dev(high), size, dtype)

    def standard_normal(self, size: Any = None, dtype: Any = numpy.float64,
                        out: Any = None) -> Any:
        """See Also: cupy.random.Generator.standard_normal (queued: see ``_drawn``)"""
        drawn = self._drawn("standard_normal", size, dtype, out)
        return drawn if drawn is not None else self._run("standard_normal", size, dtype, out)

    def standard_exponential(self, size: Any = None, dtype: Any = numpy.float64,
                             method: str = "inv", out: Any = None) -> Any:
        """See Also: cupy.random.Generator.standard_exponential"""
        if method == "zig":
            raise NotImplementedError("Ziggurat method is not supported")
        if method == "inv":
            drawn = self._drawn("standard_exponential", size, dtype, out)
            if drawn is not None:
                return drawn
        return self._run("standard_exponential", size, dtype, method, out)

    def standard_gamma(self, shape: Any, size: Any = None, dtype: Any = numpy.float64,
                       out: Any = None) -> Any:
        """See Also: cupy.random.Generator.standard_gamma"""
        if shape is None:
            raise TypeError("shape must be real number, not NoneType")
        _param(shape, "shape", ValueError)
        return self._run("standard_gamma", shape, size, dtype, out)

    def beta(self, a: Any, b: Any, size: Any = None, dtype: Any = numpy.float64) -> Any:
        """See Also: cupy.random.Generator.beta"""
        _param(a, "a")
        _param(b, "b")
        return self._run("beta", a, b, size, dtype)

    def binomial(self, n: Any, p: Any, size: Any = None) -> Any:
        """See Also: cupy.random.Generator.binomial (``p``: an array or a ``float``)"""
        _param(n, "n")
        _param(p, "p", kinds=(float,))
        return self._run("binomial", n, p, size)

    def chisquare(self, df: Any, size: Any = None) -> Any:
        """See Also: cupy.random.Generator.chisquare"""
        _param(df, "df")
        return self._run("chisquare", df, size)

    def dirichlet(self, alpha: Any, size: Any = None) -> Any:
        """See Also: cupy.random.Generator.dirichlet"""
        _param(alpha, "alpha")
        return self._run("dirichlet", alpha, size)

    def exponential(self, scale: Any = 1.0, size: Any = None) -> Any:
        """See Also: cupy.random.Generator.exponential"""
        # (``standard_exponential(size) * scale``: a host ``scale`` is refused there;
        # a Python number's, CuPy's Python, runs here: both steps queue)
        if type(scale) in (int, float):
            return self.standard_exponential(size) * scale
        return self._run("exponential", scale, size)

    def f(self, dfnum: Any, dfden: Any, size: Any = None) -> Any:
        """See Also: cupy.random.Generator.f"""
        _param(dfnum, "dfnum")
        _param(dfden, "dfden")
        return self._run("f", dfnum, dfden, size)

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None) -> Any:
        """See Also: cupy.random.Generator.gamma"""
        if shape is None:
            raise TypeError("shape must be real number, not NoneType")
        _param(shape, "shape", ValueError)
        return self._run("gamma", shape, scale, size)  # (``y *= scale``: likewise)

    def geometric(self, p: Any, size: Any = None) -> Any:
        """See Also: cupy.random.Generator.geometric"""
        _param(p, "p")
        return self._run("geometric", p, size)

    def hypergeometric(self, ngood: Any, nbad: Any, nsample: Any, size: Any = None) -> Any:
        """See Also: cupy.random.Generator.hypergeometric"""
        for v, nm in ((ngood, "ngood"), (nbad, "nbad"), (nsample, "nsample")):
            if type(v) in (float, int) and v < 0:
                raise ValueError(f"{nm} < 0")
        for v, nm in ((ngood, "ngood"), (nbad, "nbad"), (nsample, "nsample")):
            _param(v, nm)
        return self._run("hypergeometric", ngood, nbad, nsample, size)

    def logseries(self, p: Any, size: Any = None) -> Any:
        """See Also: cupy.random.Generator.logseries"""
        _param(p, "p")
        return self._run("logseries", p, size)

    def poisson(self, lam: Any = 1.0, size: Any = None) -> Any:
        """See Also: cupy.random.Generator.poisson"""
        _param(lam, "lam")
        return self._run("poisson", lam, size)

    def power(self, a: Any, size: Any = None) -> Any:
        """See Also: cupy.random.Generator.power"""
        _param(a, "a")
        return self._run("power", a, size)
