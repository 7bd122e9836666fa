"""The CPU backend's answers where CuPy 14.2's differ from NumPy's, in ``round`` (CuPy's
``cupy_round``/``cupy_round_neg_uint`` ufuncs, ``_core/core.pyx``), ``bincount``'s
weights, ``nan_to_num``, ``select``, ``piecewise``, ``copyto`` and ``ndarray.fill``
(``_math/misc.py``, ``_indexing/indexing.py``, ``_functional/piecewise.py``,
``_manipulation/basic.py``): each expectation is read off CuPy's source."""
from __future__ import annotations

import warnings

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


# --- round (core.pyx: ndarray.round, _round_ufunc, _round_ufunc_neg_uint) -----------------

def test_round_of_a_boolean_array_is_float16(cp):
    # ('?q->e', whose kernel is ``out0 = in0``: 0 and 1 whatever the decimals; NumPy
    # refuses to store the float result in a boolean array)
    a = cp.array([True, False])
    for got in (cp.round(a, -1), cp.around(a, 2), a.round(-3), a.round(), cp.round(a)):
        assert got.dtype == numpy.float16 and got.tolist() == [1.0, 0.0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = cp.round_(a, -1)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    assert got.dtype == numpy.float16 and got.tolist() == [1.0, 0.0]
    # (an output of another kind: the ufunc's same_kind rule)
    _raises(TypeError, "Cannot cast output operand from dtype('float16') to "
            "dtype('int8') according to the rule 'same_kind'",
            lambda: cp.round(a, 0, cp.empty(2, dtype=cp.int8)))
    out = cp.empty(2, dtype=cp.float32)
    a.round(1, out=out)
    assert out.tolist() == [1.0, 0.0]


def test_round_of_integers(cp):
    # decimals >= 0: the array itself ('bq->b'...: ``out0 = in0``)
    a = cp.array([1234, -5678], dtype=cp.int16)
    for d in (0, 3):
        got = cp.round(a, d)
        assert got.dtype == numpy.int16 and got.tolist() == [1234, -5678]
    # decimals < 0: CuPy's split of q*100*x and a rounded remainder (half to even);
    # the result wraps into the array's type as the kernel's store does
    got = cp.round(cp.array([127, 15, 25, -15, 125, 5], dtype=cp.int8), -1)
    assert got.dtype == numpy.int8 and got.tolist() == [-126, 20, 20, -20, 120, 0]
    assert cp.around(cp.array([-123456789]), -4).tolist() == [-123460000]  # (CuPy's
    # own comment in the kernel)
    # (CuPy's comment: NumPy rounds (u)int64 through doubles; CuPy is exact)
    big = cp.array([2 ** 63 + 5], dtype=cp.uint64)
    got = big.round(-1)
    assert got.dtype == numpy.uint64 and int(got[0]) == 9223372036854775810
    got = cp.round(cp.array([2 ** 62 + 15], dtype=cp.int64), -1)  # (...919)
    assert int(got[0]) == 4611686018427387920


def test_round_of_floats_scales_in_double(cp):
    # (``rint(in0 * x) / x`` with ``double x``: float32(2.675) is 2.67499995..., so
    # 267.499995 rounds down; NumPy scales in float32, where it is 267.5, giving 2.68)
    got = cp.round(cp.array([2.675, 0.125, 1.5], dtype=cp.float32), 2)
    assert got.dtype == numpy.float32
    assert got.tolist() == numpy.array([2.67, 0.12, 1.5], dtype=numpy.float32).tolist()
    got = cp.array([2.675 + 2.675j], dtype=cp.complex64).round(2)
    assert got.dtype == numpy.complex64
    assert got.tolist() == [complex(numpy.float32(2.67), numpy.float32(2.67))]
    got = cp.round(cp.array([1.5, 2.5, 125.0, -35.0]), -1)
    assert got.tolist() == [0.0, 0.0, 120.0, -40.0]
    got = cp.round(cp.array([0.5, 1.5, 2.5], dtype=cp.float16))
    assert got.dtype == numpy.float16 and got.tolist() == [0.0, 2.0, 2.0]
    # pow10<double>(400) is inf: inf / inf and 0 * inf are NaN
    assert numpy.isnan(cp.round(cp.array([1.5]), 400).get()).all()
    assert numpy.isnan(cp.round(cp.array([1.5]), -400).get()).all()


def test_round_decimals_are_the_ufuncs_int64_operand(cp):
    # (a Python float meets the 'q' loops' int64: no loop; NumPy's TypeError differs)
    _raises(TypeError, "Wrong type ((dtype('float64'), dtype('float64'))) of arguments "
            "for cupy_round", lambda: cp.round(cp.array([1.25]), 1.5))
    got = cp.around([1.25, 2.5], 1)  # (``_core.array(a, copy=False)``)
    assert isinstance(got, cp.ndarray) and got.tolist() == [1.2, 2.5]
    got = cp.round(numpy.array([1.26]), 1)
    assert isinstance(got, cp.ndarray) and got.tolist() == [1.3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        got = cp.round_(numpy.array([1.26]), 1)  # (round_ is around: host data too)
    assert isinstance(got, cp.ndarray) and got.tolist() == [1.3]
    got = cp.round(cp.empty((0, 3), dtype=cp.int8), -1)
    assert got.dtype == numpy.int8 and got.shape == (0, 3)
    _raises(ValueError, "Out shape is mismatched",
            lambda: cp.round(cp.ones((2, 3)), 1, cp.empty((1, 3))))


# --- bincount (cupy/_statistics/histogram.py) ----------------------------------------------

def test_bincount_refuses_complex_weights(cp):
    # (``_bincount_with_weight_kernel``: ``atomicAdd(&bin[x], w)`` with float64 bins and
    # a complex w, which no atomicAdd takes: NVRTC refuses it; NumPy drops imaginary parts)
    from gpushare.errors import CompileException
    x = cp.array([0, 1, 1, 3])
    for dtype in (cp.complex64, cp.complex128):
        with pytest.raises(CompileException, match='no instance of overloaded function '
                           '"atomicAdd" matches the argument list'):
            cp.bincount(x, weights=cp.array([1 + 1j, 2, 3, 4], dtype=dtype))
    assert cp.bincount(cp.empty(0, dtype=cp.int64),
                       weights=cp.empty(0, dtype=cp.complex128)).dtype == numpy.intp
    got = cp.bincount(x, weights=cp.array([1, 2, 3, 4], dtype=cp.float16))
    assert got.dtype == numpy.float64 and got.tolist() == [1.0, 5.0, 0.0, 4.0]
    # (a complex x: ``int(cupy.max(x))`` is Python's refusal)
    _raises(TypeError, "int() argument must be a string, a bytes-like object or a real "
            "number, not 'complex'", lambda: cp.bincount(cp.array([1 + 0j, 2])))
    # (its first check reads ``x.ndim``: a list or a scalar has none; a NumPy array passes
    # the checks NumPy answers (``x.ndim``, ``(x < 0).any()``) to ``int(cupy.max(x))``,
    # which Cython refuses: the H200's words)
    _raises(AttributeError, "'list' object has no attribute 'ndim'",
            lambda: cp.bincount([1, 2]))
    _raises(AttributeError, "'int' object has no attribute 'ndim'", lambda: cp.bincount(3))
    _raises(TypeError, "Argument 'x' has incorrect type (expected "
            "cupy._core.core._ndarray_base, got numpy.ndarray)",
            lambda: cp.bincount(numpy.array([1, 2])))
    _raises(ValueError, "The first argument of bincount must be non-negative",
            lambda: cp.bincount(numpy.array([1, -2])))
    _raises(TypeError, "x must be int array", lambda: cp.bincount(numpy.array([1.0])))


# --- nan_to_num (cupy/_math/misc.py) -------------------------------------------------------

def test_nan_to_num_as_cupys_ufunc(cp):
    nan, inf = numpy.nan, numpy.inf
    x = cp.array([1.0, nan, inf, -inf])
    big = numpy.finfo(numpy.float64).max
    assert cp.nan_to_num(x).tolist() == [1.0, 0.0, big, -big]
    got = cp.nan_to_num(x.astype(cp.float32), posinf=5, neginf=-5)
    assert got.dtype == numpy.float32 and got.tolist() == [1.0, 0.0, 5.0, -5.0]
    # nan=None is ``cupy.asanyarray(None, dtype)``: NaN (NumPy's copyto refuses it)
    assert numpy.isnan(cp.nan_to_num(x, nan=None).get()[1])
    # a replacement may be an array, broadcast by the ufunc
    got = cp.nan_to_num(x, nan=cp.array([9.0, 8.0, 7.0, 6.0]), posinf=cp.array(3.0))
    assert got.tolist() == [1.0, 8.0, 3.0, -big]
    # a list is not an array: ``cupy.full((), x)``, whose copyto asks for its dtype
    _raises(AttributeError, "'list' object has no attribute 'dtype'",
            lambda: cp.nan_to_num([1.0, nan]))
    got = cp.nan_to_num(nan)
    assert isinstance(got, cp.ndarray) and got.shape == () and float(got) == 0.0
    ints = cp.arange(3, dtype=cp.int8)
    got = cp.nan_to_num(ints, nan=1000, posinf=1e300)  # (ignored for integers)
    assert got.dtype == numpy.int8 and got.tolist() == [0, 1, 2]
    y = x.copy()
    cp.nan_to_num(y, copy=False)  # (into y itself)
    assert y.tolist() == [1.0, 0.0, big, -big]
    z = (x * (1 + 1j)).astype(cp.complex64)
    got = cp.nan_to_num(z, nan=7)
    f32 = float(numpy.finfo(numpy.float32).max)
    assert got.dtype == numpy.complex64
    assert got.tolist() == [1 + 1j, 7 + 7j, complex(f32, f32), complex(-f32, -f32)]


# --- select (cupy/_indexing/indexing.py) and copyto (cupy/_manipulation/basic.py) ---------

def test_select_and_copyto_check_scalars_as_cupy(cp):
    conds = [cp.array([True, False, False]), cp.array([False, True, False])]
    choices = [cp.arange(3, dtype=cp.int8)] * 2
    # a Python int: NumPy's copyto into a 0-d int8 array raises
    _raises(OverflowError, "Python integer 1000 out of bounds for int8",
            lambda: cp.select(conds, choices, 1000))
    # a NumPy scalar: ``numpy.can_cast(value, dtype, 'same_kind')``, CuPy's words
    # (reporting the value itself)
    _raises(TypeError, "Cannot cast 1.5 to int8 in same_kind casting mode",
            lambda: cp.select(conds, choices, numpy.float64(1.5)))
    _raises(TypeError, "Cannot cast 7 to uint8 in same_kind casting mode",
            lambda: cp.select(conds, [cp.arange(3, dtype=cp.uint8)] * 2, numpy.int64(7)))
    got = cp.select(conds, choices, numpy.int16(-3))
    assert got.dtype == numpy.int8 and got.tolist() == [0, 1, -3]
    d = cp.zeros(3, dtype=cp.int8)
    _raises(TypeError, "Cannot cast float64 to int8 in same_kind casting mode",
            lambda: cp.copyto(d, cp.arange(3.0)))
    _raises(TypeError, "Cannot cast 2.5 to int8 in same_kind casting mode",
            lambda: cp.copyto(d, numpy.float32(2.5)))
    cp.copyto(d, numpy.float32(2.5), casting="unsafe")
    assert d.tolist() == [2, 2, 2]


def test_fill_as_cupy(cp):
    # ``numpy.asarray(value, dtype=self.dtype)``: a NumPy scalar is cast (NumPy's fill
    # refuses 1000 for int8), a one-element list is non-scalar
    a = cp.zeros(2, dtype=cp.int8)
    a.fill(numpy.int64(1000))
    assert a.tolist() == [-24, -24]
    _raises(ValueError, "non-scalar numpy.ndarray cannot be used for fill",
            lambda: a.fill([1]))
    _raises(ValueError, "non-scalar cupy.ndarray cannot be used for fill",
            lambda: a.fill(cp.ones(1)))
    _raises(OverflowError, "Python integer 1000 out of bounds for int8",
            lambda: a.fill(1000))
    a.fill(cp.array(2.7))  # (a 0-d device array: astype)
    assert a.tolist() == [2, 2]


# --- piecewise (cupy/_functional/piecewise.py) ---------------------------------------------

def test_piecewise_runs_cupys_kernel(cp):
    x = cp.arange(4, dtype=cp.int8)
    # an array value is taken elementwise where its condition holds (NumPy assigns it
    # to the selected elements, refusing 4 values for 2)
    got = cp.piecewise(x, [x < 2], [cp.array([1.5, 2.5, 3.5, 4.5])])
    assert got.dtype == numpy.int8 and got.tolist() == [1, 2, 0, 0]
    got = cp.piecewise(x.astype(cp.float64), [x < 2, x >= 3], [cp.arange(4.0) * 10, -1, 7])
    assert got.tolist() == [0.0, 10.0, 7.0, -1.0]
    # a scalar value is packed into the array's type (CScalar.apply_dtype)
    _raises(OverflowError, "Python integer 1000 out of bounds for int8",
            lambda: cp.piecewise(x, [x < 2], [1000]))
    _raises(OverflowError, "Python integer -1 out of bounds for uint8",
            lambda: cp.piecewise(x.astype(cp.uint8), [x < 2, x >= 2], [-1, 2]))
    _raises(ValueError, "cannot convert float NaN to integer",
            lambda: cp.piecewise(x, [x < 2], [numpy.nan]))
    # ... but not where the loop is empty (the kernel returns before)
    got = cp.piecewise(x[:0], [x[:0] < 2], [1000])
    assert got.dtype == numpy.int8 and got.shape == (0,)
    # the condition is the kernel's ``bool cond``: no cast (NumPy takes any truth)
    _raises(TypeError, "Type is mismatched. cond int8 bool",
            lambda: cp.piecewise(x, [x], [3]))
    _raises(ValueError, "Out shape is mismatched",
            lambda: cp.piecewise(x, [cp.ones((2, 4), dtype=cp.bool_)], [3]))
    _raises(ValueError, "operands could not be broadcast together with shapes (5,) () (4,)",
            lambda: cp.piecewise(x, [cp.ones(5, dtype=cp.bool_)], [3]))
    assert cp.piecewise(x, True, [3]).tolist() == [3, 3, 3, 3]
    _raises(ValueError, "with 1 condition(s), either 1 or 2 functions are expected",
            lambda: cp.piecewise(x, [x < 2], [1, 2, 3]))


# --- interp (cupy/_math/misc.py) -----------------------------------------------------------

def test_interp_casts_left_and_right_to_fps_dtype(cp):
    # (``cupy.array(left, fp.dtype)``: 0.5 is 0 for an integer fp; NumPy keeps 0.5)
    x = cp.array([-1.0, 0.5, 9.0])
    xp, fp = cp.array([0.0, 1.0]), cp.array([0, 10])
    got = cp.interp(x, xp, fp, left=0.5, right=7.9)
    assert got.dtype == numpy.float64 and got.tolist() == [0.0, 5.0, 7.0]
    _raises(OverflowError, "Python integer 1000 out of bounds for int8",
            lambda: cp.interp(x, xp, fp.astype(cp.int8), left=1000))
    got = cp.interp(x, xp, fp.astype(cp.float32), left=0.1)
    assert got.tolist()[0] == float(numpy.float32(0.1))
    # the kernel's ``fy[j+1] - fy[j]`` in fp's own type: unsigned int wraps
    got = cp.interp(cp.array([0.5]), xp, cp.array([5, 3], dtype=cp.uint32))
    assert got.tolist() == [0.5 * (2 ** 32 - 2) + 5]
    got = cp.interp(cp.array([0.5]), xp, cp.array([5, 3], dtype=cp.uint8))  # (int)
    assert got.tolist() == [4.0]
    # plain interpolation is NumPy's formula, ``slope * (x - xp[j]) + fp[j]``, but one
    # fused multiply-add on the GPU (NVRTC contracts it): the last bit of 2 values in 50
    # differs from NumPy's (the GPU's answers at 17 and 41)
    rng = numpy.random.default_rng(0)
    hxp = numpy.sort(rng.random(20)) * 10
    hfp, hx = rng.random(20), rng.random(50) * 12 - 1
    hx[3] = numpy.nan
    got = cp.interp(cp.asarray(hx), cp.asarray(hxp), cp.asarray(hfp)).get()
    want = numpy.interp(hx, hxp, hfp)
    assert numpy.flatnonzero(~((got == want) | numpy.isnan(want))).tolist() == [17, 41]
    assert (got[17], got[41]) == (0.4781645197688312, 0.7963111425372947)


def test_interp_refuses_as_cupy(cp):
    xp, fp = cp.array([0.0, 1.0]), cp.array([5.0, 3.0])
    _raises(TypeError, "can't get common type for non-numeric array",
            lambda: cp.interp(cp.array([True]), xp, fp))
    _raises(TypeError, "Cannot cast array data from <class 'numpy.complex128'> to "
            "<class 'numpy.float64'> according to the rule 'safe'",
            lambda: cp.interp(cp.array([1j]), xp, fp))
    _raises(NotImplementedError, "Non-C-contiguous x is currently not supported",
            lambda: cp.interp(cp.arange(4.0)[::2], xp, fp))
    _raises(ValueError, "xp and fp must be 1D arrays",
            lambda: cp.interp(cp.arange(4.0), cp.ones((2, 2)), fp))
    got = cp.interp(cp.array(0.5), xp, fp)
    assert got.shape == () and float(got) == 4.0


# --- searchsorted (cupy/_sorting/search.py) ------------------------------------------------

def test_searchsorted_as_cupy(cp):
    a = cp.array([1.0, 2.0, 3.0])
    _raises(NotImplementedError, "Only python scalars or ndarrays are supported for v",
            lambda: cp.searchsorted(a, [1.5, 2.5]))
    _raises(NotImplementedError, "Only python scalars or ndarrays are supported for v",
            lambda: cp.searchsorted(a, numpy.int64(2)))  # (not a Python int)
    _raises(NotImplementedError, "Only int or ndarray are supported for a",
            lambda: cp.searchsorted([1, 2, 3], 2.5))
    _raises(TypeError, "sorter must be of integer type",
            lambda: cp.searchsorted(a, cp.array([1.0]), sorter=cp.array([0.0, 1.0, 2.0])))
    # any side but 'right' is 'left' (NumPy refuses it)
    assert cp.searchsorted(a, cp.array([2.0]), side="bogus").tolist() == [1]
    assert a.searchsorted(cp.array([2.0]), side="right").tolist() == [2]
    got = cp.searchsorted(a, 2.5)
    assert got.dtype == numpy.int64 and got.shape == () and int(got) == 2
    got = cp.searchsorted(cp.array([1.0, numpy.nan]), cp.array([numpy.nan, 5.0]))
    assert got.tolist() == [1, 1]


# --- percentile / quantile (cupy/_statistics/order.py) -------------------------------------

def test_percentile_as_cupys_port(cp):
    # sorted NaNs last and no NaN check: only an index reaching the NaN gives NaN
    a = cp.array([1.0, 2.0, numpy.nan])
    assert float(cp.percentile(a, 0)) == 1.0
    assert numpy.isnan(float(cp.percentile(a, 100)))
    _raises(ValueError, "'hazen' method is not yet supported. Please use any other "
            "method.", lambda: cp.percentile(cp.arange(5.0), 50, method="hazen"))
    _raises(ValueError, "Quantiles must be in the range [0, 1]",
            lambda: cp.quantile(cp.arange(5.0), 1.5))
    got = cp.quantile(cp.arange(5, dtype=cp.float32), 0.3)
    assert got.dtype == numpy.float32 and got.shape == ()
    assert float(got) == pytest.approx(1.2)
    got = cp.quantile(cp.arange(5, dtype=cp.int8), [0.3], method="lower")
    assert got.dtype == numpy.int8 and got.tolist() == [1]  # (take: a's dtype)
    host = numpy.random.default_rng(1).random((3, 4, 5))
    for kw in ({}, {"axis": 1}, {"axis": (0, 2)}, {"axis": -1, "keepdims": True}):
        for method in ("linear", "lower", "higher", "midpoint", "nearest"):
            got = cp.percentile(cp.asarray(host), [10, 50, 90], method=method, **kw)
            numpy.testing.assert_allclose(
                got.get(), numpy.percentile(host, [10, 50, 90], method=method, **kw))


def test_zero_dimensional_ufunc_results_stay_zero_dimensional(cp):
    assert cp.round(cp.array(2.5)).shape == ()
    assert cp.around(2.5).shape == ()
    got = cp.clip(cp.array(5.0), 0, 3)
    assert got.shape == () and float(got) == 3.0
    assert cp.array(5.0).clip(0, 3).shape == ()
