"""``cupyx.scipy.stats`` on the CPU backend, where CuPy 14.2's differs from SciPy's
(the rest of the module is SciPy's, ``MIRRORS`` in ``cpu.py``), ported line by line:

- ``entropy`` (``cupyx/scipy/stats/_distributions.py``): float inputs of float32 or
  float64 are normalised in place (``_normalize``: ``x /= x_sum``, after
  ``astype(copy=False)``), so the caller's ``pk`` and ``qk`` sum to one afterwards;
  ``qk`` of another shape and complex inputs are refused in CuPy's words (SciPy
  broadcasts the one and takes the other); float16 is computed in float32.
- ``zscore``/``zmap`` (``_stats_py.py``): CuPy's words for an unknown ``nan_policy``,
  its constant-input rule (NaN, no warning), an empty ``compare`` giving an empty array
  of its own shape.
- ``trim_mean`` (``_stats.py``): an empty input gives a Python ``nan`` (no warning);
  ``boxcox_llf`` (``_morestats.py``) a 0-d NaN of the data's float type (no warning).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy

from . import scipy_module


def _special() -> Any:
    return scipy_module("scipy.special", "cupyx.scipy.stats")


def _normalize(x: numpy.ndarray, axis: Any) -> numpy.ndarray:
    x_sum = x.sum(axis=axis, keepdims=True)
    if x.dtype.kind == "f":
        x /= x_sum
    else:
        x = x / x_sum
    return x


def entropy(pk: Any, qk: Any = None, base: Any = None, axis: Any = 0) -> Any:
    """See Also: cupyx.scipy.stats.entropy (module docs)."""
    if pk.dtype.kind == "c" or qk is not None and qk.dtype.kind == "c":
        raise TypeError("complex dtype not supported")
    elif pk.dtype.kind == "f":
        float_type = numpy.result_type(pk, numpy.float32)
    else:
        float_type = numpy.float64
    with numpy.errstate(all="ignore"):
        pk = pk.astype(float_type, copy=False)
        pk = _normalize(pk, axis)
        if qk is None:
            vec = _special().entr(pk)
        else:
            if qk.shape != pk.shape:
                raise ValueError("qk and pk must have same shape.")
            qk = qk.astype(float_type, copy=False)
            qk = _normalize(qk, axis)
            vec = _special().rel_entr(pk, qk)
        s = numpy.asarray(numpy.sum(vec, axis=axis))
        if base is not None:
            s /= math.log(base)
    return s


def trim_mean(a: Any, proportiontocut: Any, axis: Any = 0) -> Any:
    """See Also: cupyx.scipy.stats.trim_mean (module docs)."""
    if a.size == 0:
        return math.nan
    return scipy_module("scipy.stats", "cupyx.scipy.stats").trim_mean(a, proportiontocut, axis)


def boxcox_llf(lmb: Any, data: Any) -> Any:
    """See Also: cupyx.scipy.stats.boxcox_llf (module docs)."""
    if data.shape[0] == 0:
        return numpy.array(numpy.nan, dtype=numpy.float64 if data.dtype.kind in "biu"
                           else data.dtype)
    return scipy_module("scipy.stats", "cupyx.scipy.stats").boxcox_llf(lmb, data)


def _first(arr: numpy.ndarray, axis: int) -> numpy.ndarray:
    return numpy.take_along_axis(arr, numpy.array(0, ndmin=arr.ndim), axis)


def _isconst(x: numpy.ndarray) -> numpy.ndarray:
    y = x[~numpy.isnan(x)]
    if y.size == 0:
        return numpy.array([True])
    return (y[0] == y).all(keepdims=True)


def zscore(a: Any, axis: Any = 0, ddof: Any = 0, nan_policy: str = "propagate") -> Any:
    """See Also: cupyx.scipy.stats.zscore (module docs)."""
    return zmap(a, a, axis=axis, ddof=ddof, nan_policy=nan_policy)


def zmap(scores: Any, compare: Any, axis: Any = 0, ddof: Any = 0,
         nan_policy: str = "propagate") -> Any:
    """See Also: cupyx.scipy.stats.zmap (module docs)."""
    policies = ["propagate", "raise", "omit"]
    if nan_policy not in policies:
        raise ValueError("nan_policy must be one of {%s}" %
                         ", ".join("'%s'" % s for s in policies))
    a = compare
    if a.size == 0:
        dtype = a.dtype if a.dtype.kind in "fc" else numpy.float64
        return numpy.empty(a.shape, dtype)
    with numpy.errstate(all="ignore"):
        if nan_policy == "raise":
            if numpy.isnan(numpy.sum(a)):
                raise ValueError("The input contains nan values")
        if nan_policy == "omit":
            if axis is None:
                mn = numpy.nanmean(a.ravel())
                std = numpy.nanstd(a.ravel(), ddof=ddof)
                isconst = _isconst(a.ravel())
            else:
                mn = numpy.nanmean(a, axis=axis, keepdims=True)
                std = numpy.nanstd(a, axis=axis, keepdims=True, ddof=ddof)
                isconst = (_first(a, axis) == a).all(axis=axis, keepdims=True)
        else:
            mn = a.mean(axis=axis, keepdims=True)
            std = a.std(axis=axis, ddof=ddof, keepdims=True)
            if axis is None:
                isconst = (a.ravel()[0] == a).all()
            else:
                isconst = (_first(a, axis) == a).all(axis=axis, keepdims=True)
        std = numpy.array(std)
        std[isconst] = 1.0
        z = numpy.asarray((scores - mn) / std)
        z[numpy.broadcast_to(isconst, z.shape)] = numpy.nan
    return z


SCIPY_STATS_OVERRIDES: dict[str, Callable[..., Any]] = {
    f"cupyx.scipy.stats.{fn.__name__}": fn for fn in (entropy, trim_mean, boxcox_llf, zscore, zmap)}
