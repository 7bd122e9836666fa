"""``cupyx.scipy.sparse``'s int64 index semantics as CuPy 14.2's
(``cupyx/scipy/sparse/_compressed.py``, ``_coo.py``, ``_construct.py``, ``_dia.py``,
``_index.py``): ``_from_parts`` keeps the index dtype it is given, methods keep int64
indices, wide matrices are indexed and multiplied in O(nnz) space.
"""
from __future__ import annotations

import numpy
import pytest

pytestmark = pytest.mark.timeout(240)

LARGE = 2 ** 31 + 5  # (a column index past int32)


def _csr64(cp, sp, cls="csr_matrix"):
    return getattr(sp, cls)._from_parts(
        cp.array([1.0, 2.0, 3.0]), cp.array([0, 1, 2], dtype=cp.int64),
        cp.array([0, 1, 2, 3], dtype=cp.int64), (3, 3), has_canonical_format=True)


def test_from_parts_keeps_int64_and_checks_as_cupy(cp, sp):
    m = _csr64(cp, sp)
    assert m.indices.dtype == numpy.int64 and m.indptr.dtype == numpy.int64
    assert m.has_canonical_format is True and m.has_sorted_indices is True
    numpy.testing.assert_array_equal(m.toarray().get(), numpy.diag([1.0, 2.0, 3.0]))
    c = sp.coo_matrix._from_parts(cp.array([1.0]), cp.array([1], dtype=cp.int64),
                                  cp.array([2], dtype=cp.int64), (3, 3))
    assert c.row.dtype == numpy.int64 and c.col.dtype == numpy.int64
    assert c.has_canonical_format is False
    i64 = cp.array([0, 1, 2], dtype=cp.int64)
    with pytest.raises(ValueError, match="indices and indptr must have the same dtype"):
        sp.csr_matrix._from_parts(cp.ones(3), i64, cp.array([0, 1, 2, 3], dtype=cp.int32),
                                  (3, 3))
    with pytest.raises(ValueError, match=r"indptr has length 4, expected 3 \(major"):
        sp.csc_matrix._from_parts(cp.ones(3), i64, cp.array([0, 1, 2, 3], dtype=cp.int64),
                                  (3, 2))
    with pytest.raises(ValueError, match="has_canonical_format=True implies sorted"):
        sp.csr_matrix._from_parts(cp.ones(3), i64, cp.array([0, 1, 2, 3], dtype=cp.int64),
                                  (3, 3), has_canonical_format=True,
                                  has_sorted_indices=False)
    with pytest.raises(ValueError, match="row and col must have the same dtype"):
        sp.coo_matrix._from_parts(cp.ones(3), i64, i64.astype(cp.int32), (3, 3))
    with pytest.raises(ValueError, match="too large for index dtype int32"):
        sp.coo_matrix._from_parts(cp.ones(1), cp.zeros(1, cp.int32), cp.zeros(1, cp.int32),
                                  (3, 2 ** 31))
    assert not hasattr(sp.dia_matrix, "_from_parts")


def test_methods_keep_int64_indices(cp, sp):
    m = _csr64(cp, sp)
    for result in (m.copy(), abs(m), -m, m * 2.0, m.T, m.real, m[0:2], m[[0, 2]],
                   m.tocsc(), m @ m):
        idx = (result.row, result.col) if result.format == "coo" else (
            result.indices, result.indptr)
        assert all(a.dtype == numpy.int64 for a in idx), result
    with pytest.warns(sp.SparseEfficiencyWarning, match="Changing the sparsity structure"):
        m[0, 2] = 7.0  # (in place: a new stored element, CuPy's warning)
    assert m.indices.dtype == numpy.int64 and float(m[0, 2]) == 7.0
    c = m.tocoo()
    c.has_canonical_format = True
    assert c.copy().has_canonical_format is True  # (_coo._with_data keeps the flag)
    assert c.T.row.dtype == numpy.int64 and c.reshape((1, 9)).col.dtype == numpy.int64


def test_coo_row_col_assignment_keeps_the_given_dtype(cp, sp):
    data = cp.array([1.0, 2.0])
    row, col = cp.array([0, 1], dtype=cp.int64), cp.array([1, 0], dtype=cp.int64)
    m = sp.coo_matrix((data, (row, col)), shape=(2, 2))
    assert m.row.dtype == numpy.int32  # (the constructor's check_contents)
    m.row, m.col = row, col
    assert m.row.dtype == numpy.int64 and m.col.dtype == numpy.int64
    assert m.tocsr().indices.dtype == numpy.int64


def test_kron_sparray_keeps_matrix_narrows(cp, sp):
    a = sp.csr_array._from_parts(cp.ones(2), cp.array([0, 1], dtype=cp.int64),
                                 cp.array([0, 1, 2], dtype=cp.int64), (2, 2))
    assert sp.kron(a, a).row.dtype == numpy.int64
    b = sp.csr_matrix._from_parts(cp.ones(2), cp.array([0, 1], dtype=cp.int64),
                                  cp.array([0, 1, 2], dtype=cp.int64), (2, 2))
    assert sp.kron(b, b).row.dtype == numpy.int32


def test_bmat_formats_and_index_dtype_as_cupy(cp, sp):
    a = sp.csr_matrix(cp.eye(3))
    assert sp.bmat([[a, a]]).format == "coo"  # (CuPy's fast path: one block column)
    assert sp.hstack([a, a]).format == "coo"
    assert sp.vstack([a, a]).format == "csr"
    d = sp.dia_matrix((cp.ones((1, 3)), cp.array([0], dtype=cp.int32)), shape=(3, 3))
    assert sp.bmat([[d, a]]).row.dtype == numpy.int32
    d.offsets = cp.array([0], dtype=cp.int64)
    assert sp.bmat([[d, a]]).row.dtype == numpy.int64


def test_array_indices_wrap_and_indptr_ends_checked(cp, sp):
    a = sp.csr_matrix(cp.eye(3))
    numpy.testing.assert_array_equal(a[[5]].toarray().get(), [[0.0, 0.0, 1.0]])
    with pytest.warns(sp.SparseEfficiencyWarning):
        a[[5], [0]] = 99.0  # (_index.py: _asindices is ``x % length``)
    assert float(a[2, 0]) == 99.0
    with pytest.raises(ValueError, match=r"last index pointer \(5\) exceeds"):
        sp.csr_matrix((cp.ones(2), cp.array([0, 1], "i"), cp.array([0, 1, 5], "i")),
                      shape=(2, 5))
    with pytest.raises(ValueError, match=r"index pointer should start with 0 \(got 1\)"):
        sp.csr_matrix((cp.ones(2), cp.array([0, 1], "i"), cp.array([1, 1, 2], "i")),
                      shape=(2, 5))
    t = sp.csr_matrix((cp.array([1.0, 2.0, 9.0]), cp.array([0, 1, 4], "i"),
                       cp.array([0, 1, 2], "i")), shape=(2, 5))
    assert t.nnz == 2 and float(t.sum()) == 3.0  # (the slack past indptr[-1] trimmed)


def test_wide_matrices_index_and_multiply_in_nnz_space(cp, sp):
    m = sp.csr_matrix((cp.array([1.0, 2.0, 3.0]), cp.array([LARGE, 0, 5], dtype=cp.int64),
                       cp.array([0, 2, 3], dtype=cp.int64)), shape=(2, LARGE + 1))
    sub = m[:, [0, 5, LARGE, LARGE]]
    assert sub.shape == (2, 4) and sub.indices.dtype == numpy.int64
    assert sub.has_sorted_indices
    numpy.testing.assert_array_equal(sub.toarray().get(),
                                     [[2.0, 0.0, 1.0, 1.0], [0.0, 3.0, 0.0, 0.0]])
    a = sp.csr_matrix((cp.array([2.0, 3.0]), cp.array([0, 1], dtype=cp.int64),
                       cp.array([0, 2, 2], dtype=cp.int64)), shape=(2, 2))
    b = sp.csr_matrix((cp.array([5.0, 7.0]), cp.array([LARGE, LARGE], dtype=cp.int64),
                       cp.array([0, 1, 2], dtype=cp.int64)), shape=(2, LARGE + 1))
    c = a @ b
    assert c.shape == (2, LARGE + 1) and c.indices.dtype == numpy.int64 and c.nnz == 1
    assert int(c.indices[0]) == LARGE and float(c.data[0]) == 31.0
    d = sp.dia_matrix((cp.ones((1, 2)), cp.array([0], dtype=cp.int32)), shape=(LARGE, 2))
    csc = d.tocsc()
    assert csc.indices.dtype == numpy.int64 and csc.nnz == 2
    assert csc.tocoo().row.tolist() == [0, 1]
