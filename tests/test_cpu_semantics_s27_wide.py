"""The CPU backend where CuPy 14.2's own test kit, run unsampled, showed it answering as
NumPy does where CuPy does not (tests CuPy marks ``xfail`` that passed here): complex
``sign`` (CuPy's ``in0 / abs(in0)``, no special case for infinities), ``trim_zeros`` of
more than one dimension (CuPy's NotImplementedError), a ufunc's ``casting=`` (CuPy
checks only the outputs' casts, never the inputs')."""
from __future__ import annotations

import math
import warnings

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)

inf = math.inf


# --- sign of complex values (cupy/_math/misc.py: _complex_sign) -------------------------

@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128])
def test_complex_sign_is_cupys_quotient_by_hypot(cp, dtype):
    # (``out0 = in0 / abs(in0)``, ``abs`` being ``hypot`` and a complex by a real
    # ``(re / h, im / h)``: ``cupy/complex/arithmetic.h``; NumPy's sign(inf + 0j) is 1)
    x = cp.array([complex(inf, 0), complex(-inf, 1), complex(inf, inf), complex(0, -inf),
                  3 + 4j, 0j, complex(-0.0, 0)], dtype=dtype)
    got = cp.sign(x)
    assert got.dtype == dtype
    expected = numpy.array([complex(math.nan, 0), complex(math.nan, 0),
                            complex(math.nan, math.nan), complex(0, math.nan),
                            0.6 + 0.8j, 0j, 0j], dtype=dtype)
    assert numpy.array_equal(got.get(), expected, equal_nan=True)
    out = cp.empty_like(x)
    assert cp.sign(x, out=out) is out
    assert numpy.array_equal(out.get(), expected, equal_nan=True)
    assert numpy.isnan(complex(cp.sign(x[0])).real)
    # (real and integer loops as before)
    assert cp.sign(cp.array([-2.0, 0.0, 5.0])).tolist() == [-1.0, 0.0, 1.0]
    assert cp.sign(cp.array([True, False])).dtype == numpy.int8


# --- trim_zeros (cupy/_manipulation/add_remove.py) ---------------------------------------

def test_trim_zeros_of_more_than_one_dimension_is_not_implemented(cp):
    _raises(NotImplementedError, "Multi-dimensional trim is not supported",
            lambda: cp.trim_zeros(cp.array([[0, 1], [2, 0]])))


def test_trim_zeros_reads_trim_as_cupy(cp):
    x = cp.array([0, 0, 1, 2, 0])
    # (``trim.upper()``: upper case is taken, other letters ignored; NumPy refuses them)
    assert cp.trim_zeros(x, trim="F").tolist() == [1, 2, 0]
    assert cp.trim_zeros(x, trim="xb").tolist() == [0, 0, 1, 2]
    assert cp.trim_zeros(x, trim="").tolist() == [0, 0, 1, 2, 0]
    assert cp.trim_zeros(x).tolist() == [1, 2]
    assert cp.trim_zeros(cp.zeros(3)).shape == (0,)
    assert cp.trim_zeros(cp.array(0)).shape == ()
    # (a view: ``filt[start:end]``)
    y = cp.trim_zeros(x)
    y[0] = 7
    assert x.tolist() == [0, 0, 7, 2, 0]
    _raises(AttributeError, "'list' object has no attribute 'ndim'",
            lambda: cp.trim_zeros([0, 1, 0]))


# --- a ufunc's casting= and dtype= (cupy/_core/_kernel.pyx: ufunc.__call__) -------------

def test_ufunc_casting_checks_outputs_only_as_cupy(cp):
    # (CuPy's loop is found from the inputs' types, never checked against ``casting``;
    # ``_get_out_args_from_optionals`` checks the outputs: CuPy's test_casting_in_xfail1
    # is an xfail for this, NumPy refusing input 0's int16 -> int32 under 'no')
    a = cp.arange(6, dtype=cp.int16)
    b = cp.arange(6, dtype=cp.int32)
    for casting in ("no", "equiv"):
        c = cp.zeros(6, cp.int32)
        assert cp.add(a, b, out=c, casting=casting) is c
        assert c.tolist() == [0, 2, 4, 6, 8, 10]
        got = cp.add(a, b, dtype=cp.int32, casting=casting)
        assert got.dtype == cp.int32 and got.tolist() == [0, 2, 4, 6, 8, 10]
    # (the output's cast, in _dtype.pyx's words: _raise_if_invalid_cast)
    _raises(TypeError, "Cannot cast output operand from dtype('int32') to dtype('int16') "
            "according to the rule 'safe'",
            lambda: cp.add(b, b, out=cp.zeros(6, cp.int16), casting="safe"))
    _raises(TypeError, "Cannot cast output operand from dtype('int16') to dtype('int32') "
            "according to the rule 'no'",
            lambda: cp.add(a, a, out=cp.zeros(6, cp.int32), casting="no"))
    assert cp.add(b, b, out=cp.zeros(6, cp.int16), casting="same_kind").dtype == cp.int16


def test_ufunc_dtype_picks_the_loop_whatever_the_inputs(cp):
    # (``_guess_routine_from_dtype``: the first loop whose output is dtype; the kernel
    # converts the inputs as C++ does, ``fix_cast_expr``; NumPy refuses float64 -> int32
    # under the default 'same_kind')
    f = cp.array([1.7, -2.5, 3.0])
    got = cp.add(f, f, dtype=cp.int32)
    assert got.dtype == cp.int32 and got.tolist() == [2, -4, 6]
    got = cp.multiply(f, 2, dtype=cp.int8)
    assert got.dtype == cp.int8 and got.tolist() == [2, -4, 6]
    assert cp.add(f, f, dtype=cp.bool_).tolist() == [True, True, True]
    z = cp.array([1 + 2j, 4 - 1j, 0j])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = cp.sqrt(z, dtype=cp.float32)  # (a complex value's .real(), no warning)
        assert got.dtype == cp.float32 and got.tolist() == [1.0, 2.0, 0.0]
        got = cp.add(z, z, dtype=cp.float64, casting="same_kind")
        assert got.dtype == cp.float64 and got.tolist() == [2.0, 8.0, 0.0]
        assert cp.logical_not(z, dtype=cp.bool_).tolist() == [False, False, True]
    assert caught == []
    # (a complex result into a real out= is refused unless 'unsafe', which warns once)
    _raises(TypeError, "Cannot cast output operand from dtype('complex128') to "
            "dtype('float64') according to the rule 'same_kind'",
            lambda: cp.add(z, z, out=cp.zeros(3)))
    with pytest.warns(numpy.exceptions.ComplexWarning):
        cp.add(z, z, out=cp.zeros(3), casting="unsafe")
    # (no loop for dtype=: CuPy's Wrong type)
    _raises(TypeError, "Wrong type (float64) of arguments for cupy_bitwise_and",
            lambda: cp.bitwise_and(cp.arange(3), 1, dtype=cp.float64))
