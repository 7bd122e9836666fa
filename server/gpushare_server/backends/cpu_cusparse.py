"""``cupyx.cusparse`` on the CPU backend: CuPy 14.2's ``cupyx/cusparse.py`` with
NumPy/SciPy doing cuSPARSE's arithmetic.

The backend claims CUDA 12.0 (``runtimeGetVersion() == 12000``), so it answers as
cuSPARSE 12.0.0 (``getVersion() == 12000``): ``check_availability`` follows CuPy's
``_available_cusparse_version`` table for that version, and the legacy routines
cuSPARSE 11/12 removed (``csrmv``, ``csrmm``, ``csrmm2``, ``csrgeam``, ``csrgemm``,
``csrgemm2``, ``csr2dense``, ``csc2dense``, ``csr2csc``, ``csc2csr``, ``dense2csc``,
``dense2csr``, ``csrsm2``; ``spgeam`` needs cuSPARSE 12.8.1) refuse as CuPy's do
there: ``RuntimeError('<name> is not available.')``, or take CuPy's own fallback
(``csr2csc`` of int64 indices or bool data, ``spgeam`` through ``csrgeam2``, int64
``spgemm`` through CuPy's sort-merge product).

Each routine makes CuPy's checks in CuPy's order and words and gives CuPy's results:
sparse results are ``*_matrix`` objects with CuPy's index dtypes (int32 from cuSPARSE,
int64 kept by CuPy's int64 paths), structural (a cancellation leaves a stored zero, as
cuSPARSE's products and sums do); ``spmv``/``spmm``/``sparseToDense`` write into the
caller's ``y``/``c``/``out`` (F-ordered when made here), ``csrsort``/``cscsort``/
``coosort`` sort in place and ``csrilu02`` overwrites ``a.data``. A host (NumPy) array
passes CuPy's checks and fails where CuPy first reaches for its device pointer.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy

from gpushare.cython_args import NDARRAY_BASE, argument_type_error

from . import host_memory, scipy_module, sparse
from .cpu_cublas import _flag, _Host, _hosts_marked, _ptr
from .cpu_sparse import _WIDE_MINOR, _wide_product

#: cuSPARSE's version as the backend's CUDA 12.0 would report it
CUSPARSE_VERSION = 12000

#: CuPy's ``_available_cusparse_version`` (Linux): name -> (added, removed)
AVAILABLE_CUSPARSE_VERSION = {
    "csrmv": (8000, 11000), "csrmm": (8000, 11000), "csrmm2": (8000, 11000),
    "csrgeam": (8000, 11000), "csrgeam2": (9020, None), "csrgemm": (8000, 11000),
    "csrgemm2": (8000, 12000), "gthr": (8000, 12000), "spmv": (10200, None),
    "spmm": (10301, None), "csr2dense": (8000, 12000), "csc2dense": (8000, 12000),
    "csrsort": (8000, None), "cscsort": (8000, None), "coosort": (8000, None),
    "coo2csr": (8000, None), "csr2coo": (8000, None), "csr2csc": (8000, 11000),
    "csc2csr": (8000, 11000), "csr2cscEx2": (10200, None), "csc2csrEx2": (10200, None),
    "dense2csc": (8000, 12000), "dense2csr": (8000, 12000),
    "csr2csr_compress": (8000, None), "csrsm2": (9020, 12000), "csrilu02": (8000, None),
    "denseToSparse": (11300, None), "sparseToDense": (11300, None),
    "spgemm": (11100, None), "spsm": (11600, None), "spgeam": (12801, None),
    "spgemm_int64": (13000, None),
}


def check_availability(name: Any) -> bool:
    """See Also: cupyx.cusparse.check_availability (as cuSPARSE 12.0.0 answers)"""
    if name not in AVAILABLE_CUSPARSE_VERSION:
        raise ValueError(f"No available version information specified for {name}")
    added, removed = AVAILABLE_CUSPARSE_VERSION[name]
    if added is not None and CUSPARSE_VERSION < added:
        return False
    if removed is not None and CUSPARSE_VERSION >= removed:
        return False
    return True


def getVersion() -> int:
    """See Also: cupyx.cusparse.getVersion"""
    return CUSPARSE_VERSION


def _sp() -> Any:
    return scipy_module("scipy.sparse", "cupyx.cusparse")


def _require(name: str) -> None:
    if not check_availability(name):
        raise RuntimeError(f"{name} is not available.")


def _unavailable(name: str) -> Callable[..., Any]:
    def routine(*args: Any, **kwargs: Any) -> Any:
        _require(name)
        raise AssertionError(f"{name} is available")  # (never: see the table)
    routine.__name__ = name
    routine.__doc__ = f"See Also: cupyx.cusparse.{name} (removed in cuSPARSE 12)"
    return routine


def _is_format(x: Any, fmt: str) -> bool:
    return sparse.is_sparse(x) and x.format == fmt


def _unsupported_type(x: Any) -> TypeError:
    return TypeError(f"unsupported type (actual: {_cupy_type(x)})")


def _cupy_type(x: Any) -> str:
    """``type(x)`` as CuPy's message prints it (its sparse classes are CuPy's)."""
    if sparse.is_sparse(x):
        return f"<class 'cupyx.scipy.sparse._{x.format}.{type(x).__name__}'>"
    if isinstance(x, _Host):
        return "<class 'numpy.ndarray'>"
    if isinstance(x, numpy.ndarray):
        return "<class 'cupy.ndarray'>"
    return str(type(x))


def _cast_common_type(*xs: Any) -> list:
    dtypes = [x.dtype for x in xs if x is not None]
    dtype = functools.reduce(numpy.promote_types, dtypes)
    return [x.astype(dtype) if x is not None and x.dtype != dtype else x for x in xs]


def _cuda_dtype(dtype: numpy.dtype) -> None:
    """``_dtype.to_cuda_dtype``'s refusal."""
    if dtype.char not in "efdFD":
        raise TypeError(f"dtype is not supported: {dtype}")


def _check_int32_indices(a: Any, func_name: str) -> None:
    if a.indices.dtype == numpy.int64:
        raise ValueError(f"{func_name} does not support int64 indices "
                         f"(cuSPARSE {func_name} is int32-only)")


def _compressed(fmt: str, data: Any, indices: Any, indptr: Any, shape: tuple,
                canonical: Any = None, sorted_indices: Any = None) -> Any:
    """A ``csr_matrix``/``csc_matrix`` of exactly these arrays (SciPy's constructor
    would shrink int64 indices)."""
    m = getattr(_sp(), f"{fmt}_matrix")(tuple(shape), dtype=data.dtype)
    m.data, m.indices, m.indptr = data, indices, indptr
    _forget_flags(m)
    if canonical:
        m.has_canonical_format = True
    elif sorted_indices:
        m.has_sorted_indices = True
    return m


def _forget_flags(m: Any) -> None:
    """SciPy's cached format flags dropped: computed again when asked (CuPy's lazy
    flags)."""
    for flag in ("_has_canonical_format", "_has_sorted_indices"):
        if flag in vars(m):
            delattr(m, flag)


def _coo(data: Any, row: Any, col: Any, shape: tuple, canonical: bool = False) -> Any:
    m = _sp().coo_matrix(tuple(shape), dtype=data.dtype)
    m.data, m.coords = data, (row, col)
    m.has_canonical_format = bool(canonical)
    return m


def _indptr_to_coo(indptr: numpy.ndarray, dtype: Any = None) -> numpy.ndarray:
    dtype = indptr.dtype if dtype is None else dtype
    return numpy.repeat(numpy.arange(indptr.shape[0] - 1, dtype=dtype),
                        numpy.diff(indptr).astype(numpy.intp))


def _build_indptr(major: numpy.ndarray, n: int, dtype: Any) -> numpy.ndarray:
    indptr = numpy.zeros(n + 1, dtype=dtype)
    if major.size:
        indptr[1:] = numpy.cumsum(numpy.bincount(major.astype(numpy.intp), minlength=n)[:n])
    return indptr


def _summed(rows: numpy.ndarray, cols: numpy.ndarray, vals: numpy.ndarray,
            shape: tuple, idx_dtype: Any) -> Any:
    """The canonical CSR of these COO entries, duplicates summed (zeros kept)."""
    m = shape[0]
    if rows.size == 0:
        return _compressed("csr", numpy.empty(0, vals.dtype), numpy.empty(0, idx_dtype),
                           numpy.zeros(m + 1, idx_dtype), shape, canonical=True)
    order = numpy.lexsort((cols, rows))
    rows, cols, vals = rows[order], cols[order], vals[order]
    first = numpy.ones(rows.size, bool)
    first[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    starts = numpy.flatnonzero(first)
    data = numpy.add.reduceat(vals, starts).astype(vals.dtype, copy=False)
    return _compressed("csr", data, cols[starts].astype(idx_dtype),
                       _build_indptr(rows[starts], m, idx_dtype), shape, canonical=True)


def _canonical(x: Any) -> bool:
    return bool(x.has_canonical_format)


# ---------------------------------------------------------------- sums and products

def _reserve(nbytes: int) -> None:
    """Refuse, as the device's ``OutOfMemoryError``, a result whose making would take
    more than three quarters of this machine's free memory (the kernel would kill the
    worker part way instead)."""
    free, total = host_memory()
    if total and nbytes > free * 3 // 4:
        raise MemoryError(f"Out of memory allocating {nbytes:,} bytes (the CPU backend's "
                          f"host has {free:,} bytes free).")


def _geam(a: Any, b: Any, alpha: Any, beta: Any, idx_dtype: Any, scale_ones: bool) -> Any:
    if scale_ones:  # (csrgeam2: alpha and beta in the data's dtype, always applied)
        a_data = a.data * numpy.array(alpha, a.dtype)
        b_data = b.data * numpy.array(beta, a.dtype)
    else:  # (CuPy's int64 fallback: a coefficient of 1 leaves the data as it is)
        a_data = a.data * a.dtype.type(alpha) if alpha != 1 else a.data
        b_data = b.data * b.dtype.type(beta) if beta != 1 else b.data
    rows = numpy.concatenate([_indptr_to_coo(a.indptr, idx_dtype),
                              _indptr_to_coo(b.indptr, idx_dtype)])
    cols = numpy.concatenate([a.indices, b.indices]).astype(idx_dtype)
    data = numpy.concatenate([a_data, b_data]).astype(a.dtype, copy=False)
    return _summed(rows, cols, data, a.shape, idx_dtype)


def _csrgeam_int64(a: Any, b: Any, alpha: Any, beta: Any) -> Any:
    if a.shape != b.shape:
        raise ValueError("inconsistent shapes")
    idx_dtype = numpy.result_type(a.indices.dtype, b.indices.dtype)
    return _geam(a, b, alpha, beta, idx_dtype, False)


def csrgeam2(a: Any, b: Any, alpha: Any = 1, beta: Any = 1) -> Any:
    """See Also: cupyx.cusparse.csrgeam2"""
    if not _is_format(a, "csr"):
        raise _unsupported_type(a)
    if not _is_format(b, "csr"):
        raise _unsupported_type(b)
    if a.indices.dtype == numpy.int64 or b.indices.dtype == numpy.int64:
        if check_availability("spgeam"):
            return spgeam(a, b, alpha, beta)
        a, b = _cast_common_type(a, b)
        return _csrgeam_int64(a, b, alpha, beta)
    _require("csrgeam2")
    if not _canonical(a):
        raise ValueError("expected canonical format for a")
    if not _canonical(b):
        raise ValueError("expected canonical format for b")
    if a.shape != b.shape:
        raise ValueError("inconsistent shapes")
    a, b = _cast_common_type(a, b)
    if a.dtype.char not in "fdFD":  # (_call_cusparse's bare TypeError)
        raise TypeError
    return _geam(a, b, alpha, beta, numpy.int32, True)


def spgeam(a: Any, b: Any, alpha: Any = 1, beta: Any = 1) -> Any:
    """See Also: cupyx.cusparse.spgeam (cuSPARSE 12.0 has no SpGEAM: CuPy's
    fallbacks)"""
    if not check_availability("spgeam"):
        if a.indices.dtype == numpy.int64 or b.indices.dtype == numpy.int64:
            a, b = _cast_common_type(a, b)
            return _csrgeam_int64(a, b, alpha, beta)
        return csrgeam2(a, b, alpha, beta)
    raise AssertionError("spgeam is available")  # (never on cuSPARSE 12.0)


def _spgemm_products(a: Any, b: Any, idx_dtype: Any, scale: Any) -> Any:
    """``A @ B`` (times ``scale``, if not None) with every structural entry kept: its
    pattern is the product of the patterns (SciPy's product drops cancellations), in
    memory of the result's size."""
    sp = _sp()
    m, n = a.shape[0], b.shape[1]

    def pattern(x: Any) -> Any:
        nnz = int(x.indptr[-1])
        return sp.csr_matrix((numpy.ones(nnz), x.indices[:nnz], x.indptr), shape=x.shape)

    products = int(numpy.diff(b.indptr.astype(numpy.int64))[
        a.indices[:int(a.indptr[-1])].astype(numpy.intp)].sum()) if b.shape[0] else 0
    _reserve(min(products, m * n) * (40 + a.dtype.itemsize))
    def product(x: Any, y: Any) -> Any:  # (a very wide result: on y's used columns
        if n >= _WIDE_MINOR:              # only, as SciPy's buffers are n wide)
            return _wide_product(x, y)
        return x @ y

    pat = product(pattern(a), pattern(b)).tocsr()
    pat.sum_duplicates()
    if pat.nnz == 0:
        return _compressed("csr", numpy.empty(0, a.dtype), numpy.empty(0, idx_dtype),
                           numpy.zeros(m + 1, idx_dtype), (m, n), canonical=True)
    val = product(sp.csr_matrix(a), sp.csr_matrix(b))
    val = val.tocsr()
    val.sum_duplicates()
    rows_p = _indptr_to_coo(pat.indptr.astype(numpy.int64))
    keys_p = rows_p * n + pat.indices
    keys_v = _indptr_to_coo(val.indptr.astype(numpy.int64)) * n + val.indices
    data = numpy.zeros(pat.nnz, a.dtype)
    data[numpy.searchsorted(keys_p, keys_v)] = val.data
    if scale is not None:
        data = (data * scale).astype(a.dtype, copy=False)
    return _compressed("csr", data, pat.indices.astype(idx_dtype),
                       pat.indptr.astype(idx_dtype), (m, n), canonical=True)


def spgemm(a: Any, b: Any, alpha: Any = 1) -> Any:
    """See Also: cupyx.cusparse.spgemm (int64 indices: CuPy's sort-merge product, as
    on CUDA < 13)"""
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("expected 2-D matrices")
    if not _is_format(a, "csr"):
        raise _unsupported_type(a)
    if not _is_format(b, "csr"):
        raise _unsupported_type(b)
    if a.indices.dtype == numpy.int64 or b.indices.dtype == numpy.int64:
        if a.shape[1] != b.shape[0]:
            raise ValueError("mismatched shape")
        a, b = _cast_common_type(a, b)
        return _spgemm_products(a, b, numpy.int64,
                                a.dtype.type(alpha) if alpha != 1 else None)
    _require("spgemm")
    if not _canonical(a):
        raise ValueError("expected canonical format for a")
    if not _canonical(b):
        raise ValueError("expected canonical format for b")
    if a.shape[1] != b.shape[0]:
        raise ValueError("mismatched shape")
    idx_dtype = numpy.result_type(a.indices.dtype, b.indices.dtype)
    a, b = _cast_common_type(a, b)
    _cuda_dtype(a.dtype)
    return _spgemm_products(a, b, idx_dtype, numpy.array(alpha, a.dtype)[()])


# ------------------------------------------------------------- sparse x dense products

def _as_csr_operand(a: Any, transa: Any) -> tuple:
    if _is_format(a, "csc"):
        a = a.T  # (a CSR matrix)
        transa = not transa
    if not (_is_format(a, "csr") or _is_format(a, "coo")):
        raise _unsupported_type(a)
    return a, transa


def _dense_result(out: numpy.ndarray, alpha: Any, product: Callable[[], Any],
                  beta: Any) -> None:
    """``out = alpha * product + beta * out`` in ``out``'s dtype (``beta == 0``: out
    is not read)."""
    dtype = out.dtype
    alpha, beta = numpy.array(alpha, dtype)[()], numpy.array(beta, dtype)[()]
    result = alpha * numpy.asarray(product())
    if beta != 0:
        result = result + beta * out
    out[...] = result.astype(dtype, copy=False)


def spmv(a: Any, x: Any, y: Any = None, alpha: Any = 1, beta: Any = 0,
         transa: Any = False) -> Any:
    """See Also: cupyx.cusparse.spmv (into ``y``)"""
    _require("spmv")
    a, transa = _as_csr_operand(a, transa)
    a_shape = a.shape if not transa else a.shape[::-1]
    if a_shape[1] != len(x):
        raise ValueError("dimension mismatch")
    if not _canonical(a):
        raise ValueError("expected canonical format")
    m, n = a_shape
    a, x, y = _cast_common_type(a, x, y)
    if y is None:
        y = numpy.zeros(m, a.dtype)
    elif len(y) != m:
        raise ValueError("dimension mismatch")
    if a.nnz == 0:
        y.fill(0)
        return y
    _cuda_dtype(a.dtype)
    _ptr(x, y)
    op = a.T if transa else a
    _dense_result(y, alpha, lambda: op @ x, beta)
    return y


def spmm(a: Any, b: Any, c: Any = None, alpha: Any = 1, beta: Any = 0,
         transa: Any = False, transb: Any = False) -> Any:
    """See Also: cupyx.cusparse.spmm (into ``c``, F-ordered)"""
    _require("spmm")
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError("expected 2-D matrices")
    if not b.flags.f_contiguous:
        raise ValueError("expected F-contiguous array for b")
    if c is not None and not c.flags.f_contiguous:
        raise ValueError("expected F-contiguous array for c")
    a, transa = _as_csr_operand(a, transa)
    a_shape = a.shape if not transa else a.shape[::-1]
    b_shape = b.shape if not transb else b.shape[::-1]
    if a_shape[1] != b_shape[0]:
        raise ValueError("dimension mismatch")
    if not _canonical(a):
        raise ValueError("expected canonical format for a")
    m, k = a_shape
    _, n = b_shape
    a, b, c = _cast_common_type(a, b, c)
    if c is None:
        c = numpy.zeros((m, n), a.dtype, "F")
    elif c.shape[0] != m or c.shape[1] != n:
        raise ValueError("dimension mismatch")
    if a.nnz == 0:
        c.fill(0)
        return c
    _cuda_dtype(a.dtype)
    for v in (b, c):  # (DnMatDescriptor.create's checks, then the pointers)
        if not v.flags.f_contiguous:
            raise ValueError("expected F-contiguous array")
    _ptr(b, c)
    op_a = a.T if transa else a
    op_b = b.T if transb else b
    _dense_result(c, alpha, lambda: op_a @ op_b, beta)
    return c


# -------------------------------------------------------------------------- sorting

def csrsort(x: Any) -> None:
    """See Also: cupyx.cusparse.csrsort (in place)"""
    _compressed_sort(x, "csrsort")


def cscsort(x: Any) -> None:
    """See Also: cupyx.cusparse.cscsort (in place)"""
    _compressed_sort(x, "cscsort")


def _compressed_sort(x: Any, name: str) -> None:
    nnz = x.nnz
    if nnz == 0:
        return
    int64 = x.indices.dtype == numpy.int64
    if not int64:
        _require(name)
    major = _indptr_to_coo(x.indptr)[:nnz]
    order = numpy.lexsort((x.indices[:nnz], major))
    x.indices[:nnz] = x.indices[:nnz][order]
    if not int64:  # (cuSPARSE's gather of the data: no bool)
        _forget_flags(x)
        _cuda_dtype(x.dtype)
    x.data[:nnz] = x.data[:nnz][order]
    if int64:
        x.has_sorted_indices = True


def coosort(x: Any, sort_by: Any = "r") -> None:
    """See Also: cupyx.cusparse.coosort (in place; bool data is not permuted on the
    cuSPARSE path, as CuPy's)"""
    nnz = x.nnz
    if nnz == 0:
        return
    if sort_by == "r" and x.has_canonical_format:
        return
    int64 = x.row.dtype == numpy.int64
    if not int64:
        _require("coosort")
    if sort_by == "r":
        order = numpy.lexsort((x.col, x.row))
    elif sort_by == "c":
        order = numpy.lexsort((x.row, x.col))
    else:
        raise ValueError("sort_by must be either 'r' or 'c'")
    x.row[:] = x.row[order]
    x.col[:] = x.col[order]
    if int64 or x.dtype.char != "?":
        x.data[:] = x.data[order]
    if sort_by == "c":
        x.has_canonical_format = False


# ---------------------------------------------------------------------- conversions

def coo2csr(x: Any) -> Any:
    """See Also: cupyx.cusparse.coo2csr (``x``'s rows assumed sorted, as cuSPARSE's)"""
    m = int(x.shape[0])
    return _compressed("csr", x.data, x.col, _build_indptr(x.row, m, x.row.dtype),
                       x.shape)


def coo2csc(x: Any) -> Any:
    """See Also: cupyx.cusparse.coo2csc (``x``'s columns assumed sorted)"""
    n = int(x.shape[1])
    return _compressed("csc", x.data, x.row, _build_indptr(x.col, n, x.col.dtype),
                       x.shape)


def csr2coo(x: Any, data: Any, indices: Any) -> Any:
    """See Also: cupyx.cusparse.csr2coo"""
    nnz = x.nnz
    if x.indptr.dtype != numpy.int64:
        _require("csr2coo")
    row = _indptr_to_coo(x.indptr)[:nnz]
    return _coo(data, row, indices, x.shape,
                bool(getattr(x, "_has_canonical_format", False)))


def csc2coo(x: Any, data: Any, indices: Any) -> Any:
    """See Also: cupyx.cusparse.csc2coo"""
    col = _indptr_to_coo(x.indptr)[:x.nnz]
    return _coo(data, indices, col, x.shape, False)


def _transpose_needs_cupy(x: Any) -> bool:
    return x.indices.dtype == numpy.int64 or x.dtype.char not in "fdFD"


def _transpose(x: Any, fmt: str, out_dim: int, pure: bool) -> Any:
    """CSR <-> CSC: each output line's entries in input-line order."""
    nnz = x.nnz
    idx_dtype = x.indices.dtype if pure else numpy.dtype(numpy.int32)
    if nnz == 0:
        return _compressed(fmt, numpy.empty(0, x.dtype), numpy.empty(0, idx_dtype),
                           numpy.zeros(out_dim + 1, idx_dtype), x.shape,
                           sorted_indices=pure)
    indices = x.indices[:nnz]
    expanded = _indptr_to_coo(x.indptr)[:nnz]
    order = numpy.lexsort((expanded, indices))
    canonical = pure and getattr(x, "_has_canonical_format", None)
    return _compressed(fmt, x.data[:nnz][order], expanded[order].astype(idx_dtype),
                       _build_indptr(indices, out_dim, idx_dtype), x.shape,
                       canonical=canonical, sorted_indices=pure)


def _transposer(name: str, fmt: str, axis: int) -> Callable[..., Any]:
    def routine(x: Any) -> Any:
        if _transpose_needs_cupy(x):
            return _transpose(x, fmt, int(x.shape[axis]), True)
        _require(name)
        return _transpose(x, fmt, int(x.shape[axis]), False)
    routine.__name__ = name
    routine.__doc__ = f"See Also: cupyx.cusparse.{name}"
    return routine


csr2csc = _transposer("csr2csc", "csc", 1)
csr2cscEx2 = _transposer("csr2cscEx2", "csc", 1)
csc2csr = _transposer("csc2csr", "csr", 0)
csc2csrEx2 = _transposer("csc2csrEx2", "csr", 0)


def csr2csr_compress(x: Any, tol: Any) -> Any:
    """See Also: cupyx.cusparse.csr2csr_compress (keeps the entries whose magnitude
    exceeds ``tol``)"""
    _require("csr2csr_compress")
    if x.dtype.char not in "fdFD":
        raise ValueError("unsupported dtype")
    m, _ = x.shape
    nnz = x.nnz
    tol = numpy.array(tol, x.dtype)[()]
    data = x.data[:nnz]
    keep = numpy.abs(data) > abs(tol)
    rows = _indptr_to_coo(x.indptr.astype(numpy.int32))[:nnz]
    return _compressed("csr", data[keep].copy(), x.indices[:nnz][keep].astype(numpy.int32),
                       _build_indptr(rows[keep], m, numpy.int32), x.shape)


def denseToSparse(x: Any, format: Any = "csr") -> Any:
    """See Also: cupyx.cusparse.denseToSparse"""
    _require("denseToSparse")
    if x.ndim != 2:
        raise ValueError("expected 2-D matrix")
    if x.dtype.char not in "fdFD":
        raise ValueError("unsupported dtype")
    if isinstance(x, _Host):  # (cupy.asfortranarray's refusal)
        raise argument_type_error("a", NDARRAY_BASE, numpy.asarray(x))
    if format not in ("csr", "csc", "coo"):
        raise TypeError(f"unsupported format (actual: {format})")
    x = numpy.asarray(x)
    m, n = x.shape
    i32 = numpy.int32
    if format == "csc":
        cols, rows = numpy.nonzero(x.T)
        return _compressed("csc", x[rows, cols], rows.astype(i32),
                           _build_indptr(cols, n, i32), x.shape, canonical=True)
    rows, cols = numpy.nonzero(x)
    if format == "csr":
        return _compressed("csr", x[rows, cols], cols.astype(i32),
                           _build_indptr(rows, m, i32), x.shape, canonical=True)
    return _coo(x[rows, cols], rows.astype(i32), cols.astype(i32), x.shape, True)


def sparseToDense(x: Any, out: Any = None) -> Any:
    """See Also: cupyx.cusparse.sparseToDense (into ``out``)"""
    _require("sparseToDense")
    dtype = x.dtype
    if dtype.char not in "fdFD":
        raise ValueError("unsupported dtype")
    if out is None:
        out = numpy.zeros(x.shape, dtype=dtype, order="F")
    else:
        if not out.flags.f_contiguous:
            raise ValueError("expected F-contiguous array for out")
        if out.dtype != dtype:
            raise ValueError("out dtype mismatch")
    if not sparse.is_sparse(x):
        raise TypeError("expected sparse matrix")
    if x.format not in ("csr", "csc", "coo"):
        raise ValueError(f"csr, csc and coo format are supported (actual: {x.format}).")
    if out.ndim != 2:
        raise ValueError("expected 2-D matrix")
    _ptr(out)
    out[...] = x.toarray()
    return out


# -------------------------------------------------------------------------- solvers

def csrilu02(a: Any, level_info: Any = False) -> None:
    """See Also: cupyx.cusparse.csrilu02 (ILU(0) into ``a.data``)"""
    _require("csrilu02")
    if not _is_format(a, "csr"):
        raise TypeError("a must be CSR sparse matrix")
    if a.shape[0] != a.shape[1]:
        raise ValueError(f"invalid shape (a.shape: {a.shape})")
    _check_int32_indices(a, "csrilu02")
    if level_info is not False and level_info is not True:
        raise ValueError(f"Unknown level_info (actual: {level_info})")
    if a.dtype.char not in "fdFD":
        raise TypeError(f"Invalid dtype (actual: {a.dtype})")
    m = a.shape[0]
    indptr = a.indptr.astype(numpy.intp)
    indices = a.indices.astype(numpy.intp)
    data = a.data
    rows = [dict() for _ in range(m)]
    for i in range(m):
        for p in range(indptr[i], indptr[i + 1]):
            rows[i].setdefault(int(indices[p]), p)
    for i in range(m):
        if i not in rows[i]:
            raise ValueError(f"a({i},{i}) is missing")
    vals = data.copy()
    with numpy.errstate(all="ignore"):
        for i in range(m):
            row = rows[i]
            for k in sorted(c for c in row if c < i):
                p = row[k]
                vals[p] = vals[p] / vals[rows[k][k]]
                for j, q in rows[k].items():
                    if j > k and j in row:
                        vals[row[j]] -= vals[p] * vals[q]
    data[...] = vals
    for i in range(m):
        if vals[rows[i][i]] == 0:
            raise ValueError(f"u({i},{i}) is zero")


def spsm(a: Any, b: Any, alpha: Any = 1.0, lower: Any = True, unit_diag: Any = False,
         transa: Any = False) -> Any:
    """See Also: cupyx.cusparse.spsm (op(a) x = alpha * b, ``a``'s ``lower``
    triangle read)"""
    _require("spsm")
    if transa is False:
        transa = "N"
    elif transa is True:
        transa = "T"
    elif transa not in "NTH":
        raise ValueError(f"Unknown transa (actual: {transa})")
    if _is_format(a, "csr"):
        pass
    elif _is_format(a, "csc"):
        if transa == "N":
            a, transa = a.T, "T"
        elif transa == "T":
            a, transa = a.T, "N"
        elif transa == "H":
            a, transa = a.conj().T, "N"
        lower = not lower
    elif _is_format(a, "coo"):
        pass
    else:
        raise ValueError("a must be CSR, CSC or COO sparse matrix")
    if not _canonical(a):
        raise ValueError("expected canonical format for a")
    if b.ndim == 1:
        is_b_vector = True
        b = b.reshape(-1, 1)
    elif b.ndim == 2:
        is_b_vector = False
    else:
        raise ValueError("b.ndim must be 1 or 2")
    if not (a.shape[0] == a.shape[1] == b.shape[0]):
        raise ValueError("mismatched shape")
    dtype = a.dtype
    if dtype.char not in "fdFD":
        raise TypeError(f"Invalid dtype (actual: {dtype})")
    if dtype != b.dtype:
        raise TypeError("dtype mismatch")
    if lower is not True and lower is not False:
        raise ValueError(f"Unknown lower (actual: {lower})")
    if unit_diag is not False and unit_diag is not True:
        raise ValueError(f"Unknown unit_diag (actual: {unit_diag})")
    if not (_flag(b, "_f_contiguous") or _flag(b, "_c_contiguous")):
        raise ValueError("b must be F-contiguous or C-contiguous.")
    _ptr(b)
    m = a.shape[0]
    tri = (_sp().tril if lower else _sp().triu)(a, format="csr")
    if unit_diag:
        tri = tri - _sp().diags(tri.diagonal(), format="csr") + _sp().identity(m, format="csr")
    if transa == "T":
        tri, lower = tri.T.tocsr(), not lower
    elif transa == "H":
        tri, lower = tri.conj().T.tocsr(), not lower
    rhs = numpy.array(alpha, dtype)[()] * numpy.asarray(b)
    c = numpy.zeros((m, b.shape[1]), dtype, order="F")
    if m and b.shape[1]:
        linalg = scipy_module("scipy.sparse.linalg", "cupyx.cusparse")
        with numpy.errstate(all="ignore"):
            c[...] = linalg.spsolve_triangular(tri.astype(dtype), rhs.astype(dtype),
                                               lower=lower)
    if is_b_vector:
        c = c.reshape(-1)
    return c


_UNAVAILABLE = ("csrmv", "csrmm", "csrmm2", "csrgeam", "csrgemm", "csrgemm2", "csr2dense",
                "csc2dense", "dense2csc", "dense2csr", "csrsm2")

_FUNCTIONS = (csrgeam2, spgeam, spgemm, spmv, spmm, csrsort, cscsort, coosort, coo2csr,
              coo2csc, csr2coo, csc2coo, csr2csc, csr2cscEx2, csc2csr, csc2csrEx2,
              csr2csr_compress, denseToSparse, sparseToDense, csrilu02, spsm)

#: the CPU backend's ``cupyx.cusparse.*`` (``cpu.py`` adds them to its ``OVERRIDES``)
CUSPARSE_OVERRIDES: dict[str, Callable[..., Any]] = {
    "cupyx.cusparse.check_availability": check_availability,
    "cupyx.cusparse.getVersion": getVersion,
    **{f"cupyx.cusparse.{fn.__name__}": _hosts_marked(fn) for fn in _FUNCTIONS},
    **{f"cupyx.cusparse.{name}": _unavailable(name) for name in _UNAVAILABLE},
}
