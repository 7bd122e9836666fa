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
    # (elsewhere a host array is still refused, as every CuPy function refuses it)
    _raises(TypeError, "Unsupported type <class 'numpy.ndarray'>",
            lambda: ndi.affine_transform(a.get(), cp.eye(2)))


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
