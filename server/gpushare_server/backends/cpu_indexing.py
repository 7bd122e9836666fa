"""Indexing on the CPU backend with CuPy's rules.

CuPy never bounds-checks integer *array* indices on the device: out-of-range entries
wrap around (``a[cupy.array([4])]`` on a length-3 axis is ``a[1]``), in ``getitem``,
``setitem``, ``take`` and ``take_along_axis``; ``put`` defaults to ``mode='wrap'``.
Scalar integer indices and slices are basic indexing and still raise ``IndexError``.
"""
from __future__ import annotations

from typing import Any

import numpy

from gpushare.protocol import HostArray

from . import cpu_cast


def _host(value: Any) -> Any:
    return value.array if isinstance(value, HostArray) else value


def _as_index_array(k: Any) -> Any:
    """A list index as NumPy would read it (an array), or ``k`` unchanged."""
    if isinstance(k, list):
        try:
            arr = numpy.asarray(k)
        except ValueError:
            return k
        if arr.dtype.kind in "iub":
            return arr
    return k


def _slice_of_ints(k: slice) -> slice:
    """``k`` with its device-array bounds as Python ints: CuPy's slicing reads a bound
    with ``__index__``, else ``int(x)`` (``internal._extract_slice_element``), and a
    cupy array has no ``__index__`` (``x[cupy.array(1.5):]`` starts at 1). NumPy's
    arrays (host ones) keep theirs."""
    parts = (k.start, k.stop, k.step)
    if not any(isinstance(v, (numpy.ndarray, HostArray)) for v in parts):
        return k
    return slice(*(int(v) if isinstance(v, numpy.ndarray) else _host(v) for v in parts))


def _consumed(k: Any) -> int:
    """How many axes of the indexed array the index entry ``k`` consumes."""
    if k is None or k is Ellipsis or isinstance(k, (bool, numpy.bool_)):
        return 0
    if isinstance(k, numpy.ndarray) and k.dtype == numpy.bool_:
        return k.ndim
    return 1


def _wrap_array(k: numpy.ndarray, n: int) -> numpy.ndarray:
    if n <= 0:
        return k  # indexing an empty axis: let NumPy raise its IndexError
    if k.dtype.kind == "u":
        return k % numpy.uint64(n) if k.dtype == numpy.uint64 else k.astype(numpy.intp) % n
    return k.astype(numpy.intp, copy=False) % n


def wrap_key(shape: tuple, key: Any) -> Any:
    """``key`` with every integer index array wrapped into its axis' range.

    See Also
    --------
    cupy.ndarray.__getitem__
    """
    single = not isinstance(key, tuple)
    items = [_slice_of_ints(k) if type(k) is slice else _as_index_array(_host(k))
             for k in ([key] if single else key)]
    if not any(isinstance(k, numpy.ndarray) and k.dtype.kind in "iu" for k in items):
        return items[0] if single else tuple(items)
    total = sum(_consumed(k) for k in items)
    axis = 0
    out = []
    for k in items:
        if k is Ellipsis:
            axis += max(len(shape) - total, 0)
        elif isinstance(k, numpy.ndarray) and k.dtype.kind in "iu":
            if axis < len(shape):
                k = _wrap_array(k, shape[axis])
            axis += 1
        else:
            axis += _consumed(k)
        out.append(k)
    return out[0] if single else tuple(out)


def scatter_at(ufunc: numpy.ufunc, a: numpy.ndarray, key: Any, value: Any) -> None:
    """``ufunc.at(a, key, value)`` as CuPy's scatter kernels compute it: index arrays
    wrap around, and ``maximum``/``minimum`` of floats through an index array are
    CuPy's ``atomicMax``/``atomicMin`` (``cupy/atomics.cuh``), which compare with
    ``fmaxf``/``fminf``: NaN loses to a number, and a float64 element touched is
    rounded to float32 on the way (its double overloads pass doubles to the float
    functions). A boolean mask alone, or no index array, takes CuPy's exact paths.

    See Also
    --------
    cupy.ufunc.at, cupy.ndarray.scatter_max
    """
    key = wrap_key(a.shape, key)
    if (ufunc is numpy.maximum or ufunc is numpy.minimum) and a.dtype.char in "fd" and \
            any(isinstance(k, numpy.ndarray) and k.dtype.kind in "iu"
                for k in (key if isinstance(key, tuple) else (key,))):
        with numpy.errstate(all="ignore"):  # (float64 beyond float32's range: inf)
            rounded = a.astype(numpy.float32)
            (numpy.fmax if ufunc is numpy.maximum else numpy.fmin).at(
                rounded, key, numpy.asarray(value).astype(numpy.float32))
        touched = numpy.zeros(a.shape, bool)
        touched[key] = True
        a[touched] = rounded[touched]
        return
    ufunc.at(a, key, value)


def getitem(obj: numpy.ndarray, key: Any) -> numpy.ndarray:
    """``obj[key]`` as CuPy computes it (wrapping index arrays, 0-d views not scalars).

    See Also
    --------
    cupy.ndarray.__getitem__
    """
    zero_d = _has_0d_index(key)
    key = wrap_key(obj.shape, key)
    result = obj[key]
    if zero_d:
        # CuPy reads a 0-d integer array (cupy's or NumPy's) as an index array, where
        # NumPy reads an integer: advanced indexing, a new C-contiguous array
        # (``_prepare_slice_list``, ``take``); NumPy's answer is a view or a scalar
        return numpy.array(result, order="C")
    if isinstance(result, numpy.generic):  # CuPy returns a 0-d view
        key = key if isinstance(key, tuple) else (key,)
        result = obj[key + (Ellipsis,)]
    return result


def _has_0d_index(key: Any) -> bool:
    """Whether ``key`` holds a 0-d integer array (a device array, or a host one)."""
    for k in key if isinstance(key, tuple) else (key,):
        k = _host(k)
        if isinstance(k, numpy.ndarray) and k.ndim == 0 and k.dtype.kind in "iu":
            return True
    return False


def setitem(obj: numpy.ndarray, key: Any, value: Any) -> None:
    """``obj[key] = value`` as CuPy does it (index arrays wrap; a float array into
    integers converted as on a GPU: ``cpu_cast``).

    See Also
    --------
    cupy.ndarray.__setitem__
    """
    # (CuPy accepts numpy arrays as values, converted by NumPy on the host)
    obj[wrap_key(obj.shape, key)] = _host(cpu_cast.assign(obj, value))


def _check_device(a: Any) -> None:
    if isinstance(a, HostArray):
        raise TypeError(f"Unsupported type {type(a.array)}")


def take(a: Any, indices: Any, axis: Any = None, out: Any = None) -> numpy.ndarray:
    """Fancy indexing along one axis; out-of-range indices wrap.

    See Also
    --------
    cupy.take
    """
    _check_device(a)
    indices = _host(indices)
    if axis is not None:  # CuPy checks the axis first (a 0-d array's against one axis)
        axis = numpy.lib.array_utils.normalize_axis_index(axis, max(a.ndim, 1))
    n = a.size if axis is None or a.ndim == 0 else a.shape[axis]
    if n == 0 and numpy.size(indices):
        raise IndexError("cannot do a non-empty take from an empty axes.")
    return numpy.take(a, indices, axis, out, mode="wrap")


def compress(condition: Any, a: Any, axis: Any = None, out: Any = None) -> numpy.ndarray:
    """``take`` of the condition's nonzero indices, as CuPy's (``_ndarray_compress``): a
    condition longer than the axis wraps around, and a device condition of any shape
    gives its first axis' indices; a scalar or a host condition not 1-d raises.

    See Also
    --------
    cupy.compress
    """
    if numpy.isscalar(condition):
        raise ValueError("condition must be a 1-d array")
    if not isinstance(condition, numpy.ndarray):  # (a host one: ``core.array(c, int)``)
        condition = numpy.array(_host(condition), dtype=int)
        if condition.ndim != 1:
            raise ValueError("condition must be a 1-d array")
    return take(a, numpy.nonzero(condition)[0], axis, out)


def take_along_axis(a: Any, indices: Any, axis: Any) -> numpy.ndarray:
    """``numpy.take_along_axis`` with CuPy's wrapping of out-of-range indices.

    See Also
    --------
    cupy.take_along_axis
    """
    _check_device(a)
    _check_device(indices)
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        a = a.ravel()
        axis = 0
    axis = numpy.lib.array_utils.normalize_axis_index(axis, a.ndim)
    if a.ndim != indices.ndim:
        raise ValueError("`indices` and `a` must have the same number of dimensions")
    return numpy.take_along_axis(a, _wrap_array(indices, a.shape[axis]), axis)


def put_along_axis(arr: Any, indices: Any, values: Any, axis: Any) -> None:
    """``arr[fancy index] = values`` as CuPy writes it (``lib/_shape_base.py``): index
    arrays wrap (NumPy raises IndexError for an out-of-range one); ``axis=None`` is
    ``cupy.put`` of a 1-D ``indices``.

    See Also
    --------
    cupy.put_along_axis
    """
    _check_device(arr)
    _check_device(indices)
    if axis is None:
        if indices.ndim != 1:
            raise NotImplementedError("Tuple setitem isn't supported for flatiter.")
        put(arr, indices, values)
        return
    axis = numpy.lib.array_utils.normalize_axis_index(axis, arr.ndim)
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if arr.ndim != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    key = tuple(indices if dim == axis else
                numpy.arange(n).reshape((1,) * dim + (-1,) + (1,) * (arr.ndim - dim - 1))
                for dim, n in enumerate(arr.shape))
    setitem(arr, key, values)


def put(a: Any, ind: Any, v: Any, mode: str = "wrap") -> None:
    """``numpy.put`` with CuPy's default ``mode='wrap'``.

    See Also
    --------
    cupy.put
    """
    _check_device(a)
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError("clipmode not understood")
    ind = _host(ind)
    v = _host(cpu_cast.assign(a, v))  # (a device float array: converted as on a GPU)
    if numpy.size(v) == 0:  # (CuPy returns before it looks at the indices)
        return
    if a.size == 0:
        if numpy.size(ind):
            raise IndexError("cannot replace elements of an empty array")
        return
    if mode == "raise":
        # CuPy's kernel writes every index in bounds, and flags the others: raised after
        flat = numpy.asarray(ind).ravel()
        valid = (flat >= -a.size) & (flat < a.size)
        if not valid.all():
            values = numpy.resize(numpy.asarray(v, a.dtype).ravel(), flat.size)
            numpy.put(a, flat[valid], values[valid])
            raise IndexError("invalid entry in indices array")
    numpy.put(a, ind, v, mode=mode)


def place(arr: Any, mask: Any, vals: Any) -> None:
    """``cupy.place`` (``_indexing/insert.py``): ``arr.put`` of the mask's nonzero
    indices, so device values are converted as CuPy's put kernel converts them (a
    float array into integers: saturating, ``cpu_cast``). ``mask`` and ``vals`` come as
    device arrays (``cpu_host.HOST_PARAMS``); a host ``arr`` is refused (CuPy's own
    fails when NumPy's ``put`` is given device arrays: a TypeError too).

    See Also
    --------
    cupy.place
    """
    _check_device(arr)
    if arr.size != mask.size:
        raise ValueError("Mask and data must be the same size.")
    indices = numpy.flatnonzero(mask)
    if indices.size == 0:
        return
    if numpy.size(vals) == 0:
        raise ValueError("Cannot insert from an empty array.")
    put(arr, indices, vals)


def ndarray_take(a: numpy.ndarray, indices: Any, axis: Any = None, out: Any = None) -> Any:
    return take(a, indices, axis, out)


def ndarray_put(a: numpy.ndarray, indices: Any, values: Any, mode: str = "wrap") -> None:
    put(a, indices, values, mode)


def ndarray_compress(a: numpy.ndarray, condition: Any, axis: Any = None,
                     out: Any = None) -> numpy.ndarray:
    return compress(condition, a, axis, out)


INDEXING_OVERRIDES: dict[str, Any] = {
    "cupy.take": take,
    "cupy.compress": compress,
    "cupy.take_along_axis": take_along_axis,
    "cupy.put": put,
    "cupy.place": place,
    "cupy.put_along_axis": put_along_axis,
}

#: ndarray methods, called as ``fn(array, *args, **kwargs)``
INDEXING_METHODS: dict[str, Any] = {
    "take": ndarray_take,
    "put": ndarray_put,
    "compress": ndarray_compress,
}
