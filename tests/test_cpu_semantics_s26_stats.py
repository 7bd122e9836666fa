"""The CPU backend's statistics, sorting and counting routines where CuPy 14.2's answers
differ from NumPy's, through a real server: ``median`` (CuPy's partition errors),
``var``/``std`` (result dtypes by the dtype asked, NaN without degrees of freedom, ``out``
cast back), ``nanvar``/``nanstd`` (the input's dtype, CuPy's per-term division)."""
from __future__ import annotations

import math

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)

nan = float("nan")


# --- median (cupy/_core/_routines_statistics.pyx: _median) -------------------------------

def test_median_axis_past_the_end_is_cupys_axis_overrun(cp):
    _raises(numpy.exceptions.AxisError, "Axis overrun",
            lambda: cp.median(cp.ones((2, 2)), axis=2))
    _raises(numpy.exceptions.AxisError, "Axis overrun",
            lambda: cp.median(cp.ones((2, 2)), axis=-3))
    assert cp.median(cp.zeros((3, 0)), axis=0).shape == (0,)


def test_median_values_and_layout_as_cupy(cp):
    x = cp.array([[1., nan, 3.], [4., 5., 6.]])
    assert numpy.array_equal(cp.median(x, axis=1).get(), [nan, 5.0], equal_nan=True)
    got = cp.median(cp.arange(24.).reshape(2, 3, 4), axis=(0, 2), keepdims=True)
    assert got.tolist() == [[[7.5], [11.5], [15.5]]]
    assert got.strides == (24, 8, 8)  # (CuPy's reshape of its C-contiguous result)
    got = cp.median(cp.array([1, 2], dtype=cp.int8))
    assert got.dtype == numpy.float64 and float(got) == 1.5
    _raises(TypeError, "Argument 'a' has incorrect type (expected "
            "cupy._core.core._ndarray_base, got list)", lambda: cp.median([1.0, 2.0]))


# --- var / std (_routines_statistics.pyx: _var, _std) ------------------------------------

def test_var_dtype_is_cupys_kernel_choice(cp):
    # (dtype=int32: CuPy's float64 kernel; NumPy: an int32 answer)
    got = cp.var(cp.arange(5), dtype=cp.int32)
    assert got.dtype == numpy.float64 and float(got) == 2.0
    # (the mean in the array's own dtype: int64 1.5 -> 1, so ((1 + 0 + 1 + 4) / 4)
    assert float(cp.var(cp.arange(4), dtype=cp.int32)) == 1.5
    got = cp.var(cp.array([1 + 1j, 2j]), dtype=cp.complex128)
    assert got.dtype == numpy.float64 and float(got) == 0.5
    got = cp.arange(4.0).var(dtype=cp.float32)
    assert got.dtype == numpy.float32 and float(got) == 1.25
    got = cp.std(cp.array([1 + 1j, 2j]), dtype=cp.complex128)  # (sqrt with dtype=)
    assert got.dtype == numpy.complex128 and complex(got) == complex(math.sqrt(0.5))


def test_var_without_degrees_of_freedom_is_nan(cp):
    # (CuPy's alpha is NaN when items - ddof <= 0; NumPy divides by 0: inf)
    for fn in (cp.var, cp.std):
        assert math.isnan(float(fn(cp.array([1., 2.]), ddof=2)))
        assert math.isnan(float(fn(cp.array([1., 2.]), ddof=3)))
    got = cp.array([[1., 2.], [3., 5.]]).var(axis=1, ddof=2)
    assert numpy.isnan(got.get()).all()


def test_var_with_out_returns_out_cast_to_the_result_dtype(cp):
    out = cp.empty((), dtype=cp.float32)
    got = cp.var(cp.array([1., 2., 4.]), out=out)
    # (``out.astype(dtype_out, copy=False)``: a float64 copy of the float32 sum)
    assert got.dtype == numpy.float64
    assert float(got) == float(numpy.float32(14 / 9)) and float(out) == float(got)


# --- nanvar / nanstd (_routines_statistics.pyx: _nanvar) ---------------------------------

def test_nanvar_keeps_the_input_dtype(cp):
    x = cp.array([[1., nan, 3.], [4., 5., 6.]], dtype=cp.float32)
    got = cp.nanvar(x, dtype=cp.float64)  # (``_nanvar_core``: 'S out')
    assert got.dtype == numpy.float32
    assert float(got) == pytest.approx(2.96, rel=1e-6)
    got = cp.nanstd(x, axis=1, dtype=cp.float64)  # (sqrt(float32 var, dtype=float64))
    assert got.dtype == numpy.float64
    got = cp.nanvar(cp.array([1 + 1j, nan, 2j], dtype=cp.complex64))
    assert got.dtype == numpy.float32 and float(got) == 0.5


def test_nanvar_divides_each_term_by_the_degrees_of_freedom(cp):
    # (max(count - ddof, 0) == 0: each term x / 0, inf where x differs from the mean;
    # a NaN's term 0 / 0; NumPy gives NaN for all)
    assert math.isinf(float(cp.nanvar(cp.array([1., 2.]), ddof=2)))
    assert math.isnan(float(cp.nanvar(cp.array([1., 2., nan]), ddof=2)))
    assert math.isnan(float(cp.nanvar(cp.array([1., 1.]), ddof=2)))
    got = cp.nanvar(cp.array([[1., 2.], [3., nan]]), axis=1, ddof=1)
    assert math.isnan(float(got[1])) and float(got[0]) == 0.5


# --- average (cupy/_statistics/meanvar.py) -------------------------------------------------

def test_average_weights_errors_are_cupys(cp):
    a = cp.array([[3., 1., 2.], [0., 5., 4.]])
    _raises(ValueError, "Length of weights not compatible with specified axis.",
            lambda: cp.average(a, axis=1, weights=cp.array([1., 2.])))
    _raises(TypeError, "1D weights expected when shapes of a and weights differ.",
            lambda: cp.average(a, axis=1, weights=cp.ones((1, 3))))
    _raises(TypeError, "Axis must be specified when shapes of a and weights differ.",
            lambda: cp.average(a, weights=cp.ones(3)))
    avg, scl = cp.average(a, axis=1, weights=cp.array([1, 2, 3]), returned=True)
    assert avg.tolist() == pytest.approx([11 / 6, 22 / 6]) and scl.tolist() == [6.0, 6.0]


# --- cov / corrcoef (cupy/_statistics/correlation.py) --------------------------------------

def test_cov_checks_its_weights_as_cupy(cp):
    a = cp.array([[1., 2., 4.], [2., 1., 0.5]])
    for bad in (numpy.array([1, 2, 1]), [1, 2, 1], 2):
        _raises(TypeError, "fweights must be a cupy.ndarray",
                lambda bad=bad: cp.cov(a, fweights=bad))
    _raises(TypeError, "aweights must be a cupy.ndarray",
            lambda: cp.cov(a, aweights=[1., 2., 1.]))
    # (CuPy checks the dtype, not the values: float weights are refused even whole)
    _raises(TypeError, "fweights must be integer",
            lambda: cp.cov(a, fweights=cp.array([1., 2., 1.])))
    _raises(ValueError, "Input must be <= 2-d", lambda: cp.cov(cp.zeros((2, 2, 2))))
    _raises(ValueError, "y must be <= 2-d", lambda: cp.cov(a, cp.zeros((1, 1, 3))))
    _raises(AttributeError, "'list' object has no attribute 'ndim'",
            lambda: cp.cov([[1., 2.], [2., 1.]]))
    # (no value checks "for performance reasons": a negative aweight is taken)
    got = cp.cov(a, aweights=cp.array([0.5, 2., 2.]))
    assert got.shape == (2, 2)


def test_cov_with_weights_centres_on_the_plain_mean_as_cupy(cp):
    """CuPy's cov subtracts ``X.mean(axis=1)``, not the weighted average NumPy uses."""
    x = numpy.array([[1., 2., 4.], [2., 1., 0.5]])
    f = numpy.array([1, 2, 1])
    d = x - x.mean(axis=1)[:, None]
    want = d.dot((d * f).T) / (f.sum() - 1)
    got = cp.cov(cp.asarray(x), fweights=cp.asarray(f)).get()
    assert numpy.allclose(got, want) and not numpy.allclose(got, numpy.cov(x, fweights=f))


def test_corrcoef_still_takes_bias_and_ddof(cp):
    a = cp.array([[1., 2., 4.], [2., 1., 0.5]])
    with pytest.warns(DeprecationWarning, match="bias and ddof have no effect"):
        got = cp.corrcoef(a, bias=1)
    assert got.shape == (2, 2) and float(got[0, 0]) == 1.0
    assert float(cp.corrcoef(cp.array([1., 2., 4.]))) == 1.0


# --- ptp, lexsort ------------------------------------------------------------------------

def test_ptp_of_booleans_is_cupys_subtract_error(cp):
    # (``_ndarray_ptp``: amax, then ``result -= amin``: CuPy's boolean subtract refusal)
    message = ("cupy boolean subtract, the `-` operator, is deprecated, use the "
               "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    b = cp.array([[True, False], [True, True]])
    _raises(TypeError, message, lambda: cp.ptp(b))
    _raises(TypeError, message, lambda: b.ptp(axis=0))
    assert int(cp.ptp(cp.array([1, 200], dtype=cp.uint8))) == 199


def test_lexsort_without_keys_is_the_identity(cp):
    # (k == 0: Thrust's ``_lexsort`` writes the sequence and sorts by no key)
    got = cp.lexsort(cp.zeros((0, 3)))
    assert got.dtype == numpy.intp and got.tolist() == [0, 1, 2]
    assert cp.lexsort(cp.zeros((0, 0))).shape == (0,)
    got = cp.lexsort(cp.array([[nan, 1., 0., nan]]))
    assert got.tolist() == [2, 1, 0, 3]


# --- unique along an axis (cupy/_manipulation/add_remove.py) -------------------------------

def test_unique_axis_sorts_rows_by_cupys_difference_test(cp):
    # (rows compared by the first nonzero item of ``left - right``: int8 wraps, so
    # [127, 0] - [-128, 0] = [-1, 0] puts 127's row first; NumPy sorts by value)
    i8 = cp.array([[-128, 0], [127, 0], [0, 1]], dtype=cp.int8)
    u, index, inverse, counts = cp.unique(i8, axis=0, return_index=True,
                                          return_inverse=True, return_counts=True)
    assert u.tolist() == [[0, 1], [127, 0], [-128, 0]]
    assert index.tolist() == [2, 1, 0] and inverse.tolist() == [2, 1, 0]
    assert counts.tolist() == [1, 1, 1]
    # (NaN never compares less: the pivot's NaN row stays first; NaN rows stay apart)
    f = cp.array([[nan, 1.], [0., 2.], [nan, 1.], [-1., 5.]])
    u, inverse = cp.unique(f, axis=0, return_inverse=True)
    assert numpy.array_equal(u.get(), [[nan, 1.], [-1., 5.], [0., 2.], [nan, 1.]],
                             equal_nan=True)
    assert inverse.tolist() == [0, 2, 3, 1]
    # (unsigned rows are compared as intp: no wrap)
    got = cp.unique(cp.array([[5, 0], [3, 0]], dtype=cp.uint8), axis=0)
    assert got.tolist() == [[3, 0], [5, 0]]


def test_unique_axis_of_booleans_is_cupys_subtract_error(cp):
    b = cp.array([[True, False], [True, False], [False, True]])
    _raises(TypeError, "cupy boolean subtract, the `-` operator, is deprecated, use the "
            "bitwise_xor, the `^` operator, or the logical_xor function instead.",
            lambda: cp.unique(b, axis=0))
    assert cp.unique(b[:1], axis=0).tolist() == [[True, False]]  # (nothing compared)
    u, counts = cp.unique(cp.array([[1, 0, 1], [2, 2, 2]]), axis=1, return_counts=True)
    assert u.tolist() == [[0, 1], [2, 2]] and counts.tolist() == [1, 2]
    assert u.strides == (8, 16)  # (CuPy's moveaxis view of its (2, 2) result)
    _raises(AttributeError, "'list' object has no attribute 'shape'",
            lambda: cp.unique([3, 1, 1]))


# --- convolve / correlate (cupy/_math/misc.py, cupy/_statistics/correlation.py) ------------

def test_convolve_checks_as_cupy(cp):
    a = cp.array([1., 2., 3., 4.])
    _raises(ValueError, "v cannot be multidimensional array",
            lambda: cp.convolve(a, cp.ones((1, 2))))
    # (only v is checked: a is raveled)
    got = cp.convolve(cp.array([[1, 2], [3, 4]]), cp.array([1, 1]))
    assert got.tolist() == [1, 3, 5, 7, 4]
    # (a float operand: ``_fft_convolve`` refuses the mode in words; an integer one:
    # ``_dot_convolve`` never assigns ``out_size``)
    _raises(ValueError, "acceptable mode flags are `valid`, `same`, or `full`.",
            lambda: cp.convolve(a, a, mode="bogus"))
    with pytest.raises(UnboundLocalError):
        cp.convolve(cp.arange(3), cp.arange(2), mode="bogus")
    # (floats: through the FFTs, as CuPy's ``_fft_convolve``, so to rounding)
    numpy.testing.assert_allclose(cp.convolve(a, cp.array([1., 0.5, 2.]), mode="same").get(),
                                  [2.5, 6.0, 9.5, 8.0], rtol=1e-13)


def test_correlate_checks_as_cupy(cp):
    a = cp.array([1., 2., 3., 4.])
    _raises(ValueError, "Array arguments cannot be empty",
            lambda: cp.correlate(a, cp.zeros(0)))
    _raises(ValueError, "object too deep for desired array",
            lambda: cp.correlate(a, cp.array(2.)))
    _raises(ValueError, "acceptable mode flags are `valid`, `same`, or `full`.",
            lambda: cp.correlate(a, a, mode="x"))
    got = cp.correlate(cp.array([1., 0.5]), a, mode="same")
    numpy.testing.assert_allclose(got.get(), [5.0, 3.5, 2.0, 0.5], rtol=1e-13, atol=1e-14)


# --- histogram (cupy/_statistics/histogram.py) ----------------------------------------------

def test_weighted_histogram_counts_a_nan_in_the_first_bin(cp):
    """``_weighted_histogram_kernel``: NaN passes ``x < bins[0] or bins[n - 1] < x`` and
    its binary search ends at bin 0; without weights CuPy's CUB histogram drops it."""
    x = cp.array([0.5, 1.5, nan, 2.0, -1.0, 1.0])
    hist, _ = cp.histogram(x, bins=cp.array([0., 1., 2.]), weights=cp.arange(6.))
    assert hist.dtype == numpy.float64 and hist.tolist() == [2.0, 9.0]
    hist, _ = cp.histogram(x, bins=2, range=(0, 2), weights=cp.ones(6, dtype=cp.int8))
    assert hist.dtype == numpy.int64 and hist.tolist() == [2, 3]
    hist, _ = cp.histogram(x, bins=2, range=(0, 2), weights=cp.ones(6), density=True)
    assert hist.tolist() == [0.4, 0.6]  # (the NaN's weight in the total too)
    hist, _ = cp.histogram(x, bins=cp.array([0., 1., 2.]))
    assert hist.tolist() == [1, 3]


# --- nanmedian (_routines_statistics.pyx: _nanmedian) -------------------------------------

def test_nanmedian_picks_from_cupys_replaced_and_sorted_rows(cp):
    # (NaN becomes finfo.max before the sort, so with +inf the stand-in is picked: the
    # mean of 1 and the largest double; NumPy: inf)
    got = cp.nanmedian(cp.array([numpy.inf, nan, 1.]))
    assert float(got) == (1 + numpy.finfo(numpy.float64).max) / 2
    # (the two middle values' mean: CuPy's float16 class adds as float, so 60000 + 60000
    # does not overflow: the GPU's 60000)
    got = cp.nanmedian(cp.array([60000, 60000, nan], dtype=cp.float16))
    assert got.dtype == numpy.float16 and float(got) == 60000.0
    x = cp.array([[1., nan, 3.], [4., 5., 6.]])
    got = cp.nanmedian(x, axis=0, keepdims=True)
    assert got.tolist() == [[2.5, 5.0, 4.5]] and got.strides == (8, 8)
    assert numpy.isnan(cp.nanmedian(cp.array([[nan, nan], [1., 2.]]), axis=1).get()[0])
    _raises(ValueError, "cannot reshape array of size 0 into shape (0, -1)",
            lambda: cp.nanmedian(cp.zeros((0, 3)), axis=1))
    assert numpy.isnan(cp.nanmedian(cp.zeros((0, 3)), axis=0).get()).all()


# --- isin / intersect1d (cupy/_logic/truth.py) ----------------------------------------------

def test_isin_is_cupys_in1d_reshaped(cp):
    a, b = cp.array([[1, 2], [3, 4]]), cp.array([2, 4, 6])
    assert cp.isin(a, b).tolist() == [[False, True], [False, True]]
    assert cp.isin(a, b, invert=True).tolist() == [[True, False], [True, False]]
    _raises(TypeError, "isin() got an unexpected keyword argument 'kind'",
            lambda: cp.isin(a, b, kind="table"))
    _raises(AttributeError, "'list' object has no attribute 'ravel'",
            lambda: cp.isin([1, 2], b))
    _raises(AttributeError, "'int' object has no attribute 'ravel'", lambda: cp.isin(a, 2))


def test_intersect1d_assume_unique_keeps_arr1s_order(cp):
    # (CuPy searches arr1's values in arr2 and keeps arr1's order; NumPy sorts)
    got = cp.intersect1d(cp.array([3, 1, 2]), cp.array([1, 3, 5]), assume_unique=True,
                         return_indices=True)
    assert [g.tolist() for g in got] == [[3, 1], [0, 1], [1, 0]]
    got = cp.intersect1d(cp.array([3, 1, 1, 2]), cp.array([1, 3, 5]), return_indices=True)
    assert [g.tolist() for g in got] == [[1, 3], [1, 0], [0, 1]]
    got = cp.intersect1d(cp.array([3, 1, 1, 2]), cp.array([1., 3., 5.]))
    assert got.dtype == numpy.float64 and got.tolist() == [1.0, 3.0]


def test_union_and_setxor_take_cupy_arrays_only(cp):
    # (``cupy.concatenate((a, b), axis=None)``: ``ravel()`` first, then
    # ``concatenate_method``'s ``_preprocess_args``, whose ``CScalar`` refuses a host
    # array before its own 'Only cupy arrays' check; CuPy's unique reads ``ar.shape``)
    _raises(AttributeError, "'list' object has no attribute 'ravel'",
            lambda: cp.union1d([1], [2]))
    _raises(TypeError, "Unsupported type <class 'numpy.ndarray'>",
            lambda: cp.union1d(cp.array([1]), numpy.array([2])))
    _raises(AttributeError, "'list' object has no attribute 'shape'",
            lambda: cp.setxor1d([1], [2]))
    _raises(TypeError, "Unsupported type <class 'numpy.ndarray'>",
            lambda: cp.setxor1d(numpy.array([1]), numpy.array([2]), assume_unique=True))
    _raises(AttributeError, "'list' object has no attribute 'shape'",
            lambda: cp.setdiff1d([1, 2], [2]))
    assert cp.setxor1d(numpy.array([1, 1]), numpy.array([2])).tolist() == [1, 2]
    got = cp.setxor1d(cp.array([1, 2, 2]), cp.array([2, 3]), assume_unique=True)
    assert got.tolist() == [1, 3]
    got = cp.union1d(cp.array([nan, 1.]), cp.array([nan, 2.]))
    assert numpy.array_equal(got.get(), [1., 2., nan], equal_nan=True)


# --- sum / prod / mean with dtype=float16 (_routines_math.pyx: 'e->e' loops) ----------------

def test_reductions_to_float16_sum_in_float(cp):
    # (dtype=float16 on another dtype: CUB is skipped (dtype differs), the 'e->e' loop
    # casts each value to float16 and sums in float; NumPy sums a strided axis in float16,
    # stuck at 2048)
    a = cp.ones((3000, 2), dtype=cp.int32)
    got = cp.sum(a, axis=0, dtype=cp.float16)
    assert got.dtype == numpy.float16 and got.tolist() == [3000.0, 3000.0]
    assert a.sum(axis=0, dtype=cp.float16).tolist() == [3000.0, 3000.0]
    assert cp.mean(a.astype(cp.float32), axis=0, dtype=cp.float16).tolist() == [1.0, 1.0]
    assert cp.nansum(a.astype(cp.float32), axis=0, dtype=cp.float16).tolist() == \
        [3000.0, 3000.0]
    # (each value cast first: 2049 is float16's 2048)
    assert float(cp.sum(cp.array([2049], dtype=cp.int32), dtype=cp.float16)) == 2048.0


# --- count_nonzero (cupy/_sorting/count.py) --------------------------------------------------

def test_count_nonzero_takes_cupy_arrays_only(cp):
    # (a ``_SimpleReductionKernel``: ``_convert_from_cupy_like(a, error="Argument 'a'")``)
    for bad, kind in (([1, 0, 2], "list"), (numpy.array([1, 0]), "numpy.ndarray"),
                      (3, "int")):
        _raises(TypeError, "Argument 'a' has incorrect type (expected "
                f"<class 'cupy._core.core._ndarray_base'>, got <class '{kind}'>).",
                lambda bad=bad: cp.count_nonzero(bad))
    _raises(TypeError, "count_nonzero() got an unexpected keyword argument 'keepdims'",
            lambda: cp.count_nonzero(cp.ones((2, 2)), axis=0, keepdims=True))
    got = cp.count_nonzero(cp.array([[3., 0.], [nan, 0.]]))
    assert got.shape == () and got.dtype == numpy.int64 and int(got) == 2
    assert cp.count_nonzero(cp.eye(3), axis=(0, 1)).tolist() == 3


# --- searchsorted with host arguments (cupy/_sorting/search.py: _searchsorted) -------------

def test_searchsorted_host_arguments_as_cupy(cp):
    a = cp.array([3., 1., 2.])
    # (a host sorter: ``a.take(sorter)`` copies it in; a host a or v: CuPy's
    # NotImplementedError, not the generic refusal)
    got = cp.searchsorted(a, cp.array([2.5]), sorter=numpy.array([1, 2, 0]))
    assert got.tolist() == [2]
    _raises(NotImplementedError, "Only python scalars or ndarrays are supported for v",
            lambda: cp.searchsorted(a, numpy.array([1.5])))
    _raises(NotImplementedError, "Only python scalars or ndarrays are supported for v",
            lambda: a.searchsorted(numpy.array([1.5])))
    _raises(NotImplementedError, "Only int or ndarray are supported for a",
            lambda: cp.searchsorted(numpy.array([1., 2.]), cp.array([1.5])))
    _raises(TypeError, "sorter must be of integer type",
            lambda: cp.searchsorted(a, cp.array([2.5]), sorter=numpy.array([1., 2., 0.])))


# --- what is no device array (the nan reductions, median) ------------------------------------

def test_nan_reductions_refuse_what_is_no_device_array_as_cupy(cp):
    host = numpy.array([1., 2., nan])
    for fn in (cp.nanmean, cp.nanvar, cp.nanstd, cp.nanmedian):
        # (``a.dtype`` read first, then a Cython function typed ``_ndarray_base a``)
        _raises(AttributeError, "'list' object has no attribute 'dtype'",
                lambda fn=fn: fn([1., 2.]))
        _raises(TypeError, "Argument 'a' has incorrect type (expected "
                "cupy._core.core._ndarray_base, got numpy.ndarray)", lambda fn=fn: fn(host))
    _raises(TypeError, "Argument 'a' has incorrect type (expected "
            "cupy._core.core._ndarray_base, got numpy.ndarray)", lambda: cp.median(host))
    for fn in (cp.nanmax, cp.nanmin):  # (a reduction kernel's own conversion)
        _raises(TypeError, "Argument 'a' has incorrect type (expected <class "
                "'cupy._core.core._ndarray_base'>, got <class 'list'>).",
                lambda fn=fn: fn([1., 2.]))
    assert float(cp.nanmean(cp.asarray(host))) == 1.5
    assert float(cp.nanmax(cp.asarray(host))) == 2.0
