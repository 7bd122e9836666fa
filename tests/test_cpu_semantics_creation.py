"""CuPy 14.2's answers for array creation and ufunc keywords, through a real server:
ufuncs refuse NumPy's other keywords (``where=``...: ``_kernel.pyx`` ``ufunc.__call__``),
``reduce``/``accumulate`` are ``add``'s and ``multiply``'s only, reductions have CuPy's
Python signatures (``sumprod.py``, ``meanvar.py``, ``order.py``); nested sequences
mixing device arrays with anything else go to NumPy (``_compute_concat_info_impl``) and
its implicit-conversion TypeError; long doubles are refused (``check_supported_dtype``);
the creation functions' orders (``internal._normalize_order``: K and A are Fortran);
``subok``, DLPack capsules, ``as_strided`` of a NumPy array, and CuPy's words for shapes,
byte orders and strings."""
from __future__ import annotations

import re

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)

_IMPLICIT = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to "
             "construct a NumPy array explicitly.")


# --- ufunc keywords (#3) -----------------------------------------------------------------

@pytest.mark.parametrize("kw", [{"where": True}, {"order": "F"}, {"subok": False},
                                {"signature": ("f8", "f8", "f8")}])
def test_ufunc_refuses_numpy_keywords(cp, kw):
    x = cp.asarray([-4.0, 4.0])
    _raises(TypeError, f"Wrong arguments {kw}", lambda: cp.add(x, 1, **kw))
    _raises(TypeError, f"Wrong arguments {kw}", lambda: numpy.add(x, 1, **kw))
    _raises(TypeError, f"Wrong arguments {kw}", lambda: cp.exp(x, **kw))
    # the allowed ones are popped first: only the rest is named
    _raises(TypeError, f"Wrong arguments {kw}",
            lambda: cp.add(x, 1, dtype=numpy.float32, casting="unsafe", **kw))


def test_ufunc_where_array_is_refused_not_uninitialized(cp):
    x = cp.asarray([-4.0, 4.0])
    with pytest.raises(TypeError, match=r"^Wrong arguments \{'where': array\("):
        cp.add(x, 1, where=x > 0)
    with pytest.raises(TypeError, match=r"^Wrong arguments \{'where': array\("):
        numpy.add(x, 1, where=x > 0)


def test_ufunc_allowed_keywords_still_work(cp):
    x = cp.asarray([1.0, 2.0])
    assert cp.add(x, 1, dtype=numpy.float32).dtype == numpy.float32
    assert cp.add(x, 1, casting="unsafe").get().tolist() == [2.0, 3.0]
    out = cp.empty(2)
    assert cp.add(x, 1, out=out) is out and out.get().tolist() == [2.0, 3.0]
    assert (x + 1).get().tolist() == [2.0, 3.0]  # (the operators' path)


def test_ufunc_methods_signatures(cp):
    x = cp.asarray([[1.0, 2.0], [3.0, 4.0]])
    _raises(TypeError, "reduce() got an unexpected keyword argument 'where'",
            lambda: cp.add.reduce(x, where=x > 1))
    _raises(TypeError, "reduce() got an unexpected keyword argument 'initial'",
            lambda: numpy.add.reduce(x, initial=1))
    _raises(TypeError, "accumulate() got an unexpected keyword argument 'where'",
            lambda: cp.add.accumulate(x, where=True))
    _raises(TypeError, "Wrong arguments {'where': True}",
            lambda: cp.add.outer(x[0], x[0], where=True))
    _raises(NotImplementedError, "`cupy_maximum.reduce` is not supported yet",
            lambda: cp.maximum.reduce(x))
    _raises(NotImplementedError, "`cupy_maximum.accumulate` is not supported yet",
            lambda: cp.maximum.accumulate(x))
    _raises(NotImplementedError, "`cupy_multiply.reduceat` is not supported yet",
            lambda: cp.multiply.reduceat(x, cp.asarray([0])))
    # add's and multiply's are the array's sum/prod/cumsum/cumprod (axis 0 by default)
    assert cp.add.reduce(x).get().tolist() == [4.0, 6.0]
    assert cp.multiply.reduce(x, axis=1, keepdims=True).get().tolist() == [[2.0], [12.0]]
    assert cp.add.accumulate(x).get().tolist() == [[1.0, 2.0], [4.0, 6.0]]
    assert cp.multiply.accumulate(x, 1).get().tolist() == [[1.0, 2.0], [3.0, 12.0]]
    assert numpy.add.reduce(x).get().tolist() == [4.0, 6.0]
    assert cp.add.outer(x[0], x[0]).get().tolist() == [[2.0, 3.0], [3.0, 4.0]]


@pytest.mark.parametrize("call, message", [
    (lambda cp, x: cp.sum(x, where=x > 1), "sum() got an unexpected keyword argument 'where'"),
    (lambda cp, x: cp.sum(x, initial=1), "sum() got an unexpected keyword argument 'initial'"),
    (lambda cp, x: cp.prod(x, where=True), "prod() got an unexpected keyword argument 'where'"),
    (lambda cp, x: cp.mean(x, where=True), "mean() got an unexpected keyword argument 'where'"),
    (lambda cp, x: cp.var(x, where=True), "var() got an unexpected keyword argument 'where'"),
    (lambda cp, x: cp.std(x, mean=1), "std() got an unexpected keyword argument 'mean'"),
    (lambda cp, x: cp.max(x, initial=1), "amax() got an unexpected keyword argument 'initial'"),
    (lambda cp, x: cp.amin(x, where=True), "amin() got an unexpected keyword argument 'where'"),
    (lambda cp, x: numpy.sum(x, where=x > 1), "sum() got an unexpected keyword argument 'where'"),
    (lambda cp, x: numpy.mean(x, where=True), "mean() got an unexpected keyword argument 'where'"),
    (lambda cp, x: numpy.max(x, initial=3), "amax() got an unexpected keyword argument 'initial'"),
    (lambda cp, x: cp.sum(x.get(), where=True),
     "sum() got an unexpected keyword argument 'where'"),
    (lambda cp, x: cp.nansum(x, where=True),
     "nansum() got an unexpected keyword argument 'where'"),
    (lambda cp, x: x.sum(where=True), "sum() got an unexpected keyword argument 'where'"),
    (lambda cp, x: x.var(where=True), "var() got an unexpected keyword argument 'where'"),
    (lambda cp, x: x.max(where=True), "max() got an unexpected keyword argument 'where'"),
])
def test_reductions_have_cupy_signatures(cp, call, message):
    x = cp.asarray([[1.0, 2.0], [3.0, 4.0]])
    _raises(TypeError, message, lambda: call(cp, x))


def test_reductions_still_take_their_own_keywords(cp):
    x = cp.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert cp.sum(x, axis=0, keepdims=True).get().tolist() == [[4.0, 6.0]]
    assert float(cp.max(x, axis=None)) == 4.0
    assert cp.std(x, axis=0, ddof=1).get().tolist() == pytest.approx([2 ** 0.5] * 2)
    assert x.var(axis=1, ddof=0, keepdims=True).shape == (2, 1)


# --- nested sequences (#6) -----------------------------------------------------------------

@pytest.mark.parametrize("build", [
    lambda cp, a: cp.array([a, numpy.zeros(3)]),
    lambda cp, a: cp.array([a, a[:2]]),
    lambda cp, a: cp.array([a, [1, 2, 3]]),
    lambda cp, a: cp.array([a[0], 1.0]),
    lambda cp, a: cp.asarray([1.0, a[0]]),
    lambda cp, a: cp.asarray((a, (1.0, 2.0, 3.0))),
    lambda cp, a: cp.array([[a], [a, a]]),
])
def test_nested_sequences_mixing_device_arrays_raise(cp, build):
    a = cp.arange(3.0)
    _raises(TypeError, _IMPLICIT, lambda: build(cp, a))


def test_nested_sequences_of_device_arrays_concatenate(cp):
    a = cp.arange(3.0)
    r = cp.array([a, a + 1])
    assert r.shape == (2, 3) and r.get().tolist() == [[0, 1, 2], [1, 2, 3]]
    r = cp.asarray(((a[0], a[1]), (a[2], a[0])))
    assert r.shape == (2, 2) and r.get().tolist() == [[0, 1], [2, 0]]
    r = cp.array([a.astype(numpy.int32), a], dtype=None)
    assert r.dtype == numpy.float64


# --- long doubles (#7) -----------------------------------------------------------------------

@pytest.mark.parametrize("build, name", [
    (lambda cp: cp.zeros(2, numpy.longdouble), "float128"),
    (lambda cp: cp.empty(2, numpy.clongdouble), "complex256"),
    (lambda cp: cp.ones(2, dtype="g"), "float128"),
    (lambda cp: cp.full(2, 1.5, dtype=numpy.longdouble), "float128"),
    (lambda cp: cp.full(2, 1j, dtype=numpy.longdouble), "float128"),
    (lambda cp: cp.eye(2, dtype=numpy.longdouble), "float128"),
    (lambda cp: cp.asarray(numpy.ones(2, numpy.clongdouble)), "complex256"),
    (lambda cp: cp.array([1, 2], dtype=numpy.longdouble), "float128"),
    (lambda cp: cp.ndarray((2,), numpy.longdouble), "float128"),
    (lambda cp: cp.zeros_like(cp.ones(2), dtype=numpy.longdouble), "float128"),
    (lambda cp: cp.ones(2).astype(numpy.longdouble, order="X"), None),
])
def test_long_double_is_unsupported(cp, build, name):
    if numpy.dtype(numpy.longdouble).itemsize == 8:
        pytest.skip("long double is double here")
    if name is None:  # (the order is read first)
        _raises(ValueError, "order not understood", lambda: build(cp))
    else:
        _raises(ValueError, f"Unsupported dtype {name}", lambda: build(cp))


def test_long_double_astype_is_refused_at_the_call_and_by_the_server(cp):
    if numpy.dtype(numpy.longdouble).itemsize == 8:
        pytest.skip("long double is double here")
    with pytest.raises(ValueError, match="^Unsupported dtype float128$"):
        cp.ones(2).astype(numpy.longdouble)  # (at the call, not at a later wait)
    from gpushare import client
    with pytest.raises(ValueError, match="^Unsupported dtype float128"):  # (a raw call)
        client.get_session().call("method", "astype", (cp.ones(2), numpy.longdouble))


# --- creation orders (#8) --------------------------------------------------------------------

@pytest.mark.parametrize("order, fortran", [
    ("C", False), ("c", False), ("", False), (None, False), ("F", True), ("f", True),
    ("K", True), ("k", True), ("A", True), ("a", True), ("Cx", False)])
@pytest.mark.parametrize("make", [
    lambda cp, o: cp.empty((2, 3), order=o), lambda cp, o: cp.zeros((2, 3), order=o),
    lambda cp, o: cp.ones((2, 3), order=o), lambda cp, o: cp.full((2, 3), 7, order=o),
    lambda cp, o: cp.full((2, 3), 1 + 2j, order=o),
    lambda cp, o: cp.eye(2, 3, order=o), lambda cp, o: cp.ndarray((2, 3), order=o)])
def test_creation_orders_as_cupy(cp, make, order, fortran):
    a = make(cp, order)
    assert (a.flags.f_contiguous, a.flags.c_contiguous) == (fortran, not fortran)
    assert a.strides == ((8, 16) if a.itemsize == 8 else (16, 32)) if fortran else \
        ((24, 8) if a.itemsize == 8 else (48, 16))
    from gpushare import client
    client.get_session().synchronize()
    assert a.get(order="A").strides == a.strides or not a.size


def test_creation_orders_values(cp):
    assert cp.eye(3, 2, k=-1, order="K").get().tolist() == [[0, 0], [1, 0], [0, 1]]
    assert cp.full((2, 2), 3, order="A").get().tolist() == [[3, 3], [3, 3]]
    assert cp.zeros((2, 2), order="k").get().sum() == 0


@pytest.mark.parametrize("make", [
    lambda cp: cp.empty(2, order="X"), lambda cp: cp.zeros(2, order="X"),
    lambda cp: cp.ones(2, order="B"), lambda cp: cp.full(2, 1, order="X"),
    lambda cp: cp.full(2, 1j, order="X"),
    lambda cp: cp.eye(2, order="X"), lambda cp: cp.ndarray((2,), order="X")])
def test_creation_unknown_order(cp, make):
    _raises(ValueError, "order not understood", lambda: make(cp))


def test_like_orders(cp):
    f = cp.asfortranarray(cp.ones((2, 3)))
    c = cp.ones((2, 3))
    for fn in (cp.empty_like, cp.zeros_like, cp.ones_like):
        assert fn(f, order="k").flags.f_contiguous
        assert fn(f, order="a").flags.f_contiguous
        assert fn(c, order="a").flags.c_contiguous
        assert fn(f, order="c").flags.c_contiguous
        _raises(ValueError, "order not understood: X", lambda: fn(f, order="x"))
        _raises(ValueError, "order not understood: ", lambda: fn(f, order=""))
        _raises(AttributeError, "'NoneType' object has no attribute 'upper'",
                lambda: fn(f, order=None))
        _raises(TypeError, "subok is not supported yet", lambda: fn(f, subok=False))
    assert cp.full_like(f, 2, order="k").flags.f_contiguous


# --- subok, DLPack, as_strided (#10, #12) ----------------------------------------------------

def test_subok_is_not_implemented(cp):
    x = cp.arange(4.0)
    _raises(NotImplementedError, "", lambda: cp.array(x, subok=True))
    _raises(NotImplementedError, "", lambda: cp.array([1, 2], subok=True))
    _raises(NotImplementedError, "",
            lambda: cp.lib.stride_tricks.sliding_window_view(x, 2, subok=True))
    assert cp.array(x, subok=False).get().tolist() == [0, 1, 2, 3]


def test_dlpack_non_capsules(cp):
    x = cp.arange(3.0)
    _raises(ValueError, "A DLPack tensor object cannot be consumed multiple times (or object "
            "was not a DLPack capsule). Got: [1, 2]", lambda: cp.from_dlpack([1, 2]))
    with pytest.warns(numpy.exceptions.VisibleDeprecationWarning):
        with pytest.raises(ValueError, match=re.escape(
                "A DLPack tensor object cannot be consumed multiple times (or object was "
                "not a DLPack capsule). Got: array([0., 1., 2.])")):
            cp.fromDlpack(x)


def test_dlpack_cpu_capsule(cp):
    for kwargs in ({}, {"max_version": (1, 0)}):
        capsule = numpy.arange(3).__dlpack__(**kwargs)
        _raises(RuntimeError, "CuPy is built against CUDA, different from the backend that "
                "backs the incoming DLPack tensor", lambda: cp.from_dlpack(capsule))
        # consumed, as by CuPy
        assert "used_dltensor" in repr(capsule)
        with pytest.raises(ValueError, match="cannot be consumed multiple times"):
            cp.from_dlpack(capsule)


def test_as_strided_of_a_numpy_array(cp):
    _raises(TypeError, "Cannot convert memoryview to cupy.cuda.memory.MemoryPointer",
            lambda: cp.lib.stride_tricks.as_strided(numpy.ones(3)))
    x = cp.arange(6.0)
    v = cp.lib.stride_tricks.as_strided(x, shape=(2, 2), strides=(16, 8))
    assert v.get().tolist() == [[0, 1], [2, 3]]


# --- words (#13) ------------------------------------------------------------------------------

@pytest.mark.parametrize("fn, exc, message", [
    (lambda cp: cp.array("abc"), ValueError, "Unsupported dtype <U3"),
    (lambda cp: cp.empty(-1), ValueError, "Negative dimensions are not allowed"),
    (lambda cp: cp.zeros((2, -3)), ValueError, "Negative dimensions are not allowed"),
    (lambda cp: cp.empty((1,) * 65), ValueError,
     "maximum supported dimension for an ndarray is 64, found 65"),
    (lambda cp: cp.zeros(2, ">i4"), ValueError,
     "Unsupported dtype >i4 with big-endian byte-order"),
    (lambda cp: cp.empty(2.0), TypeError, "'float' object cannot be interpreted as an integer"),
    (lambda cp: cp.ones((2, 2.0)), TypeError,
     "'float' object cannot be interpreted as an integer"),
    (lambda cp: cp.empty(None), TypeError, "Use () not None as shape arguments"),
    (lambda cp: cp.empty(True), TypeError, "an integer is required"),
    (lambda cp: cp.zeros((2, False)), TypeError, "an integer is required"),
    (lambda cp: cp.empty(2, order="X"), ValueError, "order not understood"),
    # astype makes its array as CuPy's constructor does (``_ndarray_init``: checked)
    (lambda cp: cp.arange(3).astype("S3"), ValueError, "Unsupported dtype |S3"),
    # full makes ``ndarray(shape, numpy.array(fill_value).dtype)`` first (basic.py)
    (lambda cp: cp.full((2, 2), "x"), ValueError, "Unsupported dtype <U1"),
    (lambda cp: cp.full(2, None), ValueError, "Unsupported dtype object"),
    (lambda cp: cp.full(2, object()), ValueError, "Unsupported dtype object"),
    (lambda cp: cp.arange(3).astype("M8[s]"), ValueError, "Unsupported dtype datetime64[s]"),
    (lambda cp: cp.arange(3).astype(">i4", copy=False), ValueError,
     "Unsupported dtype >i4 with big-endian byte-order"),
])
def test_creation_words(cp, fn, exc, message):
    _raises(exc, message, lambda: fn(cp))


def test_shapes_cupy_takes(cp):
    assert cp.empty(numpy.array(3)).shape == (3,)
    assert cp.zeros([2, numpy.int64(3)]).shape == (2, 3)
    assert cp.ones(range(1, 3)).shape == (1, 2)
    assert cp.empty(()).shape == ()


def test_cuda_array_interface_big_endian(cp):
    x = cp.arange(3.0)

    class BigEndian:
        __cuda_array_interface__ = dict(x.__cuda_array_interface__, typestr=">f8",
                                        descr=[("", ">f8")])
    _raises(ValueError, "CuPy does not support the big-endian byte-order",
            lambda: cp.asarray(BigEndian()))
