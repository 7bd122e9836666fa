"""``cupyx.scipy.spatial.KDTree``'s methods, served: what CuPy 14.2's return.

On the CPU backend SciPy's tree answers (``backends/cpu_spatial.py``) and its results
are made CuPy's: ``query_ball_point``/``query_ball_tree`` give lists of int64 arrays
(sorted), ``query_pairs`` an ``(n, 2)`` int64 array sorted by ``i`` then ``j``,
``sparse_distance_matrix`` a ``coo_matrix`` or an array; CuPy's errors and warnings
(``count_neighbors``, periodic trees' float64-only rule, ``output_type``) are its own.
"""
from __future__ import annotations

import importlib
import warnings

import numpy
import pytest
import scipy.spatial

pytestmark = pytest.mark.timeout(120)

_FLOAT64_ONLY = "periodic KDTree is only available on float64"


def _spatial():
    return importlib.import_module("gpushare.cupyx.scipy.spatial")


def _points(n: int, m: int = 3, seed: int = 0) -> numpy.ndarray:
    return numpy.random.default_rng(seed).random((n, m))


def _ball(data: numpy.ndarray, x: numpy.ndarray, r: float, p: float = 2.0) -> list:
    """The indices of ``data`` within ``r`` of each of ``x``, by brute force."""
    diff = numpy.abs(x[:, None, :] - data[None, :, :])
    dist = diff.max(-1) if numpy.isinf(p) else (diff ** p).sum(-1) ** (1 / p)
    return [numpy.flatnonzero(row).tolist() for row in dist <= r]


@pytest.mark.parametrize("p", [1.0, 2.0, numpy.inf])
def test_query_ball_point_lists_of_sorted_int64_arrays(cp, p):
    data, x = _points(200), _points(7, seed=1)
    tree = _spatial().KDTree(cp.asarray(data))
    got = tree.query_ball_point(cp.asarray(x), 0.3, p=p)
    assert type(got) is list and len(got) == 7
    assert all(isinstance(ids, cp.ndarray) and ids.dtype == numpy.int64 for ids in got)
    assert [ids.tolist() for ids in got] == _ball(data, x, 0.3, p)
    counts = tree.query_ball_point(cp.asarray(x), 0.3, p=p, return_length=True)
    assert isinstance(counts, cp.ndarray) and counts.dtype == numpy.int64
    assert counts.tolist() == [len(ids) for ids in _ball(data, x, 0.3, p)]


def test_query_ball_point_shapes_of_points(cp):
    data, x = _points(100), _points(6, seed=2)
    tree = _spatial().KDTree(cp.asarray(data))
    one = tree.query_ball_point(cp.asarray(x[0]), 0.4)  # one point: a list of one
    assert type(one) is list and len(one) == 1
    assert one[0].tolist() == _ball(data, x[:1], 0.4)[0]
    assert tree.query_ball_point(cp.asarray(x[0]), 0.4, return_length=True).shape == (1,)
    grid = tree.query_ball_point(cp.asarray(x.reshape(2, 3, 3)), 0.4)  # flattened
    assert [ids.tolist() for ids in grid] == _ball(data, x, 0.4)
    assert tree.query_ball_point(cp.asarray(x.reshape(2, 3, 3)), 0.4,
                                 return_length=True).shape == (6,)
    unsorted = tree.query_ball_point(cp.asarray(x), 0.4, return_sorted=False)
    assert [sorted(ids.tolist()) for ids in unsorted] == _ball(data, x, 0.4)
    # eps widens CuPy's search only: the points found are the exact ones
    assert [ids.tolist() for ids in tree.query_ball_point(cp.asarray(x), 0.4, eps=0.5)] \
        == _ball(data, x, 0.4)


def test_query_ball_point_radius_as_cupys_kernel(cp):
    data, x = _points(100), _points(3, seed=3)
    tree = _spatial().KDTree(cp.asarray(data))
    # the kernel compares with pow(r, p): a negative radius with p = 2 is |r|
    assert [ids.tolist() for ids in tree.query_ball_point(cp.asarray(x), -0.3)] \
        == _ball(data, x, 0.3)
    assert all(ids.size == 0 for ids in tree.query_ball_point(cp.asarray(x), -0.3, p=1))
    # p < 1, which SciPy refuses: sum |d|^p <= r^p
    got = tree.query_ball_point(cp.asarray(x), 0.8, p=0.5)
    assert [ids.tolist() for ids in got] == _ball(data, x, 0.8, 0.5)


def test_query_ball_point_errors(cp):
    tree = _spatial().KDTree(cp.asarray(_points(20)))
    with pytest.raises(ValueError, match="Expected 3, got: 2"):
        tree.query_ball_point(cp.ones((4, 2)), 0.5)
    # (a host array reaches CuPy's kernel, which refuses it as a parameter: the GPU's)
    with pytest.raises(TypeError, match=r"^You are trying to pass a numpy\.ndarray of shape "
                       r"\(2, 3\) as a kernel parameter\. Only numpy\.ndarrays of size one"):
        tree.query_ball_point(_points(2), 0.5)
    with pytest.raises(AttributeError, match="dtype"):
        tree.query_ball_point([0.5, 0.5, 0.5], 0.5)


def test_query_ball_tree_is_the_other_trees_ball_of_this_data(cp):
    a, b = _points(60, seed=4), _points(80, seed=5)
    sp = _spatial()
    tree_a, tree_b = sp.KDTree(cp.asarray(a)), sp.KDTree(cp.asarray(b))
    got = tree_a.query_ball_tree(tree_b, 0.25)
    assert type(got) is list and len(got) == 60
    assert all(ids.dtype == numpy.int64 for ids in got)
    assert [ids.tolist() for ids in got] == _ball(b, a, 0.25)
    ref = scipy.spatial.KDTree(a).query_ball_tree(scipy.spatial.KDTree(b), 0.25)
    assert [ids.tolist() for ids in got] == [sorted(ids) for ids in ref]


def test_query_pairs_sorted_int64_array(cp):
    data = _points(150, seed=6)
    tree = _spatial().KDTree(cp.asarray(data))
    pairs = tree.query_pairs(0.2)
    assert isinstance(pairs, cp.ndarray) and pairs.dtype == numpy.int64
    assert pairs.ndim == 2 and pairs.shape[1] == 2 and pairs.flags.c_contiguous
    got = [tuple(row) for row in pairs.tolist()]
    assert got == sorted(scipy.spatial.KDTree(data).query_pairs(0.2))
    assert all(i < j for i, j in got)
    none = tree.query_pairs(1e-9)
    assert none.shape == (0, 2) and none.dtype == numpy.int64
    manhattan = tree.query_pairs(0.2, p=1)
    assert [tuple(r) for r in manhattan.tolist()] == sorted(
        scipy.spatial.KDTree(data).query_pairs(0.2, p=1))


def test_query_pairs_set_warns_and_gives_the_array(cp):
    tree = _spatial().KDTree(cp.asarray(_points(50, seed=7)))
    with pytest.warns(UserWarning, match="output_type='set' is not supported"):
        pairs = tree.query_pairs(0.3, output_type="set")
    assert isinstance(pairs, cp.ndarray)
    assert pairs.tolist() == tree.query_pairs(0.3).tolist()


def test_count_neighbors_is_not_available_as_in_cupy(cp):
    tree = _spatial().KDTree(cp.asarray(_points(10)))
    with pytest.raises(NotImplementedError, match="count_neighbors is not available on CuPy"):
        tree.count_neighbors(tree, 0.5)


def test_sparse_distance_matrix_coo_or_ndarray(cp):
    a, b = _points(12, seed=8), _points(9, seed=9)
    sp = _spatial()
    tree_a, tree_b = sp.KDTree(cp.asarray(a)), sp.KDTree(cp.asarray(b))
    want = scipy.spatial.distance_matrix(a, b)
    want[want > 0.5] = 0
    try:
        coo = tree_a.sparse_distance_matrix(tree_b, 0.5)
    except RuntimeError as exc:  # (C) CuPy computes it with cuVS, not on every GPU box
        from _servers import BACKEND
        if BACKEND == "cupy" and str(exc) == ("cuVS >= 24.12 or pylibraft < 24.12 should "
                                              "be installed to use this feature"):
            pytest.skip("the GPU server's CuPy has no cuVS (its RuntimeError)")
        raise
    import gpushare.cupyx.scipy.sparse as sparse
    assert isinstance(coo, sparse.coo_matrix) and coo.shape == (12, 9)
    assert coo.nnz == numpy.count_nonzero(want)
    numpy.testing.assert_allclose(coo.toarray().get(), want)
    dense = tree_a.sparse_distance_matrix(tree_b, 0.5, output_type="ndarray")
    assert isinstance(dense, cp.ndarray) and dense.dtype == numpy.float64
    numpy.testing.assert_allclose(dense.get(), want)
    with pytest.raises(ValueError, match="only supports 'coo_matrix' and 'ndarray'"):
        tree_a.sparse_distance_matrix(tree_b, 0.5, output_type="dok_matrix")


def test_periodic_trees(cp):
    data = _points(100, m=2, seed=10)
    sp = _spatial()
    tree = sp.KDTree(cp.asarray(data), boxsize=1.0)
    ref = scipy.spatial.KDTree(data, boxsize=1.0)
    for off in (0.0, 1.0, -1.0):
        got = tree.query_ball_point(cp.asarray(data[:10] + off), 0.2)
        assert [ids.tolist() for ids in got] == [
            sorted(ids) for ids in ref.query_ball_point(data[:10] + off, 0.2)]
    assert [tuple(r) for r in tree.query_pairs(0.1).tolist()] == sorted(ref.query_pairs(0.1))
    with pytest.raises(ValueError, match=_FLOAT64_ONLY):
        tree.query_ball_point(cp.asarray(data[:2], dtype=numpy.float32), 0.2)
    with pytest.raises(ValueError, match=_FLOAT64_ONLY):
        sp.KDTree(cp.asarray(data, dtype=numpy.float32), boxsize=1.0)
    with pytest.raises(ValueError, match="greater than the size of the periodic box"):
        sp.KDTree(cp.asarray(data * 2), boxsize=1.0)
    with pytest.raises(ValueError, match="Negative input data"):
        sp.KDTree(cp.asarray(data - 0.5), boxsize=1.0)


def test_unbalanced_tree_warns_as_cupy(cp):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tree = _spatial().KDTree(cp.asarray(_points(30)), balanced_tree=False)
        assert tree.query_pairs(0.3).ndim == 2
    assert any("balanced_tree=False is not supported" in str(w.message) for w in caught)
