"""``cupyx.signal`` (CuPy's cuSignal heritage, ported to the client:
``gpushare/cupyx/signal/``) through a real server: each function against NumPy/SciPy or a
closed form, and CuPy's errors.

Its kernels are CuPy's sources, run by the server (the CPU backend's kernel emulator):
ElementwiseKernels with ``loop_prep`` and ``return_tuple``, raw CA-CFAR kernels, and the
templated polyphase channelizer (cooperative groups, ``name_expressions``).
"""
from __future__ import annotations

import importlib

import numpy
import pytest
import scipy.ndimage
import scipy.signal

pytestmark = pytest.mark.timeout(180)

#: CuPy 14.2's ``cupyx/signal/__init__.py``
_NAMES = ("complex_cepstrum", "real_cepstrum", "inverse_complex_cepstrum", "minimum_phase",
          "convolve1d2o", "convolve1d3o", "channelize_poly", "firfilter", "firfilter2",
          "firfilter_zi", "freq_shift", "pulse_compression", "pulse_doppler", "cfar_alpha",
          "ca_cfar", "mvdr")


@pytest.fixture
def signal(cp):
    return importlib.import_module("gpushare.cupyx.signal")


def _rand(shape, dtype, seed=0):
    rng = numpy.random.default_rng(seed)
    a = rng.random(shape)
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.random(shape)
    return a.astype(dtype)


def test_names_and_lazy_submodule(cp, signal):
    import gpushare.cupyx as cupyx
    assert cupyx.signal is signal
    assert sorted(signal.__all__) == sorted(_NAMES)
    for name in _NAMES:
        assert callable(getattr(signal, name)), name


# --- acoustics ---------------------------------------------------------------------------

def _np_complex_cepstrum(x, n):
    spectrum = numpy.fft.fft(x, n=n)
    unwrapped = numpy.unwrap(numpy.angle(spectrum))
    samples = unwrapped.shape[-1]
    center = (samples + 1) // 2
    ndelay = numpy.round(unwrapped[..., center] / numpy.pi)
    unwrapped -= numpy.pi * ndelay * numpy.arange(samples) / center
    log_spectrum = numpy.log(numpy.abs(spectrum)) + 1j * unwrapped
    return numpy.fft.ifft(log_spectrum).real, ndelay


def _check_cepstra(cp, signal, size, n):
    x = _rand(size, numpy.float64, seed=size)
    got = signal.real_cepstrum(cp.asarray(x), n)
    ref = numpy.fft.ifft(numpy.log(numpy.abs(numpy.fft.fft(x, n=n)))).real
    assert got.dtype == numpy.float64 and got.shape == ref.shape
    numpy.testing.assert_allclose(got.get(), ref, rtol=1e-10, atol=1e-12)

    ceps, ndelay = signal.complex_cepstrum(cp.asarray(x), n)
    ref_ceps, ref_ndelay = _np_complex_cepstrum(x, n)
    numpy.testing.assert_allclose(ceps.get(), ref_ceps, rtol=1e-10, atol=1e-12)
    # ndelay is an output of CuPy's kernel: one value per sample, all the same
    assert ndelay.shape == ref_ceps.shape and ndelay.dtype == numpy.float64
    numpy.testing.assert_array_equal(ndelay.get(), numpy.full(ref_ceps.shape, ref_ndelay))


def test_real_and_complex_cepstrum(cp, signal):
    for size, n in [(64, None), (100, 37), (48, 64)]:
        _check_cepstra(cp, signal, size, n)
    x = _rand((3, 40), numpy.float64)
    got = signal.real_cepstrum(cp.asarray(x.T), axis=0)
    ref = numpy.fft.ifft(numpy.log(numpy.abs(numpy.fft.fft(x.T, axis=0))), axis=0).real
    numpy.testing.assert_allclose(got.get(), ref, rtol=1e-10, atol=1e-12)


def test_inverse_complex_cepstrum(cp, signal):
    for ndelay in (3, 20):
        x = _rand(64, numpy.float64, seed=ndelay)
        got = signal.inverse_complex_cepstrum(cp.asarray(x), ndelay)
        log_spectrum = numpy.fft.fft(x)
        center = (x.size + 1) // 2
        wrapped = log_spectrum.imag + numpy.pi * ndelay * numpy.arange(x.size) / center
        ref = numpy.fft.ifft(numpy.exp(log_spectrum.real + 1j * wrapped)).real
        numpy.testing.assert_allclose(got.get(), ref, rtol=1e-10, atol=1e-12)
    # the inverse undoes the forward transform
    x = numpy.array([1.0, 0.5, -0.25, 0.125, 0.3, -0.1, 0.05, 0.02])
    ceps, ndelay = signal.complex_cepstrum(cp.asarray(x))
    back = signal.inverse_complex_cepstrum(ceps, int(ndelay[0].get()))
    numpy.testing.assert_allclose(back.get(), x, atol=1e-10)


def test_minimum_phase(cp, signal):
    x = _rand(64, numpy.float64, seed=5)
    for n in (None, 33):
        got = signal.minimum_phase(cp.asarray(x), n)
        m = x.size if n is None else n
        ceps = numpy.fft.ifft(numpy.log(numpy.abs(numpy.fft.fft(x, n=m)))).real
        odd = m % 2
        window = numpy.concatenate(([1.0], 2.0 * numpy.ones((m + odd) // 2 - 1),
                                    numpy.ones(1 - odd), numpy.zeros((m + odd) // 2 - 1)))
        ref = numpy.fft.ifft(numpy.exp(numpy.fft.fft(window * ceps))).real
        numpy.testing.assert_allclose(got.get(), ref, rtol=1e-10, atol=1e-12)


# --- convolution -------------------------------------------------------------------------

def _windows(a, width, size):
    return numpy.lib.stride_tricks.sliding_window_view(a, width)[:size, ::-1]


def test_convolve1d2o_and_1d3o(cp, signal):
    for dtype, shape in [(numpy.float32, (7, 7)), (numpy.float64, (5, 9)),
                         (numpy.complex128, (9, 4))]:
        a, b = _rand(40, dtype, 1), _rand(shape, dtype, 2)
        size = a.size - max(shape) + 1
        ref = numpy.einsum("ix,iy,xy->i", _windows(a, shape[0], size),
                           _windows(a, shape[1], size), b)
        got = signal.convolve1d2o(cp.asarray(a), cp.asarray(b))
        assert got.dtype == dtype and got.shape == (size,)
        numpy.testing.assert_allclose(got.get(), ref,
                                      rtol=1e-5 if dtype == numpy.float32 else 1e-12)
    for dtype in (numpy.float64, numpy.complex64):
        shape = (4, 5, 6)
        a, b = _rand(30, dtype, 3), _rand(shape, dtype, 4)
        size = a.size - max(shape) + 1
        ref = numpy.einsum("ix,iy,iz,xyz->i", _windows(a, 4, size), _windows(a, 5, size),
                           _windows(a, 6, size), b)
        got = signal.convolve1d3o(cp.asarray(a), cp.asarray(b))
        assert got.dtype == dtype
        numpy.testing.assert_allclose(got.get(), ref,
                                      rtol=1e-5 if dtype == numpy.complex64 else 1e-12)
    a = cp.ones(20)
    with pytest.raises(ValueError, match="in1 should have one dimension"):
        signal.convolve1d2o(cp.ones((2, 20)), cp.ones((3, 3)))
    with pytest.raises(ValueError, match="in2 should have"):
        signal.convolve1d2o(a, cp.ones((3, 3, 3)))
    with pytest.raises(ValueError, match="in2 should have three dimension"):
        signal.convolve1d3o(a, cp.ones((3, 3)))
    with pytest.raises(NotImplementedError, match="Mode == same not implemented"):
        signal.convolve1d2o(a, cp.ones((3, 3)), mode="same")
    with pytest.raises(NotImplementedError, match="Only Direct method"):
        signal.convolve1d3o(a, cp.ones((3, 3, 3)), method="fft")


# --- filtering ---------------------------------------------------------------------------

def _np_fir(b, x, zi):
    """CuPy's ``lfilter`` with ``a = [1]`` along the last axis: its ``zi`` are the last
    ``len(b) - 1`` inputs before ``x`` (not SciPy's state vector), its ``zf`` likewise."""
    nb = len(b) - 1
    full = numpy.concatenate((numpy.broadcast_to(zi, x.shape[:-1] + (nb,)), x), axis=-1)
    y = numpy.apply_along_axis(lambda r: numpy.convolve(r, b)[nb:nb + x.shape[-1]], -1, full)
    return y, x[..., x.shape[-1] - nb:]


def test_firfilter_and_zi(cp, signal):
    b = scipy.signal.firwin(9, 0.3)
    x = numpy.cos(-numpy.linspace(0, 10, 300) ** 2 / 6.0)
    got = signal.firfilter(cp.asarray(b), cp.asarray(x))
    numpy.testing.assert_allclose(got.get(), scipy.signal.lfilter(b, 1, x), atol=1e-12)

    zi = signal.firfilter_zi(cp.asarray(b))
    numpy.testing.assert_allclose(zi.get(), scipy.signal.lfilter_zi(b, 1.0), atol=1e-12)
    assert zi.dtype == numpy.float64
    assert signal.firfilter_zi(cp.asarray(b, numpy.float32)).dtype == numpy.float32

    # with initial conditions: CuPy's lfilter semantics (previous inputs)
    y, zf = signal.firfilter(cp.asarray(b), cp.asarray(x), zi=zi * x[0])
    ref_y, ref_zf = _np_fir(b, x, zi.get() * x[0])
    numpy.testing.assert_allclose(y.get(), ref_y, atol=1e-12)
    numpy.testing.assert_allclose(zf.get(), ref_zf, atol=1e-12)


def _np_firfilter2_unpadded(b, x):
    """CuPy's ``firfilter2(..., padtype=None)``: forward and backward FIR passes, started
    from ``lfilter_zi`` scaled by the end values, in CuPy's ``zi`` semantics."""
    zi = scipy.signal.lfilter_zi(b, 1.0)
    y, _ = _np_fir(b, x, zi * x[..., :1])
    y, _ = _np_fir(b, y[..., ::-1], zi * y[..., -1:])
    return y[..., ::-1]


def test_firfilter2(cp, signal):
    """With padding the result is SciPy's ``filtfilt`` (the edges' transients fall in the
    padding); without, CuPy's ``zi`` semantics show at the edges."""
    b = scipy.signal.firwin(7, 0.25)
    x = _rand((2, 120), numpy.float64, seed=7)
    for padtype, padlen in [("odd", None), ("even", 10), ("constant", None), (None, None)]:
        got = signal.firfilter2(cp.asarray(b), cp.asarray(x), padtype=padtype, padlen=padlen)
        if padtype is None:
            ref = _np_firfilter2_unpadded(b, x)
        else:
            ref = scipy.signal.filtfilt(b, 1, x, padtype=padtype, padlen=padlen)
        assert got.shape == x.shape
        numpy.testing.assert_allclose(got.get(), ref, atol=1e-12, err_msg=str(padtype))
        got0 = signal.firfilter2(cp.asarray(b), cp.asarray(x.T), axis=0, padtype=padtype,
                                 padlen=padlen)
        numpy.testing.assert_allclose(got0.get(), ref.T, atol=1e-12, err_msg=str(padtype))

    b, x = cp.ones(5) / 5, cp.ones(40)
    with pytest.raises(ValueError, match="Unknown value 'wrap' given to padtype"):
        signal.firfilter2(b, x, padtype="wrap")
    with pytest.raises(ValueError, match="method must be 'pad' or 'gust'"):
        signal.firfilter2(b, x, method="mirror")
    with pytest.raises(NotImplementedError, match="gust method not supported"):
        signal.firfilter2(b, x, method="gust")
    with pytest.raises(ValueError, match="greater than padlen, which is 15"):
        signal.firfilter2(b, cp.ones(15))


def test_freq_shift(cp, signal):
    x = _rand(50, numpy.float64, seed=11)
    for freq, fs in [(0.1, 0.3), (-2.5, 10.0)]:
        got = signal.freq_shift(cp.asarray(x), freq, fs)
        ref = x * numpy.exp(-1j * 2 * numpy.pi * freq / fs * numpy.arange(x.size))
        assert got.dtype == numpy.complex128
        numpy.testing.assert_allclose(got.get(), ref, rtol=1e-12)


def _np_channelize(x, h, n_chans):
    """CuPy's test reference (``channelize_poly_cpu``)."""
    n_taps = len(h) // n_chans
    n_pts = len(x) // n_chans
    dtype = numpy.promote_types(x.dtype, h.dtype)
    h = numpy.conj(numpy.reshape(h.astype(dtype), (n_taps, n_chans)).T)
    out = numpy.complex64 if dtype in (numpy.float32, numpy.complex64) else numpy.complex128
    yy = numpy.empty((n_chans, n_pts), dtype=out)
    reg = numpy.zeros((n_chans, n_taps), dtype=dtype)
    vv = numpy.empty(n_chans, dtype=dtype)
    for i, nn in enumerate(range(0, len(x), n_chans)):
        reg[:, 1:n_taps] = reg[:, 0:n_taps - 1]
        reg[:, 0] = numpy.conj(numpy.flipud(x[nn:nn + n_chans]))
        for mm in range(n_chans):
            vv[mm] = numpy.dot(reg[mm, :], h[mm, :])
        yy[:, i] = numpy.conj(numpy.fft.fft(vv))
    return yy


@pytest.mark.parametrize("cases", [
    [(numpy.float64, 8, 4), (numpy.complex64, 12, 8)],
    [(numpy.float32, 4, 13), (numpy.complex128, 5, 24), (numpy.float32, 40, 30)]])
def test_channelize_poly(cp, signal, cases):
    """Each of CuPy's three templated channelizer modules (<=8, <=16, <=32 taps)."""
    for dtype, n_chans, n_taps in cases:
        x = _rand(n_chans * 20, dtype, seed=n_chans)
        h = _rand(n_chans * n_taps, dtype, seed=n_taps)
        got = signal.channelize_poly(cp.asarray(x), cp.asarray(h), n_chans)
        ref = _np_channelize(x, h, n_chans)
        assert got.dtype == ref.dtype and got.shape == ref.shape
        tol = 1e-4 if ref.dtype == numpy.complex64 or dtype == numpy.float32 else 1e-10
        numpy.testing.assert_allclose(got.get(), ref, rtol=tol, atol=tol,
                                      err_msg=f"{dtype} {n_chans} {n_taps}")

    with pytest.raises(NotImplementedError, match="capped at 32"):
        signal.channelize_poly(cp.ones(64), cp.ones(4 * 33), 4)
    with pytest.raises(NotImplementedError, match=r"Data type \(int64\) not allowed"):
        signal.channelize_poly(cp.ones(64, numpy.int64), cp.ones(16, numpy.int64), 4)


# --- radar tools -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.float64, numpy.complex64])
def test_pulse_compression(cp, signal, dtype):
    x, t = _rand((4, 90), dtype, 1), _rand(20, dtype, 2)
    for normalize, window in [(False, None), (True, "hamming"), (False, numpy.negative)]:
        got = signal.pulse_compression(cp.asarray(x), cp.asarray(t), normalize, window)
        tt = t.copy()
        if window is not None:
            tt = tt * (window(numpy.fft.fftfreq(20)) if callable(window)
                       else scipy.signal.get_window(window, 20, False))
        if normalize:
            tt = tt / numpy.linalg.norm(tt)
        ref = numpy.fft.ifft(numpy.fft.fft(x, 90) * numpy.fft.fft(tt, 90).conj(), 90)
        if numpy.dtype(dtype).kind != "c":
            ref = ref.real
        # CuPy's dtypes: real data give the real part, complex64 stays complex64
        assert got.dtype == (numpy.float64 if dtype == numpy.float64 else numpy.complex64)
        numpy.testing.assert_allclose(got.get(), ref, rtol=1e-4, atol=1e-4,
                                      err_msg=f"{normalize} {window}")


def test_pulse_doppler(cp, signal):
    x = _rand((6, 30), numpy.complex128, 3)
    got = signal.pulse_doppler(cp.asarray(x))
    numpy.testing.assert_allclose(got.get(), numpy.fft.fft(x.T, 6).T, rtol=1e-12)
    got = signal.pulse_doppler(cp.asarray(x), window="hann", nfft=8)
    ref = numpy.fft.fft(x.T * scipy.signal.get_window("hann", 6, False), 8).T
    assert got.shape == (8, 30)
    numpy.testing.assert_allclose(got.get(), ref, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="window must have the same length as data"):
        signal.pulse_doppler(cp.asarray(x), window=cp.ones(5))


def test_cfar_alpha(cp, signal):
    assert signal.cfar_alpha(1e-3, 10) == pytest.approx(10 * (1e-3 ** -0.1 - 1))
    pfa = cp.asarray([1e-2, 1e-4])
    numpy.testing.assert_allclose(signal.cfar_alpha(pfa, 8).get(),
                                  8 * (numpy.array([1e-2, 1e-4]) ** (-1 / 8) - 1))


def test_ca_cfar(cp, signal):
    """Against a convolution with the reference cells' weights (CuPy's test reference)."""
    for size, gc, rc in [(100, 1, 5), (11, 2, 3), (70, 4, 12)]:
        array = _rand(size, numpy.float32, seed=size)
        mask, det = signal.ca_cfar(cp.asarray(array), gc, rc)
        weight = numpy.ones((rc + gc) * 2 + 1, numpy.float64)
        weight[rc:-rc] = 0
        alpha = numpy.zeros(size)
        alpha[gc + rc:-gc - rc] = signal.cfar_alpha(1e-3, 2 * rc)
        ref = scipy.ndimage.convolve1d(array.astype(numpy.float64), weight) * alpha / (2 * rc)
        assert mask.dtype == numpy.float32 and det.dtype == numpy.bool_
        numpy.testing.assert_allclose(mask.get(), ref, rtol=1e-4)
        numpy.testing.assert_array_equal(det.get(), array - mask.get() > 0)
    for shape, gc, rc in [((10, 10), (1, 1), (2, 2)), ((12, 40), (1, 3), (2, 5))]:
        array = _rand(shape, numpy.float32, seed=3)
        mask, det = signal.ca_cfar(cp.asarray(array), gc, rc)
        (gcx, gcy), (rcx, rcy) = gc, rc
        weight = numpy.ones(((rcx + gcx) * 2 + 1, (rcy + gcy) * 2 + 1))
        weight[rcx:-rcx, rcy:-rcy] = 0
        n = weight.size - (2 * gcx + 1) * (2 * gcy + 1)
        alpha = numpy.zeros(shape)
        alpha[gcx + rcx:-gcx - rcx, gcy + rcy:-gcy - rcy] = signal.cfar_alpha(1e-3, n)
        ref = scipy.ndimage.convolve(array.astype(numpy.float64), weight) * alpha / n
        numpy.testing.assert_allclose(mask.get(), ref, rtol=1e-4)
        numpy.testing.assert_array_equal(det.get(), array - mask.get() > 0)


def test_ca_cfar_errors(cp, signal):
    with pytest.raises(ValueError, match="Array too small"):
        signal.ca_cfar(cp.zeros(10), 2, 3)
    with pytest.raises(ValueError, match="first dimension too small"):
        signal.ca_cfar(cp.zeros((3, 3)), (1, 1), (10, 1))
    with pytest.raises(ValueError, match="second dimension too small"):
        signal.ca_cfar(cp.zeros((30, 3)), (1, 1), (1, 1))
    with pytest.raises(TypeError, match="Only 1D and 2D"):
        signal.ca_cfar(cp.zeros((3, 3, 3)), 1, 1)
    with pytest.raises(TypeError, match="must be two dimensional"):
        signal.ca_cfar(cp.zeros((30, 30)), (1, 1, 1), (1, 1))
    with pytest.raises(TypeError, match="has no len"):  # CuPy's too: len(1)
        signal.ca_cfar(cp.zeros((30, 30)), 1, (1, 1))


def test_mvdr(cp, signal):
    for dtype in (numpy.float32, numpy.float64):  # CuPy's test: closed form [-2, 1.5]
        x = cp.array([[1, 2, 3], [4, 5, 7]], dtype=dtype)
        sv = cp.array([1, 2], dtype=dtype)
        out = signal.mvdr(x, sv)
        assert out.dtype == dtype
        numpy.testing.assert_allclose(out.get(), [-2, 1.5], rtol=1e-5)
    # a precalculated covariance matrix; complex data: w = R^-1 sv / (sv^H R^-1 sv)
    data = _rand((3, 50), numpy.complex128, 9)
    r = numpy.cov(data)
    s = numpy.array([1, 1j, -1])
    w = numpy.linalg.solve(r, s)
    got = signal.mvdr(cp.asarray(r), cp.asarray(s), calc_cov=False)
    numpy.testing.assert_allclose(got.get(), w / (s.conj() @ w), rtol=1e-10)
    numpy.testing.assert_allclose(signal.mvdr(cp.asarray(data), cp.asarray(s)).get(),
                                  w / (s.conj() @ w), rtol=1e-10)
    with pytest.raises(ValueError, match="more sensors than samples"):
        signal.mvdr(x.T, sv)
    with pytest.raises(ValueError, match="Steering Vector and input data do not align"):
        signal.mvdr(x, cp.ones(3))
