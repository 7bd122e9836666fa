"""The CPU backend follows CuPy 14.2 where CuPy deliberately differs from NumPy: index
arrays wrap, ``put`` wraps, CuPy-only arguments, float16 reductions in float32,
CuPy's errors. Each test runs against a real CPU server (``cp`` fixture)."""
from __future__ import annotations

import warnings

import numpy
import pytest

pytestmark = pytest.mark.timeout(120)


# --- indexing ------------------------------------------------------------------------

def test_integer_array_indices_wrap_in_getitem(cp):
    a = cp.arange(24).reshape(2, 3, 4)
    host = a.get()
    assert (a[cp.array([4, -5])].get() == host[[0, 1]]).all()
    assert (a[:, cp.array([3, -5])].get() == host[:, [0, 1]]).all()
    assert (a[..., [5, -6]].get() == host[..., [1, 2]]).all()
    with pytest.raises(IndexError):  # scalar indices are still bounds-checked
        a[5]


def test_integer_array_indices_wrap_in_setitem(cp):
    a = cp.zeros((2, 3))
    a[:, cp.array([3, -5])] = cp.array(1.)
    assert a.get().tolist() == [[1, 1, 0], [1, 1, 0]]
    b = cp.zeros((2, 3))
    b[[1, 1], cp.array([3, -5])] = 1.0
    assert b.get().tolist() == [[0, 0, 0], [1, 1, 0]]


def test_take_wraps_and_put_defaults_to_wrap(cp):
    a = cp.arange(10)
    assert a.take(cp.array([12, -1])).get().tolist() == [2, 9]
    assert cp.take(a, cp.array([[10]])).get().tolist() == [[0]]
    a.put(cp.array([12]), 5)
    assert a.get()[2] == 5
    cp.put(a, cp.array([-11]), 7)
    assert a.get()[9] == 7
    with pytest.raises(IndexError):
        cp.put(a, cp.array([12]), 5, mode="raise")
    b = cp.arange(6).reshape(2, 3)
    got = cp.take_along_axis(b, cp.array([[3], [-1]]), axis=1)
    assert got.get().tolist() == [[0], [5]]


# --- sorting and searching -----------------------------------------------------------

def test_in_place_sort_refuses_non_contiguous(cp):
    a = cp.arange(10)[::2]
    with pytest.raises(NotImplementedError):
        a.sort()
    with pytest.raises(NotImplementedError):
        cp.arange(10)[::-1].partition(2)
    assert cp.sort(cp.arange(10)[::-2]).get().tolist() == [1, 3, 5, 7, 9]
    with pytest.raises(NotImplementedError):
        cp.lexsort(cp.zeros((2, 3, 4)))


def test_argmax_takes_dtype_and_axis_tuple(cp):
    a = cp.array([[1, 9, 3], [4, 5, 6]])
    r = cp.argmax(a, dtype=numpy.int8)
    assert r.dtype == numpy.int8 and r.shape == () and int(r) == 1
    assert a.argmin(axis=1, dtype=numpy.int16).dtype == numpy.int16
    assert int(cp.argmax(a, axis=(0, 1))) == 1


# --- math --------------------------------------------------------------------------------

def test_float16_sum_accumulates_in_float32(cp):
    host = numpy.arange(1, 241, dtype=numpy.float16).reshape(2, 30, 4)
    got = cp.asarray(host).sum(axis=1)
    want = host.astype(numpy.float32).sum(axis=1).astype(numpy.float16)
    assert got.dtype == numpy.float16
    assert (got.get() == want).all()
    assert cp.sum(cp.asarray(host)).dtype == numpy.float16


def test_integer_negative_power_does_not_raise(cp):
    a = cp.array([-3, -2, -1, 1, 2, 3])
    assert (a ** -1).get().tolist() == [0, 0, -1, 1, 0, 0]
    assert cp.power(cp.array([-1, -1]), cp.array([-2, -3])).get().tolist() == [1, -1]
    assert cp.power.outer(cp.arange(3), cp.arange(2)).shape == (3, 2)


def test_cumsum_refuses_sequences(cp):
    with pytest.raises(TypeError):
        cp.cumsum((1, 2, 3))


# --- ndarray methods and attributes ---------------------------------------------------

def test_bool_of_empty_array_warns_and_is_false(cp):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert not bool(cp.array([], dtype=numpy.float32))
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)


def test_imag_of_real_array_is_writable_and_detached(cp):
    x = cp.zeros((2, 3))
    x.imag[:] = 1
    assert (x.get() == 0).all()


def test_fill_takes_0d_arrays_only(cp):
    a = cp.arange(6.)
    a.fill(numpy.ones((), dtype=numpy.float32))
    assert (a.get() == 1).all()
    with pytest.raises(ValueError):
        a.fill(cp.ones((1,)))


# --- manipulation -------------------------------------------------------------------------

def test_repeat_errors_are_cupys(cp):
    with pytest.raises(ValueError, match="same length"):
        cp.repeat(cp.arange(4), cp.array([1, 2]), axis=0)
    with pytest.raises(ValueError, match="too deep"):
        cp.repeat(cp.arange(6), [[1, 2, 3, 4, 5, 6]])
    with pytest.raises(ValueError, match="negative"):
        cp.repeat(cp.arange(3), cp.array([-1, 1, 2]))
    assert cp.repeat(cp.arange(3), [1, 0, 2]).get().tolist() == [0, 2, 2]


def test_require_and_delete_errors(cp):
    x = cp.zeros((2, 3))
    with pytest.raises(ValueError):
        cp.require(x, "random", "C")
    with pytest.raises(ValueError):
        cp.require(x, None, ["W"])
    assert cp.require(x, numpy.float32, ["F"]).flags.f_contiguous
    with pytest.raises(ValueError):
        cp.delete([[0, 1, 2], [3, 4, 5]], [1], axis=1)
    assert cp.delete(cp.arange(5), cp.array([7])).get().tolist() == [0, 1, 3, 4]


def test_row_stack_warns(cp):
    with pytest.warns(DeprecationWarning):
        out = cp.row_stack((cp.zeros(3), cp.ones(3)))
    assert out.shape == (2, 3)


# --- linear algebra ------------------------------------------------------------------

def test_matrix_rank_of_vector_is_an_array(cp):
    r = cp.linalg.matrix_rank(cp.array([1.0, 2.0]))
    assert isinstance(r, cp.ndarray) and int(r) == 1


def test_eigh_accepts_float16(cp):
    w, v = cp.linalg.eigh(cp.eye(3, dtype=numpy.float16) * 2)
    assert w.dtype == numpy.float16 and v.dtype == numpy.float16
    assert numpy.allclose(w.get(), 2)


def test_einsum_sublists_may_be_numpy(cp):
    a = cp.arange(9.).reshape(3, 3)
    assert float(cp.einsum(a, numpy.array([0, 0]))) == 12.0


# --- creation ----------------------------------------------------------------------------

def test_full_takes_0d_numpy_fill_values(cp):
    a = cp.full((2, 3), numpy.array(3, dtype=numpy.int8))
    assert a.dtype == numpy.int8 and (a.get() == 3).all()
    b = cp.full_like(cp.zeros((2, 2), dtype=numpy.int32), numpy.array(2.5))
    assert (b.get() == 2).all()
    with pytest.raises(TypeError, match="subok"):
        cp.empty_like(cp.zeros(3), subok=True)


def test_meshgrid_always_returns_a_tuple(cp):
    assert cp.meshgrid(indexing="xy", sparse=True, copy=False) == ()
    out = cp.meshgrid(cp.arange(2), cp.arange(3), sparse=True, copy=False)
    assert isinstance(out, tuple) and [o.shape for o in out] == [(1, 2), (3, 1)]


# --- indexing helpers ----------------------------------------------------------------------

def test_select_checks_like_cupy(cp):
    a = cp.arange(10)
    assert cp.select([a < 3, a > 8], [a, a * 10]).get().tolist() == \
        [0, 1, 2, 0, 0, 0, 0, 0, 0, 90]
    with pytest.raises(TypeError):
        cp.select([a < 3], [a], [2])
    with pytest.raises(AttributeError):
        cp.select([[3] * 10], [a])


def test_tril_indices_refuses_arrays(cp):
    with pytest.raises(TypeError):
        cp.tril_indices(cp.ones((3, 3)))
    rows, cols = cp.triu_indices(3, 1)
    assert rows.get().tolist() == [0, 0, 1] and cols.get().tolist() == [1, 2, 2]


def test_views_numpy_makes_read_only_are_writable_as_in_cupy(cp):
    a = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    a.diagonal()[0] = 7
    cp.diagonal(a, 1)[:] = -1
    src = cp.arange(3)
    cp.broadcast_to(src, (2, 3))[0, 1] = 5
    x, _ = cp.broadcast_arrays(src, cp.ones((2, 1)))
    x[1, 2] = 8
    d = cp.diag(a, -1)  # a new array in CuPy, not a view
    d[:] = 100
    expected = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    expected[0, 0] = 7
    expected[[0, 1, 2], [1, 2, 3]] = -1
    numpy.testing.assert_array_equal(a.get(), expected)
    assert src.get().tolist() == [0, 5, 8]
    assert d.get().tolist() == [100, 100] and d.flags.owndata


@pytest.mark.parametrize("optimize", [False, True, "optimal"])
def test_einsum_contracts_in_the_result_dtype_on_every_path(cp, optimize):
    """CuPy casts a contraction's operands to the result's dtype first: no optimized
    path overflows uint8 on the way (NumPy's pairwise products would)."""
    a = numpy.arange(24, dtype=numpy.int64).reshape(2, 3, 4)
    b = numpy.full((4, 5), 200, dtype=numpy.uint8)
    c = numpy.full((5, 6), 3, dtype=numpy.uint8)
    expected = numpy.einsum("ijk,kl,lm->ijm", a, b.astype(numpy.int64), c.astype(numpy.int64))
    got = cp.einsum("ijk,kl,lm->ijm", cp.asarray(a), cp.asarray(b), cp.asarray(c),
                    optimize=optimize)
    assert got.dtype == numpy.int64
    numpy.testing.assert_array_equal(got.get(), expected)
    view = cp.einsum("ij", cp.asarray(b), dtype=numpy.float32)  # one operand: a view
    assert view.dtype == numpy.uint8


def test_put_mode_is_checked(cp):
    with pytest.raises(ValueError):
        cp.put(cp.arange(4), cp.array([0]), 1, mode="unknown")


# --- fft ---------------------------------------------------------------------------------------

def test_fft_keeps_single_precision_and_empty_axes(cp):
    a = cp.ones((2, 3, 4), dtype=numpy.float16)
    assert cp.fft.fftn(a).dtype == numpy.complex64
    half = cp.ones((4, 10), dtype=numpy.float16)
    # CuPy's complex-to-real transforms along one axis end in the input's real precision
    # (its _compat_caster); along several, in the float32 they computed in
    assert cp.fft.irfft(half).dtype == numpy.float16
    assert cp.fft.hfft(half, 6).dtype == numpy.float16
    assert cp.fft.irfftn(half, axes=(0,)).dtype == numpy.float16
    assert cp.fft.irfft2(half, None, [-1]).dtype == numpy.float16
    assert cp.fft.irfft2(half).dtype == numpy.float32
    assert cp.fft.irfftn(half, s=(6,)).dtype == numpy.float32
    assert cp.fft.irfft(half.astype(numpy.complex64)).dtype == numpy.float32
    assert cp.fft.irfft(half.astype(numpy.int16)).dtype == numpy.float64
    out = cp.fft.fftn(a, axes=())
    assert out.dtype == numpy.float16 and out.shape == a.shape
    with pytest.raises(IndexError):
        cp.fft.rfftn(a, axes=())


def test_copyto_from_numpy_scalar_array(cp):
    d = cp.zeros((2, 3), dtype=numpy.int32)
    cp.copyto(d, numpy.array(1.5), "unsafe")
    assert (d.get() == 1).all()
    with pytest.raises(TypeError):
        cp.copyto(d, numpy.array(1.5))
    with pytest.raises(ValueError):
        cp.copyto(d, numpy.ones(3))


def test_real_and_imag_of_scalars_are_arrays(cp):
    r = cp.imag(2.0)
    assert isinstance(r, cp.ndarray) and r.shape == () and float(r) == 0.0
    assert isinstance(cp.real(3), cp.ndarray)
    z = cp.array([1 + 2j, 3 - 4j])
    assert cp.imag(z).get().tolist() == [2.0, -4.0]


def test_solve_with_no_right_hand_sides_follows_errstate(cp):
    import gpushare.cupyx as cupyx
    a = cp.zeros((3, 3))  # singular
    b = cp.empty((3, 0))
    assert cp.linalg.solve(a, b).size == 0  # CuPy's default: linalg='ignore'
    with cupyx.errstate(linalg="raise"):
        with pytest.raises(numpy.linalg.LinAlgError):
            cp.linalg.solve(a, b)
    assert cp.linalg.solve(a, b).shape == (3, 0)
