"""CuPy-fidelity items earlier sessions found and left, each read in CuPy 14.2's source:
the legacy ``RandomState``'s distributions that check nothing, a ufunc's ``casting=``,
writes into outputs inside ``cupy.fuse``, ``ReductionKernel``'s axes, NVRTC's shape of
user kernels' compile errors, float16 ``nanmean``."""
from __future__ import annotations

import re

import numpy
import pytest

from _servers import BACKEND
from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)

nan = float("nan")
LONG_MIN = -2 ** 63


# --- RandomState: no parameter checks (cupy/random/_generator.py: beta, chisquare,
# dirichlet, f, gamma, geometric, standard_gamma, standard_t; their kernels in
# cupy/random/_kernels.py: rk_beta, rk_chisquare, rk_f, rk_standard_gamma,
# rk_standard_t, rk_geometric) ---------------------------------------------------------

def _same(got, expected):
    numpy.testing.assert_array_equal(got.get(), numpy.asarray(expected))


def test_standard_gamma_of_a_negative_shape_is_the_kernels_draw(cp):
    # (rk_standard_gamma's ``shape < 1.0`` loop: X = pow(U, 1/shape) >= 1, returned once
    # X <= V (V exponential): a density in x**(shape-1) exp(-x) on [1, inf); -inf: 1.0)
    rs = cp.random.RandomState(3)
    for s in (-0.3, -3.0):
        x = rs.standard_gamma(s, size=40000).get()
        assert x.dtype == numpy.float64 and (x >= 1.0).all()
        grid = numpy.linspace(1.0, 60.0, 600001)
        dens = grid ** (s - 1) * numpy.exp(-grid)
        mean = numpy.trapezoid(grid * dens, grid) / numpy.trapezoid(dens, grid)
        assert abs(x.mean() - mean) < 0.02, (s, x.mean(), mean)
    _same(rs.standard_gamma(-numpy.inf, size=3), [1.0, 1.0, 1.0])
    got = rs.gamma(cp.array([-2.0, 2.0]), 2.0, size=(500, 2)).get()
    assert (got[:, 0] >= 2.0).all() and (got[:, 1] > 0).all()
    assert cp.random.gamma(-1.0, size=4, dtype=numpy.float32).dtype == numpy.float32
    got = rs.dirichlet([-1.0, 2.0], size=5).get()
    assert got.shape == (5, 2) and numpy.allclose(got.sum(axis=1), 1.0)
    # (-0.0: pow(U, -inf) is inf, never accepted: CuPy's kernel never ends (on the H200
    # the call was queued and nothing raised), so the cupy backend is not asked; the CPU
    # backend gives NumPy's error rather than hang)
    if BACKEND == "cpu":
        _raises(ValueError, "shape < 0", lambda: rs.standard_gamma(-0.0, size=2))


def test_chisquare_f_and_standard_t_check_nothing(cp):
    # (rk_chisquare: 2 * rk_standard_gamma(df/2); rk_f: (chisquare(dfnum) * dfden) /
    # (chisquare(dfden) * dfnum); rk_standard_t: sqrt(df/2) * gauss / sqrt(gamma(df/2)))
    rs = cp.random.RandomState(5)
    _same(rs.chisquare(0.0, size=3), [0.0, 0.0, 0.0])
    _same(rs.chisquare(-numpy.inf, size=2), [2.0, 2.0])
    assert (rs.chisquare(-1.0, size=200).get() >= 2.0).all()
    _same(rs.f(0.0, 1.0, size=2), [nan, nan])
    assert (rs.f(-1.0, 2.0, size=200).get() < 0).all()
    assert (rs.f(2.0, -1.0, size=200).get() < 0).all()
    _same(rs.standard_t(0.0, size=2), [nan, nan])
    got = rs.standard_t(cp.array([-1.0, 0.0, 3.0]))
    assert numpy.isnan(got.get()[:2]).all() and numpy.isfinite(got.get()[2])
    assert numpy.isnan(cp.random.standard_t(-2.0, size=3).get()).all()


def test_beta_checks_nothing(cp):
    # (rk_beta: Johnk's loop for a, b <= 1: X = pow(U, 1/a) is 0 for a == 0, so 0 or
    # 1.0 or 0/0 through the log path; Ga / (Ga + Gb) when either is above 1)
    rs = cp.random.RandomState(7)
    _same(rs.beta(0.0, 0.5, size=2), [0.0, 0.0])
    _same(rs.beta(0.5, 0.0, size=2), [1.0, 1.0])
    _same(rs.beta(0.0, 0.0, size=2), [nan, nan])
    _same(rs.beta(2.0, 0.0, size=2), [1.0, 1.0])
    got = rs.beta(cp.array([-1.0, 3.0, 0.5]), cp.array([2.0, -2.0, 0.5]), size=(300, 3))
    got = got.get()
    assert ((got > 0) & (got < 1)).all()
    got = cp.random.beta(cp.array([0.0, 0.5, 2.0]), 0.5, dtype=numpy.float32)
    assert got.dtype == numpy.float32 and float(got[0]) == 0.0
    # (a negative parameter in Johnk's loop: X > 1 forever: CuPy's kernel never ends (on
    # the H200 nothing raised), so only the CPU backend, which gives NumPy's error, is asked)
    if BACKEND == "cpu":
        _raises(ValueError, "a <= 0", lambda: rs.beta(-1.0, 0.5, size=2))


def test_geometric_checks_nothing(cp):
    # (rk_geometric: the search for p >= 1/3 stops at once for p > 1; the inversion
    # (long)ceil(log(1-U)/log(1-p)) is <= 0 for p < 0, -inf (LONG_MIN, CUDA's saturating
    # conversion) for 0, and LONG_MIN for NaN too (the H200's cvt.rzi.s64.f64 of NaN))
    rs = cp.random.RandomState(9)
    _same(rs.geometric(1.5, size=3), [1, 1, 1])
    _same(rs.geometric(0.0, size=2), [LONG_MIN, LONG_MIN])
    _same(rs.geometric(nan, size=2), [LONG_MIN, LONG_MIN])
    _same(rs.geometric(-numpy.inf, size=2), [0, 0])
    assert (rs.geometric(-1.0, size=200).get() <= 0).all()
    got = cp.random.geometric(cp.array([0.0, 0.5, 2.0]), dtype=numpy.int32)
    assert got.dtype == numpy.int32
    assert got.get()[0] == 0 and got.get()[2] == 1  # (LONG_MIN's low 32 bits)
    assert rs.geometric(cp.array([0.5, 0.25])).dtype == numpy.int64


# --- a ufunc's casting= (cupy/_core/_kernel.pyx: ufunc.__call__ pops it and reads it only
# in _get_out_args_from_optionals, through cupy/_core/_dtype.pyx: _raise_if_invalid_cast,
# ``cpdef void _raise_if_invalid_cast(from_dt, to_dt, str casting, ...)``) ---------------

def test_an_invalid_casting_without_out_is_never_read(cp):
    a, b = cp.arange(3.0), cp.arange(3)
    got = cp.add(a, b, casting="bogus")
    assert got.dtype == numpy.float64 and got.tolist() == [0.0, 2.0, 4.0]
    assert cp.negative(b, casting="bogus").tolist() == [0, -1, -2]
    assert cp.add(a, b, casting=1).tolist() == [0.0, 2.0, 4.0]
    got = cp.add(a, b, casting="bogus", dtype="f")
    assert got.dtype == numpy.float32 and got.tolist() == [0.0, 2.0, 4.0]


def test_an_invalid_casting_with_out(cp):
    a, b = cp.arange(3.0), cp.arange(3)
    # (the out's dtype is the loop's: ``from_dt is to_dt`` returns first)
    out = cp.empty(3)
    assert cp.add(a, b, out=out, casting="bogus") is out and out.tolist() == [0, 2, 4]
    # (another dtype: ``numpy.can_cast(from_dt, to_dt, casting)``'s own refusal)
    _raises(ValueError, "casting must be one of 'no', 'equiv', 'safe', 'same_kind', "
            "'unsafe' (got 'bogus')",
            lambda: cp.add(b, b, out=cp.empty(3, dtype=cp.int8), casting="bogus"))
    # (not a str: the Cython argument test of ``str casting``, before anything else)
    _raises(TypeError, "Expected str, got int", lambda: cp.add(a, b, out=out, casting=1))


# --- writes into an output inside cupy.fuse (cupy/_core/fusion.pyx: _FusionHistory.
# call_ufunc refuses an output of fewer dimensions, ``Fusion.__call__`` then traces with
# cupy/_core/_fusion_trace.pyx: TraceImpl.call_ufunc; __setitem__ in both) ------------

def test_fused_write_into_a_smaller_output(cp):
    a, b, c = cp.arange(3.0), cp.arange(6.0).reshape(2, 3), cp.arange(8.0).reshape(2, 4)

    @cp.fuse()
    def assign(x, y):
        x[...] = y
        return x + 1

    @cp.fuse()
    def add_into(x, y):
        return cp.add(x, y, out=x)

    @cp.fuse()
    def iadd(x, y):
        x += y
        return x

    @cp.fuse()
    def copy(x, y):
        cp.copyto(x, y)
        return x

    words = ("non-broadcastable output operand with shape (3,) doesn't match the "
             "broadcast shape (2, 3)")
    for fn in (assign, add_into, iadd, copy):
        _raises(ValueError, words, lambda: fn(a.copy(), b))
    # (``internal._broadcast_shapes``' own words, 'shapes' glued to the first shape)
    _raises(ValueError, "operands could not be broadcast together with shapes(3,) (2, 4) (3,)",
            lambda: iadd(a.copy(), c))
    # (a larger output broadcasts the input, as outside fuse)
    assert assign(b.copy(), a).tolist() == [[1.0, 2.0, 3.0]] * 2
    assert add_into(b.copy(), a).tolist() == [[0.0, 2.0, 4.0], [3.0, 5.0, 7.0]]
    assert copy(b.copy(), a).tolist() == [[0.0, 1.0, 2.0]] * 2
    # (and outside fuse nothing changes)
    _raises(ValueError, "Out shape is mismatched", lambda: cp.add(a, b, out=a.copy()))


def test_fused_setitem_takes_only_the_whole_array(cp):
    @cp.fuse()
    def first(x, y):
        x[0] = y
        return x

    @cp.fuse()
    def whole(x, y):
        x[:] = y
        return x

    _raises(ValueError, "The fusion supports `[...]` or `[:]`.", lambda: first(cp.zeros(3), 1.0))
    assert whole(cp.zeros(3), 2.0).tolist() == [2.0, 2.0, 2.0]
    x = cp.zeros(3)
    x[0] = 1.0
    assert x.tolist() == [1.0, 0.0, 0.0]


# --- ReductionKernel's axes (cupy/_core/_reduction.pyx: _AbstractReductionKernel._call,
# _sort_axis, _set_permuted_args, and the kernel template's _i / _j / _J) -------------

def test_reduction_kernel_indices_over_permuted_axes(cp):
    kJ = cp.ReductionKernel('T x', 'T y', 'x * _J', 'a + b', 'y = a', '0', 's28_kJ')
    kj = cp.ReductionKernel('T x', 'T y', '_j', 'max(a, b)', 'y = a', '0', 's28_kj')
    a = cp.arange(6.0).reshape(2, 3)
    # (_J counts along the reduced axes; ``axis_permutes = reduce_axis + out_axis``)
    assert kJ(a, axis=0).tolist() == [3.0, 4.0, 5.0]
    assert kJ(a, axis=1).tolist() == [5.0, 14.0]
    assert kJ(a, axis=1, keepdims=True).tolist() == [[5.0], [14.0]]
    # (``_j = _i + _J * _out_ind.size()``: the reduced axes lead the input's indexer)
    assert kj(a, axis=1).tolist() == [4.0, 5.0]
    assert kj(a, axis=0).tolist() == [3.0, 4.0, 5.0]
    # (one input that is not C-contiguous: its reduced axes sorted by decreasing
    # strides, so _J runs in memory order: a Fortran array's columns first)
    assert float(kJ(cp.asfortranarray(a))) == 50.0
    assert float(kJ(a.T)) == 55.0
    assert float(kJ(a)) == 55.0


def test_reduction_kernel_with_a_raw_param_refuses_a_permutation(cp):
    kraw = cp.ReductionKernel('T x, raw T w', 'T y', 'x * w[_J]', 'a + b', 'y = a', '0',
                              's28_kraw')
    a, w = cp.arange(6.0).reshape(2, 3), cp.arange(3.0)
    assert kraw(a, cp.arange(2.0), axis=0).tolist() == [3.0, 4.0, 5.0]
    b = cp.arange(24.0).reshape(2, 3, 4)
    assert kraw(b, cp.arange(6.0), axis=(0, 1)).tolist() == \
        (b.get() * numpy.arange(6.0).reshape(2, 3, 1)).sum(axis=(0, 1)).tolist()
    for kw in ({"axis": 1}, {"axis": 1, "keepdims": True}):
        _raises(NotImplementedError, "Illegal conditions", lambda: kraw(a, w, **kw))
    # (the zero-size checks come first)
    assert kraw(cp.zeros((0, 3)), w, axis=1).shape == (0,)


# --- compile errors of user kernels: NVRTC's log is the CompileException's message
# (cupy/cuda/compiler.py: _NVRTCProgram.compile; the source is compile_with_cache's
# four #include lines + _kernel.pyx's / _reduction.pyx's templates, so NVRTC's line
# numbers count those, in a file CuPy writes to a new temporary directory as
# ``<sha1 hex>.cubin.cu``: _compile_with_cache_cuda). Each error is followed by its
# source line and a caret. The words stay the host compiler's on the CPU backend, but
# for a few NVRTC's (an undeclared identifier). -----------------------------------------

#: the file NVRTC's log names (an H200: "/tmp/tmp52ga5tx4/acb07f...60dc.cubin.cu")
NVRTC_FILE = r'/\S*tmp[a-z0-9_]{8}/[0-9a-f]{40}\.cubin\.cu'


def _compile_error(fn):
    from gpushare.errors import CompileException
    with pytest.raises(CompileException) as info:
        fn()
    return str(info.value)


def _at(msg, line):
    """``msg`` starts with an error at ``line`` of CuPy's file; that file's name."""
    m = re.match(rf'({NVRTC_FILE})\({line}\): error: ', msg)
    assert m, msg
    return m.group(1)


def test_raw_kernel_compile_error_has_nvrtcs_shape(cp):
    msg = _compile_error(lambda: cp.RawKernel(r'''
extern "C" __global__ void k(float* x) {
  x[0] = 1;
  undeclared_fn(3);
}''', 'k').compile())
    lines = msg.split('\n')
    path = _at(msg, 4)
    assert lines[0].endswith(': error: identifier "undeclared_fn" is undefined')
    assert lines[1].strip() == 'undeclared_fn(3);' and lines[2].strip() == '^'
    assert lines[3] == ''
    assert msg.endswith('\n\n1 error detected in the compilation of "%s".\n' % path)
    assert 'In function' not in msg and '\u2018' not in msg
    msg = _compile_error(lambda: cp.RawKernel(r'''
extern "C" __global__ void k(float* x) {
  undeclared_a(3);
  undeclared_b(3);
}''', 'k').compile())
    path = _at(msg, 3)
    assert '^\n\n%s(4): error: identifier "undeclared_b" is undefined\n' % path in msg
    assert msg.endswith('\n2 errors detected in the compilation of "%s".\n' % path)


def test_elementwise_compile_error_lines_count_cupys_source(cp):
    # (line 5 empty, the typedef on 6, line 7 empty: the preamble from line 8, loop_prep
    # two lines after it, the operation four after that below its parameters' lines; an
    # H200 counted line 16 for the first)
    msg = _compile_error(lambda: cp.ElementwiseKernel(
        'T x', 'T y', 'y = x +* 2;', 's28_e1')(cp.arange(3.0)))
    _at(msg, 16)
    assert msg.split('\n')[1].strip() == 'y = x +* 2;;'
    msg = _compile_error(lambda: cp.ElementwiseKernel(
        'T x', 'T y', 'y = g(x);', 's28_e2',
        preamble='__device__ double g(double v) {\n  return v +;\n}')(cp.arange(3.0)))
    _at(msg, 9)
    msg = _compile_error(lambda: cp.ElementwiseKernel(
        'T x', 'T y', 'y = x;', 's28_e3', loop_prep='int q = ;')(cp.arange(3.0)))
    _at(msg, 10)
    if BACKEND == "cpu":  # (the host compiler's words for its warning)
        assert re.search(r'\.cubin\.cu\(10\): warning: unused variable "q"\n', msg)


def test_reduction_compile_error_lines_count_cupys_source(cp):
    # (the typedefs end with IndexT's, the map expression 30 lines below the preamble's
    # first (_reduction.pyx's template): an H200 counted line 36 for it, so the preamble
    # starts on line 6)
    msg = _compile_error(lambda: cp.ReductionKernel(
        'T x', 'T y', 'x +* 1', 'a + b', 'y = a', '0', 's28_r1')(cp.arange(3.0)))
    path = _at(msg, 36)
    assert msg.split('\n')[1].strip() == '_type_reduce _a = static_cast<_type_reduce>(x +* 1);'
    assert msg.endswith('\n1 error detected in the compilation of "%s".\n' % path)
    msg = _compile_error(lambda: cp.ReductionKernel(
        'T x', 'T y', 'g(x)', 'a + b', 'y = a', '0', 's28_r2',
        preamble='__device__ double g(double v) {\n  return v +;\n}')(cp.arange(3.0)))
    _at(msg, 7)
    assert float(cp.ReductionKernel('T x', 'T y', 'x', 'a + b', 'y = a', '0',
                                    's28_r3')(cp.arange(3.0))) == 3.0


# --- float16 nanmean (cupy/_core/_routines_statistics.pyx: _nanmean_func, 'e->e' with
# nanmean_st<float16>; reduced by cupy/_core/_cub_reduction.pyx's CUB block kernel for
# contiguous layouts, CuPy's default accelerator) ---------------------------------------

def test_float16_nanmean_sums_in_half_in_cubs_order(cp):
    # (fewer than ``CUB_REDUCE_SIZE_THRESHOLD`` = 128 values: the generic kernel, one
    # value a thread, its tree: 2048 + 1 rounds back to 2048, then + 2, + 4: 2054 / 8,
    # the GPU's 256.75; a float sum would give 2055 / 8)
    x = cp.array([2048] + [1] * 7, dtype=cp.float16)
    got = cp.nanmean(x)
    assert got.dtype == numpy.float16 and float(got) == 256.75
    assert float(cp.nanmean(cp.array([1.0, nan, 3.0], dtype=cp.float16))) == 2.0
    assert numpy.isnan(float(cp.nanmean(cp.array([nan, nan], dtype=cp.float16))))
    m = cp.array([[2048] + [1] * 7, [1] * 8], dtype=cp.float16)
    assert cp.nanmean(m, axis=1).tolist() == [256.75, 1.0]
    assert cp.nanmean(m, axis=1, keepdims=True).shape == (2, 1)


def test_float16_nanmean_divides_by_the_count_in_half(cp):
    # (``type_out0_raw(a.count)``: a count from 65520 on is float16's infinity)
    assert float(cp.nanmean(cp.full(70000, 0.25, dtype=cp.float16))) == 0.0
    assert numpy.isnan(float(cp.nanmean(cp.ones(100000, dtype=cp.float16))))
    assert float(cp.nanmean(cp.ones(60000, dtype=cp.float16))) == 1.0
    # (an F-contiguous array reduced over its leading axis by CUB's block kernel: CuPy's
    # output is F-ordered; under 128 values a row, the generic kernel's C-ordered one,
    # as on the GPU)
    f = cp.asfortranarray(cp.ones((128, 3, 2), dtype=cp.float16))
    got = cp.nanmean(f, axis=0)
    assert got.shape == (3, 2) and got.flags.f_contiguous
    got = cp.nanmean(cp.asfortranarray(cp.ones((4, 3, 2), dtype=cp.float16)), axis=0)
    assert got.shape == (3, 2) and got.flags.c_contiguous


def test_float16_nanmean_in_the_generic_kernels_order(cp):
    # (axis=0 of a C-contiguous array is not CUB's: ``_get_block_specs`` gives
    # block_stride 64, so 8 threads an output, one value each, then the shared-memory
    # tree: (2048+1) + (1+1)... = 2048 + 2 + 4 = 2054, / 8; CUB's order would give 2052,
    # a float sum 2055)
    m = cp.ones((8, 2), dtype=cp.float16)
    m[0, 0] = 2048
    assert cp.nanmean(m, axis=0).tolist() == [256.75, 1.0]
    assert cp.nanmean(m, axis=0, keepdims=True).shape == (1, 2)
