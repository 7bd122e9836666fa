"""Sparse linear algebra: a 2-D Poisson matrix assembled from COO triplets, SpMV,
conjugate gradients, a direct solve, the smallest eigenpairs with eigsh and a graph's
connected components (cupyx.scipy.sparse), each checked against SciPy.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
import scipy.sparse as ssp
import scipy.sparse.linalg as sspla
import cupyx.scipy.sparse as sp
import cupyx.scipy.sparse.linalg as spla
from cupyx.scipy.sparse import csgraph

m = 20
N = m * m
idx = cupy.arange(N, dtype=cupy.int32)
i, j = idx // m, idx % m
rows = [idx]
cols = [idx]
vals = [cupy.full(N, 4.0)]
for di, dj in [(-1, 0), (1, 0), (0, -1), (0, 1)]:
    ok = (i + di >= 0) & (i + di < m) & (j + dj >= 0) & (j + dj < m)
    rows.append(idx[ok])
    cols.append(((i + di) * m + j + dj)[ok])
    vals.append(cupy.full(int(ok.sum()), -1.0))
r, c, v = cupy.concatenate(rows), cupy.concatenate(cols), cupy.concatenate(vals)
A = sp.coo_matrix((v, (r, c)), shape=(N, N)).tocsr()
assert A.format == "csr" and A.nnz == 5 * N - 4 * m and A.dtype == numpy.float64
assert A.indptr.dtype == numpy.int32 and A.has_canonical_format
Ah = ssp.coo_matrix((v.get(), (r.get(), c.get())), shape=(N, N)).tocsr()
assert abs(A.get() - Ah).max() == 0

# SpMV and friends
x = cupy.asarray(numpy.random.RandomState(0).rand(N))
y = A @ x
numpy.testing.assert_allclose(y.get(), Ah @ x.get(), rtol=1e-13)
assert isinstance(y, cupy.ndarray) and y.shape == (N,)
Y = A @ cupy.stack([x, 2 * x], axis=1)
numpy.testing.assert_allclose(Y.get()[:, 1], 2 * (Ah @ x.get()), rtol=1e-13)
numpy.testing.assert_allclose(A.diagonal().get(), numpy.full(N, 4.0))
numpy.testing.assert_allclose(cupy.asarray(A.sum(axis=1)).ravel().get(), numpy.asarray(Ah.sum(axis=1)).ravel())
assert (A != A.T).nnz == 0  # symmetric
B = (A + sp.identity(N, format="csr") * 0.5).tocsc()
assert B.format == "csc"
numpy.testing.assert_allclose(B.diagonal().get(), numpy.full(N, 4.5))

# iterative and direct solves
b = cupy.ones(N)
xs, info = spla.cg(A, b, rtol=1e-10, maxiter=1000)
assert info == 0
numpy.testing.assert_allclose((A @ xs).get(), b.get(), atol=1e-8)
xd = spla.spsolve(A, b)
numpy.testing.assert_allclose(xd.get(), sspla.spsolve(Ah.tocsc(), b.get()), rtol=1e-10)
numpy.testing.assert_allclose(xs.get(), xd.get(), rtol=1e-7)
xg, info = spla.gmres(A, b, rtol=1e-10, restart=50, maxiter=50)
assert info == 0
numpy.testing.assert_allclose(xg.get(), xd.get(), rtol=1e-6)
M = spla.LinearOperator((N, N), matvec=lambda z: z / 4.0)  # Jacobi preconditioner
xp_, info = spla.cg(A, b, rtol=1e-10, M=M)
assert info == 0
numpy.testing.assert_allclose(xp_.get(), xd.get(), rtol=1e-7)
lu = spla.splu(A.tocsc())
numpy.testing.assert_allclose(lu.solve(b).get(), xd.get(), rtol=1e-10)

# eigenpairs (largest of -A are the smallest of A)
w, V = spla.eigsh(A, k=4, which="LA")
w_h = numpy.sort(numpy.linalg.eigvalsh(Ah.toarray()))
numpy.testing.assert_allclose(numpy.sort(w.get()), w_h[-4:], rtol=1e-8)
numpy.testing.assert_allclose((A @ V).get(), (V * w).get(), atol=1e-7)
s = spla.svds(A, k=3, return_singular_vectors=False)
numpy.testing.assert_allclose(numpy.sort(s.get()), w_h[-3:], rtol=1e-8)
numpy.testing.assert_allclose(float(spla.norm(A)), sspla.norm(Ah), rtol=1e-13)

# graph components of a block matrix
G = sp.block_diag([A, sp.csr_matrix(cupy.ones((3, 3)))], format="csr")
n, labels = csgraph.connected_components(G, directed=False)
assert n == 2 and labels.shape == (N + 3,) and int(labels[-1]) != int(labels[0])

# mistakes
try:
    A @ cupy.ones(N + 1)
except ValueError as e:
    # cupyx/scipy/sparse/_base.py: __mul__/_mul_vector checks (dimension mismatch)
    assert str(e) == "dimension mismatch", str(e)
else:
    raise AssertionError("shape mismatch not refused")
try:
    sp.csr_matrix(numpy.eye(3))  # a host array: CuPy's constructors take device ones
except ValueError as e:
    # cupyx/scipy/sparse/_compressed.py: __init__'s last else
    assert str(e) == "Unsupported initializer format", str(e)
else:
    raise AssertionError("a host array initializer not refused")
try:
    spla.cg(A, b, tol=1e-10)  # SciPy's old keyword: CuPy 14 takes rtol only
except TypeError as e:
    # cupyx/scipy/sparse/linalg/_iterative.py: cg(A, b, x0=None, *, rtol=1e-5, ...)
    # (Python's own words: 3.13 adds "Did you mean 'rtol'?")
    assert str(e).startswith("cg() got an unexpected keyword argument 'tol'"), str(e)
else:
    raise AssertionError("tol= not refused")
print("sparse_solve OK")
