"""``cupy.ndarray`` on the client: a proxy for an array in the server's memory.

A proxy knows its handle id, shape, dtype, strides and flags; everything else is a
call to the server. Operators go through the client ufuncs (``_ufunc.py``), which
pipeline when the result can be inferred.
"""
from __future__ import annotations

import functools
import itertools
import math
import operator
import pickle
import sys
import warnings
import threading
import types
import weakref
from typing import Any

import numpy

from .. import client as _client
from ..layouts import (arg_reduce_is_view, creation_layout, normalize_order,
                       reduce_keepdims_is_view)
from ..protocol import FLAG_C, FLAG_F, FLAG_OWN, ArrayMeta
from . import _infer

class _SyncState(threading.local):
    allowed = True  # (a class default: reading it raises and catches nothing)


#: ``cupyx.allow_synchronize``'s per-thread switch (``allowed``; True when unset)
SYNC_STATE = _SyncState()


def declare_synchronize() -> None:
    """Raise ``cupyx.DeviceSynchronized`` where CuPy would synchronize with the device
    while the thread forbids it: a copy to the host (``get()``, and what CuPy does
    through it: ``item()``, ``float(a)``, ``bool(a)``, ``repr``...) and
    ``Device.synchronize()`` (``cupy/_core/syncdetect.py``)."""
    if not SYNC_STATE.allowed:
        from ..cupyx import DeviceSynchronized
        raise DeviceSynchronized()


_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
             "construct a NumPy array explicitly.")


def session() -> _client.Session:
    return _client.get_session()


class Flags:
    """``ndarray.flags``: CuPy tracks C_CONTIGUOUS, F_CONTIGUOUS and OWNDATA only.

    CuPy's ``Flags`` is a plain Python class with read-only properties
    (``cupy/_core/flags.pyx``): assigning one raises Python's "property ... has no
    setter" AttributeError, any other name is a plain attribute of that object
    (``x.flags.writeable = False``, as NumPy-minded code and CuPy's tests write, is
    taken and changes nothing: each ``x.flags`` is a new object), and ``flags[name]``
    knows the three long names only.
    """

    def __init__(self, c: bool, f: bool, own: bool) -> None:
        self._c, self._f, self._own = c, f, own

    c_contiguous = property(lambda self: self._c)
    f_contiguous = property(lambda self: self._f)
    owndata = property(lambda self: self._own)

    def __getitem__(self, name: str) -> bool:
        if name == "C_CONTIGUOUS":
            return self._c
        if name == "F_CONTIGUOUS":
            return self._f
        if name == "OWNDATA":
            return self._own
        raise KeyError("%s is not defined for cupy.ndarray.flags" % name)

    @property
    def fnc(self) -> bool:
        return self.f_contiguous and not self.c_contiguous

    @property
    def forc(self) -> bool:
        return self.f_contiguous or self.c_contiguous

    def __repr__(self) -> str:
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  OWNDATA : {self.owndata}")


#: fake device addresses: each root allocation gets a 64 GiB slot above this base
_PTR_BASE = 1 << 40
_PTR_SLOT = 1 << 36


class MemoryPointer:
    """Stand-in for ``cupy.cuda.MemoryPointer``: the memory lives on the server, so the
    address is gpushare's own (a slot per allocation plus the byte offset); it is
    meaningful to gpushare only (``__cuda_array_interface__``, ``ndarray(memptr=)``).

    See Also
    --------
    cupy.cuda.MemoryPointer
    """

    def __init__(self, ptr: int, root: Any = None) -> None:
        self.ptr = int(ptr)
        self._root = root  # keeps the allocation alive, as CuPy's MemoryPointer does
        self.device_id = 0

    @property
    def mem(self) -> "_Memory":
        return _Memory(self._root)

    def __int__(self) -> int:
        return self.ptr

    def __add__(self, offset: int) -> "MemoryPointer":
        return MemoryPointer(self.ptr + int(offset), self._root)

    __radd__ = __add__

    def __sub__(self, offset: int) -> "MemoryPointer":
        return MemoryPointer(self.ptr - int(offset), self._root)

    def __iadd__(self, offset: int) -> "MemoryPointer":
        """Adds an offset to the pointer in place (CuPy's ``ptrdiff_t`` argument)."""
        offset = operator.index(offset)
        assert self.ptr != 0 or offset == 0
        self.ptr += offset
        return self

    def __isub__(self, offset: int) -> "MemoryPointer":
        """Subtracts an offset from the pointer in place."""
        return self.__iadd__(-operator.index(offset))

    @property
    def device(self) -> Any:
        """The pointer's ``cupy.cuda.Device`` (CuPy's ``Device(self.device_id)``)."""
        from .cuda import Device
        return Device(self.device_id)

    def __repr__(self) -> str:
        return f"<gpushare MemoryPointer 0x{self.ptr:x}>"

    # --- memcopies: each a copy into or out of a byte view of the server memory ---
    def _bytes(self, size: Any) -> "ndarray":
        """A uint8 view of ``size`` bytes of the server memory from this address
        (the server refuses one that reaches outside the allocation)."""
        s = self._root._gs_session if self._root is not None else session()
        return from_pointer(s, self.ptr, (int(size),), numpy.uint8, None)

    def copy_from_device(self, src: "MemoryPointer", size: int) -> None:
        """Copy ``size`` bytes from the device memory at ``src`` (see
        cupy.cuda.MemoryPointer.copy_from_device)."""
        if not isinstance(src, MemoryPointer):
            raise TypeError(f"src must be a cupy.cuda.MemoryPointer, not {type(src).__name__}")
        if _size(size):
            self._bytes(size)[...] = src._bytes(size)

    def copy_from_device_async(self, src: "MemoryPointer", size: int, stream: Any = None) -> None:
        """As copy_from_device: the session's calls run in order on the server."""
        self.copy_from_device(src, size)

    def copy_from_host(self, mem: Any, size: int) -> None:
        """Copy ``size`` bytes from the host address ``mem`` (an int or a
        ``ctypes.c_void_p``); they are read before this returns."""
        if _size(size):
            self._bytes(size).set(_host_bytes(mem, size))

    def copy_from_host_async(self, mem: Any, size: int, stream: Any = None) -> None:
        """As copy_from_host (the host bytes are read before this returns)."""
        self.copy_from_host(mem, size)

    def copy_from(self, mem: Any, size: int) -> None:
        """copy_from_device for a MemoryPointer, copy_from_host for anything else."""
        if isinstance(mem, MemoryPointer):
            self.copy_from_device(mem, size)
        else:
            self.copy_from_host(mem, size)

    def copy_from_async(self, mem: Any, size: int, stream: Any = None) -> None:
        self.copy_from(mem, size)

    def copy_to_host(self, mem: Any, size: int) -> None:
        """Copy ``size`` bytes to the host address ``mem`` (an int or a ``ctypes.c_void_p``)."""
        if _size(size):
            self._bytes(size).get(out=_host_bytes(mem, size))

    def copy_to_host_async(self, mem: Any, size: int, stream: Any = None) -> None:
        """As copy_to_host: the bytes are in host memory when this returns."""
        self.copy_to_host(mem, size)

    def memset(self, value: int, size: int) -> None:
        """Set ``size`` bytes to ``value`` (its low byte, as ``cudaMemset``)."""
        if _size(size):
            self._bytes(size).fill(int(value) & 0xFF)

    def memset_async(self, value: int, size: int, stream: Any = None) -> None:
        self.memset(value, size)


def _size(size: Any) -> int:
    """A byte count, as CuPy's ``size_t`` arguments take it."""
    size = operator.index(size)
    if size < 0:
        raise OverflowError("can't convert negative value to size_t")
    return size


def _host_bytes(mem: Any, size: Any) -> numpy.ndarray:
    """The ``size`` bytes of this process's memory at ``mem`` (an int address or a ctypes
    pointer, as CuPy takes them), as a writable uint8 array that does not copy them."""
    import ctypes
    address = ctypes.cast(mem, ctypes.c_void_p).value \
        if isinstance(mem, (ctypes.c_void_p, ctypes.c_char_p)) else mem
    if address is None:  # a NULL ctypes pointer
        address = 0
    try:
        address = operator.index(address)
    except TypeError:
        raise TypeError("a host memory address must be an int or a ctypes.c_void_p, "
                        f"not {type(mem).__name__}") from None
    if not address:
        raise ValueError("the host memory address is NULL")
    return numpy.frombuffer((ctypes.c_ubyte * int(size)).from_address(address), numpy.uint8)


class _Memory:
    """The allocation behind a MemoryPointer (``cupy.cuda.Memory``'s ``size``/``ptr``)."""

    def __init__(self, root: Any) -> None:
        self._root = root
        self.device_id = 0

    @property
    def size(self) -> int:
        # (the owning array's bytes: CuPy's pool would say its 512-byte block's, but an
        # array over memory CuPy did not allocate, __cuda_array_interface__'s, is
        # exactly its extent, and the client cannot tell the two apart)
        return 0 if self._root is None else self._root.nbytes

    @property
    def ptr(self) -> int:
        return 0 if self._root is None else pointer_of(self._root).ptr


_ptr_lock = threading.Lock()


def pointer_of(a: "ndarray") -> MemoryPointer:
    """The fake device address of ``a``'s first element (a round trip)."""
    if a.size == 0:  # CuPy does not allocate for empty arrays
        return MemoryPointer(0, None)
    s = a._gs_session
    # (an array's memory never moves: asked once per handle; the root held weakly, so
    # that an array is not kept alive by its own cached address)
    known = getattr(a, "_gs_pointer", None)
    root = known[1]() if known is not None and known[0] == a._gs_id else None
    if root is None:
        root, offset = s.call("pointer", None, (a,))
        known = (a._gs_id, weakref.ref(root), int(offset))
        try:
            a._gs_pointer = known
        except AttributeError:  # (a subclass's proxy without the slot: asked each time)
            pass
    return _pointer_at(s, root, known[2])


def _pointer_at(s: Any, root: "ndarray", offset: int) -> MemoryPointer:
    """The fake device address of byte ``offset`` of ``root``, the array owning its
    memory. The address table holds its arrays weakly, as a device address does not
    keep memory alive in CuPy: the ``MemoryPointer`` returned (or the array) does."""
    with _ptr_lock:
        slots = s.__dict__.get("_ptr_slots")
        if slots is None:
            slots = s.__dict__["_ptr_slots"] = {}  # root's id -> slot
            s.__dict__["_ptr_roots"] = weakref.WeakValueDictionary()  # slot -> root
            s.__dict__["_ptr_next"] = itertools.count(1)
        roots = s.__dict__["_ptr_roots"]
        slot = slots.get(root._gs_id)
        if slot is None:
            slot = next(s.__dict__["_ptr_next"])  # never reused: a stale address stays
            slots[root._gs_id] = slot             # unresolvable
            roots[slot] = root
            weakref.finalize(root, slots.pop, root._gs_id, None)
    return MemoryPointer(_PTR_BASE + slot * _PTR_SLOT + offset, root)


def resolve_pointer(s: Any, ptr: int) -> tuple:
    """``(root_array, offset)`` for a fake device address made by ``pointer_of``."""
    slot, offset = divmod(int(ptr) - _PTR_BASE, _PTR_SLOT)
    root = s.__dict__.get("_ptr_roots", {}).get(slot)
    if int(ptr) < _PTR_BASE or root is None:
        raise ValueError(f"gpushare: 0x{int(ptr):x} is not the address of a gpushare array "
                         "(device pointers from other libraries cannot reach the server)")
    return root, offset


def from_pointer(s: Any, ptr: int, shape: tuple, dtype: Any, strides: Any) -> "ndarray":
    """A view of the server memory at a fake device address."""
    root, offset = resolve_pointer(s, ptr)
    return s.call("from_pointer", None, (root, offset, tuple(shape), numpy.dtype(dtype),
                                         None if strides is None else tuple(strides)))


def _strided_empty(shape: tuple, dtype: Any, strides: tuple) -> "ndarray":
    """``ndarray(shape, dtype, strides=...)`` without memptr: CuPy allocates
    ``size * itemsize`` bytes and lays the strides over them."""
    from . import _device_dtype, empty
    dt = _device_dtype(dtype)
    nbytes = math.prod(shape) * dt.itemsize
    if len(strides) != len(shape):
        raise ValueError("strides must have the same length as shape")
    extent = 0 if 0 in shape else \
        sum((n - 1) * st for n, st in zip(shape, strides)) + dt.itemsize
    if nbytes and (any(st < 0 for st in strides) or extent > nbytes):
        raise ValueError(f"ndarray() with strides {strides} and shape {shape} would reach "
                         f"outside the {nbytes} bytes allocated for it (negative strides "
                         "or a larger extent need memptr=)")
    if nbytes == 0:
        return empty(shape, dtype=dt)
    buf = empty((nbytes,), dtype=numpy.uint8)
    return from_pointer(buf._gs_session, pointer_of(buf).ptr, shape, dt, strides)


def _contiguity(shape: tuple, strides: tuple, itemsize: int) -> tuple[bool, bool]:
    if math.prod(shape) == 0 or len(shape) == 0:
        return True, True
    c = f = True
    step = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != step:
            c = False
        step *= n
    step = itemsize
    for n, s in zip(shape, strides):
        if n != 1 and s != step:
            f = False
        step *= n
    return c, f


class _Fusing(threading.local):
    depth = 0  # (a class default, as ``_SyncState``'s)


_FUSING = _Fusing()  # _kernels.FUSING: how deep this thread is in cupy.fuse


def _no_scalar_in_fuse() -> None:
    """Inside a ``cupy.fuse`` function arrays are symbolic for CuPy: converting one to
    a Python scalar (an ``if`` on it) raises, and so it does here, although gpushare
    runs fused functions eagerly (``_kernels.Fusion``)."""
    if _FUSING.depth:
        raise TypeError("Cannot convert to Python scalar in cupy.fuse")


def _fused_into(inputs: Any, out: Any) -> None:
    """An elementwise write of ``inputs`` into ``out`` (a ufunc's ``out=``, ``out[...] =
    value``, ``copyto``) inside ``cupy.fuse``: CuPy's first tracer (``fusion.pyx``,
    ``call_ufunc``) refuses an output of fewer dimensions than its inputs, and CuPy
    traces again with its second (``_fusion_trace.pyx``, ``call_ufunc``), which raises
    ``internal._broadcast_shapes``' error (its words: no space after 'shapes') or its
    own 'non-broadcastable output operand' (eager CuPy would broadcast or say 'Out shape
    is mismatched')."""
    if not _FUSING.depth or not isinstance(out, ndarray):
        return
    shapes = [tuple(a._shape) if isinstance(a, ndarray) else numpy.shape(a) for a in inputs]
    oshape = tuple(out._shape)
    if not shapes or len(oshape) >= max(len(sh) for sh in shapes):
        return
    shapes.append(oshape)
    ndim = max(len(sh) for sh in shapes)
    result = []
    for dims in zip(*[(1,) * (ndim - len(sh)) + sh for sh in shapes]):
        sizes = [d for d in dims if d != 1]
        size = sizes[0] if sizes else 1
        if any(d != size for d in sizes):
            raise ValueError("operands could not be broadcast together with shapes" +
                             " ".join(str(sh) for sh in shapes))
        result.append(size)
    raise ValueError(f"non-broadcastable output operand with shape {oshape} doesn't "
                     f"match the broadcast shape {tuple(result)}")


def _fused_setitem(key: Any, value: Any, out: Any) -> None:
    """``out[key] = value`` inside ``cupy.fuse``: CuPy's array proxies take ``[...]``
    and ``[:]`` alone (``fusion.pyx`` and ``_fusion_interface.py``: ``__setitem__``)."""
    if not (key is Ellipsis or (isinstance(key, slice) and key == slice(None))):
        raise ValueError("The fusion supports `[...]` or `[:]`.")
    _fused_into((value,), out)


class ndarray(_client.RemoteHandle):
    """Multi-dimensional array on the (remote) GPU.

    See Also
    --------
    cupy.ndarray, numpy.ndarray
    """

    __slots__ = ("_shape", "_dtype", "_strides", "_flags", "_base", "_meta_ok", "_gs_pointer")
    __array_priority__ = 100

    def __init__(self, shape: Any, dtype: Any = float, memptr: Any = None, strides: Any = None,
                 order: str = "C") -> None:
        from . import _shape_tuple, empty
        # anything but C (or None, or '') lays the new array out in Fortran order; an
        # unknown letter raises, strides or not
        order = creation_layout(order)
        if memptr is not None:
            ptr = int(memptr.ptr if hasattr(memptr, "ptr") else memptr)
            shp = _shape_tuple(shape)
            if ptr == 0 and math.prod(shp) == 0:  # CuPy allocates nothing for these
                made = empty(shp, dtype=dtype)
            else:
                made = from_pointer(session(), ptr, shp, dtype, strides)
        elif strides is not None:
            made = _strided_empty(_shape_tuple(shape), dtype, tuple(strides))
        else:
            from . import _device_dtype
            made = empty(shape, dtype=_device_dtype(dtype), order=order)
        # adopt the new array's handle
        _adopt(self, made)

    @property
    def _index_32_bits(self) -> bool:
        """Whether 32-bit indices reach every element (CuPy's kernel selection)."""
        if self.size > 1 << 31:
            return False
        if self.size == 0:
            return True
        extent = sum((n - 1) * abs(st) for n, st in zip(self._shape, self.strides))
        return extent + self.itemsize <= 1 << 31

    # --- identity and lifetime ---------------------------------------------------
    def __del__(self) -> None:
        try:
            self._gs_session.release(self._gs_id)
        except Exception:  # noqa: BLE001 - finalizers must not raise
            pass

    def _meta(self) -> None:
        """Fetch the layout of a result the client could not infer (a round trip)."""
        self._gs_session.raise_poisoned(self._gs_id)
        shape, dtype, strides, flags, base = self._gs_session.call("meta", None, (self,))
        self._shape, self._dtype, self._strides, self._flags = tuple(shape), dtype, \
            tuple(strides), flags
        self._base = base
        self._meta_ok = True

    # --- attributes ----------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._shape

    @shape.setter
    def shape(self, value: Any) -> None:
        newshape = _infer.reshape_result(self._shape, value)
        self._gs_session.call("setattr", "shape", (self, newshape))
        self._shape = newshape
        self._meta_ok = False
        self._meta()

    @property
    def dtype(self) -> numpy.dtype:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        return math.prod(self._shape)

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self._dtype.itemsize

    @property
    def strides(self) -> tuple:
        if self._strides is None:
            self._meta()
        return self._strides

    @property
    def flags(self) -> Flags:
        if self._flags is None:
            self._meta()
        f = self._flags
        return Flags(bool(f & FLAG_C), bool(f & FLAG_F), bool(f & FLAG_OWN))

    @property
    def base(self) -> Any:
        if not self._meta_ok:
            self._meta()
        return self._base

    @property
    def data(self) -> MemoryPointer:
        return pointer_of(self)

    @property
    def __cuda_array_interface__(self) -> dict:
        from . import _util
        desc = {"shape": self.shape, "typestr": self.dtype.str, "descr": self.dtype.descr,
                "data": (self.data.ptr if self.size else 0, False)}
        ver = _util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION
        if ver == 3:
            from .cuda import _current_stream_ptr
            # CAI v3 disallows 0: the legacy default stream's handle instead, as CuPy
            desc["stream"] = _current_stream_ptr() or 1
        elif ver != 2:
            raise ValueError("CUPY_CUDA_ARRAY_INTERFACE_EXPORT_VERSION can "
                             "only be set to 3 (default) or 2")
        desc["version"] = ver
        desc["strides"] = None if self.flags.c_contiguous else self.strides
        return desc

    @property
    def device(self) -> Any:
        from .cuda import Device
        return Device(0)

    @property
    def T(self) -> "ndarray":
        return self.transpose()

    @property
    def mT(self) -> "ndarray":
        if self.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        return self.swapaxes(-1, -2)

    @property
    def real(self) -> "ndarray":
        # CuPy's ``_ndarray_real_getter``: a real array is its own real part; a complex
        # one's is a view of the real dtype with its strides
        if self._dtype.kind != "c":
            return self
        return _part_view(self, "real")

    @real.setter
    def real(self, value: Any) -> None:
        self._gs_session.call("setattr", "real", (self, value))

    @property
    def imag(self) -> "ndarray":
        # CuPy's ``_ndarray_imag_getter``: a complex array's is a view; a real one's a
        # new array of zeros
        if self._dtype.kind != "c":
            return _pipelined_method(self, "imag", (), {}, self._shape, self._dtype,
                                     _infer.c_strides(self._shape, self._dtype.itemsize),
                                     op="getattr")
        return _part_view(self, "imag")

    @imag.setter
    def imag(self, value: Any) -> None:
        if self._dtype.kind != "c":  # CuPy's _ndarray_imag_setter (_routines_math.pyx)
            raise TypeError("cupy.ndarray does not have imaginary part to set")
        self._gs_session.call("setattr", "imag", (self, value))

    @property
    def flat(self) -> Any:
        from ._index_tricks import flatiter
        return flatiter(self)

    # --- host conversion -----------------------------------------------------------
    def get(self, stream: Any = None, order: str = "C", out: Any = None,
            blocking: bool = True) -> numpy.ndarray:
        """Copy the array to the host.

        See Also
        --------
        cupy.ndarray.get
        """
        declare_synchronize()
        if out is not None:  # CuPy's checks, in CuPy's order
            if not isinstance(out, numpy.ndarray):
                raise TypeError("Only numpy.ndarray can be obtained from cupy.ndarray")
            if out.dtype != self.dtype:
                raise TypeError(f"{out.dtype} array cannot be obtained from {self.dtype} array")
            if out.shape != self.shape:
                raise ValueError(f"Shape mismatch. Expected shape: {self.shape}, "
                                 f"actual shape: {out.shape}")
            if not (out.flags.c_contiguous or out.flags.f_contiguous):
                raise RuntimeError("`out` cannot be specified when copying to "
                                   "non-contiguous ndarray")
            session = self._gs_session
            session.download_into = out  # a streamed copy lands in it directly
            try:
                host = session.download(self)
            finally:
                session.download_into = None
            if host is not out:
                numpy.copyto(out, host)
            return out
        if not self.size:  # (CuPy returns an empty array before reading the order)
            order = order.upper() if isinstance(order, str) else order
        else:
            order = order.upper()  # CuPy's: AttributeError for None or another type
            if order not in ("C", "F", "A"):
                raise ValueError(f"unsupported order: {order}")
        host = self._gs_session.download(self)
        if order == "F" or (order == "A" and self.flags.f_contiguous and not
                            self.flags.c_contiguous):
            host = numpy.asfortranarray(host)
        elif order == "C" and not host.flags.c_contiguous:
            host = numpy.ascontiguousarray(host)  # CuPy's default, whatever came
        if not host.flags.writeable:
            host = host.copy()
        if host.dtype.char != self._dtype.char and host.dtype == self._dtype:
            host = host.view(self._dtype)  # (longlong stays longlong, as CuPy's copy)
        return host

    def set(self, arr: Any, stream: Any = None) -> None:
        """Copy a host array into this array.

        See Also
        --------
        cupy.ndarray.set
        """
        # CuPy's checks, in CuPy's order
        if not isinstance(arr, numpy.ndarray):
            raise TypeError("Only numpy.ndarray can be set to cupy.ndarray")
        if arr.dtype != self.dtype:
            raise TypeError(f"{arr.dtype} array cannot be set to {self.dtype} array")
        if arr.shape != self.shape:
            raise ValueError(f"Shape mismatch. Old shape: {self.shape}, new shape: {arr.shape}")
        flags = self.flags
        if flags.c_contiguous:
            order = "C"
        elif flags.f_contiguous:
            order = "F"
        else:
            raise RuntimeError("Cannot set to non-contiguous array")
        from ..protocol import STREAM_MIN
        if arr.nbytes >= STREAM_MIN:  # big: streamed (or through shared memory), straight
            _client._handle_of(self)  # into this array's memory, in its order (this
            host = numpy.asarray(arr, order=order)  # raises the failure that made self)
            self._gs_session.upload_stream(host, order, self._gs_id, "ndarray.set",
                                           existing=True)
            return
        self._gs_session.submit("method", "set", (self, arr if arr.flags.c_contiguous
                                                  else arr.copy(order="C")),
                                description="ndarray.set")

    def __array__(self, dtype: Any = None, copy: Any = None) -> numpy.ndarray:
        raise TypeError(_IMPLICIT)

    def item(self, *args: Any, **kwargs: Any) -> Any:
        # CuPy's ``cpdef item(self)`` (a METH_NOARGS method of ``_ndarray_base``) takes
        # no arguments, where NumPy's takes indices
        if kwargs:
            raise TypeError("_ndarray_base.item() takes no keyword arguments")
        if args:
            raise TypeError(f"_ndarray_base.item() takes no arguments ({len(args)} given)")
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.get().item()

    def tolist(self) -> Any:
        return self.get().tolist()

    def tobytes(self, order: str = "C") -> bytes:
        return self.get().tobytes(order)

    def tofile(self, fid: Any, sep: str = "", format: str = "%s") -> None:
        self.get().tofile(fid, sep, format)

    def dump(self, file: Any) -> None:
        """Pickles the array itself, as CuPy's ``pickle.dump(self, file, -1)``: it loads
        back as a ``cupy.ndarray``."""
        pickle.dump(self, file, -1)

    def dumps(self) -> bytes:
        """The array's own pickle (CuPy's ``pickle.dumps(self, -1)``)."""
        return pickle.dumps(self, -1)

    def __repr__(self) -> str:
        return repr(self.get())

    def __str__(self) -> str:
        return str(self.get())

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self.get()[()], spec)
        return format(self.get(), spec)

    def __bool__(self) -> bool:
        _no_scalar_in_fuse()
        declare_synchronize()
        return bool(self._gs_session.call("method", "__bool__", (self,)))

    # CuPy converts through ``self.get()``; the server's array does the same in one
    # step, and a Python scalar is all that comes back (warnings travel too)
    def __int__(self) -> int:
        _no_scalar_in_fuse()
        declare_synchronize()
        return int(self._gs_session.call("method", "__int__", (self,)))

    def __float__(self) -> float:
        _no_scalar_in_fuse()
        declare_synchronize()
        return float(self._gs_session.call("method", "__float__", (self,)))

    def __complex__(self) -> complex:
        _no_scalar_in_fuse()
        declare_synchronize()
        return complex(self._gs_session.call("method", "__complex__", (self,)))

    # no ``__index__``: CuPy 14.2's ndarray has none (``operator.index(a)``, ``range(a)``
    # and ``lst[a]`` raise TypeError); its slicing falls back to ``int(x)``
    # (``internal._extract_slice_element``)

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of unsized object")
        return self._shape[0]

    def __iter__(self) -> Any:
        if not self._shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._shape[0]))

    __hash__ = None  # type: ignore[assignment]

    def __copy__(self) -> "ndarray":
        return self.copy()

    def __deepcopy__(self, memo: Any) -> "ndarray":
        return self.copy()

    def __reduce__(self) -> Any:
        from . import array
        return (array, (self.get(order="A"),))

    # --- NumPy interop -------------------------------------------------------------
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        from . import _ufunc
        mine = _ufunc.UFUNCS.get(ufunc.__name__)
        if mine is None:
            # gufuncs such as matmul are plain functions in CuPy; SciPy's special
            # functions are cupyx.scipy.special's (CuPy looks there second)
            fn = getattr(sys.modules[__name__.rsplit(".", 1)[0]], ufunc.__name__, None)
            if fn is None and method == "__call__":
                from ..cupyx.scipy import special
                fn = getattr(special, ufunc.__name__, None)
            if method != "__call__" or fn is None or not callable(fn):
                return NotImplemented
            mine = fn
        # operands of other types answer for themselves (CuPy's check: NumPy then asks
        # their own __array_ufunc__)
        out = kwargs.get("out")
        for x in inputs + (out if isinstance(out, tuple) else ()):
            if not isinstance(x, (ndarray, numpy.ndarray)) and \
                    type(x) not in (bool, int, float, complex) and \
                    not isinstance(x, numpy.generic) and \
                    not hasattr(x, "__cuda_array_interface__") and \
                    not hasattr(x, "__cupy_get_ndarray__"):
                return NotImplemented
        # NumPy hands numpy scalars over as 0-d arrays; CuPy takes them as scalars
        inputs = tuple(x[()] if isinstance(x, numpy.ndarray) and x.ndim == 0 else x
                       for x in inputs)
        if "out" in kwargs:
            out = kwargs["out"]
            if isinstance(out, tuple):
                kwargs["out"] = out[0] if len(out) == 1 else out
        if method == "__call__":
            return mine(*inputs, **kwargs)
        return getattr(mine, method)(*inputs, **kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        # CuPy's (core.pyx): the function of that name along ``func.__module__`` only
        # (``numpy.linalg.trace`` is ``cupy.linalg.trace`` or nothing), and only when
        # every type taking part is a cupy or NumPy array
        try:
            module = functools.reduce(getattr, func.__module__.split(".")[1:],
                                      sys.modules[__package__])
            cupy_func = getattr(module, func.__name__)
        except AttributeError:
            return NotImplemented
        if cupy_func is func:
            return NotImplemented  # (a NumPy function cupy re-exports)
        for t in types:
            if not issubclass(t, _HANDLED_TYPES):
                return NotImplemented
        return cupy_func(*args, **kwargs)

    def __cupy_get_ndarray__(self) -> "ndarray":
        return self

    # --- indexing --------------------------------------------------------------------
    def __getitem__(self, key: Any) -> "ndarray":
        s = self._gs_session
        try:
            if self._strides is None:
                if self._meta_ok:
                    raise _infer.CannotInfer
                self._meta()  # (a layout the server knows: asked once, then inferred)
            shape, strides, view = _infer.getitem_result(self._shape, self._dtype,
                                                          self._strides, key, _is_proxy)
        except _infer.CannotInfer:
            _check_host_index(key)
            return s.call("getitem", None, (self, _cai_to_proxy(key)))
        hid = s.new_id()
        s.submit("getitem", None, (self, key), out_id=hid, description="ndarray.__getitem__")
        c, f = _contiguity(shape, strides, self._dtype.itemsize)
        flags = (FLAG_C if c else 0) | (FLAG_F if f else 0) | (0 if view else FLAG_OWN)
        base = (self._base if self._base is not None else self) if view else None
        return _new(s, hid, shape, self._dtype, strides, flags, base)

    def __setitem__(self, key: Any, value: Any) -> None:
        if _FUSING.depth:
            _fused_setitem(key, value, self)
        s = self._gs_session
        if type(key) is ndarray and key._dtype.kind == "b" and key._shape == self._shape and \
                key._gs_session is s and _quiet_fill(value, self):
            # ``a[mask] = v`` (CuPy's ``_scatter_op_mask_single``): the mask's count of
            # True waits in CuPy, but nothing it decides can fail here, so it is queued
            s.submit("setitem", None, (self, key, value), description="ndarray.__setitem__")
            return
        try:
            if self._strides is None or not (_is_proxy(value) or type(value) in (
                    int, float, complex, bool) or isinstance(value, numpy.generic)):
                raise _infer.CannotInfer
            shape, _, _ = _infer.getitem_result(self._shape, self._dtype, self._strides, key,
                                                _is_proxy)
            vshape = value.shape if _is_proxy(value) else ()
            if numpy.broadcast_shapes(vshape, shape) != tuple(shape):
                raise _infer.CannotInfer
            if _is_proxy(value) and value._dtype.kind == "c" and self._dtype.kind != "c":
                raise _infer.CannotInfer  # ComplexWarning comes from the server
            if not _infer.int_fits(value, self._dtype) or \
                    not _infer.fill_is_quiet(value, self._dtype):
                raise _infer.CannotInfer  # its error or warning comes from the server, now
        except (_infer.CannotInfer, ValueError):
            s.call("setitem", None, (self, _cai_to_proxy(key), _cai_to_proxy(value)))
            return
        s.submit("setitem", None, (self, key, value), description="ndarray.__setitem__")

    # --- methods the client pipelines -------------------------------------------------
    def astype(self, dtype: Any, order: str = "K", casting: Any = None, subok: Any = None,
               copy: bool = True) -> "ndarray":
        # CuPy's checks, in CuPy's order (core.pyx ``_astype``)
        if casting is not None:
            raise TypeError("casting is not supported yet")
        if subok is not None:
            raise TypeError("subok is not supported yet")
        order = normalize_order("K" if order is None else order)
        dt = numpy.dtype(dtype)
        if not copy and dt == self._dtype:
            if order == "K":
                return self
            flags = self.flags
            if order == "A" and (flags.c_contiguous or flags.f_contiguous) or \
                    order == "C" and flags.c_contiguous or order == "F" and flags.f_contiguous:
                return self
        from . import _device_dtype  # CuPy's refusals (strings...), at the call
        _device_dtype(dt)
        strides = _result_strides(self, order, dt.itemsize)
        if strides is None or (self._dtype.kind == "c" and dt.kind not in "bcOV"):
            # (the ComplexWarning comes from the server, at the call)
            out = _method_sync(self, "astype", (dtype,), {"order": order})
            if isinstance(out, ndarray) and out._dtype == dt:
                out._dtype = dt  # the wire keeps '<u8', not which of ulong/ulonglong
            return out
        return _pipelined_method(self, "astype", (dt,), {"order": order}, self._shape, dt,
                                 strides)

    def copy(self, order: str = "C") -> "ndarray":
        # CuPy's copy is ``astype(self.dtype, order=order)``: None means 'K', '' 'C'
        order = normalize_order("K" if order is None else order)
        strides = _result_strides(self, order, self._dtype.itemsize)
        if strides is None:
            return _method_sync(self, "copy", (), {"order": order})
        return _pipelined_method(self, "copy", (), {"order": order}, self._shape, self._dtype,
                                 strides)

    def reshape(self, *shape: Any, order: str = "C", copy: Any = None) -> "ndarray":
        # CuPy's checks, in CuPy's order (``_ndarray_reshape``)
        if isinstance(copy, str):
            raise ValueError("strings are not allowed for 'copy' keyword. "
                             "Use True/False/None instead.")
        order = normalize_order(order, allow_k=False)
        if len(shape) == 1 and isinstance(shape[0], (tuple, list, ndarray, numpy.ndarray)):
            shape = tuple(shape[0])  # (a cupy array is a sequence to CuPy there)
        if copy is not None:
            return _method_sync(self, "reshape", shape, {"order": order, "copy": copy})
        try:
            newshape = _infer.reshape_result(self._shape, shape)
        except (_infer.CannotInfer, TypeError):
            for n in shape:  # CuPy's shape_t takes no cupy array (no __index__)
                if _is_proxy(n):
                    operator.index(n)
            return _method_sync(self, "reshape", shape, {"order": order})
        if len(newshape) > 64:
            raise ValueError("maximum supported dimension for an ndarray is 64, "
                             f"found {len(newshape)}")
        if order != "C" or self._flags is None or not self._flags & FLAG_C:
            # a view where CuPy's ``_get_strides_for_nocopy_reshape`` finds one, else a
            # copy: nothing can fail now; the result's layout is the server's (asked for
            # when it is needed, with its base)
            return _pipelined_method(self, "reshape", (newshape,), {"order": order},
                                     newshape, self._dtype, None)
        # (to its own shape: CuPy's ``_reshape`` returns ``self.view()``, its strides kept;
        # a zero-size array's may be all zeros)
        strides = self._strides if newshape == self._shape and self._strides is not None \
            else _infer.reshape_strides(newshape, self.itemsize)
        return _pipelined_method(self, "reshape", (newshape,), {}, newshape, self._dtype,
                                 strides, view=True)

    def view(self, dtype: Any = None, type: Any = None) -> "ndarray":
        """A view of the array, of another dtype when ``dtype`` says so (see
        cupy.ndarray.view; ``ndarray`` itself as ``dtype`` or ``type``: the array's
        class, the one gpushare's arrays have)."""
        import builtins
        if builtins.type(dtype) is builtins.type and issubclass(dtype, ndarray):
            if type is not None:
                raise ValueError("Cannot specify output type twice.")
            type, dtype = dtype, None
        if type is not None:
            if builtins.type(type) is not builtins.type or not issubclass(type, ndarray):
                raise ValueError("Type must be a sub-type of ndarray type")
            if type is not ndarray:
                raise NotImplementedError("gpushare: views as a subclass of cupy.ndarray "
                                          "are not supported")
        # a view of the same itemsize has the array's shape and strides: queued
        try:
            want = self._dtype if dtype is None else numpy.dtype(dtype)
        except TypeError:
            want = None
        if want is not None and want.itemsize == self._dtype.itemsize and \
                want.kind in "biufc" and self._dtype.kind in "biufc" and self._meta_ok:
            return _pipelined_method(self, "view", () if dtype is None else (dtype,), {},
                                     self._shape, want, self._strides, view=True)
        return self._gs_session.call("method", "view", (self,) if dtype is None
                                     else (self, dtype), {})

    def reduced_view(self, dtype: Any = None) -> "ndarray":
        """A view with as few dimensions as the layout allows (see
        cupy.ndarray.reduced_view)."""
        if dtype is not None:
            warnings.warn("calling reduced_view with dtype is deprecated",
                          DeprecationWarning, stacklevel=2)
            return self.reduced_view().view(dtype)
        if self.ndim <= 1:
            return self
        if self.flags.c_contiguous:
            return self.reshape(self.size)
        shape: list = []
        strides: list = []
        prev = 0
        for n, st in zip(self.shape, self.strides):  # (CuPy's internal.get_reduced_dims)
            if n == 0:
                shape, strides = [0], [self.itemsize]
                break
            if n == 1:
                continue
            if not shape or prev != n * st:
                shape.append(n)
                strides.append(st)
            else:
                shape[-1] *= n
                strides[-1] = st
            prev = st
        if len(shape) == self.ndim:
            return self
        return sys.modules[__package__].lib.stride_tricks.as_strided(
            self, tuple(shape), tuple(strides))

    @property
    def cstruct(self) -> Any:
        """CuPy's C representation of the array (a ``CArray`` for kernels): not served;
        pass the array itself to a kernel."""
        raise NotImplementedError("gpushare: ndarray.cstruct (a CArray of device pointers) "
                                  "is not available through gpushare; pass the array "
                                  "itself as a kernel argument")

    def ravel(self, order: str = "C") -> "ndarray":
        order = normalize_order(order)  # CuPy's, at the call (``_ndarray_ravel``)
        if order == "C" and self._flags is not None and self._flags & FLAG_C:
            return self.reshape(-1)
        return _method_sync(self, "ravel", (), {"order": order})

    def transpose(self, *axes: Any) -> "ndarray":
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        if not axes:
            perm = tuple(reversed(range(self.ndim)))
        else:
            try:
                perm = _transpose_axes(tuple(axes), self.ndim)
            except (_infer.CannotInfer, TypeError):
                return _method_sync(self, "transpose", tuple(axes), {})
        shape = tuple(self._shape[i] for i in perm)
        # (of an array whose layout the server knows: a view whose layout it knows too,
        # asked for when used, as the array's)
        strides = tuple(self._strides[i] for i in perm) if self._strides is not None \
            else None
        return _pipelined_method(self, "transpose", perm, {}, shape, self._dtype, strides,
                                 view=True)

    def flatten(self, order: str = "C") -> "ndarray":
        order = normalize_order(order)  # CuPy's, at the call (``_ndarray_flatten``)
        if order != "C":
            return _method_sync(self, "flatten", (), {"order": order})
        shape = (self.size,)
        return _pipelined_method(self, "flatten", (), {}, shape, self._dtype,
                                 _infer.c_strides(shape, self._dtype.itemsize))

    def squeeze(self, axis: Any = None) -> "ndarray":
        try:
            axes = tuple(i for i, n in enumerate(self._shape) if n == 1) if axis is None \
                else _infer.normalize_axes(axis, self.ndim)
        except (_infer.CannotInfer, TypeError, ValueError):  # (AxisError: CuPy's, there)
            return _method_sync(self, "squeeze", (), {"axis": axis})
        if not self._shape or any(self._shape[i] != 1 for i in axes):
            return _method_sync(self, "squeeze", (), {"axis": axis})  # CuPy's error
        if not axes:  # (nothing to squeeze out: CuPy returns the array itself)
            return self
        keep = [i for i in range(self.ndim) if i not in axes]
        # (of an array whose layout the server knows: a view whose layout it knows too)
        return _pipelined_method(self, "squeeze", (), {"axis": axes},
                                 tuple(self._shape[i] for i in keep), self._dtype,
                                 tuple(self._strides[i] for i in keep)
                                 if self._strides is not None else None, view=True)

    def swapaxes(self, axis1: Any, axis2: Any) -> "ndarray":
        try:
            a1, a2 = operator.index(axis1), operator.index(axis2)
        except TypeError:
            return _method_sync(self, "swapaxes", (axis1, axis2), {})
        ndim = self.ndim
        if not (-ndim <= a1 < ndim and -ndim <= a2 < ndim):  # (CuPy's words)
            raise ValueError("Axis out of range")
        a1, a2 = a1 % ndim, a2 % ndim
        perm = list(range(self.ndim))
        perm[a1], perm[a2] = perm[a2], perm[a1]
        return self.transpose(perm)  # (CuPy's swapaxes is this transpose)

    def diagonal(self, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> "ndarray":
        """A view of the diagonals (CuPy's ``_diagonal``: the two axes last, sliced and
        seen with their strides summed); its layout is the server's."""
        try:
            off, a1, a2 = (operator.index(v) for v in (offset, axis1, axis2))
        except TypeError:
            return _method_sync(self, "diagonal", (offset, axis1, axis2), {})
        ndim = self.ndim
        if ndim < 2 or not (-ndim <= a1 < ndim and -ndim <= a2 < ndim) or \
                a1 % ndim == a2 % ndim:
            return _method_sync(self, "diagonal", (offset, axis1, axis2), {})  # CuPy's error
        a1, a2 = a1 % ndim, a2 % ndim
        rest = tuple(n for i, n in enumerate(self._shape) if i not in (a1, a2))
        rows, cols = (self._shape[a1], self._shape[a2]) if off >= 0 else \
            (self._shape[a2], self._shape[a1])
        size = max(0, min(rows, cols - abs(off)))
        return _pipelined_method(self, "diagonal", (off, a1, a2), {}, rest + (size,),
                                 self._dtype, None)

    def trace(self, offset: Any = 0, axis1: Any = 0, axis2: Any = 1, dtype: Any = None,
              out: Any = None) -> "ndarray":
        """CuPy's: ``self.diagonal(offset, axis1, axis2).sum(-1, dtype, out, False)``."""
        return self.diagonal(offset, axis1, axis2).sum(-1, dtype, out, False)

    def conj(self) -> "ndarray":
        """CuPy's ``_ndarray_conj``: a complex array's conjugate; any other, itself."""
        return _cupy.conjugate(self) if self._dtype.kind == "c" else self

    def conjugate(self) -> "ndarray":
        return self.conj()

    def round(self, decimals: Any = 0, out: Any = None) -> "ndarray":
        """CuPy's ``_round_ufunc`` (a bool array rounds to float16); the layout is the
        server's."""
        if out is not None or type(decimals) is not int or self._dtype.kind not in "biufc":
            return _method_sync(self, "round", (decimals,), {"out": out} if out is not None
                                else {})
        dtype = numpy.dtype(numpy.float16) if self._dtype.kind == "b" else self._dtype
        return _pipelined_method(self, "round", (decimals,), {}, self._shape, dtype, None)

    def argsort(self, axis: Any = -1, kind: Any = None) -> "ndarray":
        return _cupy.argsort(self, axis, kind)  # (cupy.argsort is this method: the same)

    def take(self, indices: Any, axis: Any = None, out: Any = None) -> "ndarray":
        return _cupy.take(self, indices, axis, out)  # (cupy.take is this method)

    def dot(self, b: Any, out: Any = None) -> Any:
        return _cupy.dot(self, b, out=out)

    def clip(self, min: Any = None, max: Any = None, out: Any = None) -> Any:
        return _cupy.clip(self, min, max, out=out)

    def repeat(self, repeats: Any, axis: Any = None) -> Any:
        return _cupy.repeat(self, repeats, axis)

    def cumsum(self, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        return _cupy.cumsum(self, axis, dtype, out)  # (CuPy's method is cupy.cumsum too)

    def cumprod(self, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        return _cupy.cumprod(self, axis, dtype, out)

    def fill(self, value: Any) -> None:
        if (type(value) in (int, float, complex, bool) or isinstance(value, numpy.generic)) \
                and _infer.int_fits(value, self._dtype) and \
                _infer.fill_is_quiet(value, self._dtype):
            self._gs_session.submit("method", "fill", (self, value), description="ndarray.fill")
        else:  # (an object seen through __cuda_array_interface__: its array)
            _method_sync(self, "fill", (_cai_to_proxy(value),), {})

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None,
                   dl_device: Any = None, copy: Any = None) -> Any:
        """DLPack export: to the CPU only (``dl_device=(1, 0)``: a host copy, as CuPy
        makes of device memory). A device capsule would have to carry a pointer into
        this process's GPU memory, and the array lives on the server's, so that export
        raises BufferError; ``cupy.from_dlpack`` of a gpushare array is a view of it.

        See Also
        --------
        cupy.ndarray.__dlpack__
        """
        if max_version is not None and not isinstance(max_version, tuple):
            raise TypeError("Argument 'max_version' has incorrect type (expected tuple, "
                            f"got {type(max_version).__name__})")
        if dl_device is None or tuple(dl_device) == self.__dlpack_device__():
            if copy is True:
                raise BufferError("copy=True only supported for copy to CPU.")
            raise BufferError(
                "gpushare: a DLPack capsule of device memory needs the array in this "
                "process, and it lives on the server's GPU; export a host copy with "
                "__dlpack__(dl_device=(1, 0)) (numpy.from_dlpack(a, device='cpu')), or "
                "use cupy.from_dlpack(a) for a gpushare view")
        if tuple(dl_device) != (1, 0):  # kDLCPU
            raise BufferError("unsupported device requested.")
        if copy is False:
            raise ValueError("GPU memory cannot be exported to CPU without copy.")
        return self.get().__dlpack__(max_version=max_version)

    def toDlpack(self) -> Any:
        """See :meth:`__dlpack__`: a device capsule cannot be made here."""
        return self.__dlpack__()

    def mdspan(self, *, index_type: Any, allow_unsafe: bool = False) -> Any:
        """The array as a ``cuda::std::mdspan`` argument of a RawKernel (CuPy's checks
        here; the struct is packed on the server at the launch).

        See Also
        --------
        cupy.ndarray.mdspan
        """
        from ._core._carray import mdspan
        return mdspan._from_ndarray(self, index_type, allow_unsafe)

    def __dlpack_device__(self) -> tuple:
        return (2, 0)  # kDLCUDA, device 0 of the server; __dlpack__ itself is refused

    __class_getitem__ = classmethod(types.GenericAlias)  # ndarray[Any, dtype] annotations

    def __array_finalize__(self, obj: Any) -> None:
        return None

    def __bytes__(self) -> bytes:
        return self.tobytes()

    def __delitem__(self, key: Any) -> None:
        raise ValueError("cannot delete array elements")

    def __hex__(self) -> str:  # CuPy's Cython class keeps these Python 2 slots, which
        return hex(self.get())  # Python 3's hex() and oct() never call (core.pyx)

    def __oct__(self) -> str:
        return oct(self.get())


#: CuPy's ``_HANDLED_TYPES``: the types ``__array_function__`` answers for
_HANDLED_TYPES = (ndarray, numpy.ndarray)


def _cai_to_proxy(value: Any) -> Any:
    """Objects seen through ``__cuda_array_interface__`` (in tuples and lists too)
    become proxies; ``__cupy_get_ndarray__`` objects travel as they are."""
    if isinstance(value, (tuple, list)):
        if not any(hasattr(v, "__cuda_array_interface__") or isinstance(v, (tuple, list))
                   for v in value):
            return value
        return type(value)(_cai_to_proxy(v) for v in value)
    if not isinstance(value, ndarray) and hasattr(value, "__cuda_array_interface__"):
        from . import _array_like
        return _array_like(value)
    return value


def _check_host_index(key: Any) -> None:
    """Object arrays cannot travel; CuPy refuses them as indices anyway."""
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, numpy.ndarray) and k.dtype.hasobject:
            # (CuPy's words: ``_prepare_slice_list``, whose ``core.array`` refuses it)
            raise IndexError("arrays used as indices must be of integer or boolean type "
                             f"(actual: {k.dtype.type})")


def _is_proxy(value: Any) -> bool:
    return isinstance(value, ndarray)


def _quiet_fill(value: Any, a: ndarray) -> bool:
    """Whether ``value`` written into ``a`` (CuPy's ``core.array(v, dtype=a.dtype)``, or
    a 0-d device array's ``astype``) surely neither raises nor warns: a Python or NumPy
    scalar that fits (``_infer.fill_is_quiet``), or a 0-d array of ``a``'s session, not
    complex into a real dtype (ComplexWarning)."""
    if type(value) is ndarray:
        return value._shape == () and value._gs_session is a._gs_session and \
            (value._dtype.kind != "c" or a._dtype.kind == "c")
    return (type(value) in (int, float, complex, bool) or isinstance(value, numpy.generic)
            and value.dtype.kind in "biufc") and _infer.int_fits(value, a._dtype) and \
        _infer.fill_is_quiet(value, a._dtype)


def _result_strides(a: ndarray, order: str, itemsize: int) -> tuple | None:
    if order == "C":
        return _infer.c_strides(a._shape, itemsize)
    if order == "F":
        return _infer.f_strides(a._shape, itemsize)
    if a._flags is None:
        return None
    if a._flags & FLAG_C:
        return _infer.c_strides(a._shape, itemsize)
    if a._flags & FLAG_F:
        return _infer.f_strides(a._shape, itemsize)
    if order == "A":
        return _infer.c_strides(a._shape, itemsize)
    return None  # order K of a non-contiguous array: the server knows the layout


def _part_view(a: ndarray, name: str) -> ndarray:
    """``a.real`` or ``a.imag`` of a complex ``a``: a view of the real dtype with a's
    strides (its layout is the server's until a's is known here)."""
    return _pipelined_method(a, name, (), {}, a._shape, numpy.dtype(a._dtype.char.lower()),
                             a._strides if a._meta_ok else None, view=True, op="getattr")


def _pipelined_method(a: ndarray, name: str, args: tuple, kwargs: dict, shape: tuple,
                      dtype: numpy.dtype, strides: tuple | None, view: bool = False,
                      owns: bool = True, op: str = "method") -> ndarray:
    """``view``: the result is a view of ``a``; not ``owns``: a view of some new array.
    ``op`` ``getattr``: ``a.<name>``, a property (``args`` and ``kwargs`` empty)."""
    s = a._gs_session
    hid = s.new_id()
    s.submit(op, name, (a, *args), kwargs, out_id=hid, description=f"ndarray.{name}")
    flags = None
    if strides is not None:
        c, f = _contiguity(shape, strides, dtype.itemsize)
        flags = (FLAG_C if c else 0) | (FLAG_F if f else 0) | \
            (FLAG_OWN if owns and not view else 0)
    base = (a._base if a._base is not None else a) if view else None
    return _new(s, hid, shape, dtype, strides, flags, base)


def given(kwargs: dict) -> dict:
    """The keyword arguments a caller gave: None means the default (but ``axis=None``,
    which is a value of its own)."""
    return {k: v for k, v in kwargs.items() if v is not None or k == "axis"}


def _method_sync(a: ndarray, name: str, args: tuple, kwargs: dict) -> Any:
    return a._gs_session.call("method", name, (a, *args), given(kwargs))


def _new(s: _client.Session, hid: int, shape: tuple, dtype: numpy.dtype, strides: Any,
         flags: Any, base: Any, queued: bool = True) -> ndarray:
    """The proxy of array ``hid``, the result of the call just queued (``queued``; else
    one the server answered with). A new allocation of ``Session.alloc_wait_bytes`` or
    more waits for that call, so that ``OutOfMemoryError`` is raised by the call that
    allocates, as CuPy raises it."""
    if queued and base is None and s._seq > s._done_seq and \
            math.prod(shape) * dtype.itemsize >= s.alloc_wait_bytes:
        s.wait(s._seq, hid)
    a = ndarray.__new__(ndarray)
    a._gs_id = hid
    a._gs_session = s
    a._shape = tuple(shape)
    a._dtype = dtype
    a._strides = strides
    a._flags = flags
    a._base = base
    a._meta_ok = strides is not None and flags is not None
    s.proxies[hid] = a
    return a


def _adopt(a: ndarray, other: ndarray) -> None:
    """Make ``a`` (a fresh ndarray()) stand for ``other``'s server array."""
    a._gs_id = other._gs_id
    a._gs_session = other._gs_session
    a._shape, a._dtype, a._strides, a._flags = other._shape, other._dtype, other._strides, \
        other._flags
    a._base = other._base
    a._meta_ok = other._meta_ok
    other._gs_id = 0  # the adopted proxy no longer releases the handle
    a._gs_session.proxies[a._gs_id] = a


def from_meta(s: _client.Session, meta: ArrayMeta) -> ndarray:
    base = None
    if meta.base_id is not None:
        base = s.proxies.get(meta.base_id)
        if base is None:
            base = _new(s, meta.base_id, (), numpy.dtype(numpy.uint8), None, None, None,
                        queued=False)
            base._meta_ok = False
    # (made while a reply is read: it must not wait)
    a = _new(s, meta.id, meta.shape, meta.dtype, meta.strides, meta.flags, base,
             queued=False)
    a._meta_ok = True
    return a


def install(s: _client.Session) -> None:
    """Teach a new session how to build proxies for arrays and objects it receives."""
    from . import _objects
    s.make_array = lambda meta: from_meta(s, meta)
    s.make_object = lambda obj: _objects.from_remote(s, obj)


# --- methods forwarded as they are ------------------------------------------------------
#: the reduction functions' parameters, in order (``cupy.sum``...: CuPy's Python
#: signatures; ``cupy.max`` is ``amax``)
REDUCTION_PARAMS = {
    **dict.fromkeys(("sum", "prod", "mean"), ("axis", "dtype", "out", "keepdims")),
    **dict.fromkeys(("var", "std"), ("axis", "dtype", "out", "ddof", "keepdims")),
    **dict.fromkeys(("amax", "amin", "max", "min", "ptp"), ("axis", "out", "keepdims"))}
#: the reduction methods' (``core.pyx``'s ``cpdef`` methods): their positional
#: arguments are named, so ``m.sum(0)`` is inferred as ``m.sum(axis=0)`` is
_METHOD_PARAMS = {
    **REDUCTION_PARAMS, "all": ("axis", "out", "keepdims"), "any": ("axis", "out", "keepdims"),
    **dict.fromkeys(("argmax", "argmin"), ("axis", "out", "dtype", "keepdims"))}


def named(params: tuple, args: tuple, kwargs: dict) -> dict | None:
    """``kwargs`` with the positional ``args`` named by ``params``, as Python binds them
    (None where they do not bind: too many, or one given twice); defaults (None, but
    ``axis``'s) left out, as ``given``."""
    if len(args) > len(params) or kwargs.keys() & set(params[:len(args)]):
        return None
    return given({**dict(zip(params, args)), **kwargs})


#: the reductions whose whole-array form (``x.sum()``, no argument) travels as an
#: operator's record (``Session.fast_op``: ``cupy.sum(x)``, which is ``x.sum()`` in CuPy)
_RECORD_REDUCTIONS = {
    **{n: "cupy." + n for n in ("sum", "prod", "mean", "var", "std", "any", "all",
                                "argmax", "argmin")},
    "max": "cupy.amax", "min": "cupy.amin", "ptp": "cupy.ptp"}
_SCALAR_FLAGS = FLAG_C | FLAG_F | FLAG_OWN


def _forwarded_method(name: str) -> Any:
    params = _METHOD_PARAMS.get(name, ())
    record = _RECORD_REDUCTIONS.get(name)
    known = _infer._REDUCTION_DTYPES
    no_empty = name in _infer.NO_EMPTY
    arg = name in ("argmax", "argmin")

    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        if record is not None and not args and not kwargs:
            # the whole array, of a dtype seen before (``reduction_result`` below adds
            # it): an operator's record, the cheapest call to queue and to run
            dtype = known.get((name, self._dtype, None, None))
            if dtype is not None and self._dtype.char not in "qQ" and not (
                    no_empty and 0 in self._shape) and not (
                    arg and arg_reduce_is_view(name, self._dtype, self.flags.c_contiguous,
                                               self.flags.f_contiguous, self.size)):
                s = self._gs_session
                hid = s.fast_op(4, record, self._gs_id, None, depth=2)
                if hid:
                    return _new(s, hid, (), dtype, (), _SCALAR_FLAGS, None)
        if args and params and (bound := named(params, args, kwargs)) is not None:
            kwargs, args = bound, ()
        if name in _infer.REDUCTIONS and not args:
            try:
                shape, dtype = _infer.reduction_result(name, self._shape, self._dtype, kwargs)
            except _infer.CannotInfer:
                pass
            else:
                owns = not (name in ("argmax", "argmin") and not shape and
                            not kwargs.get("keepdims") and
                            arg_reduce_is_view(name, self._dtype, self.flags.c_contiguous,
                                               self.flags.f_contiguous, self.size)) and \
                    not (kwargs.get("keepdims") and kwargs.get("out") is None and
                         reduce_keepdims_is_view(  # (CUB's 0-d result reshaped; the
                             # flags, which may need a round trip, read only here)
                             name, self._dtype, self.flags.c_contiguous,
                             self.flags.f_contiguous, self.size, self.ndim, kwargs.get("axis"),
                             kwargs.get("dtype"), kwargs.get("out"), kwargs.get("keepdims")))
                # (of an array not C-contiguous (or of size 0), a result of 2 dimensions
                # or more is laid out as CUB's segmented reduction makes it (F order for
                # an F array), or as the kernel's (C): the server's layout, asked for
                # when needed)
                strides = _infer.c_strides(shape, dtype.itemsize) \
                    if len(shape) < 2 or self._flags is not None and \
                    self._flags & FLAG_C and self.size else None
                return _pipelined_method(self, name, (), kwargs, shape, dtype, strides,
                                         owns=owns)
        return self._gs_session.call("method", name, (self, *args), kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Runs ``cupy.ndarray.{name}`` on the server.\n\nSee Also\n--------\n" \
                     f"cupy.ndarray.{name}"
    return method


def _install_forwarded_methods() -> None:
    from ..namespace import ndarray_members
    for name in sorted(ndarray_members()):
        if name.startswith("_") or name in ndarray.__dict__:
            continue
        if name in ("shape", "dtype", "ndim", "size", "itemsize", "nbytes", "strides", "flags",
                    "base", "data", "device", "T", "mT", "real", "imag", "flat"):
            continue
        setattr(ndarray, name, _forwarded_method(name))


_install_forwarded_methods()
# the class prints, and is found by name, as CuPy's: ``<class 'cupy.ndarray'>`` (core.pyx
# sets ``__module__ = 'cupy'``; libraries tell CuPy arrays by it)
ndarray.__module__ = "cupy"


def _session_of(value: Any) -> Any:
    return value._gs_session if isinstance(value, ndarray) else None


#: the ``gpushare.cupy`` package, for the methods that are its functions (``a.dot(b)``,
#: ``a @ b``...): set by ``_install_operators``, which the package calls once its
#: functions exist (an import inside each method cost ~0.3 us a call)
_cupy: Any = None


# --- operators: through the client ufuncs ------------------------------------------------
def _transpose_axes(axes: tuple, ndim: int) -> tuple:
    """``transpose``'s permutation, checked as CuPy's ``_transpose`` checks it."""
    if len(axes) != ndim:
        raise ValueError("axes don't match array")
    seen = [False] * ndim
    perm = []
    for axis in axes:
        axis = operator.index(axis)
        if not -ndim <= axis < ndim:
            raise numpy.exceptions.AxisError(axis, ndim)
        axis %= ndim
        if seen[axis]:
            raise ValueError("repeated axis in transpose")
        seen[axis] = True
        perm.append(axis)
    return tuple(perm)


#: built-in values that are no array element: comparing an array with one raises
_NOT_ELEMENTS = frozenset({str, bytes, bytearray, list, tuple, dict, set, frozenset, range})


def _install_operators() -> None:
    global _cupy
    _cupy = sys.modules[__package__]
    from . import _ufunc
    U = _ufunc.UFUNCS
    methods: list = []  # (name, the ufunc's fast path, the method, reversed)
    binary = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
              "floordiv": "floor_divide", "mod": "remainder", "pow": "power",
              "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
              "lshift": "left_shift", "rshift": "right_shift"}
    for op, uname in binary.items():
        uf = U[uname]

        def fwd(self: Any, other: Any, uf: Any = uf, fast: Any = uf._fast2) -> Any:
            r = fast(self, other)
            if r is not None:
                return r
            r = _ufunc.numpy_dispatch(self, other, uf._name)
            if r is not _ufunc._MISSING:
                return r
            if not _ufunc.is_operand(other):
                return NotImplemented
            return uf(self, other)

        def rev(self: Any, other: Any, uf: Any = uf, fast: Any = uf._fast2) -> Any:
            r = fast(other, self)
            if r is not None:
                return r
            if not _ufunc.is_operand(other):
                return NotImplemented
            return uf(other, self)

        def inplace(self: Any, other: Any, uf: Any = uf, fast: Any = uf._fast_into) -> Any:
            if fast(self, other) is not None:
                return self
            if not _ufunc.is_operand(other):
                return NotImplemented
            uf(self, other, out=self)
            return self
        setattr(ndarray, f"__{op}__", fwd)
        setattr(ndarray, f"__r{op}__", rev)
        setattr(ndarray, f"__i{op}__", inplace)
        methods += [(f"__{op}__", uf._fast2, fwd, False),
                    (f"__r{op}__", uf._fast2, rev, True),
                    (f"__i{op}__", uf._fast_into, inplace, False)]
    for op, uname in {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
                      "gt": "greater", "ge": "greater_equal"}.items():
        uf = U[uname]

        def cmp(self: Any, other: Any, uf: Any = uf, op: str = op,
                fast: Any = uf._fast2) -> Any:
            r = fast(self, other)
            if r is not None:
                return r
            if type(other) is numpy.ndarray and other.ndim == 0:
                other = other.item()  # (CuPy's ``__richcmp__``: a 0-d host array's value)
            elif type(other) in _NOT_ELEMENTS:
                # CuPy compares through ``numpy.<ufunc>``, whose call CuPy's
                # ``__array_ufunc__`` declines for these: NumPy's TypeError
                raise TypeError(
                    f"operand type(s) all returned NotImplemented from __array_ufunc__"
                    f"({uf._np!r}, '__call__', {self!r}, {other!r}): 'ndarray', "
                    f"'{type(other).__name__}'")
            if op not in ("eq", "ne"):
                r = _ufunc.numpy_dispatch(self, other, uf._name)
                if r is not _ufunc._MISSING:
                    return r
            if not _ufunc.is_operand(other):
                return NotImplemented
            if op in ("eq", "ne") and not _ufunc.is_array_like_operand(other):
                t = type(other)
                if t.__module__ != "builtins":
                    # an object with its own comparison decides, as NumPy lets each
                    # element's reflected comparison decide
                    if t.__eq__ is not object.__eq__ and op == "eq" or \
                            t.__ne__ is not object.__ne__ and op == "ne":
                        return NotImplemented
                    if op == "ne" and t.__eq__ is not object.__eq__:
                        eq = other.__eq__(self)  # object.__ne__ inverts __eq__
                        if eq is not NotImplemented:
                            return U["logical_not"](eq)
                # like NumPy: an object that is no array element compares unequal
                from . import ones, zeros
                return (zeros if op == "eq" else ones)(self.shape, dtype=bool)
            return uf(self, other)
        setattr(ndarray, f"__{op}__", cmp)
        methods.append((f"__{op}__", uf._fast2, cmp, False))
    ndarray.__neg__ = lambda self: U["negative"](self)  # type: ignore[assignment]
    ndarray.__pos__ = lambda self: U["positive"](self)  # type: ignore[assignment]
    ndarray.__abs__ = lambda self: U["absolute"](self)  # type: ignore[assignment]
    ndarray.__invert__ = lambda self: U["invert"](self)  # type: ignore[assignment]

    def divmod_(self: Any, other: Any) -> Any:
        r = _ufunc.numpy_dispatch(self, other, "divmod")
        if r is not _ufunc._MISSING:
            return r
        return U["divmod"](self, other) if _ufunc.is_operand(other) else NotImplemented

    def rdivmod_(self: Any, other: Any) -> Any:
        return U["divmod"](other, self) if _ufunc.is_operand(other) else NotImplemented
    ndarray.__divmod__ = divmod_  # type: ignore[assignment]
    ndarray.__rdivmod__ = rdivmod_  # type: ignore[assignment]

    def matmul(self: Any, other: Any) -> Any:
        r = _ufunc.numpy_dispatch(self, other, "matmul")
        if r is not _ufunc._MISSING:
            return r
        return _cupy.matmul(self, other) if _ufunc.is_operand(other) else NotImplemented

    def rmatmul(self: Any, other: Any) -> Any:
        return _cupy.matmul(other, self) if _ufunc.is_operand(other) else NotImplemented

    def imatmul(self: Any, other: Any) -> Any:
        return _cupy.matmul(self, other, out=self)
    accel = _ufunc._accel
    if accel is not None:
        # the same methods in C (shim/gpushare/_accel.c): a method whose fast path
        # declines calls the Python one above; and ndarray.__del__
        ndarray.__del__ = accel.setup(  # type: ignore[method-assign]
            ndarray, _client.Session, _client._OURS, _client._where, _ufunc._c_layout,
            _ufunc._broadcast, _ufunc._same_kind, _client.BATCH_CALLS,
            tuple(vars(cls)[name] for cls, name in (
                (_client.RemoteHandle, "_gs_id"), (_client.RemoteHandle, "_gs_session"),
                (ndarray, "_shape"), (ndarray, "_dtype"), (ndarray, "_strides"),
                (ndarray, "_flags"), (ndarray, "_base"), (ndarray, "_meta_ok"))))
        for name, fast, fallback, reverse in methods:
            if isinstance(fast, accel.Op):
                setattr(ndarray, name, accel.method(name, fast, fallback, reverse))
    general_pow = ndarray.__pow__

    def pow_(self: Any, other: Any, modulo: Any = None) -> Any:
        # CuPy's __pow__ (core.pyx) takes these powers as other ufuncs: ** 2 square,
        # ** 0.5 sqrt, ** -1.0 reciprocal (complex ones then differ from power's
        # exp(log(z) * w)), in result_type's dtype for operands of other kinds
        kind = type(other)
        if kind is int and other == 2 or kind is float and other in (0.5, 2.0, -1.0):
            fn = U["sqrt"] if other == 0.5 else U["reciprocal"] if other == -1.0 else \
                U["square"]
            if self._dtype.kind not in ("ifc" if kind is int else "fc"):
                return fn(self, dtype=numpy.result_type(self._dtype, other))
            return fn(self)
        return general_pow(self, other)
    ndarray.__pow__ = pow_  # type: ignore[assignment]
    ndarray.__div__ = ndarray.__truediv__  # type: ignore[attr-defined]  # CuPy's Cython
    ndarray.__idiv__ = ndarray.__itruediv__  # type: ignore[attr-defined]  # slots, kept
    ndarray.__matmul__ = matmul  # type: ignore[assignment]
    ndarray.__rmatmul__ = rmatmul  # type: ignore[assignment]
    ndarray.__imatmul__ = imatmul  # type: ignore[assignment]


def _objects_module() -> Any:
    return sys.modules[__name__.rsplit(".", 1)[0] + "._objects"]
