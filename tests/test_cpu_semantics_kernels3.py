"""CuPy 14.2's answers for user kernels and streams through a real server (third part):
a RawKernel launch's ``grid``/``block``/``shared_mem`` as ``Function.__call__`` and
``_launch`` convert them (``cupy/cuda/function.pyx``: ``Py_ssize_t`` and ``int``
parameters, ``<int>`` casts into ``cuLaunchKernel``'s ``unsigned int``), one rule
for client and server (``gpushare.launch_rules``); a Python bool argument packed as
one byte (``CScalar``, ``cupy/_core/_scalar.pyx``); the kernel constructors'
signatures as Cython checks them (``_kernel.pyx``, ``_reduction.pyx``, ``raw.pyx``);
``ReductionKernel``'s ``axis`` (``_reduction.pyx: _get_axis``); keyword arguments
that decide a result's shape never reuse another call's layout; stream priorities
clamped into the device's range (``cudaStreamCreateWithPriority``)."""
from __future__ import annotations

import numpy
import pytest

from gpushare import launch_rules
from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)

_INVALID = "CUDA_ERROR_INVALID_VALUE: invalid argument"


# --- the launch rules themselves (no server) --------------------------------------------

def test_dim3_pads_raises_to_one_and_converts_as_cupy():
    assert launch_rules.dim3((4,), "grid") == (4, 1, 1)
    assert launch_rules.dim3((0, -3, 2, 9), "grid") == (1, 1, 2)  # max(1, .), cut to 3
    assert launch_rules.dim3((numpy.int64(5), True), "block") == (5, 1, 1)
    # grid[0] is a Py_ssize_t passed as <int> to an unsigned int: its low 32 bits
    assert launch_rules.dim3((2 ** 32 + 3,), "grid") == (3, 1, 1)
    assert launch_rules.dim3((2 ** 32,), "grid") == (0, 1, 1)
    with pytest.raises(OverflowError, match="^Python int too large to convert to C ssize_t$"):
        launch_rules.dim3((2 ** 63,), "grid")
    # the other two are C ints
    with pytest.raises(OverflowError, match="^value too large to convert to int$"):
        launch_rules.dim3((1, 2 ** 31), "block")
    with pytest.raises(TypeError, match=r"^Argument 'grid' has incorrect type "
                                        r"\(expected tuple, got list\)$"):
        launch_rules.dim3([1], "grid")
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        launch_rules.dim3((2.0,), "grid")
    assert launch_rules.dim3((0.5,), "grid") == (1, 1, 1)  # (max(1, 0.5) is 1)


def test_launch_limits():
    ok = launch_rules.within_limits
    assert ok((2 ** 31 - 1, 65535, 65535), (1024, 1, 1), 49152)
    assert not ok((1, 65536, 1), (1, 1, 1), 0)
    assert not ok((0, 1, 1), (1, 1, 1), 0)
    assert not ok((1, 1, 1), (32, 32, 2), 0)      # 2048 threads
    assert not ok((1, 1, 1), (1, 1, 65), 0)
    assert not ok((1, 1, 1), (1, 1, 1), 49153)
    assert ok((1, 1, 1), (1, 1, 1), 2 ** 32)      # <int> into unsigned int: 0
    assert ok((1, 1, 1), (1, 1, 1), 100000, max_shared=100000)
    assert not launch_rules.launch_ok((1,), (8,), -1)
    assert launch_rules.launch_ok((1,), (8,), 1.0)  # (Cython's size_t: __int__)
    assert not launch_rules.launch_ok(None, (8,), 0)
    assert not launch_rules.launch_ok((object(),), (8,), 0)
    assert launch_rules.launch_ok((1,), (8,), 0)


# --- launches through a server ----------------------------------------------------------

_SCALE = r'''
extern "C" __global__ void gs_k3_scale(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
extern "C" __global__ void gs_k3_dims(int* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    out[0] = gridDim.x; out[1] = gridDim.y; out[2] = blockDim.x; out[3] = blockDim.y;
  }
}
'''


def test_grid_and_block_items_convert_as_cupy(cp):
    k = cp.RawKernel(_SCALE, 'gs_k3_dims')
    out = cp.zeros(4, cp.int32)
    k((2 ** 32 + 3, 2), (2 ** 32 + 8, 1), (out,))  # <int> casts of grid[0], block[0]
    assert out.get().tolist() == [3, 2, 8, 1]
    _raises(cp.cuda.driver.CUDADriverError, _INVALID, lambda: k((2 ** 32,), (8,), (out,)))
    _raises(OverflowError, "value too large to convert to int",
            lambda: k((1, 2 ** 31), (8,), (out,)))
    _raises(OverflowError, "value too large to convert to int",
            lambda: k((1,), (8, 1, 2 ** 40), (out,)))
    _raises(OverflowError, "Python int too large to convert to C ssize_t",
            lambda: k((2 ** 63,), (8,), (out,)))
    _raises(cp.cuda.driver.CUDADriverError, _INVALID,
            lambda: k((1, 65536), (8,), (out,)))
    _raises(cp.cuda.driver.CUDADriverError, _INVALID, lambda: k((1,), (2048,), (out,)))


def test_shared_mem_is_cut_to_32_bits(cp):
    k = cp.RawKernel(_SCALE, 'gs_k3_scale')
    x = cp.arange(8, dtype=cp.float32)
    y = cp.zeros(8, cp.float32)
    args = (x, y, numpy.float32(2), numpy.int32(8))
    k((1,), (8,), args, shared_mem=2 ** 32)  # <int>shared_mem: 0 bytes
    assert y.get().tolist() == [2.0 * i for i in range(8)]
    _raises(cp.cuda.driver.CUDADriverError, _INVALID,
            lambda: k((1,), (8,), args, shared_mem=2 ** 32 + 49153))


def test_refused_launches_raise_at_the_launch_even_when_pipelined(cp):
    """After a launch of an argument signature, the next are queued only when the
    shared rule says they pass: the others still raise at the call."""
    k = cp.RawKernel(_SCALE, 'gs_k3_scale')
    x = cp.arange(8, dtype=cp.float32)
    y = cp.zeros(8, cp.float32)
    args = (x, y, numpy.float32(2), numpy.int32(8))
    k((1,), (8,), args)
    k((1,), (8,), args)  # (queued)
    with pytest.raises(cp.cuda.driver.CUDADriverError):
        k((1,), (8,), args, shared_mem=49153)
    with pytest.raises(cp.cuda.driver.CUDADriverError):
        k((2 ** 32,), (8,), args)
    k.max_dynamic_shared_size_bytes = 1024
    with pytest.raises(cp.cuda.driver.CUDADriverError):
        k((1,), (8,), args, shared_mem=2048)
    k((1,), (8,), args, shared_mem=1024)
    assert y.get().tolist() == [2.0 * i for i in range(8)]


# --- a Python bool is one byte ----------------------------------------------------------

_BOOLS = r'''
extern "C" __global__ void gs_k3_bool(bool f, int n, double d, bool g, long long* out) {
  out[0] = f; out[1] = n; out[2] = (long long)(d * 10); out[3] = g;
}
extern "C" __global__ void gs_k3_wide(long long v, int w, long long* out) {
  out[0] = v; out[1] = w;
}
'''


def test_python_bool_arguments(cp):
    m = cp.RawModule(code=_BOOLS)
    out = cp.zeros(4, cp.int64)
    m.get_function('gs_k3_bool')((1,), (1,), (True, 7, 2.5, False, out))
    assert out.get().tolist() == [1, 7, 25, 0]
    m.get_function('gs_k3_bool')((1,), (1,), (False, -3, 0.5, True, out))
    assert out.get().tolist() == [0, -3, 5, 1]
    # a wider parameter reads the byte and the zeros after it (CScalar's buffer)
    m.get_function('gs_k3_wide')((1,), (1,), (True, True, out))
    assert out.get().tolist()[:2] == [1, 1]


# --- the constructors' signatures ---------------------------------------------------------

def test_elementwise_kernel_extra_arguments_are_keywords(cp):
    _raises(TypeError, "__init__() takes at most 8 positional arguments (9 given)",
            lambda: cp.ElementwiseKernel('T x', 'T y', 'y = x + s', 'gs_k3_pos', True, '',
                                         False, False, 'const T s = 2;'))
    _raises(TypeError, "__init__() takes at least 3 positional arguments (2 given)",
            lambda: cp.ElementwiseKernel('T x', 'T y'))
    _raises(TypeError, "__init__() got multiple values for keyword argument 'name'",
            lambda: cp.ElementwiseKernel('T x', 'T y', 'y = x', 'gs_k3_a', name='b'))
    k = cp.ElementwiseKernel('T x', 'T y', 'y = x + s', 'gs_k3_kw',
                             loop_prep='const T s = 2;', after_loop='',
                             options=('-DUNUSED=1',))
    assert k.kwargs == {'loop_prep': 'const T s = 2;', 'after_loop': '',
                        'options': ('-DUNUSED=1',)}
    assert k(cp.arange(3, dtype=cp.float32)).get().tolist() == [2.0, 3.0, 4.0]


def test_elementwise_kernel_keywords_are_checked_at_the_call(cp):
    x = cp.arange(3, dtype=cp.float32)
    # CuPy's memoized ``_get_elementwise_kernel(..., **self.kwargs)``: hashed first
    k = cp.ElementwiseKernel('T x', 'T y', 'y = x', 'gs_k3_l', options=['-DGS_K3=1'])
    _raises(TypeError, "unhashable type: 'list'", lambda: k(x))
    k = cp.ElementwiseKernel('T x', 'T y', 'y = x', 'gs_k3_p', loop_prep=3)
    _raises(TypeError, "Argument 'loop_prep' has incorrect type (expected str, got int)",
            lambda: k(x))


def test_reduction_kernel_signature(cp):
    args = ('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'gs_k3_sum', None, True, '', ())
    _raises(TypeError, "__init__() takes at most 11 positional arguments (12 given)",
            lambda: cp.ReductionKernel(*args, 5))
    _raises(TypeError, "__init__() got an unexpected keyword argument 'loop_prep'",
            lambda: cp.ReductionKernel(*args[:7], loop_prep=''))
    _raises(TypeError, "__init__() takes at least 6 positional arguments (5 given)",
            lambda: cp.ReductionKernel(*args[:5]))
    _raises(TypeError, "Argument 'in_params' has incorrect type (expected str, got int)",
            lambda: cp.ReductionKernel(3, *args[1:7]))
    k = cp.ReductionKernel(*args)
    assert float(k(cp.ones(4, cp.float32))) == 4.0


def test_raw_kernel_and_module_signatures(cp):
    src = 'extern "C" __global__ void gs_k3_f(int* y) { y[0] = 1; }'
    _raises(TypeError, "__init__() takes at most 4 positional arguments (5 given)",
            lambda: cp.RawKernel(src, 'gs_k3_f', (), 'nvrtc', True))
    _raises(TypeError, "__init__() takes at least 2 positional arguments (1 given)",
            lambda: cp.RawKernel(src))
    _raises(TypeError, "Argument 'options' has incorrect type (expected tuple, got list)",
            lambda: cp.RawKernel(src, 'gs_k3_f', ['-DGS_K3=1']))
    _raises(TypeError, "Argument 'name' has incorrect type (expected str, got int)",
            lambda: cp.RawKernel(src, 3))
    _raises(TypeError, "__init__() got an unexpected keyword argument 'foo'",
            lambda: cp.RawKernel(src, 'gs_k3_f', foo=1))
    _raises(TypeError, "__init__() takes exactly 0 positional arguments (1 given)",
            lambda: cp.RawModule(src))
    _raises(TypeError, "Argument 'options' has incorrect type (expected tuple, got list)",
            lambda: cp.RawModule(code=src, options=['-DGS_K3=1']))
    _raises(TypeError, "__init__() got an unexpected keyword argument 'name'",
            lambda: cp.RawModule(code=src, name='gs_k3_f'))
    y = cp.zeros(1, cp.int32)
    cp.RawKernel(src, 'gs_k3_f', ('-DGS_K3=1',), 'nvrtc', translate_cucomplex=False)(
        (1,), (1,), (y,))
    assert int(y[0]) == 1


# --- ReductionKernel's axis ---------------------------------------------------------------

def test_reduction_axis_must_be_integers(cp):
    k = cp.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'gs_k3_rsum')
    x = cp.ones((2, 3), cp.float32)
    _raises(TypeError, "'float' object cannot be interpreted as an integer",
            lambda: k(x, axis=1.5))
    _raises(TypeError, "'float' object cannot be interpreted as an integer",
            lambda: k(x, axis=1.0))
    _raises(TypeError, "'float' object cannot be interpreted as an integer",
            lambda: k(x, axis=(0, 1.0)))
    # a string is a sequence (PySequence_Check): its characters are the axes
    _raises(TypeError, "'str' object cannot be interpreted as an integer",
            lambda: k(x, axis='1'))
    _raises(numpy.exceptions.AxisError, "axis 2 is out of bounds for array of dimension 2",
            lambda: k(x, axis=2))
    assert k(x, axis=numpy.int64(1)).get().tolist() == [3.0, 3.0]
    assert k(x, axis=[0, -1]).get().tolist() == 6.0


# --- keyword arguments that decide the result's shape ------------------------------------

def test_keywords_that_give_the_shape_are_not_pipelined_across_values(cp):
    k = cp.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'gs_k3_rsum2')
    x = cp.ones((2, 3, 4, 5), cp.float32)
    for axis, shape in ((2, (2, 3, 5)), (3, (2, 3, 4)), (2, (2, 3, 5)), (3, (2, 3, 4)),
                        ((0, 2), (3, 5)), ((0, 3), (3, 4))):
        r = k(x, axis=axis)
        assert r.shape == shape and r.get().shape == shape
    for keepdims, shape in ((True, (2, 1, 4, 5)), (False, (2, 4, 5)),
                            (True, (2, 1, 4, 5)), (False, (2, 4, 5))):
        r = k(x, axis=1, keepdims=keepdims)
        assert r.shape == shape and r.get().shape == shape
    e = cp.ElementwiseKernel('raw T x', 'T y', 'y = x[i]', 'gs_k3_gather')
    src = cp.arange(16, dtype=cp.float32)
    for size in (10, 11, 10, 11):
        r = e(src, size=size)
        assert r.shape == (size,) and r.get().tolist() == list(range(size))


# --- stream priorities ----------------------------------------------------------------------

def test_stream_priorities_are_clamped_into_the_device_range(cp):
    # CUDA clamps to [greatest, least] = [-5, 0] (Ampere and Hopper GPUs)
    assert cp.cuda.runtime.deviceGetAttribute(
        cp.cuda.runtime.cudaDevAttrStreamPrioritiesSupported, 0) == 1
    assert cp.cuda.Stream().priority == 0
    assert cp.cuda.Stream(priority=-3).priority == -3
    assert cp.cuda.Stream(priority=-100).priority == -5
    assert cp.cuda.Stream(priority=100).priority == 0
    assert cp.cuda.Stream(non_blocking=True, priority=-1).priority == -1
    assert cp.cuda.Stream(null=True, priority=-3).priority == 0  # (not created)
    _raises(OverflowError, "value too large to convert to int",
            lambda: cp.cuda.Stream(priority=2 ** 31))
