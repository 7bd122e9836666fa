"""CuPy 14.2's answers where NumPy 2 and SciPy 1.17 dropped a name or answer otherwise,
through a real server: the names NumPy 2 and SciPy removed and CuPy keeps (``in1d``,
``msort``, ``round_``, ``product``, ``asfarray``, ``obj2sctype``..., ``sph_harm``,
``btdtr``, ``hellinger``...), ``linspace``'s Python float step, CuPy's integer loops
(``reciprocal`` of 0, ``sign`` of bools), reductions that never warn, ``array_equal``'s
0-d array, and CuPy's words for sorts, ``item``, float16 in ``linalg``, its plain tuples,
``Generator.integers`` and ``lexsort``."""
from __future__ import annotations

import math
import warnings

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


def _warned(fn, category=Warning):
    """``fn()``'s result (as a host value) and the warnings of ``category`` it gave."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = fn()
        if hasattr(result, "get"):
            result = result.get()
        from gpushare import client
        client.get_session().synchronize()
    return result, [w for w in seen if issubclass(w.category, category)]


# --- names NumPy 2 / SciPy 1.17 removed, which CuPy 14.2 keeps ---------------------------

def test_in1d_is_isin_of_raveled_arrays(cp):
    a = cp.arange(6).reshape(2, 3)
    r = cp.in1d(a, cp.asarray([[1], [5]]))
    assert isinstance(r, cp.ndarray) and r.shape == (6,) and r.dtype == numpy.bool_
    assert r.get().tolist() == [False, True, False, False, False, True]
    assert cp.in1d(a, cp.asarray([1, 5]), invert=True).get().tolist() == \
        [True, False, True, True, True, False]
    assert cp.in1d(a, cp.asarray([], dtype=cp.int64), invert=True).get().all()
    assert not cp.in1d(cp.zeros((2, 0)), cp.asarray([1.0])).get().size


def test_deprecated_aliases_warn_as_cupy(cp):
    host = numpy.array([[3., 1., 2.], [0., 5., 4.]])
    a = cp.asarray(host)
    r, w = _warned(lambda: cp.msort(a), DeprecationWarning)
    numpy.testing.assert_array_equal(r, numpy.sort(host, axis=0))
    assert [str(x.message) for x in w] == ["msort is deprecated, use cupy.sort(a, axis=0) "
                                           "instead"]
    r, w = _warned(lambda: cp.round_(a / 3, 2), DeprecationWarning)
    numpy.testing.assert_array_equal(r, numpy.round(host / 3, 2))
    assert [str(x.message) for x in w] == ["Please use `round` instead."]
    r, w = _warned(lambda: cp.product(a + 1, axis=1), DeprecationWarning)
    numpy.testing.assert_array_equal(r, numpy.prod(host + 1, axis=1))
    assert [str(x.message) for x in w] == ["Please use `prod` instead."]
    r, w = _warned(lambda: cp.cumproduct(a + 1), DeprecationWarning)
    numpy.testing.assert_array_equal(r, numpy.cumprod(host + 1))
    assert [str(x.message) for x in w] == ["Please use `cumprod` instead."]
    # CuPy's prod of a contiguous float16 array: CUB's DeviceReduce multiplying
    # ``__half``s, each product rounded to half, in the order of CUB's tuning policy
    # for the GPU's architecture (the H200's answer: 15704, where a float32 product
    # gives 16618); the CPU backend, which does not model that policy, multiplies in
    # float32 and rounds once
    from _servers import BACKEND
    half = cp.full(1000, 1.01, dtype=cp.float16)
    r, _ = _warned(lambda: cp.product(half))
    assert r.dtype == numpy.float16
    assert float(r) == (15704.0 if BACKEND == "cupy" else float(numpy.float16(numpy.prod(
        numpy.full(1000, 1.01, numpy.float16), dtype=numpy.float32))))


def test_asfarray(cp):
    assert cp.asfarray(cp.arange(3)).dtype == numpy.float64
    assert cp.asfarray(cp.arange(3), dtype=cp.float32).dtype == numpy.float32
    # a dtype that is not inexact is float64 (CuPy's ``issubdtype`` check)
    r = cp.asfarray(numpy.arange(3), dtype=cp.int32)
    assert isinstance(r, cp.ndarray) and r.dtype == numpy.float64
    assert r.get().tolist() == [0.0, 1.0, 2.0]


def test_numpy1_type_functions(cp):
    assert cp.obj2sctype(cp.float32) is numpy.float32
    assert cp.obj2sctype(numpy.dtype("int16")) is numpy.int16
    assert cp.obj2sctype("f8") is numpy.float64
    assert cp.obj2sctype("no such type", default=int) is int
    assert cp.issubclass_(int, int) is True
    assert cp.issubclass_(3, int) is False
    assert cp.issubsctype(cp.float32, cp.float64) is False
    assert cp.issubsctype("f4", cp.float32) is True
    assert cp.sctype2char(cp.float32) == "f"
    _raises(ValueError, "unrecognized type", lambda: cp.sctype2char("no such type"))
    assert cp.issctype(cp.int8) is True
    assert cp.issctype(3) is False
    # (run on the client: abstract types cannot travel to a server)
    assert cp.issubsctype(cp.float32, cp.floating) is True
    assert cp.issubsctype(cp.int8, numpy.inexact) is False
    assert cp.obj2sctype(cp.ones(2, dtype=cp.int16)) is numpy.int16


@pytest.mark.parametrize("name, recommendation", [
    ("find_common_type", "`promote_types` or `result_type`"),
    ("set_string_function", "`np.set_printoptions`"),
    ("get_array_wrap", "<no replacement>"),
    ("disp", "your own print function"),
    ("safe_eval", "`ast.literal_eval`")])
def test_functions_numpy2_removed_raise_cupys_runtime_error(cp, name, recommendation):
    _raises(RuntimeError, f"This function has been removed in NumPy v2.\nUse "
                          f"{recommendation} instead.\n",
            lambda: getattr(cp, name)("x"))


def test_special_functions_scipy_removed(cp):
    import scipy.special

    from gpushare.cupyx.scipy import special
    x = cp.asarray([0.3, 0.7])
    r, w = _warned(lambda: special.btdtr(2.0, 3.0, x), DeprecationWarning)
    numpy.testing.assert_allclose(r, scipy.special.betainc(2.0, 3.0, [0.3, 0.7]))
    assert [str(v.message) for v in w] == ["Use cupyx.scipy.special.betainc instead."]
    r, w = _warned(lambda: special.btdtri(2.0, 3.0, x), DeprecationWarning)
    numpy.testing.assert_allclose(r, scipy.special.betaincinv(2.0, 3.0, [0.3, 0.7]))
    assert [str(v.message) for v in w] == ["Use cupyx.scipy.special.betaincinv instead."]
    r, _ = _warned(lambda: special.btdtr(2.0, 3.0, x.astype(cp.float32)))
    assert r.dtype == numpy.float32


def test_sph_harm_as_cupys(cp):
    from gpushare.cupyx.scipy import special
    theta, phi = cp.asarray([0.3, 1.1]), cp.asarray([0.5, 2.0])
    r, w = _warned(lambda: special.sph_harm(1, 2, theta, phi), DeprecationWarning)
    assert len(w) == 1 and "sph_harm` is deprecated in CuPy v14" in str(w[0].message)
    # Y_2^1(polar phi, azimuth theta) = -1/2 sqrt(15 / 2pi) sin(phi) cos(phi) e^(i theta)
    t, p = numpy.array([0.3, 1.1]), numpy.array([0.5, 2.0])
    expected = -0.5 * math.sqrt(15 / (2 * math.pi)) * numpy.sin(p) * numpy.cos(p) * \
        numpy.exp(1j * t)
    assert r.dtype == numpy.complex128
    numpy.testing.assert_allclose(r, expected, rtol=1e-12)
    # single precision angles: complex64 (CuPy's iiff->F loop); |m| > n: NaN
    r32, _ = _warned(lambda: special.sph_harm(3, 2, theta.astype(cp.float32),
                                              phi.astype(cp.float32)))
    assert r32.dtype == numpy.complex64 and numpy.isnan(r32.real).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match="Wrong type"):
            special.sph_harm(1.5, 2, theta, phi)
            from gpushare import client
            client.get_session().synchronize()


def test_distance_functions_scipy_lacks(cp):
    from gpushare.cupyx.scipy.spatial import distance
    u, v = numpy.array([0.2, 0.8]), numpy.array([0.5, 0.5])
    try:
        h = distance.hellinger(cp.asarray(u), cp.asarray(v))
    except RuntimeError as exc:  # (C) CuPy computes these with cuVS, not on every GPU box
        from _servers import BACKEND
        if BACKEND == "cupy" and str(exc) == ("cuVS >= 24.12 or pylibraft < 24.12 should "
                                              "be installed to use this feature"):
            pytest.skip("the GPU server's CuPy has no cuVS (its RuntimeError)")
        raise
    assert isinstance(h, cp.ndarray) and h.shape == () and h.dtype == numpy.float64
    assert math.isclose(float(h), math.sqrt(((numpy.sqrt(u) - numpy.sqrt(v)) ** 2).sum())
                        / math.sqrt(2), rel_tol=1e-12)
    assert distance.hellinger(cp.asarray(u, dtype=cp.float32),
                              cp.asarray(v, dtype=cp.float32)).dtype == numpy.float32
    k = distance.kl_divergence(cp.asarray(u), cp.asarray(v))
    assert isinstance(k, cp.ndarray) and k.shape == ()
    assert math.isclose(float(k), float((u * numpy.log(u / v)).sum()), rel_tol=1e-12)
    assert float(distance.kl_divergence(cp.asarray([0.0, 1.0]), cp.asarray([0.5, 0.5]))) \
        == pytest.approx(math.log(2))
    x = numpy.array([[1., 2., 3.], [4., 5., 6.]])
    d = distance.distance_matrix(cp.asarray(x), cp.asarray(x[:1]), p=1)
    assert d.shape == (2, 1) and d.dtype == numpy.float64
    assert d.get().ravel().tolist() == [0.0, 9.0]
    _raises(ValueError, "x contains 3-dimensional vectors but y contains 2-dimensional "
                        "vectors",
            lambda: distance.distance_matrix(cp.asarray(x), cp.asarray(x[:, :2])))
    assert distance.check_soft_dependencies() is None


def test_every_public_cupy_callable_resolves_on_the_cpu_backend():
    """Every public function the client sends by name resolves on the CPU backend, but
    for the ``cupyx.cusparse`` routines (cuSPARSE's own API, not served there) and
    ``cwt`` (its wavelet is a Python function: it runs on the client)."""
    from gpushare.namespace import CALLABLE_KINDS, public_names
    from gpushare_server.backends.cpu import CpuBackend
    backend = CpuBackend()
    missing = []
    for module in ("cupy", "cupyx.scipy.special", "cupyx.scipy.spatial.distance",
                   "cupyx.scipy.signal", "cupy.linalg", "cupy.fft", "cupyx.scipy.linalg",
                   "cupyx.scipy.ndimage", "cupyx.scipy.stats"):
        for name, kind in public_names().get(module, {}).items():
            if kind not in CALLABLE_KINDS or f"{module}.{name}" == "cupyx.scipy.signal.cwt":
                # (cwt runs on the client: test_cwt_runs_its_python_wavelet_on_the_client)
                continue
            try:
                backend.function(f"{module}.{name}")
            except NotImplementedError as exc:
                if "reads or writes files" not in str(exc):
                    missing.append(f"{module}.{name}")
    # answered on the client (gpushare.cupy's LOCAL table), never sent
    from gpushare.cupy import LOCAL
    local = {f"cupy.{name}" for name in LOCAL} | {"cupy.alltrue", "cupy.sometrue",
                                                   "cupy.trapz"}  # (aliases made there)
    assert sorted(set(missing) - local) == []


def test_cwt_runs_its_python_wavelet_on_the_client(cp):
    """``signal.cwt`` takes a Python function (``ricker``, ``morlet2``, a lambda): CuPy's
    own steps, each a call."""
    from gpushare.cupyx.scipy import signal
    data = numpy.sin(numpy.linspace(0, 8 * numpy.pi, 64))
    widths = [1, 2, 4]

    def ricker(points, a):  # SciPy's and CuPy's formula, on the host
        t = numpy.arange(points) - (points - 1) / 2
        amp = 2 / (numpy.sqrt(3 * a) * numpy.pi ** 0.25)
        return amp * (1 - (t / a) ** 2) * numpy.exp(-(t / a) ** 2 / 2)
    expected = numpy.stack([numpy.convolve(data, ricker(min(10 * w, 64), w)[::-1],
                                           mode="same") for w in widths])
    with pytest.warns(numpy.exceptions.VisibleDeprecationWarning):
        out = signal.cwt(cp.asarray(data), signal.ricker, widths)
    assert out.shape == (3, 64) and out.dtype == cp.float64
    numpy.testing.assert_allclose(out.get(), expected, atol=1e-12)
    with pytest.warns(numpy.exceptions.VisibleDeprecationWarning):
        out = signal.cwt(cp.asarray(data), lambda n, a: cp.asarray(ricker(n, a)), widths)
    numpy.testing.assert_allclose(out.get(), expected, atol=1e-12)
    with pytest.warns(numpy.exceptions.VisibleDeprecationWarning):
        assert signal.cwt(cp.asarray(data), signal.morlet2, widths).dtype == cp.complex128


# --- linspace's step -------------------------------------------------------------------------

def test_linspace_step_is_a_python_float(cp):
    x, dx = cp.linspace(0, 1, 5, retstep=True)
    assert type(dx) is float and dx == 0.25
    assert (cp.ones(3, dtype=cp.float32) * dx).dtype == numpy.float32  # weak, as CuPy's
    x, dx = cp.linspace(0, 10, 5, retstep=True, dtype=cp.int32)
    assert type(dx) is float and dx == 2.5 and x.dtype == numpy.int32
    _, dx = cp.linspace(2, 2, 1, retstep=True)
    assert type(dx) is float and math.isnan(dx)
    _, dx = cp.linspace(0, 3, 3, endpoint=False, retstep=True)
    assert dx == 1.0
    # between arrays, the step stays an array
    _, dx = cp.linspace(cp.asarray([0.0, 1.0]), 2.0, 3, retstep=True)
    assert isinstance(dx, cp.ndarray) and dx.get().tolist() == [1.0, 0.5]


# --- CuPy's integer loops --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.int8, numpy.int32, numpy.int64, numpy.uint16])
def test_reciprocal_of_integer_zero_is_zero(cp, dtype):
    host = numpy.array([2, 1, 0, 1, 0], dtype=dtype)
    a = cp.asarray(host)
    r = cp.reciprocal(a)
    assert r.dtype == dtype and r.get().tolist() == [0, 1, 0, 1, 0]
    # a carried operand (the executor computes in place where it can) too
    assert (cp.reciprocal(a + 0) * 1).get().tolist() == [0, 1, 0, 1, 0]
    out = cp.empty(5, dtype=dtype)
    cp.reciprocal(a, out=out)
    assert out.get().tolist() == [0, 1, 0, 1, 0]


def test_reciprocal_other_loops(cp):
    assert cp.reciprocal(cp.asarray([-1, -2, 0])).get().tolist() == [-1, 0, 0]
    r = cp.reciprocal(cp.asarray([True, False]))
    assert r.dtype == numpy.int8 and r.get().tolist() == [1, 0]
    # dtype= picks a float loop: 1 / 0 is infinity there
    r = cp.reciprocal(cp.asarray([0, 2]), dtype=cp.float32)
    assert r.dtype == numpy.float32 and r.get().tolist() == [math.inf, 0.5]
    assert cp.reciprocal(cp.asarray([0.0, 4.0])).get().tolist() == [math.inf, 0.25]


def test_sign_of_bools_is_int8(cp):
    b = cp.asarray([True, False, True])
    s = cp.sign(b)
    assert s.dtype == numpy.int8  # the client's inference
    assert s.get().dtype == numpy.int8 and s.get().tolist() == [1, 0, 1]
    assert (cp.sign(b) + 1).get().tolist() == [2, 1, 2]
    assert cp.sign(cp.asarray([-3, 0, 2])).get().tolist() == [-1, 0, 1]


def test_client_infers_cupys_sign_loop():
    from gpushare.cupy import _infer
    assert _infer.resolve(numpy.sign, (numpy.dtype(bool),), None) == \
        (numpy.dtype(numpy.int8), numpy.dtype(numpy.int8))
    assert _infer.resolve(numpy.sign, (numpy.dtype(numpy.int16),), None)[-1] == numpy.int16


# --- reductions that never warn in CuPy ------------------------------------------------------

def test_nan_and_empty_reductions_do_not_warn(cp):
    y = cp.asarray([[1., numpy.nan], [numpy.nan, numpy.nan]])
    for fn in (lambda: cp.nanmean(y, axis=1), lambda: cp.nanvar(y, axis=1),
               lambda: cp.nanstd(y, axis=1), lambda: cp.nanmedian(y, axis=1),
               lambda: cp.mean(cp.zeros(0)), lambda: cp.var(cp.zeros(0)),
               lambda: cp.std(cp.ones(1), ddof=2), lambda: cp.zeros((0, 3)).mean(axis=0),
               lambda: cp.zeros((2, 0)).var(axis=1), lambda: cp.ones(1).std(ddof=1)):
        r, w = _warned(fn, RuntimeWarning)
        assert w == []
        assert numpy.isnan(r).any()
    r, _ = _warned(lambda: cp.nanmean(y, axis=1))
    assert r[0] == 1.0 and numpy.isnan(r[1])
    # the median of an empty slice is CuPy's partition error (its kth is [-1, 0]), not
    # NumPy's NaN (_routines_statistics.pyx: _median; _routines_sorting.pyx)
    for empty, axis in ((cp.zeros(0), None), (cp.zeros((2, 0)), 1)):
        with pytest.raises(ValueError, match=r"kth\(=-1\) out of bounds 0"):
            cp.median(empty, axis=axis)
    # nanmax and nanmin do warn, as CuPy's
    _, w = _warned(lambda: cp.nanmax(y, axis=1), RuntimeWarning)
    assert [str(x.message) for x in w] == ["All-NaN slice encountered"]


# --- array_equal / array_equiv -----------------------------------------------------------------

def test_array_equal_and_equiv_are_0d_arrays(cp):
    a = cp.arange(3)
    for r, expected in ((cp.array_equal(a, a), True), (cp.array_equal(a, a + 1), False),
                        (cp.array_equal(a, a[:2]), False),
                        (cp.array_equiv(a, a[None]), True),
                        (cp.array_equiv(a, cp.arange(2)), False)):
        assert isinstance(r, cp.ndarray) and r.shape == () and r.dtype == numpy.bool_
        assert r.get() == expected
    n = cp.asarray([1.0, numpy.nan])
    assert not cp.array_equal(n, n).get()
    assert cp.array_equal(n, n, equal_nan=True).get()
    assert not cp.array_equal(n, cp.asarray([numpy.nan, 1.0]), equal_nan=True).get()


# --- CuPy's words ------------------------------------------------------------------------------

def test_sort_kinds_other_than_stable(cp):
    v = cp.asarray([3, 1, 2])
    message = "kind can only be None or 'stable'"
    _raises(ValueError, message, lambda: cp.sort(v, kind="quicksort"))
    _raises(ValueError, message, lambda: cp.argsort(v, kind="mergesort"))
    _raises(ValueError, message, lambda: v.argsort(kind="mergesort"))
    _raises(ValueError, message, lambda: v.sort(kind="heapsort"))
    assert cp.sort(v, kind="stable").get().tolist() == [1, 2, 3]


def test_item_takes_no_arguments(cp):
    a = cp.arange(24).reshape(2, 3, 4)
    _raises(TypeError, "_ndarray_base.item() takes no arguments (1 given)", lambda: a.item(5))
    _raises(TypeError, "_ndarray_base.item() takes no arguments (3 given)",
            lambda: a.item(1, 2, 3))
    assert cp.asarray([7]).item() == 7


def test_linalg_float16_message_and_plain_tuples(cp):
    h = cp.eye(2, dtype=cp.float16)
    for fn in (cp.linalg.inv, cp.linalg.det, cp.linalg.svd, cp.linalg.qr):
        _raises(TypeError, "float16 is unsupported in linalg", lambda: fn(h))
    m = cp.asarray([[2.0, 1.0], [1.0, 3.0]])
    for result, n in ((cp.linalg.svd(m), 3), (cp.linalg.qr(m), 2), (cp.linalg.eigh(m), 2),
                      (cp.linalg.slogdet(m), 2)):
        assert type(result) is tuple and len(result) == n
        assert all(isinstance(r, cp.ndarray) for r in result)
    sign, logdet = cp.linalg.slogdet(m)
    assert float(sign) == 1.0 and float(logdet) == pytest.approx(math.log(5.0))


def test_generator_integers_takes_one_number_per_bound(cp):
    g = cp.random.default_rng(0)
    # (CuPy's ``int(low)``: ndarray.__int__ is ``int(self.get())``, NumPy's own words:
    # "only 0-dimensional arrays can be converted to Python scalars" since NumPy 2.4)
    with pytest.raises(TypeError) as numpy_words:
        int(numpy.asarray([0, 10]))
    _raises(TypeError, str(numpy_words.value),
            lambda: g.integers(cp.asarray([0, 10]), cp.asarray([5, 20])))
    _raises(ValueError, "low >= high", lambda: g.integers(5, 2))
    _raises(ValueError, "high is out of bounds for int8",
            lambda: g.integers(0, 1000, dtype=cp.int8))
    r = g.integers(cp.asarray(3), cp.asarray(7), size=100)
    assert r.shape == (100,) and r.dtype == numpy.int64
    assert 3 <= int(r.min()) and int(r.max()) <= 6
    r = g.integers(2, 4, size=50, endpoint=True)
    assert set(r.get().tolist()) <= {2, 3, 4}
    s = g.integers(10)
    assert isinstance(s, cp.ndarray) and s.shape == ()


def test_lexsort_of_a_tuple(cp):
    v = cp.asarray([3, 1, 2])
    _raises(AttributeError, "'tuple' object has no attribute 'ndim'",
            lambda: cp.lexsort((v, v)))
    assert cp.lexsort(cp.stack([v, v])).get().tolist() == [1, 2, 0]
