"""``cupy.cublas`` on the CPU backend: CuPy 14.2's ``cupy/cublas.py`` with NumPy
doing cuBLAS's arithmetic.

Each function makes CuPy's checks in CuPy's order and words (its ``assert``s are bare
``AssertionError``s), converts ``alpha``/``beta`` as ``_get_scalar_ptr`` does (the
first element of a host value converted by ``numpy.array(a, dtype)``, or of a device
array converted to the dtype), computes in the arrays' dtype (float32 stays float32)
and writes where cuBLAS writes: into ``y``, ``x``, ``a`` or ``out``, the session's own
arrays, so the client's proxies show the new values. As cuBLAS is called with an
increment of 1 on each vector's first element (``x.data.ptr``), a strided vector is
read and written as the ``size`` elements of memory from its first one, where they lie
in its allocation (CuPy's own behaviour). ``beta == 0`` means the output is not read
(NaN in it is no NaN in the result), ``alpha == 0`` that the inputs are not.

Host (NumPy) arrays fail where CuPy's code first reaches for a device pointer or
flag (``x.data.ptr``, ``a._f_contiguous``), with Python's own error there.
``get_batched_gesv_limit``/``set_batched_gesv_limit`` keep the session's limit as
``cpu_routines._BATCHED_GESV_LIMIT``, which ``cupy.linalg.solve`` reads.

See Also
--------
cupy.cublas
"""
from __future__ import annotations

import functools
import math
import operator
import warnings
from typing import Any, Callable

import numpy

from gpushare.cython_args import tp_name
from gpushare.errors import assert_stacked_square
from gpushare.protocol import HostArray

from . import cpu_cast, cpu_routines

_OP_N, _OP_T, _OP_C = 0, 1, 2  # cublas.CUBLAS_OP_*
_SIDE_LEFT, _SIDE_RIGHT = 0, 1  # cublas.CUBLAS_SIDE_*
_FILL_LOWER, _FILL_UPPER = 0, 1  # cublas.CUBLAS_FILL_MODE_*


class _Host(numpy.ndarray):
    """A host (NumPy) array as CuPy's code sees it: metadata answers, device
    pointers and flags do not."""


def _hosts_marked(fn: Callable[..., Any]) -> Callable[..., Any]:
    def mark(v: Any) -> Any:
        return v.array.view(_Host) if isinstance(v, HostArray) else v

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*map(mark, args), **{k: mark(v) for k, v in kwargs.items()})
    return call


def _device(v: Any) -> bool:
    return isinstance(v, numpy.ndarray) and not isinstance(v, _Host)


def _missing(v: Any, name: str) -> AttributeError:
    kind = "numpy.ndarray" if isinstance(v, _Host) else tp_name(type(v))
    return AttributeError(f"'{kind}' object has no attribute '{name}'")


def _ptr(*arrays: Any) -> None:
    """``x.data.ptr`` of each, in order: a NumPy array's ``data`` is a memoryview."""
    for v in arrays:
        if isinstance(v, _Host):
            raise AttributeError("'memoryview' object has no attribute 'ptr'")
        if not _device(v):
            raise _missing(v, "data")


def _flag(v: Any, name: str) -> bool:
    """``a._f_contiguous`` / ``a._c_contiguous`` (CuPy's own attributes)."""
    if not _device(v):
        raise _missing(v, name)
    return bool(v.flags.f_contiguous if name == "_f_contiguous" else v.flags.c_contiguous)


def _root_bounds(x: numpy.ndarray) -> tuple[int, int]:
    root = x
    while isinstance(root.base, numpy.ndarray):
        root = root.base
    lo = root.__array_interface__["data"][0]
    return lo, lo + root.nbytes


def _memory(x: numpy.ndarray, n: int) -> numpy.ndarray:
    """The ``n`` elements of memory from ``x``'s first one, unit stride (what cuBLAS
    reads and writes with ``inc = 1``); ``x`` itself, flattened, when those would run
    past its allocation (a reversed view: the GPU reads outside the array there)."""
    if n <= 0:
        return x.reshape(-1)[:0]
    if x.ndim == 1 and (x.strides[0] == x.itemsize or n == 1) and x.size >= n:
        return x[:n]
    start = x.__array_interface__["data"][0]
    lo, hi = _root_bounds(x)
    if lo <= start and start + n * x.itemsize <= hi:
        return numpy.lib.stride_tricks.as_strided(x, (n,), (x.itemsize,))
    return x.reshape(-1)[:n]


def _first(a: numpy.ndarray) -> Any:
    return a[(0,) * a.ndim] if a.size else numpy.zeros((), a.dtype)[()]


def _scalar(a: Any, dtype: Any) -> Any:
    """``_get_scalar_ptr``: the value cuBLAS reads at the scalar's pointer."""
    if _device(a):
        if a.dtype != dtype:
            a = cpu_cast.astype(a, dtype)
        return _first(a)
    if not (isinstance(a, numpy.ndarray) and a.dtype == dtype):
        a = numpy.array(a, dtype=dtype)
    return _first(numpy.asarray(a))


def _dtype_char(dtype: numpy.dtype, allowed: str = "fdFD") -> str:
    char = dtype.char
    if char not in allowed:
        raise TypeError("invalid dtype")
    return char


def _trans(trans: Any) -> int:
    """``_trans_to_cublas_op``."""
    if trans == "N" or trans == _OP_N:
        return _OP_N
    if trans == "T" or trans == _OP_T:
        return _OP_T
    if trans == "H" or trans == _OP_C:
        return _OP_C
    raise TypeError("invalid trans (actual: {})".format(trans))


def _op(a: numpy.ndarray, trans: int) -> numpy.ndarray:
    if trans == _OP_N:
        return a
    return a.T if trans == _OP_T else a.T.conj()


def _invalid_value() -> RuntimeError:
    # (CuPy's CUBLASError, a RuntimeError, for CUBLAS_STATUS_INVALID_VALUE)
    return RuntimeError("CUBLAS_STATUS_INVALID_VALUE")


def _combine(alpha: Any, product: Callable[[], Any], beta: Any, old: Any, dtype: Any) -> Any:
    """``alpha * product() + beta * old`` as cuBLAS: a zero ``beta`` reads nothing of
    ``old``, a zero ``alpha`` nothing of the inputs."""
    value = alpha * product() if alpha != 0 else None
    if beta != 0:
        value = beta * old if value is None else value + beta * old
    if value is None:
        return numpy.zeros((), dtype)
    return value


# --- the batched solver and its limit ------------------------------------------------

def get_batched_gesv_limit() -> Any:
    return cpu_routines._BATCHED_GESV_LIMIT


def set_batched_gesv_limit(limit: Any) -> None:
    cpu_routines._BATCHED_GESV_LIMIT = limit


def _linalg_common_type(*arrays: Any) -> tuple[numpy.dtype, numpy.dtype]:
    dtypes = [arr.dtype for arr in arrays]
    if "float16" in dtypes:
        raise TypeError("float16 is unsupported in linalg")
    compute = numpy.result_type(*[d if d.kind in "fc" else numpy.float64 for d in dtypes])
    if compute == numpy.float16:
        compute = numpy.dtype(numpy.float32)
    result = numpy.result_type(*[d if d.kind in "fc" else numpy.float64 for d in dtypes])
    return compute, result


def batched_gesv(a: Any, b: Any) -> Any:
    """See Also: cupy.cublas.batched_gesv (getrfBatched, getrsBatched: LAPACK's getrf
    and getrs, matrix by matrix, in the compute precision)."""
    import scipy.linalg.lapack
    for v in (a, b):
        if not _device(v):
            raise numpy.linalg.LinAlgError("cupy.linalg only supports cupy.ndarray")
    assert_stacked_square(a)
    if not ((a.ndim == b.ndim or a.ndim == b.ndim + 1) and
            a.shape[:-1] == b.shape[:a.ndim - 1]):
        raise ValueError("a must have (..., M, M) shape and b must have (..., M) "
                         "or (..., M, K)")
    dtype, out_dtype = _linalg_common_type(a, b)
    if a.size == 0:
        return numpy.empty(b.shape, out_dtype)
    _dtype_char(dtype)
    bs = math.prod(a.shape[:-2]) if a.ndim > 2 else 1
    n = a.shape[-1]
    nrhs = b.shape[-1] if a.ndim == b.ndim else 1
    b_shape = b.shape
    aa = numpy.ascontiguousarray(a.reshape(bs, n, n).transpose(0, 2, 1), dtype=dtype)
    bb = numpy.ascontiguousarray(b.reshape(bs, n, nrhs).transpose(0, 2, 1), dtype=dtype)
    limit = get_batched_gesv_limit()
    if n > limit:
        warnings.warn("The matrix size ({}) exceeds the set limit ({})".format(n, limit))
    getrf, getrs = scipy.linalg.lapack.get_lapack_funcs(("getrf", "getrs"), (aa,))
    factors = [getrf(numpy.asfortranarray(m.T)) for m in aa]  # (column-major: a[i])
    if cpu_routines._LINALG_MODE["linalg"] == "raise":
        error = cpu_routines._solver_failed(a, "getrfBatched")
        if error is not None:
            raise error
    with numpy.errstate(all="ignore"):
        for i, (lu, piv, _) in enumerate(factors):
            x, _ = getrs(lu, piv, numpy.asfortranarray(bb[i].T))
            bb[i] = x.T
    return bb.transpose(0, 2, 1).reshape(b_shape).astype(out_dtype, copy=False)


# --- level 1 ------------------------------------------------------------------------

def _result(value: Any, out: Any, dtype: str) -> Any:
    """``_setup_result_ptr`` and the copy after the call: a new 0-d array, ``out``
    itself written at its first element (its dtype), or ``value`` copied into it."""
    result = numpy.asarray(value).astype(dtype)
    if out is None:
        return result
    if isinstance(out, _Host):  # (the client fills its own NumPy out)
        if out.dtype != dtype:
            raise TypeError(f"Unsupported type {numpy.ndarray}")
        host = numpy.array(out)
        if host.size:
            host[(0,) * host.ndim] = result
        return HostArray(host)
    if out.dtype == dtype:
        if out.size:
            out[(0,) * out.ndim] = result
        return out
    numpy.copyto(out, cpu_cast.assign(out, result), casting="unsafe")
    return out


def _check_out(out: Any) -> None:
    if out is not None and not isinstance(out, numpy.ndarray):
        raise TypeError("out must be either cupy or numpy ndarray")


def _check_1d(x: Any, name: str = "x") -> None:
    if x.ndim != 1:
        raise ValueError("{} must be a 1D array (actual: {})".format(name, x.ndim))


def _check_two_vectors(x: Any, y: Any) -> None:
    _check_1d(x)
    _check_1d(y, "y")
    if x.size != y.size:
        raise ValueError("x and y must be the same size (actual: {} and {})"
                         "".format(x.size, y.size))
    if x.dtype != y.dtype:
        raise TypeError("x and y must be the same dtype (actual: {} and {})"
                        "".format(x.dtype, y.dtype))


def _magnitudes(x: numpy.ndarray) -> numpy.ndarray:
    """cuBLAS's magnitude for i?amax/i?amin and ?asum: ``|re| + |im|``."""
    if x.dtype.kind == "c":
        return numpy.abs(x.real) + numpy.abs(x.imag)
    return numpy.abs(x)


def _iamaxmin(x: Any, out: Any, largest: bool) -> Any:
    _check_1d(x)
    _dtype_char(x.dtype)
    _check_out(out)
    _ptr(x)
    mags = _magnitudes(_memory(x, x.size))
    if mags.size == 0:
        index = 0
    else:
        index = int(numpy.argmax(mags) if largest else numpy.argmin(mags)) + 1
    return _result(index, out, "i")


def iamax(x: Any, out: Any = None) -> Any:
    """See Also: cupy.cublas.iamax (1-based)"""
    return _iamaxmin(x, out, True)


def iamin(x: Any, out: Any = None) -> Any:
    """See Also: cupy.cublas.iamin (1-based)"""
    return _iamaxmin(x, out, False)


def _real_reduction(x: Any, out: Any) -> tuple:
    """asum's and nrm2's checks, in CuPy's order; ``(real dtype char, x's elements)``."""
    _check_1d(x)
    char = _dtype_char(x.dtype)
    _check_out(out)
    _ptr(x)
    return char.lower(), _memory(x, x.size)


def asum(x: Any, out: Any = None) -> Any:
    """See Also: cupy.cublas.asum"""
    real, v = _real_reduction(x, out)
    return _result(_magnitudes(v).sum(dtype=real), out, real)


def nrm2(x: Any, out: Any = None) -> Any:
    """See Also: cupy.cublas.nrm2"""
    real, v = _real_reduction(x, out)
    value = numpy.sqrt(numpy.sum(v.real * v.real + v.imag * v.imag if v.dtype.kind == "c"
                                 else v * v, dtype=real)) if v.size else 0
    return _result(value, out, real)


def dot(x: Any, y: Any, out: Any = None) -> Any:
    """See Also: cupy.cublas.dot"""
    char = x.dtype.char
    if char in "FD":
        raise TypeError("Use dotu() or dotc() for complex dtype")
    _dtype_char(x.dtype, "fd")
    _check_two_vectors(x, y)
    _check_out(out)
    _ptr(x, y)
    return _result(numpy.dot(_memory(x, x.size), _memory(y, y.size)), out, char)


def _complex_dot(x: Any, y: Any, out: Any, conj: bool) -> Any:
    char = x.dtype.char
    if char in "fd":
        return dot(x, y, out=out)
    _dtype_char(x.dtype, "FD")
    _check_two_vectors(x, y)
    _check_out(out)
    _ptr(x, y)
    xs, ys = _memory(x, x.size), _memory(y, y.size)
    return _result(numpy.vdot(xs, ys) if conj else numpy.dot(xs, ys), out, char)


def dotu(x: Any, y: Any, out: Any = None) -> Any:
    """See Also: cupy.cublas.dotu"""
    return _complex_dot(x, y, out, False)


def dotc(x: Any, y: Any, out: Any = None) -> Any:
    """See Also: cupy.cublas.dotc"""
    return _complex_dot(x, y, out, True)


def axpy(a: Any, x: Any, y: Any) -> None:
    """See Also: cupy.cublas.axpy (y += a * x)"""
    _check_two_vectors(x, y)
    char = _dtype_char(x.dtype)
    alpha = _scalar(a, char)
    _ptr(x, y)
    if alpha != 0 and y.size:
        ys = _memory(y, y.size)
        ys[...] = alpha * _memory(x, x.size) + ys


def scal(a: Any, x: Any) -> None:
    """See Also: cupy.cublas.scal (x *= a)"""
    _check_1d(x)
    char = _dtype_char(x.dtype)
    alpha = _scalar(a, char)
    _ptr(x)
    if x.size:
        xs = _memory(x, x.size)
        xs[...] = alpha * xs


# --- level 2 ------------------------------------------------------------------------

def gemv(transa: Any, alpha: Any, a: Any, x: Any, beta: Any, y: Any) -> None:
    """See Also: cupy.cublas.gemv (y = alpha * op(a) @ x + beta * y)"""
    char = _dtype_char(a.dtype)
    assert a.ndim == 2
    assert x.ndim == y.ndim == 1
    assert a.dtype == x.dtype == y.dtype
    m, n = a.shape
    transa = _trans(transa)
    xlen, ylen = (n, m) if transa == _OP_N else (m, n)
    assert x.shape[0] == xlen
    assert y.shape[0] == ylen
    alpha, beta = _scalar(alpha, char), _scalar(beta, char)
    if not _flag(a, "_f_contiguous"):
        _flag(a, "_c_contiguous")
    _ptr(a, x, y)
    if y.size == 0:
        return
    ys = _memory(y, ylen)
    xs = _memory(x, xlen)
    ys[...] = _combine(alpha, lambda: _op(a, transa) @ xs, beta, ys, char)


def _ger_checks(x: Any, y: Any, a: Any) -> None:
    assert a.ndim == 2
    assert x.ndim == y.ndim == 1
    assert a.dtype == x.dtype == y.dtype
    m, n = a.shape
    assert x.shape[0] == m
    assert y.shape[0] == n


def _rank1(alpha: Any, x: Any, y: Any, a: Any, conj: bool) -> None:
    alpha = _scalar(alpha, a.dtype.char)
    _ptr(x, y)
    _flag(a, "_f_contiguous")
    if alpha != 0 and a.size:
        ys = _memory(y, y.size)
        a += alpha * numpy.outer(_memory(x, x.size), ys.conj() if conj else ys)


def ger(alpha: Any, x: Any, y: Any, a: Any) -> None:
    """See Also: cupy.cublas.ger (a += alpha * x @ y.T)"""
    char = a.dtype.char
    if char in "FD":
        raise TypeError("Use geru or gerc for complex dtypes")
    _dtype_char(a.dtype, "fd")
    _ger_checks(x, y, a)
    _rank1(alpha, x, y, a, False)


def _ger_complex(alpha: Any, x: Any, y: Any, a: Any, conj: bool) -> None:
    """geru/gerc: a real ``a`` is ``ger``'s (CuPy's fallback), a complex one their own."""
    if a.dtype.char in "fd":
        return ger(alpha, x, y, a)
    _dtype_char(a.dtype, "FD")
    _ger_checks(x, y, a)
    _rank1(alpha, x, y, a, conj)
    return None


def geru(alpha: Any, x: Any, y: Any, a: Any) -> None:
    """See Also: cupy.cublas.geru (a += alpha * x @ y.T)"""
    return _ger_complex(alpha, x, y, a, False)


def gerc(alpha: Any, x: Any, y: Any, a: Any) -> None:
    """See Also: cupy.cublas.gerc (a += alpha * x @ y.T.conj())"""
    return _ger_complex(alpha, x, y, a, True)


def _band_matrix(a: numpy.ndarray, n: int, k: int, lower: bool) -> numpy.ndarray:
    """The symmetric n x n matrix whose band storage (column-major, ``k``
    super- or sub-diagonals) is ``a``."""
    full = numpy.zeros((n, n), a.dtype)
    for d in range(min(k, n - 1) + 1):
        j = numpy.arange(d, n) if not lower else numpy.arange(n - d)
        if lower:
            full[j + d, j] = a[d, j]
        else:
            full[j - d, j] = a[k - d, j]
    diag = numpy.diag(numpy.diag(full))
    return full + full.T - diag


def sbmv(k: Any, alpha: Any, a: Any, x: Any, beta: Any, y: Any, lower: Any = False) -> Any:
    """See Also: cupy.cublas.sbmv (y = alpha * A @ x + beta * y, A symmetric banded)"""
    char = a.dtype.char
    if char not in "fd":
        raise TypeError("Complex dtypes not supported")
    assert a.ndim == 2
    assert x.ndim == y.ndim == 1
    assert a.dtype == x.dtype == y.dtype
    m, n = a.shape
    assert x.shape[0] == n
    assert y.shape[0] == n
    _flag(a, "_f_contiguous")
    alpha, beta = _scalar(alpha, char), _scalar(beta, char)
    _ptr(a, x, y)
    k = operator.index(k)
    if n < 0 or k < 0 or m < max(1, k + 1):
        raise _invalid_value()
    if n:
        ys = _memory(y, n)
        xs = _memory(x, n)
        ys[...] = _combine(alpha, lambda: _band_matrix(a, n, k, bool(lower)) @ xs,
                           beta, ys, char)
    return y


# --- level 3 and extensions -----------------------------------------------------------

def _decide_ld(a: Any, trans: int) -> bool:
    """``_decide_ld_and_trans``: whether a leading dimension was found (``a``'s flags
    read for ``'N'``/``'T'`` only)."""
    if trans in (_OP_N, _OP_T):
        return _flag(a, "_f_contiguous") or _flag(a, "_c_contiguous")
    return False


def _touch_layouts(a: Any, transa: int, b: Any, transb: int, out: Any) -> None:
    """The flags gemm and geam read, in their order (a host array's error there)."""
    lda, ldb = _decide_ld(a, transa), _decide_ld(b, transb)
    if lda and ldb:
        if _flag(out, "_f_contiguous") or _flag(out, "_c_contiguous"):
            return
    for v in (a, b):
        _flag(v, "_f_contiguous")
    _flag(out, "_f_contiguous")


def gemm(transa: Any, transb: Any, a: Any, b: Any, out: Any = None, alpha: Any = 1.0,
         beta: Any = 0.0) -> Any:
    """See Also: cupy.cublas.gemm (out = alpha * op(a) @ op(b) + beta * out)"""
    assert a.ndim == b.ndim == 2
    assert a.dtype == b.dtype
    char = _dtype_char(a.dtype)
    transa, transb = _trans(transa), _trans(transb)
    m, k = a.shape if transa == _OP_N else a.shape[::-1]
    if transb == _OP_N:
        n = b.shape[1]
        assert b.shape[0] == k
    else:
        n = b.shape[0]
        assert b.shape[1] == k
    if out is None:
        out = numpy.empty((m, n), dtype=char, order="F")
        beta = 0.0
    else:
        assert out.ndim == 2
        assert out.shape == (m, n)
        assert out.dtype == char
    alpha, beta = _scalar(alpha, char), _scalar(beta, char)
    _touch_layouts(a, transa, b, transb, out)
    if out.size:
        out[...] = _combine(alpha, lambda: _op(a, transa) @ _op(b, transb), beta, out,
                            char)
    return out


def geam(transa: Any, transb: Any, alpha: Any, a: Any, beta: Any, b: Any,
         out: Any = None) -> Any:
    """See Also: cupy.cublas.geam (alpha * op(a) + beta * op(b))"""
    assert a.ndim == b.ndim == 2
    assert a.dtype == b.dtype
    char = _dtype_char(a.dtype)
    transa, transb = _trans(transa), _trans(transb)
    m, n = a.shape if transa == _OP_N else a.shape[::-1]
    if transb == _OP_N:
        assert b.shape == (m, n)
    else:
        assert b.shape == (n, m)
    if out is None:
        out = numpy.empty((m, n), dtype=char, order="F")
    else:
        assert out.ndim == 2
        assert out.shape == (m, n)
        assert out.dtype == char
    alpha, beta = _scalar(alpha, char), _scalar(beta, char)
    _touch_layouts(a, transa, b, transb, out)
    if out.size:
        opb = _op(b, transb)
        value = _combine(alpha, lambda: _op(a, transa), beta, opb, char)
        out[...] = value
    return out


def dgmm(side: Any, a: Any, x: Any, out: Any = None, incx: Any = 1) -> Any:
    """See Also: cupy.cublas.dgmm (diag(x) @ a for side 'L', a @ diag(x) for 'R')"""
    assert a.ndim == 2
    assert 0 <= x.ndim <= 2
    assert a.dtype == x.dtype
    char = _dtype_char(a.dtype)
    if side == "L" or side == _SIDE_LEFT:
        side = _SIDE_LEFT
    elif side == "R" or side == _SIDE_RIGHT:
        side = _SIDE_RIGHT
    else:
        raise ValueError("invalid side (actual: {})".format(side))
    m, n = a.shape
    length = m if side == _SIDE_LEFT else n
    assert x.size >= (length - 1) * abs(incx) + 1
    if out is None:
        out = numpy.empty((m, n), dtype=char,
                          order="C" if _flag(a, "_c_contiguous") else "F")
    else:
        assert out.ndim == 2
        assert out.shape == a.shape
        assert out.dtype == a.dtype
    if _flag(out, "_c_contiguous"):
        _flag(a, "_c_contiguous")
    else:
        _flag(a, "_f_contiguous")
        _flag(out, "_f_contiguous")
    _ptr(x)
    incx = operator.index(incx)
    if length and out.size:
        mem = _memory(x, x.size)
        step = abs(incx)
        idx = numpy.arange(length) * step
        if incx < 0:
            idx = (length - 1) * step - idx
        d = mem[idx]
        out[...] = d[:, None] * a if side == _SIDE_LEFT else a * d[None, :]
    return out


def syrk(trans: Any, a: Any, out: Any = None, alpha: Any = 1.0, beta: Any = 0.0,
         lower: Any = False) -> Any:
    """See Also: cupy.cublas.syrk (alpha * op(a) @ op(a).T + beta * out, into one
    triangle of out)"""
    assert a.ndim == 2
    char = _dtype_char(a.dtype)
    trans = _trans(trans)
    n, k = a.shape if trans == _OP_N else a.shape[::-1]
    if out is None:
        out = numpy.zeros((n, n), dtype=char, order="F")
        beta = 0.0
    else:
        assert out.ndim == 2
        assert out.shape == (n, n)
        assert out.dtype == char
    uplo = _FILL_LOWER if lower else _FILL_UPPER
    alpha, beta = _scalar(alpha, char), _scalar(beta, char)
    # CuPy's leading dimensions and transposes, followed (``_decide_ld_and_trans``)
    user_trans = trans
    lda = None
    if trans in (_OP_N, _OP_T):
        if _flag(a, "_f_contiguous"):
            lda = a.shape[0]
        elif _flag(a, "_c_contiguous"):
            lda = a.shape[1]
            trans = 1 - trans
    ldo = None
    if trans in (_OP_N, _OP_T) and (_flag(out, "_f_contiguous") or
                                    _flag(out, "_c_contiguous")):
        ldo = n
    flipped = False  # a's transpose taken the wrong way (a non-contiguous a, F out)
    if _flag(out, "_c_contiguous"):
        if not _flag(a, "_c_contiguous"):
            trans, lda = 1 - trans, a.shape[1]
    else:
        if not _flag(a, "_f_contiguous"):
            flipped = lda is None and trans == user_trans
            trans, lda = 1 - trans, a.shape[0]
    _ptr(a, out)
    if lda is None or ldo is None:  # (Cython's conversion of None to an int)
        raise TypeError("an integer is required")
    if trans not in (_OP_N, _OP_T):
        raise _invalid_value()
    opa = _op(a, user_trans)
    if flipped:  # cuBLAS reads a's F-ordered copy with the other transpose
        if lda < max(1, n if trans == _OP_N else k):
            raise _invalid_value()
        if a.shape[0] == a.shape[1]:
            opa = _op(a, 1 - user_trans)
    if n:
        full = _combine(alpha, lambda: opa @ opa.T, beta, out, char)
        full = numpy.broadcast_to(full, (n, n))
        rows, cols = numpy.triu_indices(n) if uplo == _FILL_UPPER else numpy.tril_indices(n)
        out[rows, cols] = full[rows, cols]
    return out


_FUNCTIONS = (get_batched_gesv_limit, set_batched_gesv_limit, batched_gesv, iamax, iamin,
              asum, axpy, dot, dotu, dotc, nrm2, scal, gemv, ger, geru, gerc, sbmv, gemm,
              geam, dgmm, syrk)

#: the CPU backend's ``cupy.cublas.*`` (``cpu.py`` adds them to its ``OVERRIDES``)
CUBLAS_OVERRIDES: dict[str, Callable[..., Any]] = {
    f"cupy.cublas.{fn.__name__}": _hosts_marked(fn) for fn in _FUNCTIONS}
