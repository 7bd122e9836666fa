"""cuRAND's device API (``#include <curand_kernel.h>``) in users' kernels, run by the CPU
backend's emulator (``csrc/include/curand_kernel.h``), against a reference written here
from the generators' definitions: XORWOW (Marsaglia's xorwow with cuRAND's seeding and
its 2^67-draw subsequences), Philox4x32-10 (Random123's known-answer vectors) and
MRG32k3a (L'Ecuyer's, cuRAND's seeding, 2^76-draw subsequences). Integers and uniforms
are exact; normals (Box-Muller over the host's log/sin/cos, where a GPU uses an
approximate ``__sincosf``) within a few ulp. On a GPU (``GPUSHARE_TEST_BACKEND=cupy``)
the same expectations meet cuRAND's own header."""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy
import pytest

pytestmark = pytest.mark.timeout(300)

M32 = 0xFFFFFFFF

SRC = r'''
#include <curand_kernel.h>
#define PARAMS const unsigned long long* seeds, const unsigned long long* subs, \
  const unsigned long long* offs, unsigned* u, float* uf, double* ud, float* nf, \
  double* nd, int n
#define BODY(S)                                                                   \
  int i = blockIdx.x * blockDim.x + threadIdx.x;                                  \
  if (i >= n) return;                                                             \
  S s;                                                                            \
  curand_init(seeds[i], subs[i], offs[i], &s);                                    \
  for (int k = 0; k < 8; k++) u[i * 8 + k] = curand(&s);                          \
  uf[i] = curand_uniform(&s);                                                     \
  ud[i] = curand_uniform_double(&s);                                              \
  nf[2 * i] = curand_normal(&s);                                                  \
  nf[2 * i + 1] = curand_normal(&s);                                              \
  nd[2 * i] = curand_normal_double(&s);                                           \
  nd[2 * i + 1] = curand_normal_double(&s);
extern "C" __global__ void xorwow(PARAMS) { BODY(curandState) }
extern "C" __global__ void philox(PARAMS) { BODY(curandStatePhilox4_32_10_t) }
extern "C" __global__ void mrg(PARAMS) { BODY(curandStateMRG32k3a_t) }
extern "C" __global__ void sizes(int* o) {
  o[0] = sizeof(curandState);
  o[1] = sizeof(curandStatePhilox4_32_10_t);
  o[2] = sizeof(curandStateMRG32k3a_t);
}
extern "C" __global__ void philox_kat(const unsigned* c, unsigned* o) {
  uint4 r = curand_Philox4x32_10(make_uint4(c[0], c[1], c[2], c[3]),
                                 make_uint2(c[4], c[5]));
  o[0] = r.x; o[1] = r.y; o[2] = r.z; o[3] = r.w;
}
// skipahead / skipahead_sequence after init, then curand4 / uniform4 (Philox)
extern "C" __global__ void jumps(unsigned long long seed, unsigned long long seq,
                                 unsigned long long off, unsigned* o) {
  curandState a; curand_init(seed, 0, 0, &a);
  skipahead_sequence(seq, &a); skipahead(off, &a);
  o[0] = curand(&a);
  curandStatePhilox4_32_10_t p; curand_init(seed, 0, 0, &p);
  skipahead_sequence(seq, &p); skipahead(off, &p);
  uint4 q = curand4(&p);
  o[1] = q.x; o[2] = q.y; o[3] = q.z; o[4] = q.w;
  o[5] = curand(&p);
  curandStateMRG32k3a_t m; curand_init(seed, 0, 0, &m);
  skipahead_subsequence(seq, &m); skipahead(off, &m);
  o[6] = curand(&m);
  curandStateMRG32k3a_t m2; curand_init(seed, 0, 0, &m2);
  skipahead_sequence(seq, &m2);
  o[7] = curand(&m2);
}
'''

SEEDS = [0, 0, 1234, 2**40 + 7, 0, 2**64 - 1, 99]
SUBS = [0, 1, 5, 2**40 + 3, 0, 2**64 - 1, 123456]
OFFS = [0, 0, 7, 2**33 + 5, 3, 2**64 - 1, 1]


# ------------------------------------------------------------------ the reference
def f32(q: Fraction) -> float:
    """``q`` rounded to the nearest float32 (ties to even), as a Python float."""
    if q == 0:
        return 0.0
    sign = -1 if q < 0 else 1
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    scaled = q / Fraction(2) ** (e - 23)  # in [2^23, 2^24)
    m = scaled.numerator // scaled.denominator
    rest = scaled - m
    if rest > Fraction(1, 2) or rest == Fraction(1, 2) and m & 1:
        m += 1
    return sign * float(Fraction(m) * Fraction(2) ** (e - 23))


INV32 = Fraction(float(numpy.float32(2.3283064e-10)))


def uniform_f32(x: int) -> float:
    """cuRAND's ``x * 2^-32 + 2^-33`` in float32, one rounding (NVRTC's fused
    multiply-add), ``x`` first rounded to float32."""
    return f32(Fraction(f32(Fraction(x))) * INV32 + INV32 / 2)


def uniform_f64(x: int, y: int) -> float:
    z = x ^ (y << 21)
    return float(Fraction(z) / 2**53 + Fraction(1, 2**54))


def box_muller(u: float, angle: float) -> tuple:
    s = math.sqrt(-2.0 * math.log(u))
    return s * math.sin(angle), s * math.cos(angle)


def _xorwow_step(v: int) -> int:
    """One draw of the 160-bit xorwow state (word i at bits 32i), less the counter d."""
    w = [(v >> (32 * i)) & M32 for i in range(5)]
    t = w[0] ^ (w[0] >> 2)
    w4 = (w[4] ^ (w[4] << 4) ^ t ^ (t << 1)) & M32
    w = w[1:] + [w4]
    return sum(x << (32 * i) for i, x in enumerate(w))


def _apply(m: list, v: int) -> int:
    r = 0
    j = 0
    while v:
        if v & 1:
            r ^= m[j]
        v >>= 1
        j += 1
    return r


def _mul(a: list, b: list) -> list:
    return [_apply(a, col) for col in b]


@functools.lru_cache(maxsize=None)
def _xorwow_power2(k: int) -> list:
    """The xorwow map raised to 2^k (its 160 columns)."""
    if k == 0:
        return [_xorwow_step(1 << j) for j in range(160)]
    half = _xorwow_power2(k - 1)
    return _mul(half, half)


def _xorwow_jump(v: int, n: int, shift: int) -> int:
    k = shift
    while n:
        if n & 1:
            v = _apply(_xorwow_power2(k), v)
        n >>= 1
        k += 1
    return v


class Xorwow:
    def __init__(self, seed: int, sub: int, off: int):
        s0 = (seed & M32) ^ 0xaad26b49
        s1 = (seed >> 32) ^ 0xf7dcefdd
        t0 = 1099087573 * s0 & M32
        t1 = 2591861531 * s1 & M32
        self.d = (6615241 + t1 + t0) & M32
        w = [(123456789 + t0) & M32, 362436069 ^ t0, (521288629 + t1) & M32,
             88675123 ^ t1, (5783321 + t0) & M32]
        v = sum(x << (32 * i) for i, x in enumerate(w))
        v = _xorwow_jump(v, sub, 67)
        v = _xorwow_jump(v, off, 0)
        self.d = (self.d + 362437 * off) & M32
        self.v = v

    def next(self) -> int:
        self.v = _xorwow_step(self.v)
        self.d = (self.d + 362437) & M32
        return ((self.v >> 128) + self.d) & M32


def philox4x32_10(ctr: list, key: list) -> list:
    c, k = list(ctr), list(key)
    for r in range(10):
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k[0], p1 & M32, (p0 >> 32) ^ c[3] ^ k[1], p0 & M32]
        k = [(k[0] + 0x9E3779B9) & M32, (k[1] + 0xBB67AE85) & M32]
    return c


class Philox:
    def __init__(self, seed: int, sub: int, off: int):
        self.key = [seed & M32, seed >> 32]
        # the 128-bit counter: draws / 4 in the low half, the subsequence in the high
        self.ctr = (sub << 64) + off // 4 & (1 << 128) - 1
        self.pos = off % 4
        self.out = self._block()

    def _block(self) -> list:
        return philox4x32_10([(self.ctr >> (32 * i)) & M32 for i in range(4)], self.key)

    def next(self) -> int:
        r = self.out[self.pos]
        self.pos += 1
        if self.pos == 4:
            self.ctr = (self.ctr + 1) & (1 << 128) - 1
            self.out = self._block()
            self.pos = 0
        return r


MRG_M1, MRG_M2 = 4294967087, 4294944443
A1 = [[0, 1, 0], [0, 0, 1], [MRG_M1 - 810728, 1403580, 0]]
A2 = [[0, 1, 0], [0, 0, 1], [MRG_M2 - 1370589, 0, 527612]]


def _mat_mul(x, y, m):
    return [[sum(x[i][k] * y[k][j] for k in range(3)) % m for j in range(3)]
            for i in range(3)]


def _mat_pow(a, n, m):
    r = [[int(i == j) for j in range(3)] for i in range(3)]
    while n:
        if n & 1:
            r = _mat_mul(r, a, m)
        a = _mat_mul(a, a, m)
        n >>= 1
    return r


def _mat_vec(a, s, m):
    return [sum(a[i][k] * s[k] for k in range(3)) % m for i in range(3)]


class Mrg:
    def __init__(self, seed: int, sub: int, off: int, seq: int = 0):
        s1, s2 = [12345] * 3, [12345] * 3
        if seed:
            x1, x2 = (seed & M32) ^ 0x55555555, (seed >> 32) ^ 0xAAAAAAAA
            s1 = [x1 * 12345 % MRG_M1, x2 * 12345 % MRG_M1, x1 * 12345 % MRG_M1]
            s2 = [x2 * 12345 % MRG_M2, x1 * 12345 % MRG_M2, x2 * 12345 % MRG_M2]
        if sub >> 51 & 0x1F:
            # cuRAND's subsequence matrices: 51 of 56 entries set, 51..55 zero (its
            # curand_mrg32k3a.h), so such a subsequence zeroes the state
            s1, s2 = [0] * 3, [0] * 3
        n = (sub << 76) + (seq << 127) + off
        self.s1 = _mat_vec(_mat_pow(A1, n, MRG_M1), s1, MRG_M1)
        self.s2 = _mat_vec(_mat_pow(A2, n, MRG_M2), s2, MRG_M2)

    def raw(self) -> int:
        p1, p2 = _mat_vec(A1, self.s1, MRG_M1)[2], _mat_vec(A2, self.s2, MRG_M2)[2]
        self.s1 = self.s1[1:] + [p1]
        self.s2 = self.s2[1:] + [p2]
        return p1 - p2 if p1 > p2 else p1 - p2 + MRG_M1

    def next(self) -> int:  # (m1 * 1.000000048662 > 2^32: the GPU's conversion saturates)
        return min(int(self.raw() * 1.000000048662), M32)

    def uniform(self) -> float:
        return float(numpy.float32(self.raw() * 2.3283065498378288e-10))

    def uniform_double(self) -> float:
        return self.raw() * 2.3283065498378288e-10


def expected(kind: str, seed: int, sub: int, off: int) -> dict:
    g = {"xorwow": Xorwow, "philox": Philox, "mrg": Mrg}[kind](seed, sub, off)
    out = {"u": [g.next() for _ in range(8)]}
    if kind == "mrg":
        out["uf"] = g.uniform()
        out["ud"] = g.uniform_double()
        u, v = g.uniform(), g.uniform() * float(numpy.float32(6.2831855))
        out["nf"] = box_muller(u, v)
        u, v = g.uniform_double(), g.uniform_double() * 2.0 * math.pi
        out["nd"] = box_muller(u, v)
        return out
    out["uf"] = uniform_f32(g.next())
    if kind == "philox":  # (one draw, x * 2^-32 + 2^-32: cuRAND's curand_uniform.h, and
        out["ud"] = (g.next() + 1) / 2**32  # the H200's 0.31944576813839376 for seed 0)
    else:
        x, y = g.next(), g.next()
        out["ud"] = uniform_f64(x, y)
    x, y = g.next(), g.next()
    inv_2pi = Fraction(float(numpy.float32(2.3283064e-10) * numpy.float32(6.2831855)))
    angle = f32(Fraction(f32(Fraction(y))) * inv_2pi + inv_2pi / 2)
    out["nf"] = box_muller(uniform_f32(x), angle)
    x0, x1, y0, y1 = (g.next() for _ in range(4))
    turns = float(Fraction(y0 ^ (y1 << 21)) / 2**52 + Fraction(1, 2**53))  # of pi
    out["nd"] = box_muller(uniform_f64(x0, x1), math.pi * turns)
    return out


# ------------------------------------------------------------------ the tests
@pytest.fixture
def module(cp):
    return cp.RawModule(code=SRC)


def test_reference_matches_known_answers():
    # Random123's known-answer vectors for philox4x32-10
    assert philox4x32_10([0, 0, 0, 0], [0, 0]) == \
        [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
    assert philox4x32_10([M32] * 4, [M32] * 2) == \
        [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
    assert philox4x32_10([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                         [0xa4093822, 0x299f31d0]) == \
        [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
    # L'Ecuyer's MRG32k3a from the seeds 12345 (cuRAND's seed 0): RngStreams' first
    # uniform, 0.127011122...
    assert abs(Mrg(0, 0, 0).raw() * 2.3283065498378288e-10 - 0.127011122) < 1e-9
    # the reference's own jumps: an offset is that many draws
    a, b = Xorwow(5, 0, 0), Xorwow(5, 0, 40)
    for _ in range(40):
        a.next()
    assert (a.v, a.d) == (b.v, b.d)


def test_state_sizes_are_curands(cp, module):
    o = cp.zeros(3, cp.int32)
    module.get_function("sizes")((1,), (1,), (o,))
    assert o.tolist() == [48, 64, 48]


def test_philox_known_answers(cp, module):
    for c, want in [([0] * 6, [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]),
                    ([M32] * 6, [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd])]:
        o = cp.zeros(4, cp.uint32)
        module.get_function("philox_kat")((1,), (1,), (cp.array(c, dtype=cp.uint32), o))
        assert o.tolist() == want


@pytest.mark.parametrize("kind", ["xorwow", "philox", "mrg"])
def test_draws_match_the_generators_definition(cp, module, kind):
    n = len(SEEDS)
    u = cp.zeros(8 * n, cp.uint32)
    uf, ud = cp.zeros(n, cp.float32), cp.zeros(n, cp.float64)
    nf, nd = cp.zeros(2 * n, cp.float32), cp.zeros(2 * n, cp.float64)
    args = [cp.array(v, dtype=cp.uint64) for v in (SEEDS, SUBS, OFFS)]
    module.get_function(kind)((1,), (32,), (*args, u, uf, ud, nf, nd, cp.int32(n)))
    u, uf, ud, nf, nd = (a.get() for a in (u, uf, ud, nf, nd))
    if kind == "mrg":  # (the H200's first draw for subsequence 2^64 - 1: a zeroed state)
        assert expected("mrg", 2**64 - 1, 2**64 - 1, 2**64 - 1)["u"][0] == 0xFFFFFFFF
    for i in range(n):
        want = expected(kind, SEEDS[i], SUBS[i], OFFS[i])
        where = f"{kind} seed={SEEDS[i]} subsequence={SUBS[i]} offset={OFFS[i]}"
        assert u[8 * i:8 * i + 8].tolist() == want["u"], where
        assert float(uf[i]) == want["uf"], where
        assert float(ud[i]) == want["ud"], where
        # float normals: a GPU's __sincosf is approximate (absolute error ~2^-21)
        assert nf[2 * i:2 * i + 2] == pytest.approx(want["nf"], rel=2e-5, abs=2e-5), where
        assert nd[2 * i:2 * i + 2] == pytest.approx(want["nd"], rel=1e-13, abs=1e-13), where


def test_skipahead_functions(cp, module):
    for seed, seq, off in [(7, 0, 0), (7, 3, 0), (7, 0, 1), (7, 2, 9), (2**50 + 1, 2**35, 2**34 + 3)]:
        o = cp.zeros(8, cp.uint32)
        module.get_function("jumps")((1,), (1,), (cp.uint64(seed), cp.uint64(seq),
                                                  cp.uint64(off), o))
        p = Philox(seed, seq, off)
        q = [p.next() for _ in range(5)]
        assert o.tolist() == [Xorwow(seed, seq, off).next(), *q,
                              Mrg(seed, seq, off).next(), Mrg(seed, 0, 0, seq).next()]


def test_states_kept_in_device_memory_between_kernels(cp):
    """The usual split: one kernel seeds a state per thread into a CuPy array, later
    kernels draw from it and store it back. The draws are those of one kernel."""
    src = r'''
#include <curand_kernel.h>
extern "C" __global__ void setup(curandState* st, unsigned long long seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, i, 0, &st[i]);
}
extern "C" __global__ void draw(curandState* st, float* out, int per) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curandState local = st[i];
  for (int k = 0; k < per; k++) out[i * per + k] = curand_uniform(&local);
  st[i] = local;
}
'''
    m = cp.RawModule(code=src)
    n = 64
    states = cp.empty(n * 48, dtype=cp.uint8)
    m.get_function("setup")((2,), (32,), (states, cp.uint64(42)))
    first, second = cp.empty(n * 3, cp.float32), cp.empty(n * 3, cp.float32)
    m.get_function("draw")((2,), (32,), (states, first, cp.int32(3)))
    m.get_function("draw")((2,), (32,), (states, second, cp.int32(3)))
    for i in (0, 1, 37, 63):
        g = Xorwow(42, i, 0)
        want = [uniform_f32(g.next()) for _ in range(6)]
        assert first[3 * i:3 * i + 3].tolist() + second[3 * i:3 * i + 3].tolist() == want


def test_monte_carlo_program(cp):
    """A user's program as written for a GPU: pi by sampling, normals' moments and a
    Poisson mean, from per-thread Philox states."""
    src = r'''
#include <curand_kernel.h>
extern "C" __global__ void mc(unsigned long long seed, int per, unsigned long long* hits,
                              double* moments, unsigned long long* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t s;
  curand_init(seed, i, 0, &s);
  unsigned long long h = 0, c = 0, c2 = 0;
  double m1 = 0, m2 = 0;
  for (int k = 0; k < per; k++) {
    float x = curand_uniform(&s), y = curand_uniform(&s);
    h += x * x + y * y <= 1.0f;
    double z = curand_normal_double(&s);
    m1 += z; m2 += z * z;
    c += curand_poisson(&s, 3.5);
    c2 += curand_poisson(&s, 200.0);
  }
  atomicAdd(hits, h);
  atomicAdd(&moments[0], m1);
  atomicAdd(&moments[1], m2);
  atomicAdd(&counts[0], c);
  atomicAdd(&counts[1], c2);
}
'''
    kernel = cp.RawKernel(src, "mc")
    hits, moments = cp.zeros(1, cp.uint64), cp.zeros(2, cp.float64)
    counts = cp.zeros(2, cp.uint64)
    threads, per = 256, 400
    kernel((4,), (64,), (cp.uint64(2024), cp.int32(per), hits, moments, counts))
    n = threads * per
    assert abs(4 * int(hits[0]) / n - math.pi) < 0.02
    mean, second = (moments / n).get()
    assert abs(mean) < 0.02 and abs(second - 1) < 0.03
    c = counts.get() / n
    assert abs(c[0] - 3.5) < 0.05 and abs(c[1] - 200.0) < 0.3


def test_elementwise_kernel_preamble(cp):
    """``ElementwiseKernel(..., preamble='#include <curand_kernel.h>')``: the index is
    the subsequence, so every element draws its own stream."""
    k = cp.ElementwiseKernel(
        "uint64 seed", "float32 y",
        "curandStatePhilox4_32_10_t s; curand_init(seed, i, 0, &s); "
        "y = curand_uniform(&s);",
        "uniform_by_index", preamble="#include <curand_kernel.h>")
    y = k(cp.uint64(9), cp.empty(5, cp.float32))
    assert y.tolist() == [uniform_f32(Philox(9, i, 0).next()) for i in range(5)]


# ------------------------------------------------------------------ cupy.random.Generator
def _seed32(seed):
    """CuPy's ``_cuRANDGenerator``: the first 32-bit word of the seed's SeedSequence."""
    return int(numpy.random.SeedSequence(seed).generate_state(1, numpy.uint32)[0])


def _uniform_float(kind, g):
    """``curand_pseudo_state.rk_float``: ``curand_uniform`` (1.0 becomes 0)."""
    r = g.uniform() if kind == "mrg" else uniform_f32(g.next())
    return 0.0 if r >= 1.0 else r


def _uniform_double(kind, g):
    """``curand_pseudo_state.rk_double``: ``curand_uniform_double`` (1.0 becomes 0)."""
    if kind == "mrg":
        r = g.uniform_double()
    elif kind == "philox":  # (one draw: curand_uniform.h's ``_curand_uniform_double``)
        r = (g.next() + 1) / 2**32
    else:
        x, y = g.next(), g.next()
        r = uniform_f64(x, y)
    return 0.0 if r >= 1.0 else r


@pytest.mark.parametrize("name,kind", [("XORWOW", "xorwow"), ("MRG32k3a", "mrg"),
                                       ("Philox4x3210", "philox")])
def test_generator_draws_cupys_numbers(cp, name, kind):
    """CuPy's Generator runs one cuRAND state per thread (``curand_init(seed, i, 0)``,
    seed from a SeedSequence), element ``i`` drawn from state ``i`` (arrays smaller than
    the states, 2048 per multiprocessor: the same on every device), by CuPy's
    ``cupy_distributions.cu``, which the CPU backend runs on its emulator."""
    cls = {"xorwow": Xorwow, "mrg": Mrg, "philox": Philox}[kind]
    seed32 = _seed32(2024)
    bg = getattr(cp.random, name)(2024)
    raw = bg.random_raw(6).get()
    assert raw.dtype == numpy.int32
    want = [cls(seed32, i, 0).next() for i in range(6)]
    assert (raw.view(numpy.uint32) == numpy.array(want, numpy.uint32)).all()
    # the states moved on: random() draws each state's next values
    gen = cp.random.Generator(bg)
    got = gen.random(6).tolist()
    expect = []
    for i in range(6):
        g = cls(seed32, i, 0)
        g.next()
        expect.append(_uniform_double(kind, g))
    assert got == expect
    # integers: interval_32, masked draws until one is in range
    got = cp.random.Generator(getattr(cp.random, name)(7)).integers(0, 10, 5).tolist()
    expect = []
    for i in range(5):
        g = cls(_seed32(7), i, 0)
        v = g.next() & 15
        while v > 9:
            v = g.next() & 15
        expect.append(v)
    assert got == expect


#: CuPy 14.2 on an H200 (CUDA 13): ``Gen(seed=1234).random_raw(8)`` and
#: ``Generator(Gen(seed=0)).random(4)``, probed directly
_H200 = {
    "XORWOW": ([657480728, -1720183113, 1792394592, 533697209, 256253215, -1883985367,
                -203588376, -161594210],
               [0.6803991211554103, 0.16383168436153556, 0.2727209591777677,
                0.006541278071260981]),
    "MRG32k3a": ([-196634097, 785287876, 1958230340, -443065827, 159949638, -747053297,
                  -2090202364, 1537131805],
                 [0.5280289920880598, 0.3178367571504513, 0.6719202325752305,
                  0.5287224716746707]),
    "Philox4x3210": ([-1143122597, 1268391070, 157697423, -378457169, -927872463,
                      -2074397418, 1664223208, 599971910],
                     [0.48437055852264166, 0.35277800541371107, 0.8770675612613559,
                      0.09604526334442198]),
}


@pytest.mark.parametrize("name", sorted(_H200))
def test_bit_generators_draw_the_gpus_numbers(cp, name):
    raw, uniform = _H200[name]
    assert getattr(cp.random, name)(seed=1234).random_raw(8).tolist() == raw
    assert cp.random.Generator(getattr(cp.random, name)(seed=0)).random(4).tolist() == \
        uniform


def test_default_rng_is_xorwow_and_seeded_like_cupy(cp):
    a = cp.random.default_rng(42).random(4, dtype=cp.float32).tolist()
    seed32 = _seed32(42)
    assert a == [_uniform_float("xorwow", Xorwow(seed32, i, 0)) for i in range(4)]
    normals = cp.random.default_rng(42).standard_normal(3).get()
    for i in range(3):
        g = Xorwow(seed32, i, 0)
        x0, x1, y0, y1 = (g.next() for _ in range(4))
        turns = float(Fraction(y0 ^ (y1 << 21)) / 2**52 + Fraction(1, 2**53))
        assert normals[i] == pytest.approx(box_muller(uniform_f64(x0, x1),
                                                      math.pi * turns)[0], rel=1e-13)


def test_log_normals_and_pairs(cp):
    """``curand_log_normal`` keeps the pair's second value for the next call, as
    ``curand_normal`` does (the two kinds apart): exp of the same normals."""
    src = r'''
#include <curand_kernel.h>
extern "C" __global__ void ln(float* f, double* d) {
  curandState a, b;
  curand_init(5, threadIdx.x, 0, &a);
  curand_init(5, threadIdx.x, 0, &b);
  int i = threadIdx.x * 4;
  f[i] = curand_log_normal(&a, 1.0f, 0.5f); f[i + 1] = curand_log_normal(&a, 1.0f, 0.5f);
  float2 n = curand_normal2(&b);
  f[i + 2] = n.x; f[i + 3] = n.y;
  curand_init(6, threadIdx.x, 0, &a);
  curand_init(6, threadIdx.x, 0, &b);
  d[i] = curand_log_normal_double(&a, 0.0, 2.0); d[i + 1] = curand_log_normal_double(&a, 0.0, 2.0);
  d[i + 2] = curand_normal_double(&b); d[i + 3] = curand_normal_double(&b);
}'''
    f, d = cp.zeros(16, cp.float32), cp.zeros(16, cp.float64)
    cp.RawKernel(src, "ln")((1,), (4,), (f, d))
    f, d = f.get().reshape(4, 4), d.get().reshape(4, 4)
    assert f[:, :2] == pytest.approx(numpy.exp(1.0 + 0.5 * f[:, 2:].astype(numpy.float64)),
                                     rel=1e-5)
    assert d[:, :2] == pytest.approx(numpy.exp(2.0 * d[:, 2:]), rel=1e-12)
