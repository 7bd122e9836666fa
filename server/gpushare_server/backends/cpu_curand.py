"""``cupy.random.Generator``'s kernels on the CPU backend: CuPy's own device code
(``cupy/random/cupy_distributions.cu``, vendored as
``csrc/include/cupy/random_distributions.cuh``) over the emulator's cuRAND
(``csrc/include/curand_kernel.h``), launched as CuPy's ``_launch_dist`` launches it:
one thread per generator state, 256 to a block, thread ``t`` drawing the outputs
``t, t + states, t + 2 * states...`` from state ``t``. So a seeded Generator draws the
numbers CuPy's draws on a GPU with as many multiprocessors as this backend reports
(``8 * 256`` states per multiprocessor; arrays up to that many elements do not depend
on it), and each distribution is CuPy's algorithm.

One module per cuRAND state type, compiled on first use (and cached on disk like
every emulated kernel)."""
from __future__ import annotations

import functools
import os
from typing import Any

import numpy

#: cuRAND's state types, their sizes (``sizeof``), and CuPy's generator ids
STATES = {
    "xorwow": ("curandState", 48),
    "mrg32k3a": ("curandStateMRG32k3a", 48),
    "philox4x3210": ("curandStatePhilox4_32_10_t", 64),
}

#: ``sizeof(rk_binomial_state)``: the work space ``Generator.binomial`` keeps per state
BINOMIAL_STATE_SIZE = 136

_THREADS = 256

#: CuPy's entry points (``cupy_distributions.cu``'s host functions): the functor, the
#: output's C type, the extra parameters (``array:T`` is CuPy's ``array_data<T>*``,
#: an ``_array_data`` of a broadcast device array; ``binomial`` is its work space)
ENTRIES = {
    "raw": ("raw_functor", "int32_t", ()),
    "random_uniform": ("random_uniform_functor", "double", ()),
    "random_uniform_float": ("random_uniform_float_functor", "float", ()),
    "interval_32": ("interval_32_functor", "uint32_t", ("uint32_t", "uint32_t")),
    "interval_64": ("interval_64_functor", "uint64_t", ("uint64_t", "uint64_t")),
    "beta": ("beta_functor", "double", ("array:double", "array:double")),
    "exponential": ("exponential_functor", "double", ()),
    "geometric": ("geometric_functor", "int64_t", ("array:double",)),
    "hypergeometric": ("hypergeometric_functor", "int64_t",
                       ("array:int64_t", "array:int64_t", "array:int64_t")),
    "logseries": ("logseries_functor", "int64_t", ("array:double",)),
    "poisson": ("poisson_functor", "int64_t", ("array:double",)),
    "standard_normal": ("standard_normal_functor", "double", ()),
    "standard_normal_float": ("standard_normal_float_functor", "float", ()),
    "standard_gamma": ("standard_gamma_functor", "double", ("array:double",)),
    # (CuPy passes n as int64 and reads it as int: its low half, as here)
    "binomial": ("binomial_functor", "int64_t", ("array:int", "array:double", "binomial")),
}

def multiprocessor_count() -> int:
    """The multiprocessors the CPU backend reports (``multiProcessorCount``)."""
    return os.cpu_count() or 1


_NUMPY_SCALAR = {"uint32_t": numpy.uint32, "uint64_t": numpy.uint64}


def _source(kind: str) -> str:
    lines = ["#include <cupy/random_distributions.cuh>",
             f"typedef curand_pseudo_state<{STATES[kind][0]}> S;",
             'extern "C" __global__ void gs_init(intptr_t state, unsigned long long seed, '
             "long long size) { init_curand<S>(state, seed, size); }"]
    for name, (functor, out_type, params) in ENTRIES.items():
        decl, call = [], []
        for i, p in enumerate(params):
            if p.startswith("array:"):
                decl.append(f"intptr_t a{i}")
                call.append(f"reinterpret_cast<array_data<{p[6:]}>*>(a{i})")
            elif p == "binomial":
                decl.append(f"intptr_t a{i}")
                call.append(f"reinterpret_cast<rk_binomial_state*>(a{i})")
            else:
                decl.append(f"{p} a{i}")
                call.append(f"a{i}")
        lines.append(
            f'extern "C" __global__ void gs_{name}(intptr_t state, long long state_size, '
            f"intptr_t out, long long size{''.join(', ' + d for d in decl)}) {{ "
            f"execute_dist<{functor}, S, {out_type}>(state, state_size, out, size"
            f"{''.join(', ' + c for c in call)}); }}")
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=None)
def _module(kind: str) -> Any:
    from gpushare_server import kernels
    return kernels.RawModule(code=_source(kind))


def state_bytes(kind: str, size: int) -> numpy.ndarray:
    """Zeroed memory for ``size`` states, rounded up to whole blocks: CuPy's kernels
    load (and store back) the state of every thread they launch, also past ``size``
    when it is not a multiple of 256 (on a GPU, past the allocation)."""
    padded = -(-max(size, 0) // _THREADS) * _THREADS
    return numpy.zeros(STATES[kind][1] * padded, numpy.int8)


def init_states(kind: str, state: numpy.ndarray, seed: int, size: int) -> None:
    """CuPy's ``init_curand_generator``: state ``i`` is ``curand_init(seed, i, 0)``."""
    if size <= 0:
        return
    _module(kind).get_function("gs_init")(
        (-(-size // _THREADS),), (_THREADS,),
        (numpy.intp(state.ctypes.data), numpy.uint64(seed), numpy.int64(size)))


def _array_data(a: numpy.ndarray) -> numpy.ndarray:
    """CuPy's ``_array_data``: ``(ptr, ndim) + shape + strides`` as int64."""
    return numpy.array((a.ctypes.data, a.ndim) + a.shape + a.strides, numpy.int64)


def launch(kind: str, state: numpy.ndarray, state_size: int, name: str,
           out: numpy.ndarray, args: tuple = ()) -> None:
    """CuPy's ``_launch``: ``name``'s kernel fills ``out`` (contiguous) from the
    states; array arguments go as ``_array_data`` of themselves, others by value."""
    if out.size == 0:
        return
    if not (out.flags.c_contiguous or out.flags.f_contiguous):  # (as CuPy checks)
        raise ValueError("Supplied output array is not contiguous, writable or aligned.")
    params = ENTRIES[name][2]
    keep = []
    values = []
    for p, a in zip(params, args):
        if p.startswith("array:"):
            data = _array_data(a)
            keep.append((a, data))
            values.append(numpy.intp(data.ctypes.data))
        elif p == "binomial":
            values.append(numpy.intp(a.ctypes.data))
        else:
            values.append(_NUMPY_SCALAR[p](a))
    _module(kind).get_function("gs_" + name)(
        (-(-state_size // _THREADS),), (_THREADS,),
        (numpy.intp(state.ctypes.data), numpy.int64(state_size),
         numpy.intp(out.ctypes.data), numpy.int64(out.size), *values))
    del keep


# --------------------------------------------------------------------------------------
# cuRAND's host API XORWOW (``curandGenerate*`` of a ``CURAND_RNG_PSEUDO_XORWOW`` /
# ``_DEFAULT`` generator), which CuPy's legacy ``RandomState`` draws through. Read off an
# H200 (``tests/gpu_session.sh``'s section 3): 4096 states, state ``i`` is
# ``curand_init(seed, i, 0)``, kept between calls; a call's element ``k`` comes from state
# ``(start + k) % 4096``, each state's elements in order (``generate``: one word each;
# ``generateUniformDouble``: ``curand_uniform_double``'s two words; ``generateNormal*``:
# its pairs, pair ``j`` (elements ``2j, 2j+1``) ``curand_normal2*`` of state
# ``(start + j) % 4096``); ``start`` is the number of elements the generator wrote before
# (modulo 4096). Measured: ``generate`` of 3*4096*8 words then 16 doubles; on a
# RandomState(1234): 8 doubles, 8 words, 8 normals. That a normal call moves ``start``
# by its element count (not its pair count) is assumed, not measured.

HOST_STATES = 4096

#: the kinds of ``gs_host_xorwow``: what one element is
HOST_KINDS = {"generate": 0, "uniform_double": 1, "uniform": 2, "normal_double": 3,
              "normal": 4}

_HOST_SOURCE = r"""#include <curand_kernel.h>
#include <string.h>
// CUDA's double log and sincospi as libdevice (CUDA 13's libdevice.10.bc: __nv_log,
// __nv_sincospi) computes them, step by step: the host's libm rounds some results
// otherwise (an H200's RandomState(1234).standard_normal(8)[3] is one ulp off with it)
static inline double gs_bits_d(unsigned long long b) { double d; memcpy(&d, &b, 8); return d; }
static inline unsigned long long gs_d_bits(double d) { unsigned long long b; memcpy(&b, &d, 8); return b; }
static inline double gs_lohi(unsigned int lo, unsigned int hi) {
  return gs_bits_d(((unsigned long long)hi << 32) | lo);
}
static inline double gs_rcp_approx(double d) {
  // (MUFU.RCP64H: about 20 good bits; the two Newton steps after it make the result
  // the same for any such start)
  unsigned long long b = gs_d_bits(1.0 / d);
  return gs_bits_d(b & 0xFFFFFFFF00000000ULL);
}
static double gs_nv_log(double a) {
  unsigned int ihi = (unsigned int)(gs_d_bits(a) >> 32), ilo = (unsigned int)gs_d_bits(a);
  int e = -1023;
  double x = a;
  if ((int)ihi < 1048576) {
    x = a * gs_bits_d(0x4350000000000000ULL);
    e = -1023 - 54;
    ihi = (unsigned int)(gs_d_bits(x) >> 32);
    ilo = (unsigned int)gs_d_bits(x);
  }
  if ((int)ihi > 0 && (int)ihi < 2146435072) {
    int e1 = e + (int)(ihi >> 20);
    unsigned int h = (ihi & 0x800FFFFFu) | 1072693248u;
    double m = gs_lohi(ilo, h);
    if ((int)h > 1073127582) {
      m = gs_lohi(ilo, h - (1u << 20));
      e1 += 1;
    }
    double f = m - 1.0, g = m + 1.0;
    double r = gs_rcp_approx(g);
    double t = fma(-g, r, 1.0);
    t = fma(t, t, t);
    r = fma(t, r, r);
    double u = f * r;
    u = u + u;
    double v = u * u;
    double q = fma(gs_bits_d(0x3EB1380B3AE80F1EULL), v, gs_bits_d(0x3ED0EE258B7A8B04ULL));
    q = fma(q, v, gs_bits_d(0x3EF3B2669F02676FULL));
    q = fma(q, v, gs_bits_d(0x3F1745CBA9AB0956ULL));
    q = fma(q, v, gs_bits_d(0x3F3C71C72D1B5154ULL));
    q = fma(q, v, gs_bits_d(0x3F624924923BE72DULL));
    q = fma(q, v, gs_bits_d(0x3F8999999999A3C4ULL));
    q = fma(q, v, gs_bits_d(0x3FB5555555555554ULL));
    double w = 2.0 * (f - u);
    w = fma(-u, f, w);
    w = r * w;
    double z = fma(q * v, u, w);
    double ed = gs_lohi((unsigned int)e1 ^ 0x80000000u, 1127219200u) -
                gs_lohi(0x80000000u, 1127219200u);
    double hi = fma(ed, gs_bits_d(0x3FE62E42FEFA39EFULL), u);
    double lo = fma(-ed, gs_bits_d(0x3FE62E42FEFA39EFULL), hi);
    lo = lo - u;
    lo = z - lo;
    lo = fma(ed, gs_bits_d(0x3C7ABC9E3B39803FULL), lo);
    return hi + lo;
  }
  double inf = gs_bits_d(0x7FF0000000000000ULL);
  if ((ihi & 0x7FFFFFFFu) == 0) return -inf;  // (the high word as a float: +-0)
  return fma(x, inf, inf);
}
static void gs_nv_sincospi(double a, double* sp, double* cp) {
  double x = a;
  unsigned int hi = (unsigned int)(gs_d_bits(a) >> 32);
  if (hi + hi > 0x86800000u) x = a * 0.0;
  unsigned long long xb = gs_d_bits(x);
  double x2 = gs_lohi((unsigned int)xb, (unsigned int)(xb >> 32) + (1u << 20));
  double t = round(x2);
  int q = (int)(long long)t;
  double r = fma(-t, 0.5, x);
  double r2 = r * gs_bits_d(0x3CA1A62633145C07ULL);
  double z = fma(r, gs_bits_d(0x400921FB54442D18ULL), r2);
  double zz = z * z;
  double c = fma(gs_bits_d(0xBDA8FF8320FD8164ULL), zz, gs_bits_d(0x3E21EEA7C1EF8528ULL));
  c = fma(c, zz, gs_bits_d(0xBE927E4F8E06E6D9ULL));
  c = fma(c, zz, gs_bits_d(0x3EFA01A019DDBCE9ULL));
  c = fma(c, zz, gs_bits_d(0xBF56C16C16C15D47ULL));
  c = fma(c, zz, gs_bits_d(0x3FA5555555555551ULL));
  c = fma(c, zz, -0.5);
  c = fma(c, zz, 1.0);
  double s = fma(gs_bits_d(0x3DE5DB65F9785EBAULL), zz, gs_bits_d(0xBE5AE5F12CB0D246ULL));
  s = fma(s, zz, gs_bits_d(0x3EC71DE369ACE392ULL));
  s = fma(s, zz, gs_bits_d(0xBF2A01A019DB62A1ULL));
  s = fma(s, zz, gs_bits_d(0x3F81111111110818ULL));
  s = fma(s, zz, gs_bits_d(0xBFC5555555555554ULL));
  s = fma(s, zz, 0.0);
  s = fma(s, z, z);
  double so = s, co = c;
  if (q & 1) { so = c; co = -s; }
  if (q & 2) { so = -so; co = -co; }
  co = co + 0.0;
  if (x == trunc(x)) so = x * 0.0;
  *sp = so;
  *cp = co;
}
static double2 gs_host_normal2_double(curandStateXORWOW_t* s) {
  unsigned int x0 = curand(s), x1 = curand(s), y0 = curand(s), y1 = curand(s);
  unsigned long long zx = (unsigned long long)x0 ^ ((unsigned long long)x1 << 21);
  double u = fma((double)zx, CURAND_2POW53_INV_DOUBLE, CURAND_2POW53_INV_DOUBLE / 2.0);
  unsigned long long zy = (unsigned long long)y0 ^ ((unsigned long long)y1 << 21);
  double v = fma((double)zy, CURAND_2POW53_INV_DOUBLE * 2.0, CURAND_2POW53_INV_DOUBLE);
  double sq = sqrt(-2.0 * gs_nv_log(u));
  double2 r;
  gs_nv_sincospi(v, &r.x, &r.y);
  r.x *= sq;
  r.y *= sq;
  return r;
}
extern "C" __global__ void gs_host_xorwow(intptr_t state, long long start, intptr_t out,
                                          long long n, int kind, double mean,
                                          double stddev) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  curandStateXORWOW_t* sp = reinterpret_cast<curandStateXORWOW_t*>(state) + t;
  curandStateXORWOW_t s = *sp;
  long long first = ((t - start) % 4096 + 4096) % 4096;
  if (kind == 0) {
    unsigned int* o = reinterpret_cast<unsigned int*>(out);
    for (long long k = first; k < n; k += 4096) o[k] = curand(&s);
  } else if (kind == 1) {
    double* o = reinterpret_cast<double*>(out);
    for (long long k = first; k < n; k += 4096) o[k] = curand_uniform_double(&s);
  } else if (kind == 2) {
    float* o = reinterpret_cast<float*>(out);
    for (long long k = first; k < n; k += 4096) o[k] = curand_uniform(&s);
  } else if (kind == 3) {
    double* o = reinterpret_cast<double*>(out);
    for (long long j = first; 2 * j < n; j += 4096) {
      double2 r = gs_host_normal2_double(&s);
      o[2 * j] = fma(stddev, r.x, mean);
      o[2 * j + 1] = fma(stddev, r.y, mean);
    }
  } else {
    float* o = reinterpret_cast<float*>(out);
    float m = (float)mean, sd = (float)stddev;
    for (long long j = first; 2 * j < n; j += 4096) {
      float2 r = curand_normal2(&s);
      o[2 * j] = fmaf(sd, r.x, m);
      o[2 * j + 1] = fmaf(sd, r.y, m);
    }
  }
  *sp = s;
}
"""


@functools.lru_cache(maxsize=None)
def _host_module() -> Any:
    from gpushare_server import kernels
    return kernels.RawModule(code=_HOST_SOURCE)


class HostXorwow:
    """A cuRAND host API XORWOW generator (``curandCreateGenerator`` +
    ``curandSetPseudoRandomGeneratorSeed``), its 4096 states built on first use."""

    def __init__(self, seed: int) -> None:
        self.seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        self.start = 0  # (elements written so far, modulo 4096)
        self._state: numpy.ndarray | None = None

    def _states(self) -> numpy.ndarray:
        if self._state is None:
            state = state_bytes("xorwow", HOST_STATES)
            init_states("xorwow", state, self.seed, HOST_STATES)
            self._state = state
        return self._state

    def fill(self, kind: str, out: numpy.ndarray, mean: float = 0.0,
             stddev: float = 1.0) -> None:
        """``out`` (C-contiguous: uint32 words, or float64/float32 values) filled as
        ``curandGenerate``/``...UniformDouble``/``...Uniform``/``...NormalDouble``/
        ``...Normal`` fill it (a normal's size is even, as cuRAND requires)."""
        n = out.size
        if n == 0:
            return
        _host_module().get_function("gs_host_xorwow")(
            (HOST_STATES // _THREADS,), (_THREADS,),
            (numpy.intp(self._states().ctypes.data), numpy.int64(self.start),
             numpy.intp(out.ctypes.data), numpy.int64(n), numpy.int32(HOST_KINDS[kind]),
             numpy.float64(mean), numpy.float64(stddev)))
        self.start = (self.start + n) % HOST_STATES
