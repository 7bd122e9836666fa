"""cupy.random.RandomState's draws: CuPy's legacy API draws through cuRAND's host API
(XORWOW by default), which the CPU backend follows (``cpu_curand.HostXorwow``): the
values an H200 drew, and how a second call continues the stream."""
from __future__ import annotations

import numpy
import pytest

pytestmark = pytest.mark.timeout(300)

# Recorded on an NVIDIA H200 with CuPy 14.2.0 (tests/gpu_session.sh, section 3;
# /tmp/w/gpu/run1/curand_host.json, "RandomState(1234)"): one RandomState(1234), these
# three calls in this order.
H200_RANDOM_SAMPLE = [0.43489880438841294, 0.9264169202024377, 0.8118452111300192,
                      0.30855542463539803, 0.5572350286815337, 0.5012456711076041,
                      0.20668128954562665, 0.12337637024240661]
H200_RANDINT = [993, 208, 615, 919, 602, 917, 958, 207]
H200_STANDARD_NORMAL = [0.2884145580205565, 0.26080792016827503, 0.3174032184369123,
                        0.11063812173999671, 0.5015662371450477, -0.23741798429506505,
                        -0.9222350733143121, 0.9178569905408033]

STATES = 4096


def test_h200_draws_of_random_state_1234(cp):
    rs = cp.random.RandomState(1234)
    assert rs.random_sample(8).get().tolist() == H200_RANDOM_SAMPLE
    assert rs.randint(0, 1000, 8).get().tolist() == H200_RANDINT
    assert rs.standard_normal(8).get().tolist() == H200_STANDARD_NORMAL


def test_h200_draws_through_the_module_functions(cp):
    cp.random.seed(1234)
    assert cp.random.rand(8).get().tolist() == H200_RANDOM_SAMPLE
    assert cp.random.randint(1000, size=8).get().tolist() == H200_RANDINT
    assert cp.random.randn(8).get().tolist() == H200_STANDARD_NORMAL
    cp.random.seed(1234)
    assert cp.random.uniform(size=8).get().tolist() == H200_RANDOM_SAMPLE
    cp.random.seed(1234)
    assert cp.random.random((2, 4)).get().ravel().tolist() == H200_RANDOM_SAMPLE
    rs = cp.random.RandomState(1234)
    rs.random_sample(8)
    rs.randint(0, 1000, 8)
    assert rs.normal(size=8).get().tolist() == H200_STANDARD_NORMAL


def _xorwow_draws(seed: int, per_state: int) -> numpy.ndarray:
    """``draws[j, i]``: the ``j``-th 32-bit draw of ``curand_init(seed, i, 0)``'s state,
    from the emulator's device API (which matches an H200's: test_emulator_curand.py)."""
    from gpushare_server.backends import cpu_curand
    state = cpu_curand.state_bytes("xorwow", STATES)
    cpu_curand.init_states("xorwow", state, seed, STATES)
    out = numpy.zeros(STATES * per_state, numpy.int32)
    cpu_curand.launch("xorwow", state, STATES, "raw", out)
    return out.view(numpy.uint32).reshape(per_state, STATES)


class _Model:
    """The host API's order as the CPU backend models it: a call's element (or normal
    pair) ``k`` from state ``(start + k) % 4096``, each state's draws in order; ``start``
    moves by the elements written."""

    def __init__(self, draws: numpy.ndarray) -> None:
        self.draws = draws
        self.used = [0] * STATES
        self.start = 0

    def words(self, i: int, count: int) -> list:
        j = self.used[i]
        self.used[i] += count
        return [int(w) for w in self.draws[j:j + count, i]]

    def call(self, n: int, per: int, step: int = 1) -> list:
        out = [self.words((self.start + k) % STATES, per) for k in range(n // step)]
        self.start = (self.start + n) % STATES
        return out


def _double(x: int, y: int) -> float:
    return float(x ^ (y << 21)) * 2.0 ** -53 + 2.0 ** -54


def _normals(w: list) -> tuple:
    u = _double(w[0], w[1])
    v = float(w[2] ^ (w[3] << 21)) * 2.0 ** -52 + 2.0 ** -53
    s = numpy.sqrt(-2.0 * numpy.log(u))
    return s * numpy.sin(numpy.pi * v), s * numpy.cos(numpy.pi * v)


def test_second_calls_continue_the_stream(cp):
    # Only the first call of each kind is measured on a GPU (above, and the host API
    # XORWOW's raw and double order, read from 3*4096*8 words then 16 doubles); these
    # calls, that wrap around the 4096 states, cross the odd normal count and follow
    # on, check the model the CPU backend implements, UNVERIFIED on a GPU (in
    # particular that a normal call moves the start by its element count).
    model = _Model(_xorwow_draws(1234, 12))
    rs = cp.random.RandomState(1234)
    got = rs.random_sample(5000).get().tolist()
    assert got == [_double(*w) for w in model.call(5000, 2)]
    got = rs.randint(0, 2 ** 32, 4000).get().tolist()  # (a power of two: raw words)
    assert got == [w[0] for w in model.call(4000, 1)]
    got = rs.standard_normal(3).get()  # (drawn as 4, the last dropped)
    want = [v for w in model.call(4, 4, 2) for v in _normals(w)][:3]
    numpy.testing.assert_allclose(got, want, rtol=1e-13)
    got = rs.random_sample(2).get().tolist()
    assert got == [_double(*w) for w in model.call(2, 2)]
    got = rs.tomaxint(3).get().tolist()  # (two words each, the sign bit cleared)
    words = [w[0] for w in model.call(6, 1)]
    assert got == [(words[2 * k] | words[2 * k + 1] << 32) & (2 ** 63 - 1)
                   for k in range(3)]


def test_randint_rejects_as_cupy(cp):
    # CuPy's ``_interval``: samples above ``upper_limit`` replaced, in order, by the
    # first accepted ones of a new draw of max(2 * rejected, 1024) words (model above)
    model = _Model(_xorwow_draws(7, 4))
    mx = 3 * 2 ** 30 - 1  # (a quarter of the words is rejected)
    upper = 2 ** 32 - 1 - 2 ** 32 % (mx + 1)
    sample = [w[0] for w in model.call(64, 1)]
    bad = [i for i, v in enumerate(sample) if v > upper]
    assert bad
    supplement = [w[0] for w in model.call(max(2 * len(bad), 1024), 1)]
    ok = [v for v in supplement if v <= upper]
    for i, v in zip(bad, ok):
        sample[i] = v
    rs = cp.random.RandomState(7)
    assert rs.randint(0, mx + 1, 64).get().tolist() == [v % (mx + 1) for v in sample]
    assert rs.random_sample(1).get().tolist() == [_double(*model.call(1, 2)[0])]


def test_float32_and_other_generators_still_draw(cp):
    rs = cp.random.RandomState(1234)
    x = rs.random_sample(5, dtype=numpy.float32).get()
    assert x.dtype == numpy.float32 and ((0 <= x) & (x < 1)).all()
    assert rs.randn(3, dtype=numpy.float32).get().dtype == numpy.float32
    from gpushare.cupy.cuda import curand
    rs = cp.random.RandomState(1, method=curand.CURAND_RNG_PSEUDO_PHILOX4_32_10)
    x = rs.random_sample(4).get()
    assert ((0 <= x) & (x < 1)).all()
