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
    # a string or a list is no element: CuPy compares through numpy.equal, whose call its
    # __array_ufunc__ declines (NumPy's TypeError); a 0-d host array is its value
    for other in ("abc", [1, 2, 3], (1,)):
        with pytest.raises(TypeError, match="operand type.s. all returned NotImplemented"):
            a == other
    with pytest.raises(TypeError, match="<ufunc 'less'>"):
        a < "abc"
    assert (a == numpy.array(2)).get().tolist() == [[False, True, False], [False] * 3]


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
    # a scalar is spread over the axes with floor division (iterate.py): -1 is the last
    # element, a float is truncated, and past the end the base's own IndexError
    assert int(a.flat[-1]) == 23 and int(a.flat[2.7]) == 2
    with pytest.raises(IndexError, match="^Index 2 is out of bounds for axis 0 with size 2$"):
        a.flat[24]
    a.flat[-1] = 99
    assert int(a[1, 2, 3]) == 99


def test_routines_taking_callables_run_here(cp):
    r = cp.fromfunction(lambda i, j: i == j, (3, 3), dtype=int)
    assert isinstance(r, cp.ndarray) and (r.get() == numpy.eye(3, dtype=bool)).all()
    # CuPy's is NumPy's, made a device array: the function is given NumPy arrays
    seen = []
    r = cp.fromfunction(lambda i, j: seen.append(type(i)) or (i, j), (2, 2))
    assert seen == [numpy.ndarray] and isinstance(r, cp.ndarray) and r.shape == (2, 2, 2)
    assert cp.fromfunction(lambda i: 1, (2,)).shape == ()
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


# --- session 15: aliases, NEP 13 operators, poly1d, allow_synchronize, small routines ---
def test_cupys_aliases_are_one_object(cp):
    for name, alias in (("absolute", "abs"), ("conjugate", "conj"), ("invert", "bitwise_not"),
                        ("true_divide", "divide"), ("power", "pow"), ("arccos", "acos"),
                        ("concatenate", "concat"), ("amax", "max"), ("transpose",
                                                                     "permute_dims")):
        assert getattr(cp, name) is getattr(cp, alias), alias
    assert cp.abs(cp.array([-2, 3])).get().tolist() == [2, 3]


class _Mock(numpy.lib.mixins.NDArrayOperatorsMixin):
    """An operand that answers NumPy's ufuncs itself (NEP 13)."""
    __array_priority__ = 20

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return ufunc.__name__, inputs


class _OptOut:
    """An operand that opts out of NumPy's ufuncs (``__array_ufunc__ = None``)."""
    __array_ufunc__ = None

    def __radd__(self, other):
        return "radd"

    def __rmatmul__(self, other):
        return "rmatmul"

    def __gt__(self, other):
        return "gt"


def test_operators_defer_to_other_operands_as_cupy(cp):
    x = cp.array([3, 7])
    m = _Mock()
    assert x + m == ("add", (x, m)) and (x < m) == ("less", (x, m))
    with pytest.raises(TypeError):
        x += m  # in place: CuPy's own ufunc, which refuses the operand
    o = _OptOut()
    assert x + o == "radd" and x @ o == "rmatmul" and (x < o) == "gt"


def test_host_data_is_copied_whatever_copy_says(cp):
    host = numpy.arange(5.0)
    a = cp.array(host, copy=False)
    b = cp.asarray([1, 2], copy=False)
    host[0] = 9.0
    assert a.get().tolist() == [0, 1, 2, 3, 4] and b.get().tolist() == [1, 2]


def test_pickle_keeps_the_memory_order(cp):
    import pickle
    a = cp.asfortranarray(cp.arange(6.0).reshape(2, 3))
    b = pickle.loads(pickle.dumps(a))
    assert b.flags.f_contiguous and not b.flags.c_contiguous
    assert b.get().tolist() == a.get().tolist()


def test_poly1d_follows_cupy(cp):
    p = cp.poly1d(cp.array([1.0, 2.0, 3.0]))
    n = numpy.poly1d([1.0, 2.0, 3.0])
    for got, want in ((p * p + 1, n * n + 1), (2 * p, 2 * n), (p - 1, n - 1),
                      (p ** 3, n ** 3), (cp.polymul(p, p), numpy.polymul(n, n))):
        assert isinstance(got, cp.poly1d)
        numpy.testing.assert_allclose(got.coeffs.get(), want.coeffs)
    assert float(p(2.0)) == 11.0
    assert cp.add(p, p).get().tolist() == [2, 4, 6]  # a ufunc takes its coefficients
    with pytest.raises(TypeError):
        numpy.float64(2) + p  # CuPy refuses a NumPy scalar first
    with pytest.raises(TypeError):
        p ** 2.0
    with pytest.raises(NotImplementedError):
        cp.poly(cp.array([[1.0, 2.0], [3.0, 4.0]]))  # not symmetric: CuPy's limit
    with pytest.raises(NotImplementedError):
        cp.roots(cp.array([1, 0, 1], dtype=bool))
    numpy.testing.assert_allclose(cp.poly(cp.array([1.0, 2.0])).get(), [1, -3, 2])


def test_allow_synchronize_false_raises_where_cupy_synchronizes(cp):
    import gpushare.cupyx as cupyx
    a = cp.arange(4.0)
    with pytest.warns(UserWarning, match="allow_synchronize"):
        with cupyx.allow_synchronize(False):
            b = a * 2 + 1  # queued: no synchronization
            for read in (lambda: b.get(), lambda: float(b[0]), lambda: bool(b[1]),
                         lambda: repr(b), lambda: cp.cuda.Device().synchronize()):
                with pytest.raises(cupyx.DeviceSynchronized):
                    read()
    assert b.get().tolist() == [1, 3, 5, 7]  # allowed again after the block


def test_who_lists_the_arrays(cp, capsys):
    cp.who({"x": cp.ones(10), "y": cp.zeros(3, dtype=cp.int32), "n": 5})
    lines = capsys.readouterr().out.split("\n")
    assert lines[-5].split() == ["x", "10", "80", "float64"]
    assert lines[-4].split() == ["y", "3", "12", "int32"]
    assert lines[-2] == "Upper bound on total bytes  =       92"


def test_pad_with_a_function_and_piecewise_and_packbits_checks(cp):
    def tens(vector, pad_width, iaxis, kwargs):
        vector[:pad_width[0]] = 10
        vector[-pad_width[1]:] = 10
    got = cp.pad(cp.arange(6).reshape(2, 3), 2, tens)
    assert got.get().tolist() == numpy.pad(numpy.arange(6).reshape(2, 3), 2, tens).tolist()
    x = cp.arange(4.0)
    with pytest.raises(NotImplementedError, match="Callable"):
        cp.piecewise(x, [x > 1], [lambda v: v])
    assert cp.piecewise(x, [x > 1], [5.0, 1.0]).get().tolist() == [1, 1, 5, 5]
    with pytest.raises(ValueError, match="bitorder"):
        cp.packbits(cp.array([1], dtype=cp.uint8), bitorder=1.5)
    assert cp.unpackbits(cp.array([5], dtype=cp.uint8), bitorder="little").get().tolist() \
        == [1, 0, 1, 0, 0, 0, 0, 0]
    assert inspect.signature(cp.binary_repr) == inspect.signature(numpy.binary_repr)
    assert cp.base_repr(10, 3) == "101"


def test_device_attributes_come_in_one_round_trip(cp, synchronous_calls):
    """CuPy's ``Device.attributes`` asks CUDA for each of ~100 attributes; gpushare
    asks the server once for them all, with the same answers."""
    rt = cp.cuda.runtime
    d = cp.cuda.Device(0)
    rt.getDeviceCount()
    synchronous_calls.clear()
    attrs = d.attributes
    assert synchronous_calls == [("device_attributes", None)]
    assert len(attrs) > 50 and all(type(v) is int for v in attrs.values())
    for name in ("MaxThreadsPerBlock", "WarpSize", "MultiProcessorCount",
                 "L2CacheSize"):
        assert attrs[name] == rt.deviceGetAttribute(getattr(rt, "cudaDevAttr" + name), 0)


def test_devices_as_cupy(cp):
    cuda = cp.cuda
    d = cuda.Device()
    assert d.id == 0 and d.use() is d
    attrs = d.attributes
    assert attrs["MaxThreadsPerBlock"] > 0 and attrs["WarpSize"] == 32
    assert all(isinstance(v, int) for v in attrs.values())
    assert cuda.Device.from_pci_bus_id(d.pci_bus_id) == d
    for bad in ("fake:id", "FFFF:FF:FF.F"):
        with pytest.raises(cuda.runtime.CUDARuntimeError):
            cuda.Device.from_pci_bus_id(bad)
    missing = cuda.Device(cuda.runtime.getDeviceCount())
    with pytest.raises(cuda.runtime.CUDARuntimeError):
        missing.attributes
    with pytest.raises(cuda.runtime.CUDARuntimeError):
        with missing:
            pass
    assert cuda.Device().id == 0  # a failed switch leaves the current device
    assert cuda.Device(0) < cuda.Device(1) and cuda.Device(1) >= cuda.Device(0)
    with pytest.raises(TypeError):
        cuda.Device(0) < 1
    assert cuda.device.from_pointer(cp.empty(1).data.ptr) == d


def test_ascontiguousarray_takes_device_arrays_only_as_cupy(cp):
    for fn in (cp.ascontiguousarray, cp.asfortranarray):
        with pytest.raises(TypeError, match="incorrect type.*numpy.ndarray"):
            fn(numpy.ones(3))
        with pytest.raises(TypeError, match="incorrect type.*list"):
            fn([1, 2])
    assert cp.asfortranarray(cp.ones((2, 3))).flags.f_contiguous


def test_chained_maximum_and_minimum_warn_nothing(cp):
    # the worker computes a chained operator into the array the next call consumes;
    # NumPy deprecates a positional output for maximum/minimum, and its warning used to
    # reach the program
    x, y, z = cp.arange(5.0), cp.ones(5), cp.zeros(5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = cp.minimum(x, cp.minimum(y, z))
        got2 = cp.maximum(cp.maximum(x, 2.0), y)
        assert got.get().tolist() == [0.0] * 5
        assert got2.get().tolist() == [2.0, 2.0, 2.0, 3.0, 4.0]


def test_array_of_a_sequence_of_device_arrays_copies_whatever_copy_says(cp):
    t = cp.arange(4.0)
    assert cp.array([t, t], copy=False).shape == (2, 4)  # CuPy's nested-sequence path
    assert cp.r_[(t[0],) * 2, t].get().tolist() == [0, 0, 0, 1, 2, 3]
    with pytest.raises(ValueError):
        cp.array(t, dtype=cp.float32, copy=False)  # a device array: NumPy 2's rule
