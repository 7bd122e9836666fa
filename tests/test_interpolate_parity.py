"""``cupyx.scipy.interpolate`` through a real server: where CuPy 14.2's code answers
otherwise than SciPy's, the CPU backend gives CuPy's answer (the CuPy function each test
mirrors is cited beside it; the port is ``server/gpushare_server/backends/cpu_interpolate.py``).
"""
from __future__ import annotations

import importlib

import numpy
import pytest
import scipy.interpolate

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def interp(cp):
    return importlib.import_module("gpushare.cupyx.scipy.interpolate")


def _data(cp, n=10):
    xh = numpy.arange(float(n))
    yh = numpy.sin(xh)
    return cp.asarray(xh), cp.asarray(yh), xh, yh


# --- CubicSpline (cupyx/scipy/interpolate/_cubic.py: CubicSpline.__init__) ------------

@pytest.mark.parametrize("bc_type, knots", [("not-a-knot", 14), ("natural", 16),
                                            ("clamped", 16)])
def test_cubic_spline_is_a_ppoly_on_the_knots(cp, interp, bc_type, knots):
    # n > 3: make_interp_spline(x, y, k=3) converted by _from_spline: x are the spline's
    # knots (ends repeated), c one column per knot interval; values as SciPy's
    x, y, xh, yh = _data(cp)
    cs = interp.CubicSpline(x, y, bc_type=bc_type)
    ref = scipy.interpolate.CubicSpline(xh, yh, bc_type=bc_type)
    assert cs.x.shape == (knots,) and cs.c.shape == (4, knots - 1)
    assert float(cs.x[0]) == float(cs.x[3]) == 0.0
    q = numpy.linspace(0, 9, 31)
    numpy.testing.assert_allclose(cs(cp.asarray(q)).get(), ref(q), rtol=1e-12, atol=1e-13)
    numpy.testing.assert_allclose(cs(cp.asarray(q), 2).get(), ref(q, 2), atol=1e-12)
    assert abs(float(cs.integrate(0, 9)) - ref.integrate(0, 9)) < 1e-12


def test_cubic_spline_errors_are_make_interp_splines(cp, interp):
    # (_bspline2.py: make_interp_spline's checks, in its words)
    x, y, _, _ = _data(cp)
    cases = [((x[::-1], y), {}, "Expect x to be a 1D strictly increasing sequence."),
             ((cp.asarray([0.0, 1.0, 1.0, 2.0, 3.0]), y[:5]), {},
              "Expect x to not have duplicates"),
             ((x, y[:9]), {}, r"Shapes of x \(10,\) and y \(9,\) are incompatible"),
             ((x, y), {"bc_type": "foo"}, "Unknown boundary condition : foo"),
             ((x, y), {"bc_type": "periodic"},
              "First and last points does not match while periodic case expected"),
             ((x, y * cp.nan), {}, "Array must not contain infs or nans.")]
    for args, kwargs, message in cases:
        with pytest.raises(ValueError, match=f"^{message}$"):
            interp.CubicSpline(*args, **kwargs)


def test_cubic_spline_periodic_extrapolates_past_the_periodic_knots(cp, interp):
    # extrapolate=None -> True (not 'periodic') for n > 3: periodic only as far as the
    # periodic knots reach (3 intervals past the ends)
    x = cp.arange(10.0)
    y = cp.cos(x * 2 * numpy.pi / 9)
    cs = interp.CubicSpline(x, y, bc_type="periodic")
    assert cs.extrapolate is True
    v = cs(cp.asarray([1.0, 10.0, 28.0])).get()
    assert abs(v[1] - v[0]) < 1e-12
    assert abs(v[2] - v[0]) > 1.0


def test_cubic_spline_small_cases(cp, interp):
    # n == 2: s = r_[slope, slope], a straight line whatever bc_type; n == 3 with
    # conditions other than not-a-knot/periodic: ``s`` unbound in CuPy's code
    x, y, xh, yh = _data(cp)
    line = interp.CubicSpline(x[:2], y[:2], bc_type="clamped")(cp.asarray([0.5]))
    assert abs(float(line[0]) - yh[1] / 2) < 1e-14
    with pytest.raises(UnboundLocalError):
        interp.CubicSpline(x[:3], y[:3], bc_type="natural")
    three = interp.CubicSpline(x[:3], y[:3])
    assert three.c.shape == (4, 2)
    assert abs(float(three(cp.asarray(0.5))) -
               scipy.interpolate.CubicSpline(xh[:3], yh[:3])(0.5)) < 1e-14


# --- make_interp_spline / make_lsq_spline (cupyx/scipy/interpolate/_bspline2.py) ------

def test_make_interp_spline_solved_spline_has_axis_0(cp, interp):
    # the last line: ``return BSpline(t, coef, k)``: axis 0 whatever ``axis`` was
    x, y, _, _ = _data(cp)
    spl = interp.make_interp_spline(x, cp.stack([y, 2 * y]), axis=1)
    assert spl.axis == 0
    assert spl(cp.asarray([0.5, 1.5, 2.5])).shape == (3, 2)
    # k=1 (and k=0) keep it: construct_fast(t, c, k, axis=axis)
    lin = interp.make_interp_spline(x, cp.stack([y, 2 * y]), k=1, axis=1)
    assert lin.axis == 1 and lin(cp.asarray([0.5, 1.5, 2.5])).shape == (2, 3)


def test_make_lsq_spline_checks(cp, interp):
    x, y, xh, yh = _data(cp)
    t = cp.asarray(numpy.r_[[0.0] * 4, 5.0, [9.0] * 4])
    # x must be strictly increasing, checked first ("Expect x to be a 1-D sorted
    # array_like."; SciPy's 'qr' takes repeated x)
    with pytest.raises(ValueError, match="^Expect x to be a 1-D sorted array_like.$"):
        interp.make_lsq_spline(cp.asarray(numpy.r_[0.0, xh]), cp.asarray(numpy.r_[0.0, yh]), t)
    with pytest.raises(ValueError, match="^Expect t to be a 1-D sorted array_like.$"):
        interp.make_lsq_spline(x, y, t[::-1])
    with pytest.raises(ValueError, match="^method='norm-eq' is not supported.$"):
        interp.make_lsq_spline(x, y, t, method="norm-eq")
    q = numpy.linspace(0, 9, 7)
    numpy.testing.assert_allclose(
        interp.make_lsq_spline(x, y, t)(cp.asarray(q)).get(),
        scipy.interpolate.make_lsq_spline(xh, yh, t.get())(q), rtol=1e-10, atol=1e-12)


# --- _polyint.py: y.shape read first (_Interpolator1D._set_yi) ------------------------

def test_polyint_refuse_lists(cp, interp):
    x, y, _, _ = _data(cp, 3)
    lst = [1.0, 2.0, 3.0]
    for make in (lambda: interp.interp1d(x, lst), lambda: interp.interp1d(lst, lst),
                 lambda: interp.BarycentricInterpolator(x, lst),
                 lambda: interp.KroghInterpolator(x, lst),
                 lambda: interp.barycentric_interpolate(x, lst, x),
                 lambda: interp.krogh_interpolate(x, lst, x)):
        with pytest.raises(AttributeError, match="'list' object has no attribute 'shape'"):
            make()
    # (then ``xi.astype(cupy.float64)``)
    with pytest.raises(AttributeError, match="'list' object has no attribute 'astype'"):
        interp.KroghInterpolator(lst, y)
    # x a list, y an array: interp1d's cupy.array(x) takes it
    yh = y.get()
    assert float(interp.interp1d(lst, y)(1.5)) == pytest.approx((yh[0] + yh[1]) / 2)


# --- keywords CuPy's signatures lack ---------------------------------------------------

def test_keywords_cupy_lacks(cp, interp):
    x, y, _, _ = _data(cp)
    cases = [(lambda: interp.Akima1DInterpolator(x, y, method="makima"),
              "Akima1DInterpolator.__init__() got an unexpected keyword argument 'method'"),
             (lambda: interp.Akima1DInterpolator(x, y, extrapolate=True),
              "Akima1DInterpolator.__init__() got an unexpected keyword argument "
              "'extrapolate'"),
             (lambda: interp.BarycentricInterpolator(x, y, rng=0),
              "BarycentricInterpolator.__init__() got an unexpected keyword argument 'rng'"),
             (lambda: interp.barycentric_interpolate(x, y, x, der=1),
              "barycentric_interpolate() got an unexpected keyword argument 'der'"),
             (lambda: interp.RegularGridInterpolator((x,), y, solver=None),
              "RegularGridInterpolator.__init__() got an unexpected keyword argument "
              "'solver'"),
             (lambda: interp.UnivariateSpline(x, y, check_finite=True),
              "UnivariateSpline.__init__() got an unexpected keyword argument "
              "'check_finite'")]
    for make, message in cases:
        with pytest.raises(TypeError) as info:
            make()
        assert str(info.value) == message
    # (Akima's extrapolate is always False: NaN outside)
    assert numpy.isnan(float(interp.Akima1DInterpolator(x, y)(cp.asarray(20.0))))


def test_univariate_splines_refuse_weights(cp, interp):
    # _fitpack_repro.py: "weighted spline fitting is not implemented"
    x, y, _, _ = _data(cp)
    for make in (lambda: interp.UnivariateSpline(x, y, w=cp.ones(10)),
                 lambda: interp.InterpolatedUnivariateSpline(x, y, w=cp.ones(10)),
                 lambda: interp.LSQUnivariateSpline(x, y, cp.asarray([3.0, 6.0]),
                                                    w=cp.ones(10))):
        with pytest.raises(NotImplementedError,
                           match="^weighted spline fitting is not implemented$"):
            make()
    assert interp.InterpolatedUnivariateSpline(x, y)(cp.asarray([2.0])).shape == (1,)


# --- _rgi.py ---------------------------------------------------------------------------

def test_regular_grid_checks(cp, interp):
    x, y, xh, yh = _data(cp)
    with pytest.raises(AttributeError, match="'list' object has no attribute 'dtype'"):
        interp.RegularGridInterpolator((x,), yh.tolist())
    with pytest.raises(AttributeError, match="'list' object has no attribute 'ndim'"):
        interp.interpn((x,), yh.tolist(), cp.asarray([[0.5]]))
    with pytest.raises(ValueError) as info:
        interp.interpn((x, x), cp.ones((10, 10)), cp.asarray([[0.5, 0.5]]),
                       method="splinef2d")
    assert str(info.value) == ("interpn only understands the methods 'linear', 'nearest', "
                               "'slinear', 'cubic', 'quintic' and 'pchip'. "
                               "You provided {method}.")
    rgi = interp.RegularGridInterpolator((x,), y)
    with pytest.raises(ValueError, match=r"got method='linear'\.$"):
        rgi(cp.asarray([[0.5]]), nu=(1,))
    got = interp.interpn((x,), y, cp.asarray([[0.5], [2.25]]), method="cubic")
    # (CuPy solves the not-a-knot spline exactly, ``spsolve``; SciPy's interpn iterates,
    # ``gcrotmk`` to 1e-5: the GPU's 0.5017472818965218 is make_interp_spline's)
    numpy.testing.assert_allclose(
        got.get(), scipy.interpolate.make_interp_spline(xh, yh, k=3)([0.5, 2.25]),
        rtol=1e-10)
    assert rgi(cp.asarray([[0.5]]), method="cubic", nu=(1,)).shape == (1,)
