"""``cupyx.scipy.sparse`` on the CPU backend: SciPy's sparse matrices and arrays, with
CuPy's semantics where the two differ (the shared operators are in ``sparse.py``).

- CuPy's sparse data is bool, float32, float64, complex64 or complex128: its
  constructors refuse other dtypes with ``ValueError`` (SciPy's keep them); ``random``
  makes float32/float64 only, by CuPy's algorithm on the session's ``RandomState``;
  ``diags`` of integers is float64 (CuPy's ``common_type``).
- Dense results are CuPy's C-ordered ndarrays (SciPy's are ``numpy.matrix`` for
  matrices, Fortran-ordered for CSC: ``cpu.to_device_result``, ``_dense``), and
  ``sum``/``mean`` write into an ndarray ``out``.
- Two sparse operands of comparisons, ``maximum``, ``minimum`` and ``multiply``
  broadcast (a row, a column, one value), as CuPy's kernels do.
- Sparse results keep int64 indices when an operand has them (CuPy 14's rule).
- ``kron`` gives COO (SciPy's picks BSR for dense blocks); only DIA converts to DIA;
  ``permute_dims``/``swapaxes``/``matrix_transpose`` check their arguments as CuPy's.
- What a CuPy format leaves to ``_spbase`` runs on ``self.tocsr()`` (``_through_csr``):
  comparisons, ``maximum``/``minimum`` and ``/`` of CSC, COO and DIA are CSR, so are
  COO's and DIA's ``+``/``-`` and matrix ``*``, products of sparse operands, a
  matrix's ``** n`` (n >= 2; ``** 0`` a CSR identity) and DIA's transpose (CSC).
- CuPy's answers of methods (``_SPECIAL``): ``setdiag`` keeps the dtype (DIA has none),
  ``count_nonzero()`` an int, ``argmax()`` a 0-d int64 array, ``getnnz(axis)`` and
  ``min``/``max``'s ``out`` refused, dense sums and ``dense @ A`` C-ordered, and CuPy's
  words for its refusals and SparseEfficiencyWarnings.
"""
from __future__ import annotations

import functools
import operator
import warnings
from typing import Any, Callable

import numpy

from gpushare.namespace import SPARSE_CLASSES

from . import scipy_module, sparse


def _scipy_sparse() -> Any:
    return scipy_module("scipy.sparse", "cupyx.scipy.sparse")


def check_dtype(dtype: Any) -> None:
    if numpy.dtype(dtype).char not in "?fdFD":
        raise ValueError("Only bool, float32, float64, complex64 and complex128 are supported")


def csr_matrix(x: Any) -> Any:
    return _scipy_sparse().csr_matrix(x)


def _initializer(name: str, arg1: Any, shape: Any) -> Any:
    """CuPy's checks of a ``name`` constructor's ``arg1`` and ``shape`` where SciPy's
    differ (``_coo.py``, ``_compressed.py``): COO's supported dimensions and
    ``_util.check_input_ndim``; a 1-d sparse input's new 1-d shape honored (SciPy's keeps
    the input's), its indices checked against it. ``arg1``, or its replacement."""
    fmt, kind = name.split("_")
    if fmt in ("csr", "csc") and isinstance(arg1, tuple) and len(arg1) == 3 and all(
            isinstance(a, numpy.ndarray) and a.ndim == 1 for a in arg1) and \
            arg1[0].size == arg1[1].size and arg1[2].size > 0:
        data, indices, indptr = arg1  # (CuPy's checks of indptr's ends, and its trim)
        first, nnz_live = int(indptr[0]), int(indptr[-1])
        if first != 0:
            raise ValueError(f"index pointer should start with 0 (got {first})")
        if nnz_live > data.size:
            raise ValueError(f"last index pointer ({nnz_live}) exceeds the size of "
                             f"data/indices ({data.size})")
        if data.size > nnz_live:
            arg1 = (data[:nnz_live], indices[:nnz_live], indptr)
    if fmt != "coo" and not (fmt == "csr" and kind == "array"):
        return arg1
    one_d = kind == "array"
    unsupported = ("Only 1-D and 2-D sparse arrays are supported." if one_d else
                   "Only two-dimensional sparse arrays are supported.")
    if fmt == "coo":
        if shape is not None and len(shape) not in ((1, 2) if one_d else (2,)):
            raise ValueError(unsupported)
        if one_d and isinstance(arg1, tuple) and len(arg1) not in (0, 1, 2) and all(
                isinstance(k, (int, numpy.integer)) and not isinstance(k, bool)
                for k in arg1):
            raise ValueError(unsupported)
        full = sparse.is_sparse(arg1) or isinstance(arg1, numpy.ndarray) and 1 <= arg1.ndim <= 2
        if full and shape is not None and len(shape) != arg1.ndim:
            raise ValueError(f"cannot use a {len(shape)}-D shape {tuple(shape)} with a "
                             f"{arg1.ndim}-D input array")
    if one_d and sparse.is_sparse(arg1) and arg1.ndim == 1 and shape is not None and \
            len(shape) == 1 and tuple(shape) != arg1.shape:
        coo = arg1.tocoo()
        (col,) = coo.coords
        if col.size and int(col.max()) >= shape[0]:
            raise ValueError("column index exceeds matrix dimensions")
        return _scipy_sparse().coo_array((coo.data, (col,)), shape=tuple(shape))
    return arg1


def _constructor(name: str) -> Callable[..., Any]:
    def make(*args: Any, **kwargs: Any) -> Any:
        dtype = args[2] if len(args) > 2 else kwargs.get("dtype")
        if dtype is not None:  # (CuPy's refusal comes before its cast: no ComplexWarning)
            check_dtype(dtype)
        shape = args[1] if len(args) > 1 else kwargs.get("shape")
        if args:
            args = (_initializer(name, args[0], shape),) + args[1:]
        elif "arg1" in kwargs:
            kwargs["arg1"] = _initializer(name, kwargs["arg1"], shape)
        matrix = getattr(_scipy_sparse(), name)(*args, **kwargs)
        check_dtype(matrix.dtype)
        return matrix
    make.__name__ = name
    return make


#: what each format's CuPy constructor raises for an initializer it has no branch for
#: (``_compressed.py``, ``_coo.py``, ``_dia.py``: ``__init__``'s last ``else``)
_UNRECOGNIZED = {"csr": (ValueError, "Unsupported initializer format"),
                 "csc": (ValueError, "Unsupported initializer format"),
                 "coo": (TypeError, "invalid input format"),
                 "dia": (ValueError, "unrecognized form for dia_matrix constructor")}


def checks_initializer(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """The constructor ``fn`` refusing, as CuPy's ``name`` does, a list or a host (NumPy)
    array as its initializer (neither is a device array, a shape, a tuple of arrays or
    a SciPy matrix), where SciPy's would build from it."""
    from gpushare.protocol import HostArray
    exc, message = _UNRECOGNIZED[name.split("_")[0]]

    @functools.wraps(fn)
    def make(*args: Any, **kwargs: Any) -> Any:
        arg1 = args[0] if args else kwargs.get("arg1")
        if isinstance(arg1, (list, HostArray)):
            raise exc(message)
        if name.startswith("dia") and (sparse.is_sparse(arg1) or isinstance(
                arg1, numpy.ndarray)):  # (only SciPy's converts; no dense branch either:
            raise exc(message)          # the GPU's error for a device array)
        return fn(*args, **kwargs)
    return make


def _kron(A: Any, B: Any, format: str | None = None) -> Any:
    return _scipy_sparse().kron(A, B, format="coo" if format is None else format)


def _kron_kept(A: Any, B: Any, format: str | None = None) -> Any:
    """CuPy's ``kron``: of a sparse array, the operands' int64 indices kept; of matrices
    only, int32 unless the result's shape needs int64 (its legacy policy)."""
    sparray = _scipy_sparse().sparray
    if isinstance(A, sparray) or isinstance(B, sparray):
        return keeps_int64_indices(_kron)(A, B, format)
    return _kron(A, B, format)


def _random(m: int, n: int, density: float = 0.01, format: str = "coo", dtype: Any = None,
            random_state: Any = None, data_rvs: Any = None) -> Any:
    """CuPy's ``random``: float32/float64 only, its positions drawn by
    ``random_state.choice`` and its values by ``random_state.rand`` (a ``RandomState`` or
    a seed)."""
    from .cpu_random import RandomState
    if density < 0 or density > 1:
        raise ValueError("density expected to be 0 <= density <= 1")
    dtype = numpy.dtype(dtype)
    if dtype.char not in "fd":
        raise NotImplementedError(f"type {dtype} not supported")
    k = int(density * m * n)
    if random_state is None or isinstance(random_state, (int, numpy.integer)):
        random_state = RandomState(random_state)
    if data_rvs is None:
        data_rvs = random_state.rand
    ind = random_state.choice(m * n, size=k, replace=False)
    ind = ind.astype(numpy.int32 if m * n - 1 <= numpy.iinfo(numpy.int32).max
                     else numpy.int64, copy=False)
    j = ind // m
    vals = numpy.asarray(data_rvs(k)).astype(dtype)
    return _scipy_sparse().coo_matrix((vals, (ind - j * m, j)), shape=(m, n)).asformat(format)


def _rand(m: int, n: int, density: float = 0.01, format: str = "coo", dtype: Any = None,
          random_state: Any = None) -> Any:
    return _random(m, n, density, format, dtype, random_state)


def _diagonals_dtype(diagonals: Any) -> Any:
    """CuPy's ``common_type`` of the diagonals (float64 for integers), where SciPy's keeps
    integers and warns of a future change."""
    if isinstance(diagonals, (list, tuple)) and diagonals and \
            isinstance(diagonals[0], (list, tuple, numpy.ndarray)):
        arrays = [numpy.atleast_1d(numpy.asarray(d)) for d in diagonals]
    else:
        arrays = [numpy.atleast_1d(numpy.asarray(diagonals))]
    try:
        return numpy.common_type(*arrays)
    except TypeError:  # (booleans: SciPy decides)
        return None


def _diags(diagonals: Any, offsets: Any = 0, shape: Any = None, format: Any = None,
           dtype: Any = None) -> Any:
    if dtype is None:
        dtype = _diagonals_dtype(diagonals)
    return _scipy_sparse().diags(diagonals, offsets, shape, format, dtype)


def _diags_array(diagonals: Any, /, *, offsets: Any = 0, shape: Any = None,
                 format: Any = None, dtype: Any = None) -> Any:
    if dtype is None:
        dtype = _diagonals_dtype(diagonals)
    return _scipy_sparse().diags_array(diagonals, offsets=offsets, shape=shape, format=format,
                                       dtype=dtype)


def _sparse_operand(A: Any, name: str) -> None:
    if not sparse.is_sparse(A):
        raise TypeError(f"{name} expected a sparse object")


def _matrix_transpose(A: Any) -> Any:
    _sparse_operand(A, "matrix_transpose")
    return A.transpose()


def _permute_dims(A: Any, axes: Any = None, copy: bool = False) -> Any:
    _sparse_operand(A, "permute_dims")
    axes = (1, 0) if axes is None else tuple(a + 2 if a < 0 else a for a in axes)
    if sorted(axes) != [0, 1]:
        raise ValueError("axes must be a permutation of (0, 1)")
    if axes == (0, 1):
        return A.copy() if copy else A
    return A.transpose(copy=copy)


def _swapaxes(A: Any, axis1: int, axis2: int) -> Any:
    _sparse_operand(A, "swapaxes")
    a1, a2 = (axis1 + 2 if axis1 < 0 else axis1), (axis2 + 2 if axis2 < 0 else axis2)
    if a1 not in (0, 1) or a2 not in (0, 1):
        raise ValueError("axis out of range for 2-D sparse object")
    return A if a1 == a2 else A.transpose()




#: the methods that take host (numpy) arrays as CuPy's do: indices (``cupy.asarray``)
HOST_OK = frozenset({"__getitem__", "__setitem__", "setdiag"})
#: elementwise operations between two sparse operands, which broadcast in CuPy
#: (``binopt_csr``, ``multiply_by_csr``) and need equal shapes in SciPy
_BROADCAST = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                        "maximum", "minimum", "multiply"})


def _index_arrays(x: Any) -> tuple:
    """The sparse ``x``'s index arrays (none for DIA)."""
    if x.format in ("csr", "csc"):
        return (x.indices, x.indptr)
    if x.format == "coo":
        return tuple(x.coords) if hasattr(x, "coords") else (x.row, x.col)
    return ()


def _has_int64_indices(values: Any) -> bool:
    for value in values:
        if sparse.is_sparse(value):
            if any(a.dtype == numpy.int64 for a in _index_arrays(value)):
                return True
        elif isinstance(value, (list, tuple)) and _has_int64_indices(value):
            return True
    return False


def keeps_int64_indices(fn: Callable[..., Any], operands: tuple = ()) -> Callable[..., Any]:
    """``fn`` whose sparse result keeps int64 indices when an operand (its arguments and
    ``operands``) has them, as CuPy 14's do (SciPy's shrink them to int32 when the values
    fit)."""
    def call(*args: Any, **kwargs: Any) -> Any:
        had = _has_int64_indices((*operands, *args, *kwargs.values()))
        wide = [obj for obj in operands if _has_int64_indices((obj,))]
        result = fn(*args, **kwargs)
        if had:
            upcast_indices(result)
        for obj in wide:  # (changed in place: ``setdiag``, ``m[i, j] = v``, ``+=``...)
            upcast_indices(obj)
        return result
    return call


def upcast_indices(result: Any) -> Any:
    """The sparse ``result``'s index arrays made int64 (in place), where it has them."""
    if sparse.is_sparse(result) and result.format != "dia" and \
            not all(a.dtype == numpy.int64 for a in _index_arrays(result)):
        if result.format == "coo":
            if hasattr(result, "coords"):
                result.coords = tuple(c.astype(numpy.int64) for c in result.coords)
            else:
                result.row, result.col = (result.row.astype(numpy.int64),
                                          result.col.astype(numpy.int64))
        else:
            result.indices = result.indices.astype(numpy.int64)
            result.indptr = result.indptr.astype(numpy.int64)
    return result


#: the methods CuPy's ``_data_matrix`` answers with ``self._with_data(...)``: a COO
#: result keeps ``has_canonical_format`` (CuPy's ``_coo._with_data``; SciPy's resets it)
_WITH_DATA = frozenset(("__abs__", "__round__", "__neg__", "astype", "conj", "conjugate",
                        "copy", "power", "arcsin", "arcsinh", "arctan", "arctanh", "ceil",
                        "deg2rad", "expm1", "floor", "log1p", "rad2deg", "rint", "sign",
                        "sin", "sinh", "sqrt", "tan", "tanh", "trunc"))


def method(obj: Any, name: str) -> Callable[..., Any]:
    """The sparse ``obj``'s method ``name`` as CuPy's answers; a sparse result keeps
    int64 indices (``keeps_int64_indices``)."""
    fn = keeps_int64_indices(_method(obj, name), (obj,))
    if name in _WITH_DATA and obj.format == "coo":
        return functools.partial(_keeps_canonical, fn, obj)
    return fn


def _keeps_canonical(fn: Callable[..., Any], obj: Any, *args: Any, **kwargs: Any) -> Any:
    result = fn(*args, **kwargs)
    if result is not obj and sparse.is_sparse(result) and result.format == "coo":
        result.has_canonical_format = bool(obj.has_canonical_format)
    return result


#: a compressed matrix's minor axis from which fancy minor indexing runs as CuPy's
#: ``_minor_index_fancy_sorted`` (O(nnz + k) space), not SciPy's (an O(N) buffer)
_WIDE_MINOR = 1 << 24


def _minor_fancy_key(obj: Any, key: Any) -> Any:
    """The 1-d integer minor-axis positions of ``key`` when it is ``[:, idx]`` of a wide
    CSR (``[idx, :]`` of a wide CSC); None otherwise."""
    from gpushare.protocol import HostArray
    if obj.ndim != 2 or obj.format not in ("csr", "csc") or not isinstance(key, tuple) \
            or len(key) != 2 or obj.shape[1 if obj.format == "csr" else 0] < _WIDE_MINOR:
        return None
    full, idx = key if obj.format == "csr" else key[::-1]
    if not isinstance(full, slice) or full != slice(None):
        return None
    if isinstance(idx, HostArray):
        idx = idx.array
    if isinstance(idx, list) and idx and all(
            isinstance(i, (int, numpy.integer)) and not isinstance(i, bool) for i in idx):
        idx = numpy.asarray(idx, dtype=numpy.int64)
    if not isinstance(idx, numpy.ndarray) or idx.ndim != 1 or idx.dtype.kind not in "iu":
        return None
    n = obj.shape[1 if obj.format == "csr" else 0]
    idx = idx.astype(numpy.int64)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        return None  # (SciPy's/CuPy's IndexError)
    return numpy.where(idx < 0, idx + n, idx)


def _minor_fancy(obj: Any, idx: Any) -> Any:
    """``obj[:, idx]`` (CSR) or ``obj[idx, :]`` (CSC) by sorting and searching, as
    CuPy's ``_minor_index_fancy_sorted``: sorted indices, the index dtype kept."""
    index_dtype = obj.indices.dtype
    order = numpy.argsort(idx, kind="stable")
    wanted = idx[order]
    lo = numpy.searchsorted(wanted, obj.indices, "left")
    hi = numpy.searchsorted(wanted, obj.indices, "right")
    counts = hi - lo
    major = numpy.repeat(numpy.arange(obj.indptr.size - 1), numpy.diff(obj.indptr))
    entry = numpy.repeat(numpy.arange(obj.indices.size), counts)
    within = numpy.arange(entry.size) - numpy.repeat(numpy.cumsum(counts) - counts, counts)
    minor = order[lo[entry] + within]
    rows = major[entry]
    sort = numpy.lexsort((minor, rows))
    rows, minor, data = rows[sort], minor[sort], obj.data[entry[sort]]
    indptr = numpy.zeros(obj.indptr.size, index_dtype)
    numpy.cumsum(numpy.bincount(rows, minlength=obj.indptr.size - 1), out=indptr[1:])
    m = obj.indptr.size - 1
    shape = (m, idx.size) if obj.format == "csr" else (idx.size, m)
    result = type(obj)((data, minor.astype(index_dtype), indptr), shape=shape)
    result.indices = minor.astype(index_dtype)
    result.indptr = indptr
    result.has_sorted_indices = True
    return result


def _wrapped_key(obj: Any, key: Any) -> Any:
    """``key`` with its integer arrays (lists) taken modulo their axis's length, as
    CuPy's ``_asindices`` does (``x % length``: no bounds check, no sync)."""
    from gpushare.protocol import HostArray

    def wrap(part: Any, length: int) -> Any:
        if isinstance(part, HostArray):
            part = part.array
        if isinstance(part, list) and part:
            try:
                array = numpy.asarray(part)
            except (ValueError, TypeError, OverflowError):
                return part
        elif isinstance(part, numpy.ndarray):
            array = part
        else:
            return part
        if array.dtype.kind not in "iu" or array.ndim not in (1, 2) or length == 0:
            return part
        return array % length
    if isinstance(key, tuple):
        if len(key) != 2:
            return key
        return (wrap(key[0], obj.shape[0]), wrap(key[1], obj.shape[1]))
    return wrap(key, obj.shape[0])


def _dia_tocsc(obj: Any, copy: bool = False) -> Any:
    """See Also: cupyx.scipy.sparse.dia_matrix.tocsc (CuPy's kernel, in NumPy: O(data)
    space, its index dtype by ``max(shape)``; SciPy's goes through a CSR, whose
    ``indptr`` of a tall matrix is huge)."""
    sp = _scipy_sparse()
    csc = sp.csc_array if isinstance(obj, sp.sparray) else sp.csc_matrix
    if obj.data.size == 0:
        return csc(obj.shape, dtype=obj.dtype)
    num_rows, num_cols = obj.shape
    offset_len = obj.data.shape[1]
    idx = numpy.int32 if max(obj.shape) <= numpy.iinfo(numpy.int32).max else numpy.int64
    offset_inds = numpy.arange(offset_len, dtype=idx)[None, :]
    row = offset_inds - obj.offsets[:, None].astype(idx, copy=False)
    mask = (row >= 0) & (row < num_rows) & (offset_inds < num_cols) & (obj.data != 0)
    indptr = numpy.zeros(num_cols + 1, dtype=idx)
    eff_len = min(offset_len, num_cols)
    numpy.cumsum(mask.sum(axis=0)[:eff_len], out=indptr[1:eff_len + 1])
    indptr[eff_len + 1:] = indptr[eff_len]
    return csc((obj.data.T[mask.T], row.T[mask.T].astype(idx, copy=False), indptr),
               shape=obj.shape, dtype=obj.dtype)


def _method(obj: Any, name: str) -> Callable[..., Any]:
    if name in ("tocsc", "tocsr") and obj.format == "dia" and \
            max(obj.shape) > numpy.iinfo(numpy.int32).max:
        return ((lambda copy=False: _dia_tocsc(obj)) if name == "tocsc" else
                (lambda copy=False: _dia_tocsc(obj).tocsr()))
    if name in ("__getitem__", "__setitem__") and obj.ndim == 2 and \
            obj.format in ("csr", "csc"):
        plain = _dispatch(obj, name)
        wide = obj.shape[1 if obj.format == "csr" else 0] >= _WIDE_MINOR
        if name == "__setitem__":
            return lambda key, value: plain(_wrapped_key(obj, key), value)

        def getitem(key: Any) -> Any:
            key = _wrapped_key(obj, key)
            idx = _minor_fancy_key(obj, key) if wide else None
            return plain(key) if idx is None else _minor_fancy(obj, idx)
        return getitem
    if obj.ndim == 2 and (name == "multiply" or name in ("__mul__", "__rmul__") and
                          not _scipy_sparse().isspmatrix(obj)):
        # (a sparse array's ``*`` is its ``multiply``: CuPy's ``_base.__mul__``)
        return functools.partial(_multiply, obj)
    if obj.ndim == 2 and obj.format != "csr" and name in _ROUTED:
        return functools.partial(_routed, obj, name)
    return _dispatch(obj, name)


def _dispatch(obj: Any, name: str) -> Callable[..., Any]:
    special = _SPECIAL.get(name)
    if special is not None and obj.ndim == 2:
        return functools.partial(special, obj)
    if name in _PRODUCTS:
        return functools.partial(_product, obj, sparse.method(obj, name),
                                 name.startswith("__r"))
    if name in _BROADCAST:
        return functools.partial(_broadcasting, obj, name)
    if name in ("__imul__", "__itruediv__"):
        return functools.partial(_in_place_scale, obj, name)
    if name == "count_nonzero" and obj.ndim == 1:
        return functools.partial(_count_nonzero_1d, obj)
    if name in ("__getitem__", "__setitem__") and obj.ndim == 1:
        return functools.partial(_index_1d, sparse.method(obj, name))
    if name in ("sum", "mean"):
        if obj.dtype == numpy.bool_ and obj.format in ("coo", "csr", "csc") and \
                not obj.has_canonical_format:  # (CuPy's: a duplicate True counts once,
            obj = obj.copy()                   # on a copy, as densified)
            obj.sum_duplicates()
        return functools.partial(_reduction, sparse.method(obj, name))
    if name in ("toarray", "todense"):
        return functools.partial(_dense, getattr(obj, name))
    if name == "todia" and obj.format != "dia":
        return _no_dia
    return sparse.method(obj, name)


_COMPARISONS = {"__eq__": ("==", "!="), "__ne__": ("!=", "=="), "__lt__": ("<", ">="),
                "__gt__": (">", "<="), "__le__": ("<=", ">"), "__ge__": (">=", "<")}
_ADDITIONS = frozenset({"__add__", "__radd__", "__sub__", "__rsub__"})
#: the methods a format's CuPy class may leave to ``_spbase``, which runs them on
#: ``self.tocsr()`` (``_base.py``), so that their sparse results are CSR
_ROUTED = frozenset({*_COMPARISONS, *_ADDITIONS, "maximum", "minimum", "__truediv__",
                     "transpose", "dot", "__matmul__", "__mul__", "__rmul__", "__pow__"})


def _through_csr(obj: Any, name: str, args: tuple) -> bool:
    """Whether CuPy runs ``obj.<name>(*args)`` on ``obj.tocsr()``: ``_spbase``'s
    comparisons, ``maximum``/``minimum`` and ``__truediv__`` for every format but CSR
    (``_csr.py`` alone has them); ``+``/``-`` for COO and DIA (``_compressed._add`` is
    CSR's and CSC's); DIA's ``transpose`` and products (``_dia.py`` has neither); a
    product with a sparse operand for CSC and COO (cuSPARSE's ``spgemm``/``csrgemm``
    give CSR), and a matrix ``*`` of a scalar for COO (``_spbase._matmul_dispatch``;
    COO's own ``dot`` keeps COO); a matrix power of two or more (products: ``@``)."""
    fmt, other = obj.format, (args[0] if args else None)
    if name in _COMPARISONS or name in ("maximum", "minimum", "__truediv__"):
        return True
    if name in _ADDITIONS:
        return fmt in ("coo", "dia")
    if name == "transpose":
        return fmt == "dia"
    if name == "__pow__":
        return _scipy_sparse().isspmatrix(obj) and isinstance(other, int) and other >= 2
    if fmt == "dia" or sparse.is_sparse(other):
        return True
    return fmt == "coo" and name in ("__mul__", "__rmul__")


def _routed(obj: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    """``obj.<name>``, run on ``obj.tocsr()`` where CuPy's is (``_through_csr``)."""
    if _through_csr(obj, name, args):
        obj = obj.tocsr()
    return _dispatch(obj, name)(*args, **kwargs)


def _comparison(obj: Any, name: str, other: Any) -> Any:
    """See Also: cupyx.scipy.sparse.csr_matrix.__eq__ (``_csr._comparison``): CuPy's
    SparseEfficiencyWarning, in its words, where it warns (a scalar the implicit
    zeros compare true with; ``==``, ``<=`` or ``>=`` of two sparse operands)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", _scipy_sparse().SparseEfficiencyWarning)
        result = _broadcasting(obj, name, other)
    if sparse.is_sparse(other):
        if name in ("__eq__", "__le__", "__ge__"):
            warnings.warn("Comparing sparse matrices using ==, <=, and >= is inefficient, "
                          "try using !=, <, or > instead.",
                          _scipy_sparse().SparseEfficiencyWarning)
    elif numpy.isscalar(other) or isinstance(other, numpy.ndarray) and other.ndim == 0:
        scalar = numpy.asarray(other, dtype=obj.dtype)
        try:
            nan = bool(numpy.isnan(scalar))
        except TypeError:
            nan = False
        op = getattr(operator, name.strip("_"))
        try:
            zero_true = bool(op(obj.dtype.type(0), scalar[()]))
        except TypeError:  # (complex values have no order: CuPy's binopt_csr)
            zero_true = True
        if zero_true and not nan:
            symbol, alternative = _COMPARISONS[name]
            warnings.warn(f"Comparing a sparse matrix with {scalar} using {symbol} is "
                          f"inefficient. Try using {alternative} instead.",
                          _scipy_sparse().SparseEfficiencyWarning)
    return result


def _extremum(obj: Any, name: str, other: Any) -> Any:
    """See Also: cupyx.scipy.sparse.csr_matrix.maximum (``_maximum_minimum``: a scalar
    that densifies the result does so without a warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", _scipy_sparse().SparseEfficiencyWarning)
        return _broadcasting(obj, name, other)


def _addition(obj: Any, name: str, other: Any) -> Any:
    """See Also: cupyx.scipy.sparse.csr_matrix.__add__ (``_compressed._add``: a nonzero
    scalar refused in one message for ``+`` and ``-``; with a dense operand,
    ``self.todense()`` and the operand, C-ordered)."""
    if numpy.isscalar(other) and other != 0:
        raise NotImplementedError("adding a nonzero scalar to a sparse matrix is not "
                                  "supported")
    if isinstance(other, numpy.ndarray) and other.ndim == 0:
        other = other.reshape(1, 1)  # (a 0-d array is no scalar to CuPy: dense, broadcast)
    if sparse.is_sparse(other) and other.ndim == 1 and obj.shape[0] == 1 and \
            other.shape[0] == obj.shape[1]:  # (a 1-d operand broadcast to one row)
        other = other.tocoo().reshape((1, obj.shape[1])).asformat(obj.format)
    result = sparse.method(obj, name)(other)
    if isinstance(other, numpy.ndarray) and isinstance(result, numpy.ndarray):
        return numpy.ascontiguousarray(result)
    return result


def _true_divide(obj: Any, other: Any) -> Any:
    """See Also: cupyx.scipy.sparse.csr_matrix.__truediv__ (by a dense array: COO, by
    ``_cupy_divide_by_dense``, whose ``T data, ..., raw T other`` take one dtype)."""
    if isinstance(other, numpy.ndarray) and other.ndim > 0 and other.dtype != obj.dtype:
        raise TypeError(f"Type is mismatched. other {other.dtype} {obj.dtype} T")
    return sparse.method(obj, "__truediv__")(other)


def _matrix_power(obj: Any, other: Any) -> Any:
    """See Also: cupyx.scipy.sparse.spmatrix.__pow__ (``_pow_by_squaring``: a matrix to
    the power 0 is ``identity(n, dtype, format='csr')``); a sparse array's ``**`` is its
    ``power``."""
    if not _scipy_sparse().isspmatrix(obj):
        return _power(obj, other)
    if isinstance(other, int) and other == 0 and obj.shape[0] == obj.shape[1]:
        return _scipy_sparse().identity(obj.shape[0], dtype=obj.dtype, format="csr")
    return sparse.method(obj, "__pow__")(other)


def _power(obj: Any, n: Any, dtype: Any = None) -> Any:
    """See Also: cupyx.scipy.sparse.csr_matrix.power (``_data_matrix.power``: CuPy's
    refusals, in its words)."""
    if not (numpy.isscalar(n) or isinstance(n, numpy.ndarray) and n.ndim == 0):
        raise NotImplementedError("input is not scalar")
    if n == 0:
        raise NotImplementedError("zero power is not supported as it would densify the "
                                  "matrix.\nUse cupy.ones(A.shape, dtype=A.dtype) for this "
                                  "case.")
    return obj.power(n, dtype=dtype)


def _transpose(obj: Any, axes: Any = None, copy: bool = False) -> Any:
    """See Also: cupyx.scipy.sparse.csr_matrix.transpose (no ``axes``)."""
    if axes is not None:
        raise ValueError("Sparse matrices do not support an 'axes' parameter because "
                         "swapping dimensions is the only logical permutation.")
    return obj.transpose(copy=copy)


def _setdiag(obj: Any, values: Any, k: int = 0) -> None:
    """See Also: cupyx.scipy.sparse.csr_matrix.setdiag (CSR's, CSC's and COO's: the
    values cast to the matrix's dtype, CuPy's checks and words; DIA has none, as
    ``_spbase.setdiag``)."""
    if obj.format == "dia":
        raise NotImplementedError
    m, n = obj.shape
    if k > 0 and k >= n or k < 0 and -k >= m:
        raise ValueError("k exceeds matrix dimensions")
    values = numpy.asarray(values).astype(obj.dtype, copy=False)
    if values.ndim > 1:
        raise ValueError("values must be 0-d or 1-d")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", _scipy_sparse().SparseEfficiencyWarning)
        obj.setdiag(values, k)


def _setitem(obj: Any, key: Any, value: Any) -> None:
    """See Also: cupyx.scipy.sparse.csr_matrix.__setitem__ (``_compressed._set_many``:
    a new stored element warns 'Changing the sparsity structure of a csr_matrix is
    expensive.', without SciPy's advice on lil and dok)."""
    efficiency = _scipy_sparse().SparseEfficiencyWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        obj[key] = value
    for w in caught:
        if issubclass(w.category, efficiency) and \
                str(w.message).startswith("Changing the sparsity structure"):
            warnings.warn(f"Changing the sparsity structure of a {obj.format}_matrix is "
                          "expensive.", efficiency)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _count_nonzero(obj: Any, axis: Any = None) -> Any:
    """See Also: cupyx.scipy.sparse.csr_matrix.count_nonzero (a Python int; along an
    axis, int64 counts: ``bincount``, ``diff(indptr).astype(intp)``)."""
    if axis is None:
        return int(obj.count_nonzero())
    return numpy.asarray(obj.count_nonzero(axis=axis)).astype(numpy.int64)


def _in_place_scale(obj: Any, name: str, other: Any) -> Any:
    """See Also: cupyx.scipy.sparse.csr_matrix.__imul__ (``_data._data_matrix``: by a
    scalar whose product leaves CuPy's data dtypes (``bool *= 2``), ``self.data`` is
    replaced by one of float64, ``self`` kept; SciPy's raises)."""
    if numpy.isscalar(other) or isinstance(other, numpy.ndarray) and other.ndim == 0:
        factor = 1.0 / other if name == "__itruediv__" else other
        dtype = numpy.result_type(obj.dtype, factor)
        if dtype.char not in "?fdFD":
            dtype = numpy.dtype(numpy.float64)
        if dtype != obj.dtype:
            obj.data = obj.data.astype(dtype) * factor
            return obj
    return sparse.method(obj, name)(other)


def _count_nonzero_1d(obj: Any, axis: Any = None) -> int:
    """See Also: cupyx.scipy.sparse.coo_array.count_nonzero (1-d: the only axis collapses
    to an int; ``_sputils.validate_axis_1d``'s checks, in its words)."""
    if isinstance(axis, tuple):
        if len(axis) != 1:
            raise ValueError("axis out of range for 1-D array")
        axis = operator.index(axis[0])
    if axis not in (None, 0, -1):
        raise ValueError(f"axis {axis} is out of bounds for 1-D array")
    return int(obj.count_nonzero())


def _index_1d(fn: Callable[..., Any], key: Any, *value: Any) -> Any:
    """See Also: cupyx.scipy.sparse.csr_array.__getitem__ (of a 1-d array:
    ``_normalize_1d_key``'s refusals, in its words)."""
    if isinstance(key, tuple):
        if sum(k is Ellipsis for k in key) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        reals = [k for k in key if k is not None and k is not Ellipsis]
        if len(reals) > 1:
            raise IndexError("too many indices for array: array is 1-dimensional, but "
                             f"{len(reals)} were indexed")
    return fn(key, *value)


def _getnnz(obj: Any, axis: Any = None) -> int:
    """See Also: cupyx.scipy.sparse.spmatrix.getnnz (no axis: ``_getnnz`` of every
    format raises ``NotImplementedError``)."""
    if axis is not None:
        raise NotImplementedError(f"getnnz over an axis is not implemented for "
                                  f"{obj.format.upper()} format")
    return obj.getnnz()


def _validate_axis(axis: Any) -> None:
    """CuPy's ``_sputils.validateaxis``."""
    if axis is None:
        return
    if isinstance(axis, tuple):
        raise TypeError("Tuples are not accepted for the 'axis' parameter. Please pass in "
                        "one of the following: {-2, -1, 0, 1, None}.")
    if not numpy.issubdtype(numpy.dtype(type(axis)), numpy.integer):
        raise TypeError(f"axis must be an integer, not {type(axis).__name__}")
    if not -2 <= axis <= 1:
        raise ValueError("axis out of range")


def _extreme(name: str) -> Callable[..., Any]:
    """See Also: cupyx.scipy.sparse.csr_matrix.max (``_minmax_mixin``: no ``out``, CuPy's
    axis checks; ``argmax``/``argmin`` of the whole matrix a 0-d int64 array, or the
    int 0 when nothing is stored)."""
    def call(obj: Any, axis: Any = None, out: Any = None, **kwargs: Any) -> Any:
        if out is not None:
            raise ValueError("Sparse matrices do not support an 'out' parameter.")
        _validate_axis(axis)
        result = getattr(obj, name)(axis=axis, **kwargs)
        if name.startswith("arg") and axis is None and obj.nnz:
            return numpy.asarray(result, dtype=numpy.int64)
        return result
    return call


def _no_member(name: str) -> Callable[..., Any]:
    """COO and DIA lack the ``_getrow``/``_getcol`` that CuPy's ``spmatrix.getrow``/
    ``getcol`` call: an AttributeError."""
    def call(obj: Any, *args: Any, **kwargs: Any) -> Any:
        if obj.format in ("coo", "dia"):
            raise AttributeError(f"'{type(obj).__name__}' object has no attribute "
                                 f"'_{name}'")
        return getattr(obj, name)(*args, **kwargs)
    return call


_SPECIAL: dict[str, Callable[..., Any]] = {
    **{name: functools.partial(lambda name, obj, other: _comparison(obj, name, other), name)
       for name in _COMPARISONS},
    **{name: functools.partial(lambda name, obj, other: _extremum(obj, name, other), name)
       for name in ("maximum", "minimum")},
    **{name: functools.partial(lambda name, obj, other: _addition(obj, name, other), name)
       for name in _ADDITIONS},
    "__truediv__": _true_divide, "__pow__": _matrix_power, "transpose": _transpose,
    "power": lambda obj, n, dtype=None: _power(obj, n, dtype),
    "setdiag": _setdiag, "count_nonzero": _count_nonzero, "getnnz": _getnnz,
    "__setitem__": _setitem,
    **{name: _extreme(name) for name in ("max", "min", "argmax", "argmin")},
    "getrow": _no_member("getrow"), "getcol": _no_member("getcol"),
}


def _dense(fn: Callable[..., Any], order: Any = None, out: Any = None) -> Any:
    """CuPy's dense results are C-ordered unless ``order='F'`` (SciPy's follow the
    format: CSC gives Fortran order)."""
    result = numpy.asarray(fn(order=order, out=out))
    if order is None and out is None and not result.flags.c_contiguous:
        return numpy.ascontiguousarray(result)
    return result


def _no_dia(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("gpushare: only a DIA matrix converts to DIA here (as CuPy's "
                              "todia)")


#: the methods that are (or, for ``spmatrix``, ``*`` is) a matrix product
_PRODUCTS = frozenset({"__matmul__", "__rmatmul__", "dot", "__mul__", "__rmul__"})


def _product(obj: Any, fn: Callable[..., Any], reflected: bool, other: Any) -> Any:
    """A matrix product with a dense operand, with cuSPARSE's error for mismatched
    dimensions (``cupyx/cusparse.py``: ``csrmv``/``csrmm2``/``spmv``/``spmm`` raise
    ``'dimension mismatch'``), restated on SciPy's error path only. A dense matrix
    result of ``sparse @ dense`` is Fortran-ordered, as ``csrmm2``/``spmm`` write it
    (``cupy.zeros((m, n), dtype, 'F')``)."""
    if not reflected and sparse.is_sparse(other) and obj.ndim == 2 and other.ndim == 2 \
            and obj.shape[1] == other.shape[0] and other.shape[1] >= _WIDE_MINOR:
        return _wide_product(obj, other)
    try:
        out = fn(other)
    except ValueError as exc:
        if isinstance(other, numpy.ndarray) and other.ndim in (1, 2) and \
                "dimension mismatch" in str(exc):
            raise ValueError("dimension mismatch") from None
        raise
    if not reflected and type(out) is numpy.ndarray and out.ndim == 2 and \
            isinstance(other, numpy.ndarray) and other.ndim == 2:
        fortran = numpy.empty(out.shape, out.dtype, order="F")  # (its strides too,
        fortran[...] = out                                       # a column's as CuPy's)
        out = fortran
    elif reflected and isinstance(out, numpy.ndarray) and out.ndim == 2:
        out = numpy.ascontiguousarray(out)  # (``_rmatmul_dispatch``: ``(A.T @ x.T).T``)
    return out


def _wide_product(a: Any, b: Any) -> Any:
    """``a @ b`` of sparse operands whose result is very wide, on ``b``'s used columns
    only: O(nnz) space, as CuPy's SpGEMM (SciPy's ``csr_matmat`` keeps two buffers of
    the result's width)."""
    a, b = a.tocsr(), b.tocsr()
    cols = numpy.unique(b.indices)
    narrow = type(b)((b.data, numpy.searchsorted(cols, b.indices), b.indptr),
                     shape=(b.shape[0], max(cols.size, 1)))
    c = (a @ narrow).tocsr()
    return type(c)((c.data, cols[c.indices], c.indptr), shape=(a.shape[0], b.shape[1]))


def _multiply(obj: Any, other: Any) -> Any:
    """See Also: cupyx.scipy.sparse.csr_matrix.multiply (every format multiplies as its
    ``tocsr()``: ``_base.py``; by a scalar, the data scaled; by a dense array,
    ``multiply_by_dense``: a CSR result on the (broadcast) pattern of the canonical
    matrix, explicit zeros kept; by a sparse operand, as CSR with broadcasting)."""
    sp = _scipy_sparse()
    x = obj if obj.format == "csr" else obj.tocsr()
    if numpy.isscalar(other):
        x = x.copy()
        x.data = x.data * other
        return x
    if isinstance(other, numpy.ndarray):
        x = x.copy()
        x.sum_duplicates()
        return _multiply_by_dense(x, numpy.atleast_2d(other))
    if sp.issparse(other):
        return _broadcasting(x, "multiply", other if other.format == "csr" else other.tocsr())
    raise TypeError("expected scalar, dense matrix/vector or csr matrix")


def _multiply_by_dense(x: Any, dn: numpy.ndarray) -> Any:
    """CuPy's ``multiply_by_dense`` of the canonical CSR ``x`` (``_csr.py``)."""
    (sp_m, sp_n), (dn_m, dn_n) = x.shape, dn.shape
    if not (sp_m == dn_m or sp_m == 1 or dn_m == 1) or \
            not (sp_n == dn_n or sp_n == 1 or dn_n == 1):
        raise ValueError("inconsistent shape")
    m, n = max(sp_m, dn_m), max(sp_n, dn_n)
    dtype = numpy.promote_types(x.dtype, dn.dtype)
    rows = numpy.repeat(numpy.arange(sp_m), numpy.diff(x.indptr))
    cols, data = x.indices, x.data
    if m > sp_m:  # (one row, repeated down)
        rows = numpy.repeat(numpy.arange(m), len(cols))
        cols, data = numpy.tile(cols, m), numpy.tile(data, m)
    if n > sp_n:  # (one column, across: each entry once per column, in order)
        rows = numpy.repeat(rows, n)
        cols = numpy.tile(numpy.arange(n), len(data))
        data = numpy.repeat(data, n)
    values = data.astype(dtype) * numpy.broadcast_to(dn, (m, n))[rows, cols].astype(dtype)
    index_dtype = x.indptr.dtype
    indptr = numpy.zeros(m + 1, index_dtype)
    numpy.cumsum(numpy.bincount(rows, minlength=m), out=indptr[1:])
    return type(x)((values, cols.astype(index_dtype), indptr), shape=(m, n))


def _broadcasting(obj: Any, name: str, other: Any) -> Any:
    sp = _scipy_sparse()
    if sp.issparse(other) and obj.ndim == other.ndim == 2 and obj.shape != other.shape:
        (a_m, a_n), (b_m, b_n) = obj.shape, other.shape
        if a_m != b_m and 1 not in (a_m, b_m) or a_n != b_n and 1 not in (a_n, b_n):
            raise ValueError("inconsistent shape")
        shape = (max(a_m, b_m), max(a_n, b_n))
        obj, other = _broadcast_to(obj, shape), _broadcast_to(other, shape)
    return sparse.method(obj, name)(other)


def _broadcast_to(x: Any, shape: tuple) -> Any:
    """The sparse ``x`` (a row, a column or one value) repeated to ``shape``."""
    sp = _scipy_sparse()
    rows, cols = shape[0] // x.shape[0], shape[1] // x.shape[1]
    if rows > 1:
        x = sp.kron(type(x)(numpy.ones((rows, 1), x.dtype)), x, format=x.format)
    if cols > 1:
        x = sp.kron(x, type(x)(numpy.ones((1, cols), x.dtype)), format=x.format)
    return x


def _reduction(fn: Callable[..., Any], axis: Any = None, dtype: Any = None,
               out: Any = None) -> Any:
    """``sum``/``mean`` into CuPy's ``out``: an ndarray of the result's shape (SciPy's
    must be a ``numpy.matrix``)."""
    result = numpy.asarray(fn(axis=axis, dtype=dtype))
    if out is None:
        return result
    if out.shape != result.shape:
        raise ValueError(f"output parameter for reduction has the wrong shape: found "
                         f"{out.shape} but expected {result.shape}")
    out[...] = result
    return out


def _stacking(name: str) -> Callable[..., Any]:
    def stack(*args: Any, **kwargs: Any) -> Any:
        if name in _BLOCK_GRIDS and args:
            _check_blocks(_BLOCK_GRIDS[name](args[0]),
                          kwargs.get("format", args[1] if len(args) > 1 else None))
        if name == "block_diag" and args:
            args = ([_dense_block(b) for b in args[0]],) + args[1:]
        result = getattr(_scipy_sparse(), name)(*args, **kwargs)
        if name in _BLOCK_GRIDS and args:
            result = _as_cupy_bmat(_BLOCK_GRIDS[name](args[0]), kwargs.get(
                "format", args[1] if len(args) > 1 else None), result)
        return result
    return keeps_int64_indices(stack)


def _as_cupy_bmat(grid: list, format: Any, result: Any) -> Any:
    """CuPy's ``bmat`` (``hstack``/``vstack`` too) of no format: CSR or CSC only by its
    ``_compressed_sparse_stack`` fast paths (one block column of CSR, one block row of
    CSC; SciPy's takes any grid of CSR), else COO; int64 indices from a DIA block's
    int64 offsets too (its ``_block_index_dtype``)."""
    flat = [b for row in grid for b in row if b is not None]
    if format is None and sparse.is_sparse(result) and result.format != "coo" and not any(
            ok and all(sparse.is_sparse(b) and b.format == fmt for b in flat)
            for fmt, ok in (("csr", all(len(row) == 1 for row in grid)),
                            ("csc", len(grid) == 1))):
        result = result.tocoo()
    if any(sparse.is_sparse(b) and b.format == "dia" and b.offsets.dtype == numpy.int64
           for b in flat):
        upcast_indices(result)
    return result


def _dense_block(block: Any) -> Any:
    """See Also: cupyx.scipy.sparse.block_diag (``_normalize_dense``: a block not sparse,
    a list, tuple, scalar or array, is a 2-d array; float64 unless of a sparse dtype)."""
    if sparse.is_sparse(block):
        return block
    block = numpy.atleast_2d(numpy.asarray(block))
    if block.dtype.char not in "?fdFD":
        block = block.astype(numpy.float64)
    return block


#: the grid of blocks ``bmat`` builds for each of CuPy's stacking functions
_BLOCK_GRIDS: dict[str, Callable[[Any], list]] = {
    "vstack": lambda blocks: [[b] for b in blocks],
    "hstack": lambda blocks: [list(blocks)],
    "bmat": lambda blocks: [list(row) for row in blocks],
}


def _check_blocks(grid: list, format: Any) -> None:
    """See Also: cupyx.scipy.sparse.bmat (its shape checks, in its words: the CSR
    ``vstack``/CSC ``hstack`` fast path's ``_compressed_sparse_stack``, else each
    block's against its block row and column)."""
    flat = [b for row in grid for b in row if b is not None]
    if not flat or not all(hasattr(b, "shape") and len(b.shape) == 2 for b in flat):
        return
    for fmt, axis, ok in (("csr", 0, len(grid[0]) == 1), ("csc", 1, len(grid) == 1)):
        if ok and format in (None, fmt) and \
                all(sparse.is_sparse(b) and b.format == fmt for b in flat):
            other = 1 - axis
            if any(b.shape[other] != flat[0].shape[other] for b in flat):
                raise ValueError(f"incompatible dimensions for axis {other}")
            return
    rows: dict[int, int] = {}
    cols: dict[int, int] = {}
    for i, row in enumerate(grid):
        for j, b in enumerate(row):
            if b is None:
                continue
            if rows.setdefault(i, b.shape[0]) != b.shape[0]:
                raise ValueError(f"blocks[{i},:] has incompatible row dimensions. Got "
                                 f"blocks[{i},{j}].shape[0] == {b.shape[0]}, expected "
                                 f"{rows[i]}.")
            if cols.setdefault(j, b.shape[1]) != b.shape[1]:
                raise ValueError(f"blocks[:,{j}] has incompatible column dimensions. Got "
                                 f"blocks[{i},{j}].shape[1] == {b.shape[1]}, expected "
                                 f"{cols[j]}.")


def _eye(m: int, n: Any = None, k: int = 0, dtype: Any = "d", format: Any = None) -> Any:
    """See Also: cupyx.scipy.sparse.eye (a CSR, CSC or COO result is built by its
    constructor, which refuses dtypes other than bool, float and complex; DIA's
    does not)."""
    if format not in (None, "dia"):
        check_dtype(dtype)
    return _scipy_sparse().eye(m, n, k=k, dtype=dtype, format=format)


def _identity(n: int, dtype: Any = "d", format: Any = None) -> Any:
    return _eye(n, n, dtype=dtype, format=format)


def _spsolve(A: Any, b: Any) -> Any:
    """See Also: cupyx.scipy.sparse.linalg.spsolve (CuPy's checks, in its order and words,
    and its warning for a matrix not in CSR; ``b`` cast to ``A``'s dtype, a 2-D result
    F-ordered; ``sparse/linalg/_solve.py``)."""
    import warnings
    if not sparse.is_sparse(A):
        raise TypeError("A must be cupyx.scipy.sparse.spmatrix")
    if not isinstance(b, numpy.ndarray):
        raise TypeError("b must be cupy.ndarray")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square matrix (A.shape: {A.shape})")
    if not (b.ndim == 1 or b.ndim == 2):
        raise ValueError(f"Invalid b.shape (b.shape: {b.shape})")
    if A.shape[0] != b.shape[0]:
        raise ValueError(f"matrix dimension mismatch (A.shape: {A.shape}, b.shape: "
                         f"{b.shape})")
    if A.format != "csr":
        warnings.warn("CSR format is required. Converting to CSR format.",
                      _scipy_sparse().SparseEfficiencyWarning)
        A = A.tocsr()
    b = b.astype(A.dtype, copy=False)
    solve = scipy_module("scipy.sparse.linalg", "cupyx.scipy.sparse.linalg.spsolve").spsolve
    x = numpy.asarray(solve(A, b)).astype(A.dtype, copy=False)
    return numpy.asfortranarray(x) if b.ndim > 1 else x


def _lsqr(A: Any, b: Any) -> Any:
    """See Also: cupyx.scipy.sparse.linalg.lsqr (CuPy's checks, and its result: a
    direct solve, cuSOLVER's ``csrlsvqr``, as float64, then nine ``None``;
    ``sparse/linalg/_solve.py``)."""
    if not (sparse.is_sparse(A) and A.format == "csr"):
        A = _scipy_sparse().csr_matrix(A)
    if A.shape[0] != A.shape[1]:
        raise numpy.linalg.LinAlgError("Last 2 dimensions of the array must be square")
    if not isinstance(b, numpy.ndarray):
        raise numpy.linalg.LinAlgError("cupy.linalg only supports cupy.ndarray")
    if A.indices.dtype == numpy.int64:
        raise ValueError("lsqr does not support int64 indices (cuSPARSE lsqr is "
                         "int32-only)")
    if b.ndim != 1 or len(b) != A.shape[0]:
        raise ValueError("b must be 1-d array whose size is same as A")
    dtype = A.dtype if A.dtype.char in "fd" else numpy.promote_types(A.dtype, "f")
    solve = scipy_module("scipy.sparse.linalg", "cupyx.scipy.sparse.linalg.lsqr").spsolve
    x = numpy.asarray(solve(A.astype(dtype), b.astype(dtype))).astype(dtype)
    return (x.astype(numpy.float64),) + (None,) * 9


def _lsmr(A: Any, b: Any, x0: Any = None, damp: float = 0.0, atol: float = 1e-6,
          btol: float = 1e-6, conlim: float = 1e8, maxiter: Any = None) -> Any:
    """See Also: cupyx.scipy.sparse.linalg.lsmr (SciPy's iteration, which CuPy's
    follows; as CuPy, ``x`` is float64 and the norms are host floats, not arrays)."""
    lsmr = scipy_module("scipy.sparse.linalg", "cupyx.scipy.sparse.linalg.lsmr").lsmr
    x, istop, itn, *norms = lsmr(A, numpy.squeeze(b), damp=damp, atol=atol, btol=btol,
                                 conlim=conlim, maxiter=maxiter, x0=x0)
    return (numpy.asarray(x).astype(numpy.float64), int(istop), int(itn),
            *(float(v) for v in norms))


def _sparse_matrix_power(A: Any, power: Any) -> Any:
    """See Also: cupyx.scipy.sparse.linalg.matrix_power (``_pow_by_squaring``: its checks
    in its order and words; to the power 0 a CSR identity array, of ``A``'s dtype)."""
    m, n = A.shape
    if m != n:
        raise TypeError("sparse matrix is not square")
    try:
        power = operator.index(power)
    except TypeError:
        raise ValueError("exponent must be an integer") from None
    if power < 0:
        raise ValueError("exponent must be >= 0")
    if power == 0:
        return _scipy_sparse().eye_array(m, dtype=A.dtype, format="csr")
    return scipy_module("scipy.sparse.linalg", "cupyx.scipy.sparse.linalg").matrix_power(
        A, power)


def _frobenius_norm(x: Any) -> Any:
    if numpy.issubdtype(x.dtype, numpy.complexfloating):
        sqnorm = method(abs(x).power(2), "sum")()
    else:
        sqnorm = method(x.power(2), "sum")()
    return numpy.sqrt(sqnorm)


def norm(x: Any, ord: Any = None, axis: Any = None) -> Any:
    """See Also: cupyx.scipy.sparse.linalg.norm (CuPy's port of SciPy's: its checks in
    its order, ``NotImplementedError`` for the matrix 2-norms, its results' shapes and
    dtypes)."""
    if not _scipy_sparse().issparse(x):
        raise TypeError("input is not sparse. use cupy.linalg.norm")
    if axis is None and ord in (None, "fro", "f"):
        return _frobenius_norm(x)
    x = x.tocsr()
    if axis is None:
        axis = (0, 1)
    elif not isinstance(axis, tuple):
        msg = "'axis' must be None, an integer or a tuple of integers"
        try:
            int_axis = int(axis)
        except TypeError:
            raise TypeError(msg) from None
        if axis != int_axis:
            raise TypeError(msg)
        axis = (int_axis,)

    def total(y: Any, along: int) -> Any:
        return method(y, "sum")(axis=along)

    nd = 2
    if len(axis) == 2:
        row_axis, col_axis = axis
        if not (-nd <= row_axis < nd and -nd <= col_axis < nd):
            raise ValueError("Invalid axis %r for an array with shape %r" % (axis, x.shape))
        if row_axis % nd == col_axis % nd:
            raise ValueError("Duplicate axes given.")
        if ord == 2 or ord == -2:
            raise NotImplementedError
        elif ord == 1:
            return total(abs(x), row_axis).max()
        elif ord == numpy.inf:
            return total(abs(x), col_axis).max()
        elif ord == -1:
            return total(abs(x), row_axis).min()
        elif ord == -numpy.inf:
            return total(abs(x), col_axis).min()
        elif ord in (None, "f", "fro"):
            return _frobenius_norm(x)
        else:
            raise ValueError("Invalid norm order for matrices.")
    elif len(axis) == 1:
        a, = axis
        if not (-nd <= a < nd):
            raise ValueError("Invalid axis %r for an array with shape %r" % (axis, x.shape))
        if ord == numpy.inf:
            return numpy.asarray(abs(x).max(axis=a).toarray()).ravel()
        elif ord == -numpy.inf:
            return numpy.asarray(abs(x).min(axis=a).toarray()).ravel()
        elif ord == 0:
            return total((x != 0).astype(numpy.float32), a).ravel().astype(numpy.int_)
        elif ord == 1:
            return total(abs(x), a).ravel()
        elif ord in (2, None):
            return numpy.sqrt(total(abs(x).power(2), a)).ravel()
        else:
            try:
                ord + 1
            except TypeError:
                raise ValueError("Invalid norm order for vectors.") from None
            return numpy.power(total(abs(x).power(ord), a), 1 / ord).ravel()
    else:
        raise ValueError("Improper number of dimensions to norm.")


SPARSE_OVERRIDES: dict[str, Callable[..., Any]] = {
    "cupyx.scipy.sparse.linalg.spsolve": _spsolve,
    "cupyx.scipy.sparse.linalg.lsqr": _lsqr,
    "cupyx.scipy.sparse.linalg.lsmr": _lsmr,
    "cupyx.scipy.sparse.linalg.norm": norm,
    "cupyx.scipy.sparse.linalg.matrix_power": keeps_int64_indices(_sparse_matrix_power),
    **{f"cupyx.scipy.sparse.{name}": _stacking(name) for name in (
        "vstack", "hstack", "bmat", "block_array", "block_diag", "tril", "triu")},
    **{f"cupyx.scipy.sparse.{name}": _constructor(name) for name in SPARSE_CLASSES},
    "cupyx.scipy.sparse.kron": _kron_kept,
    "cupyx.scipy.sparse.eye": _eye,
    "cupyx.scipy.sparse.identity": _identity,
    "cupyx.scipy.sparse.random": _random,
    "cupyx.scipy.sparse.rand": _rand,
    "cupyx.scipy.sparse.diags": _diags,
    "cupyx.scipy.sparse.diags_array": _diags_array,
    "cupyx.scipy.sparse.matrix_transpose": _matrix_transpose,
    "cupyx.scipy.sparse.permute_dims": _permute_dims,
    "cupyx.scipy.sparse.swapaxes": _swapaxes,
}
