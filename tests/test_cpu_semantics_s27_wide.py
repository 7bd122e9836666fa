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
