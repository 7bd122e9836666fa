"""Spectral methods: a periodic Poisson solve and a heat-equation step with rfft2/irfft2,
spectral differentiation with fftfreq, a power spectrum with fftshift, a windowed
spectrogram with cupyx.scipy.signal, and cuFFT plans, each checked against NumPy/SciPy.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
import cupyx.scipy.fft as cufft
import cupyx.scipy.signal as csignal
import scipy.signal as ssignal

n = 64
L = 2 * numpy.pi
x = cupy.linspace(0, L, n, endpoint=False)
X, Y = cupy.meshgrid(x, x, indexing="ij")
u_true = cupy.sin(3 * X) * cupy.cos(2 * Y) + 0.5 * cupy.cos(5 * Y)
f = -(13 * cupy.sin(3 * X) * cupy.cos(2 * Y) + 12.5 * cupy.cos(5 * Y))  # laplacian of u

# Poisson: -|k|^2 u_hat = f_hat
kx = cupy.fft.fftfreq(n, d=L / n) * 2 * numpy.pi
ky = cupy.fft.rfftfreq(n, d=L / n) * 2 * numpy.pi
assert kx.dtype == numpy.float64 and ky.shape == (n // 2 + 1,)
K2 = kx[:, None] ** 2 + ky[None, :] ** 2
f_hat = cupy.fft.rfft2(f)
assert f_hat.shape == (n, n // 2 + 1) and f_hat.dtype == numpy.complex128
K2[0, 0] = 1.0
u_hat = -f_hat / K2
u_hat[0, 0] = 0
u = cupy.fft.irfft2(u_hat, s=(n, n))
numpy.testing.assert_allclose(u.get(), (u_true - u_true.mean()).get(), atol=1e-12)

# float32 keeps single precision through the transforms
f32 = f.astype(cupy.float32)
F32 = cupy.fft.rfft2(f32)
assert F32.dtype == numpy.complex64 and cupy.fft.irfft2(F32, s=(n, n)).dtype == numpy.float32
numpy.testing.assert_allclose(cupy.fft.irfft2(F32, s=(n, n)).get(), f32.get(), atol=1e-4)

# spectral derivative along one axis
du = cupy.fft.irfft(1j * ky * cupy.fft.rfft(u_true, axis=1), n=n, axis=1)
numpy.testing.assert_allclose(du.get(), (-2 * cupy.sin(3 * X) * cupy.sin(2 * Y) - 2.5 * cupy.sin(5 * Y)).get(), atol=1e-11)

# implicit heat steps
nu, dt = 0.1, 0.01
v_hat = cupy.fft.fft2(u_true)
K2full = kx[:, None] ** 2 + kx[None, :] ** 2
for _ in range(10):
    v_hat = v_hat / (1 + nu * dt * K2full)
v = cupy.fft.ifft2(v_hat).real
vh = numpy.fft.ifft2(numpy.fft.fft2(u_true.get()) / (1 + nu * dt * K2full.get()) ** 10).real
numpy.testing.assert_allclose(v.get(), vh, atol=1e-12)

# power spectrum, centred
rs = numpy.random.RandomState(5)
sig_h = numpy.sin(2 * numpy.pi * 50 * numpy.arange(1024) / 1000) + 0.3 * rs.randn(1024)
sig = cupy.asarray(sig_h)
P = cupy.abs(cupy.fft.fftshift(cupy.fft.fft(sig))) ** 2
freqs = cupy.fft.fftshift(cupy.fft.fftfreq(1024, d=1e-3))
assert abs(abs(float(freqs[int(cupy.argmax(P))])) - 50) < 1.0
numpy.testing.assert_allclose(cupy.fft.ifftshift(freqs).get(), numpy.fft.fftfreq(1024, d=1e-3))
numpy.testing.assert_allclose(P.get(), numpy.abs(numpy.fft.fftshift(numpy.fft.fft(sig_h))) ** 2, rtol=1e-9)

# cupyx.scipy.fft with a plan, and norm modes
plan = cufft.get_fft_plan(f, axes=(0, 1), value_type="R2C")
with plan:
    g = cufft.rfft2(f)
numpy.testing.assert_allclose(g.get(), f_hat.get(), atol=1e-9)
ortho = cufft.fftn(f, norm="ortho")
numpy.testing.assert_allclose(ortho.get(), numpy.fft.fftn(f.get(), norm="ortho"), atol=1e-10)
dct = cufft.dct(sig, type=2, norm="ortho")
import scipy.fft
numpy.testing.assert_allclose(dct.get(), scipy.fft.dct(sig_h, type=2, norm="ortho"), atol=1e-10)

# spectrogram / welch
fs = 1000.0
fw, Pw = csignal.welch(sig, fs=fs, nperseg=256)
fw_h, Pw_h = ssignal.welch(sig_h, fs=fs, nperseg=256)
numpy.testing.assert_allclose(fw.get(), fw_h)
numpy.testing.assert_allclose(Pw.get(), Pw_h, rtol=1e-9)
fsg, tsg, Sxx = csignal.spectrogram(sig, fs=fs, nperseg=128)
assert Sxx.shape == ssignal.spectrogram(sig_h, fs=fs, nperseg=128)[2].shape
win = csignal.get_window("hann", 128)
numpy.testing.assert_allclose(win.get(), ssignal.get_window("hann", 128))

# mistakes
try:
    cupy.fft.rfft2(f, axes=(0, 2))
except ValueError as e:
    # cupy/fft/_fft.py: _prep_fftn_axes (from _default_fft_func)
    assert str(e) == "The specified axes exceed the array dimensions.", str(e)
else:
    raise AssertionError("an axis past the array not refused")
try:
    cupy.fft.fft(sig, norm="forwards")
except ValueError as e:
    # cupy/fft/_fft.py: _fft
    assert str(e) == 'Invalid norm value forwards, should be "backward", "ortho", or "forward".', str(e)
else:
    raise AssertionError("a bad norm not refused")
try:
    cupy.fft.irfft2(f_hat, s=(n, n, n))
except ValueError as e:
    assert str(e) == "Shape and axes have different lengths.", str(e)
else:
    raise AssertionError("s longer than axes not refused")
print("spectral OK")
