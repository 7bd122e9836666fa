#pragma once
// gpushare emulator stand-in for cuRAND's device API (curand_kernel.h): the XORWOW,
// Philox4_32_10 and MRG32k3a generators, with cuRAND's state layouts (sizeof 48, 64
// and 48 bytes, so states kept in a CuPy array of bytes line up), its seeding, its
// subsequence and offset jumps (XORWOW: 2^67 draws per subsequence; MRG32k3a: 2^76,
// and 2^127 per sequence; Philox: the counter's high half) and its conversions, so a
// kernel draws the same integers and uniforms as on a GPU. Normals go through
// Box-Muller as cuRAND does, with the host's logf/sinf/cosf (a GPU's __sincosf is an
// approximation: the last bits may differ). curand_poisson is cuRAND's for lambda < 64
// and > 4000, and Hormann's PTRS (same distribution, other draws) in between.
// Not here: the quasi-random (Sobol) and MTGP32 generators and curand_discrete, whose
// tables come from cuRAND's host API.
#include "gpushare_cuda.h"
#include <atomic>
#include <mutex>

#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2POW32_INV_DOUBLE (2.3283064365386963e-10)
#define CURAND_2POW53_INV_DOUBLE (1.1102230246251565e-16)
#define CURAND_2POW32_INV_2PI (2.3283064e-10f * 6.2831855f)
#define CURAND_2PI (6.2831855f)
#define CURAND_SQRT2 (-1.4142135f)
#define CURAND_SQRT2_DOUBLE (-1.4142135623730951)
#define EXTRA_FLAG_NORMAL 0x00000001
#define EXTRA_FLAG_LOG_NORMAL 0x00000002
#define MRG32K3A_MOD1 4294967087.
#define MRG32K3A_MOD2 4294944443.
#define MRG32K3A_A12 1403580.
#define MRG32K3A_A13N 810728.
#define MRG32K3A_A21 527612.
#define MRG32K3A_A23N 1370589.
#define MRG32K3A_NORM (2.3283065498378288e-10)
#define MRG32K3A_BITS_NORM 1.000000048662
#define PHILOX_W32_0 (0x9E3779B9)
#define PHILOX_W32_1 (0xBB67AE85)
#define PHILOX_M4x32_0 (0xD2511F53)
#define PHILOX_M4x32_1 (0xCD9E8D57)
#ifndef QUALIFIERS
#define QUALIFIERS static __forceinline__ __device__
#endif

struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;
  uint2 key;
  unsigned int STATE;
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

struct curandStateMRG32k3a {
  unsigned int s1[3];
  unsigned int s2[3];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;

static_assert(sizeof(curandStateXORWOW) == 48, "cuRAND's layout");
static_assert(sizeof(curandStatePhilox4_32_10) == 64, "cuRAND's layout");
static_assert(sizeof(curandStateMRG32k3a) == 48, "cuRAND's layout");

// ------------------------------------------------------------ conversions (cuRAND's,
// with the fused multiply-adds NVRTC makes of them by default)
QUALIFIERS float _curand_uniform(unsigned int x) {
  return fmaf((float)x, CURAND_2POW32_INV, CURAND_2POW32_INV / 2.0f);
}
QUALIFIERS float4 _curand_uniform4(uint4 x) {
  return make_float4(_curand_uniform(x.x), _curand_uniform(x.y), _curand_uniform(x.z),
                     _curand_uniform(x.w));
}
QUALIFIERS double _curand_uniform_double(unsigned int x) {
  // (cuRAND's curand_uniform.h: x * 2^-32 + 2^-32, exact in double: (0, 1])
  return (double)x * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE;
}
QUALIFIERS double _curand_uniform_double_hq(unsigned int x, unsigned int y) {
  unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << (53 - 32));
  return fma((double)z, CURAND_2POW53_INV_DOUBLE, CURAND_2POW53_INV_DOUBLE / 2.0);
}
QUALIFIERS float2 _curand_box_muller(unsigned int x, unsigned int y) {
  float2 result;
  float u = fmaf((float)x, CURAND_2POW32_INV, CURAND_2POW32_INV / 2);
  float v = fmaf((float)y, CURAND_2POW32_INV_2PI, CURAND_2POW32_INV_2PI / 2);
  float s = sqrtf(-2.0f * logf(u));
  __sincosf(v, &result.x, &result.y);
  result.x *= s;
  result.y *= s;
  return result;
}
QUALIFIERS double2 _curand_box_muller_double(unsigned int x0, unsigned int x1,
                                             unsigned int y0, unsigned int y1) {
  double2 result;
  unsigned long long zx = (unsigned long long)x0 ^ ((unsigned long long)x1 << (53 - 32));
  double u = fma((double)zx, CURAND_2POW53_INV_DOUBLE, CURAND_2POW53_INV_DOUBLE / 2.0);
  unsigned long long zy = (unsigned long long)y0 ^ ((unsigned long long)y1 << (53 - 32));
  double v = fma((double)zy, CURAND_2POW53_INV_DOUBLE * 2.0, CURAND_2POW53_INV_DOUBLE);
  double s = sqrt(-2.0 * log(u));
  sincospi(v, &result.x, &result.y);
  result.x *= s;
  result.y *= s;
  return result;
}

// ------------------------------------------------------------ jumps: a linear map
// over GF(2) (XORWOW) or modulo m (MRG32k3a) raised to powers once, kept in tables of
// 4-bit digits: jumping n draws multiplies by one table entry per nonzero digit of n
namespace gs_curand {

// XORWOW's 160-bit state (v[i] at bits 32i); a matrix is its 160 columns
struct Bits { uint64_t w[3]; };
struct BitMatrix { Bits col[160]; };

static inline Bits apply(const BitMatrix& m, const Bits& v) {
  Bits r = {{0, 0, 0}};
  for (int i = 0; i < 3; i++)
    for (uint64_t bits = v.w[i]; bits; bits &= bits - 1) {
      const Bits& c = m.col[64 * i + __builtin_ctzll(bits)];
      r.w[0] ^= c.w[0]; r.w[1] ^= c.w[1]; r.w[2] ^= c.w[2];
    }
  return r;
}
static inline void multiply(BitMatrix& out, const BitMatrix& a, const BitMatrix& b) {
  for (int j = 0; j < 160; j++) out.col[j] = apply(a, b.col[j]);
}
static inline Bits pack(const unsigned int* v) {
  Bits s = {{v[0] | (uint64_t)v[1] << 32, v[2] | (uint64_t)v[3] << 32, v[4]}};
  return s;
}
static inline void unpack(const Bits& s, unsigned int* v) {
  v[0] = (unsigned int)s.w[0]; v[1] = (unsigned int)(s.w[0] >> 32);
  v[2] = (unsigned int)s.w[1]; v[3] = (unsigned int)(s.w[1] >> 32);
  v[4] = (unsigned int)s.w[2];
}
static inline Bits xorwow_step(Bits s) {  // one draw, less the Weyl counter d
  unsigned int v[5];
  unpack(s, v);
  unsigned int t = v[0] ^ (v[0] >> 2);
  unsigned int r[5] = {v[1], v[2], v[3], v[4], (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1))};
  return pack(r);
}

// table[k][m - 1] = T^(m * 16^k * 2^shift), T one draw
struct XorwowTable {
  BitMatrix m[16][15];
  std::atomic<int> ready{0};  // digits 0 .. ready-1 are filled
  std::mutex lock;
  BitMatrix tmp;  // (under the lock)
  int shift;
  explicit XorwowTable(int s) : shift(s) {}
  const BitMatrix& get(int k, int digit) {
    if (ready.load(std::memory_order_acquire) <= k) fill(k);
    return m[k][digit - 1];
  }
  void fill(int k) {
    std::lock_guard<std::mutex> guard(lock);
    int have = ready.load(std::memory_order_relaxed);
    for (int d = have; d <= k; d++) {
      BitMatrix& base = m[d][0];
      if (d == 0) {
        for (int j = 0; j < 160; j++) {
          Bits e = {{0, 0, 0}};
          e.w[j >> 6] = 1ull << (j & 63);
          base.col[j] = xorwow_step(e);
        }
        for (int i = 0; i < shift; i++) { multiply(tmp, base, base); base = tmp; }
      } else {  // the previous digit's base to the 16th
        multiply(base, m[d - 1][7], m[d - 1][7]);
      }
      for (int i = 1; i < 15; i++) multiply(m[d][i], m[d][i - 1], base);
      ready.store(d + 1, std::memory_order_release);
    }
  }
  void jump(unsigned int* v, unsigned long long n) {
    if (!n) return;
    Bits s = pack(v);
    for (int k = 0; n; k++, n >>= 4)
      if (n & 15) s = apply(get(k, (int)(n & 15)), s);
    unpack(s, v);
  }
};
static inline XorwowTable& xorwow_offsets() { static XorwowTable t(0); return t; }
static inline XorwowTable& xorwow_sequences() { static XorwowTable t(67); return t; }

// MRG32k3a: each component's 3x3 recurrence matrix modulo its modulus
typedef unsigned long long u64;
struct Mat3 { u64 a[3][3]; };
static const u64 M1 = 4294967087ull, M2 = 4294944443ull;
static inline Mat3 mul(const Mat3& x, const Mat3& y, u64 m) {
  Mat3 r;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      unsigned __int128 acc = 0;
      for (int k = 0; k < 3; k++) acc += (unsigned __int128)x.a[i][k] * y.a[k][j];
      r.a[i][j] = (u64)(acc % m);
    }
  return r;
}
static inline void apply3(const Mat3& x, unsigned int* s, u64 m) {
  u64 r[3];
  for (int i = 0; i < 3; i++) {
    unsigned __int128 acc = 0;
    for (int k = 0; k < 3; k++) acc += (unsigned __int128)x.a[i][k] * s[k];
    r[i] = (u64)(acc % m);
  }
  for (int i = 0; i < 3; i++) s[i] = (unsigned int)r[i];
}
struct MrgTable {
  Mat3 m1[16][15], m2[16][15];  // [k][digit - 1]: A^(digit * 16^k * 2^shift)
  explicit MrgTable(int shift) {
    Mat3 a1 = {{{0, 1, 0}, {0, 0, 1}, {M1 - 810728, 1403580, 0}}};
    Mat3 a2 = {{{0, 1, 0}, {0, 0, 1}, {M2 - 1370589, 0, 527612}}};
    for (int i = 0; i < shift; i++) { a1 = mul(a1, a1, M1); a2 = mul(a2, a2, M2); }
    for (int k = 0; k < 16; k++) {
      m1[k][0] = a1; m2[k][0] = a2;
      for (int d = 1; d < 15; d++) {
        m1[k][d] = mul(m1[k][d - 1], a1, M1);
        m2[k][d] = mul(m2[k][d - 1], a2, M2);
      }
      a1 = mul(m1[k][7], m1[k][7], M1);  // ^16
      a2 = mul(m2[k][7], m2[k][7], M2);
    }
  }
  void jump(curandStateMRG32k3a* s, unsigned long long n) const {
    for (int k = 0; n; k++, n >>= 4)
      if (n & 15) {
        apply3(m1[k][(n & 15) - 1], s->s1, M1);
        apply3(m2[k][(n & 15) - 1], s->s2, M2);
      }
  }
};
static inline const MrgTable& mrg_offsets() { static const MrgTable t(0); return t; }
static inline const MrgTable& mrg_subsequences() { static const MrgTable t(76); return t; }
static inline const MrgTable& mrg_sequences() { static const MrgTable t(127); return t; }

}  // namespace gs_curand

// ------------------------------------------------------------ XORWOW
QUALIFIERS unsigned int curand(curandStateXORWOW_t* state) {
  unsigned int t = state->v[0] ^ (state->v[0] >> 2);
  state->v[0] = state->v[1];
  state->v[1] = state->v[2];
  state->v[2] = state->v[3];
  state->v[3] = state->v[4];
  state->v[4] = (state->v[4] ^ (state->v[4] << 4)) ^ (t ^ (t << 1));
  state->d += 362437;
  return state->v[4] + state->d;
}
QUALIFIERS void skipahead(unsigned long long n, curandStateXORWOW_t* state) {
  gs_curand::xorwow_offsets().jump(state->v, n);
  state->d += 362437u * (unsigned int)n;
}
QUALIFIERS void skipahead_sequence(unsigned long long n, curandStateXORWOW_t* state) {
  gs_curand::xorwow_sequences().jump(state->v, n);
}
QUALIFIERS void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStateXORWOW_t* state) {
  unsigned int s0 = ((unsigned int)seed) ^ 0xaad26b49u;
  unsigned int s1 = (unsigned int)(seed >> 32) ^ 0xf7dcefddu;
  unsigned int t0 = 1099087573u * s0;
  unsigned int t1 = 2591861531u * s1;
  state->d = 6615241 + t1 + t0;
  state->v[0] = 123456789u + t0;
  state->v[1] = 362436069u ^ t0;
  state->v[2] = 521288629u + t1;
  state->v[3] = 88675123u ^ t1;
  state->v[4] = 5783321u + t0;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.f;
  state->boxmuller_extra_double = 0.;
}

// ------------------------------------------------------------ Philox4_32_10
QUALIFIERS unsigned int gs_mulhilo32(unsigned int a, unsigned int b, unsigned int* hip) {
  unsigned long long product = (unsigned long long)a * b;
  *hip = (unsigned int)(product >> 32);
  return (unsigned int)product;
}
QUALIFIERS uint4 _philox4x32round(uint4 ctr, uint2 key) {
  unsigned int hi0, hi1;
  unsigned int lo0 = gs_mulhilo32(PHILOX_M4x32_0, ctr.x, &hi0);
  unsigned int lo1 = gs_mulhilo32(PHILOX_M4x32_1, ctr.z, &hi1);
  return make_uint4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
}
QUALIFIERS uint2 _philox4x32bumpkey(uint2 key) {
  key.x += PHILOX_W32_0;
  key.y += PHILOX_W32_1;
  return key;
}
QUALIFIERS uint4 curand_Philox4x32_10(uint4 c, uint2 k) {
  for (int i = 0; i < 9; i++) {
    c = _philox4x32round(c, k);
    k = _philox4x32bumpkey(k);
  }
  return _philox4x32round(c, k);
}
QUALIFIERS void Philox_State_Incr(curandStatePhilox4_32_10_t* s, unsigned long long n) {
  unsigned int nlo = (unsigned int)n, nhi = (unsigned int)(n >> 32);
  s->ctr.x += nlo;
  if (s->ctr.x < nlo) nhi++;
  s->ctr.y += nhi;
  if (nhi <= s->ctr.y) return;
  if (++s->ctr.z) return;
  ++s->ctr.w;
}
QUALIFIERS void Philox_State_Incr_hi(curandStatePhilox4_32_10_t* s, unsigned long long n) {
  unsigned int nlo = (unsigned int)n, nhi = (unsigned int)(n >> 32);
  s->ctr.z += nlo;
  if (s->ctr.z < nlo) nhi++;
  s->ctr.w += nhi;
}
QUALIFIERS void Philox_State_Incr(curandStatePhilox4_32_10_t* s) {
  if (++s->ctr.x) return;
  if (++s->ctr.y) return;
  if (++s->ctr.z) return;
  ++s->ctr.w;
}
QUALIFIERS void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  Philox_State_Incr_hi(state, n);
  state->output = curand_Philox4x32_10(state->ctr, state->key);
}
QUALIFIERS void skipahead(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  state->STATE += (n & 3);
  n /= 4;
  if (state->STATE > 3) {
    n += 1;
    state->STATE -= 4;
  }
  Philox_State_Incr(state, n);
  state->output = curand_Philox4x32_10(state->ctr, state->key);
}
QUALIFIERS void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStatePhilox4_32_10_t* state) {
  state->ctr = make_uint4(0, 0, 0, 0);
  state->key.x = (unsigned int)seed;
  state->key.y = (unsigned int)(seed >> 32);
  state->STATE = 0;
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.f;
  state->boxmuller_extra_double = 0.;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
}
QUALIFIERS unsigned int curand(curandStatePhilox4_32_10_t* state) {
  unsigned int ret;
  switch (state->STATE++) {
    default: ret = state->output.x; break;
    case 1: ret = state->output.y; break;
    case 2: ret = state->output.z; break;
    case 3: ret = state->output.w; break;
  }
  if (state->STATE == 4) {
    Philox_State_Incr(state);
    state->output = curand_Philox4x32_10(state->ctr, state->key);
    state->STATE = 0;
  }
  return ret;
}
QUALIFIERS uint4 curand4(curandStatePhilox4_32_10_t* state) {
  uint4 r;
  uint4 tmp = state->output;
  Philox_State_Incr(state);
  state->output = curand_Philox4x32_10(state->ctr, state->key);
  switch (state->STATE) {
    case 0: return tmp;
    case 1: r.x = tmp.y; r.y = tmp.z; r.z = tmp.w; r.w = state->output.x; break;
    case 2: r.x = tmp.z; r.y = tmp.w; r.z = state->output.x; r.w = state->output.y; break;
    case 3: r.x = tmp.w; r.y = state->output.x; r.z = state->output.y;
            r.w = state->output.z; break;
    default: return tmp;
  }
  return r;
}

// ------------------------------------------------------------ MRG32k3a
QUALIFIERS double curand_MRG32k3a(curandStateMRG32k3a_t* state) {
  using gs_curand::M1;
  using gs_curand::M2;
  unsigned long long p1 = (1403580ull * state->s1[1] + 810728ull * (M1 - state->s1[0])) % M1;
  state->s1[0] = state->s1[1];
  state->s1[1] = state->s1[2];
  state->s1[2] = (unsigned int)p1;
  unsigned long long p2 = (527612ull * state->s2[2] + 1370589ull * (M2 - state->s2[0])) % M2;
  state->s2[0] = state->s2[1];
  state->s2[1] = state->s2[2];
  state->s2[2] = (unsigned int)p2;
  return p1 > p2 ? (double)(p1 - p2) : (double)(p1 + M1 - p2);
}
QUALIFIERS unsigned long long curand_MRGmodMul(unsigned long long i, unsigned long long j,
                                               unsigned long long m) {
  return (unsigned long long)((unsigned __int128)i * j % m);
}
QUALIFIERS void skipahead(unsigned long long n, curandStateMRG32k3a_t* state) {
  gs_curand::mrg_offsets().jump(state, n);
}
QUALIFIERS void skipahead_subsequence(unsigned long long n, curandStateMRG32k3a_t* state) {
  // cuRAND's mrg32k3aM1SubSeq/M2SubSeq[56] (curand_mrg32k3a.h) hold A^(2^76 * 2^i) for
  // i < 51 only, entries 51 to 55 zero: a bit 51..55 of n zeroes the state (then every
  // draw is m1: curand() 0xFFFFFFFF, as the H200 gave). Bits 56..63 read past those
  // tables (undefined: what follows them in the device image), exact powers here
  if (n & (0x1Full << 51)) {
    for (int i = 0; i < 3; i++) state->s1[i] = state->s2[i] = 0u;
    return;
  }
  gs_curand::mrg_subsequences().jump(state, n);
}
QUALIFIERS void skipahead_sequence(unsigned long long n, curandStateMRG32k3a_t* state) {
  gs_curand::mrg_sequences().jump(state, n);
}
QUALIFIERS void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStateMRG32k3a_t* state) {
  for (int i = 0; i < 3; i++) {
    state->s1[i] = 12345u;
    state->s2[i] = 12345u;
  }
  if (seed != 0ull) {
    unsigned int x1 = ((unsigned int)seed) ^ 0x55555555u;
    unsigned int x2 = (unsigned int)((seed >> 32) ^ 0xAAAAAAAAu);
    state->s1[0] = (unsigned int)curand_MRGmodMul(x1, state->s1[0], gs_curand::M1);
    state->s1[1] = (unsigned int)curand_MRGmodMul(x2, state->s1[1], gs_curand::M1);
    state->s1[2] = (unsigned int)curand_MRGmodMul(x1, state->s1[2], gs_curand::M1);
    state->s2[0] = (unsigned int)curand_MRGmodMul(x2, state->s2[0], gs_curand::M2);
    state->s2[1] = (unsigned int)curand_MRGmodMul(x1, state->s2[1], gs_curand::M2);
    state->s2[2] = (unsigned int)curand_MRGmodMul(x2, state->s2[2], gs_curand::M2);
  }
  skipahead_subsequence(subsequence, state);
  skipahead(offset, state);
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.f;
  state->boxmuller_extra_double = 0.;
}
QUALIFIERS unsigned int curand(curandStateMRG32k3a_t* state) {
  // (m1 * MRG32K3A_BITS_NORM is just above 2^32: a GPU's conversion saturates)
  double d = curand_MRG32k3a(state) * MRG32K3A_BITS_NORM;
  return d >= 4294967296.0 ? 0xFFFFFFFFu : (unsigned int)d;
}
QUALIFIERS float curand_uniform(curandStateMRG32k3a_t* state) {
  return (float)(curand_MRG32k3a(state) * MRG32K3A_NORM);
}
QUALIFIERS double curand_uniform_double(curandStateMRG32k3a_t* state) {
  return curand_MRG32k3a(state) * MRG32K3A_NORM;
}
QUALIFIERS float2 curand_box_muller_mrg(curandStateMRG32k3a_t* state) {
  float x = curand_uniform(state);
  float y = curand_uniform(state) * CURAND_2PI;
  float2 result;
  float s = sqrtf(-2.0f * logf(x));
  __sincosf(y, &result.x, &result.y);
  result.x *= s;
  result.y *= s;
  return result;
}
QUALIFIERS double2 curand_box_muller_mrg_double(curandStateMRG32k3a_t* state) {
  double x = curand_uniform_double(state);
  double y = curand_uniform_double(state) * 2.0;
  double2 result;
  double s = sqrt(-2.0 * log(x));
  sincospi(y, &result.x, &result.y);
  result.x *= s;
  result.y *= s;
  return result;
}

// ------------------------------------------------------------ uniforms (XORWOW, Philox)
QUALIFIERS float curand_uniform(curandStateXORWOW_t* state) {
  return _curand_uniform(curand(state));
}
QUALIFIERS float curand_uniform(curandStatePhilox4_32_10_t* state) {
  return _curand_uniform(curand(state));
}
QUALIFIERS double curand_uniform_double(curandStateXORWOW_t* state) {
  unsigned int x = curand(state);
  unsigned int y = curand(state);
  return _curand_uniform_double_hq(x, y);
}
QUALIFIERS double curand_uniform_double(curandStatePhilox4_32_10_t* state) {
  // one draw, unlike XORWOW's two (curand_uniform.h; the H200's answers agree)
  return _curand_uniform_double(curand(state));
}
QUALIFIERS float4 curand_uniform4(curandStatePhilox4_32_10_t* state) {
  return _curand_uniform4(curand4(state));
}
QUALIFIERS double2 curand_uniform2_double(curandStatePhilox4_32_10_t* state) {
  uint4 x = curand4(state);
  double2 r;
  r.x = _curand_uniform_double_hq(x.x, x.y);
  r.y = _curand_uniform_double_hq(x.z, x.w);
  return r;
}
QUALIFIERS double4 curand_uniform4_double(curandStatePhilox4_32_10_t* state) {
  uint4 x = curand4(state), y = curand4(state);
  double4 r;
  r.x = _curand_uniform_double_hq(x.x, x.y);
  r.y = _curand_uniform_double_hq(x.z, x.w);
  r.z = _curand_uniform_double_hq(y.x, y.y);
  r.w = _curand_uniform_double_hq(y.z, y.w);
  return r;
}

// ------------------------------------------------------------ normals: one Box-Muller
// pair per two calls, the second value kept in the state (float and double apart)
template <typename S> QUALIFIERS float2 gs_box_muller(S* state) {
  unsigned int x = curand(state);
  unsigned int y = curand(state);
  return _curand_box_muller(x, y);
}
QUALIFIERS float2 gs_box_muller(curandStateMRG32k3a_t* state) {
  return curand_box_muller_mrg(state);
}
template <typename S> QUALIFIERS double2 gs_box_muller_double(S* state) {
  unsigned int x0 = curand(state), x1 = curand(state);
  unsigned int y0 = curand(state), y1 = curand(state);
  return _curand_box_muller_double(x0, x1, y0, y1);
}
QUALIFIERS double2 gs_box_muller_double(curandStatePhilox4_32_10_t* state) {
  uint4 x = curand4(state);
  return _curand_box_muller_double(x.x, x.y, x.z, x.w);
}
QUALIFIERS double2 gs_box_muller_double(curandStateMRG32k3a_t* state) {
  return curand_box_muller_mrg_double(state);
}

// one value of a pair per call: the pair's first (its second kept in the state, with
// the flag saying which kind of pair it is), or the kept one
template <typename V, typename P>
QUALIFIERS V gs_one_of_pair(int* flag, V* extra, int kind, P pair) {
  if (*flag != kind) {
    auto v = pair();
    *extra = v.y;
    *flag = kind;
    return v.x;
  }
  *flag = 0;
  return *extra;
}
#define GS_CURAND_NORMALS(S)                                                            \
  QUALIFIERS float2 curand_normal2(S* state) { return gs_box_muller(state); }          \
  QUALIFIERS double2 curand_normal2_double(S* state) {                                 \
    return gs_box_muller_double(state);                                                \
  }                                                                                    \
  QUALIFIERS float2 curand_log_normal2(S* state, float mean, float stddev) {           \
    float2 v = gs_box_muller(state);                                                   \
    v.x = expf(mean + (stddev * v.x));                                                 \
    v.y = expf(mean + (stddev * v.y));                                                 \
    return v;                                                                          \
  }                                                                                    \
  QUALIFIERS double2 curand_log_normal2_double(S* state, double mean, double stddev) { \
    double2 v = gs_box_muller_double(state);                                           \
    v.x = exp(mean + (stddev * v.x));                                                  \
    v.y = exp(mean + (stddev * v.y));                                                  \
    return v;                                                                          \
  }                                                                                    \
  QUALIFIERS float curand_normal(S* state) {                                           \
    return gs_one_of_pair(&state->boxmuller_flag, &state->boxmuller_extra,             \
                          EXTRA_FLAG_NORMAL, [&] { return gs_box_muller(state); });    \
  }                                                                                    \
  QUALIFIERS double curand_normal_double(S* state) {                                   \
    return gs_one_of_pair(&state->boxmuller_flag_double,                               \
                          &state->boxmuller_extra_double, EXTRA_FLAG_NORMAL,           \
                          [&] { return gs_box_muller_double(state); });                \
  }                                                                                    \
  QUALIFIERS float curand_log_normal(S* state, float mean, float stddev) {             \
    return gs_one_of_pair(&state->boxmuller_flag, &state->boxmuller_extra,             \
                          EXTRA_FLAG_LOG_NORMAL,                                       \
                          [&] { return curand_log_normal2(state, mean, stddev); });    \
  }                                                                                    \
  QUALIFIERS double curand_log_normal_double(S* state, double mean, double stddev) {   \
    return gs_one_of_pair(&state->boxmuller_flag_double,                               \
                          &state->boxmuller_extra_double, EXTRA_FLAG_LOG_NORMAL,       \
                          [&] { return curand_log_normal2_double(state, mean, stddev); }); \
  }
GS_CURAND_NORMALS(curandStateXORWOW_t)
GS_CURAND_NORMALS(curandStatePhilox4_32_10_t)
GS_CURAND_NORMALS(curandStateMRG32k3a_t)
#undef GS_CURAND_NORMALS

QUALIFIERS float4 curand_normal4(curandStatePhilox4_32_10_t* state) {
  uint4 x = curand4(state);
  float2 a = _curand_box_muller(x.x, x.y), b = _curand_box_muller(x.z, x.w);
  return make_float4(a.x, a.y, b.x, b.y);
}
QUALIFIERS double4 curand_normal4_double(curandStatePhilox4_32_10_t* state) {
  double2 a = gs_box_muller_double(state), b = gs_box_muller_double(state);
  double4 r;
  r.x = a.x; r.y = a.y; r.z = b.x; r.w = b.y;
  return r;
}
QUALIFIERS float4 curand_log_normal4(curandStatePhilox4_32_10_t* state, float mean,
                                     float stddev) {
  float4 v = curand_normal4(state);
  v.x = expf(mean + stddev * v.x);
  v.y = expf(mean + stddev * v.y);
  v.z = expf(mean + stddev * v.z);
  v.w = expf(mean + stddev * v.w);
  return v;
}

// ------------------------------------------------------------ Poisson
template <typename S> QUALIFIERS unsigned int gs_poisson_knuth(S* state, float lambda) {
  unsigned int k = 0;
  float p = expf(lambda);
  do {
    k++;
    p *= curand_uniform(state);
  } while (p > 1.0);
  return k - 1;
}
// Hormann's transformed rejection with squeeze (PTRS), for 10 <= lambda
template <typename S> QUALIFIERS unsigned int gs_poisson_ptrs(S* state, double lambda) {
  double slam = sqrt(lambda), loglam = log(lambda);
  double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    double u = curand_uniform_double(state) - 0.5, v = curand_uniform_double(state);
    double us = 0.5 - fabs(u);
    double k = floor((2 * a / us + b) * u + lambda + 0.43);
    if (us >= 0.07 && v <= vr) return (unsigned int)k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (log(v) + log(invalpha) - log(a / (us * us) + b) <=
        -lambda + k * loglam - lgamma(k + 1))
      return (unsigned int)k;
  }
}
#define GS_CURAND_POISSON(S)                                                        \
  QUALIFIERS unsigned int curand_poisson(S* state, double lambda) {                \
    if (lambda < 64) return gs_poisson_knuth(state, (float)lambda);                \
    if (lambda > 4000)                                                             \
      return (unsigned int)((sqrt(lambda) * curand_normal_double(state)) + lambda + \
                            0.5);                                                  \
    return gs_poisson_ptrs(state, lambda);                                         \
  }
GS_CURAND_POISSON(curandStateXORWOW_t)
GS_CURAND_POISSON(curandStatePhilox4_32_10_t)
GS_CURAND_POISSON(curandStateMRG32k3a_t)
#undef GS_CURAND_POISSON
QUALIFIERS uint4 curand_poisson4(curandStatePhilox4_32_10_t* state, double lambda) {
  uint4 r;
  r.x = curand_poisson(state, lambda);
  r.y = curand_poisson(state, lambda);
  r.z = curand_poisson(state, lambda);
  r.w = curand_poisson(state, lambda);
  return r;
}
