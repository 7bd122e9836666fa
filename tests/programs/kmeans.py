"""k-means with an ElementwiseKernel and ReductionKernels, and the same on NumPy,
after CuPy's examples/kmeans (MIT licence).

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
var_kernel = cupy.ElementwiseKernel(
    'T x0, T x1, T c0, T c1', 'T out',
    'out = (x0 - c0) * (x0 - c0) + (x1 - c1) * (x1 - c1)',
    'var_kernel')
sum_kernel = cupy.ReductionKernel(
    'T x, S mask', 'T out',
    'mask ? x : 0',
    'a + b', 'out = a', '0',
    'sum_kernel')
count_kernel = cupy.ReductionKernel(
    'T mask', 'float32 out',
    'mask ? 1.0 : 0.0',
    'a + b', 'out = a', '0.0',
    'count_kernel')

def fit_xp(X, n_clusters, max_iter):
    assert X.ndim == 2
    xp = cupy.get_array_module(X)
    n_samples = len(X)
    pred = xp.empty(n_samples, dtype=numpy.int32)
    initial_indexes = numpy.random.RandomState(1).choice(n_samples, n_clusters, replace=False)
    centers = X[initial_indexes]
    for _ in range(max_iter):
        distances = xp.linalg.norm(X[:, None, :] - centers[None, :, :], axis=2)
        new_pred = xp.argmin(distances, axis=1)
        if xp.all(new_pred == pred):
            break
        pred = new_pred
        i = xp.arange(n_clusters)
        mask = pred == i[:, None]
        sums = xp.where(mask[:, :, None], X, 0).sum(axis=1)
        counts = xp.count_nonzero(mask, axis=1).reshape((n_clusters, 1))
        centers = sums / counts
    return centers, pred

def fit_custom(X, n_clusters, max_iter):
    assert X.ndim == 2
    n_samples = len(X)
    pred = cupy.empty(n_samples, dtype=numpy.int32)
    initial_indexes = numpy.random.RandomState(1).choice(n_samples, n_clusters, replace=False)
    centers = X[initial_indexes]
    for _ in range(max_iter):
        distances = var_kernel(X[:, None, 0], X[:, None, 1], centers[None, :, 1], centers[None, :, 0])
        new_pred = cupy.argmin(distances, axis=1)
        if cupy.all(new_pred == pred):
            break
        pred = new_pred
        i = cupy.arange(n_clusters)
        mask = pred == i[:, None]
        sums = sum_kernel(X, mask[:, :, None], axis=1)
        counts = count_kernel(mask, axis=1).reshape((n_clusters, 1))
        centers = sums / counts
    return centers, pred

rs = numpy.random.RandomState(0)
Xh = numpy.concatenate([rs.randn(500, 2) + 4, rs.randn(500, 2) - 4]).astype(numpy.float32)
X = cupy.asarray(Xh)
c1, p1 = fit_xp(X, 2, 10)
c2, p2 = fit_custom(X, 2, 10)
cn, pn = fit_xp(Xh, 2, 10)
assert isinstance(c1, cupy.ndarray)
numpy.testing.assert_allclose(c1.get(), cn, rtol=1e-4)
assert (p1.get() == pn).all()
print("kmeans OK")
