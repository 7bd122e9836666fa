// gpushare CUDA C/C++ emulation header.
//
// Prepended (as a precompiled header when possible) to every user CUDA source
// compiled by gpushare_server.kernels.  It maps the CUDA execution model onto
// host code: kernels become ordinary functions that are called once per
// emulated thread; the runtime (gpushare_rt.cpp) runs blocks in parallel on a
// thread pool and the threads of a block either as a plain loop (fast path) or
// as cooperative fibers when the source uses barriers / warp intrinsics
// (GS_USE_FIBERS=1).
#ifndef GPUSHARE_CUDA_H
#define GPUSHARE_CUDA_H

// CUDA's fixed-width integers are NVRTC's: the 64-bit ones are long long, so a kernel
// written for NVRTC (which has no <stdint.h>) that declares them itself, e.g.
// `typedef unsigned long long uint64_t;` as CuPy's examples do, compiles here too.
// glibc's own typedefs (long) stay out through their include guards.
#define _BITS_STDINT_INTN_H 1
#define _BITS_STDINT_UINTN_H 1
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// glibc's <math.h> (C23's narrowing functions, under _GNU_SOURCE) declares names that
// CUDA does not have and a user's kernel may well take (`extern "C" __global__ void
// fdiv(...)` conflicted with them): they are declared under other names here.
#define fadd gs_glibc_fadd
#define fsub gs_glibc_fsub
#define fmul gs_glibc_fmul
#define fdiv gs_glibc_fdiv
#define fsqrt gs_glibc_fsqrt
#define ffma gs_glibc_ffma
#define faddl gs_glibc_faddl
#define fsubl gs_glibc_fsubl
#define fmull gs_glibc_fmull
#define fdivl gs_glibc_fdivl
#define fsqrtl gs_glibc_fsqrtl
#define ffmal gs_glibc_ffmal
#define daddl gs_glibc_daddl
#define dsubl gs_glibc_dsubl
#define dmull gs_glibc_dmull
#define ddivl gs_glibc_ddivl
#define dsqrtl gs_glibc_dsqrtl
#define dfmal gs_glibc_dfmal
// CuPy compiles every kernel with -ftz=true: a float32 math function reads a subnormal
// argument as a zero of its sign and gives zero for a subnormal result. The runtime sets
// MXCSR's DAZ/FTZ around the launches that flush (kernels/_runtime.py: ftz_launch), and
// under them glibc's float functions read the argument's bits in places and its zero in
// others (cbrtf(1e-40) gave -5.6e-16, logf(-1e-40) NaN, lgammaf(1e-40) 104). So every call
// of these, <cmath>'s float overloads included, goes to the symbol gs_ftz_NAME, defined
// below to flush its argument and its result around glibc's function (the pragma must
// come before <math.h> declares them). Without MXCSR's bits (a kernel that also takes
// doubles) the flush is CUDA's all the same.
#define GS_PRAGMA(x) _Pragma(#x)
#define GS_FTZ_RENAME(n) GS_PRAGMA(redefine_extname n gs_ftz_##n)
#define GS_FTZ_UNARY(X) X(sinf) X(cosf) X(tanf) X(asinf) X(acosf) X(atanf) X(sinhf) \
  X(coshf) X(tanhf) X(asinhf) X(acoshf) X(atanhf) X(expf) X(exp2f) X(exp10f) X(expm1f) \
  X(logf) X(log2f) X(log10f) X(log1pf) X(cbrtf) X(erff) X(erfcf) X(lgammaf) X(tgammaf)
#define GS_FTZ_BINARY(X) X(powf) X(atan2f) X(hypotf) X(fmodf) X(remainderf) X(fdimf)
GS_FTZ_UNARY(GS_FTZ_RENAME)
GS_FTZ_BINARY(GS_FTZ_RENAME)
GS_FTZ_RENAME(sincosf)
#include <fenv.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

#undef fadd
#undef fsub
#undef fmul
#undef fdiv
#undef fsqrt
#undef ffma
#undef faddl
#undef fsubl
#undef fmull
#undef fdivl
#undef fsqrtl
#undef ffmal
#undef daddl
#undef dsubl
#undef dmull
#undef ddivl
#undef dsqrtl
#undef dfmal
#include "gpushare_rt.h"

#ifndef GS_GRID_SYNC
#define GS_GRID_SYNC 0  // set when the source syncs a whole grid (gs_launch)
#endif
#ifndef GS_USE_FIBERS
#define GS_USE_FIBERS 0
#endif

// ------------------------------------------------------------ qualifiers
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __constant__
#define __managed__
#define __align__(n) alignas(n)
#define __launch_bounds__(...)
#define __grid_constant__
#define __shared__ static thread_local
#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 800
#endif
#define __GPUSHARE_EMULATOR__ 1
#define CUDART_VERSION 12000
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0

// ------------------------------------------------------------ vector types
#define GS_VEC2(T, N, A)                                                    \
  struct alignas(A) N##2 { T x, y; };                                       \
  static inline N##2 make_##N##2(T x, T y) { N##2 r; r.x = x; r.y = y; return r; }
#define GS_VEC3(T, N)                                                       \
  struct N##3 { T x, y, z; };                                               \
  static inline N##3 make_##N##3(T x, T y, T z) {                           \
    N##3 r; r.x = x; r.y = y; r.z = z; return r; }
#define GS_VEC4(T, N, A)                                                    \
  struct alignas(A) N##4 { T x, y, z, w; };                                 \
  static inline N##4 make_##N##4(T x, T y, T z, T w) {                      \
    N##4 r; r.x = x; r.y = y; r.z = z; r.w = w; return r; }
#define GS_VEC1(T, N, A)                                                    \
  struct alignas(A) N##1 { T x; };                                          \
  static inline N##1 make_##N##1(T x) { N##1 r; r.x = x; return r; }
#define GS_VECS(T, N, S)                                                    \
  GS_VEC1(T, N, S) GS_VEC2(T, N, 2 * S) GS_VEC3(T, N) GS_VEC4(T, N, 4 * S)

GS_VECS(signed char, char, 1)
GS_VECS(unsigned char, uchar, 1)
GS_VECS(short, short, 2)
GS_VECS(unsigned short, ushort, 2)
GS_VECS(int, int, 4)
GS_VECS(float, float, 4)
GS_VEC1(long, long, 8) GS_VEC2(long, long, 16) GS_VEC3(long, long)
GS_VEC4(long, long, 16)
GS_VEC1(unsigned long, ulong, 8) GS_VEC2(unsigned long, ulong, 16)
GS_VEC3(unsigned long, ulong) GS_VEC4(unsigned long, ulong, 16)
GS_VEC1(long long, longlong, 8) GS_VEC2(long long, longlong, 16)
GS_VEC3(long long, longlong) GS_VEC4(long long, longlong, 16)
GS_VEC1(unsigned long long, ulonglong, 8)
GS_VEC2(unsigned long long, ulonglong, 16) GS_VEC3(unsigned long long, ulonglong)
GS_VEC4(unsigned long long, ulonglong, 16)
GS_VEC1(double, double, 8) GS_VEC2(double, double, 16) GS_VEC3(double, double)
GS_VEC4(double, double, 16)

struct uint1 { unsigned int x; };
struct alignas(8) uint2 { unsigned int x, y; };
struct uint3 { unsigned int x, y, z; };
struct alignas(16) uint4 { unsigned int x, y, z, w; };
static inline uint1 make_uint1(unsigned x) { uint1 r; r.x = x; return r; }
static inline uint2 make_uint2(unsigned x, unsigned y) { uint2 r; r.x = x; r.y = y; return r; }
static inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) {
  uint3 r; r.x = x; r.y = y; r.z = z; return r; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  uint4 r; r.x = x; r.y = y; r.z = z; r.w = w; return r; }

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// -------------------------------------------------- execution model state
static thread_local uint3 threadIdx;
static thread_local uint3 blockIdx;
static thread_local dim3 blockDim;
static thread_local dim3 gridDim;
static thread_local void* gs_dyn_smem_ptr;
static const gs_rt_api* gs_rt = nullptr;
// whether this block runs in a cooperative launch (every block at once)
static thread_local bool gs_cooperative = false;
#define warpSize 32

static inline unsigned gs_linear_tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
static inline unsigned gs_lane() { return gs_linear_tid() & 31u; }

// ---------------------------------------------------------------- barriers
static inline int gs_block_sync(int op, int pred) {
  uint3 me = threadIdx;
  int r = gs_rt->block_sync(op, pred);
  threadIdx = me;
  return r;
}
static inline void __syncthreads() { gs_block_sync(GS_OP_NONE, 0); }
static inline int __syncthreads_count(int p) { return gs_block_sync(GS_OP_COUNT, p != 0); }
static inline int __syncthreads_and(int p) { return gs_block_sync(GS_OP_AND, p != 0); }
static inline int __syncthreads_or(int p) { return gs_block_sync(GS_OP_OR, p != 0); }
static inline int gs_warp_sync(int op, unsigned mask, const void* val, int src,
                               int pred, void* res) {
  uint3 me = threadIdx;
  int r = gs_rt->warp_sync(op, mask, val, src, pred, res);
  threadIdx = me;
  return r;
}
// let the block's other threads run (a thread waiting on them without a barrier)
static inline void gs_yield() {
  uint3 me = threadIdx;
  gs_rt->yield();
  threadIdx = me;
}
static inline void __syncwarp(unsigned mask = 0xffffffffu) {
  gs_warp_sync(GS_OP_NONE, mask, nullptr, 0, 0, nullptr);
}
static inline unsigned __ballot_sync(unsigned mask, int p) {
  return (unsigned)gs_warp_sync(GS_OP_BALLOT, mask, nullptr, 0, p != 0, nullptr);
}
static inline int __any_sync(unsigned mask, int p) {
  return gs_warp_sync(GS_OP_ANY, mask, nullptr, 0, p != 0, nullptr);
}
static inline int __all_sync(unsigned mask, int p) {
  return gs_warp_sync(GS_OP_ALL, mask, nullptr, 0, p != 0, nullptr);
}
static inline unsigned __ballot(int p) { return __ballot_sync(0xffffffffu, p); }
static inline int __any(int p) { return __any_sync(0xffffffffu, p); }
static inline int __all(int p) { return __all_sync(0xffffffffu, p); }
// the warp's lanes not yet exited (the emulator's own collectives)
static inline unsigned gs_live_mask() { return gs_rt->active_mask(); }
// the lanes executing together, as a GPU's: those of the warp that reach this call
// together (a branch's lanes; the runtime's GS_OP_ACTIVE). A macro, so that each
// place it is written is its own site (the two branches of an if are two groups)
static inline unsigned gs_activemask_at(unsigned site) {
  return (unsigned)gs_warp_sync(GS_OP_ACTIVE, site, nullptr, 0, 0, nullptr);
}
#define __activemask() gs_activemask_at(__COUNTER__ + 1u)
template <typename T>
static inline unsigned __match_any_sync(unsigned mask, T v) {
  unsigned char b[16] = {0};
  memcpy(b, &v, sizeof(T) < 8 ? sizeof(T) : 8);
  return (unsigned)gs_warp_sync(GS_OP_MATCH_ANY, mask, b, 0, 0, nullptr);
}
static inline unsigned gs_lanemask_lt() { return (1u << gs_lane()) - 1u; }
static inline unsigned gs_lanemask_le() { return (2u << gs_lane()) - 1u; }

template <typename T>
static inline T gs_shfl(unsigned mask, T var, int src) {
  static_assert(sizeof(T) <= 16, "shuffle of types larger than 16 bytes");
  unsigned char v[16] = {0}, r[16];
  memcpy(v, &var, sizeof(T));
  gs_warp_sync(GS_OP_SHFL, mask, v, src, 0, r);
  T out;
  memcpy((void*)&out, r, sizeof(T));
  return out;
}
template <typename T>
static inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32) {
  int lane = (int)gs_lane();
  int base = lane & ~(width - 1);
  return gs_shfl(mask, var, base + (srcLane & (width - 1)));
}
template <typename T>
static inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  int lane = (int)gs_lane();
  int base = lane & ~(width - 1);
  int src = lane - (int)delta;
  return gs_shfl(mask, var, src < base ? lane : src);
}
template <typename T>
static inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  int lane = (int)gs_lane();
  int base = lane & ~(width - 1);
  int src = lane + (int)delta;
  return gs_shfl(mask, var, src >= base + width ? lane : src);
}
template <typename T>
static inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32) {
  int lane = (int)gs_lane();
  int base = lane & ~(width - 1);
  int src = lane ^ laneMask;
  return gs_shfl(mask, var, src >= base + width ? lane : src);
}
template <typename T> static inline T __shfl(T v, int s, int w = 32) { return __shfl_sync(0xffffffffu, v, s, w); }
template <typename T> static inline T __shfl_up(T v, unsigned d, int w = 32) { return __shfl_up_sync(0xffffffffu, v, d, w); }
template <typename T> static inline T __shfl_down(T v, unsigned d, int w = 32) { return __shfl_down_sync(0xffffffffu, v, d, w); }
template <typename T> static inline T __shfl_xor(T v, int m, int w = 32) { return __shfl_xor_sync(0xffffffffu, v, m, w); }
// __reduce_*_sync (sm_80): the lanes named in `mask` (that the warp has) reduce; a
// whole warp by a butterfly, another mask by gathering each named lane's value
template <typename T, typename Op>
static inline T gs_reduce_sync(unsigned mask, T v, Op op) {
  unsigned m = mask & gs_live_mask();
  if (m == 0xffffffffu) {
    for (int o = 16; o > 0; o >>= 1) v = op(v, gs_shfl(mask, v, (int)gs_lane() ^ o));
    return v;
  }
  // (32 exchanges whatever the mask, so that lanes reducing over different masks at once
  // leave together: the runtime does not keep a warp's different operations apart)
  T r = v;
  bool first = true;
  for (int j = 0; j < 32; ++j) {
    bool member = (m >> j) & 1u;
    T x = gs_shfl(mask, v, member ? j : (int)gs_lane());
    if (!member) continue;
    r = first ? x : op(r, x);
    first = false;
  }
  return r;
}
#define GS_REDUCE_SYNC(name, T, expr)                                             \
  static inline T name(unsigned mask, T v) {                                      \
    return gs_reduce_sync(mask, v, [](T a, T b) -> T { return (expr); }); }
GS_REDUCE_SYNC(__reduce_add_sync, int, (int)((unsigned)a + (unsigned)b))
GS_REDUCE_SYNC(__reduce_add_sync, unsigned, a + b)
GS_REDUCE_SYNC(__reduce_min_sync, int, a < b ? a : b)
GS_REDUCE_SYNC(__reduce_min_sync, unsigned, a < b ? a : b)
GS_REDUCE_SYNC(__reduce_max_sync, int, a > b ? a : b)
GS_REDUCE_SYNC(__reduce_max_sync, unsigned, a > b ? a : b)
GS_REDUCE_SYNC(__reduce_and_sync, unsigned, a & b)
GS_REDUCE_SYNC(__reduce_or_sync, unsigned, a | b)
GS_REDUCE_SYNC(__reduce_xor_sync, unsigned, a ^ b)
#undef GS_REDUCE_SYNC
// __match_all_sync: `mask` if every lane named in it has the same value (*pred = 1),
// else 0 (*pred = 0)
template <typename T>
static inline unsigned __match_all_sync(unsigned mask, T v, int* pred) {
  unsigned live = mask & gs_live_mask();  // (before the exchange: lanes may exit after it)
  unsigned m = __match_any_sync(mask, v);
  bool all = m == live;
  *pred = all;
  return all ? mask : 0u;
}
static inline unsigned gs_lanemask_eq() { return 1u << gs_lane(); }
static inline unsigned gs_lanemask_ge() { return ~0u << gs_lane(); }
static inline unsigned gs_lanemask_gt() { return gs_lane() == 31 ? 0u : (~0u << (gs_lane() + 1)); }

static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
// a thread that sleeps waits on others (a spin lock's back-off): they run meanwhile
static inline void __nanosleep(unsigned) { gs_yield(); }
static inline void __trap() { raise(SIGTRAP); abort(); }  // (the runtime: cudaErrorLaunchFailure)
static inline void __brkpt() {}
static inline long long clock64() { return (long long)__builtin_ia32_rdtsc(); }
static inline clock_t gs_clock() { return (clock_t)__builtin_ia32_rdtsc(); }
// CUDA's device clock() (a clock_t, 64-bit on Linux) – not the C library's CPU time
#define clock() gs_clock()
static inline unsigned long long __globaltimer() { return (unsigned long long)__builtin_ia32_rdtsc(); }

// ------------------------------------------------------------------ printf
static inline int gs_printf(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n < 0) return n;
  if ((size_t)n < sizeof(buf)) {
    gs_rt->printf_append(buf, (size_t)n);
  } else {
    char* big = (char*)malloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    gs_rt->printf_append(big, (size_t)n);
    free(big);
  }
  return n;
}
#define printf gs_printf

// --------------------------------------------------------------- bit casts
template <typename To, typename From>
static inline To gs_bitcast(From f) {
  static_assert(sizeof(To) == sizeof(From), "size mismatch");
  To t;
  memcpy(&t, &f, sizeof(To));
  return t;
}
static inline int __float_as_int(float x) { return gs_bitcast<int>(x); }
static inline unsigned __float_as_uint(float x) { return gs_bitcast<unsigned>(x); }
static inline float __int_as_float(int x) { return gs_bitcast<float>(x); }
static inline float __uint_as_float(unsigned x) { return gs_bitcast<float>(x); }
static inline long long __double_as_longlong(double x) { return gs_bitcast<long long>(x); }
static inline double __longlong_as_double(long long x) { return gs_bitcast<double>(x); }
static inline int __double2hiint(double x) { return (int)(gs_bitcast<unsigned long long>(x) >> 32); }
static inline int __double2loint(double x) { return (int)(gs_bitcast<unsigned long long>(x) & 0xffffffffu); }
static inline double __hiloint2double(int hi, int lo) {
  return gs_bitcast<double>(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo);
}

// --------------------------------------------------------- integer intrinsics
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
  return __builtin_bswap32(x);
}
static inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  unsigned long long v = ((unsigned long long)y << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned sel = (s >> (4 * i)) & 7u;
    r |= (unsigned)((v >> (8 * sel)) & 0xffu) << (8 * i);
  }
  return r;
}
// (signed 24-bit operands; the low 32 bits of their 48-bit product, without C++'s
// signed-overflow UB)
static inline int __mul24(int a, int b) {
  return (int)(unsigned)((long long)((int)((unsigned)a << 8) >> 8) *
                         (long long)((int)((unsigned)b << 8) >> 8)); }
static inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
static inline unsigned __sad(int x, int y, unsigned z) {
  return (x > y ? (unsigned)x - (unsigned)y : (unsigned)y - (unsigned)x) + z; }
static inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
static inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
static inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
static inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
static inline unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo; return (unsigned)((v << (s & 31)) >> 32); }
static inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo; s = s > 32 ? 32 : s; return (unsigned)((v << s) >> 32); }
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo; return (unsigned)(v >> (s & 31)); }
static inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  unsigned long long v = ((unsigned long long)hi << 32) | lo; s = s > 32 ? 32 : s; return (unsigned)(v >> s); }

// dot products of packed bytes / halfwords (sm_61 __dp4a, __dp2a_lo/hi), wrapping
// modulo 2^32 as the hardware does
static inline unsigned gs_dp(unsigned a, unsigned b, unsigned c, bool sgn, int wa,
                             int na, int bfirst) {
  unsigned long long acc = c;
  for (int i = 0; i < na; ++i) {
    unsigned ua = (a >> (wa * i)) & (wa == 8 ? 0xffu : 0xffffu);
    unsigned ub = (b >> (8 * (bfirst + i))) & 0xffu;
    long long x = sgn ? (wa == 8 ? (long long)(signed char)ua : (long long)(short)ua) : ua;
    long long y = sgn ? (long long)(signed char)ub : (long long)ub;
    acc += (unsigned long long)(x * y);
  }
  return (unsigned)acc;
}
static inline int __dp4a(int a, int b, int c) { return (int)gs_dp(a, b, c, true, 8, 4, 0); }
static inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) { return gs_dp(a, b, c, false, 8, 4, 0); }
static inline int __dp2a_lo(int a, int b, int c) { return (int)gs_dp(a, b, c, true, 16, 2, 0); }
static inline unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c) { return gs_dp(a, b, c, false, 16, 2, 0); }
static inline int __dp2a_hi(int a, int b, int c) { return (int)gs_dp(a, b, c, true, 16, 2, 2); }
static inline unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c) { return gs_dp(a, b, c, false, 16, 2, 2); }

// SIMD video intrinsics (__vadd4, __vcmpgtu2, __vsads4, ...): W-bit lanes (8: the
// *4 forms, 16: the *2 forms); `f` gets each lane zero- (u) and sign-extended (s)
template <int GsW, typename GsFn>
static inline unsigned gs_vop(unsigned a, unsigned b, GsFn f) {
  const unsigned m = (1u << GsW) - 1u;
  const long long smin = -(1ll << (GsW - 1)), smax = (1ll << (GsW - 1)) - 1, umax = m;
  unsigned r = 0;
  for (int i = 0; i < 32 / GsW; ++i) {
    unsigned ua = (a >> (GsW * i)) & m, ub = (b >> (GsW * i)) & m;
    long long sa = (long long)ua - ((ua >> (GsW - 1)) ? (1ll << GsW) : 0);
    long long sb = (long long)ub - ((ub >> (GsW - 1)) ? (1ll << GsW) : 0);
    r |= ((unsigned)f((long long)ua, (long long)ub, sa, sb, smin, smax, umax) & m) << (GsW * i);
  }
  return r;
}
template <int GsW, typename GsFn>
static inline unsigned gs_vsum(unsigned a, unsigned b, GsFn f) {  // the __vsad* sums
  const unsigned m = (1u << GsW) - 1u;
  unsigned r = 0;
  for (int i = 0; i < 32 / GsW; ++i) {
    unsigned ua = (a >> (GsW * i)) & m, ub = (b >> (GsW * i)) & m;
    long long sa = (long long)ua - ((ua >> (GsW - 1)) ? (1ll << GsW) : 0);
    long long sb = (long long)ub - ((ub >> (GsW - 1)) ? (1ll << GsW) : 0);
    r += (unsigned)f((long long)ua, (long long)ub, sa, sb);
  }
  return r;
}
static inline long long gs_clampll(long long v, long long lo, long long hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}
// signed rounded average: half away from zero (CUDA's vavrg)
static inline long long gs_avgs(long long s) { return s < 0 ? (s >> 1) : ((s + 1) >> 1); }
#define GS_V2OP(name, W, expr)                                                     \
  static inline unsigned name(unsigned a, unsigned b) {                            \
    return gs_vop<W>(a, b, [](long long ua, long long ub, long long sa, long long sb, \
                              long long smin, long long smax, long long umax) -> long long { \
      (void)ua; (void)ub; (void)sa; (void)sb; (void)smin; (void)smax; (void)umax;  \
      return (expr); }); }
#define GS_V1OP(name, W, expr)                                                     \
  static inline unsigned name(unsigned a) {                                        \
    return gs_vop<W>(a, 0u, [](long long ua, long long ub, long long sa, long long sb, \
                               long long smin, long long smax, long long umax) -> long long { \
      (void)ua; (void)ub; (void)sa; (void)sb; (void)smin; (void)smax; (void)umax;  \
      return (expr); }); }
#define GS_V(base, expr) GS_V2OP(base##2, 16, expr) GS_V2OP(base##4, 8, expr)
#define GS_VU(base, expr) GS_V1OP(base##2, 16, expr) GS_V1OP(base##4, 8, expr)
GS_VU(__vabs, sa < 0 ? -sa : sa)
GS_VU(__vabsss, gs_clampll(sa < 0 ? -sa : sa, smin, smax))
GS_VU(__vneg, -sa)
GS_VU(__vnegss, gs_clampll(-sa, smin, smax))
GS_V(__vabsdiffs, sa > sb ? sa - sb : sb - sa)
GS_V(__vabsdiffu, ua > ub ? ua - ub : ub - ua)
GS_V(__vadd, ua + ub)
GS_V(__vaddss, gs_clampll(sa + sb, smin, smax))
GS_V(__vaddus, gs_clampll(ua + ub, 0, umax))
GS_V(__vsub, ua - ub)
GS_V(__vsubss, gs_clampll(sa - sb, smin, smax))
GS_V(__vsubus, gs_clampll(ua - ub, 0, umax))
GS_V(__vavgs, gs_avgs(sa + sb))
GS_V(__vavgu, (ua + ub + 1) >> 1)
GS_V(__vhaddu, (ua + ub) >> 1)
GS_V(__vmaxs, sa > sb ? sa : sb)
GS_V(__vmaxu, ua > ub ? ua : ub)
GS_V(__vmins, sa < sb ? sa : sb)
GS_V(__vminu, ua < ub ? ua : ub)
GS_V(__vcmpeq, ua == ub ? -1 : 0)
GS_V(__vcmpne, ua != ub ? -1 : 0)
GS_V(__vcmpges, sa >= sb ? -1 : 0)
GS_V(__vcmpgeu, ua >= ub ? -1 : 0)
GS_V(__vcmpgts, sa > sb ? -1 : 0)
GS_V(__vcmpgtu, ua > ub ? -1 : 0)
GS_V(__vcmples, sa <= sb ? -1 : 0)
GS_V(__vcmpleu, ua <= ub ? -1 : 0)
GS_V(__vcmplts, sa < sb ? -1 : 0)
GS_V(__vcmpltu, ua < ub ? -1 : 0)
GS_V(__vseteq, ua == ub)
GS_V(__vsetne, ua != ub)
GS_V(__vsetges, sa >= sb)
GS_V(__vsetgeu, ua >= ub)
GS_V(__vsetgts, sa > sb)
GS_V(__vsetgtu, ua > ub)
GS_V(__vsetles, sa <= sb)
GS_V(__vsetleu, ua <= ub)
GS_V(__vsetlts, sa < sb)
GS_V(__vsetltu, ua < ub)
#undef GS_V
#undef GS_VU
#undef GS_V1OP
#undef GS_V2OP
static inline unsigned __vsads2(unsigned a, unsigned b) {
  return gs_vsum<16>(a, b, [](long long, long long, long long sa, long long sb) { return sa > sb ? sa - sb : sb - sa; }); }
static inline unsigned __vsads4(unsigned a, unsigned b) {
  return gs_vsum<8>(a, b, [](long long, long long, long long sa, long long sb) { return sa > sb ? sa - sb : sb - sa; }); }
static inline unsigned __vsadu2(unsigned a, unsigned b) {
  return gs_vsum<16>(a, b, [](long long ua, long long ub, long long, long long) { return ua > ub ? ua - ub : ub - ua; }); }
static inline unsigned __vsadu4(unsigned a, unsigned b) {
  return gs_vsum<8>(a, b, [](long long ua, long long ub, long long, long long) { return ua > ub ? ua - ub : ub - ua; }); }

// CUDA 12's DPX functions (sm_90 instructions, emulated by CUDA on older devices)
static inline int __vimax_s32(int a, int b) { return a > b ? a : b; }
static inline int __vimin_s32(int a, int b) { return a < b ? a : b; }
static inline unsigned __vimax_u32(unsigned a, unsigned b) { return a > b ? a : b; }
static inline unsigned __vimin_u32(unsigned a, unsigned b) { return a < b ? a : b; }
static inline int __vimax_s32_relu(int a, int b) { int m = a > b ? a : b; return m < 0 ? 0 : m; }
static inline int __vimin_s32_relu(int a, int b) { int m = a < b ? a : b; return m < 0 ? 0 : m; }
static inline int __vimax3_s32(int a, int b, int c) { return __vimax_s32(__vimax_s32(a, b), c); }
static inline int __vimin3_s32(int a, int b, int c) { return __vimin_s32(__vimin_s32(a, b), c); }
static inline unsigned __vimax3_u32(unsigned a, unsigned b, unsigned c) { return __vimax_u32(__vimax_u32(a, b), c); }
static inline unsigned __vimin3_u32(unsigned a, unsigned b, unsigned c) { return __vimin_u32(__vimin_u32(a, b), c); }
static inline int __vimax3_s32_relu(int a, int b, int c) { return __vimax_s32_relu(__vimax_s32(a, b), c); }
static inline int __vimin3_s32_relu(int a, int b, int c) { return __vimin_s32_relu(__vimin_s32(a, b), c); }
static inline int __viaddmax_s32(int a, int b, int c) { return __vimax_s32((int)((unsigned)a + (unsigned)b), c); }
static inline int __viaddmin_s32(int a, int b, int c) { return __vimin_s32((int)((unsigned)a + (unsigned)b), c); }
static inline unsigned __viaddmax_u32(unsigned a, unsigned b, unsigned c) { return __vimax_u32(a + b, c); }
static inline unsigned __viaddmin_u32(unsigned a, unsigned b, unsigned c) { return __vimin_u32(a + b, c); }
static inline int __viaddmax_s32_relu(int a, int b, int c) { return __vimax_s32_relu((int)((unsigned)a + (unsigned)b), c); }
static inline int __viaddmin_s32_relu(int a, int b, int c) { return __vimin_s32_relu((int)((unsigned)a + (unsigned)b), c); }
static inline int __vibmax_s32(int a, int b, bool* pred) { *pred = a >= b; return a >= b ? a : b; }
static inline int __vibmin_s32(int a, int b, bool* pred) { *pred = a <= b; return a <= b ? a : b; }
static inline unsigned __vibmax_u32(unsigned a, unsigned b, bool* pred) { *pred = a >= b; return a >= b ? a : b; }
static inline unsigned __vibmin_u32(unsigned a, unsigned b, bool* pred) { *pred = a <= b; return a <= b ? a : b; }

// ------------------------------------------------------------------ min/max
template <typename GsA, typename GsB,
          typename = typename std::enable_if<std::is_arithmetic<GsA>::value &&
                                             std::is_arithmetic<GsB>::value>::type>
static inline typename std::common_type<GsA, GsB>::type min(GsA a, GsB b) {
  typedef typename std::common_type<GsA, GsB>::type GsR;
  if (std::is_floating_point<GsR>::value) return (GsR)fmin((GsR)a, (GsR)b);
  return (GsR)b < (GsR)a ? (GsR)b : (GsR)a;
}
template <typename GsA, typename GsB,
          typename = typename std::enable_if<std::is_arithmetic<GsA>::value &&
                                             std::is_arithmetic<GsB>::value>::type>
static inline typename std::common_type<GsA, GsB>::type max(GsA a, GsB b) {
  typedef typename std::common_type<GsA, GsB>::type GsR;
  if (std::is_floating_point<GsR>::value) return (GsR)fmax((GsR)a, (GsR)b);
  return (GsR)a < (GsR)b ? (GsR)b : (GsR)a;
}
static inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ------------------------------------------------------------------- math
// (the flushing float functions: see GS_FTZ_RENAME at the top)
static inline float gs_ftz(float x) {
  return __builtin_fabsf(x) < FLT_MIN ? __builtin_copysignf(0.0f, x) : x;
}
#define GS_FTZ_DEFINE1(n) extern "C" float gs_libm_##n(float) noexcept __asm__(#n); \
  extern "C" float n(float x) noexcept { return gs_ftz(gs_libm_##n(gs_ftz(x))); }
#define GS_FTZ_DEFINE2(n) extern "C" float gs_libm_##n(float, float) noexcept __asm__(#n); \
  extern "C" float n(float x, float y) noexcept { \
    return gs_ftz(gs_libm_##n(gs_ftz(x), gs_ftz(y))); }
GS_FTZ_UNARY(GS_FTZ_DEFINE1)
GS_FTZ_BINARY(GS_FTZ_DEFINE2)
extern "C" void gs_libm_sincosf(float, float*, float*) noexcept __asm__("sincosf");
extern "C" void sincosf(float x, float* s, float* c) noexcept {
  gs_libm_sincosf(gs_ftz(x), s, c);
  *s = gs_ftz(*s);
  *c = gs_ftz(*c);
}
// (sincos, sincosf, exp10 and exp10f come from glibc's <math.h>)
// CUDA's fast intrinsics: glibc's <math.h> declares these names (C linkage) but its
// libm exports none of them, so they are defined here (inline: no symbol is left for
// the loader to find), as the accurate functions – within CUDA's bounds for them.
extern "C" {
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline void __sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
}
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return (double)(1.0L / sqrtl((long double)x)); }
static inline float rcbrtf(float x) { return (float)(1.0 / cbrt((double)x)); }
static inline double rcbrt(double x) { return (double)(1.0L / cbrtl((long double)x)); }
// __fdividef(x, y): x times an approximate 1/y, which is 0 for 2^126 < |y| < 2^128
// (so the quotient is 0, or NaN for an infinite x), as CUDA documents
static inline float __fdividef(float a, float b) {
  float ab = fabsf(b);
  if (ab > 8.507059173023462e+37f && ab <= FLT_MAX) return a * copysignf(0.0f, b);
  return a / b;
}
static inline float fdividef(float a, float b) { return a / b; }
static inline double fdivide(double a, double b) { return a / b; }

// ---------------------------------------------- IEEE rounding-mode intrinsics
// CUDA's _rn/_rz/_ru/_rd arithmetic and conversions: the operation runs with the
// host's rounding mode set to the one named (volatile operands and result keep the
// compiler from folding it or moving it out of the fesetround pair); the result is
// the correctly rounded one, as CUDA specifies.
enum { GS_RN = 0, GS_RZ = 1, GS_RU = 2, GS_RD = 3 };
static inline int gs_fe_mode(int m) {
  return m == GS_RZ ? FE_TOWARDZERO : m == GS_RU ? FE_UPWARD : m == GS_RD ? FE_DOWNWARD
                                                                         : FE_TONEAREST;
}
enum { GS_FADD, GS_FSUB, GS_FMUL, GS_FDIV, GS_FFMA, GS_FSQRT, GS_FRCP };
template <typename T>
static __attribute__((noinline)) T gs_round_op(int op, int mode, T a, T b, T c) {
  volatile T va = a, vb = b, vc = c;
  volatile T vr;
  int old = fegetround();
  fesetround(gs_fe_mode(mode));
  switch (op) {
    case GS_FADD: vr = va + vb; break;
    case GS_FSUB: vr = va - vb; break;
    case GS_FMUL: vr = va * vb; break;
    case GS_FDIV: vr = va / vb; break;
    case GS_FFMA: vr = std::fma((T)va, (T)vb, (T)vc); break;
    case GS_FSQRT: vr = std::sqrt((T)va); break;
    default: vr = (T)1 / va; break;
  }
  fesetround(old);
  return vr;
}
// a conversion to To (integer or floating) in a rounding mode
template <typename To, typename From>
static __attribute__((noinline)) To gs_round_cvt(int mode, From x) {
  volatile From vx = x;
  volatile To vr;
  int old = fegetround();
  fesetround(gs_fe_mode(mode));
  vr = (To)vx;
  fesetround(old);
  return vr;
}
#define GS_ROUNDED(sfx, mode)                                                            \
  static inline float __fadd_##sfx(float a, float b) { return gs_round_op<float>(GS_FADD, mode, a, b, 0.f); } \
  static inline float __fsub_##sfx(float a, float b) { return gs_round_op<float>(GS_FSUB, mode, a, b, 0.f); } \
  static inline float __fmul_##sfx(float a, float b) { return gs_round_op<float>(GS_FMUL, mode, a, b, 0.f); } \
  static inline float __fdiv_##sfx(float a, float b) { return gs_round_op<float>(GS_FDIV, mode, a, b, 0.f); } \
  static inline float __fmaf_##sfx(float a, float b, float c) { return gs_round_op<float>(GS_FFMA, mode, a, b, c); } \
  static inline float __frcp_##sfx(float a) { return gs_round_op<float>(GS_FRCP, mode, a, 0.f, 0.f); } \
  static inline float __fsqrt_##sfx(float a) { return gs_round_op<float>(GS_FSQRT, mode, a, 0.f, 0.f); } \
  static inline double __dadd_##sfx(double a, double b) { return gs_round_op<double>(GS_FADD, mode, a, b, 0.); } \
  static inline double __dsub_##sfx(double a, double b) { return gs_round_op<double>(GS_FSUB, mode, a, b, 0.); } \
  static inline double __dmul_##sfx(double a, double b) { return gs_round_op<double>(GS_FMUL, mode, a, b, 0.); } \
  static inline double __ddiv_##sfx(double a, double b) { return gs_round_op<double>(GS_FDIV, mode, a, b, 0.); } \
  static inline double __fma_##sfx(double a, double b, double c) { return gs_round_op<double>(GS_FFMA, mode, a, b, c); } \
  static inline double __drcp_##sfx(double a) { return gs_round_op<double>(GS_FRCP, mode, a, 0., 0.); } \
  static inline double __dsqrt_##sfx(double a) { return gs_round_op<double>(GS_FSQRT, mode, a, 0., 0.); } \
  static inline float __int2float_##sfx(int x) { return gs_round_cvt<float>(mode, x); }      \
  static inline float __uint2float_##sfx(unsigned x) { return gs_round_cvt<float>(mode, x); } \
  static inline float __ll2float_##sfx(long long x) { return gs_round_cvt<float>(mode, x); } \
  static inline float __ull2float_##sfx(unsigned long long x) { return gs_round_cvt<float>(mode, x); } \
  static inline double __ll2double_##sfx(long long x) { return gs_round_cvt<double>(mode, x); } \
  static inline double __ull2double_##sfx(unsigned long long x) { return gs_round_cvt<double>(mode, x); } \
  static inline float __double2float_##sfx(double x) { return gs_round_cvt<float>(mode, x); }
GS_ROUNDED(rz, GS_RZ)
GS_ROUNDED(ru, GS_RU)
GS_ROUNDED(rd, GS_RD)
#undef GS_ROUNDED
// round to nearest even: the host's default mode
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline double __drcp_rn(double a) { return 1.0 / a; }
static inline double __dsqrt_rn(double a) { return sqrt(a); }
static inline float __int2float_rn(int x) { return (float)x; }
static inline float __uint2float_rn(unsigned x) { return (float)x; }
static inline float __ll2float_rn(long long x) { return (float)x; }
static inline float __ull2float_rn(unsigned long long x) { return (float)x; }
static inline double __ll2double_rn(long long x) { return (double)x; }
static inline double __ull2double_rn(unsigned long long x) { return (double)x; }
static inline float __double2float_rn(double x) { return (float)x; }
static inline double __int2double_rn(int x) { return (double)x; }
static inline double __uint2double_rn(unsigned x) { return (double)x; }
// __frsqrt_rn: 1/sqrt(x) correctly rounded. The double estimate is within an ulp;
// the float nearest the exact value is chosen by comparing it with the midpoints m
// between neighbouring floats exactly (m < 1/sqrt(x) <=> m*m*x < 1, in integers).
static inline int gs_sq_times_cmp1(double m, float x) {  // sign of m*m*x - 1
  int em, ex;
  double fm = frexp(m, &em);
  float fx = frexpf(x, &ex);
  unsigned long long gs_m = (unsigned long long)ldexp(fm, 26);  // m = gs_m * 2^(em-26)
  unsigned long long gs_x = (unsigned long long)ldexpf(fx, 24);  // x = gs_x * 2^(ex-24)
  unsigned __int128 p = (unsigned __int128)gs_m * gs_m * gs_x;  // < 2^(52+24)
  int k = -(2 * (em - 26) + (ex - 24));                 // compare p with 2^k
  if (k < 0) return 1;
  if (k >= 127) return -1;
  unsigned __int128 one = (unsigned __int128)1 << k;
  return p < one ? -1 : (p > one ? 1 : 0);
}
static inline float __frsqrt_rn(float x) {
  if (!(x > 0.0f) || std::isinf(x)) return 1.0f / sqrtf(x);
  float r = (float)(1.0 / sqrt((double)x));
  for (int it = 0; it < 3; ++it) {
    float up = nextafterf(r, INFINITY), dn = nextafterf(r, 0.0f);
    if (gs_sq_times_cmp1(((double)r + up) * 0.5, x) < 0) r = up;
    else if (gs_sq_times_cmp1(((double)r + dn) * 0.5, x) > 0) r = dn;
    else break;
  }
  return r;
}
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x != x ? 0.0f : x)); }
static inline float saturate(float x) { return __saturatef(x); }

// float/double -> integer: rounded as named, then saturated to the integer's range
// (PTX cvt.rni/rzi/rpi/rmi: out-of-range values clamp, no UB). NaN, as measured on an
// H200 (CUDA 13): 0 from float (half, bfloat16: through float) to 32 bits and fewer; the
// sign bit alone from double to 32 bits (INT_MIN, 2^31 unsigned) and from either to 64
// bits (LLONG_MIN, 2^63 unsigned)
template <typename GsInt, typename GsFlt>
static inline GsInt gs_f2i_nan() {
  if (sizeof(GsInt) < 4 || (sizeof(GsInt) == 4 && sizeof(GsFlt) < 8)) return 0;
  if (std::numeric_limits<GsInt>::is_signed) return std::numeric_limits<GsInt>::min();
  return (GsInt)(std::numeric_limits<GsInt>::max() / 2 + 1);
}
template <typename GsInt, typename GsFlt>
static inline GsInt gs_f2i_sat(GsFlt r) {  // r: already an integral value
  if (r != r) return gs_f2i_nan<GsInt, GsFlt>();
  if (r <= (GsFlt)std::numeric_limits<GsInt>::min()) return std::numeric_limits<GsInt>::min();
  if (r >= (GsFlt)std::numeric_limits<GsInt>::max()) return std::numeric_limits<GsInt>::max();
  return (GsInt)r;
}
#define GS_F2I(name, I, F)                                                         \
  static inline I name##_rn(F x) { return gs_f2i_sat<I, F>(std::nearbyint(x)); }   \
  static inline I name##_rz(F x) { return gs_f2i_sat<I, F>(std::trunc(x)); }       \
  static inline I name##_ru(F x) { return gs_f2i_sat<I, F>(std::ceil(x)); }        \
  static inline I name##_rd(F x) { return gs_f2i_sat<I, F>(std::floor(x)); }
GS_F2I(__float2int, int, float)
GS_F2I(__float2uint, unsigned, float)
GS_F2I(__float2ll, long long, float)
GS_F2I(__float2ull, unsigned long long, float)
GS_F2I(__double2int, int, double)
GS_F2I(__double2uint, unsigned, double)
GS_F2I(__double2ll, long long, double)
GS_F2I(__double2ull, unsigned long long, double)
#undef GS_F2I

// sinpi/cospi: the argument reduced exactly (remainder by 2), then sin of pi * r in
// long double, so that integers and halves give exact zeros and large arguments stay
// accurate
static inline long double gs_sinpi_l(long double x) {
  long double r = remainderl(x, 2.0L);  // exact, in [-1, 1]
  if (r > 0.5L) r = 1.0L - r;
  else if (r < -0.5L) r = -1.0L - r;
  return sinl(r * 3.141592653589793238462643383279502884L);
}
static inline long double gs_cospi_l(long double x) {
  long double r = fabsl(remainderl(x, 2.0L));  // [0, 1]
  return gs_sinpi_l(0.5L - r);
}
static inline double sinpi(double x) { return (double)gs_sinpi_l(x); }
static inline float sinpif(float x) { return (float)gs_sinpi_l(x); }
static inline double cospi(double x) { return (double)gs_cospi_l(x); }
static inline float cospif(float x) { return (float)gs_cospi_l(x); }
static inline void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }
static inline void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
// Euclidean norms: the sum of squares in long double (no overflow or underflow for
// double arguments); an infinite coordinate gives +inf even beside a NaN (as hypot)
template <typename F>
static inline long double gs_norm_l(int n, const F* p) {
  long double s = 0.0L;
  bool inf = false;
  for (int i = 0; i < n; ++i) {
    if (std::isinf(p[i])) inf = true;
    s += (long double)p[i] * p[i];
  }
  return inf ? (long double)INFINITY : sqrtl(s);
}
static inline double norm(int dim, const double* p) { return (double)gs_norm_l(dim, p); }
static inline double rnorm(int dim, const double* p) { return (double)(1.0L / gs_norm_l(dim, p)); }
static inline float normf(int dim, const float* p) { return (float)gs_norm_l(dim, p); }
static inline float rnormf(int dim, const float* p) { return (float)(1.0L / gs_norm_l(dim, p)); }
static inline double norm3d(double a, double b, double c) { double p[3] = {a, b, c}; return norm(3, p); }
static inline float norm3df(float a, float b, float c) { float p[3] = {a, b, c}; return normf(3, p); }
static inline double rnorm3d(double a, double b, double c) { double p[3] = {a, b, c}; return rnorm(3, p); }
static inline float rnorm3df(float a, float b, float c) { float p[3] = {a, b, c}; return rnormf(3, p); }
static inline double norm4d(double a, double b, double c, double d) { double p[4] = {a, b, c, d}; return norm(4, p); }
static inline float norm4df(float a, float b, float c, float d) { float p[4] = {a, b, c, d}; return normf(4, p); }
static inline double rnorm4d(double a, double b, double c, double d) { double p[4] = {a, b, c, d}; return rnorm(4, p); }
static inline float rnorm4df(float a, float b, float c, float d) { float p[4] = {a, b, c, d}; return rnormf(4, p); }
static inline double rhypot(double a, double b) { double p[2] = {a, b}; return rnorm(2, p); }
static inline float rhypotf(float a, float b) { float p[2] = {a, b}; return rnormf(2, p); }
// normcdf: erfc in long double (the scaling of x by 1/sqrt(2) in double would be
// amplified ~x^2 times in the tail)
static inline double normcdf(double x) {
  return (double)(0.5L * erfcl(-(long double)x * 0.707106781186547524400844362104849039L));
}
static inline float normcdff(float x) { return (float)normcdf((double)x); }

// erfinv: Giles' single precision approximation refined with Newton steps.
static inline double erfinv(double y) {
  if (y <= -1.0) return y == -1.0 ? -HUGE_VAL : NAN;
  if (y >= 1.0) return y == 1.0 ? HUGE_VAL : NAN;
  if (y != y) return y;
  double w = -log((1.0 - y) * (1.0 + y)), x;
  if (w < 6.25) {
    w -= 3.125;
    x = -3.6444120640178196996e-21;
    x = -1.685059138182016589e-19 + x * w; x = 1.2858480715256400167e-18 + x * w;
    x = 1.115787767802518096e-17 + x * w; x = -1.333171662854620906e-16 + x * w;
    x = 2.0972767875968561637e-17 + x * w; x = 6.6376381343583238325e-15 + x * w;
    x = -4.0545662729752068639e-14 + x * w; x = -8.1519341976054721522e-14 + x * w;
    x = 2.6335093153082322977e-12 + x * w; x = -1.2975133253453532498e-11 + x * w;
    x = -5.4154120542946279317e-11 + x * w; x = 1.051212273321532285e-09 + x * w;
    x = -4.1126339803469836976e-09 + x * w; x = -2.9070369957882005086e-08 + x * w;
    x = 4.2347877827932403518e-07 + x * w; x = -1.3654692000834678645e-06 + x * w;
    x = -1.3882523362786468719e-05 + x * w; x = 0.0001867342080340571352 + x * w;
    x = -0.00074070253416626697512 + x * w; x = -0.0060336708714301490533 + x * w;
    x = 0.24015818242558961693 + x * w; x = 1.6536545626831027356 + x * w;
  } else if (w < 16.0) {
    w = sqrt(w) - 3.25;
    x = 2.2137376921775787049e-09;
    x = 9.0756561938885390979e-08 + x * w; x = -2.7517406297064545428e-07 + x * w;
    x = 1.8239629214389227755e-08 + x * w; x = 1.5027403968909827627e-06 + x * w;
    x = -4.013867526981545969e-06 + x * w; x = 2.9234449089955446044e-06 + x * w;
    x = 1.2475304481671778723e-05 + x * w; x = -4.7318229009055733981e-05 + x * w;
    x = 6.8284851459573175448e-05 + x * w; x = 2.4031110387097893999e-05 + x * w;
    x = -0.0003550375203628474796 + x * w; x = 0.00095328937973738049703 + x * w;
    x = -0.0016882755560235047313 + x * w; x = 0.0024914420961078508066 + x * w;
    x = -0.0037512085075692412107 + x * w; x = 0.005370914553590063617 + x * w;
    x = 1.0052589676941592334 + x * w; x = 3.0838856104922207635 + x * w;
  } else {
    w = sqrt(w) - 5.0;
    x = -2.7109920616438573243e-11;
    x = -2.5556418169965252055e-10 + x * w; x = 1.5076572693500548083e-09 + x * w;
    x = -3.7894654401267369937e-09 + x * w; x = 7.6157012080783393804e-09 + x * w;
    x = -1.4960026627149240478e-08 + x * w; x = 2.9147953450901080826e-08 + x * w;
    x = -6.7711997758452339498e-08 + x * w; x = 2.2900482228026654717e-07 + x * w;
    x = -9.9298272942317002539e-07 + x * w; x = 4.5260625972231537039e-06 + x * w;
    x = -1.9681778105531670567e-05 + x * w; x = 7.5995277030017761139e-05 + x * w;
    x = -0.00021503011930044477347 + x * w; x = -0.00013871931833623122026 + x * w;
    x = 1.0103004648645343977 + x * w; x = 4.8499064014085844221 + x * w;
  }
  x *= y;
  // two Newton steps on erf(x) - y
  for (int k = 0; k < 2; ++k) {
    double err = erf(x) - y;
    x -= err / (1.1283791670955126 * exp(-x * x));
  }
  return x;
}
static inline float erfinvf(float y) { return (float)erfinv((double)y); }
static inline double erfcinv(double y) {
  if (y <= 0.0) return y == 0.0 ? HUGE_VAL : NAN;
  if (y >= 2.0) return y == 2.0 ? -HUGE_VAL : NAN;
  if (y > 0.0625 && y < 1.9375) return erfinv(1.0 - y);
  // tails: Newton iterations on erfc(x) - y from the erfinv estimate
  double x = y < 1.0 ? erfinv(1.0 - y) : -erfinv(y - 1.0);
  if (!std::isfinite(x)) x = y < 1.0 ? sqrt(-log(y)) : -sqrt(-log(2.0 - y));
  for (int k = 0; k < 4; ++k) {
    double err = erfc(x) - y;
    x += err / (1.1283791670955126 * exp(-x * x));
  }
  return x;
}
static inline float erfcinvf(float y) { return (float)erfcinv((double)y); }
static inline double normcdfinv(double p) { return -M_SQRT2 * erfcinv(2.0 * p); }
static inline float normcdfinvf(float p) { return (float)normcdfinv((double)p); }
// erfcx(x) = exp(x^2) erfc(x): in long double with x^2 split exactly (hi + lo), so that
// exp does not amplify its rounding; for x >= 100 the asymptotic series
static inline double erfcx(double x) {
  if (x != x) return x;
  if (x < 100.0) {
    long double lx = x, hi = lx * lx, lo = fmal(lx, lx, -hi);
    return (double)(expl(hi) * (1.0L + lo) * erfcl(lx));
  }
  if (std::isinf(x)) return 0.0;
  long double lx = x, t = 1.0L / (2.0L * lx * lx), s = 1.0L, term = 1.0L;
  for (int k = 1; k <= 6; ++k) {
    term *= -(2.0L * k - 1.0L) * t;
    s += term;
  }
  return (double)(s / (lx * 1.772453850905516027298167483341145183L));
}
static inline float erfcxf(float x) { return (float)erfcx((double)x); }
// (libstdc++'s cyl_bessel_i throws – aborting the kernel – for x < 0 and for large x:
// I0 is even, I1 odd, and both overflow a double past x = 713.99)
static inline double cyl_bessel_i0(double x) {
  if (x != x) return x;
  return fabs(x) > 1000.0 ? HUGE_VAL : std::cyl_bessel_i(0.0, fabs(x)); }
static inline float cyl_bessel_i0f(float x) { return (float)cyl_bessel_i0((double)x); }
static inline double cyl_bessel_i1(double x) {
  if (x != x) return x;
  return copysign(fabs(x) > 1000.0 ? HUGE_VAL : std::cyl_bessel_i(1.0, fabs(x)), x); }
static inline float cyl_bessel_i1f(float x) { return (float)cyl_bessel_i1((double)x); }

// ------------------------------------------------------------------- half
// A double rounded to a binary floating format of MB fraction bits and EB exponent
// bits (IEEE half: 10/5, bfloat16: 7/8) in a rounding mode (GS_RN..GS_RD), straight
// from the double (no double rounding through float); NaN gives the canonical 0x7fff.
template <int GsMB, int GsEB>
static inline unsigned short gs_d2small_bits(double d, int mode) {
  const int bias = (1 << (GsEB - 1)) - 1, emin = 1 - bias;
  const unsigned inf = ((1u << GsEB) - 1u) << GsMB;
  unsigned long long x = gs_bitcast<unsigned long long>(d);
  unsigned sign = (unsigned)(x >> 63) << (GsMB + GsEB);
  int ex = (int)((x >> 52) & 0x7ffu);
  unsigned long long man = x & ((1ull << 52) - 1ull);
  if (ex == 0x7ff) return (unsigned short)(man ? 0x7fffu : (sign | inf));
  if (ex == 0 && man == 0) return (unsigned short)sign;
  unsigned long long h;
  bool gt_half, eq_half, inexact;
  int ev = ex - 1023;
  if (ex == 0 || ev < emin - GsMB - 2) {  // far below the smallest subnormal
    h = 0; gt_half = eq_half = false; inexact = true;
  } else {
    unsigned long long gs_m = man | (1ull << 52);
    int q = ev >= emin ? ev - GsMB : emin - GsMB;  // exponent of the result's ulp
    int shift = q - ev + 52;                   // >= 52 - GsMB
    if (ev > bias + 1) return (unsigned short)(sign | ((mode == GS_RZ || (mode == GS_RU && sign) || (mode == GS_RD && !sign)) ? inf - 1u : inf));
    h = gs_m >> shift;
    unsigned long long rem = gs_m & ((1ull << shift) - 1ull), half = 1ull << (shift - 1);
    gt_half = rem > half; eq_half = rem == half; inexact = rem != 0;
    if (ev >= emin) h += (unsigned long long)(ev - emin) << GsMB;
  }
  bool up;
  switch (mode) {
    case GS_RZ: up = false; break;
    case GS_RU: up = inexact && !sign; break;
    case GS_RD: up = inexact && sign; break;
    default: up = gt_half || (eq_half && (h & 1u)); break;
  }
  if (up) ++h;
  if (h >= inf) {
    bool to_max = mode == GS_RZ || (mode == GS_RU && sign) || (mode == GS_RD && !sign);
    h = to_max ? inf - 1u : inf;
  }
  return (unsigned short)(sign | (unsigned)h);
}
static inline unsigned short gs_double2half_bits(double d, int mode = GS_RN) {
  return gs_d2small_bits<10, 5>(d, mode);
}
static inline unsigned short gs_float2half_bits(float f) { return gs_double2half_bits(f); }
static inline float gs_half_bits2float(unsigned short h) {
  unsigned sign = ((unsigned)h & 0x8000u) << 16;
  unsigned ex = ((unsigned)h >> 10) & 0x1fu;
  unsigned man = (unsigned)h & 0x3ffu;
  unsigned x;
  if (ex == 0) {
    if (man == 0) {
      x = sign;
    } else {
      int e = -1;
      do { man <<= 1; ++e; } while (!(man & 0x400u));
      x = sign | ((unsigned)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (ex == 0x1fu) {
    x = sign | 0x7f800000u | (man << 13);
  } else {
    x = sign | ((ex - 15 + 127) << 23) | (man << 13);
  }
  return gs_bitcast<float>(x);
}

struct __half_raw { unsigned short x; };
struct alignas(4) __half2_raw { unsigned short x, y; };
// __half: IEEE binary16 storage, arithmetic in float rounded back to half (exact for
// + - * / sqrt: float has more than 2*11+2 bits, so the double rounding is innocuous)
class float16 {
 public:
  unsigned short data_;
  float16() = default;
  float16(float f) : data_(gs_float2half_bits(f)) {}
  float16(double f) : data_(gs_double2half_bits(f)) {}
  float16(int f) : data_(gs_double2half_bits((double)f)) {}
  float16(unsigned f) : data_(gs_double2half_bits((double)f)) {}
  float16(long f) : data_(gs_double2half_bits((double)f)) {}
  float16(unsigned long f) : data_(gs_double2half_bits((double)f)) {}
  float16(long long f) : data_(gs_double2half_bits((double)f)) {}
  float16(unsigned long long f) : data_(gs_double2half_bits((double)f)) {}
  float16(short f) : data_(gs_double2half_bits((double)f)) {}
  float16(unsigned short f) : data_(gs_double2half_bits((double)f)) {}
  float16(signed char f) : data_(gs_double2half_bits((double)f)) {}
  float16(unsigned char f) : data_(gs_double2half_bits((double)f)) {}
  float16(bool f) : data_(gs_double2half_bits((double)f)) {}
  float16(__half_raw r) : data_(r.x) {}
  operator float() const { return gs_half_bits2float(data_); }
  operator __half_raw() const { __half_raw r; r.x = data_; return r; }
  static float16 from_bits(unsigned short b) { float16 r; r.data_ = b; return r; }
  unsigned short to_bits() const { return data_; }
  float16& operator+=(float16 o) { *this = float16(float(*this) + float(o)); return *this; }
  float16& operator-=(float16 o) { *this = float16(float(*this) - float(o)); return *this; }
  float16& operator*=(float16 o) { *this = float16(float(*this) * float(o)); return *this; }
  float16& operator/=(float16 o) { *this = float16(float(*this) / float(o)); return *this; }
  float16& operator++() { return *this += float16(1.0f); }
  float16& operator--() { return *this -= float16(1.0f); }
  float16 operator++(int) { float16 o = *this; *this += float16(1.0f); return o; }
  float16 operator--(int) { float16 o = *this; *this -= float16(1.0f); return o; }
  float16 operator-() const { return from_bits(data_ ^ 0x8000u); }
  float16 operator+() const { return *this; }
};
static inline float16 operator+(float16 a, float16 b) { return float16(float(a) + float(b)); }
static inline float16 operator-(float16 a, float16 b) { return float16(float(a) - float(b)); }
static inline float16 operator*(float16 a, float16 b) { return float16(float(a) * float(b)); }
static inline float16 operator/(float16 a, float16 b) { return float16(float(a) / float(b)); }
static inline bool operator==(float16 a, float16 b) { return float(a) == float(b); }
static inline bool operator!=(float16 a, float16 b) { return float(a) != float(b); }
static inline bool operator<(float16 a, float16 b) { return float(a) < float(b); }
static inline bool operator>(float16 a, float16 b) { return float(a) > float(b); }
static inline bool operator<=(float16 a, float16 b) { return float(a) <= float(b); }
static inline bool operator>=(float16 a, float16 b) { return float(a) >= float(b); }
static inline bool isnan(float16 x) { return std::isnan(float(x)); }
static inline bool isinf(float16 x) { return std::isinf(float(x)); }
static inline bool isfinite(float16 x) { return std::isfinite(float(x)); }
static inline bool signbit(float16 x) { return (x.data_ & 0x8000u) != 0; }
typedef float16 __half;
typedef float16 half;
struct alignas(4) __half2 {
  __half x, y;
  __half2() = default;
  __half2(__half a, __half b) : x(a), y(b) {}
  __half2(__half2_raw r) : x(__half::from_bits(r.x)), y(__half::from_bits(r.y)) {}
  operator __half2_raw() const { __half2_raw r; r.x = x.data_; r.y = y.data_; return r; }
  __half2& operator+=(const __half2& o) { x += o.x; y += o.y; return *this; }
  __half2& operator-=(const __half2& o) { x -= o.x; y -= o.y; return *this; }
  __half2& operator*=(const __half2& o) { x *= o.x; y *= o.y; return *this; }
  __half2& operator/=(const __half2& o) { x /= o.x; y /= o.y; return *this; }
};
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;
typedef __half nv_half;
typedef __half2 nv_half2;
static inline __half2 operator+(__half2 a, __half2 b) { return __half2(a.x + b.x, a.y + b.y); }
static inline __half2 operator-(__half2 a, __half2 b) { return __half2(a.x - b.x, a.y - b.y); }
static inline __half2 operator*(__half2 a, __half2 b) { return __half2(a.x * b.x, a.y * b.y); }
static inline __half2 operator/(__half2 a, __half2 b) { return __half2(a.x / b.x, a.y / b.y); }
static inline __half2 operator-(__half2 a) { return __half2(-a.x, -a.y); }
static inline __half2 operator+(__half2 a) { return a; }
static inline __half2 make_half2(__half a, __half b) { return __half2(a, b); }

// conversions
static inline __half gs_h(double d, int mode) { return __half::from_bits(gs_double2half_bits(d, mode)); }
static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline __half __float2half_rz(float f) { return gs_h(f, GS_RZ); }
static inline __half __float2half_ru(float f) { return gs_h(f, GS_RU); }
static inline __half __float2half_rd(float f) { return gs_h(f, GS_RD); }
static inline __half __double2half(double f) { return __half(f); }
static inline float __half2float(__half h) { return float(h); }
// to an integer type I in each rounding mode, saturating (T: __half, __nv_bfloat16)
#define GS_LOWP_TO_INT(T, name, I)                                                       \
  static inline I name##_rn(T h) { return gs_f2i_sat<I, float>(nearbyintf(float(h))); } \
  static inline I name##_rz(T h) { return gs_f2i_sat<I, float>(truncf(float(h))); }     \
  static inline I name##_ru(T h) { return gs_f2i_sat<I, float>(ceilf(float(h))); }      \
  static inline I name##_rd(T h) { return gs_f2i_sat<I, float>(floorf(float(h))); }
#define GS_H2I(name, I) GS_LOWP_TO_INT(__half, name, I)
GS_H2I(__half2int, int)
GS_H2I(__half2uint, unsigned)
GS_H2I(__half2short, short)
GS_H2I(__half2ushort, unsigned short)
GS_H2I(__half2ll, long long)
GS_H2I(__half2ull, unsigned long long)
#undef GS_H2I
static inline signed char __half2char_rz(__half h) { return gs_f2i_sat<signed char, float>(truncf(float(h))); }
static inline unsigned char __half2uchar_rz(__half h) { return gs_f2i_sat<unsigned char, float>(truncf(float(h))); }
#define GS_I2H(name, I)                                                                 \
  static inline __half name##_rn(I i) { return gs_h((double)i, GS_RN); }                \
  static inline __half name##_rz(I i) { return gs_h((double)i, GS_RZ); }                \
  static inline __half name##_ru(I i) { return gs_h((double)i, GS_RU); }                \
  static inline __half name##_rd(I i) { return gs_h((double)i, GS_RD); }
GS_I2H(__int2half, int)
GS_I2H(__uint2half, unsigned)
GS_I2H(__short2half, short)
GS_I2H(__ushort2half, unsigned short)
GS_I2H(__ll2half, long long)
GS_I2H(__ull2half, unsigned long long)
#undef GS_I2H
static inline unsigned short __half_as_ushort(__half h) { return h.data_; }
static inline __half __ushort_as_half(unsigned short b) { return __half::from_bits(b); }
static inline short __half_as_short(__half h) { return (short)h.data_; }
static inline __half __short_as_half(short b) { return __half::from_bits((unsigned short)b); }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
static inline __half2 __float2half2_rn(float a) { return __floats2half2_rn(a, a); }
static inline __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }
static inline float2 __half22float2(__half2 h) { return make_float2(float(h.x), float(h.y)); }
static inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
static inline __half2 __half2half2(__half a) { return __half2(a, a); }
static inline float __low2float(__half2 h) { return float(h.x); }
static inline float __high2float(__half2 h) { return float(h.y); }
static inline __half __low2half(__half2 h) { return h.x; }
static inline __half __high2half(__half2 h) { return h.y; }
static inline __half2 __low2half2(__half2 h) { return __half2(h.x, h.x); }
static inline __half2 __high2half2(__half2 h) { return __half2(h.y, h.y); }
static inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
static inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
static inline __half2 __lowhigh2highlow(__half2 a) { return __half2(a.y, a.x); }

// arithmetic
static inline __half gs_hcanon() { return __half::from_bits(0x7fffu); }
static inline __half gs_hsat(__half a) {  // clamp to [0, 1], NaN to +0
  float f = float(a);
  return f != f || f <= 0.0f ? __half::from_bits(0) : (f > 1.0f ? __half(1.0f) : a);
}
static inline __half __hadd(__half a, __half b) { return a + b; }
static inline __half __hsub(__half a, __half b) { return a - b; }
static inline __half __hmul(__half a, __half b) { return a * b; }
static inline __half __hdiv(__half a, __half b) { return a / b; }
static inline __half __hadd_rn(__half a, __half b) { return a + b; }
static inline __half __hsub_rn(__half a, __half b) { return a - b; }
static inline __half __hmul_rn(__half a, __half b) { return a * b; }
static inline __half __hneg(__half a) { return -a; }
static inline __half __habs(__half a) { return __half::from_bits(a.data_ & 0x7fffu); }
// a*b+c rounded once to a narrower format: the double fma rounded to odd (toward zero,
// the last bit set if inexact) and then to the narrow format (round to odd is exact for
// a second rounding to fewer than 52 bits)
static __attribute__((noinline)) double gs_fma_round_odd(double a, double b, double c) {
  volatile double va = a, vb = b, vc = c, vr;
  fenv_t env;
  feholdexcept(&env);
  fesetround(FE_TOWARDZERO);
  vr = fma((double)va, (double)vb, (double)vc);
  bool inexact = fetestexcept(FE_INEXACT) != 0;
  fesetenv(&env);
  double r = vr;
  if (inexact && std::isfinite(r)) r = gs_bitcast<double>(gs_bitcast<unsigned long long>(r) | 1ull);
  return r;
}
static inline __half __hfma(__half a, __half b, __half c) {
  return __half(gs_fma_round_odd(float(a), float(b), float(c)));
}
static inline __half __hadd_sat(__half a, __half b) { return gs_hsat(a + b); }
static inline __half __hsub_sat(__half a, __half b) { return gs_hsat(a - b); }
static inline __half __hmul_sat(__half a, __half b) { return gs_hsat(a * b); }
static inline __half __hfma_sat(__half a, __half b, __half c) { return gs_hsat(__hfma(a, b, c)); }
static inline __half __hfma_relu(__half a, __half b, __half c) {
  __half r = __hfma(a, b, c);
  return isnan(r) ? gs_hcanon() : (float(r) < 0.0f ? __half::from_bits(0) : r);
}
static inline bool __hisnan(__half a) { return isnan(a); }
static inline int __hisinf(__half a) { return isinf(a) ? (signbit(a) ? -1 : 1) : 0; }
// max/min: a NaN operand gives the other one (two NaNs: the canonical NaN); +0 > -0
static inline __half __hmax(__half a, __half b) {
  if (isnan(a)) return isnan(b) ? gs_hcanon() : b;
  if (isnan(b)) return a;
  if (float(a) == float(b)) return signbit(a) ? b : a;
  return a > b ? a : b;
}
static inline __half __hmin(__half a, __half b) {
  if (isnan(a)) return isnan(b) ? gs_hcanon() : b;
  if (isnan(b)) return a;
  if (float(a) == float(b)) return signbit(a) ? a : b;
  return a < b ? a : b;
}
// --- what __half here and __nv_bfloat16 (cuda_bf16.h) share: for a type T, its NaN
// test and canonical NaN, the comparisons and the math functions (through float,
// correctly rounded there: within CUDA's bounds for these)
#define GS_LOWP_MATH1(T, name, expr) \
  static inline T name(T a) { float x = float(a); return T((float)(expr)); }
#define GS_LOWP_COMPARE_AND_MATH(T, ISNAN, CANON)                                        \
  static inline T __hmax_nan(T a, T b) { return ISNAN(a) || ISNAN(b) ? CANON() : __hmax(a, b); } \
  static inline T __hmin_nan(T a, T b) { return ISNAN(a) || ISNAN(b) ? CANON() : __hmin(a, b); } \
  static inline bool __hlt(T a, T b) { return a < b; }                                \
  static inline bool __hgt(T a, T b) { return a > b; }                                \
  static inline bool __hle(T a, T b) { return a <= b; }                               \
  static inline bool __hge(T a, T b) { return a >= b; }                               \
  static inline bool __heq(T a, T b) { return a == b; }                               \
  static inline bool __hne(T a, T b) { return !ISNAN(a) && !ISNAN(b) && a != b; }     \
  static inline bool __hltu(T a, T b) { return !(a >= b); }                           \
  static inline bool __hgtu(T a, T b) { return !(a <= b); }                           \
  static inline bool __hleu(T a, T b) { return !(a > b); }                            \
  static inline bool __hgeu(T a, T b) { return !(a < b); }                            \
  static inline bool __hequ(T a, T b) { return ISNAN(a) || ISNAN(b) || a == b; }      \
  static inline bool __hneu(T a, T b) { return a != b; }                              \
  GS_LOWP_MATH1(T, hsqrt, sqrtf(x))                                                   \
  GS_LOWP_MATH1(T, hrsqrt, 1.0 / sqrt((double)x))                                     \
  GS_LOWP_MATH1(T, hrcp, 1.0f / x)                                                    \
  GS_LOWP_MATH1(T, hexp, exp((double)x))                                              \
  GS_LOWP_MATH1(T, hexp2, exp2((double)x))                                            \
  GS_LOWP_MATH1(T, hexp10, pow(10.0, (double)x))                                      \
  GS_LOWP_MATH1(T, hlog, log((double)x))                                              \
  GS_LOWP_MATH1(T, hlog2, log2((double)x))                                            \
  GS_LOWP_MATH1(T, hlog10, log10((double)x))                                          \
  GS_LOWP_MATH1(T, hsin, sin((double)x))                                              \
  GS_LOWP_MATH1(T, hcos, cos((double)x))                                              \
  GS_LOWP_MATH1(T, htanh, tanh((double)x))                                            \
  GS_LOWP_MATH1(T, htanh_approx, tanh((double)x))                                     \
  GS_LOWP_MATH1(T, hfloor, floorf(x))                                                 \
  GS_LOWP_MATH1(T, hceil, ceilf(x))                                                   \
  GS_LOWP_MATH1(T, htrunc, truncf(x))                                                 \
  GS_LOWP_MATH1(T, hrint, nearbyintf(x))
GS_LOWP_COMPARE_AND_MATH(__half, isnan, gs_hcanon)
// lane by lane, for a pair type T2 (__half2, __nv_bfloat162)
#define GS_LOWP2_1(T2, name, f) static inline T2 name(T2 a) { return T2(f(a.x), f(a.y)); }
#define GS_LOWP2_2(T2, name, f) \
  static inline T2 name(T2 a, T2 b) { return T2(f(a.x, b.x), f(a.y, b.y)); }
#define GS_LOWP2_3(T2, name, f) static inline T2 name(T2 a, T2 b, T2 c) { \
    return T2(f(a.x, b.x, c.x), f(a.y, b.y, c.y)); }
#define GS_LOWP2_OPS(T2)                                                                 \
  GS_LOWP2_2(T2, __hadd2, __hadd) GS_LOWP2_2(T2, __hsub2, __hsub)                        \
  GS_LOWP2_2(T2, __hmul2, __hmul) GS_LOWP2_2(T2, __h2div, __hdiv)                        \
  GS_LOWP2_2(T2, __hadd2_rn, __hadd) GS_LOWP2_2(T2, __hsub2_rn, __hsub)                  \
  GS_LOWP2_2(T2, __hmul2_rn, __hmul) GS_LOWP2_2(T2, __hadd2_sat, __hadd_sat)             \
  GS_LOWP2_2(T2, __hsub2_sat, __hsub_sat) GS_LOWP2_2(T2, __hmul2_sat, __hmul_sat)        \
  GS_LOWP2_2(T2, __hmax2, __hmax) GS_LOWP2_2(T2, __hmin2, __hmin)                        \
  GS_LOWP2_2(T2, __hmax2_nan, __hmax_nan) GS_LOWP2_2(T2, __hmin2_nan, __hmin_nan)        \
  GS_LOWP2_3(T2, __hfma2, __hfma) GS_LOWP2_3(T2, __hfma2_sat, __hfma_sat)                \
  GS_LOWP2_3(T2, __hfma2_relu, __hfma_relu)                                              \
  GS_LOWP2_1(T2, __hneg2, __hneg) GS_LOWP2_1(T2, __habs2, __habs)                        \
  GS_LOWP2_1(T2, h2sqrt, hsqrt) GS_LOWP2_1(T2, h2rsqrt, hrsqrt) GS_LOWP2_1(T2, h2rcp, hrcp) \
  GS_LOWP2_1(T2, h2exp, hexp) GS_LOWP2_1(T2, h2exp2, hexp2) GS_LOWP2_1(T2, h2exp10, hexp10) \
  GS_LOWP2_1(T2, h2log, hlog) GS_LOWP2_1(T2, h2log2, hlog2) GS_LOWP2_1(T2, h2log10, hlog10) \
  GS_LOWP2_1(T2, h2sin, hsin) GS_LOWP2_1(T2, h2cos, hcos) GS_LOWP2_1(T2, h2tanh, htanh)  \
  GS_LOWP2_1(T2, h2floor, hfloor) GS_LOWP2_1(T2, h2ceil, hceil)                          \
  GS_LOWP2_1(T2, h2trunc, htrunc) GS_LOWP2_1(T2, h2rint, hrint)
GS_LOWP2_OPS(__half2)
// a pair type's comparisons (T2 of T, ISNAN its NaN test): __heq2 etc. give 1.0/0.0
// per lane, __hbeq2 etc. whether both hold, __heq2_mask etc. 0xffff/0 per lane; the
// operators as cuda_fp16.hpp's (== < > <= >= hold for both lanes, != is unordered in
// both)
#define GS_LOWP2_CMP(T, T2, sfx, f)                                                      \
  static inline T2 __h##sfx##2(T2 a, T2 b) {                                            \
    return T2(T(f(a.x, b.x) ? 1.0f : 0.0f), T(f(a.y, b.y) ? 1.0f : 0.0f)); }            \
  static inline bool __hb##sfx##2(T2 a, T2 b) { return f(a.x, b.x) && f(a.y, b.y); }   \
  static inline unsigned __h##sfx##2_mask(T2 a, T2 b) {                                \
    return (f(a.x, b.x) ? 0xffffu : 0u) | (f(a.y, b.y) ? 0xffff0000u : 0u); }
#define GS_LOWP2_COMPARE(T, T2, ISNAN)                                                    \
  static inline T2 __hisnan2(T2 a) { return T2(T(ISNAN(a.x) ? 1.0f : 0.0f), T(ISNAN(a.y) ? 1.0f : 0.0f)); } \
  GS_LOWP2_CMP(T, T2, eq, __heq) GS_LOWP2_CMP(T, T2, ne, __hne)                         \
  GS_LOWP2_CMP(T, T2, lt, __hlt) GS_LOWP2_CMP(T, T2, le, __hle)                         \
  GS_LOWP2_CMP(T, T2, gt, __hgt) GS_LOWP2_CMP(T, T2, ge, __hge)                         \
  GS_LOWP2_CMP(T, T2, equ, __hequ) GS_LOWP2_CMP(T, T2, neu, __hneu)                     \
  GS_LOWP2_CMP(T, T2, ltu, __hltu) GS_LOWP2_CMP(T, T2, leu, __hleu)                     \
  GS_LOWP2_CMP(T, T2, gtu, __hgtu) GS_LOWP2_CMP(T, T2, geu, __hgeu)                     \
  static inline bool operator==(T2 a, T2 b) { return __hbeq2(a, b); }                  \
  static inline bool operator!=(T2 a, T2 b) { return __hbneu2(a, b); }                 \
  static inline bool operator<(T2 a, T2 b) { return __hblt2(a, b); }                   \
  static inline bool operator>(T2 a, T2 b) { return __hbgt2(a, b); }                   \
  static inline bool operator<=(T2 a, T2 b) { return __hble2(a, b); }                  \
  static inline bool operator>=(T2 a, T2 b) { return __hbge2(a, b); }
GS_LOWP2_COMPARE(__half, __half2, isnan)
#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000U)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)
class bfloat16;
#define CUDART_INF_F __int_as_float(0x7f800000)
#define CUDART_NAN_F __int_as_float(0x7fffffff)
#define CUDART_INF __longlong_as_double(0x7ff0000000000000ULL)
#define CUDART_NAN __longlong_as_double(0xfff8000000000000ULL)
#define CUDART_PI_F 3.141592654f
#define CUDART_PI 3.1415926535897931e+0
#define CUPY_MATH_CONSTANTS_H

// ---------------------------------------------------------------- atomics
#define GS_ATOMIC_INT(T)                                                          \
  static inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); } \
  static inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); } \
  static inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); } \
  static inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); } \
  static inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }   \
  static inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); } \
  static inline T atomicCAS(T* a, T cmp, T v) {                                  \
    __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    return cmp; }                                                                \
  static inline T atomicMin(T* a, T v) {                                         \
    T old = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                \
    while (v < old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {} \
    return old; }                                                                \
  static inline T atomicMax(T* a, T v) {                                         \
    T old = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                \
    while (v > old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {} \
    return old; }
GS_ATOMIC_INT(int)
GS_ATOMIC_INT(unsigned int)
GS_ATOMIC_INT(unsigned long long)
static inline long long atomicMin(long long* a, long long v) {
  long long old = __atomic_load_n(a, __ATOMIC_SEQ_CST);
  while (v < old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
static inline long long atomicMax(long long* a, long long v) {
  long long old = __atomic_load_n(a, __ATOMIC_SEQ_CST);
  while (v > old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
static inline unsigned short atomicCAS(unsigned short* a, unsigned short cmp, unsigned short v) {
  __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;
}
static inline unsigned atomicInc(unsigned* a, unsigned lim) {
  unsigned old = __atomic_load_n(a, __ATOMIC_SEQ_CST);
  for (;;) {
    unsigned nv = old >= lim ? 0u : old + 1u;
    if (__atomic_compare_exchange_n(a, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return old;
  }
}
static inline unsigned atomicDec(unsigned* a, unsigned lim) {
  unsigned old = __atomic_load_n(a, __ATOMIC_SEQ_CST);
  for (;;) {
    unsigned nv = (old == 0u || old > lim) ? lim : old - 1u;
    if (__atomic_compare_exchange_n(a, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return old;
  }
}
template <typename F, typename I, typename Op>
static inline F gs_atomic_fp(F* a, Op op) {
  I* ai = reinterpret_cast<I*>(a);
  I old = __atomic_load_n(ai, __ATOMIC_SEQ_CST);
  for (;;) {
    F nv = op(gs_bitcast<F>(old));
    I ni = gs_bitcast<I>(nv);
    if (__atomic_compare_exchange_n(ai, &old, ni, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return gs_bitcast<F>(old);
  }
}
static inline float atomicAdd(float* a, float v) {
  return gs_atomic_fp<float, unsigned>(a, [v](float o) { return o + v; });
}
static inline double atomicAdd(double* a, double v) {
  return gs_atomic_fp<double, unsigned long long>(a, [v](double o) { return o + v; });
}
static inline float atomicSub(float* a, float v) {
  return gs_atomic_fp<float, unsigned>(a, [v](float o) { return o - v; });
}
static inline float atomicExch(float* a, float v) {
  return gs_bitcast<float>(__atomic_exchange_n(reinterpret_cast<unsigned*>(a), gs_bitcast<unsigned>(v), __ATOMIC_SEQ_CST));
}
static inline double atomicExch(double* a, double v) {
  return gs_bitcast<double>(__atomic_exchange_n(reinterpret_cast<unsigned long long*>(a), gs_bitcast<unsigned long long>(v), __ATOMIC_SEQ_CST));
}
// __half / __half2 (each half atomically, as CUDA guarantees) by compare-and-swap
static inline __half atomicAdd(__half* a, __half v) {
  unsigned short* p = reinterpret_cast<unsigned short*>(a);
  unsigned short old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  for (;;) {
    unsigned short nv = (__half::from_bits(old) + v).data_;
    if (__atomic_compare_exchange_n(p, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return __half::from_bits(old);
  }
}
static inline __half2 atomicAdd(__half2* a, __half2 v) {
  unsigned* p = reinterpret_cast<unsigned*>(a);
  unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  for (;;) {
    __half2 o = gs_bitcast<__half2>(old);
    unsigned nv = gs_bitcast<unsigned>(__half2(o.x + v.x, o.y + v.y));
    if (__atomic_compare_exchange_n(p, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return gs_bitcast<__half2>(old);
  }
}
// the block- and system-scope variants: every scope is the process here
#define atomicAdd_block atomicAdd
#define atomicSub_block atomicSub
#define atomicExch_block atomicExch
#define atomicCAS_block atomicCAS
#define atomicMin_block atomicMin
#define atomicMax_block atomicMax
#define atomicAnd_block atomicAnd
#define atomicOr_block atomicOr
#define atomicXor_block atomicXor
#define atomicInc_block atomicInc
#define atomicDec_block atomicDec
#define atomicAdd_system atomicAdd
#define atomicSub_system atomicSub
#define atomicExch_system atomicExch
#define atomicCAS_system atomicCAS
#define atomicMin_system atomicMin
#define atomicMax_system atomicMax
#define atomicAnd_system atomicAnd
#define atomicOr_system atomicOr
#define atomicXor_system atomicXor
#define atomicInc_system atomicInc
#define atomicDec_system atomicDec

// ------------------------------------------------------- cached loads etc.
template <typename T> static inline T __ldg(const T* p) { return *p; }
template <typename T> static inline T __ldcg(const T* p) { return *p; }
template <typename T> static inline T __ldca(const T* p) { return *p; }
template <typename T> static inline T __ldcs(const T* p) { return *p; }
template <typename T> static inline T __ldlu(const T* p) { return *p; }
template <typename T> static inline T __ldcv(const T* p) { return *p; }
template <typename T> static inline void __stcg(T* p, T v) { *p = v; }
template <typename T> static inline void __stcs(T* p, T v) { *p = v; }
template <typename T> static inline void __stwb(T* p, T v) { *p = v; }
template <typename T> static inline void __stwt(T* p, T v) { *p = v; }

// ----------------------------------------------------------- kernel launch
namespace gs_detail {
template <typename T>
using arg_t = typename std::remove_cv<typename std::remove_reference<T>::type>::type;

template <typename... Args>
struct Launch {
  typedef void (*Fn)(Args...);
  struct Ctx {
    Fn fn;
    void** params;
    const gs_launch_t* gs_L;
    unsigned nthreads;
  };
  template <size_t... I>
  static inline void call(Fn fn, void** p, std::index_sequence<I...>) {
    fn(*reinterpret_cast<arg_t<Args>*>(p[I])...);
  }
  static inline void set_block(const Ctx* c, long long b) {
    const gs_launch_t* gs_L = c->gs_L;
    gridDim = dim3(gs_L->grid[0], gs_L->grid[1], gs_L->grid[2]);
    blockDim = dim3(gs_L->block[0], gs_L->block[1], gs_L->block[2]);
    unsigned long long gx = gs_L->grid[0], gy = gs_L->grid[1];
    blockIdx.x = (unsigned)(b % gx);
    blockIdx.y = (unsigned)((b / gx) % gy);
    blockIdx.z = (unsigned)(b / (gx * gy));
    gs_dyn_smem_ptr = gs_L->rt->dyn_smem(gs_L->shared_mem);
  }
  static void thread_fn(void* ctx, unsigned tid) {
    const Ctx* c = static_cast<const Ctx*>(ctx);
    unsigned bx = blockDim.x, by = blockDim.y;
    threadIdx.x = tid % bx;
    threadIdx.y = (tid / bx) % by;
    threadIdx.z = tid / (bx * by);
    call(c->fn, c->params, std::index_sequence_for<Args...>{});
  }
  static void block_fast(void* ctx, long long b) {
    const Ctx* c = static_cast<const Ctx*>(ctx);
    set_block(c, b);
    unsigned bx = blockDim.x, by = blockDim.y, bz = blockDim.z;
    for (unsigned z = 0; z < bz; ++z)
      for (unsigned y = 0; y < by; ++y)
        for (unsigned x = 0; x < bx; ++x) {
          threadIdx.x = x;
          threadIdx.y = y;
          threadIdx.z = z;
          call(c->fn, c->params, std::index_sequence_for<Args...>{});
        }
  }
  static void coop_block(void* ctx, long long b) {
    gs_cooperative = true;  // (grid_group::sync may wait for the other blocks)
    block_fiber(ctx, b);
    gs_cooperative = false;
  }
  static void block_fiber(void* ctx, long long b) {
    const Ctx* c = static_cast<const Ctx*>(ctx);
    set_block(c, b);
    if (c->nthreads == 1) {
      threadIdx.x = threadIdx.y = threadIdx.z = 0;
      call(c->fn, c->params, std::index_sequence_for<Args...>{});
      return;
    }
    c->gs_L->rt->run_block_fibers(c->nthreads, &thread_fn, ctx);
  }
};

template <typename T> struct arg_size { static const size_t value = sizeof(T); };
}  // namespace gs_detail

template <typename... Args>
static int gs_launch(const gs_launch_t* gs_L, void** params, int nparams,
                     void (*fn)(Args...)) {
  typedef gs_detail::Launch<Args...> LN;
  if (nparams != (int)sizeof...(Args)) return -1;
  gs_rt = gs_L->rt;
  typename LN::Ctx c;
  c.fn = fn;
  c.params = params;
  c.gs_L = gs_L;
  c.nthreads = gs_L->block[0] * gs_L->block[1] * gs_L->block[2];
  long long nblocks = (long long)gs_L->grid[0] * gs_L->grid[1] * gs_L->grid[2];
#if GS_GRID_SYNC
  // a cooperative launch of a source that syncs a whole grid: every block at once,
  // each on a thread of its own, up to the blocks that may be co-resident
  if (gs_L->cooperative) {
    if (nblocks > GS_COOP_MAX_BLOCKS) return -3;
    gs_L->rt->coop_for(nblocks, &LN::coop_block, &c);
    return 0;
  }
#endif
  gs_L->rt->parallel_for(nblocks, GS_USE_FIBERS ? &LN::block_fiber : &LN::block_fast, &c);
  return 0;
}

// Signature query: writes sizeof of each parameter, returns the count.
template <typename... Args>
static int gs_signature(long long* sizes, int cap, void (*)(Args...)) {
  long long s[sizeof...(Args) + 1] = {
      (long long)sizeof(gs_detail::arg_t<Args>)..., 0};
  int n = (int)sizeof...(Args);
  for (int i = 0; i < n && i < cap; ++i) sizes[i] = s[i];
  return n;
}

#define GS_EXPORT extern "C" __attribute__((visibility("default")))

#include "gpushare_texture.h"  // texture and surface objects

#endif  // GPUSHARE_CUDA_H
