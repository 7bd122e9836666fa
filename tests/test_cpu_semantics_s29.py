"""CuPy-fidelity items of session 29, each read in CuPy 14.2's source: ``add.reduceat``
as CuPy computes it (``_routines_indexing.pyx``: ``_add_reduceat``)."""
from __future__ import annotations

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


def _same(got, expected, dtype=None):
    numpy.testing.assert_array_equal(got.get(), numpy.asarray(expected))
    if dtype is not None:
        assert got.dtype == dtype


def test_add_reduceat_rounds_as_a_cumulative_sum_and_its_differences(cp):
    # CuPy: cumsum [1e8, 1e8, 1e8] (float32 drops each 1), then differences; NumPy sums
    # each slice: [1e8, 2]
    x = cp.asarray([1e8, 1, 1], dtype=cp.float32)
    _same(cp.add.reduceat(x, cp.asarray([0, 1])), [1e8, 0], cp.float32)
    # (through NumPy's ufunc, as CuPy's own test calls it)
    _same(numpy.add.reduceat(x, cp.asarray([0, 1])), [1e8, 0])


def test_add_reduceat_wraps_indices_past_either_end_as_take_does(cp):
    a = cp.arange(5)
    # [0, 7]: a[0] where 7 >= 5 (the mask), a.take(7) = a[2]; [-1, 2]: acc[2] - acc[-1]
    _same(cp.add.reduceat(a, [0, 7]), [0, 2])
    _same(cp.add.reduceat(a, [-1, 2]), [-9, 9])
    _same(cp.add.reduceat(a, [3, 1]), [3, 10])  # a decreasing index: the element


def test_add_reduceat_axes_dtypes_and_out(cp):
    b = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    expected = numpy.add.reduceat(numpy.arange(12, dtype=numpy.float32).reshape(3, 4),
                                  [0, 2, 1], axis=1)
    _same(cp.add.reduceat(b, [0, 2, 1], axis=-1), expected, cp.float32)
    _same(cp.add.reduceat(b, [0, 2], axis=0, dtype=cp.float64),
          [[4, 6, 8, 10], [8, 9, 10, 11]], cp.float64)
    _same(cp.add.reduceat(cp.asarray([True, True, False]), [0, 2]), [2, 0], cp.int64)
    out = cp.empty((3, 3), dtype=cp.float64)
    assert cp.add.reduceat(b, [0, 2, 1], axis=1, out=out) is out
    _same(out, expected)
    _raises(ValueError, "Out shape is mismatched",
            lambda: cp.add.reduceat(b, [0, 2], axis=1, out=cp.empty(3)))
    _raises(TypeError, "Cannot cast output operand from dtype('float32') to "
            "dtype('int32') according to the rule 'same_kind'",
            lambda: cp.add.reduceat(b, [0, 2], axis=1, out=cp.empty((3, 2), cp.int32)))
    _raises(numpy.exceptions.AxisError, "axis 2 is out of bounds for array of dimension 2",
            lambda: cp.add.reduceat(b, [0], axis=2))
    _raises(AttributeError, "'list' object has no attribute '_add_reduceat'",
            lambda: cp.add.reduceat([1, 2], [0]))
    _raises(NotImplementedError, "`cupy_multiply.reduceat` is not supported yet",
            lambda: cp.multiply.reduceat(b, [0]))
