"""gpushare's ``cupyx.scipy.sparse`` matrices and arrays: objects on the server.

A ``csr_matrix`` (or any of ``namespace.SPARSE_CLASSES``) here is a handle of the server's
sparse object: constructing one, its methods and its operators are calls, its attributes
(``data``, ``indices``, ``shape``, ``nnz``...) are read from the server, and ``get()``
builds SciPy's object from them, as CuPy's does. The classes keep CuPy's hierarchy
(``spmatrix``, ``sparray``), so ``isinstance`` and ``issparse`` answer as CuPy's.
The server side is ``gpushare_server/backends/sparse.py``.
"""
from __future__ import annotations

import importlib.util
import operator
import types
import warnings
from typing import Any

import numpy

from ...cupy import _objects
from ...namespace import (SPARSE_ATTRIBUTES, SPARSE_FORMAT_LACKS, SPARSE_MATRIX_ONLY,
                          SPARSE_METHODS, SPARSE_SETTABLE)

_MODULE = "cupyx.scipy.sparse"
_FORMAT_NAMES = {"csr": "Compressed Sparse Row", "csc": "Compressed Sparse Column",
                 "coo": "COOrdinate", "dia": "DIAgonal"}
#: each format's arrays, in the order of its ``(data, ...)`` initializer
_PARTS = {"csr": ("data", "indices", "indptr"), "csc": ("data", "indices", "indptr"),
          "coo": ("data", "row", "col"), "dia": ("data", "offsets")}


def _is_scipy_sparse(value: Any) -> bool:
    """A SciPy sparse matrix or array (looked up without importing SciPy)."""
    return type(value).__module__.startswith("scipy.sparse") and hasattr(value, "asformat")


class _spbase(_objects.RemoteObjectProxy):
    """See Also: cupyx.scipy.sparse.spmatrix (an object on the gpushare server)."""

    __slots__ = ()
    __array_priority__ = 101
    __hash__ = None  # type: ignore[assignment]  # (it compares elementwise)
    format: str = ""
    __class_getitem__ = classmethod(types.GenericAlias)  # (``csr_matrix[float]``: typing)

    def __new__(cls, arg1: Any, shape: Any = None, dtype: Any = None,
                copy: bool = False, *, maxprint: Any = None) -> Any:
        if cls.format == "":
            raise ValueError("This class is not intended to be instantiated directly.")
        canonical = None
        if _is_scipy_sparse(arg1):  # as CuPy's: SciPy's object, copied to the device
            if cls.format == "coo":  # (and SciPy's flag kept: ``_coo.py``)
                canonical = bool(arg1.tocoo().has_canonical_format)
            arg1, shape = _from_scipy(arg1, cls.format), arg1.shape if shape is None else shape
        extra = {} if maxprint is None else {"maxprint": maxprint}
        made = _objects.create(cls, f"{_MODULE}.{cls.__name__}", cls.__name__, arg1,
                               shape=shape, dtype=dtype, copy=copy, **extra)
        if canonical is not None:
            made.has_canonical_format = canonical
        if maxprint is not None:
            _maxprints(made)[made._gs_id] = maxprint
        return made

    @property
    def maxprint(self) -> Any:
        """CuPy's ``maxprint`` (50 unless given to the constructor or set)."""
        return _maxprints(self).get(self._gs_id, 50)

    @maxprint.setter
    def maxprint(self, value: Any) -> None:
        _maxprints(self)[self._gs_id] = value

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if name not in _KEEPS_META:
            _metas(self).pop(self._gs_id, None)
        return super()._call(name, *args, **kwargs)

    def get(self, stream: Any = None) -> Any:
        """A copy on the host: SciPy's sparse object of the same format and kind."""
        if importlib.util.find_spec("scipy") is None:
            raise RuntimeError("scipy is not available")
        import scipy.sparse
        kind = "array" if isinstance(self, sparray) else "matrix"
        sp_cls = getattr(scipy.sparse, f"{self.format}_{kind}")
        host = [getattr(self, name).get(stream) for name in _PARTS[self.format]]
        if self.format in ("csr", "csc"):
            return sp_cls(tuple(host), shape=self.shape)
        if self.format == "coo":
            return sp_cls((host[0], (host[1], host[2])), shape=self.shape)
        return sp_cls((host[0], host[1]), shape=self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def device(self) -> Any:
        """CUDA device on which this object resides (CuPy 14.2's: not implemented)."""
        raise NotImplementedError

    @property
    def mT(self) -> Any:
        """The matrix transpose (of the last two axes: here, the transpose)."""
        return self.transpose()

    def __reduce__(self) -> tuple:
        """Pickled as CuPy's are: the format's arrays (their data) and the shape."""
        return _rebuild, (type(self).__name__, tuple(getattr(self, name)
                                                     for name in _PARTS[self.format]),
                          self.shape)

    def __len__(self) -> int:
        raise TypeError("sparse array length is ambiguous; use shape[0] or .nnz")

    def __iter__(self) -> Any:
        for i in range(self.shape[0]):
            yield self[i] if self.ndim == 1 else self[i, :]

    def __bool__(self) -> bool:
        if self.shape == (1, 1):
            return bool(self.nnz != 0)
        raise ValueError("The truth value of an array with more than one element is "
                         "ambiguous. Use a.any() or a.all().")

    def __repr__(self) -> str:
        kind = "array" if isinstance(self, sparray) else "matrix"
        return (f"<{_FORMAT_NAMES[self.format]} sparse {kind} of dtype '{self.dtype}'\n"
                f"\twith {self.nnz} stored elements and shape {self.shape}>")

    def __str__(self) -> str:
        return self._call("__str__")

    def __dir__(self) -> list:
        lacks = SPARSE_FORMAT_LACKS.get(self.format, ())
        return [name for name in super().__dir__() if name not in lacks]


class _Lacking:
    """A member of ``SPARSE_METHODS``/``SPARSE_ATTRIBUTES`` a format's CuPy classes lack
    (``SPARSE_FORMAT_LACKS``): an AttributeError, in Python's words."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            raise AttributeError(f"type object '{owner.__name__}' has no attribute "
                                 f"'{self.name}'")
        raise AttributeError(f"'{type(obj).__name__}' object has no attribute "
                             f"'{self.name}'")


#: the methods after which a sparse object's shape and dtype are those they were (they
#: make new objects, or read); any other call, or a setattr, forgets what was read
_KEEPS_META = frozenset(SPARSE_METHODS) - {
    "set_shape", "setdiag", "sort_indices", "sum_duplicates", "eliminate_zeros", "prune",
    "__iadd__", "__isub__", "__imul__", "__itruediv__", "__setitem__"}


def _maxprints(obj: Any) -> dict:
    """The session's ``maxprint`` of its sparse objects given one, by handle id."""
    return obj._gs_session.__dict__.setdefault("_sparse_maxprint", {})


def _metas(obj: Any) -> dict:
    """The session's (shape, dtype) of its sparse objects, by handle id, as last read."""
    return obj._gs_session.__dict__.setdefault("_sparse_meta", {})


def _meta(obj: Any) -> tuple:
    """``(shape, dtype)`` of the sparse object ``obj``: read from the server once, then
    kept until a call that may change them."""
    metas = _metas(obj)
    meta = metas.get(obj._gs_id)
    if meta is None:
        s = obj._gs_session
        shape = tuple(s.call("getattr", "shape", (obj,)))
        dtype = numpy.dtype(s.call("getattr", "dtype", (obj,)))
        meta = metas[obj._gs_id] = (shape, dtype)
    return meta


def _attribute(name: str) -> property:
    def fget(self: Any) -> Any:
        if name == "shape":
            return _meta(self)[0]
        if name == "dtype":
            return _meta(self)[1]
        return self._gs_session.call("getattr", name, (self,))

    def fset(self: Any, value: Any) -> None:
        _metas(self).pop(self._gs_id, None)
        self._gs_session.call("setattr", name, (self, value))
    return property(fget, fset if name in SPARSE_SETTABLE else None,
                    doc=f"See Also: {_MODULE}.spmatrix.{name}")


class spmatrix:
    """See Also: cupyx.scipy.sparse.spmatrix (the matrix kind: ``*`` multiplies
    matrices)."""

    __slots__ = ()

    @property
    def A(self) -> Any:
        warnings.warn("`spmatrix.A` is deprecated; use `.toarray()` instead.",
                      DeprecationWarning, stacklevel=2)
        return self.toarray()  # type: ignore[attr-defined]

    @property
    def H(self) -> Any:
        warnings.warn("`spmatrix.H` is deprecated; use `.T.conj()` instead.",
                      DeprecationWarning, stacklevel=2)
        return self.transpose().conj()  # type: ignore[attr-defined]


for _name in SPARSE_METHODS:
    setattr(spmatrix if _name in SPARSE_MATRIX_ONLY else _spbase, _name, _objects.remote_method(
        _name, f"See Also: {_MODULE}.spmatrix.{_name} (run on the gpushare server)."))
for _name in SPARSE_ATTRIBUTES:
    setattr(_spbase, _name, _attribute(_name))


def _product(name: str) -> Any:
    """``A.dot(x)`` and ``A @ x`` of a dense device array: every format reaches CuPy's
    ``csrmv``/``spmv`` (1-d ``x``) or ``csrmm2``/``spmm`` (2-d), which write
    ``cupy.zeros(m, dtype)`` or ``cupy.zeros((m, n), dtype, 'F')`` of
    ``promote_types(A.dtype, x.dtype)``, so the call is queued with that result (a
    ``LinearOperator``'s ``matvec`` is a product with one column); anything else runs
    on the server, and waits."""
    remote = _objects.remote_method(name)

    def call(self: Any, other: Any) -> Any:
        from ...cupy import _infer
        from ...cupy._ndarray import ndarray
        from ...cupy._routines import _submit
        if type(other) is ndarray and other.ndim in (1, 2) and \
                other._gs_session is self._gs_session:
            shape, dtype = _meta(self)
            if len(shape) == 2 and shape[1] == other._shape[0] and dtype.char in "fdFD":
                out = numpy.promote_types(dtype, other.dtype)
                if out.char in "fdFD":
                    result = (shape[0],) + other._shape[1:]
                    return _submit(self._gs_session, name, (self, other), {}, result, out,
                                   strides=_infer.f_strides(result, out.itemsize),
                                   op="method", description=f"{self._type_name}.{name}")
        return remote(self, other)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"See Also: {_MODULE}.spmatrix.{name} (of a dense vector: queued)"
    return call


for _name in ("dot", "__matmul__"):
    setattr(_spbase, _name, _product(_name))
# CuPy's ``T`` is ``self.transpose()`` (``_base.py``): a DIA matrix's is CSC
_spbase.T = property(lambda self: self.transpose(),  # type: ignore[attr-defined]
                     doc=f"See Also: {_MODULE}.spmatrix.T (its transpose())")


class sparray:
    """See Also: cupyx.scipy.sparse.sparray (the array kind: ``*`` multiplies
    elementwise)."""

    __slots__ = ()


def _rebuild(name: str, parts: tuple, shape: tuple) -> Any:
    cls = _objects._CLASSES[name]
    if cls.format == "coo":
        return cls((parts[0], (parts[1], parts[2])), shape=shape)
    return cls(parts, shape=shape)


def _from_scipy(x: Any, fmt: str) -> tuple:
    """SciPy's sparse ``x`` as CuPy's ``(data, ...)`` initializer of format ``fmt``, its
    arrays on the device."""
    from ... import cupy
    x = x.asformat(fmt)
    if fmt in ("csr", "csc"):
        return (cupy.array(x.data), cupy.array(x.indices), cupy.array(x.indptr))
    if fmt == "coo":
        if len(x.shape) == 1:  # (a 1-d array's one coordinate array)
            return (cupy.array(x.data), (cupy.array(x.coords[0]),))
        return (cupy.array(x.data), (cupy.array(x.row), cupy.array(x.col)))
    return (cupy.array(x.data), cupy.array(x.offsets))


def _isintlike(x: Any) -> bool:
    """CuPy's ``_sputils.isintlike``: an integer, or a 0-d value equal to its int."""
    try:
        operator.index(x)
        return True
    except TypeError:
        pass
    if getattr(x, "ndim", 0) != 0:
        return False
    try:
        return bool(int(x) == x)
    except (TypeError, ValueError):
        return False


def _check_shape(shape: Any, allow_nd: tuple) -> tuple:
    """CuPy's ``_util.check_shape``: ``shape`` as a tuple of ints, in its words."""
    msg = ("invalid shape (must be a 2-tuple of int)" if allow_nd == (2,) else
           f"invalid shape (must be a tuple of int with length in {allow_nd})")
    try:
        shape = tuple(shape)
    except TypeError:
        raise ValueError(msg) from None

    if len(shape) not in allow_nd or not all(
            not isinstance(v, tuple) and _isintlike(v) for v in shape):
        raise ValueError(msg)
    out = tuple(int(v) for v in shape)
    if any(v < 0 for v in out):
        raise ValueError("'shape' elements cannot be negative")
    return out


def _set_parts(made: Any, names: tuple, parts: tuple) -> None:
    """``made``'s index arrays replaced by ``parts`` where the constructor changed their
    dtype (it downcasts int64 indices whose values fit in int32; ``_from_parts`` keeps
    them as given)."""
    for name, part in zip(names, parts):
        if getattr(made, name).dtype != part.dtype:
            setattr(made, name, part)


def _compressed_from_parts(cls: Any, data: Any, indices: Any, indptr: Any, shape: Any,
                           has_canonical_format: Any = None,
                           has_sorted_indices: Any = None) -> Any:
    """CuPy's private ``_from_parts`` (``_compressed.py``): a matrix of these arrays as
    given, int64 indices kept, after CuPy's checks in its words."""
    allow_nd = (1, 2) if issubclass(cls, sparray) and cls.format == "csr" else (2,)
    shape = _check_shape(shape, allow_nd)
    if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1:
        raise ValueError(f"data, indices, and indptr must be 1-D, got ndim "
                         f"{data.ndim}, {indices.ndim}, {indptr.ndim}")
    if indices.dtype != indptr.dtype:
        raise ValueError(f"indices and indptr must have the same dtype, "
                         f"got {indices.dtype} and {indptr.dtype}")
    if has_canonical_format is True and has_sorted_indices is False:
        raise ValueError("has_canonical_format=True implies sorted indices, "
                         "but has_sorted_indices=False was passed")
    if data.size != indices.size:
        raise ValueError(f"data and indices must have the same length, "
                         f"got {data.size} and {indices.size}")
    shape_2d = (1, shape[-1]) if len(shape) == 1 else shape
    major = shape_2d[1 if cls.format == "csc" else 0]
    if indptr.size != major + 1:
        raise ValueError(f"indptr has length {indptr.size}, "
                         f"expected {major + 1} (major axis + 1)")
    idx_max = numpy.iinfo(indices.dtype).max
    if max(shape) > idx_max:
        raise ValueError(f"shape {shape} too large for index dtype {indices.dtype}")
    if data.size > idx_max:
        raise ValueError(f"nnz {data.size} too large for index dtype {indices.dtype}")
    made = cls((data, indices, indptr), shape=shape)
    _set_parts(made, ("indices", "indptr"), (indices, indptr))
    if has_canonical_format is not None:
        made.has_canonical_format = has_canonical_format
    if has_sorted_indices is not None:
        made.has_sorted_indices = has_sorted_indices
    return made


def _coo_from_parts(cls: Any, data: Any, row: Any, col: Any, shape: Any,
                    has_canonical_format: bool = False) -> Any:
    """CuPy's private ``_from_parts`` (``_coo.py``): a COO matrix of these arrays as
    given, int64 indices kept, after CuPy's checks in its words."""
    shape = _check_shape(shape, (1, 2) if issubclass(cls, sparray) else (2,))
    if data.ndim != 1 or row.ndim != 1 or col.ndim != 1:
        raise ValueError(f"data, row, and col must be 1-D, got ndim "
                         f"{data.ndim}, {row.ndim}, {col.ndim}")
    if row.dtype != col.dtype:
        raise ValueError(f"row and col must have the same dtype, "
                         f"got {row.dtype} and {col.dtype}")
    if data.size != row.size or data.size != col.size:
        raise ValueError(f"data, row, and col must have the same length, "
                         f"got {data.size}, {row.size}, and {col.size}")
    if max(shape) > numpy.iinfo(row.dtype).max:
        raise ValueError(f"shape {shape} too large for index dtype {row.dtype}")
    if len(shape) == 1:
        made = cls((data, (col,)), shape=shape)
        _set_parts(made, ("col",), (col,))
    else:
        made = cls((data, (row, col)), shape=shape)
        _set_parts(made, ("row", "col"), (row, col))
    made.has_canonical_format = has_canonical_format
    return made


def classes() -> dict[str, type]:
    """The module's classes: the bases and one class per format and kind."""
    made: dict[str, type] = {"spmatrix": spmatrix, "sparray": sparray}
    for fmt in _FORMAT_NAMES:
        base = type(f"_{fmt}_base", (_spbase,), {
            "__slots__": (), "format": fmt, "__module__": _MODULE,
            **{name: _Lacking(name) for name in SPARSE_FORMAT_LACKS[fmt]},
            **({"_from_parts": classmethod(_coo_from_parts)} if fmt == "coo" else
               {"_from_parts": classmethod(_compressed_from_parts)} if fmt != "dia" else {})})
        for kind, mixin in (("matrix", spmatrix), ("array", sparray)):
            name = f"{fmt}_{kind}"
            bases = (mixin, base) if kind == "matrix" else (base, mixin)
            made[name] = _objects.register(name)(type(name, bases, {
                "__slots__": (), "__module__": _MODULE,
                "__doc__": f"{_MODULE}.{name}, an object on the gpushare server.\n\n"
                           f"See Also\n--------\n{_MODULE}.{name}"}))
    return made


def predicates(made: dict[str, type]) -> dict[str, Any]:
    """``issparse``, ``isspmatrix`` and ``isspmatrix_<format>``: answered here."""
    def issparse(x: Any) -> bool:
        return isinstance(x, _spbase)

    def isspmatrix(x: Any) -> bool:
        return isinstance(x, spmatrix)
    found = {"issparse": issparse, "isspmatrix": isspmatrix}
    for fmt in _FORMAT_NAMES:
        cls = made[f"{fmt}_matrix"]
        found[f"isspmatrix_{fmt}"] = (lambda cls: lambda x: isinstance(x, cls))(cls)
    return found
