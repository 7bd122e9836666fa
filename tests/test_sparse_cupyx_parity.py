"""``cupyx.scipy.sparse`` as CuPy 14.2's, where its own cupyx tests found gpushare apart:
the dtype refusal before the cast, ``maxprint``, bool sums, in-place bool scaling, 1-d
shapes and axes, and CuPy's words for its refusals."""
from __future__ import annotations

import warnings

import numpy
import pytest

pytestmark = pytest.mark.timeout(240)


@pytest.mark.parametrize("fmt", ["coo", "csr", "csc"])
def test_unsupported_dtype_refused_before_the_cast(cp, sp, fmt):
    data = cp.array([1 - 1j, 2 - 1j], "F")
    idx = cp.array([0, 1], "i")
    arg = (data, (idx, idx)) if fmt == "coo" else (data, idx, cp.array([0, 1, 2], "i"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no ComplexWarning first)
        with pytest.raises(ValueError, match="Only bool, float32"):
            getattr(sp, f"{fmt}_matrix")(arg, shape=(2, 2), dtype="i")
    # nothing is left pending: the session's next call is fine
    assert getattr(sp, f"{fmt}_matrix")(arg, shape=(2, 2)).nnz == 2


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "dia"])
def test_maxprint_keyword(cp, sp, fmt):
    cls = getattr(sp, f"{fmt}_array")
    if fmt == "dia":
        arg = (cp.array([[1., 2.]]), cp.array([0], dtype="i"))
        A, B = cls(arg, shape=(2, 2), maxprint=10), cls(arg, shape=(2, 2))
    else:
        A, B = cls(cp.array([[1., 2.]]), maxprint=10), cls(cp.array([[1., 2.]]))
    assert A.maxprint == 10 and B.maxprint == 50
    B.maxprint = 7
    assert B.maxprint == 7 and A.maxprint == 10


def test_bool_sum_coalesces_duplicates_without_mutating(cp, sp):
    A = sp.coo_array((cp.array([True, True]), (cp.array([0, 0]), cp.array([1, 1]))),
                     shape=(2, 3))
    r = A.sum(axis=0)
    assert r.dtype == numpy.int64
    assert r.get().tolist() == [0, 1, 0]
    assert int(A.sum()) == 1
    assert abs(float(A.mean()) - 1 / 6) < 1e-12
    assert A.nnz == 2
    v = sp.coo_array((cp.array([True, True]), (cp.array([1, 1]),)), shape=(3,))
    assert int(v.sum()) == 1 and v.nnz == 2


@pytest.mark.parametrize("op,expected", [("imul", 2.0), ("itruediv", 0.5)])
def test_in_place_bool_scale_promotes_to_float64(cp, sp, op, expected):
    import operator
    A = sp.csr_array(cp.array([[True, False], [False, True]]))
    old = A
    A = getattr(operator, op)(A, 2)
    assert A is old
    assert A.dtype == numpy.float64
    assert A.data.get().tolist() == [expected, expected]
    B = sp.csr_array(cp.array([[1., 0.], [0., 2.]], "f"))
    B *= 2.0
    assert B.dtype == numpy.float32 and B.data.get().tolist() == [2.0, 4.0]


@pytest.mark.parametrize("fmt", ["csr", "coo"])
def test_1d_count_nonzero_axis(cp, sp, fmt):
    v = getattr(sp, f"{fmt}_array")((cp.array([1., 0., 2.]), (cp.array([0, 1, 3]),)),
                                    shape=(5,))
    for axis in (None, 0, -1, (0,)):
        assert v.count_nonzero(axis=axis) == 2
    with pytest.raises(ValueError, match="axis 1 is out of bounds for 1-D array"):
        v.count_nonzero(axis=1)


def test_matrix_power_checks(cp, sp):
    from gpushare.cupyx.scipy.sparse.linalg import matrix_power
    A = sp.csr_array(cp.eye(3))
    with pytest.raises(ValueError, match=">= 0"):
        matrix_power(A, -1)
    with pytest.raises(ValueError, match="exponent must be an integer"):
        matrix_power(A, 2.0)
    with pytest.raises(TypeError, match="square"):
        matrix_power(sp.csr_array(cp.ones((2, 3))), 2)
    one = matrix_power(A, 0)
    assert one.format == "csr" and isinstance(one, sp.sparray)
    assert (matrix_power(A * 2.0, 3).toarray().get() == 8 * numpy.eye(3)).all()


def test_1d_tuple_key_too_many_indices(cp, sp):
    v = sp.csr_array(cp.array([1., 0., 2.]))
    with pytest.raises(IndexError, match="too many indices for array: array is 1-dim"):
        v[1, 2] = 9.
    with pytest.raises(IndexError, match="too many indices"):
        v[1, 2]
    assert v.toarray().get().tolist() == [1., 0., 2.]
    assert float(v[2]) == 2.0


def test_coo_shape_dimensions(cp, sp):
    with pytest.raises(ValueError, match="1-D and 2-D"):
        sp.coo_array((2, 3, 4))
    with pytest.raises(TypeError):
        sp.coo_matrix((5,))
    dense = cp.array([[1., 0., 2.], [0., 9., 0.]])
    with pytest.raises(ValueError, match="cannot use a 1-D shape"):
        sp.coo_array(sp.coo_array(dense), shape=(6,))
    with pytest.raises(ValueError):
        sp.csr_array(sp.csr_array(dense), shape=(6,))
    with pytest.raises(ValueError, match="cannot use a 2-D shape"):
        sp.coo_array(sp.coo_array(cp.array([0., 1., 2.])), shape=(1, 3))


@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_1d_sparse_new_shape(cp, sp, fmt):
    cls = getattr(sp, f"{fmt}_array")
    v = cls(cp.array([0., 1., 0., 2.]))
    r = cls(v, shape=(6,))
    assert r.shape == (6,)
    assert r.toarray().get().tolist() == [0., 1., 0., 2., 0., 0.]
    with pytest.raises(ValueError, match="column index exceeds"):
        cls(v, shape=(2,))


def test_coo_array_from_scipy_1d(cp, sp):
    import scipy.sparse
    v = sp.coo_array(scipy.sparse.coo_array(numpy.array([0., 1., 0., 2.])))
    assert v.shape == (4,)
    assert v.toarray().get().tolist() == [0., 1., 0., 2.]


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_one_row_plus_1d_stays_2d(cp, sp, fmt):
    A = getattr(sp, f"{fmt}_array")(cp.array([[1., 2., 3.]]))
    b = sp.csr_array(cp.array([1., 1., 1.]))
    assert (A + b).shape == (1, 3) and (A - b).shape == (1, 3)
    assert (A + b).toarray().get().tolist() == [[2., 3., 4.]]


def test_block_diag_of_lists_and_tuples(cp, sp):
    res = sp.block_diag([(1, 2), [[3]]])
    assert res.dtype == numpy.float64
    assert res.toarray().get().tolist() == [[1., 2., 0.], [0., 0., 3.]]
