"""``cupyx.scipy.signal``'s filter states, on the CPU backend.

CuPy filters in parallel blocks, so its initial and final filter states are not
SciPy's (a direct-form II transposed delay line): ``lfilter``'s ``zi``/``zf`` are the
last ``len(b) - 1`` inputs followed by the last ``len(a) - 1`` outputs, oldest first, along
``axis``; ``sosfilt``'s are those four values for each section (shape
``(n_sections, ..., 4, ...)``). ``lfiltic``, ``lfilter_zi`` and ``sosfilt_zi`` make
states of that kind. (See cupyx/scipy/signal/_signaltools.py in CuPy 14.2.)

Each function here converts CuPy's state to SciPy's, filters with SciPy, and returns
the final state in CuPy's form, so that a program chaining calls gets CuPy's answers.
The rest of the module is SciPy's (``MIRRORS`` in ``cpu.py``); these take over by name
(``SIGNAL_OVERRIDES``), with the wavelets SciPy no longer has (``ricker``, ``morlet``,
``morlet2``, ``qmf``; ``cwt`` takes a Python function, which cannot be sent).

Host (NumPy) arrays: the module takes them (``cpu.HOST_OK_MODULES``), but the functions
marked ``_takes_hosts`` see them as ``HostArray``s and refuse them where CuPy's code hands
one to a kernel, a ufunc or a typed Cython parameter, at that point and in its words.
"""
from __future__ import annotations

import math
import operator
import warnings
from typing import Any, Callable

import numpy

from gpushare.cython_args import NDARRAY_BASE, argument_type_error
from gpushare.errors import CUDARuntimeError, assert_2d
from gpushare.ndimage_args import fix_sequence_arg as _fix_sequence_arg
from gpushare.protocol import HostArray
from gpushare.signal_windows import WINDOWS as _WINDOWS

from . import scipy_module


def _signal() -> Any:
    return scipy_module("scipy.signal", "cupyx.scipy.signal")


def _df2t_state(b: numpy.ndarray, a: numpy.ndarray, prev_in: numpy.ndarray,
                prev_out: numpy.ndarray) -> numpy.ndarray:
    """SciPy's ``lfilter`` state for the inputs ``prev_in`` and outputs ``prev_out`` that
    came before (oldest first, along the last axis), for ``a[0] == 1`` (SciPy's
    ``lfiltic``, along the last axis of arrays of any leading shape)."""
    m, n = b.size - 1, a.size - 1
    lead = numpy.broadcast_shapes(prev_in.shape[:-1], prev_out.shape[:-1])
    dtype = numpy.result_type(b, a, prev_in, prev_out)
    state = numpy.zeros(lead + (max(m, n),), dtype=dtype)
    x_back, y_back = prev_in[..., ::-1], prev_out[..., ::-1]  # x[-1], x[-2], ...
    for k in range(m):
        state[..., k] += (b[k + 1:] * x_back[..., :m - k]).sum(-1)
    for k in range(n):
        state[..., k] -= (a[k + 1:] * y_back[..., :n - k]).sum(-1)
    return state


def _last(prev: numpy.ndarray, new: numpy.ndarray, count: int) -> numpy.ndarray:
    """The last ``count`` (at least 1) values of ``prev`` followed by ``new`` (last axis)."""
    prev = numpy.broadcast_to(prev, new.shape[:-1] + prev.shape[-1:])
    return numpy.concatenate((prev, new), axis=-1)[..., -count:]


def _attrs(name: str, *values: Any) -> None:
    """Read ``name`` of each value, as the CuPy line quoted beside each call does first:
    Python's own AttributeError for a list or a number (``'list' object has no attribute
    'ndim'``), where SciPy would convert them."""
    for value in values:
        getattr(value, name)


def _check_a(a: Any) -> None:
    """CuPy's ``lfilter``/``lfilter_zi`` begin ``a0 = a[0]; a_r = - a[1:] / a0``."""
    if not hasattr(a, "__getitem__"):  # (``a[0]`` of a number)
        raise TypeError(f"'{type(a).__name__}' object is not subscriptable")
    if getattr(a, "ndim", None) == 0:  # (``a[0]`` of a 0-d array: NumPy's words are CuPy's)
        a[0]
    if isinstance(a, (list, tuple)):  # (then ``- a[1:] / a0``)
        raise TypeError(f"bad operand type for unary -: '{type(a).__name__}'")


# --- host (NumPy) arrays: most of the module takes them (``cupy.asarray`` first); these
# functions get them as ``HostArray``s (``host_arrays``: ``cpu._wrap_host_ok``) and refuse
# them where CuPy's code hands one to a kernel, in the words CuPy's Cython raises ---------

def _host(value: Any) -> tuple[Any, bool]:
    """``value`` as NumPy sees it, and whether it came as a host array."""
    if isinstance(value, HostArray):
        return value.array, True
    return value, False


def _takes_hosts(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn.host_arrays = True  # type: ignore[attr-defined]
    return fn


def _ufunc_refusal() -> TypeError:
    """A CuPy ufunc or ElementwiseKernel given a NumPy array (``_kernel._preprocess_arg``:
    ``CScalar(arg)``; ``cupy.concatenate`` too, through the same function)."""
    return TypeError(f"Unsupported type {numpy.ndarray}")


def _fft_refusal() -> TypeError:
    """``cupy.fft._fft._fft``/``_fftn``: ``if not isinstance(a, cupy.ndarray)``."""
    return TypeError("The input array a must be a cupy.ndarray")


def _fill_refusal() -> ValueError:
    """``device[...] = host`` (``_scatter_op``: a value not on the device goes to
    ``fill``, which takes only a scalar)."""
    return ValueError("non-scalar numpy.ndarray cannot be used for fill")


def _cython_refusal(name: str, value: Any) -> TypeError:
    """A NumPy array for a ``cpdef`` function's ``_ndarray_base`` parameter ``name``
    (``cupy.moveaxis``' ``_move_single_axis``, ``shares_memory``'s ``may_share_bounds``)."""
    return argument_type_error(name, NDARRAY_BASE, value)


def _kernel_param(array: numpy.ndarray) -> Exception:
    """A NumPy array as a RawKernel's pointer parameter (``cuda/function.pyx: _pointer``):
    refused unless of size one, which CuPy passes by value, so the kernel reads its value
    as an address: the GPU's fault (CuPy raises it at the next synchronization)."""
    if array.size == 1:
        return CUDARuntimeError(700, "cudaErrorIllegalAddress: an illegal memory access "
                                     "was encountered")
    return TypeError(
        "You are trying to pass a numpy.ndarray of shape {} as a kernel parameter. "
        "Only numpy.ndarrays of size one can be passed by value. If you meant to "
        "pass a pointer to __global__ memory, you need to pass a cupy.ndarray "
        "instead.".format(array.shape))


@_takes_hosts
def lfilter(b: Any, a: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.lfilter (``zi``/``zf``: CuPy's, see module docs)."""
    (b, b_host), (a, a_host), (x, x_host) = _host(b), _host(a), _host(x)
    zi = _host(zi)[0]  # (``zi = cupy.atleast_1d(zi)``: a host array taken)
    _check_a(a)
    if isinstance(b, (list, tuple)) and not a_host:  # (``b = b / a0``: a CuPy ufunc,
        raise TypeError(f"Unsupported type {type(b)}")  # ``a0`` a 0-d device array)
    if b_host and not a_host:  # (the same ``b / a0``; a host ``a0`` is a NumPy scalar)
        raise _ufunc_refusal()
    _attrs("ndim", x)  # (``x_ndim = x.ndim``)
    if x_host and x.ndim:  # (``x_full = axis_assign(x_full, x, num_b, axis=axis)``)
        raise _fill_refusal()
    if a_host and numpy.size(a) > 1:  # (``apply_iir(out, a_r, ...)``: its corr_kernel's
        raise _kernel_param(-numpy.asarray(a)[1:])  # ``(block_sz, k, a, correction)``)
    if zi is None:
        return _signal().lfilter(b, a, x, axis=axis)
    b, a, x = numpy.asarray(b), numpy.asarray(a), numpy.asarray(x)
    num_b, num_a = b.size - 1, a.size - 1
    # CuPy's: the FIR part's type, then the IIR part's; the state's does not count
    dtype = numpy.result_type(x, b)
    if num_a:
        dtype = numpy.result_type(dtype, a)
    b, a = b / a[0], a / a[0]
    axis = axis + x.ndim if axis < 0 else axis
    zi = numpy.atleast_1d(numpy.asarray(zi))
    zi_last = numpy.moveaxis(zi, axis, -1) if zi.ndim == x.ndim else zi
    x_last = numpy.moveaxis(x, axis, -1)
    size = zi_last.shape[-1]
    prev_in = zi_last[..., :num_b]
    prev_out = zi_last[..., size - num_a:]
    state = _df2t_state(b, a, prev_in, prev_out)
    state = numpy.broadcast_to(state, x_last.shape[:-1] + state.shape[-1:])
    y, _ = _signal().lfilter(b, a, x_last, axis=-1, zi=state)
    y = y.astype(dtype, copy=False)
    zf = numpy.zeros(x_last.shape[:-1] + (size,), dtype=y.dtype)
    if num_b:
        zf[..., :num_b] = _last(prev_in, x_last, num_b)
    if num_a:
        zf[..., size - num_a:] = _last(prev_out, y, num_a)
    return numpy.moveaxis(y, -1, axis), numpy.moveaxis(zf, -1, axis)


@_takes_hosts
def lfiltic(b: Any, a: Any, y: Any, x: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.lfiltic (CuPy's state: the given past inputs and
    outputs, oldest first; ``y`` and ``x`` come newest first, as SciPy's)."""
    (b, _), (a, _), (y, y_host), (x, x_host) = _host(b), _host(a), _host(y), _host(x)
    _attrs("size", b, a)  # (``fir_len = b.size - 1; iir_len = a.size - 1``: host taken)
    b, a = numpy.asarray(b), numpy.asarray(a)
    fir_len, iir_len = b.size - 1, a.size - 1
    if y is None and x is None:
        return None
    _attrs("ndim", y if y is not None else x)  # (``ref_ndim = y.ndim if ... else x.ndim``)
    for values, host, length in ((y, y_host, iir_len), (x, x_host, fir_len)):
        if values is not None and length > 0:  # (``cupy.concatenate((y, cupy.zeros(
            _attrs("shape", values)  # max(iir_len - y.shape[axis], 0))), axis=axis)``)
            if host:
                raise _ufunc_refusal()
    zi = numpy.empty(0)
    for values, length, fir in ((y, iir_len, False), (x, fir_len, True)):
        if values is None or length <= 0:
            continue
        values = numpy.asarray(values)
        pad = numpy.zeros(values.shape[:-1] + (max(length - values.shape[-1], 0),))
        part = numpy.flip(numpy.concatenate((values, pad), axis=-1)[..., :length], -1)
        zi = numpy.concatenate((part, zi), axis=-1) if fir else part
    return zi


def _steady(gain: Any) -> Any:
    return numpy.nan_to_num(gain, nan=0, posinf=numpy.inf, neginf=-numpy.inf)


@_takes_hosts
def lfilter_zi(b: Any, a: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.signal.lfilter_zi (CuPy's state for the steady state of
    the step response: inputs 1, outputs the filter's gain at DC)."""
    (b, b_host), (a, a_host) = _host(b), _host(a)
    _check_a(a)
    _attrs("size", b)  # (``num_b = b.size - 1``)
    if numpy.size(a) > 1:  # (``lfilter(b, a, cupy.ones(num_a + 1), zi=zi_t)``: its
        if b_host and not a_host:  # ``b / a0`` and its ``apply_iir(out, a_r, ...)``)
            raise _ufunc_refusal()
        if a_host:
            raise _kernel_param(-numpy.asarray(a)[1:])
    b, a = numpy.asarray(b), numpy.asarray(a)
    zi = numpy.ones(b.size - 1)
    if a.size > 1:
        with numpy.errstate(all="ignore"):
            gain = _steady(b.sum() / a.sum())
        zi = numpy.r_[zi, numpy.full(a.size - 1, gain)]
    return zi


def _sections(sos: Any) -> numpy.ndarray:
    """``sos`` as CuPy's ``sosfilt`` reads it: its kernels take ``b0, b1, b2, a1, a2``
    of each section and ``a0`` as 1 (``_iir_utils.py: apply_iir_sos``); CuPy does not
    check ``sos[:, 3]`` there (its ``_validate_sos`` is ``sosfiltfilt``'s). An array
    not of shape ``(n_sections, 6)`` is refused in SciPy's words."""
    sos = numpy.array(numpy.atleast_2d(sos))
    if sos.ndim != 2 or sos.shape[1] != 6:
        raise ValueError("sos array must be shape (n_sections, 6)")
    sos[:, 3] = 1
    return sos


@_takes_hosts
def sosfilt(sos: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.sosfilt (``zi``/``zf``: per section, CuPy's
    ``lfilter`` state of that section, shape ``(n_sections, ..., 4, ...)``)."""
    (sos, sos_host), (x, x_host), (zi, zi_host) = _host(sos), _host(x), _host(zi)
    _attrs("ndim", x)  # (``x_ndim = x.ndim``)
    _attrs("dtype", sos)  # (apply_iir_sos: ``cupy.result_type(x.dtype, sos.dtype)``)
    if zi is not None:
        _attrs("astype", zi)  # (apply_iir_sos: ``zi = zi.astype(dtype)``)
    if x_host and x.ndim > 1:  # (apply_iir_sos: ``collapse_2d(x, axis)``'s
        raise _cython_refusal("a", x)  # ``cupy.moveaxis(x, axis, -1)``; 1-D: ``cupy.array(x)``)
    if zi_host:  # (``collapse_2d_rest(zi, axis)``: ``cupy.moveaxis(x, axis + 1, -1)``)
        raise _cython_refusal("a", zi)
    if sos_host:  # (``compute_correction_factors_sos``: ``(block_sz, sos, correction)``)
        raise _kernel_param(numpy.asarray(sos))
    sos = _sections(sos)
    if zi is None:
        return _signal().sosfilt(sos, x, axis=axis)
    out = numpy.asarray(x)
    zi = numpy.asarray(zi)
    finals = []
    for s in range(sos.shape[0]):
        out, zf = lfilter(sos[s, :3], sos[s, 3:], out, axis=axis, zi=zi[s])
        finals.append(zf)
    return out, numpy.stack(finals)


def sosfiltfilt(sos: Any, x: Any, axis: int = -1, padtype: Any = "odd",
                padlen: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.sosfiltfilt (CuPy's ``_validate_sos``/``_validate_x``
    take host arrays; SciPy's Cython ``sosfilt`` needs them writable, which arrays from
    the client are not)."""
    return _signal().sosfiltfilt(numpy.array(sos), numpy.array(x), axis=axis,
                                 padtype=padtype, padlen=padlen)


@_takes_hosts
def sosfilt_zi(sos: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.signal.sosfilt_zi (each section's steady state for a unit
    step into the first: its input the gain of the sections before it, its output that
    times its own gain)."""
    sos, host = _host(sos)
    _attrs("shape", sos)  # (``n_sections = sos.shape[0]``)
    if host:  # (``compute_correction_factors_sos(sos, 3, sos.dtype)``: a kernel's)
        raise _kernel_param(numpy.asarray(sos))
    sos = numpy.asarray(sos)
    zi = numpy.zeros((sos.shape[0], 4), dtype=sos.dtype)
    level = 1.0
    with numpy.errstate(all="ignore"):
        for s in range(sos.shape[0]):
            out = _steady(level * sos[s, :3].sum() / sos[s, 3:].sum())
            zi[s, :2], zi[s, 2:] = level, out
            level = out
    return zi


# --- wavelets: gone from SciPy, deprecated in CuPy 14 (its kernels, in NumPy) ----------

_DEPRECATED = ("Following the change in SciPy 1.12, all wavelet functions have been "
               "deprecated in CuPy v14 and are planned to be removed in the future. "
               "To request continued support of the features, "
               "please leave a comment at https://github.com/cupy/cupy/issues/8864.")


def _deprecated() -> None:
    import warnings
    warnings.warn(_DEPRECATED, numpy.exceptions.VisibleDeprecationWarning, stacklevel=3)


def qmf(hk: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.signal.qmf"""
    _deprecated()
    hk = numpy.asarray(hk)
    out = hk[::-1].copy()
    out[1::2] *= -1
    return out


def ricker(points: int, a: float) -> numpy.ndarray:
    """See Also: cupyx.scipy.signal.ricker"""
    _deprecated()
    a = float(a)
    x = numpy.arange(int(points)) - (int(points) - 1.0) * 0.5
    amplitude = 2.0 / (numpy.sqrt(3 * a) * numpy.pi ** 0.25)
    return amplitude * (1 - x * x / (a * a)) * numpy.exp(-x * x / (2.0 * a * a))


def morlet(M: int, w: float = 5.0, s: float = 1.0, complete: bool = True) -> numpy.ndarray:
    """See Also: cupyx.scipy.signal.morlet"""
    _deprecated()
    x = numpy.linspace(-s * 2 * numpy.pi, s * 2 * numpy.pi, int(M))
    out = numpy.exp(1j * w * x)
    if complete:
        out -= numpy.exp(-0.5 * w * w)
    return out * numpy.exp(-0.5 * x * x) * numpy.pi ** -0.25


def morlet2(M: int, s: float, w: float = 5) -> numpy.ndarray:
    """See Also: cupyx.scipy.signal.morlet2"""
    _deprecated()
    x = (numpy.arange(int(M)) - (int(M) - 1.0) * 0.5) / s
    return numpy.sqrt(1 / s) * numpy.exp(1j * w * x) * numpy.exp(-0.5 * x * x) * \
        numpy.pi ** -0.25


def bandwidth(a: Any) -> tuple[int, int]:
    """See Also: cupyx.scipy.linalg.bandwidth (CuPy's takes host arrays too, and its
    errors are ``cupy.linalg``'s)."""
    a = numpy.asarray(a)
    if a.size == 0:
        return (0, 0)
    assert_2d(a)
    rows, cols = numpy.nonzero(a)
    if rows.size == 0:
        return (0, 0)
    diff = rows - cols
    return max(int(diff.max()), 0), max(int(-diff.min()), 0)


def firls(numtaps: Any, bands: Any, desired: Any, weight: Any = None, fs: Any = 2) -> Any:
    """See Also: cupyx.scipy.signal.firls (CuPy's takes ``weight`` and ``fs`` by position
    too; SciPy's only by keyword)."""
    return _signal().firls(numtaps, bands, desired, weight=weight, fs=fs)


@_takes_hosts
def hilbert2(x: Any, N: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.hilbert2 (CuPy's checks first: a 2-D array, of more
    dimensions refused, where SciPy transforms the last two axes)."""
    x, host = _host(x)
    x = numpy.asarray(x)
    if x.ndim < 2:
        x, host = numpy.atleast_2d(x), False  # (``cupy.atleast_2d(x)``: on the device)
    if x.ndim > 2:
        raise ValueError("x must be 2-D.")
    if numpy.iscomplexobj(x):
        raise ValueError("x must be real.")
    if isinstance(N, int):
        if N <= 0:
            raise ValueError("N must be positive.")
    elif N is not None and (len(N) != 2 or (N[0] <= 0 or N[1] <= 0)):
        raise ValueError("When given as a tuple, N must hold exactly "
                         "two positive integers")
    if host:  # (``Xf = sp_fft.fft2(x, N, axes=(0, 1))``)
        raise _fft_refusal()
    return _signal().hilbert2(x, N)


def firwin(numtaps: Any, cutoff: Any, width: Any = None, window: Any = "hamming",
           pass_zero: Any = True, scale: bool = True, fs: Any = 2) -> Any:
    """See Also: cupyx.scipy.signal.firwin (CuPy's checks, in its words: 'less than
    nyq', 'the Nyquist rate', and ``pass_zero`` any truth value; then SciPy's taps)."""
    nyq = 0.5 * fs
    cut = numpy.atleast_1d(numpy.asarray(cutoff)) / float(nyq)
    if cut.ndim > 1:
        raise ValueError("The cutoff argument must be at most one-dimensional.")
    if cut.size == 0:
        raise ValueError("At least one cutoff frequency must be given.")
    if cut.min() <= 0 or cut.max() >= 1:
        raise ValueError("Invalid cutoff frequency: frequencies must be "
                         "greater than 0 and less than nyq.")
    if numpy.any(numpy.diff(cut) <= 0):
        raise ValueError("Invalid cutoff frequencies: the frequencies "
                         "must be strictly increasing.")
    if isinstance(pass_zero, str):
        one = "lowpass" if pass_zero in ("bandstop", "lowpass") else "highpass"
        if pass_zero in ("lowpass", "highpass"):
            if cut.size != 1:
                raise ValueError("cutoff must have one element if "
                                 'pass_zero=="%s", got %s' % (pass_zero, cut.shape))
        elif pass_zero in ("bandstop", "bandpass"):
            if cut.size <= 1:
                raise ValueError("cutoff must have at least two elements if "
                                 'pass_zero=="%s", got %s' % (pass_zero, cut.shape))
        else:
            raise ValueError('pass_zero must be True, False, "bandpass", '
                             '"lowpass", "highpass", or "bandstop", got '
                             "{}".format(pass_zero))
        pass_zero = one == "lowpass"
    if (bool(cut.size & 1) ^ pass_zero) and numtaps % 2 == 0:
        raise ValueError("A filter with an even number of coefficients must "
                         "have zero response at the Nyquist rate.")
    return _signal().firwin(numtaps, cutoff, width=width, window=window,
                            pass_zero=bool(pass_zero), scale=scale, fs=fs)


def _kernel_size(kernel_size: Any, ndim: int) -> list:
    """CuPy's ``_get_kernel_size`` (``_fix_sequence_arg``'s words for a wrong length)."""
    if kernel_size is None:
        kernel_size = (3,) * ndim
    if isinstance(kernel_size, str) or not hasattr(kernel_size, "__iter__"):
        kernel_size = [int(kernel_size)] * ndim
    else:
        kernel_size = [int(k) for k in kernel_size]
        if len(kernel_size) != ndim:
            raise RuntimeError("kernel_size must have length equal to input rank")
    if any((k % 2) != 1 for k in kernel_size):
        raise ValueError("Each element of kernel_size should be odd")
    return kernel_size


def _median_dtype(x: numpy.ndarray) -> None:
    if x.dtype.char == "e":
        raise ValueError("float16 type not supported")
    if x.dtype.kind == "b":
        raise ValueError("bool type not supported")


@_takes_hosts
def medfilt(volume: Any, kernel_size: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.medfilt (CuPy's checks and words, then its
    ``rank_filter`` with zeros beyond the edges, as SciPy's)."""
    volume, host = _host(volume)
    _attrs("dtype", volume)  # (``if volume.dtype.char == 'e'``)
    volume = numpy.asarray(volume)
    _median_dtype(volume)
    kernel_size = _kernel_size(kernel_size, volume.ndim)
    if volume.dtype.kind == "c":
        raise ValueError("complex types not supported")
    if any(k > s for k, s in zip(kernel_size, volume.shape)):
        warnings.warn("kernel_size exceeds volume extent: volume will be zero-padded")
    if host:  # (``_filters.rank_filter(volume, ...)``: its ``_call_kernel``'s
        raise _cython_refusal("b", volume)  # ``cupy.shares_memory(output, input, ...)``)
    size = math.prod(kernel_size)
    return scipy_module("scipy.ndimage", "cupyx.scipy.signal").rank_filter(
        volume, size // 2, size=kernel_size, mode="constant")


@_takes_hosts
def medfilt2d(input: Any, kernel_size: Any = 3) -> Any:
    """See Also: cupyx.scipy.signal.medfilt2d (CuPy's checks and words)."""
    input, host = _host(input)
    _attrs("dtype", input)  # (``if input.dtype.char == 'e'``)
    input = numpy.asarray(input)
    _median_dtype(input)
    if input.ndim != 2:
        raise ValueError("input must be 2d")
    kernel_size = _kernel_size(kernel_size, input.ndim)
    if input.dtype.kind == "c":
        raise ValueError("complex types not supported")
    if host:  # (``_filters.rank_filter(input, ...)``, as ``medfilt``'s)
        raise _cython_refusal("b", input)
    order = kernel_size[0] * kernel_size[1] // 2
    return scipy_module("scipy.ndimage", "cupyx.scipy.signal").rank_filter(
        input, order, size=kernel_size, mode="constant")


def upfirdn(h: Any, x: Any, up: Any = 1, down: Any = 1, axis: int = -1,
            mode: Any = "constant", cval: Any = 0) -> Any:
    """See Also: cupyx.scipy.signal.upfirdn (CuPy's: zeros beyond the edges only,
    other modes refused first; ``_UpFIRDn``'s words for ``h``)."""
    if mode is None:
        mode = "constant"  # For backwards compatibility
    if mode != "constant" or cval != 0:
        raise NotImplementedError(f"{mode=} and {cval=} not implemented.")
    _attrs("dtype", x)  # (``_UpFIRDn(h, x.dtype, int(up), int(down))``)
    h = numpy.asarray(h)
    if h.ndim != 1 or h.size == 0:
        raise ValueError("h must be 1D with non-zero length")
    if int(up) < 1 or int(down) < 1:
        raise ValueError("Both up and down must be >= 1")
    return _signal().upfirdn(h, x, int(up), int(down), axis)


# --- CuPy's first reads of its arguments (lists and numbers refused where SciPy converts) --

def _conv_quick(in1: Any, in2: Any, mode: str, hosts: tuple) -> bool:
    """``_st_core._check_conv_inputs``: True where CuPy answers at once."""
    if in1.ndim == in2.ndim == 0:  # (``in1 * in2``: a ufunc, given a host array)
        if any(hosts) and not all(hosts):
            raise _ufunc_refusal()
        return True
    if in1.ndim != in2.ndim:
        raise ValueError("in1 and in2 should have the same dimensionality")
    if in1.size == 0 or in2.size == 0:
        return True
    if mode not in ("full", "same", "valid"):
        raise ValueError('acceptable modes are "valid", "same", or "full"')
    return False


def _swap_needed(mode: str, s1: tuple, s2: tuple, axes: Any = None) -> bool:
    """``_st_core._inputs_swap_needed``."""
    if mode != "valid" or not s1:
        return False
    axes = range(len(s1)) if axes is None else axes
    not_ok1 = any(s1[i] < s2[i] for i in axes)
    not_ok2 = any(s1[i] > s2[i] for i in axes)
    if not_ok1 and not_ok2:
        raise ValueError('For "valid" mode, one must be at least '
                         "as large as the other in every dimension")
    return not_ok1


def _choose_conv(in1: Any, in2: Any) -> str:
    """``cupy._math.misc._choose_conv_method`` (1-D only; floats always by FFT)."""
    if in1.ndim != 1 or in2.ndim != 1:
        raise NotImplementedError("Only 1d inputs are supported currently")
    if in1.dtype.kind in "bui" or in2.dtype.kind in "bui":
        return "direct"
    return "fft"


def _direct_refusal(in1: Any, in2: Any, mode: str, hosts: tuple) -> None:
    """``_st_core._direct_correlate``'s checks, then ``cupy.promote_types(in1, in2)``:
    NumPy's own words for an array that is not CuPy's (whose ``dtype`` NumPy reads)."""
    if in1.ndim != 1 and (in1.dtype.kind == "b" or
                          (in1.dtype.kind == "f" and in1.dtype.itemsize < 4)):
        raise ValueError("unsupported type in SciPy")
    _swap_needed(mode, in1.shape, in2.shape)
    host = in1 if hosts[0] else in2
    numpy.promote_types(host, host)
    raise TypeError("Cannot construct a dtype from an array")


def _fft_axes(in1: Any, in2: Any, mode: str, axes: Any, sorted_axes: bool) -> tuple:
    """``_st_core._init_freq_conv_axes``: the axes to transform, and whether the inputs
    are swapped."""
    s1, s2 = in1.shape, in2.shape
    if axes is None:
        axes = list(range(in1.ndim))
    else:
        axes = list(numpy.lib.array_utils.normalize_axis_tuple(axes, in1.ndim))
    if not len(axes):
        raise ValueError("when provided, axes cannot be empty")
    if any(in1.shape[ax] < 1 for ax in axes):
        raise ValueError("invalid number of data points specified")
    axes = [ax for ax in axes if s1[ax] != 1 and s2[ax] != 1]
    if sorted_axes:
        axes.sort()
    for ax, (dim1, dim2) in enumerate(zip(s1, s2)):
        if ax not in axes and dim1 != dim2 and dim1 != 1 and dim2 != 1:
            raise ValueError("incompatible shapes for in1 and in2:"
                             " {} and {}".format(s1, s2))
    return axes, _swap_needed(mode, s1, s2, axes=axes)


def _product_refusal(hosts: tuple) -> None:
    """``in1 * in2`` where no axis needs a transform (two host arrays: NumPy's product,
    which ``_apply_conv_mode``'s ``cupy.ascontiguousarray`` takes)."""
    if any(hosts) and not all(hosts):
        raise _ufunc_refusal()


def _fft_refusal_of(in1: Any, in2: Any, mode: str, axes: Any, hosts: tuple) -> None:
    """``fftconvolve`` past its quick answers: ``_freq_domain_conv``'s ``rfftn(in1, ...)``."""
    axes, _ = _fft_axes(in1, in2, mode, axes, False)
    if not axes:
        _product_refusal(hosts)
    elif any(hosts):
        raise _fft_refusal()


def _correlate(in1: Any, in2: Any, mode: str, method: str, convolution: bool) -> Any:
    """``_signaltools._correlate``: CuPy's choice of method (``_choose_conv``), and a host
    array refused where that method first hands it to CuPy."""
    (in1, h1), (in2, h2) = _host(in1), _host(in2)
    _attrs("ndim", in1, in2)  # (_check_conv_inputs: ``if in1.ndim == in2.ndim == 0``)
    hosts = (h1, h2)
    if not _conv_quick(in1, in2, mode, hosts):
        if method not in ("auto", "direct", "fft"):
            raise ValueError('acceptable methods are "auto", "direct", or "fft"')
        chosen = _choose_conv(in1, in2) if method == "auto" else method
        if any(hosts) and chosen == "direct":
            _direct_refusal(in1, in2, mode, hosts)
        if any(hosts):  # (``fftconvolve(in1, in2, mode)``)
            _swap_needed(mode, in1.shape, in2.shape)
            _fft_refusal_of(in1, in2, mode, None, hosts)
    fn = _signal().convolve if convolution else _signal().correlate
    return fn(in1, in2, mode, method)


@_takes_hosts
def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> Any:
    """See Also: cupyx.scipy.signal.convolve (arrays only: CuPy reads ``in1.ndim``;
    ``method='auto'`` is CuPy's choice: 1-D only)."""
    return _correlate(in1, in2, mode, method, True)


@_takes_hosts
def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> Any:
    """See Also: cupyx.scipy.signal.correlate (arrays only: CuPy reads ``in1.ndim``;
    ``method='auto'`` is CuPy's choice: 1-D only)."""
    return _correlate(in1, in2, mode, method, False)


@_takes_hosts
def choose_conv_method(in1: Any, in2: Any, mode: str = "full") -> str:
    """See Also: cupyx.scipy.signal.choose_conv_method (CuPy's rule, not SciPy's timing
    estimate; it reads ``ndim`` and ``dtype`` only, so host arrays are taken)."""
    in1, in2 = _host(in1)[0], _host(in2)[0]
    _attrs("ndim", in1)
    _attrs("ndim", in2)
    return _choose_conv(in1, in2)


@_takes_hosts
def fftconvolve(in1: Any, in2: Any, mode: str = "full", axes: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.fftconvolve (arrays only: CuPy reads ``in1.ndim``)."""
    (in1, h1), (in2, h2) = _host(in1), _host(in2)
    _attrs("ndim", in1, in2)  # (_check_conv_inputs: ``if in1.ndim == in2.ndim == 0``)
    if not _conv_quick(in1, in2, mode, (h1, h2)):
        _fft_refusal_of(in1, in2, mode, axes, (h1, h2))
    return _signal().fftconvolve(in1, in2, mode, axes)


def _next_fast_len(n: int) -> int:
    """``cupyx.scipy.fft.next_fast_len``: 7-smooth, real or not."""
    while True:
        m = n
        for p in (2, 3, 5, 7):
            while m % p == 0:
                m //= p
        if m == 1:
            return n
        n += 1


def _calc_oa_lens(s1: int, s2: int) -> tuple:
    """``_st_core._calc_oa_lens``."""
    fallback = (s1 + s2 - 1, None, s1, s2)
    if s1 == s2 or s1 == 1 or s2 == 1:
        return fallback
    swapped = s2 > s1
    if swapped:
        s1, s2 = s2, s1
    if s2 >= s1 // 2:
        return fallback
    overlap = s2 - 1
    z, w = -math.exp(-1) / (2 * overlap), -1 - math.log(2 * overlap)
    for _ in range(4):
        ew = math.exp(w)
        wew = w * ew
        wewz = wew - z
        w -= wewz / (wew + ew - (w + 2) * wewz / (2 * w + 2))
    block_size = _next_fast_len(math.ceil(-overlap * w))
    if block_size >= s1:
        return fallback
    in1_step, in2_step = block_size - s2 + 1, s2
    if swapped:
        in1_step, in2_step = in2_step, in1_step
    return block_size, overlap, in1_step, in2_step


@_takes_hosts
def oaconvolve(in1: Any, in2: Any, mode: str = "full", axes: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.oaconvolve (arrays only: CuPy reads ``in1.ndim``)."""
    (in1, h1), (in2, h2) = _host(in1), _host(in2)
    _attrs("ndim", in1, in2)  # (_check_conv_inputs: ``if in1.ndim == in2.ndim == 0``)
    hosts = (h1, h2)
    if any(hosts) and not _conv_quick(in1, in2, mode, hosts):
        if in1.shape == in2.shape:  # (``fftconvolve(in1, in2, mode=mode, axes=axes)``)
            _fft_refusal_of(in1, in2, mode, axes, hosts)
        fft_axes, swapped = _fft_axes(in1, in2, mode, axes, True)
        a1, a2 = (in2, in1) if swapped else (in1, in2)
        hosts = hosts[::-1] if swapped else hosts
        if not fft_axes:
            _product_refusal(hosts)
        else:
            s1, s2 = a1.shape, a2.shape
            sizes = [_calc_oa_lens(s1[i], s2[i]) if i in fft_axes
                     else (-1, -1, s1[i], s2[i]) for i in range(a1.ndim)]
            block, overlaps, step1, step2 = zip(*sizes)
            if step1 != s1 or step2 != s2:  # (``_oa_reshape_inputs``: ``cupy.pad``
                for arr, step, host in ((a1, step1, hosts[0]), (a2, step2, hosts[1])):
                    for i in fft_axes:  # of a host array: ``padded[...] = array``)
                        if arr.shape[i] > step[i] and host:
                            raise _fill_refusal()
            raise _fft_refusal()  # (``_freq_domain_conv``'s ``rfftn``)
    return _signal().oaconvolve(in1, in2, mode, axes)


def _correlate2d(in1: Any, in2: Any, mode: str, boundary: str, fillvalue: Any,
                 convolution: bool) -> Any:
    """``_signaltools._correlate2d``: a host array refused by ``_direct_correlate``."""
    (in1, h1), (in2, h2) = _host(in1), _host(in2)
    _attrs("ndim", in1, in2)  # (``if not (in1.ndim == in2.ndim == 2)``)
    if h1 or h2:
        if not (in1.ndim == in2.ndim == 2):
            raise ValueError("{} inputs must both be 2-D arrays".format(
                "convolve2d" if convolution else "correlate2d"))
        if boundary not in ("fill", "pad", "wrap", "circular", "symm", "symmetric"):
            raise ValueError('Acceptable boundary flags are "fill" (or "pad"), '
                             '"circular" (or "wrap"), and '
                             '"symmetric" (or "symm").')
        if not _conv_quick(in1, in2, mode, (h1, h2)):
            _direct_refusal(in1, in2, mode, (h1, h2))
    fn = _signal().convolve2d if convolution else _signal().correlate2d
    return fn(in1, in2, mode, boundary, fillvalue)


@_takes_hosts
def convolve2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
               fillvalue: Any = 0) -> Any:
    """See Also: cupyx.scipy.signal.convolve2d (arrays only: CuPy reads ``in1.ndim``)."""
    return _correlate2d(in1, in2, mode, boundary, fillvalue, True)


@_takes_hosts
def correlate2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
                fillvalue: Any = 0) -> Any:
    """See Also: cupyx.scipy.signal.correlate2d (arrays only: CuPy reads ``in1.ndim``)."""
    return _correlate2d(in1, in2, mode, boundary, fillvalue, False)


@_takes_hosts
def wiener(im: Any, mysize: Any = None, noise: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.wiener (an array only: CuPy reads ``im.ndim``)."""
    im, host = _host(im)
    _attrs("ndim", im)  # (``_util._fix_sequence_arg(mysize, im.ndim, 'mysize', int)``)
    if host:  # (then ``_filters.uniform_filter(im, ...)``: ``_call_kernel``'s
        _fix_sequence_arg(3 if mysize is None else mysize, im.ndim, "mysize", int)
        raise _cython_refusal("b", im)  # ``cupy.shares_memory(output, input, ...)``)
    return _signal().wiener(im, mysize, noise)


@_takes_hosts
def order_filter(a: Any, domain: Any, rank: Any) -> Any:
    """See Also: cupyx.scipy.signal.order_filter (CuPy's checks and words first)."""
    (a, host), domain = _host(a), _host(domain)[0]  # (``domain``: ``footprint``, copied)
    if a.dtype.kind in "bc" or a.dtype == numpy.float16:  # (CuPy's first line)
        raise ValueError("data type not supported")
    if any(x % 2 != 1 for x in domain.shape):  # (CuPy's, its two spaces too)
        raise ValueError("Each dimension of domain argument "
                         " should have an odd number of elements.")
    if host:  # (``_filters.rank_filter(a, rank, footprint=domain, ...)``: its rank check,
        if not 0 <= rank < int(numpy.count_nonzero(domain)):  # then ``_call_kernel``'s
            raise RuntimeError("rank not within filter footprint size")
        raise _cython_refusal("b", a)  # ``cupy.shares_memory(output, input, ...)``)
    return _signal().order_filter(a, domain, rank)


@_takes_hosts
def hilbert(x: Any, N: Any = None, axis: int = -1) -> Any:
    """See Also: cupyx.scipy.signal.hilbert (CuPy's steps: no conversion of ``x``)."""
    x, host = _host(x)
    if numpy.iscomplexobj(x):  # (``cupy.iscomplexobj(x)``: NumPy's for a list)
        raise ValueError("x must be real.")
    if N is None:
        N = x.shape[axis]  # (CuPy's: a list has no ``shape``)
    if N <= 0:
        raise ValueError("N must be positive.")
    if host or not isinstance(x, numpy.ndarray):  # (``sp_fft.fft(x, N, axis=axis)``)
        raise _fft_refusal()
    return _signal().hilbert(x, N, axis)


def welch(x: Any, fs: Any = 1.0, window: Any = "hann", nperseg: Any = None,
          noverlap: Any = None, nfft: Any = None, detrend: Any = "constant",
          return_onesided: bool = True, scaling: str = "density", axis: int = -1,
          average: str = "mean") -> Any:
    """See Also: cupyx.scipy.signal.welch (CuPy's ``csd`` begins ``cupy.asarray(x)``:
    a list is taken, which SciPy's ``welch`` refuses)."""
    return _signal().welch(numpy.asarray(x), fs, window, nperseg, noverlap, nfft, detrend,
                           return_onesided, scaling, axis, average)


def coherence(x: Any, y: Any, fs: Any = 1.0, window: Any = "hann", nperseg: Any = None,
              noverlap: Any = None, nfft: Any = None, detrend: Any = "constant",
              axis: int = -1) -> Any:
    """See Also: cupyx.scipy.signal.coherence (``welch``'s and ``csd``'s
    ``cupy.asarray``: lists taken)."""
    return _signal().coherence(numpy.asarray(x), numpy.asarray(y), fs, window, nperseg,
                               noverlap, nfft, detrend, axis)


def get_window(window: Any, Nx: Any, fftbins: bool = True) -> Any:
    """See Also: cupyx.scipy.signal.get_window (CuPy's parsing of ``window``, its names
    and words, then its ``winfunc(*params)`` with SciPy's window function: ``Nx`` 0
    too, which SciPy's ``get_window`` refuses)."""
    sym = not fftbins
    try:
        beta = float(window)
    except (TypeError, ValueError):
        args: tuple = ()
        if isinstance(window, tuple):
            winstr = window[0]
            if len(window) > 1:
                args = window[1:]
        elif isinstance(window, str):
            if _WINDOWS.get(window, (None, False))[1]:
                raise ValueError("The '" + window + "' window needs one or "
                                 "more parameters -- pass a tuple.") from None
            winstr = window
        else:
            raise ValueError(
                "%s as window type is not supported." % str(type(window))) from None
        try:
            winfunc = _WINDOWS[winstr][0]
        except KeyError:
            raise ValueError("Unknown window type.") from None
        # (CuPy passes ``sym`` by position; two of SciPy's take it by keyword only)
        return getattr(_signal().windows, winfunc)(Nx, *args, sym=sym)
    return _signal().windows.kaiser(Nx, beta, sym)



# --- frequency responses: CuPy's own steps (``_filter_design.py``), not SciPy 1.17's, which
# gives ``w`` the coefficients' real type, takes the FFT for any ``N`` and casts ``worN`` ---

def _polyval(x: Any, c: Any) -> Any:
    """``cupy.polynomial.polynomial.polyval(x, c, tensor=False)`` (Horner's method)."""
    c = numpy.array(c, ndmin=1, copy=None)
    if c.dtype.char in "?bBhHiIlLqQpP":
        c = c + 0.0
    c0 = c[-1] + x * 0
    for i in range(2, len(c) + 1):
        c0 = c[-i] + c0 * x
    return c0


def _polyvalfromroots(x: Any, r: Any) -> Any:
    """``cupy.polynomial.polynomial.polyvalfromroots(x, r)`` (``tensor=True``)."""
    r = numpy.array(r, ndmin=1, copy=None)
    if r.dtype.char in "?bBhHiIlLqQpP":
        r = r.astype(numpy.double)
    r = r.reshape(r.shape + (1,) * numpy.ndim(x))
    return numpy.prod(x - r, axis=0)


def _try_convert_to_int(x: Any) -> tuple[Any, bool]:
    """``_filter_design._try_convert_to_int``: ``5`` and ``array(5)`` are integers."""
    if isinstance(x, numpy.ndarray):
        if x.ndim != 0:
            return x, False
        x = x.item()
    try:
        return operator.index(x), True
    except TypeError:
        return x, False


def freqz(b: Any, a: Any = 1, worN: Any = 512, whole: bool = False, plot: Any = None,
          fs: Any = 2 * math.pi, include_nyquist: bool = False) -> Any:
    """See Also: cupyx.scipy.signal.freqz (CuPy's: ``w`` from ``linspace``, float64, or
    ``worN``'s own type; the FFT only when ``N`` is 7-smooth and ``a`` a number)."""
    b, a = numpy.atleast_1d(b), numpy.atleast_1d(a)
    if worN is None:
        worN = 512
    h = None
    N, is_int = _try_convert_to_int(worN)
    if is_int:
        if N < 0:
            raise ValueError(f"worN must be nonnegative, got {N}")
        lastpoint = 2 * math.pi if whole else math.pi
        w = numpy.linspace(0, lastpoint, N, endpoint=include_nyquist and not whole)
        if (a.size == 1 and N >= b.shape[0] and _next_fast_len(N) == N
                and (b.ndim == 1 or b.shape[-1] == 1)):
            n_fft = N if whole else N * 2
            real = numpy.isrealobj(b) and numpy.isrealobj(a)
            h = (numpy.fft.rfft if real else numpy.fft.fft)(b, n=n_fft, axis=0)[:N]
            h /= a
            if real and whole:
                stop = -1 if n_fft % 2 == 1 else -2
                h = numpy.concatenate((h, h[stop:0:-1].conj()))
            if b.ndim > 1:
                h = numpy.moveaxis(h[..., 0], 0, -1)
    else:
        w = numpy.atleast_1d(worN).real
        w = 2 * math.pi * w / fs
    if h is None:
        zm1 = numpy.exp(-1j * w)
        h = _polyval(zm1, b) / _polyval(zm1, a)
    w = w * fs / (2 * math.pi)
    if plot is not None:
        plot(w, h)
    return w, h


def freqz_zpk(z: Any, p: Any, k: Any, worN: Any = 512, whole: bool = False,
              fs: Any = 2 * math.pi) -> Any:
    """See Also: cupyx.scipy.signal.freqz_zpk (CuPy's steps: ``worN``'s own type kept)."""
    z, p = numpy.atleast_1d(z), numpy.atleast_1d(p)
    lastpoint = 2 * math.pi if whole else math.pi
    if worN is None:
        w = numpy.linspace(0, lastpoint, 512, endpoint=False)
    else:
        N, is_int = _try_convert_to_int(worN)
        if is_int:
            w = numpy.linspace(0, lastpoint, N, endpoint=False)
        else:
            w = 2 * math.pi * numpy.atleast_1d(worN) / fs
    zm1 = numpy.exp(1j * w)
    h = k * _polyvalfromroots(zm1, z) / _polyvalfromroots(zm1, p)
    return w * fs / (2 * math.pi), h


def _validate_sos(sos: Any) -> tuple[numpy.ndarray, int]:
    """``_filter_design._validate_sos``."""
    sos = numpy.atleast_2d(sos)
    if sos.ndim != 2:
        raise ValueError("sos array must be 2D")
    n_sections, m = sos.shape
    if m != 6:
        raise ValueError("sos array must be shape (n_sections, 6)")
    if ((sos[:, 3] - 1) > 1e-15).any():
        raise ValueError("sos[:, 3] should be all ones")
    return sos, n_sections


def freqz_sos(sos: Any, worN: Any = 512, whole: bool = False,
              fs: Any = 2 * math.pi) -> Any:
    """See Also: cupyx.scipy.signal.freqz_sos (each section's ``freqz``, CuPy's)."""
    sos, n_sections = _validate_sos(sos)
    if n_sections == 0:
        raise ValueError("Cannot compute frequencies with no sections")
    h: Any = 1.
    for row in sos:
        w, rowh = freqz(row[:3], row[3:], worN=worN, whole=whole, fs=fs)
        h = h * rowh
    return w, h


def sosfreqz(sos: Any, worN: Any = 512, whole: bool = False,
             fs: Any = 2 * math.pi) -> Any:
    """See Also: cupyx.scipy.signal.sosfreqz (``freqz_sos``)."""
    return freqz_sos(sos, worN, whole, fs)


def _is_int_type(x: Any) -> bool:
    """``_filter_design._is_int_type``."""
    if numpy.ndim(x) != 0:
        return False
    try:
        operator.index(x)
    except TypeError:
        return False
    return True


def group_delay(system: Any, w: Any = 512, whole: bool = False,
                fs: Any = 2 * math.pi) -> Any:
    """See Also: cupyx.scipy.signal.group_delay (CuPy's: no warning where the delay is
    singular, only 0 there; ``w``'s own type kept)."""
    if w is None:
        w = 512
    if _is_int_type(w):
        w = numpy.linspace(0, 2 * math.pi if whole else math.pi, w, endpoint=False)
    else:
        w = 2 * math.pi * numpy.atleast_1d(w) / fs
    b, a = map(numpy.atleast_1d, system)
    c = numpy.convolve(b, a[::-1])
    cr = c * numpy.arange(c.size)
    z = numpy.exp(-1j * w)
    with numpy.errstate(all="ignore"):
        gd = numpy.real(numpy.polyval(cr[::-1], z) / numpy.polyval(c[::-1], z)) - a.size + 1
    gd[~numpy.isfinite(gd)] = 0
    return w * fs / (2 * math.pi), gd


# --- peaks: CuPy's kernels work in ``x``'s own type (``_peak_finding.py``) ------------------

def _peak_x(x: Any) -> numpy.ndarray:
    """``_peak_finding._arg_x_as_expected``: ``cupy.asarray(value, order='C')``, its type
    kept (SciPy's makes it float64)."""
    x = numpy.asarray(x, order="C")
    if x.ndim != 1:
        raise ValueError("`x` must be a 1-D array")
    return x


def find_peaks(x: Any, height: Any = None, threshold: Any = None, distance: Any = None,
               prominence: Any = None, width: Any = None, wlen: Any = None,
               rel_height: float = 0.5, plateau_size: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.find_peaks (``peak_heights``, the thresholds and
    ``prominences`` in ``x``'s type: ``x[peaks]``, ``x[peaks] - x[peaks - 1]`` and
    ``_peak_prominences``' ``cupy.empty(..., dtype=x.dtype)``)."""
    x = _peak_x(x)
    peaks, props = _signal().find_peaks(
        x.astype(numpy.float64), height=height, threshold=threshold, distance=distance,
        prominence=prominence, width=width, wlen=wlen, rel_height=rel_height,
        plateau_size=plateau_size)
    if "peak_heights" in props:
        props["peak_heights"] = x[peaks]
    if "left_thresholds" in props:
        props["left_thresholds"] = x[peaks] - x[peaks - 1]
        props["right_thresholds"] = x[peaks] - x[peaks + 1]
    if "prominences" in props:
        props["prominences"] = props["prominences"].astype(x.dtype)
    return peaks, props


def peak_prominences(x: Any, peaks: Any, wlen: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.peak_prominences (the prominences in ``x``'s type)."""
    x = _peak_x(x)
    prominences, left, right = _signal().peak_prominences(x.astype(numpy.float64), peaks,
                                                           wlen)
    return prominences.astype(x.dtype), left, right

#: (``cpu.py`` gives them host arrays as NumPy arrays, as the rest of the module; so
#: ``linalg.bandwidth``, which takes them as these do: ``cupy.asarray``)
SIGNAL_OVERRIDES: dict[str, Callable[..., Any]] = {
    f"cupyx.scipy.signal.{fn.__name__}": fn
    for fn in (lfilter, lfiltic, lfilter_zi, sosfilt, sosfiltfilt, sosfilt_zi, qmf, ricker,
               morlet, morlet2, firls, hilbert2, firwin, medfilt, medfilt2d,
               upfirdn, convolve, correlate, choose_conv_method, fftconvolve, oaconvolve,
               convolve2d, correlate2d, wiener, order_filter, hilbert, welch, coherence,
               get_window, freqz, freqz_zpk, freqz_sos, sosfreqz, group_delay,
               find_peaks, peak_prominences)}
SIGNAL_OVERRIDES["cupyx.scipy.signal.windows.get_window"] = get_window
SIGNAL_OVERRIDES["cupyx.scipy.linalg.bandwidth"] = bandwidth


def _state_space_mul(ss: Any, other: Any) -> Any:
    """``StateSpace * other`` as CuPy's (``_ltisys.py: __mul__``): a scalar reaches
    ``self.B @ other``, whose Cython ``matmul`` takes arrays only (the GPU's
    ``Argument 'b' has incorrect type (expected cupy._core.core._ndarray_base, got
    int)``); SciPy scales by it."""
    if isinstance(other, (int, float, complex, numpy.number)):
        from gpushare.cython_args import NDARRAY_BASE, argument_type_error
        raise argument_type_error("b", NDARRAY_BASE, other)
    return ss * other


#: methods of the CPU backend's LTI systems (SciPy's) that answer as CuPy's, by class
METHODS: dict[str, dict[str, Callable[..., Any]]] = {
    name: {"__mul__": _state_space_mul}
    for name in ("StateSpace", "StateSpaceContinuous", "StateSpaceDiscrete")}
