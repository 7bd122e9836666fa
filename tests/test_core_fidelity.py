"""CuPy 14.2's core behaviours (``cupy/_core``) through a real server: flags, the
``ndarray`` constructor, ``cupy._core``'s names, ``min_scalar_type``, generalized
ufuncs, ``ufunc.at`` and the scatter functions, ``__cuda_array_interface__`` and
DLPack."""
from __future__ import annotations

import warnings

import numpy
import pytest

pytestmark = pytest.mark.timeout(60)


class _CAI:
    """An object seen through ``__cuda_array_interface__`` only."""

    def __init__(self, a, strides=True):
        self.a, self.strides = a, strides

    @property
    def __cuda_array_interface__(self):
        desc = self.a.__cuda_array_interface__
        if self.strides:
            desc = dict(desc, strides=self.a.strides)
        return desc


def test_flags_are_read_only(cp):
    f = cp.empty((4, 8))[::2].flags
    for name in ("c_contiguous", "f_contiguous", "owndata"):
        with pytest.raises(AttributeError, match="has no setter"):
            setattr(f, name, True)
    assert (f.c_contiguous, f.f_contiguous, f.owndata) == (False, False, False)
    # any other name is a plain attribute of that Flags object, as CuPy's (a Python
    # class: CuPy's test_ndbspline sets ``writeable``), and of that object only
    a = cp.arange(4.0)
    a.flags.writeable = False
    a[0] = 7.0
    assert a[0] == 7.0 and not hasattr(a.flags, "writeable")
    from gpushare.cupy._core import flags
    assert flags.Flags(1, 2, 3)["OWNDATA"] == 3


def test_core_shares_cupys_objects(cp):
    from gpushare.cupy import _core
    assert _core.ndarray is cp.ndarray and _core.array is cp.array
    assert _core.ReductionKernel is cp.ReductionKernel
    a = _core.ndarray(())
    assert a.flags.owndata and not a.view().flags.owndata


def test_ndarray_order(cp):
    assert cp.ndarray((2, 3, 4), order="F").strides == numpy.ndarray(
        (2, 3, 4), order="F").strides
    assert cp.ndarray((2, 3), order=None).flags.c_contiguous
    # CuPy: anything but C lays the array out in Fortran order
    assert cp.ndarray((2, 3), order="K").flags.f_contiguous
    with pytest.raises(ValueError, match="order not understood"):
        cp.ndarray((2, 3), numpy.float32, strides=(8, 4), order="!")


def test_take_checks_the_axis(cp):
    with pytest.raises(numpy.exceptions.AxisError):
        cp.arange(60).reshape(3, 4, 5).take([2], axis=3)
    with pytest.raises(numpy.exceptions.AxisError):
        cp.array(1).take([0], axis=2)


def test_min_scalar_type_of_device_arrays_and_wrappers(cp):
    sc = cp.array(-1).astype(numpy.float64)
    assert cp.min_scalar_type(sc) is sc.dtype  # CuPy: 0-d arrays too
    assert cp.min_scalar_type([sc, sc]) is sc.dtype
    arr = cp.array([[-1, 1]], dtype="int8")
    assert cp.min_scalar_type((arr, arr)) is arr.dtype
    assert cp.min_scalar_type(_CAI(arr)) is arr.dtype
    assert cp.min_scalar_type([_CAI(arr), _CAI(arr)]) is arr.dtype
    assert cp.min_scalar_type(-129) is numpy.min_scalar_type(-129)


def test_gufunc_axes_and_axis(cp):
    from gpushare.cupy._core._gufuncs import _GUFunc

    def sums(x, out=None):
        return x.sum(axis=-1, out=out)
    g = _GUFunc(sums, "(i)->()", supports_out=True)
    x = cp.arange(24.0).reshape(2, 3, 4)
    assert (g(x, axis=1).get() == x.get().sum(axis=1)).all()
    assert g(x, axis=0, keepdims=True).shape == (1, 3, 4)
    ident = _GUFunc(lambda x: x, "(i,j)->(i,j)")
    r = ident(x, axes=[(0, 2), (2, 0)])
    # the core dims (axes 0 and 2) go in; the output puts i at axis 2 and j at axis 0
    assert r.shape == (4, 3, 2) and (r.get() == x.get().transpose(2, 1, 0)).all()
    with pytest.raises(numpy.exceptions.AxisError):
        g(x, axis=3)


def test_ufunc_at_takes_host_indices_and_values(cp):
    a = cp.zeros((2, 3, 4), numpy.float32)
    cp.add.at(a, (numpy.array([1, 0]), slice(None), [2, 1]), numpy.arange(6).reshape(2, 3))
    e = numpy.zeros((2, 3, 4), numpy.float32)
    numpy.add.at(e, (numpy.array([1, 0]), slice(None), [2, 1]), numpy.arange(6).reshape(2, 3))
    assert (a.get() == e).all()
    mask = numpy.array([[True, False, False], [False, True, True]])
    b = cp.zeros((2, 3), numpy.int32)
    cp.maximum.at(b, mask, cp.array(3, dtype=numpy.uint64))
    assert b.get().tolist() == [[3, 0, 0], [0, 3, 3]]
    with pytest.raises(TypeError, match="cupy.add.at only supports"):
        cp.add.at(cp.zeros(3, numpy.int8), [0, 0], 1)
    with pytest.raises(NotImplementedError, match="cupy_multiply.at"):
        cp.multiply.at(cp.zeros(3), [0], 2)


def test_scatter_functions_and_methods(cp):
    import gpushare.cupyx as cupyx
    a = cp.zeros((2, 3), numpy.float32)
    with pytest.warns(DeprecationWarning, match="scatter_add"):
        cupyx.scatter_add(a, numpy.array([1, 1]), numpy.ones(3))
    assert a.get().tolist() == [[0, 0, 0], [2, 2, 2]]
    with pytest.warns(DeprecationWarning, match="scatter_max"):
        a.scatter_max(([0],), numpy.full(3, 5.0))
    assert a.get().tolist() == [[5, 5, 5], [2, 2, 2]]


def test_scatter_indices_wrap_as_cupys_kernels_do(cp):
    """Out-of-range index arrays wrap around in CuPy's scatter kernels (``ufunc.at``,
    ``cupyx.scatter_*``), where NumPy's ``ufunc.at`` raises IndexError."""
    import warnings
    import gpushare.cupyx as cupyx
    a = cp.zeros(6, dtype=numpy.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        cupyx.scatter_add(a, cp.array([7, -1, 1]), 1.0)
    assert a.tolist() == [0, 2, 0, 0, 0, 1]
    cp.add.at(a, cp.array([13, 0]), cp.array([5, 2], dtype=numpy.float32))
    cp.maximum.at(a, numpy.array([6]), 9.0)
    assert a.tolist() == [9, 7, 0, 0, 0, 1]
    b = cp.zeros((2, 3))
    cp.add.at(b, (cp.array([3]), slice(None)), 1.0)  # the axis' own length
    assert b.tolist() == [[0, 0, 0], [1, 1, 1]]


def test_float_maximum_at_is_cupys_atomic_max(cp):
    """``maximum.at``/``minimum.at`` through an index array are CuPy's ``atomicMax``/
    ``atomicMin`` (``cupy/atomics.cuh``): ``fmaxf``/``fminf``, so NaN loses to a
    number and a float64 element touched is rounded to float32 (NumPy: exact, NaN
    wins); a boolean mask or plain slices take CuPy's exact elementwise paths."""
    import gpushare.cupyx as cupyx
    z = cp.array([0.3, numpy.nan, 5.0, 0.1])
    cp.maximum.at(z, cp.array([0, 1, 0]), cp.array([numpy.nan, 2.0, 0.2]))
    assert z.tolist() == [float(numpy.float32(0.3)), 2.0, 5.0, 0.1]
    big = cp.zeros(2)
    cp.maximum.at(big, [0, 1], cp.array([0.1, 1e300]))
    assert big.tolist() == [float(numpy.float32(0.1)), numpy.inf]
    f = cp.array([0.3, 0.7], numpy.float32)
    cp.minimum.at(f, [0, 0, 1], cp.array([numpy.nan, 0.1, 1.0], numpy.float32))
    assert f.get().tolist() == numpy.array([0.1, 0.7], numpy.float32).tolist()
    exact = cp.array([0.3, 0.7])
    cp.maximum.at(exact, exact > 0.5, 0.9)
    cp.minimum.at(exact, slice(None), 0.8)
    assert exact.tolist() == [0.3, 0.8]
    ints = cp.array([3, 7])
    cp.maximum.at(ints, [0, 0], [5, 9])
    assert ints.tolist() == [9, 7]
    s = cp.array([0.3, 0.7])
    with pytest.warns(DeprecationWarning, match="scatter_max"):
        cupyx.scatter_max(s, cp.array([1]), 0.5)
    assert s.tolist() == [0.3, float(numpy.float32(0.7))]


def test_ufuncs_read_cuda_array_interface(cp):
    a = cp.arange(6, dtype=numpy.float32).reshape(2, 3).T
    r = cp.add(_CAI(a), numpy.float32(3))
    assert (r.get() == a.get() + 3).all()
    v = cp.asarray(_CAI(a))  # a view of the same server memory
    assert v.data.ptr == a.data.ptr and v.strides == a.strides

    class Foreign:
        __cuda_array_interface__ = {"shape": (3,), "typestr": "<f4", "data": (0x1000, False),
                                    "version": 3, "strides": None}
    with pytest.raises(ValueError, match="not the address of a gpushare array"):
        cp.asarray(Foreign())


def test_kernels_read_cuda_array_interface(cp):
    """ElementwiseKernel and ReductionKernel take such objects as CuPy's do: as the
    gpushare array their interface points into (in place, for an output)."""
    a = cp.arange(6, dtype=numpy.float32)
    out = cp.zeros(6, dtype=numpy.float32)
    twice = cp.ElementwiseKernel("T x", "T y", "y = 2 * x", "gs_cai_twice")
    twice(_CAI(a), _CAI(out))
    assert out.tolist() == [0, 2, 4, 6, 8, 10]
    total = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "gs_cai_sum")
    assert float(total(_CAI(a[1:]))) == 15.0


def test_cuda_array_interface_export_version(cp):
    from gpushare.cupy import _util
    a = cp.zeros(10)
    assert a.__cuda_array_interface__["version"] == 3
    assert a.__cuda_array_interface__["stream"] == 1
    old = _util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION
    try:
        _util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = 2
        desc = a.__cuda_array_interface__
        assert desc["version"] == 2 and "stream" not in desc
        assert desc["data"] == (a.data.ptr, False) and desc["strides"] is None
        _util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = 4
        with pytest.raises(ValueError, match="only be set to 3"):
            a.__cuda_array_interface__
    finally:
        _util.CUDA_ARRAY_INTERFACE_EXPORT_VERSION = old


def test_dlpack(cp):
    a = cp.arange(6, dtype=numpy.float32).reshape(2, 3)
    b = cp.from_dlpack(a)
    assert b.data.ptr == a.data.ptr and (b.get() == a.get()).all()
    b[0, 0] = 7
    assert float(a[0, 0]) == 7  # a view, as CuPy's zero-copy import
    assert cp.from_dlpack(cp.array(1.5)).shape == ()
    host = numpy.from_dlpack(a, device="cpu")
    assert (host == a.get()).all()
    with pytest.raises(ValueError, match="without copy"):
        a.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(9, 0))
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(2, 2 ** 30))
    with pytest.raises(BufferError, match="copy=True"):
        cp.from_dlpack(a, copy=True)
    with pytest.raises(NotImplementedError):
        cp.from_dlpack(a, device=a.device)
    with pytest.raises(BufferError, match="gpushare"):
        a.__dlpack__()
    with pytest.raises(TypeError, match="CPU arrays"):
        cp.from_dlpack(numpy.arange(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numpy.exceptions.VisibleDeprecationWarning)
        with pytest.raises(RuntimeError, match="different from the backend"):
            cp.fromDlpack(numpy.arange(3).__dlpack__())  # (a host capsule: CuPy's error)


def test_cufft_version_is_the_servers(cp):
    """``cupy.cuda.cufft.getVersion`` answers for the server (the CPU backend, which
    emulates CUDA 12.0, that of its cuFFT: 11000), so programs can test for cuFFT
    features (JIT callbacks need 11303 or more) instead of failing on a missing name."""
    v = cp.cuda.cufft.getVersion()
    assert isinstance(v, int) and v >= 10000
    if cp.cuda.runtime.runtimeGetVersion() == 12000:
        assert v == 11000
