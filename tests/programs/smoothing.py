"""Smoothing and multirate processing of noisy measurements: Savitzky-Golay smoothing
and derivatives (coefficients and filter, several edge modes), median filters against
impulse noise (1-D and 2-D), a Wiener filter, linear detrending with breakpoints,
polyphase up/down sampling with upfirdn and decimate, tapered windows, a zoomed spectrum
with czt/zoom_fft, and a cross-spectral coherence between two channels
(cupyx.scipy.signal), each checked against SciPy on the host; and the mistakes users
make (a polynomial order not below the window, an unknown edge mode, a float16 image for
a median filter, an upfirdn edge mode CuPy has not implemented), with CuPy's errors.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
from cupyx.scipy import signal
from scipy import signal as ssig

rs = numpy.random.RandomState(17)
t_h = numpy.linspace(0, 4, 800)
clean_h = numpy.sin(2 * numpy.pi * 0.75 * t_h) * numpy.exp(-0.2 * t_h) + 0.3 * t_h
noisy_h = clean_h + 0.05 * rs.randn(t_h.size)
spikes = rs.choice(t_h.size, 20, replace=False)
noisy_h[spikes] += rs.choice([-2.0, 2.0], 20)
noisy = cupy.asarray(noisy_h)

# impulse noise first: a running median
med = signal.medfilt(noisy, 7)
med_h = ssig.medfilt(noisy_h, 7)
numpy.testing.assert_array_equal(med.get(), med_h)
assert float(cupy.abs(med - cupy.asarray(clean_h)).max()) < 0.3

# Savitzky-Golay: coefficients, smoothing, and the first derivative
c = signal.savgol_coeffs(21, 3)
numpy.testing.assert_allclose(c.get(), ssig.savgol_coeffs(21, 3), rtol=1e-10, atol=1e-14)
numpy.testing.assert_allclose(signal.savgol_coeffs(21, 3, deriv=1, use="dot").get(),
                              ssig.savgol_coeffs(21, 3, deriv=1, use="dot"), rtol=1e-10, atol=1e-14)
dt = t_h[1] - t_h[0]
for mode in ("interp", "mirror", "nearest", "constant", "wrap"):
    sm = signal.savgol_filter(med, 21, 3, mode=mode)
    numpy.testing.assert_allclose(sm.get(), ssig.savgol_filter(med_h, 21, 3, mode=mode), rtol=1e-9, atol=1e-11,
                                  err_msg=mode)
slope = signal.savgol_filter(med, 31, 3, deriv=1, delta=dt)
numpy.testing.assert_allclose(slope.get(), ssig.savgol_filter(med_h, 31, 3, deriv=1, delta=dt),
                              rtol=1e-8, atol=1e-9)
true_slope = numpy.gradient(clean_h, dt)
assert numpy.corrcoef(slope.get()[50:-50], true_slope[50:-50])[0, 1] > 0.9
f32 = signal.savgol_filter(med.astype(cupy.float32), 11, 2)
assert f32.dtype == numpy.float32  # float32 stays float32, other types become float64
assert signal.savgol_filter(cupy.arange(20), 5, 2).dtype == numpy.float64

# a noisy image: 2-D median and Wiener filters
img_h = numpy.outer(numpy.hanning(48), numpy.hanning(40)) + 0.05 * rs.randn(48, 40)
img_h[rs.rand(48, 40) < 0.02] = 1.0
img = cupy.asarray(img_h)
numpy.testing.assert_array_equal(signal.medfilt2d(img, 5).get(), ssig.medfilt2d(img_h, 5))
numpy.testing.assert_array_equal(signal.medfilt(img, (3, 5)).get(), ssig.medfilt(img_h, (3, 5)))
wn = signal.wiener(img, (5, 5))
numpy.testing.assert_allclose(wn.get(), ssig.wiener(img_h, (5, 5)), rtol=1e-9, atol=1e-12)
numpy.testing.assert_allclose(signal.order_filter(img, cupy.ones((3, 3)), 0).get(),
                              ssig.order_filter(img_h, numpy.ones((3, 3)), 0))

# detrending, with a breakpoint where the drift changes
drift_h = numpy.where(t_h < 2, 0.5 * t_h, 1.0 - 0.25 * (t_h - 2)) + 0.01 * rs.randn(t_h.size)
drift = cupy.asarray(drift_h)
bp = int(numpy.searchsorted(t_h, 2.0))
dtr = signal.detrend(drift, bp=[bp])
numpy.testing.assert_allclose(dtr.get(), ssig.detrend(drift_h, bp=[bp]), rtol=1e-8, atol=1e-10)
assert float(cupy.abs(dtr).max()) < 0.05
numpy.testing.assert_allclose(signal.detrend(drift, type="constant").get(),
                              ssig.detrend(drift_h, type="constant"), rtol=1e-12, atol=1e-14)

# multirate: upfirdn, decimate and resample_poly
h = signal.firwin(31, 0.2)
h_h = ssig.firwin(31, 0.2)
up = signal.upfirdn(h, noisy, up=3, down=2)
numpy.testing.assert_allclose(up.get(), ssig.upfirdn(h_h, noisy_h, up=3, down=2), rtol=1e-10, atol=1e-12)
dec = signal.decimate(med, 4, ftype="fir")
numpy.testing.assert_allclose(dec.get(), ssig.decimate(med_h, 4, ftype="fir"), rtol=1e-9, atol=1e-11)
assert dec.shape == (200,)

# tapered windows
for win in ("hann", ("kaiser", 8.6), ("tukey", 0.3), "blackmanharris", ("gaussian", 7)):
    numpy.testing.assert_allclose(signal.get_window(win, 64).get(), ssig.get_window(win, 64),
                                  rtol=1e-10, atol=1e-14, err_msg=str(win))

# a zoomed spectrum around 0.75 Hz with the chirp z-transform
fs = 1 / dt
seg = med - med.mean()
zf = signal.zoom_fft(seg, [0.2, 1.5], m=128, fs=fs)
numpy.testing.assert_allclose(zf.get(), ssig.zoom_fft(seg.get(), [0.2, 1.5], m=128, fs=fs), rtol=1e-7, atol=1e-7)
freqs = numpy.linspace(0.2, 1.5, 128, endpoint=False)
peak_f = freqs[int(cupy.argmax(cupy.abs(zf)))]
assert abs(peak_f - 0.75) < 0.1, peak_f
cz = signal.czt(seg[:256], m=64, w=numpy.exp(-2j * numpy.pi / 512), a=1.0)
numpy.testing.assert_allclose(cz.get(), ssig.czt(seg.get()[:256], m=64, w=numpy.exp(-2j * numpy.pi / 512), a=1.0),
                              rtol=1e-7, atol=1e-7)

# two channels sharing a component: coherence and cross spectrum
ch2_h = 0.8 * noisy_h + 0.3 * rs.randn(t_h.size)
ch2 = cupy.asarray(ch2_h)
f, coh = signal.coherence(noisy, ch2, fs=fs, nperseg=128)
f_h, coh_h = ssig.coherence(noisy_h, ch2_h, fs=fs, nperseg=128)
numpy.testing.assert_allclose(f.get(), f_h)
numpy.testing.assert_allclose(coh.get(), coh_h, rtol=1e-8, atol=1e-10)
f, pxy = signal.csd(noisy, ch2, fs=fs, nperseg=128)
numpy.testing.assert_allclose(pxy.get(), ssig.csd(noisy_h, ch2_h, fs=fs, nperseg=128)[1], rtol=1e-8, atol=1e-12)

# the mistakes
try:
    signal.savgol_filter(noisy, 5, 5)
except ValueError as e:
    # cupyx/scipy/signal/_savitzky_golay.py: savgol_coeffs
    assert str(e) == "polyorder must be less than window_length.", str(e)
else:
    raise AssertionError("polyorder 5 in a window of 5 taken")
try:
    signal.savgol_filter(noisy, 11, 2, mode="reflect")
except ValueError as e:
    # cupyx/scipy/signal/_savitzky_golay.py: savgol_filter
    assert str(e) == "mode must be 'mirror', 'constant', 'nearest' 'wrap' or 'interp'.", str(e)
else:
    raise AssertionError("mode 'reflect' taken")
try:
    signal.medfilt2d(img.astype(cupy.float16))
except ValueError as e:
    # cupyx/scipy/signal/_signaltools.py: medfilt2d
    assert str(e) == "float16 type not supported", str(e)
else:
    raise AssertionError("a float16 image taken")
try:
    signal.upfirdn(h, noisy, up=2, mode="symmetric")
except NotImplementedError as e:
    # cupyx/scipy/signal/_upfirdn.py: upfirdn
    assert str(e) == "mode='symmetric' and cval=0 not implemented.", str(e)
else:
    raise AssertionError("upfirdn mode 'symmetric' taken")
print("smoothing OK")
