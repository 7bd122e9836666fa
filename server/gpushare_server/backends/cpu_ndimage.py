"""``cupyx.scipy.ndimage`` on the CPU backend: SciPy's, with CuPy's semantics where they
differ (after CuPy 14.2's ``cupyx/scipy/ndimage``, MIT licence, ``LICENSE.cupy``).

- Host (NumPy) arrays are taken where CuPy takes them (``structure``, ``footprint``:
  CuPy copies them itself) and refused elsewhere, as every CuPy function refuses them,
  in CuPy's words where they are not a kernel's (``Unsupported type``): the
  interpolations' ``input`` (Cython's ``Argument 'a' has incorrect type``), ``label``'s
  ``output`` (``unhashable type``).
- Several modes, one per axis, one of them ``'constant'``: CuPy's kernel reads no
  ``cval`` but the element at index -1 of that axis (``_read_as_cupys_kernel``).
- float16 ``sobel``/``prewitt``: rounded to float16 between the 1-D passes (``_half_passes``).
- Python lists and numbers given for arrays are refused where CuPy's first touch of
  them (``input.ndim``, ``weights.nbytes``...) raises, in Python's words, and taken where
  CuPy converts them (``_FORMS``).
- ``label``: CuPy's output dtypes and checks; any input dtype (float16 too); work too
  big for this host's free memory is ``OutOfMemoryError``, not a killed worker.
- The measurement functions refuse a non-device ``input``/``labels`` (``TypeError``).
- ``binary_erosion``/``dilation``/``opening``/``closing`` take a tuple or an int as the
  shape of a box of ones (CuPy's ``_prep_structure``).
- ``distance_transform_edt``: CuPy's keywords (``block_params``, ``float64_distances``),
  its checks and its index dtypes (int16 in 2-D up to 32768 per axis, else int32).
- ``value_indices(adaptive_index_dtype=)``; ``affine_transform(float64_coords=)``
  (the ``'opencv'`` mode is CuPy's own, not emulated; ``texture_memory=True`` runs
  CuPy's texture kernels on the emulator's textures).
- ``generic_filter``/``generic_filter1d`` run the user's ``RawKernel`` or
  ``ReductionKernel`` (CuPy's calling convention: the kernel as a device function of
  each neighbourhood's values) on the C kernel emulator; the neighbourhoods are
  gathered with NumPy.

- float16 input (SciPy refuses it) computed in float32 and written as float16, as
  CuPy's kernels take it (Fourier filters: float64, as CuPy writes them).
- The interpolations' integer outputs are ``rint``'s (ties to even), converted as the
  device converts, not SciPy's rounding away from zero with clipping.
- ``minimum_position``/``maximum_position``/``extrema``: one position is a tuple of NumPy
  int64 on the host; ``histogram`` of several labels a list of count arrays (None for
  a label not found), not SciPy's object array.

``resolve`` gives the function a session calls for ``cupyx.scipy.ndimage.<name>``.
"""
from __future__ import annotations

import functools
import inspect
import math
import warnings
from typing import Any, Callable

import numpy

from gpushare.ndimage_args import check_axes as _check_axes, check_mode as _check_mode
from gpushare.ndimage_args import INTERPOLATION_MODES
from gpushare.ndimage_args import check_origin as _check_origin
from gpushare.ndimage_args import fix_sequence_arg as _fix_sequence_arg, get_output
from gpushare.cython_args import NDARRAY_BASE, argument_type_error
from gpushare.errors import PerformanceWarning
from gpushare.protocol import HostArray

from . import host_memory, scipy_module
from .cpu_routines import _unsupported

#: parameters CuPy copies to the device itself (so a NumPy array is fine there)
_HOST_PARAMS = frozenset({"structure", "footprint", "structure1", "structure2"})
#: per-axis parameters CuPy reads on the host with ``_util._fix_sequence_arg`` (a list of
#: Python values from any iterable, so a NumPy array is fine there too)
_SEQUENCE_PARAMS = frozenset({"size", "origin", "origin1", "origin2", "sigma", "radius",
                              "offset", "shift", "zoom"})


#: host arrays a function takes as far as CuPy's own error for them, raised by the
#: function here (``label``'s ``output``: ``cupy.empty(input.shape, output)``)
_LATE_HOST = frozenset({("label", "output")})


def _ndimage() -> Any:
    return scipy_module("scipy.ndimage", "cupyx.scipy.ndimage")


def _host_value(name: str, value: Any) -> Any:
    if isinstance(value, HostArray):
        if name in _HOST_PARAMS:
            return value.array
        if name in _SEQUENCE_PARAMS:
            return value.array.tolist() if value.array.ndim else value.array[()]
        raise _unsupported(value.array)
    if type(value) in (list, tuple):
        for item in value:
            if isinstance(item, HostArray):
                raise _unsupported(item.array)
    return value


def resolve(name: str, scipy_fn: Any, results: Callable[[Any], Any]) -> Callable[..., Any]:
    """The CPU backend's ``cupyx.scipy.ndimage.<name>``: CuPy's own here, else SciPy's
    ``scipy_fn``; host arrays checked by parameter, results made CuPy's by ``results``."""
    fn = OVERRIDES.get(name, scipy_fn)
    if fn is None:
        raise NotImplementedError(
            f"cupyx.scipy.ndimage.{name} is not available on gpushare's CPU backend")
    try:
        sig: inspect.Signature | None = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = sig.bind(*args, **kwargs) if sig is not None else None
        except TypeError:
            bound = None
        if bound is None:  # (the function's own error, once host arrays are refused)
            args = tuple(_host_value("", v) for v in args)
            kwargs = {k: _host_value("", v) for k, v in kwargs.items()}
            return results(fn(*args, **kwargs))
        host_input = ""  # (the Cython argument a host input reaches)
        for key, value in bound.arguments.items():
            kind = sig.parameters[key].kind  # type: ignore[union-attr]
            if kind is inspect.Parameter.VAR_POSITIONAL:
                bound.arguments[key] = tuple(_host_value("", v) for v in value)
            elif kind is inspect.Parameter.VAR_KEYWORD:
                bound.arguments[key] = {k: _host_value("", v) for k, v in value.items()}
            elif isinstance(value, HostArray) and (name, key) in _LATE_HOST:
                pass  # (the function's own error, where CuPy's comes)
            elif isinstance(value, HostArray) and key == "input" and \
                    name in _INTERPOLATIONS and not bound.arguments.get("texture_memory"):
                bound.arguments[key], host_input = value.array, "a"  # (checked first)
            elif isinstance(value, HostArray) and key == "input" and name in _FILTERS:
                # (``_filters_core._call_kernel``: ``cupy.shares_memory(output, input)``,
                # typed ``_ndarray_base b``, after the filter's checks: an H200's words)
                bound.arguments[key], host_input = value.array, "b"
            else:
                bound.arguments[key] = _host_value(key, value)
        if name in _FORMS:
            _check_forms(name, sig, bound.arguments, late=False)  # type: ignore[arg-type]
        if name in _FILTERS or name in _INTERPOLATIONS:
            _check_arguments(name, sig, bound.arguments)  # type: ignore[arg-type]
        if name in _FORMS:
            _check_forms(name, sig, bound.arguments, late=True)  # type: ignore[arg-type]
        if host_input:  # (``_filter_input``: ``cupy.ascontiguousarray(image)``, or in
            raise argument_type_error(  # ``spline_filter``, of the host array; a
                host_input, NDARRAY_BASE, bound.arguments["input"])  # filter's
            # ``shares_memory``: Cython's refusal)
        if name in _CVAL_CHECKED:
            _check_cval(sig, bound.arguments)  # type: ignore[arg-type]
        half = _half_input(name, sig, bound.arguments)  # type: ignore[arg-type]
        rounded = (_round_integer_output(sig, bound.arguments)  # type: ignore[arg-type]
                   if name in _INTERPOLATIONS else None)
        crop = _pad_per_axis_modes(sig, bound.arguments) if name in _PADDED else None
        try:
            if half is not None and name in _HALF_PASSES:
                out = _half_passes(name, sig, bound.arguments)  # type: ignore[arg-type]
            else:
                out = fn(*bound.args, **bound.kwargs)
            if crop is not None:
                out = crop(out)
        except RuntimeError as e:
            if str(e) == _SCIPY_SEQUENCE_ERROR and name in _SEQUENCE_CHECKS:
                _check_sequences(name, sig, bound.arguments)  # type: ignore[arg-type]
            raise
        except TypeError as e:
            if name in _BOOL_SUBTRACTS and str(e).startswith("numpy boolean subtract"):
                raise TypeError(_CUPY_BOOL_SUBTRACT) from None
            raise
        for finish in (rounded, half):
            if finish is not None:
                out = finish(out)
        out = results(out)
        return _RESULTS[name](out) if name in _RESULTS else out
    return call


# --- results made CuPy's: float16, interpolations' integer outputs, positions ----------

#: what CuPy computes float16 input in: its filters' weights and interpolations' float
#: type are ``promote_types(input.dtype, float32)`` (``_util._init_weights_dtype``,
#: ``_interpolation.map_coordinates``: ``float_dtype``), its Fourier filters write float64
#: for any real type but float32 (``_fourier._get_output_fourier``); binary morphology
#: only asks which values are nonzero (``_morphology._get_binary_erosion_kernel``)
def _half_as(name: str) -> Any:
    """The type float16 input to ``name`` is computed in (None: not taken here)."""
    if name in _FILTERS and name not in ("generic_filter", "generic_filter1d") or \
            name in _INTERPOLATIONS or name.startswith("spline_filter") or \
            name in _BINARY_MORPHOLOGY:
        return numpy.float32
    if name.startswith("fourier_"):
        return numpy.float64
    return None


_BINARY_MORPHOLOGY = frozenset({"binary_erosion", "binary_dilation", "binary_opening",
                                "binary_closing", "binary_hit_or_miss",
                                "binary_propagation"})
_HALF = numpy.dtype(numpy.float16)


def _half_input(name: str, sig: inspect.Signature, arguments: dict) -> Any:
    """CuPy's filters and interpolations take float16 input (``cupy/float16.cuh``),
    computing in float32 and writing float16 where the output is the input's dtype
    (``_util._get_output``) or float16; SciPy refuses the type. The input is given as
    ``_half_as``'s type here, and the function finishing the result (into a float16
    ``output`` array given) is returned; None where the input is no float16 array."""
    input = arguments.get("input")
    as_type = _half_as(name)
    if as_type is None or not isinstance(input, numpy.ndarray) or input.dtype != _HALF:
        return None
    arguments["input"] = input.astype(as_type)
    if name not in _FILTERS and name not in _INTERPOLATIONS and \
            not name.startswith("spline_filter"):
        return None  # (Fourier filters: float64; binary morphology: bool)
    output = _argument(sig, arguments, "output")
    if isinstance(output, numpy.ndarray):
        if output.dtype != _HALF:
            return None
        arguments["output"] = numpy.empty(output.shape, numpy.float32)

        def into(result: Any) -> Any:
            numpy.copyto(output, result, casting="unsafe")
            return output
        return into
    try:
        half = output is None or numpy.dtype(output) == _HALF
    except TypeError:
        return None
    if not half:
        return None
    if output is not None:
        arguments["output"] = numpy.float32
    return lambda result: result.astype(_HALF) if isinstance(result, numpy.ndarray) \
        else result


#: filters CuPy runs as 1-D passes through a temporary of the output's dtype
#: (``_filters_core._run_1d_filters``: ``temp = _util._get_output(output.dtype, input)``),
#: whose float16 output is rounded between passes: their weights, smoothing and derivative
_HALF_PASSES = {"sobel": (1.0, 2.0, 1.0), "prewitt": (1.0, 1.0, 1.0)}


def _half_passes(name: str, sig: inspect.Signature, arguments: dict) -> numpy.ndarray:
    """``sobel``/``prewitt`` of a float16 input (given as float32 here) written as float16:
    CuPy's ``_prewitt_or_sobel``, one ``correlate1d`` per axis in order, each written to
    a float16 array (the H200's results differ from one float32 computation by up to
    0.012 for values near 4); float32 values here, each one a float16 value."""
    def arg(key: str) -> Any:
        return _argument(sig, arguments, key)
    x = arguments["input"]
    axis = arg("axis")
    axis = (-1 if axis is None else int(axis)) % max(x.ndim, 1)
    smooth = numpy.array(_HALF_PASSES[name], numpy.float32)
    diff = numpy.array([-1.0, 0.0, 1.0], numpy.float32)
    mode, cval = arg("mode"), arg("cval")
    for ax in range(x.ndim):
        x = _ndimage().correlate1d(x, diff if ax == axis else smooth, ax,
                                   output=numpy.float32, mode=mode, cval=cval)
        x = x.astype(_HALF).astype(numpy.float32)
    return x


def _output_dtype(output: Any, input: Any) -> numpy.dtype | None:
    """The dtype ``_util._get_output(output, input)`` gives (None where it cannot tell)."""
    if output is None:
        return input.dtype if isinstance(input, numpy.ndarray) else None
    if isinstance(output, numpy.ndarray):
        return output.dtype
    try:
        return numpy.dtype(output)
    except TypeError:
        return None


def _round_integer_output(sig: inspect.Signature, arguments: dict) -> Any:
    """CuPy's interpolations write an integer output as ``y = (Y)rint((float)out)``
    (``_interp_kernels._generate_interp_custom``): ties to even, then CUDA's saturating
    conversion (``cpu_cast.convert``); SciPy rounds ties away from zero and clips. The
    call is given a float64 output here, and the function finishing the result into the
    integer one is returned; None for other outputs."""
    if _argument(sig, arguments, "texture_memory"):
        return None  # (float32 only)
    output = _argument(sig, arguments, "output")
    dtype = _output_dtype(output, _argument(sig, arguments, "input"))
    if dtype is None or dtype.kind not in "iu":
        return None
    from . import cpu_cast
    if isinstance(output, numpy.ndarray):
        arguments["output"] = numpy.empty(output.shape, numpy.float64)
    else:
        arguments["output"] = numpy.float64

    def finish(result: Any) -> Any:
        values = cpu_cast.convert(numpy.rint(result), dtype)
        if isinstance(output, numpy.ndarray):
            numpy.copyto(output, values)
            return output
        return values
    return finish


def _host_int(value: Any) -> Any:
    """CuPy's coordinates are NumPy integers on the host (``tuple((result //
    dim_prod) % dims)``), not device arrays (``results`` made SciPy's 0-d arrays; a
    ``HostScalar`` passes the backend's ``normalize`` as it is)."""
    from .cpu_stats import HostScalar
    return HostScalar(numpy.int64(value))


def _position(result: Any) -> Any:
    """``minimum_position``/``maximum_position``: one position a tuple of NumPy int64
    (``_measurements.py``), several a list of such tuples."""
    if isinstance(result, tuple):
        return tuple(_host_int(v) for v in result)
    return result


def _extrema(result: Any) -> Any:
    """``extrema``: the positions as ``_position``'s."""
    minimums, maximums, min_positions, max_positions = result
    return minimums, maximums, _position(min_positions), _position(max_positions)


_RESULTS: dict[str, Callable[[Any], Any]] = {
    "minimum_position": _position, "maximum_position": _position, "extrema": _extrema,
}

#: CuPy's grey morphology subtracting bool arrays (``tmp - grey_erosion(...)``,
#: ``cupy.subtract``), in CuPy's words (``_routines_math._subtract_boolean_error``)
_BOOL_SUBTRACTS = frozenset({"morphological_gradient", "morphological_laplace"})
_CUPY_BOOL_SUBTRACT = ("cupy boolean subtract, the `-` operator, is deprecated, use "
                       "the bitwise_xor, the `^` operator, or the logical_xor function "
                       "instead.")


#: filters CuPy gives a mode per axis (``_filters_core._check_nd_args``) where SciPy's
#: take one mode, and how ``numpy.pad`` extends an axis as each mode does
_PADDED = frozenset({"correlate", "convolve", "median_filter", "rank_filter",
                     "percentile_filter"})
_PAD_MODES = {"reflect": "symmetric", "grid-reflect": "symmetric", "grid-mirror": "symmetric",
              "mirror": "reflect", "nearest": "edge", "wrap": "wrap", "grid-wrap": "wrap",
              "constant": "constant"}


def _read_as_cupys_kernel(input: numpy.ndarray, modes: list, pads: list) -> numpy.ndarray:
    """``input`` extended by ``pads`` along each axis as the kernel of
    ``_filters_core._generate_nd_kernel`` reads it with several modes, one of them
    ``'constant'``: only a single mode ``'constant'`` reads ``cval`` (``constant_mode``);
    otherwise a constant axis' index outside is -1 (``_generate_boundary_condition_ops``)
    and the kernel reads the element at that flat offset, ``-1 * xstride_j`` plus the
    other axes' (an element of the row before, or the memory before the array, which
    reads as 0 here: what the GPU read there, where the memory pool's memory before the
    array was zero; it is not CuPy's to promise). The other modes as ``numpy.pad``'s.
    (The offsets are the C-contiguous copy's: a strided input's neighbours in its base
    are not kept here.)"""
    x = numpy.ascontiguousarray(input)
    strides = [st // x.itemsize if x.itemsize else 0 for st in x.strides]
    lead = sum(strides)  # (the furthest every axis' -1 together reaches before the array)
    _reserve(x.nbytes + int(numpy.prod([n + 2 * p for n, p in zip(x.shape, pads)])) *
             (x.itemsize + 8))
    flat = numpy.concatenate([numpy.zeros(lead, x.dtype), x.ravel()])
    offsets: Any = numpy.intp(lead)
    for axis, (m, p) in enumerate(zip(modes, pads)):
        index = numpy.arange(x.shape[axis], dtype=numpy.intp)
        if m == "constant":
            index = numpy.pad(index, (p, p), mode="constant", constant_values=-1)
        elif x.shape[axis] == 1 and _PAD_MODES[m] == "reflect":
            index = numpy.pad(index, (p, p), mode="edge")
        else:
            index = numpy.pad(index, (p, p), mode=_PAD_MODES[m])
        shape = [1] * x.ndim
        shape[axis] = index.size
        offsets = offsets + (index * strides[axis]).reshape(shape)
    return flat[offsets]


def _pad_per_axis_modes(sig: inspect.Signature, arguments: dict) -> Any:
    """CuPy's modes given one per axis, for a filter whose SciPy counterpart refuses a
    sequence: the input padded along each axis as its mode extends it (past the reach
    of the window and its origin) and filtered with the padding in place; gives the
    function cropping the result back (into ``output`` where one was given). None where
    there is one mode (set as the one), or ``axes``."""
    def arg(key: str) -> Any:
        return _argument(sig, arguments, key)
    mode, input = arg("mode"), arg("input")
    if isinstance(mode, str) or mode is None or not isinstance(input, numpy.ndarray) or \
            arg("axes") is not None:
        return None
    modes = list(mode)
    if len(modes) != input.ndim:
        raise RuntimeError("origin must have length equal to input rank")
    if len(set(modes)) == 1:
        arguments["mode"] = modes[0]
        return None
    window = arg("weights") if "weights" in sig.parameters else arg("footprint")
    if window is not None:
        shape = list(numpy.shape(window))
    else:
        shape = _fix_sequence_arg(arg("size"), input.ndim, "size", int)
    origins = _fix_sequence_arg(arg("origin"), input.ndim, "origin", int)
    pads = [w + abs(o) for w, o in zip(shape, origins)]
    if "constant" in modes:
        padded = _read_as_cupys_kernel(input, modes, pads)
    else:
        padded = input
        for axis, (m, p) in enumerate(zip(modes, pads)):
            width = [(0, 0)] * input.ndim
            width[axis] = (p, p)
            padded = numpy.pad(padded, width, mode=_PAD_MODES[m])
    arguments["input"], arguments["mode"] = padded, "constant"
    output = arg("output")
    if isinstance(output, numpy.ndarray):
        arguments["output"] = output.dtype
    index = tuple(slice(p, p + n) for p, n in zip(pads, input.shape))

    def crop(result: Any) -> Any:
        if isinstance(output, numpy.ndarray):
            output[...] = result[index]
            return output
        return numpy.ascontiguousarray(result[index])
    return crop


#: SciPy's words for a per-axis argument of the wrong length (``_normalize_sequence``)
_SCIPY_SEQUENCE_ERROR = "sequence argument must have length equal to input rank"
#: (``_filters_core._check_nd_args`` names a ``mode`` of the wrong length "origin")
_ND_MODE = ("mode", RuntimeError, "origin must have length equal to input rank")
_ORIGIN = ("origin", RuntimeError, None)
_MIN_MAX = (_ND_MODE, _ORIGIN, ("size", ValueError, "sizes must match len(axes)"))
_RANK = (("size", RuntimeError, None), _ND_MODE, _ORIGIN)
#: the per-axis arguments CuPy reads with ``_util._fix_sequence_arg`` (RuntimeError
#: naming the argument), in the order it reads them; (a few are checked otherwise)
_SEQUENCE_CHECKS: dict[str, tuple] = {
    "gaussian_filter": (("sigma", RuntimeError, None), ("order", RuntimeError, None),
                        ("mode", RuntimeError, None), ("radius", RuntimeError, None)),
    "gaussian_laplace": (("sigma", RuntimeError, None), ("mode", RuntimeError, None)),
    "gaussian_gradient_magnitude": (("mode", RuntimeError, None),
                                    ("sigma", RuntimeError, None)),
    "uniform_filter": (("size", RuntimeError, None), _ORIGIN, ("mode", RuntimeError, None)),
    "correlate": (_ND_MODE, _ORIGIN), "convolve": (_ND_MODE, _ORIGIN),
    "minimum_filter": _MIN_MAX, "maximum_filter": _MIN_MAX,
    "grey_erosion": _MIN_MAX, "grey_dilation": _MIN_MAX,
    "median_filter": _RANK, "rank_filter": _RANK, "percentile_filter": _RANK,
    "binary_erosion": (_ORIGIN,), "binary_dilation": (_ORIGIN,),
    "binary_opening": (_ORIGIN,), "binary_closing": (_ORIGIN,),
    "affine_transform": (("offset", RuntimeError, None),),
    "fourier_gaussian": (("sigma", RuntimeError, None),),
    "fourier_uniform": (("size", RuntimeError, None),),
    "fourier_ellipsoid": (("size", RuntimeError, None),),
    "fourier_shift": (("shift", RuntimeError, None),),
}


def _check_sequences(name: str, sig: inspect.Signature, arguments: dict) -> None:
    """CuPy's error for the first per-axis argument of ``name`` whose length is not the
    number of axes filtered (CuPy's filters' ``_util._fix_sequence_arg``), where SciPy
    gave its own words for it."""
    def arg(key: str) -> Any:
        if key in arguments or key in sig.parameters:
            return _argument(sig, arguments, key)
        return arguments.get("kwargs", {}).get(key)  # (a ``**kwargs`` wrapper's)
    input, axes = arg("input"), arg("axes")
    if not isinstance(input, numpy.ndarray):
        return
    num_axes = input.ndim if axes is None else len(_check_axes(axes, input.ndim))
    for key, exc, message in _SEQUENCE_CHECKS[name]:
        value = arg(key)
        if value is None or isinstance(value, str):
            continue
        try:
            n = len(value)
        except TypeError:
            continue
        if n != num_axes:
            raise exc(message or f"{key} must have length equal to input rank")


#: the functions that check their modes with CuPy's ``_util._check_mode`` (its filters,
#: and grey morphology, which runs them)
_FILTERS = frozenset({
    "correlate", "convolve", "correlate1d", "convolve1d", "uniform_filter1d",
    "uniform_filter", "gaussian_filter1d", "gaussian_filter", "prewitt", "sobel", "laplace",
    "gaussian_laplace", "gaussian_gradient_magnitude", "minimum_filter", "maximum_filter",
    "minimum_filter1d", "maximum_filter1d", "rank_filter", "median_filter",
    "percentile_filter", "generic_filter", "generic_filter1d", "grey_erosion",
    "grey_dilation", "grey_closing", "grey_opening", "morphological_gradient",
    "morphological_laplace", "white_tophat", "black_tophat"})
#: the interpolations that check ``order`` and ``mode`` with CuPy's
#: ``_interpolation._check_parameter`` (then read a per-axis argument)
_INTERPOLATIONS = {"map_coordinates": None, "affine_transform": None, "rotate": None,
                   "shift": "shift", "zoom": "zoom"}


def _check_arguments(name: str, sig: inspect.Signature, arguments: dict) -> None:
    """CuPy's checks of a filter's modes (``_util._check_mode``: RuntimeError, the mode
    named) and of an interpolation's order, mode (ValueError) and per-axis argument
    (``_util._fix_sequence_arg``: RuntimeError naming it), where SciPy's words differ."""
    def arg(key: str) -> Any:
        return _argument(sig, arguments, key)
    mode = arg("mode")
    if name in _FILTERS:
        if name in ("correlate1d", "convolve1d"):  # (``_filters_core._convert_1d_args``)
            weights = arg("weights")
            if isinstance(weights, numpy.ndarray) and (weights.ndim != 1 or
                                                       weights.size < 1):
                raise RuntimeError("incorrect filter size")
            origin = arg("origin")
            if isinstance(weights, numpy.ndarray) and isinstance(origin, (int, numpy.integer)):
                _check_origin(origin, weights.size)  # (CuPy's words, before the mode's)
        for m in ([mode] if isinstance(mode, str) or mode is None else list(mode)):
            _check_mode(m)
        input, weights = arg("input"), arg("weights")
        if name in ("correlate", "convolve") and arg("axes") is None and \
                isinstance(input, numpy.ndarray) and isinstance(weights, numpy.ndarray) and \
                len([n for n in weights.shape if n]) != input.ndim:
            # (``_filters_core._check_nd_args``; SciPy names the weights' ndim and axes)
            raise RuntimeError("filter weights array has incorrect shape")
        origin = arg("origin")
        if name in ("correlate", "convolve") and isinstance(weights, numpy.ndarray) and \
                arg("axes") is None and isinstance(origin, (int, numpy.integer)):
            for width in weights.shape:
                if width:
                    _check_origin(origin, width)
        return
    order = arg("order")
    if order is not None and (order < 0 or 5 < order):
        raise ValueError("spline order is not supported")
    if mode not in INTERPOLATION_MODES:
        raise ValueError(f"boundary mode ({mode}) is not supported")
    per_axis, input = _INTERPOLATIONS[name], arg("input")
    if per_axis and isinstance(input, numpy.ndarray):
        _fix_sequence_arg(arg(per_axis), input.ndim, per_axis)


#: functions that refuse a non-finite ``cval`` for an integer output in constant mode
_CVAL_CHECKED = frozenset({"correlate", "convolve", "map_coordinates", "affine_transform",
                           "rotate", "shift", "zoom"})


def _argument(sig: inspect.Signature, arguments: dict, key: str) -> Any:
    """The bound call's ``key`` argument, or its default (None for no such parameter)."""
    param = sig.parameters.get(key)
    return arguments.get(key, param.default if param is not None else None)


def _check_cval(sig: inspect.Signature, arguments: dict) -> None:
    """CuPy's ``_util._check_cval``."""
    def arg(key: str) -> Any:
        return _argument(sig, arguments, key)
    modes, cval, output, input = arg("mode"), arg("cval"), arg("output"), arg("input")
    if not isinstance(input, numpy.ndarray):
        return
    if output is None:
        integer = input.dtype.kind in "iu"
    elif isinstance(output, numpy.ndarray):
        integer = output.dtype.kind in "iu"
    else:
        try:
            integer = numpy.dtype(output).kind in "iu"
        except TypeError:
            return
    modes = [modes] if isinstance(modes, str) else list(modes)
    if "constant" in modes and integer and not numpy.isfinite(cval):
        raise NotImplementedError("Non-finite cval is not supported for outputs with "
                                  "integer dtype.")


# --- array arguments given as Python lists and numbers ----------------------------------
# SciPy converts them (``numpy.asarray``); CuPy 14.2's first statement touching each
# argument decides: an attribute read (``input.ndim``) of a list or a number is Python's
# AttributeError, a ``cupy.array(x)``/``cupy.asarray(x)`` takes it. The steps below are
# CuPy's first touches, in its order (the CuPy line quoted beside each); the ``early``
# ones run before the modes are checked (``_check_arguments``), the ``late`` ones after.

_Step = Callable[[Callable[[str], Any], Callable[[str, Any], None]], None]


def _reads(param: str, attr: str, optional: bool = False) -> _Step:
    """CuPy reads ``param.attr`` first: Python's own AttributeError (``'list' object has
    no attribute 'ndim'``) for a list, a tuple or a number (None too, unless optional)."""
    def step(arg: Callable[[str], Any], put: Callable[[str, Any], None]) -> None:
        value = arg(param)
        if not (optional and value is None):
            getattr(value, attr)
    return step


def _converts(param: str, conv: Callable[[Any], Any]) -> _Step:
    """CuPy converts ``param`` with ``conv`` first (Python's error, else the value
    converted is what SciPy gets)."""
    def step(arg: Callable[[str], Any], put: Callable[[str, Any], None]) -> None:
        put(param, conv(arg(param)))
    return step


def _when(test: Callable[[Callable[[str], Any]], bool], *steps: _Step) -> _Step:
    """``steps``, where CuPy gets that far (``test``)."""
    def step(arg: Callable[[str], Any], put: Callable[[str, Any], None]) -> None:
        if test(arg):
            for s in steps:
                s(arg, put)
    return step


def _footprint_tuple_as_size(arg: Callable[[str], Any],
                             put: Callable[[str, Any], None]) -> None:
    """``_min_or_max_filter``: ``if isinstance(ftprnt, tuple) and size is None:
    size = ftprnt; ftprnt = None`` (a tuple footprint is a size)."""
    if isinstance(arg("footprint"), tuple) and arg("size") is None:
        put("size", arg("footprint"))
        put("footprint", None)


def _binary_structure(arg: Callable[[str], Any], put: Callable[[str, Any], None]) -> None:
    """``_prep_structure``: an int, a list or a tuple is a box's shape, else
    ``structure_shape = structure.shape``."""
    structure = arg("structure")
    if structure is not None and not isinstance(structure, (int, list, tuple)):
        getattr(structure, "shape")


def _find_objects_dtype(arg: Callable[[str], Any], put: Callable[[str, Any], None]) -> None:
    """``if image.dtype.kind not in 'bui': raise TypeError(...)``."""
    dtype = arg("input").dtype
    if dtype.kind not in "bui":
        raise TypeError(f"Input dtype {dtype.name} cannot be interpreted as an integer")


def _select(which: str) -> _Step:
    """``_measurements._select`` (``minimum``, ``maximum``): ``labels is None``:
    ``vals.min()``/``vals.max()`` of the input; ``index is None``: ``mask = labels > 0``;
    an index that is no scalar: ``cupy.asarray(index)`` (a list is fine), then
    ``_safely_castable_to_int(labels.dtype)``. (``cupy.broadcast_arrays(input, labels)``
    leaves all but CuPy arrays as they are.)"""
    def step(arg: Callable[[str], Any], put: Callable[[str, Any], None]) -> None:
        input, labels, index = arg("input"), arg("labels"), arg("index")
        if labels is None:
            getattr(input, which)
        elif isinstance(labels, (list, tuple)) and index is None:
            labels > 0  # (Python's TypeError: '>' not supported between ...)
        elif index is not None and not numpy.isscalar(index):
            getattr(labels, "dtype")
    return step


def _weights_given(arg: Callable[[str], Any], put: Callable[[str, Any], None]) -> None:
    """``_check_nd_args``: ``if weights is not None: ... elif sizes is None: raise``."""
    if arg("weights") is None:
        raise ValueError("must specify either weights array or sizes")


def _rank_footprint(arg: Callable[[str], Any], put: Callable[[str, Any], None]) -> None:
    """``_rank_filter``: ``cupy.array(footprint, bool, True, 'C')`` makes a number a 0-d
    footprint; ``_check_nd_args``: ``if len(weight_dims) != input.ndim: raise
    RuntimeError(f'{wghts_name} array has incorrect shape')``."""
    footprint, input = arg("footprint"), arg("input")
    if isinstance(footprint, (int, float)) and arg("axes") is None and \
            isinstance(input, numpy.ndarray) and input.ndim and footprint:
        raise RuntimeError("footprint array has incorrect shape")


def _interpolating(arg: Callable[[str], Any]) -> bool:
    return not arg("texture_memory")  # (the texture path reads ``data.ndim`` itself)


def _spline_order(low: int) -> Callable[[Callable[[str], Any]], bool]:
    """Whether CuPy gets past ``if order < low or order > 5: raise RuntimeError(...)``."""
    def test(arg: Callable[[str], Any]) -> bool:
        try:
            return not (arg("order") < low or arg("order") > 5)
        except TypeError:
            return False
    return test


_NDIM = _reads("input", "ndim")
_DTYPE = _reads("input", "dtype")
_FOOTPRINT_NBYTES = _reads("footprint", "nbytes", optional=True)
#: name -> (early steps, late steps)
_FORMS: dict[str, tuple[tuple[_Step, ...], tuple[_Step, ...]]] = {
    # _check_nd_args: ``axes = _util._check_axes(axes, input.ndim)``; after the modes
    # and origins, ``if weights.nbytes >= (1 << 31)``
    "correlate": ((_NDIM,), (_weights_given, _reads("weights", "nbytes"))),
    "convolve": ((_NDIM,), (_weights_given, _reads("weights", "nbytes"))),
    # ``_filters_core._convert_1d_args(input.ndim, weights, origin, axis)``:
    # ``if weights.ndim != 1 or weights.size < 1``
    "correlate1d": ((_NDIM, _reads("weights", "ndim")), ()),
    "convolve1d": ((_NDIM, _reads("weights", "ndim")), ()),
    # ``weights_dtype = _util._init_weights_dtype(input)``: ``input.dtype.kind``
    "uniform_filter1d": ((_DTYPE,), ()),
    "sobel": ((_DTYPE,), ()), "prewitt": ((_DTYPE,), ()), "laplace": ((_DTYPE,), ()),
    # ``radius = int(float(truncate) * float(sigma) + 0.5)``, then ``input.dtype``
    "gaussian_filter1d": ((_converts("truncate", float), _converts("sigma", float),
                           _DTYPE), ()),
    # ``axes = _util._check_axes(axes, input.ndim)``
    "uniform_filter": ((_NDIM,), ()), "gaussian_filter": ((_NDIM,), ()),
    "gaussian_laplace": ((_NDIM,), ()), "generic_filter": ((_NDIM,), ()),
    # (a footprint: ``cupy.array(footprint, bool, True, 'C')``, a list too)
    "median_filter": ((_NDIM,), (_rank_footprint,)),
    "rank_filter": ((_converts("rank", int), _NDIM), (_rank_footprint,)),  # (``int(rank)``)
    "percentile_filter": ((_converts("percentile", float), _NDIM), (_rank_footprint,)),
    # generic_gradient_magnitude: ``ndim = input.ndim``
    "gaussian_gradient_magnitude": ((_NDIM,), ()),
    # _min_or_max_filter: a tuple footprint is the size; ``_check_nd_args`` reads
    # ``input.ndim`` and, after the modes, ``weights.nbytes`` of the footprint
    "minimum_filter": ((_footprint_tuple_as_size, _NDIM), (_FOOTPRINT_NBYTES,)),
    "maximum_filter": ((_footprint_tuple_as_size, _NDIM), (_FOOTPRINT_NBYTES,)),
    "grey_erosion": ((_footprint_tuple_as_size, _NDIM), (_FOOTPRINT_NBYTES,)),
    # ``cupy.array(footprint)``, ``cupy.array(structure)``; ``_check_axes(axes,
    # input.ndim)``
    "grey_dilation": ((_NDIM,), ()),
    # _min_or_max_1d: ``_filters_core._convert_1d_args(input.ndim, ftprnt, ...)``
    "minimum_filter1d": ((_NDIM,), ()), "maximum_filter1d": ((_NDIM,), ()),
    # after ``_check_parameter`` (order, mode): ``_util._fix_sequence_arg(shift,
    # input.ndim, ...)`` (zoom, offset the same); rotate: ``input_arr.ndim``
    "shift": ((), (_NDIM,)), "zoom": ((), (_NDIM,)), "rotate": ((), (_NDIM,)),
    # then ``if matrix.ndim not in [1, 2] or matrix.shape[0] < 1``
    "affine_transform": ((), (_when(_interpolating, _NDIM, _reads("matrix", "ndim")),)),
    # ``ret = _util._get_output(output, input, coordinates.shape[1:])``, then
    # ``if input.dtype.kind in 'iu'``
    "map_coordinates": ((), (_reads("coordinates", "shape"), _DTYPE)),
    # ``x = input; ndim = x.ndim`` after the order's check
    "spline_filter1d": ((_when(_spline_order(0), _NDIM),), ()),
    # ``_get_spline_output(x, output)``: ``input.dtype.kind`` after the order's check
    "spline_filter": ((_when(_spline_order(2), _DTYPE),), ()),
    # ``if image.dtype.kind not in 'bui'``
    "find_objects": ((_DTYPE, _find_objects_dtype), ()),
    "minimum": ((_select("min"),), ()), "maximum": ((_select("max"),), ()),
    # ``axes = _util._check_axes(axes, input.ndim)``, ``_prep_structure(structure, ...)``
    # (``mask.shape``: ``_box_structure``)
    **{name: ((_NDIM, _binary_structure), ()) for name in (
        "binary_erosion", "binary_dilation", "binary_opening", "binary_closing")},
    # ``if image.ndim == 3`` (after ``sampling``'s)
    "distance_transform_edt": ((_reads("image", "ndim"),), ()),
    # ``ndim = input.ndim``
    **{name: ((_NDIM,), ()) for name in ("fourier_gaussian", "fourier_uniform",
                                          "fourier_shift", "fourier_ellipsoid")},
}


def _check_forms(name: str, sig: inspect.Signature, arguments: dict, late: bool) -> None:
    """CuPy's first touches of ``name``'s array arguments (``_FORMS``), early or late;
    a value CuPy converts is put back converted."""
    def arg(key: str) -> Any:
        return _argument(sig, arguments, key)

    def put(key: str, value: Any) -> None:
        if key in sig.parameters:
            arguments[key] = value
    for step in _FORMS[name][1 if late else 0]:
        step(arg, put)


def _reserve(nbytes: int) -> None:
    """Refuse, as the device's ``OutOfMemoryError``, work whose temporaries would take
    more than three quarters of this machine's free memory (arrays not yet written to
    count as free: the kernel would kill the worker part way instead)."""
    free, total = host_memory()
    if total and nbytes > free * 3 // 4:
        raise MemoryError(f"Out of memory allocating {nbytes:,} bytes (the CPU backend's "
                          f"host has {free:,} bytes free).")


def _require_device(value: Any, what: str) -> None:
    if not isinstance(value, numpy.ndarray):
        raise TypeError(f"{what} must be cupy.ndarray")


# --- label and the measurements ---------------------------------------------------------

def label(input: Any, structure: Any = None, output: Any = None) -> Any:
    """See Also: cupyx.scipy.ndimage.label (CuPy's output dtypes: int32, or int64 for
    2**31 - 2 elements and more)."""
    _require_device(input, "input")
    if input.dtype.char in "FD":
        raise TypeError("Complex type not supported")
    if structure is None:
        structure = _ndimage().generate_binary_structure(input.ndim, 1)
    structure = numpy.array(structure, dtype=bool)
    if structure.ndim != input.ndim:
        raise RuntimeError("structure and input must have equal rank")
    for ii in structure.shape:
        if ii != 3:
            raise ValueError("structure dimensions must be equal to 3")
    need_64bits = input.size >= (2**31 - 2)
    tmp_dtype = numpy.dtype(numpy.int64 if need_64bits else numpy.int32)
    if isinstance(output, HostArray):  # (not a cupy.ndarray: ``cupy.empty(shape, output)``,
        raise TypeError("unhashable type: 'numpy.ndarray'")  # a dtype cache's key)
    provided = isinstance(output, numpy.ndarray)
    if provided:
        if output.shape != input.shape:
            raise ValueError("output shape not correct")
        dtype = output.dtype
    else:
        dtype = numpy.dtype(tmp_dtype if output is None else output)
    in_place = dtype in (tmp_dtype, numpy.dtype(numpy.int64))
    # the mask, the labels (unless written in place) and the output (an array given,
    # still unwritten, takes its memory as it is filled)
    _reserve(input.size * (1 + dtype.itemsize + (0 if in_place else tmp_dtype.itemsize)))
    if not provided:
        output = numpy.empty(input.shape, dtype)
    if input.ndim == 0 or input.size == 0:
        maxlabel = (1 if input != 0 else 0) if input.ndim == 0 else 0
        output.fill(maxlabel)
        return maxlabel if provided else (output, maxlabel)
    if in_place:
        max_label = _ndimage().label(input != 0, structure, output=output)
        return max_label if provided else (output, max_label)
    tmp = numpy.empty(input.shape, tmp_dtype)
    max_label = _ndimage().label(input != 0, structure, output=tmp)
    try:
        output.dtype.type(max_label)
    except (OverflowError, ValueError):
        raise ValueError("insufficient bit-depth in output type") from None
    numpy.copyto(output, tmp, casting="unsafe")
    return max_label if provided else (output, max_label)


#: the measurements that take any scalar index (``numpy.isscalar``)
_SCALAR_INDEX = frozenset({"mean", "variance", "standard_deviation"})
_SUM_FAST_TYPES = tuple(numpy.dtype(t) for t in ("i4", "f2", "f4", "f8", "u4", "u8"))


def _measurement(name: str) -> Callable[..., Any]:
    """The measurement ``name`` with CuPy's checks; ``sum``/``sum_labels`` of an empty
    index array is CuPy's empty int64 array (``_measurements.py: sum_labels``), and
    ``center_of_mass`` of an index array CuPy's list of ``(ndim,)`` arrays."""
    def call(input: Any, labels: Any = None, index: Any = None) -> Any:
        _require_device(input, "input")
        if labels is not None and not isinstance(labels, numpy.ndarray):
            raise TypeError("label must be cupy.ndarray")
        # (``mean``, ``variance`` take any scalar first: ``if cupy.isscalar(index)``;
        # ``sum_labels``: ``if not isinstance(index, int): raise TypeError(...)``)
        if labels is not None and index is not None and \
                not isinstance(index, (numpy.ndarray, int, numpy.integer)) and \
                not (name in _SCALAR_INDEX and numpy.isscalar(index)):
            raise TypeError("index must be cupy.ndarray or a scalar int")
        if name in ("sum", "sum_labels"):
            if input.dtype.kind == "c":
                raise TypeError(f"cupyx.scipy.ndimage.sum does not support "
                                f"%{input.dtype.type}")
            if input.dtype not in _SUM_FAST_TYPES:  # (CuPy's atomicAdd types)
                warnings.warn("Using the slower implementation as cupyx.scipy.ndimage.sum "
                              "supports int32, float16, float32, float64, uint32, uint64 "
                              "as data typesfor the fast implmentation", PerformanceWarning)
        if name in ("sum", "sum_labels") and labels is not None and \
                isinstance(index, numpy.ndarray) and index.size == 0:
            numpy.broadcast_shapes(input.shape, labels.shape)  # (cupy.broadcast_arrays)
            return numpy.array([], dtype=numpy.int64)
        if name == "center_of_mass" and labels is not None and \
                isinstance(index, numpy.ndarray) and index.ndim:
            return _center_of_mass(input, labels, index)
        return getattr(_ndimage(), name)(input, labels, index)
    call.__name__ = call.__qualname__ = name
    return call


def _center_of_mass(input: numpy.ndarray, labels: numpy.ndarray,
                    index: numpy.ndarray) -> list:
    """See Also: cupyx.scipy.ndimage.center_of_mass (for an index array: each direction's
    weighted sums over the normalizer, stacked on a last axis and split along the first,
    a list of arrays; ``_measurements.py``)."""
    if input.ndim == 0:  # (CuPy's ``results[0]``)
        raise IndexError("list index out of range")
    sum_labels = _measurement("sum_labels")
    normalizer = numpy.asarray(sum_labels(input, labels, index), dtype=numpy.float64)
    grids = numpy.ogrid[tuple(slice(0, n) for n in input.shape)]
    results = [numpy.asarray(sum_labels(input * grids[d].astype(float), labels, index),
                             dtype=numpy.float64) / normalizer
               for d in range(input.ndim)]
    return list(numpy.stack(results, axis=-1))


def histogram(input: Any, min: Any, max: Any, bins: Any, labels: Any = None,
              index: Any = None) -> Any:
    """See Also: cupyx.scipy.ndimage.histogram (``labeled_comprehension`` of
    ``cupy.histogram(vals, cupy.linspace(min, max, bins + 1))[0]`` with ``out_dtype``
    object: for a sequence of labels a list of int64 count arrays, None for a label
    not found; SciPy's is an object array, which a device cannot hold)."""
    edges = numpy.linspace(min, max, bins + 1)

    def counts(values: numpy.ndarray) -> numpy.ndarray:
        return numpy.histogram(values, edges)[0]
    as_scalar = numpy.isscalar(index)
    if labels is None:
        if index is not None:
            raise ValueError("index without defined labels")
        return counts(input.ravel())
    try:
        input, labels = numpy.broadcast_arrays(input, labels)
    except ValueError:
        raise ValueError("input and labels must have the same shape "
                         "(excepting dimensions with width 1)") from None
    if index is None:
        return counts(input[labels > 0])
    index = numpy.atleast_1d(index)
    with numpy.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lossy = numpy.any(index.astype(labels.dtype).astype(index.dtype) != index)
    if lossy:
        raise ValueError("Cannot convert index values from <%s> to <%s> (labels.dtype) "
                         "without loss of precision" % (index.dtype, labels.dtype))
    output = []
    for label in index.astype(labels.dtype).ravel():
        values = input[labels == label]
        output.append(counts(values) if values.size else None)
    return output[0] if as_scalar else output


def value_indices(arr: Any, *, ignore_value: Any = None,
                  adaptive_index_dtype: bool = False) -> dict:
    """See Also: cupyx.scipy.ndimage.value_indices"""
    _require_device(arr, "arr")
    if arr.dtype.kind not in "iu":
        raise ValueError("Parameter 'arr' must be an integer array")
    if arr.size and (arr < 0).any():  # CuPy counts the values with cupy.bincount
        raise ValueError("The first argument of bincount must be non-negative")
    out = _ndimage().value_indices(arr, ignore_value=ignore_value)
    if adaptive_index_dtype:
        coord = numpy.min_scalar_type(-(max(arr.shape) + 1))
        out = {k: tuple(c.astype(coord, copy=False) for c in v) for k, v in out.items()}
    # CuPy's keys are Python ints (``enumerate`` of the counts), in ascending order
    return {int(k): v for k, v in sorted(out.items())}


# --- morphology -------------------------------------------------------------------------

def _box_structure(name: str) -> Callable[..., Any]:
    """``name`` taking a tuple (or an int) as the shape of a box of ones."""
    def call(input: Any, structure: Any = None, *args: Any, **kwargs: Any) -> Any:
        _require_device(input, "input")
        axes = kwargs.get("axes")
        num_axes = len(_check_axes(axes, input.ndim))
        if isinstance(structure, int) and not isinstance(structure, bool):
            structure = (structure,) * num_axes
        elif isinstance(structure, list):
            structure = tuple(structure)
        if isinstance(structure, tuple):
            structure = numpy.ones(structure, dtype=bool)
        fn = getattr(_ndimage(), name)
        try:
            mask = inspect.signature(fn).bind(input, structure, *args, **kwargs) \
                .arguments.get("mask")
        except TypeError:
            mask = None
        if mask is not None:  # (_binary_erosion: ``if mask.shape != input.shape``)
            getattr(mask, "shape")
        return fn(input, structure, *args, **kwargs)
    call.__name__ = call.__qualname__ = name
    return call


# --- distance_transform_edt ----------------------------------------------------------

def _check_block_params(shape: tuple, block_params: Any) -> None:
    """CuPy's ``_pba_2d`` checks of ``block_params`` (3-D takes any positive values)."""
    if block_params is None:
        return
    if any(p < 1 for p in block_params):
        raise ValueError("(m1, m2, m3) in blockparams must be >= 1")
    if len(shape) != 2:
        return
    block_size = 32
    m1, m2, m3 = block_params
    if math.log2(m2) % 1 > 1e-5:
        raise ValueError("m2 must be a power of 2")
    multiple = math.lcm(block_size, m1, m2, m3)
    padded_size = math.ceil(max(shape) / multiple) * multiple
    for m, which in ((m1, "m1"), (m2, "m2"), (m3, "m3")):
        if m > padded_size // block_size:
            axis = "0" if which == "m1" else "1"
            raise ValueError(f"{which} too large. must be <= padded arr.shape[{axis}] "
                             f"// {block_size}")
    for m in (m1, m2, m3):
        if padded_size % m != 0:
            raise ValueError(
                f"Largest dimension of image ({padded_size}) must be evenly "
                f"disivible by each element of block_params: {(m1, m2, m3)}.")


def _pba_shape(shape: tuple, block_params: Any) -> tuple:
    """The shape of the image CuPy's ``_pba_2d``/``_pba_3d`` work on once padded (its
    ``arr``, by ``_determine_padding``): the shape its in-place ``indices`` check asks of
    ``indices[1:]`` (``_check_indices(indices, (arr.ndim,) + arr.shape, ...)``, after the
    padding: an unpadded image's own shape passes only where no padding was needed)."""
    block_size = 32
    if len(shape) == 2:
        if block_params is None:
            padded = math.ceil(max(shape) / block_size) * block_size
        else:
            padded = math.ceil(max(shape) / math.lcm(block_size, *block_params)) * \
                math.lcm(block_size, *block_params)
        return tuple(shape) if tuple(shape) == (padded, padded) else (padded, padded)
    m1, m2, m3 = (1, 1, 2) if block_params is None else block_params
    s_min = min(shape)
    blockx = 4 if s_min <= 4 else 8 if s_min <= 8 else 16 if s_min <= 16 else 32
    lcm = math.lcm(block_size, m1, m2, m3, blockx, 4)
    sizes = [n if n % lcm == 0 else lcm * math.ceil(n / lcm) for n in shape]
    if len(set(sizes)) > 1 or sizes != list(shape):
        return (max(sizes),) * 3
    return tuple(shape)


def distance_transform_edt(image: Any, sampling: Any = None, return_distances: bool = True,
                           return_indices: bool = False, distances: Any = None,
                           indices: Any = None, *, block_params: Any = None,
                           float64_distances: bool = True) -> Any:
    """See Also: cupyx.scipy.ndimage.distance_transform_edt"""
    _require_device(image, "image")
    if image.ndim not in (2, 3):
        raise NotImplementedError("Only 2D and 3D distance transforms are supported.")
    dt_inplace = isinstance(distances, numpy.ndarray)
    ind_inplace = isinstance(indices, numpy.ndarray)
    msgs = []
    if not return_distances and not return_indices:
        msgs.append("at least one of return_distances/return_indices must be True")
    if dt_inplace and not return_distances:
        msgs.append("return_distances must be True if distances is supplied")
    if ind_inplace and not return_indices:
        msgs.append("return_indices must be True if indices is supplied")
    if msgs:
        raise RuntimeError(", ".join(msgs))
    _check_block_params(image.shape, block_params)
    if image.ndim == 2:
        if max(image.shape) > (1 << 24):
            raise ValueError(f"maximum axis size of {1 << 24} exceeded, for image with "
                             f"shape {image.shape}")
        int_dtype = numpy.dtype(numpy.int16 if max(image.shape) <= 32768 else numpy.int32)
    else:
        int_dtype = numpy.dtype(numpy.int32)
    dtype_out = numpy.dtype(numpy.float64 if float64_distances else numpy.float32)
    if sampling is not None and numpy.isscalar(sampling):
        sampling = (sampling,) * image.ndim
    dist, ind = _ndimage().distance_transform_edt(
        image, sampling=sampling, return_distances=True, return_indices=True)
    vals: tuple = ()
    if return_distances:
        if dt_inplace:
            if distances.shape != image.shape:
                raise RuntimeError("distances array has wrong shape")
            if distances.dtype != dtype_out:
                raise RuntimeError(f"distances array must have dtype: {dtype_out}")
            numpy.copyto(distances, dist, casting="unsafe")
        else:
            distances = dist.astype(dtype_out)
        vals += (distances,)
    if return_indices:
        if ind_inplace:
            if indices.shape != (image.ndim,) + _pba_shape(image.shape, block_params):
                raise RuntimeError("indices array has wrong shape")
            if indices.dtype.kind not in "iu":
                raise RuntimeError("indices array must have an integer dtype")
            if indices.dtype.itemsize < int_dtype.itemsize:
                raise RuntimeError(f"indices dtype must have itemsize > {int_dtype.itemsize}")
            # (a padded image's shape passes, and CuPy's ``indices[0, ...] = y`` then
            # fails to broadcast its cropped result: NumPy's words for that here)
            numpy.copyto(indices, ind, casting="unsafe")
        else:
            indices = ind.astype(int_dtype)
        vals += (indices,)
    return vals[0] if len(vals) == 1 else vals


def affine_transform(input: Any, matrix: Any, offset: Any = 0.0, output_shape: Any = None,
                     output: Any = None, order: int = 3, mode: str = "constant",
                     cval: float = 0.0, prefilter: bool = True, *,
                     texture_memory: bool = False, float64_coords: bool = False) -> Any:
    """See Also: cupyx.scipy.ndimage.affine_transform (``float64_coords`` changes
    nothing here: SciPy's coordinates are float64 already)."""
    if texture_memory:  # CuPy's texture path, with its checks and CUDA's sampling
        return _texture_affine(input, matrix, output_shape, output,
                               "linear" if order > 0 else "nearest", mode, cval)
    return _ndimage().affine_transform(input, matrix, offset, output_shape, output, order,
                                       mode, cval, prefilter)


# --- texture_memory=True: CuPy's texture path (cupyx/_texture.py), on the emulator ---
#: CuPy's kernels (cupyx/_texture.py, MIT licence), run by the kernel emulator
_AFFINE_2D = ("U texObj, raw float32 m, uint64 width", "T transformed_image", """
    float3 pixel = make_float3(
        (float)(i / width),
        (float)(i % width),
        1.0f
    );
    float x = dot(pixel, make_float3(m[0],  m[1],  m[2])) + .5f;
    float y = dot(pixel, make_float3(m[3],  m[4],  m[5])) + .5f;
    transformed_image = tex2D<T>(texObj, y, x);
    """, "cupyx_texture_affine_transformation_2d_array", """
    inline __host__ __device__ float dot(float3 a, float3 b)
    {
        return a.x * b.x + a.y * b.y + a.z * b.z;
    }
    """)
_AFFINE_3D = ("U texObj, raw float32 m, uint64 height, uint64 width", "T transformed_volume", """
    float4 voxel = make_float4(
        (float)(i / (width * height)),
        (float)((i % (width * height)) / width),
        (float)((i % (width * height)) % width),
        1.0f
    );
    float x = dot(voxel, make_float4(m[0],  m[1],  m[2],  m[3])) + .5f;
    float y = dot(voxel, make_float4(m[4],  m[5],  m[6],  m[7])) + .5f;
    float z = dot(voxel, make_float4(m[8],  m[9],  m[10], m[11])) + .5f;
    transformed_volume = tex3D<T>(texObj, z, y, x);
    """, "cupyx_texture_affine_transformation_3d_array", """
    inline __host__ __device__ float dot(float4 a, float4 b)
    {
        return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    }
    """)
_texture_kernels: dict = {}


def _texture_affine(data: Any, transformation_matrix: Any, output_shape: Any, output: Any,
                    interpolation: str, mode: str, border_value: Any) -> Any:
    """``cupyx._texture.affine_transformation``, CuPy's, over the CPU backend's
    texture objects (``cpu_texture``) and kernel emulator."""
    from gpushare_server import kernels
    from . import cpu_texture as tx
    ndim = data.ndim
    if ndim < 2 or ndim > 3:
        raise ValueError("Texture memory affine transformation is defined only for "
                         "2D and 3D arrays without channel dimension.")
    dtype = data.dtype
    if dtype != numpy.float32:
        raise ValueError("Texture memory affine transformation is available only for "
                         f"float32 data type (not {dtype})")
    if interpolation not in ("linear", "nearest"):
        raise ValueError(f"Unsupported interpolation {interpolation} "
                         "(supported: linear, nearest)")
    shape = (transformation_matrix.array if isinstance(transformation_matrix, HostArray)
             else transformation_matrix).shape
    if shape != (ndim + 1, ndim + 1):
        raise ValueError("Matrix must be have shape (ndim + 1, ndim + 1)")
    if mode == "nearest":
        address = 1   # cudaAddressModeClamp
    elif mode == "constant":
        address = 3   # cudaAddressModeBorder
    else:
        raise ValueError(f"Unsupported address mode {mode} (supported: constant, nearest)")
    desc = tx.ChannelFormatDescriptor(32, 0, 0, 0, 2)
    array = tx.CUDAarray(desc, *data.shape[::-1])
    texture = tx.TextureObject(
        tx.ResourceDescriptor(0, cuArr=array),
        tx.TextureDescriptor((address,) * ndim, 1 if interpolation == "linear" else 0, 0,
                             borderColors=(border_value,)))
    array.copy_from(data)
    spec = _AFFINE_2D if ndim == 2 else _AFFINE_3D
    kernel = _texture_kernels.get(ndim)
    if kernel is None:
        in_params, out_params, operation, name, preamble = spec
        kernel = _texture_kernels[ndim] = kernels.ElementwiseKernel(
            in_params, out_params, operation, name, preamble=preamble)
    if output_shape is None:
        output_shape = data.shape
    if output is None:
        output = numpy.zeros(output_shape, dtype=dtype)
    elif isinstance(output, (type, numpy.dtype)):
        if output != numpy.float32:
            raise ValueError("Texture memory affine transformation is available only "
                             f"for float32 data type (not {output})")
        output = numpy.zeros(output_shape, dtype=output)
    elif isinstance(output, numpy.ndarray):
        if output.shape != output_shape:
            raise ValueError("Output shapes do not match")
    else:
        raise ValueError("Output must be None, cupy.ndarray or cupy.dtype")
    kernel(texture, transformation_matrix, *output_shape[1:], output)
    return output


# --- generic filters with the user's kernels ----------------------------------------------

#: CuPy's modes as ``numpy.pad``'s
_PAD_MODES = {"reflect": "symmetric", "grid-mirror": "symmetric", "mirror": "reflect",
              "nearest": "edge", "wrap": "wrap", "grid-wrap": "wrap",
              "constant": "constant", "grid-constant": "constant"}


def _cast(values: numpy.ndarray, dtype: numpy.dtype) -> numpy.ndarray:
    """CuPy's ``cast<Y>`` of the filters: a negative float to an unsigned type wraps
    from its magnitude (``-(B)(-a)``), otherwise a C cast."""
    dtype = numpy.dtype(dtype)
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if values.dtype.kind == "f" and dtype.kind in "ub":
            if dtype.kind == "b":
                return values != 0
            magnitude = numpy.abs(values).astype(numpy.uint64)
            return numpy.where(values >= 0, magnitude, 0 - magnitude).astype(dtype)
        return values.astype(dtype)


def _sub_kernel(function: Any) -> tuple[str, Any]:
    from gpushare_server import kernels
    if isinstance(function, kernels.RawKernel):
        return "raw", function
    if isinstance(function, kernels.ReductionKernel):
        if function.nin != 1 or function.nout != 1:
            raise TypeError("ReductionKernel must have 1 input and output")
        return "red", function
    if isinstance(function, kernels.ElementwiseKernel):
        raise TypeError("only ReductionKernel allowed (not ElementwiseKernel)")
    raise TypeError("bad function type")


def _pad_axis(arr: numpy.ndarray, axis: int, width: tuple, mode: str,
              cval: Any) -> numpy.ndarray:
    """``arr`` extended along ``axis`` by ``width`` values, by CuPy's ``mode``."""
    if width == (0, 0):
        return arr
    widths = [(0, 0)] * arr.ndim
    widths[axis] = width
    pmode = _PAD_MODES[mode]
    if pmode == "constant":
        return numpy.pad(arr, widths, mode="constant", constant_values=cval)
    if arr.shape[axis] == 1 and pmode == "reflect":  # (one value mirrors to itself)
        pmode = "edge"
    return numpy.pad(arr, widths, mode=pmode)


def _neighbourhoods(input: numpy.ndarray, footprint: numpy.ndarray, modes: list,
                    offsets: tuple, cval: float) -> numpy.ndarray:
    """Each element's neighbourhood values (the footprint's, in C order), one row each,
    in ``input``'s dtype, with CuPy's boundary modes."""
    _reserve(input.size * int(footprint.sum()) * 8)  # the rows (as doubles, at most)
    pad = [(o, w - 1 - o) for w, o in zip(footprint.shape, offsets)]
    cval_x = numpy.array([cval]).astype(input.dtype)[0] if input.dtype.kind != "f" \
        else input.dtype.type(cval)
    padded = input
    for axis, (mode, width) in enumerate(zip(modes, pad)):
        padded = _pad_axis(padded, axis, width, mode, cval_x)
    windows = numpy.lib.stride_tricks.sliding_window_view(padded, footprint.shape)
    return windows[..., footprint]  # (..., count): a new C-ordered array


def _run_rows(kind: str, kernel: Any, rows: numpy.ndarray, out_dtype: numpy.dtype,
              in_length: int | None = None, length: int | None = None) -> numpy.ndarray:
    """Call the user's kernel, as a device function, on each row of ``rows`` (compiled
    once per source, as the emulator's own generated kernels: ``_common.get_function``)."""
    from gpushare_server.kernels import _common
    n, size = rows.shape
    name = f"gs_generic_{kind}_{kernel.name}"
    loop = ("for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; "
            "i += (long long)blockDim.x * gridDim.x)")
    if kind in ("raw", "raw1d"):  # (raw: one value out per row; raw1d: a line out)
        call = (f"rows + i * {size}, {size}, out + i" if kind == "raw" else
                f"rows + i * {in_length}, {in_length}, out + i * {length}, {length}")
        code = "namespace raw_kernel {\n%s\n}\n" % kernel.code.replace("__global__",
                                                                       "__device__")
        code += (f'extern "C" __global__ void {name}(const double* rows, double* out, '
                 f'long long n) {{\n  {loop}\n    raw_kernel::{kernel.name}({call});\n}}\n')
        result = numpy.empty(n if kind == "raw" else (n, length), numpy.float64)
        rows = rows.astype(numpy.float64, copy=False)
    else:
        out_param = kernel.out_params[0]
        if out_param.dtype is not None:
            result_dtype = numpy.dtype(out_param.dtype)
        elif out_param.ctype == kernel.in_params[0].ctype:
            result_dtype = rows.dtype
        else:
            result_dtype = numpy.dtype(out_dtype)
        in_ctype = _common.get_typename(rows.dtype)
        out_ctype = _common.get_typename(result_dtype)
        code = _reduction_kernel_code(kernel, size, result_dtype, rows.dtype)
        code += (f'extern "C" __global__ void {name}(const {in_ctype}* rows, {out_ctype}* out,'
                 f' long long n) {{\n  {loop} {{\n    {in_ctype} values[{size}];\n'
                 f'    for (int k = 0; k < {size}; ++k) values[k] = rows[i * {size} + k];\n'
                 f'    CArray<{in_ctype}, 1, true, true> sub_in(values, {{{size}}});\n'
                 f'    {out_ctype} val_out;\n'
                 f'    CArray<{out_ctype}, 1, true, true> sub_out(&val_out, {{1}});\n'
                 f'    reduction_kernel::{kernel.name}(sub_in, sub_out);\n'
                 f'    out[i] = val_out;\n  }}\n}}\n')
        result = numpy.empty(n, result_dtype)
    if n:
        compiled, k = _common.get_function(code, name, tuple(getattr(kernel, "options", ())))
        rows = numpy.ascontiguousarray(rows)
        _common.launch_linear(compiled, k, n, [rows, result, numpy.int64(n)],
                              compiled.signature(k))
    return result


def _reduction_kernel_code(rk: Any, filter_size: int, out_dtype: Any, in_dtype: Any) -> str:
    """CuPy's ``_filters_generic._reduction_kernel_code``: the reduction of one
    neighbourhood, as a device function."""
    from gpushare_server.kernels import _common
    types: dict[str, str] = {}

    def type_info(param: Any, dtype: Any) -> str:
        if param.dtype is not None:
            return param.ctype
        ctype = _common.get_typename(numpy.dtype(dtype))
        types.setdefault(param.ctype, ctype)
        return ctype
    in_param, out_param = rk.in_params[0], rk.out_params[0]
    in_ctype = type_info(in_param, in_dtype)
    out_ctype = type_info(out_param, out_dtype)
    type_preamble = "\n".join(f"typedef {typ} {name};" for name, typ in types.items())
    in_const = "const" if in_param.is_const else ""
    identity = "" if rk.identity is None else rk.identity
    return f"""namespace reduction_kernel {{
{type_preamble}
{rk.preamble}
__device__
void {rk.name}({in_const} CArray<{in_ctype}, 1, true, true>& _raw_{in_param.name},
            CArray<{out_ctype}, 1, true, true>& _raw_{out_param.name}) {{
    CIndexer<1> _in_ind({{{filter_size}}});
    CIndexer<0> _out_ind;
    #define REDUCE(a, b) ({rk.reduce_expr})
    #define POST_MAP(a) ({rk.post_map_expr})
    typedef {rk.reduce_type} _type_reduce;
    _type_reduce _s = _type_reduce({identity});
    for (int _j = 0; _j < {filter_size}; ++_j) {{
        _in_ind.set(_j);
        {in_const} {in_ctype}& {in_param.name} = _raw_{in_param.name}[_j];
        _type_reduce _a = static_cast<_type_reduce>({rk.map_expr});
        _s = REDUCE(_s, _a);
    }}
    _out_ind.set(0);
    {out_ctype} &{out_param.name} = _raw_{out_param.name}[0];
    POST_MAP(_s);
    #undef REDUCE
    #undef POST_MAP
}}
}}
"""


def generic_filter(input: Any, function: Any, size: Any = None, footprint: Any = None,
                   output: Any = None, mode: str = "reflect", cval: float = 0.0,
                   origin: Any = 0, *, axes: Any = None) -> Any:
    """See Also: cupyx.scipy.ndimage.generic_filter (a ``RawKernel`` or a
    ``ReductionKernel``, called on each neighbourhood)."""
    _require_device(input, "input")
    axes = _check_axes(axes, input.ndim)
    num_axes = len(axes)
    if footprint is None:
        if size is None:
            raise RuntimeError("no footprint or filter size provided")
        footprint = numpy.ones(_fix_sequence_arg(size, num_axes, "size", int), bool)
    else:
        if size is not None:
            warnings.warn("ignoring size because footprint is set", UserWarning,
                          stacklevel=2)
        footprint = numpy.array(footprint, bool, order="C")
        if not footprint.any():
            raise ValueError("all-zero footprint is not supported")
    filter_size = int(footprint.sum())
    modes = _fix_sequence_arg(mode, num_axes, "origin", str)
    for m in modes:
        _check_mode(m)
    origins = _fix_sequence_arg(origin, num_axes, "origin", int)
    if num_axes < input.ndim:
        if footprint.ndim != num_axes:
            raise RuntimeError(f"footprint.ndim ({footprint.ndim}) must match len(axes) "
                               f"({num_axes})")
        footprint = numpy.expand_dims(
            footprint, tuple(ax for ax in range(input.ndim) if ax not in axes))
        full_origins, full_modes = [0] * input.ndim, ["constant"] * input.ndim
        for o, m, ax in zip(origins, modes, axes):
            full_origins[ax], full_modes[ax] = o, m
        origins, modes = full_origins, full_modes
    weight_dims = [x for x in footprint.shape if x != 0]
    if len(weight_dims) != input.ndim:
        raise RuntimeError("footprint array has incorrect shape")
    for o, width in zip(origins, weight_dims):
        _check_origin(o, width)
    kind, sub = _sub_kernel(function)
    if footprint.size == 0:
        return numpy.zeros_like(input)
    output = get_output(output, input, numpy.empty)
    offsets = tuple(w // 2 + o for w, o in zip(footprint.shape, origins))
    rows = _neighbourhoods(input, footprint, modes, offsets, float(cval))
    flat = rows.reshape(-1, filter_size)
    values = _run_rows(kind, sub, flat, output.dtype)
    numpy.copyto(output, _cast(values, output.dtype).reshape(input.shape))
    return output


def generic_filter1d(input: Any, function: Any, filter_size: int, axis: int = -1,
                     output: Any = None, mode: str = "reflect", cval: float = 0.0,
                     origin: int = 0) -> Any:
    """See Also: cupyx.scipy.ndimage.generic_filter1d (a ``RawKernel`` called on each
    line, extended by ``filter_size - 1`` values)."""
    from gpushare_server import kernels
    _require_device(input, "input")
    if input.dtype.kind == "c":
        raise TypeError("Complex type not supported")
    if not isinstance(function, kernels.RawKernel):
        raise TypeError("bad function type")
    if filter_size < 1:
        raise RuntimeError("invalid filter size")
    axis = numpy.lib.array_utils.normalize_axis_index(axis, input.ndim)
    origin = _check_origin(origin, filter_size)
    _check_mode(mode)
    output = get_output(output, input, numpy.empty)
    length = input.shape[axis]
    start = filter_size // 2 + origin
    lines = numpy.moveaxis(input, axis, -1).astype(numpy.float64).reshape(-1, length)
    lines = _pad_axis(lines, 1, (start, filter_size - 1 - start), mode, float(cval))
    values = _run_rows("raw1d", function, lines, output.dtype,
                       in_length=length + filter_size - 1, length=length)
    shaped = numpy.moveaxis(input, axis, -1).shape
    numpy.copyto(numpy.moveaxis(output, axis, -1),
                 _cast(values, output.dtype).reshape(shaped))
    return output


# --- generic_laplace/generic_gradient_magnitude take Python functions: the client runs
# them (gpushare/cupyx/scipy/_ndimage.py)

OVERRIDES: dict[str, Callable[..., Any]] = {
    "label": label,
    "affine_transform": affine_transform,
    "value_indices": value_indices,
    "histogram": histogram,
    "distance_transform_edt": distance_transform_edt,
    "generic_filter": generic_filter,
    "generic_filter1d": generic_filter1d,
    **{name: _measurement(name) for name in ("sum", "sum_labels", "mean", "variance",
                                               "standard_deviation", "center_of_mass")},
    **{name: _box_structure(name) for name in ("binary_erosion", "binary_dilation",
                                               "binary_opening", "binary_closing")},
}
