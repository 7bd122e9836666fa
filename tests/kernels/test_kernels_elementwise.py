import math

import numpy
import pytest

from gpushare_server.kernels import ElementwiseKernel, compiler_available

pytestmark = pytest.mark.skipif(
    not compiler_available(), reason='no C++ compiler (g++/c++/clang++) found')


_BS_PREAMBLE = r'''
__device__ inline T cnd(T d) {
  const T A1 = 0.31938153, A2 = -0.356563782, A3 = 1.781477937;
  const T A4 = -1.821255978, A5 = 1.330274429;
  const T RSQRT2PI = 0.39894228040143267793994605993438;
  T K = 1.0 / (1.0 + 0.2316419 * fabs(d));
  T c = RSQRT2PI * exp(-0.5 * d * d) *
        (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  if (d > 0) c = 1.0 - c;
  return c;
}
'''


def _bs_numpy(s, x, t, r, v):
    sqrt_t = numpy.sqrt(t)
    d1 = (numpy.log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t
    from math import erf
    cnd = numpy.vectorize(lambda d: 0.5 * (1 + erf(d / math.sqrt(2))))
    exp_rt = numpy.exp(-r * t)
    call = s * cnd(d1) - x * exp_rt * cnd(d2)
    put = x * exp_rt * (1 - cnd(d2)) - s * (1 - cnd(d1))
    return call, put


@pytest.mark.timeout(60)
def test_black_scholes():
    rng = numpy.random.default_rng(0)
    n = 5000
    s = rng.uniform(5, 30, n)
    x = rng.uniform(1, 100, n)
    t = rng.uniform(0.25, 10, n)
    k = ElementwiseKernel(
        'T s, T x, T t, T r, T v', 'T call, T put',
        '''
        const T sqrt_t = sqrt(t);
        const T d1 = (log(s / x) + (r + v * v / 2) * t) / (v * sqrt_t);
        const T d2 = d1 - v * sqrt_t;
        const T cnd_d1 = cnd(d1);
        const T cnd_d2 = cnd(d2);
        const T exp_rt = exp(-r * t);
        call = s * cnd_d1 - x * exp_rt * cnd_d2;
        put = x * exp_rt * (1 - cnd_d2) - s * (1 - cnd_d1);
        ''', 'black_scholes', preamble=_BS_PREAMBLE)
    call, put = k(s, x, t, 0.02, 0.3)
    ec, ep = _bs_numpy(s, x, t, 0.02, 0.3)
    assert call.dtype == numpy.float64 and call.shape == (n,)
    numpy.testing.assert_allclose(call, ec, atol=1e-5)
    numpy.testing.assert_allclose(put, ep, atol=1e-5)
    # float32 instance of the same kernel
    call32, _ = k(s.astype(numpy.float32), x.astype(numpy.float32),
                  t.astype(numpy.float32), 0.02, 0.3)
    assert call32.dtype == numpy.float32
    numpy.testing.assert_allclose(call32, ec, atol=2e-3)
    assert len(k._cached_codes) == 2


@pytest.mark.timeout(60)
def test_monte_carlo_paths_with_i_and_broadcast():
    # Each output element is one (path, step); uses `i` to derive a
    # counter-based random number and broadcast per-path parameters.
    n_paths, n_steps = 2000, 64
    s0 = numpy.linspace(50, 150, n_paths).reshape(n_paths, 1)
    mu = numpy.float64(0.05)
    sigma = numpy.full((1, n_steps), 0.2)
    out = numpy.empty((n_paths, n_steps))
    k = ElementwiseKernel(
        'T s0, T mu, T sigma, int32 n_steps', 'T logret',
        '''
        unsigned long long z = (unsigned long long)i * 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        T u = ((z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
        T g = normcdfinv(u);
        T dt = 1.0 / n_steps;
        logret = (mu - 0.5 * sigma * sigma) * dt + sigma * sqrt(dt) * g
                 + (i % n_steps == 0 ? log(s0) : 0);
        ''', 'mc_paths')
    k(s0, mu, sigma, n_steps, out)
    idx = numpy.arange(n_paths * n_steps, dtype=numpy.uint64)
    with numpy.errstate(over='ignore'):
        z = idx * numpy.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> numpy.uint64(30))) * numpy.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> numpy.uint64(27))) * numpy.uint64(0x94D049BB133111EB)
        z ^= z >> numpy.uint64(31)
    u = ((z >> numpy.uint64(11)).astype(numpy.float64) + 0.5) / 2.0 ** 53
    from statistics import NormalDist
    g = numpy.array([NormalDist().inv_cdf(v) for v in u[:4096]])
    dt = 1.0 / n_steps
    exp = (mu - 0.02) * dt + 0.2 * math.sqrt(dt) * g
    flat = out.reshape(-1)[:4096].copy()
    flat[::n_steps] -= numpy.log(s0.reshape(-1))[:4096 // n_steps]
    numpy.testing.assert_allclose(flat, exp, rtol=1e-9, atol=1e-12)
    paths = numpy.exp(numpy.cumsum(out, axis=1))
    assert paths.shape == (n_paths, n_steps)
    # E[S_T / S_0] = exp(mu T), T = 1
    assert abs(numpy.mean(paths[:, -1] / s0[:, 0]) - math.exp(0.05)) < 0.03


@pytest.mark.timeout(60)
def test_raw_and_size_and_scalars():
    n = 100
    a = numpy.random.uniform(-1, 1, n).astype(numpy.float32)
    b = numpy.random.uniform(-1, 1, n).astype(numpy.float32)
    k1 = ElementwiseKernel('T x, T y', 'T z', 'z = x + y', 'uk1')
    k2 = ElementwiseKernel('raw T x, raw T y', 'raw T z',
                           'z[i] = x[i] + y[i]', 'uk2')
    numpy.testing.assert_array_equal(k1(a, b), k2(a, b, size=n))
    for typ in (int, float, bool):
        dt = numpy.dtype(typ).type
        x = numpy.random.randint(0, 2, (4, 5)).astype(dt)
        numpy.testing.assert_array_equal(k1(x, typ(2)), x + dt(2))
    x = numpy.arange(24, dtype=numpy.int8).reshape(2, 3, 4)
    numpy.testing.assert_array_equal(k1(x, numpy.int8(-1)), x - 1)
    # strided / transposed / broadcast inputs and a strided output
    x = numpy.arange(24.).reshape(2, 3, 4)
    out = numpy.zeros((4, 3, 2))
    k1(x.transpose(2, 1, 0), numpy.arange(2.), out)
    numpy.testing.assert_array_equal(out, x.transpose(2, 1, 0) + numpy.arange(2.))
    # reverse raw indexing, _ind.size(), 0-d and empty
    rev = ElementwiseKernel('raw T x', 'T y', 'y = x[_ind.size() - i - 1]',
                            'rev')
    numpy.testing.assert_array_equal(rev(a, numpy.empty_like(a)), a[::-1])
    assert k1(numpy.float64(3), numpy.empty(())) is not None
    e = k1(numpy.empty((0, 3)), 1.0)
    assert e.shape == (0, 3)
    # no_return / return_tuple / block_size
    k3 = ElementwiseKernel('T x', 'T y', 'y = x * 2', 'k3', return_tuple=True)
    r = k3(a, block_size=1)
    assert isinstance(r, tuple) and len(r) == 1
    k4 = ElementwiseKernel('T x', 'T y', 'y = x * 2', 'k4', no_return=True)
    o = numpy.empty_like(a)
    assert k4(a, o) is None
    numpy.testing.assert_array_equal(o, a * 2)


@pytest.mark.timeout(60)
def test_complex_half_and_loop_prep():
    c = (numpy.arange(10) + 1j * numpy.arange(10)).astype(numpy.complex64)
    k = ElementwiseKernel('T x', 'T y', 'y = x * x + exp(x * T(0, 1)) + conj(x)',
                          'kc')
    numpy.testing.assert_allclose(k(c), c * c + numpy.exp(1j * c) + c.conj(),
                                  rtol=1e-5)
    h = numpy.arange(10, dtype=numpy.float16)
    kh = ElementwiseKernel('T x', 'T y', 'y = x * x + (T)0.5', 'kh')
    numpy.testing.assert_array_equal(kh(h), h * h + numpy.float16(0.5))
    kp = ElementwiseKernel('T x', 'T y', 'y = x * scale', 'kp',
                           loop_prep='const T scale = 3;', after_loop='')
    numpy.testing.assert_array_equal(kp(numpy.arange(5.)), numpy.arange(5.) * 3)


@pytest.mark.timeout(60)
def test_error_messages():
    with pytest.raises(ValueError, match='Invalid kernel name'):
        ElementwiseKernel('T x', '', '', '1')
    with pytest.raises(ValueError, match="Can not use 'i' as a parameter name"):
        ElementwiseKernel('T i', 'T y', 'y = i', 'k')
    with pytest.raises(Exception, match='Unknown keyword "foo"'):
        ElementwiseKernel('foo T x', 'T y', 'y = x', 'k')
    with pytest.raises(Exception, match='^Syntax error: x$'):
        ElementwiseKernel('x', 'T y', 'y = x', 'k')
    with pytest.raises(TypeError, match="data type 'float33' not understood"):
        ElementwiseKernel('float33 x', 'T y', 'y = x', 'k')
    f = ElementwiseKernel('T x', 'T y', 'y += x', 'k')
    with pytest.raises(ValueError, match='Out shape is mismatched'):
        f(numpy.arange(12).reshape(3, 4), numpy.arange(4))
    arr = numpy.array([1, 2], dtype='float32')
    k = ElementwiseKernel('raw float32 x0, raw float32 x1', 'float32 y0', '',
                          'kernel')
    k(arr, arr, arr)
    with pytest.raises(ValueError, match=r"^Specified 'size' can"):
        k(arr, arr, arr, size=2)
    kr = ElementwiseKernel('raw float32 x0, raw float32 x1', 'raw float32 y0',
                           '', 'kernel')
    kr(arr, arr, size=2)
    with pytest.raises(ValueError, match=r'^Loop size is undecided\.'):
        kr(arr, arr)
    k2 = ElementwiseKernel('T x, T y', 'T z', 'z = x + y')
    with pytest.raises(TypeError, match="Wrong number of arguments for "
                       "'kernel'. It must be either 2 or 3 \\(with outputs\\), "
                       "but given 4."):
        k2(arr, 1, 2, 3)
    with pytest.raises(TypeError, match="Wrong arguments {'foo': 3}"):
        k2(arr, 1, foo=3)
    with pytest.raises(ValueError, match='block_size must be greater than zero'):
        k2(arr, 1, block_size=0)
    with pytest.raises(TypeError, match='Type is mismatched. y '):
        k2(arr, numpy.arange(2.))
    with pytest.raises(ValueError, match='Loop size is undecided'):  # (CuPy broadcasts
        k2(1, 2)                                                      # before typing)
    with pytest.raises(TypeError, match='Unsupported type'):
        k2(arr, 'a')
    k3 = ElementwiseKernel('T x, int32 z', 'T y', 'y = x', 'k3')
    with pytest.raises(TypeError, match='Type is mismatched. z'):
        k3(arr, numpy.arange(2))
    with pytest.raises(ValueError, match='operands could not be broadcast'):
        k2(numpy.ones(3), numpy.ones(4))
