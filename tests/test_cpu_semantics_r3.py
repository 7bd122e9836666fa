"""The CPU backend's answers where CuPy 14.2's differ, through a real server (third
round): cuFFT plans checked against their arrays (``plan=`` and ``with plan:``),
reductions of non-arrays (CuPy calls ``a.sum(...)``), the default memory pool's cache
of freed blocks, ``sparse.linalg.norm``'s checks, user kernels called with scalars
only, and ``value_indices``' keys."""
from __future__ import annotations

import numpy
import pytest

pytestmark = pytest.mark.timeout(240)


from test_cpu_semantics import _raises


def _server_attr(obj, name):
    """``obj.name`` read on the server (the plan's own value there)."""
    from gpushare import client
    return client.get_session().call("getattr", name, (obj,))


# --- cuFFT plans ---------------------------------------------------------------------

@pytest.fixture
def cfft(cp):
    from gpushare.cupyx.scipy import fft
    return fft


@pytest.fixture
def fftpack(cp):
    from gpushare.cupyx.scipy import fftpack
    return fftpack


def test_plan1d_checked_against_the_array(cp, cfft):
    plan = cfft.get_fft_plan(cp.ones(8, cp.complex64))
    _raises(ValueError, "('Target array size does not match the plan.', 16, 8)",
            lambda: cfft.fft(cp.ones(16, cp.complex64), plan=plan))
    _raises(ValueError, "cuFFT plan dtype mismatch.",
            lambda: cfft.fft(cp.ones(8, cp.complex128), plan=plan))
    # (the type is checked before the size, as CuPy's _exec_fft does)
    _raises(ValueError, "cuFFT plan dtype mismatch.",
            lambda: cfft.fft(cp.ones(16, cp.complex128), plan=plan))
    _raises(ValueError, "Batch size does not match the plan.",
            lambda: cfft.ifft(cp.ones((3, 8), cp.complex64), plan=plan))
    x = cp.arange(8, dtype=cp.complex64)
    assert numpy.allclose(cfft.fft(x, plan=plan).get(), numpy.fft.fft(x.get()), atol=1e-4)


def test_plan_kinds_checked(cp, cfft, fftpack):
    plan1d = cfft.get_fft_plan(cp.ones(8, cp.complex64))
    plannd = cfft.get_fft_plan(cp.ones((4, 4), cp.complex64))
    _raises(ValueError, "The cuFFT plan and a.shape do not match: plan.shape = (4, 4), "
            "expected_shape=(8, 8), a.shape = (8, 8)",
            lambda: cfft.fft2(cp.ones((8, 8), cp.complex64), plan=plannd))
    _raises(ValueError, "expected plan to have type cufft.PlanNd",
            lambda: cfft.fft2(cp.ones((4, 8), cp.complex64), plan=plan1d))
    _raises(ValueError, "expected plan to have type cufft.Plan1d",
            lambda: cfft.fft(cp.ones(16, cp.complex64), plan=plannd))
    # fftpack chooses the path by its plan: a 1-D plan runs axis by axis, the first
    # (of length 4) not the plan's
    _raises(ValueError, "('Target array size does not match the plan.', 4, 8)",
            lambda: fftpack.fft2(cp.ones((4, 8), cp.complex64), plan=plan1d))
    y = cp.ones((4, 4), cp.complex64)
    assert numpy.allclose(cfft.fft2(y, plan=plannd).get(), numpy.fft.fft2(y.get()))


def test_plan_attributes_are_cupys(cp, cfft):
    plan = cfft.get_fft_plan(cp.ones((3, 8), cp.complex64), axes=-1)
    assert [_server_attr(plan, n) for n in ("nx", "batch", "fft_type")] == [8, 3, 0x29]
    nd = cfft.get_fft_plan(cp.ones((4, 6), cp.float64), value_type="R2C")
    assert [_server_attr(nd, n) for n in ("shape", "fft_type", "order", "last_axis",
                                          "last_size")] == [(4, 6), 0x6a, "C", 1, 4]
    c2c = cfft.get_fft_plan(cp.ones((4, 6), cp.complex64))
    assert _server_attr(c2c, "last_size") is None
    # a 1-D C2R plan's length is the output's: 2 * (m - 1)
    c2r = cfft.get_fft_plan(cp.ones(5, cp.complex64), value_type="C2R")
    assert [_server_attr(c2r, n) for n in ("nx", "fft_type")] == [8, 0x2c]


def test_plan_as_context_manager(cp, cfft):
    plan = cfft.get_fft_plan(cp.ones(8, cp.complex64))

    with plan:  # (at the call: a transform waits while a plan is entered)
        with pytest.raises(ValueError) as info:
            cp.fft.fft(cp.ones(16, cp.complex64))
        assert str(info.value) == "('Target array size does not match the plan.', 16, 8)"
        with pytest.raises(ValueError, match="cuFFT plan dtype mismatch"):
            cp.fft.fft2(cp.ones((2, 8), cp.complex128))

    def both():
        with plan:
            cfft.fft(cp.ones(8, cp.complex64), plan=plan)
    _raises(RuntimeError, "Use the cuFFT plan either as a context manager or as an "
            "argument.", both)
    with plan:
        r = cp.fft.fft(cp.arange(8, dtype=cp.complex64))
    assert numpy.allclose(r.get(), numpy.fft.fft(numpy.arange(8)), atol=1e-4)
    # once the context is left no plan is in play
    assert cp.fft.fft(cp.ones(16, cp.complex64)).shape == (16,)
    c2r = cfft.get_fft_plan(cp.ones(5, cp.complex64), value_type="C2R")
    with c2r:
        assert cfft.irfft(cp.ones(5, cp.complex64)).shape == (8,)


def test_plans_cupy_does_not_take(cp, cfft):
    plan = cfft.get_fft_plan(cp.ones(8, cp.complex64))
    _raises(NotImplementedError, "hfft plan is currently not yet supported",
            lambda: cfft.hfft(cp.ones(5, cp.complex64), plan=plan))
    # CuPy's _fft passes no plan to its R2C transform: a plan argument is not used
    assert cfft.rfft(cp.ones(16, cp.float32), plan=plan).shape == (9,)


# --- reductions of what is not an array ----------------------------------------------

@pytest.mark.parametrize("name, method", [
    ("sum", "sum"), ("prod", "prod"), ("mean", "mean"), ("var", "var"), ("std", "std"),
    ("amax", "max"), ("max", "max"), ("amin", "min"), ("min", "min"), ("ptp", "ptp"),
    ("argmax", "argmax"), ("argmin", "argmin")])
def test_reductions_call_the_method(cp, name, method):
    fn = getattr(cp, name)
    _raises(AttributeError, f"'list' object has no attribute '{method}'",
            lambda: fn([1, 2, 3]))
    _raises(AttributeError, f"'float' object has no attribute '{method}'",
            lambda: fn(16.0))
    # (var: CuPy's reduction kernel adds the squares as (s0 + s2) + s1, its block's
    # tree; the GPU's 1.5555555555555556 is one ulp over NumPy's pairwise sum)
    expected = {"var": 1.5555555555555556}.get(
        name, float(getattr(numpy, name)(numpy.array([1.0, 2.0, 4.0]))))
    assert float(fn(cp.asarray([1.0, 2.0, 4.0]))) == expected


def test_reductions_of_host_arrays_and_bad_calls(cp):
    host = numpy.arange(3.0)
    _raises(TypeError, "argmax() got an unexpected keyword argument 'dtype'",
            lambda: cp.argmax(host))
    _raises(AttributeError, "'numpy.ndarray' object has no attribute 'ptp'",
            lambda: cp.ptp(host))
    _raises(TypeError, "sum() got an unexpected keyword argument 'foo'",
            lambda: cp.sum([1], foo=1))
    _raises(TypeError, "Argument 'a' has incorrect type (expected "
            "cupy._core.core._ndarray_base, got list)", lambda: cp.nansum([1.0]))
    _raises(TypeError, "Argument 'a' has incorrect type (expected "
            "cupy._core.core._ndarray_base, got numpy.ndarray)", lambda: cp.nanprod(host))
    assert float(cp.nansum(cp.asarray([1.0, numpy.nan]))) == 1.0


# --- the default memory pool ---------------------------------------------------------

def test_memory_pool_caches_freed_blocks(cp):
    """The user guide's example (docs.cupy.dev, "Memory Management")."""
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    assert pool.used_bytes() == 0 and pool.total_bytes() == 0
    a = cp.array(numpy.ndarray(100, dtype=numpy.float32))
    assert (pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks()) == (512, 512, 0)
    a = None
    assert (pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks(),
            pool.free_bytes()) == (0, 512, 1, 512)
    pool.free_all_blocks()
    assert (pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks()) == (0, 0, 0)
    del a


def test_memory_pool_reuses_and_splits_cached_blocks(cp):
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    a = cp.ones(1024 ** 2, dtype=cp.float32)
    del a
    assert (pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks()) == (0, 4 << 20, 1)
    b = cp.zeros(1024 ** 2, dtype=cp.int32)  # the cached block again
    assert (pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks()) == (
        4 << 20, 4 << 20, 0)
    del b
    c = cp.zeros(100, dtype=cp.float64)  # a part of it: the rest stays cached
    assert (pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks()) == (
        1024, 4 << 20, 1)
    pool.free_all_blocks()  # (a split block is not released)
    assert pool.total_bytes() == 4 << 20
    del c
    assert pool.n_free_blocks() == 1  # merged again
    pool.free_all_blocks()
    assert pool.total_bytes() == 0


# --- sparse.linalg.norm --------------------------------------------------------------

def test_sparse_norm_checks(cp, sp):
    from gpushare.cupyx.scipy.sparse import linalg as spl
    A = sp.csr_matrix(cp.array([[1.0, -2.0], [0.0, 3.0]]))
    for ord_ in (2, -2):
        _raises(NotImplementedError, "", lambda: spl.norm(A, ord_))
        _raises(NotImplementedError, "", lambda: spl.norm(A, ord_, axis=(1, 0)))
    _raises(ValueError, "Invalid norm order for matrices.", lambda: spl.norm(A, "nuc"))
    _raises(ValueError, "Duplicate axes given.", lambda: spl.norm(A, 1, axis=(0, -2)))
    _raises(TypeError, "'axis' must be None, an integer or a tuple of integers",
            lambda: spl.norm(A, 1, axis=1.5))
    _raises(ValueError, "Invalid norm order for vectors.", lambda: spl.norm(A, "x", axis=0))
    _raises(TypeError, "input is not sparse. use cupy.linalg.norm",
            lambda: spl.norm(numpy.eye(2)))
    assert float(spl.norm(A, 1)) == 5.0 and float(spl.norm(A, numpy.inf)) == 3.0
    assert spl.norm(A, numpy.inf, axis=0).tolist() == [1.0, 3.0]
    zero = spl.norm(A, 0, axis=1)
    assert zero.dtype == numpy.int64 and zero.tolist() == [2, 1]
    assert spl.norm(A, axis=1).shape == (2,)


# --- user kernels of scalars only ----------------------------------------------------

def test_kernels_of_scalars_only_have_no_loop_size(cp):
    k = cp.ElementwiseKernel("T x", "T y", "y = x", "r3_ident")
    r = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "r3_sum")
    _raises(ValueError, "Loop size is undecided.", lambda: k(5))
    _raises(ValueError, "Loop size is undecided.", lambda: r(3))
    assert float(r(cp.arange(4.0))) == 6.0


def test_kernel_type_mismatch_words_and_order(cp):
    k2 = cp.ElementwiseKernel("T x, T y", "T z", "z = x + y", "r3_add")
    _raises(TypeError, "Type is mismatched. y float64 float32 T",
            lambda: k2(cp.ones(3, cp.float32), cp.ones(3, cp.float64)))
    # broadcasting comes first
    _raises(ValueError, "operands could not be broadcast together with shapes (3,) (2,)",
            lambda: k2(cp.ones(3, cp.float32), cp.ones(2, cp.float64)))
    # every argument slot is named, a scalar as () (CuPy's ``internal._broadcast_core``)
    _raises(ValueError, "operands could not be broadcast together with shapes (2,) () (3,)",
            lambda: k2(cp.ones(2), 5.0, cp.ones(3)))
    # (ReductionKernel passes the scalar types, as CuPy's does)
    r2 = cp.ReductionKernel("T x, T w", "T y", "x * w", "a + b", "y = a", "0", "r3_dot")
    _raises(TypeError, "Type is mismatched. w <class 'numpy.float64'> "
            "<class 'numpy.float32'> T",
            lambda: r2(cp.ones(3, cp.float32), cp.ones(3, cp.float64)))


# --- value_indices -------------------------------------------------------------------

def test_value_indices_keys_are_python_ints(cp):
    from gpushare.cupyx.scipy import ndimage
    d = ndimage.value_indices(cp.array([[0, 1], [1, 3]]))
    assert list(d) == [0, 1, 3] and all(type(k) is int for k in d)
    assert [c.tolist() for c in d[1]] == [[0, 1], [1, 0]]
    _raises(ValueError, "The first argument of bincount must be non-negative",
            lambda: ndimage.value_indices(cp.array([-1, 2])))
