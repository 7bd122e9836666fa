"""The client proxy behaves like CuPy 14.2 where the client decides: inferred layouts,
errors and warnings at the call site, protocols, and routines that run on the client."""
from __future__ import annotations

import inspect
import warnings

import numpy
import pytest

pytestmark = pytest.mark.timeout(60)


def test_ufunc_outputs_positional_tuple_and_none(cp):
    a = cp.arange(6.0).reshape(2, 3)
    out = cp.zeros((2, 3))
    assert cp.sin(a, out=(out,)) is out
    assert cp.add(a, a, out) is out
    assert cp.allclose(out, a + a)
    assert cp.sin(a, None).shape == (2, 3)
    q, r = cp.divmod(a, 4.0, None, None)
    assert q.get().tolist() == [[0, 0, 0], [0, 1, 1]]
    o0 = cp.zeros((2, 3))
    res = cp.divmod(a, 4.0, o0)  # the missing output is allocated
    assert res[0] is o0 and res[1].get().tolist() == [[0, 1, 2], [3, 0, 1]]
    with pytest.raises(ValueError, match="out"):
        cp.divmod(a, 4.0, out=(o0,))


def test_ufunc_types_lists_cupys_loops(cp):
    assert cp.sin.types == ["e->e", "f->f", "d->d", "F->F", "D->D"]
    assert not any(c in t for t in cp.add.types for c in "GgMmO")


def test_numpy_gufunc_dispatches_to_the_proxy(cp):
    a = cp.ones((2, 2))
    r = numpy.matmul(a, a)
    assert isinstance(r, cp.ndarray) and r.get().tolist() == [[2, 2], [2, 2]]


def test_comparison_with_objects_follows_numpy(cp):
    class HasEq:
        def __eq__(self, other):
            return (other == 2) | (other == 4)

    class CustomInt(int):
        pass

    a = cp.array([[1, 2, 3], [4, 5, 6]])
    expected = numpy.array([[1, 2, 3], [4, 5, 6]]) == HasEq()
    assert ((a == HasEq()).get() == expected).all()
    assert ((a != HasEq()).get() == ~expected).all()
    assert (a == CustomInt(3)).get().tolist() == [[False, False, True], [False] * 3]
    assert not (a == None).get().any()  # noqa: E711


def test_warnings_come_at_the_call(cp):
    c = cp.ones(8, dtype=complex)
    with pytest.warns(numpy.exceptions.ComplexWarning):
        s = c.sum(dtype=numpy.float32)
    assert float(s) == 8.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
        f = cp.full((2,), numpy.array(1 + 1j), dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f.get().tolist() == [1.0, 1.0]  # nothing left to warn later


def test_creation_layouts_and_refusals(cp):
    a = cp.arange(6).reshape(2, 3)
    b = cp.array(a, copy=None, ndmin=4)
    assert b.shape == (1, 1, 2, 3) and b.base is a.base
    a.fill(0)
    assert int(b.sum()) == 0  # a view, as CuPy makes
    assert cp.ascontiguousarray(cp.ones(())).shape == (1,)
    for bad in ("3i", "V"):
        with pytest.raises(ValueError, match="Unsupported dtype"):
            cp.empty(3, dtype=bad)
    z = cp.zeros((2, 0, 3)).reshape((5, 0, 4))
    assert z.strides == (32, 32, 8)
    with pytest.raises(ValueError, match="not permitted"):
        cp.arange(24).reshape((2, 3, 4), order="K")


def test_ndarray_strides_and_stride_tricks(cp):
    a = cp.ndarray((2, 3, 4), strides=(8, 0, 8), dtype="float64")
    assert a.strides == (8, 0, 8)
    lo, hi = cp.byte_bounds(a)
    assert lo == a.data.ptr and hi - lo <= a.data.mem.size
    with pytest.raises(ValueError, match=r"ndarray\(\) with strides"):
        cp.ndarray((2, 3, 4), strides=(-8, 8, 8))
    x = cp.arange(2, dtype=cp.int32)
    y = cp.lib.stride_tricks.as_strided(x, shape=(2, 2 ** 32), strides=(4, 0))
    assert int(y[cp.array([1]), cp.array([1])][0]) == 1
    w = cp.lib.stride_tricks.sliding_window_view(cp.arange(5), 3)
    assert w.get().tolist() == [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
    assert cp.empty(10)._index_32_bits


def test_flatiter_is_an_iterator_with_cupys_indices(cp):
    a = cp.arange(24).reshape(2, 3, 4)
    it = a.flat
    assert iter(it) is it
    assert int(next(it)) == 0 and int(next(it)) == 1
    assert it.copy().shape == (24,)
    assert int(a.flat[5]) == 5
    for index in (None, (0,), True, [0], cp.array([0])):
        with pytest.raises(IndexError):
            a.flat[index]


def test_routines_taking_callables_run_here(cp):
    r = cp.fromfunction(lambda i, j: i == j, (3, 3), dtype=int)
    assert (r.get() == numpy.eye(3, dtype=bool)).all()
    rows, cols = cp.mask_indices(3, cp.triu)
    assert rows.get().tolist() == [0, 0, 0, 1, 1, 2]
    s = cp.apply_along_axis(lambda v: v.sum(), 0, cp.arange(6).reshape(2, 3))
    assert s.get().tolist() == [3, 5, 7]
    v = cp.vectorize(lambda x, y: x * y + 1)(cp.arange(3), 2)
    assert v.get().tolist() == [1, 3, 5]


def test_poly1d_is_a_class(cp):
    p = cp.poly1d([1, 2, 3])
    assert isinstance(p, cp.poly1d) and p.order == 2 and len(p) == 2
    assert float(p(2)) == 11.0
    assert (p * p).coeffs.get().tolist() == [1, 4, 10, 12, 9]
    assert (p + 1).coeffs.get().tolist() == [1, 2, 4]
    assert isinstance(cp.polyadd(p, p), cp.poly1d)


def test_reductions_of_numpy_input_stay_numpy(cp):
    x = numpy.arange(6.0).reshape(2, 3)
    assert isinstance(cp.sum(x), numpy.float64)
    assert isinstance(cp.amax(x, axis=1), numpy.ndarray)
    b = cp.arange(6.0).reshape(2, 3)
    assert cp.sum(b, 1).get().tolist() == [3.0, 12.0]
    assert cp.mean(b, axis=0, keepdims=True).shape == (1, 3)
    assert float(cp.var(b, None, None, None, 1)) == 3.5


def test_numpy_aliases_and_errstate(cp):
    import gpushare.cupyx as cupyx
    assert inspect.signature(cp.isscalar) == inspect.signature(numpy.isscalar)
    assert cp.isscalar.__doc__ and cp.isscalar.__doc__ is not numpy.isscalar.__doc__
    assert cupyx.geterr()["linalg"] == "ignore"
    with cupyx.errstate(linalg="raise"):
        assert cupyx.geterr()["linalg"] == "raise"
    assert cupyx.geterr()["linalg"] == "ignore"
    with pytest.raises(NotImplementedError):
        cupyx.seterr(divide="raise")


def test_bad_host_index_and_astype_keeps_the_requested_type(cp):
    a = cp.arange(10)
    with pytest.raises(IndexError, match="arrays used as indices"):
        a[numpy.array([1, 2], dtype=object)]
    c = cp.ones(3, dtype=complex)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
        b = c.astype(numpy.ulonglong)
    assert b.dtype.type is numpy.ulonglong


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("shape", [(4, 2, 3), (4, 6), 24, None])
def test_empty_like_layout_follows_numpy(cp, order, shape):
    host = numpy.arange(24.0).reshape(2, 3, 4)
    dev = cp.asarray(host)
    for proto, dproto in ((numpy.asfortranarray(host), cp.asfortranarray(dev)),
                          (host[:, ::2, :].swapaxes(0, 1), dev[:, ::2, :].swapaxes(0, 1))):
        expected = numpy.empty_like(proto, order=order, shape=shape)
        got = cp.empty_like(dproto, order=order, shape=shape)
        assert got.strides == expected.strides
        assert got.flags.c_contiguous == expected.flags.c_contiguous
        assert got.flags.f_contiguous == expected.flags.f_contiguous


def test_cuda_array_interface_objects_index_and_assign(cp):
    class Wrapped:
        def __init__(self, a):
            self.a = a

        @property
        def __cuda_array_interface__(self):
            return self.a.__cuda_array_interface__

    a = cp.zeros(10)
    assert a[Wrapped(cp.arange(3))].shape == (3,)
    a[...] = Wrapped(cp.arange(10.0))
    assert a.get().tolist() == list(range(10))
    a.fill(Wrapped(cp.full((), 7.0)))  # a 0-d array seen through the interface
    assert a.get().tolist() == [7.0] * 10
