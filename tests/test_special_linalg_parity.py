"""``cupyx.scipy.linalg``'s special matrices and LU routines, and ``cupyx.scipy.special``'s
Python functions, through a real server: the CPU backend answers as CuPy 14.2's code
does (``server/gpushare_server/backends/cpu_linalg_special.py``), where SciPy's namesakes
differ: n-D input raveled or refused rather than batched, lists refused where CuPy's
code reads an attribute first, CuPy's words, its ufuncs' result types. (The CuPy source
each test follows is quoted in its docstring: ``cupyx/scipy/linalg/...`` and
``cupyx/scipy/special/...`` of CuPy 14.2.)
"""
from __future__ import annotations

import importlib
import warnings

import numpy
import pytest
import scipy.linalg
import scipy.special

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def L(cp):
    return importlib.import_module("gpushare.cupyx.scipy.linalg")


@pytest.fixture
def S(cp):
    return importlib.import_module("gpushare.cupyx.scipy.special")


def _no_attr(kind, attr):
    return pytest.raises(AttributeError, match=f"'{kind}' object has no attribute '{attr}'")


# --- linalg: _special_matrices.py ------------------------------------------------------

@pytest.mark.parametrize("name", ["toeplitz", "circulant", "hankel"])
def test_toeplitz_family_ravels_nd_input(cp, L, name):
    """``c = c.ravel()``: a 2-D ``c`` is one long column (SciPy 1.17 batches it)."""
    c = numpy.arange(6.0).reshape(2, 3)
    got = getattr(L, name)(cp.asarray(c))
    assert got.shape == (6, 6)
    numpy.testing.assert_array_equal(got.get(), getattr(scipy.linalg, name)(c.ravel()))


@pytest.mark.parametrize("name", ["toeplitz", "circulant", "hankel"])
def test_toeplitz_family_refuses_lists(cp, L, name):
    """``c = c.ravel()`` (and ``r.ravel()``) read first."""
    fn = getattr(L, name)
    with _no_attr("list", "ravel"):
        fn([1.0, 2.0, 3.0])
    with _no_attr("int", "ravel"):
        fn(5)
    if name != "circulant":
        with _no_attr("list", "ravel"):
            fn(cp.arange(3.0), [1.0, 2.0])


def test_toeplitz_family_types(cp, L):
    """``cupy.concatenate((c, r))``: the operands' promoted type, float32 kept."""
    f32 = cp.arange(3, dtype=cp.float32)
    assert L.toeplitz(f32).dtype == cp.float32
    assert L.toeplitz(cp.arange(3), f32).dtype == cp.float64
    assert L.hankel(f32, cp.arange(3, dtype=cp.complex64)).dtype == cp.complex64
    assert L.hankel(cp.asarray(2.0)).shape == (1, 1)  # (a 0-d c raveled)


def test_hadamard(cp, L):
    """``'n must be an positive a power of 2 integer'``; the kernel writes -1/1 into
    any dtype (bool: all True)."""
    with pytest.raises(ValueError, match="^n must be an positive a power of 2 integer$"):
        L.hadamard(3)
    with pytest.raises(ValueError, match="power of 2 integer"):
        L.hadamard(0)
    numpy.testing.assert_array_equal(L.hadamard(4, cp.float32).get(),
                                     scipy.linalg.hadamard(4, numpy.float32))
    assert L.hadamard(4, cp.float32).dtype == cp.float32
    got = L.hadamard(2, bool)
    assert got.dtype == cp.bool_ and bool(got.all())


def test_leslie_words(cp, L):
    """``leslie``'s own checks: 1-D only, its words."""
    with pytest.raises(ValueError, match="^Length of s must be one less than length of f$"):
        L.leslie(cp.arange(3.0), cp.arange(3.0))
    with pytest.raises(ValueError, match="Incorrect shape for f. f must be 1D"):
        L.leslie(cp.ones((2, 3)), cp.ones(2))
    with _no_attr("list", "ndim"):
        L.leslie([1.0, 2.0], [1.0])
    got = L.leslie(cp.asarray([0.1, 2.0, 1.0]), cp.asarray([0.2, 0.8]))
    numpy.testing.assert_allclose(got.get(),
                                  scipy.linalg.leslie([0.1, 2.0, 1.0], [0.2, 0.8]))


def test_companion(cp, L):
    """1-D only; ``a[0] == 0`` not checked (it would synchronize): infinities."""
    with pytest.raises(ValueError, match="^`a` must be one-dimensional.$"):
        L.companion(cp.ones((2, 3)))
    with pytest.raises(ValueError, match="^The length of `a` must be at least 2.$"):
        L.companion(cp.ones(1))
    with _no_attr("list", "size"):
        L.companion([1.0, 2.0, 3.0])
    got = L.companion(cp.asarray([0.0, 1.0, 2.0]))
    assert bool(cp.isinf(got[0]).all())
    assert L.companion(cp.asarray([1, 2, 3])).dtype == cp.float64
    assert L.companion(cp.asarray([1, 2, 3], dtype=cp.float32)).dtype == cp.float32


def test_fiedler(cp, L):
    """1-D only; ``cupy.abs(a, out=a)``: complex input stays complex."""
    with pytest.raises(ValueError, match="^Input `a` must be a 1D array.$"):
        L.fiedler(cp.ones((2, 3)))
    a = numpy.array([1.0, 4.0, 2.0], dtype=numpy.complex64)
    got = L.fiedler(cp.asarray(a))
    assert got.dtype == cp.complex64
    numpy.testing.assert_allclose(got.get().real, scipy.linalg.fiedler(a.real))
    assert L.fiedler(cp.arange(3)).dtype == cp.int64


def test_fiedler_companion(cp, L):
    """1-D only, CuPy's words; a zero leading coefficient not checked."""
    with pytest.raises(ValueError, match="^Input `a` must be a 1-D array.$"):
        L.fiedler_companion(cp.ones((2, 3)))
    assert bool(cp.isinf(L.fiedler_companion(cp.asarray([0.0, 1.0, 2.0, 3.0]))).any())
    a = numpy.array([1.0, -2.0, 3.0, 0.5, 2.0])
    numpy.testing.assert_allclose(L.fiedler_companion(cp.asarray(a)).get(),
                                  scipy.linalg.fiedler_companion(a))
    assert L.fiedler_companion(cp.arange(1)).dtype == cp.int64  # (size < 2: a's type)


def test_convolution_matrix(cp, L):
    """1-D only; ``mode``'s words (with backquotes)."""
    with pytest.raises(ValueError, match="expects a one-dimensional array as input"):
        L.convolution_matrix(cp.ones((2, 3)), 2)
    with pytest.raises(ValueError, match=r"^`mode` argument must be one of"):
        L.convolution_matrix(cp.ones(3), 2, "x")
    a = numpy.array([1.0, 2.0, 0.5])
    for mode in ("full", "same", "valid"):
        numpy.testing.assert_allclose(L.convolution_matrix(cp.asarray(a), 4, mode).get(),
                                      scipy.linalg.convolution_matrix(a, 4, mode))


def test_block_diag(cp, L):
    """``cupy.atleast_2d`` (``cupy.asarray``): lists and host arrays taken; more than 2
    dimensions refused."""
    with pytest.raises(ValueError, match=r"dimension greater than 2: \[0\]"):
        L.block_diag(cp.ones((1, 1, 1)), cp.ones(2))
    got = L.block_diag([1, 2], numpy.ones((2, 1)), cp.asarray([[3.0]]))
    assert type(got) is cp.ndarray
    numpy.testing.assert_array_equal(
        got.get(), scipy.linalg.block_diag([1, 2], numpy.ones((2, 1)), [[3.0]]))


def test_kron_deprecated_2d_only(cp, L):
    """Deprecated; ``concatenate(concatenate(o, axis=1), axis=1)``: 1-D operands fail."""
    a, b = numpy.arange(4.0).reshape(2, 2), numpy.ones((2, 3))
    with pytest.warns(DeprecationWarning, match="cupyx.scipy.linalg.kron"):
        got = L.kron(cp.asarray(a), cp.asarray(b))
    numpy.testing.assert_array_equal(got.get(), numpy.kron(a, b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(numpy.exceptions.AxisError):
            L.kron(cp.arange(3.0), cp.arange(2.0))


def test_hilbert_dft_edges(cp, L):
    """``hilbert(0)``: ``hankel`` of empty reciprocals, shape (0, 1); ``dft(0)``:
    ``-2j*cupy.pi/n``."""
    assert L.hilbert(0).shape == (0, 1)
    numpy.testing.assert_allclose(L.hilbert(3).get(), scipy.linalg.hilbert(3))
    with pytest.raises(ZeroDivisionError):
        L.dft(0)


# --- linalg: _decomp_lu.py, _solve_triangular.py --------------------------------------

def test_lu_factor_takes_lists_refuses_batches(cp, L):
    """``_lu_factor``: ``cupy.asarray(a)`` then ``_assert_2d`` (LinAlgError)."""
    a = [[4.0, 3.0], [6.0, 3.0]]
    lu, piv = L.lu_factor(a)
    assert type(lu) is cp.ndarray and piv.dtype == cp.int32
    numpy.testing.assert_allclose(lu.get(), scipy.linalg.lu_factor(a)[0])
    L.lu_factor(numpy.asarray(a))  # (a host array too)
    P, low, up = L.lu(a)
    numpy.testing.assert_allclose((P @ low @ up).get(), a)
    with pytest.raises(numpy.linalg.LinAlgError, match="3-dimensional array given"):
        L.lu_factor(cp.ones((2, 2, 2)))
    with pytest.raises(numpy.linalg.LinAlgError, match="1-dimensional array given"):
        L.lu(cp.ones(2))
    with pytest.raises(TypeError, match="p_indices"):
        L.lu(cp.asarray(a), p_indices=True)


def test_lu_factor_checks_only_real_input(cp, L):
    """``if a.dtype.kind == 'f' and not cupy.isfinite(a).all()``: complex not checked."""
    a = cp.asarray([[1.0, 2.0], [3.0, numpy.nan]])
    with pytest.raises(ValueError, match="array must not contain infs or NaNs"):
        L.lu_factor(a)
    L.lu_factor(a.astype(cp.complex128))


def test_lu_solve_checks(cp, L):
    """``_assert_cupy_array(lu)``; ``trans == 1`` (True is 1); CuPy's longer words."""
    a = numpy.array([[4.0, 3.0], [6.0, 3.0]])
    lu, piv = L.lu_factor(cp.asarray(a))
    with pytest.raises(numpy.linalg.LinAlgError, match="only supports cupy.ndarray"):
        L.lu_solve((lu.get().tolist(), piv), cp.ones(2))
    got = L.lu_solve((lu, piv), cp.asarray([1.0, 2.0]), trans=True)
    numpy.testing.assert_allclose(got.get(), numpy.linalg.solve(a.T, [1.0, 2.0]))
    with pytest.raises(ValueError, match="unlike scipy.linalg.lu_factor"):
        L.lu_solve((lu * cp.nan, piv), cp.ones(2))


def test_solve_triangular_refuses_lists_as_linalg_error(cp, L):
    """``_util._assert_cupy_array(a, b)`` first."""
    with pytest.raises(numpy.linalg.LinAlgError, match="only supports cupy.ndarray"):
        L.solve_triangular([[1.0, 0.0], [0.0, 1.0]], cp.ones(2))
    with pytest.raises(numpy.linalg.LinAlgError, match="only supports cupy.ndarray"):
        L.solve_triangular(cp.eye(2), numpy.ones(2))


# --- special ---------------------------------------------------------------------------

def test_lambertw_is_a_cupy_ufunc(cp, S):
    """``_lambertw_scalar(z, k, tol)``, loops ``Dld->D Fif->f``: complex128 for float32
    and complex64 too; a list refused; a float ``k`` has no loop."""
    z = numpy.array([0.5, 1.0, 2.0], dtype=numpy.float32)
    got = S.lambertw(cp.asarray(z))
    assert got.dtype == cp.complex128
    numpy.testing.assert_allclose(got.get(), scipy.special.lambertw(z.astype(float)),
                                  rtol=1e-12)
    assert S.lambertw(cp.asarray(z, dtype=cp.complex64)).dtype == cp.complex128
    with pytest.raises(TypeError, match="Unsupported type <class 'list'>"):
        S.lambertw([1.0, 2.0])
    with pytest.raises(TypeError, match="cupyx_scipy_lambertw_scalar"):
        S.lambertw(cp.asarray(z), 1.5)


def test_multigammaln(cp, S):
    """``cupy.isscalar(d)`` (a 0-d array is refused), CuPy's words, a list compared
    first."""
    a = numpy.array([3.0, 4.5])
    numpy.testing.assert_allclose(S.multigammaln(cp.asarray(a), 3).get(),
                                  scipy.special.multigammaln(a, 3))
    assert S.multigammaln(cp.asarray(a, dtype=cp.float32), 2).dtype == cp.float64
    with pytest.raises(ValueError, match="^d should be a positive integer"):
        S.multigammaln(cp.asarray(a), cp.asarray(2))
    with pytest.raises(ValueError, match=r"^condition a > 0.5 \* \(d-1\) not met$"):
        S.multigammaln(cp.asarray(a), 8)
    with pytest.raises(TypeError, match="'<=' not supported"):
        S.multigammaln([3.0, 4.0], 2)
    assert float(S.multigammaln(3.0, 2)) == pytest.approx(
        scipy.special.multigammaln(3.0, 2))


def test_sph_harm_y(cp, S):
    """``_sph_harm(m, n, phi, theta)``: loops ``iiff->F iidd->D llff->F lldd->D``
    (float32 angles: complex64), NaN where ``|m| > n``, no derivatives."""
    n, m = numpy.array([1, 2, 3]), numpy.array([0, 1, -2])
    theta, phi = numpy.array([0.3, 0.5, 0.9]), numpy.array([0.1, 1.0, 2.0])
    got = S.sph_harm_y(cp.asarray(n), cp.asarray(m), cp.asarray(theta), cp.asarray(phi))
    numpy.testing.assert_allclose(got.get(), scipy.special.sph_harm_y(n, m, theta, phi),
                                  rtol=1e-10)
    f32 = S.sph_harm_y(cp.asarray(n), cp.asarray(m), cp.asarray(theta, dtype=cp.float32),
                       cp.asarray(phi, dtype=cp.float32))
    assert f32.dtype == cp.complex64
    assert bool(cp.isnan(S.sph_harm_y(1, 3, 0.5, 0.3)))
    with pytest.raises(NotImplementedError, match="Derivatives not implemented."):
        S.sph_harm_y(cp.asarray(n), cp.asarray(m), cp.asarray(theta), cp.asarray(phi),
                     diff_n=1)
    with pytest.raises(TypeError, match="cupyx_scipy_lpmv"):
        S.sph_harm_y(cp.asarray(theta), cp.asarray(theta), cp.asarray(theta),
                     cp.asarray(phi))


def test_sph_harm_python_float_angles(cp, S):
    """``_sph_harm``'s loop for int64 orders and Python float angles: the scalars are
    of a higher kind than every array, so not weak: ``lldd->D``."""
    with pytest.warns(DeprecationWarning):
        got = S.sph_harm(cp.asarray([0, 1]), cp.asarray([1, 2]), 0.3, 0.5)
    assert got.dtype == cp.complex128


def test_spherical_yn(cp, S):
    """No complex ``z`` (NotImplementedError); loops ``id->d ld->d``: no float ``n``."""
    n, z = numpy.array([0, 1, 2]), numpy.array([0.5, 1.0, 2.0])
    numpy.testing.assert_allclose(S.spherical_yn(cp.asarray(n), cp.asarray(z)).get(),
                                  scipy.special.spherical_yn(n, z))
    with pytest.raises(NotImplementedError):
        S.spherical_yn(cp.asarray(n), cp.asarray(z, dtype=complex))
    with pytest.raises(TypeError, match="cupyx_scipy_spherical_yn_real"):
        S.spherical_yn(cp.asarray(z), cp.asarray(z))
    with pytest.raises(TypeError, match="Unsupported type <class 'list'>"):
        S.spherical_yn([1], [1.0])


def test_polygamma_needs_array_order(cp, S):
    """``cupy.where(n == 0, ...)``: ``condition.astype`` of a Python bool when ``n`` is
    a Python int."""
    x = cp.asarray([0.5, 1.0, 2.0])
    with _no_attr("bool", "astype"):
        S.polygamma(1, x)
    numpy.testing.assert_allclose(S.polygamma(cp.asarray([1, 1, 1]), x).get(),
                                  scipy.special.polygamma(1, x.get()))


@pytest.mark.parametrize("name, attr", [("softmax", "max"), ("log_softmax", "max"),
                                        ("logsumexp", "dtype")])
def test_softmax_family_refuses_lists(cp, S, name, attr):
    """``cupy.amax(x)`` (``x.max``), ``a.dtype.kind`` read first."""
    with _no_attr("list", attr):
        getattr(S, name)([1.0, 2.0])


def test_logsumexp_b_not_an_array(cp, S):
    """``cp.any(b == 0)``: a list's ``==`` is a Python bool, refused by ``cupy.any``."""
    with pytest.raises(TypeError, match="'a' must be a cupy.ndarray object"):
        S.logsumexp(cp.asarray([1.0, 2.0]), b=[1.0, 1.0])


def test_btdtr_is_a_cupy_ufunc(cp, S):
    """``_btdtr``, loops ``fff->f ddd->d``: float32 kept, a list refused."""
    x = cp.asarray([0.2, 0.5], dtype=cp.float32)
    with pytest.warns(DeprecationWarning, match="betainc"):
        assert S.btdtr(x, x, x).dtype == cp.float32
    with pytest.warns(DeprecationWarning, match="betaincinv"):
        with pytest.raises(TypeError, match="Unsupported type <class 'list'>"):
            S.btdtri([1.0], [1.0], [0.5])


def test_round_is_cupy_round(cp, S):
    """``cupy.round`` (``a.round(decimals)``): an integer array keeps its type."""
    assert S.round(cp.asarray([1, 2])).dtype == cp.int64
    assert S.round(cp.asarray([1.5], dtype=cp.float16)).dtype == cp.float16
