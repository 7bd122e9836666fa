"""The CPU backend's indexing and assignment where CuPy 14.2's differ from NumPy's,
through a real server: advanced indexing's new C-contiguous results, CuPy's reading of
index entries and its words for bad ones (``_routines_indexing.pyx``:
``_prepare_slice_list``, ``_view_getitem``, ``internal.complete_slice``), and
``__setitem__``'s two paths (``_scatter_op``: ``fill`` for a host value under basic
indexing, ``broadcast_to`` of the value under advanced indexing)."""
from __future__ import annotations

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


# --- getitem ------------------------------------------------------------------------------

def test_advanced_indexing_gives_a_new_c_contiguous_array(cp):
    a = cp.arange(12).reshape(3, 4)
    # (NumPy's answer is a transposed view of another array: strides (8, 16))
    got = a[1:3, [0, 2]]
    assert got.tolist() == [[4, 6], [8, 10]]
    assert got.strides == (16, 8) and got.flags.c_contiguous and got.flags.owndata
    b = cp.arange(24).reshape(2, 3, 4)
    got = b[:, [1], :]
    assert got.strides == (32, 32, 8) and got.flags.owndata  # (CuPy's take: fresh strides)
    # the server's array is the layout the client inferred: a view of another dtype works
    got = b[:, :, cp.array([[0, 1], [2, 3]])]
    assert got.view(cp.int32).shape == (2, 3, 2, 4)
    assert got.ravel().tolist() == b.get()[:, :, [[0, 1], [2, 3]]].ravel().tolist()


def test_index_entries_read_as_cupy_reads_them(cp):
    a = cp.arange(12).reshape(3, 4)
    # a float scalar is ``int(s)``; a float slice bound ``int(x)`` (no __index__)
    assert a[1.0].tolist() == [4, 5, 6, 7]
    assert a[2.7, 1.2].tolist() == 9
    assert a[1.5:].tolist() == [[4, 5, 6, 7], [8, 9, 10, 11]]
    assert a[:, numpy.float64(3.9):].tolist() == [[3], [7], [11]]
    _raises(ValueError, "invalid literal for int() with base 10: 'a'", lambda: a["a"])
    _raises(TypeError, "slice.start must be int or None or have __index__ method: "
            "slice((0, 0), None, None)", lambda: a[(0, 0):])
    _raises(ValueError, "Slice step must be nonzero.", lambda: a[[0], ::0])


def test_index_errors_in_cupys_words(cp):
    a = cp.arange(12).reshape(3, 4)
    _raises(IndexError, "boolean index did not match indexed array along dimension 0; "
            "dimension is 3 but corresponding boolean dimension is 2",
            lambda: a[cp.array([True, False])])
    _raises(IndexError, "boolean index did not match indexed array along dimension 1; "
            "dimension is 4 but corresponding boolean dimension is 5",
            lambda: a[cp.ones((3, 5), bool)])
    _raises(IndexError, "arrays used as indices must be of integer or boolean type. "
            "(actual: <class 'numpy.float64'>)", lambda: a[cp.array([1.0])])
    _raises(IndexError, "arrays used as indices must be of integer or boolean type. "
            "(actual: <class 'numpy.float64'>)", lambda: a[[1.0, 2.0]])
    _raises(IndexError, "Index 9 is out of bounds for axis 1 with size 4", lambda: a[[0], 9])
    # host arrays ``core.array`` cannot take: its ValueError made an IndexError
    _raises(IndexError, "arrays used as indices must be of integer or boolean type "
            "(actual: <class 'numpy.object_'>)", lambda: a[numpy.array([1, None], object)])
    _raises(IndexError, "arrays used as indices must be of integer or boolean type "
            "(actual: <class 'numpy.str_'>)", lambda: a[numpy.array(["a"])])
    # index arrays that do not broadcast: ``internal._broadcast_shapes``' ValueError
    # (a mask counts as its nonzero's indices), where NumPy's is an IndexError
    for key in ((cp.array([0, 1]), cp.array([0, 1, 2])), ([0, 1], [0, 1, 2]),
                (cp.array([True, False, True]), cp.array([0, 1, 2]))):
        _raises(ValueError, "operands could not be broadcast together with shapes(2,) (3,)",
                lambda: a[key])
    _raises(ValueError, "operands could not be broadcast together with shapes(2,) (3,)",
            lambda: a.__setitem__((cp.array([0, 1]), cp.array([0, 1, 2])), 1))
    assert a[cp.array([True, False, True]), cp.array([0, 1])].tolist() == [0, 9]
    _raises(ValueError, "Slice step must be nonzero.", lambda: a[::0])
    # index arrays into an empty axis: ``_take``'s refusal, unless nothing is taken
    _raises(IndexError, "cannot do a non-empty take from an empty axes.",
            lambda: cp.zeros((0, 3))[cp.array([0])])
    _raises(IndexError, "cannot do a non-empty take from an empty axes.",
            lambda: cp.zeros((2, 0))[:, [1]])
    assert cp.zeros((0, 0))[:, cp.array([1])].shape == (0, 1)
    # a zero-length mask dimension matches any (``_check_mask_shape``): nothing selected
    got = a[cp.zeros(0, bool)]
    assert got.shape == (0, 4)


# --- setitem ------------------------------------------------------------------------------

def test_basic_assignment_of_a_host_value_is_fill(cp):
    a = cp.zeros((3, 4), cp.int64)
    for value in ([1, 2, 3, 4], numpy.arange(4), numpy.ones((3, 4)), (7,)):
        _raises(ValueError, "non-scalar numpy.ndarray cannot be used for fill",
                lambda: a.__setitem__(slice(None), value))
    # converted by numpy.asarray(value, dtype) on the host: a NumPy float scalar is a C cast
    a[0] = numpy.float32(3e9)
    a[1] = numpy.array(2.5)
    assert a[0].tolist() == [3000000000] * 4 and a[1].tolist() == [2] * 4


def test_assignment_broadcasts_in_cupys_words(cp):
    a = cp.arange(12.0).reshape(3, 4)
    _raises(ValueError, "operands could not be broadcast together with shapes (3,) (3, 4)",
            lambda: a.__setitem__(slice(None), cp.ones(3)))
    _raises(ValueError, "Out shape is mismatched",
            lambda: cp.zeros(()).__setitem__(Ellipsis, cp.ones(2)))
    _raises(ValueError, "operands could not be broadcast together with shape (3, 4) and "
            "requested shape (2, 4)", lambda: a.__setitem__(cp.array([0, 1]), cp.ones((3, 4))))
    _raises(ValueError, "operands could not be broadcast together with shape (4,) and "
            "requested shape (6,)", lambda: a.__setitem__(a < 6, cp.ones(4)))
    # a host value is not squeezed of its leading ones (a device one is)
    _raises(ValueError, "input operand has more dimensions than allowed by the axis "
            "remapping", lambda: a.__setitem__([0, 1], numpy.ones((1, 2, 4))))
    a[[0, 1]] = cp.ones((1, 2, 4))
    a[0] = cp.full((1, 1, 4), 2.0)
    assert a[:2].sum().tolist() == 12.0
    # a mask selecting nothing assigns nothing, whatever the value
    a[a > 100] = cp.ones(5)
    a[[1, 2]] = [[5], [6]]  # (advanced indexing: a host value goes through cupy.array)
    assert a[:, 0].tolist() == [2.0, 5.0, 6.0] and a[2, 3].tolist() == 6.0


# --- scatter ops --------------------------------------------------------------------------

def test_maximum_at_through_a_mask_is_cudas_fmax(cp):
    # ``_scatter_max_mask_kernel``: ``max(in0, in1)``, which CUDA computes with fmax
    a = cp.array([0.0, cp.nan, 2.0, -1.0])
    cp.maximum.at(a, a != 2.0, cp.array([cp.nan, 1.0, 5.0]))
    assert a.tolist() == [0.0, 1.0, 2.0, 5.0]
    b = cp.array([0.0, cp.nan], cp.float16)
    cp.minimum.at(b, cp.array([True, True]), cp.array([cp.nan, -1.0], cp.float16))
    assert b.tolist() == [0.0, -1.0]
    # without an index array it is cupy.maximum itself: NaN propagates
    c = cp.zeros(2)
    cp.maximum.at(c, slice(None), cp.nan)
    assert numpy.isnan(c.get()).all()


# --- nonzero / argwhere -------------------------------------------------------------------

def test_argwhere_is_a_new_c_contiguous_array(cp):
    # ``_ndarray_argwhere``: a (count, ndim) int64 array of its own (NumPy's argwhere
    # is a transposed view)
    got = cp.argwhere(cp.array([[0, 1], [2, 0]]))
    assert got.tolist() == [[0, 1], [1, 0]]
    assert got.strides == (16, 8) and got.flags.owndata
    assert cp.argwhere(cp.arange(4)).strides == (8, 8)
    assert cp.argwhere(cp.array(5)).strides == (0, 0)
    cols = cp.zeros((0, 3)).nonzero()
    assert [c.strides for c in cols] == [(0,), (0,)]
    _raises(TypeError, "'a' must be a cupy.ndarray object, not <class 'numpy.ndarray'>.",
            lambda: cp.argwhere(numpy.arange(3)))
    _raises(ValueError, "Calling nonzero on 0d arrays is not allowed. "
            "Use cp.atleast_1d(scalar).nonzero() instead.", lambda: cp.array(3).nonzero())


# --- take / putmask / diagonal ------------------------------------------------------------

def test_take_checks_out_in_cupys_words(cp):
    a = cp.arange(12).reshape(3, 4)
    _raises(TypeError, "Output dtype mismatch",
            lambda: cp.take(a, cp.array([0, 1]), axis=0, out=cp.empty((2, 4))))
    _raises(ValueError, "Output shape mismatch",
            lambda: a.take(cp.array([0, 1]), axis=1, out=cp.empty((2, 4), a.dtype)))
    out = cp.empty((3, 2), a.dtype)
    assert a.take(cp.array([0, 5]), axis=1, out=out) is out
    assert out.tolist() == [[0, 1], [4, 5], [8, 9]]


def test_take_along_axis_is_cupys_fancy_index(cp):
    a = cp.arange(12).reshape(3, 4)
    # indices and the other axes' aranges that do not broadcast: getitem's ValueError
    _raises(ValueError, "operands could not be broadcast together with shapes(3, 1) (2, 1)",
            lambda: cp.take_along_axis(a, cp.array([[0], [1]]), 1))
    got = cp.take_along_axis(a.T, cp.array([[1, 2, 0]]), 0)
    assert got.tolist() == [[1, 6, 8]] and got.strides == (24, 8)
    assert cp.take_along_axis(a, cp.array([[0], [5], [-1]]), 1).tolist() == [[0], [5], [11]]

def test_choose_is_cupys(cp):
    # (``_ndarray_choose``: ``choices.shape[0]``, so a list is refused)
    _raises(AttributeError, "'list' object has no attribute 'shape'",
            lambda: cp.choose(cp.array([0, 1]), [cp.zeros(2), cp.ones(2)]))
    # the kernels read ``a`` with static_cast: a float ``a`` is truncated
    got = cp.choose(cp.array([0.7, 1.2]), cp.arange(4).reshape(2, 2))
    assert got.tolist() == [0, 3] and got.dtype == numpy.int64
    _raises(ValueError, "clipmode not understood",
            lambda: cp.array([0, 1]).choose(cp.zeros((2, 2)), mode="unknow"))
    _raises(ValueError, "operands could not be broadcast together with shapes (1, 2) "
            "(3, 5, 4)", lambda: cp.array([0, 1]).choose(cp.zeros((3, 5, 4))))
    c = cp.arange(12.0).reshape(3, 4)
    assert cp.array([0, 3, -1, 5]).choose(c, mode="wrap").tolist() == [0, 1, 10, 11]
    assert cp.array([0, 3, -1, 5]).choose(c, mode="clip").tolist() == [0, 9, 2, 11]

def test_putmask_is_cupys(cp):
    a = cp.arange(6)
    _raises(ValueError, "mask and data must be the same size",
            lambda: cp.putmask(a, cp.ones((2, 3), bool), 1))  # (shapes compared)
    _raises(TypeError, "Cannot cast array data from float64 to int64 according to the rule "
            "'safe'", lambda: cp.putmask(a, a > 2, cp.array([1.5])))
    _raises(TypeError, "`values` should be of type cupy.ndarray",
            lambda: cp.putmask(a, a > 2, numpy.array([1, 2])))
    _raises(TypeError, "`mask` should be of type cupy.ndarray",
            lambda: cp.putmask(a, numpy.ones(6, bool), 1))
    cp.putmask(a, a > 2, cp.array([-33, -44], cp.int8))
    assert a.tolist() == [0, 1, 2, -44, -33, -44]


def test_diagonal_is_cupys(cp):
    b = cp.arange(24).reshape(2, 3, 4)
    _raises(numpy.exceptions.AxisError, "axis1(=0) and axis2(=1) must be within range "
            "(ndim=1)", lambda: cp.arange(3).diagonal())
    _raises(numpy.exceptions.AxisError, "axis1(=3) and axis2(=0) must be within range "
            "(ndim=3)", lambda: cp.diagonal(b, 0, 3, 0))
    _raises(ValueError, "repeated axis in transpose", lambda: b.diagonal(0, 1, 1))
    empty = b.diagonal(5)  # (a new array, not a view)
    assert empty.shape == (4, 0) and empty.strides == (0, 0) and empty.flags.owndata
    view = b.diagonal(-1, 2, 0)
    assert view.tolist() == [[1, 14], [5, 18], [9, 22]] and view.strides == (32, 104)
    view[0, 0] = -1  # (writable, as CuPy's views are)
    assert int(b[0, 0, 1]) == -1


def test_where_of_a_condition_alone_is_nonzero(cp):
    # ``cupy.where(c)`` is ``nonzero(c)``: CuPy's 0-d refusal, columns of one array
    _raises(ValueError, "Calling nonzero on 0d arrays is not allowed. "
            "Use cp.atleast_1d(scalar).nonzero() instead.", lambda: cp.where(cp.array(0)))
    rows, cols = cp.where(cp.zeros((0, 3)))
    assert rows.strides == cols.strides == (0,)


# --- a scalar assigned: raised or warned by the statement itself ---------------------------

def test_scalar_assignment_errors_come_from_the_statement(cp):
    # (``fill``'s numpy.asarray(value, dtype) on the host; the call waits for it)
    a = cp.zeros(3, cp.int32)
    for key in (0, slice(None), cp.array([0])):
        with pytest.raises(TypeError) as info:
            a[key] = 1 + 2j
        assert "[gpushare]" not in str(info.value)
        with pytest.raises(ValueError) as info:
            a[key] = float("nan")
        assert str(info.value) == "cannot convert float NaN to integer"
    with pytest.raises(OverflowError) as info:
        cp.zeros(2, cp.uint8)[0] = -1.0
    assert str(info.value) == "Python integer -1 out of bounds for uint8"
    with pytest.warns(RuntimeWarning, match="invalid value encountered in cast"):
        a[1] = numpy.float64("nan")
    with pytest.warns(numpy.exceptions.ComplexWarning):
        a[...] = numpy.complex64(2 + 1j)
    with pytest.raises(TypeError) as info:
        cp.zeros(2).fill(1j)
    assert "[gpushare]" not in str(info.value)
    assert a.tolist() == [2, 2, 2]
