"""Indexing on the CPU backend with CuPy's rules.

CuPy never bounds-checks integer *array* indices on the device: out-of-range entries
wrap around (``a[cupy.array([4])]`` on a length-3 axis is ``a[1]``), in ``getitem``,
``setitem``, ``take`` and ``take_along_axis``; ``put`` defaults to ``mode='wrap'``.
Scalar integer indices and slices are basic indexing and still raise ``IndexError``.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy

from gpushare.protocol import HostArray

from . import cpu_cast


def _host(value: Any) -> Any:
    return value.array if isinstance(value, HostArray) else value


def _slice_element(x: Any, slc: slice, part: str) -> int:
    """A slice bound as CuPy reads it (``internal._extract_slice_element``): its
    ``__index__``, else ``int(x)`` (a float bound is truncated; a cupy array has no
    ``__index__``: ``x[cupy.array(1.5):]`` starts at 1); a TypeError in CuPy's words."""
    try:
        if isinstance(x, numpy.ndarray):  # (a device array: no __index__ in CuPy)
            return int(x)
        try:
            return _host(x).__index__()  # (a host NumPy array's own)
        except AttributeError:
            return int(x)
    except TypeError:
        slc = slice(_host(slc.start), _host(slc.stop), _host(slc.step))
        raise TypeError(f"slice.{part} must be int or None or have __index__ method: "
                        f"{slc}") from None


def _slice_of_ints(k: slice) -> slice:
    """``k`` with its bounds as Python ints, read as CuPy's ``internal.complete_slice``
    reads them (a zero step refused in its words)."""
    if type(k.start) in (int, type(None)) and type(k.stop) in (int, type(None)) and \
            type(k.step) in (int, type(None)) and k.step != 0:
        return k
    step = None if k.step is None else _slice_element(k.step, k, "step")
    if step == 0:
        raise ValueError("Slice step must be nonzero.")
    return slice(*(None if v is None else _slice_element(v, k, part)
                   for v, part in ((k.start, "start"), (k.stop, "stop"))), step)


def _index_item(k: Any) -> Any:
    """One entry of an index as CuPy's ``_prepare_slice_list`` leaves it: slices,
    None, Ellipsis and integer scalars as they are (a float or other scalar read with
    ``int()`` later, as ``_view_getitem`` does), everything else (lists, host arrays,
    booleans) an array."""
    if k is None or k is Ellipsis or isinstance(k, numpy.ndarray):
        return k
    if type(k) is slice:
        return _slice_of_ints(k)
    if isinstance(k, HostArray):
        arr = k.array
        if arr.dtype.hasobject or arr.dtype.kind in "SUV":  # (``core.array`` refuses it)
            raise IndexError("arrays used as indices must be of integer or boolean type "
                             f"(actual: {arr.dtype.type})")
        return arr
    if isinstance(k, (list, tuple)):
        arr = numpy.asarray(k)
        if arr.dtype.hasobject or arr.dtype.kind in "SUV":
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), "
                             "numpy.newaxis (`None`) and integer or boolean arrays are "
                             "valid indices")
        # (an empty list means empty indices, not an empty mask: CuPy makes it int32)
        return arr.astype(numpy.int32) if arr.size == 0 else arr
    if isinstance(k, (bool, numpy.bool_)):
        return numpy.asarray(k)
    if numpy.isscalar(k):
        return k
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                     "(`None`) and integer or boolean arrays are valid indices")


def _prepare_key(shape: tuple, key: Any) -> tuple:
    """``key`` as a tuple NumPy indexes exactly as CuPy's ``_view_getitem`` does, and
    whether it holds an index array (advanced indexing: a new C-contiguous array).
    CuPy's checks in its words: an index array's dtype, too many indices, a scalar
    index out of bounds, a boolean mask's shape (a zero-length mask dimension matches
    any: NumPy refuses it, so it becomes a mask of no True of the axis' length);
    integer index arrays wrap around.

    See Also
    --------
    cupy.ndarray.__getitem__
    """
    items = [_index_item(k) for k in (key if isinstance(key, tuple) else (key,))]
    total = 0
    ellipsis = False
    advanced = False
    for k in items:
        if k is None:
            continue
        if k is Ellipsis:
            if ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            ellipsis = True
        elif isinstance(k, numpy.ndarray):
            if k.dtype.kind == "b":
                total += k.ndim
            elif k.dtype.kind in "iu":
                total += 1
            else:
                raise IndexError("arrays used as indices must be of integer or boolean "
                                 f"type. (actual: {k.dtype.type})")
            advanced = True
        else:
            total += 1
    if total > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional,"
                         f" but {total} were indexed")
    arrays = [k for k in items if isinstance(k, numpy.ndarray)]
    if len(arrays) > 1:  # (``_prepare_multiple_array_indexing``: a mask is its nonzero)
        shapes = [(int(numpy.count_nonzero(k)),) if k.dtype.kind == "b" else k.shape
                  for k in arrays]
        try:
            numpy.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError("operands could not be broadcast together with shapes" +
                             " ".join(str(s) for s in shapes)) from None
    axis = 0
    out = []
    for k in items:
        if k is Ellipsis:
            axis += len(shape) - total
        elif isinstance(k, numpy.ndarray):
            if k.dtype.kind == "b":
                dims = shape[axis:axis + k.ndim]
                for i, (a_sh, m_sh) in enumerate(zip(dims, k.shape)):
                    if m_sh not in (0, a_sh):
                        raise IndexError(
                            "boolean index did not match indexed array along dimension "
                            f"{axis + i}; dimension is {a_sh} but corresponding boolean "
                            f"dimension is {m_sh}")
                if k.size == 0 and k.shape != dims:
                    k = numpy.zeros(dims, numpy.bool_)
                axis += k.ndim
            else:
                k = _wrap_array(k, shape[axis])
                axis += 1
        elif k is not None and type(k) is not slice:
            ind = int(k)  # (CuPy's ``int(s)``: a float index is truncated)
            n = shape[axis]
            if not -n <= ind < n:
                raise IndexError(f"Index {k} is out of bounds for axis {axis} with size {n}")
            k = ind
            axis += 1
        elif type(k) is slice:
            axis += 1
        out.append(k)
    return tuple(out), advanced


def _wrap_array(k: numpy.ndarray, n: int) -> numpy.ndarray:
    if n <= 0:
        return k  # indexing an empty axis: let NumPy raise its IndexError
    if k.dtype.kind == "u":
        return k % numpy.uint64(n) if k.dtype == numpy.uint64 else k.astype(numpy.intp) % n
    return k.astype(numpy.intp, copy=False) % n


def wrap_key(shape: tuple, key: Any) -> tuple:
    """``key`` as a tuple NumPy indexes as CuPy does (``_prepare_key``): integer index
    arrays wrapped into their axis' range."""
    return _prepare_key(shape, key)[0]


def scatter_at(ufunc: numpy.ufunc, a: numpy.ndarray, key: Any, value: Any) -> None:
    """``ufunc.at(a, key, value)`` as CuPy's scatter kernels compute it: index arrays
    wrap around, and ``maximum``/``minimum`` of floats through an index array are
    CuPy's ``atomicMax``/``atomicMin`` (``cupy/atomics.cuh``), which compare with
    ``fmaxf``/``fminf``: NaN loses to a number, and a float64 element touched is
    rounded to float32 on the way (its double overloads pass doubles to the float
    functions). Through a boolean mask alone they are the mask kernels' ``max(in0,
    in1)``/``min``, CUDA's ``fmax``/``fmin`` for floats (float16's through float): NaN
    loses there too, without the rounding. No index array takes CuPy's exact path.

    See Also
    --------
    cupy.ufunc.at, cupy.ndarray.scatter_max
    """
    ufunc = getattr(ufunc, "_ufunc", ufunc)  # (``cpu_routines._Ufunc``: NumPy's own)
    key = wrap_key(a.shape, key)
    arrays = [k for k in key if isinstance(k, numpy.ndarray)]
    if (ufunc is numpy.maximum or ufunc is numpy.minimum) and a.dtype.kind == "f" and \
            len(arrays) == 1 and arrays[0].dtype.kind == "b":
        (numpy.fmax if ufunc is numpy.maximum else numpy.fmin).at(a, key, value)
        return
    if (ufunc is numpy.maximum or ufunc is numpy.minimum) and a.dtype.char in "fd" and \
            arrays:
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
    """``obj[key]`` as CuPy computes it: basic indexing a view (a 0-d one, not a
    scalar); advanced indexing (index arrays wrapping around, masks, a 0-d integer
    array: CuPy's ``take`` and mask kernels) a new C-contiguous array, where NumPy's
    answer may be transposed, a view of another array, or a scalar.

    See Also
    --------
    cupy.ndarray.__getitem__
    """
    key, advanced = _prepare_key(obj.shape, key)
    if not advanced:
        return obj[key if Ellipsis in key else key + (Ellipsis,)]
    try:
        result = obj[key]
    except IndexError:
        if obj.size:
            raise
        result = _empty_take(obj, key)
    if type(result) is not numpy.ndarray or not result.flags.owndata or \
            result.strides != _c_strides(result.shape, result.itemsize):
        result = numpy.array(result, order="C")
    return result


def _empty_take(obj: numpy.ndarray, key: tuple) -> numpy.ndarray:
    """``obj[key]`` of an empty array whose index arrays index an empty axis (NumPy's
    IndexError): CuPy's ``_take`` gives an empty result, and refuses any other."""
    shape = list(obj.shape)
    axis = 0
    items = []
    for k in key:
        if k is Ellipsis:
            axis += obj.ndim - sum(_consumed(j) for j in key)
        elif isinstance(k, numpy.ndarray) and k.dtype.kind in "iu" and shape[axis] == 0:
            shape[axis] = 1  # (index 0 of a length-1 axis: the same result shape)
            k = numpy.zeros_like(k)
        axis += _consumed(k)
        items.append(k)
    out_shape = numpy.lib.stride_tricks.as_strided(
        numpy.zeros(1, numpy.bool_), shape, (0,) * len(shape))[tuple(items)].shape
    if 0 not in out_shape:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    return numpy.empty(out_shape, obj.dtype)


def _consumed(k: Any) -> int:
    """How many axes of the indexed array the (prepared) index entry ``k`` consumes."""
    if k is None or k is Ellipsis:
        return 0
    return k.ndim if isinstance(k, numpy.ndarray) and k.dtype.kind == "b" else 1


def _c_strides(shape: tuple, itemsize: int) -> tuple:
    """CuPy's C-contiguous strides (``get_contiguous_strides_inplace``: all zero
    for an empty shape)."""
    if 0 in shape:
        return (0,) * len(shape)
    strides = []
    step = itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _squeeze_leading_unit_dims(value: numpy.ndarray) -> numpy.ndarray:
    """CuPy's ``_squeeze_leading_unit_dims`` of a device value before assignment."""
    i = 0
    while i < value.ndim and value.shape[i] == 1:
        i += 1
    return value.reshape(value.shape[i:]) if i else value


def _check_broadcast_to(shape: tuple, target: tuple) -> None:
    """CuPy's ``broadcast_to`` of a value to the shape it is assigned to, in its
    words."""
    if len(shape) > len(target):
        raise ValueError("input operand has more dimensions than allowed by the axis "
                         "remapping")
    for sh, a_sh in zip(target[len(target) - len(shape):], shape):
        if sh != a_sh and a_sh != 1:
            raise ValueError("operands could not be broadcast together with shape "
                             f"{shape} and requested shape {target}")


def _host_errstate() -> Any:
    """NumPy's default error handling, for CuPy's conversions of host values made by
    NumPy on the host (the backend ignores floating point errors, as a GPU does): a
    NaN into integers warns there."""
    return numpy.errstate(all="warn", under="ignore")


def setitem(obj: numpy.ndarray, key: Any, value: Any) -> None:
    """``obj[key] = value`` as CuPy's ``_scatter_op`` does it. Basic indexing: a device
    value is copied with CuPy's ufunc broadcasting (a float array into integers
    converted as on a GPU: ``cpu_cast``), anything else is ``fill``: converted by
    ``numpy.asarray(value, dtype)`` on the host and refused unless a scalar (a list
    or a NumPy array is no value for it). Advanced indexing: the value (a host one
    through ``cupy.array(value, dtype)``) broadcast to the indexed shape with
    ``broadcast_to``'s checks; a mask selecting nothing assigns nothing.

    See Also
    --------
    cupy.ndarray.__setitem__
    """
    key, advanced = _prepare_key(obj.shape, key)
    device = type(value) is numpy.ndarray
    if device:
        value = _squeeze_leading_unit_dims(value)
    if not advanced:
        y = obj[key if Ellipsis in key else key + (Ellipsis,)]
        if not device:  # ``ndarray.fill``
            with _host_errstate():
                v = numpy.asarray(_host(value), dtype=obj.dtype)
            if v.shape != ():
                raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
            y[...] = v
            return
        try:  # ``elementwise_copy(value, y)``: the ufunc's broadcast, then its out check
            shape = numpy.broadcast_shapes(value.shape, y.shape)
        except ValueError:
            raise ValueError("operands could not be broadcast together with shapes "
                             f"{value.shape} {y.shape}") from None
        if shape != y.shape:
            raise ValueError("Out shape is mismatched")
        y[...] = cpu_cast.assign(y, value)
        return
    if device:
        v = value
    else:
        with _host_errstate():
            v = numpy.array(_host(value), dtype=obj.dtype)
    if v.ndim:
        ghost = numpy.lib.stride_tricks.as_strided(
            numpy.zeros(1, numpy.bool_), obj.shape, (0,) * obj.ndim)
        target = ghost[key].shape
        arrays = [k for k in key if isinstance(k, numpy.ndarray)]
        if len(arrays) == 1 and arrays[0].dtype.kind == "b" and 0 in target:
            return  # (``_scatter_op_mask_single`` returns before it broadcasts)
        _check_broadcast_to(v.shape, target)
    obj[key] = cpu_cast.assign(obj, v)


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
    if out is not None:  # (``_take``'s checks, before the one of an empty axis)
        shape = numpy.shape(indices)
        if axis is not None and a.ndim:
            shape = a.shape[:axis] + shape + a.shape[axis + 1:]
        if out.dtype != a.dtype:
            raise TypeError("Output dtype mismatch")
        if out.shape != shape:
            raise ValueError("Output shape mismatch")
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
    """``cupy.take_along_axis``: ``a[indices, aranges of the other axes]``, wrapping.

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
    # CuPy's fancy index of ``indices`` and aranges: shapes that do not broadcast are
    # getitem's ValueError (NumPy's take_along_axis raises IndexError)
    return getitem(a, tuple(
        indices if dim == axis else
        numpy.arange(n).reshape((1,) * dim + (-1,) + (1,) * (a.ndim - dim - 1))
        for dim, n in enumerate(a.shape)))


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
    if isinstance(v, numpy.ndarray) and v.dtype.kind == "c" and a.dtype.kind != "c" and \
            v.size:
        raise _put_compile_error(mode, v.dtype, a.dtype)
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


def _put_compile_error(mode: str, vals: numpy.dtype, data: numpy.dtype) -> Exception:
    """NVRTC's refusal of CuPy's ``cupy_put_<mode>`` kernel (``_routines_indexing.pyx``:
    ``data[ind_] = (U)(vals[...])``) for complex values into a real array: a C cast from
    ``complex<T>`` finds no conversion (CuPy's ufuncs take ``.real()``, its put does not)."""
    from .cpu_routines import nvrtc_refusal, nvrtc_typename
    # (an H200's words; the cast's target is the kernel's ``U``)
    return nvrtc_refusal(f"cupy_put_{mode}", 23,
                         f'no suitable conversion function from "const '
                         f'{nvrtc_typename(vals)}" to "U" (aka "{nvrtc_typename(data)}") '
                         'exists',
                         "      data[ind_] = (U)(vals[i % static_cast<v_idx_t>(n_vals)]);",
                         22)


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
    if not isinstance(vals, (numpy.ndarray, HostArray)):  # (``cupy.asarray(vals)``)
        vals = numpy.asarray(vals)
    put(arr, indices, vals)


def _check_array(a: Any, arg_name: str) -> None:
    """CuPy's ``_util.check_array``."""
    if not isinstance(a, numpy.ndarray):
        raise TypeError(f"'{arg_name}' must be a cupy.ndarray object, not "
                        f"{type(_host(a))}.")


def _argwhere(a: numpy.ndarray) -> numpy.ndarray:
    """CuPy's ``_ndarray_argwhere``: a new C-contiguous ``(count, ndim)`` int64 array
    (NumPy's ``argwhere`` is the transpose of another array)."""
    found = numpy.argwhere(a)
    dst = numpy.empty(found.shape, numpy.int64)  # (empty: all-zero strides, as CuPy's)
    dst[...] = found
    return dst


def ndarray_nonzero(a: numpy.ndarray) -> tuple:
    """CuPy's ``_ndarray_nonzero``: the columns of ``_argwhere``'s array (views, of
    zero strides when it is empty), and its words for a 0-d array.

    See Also
    --------
    cupy.ndarray.nonzero
    """
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. "
                         "Use cp.atleast_1d(scalar).nonzero() instead.")
    dst = _argwhere(a)
    return tuple(dst[:, i] for i in range(a.ndim))


def nonzero(a: Any) -> tuple:
    """See Also: cupy.nonzero"""
    _check_array(a, "a")
    return ndarray_nonzero(a)


def flatnonzero(a: Any) -> numpy.ndarray:
    """See Also: cupy.flatnonzero (``a.ravel().nonzero()[0]``)"""
    _check_array(a, "a")
    return ndarray_nonzero(a.ravel())[0]


def argwhere(a: Any) -> numpy.ndarray:
    """See Also: cupy.argwhere"""
    _check_array(a, "a")
    return _argwhere(a)


def putmask(a: Any, mask: Any, values: Any) -> None:
    """``cupy.putmask`` (``_indexing/insert.py``): its checks in its words (the shapes
    of ``a`` and ``mask`` equal, ``values`` cast safely), a scalar assigned through the
    mask (``a[mask] = values``), values of ``a``'s shape taken through it too, others
    repeated by flat index as its kernel does (NumPy's ``putmask``).

    See Also
    --------
    cupy.putmask
    """
    if not isinstance(a, numpy.ndarray):
        raise TypeError("`a` should be of type cupy.ndarray")
    if not isinstance(mask, numpy.ndarray):
        raise TypeError("`mask` should be of type cupy.ndarray")
    if not (numpy.isscalar(values) or isinstance(values, numpy.ndarray)):
        raise TypeError("`values` should be of type cupy.ndarray")
    if a.shape != mask.shape:
        raise ValueError("mask and data must be the same size")
    mask = mask.astype(numpy.bool_)
    if numpy.isscalar(values):
        setitem(a, mask, values)
    elif not numpy.can_cast(values.dtype, a.dtype):
        raise TypeError(f"Cannot cast array data from {values.dtype} to {a.dtype} "
                        "according to the rule 'safe'")
    elif a.shape == values.shape:
        setitem(a, mask, values[mask])
    else:
        numpy.putmask(a, mask, values.ravel())


def diagonal(a: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> numpy.ndarray:
    """CuPy's ``_diagonal`` (``_routines_indexing.pyx``): its own axis check and words
    (a 1-d array too), the axes moved last by its transposition (two equal axes: the
    error that transposition meets), a new empty array for an empty diagonal, else a
    view (made writable as CuPy's: ``to_device_result``).

    See Also
    --------
    cupy.ndarray.diagonal
    """
    _check_device(a)
    offset, axis1, axis2 = (operator.index(v) for v in (offset, axis1, axis2))
    ndim = a.ndim
    if not (-ndim <= axis1 < ndim and -ndim <= axis2 < ndim):
        raise numpy.exceptions.AxisError(
            f"axis1(={axis1}) and axis2(={axis2}) must be within range (ndim={ndim})")
    axis1 %= ndim
    axis2 %= ndim
    tr = list(range(ndim))
    del tr[max(axis1, axis2)]
    del tr[min(axis1, axis2)]
    if offset >= 0:
        a = a.transpose(tr + [axis1, axis2])
    else:
        a = a.transpose(tr + [axis2, axis1])
        offset = -offset
    size = max(0, min(a.shape[-2], a.shape[-1] - offset))
    if size == 0:
        return numpy.empty(a.shape[:-2] + (0,), a.dtype)
    return numpy.diagonal(a[..., :size, offset:offset + size], 0, -2, -1)


def choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> numpy.ndarray:
    """CuPy's ``_ndarray_choose``: ``choices`` an array (its ``shape[0]`` the number of
    choices: a list has none), ``a`` and each choice broadcast as CuPy does (its words
    when they do not), ``a`` read by its kernels' ``static_cast`` (a float ``a`` is
    truncated, where NumPy refuses it), the mode checked last.

    See Also
    --------
    cupy.ndarray.choose
    """
    _check_device(a)
    if not hasattr(choices, "shape"):
        raise AttributeError(f"'{type(choices).__name__}' object has no attribute 'shape'")
    _check_device(choices)
    n = choices.shape[0]
    if a.ndim < choices.ndim - 1:
        a = a.reshape((1,) * (choices.ndim - 1 - a.ndim) + a.shape)
    elif a.ndim > choices.ndim - 1:
        choices = choices.reshape(choices.shape[:1] + (1,) * (a.ndim + 1 - choices.ndim) +
                                  choices.shape[1:])
    try:
        shape = numpy.broadcast_shapes(a.shape, choices.shape)
    except ValueError:
        raise ValueError("operands could not be broadcast together with shapes "
                         f"{a.shape} {choices.shape}") from None
    ba = numpy.broadcast_to(a, shape)[0]
    if out is None:
        out = numpy.empty(shape[1:], choices.dtype)
    if mode == "raise":
        if not ((ba < n).all() and (0 <= ba).all()):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        ba = ba % n
    elif mode == "clip":
        ba = numpy.where(ba < 0, 0, numpy.where(ba >= n, n - 1, ba))
    else:
        raise ValueError("clipmode not understood")
    if isinstance(out, numpy.ndarray) and out.dtype != choices.dtype:
        # (``_choose_kernel``'s ``raw T choices`` and ``T y``: out's dtype decides T first,
        # ``_kernel.pyx: _decide_params_type_core``)
        raise TypeError(f"Type is mismatched. choices {choices.dtype} {out.dtype} T")
    with numpy.errstate(invalid="ignore"):
        index = ba.astype(numpy.intp)[None]
    out[...] = numpy.take_along_axis(numpy.broadcast_to(choices, shape), index, 0)[0]
    return out


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
    "cupy.nonzero": nonzero,
    "cupy.flatnonzero": flatnonzero,
    "cupy.argwhere": argwhere,
    "cupy.putmask": putmask,
    "cupy.diagonal": diagonal,
    "cupy.choose": choose,
}

#: ndarray methods, called as ``fn(array, *args, **kwargs)``
INDEXING_METHODS: dict[str, Any] = {
    "take": ndarray_take,
    "put": ndarray_put,
    "compress": ndarray_compress,
    "nonzero": ndarray_nonzero,
    "diagonal": diagonal,
    "choose": choose,
}
