"""CuPy 14.2's answers for user kernels, streams, events and ``cupy.fuse`` through a real
server: scalar arguments assigned as ``CScalar.apply_dtype`` assigns them
(``cupy/_core/_scalar.pyx``: NumPy's ``PyArray_Pack``), an ElementwiseKernel's output
types read from every output (``_kernel.pyx``), a ReductionKernel's first output only
and its ``IndexT`` (``_reduction.pyx``), a RawKernel's ``grid``/``block`` tuples, sizes
of at least one and ``size_t shared_mem`` (``cupy/cuda/function.pyx``), Python ints from
2**63 on as uint64 (``numpy_dtype_from_pyscalar``), the default streams' device -1 and
the events' checks (``cupy/cuda/stream.pyx``), and ``Fusion``'s argument checks
(``cupy/_core/fusion.pyx``)."""
from __future__ import annotations

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


# --- ElementwiseKernel / ReductionKernel scalars --------------------------------------------

def test_elementwise_python_scalars_are_assigned_not_cast(cp):
    x = cp.arange(4, dtype=cp.float32)
    add = cp.ElementwiseKernel('T x, T y', 'T z', 'z = x + y', 'gs_k2_add')
    _raises(TypeError, "float() argument must be a string or a real number, not 'complex'",
            lambda: add(x, 2 + 1j))
    shift = cp.ElementwiseKernel('T x, int32 n', 'T z', 'z = x + n', 'gs_k2_shift')
    _raises(ValueError, "cannot convert float NaN to integer",
            lambda: shift(x, float('nan')))
    _raises(OverflowError, "cannot convert float infinity to integer",
            lambda: shift(x, float('inf')))
    assert shift(x, 2.7).get().tolist() == [2, 3, 4, 5]  # (int(2.7))
    # a NumPy scalar is cast
    assert shift(x, numpy.float64(2.7)).get().tolist() == [2, 3, 4, 5]


def test_reduction_python_complex_to_real_parameter(cp):
    k = cp.ReductionKernel('T x, float64 w', 'T y', 'x * w', 'a + b', 'y = a', '0',
                           'gs_k2_wsum')
    x = cp.ones(3, dtype=cp.float32)
    assert float(k(x, 2)) == 6.0
    _raises(TypeError, "float() argument must be a string or a real number, not 'complex'",
            lambda: k(x, 2 + 1j))


def test_elementwise_scalar_output_types(cp):
    add = cp.ElementwiseKernel('T x, T y', 'T z', 'z = x + y', 'gs_k2_add2')
    x = cp.arange(3, dtype=cp.float32)
    # CuPy reads a scalar output's dtype (float64) before it refuses it
    _raises(TypeError, "Type is mismatched. x float32 float64 T", lambda: add(x, x, 3.0))
    _raises(TypeError, "Output arguments type must be cupy.ndarray",
            lambda: add(x, x, numpy.float32(3)))


def test_elementwise_unknown_constructor_keyword(cp):
    k = cp.ElementwiseKernel('T x', 'T y', 'y = x', 'gs_k2_copy', foo=3)
    assert k.kwargs == {'foo': 3}
    _raises(TypeError, "_get_elementwise_kernel() got an unexpected keyword argument 'foo'",
            lambda: k(cp.arange(3)))
    k2 = cp.ElementwiseKernel('T x', 'T y', 'y = x + N', 'gs_k2_opt', options=('-DN=2',))
    assert k2(cp.arange(3)).get().tolist() == [2, 3, 4]


def test_reduction_identity_empty_string_is_no_identity(cp):
    k = cp.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '', 'gs_k2_noid')
    _raises(ValueError, "zero-size array to reduction operation gs_k2_noid which has no "
                        "identity", lambda: k(cp.empty(0, cp.float32)))
    assert float(k(cp.ones(4, cp.float32))) == 4.0


def test_reduction_returns_its_first_output(cp):
    k = cp.ReductionKernel('T x', 'T y, T z', 'x', 'a + b', 'y = a, z = -a', '0',
                           'gs_k2_two')
    x = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    for _ in range(2):  # (the second call is pipelined)
        r = k(x, axis=1)
        assert isinstance(r, cp.ndarray)
        assert r.get().tolist() == [6, 22, 38]


def test_reduction_index_type(cp):
    k = cp.ReductionKernel('T x', 'T y', '(IndexT)_J', 'a + b', 'y = a', '0', 'gs_k2_idx')
    assert float(k(cp.ones(5, cp.float32))) == 10.0


# --- RawKernel launches ----------------------------------------------------------------------

_SCALE = r'''
extern "C" __global__ void gs_k2_scale(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
extern "C" __global__ void gs_k2_addl(long long* y, long long v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += v;
}
'''


def test_raw_kernel_grid_and_block_are_tuples(cp):
    k = cp.RawKernel(_SCALE, 'gs_k2_scale')
    x = cp.arange(8, dtype=cp.float32)
    y = cp.zeros(8, cp.float32)
    args = (x, y, numpy.float32(2), numpy.int32(8))
    _raises(TypeError, "Argument 'grid' has incorrect type (expected tuple, got int)",
            lambda: k(1, (8,), args))
    _raises(TypeError, "Argument 'block' has incorrect type (expected tuple, got list)",
            lambda: k((1,), [8], args))
    _raises(TypeError, "'float' object cannot be interpreted as an integer",
            lambda: k((2.0,), (8,), args))
    assert not y.any()


def test_raw_kernel_sizes_below_one_launch_one(cp):
    k = cp.RawKernel(_SCALE, 'gs_k2_scale')
    x = cp.arange(8, dtype=cp.float32)
    y = cp.zeros(8, cp.float32)
    for grid in ((0,), (0,)):  # (the second launch is pipelined)
        y[:] = 0
        k(grid, (8,), (x, y, numpy.float32(2), numpy.int32(8)))
        assert y.get().tolist() == [2.0 * i for i in range(8)]
    y[:] = 0
    k((1, 1, 1, 5), (8, 0), (x, y, numpy.float32(3), numpy.int32(8)))  # (cut to three)
    assert y.get().tolist() == [3.0 * i for i in range(8)]


def test_raw_kernel_shared_mem_is_size_t(cp):
    k = cp.RawKernel(_SCALE, 'gs_k2_scale')
    x = cp.arange(8, dtype=cp.float32)
    args = (x, cp.zeros(8, cp.float32), numpy.float32(2), numpy.int32(8))
    _raises(OverflowError, "can't convert negative value to size_t",
            lambda: k((1,), (8,), args, shared_mem=-1))


def test_raw_kernel_python_ints_from_2_63_are_uint64(cp):
    k = cp.RawModule(code=_SCALE).get_function('gs_k2_addl')
    y = cp.zeros(2, cp.int64)
    k((1,), (2,), (y, 2 ** 63 + 5, numpy.int32(2)))
    assert y.get().tolist() == [-2 ** 63 + 5] * 2
    # (``CScalar._store_c_value``: NumPy's ``PyArray_Pack`` into uint64 / int64, whose
    # words for an int neither holds are these; seen on an H200 with NumPy 2.5.2)
    _raises(OverflowError, "Python int too large to convert to C long",
            lambda: k((1,), (2,), (y, 2 ** 64, numpy.int32(2))))
    _raises(OverflowError, "Python int too large to convert to C long",
            lambda: k((1,), (2,), (y, -2 ** 63 - 1, numpy.int32(2))))


# --- streams and events ----------------------------------------------------------------------

def test_default_streams_belong_to_no_device(cp):
    assert cp.cuda.Stream.null.device_id == -1
    assert cp.cuda.Stream.ptds.device_id == -1
    assert cp.cuda.Stream(null=True).device_id == -1
    assert repr(cp.cuda.Stream.null) == '<Stream 0 (device -1)>'
    assert cp.cuda.Stream(non_blocking=True).device_id == 0


def test_event_checks(cp):
    _raises(ValueError, "Timing must be disabled for interprocess events",
            lambda: cp.cuda.Event(interprocess=True))
    cp.cuda.Event(interprocess=True, disable_timing=True)
    e = cp.cuda.Event()
    e.record()
    _raises(AttributeError, "'int' object has no attribute 'ptr'",
            lambda: cp.cuda.get_elapsed_time(e, 3))


# --- cupy.fuse -------------------------------------------------------------------------------

def test_fuse_argument_checks(cp):
    @cp.fuse()
    def sqdiff(x, y):
        return (x - y) * (x - y)
    assert repr(sqdiff) == "<Fusion 'sqdiff'>"
    x = cp.arange(3, dtype=cp.float32)
    _raises(TypeError, "Invalid argument type for 'sqdiff': (<class 'cupy.ndarray'>, "
                       "<class 'list'>)", lambda: sqdiff(x, [1, 2, 3]))
    with pytest.raises(TypeError, match="unexpected keyword argument 'y'"):
        sqdiff(x, y=x)
    assert sqdiff(x, 1).get().tolist() == [1, 0, 1]
    assert sqdiff(3, 1) == 4  # no device array: the function itself runs

    # a fused kernel's outputs are new arrays: an argument returned is a copy
    @cp.fuse()
    def passthrough(a, b):
        return a, a + b
    same, total = passthrough(x, x)
    assert same is not x and same.get().tolist() == [0, 1, 2]
    same[0] = 7
    assert x.get().tolist() == [0, 1, 2] and total.get().tolist() == [0, 2, 4]
