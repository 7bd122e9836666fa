"""cupyx.scipy.signal calls that CuPy's own tests found different from CuPy 14.2:
``sweep_poly`` of a ``cupy.poly1d`` as a session's first call (encoding the poly1d reads
its trimmed coefficients from the server, a call of its own, which took the outer call's
number: the outer call returned None; ``Session._renumbered``) and
``welch``/``csd`` with a Python function as ``detrend`` (CuPy's Python, run on the
client over device arrays)."""
from __future__ import annotations

import numpy
import pytest
import scipy.signal

pytestmark = pytest.mark.timeout(240)


@pytest.mark.parametrize("coeffs", [[1.0, 0.0, 1.0], [2.0], [-1.0, 10.0], [0.0, 1.0, -2.0]])
def test_sweep_poly_of_poly1d_first_call(cp, coeffs):
    from gpushare.cupyx.scipy import signal
    p = cp.poly1d(cp.asarray(coeffs))  # untrimmed: reading coeffs waits for the server
    t = cp.linspace(0, 3.0, 1000)
    got = signal.sweep_poly(t, p)
    assert got is not None and got.shape == (1000,) and got.dtype == numpy.float64
    want = scipy.signal.sweep_poly(numpy.linspace(0, 3.0, 1000), numpy.poly1d(coeffs))
    numpy.testing.assert_allclose(got.get(), want, rtol=1e-7, atol=1e-7)
    # the session still answers in order afterwards
    assert float(cp.arange(3).sum()) == 3.0


@pytest.mark.parametrize("fn", ["welch", "csd"])
def test_callable_detrend_identity_matches_false(cp, fn):
    from gpushare.cupyx.scipy import signal
    x = cp.arange(10, dtype=cp.float64) + 0.04
    args = (x,) if fn == "welch" else (x, x)
    f1, p1 = getattr(signal, fn)(*args, nperseg=10, detrend=False)
    f2, p2 = getattr(signal, fn)(*args, nperseg=10, detrend=lambda s: s)
    xn = numpy.arange(10, dtype=numpy.float64) + 0.04
    nargs = (xn,) if fn == "welch" else (xn, xn)
    fw, pw = getattr(scipy.signal, fn)(*nargs, nperseg=10, detrend=lambda s: s)
    numpy.testing.assert_allclose(f2.get(), fw)
    numpy.testing.assert_allclose(p2.get(), pw, rtol=1e-6, atol=1e-12)
    numpy.testing.assert_allclose(p1.get(), p2.get(), rtol=1e-12)
    assert p2.dtype == p1.dtype


@pytest.mark.parametrize("fn", ["welch", "csd"])
@pytest.mark.parametrize("axis", [-1, 0])
def test_callable_detrend_nd(cp, fn, axis):
    from gpushare.cupyx.scipy import signal
    xn = (numpy.arange(40, dtype=numpy.float64) + 0.04).reshape((2, 2, 10))
    xn = xn ** 1.5
    if axis == 0:
        xn = numpy.moveaxis(xn, -1, 0).copy()
    x = cp.asarray(xn)
    calls = []

    def det(seg):
        calls.append(type(seg).__module__)
        return signal.detrend(seg, type="l", axis=axis)

    args = (x,) if fn == "welch" else (x, x)
    f, p = getattr(signal, fn)(*args, nperseg=10, axis=axis, detrend=det)
    assert calls and all(m.startswith("cupy") for m in calls)  # device segments
    # CuPy calls ``detrend`` on the segments with their data axis moved to ``axis``:
    # the same spectra as along the last axis (SciPy's own axis=0 path differs)
    base = numpy.moveaxis(xn, 0, -1) if axis == 0 else xn
    nargs = (base,) if fn == "welch" else (base, base)
    fw, pw = getattr(scipy.signal, fn)(
        *nargs, nperseg=10, detrend=lambda s: scipy.signal.detrend(s, type="l"))
    if axis == 0:
        pw = numpy.moveaxis(pw, -1, 0)
    assert p.shape == pw.shape
    numpy.testing.assert_allclose(f.get(), fw)
    numpy.testing.assert_allclose(p.get(), pw, rtol=1e-5, atol=1e-5)


def test_callable_detrend_median_and_errors(cp):
    from gpushare.cupyx.scipy import signal
    rng = numpy.random.RandomState(0)
    xn, yn = rng.rand(64), rng.rand(64)
    f, p = signal.welch(cp.asarray(xn), nperseg=16, average="median",
                        detrend=lambda s: s - s.mean(axis=-1, keepdims=True))
    fw, pw = scipy.signal.welch(xn, nperseg=16, average="median",
                                detrend=lambda s: s - s.mean(axis=-1, keepdims=True))
    assert p.dtype == numpy.float64
    numpy.testing.assert_allclose(p.get(), pw, rtol=1e-6, atol=1e-9)
    f, p = signal.csd(cp.asarray(xn), cp.asarray(yn), nperseg=16,
                      detrend=lambda s: s - s.mean(axis=-1, keepdims=True))
    fw, pw = scipy.signal.csd(xn, yn, nperseg=16,
                              detrend=lambda s: s - s.mean(axis=-1, keepdims=True))
    assert p.dtype == numpy.complex128
    numpy.testing.assert_allclose(p.get(), pw, rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="average must be"):
        signal.csd(cp.asarray(xn), cp.asarray(yn), nperseg=16, average="x",
                   detrend=lambda s: s)
    with pytest.raises(ValueError, match="noverlap must be less than nperseg"):
        signal.welch(cp.asarray(xn), nperseg=16, noverlap=16, detrend=lambda s: s)


def test_a_warning_made_an_error_ends_the_call_and_nothing_surfaces_later(cp):
    """A call that warns and then fails on the server, in a program that makes
    warnings errors: the warning is raised at the call, as in CuPy (where nothing after
    it ran), and the failure that followed it there is not raised later at an unrelated
    call (it was, at the next call that waited)."""
    import warnings
    from gpushare.cupyx.scipy import signal
    x = cp.arange(100.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="nperseg"):
            signal.welch(x, nperseg=300, noverlap=400)   # (then: noverlap's ValueError)
    assert float(cp.arange(3).sum()) == 3.0
    with pytest.raises(ValueError, match="noverlap"):     # (warnings not errors: raised)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            signal.welch(x, nperseg=300, noverlap=400)
    assert float(cp.arange(4).sum()) == 6.0
