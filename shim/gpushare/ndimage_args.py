"""CuPy's argument checks of ``cupyx.scipy.ndimage`` (its ``_util.py``, CuPy 14.2, MIT
licence, ``LICENSE.cupy``), pure Python: the client's filters that call Python functions
(``cupyx/scipy/_ndimage.py``) and the CPU backend's (``backends/cpu_ndimage.py``) raise
CuPy's errors through these."""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy

#: the boundary modes CuPy's filters take
MODES = ("reflect", "constant", "nearest", "mirror", "wrap", "grid-mirror", "grid-wrap",
         "grid-reflect")
#: the modes CuPy's interpolations take (``_interpolation._check_parameter``); the
#: last two go through ``affine_transform``
INTERPOLATION_MODES = ("constant", "grid-constant", "nearest", "mirror", "reflect",
                       "grid-mirror", "wrap", "grid-wrap", "opencv", "_opencv_edge")


def fix_sequence_arg(arg: Any, ndim: int, name: str, conv: Callable = lambda x: x) -> list:
    """``arg`` (a value, or one per axis) as a list of ``ndim`` values."""
    if isinstance(arg, str):
        return [conv(arg)] * ndim
    try:
        it = iter(arg)
    except TypeError:
        return [conv(arg)] * ndim
    lst = [conv(x) for x in it]
    if len(lst) != ndim:
        raise RuntimeError(f"{name} must have length equal to input rank")
    return lst


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise RuntimeError(f"boundary mode not supported (actual: {mode})")
    return mode


def check_origin(origin: Any, width: int) -> int:
    origin = int(origin)
    if (width // 2 + origin < 0) or (width // 2 + origin >= width):
        raise ValueError("invalid origin")
    return origin


def check_axes(axes: Any, ndim: int) -> tuple:
    """``axes`` (None, an int or ints) as a tuple of distinct non-negative axes."""
    if axes is None:
        return tuple(range(ndim))
    if numpy.isscalar(axes):
        axes = (operator.index(axes),)
    elif hasattr(axes, "__iter__"):
        axes = tuple(operator.index(ax) for ax in axes)
        for ax in axes:
            if ax < -ndim or ax > ndim - 1:
                raise numpy.exceptions.AxisError(f"specified axis: {ax} is out of range")
        axes = tuple(ax % ndim if ax < 0 else ax for ax in axes)
    else:
        raise ValueError("axes must be an integer, iterable of integers, or None")
    if len(set(axes)) != len(axes):
        raise ValueError("axes must be unique")
    return axes


def get_output(output: Any, input: Any, empty: Callable) -> Any:
    """CuPy's ``_util._get_output``: the array a filter writes, made by ``empty``
    (``cupy.empty`` on the client, ``numpy.empty`` in the CPU backend) unless given."""
    if output is None:
        return empty(input.shape, dtype=input.dtype)
    if isinstance(output, (type, numpy.dtype, str)):
        return empty(input.shape, dtype=numpy.dtype(output))
    if output.shape != input.shape:
        raise RuntimeError("output shape not correct")
    return output
