"""The CPU backend's ``cupy.*`` functions that take host arrays for some parameters.

CuPy's kernels refuse NumPy arrays (``TypeError: Unsupported type``), and so does the
CPU backend; but many CuPy functions begin by converting some parameters with
``cupy.asarray`` and so take NumPy arrays there. ``HOST_PARAMS`` lists them (read off
CuPy 14.2's source) and ``host_params`` wraps a function so that those parameters'
host arrays reach it as device arrays, the rest of the call checked as before. (The
cupy backend needs none of this: CuPy itself decides.)
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy

from gpushare.protocol import HostArray


#: CuPy functions that take host (numpy) arrays for some parameters, by (position, name):
#: those their CuPy 14.2 source begins by converting (``cupy.asarray(param)``,
#: ``cupy.array``, ``cupy.asanyarray``, ``_core.array``) before any check that would
#: refuse them. Every other parameter refuses host arrays as CuPy's kernels do. A name
#: starting with ``*`` is every positional argument from that position on (``*arys``).
#: (Not here: ``asfortranarray`` and ``ascontiguousarray``, whose CuPy 14.2 versions are
#: typed ``cupy.ndarray`` but which gpushare's client uploads host arrays for; and what
#: runs on the client: ``polyval``, ``polynomial.polyval``/``polyvalfromroots``,
#: ``lib.stride_tricks.sliding_window_view``, ``apply_over_axes``.)
HOST_PARAMS: dict[str, tuple[tuple[int, str], ...]] = {
    "cupy.append": ((0, "arr"), (1, "values")),
    "cupy.around": ((0, "a"),),
    "cupy.round": ((0, "a"),),
    "cupy.asarray_chkfinite": ((0, "a"),),
    "cupy.atleast_1d": ((0, "*arys"),),
    "cupy.atleast_2d": ((0, "*arys"),),
    "cupy.atleast_3d": ((0, "*arys"),),
    "cupy.average": ((0, "a"), (2, "weights")),
    "cupy.corrcoef": ((0, "a"), (1, "y")),
    "cupy.cov": ((0, "a"), (1, "y")),
    "cupy.cross": ((0, "a"), (1, "b")),
    "cupy.delete": ((1, "indices"),),
    "cupy.diag": ((0, "v"),),
    "cupy.diff": ((0, "a"), (3, "prepend"), (4, "append")),
    "cupy.extract": ((0, "condition"),),
    "cupy.gradient": ((0, "f"),),
    "cupy.histogram": ((1, "bins"),),
    "cupy.histogram2d": ((2, "bins"), (4, "weights")),  # (bins: counts; _HOST_CHECKS)
    "cupy.histogramdd": ((1, "bins"), (3, "weights")),
    "cupy.imag": ((0, "val"),),
    "cupy.real": ((0, "val"),),
    "cupy.interp": ((3, "left"), (4, "right")),
    "cupy.intersect1d": ((0, "arr1"), (1, "arr2")),
    "cupy.setdiff1d": ((0, "ar1"), (1, "ar2")),
    "cupy.setxor1d": ((0, "ar1"), (1, "ar2")),
    "cupy.isclose": ((0, "a"), (1, "b")),
    "cupy.allclose": ((0, "a"), (1, "b")),
    "cupy.ix_": ((0, "*args"),),
    "cupy.linspace": ((0, "start"), (1, "stop")),
    "cupy.logspace": ((0, "start"), (1, "stop")),
    "cupy.percentile": ((1, "q"),),
    "cupy.quantile": ((1, "q"),),
    "cupy.place": ((1, "mask"), (2, "vals")),
    "cupy.require": ((0, "a"),),
    "cupy.resize": ((0, "a"),),
    "cupy.tile": ((0, "A"), (1, "reps")),  # (reps: CuPy's ``tuple(reps)``)
    "cupy.tril": ((0, "m"),),
    "cupy.triu": ((0, "m"),),
    "cupy.unique": ((0, "ar"),),
    "cupy.unwrap": ((0, "p"),),
    "cupy.vander": ((0, "x"),),
    "cupy.fft.fftshift": ((0, "x"),),
    "cupy.fft.ifftshift": ((0, "x"),),
    "cupyx.scipy.fft.fftshift": ((0, "x"),),  # (cupy.fft's)
    "cupyx.scipy.fft.ifftshift": ((0, "x"),),
    "cupy.linalg.cond": ((0, "x"),),
    "cupy.linalg.cross": ((0, "x1"), (1, "x2")),
    # (none converted: a host ``x`` meets CuPy's own error, ``_check_bincount``)
    "cupy.bincount": (),
}

#: functions whose ``HOST_PARAMS`` hold only while a parameter (position, name) keeps
#: its default: CuPy converts the arrays on that path alone (``unique`` with an
#: ``axis`` moves the axis of the array as given; the set routines with
#: ``assume_unique`` skip ``cupy.unique``)
_HOST_PARAMS_WHILE: dict[str, tuple[int, str, Any]] = {
    "cupy.unique": (4, "axis", None),
    "cupy.intersect1d": (2, "assume_unique", False),
    "cupy.setdiff1d": (2, "assume_unique", False),
    "cupy.setxor1d": (2, "assume_unique", False),
}


def _argument(args: tuple, kwargs: dict, position: int, name: str, default: Any = None) -> Any:
    return args[position] if len(args) > position else kwargs.get(name, default)


def _check_delete(args: tuple, kwargs: dict) -> None:
    if isinstance(_argument(args, kwargs, 0, "arr"), HostArray):
        raise ValueError("delete(): arr must be a cupy.ndarray")


def _check_extract(args: tuple, kwargs: dict) -> None:
    if not isinstance(_argument(args, kwargs, 1, "a"), numpy.ndarray):
        raise TypeError("extract requires input array to be cupy.ndarray")


def _check_histogram(args: tuple, kwargs: dict) -> None:
    x = _argument(args, kwargs, 0, "x")
    if not isinstance(x, (numpy.ndarray, HostArray)):  # (CuPy reads ``x.dtype`` first)
        raise AttributeError(f"{type(x).__name__!r} object has no attribute 'dtype'")
    if isinstance(x, numpy.ndarray) and x.dtype.kind == "c":
        raise NotImplementedError("complex number is not supported")
    if isinstance(x, HostArray):
        if x.array.dtype.kind == "c":
            raise NotImplementedError("complex number is not supported")
        raise ValueError("x must be a cupy.ndarray")
    weights = _argument(args, kwargs, 4, "weights")
    if weights is not None and not isinstance(weights, numpy.ndarray):
        raise ValueError("weights must be a cupy.ndarray")
    if isinstance(_argument(args, kwargs, 1, "bins", 10), str):
        raise NotImplementedError("only integer and array bins are implemented")


def _histogram_result(result: Any, args: tuple, kwargs: dict) -> Any:
    """CuPy's counts: int64 without weights; with weights, int64 for boolean and integer
    weights, complex128 for complex ones, else float64 (NumPy's follow the weights'
    dtype: int32, float32...). ``density`` divides by float64 as CuPy does."""
    hist, edges = result
    weights = _argument(args, kwargs, 4, "weights")
    if weights is None:
        kind = numpy.int64
    else:
        kind = {"b": numpy.int64, "u": numpy.int64, "i": numpy.int64,
                "c": numpy.complex128}.get(weights.dtype.kind, numpy.float64)
    if _argument(args, kwargs, 3, "density", False):
        kind = numpy.result_type(kind, numpy.float64)
    return (hist if hist.dtype == kind else hist.astype(kind)), edges


def _histogram_args(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Boolean weights summed as CuPy's ``_weighted_histogram_kernel`` sums them:
    ``atomicAdd(&y[low], (Y)weights[i])`` into int64 counts (``True`` adds 1), where
    NumPy's boolean counts are an or (the H200's counts were [3, 0, 1], NumPy's
    [True, False, True])."""
    weights = _argument(args, kwargs, 4, "weights")
    if isinstance(weights, numpy.ndarray) and weights.dtype.kind == "b":
        weights = weights.astype(numpy.int64)
        if len(args) > 4:
            args = args[:4] + (weights,) + args[5:]
        else:
            kwargs = {**kwargs, "weights": weights}
    return args, kwargs


def _check_interp(args: tuple, kwargs: dict) -> None:
    """A host ``x`` passes ``interp``'s checks (``x.flags``, ``cupy.common_type``) to
    ``cupy.searchsorted(xp, x, side='right')``, whose ``_searchsorted`` takes only a
    device array or a Python scalar for ``v`` (the H200's words)."""
    x = _argument(args, kwargs, 0, "x")
    xp, fp = _argument(args, kwargs, 1, "xp"), _argument(args, kwargs, 2, "fp")
    if not isinstance(x, HostArray) or not isinstance(xp, numpy.ndarray) or \
            not isinstance(fp, numpy.ndarray):
        return  # (the call's own errors)
    from .cpu_routines import interp_checks
    interp_checks(x.array, xp, fp)
    period = _argument(args, kwargs, 5, "period")
    if period is not None and period == 0:
        raise ValueError("period must be a non-zero value")
    raise NotImplementedError("Only python scalars or ndarrays are supported for v")


def _check_bincount(args: tuple, kwargs: dict) -> None:
    """A host ``x`` passes ``bincount``'s first checks (``x.ndim``, ``x.dtype``,
    ``(x < 0).any()``: NumPy's own) to ``int(cupy.max(x))``, which Cython refuses (the
    H200's words); an empty one returns its zeros before that."""
    x = _argument(args, kwargs, 0, "x")
    if not isinstance(x, HostArray):
        return
    from .cpu_routines import bincount_checks
    weights = _argument(args, kwargs, 1, "weights")
    x = x.array
    bincount_checks(x, weights.array if isinstance(weights, HostArray) else weights,
                    _argument(args, kwargs, 2, "minlength"))
    if x.size:
        raise TypeError("Argument 'x' has incorrect type (expected "
                        "cupy._core.core._ndarray_base, got numpy.ndarray)")


_UNIQUE_KEYWORDS = frozenset({"ar", "return_index", "return_inverse", "return_counts",
                              "axis", "equal_nan"})


def _check_unique(args: tuple, kwargs: dict) -> None:
    """CuPy 14.2's signature (NumPy 2.3 added ``sorted=``, which CuPy has not)."""
    for name in kwargs:
        if name not in _UNIQUE_KEYWORDS:
            raise TypeError(f"unique() got an unexpected keyword argument {name!r}")
    if len(args) > 5:
        raise TypeError(f"unique() takes from 1 to 5 positional arguments but {len(args)} "
                        "were given")


def _host_ndim(value: Any) -> int:
    return value.array.ndim if isinstance(value, HostArray) else numpy.ndim(value)


def _check_bins_dd(bins: Any) -> None:
    """``histogramdd``'s ``bins``: edges (1-d items) only as device arrays."""
    if isinstance(bins, HostArray):
        if bins.array.ndim == 2:  # (its rows: host arrays)
            raise ValueError("array-like bins not supported")
    elif isinstance(bins, (list, tuple)):
        for item in bins:
            if not isinstance(item, numpy.ndarray) and _host_ndim(item) == 1:
                raise ValueError("array-like bins not supported")


def _check_histogramdd(args: tuple, kwargs: dict) -> None:
    _check_bins_dd(_argument(args, kwargs, 1, "bins", 10))


def _check_histogram2d(args: tuple, kwargs: dict) -> None:
    bins = _argument(args, kwargs, 2, "bins", 10)
    try:
        n = len(bins.array if isinstance(bins, HostArray) else bins)
    except TypeError:
        n = 1
    if n not in (1, 2) and not isinstance(bins, numpy.ndarray):
        raise ValueError("array-like bins not supported in CuPy")
    if n == 2:
        _check_bins_dd(bins)


#: CuPy's own errors for arguments of ``HOST_PARAMS`` functions, checked first
_HOST_CHECKS: dict[str, Callable[[tuple, dict], None]] = {
    "cupy.delete": _check_delete,
    "cupy.extract": _check_extract,
    "cupy.histogram": _check_histogram,
    "cupy.histogramdd": _check_histogramdd,
    "cupy.histogram2d": _check_histogram2d,
    "cupy.unique": _check_unique,
    "cupy.interp": _check_interp,
    "cupy.bincount": _check_bincount,
}

#: CuPy's arguments where NumPy would treat them otherwise (args, kwargs -> args, kwargs)
_HOST_ARGS: dict[str, Callable[[tuple, dict], tuple[tuple, dict]]] = {
    "cupy.histogram": _histogram_args,
}


#: CuPy's results where NumPy's differ (the function's result, args, kwargs -> result)
_HOST_RESULTS: dict[str, Callable[[Any, tuple, dict], Any]] = {
    "cupy.histogram": _histogram_result,
}


def _to_device(value: Any) -> Any:
    """A host array (or a list or tuple's) as CuPy's ``cupy.asarray`` makes it: new
    device memory (a copy, writable)."""
    if isinstance(value, HostArray):
        return numpy.array(value.array)
    if type(value) in (list, tuple):
        return type(value)(numpy.array(v.array) if isinstance(v, HostArray) else v
                           for v in value)
    return value


def host_params(path: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (the backend's ``path``) taking host arrays for ``HOST_PARAMS[path]`` as
    device arrays; the rest of the call as ``fn`` takes it (host arrays refused)."""
    params = HOST_PARAMS[path]
    positions = frozenset(p for p, name in params if not name.startswith("*"))
    names = frozenset(name for _, name in params if not name.startswith("*"))
    varargs = min((p for p, name in params if name.startswith("*")), default=None)
    check = _HOST_CHECKS.get(path)
    keep = _HOST_PARAMS_WHILE.get(path)
    after = _HOST_RESULTS.get(path)
    prepare = _HOST_ARGS.get(path)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if check is not None:
            check(args, kwargs)
        if keep is not None:
            value = _argument(args, kwargs, *keep)
            if not (value is keep[2] or isinstance(value, (bool, int, numpy.bool_)) and
                    keep[2] is not None and value == keep[2]):
                return fn(*args, **kwargs)
        args = tuple(_to_device(v) if i in positions or varargs is not None and i >= varargs
                     else v for i, v in enumerate(args))
        kwargs = {k: _to_device(v) if k in names else v for k, v in kwargs.items()}
        if prepare is not None:
            args, kwargs = prepare(args, kwargs)
        result = fn(*args, **kwargs)
        return result if after is None else after(result, args, kwargs)
    return call
