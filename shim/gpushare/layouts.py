"""Result layouts of CuPy routines whose layout depends on how CuPy computes them, as
data both sides use: the client to predict a pipelined result's strides and flags,
the CPU backend to build the same (read from CuPy 14.2's source and checked on a GPU).

CuPy runs these through CUB, its default accelerator on NVIDIA GPUs
(``CUPY_ACCELERATORS`` unset); a server that turns CUB off gets other flags.
"""
from __future__ import annotations

import numpy

#: dtypes CUB reduces (``cupy.cuda.cub.CUB_support_dtype_with_half``)
_CUB_DTYPES = frozenset("bBhHiIlLqQefdFD")


def arg_reduce_is_view(name: str, dtype: numpy.dtype, c_contiguous: bool,
                       f_contiguous: bool, size: int) -> bool:
    """Whether ``a.argmax()``/``a.argmin()`` over the whole array (no ``axis``, ``dtype``,
    ``out`` or ``keepdims``) gives a 0-d view rather than an array of its own: CUB's
    ``device_reduce`` takes the index out of a key-value buffer
    (``y[0:4].view(int32).astype(int64)[0]``). CuPy's argmax casts an F-contiguous
    bool array to int8 first, which CUB then takes."""
    if not (c_contiguous or f_contiguous) or not 0 < size <= 0x7FFFFFFF:
        return False
    if name == "argmax" and dtype == numpy.bool_ and f_contiguous:
        return True
    return name in ("argmax", "argmin") and dtype.char in _CUB_DTYPES


def moved_axis_strides(shape: tuple, axis: int, itemsize: int) -> tuple:
    """Strides of CuPy's ``rollaxis(c, -1, axis)``, where ``c`` is a new C-contiguous
    array of ``shape`` with ``axis`` moved last: ``argsort`` along any axis but the
    last returns that view."""
    moved = shape[:axis] + shape[axis + 1:] + (shape[axis],)
    strides, step = [], itemsize
    for n in reversed(moved):
        strides.append(step)
        step *= max(n, 1)
    strides.reverse()
    return tuple(strides[:axis]) + (strides[-1],) + tuple(strides[axis:-1])
