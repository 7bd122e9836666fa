"""CuPy functions that begin with ``cupy.asarray(param)`` take host (NumPy) arrays for
those parameters, and only those (the CPU backend's ``HOST_PARAMS``): through gpushare
they give NumPy's answer as device arrays, while a host array anywhere else is refused
as CuPy refuses it. Each test runs against a real CPU server (``cp`` fixture)."""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy
import pytest

pytestmark = pytest.mark.timeout(120)

A = numpy.array([[1.0, 4.0, 2.0], [3.0, 0.5, 5.0]])
V = numpy.array([0.5, 1.0, 2.5, 4.0])
W = numpy.array([1.0, 2.0, 1.0, 0.5])
C = numpy.array([1 + 2j, 3 - 1j])


def _on(m: Any) -> Callable[[Any], Any]:
    """``m``'s device array of a host one (NumPy's own for the reference)."""
    return (lambda x: x) if m is numpy else m.asarray


#: name -> ``call(m, dev)`` with ``m`` gpushare's cupy (or NumPy for the reference) and
#: ``dev`` making the device arguments; every NumPy array given as is is a host array
CASES: dict[str, Callable[[Any, Callable[[Any], Any]], Any]] = {
    "append": lambda m, d: m.append(A, V),
    "around": lambda m, d: m.around(A / 3, 2),
    "round": lambda m, d: m.round(A / 3),
    "asarray_chkfinite": lambda m, d: m.asarray_chkfinite(A),
    "atleast_1d": lambda m, d: m.atleast_1d(numpy.array(2.0)),
    "atleast_2d": lambda m, d: m.atleast_2d(V, A),
    "atleast_3d": lambda m, d: m.atleast_3d(A),
    "average": lambda m, d: m.average(V, weights=W),
    "average_axis": lambda m, d: m.average(A, 1, numpy.array([1.0, 2.0, 3.0])),
    "corrcoef": lambda m, d: m.corrcoef(A),
    "cov": lambda m, d: m.cov(V, W),
    "cross": lambda m, d: m.cross(V[:3], W[:3]),
    "delete": lambda m, d: m.delete(d(V), numpy.array([0, 2])),
    "diag": lambda m, d: m.diag(V, 1),
    "diff": lambda m, d: m.diff(V, prepend=W, append=numpy.array(9.0)),
    "extract": lambda m, d: m.extract(A > 2, d(A)),
    "gradient": lambda m, d: m.gradient(V),
    "histogram": lambda m, d: m.histogram(d(V), numpy.array([0.0, 1.0, 5.0])),
    "histogram2d": lambda m, d: m.histogram2d(d(V), d(W), numpy.array([2, 3]), weights=W),
    "histogramdd": lambda m, d: m.histogramdd(d(A.T), 3, weights=numpy.array([1.0, 2.0, 3.0])),
    "histogramdd_counts": lambda m, d: m.histogramdd(d(A.T), numpy.array([2, 4])),
    "imag": lambda m, d: m.imag(C),
    "real": lambda m, d: m.real(C),
    "interp": lambda m, d: m.interp(d(V * 2), d(V), d(W), numpy.array(-1.0),
                                    right=numpy.array(7.0)),
    "intersect1d": lambda m, d: m.intersect1d(V, W, return_indices=True),
    "setdiff1d": lambda m, d: m.setdiff1d(V, W),
    "setxor1d": lambda m, d: m.setxor1d(V, W),
    "isclose": lambda m, d: m.isclose(V, W),
    "allclose": lambda m, d: m.allclose(V, V + 1e-9),
    "ix_": lambda m, d: m.ix_(numpy.array([0, 1]), numpy.array([2, 0])),
    "linspace": lambda m, d: m.linspace(V, W, 3),
    "logspace": lambda m, d: m.logspace(V, W, 3),
    "percentile": lambda m, d: m.percentile(d(A), numpy.array([10.0, 50.0]), axis=1),
    "quantile": lambda m, d: m.quantile(d(V), numpy.array([0.25, 0.5])),
    "require": lambda m, d: m.require(A, requirements="F"),
    "resize": lambda m, d: m.resize(V, (3, 3)),
    "tile": lambda m, d: m.tile(A, 2),
    "tile_reps": lambda m, d: m.tile(d(V), numpy.array([2, 1])),
    "tril": lambda m, d: m.tril(A),
    "triu": lambda m, d: m.triu(A, k=1),
    "unique": lambda m, d: m.unique(numpy.array([3, 1, 3, 2]), return_counts=True),
    "unwrap": lambda m, d: m.unwrap(V * 3),
    "vander": lambda m, d: m.vander(V, 3),
    "fft.fftshift": lambda m, d: m.fft.fftshift(A),
    "fft.ifftshift": lambda m, d: m.fft.ifftshift(V),
    "linalg.cond": lambda m, d: m.linalg.cond(A[:, :2]),
    "linalg.cross": lambda m, d: m.linalg.cross(V[:3], W[:3]),
}


def _flat(value: Any) -> list:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _flat(v)]
    return [value]


@pytest.mark.parametrize("name", sorted(CASES))
def test_host_arrays_taken_where_cupy_converts_them(cp, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = CASES[name](cp, _on(cp))
        want = CASES[name](numpy, _on(numpy))
    got_items, want_items = _flat(got), _flat(want)
    assert len(got_items) == len(want_items)
    for g, w in zip(got_items, want_items):
        assert isinstance(g, cp.ndarray), (name, type(g))  # a device array, as CuPy's
        numpy.testing.assert_allclose(g.get(), w)
        assert g.dtype == numpy.asarray(w).dtype


def test_scipy_fft_shifts_and_place(cp) -> None:
    from gpushare.cupyx.scipy import fft
    got = fft.fftshift(A)
    assert isinstance(got, cp.ndarray)
    assert (got.get() == numpy.fft.fftshift(A)).all()
    a = cp.asarray(A)
    assert cp.place(a, A > 2, numpy.array([-1.0, -2.0])) is None
    want = A.copy()
    numpy.place(want, A > 2, [-1.0, -2.0])
    assert (a.get() == want).all()


def test_histogram_weights_by_position(cp) -> None:
    """CuPy's ``histogramdd``/``histogram2d`` take ``weights`` before ``density``."""
    w = numpy.array([1.0, 2.0, 3.0])
    hist, _ = cp.histogramdd(cp.asarray(A.T), 3, None, w)
    assert (hist.get() == numpy.histogramdd(A.T, 3, weights=w)[0]).all()
    hist2 = cp.histogram2d(cp.asarray(V), cp.asarray(W), 2, None, W)[0]
    assert (hist2.get() == numpy.histogram2d(V, W, 2, weights=W)[0]).all()


def test_results_are_new_writable_device_memory(cp) -> None:
    host = V.copy()
    got = cp.require(host)
    got += 1  # (not a read-only view of the message that brought the host array)
    assert (got.get() == V + 1).all() and (host == V).all()
    again = cp.asarray_chkfinite(host)
    again[0] = 9
    assert again.get()[0] == 9 and host[0] == V[0]


#: calls that give a host array where CuPy does not convert it: TypeError, as CuPy
REFUSED: dict[str, Callable[[Any], Any]] = {
    "interp fp": lambda cp: cp.interp(cp.asarray(V), cp.asarray(V), W),
    "percentile a": lambda cp: cp.percentile(V, 50.0),
    "place arr": lambda cp: cp.place(A.copy(), cp.asarray(A > 2), cp.asarray(V)),
    "cov fweights": lambda cp: cp.cov(V, fweights=numpy.ones(4, int)),
    "unique axis": lambda cp: cp.unique(A, axis=0),
    "intersect1d assume_unique": lambda cp: cp.intersect1d(V, W, assume_unique=True),
    "histogram2d x": lambda cp: cp.histogram2d(V, cp.asarray(W)),
    "histogramdd sample": lambda cp: cp.histogramdd(A.T),
    # (not ``sort``: CuPy's ``a.copy()`` and ``ret.sort(...)`` are a host array's own NumPy
    # methods, a sorted NumPy array back: test_cpu_semantics_s27_left.py)
    "polynomial.polyval x": lambda cp: cp.polynomial.polynomial.polyval(V, V),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_host_arrays_refused_elsewhere(cp, name: str) -> None:
    with pytest.raises(TypeError):
        REFUSED[name](cp)


#: CuPy's own errors for host arrays in these functions: (call, error, message)
CUPY_ERRORS: dict[str, tuple[Callable[[Any], Any], type, str]] = {
    "delete arr": (lambda cp: cp.delete(V, 1), ValueError,
                   "delete(): arr must be a cupy.ndarray"),
    "extract a": (lambda cp: cp.extract(V > 1, V), TypeError,
                  "extract requires input array to be cupy.ndarray"),
    "histogram x": (lambda cp: cp.histogram(V), ValueError, "x must be a cupy.ndarray"),
    # (``interp``'s checks take a host ``x``; ``cupy.searchsorted(xp, x)`` refuses it: the
    # H200's NotImplementedError, ``_searchsorted``)
    "interp x": (lambda cp: cp.interp(V, cp.asarray(V), cp.asarray(W)), NotImplementedError,
                 "Only python scalars or ndarrays are supported for v"),
    "histogram weights": (lambda cp: cp.histogram(cp.asarray(V), weights=W), ValueError,
                          "weights must be a cupy.ndarray"),
    "histogramdd bins": (lambda cp: cp.histogramdd(cp.asarray(A.T), [V, V]), ValueError,
                         "array-like bins not supported"),
    "histogramdd 2-d bins": (lambda cp: cp.histogramdd(cp.asarray(A.T), A[:, :2]),
                             ValueError, "array-like bins not supported"),
    "histogram2d bins": (lambda cp: cp.histogram2d(cp.asarray(V), cp.asarray(W), V[:3]),
                         ValueError, "array-like bins not supported in CuPy"),
}


@pytest.mark.parametrize("name", sorted(CUPY_ERRORS))
def test_cupy_errors_for_host_arrays(cp, name: str) -> None:
    call, error, message = CUPY_ERRORS[name]
    with pytest.raises(error) as info:
        call(cp)
    assert str(info.value) == message


@pytest.mark.parametrize("wdtype, density, want", [
    (None, False, "int64"), (None, True, "float64"),
    ("int32", False, "int64"), ("bool", False, "int64"), ("int32", True, "float64"),
    ("float32", False, "float64"), ("complex64", False, "complex128"),
    ("complex64", True, "complex128")])
def test_histogram_counts_have_cupys_dtype(cp, wdtype, density, want) -> None:
    """CuPy's counts are int64 (integer or no weights), float64 or complex128
    (cupy/_statistics/histogram.py); NumPy's follow the weights (int32, float32...).
    Boolean weights are summed as int64 (``atomicAdd(&y[low], (Y)weights[i])``: the
    H200 counted [3, 0, 1] where NumPy's boolean counts are [True, False, True])."""
    x = numpy.array([1.0, 2.0, 2.0, 3.0, 5.0])
    w = None if wdtype is None else numpy.array([1, 2, 3, 0, 1]).astype(wdtype)
    hist, edges = cp.histogram(cp.asarray(x), 3, weights=None if w is None else cp.asarray(w),
                               density=density)
    summed = w.astype(numpy.int64) if wdtype == "bool" else w
    ref, ref_edges = numpy.histogram(x, 3, weights=summed, density=density)
    if wdtype == "bool":
        assert ref.tolist() == [3, 0, 1]
    assert str(hist.dtype) == want and (edges.get() == ref_edges).all()
    numpy.testing.assert_allclose(hist.get(), ref)


def test_histogram_refuses_what_cupy_refuses(cp) -> None:
    x = cp.asarray(V)
    with pytest.raises(NotImplementedError, match="only integer and array bins"):
        cp.histogram(x, bins="auto")
    with pytest.raises(NotImplementedError, match="complex number is not supported"):
        cp.histogram(cp.ones(3, dtype=complex))
    with pytest.raises(AttributeError, match="'list' object has no attribute 'dtype'"):
        cp.histogram([1.0, 2.0])
    with pytest.raises(ValueError, match="x must be a cupy.ndarray"):  # (before bins)
        cp.histogram(V, bins="auto")


def test_unique_takes_cupys_parameters_only(cp) -> None:
    x = cp.asarray(numpy.array([3, 1, 3, 2]))
    assert cp.unique(x, False, False, True)[1].tolist() == [1, 1, 2]
    assert cp.unique(x, equal_nan=False).tolist() == [1, 2, 3]
    with pytest.raises(TypeError, match="unexpected keyword argument 'sorted'"):
        cp.unique(x, sorted=True)  # (NumPy 2.3's; CuPy 14.2 has none)
