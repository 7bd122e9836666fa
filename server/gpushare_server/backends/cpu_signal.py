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
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy

from gpushare.errors import assert_2d
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


def lfilter(b: Any, a: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.lfilter (``zi``/``zf``: CuPy's, see module docs)."""
    _check_a(a)
    if isinstance(b, (list, tuple)):  # (``b = b / a0``: a CuPy ufunc, ``a0`` a 0-d array)
        raise TypeError(f"Unsupported type {type(b)}")
    _attrs("ndim", x)  # (``x_ndim = x.ndim``)
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


def lfiltic(b: Any, a: Any, y: Any, x: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.lfiltic (CuPy's state: the given past inputs and
    outputs, oldest first; ``y`` and ``x`` come newest first, as SciPy's)."""
    b, a = numpy.asarray(b), numpy.asarray(a)
    fir_len, iir_len = b.size - 1, a.size - 1
    if y is None and x is None:
        return None
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


def lfilter_zi(b: Any, a: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.signal.lfilter_zi (CuPy's state for the steady state of
    the step response: inputs 1, outputs the filter's gain at DC)."""
    _check_a(a)
    _attrs("size", b)  # (``num_b = b.size - 1``)
    b, a = numpy.asarray(b), numpy.asarray(a)
    zi = numpy.ones(b.size - 1)
    if a.size > 1:
        with numpy.errstate(all="ignore"):
            gain = _steady(b.sum() / a.sum())
        zi = numpy.r_[zi, numpy.full(a.size - 1, gain)]
    return zi


def _check_sos(sos: numpy.ndarray) -> None:
    if sos.ndim != 2 or sos.shape[1] != 6:
        raise ValueError("sos array must be shape (n_sections, 6)")
    if not (numpy.abs(sos[:, 3] - 1.0) <= 1e-15).all():
        raise ValueError("sos[:, 3] should be all ones")


def sosfilt(sos: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.sosfilt (``zi``/``zf``: per section, CuPy's
    ``lfilter`` state of that section, shape ``(n_sections, ..., 4, ...)``)."""
    _attrs("ndim", x)  # (``x_ndim = x.ndim``)
    _attrs("dtype", sos)  # (apply_iir_sos: ``cupy.result_type(x.dtype, sos.dtype)``)
    if zi is not None:
        _attrs("astype", zi)  # (apply_iir_sos: ``zi = zi.astype(dtype)``)
    if zi is None:
        return _signal().sosfilt(sos, x, axis=axis)
    sos, out = numpy.atleast_2d(numpy.asarray(sos)), numpy.asarray(x)
    _check_sos(sos)
    zi = numpy.asarray(zi)
    finals = []
    for s in range(sos.shape[0]):
        out, zf = lfilter(sos[s, :3], sos[s, 3:], out, axis=axis, zi=zi[s])
        finals.append(zf)
    return out, numpy.stack(finals)


def sosfilt_zi(sos: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.signal.sosfilt_zi (each section's steady state for a unit
    step into the first: its input the gain of the sections before it, its output that
    times its own gain)."""
    _attrs("shape", sos)  # (``n_sections = sos.shape[0]``)
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


def hilbert2(x: Any, N: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.hilbert2 (CuPy's checks first: a 2-D array, of more
    dimensions refused, where SciPy transforms the last two axes)."""
    x = numpy.asarray(x)
    if x.ndim < 2:
        x = numpy.atleast_2d(x)
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


def medfilt(volume: Any, kernel_size: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.medfilt (CuPy's checks and words, then its
    ``rank_filter`` with zeros beyond the edges, as SciPy's)."""
    _attrs("dtype", volume)  # (``if volume.dtype.char == 'e'``)
    volume = numpy.asarray(volume)
    _median_dtype(volume)
    kernel_size = _kernel_size(kernel_size, volume.ndim)
    if volume.dtype.kind == "c":
        raise ValueError("complex types not supported")
    if any(k > s for k, s in zip(kernel_size, volume.shape)):
        warnings.warn("kernel_size exceeds volume extent: volume will be zero-padded")
    size = math.prod(kernel_size)
    return scipy_module("scipy.ndimage", "cupyx.scipy.signal").rank_filter(
        volume, size // 2, size=kernel_size, mode="constant")


def medfilt2d(input: Any, kernel_size: Any = 3) -> Any:
    """See Also: cupyx.scipy.signal.medfilt2d (CuPy's checks and words)."""
    _attrs("dtype", input)  # (``if input.dtype.char == 'e'``)
    input = numpy.asarray(input)
    _median_dtype(input)
    if input.ndim != 2:
        raise ValueError("input must be 2d")
    kernel_size = _kernel_size(kernel_size, input.ndim)
    if input.dtype.kind == "c":
        raise ValueError("complex types not supported")
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

def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> Any:
    """See Also: cupyx.scipy.signal.convolve (arrays only: CuPy reads ``in1.ndim``)."""
    _attrs("ndim", in1, in2)  # (_check_conv_inputs: ``if in1.ndim == in2.ndim == 0``)
    return _signal().convolve(in1, in2, mode, method)


def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto") -> Any:
    """See Also: cupyx.scipy.signal.correlate (arrays only: CuPy reads ``in1.ndim``)."""
    _attrs("ndim", in1, in2)  # (_check_conv_inputs: ``if in1.ndim == in2.ndim == 0``)
    return _signal().correlate(in1, in2, mode, method)


def fftconvolve(in1: Any, in2: Any, mode: str = "full", axes: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.fftconvolve (arrays only: CuPy reads ``in1.ndim``)."""
    _attrs("ndim", in1, in2)  # (_check_conv_inputs: ``if in1.ndim == in2.ndim == 0``)
    return _signal().fftconvolve(in1, in2, mode, axes)


def oaconvolve(in1: Any, in2: Any, mode: str = "full", axes: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.oaconvolve (arrays only: CuPy reads ``in1.ndim``)."""
    _attrs("ndim", in1, in2)  # (_check_conv_inputs: ``if in1.ndim == in2.ndim == 0``)
    return _signal().oaconvolve(in1, in2, mode, axes)


def convolve2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
               fillvalue: Any = 0) -> Any:
    """See Also: cupyx.scipy.signal.convolve2d (arrays only: CuPy reads ``in1.ndim``)."""
    _attrs("ndim", in1, in2)  # (_correlate2d: ``if not (in1.ndim == in2.ndim == 2)``)
    return _signal().convolve2d(in1, in2, mode, boundary, fillvalue)


def correlate2d(in1: Any, in2: Any, mode: str = "full", boundary: str = "fill",
                fillvalue: Any = 0) -> Any:
    """See Also: cupyx.scipy.signal.correlate2d (arrays only: CuPy reads ``in1.ndim``)."""
    _attrs("ndim", in1, in2)  # (_correlate2d: ``if not (in1.ndim == in2.ndim == 2)``)
    return _signal().correlate2d(in1, in2, mode, boundary, fillvalue)


def wiener(im: Any, mysize: Any = None, noise: Any = None) -> Any:
    """See Also: cupyx.scipy.signal.wiener (an array only: CuPy reads ``im.ndim``)."""
    _attrs("ndim", im)  # (``_util._fix_sequence_arg(mysize, im.ndim, 'mysize', int)``)
    return _signal().wiener(im, mysize, noise)


def order_filter(a: Any, domain: Any, rank: Any) -> Any:
    """See Also: cupyx.scipy.signal.order_filter (CuPy's checks and words first)."""
    if a.dtype.kind in "bc" or a.dtype == numpy.float16:  # (CuPy's first line)
        raise ValueError("data type not supported")
    if any(x % 2 != 1 for x in domain.shape):  # (CuPy's, its two spaces too)
        raise ValueError("Each dimension of domain argument "
                         " should have an odd number of elements.")
    return _signal().order_filter(a, domain, rank)


def hilbert(x: Any, N: Any = None, axis: int = -1) -> Any:
    """See Also: cupyx.scipy.signal.hilbert (CuPy's steps: no conversion of ``x``)."""
    if numpy.iscomplexobj(x):  # (``cupy.iscomplexobj(x)``: NumPy's for a list)
        raise ValueError("x must be real.")
    if N is None:
        N = x.shape[axis]  # (CuPy's: a list has no ``shape``)
    if N <= 0:
        raise ValueError("N must be positive.")
    if not isinstance(x, numpy.ndarray):  # (``sp_fft.fft(x, N, axis=axis)``)
        raise TypeError("The input array a must be a cupy.ndarray")
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


#: (``cpu.py`` gives them host arrays as NumPy arrays, as the rest of the module; so
#: ``linalg.bandwidth``, which takes them as these do: ``cupy.asarray``)
SIGNAL_OVERRIDES: dict[str, Callable[..., Any]] = {
    f"cupyx.scipy.signal.{fn.__name__}": fn
    for fn in (lfilter, lfiltic, lfilter_zi, sosfilt, sosfilt_zi, qmf, ricker, morlet,
               morlet2, firls, hilbert2, firwin, medfilt, medfilt2d,
               upfirdn, convolve, correlate, fftconvolve, oaconvolve, convolve2d,
               correlate2d, wiener, order_filter, hilbert, welch, coherence, get_window)}
SIGNAL_OVERRIDES["cupyx.scipy.signal.windows.get_window"] = get_window
SIGNAL_OVERRIDES["cupyx.scipy.linalg.bandwidth"] = bandwidth
