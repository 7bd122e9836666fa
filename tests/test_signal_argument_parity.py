"""``cupyx.scipy.signal`` given Python lists and numbers through a real server: the CPU
backend refuses them where CuPy 14.2's code does (its first read of the argument:
``x.ndim`` of a list, a CuPy ufunc given a list, ``sp_fft.fft`` of a list), in CuPy's
words, and takes them where CuPy's code begins with ``cupy.asarray``, giving SciPy's
values. (The CuPy line each error comes from is quoted in
``server/gpushare_server/backends/cpu_signal.py``.)
"""
from __future__ import annotations

import importlib
import re

import numpy
import pytest
import scipy.signal

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def signal(cp):
    return importlib.import_module("gpushare.cupyx.scipy.signal")


def _x(n=64, seed=0):
    return numpy.random.default_rng(seed).standard_normal(n)


def _no_attr(kind, attr):
    return pytest.raises(AttributeError, match=f"'{kind}' object has no attribute '{attr}'")


# --- refused: CuPy reads an array attribute first -------------------------------------

@pytest.mark.parametrize("name", ["convolve", "correlate", "fftconvolve", "oaconvolve"])
def test_convolutions_refuse_lists_and_numbers(cp, signal, name):
    """``_check_conv_inputs``: ``if in1.ndim == in2.ndim == 0`` (either argument)."""
    fn = getattr(signal, name)
    x, k = _x(), numpy.array([0.25, 0.5, 0.25])
    with _no_attr("list", "ndim"):
        fn(x.tolist(), cp.asarray(k))
    with _no_attr("list", "ndim"):
        fn(cp.asarray(x), k.tolist())
    with _no_attr("float", "ndim"):
        fn(2.0, cp.asarray(k))
    with _no_attr("int", "ndim"):
        fn(cp.asarray(x), 3)
    got = fn(cp.asarray(x), cp.asarray(k), mode="same")
    numpy.testing.assert_allclose(got.get(), getattr(scipy.signal, name)(x, k, mode="same"),
                                  rtol=1e-10, atol=1e-12)
    # two 0-d arrays: their product (CuPy's quick answer, SciPy's too)
    assert float(fn(cp.asarray(2.0), cp.asarray(3.0))) == 6.0


@pytest.mark.parametrize("name", ["convolve2d", "correlate2d"])
def test_2d_convolutions_refuse_lists(cp, signal, name):
    """``_correlate2d``: ``if not (in1.ndim == in2.ndim == 2)``."""
    fn = getattr(signal, name)
    im = numpy.arange(30.0).reshape(5, 6)
    k = numpy.array([[1.0, 2.0], [0.5, -1.0]])
    with _no_attr("list", "ndim"):
        fn(im.tolist(), cp.asarray(k))
    with _no_attr("list", "ndim"):
        fn(cp.asarray(im), k.tolist())
    with _no_attr("float", "ndim"):
        fn(cp.asarray(im), 1.5)
    numpy.testing.assert_allclose(fn(cp.asarray(im), cp.asarray(k)).get(),
                                  getattr(scipy.signal, name)(im, k))


def test_lfilter_argument_forms(cp, signal):
    """``a0 = a[0]; a_r = - a[1:] / a0; b = b / a0; ...; x_ndim = x.ndim``."""
    b, a, x = numpy.array([0.5, 0.25]), numpy.array([1.0, -0.5]), _x()
    da, dx = cp.asarray(a), cp.asarray(x)
    with pytest.raises(TypeError, match="'float' object is not subscriptable"):
        signal.lfilter(cp.asarray(b), 1.0, dx)
    with pytest.raises(TypeError, match="bad operand type for unary -: 'list'"):
        signal.lfilter(cp.asarray(b), a.tolist(), dx)
    with pytest.raises(IndexError, match="array is 0-dimensional, but 1 were indexed"):
        signal.lfilter(cp.asarray(b), cp.asarray(1.0), dx)
    with pytest.raises(TypeError, match="Unsupported type <class 'list'>"):
        signal.lfilter(b.tolist(), da, dx)  # (a list through a CuPy ufunc)
    with _no_attr("list", "ndim"):
        signal.lfilter(cp.asarray(b), da, x.tolist())
    with _no_attr("float", "ndim"):
        signal.lfilter(cp.asarray(b), da, 2.0)
    # a number b is CuPy's ``b / a0``: a one-tap filter
    numpy.testing.assert_allclose(signal.lfilter(2.0, da, dx).get(),
                                  scipy.signal.lfilter([2.0], a, x))
    numpy.testing.assert_allclose(signal.lfilter(cp.asarray(b), da, dx).get(),
                                  scipy.signal.lfilter(b, a, x))


def test_lfilter_zi_argument_forms(cp, signal):
    """``a0 = a[0]; a_r = - a[1:] / a0; num_b = b.size - 1``."""
    b, a = numpy.array([0.3, 0.2]), numpy.array([1.0, -0.4])
    with pytest.raises(TypeError, match="'float' object is not subscriptable"):
        signal.lfilter_zi(cp.asarray(b), 1.0)
    with pytest.raises(TypeError, match="bad operand type for unary -: 'list'"):
        signal.lfilter_zi(cp.asarray(b), a.tolist())
    with _no_attr("list", "size"):
        signal.lfilter_zi(b.tolist(), cp.asarray(a))
    with _no_attr("float", "size"):
        signal.lfilter_zi(1.0, cp.asarray(a))
    zi = signal.lfilter_zi(cp.asarray(b), cp.asarray(a))  # (CuPy's state: see test_cupyx_scipy)
    numpy.testing.assert_allclose(zi.get(), [1.0, b.sum() / a.sum()])


def test_sosfilt_argument_forms(cp, signal):
    """``x_ndim = x.ndim``; apply_iir_sos: ``cupy.result_type(x.dtype, sos.dtype)``,
    ``zi = zi.astype(dtype)``."""
    sos, x = scipy.signal.butter(4, 0.2, output="sos"), _x(90)
    dsos, dx = cp.asarray(sos), cp.asarray(x)
    with _no_attr("list", "ndim"):
        signal.sosfilt(dsos, x.tolist())
    with _no_attr("float", "ndim"):
        signal.sosfilt(dsos, 2.0)
    with _no_attr("list", "dtype"):
        signal.sosfilt(sos.tolist(), dx)
    with _no_attr("list", "astype"):
        signal.sosfilt(dsos, dx, zi=numpy.zeros((2, 4)).tolist())
    with _no_attr("list", "shape"):
        signal.sosfilt_zi(sos.tolist())
    numpy.testing.assert_allclose(signal.sosfilt(dsos, dx).get(),
                                  scipy.signal.sosfilt(sos, x), rtol=1e-10, atol=1e-12)
    assert signal.sosfilt_zi(dsos).shape == (2, 4)


def test_upfirdn_takes_a_list_h_not_a_list_x(cp, signal):
    """``_UpFIRDn(h, x.dtype, ...)`` (then ``cupy.asarray(h)``)."""
    h, x = [1.0, 0.5, 0.25], _x(20)
    with _no_attr("list", "dtype"):
        signal.upfirdn(h, x.tolist(), 2)
    with _no_attr("float", "dtype"):
        signal.upfirdn(h, 2.0, 2)
    with pytest.raises(ValueError, match="h must be 1D with non-zero length"):
        signal.upfirdn(1.0, cp.asarray(x), 2)
    numpy.testing.assert_allclose(signal.upfirdn(h, cp.asarray(x), 2, 3).get(),
                                  scipy.signal.upfirdn(h, x, 2, 3))


def test_hilbert_argument_forms(cp, signal):
    """``cupy.iscomplexobj(x)``; ``N = x.shape[axis]``; ``sp_fft.fft(x, N, axis=axis)``."""
    x = _x(32)
    with _no_attr("list", "shape"):
        signal.hilbert(x.tolist())
    with _no_attr("float", "shape"):
        signal.hilbert(2.0)
    with pytest.raises(TypeError, match="The input array a must be a cupy.ndarray"):
        signal.hilbert(x.tolist(), 40)
    with pytest.raises(ValueError, match="x must be real"):
        signal.hilbert([1j, 2.0])
    with pytest.raises(ValueError, match="N must be positive"):
        signal.hilbert(cp.asarray(x), 0)
    numpy.testing.assert_allclose(signal.hilbert(cp.asarray(x)).get(), scipy.signal.hilbert(x))
    numpy.testing.assert_allclose(signal.hilbert(cp.asarray(x), 40).get(),
                                  scipy.signal.hilbert(x, 40))


def test_median_wiener_and_order_filters_refuse_lists(cp, signal):
    """``volume.dtype``/``input.dtype``, ``im.ndim``, ``a.dtype`` and ``domain.shape``."""
    x, im = _x(30), numpy.random.default_rng(1).random((6, 7))
    with _no_attr("list", "dtype"):
        signal.medfilt(x.tolist())
    with _no_attr("list", "dtype"):
        signal.medfilt2d(im.tolist())
    with _no_attr("list", "ndim"):
        signal.wiener(im.tolist())
    with _no_attr("list", "dtype"):
        signal.order_filter(x.tolist(), cp.ones(3), 1)
    with _no_attr("list", "shape"):
        signal.order_filter(cp.asarray(x), [1, 1, 1], 1)
    with pytest.raises(ValueError, match="^data type not supported$"):
        signal.order_filter(cp.asarray(x) > 0, cp.ones(3), 1)
    with pytest.raises(ValueError, match="domain argument  should have an odd number"):
        signal.order_filter(cp.asarray(x), cp.ones(4), 1)
    numpy.testing.assert_allclose(signal.medfilt(cp.asarray(x), 5).get(),
                                  scipy.signal.medfilt(x, 5))
    numpy.testing.assert_allclose(signal.medfilt2d(cp.asarray(im)).get(),
                                  scipy.signal.medfilt2d(im))
    numpy.testing.assert_allclose(signal.wiener(cp.asarray(im), 3).get(),
                                  scipy.signal.wiener(im, 3))
    numpy.testing.assert_allclose(signal.order_filter(cp.asarray(x), cp.ones(3), 2).get(),
                                  scipy.signal.order_filter(x, numpy.ones(3), 2))


def test_get_window_parses_window_as_cupy(cp, signal):
    """CuPy's ``get_window``: ``float(window)``, then a tuple or a name of its own table."""
    from gpushare.cupyx.scipy.signal import windows
    for fn in (signal.get_window, windows.get_window):
        with pytest.raises(ValueError, match=r"<class 'list'> as window type is not supported"):
            fn([1.0], 8)
        with pytest.raises(ValueError, match="The 'tukey' window needs one or more parameters"):
            fn("tukey", 8)  # (SciPy's tukey has a default; CuPy's table asks for one)
        with pytest.raises(ValueError, match="^Unknown window type.$"):
            fn(("dpss", 3.0), 8)  # (not in CuPy's table)
    numpy.testing.assert_allclose(signal.get_window(("tukey", 0.25), 16).get(),
                                  scipy.signal.get_window(("tukey", 0.25), 16))
    numpy.testing.assert_allclose(signal.get_window(4.0, 9).get(),
                                  scipy.signal.get_window(("kaiser", 4.0), 9))
    numpy.testing.assert_allclose(signal.get_window("hann", 8, False).get(),
                                  scipy.signal.get_window("hann", 8, fftbins=False))
    # CuPy's names (``hanning``: SciPy's has gone) and its ``winfunc(Nx, ..., sym)``
    numpy.testing.assert_allclose(signal.get_window("hanning", 9).get(),
                                  scipy.signal.get_window("hann", 9))
    numpy.testing.assert_allclose(signal.get_window(("kbd", 3.0), 8, False).get(),
                                  scipy.signal.windows.kaiser_bessel_derived(8, 3.0))
    assert signal.get_window("hann", 0).shape == (0,)  # (SciPy's get_window refuses 0)


# --- taken: CuPy's code begins with cupy.asarray / atleast_1d ---------------------------

def _pairs(out):
    return out if isinstance(out, tuple) else (out,)


_X = _x(128, seed=7)
_SOS = scipy.signal.butter(2, 0.3, output="sos")
_TAKE_LISTS = [
    ("filtfilt", lambda s, x: s.filtfilt([0.5, 0.5], [1.0, -0.3], x)),
    ("sosfiltfilt", lambda s, x: s.sosfiltfilt(_SOS.tolist(), x)),
    ("freqz", lambda s, x: s.freqz([1.0, 2.0, 1.0], [1.0, -0.5], worN=16)),
    ("sosfreqz", lambda s, x: s.sosfreqz(_SOS.tolist(), worN=16)),
    ("resample", lambda s, x: s.resample(x, 100)),
    ("resample_poly", lambda s, x: s.resample_poly(x, 3, 2)),
    ("decimate", lambda s, x: s.decimate(x, 4)),
    ("detrend", lambda s, x: s.detrend(x)),
    ("savgol_filter", lambda s, x: s.savgol_filter(x, 7, 2)),
    ("welch", lambda s, x: s.welch(x, nperseg=32)),
    ("periodogram", lambda s, x: s.periodogram(x)),
    ("stft", lambda s, x: s.stft(x, nperseg=32)),
    ("coherence", lambda s, x: s.coherence(x, x[::-1], nperseg=32)),
]


@pytest.mark.parametrize("name, call", _TAKE_LISTS, ids=[n for n, _ in _TAKE_LISTS])
def test_functions_beginning_with_asarray_take_lists(cp, signal, name, call):
    got = _pairs(call(signal, _X.tolist()))
    want = _pairs(call(scipy.signal, _X))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, cp.ndarray)
        numpy.testing.assert_allclose(g.get(), w, rtol=1e-7, atol=1e-9)
    # a device array gives the same
    for g, d in zip(got, _pairs(call(signal, cp.asarray(_X)))):
        numpy.testing.assert_allclose(g.get(), d.get(), rtol=1e-12, atol=1e-12)


def test_find_peaks_takes_a_list(cp, signal):
    x = numpy.sin(numpy.linspace(0, 6 * numpy.pi, 100))
    peaks, props = signal.find_peaks(x.tolist(), height=0.5)
    want, want_props = scipy.signal.find_peaks(x, height=0.5)
    assert peaks.get().tolist() == want.tolist()
    numpy.testing.assert_allclose(props["peak_heights"].get(), want_props["peak_heights"])


def test_numbers_where_cupy_converts_them(cp, signal):
    """A number through ``cupy.asarray``/``atleast_1d``: CuPy's (and SciPy's) errors or
    a one-tap filter."""
    x = _x(40)
    with pytest.raises(ValueError, match="x must be at least 1-D"):
        signal.sosfiltfilt(cp.asarray(_SOS), 2.0)
    with pytest.raises(ValueError, match="`x` must be a 1-D array"):
        signal.find_peaks(2.0)
    w, h = signal.freqz(2.0, 1.0, worN=8)
    numpy.testing.assert_allclose(h.get(), 2.0)
    numpy.testing.assert_allclose(signal.lfilter(0.5, cp.asarray([1.0]), cp.asarray(x)).get(),
                                  0.5 * x)


# --- host (NumPy) arrays: refused where CuPy 14.2 hands one to a kernel -----------------
# (cupyx/scipy/signal/ of CuPy 14.2.0; the words are those of CuPy's Cython: a ufunc's
# ``_kernel._preprocess_arg``, ``cuda/function.pyx: _pointer``, ``cupy/fft/_fft.py: _fft``,
# ``_routines_indexing.pyx: _scatter_op`` -> ``fill``, a ``cpdef``'s typed parameter)

_UFUNC = r"^Unsupported type <class 'numpy.ndarray'>$"
_FFT = "^The input array a must be a cupy.ndarray$"
_FILL = "^non-scalar numpy.ndarray cannot be used for fill$"
_DTYPE = "^Cannot construct a dtype from an array$"


def _kernel_param(shape):
    return (rf"^You are trying to pass a numpy.ndarray of shape {re.escape(str(shape))} "
            "as a kernel parameter. Only numpy.ndarrays of size one")


def _typed(name):
    return (rf"^Argument '{name}' has incorrect type \(expected "
            r"cupy._core.core._ndarray_base, got numpy.ndarray\)$")


def test_lfilter_host_arrays(cp, signal):
    b, a, x = numpy.array([0.2, 0.3, 0.1]), numpy.array([1.0, -0.5, 0.2]), _x(50)
    db, da, dx = cp.asarray(b), cp.asarray(a), cp.asarray(x)
    with pytest.raises(TypeError, match=_UFUNC):  # _signaltools.py:753 ``b = b / a0``
        signal.lfilter(b, da, dx)
    with pytest.raises(ValueError, match=_FILL):  # :779 ``axis_assign(x_full, x, ...)``
        signal.lfilter(db, da, x)
    with pytest.raises(TypeError, match=_kernel_param((2,))):  # :795 ``apply_iir(out,
        signal.lfilter(b, a, dx)  # a_r, ...)``: _iir_utils.py:576 ``(block_sz, k, a, ...)``
    with pytest.raises(TypeError, match=_kernel_param((2,))):
        signal.lfilter(db, a, dx)
    with pytest.raises(Exception, match="cudaErrorIllegalAddress"):  # a_r of size one:
        signal.lfilter(b, a[:2], dx)  # passed by value, read as an address
    # taken: ``b`` through convolve1d's ``cupy.ascontiguousarray``, ``zi`` through
    # :769 ``cupy.atleast_1d``, a one-tap host ``a`` (no ``apply_iir``)
    numpy.testing.assert_allclose(signal.lfilter(b, numpy.array([2.0]), dx).get(),
                                  scipy.signal.lfilter(b, [2.0], x))
    zi = numpy.array([0.5, -0.25, 0.1, 0.3])
    got, zf = signal.lfilter(db, da, dx, zi=zi)
    want, wzf = signal.lfilter(db, da, dx, zi=cp.asarray(zi))
    numpy.testing.assert_allclose(got.get(), want.get())
    numpy.testing.assert_allclose(zf.get(), wzf.get())


def test_lfilter_zi_and_lfiltic_host_arrays(cp, signal):
    b, a = numpy.array([0.3, 0.2]), numpy.array([1.0, -0.4, 0.1])
    with pytest.raises(TypeError, match=_UFUNC):  # :916 ``lfilter(b, a, ...)``'s ``b / a0``
        signal.lfilter_zi(b, cp.asarray(a))
    with pytest.raises(TypeError, match=_kernel_param((2,))):  # its ``apply_iir``
        signal.lfilter_zi(cp.asarray(b), a)
    assert signal.lfilter_zi(b, numpy.array([1.0])).get().tolist() == [1.0]  # (num_a == 0)
    y, xs = numpy.array([0.5, 0.25]), numpy.array([1.0])
    with pytest.raises(TypeError, match=_UFUNC):  # :866 ``cupy.concatenate((y, ...))``
        signal.lfiltic(cp.asarray(b), cp.asarray(a), y)
    with pytest.raises(TypeError, match=_UFUNC):  # :872 ``cupy.concatenate((x, ...))``
        signal.lfiltic(cp.asarray(b), cp.asarray(a), cp.asarray(y), xs)
    with _no_attr("list", "size"):  # :855 ``fir_len = b.size - 1``
        signal.lfiltic(b.tolist(), cp.asarray(a), cp.asarray(y))
    # ``b``/``a``: only their ``size`` read
    numpy.testing.assert_allclose(signal.lfiltic(b, a, cp.asarray(y), cp.asarray(xs)).get(),
                                  signal.lfiltic(cp.asarray(b), cp.asarray(a), cp.asarray(y),
                                                 cp.asarray(xs)).get())


def test_sosfilt_host_arrays(cp, signal):
    sos, x = scipy.signal.butter(4, 0.2, output="sos"), _x(90)
    dsos, dx = cp.asarray(sos), cp.asarray(x)
    with pytest.raises(TypeError, match=_kernel_param((2, 6))):  # _iir_utils.py:622
        signal.sosfilt(sos, dx)  # compute_correction_factors_sos: ``(block_sz, sos, ...)``
    with pytest.raises(TypeError, match=_typed("a")):  # :645 ``collapse_2d(x, axis)``:
        signal.sosfilt(dsos, x.reshape(3, 30))  # ``cupy.moveaxis`` (_move_single_axis)
    with pytest.raises(TypeError, match=_typed("a")):  # :648 ``collapse_2d_rest(zi, axis)``
        signal.sosfilt(dsos, dx, zi=numpy.zeros((2, 4)))
    with pytest.raises(TypeError, match=_kernel_param((2, 6))):  # _signaltools.py:1532
        signal.sosfilt_zi(sos)
    # a 1-D host ``x``: _iir_utils.py:651 ``out = cupy.array(x, dtype=dtype, copy=True)``
    numpy.testing.assert_allclose(signal.sosfilt(dsos, x).get(), signal.sosfilt(dsos, dx).get())
    # filtfilt/sosfiltfilt begin with cupy.atleast_1d/asarray (:1313, :1434, :1446)
    b, a = scipy.signal.butter(3, 0.25)
    numpy.testing.assert_allclose(signal.filtfilt(b, a, x).get(),
                                  scipy.signal.filtfilt(b, a, x), rtol=1e-6, atol=1e-9)
    numpy.testing.assert_allclose(signal.sosfiltfilt(sos, x).get(),
                                  scipy.signal.sosfiltfilt(sos, x), rtol=1e-6, atol=1e-9)


def test_hilbert_and_median_filters_host_arrays(cp, signal):
    x, im = _x(32), numpy.random.default_rng(2).random((6, 7))
    with pytest.raises(TypeError, match=_FFT):  # _signaltools.py:1694 ``sp_fft.fft(x, ...)``
        signal.hilbert(x)
    with pytest.raises(TypeError, match=_FFT):  # :1748 ``sp_fft.fft2(x, N, axes=(0, 1))``
        signal.hilbert2(im)
    with pytest.raises(ValueError, match="x must be 2-D"):  # (its checks first)
        signal.hilbert2(numpy.zeros((2, 2, 2)))
    # a 1-D host x: :1733 ``cupy.atleast_2d(x)``
    numpy.testing.assert_allclose(signal.hilbert2(x).get(), scipy.signal.hilbert2(x[None]))
    # rank_filter/uniform_filter: ndimage's _call_kernel, ``cupy.shares_memory(output,
    # input, 'MAY_SHARE_BOUNDS')``: ``may_share_bounds(_ndarray_base a, _ndarray_base b)``
    with pytest.raises(TypeError, match=_typed("b")):  # :595
        signal.medfilt(x, 5)
    with pytest.raises(ValueError, match="Each element of kernel_size should be odd"):
        signal.medfilt(x, 4)  # (its checks first)
    with pytest.raises(TypeError, match=_typed("b")):  # :636
        signal.medfilt2d(im)
    with pytest.raises(TypeError, match=_typed("b")):  # :511
        signal.wiener(im)
    with pytest.raises(TypeError, match=_typed("b")):  # :557
        signal.order_filter(x, numpy.ones(3), 1)
    # ``domain`` is ndimage's ``footprint``: copied to the device
    numpy.testing.assert_allclose(signal.order_filter(cp.asarray(x), numpy.ones(3), 1).get(),
                                  scipy.signal.order_filter(x, numpy.ones(3), 1))


def test_convolutions_host_arrays(cp, signal):
    x, k = _x(64), numpy.array([0.25, 0.5, 0.25])
    dx, dk = cp.asarray(x), cp.asarray(k)
    for name in ("convolve", "correlate"):
        fn = getattr(signal, name)
        # _signaltools.py:122 choose_conv_method -> 'fft' for floats: :134 fftconvolve,
        # _signaltools_core.py:167 ``fft.rfftn(in1, ...)``
        with pytest.raises(TypeError, match=_FFT):
            fn(x, dk)
        with pytest.raises(TypeError, match=_FFT):
            fn(dx, k)
        # integers: 'direct', _signaltools_core.py:67 ``cupy.promote_types(in1, in2)``
        with pytest.raises(TypeError, match=_DTYPE):
            fn(numpy.arange(10), cp.arange(3))
        with pytest.raises(TypeError, match=_DTYPE):
            fn(dx, k, method="direct")
        with pytest.raises(ValueError, match="in1 and in2 should have the same"):
            fn(x, numpy.ones((2, 2)))  # (_check_conv_inputs first)
        # cupy/_math/misc.py:26: 'auto' is 1-D only, device arrays too
        with pytest.raises(NotImplementedError, match="Only 1d inputs are supported"):
            fn(cp.ones((4, 4)), cp.ones((2, 2)))
    with pytest.raises(TypeError, match=_FFT):  # _signaltools.py:187
        signal.fftconvolve(x, dk)
    with pytest.raises(TypeError, match=_UFUNC):  # _signaltools_core.py:159 ``in1 * in2``
        signal.fftconvolve(x, cp.asarray([2.0]))  # (no axis to transform)
    # oaconvolve of a long host signal: _oa_reshape_inputs' ``cupy.pad(in1, ...)``
    with pytest.raises(ValueError, match=_FILL):
        signal.oaconvolve(_x(4000), cp.ones(50))
    with pytest.raises(ValueError, match=_FILL):
        signal.oaconvolve(x, dk)
    with pytest.raises(TypeError, match=_FFT):  # (one block: fftconvolve, :272)
        signal.oaconvolve(x[:6], dk)
    im, w = numpy.arange(30.0).reshape(5, 6), numpy.ones((2, 2))
    for name in ("convolve2d", "correlate2d"):  # _signaltools.py:420 _direct_correlate
        with pytest.raises(TypeError, match=_DTYPE):
            getattr(signal, name)(im, cp.asarray(w))
        with pytest.raises(ValueError, match="Acceptable boundary flags"):
            getattr(signal, name)(im, cp.asarray(w), boundary="nope")
    # choose_conv_method reads ndim and dtype only (cupy/_math/misc.py:25)
    assert signal.choose_conv_method(x, k) == "fft"
    assert signal.choose_conv_method(numpy.arange(5), k) == "direct"
    with pytest.raises(NotImplementedError, match="Only 1d inputs"):
        signal.choose_conv_method(im, w)
    numpy.testing.assert_allclose(signal.convolve(dx, dk).get(), scipy.signal.convolve(x, k))
