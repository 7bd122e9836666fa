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


def test_may_share_memory_is_answered_without_a_round_trip_per_pair(cp, synchronous_calls):
    # (``_memory_range.may_share_bounds``: the same allocation and overlapping byte
    # bounds. CuPy's own suite compares some 2.7 million pairs of views; a round trip
    # each took over 300 s: the client asks each array's address once)
    x = cp.arange(16.0)
    m = x.reshape(4, 4)
    views = [x[5:9], x[5:9][::-1], x[8:12], m[:, 1], m[1:3, ::2], m[::-1, 3], x[:0]]
    host = numpy.arange(16.0)
    host_views = [host[5:9], host[5:9][::-1], host[8:12], host.reshape(4, 4)[:, 1],
                  host.reshape(4, 4)[1:3, ::2], host.reshape(4, 4)[::-1, 3], host[:0]]
    for v in views:  # (each array's address and layout, once)
        v.data, v.strides
    del synchronous_calls[:]
    for v, hv in zip(views, host_views):
        for w, hw in zip(views, host_views):
            assert cp.may_share_memory(v, w) == numpy.may_share_memory(hv, hw)
    assert synchronous_calls == []
    assert cp.may_share_memory(x, cp.arange(16.0)) is False
    assert cp.may_share_memory(x, views[3]) is True
    with pytest.raises(TypeError, match=r"^Argument 'b' has incorrect type \(expected "
                       r"cupy._core.core._ndarray_base, got numpy.ndarray\)$"):
        cp.may_share_memory(x, host)
    with pytest.raises(NotImplementedError, match="max_work"):
        cp.may_share_memory(x, x, max_work=0)


def test_an_arrays_cached_address_does_not_keep_it_alive(cp):
    import gc
    pool = cp.get_default_memory_pool()
    gc.disable()
    try:
        a = cp.zeros((256, 256), dtype=cp.float32)
        v = a[1:]
        assert v.data.ptr == a.data.ptr + 1024 and cp.may_share_memory(a, v)
        assert pool.used_bytes() >= 256 * 256 * 4
        del a, v
        cp.zeros(1)
        assert pool.used_bytes() < 256 * 256 * 4
    finally:
        gc.enable()
