"""``cupyx.scipy.special``'s array functions that CuPy writes in CuPy: ``softmax``,
``log_softmax``, ``logsumexp`` and ``polygamma`` (CuPy 14.2's ``_softmax.py``,
``_logsoftmax.py``, ``_logsumexp.py``, ``_polygamma.py``, MIT licence,
``LICENSE.cupy``) run here, as CuPy's, for device arrays: each of their steps is a
pipelined call, so they queue where CuPy's do not wait (``logsumexp``'s ``b`` with a
zero, and a 0-d input's test for a finite maximum, wait as in CuPy). Anything else (a
NumPy array, a list...) is the server's call, which answers as CuPy does. The module's
ufuncs are ``cupy/_ufunc.py``'s, with CuPy's loops (``ufunc_loops.SPECIAL``).
"""
from __future__ import annotations

import types
from typing import Any


def _device(*values: Any) -> bool:
    """Whether every one of ``values`` is a device array or None (CuPy's Python runs
    here for those; also ``_stats.py``'s)."""
    from ...cupy import ndarray
    return all(v is None or type(v) is ndarray for v in values)


def _softmax(served: Any) -> Any:
    def softmax(x: Any, axis: Any = None) -> Any:
        """See Also: cupyx.scipy.special.softmax"""
        if not _device(x):
            return served(x, axis=axis)
        from ... import cupy
        x_max = cupy.amax(x, axis=axis, keepdims=True)
        exp_x_shifted = cupy.exp(x - x_max)
        return exp_x_shifted / cupy.sum(exp_x_shifted, axis=axis, keepdims=True)
    return softmax


def _log_softmax_kernel(x: Any) -> Any:
    """CuPy's (``_logsoftmax.py``), made once per session."""
    from ...cupy import _core
    from ...cupy._kernels import session_kernel
    return session_kernel(x._gs_session, "log_softmax", lambda: _core.ReductionKernel(
        "T x1", "T y", "exp(x1)", "a + b", "y = log(a)", "0", name="log_softmax"))


def _log_softmax(served: Any) -> Any:
    def log_softmax(x: Any, axis: Any = None) -> Any:
        """See Also: cupyx.scipy.special.log_softmax"""
        if not _device(x):
            return served(x, axis=axis)
        from ... import cupy as cp
        x_max = cp.amax(x, axis=axis, keepdims=True)
        if x_max.ndim > 0:
            x_max[~cp.isfinite(x_max)] = 0
        elif not cp.isfinite(x_max):
            x_max = 0
        tmp = x - x_max
        if tmp.dtype.kind in "iu":
            for out_dtype in [cp.float16, cp.float32, cp.float64]:
                if cp.can_cast(tmp.dtype, out_dtype):
                    tmp = tmp.astype(out_dtype)
                    break
        out = _log_softmax_kernel(x)(tmp, axis=axis, keepdims=True)
        out = tmp - out
        return out
    return log_softmax


def _logsumexp(served: Any) -> Any:
    def logsumexp(a: Any, axis: Any = None, b: Any = None, keepdims: bool = False,
                  return_sign: bool = False) -> Any:
        """See Also: cupyx.scipy.special.logsumexp"""
        if not _device(a, b):
            return served(a, axis=axis, b=b, keepdims=keepdims, return_sign=return_sign)
        from ... import cupy as cp
        if a.dtype.kind in "biu":
            a = a.astype(cp.float64)
        if b is not None:
            a, b = cp.broadcast_arrays(a, b)
            if cp.any(b == 0):
                a = a + 0.  # promote to at least float
                a[b == 0] = -cp.inf
        a_max = cp.max(a.real, axis=axis, keepdims=True)
        if a_max.ndim > 0:
            a_max[~cp.isfinite(a_max)] = 0
        elif not cp.isfinite(a_max):
            a_max = 0
        if b is not None:
            tmp = b * cp.exp(a - a_max)
        else:
            tmp = cp.exp(a - a_max)
        s = cp.sum(tmp, axis=axis, keepdims=keepdims)
        if return_sign:
            if s.dtype.char == "c":
                sgn = s / cp.where(s == 0, 1, cp.abs(s))
            else:
                sgn = cp.sign(s)
            s = cp.abs(s)
        out = cp.log(s)
        if not keepdims:
            a_max = cp.squeeze(a_max, axis=axis)
        out += a_max
        if return_sign:
            return out, sgn
        return out
    return logsumexp


def _polygamma(served: Any) -> Any:
    def polygamma(n: Any, x: Any) -> Any:
        """See Also: cupyx.scipy.special.polygamma"""
        if not _device(n, x):
            return served(n, x)
        from ... import cupy
        special = _module()
        n, x = cupy.broadcast_arrays(n, x)
        fac2 = (-1.0) ** (n + 1) * special.gamma(n + 1.0) * special.zeta(n + 1.0, x)
        return cupy.where(n == 0, special.digamma(x), fac2)
    return polygamma


def _module() -> Any:
    from . import special  # type: ignore[attr-defined]
    return special


def install(mod: types.ModuleType) -> None:
    """Put the client's functions in gpushare's ``cupyx.scipy.special``."""
    for make in (_softmax, _log_softmax, _logsumexp, _polygamma):
        fn = make(getattr(mod, make.__name__[1:]))
        fn.__module__ = "cupyx.scipy.special"
        setattr(mod, fn.__name__, fn)
