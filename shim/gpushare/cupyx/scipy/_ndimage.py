"""``cupyx.scipy.ndimage``'s functions that call the user's Python functions run here,
on the client, as CuPy's (CuPy 14.2's ``_filters.py`` and ``_measurements.py``, MIT
licence, ``LICENSE.cupy``). The derivative given to ``generic_laplace`` and
``generic_gradient_magnitude`` (``sobel``, ``correlate1d``... or the user's own) is called
once per axis, and ``labeled_comprehension``'s ``func`` once per region, on device
arrays, so each of their calls is an ordinary call to the server. The rest of the
module is served (the CPU backend's CuPy semantics: ``backends/cpu_ndimage.py``).
"""
from __future__ import annotations

import types
from typing import Any, Callable

from ...ndimage_args import check_axes as _check_axes, check_mode as _check_mode
from ...ndimage_args import fix_sequence_arg as _fix_sequence_arg, get_output


def _get_output(output: Any, input: Any) -> Any:
    from ... import cupy
    return get_output(output, input, cupy.empty)


def generic_laplace(input: Any, derivative2: Callable, output: Any = None,
                    mode: str = "reflect", cval: float = 0.0, extra_arguments: tuple = (),
                    extra_keywords: dict | None = None, *, axes: Any = None) -> Any:
    """Multi-dimensional Laplace filter using a provided second derivative function.

    ``derivative2(input, axis, output, mode, cval, *extra_arguments, **extra_keywords)``
    is called once per axis (here, on the client; its calls run on the server).

    See Also
    --------
    cupyx.scipy.ndimage.generic_laplace
    """
    if extra_keywords is None:
        extra_keywords = {}
    axes = _check_axes(axes, input.ndim)
    num_axes = len(axes)
    output = _get_output(output, input)
    if num_axes > 0:
        modes = _fix_sequence_arg(mode, num_axes, "mode", _check_mode)
        derivative2(input, axes[0], output, modes[0], cval,
                    *extra_arguments, **extra_keywords)
        if num_axes > 1:
            tmp = _get_output(output.dtype, input)
            for i in range(1, num_axes):
                derivative2(input, axes[i], tmp, modes[i], cval,
                            *extra_arguments, **extra_keywords)
                output += tmp
    else:
        output[...] = input
    return output


def generic_gradient_magnitude(input: Any, derivative: Callable, output: Any = None,
                               mode: str = "reflect", cval: float = 0.0,
                               extra_arguments: tuple = (),
                               extra_keywords: dict | None = None, *,
                               axes: Any = None) -> Any:
    """Multi-dimensional gradient magnitude filter using a provided derivative function.

    ``derivative(input, axis, output, mode, cval, *extra_arguments, **extra_keywords)``
    is called once per axis (here, on the client; its calls run on the server).

    See Also
    --------
    cupyx.scipy.ndimage.generic_gradient_magnitude
    """
    from ... import cupy
    if extra_keywords is None:
        extra_keywords = {}
    ndim = input.ndim
    axes = _check_axes(axes, ndim)
    num_axes = len(axes)
    modes = _fix_sequence_arg(mode, num_axes, "mode", _check_mode)
    output = _get_output(output, input)
    if ndim == 0:
        output[...] = input
        return output
    derivative(input, axes[0], output, modes[0], cval, *extra_arguments, **extra_keywords)
    output *= output
    if ndim > 1:
        tmp = _get_output(output.dtype, input)
        for i in range(1, num_axes):
            derivative(input, axes[i], tmp, modes[i], cval,
                       *extra_arguments, **extra_keywords)
            tmp *= tmp
            output += tmp
    return cupy.sqrt(output, output, casting="unsafe")


def labeled_comprehension(input: Any, labels: Any, index: Any, func: Callable,
                          out_dtype: Any, default: Any, pass_positions: bool = False) -> Any:
    """Array resulting from applying ``func`` to each labeled region.

    ``func`` (a Python function) is called here, on the client, with the device
    array of each region's values (and positions).

    See Also
    --------
    cupyx.scipy.ndimage.labeled_comprehension
    """
    import numpy

    from ... import cupy
    as_scalar = cupy.isscalar(index)
    input = cupy.asarray(input)
    if pass_positions:
        positions = cupy.arange(input.size).reshape(input.shape)
    if labels is None:
        if index is not None:
            raise ValueError("index without defined labels")
        if not pass_positions:
            return func(input.ravel())
        return func(input.ravel(), positions.ravel())
    try:
        input, labels = cupy.broadcast_arrays(input, labels)
    except ValueError:
        raise ValueError("input and labels must have the same shape "
                         "(excepting dimensions with width 1)") from None
    if index is None:
        if not pass_positions:
            return func(input[labels > 0])
        return func(input[labels > 0], positions[labels > 0])
    index = cupy.atleast_1d(index)
    if cupy.any(index.astype(labels.dtype).astype(index.dtype) != index):
        raise ValueError(f"Cannot convert index values from <{index.dtype}> to "
                         f"<{labels.dtype}> (labels.dtype) without loss of precision")
    index = index.astype(labels.dtype)
    lo, hi = index.min(), index.max()
    mask = (labels >= lo) & (labels <= hi)
    labels, input = labels[mask], input[mask]
    if pass_positions:
        positions = positions[mask]
    label_order = labels.argsort()
    labels, input = labels[label_order], input[label_order]
    if pass_positions:
        positions = positions[label_order]
    index_order = index.argsort()
    sorted_index = index[index_order]

    def do_map(inputs: list, output: Any) -> None:
        lows = cupy.searchsorted(labels, sorted_index, side="left").get()
        highs = cupy.searchsorted(labels, sorted_index, side="right").get()
        for i, (low, high) in enumerate(zip(lows, highs)):
            if low == high:
                continue
            output[i] = func(*[inp[low:high] for inp in inputs])

    if out_dtype == object:  # noqa: E721
        temp: Any = {i: default for i in range(index.size)}
    else:
        temp = cupy.empty(index.shape, out_dtype)
        if default is None and temp.dtype.kind in "fc":
            default = numpy.nan  # NumPy's floating-point None
        temp[:] = default
    do_map([input, positions] if pass_positions else [input], temp)
    if out_dtype == object:  # noqa: E721
        order = cupy.asnumpy(index_order)
        output = [temp[i] for i in order.argsort()]
    else:
        output = cupy.zeros(index.shape, out_dtype)
        output[cupy.asnumpy(index_order)] = temp
    if as_scalar:
        output = output[0]
    return output


def install(mod: types.ModuleType) -> None:
    """Put the client's functions in gpushare's ``cupyx.scipy.ndimage``."""
    for fn in (generic_laplace, generic_gradient_magnitude, labeled_comprehension):
        fn.__module__ = "cupyx.scipy.ndimage"
        setattr(mod, fn.__name__, fn)
