"""CuPy routines that take Python callables or client objects, run on the client.

A Python function cannot travel to the server, so the routines that call one
(``fromfunction``, ``mask_indices``, ``apply_along_axis``, ``apply_over_axes``) run
here, as CuPy's own pure-Python versions do, each array operation inside them going
to the server; ``vectorize`` transpiles its function into an elementwise kernel
(``_vectorize``). ``poly1d`` and its routines are in
``_poly``.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy

from . import _vectorize


def _cp() -> Any:
    from gpushare import cupy
    return cupy


def fromfunction(*args: Any, **kwargs: Any) -> Any:
    """Construct an array by executing a function over each coordinate: CuPy's runs
    NumPy's ``fromfunction`` (the function is given NumPy arrays) and copies the result
    to the device (``cupy/_creation/from_data.py``).

    See Also
    --------
    cupy.fromfunction
    """
    import numpy
    return _cp().asarray(numpy.fromfunction(*args, **kwargs))


def mask_indices(n: int, mask_func: Any, k: Any = 0) -> tuple:
    """The indices of the non-zero entries of ``mask_func(ones((n, n)), k)``.

    See Also
    --------
    cupy.mask_indices
    """
    a = _cp().ones((n, n), dtype=numpy.int8)
    return mask_func(a, k).nonzero()


def apply_along_axis(func1d: Any, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """Apply a function to 1-D slices along the given axis.

    See Also
    --------
    cupy.apply_along_axis
    """
    cupy = _cp()
    arr = cupy.asarray(arr)
    ndim = arr.ndim
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise numpy.exceptions.AxisError(axis, ndim)
    axis %= ndim
    inarr_view = cupy.moveaxis(arr, axis, -1)
    inds = (ind + (Ellipsis,) for ind in numpy.ndindex(inarr_view.shape[:-1]))
    try:
        ind0 = next(inds)
    except StopIteration:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0") \
            from None
    res = cupy.asarray(func1d(inarr_view[ind0], *args, **kwargs))
    buff = cupy.empty(inarr_view.shape[:-1] + res.shape, res.dtype)
    buff[ind0] = res
    for ind in inds:
        buff[ind] = cupy.asarray(func1d(inarr_view[ind], *args, **kwargs))
    for _ in range(res.ndim):
        buff = cupy.moveaxis(buff, -1, axis)
    return buff


def apply_over_axes(func: Any, a: Any, axes: Any) -> Any:
    """Apply a function repeatedly over multiple axes.

    See Also
    --------
    cupy.apply_over_axes
    """
    cupy = _cp()
    val = cupy.asarray(a)
    n = a.ndim
    if numpy.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        if axis < 0:
            axis = n + axis
        args = (val, axis)
        res = func(*args)
        if res.ndim == val.ndim:
            val = res
        else:
            res = cupy.expand_dims(res, axis)
            if res.ndim == val.ndim:
                val = res
            else:
                raise ValueError("function is not returning an array of the correct shape")
    return val


vectorize = _vectorize.vectorize

LOCAL_NAMES = ("fromfunction", "mask_indices", "apply_along_axis", "apply_over_axes",
               "vectorize")
