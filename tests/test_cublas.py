"""``cupy.cublas``: CuPy's cuBLAS wrappers through gpushare, against NumPy's
arithmetic and CuPy 14.2's errors (``cupy/cublas.py``); what they write into their
arguments is seen by the client's arrays."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys

import numpy
import pytest

pytestmark = pytest.mark.timeout(240)

_TOL = {"f": 1e-5, "d": 1e-12, "F": 1e-5, "D": 1e-12}


def _rand(shape, dtype, seed=0, order="C"):
    rng = numpy.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return numpy.asarray(a, dtype=dtype, order=order)


@pytest.fixture
def cublas(cp):
    return importlib.import_module("gpushare.cupy.cublas")


def _close(actual, expected, dtype):
    tol = _TOL[numpy.dtype(dtype).char]
    numpy.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)


# --- the module ---------------------------------------------------------------------

def test_module_is_cupys_and_an_attribute_after_import(cp, cublas):
    assert cublas.__name__ == "cupy.cublas"
    assert cp.cublas is cublas
    for name in ("get_batched_gesv_limit", "set_batched_gesv_limit", "batched_gesv",
                 "iamax", "iamin", "asum", "axpy", "dot", "dotu", "dotc", "nrm2", "scal",
                 "gemv", "ger", "geru", "gerc", "sbmv", "gemm", "geam", "dgmm", "syrk"):
        assert callable(getattr(cublas, name)), name
    with pytest.raises(AttributeError, match="module 'cupy.cublas' has no attribute"):
        cublas.no_such_function


def test_import_cupy_cublas_through_the_hook(server):
    code = ("import cupy, cupy.cublas\n"
            "from cupy.cublas import gemm, get_batched_gesv_limit\n"
            "assert cupy.cublas.gemm is gemm\n"
            "a = cupy.arange(6, dtype=cupy.float64).reshape(2, 3)\n"
            "print(gemm('N', 'T', a, a).get().tolist(), get_batched_gesv_limit())\n")
    env = {**os.environ, "GPUSHARE_SERVER": server.address}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[[5.0,", "14.0],", "[14.0,", "50.0]]", "256"]


# --- level 1 ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
def test_iamax_iamin_are_one_based_by_re_plus_im(cp, cublas, dtype):
    x_host = _rand((17,), dtype, 1)
    x = cp.asarray(x_host)
    mags = numpy.abs(x_host.real) + numpy.abs(x_host.imag)
    r = cublas.iamax(x)
    assert isinstance(r, cp.ndarray) and r.shape == () and r.dtype == numpy.int32
    assert int(r) == int(numpy.argmax(mags)) + 1
    assert int(cublas.iamin(x)) == int(numpy.argmin(mags)) + 1


def test_iamax_magnitude_is_not_the_modulus(cp, cublas):
    # |3+3j| = 4.24 < |5| but |re|+|im| = 6 > 5: cuBLAS picks the complex one
    x = cp.asarray(numpy.array([5, 3 + 3j, 1], numpy.complex64))
    assert int(cublas.iamax(x)) == 2
    assert int(cublas.iamin(x)) == 3


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
def test_asum_nrm2_dtypes_and_values(cp, cublas, dtype):
    x_host = _rand((33,), dtype, 2)
    x = cp.asarray(x_host)
    s = cublas.asum(x)
    n = cublas.nrm2(x)
    real = numpy.dtype(dtype.lower())
    assert s.dtype == real and n.dtype == real and s.shape == () and n.shape == ()
    _close(s.get(), (numpy.abs(x_host.real) + numpy.abs(x_host.imag)).sum(), dtype)
    _close(n.get(), numpy.linalg.norm(x_host.astype(dtype.upper() if dtype in "FD" else "d")),
           dtype)


@pytest.mark.parametrize("dtype", ["f", "d"])
def test_dot_is_a_0d_array(cp, cublas, dtype):
    x_host, y_host = _rand((10,), dtype, 3), _rand((10,), dtype, 4)
    r = cublas.dot(cp.asarray(x_host), cp.asarray(y_host))
    assert isinstance(r, cp.ndarray) and r.shape == () and r.dtype == numpy.dtype(dtype)
    _close(r.get(), numpy.dot(x_host, y_host), dtype)


@pytest.mark.parametrize("dtype", ["F", "D"])
def test_dotu_dotc_conjugate_only_in_dotc(cp, cublas, dtype):
    x_host, y_host = _rand((9,), dtype, 5), _rand((9,), dtype, 6)
    x, y = cp.asarray(x_host), cp.asarray(y_host)
    u, c = cublas.dotu(x, y), cublas.dotc(x, y)
    assert u.dtype == numpy.dtype(dtype) and c.dtype == numpy.dtype(dtype)
    _close(u.get(), numpy.dot(x_host, y_host), dtype)
    _close(c.get(), numpy.vdot(x_host, y_host), dtype)
    assert abs(complex(u.get()) - complex(c.get())) > 1e-3


def test_dotu_dotc_of_real_vectors_are_dot(cp, cublas):
    x = cp.asarray(numpy.array([1.0, 2.0, 3.0]))
    assert float(cublas.dotu(x, x)) == 14.0 and float(cublas.dotc(x, x)) == 14.0


@pytest.mark.parametrize("mode", ["cupy", "numpy"])
def test_scalar_results_into_out_of_the_same_dtype(cp, cublas, mode):
    x = cp.asarray(numpy.array([3.0, -4.0], numpy.float32))
    xp = cp if mode == "cupy" else numpy
    out = xp.empty([], dtype="f")
    assert cublas.nrm2(x, out=out) is out
    assert float(out) == pytest.approx(5.0)
    out_i = xp.zeros([], dtype="i")
    assert cublas.iamax(x, out_i) is out_i and int(out_i) == 2
    out_d = xp.zeros([], dtype="f")
    assert cublas.dot(x, x, out=out_d) is out_d and float(out_d) == 25.0


def test_scalar_result_into_a_cupy_out_of_another_dtype_is_copied(cp, cublas):
    x = cp.asarray(numpy.array([3.0, -4.0], numpy.float32))
    out = cp.zeros((3,), dtype=numpy.float64)  # (elementwise_copy broadcasts)
    assert cublas.asum(x, out=out) is out
    assert out.get().tolist() == [7.0, 7.0, 7.0]


def test_scalar_result_into_a_numpy_out_of_another_dtype_is_refused(cp, cublas):
    x = cp.asarray(numpy.array([3.0, -4.0], numpy.float32))
    with pytest.raises(TypeError, match=r"^Unsupported type <class 'numpy.ndarray'>$"):
        cublas.asum(x, out=numpy.zeros((), numpy.float64))


def test_out_of_another_type_is_refused(cp, cublas):
    x = cp.asarray(numpy.array([3.0, -4.0], numpy.float32))
    with pytest.raises(TypeError, match="^out must be either cupy or numpy ndarray$"):
        cublas.nrm2(x, out=[0.0])


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("mode", [None, "numpy", "cupy"])
def test_axpy_and_scal_update_the_clients_array(cp, cublas, dtype, mode):
    x_host, y_host = _rand((12,), dtype, 7), _rand((12,), dtype, 8)
    a = 1.1 - 0.9j if dtype in "FD" else 1.1
    if mode is not None:
        a = (cp if mode == "cupy" else numpy).array(a, dtype=dtype)
    x, y = cp.asarray(x_host), cp.asarray(y_host)
    assert cublas.axpy(a, x, y) is None
    a_value = numpy.asarray(a.get() if mode == "cupy" else a, dtype=dtype)[()]
    _close(y.get(), a_value * x_host + y_host, dtype)
    _close(x.get(), x_host, dtype)  # (untouched)
    assert cublas.scal(a, x) is None
    _close(x.get(), a_value * x_host, dtype)
    assert y.shape == (12,) and y.dtype == numpy.dtype(dtype)


def test_axpy_float32_arithmetic_stays_float32(cp, cublas):
    x = cp.asarray(numpy.array([1e-8, 1.0], numpy.float32))
    y = cp.asarray(numpy.array([1.0, 1e8], numpy.float32))
    cublas.axpy(1.0, x, y)
    assert y.get().tolist() == [1.0, 1e8]  # (float64 would keep 1 + 1e-8 apart from 1)


def test_scal_into_a_view_shows_in_the_base(cp, cublas):
    base = cp.asarray(numpy.arange(8, dtype=numpy.float64))
    view = base[2:5]
    cublas.scal(10.0, view)
    assert base.get().tolist() == [0, 1, 20, 30, 40, 5, 6, 7]
    assert view.get().tolist() == [20, 30, 40]


def test_strided_vectors_are_read_as_cublas_reads_them(cp, cublas):
    # CuPy hands cuBLAS x.data.ptr with an increment of 1: a strided view's
    # elements are not the ones read or written, the memory from its first one is
    base = cp.asarray(numpy.arange(10, dtype=numpy.float64))
    y = cp.zeros(5, dtype=numpy.float64)
    cublas.axpy(1.0, base[::2], y)
    assert y.get().tolist() == [0, 1, 2, 3, 4]
    assert float(cublas.asum(base[1::2])) == 1 + 2 + 3 + 4 + 5


def test_level1_errors_are_cupys(cp, cublas):
    x = cp.asarray(numpy.ones((2, 2), numpy.float32))
    v = cp.asarray(numpy.ones(3, numpy.float32))
    w = cp.asarray(numpy.ones(4, numpy.float32))
    d = cp.asarray(numpy.ones(3, numpy.float64))
    i = cp.asarray(numpy.ones(3, numpy.int32))
    c = cp.asarray(numpy.ones(3, numpy.complex64))
    for fn in (cublas.iamax, cublas.iamin, cublas.asum, cublas.nrm2):
        with pytest.raises(ValueError, match=r"^x must be a 1D array \(actual: 2\)$"):
            fn(x)
        with pytest.raises(TypeError, match="^invalid dtype$"):
            fn(i)
    with pytest.raises(ValueError, match=r"^y must be a 1D array \(actual: 2\)$"):
        cublas.axpy(1.0, v, x)
    with pytest.raises(ValueError, match=r"^x and y must be the same size \(actual: 3 and 4\)$"):
        cublas.dot(v, w)
    with pytest.raises(TypeError, match=r"^x and y must be the same dtype "
                                        r"\(actual: float32 and float64\)$"):
        cublas.axpy(1.0, v, d)
    with pytest.raises(TypeError, match=r"^Use dotu\(\) or dotc\(\) for complex dtype$"):
        cublas.dot(c, c)
    with pytest.raises(TypeError, match="^invalid dtype$"):
        cublas.dotc(i, i)
    with pytest.raises(ValueError, match=r"^x must be a 1D array \(actual: 2\)$"):
        cublas.scal(2.0, x)
    with pytest.raises(TypeError, match="^invalid dtype$"):
        cublas.scal(2.0, i)
    # a host array fails where CuPy first reaches for its device pointer
    with pytest.raises(AttributeError, match="'memoryview' object has no attribute 'ptr'"):
        cublas.nrm2(numpy.ones(3, numpy.float32))
    # a complex alpha for a real vector: numpy.array(alpha, dtype)'s own error
    with pytest.raises(TypeError):
        cublas.scal(1j, v)


# --- level 2 ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("trans", ["N", "T", "H", 0, 1, 2])
@pytest.mark.parametrize("order", ["C", "F"])
def test_gemv_updates_y(cp, cublas, dtype, trans, order):
    a_host = _rand((4, 6), dtype, 9, order)
    op = {"N": a_host, 0: a_host, "T": a_host.T, 1: a_host.T}.get(trans, a_host.T.conj())
    x_host = _rand((op.shape[1],), dtype, 10)
    y_host = _rand((op.shape[0],), dtype, 11)
    alpha, beta = (0.9 - 0.7j, 0.8 - 0.6j) if dtype in "FD" else (0.9, 0.8)
    y = cp.asarray(y_host)
    assert cublas.gemv(trans, alpha, cp.asarray(a_host, order=order), cp.asarray(x_host),
                       beta, y) is None
    a_, b_ = numpy.asarray(alpha, dtype), numpy.asarray(beta, dtype)
    _close(y.get(), a_ * (op @ x_host) + b_ * y_host, dtype)


def test_gemv_beta_zero_does_not_read_y(cp, cublas):
    a = cp.asarray(numpy.eye(3))
    y = cp.asarray(numpy.full(3, numpy.nan))
    cublas.gemv("N", 2.0, a, cp.asarray(numpy.array([1.0, 2.0, 3.0])), 0.0, y)
    assert y.get().tolist() == [2.0, 4.0, 6.0]


def test_gemv_with_device_scalars_and_non_contiguous_a(cp, cublas):
    a_host = _rand((6, 8), "d", 12)[:, ::2]
    x_host, y_host = _rand((4,), "d", 13), _rand((6,), "d", 14)
    y = cp.asarray(y_host)
    cublas.gemv("N", cp.array(2.0), cp.asarray(_rand((6, 8), "d", 12))[:, ::2],
                cp.asarray(x_host), numpy.float64(0.5), y)
    _close(y.get(), 2.0 * a_host @ x_host + 0.5 * y_host, "d")


def test_gemv_errors_are_cupys(cp, cublas):
    a = cp.asarray(numpy.ones((2, 3)))
    x, y = cp.asarray(numpy.ones(3)), cp.asarray(numpy.ones(2))
    with pytest.raises(TypeError, match=r"^invalid trans \(actual: X\)$"):
        cublas.gemv("X", 1.0, a, x, 0.0, y)
    with pytest.raises(AssertionError):
        cublas.gemv("T", 1.0, a, x, 0.0, y)  # (x's length is not a's rows)
    with pytest.raises(TypeError, match="^invalid dtype$"):
        cublas.gemv("N", 1, cp.asarray(numpy.ones((2, 3), numpy.int64)), x, 0, y)


@pytest.mark.parametrize("dtype", ["f", "d"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_ger_updates_a(cp, cublas, dtype, order):
    a_host = _rand((3, 4), dtype, 15, order)
    x_host, y_host = _rand((3,), dtype, 16), _rand((4,), dtype, 17)
    a = cp.asarray(a_host, order=order)
    assert cublas.ger(1.5, cp.asarray(x_host), cp.asarray(y_host), a) is None
    _close(a.get(), a_host + numpy.asarray(1.5, dtype) * numpy.outer(x_host, y_host), dtype)
    assert a.flags.c_contiguous == (order == "C")


@pytest.mark.parametrize("dtype", ["F", "D"])
def test_geru_gerc_conjugate_y_only_in_gerc(cp, cublas, dtype):
    a_host = _rand((3, 4), dtype, 18)
    x_host, y_host = _rand((3,), dtype, 19), _rand((4,), dtype, 20)
    a_u, a_c = cp.asarray(a_host), cp.asarray(a_host)
    alpha = numpy.complex64(0.5 + 0.25j)
    cublas.geru(alpha, cp.asarray(x_host), cp.asarray(y_host), a_u)
    cublas.gerc(alpha, cp.asarray(x_host), cp.asarray(y_host), a_c)
    al = numpy.asarray(alpha, dtype)
    _close(a_u.get(), a_host + al * numpy.outer(x_host, y_host), dtype)
    _close(a_c.get(), a_host + al * numpy.outer(x_host, y_host.conj()), dtype)
    with pytest.raises(TypeError, match="^Use geru or gerc for complex dtypes$"):
        cublas.ger(1.0, cp.asarray(x_host), cp.asarray(y_host), a_u)


def test_ger_into_a_transposed_view(cp, cublas):
    base = cp.asarray(numpy.zeros((4, 3)))
    cublas.ger(1.0, cp.asarray(numpy.array([1.0, 2.0, 3.0])),
               cp.asarray(numpy.array([1.0, 10.0, 100.0, 1000.0])), base.T)
    assert base.get().tolist() == [[1, 2, 3], [10, 20, 30], [100, 200, 300],
                                   [1000, 2000, 3000]]


def _band(a_full, k, lower, order):
    """CuPy's test's band storage of the symmetric matrix ``a_full``."""
    n = a_full.shape[0]
    b = numpy.zeros((k + 1, n), a_full.dtype, order=order)
    for j in range(n):
        for i in range(n):
            if lower and 0 <= i - j <= k:
                b[i - j, j] = a_full[i, j]
            if not lower and 0 <= j - i <= k:
                b[k + i - j, j] = a_full[i, j]
    return b


@pytest.mark.parametrize("dtype", ["f", "d"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("order", ["C", "F"])
def test_sbmv_returns_y_updated(cp, cublas, dtype, lower, k, order):
    n = 6
    m = _rand((n, n), dtype, 21)
    m = m + m.T
    i, j = numpy.indices((n, n))
    m[abs(i - j) > k] = 0
    x_host, y_host = _rand((n,), dtype, 22), _rand((n,), dtype, 23)
    y = cp.asarray(y_host)
    r = cublas.sbmv(k, 3.0, cp.asarray(_band(m, k, lower, order), order=order),
                    cp.asarray(x_host), 2.0, y, lower=lower)
    assert r is y
    _close(y.get(), 3.0 * m @ x_host + 2.0 * y_host, dtype)


def test_sbmv_refuses_complex(cp, cublas):
    z = cp.asarray(numpy.ones((2, 3), numpy.complex64))
    v = cp.asarray(numpy.ones(3, numpy.complex64))
    with pytest.raises(TypeError, match="^Complex dtypes not supported$"):
        cublas.sbmv(1, 1.0, z, v, 0.0, v)


# --- level 3 and extensions -----------------------------------------------------------

def _op(a, t):
    return {"N": a, "T": a.T, "H": a.T.conj()}[t]


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("transa", ["N", "T", "H"])
@pytest.mark.parametrize("transb", ["N", "T", "H"])
def test_gemm_new_result(cp, cublas, dtype, transa, transb):
    a_host = _rand((3, 4) if transa == "N" else (4, 3), dtype, 24)
    b_host = _rand((4, 5) if transb == "N" else (5, 4), dtype, 25)
    r = cublas.gemm(transa, transb, cp.asarray(a_host), cp.asarray(b_host))
    assert r.shape == (3, 5) and r.dtype == numpy.dtype(dtype)
    assert r.flags.f_contiguous and not r.flags.c_contiguous
    _close(r.get(), _op(a_host, transa) @ _op(b_host, transb), dtype)


@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_gemm_into_out_with_alpha_beta(cp, cublas, order):
    a_host, b_host = _rand((3, 4), "d", 26), _rand((4, 5), "d", 27)
    c_host = _rand((3, 5), "d", 28)
    if order == "strided":
        base = cp.asarray(numpy.zeros((3, 10)))
        out = base[:, ::2]
        out[...] = cp.asarray(c_host)
    else:
        out = cp.asarray(c_host, order=order)
    r = cublas.gemm("N", "N", cp.asarray(a_host, order="F"), cp.asarray(b_host), out=out,
                    alpha=cp.array(2.0), beta=0.5)
    assert r is out
    _close(out.get(), 2.0 * a_host @ b_host + 0.5 * c_host, "d")
    if order == "strided":
        _close(base.get()[:, ::2], 2.0 * a_host @ b_host + 0.5 * c_host, "d")
        assert not base.get()[:, 1::2].any()


def test_gemm_float32_stays_float32(cp, cublas):
    a = cp.asarray(numpy.array([[1.0, 1e-8]], numpy.float32))
    b = cp.asarray(numpy.array([[1.0], [1.0]], numpy.float32))
    r = cublas.gemm("N", "N", a, b)
    assert r.dtype == numpy.float32 and float(r[0, 0]) == 1.0


def test_gemm_errors_are_cupys(cp, cublas):
    a = cp.asarray(numpy.ones((2, 3)))
    with pytest.raises(AssertionError):
        cublas.gemm("N", "N", a, a)
    with pytest.raises(AssertionError):
        cublas.gemm("N", "T", a, cp.asarray(numpy.ones((2, 3), numpy.float32)))
    with pytest.raises(TypeError, match=r"^invalid trans \(actual: 7\)$"):
        cublas.gemm(7, "N", a, a)
    with pytest.raises(AssertionError):
        cublas.gemm("N", "T", a, a, out=cp.zeros((2, 2), numpy.float32))
    with pytest.raises(AttributeError,
                       match="'numpy.ndarray' object has no attribute '_f_contiguous'"):
        cublas.gemm("N", "T", a, numpy.ones((2, 3)))


@pytest.mark.parametrize("dtype", ["f", "D"])
@pytest.mark.parametrize("transa,transb", [("N", "N"), ("T", "H"), ("H", "N"), (1, 0)])
@pytest.mark.parametrize("out_order", [None, "C", "F"])
def test_geam(cp, cublas, dtype, transa, transb, out_order):
    ta = {0: "N", 1: "T"}.get(transa, transa)
    tb = {0: "N", 1: "T"}.get(transb, transb)
    a_host = _rand((3, 4) if ta == "N" else (4, 3), dtype, 29)
    b_host = _rand((3, 4) if tb == "N" else (4, 3), dtype, 30)
    out = None if out_order is None else cp.zeros((3, 4), dtype, order=out_order)
    r = cublas.geam(transa, transb, 2.0, cp.asarray(a_host), -1.0, cp.asarray(b_host),
                    out=out)
    if out is not None:
        assert r is out
    else:
        assert r.flags.f_contiguous
    _close(r.get(), 2.0 * _op(a_host, ta) - _op(b_host, tb), dtype)


@pytest.mark.parametrize("side", ["L", "R", 0, 1])
@pytest.mark.parametrize("order", ["C", "F"])
def test_dgmm(cp, cublas, side, order):
    a_host = _rand((3, 4), "d", 31, order)
    left = side in ("L", 0)
    x_host = _rand((3,) if left else (4,), "d", 32)
    r = cublas.dgmm(side, cp.asarray(a_host, order=order), cp.asarray(x_host))
    assert r.flags.c_contiguous == (order == "C")
    expected = numpy.diag(x_host) @ a_host if left else a_host @ numpy.diag(x_host)
    _close(r.get(), expected, "d")
    out = cp.zeros((3, 4), "d", order="F")
    assert cublas.dgmm(side, cp.asarray(a_host), cp.asarray(x_host), out=out) is out
    _close(out.get(), expected, "d")


def test_dgmm_incx_and_errors(cp, cublas):
    a_host = _rand((3, 2), "d", 33)
    x_host = numpy.array([1.0, 2.0, 3.0, 4.0, 5.0])
    r = cublas.dgmm("L", cp.asarray(a_host), cp.asarray(x_host), incx=2)
    _close(r.get(), numpy.diag(x_host[::2]) @ a_host, "d")
    r = cublas.dgmm("L", cp.asarray(a_host), cp.asarray(x_host), incx=-2)
    _close(r.get(), numpy.diag(x_host[::-2]) @ a_host, "d")
    with pytest.raises(ValueError, match=r"^invalid side \(actual: X\)$"):
        cublas.dgmm("X", cp.asarray(a_host), cp.asarray(x_host))
    with pytest.raises(AssertionError):
        cublas.dgmm("L", cp.asarray(a_host), cp.asarray(x_host[:2]))


@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("trans", ["N", "T"])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("order", ["C", "F"])
def test_syrk_fills_one_triangle(cp, cublas, dtype, trans, lower, order):
    a_host = _rand((3, 5) if trans == "N" else (5, 3), dtype, 34, order)
    full = _op(a_host, trans) @ _op(a_host, trans).T  # (no conjugate: syrk, not herk)
    tri = numpy.tril if lower else numpy.triu
    r = cublas.syrk(trans, cp.asarray(a_host, order=order), lower=lower)
    assert r.shape == (3, 3) and r.dtype == numpy.dtype(dtype) and r.flags.f_contiguous
    _close(r.get(), tri(full), dtype)
    c_host = _rand((3, 3), dtype, 35)
    out = cp.asarray(c_host, order=order)
    assert cublas.syrk(trans, cp.asarray(a_host), out=out, alpha=2.0, beta=0.5,
                       lower=lower) is out
    other = numpy.triu(c_host, 1) if lower else numpy.tril(c_host, -1)
    _close(out.get(), tri(2.0 * full + 0.5 * c_host) + other, dtype)


def test_syrk_of_h_is_cythons_type_error(cp, cublas):
    a = cp.asarray(numpy.ones((2, 3), numpy.complex64))
    with pytest.raises(TypeError, match="an integer is required"):
        cublas.syrk("H", a)


# --- batched_gesv and the limit -------------------------------------------------------

@pytest.mark.parametrize("dtype", ["f", "d", "F", "D"])
@pytest.mark.parametrize("b_shape", [(4, 5), (4, 5, 2)])
def test_batched_gesv(cp, cublas, dtype, b_shape):
    a_host = _rand((4, 5, 5), dtype, 36) + 5 * numpy.eye(5, dtype=dtype)
    b_host = _rand(b_shape, dtype, 37)
    x = cublas.batched_gesv(cp.asarray(a_host), cp.asarray(b_host))
    assert x.shape == b_shape and x.dtype == numpy.dtype(dtype)
    expected = numpy.linalg.solve(a_host, b_host if len(b_shape) == 3 else b_host[..., None])
    _close(x.get(), expected.reshape(b_shape), dtype)


def test_batched_gesv_checks(cp, cublas):
    a = cp.asarray(numpy.eye(3)[None].repeat(2, 0))
    with pytest.raises(ValueError, match=r"^a must have \(\.\.\., M, M\) shape and b must "
                                         r"have \(\.\.\., M\) or \(\.\.\., M, K\)$"):
        cublas.batched_gesv(a, cp.ones((2, 4)))
    with pytest.raises(numpy.linalg.LinAlgError, match="^cupy.linalg only supports"):
        cublas.batched_gesv(a, numpy.ones((2, 3)))
    with pytest.raises(numpy.linalg.LinAlgError, match="Last 2 dimensions of the array "
                                                       "must be square"):
        cublas.batched_gesv(cp.ones((2, 3, 4)), cp.ones((2, 3)))
    x = cublas.batched_gesv(cp.asarray(numpy.eye(3, dtype=numpy.int64)[None]),
                            cp.asarray(numpy.ones((1, 3), numpy.int64)))
    assert x.dtype == numpy.float64 and x.get().tolist() == [[1.0, 1.0, 1.0]]


def test_batched_gesv_warns_over_the_limit(cp, cublas):
    old = cublas.get_batched_gesv_limit()
    cublas.set_batched_gesv_limit(2)
    try:
        with pytest.warns(UserWarning, match=r"^The matrix size \(3\) exceeds the set "
                                             r"limit \(2\)$"):
            cublas.batched_gesv(cp.asarray(numpy.eye(3)[None]), cp.ones((1, 3)))
    finally:
        cublas.set_batched_gesv_limit(old)


def test_batched_gesv_limit_round_trip_and_solve(cp, cublas):
    assert cublas.get_batched_gesv_limit() == 256
    a_host = _rand((3, 4, 4), "d", 38) + 4 * numpy.eye(4)
    b_host = _rand((3, 4, 2), "d", 39)
    expected = numpy.linalg.solve(a_host, b_host)
    cublas.set_batched_gesv_limit(0)
    try:
        assert cublas.get_batched_gesv_limit() == 0
        _close(cp.linalg.solve(cp.asarray(a_host), cp.asarray(b_host)).get(), expected, "d")
    finally:
        cublas.set_batched_gesv_limit(256)
    assert cublas.get_batched_gesv_limit() == 256
    _close(cp.linalg.solve(cp.asarray(a_host), cp.asarray(b_host)).get(), expected, "d")


def test_the_limit_is_the_sessions(cp, cublas):
    from gpushare import client
    cublas.set_batched_gesv_limit(7)
    assert cublas.get_batched_gesv_limit() == 7
    client.reset_session()  # a new session: a new worker, CuPy's default again
    assert cublas.get_batched_gesv_limit() == 256
