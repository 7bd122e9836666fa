"""CuPy routines whose behaviour differs from the NumPy function of the same name.

Each entry mirrors CuPy 14.2 (its pure-Python sources: ``cupy/_sorting``,
``cupy/_manipulation``, ``cupy/_math``, ``cupy/linalg``...): CuPy-only arguments
(``argmax(dtype=)``), CuPy's result types (0-d arrays, float16 computed in float32),
CuPy's errors (``NotImplementedError`` for non-contiguous in-place sorts), and
CuPy's refusal of non-``cupy.ndarray`` inputs.
"""
from __future__ import annotations

import functools
import operator
import warnings
from typing import Any, Callable

import numpy

from gpushare import structured, ufunc_loops
from gpushare.cython_args import argument_type_error
from gpushare.errors import assert_2d, assert_stacked_square, piecewise_values
from gpushare.layouts import (arg_reduce_is_view, reduce_keepdims_is_view, broadcast_strides, creation_layout,
                              normalize_order)
from gpushare.protocol import HostArray

from . import cpu_cast, cpu_ftz


def _unsupported(value: Any) -> TypeError:
    return TypeError(f"Unsupported type {type(value)}")


def _require_array(a: Any) -> None:
    """CuPy routines that only take ``cupy.ndarray`` raise TypeError otherwise."""
    if isinstance(a, HostArray):
        raise _unsupported(a.array)
    if not isinstance(a, numpy.ndarray):
        raise _unsupported(a)


def _given(a: Any) -> Any:
    """What CuPy's Python code is given for ``a`` when it is no device array: a host
    array's NumPy array, anything else (a list...) as it is."""
    return a.array if isinstance(a, HostArray) else a


def _host_result(value: Any) -> Any:
    """A NumPy array that CuPy's code returns as it is (NumPy's own method ran on a host
    array: ``cupy.sort(numpy_array)`` is a sorted NumPy array), sent back as such."""
    return HostArray(value) if type(value) is numpy.ndarray else value


def _cython_array_error(a: Any) -> TypeError:
    """Cython's error for ``a`` given to a ``cpdef`` taking ``_ndarray_base a``."""
    return argument_type_error("a", "cupy._core.core._ndarray_base", _given(a))


def _normalize_axis(axis: int, ndim: int) -> int:
    return int(numpy.lib.array_utils.normalize_axis_index(axis, ndim))


# --- creation ------------------------------------------------------------------------

def _like(name: str) -> Callable[..., Any]:
    """``empty_like`` and friends: CuPy refuses ``subok`` and host prototypes."""
    host = getattr(numpy, name)

    def fn(a: Any, *args: Any, dtype: Any = None, order: str = "K", subok: Any = None,
           shape: Any = None) -> numpy.ndarray:
        if subok is not None:
            raise TypeError("subok is not supported yet")
        _require_array(a)
        if name == "full_like":
            (fill_value,) = args
            out = numpy.empty_like(a, dtype=dtype, order=order, shape=shape)
            copyto(out, fill_value, casting="unsafe")
            return out
        return host(a, *args, dtype=dtype, order=order, shape=shape)
    fn.__name__ = name
    fn.__doc__ = f"See Also\n--------\ncupy.{name}"
    return fn


def device_dtype(dtype: Any) -> numpy.dtype:
    """``dtype`` where CuPy makes a new array of it (``check_supported_dtype``): long
    doubles have no C type there."""
    dt = numpy.dtype(dtype)
    if dt.char in "gG":
        raise ValueError(f"Unsupported dtype {dt}")
    return dt


def full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C") -> numpy.ndarray:
    """See Also: cupy.full (``fill_value`` may be a 0-d numpy or cupy array)."""
    if dtype is None:
        value = fill_value.array if isinstance(fill_value, HostArray) else fill_value
        dtype = value.dtype if isinstance(value, numpy.ndarray) else numpy.array(value).dtype
    out = numpy.empty(shape, dtype=device_dtype(dtype), order=creation_layout(order))
    copyto(out, fill_value, casting="unsafe")
    return out


def eye(N: Any, M: Any = None, k: Any = 0, dtype: Any = float,  # noqa: N803 - CuPy's
        order: Any = "C") -> numpy.ndarray:
    """See Also: cupy.eye (``zeros((N, M), dtype, order)``, its diagonal ``k`` filled:
    ``_creation/basic.py``; order K and A lay it out in Fortran order, as ``zeros``)."""
    if M is None:
        M = N
    ret = numpy.zeros((N, M), dtype=device_dtype(dtype), order=creation_layout(order))
    if k <= -N or k >= M:
        return ret
    numpy.fill_diagonal(ret[max(0, -k):, max(0, k):], 1)
    return ret


def ndarray_astype(a: numpy.ndarray, dtype: Any, *args: Any, **kwargs: Any) -> numpy.ndarray:
    """See Also: cupy.ndarray.astype (a long double has no C type in CuPy; floats
    convert to integers as on a GPU: ``cpu_cast``; float32 subnormals to and from
    doubles flushed as CuPy's ``-ftz=true`` copy kernel does: ``cpu_ftz``)."""
    device_dtype(dtype)
    return cpu_ftz.astype(a, dtype, cpu_cast.astype, *args, **kwargs)


def meshgrid(*xi: Any, **kwargs: Any) -> tuple:
    """See Also: cupy.meshgrid (always a tuple; one input comes back as it is)."""
    copy = bool(kwargs.pop("copy", True))
    indexing = kwargs.pop("indexing", "xy")
    sparse = bool(kwargs.pop("sparse", False))
    if kwargs:
        raise TypeError(f"meshgrid() got an unexpected keyword argument '{list(kwargs)[0]}'")
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    for x in xi:
        if not isinstance(x, numpy.ndarray):
            raise ValueError("input has to be cupy.ndarray")
        if x.ndim != 1:
            raise ValueError("input has to be 1d")
    if len(xi) <= 1:
        return tuple(xi)
    meshes = numpy.meshgrid(*xi, copy=False, indexing=indexing, sparse=True)
    if not sparse:  # CuPy's broadcast views (written like any array; see broadcast_arrays)
        meshes = broadcast_arrays(*meshes)
    return tuple(m.copy() for m in meshes) if copy else tuple(meshes)


def _tri_indices(name: str) -> Callable[..., Any]:
    host = getattr(numpy, name)

    def fn(n: Any, k: int = 0, m: Any = None) -> tuple:
        # CuPy builds cupy.tri(n, m): array sizes are a TypeError there
        for size in (n, m):
            if isinstance(size, (numpy.ndarray, HostArray)):
                raise TypeError(f"'{type(size).__name__}' object cannot be interpreted as an "
                                "integer")
        return host(n, k, m)
    fn.__name__ = name
    fn.__doc__ = f"See Also\n--------\ncupy.{name}"
    return fn


# --- sorting and searching -----------------------------------------------------------

#: the dtypes CuPy's CUB reductions take (``cub.pyx``: ``CUB_support_dtype``, float16
#: included on devices that have it)
_CUB_DTYPES = frozenset("bBhHiIlLqQefdFD")
#: reductions whose whole-array form CuPy hands to CUB (``_routines_statistics.pyx``:
#: ``_ndarray_max`` and the others), by their name in CuPy's ``_reduction.pyx``
_CUB_OPS = {"cupy_max": "CUPY_CUB_MAX", "cupy_min": "CUPY_CUB_MIN",
            "cupy_argmax": "CUPY_CUB_ARGMAX", "cupy_argmin": "CUPY_CUB_ARGMIN"}


def _reduces_all(axis: Any, ndim: int) -> bool:
    if axis is None:
        return True
    try:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        return len({_normalize_axis(ax, ndim) for ax in axes}) == ndim
    except Exception:  # noqa: BLE001 - a bad axis: NumPy's own error stands
        return False


def _empty_reduction_error(exc: ValueError, kernel: str, a: Any, axis: Any,
                           dtype: Any = None) -> ValueError | None:
    """CuPy's error for a reduction without identity of an empty ``a`` (NumPy's said
    ``exc``): ``_reduction.pyx``'s ``zero-size array to reduction operation <kernel>
    which has no identity``, with CUB's operation name instead where CuPy's default
    routine accelerator (CUB, ``cub.pyx: device_reduce``) takes the reduction: over
    every axis, of a CUB dtype, without ``dtype`` (an empty array is contiguous both
    ways; ``argmax`` of a bool array, F-contiguous, goes to CUB as int8)."""
    message = str(exc)
    if not isinstance(a, numpy.ndarray) or a.size != 0 or not (
            message.startswith("zero-size array to reduction operation") or
            message.startswith("attempt to get ")):
        return None
    name = kernel
    if kernel in _CUB_OPS and dtype is None and _reduces_all(axis, a.ndim) and (
            a.dtype.char in _CUB_DTYPES or
            (kernel == "cupy_argmax" and a.dtype == numpy.bool_)):
        name = _CUB_OPS[kernel]
    return ValueError(f"zero-size array to reduction operation {name} which has no "
                      "identity")


def _min_max(name: str, kernel: str, method: bool = False) -> Callable[..., Any]:
    """``amax``/``amin``/``ptp``/``nanmax``/``nanmin`` (the functions, or with ``method``
    the ndarray methods), with CuPy's error for an empty array (``_empty_reduction_error``),
    restated on NumPy's error path only."""
    host = getattr(numpy.ndarray if method and name in ("max", "min") else numpy, name)

    op = {"amax": "max", "amin": "min"}.get(name, name)

    def fn(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> Any:
        try:  # (float32 flushing where CuPy's kernel is -ftz=true: cpu_ftz)
            a, run = cpu_ftz.reduction(op, a, axis)
            return run(host, a, axis=axis, out=out, keepdims=keepdims)
        except ValueError as exc:
            err = _empty_reduction_error(exc, kernel, a, axis)
            if err is not None:
                raise err from None
            raise
        except TypeError:
            # (``_ndarray_ptp``: ``result -= _amin(...)``, CuPy's boolean subtract error)
            if name == "ptp" and isinstance(a, numpy.ndarray) and a.dtype == numpy.bool_:
                raise TypeError(_BOOL_ERRORS["subtract"]) from None
            raise
    # (CuPy's ``cupy.max`` is its ``amax``: errors name that)
    fn.__name__ = fn.__qualname__ = name if method else {"max": "amax", "min": "amin"}.get(
        name, name)
    fn.__doc__ = (f"See Also: cupy.{name} (``_routines_statistics.pyx``: CuPy's error for "
                  "an empty array)")
    return fn


_NDARRAY_MAX = _min_max("max", "cupy_max", method=True)
_NDARRAY_MIN = _min_max("min", "cupy_min", method=True)


def linalg_norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """See Also: cupy.linalg.norm (``linalg/_norms.py``). An empty array runs CuPy's
    steps, where NumPy's answers 0: ``abs(x).max(axis=...)`` (``min``) of an empty
    axis is the reduction's error, the 2-norms ``cupy.take(svd(...), indices=0)``
    (``-1``) of no singular values ``take``'s; anything else is NumPy's norm. Of
    float32/complex64, CuPy's first step is a ``-ftz=true`` kernel (``x * x``,
    ``abs(x)``...): subnormals flushed, and the rest computed so (``cpu_ftz``), but
    for the singular values (cuSOLVER's)."""
    if not isinstance(x, numpy.ndarray) or x.size != 0:
        if cpu_ftz.single(x) and not (ord in (2, -2, "nuc") and (
                x.ndim == 2 if axis is None else numpy.ndim(axis) == 1 and len(axis) == 2)):
            return cpu_ftz.call(numpy.linalg.norm, cpu_ftz.flushed(x), ord, axis, keepdims)
        return numpy.linalg.norm(x, ord, axis, keepdims)
    nd = x.ndim
    if axis is None and (ord is None or (nd == 1 and ord == 2) or
                         (nd == 2 and ord in ("f", "fro"))):
        return numpy.linalg.norm(x, ord, axis, keepdims)
    axes = tuple(range(nd)) if axis is None else axis
    if not isinstance(axes, tuple):
        axes = (operator.index(axes),) if isinstance(axes, (int, numpy.integer)) else None
    if axes is None or not all(isinstance(ax, (int, numpy.integer)) and -nd <= ax < nd
                               for ax in axes):
        return numpy.linalg.norm(x, ord, axis, keepdims)
    absx = numpy.abs(x if x.dtype.kind in "fc" else x.astype(float))
    if len(axes) == 1 and ord in (numpy.inf, -numpy.inf):
        pick = _NDARRAY_MAX if ord == numpy.inf else _NDARRAY_MIN
        pick(absx, axis=axes, keepdims=keepdims)  # (its error, if any)
    elif len(axes) == 2:
        row, col = (ax % nd for ax in axes)
        if row != col and ord in (2, -2):
            batch = [n for i, n in enumerate(x.shape) if i not in (row, col)]
            if int(numpy.prod(batch)) != 0:  # (``take`` of one from no singular values)
                raise IndexError("cannot do a non-empty take from an empty axes.")
        elif row != col and ord in (1, -1, numpy.inf, -numpy.inf):
            summed, other = (row, col) if ord in (1, -1) else (col, row)
            if other > summed:
                other -= 1
            pick = _NDARRAY_MAX if ord in (1, numpy.inf) else _NDARRAY_MIN
            pick(absx.sum(axis=summed), axis=other)  # (its error, if any)
    return numpy.linalg.norm(x, ord, axis, keepdims)


def _all_nan_is_minus_one(name: str) -> Callable[..., Any]:
    """``nanargmax``/``nanargmin`` as CuPy's kernel computes them: the first index of
    the largest (smallest) value that is not NaN; -1 for an all-NaN slice (NumPy
    raises, and takes NaN for -inf (+inf), so it may answer a NaN's index)."""
    plain = numpy.argmax if name == "nanargmax" else numpy.argmin

    def fn(a: Any, axis: Any = None, keepdims: bool = False) -> Any:
        nan = numpy.isnan(a) if a.dtype.kind in "fc" else None
        if nan is None or a.size == 0 or not nan.any():
            return getattr(numpy, name)(a, axis=axis, keepdims=keepdims)
        moved = a.reshape(-1) if axis is None else numpy.moveaxis(a, axis, -1)
        rows = moved.reshape(-1, moved.shape[-1])
        nans = numpy.isnan(rows)
        out = numpy.empty(rows.shape[0], numpy.intp)
        clean = ~nans.any(axis=1)
        out[clean] = plain(rows[clean], axis=1)
        for i in numpy.flatnonzero(~clean):
            keep = numpy.flatnonzero(~nans[i])
            out[i] = keep[plain(rows[i, keep])] if keep.size else -1
        result = out.reshape(moved.shape[:-1])
        if keepdims:
            result = result.reshape((1,) * a.ndim) if axis is None else \
                numpy.expand_dims(result, axis)
        return result
    return fn


def _arg_reduce(name: str) -> Callable[..., Any]:
    """``argmax``-like reductions with CuPy's ``dtype=`` and tuple ``axis``; NaN never
    wins ``nanargmax``/``nanargmin`` (CuPy's kernel, ``_routines_statistics.pyx``: a
    NaN's index is -1), and an all-NaN slice gives -1, where NumPy raises."""
    host = getattr(numpy, name)
    if name.startswith("nan"):
        host = _all_nan_is_minus_one(name)

    def fn(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
           keepdims: bool = False) -> numpy.ndarray:
        if name.startswith("nan") and not isinstance(a, numpy.ndarray):
            # (``_sorting/search.py``: integers go to ``a.argmax(...)``, a host array's
            # own NumPy method; floats to the Cython ``_nanargmax(_ndarray_base a, ...)``)
            if _given(a).dtype.kind in "biu":
                return _host_result(getattr(_given(a), name[3:])(
                    axis=axis, dtype=dtype, out=out, keepdims=keepdims))
            raise _cython_array_error(a)
        _require_array(a)
        # (CuPy's nanargmax of integers is its argmax: ``_sorting/search.py``)
        kernel = "cupy_" + (name[3:] if name.startswith("nan") and a.dtype.kind in "biu"
                            else name)
        if kernel.startswith("cupy_nanarg") and dtype is not None and \
                numpy.dtype(dtype) != numpy.int64:
            # (the kernel's routines all answer int64 ('e->q' ...): ``_guess_routine``
            # finds none for another ``dtype``; the GPU's words, its ``dtype.type``)
            raise TypeError(f"Wrong type ({numpy.dtype(dtype).type}) of arguments for "
                            f"{kernel}")
        # (float32 flushing where CuPy's kernel is -ftz=true: cpu_ftz)
        a, run = cpu_ftz.reduction(name, a, axis, dtype)
        try:
            if isinstance(axis, (tuple, list)):
                # CuPy reduces over several axes: move them last and flatten them
                axes = tuple(_normalize_axis(ax, a.ndim) for ax in axis)
                rest = [i for i in range(a.ndim) if i not in axes]
                moved = a.transpose(rest + list(axes))
                moved = moved.reshape(tuple(a.shape[i] for i in rest) + (-1,))
                result = run(host, moved, axis=-1)
                if keepdims:
                    result = numpy.expand_dims(result, axes)
            else:
                result = run(host, a, axis=axis, keepdims=keepdims)
        except ValueError as exc:  # (an empty array: CuPy's words)
            err = _empty_reduction_error(exc, kernel, a, axis, dtype)
            if err is not None:
                raise err from None
            raise
        result = numpy.asarray(result)
        if dtype is not None:
            result = result.astype(dtype, copy=False)
        if out is not None:
            out[...] = result
            return out
        if result.ndim == 0 and not keepdims and dtype is None and \
                arg_reduce_is_view(name, a.dtype, a.flags.c_contiguous, a.flags.f_contiguous,
                                   a.size):
            return result.reshape(())  # CuPy's (CUB's) 0-d view
        return result
    fn.__name__ = name
    fn.__doc__ = f"See Also\n--------\ncupy.{name}"
    return fn


def _ndarray_arg_reduce(name: str) -> Callable[..., Any]:
    fn = _arg_reduce(name)

    def method(a: numpy.ndarray, axis: Any = None, out: Any = None, dtype: Any = None,
               keepdims: bool = False) -> numpy.ndarray:
        return fn(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    return method


def _check_kind_sort(kind: Any) -> None:
    """CuPy's ``_ndarray_base._check_kind_sort`` (``core.pyx``): only a stable sort."""
    if kind is not None and kind != "stable":
        raise ValueError("kind can only be None or 'stable'")


def ndarray_sort(a: numpy.ndarray, axis: int = -1, kind: Any = None) -> None:
    """In-place sort; CuPy refuses non-contiguous arrays and 0-d arrays.

    See Also
    --------
    cupy.ndarray.sort
    """
    _check_kind_sort(kind)
    if a.ndim == 0:
        raise numpy.exceptions.AxisError("Sorting arrays with the rank of zero is not supported")
    if not a.flags.c_contiguous:
        raise NotImplementedError("Sorting non-contiguous array is not supported.")
    a.sort(axis=axis, kind="stable")


def _kth(kth: Any, length: int) -> tuple[list, int]:
    """CuPy's reading of ``kth`` (``_routines_sorting.pyx``): a Python int alone, else
    each item of a sequence (a NumPy integer is no ``int`` there, and is iterated:
    TypeError), negative ones counted from the end, each checked; and the ``max_k``
    its kernels take (the largest, rounded up past a power of two, at least 32)."""
    if isinstance(kth, int):
        kth = (kth,)
    ks, max_k = [], 0
    for k in kth:
        k = operator.index(k)
        if k < 0:
            k += length
        if not 0 <= k < length:
            raise ValueError(f"kth(={k}) out of bounds {length}")
        ks.append(k)
        max_k = max(max_k, k)
    return ks, max(32, 1 << max_k.bit_length())


def _selection_blocks(length: int, size: int, max_k: int) -> int:
    """How many subarrays CuPy's partition kernels would split ``size`` elements
    into (``sz``); too few, and CuPy sorts instead."""
    sz = 512
    while sz > 0 and length // sz < max_k + 32 * 4:
        sz //= 2
    return sz * (size // length)


def ndarray_partition(a: numpy.ndarray, kth: Any, axis: int = -1) -> None:
    """In-place partition; CuPy refuses non-contiguous and 0-d arrays, and sorts the
    whole axis (its kernel's path, for axes of ~10,000 elements and more with a small
    ``kth``, arranges the elements after ``kth`` otherwise: NumPy's partition there).

    See Also
    --------
    cupy.ndarray.partition
    """
    if a.ndim == 0:
        raise numpy.exceptions.AxisError(
            "Sorting arrays with the rank of zero is not supported")
    if not a.flags.c_contiguous:
        raise NotImplementedError("Sorting non-contiguous array is not supported.")
    axis = _normalize_axis(axis, a.ndim)
    length = a.shape[axis]
    ks, max_k = _kth(kth, length)
    sz = _selection_blocks(length, a.size, max_k)
    if length < 32 or sz <= 32 or max_k >= 1024:
        a.sort(axis=axis)  # (CuPy: "kth is ignored")
    else:
        a.partition(ks, axis=axis)


def resize(a: Any, new_shape: Any) -> numpy.ndarray:
    """CuPy's ``resize``: a new array of its own (``cupy.empty(new_shape)`` filled by a
    kernel), where NumPy's may be a view of a concatenation."""
    out = numpy.resize(a, new_shape)
    return out if out.flags.owndata and out.flags.c_contiguous else out.copy(order="C")


def partition(a: Any, kth: Any, axis: Any = -1) -> numpy.ndarray:
    """See Also: cupy.partition (a copy's ``ndarray.partition``)."""
    _require_array(a)
    if axis is None:
        ret, axis = a.flatten(), -1
    else:
        ret = a.copy()
    ndarray_partition(ret, kth, axis)
    return ret


def argpartition(a: Any, kth: Any, axis: Any = -1) -> numpy.ndarray:
    """See Also: cupy.argpartition (CuPy's ``_ndarray_argpartition``: a stable argsort of
    the whole axis unless its kernel takes the call, for axes of 160 elements and more
    with a small ``kth``: NumPy's argpartition there, which arranges the indices after
    ``kth`` otherwise; an empty axis gives a 1-d empty array)."""
    _require_array(a)
    data, ax = (a.ravel(), -1) if axis is None else (a, axis)
    ax = _normalize_axis(ax, data.ndim)
    length = data.shape[ax]
    if length == 0:
        return numpy.empty((0,), numpy.int64)
    ks, max_k = _kth(kth, length)
    sz = _selection_blocks(length, a.size, max_k)
    moved = numpy.moveaxis(data, ax, -1)
    if length < 32 or sz < 1 or max_k >= 1024:
        indices = numpy.argsort(moved, axis=-1, kind="stable")
    else:
        indices = numpy.argpartition(moved, ks, axis=-1)
    return numpy.moveaxis(indices, -1, ax)


def swapaxes(a: Any, axis1: Any, axis2: Any) -> numpy.ndarray:
    """See Also: cupy.swapaxes (CuPy's ``_ndarray_swapaxes``: an axis out of range is a
    ValueError, not NumPy's AxisError)."""
    _require_array(a)
    axis1, axis2, ndim = operator.index(axis1), operator.index(axis2), a.ndim
    if not (-ndim <= axis1 < ndim and -ndim <= axis2 < ndim):
        raise ValueError("Axis out of range")
    return numpy.swapaxes(a, axis1, axis2)


def sort(a: Any, axis: Any = -1, kind: Any = None) -> numpy.ndarray:
    """See Also: cupy.sort (a sorted copy; stable). CuPy's code runs on what it is
    given: a host array is sorted by NumPy's own methods (a NumPy array back), a list
    meets ``list.sort``'s words."""
    if not isinstance(a, numpy.ndarray):
        a = _given(a)
        ret = a.flatten() if axis is None else a.copy()
        ret.sort(axis=-1 if axis is None else axis, kind=kind)
        return _host_result(ret)
    if axis is None:
        ret = a.flatten()
        axis = -1
    else:
        ret = a.copy()
    ndarray_sort(ret, axis=axis, kind=kind)
    return ret


def lexsort(keys: Any) -> numpy.ndarray:
    """See Also: cupy.lexsort (keys of rank three or more are refused; one key, a 1-d
    array, gives ``array(0)``; a sequence of keys is not an array: CuPy reads
    ``keys.ndim`` first)."""
    if not isinstance(keys, (numpy.ndarray, HostArray)):
        raise AttributeError(f"'{type(keys).__name__}' object has no attribute 'ndim'")
    _require_array(keys)
    if keys.ndim == 0:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if keys.ndim == 1:  # (CuPy's answer, whatever the key: NumPy sorts by it)
        return numpy.array(0, dtype=numpy.intp)
    if keys.ndim > 2:
        raise NotImplementedError("Keys with the rank of three or more is not supported in "
                                  "lexsort")
    if keys.ndim == 2 and keys.shape[0] == 0:
        # (no keys: Thrust's ``_lexsort`` fills the indices with a sequence and sorts by
        # none; NumPy raises)
        return numpy.arange(keys.shape[1], dtype=numpy.intp)
    return numpy.lexsort(keys)


# --- linear algebra ------------------------------------------------------------------

def qr(a: Any, mode: str = "reduced") -> Any:
    """See Also: cupy.linalg.qr (CuPy's modes: the deprecated ones refused)."""
    _require_array(a)
    if mode not in ("reduced", "complete", "r", "raw"):
        if mode in ("f", "full", "e", "economic"):
            raise ValueError(f"The deprecated mode '{mode}' is not supported")
        raise ValueError(f"Unrecognized mode '{mode}'")
    return numpy.linalg.qr(a, mode=mode)


def matrix_power(M: Any, n: Any) -> numpy.ndarray:
    """See Also: cupy.linalg.matrix_power (the exponent a Python ``int``: a NumPy integer
    is refused, ``_product.py``)."""
    _require_array(M)
    assert_stacked_square(M)
    if not isinstance(n, int):
        raise TypeError("exponent must be an integer")
    return numpy.linalg.matrix_power(M, n)


_LAPACK_TYPES = "Only float32, float64, complex64 and complex128 are supported."


def _two_dimensional(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``cupy.linalg.svd``/``pinv`` of an array of fewer than 2 dimensions as CuPy's:
    ``_decomposition.py``'s ``n, m = a.shape`` (``pinv``: through ``svd``, or its own
    ``m, n = a.shape[-2:]`` when empty) is Python's ValueError, after
    ``linalg_common_type``'s float16 refusal (NumPy: LinAlgError; the GPU's
    ``not enough values to unpack (expected 2, got 1)``)."""
    @functools.wraps(fn)
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(a, numpy.ndarray) and a.ndim < 2:
            if a.dtype == numpy.float16:
                raise TypeError("float16 is unsupported in linalg")
            raise ValueError(f"not enough values to unpack (expected 2, got {a.ndim})")
        return fn(a, *args, **kwargs)
    return call


def matrix_rank(M: Any, tol: Any = None) -> numpy.ndarray:
    """See Also: cupy.linalg.matrix_rank (always an array, also for 1-d input)."""
    _require_array(M)
    if M.ndim < 2:
        return numpy.asarray((M != 0).any()).astype(int)
    if tol is None and min(M.shape[-2:]) == 0:  # (CuPy's ``S.max(axis=-1)`` of none)
        # (CUB's whole-array reduction where ``S`` is 1-d, the GPU's ``CUPY_CUB_MAX``;
        # CUB's segmented one declines a segment of size 0: the kernel's ``cupy_max``)
        kernel = "CUPY_CUB_MAX" if M.ndim == 2 else "cupy_max"
        raise ValueError(f"zero-size array to reduction operation {kernel} which has no "
                         "identity")
    return numpy.asarray(numpy.linalg.matrix_rank(M, tol=tol))


#: ``cupyx.seterr(linalg=...)`` of this session (a worker serves one session): with
#: ``'ignore'``, CuPy's default, routines do not check for singular input
_LINALG_MODE = {"linalg": "ignore"}


def seterr(*, divide: Any = None, over: Any = None, under: Any = None, invalid: Any = None,
           linalg: Any = None) -> dict:
    """See Also: cupyx.seterr (only ``linalg`` is configurable, as in CuPy)."""
    old = geterr()
    if divide is not None or over is not None or under is not None or invalid is not None:
        raise NotImplementedError()
    if linalg is not None:
        if linalg not in ("ignore", "raise"):
            raise NotImplementedError()
        _LINALG_MODE["linalg"] = linalg
    return old


def geterr() -> dict:
    """See Also: cupyx.geterr"""
    return {"divide": None, "over": None, "under": None, "invalid": None,
            "linalg": _LINALG_MODE["linalg"]}


def _singular_ignored(fn: Callable[..., Any], singular: str,
                      routine: Callable[[Any], str]) -> Callable[..., Any]:
    """``fn`` as CuPy runs it under its default ``cupyx.errstate(linalg='ignore')``: a
    singular (or, for ``cholesky``, not positive definite) input is no error; cuSOLVER's
    result is then meaningless, NaN here. Under ``linalg='raise'`` it is CuPy's
    LinAlgError, naming the routine that ``routine(a)`` says CuPy calls for ``a``."""
    @functools.wraps(fn)
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        _require_array(a)
        for v in args:
            _require_array(v)
        try:
            return fn(a, *args, **kwargs)
        except numpy.linalg.LinAlgError as exc:
            if singular not in str(exc):
                raise
            if _LINALG_MODE["linalg"] != "ignore":
                raise _solver_failed(a, routine(a)) or exc from None
        stand_in = numpy.zeros_like(a)  # identities: the result's shape and dtype
        idx = numpy.arange(min(a.shape[-2:]))
        stand_in[..., idx, idx] = 1
        out = numpy.array(fn(stand_in, *args, **kwargs))
        out[...] = _gesv_of_singular(fn, a, *args) if fn in (_inv, _solve) and \
            a.ndim == 2 and routine(a) == "getrf" else numpy.nan
        return out
    return call


def _gesv_of_singular(fn: Callable[..., Any], a: numpy.ndarray, *args: Any) -> Any:
    """What CuPy's ``lapack.gesv`` (cuSOLVER's getrf, then getrs, no check) answers for
    a singular 2-d ``a`` in ``inv`` or ``solve``: the LU factors' substitutions in IEEE
    arithmetic, their infinities (the GPU: ``inv([[1, 2], [2, 4]])`` is ``[[-inf, inf],
    [inf, -inf]]``); LAPACK's getrf and getrs here. ``inv`` of a C-ordered ``a``
    factors ``a.T`` (``gesv(a.T, b.T)``)."""
    import scipy.linalg.lapack
    dtype = numpy.result_type(a.dtype, numpy.float32) if a.dtype.kind in "fc" \
        else numpy.dtype(numpy.float64)
    getrf, getrs = scipy.linalg.lapack.get_lapack_funcs(("getrf", "getrs"),
                                                        (numpy.empty(0, dtype),))
    transposed = fn is _inv and not a.flags.f_contiguous
    m = numpy.array(a.T if transposed else a, dtype, order="F")
    b = numpy.eye(a.shape[0], dtype=dtype, order="F") if fn is _inv else \
        numpy.array(numpy.broadcast_to(args[0], a.shape[:-1]) if args[0].ndim == 1
                    else args[0], dtype, order="F")
    lu, piv, _ = getrf(m)
    x, _ = getrs(lu, piv, b)
    return x.T if transposed else x


def _solver_failed(a: numpy.ndarray, routine: str) -> numpy.linalg.LinAlgError | None:
    """CuPy's error under ``linalg='raise'`` (``linalg/_util.py``) when its solver
    ``routine`` (``'getrf'``, ``'potrf'``, ``'potrfBatched'`` of cuSOLVER,
    ``'getrfBatched'`` of cuBLAS) reports a nonzero info for ``a`` (a stack of square
    matrices): LAPACK's own info, computed here, in CuPy's words. None when every info
    is zero."""
    import scipy.linalg.lapack
    # the precision CuPy computes in (``_util.linalg_common_type``)
    dtype = numpy.result_type(a.dtype, numpy.float32) if a.dtype.kind in "fc" \
        else numpy.dtype(numpy.float64)
    n = a.shape[-1]
    stack = numpy.asarray(a, dtype).reshape(-1, n, n)
    lapack = scipy.linalg.lapack.get_lapack_funcs(routine[:5], (stack,))
    info = numpy.array([lapack(m)[-1] for m in stack], numpy.int32)
    if not info.any():
        return None
    name = "sdcz"["fdFD".index(dtype.char)] + routine
    if not routine.endswith("Batched"):
        if routine == "getrf":  # one matrix at a time: the first that failed
            info = info[info != 0][:1]
        return numpy.linalg.LinAlgError(
            f"Error reported by {name} in cuSOLVER. devInfo = {info}. Please refer to "
            "the cuSOLVER documentation.")
    library = "cuBLAS" if routine == "getrfBatched" else "cuSOLVER"
    what = "infoArray/devInfoArray" if library == "cuBLAS" else "devInfo"
    return numpy.linalg.LinAlgError(
        f"Error reported by {name} in {library}. {what} = {info}. Please refer to the "
        f"{library} documentation.")


#: the largest order CuPy's ``solve`` of a stack of matrices solves in one batch
_BATCHED_GESV_LIMIT = 256


def _solve(a: Any, b: Any) -> numpy.ndarray:
    # CuPy's checks, in CuPy's order and words (NumPy 2's rule for b, CuPy's messages)
    if isinstance(a, numpy.ndarray) and isinstance(b, numpy.ndarray):
        assert_stacked_square(a)
        if b.ndim == 0:
            raise ValueError("b must have at least one dimension")
        if b.ndim == 1:
            if a.shape[-1] != b.size:
                raise ValueError("a must have (..., M, M) shape and b must have (M,) for "
                                 "one-dimensional b")
        elif a.shape[:-1] != b.shape[:-1]:
            raise ValueError("a must have (..., M, M) shape and b must have (..., M, K) for "
                             "multidimensional b")
    if b.size == 0 and a.ndim >= 2 and a.shape[-1] == a.shape[-2] and \
            _LINALG_MODE["linalg"] == "ignore" and b.ndim >= 2 and \
            b.shape[:-1] == a.shape[:-1]:
        # with nothing to solve for, a singular ``a`` is no error in CuPy either
        dt = numpy.result_type(a.dtype, b.dtype, numpy.float64 if a.dtype.kind not in "fc"
                               else a.dtype)
        dt = numpy.result_type(dt, numpy.float64) if dt.kind not in "fc" else dt
        return numpy.empty(b.shape, dt)
    x = numpy.linalg.solve(a, b)
    if a.ndim == 2 and x.ndim == 2:  # CuPy solves into an F-ordered copy of b (gesv),
        x = numpy.array(x, order="F")  # with F strides even where C ones would do
    return x


def _inv(a: Any) -> numpy.ndarray:
    out = numpy.linalg.inv(a)
    if a.ndim == 2 and a.size and a.flags.f_contiguous:
        # CuPy solves against an identity in a's order: F-ordered for an F-ordered a
        out = numpy.array(out, order="F")
    return out


solve = _singular_ignored(
    _solve, "Singular matrix",
    lambda a: "getrfBatched" if a.ndim > 2 and a.shape[-1] <= _BATCHED_GESV_LIMIT else "getrf")
solve.__doc__ = "See Also: cupy.linalg.solve"

#: ``cupyx/scipy/linalg/_matfuncs.py``: the [13/13] Pade coefficients and threshold
_EXPM_B = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_EXPM_TH13 = 5.37


def expm(a: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.expm (CuPy's port, not SciPy's: always the [13/13]
    Pade approximant after ``a - mu I`` (``mu`` the mean of the diagonal), scaling by
    ``2**s`` (``s`` at least 1), no balancing; ``cupy.diag(a)`` first, so a batch of
    matrices is ``Input must be 1- or 2-d.``, where SciPy's takes it)."""
    import cmath
    import math
    if a.size == 0:
        return numpy.zeros((0, 0), dtype=a.dtype)
    n = a.shape[0]
    a_dtype = a.dtype if numpy.issubdtype(a.dtype, numpy.inexact) else numpy.dtype(
        numpy.float64)
    if a.ndim not in (1, 2):
        raise ValueError("Input must be 1- or 2-d.")  # (``cupy.diag``)
    with numpy.errstate(all="ignore"):
        mu = numpy.asarray(numpy.diag(a).sum() / n)
        shift = numpy.eye(n, dtype=a_dtype) * mu
        try:
            A = numpy.subtract(a, shift)
        except ValueError as exc:
            raise _ufunc_value_error(numpy.subtract, (a, shift), {}, exc) from None
        nrm = float(numpy.abs(A).sum(axis=0).max()) if A.ndim == 2 else float(
            numpy.linalg.norm(A, 1))
        steps = int(math.ceil(math.log2(nrm / _EXPM_TH13))) + 1 if nrm > _EXPM_TH13 else 1
        A /= 2 ** steps
        A2 = A @ A
        A4 = A2 @ A2
        A6 = A2 @ A4
        E = numpy.eye(A.shape[0], dtype=a_dtype)
        b = numpy.asarray(_EXPM_B, dtype=a_dtype)
        u1 = b[13] * A6 + b[11] * A4 + b[9] * A2
        u2 = b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * E
        v1 = b[12] * A6 + b[10] * A4 + b[8] * A2
        v2 = b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * E
        u = A @ (A6 @ u1 + u2)
        v = A6 @ v1 + v2
        x = solve(-u + v, u + v)
        for _ in range(steps):
            x = x @ x
        x *= cmath.exp(mu) if mu.dtype.kind == "c" else math.exp(mu)
    return x
inv = _singular_ignored(_inv, "Singular matrix",
                        lambda a: "getrfBatched" if a.ndim > 2 else "getrf")
inv.__doc__ = "See Also: cupy.linalg.inv"
cholesky = _singular_ignored(numpy.linalg.cholesky, "not positive definite",
                             lambda a: "potrfBatched" if a.ndim > 2 else "potrf")


def _dot_error(a: Any, b: Any, out: Any = None) -> BaseException | None:
    """The error CuPy's ``_routines_linalg.dot`` raises for these operands (None where it
    raises none): its ``out`` checks, then the core dimensions (a vector as a row on the
    left, a column on the right), ``'Axis dimension mismatch'`` for any rank."""
    if not (isinstance(a, numpy.ndarray) and isinstance(b, numpy.ndarray)):
        return None
    if out is not None:
        if not isinstance(out, numpy.ndarray):
            return None
        if numpy.result_type(a.dtype, b.dtype) != out.dtype:
            return ValueError("Not supported dtype combination.")
        if not out.flags.c_contiguous:
            return ValueError("Output array must be C-contiguous")
    if a.ndim == 0 or b.ndim == 0:
        return None
    a_shape = (1, a.size) if a.ndim == 1 else a.shape
    b_shape = (b.size, 1) if b.ndim == 1 else b.shape
    if a_shape[-1] != b_shape[-2]:
        return ValueError("Axis dimension mismatch")
    k = a_shape[-1]
    if out is not None and k != 0 and out.size != (a.size // k) * (b.size // k):
        return ValueError("Output array has an invalid size")
    return None


def _matmul_error(a: Any, b: Any) -> BaseException | None:
    """The error CuPy's ``_core.matmul`` (``a @ b``, and ``cupy.matmul`` without gufunc
    keywords: ``_try_fastcall_matmul``) raises for these operands, None for none."""
    if not (isinstance(a, numpy.ndarray) and isinstance(b, numpy.ndarray)):
        return None
    if a.ndim == 0 or b.ndim == 0:
        return ValueError("Scalar operands are not allowed, use '*' instead")
    ndim = max(a.ndim, b.ndim)
    if ndim <= 2:
        return _dot_error(a, b)
    a_shape = (1, a.size) if a.ndim == 1 else a.shape
    b_shape = (b.size, 1) if b.ndim == 1 else b.shape
    a_shape = (1,) * (ndim - len(a_shape)) + tuple(a_shape)
    b_shape = (1,) * (ndim - len(b_shape)) + tuple(b_shape)
    for a_sh, b_sh in zip(a_shape[:-2], b_shape[:-2]):
        if a_sh != b_sh and a_sh != 1 and b_sh != 1:
            return ValueError("operands could not be broadcast together with remapped "
                              "shapes")
    if a_shape[-1] != b_shape[-2]:
        return ValueError("shapes ({}) and ({}) not aligned".format(
            ",".join(map(str, a.shape)), ",".join(map(str, b.shape))))
    return None


def _matmul(x1: Any, x2: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """See Also: cupy.matmul (without gufunc keywords, CuPy's ``_core.matmul`` and its
    errors: ``_routines_linalg.pyx``; NumPy's checks restated on its error path only)."""
    for value in (x1, x2, out):
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    try:
        return numpy.matmul(x1, x2, out=out, **kwargs)
    except ValueError:
        if out is None and not set(kwargs) - {"order"}:
            err = _matmul_error(x1, x2)
            if err is not None:
                raise err from None
        raise


def dot(a: Any, b: Any, out: Any = None) -> Any:
    """See Also: cupy.dot (``a.dot(b, out)``: CuPy's ``_routines_linalg.dot`` and its
    errors, restated on NumPy's error path only)."""
    try:
        return numpy.dot(a, b, out)
    except ValueError:
        err = _dot_error(a, b, out)
        if err is not None:
            raise err from None
        raise


def invh(a: Any) -> numpy.ndarray:
    """See Also: cupyx.linalg.invh (``lapack.posv`` against an identity: a matrix that is
    not positive definite is LinAlgError under ``linalg='raise'``, NaN otherwise)."""
    _require_array(a)
    assert_2d(a)
    assert_stacked_square(a)
    try:
        numpy.linalg.cholesky(a)
    except numpy.linalg.LinAlgError:
        if _LINALG_MODE["linalg"] == "raise":
            raise _solver_failed(a, "potrf") from None
        return numpy.full(a.shape, numpy.nan, a.dtype)
    return numpy.linalg.inv(a)


def cho_solve(c_and_lower: Any, b: Any, overwrite_b: bool = False,
              check_finite: bool = True) -> numpy.ndarray:
    """See Also: cupyx.linalg.cho_solve (only ``c``'s triangle holding the factor is
    read; ``b`` is not overwritten here whatever ``overwrite_b`` says)."""
    c, lower = c_and_lower
    _require_array(c)
    _require_array(b)
    if check_finite:
        n = c.shape[-1]
        rows, cols = numpy.tril_indices(n, -1) if lower else numpy.triu_indices(n, 1)
        if not numpy.isfinite(c[..., rows, cols]).all() or not numpy.isfinite(b).all():
            raise ValueError("Input array contains NaN or infinity.")
    factor = numpy.tril(c) if lower else numpy.swapaxes(numpy.triu(c), -1, -2).conj()
    dtype = numpy.result_type(c.dtype, b.dtype)
    vector = b.ndim == c.ndim - 1
    rhs = b[..., None] if vector else b
    y = numpy.linalg.solve(factor, rhs)
    x = numpy.linalg.solve(numpy.swapaxes(factor, -1, -2).conj(), y)
    x = (x[..., 0] if vector else x).astype(dtype, copy=False)
    return numpy.asfortranarray(x) if c.ndim == 2 and x.ndim == 2 else x


def solve_triangular(a: Any, b: Any, trans: Any = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False,
                     check_finite: bool = False) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.solve_triangular (CuPy's batches, not SciPy's: ``a``
    of shape ``(..., M, M)`` takes ``b`` of exactly its batch shape, ``(..., M)`` or
    ``(..., M, N)``, nothing broadcast; computed in ``a``'s precision, at least single;
    with ``overwrite_b`` an F-ordered ``b`` of that type is the result, as cuBLAS's)."""
    import scipy.linalg
    _require_array(a)
    _require_array(b)
    if a.ndim == 2:
        if a.shape[0] != a.shape[1]:
            raise ValueError("expected square matrix")
        if len(a) != len(b):
            raise ValueError("incompatible dimensions")
        if b.ndim > 2:  # (CuPy unpacks ``m, n = b.shape``)
            raise ValueError(f"too many values to unpack (expected 2, got {b.ndim})")
    elif a.ndim > 2:
        if a.shape[-1] != a.shape[-2]:
            raise ValueError("expected a batch of square matrices")
        if a.shape[:-2] != b.shape[:a.ndim - 2]:
            raise ValueError("incompatible batch count")
        if b.ndim < a.ndim - 1 or a.shape[-2] != b.shape[a.ndim - 2]:
            raise ValueError("incompatible dimensions")
        if b.ndim > a.ndim:  # (CuPy's reshape to (batch, M, 1) fails)
            raise ValueError(f"cannot reshape array of size {b.size} into shape "
                             f"({int(numpy.prod(a.shape[:-2]))}, {b.shape[-1]}, 1)")
    else:
        raise ValueError("expected one square matrix or a batch of square matrices")
    dtype = a.dtype if a.dtype.char in "fd" else numpy.promote_types(a.dtype.char, "f")
    if check_finite:
        for arr in (a, b):
            if arr.dtype.kind == "f" and not numpy.isfinite(arr).all():
                raise ValueError("array must not contain infs or NaNs")
    a_, b_ = a.astype(dtype, copy=False), b.astype(dtype, copy=False)
    options = dict(trans=trans, lower=lower, unit_diagonal=unit_diagonal, check_finite=False)
    if a.ndim == 2:
        x = scipy.linalg.solve_triangular(a_, b_, **options)
        if overwrite_b and b.dtype == dtype and b.flags.f_contiguous:
            b[...] = x
            return b
        return numpy.asfortranarray(x)
    vector = b.ndim == a.ndim - 1
    rhs = b_[..., None] if vector else b_
    x = numpy.empty(rhs.shape, dtype)
    for index in numpy.ndindex(*a.shape[:-2]):
        x[index] = scipy.linalg.solve_triangular(a_[index], rhs[index], **options)
    return x[..., 0] if vector else x


def lschol(A: Any, b: Any) -> numpy.ndarray:
    """See Also: cupyx.linalg.sparse.lschol (float64, as SciPy's solvers answer; ``b``
    read in A's type, its bytes uncast, as CuPy passes them)."""
    import scipy.sparse
    import scipy.sparse.linalg

    from . import cpu_sparse
    if not (scipy.sparse.issparse(A) and A.format == "csr"):
        if isinstance(A, HostArray):
            raise _unsupported(A.array)
        A = cpu_sparse.csr_matrix(A)
    assert_stacked_square(A)
    _require_array(b)
    if not isinstance(b, numpy.ndarray):
        raise TypeError(f"Unsupported type {type(b)}")
    m = A.shape[0]
    if b.ndim != 1 or len(b) != m:
        raise ValueError("b must be 1-d array whose size is same as A")
    dtype = A.dtype if A.dtype.char in "fd" else numpy.promote_types(A.dtype, "f")
    if b.dtype != dtype and b.flags.c_contiguous:
        # (CuPy hands ``b.data.ptr`` to ``csrlsvchol`` of A's type, uncast: b's bytes
        # read as that type; the GPU: float64 b with a float32 A solved garbage. Bytes
        # past b's, which the GPU would read, are zeros here)
        raw = numpy.zeros(m * dtype.itemsize, numpy.uint8)
        have = b.view(numpy.uint8).reshape(-1)[:raw.size]
        raw[:have.size] = have
        b = raw.view(dtype)
    with numpy.errstate(all="ignore"):
        x = scipy.sparse.linalg.spsolve(scipy.sparse.csr_matrix(A, dtype=dtype),
                                        b.astype(dtype, copy=False))
    return numpy.asarray(x).astype(numpy.float64)


def _float16_via_float32(fn: Callable[..., Any]) -> Callable[..., Any]:
    """CuPy's ``eigh``/``eigvalsh`` accept float16, computing in float32; ``UPLO`` is
    ``'L'`` or ``'U'`` (NumPy takes lowercase too)."""
    @functools.wraps(fn)
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        _require_array(a)
        if kwargs.get("UPLO", args[0] if args else "L") not in ("L", "U"):
            raise ValueError("UPLO argument must be 'L' or 'U'")
        if a.dtype == numpy.float16:
            out = fn(a.astype(numpy.float32), *args, **kwargs)
            if isinstance(out, tuple):
                return type(out)(*(o.astype(numpy.float16) for o in out))
            return out.astype(numpy.float16)
        return fn(a, *args, **kwargs)
    return call


def _geev(name: str) -> Callable[..., Any]:
    """``eig``/``eigvals`` as CuPy's ``_geev`` answers: always complex (complex128 for
    float64, bool and integer input, complex64 for float32: both ``w`` and ``v``, C-ordered),
    float16 refused (``linalg_common_type``); an empty input gives empty arrays of the
    real (or complex) result type, as CuPy's ``a.size == 0`` branch does."""
    host = getattr(numpy.linalg, name)

    def fn(a: Any) -> Any:
        _require_array(a)
        assert_stacked_square(a)
        if a.dtype == numpy.float16:
            raise TypeError("float16 is unsupported in linalg")
        dtype = a.dtype if a.dtype.kind in "fc" else numpy.dtype(numpy.float64)
        if a.size == 0:
            w = numpy.empty(a.shape[:-1], dtype)
            return (w, numpy.empty(a.shape, dtype)) if name == "eig" else w
        complex_dtype = numpy.dtype(dtype.char.upper())
        out = host(a.astype(dtype, copy=False))
        if name == "eig":
            w, v = out
            return (w.astype(complex_dtype),
                    numpy.ascontiguousarray(v, dtype=complex_dtype))
        return out.astype(complex_dtype)
    fn.__name__ = name
    fn.__doc__ = (f"See Also: cupy.linalg.{name} (cupy/linalg/_eigenvalue.py: ``_geev``'s "
                  "complex results)")
    return fn


# --- manipulation --------------------------------------------------------------------

def row_stack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> numpy.ndarray:
    """See Also: cupy.row_stack (deprecated alias of vstack)."""
    warnings.warn("`row_stack` alias is deprecated. Use `cp.vstack` directly.",
                  DeprecationWarning, stacklevel=1)
    return _joined_in_c_order(numpy.vstack)(tup, dtype=dtype, casting=casting)


def _concatenate_error(tup: Any, axis: Any, out: Any = None,
                       dtype: Any = None) -> BaseException | None:
    """The error CuPy's ``concatenate_method`` (``_routines_manipulation.pyx``) raises
    for these arrays, in its order; None for none (or for operands it does not take)."""
    arrays = list(tup)
    if not arrays:
        return ValueError("Cannot concatenate from empty tuple")
    if not all(isinstance(a, numpy.ndarray) for a in arrays):
        return None
    if any(a.ndim == 0 for a in arrays):
        return TypeError("zero-dimensional arrays cannot be concatenated")
    ndim = arrays[0].ndim
    if any(a.ndim != ndim for a in arrays[1:]):
        return ValueError("All arrays to concatenate must have the same ndim")
    try:
        axis = _normalize_axis(axis, ndim)
    except (TypeError, numpy.exceptions.AxisError) as exc:
        return exc
    first = arrays[0].shape
    for a in arrays[1:]:
        if any(i != axis and first[i] != a.shape[i] for i in range(ndim)):
            return ValueError("All arrays must have same shape except the axis to "
                              "concatenate")
    if out is not None and dtype is not None:
        return TypeError("concatenate() only takes `out` or `dtype` as an argument, but "
                         "both were provided.")
    return None


def _join_error(name: str, args: tuple, kwargs: dict) -> BaseException | None:
    """CuPy's error for ``cupy.<name>(*args, **kwargs)`` (``_manipulation/join.py``:
    each join ends in ``concatenate`` of its inputs made ``atleast_Nd``, expanded or
    raveled), None where CuPy's checks pass or this cannot tell."""
    params = {"concatenate": ("tup", "axis", "out"), "stack": ("tup", "axis", "out")}.get(
        name, ("tup",))
    bound = dict(zip(params, args))
    bound.update(kwargs)
    tup = bound.get("tup")
    if not isinstance(tup, (list, tuple)):
        return None
    arrays = list(tup)
    if not all(isinstance(a, numpy.ndarray) for a in arrays):
        return None
    axis = bound.get("axis", 0)
    if name == "concatenate":
        if axis is None:
            arrays, axis = [a.ravel() for a in arrays], 0
    elif name == "stack":
        try:
            arrays = [numpy.expand_dims(a, axis) for a in arrays]
        except Exception as exc:  # noqa: BLE001 - CuPy's expand_dims raises it too
            return exc
    elif name == "vstack":
        arrays, axis = [numpy.atleast_2d(a) for a in arrays], 0
    elif name == "hstack":
        if not arrays:
            return IndexError("list index out of range")
        arrays = [numpy.atleast_1d(a) for a in arrays]
        axis = 0 if arrays[0].ndim == 1 else 1
    elif name == "dstack":
        arrays, axis = [numpy.atleast_3d(a) for a in arrays], 2
    elif name == "column_stack":
        if any(a.ndim not in (1, 2) for a in arrays):
            return ValueError("Only 1 or 2 dimensional arrays can be column stacked")
        arrays, axis = [a[:, None] if a.ndim == 1 else a for a in arrays], 1
    else:
        return None
    return _concatenate_error(arrays, axis, bound.get("out"), bound.get("dtype"))


def _joined_in_c_order(join: Callable[..., Any]) -> Callable[..., Any]:
    """CuPy's joins write into a new C-ordered array whatever their inputs' layouts
    (NumPy's follow the inputs': Fortran-ordered in, Fortran-ordered out); their errors
    are CuPy's (``_join_error``), restated on NumPy's error path only."""
    @functools.wraps(join)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            out = join(*args, **kwargs)
        except (ValueError, TypeError):
            err = _join_error(join.__name__, args, kwargs)
            if err is not None:
                raise err from None
            raise
        if kwargs.get("out") is None and isinstance(out, numpy.ndarray) and \
                not out.flags.c_contiguous:
            out = numpy.ascontiguousarray(out)
        if kwargs.get("dtype") is None and isinstance(out, numpy.ndarray) and args and \
                isinstance(args[0], (list, tuple)) and args[0] and \
                isinstance(args[0][0], numpy.ndarray) and out.flags.owndata:
            first = args[0][0].dtype  # (CuPy's ``concatenate_method``: the first array's
            # dtype where all are equal to it: longlong and int64 alike)
            if out.dtype == first and out.dtype.char != first.char:
                out.dtype = first
        return out
    return call


def column_stack(tup: Any) -> numpy.ndarray:
    """See Also: cupy.column_stack (arrays only, of one or two dimensions: CuPy's checks
    and words, ``_manipulation/join.py``)."""
    tup = list(tup)
    for a in tup:
        if isinstance(a, HostArray):
            raise _unsupported(a.array)
        if not isinstance(a, numpy.ndarray):
            raise TypeError("Only cupy arrays can be column stacked")
    if any(a.ndim not in (1, 2) for a in tup):
        raise ValueError("Only 1 or 2 dimensional arrays can be column stacked")
    return _joined_in_c_order(numpy.column_stack)(tup)


def ndarray_reshape(a: numpy.ndarray, *shape: Any, order: str = "C", copy: Any = None) -> Any:
    """``ndarray.reshape`` with CuPy's ``copy=`` and order checks.

    See Also
    --------
    cupy.ndarray.reshape
    """
    if isinstance(copy, str):
        raise ValueError("strings are not allowed for 'copy' keyword. Use True/False/None "
                         "instead.")
    order = normalize_order(order, allow_k=False)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    if copy:
        return numpy.array(a.reshape(shape, order=order), copy=True, order="K")
    out = a.reshape(shape, order=order, copy=copy)
    if out.shape == a.shape and out.strides != a.strides:
        return a.view()  # (CuPy's ``_reshape`` to its own shape: ``self.view()``; NumPy
        # recomputes a zero-size array's strides for a -1)
    return out


def _strided_view(a: numpy.ndarray, shape: tuple, strides: tuple) -> numpy.ndarray | None:
    """A view of ``a``'s memory with this shape and these strides, whose base is the
    array owning the memory (as NumPy's own views have; ``as_strided``'s is a stand-in
    object, which the session and the quota would not follow). None where NumPy cannot
    make it so."""
    if a.dtype.hasobject:  # never object references read from bytes
        return None
    root = a
    while isinstance(root.base, numpy.ndarray):
        root = root.base
    try:
        offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        return numpy.ndarray(shape, a.dtype, buffer=root, offset=offset, strides=strides)
    except (TypeError, ValueError, BufferError):
        return None


def _broadcast_view(a: numpy.ndarray, shape: tuple) -> numpy.ndarray:
    """CuPy's broadcast view of ``a``: a kept length-1 axis keeps its stride (NumPy's
    views give it 0), and the view can be written, as CuPy's can."""
    view = _strided_view(a, shape, broadcast_strides(a.shape, a.strides, shape))
    return view if view is not None else numpy.broadcast_to(a, shape)


def broadcast_to(array: Any, shape: Any) -> numpy.ndarray:
    """See Also: cupy.broadcast_to"""
    _require_array(array)
    shape = tuple(shape) if numpy.iterable(shape) else (shape,)
    if not all(isinstance(n, (int, numpy.integer)) and n >= 0 for n in shape):
        return numpy.broadcast_to(array, shape)  # NumPy's error
    return _broadcast_view(array, tuple(int(n) for n in shape))


def broadcast_arrays(*args: Any) -> tuple:
    """See Also: cupy.broadcast_arrays (views that can be written, as CuPy's are; an
    array that has the broadcast shape already is returned itself, as in CuPy)."""
    shape = numpy.broadcast(*args).shape
    return tuple(a if isinstance(a, numpy.ndarray) and a.shape == shape
                 else _broadcast_view(a, shape) if isinstance(a, numpy.ndarray)
                 else numpy.broadcast_to(a, shape) for a in args)


def _new_array(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` whose CuPy result is a new array where NumPy's is a view: of the input
    (``diag`` of a matrix) or of a temporary (``tensordot``'s reshape, ``isclose``'s
    ``[()]``)."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        return out.copy() if isinstance(out, numpy.ndarray) and out.base is not None else out
    return call


def isclose(a: Any, b: Any, rtol: Any = 1.e-5, atol: Any = 1.e-8,
            equal_nan: Any = False) -> numpy.ndarray:
    """See Also: cupy.isclose (``_logic/comparison.py``: the ufunc ``_is_close``, or
    ``_is_close_complex``, of ``(a, b, rtol, atol, equal_nan)``: the five broadcast
    together, in ``internal._broadcast_core``'s words; a new array, where NumPy's
    0-d result is a view)."""
    operands = (a, b, rtol, atol, equal_nan)
    try:
        numpy.broadcast_shapes(*(v.shape for v in operands if isinstance(v, numpy.ndarray)))
    except ValueError:
        raise _broadcast_error(operands) from None
    result = numpy.isclose(a, b, rtol, atol, equal_nan)
    return result.copy() if isinstance(result, numpy.ndarray) and result.base is not None \
        else result


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Any:
    """See Also: cupy.arange (``_creation/ranges.py``): element ``i`` is
    ``typ(start) + i * typ(step)`` in the result's dtype (the ``cupy_arange`` ufunc;
    float32 and float16 in single precision, integers modulo their width), where NumPy
    adds multiples of ``(start + step) - start``: ``arange(1, 2, 0.1)`` differs from
    NumPy's in the last bit of 8 values in 10."""
    values = (start, stop, step)
    if not all(v is None or isinstance(v, (int, float, numpy.integer, numpy.floating))
               for v in values):
        return numpy.arange(start, stop, step, dtype=dtype)
    if dtype is None:
        if any(numpy.dtype(type(val)).kind == "f" for val in values):
            dtype = float
        else:
            dtype = int
    if stop is None:
        stop = start
        start = 0
    if step is None:
        step = 1
    size = int(numpy.ceil((stop - start) / step))
    dt = numpy.dtype(dtype)
    if size <= 0:
        return numpy.empty((0,), dtype=dt)
    if dt.type == numpy.bool_:
        if size > 2:
            raise TypeError("arange() is only supported for booleans "
                            "when the result has at most length 2.")
        if size == 2:
            return numpy.array([start, start - step], dtype=numpy.bool_)
        return numpy.array([start], dtype=numpy.bool_)
    if dt.kind not in "iufc":
        return numpy.arange(start, stop, step, dtype=dt)
    typ = dt.type
    first, delta = typ(start), typ(step)
    if dt.kind in "iu":  # (C's integer arithmetic: modulo 2**64, then the dtype's width)
        bits = [numpy.uint64(int(v) % (1 << 64)) for v in (first, delta)]
        ramp = numpy.arange(size, dtype=numpy.uint64)
        return (bits[0] + ramp * bits[1]).astype(dt)
    compute = numpy.dtype(numpy.float32) if dt == numpy.float16 else dt
    ramp = numpy.arange(size).astype(compute.char.lower() if compute.kind == "c" else compute)
    if dt == numpy.float32 or dt == numpy.float64:
        # (NVRTC contracts ``in0 + i * in1`` into one fused multiply-add: the GPU's
        # ``arange(1, 2, 0.1, dtype=float32)[9]`` is 1.8999999762, not 1.9000000954)
        return cpu_ftz.fma(ramp, numpy.full(size, delta, dt), numpy.full(size, first, dt))
    with numpy.errstate(all="ignore"):
        out = compute.type(first) + ramp * compute.type(delta)
    return out.astype(dt, copy=False)


def linspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True,
             retstep: bool = False, dtype: Any = None, axis: Any = 0) -> Any:
    """See Also: cupy.linspace (between two scalars, CuPy's array owns its memory, where
    NumPy's is a view of the range it scaled; ``num < 0``: CuPy's ``_creation/ranges.py``
    error)."""
    if num < 0:
        raise ValueError("linspace with num<0 is not supported")
    out = numpy.linspace(start, stop, num, endpoint, retstep, dtype, axis)
    y = out[0] if retstep else out
    scalars = numpy.isscalar(start) and numpy.isscalar(stop)
    if y.base is not None and scalars:
        y = y.copy()
    if not retstep:
        return y
    if scalars:  # CuPy's ``_linspace_scalar``: the step is a Python float
        div = (num - 1) if endpoint else num
        return y, (float(stop - start) / div if div > 0 else float("nan"))
    return y, out[1]


def repeat(a: Any, repeats: Any, axis: Any = None) -> numpy.ndarray:
    """See Also: cupy.repeat (CuPy's checks and messages on ``repeats``)."""
    _require_array(a)
    if isinstance(repeats, HostArray):
        raise TypeError("repeats of type numpy.ndarray are not supported; use a "
                        "cupy.ndarray, a list or an int")
    if isinstance(repeats, (list, tuple)):
        if any(isinstance(r, (list, tuple)) for r in repeats):
            raise ValueError("'repeats' is too deep: expected an int or a 1-D sequence")
        reps = numpy.asarray(repeats)
    else:
        reps = numpy.asarray(repeats)
    if reps.dtype.kind in "iu" and reps.size and (reps < 0).any():
        raise ValueError("'repeats' should not be negative: {}".format(repeats))
    if reps.ndim == 1 and reps.size != 1:
        n = a.size if axis is None else a.shape[_normalize_axis(axis, a.ndim)]
        if reps.size != n:
            raise ValueError("'repeats' and 'a' must have the same length along 'axis': "
                             f"{reps.size} != {n}")
    if reps.size == 1 and reps.dtype.kind in "iu":
        return _broadcast_repeat(a, int(reps.reshape(-1)[0]), axis)
    if isinstance(repeats, (list, tuple)):
        repeats = reps
    return numpy.repeat(a, repeats, axis)


def _broadcast_repeat(a: numpy.ndarray, rep: int, axis: Any) -> numpy.ndarray:
    """CuPy's repeat by one count: a new array of the repeated shape (each element
    followed by its copies), seen through a reshape, as CuPy returns it."""
    if axis is None:
        a, axis = a.ravel(), 0
    else:
        axis = _normalize_axis(axis, a.ndim)
    before, n, after = a.shape[:axis], a.shape[axis], a.shape[axis + 1:]
    if n * rep == 0:
        return numpy.empty(before + (0,) + after, a.dtype)
    expanded = numpy.empty(before + (n, rep) + after, a.dtype)
    expanded[...] = a.reshape(before + (n, 1) + after)
    return expanded.reshape(before + (n * rep,) + after)


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """See Also: cupy.split (CuPy's checks and words: ``_manipulation/split.py``)."""
    if isinstance(ary, numpy.ndarray):
        if ary.ndim <= axis:
            raise IndexError("Axis exceeds ndim")
        size = ary.shape[axis]
        if numpy.isscalar(indices_or_sections) and size % indices_or_sections != 0:
            raise ValueError("indices_or_sections must divide the size along the axes.\n"
                             "If you want to split the array into non-equally-sized "
                             "arrays, use array_split instead.")
    return numpy.split(ary, indices_or_sections, axis)


def bincount_checks(x: numpy.ndarray, weights: Any, minlength: Any) -> int | None:
    """``cupy.bincount``'s checks before it reads the device (on ``x``'s shape, dtype and
    values, then ``weights``'s shape, then ``minlength``), in its order and words; the
    minimum length as an int."""
    if x.ndim > 1:
        raise ValueError("object too deep for desired array")
    if x.ndim < 1:
        raise ValueError("object of too small depth for desired array")
    if x.dtype.kind == "f":
        raise TypeError("x must be int array")
    if (x < 0).any():
        raise ValueError("The first argument of bincount must be non-negative")
    if weights is not None and x.shape != getattr(weights, "shape", None):
        raise ValueError("The weights and list don't have the same length.")
    if minlength is not None:
        minlength = int(minlength)
        if minlength < 0:
            raise ValueError("minlength must be non-negative")
    return minlength


def bincount(x: Any, weights: Any = None, minlength: Any = None) -> numpy.ndarray:
    """See Also: cupy.bincount (CuPy's checks, in its order and words, and its result
    types: intp counts, float64 weighted sums; ``_statistics/histogram.py``, whose
    first check reads ``x.ndim``: a list is an AttributeError)."""
    if isinstance(x, HostArray):
        raise _unsupported(x.array)
    if not isinstance(x, numpy.ndarray):
        raise AttributeError(f"'{type(x).__name__}' object has no attribute 'ndim'")
    minlength = bincount_checks(x, weights, minlength)
    if x.size == 0:
        return numpy.zeros((minlength or 0,), dtype=numpy.intp)
    if x.dtype.kind == "c":  # (``int(cupy.max(x))``: Python's refusal)
        raise TypeError("int() argument must be a string, a bytes-like object or a real "
                        "number, not 'complex'")
    if weights is not None and weights.dtype.kind == "c":
        # (``_bincount_with_weight_kernel``: ``atomicAdd(&bin[x], w)`` into float64
        # bins, and no atomicAdd takes a double pointer and a complex: NVRTC refuses
        # the kernel; NumPy drops the imaginary parts)
        ctype = "complex<float>" if weights.dtype == numpy.complex64 else "complex<double>"
        raise nvrtc_refusal(  # (line and words modelled: no GPU has printed these)
            "cupy_bincount_with_weight_kernel", 18,
            'no instance of overloaded function "atomicAdd" matches the argument list\n'
            f'            argument types are: (double *, {ctype})',
            "atomicAdd(&bin[x], w);", 0)
    counts = numpy.bincount(x.astype(numpy.intp, copy=False),
                            None if weights is None else weights.astype(numpy.float64),
                            minlength or 0)
    return counts.astype(numpy.intp if weights is None else numpy.float64, copy=False)


def cupy_loop(name: str, loops: tuple, args: tuple) -> str:
    """The loop of ``loops`` (each a string of the input type chars then the output's)
    CuPy's ufunc ``name`` runs for the operands ``args`` (``ufunc_loops.pick``: Python
    scalars as ``_scalar.pyx: numpy_dtype_from_pyscalar`` reads them, weak); CuPy's
    TypeError where none takes them."""
    in_types, weaks = [], []
    for value in args:
        if isinstance(value, (numpy.ndarray, numpy.generic)):
            in_types.append(value.dtype)
            weaks.append(None)
            continue
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
        dtype = _cupy_in_type(value)
        if dtype is None:
            raise _unsupported(value)
        in_types.append(dtype)
        weaks.append(type(value) if type(value) in (int, float, complex) else None)
    index = ufunc_loops.pick(loops, tuple(in_types), tuple(weaks))
    if index is None:
        raise TypeError("Wrong type (%s) of arguments for %s" % (tuple(in_types), name))
    return loops[index]


def _cupy_ufunc_loop(name: str, loops: tuple, args: tuple) -> tuple:
    """``cupy_loop``'s, and (the operands cast to its types, a Python scalar packed as
    NumPy does, so an out-of-range int is NumPy's OverflowError as in CuPy's
    ``CScalar``; the result dtype)."""
    types = [numpy.dtype(c) for c in cupy_loop(name, loops, args)]
    cast = tuple(  # (a float32 array read as a double: ``cvt.ftz.f64.f32``, cpu_ftz)
        cpu_ftz.converted(v, t).astype(t, copy=False) if type(v) is numpy.ndarray else
        v.astype(t, copy=False) if isinstance(v, (numpy.ndarray, numpy.generic))
        else numpy.array(v, dtype=t) for v, t in zip(args, types))
    return cast, types[-1]


def _c_order(result: Any) -> numpy.ndarray:
    """A ufunc's new C-contiguous output (0-d staying 0-d: ``numpy.ascontiguousarray``
    makes it 1-d)."""
    result = numpy.asarray(result)
    return result if result.flags.c_contiguous else result.copy(order="C")


def _broadcast_error(values: Any) -> ValueError:
    """``internal.pyx: _broadcast_core``'s words (a scalar's shape is ``()``)."""
    return ValueError("operands could not be broadcast together with shapes " + " ".join(
        str(v.shape) if isinstance(v, numpy.ndarray) else "()" for v in values))


def _ufunc_out(result: numpy.ndarray, out: Any, operands: tuple = ()) -> Any:
    """A CuPy ufunc's ``out=`` (``_kernel.pyx: ufunc.__call__``): the operands and
    ``out`` broadcast together to ``out``'s own shape, then the loop's result cast to
    it ('same_kind')."""
    if out is None:
        return result
    if isinstance(out, HostArray):
        raise _unsupported(out.array)
    if not isinstance(out, numpy.ndarray):
        if _cupy_in_type(out) is None:  # (``_scalar.CScalar``)
            raise _unsupported(out)
        raise TypeError("Output arguments type must be cupy.ndarray")
    try:
        shape = numpy.broadcast_shapes(result.shape, out.shape)
    except ValueError:
        raise _broadcast_error((*operands, out) if operands else (result, out)) from None
    if shape != out.shape:
        raise ValueError("Out shape is mismatched")
    if not numpy.can_cast(result.dtype, out.dtype, "same_kind"):
        raise TypeError(f"Cannot cast output operand from {result.dtype!r} to "
                        f"{out.dtype!r} according to the rule 'same_kind'")
    numpy.copyto(out, result, casting="unsafe")
    return out


#: ``cupy/_sorting/search.py: _where_ufunc`` (``?XX->X``)
_WHERE_LOOPS = tuple("?" + c * 3 for c in "?bBhHiIlLqQefdFD")
_BOOL = numpy.dtype(numpy.bool_)


def where(condition: Any, x: Any = None, y: Any = None) -> Any:
    """See Also: cupy.where (``_sorting/search.py``): the ufunc ``cupy_where`` over
    ``condition.astype('?')``, so a Python scalar meets the other operand as CuPy's
    ufuncs' do (``where(c, int8_array, 1000)`` is CuPy's OverflowError where NumPy
    wraps it to -24; two Python ints of different kinds are float64)."""
    missing = (x is None, y is None).count(True)
    if missing == 1:
        raise ValueError("Must provide both 'x' and 'y' or neither.")
    if missing == 2:  # (``nonzero(condition)``: CuPy's layout and checks, a host
        from .cpu_indexing import nonzero  # array's ``'a' must be a cupy.ndarray``)
        return nonzero(condition)
    for value in (condition, x, y):  # (the ufunc's refusal of a host array)
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    if not hasattr(condition, "astype"):  # (``condition.astype('?', copy=False)``)
        raise AttributeError(
            f"'{type(condition).__name__}' object has no attribute 'astype'")
    if not isinstance(condition, numpy.ndarray):
        return numpy.where(condition, x, y)
    (cond, x, y), _ = _cupy_ufunc_loop(  # (``astype('?')``: setp.ftz.f32, cpu_ftz)
        "cupy_where", _WHERE_LOOPS,
        (cpu_ftz.converted(condition, _BOOL).astype(numpy.bool_, copy=False), x, y))
    result = numpy.where(cond, x, y)
    if type(result) is numpy.ndarray:  # (the ufunc's output: a new C array, and its
        # loops list '?ll->l' before '?qq->q')
        if not result.flags.c_contiguous:
            result = numpy.ascontiguousarray(result)
        cpu_cast.cupy_long(result)
    return result


#: ``cupy/_core/_routines_math.pyx: _clip`` (no complex loops)
_CLIP_LOOPS = tuple(c * 4 for c in "?bBhHiIlLqQefd")


def ndarray_clip(a: Any, min: Any = None, max: Any = None, out: Any = None) -> Any:
    """``cupy.ndarray.clip`` (``_routines_math.pyx: _ndarray_clip``): a missing bound is
    the dtype's own extreme (floats' infinities), then the ufunc ``cupy_clip``, whose
    kernel is ``in1 > in2 ? in2 : (in0 < in1 ? in1 : (in0 > in2 ? in2 : in0))``: no loop
    for complex, CuPy's OverflowError for an out-of-range Python int bound
    (``clip(uint8_array, -1, 3)``; NumPy clips), and NaN bounds ignored."""
    kind = a.dtype.kind
    if min is None:
        if kind == "f":
            min = a.dtype.type("-inf")
        elif kind in "iu":
            min = numpy.iinfo(a.dtype.type).min
    if max is None:
        if kind == "f":
            max = a.dtype.type("inf")
        elif kind in "iu":
            max = numpy.iinfo(a.dtype.type).max
    (x, lo, hi), _ = _cupy_ufunc_loop("cupy_clip", _CLIP_LOOPS, (a, min, max))
    if x.dtype.char == "f" and cpu_ftz.AVAILABLE:  # (``-ftz=true``: the comparisons
        # read a subnormal as zero, the value chosen is the operand's own bits)
        x, lo, hi = numpy.asarray(x), numpy.asarray(lo), numpy.asarray(hi)
        xf, lof, hif = cpu_ftz.flushed(x), cpu_ftz.flushed(lo), cpu_ftz.flushed(hi)
        if xf is not x or lof is not lo or hif is not hi:
            result = numpy.where(lof > hif, hi, numpy.where(
                xf < lof, lo, numpy.where(xf > hif, hi, x)))
            return _ufunc_out(_c_order(result), out, (a, min, max))
    if lo.ndim == hi.ndim == 0 and bool(lo <= hi):  # (no NaN bound): NumPy's clip is
        # the kernel, without its temporaries
        result = numpy.clip(x, lo, hi)
    else:
        with numpy.errstate(invalid="ignore"):
            result = numpy.where(lo > hi, hi,
                                 numpy.where(x < lo, lo, numpy.where(x > hi, hi, x)))
    return _ufunc_out(_c_order(result), out, (a, min, max))


#: ``cupy/_core/core.pyx: _round_ufunc`` (``?q->e``: a boolean array rounds to float16)
#: and ``_round_ufunc_neg_uint`` (integers with negative decimals)
_ROUND_INT_LOOPS = ("?qe",) + tuple(c + "q" + c for c in "bBhHiIlLqQ")
_ROUND_LOOPS = _ROUND_INT_LOOPS + tuple(c + "q" + c for c in "efdFD")
_INT64_MASK = (1 << 64) - 1


def _pow10_double(n: int) -> float:
    """``core.pyx: pow10<double>(n)``: 10 to the ``n`` by squaring, in doubles (inf
    past their range)."""
    x, a = 1.0, 10.0
    while n:
        if n & 1:
            x *= a
        a *= a
        n >>= 1
    return x


def _pow10_int64(n: int) -> int:
    """``core.pyx: pow10<long long>(n)``: by squaring, wrapping as 64-bit integers."""
    x, a = 1, 10
    n &= _INT64_MASK
    while n:
        if n & 1:
            x = (x * a) & _INT64_MASK
        a = (a * a) & _INT64_MASK
        n >>= 1
    return x - (1 << 64) if x >> 63 else x


def _c_quotient(a: numpy.ndarray, b: Any) -> numpy.ndarray:
    """C's integer division (truncating toward zero) of int64 ``a`` by ``b``."""
    q = a // b
    return q + ((q * b != a) & ((a < 0) != (b < 0)))


def _round_float(x: numpy.ndarray, decimals: int) -> numpy.ndarray:
    """``core.pyx: _round_float``/``_round_complex`` for one ``decimals``: ``rint`` at
    0, else scaled by ``pow10<double>(|decimals|)`` in double precision (NumPy scales
    in the array's own precision: ``round(float32(2.675), 2)`` is 2.67 in CuPy, 2.68 in
    NumPy) and stored back in the array's type."""
    if decimals == 0:
        return numpy.rint(x)
    scale = _pow10_double(abs(decimals))
    wide = numpy.complex128 if x.dtype.kind == "c" else numpy.float64

    def part(v: numpy.ndarray) -> numpy.ndarray:  # (float32 read and written through
        v = cpu_ftz.flushed(v).astype(numpy.float64)  # cvt.ftz: cpu_ftz)
        return numpy.rint(v / scale) * scale if decimals < 0 else numpy.rint(v * scale) / scale
    if x.dtype.kind == "c":
        result = numpy.empty(x.shape, wide)
        result.real = part(x.real)
        result.imag = part(x.imag)
    else:
        result = part(x)
    return cpu_ftz.converted(result, x.dtype).astype(x.dtype)


def _round_neg_int(x: numpy.ndarray, digits: int) -> numpy.ndarray:
    """``core.pyx: _round_ufunc_neg_uint``'s kernel, for ``digits`` = -decimals > 0:
    ``x = pow10<long long>(digits - 1); q = in0 / x / 100; int r = in0 - q*x*100;
    out0 = (q*100 + round_float(r / (x*10.0f))*10) * x`` (64-bit integers wrapping,
    ``r`` a 32-bit int, its quotient a float rounded half to even): CuPy's own
    rounding, exact for 64-bit values NumPy rounds through doubles."""
    scale = _pow10_int64(digits - 1)
    if x.dtype == numpy.uint64:
        unsigned = numpy.uint64(scale & _INT64_MASK)
        q = (x // unsigned // numpy.uint64(100)).view(numpy.int64) if unsigned else \
            numpy.zeros(x.shape, numpy.int64)
        v = x.view(numpy.int64)
    else:
        v = x.astype(numpy.int64)
        q = _c_quotient(_c_quotient(v, scale), 100) if scale else \
            numpy.zeros(x.shape, numpy.int64)
    s = numpy.int64(scale)
    r = (v - q * s * 100).astype(numpy.int32)
    quotient = r.astype(numpy.float32) / (numpy.float32(s) * numpy.float32(10.0))
    k = numpy.rint(quotient).astype(numpy.int64)
    return ((q * 100 + k * 10) * s).astype(x.dtype)


def _by_decimals(fn: Callable[..., Any], x: numpy.ndarray,
                 decimals: numpy.ndarray) -> numpy.ndarray:
    """``fn(x, d)`` elementwise over the int64 ``decimals`` (one call per value)."""
    if decimals.ndim == 0:
        return fn(x, int(decimals))
    x, decimals = numpy.broadcast_arrays(x, decimals)
    result = numpy.empty(x.shape, fn(x[:0], 1).dtype)
    for d in numpy.unique(decimals):
        mask = decimals == d
        result[mask] = fn(x[mask], int(d))
    return result


def ndarray_round(a: Any, decimals: Any = 0, out: Any = None) -> Any:
    """``cupy.ndarray.round`` (``core.pyx``): ``_round_ufunc_neg_uint(a, -decimals)``
    for an integer array and negative ``decimals``, else ``_round_ufunc(a, decimals)``,
    CuPy's ufuncs: a boolean array gives float16 (``?q->e``: 0 and 1 whatever the
    decimals; NumPy refuses), integers are themselves for ``decimals >= 0``, and
    ``decimals`` is packed into the loop's int64 as CuPy packs Python scalars."""
    with numpy.errstate(all="ignore"):
        if decimals < 0 and issubclass(a.dtype.type, numpy.integer):
            (x, d), _ = _cupy_ufunc_loop("cupy_round_neg_uint", _ROUND_INT_LOOPS,
                                         (a, -decimals))
            result = _by_decimals(_round_neg_int, x, d)
        else:
            (x, d), kind = _cupy_ufunc_loop("cupy_round", _ROUND_LOOPS, (a, decimals))
            if x.dtype.kind in "biu":  # (``out0 = in0``)
                result = numpy.broadcast_to(x, numpy.broadcast_shapes(x.shape, d.shape))
                result = result.astype(kind)
            else:
                result = _by_decimals(_round_float, x, d)
    return _ufunc_out(_c_order(result), out, (a, decimals))


def around(a: Any, decimals: Any = 0, out: Any = None) -> Any:
    """See Also: cupy.around (``_math/rounding.py``: ``_core.array(a, copy=False)``,
    then its ``round`` method, CuPy's ufuncs: see ``ndarray_round``)."""
    if isinstance(a, HostArray):
        a = a.array
    if not isinstance(a, numpy.ndarray):
        a = numpy.array(a)
    return ndarray_round(a, decimals, out)


def clip(a: Any, a_min: Any, a_max: Any, out: Any = None) -> Any:
    """See Also: cupy.clip (CuPy's signature: both bounds required, no ufunc keywords;
    ``_math/misc.py``: ``a.clip(a_min, a_max, out=out)``)."""
    if not isinstance(a, numpy.ndarray):
        return numpy.clip(a, a_min, a_max, out=out)
    return ndarray_clip(a, a_min, a_max, out)


def require(a: Any, dtype: Any = None, requirements: Any = None) -> numpy.ndarray:
    """See Also: cupy.require (ValueError for unknown dtypes and flags)."""
    _require_array(a)
    possible = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F",
                "F_CONTIGUOUS": "F", "FORTRAN": "F", "O": "OWNDATA", "OWNDATA": "OWNDATA"}
    try:
        dt = None if dtype is None else numpy.dtype(dtype)
    except TypeError:
        raise ValueError(f'Incorrect dtype "{dtype}" provided') from None
    if not requirements:
        return a if dt is None or dt == a.dtype else a.astype(dt)
    try:
        reqs = {possible[x.upper()] for x in requirements}
    except KeyError:
        raise ValueError('Incorrect flag "{}" in requirements'.format(
            (set(requirements) - set(possible)).pop())) from None
    if reqs >= {"C", "F"}:
        raise ValueError('Cannot specify both "C" and "F" order')
    order = "F" if "F" in reqs else "C" if "C" in reqs else "A"
    if "OWNDATA" in reqs:
        return numpy.array(a, dtype=dt, order=order, copy=True)
    if order == "A":
        return a if dt is None or dt == a.dtype else a.astype(dt)
    return numpy.asarray(a, dtype=dt, order=order)


def delete(arr: Any, indices: Any, axis: Any = None) -> numpy.ndarray:
    """See Also: cupy.delete (index arrays wrap as in CuPy's setitem)."""
    if not isinstance(arr, numpy.ndarray):
        raise ValueError("delete(): arr must be a cupy.ndarray")
    from .cpu_indexing import setitem
    if axis is None:
        if arr.ndim != 1:
            arr = arr.ravel()
        axis = 0
    else:
        axis = _normalize_axis(axis, arr.ndim)
    size = arr.shape[axis]
    if isinstance(indices, HostArray):
        raise _unsupported(indices.array)
    if not (isinstance(indices, slice) or (isinstance(indices, (int, numpy.integer))
                                           and not isinstance(indices, bool))):
        idx = numpy.asarray(indices)
        if idx.dtype == numpy.bool_:
            if idx.ndim != 1 or idx.shape[0] != size:
                raise ValueError("boolean array argument indices to delete must be one "
                                 f"dimensional and match the axis length of {size}")
            if arr.ndim == 1:
                return arr[~idx]
        if idx.size != 0:
            indices = idx
    mask = numpy.ones(size, dtype=numpy.bool_)
    setitem(mask, (indices,), False)
    return numpy.compress(mask, arr, axis=axis)


def select(condlist: Any, choicelist: Any, default: Any = 0) -> numpy.ndarray:
    """See Also: cupy.select (CuPy's argument checks; ``default`` written by CuPy's
    ``copyto``: a NumPy scalar is checked by ``numpy.can_cast`` of its value)."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    if not numpy.isscalar(default):
        raise TypeError("default only accepts scalar values")
    for i, choice in enumerate(choicelist):
        if not isinstance(choice, numpy.ndarray):
            raise TypeError("choicelist only accepts lists of cupy ndarrays")
        cond = condlist[i]
        if cond.dtype.type is not numpy.bool_:  # AttributeError for lists, as in CuPy
            raise ValueError(f"invalid entry {i} in condlist: should be boolean ndarray")
    dtype = numpy.result_type(*choicelist)
    conds = numpy.broadcast_arrays(*condlist)
    choices = numpy.broadcast_arrays(*choicelist, default)
    if choices[0].ndim == 0:
        shape = conds[0].shape
    else:
        shape = numpy.broadcast_arrays(conds[0], choices[0])[0].shape
    result = numpy.empty(shape, dtype)
    copyto(result, default)  # (CuPy's checks of a scalar: see ``copyto``)
    for choice, cond in zip(choices[-2::-1], conds[::-1]):
        copyto(result, choice, where=cond)
    return result


#: ``cupy/_math/misc.py: _nan_to_num`` (a complex array's replacements are real)
_NAN_TO_NUM_LOOPS = tuple(c * 5 for c in "?bBhHiIlLqQefd") + ("FfffF", "DdddD")


def _check_nan_inf(x: Any, dtype: numpy.dtype, neg: Any = None) -> Any:
    """``misc.py: _check_nan_inf``: a replacement as an array of the result's (real)
    type: 0 for non-floats, the type's extremes for missing infinities, else
    ``cupy.asanyarray(x, dtype)`` (NumPy's cast: None is NaN)."""
    if dtype.char in "FD":
        dtype = numpy.dtype(dtype.char.lower())
    if dtype.char not in "efd":
        x = 0
    elif x is None and neg is not None:
        x = numpy.finfo(dtype).min if neg else numpy.finfo(dtype).max
    if isinstance(x, HostArray):  # (``cupy.asanyarray`` copies host data in)
        x = x.array
    return numpy.asanyarray(x, dtype)


def _replace_nonfinite(v: numpy.ndarray, nan: Any, posinf: Any, neginf: Any) -> Any:
    """The kernel's ``nan_to_num(x, nan, posinf, neginf)`` on real values."""
    return numpy.where(numpy.isnan(v), nan,
                       numpy.where(numpy.isinf(v), numpy.where(v > 0, posinf, neginf), v))


def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
               neginf: Any = None) -> Any:
    """See Also: cupy.nan_to_num (``_math/misc.py``): the result array is ``x``'s
    (``copy=False``), a new one like it, or ``cupy.full((), x)`` for anything but an
    array (a list's AttributeError, as CuPy's ``copyto``); the replacements are cast
    to its (real) type by NumPy, ignored for integers and booleans; then the ufunc
    ``cupy_nan_to_num_`` into it (a replacement may be an array, broadcast)."""
    if not isinstance(x, numpy.ndarray):
        out = full((), x)
    else:
        out = numpy.empty_like(x) if copy else x
    dtype = out.dtype
    nan = _check_nan_inf(nan, dtype)
    posinf = _check_nan_inf(posinf, dtype, False)
    neginf = _check_nan_inf(neginf, dtype, True)
    operands = (x, nan, posinf, neginf)
    (v, n, p, m), kind = _cupy_ufunc_loop("cupy_nan_to_num_", _NAN_TO_NUM_LOOPS, operands)
    if kind.kind == "c":
        result = numpy.empty(numpy.broadcast_shapes(v.shape, n.shape, p.shape, m.shape),
                             kind)
        result.real = _replace_nonfinite(v.real, n, p, m)
        result.imag = _replace_nonfinite(v.imag, n, p, m)
    elif kind.kind == "f":
        result = _replace_nonfinite(v, n, p, m).astype(kind, copy=False)
    else:  # (``out0 = in0``)
        result = numpy.broadcast_to(v, numpy.broadcast_shapes(v.shape, n.shape, p.shape,
                                                              m.shape))
    return _ufunc_out(numpy.asarray(result), out, operands)


def _kernel_operand(value: Any) -> Any:
    """``_kernel.pyx: _preprocess_arg``: a device array, or a Python or NumPy scalar
    (a ``CScalar``: anything else is its TypeError)."""
    if isinstance(value, HostArray):
        raise _unsupported(value.array)
    if isinstance(value, numpy.ndarray) or _cupy_in_type(value) is not None:
        return value
    raise _unsupported(value)


def _piecewise_kernel(condition: Any, value: Any, y: numpy.ndarray) -> None:
    """``_functional/piecewise.py: _piecewise_krnl``, the ElementwiseKernel
    ``bool cond, T value -> T y: if (cond) y = value`` called with ``y``: an array
    condition must be boolean (no cast), the arguments broadcast to ``y``'s shape, and
    a scalar ``value`` is packed into ``y``'s type (NumPy's OverflowError for an
    out-of-range Python int; NumPy wraps it)."""
    condition, value = _kernel_operand(condition), _kernel_operand(value)
    if isinstance(condition, numpy.ndarray) and condition.dtype != numpy.bool_:
        raise TypeError(f"Type is mismatched. cond {condition.dtype} bool")
    arrays = [v for v in (condition, value, y) if isinstance(v, numpy.ndarray)]
    try:
        shape = numpy.broadcast_shapes(*(v.shape for v in arrays))
    except ValueError:
        raise _broadcast_error((condition, value, y)) from None
    if shape != y.shape:
        raise ValueError("Out shape is mismatched")
    if 0 in shape:
        return
    # (scalars packed into the parameters' types as every ElementwiseKernel's are)
    from gpushare_server.kernels._common import cast_scalar
    if not isinstance(condition, numpy.ndarray):
        condition = cast_scalar(condition, numpy.bool_)
    if not isinstance(value, numpy.ndarray):
        value = cast_scalar(value, y.dtype)
    numpy.copyto(y, value, casting="unsafe", where=condition)


def piecewise(x: Any, condlist: Any, funclist: Any) -> Any:
    """See Also: cupy.piecewise (``_functional/piecewise.py``): the result is
    ``zeros(x.shape, x.dtype)``, or ``full(x.shape, funclist[-1], x.dtype)`` given one
    more value than conditions, then each value written where its condition holds by
    CuPy's kernel (see ``_piecewise_kernel``; an array value is cast to ``x``'s dtype
    and taken elementwise, where NumPy assigns it to the selected elements). ``x`` may
    be a host array (CuPy reads only its shape and dtype)."""
    if isinstance(x, HostArray):
        x = x.array
    if numpy.isscalar(condlist):
        condlist = [condlist]
    condlist, funclist, default = piecewise_values(condlist, funclist)
    out = numpy.zeros(x.shape, x.dtype) if default is None else full(x.shape, default,
                                                                       x.dtype)
    for condition, func in zip(condlist, funclist):
        if isinstance(func, numpy.ndarray):
            func = func.astype(x.dtype)
        _piecewise_kernel(condition, func, out)
    return out


def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = None) -> None:
    """See Also: cupy.copyto (``_manipulation/basic.py``): a Python scalar checked by
    NumPy's own copyto into a 0-d array of ``dst``'s dtype (its OverflowError for an
    out-of-range int), a numpy array holding a single element, a NumPy scalar by
    ``numpy.can_cast`` of its value, anything else by its ``dtype`` (a list's
    AttributeError), refusals in CuPy's words; then CuPy's copy kernel."""
    _require_array(dst)
    if isinstance(where, HostArray):
        raise _unsupported(where.array)
    if type(src) in (bool, int, float, complex):
        value = numpy.empty((), dtype=dst.dtype)
        numpy.copyto(value, src, casting=casting)
        src = value
    else:
        if isinstance(src, HostArray):
            src = src.array
            if src.size != 1:
                raise ValueError("non-scalar numpy.ndarray cannot be used for copyto")
            src_dtype = src.dtype
            can_cast = numpy.can_cast(src, dst.dtype, casting)
            src = src.squeeze()[()]
        elif numpy.isscalar(src):
            src_dtype = src  # (CuPy reports the value itself)
            can_cast = numpy.can_cast(src, dst.dtype, casting)
        else:
            src_dtype = src.dtype
            can_cast = numpy.can_cast(src_dtype, dst.dtype, casting)
        if not can_cast:
            raise TypeError(f"Cannot cast {src_dtype} to {dst.dtype} in {casting} casting mode")
        src = cpu_cast.assign(dst, src)  # (a float array into integers: as on a GPU)
    numpy.copyto(dst, src, casting="unsafe", where=True if where is None else where)


def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """See Also: cupy.gradient (``f`` may be any array-like, CuPy converts it)."""
    if isinstance(f, HostArray):
        f = f.array
    for value in varargs:
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    return numpy.gradient(f, *varargs, axis=axis, edge_order=edge_order)


# --- elementwise -----------------------------------------------------------------------

def _int_power(base: Any, exp: Any) -> Any:
    """Integer power with CuPy's kernel for negative exponents: ``1 ** -n == 1``,
    ``(-1) ** -n == ±1``, anything else ``0`` (NumPy raises instead)."""
    b = numpy.asarray(base)
    e = numpy.asarray(exp)
    dt = numpy.result_type(base, exp)
    b, e = numpy.broadcast_arrays(b.astype(dt, copy=False), e.astype(dt, copy=False))
    neg = e < 0
    result = numpy.power(b, numpy.where(neg, 0, e))
    if neg.any():
        odd = (e & 1).astype(bool)
        special = numpy.where(b == 1, 1, numpy.where(b == -1, numpy.where(odd, -1, 1), 0))
        result = numpy.where(neg, special.astype(dt), result)
    return result


class _Ufunc:
    """A NumPy ufunc whose call CuPy computes differently; its methods (``reduce``,
    ``outer``...) and attributes stay NumPy's. ``plain``, when given, says for which
    result dtypes the NumPy ufunc itself computes CuPy's answer (the executor may then
    compute into an operand: ``CpuBackend.inplace``)."""

    def __init__(self, ufunc: numpy.ufunc, call: Callable[..., Any],
                 plain: Callable[[numpy.dtype], bool] | None = None) -> None:
        self._ufunc = ufunc
        self._call = call
        self.plain = plain
        # no __wrapped__: the session unwraps that to reach ufunc methods
        self.__name__ = ufunc.__name__
        self.__doc__ = call.__doc__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = self._call(*args, **kwargs)
        if len(args) <= self._ufunc.nin and kwargs.get("out") is None and \
                self._ufunc.signature is None:  # (matmul's is ``promote_types``': 'q')
            # (new results: CuPy's loops list 'll->l' before 'qq->q', and it takes the
            # first an operand casts to: a longlong's is int64 'l', NumPy's stays 'q')
            results = [numpy.asarray(r) if isinstance(r, numpy.generic) and
                       r.dtype.char in "qQ" else r
                       for r in (result if type(result) is tuple else (result,))]
            for i, r in enumerate(results):
                if type(r) is numpy.ndarray and not r.flags.c_contiguous:
                    results[i] = r = numpy.ascontiguousarray(r)  # (a new C array, as
                    # every CuPy ufunc's output: NumPy's follow the operands' order)
                cpu_cast.cupy_long(r)
            result = tuple(results) if type(result) is tuple else results[0]
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ufunc, name)


def _power(x1: Any, x2: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """See Also: cupy.power (integers to negative integer powers do not raise; complex
    powers are CuPy's ``complex_power``, see ``_complex_power``)."""
    for value in (x1, x2, out):
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    dtype = kwargs.get("dtype")
    if _complex_operand(x1) or _complex_operand(x2) or (
            dtype is not None and numpy.dtype(dtype).kind == "c"):
        return _complex_power_call(x1, x2, **({} if out is None else {"out": out}), **kwargs)
    try:
        return numpy.power(x1, x2, out=out, **kwargs)
    except ValueError as exc:
        if "negative integer powers" not in str(exc) or set(kwargs) - {"order"}:
            raise
    result = _int_power(x1, x2)
    if out is not None:
        out[...] = result
        return out
    return result


power = _Ufunc(numpy.power, _power)


def _true_divide(x1: Any, x2: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """See Also: cupy.true_divide (a complex quotient as CuPy's ``thrust::complex``
    computes it: both operands scaled by ``1 / (|re| + |im|)`` of the divisor, where
    NumPy takes Smith's method; so its last bits are CuPy's, and a division by complex
    zero is NaN, as in CuPy, not NumPy's infinity)."""
    for value in (x1, x2, out):
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    loop = None
    dtype = kwargs.get("dtype")
    if (dtype is not None or _complex_operand(x1) or _complex_operand(x2)) and \
            not set(kwargs) - {"dtype", "casting", "order"}:
        try:  # (only a complex operand, or dtype=, can make the loop complex)
            loop = numpy.dtype(dtype) if dtype is not None else \
                numpy.true_divide.resolve_dtypes(tuple(
                    v.dtype if isinstance(v, (numpy.ndarray, numpy.generic)) else type(v)
                    for v in (x1, x2)) + (None,))[2]
        except (TypeError, ValueError):
            loop = None  # NumPy's call raises it, in CuPy's words
    try:
        if loop is None or loop.kind != "c":
            return numpy.true_divide(x1, x2, out=out, **kwargs)
        result = _thrust_quotient(numpy.asarray(x1, loop), numpy.asarray(x2, loop))
        if out is None:
            return result if result.ndim else result[()]
        numpy.copyto(out, result, casting=kwargs.get("casting", "same_kind"))
        return out
    except TypeError as exc:
        raise ufunc_error(numpy.true_divide, (x1, x2), {**kwargs, "out": out}, exc) from None


def _complex_operand(value: Any) -> bool:
    return type(value) is complex or (
        isinstance(value, (numpy.ndarray, numpy.generic)) and value.dtype.kind == "c")


def _thrust_quotient(a: numpy.ndarray, b: numpy.ndarray) -> numpy.ndarray:
    """``a / b`` for complex arrays of one dtype, in ``thrust::complex``'s steps
    (``cupy/complex/arithmetic.h``; the CPU emulator's kernels take the same header),
    with its sums of products contracted as NVRTC compiles them (``cpu_ftz.fma``: on an
    H200 ``1 / (1+2j)`` is 0.2-0.4j, unfused steps give 0.19999999999999996-...)."""
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    with numpy.errstate(all="ignore"):
        oos = numpy.reciprocal(numpy.abs(br) + numpy.abs(bi))
        ars, ais, brs, bis = ar * oos, ai * oos, br * oos, bi * oos
        oos = numpy.reciprocal(cpu_ftz.fma(brs, brs, bis * bis))
        out = numpy.empty(numpy.broadcast_shapes(a.shape, b.shape), a.dtype)
        out.real = cpu_ftz.fma(ars, brs, ais * bis) * oos
        out.imag = cpu_ftz.fma(ais, brs, -(ars * bis)) * oos
    return out


true_divide = _Ufunc(numpy.true_divide, _true_divide, plain=lambda dtype: dtype.kind != "c")


def _fmod(x1: Any, x2: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """See Also: cupy.fmod (CuPy's integer loops compute ``in1 == 0 ? 0 :
    fmod((double)in0, (double)in1)``: exact up to 32 bits, but 64-bit integers beyond
    2**53 are rounded to doubles first, so their remainders are CuPy's, not NumPy's
    exact ones)."""
    for value in (x1, x2, out):
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    result = numpy.fmod(x1, x2, out=out, **kwargs)  # NumPy's dtypes, checks and errors
    if set(kwargs) - {"dtype", "casting", "order"}:
        return result
    try:
        loop = numpy.fmod.resolve_dtypes(tuple(
            v.dtype if isinstance(v, (numpy.ndarray, numpy.generic)) else type(v)
            for v in (x1, x2)) + (None,), casting="unsafe")[2] \
            if kwargs.get("dtype") is None else numpy.dtype(kwargs["dtype"])
    except (TypeError, ValueError):
        return result
    if loop.kind not in "iu" or loop.itemsize < 8:
        return result
    a = numpy.asarray(x1).astype(loop, copy=False)
    b = numpy.asarray(x2).astype(loop, copy=False)
    with numpy.errstate(all="ignore"):
        exact = numpy.where(b == 0, 0.0, numpy.fmod(a.astype(numpy.float64),
                                                     b.astype(numpy.float64))).astype(loop)
    if out is None:
        return exact if exact.ndim or isinstance(result, numpy.ndarray) else exact[()]
    numpy.copyto(out, exact, casting="unsafe")
    return out


fmod = _Ufunc(numpy.fmod, _fmod, plain=lambda dtype: dtype.kind not in "iu" or dtype.itemsize < 8)


#: the precision CuPy's float ``_floor_divide`` computes each float loop in
#: (``carray.cuh``: float and double overloads; a float16 operand converts to float)
_FLOOR_WIDE = {"e": numpy.float32, "f": numpy.float32, "d": numpy.float64}


def _floor_quotient(a: numpy.ndarray, b: numpy.ndarray) -> numpy.ndarray:
    """``carray.cuh: _floor_divide(x, y)`` for floats: ``floor(x / y)``, the quotient
    rounded first (``1.0 // 0.1`` is 10, where NumPy's fmod-based floor division, as
    Python's, gives 9), in the loop's kernel precision."""
    wide = _FLOOR_WIDE[a.dtype.char]
    return numpy.floor(numpy.true_divide(a.astype(wide, copy=False), b.astype(wide, copy=False)))


def _veltkamp(v: numpy.ndarray) -> tuple:
    c = v * 134217729.0  # 2**27 + 1
    hi = c - (c - v)
    return hi, v - hi


def _fused_remainder(a: numpy.ndarray, q: numpy.ndarray, b: numpy.ndarray) -> numpy.ndarray:
    """``in0 - q * in1`` of CuPy's remainder and divmod kernels as NVRTC compiles it:
    contracted into one FMA (``--fmad=true``, its default), so rounded once, in the
    kernel's precision (float for float16 and float32: there the product and the
    difference are exact in a double; for doubles Dekker's exact product and a
    two-sum give the single rounding)."""
    if a.dtype.char != "d":
        x, y = a.astype(numpy.float64), b.astype(numpy.float64)
        return (x - q.astype(numpy.float64) * y).astype(numpy.float32)
    x, y, q = numpy.broadcast_arrays(a, b, q)
    p = q * y
    qh, ql = _veltkamp(q)
    yh, yl = _veltkamp(y)
    e = ((qh * yh - p) + qh * yl + ql * yh) + ql * yl  # q * y == p + e exactly
    s = x - p
    bb = s - x
    t = (x - (s - bb)) + (-p - bb)  # x - p == s + t exactly
    r = s + (t - e)
    # (an infinite or NaN quotient or operand: the product is no finite sum, and the
    # fused result is x - p's own)
    return numpy.where(numpy.isfinite(e) & numpy.isfinite(t), r, s)


def _floor_divide_values(a: numpy.ndarray, b: numpy.ndarray) -> tuple:
    return (_floor_quotient(a, b),)


def _remainder_values(a: numpy.ndarray, b: numpy.ndarray) -> tuple:
    # (``_routines_math.pyx``: ``out0 = in0 - _floor_divide(in0, in1) * in1``)
    return (_fused_remainder(a, _floor_quotient(a, b), b),)


def _divmod_values(a: numpy.ndarray, b: numpy.ndarray) -> tuple:
    # (``core.pyx: _divmod_float``: ``out0_type a = _floor_divide(in0, in1); out0 = a;
    # out1 = in0 - a * in1``: float16's quotient is rounded to float16 first)
    q = _floor_quotient(a, b).astype(a.dtype)
    return q, _fused_remainder(a, q, b)


def _kernel_values(uf: numpy.ufunc, loops: str, values: Callable[..., tuple]
                   ) -> Callable[..., Any]:
    """A binary ufunc ``uf`` whose CuPy kernel computes other values than NumPy's for
    its loops ``loops`` (type chars): NumPy's call (its dtypes, checks and outputs),
    with the kernel's values (``values(a, b)``, the operands in the loop's dtype)
    written over its results for those loops."""
    def call(x1: Any, x2: Any, /, *args: Any, **kwargs: Any) -> Any:
        for value in (x1, x2, *args, kwargs.get("out")):
            if isinstance(value, HostArray):
                raise _unsupported(value.array)
        got = None
        if not set(kwargs) - {"out", "dtype", "casting", "order"}:
            try:
                loop = numpy.dtype(kwargs["dtype"]) if kwargs.get("dtype") is not None \
                    else uf.resolve_dtypes(tuple(
                        v.dtype if isinstance(v, (numpy.ndarray, numpy.generic)) else type(v)
                        for v in (x1, x2)) + (None,) * uf.nout, casting="unsafe")[0]
            except (TypeError, ValueError):
                loop = None  # (NumPy's call raises it)
            if loop is not None and loop.char in loops:
                with numpy.errstate(all="ignore"):  # (before NumPy's call: out= may be
                    # an operand)
                    got = values(numpy.asarray(x1).astype(loop), numpy.asarray(x2).astype(loop))
        try:
            result = uf(x1, x2, *args, **kwargs)
        except TypeError as exc:
            raise ufunc_error(uf, (x1, x2), kwargs, exc) from None
        if got is None:
            return result
        results = result if uf.nout > 1 else (result,)
        fixed = []
        for r, v in zip(results, got):
            if isinstance(r, numpy.ndarray):
                if cpu_cast.changes(numpy.asarray(v).dtype, r.dtype):  # (out= of integers,
                    v = cpu_cast.convert(numpy.asarray(v), r.dtype)  # casting='unsafe')
                numpy.copyto(r, v, casting="unsafe")
                fixed.append(r)
            else:  # (0-d operands: NumPy's scalar)
                fixed.append(numpy.asarray(v).astype(r.dtype)[()])
        return tuple(fixed) if uf.nout > 1 else fixed[0]
    call.__doc__ = f"See Also\n--------\ncupy.{uf.__name__}"
    return call


# (``floor_divide``, ``remainder``, ``divmod``: CuPy's integer kernels give NumPy's
# values, 0 for a zero divisor)
floor_divide = _Ufunc(numpy.floor_divide, _kernel_values(numpy.floor_divide, "efd",
                                                         _floor_divide_values),
                      plain=lambda dtype: dtype.kind != "f")
remainder = _Ufunc(numpy.remainder, _kernel_values(numpy.remainder, "efd", _remainder_values),
                   plain=lambda dtype: dtype.kind != "f")
divmod_ = _Ufunc(numpy.divmod, _kernel_values(numpy.divmod, "efd", _divmod_values))


def _complex_power(a: numpy.ndarray, b: numpy.ndarray) -> tuple:
    # (``_routines_math.pyx: complex_power``: ``in1 == T(0) ? T(1) : pow(in0, in1)``,
    # thrust's ``pow`` being ``exp(log(z) * w)`` (``complex/cpow.h``): z ** 3 is not
    # NumPy's repeated product, (1+1j) ** 3 not exactly -2+2j)
    result = numpy.exp(numpy.log(a) * b)
    return (numpy.where(b == 0, a.dtype.type(1), result),)


_complex_power_call = _kernel_values(numpy.power, "FD", _complex_power)


def _ldexp(x1: Any, x2: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """See Also: cupy.ldexp (``_math/floating.py``: loops ``ei fi el fl di dq``: a Python
    int exponent takes an ``int32`` loop, so one beyond it is refused as it is packed;
    an int64 exponent array's values reach CUDA's ``ldexp(x, int)`` converted to int,
    wrapping, where NumPy's saturate)."""
    for value in (x1, x2, out):
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    if type(x2) is int and not -(1 << 31) <= x2 < (1 << 31):
        raise OverflowError(f"Python integer {x2} out of bounds for int32")
    if isinstance(x2, numpy.ndarray) and x2.dtype.kind == "i" and x2.dtype.itemsize == 8 \
            and kwargs.get("dtype") is None:
        # (x1's loop is ``el``/``fl``/``dq``: the exponent wraps to int, NumPy's
        # dtypes and checks kept by the int64 call on the wrapped values)
        x2 = x2.astype(numpy.int32).astype(x2.dtype)
    try:
        return numpy.ldexp(x1, x2, **({} if out is None else {"out": out}), **kwargs)
    except TypeError as exc:
        raise ufunc_error(numpy.ldexp, (x1, x2), kwargs, exc) from None


ldexp = _Ufunc(numpy.ldexp, _ldexp)


def _nextafter_half(a: numpy.ndarray, b: numpy.ndarray) -> tuple:
    # (``float16.cuh``: float16's own nextafter, NumPy's steps but ``!x.isfinite() ||
    # y.isnan()`` gives NaN: an infinite x too, where NumPy steps to 65504)
    return (numpy.where(numpy.isinf(a), numpy.float16(numpy.nan), numpy.nextafter(a, b)),)


nextafter = _Ufunc(numpy.nextafter, _kernel_values(numpy.nextafter, "e", _nextafter_half),
                   plain=lambda dtype: dtype.char != "e")


def _complex_max(x: numpy.ndarray, y: numpy.ndarray, larger: bool) -> numpy.ndarray:
    """``complex.cuh``'s ``max``/``min`` of complex values: a NaN operand gives the
    other one, else ordered by real then imaginary part, ties to ``y`` (``min``) or
    ``x`` (``max``)."""
    first, second = (y, x) if larger else (x, y)
    pick = numpy.where(x.imag < y.imag, first, second)
    pick = numpy.where(x.real > y.real, second, pick)
    pick = numpy.where(x.real < y.real, first, pick)
    pick = numpy.where(numpy.isnan(y), x, pick)
    return numpy.where(numpy.isnan(x), y, pick)


def _nan_or(extremum: numpy.ndarray, x: numpy.ndarray, y: numpy.ndarray) -> numpy.ndarray:
    # (``_math/misc.py: _float_maximum``: ``(isnan(in0) | isnan(in1)) ?
    # out0_type(NAN) : out0_type(max(in0, in1))``: a complex NaN is NaN+0j, where NumPy
    # gives the NaN operand)
    return numpy.where(numpy.isnan(x) | numpy.isnan(y), extremum.dtype.type(numpy.nan),
                       extremum)


maximum = _Ufunc(numpy.maximum, _kernel_values(
    numpy.maximum, "FD", lambda x, y: (_nan_or(_complex_max(x, y, True), x, y),)),
    plain=lambda dtype: dtype.kind != "c")
minimum = _Ufunc(numpy.minimum, _kernel_values(
    numpy.minimum, "FD", lambda x, y: (_nan_or(_complex_max(x, y, False), x, y),)),
    plain=lambda dtype: dtype.kind != "c")
# (``fmax``/``fmin``'s complex loops are ``max``/``min`` themselves: both NaN gives y)
fmax = _Ufunc(numpy.fmax, _kernel_values(numpy.fmax, "FD",
                                         lambda x, y: (_complex_max(x, y, True),)),
              plain=lambda dtype: dtype.kind != "c")
fmin = _Ufunc(numpy.fmin, _kernel_values(numpy.fmin, "FD",
                                         lambda x, y: (_complex_max(x, y, False),)),
              plain=lambda dtype: dtype.kind != "c")


#: ``_routines_math.pyx: _angle``/``_angle_deg``'s loops
_ANGLE_LOOPS = ("?d", "ee", "ff", "dd", "Ff", "Dd")


def angle(z: Any, deg: bool = False) -> numpy.ndarray:
    """See Also: cupy.angle (``_math/arithmetic.py``: the ufunc ``_core.angle``, or
    ``angle_deg``): a real operand's angle is ``in0 >= 0 ? 0.0 : M_PI`` (-0.0 gives 0
    and NaN gives pi, where NumPy's ``arctan2(0, x)`` gives pi and NaN; a bool's is a
    float64 0), a complex one's ``arg(in0)``, times ``180.0 / M_PI`` in double
    precision for degrees."""
    (x,), dtype = _cupy_ufunc_loop("cupy_angle_deg" if deg else "cupy_angle",
                                   _ANGLE_LOOPS, (z,))
    with numpy.errstate(all="ignore"):
        if x.dtype.kind == "c":
            result = numpy.arctan2(x.imag, x.real)
            if deg:
                result = result.astype(numpy.float64) * (180.0 / numpy.pi)
        else:
            result = numpy.where(x >= 0, 0.0, 180.0 if deg else numpy.pi)
    return _c_order(numpy.asarray(result).astype(dtype, copy=False))


def _unary_kernel(name: str, loops: tuple, compute: Callable[..., Any]) -> Callable[..., Any]:
    """A one-operand CuPy ufunc of the CPU backend's own (NumPy's namesake is no ufunc,
    or computes otherwise): CuPy's loop for the operand (``_cupy_ufunc_loop``; with
    ``dtype=``, the first loop giving it, the operand converted), ``compute(x)`` on
    the operand in the loop's input type, the result in its output type, ``out=``
    as CuPy's (``_ufunc_out``), ``_where=`` as CuPy's (``out``'s other elements kept;
    without ``out``, the new array's are undefined in CuPy)."""
    def call(x: Any, /, out: Any = None, *, dtype: Any = None,
             casting: Any = None, _where: Any = None) -> Any:
        if _where is not None:
            from gpushare.errors import CompileException

            from .cpu import _cupy_where  # (CuPy's checks of the mask)
            where = _cupy_where({"_where": _where})["where"]
            kept = None if out is None else numpy.array(out, copy=True)
            try:
                result = call(x, out, dtype=dtype, casting=casting)
            except CompileException:  # (NVRTC's line counts the mask's)
                raise _complex_compile_error(call.__name__, numpy.complex128,
                                             where=True) from None
            if kept is not None:
                numpy.copyto(out, kept, where=numpy.logical_not(where))
            return result
        if dtype is None:
            (v,), kind = _cupy_ufunc_loop(name, loops, (x,))
        else:
            dtype = numpy.dtype(dtype)
            loop = next((lp for lp in loops if lp[-1] == dtype.char), None)
            if loop is None:
                raise TypeError(f"Wrong type ({dtype}) of arguments for {name}")
            (v,), kind = _cupy_ufunc_loop(name, (loop,), (numpy.asarray(x).astype(loop[0]),))
        with numpy.errstate(all="ignore"):
            result = numpy.asarray(compute(v)).astype(kind, copy=False)
        return _ufunc_out(_c_order(result), out, (x,))
    call.__name__ = name[len("cupy_"):]
    call.__doc__ = f"See Also\n--------\ncupy.{call.__name__}"
    return call


#: CuPy's ufuncs made by ``_math/ufunc.py: create_math_ufunc`` (``support_complex=True``,
#: so 'FF->F' and 'DD->D' loops) whose CUDA function has no complex overload: a complex
#: operand (or ``dtype=``) picks a complex loop, and NVRTC refuses the kernel
#: (``out0 = atan2(in0, in1)`` of ``complex<double>``), where NumPy has no such loop
_COMPLEX_UNCOMPILED = {"arctan2": "atan2", "hypot": "hypot", "copysign": "copysign",
                       "nextafter": "nextafter", "i0": "cyl_bessel_i0"}


def nvrtc_typename(dtype: Any) -> str:
    """A dtype's C++ type as NVRTC 13 names it in a diagnostic (as an H200 printed them):
    thrust's inline namespace names CuPy's bundled CCCL, 3.1.2, and the architecture
    (SM_900 on the H200, the emulator's sm_80 here); ``bool`` is CUDA's ``__nv_bool``."""
    from gpushare.structured import get_typename
    name = get_typename(numpy.dtype(dtype))
    if name == "bool":
        return "__nv_bool"
    return name.replace("thrust::", "thrust::THRUST_300102_SM_800_NS::")


def nvrtc_refusal(kernel: str, line: int, error: str, excerpt: str, column: int,
                  notes: tuple = ()) -> Exception:
    """The ``CompileException`` NVRTC's one ``error`` in CuPy's kernel ``kernel`` gives:
    at ``line`` of CuPy's temporary ``<sha1>.cubin.cu`` (``_build.nvrtc_path``), the
    source line ``excerpt`` with a caret under its ``column``, NVRTC 13's ``Note``s, and
    the closing line (as an H200 printed them: the GPU run's probe)."""
    from gpushare.errors import CompileException

    from ..kernels import _build
    path = _build.nvrtc_path(f"{kernel}\0{error}")
    text = _build.nvrtc_diagnostic(path, line, "error", error, excerpt, column)
    if notes:
        text = text[:-1] + "".join(f"Note #3326-D: {n}\n" for n in notes) + "\n"
    return CompileException(text + _build.nvrtc_closing(path), "", kernel, ())


def _complex_compile_error(name: str, loop: Any, scalars: tuple = (),
                           where: bool = False) -> Exception:
    """The ``CompileException`` of CuPy's ufunc ``name`` (a ``_COMPLEX_UNCOMPILED`` key,
    or ``rsqrt``) for its complex ``loop`` (complex64's or complex128's), as
    ``_kernel.pyx: _get_ufunc_kernel`` writes the kernel: a typedef per operand, a line
    ``const in<k>_type in<k>(...)`` per array input (a scalar input, ``scalars[k]``, is
    a ``const`` kernel parameter of the loop's type instead: NVRTC names that type), one
    for ``where=``, one for the output, then the operation (line 17 for one array
    input, 19 for two, 18 for an array and a scalar); NVRTC notes each overload it
    tried (an H200's words)."""
    function = _COMPLEX_UNCOMPILED.get(name, name)
    nin = 1 if name in ("i0", "rsqrt") else 2
    scalars = tuple(scalars) + (False,) * (nin - len(scalars))
    overloads = [("double",) * nin, ("float",) * nin]
    if name == "copysign":  # (CUDA's mixed overloads too)
        overloads += [("double", "float"), ("float", "double")]
    args = ", ".join(f"in{k}" for k in range(nin))
    scalar_type = nvrtc_typename(loop)
    types = ", ".join(f"const {scalar_type}" if scalars[k] else f"const in{k}_type"
                      for k in range(nin))
    # (13 lines of template and preamble, the typedefs of nin inputs and one output,
    # the array inputs' lines, where's, the output's declaration)
    line = 13 + (nin + 1) + scalars.count(False) + int(where) + 1
    return nvrtc_refusal(
        _UFUNC_NAMES.get(name, "cupyx_rsqrt" if name == "rsqrt" else "cupy_" + name),
        line,
        f'no instance of overloaded function "{function}" matches the argument list\n'
        f'            argument types are: ({types})',
        f"out0 = {function}({args})", 7,
        tuple(f'function "{function}({", ".join(o)})" does not match because argument #1 '
              "does not match parameter" for o in overloads))


def _i0(x: numpy.ndarray) -> numpy.ndarray:
    # (``_math/special.py``: ``cyl_bessel_i0(in0)``, float16 as float: each in at least
    # single precision, where NumPy's Chebyshev series runs in the operand's own type,
    # float32's i0(0) 0.99999994; CUDA's is within a few ulps of the exact value)
    if x.dtype.kind == "c":  # (CuPy's F/D loops: cyl_bessel_i0 has no complex
        raise _complex_compile_error("i0", x.dtype)  # overload)
    return numpy.i0(x.astype(numpy.float64))


def _sinpi(x: numpy.ndarray) -> numpy.ndarray:
    """sin(pi x) with the argument reduced exactly (CUDA's ``sinpi``: 0 at the
    integers, +-1 at the half integers)."""
    r = x - 2.0 * numpy.rint(x / 2.0)  # (exact: r in [-1, 1])
    a = numpy.abs(r)
    s = numpy.where(a <= 0.25, numpy.sin(numpy.pi * a),
                    numpy.where(a <= 0.75, numpy.cos(numpy.pi * (a - 0.5)),
                                numpy.sin(numpy.pi * (1.0 - a))))
    return numpy.copysign(s, r)


def _sinc(x: numpy.ndarray) -> numpy.ndarray:
    # (``_math/special.py``: ``abs(in0) > 1e-9 ? sinpi(in0) / (M_PI * in0) : 1``, the
    # quotient in double precision: sinc of an integer is 0, where NumPy's
    # sin(pi x) / (pi x) is 3.9e-17 at 1; the complex loops ``(in0_type) M_PI * in0``,
    # sin(pi_in0) / pi_in0)
    if x.dtype.kind == "c":
        pi_x = x.dtype.type(numpy.pi) * x
        return numpy.where(numpy.abs(x) > 1e-9, numpy.sin(pi_x) / pi_x, x.dtype.type(1))
    d = x.astype(numpy.float64)
    return numpy.where(numpy.abs(d) > 1e-9, _sinpi(d) / (numpy.pi * d), 1.0)


i0 = _unary_kernel(ufunc_loops.CUPY["i0"][0], ufunc_loops.compact(ufunc_loops.CUPY["i0"][1]),
                   _i0)
sinc = _unary_kernel(ufunc_loops.CUPY["sinc"][0],
                     ufunc_loops.compact(ufunc_loops.CUPY["sinc"][1]), _sinc)


def _absolute(x: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """See Also: cupy.absolute (a complex magnitude is ``hypot(re, im)``, as
    ``thrust::abs`` and the CPU emulator's kernels compute it; NumPy's own loop differs
    from it in the last bit for about a third of all values)."""
    for value in (x, out):
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    try:
        if not (isinstance(x, (numpy.ndarray, numpy.complexfloating)) and
                x.dtype.kind == "c") or set(kwargs) - {"casting", "order"}:
            return numpy.absolute(x, out=out, **kwargs)
        result = numpy.hypot(x.real, x.imag)
        if out is None:
            return result
        numpy.copyto(out, result, casting=kwargs.get("casting", "same_kind"))
        return out
    except TypeError as exc:
        raise ufunc_error(numpy.absolute, (x,), kwargs, exc) from None


absolute = _Ufunc(numpy.absolute, _absolute, plain=lambda dtype: dtype.kind != "c")
matmul = _Ufunc(numpy.matmul, _matmul)


def _reciprocal(x: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """See Also: cupy.reciprocal (CuPy's integer loops are ``in0 == 0 ? 0 : (1 / in0)``:
    the reciprocal of an integer 0 is 0, where NumPy's C division gives INT_MIN; its
    complex loops ``in0_type(1) / in0``, thrust's quotient: see ``_thrust_quotient``)."""
    for value in (x, out):
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    if _complex_operand(x) and not set(kwargs) - {"order"}:
        x = numpy.asarray(x)
        result = _thrust_quotient(numpy.ones((), x.dtype), x)
        if out is None:
            return result if result.ndim else result[()]
        numpy.copyto(out, result, casting="same_kind")
        return out
    try:
        result = numpy.reciprocal(x, out=out, **kwargs)
    except TypeError as exc:
        raise ufunc_error(numpy.reciprocal, (x,), kwargs, exc) from None
    arr = numpy.asarray(x)
    if arr.dtype.kind not in "biu":
        return result
    dtype = kwargs.get("dtype")
    signature = kwargs.get("signature")
    if dtype is not None or signature is not None:  # the loop that dtype= picks
        loop = numpy.reciprocal.resolve_dtypes(
            (arr.dtype, None), signature=(None, numpy.dtype(dtype if dtype is not None
                                                            else signature[-1])))[0]
    else:
        loop = numpy.reciprocal.resolve_dtypes((arr.dtype, None))[0]
    if loop.kind not in "biu":
        return result
    zero = arr == 0
    where = kwargs.get("where", True)
    if where is not True:
        zero = zero & numpy.asarray(where)
    if isinstance(result, numpy.ndarray):
        numpy.copyto(result, 0, where=zero)
        return result
    return result.dtype.type(0) if zero.any() else result


reciprocal = _Ufunc(numpy.reciprocal, _reciprocal, plain=lambda dtype: dtype.kind == "f")


def _sign(x: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """See Also: cupy.sign (CuPy's first loop is ``b->b``, which a bool operand casts to
    safely: ``sign`` of bools is int8, 1 and 0; NumPy has no loop for them)."""
    for value in (x, out):
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    if isinstance(x, (numpy.ndarray, numpy.bool_)) and x.dtype == numpy.bool_ and \
            kwargs.get("dtype") is None and kwargs.get("signature") is None:
        x = x.astype(numpy.int8)
    if _complex_operand(x) and not set(kwargs) - {"order"}:
        # (CuPy's complex loop, ``_math/misc.py: _complex_sign``: ``in0 / abs(in0)``,
        # ``abs`` being ``hypot`` and the quotient by a real ``(re / h, im / h)``
        # (``cupy/complex/arithmetic.h``); 0 where ``abs`` is 0. No special case for
        # infinities: ``sign(inf + 0j)`` is ``nan + 0j``, NumPy's is ``1 + 0j``)
        x = numpy.asarray(x)
        with numpy.errstate(all="ignore"):
            h = numpy.hypot(x.real, x.imag)
            result = numpy.empty(x.shape, x.dtype)
            result.real = x.real / h
            result.imag = x.imag / h
        result[h == 0] = 0
        if out is None:
            return result if result.ndim else result[()]
        numpy.copyto(out, result, casting="same_kind")
        return out
    try:
        return numpy.sign(x, out=out, **kwargs)
    except TypeError as exc:
        raise ufunc_error(numpy.sign, (x,), kwargs, exc) from None


sign = _Ufunc(numpy.sign, _sign, plain=lambda dtype: dtype.kind != "c")


def _rsqrt(x: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """See Also: cupyx.rsqrt (``1 / sqrt(x)``; CuPy's loops are ``e f d F D``, which
    ``numpy.sqrt`` picks for every input CuPy accepts)."""
    for value in (x, out):
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    loop = numpy.sqrt.resolve_dtypes((numpy.asarray(x).dtype, None)) \
        if kwargs.get("dtype") is None else (numpy.dtype(kwargs["dtype"]),)
    if loop[0].kind == "c":  # (its F/D loops' ``out0 = rsqrt(in0)``: CUDA's rsqrt has no
        raise _complex_compile_error("rsqrt", loop[0])  # complex overload, as on an H200)
    result = numpy.sqrt(x, out=out, **kwargs)
    if not isinstance(result, numpy.ndarray):  # a 0-d operand: NumPy's scalar
        return result.dtype.type(1) / result
    return numpy.divide(1, result, out=result, casting="unsafe")


rsqrt = _Ufunc(numpy.sqrt, _rsqrt)


def _real_logical(ufunc: numpy.ufunc) -> _Ufunc:
    """``logical_and``/``or``/``xor``/``not``: CuPy's loops are bool, integer and real
    float only (``_routines_logic.pyx: create_comparison``, ``_logic/ops.py``), so a
    complex operand (an array or a Python complex) finds none: ``Wrong type``."""
    name = "cupy_" + ufunc.__name__

    def call(*args: Any, **kwargs: Any) -> Any:
        for value in (*args, kwargs.get("out")):
            if isinstance(value, HostArray):
                raise _unsupported(value.array)
        types = tuple(_cupy_in_type(v) for v in args[:ufunc.nin])
        if kwargs.get("dtype") is None and any(t is not None and t.kind == "c"
                                               for t in types):
            raise TypeError("Wrong type (%s) of arguments for %s" % (types, name))
        try:
            return ufunc(*args, **kwargs)
        except TypeError as exc:
            raise ufunc_error(ufunc, args, kwargs, exc) from None
    call.__doc__ = f"See Also\n--------\ncupy.{ufunc.__name__}"
    return _Ufunc(ufunc, call)


def _comparison(ufunc: numpy.ufunc) -> _Ufunc:
    """Comparisons of bool arrays with Python ints beyond int64: CuPy compares in
    uint64 (NumPy picks int64 and raises OverflowError)."""
    def call(x1: Any, x2: Any, /, *args: Any, **kwargs: Any) -> Any:
        for value in (x1, x2):
            if isinstance(value, HostArray):
                raise _unsupported(value.array)
        try:
            return ufunc(x1, x2, *args, **kwargs)
        except TypeError:  # (NumPy's ufuncs have no void loop: CuPy's VV loop)
            if ufunc not in (numpy.equal, numpy.not_equal) or \
                    not all(isinstance(v, numpy.ndarray) and v.dtype.kind == "V"
                            for v in (x1, x2)):
                raise
            return structured.compare(ufunc is numpy.not_equal, x1, x2, *args, **kwargs)
        except OverflowError:
            big = [v for v in (x1, x2) if type(v) is int and v > numpy.iinfo(numpy.int64).max]
            arrays = [v for v in (x1, x2) if isinstance(v, numpy.ndarray)]
            if not big or not arrays or arrays[0].dtype != numpy.bool_:
                raise
            cast = [v.astype(numpy.uint64) if isinstance(v, numpy.ndarray) else v
                    for v in (x1, x2)]
            return ufunc(*cast, *args, **kwargs)
    call.__doc__ = f"See Also\n--------\ncupy.{ufunc.__name__}"
    return _Ufunc(ufunc, call)


#: NumPy ufuncs whose CuPy kernel has another name than ``cupy_<numpy name>``
_UFUNC_NAMES = {"divide": "cupy_true_divide"}
#: CuPy's own messages for the loops it refuses (``_routines_math.pyx``)
_BOOL_ERRORS = {
    "subtract": "cupy boolean subtract, the `-` operator, is deprecated, use the "
                "bitwise_xor, the `^` operator, or the logical_xor function instead.",
    "negative": "The cupy boolean negative, the `-` operator, is not supported, use the "
                "`~` operator or the logical_not function instead.",
    "positive": "The cupy boolean positive, the `+` operator, is not supported."}


def _scalar_operands(values: tuple) -> tuple:
    """Which of a ufunc's operands CuPy passes as scalars (``_kernel.pyx``: a Python or
    NumPy scalar is a ``CScalar`` kernel parameter; a device array, 0-d too, is not)."""
    return tuple(not isinstance(v, numpy.ndarray) for v in values)


def _cupy_in_type(value: Any) -> Any:
    """The dtype CuPy's ``guess_routine`` lists for an operand (``_scalar.pyx``:
    ``numpy_dtype_from_pyscalar`` for Python scalars), None where it has none."""
    if isinstance(value, (numpy.ndarray, numpy.generic)):
        return value.dtype
    return ufunc_loops.scalar_dtype(value)


def ufunc_error(uf: numpy.ufunc, args: tuple, kwargs: dict,
                exc: BaseException) -> BaseException:
    """The exception CuPy raises where ``uf(*args, **kwargs)`` raised NumPy's ``exc``
    (``exc`` itself where this cannot tell): ``_kernel.pyx``'s ``Wrong type (<the
    operands' dtypes, or dtype=>) of arguments for cupy_<name>`` for a missing loop; its
    ``Cannot cast output operand from <loop type> to <out's dtype> according to the rule
    '<casting>'`` (a plain TypeError: ``_dtype.pyx: _raise_if_invalid_cast``); the boolean
    ``subtract``/``negative`` refusals of ``_routines_math.pyx``. Called on the error
    path of the CPU backend's ufuncs only (``_ufunc_value_error`` words the others)."""
    if not isinstance(exc, TypeError):
        return exc
    if getattr(exc, "out_i", None) is not None and hasattr(exc, "to"):  # (NumPy's
        # _UFuncOutputCastingError)
        # (CuPy checks an output's shape before its cast: ``_get_out_args_from_optionals``;
        # the GPU: ``int8 (3, 1) -= float64 (3, 4)`` is ``Out shape is mismatched``)
        outs = tuple(args[uf.nin:])
        if not outs and kwargs.get("out") is not None:
            outs = kwargs["out"] if isinstance(kwargs["out"], tuple) else (kwargs["out"],)
        try:
            shape = numpy.broadcast_shapes(*(numpy.shape(v) for v in args[:uf.nin]),
                                           *(o.shape for o in outs if o is not None))
        except (ValueError, TypeError):
            shape = None
        if shape is not None and any(o is not None and numpy.shape(o) != shape
                                     for o in outs):
            return ValueError("Out shape is mismatched")
        return TypeError(f"Cannot cast output operand from {exc.from_!r} to {exc.to!r} "
                         f"according to the rule '{exc.casting}'")
    message = str(exc)
    if uf.__name__ in _BOOL_ERRORS and message.startswith(("numpy boolean", "The numpy "
                                                           "boolean")):
        return TypeError(_BOOL_ERRORS[uf.__name__])
    if uf.__name__ == "positive" and kwargs.get("dtype") is None and \
            _cupy_in_type(args[0]) == numpy.bool_:  # (NumPy has no bool loop at all)
        return TypeError(_BOOL_ERRORS["positive"])
    if uf.__name__ in ("gcd", "lcm") and kwargs.get("dtype") is None and \
            all(_cupy_in_type(v) == numpy.bool_ for v in args[:2]):
        # (``_math/rational.py``: the ``??->?`` loop's own refusal)
        return TypeError(f"{uf.__name__} cannot be computed with boolean arrays")
    if not (message.startswith(f"ufunc '{uf.__name__}' not supported for the input types")
            or message.startswith(f"ufunc '{uf.__name__}' did not contain a loop with "
                                  "signature matching types")
            or message.startswith("No loop matching the specified signature")):
        return exc
    name = _UFUNC_NAMES.get(uf.__name__, "cupy_" + uf.__name__)
    where = kwargs.get("where", kwargs.get("_where")) is not None  # (NumPy's, or CuPy's)
    dtype = kwargs.get("dtype")
    if dtype is not None:
        try:
            if uf.__name__ in _COMPLEX_UNCOMPILED and numpy.dtype(dtype).kind == "c":
                return _complex_compile_error(  # (its complex loop)
                    uf.__name__, dtype, _scalar_operands(args[:uf.nin]),
                    where)
            return TypeError(f"Wrong type ({numpy.dtype(dtype)}) of arguments for {name}")
        except TypeError:
            return exc
    in_types = tuple(_cupy_in_type(v) for v in args[:uf.nin])
    if len(in_types) < uf.nin or any(t is None for t in in_types):
        return exc
    if uf.__name__ in _COMPLEX_UNCOMPILED and any(t.kind == "c" for t in in_types):
        # (the complex loop: complex64's where the operands promote to it, a Python
        # complex weak as in CuPy's NEP 50 resolution)
        try:
            loop = numpy.result_type(*(v if isinstance(v, (int, float, complex)) and
                                       not isinstance(v, bool) else t
                                       for v, t in zip(args[:uf.nin], in_types)))
        except TypeError:
            loop = numpy.dtype(numpy.complex128)
        return _complex_compile_error(uf.__name__, loop, _scalar_operands(args[:uf.nin]),
                                      where)
    return TypeError(f"Wrong type ({in_types}) of arguments for {name}")


_INT64_MIN = -(1 << 63)


def _ufunc_value_error(uf: Any, args: tuple, kwargs: dict,
                       exc: BaseException) -> BaseException:
    """CuPy's ``ufunc.__call__`` errors for NumPy's ValueError or OverflowError ``exc``:
    a Python int beyond 64 bits is refused as it is packed (``_scalar.CScalar``:
    uint64 from 2**63 up, else int64), before any loop; the operands and the given
    outputs broadcast together (``internal._broadcast_core``'s words: shapes as
    tuples, a scalar ``()``), and the outputs must have that shape (``'Out shape is
    mismatched'``)."""
    nin = getattr(uf, "nin", None)
    if nin is None:
        return exc
    inputs = args[:nin]
    if isinstance(exc, OverflowError):
        for value in inputs:
            if type(value) is int and not _INT64_MIN <= value < (1 << 64):
                dtype = "uint64" if value > 0 else "int64"
                return OverflowError(f"Python integer {value} out of bounds for {dtype}")
        return exc
    message = str(exc)
    if not isinstance(exc, ValueError) or not message.startswith((
            "operands could not be broadcast together", "non-broadcastable output operand")):
        return exc
    out = kwargs.get("out")
    outs = list(args[nin:]) + list(out if isinstance(out, tuple) else (out,))
    operands = list(inputs) + [o for o in outs if isinstance(o, numpy.ndarray)]
    try:
        numpy.broadcast_shapes(*(v.shape for v in operands if isinstance(v, numpy.ndarray)))
    except ValueError:
        return _broadcast_error(operands)
    return ValueError("Out shape is mismatched")


def _einsum_sizes(operands: tuple) -> None:
    """CuPy's check that a label has one size in every operand (1 broadcasting), in its
    words (``cupy/linalg/_einsum.py``); a label NumPy made of an ellipsis, and every
    other malformation, is left to NumPy's error."""
    try:
        from numpy._core.einsumfunc import _parse_einsum_input
        inputs, _, arrays = _parse_einsum_input(list(operands))
    except Exception:  # noqa: BLE001 - NumPy's own call raises it
        return
    sizes: dict = {}
    for idx, (sub, arr) in enumerate(zip(inputs.split(","), arrays)):
        shape = numpy.shape(arr)
        if len(sub) != len(shape):
            return
        for label, dim in zip(sub, shape):
            old = sizes.get(label)
            if old is None or old == 1:
                sizes[label] = dim
            elif dim not in (1, old):
                if label not in operands[0]:
                    return
                raise ValueError("Size of label '%s' for operand %d (%d) does not match "
                                 "previous terms (%d)." % (label, idx, dim, old))


def einsum(*operands: Any, **kwargs: Any) -> Any:
    """See Also: cupy.einsum (sublists may be numpy arrays of ints)."""
    if operands and not isinstance(operands[0], str):
        # interleaved form: operand, sublist, operand, sublist, ..., [output]
        operands = tuple(o.array.tolist() if isinstance(o, HostArray) and i % 2 else o
                         for i, o in enumerate(operands))
    for value in operands:
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
    # CuPy's keywords: dtype and optimize (cupy/linalg/_einsum.py: "out, order, and
    # casting options are not supported")
    dtype = kwargs.pop("dtype", None)
    optimize = kwargs.pop("optimize", False)
    if kwargs:
        raise TypeError("Did not understand the following kwargs: %s" % list(kwargs.keys()))
    if operands and isinstance(operands[0], str):
        _einsum_sizes(operands)
    # the operands (the subscripts and sublists aside): arrays and scalars, a scalar as
    # the array CuPy makes of it (``cupy.result_type`` of them all: 3 is int64's)
    tensors = [o for o in operands
               if isinstance(o, (numpy.ndarray, numpy.generic, int, float, complex))]
    arrays = [o for o in tensors if isinstance(o, numpy.ndarray)]
    if not arrays:
        return numpy.einsum(*operands, dtype=dtype, optimize=optimize)
    dtype = numpy.result_type(*(numpy.asarray(o) for o in tensors)) if dtype is None \
        else numpy.dtype(dtype)
    if len(tensors) == 1:
        # one operand: without a sum CuPy returns a view (of the operand's dtype, dtype=
        # notwithstanding); a sum is computed in the result's dtype (``sum(dtype=)``)
        result = numpy.einsum(*operands, optimize=optimize)
        if result.dtype == dtype or numpy.shares_memory(result, arrays[0]):
            return result
        return numpy.einsum(*operands, dtype=dtype, casting="unsafe", optimize=optimize)
    # CuPy casts the operands of a contraction to the result's dtype first (unsafely), so
    # an optimized path's pairwise products do not overflow a small integer type on the
    # way (NumPy's compute each pair in the pair's own type)
    operands = tuple(o.astype(dtype, copy=False) if isinstance(o, numpy.ndarray) else o
                     for o in operands)
    return numpy.einsum(*operands, optimize=optimize)


def unique_values(x: Any) -> Any:
    """CuPy's ``unique_values`` is ``unique(x, equal_nan=False)``: sorted (NumPy 2.3's
    comes in its hash table's order).

    See Also
    --------
    cupy.unique_values
    """
    return numpy.unique(x, equal_nan=False)


def _digitize_search(bins: numpy.ndarray, x: numpy.ndarray, right_side: bool,
                     assume_increasing: bool = False) -> Any:
    """CuPy's ``_searchsorted_kernel`` with ``assume_increasing=False``
    (cupy/_sorting/search.py), element by element as arrays: increasing or decreasing bins
    decided by the ends, NaNs placed as CuPy places them, then the same binary search, so
    that bins that are neither (which NumPy refuses) give CuPy's answer. (With
    ``assume_increasing``, ``searchsorted``'s: the bins taken as increasing.)"""
    n = bins.size
    y = numpy.zeros(x.shape, dtype=numpy.int64)
    if n == 0:
        return y
    if x.dtype.kind == "c" or bins.dtype.kind == "c":
        kind = numpy.result_type(x.dtype, bins.dtype)
        x, bins = x.astype(kind), bins.astype(kind)
    isnan = numpy.isnan if bins.dtype.kind in "fc" else (lambda v: numpy.zeros(numpy.shape(v), bool))
    xnan = numpy.isnan(x) if x.dtype.kind in "fc" else numpy.zeros(x.shape, bool)
    first, last = bins[0], bins[n - 1]
    inc = assume_increasing or n < 2 or bool(first <= last) or \
        (not isnan(first) and bool(isnan(last)))
    flat, out = x.reshape(-1), y.reshape(-1)
    done = xnan.reshape(-1).copy()
    if done.any():
        pos = n if inc else 0
        if not right_side:
            if inc:
                while pos > 0 and isnan(bins[pos - 1]):
                    pos -= 1
            else:
                while pos < n and isnan(bins[pos]):
                    pos += 1
        out[done] = pos
    with numpy.errstate(invalid="ignore"):
        if right_side:
            greater = (flat >= last) if inc else numpy.zeros(flat.shape, bool)
        else:
            greater = (flat > last) if inc else (flat <= last)
    greater &= ~done
    out[greater] = n
    done |= greater
    left = numpy.zeros(flat.shape, numpy.int64)
    if not inc:
        start = 0
        while start < n and isnan(bins[start]):
            start += 1
        if start == n:
            out[~done] = n
            return y
        left[:] = start
        if right_side and not isnan(last):
            with numpy.errstate(invalid="ignore"):
                beyond = ~done & ~xnan.reshape(-1) & (last > flat)
            out[beyond] = n
            done |= beyond
    rightmost = numpy.full(flat.shape, n - 1, numpy.int64)
    todo = ~done
    while True:
        active = todo & (left < rightmost)
        if not active.any():
            break
        m = left + (rightmost - left) // 2
        bm = bins[m]
        with numpy.errstate(invalid="ignore"):
            if right_side:
                look = (bm <= flat) if inc else (bm > flat)
            else:
                look = (bm < flat) if inc else (bm >= flat)
        go = active & look
        stay = active & ~look
        left = numpy.where(go, m + 1, left)
        rightmost = numpy.where(stay, m, rightmost)
    out[todo] = rightmost[todo]
    return y


def _c_difference(hi: numpy.ndarray, lo: numpy.ndarray) -> numpy.ndarray:
    """``hi - lo`` as C++ computes it in the arrays' own type: booleans and integers
    narrower than ``int`` promoted to ``int``, wider ones (and unsigned ``int``) wrapping
    in their type, floats (float16 too, through float) rounded to their precision."""
    if hi.dtype.kind in "biu" and hi.dtype.itemsize < 4 or hi.dtype.kind == "b":
        return hi.astype(numpy.int32) - lo.astype(numpy.int32)
    if hi.dtype == numpy.float16:  # (CuPy's float16 has no operator-: float's)
        return hi.astype(numpy.float32) - lo.astype(numpy.float32)
    return hi - lo


def _interp_values(x: numpy.ndarray, idx: numpy.ndarray, xp: numpy.ndarray,
                   fp: numpy.ndarray, left: numpy.ndarray, right: numpy.ndarray,
                   out_dtype: numpy.dtype) -> numpy.ndarray:
    """``misc.py: _get_interp_kernel``'s kernel: NaN where x is NaN, ``left`` below
    ``xp[0]``, ``fp[-1]`` at ``xp[-1]``, ``right`` above it, ``fp[j]`` at ``xp[j]``, else
    ``slope * (x - xp[j]) + fp[j]`` with ``slope = (Z)(fp[j+1] - fp[j]) /
    ((double)xp[j+1] - (double)xp[j])`` (the difference of ``fp`` in its own type;
    complex values divided and scaled per component), retried from ``j + 1`` where it
    is NaN, then ``fp[j]`` if both are equal."""
    n = xp.size
    xd = x.astype(numpy.float64)
    j = numpy.clip(idx - 1, 0, max(n - 2, 0))
    k = numpy.minimum(j + 1, n - 1)
    fxd = xp.astype(numpy.float64)
    dx = fxd[k] - fxd[j]
    diff = _c_difference(fp[k], fp[j]).astype(out_dtype)
    fy_j, fy_k = fp[j].astype(out_dtype), fp[k].astype(out_dtype)
    with numpy.errstate(all="ignore"):
        if out_dtype.kind == "c":
            slope = diff.real / dx + 1j * (diff.imag / dx)
            slope = numpy.asarray(slope, out_dtype)

            def line(base: numpy.ndarray, start: numpy.ndarray) -> numpy.ndarray:
                t = xd - fxd[base]
                result = numpy.empty(t.shape, out_dtype)
                result.real = slope.real * t + start.real
                result.imag = slope.imag * t + start.imag
                return result
        else:
            slope = diff / dx

            def line(base: numpy.ndarray, start: numpy.ndarray) -> numpy.ndarray:
                # (one fused multiply-add: NVRTC contracts ``slope * (...) + fy[j]``;
                # the GPU differs from NumPy in the last bit of 2 values in 50)
                t = xd - fxd[base]
                shape = numpy.broadcast(slope, t, start).shape
                return cpu_ftz.fma(*(numpy.atleast_1d(v) for v in (slope, t, start))
                                   ).reshape(shape)
        y = line(j, fy_j)
        bad = numpy.isnan(y)
        if bad.any():
            y = numpy.where(bad, line(k, fy_k), y)
            y = numpy.where(numpy.isnan(y) & (fp[j] == fp[k]), fy_j, y)
    y = numpy.where(xd == fxd[j], fy_j, y)
    x_idx = idx - 1
    y = numpy.where(x_idx >= n - 1, right.astype(out_dtype), y)
    y = numpy.where(xd == fxd[n - 1], fp[n - 1].astype(out_dtype), y)
    y = numpy.where(x_idx < 0, left.astype(out_dtype), y)
    y = numpy.where(numpy.isnan(xd), xd.astype(out_dtype), y)
    return numpy.ascontiguousarray(y, dtype=out_dtype)


def interp_checks(x: numpy.ndarray, xp: numpy.ndarray, fp: numpy.ndarray) -> None:
    """``cupy.interp``'s first checks, in its order and words."""
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("xp and fp must be 1D arrays")
    if xp.size != fp.size:
        raise ValueError("fp and xp are not of the same length")
    if xp.size == 0:
        raise ValueError("array of sample points is empty")
    if not x.flags.c_contiguous:
        raise NotImplementedError("Non-C-contiguous x is currently not supported")


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
           period: Any = None) -> numpy.ndarray:
    """See Also: cupy.interp (``_math/misc.py``): CuPy's checks in its order and words
    (a boolean ``x`` has no common type, a non-C-contiguous one is not supported),
    ``left``/``right`` cast to ``fp``'s dtype first (``cupy.array(left, fp.dtype)``:
    ``interp(x, xp, int_fp, left=0.5)`` gives 0 below ``xp[0]``, NumPy 0.5), and its
    kernel (``_interp_values``): float64 or complex128 results."""
    interp_checks(x, xp, fp)
    kinds = []
    for a in (x, xp):  # (``cupy.common_type``)
        if a.dtype.kind == "b":
            raise TypeError("can't get common type for non-numeric array")
        kinds.append(numpy.dtype(numpy.float64) if a.dtype.kind in "iu" else a.dtype)
    x_dtype = functools.reduce(numpy.promote_types, kinds).type
    if not numpy.can_cast(x_dtype, numpy.float64):
        raise TypeError("Cannot cast array data from {} to {} according to the rule "
                        "'safe'".format(x_dtype, numpy.float64))
    # (float32 read by -ftz=true kernels: ``searchsorted``'s comparisons, ``astype``,
    # and the interpolation's conversions to double, cvt.ftz.f64.f32: cpu_ftz)
    x, xp, fp = cpu_ftz.flushed(x), cpu_ftz.flushed(xp), cpu_ftz.flushed(fp)
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = right = None
        x = x.astype(numpy.float64)
        xp = xp.astype(numpy.float64)
        x %= period
        xp %= period
        order = numpy.argsort(xp, kind="stable")
        xp, fp = xp[order], fp[order]
        xp = numpy.concatenate((xp[-1:] - period, xp, xp[0:1] + period))
        fp = numpy.concatenate((fp[-1:], fp, fp[0:1]))
    out_dtype = numpy.dtype("D" if fp.dtype.kind == "c" else "d")
    idx = _digitize_search(xp, numpy.asarray(x), True, assume_increasing=True)
    left = fp[0] if left is None else cpu_ftz.flushed(numpy.array(left, fp.dtype))
    right = fp[-1] if right is None else cpu_ftz.flushed(numpy.array(right, fp.dtype))
    left, right = numpy.asarray(left).ravel()[:1], numpy.asarray(right).ravel()[:1]
    if x.size == 0:
        return numpy.empty(x.shape, out_dtype)
    out = _interp_values(numpy.asarray(x), numpy.asarray(idx), xp, fp, left[0], right[0],
                         out_dtype)
    if not out.flags.owndata:  # (CuPy's output is ``cupy.empty(x.shape)``: its own)
        out = out.copy()
    out.shape = x.shape
    return out


def searchsorted(a: Any, v: Any, side: Any = "left", sorter: Any = None) -> Any:
    """See Also: cupy.searchsorted (``_sorting/search.py: _searchsorted``): CuPy's
    checks in its order and words (``v`` a device array or a Python scalar: a list or a
    NumPy integer is its NotImplementedError; any ``side`` but 'right' is 'left'; a
    sorter of another kind is its TypeError), a complex operand making the other
    complex, ``a.take(sorter)`` (indices wrap), then its kernel with increasing bins."""
    if not isinstance(a, numpy.ndarray):  # (a host array too: self-checked)
        raise NotImplementedError("Only int or ndarray are supported for a")
    if not isinstance(v, numpy.ndarray):
        if not isinstance(v, (int, float, complex)):
            raise NotImplementedError("Only python scalars or ndarrays are supported for v")
        v = numpy.asarray(v)
    if a.ndim > 1:
        raise ValueError("object too deep for desired array")
    if a.ndim < 1:
        raise ValueError("object of too small depth for desired array")
    if a.size == 0:
        return numpy.zeros(v.shape, dtype=numpy.int64)
    if a.dtype.kind == "c" and v.dtype.kind != "c":
        v = v.astype(a.dtype)
    elif v.dtype.kind == "c" and a.dtype.kind != "c":
        a = a.astype(v.dtype)
    if sorter is not None:
        if isinstance(sorter, HostArray):  # (``a.take`` copies host indices in)
            sorter = sorter.array
        if sorter.dtype.kind not in ("i", "u"):
            raise TypeError("sorter must be of integer type")
        if sorter.size != a.size:
            raise ValueError("sorter.size must equal a.size")
        a = a.take(sorter, mode="wrap")
    return _digitize_search(a, v, side == "right", assume_increasing=True)


_QUANTILE_NOT_YET = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                     "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
                     "normal_unbiased")


def _quantile_weighted(ap: numpy.ndarray, indices: numpy.ndarray,
                       dtype: numpy.dtype) -> numpy.ndarray:
    """``order.py``'s ``cupy_percentile_weightnening`` kernel over the sorted rows of
    ``ap``: below ``idx`` and the next element of the flat array (never past its
    end), ``diff`` in ``a``'s type then the result's, ``a[below] + diff * w`` for
    ``w < 0.5`` else ``a[above] - diff * (1 - w)`` (so a NaN sorted last is reached
    only where the index touches it; NumPy gives NaN for any NaN in the slice)."""
    size = ap.size
    rows = ap.reshape(-1, ap.shape[-1]) if ap.ndim > 1 else ap.reshape(1, -1)
    offset = ap.shape[-1] if ap.ndim > 1 else 0
    flat = ap.reshape(-1)
    below = numpy.floor(indices).astype(numpy.int64)
    with numpy.errstate(all="ignore"):
        weight = (indices - below.astype(numpy.float64)).astype(dtype)
        bottom = numpy.arange(rows.shape[0])[:, None] * offset + below[None, :]
        bottom = numpy.clip(bottom, 0, size - 1)  # (past the end: CuPy reads beyond)
        top = numpy.minimum(bottom + 1, size - 1)
        lo, hi = flat[bottom], flat[top]
        diff = _c_difference(hi, lo).astype(dtype)
        lo, hi = lo.astype(dtype), hi.astype(dtype)
        one = numpy.asarray(1, dtype)
        ret = numpy.where(weight < 0.5, lo + diff * weight, hi - diff * (one - weight))
    return ret.astype(dtype, copy=False).reshape(ap.shape[:-1] + indices.shape)


def _quantile_unchecked(a: Any, q: Any, axis: Any = None, out: Any = None,
                        overwrite_input: bool = False, method: str = "linear",
                        keepdims: bool = False) -> Any:
    """``order.py: _quantile_unchecked``: the slices sorted (NaNs last), then the
    weighting kernel, or ``take`` of the rounded indices for ``lower``, ``higher`` and
    ``nearest`` (``a``'s dtype); ``result_type(a, q)`` otherwise."""
    dtype = numpy.result_type(a, q)
    q = numpy.asarray(q)
    zerod = q.ndim == 0
    if zerod:
        q = q[None]
    if q.ndim > 1:
        raise ValueError("Expected q to have a dimension of 1.\n"
                         "Actual: {} != 1".format(q.ndim))
    if isinstance(axis, int):
        axis = axis,
    if keepdims:
        if axis is None:
            keepdim = (1,) * a.ndim
        else:
            keepdim = list(a.shape)
            for ax in axis:
                keepdim[ax % a.ndim] = 1
            keepdim = tuple(keepdim)
    if axis is None:
        ap = a.ravel() if overwrite_input else a.flatten()
    else:
        axis = tuple(ax % a.ndim for ax in axis)
        keep = set(range(a.ndim)) - set(axis)
        nkeep = len(keep)
        for i, s in enumerate(sorted(keep)):
            a = a.swapaxes(i, s)
        ap = a.reshape(a.shape[:nkeep] + (-1,))
        if not overwrite_input:
            ap = ap.copy()
    ap.sort(axis=-1)
    nx = ap.shape[-1]
    indices = q * (nx - 1.)
    if method in _QUANTILE_NOT_YET:
        raise ValueError(f"'{method}' method is not yet supported. "
                         "Please use any other method.")
    elif method == "lower":
        indices = numpy.floor(indices).astype(numpy.int32)
    elif method == "higher":
        indices = numpy.ceil(indices).astype(numpy.int32)
    elif method == "midpoint":
        indices = 0.5 * (numpy.floor(indices) + numpy.ceil(indices))
    elif method == "nearest":
        indices = numpy.rint(indices).astype(numpy.int32)
    elif method != "linear":
        raise ValueError("Unexpected interpolation method.\n"
                         "Actual: '{}' not in ('linear', 'lower', "
                         "'higher', 'midpoint')".format(method))
    if indices.dtype == numpy.int32:
        ret = numpy.moveaxis(ap, -1, 0).take(indices, axis=0, mode="wrap")
    else:
        ret = numpy.moveaxis(_quantile_weighted(ap, indices, numpy.dtype(dtype)), -1, 0)
    if zerod:
        ret = ret.squeeze(0)
    if keepdims:
        if q.size > 1:
            keepdim = (-1,) + keepdim
        ret = ret.reshape(keepdim)
    if not ret.flags.c_contiguous:  # (``_internal_ascontiguousarray``: 0-d stays 0-d)
        ret = ret.copy(order="C")
    if out is not None:
        numpy.copyto(out, ret, casting="unsafe")
        return out
    return ret


def _check_interpolation_as_method(method: Any, interpolation: Any, fname: str) -> Any:
    warnings.warn(
        f"the `interpolation=` argument to {fname} was renamed to "
        "`method=`, which has additional options.\n"
        "Users of the modes 'nearest', 'lower', 'higher', or "
        "'midpoint' are encouraged to review the method they. "
        "(Deprecated NumPy 1.22)", DeprecationWarning)
    if method != "linear":
        raise TypeError("You shall not pass both `method` and `interpolation`!\n"
                        "(`interpolation` is Deprecated in favor of `method`)")
    return interpolation


def _quantile_is_valid(q: Any) -> bool:
    """``order.py``'s check: some q at least 0 and some at most 1 (not all)."""
    return bool(numpy.count_nonzero(0.0 <= q) and numpy.count_nonzero(q <= 1.0))


def percentile(a: Any, q: Any, axis: Any = None, out: Any = None,
               overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, interpolation: Any = None) -> Any:
    """See Also: cupy.percentile (``_statistics/order.py``, ported: see
    ``_quantile_unchecked``; NumPy's newer methods are CuPy's ValueError)."""
    if interpolation is not None:
        method = _check_interpolation_as_method(method, interpolation, "percentile")
    if isinstance(q, (tuple, list)):
        q = numpy.asarray(q)
    q = q / 100
    if not _quantile_is_valid(q):
        raise ValueError("Percentiles must be in the range [0, 100]")
    return _quantile_unchecked(a, q, axis=axis, out=out, overwrite_input=overwrite_input,
                               method=method, keepdims=keepdims)


def quantile(a: Any, q: Any, axis: Any = None, out: Any = None,
             overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False, *, interpolation: Any = None) -> Any:
    """See Also: cupy.quantile (``_statistics/order.py``, ported: see
    ``_quantile_unchecked``)."""
    if interpolation is not None:
        method = _check_interpolation_as_method(method, interpolation, "quantile")
    if isinstance(q, (tuple, list)):
        q = numpy.asarray(q)
    if not _quantile_is_valid(q):
        raise ValueError("Quantiles must be in the range [0, 1]")
    return _quantile_unchecked(a, q, axis=axis, out=out, overwrite_input=overwrite_input,
                               method=method, keepdims=keepdims)


def digitize(x: Any, bins: Any, right: bool = False) -> Any:
    """CuPy's ``digitize``: no monotonicity check ("to avoid device synchronization":
    bins that are neither increasing nor decreasing give its binary search's answer,
    where NumPy raises), its own errors for what it refuses.

    See Also
    --------
    cupy.digitize
    """
    if _given(x).dtype.kind == "c":  # (an attribute error for what is no array, as CuPy's)
        raise TypeError("x may not be complex")
    if _given(bins).ndim > 1:  # (a host array's own ``ndim``)
        raise ValueError("object too deep for desired array")
    if _given(bins).ndim < 1:
        raise ValueError("object of too small depth for desired array")
    if not isinstance(bins, numpy.ndarray):
        raise NotImplementedError("Only int or ndarray are supported for a")
    if not isinstance(x, numpy.ndarray):
        raise NotImplementedError("Only python scalars or ndarrays are supported for v")
    # (the sides swap: digitize's ``right`` is searchsorted's left)
    return _digitize_search(bins, x, not right)


def ndarray_bool(a: numpy.ndarray) -> bool:
    """``bool(array)``: an empty array is False with a DeprecationWarning (CuPy, and
    NumPy before 2.2); more than one element is ambiguous.

    See Also
    --------
    cupy.ndarray.__bool__
    """
    if a.size == 0:
        warnings.warn("The truth value of an empty array is ambiguous. Returning False, but "
                      "in future this will result in an error. Use `array.size > 0` to check "
                      "that an array is not empty.", DeprecationWarning)
        return False
    return bool(a)


def ndarray_fill(a: numpy.ndarray, value: Any) -> None:
    """``fill`` as CuPy's (``core.pyx``): a device array must be 0-d and is cast to
    ``a``'s dtype; anything else goes through ``numpy.asarray(value, dtype=a.dtype)``
    (NumPy's cast of a NumPy scalar, which wraps where ``ndarray.fill`` refuses; a list
    of one element is non-scalar) and must be 0-d.

    See Also
    --------
    cupy.ndarray.fill
    """
    if isinstance(value, numpy.ndarray):
        if value.shape != ():
            raise ValueError("non-scalar cupy.ndarray cannot be used for fill")
        a[...] = cpu_cast.astype(value, a.dtype, copy=False)
        return
    if isinstance(value, HostArray):
        value = value.array
    value = numpy.asarray(value, dtype=a.dtype)
    if value.shape != ():
        raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
    a.fill(value[()])


def ndarray_imag(a: numpy.ndarray) -> numpy.ndarray:
    """``a.imag``: of a real array, a new writable array of zeros (NumPy's is read-only).

    See Also
    --------
    cupy.ndarray.imag
    """
    if a.dtype.kind == "c":
        return a.imag
    return numpy.zeros_like(a, order="C")  # (CuPy's ``ndarray(self.shape, self.dtype)``)


def _cub_tiles(x: numpy.ndarray, threads: int | None = None) -> numpy.ndarray:
    """float16 sums of the rows of ``x`` as CuPy's CUB block reduction kernel makes them
    (``_cub_reduction.pyx``, one block a row, ``_get_cub_block_specs``: 4 items a
    thread, ``clp2(ceil(n / 4))`` threads within [32, 512]): tile by tile (the last one
    padded with the identity), each thread's 4 items folded in turn (``ThreadReduce``),
    each warp's 32 threads in a pairwise tree (``WarpReduceShfl``), the warps in turn,
    then the tiles in turn onto the identity (``aggregate = op(aggregate, ...)``).
    Each addition is float's, rounded to half (CuPy's ``float16`` adds as float).
    ``threads``: a given block size (the two-pass reduction's second pass)."""
    rows, n = x.shape
    if threads is None:
        threads = min(max(1 << max(0, -(-n // 4) - 1).bit_length(), 32), 512)
    tile = 4 * threads
    tiles = -(-n // tile)
    pad = numpy.zeros((rows, tiles * tile), dtype=numpy.float16)
    pad[:, :n] = x
    total = numpy.zeros(rows, dtype=numpy.float16)
    for t in range(tiles):
        items = pad[:, t * tile:(t + 1) * tile].reshape(rows, threads, 4)
        s = items[..., 0]
        for j in range(1, 4):
            s = s + items[..., j]
        s = s.reshape(rows, threads // 32, 32)
        while s.shape[-1] > 1:
            s = s[..., 0::2] + s[..., 1::2]
        warps = s[..., 0]
        block = warps[:, 0]
        for w in range(1, warps.shape[1]):
            block = block + warps[:, w]
        total = total + block
    return total


def _cub_half_nanmean(a: numpy.ndarray, axis: Any, keepdims: bool) -> Any:
    """CuPy's float16 ``nanmean`` (``_routines_statistics.pyx``: ``_nanmean_func``,
    'e->e' with ``nanmean_st<float16>``: the non-NaN values summed in float16, their
    count a ``long long``, ``out0 = a.value / type_out0_raw(a.count)``: the count
    rounded to float16, infinity from 65520 on) where CuPy hands it to its CUB block
    reduction (``_cub_reduction._can_use_cub_block_reduction``, CuPy's default
    ``CUPY_ACCELERATORS=cub``): a C-contiguous array reduced over its trailing axes, an
    F-contiguous one over its leading axes, in one pass a row, or two (``axis=None``:
    blocks of up to 2048 values, then their partial sums); elsewhere CuPy's generic
    kernel (``_generic_half_nanmean``). None where it cannot tell (NumPy decides)."""
    ndim = a.ndim
    if ndim == 0 or a.size == 0:
        return None
    try:
        axes = tuple(range(ndim)) if axis is None else tuple(sorted(
            {numpy.lib.array_utils.normalize_axis_index(int(i), ndim)
             for i in (axis if isinstance(axis, (tuple, list)) else (axis,))}))
    except Exception:
        return None
    k = len(axes)
    if a.flags.f_contiguous and axes == tuple(range(k)):
        order = "F"
    elif a.flags.c_contiguous and axes == tuple(range(ndim - k, ndim)):
        order = "C"
    else:
        return _generic_half_nanmean(a, axes, keepdims)
    out_shape = a.shape[k:] if order == "F" else a.shape[:ndim - k]
    size = 1
    for i in axes:
        size *= a.shape[i]
    if size < 128:  # (``CUB_REDUCE_SIZE_THRESHOLD``: the generic kernel for short rows;
        return _generic_half_nanmean(a, axes, keepdims)  # the GPU: 2054 / 8, not 2052 / 8)
    flat = a.ravel(order=order)
    rows = flat.reshape(-1, size)  # (a row per output, in memory order)
    nan = numpy.isnan(rows)
    values = numpy.where(nan, numpy.float16(0), rows)
    counts = (~nan).sum(axis=1)
    if out_shape == ():  # (two passes: blocks of ``min(n, 4 * threads)`` values)
        threads = min(max(1 << max(0, -(-size // 4) - 1).bit_length(), 32), 512)
        chunk = min(size, 4 * threads)
        blocks = -(-size // chunk)
        padded = numpy.zeros(blocks * chunk, dtype=numpy.float16)
        padded[:size] = values[0]
        partial = _cub_tiles(padded.reshape(blocks, chunk))
        total = _cub_tiles_of(partial, threads)
    else:
        total = _cub_tiles(values)
    with numpy.errstate(all="ignore"):
        mean = (total.astype(numpy.float32)
                / counts.astype(numpy.float16).astype(numpy.float32)).astype(numpy.float16)
    result = mean.reshape(out_shape, order=order)
    if keepdims:
        result = result.reshape(tuple(1 if i in axes else a.shape[i] for i in range(ndim)),
                                order=order)
    return result


def _generic_half_nanmean(a: numpy.ndarray, axes: tuple, keepdims: bool) -> Any:
    """``_cub_half_nanmean`` where CuPy runs its generic reduction kernel
    (``_reduction.pyx``: ``_AbstractReductionKernel._call``, ``_get_block_specs``):
    the reduced axes first (sorted by decreasing strides for one array that is not
    C-contiguous), ``block_stride`` outputs a block of 512 threads, so ``T = 512 /
    block_stride`` threads an output, thread ``t`` folding values ``t, t + T, ...`` onto
    the identity in turn, then the shared-memory tree (``_REDUCE(_block)``: ``p[j] +=
    p[j + b]`` for ``b = T/2 ... 1``). None for a reduction too long to model here."""
    ndim = a.ndim
    out_axes = tuple(i for i in range(ndim) if i not in axes)
    reduce_axes = axes
    if len(out_axes) <= 1 and not a.flags.c_contiguous:
        reduce_axes = tuple(sorted(axes, key=lambda i: -abs(a.strides[i])))
    p = a.transpose(reduce_axes + out_axes)
    out_shape = tuple(a.shape[i] for i in out_axes)
    size = 1
    for i in reduce_axes:
        size *= a.shape[i]
    outs = 1
    for n in out_shape:
        outs *= n
    contiguous = 1  # (``_get_contiguous_size``: the output's trailing dims contiguous)
    for j in range(len(out_shape)):
        if p.strides[ndim - j - 1] != contiguous * a.itemsize:
            break
        contiguous *= out_shape[len(out_shape) - j - 1]
    stride = max(min(contiguous, 32), 512 // max(1, size // outs))
    stride = 1 << (stride.bit_length() - 1)  # (``clp2(x // 2 + 1)``: down to a power of 2)
    threads = max(1, 512 // stride)
    steps = -(-size // threads)
    if steps > 4096:
        return None
    rows = numpy.ascontiguousarray(p).reshape(size, outs).T  # (an output's values, J order)
    nan = numpy.isnan(rows)
    values = numpy.zeros((outs, steps * threads), dtype=numpy.float16)
    values[:, :size] = numpy.where(nan, numpy.float16(0), rows)
    values = values.reshape(outs, steps, threads)
    part = numpy.zeros((outs, threads), dtype=numpy.float16)
    for k in range(steps):
        part = part + values[:, k]
    b = threads // 2
    while b >= 1:
        part[:, :b] = part[:, :b] + part[:, b:2 * b]
        b //= 2
    counts = (~nan).sum(axis=1)
    with numpy.errstate(all="ignore"):
        mean = (part[:, 0].astype(numpy.float32)
                / counts.astype(numpy.float16).astype(numpy.float32)).astype(numpy.float16)
    result = mean.reshape(out_shape)
    if keepdims:
        result = result.reshape(tuple(1 if i in axes else a.shape[i] for i in range(ndim)))
    return result


def _cub_tiles_of(partial: numpy.ndarray, threads: int) -> numpy.ndarray:
    """The second pass of CuPy's two-pass CUB reduction: one block of ``threads`` (the
    first pass's) over the partial sums, tile by tile."""
    return _cub_tiles(partial.reshape(1, -1), threads)


def _half_reduction(name: str) -> Callable[..., Any]:
    """``sum``/``prod``/``mean`` of float16: CuPy accumulates in float32 and rounds the
    result to float16 (NumPy accumulates in float16 and loses precision)."""
    host = getattr(numpy, name)
    # the same as ``host`` on an ndarray, and half its cost for a small array
    method = getattr(numpy.ndarray, name, host)
    to_half = name != "nanmean"

    # (CuPy's signature: NumPy's ``where=``/``initial=`` are refused with Python's words)
    def fn(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
           keepdims: bool = False) -> Any:
        if type(a) is numpy.ndarray and a.dtype.char != "e" and (
                dtype is None or not to_half or numpy.dtype(dtype).char != "e"):
            if a.dtype.char in "fF":  # (flushing where CuPy's kernel is -ftz=true)
                a, run = cpu_ftz.reduction(name, a, axis, dtype)
                return run(method, a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
            return method(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
        if isinstance(a, numpy.ndarray) and to_half and a.dtype.kind in "biuf" and \
                dtype is not None and numpy.dtype(dtype).char == "e":
            # (``dtype=float16``: CuPy's 'e->e' loop, each value cast to float16 and
            # summed in float; ``nanmean``'s ``nanmean_st<half>`` sums in float16 itself)
            a = a.astype(numpy.float16)
        if isinstance(a, numpy.ndarray) and a.dtype == numpy.float16 and (
                dtype is None or numpy.dtype(dtype) == numpy.float16):
            result = _cub_half_nanmean(a, axis, keepdims) if not to_half else None
            if result is None:
                result = host(a, axis=axis, dtype=numpy.float32, keepdims=keepdims)
                result = numpy.asarray(result).astype(numpy.float16)
            if out is not None:
                out[...] = result
                return out
            return result
        return host(a, axis=axis, dtype=dtype, out=out, keepdims=keepdims)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"See Also\n--------\ncupy.{name}"
    return fn


def real(val: Any) -> numpy.ndarray:
    """See Also: cupy.real (scalars and host arrays become device arrays first)."""
    if not isinstance(val, numpy.ndarray):
        val = numpy.array(val.array if isinstance(val, HostArray) else val)
    return val.real


def imag(val: Any) -> numpy.ndarray:
    """See Also: cupy.imag (scalars and host arrays become device arrays first)."""
    if not isinstance(val, numpy.ndarray):
        val = numpy.array(val.array if isinstance(val, HostArray) else val)
    return ndarray_imag(val)


def argsort(a: Any, axis: Any = -1, kind: Any = None) -> numpy.ndarray:
    """See Also: cupy.argsort (CuPy sorts a C-contiguous copy with ``axis`` moved last,
    and returns the indices as a view with ``axis`` moved back). CuPy's
    ``a.argsort(axis=axis, kind=kind)``: a host array's own NumPy method."""
    if not isinstance(a, numpy.ndarray):
        return _host_result(_given(a).argsort(axis=axis, kind=kind))
    _check_kind_sort(kind)
    a = numpy.atleast_1d(a)
    if axis is None:
        a, axis = a.ravel(), -1
    axis = _normalize_axis(axis, a.ndim)
    if axis == a.ndim - 1:
        return numpy.argsort(a, axis=-1, kind="stable")
    moved = numpy.ascontiguousarray(numpy.moveaxis(a, axis, -1))
    return numpy.moveaxis(numpy.argsort(moved, axis=-1, kind="stable"), -1, axis)


def _scan(name: str) -> Callable[..., Any]:
    """``cumsum``/``cumprod`` with CuPy's result layout (``scan_core``: a flat view of a new
    array for ``axis=None``; else the batched scan of a C-contiguous copy with ``axis``
    moved last, seen with the axis moved back)."""
    host = getattr(numpy, name)

    def fn(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        if not isinstance(a, numpy.ndarray):  # (``scan_core(_ndarray_base a, ...)``)
            raise _cython_array_error(a)
        # (float32 flushing where CuPy's kernel is -ftz=true: cpu_ftz)
        a, run = cpu_ftz.reduction(name, a, axis, dtype)
        if out is not None:
            return run(host, a, axis=axis, dtype=dtype, out=out)
        if dtype is None:
            dtype = {"b": numpy.int64, "i": numpy.int64, "u": numpy.uint64}.get(
                a.dtype.kind, a.dtype)
        if axis is None:
            return run(host, a, dtype=dtype).reshape(-1)
        axis = _normalize_axis(axis, a.ndim)
        result = numpy.array(a, dtype=dtype, order="C")
        if dtype in (numpy.int64, numpy.uint64):
            cpu_cast.cupy_long(result)  # (CuPy's ``numpy.dtype('int64')``: 'l', where
            # NumPy keeps a longlong's 'q')
        if result.shape[axis] == 0:
            return numpy.empty_like(result)
        t = numpy.moveaxis(result, axis, -1)
        r = t.reshape(-1, a.shape[axis])
        run(host, r, axis=-1, out=r)
        return numpy.moveaxis(r.reshape(t.shape), -1, axis)
    fn.__name__ = name
    fn.__doc__ = f"See Also\n--------\ncupy.{name}"
    return fn


def _nan_scan(name: str) -> Callable[..., Any]:
    """``nancumsum``/``nancumprod`` as CuPy's (``_math/sumprod.py``): ``_replace_nan``
    (``cupy.empty_like(a)``: a list's AttributeError; its kernel refuses a host array),
    then ``cumsum``/``cumprod``, with their layouts."""
    scan = _scan(name[3:])
    value = 0 if name == "nancumsum" else 1

    def fn(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        if not isinstance(a, (numpy.ndarray, HostArray)):
            raise AttributeError(f"'{type(a).__name__}' object has no attribute 'dtype'")
        _require_array(a)
        if a.dtype.kind in "fc":  # (``if (a == a) {out = a;} else {out = val;}``)
            a = numpy.where(a == a, a, a.dtype.type(value))
        return scan(a, axis, dtype, out)
    fn.__name__ = name
    fn.__doc__ = f"See Also\n--------\ncupy.{name}"
    return fn


def packbits(a: Any, axis: Any = None, bitorder: str = "big") -> Any:
    """See Also: cupy.packbits (``_binary/packing.py``: the dtype, ``axis`` and
    ``bitorder`` checked in that order, NumPy's ``axis`` refused; its kernel refuses a
    host array; the bits of ``a.ravel()``)."""
    given = _given(a)
    if given.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    _binary_checks(axis, bitorder)
    _require_array(a)
    return numpy.packbits(given.ravel(), bitorder=bitorder)


def unpackbits(a: Any, axis: Any = None, bitorder: str = "big") -> Any:
    """See Also: cupy.unpackbits (``_binary/packing.py``: as ``packbits``; the bits of a
    uint8 array in its C order)."""
    given = _given(a)
    if given.dtype != numpy.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    _binary_checks(axis, bitorder)
    _require_array(a)
    return numpy.unpackbits(given.ravel(), bitorder=bitorder)


def _binary_checks(axis: Any, bitorder: Any) -> None:
    if axis is not None:
        raise NotImplementedError("axis option is not supported yet")
    if bitorder not in ("big", "little"):
        raise ValueError("bitorder must be either 'big' or 'little'")


def sort_complex(a: Any) -> Any:
    """See Also: cupy.sort_complex (``_sorting/sort.py``: ``a.astype('F')`` for
    ``'bhBHF'``, else ``'D'``, then ``a.sort()``: a host array's own NumPy methods, a
    list's AttributeError)."""
    given = _given(a)
    char = "F" if given.dtype.char in "bhBHF" else "D"
    ret = given.astype(char)
    if given is not a:
        ret.sort()
        return _host_result(ret)
    ndarray_sort(ret)
    return ret


def _array_only(name: str) -> Callable[..., Any]:
    """CuPy functions that raise TypeError for anything but a cupy.ndarray."""
    host = getattr(numpy, name)

    def fn(a: Any, *args: Any, **kwargs: Any) -> Any:
        _require_array(a)
        return host(a, *args, **kwargs)
    fn.__name__ = name
    fn.__doc__ = f"See Also\n--------\ncupy.{name}"
    return fn


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> numpy.ndarray:
    """See Also: cupy.array_equal (``_logic/comparison.py``: a 0-d bool array, not a
    Python bool)."""
    if a1.shape != a2.shape:
        return numpy.array(False)
    if not equal_nan:
        return numpy.asarray((a1 == a2).all())
    a1nan, a2nan = numpy.isnan(a1), numpy.isnan(a2)
    if not (a1nan == a2nan).all():
        return numpy.array(False)
    return numpy.asarray((a1[~a1nan] == a2[~a1nan]).all())


def array_equiv(a1: Any, a2: Any) -> numpy.ndarray:
    """See Also: cupy.array_equiv (a 0-d bool array, not a Python bool)."""
    try:
        numpy.broadcast(a1, a2)
    except Exception:  # noqa: BLE001 - CuPy's ``except Exception`` too
        return numpy.array(False)
    return numpy.asarray(numpy.asarray(a1 == a2).all())


# --- reductions CuPy computes without NumPy's warnings -----------------------------------

#: NumPy's RuntimeWarnings for empty or all-NaN slices (``_methods.py``,
#: ``_nanfunctions_impl.py``), which CuPy's reduction kernels never give
_SLICE_WARNINGS = r"(Mean of empty slice|Degrees of freedom <= 0|All-NaN slice encountered)"


def _quiet(fn: Callable[..., Any], always: bool = True) -> Callable[..., Any]:
    """``fn`` without NumPy's warnings for empty or all-NaN slices: CuPy's ``mean``,
    ``var``, ``std``, ``median`` and their ``nan`` forms never warn (only ``nanmax`` and
    ``nanmin`` do). Unless ``always``, the filter is set only where NumPy could warn (an
    empty array, or a ``ddof``: ``var``/``std`` of too few elements)."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not always and args and type(args[0]) is numpy.ndarray and args[0].size and \
                len(args) < 5 and not kwargs.get("ddof"):
            return fn(*args, **kwargs)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", _SLICE_WARNINGS, RuntimeWarning)
            return fn(*args, **kwargs)
    return call


# --- names NumPy 2 and SciPy 1.17 removed, which CuPy 14.2 keeps -------------------------

def in1d(ar1: Any, ar2: Any, assume_unique: bool = False, invert: bool = False) -> Any:
    """See Also: cupy.in1d (``_logic/truth.py``: ``ar1`` and ``ar2`` raveled)."""
    ar1 = ar1.ravel()
    ar2 = ar2.ravel()
    if ar1.size == 0 or ar2.size == 0:
        return (numpy.ones if invert else numpy.zeros)(ar1.shape, dtype=numpy.bool_)
    return numpy.isin(ar1, ar2, invert=invert)


def msort(a: Any) -> numpy.ndarray:
    """See Also: cupy.msort (deprecated: ``sort(a, axis=0)``)."""
    warnings.warn("msort is deprecated, use cupy.sort(a, axis=0) instead",
                  DeprecationWarning)
    return sort(a, axis=0)


def round_(a: Any, decimals: int = 0, out: Any = None) -> Any:
    """See Also: cupy.round_ (deprecated: ``around``)."""
    warnings.warn("Please use `round` instead.", DeprecationWarning)
    return around(a, decimals, out)


def product(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
            keepdims: bool = False) -> Any:
    """See Also: cupy.product (deprecated: ``prod``)."""
    warnings.warn("Please use `prod` instead.", DeprecationWarning)
    return _half_reduction("prod")(a, axis, dtype, out, keepdims)


def cumproduct(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
    """See Also: cupy.cumproduct (deprecated: ``cumprod``)."""
    warnings.warn("Please use `cumprod` instead.", DeprecationWarning)
    return _scan("cumprod")(a, axis, dtype, out)


def asfarray(a: Any, dtype: Any = numpy.float64) -> numpy.ndarray:
    """See Also: cupy.asfarray (``_manipulation/kind.py``; host data is copied in, as
    ``cupy.asarray`` does)."""
    if not numpy.issubdtype(dtype, numpy.inexact):
        dtype = numpy.float64
    return numpy.asarray(a.array if isinstance(a, HostArray) else a, dtype=dtype)


_REMOVED = "This function has been removed in NumPy v2.\nUse {} instead.\n"


def _removed(name: str, recommendation: str) -> Callable[..., Any]:
    """CuPy's stand-ins (``cupy/__init__.py``, NumPy 2) for a function NumPy 2 removed
    without replacement: a RuntimeError naming what to use."""
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(_REMOVED.format(recommendation))
    fn.__name__ = name
    fn.__doc__ = f"See Also\n--------\ncupy.{name}"
    return fn


#: CuPy's functions of types and objects (not of arrays: host arrays are their data;
#: ``issubclass_``, ``obj2sctype`` and the like run on the client, ``cupy/__init__.py``)
TYPE_OVERRIDES: dict[str, Callable[..., Any]] = {
    "cupy.asfarray": asfarray,
    "cupy.find_common_type": _removed("find_common_type",
                                      "`promote_types` or `result_type`"),
    "cupy.set_string_function": _removed("set_string_function", "`np.set_printoptions`"),
    "cupy.get_array_wrap": _removed("get_array_wrap", "<no replacement>"),
    "cupy.disp": _removed("disp", "your own print function"),
    "cupy.safe_eval": _removed("safe_eval", "`ast.literal_eval`"),
}


def trim_zeros(filt: Any, trim: Any = "fb") -> Any:
    """See Also: cupy.trim_zeros (``_manipulation/add_remove.py``: a 0-d array is given
    back, more than one dimension is ``NotImplementedError``, where NumPy trims every
    axis; ``trim`` is read by ``'F' in trim.upper()`` and ``'B' in ...``, other letters
    ignored, where NumPy refuses them)."""
    arr = filt.array if isinstance(filt, HostArray) else filt
    if not hasattr(arr, "ndim"):
        raise AttributeError(f"'{type(filt).__name__}' object has no attribute 'ndim'")
    if arr.ndim == 0:
        return arr
    if arr.ndim > 1:
        raise NotImplementedError("Multi-dimensional trim is not supported")
    start, end = 0, arr.size
    trim = trim.upper()
    if isinstance(filt, HostArray) and ("F" in trim or "B" in trim):
        raise _unsupported(arr)  # (CuPy's _first_nonzero_krnl takes device arrays)
    nonzero = numpy.flatnonzero(arr)
    if "F" in trim:
        start = int(nonzero[0]) if nonzero.size else arr.size
    if "B" in trim:
        end = int(nonzero[-1]) + 1 if nonzero.size else 0
    return arr[start:end]


def pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Any:
    """See Also: cupy.pad (CuPy's has no ``'median'``: commented out of its
    ``allowed_kwargs``, cupy/_padding/pad.py; it is refused in NumPy's words for a mode
    neither knows, after ``pad_width``'s checks)."""
    if isinstance(mode, str) and mode == "median":
        numpy.pad(array, pad_width, mode="empty")  # (pad_width's errors first)
        raise ValueError("mode 'median' is not supported")
    return numpy.pad(array, pad_width, mode, **kwargs)


ROUTINE_OVERRIDES: dict[str, Callable[..., Any]] = {
    "cupy.trim_zeros": trim_zeros,
    "cupy.array_equal": array_equal,
    "cupy.array_equiv": array_equiv,
    "cupy.in1d": in1d,
    "cupy.msort": msort,
    "cupy.resize": resize,
    "cupy.round_": round_,
    "cupy.round": around,
    "cupy.around": around,
    "cupy.product": product,
    "cupy.cumproduct": cumproduct,
    "cupy.reciprocal": reciprocal,
    "cupy.sign": sign,
    "cupy.argmax": _arg_reduce("argmax"),
    "cupy.argmin": _arg_reduce("argmin"),
    "cupy.nanargmax": _arg_reduce("nanargmax"),
    "cupy.nanargmin": _arg_reduce("nanargmin"),
    "cupy.sort": sort,
    "cupy.swapaxes": swapaxes,
    "cupy.partition": partition,
    "cupy.argpartition": argpartition,
    "cupy.lexsort": lexsort,
    "cupy.linalg.matrix_rank": matrix_rank,
    "cupy.linalg.svd": _two_dimensional(numpy.linalg.svd),
    "cupy.linalg.pinv": _two_dimensional(numpy.linalg.pinv),
    "cupy.linalg.qr": qr,
    "cupy.linalg.matrix_power": matrix_power,
    "cupy.linalg.solve": solve,
    "cupyx.scipy.linalg.expm": expm,
    "cupy.linalg.inv": inv,
    "cupy.linalg.cholesky": cholesky,
    "cupyx.linalg.invh": invh,
    "cupyx.linalg.cho_solve": cho_solve,
    "cupyx.linalg.sparse.lschol": lschol,
    "cupyx.seterr": seterr,
    "cupyx.geterr": geterr,
    "cupy.linalg.eig": _geev("eig"),
    "cupy.linalg.eigvals": _geev("eigvals"),
    "cupy.matmul": matmul,
    "cupy.dot": dot,
    "cupy.split": split,
    "cupy.bincount": bincount,
    "cupy.clip": clip,
    "cupy.where": where,
    "cupy.linalg.eigh": _float16_via_float32(numpy.linalg.eigh),
    "cupy.linalg.eigvalsh": _float16_via_float32(numpy.linalg.eigvalsh),
    "cupy.row_stack": row_stack,
    **{f"cupy.{name}": _joined_in_c_order(getattr(numpy, name))
       for name in ("concatenate", "stack", "vstack", "hstack", "dstack")},
    "cupy.column_stack": column_stack,
    "cupy.repeat": repeat,
    "cupy.linspace": linspace,
    "cupy.arange": arange,
    "cupy.diag": _new_array(numpy.diag),
    "cupy.tensordot": _new_array(numpy.tensordot),
    "cupy.isclose": isclose,
    "cupy.broadcast_arrays": broadcast_arrays,
    "cupy.broadcast_to": broadcast_to,
    "cupy.require": require,
    "cupy.delete": delete,
    "cupy.power": power,
    "cupy.true_divide": true_divide,
    "cupy.fmod": fmod,
    "cupy.ldexp": ldexp,
    "cupy.floor_divide": floor_divide,
    "cupy.remainder": remainder,
    "cupy.mod": remainder,
    "cupy.divmod": divmod_,
    "cupy.nextafter": nextafter,
    "cupy.angle": angle,
    "cupy.i0": i0,
    "cupy.sinc": sinc,
    "cupy.maximum": maximum,
    "cupy.minimum": minimum,
    "cupy.fmax": fmax,
    "cupy.fmin": fmin,
    "cupy.divide": true_divide,
    "cupy.absolute": absolute,
    "cupy.abs": absolute,
    "cupyx.rsqrt": rsqrt,
    "cupyx.scipy.linalg.solve_triangular": solve_triangular,
    "cupy.einsum": einsum,
    "cupy.unique_values": unique_values,
    "cupy.digitize": digitize,
    "cupy.percentile": percentile,
    "cupy.quantile": quantile,
    "cupy.searchsorted": searchsorted,
    "cupy.interp": interp,
    "cupy.real": real,
    "cupy.imag": imag,
    "cupy.meshgrid": meshgrid,
    "cupy.select": select,
    "cupy.piecewise": piecewise,
    "cupy.nan_to_num": nan_to_num,
    "cupy.tril_indices": _tri_indices("tril_indices"),
    "cupy.triu_indices": _tri_indices("triu_indices"),
    "cupy.full": full,
    "cupy.eye": eye,
    "cupy.empty_like": _like("empty_like"),
    "cupy.zeros_like": _like("zeros_like"),
    "cupy.ones_like": _like("ones_like"),
    "cupy.full_like": _like("full_like"),
    "cupy.copyto": copyto,
    "cupy.gradient": gradient,
}
for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    ROUTINE_OVERRIDES[f"cupy.{_name}"] = _comparison(getattr(numpy, _name))
for _name in ("logical_and", "logical_or", "logical_xor", "logical_not"):
    ROUTINE_OVERRIDES[f"cupy.{_name}"] = _real_logical(getattr(numpy, _name))
for _name in ("cumsum", "cumprod"):
    ROUTINE_OVERRIDES[f"cupy.{_name}"] = _scan(_name)
for _name in ("nancumsum", "nancumprod"):
    ROUTINE_OVERRIDES[f"cupy.{_name}"] = _nan_scan(_name)
ROUTINE_OVERRIDES["cupy.sort_complex"] = sort_complex
ROUTINE_OVERRIDES["cupy.packbits"], ROUTINE_OVERRIDES["cupy.unpackbits"] = packbits, unpackbits
ROUTINE_OVERRIDES["cupy.linalg.norm"] = linalg_norm
ROUTINE_OVERRIDES["cupy.argsort"] = argsort
ROUTINE_OVERRIDES["cupy.pad"] = pad


def diff(a: Any, n: Any = 1, axis: Any = -1, prepend: Any = None, append: Any = None) -> Any:
    """See Also: cupy.diff (CuPy's ``_normalize_axis_index`` refuses a 0-d array with
    AxisError, NumPy's diff with ValueError; its differences are CuPy's ``subtract``
    loops': a longlong array's are int64 'l')."""
    if isinstance(a, numpy.ndarray) and a.ndim == 0 and isinstance(n, int) and n > 0 and \
            isinstance(axis, (int, numpy.integer)):
        raise numpy.exceptions.AxisError(int(axis), 0)
    result = numpy.diff(a, n, axis, **({} if prepend is None else {"prepend": prepend}),
                        **({} if append is None else {"append": append}))
    if type(result) is numpy.ndarray and result is not a:
        if not result.flags.c_contiguous:  # (``subtract``'s output: a new C array)
            result = numpy.ascontiguousarray(result)
        cpu_cast.cupy_long(result)
    return result


ROUTINE_OVERRIDES["cupy.diff"] = diff
for _name, _kernel in (("amax", "cupy_max"), ("max", "cupy_max"), ("amin", "cupy_min"),
                       ("min", "cupy_min"), ("ptp", "cupy_max"), ("nanmax", "cupy_nanmax"),
                       ("nanmin", "cupy_nanmin")):
    ROUTINE_OVERRIDES[f"cupy.{_name}"] = _min_max(_name, _kernel)
for _name in ("sum", "prod", "mean", "nansum", "nanprod", "nanmean"):
    ROUTINE_OVERRIDES[f"cupy.{_name}"] = _half_reduction(_name)
# (CuPy never warns of an empty or all-NaN slice: NumPy's warnings dropped)
for _name in ("mean", "var", "std"):
    ROUTINE_OVERRIDES[f"cupy.{_name}"] = _quiet(
        ROUTINE_OVERRIDES.get(f"cupy.{_name}", getattr(numpy, _name)), always=False)
for _name in ("nanmean", "nanvar", "nanstd", "median", "nanmedian"):
    ROUTINE_OVERRIDES[f"cupy.{_name}"] = _quiet(
        ROUTINE_OVERRIDES.get(f"cupy.{_name}", getattr(numpy, _name)))

# --- functions that are their first argument's method in CuPy ---------------------------
#: ``cupy.<name>(a, ...)`` is ``a.<method>(...)`` in CuPy (``# TODO(okuta): check type``):
#: name -> (method, parameters after ``a``, whether they are passed positionally)
_METHOD_CALLS = {
    "sum": ("sum", ("axis", "dtype", "out", "keepdims"), True),
    "prod": ("prod", ("axis", "dtype", "out", "keepdims"), True),
    "mean": ("mean", ("axis", "dtype", "out", "keepdims"), False),
    "var": ("var", ("axis", "dtype", "out", "ddof", "keepdims"), False),
    "std": ("std", ("axis", "dtype", "out", "ddof", "keepdims"), False),
    "amax": ("max", ("axis", "out", "keepdims"), False),
    "max": ("max", ("axis", "out", "keepdims"), False),
    "amin": ("min", ("axis", "out", "keepdims"), False),
    "min": ("min", ("axis", "out", "keepdims"), False),
    "ptp": ("ptp", ("axis", "out", "keepdims"), False),
    "argmax": ("argmax", ("axis", "dtype", "out", "keepdims"), False),
    "argmin": ("argmin", ("axis", "dtype", "out", "keepdims"), False),
}
_METHOD_DEFAULTS = {"axis": None, "dtype": None, "out": None, "ddof": 0, "keepdims": False}


def _signature_of(name: str, params: tuple) -> Callable[..., tuple]:
    """A function of CuPy's ``name`` and signature giving its arguments' values (so a
    bad call raises Python's own TypeError, in CuPy's function's name)."""
    source = "def %s(a, %s):\n    return (%s,)\n" % (
        name, ", ".join(f"{p}={_METHOD_DEFAULTS[p]!r}" for p in params), ", ".join(params))
    namespace: dict = {}
    exec(source, namespace)  # (constant source: the names above)
    return namespace[name]


def as_method(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``cupy.<name>`` as CuPy's: ``fn`` for a device array, and anything else's own
    method (a list's or a Python scalar's AttributeError, a NumPy array's method with
    CuPy's arguments)."""
    method, params, positional = _METHOD_CALLS[name]
    bind = _signature_of({"max": "amax", "min": "amin"}.get(name, name), params)

    @functools.wraps(fn)
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(a, numpy.ndarray):
            if kwargs:  # (NumPy's where=, initial=...: Python's TypeError, as CuPy's)
                bind(a, *args, **kwargs)
            return fn(a, *args, **kwargs)
        values = bind(a, *args, **kwargs)
        target = getattr(a.array if isinstance(a, HostArray) else a, method)
        return target(*values) if positional else target(**dict(zip(params, values)))
    return call


def _strict_method(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """The ndarray method ``name`` (CuPy's Cython signature, ``_METHOD_CALLS``): NumPy's
    extra keywords (``where=``...) raise Python's TypeError, as CuPy's."""
    bind = _signature_of(name, _METHOD_CALLS[name][1])

    @functools.wraps(fn)
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            bind(a, *args, **kwargs)
        return fn(a, *args, **kwargs)
    return call


def typed_array(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``cupy.nansum``/``nanprod`` as CuPy's, which pass ``a`` to a Cython function
    taking ``_ndarray_base a``: anything else (but None) is Cython's TypeError."""
    bind = _signature_of(name, ("axis", "dtype", "out", "keepdims"))

    @functools.wraps(fn)
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(a, numpy.ndarray) and a is not None:
            bind(a, *args, **kwargs)
            raise argument_type_error("a", "cupy._core.core._ndarray_base",
                                      a.array if isinstance(a, HostArray) else a)
        return fn(a, *args, **kwargs)
    return call


#: ndarray methods, called as ``fn(array, *args, **kwargs)``
def ndarray_ravel(a: numpy.ndarray, order: str = "C") -> numpy.ndarray:
    """``ndarray.ravel``: CuPy's ``_reshape`` to ``(size,)``, which of a C-contiguous 1-d
    array is ``self.view()``, its strides kept (NumPy's may be recomputed: a zero-size
    array's, or one element's).

    See Also
    --------
    cupy.ndarray.ravel
    """
    out = a.ravel(order=order)
    if a.ndim == 1 and a.flags.c_contiguous and out.strides != a.strides:
        return a.view()  # (not C-contiguous: ``_internal_ascontiguousarray``'s copy)
    return out


def _reshape(a: Any, newshape: Any, order: str = "C", *, copy: Any = None) -> Any:
    """See Also: cupy.reshape (``a.reshape(newshape, order=order, copy=copy)``)"""
    if isinstance(a, numpy.ndarray):
        return ndarray_reshape(a, newshape, order=order, copy=copy)
    return numpy.reshape(a, newshape, order=order, copy=copy)


ROUTINE_OVERRIDES["cupy.reshape"] = _reshape
ROUTINE_OVERRIDES["cupy.ravel"] = lambda a, order="C": ndarray_ravel(a, order) \
    if isinstance(a, numpy.ndarray) else numpy.ravel(a, order)


ROUTINE_METHODS: dict[str, Callable[..., Any]] = {
    "ravel": ndarray_ravel,
    "argmax": _ndarray_arg_reduce("argmax"),
    "argmin": _ndarray_arg_reduce("argmin"),
    "sort": ndarray_sort,
    # (the functions have the methods' signatures)
    "argsort": argsort,
    "cumsum": ROUTINE_OVERRIDES["cupy.cumsum"],
    "cumprod": ROUTINE_OVERRIDES["cupy.cumprod"],
    "partition": ndarray_partition,
    "swapaxes": swapaxes,
    "argpartition": argpartition,
    "reshape": ndarray_reshape,
    "__bool__": ndarray_bool,
    "fill": ndarray_fill,
    "clip": ndarray_clip,
    "round": ndarray_round,
    "searchsorted": lambda a, v, side="left", sorter=None: searchsorted(a, v, side, sorter),
    "astype": ndarray_astype,
    "repeat": lambda a, repeats, axis=None: repeat(a, repeats, axis),
}
for _name in ("sum", "prod", "mean"):
    ROUTINE_METHODS[_name] = _half_reduction(_name)
ROUTINE_METHODS["mean"] = _quiet(ROUTINE_METHODS["mean"], always=False)
for _name in ("var", "std"):
    ROUTINE_METHODS[_name] = _strict_method(
        _name, _quiet(getattr(numpy.ndarray, _name), always=False))
for _name, _kernel in (("max", "cupy_max"), ("min", "cupy_min"), ("ptp", "cupy_max")):
    ROUTINE_METHODS[_name] = _min_max(_name, _kernel, method=True)


def _keepdims_view(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (a reduction function or method) whose ``keepdims=True`` result over every
    axis is a view where CUB's ``device_reduce`` gives one
    (``layouts.reduce_keepdims_is_view``: ``y.reshape(out_shape)``)."""
    params = ("axis", "dtype", "out", "keepdims") if name in ("sum", "prod", "mean") \
        else ("axis", "out", "keepdims")

    @functools.wraps(fn)
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        result = fn(a, *args, **kwargs)
        if type(a) is numpy.ndarray and isinstance(result, numpy.generic):
            result = numpy.asarray(result)  # (of a 0-d array: CuPy's is an array too)
        if type(a) is numpy.ndarray and isinstance(result, numpy.ndarray) and \
                len(args) <= len(params):
            bound = {**dict(zip(params, args)), **kwargs}
            if reduce_keepdims_is_view(
                    name, a.dtype, a.flags.c_contiguous, a.flags.f_contiguous, a.size,
                    a.ndim, bound.get("axis"), bound.get("dtype"), bound.get("out"),
                    bound.get("keepdims", False)) and result.flags.owndata:
                return result.reshape(result.shape)
        return result
    return call


for _name in ("sum", "prod", "mean", "max", "min", "ptp"):
    ROUTINE_METHODS[_name] = _keepdims_view(_name, ROUTINE_METHODS[_name])
for _name in ("sum", "prod", "mean", "amax", "max", "amin", "min", "ptp"):
    ROUTINE_OVERRIDES[f"cupy.{_name}"] = _keepdims_view(_name,
                                                        ROUTINE_OVERRIDES[f"cupy.{_name}"])

#: ndarray attributes computed differently from NumPy's, as ``fn(array)``
ROUTINE_ATTRIBUTES: dict[str, Callable[..., Any]] = {
    "imag": ndarray_imag,
}
