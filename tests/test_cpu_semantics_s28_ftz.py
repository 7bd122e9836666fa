"""CuPy 14.2's float32 flush-to-zero beyond the ufuncs (session 28): ``ufunc.at``'s
scatter kernels, ``var``/``std``/``nanvar``/``nanstd``'s reduction kernels, ``where``,
``clip``, ``round`` and the copy kernel of ``copyto``/``__setitem__``/``put`` are all
built at run time with ``-ftz=true`` (``cupy/cuda/compiler.py``,
``_compile_with_cache_cuda``): a float32 instruction reads a subnormal operand as a zero
of its sign and writes a subnormal result as one; doubles never are; a plain selection
or copy keeps the bits."""
from __future__ import annotations

import math

import numpy
import pytest

pytestmark = pytest.mark.timeout(240)

TINY = 1e-40      # a float32 subnormal (float32's smallest normal is 1.2e-38)
TINY64 = 1e-310   # a float64 subnormal


def _signed(values):
    return [(v, math.copysign(1.0, v)) for v in numpy.asarray(values).ravel().tolist()]


def _f32(cp, values):
    return cp.asarray(numpy.asarray(values, numpy.float32))


KEPT = float(numpy.float32(TINY))


# --- ufunc methods (cupy/_core/_kernel.pyx) -------------------------------------------

def test_ufunc_at_flushes_touched_elements(cp):
    # ``ufunc.at`` -> ``a._scatter_op(indices, b, 'add')`` (_routines_indexing.pyx):
    # ``atomicAdd`` in a -ftz=true kernel (and atom.add.f32 flushes in any case)
    a = cp.zeros(3, cp.float32)
    cp.add.at(a, cp.asarray([0, 0, 1]), _f32(cp, [TINY, TINY, TINY]))
    assert a.get().tolist() == [0.0, 0.0, 0.0]
    b = _f32(cp, [TINY, 1.0, TINY])
    cp.add.at(b, cp.asarray([1]), cp.float32(0))
    assert b.get().tolist() == [KEPT, 1.0, KEPT]  # (untouched: kept)
    cp.add.at(b, slice(0, 1), 0)
    assert b.get().tolist() == [0.0, 1.0, KEPT]
    # ``atomicMax`` (cupy/atomics.cuh: fmaxf, -ftz=true)
    m = _f32(cp, [TINY, -TINY, 1.0])
    cp.maximum.at(m, cp.asarray([0, 1]), cp.float32(-1))
    assert _signed(m.get()) == [(0.0, 1.0), (0.0, -1.0), (1.0, 1.0)]
    # float64 keeps its subnormals; float32 values into it are converted first
    # (``_scatter_op``: ``v.astype(a.dtype)``, cvt.ftz.f64.f32)
    d = cp.zeros(2, cp.float64)
    cp.add.at(d, cp.asarray([0, 0]), cp.asarray([TINY64, TINY64]))
    assert d.get().tolist() == [2 * TINY64, 0.0]
    cp.add.at(d, cp.asarray([1]), _f32(cp, [TINY]))
    assert d.get().tolist() == [2 * TINY64, 0.0]
    import gpushare.cupyx as cupyx
    with pytest.warns(DeprecationWarning):
        cupyx.scatter_add(d, cp.asarray([1]), _f32(cp, [TINY]))
    assert d.get().tolist() == [2 * TINY64, 0.0]


def test_ufunc_reduce_accumulate_outer_flush(cp):
    # reduce/accumulate are ``sum``/``cumsum`` over axis 0 (the latter not CUB's scan)
    x = _f32(cp, [TINY, TINY, 1.0])
    assert cp.add.accumulate(x).get().tolist() == [KEPT, 0.0, 1.0]
    m = _f32(cp, [[TINY, 1.0], [TINY, 1.0]])
    assert cp.add.reduce(m).get().tolist() == [0.0, 2.0]
    assert cp.add.outer(x, _f32(cp, [0.0])).get().ravel().tolist() == [0.0, 0.0, 1.0]


# --- var, std (_routines_statistics.pyx: _var_core_*, _nanvar_core) --------------------

def test_var_std_flush_float32_squares(cp):
    v = _f32(cp, [1e-20, -1e-20])  # (each square is 1e-40: a subnormal float32)
    assert v.var().get().tolist() == 0.0
    assert v.std().get().tolist() == 0.0
    assert cp.nanvar(v).get().tolist() == 0.0
    assert cp.nanstd(v).get().tolist() == 0.0
    # ``dtype=float64``: the mean stays float32, ``my_norm(x - mean)`` computes in float
    assert v.var(dtype=cp.float64).get().tolist() == 0.0
    c = cp.asarray(numpy.complex64([1e-20, -1e-20j]))
    assert c.var().get().tolist() == 0.0
    assert cp.nanvar(c).get().tolist() == 0.0
    # normal values and doubles as before
    assert _f32(cp, [1.0, 2.0, 3.0]).var().get().tolist() == pytest.approx(2 / 3)
    w = cp.asarray([1e-160, -1e-160])
    assert w.var().get().tolist() == pytest.approx(1e-320, rel=1e-2)


# --- where, clip, round ----------------------------------------------------------------

def test_where_condition_and_double_loop_flush(cp):
    x = _f32(cp, [TINY, -TINY, 1.0])
    # ``condition.astype('?')``: the copy kernel's setp.ftz.f32 (search.py: where)
    assert cp.where(x, 1, 2).get().tolist() == [2, 2, 1]
    # '?dd->d': the float32 operand read through cvt.ftz.f64.f32
    both = cp.where(cp.asarray([True] * 3), x, cp.zeros(3))
    assert _signed(both.get()) == [(0.0, 1.0), (0.0, -1.0), (1.0, 1.0)]
    # '?ff->f': ``out0 = in0 ? in1 : in2`` selects the bits
    same = cp.where(cp.asarray([True] * 3), x, cp.zeros(3, cp.float32))
    assert same.get().tolist() == [KEPT, -KEPT, 1.0]


def test_clip_compares_flushed_and_keeps_the_bits(cp):
    # ``_clip``: ``in1 > in2 ? in2 : (in0 < in1 ? in1 : (in0 > in2 ? in2 : in0))``
    x = _f32(cp, [TINY, -TINY, 1.0])
    assert cp.clip(x, 0, 1).get().tolist() == [KEPT, -KEPT, 1.0]  # (-0 < 0 is false)
    assert cp.clip(x, -1, 0).get().tolist() == [KEPT, -KEPT, 0.0]
    assert cp.clip(x, -5, 5).get().tolist() == [KEPT, -KEPT, 1.0]
    assert x.clip(cp.float32(TINY), None).get().tolist() == [KEPT, -KEPT, 1.0]
    d = cp.asarray([-TINY64])
    assert cp.clip(d, 0, 1).get().tolist() == [0.0]


def test_round_reads_and_writes_through_ftz_conversions(cp):
    # ``_round_float``: ``in0`` to double (cvt.ftz.f64.f32), back (cvt.rn.ftz.f32.f64)
    x = _f32(cp, [1e-39, 5e-39, 2.5])
    assert cp.round(x, 39).get().tolist()[:2] == [0.0, 0.0]
    assert cp.around(_f32(cp, [1.5e-38]), 39).get().tolist() == [
        float(numpy.float32(1.5e-38))]


# --- copies with a conversion (elementwise_copy: cvt.rn.ftz.f32.f64, cvt.ftz.f64.f32) --

def test_setitem_and_copyto_conversions_flush(cp):
    src = cp.asarray([TINY, -TINY, 1e-39, 1.0])
    y = cp.ones(4, cp.float32)
    y[...] = src
    assert _signed(y.get()) == [(0.0, 1.0), (0.0, -1.0), (0.0, 1.0), (1.0, 1.0)]
    z = cp.ones(4, cp.float32)
    cp.copyto(z, src)
    assert z.get().tolist() == [0.0, 0.0, 0.0, 1.0]
    w = _f32(cp, [TINY, TINY, TINY, TINY])
    cp.copyto(w, src, where=cp.asarray([False, True, False, True]))
    assert w.get().tolist() == [KEPT, 0.0, KEPT, 1.0]  # (where= false: untouched)
    f = cp.ones(3, cp.float64)
    f[:2] = _f32(cp, [TINY, -TINY])
    assert _signed(f.get()) == [(0.0, 1.0), (0.0, -1.0), (1.0, 1.0)]
    g = cp.zeros(3, cp.float32)
    g[cp.asarray([0, 2])] = cp.asarray([TINY, 2.0])  # (advanced: _scatter_op 'update')
    assert g.get().tolist() == [0.0, 0.0, 2.0]
    # same dtype: a copy keeps the bits; double into double too
    k = cp.zeros(2, cp.float32)
    k[:] = _f32(cp, [TINY, 1.0])
    assert k.get().tolist() == [KEPT, 1.0]
    e = cp.zeros(1, cp.float64)
    e[:] = cp.asarray([TINY64])
    assert e.get().tolist() == [TINY64]


# --- routines that are CuPy's own kernels (not cuBLAS/cuSOLVER) -------------------------

def test_outer_kron_diff_cross_are_flushing_kernels(cp):
    # ``linalg/_product.py``: outer, kron are ``cupy.multiply``; ``sumprod.py``: diff
    # is ``subtract``; cross both
    v = _f32(cp, [1e-20, 1.0])
    assert cp.outer(v, v).get()[0, 0] == 0.0
    assert cp.kron(v, v).get()[0] == 0.0
    a = _f32(cp, [1e-38, 1.1e-38, 1.0])
    assert cp.diff(a).get()[0] == 0.0
    assert cp.ediff1d(a).get()[0] == 0.0
    u, w = _f32(cp, [1e-20, 0, 0]), _f32(cp, [0, 1e-20, 0])
    assert cp.cross(u, w).get().tolist() == [0.0, 0.0, 0.0]
    # a double operand: the 'dd->d' loop, its double result kept
    wide = cp.outer(cp.asarray([1e-20]), _f32(cp, [1e-20])).get()[0, 0]
    assert wide == pytest.approx(1e-40, rel=1e-6)


def test_interp_reads_float32_through_ftz_conversions(cp):
    # ``_math/misc.py``: ``_get_interp_kernel`` computes in double from its float32
    # operands (``(real_t)fx[...]``, ``y = fy[...]``, ``y = left[0]``: cvt.ftz.f64.f32)
    got = cp.interp(_f32(cp, [0.5, 2.0, -1.0]), _f32(cp, [0.0, 1.0]),
                    _f32(cp, [0.0, 2e-40]), left=TINY)
    assert got.dtype == numpy.float64 and got.get().tolist() == [0.0, 0.0, 0.0]
    wide = cp.interp(cp.asarray([0.5]), cp.asarray([0.0, 1.0]), cp.asarray([0.0, 2e-310]))
    assert wide.get().tolist() == [1e-310]


def test_trace_det_norm_flush(cp):
    # ``_ndarray_trace``: ``diagonal().sum(-1)``, a strided view: a reduction kernel
    m = _f32(cp, [[TINY, 1.0], [2.0, TINY]])
    assert m.trace().get().tolist() == 0.0
    assert cp.trace(m).get().tolist() == 0.0
    assert cp.trace(_f32(cp, [[TINY]])).get().tolist() == KEPT  # (one element: CUB)
    # ``det``: ``sign * cupy.exp(logdet)``
    d = _f32(cp, [[1e-20, 0.0], [0.0, 1e-20]])
    assert cp.linalg.det(d).get().tolist() == 0.0
    assert cp.linalg.det(cp.asarray([[1e-160, 0.0], [0.0, 1e-160]])).get().tolist() > 0
    # ``norm``: ``cupy.sqrt((x * x).sum())``
    assert cp.linalg.norm(_f32(cp, [1e-20, 1e-20])).get().tolist() == 0.0
    assert cp.linalg.norm(_f32(cp, [3.0, 4.0])).get().tolist() == 5.0
    assert cp.linalg.norm(_f32(cp, [[3.0, 4.0], [0.0, 0.0]]), 2).get().tolist() == \
        pytest.approx(5.0)


# --- user kernels on the emulator (every kernel CuPy compiles is -ftz=true: compiler.py
# ``_compile_with_cache_cuda``, RawKernel/RawModule's through ``compile_with_cache``) ---

_SCALE32 = r'''
extern "C" __global__ void gs_s28_scale(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.0f;
}
'''

_SCALE64 = r'''
extern "C" __global__ void gs_s28_scale64(const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.0;
}
'''

_SHARED32 = r'''
extern "C" __global__ void gs_s28_shared(const float* x, float* y, int n) {
  __shared__ float s[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) y[i] = s[threadIdx.x] + 0.0f;
}
'''


def test_elementwise_and_reduction_kernels_flush(cp):
    x = _f32(cp, [TINY, -TINY, 1.0] * 4000)
    k = cp.ElementwiseKernel('float32 x', 'float32 y', 'y = x * 2.0f', 'gs_s28_ew')
    y = k(x).get()
    assert _signed(y[:3]) == [(0.0, 1.0), (0.0, -1.0), (2.0, 1.0)]
    assert not numpy.any((y != 0) & (numpy.abs(y) < 1e-30))
    kd = cp.ElementwiseKernel('float64 x', 'float64 y', 'y = x * 2.0', 'gs_s28_ewd')
    assert kd(cp.asarray([TINY64, 1.0])).get().tolist() == [2 * TINY64, 2.0]
    r = cp.ReductionKernel('float32 x', 'float32 y', 'x', 'a + b', 'y = a', '0',
                           'gs_s28_sum')
    assert r(_f32(cp, [TINY] * 3)).get().tolist() == 0.0
    rd = cp.ReductionKernel('float64 x', 'float64 y', 'x', 'a + b', 'y = a', '0',
                            'gs_s28_sumd')
    assert rd(cp.asarray([TINY64] * 3)).get().tolist() == pytest.approx(3 * TINY64)

    @cp.fuse()
    def twice(a):
        return a * 2
    assert twice(_f32(cp, [TINY, 1.0])).get().tolist() == [0.0, 2.0]


def test_raw_kernels_flush_on_every_worker_and_restore(cp):
    # (the emulator runs blocks on a thread pool and a block with a barrier as fibers:
    # each takes the launcher's flushing bits for the launch, and puts its own back)
    n = 3 * 4096
    x = _f32(cp, [TINY, -TINY, 1.0] * (n // 3))
    y = cp.empty_like(x)
    cp.RawKernel(_SCALE32, 'gs_s28_scale')((n // 128,), (128,), (x, y, cp.int32(n)))
    got = y.get()
    assert (got[0::3] == 0).all() and (got[1::3] == 0).all() and (got[2::3] == 2).all()
    z = cp.empty_like(x)
    cp.RawKernel(_SHARED32, 'gs_s28_shared')((n // 128,), (128,), (x, z, cp.int32(n)))
    assert (z.get()[0::3] == 0).all()
    d = cp.asarray(numpy.full(n, TINY64))
    e = cp.empty_like(d)
    cp.RawKernel(_SCALE64, 'gs_s28_scale64')((n // 128,), (128,), (d, e, cp.int32(n)))
    assert (e.get() == 2 * TINY64).all()
    assert (d * 1).get()[0] == TINY64


def test_float_math_functions_in_kernels_read_and_give_flushed_values(cp):
    """glibc's float functions under the launch's DAZ read a subnormal's bits in places
    and its zero in others: ``cbrtf(1e-40)`` gave -5.6e-16 whatever the sign, ``logf``
    of -1e-40 NaN, ``lgammaf`` 104, ``sinf``/``log1pf`` the subnormal itself. A -ftz=true
    kernel reads the argument as a zero of its sign (``csrc/gpushare_cuda.h``:
    ``GS_FTZ_RENAME``), <cmath>'s float overloads as the ``*f`` names."""
    k = cp.RawKernel(r'''
    extern "C" __global__ void f(const float* x, float* out) {
      int i = threadIdx.x;
      float v = x[i];
      out[i * 8 + 0] = cbrtf(v);  out[i * 8 + 1] = logf(v);  out[i * 8 + 2] = lgammaf(v);
      out[i * 8 + 3] = sinf(v);   out[i * 8 + 4] = log1pf(v); out[i * 8 + 5] = cbrt(v);
      out[i * 8 + 6] = powf(v, 0.5f);
      float s, c; sincosf(v, &s, &c); out[i * 8 + 7] = s;
    }''', "f")
    x = _f32(cp, [TINY, -TINY, 8.0])
    out = cp.zeros(24, cp.float32)
    k((1,), (3,), (x, out))
    got = out.get().reshape(3, 8)
    inf = math.inf
    assert _signed(got[0]) == _signed([0.0, -inf, inf, 0.0, 0.0, 0.0, 0.0, 0.0])
    assert _signed(got[1]) == _signed([-0.0, -inf, inf, -0.0, -0.0, -0.0, 0.0, -0.0])
    numpy.testing.assert_allclose(got[2], [2.0, math.log(8), math.lgamma(8), math.sin(8),
                                           math.log(9), 2.0, math.sqrt(8), math.sin(8)],
                                  rtol=1e-6)
