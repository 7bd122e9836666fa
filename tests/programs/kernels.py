"""Custom kernels: a C++ template module specialised through name expressions (an axpy
for float and double, a block reduction with a template block size and shared memory,
a polynomial evaluated from __constant__ coefficients set through get_global), cupyx.jit
kernels (a grid-stride loop with jit.grid/gridsize, a shared-memory histogram with
atomics, a warp-shuffle reduction), launched on non-blocking streams ordered by events,
and a captured CUDA graph replayed on new data, each checked against NumPy; and the
mistakes users make (a NumPy array as a kernel argument, a name expression that was
never compiled), with the errors CuPy raises.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
from cupyx import jit

code = r"""
template<typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

template<typename T, int BLOCK>
__global__ void block_sum(const T* x, T* out, int n) {
    __shared__ T buf[BLOCK];
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    buf[tid] = i < n ? x[i] : T(0);
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = buf[0];
}

__constant__ double coeffs[4];

extern "C" __global__ void horner(const double* x, double* y, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) {
        double acc = coeffs[0];
        for (int k = 1; k < 4; ++k) acc = acc * x[i] + coeffs[k];
        y[i] = acc;
    }
}
"""
names = ["axpy<float>", "axpy<double>", "block_sum<float, 128>", "block_sum<double, 128>"]
mod = cupy.RawModule(code=code, options=("-std=c++14",), name_expressions=names)

n = 1000
rs = numpy.random.RandomState(4)
for dt in (numpy.float32, numpy.float64):
    x_h = rs.rand(n).astype(dt)
    y_h = rs.rand(n).astype(dt)
    x, y = cupy.asarray(x_h), cupy.asarray(y_h)
    axpy = mod.get_function(f"axpy<{'float' if dt == numpy.float32 else 'double'}>")
    axpy(((n + 127) // 128,), (128,), (dt(2.5), x, y, numpy.int32(n)))
    numpy.testing.assert_allclose(y.get(), dt(2.5) * x_h + y_h, rtol=1e-6)
    bsum = mod.get_function(f"block_sum<{'float' if dt == numpy.float32 else 'double'}, 128>")
    blocks = (n + 127) // 128
    partial = cupy.zeros(blocks, dtype=dt)
    bsum((blocks,), (128,), (x, partial, numpy.int32(n)))
    numpy.testing.assert_allclose(partial.get(), numpy.add.reduceat(x_h, numpy.arange(0, n, 128)),
                                  rtol=1e-5 if dt == numpy.float32 else 1e-12)

# __constant__ memory through get_global: p(x) = 2x^3 - x^2 + 0.5x - 3
ptr = mod.get_global("coeffs")
cvals = cupy.ndarray((4,), cupy.float64, ptr)
cvals[...] = cupy.asarray([2.0, -1.0, 0.5, -3.0])
xs = cupy.linspace(-2, 2, 300)
ys = cupy.empty_like(xs)
mod.get_function("horner")((3,), (128,), (xs, ys, numpy.int32(300)))
numpy.testing.assert_allclose(ys.get(), numpy.polyval([2.0, -1.0, 0.5, -3.0], xs.get()), rtol=1e-13, atol=1e-13)


# cupyx.jit: a grid-stride clip, a shared-memory histogram, a warp reduction
@jit.rawkernel()
def clip_scale(x, out, lo, hi, n):
    for i in range(jit.grid(1), n, jit.gridsize(1)):
        v = x[i] * 2
        out[i] = min(max(v, lo), hi)


@jit.rawkernel()
def histogram(x, counts, n, nbins):
    local = jit.shared_memory(cupy.int32, 32)
    t = jit.threadIdx.x
    if t < nbins:
        local[t] = 0
    jit.syncthreads()
    i = jit.grid(1)
    if i < n:
        b = min(int(x[i] * nbins), nbins - 1)
        jit.atomic_add(local, b, 1)
    jit.syncthreads()
    if t < nbins:
        jit.atomic_add(counts, t, local[t])


@jit.rawkernel()
def warp_sum(x, out, n):
    i = jit.grid(1)
    v = x[i] if i < n else cupy.float32(0)
    # (constant deltas: a Python int variable is an int32 in a kernel, which CuPy will not
    # cast to the uint32 delta, cupyx/jit/_builtin_funcs.py: WarpShuffleOp)
    v += jit.shfl_down_sync(0xffffffff, v, 16)
    v += jit.shfl_down_sync(0xffffffff, v, 8)
    v += jit.shfl_down_sync(0xffffffff, v, 4)
    v += jit.shfl_down_sync(0xffffffff, v, 2)
    v += jit.shfl_down_sync(0xffffffff, v, 1)
    if jit.laneid() == 0:
        jit.atomic_add(out, 0, v)


u_h = rs.rand(5000).astype(numpy.float32)
u = cupy.asarray(u_h)
clipped = cupy.empty_like(u)
clip_scale((8,), (64,), (u, clipped, numpy.float32(0.2), numpy.float32(1.5), numpy.int32(u.size)))
numpy.testing.assert_array_equal(clipped.get(), numpy.clip(u_h * 2, 0.2, 1.5))
counts = cupy.zeros(16, dtype=cupy.int32)
histogram(((u.size + 255) // 256,), (256,), (u, counts, numpy.int32(u.size), numpy.int32(16)))
assert counts.get().tolist() == numpy.histogram(u_h, bins=16, range=(0, 1))[0].tolist()
total = cupy.zeros(1, dtype=cupy.float32)
warp_sum[(u.size + 127) // 128, 128](u, total, numpy.int32(u.size))
assert abs(float(total[0]) - float(u_h.sum(dtype=numpy.float64))) < 1e-3 * u.size ** 0.5

# two non-blocking streams: the second waits on the first's event
s1 = cupy.cuda.Stream(non_blocking=True)
s2 = cupy.cuda.Stream(non_blocking=True)
a = cupy.zeros(n, dtype=cupy.float64)
b = cupy.empty(n, dtype=cupy.float64)
start, done1, done2 = cupy.cuda.Event(), cupy.cuda.Event(), cupy.cuda.Event()
with s1:
    start.record()
    a += cupy.arange(n, dtype=cupy.float64)
    mod.get_function("axpy<double>")(((n + 127) // 128,), (128,), (numpy.float64(3.0), a, a, numpy.int32(n)))
    done1.record()
s2.wait_event(done1)
with s2:
    b[...] = a[::-1]
    done2.record()
done2.synchronize()
assert done1.done and done2.done
assert b.get().tolist() == (4.0 * numpy.arange(n)[::-1]).tolist()
assert cupy.cuda.get_elapsed_time(start, done2) >= 0

# a captured graph: scale then sum into a fixed output, replayed on new inputs
src = cupy.ones(n, dtype=cupy.float64)
dst = cupy.zeros(n, dtype=cupy.float64)
part = cupy.zeros((n + 127) // 128, dtype=cupy.float64)
gs = cupy.cuda.Stream(non_blocking=True)
with gs:
    gs.begin_capture()
    mod.get_function("axpy<double>")(((n + 127) // 128,), (128,), (numpy.float64(0.5), src, dst, numpy.int32(n)))
    mod.get_function("block_sum<double, 128>")(((n + 127) // 128,), (128,), (dst, part, numpy.int32(n)))
    graph = gs.end_capture()
assert float(part.sum()) == 0.0  # captured, not run
for step in range(3):
    src[...] = step + 1
    graph.launch(stream=gs)
gs.synchronize()
assert float(part.sum()) == 0.5 * n * (1 + 2 + 3)

# the mistakes
try:
    mod.get_function("axpy<float>")((8,), (128,), (numpy.float32(1), u_h, u, numpy.int32(n)))
except TypeError as e:
    # cupy/cuda/function.pyx: _pointer
    assert str(e) == ("You are trying to pass a numpy.ndarray of shape (5000,) as a kernel "
                      "parameter. Only numpy.ndarrays of size one can be passed by value. If you "
                      "meant to pass a pointer to __global__ memory, you need to pass a "
                      "cupy.ndarray instead."), str(e)
else:
    raise AssertionError("a NumPy array passed to a kernel")
try:
    mod.get_function("axpy<int>")
except cupy.cuda.driver.CUDADriverError as e:
    # not a name expression given: looked up as it is (cupy/_core/raw.pyx: get_function)
    assert str(e) == "CUDA_ERROR_NOT_FOUND: named symbol not found", str(e)
else:
    raise AssertionError("an uncompiled specialisation found")
print("kernels OK")
