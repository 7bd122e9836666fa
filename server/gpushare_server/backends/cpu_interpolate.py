"""``cupyx.scipy.interpolate`` on the CPU backend, where CuPy 14.2's answer is not SciPy's.

The module is SciPy's (``MIRRORS`` in ``cpu.py``; host arrays taken, as CuPy's functions
begin with ``cupy.asarray``); these take over by name (``INTERPOLATE_OVERRIDES``) and give
what CuPy 14.2's code (``cupyx/scipy/interpolate/``) gives:

- ``CubicSpline`` of four points or more is CuPy's: ``make_interp_spline(x, y, k=3)``
  converted to a ``PPoly`` on the spline's knots (``_cubic.py: CubicSpline.__init__``,
  ``_from_spline``), so its ``x`` are the knots (the end points repeated), ``c`` has a
  column for each knot interval, bad data meets ``make_interp_spline``'s checks in its
  words, and ``extrapolate`` is ``True`` for ``bc_type='periodic'`` too; of two or three
  points, CuPy's copy of SciPy's special cases (a straight line for two, whatever the
  boundary conditions; three with conditions other than not-a-knot or periodic fail).
- ``make_interp_spline``'s spline of degree 2 or more (not periodic) is
  ``BSpline(t, c, k)``: its ``axis`` is 0 whatever ``axis`` was given
  (``_bspline2.py: make_interp_spline``, last line).
- ``make_lsq_spline`` refuses ``x`` not strictly increasing first, in CuPy's words, and
  any ``method`` but ``'qr'``.
- ``interp1d``, ``BarycentricInterpolator``, ``KroghInterpolator`` (and their convenience
  functions) read ``yi.shape`` first (``_polyint.py: _Interpolator1D._set_yi``), the last
  two ``xi.astype`` too: lists and numbers are refused with Python's AttributeError.
- ``RegularGridInterpolator`` reads ``values.dtype`` (``_rgi.py: _check_values``),
  ``interpn`` ``values.ndim``; ``interpn`` refuses a method it lacks in its own
  (unformatted) words; ``RegularGridInterpolator`` has no ``solver``/``solver_args``,
  and its ``nu`` refusal reads ``got method='linear'``.
- The keywords CuPy's signatures lack are refused as Python refuses them:
  ``Akima1DInterpolator``'s ``method``/``extrapolate``, ``BarycentricInterpolator``'s
  ``wi``/``rng``/``random_state``, ``barycentric_interpolate``'s ``der``/``rng``, the
  ``UnivariateSpline`` family's ``check_finite``; their ``w`` raises CuPy's
  ``NotImplementedError`` (``_fitpack_repro.py``).
"""
from __future__ import annotations

import operator
from typing import Any, Callable

import numpy

from . import scipy_module


def _si() -> Any:
    return scipy_module("scipy.interpolate", "cupyx.scipy.interpolate")


def _attr(value: Any, name: str) -> None:
    """Read ``value.name`` as CuPy's code does first: Python's own AttributeError for a
    list or a number (``'list' object has no attribute 'shape'``)."""
    getattr(value, name)


# --- _polyint.py ---------------------------------------------------------------------

def _set_yi(xi: Any, yi: Any, axis: int) -> None:
    """``_Interpolator1D._set_yi``'s checks: ``yi.shape`` read, then ``len(xi)``."""
    shape = yi.shape
    if shape == ():
        shape = (1,)
    if xi is not None and shape[axis] != len(xi):
        raise ValueError("x and y arrays must be equal in length along "
                         "interpolation axis.")


def interp1d(x: Any, y: Any, kind: Any = "linear", axis: int = -1, copy: bool = True,
             bounds_error: Any = None, fill_value: Any = numpy.nan,
             assume_sorted: bool = False) -> Any:
    """See Also: cupyx.scipy.interpolate.interp1d (``_polyint.py``: ``__init__`` begins
    with ``_Interpolator1D.__init__``, which reads ``y.shape``)"""
    _set_yi(x, y, axis)
    return _si().interp1d(x, y, kind=kind, axis=axis, copy=copy, bounds_error=bounds_error,
                          fill_value=fill_value, assume_sorted=assume_sorted)


def BarycentricInterpolator(xi: Any, yi: Any = None, axis: int = 0) -> Any:
    """See Also: cupyx.scipy.interpolate.BarycentricInterpolator (``_polyint.py``:
    ``yi.shape``, then ``xi.astype(cupy.float64)``; no ``wi``, ``rng``)"""
    if yi is not None:
        _set_yi(xi, yi, axis)
    _attr(xi, "astype")
    return _si().BarycentricInterpolator(xi, yi, axis=axis)


def barycentric_interpolate(xi: Any, yi: Any, x: Any, axis: int = 0) -> Any:
    """See Also: cupyx.scipy.interpolate.barycentric_interpolate (no ``der``, ``rng``)"""
    return BarycentricInterpolator(xi, yi, axis=axis)(x)


def KroghInterpolator(xi: Any, yi: Any, axis: int = 0) -> Any:
    """See Also: cupyx.scipy.interpolate.KroghInterpolator (``_polyint.py``: ``yi.shape``,
    then ``xi.astype(cupy.float64)``)"""
    _set_yi(xi, yi, axis)
    _attr(xi, "astype")
    return _si().KroghInterpolator(xi, yi, axis=axis)


def krogh_interpolate(xi: Any, yi: Any, x: Any, der: Any = 0, axis: int = 0) -> Any:
    """See Also: cupyx.scipy.interpolate.krogh_interpolate"""
    P = KroghInterpolator(xi, yi, axis=axis)
    if der == 0:
        return P(x)
    if numpy.isscalar(der) or getattr(der, "shape", None) == ():
        return P.derivative(x, der=der)
    return P.derivatives(x, der=int(numpy.amax(der)) + 1)[der]


# --- _cubic.py -----------------------------------------------------------------------

def Akima1DInterpolator(x: Any, y: Any, axis: int = 0) -> Any:
    """See Also: cupyx.scipy.interpolate.Akima1DInterpolator (``_cubic.py``: CuPy's has
    no ``method`` (always ``'akima'``) and no ``extrapolate`` (always ``False``))"""
    return _si().Akima1DInterpolator(x, y, axis=axis)


def _validate_bc(bc_type: Any, y: numpy.ndarray, expected_deriv_shape: tuple,
                 axis: int) -> tuple[list, numpy.ndarray]:
    """``_cubic.py: _validate_bc`` (CuPy's copy of SciPy's)."""
    if isinstance(bc_type, str):
        if bc_type == 'periodic':
            if not numpy.allclose(y[0], y[-1], rtol=1e-15, atol=1e-15):
                raise ValueError(
                    f"The first and last `y` point along axis {axis} must "
                    "be identical (within machine precision) when "
                    "bc_type='periodic'.")
        bc_type = (bc_type, bc_type)
    else:
        if len(bc_type) != 2:
            raise ValueError("`bc_type` must contain 2 elements to "
                             "specify start and end conditions.")
        if 'periodic' in bc_type:
            raise ValueError("'periodic' `bc_type` is defined for both "
                             "curve ends and cannot be used with other "
                             "boundary conditions.")
    validated_bc: list = []
    for bc in bc_type:
        if isinstance(bc, str):
            if bc == 'clamped':
                validated_bc.append((1, numpy.zeros(expected_deriv_shape)))
            elif bc == 'natural':
                validated_bc.append((2, numpy.zeros(expected_deriv_shape)))
            elif bc in ['not-a-knot', 'periodic']:
                validated_bc.append(bc)
            else:
                raise ValueError(f"bc_type={bc} is not allowed.")
        else:
            try:
                deriv_order, deriv_value = bc
            except Exception as e:
                raise ValueError("A specified derivative value must be "
                                 "given in the form (order, value).") from e
            if deriv_order not in [1, 2]:
                raise ValueError("The specified derivative order must be 1 or 2.")
            deriv_value = numpy.asarray(deriv_value)
            if deriv_value.shape != expected_deriv_shape:
                raise ValueError(
                    "`deriv_value` shape {} is not the expected one {}."
                    .format(deriv_value.shape, expected_deriv_shape))
            if numpy.issubdtype(deriv_value.dtype, numpy.complexfloating):
                y = y.astype(complex, copy=False)
            validated_bc.append((deriv_order, deriv_value))
    return validated_bc, y


def _from_spline(spl: Any, into: Any) -> None:
    """``_cubic.py: _from_spline``: the B-spline as a ``PPoly`` on its knots (each knot
    interval a piece, the empty ones at repeated knots too), made in ``into``."""
    from scipy.special import gamma
    t, c, k = spl.tck
    axis = spl.axis
    cvals = numpy.empty((k + 1, len(t) - 1) + c.shape[1:], dtype=c.dtype)
    for m in range(k, -1, -1):
        ym = spl(t[:-1], nu=m)
        ym = numpy.moveaxis(ym, axis, 0)
        cvals[k - m, ...] = ym / gamma(m + 1)
    cvals_ = numpy.moveaxis(cvals, 0, axis + 1)
    cvals_ = numpy.moveaxis(cvals_, 0, axis + 1)
    _si().PPoly.__init__(into, cvals_, t, axis=axis)


def _prepare_input(x: numpy.ndarray, y: numpy.ndarray, axis: int) -> tuple:
    """``_cubic.py: prepare_input`` (no ``dydx``): ``x`` float, ``y`` float or complex,
    checked in CuPy's order and words, ``y``'s ``axis`` moved first."""
    if numpy.issubdtype(x.dtype, numpy.complexfloating):
        raise ValueError("`x` must contain real values.")
    x = x.astype(float)
    y = y.astype(complex if numpy.issubdtype(y.dtype, numpy.complexfloating) else float,
                 copy=False)
    axis = axis % y.ndim
    if x.ndim != 1:
        raise ValueError("`x` must be 1-dimensional.")
    if x.shape[0] < 2:
        raise ValueError("`x` must contain at least 2 elements.")
    if x.shape[0] != y.shape[axis]:
        raise ValueError("The length of `y` along `axis`={} doesn't "
                         "match the length of `x`".format(axis))
    if not numpy.all(numpy.isfinite(x)):
        raise ValueError("`x` must contain only finite values.")
    if not numpy.all(numpy.isfinite(y)):
        raise ValueError("`y` must contain only finite values.")
    dx = numpy.diff(x)
    if numpy.any(dx <= 0):
        raise ValueError("`x` must be strictly increasing sequence.")
    return x, dx, numpy.moveaxis(y, axis, 0), axis


def CubicSpline(x: Any, y: Any, axis: int = 0, bc_type: Any = 'not-a-knot',
                extrapolate: Any = None) -> Any:
    """See Also: cupyx.scipy.interpolate.CubicSpline (``_cubic.py:
    CubicSpline.__init__``, ported)"""
    si = _si()
    self = object.__new__(si.CubicSpline)
    x = numpy.asarray(x)
    y = numpy.asarray(y)
    if y.size == 0:
        s = numpy.zeros_like(y)
        si.CubicHermiteSpline.__init__(self, x, y, s, axis=axis, extrapolate=extrapolate)
        self.axis = axis
    elif len(x) <= 3:
        x, dx, y, axis = _prepare_input(x, y, axis)
        n = len(x)
        bc, y = _validate_bc(bc_type, y, y.shape[1:], axis)
        if extrapolate is None:
            extrapolate = 'periodic' if bc[0] == 'periodic' else True
        dxr = dx.reshape([dx.shape[0]] + [1] * (y.ndim - 1))
        slope = numpy.diff(y, axis=0) / dxr
        if n == 2:
            if bc[0] in ['not-a-knot', 'periodic']:
                bc[0] = (1, slope[0])
            if bc[1] in ['not-a-knot', 'periodic']:
                bc[1] = (1, slope[0])
            s = numpy.r_[slope, slope]
        if n == 3 and bc[0] == 'not-a-knot' and bc[1] == 'not-a-knot':
            A = numpy.zeros((3, 3))
            b = numpy.empty((3,) + y.shape[1:], dtype=y.dtype)
            A[0, 0] = 1
            A[0, 1] = 1
            A[1, 0] = dx[1]
            A[1, 1] = 2 * (dx[0] + dx[1])
            A[1, 2] = dx[0]
            A[2, 1] = 1
            A[2, 2] = 1
            b[0] = 2 * slope[0]
            b[1] = 3 * (dxr[0] * slope[1] + dxr[1] * slope[0])
            b[2] = 2 * slope[1]
            s = numpy.linalg.solve(A, b.reshape(3, -1)).reshape(b.shape)
        elif n == 3 and bc[0] == 'periodic':
            t = (slope / dxr).sum(0) / (1. / dxr).sum(0)
            s = numpy.broadcast_to(t, (n,) + y.shape[1:])
        # (three points with other conditions: CuPy's ``s`` is never bound, and Python
        # raises UnboundLocalError here as there)
        si.CubicHermiteSpline.__init__(self, x, y, s, axis=0, extrapolate=extrapolate)
        self.axis = axis
    else:
        need_complex = False
        if not isinstance(bc_type, str):
            bc_0, bc_1 = bc_type
            if not isinstance(bc_0, str):
                need_complex = numpy.iscomplexobj(bc_0[1])
                bc_0 = [bc_0]
            if not isinstance(bc_1, str):
                need_complex = numpy.iscomplexobj(bc_1[1])
                bc_1 = [bc_1]
            bc_type = (bc_0, bc_1)
        if need_complex:
            y = y.astype(complex)
        spl = make_interp_spline(x, y, k=3, axis=axis, bc_type=bc_type)
        _from_spline(spl, self)  # (its x, c and axis)
        self.extrapolate = True if extrapolate is None else extrapolate
    return self


# --- _bspline2.py --------------------------------------------------------------------

def make_interp_spline(x: Any, y: Any, k: int = 3, t: Any = None, bc_type: Any = None,
                       axis: int = 0, check_finite: bool = True) -> Any:
    """See Also: cupyx.scipy.interpolate.make_interp_spline (SciPy's spline; CuPy's
    solved one, of degree 2 or more and not periodic, is ``BSpline(t, coef, k)``: its
    axis 0, whatever ``axis`` was)"""
    si = _si()
    spl = si.make_interp_spline(x, y, k=k, t=t, bc_type=bc_type, axis=axis,
                                check_finite=check_finite)
    solved = not (k == 0 or (k == 1 and t is None)) and not (
        isinstance(bc_type, str) and bc_type == 'periodic') and spl.c.size != 0
    if solved and spl.axis != 0:
        return si.BSpline.construct_fast(spl.t, spl.c, spl.k, extrapolate=True, axis=0)
    return spl


def _as_float_array(x: Any, check_finite: bool) -> numpy.ndarray:
    """``_bspline.py: _as_float_array``: C-contiguous float64 or complex128."""
    x = numpy.ascontiguousarray(x)
    x = x.astype(numpy.complex128 if numpy.issubdtype(x.dtype, numpy.complexfloating)
                 else numpy.float64, copy=False)
    if check_finite and not numpy.isfinite(x).all():
        raise ValueError("Array must not contain infs or nans.")
    return x


def make_lsq_spline(x: Any, y: Any, t: Any, k: int = 3, w: Any = None, axis: int = 0,
                    check_finite: bool = True, *, method: str = "qr") -> Any:
    """See Also: cupyx.scipy.interpolate.make_lsq_spline (``_bspline2.py``: its checks,
    in its order and words, then SciPy's ``'qr'`` fit)"""
    from numpy.lib.array_utils import normalize_axis_index
    x = _as_float_array(x, check_finite)
    y = _as_float_array(y, check_finite)
    t = _as_float_array(t, check_finite)
    w = _as_float_array(w, check_finite) if w is not None else numpy.ones_like(x)
    k = operator.index(k)
    axis = normalize_axis_index(axis, y.ndim)
    y_moved = numpy.moveaxis(y, axis, 0)
    if x.ndim != 1 or any(x[1:] - x[:-1] <= 0):
        raise ValueError("Expect x to be a 1-D sorted array_like.")
    if x.shape[0] < k + 1:
        raise ValueError("Need more x points.")
    if k < 0:
        raise ValueError("Expect non-negative k.")
    if t.ndim != 1 or any(t[1:] - t[:-1] < 0):
        raise ValueError("Expect t to be a 1-D sorted array_like.")
    if x.size != y_moved.shape[0]:
        raise ValueError(
            f'Shapes of x {x.shape} and y {y_moved.shape} are incompatible')
    if k > 0 and any((x < t[k]) | (x > t[-k])):
        raise ValueError('Out of bounds w/ x = %s.' % x)
    if x.size != w.size:
        raise ValueError(
            f'Shapes of x {x.shape} and w {w.shape} are incompatible')
    if method != "qr":
        raise ValueError(f"{method=} is not supported.")
    return _si().make_lsq_spline(x, y, t, k=k, w=w, axis=axis, check_finite=False,
                                 method="qr")


# --- _rgi.py -------------------------------------------------------------------------

_RGI_METHODS = ("linear", "nearest", "slinear", "cubic", "quintic", "pchip",
                "slinear_legacy", "cubic_legacy", "quintic_legacy")
_NDBSPL = {"slinear", "cubic", "quintic"}


def _rgi_class() -> type:
    """SciPy's ``RegularGridInterpolator`` with CuPy's ``__call__`` refusal of ``nu``
    (``_rgi.py``: ``f"... got {method=}."``; SciPy's reads ``method =``)."""
    global _RGI
    if _RGI is None:
        base = _si().RegularGridInterpolator

        def __call__(self: Any, xi: Any, method: Any = None, *, nu: Any = None) -> Any:
            method = self.method if method is None else method
            if method not in _RGI_METHODS:
                raise ValueError("Method '%s' is not defined" % method)
            if nu is not None and method not in _NDBSPL:
                raise ValueError(
                    f"Can only compute derivatives for methods "
                    f"{self._SPLINE_METHODS_ndbspl}, got {method=}.")
            return base.__call__(self, xi, method, nu=nu)

        def _construct_spline(self: Any, method: Any, solver: Any = None,
                              **solver_args: Any) -> Any:
            # (CuPy's ``make_ndbspl`` solves the collocation system exactly,
            # ``spsolve``; SciPy's default is ``gcrotmk``, iterative, to 1e-5: the GPU's
            # cubic ``interpn`` at 0.5 is 0.5017472818965218, SciPy's 0.50175267...)
            import scipy.sparse.linalg
            return base._construct_spline(
                self, method, solver=scipy.sparse.linalg.spsolve if solver is None
                else solver, **solver_args)

        _RGI = type("RegularGridInterpolator", (base,), {
            "__call__": __call__, "_construct_spline": _construct_spline,
            "__module__": base.__module__,
            "__doc__": "See Also: cupyx.scipy.interpolate.RegularGridInterpolator"})
    return _RGI


_RGI: type | None = None


def RegularGridInterpolator(points: Any, values: Any, method: str = "linear",
                            bounds_error: bool = True, fill_value: Any = numpy.nan) -> Any:
    """See Also: cupyx.scipy.interpolate.RegularGridInterpolator (``_rgi.py``: the
    method checked, then ``values.dtype`` read; no ``solver``)"""
    if method not in _RGI_METHODS:
        raise ValueError("Method '%s' is not defined" % method)
    _attr(values, "dtype")
    return _rgi_class()(points, values, method=method, bounds_error=bounds_error,
                        fill_value=fill_value)


def interpn(points: Any, values: Any, xi: Any, method: str = "linear",
            bounds_error: bool = True, fill_value: Any = numpy.nan) -> Any:
    """See Also: cupyx.scipy.interpolate.interpn (``_rgi.py: interpn``: its method check,
    unformatted, no ``splinef2d``; ``values.ndim`` read; then the checks SciPy's words
    as CuPy's port does, and the interpolator)"""
    if method not in _RGI_METHODS:
        raise ValueError(
            "interpn only understands the methods 'linear', 'nearest', "
            "'slinear', 'cubic', 'quintic' and 'pchip'. "
            "You provided {method}.")
    _attr(values, "ndim")
    result = _si().interpn(points, values, xi, method=method, bounds_error=bounds_error,
                           fill_value=fill_value)  # (SciPy's checks, as CuPy's port's)
    if method in _NDBSPL:  # (then the spline solved exactly, as CuPy's: _rgi_class)
        result = _rgi_class()(points, values, method=method, bounds_error=bounds_error,
                              fill_value=fill_value)(xi)
    return result


# --- _fitpack_repro.py ---------------------------------------------------------------

def _unweighted(w: Any) -> None:
    if w is not None:
        raise NotImplementedError("weighted spline fitting is not implemented")


def UnivariateSpline(x: Any, y: Any, w: Any = None, bbox: Any = (None, None), k: int = 3,
                     s: Any = None, ext: Any = 0) -> Any:
    """See Also: cupyx.scipy.interpolate.UnivariateSpline (no weights, no
    ``check_finite``)"""
    _unweighted(w)
    return _si().UnivariateSpline(x, y, bbox=list(bbox), k=k, s=s, ext=ext)


def InterpolatedUnivariateSpline(x: Any, y: Any, w: Any = None, bbox: Any = (None, None),
                                 k: int = 3, ext: Any = 0) -> Any:
    """See Also: cupyx.scipy.interpolate.InterpolatedUnivariateSpline"""
    _unweighted(w)
    return _si().InterpolatedUnivariateSpline(x, y, bbox=list(bbox), k=k, ext=ext)


def LSQUnivariateSpline(x: Any, y: Any, t: Any, w: Any = None, bbox: Any = (None, None),
                        k: int = 3, ext: Any = 0) -> Any:
    """See Also: cupyx.scipy.interpolate.LSQUnivariateSpline"""
    _unweighted(w)
    return _si().LSQUnivariateSpline(x, y, t, bbox=list(bbox), k=k, ext=ext)


def _as_init(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` standing in for a class: Python's argument errors name ``Class.__init__``
    (``... __init__() got an unexpected keyword argument 'method'``), as CuPy's."""
    fn.__qualname__ = f"{fn.__name__}.__init__"
    return fn


for _cls in (interp1d, BarycentricInterpolator, KroghInterpolator, Akima1DInterpolator,
             CubicSpline, RegularGridInterpolator, UnivariateSpline,
             InterpolatedUnivariateSpline, LSQUnivariateSpline):
    _as_init(_cls)

INTERPOLATE_OVERRIDES: dict[str, Callable[..., Any]] = {
    f"cupyx.scipy.interpolate.{fn.__name__}": fn
    for fn in (interp1d, BarycentricInterpolator, barycentric_interpolate,
               KroghInterpolator, krogh_interpolate, Akima1DInterpolator, CubicSpline,
               make_interp_spline, make_lsq_spline, RegularGridInterpolator, interpn,
               UnivariateSpline, InterpolatedUnivariateSpline, LSQUnivariateSpline)}
