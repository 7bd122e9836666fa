"""gpushare's wire protocol, sans-IO: values and messages to frames and back.

Nothing here touches a socket (compare h11). A message is a list of frames: frame 0
is a msgpack header; any further frames are raw array buffers referenced from the
header by index, so large arrays travel without being copied into msgpack.

Values that msgpack cannot express natively are msgpack extension types (see
``Ext``). There is no pickle anywhere: an unknown type is an encoding error.

Client -> server headers (dicts, key ``"t"`` gives the kind):

``hello``   ``{"t": "hello", "v": PROTOCOL_VERSION, "client": {...}}``
``batch``   ``{"t": "batch", "n": count, "release": [[pos, id], ...], "ack": seq}``,
            then frame 1: the ``n`` calls, msgpack values back to back (each release
            applies before the call at ``pos``: after every call queued while its
            proxy lived), then the buffers their arguments reference
``bye``     ``{"t": "bye"}``

A call is ``[seq, op, target, args, kwargs, out_id, want_reply]``, or an operator's
record ``[seq, kinds, target, a, b, out_id]`` (``client.Session.fast_op``): ``target(a,
b)``, where bit 0 of ``kinds`` says ``a`` is a handle id, bit 1 the same of ``b``, and
the others are plain Python scalars; ``kinds`` 4: ``target(a)``, ``b`` None; bit 3 (with
bit 0): ``target(a, b, out=a)``, ``out_id`` being ``a``.

Server -> client headers:

``welcome`` ``{"t": "welcome", "v": ..., "session": str, "backend": str, ...}``
``done``    ``{"t": "done", "upto": seq, "results": [[seq, value, warnings]...],
               "error": None | [seq, ErrorInfo, skipped_ids], "warnings": [...]}``
``fatal``   ``{"t": "fatal", "error": ErrorInfo}``  the session cannot go on
"""
from __future__ import annotations

import collections
import enum
import functools
import threading
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import msgpack
import numpy

#: Bumped on any incompatible change; the handshake refuses a mismatch.
PROTOCOL_VERSION = 3  # 2: the operators' records; 3: the direct path's PLAIN token

#: Buffers at least this large travel as their own zero-copy frame.
INLINE_LIMIT = 1 << 12
#: Arrays at least this large travel as a stream of separate chunk messages: one big
#: ZeroMQ frame moves several times slower than many small ones, and buffering a whole
#: message would double the memory on each side.
STREAM_MIN = 1 << 20
CHUNK_BYTES = 1 << 20


class Ext(enum.IntEnum):
    """msgpack extension type codes used by gpushare."""

    HANDLE = 1        # a reference to a server-side object: [id]
    HOST_ARRAY = 2    # numpy data: [descr, shape, frame_index | bytes]
    TUPLE = 3         # a tuple (msgpack would turn it into a list)
    SLICE = 4         # [start, stop, step]
    ELLIPSIS = 5
    COMPLEX = 6       # [real, imag]
    DTYPE = 7         # a numpy.dtype instance: descr
    SCALAR_TYPE = 8   # a numpy scalar type such as numpy.float32: descr
    NUMPY_SCALAR = 9  # [descr, raw bytes]
    REMOTE_ARRAY = 10  # server -> client: [id, shape, descr, strides, flags, base_id]
    REMOTE_OBJECT = 11  # server -> client: [id, type_name, attrs]
    BIGINT = 12       # an int outside 64 bits, as its decimal string
    PYTYPE = 13       # one of the builtin types int, float, complex, bool, object
    NAMEDTUPLE = 14   # [type name, field names, values]: rebuilt as a plain namedtuple


class ProtocolError(Exception):
    """A peer sent something that is not gpushare's protocol."""


class HandleRef:
    """A reference to an object living in the server's handle table (made for every
    array argument a server decodes: a plain slotted class, not a dataclass)."""

    __slots__ = ("id",)

    def __init__(self, id: int) -> None:  # noqa: A002 - the field's name
        self.id = id

    def __eq__(self, other: object) -> bool:
        return type(other) is HandleRef and other.id == self.id

    def __hash__(self) -> int:
        return hash((HandleRef, self.id))

    def __repr__(self) -> str:
        return f"HandleRef(id={self.id!r})"


@dataclass(frozen=True)
class ArrayMeta:
    """What the client knows of a server-side array without fetching it."""

    id: int
    shape: tuple
    dtype: numpy.dtype
    strides: tuple
    flags: int          # bit 0: C-contiguous, bit 1: F-contiguous, bit 2: owndata
    base_id: int | None


@dataclass(frozen=True)
class RemoteObject:
    """A non-array server-side object (RandomState, Stream, kernel...)."""

    id: int
    type_name: str
    attrs: dict


class HostArray:
    """A numpy array that came from the client (host memory), as the server sees it.

    Kept distinct from device arrays so the CPU backend can refuse it where CuPy
    refuses a numpy array.
    """

    __slots__ = ("array",)

    def __init__(self, array: numpy.ndarray) -> None:
        self.array = array


FLAG_C, FLAG_F, FLAG_OWN = 1, 2, 4

_PYTYPES = {"int": int, "float": float, "complex": complex, "bool": bool, "object": object}
_PYTYPE_NAMES = {v: k for k, v in _PYTYPES.items()}


@functools.lru_cache(maxsize=64)
def _namedtuple(name: str, fields: tuple) -> Any:
    if not name.isidentifier() or not all(f.isidentifier() for f in fields):
        raise ProtocolError(f"bad namedtuple {name!r}{fields!r}")
    return collections.namedtuple(name, fields)


#: a ``cupy.ndarray.mdspan`` as a RawKernel argument: the array, the size of the index
#: type (4 or 8) and ``allow_unsafe``; the server packs libcudacxx's struct from it
MdspanArg = collections.namedtuple("gpushare_mdspan", ("array", "index_itemsize",
                                                       "allow_unsafe"))


def mdspan_arg(value: Any) -> Any:
    """``value`` as an :data:`MdspanArg` when it is one (decoded, a namedtuple of that
    name and fields: the decoder makes its own class), else None."""
    if (isinstance(value, tuple) and type(value).__name__ == "gpushare_mdspan"
            and getattr(value, "_fields", None) == MdspanArg._fields):
        itemsize = value.index_itemsize
        if type(itemsize) is not int or itemsize not in (4, 8):
            raise TypeError("gpushare: malformed mdspan argument")
        return value
    return None


def dtype_to_wire(dt: numpy.dtype) -> Any:
    if dt.fields is None and dt.subdtype is None:
        c = dt.char
        if c == "q" or c == "Q":  # longlong: its own type beside int64 ('l'), whose
            return dt.str[0] + c  # ``str`` it shares ('<i8'): CuPy keeps it, so do we
        return dt.str
    return _struct_to_wire(dt)


def _struct_to_wire(dt: numpy.dtype) -> dict:
    """A structured or subarray dtype, exactly: its fields' offsets (out of order or
    overlapping, as a multi-field view's), itemsize, ``align=True`` and the
    ``__cuda_alignment__`` CuPy's ``make_aligned_dtype`` attaches as metadata."""
    if dt.fields is None:
        assert dt.subdtype is not None
        base, shape = dt.subdtype
        return {"base": dtype_to_wire(base), "shape": list(shape)}
    names, formats, offsets, titles = [], [], [], []
    for name in dt.names:
        field = dt.fields[name]
        names.append(name)
        formats.append(dtype_to_wire(field[0]))
        offsets.append(field[1])
        titles.append(field[2] if len(field) > 2 else None)
    wire: dict = {"names": names, "formats": formats, "offsets": offsets,
                  "itemsize": dt.itemsize, "aligned": bool(dt.isalignedstruct)}
    if any(t is not None for t in titles):
        wire["titles"] = titles
    alignment = (dt.metadata or {}).get("__cuda_alignment__")
    if isinstance(alignment, int):
        wire["cuda_alignment"] = alignment
    return wire


def dtype_from_wire(descr: Any) -> numpy.dtype:
    if isinstance(descr, str):
        return numpy.dtype(descr)
    if isinstance(descr, dict):
        return _struct_from_wire(descr)
    return numpy.lib.format.descr_to_dtype(_lists_to_tuples(descr))


def _struct_from_wire(wire: dict) -> numpy.dtype:
    try:
        if "base" in wire:
            return numpy.dtype((dtype_from_wire(wire["base"]), tuple(wire["shape"])))
        spec = {"names": list(wire["names"]),
                "formats": [dtype_from_wire(f) for f in wire["formats"]],
                "offsets": list(wire["offsets"]), "itemsize": wire["itemsize"]}
        if "titles" in wire:
            spec["titles"] = list(wire["titles"])
        extra: dict = {}
        if "cuda_alignment" in wire:
            extra["metadata"] = {"__cuda_alignment__": int(wire["cuda_alignment"])}
        return numpy.dtype(spec, align=bool(wire.get("aligned")), **extra)
    except (KeyError, TypeError, ValueError, RecursionError) as exc:  # (nested too deep)
        raise ProtocolError(f"bad structured dtype on the wire: {exc}") from None


def _lists_to_tuples(descr: Any) -> Any:
    if isinstance(descr, list):
        return [tuple(_lists_to_tuples(x) if isinstance(x, list) else x for x in field)
                if isinstance(field, list) else field for field in descr]
    return descr


_tls = threading.local()
_INT_PACKER = msgpack.Packer()

#: ``msgpack.packb`` of headers, replies and envelopes (plain values, lists, maps)
#: without building a Packer each time (that costs ~1 us, three times the packing).
#: One C call that runs no Python code, so threads cannot interleave inside it.
packb = msgpack.Packer().pack


def _pack_int(value: int) -> bytes:
    return _INT_PACKER.pack(int(value))


_PLAIN_PACKER = msgpack.Packer(strict_types=True, use_bin_type=True)
#: the types msgpack packs as they are (an int only from INT_MIN to below INT_END)
PLAIN_TYPES = frozenset({int, float, bool, str, type(None)})
INT_MIN, INT_END = -(1 << 63), 1 << 64
_ELLIPSIS_EXT = msgpack.ExtType(Ext.ELLIPSIS, b"")


def plain_ext(value: Any) -> Any:
    """What ``Encoder`` makes of a tuple or slice whose items are plain values (ints
    that fit 64 bits, floats, bools, strings, None), Ellipsis, or such tuples and
    slices again: shapes, axes, index keys. Made directly, without an ``Encoder``; None
    for anything else (``tests/test_protocol.py`` checks both give the same bytes)."""
    kind = type(value)
    if kind is slice:
        parts = [value.start, value.stop, value.step]
    elif kind is tuple:
        parts = list(value)
    else:
        return None
    for i, item in enumerate(parts):
        k = type(item)
        if k in PLAIN_TYPES:
            if k is int and not INT_MIN <= item < INT_END:
                return None
        elif k is slice or k is tuple:
            item = plain_ext(item)
            if item is None:
                return None
            parts[i] = item
        elif item is Ellipsis:
            parts[i] = _ELLIPSIS_EXT
        else:
            return None
    return msgpack.ExtType(Ext.TUPLE if kind is tuple else Ext.SLICE, _PLAIN_PACKER.pack(parts))


_DTYPE_EXTS: dict = {}  # a plain dtype -> its ExtType (see ``dtype_ext``)


def dtype_ext(dt: numpy.dtype) -> Any:
    """What ``Encoder`` makes of a dtype without fields or a subarray (what creation
    calls and ``astype`` pass): made once per dtype, without an ``Encoder``; None for
    other dtypes (``tests/test_protocol.py`` checks both give the same bytes)."""
    c = dt.char
    if c == "q" or c == "Q":  # (equal to int64's, and hashed alike: not in the table)
        return msgpack.ExtType(Ext.DTYPE, _PLAIN_PACKER.pack(dtype_to_wire(dt)))
    ext = _DTYPE_EXTS.get(dt)
    if ext is None:
        if dt.fields is not None or dt.subdtype is not None:
            return None
        if len(_DTYPE_EXTS) >= 256:
            _DTYPE_EXTS.clear()
        ext = _DTYPE_EXTS[dt] = msgpack.ExtType(Ext.DTYPE, _PLAIN_PACKER.pack(dt.str))
    return ext


def _default_dispatch(obj: Any) -> Any:
    return _tls.encoder._default(obj)


def _packer(depth: int) -> msgpack.Packer:
    """A reusable Packer per nesting depth and thread (building one costs more than
    packing a small call)."""
    pool = _tls.__dict__.setdefault("packers", [])
    while len(pool) <= depth:
        pool.append(msgpack.Packer(default=_default_dispatch, strict_types=True,
                                   use_bin_type=True))
    return pool[depth]


class Encoder:
    """Encodes one message; collects out-of-band buffers as it goes."""

    def __init__(self, handle_of: Callable[[Any], int | None] | None = None,
                 remote_of: Callable[[Any], Any] | None = None, first_frame: int = 1) -> None:
        self.frames: list[Any] = []
        self.first_frame = first_frame
        self._handle_of = handle_of
        self._remote_of = remote_of

    def _pack(self, obj: Any) -> bytes:
        outer = getattr(_tls, "encoder", None)
        depth = getattr(_tls, "depth", 0)
        _tls.encoder, _tls.depth = self, depth + 1
        packer = _packer(depth)
        try:
            return packer.pack(obj)
        except BaseException:
            packer.reset()
            raise
        finally:
            _tls.encoder, _tls.depth = outer, depth

    def _default(self, obj: Any) -> Any:
        if self._handle_of is not None:
            hid = self._handle_of(obj)
            if hid is not None:
                return msgpack.ExtType(Ext.HANDLE, _pack_int(hid))
        if isinstance(obj, HostArray):
            return msgpack.ExtType(Ext.HOST_ARRAY, self._pack(self._array_payload(obj.array)))
        if self._remote_of is not None:
            remote = self._remote_of(obj)
            if remote is not None:
                return self._default(remote)
        if isinstance(obj, numpy.generic):
            return msgpack.ExtType(Ext.NUMPY_SCALAR, self._pack(
                [dtype_to_wire(obj.dtype), numpy.asarray(obj).tobytes()]))
        if isinstance(obj, tuple):
            if type(obj) is not tuple and hasattr(obj, "_fields"):  # a namedtuple result
                return msgpack.ExtType(Ext.NAMEDTUPLE, self._pack(
                    [type(obj).__name__, list(obj._fields), list(obj)]))
            return msgpack.ExtType(Ext.TUPLE, self._pack(list(obj)))
        if isinstance(obj, bool):
            return bool(obj)
        if isinstance(obj, int):
            if INT_MIN <= obj < INT_END:
                return int(obj)
            return msgpack.ExtType(Ext.BIGINT, self._pack(str(int(obj))))
        if isinstance(obj, float):
            return float(obj)
        if isinstance(obj, str):
            return str(obj)
        if isinstance(obj, complex):
            return msgpack.ExtType(Ext.COMPLEX, self._pack([obj.real, obj.imag]))
        if isinstance(obj, slice):
            return msgpack.ExtType(Ext.SLICE, self._pack([obj.start, obj.stop, obj.step]))
        if obj is Ellipsis:
            return msgpack.ExtType(Ext.ELLIPSIS, b"")
        if isinstance(obj, numpy.dtype):
            return msgpack.ExtType(Ext.DTYPE, self._pack(dtype_to_wire(obj)))
        if isinstance(obj, type):
            if issubclass(obj, numpy.generic):
                return msgpack.ExtType(Ext.SCALAR_TYPE, self._pack(dtype_to_wire(numpy.dtype(obj))))
            if obj in _PYTYPE_NAMES:
                return msgpack.ExtType(Ext.PYTYPE, self._pack(_PYTYPE_NAMES[obj]))
        if isinstance(obj, numpy.ndarray):
            return msgpack.ExtType(Ext.HOST_ARRAY, self._pack(self._array_payload(obj)))
        if isinstance(obj, HandleRef):
            return msgpack.ExtType(Ext.HANDLE, _pack_int(obj.id))
        if isinstance(obj, ArrayMeta):
            return msgpack.ExtType(Ext.REMOTE_ARRAY, self._pack(
                [obj.id, list(obj.shape), dtype_to_wire(obj.dtype), list(obj.strides),
                 obj.flags, obj.base_id]))
        if isinstance(obj, RemoteObject):
            return msgpack.ExtType(Ext.REMOTE_OBJECT, self._pack(
                [obj.id, obj.type_name, obj.attrs]))
        if isinstance(obj, (set, frozenset)):
            return msgpack.ExtType(Ext.TUPLE, self._pack(sorted(obj)))
        raise TypeError(f"gpushare cannot send an object of type {type(obj).__name__!r}")

    def _array_payload(self, arr: numpy.ndarray) -> list:
        if arr.dtype.hasobject:
            raise TypeError("gpushare cannot send arrays of dtype object")
        shape = list(arr.shape)
        if not arr.flags.c_contiguous:
            arr = numpy.ascontiguousarray(arr)
        descr = dtype_to_wire(arr.dtype)
        if arr.nbytes < INLINE_LIMIT:
            return [descr, shape, arr.tobytes()]
        self.frames.append(memoryview(arr.reshape(-1).view(numpy.uint8)))
        return [descr, shape, self.first_frame + len(self.frames) - 1]

    def pack(self, value: Any) -> bytes:
        """msgpack ``value``; its large buffers are collected in ``self.frames``."""
        return self._pack(value)

    def encode(self, header: Any) -> list:
        """Return ``[header_bytes, *buffers]``."""
        head = self._pack(header)
        return [head, *self.frames]


def encode(header: Any, handle_of: Callable[[Any], int | None] | None = None) -> list:
    """Encode ``header`` (any supported value) into a list of frames."""
    return Encoder(handle_of).encode(header)


_UINT_WIDTHS = {0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8}


def _handle_id(data: bytes) -> int | None:
    """The msgpack integer ``data`` when it is a fixint or an unsigned int (what
    handle ids are packed as); None for anything else (decoded the general way)."""
    first = data[0] if data else -1
    if len(data) == 1:
        if first < 0x80:
            return first
        return first - 0x100 if first >= 0xe0 else None
    if len(data) == 1 + _UINT_WIDTHS.get(first, -2):
        return int.from_bytes(data[1:], "big")
    return None


#: extension values nested deeper than this are refused: each level is a C unpacker's
#: frame (~40 KiB of stack), so a few hundred would crash the process (NumPy has at
#: most 64 dimensions: no value of any use is this deep)
MAX_NESTING = 64


class Decoder:
    """Decodes one message's frames back into values.

    ``host_array`` wraps arrays that came in as host data (the server wraps them
    in ``HostArray``; the client takes them as they are).
    """

    def __init__(self, frames: Sequence[Any], *, resolve_handle: Callable[[int], Any] | None = None,
                 host_array: Callable[[numpy.ndarray], Any] | None = None,
                 remote_array: Callable[[ArrayMeta], Any] | None = None,
                 remote_object: Callable[[RemoteObject], Any] | None = None,
                 writable: bool = False) -> None:
        self.frames = frames
        self.resolve_handle = resolve_handle
        self.host_array = host_array
        self.remote_array = remote_array
        self.remote_object = remote_object
        self.writable = writable
        self._depth = 0  # extension values being decoded inside one another

    def unpack(self, data: bytes) -> Any:
        """Decode a msgpack value nested inside this message (its buffers may live in
        this message's frames)."""
        return self._unpack(data)

    def _unpack(self, data: bytes) -> Any:
        depth = self._depth
        if depth > MAX_NESTING:
            raise ProtocolError(f"values nested more than {MAX_NESTING} deep")
        self._depth = depth + 1
        try:
            return msgpack.unpackb(data, ext_hook=self._ext, raw=False,
                                   strict_map_key=False, use_list=True)
        finally:
            self._depth = depth

    def _ext(self, code: int, data: bytes) -> Any:
        if code == Ext.HANDLE:  # by far the most common: its int is read directly
            hid = _handle_id(data)
            if hid is None:
                hid = self._unpack(data)
            return self.resolve_handle(hid) if self.resolve_handle else HandleRef(hid)
        if code == Ext.TUPLE:
            return tuple(self._unpack(data))
        if code == Ext.SLICE:
            return slice(*self._unpack(data))
        if code == Ext.ELLIPSIS:
            return Ellipsis
        if code == Ext.COMPLEX:
            re, im = self._unpack(data)
            return complex(re, im)
        if code == Ext.DTYPE:
            return dtype_from_wire(self._unpack(data))
        if code == Ext.SCALAR_TYPE:
            return dtype_from_wire(self._unpack(data)).type
        if code == Ext.PYTYPE:
            name = self._unpack(data)
            if name not in _PYTYPES:
                raise ProtocolError(f"unknown builtin type {name!r}")
            return _PYTYPES[name]
        if code == Ext.NUMPY_SCALAR:
            descr, raw = self._unpack(data)
            dtype = dtype_from_wire(descr)
            if len(memoryview(raw)) != dtype.itemsize:
                raise ProtocolError("a scalar's bytes do not match its dtype")
            return numpy.frombuffer(raw, dtype=dtype)[0]
        if code == Ext.HOST_ARRAY:
            arr = self._host_array(*self._unpack(data))
            return self.host_array(arr) if self.host_array else arr
        if code == Ext.NAMEDTUPLE:
            name, fields, values = self._unpack(data)
            return _namedtuple(str(name), tuple(str(f) for f in fields))(*values)
        if code == Ext.BIGINT:
            return int(self._unpack(data))
        if code == Ext.REMOTE_ARRAY:
            hid, shape, descr, strides, flags, base_id = self._unpack(data)
            meta = ArrayMeta(hid, tuple(shape), dtype_from_wire(descr), tuple(strides),
                             flags, base_id)
            return self.remote_array(meta) if self.remote_array else meta
        if code == Ext.REMOTE_OBJECT:
            hid, type_name, attrs = self._unpack(data)
            obj = RemoteObject(hid, type_name, attrs)
            return self.remote_object(obj) if self.remote_object else obj
        raise ProtocolError(f"unknown msgpack extension type {code}")

    def _host_array(self, descr: Any, shape: list, data: Any) -> numpy.ndarray:
        dtype = dtype_from_wire(descr)
        if isinstance(data, int):
            if not 1 <= data < len(self.frames):
                raise ProtocolError(f"array refers to missing frame {data}")
            frame = self.frames[data]
            buf = frame.buffer if hasattr(frame, "buffer") else frame
        else:
            buf = data
        count = 1
        for n in shape:
            if not isinstance(n, int) or n < 0:
                raise ProtocolError(f"bad array shape {shape!r}")
            count *= n
        if len(memoryview(buf)) != count * dtype.itemsize:
            raise ProtocolError("array buffer size does not match its shape and dtype")
        arr = numpy.frombuffer(buf, dtype=dtype, count=count).reshape(shape)
        if self.writable and not arr.flags.writeable:
            arr = arr.copy()
        return arr

    def decode(self, index: int = 0) -> Any:
        """Decode frame ``index`` (the header by default)."""
        if len(self.frames) <= index:
            raise ProtocolError("message is missing a frame")
        head = self.frames[index]
        head = head.bytes if hasattr(head, "bytes") else bytes(head)
        try:
            return self._unpack(head)
        except ProtocolError:
            raise
        except (ValueError, TypeError, msgpack.UnpackException) as exc:
            raise ProtocolError(f"malformed message: {exc}") from None

    def stream(self, index: int) -> tuple[Any, bytes]:
        """The frame holding several msgpack values back to back: an unpacker fed with
        it (for ``iter_stream``), and its bytes."""
        if len(self.frames) <= index:
            raise ProtocolError("message is missing a frame")
        frame = self.frames[index]
        data = frame.bytes if hasattr(frame, "bytes") else bytes(frame)
        unpacker = msgpack.Unpacker(ext_hook=self._ext, raw=False, strict_map_key=False,
                                    use_list=True, max_buffer_size=max(len(data), 1))
        unpacker.feed(data)
        return unpacker, data

    def iter_stream(self, index: int, unpacker: Any = None) -> Any:
        """Yield the values of a frame holding several msgpack values back to back
        (those ``unpacker``, from ``stream``, has not read yet, if given)."""
        if unpacker is None:
            unpacker = self.stream(index)[0]
        while True:
            try:
                yield next(unpacker)
            except StopIteration:
                return
            except ProtocolError:
                raise
            except (ValueError, TypeError, msgpack.UnpackException) as exc:
                raise ProtocolError(f"malformed call: {exc}") from None


def decode(frames: Sequence[Any], **kwargs: Any) -> Any:
    """Decode a list of frames made by :func:`encode`."""
    return Decoder(frames, **kwargs).decode()
