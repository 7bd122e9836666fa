"""Monte Carlo: option pricing and pi with cupy.random's Generator and legacy
RandomState, custom ElementwiseKernel/ReductionKernel types and cupy.fuse, pinned host
buffers with asynchronous copies on a stream, DLPack and __cuda_array_interface__ round
trips, memory-pool statistics and device attributes.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import math
import numpy, cupy, cupyx

# reproducibility: the same seed gives the same stream, different seeds do not
g1 = cupy.random.default_rng(1234)
g2 = cupy.random.default_rng(1234)
a, b = g1.standard_normal(1000), g2.standard_normal(1000)
assert (a == b).all() and a.dtype == numpy.float64
assert not (cupy.random.default_rng(1).random(10) == cupy.random.default_rng(2).random(10)).all()
f32 = g1.random(10, dtype=cupy.float32)
assert f32.dtype == numpy.float32 and bool(((f32 >= 0) & (f32 < 1)).all())
rs = cupy.random.RandomState(7)
u1 = rs.uniform(size=5)
rs.seed(7)
assert (rs.uniform(size=5) == u1).all()
cupy.random.seed(99)
r1 = cupy.random.rand(3)
cupy.random.seed(99)
assert (cupy.random.rand(3) == r1).all()

# pi by dart throwing with a fused kernel
@cupy.fuse()
def inside(x, y):
    return (x * x + y * y <= 1.0).astype(cupy.float32)

N = 1_000_000
gen = cupy.random.default_rng(42)
x, y = gen.random(N), gen.random(N)
pi = 4 * float(inside(x, y).sum()) / N
assert abs(pi - math.pi) < 5 * 4 * math.sqrt(math.pi / 4 * (1 - math.pi / 4) / N), pi

# European call by Black-Scholes Monte Carlo, in an ElementwiseKernel
payoff = cupy.ElementwiseKernel(
    'T z, float64 s0, float64 k, float64 r, float64 sigma, float64 t', 'T p',
    '''
    double st = s0 * exp((r - 0.5 * sigma * sigma) * t + sigma * sqrt(t) * z);
    p = exp(-r * t) * max(st - k, 0.0);
    ''', 'bs_payoff')
s0, k, r, sigma, t = 100.0, 105.0, 0.02, 0.25, 1.0
z = cupy.random.default_rng(0).standard_normal(400_000)
p = payoff(z, s0, k, r, sigma, t)
price, stderr = float(p.mean()), float(p.std() / math.sqrt(z.size))
d1 = (math.log(s0 / k) + (r + 0.5 * sigma ** 2) * t) / (sigma * math.sqrt(t))
d2 = d1 - sigma * math.sqrt(t)
cdf = lambda v: 0.5 * (1 + math.erf(v / math.sqrt(2)))
exact = s0 * cdf(d1) - k * math.exp(-r * t) * cdf(d2)
assert abs(price - exact) < 5 * stderr, (price, exact, stderr)
pz = payoff(z, s0, k, r, sigma, t)
numpy.testing.assert_allclose(pz.get(), p.get())

# a ReductionKernel with a custom output type: sum of squares in float64 from float32
sumsq = cupy.ReductionKernel('T x', 'float64 y', 'double(x) * double(x)', 'a + b',
                             'y = a', '0', 'sumsq')
v = cupy.random.default_rng(3).random(10000, dtype=cupy.float32)
ss = sumsq(v)
assert ss.dtype == numpy.float64 and ss.shape == ()
numpy.testing.assert_allclose(float(ss), float((v.get().astype(numpy.float64) ** 2).sum()), rtol=1e-12)
rows = sumsq(v.reshape(100, 100), axis=1, keepdims=True)
assert rows.shape == (100, 1)
numpy.testing.assert_allclose(rows.get().ravel(), (v.get().astype(numpy.float64) ** 2).reshape(100, 100).sum(1), rtol=1e-12)

# Generator distributions against their moments
gen = cupy.random.default_rng(2024)
ints = gen.integers(0, 10, size=100000)
assert ints.dtype == numpy.int64 and int(ints.min()) == 0 and int(ints.max()) == 9
e = gen.exponential(2.0, size=200000)
assert abs(float(e.mean()) - 2.0) < 0.05
pois = gen.poisson(3.0, size=200000)
assert abs(float(pois.mean()) - 3.0) < 0.05 and abs(float(pois.var()) - 3.0) < 0.1
perm = cupy.random.RandomState(1).permutation(10)  # (CuPy's Generator has none)
assert sorted(perm.tolist()) == list(range(10))
assert not hasattr(gen, "permutation")

# pinned memory and asynchronous copies on a stream
stream = cupy.cuda.Stream(non_blocking=True)
pinned = cupyx.empty_pinned((N,), dtype=numpy.float32)
out = cupyx.zeros_pinned((N,), dtype=numpy.float32)
pinned[:] = numpy.arange(N, dtype=numpy.float32)
with stream:
    d = cupy.empty(N, dtype=cupy.float32)
    d.set(pinned)
    d *= 2
    cupy.asnumpy(d, out=out, stream=stream)
start, end = cupy.cuda.Event(), cupy.cuda.Event()
start.record(stream)
end.record(stream)
stream.synchronize()
assert cupy.cuda.get_elapsed_time(start, end) >= 0
assert (out == 2 * pinned).all()

# DLPack and __cuda_array_interface__
src = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)
back = cupy.from_dlpack(src)
back[0, 0] = 100
assert float(src[0, 0]) == 100  # shares memory
cai = src.__cuda_array_interface__
assert cai["shape"] == (3, 4) and cai["typestr"] == "<f4" and cai["version"] == 3
assert cai["data"][0] == src.data.ptr
view = cupy.asarray(src.T)
assert view.flags.f_contiguous and not view.flags.c_contiguous

# memory pool statistics
pool = cupy.get_default_memory_pool()
before = pool.used_bytes()
blob = cupy.empty(1 << 20, dtype=cupy.uint8)
assert pool.used_bytes() >= before + (1 << 20)
del blob
assert pool.used_bytes() <= before + 512
pool.free_all_blocks()
assert pool.total_bytes() >= pool.used_bytes()
dev = cupy.cuda.Device()
attrs = dev.attributes
assert attrs["MaxThreadsPerBlock"] >= 256 and attrs["WarpSize"] == 32
free, total = cupy.cuda.runtime.memGetInfo()
assert 0 < free <= total
assert dev.compute_capability.isdigit()

# mistakes
try:
    gen.integers(5, 2)
except ValueError as e:
    # cupy/random/_generator_api.pyx: Generator.integers
    assert str(e) == "low >= high", str(e)
else:
    raise AssertionError("an empty range not refused")
try:
    payoff(z, s0, k, r, sigma)
except TypeError as e:
    # cupy/_core/_kernel.pyx: ElementwiseKernel.__call__
    assert str(e) == ("Wrong number of arguments for 'bs_payoff'. It must be either 6 or 7 "
                      "(with outputs), but given 5."), str(e)
else:
    raise AssertionError("a missing argument not refused")
try:
    gen.random(5, out=cupy.empty(5, dtype=cupy.float32))
except TypeError as e:
    # cupy/random/_generator_api.pyx: Generator._check_output_array
    assert str(e) == ("Supplied output array has the wrong type. Expected float64, "
                      "got float32"), str(e)
else:
    raise AssertionError("an output of the wrong type not refused")
print("montecarlo OK")
