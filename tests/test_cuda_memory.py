"""``cupy.cuda``'s memory and stream API: stand-ins for server memory, CuPy's pools, and
the calling thread's current stream."""
from __future__ import annotations

import ctypes
import threading

import numpy
import pytest


def test_memory_is_server_memory_with_cupys_pointer(cp):
    mem = cp.cuda.Memory(16)
    assert mem.size == 16 and mem.ptr != 0 and int(mem) == mem.ptr
    p = cp.cuda.MemoryPointer(mem, 4)
    assert p.ptr == mem.ptr + 4 and p.mem is mem
    assert isinstance(p + 4, cp.cuda.MemoryPointer) and (4 + p).ptr == mem.ptr + 8
    assert (p - 4).ptr == mem.ptr
    src = ctypes.c_int(1234)
    p.copy_from_host(ctypes.addressof(src), 4)
    a = cp.ndarray((3,), numpy.int32, cp.cuda.MemoryPointer(mem, 0))
    assert int(a[1]) == 1234
    assert isinstance(a.data, cp.cuda.MemoryPointer)  # arrays' pointers too
    assert cp.cuda.Memory(0).ptr == 0


def test_unowned_memory_wraps_an_address(cp):
    a = cp.arange(6, dtype=cp.float32)
    um = cp.cuda.UnownedMemory(a.data.ptr, a.nbytes, a)
    assert um.ptr == a.data.ptr and um.size == 24 and um.device_id == 0
    b = cp.ndarray((6,), cp.float32, cp.cuda.MemoryPointer(um, 0))
    b[:] = 2
    assert a.tolist() == [2] * 6
    with pytest.raises(RuntimeError, match="explicit device ID"):
        cp.cuda.UnownedMemory(0, 0, None)


def test_memory_pool_reuses_splits_and_merges(cp):
    pool = cp.cuda.MemoryPool()
    unit = 512
    p = pool.malloc(unit * 4)
    ptr = p.ptr
    assert pool.used_bytes() == pool.total_bytes() == unit * 4 and pool.n_free_blocks() == 0
    assert isinstance(p.mem, cp.cuda.memory.PooledMemory)
    del p
    assert pool.used_bytes() == 0 and pool.free_bytes() == unit * 4
    assert pool.n_free_blocks() == 1
    head, tail = pool.malloc(unit * 2), pool.malloc(unit * 2)
    assert head.ptr == ptr and tail.ptr == ptr + unit * 2
    del head, tail
    whole = pool.malloc(unit * 3 + 1)  # rounded to 4 units: the merged block again
    assert whole.ptr == ptr and whole.mem.size == unit * 4
    # the pool's memory is server memory: an array can live in it
    a = cp.ndarray((4,), cp.float64, whole)
    a[:] = 7
    assert a.sum() == 28
    del a, whole
    pool.free_all_blocks()
    assert pool.total_bytes() == 0 and pool.n_free_blocks() == 0


def test_memory_pool_limit_and_arenas_per_stream(cp):
    pool = cp.cuda.MemoryPool()
    pool.set_limit(size=1024)
    assert pool.get_limit() == 1024
    keep = pool.malloc(1024)
    with pytest.raises(cp.cuda.memory.OutOfMemoryError, match="limit set to: 1,024"):
        pool.malloc(1)
    ptr = keep.ptr
    del keep
    pool.set_limit(size=0)
    with cp.cuda.Stream():
        other = pool.malloc(1024)
    assert other.ptr != ptr  # a free block of another stream is not reused
    with pytest.raises(ValueError):
        pool.set_limit(size=-1)
    with pytest.raises(ValueError):
        pool.set_limit(fraction=1.5)


def test_an_allocation_over_the_limit_reserves_nothing(cp):
    """CuPy's pool refuses before it reserves: after the OutOfMemoryError nothing of
    the refused allocation is held or cached."""
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    before = pool.total_bytes()
    pool.set_limit(size=before + 10000)
    try:
        with pytest.raises(cp.cuda.memory.OutOfMemoryError):
            cp.empty(20000, "i1")
            cp.cuda.Device().synchronize()
        assert pool.total_bytes() == before and pool.n_free_blocks() == 0
        a = cp.empty(5000, "i1")
        assert pool.total_bytes() == before + 5120 and a.size == 5000
    finally:
        pool.set_limit(size=0)


def test_default_pool_is_the_sessions(cp):
    pool = cp.get_default_memory_pool()
    before = pool.used_bytes()
    a = cp.zeros(1000, dtype=cp.float64)
    assert pool.used_bytes() >= before + 8000
    del a
    # the pool's blocks: 512-byte units (CuPy's PooledMemory.size is the chunk's)
    assert cp.cuda.alloc(64).mem.size == 512
    assert cp.cuda.alloc(0).mem.size == 0


def test_allocators(cp):
    m = cp.cuda.memory
    default = m.get_allocator()
    pool = cp.cuda.MemoryPool()
    with cp.cuda.using_allocator(pool.malloc):
        assert m.get_allocator() == pool.malloc
        with pytest.raises(ValueError):
            m.set_allocator(cp.cuda.MemoryPool().malloc)
        assert cp.cuda.alloc(100).mem.pool() is pool._pool
    assert m.get_allocator() == default
    own = lambda size: None  # noqa: E731 - an allocator of this process: kept, warned
    with pytest.warns(UserWarning, match="server's memory pool"):
        m.set_allocator(own)
    assert m.get_allocator() is own and (cp.arange(3) + 1).get().tolist() == [1, 2, 3]
    with pytest.raises(NotImplementedError, match="gpushare"):
        cp.cuda.PythonFunctionAllocator(lambda s, d: 0, lambda p, d: None)
    m.set_allocator(None)
    try:
        assert m.get_allocator() is m._malloc
    finally:
        m.set_allocator(default)


def test_pinned_memory_pool_reuses_freed_blocks(cp):
    pool = cp.cuda.PinnedMemoryPool()
    p = pool.malloc(1000)
    assert p.size() == 1024 and isinstance(p.mem, cp.cuda.PooledPinnedMemory)
    ptr = p.ptr
    numpy.frombuffer(p, numpy.uint8)[:] = 5
    del p
    assert pool.n_free_blocks() == 1
    q = pool.malloc(1024)
    assert q.ptr == ptr and pool.n_free_blocks() == 0
    big = pool.malloc(2000)
    assert big.ptr != ptr and big.size() == 2048
    mem = q.mem
    mem.free()
    mem.free()  # a second free does nothing
    assert pool.n_free_blocks() == 1
    pool.free_all_blocks()
    assert pool.n_free_blocks() == 0
    assert not isinstance(pool.malloc(0).mem, cp.cuda.PooledPinnedMemory)
    # pinned memory comes from the default pool, as CuPy's (cupy/__init__.py sets it)
    import gc
    import gpushare.cupyx as cupyx
    default = cp.get_default_pinned_memory_pool()
    default.free_all_blocks()
    x = cupyx.empty_pinned(100)
    assert isinstance(cp.cuda.alloc_pinned_memory(10).mem, cp.cuda.PooledPinnedMemory)
    del x
    gc.collect()
    assert default.n_free_blocks() == 2
    assert not hasattr(default, "used_bytes")  # (CuPy's PinnedMemoryPool has none)
    cp.cuda.set_pinned_memory_allocator(None)  # no pool
    try:
        assert not isinstance(cp.cuda.alloc_pinned_memory(10).mem, cp.cuda.PooledPinnedMemory)
    finally:
        cp.cuda.set_pinned_memory_allocator(default.malloc)


def test_streams_compare_by_pointer(cp):
    s = cp.cuda.Stream
    assert s(null=True) == s.null and s.null.ptr == 0
    assert s.ptds.ptr == 2 and s(ptds=True) == s.ptds and s.ptds != s.null
    a, b = s(), s()
    assert a != b and hash(a) == a.ptr and len({a: 1, b: 2}) == 2
    assert a.__cuda_stream__() == (0, a.ptr)
    assert s(non_blocking=True).is_non_blocking and not a.is_non_blocking
    assert s(priority=-1).priority == -1


def test_current_stream_is_the_threads(cp):
    s1, s2, s3 = cp.cuda.Stream(), cp.cuda.Stream(), cp.cuda.Stream()
    assert cp.cuda.get_current_stream() is cp.cuda.Stream.null
    with s1:
        assert cp.cuda.get_current_stream() is s1
        s2.use()
        assert cp.cuda.get_current_stream() is s2
        seen = []
        t = threading.Thread(target=lambda: seen.append(cp.cuda.get_current_stream()))
        t.start()
        t.join()
        assert seen == [cp.cuda.Stream.null]
        with s3:
            assert cp.cuda.get_current_stream() is s3
        assert cp.cuda.get_current_stream() is s1
    assert cp.cuda.get_current_stream() is cp.cuda.Stream.null
    assert s1.use() is s1 and cp.cuda.get_current_stream() is s1
    cp.cuda.Stream.null.use()


def test_stream_callbacks_and_external(cp):
    s = cp.cuda.Stream()
    out = []
    x = cp.arange(3)
    s.add_callback(lambda st, status, arg: out.append((st, status, arg)), "a")
    s.launch_host_func(out.append, "b")
    assert out == [(s, 0, "a"), "b"]

    class Mock:
        def __cuda_stream__(self):
            return (0, s.ptr)

    mock = Mock()
    ext = cp.cuda.Stream.from_external(mock)
    assert ext == s and ext.device_id == -1 and ext._foreign_stream_ref is mock
    with ext:
        assert cp.cuda.get_current_stream() == s
        assert int(x.sum()) == 3
    del ext
    s.synchronize()  # the alias left the stream's handle alone
    with pytest.raises(TypeError, match="does not implement"):
        cp.cuda.Stream.from_external(object())
    with pytest.raises(NotImplementedError, match="gpushare"):
        cp.cuda.Stream.from_external(type("X", (), {"__cuda_stream__":
                                                    lambda self: (0, 12345)})())


def test_device_addresses_do_not_keep_memory_alive(cp):
    """Taking ``x.data.ptr`` must not pin ``x``'s server memory once ``x`` and its
    pointer are gone (it did: the address table held every array it had named)."""
    import gc
    pool = cp.get_default_memory_pool()
    base = pool.used_bytes()
    for _ in range(8):
        x = cp.ones((1 << 16,), dtype=cp.uint8)
        assert x.data.ptr != 0
        del x
    gc.collect()
    assert pool.used_bytes() == base
    # while the array lives, its address names it; a view's is offset within it
    y = cp.arange(10, dtype=cp.int32)
    ptr = y.data.ptr
    assert y.data.ptr == ptr and y[3:].data.ptr == ptr + 12
    z = cp.ndarray((2,), cp.int32, cp.cuda.MemoryPointer(
        cp.cuda.UnownedMemory(ptr + 4, 8, y), 0))
    assert z.tolist() == [1, 2]
    # once it is freed, its address is no longer one of gpushare's
    del y, z
    gc.collect()
    with pytest.raises(ValueError, match="not the address of a gpushare array"):
        cp.ndarray((2,), cp.int32, cp.cuda.MemoryPointer(
            cp.cuda.UnownedMemory(ptr, 8, None, device_id=0), 0))


def test_allocations_are_pipelined(cp, synchronous_calls):
    """``cupy.cuda.alloc`` and a pool's ``malloc`` wait for nothing (a new block's
    address is known here), and the memory is usable at once."""
    waited = synchronous_calls
    pool = cp.cuda.MemoryPool()
    ptrs = [cp.cuda.alloc(1000) for _ in range(5)] + [pool.malloc(4096) for _ in range(5)]
    assert waited == []
    assert len({p.ptr for p in ptrs}) == 10
    a = cp.ndarray((250,), cp.float32, ptrs[2])
    a[:] = 3
    assert float(a.sum()) == 750.0


def test_runtime_malloc_memcpy_and_memset_reach_the_servers_memory(cp):
    """``cupy.cuda.runtime``'s raw memory calls, on gpushare arrays' addresses and this
    process's memory, with CUDA's errors for the rest."""
    rt = cp.cuda.runtime
    host = numpy.arange(8, dtype=numpy.float32)
    ptr = rt.malloc(host.nbytes)
    rt.memcpy(ptr, host.ctypes.data, host.nbytes, rt.memcpyHostToDevice)
    view = cp.ndarray((8,), cp.float32, cp.cuda.MemoryPointer(
        cp.cuda.UnownedMemory(ptr, host.nbytes, None, 0), 0))
    assert view.tolist() == host.tolist()
    a = cp.zeros(8, dtype=cp.float32)
    rt.memcpyAsync(a.data.ptr, ptr + 8, 6 * 4, rt.memcpyDefault, cp.cuda.Stream.null.ptr)
    assert a.tolist() == [2, 3, 4, 5, 6, 7, 0, 0]
    rt.memset(a.data.ptr + 4, 0, 8)
    back = numpy.full(8, -1, dtype=numpy.float32)
    rt.memcpy(back.ctypes.data, a.data.ptr, a.nbytes, rt.memcpyDeviceToHost)
    assert back.tolist() == [2, 0, 0, 5, 6, 7, 0, 0]
    other = numpy.zeros(8, dtype=numpy.float32)
    rt.memcpy(other.ctypes.data, back.ctypes.data, back.nbytes, rt.memcpyHostToHost)
    assert other.tolist() == back.tolist()
    with pytest.raises(rt.CUDARuntimeError, match="cudaErrorInvalidValue"):
        rt.memcpy(ptr, host.ctypes.data, 4, rt.memcpyDeviceToDevice)  # a host source
    with pytest.raises(rt.CUDARuntimeError, match="cudaErrorInvalidMemcpyDirection"):
        rt.memcpy(ptr, host.ctypes.data, 4, 7)
    rt.free(ptr)
    with pytest.raises(rt.CUDARuntimeError, match="cudaErrorInvalidValue"):
        rt.free(ptr)
    rt.free(0)
