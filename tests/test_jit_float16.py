"""float16 in ``cupy.vectorize`` and ``cupyx.jit`` computes as CuPy 14.2's jit does.

CuPy's transpiler types a ``float16`` scalar as ``float`` (``Scalar.__str__``,
cupyx/jit/_cuda_types.py): operations, casts (``numpy.float16(x)``), locals, device
function parameters/results, kernel scalar arguments (passed as ``numpy.float32``) and
``jit.shared_memory(numpy.float16, n)`` keep float precision, and a value is rounded
to half precision only when it is stored into a ``float16`` array element (CuPy's
``float16`` class) or a ``cupy.vectorize`` output. A ``float16`` constant is printed
as ``float(<its str>)`` (``get_cuda_code_from_constant``). The references below are
NumPy float32 computations, rounded to float16 where CuPy stores; each test also
checks that rounding every operation to half (gpushare's former translation) gives
other values for its data, so the tests tell the two apart. The expressions avoid
``a + b * c`` (which nvcc may contract into an FMA on a GPU).
"""
from __future__ import annotations

import numpy
import pytest

import gpushare.cupyx.jit as jit
from gpushare.cupyx import _jit_compile

import gpushare.cupy as cupy  # noqa: E402  (the proxy: its ufuncs, as in a kernel)

pytestmark = pytest.mark.timeout(240)

F16 = numpy.float16
F32 = numpy.float32


def _data(seed: int, n: int = 600) -> numpy.ndarray:
    rng = numpy.random.RandomState(seed)
    return (rng.rand(n) * 3.5 + 0.5).astype(F16)  # in [0.5, 4): no zero divisors


# --- functions (module level: the transpiler reads their source) ----------------------
def chain(x, y):
    t = x + y
    u = t / (y + x)
    v = u * t
    return v - x / y


def conformance_ops(x1, x2, x3):  # CuPy's TestVectorize.test_vectorize_arithmetic_ops
    y = x1 + x2 * x3 ** x1
    x2 = y + x3 * x1
    return x1 + x2 + x3


def cast_is_not_rounding(x):
    third = numpy.float16(x / numpy.float16(3))
    return third * numpy.float16(3)


def float16_constant_as_float(x):
    return numpy.float32(x * numpy.float16(0.1))


def quotient_as_float32(x, y):
    return numpy.float32(x / y), numpy.float32(cupy.sqrt(x))


@jit.rawkernel()
def half_kernel(a, b, s, out16, out32):
    i = jit.grid(1)
    sm = jit.shared_memory(numpy.float16, 256)
    if i < a.size:
        t = a[i] / s
        out16[i] = t - b[i]
        out32[i] = numpy.float32(t)
        sm[jit.threadIdx.x] = b[i] / numpy.float16(3)
        jit.syncthreads()
        a[i] += numpy.float32(sm[jit.threadIdx.x])


@jit.rawkernel(device=True)
def half_device(x, y):
    return x / y


@jit.rawkernel()
def half_device_caller(a, b, out32):
    i = jit.grid(1)
    if i < a.size:
        out32[i] = numpy.float32(half_device(a[i], b[i]))


# --- cupy.vectorize ----------------------------------------------------------------------
def test_vectorize_float16_rounds_only_the_result(cp) -> None:
    x, y = _data(1), _data(2)
    got = cp.vectorize(chain)(cp.asarray(x), cp.asarray(y)).get()
    assert got.dtype == F16
    want = chain(x.astype(F32), y.astype(F32)).astype(F16)
    per_op = chain(x, y)  # NumPy float16: every operation rounded to half
    assert (per_op != want).sum() > 10
    numpy.testing.assert_array_equal(got, want)


def test_vectorize_conformance_arithmetic_ops_float16(cp) -> None:
    x1, x2, x3 = (_data(s) for s in (3, 4, 5))
    got = cp.vectorize(conformance_ops)(*[cp.asarray(a) for a in (x1, x2, x3)]).get()
    assert got.dtype == F16
    want = numpy.vectorize(conformance_ops)(x1, x2, x3)  # (in double: Python floats)
    assert want.dtype == F16
    assert (conformance_ops(x1, x2, x3) != want).sum() > 10
    numpy.testing.assert_allclose(got.astype(F32), want.astype(F32), rtol=1e-5)


def test_vectorize_float16_cast_does_not_round(cp) -> None:
    x = _data(6)
    got = cp.vectorize(cast_is_not_rounding)(cp.asarray(x)).get()
    assert got.dtype == F16
    want = (x.astype(F32) / F32(3) * F32(3)).astype(F16)
    assert ((x / F16(3)) * F16(3) != want).sum() > 10
    numpy.testing.assert_array_equal(got, want)


def test_vectorize_float16_constant_is_float_of_its_text(cp) -> None:
    x = _data(7)
    got = cp.vectorize(float16_constant_as_float)(cp.asarray(x)).get()
    assert got.dtype == F32
    numpy.testing.assert_array_equal(got, x.astype(F32) * F32(0.1))  # float(0.1)
    assert F32(F16(0.1)) != F32(0.1)


def test_vectorize_float16_ops_returned_as_float32(cp) -> None:
    x, y = _data(8), _data(9)
    q, r = cp.vectorize(quotient_as_float32)(cp.asarray(x), cp.asarray(y))
    assert q.dtype == F32 and r.dtype == F32
    numpy.testing.assert_array_equal(q.get(), x.astype(F32) / y.astype(F32))
    numpy.testing.assert_array_equal(r.get(), numpy.sqrt(x.astype(F32)))
    assert (x.astype(F32) / y.astype(F32) != (x / y).astype(F32)).sum() > 10


# --- cupyx.jit ---------------------------------------------------------------------------
def test_rawkernel_float16_arrays_scalars_and_shared_memory(cp) -> None:
    n = 600
    a, b = _data(10, n), _data(11, n)
    s = F16(0.1)  # passed as numpy.float32(s): exactly 0.0999755859375
    da, db = cp.asarray(a), cp.asarray(b)
    out16 = cp.zeros(n, dtype=F16)
    out32 = cp.zeros(n, dtype=F32)
    half_kernel[(n + 255) // 256, 256](da, db, s, out16, out32)
    t = a.astype(F32) / F32(s)
    numpy.testing.assert_array_equal(out32.get(), t)
    numpy.testing.assert_array_equal(out16.get(), (t - b.astype(F32)).astype(F16))
    assert ((a / s - b) != (t - b.astype(F32)).astype(F16)).sum() > 10
    # shared float16 memory is float (CuPy): b / 3 is not rounded before the +=
    want_a = (a.astype(F32) + b.astype(F32) / F32(3)).astype(F16)
    assert ((a.astype(F32) + (b / F16(3)).astype(F32)).astype(F16) != want_a).sum() > 0
    numpy.testing.assert_array_equal(da.get(), want_a)
    code = half_kernel.cached_code
    assert "float s" in code and "__shared__ float " in code and "__half* a" in code


def test_device_function_float16_is_float(cp) -> None:
    a, b = _data(12), _data(13)
    out32 = cp.zeros(a.size, dtype=F32)
    half_device_caller[3, 256](cp.asarray(a), cp.asarray(b), out32)
    numpy.testing.assert_array_equal(out32.get(), a.astype(F32) / b.astype(F32))
    assert "float half_device_1(float x, float y)" in half_device_caller.cached_code


def test_generated_source_follows_cupy_types() -> None:
    e = numpy.dtype(F16)
    gen = _jit_compile.Generated()
    name, ret = _jit_compile.compile_device(cast_is_not_rounding, (e,), gen, "numpy")
    code = gen.code()
    assert ret == e
    assert f"__device__ float {name}(float x)" in code
    assert "__half" not in code  # no rounding inside the function
    gen = _jit_compile.Generated()
    _jit_compile.compile_device(float16_constant_as_float, (e,), gen, "numpy")
    assert "0.10000000149011612f" in gen.code()  # float(0.1), not the half 0.0999755...
    arr = _jit_compile.ArrayArg(e, 1, True)
    code, _ = _jit_compile.transpile(half_kernel._func, "cuda", (arr, arr, e, arr,
                                     _jit_compile.ArrayArg(numpy.dtype(F32), 1, True)))
    assert "out16[(i)] = ((__half)((t - ((float)(b[(i)])))));" in code
    assert "__half& " in code and "float t;" in code
    assert "t = (((float)(a[(i)])) / s);" in code
