"""``cupyx.scipy.stats`` as CuPy 14.2 writes it (``_distributions.py``, ``_morestats.py``,
``_stats.py``, ``_stats_py.py``; MIT licence, ``cupyx/scipy/LICENSE.cupy``), over an
array module ``xp`` and its ``special``: CuPy writes every function in CuPy, so the
client runs them on its device arrays (``xp`` its ``cupy``: each step a call, queued
where it can be; ``cupyx/scipy/_stats.py``) and the CPU backend on NumPy and SciPy
(``backends/cpu_scipy_stats.py``). One source, so both answer as CuPy. (Where NumPy
gives a scalar and CuPy a 0-d array, ``xp.asarray`` makes an array of it; of a device
array it is the array itself.)
"""
from __future__ import annotations

import math
from typing import Any


# --- _distributions.py ----------------------------------------------------------------
def _normalize(x: Any, axis: Any) -> Any:
    """Normalize, preserving floating point precision of x."""
    x_sum = x.sum(axis=axis, keepdims=True)
    if x.dtype.kind == "f":
        x /= x_sum
    else:
        x = x / x_sum
    return x


def entropy(xp: Any, special: Any, pk: Any, qk: Any = None, base: Any = None,
            axis: Any = 0) -> Any:
    if pk.dtype.kind == "c" or qk is not None and qk.dtype.kind == "c":
        raise TypeError("complex dtype not supported")
    elif pk.dtype.kind == "f":
        float_type = xp.result_type(pk, xp.float32)
    else:
        float_type = xp.float64
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
    s = xp.sum(vec, axis=axis)
    if base is not None:
        s /= math.log(base)
    return s


# --- _morestats.py --------------------------------------------------------------------
def _log_mean(special: Any, logx: Any) -> Any:
    # compute log of mean of x from log(x)
    return special.logsumexp(logx, axis=0) - math.log(len(logx))


def _log_var(xp: Any, special: Any, logx: Any) -> Any:
    # compute log of variance of x from log(x)
    neg_logmean = xp.broadcast_to(_log_mean(special, logx) - xp.pi * 1j, logx.shape)
    logxmu = special.logsumexp(xp.asarray([logx, neg_logmean]), axis=0)
    return special.logsumexp(2 * logxmu, axis=0).real - math.log(len(logx))


def boxcox_llf(xp: Any, special: Any, lmb: Any, data: Any) -> Any:
    if data.dtype.kind in "biu":
        data = data.astype(xp.float64)
    dtype = data.dtype
    if data.dtype == xp.float16:
        # Avoid large numerical errors in float16
        data = data.astype(xp.float32)
    N = data.shape[0]
    if N == 0:
        return xp.array(xp.nan, dtype=dtype)
    logdata = xp.log(data)
    # Compute the variance of the transformed data
    if lmb == 0:
        variance = xp.var(logdata, axis=0)
        logvar = xp.log(variance)
    else:
        logx = lmb * logdata
        logvar = _log_var(xp, special, logx) - 2 * math.log(abs(lmb))
    res = (lmb - 1) * xp.sum(logdata, axis=0) - N / 2 * logvar
    return res.astype(dtype, copy=False)


# --- _stats.py ------------------------------------------------------------------------
def trim_mean(xp: Any, special: Any, a: Any, proportiontocut: Any, axis: Any = 0) -> Any:
    if a.size == 0:
        return xp.nan
    if axis is None:
        a = a.ravel()
        axis = 0
    nobs = a.shape[axis]
    lowercut = int(proportiontocut * nobs)
    uppercut = nobs - lowercut
    if lowercut > uppercut:
        raise ValueError("Proportion too big.")
    atmp = xp.partition(a, (lowercut, uppercut - 1), axis)
    sl = [slice(None)] * atmp.ndim
    sl[axis] = slice(lowercut, uppercut)
    return xp.mean(atmp[tuple(sl)], axis=axis)


# --- _stats_py.py ---------------------------------------------------------------------
def _first(xp: Any, arr: Any, axis: Any) -> Any:
    """Return arr[..., 0:1, ...] where 0:1 is in the `axis` position."""
    return xp.take_along_axis(arr, xp.array(0, ndmin=arr.ndim), axis)


def _isconst(xp: Any, x: Any) -> Any:
    """Check if all values in x are the same. nans are ignored."""
    y = x[~xp.isnan(x)]
    if y.size == 0:
        return xp.array([True])
    return (y[0] == y).all(keepdims=True)


def zscore(xp: Any, special: Any, a: Any, axis: Any = 0, ddof: Any = 0,
           nan_policy: Any = "propagate") -> Any:
    return zmap(xp, special, a, a, axis=axis, ddof=ddof, nan_policy=nan_policy)


def zmap(xp: Any, special: Any, scores: Any, compare: Any, axis: Any = 0, ddof: Any = 0,
         nan_policy: Any = "propagate") -> Any:
    policies = ["propagate", "raise", "omit"]
    if nan_policy not in policies:
        raise ValueError("nan_policy must be one of {%s}" %
                         ", ".join("'%s'" % s for s in policies))
    a = compare
    if a.size == 0:
        dtype = a.dtype if a.dtype.kind in "fc" else xp.float64
        return xp.empty(a.shape, dtype)
    if nan_policy == "raise":
        contains_nan = xp.isnan(xp.sum(a))
        if contains_nan:
            raise ValueError("The input contains nan values")
    if nan_policy == "omit":
        if axis is None:
            mn = xp.nanmean(a.ravel())
            std = xp.nanstd(a.ravel(), ddof=ddof)
            isconst = _isconst(xp, a.ravel())
        else:
            mn = xp.nanmean(a, axis=axis, keepdims=True)
            std = xp.nanstd(a, axis=axis, keepdims=True, ddof=ddof)
            isconst = (_first(xp, a, axis) == a).all(axis=axis, keepdims=True)
    else:
        mn = a.mean(axis=axis, keepdims=True)
        std = a.std(axis=axis, ddof=ddof, keepdims=True)
        if axis is None:
            isconst = (a.ravel()[0] == a).all()
        else:
            isconst = (_first(xp, a, axis) == a).all(axis=axis, keepdims=True)
    # Set std deviations that are 0 to 1 to avoid division by 0.
    std = xp.asarray(std)
    std[isconst] = 1.0
    z = xp.asarray((scores - mn) / std)
    # Set the outputs associated with a constant input to nan.
    z[xp.broadcast_to(isconst, z.shape)] = xp.nan
    return z


#: the module's public functions
FUNCTIONS = {fn.__name__: fn for fn in (entropy, boxcox_llf, trim_mean, zscore, zmap)}
