"""``cupyx.jit.rawkernel`` through gpushare: Python kernels transpiled to CUDA C++ on
the client and launched as RawKernels on a real server (the ``cp`` fixture); results
are checked against NumPy."""
from __future__ import annotations

import numpy
import pytest

import gpushare.cupyx.jit as jit
from gpushare.cupyx import _jit_compile

pytestmark = pytest.mark.timeout(180)

# ``cupy`` inside kernel bodies is gpushare's module, as in a program run under gpushare
import gpushare.cupy as cupy  # noqa: E402


# --- kernels (module level: the transpiler reads their source) -------------------------
@jit.rawkernel()
def elementwise_add(x, y, z, size):
    tid = jit.grid(1)
    if tid < size:
        z[tid] = x[tid] + y[tid]


@jit.rawkernel()
def scale_2d(x, y, alpha):
    i, j = jit.grid(2)
    if i < x.shape[0] and j < x.shape[1]:
        y[i, j] = alpha * x[i, j] + i - j


@jit.rawkernel()
def grid_stride(x, y, size):
    start = jit.grid(1)
    step = jit.gridsize(1)
    for i in range(start, size, step):
        v = x[i]
        # CuPy's transpiler refuses abs() and math.* on run-time values
        y[i] = cupy.sqrt(cupy.absolute(v)) + cupy.exp(v * 0.5) if v > 0 else v * v


BLOCK = 128


@jit.rawkernel()
def block_sum(x, out, size):
    smem = jit.shared_memory(numpy.float64, BLOCK)
    tid = jit.threadIdx.x
    acc = cupy.float64(0)
    for i in range(jit.blockIdx.x * jit.blockDim.x + tid, size,
                   jit.blockDim.x * jit.gridDim.x):
        acc += x[i]
    smem[tid] = acc
    jit.syncthreads()
    s = jit.blockDim.x // 2
    while s > 0:
        if tid < s:
            smem[tid] += smem[tid + s]
        jit.syncthreads()
        s //= 2
    if tid == 0:
        jit.atomic_add(out, 0, smem[0])


@jit.rawkernel()
def reverse_block(x, y):
    buf = jit.shared_memory(numpy.int32, None)   # extern (dynamic) shared memory
    tid = jit.threadIdx.x
    base = jit.blockIdx.x * jit.blockDim.x
    buf[tid] = x[base + tid]
    jit.syncthreads()
    y[base + tid] = buf[jit.blockDim.x - 1 - tid]


@jit.rawkernel()
def histogram(data, bins, nbins):
    i = jit.grid(1)
    if i < data.size:
        b = data[i] % nbins
        jit.atomic_add(bins, b, 1)


@jit.rawkernel()
def axpy(a, x, y, out):
    i = jit.grid(1)
    if i < len(x):
        out[i] = a * x[i] + y[i]


@jit.rawkernel()
def python_semantics(x, out):
    i = jit.grid(1)
    if i < x.shape[0]:
        v = x[i]
        out[i, 0] = v // 3
        out[i, 1] = v % 3
        out[i, 2] = -v // 4
        out[i, 3] = max(v, 2) + min(v, -2, 7)
        out[i, 4] = 1 if v > 0 and v != 5 else 0
        acc = 0
        for k in range(10, 0, -3):
            if k == 4:
                continue
            acc += k
        out[i, 5] = acc
        out[i, 6] = v ** 2


@jit.rawkernel(device=True)
def clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@jit.rawkernel()
def clamp_all(x, out):
    i = jit.grid(1)
    if i < x.size:
        out[i] = clamp(x[i], numpy.float32(-1), numpy.float32(1))


@jit.rawkernel()
def warp_sum(x, out):
    i = jit.grid(1)
    v = x[i]
    off = numpy.uint32(16)   # delta is unsigned (same_kind forbids int32 -> uint32)
    while off > 0:
        v += jit.shfl_down_sync(0xffffffff, v, off)
        off //= 2
    if jit.laneid() == 0:
        out[i // 32] = v


@jit.rawkernel()
def uses_lambda(x):
    f = lambda v: v + 1  # noqa: E731
    x[0] = f(x[0])


@jit.rawkernel()
def uses_slice(x, y):
    y[0] = x[1:3]


@jit.rawkernel()
def undefined_name(x):
    i = jit.grid(1)
    x[i] = not_defined_anywhere * 2  # noqa: F821


@jit.rawkernel()
def bad_cast(x, n):
    total = 0
    for i in range(n):
        total += x[i]   # float32 into an int32 variable: same_kind forbids it
    x[0] = total


@jit.rawkernel()
def block_group_info(x):
    g = jit.cg.this_thread_block()
    r = g.thread_rank()
    if r == 0:
        x[0] = g.size()
        x[1] = g.num_threads()
    if r == 5:
        gi = g.group_index()
        ti = g.thread_index()
        x[2], x[3], x[4] = gi.x, ti.x, ti.y
    if r == 6:
        d = g.group_dim()
        e = g.dim_threads()
        x[5], x[6], x[7] = d.x, d.y, e.z
    g.sync()
    jit.cg.sync(g)


@jit.rawkernel()
def grid_group_info(x):
    g = jit.cg.this_grid()
    r = g.thread_rank()
    if r < x.shape[0]:
        x[r, 0] = r
        x[r, 1] = g.size()
        x[r, 2] = g.block_rank()
        x[r, 3] = g.num_blocks()
        b = g.block_index()
        x[r, 4] = b.x
        x[r, 5] = g.dim_blocks().x


@jit.rawkernel()
def grid_group_sync(x):
    g = jit.cg.this_grid()
    x[g.thread_rank()] = 1
    g.sync()


@jit.rawkernel()
def staged_copy(x, y):
    smem = jit.shared_memory(numpy.int32, 64, alignment=16)
    g = jit.cg.this_thread_block()
    tid = g.thread_rank()
    jit.cg.memcpy_async(g, smem, 0, x, 0, 4 * 32, aligned_size=16)
    jit.cg.memcpy_async(g, smem, 32, x, 32, 4 * 32)
    jit.cg.wait_prior(g, 1)
    if tid < 32:
        y[tid] = smem[63 - tid]
    jit.cg.wait(g)


@jit.rawkernel()
def half_atomic(x, out, scale):
    i = jit.grid(1)
    if i < x.size:
        jit.atomic_add(out, i % 2, x[i] * scale)


@jit.rawkernel()
def shape_strides_in_block(arr, out):
    if jit.grid(1) == 0:
        shapes = arr.shape
        strides = arr.strides
        out[0], out[1] = shapes[0], shapes[1]
        out[2], out[3] = strides[0], strides[1]


@jit.rawkernel()
def unpack_int():
    x, = jit.grid(1)  # noqa: F841


@jit.rawkernel()
def kernel_returns(x):
    return x[0]


@jit.rawkernel()
def kernel_returns_unbound(x):
    return unknown_var  # noqa: F821


@jit.rawkernel(device=True)
def recurse(v):
    return v + recurse(v)


@jit.rawkernel()
def calls_recurse(x):
    x[0] = recurse(x[0])


# --- tests ---------------------------------------------------------------------------
def test_elementwise_add_with_bounds_check(cp) -> None:
    n = 1000
    x = numpy.arange(n, dtype=numpy.float32)
    y = numpy.linspace(0, 1, n, dtype=numpy.float32)
    dx, dy = cp.asarray(x), cp.asarray(y)
    dz = cp.zeros(n + 24, dtype=numpy.float32)    # the tail must stay untouched
    elementwise_add[(n + 127) // 128, 128](dx, dy, dz, n)
    got = dz.get()
    numpy.testing.assert_array_equal(got[:n], x + y)
    assert not got[n:].any()
    # again, the other call form, now pipelined
    dz2 = cp.zeros(n, dtype=numpy.float32)
    elementwise_add((8,), (128,), (dx, dy, dz2, n))
    numpy.testing.assert_array_equal(dz2.get(), x + y)
    code = elementwise_add.cached_code
    assert 'extern "C" __global__ void elementwise_add(' in code


def test_2d_kernel_with_multi_index_and_strided_input(cp) -> None:
    a = numpy.arange(37 * 23, dtype=numpy.float32).reshape(37, 23) / 7
    dx = cp.asarray(a)
    dy = cp.zeros((37, 23), dtype=numpy.float32)
    scale_2d[(5, 3), (8, 8)](dx, dy, 1.5)
    ii, jj = numpy.indices(a.shape)
    want = numpy.float32(1.5) * a + ii.astype(numpy.float32) - jj.astype(numpy.float32)
    numpy.testing.assert_allclose(dy.get(), want, rtol=1e-6)
    # a transposed (non-contiguous) view goes with its strides
    dxt = cp.asarray(a.T.copy()).T
    assert not dxt.flags.c_contiguous
    dy2 = cp.zeros((37, 23), dtype=numpy.float32)
    scale_2d[(5, 3), (8, 8)](dxt, dy2, 1.5)
    numpy.testing.assert_allclose(dy2.get(), want, rtol=1e-6)
    assert len(scale_2d.cached_codes) == 2


def test_grid_stride_loop(cp) -> None:
    n = 5000
    x = numpy.random.default_rng(0).standard_normal(n).astype(numpy.float32)
    dy = cp.empty(n, dtype=numpy.float32)
    grid_stride[4, 64](cp.asarray(x), dy, n)     # 256 threads for 5000 elements
    x64 = x.astype(numpy.float64)
    want = numpy.where(x > 0, numpy.sqrt(numpy.abs(x64)) + numpy.exp(x64 * 0.5), x64 * x64)
    numpy.testing.assert_allclose(dy.get(), want, rtol=1e-5)


def test_block_reduction_with_shared_memory(cp) -> None:
    n = 10_000
    x = numpy.random.default_rng(1).random(n)
    out = cp.zeros(1, dtype=numpy.float64)
    block_sum[8, BLOCK](cp.asarray(x), out, n)
    assert out.get()[0] == pytest.approx(x.sum(), rel=1e-12)
    assert "__shared__ double" in block_sum.cached_code


def test_dynamic_shared_memory(cp) -> None:
    nb, bs = 6, 64
    x = numpy.arange(nb * bs, dtype=numpy.int32)
    dy = cp.zeros(nb * bs, dtype=numpy.int32)
    reverse_block[nb, bs](cp.asarray(x), dy, shared_mem=bs * 4)
    numpy.testing.assert_array_equal(dy.get(), x.reshape(nb, bs)[:, ::-1].ravel())
    dy2 = cp.zeros(nb * bs, dtype=numpy.int32)
    reverse_block[nb, bs, bs * 4](cp.asarray(x), dy2)   # gpushare's 3-item form
    numpy.testing.assert_array_equal(dy2.get(), dy.get())
    assert "extern __shared__ int" in reverse_block.cached_code


def test_atomic_add_histogram(cp) -> None:
    data = numpy.random.default_rng(2).integers(0, 1000, 20_000).astype(numpy.int32)
    bins = cp.zeros(16, dtype=numpy.int32)
    histogram[(data.size + 255) // 256, 256](cp.asarray(data), bins, 16)
    numpy.testing.assert_array_equal(bins.get(), numpy.bincount(data % 16, minlength=16))


def test_float32_and_float64_specialisations(cp) -> None:
    n = 300
    rng = numpy.random.default_rng(3)
    for dtype in (numpy.float32, numpy.float64):
        x = rng.random(n).astype(dtype)
        y = rng.random(n).astype(dtype)
        out = cp.empty(n, dtype=dtype)
        axpy[3, 128](dtype(0.25), cp.asarray(x), cp.asarray(y), out)
        assert out.dtype == dtype
        numpy.testing.assert_allclose(out.get(), dtype(0.25) * x + y,
                                      rtol=1e-6 if dtype is numpy.float32 else 1e-15)
    codes = axpy.cached_codes
    assert len(codes) == 2
    (k32, c32), (k64, c64) = codes.items()
    assert k32[1].dtype == numpy.float32 and k64[1].dtype == numpy.float64
    assert "float* x" in c32 and "double* x" in c64


def test_python_scalar_args_and_types(cp) -> None:
    # a Python float is float32 and an int int32 (CuPy's "cuda" mode)
    n = 100
    x = numpy.arange(n, dtype=numpy.float32)
    out = cp.empty(n, dtype=numpy.float32)
    axpy[1, 128](0.1, cp.asarray(x), cp.asarray(x), out)
    numpy.testing.assert_allclose(out.get(), numpy.float32(0.1) * x + x, rtol=1e-6)
    f32 = _jit_compile.ArrayArg(numpy.dtype(numpy.float32), 1, True)
    assert (numpy.dtype(numpy.float32), f32, f32, f32) in axpy.cached_codes
    # Python's // and %, min/max, boolean ops, range with a negative step, **
    v = numpy.arange(-8, 9, dtype=numpy.int64)
    res = cp.zeros((v.size, 7), dtype=numpy.int64)
    python_semantics[1, 32](cp.asarray(v), res)
    got = res.get()
    numpy.testing.assert_array_equal(got[:, 0], v // 3)
    numpy.testing.assert_array_equal(got[:, 1], v % 3)
    numpy.testing.assert_array_equal(got[:, 2], -v // 4)
    numpy.testing.assert_array_equal(got[:, 3], numpy.maximum(v, 2) + numpy.minimum(v, -2))
    numpy.testing.assert_array_equal(got[:, 4], ((v > 0) & (v != 5)).astype(int))
    assert (got[:, 5] == 10 + 7 + 1).all()
    numpy.testing.assert_array_equal(got[:, 6], v ** 2)


def test_device_function(cp) -> None:
    x = numpy.linspace(-3, 3, 50, dtype=numpy.float32)
    out = cp.empty(50, dtype=numpy.float32)
    clamp_all[1, 64](cp.asarray(x), out)
    numpy.testing.assert_array_equal(out.get(), numpy.clip(x, -1, 1))
    assert "__device__ float clamp_1(" in clamp_all.cached_code
    with pytest.raises(TypeError, match="device function"):
        clamp(1, 1, (1.0,))


def test_warp_shuffle_reduction(cp) -> None:
    x = numpy.arange(128, dtype=numpy.float32)
    out = cp.zeros(4, dtype=numpy.float32)
    warp_sum[1, 128](cp.asarray(x), out)
    numpy.testing.assert_array_equal(out.get(), x.reshape(4, 32).sum(axis=1))


def test_unsupported_constructs_raise_clearly(cp) -> None:
    x = cp.zeros(4, dtype=numpy.float32)
    # CuPy's NotImplementedError('Not implemented.') (cupyx/jit/_compile.py:710)
    with pytest.raises(NotImplementedError,
                       match=r"Not implemented.*lambda.*\n.*uses_lambda.*line \d+"):
        uses_lambda[1, 1](x)
    with pytest.raises(ValueError, match="slices"):
        uses_slice[1, 1](x, x)
    with pytest.raises(TypeError, match="not supported"):
        elementwise_add[1, 1](numpy.zeros(3), x, x, 3)      # a host array
    # outside kernels: CuPy's BuiltinFunc.__call__ (RuntimeError) and Data objects
    # (cupyx/jit/_internal_types.py:97, _interface.py:254)
    with pytest.raises(RuntimeError, match="Cannot call this function from Python layer"):
        jit.syncthreads()
    with pytest.raises(AttributeError, match="'Data' object has no attribute 'x'"):
        jit.threadIdx.x


def test_errors_in_kernel_code_raise_clearly(cp) -> None:
    x = cp.zeros(4, dtype=numpy.float32)
    with pytest.raises(NameError, match=r"not_defined_anywhere.*\n.*undefined_name.*line"):
        undefined_name[1, 4](x)
    with pytest.raises(TypeError, match=r"Cannot cast array data from dtype\('float32'\) "
                                        r"to dtype\('int32'\).*\n.*line \d+: "
                                        r"total \+= x\[i\]"):
        bad_cast[1, 1](x, 4)
    with pytest.raises(TypeError, match="takes 4 positional arguments but 3"):
        elementwise_add[1, 1](x, x, x)
    # the session is still usable afterwards
    elementwise_add[1, 4](x, x, x, 4)
    assert x.get().tolist() == [0, 0, 0, 0]


def test_transpiler_is_sans_io() -> None:
    """The transpiler alone: source text out, no server needed."""
    key = (_jit_compile.ArrayArg(numpy.dtype("float32"), 1, True),) * 3 + \
        (numpy.dtype("int32"),)
    code, name = _jit_compile.transpile(elementwise_add._func, "cuda", key)
    assert name == "elementwise_add"
    assert "unsigned int tid = (blockIdx.x * blockDim.x + threadIdx.x);" in code
    # CuPy 14's comparisons (create_comparison: '??', 'qq', 'QQ', 'qQ', 'Qq'...): uint32
    # against int32 compares as int64, in mode='cuda' too
    assert "(((long long)(tid)) < ((long long)(size)))" in code
    code64, _ = _jit_compile.transpile(elementwise_add._func, "numpy", key)
    assert "(((long long)(tid)) < ((long long)(size)))" in code64


def test_cooperative_thread_block_group(cp) -> None:
    x = cp.full(10, -1, dtype=numpy.int64)
    block_group_info[1, (16, 2)](x)
    assert x.get().tolist() == [32, 32, 0, 5, 0, 16, 2, 1, -1, -1]
    code = block_group_info.cached_code
    assert "#include <cooperative_groups.h>" in code and "cg::sync(" in code


def test_cooperative_grid_group_without_sync(cp) -> None:
    x = cp.zeros((6 * 8, 6), dtype=numpy.uint64)
    grid_group_info[6, 8](x)
    r = numpy.arange(48)
    want = numpy.stack([r, r * 0 + 48, r // 8, r * 0 + 6, r // 8, r * 0 + 6], axis=1)
    numpy.testing.assert_array_equal(x.get(), want)
    assert not grid_group_info._cached_codes[next(iter(grid_group_info._cached_codes))][2]


def test_grid_group_sync_needs_a_cooperative_launch() -> None:
    key = (_jit_compile.ArrayArg(numpy.dtype("int32"), 1, True),)
    flags: dict = {}
    code, _ = _jit_compile.transpile(grid_group_sync._func, "cuda", key, flags)
    assert flags == {"cooperative": True}
    assert "cg::this_grid().sync();" in code
    flags = {}
    _jit_compile.transpile(block_group_info._func, "cuda", key, flags)
    assert flags == {"cooperative": False}


def test_cooperative_memcpy_async_and_wait(cp) -> None:
    x = numpy.arange(64, dtype=numpy.int32) * 3
    y = cp.zeros(32, dtype=numpy.int32)
    staged_copy[1, 64](cp.asarray(x), y)
    numpy.testing.assert_array_equal(y.get(), x[::-1][:32])


def test_float16_atomic_add_and_scalar_argument(cp) -> None:
    x = (numpy.arange(100) % 7 / 4).astype(numpy.float16)  # all sums exact in float16
    out = cp.zeros(2, dtype=numpy.float16)
    half_atomic[4, 32](cp.asarray(x), out, numpy.float16(2))
    want = [(x[k::2] * 2).astype(numpy.float64).sum() for k in (0, 1)]
    assert out.get().astype(numpy.float64).tolist() == want
    assert "float scale" in half_atomic.cached_code  # (CuPy: a float16 scalar is float)


@pytest.mark.parametrize("order", ["C", "F"])
def test_shape_and_strides_assigned_inside_a_block(cp, order) -> None:
    a = cp.zeros((3, 5), dtype=numpy.float64, order=order)
    out = cp.zeros(4, dtype=numpy.int64)
    shape_strides_in_block[1, 4](a, out)
    assert out.get().tolist() == [3, 5, *a.strides]


def test_errors_follow_cupy(cp) -> None:
    x = cp.zeros(4, dtype=numpy.float32)
    for n, err in ((0, ValueError), (4, ValueError), ("abc", TypeError), ((1,), TypeError)):
        @jit.rawkernel()
        def f():
            jit.grid(n)

        with pytest.raises(err):
            f((1,), (1,), ())
    with pytest.raises(ValueError, match="cannot be unpack"):
        unpack_int((1,), (1,), ())
    with pytest.raises(ValueError, match="Failed to infer the return type: void or float32"):
        kernel_returns((1,), (1,), (x,))
    with pytest.raises(NameError, match="Unbound name: unknown_var"):
        kernel_returns_unbound((1,), (1,), (x,))
    with pytest.raises(ValueError, match="Recursive function is not supported"):
        calls_recurse((1,), (1,), (x,))


def test_private_cupy_helpers(cp) -> None:
    assert cp._core._get_warpsize() == 32
    assert cp.cuda.runtime._getLocalRuntimeVersion() == cp.cuda.runtime.runtimeGetVersion()
