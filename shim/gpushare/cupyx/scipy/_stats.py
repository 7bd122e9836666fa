"""``cupyx.scipy.stats`` (CuPy 14.2's ``_distributions.py``, ``_morestats.py``,
``_stats.py`` and ``_stats_py.py``, MIT licence, ``LICENSE.cupy``): CuPy writes each of
its functions in CuPy, so for device arrays they run here, as CuPy's, and each step is
an ordinary call (pipelined where it can be: ``entropy``, ``boxcox_llf``, ``zscore``
need not wait; ``trim_mean``'s ``size`` and ``zmap``'s ``nan_policy='raise'`` test wait
as in CuPy). Anything else (a NumPy array, a list...) is the server's call, which
answers as CuPy does (``backends/cpu_scipy_stats.py`` on the CPU backend).
"""
from __future__ import annotations

import math
import types
from typing import Any


def _device(*values: Any) -> bool:
    from ...cupy import ndarray
    return all(v is None or type(v) is ndarray for v in values)


def _special() -> Any:
    from . import special  # type: ignore[attr-defined]
    return special


# --- _distributions.py ----------------------------------------------------------------
def _normalize(x: Any, axis: Any) -> Any:
    """Normalize, preserving floating point precision of x."""
    x_sum = x.sum(axis=axis, keepdims=True)
    if x.dtype.kind == "f":
        x /= x_sum
    else:
        x = x / x_sum
    return x


def _entropy(pk: Any, qk: Any = None, base: Any = None, axis: Any = 0) -> Any:
    from ... import cupy
    special = _special()
    if pk.dtype.kind == "c" or qk is not None and qk.dtype.kind == "c":
        raise TypeError("complex dtype not supported")
    elif pk.dtype.kind == "f":
        float_type = cupy.result_type(pk, cupy.float32)
    else:
        float_type = cupy.float64
    pk = pk.astype(float_type, copy=False)
    pk = _normalize(pk, axis)
    if qk is None:
        vec = special.entr(pk)
    else:
        if qk.shape != pk.shape:
            raise ValueError("qk and pk must have same shape.")
        qk = qk.astype(float_type, copy=False)
        qk = _normalize(qk, axis)
        vec = special.rel_entr(pk, qk)
    s = cupy.sum(vec, axis=axis)
    if base is not None:
        s /= math.log(base)
    return s


# --- _morestats.py --------------------------------------------------------------------
def _log_mean(logx: Any) -> Any:
    # compute log of mean of x from log(x)
    return _special().logsumexp(logx, axis=0) - math.log(len(logx))


def _log_var(logx: Any) -> Any:
    # compute log of variance of x from log(x)
    from ... import cupy
    special = _special()
    neg_logmean = cupy.broadcast_to(_log_mean(logx) - cupy.pi * 1j, logx.shape)
    logxmu = special.logsumexp(cupy.asarray([logx, neg_logmean]), axis=0)
    return special.logsumexp(2 * logxmu, axis=0).real - math.log(len(logx))


def _boxcox_llf(lmb: Any, data: Any) -> Any:
    from ... import cupy
    if data.dtype.kind in "biu":
        data = data.astype(cupy.float64)
    dtype = data.dtype
    if data.dtype == cupy.float16:
        # Avoid large numerical errors in float16
        data = data.astype(cupy.float32)
    N = data.shape[0]
    if N == 0:
        return cupy.array(cupy.nan, dtype=dtype)
    logdata = cupy.log(data)
    # Compute the variance of the transformed data
    if lmb == 0:
        variance = cupy.var(logdata, axis=0)
        logvar = cupy.log(variance)
    else:
        logx = lmb * logdata
        logvar = _log_var(logx) - 2 * math.log(abs(lmb))
    res = (lmb - 1) * cupy.sum(logdata, axis=0) - N / 2 * logvar
    return res.astype(dtype, copy=False)


# --- _stats.py ------------------------------------------------------------------------
def _trim_mean(a: Any, proportiontocut: Any, axis: Any = 0) -> Any:
    from ... import cupy as cp
    if a.size == 0:
        return cp.nan
    if axis is None:
        a = a.ravel()
        axis = 0
    nobs = a.shape[axis]
    lowercut = int(proportiontocut * nobs)
    uppercut = nobs - lowercut
    if lowercut > uppercut:
        raise ValueError("Proportion too big.")
    atmp = cp.partition(a, (lowercut, uppercut - 1), axis)
    sl = [slice(None)] * atmp.ndim
    sl[axis] = slice(lowercut, uppercut)
    return cp.mean(atmp[tuple(sl)], axis=axis)


# --- _stats_py.py ---------------------------------------------------------------------
def _first(arr: Any, axis: Any) -> Any:
    """Return arr[..., 0:1, ...] where 0:1 is in the `axis` position."""
    from ... import cupy
    return cupy.take_along_axis(arr, cupy.array(0, ndmin=arr.ndim), axis)


def _isconst(x: Any) -> Any:
    """Check if all values in x are the same. nans are ignored."""
    from ... import cupy
    y = x[~cupy.isnan(x)]
    if y.size == 0:
        return cupy.array([True])
    return (y[0] == y).all(keepdims=True)


def _zscore(a: Any, axis: Any = 0, ddof: Any = 0, nan_policy: Any = "propagate") -> Any:
    return _zmap(a, a, axis=axis, ddof=ddof, nan_policy=nan_policy)


def _zmap(scores: Any, compare: Any, axis: Any = 0, ddof: Any = 0,
          nan_policy: Any = "propagate") -> Any:
    from ... import cupy
    policies = ["propagate", "raise", "omit"]
    if nan_policy not in policies:
        raise ValueError("nan_policy must be one of {%s}" %
                         ", ".join("'%s'" % s for s in policies))
    a = compare
    if a.size == 0:
        dtype = a.dtype if a.dtype.kind in "fc" else cupy.float64
        return cupy.empty(a.shape, dtype)
    if nan_policy == "raise":
        contains_nan = cupy.isnan(cupy.sum(a))
        if contains_nan:
            raise ValueError("The input contains nan values")
    if nan_policy == "omit":
        if axis is None:
            mn = cupy.nanmean(a.ravel())
            std = cupy.nanstd(a.ravel(), ddof=ddof)
            isconst = _isconst(a.ravel())
        else:
            mn = cupy.nanmean(a, axis=axis, keepdims=True)
            std = cupy.nanstd(a, axis=axis, keepdims=True, ddof=ddof)
            isconst = (_first(a, axis) == a).all(axis=axis, keepdims=True)
    else:
        mn = a.mean(axis=axis, keepdims=True)
        std = a.std(axis=axis, ddof=ddof, keepdims=True)
        if axis is None:
            isconst = (a.ravel()[0] == a).all()
        else:
            isconst = (_first(a, axis) == a).all(axis=axis, keepdims=True)
    # Set std deviations that are 0 to 1 to avoid division by 0.
    std[isconst] = 1.0
    z = (scores - mn) / std
    # Set the outputs associated with a constant input to nan.
    z[cupy.broadcast_to(isconst, z.shape)] = cupy.nan
    return z


def _on_device(name: str, local: Any, served: Any, arrays: Any) -> Any:
    """``served`` (the server's ``name``), run as CuPy's Python (``local``) when the
    arrays ``arrays(*args, **kwargs)`` names are all device arrays."""
    def fn(*args: Any, **kwargs: Any) -> Any:
        try:
            on_device = _device(*arrays(*args, **kwargs))
        except TypeError:  # (a wrong call: Python's words, as CuPy's signature gives)
            on_device = False
        return local(*args, **kwargs) if on_device else served(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"See Also: cupyx.scipy.stats.{name} (CuPy's Python, for device arrays)"
    fn.__module__ = "cupyx.scipy.stats"
    return fn


def install(mod: types.ModuleType) -> None:
    """Put the client's functions in gpushare's ``cupyx.scipy.stats``."""
    def plain_lmb(lmb: Any, data: Any) -> tuple:
        # (a device lmb: the server's; CuPy compares it, which waits anyway)
        return (data,) if type(lmb) in (int, float) else (None, 0)
    table = {
        "entropy": (_entropy, lambda pk, qk=None, base=None, axis=0: (pk, qk)),
        "boxcox_llf": (_boxcox_llf, plain_lmb),
        "trim_mean": (_trim_mean, lambda a, proportiontocut, axis=0: (a,)),
        "zscore": (_zscore, lambda a, axis=0, ddof=0, nan_policy="propagate": (a,)),
        "zmap": (_zmap, lambda scores, compare, axis=0, ddof=0, nan_policy="propagate":
                 (scores, compare)),
    }
    for name, (local, arrays) in table.items():
        setattr(mod, name, _on_device(name, local, getattr(mod, name), arrays))
