"""User kernels through gpushare, end to end (issue #4): unchanged CuPy programs with
ElementwiseKernel, ReductionKernel, RawKernel, RawModule and fuse, against a real
server (the ``cp`` fixture)."""
from __future__ import annotations

import math
import time

import numpy
import pytest

from _servers import run_python

pytestmark = pytest.mark.timeout(180)


# --- the programs of issue #4 ----------------------------------------------------------
BLACK_SCHOLES_PREAMBLE = r'''
__device__ inline float cnd(float d) {
    const float A1 = 0.31938153f, A2 = -0.356563782f, A3 = 1.781477937f;
    const float A4 = -1.821255978f, A5 = 1.330274429f;
    const float RSQRT2PI = 0.39894228040143267793994605993438f;
    float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float c = RSQRT2PI * expf(-0.5f * d * d) *
              (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    return d > 0 ? 1.0f - c : c;
}
__device__ inline void black_scholes(float S, float X, float T, float R, float V,
                                     float* call, float* put) {
    float sqrtT = sqrtf(T);
    float d1 = (logf(S / X) + (R + 0.5f * V * V) * T) / (V * sqrtT);
    float d2 = d1 - V * sqrtT;
    float expRT = expf(-R * T);
    *call = S * cnd(d1) - X * expRT * cnd(d2);
    *put = X * expRT * (1.0f - cnd(d2)) - S * (1.0f - cnd(d1));
}
'''


def _cnd(d: numpy.ndarray) -> numpy.ndarray:
    return 0.5 * (1.0 + numpy.vectorize(math.erf)(d / math.sqrt(2.0)))


def test_black_scholes_elementwise_with_device_functions(cp) -> None:
    rng = numpy.random.default_rng(0)
    n = 4096
    S = rng.uniform(5, 30, n).astype(numpy.float32)
    X = rng.uniform(1, 100, n).astype(numpy.float32)
    T = rng.uniform(0.25, 10, n).astype(numpy.float32)
    kernel = cp.ElementwiseKernel(
        "float32 S, float32 X, float32 T, float32 R, float32 V",
        "float32 call, float32 put",
        "black_scholes(S, X, T, R, V, &call, &put);",
        "black_scholes_kernel", preamble=BLACK_SCHOLES_PREAMBLE)
    call, put = kernel(cp.asarray(S), cp.asarray(X), cp.asarray(T), numpy.float32(0.02),
                       numpy.float32(0.3))
    assert call.shape == (n,) and call.dtype == numpy.float32
    S64, X64, T64 = S.astype(float), X.astype(float), T.astype(float)
    d1 = (numpy.log(S64 / X64) + (0.02 + 0.045) * T64) / (0.3 * numpy.sqrt(T64))
    d2 = d1 - 0.3 * numpy.sqrt(T64)
    want_call = S64 * _cnd(d1) - X64 * numpy.exp(-0.02 * T64) * _cnd(d2)
    want_put = X64 * numpy.exp(-0.02 * T64) * _cnd(-d2) - S64 * _cnd(-d1)
    numpy.testing.assert_allclose(call.get(), want_call, rtol=1e-3, atol=1e-3)
    numpy.testing.assert_allclose(put.get(), want_put, rtol=1e-3, atol=1e-3)
    # put-call parity holds on the device results too
    parity = (call - put).get()
    numpy.testing.assert_allclose(parity, S64 - X64 * numpy.exp(-0.02 * T64), atol=2e-3,
                                  rtol=1e-4)


def test_monte_carlo_paths_with_i_and_broadcast(cp) -> None:
    npaths, nsteps = 64, 50
    rng = numpy.random.default_rng(1)
    noise = rng.standard_normal(npaths * nsteps).astype(numpy.float32)
    s0 = numpy.linspace(90, 110, npaths, dtype=numpy.float32).reshape(npaths, 1)
    t = numpy.linspace(0.0, 1.0, nsteps, dtype=numpy.float32).reshape(1, nsteps)
    kernel = cp.ElementwiseKernel(
        "float32 s0, float32 t, raw float32 noise, float32 mu, float32 sigma",
        "float32 path",
        "path = s0 * expf((mu - 0.5f * sigma * sigma) * t + sigma * sqrtf(t) * noise[i]);",
        "mc_paths")
    out = kernel(cp.asarray(s0), cp.asarray(t), cp.asarray(noise), numpy.float32(0.05),
                 numpy.float32(0.2))
    assert out.shape == (npaths, nsteps)
    want = s0 * numpy.exp((0.05 - 0.02) * t + 0.2 * numpy.sqrt(t) *
                          noise.reshape(npaths, nsteps))
    numpy.testing.assert_allclose(out.get(), want, rtol=1e-5)
    # the same call again is pipelined and gives the same paths
    again = kernel(cp.asarray(s0), cp.asarray(t), cp.asarray(noise), numpy.float32(0.05),
                   numpy.float32(0.2))
    numpy.testing.assert_array_equal(again.get(), out.get())


def test_kmeans_elementwise_and_reduction_kernels(cp) -> None:
    rng = numpy.random.default_rng(2)
    k, n = 3, 300
    centers_true = numpy.array([[0, 0], [6, 6], [0, 8]], dtype=numpy.float64)
    pts = (centers_true[rng.integers(0, k, n)] + rng.normal(0, 0.5, (n, 2)))
    x, y = cp.asarray(pts[:, 0].copy()), cp.asarray(pts[:, 1].copy())
    sq_dist = cp.ElementwiseKernel(
        "T x, T y, T cx, T cy", "T d",
        "d = (x - cx) * (x - cx) + (y - cy) * (y - cy)", "sq_dist")
    masked_sum = cp.ReductionKernel(
        "T x, S mask", "T total", "mask ? x : 0", "a + b", "total = a", "0", "masked_sum")
    count = cp.ReductionKernel(
        "S mask", "int64 n", "mask ? 1 : 0", "a + b", "n = a", "0", "count_true")
    centers = pts[[0, 100, 200]].copy()
    labels_host = None
    for _ in range(10):
        c = cp.asarray(centers)
        d = cp.stack([sq_dist(x, y, c[j, 0], c[j, 1]) for j in range(k)])
        labels = cp.argmin(d, axis=0)
        new = numpy.empty_like(centers)
        for j in range(k):
            mask = labels == j
            m = int(count(mask))
            new[j, 0] = float(masked_sum(x, mask)) / max(m, 1)
            new[j, 1] = float(masked_sum(y, mask)) / max(m, 1)
        centers = new
        labels_host = labels.get()
    # reference: the same Lloyd iterations in NumPy
    ref = pts[[0, 100, 200]].copy()
    for _ in range(10):
        dd = ((pts[None, :, :] - ref[:, None, :]) ** 2).sum(-1)
        lab = dd.argmin(0)
        ref = numpy.array([pts[lab == j].mean(0) for j in range(k)])
    numpy.testing.assert_allclose(centers, ref, rtol=1e-10)
    numpy.testing.assert_array_equal(labels_host, lab)


SGEMM = r'''
#define TILE 16
extern "C" __global__ void sgemm(const float* A, const float* B, float* C,
                                 int M, int N, int K, float alpha) {
    // A is M x K in Fortran order, B is K x N in C order, C is M x N in C order
    extern __shared__ float dyn[];          // TILE*TILE floats of scratch: B's tile
    __shared__ float As[TILE][TILE];
    float* Bs = dyn;
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row + (size_t)ka * M] : 0.0f;
        Bs[threadIdx.y * TILE + threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[threadIdx.y][k] * Bs[k * TILE + threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = alpha * acc;
}
'''


def test_tiled_sgemm_raw_kernel_matches_dot(cp) -> None:
    M, N, K = 70, 45, 33
    rng = numpy.random.default_rng(3)
    a = cp.asfortranarray(cp.asarray(rng.standard_normal((M, K)).astype(numpy.float32)))
    b = cp.asarray(rng.standard_normal((K, N)).astype(numpy.float32))
    assert a.flags.f_contiguous and not a.flags.c_contiguous
    c = cp.zeros((M, N), dtype=cp.float32)
    kernel = cp.RawKernel(SGEMM, "sgemm")
    grid = ((N + 15) // 16, (M + 15) // 16)
    # Python ints for the int parameters, as CuPy allows
    kernel(grid, (16, 16), (a, b, c, M, N, K, numpy.float32(1.0)), shared_mem=16 * 16 * 4)
    numpy.testing.assert_allclose(c.get(), cp.dot(a, b).get(), rtol=1e-4, atol=1e-4)
    kernel(grid, (16, 16), (a, b, c, M, N, K, numpy.float32(2.0)), shared_mem=16 * 16 * 4)
    numpy.testing.assert_allclose(c.get(), 2 * cp.dot(a, b).get(), rtol=1e-4, atol=1e-4)


STRUCTS = r'''
struct Params { float scale; int offset; double bias; };
template <typename T>
__global__ void affine(const T* x, T* y, Params p, float2 v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = (T)(x[i] * p.scale + p.offset + p.bias + v.x * v.y);
}
__device__ float counter[4];
'''


def test_structs_by_value_and_vector_types_through_raw_module(cp) -> None:
    mod = cp.RawModule(code=STRUCTS, options=("-std=c++17",),
                       name_expressions=["affine<float>", "affine<double>"])
    params_t = numpy.dtype({"names": ["scale", "offset", "bias"],
                            "formats": [numpy.float32, numpy.int32, numpy.float64],
                            "offsets": [0, 4, 8], "itemsize": 16})
    p = numpy.empty(1, dtype=params_t)
    p["scale"], p["offset"], p["bias"] = 2.0, 3, 0.5
    float2 = numpy.dtype([("x", numpy.float32), ("y", numpy.float32)])
    v = numpy.array([(1.5, 2.0)], dtype=float2)
    for dtype, name in ((numpy.float32, "affine<float>"), (numpy.float64, "affine<double>")):
        x = cp.arange(10, dtype=dtype)
        y = cp.zeros(10, dtype=dtype)
        fn = mod.get_function(name)
        fn((1,), (32,), (x, y, p, v, numpy.int32(10)))
        numpy.testing.assert_allclose(y.get(), numpy.arange(10) * 2.0 + 3 + 0.5 + 3.0)
    ptr = mod.get_global("counter")
    counter = cp.ndarray((4,), cp.float32, ptr)
    counter[...] = 7
    assert counter.get().tolist() == [7.0] * 4


def test_streams_and_events_around_kernels(cp) -> None:
    x = cp.arange(1 << 16, dtype=cp.float32)
    double = cp.ElementwiseKernel("T x", "T y", "y = 2 * x", "double_it")
    bump = cp.RawKernel(r'''
    extern "C" __global__ void bump(float* a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) a[i] += 1.0f;
    }''', "bump")
    start, end = cp.cuda.Event(), cp.cuda.Event()
    with cp.cuda.Stream() as stream:
        start.record()
        y = double(x, stream=stream)
        for _ in range(3):
            bump(((1 << 16) // 256,), (256,), (y, numpy.int32(1 << 16)), stream=stream)
        end.record()
        stream.synchronize()
    end.synchronize()
    elapsed = cp.cuda.get_elapsed_time(start, end)
    assert elapsed >= 0.0
    numpy.testing.assert_array_equal(y.get(), 2 * numpy.arange(1 << 16, dtype=numpy.float32) + 3)


def test_kernel_printf_reaches_client_stdout(cp, capsys) -> None:
    k = cp.RawKernel(r'''
    extern "C" __global__ void hello(int tag) {
        if (threadIdx.x == 0) printf("hello from block %d tag %d\n", blockIdx.x, tag);
    }''', "hello")
    k((3,), (8,), (numpy.int32(41),))  # the first launch waits
    k((2,), (8,), (numpy.int32(42),))  # pipelined: its output comes with the next reply
    cp.cuda.Device().synchronize()
    deadline = time.monotonic() + 10
    out = capsys.readouterr().out
    while "tag 42" not in out and time.monotonic() < deadline:  # a reply may lag
        cp.zeros(1).get()
        out += capsys.readouterr().out
    for b in range(3):
        assert f"hello from block {b} tag 41" in out
    for b in range(2):
        assert f"hello from block {b} tag 42" in out


def test_compile_error_is_cupys_compile_exception(cp) -> None:
    import gpushare.cupy.cuda.compiler as compiler
    k = cp.RawKernel(r'''
    extern "C" __global__ void broken(float* a) { a[0] = not_declared_anywhere; }''',
                     "broken")
    with pytest.raises(compiler.CompileException, match="not_declared_anywhere"):
        k((1,), (1,), (cp.zeros(1, dtype=cp.float32),))
    ek = cp.ElementwiseKernel("T x", "T y", "y = x +* ;", "broken_ew")
    with pytest.raises(compiler.CompileException):
        ek(cp.zeros(3))
    # the session goes on
    assert cp.arange(3).sum().get() == 3


def test_kernel_argument_errors_are_raised_at_the_call(cp) -> None:
    k = cp.ElementwiseKernel("T x, T y", "T z", "z = x + y", "adder")
    with pytest.raises(ValueError):
        k(cp.zeros(3), 1, block_size=0)
    with pytest.raises(TypeError):
        k(cp.zeros(3), numpy.zeros(3))  # host arrays are refused, as CuPy does
    with pytest.raises(ValueError, match="Invalid kernel name"):
        cp.ElementwiseKernel("T x", "T y", "y = x", "no spaces allowed")
    raw = cp.RawKernel('extern "C" __global__ void f(float* a, int n) {}', "f")
    from gpushare.errors import CUDADriverError
    with pytest.raises(CUDADriverError):
        raw((1,), (2048,), (cp.zeros(1, dtype=cp.float32), numpy.int32(1)))


def test_same_kernel_twice_sends_source_once_and_does_not_wait(cp, monkeypatch) -> None:
    from gpushare import client
    s = client.get_session()
    calls: list = []
    submits: list = []
    real_call, real_submit = client.Session.call, client.Session.submit

    def call(self, op, target, args=(), kwargs=None, out_id=None):
        calls.append((op, target, args))
        return real_call(self, op, target, args, kwargs, out_id)

    def submit(self, op, target, args=(), kwargs=None, out_id=None, description=None):
        submits.append((op, target, args))
        return real_submit(self, op, target, args, kwargs, out_id, description)
    monkeypatch.setattr(client.Session, "call", call)
    monkeypatch.setattr(client.Session, "submit", submit)
    src = ("T x", "T y", "y = x * 3", "times3")
    k1 = cp.ElementwiseKernel(*src)
    assert [c[1] for c in calls] == ["gpushare.kernel"]
    k2 = cp.ElementwiseKernel(*src)
    assert len(calls) == 1, "the second construction must not wait"
    made = [x for x in submits if x[1] == "gpushare.kernel"]
    assert len(made) == 1 and len(made[0][2]) == 2, "only the hash travels the second time"
    assert k1._gs_id != k2._gs_id
    x = cp.arange(4, dtype=cp.float32)
    assert k2(x).get().tolist() == [0, 3, 6, 9]
    y0 = cp.empty_like(x)
    assert k2(x, y0) is y0  # out given: the first call of this signature waits
    n_calls = len(calls)
    y = k2(x)          # same signatures again: pipelined
    z = k2(x, y)       # the result is y itself
    assert z is y
    assert len(calls) == n_calls
    assert y.get().tolist() == [0, 3, 6, 9]
    raw = cp.RawKernel('extern "C" __global__ void inc(float* a) { a[threadIdx.x] += 1; }',
                       "inc")
    raw((1,), (4,), (x,))
    n_calls = len(calls)
    for _ in range(5):
        assert raw((1,), (4,), (x,)) is None
    assert len(calls) == n_calls, "repeated launches are pipelined"
    assert x.get().tolist() == [6, 7, 8, 9]
    assert s is client.get_session()


def test_reduction_kernel_axis_keepdims_out(cp) -> None:
    a = numpy.arange(24, dtype=numpy.float64).reshape(2, 3, 4)
    x = cp.asarray(a)
    ssq = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    numpy.testing.assert_allclose(ssq(x).get(), numpy.sqrt((a * a).sum()))
    numpy.testing.assert_allclose(ssq(x, axis=1).get(), numpy.sqrt((a * a).sum(1)))
    r = ssq(x, axis=(0, 2), keepdims=True)
    assert r.shape == (1, 3, 1)
    out = cp.empty((2, 4))
    assert ssq(x, axis=1, out=out) is out
    assert ssq(x, axis=1, out=out) is out  # pipelined this time
    numpy.testing.assert_allclose(out.get(), numpy.sqrt((a * a).sum(1)))


def test_fuse_decorator_with_and_without_args(cp) -> None:
    @cp.fuse
    def f(x, y):
        return x * y + 1

    @cp.fuse(kernel_name="g_kernel")
    def g(x):
        return cp.sum(x * x)
    x = cp.arange(5, dtype=cp.float32)
    assert f(x, x).get().tolist() == [1, 2, 5, 10, 17]
    r = g(x)
    assert isinstance(r, cp.ndarray) and r.shape == () and float(r) == 30.0
    assert f(2, 3) == 7


def test_raw_kernel_attributes_and_dynamic_shared_memory(cp) -> None:
    k = cp.RawKernel(r'''
    extern "C" __global__ void fill(float* a) {
        extern __shared__ float s[];
        s[threadIdx.x] = threadIdx.x;
        __syncthreads();
        a[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
    }''', "fill")
    k.compile()
    attrs = k.attributes
    assert attrs["max_threads_per_block"] >= 256
    k.max_dynamic_shared_size_bytes = 64 * 1024
    assert k.max_dynamic_shared_size_bytes == 64 * 1024
    a = cp.zeros(256, dtype=cp.float32)
    k((1,), (256,), (a,), shared_mem=64 * 1024)
    assert a.get().tolist() == list(range(255, -1, -1))


def test_cupyx_jit_kernel_runs_remotely(cp) -> None:
    """CuPy's documented JIT example, unchanged (more in tests/test_jit.py)."""
    from gpushare.cupyx import jit

    @jit.rawkernel()
    def elementwise_copy(x, y, size):
        tid = jit.threadIdx.x + jit.blockIdx.x * jit.blockDim.x
        if tid < size:
            y[tid] = x[tid]
    x = cp.arange(4, dtype=cp.float32)
    y = cp.empty_like(x)
    elementwise_copy((1,), (4,), (x, y, numpy.int32(4)))
    assert y.get().tolist() == [0.0, 1.0, 2.0, 3.0]


# --- a crashing kernel costs only its own session ----------------------------------------
CRASHER = r'''
import sys
import cupy
from gpushare.errors import SessionLostError
boom = cupy.RawKernel(r"""
extern "C" __global__ void boom(float* a) {
    a[(long long)1 << 42] = 1.0f;   // far outside any allocation
}""", "boom")
x = cupy.zeros(4, dtype=cupy.float32)
try:
    boom((1,), (1,), (x,))
    x.get()
except SessionLostError as exc:  # the CPU emulator: the worker process died
    print("LOST:", exc)
    sys.exit(0)
except cupy.cuda.runtime.CUDARuntimeError as exc:
    # the illegal address as CuPy reports it (a GPU's, or the emulator's worker ending
    # with its status); the context is then unusable, so the session ends: its arrays
    # raise the loss
    print("CUDA:", exc)
    try:
        x.get()
    except SessionLostError as exc:
        print("LOST:", exc)
        sys.exit(0)
print("NOT LOST")
sys.exit(1)
'''


def test_crashing_kernel_costs_only_its_session(fresh_server, monkeypatch) -> None:
    from gpushare import client
    monkeypatch.setenv("GPUSHARE_SERVER", fresh_server.address)
    client.reset_session()
    import gpushare.cupy as cp
    try:
        healthy = cp.arange(10, dtype=cp.float32)
        k = cp.ElementwiseKernel("T x", "T y", "y = x + 1", "plus_one")
        before = k(healthy)
        proc = run_python(CRASHER, env={"GPUSHARE_SERVER": fresh_server.address}, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "LOST:" in proc.stdout and "worker" in proc.stdout
        # the healthy session still has its arrays and kernels
        assert k(before).get().tolist() == [float(i + 2) for i in range(10)]
        assert healthy.sum().get() == 45
    finally:
        client.reset_session()


def test_kernels_and_globals_may_have_any_name(cp) -> None:
    """Kernel and global names that are also names in the emulator's own entry code
    (``k``, ``n``, ``size``, ``name``...) compile and run like any other."""
    src = r'''extern "C" __global__ void NAME(float* a) { a[threadIdx.x] += 1; }'''
    for name in ("k", "n", "p", "s", "L", "cap", "size", "name"):
        kern = cp.RawKernel(src.replace("NAME", name), name)
        a = cp.zeros(4, dtype=cp.float32)
        kern((1,), (4,), (a,))
        assert a.get().tolist() == [1.0] * 4, name
    mod = cp.RawModule(code=r'''
        __device__ float name[4];
        __device__ int size;
        extern "C" __global__ void k(float* a) { a[threadIdx.x] = name[threadIdx.x] + size; }''')
    g = mod.get_global("name")
    cp.ndarray((4,), cp.float32, g)[...] = cp.arange(4, dtype=cp.float32)
    cp.ndarray((1,), cp.int32, mod.get_global("size"))[...] = 10
    out = cp.zeros(4, dtype=cp.float32)
    mod.get_function("k")((1,), (4,), (out,))
    assert out.get().tolist() == [10.0, 11.0, 12.0, 13.0]
    for name in ("k", "n", "i", "x"):
        assert cp.ElementwiseKernel("T x", "T y", "y = x * 2", name)(
            cp.arange(3.0)).get().tolist() == [0.0, 2.0, 4.0]


COOPERATIVE = r'''
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
extern "C" __global__ void blocksum(const float* x, float* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ float warp_sums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  float s = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0) warp_sums[tile.meta_group_rank()] = s;
  block.sync();
  if (block.thread_rank() == 0) {
    float t = 0;
    for (unsigned w = 0; w < tile.meta_group_size(); ++w) t += warp_sums[w];
    atomicAdd(out, t);
  }
  cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
  unsigned votes = t4.ballot(t4.thread_rank() % 2 == 0);  // every lane of the tile votes
  if (i == 0) out[1] = (float)votes;                      // lanes 0 and 2: 0b101
}
'''


def test_cooperative_groups_blocks_and_tiles(cp) -> None:
    """cooperative_groups thread blocks, warp tiles, reduce and ballot run on the CPU
    emulator, and so does a grid-wide sync in a cooperative launch."""
    kern = cp.RawKernel(COOPERATIVE, "blocksum", enable_cooperative_groups=True)
    x = cp.arange(1000, dtype=cp.float32)
    out = cp.zeros(2, dtype=cp.float32)
    kern((4,), (256,), (x, out, numpy.int32(1000)))
    assert out.get().tolist() == [499500.0, 5.0]
    grid = COOPERATIVE.replace("block.sync();", "cg::this_grid().sync();")
    out[...] = 0
    cp.RawKernel(grid, "blocksum", enable_cooperative_groups=True)(
        (4,), (256,), (x, out, numpy.int32(1000)))
    assert out.get().tolist() == [499500.0, 5.0]

