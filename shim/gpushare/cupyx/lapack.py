"""``cupyx.lapack``: ``gesv``, ``gels``, ``posv`` and ``potrs``, after CuPy 14.2's
``cupyx/lapack.py`` (MIT licence).

CuPy calls cuSOLVER and cuBLAS by device pointer; here the same checks, in CuPy's
order and with CuPy's errors, run on the client, and the arithmetic is gpushare's own
pipelined routines (``linalg.solve``, ``qr``, ``cholesky``, ``solve_triangular``,
``lu_factor``), which run on the server's cuSOLVER on a GPU. What CuPy overwrites
in place is overwritten here too: ``gesv``'s ``a`` (with its LU factors, as getrf
leaves them) and ``b`` (with the solution), and ``potrs``'s ``b`` when it already
has the layout cuSOLVER writes into.

See Also
--------
cupyx.lapack
"""
from __future__ import annotations

from typing import Any

import numpy

from ..errors import assert_stacked_square

__all__ = ["gesv", "gels", "posv", "potrs"]


def _cupy() -> Any:
    import gpushare.cupy as cupy
    return cupy


def _solve_triangular(*args: Any, **kwargs: Any) -> Any:
    from .scipy import linalg
    return linalg.solve_triangular(*args, check_finite=False, **kwargs)


def _assert_cupy_array(*arrays: Any) -> None:
    cupy = _cupy()
    for a in arrays:
        if not isinstance(a, cupy.ndarray):
            raise numpy.linalg.LinAlgError("cupy.linalg only supports cupy.ndarray")


def _solver_dtype(*dtypes: Any) -> numpy.dtype:
    dtype = numpy.promote_types(dtypes[0], dtypes[1])
    dtype = numpy.promote_types(dtype, "f")
    if dtype.char not in "fdFD":
        raise ValueError("dtype must be float32, float64, complex64 or complex128"
                         f" (actual: {dtypes[0]})")
    return dtype


def gesv(a: Any, b: Any) -> None:
    """Solve ``a x = b`` (cusolverDn<t>getr[fs]): ``b`` is overwritten with the
    solution and ``a`` with its LU factors. ``a`` must be C- or F-contiguous, ``b``
    F-contiguous, both of one dtype of float32, float64, complex64, complex128.

    See Also
    --------
    cupyx.lapack.gesv
    """
    if a.ndim != 2:
        raise ValueError(f"a.ndim must be 2 (actual: {a.ndim})")
    if b.ndim not in (1, 2):
        raise ValueError(f"b.ndim must be 1 or 2 (actual: {b.ndim})")
    if a.shape[0] != a.shape[1]:
        raise ValueError("a must be a square matrix.")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"shape mismatch (a: {a.shape}, b: {b.shape}).")
    if a.dtype != b.dtype:
        raise TypeError(f"dtype mismatch (a: {a.dtype}, b: {b.dtype})")
    if a.dtype.char not in "fdFD":
        raise TypeError(f"unsupported dtype (actual:{a.dtype})")
    if a.flags.f_contiguous:
        f_order = True
    elif a.flags.c_contiguous:
        f_order = False
    else:
        raise ValueError("a must be F-contiguous or C-contiguous.")
    if not b.flags.f_contiguous:
        raise ValueError("b must be F-contiguous.")
    from .scipy import linalg
    x = _cupy().linalg.solve(a, b)
    # getrf factors the matrix a's memory holds in column-major order: a itself when
    # F-contiguous, its transpose when C-contiguous (getrs then solves transposed)
    lu = linalg.lu_factor(a if f_order else a.T, check_finite=False)[0]
    a[...] = lu if f_order else lu.T
    b[...] = x


def gels(a: Any, b: Any) -> Any:
    """The least-squares solution of ``a x = b`` by QR factorization (geqrf, ormqr,
    trsm), for over-, well- and under-determined systems; a new array.

    See Also
    --------
    cupyx.lapack.gels
    """
    if a.ndim != 2:
        raise ValueError(f"a.ndim must be 2 (actual: {a.ndim})")
    if b.ndim not in (1, 2):
        raise ValueError(f"b.ndim must be 1 or 2 (actual: {b.ndim})")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"shape mismatch (a: {a.shape}, b: {b.shape}).")
    if a.dtype != b.dtype:
        raise ValueError(f"dtype mismatch (a: {a.dtype}, b: {b.dtype}).")
    if a.dtype.char not in "fdFD":
        raise ValueError(f"unsupported dtype (actual: {a.dtype})")
    cupy = _cupy()
    m, n = a.shape
    rhs = b if b.ndim == 2 else b[:, None]
    if m >= n:  # A = Q R; R x = Q^H b
        q, r = cupy.linalg.qr(a)
        x = _solve_triangular(r, q.conj().T @ rhs, lower=False)
    else:  # A^H = Q R; R^H z = b; x = Q z (the minimum-norm solution)
        q, r = cupy.linalg.qr(a.conj().T)
        x = q @ _solve_triangular(r, rhs, lower=False, trans="C")
    x = x.astype(a.dtype, copy=False)
    return x if b.ndim == 2 else x[:, 0]


def _cho_solve(factor: Any, rhs: Any, lower: bool) -> Any:
    """Solve ``A x = rhs`` given A's Cholesky factor (``L L^H`` or ``U^H U``), only the
    named triangle of ``factor`` read, stacked over leading axes."""
    if lower:
        y = _solve_triangular(factor, rhs, lower=True)
        return _solve_triangular(factor, y, lower=True, trans="C")
    y = _solve_triangular(factor, rhs, lower=False, trans="C")
    return _solve_triangular(factor, y, lower=False)


def posv(a: Any, b: Any) -> Any:
    """Solve ``a x = b`` by Cholesky factorization (potrf, potrs) for real symmetric
    or complex Hermitian positive-definite ``a`` of shape ``(..., N, N)``; ``b`` is
    ``(..., N)`` or ``(..., N, NRHS)`` and is not modified.

    See Also
    --------
    cupyx.lapack.posv
    """
    _assert_cupy_array(a, b)
    assert_stacked_square(a)
    dtype = _solver_dtype(a.dtype, b.dtype)
    cupy = _cupy()
    n = a.shape[-1]
    b_shape = b.shape
    if a.ndim > 2:
        batch = a.shape[:-2]
        rhs = b.reshape(*batch, n, -1)
    else:
        rhs = b.reshape(n, -1)
    factor = cupy.linalg.cholesky(a.astype(dtype, copy=False))
    x = _cho_solve(factor, rhs.astype(dtype, copy=False), lower=True)
    return cupy.ascontiguousarray(x.reshape(b_shape))


def potrs(L: Any, b: Any, lower: bool) -> Any:
    """Solve ``A x = b`` given ``L``, the Cholesky factor of ``A`` (lower or upper
    triangular, only that triangle read), batched over leading axes. As LAPACK's,
    ``b`` may be overwritten: it is, when it already is an F-contiguous 2-D array of
    the solver's dtype, and the result is then ``b`` itself.

    See Also
    --------
    cupyx.lapack.potrs
    """
    _assert_cupy_array(L, b)
    assert_stacked_square(L)
    dtype = _solver_dtype(L.dtype, b.dtype)
    b_shape = b.shape
    if L.ndim > 2:
        assert b.ndim >= L.ndim - 1, "Batch dimension of b is different than that of L"
        rhs = b[..., None] if b.ndim < L.ndim else b
        assert rhs.shape[:-2] == L.shape[:-2], "Batch dimension of L and b do not match"
    else:
        n = L.shape[-1]
        rhs = b[:, None] if b.ndim == 1 else b
        assert rhs.ndim == 2, "b is not a vector or a matrix"
        assert rhs.shape[0] == n, "length of arrays in b does not match size of L"
    x = _cho_solve(L.astype(dtype, copy=False), rhs.astype(dtype, copy=False),
                   bool(lower))
    if L.ndim == 2 and b.ndim == 2 and b.dtype == dtype and b.flags.f_contiguous:
        b[...] = x  # cuSOLVER solves in place in this layout
        return b
    return x.reshape(b_shape)
