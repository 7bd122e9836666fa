"""Small CuPy-fidelity items earlier sessions found and left, each read in CuPy 14.2's
source: ``where`` given a host array or a list, ``average(returned=True)``'s NumPy
scalar, ..."""
from __future__ import annotations

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


# --- where (cupy/_sorting/search.py: where, nonzero; cupy/_util.pyx: check_array) --------

def test_where_of_one_host_array_is_nonzeros_check(cp):
    # (``where(condition)`` is ``nonzero(condition)``: ``_util.check_array(a, 'a')``)
    _raises(TypeError, "'a' must be a cupy.ndarray object, not <class 'numpy.ndarray'>.",
            lambda: cp.where(numpy.array([1, 0, 1])))
    _raises(TypeError, "'a' must be a cupy.ndarray object, not <class 'list'>.",
            lambda: cp.where([1, 0, 1]))
    assert cp.where(cp.array([1, 0, 1]))[0].tolist() == [0, 2]


def test_where_of_three_reads_condition_astype(cp):
    # (``_where_ufunc(condition.astype('?', copy=False), x, y)``: a list or a Python bool
    # has no ``astype``; a host array reaches the ufunc, which refuses it)
    x = cp.arange(3)
    _raises(AttributeError, "'bool' object has no attribute 'astype'",
            lambda: cp.where(True, x, 0))
    _raises(AttributeError, "'list' object has no attribute 'astype'",
            lambda: cp.where([True, False, True], x, 0))
    _raises(TypeError, "Unsupported type <class 'numpy.ndarray'>",
            lambda: cp.where(numpy.array([True, False, True]), x, 0))
    _raises(TypeError, "Unsupported type <class 'numpy.ndarray'>",
            lambda: cp.where(x > 0, numpy.arange(3), 0))
    assert cp.where(x > 0, x, -1).tolist() == [-1, 1, 2]
    assert cp.where(numpy.True_, x, -1).tolist() == [0, 1, 2]  # (NumPy's own astype)


# --- average (cupy/_statistics/meanvar.py: average) --------------------------------------

def test_average_returned_without_weights_is_a_numpy_scalar(cp):
    # (``scl = avg.dtype.type(a.size / avg.size)``, kept where its shape is the
    # average's; broadcast into a new array otherwise)
    avg, scl = cp.average(cp.arange(4.0), returned=True)
    assert isinstance(avg, cp.ndarray) and float(avg) == 1.5
    assert type(scl) is numpy.float64 and scl == 4.0
    avg, scl = cp.average(cp.arange(4, dtype=cp.float32), returned=True)
    assert type(scl) is numpy.float32 and avg.dtype == numpy.float32
    avg, scl = cp.average(cp.arange(6.0).reshape(2, 3), axis=1, returned=True)
    assert isinstance(scl, cp.ndarray) and scl.tolist() == [3.0, 3.0]
    avg, scl = cp.average(cp.arange(4.0), returned=True, keepdims=True)
    assert isinstance(scl, cp.ndarray) and scl.shape == (1,)
    avg, scl = cp.average(cp.arange(4.0), weights=cp.ones(4), returned=True)
    assert isinstance(scl, cp.ndarray) and scl.shape == () and float(scl) == 4.0
