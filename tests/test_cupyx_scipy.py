"""``cupyx.scipy``'s function modules and ``cupyx.rsqrt`` run on the server.

``signal``, ``signal.windows``, ``linalg``, ``interpolate``, ``spatial``,
``spatial.distance`` and ``fftpack`` are CuPy 14.2's lists of names (read off its
source); the CPU backend answers with SciPy's functions, the ``cupy`` backend with
CuPy's. ``interpolate``'s classes and ``spatial``'s ``KDTree``/``Delaunay`` are objects
on the server, and so are ``signal``'s LTI systems and CZT plans (``test_sparse.py`` has
``sparse``'s).
"""
from __future__ import annotations

import importlib

import numpy
import pytest
import scipy.interpolate
import scipy.linalg
import scipy.signal
import scipy.spatial
import scipy.spatial.distance

pytestmark = pytest.mark.timeout(120)


def _module(name: str):
    return importlib.import_module(f"gpushare.cupyx.scipy.{name}")


def test_signal_functions_and_windows(cp):
    sig = _module("signal")
    x = numpy.random.default_rng(0).standard_normal(64).astype(numpy.float32)
    k = numpy.array([0.25, 0.5, 0.25], numpy.float32)
    got = sig.convolve(cp.asarray(x), cp.asarray(k))
    assert isinstance(got, cp.ndarray) and got.dtype == numpy.float32
    # (float32 products summed on the GPU in its own order: the H200's differ from
    # SciPy's by up to 1.8e-7, a few float32 ulps of the terms, so an absolute bound)
    numpy.testing.assert_allclose(got.get(), scipy.signal.convolve(x, k), rtol=1e-6,
                                  atol=1e-6)
    b, a = sig.butter(3, 0.25)
    numpy.testing.assert_allclose(b.get(), scipy.signal.butter(3, 0.25)[0])
    numpy.testing.assert_allclose(sig.lfilter(b, a, cp.asarray(x)).get(),
                                  scipy.signal.lfilter(b.get(), a.get(), x), rtol=1e-5)
    from gpushare.cupyx.scipy.signal import windows
    assert windows is _module("signal.windows")
    numpy.testing.assert_allclose(windows.hann(8).get(), scipy.signal.windows.hann(8))
    numpy.testing.assert_allclose(sig.get_window("hamming", 8).get(),
                                  scipy.signal.get_window("hamming", 8))
    assert issubclass(sig.BadCoefficients, UserWarning)


def test_signal_lti_systems_and_czt_plans_are_server_objects(cp):
    sig = _module("signal")
    s = sig.lti([1.0], [1.0, 2.0, 1.0])
    ref = scipy.signal.lti([1.0], [1.0, 2.0, 1.0])
    # CuPy's hierarchy: a continuous transfer function is a TransferFunction and an lti
    assert type(s).__name__ == "TransferFunctionContinuous"
    assert isinstance(s, sig.lti) and isinstance(s, sig.TransferFunction)
    assert not isinstance(s, sig.dlti)
    numpy.testing.assert_allclose(s.poles.get(), ref.poles)
    t, y = s.step(N=6)
    assert isinstance(y, cp.ndarray)
    numpy.testing.assert_allclose(y.get(), ref.step(N=6)[1])
    ss = s.to_ss()
    assert isinstance(ss, sig.StateSpace) and isinstance(-ss, sig.StateSpace)
    numpy.testing.assert_allclose(ss.A.get(), ref.to_ss().A)
    # (CuPy's ``__mul__`` of a scalar reaches ``self.B @ 2``: its matmul's TypeError,
    # as on the GPU; an array scales)
    with pytest.raises(TypeError, match=r"^Argument 'b' has incorrect type \(expected "
                       r"cupy\._core\.core\._ndarray_base, got int\)$"):
        ss * 2
    numpy.testing.assert_allclose((ss * cp.asarray([[2.0]])).C.get(), (ref.to_ss() * 2).C)
    d = sig.dlti([1.0], [1.0, -0.5], dt=0.1)
    assert isinstance(d, sig.dlti) and d.dt == 0.1
    x = numpy.arange(8.0)
    zoom = sig.ZoomFFT(8, 0.5)
    assert isinstance(zoom, sig.CZT)
    numpy.testing.assert_allclose(zoom(cp.asarray(x)).get(), scipy.signal.ZoomFFT(8, 0.5)(x),
                                  atol=1e-9)
    result = sig.place_poles(cp.asarray(ref.to_ss().A), cp.asarray(ref.to_ss().B),
                             cp.asarray([-2.0, -3.0]))
    numpy.testing.assert_allclose(sorted(result.computed_poles.get()), [-3.0, -2.0])


def test_linalg_functions(cp):
    sl = _module("linalg")
    m = numpy.array([[4.0, 3.0], [6.0, 3.0]])
    lu, piv = sl.lu_factor(cp.asarray(m))
    ref_lu, ref_piv = scipy.linalg.lu_factor(m)
    numpy.testing.assert_allclose(lu.get(), ref_lu)
    assert piv.tolist() == ref_piv.tolist()
    numpy.testing.assert_allclose(sl.lu_solve((lu, piv), cp.asarray([1.0, 2.0])).get(),
                                  numpy.linalg.solve(m, [1.0, 2.0]))
    # CuPy's cupyx.scipy.linalg.kron is cupy.kron (SciPy no longer has one)
    assert sl.kron(cp.eye(2), cp.ones((2, 3))).get().tolist() == \
        numpy.kron(numpy.eye(2), numpy.ones((2, 3))).tolist()
    numpy.testing.assert_allclose(sl.toeplitz(cp.asarray([1.0, 2.0, 3.0])).get(),
                                  scipy.linalg.toeplitz([1.0, 2.0, 3.0]))


def test_interpolate_spatial_and_fftpack_functions(cp):
    si = _module("interpolate")
    xs, ys = numpy.arange(5.0), numpy.arange(5.0) ** 2
    at = numpy.array([0.5, 2.25])
    numpy.testing.assert_allclose(
        si.pchip_interpolate(cp.asarray(xs), cp.asarray(ys), cp.asarray(at)).get(),
        scipy.interpolate.pchip_interpolate(xs, ys, at))
    dist = _module("spatial.distance")
    assert _module("spatial").distance is dist
    a, b = numpy.eye(3), numpy.ones((2, 3))
    try:
        numpy.testing.assert_allclose(dist.cdist(cp.asarray(a), cp.asarray(b)).get(),
                                      scipy.spatial.distance.cdist(a, b))
    except RuntimeError as exc:  # (C) CuPy's cdist is cuVS', not on every GPU box: the
        from _servers import BACKEND  # rest of the test still runs there
        if BACKEND != "cupy" or str(exc) != ("cuVS >= 24.12 or pylibraft < 24.12 should be "
                                             "installed to use this feature"):
            raise
    points = numpy.random.default_rng(5).random((40, 2))
    tree = _module("spatial").KDTree(cp.asarray(points))
    dist_, index = tree.query(cp.asarray([[0.5, 0.5], [0.1, 0.9]]), k=2)
    ref_dist, ref_index = scipy.spatial.KDTree(points).query([[0.5, 0.5], [0.1, 0.9]], k=2)
    numpy.testing.assert_allclose(dist_.get(), ref_dist)
    assert index.tolist() == ref_index.tolist() and tree.n == 40
    near = tree.query_ball_point(cp.asarray([0.5, 0.5]), 0.1)  # CuPy's: a list of arrays
    assert type(near) is list and near[0].tolist() == sorted(
        scipy.spatial.KDTree(points).query_ball_point([0.5, 0.5], 0.1))
    numpy.testing.assert_allclose(_module("fftpack").fft(cp.arange(4.0)).get(),
                                  numpy.fft.fft(numpy.arange(4.0)))


@pytest.mark.parametrize("dtype, expected", [
    ("int8", "float16"), ("int32", "float64"), ("float32", "float32"),
    ("float64", "float64"), ("complex64", "complex64")])
def test_rsqrt_dtypes_and_values(cp, dtype, expected):
    import gpushare.cupyx as cupyx
    x = numpy.array([1, 4, 16], dtype=dtype)
    got = cupyx.rsqrt(cp.asarray(x))
    assert got.dtype == numpy.dtype(expected)
    if x.dtype.kind == "c":
        # (cupyx/_rsqrt.py's 'F->F'/'D->D' loops are ``out0 = rsqrt(in0)``, and CUDA's
        # rsqrt has no complex overload: NVRTC refuses the kernel, as on an H200; the
        # call was pipelined, its error surfaces at the next wait)
        from gpushare.errors import CompileException
        with pytest.raises(CompileException, match=r'\.cubin\.cu\(17\): error: no instance '
                           r'of overloaded function "rsqrt" matches the argument list\n'
                           r'            argument types are: \(const in0_type\)\n'):
            got.get()
        return
    numpy.testing.assert_allclose(got.get(), 1 / numpy.sqrt(x.astype(numpy.complex128)),
                                  rtol=1e-3)


def test_rsqrt_scalars_out_and_host_arrays(cp):
    import gpushare.cupyx as cupyx
    assert float(cupyx.rsqrt(cp.asarray(4.0))) == 0.5
    out = cp.zeros(2, dtype=numpy.float32)
    assert cupyx.rsqrt(cp.asarray([1.0, 0.25], dtype=numpy.float32), out=out) is out
    assert out.tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="Unsupported type"):
        cupyx.rsqrt(numpy.ones(2))


def test_filter_states_are_cupys(cp):
    """CuPy's filters keep their state as the last inputs then the last outputs, oldest
    first (not SciPy's delay line); the CPU backend keeps CuPy's, so a signal filtered
    in pieces, each piece starting from the state the last one returned, is the signal
    filtered at once, and ``lfiltic``/``lfilter_zi``/``sosfilt_zi`` states mean what
    they mean in CuPy."""
    sig = _module("signal")
    rng = numpy.random.default_rng(3)
    x = rng.random(60)
    b, a = numpy.array([0.3, 0.2, 0.1]), numpy.array([1.0, -0.4, 0.1, 0.05])
    whole = scipy.signal.lfilter(b, a, x)
    zi = cp.zeros(len(b) - 1 + len(a) - 1)
    y1, zf = sig.lfilter(cp.asarray(b), cp.asarray(a), cp.asarray(x[:25]), zi=zi)
    # the state: the last 2 inputs, then the last 3 outputs, oldest first
    numpy.testing.assert_allclose(zf.get(), numpy.r_[x[23:25], whole[22:25]])
    y2, _ = sig.lfilter(cp.asarray(b), cp.asarray(a), cp.asarray(x[25:]), zi=zf)
    numpy.testing.assert_allclose(numpy.r_[y1.get(), y2.get()], whole)
    # lfiltic takes the past newest first (as SciPy's) and gives CuPy's state
    state = sig.lfiltic(cp.asarray(b), cp.asarray(a), cp.asarray(whole[:25][::-1]),
                        cp.asarray(x[:25][::-1]))
    numpy.testing.assert_allclose(state.get(), zf.get())
    step, _ = sig.lfilter(cp.asarray(b), cp.asarray(a), cp.full(8, 2.0),
                          zi=2.0 * sig.lfilter_zi(cp.asarray(b), cp.asarray(a)))
    numpy.testing.assert_allclose(step.get(), 2.0 * b.sum() / a.sum())
    # float32 in, float32 out, whatever the state's type (as CuPy)
    y32, _ = sig.lfilter(cp.asarray(b, dtype=numpy.float32), cp.asarray(a, numpy.float32),
                         cp.asarray(x, numpy.float32), zi=zi)
    assert y32.dtype == numpy.float32
    # along another axis
    x2 = rng.random((40, 3))
    z2 = cp.zeros((5, 3))
    p1, z2 = sig.lfilter(cp.asarray(b), cp.asarray(a), cp.asarray(x2[:15]), axis=0, zi=z2)
    p2, _ = sig.lfilter(cp.asarray(b), cp.asarray(a), cp.asarray(x2[15:]), axis=0, zi=z2)
    numpy.testing.assert_allclose(numpy.r_[p1.get(), p2.get()],
                                  scipy.signal.lfilter(b, a, x2, axis=0))


def test_sos_filter_states_are_cupys(cp):
    sig = _module("signal")
    sos = scipy.signal.butter(4, 0.2, output="sos")
    x = numpy.random.default_rng(4).random(90)
    y1, zf = sig.sosfilt(cp.asarray(sos), cp.asarray(x[:30]), zi=cp.zeros((2, 4)))
    assert zf.shape == (2, 4)
    y2, _ = sig.sosfilt(cp.asarray(sos), cp.asarray(x[30:]), zi=zf)
    numpy.testing.assert_allclose(numpy.r_[y1.get(), y2.get()], scipy.signal.sosfilt(sos, x))
    zi = sig.sosfilt_zi(cp.asarray(sos))
    steady, _ = sig.sosfilt(cp.asarray(sos), cp.full(10, 3.0), zi=3.0 * zi)
    numpy.testing.assert_allclose(steady.get(), 3.0)
    # CuPy's sosfilt does not check sos[:, 3] (its _validate_sos is sosfiltfilt's): its
    # kernels read b0, b1, b2, a1, a2 and take a0 as 1
    scaled = sos * 2
    unit_a0 = scaled.copy()
    unit_a0[:, 3] = 1
    want = scipy.signal.sosfilt(unit_a0, x)
    numpy.testing.assert_allclose(sig.sosfilt(cp.asarray(scaled), cp.asarray(x)).get(), want)
    y, _ = sig.sosfilt(cp.asarray(scaled), cp.asarray(x), zi=cp.zeros((2, 4)))
    numpy.testing.assert_allclose(y.get(), want)
    with pytest.raises(ValueError, match="should be all ones"):  # (sosfiltfilt checks)
        sig.sosfiltfilt(cp.asarray(scaled), cp.asarray(x))


def test_signal_functions_take_host_arrays_as_cupys_do(cp):
    """cupyx.scipy.signal's functions begin with cupy.asarray: a NumPy array is data."""
    sig = _module("signal")
    x = numpy.zeros(8)
    x[0] = 1
    f, p = sig.welch(x, nperseg=8)
    ref_f, ref_p = scipy.signal.welch(x, nperseg=8)
    assert isinstance(p, cp.ndarray)
    # (a bin that is zero but for rounding: cuFFT's 1e-36 where SciPy's is 5e-34)
    numpy.testing.assert_allclose(p.get(), ref_p, atol=1e-15 * float(abs(ref_p).max()))
    numpy.testing.assert_allclose(sig.czt(cp.asarray(x)).get(), scipy.signal.czt(x), atol=1e-12)


def test_interpolators_are_objects_on_the_server(cp):
    """An interpolator is a handle: calling it, its methods and its attributes reach the
    server's object; methods that make new interpolators return handles of the right
    class; host arrays are data to it (as to CuPy's, which begin with cupy.asarray)."""
    si = _module("interpolate")
    xs = numpy.arange(6.0)
    ys = numpy.sin(xs)
    at = numpy.array([0.5, 2.25, 4.75])
    spline = si.CubicSpline(cp.asarray(xs), cp.asarray(ys))
    ref = scipy.interpolate.CubicSpline(xs, ys)
    assert isinstance(spline, si.CubicSpline) and isinstance(spline, si.PPoly)
    got = spline(cp.asarray(at))
    assert isinstance(got, cp.ndarray)
    numpy.testing.assert_allclose(got.get(), ref(at))
    numpy.testing.assert_allclose(spline(at).get(), ref(at))              # a host array
    # an attribute: CuPy's CubicSpline is make_interp_spline's as a piecewise polynomial
    pp = scipy.interpolate.PPoly.from_spline(scipy.interpolate.make_interp_spline(xs, ys).tck)
    numpy.testing.assert_allclose(spline.c.get(), pp.c, atol=1e-12)
    slope = spline.derivative()
    assert isinstance(slope, si.PPoly)
    numpy.testing.assert_allclose(slope(cp.asarray(at)).get(), ref.derivative()(at))
    numpy.testing.assert_allclose(float(spline.integrate(0, 3)), ref.integrate(0, 3))
    bspl = si.make_interp_spline(cp.asarray(xs), cp.asarray(ys), k=3)
    assert isinstance(bspl, si.BSpline) and bspl.k == 3
    numpy.testing.assert_allclose(bspl(cp.asarray(at)).get(),
                                  scipy.interpolate.make_interp_spline(xs, ys, k=3)(at))
    linear = si.interp1d(cp.asarray(xs), cp.asarray(ys), bounds_error=False,
                         fill_value=-1.0)
    numpy.testing.assert_allclose(linear(cp.asarray([0.5, 9.0])).get(),
                                  [numpy.interp(0.5, xs, ys), -1.0])
    with pytest.raises(AttributeError, match="no attribute 'nosuch'"):
        spline.nosuch
    with pytest.raises(AttributeError):
        spline._private
    assert callable(spline.from_spline)     # classmethods are served too (below)
    with pytest.raises(ValueError):         # the server's error, as CuPy's
        si.CubicSpline(cp.asarray(xs), cp.asarray(ys[:3]))


def test_wavelets_scipy_dropped(cp):
    """ricker, morlet, morlet2 and qmf: deprecated in CuPy 14 (a warning), gone from
    SciPy; the CPU backend has CuPy's."""
    sig = _module("signal")
    with pytest.warns(numpy.exceptions.VisibleDeprecationWarning):
        r = sig.ricker(7, 2.0)
    x = numpy.arange(7) - 3.0
    numpy.testing.assert_allclose(
        r.get(), 2 / (numpy.sqrt(6.0) * numpy.pi ** 0.25) * (1 - x * x / 4) * numpy.exp(-x * x / 8))
    with pytest.warns(numpy.exceptions.VisibleDeprecationWarning):
        assert sig.qmf(cp.asarray([1.0, 2.0, 3.0])).tolist() == [3.0, -2.0, 1.0]
    with pytest.warns(numpy.exceptions.VisibleDeprecationWarning):
        m = sig.morlet2(5, 2.0)
    assert m.dtype == numpy.complex128 and abs(complex(m[2]) - (0.5 ** 0.5) * numpy.pi ** -0.25) < 1e-12
    with pytest.warns(numpy.exceptions.VisibleDeprecationWarning):
        assert sig.morlet(4).shape == (4,)


def test_filters_on_a_server_without_scipy_say_so(monkeypatch):
    """A CPU-backend server without SciPy answers CuPy's filters with a clear
    NotImplementedError, as the rest of cupyx.scipy (not an ImportError from inside)."""
    import sys
    from gpushare_server.backends import cpu_signal
    monkeypatch.setitem(sys.modules, "scipy.signal", None)
    with pytest.raises(NotImplementedError, match="needs scipy on the CPU backend"):
        cpu_signal.lfilter(numpy.ones(1), numpy.ones(1), numpy.array([1.0, 2.0]))


def test_interpolate_classmethods_run_on_the_server(cp):
    si = _module("interpolate")
    t = numpy.array([0.0, 0, 0, 1, 2, 3, 3, 3])
    x = numpy.array([0.5, 1.5, 2.5])
    dm = si.BSpline.design_matrix(cp.asarray(x), cp.asarray(t), 2)
    assert type(dm).__name__ == "csr_matrix"  # CuPy's (SciPy's is a csr_array)
    numpy.testing.assert_allclose(dm.toarray().get(),
                                  scipy.interpolate.BSpline.design_matrix(x, t, 2).toarray())
    spl = si.make_interp_spline(cp.arange(6.0), cp.arange(6.0) ** 2)
    pp = si.PPoly.from_spline(spl)
    assert isinstance(pp, si.PPoly)
    numpy.testing.assert_allclose(pp(cp.asarray([2.5])).get(), [6.25])
    assert type(si.CubicSpline.from_spline(spl)) is si.CubicSpline  # a subclass has them
    bp = si.BPoly.from_derivatives(cp.asarray([0.0, 1.0]), [[1, 2], [3, 4]])
    ref = scipy.interpolate.BPoly.from_derivatives([0.0, 1.0], [[1, 2], [3, 4]])
    numpy.testing.assert_allclose(bp(cp.asarray([0.5])).get(), ref([0.5]))
    with pytest.raises(AttributeError):
        si.CubicSpline.no_such_classmethod



def test_solve_triangular_batches_as_cupys(cp):
    """CuPy's batches, not SciPy's broadcasting: ``a`` of shape (..., M, M) takes ``b`` of
    exactly its batch shape, (..., M) being a batch of vectors; nothing else is batched."""
    sl = _module("linalg")
    rng = numpy.random.default_rng(0)
    a = numpy.tril(rng.integers(1, 10, (4, 4, 4))).astype(numpy.float32)
    b = rng.integers(1, 10, (4, 4)).astype(numpy.float32)
    got = sl.solve_triangular(cp.asarray(a), cp.asarray(b), lower=True)
    assert got.shape == (4, 4) and got.dtype == numpy.float32  # (SciPy's: (4, 4, 4))
    want = [scipy.linalg.solve_triangular(a[i], b[i], lower=True) for i in range(4)]
    numpy.testing.assert_allclose(got.get(), want, rtol=1e-5)
    b3 = rng.integers(1, 10, (4, 4, 2)).astype(numpy.float64)
    got = sl.solve_triangular(cp.asarray(a), cp.asarray(b3), trans="T", lower=True)
    assert got.shape == (4, 4, 2) and got.dtype == numpy.float32  # (``a``'s precision)
    want = [scipy.linalg.solve_triangular(a[i], b3[i], trans="T", lower=True)
            for i in range(4)]
    numpy.testing.assert_allclose(got.get(), want, rtol=1e-5)
    for a_shape, b_shape in (((3, 3, 3), (3,)), ((3, 3, 3), (3, 2)), ((8, 3, 3), (3, 2)),
                             ((3, 3), (8, 3, 2)), ((3, 3, 4), (3, 3))):
        with pytest.raises(ValueError):
            sl.solve_triangular(cp.ones(a_shape), cp.ones(b_shape))
    x = sl.solve_triangular(cp.asarray(numpy.eye(3) * 2), cp.ones(3))  # one matrix
    numpy.testing.assert_allclose(x.get(), [0.5, 0.5, 0.5])


def test_bandwidth_takes_host_arrays(cp):
    sl = _module("linalg")
    r = numpy.zeros((6, 8))
    r[numpy.arange(6), numpy.arange(6)] = 1
    r[3, 0] = r[0, 5] = 1
    assert sl.bandwidth(r) == (3, 5)  # a NumPy array, as CuPy's (cupy.asarray)
    assert sl.bandwidth(cp.asarray(numpy.asfortranarray(r))) == (3, 5)
    assert sl.bandwidth(numpy.zeros((0, 3))) == (0, 0)
    with pytest.raises(numpy.linalg.LinAlgError, match="Array must be two-dimensional"):
        sl.bandwidth(numpy.ones(3))
