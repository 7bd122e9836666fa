"""RawKernel / RawModule as CuPy 14.2 has them (its ``tests/cupy_tests/core_tests/
test_raw.py``), against a real server (the ``cp`` fixture): cuComplex.h and
``translate_cucomplex``, template kernels found only by name expressions, a
``MemoryPointer`` as a kernel argument, the compile log, jitify's warning and
exception, and CuPy's errors and their messages."""
from __future__ import annotations

import io
import math
import re
import warnings
from fractions import Fraction

import numpy
import pytest

pytestmark = pytest.mark.timeout(240)

_SUM = r'''
extern "C" __global__
void test_sum(const float* x1, const float* x2, float* y, unsigned int N) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < N)
        y[tid] = x1[tid] + x2[tid];
}
'''

_TEMPLATE = r'''
template<typename T>
__global__ void my_sqrt(T* input, int N) {
  unsigned int x = blockDim.x * blockIdx.x + threadIdx.x;
  if (x < N) {
    input[x] *= input[x];
  }
}
'''


def _fma(a, b, c):
    """``a * b + c`` rounded once (CUDA's ``fma.rn``), elementwise, in the arrays'
    precision: through exact fractions, the nearest value (ties to even)."""
    ft = numpy.result_type(a, b, c).type
    a, b, c = numpy.broadcast_arrays(a, b, c)
    out = numpy.empty(a.shape, ft)
    for i in numpy.ndindex(a.shape):
        x, y, z = float(a[i]), float(b[i]), float(c[i])
        if not all(map(math.isfinite, (x, y, z))):
            out[i] = ft(x) * ft(y) + ft(z)
            continue
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        if exact == 0:
            out[i] = ft(x) * ft(y) + ft(z)
            continue
        with numpy.errstate(over="ignore"):
            w = ft(float(exact))  # (a float32 may be off by one: double rounding)
            near = [w, numpy.nextafter(w, ft(numpy.inf)), numpy.nextafter(w, ft(-numpy.inf))]
        out[i] = min(near, key=lambda v: (abs(Fraction(float(v)) - exact)
                                          if numpy.isfinite(v) else math.inf,
                                          int(numpy.array(v).view(numpy.uint64 if ft is
                                                                  numpy.float64 else
                                                                  numpy.uint32)) & 1))
    return out


def _cdiv(x: numpy.ndarray, y: numpy.ndarray) -> numpy.ndarray:
    """cuCdiv's (and CuPy's complex<T>) division, in the arrays' precision, its sums of
    products contracted as NVRTC compiles them (``--fmad=true``; LLVM fuses the first
    product of each: on an H200 ``1 / (1+2j)`` is 0.2-0.4j, unfused 0.19999999999999996-...)."""
    ft = x.real.dtype.type
    s = numpy.abs(y.real) + numpy.abs(y.imag)
    oos = ft(1) / s
    ars, ais, brs, bis = x.real * oos, x.imag * oos, y.real * oos, y.imag * oos
    s = _fma(brs, brs, bis * bis)
    oos = ft(1) / s
    out = numpy.empty_like(x)
    out.real = _fma(ars, brs, ais * bis) * oos
    out.imag = _fma(ais, brs, -(ars * bis)) * oos
    return out


def _complex(rng: numpy.random.Generator, n: int, dtype: type) -> numpy.ndarray:
    return (rng.random(n) + 1j * rng.random(n)).astype(dtype)


# --- cupy._util.memoize / clear_memo -----------------------------------------------------
def test_memoize_per_arguments_and_device_and_clear_memo(cp) -> None:
    from gpushare.cupy import _util
    calls = []

    @_util.memoize()
    def f(x, y=0):
        calls.append((x, y))
        return [x, y]

    @_util.memoize(for_each_device=True)
    def g(x):
        calls.append(("g", x, cp.cuda.runtime.getDevice()))
        return object()

    assert f(1) is f(1) and f(1, y=2) is f(1, y=2) and f(1) is not f(1, y=2)
    assert calls == [(1, 0), (1, 2)]
    assert f.__name__ == "f"
    first = g(3)
    assert g(3) is first and len(calls) == 3
    _util.clear_memo()
    assert f(1) == [1, 0] and len(calls) == 4  # computed again
    assert g(3) is not first
    # cupy.memoize and cupy.clear_memo are these (decorators of the program's own
    # functions: they run here, never on the server)
    assert cp.memoize is _util.memoize and cp.clear_memo is _util.clear_memo


# --- cuComplex.h ------------------------------------------------------------------------
_CUCOMPLEX = r'''
#include <cuComplex.h>
extern "C" __global__ void ops(const cuFloatComplex* a, const cuFloatComplex* b,
                               const cuFloatComplex* c, cuFloatComplex* fma,
                               cuFloatComplex* quot, float* mag, cuDoubleComplex* up,
                               int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) {
        fma[i] = cuCfmaf(a[i], b[i], c[i]);
        quot[i] = cuCdivf(a[i], b[i]);
        mag[i] = cuCabsf(a[i]);
        up[i] = cuComplexFloatToDouble(a[i]);
    }
}
extern "C" __global__ void dops(const cuDoubleComplex* a, const cuDoubleComplex* b,
                                const cuDoubleComplex* c, cuDoubleComplex* fma,
                                cuDoubleComplex* quot, cuComplex* down, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) {
        fma[i] = cuCfma(a[i], b[i], c[i]);
        quot[i] = cuCdiv(a[i], b[i]);
        down[i] = cuComplexDoubleToFloat(a[i]);
    }
}
'''


def test_cucomplex_header_functions(cp) -> None:
    rng = numpy.random.default_rng(0)
    n = 100
    mod = cp.RawModule(code=_CUCOMPLEX)
    a, b, c = (_complex(rng, n, numpy.complex64) for _ in range(3))
    fma, quot = cp.zeros(n, cp.complex64), cp.zeros(n, cp.complex64)
    mag, up = cp.zeros(n, cp.float32), cp.zeros(n, cp.complex128)
    mod.get_function("ops")((4,), (32,), (cp.asarray(a), cp.asarray(b), cp.asarray(c), fma,
                                          quot, mag, up, numpy.int32(n)))
    numpy.testing.assert_allclose(fma.get(), a * b + c, rtol=1e-5)
    assert (quot.get() == _cdiv(a, b)).all()  # cuCdivf's scaled division, bit for bit
    numpy.testing.assert_allclose(mag.get(), numpy.abs(a), rtol=1e-6)
    assert (up.get() == a.astype(numpy.complex128)).all()

    a, b, c = (_complex(rng, n, numpy.complex128) for _ in range(3))
    fma, quot, down = (cp.zeros(n, cp.complex128), cp.zeros(n, cp.complex128),
                       cp.zeros(n, cp.complex64))
    mod.get_function("dops")((4,), (32,), (cp.asarray(a), cp.asarray(b), cp.asarray(c),
                                           fma, quot, down, numpy.int32(n)))
    numpy.testing.assert_allclose(fma.get(), a * b + c, rtol=1e-12)
    assert (quot.get() == _cdiv(a, b)).all()
    assert (down.get() == a.astype(numpy.complex64)).all()


_TRANSLATED = r'''
#include <cuComplex.h>
extern "C" __global__ void add_scalar(cuComplex* arr, cuComplex scalar, cuComplex* out) {
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < 100) {
        out[tid] = cuCadd(arr[tid], scalar);   // the double name: fine once translated
    }
}
extern "C" __global__ void cdivide(cuDoubleComplex* a, cuDoubleComplex* b,
                                   cuDoubleComplex* out) {
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < 100) {
        out[tid] = cuCdiv(a[tid], b[tid]);
    }
}
'''


def test_translate_cucomplex_uses_cupy_complex(cp) -> None:
    rng = numpy.random.default_rng(1)
    a = _complex(rng, 100, numpy.complex64)
    out = cp.zeros(100, cp.complex64)
    mod = cp.RawModule(code=_TRANSLATED, translate_cucomplex=True)
    mod.get_function("add_scalar")((4,), (32,), (cp.asarray(a), numpy.complex64(2 + 3j), out))
    assert (out.get() == a + numpy.complex64(2 + 3j)).all()
    x, y = _complex(rng, 100, numpy.complex128), _complex(rng, 100, numpy.complex128)
    q = cp.zeros(100, cp.complex128)
    mod.get_function("cdivide")((4,), (32,), (cp.asarray(x), cp.asarray(y), q))
    assert (q.get() == _cdiv(x, y)).all()  # complex<double>'s operator/
    # ... which is CuPy's complex division everywhere: operators, ufuncs, in place
    xd, yd = cp.asarray(x), cp.asarray(y)
    assert (q == xd / yd).all() and (q == cp.true_divide(xd, yd)).all()
    xd /= yd
    assert (xd == q).all()
    assert ((cp.asarray(a) + 0) / cp.asarray(a[::-1]) ==
            cp.asarray(_cdiv(a, a[::-1]))).all()  # (a chain, computed in place)
    assert (cp.asarray(a) / 3 == cp.asarray(_cdiv(a, numpy.full_like(a, 3)))).all()
    # cuCabs (thrust::abs: hypot) is CuPy's abs, to the bit (NumPy's loop is not hypot)
    mags = numpy.hypot(a.real, a.imag)
    for mag in (cp.abs(cp.asarray(a)), abs(cp.asarray(a)), cp.absolute(cp.asarray(a))):
        assert mag.dtype == cp.float32 and (mag.get() == mags).all()
    zero = cp.true_divide(cp.ones(2, cp.complex64), 0)  # NaN, as thrust's (not NumPy's inf)
    assert zero.dtype == cp.complex64 and bool(cp.isnan(zero.real).all())
    # without the translation, cuCadd takes cuDoubleComplex only: a compile error
    with pytest.raises(cp.cuda.compiler.CompileException):
        cp.RawModule(code=_TRANSLATED).get_function("add_scalar")


# --- templates: found only by name expressions --------------------------------------------
def test_template_kernels_need_name_expressions(cp) -> None:
    mod = cp.RawModule(code=_TEMPLATE)
    with pytest.raises(cp.cuda.driver.CUDADriverError, match="named symbol not found"):
        mod.get_function("my_sqrt<int>")
    mod = cp.RawModule(code=_TEMPLATE, name_expressions=["my_sqrt<int>"])
    with pytest.raises(cp.cuda.driver.CUDADriverError, match="named symbol not found"):
        mod.get_function("my_sqrt<double>")
    x = cp.arange(10, dtype=cp.int32)
    mod.get_function("my_sqrt<int>")((1,), (10,), (x, 10))
    assert x.get().tolist() == [i * i for i in range(10)]
    # a RawKernel has no name expressions
    with pytest.raises(cp.cuda.driver.CUDADriverError, match="CUDA_ERROR_NOT_FOUND"):
        cp.RawKernel(_TEMPLATE, "my_sqrt<int>")((1,), (10,), (x, 10))
    with pytest.raises(ValueError, match="nvrtc"):
        cp.RawModule(code=_TEMPLATE, backend="nvcc", name_expressions=["my_sqrt<int>"])


_LINKAGES = r'''
namespace ns {
__global__ void scoped(float* y) { y[1] = 5; }
extern "C" __global__ void c_in_ns(float* y) { y[2] = 7; }
}
extern "C" {
__global__ void in_block(float* y) { y[3] = 11; }
}
__global__ void cxx(float* y) { y[0] = 9; }
extern "C" __global__ void plain(float* y) { y[0] = 3; }
'''


def test_kernels_are_found_by_their_linkage_as_nvrtc_names_them(cp) -> None:
    """An ``extern "C"`` kernel is found by its own name, in a namespace or a block too;
    a kernel of C++ linkage (a namespace's, or not ``extern "C"``) has a mangled name
    that only a name expression finds: CUDA_ERROR_NOT_FOUND otherwise, as in CuPy. A
    namespace's kernel no longer breaks the module's compilation."""
    y = cp.zeros(4, cp.float32)
    mod = cp.RawModule(code=_LINKAGES)
    for name in ("plain", "c_in_ns", "in_block"):
        mod.get_function(name)((1,), (1,), (y,))
    assert y.get().tolist() == [3, 0, 7, 11]
    for name in ("cxx", "scoped", "ns::scoped"):
        with pytest.raises(cp.cuda.driver.CUDADriverError, match="CUDA_ERROR_NOT_FOUND"):
            mod.get_function(name)
    with pytest.raises(cp.cuda.driver.CUDADriverError, match="CUDA_ERROR_NOT_FOUND"):
        cp.RawKernel(_LINKAGES, "cxx")((1,), (1,), (y,))
    named = cp.RawModule(code=_LINKAGES, name_expressions=["ns::scoped", "cxx"])
    named.get_function("ns::scoped")((1,), (1,), (y,))
    named.get_function("cxx")((1,), (1,), (y,))
    assert y.get().tolist() == [9, 5, 7, 11]


def test_name_expression_that_does_not_instantiate(cp) -> None:
    code = r'''
#include <cuda/std/type_traits>
template<typename T,
         typename = typename cuda::std::enable_if<cuda::std::is_integral<T>::value>::type>
__global__ void shift(T* a, int N) {
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < N) a[tid] += 100;
}
'''
    mod = cp.RawModule(code=code, name_expressions=("shift<float>",))
    with pytest.raises(cp.cuda.compiler.CompileException,
                       match="Error in parsing name expression"):
        mod.get_function("shift<float>")
    mod = cp.RawModule(code=code, name_expressions=("shift<int>",))
    a = cp.arange(8, dtype=cp.int32)
    mod.get_function("shift<int>")((1,), (8,), (a, 8))
    assert a.get().tolist() == list(range(100, 108))


def test_the_cxx_standard_library_is_jitifys_not_nvrtcs(cp) -> None:
    """NVRTC has no <type_traits> (CuPy's test_jitify2/3): without Jitify the kernel's
    own include of it fails as there, while libcudacxx's <cuda/std/...> (above), which
    the emulator builds on the host's, still compiles."""
    code = r'''
#include <type_traits>
template<typename T,
         typename = typename std::enable_if<std::is_integral<T>::value>::type>
__global__ void shift(T* a, int N) { a[threadIdx.x] += 100; }
'''
    mod = cp.RawModule(code=code, name_expressions=("shift<int>",))
    with pytest.raises(cp.cuda.compiler.CompileException) as info:
        mod.get_function("shift<int>")
    assert re.match(r'/\S*tmp[a-z0-9_]{8}/[0-9a-f]{40}\.cubin\.cu\(2\): catastrophic error: '
                    r'cannot open source file "type_traits"\n  #include <type_traits>\n',
                    str(info.value)), str(info.value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (jitify's)
        mod = cp.RawModule(code=code, name_expressions=("shift<int>",), jitify=True)
        a = cp.arange(8, dtype=cp.int32)
        mod.get_function("shift<int>")((1,), (8,), (a, 8))
    assert a.get().tolist() == list(range(100, 108))


def test_nvrtc_has_no_assert_h_and_no_nan_macro(cp) -> None:
    """What an H200's NVRTC (CUDA 13) said of two lines a host compiler takes: there is
    no <assert.h> (device code's ``assert`` needs none), and <math.h>'s ``NAN`` and
    ``INFINITY`` are not defined; the emulator says the same, in NVRTC's words."""
    k = cp.RawKernel(r'''
#include <assert.h>
extern "C" __global__ void f(float* x) { assert(x[0] == 0.0f); }''', "f")
    with pytest.raises(cp.cuda.compiler.CompileException) as info:
        k((1,), (1,), (cp.zeros(1, dtype=cp.float32),))
    assert re.match(r'/\S*tmp[a-z0-9_]{8}/[0-9a-f]{40}\.cubin\.cu\(2\): catastrophic error: '
                    r'cannot open source file "assert.h"\n  #include <assert.h>\n',
                    str(info.value)), str(info.value)
    for name in ("NAN", "INFINITY"):
        k = cp.RawKernel(r'''
extern "C" __global__ void g(float* x) {
  x[0] = %s;
}''' % name, "g")
        with pytest.raises(cp.cuda.compiler.CompileException) as info:
            k((1,), (1,), (cp.zeros(1, dtype=cp.float32),))
        assert re.search(r'\.cubin\.cu\(3\): error: identifier "%s" is undefined' % name,
                         str(info.value)), str(info.value)
    # libcudacxx's <cuda/std/cmath> defines both for NVRTC (<cuda/std/complex> too)
    for header in ("cmath", "complex"):
        k = cp.RawKernel(r'''
#include <cuda/std/%s>
extern "C" __global__ void g(float* x) { x[0] = INFINITY; x[1] = NAN; }''' % header, "g")
        x = cp.zeros(2, dtype=cp.float32)
        k((1,), (1,), (x,))
        got = x.get()
        assert got[0] == float("inf") and got[1] != got[1], header
    # without either: assert() and CUDA's own constants compile and run
    k = cp.RawKernel(r'''
#include <math_constants.h>
extern "C" __global__ void h(float* x) {
  assert(x[0] == 0.0f);
  x[0] = CUDART_INF_F; x[1] = __int_as_float(0x7fc00000);
}''', "h")
    x = cp.zeros(2, dtype=cp.float32)
    k((1,), (1,), (x,))
    got = x.get()
    assert got[0] == float("inf") and got[1] != got[1]


# --- RawModule(path=...) ---------------------------------------------------------------
def test_module_load_failure(cp, tmp_path) -> None:
    missing = str(tmp_path / "this_does_not_exist.cubin")
    with pytest.raises(cp.cuda.driver.CUDADriverError, match="CUDA_ERROR_FILE_NOT_FOUND"):
        cp.RawModule(path=missing)
    with pytest.raises(TypeError):
        cp.RawModule()
    with pytest.raises(TypeError):
        cp.RawModule(code=_SUM, path=missing)
    with pytest.raises(ValueError, match="need CUDA C\\+\\+ code"):
        cp.RawModule(path=missing, name_expressions=["k<int>"])


# --- a MemoryPointer as an argument ----------------------------------------------------
def test_memory_pointer_argument(cp) -> None:
    code = r'''
extern "C" __global__ void my_func(void* input, int N) {
  double* arr = (double*)(input);
  unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < N) {
    arr[x] = 3.0 * arr[x] - 8.0;
  }
}
'''
    ker = cp.RawModule(code=code).get_function("my_func")
    a = cp.ones((100,), dtype=cp.float64)
    memptr = cp.cuda.memory.alloc(100 * 8)
    memptr.copy_from(a.data, 100 * 8)
    b = cp.ndarray((100,), cp.float64, memptr=memptr)
    ker((1,), (100,), (memptr, 100))
    assert (b.get() == -5.0).all()
    ker((1,), (100,), (memptr + 8 * 90, 10))  # an offset pointer: the last ten only
    assert (b.get()[:90] == -5.0).all() and (b.get()[90:] == -23.0).all()
    c = cp.zeros(4, cp.float64)
    ker((1,), (4,), (c.data, 4))  # an array's pointer
    assert (c.get() == -8.0).all()


# --- the compile log -------------------------------------------------------------------
_WARNS = r'''
extern "C" __global__
void test_op(const float* x1, const float* x2, float* y, unsigned int N) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    int j;  // To generate a warning to appear in the log stream
    if (tid < N)
        y[tid] = x1[tid] OP x2[tid];
}
'''


def test_compile_log_stream(cp) -> None:
    kern = cp.RawKernel(_WARNS, "test_op", options=("-DOP=+",))
    log = io.StringIO()
    assert kern.compile(log_stream=log) is None
    assert "warning" in log.getvalue() and "j" in log.getvalue()
    mod = cp.RawModule(code=_WARNS, options=("-DOP=*",))
    log = io.StringIO()
    mod.compile(log_stream=log)
    assert "warning" in log.getvalue()
    x1 = cp.arange(10, dtype=cp.float32)
    y = cp.zeros(10, dtype=cp.float32)
    mod.get_function("test_op")((1,), (10,), (x1, x1, y, 10))
    assert (y.get() == numpy.arange(10, dtype=numpy.float32) ** 2).all()
    log = io.StringIO()
    cp.RawKernel(_SUM, "test_sum").compile(log_stream=log)  # nothing to say
    assert "warning" not in log.getvalue()


def test_missing_header_is_nvrtc_worded(cp) -> None:
    with pytest.raises(cp.cuda.compiler.CompileException,
                       match='cannot open source file "no/such_header.h"'):
        cp.RawModule(code='#include <no/such_header.h>\n' + _SUM).get_function("test_sum")


# --- jitify ----------------------------------------------------------------------------
def test_jitify_deprecation_warnings(cp) -> None:
    with pytest.warns(DeprecationWarning, match="Avoid passing.*jitify=False") as rec:
        cp.RawKernel(_SUM, "test_sum", jitify=False)
    assert len(rec) == 1
    with pytest.warns(DeprecationWarning, match="jitify=True is deprecated") as rec:
        mod = cp.RawModule(code=_SUM, jitify=True)
    assert len(rec) == 1 and rec[0].filename == __file__
    with pytest.warns(DeprecationWarning, match="jitify=True is deprecated"):
        mod.get_function("test_sum")
    with pytest.warns(DeprecationWarning, match="Avoid passing"):
        quiet = cp.RawModule(code=_SUM, jitify=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cp.RawModule(code=_SUM).get_function("test_sum")  # no jitify argument: silent
        quiet.get_function("test_sum")  # CuPy's get_function passes jitify=None


@pytest.mark.filterwarnings("ignore:jitify=True is deprecated:DeprecationWarning")
def test_jitify_exception_and_missing_headers(cp, tmp_path) -> None:
    with pytest.raises(cp.cuda.compiler.JitifyException):
        cp.RawModule(code="__global__ void i_am_broken() {\n", jitify=True) \
            .get_function("i_am_broken")
    src = '#ifndef P\n#error precision not supported\n#endif\n' + _SUM
    with pytest.raises(cp.cuda.compiler.JitifyException):
        cp.RawModule(code=src, jitify=True).get_function("test_sum")
    with pytest.raises(ValueError, match="jitify only works with NVRTC"):
        cp.RawKernel(_SUM, "test_sum", backend="nvcc", jitify=True).compile()
    # an unused header that is not there: Jitify comments its include out
    (tmp_path / "I_INCLUDE_SOMETHING.h").write_text(
        "#include <cupy/I_DO_NOT_EXIST_WAH_HA_HA.h>\n")
    code = '#include "I_INCLUDE_SOMETHING.h"\n' + _SUM
    opts = ("-I" + str(tmp_path),)
    with pytest.raises(cp.cuda.compiler.CompileException, match="cannot open source file"):
        cp.RawModule(code=code, options=opts).get_function("test_sum")
    ker = cp.RawModule(code=code, options=opts, jitify=True).get_function("test_sum")
    x = cp.arange(10, dtype=cp.float32)
    y = cp.zeros(10, dtype=cp.float32)
    ker((1,), (10,), (x, x, y, 10))
    assert (y.get() == 2 * numpy.arange(10, dtype=numpy.float32)).all()


# --- CuPy's cache payload functions ----------------------------------------------------
def test_cache_payload_round_trip(cp) -> None:
    compiler = cp.cuda.compiler
    names = ["_Z6kernelIffEvv", "_Z6kernelIfdEvv"]
    payload = compiler._encode_cache_payload(names, b"\x7fELFcubin")
    assert compiler._decode_cache_payload(payload, 2) == (names, b"\x7fELFcubin")
    assert compiler._decode_cache_payload(payload, 1) is None
    assert compiler._decode_cache_payload(b"\x7fELF", 1) is None


# --- ndarray.mdspan (CuPy 14): libcudacxx's cuda::std::mdspan as a kernel argument ---------
_MDSPAN = r'''
#include <cuda/std/mdspan>
#include <cuda/std/limits>
#include <cuda/std/utility>
#include <cupy/float16.cuh>
#include <cupy/complex.cuh>

template<typename T, typename I, typename L>
__global__ void plus_index(
        cuda::std::mdspan<T, cuda::std::extents<I, cuda::std::dynamic_extent,
                                                cuda::std::dynamic_extent>, L> in,
        cuda::std::mdspan<T, cuda::std::extents<I, cuda::std::dynamic_extent,
                                                cuda::std::dynamic_extent>, L> out) {
    static_assert(sizeof(in) == sizeof(void*) + (cuda::std::is_same<L,
        cuda::std::layout_stride>::value ? 4 : 2) * sizeof(I), "libcudacxx's layout");
    I i = threadIdx.x, j = threadIdx.y;
    if (i < in.extent(0) && j < in.extent(1))
        out(i, j) = in(i, j) + T(10 * i + j);
}

template<typename T, typename I>
__global__ void scalar_plus_one(
        cuda::std::mdspan<T, cuda::std::extents<I,>, cuda::std::layout_stride> in,
        cuda::std::mdspan<T, cuda::std::extents<I,>, cuda::std::layout_stride> out) {
    // libcudacxx's other headers: the host library's, in namespace cuda::std
    auto p = cuda::std::make_pair(in(), T(cuda::std::numeric_limits<I>::digits));
    out() = p.first + T(1) + p.second;
}
'''


@pytest.mark.parametrize("index", ["int", "long long"])
def test_mdspan_arguments_strided_negative_and_zero_d(cp, index) -> None:
    names = [f"plus_index<double, {index}, cuda::std::{lay}>"
             for lay in ("layout_stride", "layout_right", "layout_left")]
    names.append(f"scalar_plus_one<float, {index}>")
    mod = cp.RawModule(code=_MDSPAN, options=("--std=c++17",), name_expressions=names)
    itype = cp.int32 if index == "int" else cp.int64
    host = numpy.arange(6 * 8, dtype=numpy.float64).reshape(6, 8)
    add = 10 * numpy.arange(6)[:, None] + numpy.arange(8)[None, :]

    # layout_stride: a strided view, and one with a negative stride (allow_unsafe)
    for view in (numpy.s_[::2, 1::3], numpy.s_[::-1, :]):
        a = cp.asarray(host)[view]
        out = cp.zeros((6, 8))
        unsafe = view[0].step < 0
        kern = mod.get_function(names[0])
        kern((1,), (8, 8), (a.mdspan(index_type=itype, allow_unsafe=unsafe),
                            out[view].mdspan(index_type=itype, allow_unsafe=unsafe)))
        expect = numpy.zeros((6, 8))
        v = host[view]
        expect[view] = v + add[:v.shape[0], :v.shape[1]]
        numpy.testing.assert_array_equal(out.get(), expect)

    # layout_right / layout_left read C / F order arrays through the extents alone
    for name, order in ((names[1], "C"), (names[2], "F")):
        a = cp.asarray(numpy.asarray(host, order=order))
        out = cp.zeros((6, 8), order=order)
        mod.get_function(name)((1,), (8, 8), (a.mdspan(index_type=itype),
                                              out.mdspan(index_type=itype)))
        numpy.testing.assert_array_equal(out.get(), host + add)

    # a 0-d array (`extents<I,>`: NVRTC's trailing comma)
    a = cp.arange(5, dtype=cp.float32)[2]
    out = cp.zeros((), cp.float32)
    mod.get_function(names[3])((1,), (1,), (a.mdspan(index_type=itype),
                                            out.mdspan(index_type=itype)))
    assert float(out) == 3.0 + (31 if index == "int" else 63)


def test_mdspan_checks_are_cupys(cp) -> None:
    a = cp.zeros((3, 4), cp.float32)
    with pytest.raises(ValueError, match=r"Unsupported index_type: .*Must be cupy.int32 or "
                                         r"cupy.int64"):
        a.mdspan(index_type=cp.int16)
    with pytest.raises(TypeError):
        a.mdspan(cp.int32)  # keyword-only, as CuPy's
    with pytest.raises(RuntimeError, match="^1-th dimension has size zero$"):
        cp.zeros((3, 0)).mdspan(index_type=cp.int64)
    with pytest.raises(RuntimeError, match="^0-th dimension has non-positive stride$"):
        a[::-1].mdspan(index_type=cp.int32)
    with pytest.raises(RuntimeError, match="^1-th dimension has non-positive stride$"):
        cp.broadcast_to(cp.ones(3), (3, 3)).T.mdspan(index_type=cp.int32)
    assert a[::-1].mdspan(index_type=cp.int32, allow_unsafe=True) is not None


def test_numpy_arguments_by_value_and_device_structs_by_address(cp) -> None:
    """CuPy's ``_pointer``: a numpy array of size one travels by value whatever its
    shape and dtype, a bigger one is refused with CuPy's message; a device array is
    its address, a structured one of size one too."""
    k = cp.RawKernel(r'''extern "C" __global__ void f(float* x, float a) {
        x[threadIdx.x] = a; }''', "f")
    x = cp.zeros(4, cp.float32)
    k((1,), (4,), (x, numpy.array([[3.5]], numpy.float32)))
    assert x.get().tolist() == [3.5] * 4
    with pytest.raises(TypeError, match=r"^You are trying to pass a numpy.ndarray of "
                                        r"shape \(4,\) as a kernel parameter. Only "):
        k((1,), (4,), (numpy.zeros(4, numpy.float32), numpy.float32(1)))
        cp.cuda.Device().synchronize()
    dt = numpy.dtype([("a", numpy.float32), ("b", numpy.float32)])
    s = cp.zeros(1, dt)
    cp.RawKernel(r'''struct S { float a, b; };
        extern "C" __global__ void g(S* s) { s->b = 7; }''', "g")((1,), (1,), (s,))
    assert s.get().tolist() == [(0.0, 7.0)]
    out = cp.zeros(1, cp.float32)
    cp.RawKernel(r'''struct S { float a, b; };
        extern "C" __global__ void h(S s, float* o) { o[0] = s.a * s.b; }''', "h")(
        (1,), (1,), (numpy.array([(1.5, 2.0)], dt), out))
    assert out.get().tolist() == [3.0]


def test_raw_kernels_and_modules_pickle_and_carry_their_options(cp) -> None:
    """CuPy's ``__getstate__``: a pickle of a RawKernel, a RawModule or a kernel of a
    module holds its source and options, and is compiled again where it is loaded;
    the constructor's options read back as attributes."""
    import pickle
    src = _SUM
    kernel = cp.RawKernel(src, "test_sum", options=("-DX=1",), enable_cooperative_groups=True)
    module = cp.RawModule(code=src, translate_cucomplex=False)
    for obj in (kernel, module, module.get_function("test_sum")):
        back = pickle.loads(pickle.dumps(obj))
        assert type(back) is type(obj)
        if type(back).__name__ == "RawModule":
            back = back.get_function("test_sum")
        x = cp.arange(8, dtype=cp.float32)
        y = cp.empty_like(x)
        back((1,), (8,), (x, x, y, numpy.uint32(8)))
        assert y.get().tolist() == [2.0 * i for i in range(8)]
    back = pickle.loads(pickle.dumps(kernel))
    assert back.enable_cooperative_groups is True and back.options == ("-DX=1",)
    assert back.name == "test_sum" and back.translate_cucomplex is False
    assert module.enable_cooperative_groups is False and module.file_path is None


_GRID_SYNC = r'''
#include <cooperative_groups.h>
extern "C" __global__ void grid_sum(const float* x, float* partial, float* out, int n,
                                    int* valid) {
    namespace cg = cooperative_groups;
    cg::grid_group grid = cg::this_grid();
    __shared__ float acc[64];
    float s = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) s += x[i];
    acc[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0;
        for (int k = 0; k < blockDim.x; ++k) t += acc[k];
        partial[blockIdx.x] = t;
    }
    if (!grid.is_valid()) { if (grid.thread_rank() == 0) *valid = 0; return; }
    grid.sync();                  // every block's partial sum is written
    if (grid.thread_rank() == 0) {
        float t = 0;
        for (int b = 0; b < gridDim.x; ++b) t += partial[b];
        *out = t;
        *valid = 1;
    }
}
'''


def test_grid_sync_in_a_cooperative_launch(cp) -> None:
    """``cooperative_groups::this_grid().sync()`` (CuPy's ``TestRawGridSync``): in a
    cooperative launch every block waits for all the others, each with its own shared
    memory; a 1-D grid larger than the blocks that fit at once is cut to them with
    CuPy's warning (``function.pyx: _launch``), and still sums right; a larger 2-D grid
    is CuPy's ``ValueError``; without a cooperative launch the grid is not valid."""
    x = cp.arange(100_000, dtype=cp.float32) % 7
    want = float(x.get().astype(numpy.float64).sum())
    k = cp.RawKernel(_GRID_SYNC, "grid_sum", enable_cooperative_groups=True)
    for blocks in (1, 3, 40):
        partial, out = cp.zeros(blocks, cp.float32), cp.zeros(1, cp.float32)
        valid = cp.full(1, -1, cp.int32)
        k((blocks,), (64,), (x, partial, out, numpy.int32(x.size), valid))
        assert int(valid[0]) == 1 and float(out[0]) == want
    with pytest.warns(UserWarning, match=r"The grid size will be reduced from 100000 to "
                      r"\d+, as the specified grid size exceeds the limit\."):
        k((100_000,), (64,), (x, cp.zeros(100_000, cp.float32), out, numpy.int32(x.size),
                              valid))
    assert int(valid[0]) == 1 and float(out[0]) == want
    with pytest.raises(ValueError, match=r"The specified grid size \(1000 \* 100 \* 1\) "
                       r"exceeds the limit \(\d+\)\."):
        k((1000, 100), (64,), (x, cp.zeros(100_000, cp.float32), out,
                               numpy.int32(x.size), valid))
    plain = cp.RawKernel(_GRID_SYNC, "grid_sum")
    valid[0] = -1
    plain((2,), (64,), (x, cp.zeros(2, cp.float32), out, numpy.int32(x.size), valid))
    assert int(valid[0]) == 0
