"""Image processing: smoothing, edges, connected components and their measurements,
resampling with zoom/affine_transform/rotate, morphology and an FFT convolution
(cupyx.scipy.ndimage, cupyx.scipy.signal), each checked against SciPy on the host.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
import scipy.ndimage as sndi
import scipy.signal as ssig
import cupyx.scipy.ndimage as ndi
import cupyx.scipy.signal as signal

rs = numpy.random.RandomState(0)
yy, xx = numpy.mgrid[0:96, 0:128]
img_h = numpy.zeros((96, 128), numpy.float32)
for cy, cx, r in [(20, 30, 10), (60, 90, 14), (70, 25, 8), (25, 100, 6)]:
    img_h[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = 1.0
img_h += 0.05 * rs.randn(*img_h.shape).astype(numpy.float32)
img = cupy.asarray(img_h)

# denoise, threshold, label and measure
smooth = ndi.gaussian_filter(img, sigma=1.5)
assert smooth.dtype == numpy.float32
numpy.testing.assert_allclose(smooth.get(), sndi.gaussian_filter(img_h, 1.5), atol=1e-5)
mask = smooth > 0.5
labels, n = ndi.label(mask)
labels_h, n_h = sndi.label(mask.get())
assert n == n_h == 4 and labels.dtype == numpy.int32
assert (labels.get() == labels_h).all()
idx = cupy.arange(1, n + 1)
areas = ndi.sum_labels(cupy.ones_like(img), labels, idx)
numpy.testing.assert_allclose(areas.get(), sndi.sum_labels(numpy.ones_like(img_h), labels_h, numpy.arange(1, n + 1)))
coms = ndi.center_of_mass(mask.astype(cupy.float32), labels, idx)
coms_h = sndi.center_of_mass(mask.get(), labels_h, list(range(1, n + 1)))
assert isinstance(coms, list) and all(isinstance(c, cupy.ndarray) and c.shape == (2,) for c in coms)
numpy.testing.assert_allclose(cupy.stack(coms).get(), numpy.array(coms_h), rtol=1e-6)
try:
    ndi.center_of_mass(mask, labels, [1, 2])
except TypeError as e:
    # cupyx/scipy/ndimage/_measurements.py: sum_labels (a list is no index)
    assert str(e) == "index must be cupy.ndarray or a scalar int", str(e)
else:
    raise AssertionError("a list index not refused")
maxs = ndi.maximum(smooth, labels, idx)
numpy.testing.assert_allclose(maxs.get(), sndi.maximum(smooth.get(), labels_h, numpy.arange(1, n + 1)), rtol=1e-6)
objs = ndi.find_objects(labels)
assert objs == sndi.find_objects(labels_h)

# edges
sx = ndi.sobel(smooth, axis=1)
sy = ndi.sobel(smooth, axis=0)
mag = cupy.hypot(sx, sy)
mag_h = numpy.hypot(sndi.sobel(smooth.get(), axis=1), sndi.sobel(smooth.get(), axis=0))
numpy.testing.assert_allclose(mag.get(), mag_h, atol=1e-5)
lap = ndi.laplace(img.astype(cupy.float64), mode="reflect")
numpy.testing.assert_allclose(lap.get(), sndi.laplace(img_h.astype(numpy.float64), mode="reflect"), atol=1e-12)
med = ndi.median_filter(img, size=3)
numpy.testing.assert_array_equal(med.get(), sndi.median_filter(img_h, size=3))

# a smoothing periodic along x only: one boundary mode per axis
g1 = numpy.array([1.0, 2.0, 1.0]) / 4
cyl = ndi.correlate(img, cupy.asarray(numpy.outer(g1, g1), dtype=cupy.float32), mode=("reflect", "wrap"))
cyl_h = sndi.correlate1d(sndi.correlate1d(img_h, g1, 0, mode="reflect"), g1, 1, mode="wrap")
numpy.testing.assert_allclose(cyl.get(), cyl_h, atol=1e-5)

# morphology
opened = ndi.binary_opening(mask, structure=cupy.ones((3, 3), bool), iterations=2)
assert (opened.get() == sndi.binary_opening(mask.get(), structure=numpy.ones((3, 3), bool), iterations=2)).all()
filled = ndi.binary_fill_holes(mask)
assert (filled.get() == sndi.binary_fill_holes(mask.get())).all()
dist = ndi.distance_transform_edt(mask)
numpy.testing.assert_allclose(dist.get(), sndi.distance_transform_edt(mask.get()), rtol=1e-6)

# resampling
small = ndi.zoom(smooth, 0.5, order=1)
numpy.testing.assert_allclose(small.get(), sndi.zoom(smooth.get(), 0.5, order=1), atol=1e-5)
assert small.shape == (48, 64)
big = ndi.zoom(smooth, 2, order=3, mode="nearest", grid_mode=False)
numpy.testing.assert_allclose(big.get(), sndi.zoom(smooth.get(), 2, order=3, mode="nearest"), atol=1e-4)
theta = numpy.deg2rad(10)
m = numpy.array([[numpy.cos(theta), -numpy.sin(theta)], [numpy.sin(theta), numpy.cos(theta)]])
off = numpy.array([48, 64]) - m @ numpy.array([48, 64])
warped = ndi.affine_transform(smooth, cupy.asarray(m), offset=off, order=1)
numpy.testing.assert_allclose(warped.get(), sndi.affine_transform(smooth.get(), m, offset=off, order=1), atol=1e-4)
rot = ndi.rotate(img, 30, reshape=True, order=1)
rot_h = sndi.rotate(img_h, 30, reshape=True, order=1)
assert rot.shape == rot_h.shape
numpy.testing.assert_allclose(rot.get(), rot_h, atol=1e-4)
shifted = ndi.shift(smooth, (2.5, -3.25), order=1, mode="constant", cval=0.0)
numpy.testing.assert_allclose(shifted.get(), sndi.shift(smooth.get(), (2.5, -3.25), order=1), atol=1e-5)

# FFT convolution and correlation (template matching)
kern_h = numpy.outer(ssig.windows.hann(9), ssig.windows.hann(9)).astype(numpy.float32)
kern = cupy.asarray(kern_h)
conv = signal.fftconvolve(img, kern, mode="same")
numpy.testing.assert_allclose(conv.get(), ssig.fftconvolve(img_h, kern_h, mode="same"), atol=2e-4)
tmpl = img[10:31, 20:41]
corr = signal.correlate(img - img.mean(), tmpl - tmpl.mean(), mode="same", method="fft")
peak = numpy.unravel_index(int(cupy.argmax(corr)), corr.shape)
assert peak == (20, 30), peak
c2d = signal.convolve2d(img, kern[:3, :3], mode="valid", boundary="fill")
numpy.testing.assert_allclose(c2d.get(), ssig.convolve2d(img_h, kern_h[:3, :3], mode="valid"), atol=1e-5)

# mistakes
try:
    ndi.gaussian_filter(img, sigma=(1.0, 1.0, 1.0))
except RuntimeError as e:
    # cupyx/scipy/ndimage/_util.py: _fix_sequence_arg
    assert str(e) == "sigma must have length equal to input rank", str(e)
else:
    raise AssertionError("sigma of the wrong length not refused")
try:
    ndi.zoom(img, 2, order=6)
except ValueError as e:
    # cupyx/scipy/ndimage/_interpolation.py: _check_parameter
    assert str(e) == "spline order is not supported", str(e)
else:
    raise AssertionError("order 6 not refused")
print("imaging OK")
