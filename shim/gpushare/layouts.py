"""Result layouts of CuPy routines whose layout depends on how CuPy computes them, as
data both sides use: the client to predict a pipelined result's strides and flags,
the CPU backend to build the same (read from CuPy 14.2's source and checked on a GPU).

CuPy runs these through CUB, its default accelerator on NVIDIA GPUs
(``CUPY_ACCELERATORS`` unset); a server that turns CUB off gets other flags.
"""
from __future__ import annotations

from typing import Any

import numpy

#: dtypes CUB reduces (``cupy.cuda.cub.CUB_support_dtype_with_half``)
_CUB_DTYPES = frozenset("bBhHiIlLqQefdFD")


_ORDER_LETTERS = frozenset("KkAaCcFf")


def normalize_order(order: Any, allow_k: bool = True) -> str:
    """CuPy's ``internal._normalize_order``: the order's first letter, upper case
    ('' is 'C'); ``ValueError('order not understood')`` for anything else (and the
    TypeError ``len()`` raises for None or a number, as CuPy's); ``allow_k=False``
    refuses 'K' as ``reshape`` does."""
    first = "C" if len(order) == 0 else chr(ord(order[0]))
    if first not in _ORDER_LETTERS:
        raise ValueError("order not understood")
    letter = first.upper()
    if letter == "K" and not allow_k:
        raise ValueError("order 'K' is not permitted")
    return letter


def creation_layout(order: Any) -> str:
    """The layout ``cupy.ndarray(shape, dtype, order=order)`` gives (``core.pyx``
    ``_init``): 'C' for None, '' and C; 'F' for F, A and K (C strides only for 'C');
    an unknown letter is CuPy's ValueError."""
    return "C" if order is None or normalize_order(order) == "C" else "F"


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


#: dtypes CUB sums and multiplies without a ``dtype`` (``cub.pyx``:
#: ``CUB_sum_support_dtype``)
_CUB_SUM_DTYPES = frozenset("lLqQefdFD")
#: the reductions CuPy's ``_ndarray_<name>`` hands to ``cub.cub_reduction`` (``ptp``:
#: CUB's max, then ``-=`` CUB's min in place; ``mean``: CUB's sum divided in place)
_CUB_KIND = {"sum": "sum", "prod": "sum", "mean": "sum", "max": "max", "amax": "max",
             "min": "max", "amin": "max", "ptp": "max"}


def reduce_keepdims_is_view(name: str, dtype: numpy.dtype, c_contiguous: bool,
                            f_contiguous: bool, size: int, ndim: int, axis: Any = None,
                            reduce_dtype: Any = None, out: Any = None,
                            keepdims: Any = False) -> bool:
    """Whether ``a.<name>(axis, dtype, out, keepdims=True)`` over every axis gives a view
    (not OWNDATA): CUB's ``device_reduce`` answers a 0-d array and returns
    ``y.reshape(out_shape)`` for ``keepdims`` (the GPU: ``a.sum(keepdims=True)``'s
    flags are C and F only). ``a`` C- or F-contiguous, of a CUB dtype (a sum's or
    product's own list without ``dtype``; else ``dtype`` its own), at most 2**31 - 1
    items; ``mean`` only where it skips its final ``astype`` (float32/64, complex, no
    ``dtype``)."""
    kind = _CUB_KIND.get(name)
    if kind is None or not keepdims or out is not None or \
            not (c_contiguous or f_contiguous) or size > 0x7FFFFFFF:
        return False
    if axis is not None:
        try:
            axes = axis if isinstance(axis, (tuple, list)) else (axis,)
            if len({int(ax) % max(ndim, 1) for ax in axes}) != ndim or \
                    any(not -ndim <= int(ax) < max(ndim, 1) for ax in axes):
                return False
        except (TypeError, ValueError):
            return False
    char = dtype.char
    if name == "mean":
        return reduce_dtype is None and char in "fdFD"
    if reduce_dtype is None:
        return char in (_CUB_SUM_DTYPES if kind == "sum" else _CUB_DTYPES)
    try:
        return numpy.dtype(reduce_dtype) == dtype and char in _CUB_DTYPES
    except TypeError:
        return False


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


def broadcast_strides(shape: tuple, strides: tuple, out_shape: tuple) -> tuple:
    """Strides of CuPy's ``broadcast_to(a, out_shape)`` (and of each of
    ``broadcast_arrays``' views) for ``a`` of ``shape`` and ``strides``: an axis whose
    length is kept keeps its stride, even a length-1 one (NumPy gives those 0); a
    broadcast axis gets 0. Raise ValueError where CuPy does."""
    lead = len(out_shape) - len(shape)
    if lead < 0:
        raise ValueError("input operand has more dimensions than allowed by the axis "
                         "remapping")
    out = [0] * len(out_shape)
    for i, (n, st) in enumerate(zip(shape, strides)):
        if out_shape[lead + i] == n:
            out[lead + i] = st
        elif n != 1:
            raise ValueError(f"operands could not be broadcast together with shape "
                             f"{tuple(shape)} and requested shape {tuple(out_shape)}")
    return tuple(out)
