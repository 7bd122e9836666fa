"""What ``cupyx.scipy.ndimage`` returns, through a real server: the CPU backend gives
CuPy 14.2's result types, dtypes and values where SciPy's differ (CuPy's source,
``cupyx/scipy/ndimage/``, quoted beside each test; the CPU backend's side is
``server/gpushare_server/backends/cpu_ndimage.py``: ``_half_input``,
``_round_integer_output``, ``_RESULTS``, ``histogram``).
"""
from __future__ import annotations

import importlib

import numpy
import pytest
import scipy.ndimage

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def nd(cp):
    return importlib.import_module("gpushare.cupyx.scipy.ndimage")


def _labelled():
    x = numpy.arange(30, dtype=numpy.float64).reshape(5, 6)
    labels = numpy.zeros((5, 6), numpy.int32)
    labels[1:3, 1:3] = 1
    labels[4, 4:] = 2
    return x, labels


# --- measurements -----------------------------------------------------------------------

def test_histogram_of_several_labels_is_a_list(cp, nd):
    """``histogram`` is ``labeled_comprehension(..., _hist, object, None)``: for a
    sequence of labels ``[temp[i] for i in ...]``, a list of ``cupy.histogram``'s int64
    counts, None for a label not found; one label (``as_scalar``) its counts alone
    (``_measurements.py: histogram``, ``labeled_comprehension``)."""
    x, labels = _labelled()
    d, dl = cp.asarray(x), cp.asarray(labels)
    got = nd.histogram(d, 0, 30, 6, dl, [1, 7, 2])
    assert type(got) is list and len(got) == 3
    assert got[1] is None
    for g, label in zip((got[0], got[2]), (1, 2)):
        assert isinstance(g, cp.ndarray) and g.dtype == numpy.int64
        numpy.testing.assert_array_equal(
            g.get(), numpy.histogram(x[labels == label], numpy.linspace(0, 30, 7))[0])
    one = nd.histogram(d, 0, 30, 6, dl, 1)
    assert isinstance(one, cp.ndarray) and one.dtype == numpy.int64
    numpy.testing.assert_array_equal(one.get(), got[0].get())
    numpy.testing.assert_array_equal(
        nd.histogram(d, 0, 30, 6, dl, cp.asarray([2]))[0].get(), got[2].get())
    with pytest.raises(ValueError, match="^index without defined labels$"):
        nd.histogram(d, 0, 30, 6, None, [1])


@pytest.mark.parametrize("name", ["minimum_position", "maximum_position"])
def test_one_position_is_a_tuple_of_numpy_ints(cp, nd, name):
    """``result = int(result)``; ``return tuple((result // dim_prod) % dims)``: NumPy
    int64 scalars on the host (``dims`` a NumPy array), not device arrays; several a
    list of such tuples (``_measurements.py: minimum_position``)."""
    x, labels = _labelled()
    d, dl = cp.asarray(x), cp.asarray(labels)
    want = getattr(scipy.ndimage, name)
    for args, ref in (((d,), (x,)), ((d, dl), (x, labels)), ((d, dl, 2), (x, labels, 2))):
        got = getattr(nd, name)(*args)
        assert type(got) is tuple
        assert all(type(v) is numpy.int64 for v in got), got
        assert got == tuple(want(*ref))
    several = getattr(nd, name)(d, dl, cp.asarray([1, 2]))
    assert type(several) is list
    assert all(type(v) is numpy.int64 for p in several for v in p)


def test_extrema_positions_are_numpy_ints(cp, nd):
    """``extrema``: ``tuple((min_positions // dim_prod) % dims)`` of the host's
    ``min_positions.item()``; the minimum and maximum 0-d device arrays."""
    x, labels = _labelled()
    lo, hi, lo_pos, hi_pos = nd.extrema(cp.asarray(x), cp.asarray(labels))
    assert isinstance(lo, cp.ndarray) and lo.shape == () and lo.dtype == numpy.float64
    assert isinstance(hi, cp.ndarray) and hi.shape == ()
    for pos in (lo_pos, hi_pos):
        assert type(pos) is tuple and all(type(v) is numpy.int64 for v in pos)
    assert (lo_pos, hi_pos) == scipy.ndimage.extrema(x, labels)[2:]


# --- interpolations: integer outputs -----------------------------------------------------

def test_integer_output_rounds_ties_to_even(cp, nd):
    """``_interp_kernels``: ``if integer_output: y = (Y)rint((float_type)out)``: ties to
    even (SciPy rounds them away from zero: ``[0, 2, 3, 4]``)."""
    b = cp.asarray([1, 2, 3, 4], dtype=cp.int16)
    got = nd.shift(b, 0.5, order=1)
    assert got.dtype == numpy.int16
    numpy.testing.assert_array_equal(got.get(), [0, 2, 2, 4])
    numpy.testing.assert_array_equal(nd.shift(-b, 0.5, order=1).get(), [0, -2, -2, -4])
    out = cp.zeros(4, cp.int32)  # (an output array given: written, and returned)
    assert nd.shift(b, 0.5, order=1, output=out) is out
    numpy.testing.assert_array_equal(out.get(), [0, 2, 2, 4])
    got = nd.map_coordinates(cp.asarray([1.0, 2.0, 3.0]), cp.asarray([[0.5, 1.5]]),
                             output=numpy.int32, order=1)
    assert got.dtype == numpy.int32
    numpy.testing.assert_array_equal(got.get(), [2, 2])
    got = nd.zoom(cp.asarray([1, 3, 5, 7], dtype=cp.uint8), 2, order=1)
    want = numpy.rint(scipy.ndimage.zoom(numpy.array([1.0, 3, 5, 7]), 2, order=1))
    numpy.testing.assert_array_equal(got.get(), want)


def test_integer_output_converts_as_the_device(cp, nd):
    """``(Y)rint(...)`` is a C++ conversion on the GPU, as ``astype``'s: a spline's
    overshoot past uint8's range converts as the device's ``astype`` converts it
    (SciPy clips it to 0..255)."""
    a = numpy.array([0, 0, 255, 255, 0, 0, 255, 0, 0], numpy.uint8)
    floats = cp.asarray(scipy.ndimage.shift(a.astype(numpy.float64), 0.3, order=3))
    got = nd.shift(cp.asarray(a), 0.3, order=3)
    assert got.dtype == numpy.uint8
    numpy.testing.assert_array_equal(got.get(), cp.rint(floats).astype(cp.uint8).get())


# --- float16 ----------------------------------------------------------------------------

_HALF_CALLS = {
    "gaussian_filter": lambda nd, x: nd.gaussian_filter(x, 1.0),
    "uniform_filter": lambda nd, x: nd.uniform_filter(x, 3),
    "median_filter": lambda nd, x: nd.median_filter(x, 3),
    "minimum_filter": lambda nd, x: nd.minimum_filter(x, 3),
    "sobel": lambda nd, x: nd.sobel(x),
    "laplace": lambda nd, x: nd.laplace(x),
    "gaussian_gradient_magnitude": lambda nd, x: nd.gaussian_gradient_magnitude(x, 1.0),
    "correlate": lambda nd, x: nd.correlate(x, x[:3, :3] * 0 + 1, output=x.dtype),
    "grey_dilation": lambda nd, x: nd.grey_dilation(x, 3),
    "zoom": lambda nd, x: nd.zoom(x, 1.5, order=1),
    "shift": lambda nd, x: nd.shift(x, 0.5),
    "rotate": lambda nd, x: nd.rotate(x, 30, order=1),
    "spline_filter(output=None)": lambda nd, x: nd.spline_filter(x, output=None),
}


@pytest.mark.parametrize("name", list(_HALF_CALLS))
def test_float16_input_gives_float16(cp, nd, name):
    """CuPy's kernels take float16 (``_filters_core.includes``: ``cupy/float16.cuh``;
    weights ``_util._init_weights_dtype``: float32), writing the input's dtype
    (``_util._get_output``); the interpolations compute in ``promote_types(float16,
    float32)``. SciPy refuses float16 (``array type not supported``)."""
    x = numpy.random.default_rng(1).uniform(0, 10, (7, 8))
    half = x.astype(numpy.float16)
    got = _HALF_CALLS[name](nd, cp.asarray(half))
    assert got.dtype == numpy.float16
    want = _HALF_CALLS[name](nd, cp.asarray(half.astype(numpy.float32)))
    if name == "sobel":
        # (``_prewitt_or_sobel``: one ``correlate1d`` per axis through a temporary of the
        # output's dtype, ``_filters_core._run_1d_filters``: float16 rounded between the
        # passes; the H200 gave -3.78125 at [0, 6], one float32 computation -3.7695)
        x32 = cp.asarray(half.astype(numpy.float32))
        mid = nd.correlate1d(x32, cp.asarray([1.0, 2.0, 1.0], numpy.float32), 0,
                             output=numpy.float32)
        want = nd.correlate1d(mid.astype(numpy.float16).astype(numpy.float32),
                              cp.asarray([-1.0, 0.0, 1.0], numpy.float32), 1,
                              output=numpy.float32)
        numpy.testing.assert_allclose(got.get(), want.get().astype(numpy.float16),
                                      rtol=1e-3, atol=1e-3)
        return
    numpy.testing.assert_allclose(got.get(), want.get().astype(numpy.float16), rtol=2e-3,
                                  atol=2e-3)


def test_float16_outputs_and_other_families(cp, nd):
    """A float16 ``output`` array is written (``_util._get_output``); the Fourier filters
    write float64 for a real type that is not float32 (``_fourier._get_output_fourier``),
    complex128 for ``fourier_shift``; binary morphology is bool of any input."""
    x = numpy.random.default_rng(2).uniform(0, 10, (6, 6))
    half = cp.asarray(x.astype(numpy.float16))
    out = cp.zeros((6, 6), cp.float16)
    assert nd.uniform_filter(half, 3, output=out) is out
    numpy.testing.assert_allclose(out.get(), scipy.ndimage.uniform_filter(
        x.astype(numpy.float16).astype(numpy.float32), 3), rtol=2e-3)
    assert nd.uniform_filter(half, 3, output=numpy.float16).dtype == numpy.float16
    assert nd.uniform_filter(half, 3, output=numpy.float64).dtype == numpy.float64
    assert nd.fourier_gaussian(half, 1.0).dtype == numpy.float64
    assert nd.fourier_uniform(half, 3).dtype == numpy.float64
    assert nd.fourier_shift(half, 1.0).dtype == numpy.complex128
    got = nd.binary_erosion(half > 5)
    assert got.dtype == numpy.bool_
    eroded = nd.binary_erosion(cp.asarray((x > 5).astype(numpy.float16)))
    assert eroded.dtype == numpy.bool_
    numpy.testing.assert_array_equal(eroded.get(), got.get())


# --- grey morphology of bool input ------------------------------------------------------

@pytest.mark.parametrize("name", ["morphological_gradient", "morphological_laplace"])
def test_bool_subtraction_in_cupys_words(cp, nd, name):
    """``morphological_gradient``: ``tmp - grey_erosion(...)``; ``morphological_laplace``:
    ``cupy.subtract(tmp2, input, tmp2)``: CuPy's boolean subtract error
    (``_routines_math._subtract_boolean_error``)."""
    x = cp.asarray(numpy.eye(5, dtype=bool))
    words = (r"^cupy boolean subtract, the `-` operator, is deprecated, use the "
             r"bitwise_xor, the `\^` operator, or the logical_xor function instead\.$")
    with pytest.raises(TypeError, match=words):
        getattr(nd, name)(x, 3)
    assert nd.white_tophat(x, 3).dtype == numpy.bool_  # (bitwise_xor for bool)
    assert nd.black_tophat(x, 3).dtype == numpy.bool_


# --- generic filters take kernels, not Python functions ---------------------------------

def test_a_python_function_is_cupys_bad_function_type(cp, nd):
    """``generic_filter``/``generic_filter1d`` take a RawKernel or ReductionKernel
    (``_filters_generic._get_sub_kernel``, ``_filters.generic_filter1d``): a Python
    function is ``TypeError('bad function type')``, after the checks CuPy makes first
    (a missing size, a complex input), not gpushare's words for an object it cannot
    send; a kernel filters."""
    x = cp.ones((4, 4))
    with pytest.raises(TypeError, match="^bad function type$"):
        nd.generic_filter(x, lambda v: v.sum(), size=3)
    with pytest.raises(RuntimeError, match="no footprint or filter size provided"):
        nd.generic_filter(x, lambda v: v.sum())
    with pytest.raises(TypeError, match="^bad function type$"):
        nd.generic_filter1d(x, lambda line, out: None, 3)
    with pytest.raises(TypeError, match="Complex type not supported"):
        nd.generic_filter1d(x + 1j, lambda line, out: None, 3)
    total = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "gs_nd_sum")
    assert float(nd.generic_filter(x, total, size=3)[1, 1]) == 9.0
