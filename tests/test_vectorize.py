"""``cupy.vectorize`` through gpushare: the Python function is transpiled into an
ElementwiseKernel on the client and run on a real server (the ``cp`` fixture); results
(values and dtypes) are checked against ``numpy.vectorize``."""
from __future__ import annotations

import numpy
import pytest

pytestmark = pytest.mark.timeout(300)


# --- functions (module level: the transpiler reads their source) -----------------------
def sign_class(x):
    if x > 2:
        y = x * 10
    elif x < -2:
        y = -x
    else:
        y = 0
    return y


def triangular(x):
    y = 0
    while x > 0:
        y += x
        x -= 1
    return y


def stepped_squares(start, stop, step):
    res = 0
    for i in range(start, stop, step):
        res += i * i
    return res


def sum_and_ratio(x, y):
    return x + y, x / y


def spread(x, y):
    return max(x, y) - min(x, y)


def complex_ops(z, w):
    v = z * w - z / w + z ** w
    if z == w:
        v = -v
    return v


def complex_less(z, w):
    return z < w


def complex_abs(z):
    return abs(z)


def to_float32(x):
    return numpy.float32(x)


def half_poly(x):
    return x * x - x


def swap_types(x):
    y = 0
    y = 0.5  # float64 into an int64 variable: same_kind fails
    return x + y


def rebind_tuple(x, y):
    z = x, y
    (a, b), z = z, x
    return a + b


def bad_ifexp(x):
    return x if x > 0.0 else numpy.float64(0.0)


OFFSET = 7


class _Holder:
    def __init__(self, value: int) -> None:
        self.value = value


HOLDER = _Holder(5)


def with_constants(x):
    return x + OFFSET * HOLDER.value


TWO_LAMBDAS = [lambda a, b: a + b, lambda a, b: a * b]


# --- helpers ---------------------------------------------------------------------------
def _check(cp, f, *args, rtol=0.0):
    """``cupy.vectorize(f)`` against ``numpy.vectorize(f)``: values and dtypes."""
    want = numpy.vectorize(f)(*args)
    got = cp.vectorize(f)(*[cp.asarray(a) if isinstance(a, numpy.ndarray) else a
                            for a in args])
    wants = want if isinstance(want, tuple) else (want,)
    gots = got if isinstance(got, tuple) else (got,)
    assert len(gots) == len(wants)
    for g, w in zip(gots, wants):
        assert g.dtype == w.dtype
        numpy.testing.assert_allclose(g.get(), w, rtol=rtol)
    return got


# --- tests -----------------------------------------------------------------------------
def test_if_elif_else(cp) -> None:
    _check(cp, sign_class, numpy.arange(-5, 6))


def test_while_loop(cp) -> None:
    _check(cp, triangular, numpy.arange(0, 12, dtype=numpy.int32))


def test_for_range_with_step(cp) -> None:
    start = numpy.array([0, 1, 2, 3, 4, 5])
    stop = numpy.array([-21, -23, -19, 17, 27, 24])
    step = numpy.array([-3, -2, -1, 1, 2, 3])
    _check(cp, stepped_squares, start, stop, step)


def test_tuple_return(cp) -> None:
    s, r = _check(cp, sum_and_ratio, numpy.arange(5), numpy.arange(5, 10))
    assert (s.dtype, r.dtype) == (numpy.int64, numpy.float64)


def test_max_min_promote_as_numpy(cp) -> None:
    x = numpy.array([-3, 0, 7, 100], dtype=numpy.int8)
    y = numpy.array([200, 0, 3, 1], dtype=numpy.uint8)
    assert _check(cp, spread, x, y).dtype == numpy.int16
    _check(cp, spread, x.astype(numpy.float32), numpy.array([0.5, 1, 2, 3], "f"))


def test_complex_arithmetic(cp) -> None:
    z = (numpy.arange(1, 7) + 1j * numpy.arange(6, 0, -1)).astype(numpy.complex64)
    w = z[::-1].copy()
    w[2] = z[2]
    _check(cp, complex_ops, z, w, rtol=1e-5)
    _check(cp, complex_ops, z.astype(numpy.complex128), w.astype(numpy.complex128),
           rtol=1e-12)
    # CuPy's transpiler refuses abs() on run-time values (cupyx/jit/_compile.py:795)
    with pytest.raises(TypeError, match="Invalid function call 'abs'"):
        cp.vectorize(complex_abs)(cp.asarray(z))
    with pytest.raises(TypeError):
        cp.vectorize(complex_less)(cp.asarray(z), cp.asarray(w))


@pytest.mark.parametrize("src", ["?", "b", "H", "l", "L", "e", "f", "d"])
def test_numpy_scalar_type_casts(cp, src) -> None:
    x = (numpy.arange(12) * 7.25 % 11).astype(src)
    _check(cp, to_float32, x)
    for dst in ("?", "B", "h", "l", "e", "d", "F", "D"):
        typecast = numpy.dtype(dst).type

        def cast(v):
            return typecast(v)
        _check(cp, cast, x)


def test_complex_to_real_cast_warns(cp) -> None:
    z = cp.asarray(numpy.array([1 + 2j, -3.5 + 1j], dtype=numpy.complex128))
    with pytest.warns(numpy.exceptions.ComplexWarning):
        got = cp.vectorize(to_float32)(z)
    numpy.testing.assert_array_equal(got.get(), numpy.array([1, -3.5], numpy.float32))


def test_float16(cp) -> None:
    _check(cp, half_poly, numpy.linspace(-4, 4, 17).astype(numpy.float16))


def test_lambda(cp) -> None:
    _check(cp, lambda a, b: a - b * 3 if a > b else a + b, numpy.arange(8), numpy.arange(8)[::-1])


def test_closure_and_global_constants(cp) -> None:
    scale = 3

    def f(x):
        return x * scale + OFFSET if x % 2 else x
    _check(cp, f, numpy.arange(6))
    _check(cp, with_constants, numpy.arange(4))


def test_python_and_numpy_scalar_arguments(cp) -> None:
    x = numpy.arange(5, dtype=numpy.int8)
    # CuPy types a Python int argument as int64 (no NEP 50 for vectorize)
    got = cp.vectorize(sum_and_ratio)(cp.asarray(x), 2)
    assert got[0].dtype == numpy.int64
    numpy.testing.assert_array_equal(got[0].get(), x + 2)
    _check(cp, sum_and_ratio, x, numpy.int8(2))


def test_kernel_cached_per_signature(cp) -> None:
    v = cp.vectorize(half_poly)
    v(cp.arange(3, dtype=numpy.float32))
    v(cp.arange(4, dtype=numpy.float32))
    assert len(v._sources) == 1
    v(cp.arange(3, dtype=numpy.float64))
    assert len(v._sources) == 2
    assert "__device__ float half_poly_1(float x)" in v._sources[(numpy.dtype("f"),)][3]


def test_errors_as_cupy(cp) -> None:
    x = cp.arange(6)
    with pytest.raises(TypeError,
                       match="Cannot cast from 'float64' to int64 with casting rule same_kind"):
        cp.vectorize(swap_types)(x)
    with pytest.raises(TypeError, match="Data type mismatch of variable:"):
        cp.vectorize(rebind_tuple)(x, x)
    with pytest.raises(TypeError, match="mismatch in conditional expression"):
        cp.vectorize(bad_ifexp)(x.astype(numpy.float32))
    with pytest.raises(ValueError, match="Multiple callables are found"):
        cp.vectorize(TWO_LAMBDAS[0])(x, x)
    with pytest.raises(NotImplementedError, match="excluded"):
        cp.vectorize(half_poly, excluded={0})
    # the session is still usable afterwards
    numpy.testing.assert_array_equal(cp.vectorize(triangular)(x).get(),
                                     numpy.vectorize(triangular)(numpy.arange(6)))


def bool_sum_divided(x):
    return 1 / (x + numpy.bool_(True))


def bool_ops_widened(x, y):
    return (x + y) * 3 + (x * y) * 5


def test_bool_add_and_multiply_are_or_and_and(cp):
    """CuPy's add and multiply of two bools are its ``|`` and ``&`` loops (``??->?``,
    ``create_arithmetic``'s boolops), so a wider expression around them sees a bool:
    ``1 / (x + True)`` is all ones (C++'s ``true + true`` would be 2, and 1 / 2 a
    half), and ``(x + y) * 3`` is 3, never 6."""
    x = cp.array([True, False, True, False])
    y = cp.array([True, True, False, False])
    got = cp.vectorize(bool_sum_divided)(x)
    assert got.dtype == numpy.float64 and got.get().tolist() == [1.0] * 4
    got = cp.vectorize(bool_ops_widened)(x, y)
    assert got.get().tolist() == [8, 3, 3, 0]


def test_otypes_refused_at_the_call_as_cupys(cp):
    f = cp.vectorize(lambda x: x + 1, otypes=[numpy.float32])  # (the constructor takes it)
    with pytest.raises(NotImplementedError) as info:
        f(cp.arange(3))
    assert str(info.value) == ""  # CuPy's bare NotImplementedError (vectorize.py)
