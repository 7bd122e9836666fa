"""The CPU backend's answers where CuPy 14.2's differ from NumPy's, in the routines of
ML and data-processing programs, through a real server: ``where`` and ``clip`` as the
ufuncs CuPy runs them as (a Python scalar packed into the loop's dtype, CuPy's
OverflowError where NumPy wraps or clips it), ``arange``'s ``start + i * step``, and
``put_along_axis``'s wrapping of index arrays."""
from __future__ import annotations

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


# --- where (cupy/_sorting/search.py: _where_ufunc; _core/_kernel.pyx, _scalar.pyx) --------

def test_where_refuses_a_python_int_out_of_the_arrays_range(cp):
    # (NumPy's where wraps 1000 into int8: [1, -24]; CuPy's CScalar packs it into the
    # '?bb->b' loop's int8 and raises)
    mask = cp.array([True, False])
    _raises(OverflowError, "Python integer 1000 out of bounds for int8",
            lambda: cp.where(mask, cp.array([1, 2], dtype=cp.int8), 1000))
    _raises(OverflowError, "Python integer -1 out of bounds for uint8",
            lambda: cp.where(mask, cp.arange(2, dtype=cp.uint8), -1))
    got = cp.where(mask, cp.array([1, 2], dtype=cp.int8), 3)
    assert got.dtype == numpy.int8 and got.tolist() == [1, 3]


def test_where_of_two_python_ints_of_different_kinds_is_float64(cp):
    # (no array but the boolean condition: the scalars are strong, uint64 and int64 meet
    # in the first loop both cast to safely, '?dd->d'; NumPy gives int64, wrapped)
    got = cp.where(cp.array([True, False]), 2 ** 63, 0)
    assert got.dtype == numpy.float64 and got.tolist() == [2.0 ** 63, 0.0]
    got = cp.where(cp.array([0.5, 0.0]), 1, 2)  # (the condition cast to bool)
    assert got.dtype == numpy.int64 and got.tolist() == [1, 2]
    _raises(ValueError, "Must provide both 'x' and 'y' or neither.",
            lambda: cp.where(cp.array([True]), 1))


# --- clip (cupy/_core/_routines_math.pyx: _ndarray_clip, _clip) ----------------------------

def test_clip_refuses_a_bound_out_of_the_arrays_range(cp):
    # (NumPy clips uint8 with -1 as a lower bound; CuPy packs -1 into the BBB->B loop)
    a = cp.arange(5, dtype=cp.uint8)
    message = "Python integer -1 out of bounds for uint8"
    _raises(OverflowError, message, lambda: cp.clip(a, -1, 3))
    _raises(OverflowError, message, lambda: a.clip(-1, 3))
    got = a.clip(None, 3)  # (a missing bound: the dtype's extreme)
    assert got.dtype == numpy.uint8 and got.tolist() == [0, 1, 2, 3, 3]


def test_clip_runs_cupys_kernel(cp):
    # in1 > in2 ? in2 : (in0 < in1 ? in1 : (in0 > in2 ? in2 : in0)): a NaN bound is
    # never taken (NumPy's clip propagates it)
    x = cp.array([0.0, 1.0, 2.0])
    assert cp.clip(x, numpy.nan, 1.0).tolist() == [0.0, 1.0, 1.0]
    assert cp.clip(x, 0.5, numpy.nan).tolist() == [0.5, 1.0, 2.0]
    assert cp.clip(cp.arange(5), 3, 1).tolist() == [1] * 5
    got = cp.clip(cp.arange(3, dtype=cp.float32), 0.5, 1)
    assert got.dtype == numpy.float32 and got.tolist() == [0.5, 1.0, 1.0]
    # no complex loop in cupy_clip
    _raises(TypeError, "Wrong type ((dtype('complex128'), dtype('int64'), dtype('int64')))"
            " of arguments for cupy_clip", lambda: cp.clip(cp.array([1 + 1j]), 0, 1))


# --- arange (cupy/_creation/ranges.py: arange, _arange_ufunc) ------------------------------

@pytest.mark.parametrize("start, stop, step", [(0.5, 3, 0.3), (10, 11, 0.05),
                                               (1, 1.3, 0.1)])
def test_arange_is_start_plus_i_times_step(cp, start, stop, step):
    got = cp.arange(start, stop, step).get()
    want = start + numpy.arange(len(got), dtype=numpy.float64) * step
    assert got.dtype == numpy.float64 and len(got) == len(numpy.arange(start, stop, step))
    assert got.tolist() == want.tolist()  # (NumPy's differ in the last bit)


def test_arange_of_small_dtypes_as_cupy(cp):
    got = cp.arange(1, 2, 0.1, dtype=cp.float32).get()
    # (the kernel's ``in0 + i * in1`` is one fused multiply-add on the GPU: its product
    # is not rounded, so element 9 is 1.8999999762, where float32 steps give 1.9000000954)
    want = (numpy.float64(numpy.float32(1)) + numpy.arange(10) * numpy.float64(
        numpy.float32(0.1))).astype(numpy.float32)
    assert got.dtype == numpy.float32 and got.tolist() == want.tolist()
    assert got.tolist() == [1.0, 1.100000023841858, 1.2000000476837158, 1.2999999523162842,
                            1.399999976158142, 1.5, 1.600000023841858, 1.7000000476837158,
                            1.7999999523162842, 1.899999976158142]
    got = cp.arange(0, 2, 0.5, dtype=cp.int32)  # (typ(0.5) is 0)
    assert got.dtype == numpy.int32 and got.tolist() == [0, 0, 0, 0]
    got = cp.arange(2, dtype=bool)
    assert got.dtype == numpy.bool_ and got.tolist() == [False, True]
    _raises(TypeError, "arange() is only supported for booleans when the result has at "
            "most length 2.", lambda: cp.arange(3, dtype=bool))


# --- put_along_axis (cupy/lib/_shape_base.py) ----------------------------------------------

def test_put_along_axis_wraps_out_of_range_indices(cp):
    # (arr[fancy index] = values: CuPy's setitem does not bounds-check, NumPy raises)
    y = cp.array([[3, 1, 2], [9, 7, 8]])
    cp.put_along_axis(y, cp.array([[4], [-1]]), 0, axis=1)
    assert y.tolist() == [[3, 0, 2], [9, 7, 0]]
    y = cp.array([[3, 1, 2], [9, 7, 8]])
    cp.put_along_axis(y, cp.array([0, 7]), -1, axis=None)  # (cupy.put: mode='wrap')
    assert y.tolist() == [[-1, -1, 2], [9, 7, 8]]
