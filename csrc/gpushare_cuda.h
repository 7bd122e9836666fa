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

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <new>
#include <type_traits>
#include <utility>

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
static inline unsigned __activemask() { return gs_rt->active_mask(); }
template <typename T>
static inline unsigned __match_any_sync(unsigned mask, T v) {
  unsigned char b[16] = {0};
  memcpy(b, &v, sizeof(T) < 8 ? sizeof(T) : 8);
  return (unsigned)gs_warp_sync(GS_OP_MATCH_ANY, mask, b, 0, 0, nullptr);
}
static inline unsigned __lanemask_lt() { return (1u << gs_lane()) - 1u; }
static inline unsigned __lanemask_le() { return (2u << gs_lane()) - 1u; }

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
template <typename T>
static inline T __reduce_add_sync(unsigned mask, T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(mask, v, o);
  return v;
}

static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __nanosleep(unsigned) {}
static inline void __trap() { raise(SIGTRAP); abort(); }  // (the runtime: cudaErrorLaunchFailure)
static inline void __brkpt() {}
static inline long long clock64() { return (long long)__builtin_ia32_rdtsc(); }
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
static inline int __mul24(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
static inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
static inline unsigned __sad(int x, int y, unsigned z) { return (x > y ? (unsigned)(x - y) : (unsigned)(y - x)) + z; }
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

// ------------------------------------------------------------------ min/max
template <typename A, typename B,
          typename = typename std::enable_if<std::is_arithmetic<A>::value &&
                                             std::is_arithmetic<B>::value>::type>
static inline typename std::common_type<A, B>::type min(A a, B b) {
  typedef typename std::common_type<A, B>::type R;
  if (std::is_floating_point<R>::value) return (R)fmin((R)a, (R)b);
  return (R)b < (R)a ? (R)b : (R)a;
}
template <typename A, typename B,
          typename = typename std::enable_if<std::is_arithmetic<A>::value &&
                                             std::is_arithmetic<B>::value>::type>
static inline typename std::common_type<A, B>::type max(A a, B b) {
  typedef typename std::common_type<A, B>::type R;
  if (std::is_floating_point<R>::value) return (R)fmax((R)a, (R)b);
  return (R)a < (R)b ? (R)b : (R)a;
}
static inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ------------------------------------------------------------------- math
// (__expf, __logf, __sinf, __cosf, __tanf, __powf, __exp10f, __log2f, __log10f,
//  __sincosf, sincos, sincosf and exp10 come from glibc's <math.h>)
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline double rcbrt(double x) { return 1.0 / cbrt(x); }
static inline float __fdividef(float a, float b) { return a / b; }
static inline float fdividef(float a, float b) { return a / b; }
static inline double fdivide(double a, double b) { return a / b; }
#define GS_ROUNDED_F(op, expr)                                                   \
  static inline float __f##op##_rn(float a, float b) { return expr; }           \
  static inline float __f##op##_rz(float a, float b) { return expr; }           \
  static inline float __f##op##_ru(float a, float b) { return expr; }           \
  static inline float __f##op##_rd(float a, float b) { return expr; }           \
  static inline double __d##op##_rn(double a, double b) { return expr; }        \
  static inline double __d##op##_rz(double a, double b) { return expr; }        \
  static inline double __d##op##_ru(double a, double b) { return expr; }        \
  static inline double __d##op##_rd(double a, double b) { return expr; }
GS_ROUNDED_F(add, a + b)
GS_ROUNDED_F(sub, a - b)
GS_ROUNDED_F(mul, a * b)
GS_ROUNDED_F(div, a / b)
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fmaf_rz(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline double __fma_rz(double a, double b, double c) { return fma(a, b, c); }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline double __dsqrt_rn(double a) { return sqrt(a); }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline double __drcp_rn(double a) { return 1.0 / a; }
static inline float __frsqrt_rn(float a) { return 1.0f / sqrtf(a); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : (x != x ? 0.0f : x)); }
static inline float saturate(float x) { return __saturatef(x); }

static inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
static inline int __float2int_rz(float x) { return (int)x; }
static inline int __float2int_rd(float x) { return (int)floorf(x); }
static inline int __float2int_ru(float x) { return (int)ceilf(x); }
static inline unsigned __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
static inline unsigned __float2uint_rz(float x) { return (unsigned)x; }
static inline unsigned __float2uint_rd(float x) { return (unsigned)floorf(x); }
static inline unsigned __float2uint_ru(float x) { return (unsigned)ceilf(x); }
static inline long long __float2ll_rn(float x) { return (long long)nearbyintf(x); }
static inline long long __float2ll_rz(float x) { return (long long)x; }
static inline int __double2int_rn(double x) { return (int)nearbyint(x); }
static inline int __double2int_rz(double x) { return (int)x; }
static inline int __double2int_rd(double x) { return (int)floor(x); }
static inline int __double2int_ru(double x) { return (int)ceil(x); }
static inline long long __double2ll_rn(double x) { return (long long)nearbyint(x); }
static inline long long __double2ll_rz(double x) { return (long long)x; }
static inline float __double2float_rn(double x) { return (float)x; }
static inline float __double2float_rz(double x) { return (float)x; }
static inline float __int2float_rn(int x) { return (float)x; }
static inline float __int2float_rz(int x) { return (float)x; }
static inline float __uint2float_rn(unsigned x) { return (float)x; }
static inline float __ll2float_rn(long long x) { return (float)x; }
static inline double __int2double_rn(int x) { return (double)x; }
static inline double __uint2double_rn(unsigned x) { return (double)x; }
static inline double __ll2double_rn(long long x) { return (double)x; }

static inline double sinpi(double x) { return sin(M_PI * x); }
static inline float sinpif(float x) { return (float)sin(M_PI * (double)x); }
static inline double cospi(double x) { return cos(M_PI * x); }
static inline float cospif(float x) { return (float)cos(M_PI * (double)x); }
static inline void sincospi(double x, double* s, double* c) { *s = sinpi(x); *c = cospi(x); }
static inline void sincospif(float x, float* s, float* c) { *s = sinpif(x); *c = cospif(x); }
static inline double norm3d(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }
static inline float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
static inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
static inline float rnorm3df(float a, float b, float c) { return 1.0f / norm3df(a, b, c); }
static inline double norm4d(double a, double b, double c, double d) { return sqrt(a * a + b * b + c * c + d * d); }
static inline float norm4df(float a, float b, float c, float d) { return sqrtf(a * a + b * b + c * c + d * d); }
static inline double rhypot(double a, double b) { return 1.0 / hypot(a, b); }
static inline float rhypotf(float a, float b) { return 1.0f / hypotf(a, b); }
static inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
static inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }

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
static inline double erfcx(double x) {
  if (x < 25.0) return exp(x * x) * erfc(x);
  double x2 = 1.0 / (x * x);  // asymptotic expansion
  return (1.0 / (x * 1.7724538509055160273)) * (1.0 - 0.5 * x2 + 0.75 * x2 * x2 - 1.875 * x2 * x2 * x2);
}
static inline float erfcxf(float x) { return (float)erfcx((double)x); }
static inline double cyl_bessel_i0(double x) { return std::cyl_bessel_i(0.0, x); }
static inline float cyl_bessel_i0f(float x) { return (float)std::cyl_bessel_i(0.0, (double)x); }
static inline double cyl_bessel_i1(double x) { return std::cyl_bessel_i(1.0, x); }
static inline float cyl_bessel_i1f(float x) { return (float)std::cyl_bessel_i(1.0, (double)x); }

// ------------------------------------------------------------------- half
static inline unsigned short gs_float2half_bits(float f) {
  unsigned x = gs_bitcast<unsigned>(f);
  unsigned sign = (x >> 16) & 0x8000u;
  unsigned ex = (x >> 23) & 0xffu;
  unsigned man = x & 0x7fffffu;
  if (ex == 0xffu) return (unsigned short)(sign | 0x7c00u | (man ? 0x200u | (man >> 13) : 0u));
  int e = (int)ex - 127 + 15;
  if (e >= 31) return (unsigned short)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (unsigned short)sign;
    man |= 0x800000u;
    unsigned shift = (unsigned)(14 - e);
    unsigned h = man >> shift;
    unsigned rem = man & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return (unsigned short)(sign | h);
  }
  unsigned h = ((unsigned)e << 10) | (man >> 13);
  unsigned rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return (unsigned short)(sign | h);
}
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

class float16 {
 public:
  unsigned short data_;
  float16() = default;
  float16(float f) : data_(gs_float2half_bits(f)) {}
  float16(double f) : data_(gs_float2half_bits((float)f)) {}
  float16(int f) : data_(gs_float2half_bits((float)f)) {}
  float16(unsigned f) : data_(gs_float2half_bits((float)f)) {}
  float16(long f) : data_(gs_float2half_bits((float)f)) {}
  float16(unsigned long f) : data_(gs_float2half_bits((float)f)) {}
  float16(long long f) : data_(gs_float2half_bits((float)f)) {}
  float16(unsigned long long f) : data_(gs_float2half_bits((float)f)) {}
  float16(short f) : data_(gs_float2half_bits((float)f)) {}
  float16(unsigned short f) : data_(gs_float2half_bits((float)f)) {}
  float16(signed char f) : data_(gs_float2half_bits((float)f)) {}
  float16(unsigned char f) : data_(gs_float2half_bits((float)f)) {}
  float16(bool f) : data_(gs_float2half_bits((float)f)) {}
  operator float() const { return gs_half_bits2float(data_); }
  static float16 from_bits(unsigned short b) { float16 r; r.data_ = b; return r; }
  unsigned short to_bits() const { return data_; }
  float16& operator+=(float16 o) { *this = float16(float(*this) + float(o)); return *this; }
  float16& operator-=(float16 o) { *this = float16(float(*this) - float(o)); return *this; }
  float16& operator*=(float16 o) { *this = float16(float(*this) * float(o)); return *this; }
  float16& operator/=(float16 o) { *this = float16(float(*this) / float(o)); return *this; }
  float16 operator-() const { return from_bits(data_ ^ 0x8000u); }
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
struct alignas(4) __half2 { __half x, y; };
typedef __half2 half2;
static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline __half __double2half(double f) { return __half((float)f); }
static inline float __half2float(__half h) { return float(h); }
static inline __half __int2half_rn(int i) { return __half((float)i); }
static inline int __half2int_rn(__half h) { return (int)nearbyintf(float(h)); }
static inline int __half2int_rz(__half h) { return (int)float(h); }
static inline unsigned short __half_as_ushort(__half h) { return h.data_; }
static inline __half __ushort_as_half(unsigned short b) { return __half::from_bits(b); }
static inline short __half_as_short(__half h) { return (short)h.data_; }
static inline __half __short_as_half(short b) { return __half::from_bits((unsigned short)b); }
static inline __half __hadd(__half a, __half b) { return a + b; }
static inline __half __hsub(__half a, __half b) { return a - b; }
static inline __half __hmul(__half a, __half b) { return a * b; }
static inline __half __hdiv(__half a, __half b) { return a / b; }
static inline __half __hneg(__half a) { return -a; }
static inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf(float(a), float(b), float(c))); }
static inline bool __hlt(__half a, __half b) { return a < b; }
static inline bool __hgt(__half a, __half b) { return a > b; }
static inline bool __hle(__half a, __half b) { return a <= b; }
static inline bool __hge(__half a, __half b) { return a >= b; }
static inline bool __heq(__half a, __half b) { return a == b; }
static inline bool __hne(__half a, __half b) { return a != b; }
static inline bool __hisnan(__half a) { return isnan(a); }
static inline __half hsqrt(__half a) { return __half(sqrtf(float(a))); }
static inline __half hexp(__half a) { return __half(expf(float(a))); }
static inline __half hlog(__half a) { return __half(logf(float(a))); }
static inline __half __hmax(__half a, __half b) { return __half(fmaxf(float(a), float(b))); }
static inline __half __hmin(__half a, __half b) { return __half(fminf(float(a), float(b))); }
static inline __half2 __floats2half2_rn(float a, float b) { __half2 r; r.x = __half(a); r.y = __half(b); return r; }
static inline __half2 __float2half2_rn(float a) { return __floats2half2_rn(a, a); }
static inline __half2 __halves2half2(__half a, __half b) { __half2 r; r.x = a; r.y = b; return r; }
static inline float __low2float(__half2 h) { return float(h.x); }
static inline float __high2float(__half2 h) { return float(h.y); }
static inline __half __low2half(__half2 h) { return h.x; }
static inline __half __high2half(__half2 h) { return h.y; }
static inline __half2 __hadd2(__half2 a, __half2 b) { return __halves2half2(a.x + b.x, a.y + b.y); }
static inline __half2 __hmul2(__half2 a, __half2 b) { return __halves2half2(a.x * b.x, a.y * b.y); }
static inline __half2 __hsub2(__half2 a, __half2 b) { return __halves2half2(a.x - b.x, a.y - b.y); }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __halves2half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
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
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
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
    const gs_launch_t* L;
    unsigned nthreads;
  };
  template <size_t... I>
  static inline void call(Fn fn, void** p, std::index_sequence<I...>) {
    fn(*reinterpret_cast<arg_t<Args>*>(p[I])...);
  }
  static inline void set_block(const Ctx* c, long long b) {
    const gs_launch_t* L = c->L;
    gridDim = dim3(L->grid[0], L->grid[1], L->grid[2]);
    blockDim = dim3(L->block[0], L->block[1], L->block[2]);
    unsigned long long gx = L->grid[0], gy = L->grid[1];
    blockIdx.x = (unsigned)(b % gx);
    blockIdx.y = (unsigned)((b / gx) % gy);
    blockIdx.z = (unsigned)(b / (gx * gy));
    gs_dyn_smem_ptr = L->rt->dyn_smem(L->shared_mem);
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
    c->L->rt->run_block_fibers(c->nthreads, &thread_fn, ctx);
  }
};

template <typename T> struct arg_size { static const size_t value = sizeof(T); };
}  // namespace gs_detail

template <typename... Args>
static int gs_launch(const gs_launch_t* L, void** params, int nparams,
                     void (*fn)(Args...)) {
  typedef gs_detail::Launch<Args...> LN;
  if (nparams != (int)sizeof...(Args)) return -1;
  gs_rt = L->rt;
  typename LN::Ctx c;
  c.fn = fn;
  c.params = params;
  c.L = L;
  c.nthreads = L->block[0] * L->block[1] * L->block[2];
  long long nblocks = (long long)L->grid[0] * L->grid[1] * L->grid[2];
#if GS_GRID_SYNC
  // a cooperative launch of a source that syncs a whole grid: every block at once,
  // each on a thread of its own, up to the blocks that may be co-resident
  if (L->cooperative) {
    if (nblocks > GS_COOP_MAX_BLOCKS) return -3;
    L->rt->coop_for(nblocks, &LN::coop_block, &c);
    return 0;
  }
#endif
  L->rt->parallel_for(nblocks, GS_USE_FIBERS ? &LN::block_fiber : &LN::block_fast, &c);
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
