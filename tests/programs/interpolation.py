"""Interpolation and polynomials: resampling irregular measurements with cupy.interp
(a periodic phase too) and interp1d of several kinds, a cubic spline with its
derivatives and integral, shape-preserving PCHIP and Akima curves, a B-spline through
the data, a 2-D lookup table with RegularGridInterpolator and interpn, a scattered-data
RBF fit, and polynomial fits evaluated with polyval, poly1d arithmetic, companion-matrix
roots and cupy.polynomial, each checked against NumPy/SciPy on the host; and the
mistakes users make (a query outside the table, unsorted knots, a non-contiguous query,
the roots of a non-symmetric companion matrix, a fractional power of a poly1d), with the
errors CuPy raises.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
from cupyx.scipy import interpolate
from scipy import interpolate as sint

rs = numpy.random.RandomState(11)
x_h = numpy.sort(rs.uniform(0, 10, 40))
x_h[0], x_h[-1] = 0.0, 10.0
y_h = numpy.sin(x_h) + 0.1 * x_h
x, y = cupy.asarray(x_h), cupy.asarray(y_h)
q_h = numpy.linspace(0, 10, 257)
q = cupy.asarray(q_h)

# cupy.interp: float64 out, the left/right values cast to fp's dtype first
# (cupy/_math/misc.py: interp, cupy.array(left, fp.dtype))
lin = cupy.interp(q, x, y)
assert lin.dtype == numpy.float64
numpy.testing.assert_allclose(lin.get(), numpy.interp(q_h, x_h, y_h), rtol=1e-13)
fp_int = cupy.arange(5) * 10
out = cupy.interp(cupy.asarray([-1.0, 0.5, 9.0]), cupy.arange(5.0), fp_int, left=-2.5, right=99.9)
assert out.dtype == numpy.float64
assert out.get().tolist() == [-2.0, 5.0, 99.0], out  # (NumPy's: -2.5 and 99.9)
f32 = cupy.interp(q.astype(cupy.float32), x, y.astype(cupy.float32))
assert f32.dtype == numpy.float64
ang = cupy.asarray([350.0, 10.0, 30.0, 190.0])
val = cupy.asarray([1.0, 3.0, 5.0, 0.0])
per = cupy.interp(cupy.asarray([0.0, 355.0, 100.0]), ang, val, period=360)
numpy.testing.assert_allclose(per.get(), numpy.interp([0.0, 355.0, 100.0], ang.get(), val.get(), period=360))

# interp1d of several kinds, and fill values outside the data
for kind in ("linear", "nearest", "previous", "next", "quadratic", "cubic"):
    f = interpolate.interp1d(x, y, kind=kind)
    g = sint.interp1d(x_h, y_h, kind=kind)
    numpy.testing.assert_allclose(f(q).get(), g(q_h), rtol=1e-9, atol=1e-12, err_msg=kind)
f_out = interpolate.interp1d(x, y, bounds_error=False, fill_value=(-1.0, 2.0))
assert f_out(cupy.asarray([-3.0, 12.0])).get().tolist() == [-1.0, 2.0]
f_ext = interpolate.interp1d(x, y, fill_value="extrapolate")
numpy.testing.assert_allclose(f_ext(cupy.asarray([-0.5, 10.5])).get(),
                              sint.interp1d(x_h, y_h, fill_value="extrapolate")([-0.5, 10.5]), rtol=1e-12)

# a cubic spline: value, slope, curvature and area
cs = interpolate.CubicSpline(x, y, bc_type="natural")
cs_h = sint.CubicSpline(x_h, y_h, bc_type="natural")
for nu in (0, 1, 2):
    numpy.testing.assert_allclose(cs(q, nu).get(), cs_h(q_h, nu), rtol=1e-8, atol=1e-10, err_msg=str(nu))
assert abs(float(cs.integrate(0, 10)) - cs_h.integrate(0, 10)) < 1e-9
# CuPy's CubicSpline of 4 points or more is make_interp_spline's B-spline as a piecewise
# polynomial (cupyx/scipy/interpolate/_cubic.py): its breakpoints are the knots, the
# ends repeated, where SciPy's are the data's x
cs_ref = sint.PPoly.from_spline(sint.make_interp_spline(x_h, y_h, k=3, bc_type="natural").tck)
assert cs.c.shape == cs_ref.c.shape == (4, 45) and cs.x.shape == (46,)
numpy.testing.assert_allclose(cs.c.get(), cs_ref.c, rtol=1e-8, atol=1e-10)
d = cs.derivative()
numpy.testing.assert_allclose(d(q).get(), cs_h(q_h, 1), rtol=1e-8, atol=1e-10)
r = cs.solve(0.5)  # where the spline crosses 0.5
numpy.testing.assert_allclose(numpy.sort(r.get()), numpy.sort(cs_h.solve(0.5)), rtol=1e-8)
per_y = cupy.sin(cupy.linspace(0, 2 * numpy.pi, 17))
per_y[-1] = per_y[0]
cs_p = interpolate.CubicSpline(cupy.linspace(0, 2 * numpy.pi, 17), per_y, bc_type="periodic")
numpy.testing.assert_allclose(cs_p(cupy.asarray([0.3]) + 2 * numpy.pi).get(), cs_p(cupy.asarray([0.3])).get(),
                              rtol=1e-12)

# shape-preserving curves through monotone data: no overshoot
steps_h = numpy.array([0.0, 0.1, 0.15, 2.0, 2.05, 2.1, 5.0])
xs_h = numpy.arange(7.0)
steps, xs = cupy.asarray(steps_h), cupy.asarray(xs_h)
fine_h = numpy.linspace(0, 6, 121)
fine = cupy.asarray(fine_h)
pch = interpolate.PchipInterpolator(xs, steps)(fine)
numpy.testing.assert_allclose(pch.get(), sint.PchipInterpolator(xs_h, steps_h)(fine_h), rtol=1e-12, atol=1e-14)
assert bool((cupy.diff(pch) >= 0).all())
ak = interpolate.Akima1DInterpolator(xs, steps)(fine)
numpy.testing.assert_allclose(ak.get(), sint.Akima1DInterpolator(xs_h, steps_h)(fine_h), rtol=1e-12, atol=1e-14)
bs = interpolate.make_interp_spline(x, y, k=3)
bs_h = sint.make_interp_spline(x_h, y_h, k=3)
numpy.testing.assert_allclose(bs(q).get(), bs_h(q_h), rtol=1e-8, atol=1e-10)
numpy.testing.assert_allclose(bs.t.get(), bs_h.t)

# a 2-D lookup table (say, efficiency by speed and load)
sp_h = numpy.linspace(0, 100, 11)
ld_h = numpy.linspace(0, 1, 6)
table_h = numpy.add.outer(numpy.sqrt(sp_h), ld_h ** 2) + numpy.outer(sp_h, ld_h) / 50
rgi = interpolate.RegularGridInterpolator((cupy.asarray(sp_h), cupy.asarray(ld_h)), cupy.asarray(table_h))
pts_h = numpy.column_stack([rs.uniform(0, 100, 50), rs.uniform(0, 1, 50)])
pts = cupy.asarray(pts_h)
rgi_h = sint.RegularGridInterpolator((sp_h, ld_h), table_h)
numpy.testing.assert_allclose(rgi(pts).get(), rgi_h(pts_h), rtol=1e-12)
numpy.testing.assert_allclose(rgi(pts, method="nearest").get(), rgi_h(pts_h, method="nearest"))
numpy.testing.assert_allclose(
    interpolate.interpn((cupy.asarray(sp_h), cupy.asarray(ld_h)), cupy.asarray(table_h), pts, method="cubic").get(),
    # (CuPy solves the cubic spline's system exactly; SciPy's default iterative solver
    # stops near 1e-5, and an H200 gave values 1e-5 apart from SciPy's)
    sint.interpn((sp_h, ld_h), table_h, pts_h, method="cubic"), rtol=1e-4)

# scattered samples: an RBF surface
sc_h = rs.uniform(-1, 1, (60, 2))
zv_h = numpy.exp(-(sc_h ** 2).sum(1))
rbf = interpolate.RBFInterpolator(cupy.asarray(sc_h), cupy.asarray(zv_h), kernel="thin_plate_spline")
grid_h = numpy.stack(numpy.meshgrid(numpy.linspace(-0.8, 0.8, 9), numpy.linspace(-0.8, 0.8, 9)), -1).reshape(-1, 2)
rb = rbf(cupy.asarray(grid_h))
numpy.testing.assert_allclose(rb.get(), sint.RBFInterpolator(sc_h, zv_h, kernel="thin_plate_spline")(grid_h),
                              rtol=1e-7, atol=1e-9)
assert float(cupy.abs(rb - cupy.exp(-(cupy.asarray(grid_h) ** 2).sum(1))).max()) < 0.02

# polynomials: a least-squares fit and evaluation
c = cupy.polyfit(x, y, 5)
c_h = numpy.polyfit(x_h, y_h, 5)
numpy.testing.assert_allclose(c.get(), c_h, rtol=1e-7, atol=1e-10)
numpy.testing.assert_allclose(cupy.polyval(c, q).get(), numpy.polyval(c_h, q_h), rtol=1e-9, atol=1e-10)
p = cupy.poly1d(cupy.asarray([1.0, -3.0, 2.0]))  # (x - 1)(x - 2)
p_h = numpy.poly1d([1.0, -3.0, 2.0])
assert p.order == 2 and p(3.0) == 2.0
numpy.testing.assert_allclose((p * p + p - 1).coeffs.get(), (p_h * p_h + p_h - 1).coeffs)
numpy.testing.assert_allclose((p ** 3).coeffs.get(), (p_h ** 3).coeffs)
numpy.testing.assert_allclose((p / 2).coeffs.get(), [0.5, -1.5, 1.0])
# roots: CuPy's companion matrices must be symmetric (cupy/lib/_routines_poly.py: roots)
rt = cupy.roots(cupy.asarray([2.0, -4.0]))
assert rt.get().tolist() == [2.0]
rt2 = cupy.roots(cupy.asarray([1.0, 0.0, -1.0]))  # companion [[0, 1], [1, 0]]: symmetric
assert sorted(rt2.get().tolist()) == [-1.0, 1.0]
# (CuPy's poly multiplies the factors by FFT convolution: a few ulps off)
numpy.testing.assert_allclose(cupy.poly(cupy.asarray([1.0, 2.0])).get(), [1.0, -3.0, 2.0], rtol=1e-14)
P = cupy.polynomial.polynomial
V = P.polyvander(x, 3)
numpy.testing.assert_allclose(V.get(), numpy.polynomial.polynomial.polyvander(x_h, 3), rtol=1e-14)
coef = cupy.linalg.lstsq(V, y, rcond=None)[0]
numpy.testing.assert_allclose(P.polyval(q, coef).get(),
                              numpy.polynomial.polynomial.polyval(q_h, coef.get()), rtol=1e-12, atol=1e-12)
numpy.testing.assert_allclose(P.polyvalfromroots(q, cupy.asarray([1.0, 2.0])).get(), p_h(q_h), rtol=1e-12, atol=1e-12)
numpy.testing.assert_allclose(P.polycompanion(cupy.asarray([2.0, -3.0, 1.0])).get(),
                              numpy.polynomial.polynomial.polycompanion([2.0, -3.0, 1.0]))

# the mistakes
try:
    interpolate.interp1d(x, y)(cupy.asarray([5.0, 11.0]))
except ValueError as e:
    # cupyx/scipy/interpolate/_polyint.py: interp1d._check_bounds
    assert str(e) == ("A value (11.0) in x_new is above the interpolation range's "
                      "maximum value (10.0)."), str(e)
else:
    raise AssertionError("a query above the range not refused")
try:
    rgi(cupy.asarray([[50.0, 1.5]]))
except ValueError as e:
    # cupyx/scipy/interpolate/_rgi.py: _prepare_xi
    assert str(e) == "One of the requested xi is out of bounds in dimension 1", str(e)
else:
    raise AssertionError("a point outside the table not refused")
try:
    interpolate.CubicSpline(x[::-1], y)
except ValueError as e:
    # cupyx/scipy/interpolate/_cubic.py: 4 points or more go to make_interp_spline
    assert str(e) == "Expect x to be a 1D strictly increasing sequence.", str(e)
else:
    raise AssertionError("decreasing knots not refused")
try:
    cupy.interp(q[::2], x, y)
except NotImplementedError as e:
    # cupy/_math/misc.py: interp
    assert str(e) == "Non-C-contiguous x is currently not supported", str(e)
else:
    raise AssertionError("a strided query taken")
try:
    cupy.roots(cupy.asarray([1.0, -6.0, 11.0, -6.0]))
except NotImplementedError as e:
    # cupy/lib/_routines_poly.py: roots
    assert str(e) == "Only complex Hermitian and real symmetric 2d arrays are supported currently", str(e)
else:
    raise AssertionError("a non-symmetric companion matrix taken")
try:
    p ** 1.5
except ValueError as e:
    # cupy/lib/_polynomial.pyx: poly1d.__pow__
    assert str(e) == "Power to non-negative integers only.", str(e)
else:
    raise AssertionError("a fractional power taken")
print("interpolation OK")
