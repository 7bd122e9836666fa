"""``cupy.cuda.pinned_memory``: "pinned" memory is host memory of this machine.

Page-locked memory is a GPU host's affair; a gpushare client has no GPU, so
``alloc_pinned_memory`` gives page-aligned host memory (an anonymous ``mmap``) with
CuPy's interface: a ``PinnedMemoryPointer`` exposes the buffer protocol, so the
documented pattern ``numpy.frombuffer(cupy.cuda.alloc_pinned_memory(n), dtype, count)``
works, and copies from and to it go through gpushare's bulk paths like any host array.
gpushare keeps no pool of it (the pool reports nothing in use).
"""
from __future__ import annotations

import ctypes
import mmap
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


_allocator: Any = _malloc


def alloc_pinned_memory(size: int) -> PinnedMemoryPointer:
    """``size`` bytes of host memory, from the current allocator (see
    cupy.cuda.alloc_pinned_memory and set_pinned_memory_allocator)."""
    return _allocator(int(size))


def set_pinned_memory_allocator(allocator: Any = None) -> None:
    """The function ``alloc_pinned_memory`` calls (None: plain host memory, unpooled;
    see cupy.cuda.set_pinned_memory_allocator)."""
    global _allocator
    _allocator = _malloc if allocator is None else allocator


class PinnedMemoryPool:
    """Hands out host memory from ``allocator`` (default: new host memory each time);
    gpushare keeps no pool of it, so the pool reports no free blocks nor bytes."""

    def __init__(self, allocator: Any = None) -> None:
        self._alloc = _malloc if allocator is None else allocator

    def malloc(self, size: int) -> PinnedMemoryPointer:
        return self._alloc(int(size))

    def free_all_blocks(self) -> None:
        return None

    def n_free_blocks(self) -> int:
        return 0

    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0


_DEFAULT_POOL = PinnedMemoryPool()
