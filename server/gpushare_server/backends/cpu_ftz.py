"""CUDA's single-precision flush-to-zero, as CuPy's kernels have it, on the CPU backend.

CuPy compiles every kernel it builds at run time with ``-ftz=true``
(``cupy/cuda/compiler.py``, ``_compile_with_cache_cuda``): its ufuncs and operators,
ElementwiseKernel, ReductionKernel, its own reductions. There each float32 instruction
reads a subnormal operand as a zero of its sign and writes a subnormal result as one
(add, mul, div, sqrt, min/max, abs, neg, comparisons, float32 <-> float64 conversions,
the math library's ftz variants); doubles never are. Precompiled libraries are not built
so (``install/cupy_builder/_compiler.py``: nvcc ``-O2``): cuBLAS, cuFFT, cuSOLVER, and
CUB's device reductions and scans (``cupy/cuda/cupy_cub.cu``), which CuPy's default
``CUPY_ACCELERATORS=cub`` runs for ``sum``, ``max``, ``argmax``, ``cumsum``... of a
contiguous array (``cupy/_core/_routines_math.pyx``, ``_routines_statistics.pyx``).

``wrap(uf)`` is a NumPy ufunc as such a kernel runs it (``_ftz.Ufunc``, see
``gpushare_server/_ftz.c``): MXCSR's FTZ and DAZ bits set around a float32/complex64
loop, float32/complex64 operands of a double loop flushed (``cvt.ftz.f64.f32``), and,
for the ufuncs whose NumPy loops work on the bits where DAZ does not reach them
(``absolute``, ``negative``, ``cbrt``, ``log1p``, ``arctan``...), the operands flushed
first. Without the C extension (or on a machine whose flushing mode it does not know)
nothing is flushed: NumPy's IEEE answers, as before.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy

try:
    from gpushare_server import _ftz
except ImportError:  # (optional, as _records is)
    _ftz = None

#: whether flushing is done on this server
AVAILABLE = bool(_ftz is not None and _ftz.available)

#: ufuncs whose CuPy kernels leave a subnormal as it is: a copy (``positive``, and
#: ``conjugate``'s real loops, ``out0 = in0``; its complex loop flushes the imaginary
#: part only, not mirrored), the bits (``copysign``, ``signbit``, ``isnan``...), or
#: libdevice's functions whose ftz treatment is not read here (``nextafter``, ``frexp``,
#: ``ldexp``, ``spacing``); gufuncs are cuBLAS's (``matmul``...), never flushed
EXEMPT = frozenset({"positive", "conjugate", "copysign", "signbit", "isnan", "isinf",
                    "isfinite", "isnat", "nextafter", "frexp", "ldexp", "spacing"})

#: ufuncs whose NumPy loops are the processor's arithmetic and comparison instructions,
#: which DAZ reaches (so their operands are not scanned first)
DAZ_ENOUGH = frozenset({"add", "subtract", "multiply", "divide", "true_divide",
                        "greater", "greater_equal", "less", "less_equal", "equal",
                        "not_equal", "logical_and", "logical_or", "logical_xor",
                        "logical_not", "square", "sqrt", "floor", "ceil", "trunc",
                        "rint", "sign", "heaviside"})

#: ufuncs CuPy has no single-precision loop for (a float32 operand is converted)
DOUBLE_ONLY = frozenset({"float_power"})


def wrap(uf: Any, name: str | None = None) -> Any:
    """``uf`` (a NumPy ufunc, or the CPU backend's ``_Ufunc`` for one, named ``name``)
    called as CuPy's ``-ftz=true`` kernel computes it; ``uf`` itself where CuPy's
    kernel does not flush, or flushing is not available."""
    if not AVAILABLE:
        return uf
    name = name or getattr(uf, "__name__", "")
    if name in EXEMPT or getattr(uf, "signature", None) is not None:
        return uf
    return _ftz.Ufunc(uf, scan=name not in DAZ_ENOUGH, double=name in DOUBLE_ONLY)


# --- reductions -----------------------------------------------------------------------

#: CUB's dtypes (``cupy/cuda/cub.pyx``: ``CUB_support_dtype_with_half``, and the sum's
#: and product's own list when no ``dtype`` is given, ``CUB_sum_support_dtype``)
_CUB_DTYPES = frozenset("bBhHiIlLqQfdFDe")
_CUB_SUM_DTYPES = frozenset("lLqQfdFDe")
_SINGLE = frozenset("fF")
#: reductions CuPy's default routine accelerator (CUB, ``_accelerator.pyx``: the
#: default ``CUPY_ACCELERATORS`` is ``cub``) may take, by the CUB operation they use
_CUB_OPS = {"sum": "sum", "prod": "sum", "mean": "sum", "max": "max", "min": "max",
            "ptp": "max", "argmax": "arg", "argmin": "arg", "cumsum": "scan",
            "cumprod": "scan"}


def _axes(axis: Any, ndim: int) -> tuple | None:
    """``_reduction.pyx: _get_axis``'s reduced axes (sorted), or None for a bad axis."""
    if axis is None:
        return tuple(range(ndim))
    try:
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        axes = tuple(sorted(int(ax) + ndim if int(ax) < 0 else int(ax) for ax in axes))
    except (TypeError, ValueError):
        return None
    if any(not 0 <= ax < max(ndim, 1) for ax in axes) or len(set(axes)) != len(axes):
        return None
    return axes


def cub_takes(op: str, a: Any, axis: Any = None, dtype: Any = None) -> bool:
    """Whether CuPy 14.2 runs the reduction ``op`` of ``a`` in CUB's precompiled device
    reductions or scans (``cub.pyx: cub_reduction``, ``cub_scan``), which do not flush:
    ``a`` C- or F-contiguous, of a CUB dtype (without ``dtype``, or ``dtype`` its own:
    ``_cub_reduce_dtype_compatible``), reduced over every axis (``device_reduce``), or
    over its last (C) or first (F) axes in a row (``device_segmented_reduce``, not for
    ``argmax``/``argmin``); a scan only over the flattened array."""
    kind = _CUB_OPS.get(op)
    if kind is None:
        return False
    if kind == "scan":  # (``scan_core``: axis=None, on ``a.astype(dtype).ravel()``)
        return axis is None and numpy.dtype(a.dtype if dtype is None else dtype
                                            ).char in _CUB_DTYPES
    flags = a.flags
    if not (flags.c_contiguous or flags.f_contiguous):
        return False
    char = a.dtype.char
    if dtype is None:
        if char not in (_CUB_SUM_DTYPES if kind == "sum" else _CUB_DTYPES):
            return False
    elif kind == "arg" or numpy.dtype(dtype) != a.dtype or char not in _CUB_DTYPES:
        return False
    if axis is None:  # (the common case: every axis, ``device_reduce``)
        return a.size <= 0x7fffffff
    axes = _axes(axis, a.ndim)
    if axes is None:
        return False
    if len(axes) == a.ndim:  # (``out_axis`` empty: ``device_reduce``)
        return a.size <= 0x7fffffff
    if kind == "arg" or a.size == 0 or not axes:
        return False
    if any(axes[k] - axes[k - 1] != 1 for k in range(1, len(axes))):
        return False
    if flags.c_contiguous:
        return axes[-1] == a.ndim - 1
    return axes[0] == 0


def _flush_result(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn``'s result with its float32/complex64 subnormals flushed (``mean``'s CUB sum
    divided by the count in CuPy's ``true_divide`` kernel)."""
    result = fn(*args, **kwargs)
    if isinstance(result, numpy.generic) and result.dtype.char in _SINGLE:
        return _ftz.flushed(numpy.asarray(result))[()]  # (NumPy's scalar)
    if isinstance(result, numpy.ndarray) and result.dtype.char in _SINGLE:
        flushed = _ftz.flushed(result)
        if flushed is not result:
            result[...] = flushed  # (it may be out=)
    return result


def _cub_ptp(fn: Any, a: Any, axis: Any = None, out: Any = None, keepdims: bool = False
             ) -> Any:
    """``ptp`` where CUB takes it (``_ndarray_ptp``): CUB's maximum and minimum, then
    ``result -= ...`` in a ``-ftz=true`` kernel."""
    if out is not None:  # (``cub_reduction(self, ..., axis, out, ...)``: out as dtype)
        return fn(a, axis=axis, out=out, keepdims=keepdims)
    high = numpy.max(a, axis=axis, keepdims=keepdims)
    return _ftz.call(numpy.subtract, high, numpy.min(a, axis=axis, keepdims=keepdims))


def _plain(fn: Any, *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


#: how a reduction CUB takes runs, where it is not a plain call
_CUB_RUNS = {"mean": _flush_result, "ptp": _cub_ptp}


def reduction(op: str, a: Any, axis: Any = None, dtype: Any = None) -> tuple:
    """``(a, run)`` for the reduction or scan ``op`` of ``a`` (over ``axis``, in
    ``dtype``) as CuPy computes it: ``run(fn, *args, **kwargs)`` calls the NumPy
    function ``fn`` with flushing on where CuPy's kernel is built at run time
    (``-ftz=true``: ``_reduction.pyx``'s kernels, or ``_cub_reduction.pyx``'s block
    reductions), and as it is where CUB's precompiled reduction takes it
    (``cub_takes``; ``mean`` then divides by the count in a ``-ftz=true`` kernel: its
    result flushed). ``a`` comes back flushed where CuPy's kernel adds or multiplies
    every value into an identity (``sum``, ``prod``, ``mean``, the ``nan`` ones: a lone
    value is flushed too), else as it is."""
    if not AVAILABLE or type(a) is not numpy.ndarray or a.dtype.char not in _SINGLE:
        return a, _plain
    if cub_takes(op, a, axis, dtype):
        if dtype is not None and numpy.dtype(dtype).char not in _SINGLE:
            return _ftz.flushed(a), _plain  # (a scan of ``a.astype(dtype)``: cvt.ftz)
        return a, _CUB_RUNS.get(op, _plain)
    if op in ("sum", "prod", "mean", "nansum", "nanprod", "nanmean"):
        a = _ftz.flushed(a)
    if dtype is not None and numpy.dtype(dtype).char not in _SINGLE:
        # (a double loop: its float32 operands converted by cvt.ftz.f64.f32)
        return (a if op in ("sum", "prod", "mean", "nansum", "nanprod", "nanmean")
                else _ftz.flushed(a)), _plain
    return a, _ftz.call


# --- conversions ----------------------------------------------------------------------

def astype(a: numpy.ndarray, dtype: Any, convert: Any, *args: Any, **kwargs: Any) -> Any:
    """``convert(a, dtype, *args, **kwargs)`` (the backend's ``astype``) as CuPy's
    ``elementwise_copy`` kernel (``-ftz=true``) converts: a float32 (complex64) value
    read as a double or a bool through ``cvt.ftz.f64.f32`` / ``setp.ftz.f32``, so a
    subnormal is a zero of its sign there; a double written as a float32 through
    ``cvt.rn.ftz.f32.f64``, so a subnormal result is one. A copy into the same type is a
    plain load and store, and keeps subnormals, as does a float32 into a complex64."""
    if not AVAILABLE or type(a) is not numpy.ndarray:
        return convert(a, dtype, *args, **kwargs)
    src = a.dtype.char
    try:
        dst = numpy.dtype(dtype).char
    except TypeError:  # (NumPy's call says why)
        return convert(a, dtype, *args, **kwargs)
    if src in _SINGLE and dst in "dD?":
        return convert(_ftz.flushed(a), dtype, *args, **kwargs)
    out = convert(a, dtype, *args, **kwargs)
    if src in "dD" and dst in _SINGLE and type(out) is numpy.ndarray and out is not a:
        flushed = _ftz.flushed(out)
        if flushed is not out:
            out[...] = flushed  # (its own layout, order= kept)
    return out


def converted(value: numpy.ndarray, dtype: numpy.dtype) -> numpy.ndarray:
    """``value`` (a device array) as a ``-ftz=true`` kernel hands it to ``dtype``: a
    float32/complex64 one read as a double or a bool flushed (``cvt.ftz.f64.f32``,
    ``setp.ftz.f32``), a double one written as a float32/complex64 converted and its
    subnormal results flushed (``cvt.rn.ftz.f32.f64``); else ``value`` itself (NumPy's
    conversion, where it is one, follows). CuPy's ``elementwise_copy`` (``copyto``,
    ``__setitem__``, ``put``'s values) and its ufuncs' operands cast to their loop."""
    if not AVAILABLE:
        return value
    src, dst = value.dtype.char, dtype.char
    if src in _SINGLE:
        return _ftz.flushed(value) if dst in "dD?" else value
    if dst in _SINGLE and (src == "d" or src == dst.upper() == "D"):
        return _ftz.flushed(value.astype(dtype))
    return value


def call(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with float32 flushing on (a CuPy kernel computing in
    single precision), or plainly where flushing is not available."""
    if not AVAILABLE:
        return fn(*args, **kwargs)
    return _ftz.call(fn, *args, **kwargs)


def single(*arrays: Any) -> bool:
    """Whether flushing is done here and an array among ``arrays`` is float32 or
    complex64."""
    return AVAILABLE and any(type(a) is numpy.ndarray and a.dtype.char in _SINGLE
                             for a in arrays)


def flushed(a: Any) -> Any:
    """``a`` with its float32/complex64 subnormals zeros of their sign (a copy), or
    ``a`` itself (no subnormal, another dtype, not an array, no flushing here)."""
    if AVAILABLE and type(a) is numpy.ndarray and a.dtype.char in _SINGLE:
        return _ftz.flushed(a)
    return a


def scatter(fn: Any, ufunc: Any, a: Any, key: Any, value: Any) -> None:
    """``fn(ufunc, a, key, value)`` (``ufunc.at``, ``scatter_add``...) as CuPy's scatter
    kernels (``_routines_indexing.pyx``: ``atomicAdd``, ``atomicMax``..., built with
    ``-ftz=true``; the ``atom.add.f32`` instruction flushes in any case) compute into a
    float32/complex64 array: an element they touch is read, and written, flushed; the
    others keep their subnormals. Float32 values into a double array are converted
    first (``v.astype(a.dtype)``, ``cvt.ftz.f64.f32``)."""
    if single(a):
        _ftz.call(fn, ufunc, a, key, value)
    else:
        if type(a) is numpy.ndarray and a.dtype.char in "dD":
            value = flushed(value)
        fn(ufunc, a, key, value)


# --- routines that are CuPy's own kernels over NumPy's ----------------------------------

#: dtypes NumPy promotes into float32 beside it (the ``_ftz.Ufunc`` rule)
_SMALL = frozenset("?bBhHe")


def _elementwise(fn: Any) -> Any:
    """``fn`` (``numpy.outer``, ``numpy.kron``) as CuPy's ``cupy.multiply`` kernel
    computes it: float32/complex64 array operands flushed, and flushing on where no
    operand is wider (a double loop's float32 operand is read by ``cvt.ftz.f64.f32``)."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        arrays = [a for a in args if type(a) is numpy.ndarray]
        if not any(a.dtype.char in _SINGLE for a in arrays):
            return fn(*args, **kwargs)
        args = tuple(flushed(a) for a in args)
        if all(a.dtype.char in _SINGLE or a.dtype.char in _SMALL for a in arrays) and \
                all(type(a) in (int, float, bool, complex, numpy.ndarray) for a in args):
            return _ftz.call(fn, *args, **kwargs)
        return fn(*args, **kwargs)
    return call


def _result_flushed(fn: Any) -> Any:
    """``fn`` whose float32/complex64 result CuPy computes last in a ``-ftz=true``
    kernel (``linalg.det``: ``sign * cupy.exp(logdet)``)."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return _flush_result(fn, *args, **kwargs)
    return call


def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None,
          out: Any = None) -> Any:
    """``cupy.trace`` as CuPy computes it (``_routines_math.pyx: _ndarray_trace``):
    ``a.diagonal(offset, axis1, axis2).sum(-1, dtype, out)``, a view CUB does not take
    (not contiguous) unless it is one element, so a ``-ftz=true`` reduction kernel."""
    if type(a) is not numpy.ndarray or a.dtype.char not in _SINGLE or not AVAILABLE:
        return numpy.trace(a, offset, axis1, axis2, dtype, out)
    d = numpy.diagonal(a, offset, axis1, axis2)
    d, run = reduction("sum", d, -1, dtype)
    return run(numpy.sum, d, axis=-1, dtype=dtype, out=out)


#: (``outer``, ``kron``: ``multiply``; ``diff``, ``ediff1d``: ``subtract``; ``cross``:
#: both, ``_product.py``, ``sumprod.py``)
_ROUTINES = {"cupy.outer": _elementwise, "cupy.kron": _elementwise,
             "cupy.diff": _elementwise, "cupy.ediff1d": _elementwise,
             "cupy.cross": _elementwise, "cupy.linalg.det": _result_flushed,
             "cupy.trace": lambda fn: trace}


def routine(path: str, fn: Any) -> Any:
    """The NumPy function ``fn`` serving ``path`` as CuPy's ``-ftz=true`` kernels
    compute it, where they are CuPy's own (``_ROUTINES``; ``linalg.det``: its last
    ``exp``; ``trace``: a reduction); ``fn`` itself elsewhere."""
    how = _ROUTINES.get(path)
    return fn if how is None or not AVAILABLE else how(fn)


# --- contraction: CUDA's fused multiply-add -------------------------------------------

def _two_sum(a: numpy.ndarray, b: numpy.ndarray) -> tuple:
    """``a + b`` rounded, and its exact error (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: numpy.ndarray) -> tuple:
    """``a`` as two halves of 26 bits (Veltkamp)."""
    c = a * 134217729.0  # (2**27 + 1)
    hi = c - (c - a)
    return hi, a - hi


def _round_odd(s: numpy.ndarray, err: numpy.ndarray) -> numpy.ndarray:
    """``s + err`` (``s`` its rounded sum, ``err`` the exact rest) rounded to odd: the
    neighbour with an odd significand where the sum is inexact (``s`` in place)."""
    with numpy.errstate(invalid="ignore"):
        inexact = (err != 0) & numpy.isfinite(err) & numpy.isfinite(s)
    even = (s.view(numpy.uint64 if s.dtype.itemsize == 8 else numpy.uint32) & 1) == 0
    step = inexact & even
    if step.any():
        s[step] = numpy.nextafter(s[step], numpy.where(err[step] > 0, numpy.inf, -numpy.inf))
    return s


def _fma_exact(a: float, b: float, c: float) -> float:
    """One fused multiply-add of finite doubles, through exact fractions (the rare
    values whose error terms the fast way could lose)."""
    from fractions import Fraction
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return a * b + c  # (the sign of an exact zero: IEEE's for the sum)
    try:
        return float(exact)  # (correctly rounded)
    except OverflowError:
        return numpy.inf if exact > 0 else -numpy.inf


def fma(a: Any, b: Any, c: Any) -> numpy.ndarray:
    """``a * b + c`` rounded once, elementwise, as the ``fma.rn`` instruction computes
    it, for float64 or float32 operands of one dtype (broadcast): what NVRTC makes of
    ``x * y + z`` in a kernel, contracting it by default (``--fmad=true``; LLVM's
    DAGCombiner fuses the first product of ``x * y + z * w``, and ``x * y - z * w``
    into ``fma(x, y, -(z * w))``). float32: the product is exact in a double and the
    sum rounded to odd there, so the final rounding is correct; float64: Boldo and
    Melquiond's emulation (TwoProduct, TwoSum, a sum rounded to odd), with the values
    it does not cover (huge, tiny, zero results) taken exactly. Subnormals are not
    flushed here."""
    a, b, c = numpy.broadcast_arrays(*(numpy.asarray(v) for v in (a, b, c)))
    shape = a.shape
    if not shape:  # (0-d: NumPy's nonzero below refuses them)
        return fma(a.reshape(1), b.reshape(1), c.reshape(1)).reshape(())
    dtype = numpy.result_type(a, b, c)
    with numpy.errstate(all="ignore"):
        if dtype == numpy.float32:
            p = a.astype(numpy.float64) * b.astype(numpy.float64)  # (exact)
            s, err = _two_sum(p, c.astype(numpy.float64))
            return _round_odd(s, err).astype(numpy.float32)
        if dtype != numpy.float64:
            raise TypeError(f"gpushare: no fused multiply-add of {dtype}")
        a, b, c = (v.astype(numpy.float64) for v in (a, b, c))
        p = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        perr = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # (a * b == p + perr)
        th, tl = _two_sum(c, p)
        v, verr = _two_sum(tl, perr)
        r = th + _round_odd(v, verr)
        aa, ab, ac = numpy.abs(a), numpy.abs(b), numpy.abs(c)
        fast = (aa < 2.0 ** 500) & (ab < 2.0 ** 500) & (ac < 2.0 ** 1000) & \
            ((numpy.abs(p) > 2.0 ** -900) | (a == 0) | (b == 0)) & \
            ((ac > 2.0 ** -900) | (c == 0))
        finite = numpy.isfinite(a) & numpy.isfinite(b)
        # (an infinity or NaN: the plain sum's, save a finite product beside an infinite c)
        plain = numpy.where(finite & numpy.isinf(c), c, p + c)
        r = numpy.where(fast, r, plain)
        zero = fast & (r == 0)  # (exactly zero: its sign is the plain sum's)
        r[zero] = plain[zero]
        for i in zip(*numpy.nonzero(~fast & finite & numpy.isfinite(c))):
            r[i] = _fma_exact(float(a[i]), float(b[i]), float(c[i]))
    return r
