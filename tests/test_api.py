"""CuPy's API through a real server: the same answers and errors as NumPy/CuPy."""
from __future__ import annotations

import io
import pickle
import traceback

import numpy
import pytest

from _servers import BACKEND

pytestmark = pytest.mark.timeout(60)


def test_creation_and_roundtrip(cp):
    a = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    assert isinstance(a, cp.ndarray)
    assert a.shape == (3, 4) and a.dtype == numpy.float32 and a.strides == (16, 4)
    numpy.testing.assert_array_equal(a.get(), numpy.arange(12, dtype="f4").reshape(3, 4))
    assert cp.zeros((2, 3), dtype=cp.int8).get().tolist() == [[0] * 3] * 2
    assert cp.ones(3).dtype == numpy.float64
    assert cp.full((2,), 7, dtype=cp.int32).tolist() == [7, 7]
    assert cp.empty_like(a).shape == (3, 4)
    f = cp.zeros((3, 4), order="F")
    assert f.flags.f_contiguous and not f.flags.c_contiguous
    numpy.testing.assert_allclose(cp.linspace(0, 1, 5).get(), numpy.linspace(0, 1, 5))
    assert cp.eye(3).get().trace() == 3


def test_dtypes_and_constants_are_numpys_own(cp):
    assert cp.float32 is numpy.float32 and cp.dtype is numpy.dtype
    assert cp.newaxis is None and cp.pi == numpy.pi and cp.inf == numpy.inf
    assert cp.finfo is numpy.finfo and cp.iinfo(cp.int8).max == 127


def test_operators_and_nep50_promotion(cp):
    x = cp.arange(5, dtype=cp.float32)
    y = cp.arange(5, dtype=cp.int64)
    assert (x + 1).dtype == numpy.float32           # Python scalars are weak
    assert (x + 1.5).dtype == numpy.float32
    assert (x + y).dtype == numpy.float64
    assert (y // 2).dtype == numpy.int64 and (y / 2).dtype == numpy.float64
    assert (cp.arange(3, dtype=cp.int8) + numpy.int16(1)).dtype == numpy.int16
    numpy.testing.assert_allclose((x * 2 - 1).get(), numpy.arange(5, dtype="f4") * 2 - 1)
    numpy.testing.assert_array_equal((y % 3).get(), numpy.arange(5) % 3)
    numpy.testing.assert_array_equal((y > 2).get(), numpy.arange(5) > 2)
    numpy.testing.assert_array_equal((-y).get(), -numpy.arange(5))
    numpy.testing.assert_allclose((2 ** x).get(), 2 ** numpy.arange(5, dtype="f4"))
    z = cp.ones(3)
    z += 2
    z *= cp.arange(3)
    assert z.tolist() == [0, 3, 6]


def test_ufuncs_match_numpy(cp):
    host = numpy.linspace(0.1, 3, 7)
    a = cp.asarray(host)
    for name in ("sin", "exp", "log", "sqrt", "tanh", "floor", "abs", "square"):
        numpy.testing.assert_allclose(getattr(cp, name)(a).get(), getattr(numpy, name)(host),
                                      rtol=1e-12)
    numpy.testing.assert_allclose(cp.maximum(a, 1.0).get(), numpy.maximum(host, 1.0))
    q, r = cp.divmod(cp.arange(7), 3)
    assert q.tolist() == [0, 0, 0, 1, 1, 1, 2] and r.tolist() == [0, 1, 2, 0, 1, 2, 0]
    assert float(cp.add.reduce(cp.arange(5))) == 10


def test_reductions_return_0d_arrays(cp):
    a = cp.arange(6, dtype=cp.int8).reshape(2, 3)
    s = a.sum()
    assert isinstance(s, cp.ndarray) and s.shape == () and s.dtype == numpy.int64
    assert int(s) == 15
    assert a.sum(axis=0).tolist() == [3, 5, 7]
    assert a.sum(axis=1, keepdims=True).shape == (2, 1)
    assert cp.mean(a).dtype == numpy.float64 and float(a.mean()) == 2.5
    assert int(a.max()) == 5 and int(cp.argmax(a)) == 5
    assert a.astype(cp.float32).std(axis=0).dtype == numpy.float32
    with pytest.raises(numpy.exceptions.AxisError):
        a.sum(axis=2)
    with pytest.raises(ValueError):
        cp.zeros((0,)).max()


def test_indexing_and_assignment(cp):
    host = numpy.arange(24).reshape(2, 3, 4)
    a = cp.asarray(host)
    for key in [1, (1, 2), (slice(None), 1), (Ellipsis, -1), (None, 0, slice(1, None, 2)),
                (slice(None, None, -1),), (0, 1, 2)]:
        got = a[key]
        assert got.shape == host[key].shape, key
        numpy.testing.assert_array_equal(got.get(), host[key])
    idx = cp.asarray([2, 0])
    numpy.testing.assert_array_equal(a[:, idx].get(), host[:, [2, 0]])
    mask = a > 10
    numpy.testing.assert_array_equal(a[mask].get(), host[host > 10])
    b = a.copy()
    b[0, :, 1] = -1
    b[b > 20] = 0
    expect = host.copy()
    expect[0, :, 1] = -1
    expect[expect > 20] = 0
    numpy.testing.assert_array_equal(b.get(), expect)
    with pytest.raises(IndexError):
        a[5]
    with pytest.raises(IndexError):
        a[0, 0, 0, 0]


def test_scalar_indexing_returns_0d_view(cp):
    a = cp.arange(4)
    v = a[2]
    assert isinstance(v, cp.ndarray) and v.shape == ()
    v[...] = 9
    assert a.tolist() == [0, 1, 9, 3]


def test_views_share_memory_base_and_identity(cp):
    a = cp.zeros((4, 4))
    v = a[1:3]
    v[:] = 5
    assert a.get()[1:3].sum() == 40
    assert v.base is a and a.base is None
    assert a[::2][1:].base is a
    t = a.T
    t[0, 1] = 7
    assert float(a[1, 0]) == 7
    assert cp.asarray(a) is a
    assert a.reshape(16).base is a


def test_shape_manipulation(cp):
    host = numpy.arange(24.0).reshape(2, 3, 4)
    a = cp.asarray(host)
    assert a.transpose(2, 0, 1).shape == (4, 2, 3)
    assert cp.swapaxes(a, 0, 2).shape == (4, 3, 2)
    assert a.reshape(-1, 4).shape == (6, 4)
    numpy.testing.assert_array_equal(cp.concatenate([a, a], axis=1).get(),
                                     numpy.concatenate([host, host], axis=1))
    numpy.testing.assert_array_equal(cp.stack([a, a]).get(), numpy.stack([host, host]))
    numpy.testing.assert_array_equal(cp.where(a > 5, a, -a).get(),
                                     numpy.where(host > 5, host, -host))
    parts = cp.split(a, 2, axis=2)
    assert isinstance(parts, list) and parts[1].shape == (2, 3, 2)
    assert cp.squeeze(cp.expand_dims(a, 0)).shape == (2, 3, 4)
    with pytest.raises(ValueError):
        a.reshape(5, 5)


def test_sort_argsort_unique_nonzero(cp):
    host = numpy.array([3, 1, 2, 3, 0, 1])
    a = cp.asarray(host)
    assert cp.sort(a).tolist() == sorted(host.tolist())
    numpy.testing.assert_array_equal(cp.argsort(a, kind="stable").get(),
                                     numpy.argsort(host, kind="stable"))
    assert cp.unique(a).tolist() == [0, 1, 2, 3]
    (nz,) = cp.nonzero(a)
    assert nz.tolist() == [0, 1, 2, 3, 5]


def test_matmul_dot_linalg(cp):
    rng = numpy.random.default_rng(0)
    m = rng.standard_normal((4, 4)) + 4 * numpy.eye(4)
    b = rng.standard_normal(4)
    M, B = cp.asarray(m), cp.asarray(b)
    numpy.testing.assert_allclose((M @ M).get(), m @ m)
    numpy.testing.assert_allclose(cp.dot(M, B).get(), m @ b)
    numpy.testing.assert_allclose(cp.linalg.solve(M, B).get(), numpy.linalg.solve(m, b))
    numpy.testing.assert_allclose(cp.linalg.inv(M).get(), numpy.linalg.inv(m))
    numpy.testing.assert_allclose(float(cp.linalg.norm(B)), numpy.linalg.norm(b))
    u, s, vt = cp.linalg.svd(M)
    numpy.testing.assert_allclose((u * s @ vt).get(), m, atol=1e-10)
    q, r = cp.linalg.qr(M)
    numpy.testing.assert_allclose((q @ r).get(), m, atol=1e-10)
    w, v = cp.linalg.eigh(M + M.T)
    numpy.testing.assert_allclose(w.get(), numpy.linalg.eigh(m + m.T)[0])
    # CuPy's default, cupyx.errstate(linalg='ignore'): a singular matrix is no error,
    # the result is meaningless (not finite); under 'raise' it is LinAlgError
    assert not bool(cp.isfinite(cp.linalg.inv(cp.zeros((3, 3)))).all())
    assert not bool(cp.isfinite(cp.linalg.solve(cp.zeros((2, 2)), cp.ones(2))).all())
    import gpushare.cupyx as cupyx
    with cupyx.errstate(linalg="raise"):
        with pytest.raises(numpy.linalg.LinAlgError):
            cp.linalg.inv(cp.zeros((3, 3)))
    with pytest.raises(numpy.linalg.LinAlgError):   # not square: an error in any mode
        cp.linalg.inv(cp.zeros((2, 3)))
    with pytest.raises(ValueError):
        cp.dot(cp.ones((2, 3)), cp.ones((2, 3)))


def test_errstate_is_queued_once_the_server_took_it(cp, synchronous_calls):
    """``cupyx.seterr(linalg=...)`` waits once (an older server may not have it); after
    that each change is queued, and the server's routines follow it in order."""
    import gpushare.cupyx as cupyx
    with cupyx.errstate(linalg="raise"):
        pass
    synchronous_calls.clear()
    singular = cp.zeros((3, 3))
    for _ in range(2):
        with cupyx.errstate(linalg="raise"):
            with pytest.raises(numpy.linalg.LinAlgError):
                cp.linalg.inv(singular)  # (under 'raise' it waits, as CuPy checks)
        bad = cp.linalg.inv(singular)  # ('ignore' again: no error, not finite)
    assert [c for c in synchronous_calls if c[1] == "cupyx.seterr"] == []
    assert not bool(cp.isfinite(bad).all())


def test_fft_keeps_single_precision(cp):
    x = cp.arange(8, dtype=cp.float32)
    f = cp.fft.fft(x)
    assert f.dtype == numpy.complex64
    numpy.testing.assert_allclose(f.get(), numpy.fft.fft(numpy.arange(8)), rtol=1e-5)
    numpy.testing.assert_allclose(cp.fft.irfft(cp.fft.rfft(x)).get(), numpy.arange(8),
                                  atol=1e-5)


def test_random(cp):
    cp.random.seed(1)
    a = cp.random.rand(3, 4)
    cp.random.seed(1)
    b = cp.random.rand(3, 4)
    numpy.testing.assert_array_equal(a.get(), b.get())
    assert a.shape == (3, 4) and 0 <= float(a.min()) and float(a.max()) < 1
    assert cp.random.randn(5, dtype=cp.float32).dtype == numpy.float32
    assert cp.random.normal(size=(2,)).shape == (2,)
    assert cp.random.uniform(2, 3, size=10).get().min() >= 2
    r = cp.random.randint(0, 5, size=100)
    assert r.dtype == numpy.int64 and 0 <= int(r.min()) and int(r.max()) < 5
    assert cp.random.choice(5, 3, replace=False).shape == (3,)
    rs = cp.random.RandomState(7)
    assert isinstance(rs, cp.random.RandomState)
    x = rs.random_sample((2, 2))
    rs2 = cp.random.RandomState(7)
    numpy.testing.assert_array_equal(x.get(), rs2.random_sample((2, 2)).get())


def test_conversions_and_printing(cp):
    a = cp.asarray([[1.5, 2.0], [3.0, 4.0]])
    assert repr(a) == repr(numpy.array([[1.5, 2.0], [3.0, 4.0]]))
    assert str(a) == str(a.get())
    assert a.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert float(a[0, 0]) == 1.5 and int(a[1, 1]) == 4 and a[0, 1].item() == 2.0
    assert bool(cp.asarray([1])) is True
    with pytest.raises(ValueError):
        bool(a)
    assert len(a) == 2 and [r.tolist() for r in a] == [[1.5, 2.0], [3.0, 4.0]]
    with pytest.raises(TypeError):
        len(a.sum())
    with pytest.raises(TypeError):
        iter(a.sum())
    assert f"{a.sum():.1f}" == "10.5"


def test_implicit_numpy_conversion_is_refused(cp):
    a = cp.arange(3)
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        numpy.asarray(a)
    with pytest.raises(TypeError, match="Unsupported type"):
        a + numpy.arange(3)
    with pytest.raises(TypeError, match="Unsupported type"):
        cp.add(a, [1, 2, 3])


def test_numpy_functions_dispatch_to_the_proxy(cp):
    a = cp.arange(4.0)
    s = numpy.sum(a)
    assert isinstance(s, cp.ndarray) and float(s) == 6
    e = numpy.exp(a)
    assert isinstance(e, cp.ndarray)
    numpy.testing.assert_allclose(e.get(), numpy.exp(numpy.arange(4.0)))


def test_get_array_module_and_asnumpy(cp):
    a = cp.arange(3)
    assert cp.get_array_module(a) is cp and cp.get_array_module(numpy.arange(3)) is numpy
    host = cp.asnumpy(a)
    assert isinstance(host, numpy.ndarray) and host.tolist() == [0, 1, 2]
    out = numpy.empty(3, dtype=numpy.int64)
    a.get(out=out)
    assert out.tolist() == [0, 1, 2]
    b = cp.empty(3, dtype=cp.int64)
    b.set(numpy.array([4, 5, 6]))
    assert b.tolist() == [4, 5, 6]


@pytest.mark.parametrize("rows", [1024, 4])                            # 2.4 MB, 9.6 KB
def test_set_into_either_order_and_cupys_errors(cp, rows):
    """set() of MiBs travels like cupy.asarray (chunked), into C and F arrays, from
    host arrays of any layout; CuPy's errors come in CuPy's order: the type, the
    dtype, the shape, then a target that is neither C- nor F-contiguous."""
    host = numpy.random.default_rng(1).random((rows, 300))
    for target in (cp.zeros((rows, 300)), cp.zeros((rows, 300), order="F")):
        for source in (host, numpy.asfortranarray(host), host[::-1]):
            target.set(source)
            numpy.testing.assert_array_equal(target.get(), source)
    with pytest.raises(TypeError, match="^Only numpy.ndarray can be set to cupy.ndarray$"):
        cp.zeros(3).set([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="float32 array cannot be set to float64 array"):
        cp.zeros((rows, 301)).set(host.astype(numpy.float32))   # dtype before shape
    with pytest.raises(ValueError, match="Shape mismatch"):
        cp.zeros((rows, 301)).set(host)
    strided = cp.zeros((2 * rows, 300))
    with pytest.raises(RuntimeError, match="Cannot set to non-contiguous array"):
        strided[::2].set(host)
    assert not strided.any()


@pytest.mark.parametrize("path", ["direct", "lanes off", "through the broker"])
def test_host_data_may_change_as_soon_as_a_copy_returns(cp, monkeypatch, path):
    """Like CuPy's copies from pageable memory, asarray() and set() have read the host
    array when they return, whatever its size and path (inline in a message, chunk
    messages, the bulk lane): changing it then changes nothing on the device."""
    from gpushare import client
    if path != "direct":
        monkeypatch.setenv("GPUSHARE_LANES", "0")
    if path == "through the broker":
        monkeypatch.setenv("GPUSHARE_DIRECT", "0")
    client.reset_session()
    for n in (1000, 100_000, 300_000, 1_100_000):      # 8 KB, 800 KB, 2.4 MB, 8.8 MB
        host = numpy.ones(n)
        d = cp.asarray(host)
        host[:] = 7
        e = cp.zeros(n)
        e.set(host)
        host[:] = 9
        assert numpy.unique(d.get()).tolist() == [1.0], n
        assert numpy.unique(e.get()).tolist() == [7.0], n
    assert (client.get_session()._data is None) == (path == "through the broker")


def test_files_are_the_clients(cp, tmp_path):
    a = cp.arange(6.0).reshape(2, 3)
    cp.save(tmp_path / "a.npy", a)
    assert numpy.load(tmp_path / "a.npy").tolist() == a.tolist()
    b = cp.load(tmp_path / "a.npy")
    assert isinstance(b, cp.ndarray) and b.tolist() == a.tolist()
    cp.savez(tmp_path / "z.npz", x=a)
    with cp.load(tmp_path / "z.npz") as z:
        assert z["x"].tolist() == a.tolist()
    cp.savetxt(tmp_path / "t.txt", a)
    assert cp.loadtxt(tmp_path / "t.txt").tolist() == a.tolist()
    a.tofile(str(tmp_path / "raw.bin"))
    assert cp.fromfile(str(tmp_path / "raw.bin")).tolist() == a.ravel().tolist()
    buf = io.BytesIO()
    cp.save(buf, a)
    buf.seek(0)
    assert cp.load(buf).shape == (2, 3)


def test_pickle_roundtrip(cp):
    a = cp.arange(3)
    b = pickle.loads(pickle.dumps(a))
    assert isinstance(b, cp.ndarray) and b.tolist() == [0, 1, 2]


def test_cupy_errors_are_named_as_cupys_and_still_pickle(cp):
    # a traceback names the class by its module, as CuPy's classes are named: memory.pyx,
    # cupy_backends' runtime.pyx/driver.pyx, compiler.py, cupy/_util.pyx
    huge = 1 << 60
    with pytest.raises(cp.cuda.memory.OutOfMemoryError) as info:
        cp.empty(huge, dtype=cp.uint8)
    last = traceback.format_exception_only(info.type, info.value)[-1]
    assert last.startswith("cupy.cuda.memory.OutOfMemoryError: Out of memory allocating")
    for cls, module in ((cp.cuda.runtime.CUDARuntimeError, "cupy_backends.cuda.api.runtime"),
                        (cp.cuda.driver.CUDADriverError, "cupy_backends.cuda.api.driver"),
                        (cp.cuda.compiler.CompileException, "cupy.cuda.compiler"),
                        (cp.cuda.compiler.JitifyException, "cupy.cuda.compiler")):
        assert cls.__module__ == module
    # (pickled through gpushare's module: the CuPy module name need not import here)
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is cp.cuda.memory.OutOfMemoryError
    assert str(again) == str(info.value) and again.args == info.value.args
    err = pickle.loads(pickle.dumps(cp.cuda.runtime.CUDARuntimeError(700, "illegal")))
    assert type(err) is cp.cuda.runtime.CUDARuntimeError
    assert err.status == 700 and str(err) == "illegal"


def test_cuda_module(cp):
    assert cp.cuda.runtime.getDeviceCount() >= 1
    props = cp.cuda.runtime.getDeviceProperties(0)
    assert "name" in props and props["totalGlobalMem"] > 0
    # CuPy's keys (runtime.pyx), which programs read to size their launches
    for key in ("maxThreadsPerMultiProcessor", "sharedMemPerBlockOptin", "concurrentKernels",
                "textureAlignment", "kernelExecTimeoutEnabled", "uuid", "managedMemory",
                "unifiedAddressing", "cooperativeLaunch", "asyncEngineCount",
                "regsPerMultiprocessor", "sharedMemPerMultiprocessor",
                "maxBlocksPerMultiProcessor", "maxTexture2D", "surfaceAlignment"):
        assert key in props, key
    # (``props.uuid.bytes``: Cython reads CUDA's ``char[16]`` as a C string, so it ends at
    # the first NUL byte: an H200 gave 12 bytes)
    assert isinstance(props["uuid"], bytes) and len(props["uuid"]) <= 16
    assert len(props["maxTexture2D"]) == 2
    for attr, key in ((97, "sharedMemPerBlockOptin"), (39, "maxThreadsPerMultiProcessor"),
                      (16, "multiProcessorCount"), (1, "maxThreadsPerBlock")):
        assert cp.cuda.runtime.deviceGetAttribute(attr, 0) == props[key], key
    free, total = cp.cuda.runtime.memGetInfo()
    assert total >= free >= 0
    assert cp.cuda.runtime.is_hip is False
    assert isinstance(cp.cuda.runtime.runtimeGetVersion(), int)
    cp.cuda.Device(0).synchronize()
    s = cp.cuda.Stream()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    with s:
        start.record()
        x = cp.arange(1000) ** 2
        end.record()
    s.synchronize()
    end.synchronize()
    assert cp.cuda.get_elapsed_time(start, end) >= 0
    assert int(x[10]) == 100
    null = cp.cuda.Stream.null
    assert null is cp.cuda.Stream.null and null.ptr == 0
    with null:
        assert int((x + 1)[0]) == 1
    # CUDA's invalid handle for an event never recorded or made without timing
    for a, b in ((cp.cuda.Event(), end), (start, cp.cuda.Event(disable_timing=True))):
        b.record()
        with pytest.raises(cp.cuda.runtime.CUDARuntimeError,
                           match="^cudaErrorInvalidResourceHandle: invalid resource handle$") \
                as caught:
            cp.cuda.get_elapsed_time(a, b)
        assert caught.value.status == 400  # (CUDA's code, carried from the server)


@pytest.mark.skipif(BACKEND != "cpu", reason="the CPU backend's figures")
def test_the_cpu_backend_reports_the_cuda_its_kernels_are_built_for(cp) -> None:
    """The emulator compiles as CUDA 12.0 for sm_80 (csrc/gpushare_cuda.h's
    CUDART_VERSION and __CUDA_ARCH__): versions and compute capability say so, and a
    kernel sees the same."""
    assert cp.cuda.runtime.runtimeGetVersion() == 12000
    assert cp.cuda.runtime.driverGetVersion() == 12000
    assert cp.cuda.driver.get_build_version() == 12000
    assert cp.cuda.Device().compute_capability == "80"
    props = cp.cuda.runtime.getDeviceProperties(0)
    assert (props["major"], props["minor"]) == (8, 0)
    out = cp.zeros(2, cp.int32)
    cp.RawKernel(r'''extern "C" __global__ void v(int* o) {
        o[0] = CUDART_VERSION; o[1] = __CUDA_ARCH__; }''', "v")((1,), (1,), (out,))
    assert out.get().tolist() == [12000, 800]


def test_testing_module(cp):
    a = cp.arange(3.0)
    cp.testing.assert_allclose(a, numpy.arange(3.0))
    cp.testing.assert_array_equal(a, a)
    with pytest.raises(AssertionError):
        cp.testing.assert_array_equal(a, a + 1)


def test_unknown_names_raise_attribute_error(cp):
    with pytest.raises(AttributeError, match="module 'cupy' has no attribute 'nosuch'"):
        cp.nosuch
    with pytest.raises(AttributeError):
        cp.arange(3).nosuch
    with pytest.raises(TypeError):
        cp.zeros("abc")


def test_cupyx_scatter_and_scipy(cp):
    import gpushare.cupyx as cupyx
    import gpushare.cupyx.scipy.special as special
    a = cp.zeros(5)
    # CuPy 14.2's cupyx.scatter_* call the deprecated ndarray.scatter_*, which warn
    with pytest.warns(DeprecationWarning, match="cupy.add.at"):
        cupyx.scatter_add(a, cp.asarray([0, 1, 1, 3]), 1.0)  # repeated indices accumulate
    assert a.tolist() == [1, 2, 0, 1, 0]
    with pytest.warns(DeprecationWarning, match="cupy.maximum.at"):
        cupyx.scatter_max(a, cp.asarray([4, 0]), cp.asarray([7.0, -1.0]))
    assert a.tolist() == [1, 2, 0, 1, 7]
    numpy.testing.assert_allclose(special.erf(cp.asarray([0.5])).get(), [0.5204998778])


def test_pipelined_operators_keep_identity_errors_and_bounded_bookkeeping(cp):
    """The operator fast path (proxies and Python scalars) gives what the general
    path gives; dead proxies leave no entries behind; a result returned as an array
    the client already holds is that very proxy."""
    from gpushare import client
    x = cp.arange(1000, dtype=cp.float32)
    for _ in range(5000):
        x = x + 1.0
    assert float(x[0]) == 5000.0 and x.dtype == numpy.float32
    y = 2 * x - True            # reflected operator, a bool scalar
    assert y.dtype == numpy.float32 and float(y[1]) == 2.0 * 5001 - 1
    big = cp.arange(3, dtype=cp.int64) + (1 << 62)  # still a plain int64 on the wire
    assert big.tolist() == [(1 << 62) + k for k in range(3)]
    with pytest.raises(OverflowError):
        cp.arange(3, dtype=cp.uint8) + 300  # NEP 50: CuPy's (and NumPy's) error
    with pytest.raises(TypeError):
        cp.arange(3) + object()
    table = client.get_session().proxies
    assert len(table.refs) < 4 * 1024  # 5000 dead proxies were swept
    assert x.astype(numpy.float32, copy=False) is x


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int64", "float16", "float32",
                                   "float64", "complex64"])
def test_operator_fast_path_matches_numpy_dtypes_values_and_errors(cp, dtype):
    """Operators on a proxy and a Python scalar, or on two proxies of one shape, take
    the fast path (``ufunc._fast2``): results, dtypes and errors as NumPy 2 gives them
    (NEP 50), CuPy's rules; nothing waits for the server."""
    import operator
    from gpushare import client
    host = (numpy.arange(1, 7).reshape(2, 3) % 3).astype(dtype)
    other = (numpy.arange(6).reshape(2, 3) % 2 + 1).astype(dtype)
    a, b = cp.asarray(host), cp.asarray(other)
    s = client.get_session()
    for op in (operator.add, operator.sub, operator.mul, operator.truediv,
               operator.floordiv, operator.gt, operator.eq, operator.and_):
        for lhs, rhs, hl, hr in ((a, 2, host, 2), (3, a, 3, host), (a, 1.5, host, 1.5),
                                 (True, a, True, host), (a, b, host, other)):
            try:
                with numpy.errstate(all="ignore"):  # (CuPy does not warn)
                    expected = op(hl, hr)
            except Exception as exc:  # noqa: BLE001 - the same error is expected
                with pytest.raises(type(exc)):
                    op(lhs, rhs)
                continue
            waited = s._done_seq
            got = op(lhs, rhs)
            assert got.dtype == expected.dtype and got.shape == expected.shape, (op, lhs, rhs)
            assert s._done_seq == waited  # pipelined: no round trip
            numpy.testing.assert_allclose(got.get(), expected, rtol=1e-3)
    assert (numpy.dtype(dtype), int) in cp.add._fast  # the fast path took these


def test_operator_fast_path_error_names_the_users_line(monkeypatch, op_path):
    """A pipelined operator that fails on the server (here the session's memory limit)
    raises at the next wait, naming the call and the user's line; so does a ufunc
    called by name."""
    import inspect
    from gpushare import client
    from _servers import ServerProcess
    srv = ServerProcess("--memory-limit", "8MiB")
    try:
        monkeypatch.setenv("GPUSHARE_SERVER", srv.address)
        client.reset_session()
        import gpushare.cupy as cupy
        # (results of an eighth of the limit or more wait for the server, so that the
        # error is raised at their own line: these stay under it)
        w = cupy.zeros(7 << 20, dtype=cupy.uint8)     # 7 MiB
        x = cupy.zeros(1 << 17, dtype=cupy.float32)   # 512 KiB
        y = x + 1.0                                   # 8 MiB in all: within the limit
        z = x * 2.0; line = inspect.currentframe().f_lineno  # noqa: E702 - 8.5 MiB: fails
        assert z.shape == x.shape  # known at once; the error comes at the next wait
        with pytest.raises(cupy.cuda.memory.OutOfMemoryError) as info:
            float(y[0])
        assert "pipelined call cupy.multiply" in str(info.value)
        assert f"test_api.py:{line}" in str(info.value)
        assert float(y[1]) == 1.0  # the session goes on
        z = None
        z = cupy.multiply(x, 2.0); line = inspect.currentframe().f_lineno  # noqa: E702
        with pytest.raises(cupy.cuda.memory.OutOfMemoryError) as info:
            float(y[0])
        assert f"test_api.py:{line}" in str(info.value)
        assert w.size == 7 << 20
    finally:
        client.reset_session()
        srv.stop()


def test_queued_calls_go_out_when_the_program_pauses(cp, server, monkeypatch):
    """Calls queued and not waited for reach the server once the program stops queueing
    for a moment (the idle flush), so the device works while the host does something
    else; not only at the program's next wait."""
    from gpushare import client
    from gpushare.cli import query_status
    from _servers import wait_for
    monkeypatch.setenv("GPUSHARE_IDLE_FLUSH_MS", "100")  # read when the session starts
    s = client.get_session()
    x = cp.zeros(4 << 20, dtype=cp.float32)  # 16 MiB on the server, pipelined
    x += 1
    assert len(s._queue) >= 2  # queued, nothing waited for them

    def arrived() -> bool:  # asked on a socket of its own: the session stays idle
        mine = [e for e in query_status(server.address, timeout=10, wait=2)["sessions"]
                if e["id"] == s.session_id]
        return bool(mine) and mine[0]["memory_bytes"] >= 16 << 20 and not s._queue
    wait_for(arrived, timeout=15, interval=0.05)
    assert float(x[-1]) == 1.0


def test_dropped_arrays_are_freed_while_the_program_is_idle(cp, server):
    """An array the program drops is released on the server even when no other call
    follows (releases come from finalizers and travel with the next batch; with nothing
    queued they go alone after a second)."""
    from gpushare import client
    from gpushare.cli import query_status
    from _servers import wait_for
    s = client.get_session()

    def memory() -> int:  # asked on a socket of its own: the session stays idle
        mine = [e for e in query_status(server.address, timeout=10, wait=2)["sessions"]
                if e["id"] == s.session_id]
        return mine[0]["memory_bytes"] if mine else -1
    x = cp.ones(4 << 20, dtype=cp.float32)  # 16 MiB
    assert float(x[0]) == 1.0  # (a wait: nothing is queued now)
    held = memory()
    assert held >= 16 << 20
    del x
    assert s._release and not s._queue  # the release waits in the client
    wait_for(lambda: memory() <= held - (16 << 20), timeout=15, interval=0.1)
    assert not s._release


def test_get_out_errors_are_cupys(cp):
    """``get(out=)`` checks as CuPy does: the type, the dtype (TypeError), the shape
    (ValueError), then an ``out`` that is neither C- nor F-contiguous (RuntimeError);
    an order that is not C, F or A is a ValueError."""
    a = cp.arange(6.0).reshape(2, 3)
    with pytest.raises(TypeError, match="Only numpy.ndarray"):
        a.get(out=[0.0] * 6)
    with pytest.raises(TypeError, match="float32 array cannot be obtained from float64 array"):
        a.get(out=numpy.empty((3, 2), numpy.float32))
    with pytest.raises(ValueError, match=r"Expected shape: \(2, 3\), actual shape: \(3, 2\)"):
        a.get(out=numpy.empty((3, 2)))
    with pytest.raises(RuntimeError, match="`out` cannot be specified when copying to "
                                           "non-contiguous ndarray"):
        a.get(out=numpy.empty((2, 6))[:, ::2])
    with pytest.raises(ValueError, match="unsupported order: K"):
        a.get(order="K")
    out = numpy.empty((2, 3), order="F")
    assert a.get(out=out) is out and out.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert a.get(order="f").flags.f_contiguous


def test_memory_pool_set_limit_is_the_sessions(cp):
    """``MemoryPool.set_limit`` limits the session's device memory as CuPy's limits the
    pool: an allocation over it raises OutOfMemoryError (at the next wait, as any
    pipelined error), the arrays held stay, and 0 lifts it."""
    pool = cp.get_default_memory_pool()
    assert pool.get_limit() == 0
    held = cp.ones(1 << 20, dtype=cp.uint8)
    pool.set_limit(size=2 << 20)
    assert pool.get_limit() == 2 << 20
    with pytest.raises(cp.cuda.memory.OutOfMemoryError, match="limit set to: 2,097,152"):
        cp.zeros(2 << 20, dtype=cp.uint8)
        cp.cuda.Device().synchronize()
    small = cp.zeros(1 << 19, dtype=cp.uint8)              # within the limit
    assert int(held.sum()) == 1 << 20 and int(small.sum()) == 0
    pool.set_limit(fraction=0.5)
    assert 0 < pool.get_limit() <= cp.cuda.runtime.memGetInfo()[1] // 2 + 1
    pool.set_limit()
    assert pool.get_limit() == 0
    assert cp.zeros(4 << 20, dtype=cp.uint8).size == 4 << 20
    for bad, match in ((dict(size=-1), "size out of range"), (dict(fraction=1.5), "fraction"),
                       (dict(size=1, fraction=0.5), "at one time")):
        with pytest.raises(ValueError, match=match):
            pool.set_limit(**bad)


def test_host_memory_exhaustion_is_cupys_out_of_memory_error(cp):
    """On the CPU backend device memory is the host's: NumPy's MemoryError reaches the
    program as CuPy's OutOfMemoryError, in CuPy's words."""
    held = cp.ones(1000, dtype=cp.uint8)
    with pytest.raises(cp.cuda.memory.OutOfMemoryError,
                       match=r"^Out of memory allocating 800,000,000,000,000 bytes "
                             r"\(allocated so far: [0-9,]+ bytes\)\."):
        cp.empty(10 ** 14, dtype=cp.float64)
    assert int(held.sum()) == 1000


def test_a_big_allocation_raises_out_of_memory_at_its_own_call(monkeypatch):
    """``cupy.empty``/``zeros``/``full``/``*_like`` of 256 MiB or more, or of an eighth
    of the session's limit (the server's or the pool's), wait for the server: CuPy's
    ``OutOfMemoryError`` comes from the call itself, inside the program's ``try``, not
    at a later wait; the session, and its operators' fast path, go on."""
    from gpushare import client
    from _servers import ServerProcess
    srv = ServerProcess("--memory-limit", "8MiB")
    try:
        monkeypatch.setenv("GPUSHARE_SERVER", srv.address)
        client.reset_session()
        import gpushare.cupy as cupy
        x = cupy.arange(4, dtype=cupy.float32)
        for make in (lambda: cupy.empty(16 << 20, dtype=cupy.uint8),
                     lambda: cupy.zeros((4096, 1024), dtype=cupy.float32),
                     lambda: cupy.full((3 << 20,), 7, dtype=cupy.int32),
                     lambda: cupy.ones_like(x, shape=(1 << 22,))):
            try:
                make()
            except cupy.cuda.memory.OutOfMemoryError as e:
                assert "limit set to: 8,388,608" in str(e)
                assert "pipelined call" not in str(e)  # its own call's error
            else:
                raise AssertionError("no OutOfMemoryError at the call")
            assert (x + 1).tolist() == [1.0, 2.0, 3.0, 4.0]
        # results the client lays out itself wait as well: routines, random arrays,
        # casts, and operators and ufuncs (the C fast path and the Python one)
        from gpushare.cupy import _ufunc
        half = cupy.ones(1 << 20, dtype=cupy.float32)  # 4 MiB
        for make in (lambda: cupy.arange(1 << 21, dtype=cupy.float64),
                     lambda: cupy.random.random((1 << 21,)),
                     lambda: half.astype(cupy.float64) * 1,
                     lambda: half + half + half,
                     lambda: cupy.exp(cupy.concatenate([half, half]))):
            for accel in (True, False):
                if _ufunc._accel is not None:
                    _ufunc._accel.enable(accel)
                try:
                    make()
                except cupy.cuda.memory.OutOfMemoryError as e:
                    assert "limit set to: 8,388,608" in str(e)
                    assert "pipelined call" not in str(e)
                else:
                    raise AssertionError("no OutOfMemoryError at the call")
                finally:
                    if _ufunc._accel is not None:
                        _ufunc._accel.enable(True)
                assert (x + 1).tolist() == [1.0, 2.0, 3.0, 4.0]
        del half, make
        # the errors caught hold no arrays: their memory is free again
        assert not client.get_session()._poisoned  # nothing left to disable the fast path
        kept = cupy.zeros(6 << 20, dtype=cupy.uint8)  # within the limit: still made
        assert kept.size == 6 << 20 and int(kept[-1]) == 0
        pool = cupy.get_default_memory_pool()
        pool.set_limit(size=7 << 20)                  # the pool's limit counts too
        with pytest.raises(cupy.cuda.memory.OutOfMemoryError, match="7,340,032"):
            cupy.empty(2 << 20, dtype=cupy.uint8)
        pool.set_limit(0)
        del kept
        assert cupy.zeros(7 << 20, dtype=cupy.uint8).nbytes == 7 << 20
    finally:
        client.reset_session()
        srv.stop()


@pytest.mark.skipif(BACKEND != "cpu", reason="CuPy's allocator counts these itself")
def test_memory_held_by_served_objects_counts_on_the_cpu_backend(monkeypatch):
    """On the CPU backend (no allocator) a sparse matrix's arrays, or those of any
    object the server holds for the session, count against the session's memory limit
    and in ``used_bytes``, as device memory does in CuPy."""
    from gpushare import client
    from _servers import ServerProcess
    srv = ServerProcess("--memory-limit", "8MiB")
    try:
        monkeypatch.setenv("GPUSHARE_SERVER", srv.address)
        client.reset_session()
        import gpushare.cupy as cupy
        from gpushare.cupyx.scipy import sparse
        pool = cupy.get_default_memory_pool()
        m = sparse.identity(400_000, dtype=cupy.float64, format="csr")  # 6.4 MB
        assert pool.used_bytes() >= 6_000_000
        with pytest.raises(cupy.cuda.memory.OutOfMemoryError, match="8,388,608"):
            sparse.identity(400_000, dtype=cupy.float64, format="csr")
        with pytest.raises(cupy.cuda.memory.OutOfMemoryError):
            m * 2.0
        assert m.nnz == 400_000  # the session goes on
        del m
        assert pool.used_bytes() < 1 << 20
        assert sparse.identity(300_000, format="csr").nnz == 300_000
    finally:
        client.reset_session()
        srv.stop()


def test_memory_pool_set_limit_cannot_raise_the_servers(monkeypatch):
    from gpushare import client
    from _servers import ServerProcess
    srv = ServerProcess("--memory-limit", "8MiB")
    try:
        monkeypatch.setenv("GPUSHARE_SERVER", srv.address)
        client.reset_session()
        import gpushare.cupy as cupy
        pool = cupy.get_default_memory_pool()
        assert pool.get_limit() == 8 << 20
        pool.set_limit(size=64 << 20)
        assert pool.get_limit() == 8 << 20
        with pytest.raises(cupy.cuda.memory.OutOfMemoryError):
            cupy.zeros(16 << 20, dtype=cupy.uint8)
            cupy.cuda.Device().synchronize()
        pool.set_limit(size=1 << 20)
        assert pool.get_limit() == 1 << 20
        with pytest.raises(cupy.cuda.memory.OutOfMemoryError):
            cupy.zeros(2 << 20, dtype=cupy.uint8)
            cupy.cuda.Device().synchronize()
        pool.set_limit(0)
        assert pool.get_limit() == 8 << 20
        assert cupy.zeros(4 << 20, dtype=cupy.uint8).size == 4 << 20
    finally:
        client.reset_session()
        srv.stop()


def test_a_servers_error_carries_no_context_of_gpushares_own(cp):
    """A call the client could not lay out goes to the server, from inside gpushare's
    ``except CannotInfer:`` (or a NumPy ``ValueError`` it caught): the server's error
    was raised with that as its context, so the program's traceback showed "During
    handling of the above exception" and gpushare's frames, where CuPy shows its one
    error. The program's own context stays."""
    x = cp.arange(5)
    for attempt in (lambda: cp.add(x, cp.ones(3)),
                    lambda: x.__setitem__(slice(None), cp.ones(3))):
        with pytest.raises(ValueError) as info:
            attempt()
        assert info.value.__context__ is None
        assert "During handling" not in "".join(traceback.format_exception(info.value))
        try:
            raise KeyError("the program's own")
        except KeyError:
            with pytest.raises(ValueError) as info:
                attempt()
        assert type(info.value.__context__) is KeyError
