"""``cupyx.cusolver`` on the CPU backend: CuPy 14.2's ``cupyx/_cusolver.pyx`` with
NumPy/SciPy doing cuSOLVER's arithmetic.

Each routine makes CuPy's checks, in CuPy's order and words (its bare ``TypeError`` for
an unsupported dtype, its ``assert``s), and gives CuPy's results: their dtypes, shapes
and memory layouts (cuSOLVER writes column-major buffers, which CuPy returns as they
are or as views of them: ``gesvdj``'s F-ordered ``u``/``v``, ``gels``' rows of a
``(max(m, n), nrhs)`` buffer, ``gesvda``'s and the batched routines' transposed
stacks). Nothing is overwritten in place: CuPy copies ``a`` and ``b`` first, but for
``gesvdj(overwrite_a=True)``, where cuSOLVER leaves ``a`` destroyed (any contents will
do, so it is left as it was). ``v`` is returned as ``V`` (``a == u @ diag(s) @ v*``),
not ``V*``. Singular vectors and eigenvectors are LAPACK's (their signs or phases may
differ from cuSOLVER's, as any two solvers'). Where cuSOLVER returns garbage without
an error (a singular ``gesv``), this gives LAPACK's infinities or NaNs.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy

from gpushare.protocol import HostArray

from . import scipy_module, sparse

#: CuPy's ``_available_cuda_version``: name -> (version added, version removed)
AVAILABLE_CUDA_VERSION = {
    "gesvdj": (0, None),
    "gesvdjBatched": (0, None),
    "gesvda": (0, None),
    "potrfBatched": (0, None),
    "potrsBatched": (0, None),
    "syevj": (0, None),
    "gesv": (0, None),
    "gels": (0, None),
    "csrlsvqr": (0, None),
    "geev": (11700, None),
}


def check_availability(name: Any) -> bool:
    """See Also: cupyx.cusolver.check_availability. Every routine CuPy lists is
    implemented on this backend (``geev`` is ``cupy.linalg.eig``/``eigvals``,
    ``potrfBatched``/``potrsBatched`` batched ``cholesky`` and solves), so it answers
    as a current cuSOLVER (CUDA >= 11.7) on a GPU of compute capability >= 7.0: True
    for every known name."""
    if name not in AVAILABLE_CUDA_VERSION:
        raise ValueError(f"No available version information specified for {name}")
    return True


def _host(a: Any) -> Any:
    """A host (NumPy) array as the NumPy array it is, anything else as it is."""
    return a.array if isinstance(a, HostArray) else a


def _no_pointer(*arrays: Any) -> None:
    """CuPy hands cuSOLVER ``x.data.ptr``: a NumPy array's ``data`` is a memoryview."""
    if any(isinstance(x, HostArray) for x in arrays):
        raise AttributeError("'memoryview' object has no attribute 'ptr'")


def _linalg() -> Any:
    return scipy_module("scipy.linalg", "cupyx.cusolver")


def _solver_letter(dtype: numpy.dtype) -> str | None:
    return {"f": "s", "d": "d", "F": "c", "D": "z"}.get(dtype.char)


def _svd_checked_dtype(a: Any) -> numpy.dtype:
    if a.dtype.char not in "fdFD":
        raise TypeError
    return numpy.dtype(a.dtype.char.lower())


def _svd(a: numpy.ndarray, full_matrices: bool) -> tuple:
    """``(U, s, V)`` of a stack (``V``, not ``V*``), in ``a``'s precision."""
    u, s, vh = numpy.linalg.svd(a, full_matrices=full_matrices)
    return u, s, vh.conj().swapaxes(-2, -1)


def gesvdj(a: Any, full_matrices: Any = True, compute_uv: Any = True,
           overwrite_a: Any = False) -> Any:
    """See Also: cupyx.cusolver.gesvdj (a host array too: CuPy copies ``a`` with
    ``cupy.array``)"""
    a = _host(a)
    if a.ndim == 3:
        return _gesvdj_batched(a, full_matrices, compute_uv, overwrite_a)
    assert a.ndim == 2
    s_dtype = _svd_checked_dtype(a)
    m, n = a.shape
    mn = min(m, n)
    if not compute_uv:
        s = numpy.linalg.svd(a, compute_uv=False) if mn else numpy.empty(0, s_dtype)
        return s.astype(s_dtype, copy=False)
    if mn:
        u, s, v = _svd(a, bool(full_matrices))
    else:  # (numpy's svd of an empty matrix: identities, as cuSOLVER leaves them)
        u, s, v = numpy.eye(m, dtype=a.dtype), numpy.empty(0, s_dtype), \
            numpy.eye(n, dtype=a.dtype)
        if not full_matrices:
            u, v = u[:, :0], v[:, :0]
    return (numpy.asfortranarray(u, dtype=a.dtype), s.astype(s_dtype, copy=False),
            numpy.asfortranarray(v, dtype=a.dtype))


def _gesvdj_batched(a: Any, full_matrices: Any, compute_uv: Any, overwrite_a: Any) -> Any:
    """``cusolverDn<t>gesvdjBatched``: ``u``/``v`` are column-major matrices in a
    stack (views of ``(batch, m, m)``/``(batch, n, n)`` buffers, cut to ``min(m, n)``
    columns when not ``full_matrices``)."""
    s_dtype = _svd_checked_dtype(a)
    batch_size, m, n = a.shape
    if m > 32 or n > 32:  # (cuSOLVER's limit for the batched Jacobi SVD)
        raise RuntimeError("CUSOLVER_STATUS_INVALID_VALUE")
    mn = min(m, n)
    s = numpy.empty((batch_size, mn), s_dtype)
    u = numpy.empty((batch_size, m, m), a.dtype).swapaxes(-2, -1)
    v = numpy.empty((batch_size, n, n), a.dtype).swapaxes(-2, -1)
    if batch_size and mn:
        uu, ss, vv = _svd(a, True)
        u[...], s[...], v[...] = uu, ss, vv
    if not full_matrices:
        u = u[..., :mn]
        v = v[..., :mn]
    if compute_uv:
        return u, s, v
    return s


def gesvda(a: Any, compute_uv: Any = True) -> Any:
    """See Also: cupyx.cusolver.gesvda (``u``: ``(..., m, min(m, n))`` and ``v``:
    ``(..., n, min(m, n))``, each a transposed C-ordered stack, as CuPy's; a
    host array passes CuPy's checks, then ``cupy.ascontiguousarray`` refuses it)."""
    host = isinstance(a, HostArray)
    a = _host(a)
    assert a.ndim >= 2
    a_shape = a.shape
    m, n = a_shape[-2:]
    assert m >= n
    s_dtype = _svd_checked_dtype(a)
    if host:  # (an H200's words)
        from gpushare.cython_args import NDARRAY_BASE, argument_type_error
        raise argument_type_error("a", NDARRAY_BASE, a)
    rank = min(m, n)
    batch_size = 1 if a.ndim == 2 else numpy.array(a_shape[:-2]).prod().item()
    a = a.reshape((batch_size, m, n))
    s = numpy.empty((batch_size, rank), s_dtype)
    u = numpy.empty((batch_size, rank, m), a.dtype)
    v = numpy.empty((batch_size, rank, n), a.dtype)
    if batch_size and rank:
        uu, ss, vv = _svd(a, False)
        s[...] = ss
        u[...] = uu.swapaxes(-2, -1)
        v[...] = vv.swapaxes(-2, -1)
    s = s.reshape(a_shape[:-2] + (s.shape[-1],))
    if not compute_uv:
        return s
    u = u.transpose(0, 2, 1)
    v = v.transpose(0, 2, 1)
    u = u.reshape(a_shape[:-2] + (u.shape[-2:]))
    v = v.reshape(a_shape[:-2] + (v.shape[-2:]))
    return u, s, v


def _common_type(a: Any) -> tuple[numpy.dtype, numpy.dtype]:
    """CuPy's ``linalg_common_type(a, reject_float16=False)``."""
    def common(default: str) -> numpy.dtype:
        return numpy.result_type(a.dtype if a.dtype.kind in "fc" else default)
    dtype = common("float64")
    if dtype == numpy.float16:  # (no fp16 cuSOLVER routines)
        dtype = numpy.dtype(numpy.float32)
    return dtype, common("float64")


def _eigh(v: numpy.ndarray, UPLO: str, with_eigen_vector: Any) -> tuple:
    if with_eigen_vector:
        return numpy.linalg.eigh(v, UPLO=UPLO)
    return numpy.linalg.eigvalsh(v, UPLO=UPLO), None


def syevj(a: Any, UPLO: Any = "L", with_eigen_vector: Any = True) -> Any:
    """See Also: cupyx.cusolver.syevj (eigenvalues ascending; ``v`` F-ordered, or for
    a stack each matrix column-major; a host stack too, which CuPy copies with
    ``cupy.array``, but not a host matrix, whose copy is NumPy's)."""
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    if _host(a).ndim > 2:
        return _syevj_batched(_host(a), UPLO, with_eigen_vector)
    assert _host(a).ndim == 2
    _no_pointer(a)
    dtype, v_dtype = _common_type(a)
    real_dtype, w_dtype = dtype.char.lower(), v_dtype.char.lower()
    v = a.astype(dtype, order="F", copy=True)
    w, vectors = _eigh(v, UPLO, with_eigen_vector)
    w = w.astype(real_dtype, copy=False).astype(w_dtype, copy=False)
    if not with_eigen_vector:
        return w
    v[...] = vectors
    return w, v.astype(v_dtype, copy=False)


def _syevj_batched(a: Any, UPLO: str, with_eigen_vector: Any) -> Any:
    dtype, v_dtype = _common_type(a)
    real_dtype, w_dtype = dtype.char.lower(), v_dtype.char.lower()
    *batch_shape, m, lda = a.shape
    batch_size = int(numpy.prod(batch_shape))
    a = a.reshape(batch_size, m, lda)
    v = numpy.array(a.swapaxes(-2, -1), order="C", copy=True, dtype=dtype)
    w = numpy.empty((batch_size, m), real_dtype)
    if batch_size and m:
        ww, vectors = _eigh(v.swapaxes(-2, -1), UPLO, with_eigen_vector)
        w[...] = ww
        if with_eigen_vector:
            v.swapaxes(-2, -1)[...] = vectors
    w = w.astype(w_dtype, copy=False).reshape(*batch_shape, m)
    if not with_eigen_vector:
        return w
    v = v.astype(v_dtype, copy=False)
    return w, v.swapaxes(-2, -1).reshape(*batch_shape, m, m)


def _compute_type_index(dtype: numpy.dtype) -> None:
    """``_routines_linalg.get_compute_type``'s refusal, which gesv and gels ask before
    their own dtype check (``to_compute_type_index``: half, single, double, bfloat16)."""
    if dtype.char not in "efFdD" and dtype.name != "bfloat16":
        raise TypeError(f"dtype is not supported: {dtype}")


def _check_rhs(a: Any, b: Any) -> None:
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"shape mismatch (a:{a.shape}, b:{b.shape}).")
    if a.dtype != b.dtype:
        raise ValueError(f"dtype mismatch (a:{a.dtype}, b:{b.dtype}).")


def gesv(a: Any, b: Any) -> Any:
    """See Also: cupyx.cusolver.gesv (``a`` and ``b`` untouched: CuPy solves copies;
    the result has ``b``'s shape and dtype, F-ordered; host arrays pass CuPy's checks
    and then have no device pointer)."""
    a, b, hosts = _host(a), _host(b), (a, b)
    if a.ndim != 2:
        raise ValueError(f"a.ndim must be 2 (actual:{a.ndim})")
    if b.ndim not in (1, 2):
        raise ValueError(f"b.ndim must be 1 or 2 (actual:{b.ndim})")
    if a.shape[0] != a.shape[1]:
        raise ValueError("a must be a square matrix.")
    _check_rhs(a, b)
    _compute_type_index(a.dtype)
    if _solver_letter(a.dtype) is None:
        raise ValueError(f"unsupported dtype (actual:{a.dtype})")
    _no_pointer(*hosts)
    x = numpy.empty_like(b, order="F")
    if x.size:
        linalg = _linalg()
        with warnings.catch_warnings(), numpy.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # (a singular matrix: LAPACK's inf/nan)
            lu = linalg.lu_factor(a, check_finite=False)
            x[...] = linalg.lu_solve(lu, b, check_finite=False)
    return x


def gels(a: Any, b: Any) -> Any:
    """See Also: cupyx.cusolver.gels (the first ``n`` rows of cuSOLVER's
    ``(max(m, n), nrhs)`` F-ordered solution buffer, as CuPy's views of it; host
    arrays pass CuPy's checks and then have no device pointer)."""
    a, b, hosts = _host(a), _host(b), (a, b)
    if a.ndim != 2:
        raise ValueError(f"a.ndim must be 2 (actual:{a.ndim})")
    if b.ndim == 1:
        nrhs = 1
    elif b.ndim == 2:
        nrhs = b.shape[1]
    else:
        raise ValueError(f"b.ndim must be 1 or 2 (actual: {b.ndim})")
    _check_rhs(a, b)
    m, n = a.shape
    if m < n:
        raise ValueError("m must be equal to or greater than n.")
    _compute_type_index(a.dtype)
    if _solver_letter(a.dtype) is None:
        raise ValueError(f"unsupported dtype (actual:{a.dtype})")
    _no_pointer(*hosts)
    max_mn = max(m, n)
    b_ndim = b.ndim
    org_nrhs = nrhs
    if m > n and nrhs == 1:  # (CuPy's workaround for CUDA 11.0/11.1: two columns)
        nrhs = 2
        bb = numpy.zeros((max_mn, nrhs), dtype=a.dtype, order="F")
        bb[:m, :] = b.reshape(m, 1)
    else:
        bb = b.reshape(m, nrhs)
    x = numpy.zeros((max_mn, nrhs), dtype=a.dtype, order="F")
    if n and nrhs:
        with warnings.catch_warnings(), numpy.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            x[:n] = _linalg().lstsq(a, bb, check_finite=False)[0]
    x = x[:n]
    if org_nrhs != nrhs:
        x = x[:, :org_nrhs]
    if b_ndim == 1:
        x = x.reshape(n)
    return x


def csrlsvqr(A: Any, b: Any, tol: Any = 0, reorder: Any = 1) -> Any:
    """See Also: cupyx.cusolver.csrlsvqr (``b`` a device array: a host one is refused
    in CuPy's words; the singularity is the first ``j`` whose ``|R[j, j]| <= tol``
    in ``A``'s QR factorization, unreordered, for matrices of up to 4096 rows)."""
    if not (sparse.is_sparse(A) and A.format == "csr"):
        raise ValueError("A must be CSR sparse matrix")
    if not isinstance(b, numpy.ndarray):
        raise ValueError("b must be cupy.ndarray")
    if b.ndim != 1:
        raise ValueError(f"b.ndim must be 1 (actual: {b.ndim})")
    if not (A.shape[0] == A.shape[1] == b.shape[0]):
        raise ValueError("invalid shape")
    if A.dtype != b.dtype:
        raise TypeError("dtype mismatch")
    dtype = A.dtype
    if _solver_letter(dtype) is None:
        raise TypeError(f"Invalid dtype (actual: {dtype})")
    tol = max(tol, 0)
    m = A.shape[0]
    x = numpy.empty((m,), dtype=dtype)
    singularity = numpy.array([-1], numpy.int32)
    if m:
        if m <= 4096:
            r = numpy.linalg.qr(A.toarray(), mode="r")
            small = numpy.flatnonzero(numpy.abs(numpy.diagonal(r)) <= tol)
            if small.size:
                singularity[0] = small[0]
        solve = scipy_module("scipy.sparse.linalg", "cupyx.cusolver.csrlsvqr").spsolve
        with warnings.catch_warnings(), numpy.errstate(all="ignore"):
            warnings.simplefilter("ignore")  # (SciPy's MatrixRankWarning: NaN, as here)
            x[...] = numpy.asarray(solve(A.tocsc(), b)).reshape(m)
    if singularity[0] >= 0:
        warnings.warn("A is not positive definite or near singular under "
                      f"tolerance {tol} (singularity: {singularity})")
    return x


for _fn in (gesvdj, gesvda, syevj, gesv, gels, csrlsvqr):  # (host arrays: CuPy's ways)
    _fn.host_arrays = True  # type: ignore[attr-defined]

#: ``cupyx.cusolver.<name>`` -> its implementation here
CUSOLVER_OVERRIDES: dict[str, Callable[..., Any]] = {
    "cupyx.cusolver.check_availability": check_availability,
    "cupyx.cusolver.gesvdj": gesvdj,
    "cupyx.cusolver.gesvda": gesvda,
    "cupyx.cusolver.syevj": syevj,
    "cupyx.cusolver.gesv": gesv,
    "cupyx.cusolver.gels": gels,
    "cupyx.cusolver.csrlsvqr": csrlsvqr,
}


def overrides(wrap: Callable[..., Any], wrap_host_ok: Callable[..., Any]
              ) -> dict[str, Callable[..., Any]]:
    """``CUSOLVER_OVERRIDES`` for ``cpu.OVERRIDES``: ``wrap`` refusing host arrays
    (``cpu._wrap``), ``wrap_host_ok`` for the routines that take them as CuPy's do
    (``host_arrays``: given ``HostArray``s)."""
    return {name: (wrap_host_ok if getattr(fn, "host_arrays", False) else wrap)(fn)
            for name, fn in CUSOLVER_OVERRIDES.items()}
