"""``cupyx.scipy.ndimage``'s functions that call the user's Python functions run here,
on the client, as CuPy's (CuPy 14.2's ``_filters.py`` and ``_measurements.py``, MIT
licence, ``LICENSE.cupy``). The derivative given to ``generic_laplace`` and
``generic_gradient_magnitude`` (``sobel``, ``correlate1d``... or the user's own) is called
once per axis, and ``labeled_comprehension``'s ``func`` once per region, on device
arrays, so each of their calls is an ordinary call to the server. The rest of the
module is served (the CPU backend's CuPy semantics: ``backends/cpu_ndimage.py``).
"""
from __future__ import annotations

import math
import types
from typing import Any, Callable, NamedTuple

from ...ndimage_args import INTERPOLATION_MODES, MODES
from ...signal_windows import WITHOUT_PARAMETERS
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


# --- the common filters in their plain forms, pipelined ---------------------------------
# Each writes into ``_util._get_output(None, input)``, ``cupy.empty(input.shape,
# input.dtype)``: a new C-ordered array of the input's shape and dtype. Where nothing in
# the call can fail (a float input, sizes and sigmas that are plain numbers, a mode CuPy
# takes, no ``output``, ``origin`` or ``footprint``), the call is queued with that result;
# any other call is the server's, and waits.

def _number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _plain_filter(input: Any, output: Any, mode: Any, cval: Any, axes: Any = None) -> bool:
    return input.ndim > 0 and output is None and type(mode) is str and mode in MODES and \
        _number(cval) and axes is None


def _gaussian_filter(input: Any, sigma: Any, order: Any = 0, output: Any = None,
                     mode: Any = "reflect", cval: Any = 0.0, truncate: Any = 4.0,
                     radius: Any = None, axes: Any = None) -> bool:
    return _plain_filter(input, output, mode, cval, axes) and _number(sigma) and \
        _number(truncate) and 0 <= sigma * truncate < 1e5 and truncate > 0 and \
        type(order) is int and order == 0 and radius is None


def _uniform_filter(input: Any, size: Any = 3, output: Any = None, mode: Any = "reflect",
                    cval: Any = 0.0, origin: Any = 0, *, axes: Any = None) -> bool:
    return _plain_filter(input, output, mode, cval, axes) and type(size) is int and \
        1 <= size < 1 << 16 and type(origin) is int and origin == 0


def _rank_filter(input: Any, size: Any = None, footprint: Any = None, output: Any = None,
                 mode: Any = "reflect", cval: Any = 0.0, origin: Any = 0, *,
                 axes: Any = None) -> bool:
    return footprint is None and _uniform_filter(input, size, output, mode, cval, origin,
                                                 axes=axes)


def _derivative(input: Any, axis: Any = -1, output: Any = None, mode: Any = "reflect",
                cval: Any = 0.0) -> bool:
    return _plain_filter(input, output, mode, cval) and type(axis) is int and \
        -input.ndim <= axis < input.ndim


def _laplace(input: Any, output: Any = None, mode: Any = "reflect", cval: Any = 0.0, *,
             axes: Any = None) -> bool:
    return _plain_filter(input, output, mode, cval, axes)


def _axis(input: Any, axis: Any) -> bool:
    return type(axis) is int and -input.ndim <= axis < input.ndim


def _gaussian_filter1d(input: Any, sigma: Any, axis: Any = -1, order: Any = 0,
                       output: Any = None, mode: Any = "reflect", cval: Any = 0.0,
                       truncate: Any = 4.0) -> bool:
    # (a sigma of 0 makes CuPy's weights NaN, with NumPy's warning: the server's call)
    return _plain_filter(input, output, mode, cval) and _axis(input, axis) and \
        _number(sigma) and _number(truncate) and sigma > 0 and truncate > 0 and \
        sigma * truncate < 1e5 and type(order) is int and order == 0


def _filter1d(input: Any, size: Any, axis: Any = -1, output: Any = None,
              mode: Any = "reflect", cval: Any = 0.0, origin: Any = 0) -> bool:
    return _uniform_filter(input, size, output, mode, cval, origin) and _axis(input, axis)


def _weights(input: Any, weights: Any, ndim: int) -> bool:
    """``weights`` a device array of ``input``'s session, of ``ndim`` dimensions, none
    empty (CuPy's ``_check_nd_args``: else its RuntimeError, or ``zeros_like``), of real
    numbers (``_get_weights_dtype``: float64 of integers, else the input's float; a
    complex one makes a complex output), under CuPy's 2 GiB."""
    from ...cupy._ndarray import ndarray
    return type(weights) is ndarray and weights._gs_session is input._gs_session and \
        len(weights._shape) == ndim and 0 not in weights._shape and \
        weights._dtype.kind in "fiu" and weights.nbytes < 1 << 31


def _correlate(input: Any, weights: Any, output: Any = None, mode: Any = "reflect",
               cval: Any = 0.0, origin: Any = 0, *, axes: Any = None) -> bool:
    return _plain_filter(input, output, mode, cval, axes) and \
        _weights(input, weights, input.ndim) and type(origin) is int and origin == 0


def _correlate1d(input: Any, weights: Any, axis: Any = -1, output: Any = None,
                 mode: Any = "reflect", cval: Any = 0.0, origin: Any = 0) -> bool:
    return _plain_filter(input, output, mode, cval) and _axis(input, axis) and \
        _weights(input, weights, 1) and type(origin) is int and origin == 0


#: the interpolations' modes that take no detour (``'opencv'`` is an affine transform)
_INTERPOLATION_MODES = INTERPOLATION_MODES[:-2]


def _per_axis(input: Any, value: Any) -> list | None:
    """``value`` (a number, or a list or tuple of one per axis) as a list of finite
    numbers, one per axis; None otherwise (CuPy's ``_fix_sequence_arg`` then decides)."""
    values = list(value) if type(value) in (list, tuple) else [value] * input.ndim
    if len(values) != input.ndim or not all(_number(v) for v in values):
        return None
    return values


def _interpolation(input: Any, output: Any, order: Any, mode: Any, cval: Any,
                   prefilter: Any) -> bool:
    return input.ndim > 0 and output is None and type(order) is int and \
        0 <= order <= 5 and type(mode) is str and mode in _INTERPOLATION_MODES and \
        _number(cval) and type(prefilter) is bool


def _shift(input: Any, shift: Any, output: Any = None, order: Any = 3,
           mode: Any = "constant", cval: Any = 0.0, prefilter: Any = True) -> bool:
    """``shift`` writes ``_util._get_output(None, input)``: a new array of the input's
    shape and dtype."""
    return _interpolation(input, output, order, mode, cval, prefilter) and \
        _per_axis(input, shift) is not None


def _zoom(input: Any, zoom: Any, output: Any = None, order: Any = 3,
          mode: Any = "constant", cval: Any = 0.0, prefilter: Any = True, *,
          grid_mode: Any = False) -> tuple | bool:
    """``zoom`` writes ``cupy.empty(output_shape, input.dtype)``, its shape
    ``int(round(size * zoom))`` along each axis (none empty here); with ``grid_mode``
    CuPy warns of modes ``constant`` and ``wrap``: those calls wait."""
    zooms = _per_axis(input, zoom)
    if not _interpolation(input, output, order, mode, cval, prefilter) or zooms is None or \
            type(grid_mode) is not bool or grid_mode and mode in ("constant", "wrap"):
        return False
    shape = tuple(int(round(n * z)) for n, z in zip(input._shape, zooms))
    return shape if all(n > 0 for n in shape) else False


_PIPELINED_FILTERS = {
    "shift": _shift, "zoom": _zoom,
    "correlate": _correlate, "convolve": _correlate, "correlate1d": _correlate1d,
    "convolve1d": _correlate1d,
    "gaussian_filter": _gaussian_filter, "uniform_filter": _uniform_filter,
    "median_filter": _rank_filter, "minimum_filter": _rank_filter,
    "maximum_filter": _rank_filter, "sobel": _derivative, "prewitt": _derivative,
    "laplace": _laplace, "gaussian_filter1d": _gaussian_filter1d,
    "uniform_filter1d": _filter1d, "minimum_filter1d": _filter1d,
    "maximum_filter1d": _filter1d,
}


def _savgol_filter(x: Any, window_length: Any, polyorder: Any, deriv: Any = 0,
                   delta: Any = 1.0, axis: Any = -1, mode: Any = "interp",
                   cval: Any = 0.0) -> bool:
    """``cupyx.scipy.signal.savgol_filter``: of a float input, ``convolve1d(x, coeffs,
    axis=axis, mode=...)`` into a new array of its shape and dtype (and, in mode
    ``interp``, its edges fitted in place); queued where CuPy's checks pass."""
    return x.ndim > 0 and all(type(v) is int for v in (window_length, polyorder, deriv)) \
        and 0 <= polyorder < window_length and deriv >= 0 and _number(delta) and \
        delta != 0 and _axis(x, axis) and window_length <= x._shape[axis] and \
        type(mode) is str and mode in ("mirror", "constant", "nearest", "interp", "wrap") \
        and _number(cval)


def _medfilt(volume: Any, kernel_size: Any = None) -> bool:
    """``cupyx.scipy.signal.medfilt`` of a float input: ``rank_filter(volume, size // 2,
    size=kernel_size, mode='constant')``, a new array of its shape and dtype; queued for
    odd sizes within the input (a bigger one warns, at the call)."""
    sizes = [3] * volume.ndim if kernel_size is None else \
        list(kernel_size) if type(kernel_size) in (list, tuple) else [kernel_size] * volume.ndim
    return volume.ndim > 0 and len(sizes) == volume.ndim and \
        all(type(k) is int and k > 0 and k % 2 == 1 for k in sizes) and \
        all(k <= n for k, n in zip(sizes, volume._shape))


class Result(NamedTuple):
    """What a queued call makes where it is not an array of its input's shape and
    dtype: ``laid_out`` False, a layout the server knows (asked for when needed)."""
    shape: tuple
    dtype: Any
    laid_out: bool = True


def _hilbert(x: Any, N: Any = None, axis: Any = -1) -> Any:
    """``cupyx.scipy.signal.hilbert`` of a float input: ``ifft(fft(x, N, axis) * h,
    axis=axis)``, complex (of the input's precision), ``N`` long along ``axis``; its
    layout the server's."""
    if x.ndim == 0 or not _axis(x, axis) or N is not None and (type(N) is not int or N <= 0):
        return False
    shape = list(x._shape)
    if N is not None:
        shape[axis] = N
    if 0 in shape:
        return False
    import numpy
    return Result(tuple(shape), numpy.dtype("F" if x._dtype.char == "f" else "D"), False)


def _filters_along(x: Any, axis: Any, *coefficients: Any) -> bool:
    """``x`` (not 0-d, nor empty) and ``coefficients`` float32 or float64 device arrays
    of one session, ``axis`` one of ``x``'s: a filter CuPy runs along ``axis``
    (``lfilter``, ``sosfilt``)."""
    from ...cupy._ndarray import ndarray
    return all(type(v) is ndarray and v._gs_session is x._gs_session and
               v._dtype.char in "fd" for v in (x, *coefficients)) and \
        x.ndim > 0 and _axis(x, axis) and 0 not in x._shape


def _lfilter(b: Any, a: Any, x: Any, axis: Any = -1, zi: Any = None) -> Any:
    """``cupyx.scipy.signal.lfilter`` of float device arrays, 1-d non-empty
    coefficients: an array of ``x``'s shape, of the dtype ``b / a[0]``, ``x`` and ``a``
    promote to (``fir_dtype``, then ``iir_dtype``); its layout the server's (a slice of
    the padded convolution, or the recurrence's copy). With ``zi`` (CuPy's state: the
    last ``len(b) - 1`` inputs then ``len(a) - 1`` outputs along ``axis``), of ``x``'s
    shape but that many along ``axis``: also ``zf``, ``cupy.empty(zi.shape)`` of the
    output's dtype, filled."""
    import numpy
    if not _filters_along(x, axis, b, a) or len(b._shape) != 1 or \
            len(a._shape) != 1 or 0 in b._shape or 0 in a._shape:
        return False
    y = Result(x._shape, numpy.result_type(x._dtype, b._dtype, a._dtype), False)
    return _and_state(y, x, axis, zi, b._shape[0] - 1 + a._shape[0] - 1)


def _sosfilt(sos: Any, x: Any, axis: Any = -1, zi: Any = None) -> Any:
    """``cupyx.scipy.signal.sosfilt`` of float device arrays and an (n, 6) ``sos``:
    ``apply_iir_sos``'s copy of ``x``, of the dtype ``x`` and ``sos`` promote to; its
    layout the server's. With ``zi`` of shape ``(n, ..., 4, ...)`` (``x``'s, but 4
    along ``axis``): also ``zf``, of ``zi``'s shape and that dtype (``zi_out``)."""
    import numpy
    if not _filters_along(x, axis, sos) or len(sos._shape) != 2 or \
            sos._shape[1] != 6 or sos._shape[0] == 0:
        return False
    y = Result(x._shape, numpy.result_type(x._dtype, sos._dtype), False)
    return _and_state(y, x, axis, zi, 4, sos._shape[:1])


def _and_state(y: Result, x: Any, axis: int, zi: Any, along: int,
               leading: tuple = ()) -> Any:
    """A filter's result ``y``; with a state ``zi`` of ``leading`` dimensions and then
    ``x``'s shape but ``along`` values along ``axis``, ``(y, zf)``, ``zf`` of ``zi``'s
    shape and ``y``'s dtype; False for any other state (CuPy's slicing, reshapes and
    assignments of it decide: the server's call)."""
    if zi is None:
        return y
    state = list(x._shape)
    state[axis] = along
    if not _filters_along(x, axis, zi) or zi._shape != (*leading, *state):
        return False
    return y, Result(zi._shape, y.dtype, False)


def pipelined_get_window(remote: Callable) -> Callable:
    """``cupyx.scipy.signal.get_window`` (``remote``, the server's), queued for a window
    named without parameters, an integer length and a bool ``fftbins``: CuPy's window
    function of ``(Nx, not fftbins)``, ``Nx`` float64 values (its layout the server's:
    a periodic window is a slice of one a value longer)."""
    def get_window(window: Any, Nx: Any, fftbins: Any = True) -> Any:
        if type(window) is str and window in WITHOUT_PARAMETERS and \
                type(Nx) is int and Nx >= 0 and type(fftbins) is bool:
            import numpy
            from ...cupy import session
            from ...cupy._routines import _submit
            return _submit(session(), "cupyx.scipy.signal.get_window", (window, Nx),
                           {"fftbins": fftbins}, (Nx,), numpy.dtype(numpy.float64),
                           laid_out=False)
        return remote(window, Nx, fftbins)
    get_window.__module__ = "cupyx.scipy.signal"
    get_window.__doc__ = getattr(remote, "__doc__", None)
    return get_window


#: ``cupyx.scipy.signal``'s filters queued as the ones above
PIPELINED_SIGNAL = {"savgol_filter": _savgol_filter, "medfilt": _medfilt,
                    "hilbert": _hilbert, "lfilter": _lfilter, "sosfilt": _sosfilt}


def _submit_several(s: Any, path: str, args: tuple, kwargs: dict, results: tuple) -> tuple:
    """Queue ``path(*args, **kwargs)``, which returns a tuple of new arrays as
    ``results`` describe them (their layouts the server's)."""
    from ...cupy._ndarray import _new
    ids = [s.new_id() for _ in results]
    s.submit("call", path, args, kwargs, out_id=ids, description=path)
    return tuple(_new(s, hid, r.shape, r.dtype, None, None, None)
                 for hid, r in zip(ids, results))


def pipelined_filter(name: str, remote: Callable, plain: Callable,
                     module: str = "cupyx.scipy.ndimage") -> Callable:
    """``module.name`` (``remote``, the server's), queued where ``plain`` says nothing
    in the call can fail, with its result: a new C-ordered array of a float input's
    dtype, of its shape (or of the shape ``plain`` returns; or as its ``Result``)."""
    path = f"{module}.{name}"

    def call(input: Any, *args: Any, **kwargs: Any) -> Any:
        from ...cupy._ndarray import ndarray
        from ...cupy._routines import _submit
        if type(input) is ndarray and input._dtype.char in "fd":
            try:
                queued = plain(input, *args, **kwargs)
            except TypeError:  # (arguments the function does not take: its error)
                queued = False
            if type(queued) is Result:
                return _submit(input._gs_session, path, (input, *args), kwargs,
                               queued.shape, queued.dtype, laid_out=queued.laid_out)
            if type(queued) is tuple and queued and type(queued[0]) is Result:
                return _submit_several(input._gs_session, path, (input, *args), kwargs,
                                       queued)
            if queued:  # (True, or the result's shape where it is not the input's)
                return _submit(input._gs_session, path, (input, *args), kwargs,
                               queued if type(queued) is tuple else input._shape,
                               input._dtype)
        return remote(input, *args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__module__ = module
    call.__doc__ = getattr(remote, "__doc__", None)
    return call


def _kernel_only(name: str, remote: Callable) -> Callable:
    """``generic_filter``/``generic_filter1d`` (``remote``, the server's): CuPy takes a
    kernel there, not a Python function, and refuses one ('bad function type') only
    after its other checks; a function cannot travel, so None goes in its place, which
    CuPy's check refuses in the same words at the same point."""
    def call(input: Any, function: Any, *args: Any, **kwargs: Any) -> Any:
        from ...client import RemoteHandle
        if callable(function) and not isinstance(function, RemoteHandle):
            function = None  # (a kernel is a handle: the server's object, sent as such)
        return remote(input, function, *args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__module__ = "cupyx.scipy.ndimage"
    call.__doc__ = getattr(remote, "__doc__", None)
    return call


def install(mod: types.ModuleType) -> None:
    """Put the client's functions in gpushare's ``cupyx.scipy.ndimage``."""
    for fn in (generic_laplace, generic_gradient_magnitude, labeled_comprehension):
        fn.__module__ = "cupyx.scipy.ndimage"
        setattr(mod, fn.__name__, fn)
    for name in ("generic_filter", "generic_filter1d"):
        setattr(mod, name, _kernel_only(name, getattr(mod, name)))
    for name, plain in _PIPELINED_FILTERS.items():
        setattr(mod, name, pipelined_filter(name, getattr(mod, name), plain))
