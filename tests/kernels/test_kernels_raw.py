import numpy
import pytest
from gpushare.protocol import HostArray
from gpushare_server.kernels import (CompileException, CUDADriverError,
                                     RawKernel, RawModule, capture_printf,
                                     compiler_available)

pytestmark = pytest.mark.skipif(
    not compiler_available(), reason='no C++ compiler (g++/c++/clang++) found')

_SGEMM = r'''
#define TILE 16
// column-major (Fortran order) C[M,N] = A[M,K] * B[K,N]
extern "C" __global__ void sgemm(int M, int N, int K, const float* A,
                                 const float* B, float* C) {
  __shared__ float As[TILE][TILE];
  extern __shared__ float Bs[];            // TILE*TILE floats, dynamic
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.x * TILE + tx;        // index into M
  int col = blockIdx.y * TILE + ty;        // index into N
  float acc = 0.f;
  for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
    int ka = t * TILE + ty, kb = t * TILE + tx;
    As[ty][tx] = (row < M && ka < K) ? A[row + (size_t)ka * M] : 0.f;
    Bs[ty * TILE + tx] = (col < N && kb < K) ? B[kb + (size_t)col * K] : 0.f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[k][tx] * Bs[ty * TILE + k];
    __syncthreads();
  }
  if (row < M && col < N) C[row + (size_t)col * M] = acc;
}
'''


@pytest.mark.timeout(60)
def test_tiled_sgemm_fortran_order():
    rng = numpy.random.default_rng(1)
    M, N, K = 70, 45, 53
    A = numpy.asfortranarray(rng.standard_normal((M, K), dtype=numpy.float32))
    B = numpy.asfortranarray(rng.standard_normal((K, N), dtype=numpy.float32))
    C = numpy.zeros((M, N), dtype=numpy.float32, order='F')
    k = RawKernel(_SGEMM, 'sgemm')
    grid = ((M + 15) // 16, (N + 15) // 16)
    k(grid, (16, 16), (M, N, K, A, B, C), shared_mem=16 * 16 * 4)
    numpy.testing.assert_allclose(C, numpy.dot(A, B), rtol=1e-4, atol=1e-4)
    assert k.attributes['max_threads_per_block'] == 1024
    assert k.num_regs > 0
    with pytest.raises(CUDADriverError):
        k(grid, (16, 16), (M, N, K, A, B, C), shared_mem=100000)
    k.max_dynamic_shared_size_bytes = 100000
    k(grid, (16, 16), (M, N, K, A, B, C), shared_mem=100000)
    with pytest.raises(CUDADriverError):
        k(grid, (64, 32), (M, N, K, A, B, C), shared_mem=1024)


_XORSHIFT = r'''
// NVRTC has no <stdint.h>: kernels written for it (CuPy's Monte Carlo example) declare
// the 64-bit types themselves, as long long
typedef unsigned long long uint64_t;
typedef long long int64_t;
__device__ inline uint64_t xorshift128plus(uint64_t* x) {
  uint64_t s1 = x[0];
  uint64_t s0 = x[1];
  x[0] = s0;
  s1 = s1 ^ (s1 << 23);
  s1 = s1 ^ (s1 >> 17);
  s1 = s1 ^ s0;
  s1 = s1 ^ (s0 >> 26);
  x[1] = s1;
  return s0 + s1;
}
extern "C" __global__ void draw(uint64_t* out, int64_t n) {
  int64_t i = threadIdx.x;
  uint64_t state[2] = {(uint64_t)i + 1, 0x5c721fd808f616b6ULL};
  if (i < n) out[i] = xorshift128plus(state) + sizeof(uint64_t) + sizeof(int64_t);
}
'''


def test_kernels_may_declare_the_64_bit_integer_types_as_nvrtc_code_does():
    out = numpy.zeros(4, dtype=numpy.uint64)
    RawKernel(_XORSHIFT, 'draw')((1,), (4,), (out, numpy.int64(4)))
    m = (1 << 64) - 1
    want = []
    for i in range(4):
        s1, s0 = i + 1, 0x5c721fd808f616b6
        s1 ^= (s1 << 23) & m
        s1 ^= s1 >> 17
        s1 ^= s0
        s1 ^= s0 >> 26
        want.append((s0 + s1 + 16) & m)
    assert out.tolist() == want


_REDUCE = r'''
extern "C" __global__ void block_sum(const double* x, double* partial, long long n) {
  extern __shared__ double s[];
  unsigned t = threadIdx.x;
  long long i = (long long)blockIdx.x * blockDim.x * 2 + t;
  double v = 0;
  if (i < n) v += x[i];
  if (i + blockDim.x < n) v += x[i + blockDim.x];
  s[t] = v;
  __syncthreads();
  for (unsigned o = blockDim.x / 2; o > 0; o >>= 1) {
    if (t < o) s[t] += s[t + o];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

__inline__ __device__ float warp_sum(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}
extern "C" __global__ void shfl_sum(const float* x, float* out, int n) {
  __shared__ float warp_part[32];
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) v += x[i];
  int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;
  v = warp_sum(v);
  if (lane == 0) warp_part[wid] = v;
  __syncthreads();
  v = (threadIdx.x < blockDim.x / warpSize) ? warp_part[lane] : 0.f;
  if (wid == 0) v = warp_sum(v);
  if (threadIdx.x == 0) atomicAdd(out, v);
}

extern "C" __global__ void votes(const int* x, unsigned* ballots, int* counts,
                                 int* bcast) {
  int t = threadIdx.x;
  unsigned b = __ballot_sync(0xffffffff, x[t] > 0);
  int c = __syncthreads_count(x[t] > 0);
  int first = __shfl_sync(0xffffffff, x[t], 0);
  int up = __shfl_up_sync(0xffffffff, t, 1);
  int xr = __shfl_xor_sync(0xffffffff, t, 1);
  if ((t & 31) == 0) ballots[t / 32] = b;
  counts[t] = c;
  bcast[3 * t] = first;
  bcast[3 * t + 1] = up;
  bcast[3 * t + 2] = xr;
}
'''


@pytest.mark.timeout(60)
def test_block_reductions_syncthreads_and_shfl():
    m = RawModule(code=_REDUCE)
    n = 100003
    x = numpy.random.default_rng(2).random(n)
    threads = 256
    blocks = (n + 2 * threads - 1) // (2 * threads)
    partial = numpy.zeros(blocks)
    m.get_function('block_sum')((blocks,), (threads,), (x, partial, n),
                                shared_mem=threads * 8)
    numpy.testing.assert_allclose(partial.sum(), x.sum(), rtol=1e-12)
    xf = x.astype(numpy.float32)
    out = numpy.zeros(1, numpy.float32)
    m.get_function('shfl_sum')((40,), (256,), (xf, out, numpy.int32(n)))
    numpy.testing.assert_allclose(out[0], xf.sum(dtype=numpy.float64),
                                  rtol=1e-4)
    xi = numpy.random.default_rng(3).integers(-3, 3, 64).astype(numpy.int32)
    ballots = numpy.zeros(2, numpy.uint32)
    counts = numpy.zeros(64, numpy.int32)
    bc = numpy.zeros(3 * 64, numpy.int32)
    m.get_function('votes')((1,), (64,), (xi, ballots, counts, bc))
    for w in range(2):
        exp = sum(1 << j for j in range(32) if xi[32 * w + j] > 0)
        assert ballots[w] == exp
    assert (counts == (xi > 0).sum()).all()
    t = numpy.arange(64)
    assert (bc[0::3] == xi[(t // 32) * 32]).all()
    assert (bc[1::3] == numpy.where(t % 32 == 0, t, t - 1)).all()
    assert (bc[2::3] == (t ^ 1)).all()


@pytest.mark.timeout(60)
def test_atomics_histogram():
    code = r'''
    extern "C" __global__ void hist(const unsigned char* data, int n,
                                    unsigned int* bins, float* fsum,
                                    int* imax, unsigned long long* cnt) {
      __shared__ unsigned int local[256];
      for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
      __syncthreads();
      for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
           i += blockDim.x * gridDim.x) {
        atomicAdd(&local[data[i]], 1u);
        atomicAdd(fsum, 1.0f);
        atomicMax(imax, (int)data[i]);
        atomicAdd(cnt, 1ULL);
      }
      __syncthreads();
      for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
    }'''
    n = 200000
    data = numpy.random.default_rng(4).integers(0, 200, n).astype(numpy.uint8)
    bins = numpy.zeros(256, numpy.uint32)
    fsum = numpy.zeros(1, numpy.float32)
    imax = numpy.zeros(1, numpy.int32)
    cnt = numpy.zeros(1, numpy.uint64)
    RawKernel(code, 'hist')((64,), (128,), (data, n, bins, fsum, imax, cnt))
    numpy.testing.assert_array_equal(bins, numpy.bincount(data, minlength=256))
    assert fsum[0] == n and imax[0] == data.max() and cnt[0] == n


_STRUCTS = r'''
struct Params {
  float scale;
  int offset;
  double shift;
  float2 v;
};
template <typename T, int N>
__global__ void affine(const T* x, T* y, Params p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    T acc = 0;
    for (int k = 0; k < N; ++k) acc += x[i];
    y[i] = acc * p.scale + p.offset + p.shift + p.v.x * p.v.y;
  }
}
__global__ void vec(const float4* a, double2 d, int3 c, float4* out) {
  int i = threadIdx.x;
  float4 v = a[i];
  out[i] = make_float4(v.x + d.x, v.y * d.y, v.z + c.x + c.y + c.z, v.w);
}
__device__ int counter = 7;
__constant__ float coeffs[4];
extern "C" __global__ void use_globals(float* out) {
  out[threadIdx.x] = coeffs[threadIdx.x] * counter;
}
'''


@pytest.mark.timeout(60)
def test_structs_vectors_templates_globals():
    mod = RawModule(code=_STRUCTS,
                    name_expressions=['affine<float, 3>', 'affine<double, 2>',
                                      'vec'])
    pdt = numpy.dtype({'names': ['scale', 'offset', 'shift', 'v'],
                       'formats': [numpy.float32, numpy.int32, numpy.float64,
                                   (numpy.float32, 2)],
                       'offsets': [0, 4, 8, 16], 'itemsize': 24})
    p = numpy.empty(1, dtype=pdt)
    p['scale'], p['offset'], p['shift'], p['v'] = 2.0, 3, 0.5, (2.0, 4.0)
    x = numpy.arange(10, dtype=numpy.float32)
    y = numpy.zeros_like(x)
    # a struct by value is host data (a numpy array from the client); a device array,
    # structured or not, is passed by its address, as CuPy passes a cupy.ndarray
    mod.get_function('affine<float, 3>')((1,), (32,), (x, y, HostArray(p), 10))
    numpy.testing.assert_allclose(y, 3 * x * 2 + 3 + 0.5 + 8)
    xd = numpy.arange(10.)
    yd = numpy.zeros_like(xd)
    mod.get_function('affine<double, 2>')((1,), (32,), (xd, yd, HostArray(p[0:1]), 10))
    numpy.testing.assert_allclose(yd, 2 * xd * 2 + 3 + 0.5 + 8)
    a = numpy.arange(16, dtype=numpy.float32).reshape(4, 4)
    out = numpy.zeros_like(a)
    d = numpy.array([(1.5, 2.0)], dtype=[('x', '<f8'), ('y', '<f8')])
    c = numpy.array([(1, 2, 3)], dtype=[('x', '<i4'), ('y', '<i4'), ('z', '<i4')])
    mod.get_function('vec')((1,), (4,), (a, HostArray(d), HostArray(c), out))
    exp = a.copy()
    exp[:, 0] += 1.5
    exp[:, 1] *= 2.0
    exp[:, 2] += 6
    numpy.testing.assert_array_equal(out, exp)
    # globals: write __constant__ memory, read __device__ int
    g = mod.get_global('coeffs')
    g.view(numpy.float32)[:] = [1, 2, 3, 4]
    assert mod.get_global('counter').view(numpy.int32)[0] == 7
    o = numpy.zeros(4, numpy.float32)
    mod.get_function('use_globals')((1,), (4,), (o,))
    numpy.testing.assert_array_equal(o, [7, 14, 21, 28])


@pytest.mark.timeout(60)
def test_printf_capture_and_compile_error():
    k = RawKernel(r'''
    extern "C" __global__ void hello(int v, double f) {
      if (threadIdx.x == 1) printf("block %d thread %d v=%d f=%.2f\n",
                                   blockIdx.x, threadIdx.x, v, f);
    }''', 'hello')
    with capture_printf() as out:
        k((3,), (4,), (42, 1.25))
    text = ''.join(out)
    lines = sorted(text.splitlines())
    assert lines == ['block %d thread 1 v=42 f=1.25' % b for b in range(3)]
    bad = RawKernel('extern "C" __global__ void broken(float* x) '
                    '{ x[0] = undefined_symbol; }', 'broken')
    with pytest.raises(CompileException) as ei:
        bad((1,), (1,), (numpy.zeros(1, numpy.float32),))
    assert 'undefined_symbol' in str(ei.value)
    assert ei.value.name == 'broken'
    assert 'undefined_symbol' in ei.value.source


@pytest.mark.timeout(60)
def test_math_and_intrinsics():
    code = r'''
    extern "C" __global__ void m(const double* x, double* y, unsigned* u) {
      int i = threadIdx.x;
      double v = x[i];
      double s, c;
      sincospi(v, &s, &c);
      y[8 * i + 0] = rsqrt(v + 2);
      y[8 * i + 1] = erfinv(v / 2);
      y[8 * i + 2] = erfcinv(v / 2 + 1);
      y[8 * i + 3] = normcdf(v);
      y[8 * i + 4] = s + c;
      y[8 * i + 5] = __saturatef((float)v);
      y[8 * i + 6] = __float2int_rn((float)(v * 2.5)) + min(1, 2.5) + max(3u, 4);
      y[8 * i + 7] = __half2float(__float2half((float)v));
      u[4 * i + 0] = __popc(i * 37u);
      u[4 * i + 1] = __clz(i + 1);
      u[4 * i + 2] = __ffs(i);
      u[4 * i + 3] = __brev(i);
    }'''
    x = numpy.linspace(-1.5, 1.5, 16)
    y = numpy.zeros(16 * 8)
    u = numpy.zeros(16 * 4, numpy.uint32)
    RawKernel(code, 'm')((1,), (16,), (x, y, u))
    y = y.reshape(16, 8)
    from math import erf, erfc, sqrt, pi, sin, cos
    numpy.testing.assert_allclose(y[:, 0], 1 / numpy.sqrt(x + 2))
    numpy.testing.assert_allclose([erf(v) for v in y[:, 1]], x / 2, atol=1e-13)
    numpy.testing.assert_allclose([erfc(v) for v in y[:, 2]], x / 2 + 1,
                                  atol=1e-13)
    numpy.testing.assert_allclose(y[:, 3], [0.5 * erfc(-v / sqrt(2)) for v in x])
    numpy.testing.assert_allclose(y[:, 4], numpy.sin(pi * x) + numpy.cos(pi * x),
                                  atol=1e-12)
    numpy.testing.assert_array_equal(y[:, 5], numpy.clip(x, 0, 1).astype(numpy.float32))
    numpy.testing.assert_array_equal(
        y[:, 6], numpy.round((x * 2.5).astype(numpy.float32)) + 1 + 4)
    numpy.testing.assert_array_equal(y[:, 7], x.astype(numpy.float16))
    u = u.reshape(16, 4)
    i = range(16)
    assert list(u[:, 0]) == [bin(v * 37).count("1") for v in i]
    assert list(u[:, 1]) == [32 - (v + 1).bit_length() for v in i]
    assert list(u[:, 2]) == [(v & -v).bit_length() for v in i]
    assert list(u[:, 3]) == [int(f"{v:032b}"[::-1], 2) for v in i]
