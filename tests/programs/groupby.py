"""Tabular data processing: a group-by (unique with inverse and counts, argsort,
searchsorted, cumsum segment sums, bincount), boolean filtering, lexsort, top-k per
group with take_along_axis, a join by searchsorted, percentiles and a rolling mean, each
checked against NumPy.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy

rs = numpy.random.RandomState(7)
n = 5000
store_h = rs.randint(0, 37, n).astype(numpy.int32)
day_h = rs.randint(0, 30, n).astype(numpy.int16)
price_h = numpy.round(rs.gamma(2.0, 10.0, n), 2)
qty_h = rs.randint(1, 9, n).astype(numpy.int64)
store, day, price, qty = map(cupy.asarray, (store_h, day_h, price_h, qty_h))
revenue = price * qty
revenue_h = price_h * qty_h

# group-by store: unique, inverse, counts
keys, inv, counts = cupy.unique(store, return_inverse=True, return_counts=True)
keys_h, inv_h, counts_h = numpy.unique(store_h, return_inverse=True, return_counts=True)
assert keys.dtype == numpy.int32 and counts.dtype == numpy.int64 and inv.dtype == numpy.int64
assert (keys.get() == keys_h).all() and (counts.get() == counts_h).all() and (inv.get() == inv_h).all()
sums = cupy.bincount(inv, weights=revenue)
sums_h = numpy.bincount(inv_h, weights=revenue_h)
numpy.testing.assert_allclose(sums.get(), sums_h, rtol=1e-12)

# the same sums by sort + cumsum + segment boundaries
order = cupy.argsort(store, kind="stable")
s_sorted = store[order]
r_sorted = revenue[order]
bounds = cupy.searchsorted(s_sorted, keys, side="right")
csum = cupy.concatenate([cupy.zeros(1), cupy.cumsum(r_sorted)])
seg = csum[bounds] - csum[cupy.concatenate([cupy.zeros(1, dtype=bounds.dtype), bounds[:-1]])]
numpy.testing.assert_allclose(seg.get(), sums_h, rtol=1e-9)
starts = cupy.flatnonzero(cupy.diff(s_sorted, prepend=-1))
assert (starts.get() == numpy.flatnonzero(numpy.diff(store_h[numpy.argsort(store_h, kind="stable")], prepend=-1))).all()
means = cupy.add.reduceat(r_sorted, starts) / counts
numpy.testing.assert_allclose(means.get(), sums_h / counts_h, rtol=1e-9)

# filters
big = revenue > 100
assert int(big.sum()) == int((revenue_h > 100).sum())
assert (cupy.compress(big, store).get() == store_h[revenue_h > 100]).all()
weekend = (day % 7 == 5) | (day % 7 == 6)
numpy.testing.assert_allclose(float(revenue[weekend & big].mean()), revenue_h[((day_h % 7 == 5) | (day_h % 7 == 6)) & (revenue_h > 100)].mean(), rtol=1e-12)
masked = cupy.where(big, revenue, cupy.nan)
numpy.testing.assert_allclose(float(cupy.nanmean(masked)), numpy.nanmean(numpy.where(revenue_h > 100, revenue_h, numpy.nan)), rtol=1e-12)

# sort by (store, -revenue) with lexsort; top 3 sales per store
lex = cupy.lexsort(cupy.stack([-revenue, store.astype(cupy.float64)]))
lex_h = numpy.lexsort(numpy.stack([-revenue_h, store_h.astype(numpy.float64)]))
assert (lex.get() == lex_h).all()
table = cupy.full((len(keys), int(counts.max())), -cupy.inf)
rank = cupy.arange(n) - cupy.repeat(cupy.concatenate([cupy.zeros(1, cupy.int64), cupy.cumsum(counts)[:-1]]), counts.tolist())
table[inv[lex], rank] = revenue[lex]
top = cupy.take_along_axis(table, cupy.argsort(-table, axis=1)[:, :3], axis=1)
top_h = numpy.array([numpy.sort(revenue_h[store_h == k])[::-1][:3] for k in keys_h])
numpy.testing.assert_allclose(top.get(), top_h, rtol=1e-12)
idx_max = cupy.argmax(table, axis=1)
assert (cupy.take_along_axis(table, idx_max[:, None], axis=1)[:, 0] == top[:, 0]).all()

# a join: region of each store through a sorted lookup table
lookup_keys = cupy.arange(0, 40, dtype=cupy.int32)
region = (lookup_keys * 7 % 5).astype(cupy.int8)
pos = cupy.searchsorted(lookup_keys, store)
per_region = cupy.bincount(region[pos].astype(cupy.int64), weights=revenue, minlength=5)
per_region_h = numpy.bincount((store_h * 7 % 5), weights=revenue_h, minlength=5)
numpy.testing.assert_allclose(per_region.get(), per_region_h, rtol=1e-12)

# daily totals, percentiles, a rolling mean
daily = cupy.zeros(30)
cupy.add.at(daily, day.astype(cupy.intp), revenue)
daily_h = numpy.zeros(30)
numpy.add.at(daily_h, day_h, revenue_h)
numpy.testing.assert_allclose(daily.get(), daily_h, rtol=1e-12)
q = cupy.percentile(revenue, [10, 50, 90])
numpy.testing.assert_allclose(q.get(), numpy.percentile(revenue_h, [10, 50, 90]), rtol=1e-12)
q2 = cupy.quantile(price, 0.5, method="nearest")
assert float(q2) == numpy.quantile(price_h, 0.5, method="nearest")
roll = cupy.convolve(daily, cupy.ones(7) / 7, mode="valid")
numpy.testing.assert_allclose(roll.get(), numpy.convolve(daily_h, numpy.ones(7) / 7, mode="valid"), rtol=1e-12)
corr = cupy.corrcoef(price, qty.astype(cupy.float64))
numpy.testing.assert_allclose(corr.get(), numpy.corrcoef(price_h, qty_h.astype(numpy.float64)), rtol=1e-10)
u, c = cupy.unique(cupy.stack([store, day.astype(cupy.int32)], axis=1), axis=0, return_counts=True)
u_h, c_h = numpy.unique(numpy.stack([store_h, day_h.astype(numpy.int32)], axis=1), axis=0, return_counts=True)
assert (u.get() == u_h).all() and (c.get() == c_h).all()

# mistakes
try:
    cupy.take_along_axis(table, idx_max, axis=1)
except ValueError as e:
    # cupy/_indexing/indexing.py: take_along_axis
    assert str(e) == "`indices` and `a` must have the same number of dimensions", str(e)
else:
    raise AssertionError("take_along_axis of mismatched ndim not refused")
try:
    cupy.searchsorted(lookup_keys, store_h)
except NotImplementedError as e:
    # cupy/_sorting/search.py: _searchsorted
    assert str(e) == "Only python scalars or ndarrays are supported for v", str(e)
else:
    raise AssertionError("a host array not refused")
# (a host mask indexes: CuPy copies NumPy index arrays to the device)
assert (revenue[big.get()] == revenue[big]).all()
try:
    revenue[price_h.astype(numpy.float32)]
except IndexError as e:
    # cupy/_core/_routines_indexing.pyx: _prepare_slice_list (the device copy's check)
    assert str(e) == ("arrays used as indices must be of integer or boolean type. "
                      "(actual: <class 'numpy.float32'>)"), str(e)
else:
    raise AssertionError("a float index not refused")
print("groupby OK")
