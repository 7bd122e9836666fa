"""gpushare's ``cupy``: CuPy's namespace, with every array living on a gpushare server.

This module reads like a table (see ``_cupy_names.json`` and ``gpushare.namespace``):

* NumPy's own objects (dtypes, ``newaxis``, ``pi``, ``finfo``...) are re-exported as
  they are, so ``cupy.float32 is numpy.float32``;
* ufuncs are client ``ufunc`` objects (``_ufunc.py``) that pipeline when they can;
* functions listed in ``LOCAL`` run on the client (host files, metadata questions);
* functions listed in ``PIPELINED`` return a proxy at once, with the shape and dtype
  inferred here;
* every other public function is forwarded by name and waits for its result.
"""
from __future__ import annotations

import builtins
import math
import operator
import sys
import types
from typing import Any

import numpy

from .. import _public, ufunc_loops
from ..cython_args import NDARRAY_BASE, argument_type_error
_public.install()  # (before any submodule: they name themselves as CuPy's)
from ..layouts import creation_layout as _creation_layout  # noqa: E402
from ..protocol import STREAM_MIN
from ..namespace import module_names
from ..structured import get_typename as _get_typename, unsupported_dtype as _unsupported_dtype
from . import _infer
from ._ndarray import (FLAG_C, FLAG_F, FLAG_OWN, _contiguity, _new, _session_of, given, ndarray,
                       session)
from ._ufunc import UFUNCS, ufunc

__version__ = "14.2.0"
_NAMES = module_names("cupy")


def _remote(path: str, name: str | None = None) -> Any:
    """A function that runs ``path`` on the server and waits for its result."""
    def fn(*args: Any, **kwargs: Any) -> Any:
        s = next((x for x in map(_session_of, args) if x is not None), None) or session()
        return s.call("call", path, args, kwargs)
    fn.__name__ = fn.__qualname__ = name or path.rpartition(".")[2]
    fn.__module__ = path.rpartition(".")[0]
    fn.__doc__ = f"Runs ``{path}`` on the server.\n\nSee Also\n--------\n{path}"
    return fn


def _export_table(module: types.ModuleType, cupy_module: str, numpy_module: Any,
                  local: dict[str, Any]) -> None:
    """Fill ``module`` with CuPy's public names for ``cupy_module``."""
    for name, kind in module_names(cupy_module).items():
        if name in local:
            setattr(module, name, local[name])
        elif kind in ("numpy_type", "numpy_obj") or kind.startswith("constant:float") or \
                kind == "constant:NoneType":
            value = getattr(numpy_module, name, None)
            if value is None:
                value = getattr(numpy.exceptions, name, None)
            if value is None and name in ("Inf", "Infinity", "infty", "PINF"):
                value = numpy.inf
            elif value is None and name in ("NAN", "NaN"):
                value = numpy.nan
            elif value is None and name == "NINF":
                value = -numpy.inf
            elif value is None and name == "PZERO":
                value = 0.0
            elif value is None and name == "NZERO":
                value = -0.0
            elif value is None and name in ("bool",):
                value = numpy.bool_
            elif value is None and name == "float_":
                value = numpy.float64
            elif value is None and name == "complex_":
                value = numpy.complex128
            elif value is None and name == "cfloat":
                value = numpy.complex128
            elif value is None and name == "singlecomplex":
                value = numpy.complex64
            elif value is None and name == "RankWarning":
                value = numpy.exceptions.RankWarning
            elif value is None and name == "ModuleDeprecationWarning":
                value = numpy.exceptions.ModuleDeprecationWarning
            elif value is None and name == "DataSource":
                value = numpy.lib.npyio.DataSource
            elif value is None and name == "format_parser":
                value = numpy.rec.format_parser
            if value is not None:
                setattr(module, name, value)
        elif kind == "ufunc" and cupy_module == "cupy":
            setattr(module, name, UFUNCS.get(name) or ufunc(name, cupy_module))
        elif kind == "ufunc" and cupy_module == "cupyx.scipy.special" and \
                name not in ufunc_loops.SPECIAL and name in UFUNCS:
            setattr(module, name, UFUNCS[name])  # (``sinc``: CuPy's is cupy.sinc)
        elif kind == "ufunc":  # (cupyx.scipy.special.log1p is not cupy.log1p: its
            # loops differ, so NumPy's namesake cannot infer its result; CuPy's own
            # loops do, ``ufunc_loops.SPECIAL``)
            loops = ufunc_loops.SPECIAL.get(name) if cupy_module == "cupyx.scipy.special" \
                else None
            setattr(module, name, ufunc(name, cupy_module, numpy_ufunc=False,
                                        loops=loops and ufunc_loops.Loops(*loops)))
        elif kind in ("function", "class"):
            setattr(module, name, _remote(f"{cupy_module}.{name}", name))


# --- creation: pipelined, with the layout known here ---------------------------------
def _shape_tuple(shape: Any) -> tuple:
    """CuPy's ``internal.get_size`` and ``ndarray._init``'s checks of a shape (its
    words: Cython's ``Py_ssize_t`` conversion of each entry)."""
    if type(shape) is int:
        shape = (shape,)
    elif type(shape) is not tuple:
        if shape is None:
            raise TypeError("Use () not None as shape arguments")
        if hasattr(type(shape), "__getitem__") and not isinstance(shape, dict):
            try:  # (a sequence; a 0-d NumPy array is one entry)
                shape = tuple(shape)
            except TypeError:
                shape = (shape,)
        else:
            shape = (shape,)
    for n in shape:
        if isinstance(n, (builtins.bool, numpy.bool_)) or (
                isinstance(n, numpy.ndarray) and n.shape == () and n.dtype == numpy.bool_):
            raise TypeError("an integer is required")
    if len(shape) > 64:
        raise ValueError("maximum supported dimension for an ndarray is 64, "
                         f"found {len(shape)}")
    shape = tuple(int(operator.index(n)) for n in shape)
    for n in shape:
        if n < 0:
            raise ValueError("Negative dimensions are not allowed")
    return shape


def _create(name: str, shape: tuple, dtype: Any, order: Any, args: tuple = (),
              kwargs: dict | None = None) -> ndarray:
    # ``cupy.ndarray(shape, dtype, order=order)``: C strides only for 'C' (K and A too
    # give a Fortran-ordered array, as CuPy's ``_init``)
    f_order = _creation_layout(order) == "F"
    dt = _device_dtype(dtype)
    if dt.fields is not None and name != "empty" and name != "zeros":
        _get_typename(dt)  # CuPy fills it with a kernel: its struct type's checks
    s = session()
    hid = s.new_id()
    kw = dict(kwargs or {})
    kw.update(dtype=dt, order="F" if f_order else "C")
    s.submit("call", f"cupy.{name}", (shape, *args), kw, out_id=hid,
             description=f"cupy.{name}")
    # (a big allocation waits in ``_new``: OutOfMemoryError is raised here, as CuPy's)
    strides = (_infer.f_strides if f_order else _infer.c_strides)(shape, dt.itemsize)
    c, f = _contiguity(shape, strides, dt.itemsize)
    return _new(s, hid, shape, dt, strides, (FLAG_C if c else 0) | (FLAG_F if f else 0) |
                FLAG_OWN, None)


def _device_dtype(dtype: Any) -> numpy.dtype:
    """CuPy keeps arrays in native byte order and refuses others, and dtypes it has no C
    type for (``check_supported_dtype``: long doubles, strings, objects...)."""
    dt = numpy.dtype(dtype)
    if dt.byteorder == ">":
        raise ValueError(f"Unsupported dtype {dt} with big-endian byte-order")
    if not dt.isnative:
        raise ValueError(f"Unsupported dtype {dt} with non-native byte-order")
    if dt.subdtype is not None or dt.hasobject or dt.itemsize == 0 or dt.kind in "USMm" or \
            dt.char in "gG":
        raise ValueError(f"Unsupported dtype {dt}")
    return dt


def empty(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    """See Also: cupy.empty"""
    return _create("empty", _shape_tuple(shape), dtype, order)


def zeros(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    """See Also: cupy.zeros"""
    return _create("zeros", _shape_tuple(shape), dtype, order)


def ones(shape: Any, dtype: Any = float, order: str = "C") -> ndarray:
    """See Also: cupy.ones"""
    return _create("ones", _shape_tuple(shape), dtype, order)


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C") -> ndarray:
    """See Also: cupy.full"""
    if dtype is None and not isinstance(fill_value, ndarray):
        # CuPy makes ``ndarray(shape, numpy.array(fill_value).dtype)`` first: a string,
        # None or any object is refused there, as a dtype CuPy has no C type for
        _device_dtype(numpy.array(fill_value).dtype)
    if not _plain_fill(fill_value, dtype):
        return _remote("cupy.full")(shape, fill_value, dtype=dtype, order=order)
    if dtype is None:
        dtype = numpy.array(fill_value).dtype
    return _create("full", _shape_tuple(shape), dtype, order, (fill_value,))


def _plain_fill(fill_value: Any, dtype: Any) -> bool:
    """Whether a fill can be pipelined: a scalar that casts without a warning (the
    server warns at the call, e.g. ComplexWarning, and reports errors there)."""
    if type(fill_value) is int:
        return dtype is None or _infer.int_fits(fill_value, numpy.dtype(dtype))
    if type(fill_value) in (float, bool):
        return True
    if type(fill_value) is complex or isinstance(fill_value, numpy.generic):
        kind = numpy.asarray(fill_value).dtype.kind
        return kind != "c" or dtype is None or numpy.dtype(dtype).kind == "c"
    return False


def _like(name: str, a: Any, dtype: Any, order: str, subok: Any, shape: Any,
          extra: tuple = ()) -> ndarray:
    if subok is not None:
        raise TypeError("subok is not supported yet")
    if isinstance(a, ndarray):  # (``_new_like_order_and_strides``)
        order = order.upper()
        if order not in ("C", "F", "K", "A"):
            raise ValueError(f"order not understood: {order}")
    if not isinstance(a, ndarray):
        return _remote(f"cupy.{name}")(a, *extra, dtype=dtype, order=order, subok=subok,
                                       shape=shape)
    dt = numpy.dtype(dtype) if dtype is not None else a.dtype
    shp = _shape_tuple(shape) if shape is not None else a.shape
    if order in ("K", "A"):  # NumPy's rule, which CuPy follows
        flags = a.flags
        f_only = flags.f_contiguous and not flags.c_contiguous
        if order == "A" or len(shp) != a.ndim:
            order = "F" if order == "A" and f_only else "C"
        elif f_only:
            order = "F"
        elif not flags.c_contiguous:
            # keep the prototype's axis order: the server knows how
            return _remote(f"cupy.{name}")(a, *extra, dtype=dtype, order="K", shape=shape)
        else:
            order = "C"
    base_name = name[:-5]
    return _create(base_name, shp, dt, order, extra)


def empty_like(a: Any, dtype: Any = None, order: str = "K", subok: Any = None,
               shape: Any = None) -> ndarray:
    """See Also: cupy.empty_like"""
    return _like("empty_like", a, dtype, order, subok, shape)


def zeros_like(a: Any, dtype: Any = None, order: str = "K", subok: Any = None,
               shape: Any = None) -> ndarray:
    """See Also: cupy.zeros_like"""
    return _like("zeros_like", a, dtype, order, subok, shape)


def ones_like(a: Any, dtype: Any = None, order: str = "K", subok: Any = None,
              shape: Any = None) -> ndarray:
    """See Also: cupy.ones_like"""
    return _like("ones_like", a, dtype, order, subok, shape)


def full_like(a: Any, fill_value: Any, dtype: Any = None, order: str = "K", subok: Any = None,
              shape: Any = None) -> ndarray:
    """See Also: cupy.full_like"""
    if not _plain_fill(fill_value, dtype if dtype is not None else
                       (a.dtype if isinstance(a, ndarray) else None)):
        return _remote("cupy.full_like")(a, fill_value, dtype=dtype, order=order, subok=subok,
                                         shape=shape)
    return _like("full_like", a, dtype, order, subok, shape, (fill_value,))


# --- host <-> device ----------------------------------------------------------------------
_PLAIN = frozenset({int, float, complex, bool, str, type(None)})


def _has_proxy(obj: Any) -> bool:
    """Whether ``obj`` (lists nest) holds a device array or an array-protocol object."""
    t = type(obj)
    if t in _PLAIN:  # the common case: long lists of numbers
        return False
    if isinstance(obj, (list, tuple)):
        return builtins.any(_has_proxy(o) for o in obj)
    return isinstance(obj, ndarray) or hasattr(t, "__cupy_get_ndarray__") or \
        hasattr(obj, "__cuda_array_interface__")


def _nested_proxies(obj: Any) -> Any:
    """``obj`` with every array-protocol object in it (lists nest) made a proxy."""
    if isinstance(obj, (list, tuple)):
        return type(obj)(_nested_proxies(o) for o in obj)
    return _array_like(obj)


def _device_sequence(obj: Any) -> bool:
    """Whether CuPy concatenates ``obj`` (a list or tuple holding device arrays) on the
    device: only device arrays (or their protocols) of one shape, nesting
    (``_compute_concat_info_impl``). Anything else (lists, host arrays or scalars
    beside them, ragged arrays) goes to ``numpy.array(obj)``, and so to the device
    array's ``__array__`` TypeError, as in CuPy."""
    if not isinstance(obj, (list, tuple)):
        return False
    info = _concat_info(obj, kinds=True)
    return info is not None and info[2] is ndarray


def _upload(host: numpy.ndarray, order: Any = "K") -> ndarray:
    order = (order or "K").upper()
    if host.dtype.hasobject or host.dtype.kind in "USMm" or host.dtype.char in "gG":
        raise ValueError(f"Unsupported dtype {host.dtype}")
    if not host.dtype.isnative:  # CuPy byte-swaps host data for the user
        host = host.astype(host.dtype.newbyteorder("="))
    s = session()
    hid = s.new_id()
    f = order in ("F",) or (order in ("K", "A") and host.flags.f_contiguous and
                            not host.flags.c_contiguous)
    if host.nbytes >= STREAM_MIN:  # streamed in its own memory order
        send = host if (host.flags.f_contiguous if f else host.flags.c_contiguous) else \
            host.copy(order="F" if f else "C")
        s.upload_stream(send, "F" if f else "C", hid, "cupy.asarray (host to device copy)")
    else:
        # small: inline, in C order; the server restores the order
        # (not numpy.ascontiguousarray: it turns 0-d arrays into 1-d ones)
        send = host if host.flags.c_contiguous else host.copy(order="C")
        s.submit("upload", None, (send,), {"order": "F" if f else "C"},
                 out_id=hid, description="cupy.asarray (host to device copy)")
    strides = (_infer.f_strides if f else _infer.c_strides)(host.shape, host.dtype.itemsize)
    c, fc = _contiguity(host.shape, strides, host.dtype.itemsize)
    return _new(s, hid, host.shape, host.dtype, strides,
                (FLAG_C if c else 0) | (FLAG_F if fc else 0) | FLAG_OWN, None)


def array(obj: Any, dtype: Any = None, copy: Any = True, order: str = "K", subok: bool = False,
          ndmin: int = 0, *, blocking: bool = False) -> ndarray:
    """See Also: cupy.array"""
    if subok:
        raise NotImplementedError  # (CuPy's: ``core.pyx`` ``array``)
    obj = _array_like(obj)
    if isinstance(obj, ndarray):
        if copy is not True and (dtype is None or numpy.dtype(dtype) == obj.dtype) and \
                _order_ok(obj, order):
            if obj.ndim >= ndmin:
                return obj
            return obj[(None,) * (ndmin - obj.ndim)]  # a view, as in CuPy
        if copy is True or copy is None:  # (None: a copy is needed, as above)
            copied = _copied(obj, dtype, order, ndmin)
            if copied is not None:
                return copied
        # the server decides whether a view will do (copy=False raises if it will not)
        return _remote("cupy.array")(obj, dtype=dtype, copy=copy, order=order, ndmin=ndmin)
    if _has_proxy(obj) and _device_sequence(obj):
        stacked = _stacked(obj, dtype, order, ndmin)
        if stacked is not None:
            return stacked
        return _remote("cupy.array")(_nested_proxies(obj), dtype=dtype, copy=copy, order=order,
                                     ndmin=ndmin)
    # host data is always copied: CuPy ignores ``copy=False`` for it (``_array_default``)
    if isinstance(obj, str) and dtype is None:
        raise ValueError(f"Unsupported dtype <U{len(obj)}")
    host = numpy.array(obj, dtype=dtype, order="K" if order is None else order, ndmin=ndmin)
    return _upload(host, order or "K")


def _from_cuda_array_interface(obj: Any) -> ndarray:
    """An array seen through ``__cuda_array_interface__`` (a gpushare address only)."""
    desc = obj.__cuda_array_interface__
    dtype = _cai_dtype(desc)  # (``_convert_object_with_cuda_array_interface``'s order)
    if dtype.byteorder == ">":
        raise ValueError("CuPy does not support the big-endian byte-order")
    if desc.get("mask") is not None:
        raise ValueError("CuPy currently does not support masked arrays.")
    from ._ndarray import from_pointer
    if dtype.hasobject:  # (the server refuses such a view of its memory)
        raise _unsupported_dtype(dtype)
    shape = tuple(desc["shape"])
    ptr = desc["data"][0]
    if ptr == 0 or math.prod(shape) == 0:
        return empty(shape, dtype)
    return from_pointer(session(), ptr, shape, dtype, desc.get("strides"))


def _array_like(a: Any) -> Any:
    """CuPy's array protocols: ``__cupy_get_ndarray__`` and ``__cuda_array_interface__``."""
    if not isinstance(a, ndarray):
        getter = getattr(a, "__cupy_get_ndarray__", None)
        if getter is not None:
            return getter()
        if hasattr(a, "__cuda_array_interface__"):
            return _from_cuda_array_interface(a)
    return a


def _copied(a: ndarray, dtype: Any, order: Any, ndmin: Any) -> ndarray | None:
    """``cupy.array(a, dtype, copy=True, order, ndmin)`` of a proxy, pipelined (CuPy's
    ``_array_from_cupy_ndarray``: ``a.astype(dtype, order=order)``, leading ones set
    into its shape): C-ordered for a C-contiguous ``a`` in order K, A or C, else laid out
    by the server. None where the server must answer (its errors, a ComplexWarning)."""
    from ._routines import _arrays, _submit
    s = _arrays((a,))
    if s is None or type(ndmin) is not int or not isinstance(order, str) or \
            order.upper() not in ("K", "A", "C", "F"):
        return None
    try:
        dt = a._dtype if dtype is None else _device_dtype(dtype)
    except (TypeError, ValueError):
        return None
    if dt.kind not in "biufc" or a._dtype.kind == "c" and dt.kind != "c":
        return None
    shape = (1,) * builtins.max(0, ndmin - len(a._shape)) + a._shape
    return _submit(s, "cupy.array", (a,), {"dtype": dt, "order": order, "ndmin": ndmin},
                   shape, dt, laid_out=bool(a._meta_ok and a._flags & FLAG_C and
                                            order.upper() != "F"))


def _stacked(obj: Any, dtype: Any, order: Any, ndmin: Any) -> ndarray | None:
    """``cupy.array``/``asarray`` of a list or tuple of device arrays of one session and
    one shape, as CuPy makes it (``core.pyx: _array_from_nested_cupy_sequence``): their
    ``concatenate`` (each 0-d one made 1-d first), reshaped to ``(len(obj), *shape)``
    (leading ones to ``ndmin``), then ``astype(dtype, order=C or F, copy=False)``, the
    dtype their promoted one if none is given. Every step queues; None where the
    server must answer (nested lists, shapes that differ: CuPy's errors)."""
    if type(obj) not in (list, tuple) or not obj or type(ndmin) is not int:
        return None
    first = obj[0]
    if type(first) is not ndarray:
        return None
    dt = first._dtype
    for a in obj:
        if type(a) is not ndarray or a._gs_session is not first._gs_session or \
                a._shape != first._shape:
            return None
        if a._dtype != dt:
            dt = numpy.promote_types(dt, a._dtype)
    if order is not None and not isinstance(order, str):
        return None
    try:
        dt = dt if dtype is None else _device_dtype(dtype)
    except (TypeError, ValueError):
        return None
    shape = (len(obj), *first._shape)
    shape = (1,) * builtins.max(0, ndmin - len(shape)) + shape
    from . import concatenate, expand_dims
    parts = [expand_dims(a, 0) if not a._shape else a for a in obj]
    return concatenate(parts, 0).reshape(shape).astype(
        dt, order="F" if order and order[0] in "Ff" else "C", copy=False)


def _order_ok(a: ndarray, order: Any) -> bool:
    order = (order or "K").upper()
    if order == "C":
        return a.flags.c_contiguous
    if order == "F":
        return a.flags.f_contiguous
    return True


def asarray(a: Any, dtype: Any = None, order: Any = None, *, copy: Any = None,
            blocking: bool = False) -> ndarray:
    """See Also: cupy.asarray (``copy``: NumPy 2's, as ``cupy.array``'s)"""
    if copy is not None:
        return array(a, dtype=dtype, copy=copy, order=order or "K")
    a = _array_like(a)
    if isinstance(a, ndarray):
        if (dtype is None or numpy.dtype(dtype) == a.dtype) and _order_ok(a, order):
            return a
        return array(a, dtype=dtype, copy=True, order=order or "K")
    if _has_proxy(a) and _device_sequence(a):
        stacked = _stacked(a, dtype, order, 0)
        if stacked is not None:
            return stacked
        return _remote("cupy.asarray")(_nested_proxies(a), dtype=dtype, order=order)
    host = numpy.asarray(a, dtype=dtype, order=order)
    return _upload(host, order or "K")


def asanyarray(a: Any, dtype: Any = None, order: Any = None, *, copy: Any = None,
               blocking: bool = False) -> ndarray:
    """See Also: cupy.asanyarray"""
    return asarray(a, dtype, order, copy=copy)


def _contiguous_copy(a: Any, dtype: Any, order: str) -> Any:
    """``cupy.ascontiguousarray`` (``order`` C) or ``asfortranarray`` (F) of a proxy
    ``a`` (CuPy's ``core.pyx``): ``a`` itself when it is so already, else its copy,
    queued; the server's answer, waited for, for a 0-d ``a`` (CuPy's is 1-d) or a
    ``dtype`` NumPy does not take (CuPy's error)."""
    name = "ascontiguousarray" if order == "C" else "asfortranarray"
    try:
        want = a._dtype if dtype is None else numpy.dtype(dtype)
    except TypeError:
        want = None
    if not a._shape or want is None or want.kind not in "biufc" or a._flags is None:
        return _remote(f"cupy.{name}")(a, dtype=dtype)
    if want == a._dtype and a._flags & (FLAG_C if order == "C" else FLAG_F):
        return a
    s = a._gs_session
    hid = s.new_id()
    s.submit("call", f"cupy.{name}", (a,), {"dtype": dtype}, out_id=hid,
             description=f"cupy.{name}")
    if order == "C":  # (a new C-ordered array; F: CuPy's transposed copies, the server's)
        strides = _infer.c_strides(a._shape, want.itemsize)
        c, f = _contiguity(a._shape, strides, want.itemsize)
        return _new(s, hid, a._shape, want, strides,
                    (FLAG_C if c else 0) | (FLAG_F if f else 0) | FLAG_OWN, None)
    return _new(s, hid, a._shape, want, None, None, None)


def ascontiguousarray(a: Any, dtype: Any = None) -> ndarray:
    """See Also: cupy.ascontiguousarray"""
    if isinstance(a, ndarray):
        return _contiguous_copy(a, dtype, "C")
    raise _not_an_ndarray(a)


def asfortranarray(a: Any, dtype: Any = None) -> ndarray:
    """See Also: cupy.asfortranarray"""
    if isinstance(a, ndarray):
        return _contiguous_copy(a, dtype, "F")
    raise _not_an_ndarray(a)


def _not_an_ndarray(a: Any) -> TypeError:
    """CuPy's error for anything but a ``cupy.ndarray`` where its Cython function takes
    one only (``ascontiguousarray``, ``asfortranarray``: host data is not copied there)."""
    return argument_type_error("a", NDARRAY_BASE, a)


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None,
            blocking: bool = True) -> numpy.ndarray:
    """See Also: cupy.asnumpy"""
    a = _array_like(a)
    if isinstance(a, ndarray):
        return a.get(stream=stream, order=order, out=out, blocking=blocking)
    if out is not None:
        out[...] = a
        return out
    return numpy.asarray(a, order=order)


def get_array_module(*args: Any) -> types.ModuleType:
    """See Also: cupy.get_array_module"""
    sparse = sys.modules.get("gpushare.cupyx.scipy._sparse")  # (no sparse object without it)
    for a in args:
        if isinstance(a, ndarray) or sparse is not None and isinstance(a, sparse._spbase):
            return sys.modules[__name__]
    return numpy


# --- metadata questions answered here -------------------------------------------------------
def _dtype_stand_in(a: Any) -> Any:
    return a.dtype if isinstance(a, ndarray) else a


def result_type(*arrays_and_dtypes: Any) -> numpy.dtype:
    """See Also: cupy.result_type"""
    return numpy.result_type(*(_dtype_stand_in(a) for a in arrays_and_dtypes))


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """See Also: cupy.can_cast"""
    return numpy.can_cast(_dtype_stand_in(from_), to, casting)


def common_type(*arrays: Any) -> Any:
    """See Also: cupy.common_type"""
    return numpy.common_type(*(numpy.empty(0, dtype=a.dtype) if isinstance(a, ndarray) else a
                               for a in arrays))


def min_scalar_type(a: Any) -> numpy.dtype:
    """See Also: cupy.min_scalar_type"""
    if isinstance(a, ndarray):  # CuPy: a device array's (0-d too) own dtype
        return a.dtype
    if hasattr(a, "__cupy_get_ndarray__") or hasattr(a, "__cuda_array_interface__"):
        return _array_like(a).dtype
    if isinstance(a, (list, tuple)):  # CuPy's _array_info_from_nested_sequence
        info = _concat_info(a)
        if info is not None:
            return info[1]
    return numpy.min_scalar_type(a)


def from_dlpack(array: Any, *, device: Any = None, copy: Any = None) -> ndarray:
    """CuPy's ``from_dlpack``: a gpushare array (or a wrapper of one) gives a view of
    the same server memory, as CuPy's zero-copy import does. DLPack data of other
    libraries lives in this process (its GPU or host memory), which the server
    cannot reach: those raise, CPU data with CuPy's own TypeError.

    See Also
    --------
    cupy.from_dlpack
    """
    if not hasattr(array, "__dlpack_device__"):  # a capsule (CuPy's legacy input)
        return _dlpack_capsule(array)
    dev_type, _ = array.__dlpack_device__()
    if device is not None:
        raise NotImplementedError("from_dlpack() does not support device yet.")
    if dev_type in (2, 13):  # kDLCUDA, kDLCUDAManaged
        if isinstance(array, ndarray):
            src = array
            if copy is True:  # CuPy's producer refuses a device copy
                raise BufferError("copy=True only supported for copy to CPU.")
            if src.size == 0:
                return src.view()
            from ._ndarray import from_pointer
            return from_pointer(src._gs_session, src.data.ptr, src.shape, src.dtype,
                                src.strides)
        raise NotImplementedError(
            "gpushare: this DLPack tensor lives in this process's GPU memory, which the "
            "server cannot reach; copy it through the host (cupy.asarray("
            "numpy.from_dlpack(x, device='cpu')) or x's own copy to host)")
    if dev_type == 1:  # kDLCPU
        raise TypeError("CPU arrays cannot be directly imported to CuPy. "
                        "Use `cupy.array(numpy.from_dlpack(input))` instead.")
    raise TypeError(f"Unsupported array type: {dev_type}")


def fromDlpack(dltensor: Any) -> ndarray:  # noqa: N802 - CuPy's name
    """CuPy's deprecated ``fromDlpack`` (a capsule).

    See Also
    --------
    cupy.fromDlpack
    """
    import warnings
    warnings.warn("This function is deprecated and will be removed in a future "
                  "release. Use the cupy.from_dlpack() array constructor instead.",
                  numpy.exceptions.VisibleDeprecationWarning, stacklevel=2)
    return _dlpack_capsule(dltensor)


#: DLPack's capsule names (``dlpack.pyx``), and those a consumer renames them to
_DLPACK_NAMES = ((b"dltensor", b"used_dltensor", 0, 56),
                 (b"dltensor_versioned", b"used_dltensor_versioned", 32, 16))


def _dlpack_capsule(capsule: Any) -> Any:
    """CuPy's ``DLPackMemory(capsule)``: anything but an unused DLPack capsule is its
    ValueError; a capsule of host memory is consumed (renamed, its deleter called) and
    refused with its RuntimeError. A CUDA capsule points into this process's GPU
    memory, which the server cannot reach: left as it is, and refused."""
    import ctypes
    api = ctypes.pythonapi
    api.PyCapsule_IsValid.restype = ctypes.c_int
    api.PyCapsule_IsValid.argtypes = (ctypes.py_object, ctypes.c_char_p)
    for name, used, offset, deleter_at in _DLPACK_NAMES:
        if api.PyCapsule_IsValid(capsule, name):
            break
    else:
        raise ValueError("A DLPack tensor object cannot be consumed multiple times "
                         f"(or object was not a DLPack capsule). Got: {capsule!r}")
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = (ctypes.py_object, ctypes.c_char_p)
    managed = api.PyCapsule_GetPointer(capsule, name)
    # DLTensor: ``void *data`` then ``DLDevice {int32 device_type; int32 device_id}``
    dev_type = ctypes.c_int32.from_address(managed + offset + 8).value
    if dev_type in (2, 13):  # kDLCUDA, kDLCUDAManaged
        raise NotImplementedError(
            "gpushare: this DLPack tensor lives in this process's GPU memory, which the "
            "server cannot reach; copy it through the host (cupy.asarray("
            "numpy.from_dlpack(x, device='cpu')) or x's own copy to host)")
    if name == b"dltensor_versioned" and \
            ctypes.c_uint32.from_address(managed).value > 1:  # (CuPy checks it first)
        raise BufferError("DLPack exported too new major version.")
    api.PyCapsule_SetName.restype = ctypes.c_int
    api.PyCapsule_SetName.argtypes = (ctypes.py_object, ctypes.c_char_p)
    api.PyCapsule_SetName(capsule, used)  # consumed, as by CuPy (its memory freed)
    deleter = ctypes.c_void_p.from_address(managed + deleter_at).value
    if deleter:
        ctypes.CFUNCTYPE(None, ctypes.c_void_p)(deleter)(managed)
    raise RuntimeError("CuPy is built against CUDA, different from the backend that "
                       "backs the incoming DLPack tensor")


def _cai_dtype(desc: dict) -> numpy.dtype:
    """CuPy's ``get_cai_dtype``: ``typestr``, or for void types the fields ``descr``
    names (padding, the fields without a name, skipped)."""
    dtype = numpy.dtype(desc["typestr"])
    if dtype.kind != "V":
        return dtype
    descr = desc.get("descr")
    if not isinstance(descr, list):
        return dtype
    offset, names, offsets, formats = 0, [], [], []
    for name, fmt in descr:
        field = numpy.dtype(fmt)
        if name:
            names.append(name)
            formats.append(field)
            offsets.append(offset)
        offset += field.itemsize
    return numpy.dtype({"names": names, "offsets": offsets, "formats": formats})


def _concat_info(obj: Any, kinds: bool = False) -> Any:
    """``(shape, dtype)`` when ``obj`` (a list or tuple, nesting) holds arrays only, of
    one shape and one kind (NumPy's or device ones), else None (CuPy's
    ``_compute_concat_info_impl``)."""
    def info(o: Any) -> Any:
        if isinstance(o, numpy.ndarray):
            return o.shape, type(o), o.dtype
        if isinstance(o, ndarray):
            return o.shape, ndarray, o.dtype
        if hasattr(o, "__cupy_get_ndarray__"):
            return tuple(o.shape), ndarray, o.dtype
        cai = getattr(o, "__cuda_array_interface__", None)
        if cai is not None:
            return tuple(cai["shape"]), ndarray, _cai_dtype(cai)
        if isinstance(o, (list, tuple)) and len(o):
            first = info(o[0])
            if first is None:
                return None
            shape, kind, dtype = first
            for elem in o[1:]:
                other = info(elem)
                if other is None or other[0] != shape or other[1] is not kind:
                    return None
                if other[2] != dtype:
                    dtype = numpy.promote_types(dtype, other[2])
            return (len(o),) + shape, kind, dtype
        return None
    got = info(obj)
    if got is None:
        return None
    return (got[0], got[2], got[1]) if kinds else (got[0], got[2])


def ndim(a: Any) -> int:
    """See Also: cupy.ndim"""
    return a.ndim if isinstance(a, ndarray) else numpy.ndim(a)


def shape(a: Any) -> tuple:
    """See Also: cupy.shape"""
    return a.shape if isinstance(a, ndarray) else numpy.shape(a)


def size(a: Any, axis: Any = None) -> int:
    """See Also: cupy.size"""
    if isinstance(a, ndarray):
        return a.size if axis is None else a.shape[axis]
    return numpy.size(a, axis)


def isscalar(element):  # type: ignore[no-untyped-def]  # NumPy's exact signature
    """Returns True if the type of ``element`` is a scalar type (NumPy's rule).

    See Also
    --------
    cupy.isscalar, numpy.isscalar
    """
    return numpy.isscalar(element)


def iscomplexobj(x: Any) -> bool:
    """See Also: cupy.iscomplexobj"""
    return x.dtype.kind == "c" if isinstance(x, ndarray) else numpy.iscomplexobj(x)


def isrealobj(x: Any) -> bool:
    """See Also: cupy.isrealobj"""
    return not iscomplexobj(x)


def byte_bounds(a: ndarray) -> tuple:
    """The first and one-past-last byte addresses of ``a`` (gpushare addresses, as
    ``a.data.ptr``; the server's own addresses mean nothing here).

    See Also
    --------
    cupy.byte_bounds
    """
    low = high = a.data.ptr
    if a.size == 0:
        return low, high
    for n, st in zip(a.shape, a.strides):
        if st < 0:
            low += (n - 1) * st
        else:
            high += (n - 1) * st
    return low, high + a.itemsize


def may_share_memory(a: Any, b: Any, max_work: Any = None) -> bool:
    """Whether ``a`` and ``b`` are views of one allocation whose byte bounds overlap
    (CuPy's ``_memory_range.may_share_bounds``), computed here from each array's
    address (asked of the server once per array) and its shape and strides: no round
    trip per pair.

    See Also
    --------
    cupy.may_share_memory
    """
    if max_work is not None:
        raise NotImplementedError("Only supported for `max_work` is `None`")
    for name, x in (("a", a), ("b", b)):  # (Cython's ``_ndarray_base`` arguments)
        if not isinstance(x, ndarray):
            raise argument_type_error(name, NDARRAY_BASE, x)
    if a.size == 0 or b.size == 0:
        return False
    pa, pb = a.data, b.data
    if pa._root is not pb._root:
        return False
    (la, ra), (lb, rb) = byte_bounds(a), byte_bounds(b)
    return la < rb and lb < ra


def isfortran(a: ndarray) -> bool:
    """See Also: cupy.isfortran"""
    return a.flags.f_contiguous and not a.flags.c_contiguous


def is_available() -> bool:
    """See Also: cupy.is_available (True: a server provides the device)."""
    return True


def show_config(*, _full: bool = False) -> None:
    """Print the runtime configuration: this client's, its session's and the server's
    (``cupyx.get_runtime_info``).

    See Also
    --------
    cupy.show_config
    """
    from ..cupyx import get_runtime_info
    sys.stdout.write(str(get_runtime_info(full=_full)))
    sys.stdout.flush()


def binary_repr(num, width=None):  # type: ignore[no-untyped-def]  # NumPy's signature
    """The binary representation of the input number as a string.

    See Also
    --------
    numpy.binary_repr
    """
    return numpy.binary_repr(num, width)


def base_repr(number, base=2, padding=0):  # type: ignore[no-untyped-def]  # NumPy's
    """A string representation of a number in the given base system.

    See Also
    --------
    numpy.base_repr
    """
    return numpy.base_repr(number, base, padding)


def piecewise(x: Any, condlist: Any, funclist: Any) -> Any:
    """See Also: cupy.piecewise (a Python function in ``funclist`` raises CuPy's
    NotImplementedError here: it cannot travel, and CuPy does not take one either)"""
    if builtins.any(callable(f) for f in funclist):
        condlen = 1 if isscalar(condlist) else len(condlist)
        if len(funclist) in (condlen, condlen + 1):
            raise NotImplementedError("Callable functions are not supported currently")
    return _remote("cupy.piecewise")(x, condlist, funclist)


def packbits(a: Any, axis: Any = None, bitorder: str = "big") -> Any:
    """See Also: cupy.packbits (queued when CuPy's checks pass; else the server's)"""
    s = _routines._arrays((a,))
    if s is not None and axis is None and bitorder in ("big", "little") and \
            a._dtype.kind in "biu":
        # (CuPy's: ``zeros(((a.size + 7) // 8,), uint8)`` filled by its kernel)
        return _routines._submit(s, "cupy.packbits", (a,), {"bitorder": bitorder},
                                 ((a.size + 7) // 8,), numpy.dtype(numpy.uint8))
    return _remote("cupy.packbits")(a, axis=axis, bitorder=bitorder)


def unpackbits(a: Any, axis: Any = None, bitorder: str = "big") -> Any:
    """See Also: cupy.unpackbits (queued when CuPy's checks pass; else the server's)"""
    s = _routines._arrays((a,))
    if s is not None and axis is None and bitorder in ("big", "little") and \
            a._dtype == numpy.uint8:
        # (CuPy's: ``ndarray((a.size * 8,), uint8)`` filled by its kernel)
        return _routines._submit(s, "cupy.unpackbits", (a,), {"bitorder": bitorder},
                                 (a.size * 8,), a._dtype)
    return _remote("cupy.unpackbits")(a, axis=axis, bitorder=bitorder)


def who(vardict: Any = None) -> None:
    """Print the CuPy arrays in the given dictionary (the caller's globals by default):
    name, shape, bytes and type (after CuPy's ``cupy/_misc/who.py``, MIT licence).

    See Also
    --------
    cupy.who
    """
    if vardict is None:
        vardict = sys._getframe().f_back.f_globals  # type: ignore[union-attr]
    sta = []
    cache: dict = {}
    for name in sorted(vardict.keys()):
        if isinstance(vardict[name], ndarray):
            var = vardict[name]
            idv = id(var)
            if idv in cache:
                namestr, original = f"{name} ({cache[idv]})", 0
            else:
                cache[idv] = namestr = name
                original = 1
            sta.append([namestr, " x ".join(map(str, var.shape)), str(var.nbytes),
                        var.dtype.name, original])
    maxname = builtins.max((len(v[0]) for v in sta), default=0)
    maxshape = builtins.max((len(v[1]) for v in sta), default=0)
    maxbyte = builtins.max((len(v[2]) for v in sta), default=0)
    totalbytes = builtins.sum(int(v[2]) for v in sta if v[4])
    sp1, sp2, sp3 = (builtins.max(10, n) for n in (maxname, maxshape, maxbyte))
    if sta:
        prval = f"Name {sp1 * ' '} Shape {sp2 * ' '} Bytes {sp3 * ' '} Type"
        print(f"{prval}\n{'=' * (len(prval) + 5)}\n")
    for val in sta:
        print(f"{val[0]} {' ' * (sp1 - len(val[0]) + 4)} {val[1]} "
              f"{' ' * (sp2 - len(val[1]) + 5)} {val[2]} {' ' * (sp3 - len(val[2]) + 5)} "
              f"{val[3]}")
    print(f"\nUpper bound on total bytes  =       {totalbytes}")


# --- files: always the client's ----------------------------------------------------------
def save(file: Any, arr: Any, allow_pickle: bool = True) -> None:
    """See Also: cupy.save (writes a file on this machine)"""
    numpy.save(file, asnumpy(arr), allow_pickle=allow_pickle)


def savez(file: Any, *args: Any, **kwds: Any) -> None:
    """See Also: cupy.savez (writes a file on this machine)"""
    numpy.savez(file, *map(asnumpy, args), **{k: asnumpy(v) for k, v in kwds.items()})


def savez_compressed(file: Any, *args: Any, **kwds: Any) -> None:
    """See Also: cupy.savez_compressed"""
    numpy.savez_compressed(file, *map(asnumpy, args),
                           **{k: asnumpy(v) for k, v in kwds.items()})


class _NpzFile:
    """cupy.load of an .npz: arrays come out as device arrays."""

    def __init__(self, npz: Any) -> None:
        self.npz = npz

    def __getitem__(self, key: str) -> ndarray:
        return array(self.npz[key])

    def __enter__(self) -> "_NpzFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.npz.close()

    def close(self) -> None:
        self.npz.close()

    @property
    def files(self) -> list:
        return self.npz.files

    def __contains__(self, key: str) -> bool:
        return key in self.npz.files

    def __iter__(self) -> Any:
        return iter(self.npz.files)


def load(file: Any, mmap_mode: Any = None, allow_pickle: Any = None) -> Any:
    """See Also: cupy.load (reads a file on this machine)"""
    obj = numpy.load(file, mmap_mode=mmap_mode, allow_pickle=bool(allow_pickle))
    if isinstance(obj, numpy.lib.npyio.NpzFile):
        return _NpzFile(obj)
    # (a pickle's object, anything but a NumPy array, comes back as it is: CuPy's rule)
    return array(obj) if isinstance(obj, numpy.ndarray) else obj


def savetxt(fname: Any, X: Any, *args: Any, **kwargs: Any) -> None:
    """See Also: cupy.savetxt"""
    numpy.savetxt(fname, asnumpy(X), *args, **kwargs)


def loadtxt(*args: Any, **kwargs: Any) -> ndarray:
    """See Also: cupy.loadtxt"""
    return array(numpy.loadtxt(*args, **kwargs))


def genfromtxt(*args: Any, **kwargs: Any) -> ndarray:
    """See Also: cupy.genfromtxt"""
    return array(numpy.genfromtxt(*args, **kwargs))


def fromfile(*args: Any, **kwargs: Any) -> ndarray:
    """See Also: cupy.fromfile"""
    return array(numpy.fromfile(*args, **kwargs))


def frombuffer(*args: Any, **kwargs: Any) -> ndarray:
    """See Also: cupy.frombuffer"""
    return array(numpy.frombuffer(*args, **kwargs))


def fromstring(*args: Any, **kwargs: Any) -> ndarray:
    """See Also: cupy.fromstring"""
    return array(numpy.fromstring(*args, **kwargs))


def fromiter(*args: Any, **kwargs: Any) -> ndarray:
    """See Also: cupy.fromiter"""
    return array(numpy.fromiter(*args, **kwargs))


def array_repr(arr: Any, max_line_width: Any = None, precision: Any = None,
               suppress_small: Any = None) -> str:
    """See Also: cupy.array_repr"""
    return numpy.array_repr(asnumpy(arr), max_line_width, precision, suppress_small)


def array_str(arr: Any, max_line_width: Any = None, precision: Any = None,
              suppress_small: Any = None) -> str:
    """See Also: cupy.array_str"""
    return numpy.array_str(asnumpy(arr), max_line_width, precision, suppress_small)


def array2string(a: Any, *args: Any, **kwargs: Any) -> str:
    """See Also: cupy.array2string"""
    return numpy.array2string(asnumpy(a), *args, **kwargs)


# --- memory pools -----------------------------------------------------------------------------
def get_default_memory_pool() -> Any:
    """See Also: cupy.get_default_memory_pool (the session's pool on the server)"""
    from .cuda import memory
    return memory._DEFAULT_POOL


def get_default_pinned_memory_pool() -> Any:
    """See Also: cupy.get_default_pinned_memory_pool"""
    from .cuda import pinned_memory
    return pinned_memory._DEFAULT_POOL


# --- reductions: numpy in, numpy out (CuPy ends in ``a.sum(...)``); proxies pipeline ----
from ._ndarray import REDUCTION_PARAMS as _REDUCTION_PARAMS  # noqa: E402


def _reduction(name: str) -> Any:
    params = _REDUCTION_PARAMS[name]
    method = {"amax": "max", "amin": "min"}.get(name, name)
    remote = _remote(f"cupy.{name}")

    shown = {"max": "amax", "min": "amin"}.get(name, name)  # (CuPy's max is amax)

    def fn(a: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs:  # CuPy's Python signature: NumPy's where=, initial=... are refused
            for key in kwargs:
                if key not in params:
                    raise TypeError(f"{shown}() got an unexpected keyword argument '{key}'")
        if isinstance(a, numpy.ndarray):
            return getattr(a, method)(*args, **kwargs)
        if not isinstance(a, ndarray) or len(args) > len(params):
            return remote(a, *args, **kwargs)
        for key, value in zip(params, args):
            if key in kwargs:
                raise TypeError(f"{shown}() got multiple values for argument '{key}'")
            kwargs[key] = value
        # the method pipelines when the result's layout can be inferred
        return getattr(a, method)(**given(kwargs))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"See Also\n--------\ncupy.{name}"
    return fn


# --- functions that are their array's method in CuPy (``cupy.reshape(a, s)`` is
# ``a.reshape(s)``): a proxy's method pipelines where it can; anything else goes to the
# server, as before ------------------------------------------------------------------------
def reshape(a: Any, newshape: Any, order: str = "C", *, copy: Any = None) -> Any:
    """See Also: cupy.reshape"""
    return a.reshape(newshape, order=order, copy=copy)


def ravel(a: Any, order: str = "C") -> Any:
    """See Also: cupy.ravel"""
    return a.ravel(order)


def transpose(a: Any, axes: Any = None) -> Any:
    """See Also: cupy.transpose"""
    return a.transpose(axes)


def squeeze(a: Any, axis: Any = None) -> Any:
    """See Also: cupy.squeeze"""
    return a.squeeze(axis)


def copy(a: Any, order: str = "K") -> Any:
    """See Also: cupy.copy"""
    return a.copy(order=order)


def _check_array(obj: Any, arg_name: str) -> None:
    if not isinstance(obj, ndarray):  # CuPy's _util.check_array
        raise TypeError(f"'{arg_name}' must be a cupy.ndarray object, not {type(obj)}.")


def all(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """See Also: cupy.all"""
    _check_array(a, "a")
    return a.all(**given(dict(axis=axis, out=out, keepdims=keepdims)))


def any(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
    """See Also: cupy.any"""
    _check_array(a, "a")
    return a.any(**given(dict(axis=axis, out=out, keepdims=keepdims)))


def argmax(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
           keepdims: bool = False) -> Any:
    """See Also: cupy.argmax"""
    return a.argmax(**given(dict(axis=axis, dtype=dtype, out=out, keepdims=keepdims)))


def argmin(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
           keepdims: bool = False) -> Any:
    """See Also: cupy.argmin"""
    return a.argmin(**given(dict(axis=axis, dtype=dtype, out=out, keepdims=keepdims)))


def _via_method(fn: Any) -> Any:
    """``fn`` for proxies; the server's ``cupy.<name>`` for anything else (lists, host
    arrays: CuPy's own checks and errors)."""
    remote = _remote(f"cupy.{fn.__name__}")

    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(a, *args, **kwargs) if type(a) is ndarray else remote(a, *args, **kwargs)
    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


def _kernel_class(name: str) -> Any:
    from . import _kernels
    return getattr(_kernels, name)


LOCAL: dict[str, Any] = {
    name: globals()[name] for name in (
        "empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
        "array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "asnumpy",
        "get_array_module", "result_type", "can_cast", "common_type", "min_scalar_type", "ndim",
        "from_dlpack", "fromDlpack",
        "shape", "size", "isscalar", "iscomplexobj", "byte_bounds", "may_share_memory",
        "isrealobj", "isfortran", "is_available", "binary_repr", "base_repr", "who",
        "piecewise", "packbits", "unpackbits",
        "show_config", "save", "savez", "savez_compressed", "load", "savetxt", "loadtxt",
        "genfromtxt", "fromfile", "frombuffer", "fromstring", "fromiter", "array_repr",
        "array_str", "array2string", "get_default_memory_pool",
        "get_default_pinned_memory_pool")}
LOCAL["ndarray"] = ndarray
for _fn in (reshape, ravel, transpose, squeeze, copy, argmax, argmin):
    LOCAL[_fn.__name__] = _via_method(_fn)
LOCAL["all"], LOCAL["any"] = all, any  # (arrays only, as in CuPy)
for _name in _REDUCTION_PARAMS:
    LOCAL[_name] = _reduction(_name)
LOCAL["ufunc"] = ufunc
from . import _callables, _index_tricks, _poly, _routines  # noqa: E402

LOCAL.update(_routines.build(_remote))  # matmul, dot, where, concatenate...: pipelined

for _name in _callables.LOCAL_NAMES:
    LOCAL[_name] = getattr(_callables, _name)
for _name in _poly.LOCAL_NAMES:
    LOCAL[_name] = getattr(_poly, _name)

for _name in ("r_", "c_", "mgrid", "ogrid", "broadcast", "flatiter"):
    LOCAL[_name] = getattr(_index_tricks, _name)
for _name in ("obj2sctype", "issctype", "sctype2char",
              "format_float_positional", "format_float_scientific", "issubclass_",
              "issubsctype", "find_common_type", "safe_eval", "disp", "set_string_function",
              "make_aligned_dtype", "clear_memo", "memoize", "get_array_wrap"):
    if hasattr(numpy, _name):
        LOCAL[_name] = getattr(numpy, _name)


# NumPy 2 removed these: CuPy's own (``cupy/__init__.py``), functions of types that run
# here (the server has them too, but abstract types such as ``numpy.floating`` cannot
# travel); the removed ones without replacement raise CuPy's RuntimeError on the server
def issubclass_(arg1: Any, arg2: Any) -> bool:
    try:
        return builtins.issubclass(arg1, arg2)
    except TypeError:
        return False


def obj2sctype(rep: Any, default: Any = None) -> Any:
    if isinstance(rep, type) and builtins.issubclass(rep, numpy.generic):
        return rep
    if isinstance(rep, (numpy.ndarray, ndarray)):
        return rep.dtype.type
    try:
        res = numpy.dtype(rep)
    except Exception:  # noqa: BLE001 - CuPy's ``except Exception`` too
        return default
    return res.type


def issubsctype(arg1: Any, arg2: Any) -> bool:
    return builtins.issubclass(obj2sctype(arg1), obj2sctype(arg2))


def sctype2char(sctype: Any) -> str:
    sctype = obj2sctype(sctype)
    if sctype is None:
        raise ValueError("unrecognized type")
    return numpy.dtype(sctype).char


def issctype(rep: Any) -> bool:
    if not isinstance(rep, (type, numpy.dtype)):
        return False
    try:
        res = obj2sctype(rep)
        if res and res != numpy.object_:
            return True
        return False
    except Exception:  # noqa: BLE001 - CuPy's ``except Exception`` too
        return False


for _fn in (issubclass_, obj2sctype, issubsctype, sctype2char, issctype):
    if not hasattr(numpy, _fn.__name__):
        LOCAL[_fn.__name__] = _fn
from ._core._dtype import make_aligned_dtype as _make_aligned_dtype  # noqa: E402
LOCAL["make_aligned_dtype"] = _make_aligned_dtype  # a pure function of the dtype
from ._util import clear_memo as _clear_memo, memoize as _memoize  # noqa: E402
LOCAL["memoize"], LOCAL["clear_memo"] = _memoize, _clear_memo  # decorators run here

_export_table(sys.modules[__name__], "cupy", numpy, LOCAL)
newaxis = None
disable_experimental_feature_warning = False

def _no_keepdims_in_fusion(name: str, position: int) -> None:
    """``cupy.<name>`` refuses ``keepdims`` inside ``cupy.fuse``, as CuPy's fused
    reductions do (``_math/sumprod.py``, ``_logic/truth.py``, ``_statistics/order.py``;
    ``position``: where ``keepdims`` is among its positional arguments)."""
    fn = globals()[name]
    from ._ndarray import _FUSING

    def call(*args: Any, **kwargs: Any) -> Any:
        if getattr(_FUSING, "depth", 0) and (
                kwargs.get("keepdims") or len(args) > position and args[position]):
            raise NotImplementedError(f"cupy.{name} does not support `keepdims` in fusion "
                                      "yet.")
        return fn(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn  # type: ignore[attr-defined]
    globals()[name] = call


for _name, _position in (("sum", 4), ("prod", 4), ("nansum", 4), ("nanprod", 4),
                         ("all", 3), ("any", 3), ("amin", 3), ("amax", 3)):
    _no_keepdims_in_fusion(_name, _position)
del _name, _position


def _fits(shape: tuple, into: tuple) -> bool:
    """Whether an array of ``shape`` broadcasts into ``into`` (``copyto``'s rule: leading
    axes of 1 may be dropped). (``any`` and ``max`` are CuPy's in this module.)"""
    lead = len(shape) - len(into) if len(shape) > len(into) else 0
    return shape[:lead].count(1) == lead and \
        not [n for n, d in zip(reversed(shape), reversed(into)) if n not in (d, 1)]


def _queued_copyto(dst: Any, src: Any, casting: Any, where: Any) -> bool:
    """Queue ``cupy.copyto(dst, src)`` (nothing to wait for) once CuPy's own checks of it
    (``_manipulation/basic.py``: the cast, the broadcast) passed here: for a proxy
    ``dst`` and a proxy or Python scalar ``src`` (and ``where``) of its session. False
    for anything else: the server runs it, and raises CuPy's error, at the call."""
    if type(dst) is not ndarray or type(casting) is not str or \
            where is not None and (type(where) is not ndarray or where._dtype.kind != "b" or
                                   where._gs_session is not dst._gs_session or
                                   not _fits(where._shape, dst._shape)):
        return False
    s = dst._gs_session
    if type(src) in (bool, int, float, complex):
        try:
            numpy.copyto(numpy.empty((), dtype=dst.dtype), src, casting=casting)
        except (TypeError, ValueError, OverflowError):
            return False
    elif type(src) is ndarray and src._gs_session is s:
        try:
            if not numpy.can_cast(src.dtype, dst.dtype, casting):
                return False
        except (TypeError, ValueError):
            return False
        if not _fits(src._shape, dst._shape):
            return False
    else:
        return False
    s.submit("call", "cupy.copyto", (dst, src),
             {"casting": casting} if where is None else {"casting": casting, "where": where},
             description="cupy.copyto")
    return True


def _copyto_in_fusion() -> None:
    """``cupy.copyto`` inside ``cupy.fuse`` is ``elementwise_copy(src, dst)`` once its
    casting check passed (``_manipulation/basic.py``): the fused tracers' refusal of a
    ``dst`` of fewer dimensions (``_ndarray._fused_into``)."""
    fn = globals()["copyto"]
    from ._ndarray import _FUSING, _fused_into

    def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = None) -> Any:
        if getattr(_FUSING, "depth", 0):
            if where is None and isinstance(dst, ndarray) and isinstance(src, ndarray) and \
                    isinstance(casting, str) and numpy.can_cast(src.dtype, dst.dtype, casting):
                _fused_into((src,), dst)
        elif _queued_copyto(dst, src, casting, where):
            return None
        return fn(dst, src, casting=casting, where=where)
    copyto.__doc__ = fn.__doc__
    copyto.__wrapped__ = fn  # type: ignore[attr-defined]
    globals()["copyto"] = copyto


_copyto_in_fusion()

# CuPy's functions with two names are one object (``cupy.concat is cupy.concatenate``)
for _alias, _name in (("permute_dims", "transpose"), ("concat", "concatenate"),
                      ("alltrue", "all"), ("sometrue", "any"), ("trapz", "trapezoid"),
                      ("max", "amax"), ("min", "amin")):
    if _name in globals():
        globals()[_alias] = globals()[_name]
del _alias, _name

from . import _ndarray as _nd  # noqa: E402

_nd._install_operators()

# submodules: imported lazily through __getattr__ (see below) so `import cupy` stays cheap
_SUBMODULES = ("linalg", "fft", "random", "cuda", "testing", "exceptions", "polynomial", "lib",
               "typing", "_core")
_KERNEL_CLASSES = ("ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule", "fuse")


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    if name in _KERNEL_CLASSES:
        return _kernel_class(name)
    raise AttributeError(f"module 'cupy' has no attribute '{name}'")


for _k in _KERNEL_CLASSES:  # resolved lazily through __getattr__
    globals().pop(_k, None)
for _m in _SUBMODULES:
    globals().pop(_m, None)


def __dir__() -> list:
    return sorted(set(globals()) | set(_SUBMODULES) | set(_KERNEL_CLASSES))


# (says its name is CuPy's; its functions pickle as themselves)
_public.make_public(sys.modules[__name__])
