import numpy
import pytest

from gpushare_server.kernels import (ElementwiseKernel, ReductionKernel,
                                     compiler_available, fuse)

pytestmark = pytest.mark.skipif(
    not compiler_available(), reason='no C++ compiler (g++/c++/clang++) found')


@pytest.mark.timeout(60)
def test_kmeans():
    rng = numpy.random.default_rng(5)
    n_clusters, n, dim = 3, 3000, 2
    centers_true = numpy.array([[0., 0.], [5., 5.], [0., 6.]])
    X = (centers_true[rng.integers(0, 3, n)] +
         rng.standard_normal((n, dim)) * 0.5)
    var_kernel = ElementwiseKernel(
        'T x0, T x1, T c0, T c1', 'T out',
        'out = (x0 - c0) * (x0 - c0) + (x1 - c1) * (x1 - c1)',
        'var_kernel')
    sum_kernel = ReductionKernel(
        'T x, S mask', 'T out', 'mask ? x : 0', 'a + b', 'out = a', '0',
        'sum_kernel')
    count_kernel = ReductionKernel(
        'T mask', 'float32 out', 'mask ? 1.0 : 0.0', 'a + b', 'out = a',
        '0.0', 'count_kernel')
    centers = X[[0, 1, 2]].copy()
    centers_np = centers.copy()
    for _ in range(10):
        dist = var_kernel(X[:, None, 0], X[:, None, 1], centers[None, :, 0],
                          centers[None, :, 1])
        pred = numpy.argmin(dist, axis=1)
        mask = pred == numpy.arange(n_clusters)[:, None]
        sums = sum_kernel(X, mask[:, :, None], axis=1)
        counts = count_kernel(mask, axis=1)
        assert counts.dtype == numpy.float32
        centers = sums / counts[:, None]
        # NumPy reference
        d_np = ((X[:, None, :] - centers_np[None, :, :]) ** 2).sum(axis=2)
        numpy.testing.assert_allclose(dist, d_np, rtol=1e-12)
        p_np = numpy.argmin(d_np, axis=1)
        m_np = p_np == numpy.arange(n_clusters)[:, None]
        s_np = numpy.where(m_np[:, :, None], X, 0).sum(axis=1)
        c_np = m_np.sum(axis=1).astype(numpy.float32)
        centers_np = s_np / c_np[:, None]
        numpy.testing.assert_allclose(centers, centers_np, rtol=1e-10)
    err = numpy.sort(centers, axis=0) - numpy.sort(centers_true, axis=0)
    assert numpy.abs(err).max() < 0.2


@pytest.mark.timeout(60)
def test_reduction_axes_keepdims_types():
    k = ReductionKernel('T x', 'T out', 'x', 'a + b', 'out = a', '0', 'my_sum')
    a = numpy.random.default_rng(6).integers(-5, 5, (4, 5, 6)).astype('b')
    for ax in [None, 0, 1, 2, (0, 1), (0, 2), (1, 2), -1]:
        for kd in (False, True):
            r = k(a, axis=ax, keepdims=kd)
            e = a.sum(axis=ax, keepdims=kd, dtype='b')
            assert r.shape == e.shape and r.dtype == e.dtype
            numpy.testing.assert_array_equal(r, e)
    at = a.transpose(2, 1, 0)
    numpy.testing.assert_array_equal(k(at, axis=(0, 1)),
                                     at.sum(axis=(0, 1), dtype='b'))
    assert len(k._cached_codes) >= 1
    # l2 norm with reduce_type and post_map, out=
    l2 = ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0',
                         'l2norm', reduce_type='double')
    x = numpy.random.default_rng(7).random((300, 7)).astype(numpy.float32)
    out = numpy.empty(300, numpy.float32)
    r = l2(x, axis=1, out=out)
    assert r is out
    numpy.testing.assert_allclose(out, numpy.sqrt((x.astype('d') ** 2).sum(1)),
                                  rtol=1e-6)
    # argmax-like with _J and a struct reduce type from the preamble
    amax = ReductionKernel(
        'T x', 'int64 idx', 'Pair(x, _J)',
        'a.v > b.v || (a.v == b.v && a.j < b.j) ? a : b', 'idx = a.j',
        'Pair(-1e300, 0)', 'amax', reduce_type='Pair',
        preamble='struct Pair { double v; long long j; '
                 '__device__ Pair(double v_ = 0, long long j_ = 0) '
                 ': v(v_), j(j_) {} };')
    y = numpy.random.default_rng(8).random((6, 50))
    numpy.testing.assert_array_equal(amax(y, axis=1), y.argmax(axis=1))
    # empty reduction gives identity; scalar result is a 0-d array
    numpy.testing.assert_array_equal(k(numpy.zeros((0, 3)), axis=0),
                                     numpy.zeros(3))
    s = k(numpy.arange(10.))
    assert isinstance(s, numpy.ndarray) and s.shape == () and s == 45
    # errors
    with pytest.raises(ValueError, match='Invalid kernel name'):
        ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', name='1')
    with pytest.raises(TypeError, match='Wrong number of arguments for my_sum'):
        k(a, a, a)
    with pytest.raises(numpy.exceptions.AxisError):
        k(a, axis=3)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        k(a, axis=(1, 1))
    with pytest.raises(ValueError, match='Out shape is mismatched'):
        k(a, axis=0, out=numpy.empty((3,), 'b'))


@pytest.mark.timeout(60)
def test_fuse():
    @fuse
    def f(x, y):
        return x * y + 1

    @fuse(kernel_name='g')
    def g(x):
        return x.sum(), x.max()

    x = numpy.arange(6.).reshape(2, 3)
    numpy.testing.assert_array_equal(f(x, 2), x * 2 + 1)
    s, m = g(x)
    assert isinstance(s, numpy.ndarray) and s.shape == () and s == 15
    assert m == 5
    assert f(2, 3) == 7
    assert f.__name__ == 'f'
