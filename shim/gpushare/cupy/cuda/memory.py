"""``cupy.cuda.memory``: device memory of the server, seen from the client.

Device memory lives on the gpushare server, so the objects here are stand-ins with
CuPy's interface:

- ``Memory(size)`` allocates ``size`` bytes on the server (a byte array of the session);
  its ``ptr`` is a gpushare address (``cupy/_ndarray.py: pointer_of``), meaningful to
  gpushare only (``MemoryPointer`` copies, ``cupy.ndarray(shape, dtype, memptr)``).
- ``MemoryPointer(mem, offset)`` points into any ``BaseMemory`` as CuPy's does; the
  pointers of arrays (``ndarray.data``) are instances too.
- The default memory pool (``cupy.get_default_memory_pool()``) is the session's pool on
  the server: its statistics, ``free_all_blocks`` and ``set_limit`` are the server's.
- A ``MemoryPool`` / ``SingleDeviceMemoryPool`` made by the program is CuPy's pool (best
  fit, split and merged chunks, an arena per stream) kept on the client over its
  allocator (default: new server memory each time): ``pool.malloc(n)`` gives pointers
  into server memory, reused as CuPy reuses them.
- Arrays are always allocated by the server's pool: ``set_allocator`` accepts ``None``
  and the malloc of a pool or of gpushare's allocators (programs run unchanged; the
  server still allocates); an allocator written in Python, which could not allocate the
  server's memory, is kept (``get_allocator``, ``alloc``) with a ``UserWarning`` saying
  that arrays do not come from it.
"""
from __future__ import annotations

import bisect
import contextlib
import gc
import os
import threading
import warnings
import weakref
from typing import Any, Iterator

from ... import client as _client
from ...errors import OutOfMemoryError
from .. import _ndarray

#: CuPy's allocation unit (the pool rounds sizes up to a multiple of it)
_allocation_unit_size = 512
ALLOCATION_UNIT_SIZE = _allocation_unit_size

_UINT64_MAX = 2 ** 64 - 1


def _oom(size: int, total: int, limit: int = 0) -> OutOfMemoryError:
    """CuPy's ``OutOfMemoryError(size, total, limit)`` message."""
    if limit == 0:
        msg = f"Out of memory allocating {size:,} bytes"
        if total != -1:
            msg += f" (allocated so far: {total:,} bytes)."
    else:
        msg = (f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} "
               f"bytes, limit set to: {limit:,} bytes).")
    return OutOfMemoryError(msg)


def _device_id() -> int:
    from . import runtime
    return int(runtime.getDevice())


# --- memory ------------------------------------------------------------------------------
class BaseMemory:
    """Memory on a device: ``ptr``, ``size``, ``device_id`` (see cupy.cuda.BaseMemory)."""

    ptr: int = 0
    size: int = 0
    device_id: int = 0

    def __int__(self) -> int:
        return self.ptr

    @property
    def device(self) -> Any:
        from . import Device
        return Device(self.device_id)

    def __repr__(self) -> str:
        return f"<gpushare {type(self).__name__} 0x{self.ptr:x}, {self.size} bytes>"


class Memory(BaseMemory):
    """``size`` bytes of the server's device memory, freed when this is dropped (see
    cupy.cuda.Memory). ``ptr`` is a gpushare address."""

    def __init__(self, size: int) -> None:
        self.size = _ndarray._size(size)
        self.device_id = _device_id()
        self.ptr = 0
        self._array: Any = None
        if self.size > 0:
            from .. import empty
            import numpy
            self._array = empty((self.size,), dtype=numpy.uint8)
            # a new array owns its memory: its address needs no round trip, so an
            # allocation is pipelined like the array's own creation
            self.ptr = _ndarray._pointer_at(self._array._gs_session, self._array, 0).ptr


class ManagedMemory(Memory):
    """Managed memory (see cupy.cuda.ManagedMemory): where it lives is the server's
    business, so it is device memory there; ``prefetch`` and ``advise`` check their
    arguments and have nothing to move."""

    def prefetch(self, stream: Any, *, device_id: int = -2) -> None:
        """See cupy.cuda.ManagedMemory.prefetch (nothing to move on the server's side)."""
        from . import runtime
        if device_id != -2 and not 0 <= int(device_id) < runtime.getDeviceCount():
            raise runtime.CUDARuntimeError(101, "cudaErrorInvalidDevice: invalid device "
                                                "ordinal")

    def advise(self, advise: int, dev: Any) -> None:
        """See cupy.cuda.ManagedMemory.advise (``cudaMemoryAdvise`` 1 to 6)."""
        from . import runtime
        if not 1 <= int(advise) <= 6:
            raise runtime.CUDARuntimeError(1, "cudaErrorInvalidValue: invalid argument")


class MemoryAsync(Memory):
    """Memory allocated on a stream (see cupy.cuda.MemoryAsync): the server allocates it
    in the session's call order; ``stream_ref`` is a weak reference to the stream."""

    def __init__(self, size: int, stream: Any) -> None:
        super().__init__(size)
        self.stream_ref = weakref.ref(stream)


class UnownedMemory(BaseMemory):
    """Memory at ``ptr`` that ``owner`` keeps alive (see cupy.cuda.UnownedMemory); on
    gpushare, ``ptr`` is a gpushare address."""

    def __init__(self, ptr: int, size: int, owner: Any, device_id: int = -1) -> None:
        if device_id < 0:
            if ptr == 0:
                raise RuntimeError("UnownedMemory requires explicit device ID for a null "
                                   "pointer.")
            device_id = _device_id()
        self.ptr = int(ptr)
        self.size = _ndarray._size(size)
        self.device_id = int(device_id)
        self._owner = owner


class _MemoryPointerType(type):
    """``isinstance(x, MemoryPointer)`` holds for every gpushare device pointer (those of
    arrays, ``ndarray.data``, included)."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, _ndarray.MemoryPointer)

    def __subclasscheck__(cls, sub: Any) -> bool:
        return issubclass(sub, _ndarray.MemoryPointer)


class MemoryPointer(_ndarray.MemoryPointer, metaclass=_MemoryPointerType):
    """A pointer to ``offset`` bytes into ``mem`` (see cupy.cuda.MemoryPointer); the
    memcopies and ``memset`` reach the server memory at a gpushare address."""

    def __init__(self, mem: BaseMemory, offset: int = 0) -> None:
        if not isinstance(mem, BaseMemory):
            raise TypeError(f"mem must be a cupy.cuda.BaseMemory, not {type(mem).__name__}")
        offset = int(offset)
        if mem.ptr == 0 and offset != 0:
            raise ValueError("an offset from a NULL pointer")
        root = getattr(mem, "_array", None)
        if root is None and isinstance(mem, PooledMemory):
            root = getattr(mem.chunk.mem, "_array", None)
        super().__init__(mem.ptr + offset, root)
        self._mem = mem
        self.device_id = mem.device_id

    @property
    def mem(self) -> BaseMemory:  # type: ignore[override]
        return self._mem

    @property
    def device(self) -> Any:
        from . import Device
        return Device(self.device_id)

    def __add__(self, offset: int) -> "MemoryPointer":
        return MemoryPointer(self._mem, self.ptr - self._mem.ptr + int(offset))

    __radd__ = __add__

    def __sub__(self, offset: int) -> "MemoryPointer":
        return self + (-int(offset))

    def __repr__(self) -> str:
        return f"<gpushare MemoryPointer 0x{self.ptr:x} device={self.device_id} " \
               f"mem={self._mem!r}>"


# --- allocators --------------------------------------------------------------------------
def _malloc(size: int) -> MemoryPointer:
    """New server memory (see cupy.cuda.memory._malloc)."""
    return MemoryPointer(Memory(size), 0)


def malloc_managed(size: int) -> MemoryPointer:
    """Managed memory: device memory of the server (see cupy.cuda.malloc_managed)."""
    return MemoryPointer(ManagedMemory(size), 0)


def malloc_async(size: int) -> MemoryPointer:
    """Memory allocated on the current stream (see cupy.cuda.malloc_async)."""
    from . import get_current_stream
    return MemoryPointer(MemoryAsync(size, get_current_stream()), 0)


_GPUSHARE_ALLOCATORS = (_malloc, malloc_managed, malloc_async)
_thread_local = threading.local()


def _session_malloc(size: int) -> MemoryPointer:
    return _DEFAULT_POOL.malloc(size)


_current_allocator: Any = _session_malloc


def _check_allocator(allocator: Any) -> None:
    """Warn about an allocator the server cannot use: one of Python's (or of C) that
    hands out memory of this process. It is kept (``get_allocator`` returns it,
    ``cupy.cuda.alloc`` calls it), but the server allocates arrays from its own pool, so
    the program runs on as it would with CuPy's default allocator."""
    owner = getattr(allocator, "__self__", None)
    if allocator in _GPUSHARE_ALLOCATORS or allocator == _session_malloc or \
            isinstance(owner, (MemoryPool, SingleDeviceMemoryPool, MemoryAsyncPool)):
        return
    warnings.warn(
        "gpushare: arrays are allocated by the gpushare server's memory pool; the allocator "
        "given to cupy.cuda.set_allocator/using_allocator is kept but does not allocate "
        "them", UserWarning, stacklevel=3)


def alloc(size: int) -> MemoryPointer:
    """``size`` bytes from the current allocator (see cupy.cuda.alloc)."""
    return get_allocator()(size)


def set_allocator(allocator: Any = None) -> None:
    """Set the current allocator (see cupy.cuda.set_allocator). The server allocates
    arrays from its pool whatever is set; ``None``, a pool's malloc and gpushare's
    allocators are taken as they are, any other is taken with a warning
    (``_check_allocator``); ``get_allocator`` returns it."""
    global _current_allocator
    if allocator is None:
        allocator = _malloc
    _check_allocator(allocator)
    if getattr(_thread_local, "allocator", None) is not None:
        raise ValueError("Can't change the global allocator inside `using_allocator` "
                         "context manager")
    _current_allocator = allocator


def get_allocator() -> Any:
    """The current allocator (see cupy.cuda.get_allocator)."""
    allocator = getattr(_thread_local, "allocator", None)
    return _current_allocator if allocator is None else allocator


@contextlib.contextmanager
def using_allocator(allocator: Any = None) -> Iterator[None]:
    """Use ``allocator`` in this thread in the block (see cupy.cuda.using_allocator)."""
    if allocator is None:
        allocator = _malloc
    _check_allocator(allocator)
    previous = getattr(_thread_local, "allocator", None)
    _thread_local.allocator = allocator
    try:
        yield
    finally:
        _thread_local.allocator = previous


class PythonFunctionAllocator:
    """Refused: an allocator of this process cannot allocate the server's memory (see
    cupy.cuda.PythonFunctionAllocator)."""

    def __init__(self, malloc_func: Any = None, free_func: Any = None) -> None:
        raise NotImplementedError("gpushare: cupy.cuda.PythonFunctionAllocator: device "
                                  "memory is allocated by the gpushare server")


class CFunctionAllocator:
    """Refused: an allocator of this process cannot allocate the server's memory (see
    cupy.cuda.CFunctionAllocator)."""

    def __init__(self, *args: Any) -> None:
        raise NotImplementedError("gpushare: cupy.cuda.CFunctionAllocator: device memory "
                                  "is allocated by the gpushare server")


# --- CuPy's pool, on the client ----------------------------------------------------------
def _round_size(size: int) -> int:
    """``size`` rounded up to the allocation unit (see cupy.cuda.memory._round_size)."""
    return -(-int(size) // _allocation_unit_size) * _allocation_unit_size


def _parse_limit_string(limit: Any = None) -> dict:
    """``CUPY_GPU_MEMORY_LIMIT``'s value (bytes, or a percentage) as set_limit's args."""
    if limit is None:
        limit = os.environ.get("CUPY_GPU_MEMORY_LIMIT")
    size = fraction = None
    if limit is not None:
        if limit.endswith("%"):
            fraction = float(limit[:-1]) / 100.0
        else:
            size = int(limit)
    return {"size": size, "fraction": fraction}


class _Chunk:
    """A piece of an allocation ``mem`` (CuPy's: ``offset``, ``size``, the ``arena`` it
    belongs to, and ``prev``/``next`` of the same allocation, by address)."""

    def __init__(self, mem: BaseMemory, offset: int, size: int, arena: Any) -> None:
        assert mem.ptr != 0 or offset == 0
        self.mem = mem
        self.offset = int(offset)
        self.size = int(size)
        self.arena = arena
        self.prev: _Chunk | None = None
        self.next: _Chunk | None = None

    def ptr(self) -> int:
        return self.mem.ptr + self.offset

    def split(self, size: int) -> "_Chunk | None":
        """Cut this chunk at ``size`` bytes; the rest (None if nothing is left)."""
        assert self.size >= size
        if self.size == size:
            return None
        remaining = _Chunk(self.mem, self.offset + size, self.size - size, self.arena)
        self.size = size
        if self.next is not None:
            remaining.next = self.next
            remaining.next.prev = remaining
        self.next = remaining
        remaining.prev = self
        return remaining

    def merge_next(self) -> None:
        """Take the (free) next chunk into this one."""
        nxt = self.next
        assert nxt is not None
        nxt.arena = None
        self.size += nxt.size
        self.next = nxt.next
        if self.next is not None:
            self.next.prev = self

    def __repr__(self) -> str:
        return f"<_Chunk 0x{self.ptr():x}, {self.size} bytes>"


class _Arena:
    """The free chunks of one stream, ordered by (size, identity) as CuPy's index."""

    def __init__(self) -> None:
        self.index: list = []  # (size, id(chunk)) sorted
        self.chunks: dict = {}  # id -> chunk

    def _find(self, chunk: _Chunk) -> int:
        key = (chunk.size, id(chunk))
        i = bisect.bisect_left(self.index, key)
        return i if i < len(self.index) and self.index[i] == key else -1

    def try_remove_chunk(self, chunk: _Chunk) -> bool:
        i = self._find(chunk)
        if i < 0:
            return False
        del self.index[i]
        del self.chunks[id(chunk)]
        return True

    def insert_chunk(self, chunk: _Chunk, merge: bool = True) -> None:
        if merge:
            while chunk.next is not None and self.try_remove_chunk(chunk.next):
                chunk.merge_next()
            while chunk.prev is not None and self.try_remove_chunk(chunk.prev):
                chunk = chunk.prev
                chunk.merge_next()
        bisect.insort(self.index, (chunk.size, id(chunk)))
        self.chunks[id(chunk)] = chunk

    def get_chunk(self, size: int) -> "_Chunk | None":
        """The smallest free chunk of at least ``size`` bytes, cut to ``size``."""
        i = bisect.bisect_left(self.index, (size, 0))
        if i == len(self.index):
            return None
        chunk = self.chunks.pop(self.index.pop(i)[1])
        remaining = chunk.split(size)
        if remaining is not None:
            self.insert_chunk(remaining, merge=False)
        return chunk

    def free_all(self) -> int:
        """Drop the free chunks that are whole allocations; the bytes dropped."""
        freed = 0
        for key in list(self.index):
            chunk = self.chunks[key[1]]
            if chunk.next is not None or chunk.prev is not None:
                continue
            self.index.remove(key)
            del self.chunks[key[1]]
            chunk.arena = None
            freed += chunk.size
        return freed

    def __len__(self) -> int:
        return len(self.index)


class PooledMemory(BaseMemory):
    """Memory of a pool, returned to it by ``free()`` or when dropped (see
    cupy.cuda.PooledMemory)."""

    def __init__(self, chunk: _Chunk, pool: Any) -> None:
        self.chunk = chunk
        self.ptr = chunk.ptr()
        self.size = chunk.size
        self.device_id = chunk.mem.device_id
        self.pool = pool  # a weak reference
        self.identity = type(chunk.mem).__name__

    def free(self) -> None:
        """Return the memory to the pool (once)."""
        if self.ptr == 0:
            return
        self.ptr = 0
        pool = self.pool()
        if pool is not None:
            pool._free(self.chunk)

    def __del__(self) -> None:
        try:
            self.free()
        except Exception:  # the interpreter is shutting down
            pass


def _stream_ident() -> int:
    from . import _current_stream_ptr
    return _current_stream_ptr()


class SingleDeviceMemoryPool:
    """CuPy's memory pool (see cupy.cuda.memory.SingleDeviceMemoryPool), on the client
    over ``allocator`` (default: new server memory for each block)."""

    def __init__(self, allocator: Any = None) -> None:
        self._allocator = _malloc if allocator is None else allocator
        self._arenas: dict = {}
        self._lock = threading.RLock()
        self._total_bytes = 0
        self._in_use_bytes = 0
        self._limit = 0
        self._weakref = weakref.ref(self)
        self._device_id = _device_id()
        self.set_limit(**_parse_limit_string())

    def _arena(self, stream_ident: int) -> _Arena:
        ref = self._arenas.get(stream_ident)
        arena = ref() if ref is not None else None
        if arena is None:
            for key in [k for k, r in self._arenas.items() if r() is None]:
                del self._arenas[key]
            arena = _Arena()
            self._arenas[stream_ident] = weakref.ref(arena)
        return arena

    def malloc(self, size: int) -> MemoryPointer:
        """A pointer to ``size`` bytes (rounded up to 512), from a free block of the
        current stream's arena when one fits."""
        size = _round_size(_ndarray._size(size))
        if size == 0:
            return MemoryPointer(Memory(0), 0)
        with self._lock:
            arena = self._arena(_stream_ident())
            chunk = arena.get_chunk(size)
        if chunk is None:
            mem = self._try_malloc(size)
            chunk = _Chunk(mem, 0, size, arena)
        with self._lock:
            self._in_use_bytes += chunk.size
        return MemoryPointer(PooledMemory(chunk, self._weakref), 0)

    def _free(self, chunk: _Chunk) -> None:
        with self._lock:
            self._in_use_bytes -= chunk.size
            chunk.arena.insert_chunk(chunk)

    def _try_block(self, size: int) -> bool:
        limit = self._limit or _UINT64_MAX
        if size > limit:
            raise _oom(size, self._total_bytes, limit)
        with self._lock:
            if self._total_bytes + size > limit:
                return False
            self._total_bytes += size
            return True

    def _try_malloc(self, size: int) -> BaseMemory:
        ok = self._try_block(size)
        if not ok:
            self.free_all_blocks()
            ok = self._try_block(size)
        if not ok:
            gc.collect()
            self.free_all_blocks()
            ok = self._try_block(size)
        if not ok:
            raise _oom(size, self._total_bytes, self._limit)
        try:
            try:
                return self._allocator(size).mem
            except OutOfMemoryError:
                gc.collect()
                self.free_all_blocks()
                return self._allocator(size).mem
        except BaseException:
            with self._lock:
                self._total_bytes -= size
            raise

    def free_all_blocks(self, stream: Any = None) -> None:
        """Release the free blocks that were not split, of ``stream``'s arena or of all."""
        freed = 0
        with self._lock:
            if stream is None:
                idents = tuple(self._arenas)
            else:
                idents = (int(stream.ptr),)
            for ident in idents:
                ref = self._arenas.get(ident)
                arena = ref() if ref is not None else None
                if arena is None:
                    self._arenas.pop(ident, None)
                else:
                    freed += arena.free_all()
            self._total_bytes -= freed

    def free_all_free(self) -> None:
        warnings.warn("free_all_free is deprecated. Use free_all_blocks instead.",
                      DeprecationWarning)
        self.free_all_blocks()

    def n_free_blocks(self) -> int:
        with self._lock:
            return sum(len(a) for a in (r() for r in self._arenas.values()) if a is not None)

    def used_bytes(self) -> int:
        return self._in_use_bytes

    def free_bytes(self) -> int:
        return self._total_bytes - self._in_use_bytes

    def total_bytes(self) -> int:
        return self._total_bytes

    def set_limit(self, size: Any = None, fraction: Any = None) -> None:
        """Limit the bytes the pool allocates (see cupy.cuda.MemoryPool.set_limit)."""
        self._limit = _limit_size(size, fraction)

    def get_limit(self) -> int:
        return self._limit


def _limit_size(size: Any, fraction: Any) -> int:
    """set_limit's ``size``/``fraction`` as bytes (CuPy's checks)."""
    if size is None:
        if fraction is None:
            return 0
        if not 0 <= fraction <= 1:
            raise ValueError(f"memory limit fraction out of range: {fraction}")
        from . import runtime
        return int(fraction * runtime.memGetInfo()[1])
    if fraction is not None:
        raise ValueError("size and fraction cannot be specified at one time")
    if size < 0:
        raise ValueError(f"memory limit size out of range: {size}")
    return int(size)


class MemoryPool:
    """A device memory pool (see cupy.cuda.MemoryPool): CuPy's pool on the client over
    ``allocator``. (``cupy.get_default_memory_pool()`` is the server's pool of the
    session instead, the one arrays come from.)"""

    def __init__(self, allocator: Any = None) -> None:
        self._pool = SingleDeviceMemoryPool(allocator)

    def malloc(self, size: int) -> MemoryPointer:
        return self._pool.malloc(size)

    def free_all_blocks(self, stream: Any = None) -> None:
        self._pool.free_all_blocks(stream)

    def free_all_free(self) -> None:
        warnings.warn("free_all_free is deprecated. Use free_all_blocks instead.",
                      DeprecationWarning)
        self.free_all_blocks()

    def n_free_blocks(self) -> int:
        return self._pool.n_free_blocks()

    def used_bytes(self) -> int:
        return self._pool.used_bytes()

    def free_bytes(self) -> int:
        return self._pool.free_bytes()

    def total_bytes(self) -> int:
        return self._pool.total_bytes()

    def set_limit(self, size: Any = None, fraction: Any = None) -> None:
        self._pool.set_limit(size, fraction)

    def get_limit(self) -> int:
        return self._pool.get_limit()


class _SessionMemoryPool(MemoryPool):
    """``cupy.get_default_memory_pool()``: the session's device memory pool on the
    server, the one arrays are allocated from.

    See Also
    --------
    cupy.cuda.MemoryPool
    """

    def __init__(self, allocator: Any = None) -> None:
        pass

    def _query(self, op: str, *args: Any) -> Any:
        return _client.get_session().call("memory", op, args)

    def malloc(self, size: int) -> MemoryPointer:
        """``size`` bytes of server memory, rounded up to 512 as CuPy's pool rounds its
        blocks (``mem.size`` is the block's)."""
        return MemoryPointer(Memory(_round_size(_ndarray._size(size))), 0)

    def used_bytes(self) -> int:
        return int(self._query("used_bytes"))

    def total_bytes(self) -> int:
        return int(self._query("total_bytes"))

    def free_bytes(self) -> int:
        return int(self._query("free_bytes"))

    def n_free_blocks(self) -> int:
        return int(self._query("n_free_blocks"))

    def free_all_blocks(self, stream: Any = None) -> None:
        self._query("free_all_blocks")

    def set_limit(self, size: Any = None, fraction: Any = None) -> None:
        """Limit the session's device memory to ``size`` bytes, or to ``fraction`` of
        the device's (0, or neither: no limit of the session's own). The server's
        ``--memory-limit`` still holds: the session gets the lower of the two.

        See Also
        --------
        cupy.cuda.MemoryPool.set_limit
        """
        limit = _limit_size(size, fraction)
        self._query("set_limit", limit)
        _client.get_session().pool_limit = limit  # big allocations under it wait

    def get_limit(self) -> int:
        """The session's limit in bytes (0: none), the server's ``--memory-limit``
        included (see cupy.cuda.MemoryPool.get_limit)."""
        return int(self._query("get_limit"))


_DEFAULT_POOL: MemoryPool = _SessionMemoryPool()


class MemoryAsyncPool:
    """CUDA's stream-ordered pool (see cupy.cuda.MemoryAsyncPool), as
    ``set_allocator(MemoryAsyncPool().malloc)`` uses it: ``malloc`` allocates on the
    current stream (``malloc_async``). Arrays come from the session's memory on the
    server whatever allocator is set, so the figures (``used_bytes``, ``total_bytes``)
    are the session's, as ``cupy.get_default_memory_pool()`` gives them, and
    ``free_all_blocks`` releases the session's free blocks once the stream's work is
    done. The limit is CuPy's soft one (the pool's release threshold): ``malloc``
    refuses what would grow the pool past it; ``set_limit`` on the default pool is the
    session's hard one."""

    def __init__(self, pool_handles: Any = "current") -> None:
        from . import runtime
        count = runtime.getDeviceCount()
        handles = pool_handles if isinstance(pool_handles, (list, tuple)) else \
            [pool_handles] * count
        for handle in handles[:count]:
            if handle == "create":
                raise NotImplementedError("cudaMemPoolCreate is not yet supported")
            if handle not in ("default", "current") and not isinstance(handle, int):
                raise ValueError("handle must be 'default' (for the device's default pool), "
                                 "'current' (for the device's current pool), or int (a "
                                 "pointer to cudaMemPool_t)")
        self.memoryAsyncHasStat = True
        self._threshold = _UINT64_MAX
        self.set_limit(**_parse_limit_string())

    def malloc(self, size: int) -> MemoryPointer:
        """``size`` bytes (rounded up to 512) on the current stream."""
        from . import get_current_stream
        rounded = _round_size(_ndarray._size(size))
        limit = self.get_limit()
        if limit != _UINT64_MAX:  # (no limit: nothing to ask the server)
            total = self.total_bytes()
            if total - self.used_bytes() < rounded and max(limit, total) < total + rounded:
                raise _oom(size, total, limit)
        return MemoryPointer(MemoryAsync(rounded, get_current_stream()), 0)

    def free_all_blocks(self, stream: Any = None) -> None:
        """Wait for ``stream`` (the current one by default), then release what is free."""
        from . import get_current_stream
        (get_current_stream() if stream is None else stream).synchronize()
        _DEFAULT_POOL.free_all_blocks()

    def n_free_blocks(self) -> int:
        raise NotImplementedError("This function is not supported in MemoryAsyncPool")

    def used_bytes(self) -> int:
        return _DEFAULT_POOL.used_bytes()

    def free_bytes(self) -> int:
        return self.total_bytes() - self.used_bytes()

    def total_bytes(self) -> int:
        return _DEFAULT_POOL.total_bytes()

    def set_limit(self, size: Any = None, fraction: Any = None) -> None:
        """The soft limit, in bytes or a ``fraction`` of the device's memory (neither, or
        0: none)."""
        limit = _limit_size(size, fraction)
        self._threshold = limit or _UINT64_MAX

    def get_limit(self) -> int:
        return self._threshold
