"""``cupyx.lapack``: CuPy's low-level solvers, their in-place results and their errors."""
from __future__ import annotations

import numpy
import pytest
import scipy.linalg


def _system(n: int, nrhs: int, dtype: str, seed: int = 0):
    rng = numpy.random.default_rng(seed)
    a = rng.standard_normal((n, n)) + n * numpy.eye(n)
    b = rng.standard_normal((n, nrhs))
    if dtype in "FD":
        a = a + 1j * rng.standard_normal((n, n))
        b = b + 1j * rng.standard_normal((n, nrhs))
    return a.astype(dtype), b.astype(dtype)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
def test_gesv_overwrites_b_with_the_solution_and_a_with_its_lu(cp, order, dtype):
    from gpushare.cupyx import lapack
    a_host, b_host = _system(5, 3, dtype)
    a = cp.array(a_host, order=order)
    b = cp.array(b_host, order="F")
    assert lapack.gesv(a, b) is None
    tol = 1e-4 if dtype in "fF" else 1e-10
    numpy.testing.assert_allclose(b.get(), numpy.linalg.solve(a_host, b_host), rtol=tol,
                                  atol=tol)
    # getrf's factors of the matrix a's memory holds column-major: a, or a.T
    lu = scipy.linalg.lu_factor(a_host if order == "F" else a_host.T)[0]
    numpy.testing.assert_allclose(a.get(), lu if order == "F" else lu.T, rtol=tol,
                                  atol=tol)
    v = cp.array(b_host[:, 0])  # a vector right-hand side
    lapack.gesv(cp.array(a_host, order=order), v)
    numpy.testing.assert_allclose(v.get(), numpy.linalg.solve(a_host, b_host[:, 0]),
                                  rtol=tol, atol=tol)


def test_gesv_errors_are_cupys(cp):
    from gpushare.cupyx import lapack
    a = cp.eye(3, order="F")
    b = cp.ones((3, 2), order="F")
    with pytest.raises(ValueError, match=r"a.ndim must be 2 \(actual: 3\)"):
        lapack.gesv(a.reshape(1, 3, 3), b)
    with pytest.raises(ValueError, match="b.ndim must be 1 or 2"):
        lapack.gesv(a, b.reshape(1, 3, 2))
    with pytest.raises(ValueError, match="a must be a square matrix"):
        lapack.gesv(cp.ones((3, 4)), b)
    with pytest.raises(ValueError, match="shape mismatch"):
        lapack.gesv(cp.eye(4), b)
    with pytest.raises(TypeError, match="dtype mismatch"):
        lapack.gesv(cp.eye(3, dtype="f"), b)
    with pytest.raises(TypeError, match="unsupported dtype"):
        lapack.gesv(cp.eye(3, dtype="i"), cp.ones((3, 2), dtype="i", order="F"))
    with pytest.raises(ValueError, match="a must be F-contiguous or C-contiguous"):
        lapack.gesv(cp.ones((2, 3, 3), order="F")[0], b)
    with pytest.raises(ValueError, match="b must be F-contiguous"):
        lapack.gesv(a, cp.ones((3, 2)))
    assert b.tolist() == [[1.0, 1.0]] * 3  # nothing was touched


@pytest.mark.parametrize("shape", [(6, 4), (4, 4), (4, 6)])
@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
def test_gels_is_the_least_squares_solution(cp, shape, dtype):
    from gpushare.cupyx import lapack
    rng = numpy.random.default_rng(1)
    a = rng.standard_normal(shape).astype(dtype)
    b = rng.standard_normal((shape[0], 2)).astype(dtype)
    if dtype in "FD":
        a = a + 1j * rng.standard_normal(shape).astype(dtype)
    tol = 1e-4 if dtype in "fF" else 1e-10
    x = lapack.gels(cp.array(a), cp.array(b))
    assert x.dtype == numpy.dtype(dtype) and x.shape == (shape[1], 2)
    numpy.testing.assert_allclose(x.get(), numpy.linalg.lstsq(a, b, rcond=None)[0],
                                  rtol=tol, atol=tol)
    x1 = lapack.gels(cp.array(a), cp.array(b[:, 0]))
    assert x1.shape == (shape[1],)
    with pytest.raises(ValueError, match="dtype mismatch"):
        lapack.gels(cp.array(a), cp.array(b.astype({"f": "d", "d": "f", "F": "D",
                                                     "D": "F"}[dtype])))


def _posdef(shape, dtype, seed=2):
    rng = numpy.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    a = a @ numpy.swapaxes(a, -1, -2).conj() + shape[-1] * numpy.eye(shape[-1])
    return a.astype(dtype)


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 4, 4)])
@pytest.mark.parametrize("nrhs", [None, 3])
def test_posv_solves_stacked_positive_definite_systems(cp, shape, nrhs):
    from gpushare.cupyx import lapack
    a = _posdef(shape, "D")
    b_shape = shape[:-1] + ((nrhs,) if nrhs else ())
    b = numpy.random.default_rng(3).standard_normal(b_shape).astype("D")
    b_dev = cp.array(b)
    x = lapack.posv(cp.array(a), b_dev)
    assert x.shape == b.shape and x.flags.c_contiguous
    expect = numpy.linalg.solve(a, b if nrhs else b[..., None])
    numpy.testing.assert_allclose(x.get(), expect if nrhs else expect[..., 0], atol=1e-10)
    assert numpy.array_equal(b_dev.get(), b)  # b is not overwritten
    with pytest.raises(numpy.linalg.LinAlgError, match="only supports cupy.ndarray"):
        lapack.posv(a, b_dev)
    with pytest.raises(numpy.linalg.LinAlgError, match="must be square"):
        lapack.posv(cp.ones((3, 4)), cp.ones(3))
    # the solver's dtype is the operands' promoted with float32, as CuPy's
    x = lapack.posv(cp.eye(3, dtype="?"), cp.ones(3, dtype="?"))
    assert x.dtype == numpy.float32 and x.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("lower", [True, False])
def test_potrs_uses_one_triangle_and_solves_in_place_when_cusolver_would(cp, lower):
    from gpushare.cupyx import lapack
    a = _posdef((5, 5), "d")
    factor = numpy.linalg.cholesky(a)
    if not lower:
        factor = factor.T.copy()
    # garbage in the other triangle must not be read
    junk = factor + (numpy.triu(numpy.ones((5, 5)), 1) if lower else
                     numpy.tril(numpy.ones((5, 5)), -1))
    b = numpy.arange(10.0).reshape(5, 2)
    expect = numpy.linalg.solve(a, b)
    b_dev = cp.array(b, order="F")
    x = lapack.potrs(cp.array(junk), b_dev, lower)
    numpy.testing.assert_allclose(x.get(), expect, atol=1e-10)
    assert x is b_dev  # F-contiguous float64: LAPACK's in-place solve
    v = lapack.potrs(cp.array(junk), cp.array(b[:, 0]), lower)
    assert v.shape == (5,)
    numpy.testing.assert_allclose(v.get(), expect[:, 0], atol=1e-10)
    batched = lapack.potrs(cp.array(numpy.stack([junk, junk])),
                           cp.array(numpy.stack([b, 2 * b])), lower)
    numpy.testing.assert_allclose(batched.get(), numpy.stack([expect, 2 * expect]),
                                  atol=1e-10)
