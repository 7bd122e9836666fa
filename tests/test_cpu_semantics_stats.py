"""The CPU backend's answers where CuPy 14.2's differ from NumPy's, through a real
server: ``einsum``'s keywords and casts, ``unique_values``' order, and ``digitize``,
which CuPy runs as its searchsorted kernel without a monotonicity check."""
from __future__ import annotations

import math

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


# --- einsum (cupy/linalg/_einsum.py) ------------------------------------------------------

def test_einsum_casts_to_the_result_dtype_as_cupy(cp):
    got = cp.einsum("i->", cp.arange(3), dtype=cp.float32)
    assert got.dtype == numpy.float32 and float(got) == 3.0
    # (NumPy's 'safe' casting refuses; CuPy sums with sum(dtype=int32): each of 0.5, 1.5,
    # 2.5 cast first)
    got = cp.einsum("i->", cp.arange(3.0) + 0.5, dtype=cp.int32)
    assert got.dtype == numpy.int32 and int(got) == 3
    a = cp.arange(6).reshape(2, 3)
    got = cp.einsum("ij,jk", a, a.T, dtype=cp.int8)
    assert got.dtype == numpy.int8 and got.tolist() == [[5, 14], [14, 50]]


def test_einsum_without_a_sum_is_a_writable_view_of_the_operands_dtype(cp):
    a = cp.arange(6).reshape(2, 3)
    view = cp.einsum("ij->ji", a, dtype=cp.float32)  # (CuPy returns its view as is)
    assert view.dtype == a.dtype and view.shape == (3, 2)
    view[0, 0] = 99
    assert int(a[0, 0]) == 99


def test_einsum_refuses_numpys_other_keywords(cp):
    a = cp.arange(4.0)
    for name in ("out", "order", "casting"):
        _raises(TypeError, f"Did not understand the following kwargs: [{name!r}]",
                lambda: cp.einsum("i,i", a, a, **{name: None}))


# --- unique_values (cupy/_manipulation/add_remove.py) --------------------------------------

def test_unique_values_are_sorted_and_nans_kept_apart(cp):
    got = cp.unique_values(cp.array([5, 3, 9, 1, 3, 7, 2, 8, 6, 4, 0] * 3))
    assert got.tolist() == list(range(10))  # (NumPy 2.3's: its hash table's order)
    got = cp.unique_values(cp.array([2.0, numpy.nan, 1.0, numpy.nan]))
    assert numpy.array_equal(got.get(), [1.0, 2.0, numpy.nan, numpy.nan], equal_nan=True)


# --- digitize (cupy/_statistics/histogram.py, cupy/_sorting/search.py) -----------------------

def _cupy_kernel(bins: list, x: float, side_is_right: bool) -> int:
    """CuPy's ``_searchsorted_code`` for one value, line by line (assume_increasing
    False, as ``digitize`` runs it)."""
    n, isnan = len(bins), math.isnan
    inc = n < 2 or bins[0] <= bins[n - 1] or (not isnan(bins[0]) and isnan(bins[n - 1]))
    if isnan(x):
        pos = n if inc else 0
        if not side_is_right:
            if inc:
                while pos > 0 and isnan(bins[pos - 1]):
                    pos -= 1
            else:
                while pos < n and isnan(bins[pos]):
                    pos += 1
        return pos
    if side_is_right:
        greater = inc and x >= bins[n - 1]
    else:
        greater = x > bins[n - 1] if inc else x <= bins[n - 1]
    if greater:
        return n
    left = 0
    if not inc:
        while left < n and isnan(bins[left]):
            left += 1
        if left == n:
            return n
        if side_is_right and not isnan(bins[n - 1]) and bins[n - 1] > x:
            return n
    right = n - 1
    while left < right:
        m = left + (right - left) // 2
        if side_is_right:
            look = bins[m] <= x if inc else bins[m] > x
        else:
            look = bins[m] < x if inc else bins[m] >= x
        if look:
            left = m + 1
        else:
            right = m
    return right


def test_digitize_is_cupys_search_for_any_bins(cp):
    """Monotonic bins: NumPy's answer; bins that are neither increasing nor decreasing,
    or hold NaNs: CuPy's kernel's (NumPy raises for the first)."""
    rng = numpy.random.default_rng(7)
    checked_unsorted = 0
    for _ in range(60):
        n = int(rng.integers(1, 7))
        bins = rng.integers(-3, 4, n).astype(float)
        r = rng.random()
        if r < 0.3:
            bins = numpy.sort(bins)
        elif r < 0.6:
            bins = numpy.sort(bins)[::-1].copy()
        if rng.random() < 0.25:
            bins[rng.integers(0, n)] = numpy.nan
        x = rng.integers(-4, 5, 9).astype(float)
        x[rng.random(9) < 0.15] = numpy.nan
        for right in (False, True):
            got = cp.digitize(cp.asarray(x), cp.asarray(bins), right=right)
            assert got.dtype == numpy.int64
            want = [_cupy_kernel(list(bins), v, not right) for v in x]
            assert got.tolist() == want, (bins, x, right)
            monotonic = not numpy.isnan(bins).any() and (
                (numpy.diff(bins) >= 0).all() or (numpy.diff(bins) <= 0).all())
            if monotonic:
                assert want == numpy.digitize(x, bins, right=right).tolist()
            else:
                checked_unsorted += 1
    assert checked_unsorted > 10


def test_digitize_refuses_what_cupy_refuses(cp):
    x = cp.arange(3.0)
    _raises(TypeError, "x may not be complex", lambda: cp.digitize(x + 1j, cp.arange(2.0)))
    _raises(ValueError, "object too deep for desired array",
            lambda: cp.digitize(x, cp.ones((2, 2))))
    _raises(ValueError, "object of too small depth for desired array",
            lambda: cp.digitize(x, cp.array(1.0)))
    _raises(AttributeError, "'list' object has no attribute 'ndim'",
            lambda: cp.digitize(x, [0.0, 1.0]))
