"""``cupy.lib.stride_tricks``: views with chosen shape and strides.

After CuPy 14.2's ``cupy/lib/stride_tricks.py`` (MIT licence, Copyright (c) 2015
Preferred Infrastructure, Inc. and Preferred Networks, Inc.): a view is an
``ndarray(memptr=x.data, strides=...)``, which gpushare lays over the server array.
"""
from __future__ import annotations

from typing import Any

import numpy


def as_strided(x: Any, shape: Any = None, strides: Any = None) -> Any:
    """Create a view into the array with the given shape and strides.

    See Also
    --------
    cupy.lib.stride_tricks.as_strided, numpy.lib.stride_tricks.as_strided
    """
    from gpushare import cupy
    shape = x.shape if shape is None else tuple(shape)
    strides = x.strides if strides is None else tuple(strides)
    data = x.data
    if not hasattr(data, "ptr"):  # (a NumPy array's memoryview: Cython's refusal of it
        # as ``ndarray.data``, a ``MemoryPointer``)
        raise TypeError(f"Cannot convert {type(data).__name__} to "
                        "cupy.cuda.memory.MemoryPointer")
    return cupy.ndarray(shape=shape, dtype=x.dtype, memptr=data, strides=strides)


def sliding_window_view(x: Any, window_shape: Any, axis: Any = None, *, subok: bool = False,
                        writeable: bool = False) -> Any:
    """Create a sliding window view into the array with the given window shape.

    See Also
    --------
    cupy.lib.stride_tricks.sliding_window_view
    """
    from gpushare import cupy
    window_shape = (tuple(window_shape) if numpy.iterable(window_shape)
                    else (window_shape,))
    if writeable:
        raise NotImplementedError("Writeable views are not supported.")
    x = cupy.array(x, copy=False, subok=subok)
    for dim in window_shape:
        if dim < 0:
            raise ValueError("`window_shape` cannot contain negative values")
    if axis is None:
        axis = tuple(range(x.ndim))
        if len(window_shape) != len(axis):
            raise ValueError(f"Since axis is `None`, must provide "
                             f"window_shape for all dimensions of `x`; "
                             f"got {len(window_shape)} window_shape elements "
                             f"and `x.ndim` is {x.ndim}.")
    else:
        axis = numpy.lib.array_utils.normalize_axis_tuple(axis, x.ndim, allow_duplicate=True)
        if len(window_shape) != len(axis):
            raise ValueError(f"Must provide matching length window_shape and "
                             f"axis; got {len(window_shape)} window_shape "
                             f"elements and {len(axis)} axes elements.")
    out_strides = x.strides + tuple(x.strides[ax] for ax in axis)
    x_shape_trimmed = list(x.shape)
    for ax, dim in zip(axis, window_shape):
        if x_shape_trimmed[ax] < dim:
            raise ValueError("window shape cannot be larger than input array shape")
        x_shape_trimmed[ax] -= dim - 1
    out_shape = tuple(x_shape_trimmed) + window_shape
    return as_strided(x, strides=out_strides, shape=out_shape)
