"""``cupy.cublas``: CuPy's cuBLAS wrappers (``cupy/cublas.py``), run on the server.

Every function is sent by name (``cupy.cublas.<name>``), its arrays by handle, and
waits: CuPy raises its errors at the call. What CuPy writes into its arguments
(``axpy``'s ``y``, ``scal``'s ``x``, ``gemv``'s and ``sbmv``'s ``y``, ``ger``'s ``a``,
``out=``) the server writes into the same arrays, so the client's proxies show the new
values; where CuPy returns an argument (``out``, ``sbmv``'s ``y``) the caller's own
object is returned. A NumPy ``out`` of a scalar result (CuPy's host pointer mode) is
filled here from the server's 0-d result, as cuBLAS writes it: its first element when
it has the result's dtype, CuPy's ``Unsupported type`` otherwise.

``get_batched_gesv_limit``/``set_batched_gesv_limit`` read and set the session's
limit (CuPy's per-process global lives in the session's worker), which the server's
``cupy.linalg.solve`` honours.

See Also
--------
cupy.cublas
"""
from __future__ import annotations

import sys
from typing import Any

import numpy

from . import _export_table, _remote
from ._ndarray import ndarray

_export_table(sys.modules[__name__], "cupy.cublas", numpy, {})

_REMOTE = {name: _remote(f"cupy.cublas.{name}", name)
           for name in ("iamax", "iamin", "asum", "nrm2", "dot", "dotu", "dotc", "sbmv",
                        "gemm", "geam", "dgmm", "syrk")}


def _host_out(result: Any, out: numpy.ndarray) -> numpy.ndarray:
    """CuPy's NumPy ``out`` (``_setup_result_ptr``'s host pointer mode): cuBLAS
    writes the result at ``out``'s first byte when ``out`` has its dtype; else CuPy
    copies it with ``elementwise_copy``, which refuses a NumPy array."""
    if out.dtype != result.dtype:
        raise TypeError(f"Unsupported type {numpy.ndarray}")
    if out.size:
        out[(0,) * out.ndim] = result.get()
    return out


def _scalar_result(name: str, args: tuple, out: Any) -> Any:
    remote = _REMOTE[name]
    if isinstance(out, numpy.ndarray):
        return _host_out(remote(*args), out)
    result = remote(*args, out=out)
    return out if isinstance(out, ndarray) else result


def iamax(x: Any, out: Any = None) -> Any:
    """The (smallest) 1-based index of the element of largest magnitude (cuBLAS's
    ``|re| + |im|``).

    See Also
    --------
    cupy.cublas.iamax
    """
    return _scalar_result("iamax", (x,), out)


def iamin(x: Any, out: Any = None) -> Any:
    """The (smallest) 1-based index of the element of smallest magnitude.

    See Also
    --------
    cupy.cublas.iamin
    """
    return _scalar_result("iamin", (x,), out)


def asum(x: Any, out: Any = None) -> Any:
    """The sum of the magnitudes (``|re| + |im|``) of x.

    See Also
    --------
    cupy.cublas.asum
    """
    return _scalar_result("asum", (x,), out)


def nrm2(x: Any, out: Any = None) -> Any:
    """The Euclidean norm of x.

    See Also
    --------
    cupy.cublas.nrm2
    """
    return _scalar_result("nrm2", (x,), out)


def dot(x: Any, y: Any, out: Any = None) -> Any:
    """The dot product of x and y (real dtypes).

    See Also
    --------
    cupy.cublas.dot
    """
    return _scalar_result("dot", (x, y), out)


def dotu(x: Any, y: Any, out: Any = None) -> Any:
    """The dot product of x and y.

    See Also
    --------
    cupy.cublas.dotu
    """
    return _scalar_result("dotu", (x, y), out)


def dotc(x: Any, y: Any, out: Any = None) -> Any:
    """The dot product of x.conj() and y.

    See Also
    --------
    cupy.cublas.dotc
    """
    return _scalar_result("dotc", (x, y), out)


def sbmv(k: Any, alpha: Any, a: Any, x: Any, beta: Any, y: Any, lower: Any = False) -> Any:
    """``y = alpha * A @ x + beta * y`` for the symmetric band matrix A held in ``a``
    (band storage, ``k`` super- or sub-diagonals); ``y`` is updated and returned.

    See Also
    --------
    cupy.cublas.sbmv
    """
    result = _REMOTE["sbmv"](k, alpha, a, x, beta, y, lower)
    return y if isinstance(y, ndarray) else result


def _with_out(name: str, args: tuple, out: Any, **kwargs: Any) -> Any:
    result = _REMOTE[name](*args, out=out, **kwargs)
    return out if out is not None and isinstance(out, ndarray) else result


def gemm(transa: Any, transb: Any, a: Any, b: Any, out: Any = None, alpha: Any = 1.0,
         beta: Any = 0.0) -> Any:
    """``out = alpha * op(a) @ op(b) + beta * out`` (op: ``'N'``, ``'T'`` or ``'H'``).

    See Also
    --------
    cupy.cublas.gemm
    """
    return _with_out("gemm", (transa, transb, a, b), out, alpha=alpha, beta=beta)


def geam(transa: Any, transb: Any, alpha: Any, a: Any, beta: Any, b: Any,
         out: Any = None) -> Any:
    """``alpha * op(a) + beta * op(b)``.

    See Also
    --------
    cupy.cublas.geam
    """
    return _with_out("geam", (transa, transb, alpha, a, beta, b), out)


def dgmm(side: Any, a: Any, x: Any, out: Any = None, incx: Any = 1) -> Any:
    """``diag(x) @ a`` (side ``'L'``) or ``a @ diag(x)`` (``'R'``).

    See Also
    --------
    cupy.cublas.dgmm
    """
    return _with_out("dgmm", (side, a, x), out, incx=incx)


def syrk(trans: Any, a: Any, out: Any = None, alpha: Any = 1.0, beta: Any = 0.0,
         lower: Any = False) -> Any:
    """``out = alpha * op(a) @ op(a).T + beta * out``, one triangle of ``out``.

    See Also
    --------
    cupy.cublas.syrk
    """
    return _with_out("syrk", (trans, a), out, alpha=alpha, beta=beta, lower=lower)
