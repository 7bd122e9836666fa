"""CuPy 14.2's behaviour where its own tests beyond the conformance kit found gpushare
apart (``cupyx_tests/scipy_tests``...), through a real server: ``linalg.khatri_rao``
run on whatever arrays it is given (NumPy's in, NumPy's out), ``linalg.expm`` of an
empty array."""
from __future__ import annotations

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


def _linalg():
    from gpushare.cupyx.scipy import linalg
    return linalg


# --- khatri_rao (cupyx/scipy/linalg/_matfuncs.py) ----------------------------------------

def test_khatri_rao_of_numpy_arrays_is_computed_as_they_come(cp):
    # (CuPy's khatri_rao indexes and multiplies its operands as given: NumPy arrays make a
    # NumPy array; gpushare sent them to the server: "Unsupported type numpy.ndarray")
    a = numpy.array([[1, 2], [3, 4]], dtype=numpy.int8)
    b = numpy.array([[5, 6], [7, 8]], dtype=numpy.int8)
    got = _linalg().khatri_rao(a, b)
    assert type(got) is numpy.ndarray and got.dtype == numpy.int8
    assert got.tolist() == [[5, 12], [7, 16], [15, 24], [21, 32]]
    got = _linalg().khatri_rao(cp.asarray(a), cp.asarray(b))
    assert isinstance(got, cp.ndarray) and got.dtype == numpy.int8
    assert got.tolist() == [[5, 12], [7, 16], [15, 24], [21, 32]]


def test_khatri_rao_checks_as_cupy(cp):
    # (_util._assert_2d: LinAlgError naming the dimensions; then the columns)
    kr = _linalg().khatri_rao
    _raises(numpy.linalg.LinAlgError,
            "1-dimensional array given. Array must be two-dimensional",
            lambda: kr(numpy.ones(3), numpy.ones((2, 3))))
    _raises(numpy.linalg.LinAlgError,
            "1-dimensional array given. Array must be two-dimensional",
            lambda: kr(cp.ones((2, 3)), cp.ones(3)))
    _raises(ValueError, "The number of columns for both arrays should be equal.",
            lambda: kr(numpy.ones((2, 3)), numpy.ones((2, 2))))


# --- expm (cupyx/scipy/linalg/_matfuncs.py) ------------------------------------------------

def test_expm_of_an_empty_array_is_an_empty_square_cupy_array(cp):
    # (CuPy: `if a.size == 0: return cupy.zeros((0, 0), dtype=a.dtype)` before anything
    # else, for a NumPy array too; gpushare refused the NumPy array, and SciPy's expm
    # refused a (0, 3) array as not square)
    expm = _linalg().expm
    for a in (numpy.zeros((0, 0), numpy.float32), cp.zeros((0, 3)),
              cp.zeros((0, 0), cp.complex64)):
        got = expm(a)
        assert isinstance(got, cp.ndarray)
        assert got.shape == (0, 0) and got.dtype == a.dtype
    # (a non-empty NumPy array reaches CuPy's ufuncs: their TypeError)
    _raises(TypeError, "Unsupported type <class 'numpy.ndarray'>",
            lambda: expm(numpy.ones((2, 2))))
    got = expm(cp.zeros((2, 2)))  # (CuPy's Pade port: its solve may round the last bit)
    assert numpy.allclose(got.get(), [[1.0, 0.0], [0.0, 1.0]], rtol=1e-15, atol=0)


# --- served objects' data attributes (cupyx/scipy/interpolate: Python objects) --------------

def test_served_interpolators_data_attributes_are_writable(cp):
    # (CuPy's interp1d has a fill_value setter, "backwards compat: fill_value is a public
    # writeable attribute" in its tests; BSpline.extrapolate and
    # RegularGridInterpolator.fill_value are plain attributes that its methods read at
    # each call; gpushare's proxies refused any assignment: AttributeError)
    from gpushare.cupyx.scipy import interpolate
    x = cp.arange(10.0)
    y = x * 2
    it = interpolate.interp1d(x, y, fill_value=123.0, bounds_error=False)
    assert it.fill_value == 123.0
    it.fill_value = 321.0
    assert it.fill_value == 321.0
    assert it(cp.array([20.0])).tolist() == [321.0]
    b = interpolate.make_interp_spline(x, y)
    assert b.extrapolate is True
    b.extrapolate = "periodic"
    assert b.extrapolate == "periodic"
    rgi = interpolate.RegularGridInterpolator((x,), y, bounds_error=False)
    rgi.fill_value = 5.0
    assert rgi.fill_value == 5.0
    assert rgi(cp.array([[30.0]])).tolist() == [5.0]


# --- signal.firls (cupyx/scipy/signal/_fir_filter_design.py) ------------------------------

def test_firls_takes_weight_by_position(cp):
    # (CuPy: firls(numtaps, bands, desired, weight=None, fs=2), weight positional;
    # SciPy 1.17's weight is keyword-only: the CPU backend raised "firls() takes 3
    # positional arguments but 4 were given")
    from gpushare.cupyx.scipy import signal
    bands, desired = [0, 0.5, 0.6, 1], [1, 1, 0, 0]
    a = signal.firls(11, bands, desired, [1, 2])
    b = signal.firls(11, bands, desired, weight=[1, 2])
    assert isinstance(a, cp.ndarray) and a.dtype == numpy.float64 and a.shape == (11,)
    assert (a == b).all()
    _raises(ValueError, "weight must be the same size as the number of band pairs (1).",
            lambda: signal.firls(11, [0.1, 0.2], [0, 0], [1, 2]))


# --- signal.hilbert2 (cupyx/scipy/signal/_signaltools.py) ---------------------------------

def test_hilbert2_refuses_more_than_two_dimensions(cp):
    # (CuPy: "x must be 2-D." for x.ndim > 2; SciPy 1.17 transforms the last two axes)
    from gpushare.cupyx.scipy import signal
    _raises(ValueError, "x must be 2-D.",
            lambda: signal.hilbert2(cp.arange(24.0).reshape(2, 3, 4)))
    _raises(ValueError, "x must be real.", lambda: signal.hilbert2(cp.array([[1.0 + 0j]])))
    _raises(ValueError, "N must be positive.",
            lambda: signal.hilbert2(cp.ones((2, 2)), N=0))
    _raises(ValueError,
            "When given as a tuple, N must hold exactly two positive integers",
            lambda: signal.hilbert2(cp.ones((2, 2)), N=(2,)))
    got = signal.hilbert2(cp.ones((4, 4)))
    assert isinstance(got, cp.ndarray) and got.shape == (4, 4)
