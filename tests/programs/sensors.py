"""Sensor statistics: a week of readings from several stations with dropouts (NaNs)
summarised with nanmean/nanstd/nanmedian/nanpercentile, robust z-scores from quantiles
of several methods, weighted covariance and correlation, a 3-D histogram of joint
conditions, the k largest readings by partition/argpartition, per-station totals and
peaks accumulated with cupyx.scatter_add/scatter_max, vectors normalised with
cupyx.rsqrt, and the checks written with cupy.testing, each against NumPy; and the
mistakes users make (a percentile over 100, an unsupported quantile method, a kth out of
bounds, bins of the wrong dimension), with the errors CuPy raises.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy, cupyx
from cupy import testing

rs = numpy.random.RandomState(21)
stations, hours = 6, 24 * 7
temp_h = 15 + 8 * numpy.sin(numpy.arange(hours) * 2 * numpy.pi / 24)[None, :] + rs.randn(stations, hours)
temp_h[rs.rand(stations, hours) < 0.05] = numpy.nan
temp_h[2, 30:40] = numpy.nan
temp = cupy.asarray(temp_h)

# NaN-aware summaries per station
testing.assert_allclose(cupy.nanmean(temp, axis=1), numpy.nanmean(temp_h, axis=1), rtol=1e-12)
testing.assert_allclose(cupy.nanstd(temp, axis=1, ddof=1), numpy.nanstd(temp_h, axis=1, ddof=1), rtol=1e-12)
testing.assert_allclose(cupy.nanmedian(temp, axis=1), numpy.nanmedian(temp_h, axis=1), rtol=1e-12)
testing.assert_allclose(cupy.nanmax(temp, axis=1), numpy.nanmax(temp_h, axis=1))
testing.assert_array_equal(cupy.isnan(temp).sum(axis=1), numpy.isnan(temp_h).sum(axis=1))
assert cupy.nanargmax(temp[0]) == numpy.nanargmax(temp_h[0])
filled = cupy.where(cupy.isnan(temp), cupy.nanmean(temp, axis=1, keepdims=True), temp)
filled_h = numpy.where(numpy.isnan(temp_h), numpy.nanmean(temp_h, axis=1, keepdims=True), temp_h)
testing.assert_allclose(filled, filled_h, rtol=1e-12)

# quantiles: robust z-scores, several methods, several q at once
q = cupy.asarray([0.05, 0.25, 0.5, 0.75, 0.95])
for method in ("linear", "lower", "higher", "midpoint", "nearest"):
    testing.assert_allclose(cupy.quantile(filled, q, axis=1, method=method),
                            numpy.quantile(filled_h, q.get(), axis=1, method=method), rtol=1e-12, err_msg=method)
pc = cupy.percentile(filled, [10, 90], axis=1, keepdims=True)
assert pc.shape == (2, stations, 1)
med = cupy.median(filled, axis=1, keepdims=True)
iqr = cupy.subtract(*cupy.percentile(filled, [75, 25], axis=1, keepdims=True))
robust = (filled - med) / (iqr / 1.349)
robust_h = (filled_h - numpy.median(filled_h, axis=1, keepdims=True)) / (
    numpy.subtract(*numpy.percentile(filled_h, [75, 25], axis=1, keepdims=True)) / 1.349)
testing.assert_allclose(robust, robust_h, rtol=1e-10)
try:
    cupy.nanpercentile(temp, 50, axis=1)  # (CuPy 14 has none: cupy/__init__.py)
except AttributeError as e:
    assert str(e) == "module 'cupy' has no attribute 'nanpercentile'", str(e)
else:
    raise AssertionError("cupy.nanpercentile found")
f32 = cupy.percentile(filled.astype(cupy.float32), 50, axis=1)
assert f32.dtype == numpy.float32

# covariance and correlation, with frequency and reliability weights
fw = cupy.asarray(rs.randint(1, 4, hours))
aw = cupy.asarray(rs.rand(hours))
testing.assert_allclose(cupy.cov(filled), numpy.cov(filled_h), rtol=1e-10)
# CuPy's weighted cov centres the rows on their plain means, not the weighted ones
# (cupy/_statistics/correlation.py: cov, X -= X.mean(axis=1)[:, None]), so its answer is
# NumPy's normalisation around another centre
w_h = fw.get() * aw.get()
fact = w_h.sum() - (w_h * aw.get()).sum() / w_h.sum()
Xc = filled_h - filled_h.mean(axis=1, keepdims=True)
testing.assert_allclose(cupy.cov(filled, fweights=fw, aweights=aw), Xc @ (Xc * w_h).T / fact, rtol=1e-10)
testing.assert_allclose(cupy.cov(filled, aweights=cupy.ones(hours)), numpy.cov(filled_h), rtol=1e-10)
corr = cupy.corrcoef(filled)
testing.assert_allclose(corr, numpy.corrcoef(filled_h), rtol=1e-10)
testing.assert_allclose(cupy.diag(corr), numpy.ones(stations), rtol=1e-12)
assert cupy.cov(filled[0], filled[1]).shape == (2, 2)

# a joint histogram of (temperature, hour of day, station)
hour_of_day = cupy.tile(cupy.arange(hours) % 24, stations).astype(cupy.float64)
sid = cupy.repeat(cupy.arange(stations), hours).astype(cupy.float64)
sample = cupy.stack([filled.ravel(), hour_of_day, sid], axis=1)
H, edges = cupy.histogramdd(sample, bins=(8, 4, stations), range=[(0, 32), (0, 24), (0, stations)])
H_h, edges_h = numpy.histogramdd(sample.get(), bins=(8, 4, stations), range=[(0, 32), (0, 24), (0, stations)])
testing.assert_array_equal(H, H_h)
for e, e_h in zip(edges, edges_h):
    testing.assert_allclose(e, e_h)
assert int(H.sum()) == int(((filled >= 0) & (filled <= 32)).sum())
Hd, _ = cupy.histogramdd(sample[:, :2], bins=[cupy.linspace(0, 32, 5), cupy.asarray([0.0, 6, 12, 18, 24])],
                          density=True)
Hd_h, _ = numpy.histogramdd(sample.get()[:, :2], bins=[numpy.linspace(0, 32, 5), [0.0, 6, 12, 18, 24]],
                            density=True)
testing.assert_allclose(Hd, Hd_h, rtol=1e-12)

# the k hottest hours overall and per station
flat = filled.ravel()
k = 10
top = cupy.partition(flat, -k)[-k:]
testing.assert_allclose(cupy.sort(top), numpy.sort(filled_h.ravel())[-k:])
idx = cupy.argpartition(filled, -3, axis=1)[:, -3:]
top3 = cupy.take_along_axis(filled, idx, axis=1)
testing.assert_allclose(cupy.sort(top3, axis=1), numpy.sort(filled_h, axis=1)[:, -3:])
low = cupy.partition(filled, (0, 1), axis=1)[:, :2]
testing.assert_allclose(low, numpy.sort(filled_h, axis=1)[:, :2])

# per-station accumulation by scatter
readings = cupy.asarray(rs.rand(500) * 10)
owner = cupy.asarray(rs.randint(0, stations, 500))
totals = cupy.zeros(stations)
cupyx.scatter_add(totals, owner, readings)
testing.assert_allclose(totals, numpy.bincount(owner.get(), readings.get(), minlength=stations), rtol=1e-12)
peaks = cupy.full(stations, -cupy.inf)
cupyx.scatter_max(peaks, owner, readings)
peaks_h = numpy.full(stations, -numpy.inf)
numpy.maximum.at(peaks_h, owner.get(), readings.get())
# CuPy's double atomicMax compares with fmaxf (cupy/_core/include/cupy/atomics.cuh), so
# each float64 peak comes back rounded to float32
testing.assert_array_equal(peaks, peaks_h.astype(numpy.float32).astype(numpy.float64))
grid = cupy.zeros((stations, 24), dtype=cupy.float32)
cupyx.scatter_add(grid, (owner, cupy.asarray(rs.randint(0, 24, 500))), readings.astype(cupy.float32))
assert grid.dtype == numpy.float32 and abs(float(grid.sum()) - float(readings.sum())) < 1e-2

# unit vectors with rsqrt
vec = cupy.asarray(rs.randn(100, 3))
unit = vec * cupyx.rsqrt((vec ** 2).sum(axis=1, keepdims=True))
testing.assert_allclose(cupy.linalg.norm(unit, axis=1), numpy.ones(100), rtol=1e-12)
assert cupyx.rsqrt(cupy.asarray([4.0], dtype=cupy.float32)).dtype == numpy.float32
testing.assert_array_almost_equal(cupyx.rsqrt(cupy.asarray([0.25, 16.0])), [2.0, 0.25], decimal=12)
testing.assert_array_less(cupy.zeros(3), cupy.ones(3))

# cupy.testing's failures are NumPy's AssertionErrors
try:
    testing.assert_array_equal(cupy.arange(3), cupy.asarray([0, 1, 3]))
except AssertionError as e:
    assert "Mismatched elements: 1 / 3" in str(e), str(e)
else:
    raise AssertionError("unequal arrays passed")

# the mistakes
try:
    cupy.percentile(filled, 150)
except ValueError as e:
    # cupy/_statistics/order.py: percentile
    assert str(e) == "Percentiles must be in the range [0, 100]", str(e)
else:
    raise AssertionError("a percentile over 100 taken")
try:
    cupy.quantile(filled, 0.5, method="median_unbiased")
except ValueError as e:
    # cupy/_statistics/order.py: _quantile_unchecked
    assert str(e) == "'median_unbiased' method is not yet supported. Please use any other method.", str(e)
else:
    raise AssertionError("an unsupported method taken")
try:
    cupy.partition(flat, flat.size)
except ValueError as e:
    # cupy/_core/_routines_sorting.pyx: _ndarray_partition
    assert str(e) == f"kth(={flat.size}) out of bounds {flat.size}", str(e)
else:
    raise AssertionError("kth out of bounds taken")
try:
    cupy.histogramdd(sample, bins=(8, 4))
except ValueError as e:
    # cupy/_statistics/histogram.py: histogramdd (its words, two spaces and all)
    assert str(e) == "The dimension of bins must be equal to the dimension of the  sample x.", str(e)
else:
    raise AssertionError("bins of the wrong dimension taken")
print("sensors OK")
