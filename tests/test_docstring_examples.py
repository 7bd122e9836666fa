"""Where CuPy 14.2's own docstring examples, run through gpushare on the CPU backend,
found another answer than CuPy's: ``signal.argrelextrema`` with CuPy's comparison
ufuncs, the random functions' ``size`` checked as CuPy's shapes are, and ``signal.cwt``
named as CuPy's function in Python's messages. Each expectation is CuPy's, read off its
source (the file is named at each test)."""
from __future__ import annotations

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


# --- argrelextrema (cupyx/scipy/signal/_peak_finding.py) -----------------------------------

def test_argrelextrema_takes_cupys_comparison_ufuncs(cp):
    # (the docstring's examples: the comparator is cupy.greater / cupy.less, which
    # _modedict maps to the boolrelextrema_1D/_2D kernels' comparisons)
    from gpushare.cupyx.scipy import signal
    x = cp.array([2, 1, 2, 3, 2, 0, 1, 0])
    got = signal.argrelextrema(x, cp.greater)
    assert isinstance(got, tuple) and len(got) == 1
    assert got[0].dtype == numpy.int64 and got[0].tolist() == [3, 6]
    y = cp.array([[1, 2, 1, 2], [2, 2, 0, 0], [5, 3, 4, 4]])
    rows, cols = signal.argrelextrema(y, cp.less, axis=1)
    assert rows.tolist() == [0, 2] and cols.tolist() == [2, 1]
    # mode other than 'clip': a neighbour's index wraps (clip_plus/clip_minus)
    assert signal.argrelextrema(x, cp.greater, mode="wrap")[0].tolist() == [0, 3, 6]
    # order: every neighbour up to `order` away on each side
    # (with 'clip' an edge is its own neighbour: x[7] >= x[7], but not >= x[6])
    assert signal.argrelextrema(x, cp.greater_equal, order=2)[0].tolist() == [0, 3]
    # on 2-D data the kernel compares along axis 0 only for axis == 0, else along 1
    assert [a.tolist() for a in signal.argrelextrema(y, cp.less, axis=0)] == \
        [[1, 1], [2, 3]]
    assert [a.tolist() for a in signal.argrelextrema(y, cp.less, axis=-2)] == \
        [[0, 2], [2, 1]]


def test_argrelextrema_refuses_as_cupy_does(cp):
    from gpushare import errors
    from gpushare.cupyx.scipy import signal
    x = cp.array([2, 1, 2, 3, 2, 0, 1, 0])
    _raises(ValueError, "Order must be an int >= 1",
            lambda: signal.argrelextrema(x, cp.greater, order=0))
    # below 3-D only the six comparison ufuncs of _modedict (a KeyError otherwise)
    with pytest.raises(KeyError):
        signal.argrelextrema(x, numpy.greater)
    with pytest.raises(KeyError):
        signal.argrelextrema(x, lambda a, b: a > b)
    # the kernels are instantiated for FLOAT_INT_TYPES only: no unsigned or bool one
    _raises(errors.CUDADriverError, "CUDA_ERROR_NOT_FOUND: named symbol not found",
            lambda: signal.argrelextrema(x.astype(cp.uint8), cp.greater))
    # mode='raise' is refused after the search
    _raises(NotImplementedError, "CuPy `take` doesn't support `mode='raise'`.",
            lambda: signal.argrelextrema(x, cp.greater, mode="raise"))


def test_argrelextrema_of_3d_data_takes_any_callable(cp):
    # (3-D and more: CuPy's loop of cupy.take and the comparator's own calls)
    from gpushare.cupyx.scipy import signal
    data = numpy.zeros((2, 3, 4))
    data[0, 1, 2] = 5.0
    data[1, 2, 0] = -1.0
    a = cp.asarray(data)
    got = signal.argrelextrema(a, lambda p, q: p > q, axis=2)
    assert [g.tolist() for g in got] == [[0], [1], [2]]
    got = signal.argrelextrema(a, cp.less, axis=1, mode="wrap")
    assert [g.tolist() for g in got] == [[1], [2], [0]]
    got = signal.argrelmax(a, axis=2)  # (the same search, CuPy's cupy.greater)
    assert [g.tolist() for g in got] == [[0], [1], [2]]


# --- the random functions' size (cupy/_core/internal.pyx: get_size; core.pyx) -----------

def test_random_size_is_checked_as_cupys_shape(cp):
    # (the KDTree docstrings call cupy.random.rand((15, 2)): rand(*size) takes the
    # tuple as one length, which Cython's Py_ssize_t conversion refuses)
    _raises(TypeError, "'tuple' object cannot be interpreted as an integer",
            lambda: cp.random.rand((15, 2)))
    _raises(TypeError, "'tuple' object cannot be interpreted as an integer",
            lambda: cp.random.randn((15, 2)))
    _raises(TypeError, "'float' object cannot be interpreted as an integer",
            lambda: cp.random.rand(2.0))
    _raises(TypeError, "'float' object cannot be interpreted as an integer",
            lambda: cp.random.normal(size=(2, 3.0)))
    _raises(TypeError, "an integer is required", lambda: cp.random.rand(True))
    _raises(ValueError, "Negative dimensions are not allowed",
            lambda: cp.random.rand(-1))
    assert cp.random.random_sample(numpy.int64(3)).shape == (3,)
    # (a NumPy array for size reaches CuPy as it is: ``cupy.empty`` reads it on the host,
    # where a device array would be no length: "'ndarray' object cannot be interpreted")
    assert cp.random.random_sample(numpy.array(3)).shape == (3,)
    assert cp.random.random_sample([2, numpy.int32(3)]).shape == (2, 3)
    assert cp.random.RandomState(0).geometric(0.5, numpy.array([2, 3])).shape == (2, 3)
    assert cp.random.default_rng(0).random(numpy.array(3)).shape == (3,)
    assert cp.random.rand(15, 2).shape == (15, 2)


# --- cwt (cupyx/scipy/signal/_wavelets.py) --------------------------------------------------

def test_cwt_is_named_as_cupys_function(cp):
    # (the morlet2 docstring passes w=: CuPy's cwt(data, wavelet, widths) has no such
    # parameter, and Python's message names the function by its qualified name)
    from gpushare.cupyx.scipy import signal
    assert signal.cwt.__qualname__ == "cwt"
    _raises(TypeError, "cwt() got an unexpected keyword argument 'w'",
            lambda: signal.cwt(cp.ones(8), signal.morlet2, [1, 2], w=6.0))
