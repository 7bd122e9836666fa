"""Digital signal processing: a Butterworth low-pass designed as transfer function and
second-order sections and applied with lfilter, sosfilt and zero-phase filtfilt (with
carried filter state across blocks), a windowed FIR from firwin, Fourier resampling, the
analytic signal's envelope and instantaneous frequency from hilbert, and find_peaks on
the result (cupyx.scipy.signal), each checked against SciPy on the host; and the
mistakes users make (a cutoff at Nyquist, a too-short signal for filtfilt, an even-length
high-pass FIR) with the errors CuPy raises.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
from cupyx.scipy import signal
from scipy import signal as ssig

fs = 1000.0
t_h = numpy.arange(2000) / fs
rs = numpy.random.RandomState(7)
x_h = (numpy.sin(2 * numpy.pi * 5 * t_h) + 0.5 * numpy.sin(2 * numpy.pi * 120 * t_h)
       + 0.2 * rs.randn(t_h.size))
x = cupy.asarray(x_h)

# IIR design: the coefficients are a host computation in float64
b, a = signal.butter(4, 30, btype="low", fs=fs)
b_h, a_h = ssig.butter(4, 30, btype="low", fs=fs)
assert b.dtype == numpy.float64 and a.shape == (5,)
numpy.testing.assert_allclose(b.get(), b_h, rtol=1e-10)
numpy.testing.assert_allclose(a.get(), a_h, rtol=1e-10)
sos = signal.butter(4, 30, btype="low", fs=fs, output="sos")
sos_h = ssig.butter(4, 30, btype="low", fs=fs, output="sos")
assert sos.shape == (2, 6)
numpy.testing.assert_allclose(sos.get(), sos_h, rtol=1e-9, atol=1e-15)

# causal filtering; tolerance: the recursion runs in float64, 2000 steps
y = signal.lfilter(b, a, x)
numpy.testing.assert_allclose(y.get(), ssig.lfilter(b_h, a_h, x_h), rtol=1e-7, atol=1e-9)
ys = signal.sosfilt(sos, x)
numpy.testing.assert_allclose(ys.get(), ssig.sosfilt(sos_h, x_h), rtol=1e-7, atol=1e-9)
numpy.testing.assert_allclose(ys.get(), y.get(), atol=1e-6)

# streaming: two blocks with the state carried over equal one pass
zi = signal.lfilter_zi(b, a) * x[0]
y1, zf = signal.lfilter(b, a, x[:700], zi=zi)
y2, _ = signal.lfilter(b, a, x[700:], zi=zf)
zi_h = ssig.lfilter_zi(b_h, a_h) * x_h[0]
full_h, _ = ssig.lfilter(b_h, a_h, x_h, zi=zi_h)
numpy.testing.assert_allclose(cupy.concatenate([y1, y2]).get(), full_h, rtol=1e-7, atol=1e-9)
# CuPy's sections keep four state values each (SciPy's two): cupyx/scipy/signal/
# _signaltools.py, sosfilt_zi returns shape (n_sections, 4)
zs = signal.sosfilt_zi(sos) * x[0]
assert zs.shape == (2, 4)
ys1, zsf = signal.sosfilt(sos, x[:1000], zi=zs)
ys2, _ = signal.sosfilt(sos, x[1000:], zi=zsf)
assert zsf.shape == (2, 4)
ys_full, _ = signal.sosfilt(sos, x, zi=zs)
numpy.testing.assert_allclose(cupy.concatenate([ys1, ys2]).get(), ys_full.get(), rtol=1e-9, atol=1e-12)
numpy.testing.assert_allclose(ys_full.get(), full_h, rtol=1e-6, atol=1e-8)

# zero phase: the 5 Hz component keeps its phase, the 120 Hz one is gone
yf = signal.filtfilt(b, a, x)
numpy.testing.assert_allclose(yf.get(), ssig.filtfilt(b_h, a_h, x_h), rtol=1e-6, atol=1e-8)
clean = numpy.sin(2 * numpy.pi * 5 * t_h)
assert numpy.abs(yf.get() - clean)[200:-200].std() < 0.06
yfs = signal.sosfiltfilt(sos, x)
numpy.testing.assert_allclose(yfs.get(), ssig.sosfiltfilt(sos_h, x_h), rtol=1e-6, atol=1e-8)

# a band-pass FIR, applied along the last axis of a batch of signals
taps = signal.firwin(101, [100, 140], pass_zero=False, fs=fs)
taps_h = ssig.firwin(101, [100, 140], pass_zero=False, fs=fs)
numpy.testing.assert_allclose(taps.get(), taps_h, rtol=1e-10, atol=1e-15)
batch = cupy.stack([x, 2 * x, -x])
yb = signal.lfilter(taps, cupy.ones(1), batch, axis=-1)  # (CuPy's a: an array, a[0] read)
assert yb.shape == (3, 2000)
numpy.testing.assert_allclose(yb.get(), ssig.lfilter(taps_h, 1.0, numpy.stack([x_h, 2 * x_h, -x_h]), axis=-1),
                              rtol=1e-8, atol=1e-10)
w, hresp = signal.freqz(taps, worN=512, fs=fs)
w_h, hresp_h = ssig.freqz(taps_h, worN=512, fs=fs)
numpy.testing.assert_allclose(w.get(), w_h)
numpy.testing.assert_allclose(hresp.get(), hresp_h, rtol=1e-8, atol=1e-10)
assert abs(abs(complex(hresp[numpy.searchsorted(w_h, 120)])) - 1) < 0.02

# Fourier resampling and decimation
r = signal.resample(x, 500)
numpy.testing.assert_allclose(r.get(), ssig.resample(x_h, 500), rtol=1e-9, atol=1e-10)
rp = signal.resample_poly(x, 1, 4)
numpy.testing.assert_allclose(rp.get(), ssig.resample_poly(x_h, 1, 4), rtol=1e-8, atol=1e-10)

# the analytic signal of an AM chirp: envelope and instantaneous frequency
carrier = numpy.sin(2 * numpy.pi * (50 * t_h + 20 * t_h ** 2))
env_true = 1 + 0.5 * numpy.cos(2 * numpy.pi * 3 * t_h)
am = cupy.asarray(env_true * carrier)
za = signal.hilbert(am)
assert za.dtype == numpy.complex128
numpy.testing.assert_allclose(za.get(), ssig.hilbert(env_true * carrier), rtol=1e-9, atol=1e-10)
env = cupy.abs(za)
phase = cupy.unwrap(cupy.angle(za))
inst_f = cupy.diff(phase) / (2 * numpy.pi) * fs
assert float(cupy.abs(env - cupy.asarray(env_true))[100:-100].max()) < 0.05
assert abs(float(inst_f[1000]) - (50 + 40 * 1.0)) < 1.0

# peaks of the envelope: one per modulation period
peaks, props = signal.find_peaks(env, height=1.2, distance=200)
peaks_h, props_h = ssig.find_peaks(numpy.abs(ssig.hilbert(env_true * carrier)), height=1.2, distance=200)
assert peaks.get().tolist() == peaks_h.tolist()
numpy.testing.assert_allclose(props["peak_heights"].get(), props_h["peak_heights"], rtol=1e-10)
# t = 1/3, 2/3, ... 5/3 s, and one near each edge (the FFT's periodic wrap)
assert numpy.abs(peaks_h[1:-1] - 1000 * numpy.arange(1, 6) / 3).max() < 5, peaks_h

# complex arithmetic: demodulate by the analytic signal and low-pass again
base = signal.lfilter(b, a, za * cupy.exp(-2j * numpy.pi * 50 * cupy.asarray(t_h)))
base_h = ssig.lfilter(b_h, a_h, ssig.hilbert(env_true * carrier) * numpy.exp(-2j * numpy.pi * 50 * t_h))
assert base.dtype == numpy.complex128
numpy.testing.assert_allclose(base.get(), base_h, rtol=1e-7, atol=1e-9)

# the mistakes
try:
    signal.butter(4, 500, fs=fs)
except ValueError as e:
    # cupyx/scipy/signal/_iir_filter_design.py: iirfilter
    assert str(e) == "Digital filter critical frequencies must be 0 < Wn < fs/2 (fs=1000.0 -> fs/2=500.0)", str(e)
else:
    raise AssertionError("a cutoff at Nyquist not refused")
try:
    signal.filtfilt(b, a, x[:12])
except ValueError as e:
    # cupyx/scipy/signal/_signaltools.py: _validate_pad
    assert str(e) == "The length of the input vector x must be greater than padlen, which is 15.", str(e)
else:
    raise AssertionError("a too-short signal not refused")
try:
    signal.firwin(100, 200, pass_zero=False, fs=fs)
except ValueError as e:
    # cupyx/scipy/signal/_fir_filter_design.py: firwin
    assert str(e) == ("A filter with an even number of coefficients must have zero "
                      "response at the Nyquist rate."), str(e)
else:
    raise AssertionError("an even-length high-pass not refused")
print("filters OK")
