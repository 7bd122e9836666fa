"""``cupyx.jit`` accepts and refuses what CuPy 14.2's transpiler does
(``cupyx/jit/_compile.py``, ``_builtin_funcs.py``, ``_interface.py``): kernels run on a
real server (the ``cp`` fixture); errors are raised at the first launch, with CuPy's
exception types and words."""
from __future__ import annotations

import math

import numpy
import pytest

import gpushare.cupyx.jit as jit

pytestmark = pytest.mark.timeout(180)

# ``cupy`` inside kernel bodies is gpushare's module, as in a program run under gpushare
import gpushare.cupy as cupy  # noqa: E402

N_CONST = 10
SHAPE = (2, 3)


# --- kernels (module level: the transpiler reads their source) -------------------------
@jit.rawkernel()
def print_constants(x):
    print("compile-time", 42)
    x[0] = 1


@jit.rawkernel()
def print_runtime(x):
    print(x[0])


@jit.rawkernel()
def abs_runtime(x, y):
    i = jit.threadIdx.x
    y[i] = abs(x[i])


@jit.rawkernel()
def abs_constant(y):
    y[0] = abs(-3)


@jit.rawkernel()
def math_runtime(x, y):
    i = jit.threadIdx.x
    y[i] = math.sqrt(x[i])


@jit.rawkernel()
def math_constant(y):
    y[0] = math.sqrt(2.0)
    y[1] = math.floor(2.5)


@jit.rawkernel()
def numpy_ufunc_runtime(x, y):
    i = jit.threadIdx.x
    y[i] = numpy.sqrt(x[i])


@jit.rawkernel()
def cupy_ufuncs(x, y):
    i = jit.threadIdx.x
    y[i] = cupy.sqrt(x[i]) + cupy.absolute(x[i] - 10.0)


@jit.rawkernel()
def cupy_ufunc_on_constant(y):
    y[0] = cupy.sqrt(2.0)


@jit.rawkernel()
def list_literal(y):
    a = [1, 2]
    y[0] = a[0]


@jit.rawkernel()
def assign_global(y):
    N_CONST = 5
    y[0] = N_CONST


@jit.rawkernel()
def assign_global_runtime(x, y):
    N_CONST = x[0]
    y[0] = N_CONST


@jit.rawkernel()
def rebind_int_to_float(y):
    v = 1
    v = 2.5
    y[0] = v


@jit.rawkernel()
def rebind_int_to_int64(x, y):
    v = 1
    v = x[0]
    y[0] = v


@jit.rawkernel()
def constant_in_block(x, y):
    if x[0] > 0:
        t = SHAPE
    y[0] = 1


@jit.rawkernel()
def constant_over_data(x, y):
    t = x[0]
    t = SHAPE
    y[0] = 1


@jit.rawkernel()
def scalar_over_constant(y):
    t = SHAPE
    t = 1
    y[0] = t


@jit.rawkernel()
def constant_rebound(y):
    t = (1, 2)
    t = (3, 4, 5)
    y[0] = t[2]


@jit.rawkernel()
def augassign_global(y):
    N_CONST += 1  # a local name in Python: unbound here
    y[0] = N_CONST


@jit.rawkernel()
def augassign_constant(y):
    t = SHAPE
    t += 1
    y[0] = 1


@jit.rawkernel()
def augassign_float_into_int(y):
    v = 1
    v += 1.5
    y[0] = v


@jit.rawkernel()
def augassign_element_float_into_int(y):
    y[0] += 1.5


@jit.rawkernel()
def loop_over_global(y):
    for N_CONST in range(3):  # a local name in Python
        y[0] = N_CONST


@jit.rawkernel()
def loop_over_constant(y):
    t = SHAPE
    for t in range(3):
        y[0] = t


@jit.rawkernel()
def loop_type_mismatch(x, y):
    i = x[0]
    for i in range(3):
        y[0] = i


@jit.rawkernel()
def tuple_rebound(x, y):
    t = (x[0], x[1])
    t = (t[1], t[0])
    y[0], y[1] = t


@jit.rawkernel()
def tuple_rebound_other_types(x, y):
    t = (x[0], x[1])
    t = (x[0], 1.5)
    y[0] = t[0]


@jit.rawkernel()
def warpsize_store(y):
    y[0] = jit.warpsize


@jit.rawkernel(mode="numpy")
def warpsize_is_int32(y):
    v = jit.warpsize
    v = v * 100000000
    y[0] = v


@jit.rawkernel()
def warpsize_shared(y):
    smem = jit.shared_memory(numpy.int32, jit.warpsize)
    y[0] = smem[0]


@jit.rawkernel()
def chained_compare(x, y):
    i = jit.threadIdx.x
    y[i] = 0 < x[i] < 5


@jit.rawkernel()
def ifexp_constant(x, y):
    y[0] = x[0] if N_CONST > 0 else x[1]


@jit.rawkernel()
def len_of_tuple(x, y):
    y[0] = len(x.shape)


@jit.rawkernel()
def len_of_array(x, y):
    y[0] = len(x)


@jit.rawkernel()
def ifexp_types(x, y):
    y[0] = x[0] if x[0] > 0 else numpy.float64(1)


@jit.rawkernel()
def casts(x, y, z):
    i = jit.threadIdx.x
    y[i] = numpy.float32(x[i]) / 3
    z[i] = complex(x[i])


# spot checks of patterns that work
@jit.rawkernel(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@jit.rawkernel()
def patterns(x, y, counts):
    tid = jit.grid(1)
    nthreads = jit.gridsize(1)
    smem = jit.shared_memory(numpy.float32, 64)
    smem[jit.threadIdx.x] = x[tid]
    jit.syncthreads()
    acc = numpy.float32(0)
    for k in range(jit.blockDim.x - 1, -1, -2):  # a negative step
        acc += smem[k]
    j = 0
    while j < 3:
        j += 1
    lo, hi = numpy.float32(-1), numpy.float32(1)
    y[tid] = clamp(acc / 32 + j, lo, hi) if tid < nthreads else 0
    jit.atomic_add(counts, 0, 1)


# --- helpers -------------------------------------------------------------------------
def _first_call_raises(kernel, args, exc, match, grid=1, block=1):
    """The kernel is refused at its first launch (CuPy compiles lazily), not before."""
    assert not kernel._cached_codes
    with pytest.raises(exc, match=match):
        kernel((grid,), (block,), args)


# --- 1. built-ins ----------------------------------------------------------------------
def test_print_of_constants_runs_at_compile_time(cp, capsys) -> None:
    x = cp.zeros(1, dtype=numpy.int32)
    print_constants((1,), (4,), (x,))
    assert capsys.readouterr().out == "compile-time 42\n"
    assert x.get().tolist() == [1]
    assert "printf" not in print_constants.cached_code
    print_constants((1,), (4,), (x,))  # cached: no second print
    assert capsys.readouterr().out == ""


def test_print_of_runtime_values_is_refused(cp) -> None:
    x = cp.zeros(1, dtype=numpy.int32)
    _first_call_raises(print_runtime, (x,), TypeError, r"Invalid function call 'print'\.")


def test_abs(cp) -> None:
    x = cp.asarray(numpy.array([-1.5, 2.0], dtype=numpy.float32))
    y = cp.zeros(2, dtype=numpy.float32)
    _first_call_raises(abs_runtime, (x, y), TypeError, r"Invalid function call 'abs'\.")
    z = cp.zeros(1, dtype=numpy.int32)
    abs_constant((1,), (1,), (z,))
    assert z.get().tolist() == [3]


def test_math_module(cp) -> None:
    x = cp.asarray(numpy.array([4.0, 9.0], dtype=numpy.float32))
    y = cp.zeros(2, dtype=numpy.float32)
    _first_call_raises(math_runtime, (x, y), TypeError, r"Invalid function call 'sqrt'\.")
    _first_call_raises(numpy_ufunc_runtime, (x, y), TypeError,
                       r"Invalid function call 'sqrt'\.")
    z = cp.zeros(2, dtype=numpy.float64)
    math_constant((1,), (1,), (z,))  # math on constants: Python's, at compile time
    assert z.get().tolist() == [math.sqrt(2.0), 2.0]


def test_cupy_ufuncs(cp) -> None:
    x = cp.asarray(numpy.array([4.0, 16.0], dtype=numpy.float32))
    y = cp.zeros(2, dtype=numpy.float32)
    cupy_ufuncs((1,), (2,), (x, y))
    assert y.get().tolist() == [8.0, 10.0]
    # a ufunc on a constant is a float32 run-time value in mode='cuda', not folded
    z = cp.zeros(1, dtype=numpy.float64)
    cupy_ufunc_on_constant((1,), (1,), (z,))
    assert z.get()[0] == float(numpy.sqrt(numpy.float32(2.0)))
    assert z.get()[0] != math.sqrt(2.0)


def test_list_literal_is_refused(cp) -> None:
    y = cp.zeros(1, dtype=numpy.int32)
    _first_call_raises(list_literal, (y,), ValueError,
                       r"Not supported: type <class 'ast\.List'>")


# --- 2. constants and rebinding -------------------------------------------------------
def test_constants_cannot_be_assigned(cp) -> None:
    y = cp.zeros(1, dtype=numpy.int32)
    # a name assigned in the function is local (Python's scoping): the global is unseen
    assign_global((1,), (1,), (y,))
    assert y.get().tolist() == [5]
    x = cp.asarray(numpy.array([9], dtype=numpy.int32))
    assign_global_runtime((1,), (1,), (x, y))
    assert y.get().tolist() == [9]
    # a compile-time (non-scalar) name cannot then hold run-time data
    _first_call_raises(scalar_over_constant, (y,), TypeError,
                       "lvalue of assignment must not be constant value")


def test_rebinding_casts_same_kind(cp) -> None:
    y = cp.zeros(1, dtype=numpy.int32)
    _first_call_raises(rebind_int_to_float, (y,), TypeError,
                       "Cannot cast from 'float32' to int32 with casting rule same_kind.")
    x = cp.asarray(numpy.array([7], dtype=numpy.int64))
    rebind_int_to_int64((1,), (1,), (x, y))
    assert y.get().tolist() == [7]


def test_non_scalar_constants(cp) -> None:
    x = cp.ones(1, dtype=numpy.int32)
    y = cp.zeros(1, dtype=numpy.int32)
    _first_call_raises(constant_in_block, (x, y), TypeError,
                       "Cannot assign constant value not at top-level.")
    _first_call_raises(constant_over_data, (x, y), TypeError,
                       "Type mismatch of variable: `t`")
    constant_rebound((1,), (1,), (y,))  # a compile-time name can be rebound
    assert y.get().tolist() == [5]


def test_augmented_assignment(cp) -> None:
    y = cp.zeros(1, dtype=numpy.int32)
    _first_call_raises(augassign_global, (y,), NameError, "Unbound name: N_CONST")
    _first_call_raises(augassign_constant, (y,), AttributeError,
                       "'Constant' object has no attribute 'code'")
    _first_call_raises(augassign_float_into_int, (y,), TypeError,
                       r"Cannot cast array data from dtype\('float32'\) to "
                       r"dtype\('int32'\) according to the rule 'same_kind'")
    _first_call_raises(augassign_element_float_into_int, (y,), TypeError,
                       r"Cannot cast array data from dtype\('float32'\) to dtype\('int32'\)")


def test_loop_counter(cp) -> None:
    y = cp.zeros(1, dtype=numpy.int32)
    loop_over_global((1,), (1,), (y,))
    assert y.get().tolist() == [2]
    _first_call_raises(loop_over_constant, (y,), TypeError,
                       "loop counter must not be constant value")
    x = cp.zeros(1, dtype=numpy.int64)
    _first_call_raises(loop_type_mismatch, (x, y), TypeError,
                       "Data type mismatch of variable: `i`: long long != int")


def test_tuple_rebinding(cp) -> None:
    x = cp.asarray(numpy.array([3, 4], dtype=numpy.int32))
    y = cp.zeros(2, dtype=numpy.int32)
    tuple_rebound((1,), (1,), (x, y))
    assert y.get().tolist() == [4, 3]
    _first_call_raises(tuple_rebound_other_types, (x, y), TypeError,
                       r"Data type mismatch of variable: `t`: STD::pair<int, int> != "
                       r"STD::pair<int, float>")


# --- 3. jit.warpsize -------------------------------------------------------------------
def test_warpsize_outside_kernels() -> None:
    assert repr(jit.warpsize) == '<Data code = "warpSize", type = int>'
    assert not isinstance(jit.warpsize, int)
    assert jit.warpsize.code == "warpSize"
    with pytest.raises(TypeError):
        jit.warpsize + 1
    with pytest.raises(ValueError, match="Constant value is required: warpSize"):
        jit.warpsize.obj


def test_warpsize_in_kernels(cp) -> None:
    y = cp.zeros(1, dtype=numpy.int64)
    warpsize_store((1,), (1,), (y,))
    assert y.get().tolist() == [32]
    # an int32 run-time value, also in mode='numpy' (not a Python int constant)
    warpsize_is_int32((1,), (1,), (y,))
    assert y.get().tolist() == [int(numpy.int64(3_200_000_000).astype(numpy.int32))]
    _first_call_raises(warpsize_shared, (y,), TypeError, "Arguments must be constants.")


# --- other constructs ------------------------------------------------------------------
def test_refusals_of_other_constructs(cp) -> None:
    x = cp.zeros(2, dtype=numpy.int32)
    y = cp.zeros(2, dtype=numpy.bool_)
    _first_call_raises(chained_compare, (x, y), NotImplementedError,
                       r"Comparison of 3 or more values is not implemented\.")
    _first_call_raises(ifexp_constant, (x, x), AttributeError,
                       "'Constant' object has no attribute 'ctype'")


def test_len_and_conditional_expression(cp) -> None:
    x = cp.zeros((3, 2), dtype=numpy.float32)
    y = cp.zeros(1, dtype=numpy.int64)
    _first_call_raises(len_of_tuple, (x, y), TypeError, "len\\(\\) supports only array type")
    len_of_array((1,), (1,), (x, y))
    assert y.get().tolist() == [3]
    v = cp.zeros(2, dtype=numpy.float32)
    _first_call_raises(ifexp_types, (v, v), TypeError,
                       r"Type mismatch in conditional expression\.: float32 != float64")


def test_casts(cp) -> None:
    x = cp.asarray(numpy.array([1, 2, 7], dtype=numpy.int32))
    y = cp.zeros(3, dtype=numpy.float32)
    z = cp.zeros(3, dtype=numpy.complex128)
    casts((1,), (3,), (x, y, z))
    numpy.testing.assert_array_equal(
        y.get(), numpy.array([1, 2, 7], numpy.float32) / numpy.float32(3))
    assert z.get().tolist() == [1, 2, 7]


def test_spot_check_patterns(cp) -> None:
    x = numpy.linspace(-3, 3, 128).astype(numpy.float32)
    y = cp.zeros(128, dtype=numpy.float32)
    counts = cp.zeros(1, dtype=numpy.int32)
    patterns((2,), (64,), (cp.asarray(x), y, counts))
    want = []
    for b in range(2):
        block = x[b * 64:(b + 1) * 64]
        acc = numpy.float32(0)
        for k in range(63, -1, -2):
            acc = numpy.float32(acc + block[k])
        want += [min(max(acc / numpy.float32(32) + 3, -1), 1)] * 64
    numpy.testing.assert_allclose(y.get(), numpy.array(want, numpy.float32), rtol=1e-6)
    assert counts.get().tolist() == [128]
