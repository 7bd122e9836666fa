"""``cupyx.scipy.ndimage`` given Python lists and numbers through a real server: the CPU
backend refuses them where CuPy 14.2's code does (its first touch of the argument:
``input.ndim`` or ``input.dtype`` of a list, ``weights.nbytes`` of a footprint...), in
CuPy's words, and takes them where CuPy's code converts them (``cupy.array(footprint)``,
``cupy.asarray(index)``, ``int(rank)``), giving SciPy's values. (The CuPy line each error
comes from is quoted in ``server/gpushare_server/backends/cpu_ndimage.py``: ``_FORMS``.)
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


def _img(seed=0):
    return numpy.random.default_rng(seed).standard_normal((6, 7))


def _no_attr(kind, attr):
    return pytest.raises(AttributeError, match=f"'{kind}' object has no attribute '{attr}'")


def _refuses_input(fn, attr, *args, **kwargs):
    """A list, a tuple and numbers as ``input``: Python's AttributeError for ``attr``."""
    x = _img()
    for value, kind in ((x.tolist(), "list"), (tuple(map(tuple, x.tolist())), "tuple"),
                        (2.0, "float"), (3, "int")):
        with _no_attr(kind, attr):
            fn(value, *args, **kwargs)


def _same(got, want, **tol):
    numpy.testing.assert_allclose(got.get(), want, **tol)


# --- the input: CuPy reads an attribute of it first -----------------------------------

#: name -> (args after the input, the attribute CuPy reads first)
_INPUT_READS = {
    "correlate": ((numpy.ones((3, 3)) / 9,), "ndim"),
    "convolve": ((numpy.ones((3, 2)),), "ndim"),
    "correlate1d": ((numpy.array([1.0, 2.0, 1.0]),), "ndim"),
    "convolve1d": ((numpy.array([1.0, -1.0]),), "ndim"),
    "uniform_filter": ((3,), "ndim"),
    "uniform_filter1d": ((3,), "dtype"),
    "gaussian_filter": ((1.5,), "ndim"),
    "gaussian_filter1d": ((1.5,), "dtype"),
    "minimum_filter": ((3,), "ndim"),
    "maximum_filter": ((3,), "ndim"),
    "minimum_filter1d": ((3,), "ndim"),
    "maximum_filter1d": ((3,), "ndim"),
    "median_filter": ((3,), "ndim"),
    "rank_filter": ((2, 3), "ndim"),
    "percentile_filter": ((30, 3), "ndim"),
    "sobel": ((), "dtype"),
    "prewitt": ((), "dtype"),
    "laplace": ((), "dtype"),
    "gaussian_laplace": ((1.0,), "ndim"),
    "gaussian_gradient_magnitude": ((1.0,), "ndim"),
    "shift": ((1.5,), "ndim"),
    "zoom": ((1.5,), "ndim"),
    "rotate": ((30,), "ndim"),
    "affine_transform": ((numpy.array([[1.0, 0.2], [0.0, 0.9]]),), "ndim"),
    "map_coordinates": ((numpy.array([[0.5, 2.0, 4.5], [1.0, 3.5, 6.0]]),), "dtype"),
    "spline_filter": ((), "dtype"),
    "spline_filter1d": ((), "ndim"),
    "grey_erosion": ((3,), "ndim"),
    "grey_dilation": ((3,), "ndim"),
    "binary_erosion": ((), "ndim"),
    "binary_dilation": ((), "ndim"),
    "binary_opening": ((), "ndim"),
    "binary_closing": ((), "ndim"),
    "distance_transform_edt": ((), "ndim"),
    "fourier_gaussian": ((1.0,), "ndim"),
    "fourier_shift": ((1.0,), "ndim"),
    "fourier_uniform": ((2.0,), "ndim"),
}


@pytest.mark.parametrize("name", sorted(_INPUT_READS))
def test_input_refused_as_list_or_number(cp, nd, name):
    """``input.ndim`` (``_check_axes(axes, input.ndim)``, ``_convert_1d_args(input.ndim,
    ...)``, ``_fix_sequence_arg(shift, input.ndim, ...)``...) or ``input.dtype``
    (``_init_weights_dtype(input)``...) of a list or a number; device arrays still give
    SciPy's values."""
    args, attr = _INPUT_READS[name]
    fn, ref = getattr(nd, name), getattr(scipy.ndimage, name)
    dargs = tuple(cp.asarray(a) if isinstance(a, numpy.ndarray) else a for a in args)
    _refuses_input(fn, attr, *dargs)
    x = _img()
    if name.startswith("binary_") or name == "distance_transform_edt":
        x = x > 0
    if name.startswith("fourier_"):
        x = x + 0j
    want = ref(x, *args)
    got = fn(cp.asarray(x), *dargs)
    _same(got, want, rtol=1e-6, atol=1e-9)


def test_input_none_is_refused(cp, nd):
    with _no_attr("NoneType", "ndim"):
        nd.gaussian_filter(None, 1.0)


def test_generic_filter_input(cp, nd):
    """``axes = _util._check_axes(axes, input.ndim)`` comes before the kernel's checks."""
    kernel = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "gs_sum")
    _refuses_input(nd.generic_filter, "ndim", kernel, size=3)
    x = _img()
    _same(nd.generic_filter(cp.asarray(x), kernel, size=3),
          scipy.ndimage.generic_filter(x, numpy.sum, size=3), rtol=1e-10)


def test_input_checks_after_order_and_mode(cp, nd):
    """The interpolations check ``order`` and ``mode`` before they read ``input``
    (``_check_parameter``), the filters read ``input`` before the modes; the spline
    filters check ``order`` first."""
    x = _img().tolist()
    with pytest.raises(ValueError, match=r"boundary mode \(bad\) is not supported"):
        nd.shift(x, 1.0, mode="bad")
    with pytest.raises(ValueError, match="spline order is not supported"):
        nd.affine_transform(x, numpy.eye(2).tolist(), order=7)
    with _no_attr("list", "ndim"):
        nd.uniform_filter(x, 3, mode="bad")
    with pytest.raises(RuntimeError, match="spline order not supported"):
        nd.spline_filter1d(x, order=7)


# --- the filters' other arrays ----------------------------------------------------------

def test_correlate_weights(cp, nd):
    """``_check_nd_args``: ``if weights.nbytes >= (1 << 31)`` after the modes."""
    x, w = _img(), numpy.array([[1.0, 2.0], [0.5, -1.0]])
    d = cp.asarray(x)
    for fn in (nd.correlate, nd.convolve):
        with _no_attr("list", "nbytes"):
            fn(d, w.tolist())
        with _no_attr("float", "nbytes"):
            fn(d, 2.0)
        with pytest.raises(RuntimeError, match="boundary mode not supported"):
            fn(d, w.tolist(), mode="bad")
        with pytest.raises(ValueError, match="must specify either weights array or sizes"):
            fn(d, None)
    _same(nd.correlate(d, cp.asarray(w)), scipy.ndimage.correlate(x, w), rtol=1e-12)
    _same(nd.convolve(d, cp.asarray(w), mode="nearest"),
          scipy.ndimage.convolve(x, w, mode="nearest"), rtol=1e-12)


def test_correlate1d_weights(cp, nd):
    """``_convert_1d_args``: ``if weights.ndim != 1 or weights.size < 1``."""
    x, w = _img(), numpy.array([1.0, -2.0, 0.5])
    d = cp.asarray(x)
    for fn in (nd.correlate1d, nd.convolve1d):
        with _no_attr("list", "ndim"):
            fn(d, w.tolist())
        with _no_attr("int", "ndim"):
            fn(d, 2)
    _same(nd.correlate1d(d, cp.asarray(w), axis=0),
          scipy.ndimage.correlate1d(x, w, axis=0), rtol=1e-12)
    _same(nd.convolve1d(d, cp.asarray(w)), scipy.ndimage.convolve1d(x, w), rtol=1e-12)


@pytest.mark.parametrize("name", ["minimum_filter", "maximum_filter", "grey_erosion"])
def test_min_max_footprints(cp, nd, name):
    """``_min_or_max_filter``: a tuple footprint with no size is the size; else
    ``_check_nd_args`` reads ``weights.nbytes`` of the footprint."""
    fn, ref = getattr(nd, name), getattr(scipy.ndimage, name)
    x, fp = _img(), numpy.array([[1, 0], [1, 1]], bool)
    d = cp.asarray(x)
    with _no_attr("list", "nbytes"):
        fn(d, footprint=fp.tolist())
    with _no_attr("int", "nbytes"):
        fn(d, footprint=1)
    with _no_attr("tuple", "nbytes"):
        fn(d, size=3, footprint=(3, 2))
    _same(fn(d, footprint=(3, 2)), ref(x, size=(3, 2)))
    _same(fn(d, footprint=cp.asarray(fp)), ref(x, footprint=fp))
    _same(fn(d, footprint=fp), ref(x, footprint=fp))  # (a host footprint: CuPy copies it)


def test_footprints_taken_as_lists(cp, nd):
    """``cupy.array(footprint, bool, True, 'C')`` (the rank filters),
    ``cupy.array(footprint)`` (``grey_dilation``): a list is fine; a number is a 0-d
    footprint (``footprint array has incorrect shape``)."""
    x, fp = _img(), numpy.array([[1, 0, 1], [1, 1, 0]], bool)
    d = cp.asarray(x)
    _same(nd.median_filter(d, footprint=fp.tolist()),
          scipy.ndimage.median_filter(x, footprint=fp))
    _same(nd.rank_filter(d, 1, footprint=fp.tolist()),
          scipy.ndimage.rank_filter(x, 1, footprint=fp))
    _same(nd.percentile_filter(d, 60, footprint=fp.tolist()),
          scipy.ndimage.percentile_filter(x, 60, footprint=fp))
    _same(nd.grey_dilation(d, footprint=fp.tolist()),
          scipy.ndimage.grey_dilation(x, footprint=fp))
    for fn, args in ((nd.median_filter, ()), (nd.rank_filter, (0,)),
                     (nd.percentile_filter, (50,))):
        with pytest.raises(RuntimeError, match="^footprint array has incorrect shape$"):
            fn(d, *args, footprint=1)


def test_rank_and_percentile_conversions(cp, nd):
    """``rank = int(rank)``; ``percentile = float(percentile)``; gaussian_filter1d:
    ``int(float(truncate) * float(sigma) + 0.5)``."""
    x = _img()
    d = cp.asarray(x)
    _same(nd.rank_filter(d, 2.7, size=3), scipy.ndimage.rank_filter(x, 2, size=3))
    _same(nd.percentile_filter(d, "40", size=3),
          scipy.ndimage.percentile_filter(x, 40.0, size=3))
    with pytest.raises(TypeError, match="int\\(\\) argument must be .* not 'list'"):
        nd.rank_filter(d, [1], size=3)
    with pytest.raises(TypeError, match="float\\(\\) argument must be .* not 'list'"):
        nd.percentile_filter(d, [50], size=3)
    with pytest.raises(TypeError, match="float\\(\\) argument must be .* not 'list'"):
        nd.gaussian_filter1d(x.tolist(), [1.0])  # (before ``input.dtype``)


# --- interpolation ----------------------------------------------------------------------

def test_affine_and_map_coordinates_arrays(cp, nd):
    """``if matrix.ndim not in [1, 2]``; ``_get_output(output, input,
    coordinates.shape[1:])``."""
    x = _img()
    d = cp.asarray(x)
    m = numpy.array([[0.9, 0.1], [-0.1, 1.1]])
    with _no_attr("list", "ndim"):
        nd.affine_transform(d, m.tolist())
    with _no_attr("float", "ndim"):
        nd.affine_transform(d, 2.0)
    coords = numpy.array([[0.5, 2.0, 4.5], [1.0, 3.5, 6.0]])
    with _no_attr("list", "shape"):
        nd.map_coordinates(d, coords.tolist())
    with _no_attr("list", "shape"):
        nd.map_coordinates(x.tolist(), coords.tolist())  # (coordinates first)
    _same(nd.affine_transform(d, cp.asarray(m), order=1),
          scipy.ndimage.affine_transform(x, m, order=1), rtol=1e-6, atol=1e-9)
    _same(nd.map_coordinates(d, cp.asarray(coords)),
          scipy.ndimage.map_coordinates(x, coords), rtol=1e-6, atol=1e-9)


# --- measurements -----------------------------------------------------------------------

def _labelled():
    x = numpy.arange(30.0).reshape(5, 6)
    labels = ((x % 7 > 2).astype(numpy.int32) + (x > 14)).astype(numpy.int32)
    return x, labels


def test_measurement_inputs_and_labels(cp, nd):
    """``if not isinstance(input, cupy.ndarray): raise TypeError(...)`` (labels too)."""
    x, labels = _labelled()
    for name in ("sum", "sum_labels", "mean", "variance", "standard_deviation",
                 "center_of_mass"):
        fn = getattr(nd, name)
        with pytest.raises(TypeError, match="input must be cupy.ndarray"):
            fn(x.tolist(), cp.asarray(labels), 1)
        with pytest.raises(TypeError, match="input must be cupy.ndarray"):
            fn(2.0)
        with pytest.raises(TypeError, match="label must be cupy.ndarray"):
            fn(cp.asarray(x), labels.tolist(), 1)
    with pytest.raises(TypeError, match="input must be cupy.ndarray"):
        nd.label(labels.tolist())


def test_measurement_indices(cp, nd):
    """``sum_labels``: ``if not isinstance(index, int): raise TypeError(...)``;
    ``mean``/``variance``: ``if cupy.isscalar(index)`` first (a float is taken)."""
    x, labels = _labelled()
    d, dl = cp.asarray(x), cp.asarray(labels)
    for name in ("sum", "sum_labels", "center_of_mass"):
        for index in (1.0, [1, 2]):
            with pytest.raises(TypeError, match="index must be cupy.ndarray or a scalar int"):
                getattr(nd, name)(d, dl, index)
    for name in ("mean", "variance", "standard_deviation"):
        fn, ref = getattr(nd, name), getattr(scipy.ndimage, name)
        with pytest.raises(TypeError, match="index must be cupy.ndarray or a scalar int"):
            fn(d, dl, [1, 2])
        for index in (2.0, 1, cp.asarray([1, 2])):
            want = ref(x, labels, index if isinstance(index, (int, float)) else [1, 2])
            numpy.testing.assert_allclose(cp.asnumpy(fn(d, dl, index)), want, rtol=1e-12)
    numpy.testing.assert_allclose(cp.asnumpy(nd.sum(d, dl, cp.asarray([1, 2]))),
                                  scipy.ndimage.sum(x, labels, [1, 2]))


@pytest.mark.parametrize("name", ["minimum", "maximum"])
def test_minimum_maximum_forms(cp, nd, name):
    """``_select``: ``vals.min()`` of the input (no labels); ``mask = labels > 0``;
    ``cupy.asarray(index)`` (a list is fine), then ``labels.dtype``."""
    fn, ref = getattr(nd, name), getattr(scipy.ndimage, name)
    x, labels = _labelled()
    d, dl = cp.asarray(x), cp.asarray(labels)
    attr = name[:3]
    with _no_attr("list", attr):
        fn(x.tolist())
    with _no_attr("float", attr):
        fn(2.0)
    with pytest.raises(TypeError, match="'>' not supported between instances of 'list' "
                                        "and 'int'"):
        fn(d, labels.tolist())
    with _no_attr("list", "dtype"):
        fn(d, labels.tolist(), [1, 2])
    _same(fn(d, dl, [1, 2]), ref(x, labels, [1, 2]))
    assert float(fn(d, dl)) == ref(x, labels)
    assert float(fn(d)) == ref(x)


def test_find_objects_forms(cp, nd):
    """``if image.dtype.kind not in 'bui': raise TypeError(...)``."""
    _, labels = _labelled()
    with _no_attr("list", "dtype"):
        nd.find_objects(labels.tolist())
    with _no_attr("int", "dtype"):
        nd.find_objects(3)
    with pytest.raises(TypeError, match="^Input dtype float64 cannot be interpreted as an "
                                        "integer$"):
        nd.find_objects(cp.asarray(labels, dtype=numpy.float64))
    assert nd.find_objects(cp.asarray(labels)) == scipy.ndimage.find_objects(labels)


# --- morphology -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["binary_erosion", "binary_dilation", "binary_opening",
                                  "binary_closing"])
def test_binary_morphology_forms(cp, nd, name):
    """``_prep_structure``: an int, a list or a tuple is a box's shape, else
    ``structure.shape``; ``_binary_erosion``: ``if mask.shape != input.shape``."""
    fn, ref = getattr(nd, name), getattr(scipy.ndimage, name)
    x = _img() > -0.5
    d = cp.asarray(x)
    with _no_attr("float", "shape"):
        fn(d, 2.0)
    with _no_attr("list", "shape"):
        fn(d, mask=x.tolist())
    with _no_attr("int", "shape"):
        fn(d, mask=1)
    box = numpy.ones((3, 2), bool)
    _same(fn(d, [3, 2]), ref(x, box))
    _same(fn(d, 2), ref(x, numpy.ones((2, 2), bool)))
    _same(fn(d, mask=cp.asarray(x)), ref(x, mask=x))


def test_distance_transform_sampling_list(cp, nd):
    """``image.ndim`` is read after ``sampling`` (a list is fine)."""
    x = _img() > 0
    with _no_attr("list", "ndim"):
        nd.distance_transform_edt(x.tolist(), sampling=[1.0, 2.0])
    _same(nd.distance_transform_edt(cp.asarray(x), sampling=[1.0, 2.0]),
          scipy.ndimage.distance_transform_edt(x, sampling=[1.0, 2.0]), rtol=1e-12)
