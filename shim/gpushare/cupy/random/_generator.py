"""``cupy.random._generator``: ``RandomState`` and the per-device global states.

As in CuPy, the global states live here, on the client (``_random_states``, keyed by
device id, read ``CUPY_SEED``); each ``RandomState`` is a proxy of a generator held by
the server, so the random numbers are drawn where the arrays live.
"""
from __future__ import annotations

import os
from typing import Any

import numpy

from ...seeds import seed_value
from .. import _objects
from .._objects import RemoteObjectProxy
from .._util import experimental



def _dev(x: Any) -> Any:
    """CuPy copies numpy parameters to the device (``cupy.asarray``); so do we, so the
    server sees device arrays whatever its backend."""
    if isinstance(x, numpy.ndarray):
        from .. import asarray
        if x.dtype.hasobject:
            raise ValueError(f"Unsupported dtype {x.dtype}")
        return asarray(x)
    return x


_SCALARS = (int, float, numpy.integer, numpy.floating)

#: where ``RandomState._run``'s positional ``size`` is, where it is not second to last
#: (the parameters, then ``size`` and ``dtype``); None: no size
_SIZE_AT: dict[str, int | None] = {
    "random_sample": 0, "standard_cauchy": 0, "standard_exponential": 0, "tomaxint": 0,
    "_interval": 1, "choice": 1, "multivariate_normal": 2, "shuffle": None,
    "permutation": None}


def _shape_of(size: Any) -> tuple | None:
    """``size`` as a shape when it is plainly valid, else None (the server decides)."""
    if size is None:
        return ()
    if isinstance(size, (int, numpy.integer)) and not isinstance(size, bool):
        size = (size,)
    if isinstance(size, (tuple, list)) and all(
            isinstance(n, (int, numpy.integer)) and not isinstance(n, bool) and n >= 0
            for n in size):
        return tuple(int(n) for n in size)
    return None


def _holds(dt: numpy.dtype, lo: int, hi1: int) -> bool:
    """Whether the integer draws of ``[lo, hi1]`` pass CuPy's checks for ``dt``
    (``randint``'s and ``Generator.integers``'): an integer dtype holding a non-empty
    interval."""
    return dt.kind in "iu" and numpy.iinfo(dt).min <= lo <= hi1 <= numpy.iinfo(dt).max


def _float_dtype_or_none(dtype: Any) -> numpy.dtype | None:
    try:
        dt = numpy.dtype(dtype)
    except TypeError:
        return None
    return dt if dt.char in "fd" else None


def _seed_value(seed: Any) -> Any:
    """``RandomState.seed``'s checks, done here so errors raise at the call (the seed
    itself travels pipelined, hashed to an int when it is an array)."""
    return seed_value(seed)


@_objects.register("RandomState")
class RandomState(RemoteObjectProxy):
    """Portable container of a pseudo-random number generator (on the server).

    Parameters
    ----------
    seed : None or int or numpy.ndarray
        Seed of the generator (see ``seed``).
    method : int, optional
        A ``cupy.cuda.curand.CURAND_RNG_PSEUDO_*`` generator type.

    See Also
    --------
    cupy.random.RandomState
    """

    __slots__ = ()

    def __new__(cls, seed: Any = None, method: Any = None) -> "RandomState":
        value = _seed_value(seed)
        if method is None:  # (the seed checked above: queued)
            return _objects.create_queued(cls, "cupy.random.RandomState", "RandomState",
                                          value)
        return _objects.create(cls, "cupy.random.RandomState", "RandomState", value,
                               method=method)

    def __init__(self, seed: Any = None, method: Any = None) -> None:
        pass

    @property
    def method(self) -> int:
        return self._gs_session.call("getattr", "method", (self,))

    def seed(self, seed: Any = None) -> None:
        """See Also: cupy.random.RandomState.seed"""
        value = _seed_value(seed)
        self._gs_session.submit("method", "seed", (self, value), {},
                                description="RandomState.seed")

    # every distribution runs on the server; the signatures are CuPy's
    def _submit(self, name: str, shape: tuple, dtype: numpy.dtype, *args: Any) -> Any:
        """Queue ``name(*args)`` without waiting: the arguments were checked here, and
        the result is a fresh C-contiguous array of ``shape`` and ``dtype``."""
        from .._routines import _submit
        return _submit(self._gs_session, name, (self, *args), {}, shape, dtype, op="method",
                       description=f"cupy.random.RandomState.{name}")

    def _run(self, name: str, *args: Any, **kwargs: Any) -> Any:
        # the parameters go to the device as CuPy's ``cupy.asarray`` sends them; the
        # ``size`` stays as given (CuPy's ``cupy.empty(size)`` reads NumPy data as a
        # shape, where a device array is no length)
        at = _SIZE_AT.get(name, -2)
        at = None if at is None or not args else at % len(args)
        sent = tuple(a if i == at else _dev(a) for i, a in enumerate(args))
        return self._gs_session.call("method", name, (self, *sent),
                                     {k: v if k == "size" else _dev(v)
                                      for k, v in kwargs.items()})

    def beta(self, a: Any, b: Any, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.beta"""
        return self._run("beta", a, b, size, dtype)

    def _drawn(self, name: str, params: tuple, size: Any, dtype: Any,
               default: str) -> Any:
        """A distribution CuPy draws into ``cupy.empty(size, dtype)`` by a kernel, its
        parameters made arrays and never checked (``binomial``, ``poisson``): queued
        when the shape is plain (``size``, else the parameters' broadcast, each a
        Python number or a proxy of this session) and ``dtype`` the default."""
        from .._ndarray import ndarray
        shapes = []
        for v in params:
            if type(v) is ndarray and v._gs_session is self._gs_session:
                shapes.append(v.shape)
            elif type(v) in (int, float):
                shapes.append(())
            else:
                return None
        try:
            dt = numpy.dtype(dtype)
            shape = _shape_of(size) if size is not None else numpy.broadcast_shapes(*shapes)
            # (the kernel broadcasts the parameters with ``y``: its error, at the call)
            fits = shape is not None and numpy.broadcast_shapes(*shapes, shape) == shape
        except (TypeError, ValueError):
            return None
        if not fits or dt != numpy.dtype(default):
            return None
        return self._submit(name, shape, dt, *params, size, dtype)

    def binomial(self, n: Any, p: Any, size: Any = None, dtype: Any = int) -> Any:
        """See Also: cupy.random.RandomState.binomial"""
        drawn = self._drawn("binomial", (n, p), size, dtype, "l")
        return drawn if drawn is not None else self._run("binomial", n, p, size, dtype)

    def chisquare(self, df: Any, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.chisquare"""
        return self._run("chisquare", df, size, dtype)

    def dirichlet(self, alpha: Any, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.dirichlet"""
        return self._run("dirichlet", alpha, size, dtype)

    def exponential(self, scale: Any = 1.0, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.exponential"""
        return self._run("exponential", scale, size, dtype)

    def f(self, dfnum: Any, dfden: Any, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.f"""
        return self._run("f", dfnum, dfden, size, dtype)

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.gamma"""
        return self._run("gamma", shape, scale, size, dtype)

    def geometric(self, p: Any, size: Any = None, dtype: Any = "l") -> Any:
        """See Also: cupy.random.RandomState.geometric"""
        return self._run("geometric", p, size, dtype)

    def hypergeometric(self, ngood: Any, nbad: Any, nsample: Any, size: Any = None,
                       dtype: Any = "l") -> Any:
        """See Also: cupy.random.RandomState.hypergeometric"""
        return self._run("hypergeometric", ngood, nbad, nsample, size, dtype)

    def laplace(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.laplace"""
        return self._run("laplace", loc, scale, size, dtype)

    def logistic(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.logistic"""
        return self._run("logistic", loc, scale, size, dtype)

    def lognormal(self, mean: Any = 0.0, sigma: Any = 1.0, size: Any = None,
                  dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.lognormal"""
        # not copied to the device: CuPy hands non-cupy values to cuRAND as C doubles
        return self._gs_session.call("method", "lognormal", (self, mean, sigma, size, dtype),
                                     {})

    def logseries(self, p: Any, size: Any = None, dtype: Any = "l") -> Any:
        """See Also: cupy.random.RandomState.logseries"""
        return self._run("logseries", p, size, dtype)

    def multivariate_normal(self, mean: Any, cov: Any, size: Any = None,
                            check_valid: str = "ignore", tol: float = 1e-08,
                            method: str = "cholesky", dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.multivariate_normal"""
        experimental("cupy.random.RandomState.multivariate_normal")
        return self._run("multivariate_normal", mean, cov, size, check_valid, tol, method,
                         dtype)

    def negative_binomial(self, n: Any, p: Any, size: Any = None, dtype: Any = int) -> Any:
        """See Also: cupy.random.RandomState.negative_binomial"""
        return self._run("negative_binomial", n, p, size, dtype)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
               dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.normal"""
        shape, dt = _shape_of(size), _float_dtype_or_none(dtype)
        if shape is not None and dt is not None and isinstance(loc, _SCALARS) and \
                isinstance(scale, _SCALARS):
            return self._submit("normal", shape, dt, loc, scale, shape, dt)
        # not copied to the device: CuPy hands non-cupy values to cuRAND as C doubles
        return self._gs_session.call("method", "normal", (self, loc, scale, size, dtype), {})

    def pareto(self, a: Any, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.pareto"""
        return self._run("pareto", a, size, dtype)

    def noncentral_chisquare(self, df: Any, nonc: Any, size: Any = None,
                             dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.noncentral_chisquare"""
        return self._run("noncentral_chisquare", df, nonc, size, dtype)

    def noncentral_f(self, dfnum: Any, dfden: Any, nonc: Any, size: Any = None,
                     dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.noncentral_f"""
        return self._run("noncentral_f", dfnum, dfden, nonc, size, dtype)

    def poisson(self, lam: Any = 1.0, size: Any = None, dtype: Any = "l") -> Any:
        """See Also: cupy.random.RandomState.poisson"""
        drawn = self._drawn("poisson", (lam,), size, dtype, "l")
        return drawn if drawn is not None else self._run("poisson", lam, size, dtype)

    def power(self, a: Any, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.power"""
        return self._run("power", a, size, dtype)

    def rand(self, *size: Any, **kwarg: Any) -> Any:
        """See Also: cupy.random.RandomState.rand"""
        dtype = kwarg.pop("dtype", float)
        if kwarg:
            raise TypeError("rand() got unexpected keyword arguments %s"
                            % ", ".join(kwarg.keys()))
        return self.random_sample(size=size, dtype=dtype)

    def randn(self, *size: Any, **kwarg: Any) -> Any:
        """See Also: cupy.random.RandomState.randn"""
        dtype = kwarg.pop("dtype", float)
        if kwarg:
            raise TypeError("randn() got unexpected keyword arguments %s"
                            % ", ".join(kwarg.keys()))
        return self.normal(size=size, dtype=dtype)

    def random_sample(self, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.random_sample"""
        shape, dt = _shape_of(size), _float_dtype_or_none(dtype)
        if shape is not None and dt is not None:
            return self._submit("random_sample", shape, dt, shape, dt)
        return self._run("random_sample", size, dtype)

    def rayleigh(self, scale: Any = 1.0, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.rayleigh"""
        return self._run("rayleigh", scale, size, dtype)

    def _interval(self, mx: Any, size: Any) -> Any:
        """Integers drawn uniformly from ``[0, mx]`` (CuPy's private helper)."""
        return self._run("_interval", mx, size)

    def standard_cauchy(self, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.standard_cauchy"""
        return self._run("standard_cauchy", size, dtype)

    def standard_exponential(self, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.standard_exponential"""
        return self._run("standard_exponential", size, dtype)

    def standard_gamma(self, shape: Any, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.standard_gamma"""
        return self._run("standard_gamma", shape, size, dtype)

    def standard_normal(self, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.standard_normal"""
        return self.normal(size=size, dtype=dtype)

    def standard_t(self, df: Any, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.standard_t"""
        return self._run("standard_t", df, size, dtype)

    def tomaxint(self, size: Any = None) -> Any:
        """See Also: cupy.random.RandomState.tomaxint"""
        return self._run("tomaxint", size)

    def triangular(self, left: Any, mode: Any, right: Any, size: Any = None,
                   dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.triangular"""
        return self._run("triangular", left, mode, right, size, dtype)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None,
                dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.uniform"""
        shape, dt = _shape_of(size), _float_dtype_or_none(dtype)
        if shape is not None and dt is not None and isinstance(low, _SCALARS) and \
                isinstance(high, _SCALARS):
            return self._submit("uniform", shape, dt, low, high, shape, dt)
        return self._run("uniform", low, high, size, dtype)

    def vonmises(self, mu: Any, kappa: Any, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.vonmises"""
        return self._run("vonmises", mu, kappa, size, dtype)

    def wald(self, mean: Any, scale: Any, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.wald"""
        return self._run("wald", mean, scale, size, dtype)

    def weibull(self, a: Any, size: Any = None, dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.weibull"""
        return self._run("weibull", a, size, dtype)

    def zipf(self, a: Any, size: Any = None, dtype: Any = int) -> Any:
        """See Also: cupy.random.RandomState.zipf"""
        return self._run("zipf", a, size, dtype)

    def choice(self, a: Any, size: Any = None, replace: Any = True, p: Any = None) -> Any:
        """See Also: cupy.random.RandomState.choice (with replacement and without ``p``,
        CuPy's Python runs here: ``randint`` draws the indices, each piece pipelined;
        anything else runs on the server)"""
        from .._ndarray import ndarray
        if p is None and replace is True and size is not None and \
                _shape_of(size) is not None and (
                    type(a) is int and a > 0 or type(a) is ndarray and a.ndim == 1 and
                    a.size and a._gs_session is self._gs_session):
            index = self.randint(0, a if type(a) is int else a.size, size=size)
            index = index.astype(numpy.int64, copy=False)
            if type(a) is int:
                return index
            if index.ndim == 0:
                from .. import array
                return array(a[index], dtype=a.dtype)
            return a[index]
        return self._run("choice", a, size, replace, p)

    def shuffle(self, a: Any) -> None:
        """See Also: cupy.random.RandomState.shuffle"""
        from .._ndarray import ndarray
        if not isinstance(a, ndarray):
            raise TypeError("The array must be cupy.ndarray")
        if a.ndim == 0:
            raise TypeError("An array whose ndim is 0 is not supported")
        if a._gs_session is self._gs_session:  # (``a[:] = a[perm]``: nothing to wait for)
            self._gs_session.submit("method", "shuffle", (self, a), {},
                                    description="cupy.random.RandomState.shuffle")
            return
        self._run("shuffle", a)

    def permutation(self, a: Any) -> Any:
        """See Also: cupy.random.RandomState.permutation (only a Python ``int`` is a
        range; anything else is indexed as an array, _generator.py:1222-1227)"""
        if isinstance(a, numpy.generic) and not isinstance(a, int):
            raise TypeError(f"object of type '{type(a).__name__}' has no len()")
        if isinstance(a, numpy.ndarray):
            # ``numpy_array[cupy_array]``: NumPy converts the cupy index implicitly
            raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                            "`.get()` to construct a NumPy array explicitly.")
        from .._ndarray import ndarray
        if type(a) is int and a >= 0:  # (an argsort of cuRAND's draws: int64)
            return self._submit("permutation", (a,), numpy.dtype(numpy.int64), a)
        if type(a) is ndarray and a.ndim and a._gs_session is self._gs_session:
            return self._submit("permutation", a.shape, a.dtype, a)  # (``a[perm]``)
        return self._run("permutation", a)

    def gumbel(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
               dtype: Any = float) -> Any:
        """See Also: cupy.random.RandomState.gumbel"""
        return self._run("gumbel", loc, scale, size, dtype)

    def randint(self, low: Any, high: Any = None, size: Any = None, dtype: Any = int) -> Any:
        """See Also: cupy.random.RandomState.randint"""
        shape = _shape_of(size)
        if shape is not None and isinstance(low, _SCALARS) and (
                high is None or isinstance(high, _SCALARS)):
            # CuPy's checks for scalar bounds, so the call can go without waiting
            lo, hi1 = (0, int(low) - 1) if high is None else (int(low), int(high) - 1)
            dt = numpy.dtype(dtype)
            if _holds(dt, lo, hi1):
                return self._submit("randint", shape, dt, low, high, shape, dt)
        return self._run("randint", low, high, size, dtype)


def seed(seed: Any = None) -> None:
    """Reset the current device's global generator with a seed.

    See Also
    --------
    cupy.random.seed
    """
    get_random_state().seed(seed)


#: the global generators, by device id (CuPy's own private table, which tests swap)
_random_states: dict[int, RandomState] = {}


def reset_states() -> None:
    """Forget every global generator.

    See Also
    --------
    cupy.random.reset_states
    """
    global _random_states
    _random_states = {}


def _device_id() -> int:
    from .. import cuda
    return cuda.Device().id


def get_random_state() -> RandomState:
    """The current device's global generator, made (seeded from ``CUPY_SEED`` when
    set) on first use.

    See Also
    --------
    cupy.random.get_random_state
    """
    dev = _device_id()
    rs = _random_states.get(dev, None)
    if isinstance(rs, RandomState) and rs._gs_session._closed:
        # made in an earlier session (gpushare.client.reset_session): its server is gone
        _random_states.pop(dev, None)
        rs = None
    if rs is None:
        seed = os.getenv("CUPY_SEED")
        if seed is not None:
            seed = numpy.uint64(int(seed))
        rs = RandomState(seed)
        rs = _random_states.setdefault(dev, rs)
    return rs


def set_random_state(rs: Any) -> None:
    """Set the current device's global generator.

    See Also
    --------
    cupy.random.set_random_state
    """
    if not isinstance(rs, RandomState):
        raise TypeError("Random state must be an instance of RandomState. "
                        f"Actual: {type(rs)}")
    _random_states[_device_id()] = rs


def _check_and_get_dtype(dtype: Any) -> numpy.dtype:
    dtype = numpy.dtype(dtype)
    if dtype.char not in ("f", "d"):
        raise TypeError("cupy.random only supports float32 and float64")
    return dtype
