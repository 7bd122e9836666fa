"""CuPy 14.2's answers for user kernels through a real server (fourth part):
``RawKernel.__call__(self, grid, block, args, **kwargs)`` (``cupy/_core/raw.pyx``)
compiles, then calls ``Function.__call__(grid, block, args,
enable_cooperative_groups=self.enable_cooperative_groups, **kwargs)``
(``cupy/cuda/function.pyx``), whose ``_launch`` takes ``len(args)`` and iterates it (a
list works; an object without a length is Python's TypeError), and checks a
cooperative launch's whole grid against the co-resident blocks (a 1-D grid is cut
down with a warning, another is a ValueError); Cython 3.2 converts ``shared_mem`` and
the grid's C ``int`` items through ``__int__``; a ``ReductionKernel``'s ``options``
key CuPy's memoized kernel caches (``_reduction.pyx``), so a list fails at the first
compile."""
from __future__ import annotations

import warnings

import numpy
import pytest

from _servers import BACKEND
from gpushare import launch_rules
from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)

_SCALE = r'''
extern "C" __global__ void gs_k4_scale(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
'''

_COUNT = r'''
extern "C" __global__ void gs_k4_count(unsigned int* n) {
  if (threadIdx.x == 0) atomicAdd(n, 1u);
}
'''


# --- the launch rules themselves (no server) --------------------------------------------

def test_cython_int_conversions_of_shared_mem_and_grid_items():
    # size_t / int parameters go through the object's __int__ (Cython 3.2)
    assert launch_rules.shared_mem_size(1.5) == 1
    assert launch_rules.shared_mem_size(-0.5) == 0
    assert launch_rules.shared_mem_size(numpy.int64(3)) == 3
    with pytest.raises(OverflowError, match="^can't convert negative value to size_t$"):
        launch_rules.shared_mem_size(-1.5)
    with pytest.raises(OverflowError,
                       match="^Python int too large to convert to C unsigned long$"):
        launch_rules.shared_mem_size(2 ** 64)
    with pytest.raises(TypeError, match="^an integer is required$"):
        launch_rules.shared_mem_size("1")
    assert launch_rules.dim3((1, 2.5, 3.9), "grid") == (1, 2, 3)
    # grid[0] is a Py_ssize_t: __index__, so a float is refused
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        launch_rules.dim3((2.5,), "grid")


def test_cooperative_grid_rule():
    assert launch_rules.cooperative_grid((4,), 256) == ((4, 1, 1), None)
    grid, message = launch_rules.cooperative_grid((1000,), 256)
    assert grid == (256, 1, 1)
    assert message == ("The grid size will be reduced from 1000 to 256, as the specified "
                       "grid size exceeds the limit.")
    # the whole grid[0], not its low 32 bits
    grid, message = launch_rules.cooperative_grid((2 ** 32 + 1,), 256)
    assert grid == (256, 1, 1) and "from 4294967297 to 256" in message
    with pytest.raises(ValueError, match=r"^The specified grid size \(200 \* 2 \* 1\) "
                                         r"exceeds the limit \(256\)\.$"):
        launch_rules.cooperative_grid((200, 2), 256)


# --- RawKernel.__call__'s args -----------------------------------------------------------

def test_raw_kernel_args_any_sized_iterable(cp):
    k = cp.RawKernel(_SCALE, 'gs_k4_scale')
    x = cp.arange(8, dtype=cp.float32)
    for launch in range(3):  # the first waits, the later ones are pipelined
        y = cp.zeros(8, cp.float32)
        k((1,), (8,), [x, y, numpy.float32(launch + 1), numpy.int32(8)])
        assert y.get().tolist() == [(launch + 1) * v for v in range(8)]
    y = cp.zeros(8, cp.float32)
    k((1,), (8,), args=[x, y, numpy.float32(3), numpy.int32(8)])
    assert y.get().tolist() == [3 * v for v in range(8)]


def test_raw_kernel_args_without_len(cp):
    k = cp.RawKernel(_SCALE, 'gs_k4_scale')
    x = cp.arange(8, dtype=cp.float32)
    y = cp.zeros(8, cp.float32)
    _raises(TypeError, "object of type 'int' has no len()", lambda: k((1,), (8,), 5))
    _raises(TypeError, "object of type 'NoneType' has no len()",
            lambda: k((1,), (8,), None))
    _raises(TypeError, "object of type 'generator' has no len()",
            lambda: k((1,), (8,), (a for a in (x, y, numpy.float32(2), numpy.int32(8)))))
    # grid and block are checked before len(args)
    _raises(TypeError, "Argument 'grid' has incorrect type (expected tuple, got int)",
            lambda: k(1, (8,), 5))
    assert not y.any()


def test_raw_kernel_call_parameters_as_cython_parses_them(cp):
    k = cp.RawKernel(_SCALE, 'gs_k4_scale')
    x = cp.arange(8, dtype=cp.float32)
    y = cp.zeros(8, cp.float32)
    args = (x, y, numpy.float32(2), numpy.int32(8))
    _raises(TypeError, "__call__() takes exactly 3 positional arguments (2 given)",
            lambda: k((1,), (8,)))
    _raises(TypeError, "__call__() takes exactly 3 positional arguments (4 given)",
            lambda: k((1,), (8,), args, 0))
    _raises(TypeError, "__call__() got multiple values for keyword argument 'grid'",
            lambda: k((1,), (8,), args, grid=(1,)))
    _raises(TypeError, "__call__() got an unexpected keyword argument 'foo'",
            lambda: k((1,), (8,), args, foo=1))
    assert not y.any()
    k(block=(8,), grid=(1,), args=args, shared_mem=1.5)  # (shared_mem through __int__)
    assert y.get().tolist() == [2 * v for v in range(8)]


def test_raw_kernel_call_takes_no_enable_cooperative_groups(cp):
    """``RawKernel.__call__`` passes the kernel's own ``enable_cooperative_groups`` to
    ``Function.__call__`` beside ``**kwargs``: giving it again is Cython's TypeError."""
    x = cp.arange(8, dtype=cp.float32)
    y = cp.zeros(8, cp.float32)
    args = (x, y, numpy.float32(2), numpy.int32(8))
    for coop in (False, True):
        k = cp.RawKernel(_SCALE, 'gs_k4_scale', enable_cooperative_groups=coop)
        for value in (True, False):
            _raises(TypeError, "function() got multiple values for keyword argument "
                               "'enable_cooperative_groups'",
                    lambda: k((1,), (8,), args, enable_cooperative_groups=value))
    assert not y.any()


def test_raw_kernel_stream_must_have_ptr(cp):
    k = cp.RawKernel(_SCALE, 'gs_k4_scale')
    x = cp.arange(8, dtype=cp.float32)
    y = cp.zeros(8, cp.float32)
    _raises(AttributeError, "'int' object has no attribute 'ptr'",
            lambda: k((1,), (8,), (x, y, numpy.float32(2), numpy.int32(8)), stream=1))


# --- cooperative launches ----------------------------------------------------------------

def _coop_limit(cp) -> int:
    """The co-resident blocks CuPy checks a cooperative launch against
    (``occupancyMaxActiveBlocksPerMultiprocessor(func, 32 threads, 0) *
    MultiProcessorCount``): the emulator's ``COOP_MAX_BLOCKS`` on the CPU backend; on a
    GPU the hardware's, which for this 32-thread kernel without shared memory and with
    few registers is bounded by the blocks an SM may hold (32 * 132 SMs = 4224 on the
    H200 the cupy-backend run used)."""
    if BACKEND == "cpu":
        return launch_rules.COOP_MAX_BLOCKS
    rt = cp.cuda.runtime
    return (rt.deviceGetAttribute(rt.cudaDevAttrMaxBlocksPerMultiprocessor, 0)
            * rt.deviceGetAttribute(rt.cudaDevAttrMultiProcessorCount, 0))


def test_cooperative_launch_one_dimensional_grid_is_cut_down(cp):
    k = cp.RawKernel(_COUNT, 'gs_k4_count', enable_cooperative_groups=True)
    n = cp.zeros(1, cp.uint32)
    k((8,), (32,), (n,))
    assert int(n[0]) == 8
    limit = _coop_limit(cp)
    for grid in ((limit + 10,), (2 ** 32 + 1,)):  # (the whole grid[0] is compared)
        n[...] = 0
        with pytest.warns(UserWarning, match=r"The grid size will be reduced from %d to "
                                             r"%d, as the specified grid size exceeds "
                                             r"the limit\." % (grid[0], limit)):
            k(grid, (32,), (n,))
        assert int(n[0]) == limit


def test_cooperative_launch_larger_grid_of_more_dimensions_fails(cp):
    k = cp.RawKernel(_COUNT, 'gs_k4_count', enable_cooperative_groups=True)
    n = cp.zeros(1, cp.uint32)
    limit = _coop_limit(cp)
    _raises(ValueError, "The specified grid size (%d * 2 * 1) exceeds the limit (%d)."
            % (limit, limit), lambda: k((limit, 2), (32,), (n,)))
    plain = cp.RawKernel(_COUNT, 'gs_k4_count')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain((limit, 2), (1,), (n,))
    assert int(n[0]) == 2 * limit


# --- ReductionKernel's options -----------------------------------------------------------

def test_reduction_kernel_options_list_fails_at_the_call(cp):
    k = cp.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'gs_k4_rsum',
                           options=['-DGS_K4=1'])
    assert k.options == ['-DGS_K4=1']  # (kept as given)
    x = cp.ones((2, 3), cp.float32)
    _raises(TypeError, "unhashable type: 'list'", lambda: k(x))
    good = cp.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0', 'gs_k4_rsum2',
                              options=('-DGS_K4=1',))
    assert float(good(x)) == 6.0


def test_numpy_scalars_are_packed_into_typed_parameters_as_cupy_packs_them(cp):
    """``CScalar.apply_dtype`` is NumPy's ``PyArray_Pack``, an item assignment, not a
    cast: NumPy takes its own integer scalars into a signed type as known scalars and
    sets them, so ``numpy.int64(1000)`` for an ``int8`` parameter is NumPy's
    OverflowError (a cast would wrap it to -24), and a NaN for an integer its
    ValueError; an in-range NumPy scalar is taken as it is."""
    k = cp.ElementwiseKernel('int8 x, int8 s', 'int8 y', 'y = x + s', 'gs_k4_pack')
    x = cp.arange(4, dtype=cp.int8)
    # (first: a kernel's first call with these argument types waits, so the error is
    # raised at the call, as CuPy raises it; later ones are pipelined)
    _raises(OverflowError, "Python integer 1000 out of bounds for int8",
            lambda: k(x, numpy.int64(1000)))
    _raises(ValueError, "cannot convert float NaN to integer",
            lambda: k(x, numpy.float64("nan")))
    assert k(x, numpy.int64(5)).get().tolist() == [5, 6, 7, 8]
