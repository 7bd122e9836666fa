"""``cupyx.cusolver``: CuPy's cuSOLVER wrappers (``cupyx/_cusolver.pyx``) run on the
server: results against NumPy/SciPy, CuPy's result layouts and its errors."""
from __future__ import annotations

import warnings

import numpy
import pytest

from _servers import run_python

pytestmark = pytest.mark.timeout(240)

NAMES = ("gesvdj", "gesvdjBatched", "gesvda", "potrfBatched", "potrsBatched", "syevj",
         "gesv", "gels", "csrlsvqr", "geev")


def _tol(dtype):
    return 2e-4 if numpy.dtype(dtype).char in "fF" else 1e-10


def _matrix(shape, dtype, seed=0):
    rng = numpy.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _strides_in_items(x):
    return tuple(s // x.dtype.itemsize for s in x.strides)


def test_module_is_importable_as_cupyx_cusolver(cp):
    import gpushare.cupyx as cupyx
    from gpushare.cupyx import cusolver
    assert cupyx.cusolver is cusolver
    assert cusolver.__name__ == "cupyx.cusolver"
    for name in ("check_availability", "gesv", "gels", "gesvdj", "gesvda", "syevj",
                 "csrlsvqr", "_gesvdj_batched", "_syevj_batched"):
        assert callable(getattr(cusolver, name)), name
    assert cusolver._available_cuda_version["geev"] == (11700, None)
    with pytest.raises(AttributeError, match="module 'cupyx.cusolver' has no attribute"):
        cusolver.potrf  # noqa: B018


def test_import_hook_reaches_it(server):
    code = ("from cupyx import cusolver\nimport cupyx, cupy\n"
            "assert cupyx.cusolver is cusolver\n"
            "import cupyx.cusolver as c2\nassert c2 is cusolver\n"
            "print(cusolver.check_availability('geev'), cusolver.__name__)\n"
            "a = cupy.array([[4.0, 1.0], [1.0, 3.0]])\n"
            "print(cusolver.gesv(a, cupy.array([1.0, 2.0])).get().round(6).tolist())\n")
    out = run_python(code, env={"GPUSHARE_SERVER": server.address})
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert lines[0] == "True cupyx.cusolver"
    assert lines[1] == str(numpy.linalg.solve([[4.0, 1.0], [1.0, 3.0]], [1.0, 2.0])
                           .round(6).tolist())


def test_check_availability(cp):
    from gpushare.cupyx import cusolver
    for name in NAMES:
        assert cusolver.check_availability(name) is True
    with pytest.raises(ValueError, match="^No available version information specified "
                                         "for potrf$"):
        cusolver.check_availability("potrf")
    with pytest.raises(ValueError, match="specified for geev_x"):
        cusolver.check_availability("geev_x")


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_gesvdj(cp, dtype, shape, full_matrices):
    from gpushare.cupyx import cusolver
    a_host = _matrix(shape, dtype)
    a = cp.array(a_host)
    u, s, v = cusolver.gesvdj(a, full_matrices=full_matrices)
    m, n = shape
    k = min(m, n)
    assert u.shape == ((m, m) if full_matrices else (m, k))
    assert v.shape == ((n, n) if full_matrices else (n, k))
    assert s.shape == (k,)
    assert u.dtype == v.dtype == numpy.dtype(dtype)
    assert s.dtype == numpy.dtype(dtype.lower())
    assert u.flags.f_contiguous and v.flags.f_contiguous
    uh, sh, vh = u.get(), s.get(), v.get()
    tol = _tol(dtype)
    numpy.testing.assert_allclose(sh, numpy.linalg.svd(a_host, compute_uv=False),
                                  rtol=tol, atol=tol)
    # a == u @ diag(s) @ v*: v is V, not V*
    numpy.testing.assert_allclose((uh[:, :k] * sh) @ vh[:, :k].conj().T, a_host,
                                  rtol=10 * tol, atol=10 * tol)
    numpy.testing.assert_allclose(uh.conj().T @ uh, numpy.eye(uh.shape[1]), atol=10 * tol)
    numpy.testing.assert_allclose(a.get(), a_host)  # (a copy was factorized)
    s_only = cusolver.gesvdj(a, compute_uv=False)
    assert isinstance(s_only, cp.ndarray) and s_only.dtype == s.dtype
    numpy.testing.assert_allclose(s_only.get(), sh, rtol=tol, atol=tol)


@pytest.mark.parametrize("full_matrices", [True, False])
def test_gesvdj_batched_layout(cp, full_matrices):
    from gpushare.cupyx import cusolver
    a_host = _matrix((3, 5, 4), "d")
    u, s, v = cusolver.gesvdj(cp.array(a_host), full_matrices=full_matrices)
    assert s.shape == (3, 4) and s.flags.c_contiguous
    # views of column-major (batch, m, m) / (batch, n, n) stacks, cut to k columns
    assert u.shape == ((3, 5, 5) if full_matrices else (3, 5, 4))
    assert v.shape == (3, 4, 4)
    assert _strides_in_items(u) == (25, 1, 5) and _strides_in_items(v) == (16, 1, 4)
    uh, sh, vh = u.get(), s.get(), v.get()
    numpy.testing.assert_allclose(sh, numpy.linalg.svd(a_host, compute_uv=False), rtol=1e-10)
    numpy.testing.assert_allclose((uh[..., :4] * sh[:, None, :]) @ vh.swapaxes(-2, -1),
                                  a_host, atol=1e-10)
    s2 = cusolver._gesvdj_batched(cp.array(a_host), True, False, False)
    numpy.testing.assert_allclose(s2.get(), sh, rtol=1e-12)


def test_gesvdj_errors(cp):
    from gpushare.cupyx import cusolver
    with pytest.raises(TypeError):
        cusolver.gesvdj(cp.ones((3, 3), dtype="i"))
    with pytest.raises(TypeError):
        cusolver.gesvdj(cp.ones((3, 3), dtype="e"))
    with pytest.raises(AssertionError):
        cusolver.gesvdj(cp.ones(3))
    with pytest.raises(RuntimeError, match="CUSOLVER_STATUS_INVALID_VALUE"):
        cusolver.gesvdj(cp.ones((2, 33, 3)))


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("shape", [(6, 4), (2, 3, 5, 5), (4, 7, 2)])
def test_gesvda(cp, dtype, shape):
    from gpushare.cupyx import cusolver
    a_host = _matrix(shape, dtype, seed=1)
    a = cp.array(a_host)
    u, s, v = cusolver.gesvda(a)
    m, n = shape[-2:]
    assert u.shape == shape[:-2] + (m, n) and v.shape == shape[:-2] + (n, n)
    assert s.shape == shape[:-2] + (n,) and s.flags.c_contiguous
    assert u.dtype == v.dtype == numpy.dtype(dtype) and s.dtype == numpy.dtype(dtype.lower())
    # transposed C-ordered (batch, rank, m) stacks: each matrix column-major
    assert _strides_in_items(u)[-2:] == (1, m) and _strides_in_items(v)[-2:] == (1, n)
    uh, sh, vh = u.get(), s.get(), v.get()
    tol = _tol(dtype)
    numpy.testing.assert_allclose(sh, numpy.linalg.svd(a_host, compute_uv=False),
                                  rtol=tol, atol=tol)
    numpy.testing.assert_allclose((uh * sh[..., None, :]) @ vh.conj().swapaxes(-2, -1),
                                  a_host, rtol=10 * tol, atol=10 * tol)
    s_only = cusolver.gesvda(a, compute_uv=False)
    numpy.testing.assert_allclose(s_only.get(), sh, rtol=tol, atol=tol)


def test_gesvda_errors(cp):
    from gpushare.cupyx import cusolver
    with pytest.raises(AssertionError):
        cusolver.gesvda(cp.ones((3, 5)))  # (m < n)
    with pytest.raises(AssertionError):
        cusolver.gesvda(cp.ones(4))
    with pytest.raises(TypeError):
        cusolver.gesvda(cp.ones((5, 3), dtype="l"))


def _hermitian_parts(a_host, UPLO):
    """The Hermitian matrix ``a``'s ``UPLO`` triangle stands for."""
    tri = numpy.tril(a_host) if UPLO == "L" else numpy.triu(a_host)
    diag = numpy.eye(a_host.shape[-1]) * numpy.diagonal(a_host, 0, -2, -1).real[..., None, :]
    return tri + tri.conj().swapaxes(-2, -1) - diag


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("UPLO", ["L", "U"])
def test_syevj(cp, dtype, UPLO):
    from gpushare.cupyx import cusolver
    a_host = _matrix((5, 5), dtype, seed=2)  # not Hermitian: only UPLO's triangle is read
    w, v = cusolver.syevj(cp.array(a_host), UPLO=UPLO)
    assert w.dtype == numpy.dtype(dtype.lower()) and v.dtype == numpy.dtype(dtype)
    assert v.flags.f_contiguous and w.shape == (5,)
    herm = _hermitian_parts(a_host.astype("D"), UPLO)
    tol = _tol(dtype)
    numpy.testing.assert_allclose(w.get(), numpy.linalg.eigvalsh(herm), rtol=10 * tol,
                                  atol=10 * tol)
    vh = v.get()
    numpy.testing.assert_allclose(herm @ vh, vh * w.get(), atol=20 * tol)
    w2 = cusolver.syevj(cp.array(a_host), UPLO=UPLO, with_eigen_vector=False)
    assert isinstance(w2, cp.ndarray)
    numpy.testing.assert_allclose(w2.get(), w.get(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype,w_dtype,v_dtype", [("i", "d", "d"), ("e", "e", "e"),
                                                   ("?", "d", "d")])
def test_syevj_result_dtypes(cp, dtype, w_dtype, v_dtype):
    from gpushare.cupyx import cusolver
    a_host = numpy.array([[2, 1, 0], [1, 2, 1], [0, 1, 2]]).astype(dtype)
    w, v = cusolver.syevj(cp.array(a_host))
    assert w.dtype == numpy.dtype(w_dtype) and v.dtype == numpy.dtype(v_dtype)
    numpy.testing.assert_allclose(w.get().astype("d"),
                                  numpy.linalg.eigvalsh(a_host.astype("d")), rtol=2e-3)


def test_syevj_batched(cp):
    from gpushare.cupyx import cusolver
    a_host = _matrix((2, 3, 4, 4), "d", seed=3)
    w, v = cusolver.syevj(cp.array(a_host), UPLO="U")
    assert w.shape == (2, 3, 4) and w.flags.c_contiguous
    assert v.shape == (2, 3, 4, 4) and _strides_in_items(v) == (48, 16, 1, 4)
    herm = _hermitian_parts(a_host, "U")
    numpy.testing.assert_allclose(w.get(), numpy.linalg.eigvalsh(herm), atol=1e-10)
    vh = v.get()
    numpy.testing.assert_allclose(herm @ vh, vh * w.get()[..., None, :], atol=1e-10)
    w2 = cusolver._syevj_batched(cp.array(a_host), "U", False)
    numpy.testing.assert_allclose(w2.get(), w.get(), atol=1e-12)


def test_syevj_errors(cp):
    from gpushare.cupyx import cusolver
    with pytest.raises(ValueError, match="^UPLO argument must be 'L' or 'U'$"):
        cusolver.syevj(cp.eye(3), UPLO="X")
    with pytest.raises(AssertionError):
        cusolver.syevj(cp.ones(3))


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("nrhs", [None, 1, 3])
def test_gesv(cp, dtype, nrhs):
    from gpushare.cupyx import cusolver
    n = 6
    a_host = _matrix((n, n), dtype, seed=4) + n * numpy.eye(n, dtype=dtype)
    b_host = _matrix((n,) if nrhs is None else (n, nrhs), dtype, seed=5)
    a, b = cp.array(a_host), cp.array(b_host)
    x = cusolver.gesv(a, b)
    assert x.shape == b_host.shape and x.dtype == numpy.dtype(dtype)
    assert x.flags.f_contiguous
    tol = _tol(dtype)
    numpy.testing.assert_allclose(x.get(), numpy.linalg.solve(a_host, b_host), rtol=tol,
                                  atol=tol)
    numpy.testing.assert_array_equal(a.get(), a_host)  # CuPy solves copies
    numpy.testing.assert_array_equal(b.get(), b_host)


def test_gesv_errors_are_cupys(cp):
    from gpushare.cupyx import cusolver
    a, b = cp.eye(3), cp.ones((3, 2))
    with pytest.raises(ValueError, match=r"^a.ndim must be 2 \(actual:3\)$"):
        cusolver.gesv(a.reshape(1, 3, 3), b)
    with pytest.raises(ValueError, match=r"^b.ndim must be 1 or 2 \(actual:3\)$"):
        cusolver.gesv(a, b.reshape(1, 3, 2))
    with pytest.raises(ValueError, match=r"^a must be a square matrix.$"):
        cusolver.gesv(cp.ones((3, 4)), b)
    with pytest.raises(ValueError, match=r"^shape mismatch \(a:\(4, 4\), b:\(3, 2\)\).$"):
        cusolver.gesv(cp.eye(4), b)
    with pytest.raises(ValueError, match=r"^dtype mismatch \(a:float32, b:float64\).$"):
        cusolver.gesv(cp.eye(3, dtype="f"), b)
    # (``_linalg.get_compute_type`` refuses an integer first: an H200's words)
    with pytest.raises(TypeError, match=r"^dtype is not supported: int32$"):
        cusolver.gesv(cp.eye(3, dtype="i"), cp.ones((3, 2), dtype="i"))
    with pytest.raises(ValueError, match=r"^unsupported dtype \(actual:float16\)$"):
        cusolver.gesv(cp.eye(3, dtype="e"), cp.ones((3, 2), dtype="e"))


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("shape,nrhs", [((7, 4), None), ((7, 4), 1), ((7, 4), 3),
                                        ((5, 5), None), ((5, 5), 2)])
def test_gels(cp, dtype, shape, nrhs):
    from gpushare.cupyx import cusolver
    m, n = shape
    a_host = _matrix(shape, dtype, seed=6) + numpy.eye(m, n, dtype=dtype) * 3
    b_host = _matrix((m,) if nrhs is None else (m, nrhs), dtype, seed=7)
    x = cusolver.gels(cp.array(a_host), cp.array(b_host))
    assert x.shape == ((n,) if nrhs is None else (n, nrhs)) and x.dtype == numpy.dtype(dtype)
    if nrhs is not None and nrhs > 1:  # the first n rows of an F-ordered (m, nrhs) buffer
        assert _strides_in_items(x) == (1, m)
    tol = _tol(dtype)
    expected = numpy.linalg.lstsq(a_host.astype("D"), b_host.astype("D"), rcond=None)[0]
    numpy.testing.assert_allclose(x.get(), expected, rtol=20 * tol, atol=20 * tol)


def test_gels_errors_are_cupys(cp):
    from gpushare.cupyx import cusolver
    with pytest.raises(ValueError, match=r"^a.ndim must be 2 \(actual:1\)$"):
        cusolver.gels(cp.ones(3), cp.ones(3))
    with pytest.raises(ValueError, match=r"^b.ndim must be 1 or 2 \(actual: 3\)$"):
        cusolver.gels(cp.ones((3, 2)), cp.ones((3, 1, 1)))
    with pytest.raises(ValueError, match=r"^shape mismatch \(a:\(3, 2\), b:\(4,\)\).$"):
        cusolver.gels(cp.ones((3, 2)), cp.ones(4))
    with pytest.raises(ValueError, match=r"^dtype mismatch \(a:float64, b:complex128\).$"):
        cusolver.gels(cp.ones((3, 2)), cp.ones(3, dtype="D"))
    with pytest.raises(ValueError, match=r"^m must be equal to or greater than n.$"):
        cusolver.gels(cp.ones((2, 3)), cp.ones(2))
    with pytest.raises(TypeError, match=r"^dtype is not supported: int64$"):
        cusolver.gels(cp.ones((3, 2), dtype="l"), cp.ones(3, dtype="l"))
    with pytest.raises(ValueError, match=r"^unsupported dtype \(actual:float16\)$"):
        cusolver.gels(cp.ones((3, 2), dtype="e"), cp.ones(3, dtype="e"))


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
def test_csrlsvqr(cp, sp, dtype):
    from gpushare.cupyx import cusolver
    n = 8
    dense = _matrix((n, n), dtype, seed=8) * (numpy.random.default_rng(9).random((n, n)) < 0.3)
    dense = dense + 4 * numpy.eye(n, dtype=dtype)
    b_host = _matrix((n,), dtype, seed=10)
    A = sp.csr_matrix(cp.array(dense))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = cusolver.csrlsvqr(A, cp.array(b_host))
    assert x.shape == (n,) and x.dtype == numpy.dtype(dtype) and x.flags.c_contiguous
    tol = _tol(dtype)
    numpy.testing.assert_allclose(x.get(), numpy.linalg.solve(dense, b_host), rtol=10 * tol,
                                  atol=10 * tol)


def test_csrlsvqr_singular_warns(cp, sp):
    from gpushare.cupyx import cusolver
    dense = numpy.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    A = sp.csr_matrix(cp.array(dense))
    with pytest.warns(UserWarning, match=r"^A is not positive definite or near singular "
                                         r"under tolerance 1e-10 \(singularity: \[\d\]\)$"):
        cusolver.csrlsvqr(A, cp.ones(3), tol=1e-10)
    with warnings.catch_warnings():  # (a negative tolerance is 0: R's diagonal is not 0)
        warnings.simplefilter("error")
        cusolver.csrlsvqr(sp.csr_matrix(cp.eye(3)), cp.ones(3), tol=-1.0)


def test_csrlsvqr_errors_are_cupys(cp, sp):
    from gpushare.cupyx import cusolver
    A = sp.csr_matrix(cp.eye(3))
    with pytest.raises(ValueError, match="^A must be CSR sparse matrix$"):
        cusolver.csrlsvqr(sp.csc_matrix(cp.eye(3)), cp.ones(3))
    with pytest.raises(ValueError, match="^A must be CSR sparse matrix$"):
        cusolver.csrlsvqr(cp.eye(3), cp.ones(3))
    with pytest.raises(ValueError, match="^b must be cupy.ndarray$"):
        cusolver.csrlsvqr(A, numpy.ones(3))
    with pytest.raises(ValueError, match=r"^b.ndim must be 1 \(actual: 2\)$"):
        cusolver.csrlsvqr(A, cp.ones((3, 1)))
    with pytest.raises(ValueError, match="^invalid shape$"):
        cusolver.csrlsvqr(A, cp.ones(4))
    with pytest.raises(TypeError, match="^dtype mismatch$"):
        cusolver.csrlsvqr(A, cp.ones(3, dtype="f"))
    with pytest.raises(TypeError, match=r"^Invalid dtype \(actual: bool\)$"):
        cusolver.csrlsvqr(sp.csr_matrix(cp.eye(3, dtype="?")), cp.ones(3, dtype="?"))


def test_host_arrays_as_cupys(cp):
    """CuPy copies a host ``a`` to the device in ``gesvdj`` and a batched ``syevj``;
    ``gesvda`` hands it to ``cupy.ascontiguousarray``, typed in Cython (an H200's
    words); ``gesv``, ``gels`` and a 2-D ``syevj`` hand cuSOLVER ``x.data.ptr``, which a
    NumPy array has not (after CuPy's checks)."""
    from gpushare.cupyx import cusolver
    a_host = _matrix((4, 3), "d", seed=11)
    s = cusolver.gesvdj(a_host, compute_uv=False)
    assert isinstance(s, cp.ndarray)
    numpy.testing.assert_allclose(s.get(), numpy.linalg.svd(a_host, compute_uv=False))
    with pytest.raises(TypeError, match=r"^Argument 'a' has incorrect type \(expected "
                       r"cupy._core.core._ndarray_base, got numpy.ndarray\)$"):
        cusolver.gesvda(a_host)
    with pytest.raises(AssertionError):  # (CuPy's checks first)
        cusolver.gesvda(a_host.T)
    w = cusolver.syevj(numpy.stack([numpy.eye(2)] * 2), with_eigen_vector=False)
    assert isinstance(w, cp.ndarray) and w.get().tolist() == [[1.0, 1.0]] * 2
    no_ptr = "^'memoryview' object has no attribute 'ptr'$"
    with pytest.raises(AttributeError, match=no_ptr):
        cusolver.syevj(numpy.eye(3))
    with pytest.raises(AttributeError, match=no_ptr):
        cusolver.gesv(numpy.eye(3), cp.ones(3))
    with pytest.raises(AttributeError, match=no_ptr):
        cusolver.gels(cp.eye(3), numpy.ones(3))
    with pytest.raises(ValueError, match="dtype mismatch"):  # (CuPy's checks come first)
        cusolver.gesv(numpy.eye(3), cp.ones(3, dtype="f"))
    with pytest.raises(AttributeError, match="'list' object has no attribute 'ndim'"):
        cusolver.gesv([[1.0]], cp.ones(1))
