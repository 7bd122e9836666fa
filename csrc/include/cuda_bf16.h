// gpushare emulator stand-in for CUDA's cuda_bf16.h: __nv_bfloat16 / __nv_bfloat162
// (bfloat16 storage; arithmetic in float, rounded back to nearest even, which is
// exact for + - * / sqrt: float has more than 2*8+2 bits), the conversions with their
// rounding modes, comparisons, math, atomicAdd and the overloads of the __h* functions
// that cuda_fp16.h's __half has.
#pragma once
#include "gpushare_cuda.h"

struct __nv_bfloat16_raw { unsigned short x; };
struct alignas(4) __nv_bfloat162_raw { unsigned short x, y; };

static inline unsigned short gs_double2bf16_bits(double d, int mode = GS_RN) {
  return gs_d2small_bits<7, 8>(d, mode);
}
static inline float gs_bf16_bits2float(unsigned short b) {
  return gs_bitcast<float>((unsigned)b << 16);
}

class __nv_bfloat16 {
 public:
  unsigned short __x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : __x(gs_double2bf16_bits(f)) {}
  __nv_bfloat16(double f) : __x(gs_double2bf16_bits(f)) {}
  __nv_bfloat16(int f) : __x(gs_double2bf16_bits((double)f)) {}
  __nv_bfloat16(unsigned f) : __x(gs_double2bf16_bits((double)f)) {}
  __nv_bfloat16(long f) : __x(gs_double2bf16_bits((double)f)) {}
  __nv_bfloat16(unsigned long f) : __x(gs_double2bf16_bits((double)f)) {}
  __nv_bfloat16(long long f) : __x(gs_double2bf16_bits((double)f)) {}
  __nv_bfloat16(unsigned long long f) : __x(gs_double2bf16_bits((double)f)) {}
  __nv_bfloat16(short f) : __x(gs_double2bf16_bits((double)f)) {}
  __nv_bfloat16(unsigned short f) : __x(gs_double2bf16_bits((double)f)) {}
  __nv_bfloat16(__nv_bfloat16_raw r) : __x(r.x) {}
  operator float() const { return gs_bf16_bits2float(__x); }
  operator __nv_bfloat16_raw() const { __nv_bfloat16_raw r; r.x = __x; return r; }
  static __nv_bfloat16 from_bits(unsigned short b) { __nv_bfloat16 r; r.__x = b; return r; }
  unsigned short to_bits() const { return __x; }
  __nv_bfloat16& operator+=(__nv_bfloat16 o) { *this = __nv_bfloat16(float(*this) + float(o)); return *this; }
  __nv_bfloat16& operator-=(__nv_bfloat16 o) { *this = __nv_bfloat16(float(*this) - float(o)); return *this; }
  __nv_bfloat16& operator*=(__nv_bfloat16 o) { *this = __nv_bfloat16(float(*this) * float(o)); return *this; }
  __nv_bfloat16& operator/=(__nv_bfloat16 o) { *this = __nv_bfloat16(float(*this) / float(o)); return *this; }
  __nv_bfloat16& operator++() { return *this += __nv_bfloat16(1.0f); }
  __nv_bfloat16& operator--() { return *this -= __nv_bfloat16(1.0f); }
  __nv_bfloat16 operator++(int) { __nv_bfloat16 o = *this; *this += __nv_bfloat16(1.0f); return o; }
  __nv_bfloat16 operator--(int) { __nv_bfloat16 o = *this; *this -= __nv_bfloat16(1.0f); return o; }
  __nv_bfloat16 operator-() const { return from_bits(__x ^ 0x8000u); }
  __nv_bfloat16 operator+() const { return *this; }
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat16_raw nv_bfloat16_raw;
static inline __nv_bfloat16 operator+(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) + float(b)); }
static inline __nv_bfloat16 operator-(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) - float(b)); }
static inline __nv_bfloat16 operator*(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) * float(b)); }
static inline __nv_bfloat16 operator/(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) / float(b)); }
static inline bool operator==(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) == float(b); }
static inline bool operator!=(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) != float(b); }
static inline bool operator<(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) < float(b); }
static inline bool operator>(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) > float(b); }
static inline bool operator<=(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) <= float(b); }
static inline bool operator>=(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) >= float(b); }
static inline bool gs_isnan(__nv_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }

struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __nv_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) : x(a), y(b) {}
  __nv_bfloat162(__nv_bfloat162_raw r)
      : x(__nv_bfloat16::from_bits(r.x)), y(__nv_bfloat16::from_bits(r.y)) {}
  operator __nv_bfloat162_raw() const { __nv_bfloat162_raw r; r.x = x.__x; r.y = y.__x; return r; }
  __nv_bfloat162& operator+=(const __nv_bfloat162& o) { x += o.x; y += o.y; return *this; }
  __nv_bfloat162& operator-=(const __nv_bfloat162& o) { x -= o.x; y -= o.y; return *this; }
  __nv_bfloat162& operator*=(const __nv_bfloat162& o) { x *= o.x; y *= o.y; return *this; }
  __nv_bfloat162& operator/=(const __nv_bfloat162& o) { x /= o.x; y /= o.y; return *this; }
};
typedef __nv_bfloat162 nv_bfloat162;
typedef __nv_bfloat162_raw nv_bfloat162_raw;
static inline __nv_bfloat162 operator+(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x + b.x, a.y + b.y); }
static inline __nv_bfloat162 operator-(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x - b.x, a.y - b.y); }
static inline __nv_bfloat162 operator*(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x * b.x, a.y * b.y); }
static inline __nv_bfloat162 operator/(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x / b.x, a.y / b.y); }
static inline __nv_bfloat162 operator-(__nv_bfloat162 a) { return __nv_bfloat162(-a.x, -a.y); }
static inline __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }

// conversions
static inline __nv_bfloat16 gs_bf(double d, int mode) { return __nv_bfloat16::from_bits(gs_double2bf16_bits(d, mode)); }
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rz(float f) { return gs_bf(f, GS_RZ); }
static inline __nv_bfloat16 __float2bfloat16_ru(float f) { return gs_bf(f, GS_RU); }
static inline __nv_bfloat16 __float2bfloat16_rd(float f) { return gs_bf(f, GS_RD); }
static inline __nv_bfloat16 __double2bfloat16(double f) { return __nv_bfloat16(f); }
static inline float __bfloat162float(__nv_bfloat16 b) { return float(b); }
#define GS_B2I(name, I) GS_LOWP_TO_INT(__nv_bfloat16, name, I)
GS_B2I(__bfloat162int, int)
GS_B2I(__bfloat162uint, unsigned)
GS_B2I(__bfloat162short, short)
GS_B2I(__bfloat162ushort, unsigned short)
GS_B2I(__bfloat162ll, long long)
GS_B2I(__bfloat162ull, unsigned long long)
#undef GS_B2I
#define GS_I2B(name, I)                                                                  \
  static inline __nv_bfloat16 name##_rn(I i) { return gs_bf((double)i, GS_RN); }        \
  static inline __nv_bfloat16 name##_rz(I i) { return gs_bf((double)i, GS_RZ); }        \
  static inline __nv_bfloat16 name##_ru(I i) { return gs_bf((double)i, GS_RU); }        \
  static inline __nv_bfloat16 name##_rd(I i) { return gs_bf((double)i, GS_RD); }
GS_I2B(__int2bfloat16, int)
GS_I2B(__uint2bfloat16, unsigned)
GS_I2B(__short2bfloat16, short)
GS_I2B(__ushort2bfloat16, unsigned short)
GS_I2B(__ll2bfloat16, long long)
GS_I2B(__ull2bfloat16, unsigned long long)
#undef GS_I2B
static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short b) { return __nv_bfloat16::from_bits(b); }
static inline short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.__x; }
static inline __nv_bfloat16 __short_as_bfloat16(short b) { return __nv_bfloat16::from_bits((unsigned short)b); }
static inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162(__nv_bfloat16(a), __nv_bfloat16(b)); }
static inline __nv_bfloat162 __float2bfloat162_rn(float a) { return __floats2bfloat162_rn(a, a); }
static inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __floats2bfloat162_rn(f.x, f.y); }
static inline float2 __bfloat1622float2(__nv_bfloat162 h) { return make_float2(float(h.x), float(h.y)); }
static inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
static inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162(a, a); }
static inline float __low2float(__nv_bfloat162 h) { return float(h.x); }
static inline float __high2float(__nv_bfloat162 h) { return float(h.y); }
static inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
static inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
static inline __nv_bfloat162 __low2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162(h.x, h.x); }
static inline __nv_bfloat162 __high2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162(h.y, h.y); }
static inline __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x, b.x); }
static inline __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.y, b.y); }
static inline __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 a) { return __nv_bfloat162(a.y, a.x); }

// arithmetic
typedef __nv_bfloat16 gs_bf16;
static inline gs_bf16 gs_bcanon() { return gs_bf16::from_bits(0x7fffu); }
static inline gs_bf16 gs_bsat(gs_bf16 a) {
  float f = float(a);
  return f != f || f <= 0.0f ? gs_bf16::from_bits(0) : (f > 1.0f ? gs_bf16(1.0f) : a);
}
static inline gs_bf16 __hadd(gs_bf16 a, gs_bf16 b) { return a + b; }
static inline gs_bf16 __hsub(gs_bf16 a, gs_bf16 b) { return a - b; }
static inline gs_bf16 __hmul(gs_bf16 a, gs_bf16 b) { return a * b; }
static inline gs_bf16 __hdiv(gs_bf16 a, gs_bf16 b) { return a / b; }
static inline gs_bf16 __hadd_rn(gs_bf16 a, gs_bf16 b) { return a + b; }
static inline gs_bf16 __hsub_rn(gs_bf16 a, gs_bf16 b) { return a - b; }
static inline gs_bf16 __hmul_rn(gs_bf16 a, gs_bf16 b) { return a * b; }
static inline gs_bf16 __hneg(gs_bf16 a) { return -a; }
static inline gs_bf16 __habs(gs_bf16 a) { return gs_bf16::from_bits(a.__x & 0x7fffu); }
// a*b+c rounded once (gs_fma_round_odd, gpushare_cuda.h)
static inline gs_bf16 __hfma(gs_bf16 a, gs_bf16 b, gs_bf16 c) {
  return gs_bf16(gs_fma_round_odd(float(a), float(b), float(c)));
}
static inline gs_bf16 __hadd_sat(gs_bf16 a, gs_bf16 b) { return gs_bsat(a + b); }
static inline gs_bf16 __hsub_sat(gs_bf16 a, gs_bf16 b) { return gs_bsat(a - b); }
static inline gs_bf16 __hmul_sat(gs_bf16 a, gs_bf16 b) { return gs_bsat(a * b); }
static inline gs_bf16 __hfma_sat(gs_bf16 a, gs_bf16 b, gs_bf16 c) { return gs_bsat(__hfma(a, b, c)); }
static inline gs_bf16 __hfma_relu(gs_bf16 a, gs_bf16 b, gs_bf16 c) {
  gs_bf16 r = __hfma(a, b, c);
  return gs_isnan(r) ? gs_bcanon() : (float(r) < 0.0f ? gs_bf16::from_bits(0) : r);
}
static inline bool __hisnan(gs_bf16 a) { return gs_isnan(a); }
static inline int __hisinf(gs_bf16 a) { return (a.__x & 0x7fffu) == 0x7f80u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
static inline gs_bf16 __hmax(gs_bf16 a, gs_bf16 b) {
  if (gs_isnan(a)) return gs_isnan(b) ? gs_bcanon() : b;
  if (gs_isnan(b)) return a;
  if (float(a) == float(b)) return (a.__x & 0x8000u) ? b : a;
  return a > b ? a : b;
}
static inline gs_bf16 __hmin(gs_bf16 a, gs_bf16 b) {
  if (gs_isnan(a)) return gs_isnan(b) ? gs_bcanon() : b;
  if (gs_isnan(b)) return a;
  if (float(a) == float(b)) return (a.__x & 0x8000u) ? a : b;
  return a < b ? a : b;
}
GS_LOWP_COMPARE_AND_MATH(gs_bf16, gs_isnan, gs_bcanon)
typedef __nv_bfloat162 gs_bf162;
GS_LOWP2_OPS(gs_bf162)
GS_LOWP2_COMPARE(gs_bf16, gs_bf162, gs_isnan)

static inline gs_bf16 atomicAdd(gs_bf16* a, gs_bf16 v) {
  unsigned short* p = reinterpret_cast<unsigned short*>(a);
  unsigned short old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  for (;;) {
    unsigned short nv = (gs_bf16::from_bits(old) + v).__x;
    if (__atomic_compare_exchange_n(p, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return gs_bf16::from_bits(old);
  }
}
static inline gs_bf162 atomicAdd(gs_bf162* a, gs_bf162 v) {
  unsigned* p = reinterpret_cast<unsigned*>(a);
  unsigned old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  for (;;) {
    gs_bf162 o = gs_bitcast<gs_bf162>(old);
    unsigned nv = gs_bitcast<unsigned>(gs_bf162(o.x + v.x, o.y + v.y));
    if (__atomic_compare_exchange_n(p, &old, nv, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return gs_bitcast<gs_bf162>(old);
  }
}
#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)
