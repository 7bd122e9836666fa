"""CuPy 14.2's ufuncs where gpushare answered otherwise (session 26): ``ufunc.__call__``'s
argument checks and words (``cupy/_core/_kernel.pyx``), the ufuncs' names (their
kernels', ``cupy_<name>``), and elementwise kernels whose arithmetic is not NumPy's."""
from __future__ import annotations

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


# --- ufunc.__call__'s arguments (cupy/_core/_kernel.pyx) ---------------------------------

def test_ufunc_call_refuses_arguments_in_cupys_words(cp):
    a = cp.arange(6.0).reshape(2, 3)
    b = cp.arange(3.0)
    o = cp.empty((2, 3))
    _raises(TypeError, "Wrong number of arguments for 'cupy_add'. It must be either 2 or 3 "
            "(with outputs), but given 1.", lambda: cp.add(a))
    _raises(TypeError, "Wrong number of arguments for 'cupy_add'. It must be either 2 or 3 "
            "(with outputs), but given 4.", lambda: cp.add(a, b, o, o))
    _raises(ValueError, "Cannot specify 'out' as both a positional and keyword argument",
            lambda: cp.add(a, b, o, out=o))
    _raises(ValueError, "The 'out' tuple must have exactly one entry per ufunc output",
            lambda: cp.add(a, b, out=(o, o)))
    _raises(ValueError, "'out' must be a tuple of arrays", lambda: cp.divmod(a, b, out=o))
    _raises(TypeError, "Unsupported type <class 'list'>", lambda: cp.add(a, b, out=[o]))
    _raises(TypeError, "Unsupported type <class 'numpy.ndarray'>",
            lambda: cp.add(a, b, out=numpy.empty((2, 3))))
    _raises(TypeError, "Output arguments type must be cupy.ndarray",
            lambda: cp.add(a, b, out=3))
    # (an out=None keyword beside a positional output is no conflict)
    assert cp.add(a, b, o, out=None) is o
    assert o.tolist() == [[0.0, 2.0, 4.0], [3.0, 5.0, 7.0]]


def test_ufunc_names_are_cupys_kernel_names(cp):
    assert cp.add.name == cp.add.__name__ == "cupy_add"
    assert repr(cp.sqrt) == "<ufunc 'cupy_sqrt'>"
    assert cp.divide.name == "cupy_true_divide" and cp.abs.name == "cupy_absolute"
    # (_math/trigonometric.py: degrees = rad2deg, radians = deg2rad)
    assert cp.degrees is cp.rad2deg and cp.radians is cp.deg2rad
    assert cp.degrees(cp.array([numpy.pi])).tolist() == [180.0]
    import gpushare.cupyx as cupyx
    assert cupyx.rsqrt.name == "cupy_rsqrt"
