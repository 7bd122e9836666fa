"""An n-body step and a 2-D heat stencil written as CUDA C (a RawModule with shared-
memory tiling, a RawKernel with atomicAdd), histograms with bincount/histogram/
histogram2d, each checked against NumPy.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy

code = r'''
extern "C" {
__global__ void accel(const double4* pos, double3* acc, int n, double eps2) {
    extern __shared__ double4 tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double4 pi = i < n ? pos[i] : make_double4(0, 0, 0, 0);
    double3 a = make_double3(0, 0, 0);
    for (int start = 0; start < n; start += blockDim.x) {
        int j = start + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_double4(0, 0, 0, 0);
        __syncthreads();
        for (int k = 0; k < blockDim.x && start + k < n; ++k) {
            double4 pj = tile[k];
            double dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            double inv = rsqrt(r2);
            double s = pj.w * inv * inv * inv;
            a.x += dx * s; a.y += dy * s; a.z += dz * s;
        }
        __syncthreads();
    }
    if (i < n) acc[i] = a;
}

__global__ void kinetic(const double* vel, const double* mass, double* total, int n) {
    __shared__ double part[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double e = 0;
    if (i < n) {
        double vx = vel[3 * i], vy = vel[3 * i + 1], vz = vel[3 * i + 2];
        e = 0.5 * mass[i] * (vx * vx + vy * vy + vz * vz);
    }
    part[threadIdx.x] = e;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(total, part[0]);
}
}
'''
mod = cupy.RawModule(code=code)
accel = mod.get_function("accel")
kinetic = mod.get_function("kinetic")

rs = numpy.random.RandomState(3)
n = 300
pos_h = numpy.empty((n, 4))
pos_h[:, :3] = rs.randn(n, 3)
pos_h[:, 3] = rs.uniform(0.5, 1.5, n)
vel_h = 0.1 * rs.randn(n, 3)
eps2 = 1e-2


def accel_numpy(p):
    d = p[None, :, :3] - p[:, None, :3]
    r2 = (d ** 2).sum(-1) + eps2
    return (d * (p[None, :, 3] * r2 ** -1.5)[:, :, None]).sum(1)


pos = cupy.asarray(pos_h)
vel = cupy.asarray(vel_h)
acc = cupy.empty((n, 3))
threads = 128
blocks = (n + threads - 1) // threads
dt = 1e-3
for step in range(5):
    accel((blocks,), (threads,), (pos, acc, cupy.int32(n), cupy.float64(eps2)),
          shared_mem=threads * 32)
    a_h = accel_numpy(pos_h)
    numpy.testing.assert_allclose(acc.get(), a_h, rtol=1e-9, atol=1e-9)
    vel += dt * acc
    pos[:, :3] += dt * vel
    vel_h += dt * a_h
    pos_h[:, :3] += dt * vel_h
numpy.testing.assert_allclose(pos.get(), pos_h, rtol=1e-12, atol=1e-12)
total = cupy.zeros(1)
kinetic((blocks,), (threads,), (vel, pos[:, 3].copy(), total, cupy.int32(n)))
numpy.testing.assert_allclose(float(total[0]), 0.5 * (pos_h[:, 3] * (vel_h ** 2).sum(1)).sum(), rtol=1e-12)

# a heat-equation stencil in a RawKernel, ping-ponging two buffers
stencil = cupy.RawKernel(r'''
extern "C" __global__ void step(const float* u, float* v, int ny, int nx, float r) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) { v[i] = u[i]; return; }
    v[i] = u[i] + r * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0f * u[i]);
}
''', "step")
ny, nx = 40, 50
u_h = numpy.zeros((ny, nx), numpy.float32)
u_h[15:25, 20:30] = 100
u = cupy.asarray(u_h)
v = cupy.empty_like(u)
for _ in range(20):
    stencil(((nx + 15) // 16, (ny + 15) // 16), (16, 16), (u, v, numpy.int32(ny), numpy.int32(nx), numpy.float32(0.2)))
    u, v = v, u
    w = u_h.copy()
    w[1:-1, 1:-1] = u_h[1:-1, 1:-1] + numpy.float32(0.2) * (u_h[1:-1, :-2] + u_h[1:-1, 2:] + u_h[:-2, 1:-1] + u_h[2:, 1:-1] - numpy.float32(4) * u_h[1:-1, 1:-1])
    u_h = w
numpy.testing.assert_allclose(u.get(), u_h, rtol=1e-5, atol=1e-4)

# histograms of the result
speeds = cupy.linalg.norm(vel, axis=1)
counts, edges = cupy.histogram(speeds, bins=12)
counts_h, edges_h = numpy.histogram(numpy.linalg.norm(vel_h, axis=1), bins=12)
assert counts.dtype == numpy.int64 and (counts.get() == counts_h).all()
numpy.testing.assert_allclose(edges.get(), edges_h, rtol=1e-12)
bins = cupy.digitize(speeds, edges[1:-1])
assert (cupy.bincount(bins, minlength=12).get() == counts_h).all()
wsum = cupy.bincount(bins, weights=pos[:, 3], minlength=12)
numpy.testing.assert_allclose(wsum.get(), numpy.bincount(numpy.digitize(numpy.linalg.norm(vel_h, axis=1), edges_h[1:-1]), weights=pos_h[:, 3], minlength=12), rtol=1e-12)
H, xe, ye = cupy.histogram2d(pos[:, 0], pos[:, 1], bins=8, range=[[-3, 3], [-3, 3]])
Hh, _, _ = numpy.histogram2d(pos_h[:, 0], pos_h[:, 1], bins=8, range=[[-3, 3], [-3, 3]])
assert H.dtype == numpy.float64 and (H.get() == Hh).all()
hot = cupy.histogram(u, bins=5, range=(0.0, 100.0), density=True)[0]
numpy.testing.assert_allclose(hot.get(), numpy.histogram(u_h, bins=5, range=(0.0, 100.0), density=True)[0], rtol=1e-6)

# mistakes
try:
    cupy.bincount(cupy.array([1, -1, 2]))
except ValueError as e:
    # cupy/_statistics/histogram.py: bincount
    assert str(e) == "The first argument of bincount must be non-negative", str(e)
else:
    raise AssertionError("negative bincount input not refused")
try:
    cupy.bincount(cupy.array([0.5, 1.0]))
except TypeError as e:
    assert str(e) == "x must be int array", str(e)
else:
    raise AssertionError("float bincount input not refused")
try:
    mod.get_function("no_such_kernel")
except cupy.cuda.driver.CUDADriverError as e:
    assert str(e) == "CUDA_ERROR_NOT_FOUND: named symbol not found", str(e)
else:
    raise AssertionError("a missing kernel not refused")
print("nbody OK")
