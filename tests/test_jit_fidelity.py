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


# --- 4. rebinding arrays, pointers, groups and dim3 (CuPy's ``_emit_assign_stmt``) ----
@jit.rawkernel()
def rebind_array(a, b, out):
    x = a
    out[0] = x.shape[0]
    x = b  # same dtype, ndim and layout, another shape: allowed
    out[1] = x.shape[0]
    out[2] = x[4]
    if out[0] > 0:
        y = b
        y = a
        out[3] = len(y)


@jit.rawkernel()
def rebind_array_swap(a, b, out):
    x, y = a, b
    x, y = y, x
    out[0] = x.size
    out[1] = y.size


@jit.rawkernel()
def rebind_array_other_ndim(a, c, out):
    x = a
    x = c  # noqa: F841
    out[0] = 1


@jit.rawkernel()
def rebind_array_other_dtype(a, d, out):
    x = a
    x = d  # noqa: F841
    out[0] = 1


@jit.rawkernel()
def shared_memory_pointer(out):
    smem = jit.shared_memory(numpy.int64, 8)
    p = smem + 2
    p[0] = 5
    p = p + 1
    p[0] = 7
    q = 1 + smem
    q[0] = 3
    jit.syncthreads()
    out[0] = smem[1] + smem[2] + smem[3]
    out[1] = p - smem
    out[2] = smem.ndim


@jit.rawkernel()
def shared_memory_rebound(out):
    s = jit.shared_memory(numpy.int32, 8)
    s = jit.shared_memory(numpy.int32, 8)  # noqa: F841
    out[0] = 1


@jit.rawkernel()
def shared_memory_shape(out):
    s = jit.shared_memory(numpy.int32, 8)
    out[0] = s.shape[0]


@jit.rawkernel()
def shared_memory_len(out):
    s = jit.shared_memory(numpy.int32, 8)
    out[0] = len(s)


@jit.rawkernel()
def array_dtype_attribute(x, out):
    out[0] = x.dtype.itemsize


@jit.rawkernel()
def group_rebound(out):
    g = jit.cg.this_thread_block()
    g = jit.cg.this_thread_block()  # noqa: F841
    out[0] = 1


@jit.rawkernel()
def dim3_rebound(out):
    d = jit.threadIdx
    if jit.blockIdx.x == 1:
        d = jit.blockIdx
    out[jit.blockIdx.x] = d.x


def test_array_rebinding(cp) -> None:
    a = cp.asarray(numpy.arange(3, dtype=numpy.int64))
    b = cp.asarray(numpy.arange(10, 15, dtype=numpy.int64))
    out = cp.zeros(4, dtype=numpy.int64)
    rebind_array((1,), (1,), (a, b, out))
    assert out.get().tolist() == [3, 5, 14, 3]
    rebind_array_swap((1,), (1,), (a, b, out))
    assert out.get().tolist()[:2] == [5, 3]
    c = cp.zeros((2, 2), dtype=numpy.int64)
    _first_call_raises(rebind_array_other_ndim, (a, c, out), TypeError,
                       r"Data type mismatch of variable: `x`: CArray<long long, 1, true, "
                       r"true> != CArray<long long, 2, true, true>")
    d = cp.zeros(3, dtype=numpy.float64)
    _first_call_raises(rebind_array_other_dtype, (a, d, out), TypeError,
                       "Data type mismatch of variable: `x`")


def test_shared_memory_is_a_pointer(cp) -> None:
    out = cp.zeros(3, dtype=numpy.int64)
    shared_memory_pointer((1,), (1,), (out,))
    assert out.get().tolist() == [15, 3, 1]
    # pointer types compare by identity: another allocation is another type
    _first_call_raises(shared_memory_rebound, (out,), TypeError,
                       r"Data type mismatch of variable: `s`: int\* != int\*")
    _first_call_raises(shared_memory_shape, (out,), AttributeError,
                       "Unknown attribute: shape")
    _first_call_raises(shared_memory_len, (out,), TypeError,
                       r"len\(\) supports only array type")
    _first_call_raises(array_dtype_attribute, (out, out), AttributeError,
                       "Unknown attribute: dtype")


def test_group_and_dim3_rebinding(cp) -> None:
    out = cp.zeros(2, dtype=numpy.int64)
    _first_call_raises(group_rebound, (out,), TypeError,
                       "Data type mismatch of variable: `g`: cg::thread_block != "
                       "cg::thread_block")
    dim3_rebound((2,), (1,), (out,))
    assert out.get().tolist() == [0, 1]


# --- 5. min / max and the ufuncs of cupy: never folded ---------------------------------
@jit.rawkernel()
def min_of_constants_is_runtime(out):
    smem = jit.shared_memory(numpy.int32, min(32, 64))
    out[0] = smem[0]


@jit.rawkernel()
def ufunc_of_constants_is_runtime(out):
    smem = jit.shared_memory(numpy.int32, cupy.add(16, 16))
    out[0] = smem[0]


@jit.rawkernel()
def min_max_values(x, out):
    out[0] = min(1, 2.5)       # float32 (cuda mode) run-time values
    out[1] = max(x[0], x[1], 7.5)
    out[2] = min(x[0], x[2])   # NaN wins
    out[3] = cupy.maximum(3, 4)


@jit.rawkernel()
def min_complex(c, out):
    out[0] = min(c[0], c[1])
    out[1] = max(c[0], c[1])


@jit.rawkernel()
def min_one_argument(out):
    out[0] = min(out[0])


def test_min_max_are_not_folded(cp) -> None:
    out = cp.zeros(4, dtype=numpy.float64)
    _first_call_raises(min_of_constants_is_runtime, (out,), TypeError,
                       "Arguments must be constants.")
    _first_call_raises(ufunc_of_constants_is_runtime, (out,), TypeError,
                       "Arguments must be constants.")
    x = cp.asarray(numpy.array([2.0, -1.0, numpy.nan], dtype=numpy.float32))
    min_max_values((1,), (1,), (x, out))
    got = out.get()
    assert got[0] == 1.0 and got[1] == 7.5 and numpy.isnan(got[2]) and got[3] == 4
    c = cp.asarray(numpy.array([1 + 5j, 1 + 2j], dtype=numpy.complex64))
    oc = cp.zeros(2, dtype=numpy.complex64)
    min_complex((1,), (1,), (c, oc))
    assert oc.get().tolist() == [1 + 2j, 1 + 5j]
    _first_call_raises(min_one_argument, (out,), TypeError,
                       r"min\(\) expects at least 2 arguments, got 1")


# --- 6. is / in / unary + (CuPy: KeyError, no Python function nor ufunc for them) ------
@jit.rawkernel()
def uses_is(x):
    x[0] = x[0] is None


@jit.rawkernel()
def uses_is_constants(x):
    x[0] = N_CONST is None


@jit.rawkernel()
def uses_in_constants(x):
    x[0] = 1 in (1, 2)


@jit.rawkernel()
def uses_not_in(x):
    x[0] = x[0] not in (1, 2)


@jit.rawkernel()
def uses_unary_plus(x):
    x[0] = +x[1]


@jit.rawkernel()
def uses_unary_plus_constant(x):
    x[0] = +1


@jit.rawkernel()
def uses_cupy_positive(x, b):
    x[0] = cupy.positive(x[1])
    x[1] = cupy.positive(b[0])


def test_is_in_and_unary_plus(cp) -> None:
    x = cp.asarray(numpy.array([0, 4], dtype=numpy.int32))
    _first_call_raises(uses_is, (x,), KeyError, "<class 'ast.Is'>")
    _first_call_raises(uses_is_constants, (x,), KeyError, "<class 'ast.Is'>")
    _first_call_raises(uses_in_constants, (x,), KeyError, "<class 'ast.In'>")
    _first_call_raises(uses_not_in, (x,), KeyError, "<class 'ast.NotIn'>")
    _first_call_raises(uses_unary_plus, (x,), KeyError, "<class 'ast.UAdd'>")
    _first_call_raises(uses_unary_plus_constant, (x,), KeyError, "<class 'ast.UAdd'>")
    b = cp.zeros(1, dtype=numpy.bool_)
    _first_call_raises(uses_cupy_positive, (x, b), TypeError,
                       r"The cupy boolean positive, the `\+` operator, is not supported\.")


# --- 7. outside kernels ------------------------------------------------------------------
def test_jit_names_outside_kernels() -> None:
    with pytest.raises(RuntimeError, match="Cannot call this function from Python layer."):
        jit.syncthreads()
    with pytest.raises(RuntimeError, match="Cannot call this function from Python layer."):
        jit.grid(1)
    with pytest.raises(RuntimeError, match="Cannot call this function from Python layer."):
        jit.cg.this_grid()
    with pytest.raises(RuntimeError, match="Cannot call this function from Python layer."):
        jit.range(3, unroll=2)
    # arguments are bound to CuPy's __call__ signatures first (Python's words)
    with pytest.raises(TypeError, match=r"AtomicOp\.__call__\(\) missing 1 required "
                                        r"positional argument: 'value'"):
        jit.atomic_add(1, 2)
    with pytest.raises(TypeError, match=r"SyncThreads\.__call__\(\) takes 1 positional "
                                        r"argument but 2 were given"):
        jit.syncthreads(1)
    assert repr(jit.syncthreads) == "<cupyx.jit function>"
    assert repr(jit.threadIdx) == '<Data code = "threadIdx", type = dim3>'
    with pytest.raises(AttributeError, match="'Data' object has no attribute 'x'"):
        jit.blockIdx.x
    assert not hasattr(jit, "local_memory")  # not a CuPy 14.2 name


# --- 8. CuPy 14's casting rules for operators (mode='cuda') ---------------------------
@jit.rawkernel()
def compare_mixed_signs(x, out):
    out[0] = jit.threadIdx.x < x[0]   # uint32 < int32: compared as int64
    out[1] = jit.threadIdx.x > -1


@jit.rawkernel()
def add_mixed_signs(x, out):
    out[0] = jit.threadIdx.x + x[0]   # the uint32 loop: int32 -> uint32 is not same_kind


def test_operator_casting_rules(cp) -> None:
    x = cp.asarray(numpy.array([-1], dtype=numpy.int32))
    out = cp.ones(2, dtype=numpy.bool_)
    compare_mixed_signs((1,), (1,), (x, out))
    assert out.get().tolist() == [False, True]
    _first_call_raises(add_mixed_signs, (x, out), TypeError,
                       "Cannot cast from 'int32' to uint32 with casting rule same_kind.")


# --- 9. built-in functions' checks ----------------------------------------------------
@jit.rawkernel()
def range_zero_step(out):
    for i in range(5, 0, 0):  # accepted (no check): a positive step, no iteration
        out[0] = i


@jit.rawkernel()
def range_float(out):
    for i in range(2.5):
        out[0] = i


@jit.rawkernel()
def shfl_mask_out_of_range(out):
    out[0] = jit.shfl_sync(1 << 32, out[0], 0)


@jit.rawkernel()
def syncwarp_full_mask(out):
    jit.syncwarp(mask=0xffffffff)


@jit.rawkernel()
def atomic_wrong_dtype(out):
    jit.atomic_sub(out, 0, 1)


@jit.rawkernel()
def calls_a_kernel(out):
    range_float(out)


def test_builtin_function_checks(cp) -> None:
    out = cp.full(1, 9, dtype=numpy.int32)
    range_zero_step((1,), (1,), (out,))
    assert out.get().tolist() == [9]
    _first_call_raises(range_float, (out,), TypeError, "range supports only for integer type.")
    _first_call_raises(shfl_mask_out_of_range, (out,), ValueError, "mask is out of range")
    # CuPy casts the mask to int32 'same_kind': NumPy 2 refuses 0xffffffff
    _first_call_raises(syncwarp_full_mask, (out,), OverflowError, "out of bounds for int32")
    f = cp.zeros(1, dtype=numpy.float32)
    _first_call_raises(atomic_wrong_dtype, (f,), TypeError,
                       "`atomicSub` does not support float32 input.")
    _first_call_raises(calls_a_kernel, (out,), TypeError,
                       "Calling __global__ function range_float from __global__ function "
                       "is not allowed.")
