"""``cupyx.scipy.signal``'s results through a real server: the CPU backend gives CuPy
14.2's types and values where its code and SciPy's part (the frequency responses of
``_filter_design.py``, the peak properties of ``_peak_finding.py``). Each test names the
CuPy lines it follows; the overrides are in
``server/gpushare_server/backends/cpu_signal.py``.
"""
from __future__ import annotations

import importlib
import warnings

import numpy
import pytest
import scipy.signal

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def signal(cp):
    return importlib.import_module("gpushare.cupyx.scipy.signal")


_B = numpy.array([0.25, 0.5, 0.25])
_A = numpy.array([1.0, -0.2, 0.1])


def test_freqz_w_is_float64_for_float32_coefficients(cp, signal):
    """``freqz``: ``w = cupy.linspace(0, lastpoint, N, ...)`` (float64), ``h`` by
    ``npp_polyval`` of ``exp(-1j * w)``: complex128 (SciPy 1.17 gives ``w`` the
    coefficients' real type: float32, complex64)."""
    b32, a32 = cp.asarray(_B, dtype=cp.float32), cp.asarray(_A, dtype=cp.float32)
    w, h = signal.freqz(b32, a32, worN=16)
    assert (w.dtype, h.dtype) == (numpy.float64, numpy.complex128)
    want_w, want_h = scipy.signal.freqz(_B.astype(numpy.float32).astype(float),
                                        _A.astype(numpy.float32).astype(float), worN=16)
    numpy.testing.assert_allclose(w.get(), want_w, rtol=1e-12)
    numpy.testing.assert_allclose(h.get(), want_h, rtol=1e-10)
    # the FFT path (``a.size == 1``, N 7-smooth): ``sp_fft.rfft`` keeps float32's kind
    w, h = signal.freqz(b32, worN=16)
    assert (w.dtype, h.dtype) == (numpy.float64, numpy.complex64)


def test_freqz_keeps_worN_type(cp, signal):
    """``freqz``: ``w = cupy.atleast_1d(worN).real; w = 2 * pi * w / fs``: a float32
    ``worN`` stays float32 (SciPy casts it to the coefficients' type)."""
    worN = cp.linspace(0, 1, 5, dtype=cp.float32)
    w, h = signal.freqz(cp.asarray(_B), cp.asarray(_A), worN=worN)
    assert (w.dtype, h.dtype) == (numpy.float32, numpy.complex128)
    w, h = signal.freqz_zpk(cp.asarray([-1.0]), cp.asarray([0.5]), 1.0, worN=worN)
    assert (w.dtype, h.dtype) == (numpy.float32, numpy.complex128)


def test_freqz_include_nyquist_takes_cupys_fft_path(cp, signal):
    """``freqz``: ``use_fft`` whenever ``N`` is fast, ``n_fft = N * 2`` even with
    ``include_nyquist``: ``h`` is at ``k * pi / N`` while ``w`` ends at ``pi`` (SciPy
    takes ``n_fft = 2 * (N - 1)``)."""
    w, h = signal.freqz(cp.asarray(_B), worN=8, include_nyquist=True)
    numpy.testing.assert_allclose(w.get(), numpy.linspace(0, numpy.pi, 8), rtol=1e-12)
    numpy.testing.assert_allclose(h.get(), scipy.signal.freqz(_B, worN=8)[1], rtol=1e-12)


def test_sosfreqz_of_float32_sections(cp, signal):
    """``freqz_sos``: each section's ``freqz(row[:3], row[3:], ...)``, ``a`` of three
    taps: the polyval path, float64 ``w``, complex128 ``h``."""
    sos = scipy.signal.butter(4, 0.2, output="sos")
    w, h = signal.sosfreqz(cp.asarray(sos, dtype=cp.float32), worN=32)
    assert (w.dtype, h.dtype) == (numpy.float64, numpy.complex128)
    want = scipy.signal.sosfreqz(sos.astype(numpy.float32).astype(float), worN=32)[1]
    numpy.testing.assert_allclose(h.get(), want, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match=r"sos\[:, 3\] should be all ones"):
        signal.sosfreqz(cp.asarray(2 * sos))


def test_group_delay_singular_without_warning(cp, signal):
    """``group_delay``: ``gd[~cupy.isfinite(gd)] = 0``, no warning (SciPy warns
    'The group delay is singular at frequencies ...')."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w, gd = signal.group_delay((cp.asarray([1.0, -1.0]), cp.asarray([1.0])),
                                   w=cp.asarray([0.0, 0.5]))
    assert gd.get()[0] == 0  # (a zero at z = 1)
    numpy.testing.assert_allclose(gd.get()[1], 0.5)
    w, gd = signal.group_delay((cp.asarray(_B), cp.asarray(_A)), w=64)
    numpy.testing.assert_allclose(gd.get(), scipy.signal.group_delay((_B, _A), w=64)[1],
                                  rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.int32])
def test_find_peaks_properties_in_x_type(cp, signal, dtype):
    """``find_peaks``: ``_arg_x_as_expected`` keeps ``x``'s type; ``peak_heights =
    x[peaks]``, the thresholds ``x[peaks] - x[peaks -/+ 1]``, ``_peak_prominences``'
    ``cupy.empty(..., dtype=x.dtype)``; the widths float64 (SciPy: all float64)."""
    rng = numpy.random.default_rng(0)
    x = (10 * (numpy.sin(numpy.linspace(0, 20, 200)) + 0.1 * rng.standard_normal(200)))
    x = x.astype(dtype)
    peaks, props = signal.find_peaks(cp.asarray(x), height=0, threshold=0,
                                     prominence=0.5, width=1)
    want, want_props = scipy.signal.find_peaks(x, height=0, threshold=0, prominence=0.5,
                                               width=1)
    assert peaks.dtype == numpy.int64 and peaks.get().tolist() == want.tolist()
    for key in ("peak_heights", "left_thresholds", "right_thresholds", "prominences"):
        assert props[key].dtype == dtype, key
        numpy.testing.assert_allclose(props[key].get(), want_props[key], rtol=1e-6)
    for key in ("widths", "width_heights", "left_ips", "right_ips"):
        assert props[key].dtype == numpy.float64, key
    for key in ("left_bases", "right_bases"):
        assert props[key].dtype == numpy.int64, key
    prom, left, right = signal.peak_prominences(cp.asarray(x), peaks)
    assert (prom.dtype, left.dtype, right.dtype) == (dtype, numpy.int64, numpy.int64)
    numpy.testing.assert_allclose(prom.get(), want_props["prominences"], rtol=1e-6)
