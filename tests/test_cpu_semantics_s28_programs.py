"""What running real CuPy programs (``tests/programs/``) through gpushare found, each
read in CuPy 14.2's source: ``cupyx.scipy.ndimage``'s per-axis arguments given as NumPy
arrays and of the wrong length, ..."""
from __future__ import annotations

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def ndi(cp):
    from gpushare.cupyx.scipy import ndimage
    return ndimage


# --- ndimage's per-axis arguments (cupyx/scipy/ndimage/_util.py: _fix_sequence_arg) -------

def test_ndimage_per_axis_arguments_take_host_arrays(cp, ndi):
    # (``_fix_sequence_arg(offset, input.ndim, 'offset', float)`` makes any iterable a
    # list of floats on the host: affine_transform, shift, zoom, the filters' sigma,
    # size and origin; a device array there is read the same way)
    a = cp.asarray(numpy.arange(64, dtype=numpy.float32).reshape(8, 8))
    want = ndi.affine_transform(a, cp.eye(2), offset=(1.0, 2.0), order=1).get()
    for off in (numpy.array([1.0, 2.0]), cp.array([1.0, 2.0])):
        got = ndi.affine_transform(a, cp.eye(2), offset=off, order=1)
        numpy.testing.assert_array_equal(got.get(), want)
    numpy.testing.assert_array_equal(
        ndi.shift(a, numpy.array([1.5, -1.0]), order=1).get(),
        ndi.shift(a, (1.5, -1.0), order=1).get())
    assert ndi.zoom(a, numpy.array([0.5, 2.0]), order=1).shape == (4, 16)
    numpy.testing.assert_array_equal(
        ndi.gaussian_filter(a, numpy.array([1.0, 2.0])).get(),
        ndi.gaussian_filter(a, (1.0, 2.0)).get())
    numpy.testing.assert_array_equal(
        ndi.uniform_filter(a, numpy.array([3, 1]), origin=numpy.array([0, 1])).get(),
        ndi.uniform_filter(a, (3, 1), origin=(0, 1)).get())
    # (elsewhere a host array is still refused, as every CuPy function refuses it: the
    # interpolations' ``_filter_input`` hands it to ``cupy.ascontiguousarray``, typed
    # ``_ndarray_base a`` in Cython, after their checks; the H200 run's words)
    cython = ("Argument 'a' has incorrect type (expected cupy._core.core._ndarray_base, "
              "got numpy.ndarray)")
    _raises(TypeError, cython, lambda: ndi.affine_transform(a.get(), cp.eye(2)))
    _raises(TypeError, cython, lambda: ndi.shift(a.get(), 1.0, order=1))
    _raises(ValueError, "spline order is not supported",  # (_check_parameter first)
            lambda: ndi.zoom(a.get(), 2.0, order=7))
    # (a filter's ``_filters_core._call_kernel``: ``cupy.shares_memory(output, input)``,
    # after the filter's own checks: the H200 run's words)
    _raises(TypeError, cython.replace("'a'", "'b'"), lambda: ndi.uniform_filter(a.get(), 3))
    _raises(TypeError, cython.replace("'a'", "'b'"),
            lambda: ndi.correlate(a.get(), cp.ones((3, 3))))
    _raises(RuntimeError, "boundary mode not supported (actual: bogus)",
            lambda: ndi.uniform_filter(a.get(), 3, mode="bogus"))


def test_ndimage_per_axis_argument_of_wrong_length_is_named(cp, ndi):
    # (``_fix_sequence_arg``: "{name} must have length equal to input rank", where SciPy
    # says "sequence argument ..."; ``_min_or_max_filter``'s ``_check_nd_args`` checks
    # sizes: ValueError)
    a = cp.ones((6, 6), dtype=cp.float32)
    three = (1, 1, 1)
    msg = "{} must have length equal to input rank".format
    _raises(RuntimeError, msg("sigma"), lambda: ndi.gaussian_filter(a, three))
    _raises(RuntimeError, msg("order"), lambda: ndi.gaussian_filter(a, 1, order=(0, 0, 0)))
    _raises(RuntimeError, msg("mode"), lambda: ndi.gaussian_filter(a, 1, mode=("wrap",) * 3))
    _raises(RuntimeError, msg("sigma"), lambda: ndi.gaussian_laplace(a, three))
    _raises(RuntimeError, msg("sigma"), lambda: ndi.gaussian_gradient_magnitude(a, three))
    _raises(RuntimeError, msg("size"), lambda: ndi.uniform_filter(a, (3, 3, 3)))
    _raises(RuntimeError, msg("origin"), lambda: ndi.uniform_filter(a, 3, origin=(0, 0, 0)))
    _raises(RuntimeError, msg("size"), lambda: ndi.median_filter(a, (3, 3, 3)))
    _raises(RuntimeError, msg("origin"),
            lambda: ndi.correlate(a, cp.ones((3, 3)), origin=(0, 0, 0)))
    _raises(ValueError, "sizes must match len(axes)", lambda: ndi.maximum_filter(a, (3, 3, 3)))
    _raises(ValueError, "sizes must match len(axes)", lambda: ndi.grey_erosion(a, (3, 3, 3)))
    _raises(RuntimeError, msg("origin"), lambda: ndi.binary_erosion(a > 0, origin=(0, 0, 0)))
    _raises(RuntimeError, msg("offset"),
            lambda: ndi.affine_transform(a, cp.eye(2), offset=(1.0, 1.0, 1.0)))
    _raises(RuntimeError, msg("sigma"),
            lambda: ndi.fourier_gaussian(a.astype(cp.complex64), three))
    _raises(RuntimeError, msg("shift"), lambda: ndi.fourier_shift(a.astype(cp.complex64), three))
    _raises(RuntimeError, msg("shift"), lambda: ndi.shift(a, three))
    # (with ``axes``, the length wanted is the number of axes filtered)
    assert ndi.gaussian_filter(a, (1.0,), axes=(1,)).shape == (6, 6)
    _raises(RuntimeError, msg("sigma"), lambda: ndi.gaussian_filter(a, (1.0, 1.0), axes=(1,)))


# --- sparse constructors (cupyx/scipy/sparse/_compressed.py, _coo.py, _dia.py: __init__) --

def test_sparse_constructor_refuses_a_list_or_host_array(cp, sp):
    # (none of CuPy's ``__init__`` branches takes one: a device array is ``isdense``, a
    # shape or a tuple of arrays its own branch; the last ``else`` raises, where SciPy's
    # constructors build from it)
    dense = numpy.eye(3)
    for name, exc, message in (
            ("csr_matrix", ValueError, "Unsupported initializer format"),
            ("csc_matrix", ValueError, "Unsupported initializer format"),
            ("csr_array", ValueError, "Unsupported initializer format"),
            ("coo_matrix", TypeError, "invalid input format"),
            ("coo_array", TypeError, "invalid input format"),
            ("dia_matrix", ValueError, "unrecognized form for dia_matrix constructor")):
        cls = getattr(sp, name)
        _raises(exc, message, lambda: cls(dense))
        _raises(exc, message, lambda: cls(dense.tolist()))
        if name == "dia_matrix":  # (CuPy's dia_matrix has no dense branch: the GPU's)
            _raises(exc, message, lambda: cls(cp.asarray(dense)))
        else:
            assert cls(cp.asarray(dense)).nnz == 3
    import scipy.sparse
    assert sp.csr_matrix(scipy.sparse.csr_matrix(dense)).nnz == 3
    assert sp.csr_matrix((3, 4)).shape == (3, 4)
    assert sp.csr_matrix((cp.ones(2), (cp.array([0, 1]), cp.array([1, 2]))),
                         shape=(3, 3)).nnz == 2


# --- cupy.fft's n-d transforms (cupy/fft/_fft.py: _default_fft_func, _prep_fftn_axes) --

def test_fft_nd_axes_past_the_array_are_cupys_valueerror(cp):
    # (``_default_fft_func`` calls ``_prep_fftn_axes`` for any C-ordered n-d input before
    # choosing a path: "The specified axes exceed the array dimensions.", where NumPy
    # gives IndexError or AxisError; and s and axes of different lengths)
    a = cp.asarray(numpy.arange(24.0).reshape(4, 6))
    msg = "The specified axes exceed the array dimensions."
    _raises(ValueError, msg, lambda: cp.fft.rfft2(a, axes=(0, 2)))
    _raises(ValueError, msg, lambda: cp.fft.fft2(a, axes=(-3, 1)))
    _raises(ValueError, msg, lambda: cp.fft.irfftn(a, axes=(5,)))
    _raises(ValueError, msg, lambda: cp.fft.ifftn(a, None, (0, 1, 2)))
    _raises(ValueError, "Shape and axes have different lengths.",
            lambda: cp.fft.fftn(a, s=(4, 4, 4), axes=(0, 1)))
    assert cp.fft.rfft2(a, axes=(1, 0)).shape == (3, 6)
    assert cp.fft.fftn(a, axes=(-1,)).shape == (4, 6)


# --- ndimage filters with a mode per axis (cupyx/scipy/ndimage/_filters_core.py:
#     _check_nd_args makes ``mode`` one per axis for correlate, convolve and the rank
#     filters; SciPy's refuse a sequence) -------------------------------------------------

def _cupys_nd_correlate(x, w, modes, origins):
    """``_filters_core._generate_nd_kernel``'s correlation, literally: each axis' index
    through ``_util._generate_boundary_condition_ops`` (``'wrap'`` is ``'grid-wrap'``
    there); with several modes a ``'constant'`` axis' outside index is -1, not ``cval``
    (``constant_mode`` needs one mode), and the element at that flat offset is read: the
    row before's, or the memory before the array (zero on the H200 run, a fresh pool's)."""
    def index(ix, n, mode):
        if mode == "reflect":
            ix = -1 - ix if ix < 0 else ix
            ix %= 2 * n
            return min(ix, 2 * n - 1 - ix)
        if mode == "mirror":
            if n == 1:
                return 0
            ix = 1 + (abs(ix) - 1) % ((n - 1) * 2)
            return min(ix, 2 * n - 2 - ix)
        if mode == "nearest":
            return min(max(ix, 0), n - 1)
        if mode == "wrap":
            return ix % n
        return -1 if ix < 0 or ix >= n else ix  # constant
    (n0, n1), (w0, w1) = x.shape, w.shape
    offsets = (w0 // 2 + origins[0], w1 // 2 + origins[1])
    flat = x.ravel()
    out = numpy.zeros(x.shape)
    for i in range(n0):
        for j in range(n1):
            for a in range(w0):
                for b in range(w1):
                    r = index(i - offsets[0] + a, n0, modes[0])
                    c = index(j - offsets[1] + b, n1, modes[1])
                    k = r * n1 + c
                    out[i, j] += w[a, b] * (float(flat[k]) if k >= 0 else 0.0)
    return out


def test_ndimage_correlate_and_rank_filters_take_a_mode_per_axis(cp, ndi):
    import scipy.ndimage as sndi
    rs = numpy.random.RandomState(0)
    ah = rs.rand(6, 7).astype(numpy.float32)
    u, v = rs.rand(3), rs.rand(4)
    a = cp.asarray(ah)
    w = cp.asarray(numpy.outer(u, v).astype(numpy.float32))
    for modes in (("wrap", "reflect"), ("nearest", "mirror"), ("constant", "wrap")):
        # (separable weights: the same as one pass per axis, each with its own mode; a
        # ``'constant'`` among several modes reads no ``cval``: ``_cupys_nd_correlate``,
        # where the H200 gave the first rows' sums without the outside row: 0.622424 at
        # [0, 0], not 2.47167 with ``cval=2``)
        if "constant" in modes:
            want = _cupys_nd_correlate(ah, w.get(), modes, (0, 1))
            numpy.testing.assert_allclose(
                want, sndi.correlate1d(sndi.correlate1d(ah.astype(numpy.float64), u, 0,
                                                        mode=modes[0], cval=0.0),
                                       v, 1, mode=modes[1], origin=1), rtol=1e-6)
        else:
            want = sndi.correlate1d(sndi.correlate1d(ah.astype(numpy.float64), u, 0,
                                                     mode=modes[0], cval=2.0),
                                    v, 1, mode=modes[1], cval=2.0, origin=1)
        got = ndi.correlate(a, w, mode=modes, cval=2.0, origin=(0, 1))
        assert got.dtype == numpy.float32 and got.flags.c_contiguous
        numpy.testing.assert_allclose(got.get(), want, rtol=1e-5)
        want = sndi.convolve1d(sndi.convolve1d(ah.astype(numpy.float64), u, 0, mode=modes[0]),
                               v, 1, mode=modes[1])
        numpy.testing.assert_allclose(ndi.convolve(a, w, mode=modes).get(), want, rtol=1e-5)
        # (a rank filter: its interior rows see only the second axis' mode, its interior
        # columns only the first's)
        got = ndi.median_filter(a, (3, 5), mode=modes).get()
        numpy.testing.assert_array_equal(got[:, 3], sndi.median_filter(ah, (3, 5),
                                                                       mode=modes[0])[:, 3])
        numpy.testing.assert_array_equal(got[2:4], sndi.median_filter(ah, (3, 5),
                                                                      mode=modes[1])[2:4])
    # (a constant second axis reads the row before's last element, inside the array)
    got = ndi.correlate(a, w, mode=("wrap", "constant"), cval=2.0, origin=(0, 1))
    numpy.testing.assert_allclose(
        got.get(), _cupys_nd_correlate(ah, w.get(), ("wrap", "constant"), (0, 1)), rtol=1e-5)
    out = cp.empty((6, 7))
    assert ndi.correlate(a, w, mode=("wrap", "reflect"), output=out) is out
    numpy.testing.assert_allclose(out.get(), ndi.correlate(a, w, mode=("wrap", "reflect")).get(),
                                  rtol=1e-6)
    assert ndi.rank_filter(a, 2, 3, mode=["wrap", "wrap"]).shape == (6, 7)
    _raises(RuntimeError, "origin must have length equal to input rank",
            lambda: ndi.correlate(a, w, mode=("wrap", "reflect", "wrap")))
