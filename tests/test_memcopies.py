"""CuPy's memory-level API: ``MemoryPointer`` copies and ``memset``, pinned host memory,
and views at raw addresses that must stay inside their allocation."""
from __future__ import annotations

import ctypes

import numpy
import pytest

from gpushare_server.backends import check_view

pytestmark = pytest.mark.timeout(120)


def test_pointer_copies_between_device_and_host(cp):
    a = cp.arange(6, dtype=cp.float64)
    b = cp.zeros(6)
    b.data.copy_from_device(a.data, 24)
    assert b.tolist() == [0, 1, 2, 0, 0, 0]
    (b.data + 24).copy_from_device_async(a.data + 8, 16, cp.cuda.Stream())
    assert b.tolist() == [0, 1, 2, 1, 2, 0]
    host = numpy.arange(10.0, 16.0)
    b.data.copy_from_host(host.ctypes.data, host.nbytes)
    assert b.tolist() == host.tolist()
    (b.data + 8).copy_from_host_async(host.ctypes.data_as(ctypes.c_void_p), 8)
    assert b.tolist() == [10, 10, 12, 13, 14, 15]
    b.data.copy_from(a.data, 8)                 # a MemoryPointer: device to device
    b.data.copy_from_async(host.ctypes.data + 40, 8)  # an address: from the host
    assert b.tolist() == [15, 10, 12, 13, 14, 15]
    out = numpy.full(6, -1.0)
    (a.data + 16).copy_to_host(out.ctypes.data, 16)
    a.data.copy_to_host_async(ctypes.c_void_p(out.ctypes.data + 40), 8)
    assert out.tolist() == [2, 3, -1, -1, -1, 0]
    b.data.copy_from_host(0, 0)                 # nothing to copy: nothing is read


def test_memset_sets_bytes(cp):
    a = cp.zeros(4, dtype=cp.uint16)
    (a.data + 2).memset(0x1FF, 4)               # the low byte, as cudaMemset
    assert a.tolist() == [0, 0xFFFF, 0xFFFF, 0]
    a.data.memset_async(1, 2)
    assert a.tolist() == [0x0101, 0xFFFF, 0xFFFF, 0]


def test_copies_reaching_outside_the_allocation_are_refused(cp):
    a = cp.arange(6, dtype=cp.float64)
    b = cp.zeros(2)
    with pytest.raises(ValueError, match="outside its allocation of 16 bytes"):
        b.data.copy_from_device(a.data, 24)
    with pytest.raises(ValueError, match="outside its allocation of 48 bytes"):
        cp.ndarray((7,), cp.float64, memptr=a.data)
    with pytest.raises(ValueError, match="outside its allocation"):
        cp.ndarray((3,), cp.float64, memptr=a.data + 8, strides=(-8,))
    assert cp.ndarray((3,), cp.float64, memptr=a.data + 16, strides=(-8,)).tolist() == [2, 1, 0]
    with pytest.raises(TypeError, match="int or a ctypes.c_void_p"):
        a.data.copy_from_host("nowhere", 8)
    with pytest.raises(ValueError, match="NULL"):
        a.data.copy_to_host(ctypes.c_void_p(), 8)
    assert a.tolist() == [0, 1, 2, 3, 4, 5] and b.tolist() == [0, 0]


def test_pinned_memory_is_host_memory_with_cupys_interface(cp):
    a = cp.arange(6, dtype=cp.float32)
    mem = cp.cuda.alloc_pinned_memory(a.nbytes)
    assert isinstance(mem, cp.cuda.PinnedMemoryPointer)
    # (from the default pinned pool, as CuPy's: 512-byte blocks)
    assert mem.size() == 512 and (mem + 8).size() == 504 and (mem + 8 - 4).size() == 508
    assert mem.ptr % 4096 == 0 and (mem + 8).ptr == mem.ptr + 8 and int(mem.mem) == mem.ptr
    staged = numpy.frombuffer(mem, a.dtype, a.size)    # CuPy's documented pattern
    a.get(out=staged)
    assert staged.tolist() == [0, 1, 2, 3, 4, 5]
    staged[...] = 9
    b = cp.empty_like(a)
    b.set(staged)
    assert b.tolist() == [9] * 6
    tail = numpy.frombuffer(mem + 16, numpy.float32, 2)   # the bytes from the offset on
    assert tail.tolist() == [9, 9]
    b.data.copy_to_host(mem.ptr, 4)
    assert staged[0] == 9 and numpy.frombuffer(mem, numpy.float32, 1)[0] == 9
    assert cp.cuda.alloc_pinned_memory(0).size() == 0
    assert cp.get_default_pinned_memory_pool().malloc(8).size() == 512  # CuPy rounds up
    with pytest.raises(ValueError, match="outside"):
        mem + 513


@pytest.mark.parametrize("offset, shape, strides, ok", [
    (0, (6,), None, True), (8, (5,), None, True), (8, (6,), None, False),
    (0, (0,), None, True), (100, (0, 3), None, True),
    (40, (6,), (-8,), True), (32, (6,), (-8,), False), (-8, (1,), None, False),
    (0, (2, 3), (8, 16), True), (0, (2, 3), (24, 16), False),
])
def test_check_view_bounds(offset, shape, strides, ok):
    """The rule both backends apply (the CuPy backend's views would not check)."""
    if ok:
        check_view(48, offset, shape, 8, strides)
    else:
        with pytest.raises(ValueError, match="reaches outside its allocation of 48 bytes"):
            check_view(48, offset, shape, 8, strides)


def test_sizes_are_size_t(cp):
    a = cp.zeros(2)
    with pytest.raises(OverflowError):
        a.data.memset(0, -1)
    with pytest.raises(TypeError):
        a.data.copy_from_device(a.data, 1.5)
    mem = cp.cuda.alloc_pinned_memory(16)
    assert (8 + mem).ptr == mem.ptr + 8
