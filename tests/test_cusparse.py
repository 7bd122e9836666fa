"""``cupyx.cusparse`` on the CPU backend: CuPy 14.2's checks and results
(``cupyx/cusparse.py``) as cuSPARSE 12.0 gives them, against SciPy's arithmetic; what
the routines write (``y``, ``c``, ``out``, sorted indices, ILU factors) is seen by the
client's objects."""
from __future__ import annotations

import importlib

import numpy
import pytest
import scipy.sparse

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def cusparse(cp):
    return importlib.import_module("gpushare.cupyx.cusparse")


def _get(a):
    return a.get() if hasattr(a, "get") else a


def _rand_sparse(m, n, density, dtype, fmt, seed=0):
    return scipy.sparse.random(m, n, density=density, format=fmt, dtype=dtype,
                               random_state=seed)


# --- availability ---------------------------------------------------------------------

def test_check_availability_is_cuda_12s(cp, cusparse):
    assert cusparse.getVersion() == 12000
    for name in ("csrgeam2", "spmv", "spmm", "csrsort", "cscsort", "coosort", "coo2csr",
                 "csr2coo", "csr2cscEx2", "csc2csrEx2", "csr2csr_compress", "csrilu02",
                 "denseToSparse", "sparseToDense", "spgemm", "spsm"):
        assert cusparse.check_availability(name) is True, name
    for name in ("csrmv", "csrmm", "csrmm2", "csrgeam", "csrgemm", "csrgemm2", "gthr",
                 "csr2dense", "csc2dense", "csr2csc", "csc2csr", "dense2csc", "dense2csr",
                 "csrsm2", "spgeam", "spgemm_int64"):
        assert cusparse.check_availability(name) is False, name
    with pytest.raises(ValueError, match="No available version information specified "
                                         "for nope"):
        cusparse.check_availability("nope")


def test_removed_routines_refuse_as_cupy(cp, sp, cusparse):
    a = sp.csr_matrix(cp.asarray(numpy.eye(3, dtype="f")))
    x = cp.ones(3, dtype="f")
    with pytest.raises(RuntimeError, match="^csrmv is not available.$"):
        cusparse.csrmv(a, x)
    with pytest.raises(RuntimeError, match="^csrgemm is not available.$"):
        cusparse.csrgemm(a, a)
    with pytest.raises(RuntimeError, match="^dense2csr is not available.$"):
        cusparse.dense2csr(cp.eye(3))
    with pytest.raises(RuntimeError, match="^csr2csc is not available.$"):
        cusparse.csr2csc(a)


# --- products and sums ------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("transa", [False, True])
def test_spmv_writes_y(cp, sp, cusparse, fmt, transa):
    a_host = _rand_sparse(4, 3, 0.6, "d", fmt, 1)
    m = 3 if transa else 4
    x_host = numpy.arange(1, (4 if transa else 3) + 1, dtype="d")
    y_host = numpy.linspace(-1, 1, m)
    a = getattr(sp, f"{fmt}_matrix")(a_host)
    if not a.has_canonical_format:  # (CuPy's spmv asks for it)
        with pytest.raises(ValueError, match="expected canonical format"):
            cusparse.spmv(a, cp.asarray(x_host), transa=transa)
        a.sum_duplicates()
    y = cp.asarray(y_host)
    z = cusparse.spmv(a, cp.asarray(x_host), y=y, alpha=0.5, beta=0.25, transa=transa)
    op = a_host.T if transa else a_host
    expect = 0.5 * (op @ x_host) + 0.25 * y_host
    numpy.testing.assert_allclose(y.get(), expect, rtol=1e-12)
    numpy.testing.assert_allclose(z.get(), expect, rtol=1e-12)
    with pytest.raises(ValueError, match="dimension mismatch"):
        cusparse.spmv(a, cp.ones(7))


def test_spmm_gives_an_f_ordered_c(cp, sp, cusparse):
    a_host = _rand_sparse(5, 4, 0.5, "f", "csr", 2)
    b_host = numpy.asfortranarray(numpy.arange(12, dtype="f").reshape(4, 3))
    a = sp.csr_matrix(a_host)
    c = cusparse.spmm(a, cp.asarray(b_host, order="F"), alpha=2.0)
    assert c.dtype == numpy.float32 and c.shape == (5, 3) and c.flags.f_contiguous
    numpy.testing.assert_allclose(c.get(), 2 * (a_host @ b_host), rtol=1e-5)
    with pytest.raises(ValueError, match="expected F-contiguous array for b"):
        cusparse.spmm(a, cp.ones((4, 3), dtype="f"))


@pytest.mark.parametrize("idx", ["int32", "int64"])
def test_spgemm_keeps_cancelled_entries_and_index_dtype(cp, sp, cusparse, idx):
    a_host = scipy.sparse.csr_matrix(numpy.array([[1.0, 1.0], [0.0, 2.0]]))
    b_host = scipy.sparse.csr_matrix(numpy.array([[1.0], [-1.0]]))
    a = sp.csr_matrix(a_host)
    b = sp.csr_matrix(b_host)
    if idx == "int64":
        a = sp.csr_matrix._from_parts(a.data, a.indices.astype("q"),
                                      a.indptr.astype("q"), a.shape)
        assert a.indices.dtype == numpy.int64
    c = cusparse.spgemm(a, b, alpha=3.0)
    assert c.format == "csr" and c.indices.dtype == numpy.dtype(idx)
    numpy.testing.assert_allclose(c.toarray().get(), 3 * (a_host @ b_host).toarray())
    assert c.nnz == 2  # (row 0's 1 - 1: a stored zero, as cuSPARSE's)
    with pytest.raises(ValueError, match="mismatched shape"):
        cusparse.spgemm(b, b)
    with pytest.raises(TypeError, match="unsupported type"):
        cusparse.spgemm(a.tocoo(), b)


def test_csrgeam2_and_spgeam(cp, sp, cusparse):
    a_host = _rand_sparse(6, 5, 0.4, "d", "csr", 3)
    b_host = _rand_sparse(6, 5, 0.4, "d", "csr", 4)
    a, b = sp.csr_matrix(a_host), sp.csr_matrix(b_host)
    for fn in (cusparse.csrgeam2, cusparse.spgeam):
        c = fn(a, b, alpha=2.0, beta=-1.0)
        assert c.indices.dtype == numpy.int32 and c.has_canonical_format
        numpy.testing.assert_allclose(c.toarray().get(),
                                      (2 * a_host - b_host).toarray(), rtol=1e-12)
    with pytest.raises(ValueError, match="inconsistent shapes"):
        cusparse.csrgeam2(a, sp.csr_matrix(_rand_sparse(5, 5, 0.4, "d", "csr")))
    with pytest.raises(TypeError, match="unsupported type"):
        cusparse.csrgeam2(a.tocsc(), b)


# --- sorting and conversions ---------------------------------------------------------

def test_csrsort_and_coosort_sort_in_place(cp, sp, cusparse):
    a_host = _rand_sparse(1, 50, 0.9, "f", "csr", 5)
    rng = numpy.random.default_rng(0)
    rng.shuffle(a_host.indices)
    a_host.has_sorted_indices = False
    b = sp.csr_matrix(a_host)
    assert cusparse.csrsort(b) is None
    expect = a_host.copy()
    expect.sort_indices()
    numpy.testing.assert_array_equal(b.indices.get(), expect.indices)
    numpy.testing.assert_array_equal(b.data.get(), expect.data)

    c_host = _rand_sparse(10, 10, 0.5, "f", "coo", 6)
    rng.shuffle(c_host.row)
    rng.shuffle(c_host.col)
    c = sp.coo_matrix(c_host)
    cusparse.coosort(c, sort_by="c")
    order = numpy.lexsort((c_host.row, c_host.col))
    numpy.testing.assert_array_equal(c.col.get(), c_host.col[order])
    numpy.testing.assert_array_equal(c.row.get(), c_host.row[order])
    numpy.testing.assert_array_equal(c.data.get(), c_host.data[order])
    assert not c.has_canonical_format
    with pytest.raises(ValueError, match="sort_by must be either 'r' or 'c'"):
        cusparse.coosort(c, sort_by="x")


def test_conversions(cp, sp, cusparse):
    dense = numpy.array([[0, 1.5, 0], [2, 0, 3], [0, 0, 0], [4, 0, 5]], "d")
    x = cp.asarray(dense)
    for fmt in ("csr", "csc", "coo"):
        s = cusparse.denseToSparse(x, format=fmt)
        assert s.format == fmt and s.nnz == 5
        numpy.testing.assert_array_equal(s.toarray().get(), dense)
        out = cusparse.sparseToDense(s)
        assert out.flags.f_contiguous
        numpy.testing.assert_array_equal(out.get(), dense)
    with pytest.raises(TypeError, match=r"unsupported format \(actual: bsr\)"):
        cusparse.denseToSparse(x, format="bsr")
    with pytest.raises(ValueError, match="unsupported dtype"):
        cusparse.denseToSparse(cp.ones((2, 2), dtype="i"))

    csr = sp.csr_matrix(x)
    csc = cusparse.csr2cscEx2(csr)
    assert csc.format == "csc" and csc.indices.dtype == numpy.int32
    numpy.testing.assert_array_equal(csc.toarray().get(), dense)
    back = cusparse.csc2csrEx2(csc)
    numpy.testing.assert_array_equal(back.indptr.get(), csr.indptr.get())
    numpy.testing.assert_array_equal(back.indices.get(), csr.indices.get())
    coo = cusparse.csr2coo(csr, csr.data, csr.indices)
    numpy.testing.assert_array_equal(coo.row.get(), [0, 1, 1, 3, 3])
    numpy.testing.assert_array_equal(cusparse.coo2csr(coo).indptr.get(), [0, 1, 3, 3, 5])
    coo = cusparse.csr2coo(csr, csr.data.copy(), csr.indices.copy())
    cusparse.coosort(coo, sort_by="c")  # (coo2csc, as cuSPARSE's, reads sorted columns)
    numpy.testing.assert_array_equal(cusparse.coo2csc(coo).toarray().get(), dense)
    # bool data: CuPy's own transpose, whatever cuSPARSE has
    bcsc = cusparse.csr2csc(sp.csr_matrix(x != 0))
    numpy.testing.assert_array_equal(bcsc.toarray().get(), dense != 0)

    z = sp.csr_matrix(cp.asarray(numpy.array([[0.0, 1e-9, 2.0]])))
    kept = cusparse.csr2csr_compress(z, 1e-6)
    numpy.testing.assert_array_equal(kept.data.get(), [2.0])
    numpy.testing.assert_array_equal(kept.indices.get(), [2])


# --- solvers -----------------------------------------------------------------------------

@pytest.mark.parametrize("transa", ["N", "T", "H"])
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_spsm_solves_the_triangle(cp, sp, cusparse, transa, fmt):
    rng = numpy.random.default_rng(1)
    tri = numpy.tril(rng.uniform(-1, 1, (5, 5))) + 3 * numpy.eye(5)
    tri = (tri + 1j * numpy.tril(rng.uniform(-1, 1, (5, 5)))).astype("D")
    a = getattr(sp, f"{fmt}_matrix")(cp.asarray(tri))
    b_host = rng.uniform(-1, 1, (5, 2)).astype("D")
    c = cusparse.spsm(a, cp.asarray(b_host), alpha=0.5, lower=True, transa=transa)
    op = {"N": tri, "T": tri.T, "H": tri.conj().T}[transa]
    numpy.testing.assert_allclose(op @ c.get(), 0.5 * b_host, rtol=1e-12, atol=1e-12)
    c1 = cusparse.spsm(a, cp.asarray(b_host[:, 0]), lower=True)
    assert c1.shape == (5,)
    with pytest.raises(TypeError, match="dtype mismatch"):
        cusparse.spsm(a, cp.ones(5))
    with pytest.raises(ValueError, match="mismatched shape"):
        cusparse.spsm(a, cp.ones(4, dtype="D"))


def test_csrilu02_overwrites_a(cp, sp, cusparse):
    dense = numpy.array([[4.0, 1, 0], [1, 4, 1], [0, 1, 4]])
    a = sp.csr_matrix(cp.asarray(dense))
    assert cusparse.csrilu02(a) is None
    lu = a.toarray().get()
    lower = numpy.tril(lu, -1) + numpy.eye(3)
    upper = numpy.triu(lu)
    numpy.testing.assert_allclose(lower @ upper, dense, rtol=1e-12)  # (tridiagonal: exact)
    missing = sp.csr_matrix(cp.asarray(numpy.array([[1.0, 1], [1, 0]])))
    with pytest.raises(ValueError, match=r"^a\(1,1\) is missing$"):
        cusparse.csrilu02(missing)
    with pytest.raises(TypeError, match="a must be CSR sparse matrix"):
        cusparse.csrilu02(a.tocsc())


def test_host_array_fails_at_the_pointer(cp, sp, cusparse):
    a = sp.csr_matrix(cp.asarray(numpy.eye(3)))
    with pytest.raises(AttributeError, match="'memoryview' object has no attribute 'ptr'"):
        cusparse.spmv(a, numpy.ones(3))
    with pytest.raises(TypeError, match="Argument 'a' has incorrect type"):
        cusparse.denseToSparse(numpy.ones((2, 2)))


def test_csrsort_of_bool_data_sorts_indices_then_refuses(cp, sp, cusparse):
    a_host = scipy.sparse.csr_matrix((numpy.array([True, False, True]),
                                      numpy.array([2, 0, 1], "i"),
                                      numpy.array([0, 3], "i")), shape=(1, 3))
    a = sp.csr_matrix(a_host)
    with pytest.raises(TypeError, match="dtype is not supported: bool"):
        cusparse.csrsort(a)
    numpy.testing.assert_array_equal(a.indices.get(), [0, 1, 2])
    numpy.testing.assert_array_equal(a.data.get(), [True, False, True])  # (not gathered)


def test_import_cupyx_cusparse_through_the_hook(server):
    import os
    import subprocess
    import sys
    code = ("import cupy, cupyx.cusparse\n"
            "from cupyx.cusparse import spmv, check_availability\n"
            "import cupyx.scipy.sparse as sp\n"
            "a = sp.csr_matrix(cupy.eye(3))\n"
            "print(spmv(a, cupy.arange(3.0)).get().tolist(), check_availability('csrmv'))\n")
    env = {**os.environ, "GPUSHARE_SERVER": server.address}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[0.0,", "1.0,", "2.0]", "False"]


def test_spgemm_of_a_very_wide_result_works_in_nnz_space(cp, sp, cusparse):
    # (a product 2**31 + 2 columns wide: SciPy's csr_matmat would keep two buffers of
    # that width, 16 GiB each; the product runs on the used columns only)
    wide = 2**31 + 2
    a = sp.csr_matrix((cp.array([1.0, 2.0]), cp.array([0, 1], dtype=cp.int64),
                       cp.array([0, 1, 2], dtype=cp.int64)), shape=(2, 2))
    b = sp.csr_matrix((cp.array([3.0, 4.0]), cp.array([0, wide - 1], dtype=cp.int64),
                       cp.array([0, 1, 2], dtype=cp.int64)), shape=(2, wide))
    c = cusparse.spgemm(a, b, alpha=2.0)
    assert c.shape == (2, wide) and c.indices.dtype == numpy.int64
    assert c.data.get().tolist() == [6.0, 16.0]
    assert c.indices.get().tolist() == [0, wide - 1] and c.indptr.get().tolist() == [0, 1, 2]


def test_a_scipy_coo_keeps_its_canonical_flag(cp, sp, cusparse):
    # (``_coo.py``: ``self.has_canonical_format = x.has_canonical_format`` of SciPy's
    # matrix: spsm, which asks for canonical COO, takes it)
    host = scipy.sparse.coo_matrix(numpy.tril(numpy.ones((3, 3))) + numpy.eye(3))
    host.sum_duplicates()
    a = sp.coo_matrix(host)
    assert a.has_canonical_format is True
    x = cusparse.spsm(a, cp.ones((3, 1)), lower=True)
    numpy.testing.assert_allclose(_get(x).ravel(),
                                  numpy.linalg.solve(host.toarray(), numpy.ones(3)))
    dup = scipy.sparse.coo_matrix((numpy.ones(2), ([0, 0], [0, 0])), shape=(2, 2))
    assert sp.coo_matrix(dup).has_canonical_format is False
