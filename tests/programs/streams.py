"""Streams, events, pinned memory and asynchronous copies, the memory pool, cuFFT
plans, cupyx.jit kernels and cupy.fuse.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy, cupyx
from cupyx import jit
# map_reduce with streams
mempool = cupy.get_default_memory_pool()
x = cupy.array([1, 2, 3])
stream = cupy.cuda.stream.Stream()
with stream:
    y = cupy.arange(10**6, dtype=cupy.float32)
    z = (y * 2).sum()
stream.synchronize()
numpy.testing.assert_allclose(float(z), 999999000000.0, rtol=1e-6)
streams = [cupy.cuda.stream.Stream() for _ in range(4)]
zs = []
for s in streams:
    with s:
        a = cupy.random.rand(100, 100)
        zs.append(cupy.matmul(a, a))
for s in streams:
    s.synchronize()
for zz in zs:
    assert zz.shape == (100, 100) and bool((zz >= 0).all())
# events
e1 = cupy.cuda.Event(); e2 = cupy.cuda.Event()
e1.record(streams[0]); streams[1].wait_event(e1); e2.record()
e2.synchronize()
assert cupy.cuda.get_elapsed_time(e1, e2) >= 0
# pinned memory async copy
pinned_mempool = cupy.get_default_pinned_memory_pool()
h = cupyx.empty_pinned((1000,), dtype=numpy.float64)
h[...] = numpy.arange(1000)
d = cupy.empty(1000)
d.set(h, stream=streams[2])
back = cupyx.empty_like_pinned(h)
d.get(out=back, stream=streams[2])
streams[2].synchronize()
assert (back == h).all()
# mem pool
assert mempool.used_bytes() > 0 and mempool.total_bytes() >= mempool.used_bytes()
del zs, a, y
mempool.free_all_blocks()
# cufft plan
a = cupy.random.random((64, 64)).astype(cupy.complex64)
import cupyx.scipy.fftpack as fftpack
plan = fftpack.get_fft_plan(a, axes=(0, 1))
r1 = fftpack.fftn(a, plan=plan)
with plan:
    r2 = cupy.fft.fftn(a)
numpy.testing.assert_allclose(r1.get(), numpy.fft.fftn(a.get()), rtol=1e-3, atol=1e-3)
# (the same plan on a GPU; float32 transforms of unseeded data agree to float32's
# accuracy over 4,096 points, ~2e-4 at worst between two FFT libraries)
numpy.testing.assert_allclose(r2.get(), r1.get(), rtol=1e-3, atol=1e-3)
# jit
@jit.rawkernel()
def elementwise_copy(x, y, size):
    tid = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
    ntid = jit.gridDim.x * jit.blockDim.x
    for i in range(tid, size, ntid):
        y[i] = x[i]
size = cupy.uint32(2 ** 16)
x = cupy.random.normal(size=(size,), dtype=cupy.float32)
y = cupy.empty((size,), dtype=cupy.float32)
elementwise_copy((128,), (1024,), (x, y, size))
assert (x == y).all()
@jit.rawkernel()
def reduction(x, y, size):
    tid = jit.threadIdx.x
    ntid = jit.blockDim.x
    value = cupy.float32(0)
    for i in range(tid, size, ntid):
        value += x[i]
    smem = jit.shared_memory(cupy.float32, 1024)
    smem[tid] = value
    jit.syncthreads()
    if tid == cupy.uint32(0):
        value = cupy.float32(0)
        for i in range(ntid):
            value += smem[i]
        y[0] = value
y = cupy.empty((1,), dtype=cupy.float32)
reduction[1, 1024](x, y, size)
assert abs(float(y[0]) - float(x.sum())) < 1e-2 * max(1, abs(float(x.sum()))), (y, x.sum())
# elementwise with raw indexing & fusion
@cupy.fuse()
def squared_diff(x, y):
    return (x - y) * (x - y)
assert float(squared_diff(cupy.arange(10), 2).sum()) == float(((numpy.arange(10) - 2) ** 2).sum())
print("streams OK")
