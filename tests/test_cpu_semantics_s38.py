"""Fidelity items found in session 38 by CuPy 14.2's test files beyond the conformance
kit (``statistics_tests``, ``lib_tests``... from the source distribution), each read in
CuPy's source."""
from __future__ import annotations

import warnings

import numpy
import pytest

pytestmark = pytest.mark.timeout(240)

nan = float("nan")


@pytest.mark.parametrize("name", ["nanmax", "nanmin"])
@pytest.mark.parametrize("dtype", ["e", "f", "d"])
def test_all_nan_warning_comes_at_the_call(cp, name, dtype):
    # (``_statistics/order.py``: ``if content.isnan(res).any():  # synchronize!`` then
    # ``warnings.warn('All-NaN slice encountered', RuntimeWarning)``: inside the caller's
    # ``catch_warnings``, so gpushare waits for these two, as CuPy does)
    fn = getattr(cp, name)
    a = cp.array([[nan, nan], [1.0, nan]], dtype)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m = fn(a, axis=1)
    assert [(x.category, str(x.message)) for x in w] == [
        (RuntimeWarning, "All-NaN slice encountered")]
    assert numpy.isnan(m.get()[0]) and m.get()[1] == 1.0 and m.dtype == numpy.dtype(dtype)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert float(fn(a[1:, :1])) == 1.0
    assert w == []


def test_a_longlong_array_comes_back_as_longlong(cp):
    # (CuPy's ``get()`` keeps the array's dtype object: ``numpy.longlong`` is char 'q',
    # equal to int64 'l' on Linux, but printed with its dtype: ``repr`` differs)
    x = cp.arange(3, dtype=numpy.longlong)
    host = x.get()
    assert host.dtype.char == "q" and repr(host) == repr(numpy.arange(3, dtype=numpy.longlong))
    assert cp.arange(3).get().dtype.char == "l"
