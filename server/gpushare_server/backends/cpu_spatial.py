"""``cupyx.scipy.spatial.KDTree``'s methods on the CPU backend.

The tree is SciPy's ``KDTree`` (``MIRRORS`` in ``cpu.py``); SciPy answers, and these
give what CuPy 14.2's methods (``cupyx/scipy/spatial/_kdtree.py``, and
``_kdtree_utils.find_nodes_in_radius``) return:

- ``query_ball_point``: a list of int64 arrays, one a query point (a single point's
  list has one), sorted unless ``return_sorted=False``; with ``return_length`` the
  counts, an int64 array of one a point. The radius is one number (``float(r)``), a
  point is in when its distance is at most ``r`` (exactly: CuPy's ``eps`` only widens
  the search), and ``x`` of more than two dimensions is flattened to points.
- ``query_ball_tree``: ``other.query_ball_point(self.data, r, ..., return_sorted=True)``.
- ``query_pairs``: an int64 ``(n, 2)`` array of ``i < j``, sorted by ``i`` then ``j``;
  ``output_type='set'`` warns and gives the array too.
- ``count_neighbors``: CuPy's ``NotImplementedError``.
- ``sparse_distance_matrix``: ``distance_matrix(self.data, other.data, p)`` (periodic or
  not) with the distances over ``max_distance`` zeroed, as a COO matrix or an array.
- periodic trees refuse data and query points that are not float64, as CuPy's, and
  the constructor checks its data and ``boxsize`` as CuPy's (``balanced_tree=False``
  warns and builds a balanced tree).
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy

from . import scipy_module

_FLOAT64_ONLY = "periodic KDTree is only available on float64"


def kdtree(data: Any, leafsize: Any = 10, compact_nodes: Any = True, copy_data: Any = False,
           balanced_tree: Any = True, boxsize: Any = None) -> Any:
    """See Also: cupyx.scipy.spatial.KDTree (SciPy's tree, after CuPy's checks)"""
    if copy_data:
        data = data.copy()
    if not balanced_tree:
        warnings.warn('balanced_tree=False is not supported by the GPU '
                      'implementation of KDTree, skipping.')
    _, m = data.shape
    if boxsize is not None:
        box = numpy.empty(m, numpy.float64)
        box[...] = boxsize
        periodic_mask = box > 0
        if ((data >= box[None, :])[:, periodic_mask]).any():
            raise ValueError(
                "Some input data are greater than the size of the "
                "periodic box.")
        if ((data < 0)[:, periodic_mask]).any():
            raise ValueError("Negative input data are outside of the "
                             "periodic box.")
        if data.dtype != numpy.float64:
            raise ValueError(_FLOAT64_ONLY)
        boxsize = box
    # (CuPy's tree ignores leafsize and compact_nodes: SciPy's defaults, which give the
    # same answers)
    return scipy_module("scipy.spatial", "cupyx.scipy.spatial").KDTree(data, boxsize=boxsize)


def _periodic(tree: Any) -> bool:
    return tree.boxsize is not None


def _query_points(tree: Any, x: Any) -> numpy.ndarray:
    """CuPy's checks of query points ``x``, and them as ``(n_points, m)``."""
    if _periodic(tree) and x.dtype != numpy.float64:
        raise ValueError(_FLOAT64_ONLY)
    common_dtype = numpy.result_type(tree.data.dtype, x.dtype)
    x = x.astype(common_dtype, copy=False)
    if x.ndim > 2:
        x = x.reshape(-1, x.shape[-1])
    n_dims = x.shape[0] if x.ndim == 1 else x.shape[1]
    m = tree.data.shape[-1]
    if n_dims != m:
        raise ValueError('The number of dimensions of the query points must '
                         'match with the tree ones. '
                         f'Expected {m}, got: {n_dims}')
    return x.reshape(1, -1) if x.ndim == 1 else x


def _brute_balls(tree: Any, x: numpy.ndarray, r: float, p: float) -> list:
    """The points within ``r`` of each of ``x``, as CuPy's kernel measures them (its
    ``pow(r, p)`` bound, any ``p``): where SciPy refuses (``p < 1``, ``r < 0``)."""
    data = tree.data
    box = numpy.full(data.shape[1], numpy.inf)
    if _periodic(tree):
        size = numpy.broadcast_to(numpy.asarray(tree.boxsize, float), box.shape)
        box = numpy.where(size > 0, size, numpy.inf)
        x = numpy.where(numpy.isfinite(box), x - numpy.floor(x / box) * box, x)
    bound = r if numpy.isinf(p) else numpy.power(numpy.float64(r), p)
    out = []
    for start in range(0, len(x), 256):
        diff = numpy.abs(x[start:start + 256, None, :] - data[None, :, :])
        diff = numpy.minimum(diff, box - diff)
        dist = (diff.max(-1) if p == numpy.inf else diff.min(-1) if p == -numpy.inf
                else numpy.power(diff, p).sum(-1))
        out.extend(numpy.flatnonzero(row).astype(numpy.int64) for row in dist <= bound)
    return out


def _check_eps(eps: Any) -> None:
    """CuPy passes ``eps`` to its kernel as it is (a number; which only widens its
    search, so that it finds the points within ``r`` all the same)."""
    if not isinstance(eps, (bool, int, float, complex, numpy.generic, numpy.ndarray)):
        raise TypeError(f"Unsupported type {type(eps)}")


def _balls(tree: Any, x: numpy.ndarray, r: float, p: float, sort: bool) -> list:
    if p >= 1 and r >= 0:
        found = tree.query_ball_point(x, r, p=p, eps=0, return_sorted=sort)
        return [numpy.asarray(ids, dtype=numpy.int64) for ids in found]
    return _brute_balls(tree, x, r, p)


def query_ball_point(tree: Any, x: Any, r: Any, p: Any = 2., eps: Any = 0,
                     return_sorted: Any = None, return_length: bool = False) -> Any:
    """See Also: cupyx.scipy.spatial.KDTree.query_ball_point (a host array goes through
    CuPy's checks to its kernel, which refuses it as a parameter: the GPU's words)"""
    from gpushare.protocol import HostArray
    if isinstance(x, HostArray):
        _query_points(tree, x.array)
        from .cpu_signal import _kernel_param
        raise _kernel_param(x.array)
    x = _query_points(tree, x)
    r, p = float(r), float(p)
    _check_eps(eps)
    sort = True if return_sorted is None else bool(return_sorted)
    if return_length:
        if p >= 1 and r >= 0:
            return numpy.asarray(tree.query_ball_point(x, r, p=p, return_length=True),
                                 dtype=numpy.int64).reshape(-1)
        return numpy.array([len(ids) for ids in _brute_balls(tree, x, r, p)],
                           dtype=numpy.int64)
    return _balls(tree, x, r, p, sort)


query_ball_point.host_arrays = True  # type: ignore[attr-defined]


def query_ball_tree(tree: Any, other: Any, r: Any, p: Any = 2.0, eps: Any = 0.0) -> Any:
    """See Also: cupyx.scipy.spatial.KDTree.query_ball_tree"""
    if not hasattr(other, "query_ball_point"):
        raise AttributeError(f"'{type(other).__name__}' object has no attribute "
                             "'query_ball_point'")
    return query_ball_point(other, tree.data, r, p=p, eps=eps, return_sorted=True)


def query_pairs(tree: Any, r: Any, p: Any = 2.0, eps: Any = 0,
                output_type: Any = 'ndarray') -> numpy.ndarray:
    """See Also: cupyx.scipy.spatial.KDTree.query_pairs"""
    if output_type == 'set':
        warnings.warn("output_type='set' is not supported by the GPU "
                      "implementation of KDTree, resorting back to "
                      "'ndarray'.")
    r, p = float(r), float(p)
    _check_eps(eps)
    if p >= 1 and r >= 0:
        pairs = numpy.asarray(tree.query_pairs(r, p=p, eps=0, output_type='ndarray'),
                              dtype=numpy.int64).reshape(-1, 2)
    else:
        balls = _brute_balls(tree, tree.data, r, p)
        pairs = numpy.array([(i, j) for i, ids in enumerate(balls) for j in ids if i < j],
                            dtype=numpy.int64).reshape(-1, 2)
    order = numpy.lexsort((pairs[:, 1], pairs[:, 0]))
    return numpy.ascontiguousarray(pairs[order])


def count_neighbors(tree: Any, other: Any, r: Any, p: Any = 2.0, weights: Any = None,
                    cumulative: Any = True) -> Any:
    """See Also: cupyx.scipy.spatial.KDTree.count_neighbors"""
    raise NotImplementedError('count_neighbors is not available on CuPy')


def sparse_distance_matrix(tree: Any, other: Any, max_distance: Any, p: Any = 2.0,
                           output_type: Any = 'coo_matrix') -> Any:
    """See Also: cupyx.scipy.spatial.KDTree.sparse_distance_matrix"""
    if output_type not in {'coo_matrix', 'ndarray'}:
        raise ValueError(
            "sparse_distance_matrix only supports 'coo_matrix' and "
            "'ndarray' outputs")
    spatial = scipy_module("scipy.spatial", "cupyx.scipy.spatial")
    dist = numpy.ascontiguousarray(spatial.distance_matrix(tree.data, other.data, p))
    dist[dist > max_distance] = 0
    if output_type == 'coo_matrix':
        return scipy_module("scipy.sparse", "cupyx.scipy.sparse").coo_matrix(dist)
    return dist


def vertex_neighbor_vertices(tri: Any) -> tuple:
    """See Also: cupyx.scipy.spatial.Delaunay.vertex_neighbor_vertices (a method in
    CuPy, SciPy's property; CuPy's ``indptr`` is int64, its ``indices`` int32)"""
    indptr, indices = tri.vertex_neighbor_vertices
    return indptr.astype(numpy.int64), indices.astype(numpy.int32)


def find_simplex(tri: Any, xi: Any, bruteforce: Any = False, tol: Any = None) -> Any:
    """See Also: cupyx.scipy.spatial.Delaunay.find_simplex (CuPy's check of ``xi``,
    ``tol`` a float; int32 indices)"""
    eps = 100 * numpy.finfo(numpy.double).eps if tol is None else float(tol)
    if xi.shape[-1] != 2:
        raise ValueError('Delaunay only supports 2D inputs at the moment.')
    return numpy.asarray(tri.find_simplex(xi, tol=eps), dtype=numpy.int32)


#: the methods of the CPU backend's KDTree and Delaunay (SciPy's) that answer as CuPy's,
#: by class name
METHODS: dict[str, dict[str, Callable[..., Any]]] = {
    "KDTree": {fn.__name__: fn for fn in (query_ball_point, query_ball_tree, query_pairs,
                                          count_neighbors, sparse_distance_matrix)},
    "Delaunay": {"vertex_neighbor_vertices": vertex_neighbor_vertices,
                 "find_simplex": find_simplex}}


# --- cupyx.scipy.spatial.distance: CuPy's (cuVS') functions SciPy has not --------------

def _layout_check(u: Any, v: Any, names: str = "u and v") -> None:
    """CuPy's check that both operands have one layout (``cupy.isfortran``)."""
    orders = ["F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C"
              for x in (u, v)]
    if orders[0] != orders[1]:
        first, second = names.split(" and ")
        raise ValueError(f"{names} must have the same layout "
                         f"({first}.order={orders[0]}, {second}.order={orders[1]}")


def _distance_dtype(u: numpy.ndarray) -> numpy.dtype:
    """The type of CuPy's result (``cupy.empty((1, 1), dtype=u.dtype)``), float64 for
    input cuVS does not compute in."""
    return u.dtype if u.dtype.char in "fd" else numpy.dtype(numpy.float64)


def hellinger(u: Any, v: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.spatial.distance.hellinger (``sqrt(sum((sqrt(u) -
    sqrt(v))**2)) / sqrt(2)``, a 0-d array of ``u``'s type)."""
    _layout_check(u, v)
    dtype = _distance_dtype(u)
    uu, vv = u.astype(dtype, copy=False), v.astype(dtype, copy=False)
    value = numpy.sqrt(numpy.sum((numpy.sqrt(uu) - numpy.sqrt(vv)) ** 2)) / numpy.sqrt(
        dtype.type(2))
    return numpy.asarray(value, dtype=dtype)


def kl_divergence(u: Any, v: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.spatial.distance.kl_divergence (``sum(u * log(u / v))``,
    a term of ``u == 0`` being 0; a 0-d array of ``u``'s type)."""
    import scipy.special
    u, v = numpy.asarray(u), numpy.asarray(v)
    _layout_check(u, v)
    dtype = _distance_dtype(u)
    terms = scipy.special.rel_entr(u.astype(dtype, copy=False), v.astype(dtype, copy=False))
    return numpy.asarray(numpy.sum(terms), dtype=dtype)


#: CuPy's metric names and aliases (``distance._METRIC_INFOS``), to their canonical name
_METRIC_ALIAS: dict[str, str] = {alias: name for name, aliases in {
    "canberra": ("canberra",),
    "chebyshev": ("chebychev", "chebyshev", "cheby", "cheb", "ch"),
    "cityblock": ("cityblock", "cblock", "cb", "c"),
    "correlation": ("correlation", "co"),
    "cosine": ("cosine", "cos"),
    "hamming": ("matching", "hamming", "hamm", "ha", "h"),
    "euclidean": ("euclidean", "euclid", "eu", "e"),
    "jensenshannon": ("jensenshannon", "js"),
    "minkowski": ("minkowski", "mi", "m", "pnorm"),
    "russellrao": ("russellrao",),
    "sqeuclidean": ("sqeuclidean", "sqe", "sqeuclid"),
    "hellinger": ("hellinger",),
    "kl_divergence": ("kl_divergence", "kl_div", "kld")}.items() for alias in aliases}


def _metric_name(metric: Any) -> str:
    """``cdist``'s reading of ``metric`` (cupyx/scipy/spatial/distance.py: a string,
    one of CuPy's names or aliases in any case; no callables, none of SciPy's others)."""
    if not isinstance(metric, str):
        raise TypeError('2nd argument metric must be a string identifier')
    mstr = metric.lower()
    if mstr not in _METRIC_ALIAS:
        raise ValueError('Unknown Distance Metric: %s' % mstr)
    return _METRIC_ALIAS[mstr]


def _cdist_operand(x: Any) -> numpy.ndarray:
    """``cdist``'s conversion of an operand (cuVS installed): float32 and float64 kept,
    anything else ``cupy.asarray(x, dtype='float32')``; a list has no ``dtype``."""
    if isinstance(x, (list, tuple)):
        raise AttributeError(f"'{type(x).__name__}' object has no attribute 'dtype'")
    x = numpy.asarray(x)
    return x if x.dtype.char in "fd" else x.astype(numpy.float32)


def _rel_entr_sum(x: numpy.ndarray, y: numpy.ndarray) -> numpy.ndarray:
    import scipy.special
    return scipy.special.rel_entr(x[:, None, :], y[None, :, :]).sum(-1)


def _pairwise(xa: numpy.ndarray, xb: numpy.ndarray, name: str, p: Any) -> numpy.ndarray:
    """cuVS' ``pairwise_distance`` of the rows of ``xa`` and ``xb`` (in float64): SciPy's
    ``cdist`` where its metric is cuVS', cuVS' own formulae where SciPy's differs."""
    distance = scipy_module("scipy.spatial.distance", "cupyx.scipy.spatial.distance")
    a, b = xa.astype(numpy.float64), xb.astype(numpy.float64)
    if name == "minkowski":
        return distance.cdist(a, b, "minkowski", p=p)
    if name == "russellrao":  # (n - u.v) / n, on any numbers
        return (a.shape[1] - a @ b.T) / a.shape[1]
    if name == "jensenshannon":  # no normalisation, as cuVS
        m = (a[:, None, :] + b[None, :, :]) / 2
        import scipy.special
        acc = (scipy.special.rel_entr(a[:, None, :], m)
               + scipy.special.rel_entr(b[None, :, :], m)).sum(-1)
        return numpy.sqrt(acc / 2)
    if name == "hellinger":
        diff = numpy.sqrt(a)[:, None, :] - numpy.sqrt(b)[None, :, :]
        return numpy.sqrt((diff ** 2).sum(-1)) / numpy.sqrt(2)
    if name == "kl_divergence":
        return _rel_entr_sum(a, b)
    return distance.cdist(a, b, name)


def _cdist_out(out: Any, xa_order: str) -> Any:
    """``cdist``'s handling of ``out`` (cuVS installed): float32 and float64 written
    into; another type checked for layout and replaced by its float32 copy."""
    if out.dtype.char not in "fd":
        out_order = "F" if out.flags.f_contiguous and not out.flags.c_contiguous else "C"
        if out_order != xa_order:
            raise ValueError('out must have same layout as input '
                             '(out.order=%s)' % out_order)
        out = out.astype(numpy.float32)
    return out


def cdist(XA: Any, XB: Any, metric: Any = 'euclidean', out: Any = None,
          **kwargs: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.spatial.distance.cdist (with cuVS: the result in ``XA``'s
    type, float32 or float64, float32 for other input; CuPy's metrics only; ``p`` the
    only keyword read, the others ignored; CuPy's checks in its order and words)."""
    XA, XB = _cdist_operand(XA), _cdist_operand(XB)
    order = "F" if XA.flags.f_contiguous and not XA.flags.c_contiguous else "C"
    _layout_check(XA, XB, "XA and XB")
    if XA.ndim != 2:
        raise ValueError('XA must be a 2-dimensional array.')
    if XB.ndim != 2:
        raise ValueError('XB must be a 2-dimensional array.')
    if XA.shape[1] != XB.shape[1]:
        raise ValueError('XA and XB must have the same number of columns '
                         '(i.e. feature dimension.)')
    p = kwargs["p"] if "p" in kwargs else 2.0
    if out is not None:
        out = _cdist_out(out, order)
    name = _metric_name(metric)
    result = _pairwise(XA, XB, name, p)
    if out is None:
        return numpy.asarray(result, dtype=XA.dtype, order=order)
    out[...] = result
    return out


def pdist(X: Any, metric: Any = 'euclidean', *, out: Any = None,
          **kwargs: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.spatial.distance.pdist (``cdist(X, X)``'s upper triangle,
    ``out`` being ``cdist``'s)."""
    all_dist = cdist(X, X, metric=metric, out=out, **kwargs)
    return all_dist[numpy.triu_indices_from(all_dist, 1)]


def distance_matrix(x: Any, y: Any, p: Any = 2.0) -> numpy.ndarray:
    """See Also: cupyx.scipy.spatial.distance.distance_matrix (CuPy's checks, then
    ``cdist(x, y, 'minkowski', p=p)``)."""
    x, y = numpy.asarray(x), numpy.asarray(y)
    _, k = x.shape
    _, kk = y.shape
    if k != kk:
        raise ValueError("x contains %d-dimensional vectors but y "
                         "contains %d-dimensional vectors" % (k, kk))
    return cdist(x, y, "minkowski", p=p)


def _pair_function(name: str, *, with_p: bool = False) -> Callable[..., Any]:
    """CuPy's one-pair distance ``name`` (``minkowski(u, v, p)``, ``euclidean(u, v)``...:
    the layout check, then ``output_arr[0, 0]`` of a ``(1, 1)`` array of ``u``'s type,
    no ``w``; ``u`` and ``v`` rows, 1-D or ``(1, n)``)."""
    def pair(u: Any, v: Any, *args: Any) -> numpy.ndarray:
        u, v = numpy.asarray(u), numpy.asarray(v)
        _layout_check(u, v)
        p = args[0] if args else 2.0
        dtype = _distance_dtype(u)
        rows = _pairwise(u.reshape(-1, u.shape[-1]), v.reshape(-1, v.shape[-1]), name, p)
        return numpy.asarray(rows[0, 0], dtype=dtype)
    if with_p:
        def minkowski(u: Any, v: Any, p: Any) -> numpy.ndarray:
            return pair(u, v, p)
        minkowski.__qualname__ = "minkowski"
        fn = minkowski
    else:
        def fn(u: Any, v: Any) -> numpy.ndarray:
            return pair(u, v)
        fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"See Also: cupyx.scipy.spatial.distance.{name}"
    return fn


def delaunay(points: Any, furthest_site: Any = False, incremental: Any = False) -> Any:
    """See Also: cupyx.scipy.spatial.Delaunay (CuPy's checks, then SciPy's
    triangulation)."""
    if points.shape[-1] != 2:
        raise ValueError('Delaunay only supports 2D inputs at the moment.')
    if furthest_site:
        raise ValueError('furthest_site argument is not supported by CuPy.')
    if incremental:
        raise ValueError('incremental argument is not supported by CuPy.')
    return scipy_module("scipy.spatial", "cupyx.scipy.spatial").Delaunay(points)


#: ``cupyx.scipy.spatial.distance``'s functions that SciPy has not (they take host
#: arrays, as the module's others)
DISTANCE_OVERRIDES: dict[str, Callable[..., Any]] = {
    "cupyx.scipy.spatial.distance.hellinger": hellinger,
    "cupyx.scipy.spatial.distance.kl_divergence": kl_divergence,
    "cupyx.scipy.spatial.distance.distance_matrix": distance_matrix,
    "cupyx.scipy.spatial.distance_matrix": distance_matrix,
    "cupyx.scipy.spatial.Delaunay": delaunay,  # (CuPy's checks)
    "cupyx.scipy.spatial.distance.cdist": cdist,
    "cupyx.scipy.spatial.distance.pdist": pdist,
    "cupyx.scipy.spatial.distance.minkowski": _pair_function("minkowski", with_p=True),
    **{f"cupyx.scipy.spatial.distance.{name}": _pair_function(name) for name in (
        "canberra", "chebyshev", "cityblock", "correlation", "cosine", "hamming",
        "euclidean", "jensenshannon", "russellrao", "sqeuclidean")},
    # cuVS is what the CPU backend's distances stand for: always available
    "cupyx.scipy.spatial.distance.check_soft_dependencies": lambda: None,
}
