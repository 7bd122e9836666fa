"""Session 28, a second round of real CuPy programs (``tests/programs/``): what they
found, each against CuPy 14.2.0's source."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(240)


def _raises(exc, fn, *args, **kwargs):
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    return str(info.value)


# --- cupyx.scipy.signal.firwin (cupyx/scipy/signal/_fir_filter_design.py) --------------

def test_firwin_refuses_in_cupys_words(cp):
    from gpushare.cupyx.scipy import signal
    assert _raises(ValueError, signal.firwin, 100, 200, pass_zero=False, fs=1000.0) == (
        "A filter with an even number of coefficients must have zero response at the "
        "Nyquist rate.")
    assert _raises(ValueError, signal.firwin, 11, 0.0) == (
        "Invalid cutoff frequency: frequencies must be greater than 0 and less than nyq.")
    assert _raises(ValueError, signal.firwin, 11, [0.3, 0.2]) == (
        "Invalid cutoff frequencies: the frequencies must be strictly increasing.")
    assert _raises(ValueError, signal.firwin, 11, [0.2, 0.3], pass_zero="lowpass") == (
        'cutoff must have one element if pass_zero=="lowpass", got (2,)')
    assert _raises(ValueError, signal.firwin, 11, 0.2, pass_zero="bandpass") == (
        'cutoff must have at least two elements if pass_zero=="bandpass", got (1,)')
    assert _raises(ValueError, signal.firwin, 11, 0.2, pass_zero="notch") == (
        'pass_zero must be True, False, "bandpass", "lowpass", "highpass", or '
        '"bandstop", got notch')


def test_firwin_takes_any_truth_value_and_gives_scipys_taps(cp):
    import numpy
    from scipy import signal as ssig
    from gpushare.cupyx.scipy import signal
    # CuPy's pass_zero is used as a number (bool(size & 1) ^ pass_zero), SciPy's must
    # be True or False
    taps = signal.firwin(11, 0.3, pass_zero=0)
    numpy.testing.assert_allclose(taps.get(), ssig.firwin(11, 0.3, pass_zero=False), rtol=1e-12)
    taps = signal.firwin(31, [100, 140], pass_zero="bandpass", fs=1000.0)
    numpy.testing.assert_allclose(taps.get(), ssig.firwin(31, [100, 140], pass_zero=False, fs=1000.0),
                                  rtol=1e-12, atol=1e-15)


# --- cupyx.scipy.stats (cupyx/scipy/stats/_distributions.py, _stats_py.py, _stats.py,
# _morestats.py): CuPy's own code, not SciPy's --------------------------------------------

def test_entropy_normalises_float_inputs_in_place(cp):
    from gpushare.cupyx.scipy import stats
    pk = cp.asarray([1.0, 2.0, 3.0, 4.0])
    qk = cp.asarray([4.0, 3.0, 2.0, 1.0], dtype=cp.float32)
    s = stats.entropy(pk, qk)
    # _normalize: x /= x_sum, after astype(float_type, copy=False): pk (float64) is
    # normalised in place; qk (float32) is copied to pk's float_type, float64, and kept
    assert pk.get().tolist() == [0.1, 0.2, 0.3, 0.4]
    assert qk.get().tolist() == [4.0, 3.0, 2.0, 1.0]
    assert s.dtype == cp.float64 and abs(float(s) - 0.45643481914678) < 1e-12
    p32 = cp.asarray([2.0, 2.0], dtype=cp.float32)
    assert stats.entropy(p32).dtype == cp.float32
    assert p32.get().tolist() == [0.5, 0.5]
    p16 = cp.asarray([2.0, 2.0], dtype=cp.float16)  # float_type float32: a copy
    assert stats.entropy(p16).dtype == cp.float32 and p16.get().tolist() == [2.0, 2.0]
    ints = cp.asarray([1, 3])
    assert stats.entropy(ints).dtype == cp.float64 and ints.get().tolist() == [1, 3]


def test_entropy_refuses_in_cupys_words(cp):
    from gpushare.cupyx.scipy import stats
    pk = cp.ones((2, 4))
    assert _raises(ValueError, stats.entropy, pk, cp.ones((2, 1))) == "qk and pk must have same shape."
    assert _raises(TypeError, stats.entropy, pk.astype(cp.complex64)) == "complex dtype not supported"
    assert _raises(TypeError, stats.entropy, pk, pk.astype(cp.complex128)) == "complex dtype not supported"


def test_zscore_and_zmap_as_cupy(cp):
    import numpy
    from gpushare.cupyx.scipy import stats
    a = cp.asarray([1.0, 2.0, 4.0])
    assert _raises(ValueError, stats.zscore, a, nan_policy="ignore") == (
        "nan_policy must be one of {'propagate', 'raise', 'omit'}")
    assert _raises(ValueError, stats.zmap, a, a, nan_policy="skip") == (
        "nan_policy must be one of {'propagate', 'raise', 'omit'}")
    # an empty compare: an empty array of compare's shape, whatever the scores
    out = stats.zmap(a, cp.zeros((0, 2), dtype=cp.int32))
    assert out.shape == (0, 2) and out.dtype == cp.float64
    # a constant column: NaN (std set to 1, then the outputs to NaN)
    z = stats.zscore(cp.asarray([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0]]))
    zh = z.get()
    assert numpy.isnan(zh[:, 0]).all()
    numpy.testing.assert_allclose(zh[:, 1], [-1.224744871391589, 0, 1.224744871391589])


def test_trim_mean_and_boxcox_llf_of_nothing(cp):
    import math
    from gpushare.cupyx.scipy import stats
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (CuPy warns of nothing; SciPy did)
        out = stats.trim_mean(cp.zeros(0), 0.1)  # _stats.py: return cp.nan
        stats.boxcox_llf(0.5, cp.zeros(0))
    assert type(out) is float and math.isnan(out)
    llf = stats.boxcox_llf(0.5, cp.zeros(0, dtype=cp.float32))
    assert llf.dtype == cp.float32 and llf.shape == () and math.isnan(float(llf))
    assert stats.boxcox_llf(0.5, cp.zeros(0, dtype=cp.int16)).dtype == cp.float64
    assert _raises(ValueError, stats.trim_mean, cp.arange(10.0), 0.6) == "Proportion too big."


# --- cupy.pad (cupy/_padding/pad.py: 'median' is commented out of allowed_kwargs) ----

def test_pad_has_no_median_mode(cp):
    a = cp.arange(12.0).reshape(3, 4)
    assert _raises(ValueError, cp.pad, a, 1, mode="median") == "mode 'median' is not supported"
    assert _raises(ValueError, cp.pad, a, 1, mode="median", stat_length=2) == (
        "mode 'median' is not supported")
    # pad_width's checks come first
    assert _raises(TypeError, cp.pad, a, 1.5, mode="median") == (
        "`pad_width` must be of integral type.")
    # the others as before
    assert cp.pad(a, 1, mode="mean").get()[0, 0] == 5.5
    assert cp.pad(a, (1, 2), mode="maximum").shape == (6, 7)


# --- cupy.histogramdd (cupy/_statistics/histogram.py: 'of the ' ' sample x.') --------

def test_histogramdd_bins_of_another_dimension_in_cupys_words(cp):
    words = "The dimension of bins must be equal to the dimension of the  sample x."
    sample = cp.ones((5, 2))
    assert _raises(ValueError, cp.histogramdd, sample, bins=(3, 3, 3)) == words
    assert _raises(ValueError, cp.histogramdd, cp.ones(5), bins=(3, 3)) == words
    assert _raises(ValueError, cp.histogramdd, [cp.ones(5), cp.ones(5)], bins=(3,)) == words
    h, edges = cp.histogramdd(sample, bins=(2, 4))
    assert h.shape == (2, 4) and len(edges) == 2 and float(h.sum()) == 5.0
    h, _ = cp.histogramdd(cp.arange(4.0), bins=2)
    assert h.get().tolist() == [2.0, 2.0]


# --- cupyx.scipy.signal's median filters and upfirdn (_signaltools.py, _upfirdn.py) --

def test_median_filters_check_in_cupys_words(cp):
    from gpushare.cupyx.scipy import signal
    img = cp.ones((6, 5))
    for fn in (signal.medfilt, signal.medfilt2d):
        assert _raises(ValueError, fn, img.astype(cp.float16)) == "float16 type not supported"
        assert _raises(ValueError, fn, img.astype(cp.bool_)) == "bool type not supported"
        assert _raises(ValueError, fn, img.astype(cp.complex128)) == "complex types not supported"
        assert _raises(ValueError, fn, img, 4) == "Each element of kernel_size should be odd"
        assert _raises(RuntimeError, fn, img, (3, 3, 3)) == (
            "kernel_size must have length equal to input rank")
    assert _raises(ValueError, signal.medfilt2d, cp.ones(5)) == "input must be 2d"
    # (the dtype first, then the kernel size, then complex: _get_kernel_size between)
    assert _raises(ValueError, signal.medfilt, img.astype(cp.complex64), 2) == (
        "Each element of kernel_size should be odd")


def test_median_filters_values_and_warning(cp):
    import numpy
    from scipy import signal as ssig
    from gpushare.cupyx.scipy import signal
    rs = numpy.random.RandomState(0)
    x_h = rs.randint(0, 100, (7, 9)).astype(numpy.int32)
    x = cp.asarray(x_h)
    out = signal.medfilt(x, (3, 5))
    assert out.dtype == cp.int32
    numpy.testing.assert_array_equal(out.get(), ssig.medfilt(x_h, (3, 5)))
    numpy.testing.assert_array_equal(signal.medfilt2d(x.astype(cp.float32), 3).get(),
                                     ssig.medfilt2d(x_h.astype(numpy.float32), 3))
    with pytest.warns(UserWarning) as record:
        signal.medfilt(cp.arange(4.0), 5)
    assert [str(w.message) for w in record] == [
        "kernel_size exceeds volume extent: volume will be zero-padded"]


def test_upfirdn_has_only_zero_edges(cp):
    import numpy
    from scipy import signal as ssig
    from gpushare.cupyx.scipy import signal
    h, x = cp.ones(3), cp.arange(6.0)
    assert _raises(NotImplementedError, signal.upfirdn, h, x, 2, mode="symmetric") == (
        "mode='symmetric' and cval=0 not implemented.")
    assert _raises(NotImplementedError, signal.upfirdn, h, x, cval=1.5) == (
        "mode='constant' and cval=1.5 not implemented.")
    assert _raises(ValueError, signal.upfirdn, cp.ones((2, 2)), x) == (
        "h must be 1D with non-zero length")
    assert _raises(ValueError, signal.upfirdn, h, x, 0) == "Both up and down must be >= 1"
    numpy.testing.assert_allclose(signal.upfirdn(h, x, 3, 2, mode=None).get(),
                                  ssig.upfirdn(numpy.ones(3), numpy.arange(6.0), 3, 2))
