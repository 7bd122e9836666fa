"""Special functions and statistics: a Poisson/negative-binomial log-likelihood with
gammaln and xlogy, a Bayesian update with the regularised incomplete beta function,
normal tail probabilities with ndtr/log_ndtr/ndtri, an erf/erfinv round trip, Bessel
functions for a von Mises density and a circular-membrane eigenmode, a mixture's
log-density with logsumexp (weights, signs), softmax/log_softmax over a batch of logits,
and cupyx.scipy.stats (entropy, KL divergence, zscore with NaNs omitted, zmap, trim_mean,
boxcox_llf), each checked against SciPy on the host, with the output dtypes CuPy's
ufunc tables give; and the mistakes users make (a NumPy array into a CuPy ufunc, mismatched
distributions, a trimming proportion over one half, an unknown nan_policy).

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
from cupyx.scipy import special, stats
from scipy import special as ssp, stats as sst

rs = numpy.random.RandomState(3)

# count data: Poisson and negative-binomial log-likelihoods of a rate grid
counts_h = rs.poisson(4.0, size=400)
counts = cupy.asarray(counts_h)
lam = cupy.linspace(0.5, 10, 96)
ll = (special.xlogy(counts[None, :], lam[:, None]) - lam[:, None]
      - special.gammaln(counts[None, :] + 1)).sum(axis=1)
lam_h = numpy.linspace(0.5, 10, 96)
ll_h = (ssp.xlogy(counts_h[None, :], lam_h[:, None]) - lam_h[:, None]
        - ssp.gammaln(counts_h[None, :] + 1)).sum(axis=1)
numpy.testing.assert_allclose(ll.get(), ll_h, rtol=1e-12)
assert abs(float(lam[int(cupy.argmax(ll))]) - counts_h.mean()) < 0.1
r, p = 3.0, 0.4
nb = (special.gammaln(counts + r) - special.gammaln(r) - special.gammaln(counts + 1)
      + r * cupy.log(p) + special.xlog1py(counts, -p))
nb_h = sst.nbinom.logpmf(counts_h, r, p)
numpy.testing.assert_allclose(nb.get(), nb_h, rtol=1e-10)
# gammaln on an integer array: CuPy's table has 'l->d' (cupyx/scipy/special/_gammaln.py)
assert special.gammaln(counts).dtype == numpy.float64
g32 = special.gamma(cupy.asarray([0.5, 1.5, 4.0, 7.25], dtype=cupy.float32))
assert g32.dtype == numpy.float32
numpy.testing.assert_allclose(g32.get(), ssp.gamma(numpy.float32([0.5, 1.5, 4.0, 7.25])), rtol=1e-5)
dg = special.digamma(lam)
numpy.testing.assert_allclose(dg.get(), ssp.digamma(lam_h), rtol=1e-12)
# CuPy's polygamma wants n as an array: of a Python int, its broadcast_arrays keeps the
# int, ``n == 0`` is a bool and cupy.where reads its ``.astype`` (AttributeError)
numpy.testing.assert_allclose(special.polygamma(cupy.asarray(1), lam).get(), ssp.polygamma(1, lam_h), rtol=1e-10)
try:
    special.polygamma(1, lam)
except AttributeError as e:
    assert "'bool' object has no attribute 'astype'" in str(e), str(e)
else:
    raise AssertionError("CuPy's polygamma of a Python int n raises")

# a Beta-Binomial update: posterior probability that the rate exceeds 0.5
succ = cupy.asarray([3, 7, 12, 30, 55])
trials = cupy.asarray([10, 10, 20, 50, 100])
a_post, b_post = 1 + succ, 1 + trials - succ
tail = 1 - special.betainc(a_post, b_post, 0.5)
tail_h = 1 - ssp.betainc(1 + succ.get(), 1 + (trials - succ).get(), 0.5)
numpy.testing.assert_allclose(tail.get(), tail_h, rtol=1e-10, atol=1e-14)
numpy.testing.assert_allclose(special.betaln(a_post, b_post).get(),
                              ssp.betaln(a_post.get(), b_post.get()), rtol=1e-12)

# normal tails and quantiles
z = cupy.linspace(-8, 8, 81)
z_h = numpy.linspace(-8, 8, 81)
numpy.testing.assert_allclose(special.ndtr(z).get(), ssp.ndtr(z_h), rtol=1e-12, atol=1e-300)
numpy.testing.assert_allclose(special.log_ndtr(z).get(), ssp.log_ndtr(z_h), rtol=1e-12)
q = cupy.asarray([1e-10, 0.025, 0.5, 0.975, 1 - 1e-10])
numpy.testing.assert_allclose(special.ndtri(q).get(), ssp.ndtri(q.get()), rtol=1e-9)
u = cupy.linspace(-0.999, 0.999, 101)
numpy.testing.assert_allclose(special.erf(special.erfinv(u)).get(), u.get(), rtol=1e-12, atol=1e-15)
numpy.testing.assert_allclose(special.erfc(z).get(), ssp.erfc(z_h), rtol=1e-12, atol=1e-300)
numpy.testing.assert_allclose(special.erfcx(z[40:]).get(), ssp.erfcx(z_h[40:]), rtol=1e-12)
# float16 in: CuPy's erf computes 'e->d' (cupyx/scipy/special/_erf.py), SciPy's gives float32
h16 = special.erf(cupy.asarray([0.5, 1.0], dtype=cupy.float16))
assert h16.dtype == numpy.float64, h16.dtype
numpy.testing.assert_allclose(h16.get(), ssp.erf([0.5, 1.0]), rtol=1e-12)

# Bessel functions: a von Mises density normalised by i0e, and J0's zeros for a drum
theta = cupy.linspace(-numpy.pi, numpy.pi, 721)
kappa = 4.0
vm = cupy.exp(kappa * (cupy.cos(theta) - 1)) / (2 * numpy.pi * special.i0e(kappa))
vm_h = sst.vonmises.pdf(numpy.linspace(-numpy.pi, numpy.pi, 721), kappa)
numpy.testing.assert_allclose(vm.get(), vm_h, rtol=1e-10)
assert abs(float(cupy.trapezoid(vm, theta)) - 1) < 1e-6
rr = cupy.linspace(0, 6, 6001)
j0 = special.j0(rr)
first_zero = float(rr[int(cupy.argmax(j0 < 0))])
assert abs(first_zero - 2.404825557695773) < 1e-3
for name in ("j0", "j1", "y0", "y1", "i0", "i1", "i0e", "i1e", "k0", "k1", "k0e", "k1e"):
    xs = rr[1:]
    numpy.testing.assert_allclose(getattr(special, name)(xs).get(), getattr(ssp, name)(xs.get()),
                                  rtol=1e-9, atol=1e-15, err_msg=name)
numpy.testing.assert_allclose(special.yn(3, rr[1:]).get(), ssp.yn(3, rr[1:].get()), rtol=1e-9)
# integer arguments: 'l->d'
assert special.j1(cupy.arange(5)).dtype == numpy.float64

# a two-component mixture's log-density, with weights and a signed difference
xgrid = cupy.linspace(-5, 5, 201)
comp = cupy.stack([-0.5 * (xgrid + 1.5) ** 2, -0.5 * ((xgrid - 2) / 0.7) ** 2 - numpy.log(0.7)]) \
    - 0.5 * numpy.log(2 * numpy.pi)
w = cupy.asarray([[0.3], [0.7]])
logmix = special.logsumexp(comp, axis=0, b=w)
comp_h, w_h = comp.get(), w.get()
numpy.testing.assert_allclose(logmix.get(), ssp.logsumexp(comp_h, axis=0, b=w_h), rtol=1e-12)
diff, sign = special.logsumexp(comp, axis=0, b=cupy.asarray([[1.0], [-1.0]]), return_sign=True)
diff_h, sign_h = ssp.logsumexp(comp_h, axis=0, b=numpy.array([[1.0], [-1.0]]), return_sign=True)
numpy.testing.assert_allclose(diff.get(), diff_h, rtol=1e-10)
assert (sign.get() == sign_h).all()
ints = special.logsumexp(cupy.arange(5))  # integers are summed in float64
assert ints.dtype == numpy.float64 and abs(float(ints) - ssp.logsumexp(numpy.arange(5))) < 1e-12

# classification: softmax over a batch of float32 logits
logits_h = (rs.randn(64, 10) * 5).astype(numpy.float32)
logits = cupy.asarray(logits_h)
sm = special.softmax(logits, axis=1)
lsm = special.log_softmax(logits, axis=1)
assert sm.dtype == numpy.float32 and lsm.dtype == numpy.float32
numpy.testing.assert_allclose(sm.get(), ssp.softmax(logits_h, axis=1), rtol=1e-5, atol=1e-7)
numpy.testing.assert_allclose(lsm.get(), ssp.log_softmax(logits_h, axis=1), rtol=1e-5, atol=1e-5)
numpy.testing.assert_allclose(sm.sum(axis=1).get(), 1, rtol=1e-5)
p_bin = special.expit(logits[:, 0])
numpy.testing.assert_allclose(special.logit(p_bin).get(), logits_h[:, 0], rtol=1e-3, atol=1e-3)
numpy.testing.assert_allclose(special.log_expit(logits[:, 0]).get(), ssp.log_expit(logits_h[:, 0]),
                              rtol=1e-5, atol=1e-6)

# distributions: entropy and KL divergence along an axis, in bits
pk_h = rs.rand(5, 8)
qk_h = rs.rand(5, 8)
pk, qk = cupy.asarray(pk_h), cupy.asarray(qk_h)
numpy.testing.assert_allclose(stats.entropy(pk, axis=1, base=2).get(), sst.entropy(pk_h, axis=1, base=2),
                              rtol=1e-12)
numpy.testing.assert_allclose(stats.entropy(pk, qk, axis=1).get(), sst.entropy(pk_h, qk_h, axis=1),
                              rtol=1e-12)
# CuPy's entropy normalises float arrays in place (cupyx/scipy/stats/_distributions.py:
# _normalize, x /= x_sum after astype(copy=False)): pk and qk now sum to one per row
numpy.testing.assert_allclose(pk.sum(axis=1).get(), 1, rtol=1e-12)
numpy.testing.assert_allclose(qk.get(), qk_h / qk_h.sum(axis=1, keepdims=True), rtol=1e-12)
pk_h, qk_h = pk_h / pk_h.sum(axis=1, keepdims=True), qk_h / qk_h.sum(axis=1, keepdims=True)
numpy.testing.assert_allclose(special.kl_div(pk, qk).get(), ssp.kl_div(pk_h, qk_h), rtol=1e-12)
numpy.testing.assert_allclose(special.rel_entr(pk, qk).get(), ssp.rel_entr(pk_h, qk_h), rtol=1e-12)
counts_pk = cupy.asarray([[3, 1, 0], [2, 2, 4]])  # integers: a float64 copy, the counts kept
numpy.testing.assert_allclose(stats.entropy(counts_pk, axis=1).get(),
                              sst.entropy(counts_pk.get(), axis=1), rtol=1e-12)
assert counts_pk.get().tolist() == [[3, 1, 0], [2, 2, 4]]

# standardising measurements with gaps
meas_h = rs.randn(50, 4) * [1, 10, 100, 0.1] + [0, 5, -3, 1]
meas_h[[3, 17, 41], [0, 2, 2]] = numpy.nan
meas = cupy.asarray(meas_h)
zs = stats.zscore(meas, axis=0, nan_policy="omit")
numpy.testing.assert_allclose(zs.get(), sst.zscore(meas_h, axis=0, nan_policy="omit"), rtol=1e-10)
assert numpy.isnan(zs.get()[[3, 17, 41], [0, 2, 2]]).all()
zp = stats.zscore(meas, axis=0)  # propagate: the columns with a NaN are NaN
assert numpy.isnan(zp.get()[:, 0]).all() and not numpy.isnan(zp.get()[:, 1]).any()
ref = cupy.asarray(rs.randn(30, 4))
numpy.testing.assert_allclose(stats.zmap(meas[:, 1], ref[:, 1], ddof=1).get(),
                              sst.zmap(meas_h[:, 1], ref.get()[:, 1], ddof=1), rtol=1e-10)
numpy.testing.assert_allclose(stats.trim_mean(meas[:, 1:2], 0.1).get(),
                              sst.trim_mean(meas_h[:, 1:2], 0.1), rtol=1e-12)
pos_h = rs.gamma(2.0, 1.5, size=200)
pos = cupy.asarray(pos_h)
lmb = cupy.linspace(-1, 2, 31)
llf = cupy.asarray([float(stats.boxcox_llf(float(l), pos)) for l in lmb.get()])
llf_h = numpy.array([sst.boxcox_llf(l, pos_h) for l in numpy.linspace(-1, 2, 31)])
numpy.testing.assert_allclose(llf.get(), llf_h, rtol=1e-10)
numpy.testing.assert_allclose(special.boxcox(pos, 0.25).get(), ssp.boxcox(pos_h, 0.25), rtol=1e-12)

# the mistakes
try:
    special.erf(numpy.linspace(0, 1, 5))
except TypeError as e:
    # cupy/_core/_scalar.pyx: CScalar of a NumPy array
    assert str(e) == "Unsupported type <class 'numpy.ndarray'>", str(e)
else:
    raise AssertionError("a NumPy array taken by a CuPy ufunc")
try:
    stats.entropy(pk, qk[:, :4])
except ValueError as e:
    # cupyx/scipy/stats/_distributions.py: entropy
    assert str(e) == "qk and pk must have same shape.", str(e)
else:
    raise AssertionError("distributions of different shapes not refused")
try:
    stats.trim_mean(meas, 0.6)
except ValueError as e:
    # cupyx/scipy/stats/_stats.py: trim_mean
    assert str(e) == "Proportion too big.", str(e)
else:
    raise AssertionError("a proportion over one half not refused")
try:
    stats.zscore(meas, nan_policy="ignore")
except ValueError as e:
    # cupyx/scipy/stats/_stats_py.py: zmap
    assert str(e) == "nan_policy must be one of {'propagate', 'raise', 'omit'}", str(e)
else:
    raise AssertionError("an unknown nan_policy not refused")
try:
    stats.zscore(meas, nan_policy="raise")
except ValueError as e:
    assert str(e) == "The input contains nan values", str(e)
else:
    raise AssertionError("NaNs not refused under nan_policy='raise'")
print("special_stats OK")
