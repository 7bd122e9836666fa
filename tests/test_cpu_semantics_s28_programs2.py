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
