"""CuPy 14.2's answers at the edges of ``cupy.ndarray`` through a real server: a 0-d
integer array as an index is advanced indexing (a copy), ``__array_function__`` looks
only along ``func.__module__``, ``dump``/``dumps`` pickle the cupy array, there is no
``__index__``, the order letters of ``copy``/``astype``/``reshape``/``ravel``/``flatten``
and ``get`` (``internal._normalize_order``), ``flags``, ``MemoryPointer.device`` and
in-place offsets, and the real array's ``imag`` setter.

Each test cites the CuPy 14.2.0 source it mirrors (paths relative to the sdist)."""
from __future__ import annotations

import io
import operator
import pickle

import numpy
import pytest

pytestmark = pytest.mark.timeout(240)


# --- 0-d integer arrays as indices: advanced indexing (cupy/_core/_routines_indexing.pyx
# ``_prepare_slice_list`` keeps them as arrays, ``_ndarray_getitem`` takes) ----------------

@pytest.mark.parametrize("make_index", [lambda cp, i: cp.array(i),
                                        lambda cp, i: numpy.array(i)],
                         ids=["cupy-0d", "numpy-0d"])
def test_0d_integer_index_is_a_copy(cp, make_index):
    x = cp.arange(5)
    y = x[make_index(cp, 2)]
    assert y.shape == () and y.base is None and y.flags.owndata
    y[...] = 100
    assert x.get().tolist() == [0, 1, 2, 3, 4]
    assert int(y) == 100

    x2 = cp.arange(6).reshape(2, 3)
    z = x2[make_index(cp, 1)]
    assert z.shape == (3,) and z.base is None and z.flags.c_contiguous
    z[:] = -1
    assert x2.get().tolist() == [[0, 1, 2], [3, 4, 5]]

    # mixed with slices and other arrays: NumPy's shapes, still a copy
    x3 = cp.arange(24).reshape(2, 3, 4)
    n3 = numpy.arange(24).reshape(2, 3, 4)
    w = x3[:, make_index(cp, 1)]
    assert w.shape == (2, 4) and w.base is None
    assert (w.get() == n3[:, 1]).all()
    v = x3[make_index(cp, 1), :, cp.array([0, 3])]
    assert v.shape == (2, 3) and (v.get() == n3[1, :, [0, 3]]).all()


def test_0d_index_wraps_as_take_does(cp):
    x = cp.arange(5)
    assert int(x[cp.array(7)]) == 2 and int(x[cp.array(-1)]) == 4


def test_scalar_indices_still_give_views(cp):
    x = cp.arange(6).reshape(2, 3)
    for i in (1, numpy.int64(1)):
        r = x[i]
        assert r.base is x.base and not r.flags.owndata
    e = cp.arange(5)[2]
    assert e.shape == () and e.base is not None


def test_0d_index_setitem_writes(cp):
    x = cp.arange(5)
    x[cp.array(1)] = 10
    x[numpy.array(3)] = 30
    x2 = cp.zeros((2, 3), dtype=int)
    x2[cp.array(1)] = cp.arange(3)
    assert x.get().tolist() == [0, 10, 2, 30, 4]
    assert x2.get().tolist() == [[0, 0, 0], [0, 1, 2]]


def test_0d_arrays_as_slice_bounds(cp):
    # ``internal._extract_slice_element``: ``__index__``, else ``int(x)``
    x = cp.arange(6)
    assert x[cp.array(1):cp.array(4)].get().tolist() == [1, 2, 3]
    assert x[cp.array(1.5):].get().tolist() == [1, 2, 3, 4, 5]
    assert x[::cp.array(2)].get().tolist() == [0, 2, 4]
    x[cp.array(4):] = 0
    assert x.get().tolist() == [0, 1, 2, 3, 0, 0]


# --- no __index__ (core.pyx defines __int__/__float__/__complex__/__oct__/__hex__ only) ---

def test_no_index_dunder(cp):
    i = cp.array(2)
    assert not hasattr(cp.ndarray, "__index__")
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        operator.index(i)
    with pytest.raises(TypeError):
        range(i)
    with pytest.raises(TypeError, match="list indices must be integers or slices"):
        [10, 20, 30][i]
    with pytest.raises(TypeError):
        hex(i)
    with pytest.raises(TypeError):
        oct(i)
    assert int(i) == 2 and float(i) == 2.0


# --- __array_function__ (core.pyx ``__array_function__``, ``_HANDLED_TYPES``) -----------

def test_array_function_common_routines(cp):
    x = cp.arange(6.).reshape(2, 3)
    v = cp.asarray([1., 2., 3.])
    checks = [
        (numpy.sum(x), 15.0), (numpy.mean(x), 2.5), (numpy.dot(v, v), 14.0),
        (numpy.einsum("i,i", v, v), 14.0), (numpy.linalg.norm(v), numpy.sqrt(14.0)),
    ]
    for got, want in checks:
        assert isinstance(got, cp.ndarray) and float(got) == pytest.approx(want)
    c = numpy.concatenate([x, x])
    assert isinstance(c, cp.ndarray) and c.shape == (4, 3)
    w = numpy.where(x > 2, x, 0)
    assert isinstance(w, cp.ndarray) and w.get().tolist() == [[0, 0, 0], [3, 4, 5]]
    u = numpy.unique(cp.asarray([3, 1, 3]))
    assert isinstance(u, cp.ndarray) and u.get().tolist() == [1, 3]
    f = numpy.fft.fft(v)
    assert isinstance(f, cp.ndarray) and numpy.allclose(f.get(), numpy.fft.fft([1., 2., 3.]))
    assert isinstance(numpy.isclose(v, v), cp.ndarray)
    assert bool(numpy.allclose(v, v)) and bool(numpy.array_equal(v, v))
    assert numpy.result_type(v, 1) == numpy.float64
    s = numpy.lib.stride_tricks.sliding_window_view(v, 2)
    assert isinstance(s, cp.ndarray) and s.shape == (2, 2)


@pytest.mark.parametrize("call", [
    lambda a, v: numpy.emath.sqrt(v),          # numpy.lib.scimath: no cupy.lib.scimath
    lambda a, v: numpy.emath.log(v),
    lambda a, v: numpy.linalg.diagonal(a),     # not in cupy.linalg (cupy.diagonal is
    lambda a, v: numpy.linalg.trace(a),        # another function)
    lambda a, v: numpy.linalg.outer(v, v),
], ids=["emath.sqrt", "emath.log", "linalg.diagonal", "linalg.trace", "linalg.outer"])
def test_array_function_looks_only_along_the_module(cp, call):
    a = cp.arange(24.).reshape(2, 3, 4)
    v = cp.asarray([-4., 4.])
    with pytest.raises(TypeError, match="no implementation found"):
        call(a, v)


def test_array_function_other_types_not_handled(cp):
    class Other:
        def __array_function__(self, func, types, args, kwargs):
            return NotImplemented

    x = cp.arange(3.)
    with pytest.raises(TypeError, match="no implementation found for 'numpy.concatenate'"):
        numpy.concatenate([x, Other()])
    assert x.__array_function__(numpy.sum, (cp.ndarray, Other), (x,), {}) is NotImplemented
    assert x.__array_function__(numpy.sum, (cp.ndarray, numpy.ndarray), (x,), {}) is not \
        NotImplemented


# --- dump/dumps pickle the cupy array (core.pyx ``dump``/``dumps``) -----------------------

def test_dump_and_dumps_pickle_the_cupy_array(cp, tmp_path):
    x = cp.arange(6.).reshape(2, 3)
    y = pickle.loads(x.dumps())
    assert isinstance(y, cp.ndarray) and (y.get() == x.get()).all()
    buf = io.BytesIO()
    x.dump(buf)
    buf.seek(0)
    z = pickle.load(buf)
    assert isinstance(z, cp.ndarray) and z.shape == (2, 3)
    path = tmp_path / "x.pkl"
    with open(path, "wb") as f:
        cp.asfortranarray(x).dump(f)
    with open(path, "rb") as f:
        w = pickle.load(f)
    assert isinstance(w, cp.ndarray) and w.flags.f_contiguous


# --- orders (internal.pyx ``_normalize_order``) -------------------------------------------

def test_copy_order_letters(cp):
    x = cp.arange(6.).reshape(2, 3)
    assert x.copy(order="").flags.c_contiguous
    for order in ("K", "k", "A", "a", "C", "c", "cfoo"):
        assert x.copy(order=order).flags.c_contiguous, order
    for order in ("F", "f", "fortran"):
        assert x.copy(order=order).flags.f_contiguous, order
    assert x.T.copy(order="A").flags.f_contiguous
    assert x.T.copy(order=None).flags.f_contiguous  # None: astype's 'K'
    with pytest.raises(ValueError, match=r"^order not understood$"):
        x.copy(order="X")
    with pytest.raises(TypeError):
        x.copy(order=1)
    assert float(x.sum()) == 15.0  # nothing failed behind the calls


def test_order_words_of_other_methods(cp):
    x = cp.arange(6.).reshape(2, 3)
    for call in (lambda: x.astype("f4", order="X"), lambda: x.ravel("X"),
                 lambda: x.flatten("X"), lambda: x.reshape(6, order="X")):
        with pytest.raises(ValueError, match=r"^order not understood$"):
            call()
    with pytest.raises(ValueError, match=r"^order 'K' is not permitted$"):
        x.reshape(6, order="K")
    for call in (lambda: x.reshape(6, order=None), lambda: x.ravel(None),
                 lambda: x.flatten(None)):
        with pytest.raises(TypeError, match="has no len"):
            call()
    assert x.astype("f4", order=None).dtype == numpy.float32
    assert x.astype("f4", order="").flags.c_contiguous
    assert x.ravel("f").get().tolist() == [0, 3, 1, 4, 2, 5]
    assert x.flatten("").get().tolist() == [0, 1, 2, 3, 4, 5]
    assert x.reshape(3, 2, order="a").get().tolist() == [[0, 1], [2, 3], [4, 5]]


def test_astype_checks(cp):
    x = cp.arange(6.).reshape(2, 3)
    with pytest.raises(TypeError, match="casting is not supported yet"):
        x.astype("f4", casting="unsafe")
    with pytest.raises(TypeError, match="subok is not supported yet"):
        x.astype("f4", subok=True)
    assert x.astype(x.dtype, copy=False) is x
    assert x.astype(x.dtype, order="C", copy=False) is x
    f = x.astype(x.dtype, order="F", copy=False)  # a C array asked for in F: a copy
    assert f is not x and f.flags.f_contiguous and (f.get() == x.get()).all()


def test_get_order_none(cp):
    x = cp.arange(3.)
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'upper'"):
        x.get(order=None)
    assert cp.empty(0).get(order=None).shape == (0,)  # returned before the order is read


# --- flags (cupy/_core/flags.pyx) ----------------------------------------------------------

def test_flags_keys_and_read_only_properties(cp):
    f = cp.zeros((2, 3)).flags
    assert f["C_CONTIGUOUS"] and not f["F_CONTIGUOUS"] and f["OWNDATA"]
    for key in ("C", "F", "c_contiguous", "WRITEABLE", "ALIGNED"):
        with pytest.raises(KeyError, match=f"{key} is not defined for cupy.ndarray.flags"):
            f[key]
    for name in ("c_contiguous", "f_contiguous", "owndata"):
        with pytest.raises(AttributeError, match=f"property '{name}' of 'Flags' object "
                                                 "has no setter"):
            setattr(f, name, True)


# --- MemoryPointer (cupy/cuda/memory.pyx) ---------------------------------------------------

def test_memory_pointer_device_and_inplace_offsets(cp):
    x = cp.arange(4.)
    p = x.data
    assert isinstance(p.device, cp.cuda.Device) and p.device.id == p.device_id == 0
    base = p.ptr
    q = p
    q += 16
    assert q is p and p.ptr == base + 16
    q -= 8
    assert q is p and p.ptr == base + 8
    m = cp.cuda.alloc(32)
    before = m.ptr
    m += 8
    assert m.ptr == before + 8 and isinstance(m.device, cp.cuda.Device)


# --- imag setter (cupy/_core/_routines_math.pyx ``_ndarray_imag_setter``) ----------------

def test_imag_setter(cp):
    x = cp.arange(3.)
    with pytest.raises(TypeError, match="^cupy.ndarray does not have imaginary part to set$"):
        x.imag = 1
    z = cp.zeros(3, dtype=complex)
    z.imag = 2
    assert z.get().tolist() == [2j, 2j, 2j]


def test_reshape_takes_no_cupy_array_as_a_size(cp):
    # CuPy's shape_t conversion has no __index__ to call; a cupy array given alone is
    # a sequence (``_ndarray_reshape``: ``PySequence_Check``)
    x = cp.arange(6)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        x.reshape(cp.array(2), 3)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        x.reshape(cp.array([2, 3]))
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        x.reshape(cp.array(6))
    assert x.reshape(numpy.array([2, 3])).shape == (2, 3)
