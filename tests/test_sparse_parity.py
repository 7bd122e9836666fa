"""``cupyx.scipy.sparse`` matrices' methods, operators and module functions answer as
CuPy 14.2's do (its ``cupyx/scipy/sparse/*.py``, cited per test), where SciPy's differ:
result formats (``_spbase`` runs what a format does not override on ``self.tocsr()``),
dtypes, layouts, refusals and their words.
"""
from __future__ import annotations

import warnings

import numpy
import pytest

pytestmark = pytest.mark.timeout(120)

DENSE = numpy.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [4.0, 5.0, 0.0]], dtype=numpy.float32)


def _matrix(cp, sp, fmt):
    if fmt == "dia":  # (CuPy's dia_matrix takes no dense array, _dia.py's __init__:
        import scipy.sparse  # a SciPy matrix, or (data, offsets))
        return sp.dia_matrix(scipy.sparse.dia_matrix(DENSE))
    return getattr(sp, f"{fmt}_matrix")(cp.asarray(DENSE))


@pytest.mark.parametrize("fmt", ["csc", "coo", "dia"])
def test_comparisons_maximum_and_division_are_csr(cp, sp, fmt):
    # _base.py: _spbase.__lt__/__ne__/maximum/minimum/__truediv__ are
    # ``self.tocsr().<op>(other)``; only _csr.py defines them
    a = _matrix(cp, sp, fmt)
    for result in (a != a, a > 1, a.maximum(a), a.minimum(-1), a / 2):
        assert result.format == "csr", result
    assert (a / 2).dtype == numpy.float64  # (_csr.__truediv__: float32 to float64)
    assert type(a / cp.asarray(DENSE + 1)) is sp.coo_matrix  # (tocoo, then the kernel)


@pytest.mark.parametrize("fmt", ["coo", "dia"])
def test_coo_and_dia_arithmetic_is_csr(cp, sp, fmt):
    # _base.py: __add__/__sub__ are ``self.tocsr().__add__``; spmatrix.__mul__ is
    # _matmul_dispatch, _spbase's ``self.tocsr()._matmul_dispatch`` for COO and DIA
    a = _matrix(cp, sp, fmt)
    for result in (a + 0, a - a, a * 2, 2 * a, a @ a, a * a):
        assert result.format == "csr", result


def test_coo_dot_of_a_scalar_stays_coo(cp, sp):
    # _coo.py: _coo_base.dot of a scalar is _from_parts(self.data * other, ...)
    assert _matrix(cp, sp, "coo").dot(2).format == "coo"


def test_csc_products_of_sparse_operands_are_csr(cp, sp):
    # _csc.py: _matmul_dispatch of a CSR/CSC operand returns cuSPARSE's spgemm/csrgemm
    # CSR (``_as_csr_type``); of a scalar, ``_with_data`` (CSC); ** is ``@`` (_matfuncs)
    c = _matrix(cp, sp, "csc")
    for result in (c @ c, c.dot(c), c * c, c ** 2, c @ _matrix(cp, sp, "csr")):
        assert result.format == "csr", result
    assert (c * 2).format == "csc" and (c ** 1).format == "csc"


def test_matrix_power_zero_is_a_csr_identity(cp, sp):
    # _base.py: spmatrix.__pow__ -> _pow_by_squaring, power 0: identity(n, dtype, 'csr')
    result = _matrix(cp, sp, "csr") ** 0
    assert type(result) is sp.csr_matrix and result.dtype == numpy.float32


def test_dia_transpose_is_csc(cp, sp):
    # _base.py: _spbase.transpose is ``self.tocsr(copy=copy).transpose(...)`` (DIA has
    # none of its own), and ``T`` is ``self.transpose()``
    a = _matrix(cp, sp, "dia")
    assert a.transpose().format == "csc" and a.T.format == "csc"


def test_transpose_refuses_axes(cp, sp):
    # _csr.py: transpose raises for any ``axes``
    with pytest.raises(ValueError, match="do not support an 'axes' parameter"):
        _matrix(cp, sp, "csr").transpose(axes=(1, 0))


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_nonzero_scalar_addition_message(cp, sp, fmt):
    # _compressed.py: _add raises one message for +, - and the reflected forms
    a = _matrix(cp, sp, fmt)
    for op in (lambda: a + 1, lambda: a - 1, lambda: 1 - a):
        with pytest.raises(NotImplementedError,
                           match="^adding a nonzero scalar to a sparse matrix is not"):
            op()


def test_dense_results_are_c_ordered(cp, sp):
    # _compressed._add: ``self.todense() + other`` (CSC's toarray is C-ordered);
    # _base._rmatmul_dispatch: ``(self.T._matmul_dispatch(other.T)).T`` of cuSPARSE's
    # F-ordered product
    c = _matrix(cp, sp, "csc")
    dense = cp.asarray(DENSE)
    for result in (c + dense, dense + c, dense @ c, dense @ _matrix(cp, sp, "csr")):
        assert result.flags.c_contiguous and not result.flags.f_contiguous


def test_division_by_a_dense_array_of_another_dtype(cp, sp):
    # _csr.py: __truediv__ runs _cupy_divide_by_dense ('T data, ..., raw T other')
    a = _matrix(cp, sp, "csr")
    with pytest.raises(TypeError, match="Type is mismatched. other float64 float32 T"):
        a / cp.asarray(DENSE + 1, dtype=numpy.float64)


def test_maximum_with_a_scalar_does_not_warn(cp, sp):
    # _csr.py: _maximum_minimum densifies for a positive scalar without a warning
    a = _matrix(cp, sp, "csr")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert a.maximum(1).format == "csr" and a.minimum(-1).format == "csr"


def test_comparison_warnings_in_cupys_words(cp, sp):
    # _csr.py: _comparison's SparseEfficiencyWarnings
    a = _matrix(cp, sp, "csr")
    with pytest.warns(Warning, match=r"Comparing a sparse matrix with 1\.0 using < is "
                                     r"inefficient\. Try using >= instead\."):
        a < 1
    with pytest.warns(Warning, match="Comparing sparse matrices using ==, <=, and >= is "
                                     "inefficient, try using !=, <, or > instead."):
        a == a


def test_power_refusals(cp, sp):
    # _data.py: power of 0, of an array
    a = _matrix(cp, sp, "csr")
    with pytest.raises(NotImplementedError, match=r"Use cupy\.ones\(A\.shape"):
        a.power(0)
    with pytest.raises(NotImplementedError, match="input is not scalar"):
        a.power(cp.asarray(DENSE))
    with pytest.raises(NotImplementedError, match=r"Use cupy\.ones\(A\.shape"):
        sp.csr_array(cp.asarray(DENSE)) ** 0  # (_spbase.__pow__ of an array: power)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_setdiag_keeps_the_dtype(cp, sp, fmt):
    # _csr.py/_coo.py: setdiag casts ``cupy.asarray(values, dtype=self.dtype)``
    a = _matrix(cp, sp, fmt)
    a.setdiag(cp.asarray([7.0, 8.0], dtype=numpy.float64), k=1)
    assert a.dtype == numpy.float32
    assert a.toarray()[0, 1] == 7.0 and a.toarray()[1, 2] == 8.0
    with pytest.raises(ValueError, match="^k exceeds matrix dimensions$"):
        a.setdiag(1.0, k=3)


def test_dia_has_no_setdiag(cp, sp):
    # _base.py: _spbase.setdiag raises NotImplementedError; _dia.py has none
    with pytest.raises(NotImplementedError):
        _matrix(cp, sp, "dia").setdiag(1.0)


def test_count_nonzero_and_getnnz(cp, sp):
    # _compressed.py: count_nonzero is ``int(...)``; along an axis intp counts;
    # _getnnz of an axis raises
    for fmt in ("csr", "csc", "coo"):
        a = _matrix(cp, sp, fmt)
        assert type(a.count_nonzero()) is int and a.count_nonzero() == 5
        for axis in (0, 1):
            assert a.count_nonzero(axis=axis).dtype == numpy.int64
        with pytest.raises(NotImplementedError,
                           match=f"getnnz over an axis is not implemented for "
                                 f"{fmt.upper()} format"):
            a.getnnz(axis=0)


def test_argmax_of_the_whole_matrix_is_an_array(cp, sp):
    # _data.py: _arg_min_or_max returns cupy.where(...) (int64), or 0 when nnz == 0
    a = _matrix(cp, sp, "csr")
    result = a.argmax()
    assert isinstance(result, cp.ndarray) and result.dtype == numpy.int64 and \
        result.shape == () and int(result) == 7
    assert sp.csr_matrix((3, 3), dtype=numpy.float32).argmax() == 0


def test_min_max_out_and_axis(cp, sp):
    # _data.py: _min_or_max refuses out; _sputils.validateaxis
    a = _matrix(cp, sp, "csr")
    with pytest.raises(ValueError, match="^Sparse matrices do not support an 'out' "):
        a.max(out=cp.zeros(()))
    with pytest.raises(ValueError, match="^axis out of range$"):
        a.min(axis=2)
    with pytest.raises(TypeError, match="Tuples are not accepted"):
        a.argmax(axis=(0,))


@pytest.mark.parametrize("fmt", ["coo", "dia"])
def test_getrow_of_coo_and_dia(cp, sp, fmt):
    # _base.py: spmatrix.getrow calls self._getrow, which only _csr.py/_csc.py define
    with pytest.raises(AttributeError, match="has no attribute '_getrow'"):
        _matrix(cp, sp, fmt).getrow(0)


def test_eye_refuses_integer_compressed_formats(cp, sp):
    # _construct.py: eye builds CSR/CSC/COO with their constructors (is_sparse_data_dtype)
    with pytest.raises(ValueError, match="Only bool, float32"):
        sp.eye(3, dtype=int, format="csr")
    with pytest.raises(ValueError, match="Only bool, float32"):
        sp.identity(3, dtype=int, format="coo")
    assert sp.eye(3, dtype=int).format == "dia"  # (spdiags: DIA has no such check)


def test_dia_constructor_refuses_a_device_sparse_matrix(cp, sp):
    # _dia.py: __init__ converts only SciPy's sparse matrices
    with pytest.raises(ValueError, match="unrecognized form for dia_matrix constructor"):
        sp.dia_matrix(_matrix(cp, sp, "csr"))


def test_stacking_shape_errors(cp, sp):
    # _construct.py: bmat's checks; the CSR vstack fast path's _compressed_sparse_stack
    a = _matrix(cp, sp, "csr")
    short = sp.csr_matrix(cp.asarray(DENSE[:2]))
    with pytest.raises(ValueError, match=r"^blocks\[0,:\] has incompatible row dimensions\. "
                                         r"Got blocks\[0,1\]\.shape\[0\] == 2, expected 3\.$"):
        sp.hstack([a, short])
    with pytest.raises(ValueError, match="^incompatible dimensions for axis 1$"):
        sp.vstack([a, sp.csr_matrix(cp.asarray(DENSE[:, :2]))])


def test_a_0d_device_array_is_no_scalar_to_addition(cp, sp):
    """``_compressed._add``: ``cupy.isscalar`` is False for a 0-d array, which is dense:
    ``self.todense() + other`` (NEP 50: a 0-d array's type counts), where a nonzero
    Python scalar is refused."""
    A = sp.csr_matrix(cp.eye(3, dtype=cp.float32))
    got = A + cp.asarray(2.0)
    assert isinstance(got, cp.ndarray) and got.dtype == numpy.float64
    numpy.testing.assert_array_equal(got.get(), numpy.eye(3) + 2.0)
    got = cp.asarray(5, cp.int8) - sp.coo_matrix(A)  # (int8 and float32: float32)
    assert isinstance(got, cp.ndarray) and got.dtype == numpy.float32
    numpy.testing.assert_array_equal(got.get(), 5 - numpy.eye(3))
    with pytest.raises(NotImplementedError, match="adding a nonzero scalar"):
        A + 2.0


def test_a_new_stored_element_warns_in_cupys_words(cp, sp):
    """``_compressed._set_many``: 'Changing the sparsity structure of a csr_matrix is
    expensive.' (SciPy adds advice on lil and dok); a stored element's change is quiet."""
    A = sp.csr_matrix(cp.eye(3, dtype=cp.float32))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        A[0, 0] = 2.0
    assert [str(w.message) for w in caught] == []
    with pytest.warns(sp.SparseEfficiencyWarning) as caught:
        A[0, 1] = 5.0
    assert [str(w.message) for w in caught] == [
        "Changing the sparsity structure of a csr_matrix is expensive."]
    with pytest.warns(sp.SparseEfficiencyWarning) as caught:
        sp.csc_matrix(cp.eye(2))[1, 0] = 1.0
    assert [str(w.message) for w in caught] == [
        "Changing the sparsity structure of a csc_matrix is expensive."]
    numpy.testing.assert_array_equal(A.todense().get(), [[2, 5, 0], [0, 1, 0], [0, 0, 1]])
