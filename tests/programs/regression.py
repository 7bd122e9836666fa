"""Least squares and friends: ordinary and ridge regression by normal equations,
Cholesky, QR, SVD and lstsq, a weighted polynomial fit, PCA by eigh, a batched solve
with einsum, LU and triangular solves from cupyx.scipy.linalg, and the errors of a
singular or non-square system, each checked against NumPy/SciPy.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
import scipy.linalg
import cupyx.scipy.linalg as clinalg

rs = numpy.random.RandomState(11)
n, d = 400, 6
Xh = rs.randn(n, d)
beta_true = numpy.arange(1, d + 1, dtype=numpy.float64)
yh = Xh @ beta_true + 0.1 * rs.randn(n)
X, y = cupy.asarray(Xh), cupy.asarray(yh)

# normal equations three ways
XtX, Xty = X.T @ X, X.T @ y
b1 = cupy.linalg.solve(XtX, Xty)
L = cupy.linalg.cholesky(XtX)
assert bool(cupy.allclose(L, cupy.tril(L)))
b2 = clinalg.solve_triangular(L.T, clinalg.solve_triangular(L, Xty, lower=True), lower=False)
Q, R = cupy.linalg.qr(X)
assert Q.shape == (n, d) and R.shape == (d, d)
b3 = clinalg.solve_triangular(R, Q.T @ y)
b4, res, rank, sv = cupy.linalg.lstsq(X, y, rcond=None)
bh = numpy.linalg.lstsq(Xh, yh, rcond=None)[0]
for b in (b1, b2, b3, b4):
    numpy.testing.assert_allclose(b.get(), bh, rtol=1e-10)
assert int(rank) == d and res.shape == (1,)
numpy.testing.assert_allclose(sv.get(), numpy.linalg.svd(Xh, compute_uv=False), rtol=1e-10)
numpy.testing.assert_allclose(float(res[0]), float(((Xh @ bh - yh) ** 2).sum()), rtol=1e-8)

# ridge with the SVD
U, s, Vt = cupy.linalg.svd(X, full_matrices=False)
lam = 10.0
b_ridge = Vt.T @ ((s / (s ** 2 + lam)) * (U.T @ y))
numpy.testing.assert_allclose(b_ridge.get(), numpy.linalg.solve(Xh.T @ Xh + lam * numpy.eye(d), Xh.T @ yh), rtol=1e-10)
lu, piv = clinalg.lu_factor(XtX + lam * cupy.eye(d))
numpy.testing.assert_allclose(clinalg.lu_solve((lu, piv), Xty).get(), b_ridge.get(), rtol=1e-10)
assert piv.dtype == numpy.int32

# a weighted polynomial fit and interpolation
t_h = numpy.linspace(0, 1, 50)
f_h = 1 - 2 * t_h + 3 * t_h ** 2 + 0.01 * rs.randn(50)
t, fv = cupy.asarray(t_h), cupy.asarray(f_h)
coef = cupy.polyfit(t, fv, 2, w=cupy.ones(50))
numpy.testing.assert_allclose(coef.get(), numpy.polyfit(t_h, f_h, 2), rtol=1e-8)
numpy.testing.assert_allclose(cupy.polyval(coef, t).get(), numpy.polyval(numpy.polyfit(t_h, f_h, 2), t_h), rtol=1e-10)
grid = cupy.linspace(0, 1, 7)
numpy.testing.assert_allclose(cupy.interp(grid, t, fv).get(), numpy.interp(grid.get(), t_h, f_h), rtol=1e-12)

# PCA: covariance eigendecomposition
C = cupy.cov(X, rowvar=False)
w, V = cupy.linalg.eigh(C)
wh = numpy.linalg.eigvalsh(numpy.cov(Xh, rowvar=False))
numpy.testing.assert_allclose(w.get(), wh, rtol=1e-10)
assert bool(cupy.all(w[:-1] <= w[1:]))
proj = (X - X.mean(axis=0)) @ V[:, ::-1][:, :2]
numpy.testing.assert_allclose(cupy.var(proj, axis=0, ddof=1).get(), wh[::-1][:2], rtol=1e-10)
numpy.testing.assert_allclose(float(cupy.linalg.det(C)), numpy.linalg.det(numpy.cov(Xh, rowvar=False)), rtol=1e-9)
sign, logdet = cupy.linalg.slogdet(C)
assert float(sign) == 1.0
numpy.testing.assert_allclose(float(cupy.linalg.norm(C, "fro")), numpy.linalg.norm(numpy.cov(Xh, rowvar=False), "fro"), rtol=1e-12)

# a batch of small systems, with einsum checks
A = cupy.asarray(rs.randn(32, 4, 4) + 4 * numpy.eye(4))
bb = cupy.asarray(rs.randn(32, 4))
xs = cupy.linalg.solve(A, bb[..., None])[..., 0]
numpy.testing.assert_allclose(cupy.einsum("bij,bj->bi", A, xs).get(), bb.get(), atol=1e-10)
Ainv = cupy.linalg.inv(A)
numpy.testing.assert_allclose(cupy.matmul(A, Ainv).get(), numpy.broadcast_to(numpy.eye(4), (32, 4, 4)), atol=1e-10)
numpy.testing.assert_allclose(cupy.tensordot(A, xs, axes=([2], [1])).diagonal(axis1=0, axis2=2).T.get(), bb.get(), atol=1e-10)
expm = clinalg.expm(cupy.asarray([[0.0, 1.0], [-1.0, 0.0]]))
numpy.testing.assert_allclose(expm.get(), scipy.linalg.expm(numpy.array([[0.0, 1.0], [-1.0, 0.0]])), atol=1e-12)

# mistakes
import cupyx
# (CuPy checks cuSOLVER's status only under errstate(linalg='raise'): by default a
# singular system gives NaNs, with no error and no synchronization)
assert bool(cupy.isnan(cupy.linalg.solve(cupy.ones((3, 3)), cupy.ones(3))).all())
try:
    with cupyx.errstate(linalg="raise"):
        cupy.linalg.solve(cupy.ones((3, 3)), cupy.ones(3))
except cupy.linalg.LinAlgError as e:
    # cupy/linalg/_util.py: _check_cusolver_dev_info_if_synchronization_allowed
    assert isinstance(e, numpy.linalg.LinAlgError)
    assert str(e) == ("Error reported by dgetrf in cuSOLVER. devInfo = [2]. Please refer "
                      "to the cuSOLVER documentation."), str(e)
else:
    raise AssertionError("a singular system not refused")
try:
    cupy.linalg.inv(cupy.ones((3, 4)))
except numpy.linalg.LinAlgError as e:
    # cupy/linalg/_util.py: _assert_stacked_square
    assert str(e) == "Last 2 dimensions of the array must be square", str(e)
else:
    raise AssertionError("a non-square inverse not refused")
try:
    cupy.linalg.solve(XtX, cupy.ones(d + 1))
except ValueError as e:
    # cupy/linalg/_solve.py: solve
    assert str(e) == ("a must have (..., M, M) shape and b must have (M,) for "
                      "one-dimensional b"), str(e)
else:
    raise AssertionError("a right-hand side of the wrong length not refused")
print("regression OK")
