"""``cupy.cuda.pinned_memory``: "pinned" memory is host memory of this machine.

Page-locked memory is a GPU host's affair; a gpushare client has no GPU, so
``alloc_pinned_memory`` gives page-aligned host memory (an anonymous ``mmap``) with
CuPy's interface: a ``PinnedMemoryPointer`` exposes the buffer protocol, so the
documented pattern ``numpy.frombuffer(cupy.cuda.alloc_pinned_memory(n), dtype, count)``
works, and copies from and to it go through gpushare's bulk paths like any host array.
``alloc_pinned_memory`` allocates new memory each time unless a pool's ``malloc`` is set
(``set_pinned_memory_allocator``); a ``PinnedMemoryPool`` reuses freed blocks as CuPy's.
"""
from __future__ import annotations

import ctypes
import mmap
import threading
import weakref
from typing import Any


class PinnedMemory:
    """``size`` bytes of page-aligned host memory (see cupy.cuda.PinnedMemory)."""

    def __init__(self, size: int, flags: int = 0) -> None:
        self.size = int(size)
        if self.size < 0:
            raise ValueError("size must be non-negative")
        self.device_id = 0
        self._map = mmap.mmap(-1, max(1, self.size))
        self.ptr = ctypes.addressof(ctypes.c_char.from_buffer(self._map)) if self.size else 0

    def __int__(self) -> int:
        return self.ptr


def _made(self: Any, *args: Any) -> None:
    """``__init__`` of the sized subclasses: ``__new__`` made the instance whole."""


class PinnedMemoryPointer:
    """A pointer into a ``PinnedMemory`` (see cupy.cuda.PinnedMemoryPointer): ``mem``,
    ``ptr``, ``size()`` (the bytes from here to the end), ``+``/``-`` an offset, and the
    buffer protocol over those bytes.

    ``PinnedMemoryPointer(mem, offset)`` returns an instance of a subclass made for the
    length (a ctypes array: what gives a Python 3.11 object the buffer protocol)."""

    mem: PinnedMemory
    ptr: int

    def __new__(cls, mem: PinnedMemory, offset: int = 0) -> "PinnedMemoryPointer":
        offset = int(offset)
        if not 0 <= offset <= mem.size:
            raise ValueError(f"offset {offset} is outside the {mem.size} bytes")
        length = mem.size - offset
        sized = type("PinnedMemoryPointer", (ctypes.c_ubyte * length, PinnedMemoryPointer),
                     {"__module__": __name__, "__init__": _made})
        # at the address (nothing is read until the buffer is used); ``mem``, an
        # attribute, keeps the memory alive as long as this or a buffer of it lives
        self = sized.from_address(mem.ptr + offset)
        self.mem = mem
        self.ptr = mem.ptr + offset
        return self

    def size(self) -> int:
        return self.mem.size - (self.ptr - self.mem.ptr)

    def __int__(self) -> int:
        return self.ptr

    def __add__(self, offset: int) -> "PinnedMemoryPointer":
        return PinnedMemoryPointer(self.mem, self.ptr - self.mem.ptr + int(offset))

    def __sub__(self, offset: int) -> "PinnedMemoryPointer":
        return self + (-int(offset))

    __radd__ = __iadd__ = __add__
    __isub__ = __sub__

    def __repr__(self) -> str:
        return f"<gpushare PinnedMemoryPointer 0x{self.ptr:x}, {self.size()} bytes>"


def _malloc(size: int) -> PinnedMemoryPointer:
    return PinnedMemoryPointer(PinnedMemory(size), 0)


_allocator: Any = _malloc  # (the default pool's, once it exists: below)


def alloc_pinned_memory(size: int) -> PinnedMemoryPointer:
    """``size`` bytes of host memory, from the current allocator (see
    cupy.cuda.alloc_pinned_memory and set_pinned_memory_allocator)."""
    return _allocator(int(size))


def set_pinned_memory_allocator(allocator: Any = None) -> None:
    """The function ``alloc_pinned_memory`` calls (None: plain host memory, unpooled;
    see cupy.cuda.set_pinned_memory_allocator)."""
    global _allocator
    _allocator = _malloc if allocator is None else allocator


class PooledPinnedMemory(PinnedMemory):
    """Host memory of a ``PinnedMemoryPool``, returned to it by ``free()`` or when
    dropped (see cupy.cuda.PooledPinnedMemory)."""

    def __init__(self, mem: PinnedMemory, pool: Any) -> None:
        self.ptr = mem.ptr
        self.size = mem.size
        self.device_id = getattr(mem, "device_id", 0)
        self.pool = pool  # a weak reference
        self.mem = mem

    def free(self) -> None:
        """Return the memory to the pool (once)."""
        pool = self.pool()
        if pool is not None and self.ptr != 0:
            pool._free(self.mem, self.size)
        self.ptr = 0
        self.size = 0

    def __del__(self) -> None:
        try:
            self.free()
        except Exception:  # the interpreter is shutting down
            pass


def _clp2(x: int) -> int:
    """The smallest power of 2 not below ``x`` (CuPy's ``internal.clp2``)."""
    return 1 << max(0, (int(x) - 1).bit_length())


class PinnedMemoryPool:
    """CuPy's pool of host memory (see cupy.cuda.PinnedMemoryPool): freed blocks are
    kept and reused for allocations of the same (rounded) size; new blocks come from
    ``allocator`` (default: new page-aligned host memory)."""

    def __init__(self, allocator: Any = None) -> None:
        self._alloc = _malloc if allocator is None else allocator
        self._free_blocks: dict[int, list] = {}
        self._weakref = weakref.ref(self)
        self._allocation_unit_size = 512
        self._lock = threading.Lock()

    def malloc(self, size: int) -> PinnedMemoryPointer:
        """A pointer to ``size`` bytes rounded up to a power of 2 of 512-byte units (a
        free block of that size when there is one)."""
        size = int(size)
        if size < 0:
            raise OverflowError("can't convert negative value to size_t")
        if size == 0:
            return PinnedMemoryPointer(PinnedMemory(0), 0)
        unit = self._allocation_unit_size
        size = _clp2(-(-size // unit) * unit)
        with self._lock:
            free = self._free_blocks.get(size)
            mem = free.pop() if free else None
        if mem is None:
            mem = self._alloc(size).mem
        return PinnedMemoryPointer(PooledPinnedMemory(mem, self._weakref), 0)

    def _free(self, mem: PinnedMemory, size: int) -> None:
        with self._lock:
            self._free_blocks.setdefault(size, []).append(mem)

    def free_all_blocks(self) -> None:
        """Release the free blocks."""
        with self._lock:
            self._free_blocks.clear()

    def n_free_blocks(self) -> int:
        """The number of free blocks."""
        with self._lock:
            return sum(len(v) for v in self._free_blocks.values())



def is_memory_pinned(data: int) -> bool:
    """Whether ``data`` is pinned host memory (see cupy.cuda.is_memory_pinned): False,
    a gpushare client has no page-locked memory."""
    return False


_DEFAULT_POOL = PinnedMemoryPool()
# CuPy's default (``cupy/__init__.py``): pinned memory comes from the default pool
_allocator = _DEFAULT_POOL.malloc
