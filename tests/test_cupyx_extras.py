"""``cupyx.scipy.ndimage`` with CuPy's semantics, ``cupyx.scipy.fft`` as a ``scipy.fft``
backend and its plans, ``cupyx.linalg``, pinned arrays and ``cupyx.profiler.benchmark``,
through a real server (the CPU backend: SciPy with CuPy's differences).

Each expectation is CuPy 14.2's behaviour, read off its source, where it differs from
SciPy's or NumPy's (dtypes, errors, what takes host arrays).
"""
from __future__ import annotations

import importlib
from unittest import mock

import numpy
import pytest
import scipy.fft
import scipy.ndimage
from _servers import BACKEND

pytestmark = pytest.mark.timeout(180)


def _module(name: str):
    return importlib.import_module(f"gpushare.cupyx.{name}")


# --- ndimage --------------------------------------------------------------------------

def test_ndimage_takes_host_structures_and_refuses_host_inputs(cp):
    nd = _module("scipy.ndimage")
    img = numpy.array([[1, 1, 0, 0], [0, 1, 0, 1], [0, 0, 0, 1]], numpy.float16)
    structure = numpy.ones((3, 3), bool)  # a host array: CuPy copies it itself
    labels, n = nd.label(cp.asarray(img), structure=structure)
    ref, ref_n = scipy.ndimage.label(img != 0, structure=structure)
    assert n == ref_n == 2 and labels.dtype == numpy.int32  # float16 input too
    numpy.testing.assert_array_equal(labels.get(), ref)
    out = cp.empty(img.shape, numpy.int16)
    assert nd.label(cp.asarray(img), output=out) == 2  # into an array: the count alone
    # (a host ``output`` is no cupy.ndarray, so CuPy takes it for a dtype:
    # ``cupy.empty(input.shape, output)``, whose dtype cache cannot hash it; the H200's)
    with pytest.raises(TypeError, match=r"^unhashable type: 'numpy\.ndarray'$"):
        nd.label(cp.asarray(img), output=numpy.empty(img.shape, numpy.int32))
    with pytest.raises(TypeError, match="input must be cupy.ndarray"):
        nd.label(img.tolist())
    with pytest.raises(TypeError, match="input must be cupy.ndarray"):
        nd.sum(list(range(10)), cp.arange(10), cp.asarray([1, 2]))
    img32 = img.astype(numpy.float32)
    grey = nd.grey_dilation(cp.asarray(img32), footprint=numpy.ones((2, 2), bool))
    numpy.testing.assert_array_equal(
        grey.get(), scipy.ndimage.grey_dilation(img32, footprint=numpy.ones((2, 2), bool)))


def test_ndimage_box_structures_and_distance_transform(cp):
    nd = _module("scipy.ndimage")
    x = numpy.zeros((7, 8), bool)
    x[1:6, 2:7] = True
    x[3, 4] = False
    got = nd.binary_closing(cp.asarray(x), (3, 2)).get()  # a tuple: a box of ones
    numpy.testing.assert_array_equal(
        got, scipy.ndimage.binary_closing(x, numpy.ones((3, 2), bool)))
    dist, ind = nd.distance_transform_edt(cp.asarray(x), return_indices=True)
    ref_d, ref_i = scipy.ndimage.distance_transform_edt(x, return_indices=True)
    assert dist.dtype == numpy.float64 and ind.dtype == numpy.int16  # CuPy's 2-D dtypes
    numpy.testing.assert_allclose(dist.get(), ref_d)
    numpy.testing.assert_array_equal(ind.get(), ref_i)
    d32 = nd.distance_transform_edt(cp.asarray(x), float64_distances=False,
                                    block_params=(1, 1, 1))
    assert d32.dtype == numpy.float32
    with pytest.raises(ValueError, match="m2 must be a power of 2"):
        nd.distance_transform_edt(cp.asarray(x), block_params=(1, 3, 1))
    with pytest.raises(NotImplementedError, match="Only 2D and 3D"):
        nd.distance_transform_edt(cp.asarray(x[0]))
    # (``_pba_2d`` checks an ``indices`` array against the image padded to its square
    # working size, 32 x 32 here (``_check_indices(indices, (arr.ndim,) + arr.shape, ..)``
    # after ``arr = cupy.pad(...)``): the image's own shape is "wrong", as on the H200)
    with pytest.raises(RuntimeError, match="^indices array has wrong shape$"):
        nd.distance_transform_edt(cp.asarray(x), return_indices=True,
                                  indices=cp.empty((2,) + x.shape, numpy.int32))
    with pytest.raises(RuntimeError, match="^indices array must have an integer dtype$"):
        nd.distance_transform_edt(cp.asarray(x), return_indices=True,
                                  indices=cp.empty((2, 32, 32), numpy.float32))
    square = numpy.ones((32, 32), bool)
    square[5, 7] = False  # (no padding: the image's own shape is the working one)
    ind = cp.empty((2, 32, 32), numpy.int32)
    assert nd.distance_transform_edt(cp.asarray(square), return_distances=False,
                                     return_indices=True, indices=ind) is ind
    numpy.testing.assert_array_equal(
        ind.get(), scipy.ndimage.distance_transform_edt(square, return_distances=False,
                                                        return_indices=True))


_RMS = r'''extern "C" __global__
void rms(const double* x, int filter_size, double* y) {
    double ss = 0;
    for (int i = 0; i < filter_size; ++i) { ss += x[i] * x[i]; }
    y[0] = sqrt(ss / filter_size);
}'''
_SHIFT = r'''extern "C" __global__
void shift(const double* in, ptrdiff_t in_length, double* out, ptrdiff_t out_length) {
    for (int i = 0; i < out_length; ++i) { out[i] = in[i]; }
}'''


@pytest.mark.parametrize("mode", ["reflect", "constant", "nearest", "mirror", "wrap"])
def test_generic_filters_run_the_users_kernels(cp, mode):
    nd = _module("scipy.ndimage")
    x = numpy.random.default_rng(1).integers(0, 50, (6, 7)).astype(numpy.float64)
    footprint = numpy.array([[1, 0, 1], [1, 1, 0]], bool)

    def rms(v):
        return numpy.sqrt((v * v).mean())
    raw = cp.RawKernel(_RMS, "rms")
    got = nd.generic_filter(cp.asarray(x), raw, footprint=footprint, mode=mode, cval=2.5,
                            origin=(0, -1))
    ref = scipy.ndimage.generic_filter(x, rms, footprint=footprint, mode=mode, cval=2.5,
                                       origin=(0, -1))
    numpy.testing.assert_allclose(got.get(), ref, rtol=1e-12)
    red = cp.ReductionKernel("X x", "Y y", "x*x", "a + b", "y = a/_in_ind.size()", "0",
                             "mean_sq")
    got = nd.generic_filter(cp.asarray(x), red, size=3, mode=mode)
    ref = scipy.ndimage.generic_filter(x, lambda v: (v * v).mean(), size=3, mode=mode)
    numpy.testing.assert_allclose(got.get(), ref, rtol=1e-12)
    got = nd.generic_filter1d(cp.asarray(x), cp.RawKernel(_SHIFT, "shift"), 3, axis=0,
                              mode=mode, origin=1)
    ref = scipy.ndimage.generic_filter1d(x, lambda i, o: o.__setitem__(slice(None), i[:-2]),
                                         3, axis=0, mode=mode, origin=1)
    numpy.testing.assert_allclose(got.get(), ref)
    with pytest.raises(TypeError, match="only ReductionKernel allowed"):
        nd.generic_filter(cp.asarray(x), cp.ElementwiseKernel("T x", "T y", "y = x"),
                          size=3)


def test_python_derivatives_and_comprehensions_run_on_the_client(cp):
    nd = _module("scipy.ndimage")
    x = numpy.random.default_rng(2).standard_normal((5, 6))
    calls = []

    def d2(inp, axis, output, mode, cval, scale):
        calls.append(axis)
        return nd.correlate1d(inp, cp.asarray([1.0, -2.0, 1.0]) * scale, axis, output,
                              mode, cval, 0)
    got = nd.generic_laplace(cp.asarray(x), d2, extra_arguments=(2.0,))
    assert calls == [0, 1]
    ref = scipy.ndimage.generic_laplace(
        x, lambda i, a, o, m, c: scipy.ndimage.correlate1d(i, [2.0, -4.0, 2.0], a, o, m, c))
    numpy.testing.assert_allclose(got.get(), ref, rtol=1e-12)
    mag = nd.generic_gradient_magnitude(cp.asarray(x), nd.sobel)
    numpy.testing.assert_allclose(
        mag.get(), scipy.ndimage.generic_gradient_magnitude(x, scipy.ndimage.sobel),
        rtol=1e-12)
    labels = numpy.array([[1, 1, 2, 0, 3, 3]] * 5)
    got = nd.labeled_comprehension(cp.asarray(x), cp.asarray(labels), cp.asarray([1, 3, 4]),
                                   lambda v: v.max() - v.min(), numpy.float64, -1.0)
    ref = scipy.ndimage.labeled_comprehension(x, labels, [1, 3, 4],
                                              lambda v: v.max() - v.min(), numpy.float64, -1.0)
    numpy.testing.assert_allclose(got.get(), ref)


# --- fft --------------------------------------------------------------------------------

def test_scipy_fft_backend_plans_and_dct_types(cp):
    fft = _module("scipy.fft")
    x = numpy.random.default_rng(3).standard_normal((4, 16)) + 0j
    a = cp.asarray(x)
    with scipy.fft.set_backend(fft):
        got = scipy.fft.fft(a, axis=0)  # runs gpushare's fft on the server
        assert isinstance(scipy.fft.ifft(x), numpy.ndarray)  # SciPy's, for a host array
    with scipy.fft.set_backend(fft, coerce=True):
        host = scipy.fft.ifft(x, n=8)  # copied to the device first
    assert isinstance(got, cp.ndarray) and isinstance(host, cp.ndarray)
    numpy.testing.assert_allclose(got.get(), numpy.fft.fft(x, axis=0))
    numpy.testing.assert_allclose(host.get(), numpy.fft.ifft(x, n=8))
    plan = fft.get_fft_plan(a, axes=(0, 1))
    assert type(plan).__name__ == "PlanNd"
    numpy.testing.assert_allclose(fft.fftn(a, plan=plan).get(), numpy.fft.fftn(x))
    from gpushare.cupy.cuda import cufft
    with plan:
        assert cufft.get_current_plan() is plan
    assert cufft.get_current_plan() is None
    with pytest.raises(ValueError, match="must be contiguous"):
        fft.get_fft_plan(a[:, ::2])
    with pytest.raises(NotImplementedError, match="Only DCT-II and DCT-III"):
        fft.dct(a.real, type=4)
    numpy.testing.assert_allclose(fft.dct(a.real, type=3).get(), scipy.fft.dct(x.real, 3))
    assert fft.next_fast_len(11) == 12  # cuFFT's fast sizes (SciPy's would say 11)


def test_fft_plan_cache_is_the_servers(cp, capsys):
    """``cupy.fft.config.get_plan_cache()``: the server's cache, CuPy's settings, checks
    and words (on the CPU backend, whose transforms make no cuFFT plans, it stays
    empty); the module-level helpers warn as experimental, as CuPy's do."""
    import warnings
    cache = cp.fft.config.get_plan_cache()
    assert type(cache).__name__ == "PlanCache"
    size = cache.get_size()
    try:
        assert size == 16 and cache.get_memsize() == -1  # CuPy's defaults
        cache.set_size(0)  # CuPy's documented way to disable it
        assert cp.fft.config.get_plan_cache().get_size() == 0  # the same cache
        numpy.testing.assert_allclose(cp.fft.fft(cp.arange(8.0)).get(),
                                      numpy.fft.fft(numpy.arange(8.0)))
        with pytest.raises(ValueError, match="^invalid input$"):
            cache.set_memsize(-2)
        with pytest.raises(TypeError):
            cache.set_size(1.5)
        cache.show_info()
        shown = capsys.readouterr().out
        assert "cuFFT plan cache (device 0)" in shown and "cache enabled? False" in shown
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cp.fft.config.set_plan_cache_size(3)
            assert cp.fft.config.get_plan_cache_size() == 3
        assert [str(w.message) for w in caught][0] == (
            "cupy.fft.cache.set_plan_cache_size is experimental. The interface can change "
            "in the future.")
        assert all(w.category is FutureWarning for w in caught)
    finally:
        cache.set_size(size)
    assert cache.get_curr_size() >= 0 and cache.get_curr_memsize() >= 0
    cache.clear()


# --- cupyx: linalg, pinned arrays, profiler, special ------------------------------------

def test_cupyx_linalg(cp):
    linalg = _module("linalg")
    rng = numpy.random.default_rng(4)
    m = rng.standard_normal((5, 5)).astype(numpy.float32)
    a = m @ m.T + 5 * numpy.eye(5, dtype=numpy.float32)
    inv = linalg.invh(cp.asarray(a))
    assert inv.dtype == numpy.float32
    numpy.testing.assert_allclose(inv.get(), numpy.linalg.inv(a), rtol=1e-4, atol=1e-5)
    not_pd = cp.asarray(a - 20 * numpy.eye(5, dtype=numpy.float32))
    if BACKEND == "cpu":  # linalg='ignore', CuPy's default: no error (cuSOLVER's garbage;
        assert bool(cp.isnan(linalg.invh(not_pd)).all())  # NaN on the CPU backend)
    with _module("__init__").errstate(linalg="raise"):
        with pytest.raises(numpy.linalg.LinAlgError):
            linalg.invh(not_pd)
    L = numpy.linalg.cholesky(a.astype(numpy.float64))
    c = L.copy()
    c[numpy.triu_indices(5, 1)] = numpy.nan  # the other triangle is never read
    b = rng.standard_normal(5)
    x = linalg.cho_solve((cp.asarray(c), True), cp.asarray(b))
    numpy.testing.assert_allclose(x.get(), numpy.linalg.solve(a, b), rtol=1e-5)
    with pytest.raises(ValueError, match="NaN or infinity"):
        linalg.cho_solve((cp.asarray(c), False), cp.asarray(b))
    sparse = _module("scipy.sparse")
    x = linalg.sparse.lschol(sparse.csr_matrix(cp.asarray(a)), cp.asarray(b.astype("f")))
    assert x.dtype == numpy.float64
    numpy.testing.assert_allclose(x.get(), numpy.linalg.solve(a, b), rtol=1e-4)
    # (CuPy passes ``b.data.ptr`` uncast: float64 b for a float32 A is read as the
    # float32s of its first 20 bytes, as on the GPU, whose answers were near 1e17)
    x = linalg.sparse.lschol(sparse.csr_matrix(cp.asarray(a)), cp.asarray(b))
    numpy.testing.assert_allclose(
        x.get(), numpy.linalg.solve(a.astype(numpy.float64), b.view(numpy.float32)[:5]),
        rtol=1e-3)
    b_copy = cp.asarray(b, copy=True)  # NumPy 2's copy= of asarray
    assert b_copy is not b and cp.asarray(b_copy, copy=False) is b_copy


def test_pinned_arrays_and_benchmark(cp):
    cupyx = _module("__init__")
    f = numpy.empty((4, 5, 6), numpy.float32)[:, ::2].transpose(2, 0, 1)
    a = cupyx.empty_like_pinned(f)
    assert isinstance(a.base, cp.cuda.PinnedMemoryPointer) and a.base.ptr == a.ctypes.data
    assert a.strides == numpy.empty_like(f).strides  # CuPy's order='K' layout
    with pytest.raises(TypeError, match="subok"):
        cupyx.zeros_like_pinned(f, subok=True)
    assert cupyx.zeros_pinned((2, 3), order="F").flags.f_contiguous
    x = cp.arange(10.0)
    with mock.patch("time.perf_counter", mock.Mock(side_effect=[1.0, 2.0, 2.5] * 5)):
        # the program's clock is mocked: the transport's own waits are unaffected
        perf = _module("profiler").benchmark(lambda v: v * 2, (x,), n_repeat=5, n_warmup=1)
    assert perf.cpu_times.tolist() == [1.0] * 5 and perf.gpu_times.shape == (1, 5)
    info = cupyx.get_runtime_info()
    assert info.cupy_version == cp.__version__ and cp.__version__ in str(info)


def test_special_ufuncs_are_cupyx_own(cp):
    special = _module("scipy.special")
    assert special.psi is special.digamma
    assert special.log1p is not cp.log1p
    h = cp.asarray(numpy.linspace(-0.5, 2, 5).astype(numpy.float16))
    assert special.log1p(h).dtype == numpy.float64  # CuPy's 'e->d' (cupy.log1p: float16)
    assert cp.log1p(h).dtype == numpy.float16
    import scipy.special
    got = scipy.special.i0e(cp.asarray([0.5, 1.0]))  # NumPy hands it to the device array
    assert isinstance(got, cp.ndarray)
    numpy.testing.assert_allclose(got.get(), scipy.special.i0e([0.5, 1.0]))


def test_the_cupy_backend_hands_host_arrays_to_cupy_by_keyword_too():
    """On a GPU server CuPy decides which host arrays it takes (``ndimage``'s
    ``structure=``, for one): they reach it as NumPy arrays, by position or keyword.
    (The module imports without CuPy; this checks its wrapper alone.)"""
    from gpushare.protocol import HostArray
    from gpushare_server.backends import cupy_backend
    seen: dict = {}

    def fn(*args, **kwargs):
        seen.update(args=args, kwargs=kwargs)
    host = HostArray(numpy.ones((3, 3), bool))
    cupy_backend._refuse_host(fn)(host, 2, structure=host, output=None)
    assert type(seen["args"][0]) is numpy.ndarray and seen["args"][1] == 2
    assert type(seen["kwargs"]["structure"]) is numpy.ndarray
    assert seen["kwargs"]["output"] is None


def test_the_cupy_backend_hands_cupy_what_local_cupy_gets():
    """What the H200 run found (``generic_filter``'s "bad function type",
    ``histogramdd``'s ``'<' not supported between instances of 'HostArray' and 'int'``,
    ``place``'s "put: output array is read-only"): a kernel handle reaches CuPy as the
    real kernel, host arrays nested in lists and tuples as NumPy arrays, and writable,
    as the user's were (the wire's are read-only views); ``cupy.asarray`` & co. copy
    them to the device and get them as they are."""
    from gpushare.protocol import HostArray
    from gpushare_server.backends import cupy_backend
    from gpushare_server.kernels.remote import RawKernel, ReductionKernel
    seen: dict = {}

    def fn(*args, **kwargs):
        seen.update(args=args, kwargs=kwargs)
    wire = numpy.frombuffer(numpy.arange(4.0).tobytes(), numpy.float64)
    assert not wire.flags.writeable
    real, reduction = object(), object()
    cupy_backend._refuse_host(fn)(HostArray(wire), RawKernel(real),
                                  bins=[HostArray(wire), (HostArray(wire), 3)],
                                  function=ReductionKernel(reduction))
    first, bins = seen["args"][0], seen["kwargs"]["bins"]
    assert type(first) is numpy.ndarray and first.flags.writeable
    assert seen["args"][1] is real and seen["kwargs"]["function"] is reduction
    assert type(bins) is list and type(bins[1]) is tuple and bins[1][1] == 3
    assert all(type(b) is numpy.ndarray and b.flags.writeable for b in (bins[0], bins[1][0]))
    assert (bins[0] == numpy.arange(4.0)).all()
    cupy_backend._host_ok(fn)(HostArray(wire))
    assert seen["args"][0] is wire
    # an array's methods (wrapped once per call, lighter): the same hand-over
    for args, kwargs in (((), {}), ((HostArray(wire), 1), {}),
                         ((), {"out": HostArray(wire)}), ((RawKernel(real),), {"k": 2})):
        seen.clear()
        cupy_backend._refuse_host_bound(fn)(*args, **kwargs)
        got = list(seen["args"]) + list(seen["kwargs"].values())
        assert len(got) == len(args) + len(kwargs)
        for sent, came in zip([*args, *kwargs.values()], got):
            if isinstance(sent, HostArray):
                assert type(came) is numpy.ndarray and came.flags.writeable
                assert (came == numpy.arange(4.0)).all()
            elif isinstance(sent, RawKernel):
                assert came is real
            else:
                assert came == sent


def test_optimize_needs_optuna_as_cupys(cp):
    import importlib.util
    import gpushare.cupyx.optimizing as optimizing
    if importlib.util.find_spec("optuna") is not None:
        with optimizing.optimize():
            assert int(cp.arange(10).sum()) == 45
    else:  # CuPy's error where Optuna is missing (cupyx/optimizing/_optimize.py)
        with pytest.raises(RuntimeError, match="Optuna is required"):
            with optimizing.optimize():
                pass


def test_benchmark_makes_each_device_current_as_cupys(cp):
    from gpushare.cupyx.profiler import benchmark
    with pytest.raises(cp.cuda.runtime.CUDARuntimeError, match="cudaErrorInvalidDevice"):
        benchmark(lambda: cp.arange(3) + 1, n_repeat=2, devices=(cp.cuda.runtime.getDeviceCount(),))
    assert benchmark(lambda: cp.arange(3) + 1, n_repeat=2).gpu_times.shape == (1, 2)


def test_the_cupy_backend_gives_an_operators_record_the_ufunc_itself():
    """(``record_function``: a record's operands are arrays and plain scalars, so a
    ufunc is called as CuPy's own, without the host-data wrapper; anything else, as
    ``function`` gives it. The module imports without CuPy: a stand-in checks it.)"""
    import types
    from gpushare_server.backends import cupy_backend

    class ufunc:
        def __call__(self, *args, **kwargs):
            return ("ufunc", args, kwargs)
    add = ufunc()

    def asarray(*args):
        return ("asarray", args)
    backend = object.__new__(cupy_backend.CupyBackend)
    backend.cupy = types.SimpleNamespace(ufunc=ufunc)
    backend._records = {}
    backend._cache = {"cupy.add": cupy_backend._refuse_host(add),
                      "cupy.asarray": cupy_backend._host_ok(asarray)}
    assert backend.record_function("cupy.add") is add
    assert backend.record_function("cupy.add")(1, 2.5, out=3) == ("ufunc", (1, 2.5), {"out": 3})
    assert backend.record_function("cupy.asarray") is backend._cache["cupy.asarray"]
