"""``cupyx.scipy.spatial``'s distances and ``Delaunay``, served: what CuPy 14.2's give.

CuPy's ``cupyx/scipy/spatial/distance.py`` computes with cuVS' ``pairwise_distance``
(``backends/cpu_spatial.py`` stands in for it): ``cdist``/``pdist``/``distance_matrix``
keep float32 input (other input becomes float32), know CuPy's metrics only, read ``p``
and nothing else; the one-pair functions (``euclidean(u, v)``, ``minkowski(u, v, p)``)
give a 0-d array of ``u``'s type and take no ``w``. ``_delaunay.py``'s ``Delaunay``
refuses what is not 2-D, ``furthest_site`` and ``incremental``.
"""
from __future__ import annotations

import importlib

import numpy
import pytest
import scipy.spatial.distance

pytestmark = pytest.mark.timeout(120)


def _distance():
    return importlib.import_module("gpushare.cupyx.scipy.spatial.distance")


def _spatial():
    return importlib.import_module("gpushare.cupyx.scipy.spatial")


def _rows(n: int, m: int = 3, seed: int = 0) -> numpy.ndarray:
    return numpy.random.default_rng(seed).random((n, m))


@pytest.mark.parametrize("dtype, want", [("float32", "float32"), ("float64", "float64"),
                                         ("int64", "float32"), ("bool", "float32")])
def test_cdist_pdist_keep_float32(cp, dtype, want):
    # distance.py: cdist: cupy.asarray(XA, dtype='float32') unless float32/float64,
    # output_arr = cupy.empty((mA, mB), dtype=XA.dtype); pdist is cdist's triangle
    D = _distance()
    a = cp.asarray((_rows(4) * 3).astype(dtype))
    assert D.cdist(a, a).dtype == want
    assert D.pdist(a).dtype == want and D.pdist(a).shape == (6,)
    assert D.distance_matrix(a, a).dtype == want
    assert _spatial().distance_matrix(a, a).dtype == want


def test_cdist_values_and_p(cp):
    # distance.py: cdist passes p (kwargs["p"], default 2.0) and ignores other keywords
    D = _distance()
    a, b = _rows(4), _rows(5, seed=1)
    got = D.cdist(cp.asarray(a), cp.asarray(b), "minkowski", p=3).get()
    numpy.testing.assert_allclose(got, scipy.spatial.distance.cdist(a, b, "minkowski", p=3))
    got = D.cdist(cp.asarray(a), cp.asarray(b), "euclidean", p=3,
                  w=cp.asarray([1.0, 5.0, 9.0])).get()
    numpy.testing.assert_allclose(got, scipy.spatial.distance.cdist(a, b))
    got = D.cdist(cp.asarray(a, dtype=cp.float32), cp.asarray(b, dtype=cp.float32), "cos")
    numpy.testing.assert_allclose(got.get(), scipy.spatial.distance.cdist(a, b, "cosine"),
                                  rtol=1e-5)


def test_cdist_metrics_are_cupys(cp):
    # distance.py: _METRIC_INFOS; cdist: 'Unknown Distance Metric: %s' % metric.lower(),
    # TypeError for a metric that is not a string
    D = _distance()
    a = cp.asarray(_rows(3))
    for name in ("braycurtis", "jaccard", "seuclidean", "Mahalanobis"):
        with pytest.raises(ValueError, match=f"^Unknown Distance Metric: {name.lower()}$"):
            D.cdist(a, a, name)
    with pytest.raises(TypeError, match="2nd argument metric must be a string identifier"):
        D.cdist(a, a, 3)
    h = D.cdist(a, a, "hellinger")  # (metrics SciPy's cdist lacks)
    assert h.shape == (3, 3) and float(h[0, 0]) == pytest.approx(0, abs=1e-7)
    assert D.cdist(a, a, "kld").shape == (3, 3)


def test_cdist_checks_and_words(cp):
    # distance.py: cdist: XA.dtype read first (a list has none), then the 2-D and
    # column checks in CuPy's words
    D = _distance()
    a = cp.asarray(_rows(3))
    with pytest.raises(AttributeError, match="'list' object has no attribute 'dtype'"):
        D.cdist([[1.0, 2.0]], [[1.0, 2.0]])
    with pytest.raises(ValueError, match="XA must be a 2-dimensional array."):
        D.cdist(a[0], a)
    with pytest.raises(ValueError, match="XB must be a 2-dimensional array."):
        D.cdist(a, a[0])
    with pytest.raises(ValueError, match="same number of columns"):
        D.cdist(a, a[:, :2])


def test_cdist_out_float32_filled(cp):
    # distance.py: cdist: a float32/float64 ``out`` is written by pairwise_distance and
    # returned (SciPy's cdist wants float64)
    D = _distance()
    a = cp.asarray(_rows(3), dtype=cp.float32)
    out = cp.zeros((3, 3), dtype=cp.float32)
    assert D.cdist(a, a, out=out) is out
    numpy.testing.assert_allclose(out.get(), scipy.spatial.distance.cdist(a.get(), a.get()),
                                  rtol=1e-5)


@pytest.mark.parametrize("name", ["euclidean", "cityblock", "chebyshev", "canberra",
                                  "cosine", "correlation", "sqeuclidean"])
def test_pair_functions_zero_d_of_u_dtype(cp, name):
    # distance.py: euclidean(u, v)...: output_arr = cupy.empty((1, 1), dtype=u.dtype);
    # return output_arr[0, 0]; CuPy's own tests give (1, n) rows
    D = _distance()
    u, v = _rows(2, 6)
    for shape in ((6,), (1, 6)):
        got = getattr(D, name)(cp.asarray(u.reshape(shape), dtype=cp.float32),
                               cp.asarray(v.reshape(shape), dtype=cp.float32))
        assert isinstance(got, cp.ndarray) and got.dtype == cp.float32 and got.shape == ()
        assert float(got) == pytest.approx(getattr(scipy.spatial.distance, name)(u, v),
                                           rel=1e-5)


def test_pair_functions_signatures(cp):
    # distance.py: minkowski(u, v, p) has no default p; none takes w
    D = _distance()
    u, v = cp.asarray(_rows(2, 4))
    with pytest.raises(TypeError, match=r"minkowski\(\) missing 1 required positional"):
        D.minkowski(u, v)
    with pytest.raises(TypeError, match=r"euclidean\(\) got an unexpected keyword"):
        D.euclidean(u, v, w=cp.ones(4))
    assert float(D.minkowski(u, v, 3)) == pytest.approx(
        scipy.spatial.distance.minkowski(u.get(), v.get(), 3))
    r = D.russellrao(cp.asarray([1.0, 0.0, 1.0, 1.0]), cp.asarray([1.0, 1.0, 0.0, 1.0]))
    assert r.dtype == cp.float64 and float(r) == pytest.approx(0.5)


def test_delaunay_checks(cp):
    # _delaunay.py: Delaunay.__init__ and find_simplex's checks; simplices int32
    S = _spatial()
    pts = cp.asarray(_rows(12, 2))
    for kwargs in ({"furthest_site": True}, {"incremental": True}):
        with pytest.raises(ValueError, match=f"{next(iter(kwargs))} argument is not "
                                             "supported by CuPy."):
            S.Delaunay(pts, **kwargs)
    with pytest.raises(ValueError, match="Delaunay only supports 2D inputs at the moment."):
        S.Delaunay(cp.asarray(_rows(12, 3)))
    tri = S.Delaunay(pts)
    assert tri.simplices.dtype == cp.int32
    found = tri.find_simplex(pts[:3])
    assert found.dtype == cp.int32 and found.shape == (3,)
    assert bool((found >= 0).all())
    with pytest.raises(ValueError, match="Delaunay only supports 2D inputs at the moment."):
        tri.find_simplex(cp.asarray(_rows(3, 3)))
