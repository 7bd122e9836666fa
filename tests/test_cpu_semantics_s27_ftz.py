"""CuPy 14.2's float32 flush-to-zero (session 27): every kernel CuPy builds at run time
is compiled with ``-ftz=true`` (``cupy/cuda/compiler.py``, ``_compile_with_cache_cuda``),
so its float32 and complex64 instructions read a subnormal operand as a zero of its sign
and write a subnormal result as one; doubles never are. CUB's precompiled reductions
(``cupy/cuda/cub.pyx``, built by ``install/cupy_builder/_compiler.py`` with plain
``nvcc -O2``), copies and indexing keep subnormals."""
from __future__ import annotations

import math

import numpy
import pytest

from _servers import BACKEND

pytestmark = pytest.mark.timeout(240)

TINY = 1e-40      # a float32 subnormal (float32's smallest normal is 1.2e-38)
TINY64 = 1e-310   # a float64 subnormal


def _bits(values):
    """Values with their sign kept (-0.0 is not 0.0)."""
    return [math.copysign(1.0, v) * abs(v) if v == 0 else v for v in values]


def _signed(values):
    return [(v, math.copysign(1.0, v)) for v in numpy.asarray(values).ravel().tolist()]


def _f32(cp, values):
    return cp.asarray(numpy.asarray(values, numpy.float32))


# --- elementwise: operators and ufuncs (cupy/_core/_kernel.pyx: ufunc kernels) -----------

def test_operators_flush_float32_subnormals(cp):
    x = _f32(cp, [TINY, -TINY, 2.0])
    assert _signed((x * 1).get()) == [(0.0, 1.0), (0.0, -1.0), (2.0, 1.0)]
    assert (x + 0).get().tolist() == [0.0, 0.0, 2.0]
    assert (x / 1).get().tolist() == [0.0, 0.0, 2.0]
    assert (x * cp.float32(2e30)).get().tolist()[:2] == [0.0, 0.0]  # (read as zero)
    big = _f32(cp, [1e-30])
    assert (big / cp.float32(1e10)).get().tolist() == [0.0]  # (a subnormal result)
    # comparisons: setp.ftz.f32
    assert (x > 0).get().tolist() == [False, False, True]
    assert (x == 0).get().tolist() == [True, True, False]
    assert (x != 0).get().tolist() == [False, False, True]


def test_ufuncs_flush_float32_subnormals(cp):
    x = _f32(cp, [TINY, -TINY])
    assert cp.exp(_f32(cp, [-100.0, -90.0])).get().tolist() == [0.0, 0.0]
    assert cp.sqrt(x).get().tolist() == [0.0, 0.0]
    # max.ftz.f32 (``_float_maximum``: ``max(in0, in1)``)
    assert cp.maximum(x, cp.float32(-1)).get().tolist() == [0.0, 0.0]
    assert cp.minimum(x, cp.float32(1)).get().tolist() == [0.0, 0.0]
    # neg.ftz.f32, abs.ftz.f32 (NumPy's loops work on the bits: flushed first)
    assert _signed((-x).get()) == [(0.0, -1.0), (0.0, 1.0)]
    assert _signed(cp.absolute(x).get()) == [(0.0, 1.0), (0.0, 1.0)]
    assert cp.cbrt(x).get().tolist() == [0.0, 0.0]
    assert cp.log1p(x).get().tolist() == [0.0, 0.0]
    assert cp.arctan(x).get().tolist() == [0.0, 0.0]
    assert cp.floor(_f32(cp, [-TINY])).get().tolist() == [0.0]  # (not -1: cvt.rmi.ftz)
    assert cp.log(x).get().tolist() == [-math.inf, -math.inf]
    # keywords: the general path, out= and dtype=
    out = cp.empty(2, cp.float32)
    cp.add(x, 0, out=out)
    assert out.get().tolist() == [0.0, 0.0]
    assert cp.multiply(x, 1, dtype=cp.float32).get().tolist() == [0.0, 0.0]


def test_copies_and_bit_kernels_keep_float32_subnormals(cp):
    x = _f32(cp, [TINY, -TINY])
    kept = numpy.float32([TINY, -TINY]).tolist()
    assert x.get().tolist() == kept
    assert x.copy().get().tolist() == kept
    assert x[::-1].get().tolist() == kept[::-1]
    assert x.astype(cp.float32, copy=True).get().tolist() == kept
    # ``out0 = +in0``, ``copysign``: no float32 instruction reads the value
    assert cp.positive(x).get().tolist() == kept
    assert cp.copysign(x, cp.float32(1)).get().tolist() == [kept[0], kept[0]]
    assert cp.signbit(x).get().tolist() == [False, True]
    # float32 into complex64: ``complex<float>(x)`` stores it
    assert x.astype(cp.complex64).get().real.tolist() == kept


def test_complex64_flushes_each_part(cp):
    c = cp.asarray(numpy.complex64([TINY + 1j, 1 - TINY * 1j]))
    r = (c * 1).get()
    assert r.real.tolist() == [0.0, 1.0]
    assert r.imag.tolist() == [1.0, 0.0]
    assert (c + 0).get().real.tolist() == [0.0, 1.0]
    # complex128 keeps double subnormals
    d = cp.asarray(numpy.complex128([TINY64 + 1j]))
    assert (d * 1).get().real.tolist() == [TINY64]


def test_float64_subnormals_are_untouched(cp):
    d = cp.asarray(numpy.float64([TINY64, -TINY64, TINY]))
    assert (d * 1).get().tolist() == [TINY64, -TINY64, TINY]
    assert (d + 0).get().tolist() == [TINY64, -TINY64, TINY]
    assert (d > 0).get().tolist() == [True, False, True]
    assert cp.exp(cp.asarray([-720.0])).get().tolist() == [math.exp(-720.0)]
    assert d.sum().get().tolist() == TINY


def test_float32_operand_of_a_double_kernel_is_flushed(cp):
    # (``in0`` of a 'dd->d' loop is read through cvt.ftz.f64.f32)
    x = _f32(cp, [TINY, 1.0])
    d = cp.asarray(numpy.float64([TINY64, TINY64]))
    assert (x + d).get().tolist() == [TINY64, 1.0 + TINY64]
    assert cp.float_power(x, 1.0).get().tolist() == [0.0, 1.0]
    assert x.astype(cp.float64).get().tolist() == [0.0, 1.0]
    assert x.astype(cp.bool_).get().tolist() == [False, True]
    # and a double written as float32: cvt.rn.ftz.f32.f64
    assert cp.asarray([TINY, 1.0]).astype(cp.float32).get().tolist() == [0.0, 1.0]


def test_chained_operators_and_in_place_flush(cp):
    # (carried results computed into their operand: the worker's records)
    x = _f32(cp, [TINY, 1.0])
    y = x
    for _ in range(4):
        y = y * 1
    assert y.get().tolist() == [0.0, 1.0]
    z = _f32(cp, [TINY, 1.0])
    z *= 1
    assert z.get().tolist() == [0.0, 1.0]
    w = cp.asarray(numpy.float64([TINY64]))
    for _ in range(4):
        w = w * 1
    assert w.get().tolist() == [TINY64]


# --- reductions: CUB (precompiled, not flushed) or CuPy's own kernels (flushed) ----------

def test_reductions_flush_outside_cub(cp):
    t = _f32(cp, [TINY] * 6)
    kept = float(numpy.float32(TINY) * 6)
    # contiguous: ``cub.cub_reduction`` -> ``device_reduce`` (cupy_cub.cu, no -ftz)
    assert t.sum().get().tolist() == pytest.approx(kept, rel=1e-5)
    assert t.max().get().tolist() == float(numpy.float32(TINY))
    assert t.cumsum().get().tolist()[-1] == pytest.approx(kept, rel=1e-5)
    # strided: ``_sum_auto_dtype``, ``_amax``: ReductionKernels, -ftz=true
    assert t[::2].sum().get().tolist() == 0.0
    assert t[::2].max().get().tolist() == 0.0
    assert t[::2].prod().get().tolist() == 0.0
    # over axis 0 of a C-contiguous array: not CUB's segmented reduction
    m = _f32(cp, [[TINY, 1.0], [TINY, 1.0]])
    assert m.sum(axis=0).get().tolist() == [0.0, 2.0]
    assert m.sum(axis=1).get().tolist() == [1.0, 1.0]
    # a scan along an axis: ``_proc_as_batch``'s kernels
    assert cp.cumsum(m.T, axis=1).get()[0].tolist()[1] == 0.0
    # argmax over one axis: no CUB (only device_reduce for argmax), the ties compare equal
    a = _f32(cp, [[TINY, 0.0, 2 * TINY]])
    assert a.argmax(axis=1).get().tolist() == [0]
    assert a.argmax().get().tolist() == 2  # (CUB's)


def test_mean_divides_in_a_flushing_kernel(cp):
    # ``_ndarray_mean``: CUB's sum, then ``cupy.true_divide(result, n, out=result)``
    t = _f32(cp, [TINY] * 4)
    assert t.mean().get().tolist() == 0.0
    assert cp.mean(t[::2]).get().tolist() == 0.0
    assert _f32(cp, [1.0, 3.0]).mean().get().tolist() == 2.0


def test_flushing_mode_is_restored_after_an_error(cp):
    x = _f32(cp, [TINY, 1.0])
    with pytest.raises(ValueError):
        cp.add(x, cp.ones(3, cp.float32)).get()  # (a broadcast error inside the call)
    with pytest.raises(ValueError):
        (x + cp.ones(3, cp.float32)).get()
    assert (x * 1).get().tolist() == [0.0, 1.0]
    d = cp.asarray(numpy.float64([TINY64]))
    assert (d * 1).get().tolist() == [TINY64]
    assert (d + d).get().tolist() == [2 * TINY64]


@pytest.mark.skipif(BACKEND != "cpu", reason="the CPU backend's own helper")
def test_ftz_helper_restores_the_mode_in_process():
    ftz = pytest.importorskip("gpushare_server._ftz")
    if not ftz.available:
        pytest.skip("no flushing mode on this machine")

    def fails():
        raise RuntimeError("inside")
    with pytest.raises(RuntimeError):
        ftz.call(fails)
    a = numpy.float64([TINY64])
    assert (a * 1).tolist() == [TINY64]
    f = numpy.float32([TINY, 1.0])
    assert ftz.call(numpy.multiply, f, 1).tolist() == [0.0, 1.0]
    assert (f * 1).tolist() == numpy.float32([TINY, 1.0]).tolist()
    s = numpy.float32([[TINY, 1.0], [-TINY, 2.0]]).T  # (not contiguous)
    assert ftz.has_subnormal(s) and not ftz.has_subnormal(numpy.float32([1.0, 0.0]))
    flushed = ftz.flushed(s)
    assert _signed(flushed) == [(0.0, 1.0), (0.0, -1.0), (1.0, 1.0), (2.0, 1.0)]
    plain = numpy.float32([1.0])
    assert ftz.flushed(plain) is plain
    u = ftz.Ufunc(numpy.negative, scan=True)
    assert u.nin == 1 and u.__name__ == "negative"
    assert _signed(u(numpy.float32([TINY]))) == [(0.0, -1.0)]
    assert u(numpy.float64([TINY64])).tolist() == [-TINY64]
