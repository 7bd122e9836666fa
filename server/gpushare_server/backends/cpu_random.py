"""``cupy.random`` on the CPU backend, with CuPy's semantics.

The classes here mirror CuPy 14.2's ``RandomState`` (``cupy/random/_generator.py``),
``Generator`` (``_generator_api.pyx``) and bit generators (``_bit_generator.pyx``):
the same signatures, the same argument checks and error types, ``dtype=`` where CuPy
takes it (and the output in that dtype), 0-d arrays instead of scalars, and seeding
that reproduces (same seed, same values). ``Generator`` and its bit generators draw
CuPy's own numbers: CuPy's kernels over cuRAND's generators, on the kernel emulator
(``cpu_curand``). ``RandomState``'s values come from NumPy's PCG64 (CuPy's come from
cuRAND's host API, whose output order is its own); the distributions match.

The client keeps CuPy's module-level state (``get_random_state`` and friends, see
``gpushare/cupy/random/``); the server only holds generator objects, reached by handle.
"""
from __future__ import annotations

import binascii
import functools
import inspect
import operator
import os
from typing import Any

import numpy

from gpushare.protocol import HostArray
from gpushare.seeds import seed_value

from . import cpu_cast, cpu_curand

_UINT32_MAX = 0xffffffff
_UINT64_MAX = 0xffffffffffffffff

#: cuRAND's generator types (``cupy.cuda.curand.CURAND_RNG_PSEUDO_*``)
_CURAND_METHODS = {100, 101, 121, 141, 142, 161}


def _host(x: Any) -> Any:
    """Numpy data sent by the client stands for device data here (CuPy copies it)."""
    if isinstance(x, HostArray):
        return x.array
    if isinstance(x, (list, tuple)):
        return type(x)(_host(v) for v in x)
    return x


def _asarray(x: Any, dtype: Any = None) -> numpy.ndarray:
    """``cupy.asarray``: object data (``None``...) is refused with a ValueError."""
    arr = numpy.asarray(_host(x), dtype=dtype)
    if arr.dtype.hasobject:
        raise ValueError(f"Unsupported dtype {arr.dtype}")
    return arr


def _isscalar(x: Any) -> bool:
    return numpy.isscalar(x)


def _check_not_bool(x: Any) -> None:
    """``cupy._core.internal._check_not_bool``."""
    if isinstance(x, (bool, numpy.bool_)) or (
            isinstance(x, numpy.ndarray) and x.shape == () and x.dtype == numpy.bool_):
        raise TypeError("an integer is required")


def _size_tuple(size: Any) -> tuple:
    """``cupy._core.get_size``, then each length made the ``Py_ssize_t`` of CuPy's shape
    (Cython takes ``__index__``: a float or a tuple is "'float' object cannot be
    interpreted as an integer", never truncated). NumPy data the client sent is read as
    CuPy reads it, on the host."""
    size = _host(size)
    if size is None:
        return ()
    if isinstance(size, (tuple, list, range, str, bytes, numpy.ndarray)):  # (a sequence)
        try:
            lengths = tuple(size)
        except TypeError:  # (a 0-d array)
            lengths = (size,)
        for n in lengths:
            _check_not_bool(n)
    else:
        _check_not_bool(size)
        lengths = (size,)
    shape = tuple(operator.index(n) for n in lengths)
    if any(n < 0 for n in shape):  # (ndarray's own check, at CuPy's cupy.empty(size))
        raise ValueError("Negative dimensions are not allowed")
    return shape


def _out(value: Any, dtype: Any) -> numpy.ndarray:
    """A fresh device array of ``dtype`` (CuPy writes its kernels' output there)."""
    return numpy.array(value, dtype=dtype, copy=True, ndmin=0)


def _kernel_shapes(size: Any, *params: Any) -> None:
    """The broadcast of CuPy's ``ElementwiseKernel('<params>, uint64 seed', 'Y y')``
    (``cupy/random/_kernels.py``) into ``y = cupy.empty(size)``: the parameters, the
    seed (a scalar: ``()``) and ``y`` broadcast together (``internal._broadcast_core``'s
    words), to ``y``'s own shape (``Out shape is mismatched``)."""
    shape = _size_tuple(size)
    shapes = [numpy.shape(p) for p in params]
    try:
        together = numpy.broadcast_shapes(*shapes, shape)
    except ValueError:
        raise ValueError("operands could not be broadcast together with shapes " +
                         " ".join(str(sh) for sh in shapes + [(), shape])) from None
    if together != shape:
        raise ValueError("Out shape is mismatched")


def _broadcasts(a: Any, out: numpy.ndarray) -> bool:
    """Whether ``a`` broadcasts into ``out``'s shape."""
    try:
        return numpy.broadcast_shapes(numpy.shape(a), out.shape) == out.shape
    except ValueError:
        return False


def _binomial_outside(n: numpy.ndarray, p: numpy.ndarray) -> tuple:
    """Where CuPy's ``rk_binomial`` (``_kernels.py``) meets ``p`` outside [0, 1] or a
    negative ``n`` (it checks neither): its inversion branch starts at ``px = q**n``,
    at least 1 there, so the first uniform stops it at X = 0: ``n`` for ``p > 1`` (and
    for ``n < 0`` with ``p > 0.5``), 0 for ``p < 0`` (and ``n < 0`` with ``p <= 0.5``).
    The mask of those cases and their values; NaN and the other combinations are not
    read here."""
    with numpy.errstate(invalid="ignore"):
        valid = (n >= 0) & (p >= 0) & (p <= 1)
        known = ((n >= 0) & ((p > 1) | (p < 0))) | ((n < 0) & (p >= 0) & (p <= 1))
        gives_n = ((n >= 0) & (p > 1)) | ((n < 0) & (p > 0.5) & (p <= 1))
    return valid, known, numpy.where(gives_n, n, 0)


def _reals(*params: numpy.ndarray) -> bool:
    """Whether every parameter is boolean, integer or real (the others go to NumPy)."""
    return all(p.dtype.kind in "biuf" for p in params)


def _negative_zero(x: numpy.ndarray) -> bool:
    """Whether ``x`` holds a -0.0: ``rk_standard_gamma(-0.0)`` draws ``pow(U, -inf)``,
    infinity, and never accepts it (a GPU hangs; NumPy's error is raised instead)."""
    return _any((x == 0) & numpy.signbit(x))


def _negative_gamma(gen: numpy.random.Generator, shape: numpy.ndarray) -> numpy.ndarray:
    """CuPy's ``rk_standard_gamma`` (``_kernels.py``) for shapes below 0, which it never
    refuses: its ``shape < 1.0`` branch draws ``X = pow(U, 1/shape)`` (at least 1) and
    returns it once ``X <= V`` (V exponential), so its answers have a density in
    ``x**(shape-1) * exp(-x)`` on [1, inf) (1.0 for -inf). Drawn here by that loop where
    it accepts often (``shape <= -1``) and by ``1 + V`` kept with probability
    ``(1 + V)**(shape-1)`` otherwise (the same law)."""
    s = shape.astype(numpy.float64).ravel()
    out = numpy.empty(s.shape)
    todo = numpy.arange(s.size)
    while todo.size:
        sk = s[todo]
        u = gen.random(todo.size)
        v = gen.standard_exponential(todo.size)
        with numpy.errstate(divide="ignore", over="ignore", invalid="ignore"):
            kernel = u ** (1.0 / sk)  # (U == 0: infinity, refused)
            near = 1.0 + v
            x = numpy.where(sk <= -1, kernel, near)
            keep = numpy.where(sk <= -1, kernel <= v, u <= near ** (sk - 1.0))
        out[todo[keep]] = x[keep]
        todo = todo[~keep]
    return out.reshape(shape.shape)


def _rk_standard_gamma(gen: numpy.random.Generator, shape: numpy.ndarray,
                       size: Any) -> numpy.ndarray:
    """``rk_standard_gamma(shape)`` over ``size``: NumPy's draws where NumPy draws, the
    kernel's answers for negative shapes (``_negative_gamma``); -0.0 is NumPy's error."""
    if not _reals(shape):
        return gen.standard_gamma(shape, size)
    with numpy.errstate(invalid="ignore"):
        below = shape < 0
    if not below.any():
        return gen.standard_gamma(shape, size)
    full = numpy.broadcast_to(shape, _size_tuple(size)).astype(numpy.float64)
    below = full < 0
    y = numpy.asarray(gen.standard_gamma(numpy.where(below, 1.0, full), full.shape),
                      dtype=numpy.float64)
    y[below] = _negative_gamma(gen, full[below])
    return y


def check_and_get_dtype(dtype: Any) -> numpy.dtype:
    """``cupy.random._generator._check_and_get_dtype``."""
    dtype = numpy.dtype(dtype)
    if dtype.char not in ("f", "d"):
        raise TypeError("cupy.random only supports float32 and float64")
    return dtype


def _any(cond: Any) -> bool:
    return bool(numpy.any(cond))


def _c_doubles(*values: Any) -> None:
    """CuPy's ``normal``/``lognormal`` pass what is not a ``cupy.ndarray`` to
    ``curand.generateNormal`` as C doubles (``_generator.py:311-332, 476-502``): a list
    or a NumPy array of more than one value is a TypeError there."""
    for v in values:
        if isinstance(v, HostArray):
            float(v.array)  # (Cython's ``double``: NumPy's own refusal of a shaped array)
        if isinstance(v, (list, tuple, dict, str)) or v is None:
            raise TypeError(f"must be real number, not {type(v).__name__}")


def _seed_to_int(seed: Any) -> int:
    """``RandomState.seed``'s reading of a seed (CuPy's checks and messages)."""
    value = seed_value(_host(seed))
    return int(binascii.hexlify(os.urandom(8)), 16) if value is None else value


def _kernel_operand(value: Any) -> Any:
    """``value`` as an operand of CuPy's arithmetic (``y *= scale``): a host array or a
    list is refused as its kernels refuse them."""
    if isinstance(value, HostArray):
        raise TypeError(f"Unsupported type {type(value.array)}")
    if isinstance(value, (list, tuple)):
        raise TypeError(f"Unsupported type {type(value)}")
    return value


def _last_axis(y: Any) -> None:
    """CuPy's ``y.sum(axis=-1)`` of a 0-d array (a dirichlet of a 0-d ``alpha``) raises."""
    if numpy.ndim(y) == 0:
        raise numpy.exceptions.AxisError("axis -1 is out of bounds for array of dimension 0")


class RandomState:
    """cupy.random.RandomState on the CPU backend.

    Parameters
    ----------
    seed : None or int or numpy.ndarray
        As ``RandomState.seed``.
    method : int, optional
        A ``cupy.cuda.curand.CURAND_RNG_PSEUDO_*`` value. The default (XORWOW) draws
        cuRAND's host API stream (``cpu_curand.HostXorwow``) for what CuPy draws through
        ``curand.generate``/``generateUniform*``/``generateNormal*``: ``random_sample``
        and what is built on it (``rand``, ``uniform``, ``_random_sample_raw``'s users),
        ``normal``/``standard_normal``/``randn`` (scalar ``loc``/``scale`` or arrays),
        ``randint`` (``_interval``), ``tomaxint``, ``_permutation``; the other methods,
        and every method of the other generator types, draw NumPy's PCG64 stream.

    See Also
    --------
    cupy.random.RandomState
    """

    def __init__(self, seed: Any = None, method: Any = None) -> None:
        if method is None:
            method = 100
        if int(method) not in _CURAND_METHODS:
            raise ValueError(f"unknown cuRAND generator type {method!r}")
        self.method = int(method)
        self.seed(seed)

    # --- state ----------------------------------------------------------------
    def seed(self, seed: Any = None) -> None:
        """See Also: cupy.random.RandomState.seed"""
        value = _seed_to_int(seed)
        self._rk_seed = value
        self._gen = numpy.random.Generator(numpy.random.PCG64(value))
        # (``setPseudoRandomGeneratorSeed`` + ``setGeneratorOffset(0)``: a fresh stream)
        self._host = cpu_curand.HostXorwow(value) if self.method in (100, 101) else None

    def _curand_generate(self, num: int, dtype: Any) -> numpy.ndarray:
        """CuPy's ``_curand_generate``: ``num`` values of ``dtype`` filled with cuRAND's
        32-bit words (``curand.generate``)."""
        sample = numpy.empty((num,), dtype=dtype)
        self._host.fill("generate", sample.view(numpy.uint32))
        return sample

    def _get_indices(self, sample: numpy.ndarray, upper_limit: Any,
                     cond: bool) -> numpy.ndarray:
        """CuPy's ``_get_indices``: where ``sample <= upper_limit`` (``cond``) or ``>``."""
        flags = (sample <= upper_limit) if cond else (sample > upper_limit)
        return numpy.flatnonzero(flags)

    # --- helpers (CuPy's private ones keep their names) ------------------------
    def _random_sample_raw(self, size: Any, dtype: Any) -> numpy.ndarray:
        dtype = check_and_get_dtype(dtype)
        if self._host is not None:  # (``curand.generateUniform[Double]``)
            out = numpy.empty(_size_tuple(size), dtype=dtype)
            self._host.fill("uniform" if dtype.char == "f" else "uniform_double", out)
            return out
        # cuRAND's uniform is on (0, 1]; NumPy's is [0, 1): flip it
        out = numpy.asarray(self._gen.random(_size_tuple(size), dtype=dtype))
        numpy.subtract(dtype.type(1), out, out=out)
        return out

    def _interval(self, mx: Any, size: Any) -> numpy.ndarray:
        """Integers sampled uniformly from ``[0, mx]`` (uint32 or uint64)."""
        if size is None:
            size = ()
        elif isinstance(size, (int, numpy.integer)):
            size = (int(size),)
        size = tuple(size)
        mx = _host(mx)
        if numpy.isscalar(mx):
            if mx == 0:
                return numpy.zeros(size, dtype=numpy.uint32)
            if mx < 0:
                raise ValueError(f"mx must be non-negative (actual: {mx})")
            if mx <= _UINT32_MAX:
                dtype = numpy.uint32
            elif mx <= _UINT64_MAX:
                dtype = numpy.uint64
            else:
                raise ValueError(f"mx must be within uint64 range (actual: {mx})")
            if self._host is not None:
                return self._interval_curand(int(mx), None, dtype, size)
            return self._gen.integers(0, int(mx), size=size, dtype=dtype, endpoint=True)
        mx = numpy.asarray(mx)
        if mx.dtype in (numpy.int32, numpy.uint32):
            dtype = numpy.uint32
        elif mx.dtype in (numpy.int64, numpy.uint64):
            dtype = numpy.uint64
        else:
            raise ValueError(f"dtype must be integer, got: {mx.dtype}")
        mx = mx.astype(dtype, copy=False)
        n = int(numpy.prod(size, dtype=numpy.int64))
        if n == 0:
            return numpy.empty(size, dtype=dtype)
        if mx.shape != (n,) and mx.size != 1:
            # CuPy compares the (n,) sample with ``mx``'s upper limits (``_get_indices``)
            raise ValueError("operands could not be broadcast together with shapes "
                             f"({n},) {mx.shape}")
        if self._host is not None:
            top = dtype(_UINT32_MAX if dtype == numpy.uint32 else _UINT64_MAX)
            with numpy.errstate(divide="ignore", invalid="ignore", over="ignore"):
                # (``_interval_upper_limit``: max - (mx != max ? (max - mx) % (mx + 1) : 0))
                upper = numpy.where(mx != top, top - (top - mx) % numpy.where(
                    mx != top, mx + dtype(1), dtype(1)), top).astype(dtype)
            return self._interval_curand(mx, upper, dtype, size)
        sample = self._gen.integers(0, numpy.broadcast_to(mx, (n,)) if mx.size != n
                                    else mx.reshape(n), size=n, dtype=dtype, endpoint=True)
        return sample.reshape(size)

    def _interval_curand(self, mx: Any, upper_limit: Any, dtype: Any,
                         size: tuple) -> numpy.ndarray:
        """CuPy's ``_interval`` from the sample on (``_generator.py:697-794``): its
        draws, its mask for a power of two, its rejection of the samples above
        ``upper_limit`` and their replacement from new draws, then the modulo."""
        is_mx_scalar = upper_limit is None
        if is_mx_scalar:
            bits = 32 if dtype == numpy.uint32 else 64
            upper_limit = dtype(((1 << bits) - 1) - (1 << bits) % (mx + 1))
        n_sample = functools.reduce(operator.mul, size, 1)
        if n_sample == 0:
            return numpy.empty(size, dtype=dtype)
        sample = self._curand_generate(n_sample, dtype)
        if is_mx_scalar:
            mx1 = mx + 1
            if mx1 == 1 << (mx1.bit_length() - 1):
                sample &= dtype((1 << mx.bit_length()) - 1)
                return sample.reshape(size)
        ng_indices = self._get_indices(sample, upper_limit, False)
        n_ng = ng_indices.size
        if n_ng > 0 and not is_mx_scalar:
            upper_limit = numpy.broadcast_to(upper_limit, sample.shape)[ng_indices]
        while n_ng > 0:
            n_supplement = max(n_ng * 2, 1024) if is_mx_scalar else upper_limit.size
            supplement = self._curand_generate(n_supplement, dtype)
            ok_indices = self._get_indices(supplement, upper_limit, True)
            n_ok = ok_indices.size
            if n_ok >= n_ng:
                sample[ng_indices] = supplement[ok_indices[:n_ng]]
                n_ng = 0
            else:
                sample[ng_indices[:n_ok]] = supplement[ok_indices]
                ng_indices = ng_indices[n_ok:]
                if not is_mx_scalar:
                    upper_limit = upper_limit[n_ok:]
                n_ng -= n_ok
        if is_mx_scalar:
            sample %= dtype(mx1)
        else:  # (``_interval_sample_modulo``: if (mx != max) sample %= mx + 1)
            top = dtype(_UINT32_MAX if dtype == numpy.uint32 else _UINT64_MAX)
            mx = numpy.broadcast_to(mx, sample.shape)
            keep = mx == top
            with numpy.errstate(divide="ignore", invalid="ignore"):
                sample = numpy.where(keep, sample,
                                     sample % numpy.where(keep, dtype(1), mx + dtype(1)))
            sample = sample.astype(dtype, copy=False)
        return sample.reshape(size)

    def _permutation(self, num: int) -> numpy.ndarray:
        if int(num) < 0:  # (CuPy's ``cupy.empty((num,), int32)`` of the keys)
            raise ValueError("Negative dimensions are not allowed")
        if self._host is not None:  # (``curand.generate`` of int32 keys, argsorted)
            return numpy.argsort(self._curand_generate(int(num), numpy.int32),
                                 kind="stable")
        return self._gen.permutation(int(num))

    # --- distributions (CuPy's order and checks) --------------------------------
    def beta(self, a: Any, b: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.beta"""
        a, b = _asarray(a), _asarray(b)
        if size is None:
            size = numpy.broadcast(a, b).shape
        _kernel_shapes(size, a, b)  # (its kernel's broadcast)
        # CuPy checks neither (``_generator.py``): ``rk_beta`` (``_kernels.py``) runs
        # Johnk's loop for a, b <= 1 (a zero gives 0 or 1, both NaN; a negative one never
        # ends), Ga / (Ga + Gb) of its gammas otherwise
        if not _reals(a, b):
            return _out(self._gen.beta(a, b, size), dtype)
        with numpy.errstate(invalid="ignore"):
            outside = (a <= 0) | (b <= 0)
            johnk = (a <= 1) & (b <= 1)
            hangs = _negative_zero(a) or _negative_zero(b) or _any(
                johnk & ((a < 0) | (b < 0)))
        if not outside.any() or hangs:
            return _out(self._gen.beta(a, b, size), dtype)  # (NumPy's error if it hangs)
        shape = _size_tuple(size)
        a, b = (numpy.broadcast_to(v, shape).astype(numpy.float64) for v in (a, b))
        outside, johnk = (numpy.broadcast_to(v, shape) for v in (outside, johnk))
        y = numpy.asarray(self._gen.beta(numpy.where(outside, 1.0, a),
                                         numpy.where(outside, 1.0, b), shape),
                          dtype=numpy.float64)
        zeros = outside & johnk  # (X = pow(U, 1/0) = 0: X / (X + Y))
        y[zeros] = numpy.where(a[zeros] == 0, numpy.where(b[zeros] == 0, numpy.nan, 0.0), 1.0)
        gammas = outside & ~johnk
        if gammas.any():
            ga = _rk_standard_gamma(self._gen, a[gammas], a[gammas].shape)
            gb = _rk_standard_gamma(self._gen, b[gammas], b[gammas].shape)
            with numpy.errstate(invalid="ignore", divide="ignore"):
                y[gammas] = ga / (ga + gb)
        return _out(y, dtype)

    def binomial(self, n: Any, p: Any, size: Any = None, dtype: Any = int) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.binomial"""
        n, p = _asarray(n), _asarray(p)
        if size is None:
            size = numpy.broadcast(n, p).shape
        _kernel_shapes(size, n, p)
        n = n.astype(numpy.int64)
        valid, known, fixed = _binomial_outside(n, p)
        if valid.all() or not (valid | known).all():
            return _out(self._gen.binomial(n, p, size), dtype)  # (NumPy's refusal: NaN)
        shape = _size_tuple(size)
        valid, fixed = numpy.broadcast_to(valid, shape), numpy.broadcast_to(fixed, shape)
        draws = self._gen.binomial(numpy.where(valid, numpy.broadcast_to(n, shape), 0),
                                   numpy.where(valid, numpy.broadcast_to(p, shape), 0.5),
                                   shape)
        return _out(numpy.where(valid, draws, fixed), dtype)

    def chisquare(self, df: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.chisquare"""
        df = _asarray(df)
        if size is None:
            size = df.shape
        _kernel_shapes(size, df)  # (its kernel's broadcast)
        # CuPy checks nothing: ``rk_chisquare`` is ``2.0*rk_standard_gamma(df/2.0)``
        # (0 for df == 0, NaN for NaN, ``_negative_gamma``'s draws below 0)
        if not _reals(df) or not _any(df <= 0) or _negative_zero(df):
            return _out(self._gen.chisquare(df, size), dtype)
        with numpy.errstate(invalid="ignore"):
            return _out(2.0 * _rk_standard_gamma(self._gen, df / 2.0, size), dtype)

    def dirichlet(self, alpha: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.dirichlet"""
        alpha = _asarray(alpha)
        if size is None:
            size = alpha.shape
        elif isinstance(size, (int, numpy.integer)):
            size = (int(size),) + alpha.shape
        else:
            size = tuple(size) + alpha.shape
        y = _rk_standard_gamma(self._gen, alpha, size)  # (CuPy's kernel: no check)
        y = _out(y, dtype)
        _last_axis(y)
        y /= y.sum(axis=-1, keepdims=True)
        return y

    def exponential(self, scale: Any = 1.0, size: Any = None,
                    dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.exponential"""
        scale = _asarray(scale, dtype)
        if _any(scale < 0):
            raise ValueError("scale < 0")
        if size is None:
            size = scale.shape
        x = self.standard_exponential(size, dtype)
        x *= scale
        return x

    def f(self, dfnum: Any, dfden: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.f"""
        dfnum, dfden = _asarray(dfnum), _asarray(dfden)
        if size is None:
            size = numpy.broadcast(dfnum, dfden).shape
        _kernel_shapes(size, dfnum, dfden)  # (its kernel's broadcast)
        # CuPy checks neither: ``rk_f`` is (chisquare(dfnum) * dfden) /
        # (chisquare(dfden) * dfnum) whatever they are (NumPy's formula too)
        if (not _reals(dfnum, dfden) or not _any((dfnum <= 0) | (dfden <= 0))
                or _negative_zero(dfnum) or _negative_zero(dfden)):
            return _out(self._gen.f(dfnum, dfden, size), dtype)
        with numpy.errstate(invalid="ignore", divide="ignore"):
            num = 2.0 * _rk_standard_gamma(self._gen, dfnum / 2.0, size)
            den = 2.0 * _rk_standard_gamma(self._gen, dfden / 2.0, size)
            return _out((num * dfden) / (den * dfnum), dtype)

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None,
              dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.gamma"""
        shape, scale = _asarray(shape), _asarray(scale)
        if size is None:
            size = numpy.broadcast(shape, scale).shape
        _kernel_shapes(size, shape)  # (its kernel's broadcast)
        y = _out(_rk_standard_gamma(self._gen, shape, size), dtype)  # (no check)
        # CuPy: ``y = cupy.empty(size, dtype)``...``y *= scale`` (float64 0-d array):
        # an integer ``dtype`` is a same_kind casting TypeError, as CuPy's
        res = numpy.result_type(y, scale)
        if not numpy.can_cast(res, y.dtype, "same_kind"):
            raise TypeError(f"Cannot cast output operand from {res!r} to {y.dtype!r} "
                            "according to the rule 'same_kind'")
        numpy.multiply(y, scale, out=y, casting="unsafe")
        return y

    def geometric(self, p: Any, size: Any = None, dtype: Any = "l") -> numpy.ndarray:
        """See Also: cupy.random.RandomState.geometric"""
        p = _asarray(p)
        if size is None:
            size = p.shape
        _kernel_shapes(size, p)  # (its kernel's broadcast)
        # CuPy checks nothing: ``rk_geometric``'s search (p >= 1/3) answers 1 for p > 1,
        # its inversion ``(long)ceil(log(1-U)/log(1-p))`` a non-positive number for
        # p < 0, LONG_MIN for 0 (-inf) and for NaN (the GPU's ``cvt.rzi.s64.f64``: NaN
        # is 0x8000000000000000, as its ``astype(int64)`` of NaN)
        if not _reals(p):
            return _out(self._gen.geometric(p, size), dtype)
        with numpy.errstate(invalid="ignore"):
            outside = ~((p > 0) & (p <= 1))
        if not outside.any():
            return _out(self._gen.geometric(p, size), dtype)
        shape = _size_tuple(size)
        p = numpy.broadcast_to(p, shape).astype(numpy.float64)
        outside = numpy.broadcast_to(outside, shape)
        y = numpy.asarray(self._gen.geometric(numpy.where(outside, 0.5, p), shape),
                          dtype=numpy.int64)
        u = self._gen.random(shape)
        with numpy.errstate(invalid="ignore", divide="ignore"):
            inverted = numpy.ceil(numpy.log(1.0 - u) / numpy.log(1.0 - p))
        inverted = cpu_cast._saturated(numpy.atleast_1d(inverted), numpy.dtype(numpy.int64))
        y[outside] = numpy.where(p > 1, 1, inverted.reshape(shape))[outside]
        return _out(y, dtype)

    def hypergeometric(self, ngood: Any, nbad: Any, nsample: Any, size: Any = None,
                       dtype: Any = "l") -> numpy.ndarray:
        """See Also: cupy.random.RandomState.hypergeometric"""
        if isinstance(ngood, (int, float)) and ngood < 0:
            raise ValueError("ngood < 0")
        if isinstance(nbad, (int, float)) and nbad < 0:
            raise ValueError("nbad < 0")
        if isinstance(nsample, (int, float)) and nsample < 1:
            raise ValueError("nsample < 1")
        ngood, nbad, nsample = _asarray(ngood), _asarray(nbad), _asarray(nsample)
        if size is None:
            size = numpy.broadcast(ngood, nbad, nsample).shape
        _kernel_shapes(size, ngood, nbad, nsample)  # (its kernel's broadcast)
        return _out(_hypergeometric(self._gen, ngood, nbad, nsample, size), dtype)

    def laplace(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.laplace"""
        loc, scale = _asarray(loc, dtype), _asarray(scale, dtype)
        if size is None:
            size = numpy.broadcast(loc, scale).shape
        x = self._random_sample_raw(size, dtype)
        # CuPy's _laplace_kernel (_generator.py:272): no check of ``scale``
        with numpy.errstate(divide="ignore", invalid="ignore"):
            y = loc + scale * numpy.where(x <= 0.5, numpy.log(x + x), -numpy.log(x + x - 1.0))
        return _out(y, x.dtype)

    def logistic(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.logistic"""
        loc, scale = _asarray(loc), _asarray(scale)
        if size is None:
            size = numpy.broadcast(loc, scale).shape
        dt = numpy.dtype(dtype)
        if dt.char not in "fd":
            return _out(self._gen.logistic(loc, scale, size), dtype)
        # CuPy's formula (_generator.py:292-309): no check of ``scale``
        x = self._random_sample_raw(size, dt)
        with numpy.errstate(divide="ignore", invalid="ignore"):
            x = numpy.array((dt.type(1.0) - x) / x, dtype=dt)
            numpy.log(x, out=x)
            numpy.multiply(x, scale, out=x, casting="same_kind")
            numpy.add(x, loc, out=x, casting="same_kind")
        return x

    def lognormal(self, mean: Any = 0.0, sigma: Any = 1.0, size: Any = None,
                  dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.lognormal"""
        _c_doubles(mean, sigma)
        mean, sigma = _host(mean), _host(sigma)
        if any(isinstance(arg, numpy.ndarray) for arg in (mean, sigma)):
            x = self.normal(mean, sigma, size, dtype)
            numpy.exp(x, out=x)
            return x
        if size is None:
            size = ()
        dtype = check_and_get_dtype(dtype)
        return _out(self._gen.lognormal(mean, sigma, _size_tuple(size)), dtype)

    def logseries(self, p: Any, size: Any = None, dtype: Any = "l") -> numpy.ndarray:
        """See Also: cupy.random.RandomState.logseries"""
        p = _asarray(p)
        if _any(p <= 0):
            raise ValueError("p <= 0.0")
        if _any(p >= 1):
            raise ValueError("p >= 1.0")
        if size is None:
            size = p.shape
        _kernel_shapes(size, p)  # (its kernel's broadcast)
        return _out(self._gen.logseries(p, size), dtype)

    def multivariate_normal(self, mean: Any, cov: Any, size: Any = None,
                            check_valid: str = "ignore", tol: float = 1e-08,
                            method: str = "cholesky", dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.multivariate_normal"""
        mean = _asarray(mean, dtype)
        cov = _asarray(cov, dtype)
        if size is None:
            shape: list = []
        elif isinstance(size, (int, numpy.integer)):
            shape = [int(size)]
        else:
            shape = list(size)
        if mean.ndim != 1:
            raise ValueError("mean must be 1 dimensional")
        if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if mean.shape[0] != cov.shape[0]:
            raise ValueError("mean and cov must have same length")
        final_shape = shape + [mean.shape[0]]
        if method not in {"eigh", "svd", "cholesky"}:
            raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")
        if check_valid not in ("ignore", "warn", "raise"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        decomp = _mvn_decomposition(cov, method, check_valid, tol)
        x = self.standard_normal(final_shape, dtype=dtype).reshape(-1, mean.shape[0])
        x = numpy.dot(decomp, x.T).T.astype(x.dtype, copy=False)
        x += mean
        return numpy.ascontiguousarray(x).reshape(tuple(final_shape))

    def negative_binomial(self, n: Any, p: Any, size: Any = None,
                          dtype: Any = int) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.negative_binomial"""
        n, p = _asarray(n), _asarray(p)
        if _any(n <= 0):
            raise ValueError("n <= 0")
        if _any(p < 0):
            raise ValueError("p < 0")
        if _any(p > 1):
            raise ValueError("p > 1")
        with numpy.errstate(divide="ignore", invalid="ignore"):
            y = self.gamma(n, (1 - p) / p, size)
        return self.poisson(y, dtype=dtype)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
               dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.normal"""
        dtype = check_and_get_dtype(dtype)
        _c_doubles(loc, scale)
        loc, scale = _host(loc), _host(scale)
        if size is None:
            size = numpy.broadcast(loc, scale).shape
        if self._host is not None:
            return self._normal_curand(loc, scale, size, dtype)
        x = self._gen.standard_normal(_size_tuple(size), dtype=dtype)
        try:  # (CuPy's ``cupy.multiply(x, scale, out=x)``, ``cupy.add(x, loc, out=x)``)
            if isinstance(scale, numpy.ndarray):
                numpy.multiply(x, scale, out=x, casting="unsafe")
            else:
                x *= dtype.type(scale)
            if isinstance(loc, numpy.ndarray):
                numpy.add(x, loc, out=x, casting="unsafe")
            else:
                x += dtype.type(loc)
        except ValueError as exc:  # (the ufunc's broadcast words)
            from .cpu_routines import _ufunc_value_error
            uf, operand = (numpy.multiply, scale) if isinstance(scale, numpy.ndarray) and \
                not _broadcasts(scale, x) else (numpy.add, loc)
            raise _ufunc_value_error(uf, (x, operand), {"out": x}, exc) from None
        return x

    def _normal_curand(self, loc: Any, scale: Any, size: Any,
                       dtype: numpy.dtype) -> numpy.ndarray:
        """CuPy's ``normal`` over ``curand.generateNormal[Double]``
        (``_generate_normal``: an odd count drawn one longer, the last dropped)."""
        shape = _size_tuple(size)
        n = int(numpy.prod(shape, dtype=numpy.int64))
        kind = "normal" if dtype.char == "f" else "normal_double"

        def draw(mean: Any, stddev: Any) -> numpy.ndarray:
            out = numpy.empty((n + n % 2,), dtype=dtype)
            self._host.fill(kind, out, float(mean), float(stddev))
            return out[:n].reshape(shape)

        try:
            if isinstance(scale, numpy.ndarray):
                x = draw(0.0, 1.0)
                numpy.multiply(x, scale, out=x, casting="unsafe")
                numpy.add(x, loc, out=x, casting="unsafe")
            elif isinstance(loc, numpy.ndarray):
                x = draw(0.0, scale)
                numpy.add(x, loc, out=x, casting="unsafe")
            else:
                x = draw(loc, scale)
        except ValueError as exc:  # (the ufunc's broadcast words)
            from .cpu_routines import _ufunc_value_error
            uf, operand = (numpy.multiply, scale) if isinstance(scale, numpy.ndarray) and \
                not _broadcasts(scale, x) else (numpy.add, loc)
            raise _ufunc_value_error(uf, (x, operand), {"out": x}, exc) from None
        return x

    def pareto(self, a: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.pareto"""
        a = _asarray(a)
        if size is None:
            size = a.shape
        x = self._random_sample_raw(size, dtype)
        numpy.log(x, out=x)
        return numpy.exp(-x / a).astype(x.dtype, copy=False) - x.dtype.type(1)

    def noncentral_chisquare(self, df: Any, nonc: Any, size: Any = None,
                             dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.noncentral_chisquare"""
        df, nonc = _asarray(df), _asarray(nonc)
        if _any(df <= 0):
            raise ValueError("df <= 0")
        if _any(nonc < 0):
            raise ValueError("nonc < 0")
        if size is None:
            size = numpy.broadcast(df, nonc).shape
        _kernel_shapes(size, df, nonc)  # (its kernel's broadcast)
        return _out(self._gen.noncentral_chisquare(df, nonc, size), dtype)

    def noncentral_f(self, dfnum: Any, dfden: Any, nonc: Any, size: Any = None,
                     dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.noncentral_f"""
        dfnum, dfden, nonc = _asarray(dfnum), _asarray(dfden), _asarray(nonc)
        if _any(dfnum <= 0):
            raise ValueError("dfnum <= 0")
        if _any(dfden <= 0):
            raise ValueError("dfden <= 0")
        if _any(nonc < 0):
            raise ValueError("nonc < 0")
        if size is None:
            size = numpy.broadcast(dfnum, dfden, nonc).shape
        _kernel_shapes(size, dfnum, dfden, nonc)  # (its kernel's broadcast)
        return _out(self._gen.noncentral_f(dfnum, dfden, nonc, size), dtype)

    def poisson(self, lam: Any = 1.0, size: Any = None, dtype: Any = "l") -> numpy.ndarray:
        """See Also: cupy.random.RandomState.poisson"""
        lam = _asarray(lam)
        if size is None:
            size = lam.shape
        _kernel_shapes(size, lam)  # (its kernel's broadcast)
        lam = numpy.where(numpy.isfinite(lam) & (lam >= 0), lam, 0)
        return _out(self._gen.poisson(lam, size), dtype)

    def power(self, a: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.power"""
        a = _asarray(a)
        if _any(a < 0):
            raise ValueError("a < 0")
        if size is None:
            size = a.shape
        x = self.standard_exponential(size=size, dtype=dtype)
        numpy.exp(-x, out=x)
        numpy.add(1, -x, out=x)
        numpy.power(x, 1. / a, out=x, casting="unsafe")
        return x

    def rand(self, *size: Any, **kwarg: Any) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.rand"""
        dtype = kwarg.pop("dtype", float)
        if kwarg:
            raise TypeError("rand() got unexpected keyword arguments %s"
                            % ", ".join(kwarg.keys()))
        return self.random_sample(size=size, dtype=dtype)

    def randn(self, *size: Any, **kwarg: Any) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.randn"""
        dtype = kwarg.pop("dtype", float)
        if kwarg:
            raise TypeError("randn() got unexpected keyword arguments %s"
                            % ", ".join(kwarg.keys()))
        return self.normal(size=size, dtype=dtype)

    def random_sample(self, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.random_sample"""
        dtype = check_and_get_dtype(dtype)
        if self._host is not None:
            out = self._random_sample_raw(size, dtype)
            out[out == 1] = 0  # (``_mod1_kernel``: cuRAND's (0, 1] made [0, 1))
            return out
        return self._gen.random(_size_tuple(size), dtype=dtype)

    def rayleigh(self, scale: Any = 1.0, size: Any = None,
                 dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.rayleigh"""
        scale = _asarray(scale)
        if size is None:
            size = scale.shape
        if _any(scale < 0):
            raise ValueError("scale < 0")
        x = self._random_sample_raw(size, dtype)
        numpy.log(x, out=x)
        numpy.multiply(x, -2., out=x)
        numpy.sqrt(x, out=x)
        numpy.multiply(x, scale, out=x, casting="unsafe")
        return x

    def standard_cauchy(self, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.standard_cauchy"""
        x = self.uniform(size=size, dtype=dtype)
        return numpy.tan(numpy.pi * (x - 0.5)).astype(x.dtype, copy=False)

    def standard_exponential(self, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.standard_exponential"""
        if size is None:
            size = ()
        x = self._random_sample_raw(size, dtype)
        numpy.log(x, out=x)
        numpy.negative(x, out=x)
        return x

    def standard_gamma(self, shape: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.standard_gamma"""
        shape = _asarray(shape)
        if size is None:
            size = shape.shape
        _kernel_shapes(size, shape)  # (its kernel's broadcast)
        return _out(_rk_standard_gamma(self._gen, shape, size), dtype)  # (no check)

    def standard_normal(self, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.standard_normal"""
        return self.normal(size=size, dtype=dtype)

    def standard_t(self, df: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.standard_t"""
        df = _asarray(df)
        if size is None:
            size = df.shape
        _kernel_shapes(size, df)  # (its kernel's broadcast)
        # CuPy checks nothing: ``rk_standard_t`` is sqrt(df/2) * gauss /
        # sqrt(rk_standard_gamma(df/2)), NaN for df <= 0 (sqrt of a negative, or 0/0)
        if not _reals(df) or not _any(df <= 0) or _negative_zero(df):
            return _out(self._gen.standard_t(df, size), dtype)
        shape = _size_tuple(size)
        df = numpy.broadcast_to(df, shape).astype(numpy.float64)
        y = numpy.asarray(self._gen.standard_t(numpy.where(df <= 0, 1.0, df), shape),
                          dtype=numpy.float64)
        y[df <= 0] = numpy.nan
        return _out(y, dtype)

    def tomaxint(self, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.tomaxint"""
        if size is None:
            size = ()
        if self._host is not None:  # (``curand.generate`` of its words, the sign cleared)
            sample = numpy.empty(_size_tuple(size), dtype=numpy.int_)
            self._host.fill("generate", sample.reshape(-1).view(numpy.uint32))
            sample &= numpy.iinfo(numpy.int_).max
            return sample
        return self._gen.integers(0, numpy.iinfo(numpy.int_).max, size=size,
                                  dtype=numpy.int_, endpoint=True)

    def triangular(self, left: Any, mode: Any, right: Any, size: Any = None,
                   dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.triangular"""
        left, mode, right = _asarray(left), _asarray(mode), _asarray(right)
        if _any(left > mode):
            raise ValueError("left > mode")
        if _any(mode > right):
            raise ValueError("mode > right")
        if _any(left == right):
            raise ValueError("left == right")
        if size is None:
            size = numpy.broadcast(left, mode, right).shape
        x = self.random_sample(size=size, dtype=dtype)
        base = right - left
        leftbase = mode - left
        ratio = leftbase / base
        y = numpy.where(x <= ratio, left + numpy.sqrt(x * leftbase * base),
                        right - numpy.sqrt((1.0 - x) * (right - mode) * base))
        return _out(y, x.dtype)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None,
                dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.uniform"""
        low, high = _host(low), _host(high)
        if not numpy.isscalar(low):
            low = _asarray(low, dtype)
        if not numpy.isscalar(high):
            high = _asarray(high, dtype)
        if size is None:
            size = numpy.broadcast(low, high).shape
        dtype = numpy.dtype(dtype)
        rand = self.random_sample(size=size, dtype=dtype)
        t = dtype.type
        low_t = low.astype(dtype) if isinstance(low, numpy.ndarray) else t(low)
        high_t = high.astype(dtype) if isinstance(high, numpy.ndarray) else t(high)
        return _out(low_t + rand * (high_t - low_t), dtype)

    def vonmises(self, mu: Any, kappa: Any, size: Any = None,
                 dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.vonmises"""
        mu, kappa = _asarray(mu), _asarray(kappa)
        if size is None:
            size = numpy.broadcast(mu, kappa).shape
        # CuPy's rk_vonmises (_kernels.py:583): kappa < 1e-8, a negative kappa too,
        # draws uniformly on (-pi, pi); no check
        _kernel_shapes(size, mu, kappa)  # (its kernel's broadcast)
        k = numpy.where(kappa < 1e-8, 0.0, kappa)
        return _out(self._gen.vonmises(mu, k, size), dtype)

    def wald(self, mean: Any, scale: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.wald"""
        mean, scale = _asarray(mean, dtype), _asarray(scale, dtype)
        if size is None:
            size = numpy.broadcast(mean, scale).shape
        x = self.normal(size=size, dtype=dtype)
        u = self.random_sample(size=size, dtype=dtype)
        # CuPy's _wald_kernel (_generator.py:1041): no check of mean or scale
        with numpy.errstate(divide="ignore", invalid="ignore"):
            mu_2l = mean / (2 * scale)
            y = mean * x * x
            x = mean + mu_2l * (y - numpy.sqrt(4 * scale * y + y * y))
            x = numpy.where(u > mean / (mean + x), mean * mean / x, x)
        return _out(x, u.dtype)

    def weibull(self, a: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.weibull"""
        a = _asarray(a)
        if _any(a < 0):
            raise ValueError("a < 0")
        if size is None:
            size = a.shape
        x = self.standard_exponential(size, dtype)
        with numpy.errstate(divide="ignore"):
            numpy.power(x, 1. / a, out=x, casting="unsafe")
        return x

    def zipf(self, a: Any, size: Any = None, dtype: Any = int) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.zipf"""
        a = _asarray(a)
        if _any(a <= 1.0):
            raise ValueError("'a' must be a valid float > 1.0")
        if size is None:
            size = a.shape
        _kernel_shapes(size, a)  # (its kernel's broadcast)
        return _out(self._gen.zipf(a, size), dtype)

    def gumbel(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
               dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.gumbel"""
        loc, scale = _host(loc), _host(scale)
        if not numpy.isscalar(loc):
            loc = _asarray(loc, dtype)
        if not numpy.isscalar(scale):
            scale = _asarray(scale, dtype)
        if size is None:
            size = numpy.broadcast(loc, scale).shape
        x = self._random_sample_raw(size=size, dtype=dtype)
        y = loc - numpy.log(-numpy.log(x)) * scale
        return _out(y, x.dtype)

    # --- integers and sampling ---------------------------------------------------
    def choice(self, a: Any, size: Any = None, replace: Any = True, p: Any = None) -> Any:
        """See Also: cupy.random.RandomState.choice"""
        a, p = _host(a), _host(p)
        if a is None:
            raise ValueError("a must be 1-dimensional or an integer")
        if isinstance(a, numpy.ndarray) and a.ndim == 0:
            raise NotImplementedError
        if isinstance(a, int):
            a_size = a
            if a_size < 0:
                raise ValueError("a must be greater than or equal to 0")
        else:
            a = _asarray(a)
            if a.ndim != 1:
                raise ValueError("a must be 1-dimensional or an integer")
            a_size = len(a)
        if p is not None:
            p = _asarray(p)
            if p.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if len(p) != a_size:
                raise ValueError("a and p must have same size")
            if not (p >= 0).all():
                raise ValueError("probabilities are not non-negative")
            if not numpy.allclose(numpy.sum(p), 1):
                raise ValueError("probabilities do not sum to 1")
        if size is None:
            raise NotImplementedError(
                "choice() without specifying size is not supported yet")
        shape = size
        try:
            size = int(numpy.prod(shape, dtype=numpy.int64)) if not isinstance(
                shape, (int, numpy.integer)) else int(shape)
        except TypeError:
            pass
        if a_size == 0 and size > 0:
            raise ValueError("a cannot be empty unless no samples are taken")
        if not replace and p is None:
            if a_size < size:
                raise ValueError("Cannot take a larger sample than population when "
                                 "'replace=False'")
            if isinstance(a, int):
                indices = self._gen.choice(a_size, size=size, replace=False)
                return indices.astype(numpy.int64).reshape(shape)
            indices = a.copy()
            self.shuffle(indices)
            return indices[:size].reshape(shape)
        if not replace:
            raise NotImplementedError
        if p is not None:
            cdf = p.cumsum()
            cdf /= cdf[-1]
            uniform_samples = self.random_sample(shape)
            index = cdf.searchsorted(uniform_samples, side="right")
            index = numpy.minimum(index, a_size - 1)
        else:
            if a_size == 0:
                a_size = 1
            index = self.randint(0, a_size, size=shape).astype(numpy.int64, copy=False)
        if isinstance(a, int):
            return numpy.asarray(index)
        if numpy.ndim(index) == 0:
            return numpy.array(a[index], dtype=a.dtype)
        return a[index]

    def shuffle(self, a: Any) -> None:
        """See Also: cupy.random.RandomState.shuffle"""
        if not isinstance(a, numpy.ndarray):
            raise TypeError("The array must be cupy.ndarray")
        if a.ndim == 0:
            raise TypeError("An array whose ndim is 0 is not supported")
        a[:] = a[self._permutation(len(a))]

    def permutation(self, a: Any) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.permutation"""
        a = _host(a)
        if isinstance(a, (int, numpy.integer)):
            return self._permutation(a)
        return a[self._permutation(len(a))]

    def randint(self, low: Any, high: Any = None, size: Any = None,
                dtype: Any = int) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.randint"""
        low, high = _host(low), _host(high)
        if not numpy.isscalar(low):
            # CuPy's array path (_generator.py:1270-1287): no low >= high check
            low = _asarray(low)
            if high is None:
                lo = numpy.zeros_like(low)
                hi = low - 1
            else:
                lo = low
                hi = _asarray(high) - 1
            if size is None:
                size = numpy.broadcast(lo, hi).shape
            diff = hi - lo
            total_elems = functools.reduce(operator.mul, size, 1)
            out = self._interval(diff.flatten(), total_elems)
            out = out.astype(dtype)
            out = out.reshape(size)
            lo = lo.astype(dtype, copy=False)
            numpy.add(out, lo, out=out)
            return out
        if high is None:
            lo = 0
            hi1 = int(low) - 1
        else:
            lo = int(low)
            hi1 = int(high) - 1
        if lo > hi1:
            raise ValueError("low >= high")
        if lo < numpy.iinfo(dtype).min:
            raise ValueError(f"low is out of bounds for {numpy.dtype(dtype).name}")
        if hi1 > numpy.iinfo(dtype).max:
            raise ValueError(f"high is out of bounds for {numpy.dtype(dtype).name}")
        diff = hi1 - lo
        x = self._interval(diff, size).astype(dtype, copy=False)
        numpy.add(x, lo, out=x, casting="unsafe")
        return x


def _mvn_decomposition(cov: numpy.ndarray, method: str, check_valid: str,
                       tol: float) -> numpy.ndarray:
    """The factor ``A`` with ``A @ A.T == cov`` that CuPy's multivariate_normal uses."""
    import warnings
    from numpy.linalg import LinAlgError

    def factor(m: str) -> numpy.ndarray:
        if m == "cholesky":
            return numpy.linalg.cholesky(cov)
        if m == "eigh":
            s, u = numpy.linalg.eigh(cov)
            return u * numpy.sqrt(numpy.abs(s))
        u, s, vh = numpy.linalg.svd(cov)
        return u * numpy.sqrt(numpy.abs(s))

    if check_valid == "warn":
        try:
            return numpy.linalg.cholesky(cov)
        except LinAlgError:
            if method == "cholesky":
                warnings.warn("covariance is not positive-semidefinite, output *is* "
                              "invalid.", RuntimeWarning)
                # cuSOLVER leaves NaN in a failed factorization
                return numpy.full_like(cov, numpy.nan)
            decomp = factor(method)
            if method == "eigh":
                psd = not numpy.any(numpy.linalg.eigvalsh(cov) < -tol)
            else:
                u, s, vh = numpy.linalg.svd(cov)
                psd = numpy.allclose(numpy.dot(vh.T * s, vh), cov, rtol=tol, atol=tol)
            if not psd:
                warnings.warn("covariance is not positive-semidefinite, output may be "
                              "invalid.", RuntimeWarning)
            return decomp
    try:
        return factor(method)
    except LinAlgError:
        if check_valid == "raise":
            raise LinAlgError("Matrix is not positive definite; if matrix is "
                              "positive-semidefinite, set'check_valid' to 'warn'") from None
        # CuPy's cuSOLVER leaves garbage (NaN) rather than raising when ignoring
        return numpy.full_like(cov, numpy.nan)


def _hypergeometric(gen: numpy.random.Generator, ngood: numpy.ndarray, nbad: numpy.ndarray,
                    nsample: numpy.ndarray, size: Any) -> numpy.ndarray:
    """CuPy's kernel: out-of-range inputs give the clamped result instead of an error
    (``nsample > ngood + nbad`` draws everything)."""
    good = numpy.maximum(ngood.astype(numpy.int64), 0)
    bad = numpy.maximum(nbad.astype(numpy.int64), 0)
    sample = numpy.clip(nsample.astype(numpy.int64), 0, good + bad)
    return gen.hypergeometric(good, bad, sample, size)


# --- the Generator API -------------------------------------------------------------------

class _DerivedSeed:
    """A seed the client derived from its SeedSequence already (``{"seed32": w}``: the
    word CuPy's generators take of it, ``generate_state(1, uint32)[0]``)."""

    def __init__(self, word: int) -> None:
        self._word = numpy.uint32(word)

    def generate_state(self, n_words: int, dtype: Any = numpy.uint32) -> numpy.ndarray:
        if n_words != 1 or numpy.dtype(dtype) != numpy.uint32:
            raise NotImplementedError("gpushare: a derived seed gives one 32-bit word")
        return numpy.array([self._word], numpy.uint32)


def _seed_sequence(seed: Any) -> Any:
    seed = _host(seed)
    if isinstance(seed, numpy.random.SeedSequence):
        return seed
    if isinstance(seed, dict) and set(seed) == {"seed32"} and type(seed["seed32"]) is int \
            and 0 <= seed["seed32"] < 1 << 32:
        return _DerivedSeed(seed["seed32"])
    if seed is not None:
        arr = numpy.asarray(seed)
        if arr.dtype.kind not in "biu":
            raise TypeError("SeedSequence expects int or sequence of ints for entropy "
                            f"not {seed!r}")
        seed = int(arr) if arr.ndim == 0 else [int(v) for v in arr.ravel()]
    return numpy.random.SeedSequence(seed)


class BitGenerator:
    """cupy.random.BitGenerator on the CPU backend.

    CuPy's base class cannot draw (``random_raw`` raises, ``_bit_generator.pyx:55``;
    a Generator over it finds no ``state``); its cuRAND subclasses hold cuRAND states
    as CuPy's do, drawn by CuPy's own kernels on the emulator (``cpu_curand``).

    See Also
    --------
    cupy.random.BitGenerator
    """

    def __init__(self, seed: Any = None) -> None:
        self._seed_seq = _seed_sequence(seed)

    def random_raw(self, size: Any = None, output: bool = True) -> Any:
        """See Also: cupy.random.BitGenerator.random_raw"""
        raise NotImplementedError("Not implemented in base BitGenerator")

    def _state_size(self) -> int:
        return 0

    def _launch(self, name: str, out: numpy.ndarray, args: tuple = ()) -> None:
        """CuPy's ``_launch_dist`` (which first asks the generator for ``state()``)."""
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'state'")


class _cuRANDGenerator(BitGenerator):
    """CuPy's ``_cuRANDGenerator``: ``size`` cuRAND states (by default 8 * 256 per
    multiprocessor the device reports), state ``i`` seeded ``curand_init(seed, i, 0)``
    with ``seed`` the first 32-bit word of the seed's ``SeedSequence``."""

    _KIND: str  # (``cpu_curand.STATES``' name of the subclass's generator)

    def __init__(self, seed: Any = None, *, size: int = -1) -> None:
        super().__init__(seed)
        self._seed = int(self._seed_seq.generate_state(1, numpy.uint32)[0])
        size = operator.index(size)
        if size < 0:
            size = 8 * 256 * cpu_curand.multiprocessor_count()
        self._size = size
        self._state = cpu_curand.state_bytes(self._KIND, size)
        cpu_curand.init_states(self._KIND, self._state, self._seed, size)

    def random_raw(self, size: Any = None, output: bool = True) -> Any:
        """See Also: cupy.random.XORWOW.random_raw (CuPy's output is int32,
        ``_bit_generator.pyx:114``: the 32 raw bits, read as signed)."""
        y = numpy.zeros(_size_tuple(size), numpy.int32)
        self._launch("raw", y)
        return y if output else None

    def state(self) -> int:
        return self._state.ctypes.data

    def _state_size(self) -> int:
        return self._size

    def _launch(self, name: str, out: numpy.ndarray, args: tuple = ()) -> None:
        cpu_curand.launch(self._KIND, self._state, self._size, name, out, args)


class XORWOW(_cuRANDGenerator):
    """See Also: cupy.random.XORWOW"""
    _KIND = "xorwow"


class MRG32k3a(_cuRANDGenerator):
    """See Also: cupy.random.MRG32k3a"""
    _KIND = "mrg32k3a"


class Philox4x3210(_cuRANDGenerator):
    """See Also: cupy.random.Philox4x3210"""
    _KIND = "philox4x3210"


def _check_output_array(dtype: Any, size: Any, out: Any, check_only_c_cont: bool = False) -> None:
    """``Generator._check_output_array`` (``_generator_api.pyx:109``): CuPy's order,
    messages and error types."""
    if out is None:
        return
    if not isinstance(out, numpy.ndarray):
        raise TypeError("out must be a cupy.ndarray")
    dtype = numpy.dtype(dtype)
    if out.dtype.char != dtype.char:
        raise TypeError(f"Supplied output array has the wrong type. Expected {dtype.name},"
                        f" got {out.dtype.name}")
    if not out.flags.c_contiguous:
        if check_only_c_cont or not out.flags.f_contiguous:
            raise ValueError("Supplied output array is not contiguous, writable or aligned.")
    if size is not None:
        try:
            tup_size = tuple(size)
        except TypeError:
            tup_size = (size,)
        if tup_size != out.shape:
            raise ValueError("size must match out.shape when used together")


def _gen_param(x: Any, name: str, kinds: tuple = (float, int), exc: type = TypeError,
               dtype: Any = numpy.float64) -> numpy.ndarray:
    """A Generator parameter as CuPy takes it: a device array (cast to ``dtype``) or a
    Python ``float``/``int`` (``type(x) in (float, int)``: no list, no NumPy scalar);
    anything else is ``exc('<name> is required to be a cupy.ndarray or a scalar')``."""
    if isinstance(x, numpy.ndarray):
        return x.astype(dtype, copy=False)
    if type(x) in kinds:
        return numpy.asarray(x, dtype)
    raise exc(f"{name} is required to be a cupy.ndarray or a scalar")


def _gen_size(size: Any) -> Any:
    """``if size is not None and not isinstance(size, tuple): size = (size,)``."""
    if size is not None and not isinstance(size, tuple):
        size = (size,)
    return size


class Generator:
    """cupy.random.Generator on the CPU backend, method by method as CuPy's
    ``_generator_api.pyx``: its parameter types and checks, its work arrays, and its
    kernels (CuPy's ``cupy_distributions.cu``, launched by the bit generator:
    ``_cuRANDGenerator._launch``), so a seeded Generator draws CuPy's numbers. Where
    CuPy's kernel would never return (``beta`` with a negative parameter and both at
    most 1, ``logseries`` with ``p == 1``, ``binomial`` with a NaN ``p``), NumPy's
    error is raised instead: a GPU would hang.

    Parameters
    ----------
    bit_generator : BitGenerator
        The stream the distributions draw on.

    See Also
    --------
    cupy.random.Generator
    """

    def __init__(self, bit_generator: Any) -> None:
        if not isinstance(bit_generator, BitGenerator):
            raise TypeError("bit_generator must be a cupy.random.BitGenerator")
        self.bit_generator = bit_generator
        self._binomial_state: numpy.ndarray | None = None

    def _launch(self, name: str, out: numpy.ndarray, args: tuple = ()) -> None:
        self.bit_generator._launch(name, out, args)

    @staticmethod
    def _copy(y: numpy.ndarray, out: Any) -> Any:
        """``_core.elementwise_copy(y, out)`` (``y`` broadcast to ``out``), then ``out``."""
        if out is None:
            return y
        numpy.copyto(out, y, casting="unsafe")
        return out

    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = numpy.int64,
                 endpoint: bool = False) -> numpy.ndarray:
        """See Also: cupy.random.Generator.integers (CuPy's bounds are ``int(low)`` and
        ``int(high)``: one number each, an array of more is a TypeError; its checks and
        words, ``_generator_api.pyx``)."""
        low, high = _host(low), _host(high)
        if high is None:
            lo, hi1 = 0, int(low)
        else:
            lo, hi1 = int(low), int(high)
        if not endpoint:
            hi1 -= 1
        if lo > hi1:
            raise ValueError("low >= high")
        info = numpy.iinfo(dtype)
        if lo < info.min:
            raise ValueError(f"low is out of bounds for {numpy.dtype(dtype).name}")
        if hi1 > info.max:
            raise ValueError(f"high is out of bounds for {numpy.dtype(dtype).name}")
        diff = hi1 - lo
        mask = (1 << diff.bit_length()) - 1
        if diff <= _UINT32_MAX:
            pdtype, kernel = numpy.uint32, "interval_32"
        elif diff <= _UINT64_MAX:
            pdtype, kernel = numpy.uint64, "interval_64"
        else:
            raise ValueError(f"high - low must be within uint64 range (actual: {diff})")
        y = numpy.empty(_size_tuple(size), pdtype)
        self._launch(kernel, y, (diff, mask))
        # cupy.add(lo, y, dtype=dtype): the Python int lo as a weak scalar
        return numpy.asarray(numpy.add(lo, y, dtype=dtype, casting="unsafe"))

    def _uniform01(self, shape: tuple, double: bool) -> numpy.ndarray:
        y = numpy.empty(shape, numpy.float64 if double else numpy.float32)
        self._launch("random_uniform" if double else "random_uniform_float", y)
        return y

    def random(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> Any:
        """See Also: cupy.random.Generator.random (float64 or float32 draws, then
        ``astype(dtype)``: integer dtypes give zeros; with ``out`` and no ``size``, CuPy
        draws one value and copies it into all of ``out``)"""
        if out is not None:
            _check_output_array(dtype, size, out)
        y = self._uniform01(_size_tuple(size), numpy.dtype(dtype).char == "d")
        return self._copy(y, out).astype(dtype, copy=False)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None,
                dtype: Any = numpy.float64) -> numpy.ndarray:
        """See Also: cupy.random.Generator.uniform (``low + (high - low) * y``, then
        ``astype(dtype)``)"""
        low, high = _asarray(low), _asarray(high)
        if size is None:
            size = numpy.broadcast(low, high).shape
        y = self._uniform01(_size_tuple(size), numpy.dtype(dtype).char == "d")
        low = numpy.broadcast_to(low, y.shape)
        high = numpy.broadcast_to(high, y.shape)
        return numpy.asarray(low + (high - low) * y).astype(dtype, copy=False)

    def standard_normal(self, size: Any = None, dtype: Any = numpy.float64,
                        out: Any = None) -> Any:
        """See Also: cupy.random.Generator.standard_normal"""
        if out is not None:
            _check_output_array(dtype, size, out)
            y = out
        else:
            y = numpy.empty(_size_tuple(size), dtype)
        if y.dtype.char not in ("f", "d"):
            raise TypeError(f"Unsupported dtype {y.dtype.name} for standard_normal")
        self._launch("standard_normal" if y.dtype.char == "d" else "standard_normal_float", y)
        return y

    def standard_exponential(self, size: Any = None, dtype: Any = numpy.float64,
                             method: str = "inv", out: Any = None) -> Any:
        """See Also: cupy.random.Generator.standard_exponential (float64 draws, then
        ``astype(dtype)``; only ``method='zig'`` is refused)"""
        if method == "zig":
            raise NotImplementedError("Ziggurat method is not supported")
        if out is not None:
            _check_output_array(dtype, size, out)
        y = numpy.empty(_size_tuple(size), numpy.float64)
        self._launch("exponential", y)
        return self._copy(y, out).astype(dtype, copy=False)

    def standard_gamma(self, shape: Any, size: Any = None, dtype: Any = numpy.float64,
                       out: Any = None) -> Any:
        """See Also: cupy.random.Generator.standard_gamma"""
        if shape is None:
            raise TypeError("shape must be real number, not NoneType")
        shape = _gen_param(shape, "shape", exc=ValueError)
        size = _gen_size(size)
        if size is None:
            size = shape.shape if out is None else out.shape
        y = None
        if out is not None:
            _check_output_array(dtype, size, out, True)
            if out.dtype.char == "d":
                y = out
        if y is None:
            y = numpy.empty(_size_tuple(size), numpy.float64)
        if numpy.dtype(dtype).char not in ("f", "d"):
            raise TypeError(f"Unsupported dtype {y.dtype.name} for standard_gamma")
        self._launch("standard_gamma", y, (numpy.broadcast_to(shape, y.shape),))
        if out is not None and y is not out:
            y = self._copy(y, out)
        return y.astype(dtype, copy=False)

    def beta(self, a: Any, b: Any, size: Any = None, dtype: Any = numpy.float64) -> numpy.ndarray:
        """See Also: cupy.random.Generator.beta"""
        a, b = _gen_param(a, "a"), _gen_param(b, "b")
        size = _gen_size(size)
        if size is None:
            size = numpy.broadcast(a, b).shape
        y = numpy.empty(_size_tuple(size), numpy.float64)
        a, b = numpy.broadcast_to(a, y.shape), numpy.broadcast_to(b, y.shape)
        # Johnk's algorithm (both parameters at most 1) never ends for a negative one
        johnk = (a <= 1) & (b <= 1)
        if (johnk & (a < 0)).any():
            raise ValueError("a <= 0")
        if (johnk & (b < 0)).any():
            raise ValueError("b <= 0")
        self._launch("beta", y, (a, b))
        return y.astype(dtype, copy=False)

    def binomial(self, n: Any, p: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.binomial (``p`` a device array or a Python
        ``float``: an int ``p`` is refused, ``_generator_api.pyx:1010``)"""
        n = _gen_param(n, "n", dtype=numpy.int64)
        if isinstance(p, numpy.ndarray):
            p = p.astype(numpy.float64, copy=False)
        elif type(p) is float:
            p = numpy.asarray(p, numpy.float64)
        else:
            raise TypeError("p is required to be a cupy.ndarray or a scalar")
        if size is None:
            size = numpy.broadcast(n, p).shape
        y = numpy.empty(_size_tuple(size), numpy.int64)
        n, p = numpy.broadcast_to(n, y.shape), numpy.broadcast_to(p, y.shape)
        if numpy.isnan(p).any():  # (BTPE's loop)
            raise ValueError("p < 0, p > 1 or p is NaN")
        if self._binomial_state is None:
            self._binomial_state = numpy.zeros(
                cpu_curand.BINOMIAL_STATE_SIZE * self.bit_generator._state_size(),
                numpy.int8)
        self._launch("binomial", y, (n, p, self._binomial_state))
        return y

    def chisquare(self, df: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.chisquare (``standard_gamma(df / 2) * 2``)"""
        df = _gen_param(df, "df")
        size = _gen_size(size)
        if size is None:
            size = df.shape
        df = numpy.broadcast_to(df, _size_tuple(size))
        y = self.standard_gamma(numpy.asarray(df / 2))
        y *= 2
        return y

    def dirichlet(self, alpha: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.dirichlet"""
        alpha = _gen_param(alpha, "alpha")
        if size is not None:
            size = _gen_size(size) + alpha.shape
        else:
            size = alpha.shape
        y = self.standard_gamma(alpha, size)
        _last_axis(y)
        y /= y.sum(axis=-1, keepdims=True)
        return y

    def exponential(self, scale: Any = 1.0, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.exponential (``standard_exponential(size) *
        scale``: no check of ``scale``)"""
        return numpy.asarray(self.standard_exponential(size) * _kernel_operand(scale))

    def f(self, dfnum: Any, dfden: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.f"""
        dfnum, dfden = _gen_param(dfnum, "dfnum"), _gen_param(dfden, "dfden")
        if size is None:
            size = numpy.broadcast(dfnum, dfden).shape
        with numpy.errstate(divide="ignore", invalid="ignore"):
            return numpy.asarray((self.chisquare(dfnum, size) * dfden) /
                                 (self.chisquare(dfden, size) * dfnum))

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.gamma (``standard_gamma(shape, size)`` times
        ``scale`` in place)"""
        scale = _kernel_operand(scale)
        if size is None:
            size = numpy.broadcast(_host(shape), scale).shape
        y = self.standard_gamma(shape, size)
        y *= scale
        return y

    def _int_dist(self, name: str, size: Any, *params: numpy.ndarray) -> numpy.ndarray:
        """An int64 distribution's kernel over broadcast parameters."""
        y = numpy.empty(_size_tuple(size), numpy.int64)
        self._launch(name, y, tuple(numpy.broadcast_to(v, y.shape) for v in params))
        return y

    def geometric(self, p: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.geometric"""
        p = _gen_param(p, "p")
        size = _gen_size(size)
        if size is None:
            size = p.shape
        return self._int_dist("geometric", size, p)

    def hypergeometric(self, ngood: Any, nbad: Any, nsample: Any,
                       size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.hypergeometric (CuPy's kernel takes
        out-of-range arrays)"""
        for v, nm in ((ngood, "ngood"), (nbad, "nbad"), (nsample, "nsample")):
            if type(v) in (float, int) and v < 0:
                raise ValueError(f"{nm} < 0")
        ngood = _gen_param(ngood, "ngood", dtype=numpy.int64)
        nbad = _gen_param(nbad, "nbad", dtype=numpy.int64)
        nsample = _gen_param(nsample, "nsample", dtype=numpy.int64)
        size = _gen_size(size)
        if size is None:
            size = numpy.broadcast(ngood, nbad, nsample).shape
        return self._int_dist("hypergeometric", size, ngood, nbad, nsample)

    def logseries(self, p: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.logseries"""
        p = _gen_param(p, "p")
        size = _gen_size(size)
        if size is None:
            size = p.shape
        if (p == 1).any():  # (the kernel's loop never ends there)
            raise ValueError("p < 0, p >= 1 or p is NaN")
        return self._int_dist("logseries", size, p)

    def poisson(self, lam: Any = 1.0, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.poisson"""
        lam = _gen_param(lam, "lam")
        size = _gen_size(size)
        if size is None:
            size = lam.shape
        return self._int_dist("poisson", size, lam)

    def power(self, a: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.power (CuPy's closed form, no check of ``a``)"""
        a = _gen_param(a, "a")
        size = _gen_size(size)
        if size is None:
            size = a.shape
        x = self.standard_exponential(size)
        numpy.exp(-x, out=x)
        numpy.add(1, -x, out=x)
        with numpy.errstate(divide="ignore", invalid="ignore"):
            numpy.power(x, 1. / a, out=x)
        return x


def default_rng(seed: Any = None) -> Generator:
    """See Also: cupy.random.default_rng"""
    seed = _host(seed)
    if isinstance(seed, BitGenerator):
        return Generator(seed)
    if isinstance(seed, Generator):
        return seed
    return Generator(XORWOW(seed))


def random_function(backend: Any, name: str) -> Any:
    """The module-level ``cupy.random.<name>`` for a CPU session called by name (the
    gpushare client keeps CuPy's per-device states itself; this serves other clients)."""
    if name == "seed":
        return lambda seed=None: backend._random.seed(seed)
    if name == "get_random_state":
        return lambda: backend._random
    if name == "set_random_state":
        def set_state(rs: Any) -> None:
            if not isinstance(rs, RandomState):
                raise TypeError("Random state must be an instance of RandomState. "
                                f"Actual: {type(rs)}")
            backend._random = rs
        return set_state
    if name == "reset_states":
        def reset() -> None:
            backend._random = RandomState()
        return reset
    if name == "bytes":
        return lambda length: numpy.random.bytes(length)
    if name in ("random", "ranf", "sample"):
        name = "random_sample"
    if name == "random_integers":
        def random_integers(low: Any, high: Any = None, size: Any = None) -> numpy.ndarray:
            if high is None:
                low, high = 1, low
            return backend._random.randint(low, high + 1, size, "l")
        return random_integers
    return lambda *a, **k: getattr(backend._random, name)(*a, **k)


_RANDOM_STATE_METHODS = frozenset({
    "beta", "binomial", "chisquare", "dirichlet", "exponential", "f", "gamma", "geometric",
    "hypergeometric", "laplace", "logistic", "lognormal", "logseries", "multivariate_normal",
    "negative_binomial", "normal", "pareto", "noncentral_chisquare", "noncentral_f",
    "poisson", "power", "rand", "randn", "random_sample", "rayleigh", "seed",
    "standard_cauchy", "standard_exponential", "standard_gamma", "standard_normal",
    "standard_t", "tomaxint", "triangular", "uniform", "vonmises", "wald", "weibull", "zipf",
    "choice", "shuffle", "permutation", "gumbel", "randint", "method", "_interval"})
_GENERATOR_METHODS = frozenset({
    "beta", "binomial", "chisquare", "dirichlet", "exponential", "f", "gamma", "geometric",
    "hypergeometric", "integers", "logseries", "poisson", "power", "random",
    "standard_exponential", "standard_gamma", "standard_normal", "uniform"})
_BIT_GENERATOR_METHODS = frozenset({"random_raw", "state"})


def _host_size(fn: Any) -> Any:
    """``fn`` with its ``size`` argument, NumPy data the client sent as it is (CuPy reads
    it on the host: ``cupy.empty(size)``), a NumPy array here."""
    params = list(inspect.signature(fn).parameters.values())
    at = next((i for i, p in enumerate(params) if p.name == "size" and
               p.kind is p.POSITIONAL_OR_KEYWORD), None)
    if at is None:
        return fn

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if len(args) > at:
            args = (*args[:at], _host(args[at]), *args[at + 1:])
        elif "size" in kwargs:
            kwargs["size"] = _host(kwargs["size"])
        return fn(*args, **kwargs)
    return call


for _cls, _names in ((RandomState, _RANDOM_STATE_METHODS), (Generator, _GENERATOR_METHODS)):
    for _name in _names:
        if callable(_cls.__dict__.get(_name)):
            setattr(_cls, _name, _host_size(_cls.__dict__[_name]))
del _cls, _names, _name

#: cupy.random names served by something other than the session generator
RANDOM_OVERRIDES: dict[str, Any] = {
    "cupy.random.RandomState": RandomState,
    "cupy.random.XORWOW": XORWOW,
    "cupy.random.MRG32k3a": MRG32k3a,
    "cupy.random.Philox4x3210": Philox4x3210,
    "cupy.random.BitGenerator": BitGenerator,
    "cupy.random.default_rng": default_rng,
}
#: random types a client may hold handles to, with the methods it may call
RANDOM_REMOTE_TYPES: dict[str, frozenset[str]] = {
    "RandomState": _RANDOM_STATE_METHODS,
    "Generator": _GENERATOR_METHODS,
    "BitGenerator": _BIT_GENERATOR_METHODS,
    "XORWOW": _BIT_GENERATOR_METHODS,
    "MRG32k3a": _BIT_GENERATOR_METHODS,
    "Philox4x3210": _BIT_GENERATOR_METHODS,
}
