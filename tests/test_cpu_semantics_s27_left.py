"""Small CuPy-fidelity items earlier sessions found and left, each read in CuPy 14.2's
source: ``where`` given a host array or a list, ``average(returned=True)``'s NumPy
scalar, ..."""
from __future__ import annotations

import re

import numpy
import pytest

from test_cpu_semantics import _raises

#: the file NVRTC's log names: CuPy's source written to a new temporary directory as
#: ``<sha1 hex of its cache key>.cubin.cu`` (cupy/cuda/compiler.py)
NVRTC_FILE = r'/\S*tmp[a-z0-9_]{8}/[0-9a-f]{40}\.cubin\.cu'

pytestmark = pytest.mark.timeout(240)

nan = float("nan")


# --- where (cupy/_sorting/search.py: where, nonzero; cupy/_util.pyx: check_array) --------

def test_where_of_one_host_array_is_nonzeros_check(cp):
    # (``where(condition)`` is ``nonzero(condition)``: ``_util.check_array(a, 'a')``)
    _raises(TypeError, "'a' must be a cupy.ndarray object, not <class 'numpy.ndarray'>.",
            lambda: cp.where(numpy.array([1, 0, 1])))
    _raises(TypeError, "'a' must be a cupy.ndarray object, not <class 'list'>.",
            lambda: cp.where([1, 0, 1]))
    assert cp.where(cp.array([1, 0, 1]))[0].tolist() == [0, 2]


def test_where_of_three_reads_condition_astype(cp):
    # (``_where_ufunc(condition.astype('?', copy=False), x, y)``: a list or a Python bool
    # has no ``astype``; a host array reaches the ufunc, which refuses it)
    x = cp.arange(3)
    _raises(AttributeError, "'bool' object has no attribute 'astype'",
            lambda: cp.where(True, x, 0))
    _raises(AttributeError, "'list' object has no attribute 'astype'",
            lambda: cp.where([True, False, True], x, 0))
    _raises(TypeError, "Unsupported type <class 'numpy.ndarray'>",
            lambda: cp.where(numpy.array([True, False, True]), x, 0))
    _raises(TypeError, "Unsupported type <class 'numpy.ndarray'>",
            lambda: cp.where(x > 0, numpy.arange(3), 0))
    assert cp.where(x > 0, x, -1).tolist() == [-1, 1, 2]
    assert cp.where(numpy.True_, x, -1).tolist() == [0, 1, 2]  # (NumPy's own astype)


# --- average (cupy/_statistics/meanvar.py: average) --------------------------------------

def test_average_returned_without_weights_is_a_numpy_scalar(cp):
    # (``scl = avg.dtype.type(a.size / avg.size)``, kept where its shape is the
    # average's; broadcast into a new array otherwise)
    avg, scl = cp.average(cp.arange(4.0), returned=True)
    assert isinstance(avg, cp.ndarray) and float(avg) == 1.5
    assert type(scl) is numpy.float64 and scl == 4.0
    avg, scl = cp.average(cp.arange(4, dtype=cp.float32), returned=True)
    assert type(scl) is numpy.float32 and avg.dtype == numpy.float32
    avg, scl = cp.average(cp.arange(6.0).reshape(2, 3), axis=1, returned=True)
    assert isinstance(scl, cp.ndarray) and scl.tolist() == [3.0, 3.0]
    avg, scl = cp.average(cp.arange(4.0), returned=True, keepdims=True)
    assert isinstance(scl, cp.ndarray) and scl.shape == (1,)
    avg, scl = cp.average(cp.arange(4.0), weights=cp.ones(4), returned=True)
    assert isinstance(scl, cp.ndarray) and scl.shape == () and float(scl) == 4.0


# --- sorting, searching and scans given host arrays or lists -----------------------------

def test_sort_and_argsort_of_a_host_array_are_numpys_methods(cp):
    # (cupy/_sorting/sort.py: sort is ``a.copy()`` (``a.flatten()``) then ``ret.sort(axis,
    # kind)``; argsort ``a.argsort(axis=axis, kind=kind)``; sort_complex ``a.astype(..)``
    # then ``a.sort()``: on a NumPy array, NumPy's own methods, a NumPy array back)
    host = numpy.array([3.0, 1.0, 2.0])
    got = cp.sort(host)
    assert type(got) is numpy.ndarray and got.tolist() == [1.0, 2.0, 3.0]
    got = cp.sort(numpy.array([[3, 1], [0, 2]]), axis=None)
    assert type(got) is numpy.ndarray and got.tolist() == [0, 1, 2, 3]
    got = cp.argsort(host)
    assert type(got) is numpy.ndarray and got.tolist() == [1, 2, 0]
    got = cp.sort_complex(numpy.array([3, 1, 2], dtype=numpy.int8))
    assert type(got) is numpy.ndarray and got.dtype == numpy.complex64
    assert got.tolist() == [1, 2, 3]
    assert type(cp.sort(cp.asarray(host))) is cp.ndarray


def test_sort_family_given_lists_meets_the_lists_errors(cp):
    _raises(TypeError, "'axis' is an invalid keyword argument for sort()",
            lambda: cp.sort([3, 1, 2]))
    _raises(AttributeError, "'list' object has no attribute 'flatten'",
            lambda: cp.sort([3, 1, 2], axis=None))
    _raises(AttributeError, "'list' object has no attribute 'argsort'",
            lambda: cp.argsort([3, 1, 2]))
    _raises(AttributeError, "'list' object has no attribute 'dtype'",
            lambda: cp.sort_complex([3, 1, 2]))


def test_sort_complex_of_a_device_array_as_before(cp):
    got = cp.sort_complex(cp.array([3, 1, 2], dtype=cp.int8))
    assert isinstance(got, cp.ndarray) and got.dtype == numpy.complex64
    assert got.tolist() == [1, 2, 3]
    assert cp.sort_complex(cp.array([2.0, 1.0], dtype=cp.float32)).dtype == numpy.complex128


def test_nanargmax_of_a_host_array_or_list(cp):
    # (cupy/_sorting/search.py: integers go to ``a.argmax(axis=, dtype=, ...)`` (NumPy's
    # method refuses ``dtype``); floats to Cython's ``_nanargmax(_ndarray_base a, ...)``)
    for fn, method in ((cp.nanargmax, "argmax"), (cp.nanargmin, "argmin")):
        _raises(TypeError, "Argument 'a' has incorrect type (expected "
                "cupy._core.core._ndarray_base, got numpy.ndarray)",
                lambda: fn(numpy.array([1.0, 2.0])))
        _raises(TypeError, f"{method}() got an unexpected keyword argument 'dtype'",
                lambda: fn(numpy.array([1, 2])))
        _raises(AttributeError, "'list' object has no attribute 'dtype'",
                lambda: fn([1.0, 2.0]))


def test_cumsum_of_what_is_no_device_array_is_cythons_error(cp):
    # (cupy/_core/_routines_math.pyx: ``scan_core(_ndarray_base a, ...)``)
    for fn in (cp.cumsum, cp.cumprod):
        _raises(TypeError, "Argument 'a' has incorrect type (expected "
                "cupy._core.core._ndarray_base, got numpy.ndarray)",
                lambda: fn(numpy.array([1.0, 2.0])))
        _raises(TypeError, "Argument 'a' has incorrect type (expected "
                "cupy._core.core._ndarray_base, got list)", lambda: fn([1.0, 2.0]))


def test_nancumsum_is_replace_nan_then_cumsum(cp):
    # (cupy/_math/sumprod.py: ``_replace_nan`` (``cupy.empty_like(a)``: a list has no
    # ``dtype``; its kernel refuses a host array), then ``cumsum``'s layout)
    for fn in (cp.nancumsum, cp.nancumprod):
        _raises(AttributeError, "'list' object has no attribute 'dtype'",
                lambda: fn([1.0, 2.0]))
        _raises(TypeError, "Unsupported type <class 'numpy.ndarray'>",
                lambda: fn(numpy.array([1.0, 2.0])))
    x = cp.array([[1.0, nan], [2.0, 3.0]])
    assert numpy.array_equal(cp.nancumsum(x, axis=0).get(), [[1.0, 0.0], [3.0, 3.0]])
    assert cp.nancumsum(x, axis=0).strides == cp.cumsum(x, axis=0).strides
    assert cp.nancumprod(x).tolist() == [1.0, 1.0, 2.0, 6.0]
    assert cp.nancumsum(cp.array([1, 2], dtype=cp.int8)).dtype == numpy.int64


def test_digitize_given_host_arrays_is_searchsorteds_refusal(cp):
    # (cupy/_statistics/histogram.py: digitize reads ``x.dtype``, ``bins.ndim``, then
    # ``_searchsorted(bins, x, ...)`` refuses what is no cupy.ndarray)
    x, bins = cp.array([0.5, 1.5]), cp.array([1.0, 2.0])
    _raises(NotImplementedError, "Only python scalars or ndarrays are supported for v",
            lambda: cp.digitize(x.get(), bins))
    _raises(NotImplementedError, "Only int or ndarray are supported for a",
            lambda: cp.digitize(x, bins.get()))
    _raises(ValueError, "object too deep for desired array",
            lambda: cp.digitize(x, numpy.ones((2, 2))))
    _raises(TypeError, "x may not be complex",
            lambda: cp.digitize(numpy.array([1j]), bins))
    assert cp.digitize(x, bins).tolist() == [0, 1]


# --- complex operands of math ufuncs without a complex CUDA function ---------------------

@pytest.mark.parametrize("name, function, nin", [
    ("arctan2", "atan2", 2), ("hypot", "hypot", 2), ("copysign", "copysign", 2),
    ("nextafter", "nextafter", 2), ("i0", "cyl_bessel_i0", 1)])
def test_complex_loop_of_a_math_ufunc_does_not_compile(cp, name, function, nin):
    # (cupy/_math/ufunc.py: create_math_ufunc's default ``support_complex=True`` gives
    # 'FF->F'/'DD->D' loops, ``out0 = atan2(in0, in1)``...: NVRTC finds no overload for
    # ``complex<T>``, a CompileException; NumPy has no complex loop: TypeError)
    # (NVRTC 13's whole log, as an H200 printed it: the arguments named by the kernel's
    # typedefs, the operation on line 17 or 19 of CuPy's temporary file, a Note for
    # each overload tried)
    # (an H200 printed the scalar's case too: a Python complex is a ``const`` kernel
    # parameter of the loop's type, thrust's inline namespace naming CuPy's CCCL and the
    # architecture, and its ``const in1_type in1(...)`` line is missing: line 18;
    # ``_where=`` adds a line before the operation, ``_kernel.pyx: _get_ufunc_kernel``)
    from gpushare.errors import CompileException
    fn = getattr(cp, name)
    z = cp.array([1 + 2j, 3j])
    array = "const in{k}_type"
    cases = [((z,) * nin, {}, [array] * nin), ((z.astype(cp.complex64),) * nin, {}, [array] * nin)]
    if nin == 2:  # (a Python complex weak: float32's complex64 loop)
        scalar = r"const thrust::THRUST_\d{6}_SM_\d+_NS::complex<float>"
        f32 = cp.array([1.0, 2.0], dtype=cp.float32)
        cases += [((f32, 1j), {}, [array, scalar]), ((1j, f32), {}, [scalar, array])]
    cases.append(((z,) * nin, {"_where": cp.array([True, False]), "out": cp.zeros(2, complex)},
                  [array] * nin))
    overloads = [("double",) * nin, ("float",) * nin]
    if name == "copysign":
        overloads += [("double", "float"), ("float", "double")]
    args = ", ".join(f"in{k}" for k in range(nin))
    for operands, kwargs, types in cases:
        line = 15 + nin + types.count(array) + ("_where" in kwargs)
        expected = re.escape(
            f'@({line}): error: no instance of overloaded function '
            f'"{function}" matches the argument list\n'
            f'            argument types are: (%TYPES%)\n'
            f'  out0 = {function}({args})\n         ^\n' + "".join(
                f'Note #3326-D: function "{function}({", ".join(o)})" does not match because '
                'argument #1 does not match parameter\n' for o in overloads)
            + '\n1 error detected in the compilation of "@".\n')
        pattern = expected.replace("@", f"({NVRTC_FILE})", 1).replace("@", r"\1").replace(
            "%TYPES%", ", ".join(t if t.startswith("const thrust") else re.escape(t.format(k=k))
                             for k, t in enumerate(types)))
        with pytest.raises(CompileException) as info:
            fn(*operands, **kwargs)
        assert type(info.value).__module__ == "cupy.cuda.compiler"
        assert re.fullmatch(pattern, str(info.value)), str(info.value)
    real = cp.array([1.0, 2.0])
    with pytest.raises(CompileException):
        fn(*(real,) * nin, dtype=cp.complex128)
    assert fn(*(real,) * nin).dtype == numpy.float64  # (the real loops as before)


# --- var / std into an integer out (_routines_statistics.pyx: _var, _std) ----------------

def test_std_into_an_integer_out_is_sqrts_cast_error(cp):
    # (``_std``: ``_math._sqrt(var, dtype=dtype, out=out)``, the float64 loop's output
    # refused by ``_raise_if_invalid_cast(..., "output operand")``; ``_nanstd`` too)
    a = cp.arange(6.0).reshape(2, 3)
    for fn in (cp.std, cp.nanstd):
        _raises(TypeError, "Cannot cast output operand from dtype('float64') to "
                "dtype('int64') according to the rule 'same_kind'",
                lambda: fn(a, axis=1, out=cp.zeros(2, dtype=cp.int64)))
    _raises(TypeError, "Cannot cast output operand from dtype('float64') to "
            "dtype('int32') according to the rule 'same_kind'",
            lambda: cp.std(cp.arange(6), out=cp.zeros((), cp.int32)))
    _raises(TypeError, "Wrong type (int32) of arguments for cupy_sqrt",
            lambda: cp.std(a, dtype=cp.int32))
    out = cp.zeros(2, dtype=cp.float32)
    assert cp.std(a, axis=1, out=out) is out


def test_var_into_an_integer_out_packs_alpha_into_its_dtype(cp):
    # (``_var_core_out``, ``'S x, T mean, U alpha', 'U out'``: the Python float alpha is
    # packed into out's dtype (``CScalar.apply_dtype``), each term cast to it and summed;
    # the result ``out.astype(dtype_out)``: a new float64 array)
    b = cp.array([[0.0, 1.5, 3.0]])
    out = cp.zeros(1, dtype=cp.int64)
    got = cp.var(b, axis=1, ddof=1, out=out)  # (alpha 1/2 is 0)
    assert got.dtype == numpy.float64 and got.tolist() == [0.0] and out.tolist() == [0]
    got = cp.var(b, axis=1, ddof=2, out=out)  # (alpha 1; the terms 2.25 -> 2)
    assert got.tolist() == [4.0] and out.tolist() == [4]
    _raises(ValueError, "cannot convert float NaN to integer",
            lambda: cp.var(b, axis=1, ddof=3, out=out))
    out = cp.zeros(1, dtype=cp.float32)
    assert cp.var(b, axis=1, out=out).dtype == numpy.float64 and float(out[0]) == 1.5


# --- choose into another dtype, put of complex values (_routines_indexing.pyx) -----------

def test_choose_into_an_out_of_another_dtype_is_a_type_mismatch(cp):
    # (``_choose_kernel``: ``'S a, raw T choices, int64 n_channel', 'T y'``: out's dtype
    # fixes T, then choices' differs: ``_decide_params_type_core``'s words; the mode's
    # checks come first)
    a = cp.array([0, 1, 1])
    choices = cp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    for dtype in (cp.int64, cp.float32, cp.complex128):
        _raises(TypeError, f"Type is mismatched. choices float64 {numpy.dtype(dtype)} T",
                lambda: cp.choose(a, choices, out=cp.zeros(3, dtype)))
    _raises(TypeError, "Type is mismatched. choices float64 int64 T",
            lambda: cp.choose(a, choices, out=cp.zeros(3, cp.int64), mode="clip"))
    _raises(ValueError, "invalid entry in choice array",
            lambda: cp.choose(cp.array([0, 5, 1]), choices, out=cp.zeros(3, cp.int64)))
    out = cp.zeros(3)
    assert cp.choose(a, choices, out=out) is out and out.tolist() == [1.0, 5.0, 6.0]


def test_put_of_complex_values_into_a_real_array_does_not_compile(cp):
    # (``_put_wrap_kernel``...: ``data[ind_] = (U)(vals[...])``, a C cast from
    # ``thrust::complex<double>``, which has no conversion (CuPy's ufuncs take ``.real()``:
    # ``_kernel.pyx: fix_cast_expr``); NumPy drops the imaginary part with a warning)
    # (NVRTC 13's log as an H200 printed it: thrust's inline namespace names CuPy's
    # bundled CCCL and the GPU's architecture, SM_900 there, the CPU backend's sm_80
    # here; C++'s bool is CUDA's ``__nv_bool``)
    from gpushare.errors import CompileException
    for dtype, ctype in ((cp.float64, "double"), (cp.int32, "int"), (cp.bool_, "__nv_bool")):
        x = cp.zeros(3, dtype)
        with pytest.raises(CompileException) as info:
            x.put([0, 1], cp.array([1 + 2j, 3 + 4j]))
        assert re.fullmatch(
            rf'({NVRTC_FILE})\(23\): error: no suitable conversion function from '
            r'"const thrust::THRUST_\d{6}_SM_\d+_NS::complex<double>" to "U" '
            rf'\(aka "{ctype}"\) exists\n'
            r'        data\[ind_\] = \(U\)\(vals\[i % static_cast<v_idx_t>\(n_vals\)\]\);\n'
            r' {24}\^\n\n1 error detected in the compilation of "\1"\.\n',
            str(info.value)), str(info.value)
        assert not x.any()
    x = cp.zeros(3)
    with pytest.raises(CompileException):
        cp.put(x, [2], cp.array([5 + 1j]), mode="raise")
    with pytest.raises(CompileException):  # (``cupy.asarray(vals)``, then ``arr.put``)
        cp.place(x, x > -1, [1j])
    x.put([], cp.array([], complex))  # (no values: CuPy returns before its kernel)
    c = cp.zeros(2, complex)
    c.put([0], cp.array([2.0]))
    assert c.tolist() == [2 + 0j, 0j]


# --- linalg.norm of an empty array (cupy/linalg/_norms.py: norm) -------------------------

def test_norm_of_an_empty_array_runs_cupys_steps(cp):
    # (``abs(x).max(axis=...)``/``min`` of an empty axis: the reduction's error, CUB's
    # name for a whole-array one; ord=2/-2 ``cupy.take(svd(...), indices=0)`` of no
    # singular values: take's IndexError; NumPy answers 0 where CuPy raises)
    e1, e2, e3 = cp.zeros((0,)), cp.zeros((0, 3)), cp.zeros((3, 0))
    _raises(ValueError, "zero-size array to reduction operation CUPY_CUB_MAX which has no "
            "identity", lambda: cp.linalg.norm(e1, ord=numpy.inf))
    _raises(ValueError, "zero-size array to reduction operation CUPY_CUB_MIN which has no "
            "identity", lambda: cp.linalg.norm(e1, ord=-numpy.inf))
    for x, ords in ((e2, (numpy.inf, -numpy.inf)), (e3, (1, -1))):
        for o in ords:
            with pytest.raises(ValueError, match="zero-size array to reduction operation"):
                cp.linalg.norm(x, ord=o)
    for x in (e2, e3):
        for o in (2, -2):
            _raises(IndexError, "cannot do a non-empty take from an empty axes.",
                    lambda: cp.linalg.norm(x, ord=o))
    for x, o in ((e1, None), (e1, 1), (e1, 0), (e2, "fro"), (e2, "nuc"), (e2, 1),
                 (e3, numpy.inf), (e2, None)):
        assert float(cp.linalg.norm(x, ord=o)) == 0.0
    assert float(cp.linalg.norm(e1, ord=-1)) == numpy.inf  # (0 ** -1)
    assert float(cp.linalg.norm(cp.array([3.0, 4.0]), ord=numpy.inf)) == 4.0


# --- the 1-D FFTs' n and axis (cupy/fft/_fft.py: _fft, _cook_shape, _exec_fft) ----------

def test_fft_of_a_negative_n_transforms_a_slice(cp):
    # (``_cook_shape``: ``a[..., :n]`` where the axis is longer than n, so n=-1 drops
    # the last point; NumPy refuses any n < 1)
    x = cp.arange(4.0)
    for name in ("fft", "ifft", "rfft", "ihfft"):
        fn, host = getattr(cp.fft, name), getattr(numpy.fft, name)
        assert numpy.allclose(fn(x, n=-1).get(), host(numpy.arange(3.0)))
        assert numpy.allclose(fn(x, n=-3).get(), host(numpy.arange(1.0)))
        _raises(ValueError, "Invalid number of FFT data points (0) specified.",
                lambda: fn(x, n=-4))
    m = cp.arange(6.0).reshape(2, 3)
    assert cp.fft.fft(m, axis=0, n=-1).shape == (1, 3)
    # (a C2R transform cooks n // 2 + 1 points: none for n=-1 or -2)
    for name in ("irfft", "hfft"):
        for n in (-1, -2):
            _raises(ValueError, "Invalid number of FFT data points (0) specified.",
                    lambda: getattr(cp.fft, name)(x, n=n))


def test_fft_axis_past_the_end_as_cupys_modulo(cp):
    # (``_exec_fft``: the last axis wherever ``axis % a.ndim`` is it, else
    # ``a.swapaxes(axis, -1)``; ``a.shape[axis]`` read as given when n is cooked, and by
    # a C2R transform's output size)
    x = cp.arange(4.0)
    expected = numpy.fft.fft(numpy.arange(4.0))
    for axis in (1, -2, 3):
        assert numpy.allclose(cp.fft.fft(x, axis=axis).get(), expected)
        _raises(IndexError, "tuple index out of range", lambda: cp.fft.irfft(x, axis=axis))
    _raises(IndexError, "tuple index out of range", lambda: cp.fft.fft(x, n=8, axis=1))
    m = cp.arange(6.0).reshape(2, 3)
    assert numpy.allclose(cp.fft.fft(m, axis=3).get(), numpy.fft.fft(m.get(), axis=1))
    _raises(ValueError, "Axis out of range", lambda: cp.fft.fft(m, axis=2))


# --- cupyx.scipy.linalg.expm (cupyx/scipy/linalg/_matfuncs.py: expm) ---------------------

def test_expm_is_cupys_pade_port(cp):
    # (``cupy.diag(a)`` first: a batch is diag's refusal, where SciPy's expm takes it;
    # ``a - eye(n) * mu``: a non-square matrix's broadcast error; an empty one (0, 0))
    from gpushare.cupyx.scipy import linalg
    _raises(ValueError, "Input must be 1- or 2-d.", lambda: linalg.expm(cp.zeros((2, 2, 2))))
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        linalg.expm(cp.zeros((2, 3)))
    got = linalg.expm(cp.zeros((0, 3)))
    assert got.shape == (0, 0) and got.dtype == numpy.float64
    _raises(IndexError, "tuple index out of range", lambda: linalg.expm(cp.array(1.0)))
    import scipy.linalg
    h = numpy.random.default_rng(0).standard_normal((5, 5)) * 4
    want = scipy.linalg.expm(h)
    got = linalg.expm(cp.asarray(h))
    assert numpy.abs(got.get() - want).max() <= 1e-12 * numpy.abs(want).max()
    assert linalg.expm(cp.asarray(h, dtype=cp.float32)).dtype == numpy.float32
    assert linalg.expm(cp.arange(4).reshape(2, 2)).dtype == numpy.float64


# --- legacy RandomState (cupy/random/_generator.py, _kernels.py) --------------------------

def test_binomial_checks_nothing_as_cupys_kernel(cp):
    # (``RandomState.binomial`` validates neither n nor p; ``rk_binomial``'s inversion
    # branch starts at ``px = q ** n`` >= 1 there, so X = 0: n for p > 1, 0 for p < 0;
    # NumPy raises 'p < 0, p > 1 or p is NaN')
    rs = cp.random.RandomState(1)
    assert rs.binomial(5, 1.5, size=3).tolist() == [5, 5, 5]
    assert rs.binomial(5, -0.5, size=3).tolist() == [0, 0, 0]
    assert rs.binomial(-5, 0.5, size=2).tolist() == [0, 0]
    assert rs.binomial(-5, 0.7, size=2).tolist() == [-5, -5]
    got = rs.binomial(cp.array([5, 5, -2, 10]), cp.array([1.5, 0.0, 0.9, 1.0]))
    assert got.tolist() == [5, 0, -2, 10] and got.dtype == numpy.int64


def test_random_state_broadcast_errors_are_cupys_kernels(cp):
    # (each distribution's ``ElementwiseKernel('<params>, uint64 seed', 'Y y')`` into
    # ``y = cupy.empty(size)``: ``_broadcast_core``'s words, the seed a scalar's ``()``;
    # normal's ``cupy.add(x, loc, out=x)``; NumPy's words were its own)
    rs = cp.random.RandomState(1)
    _raises(ValueError, "operands could not be broadcast together with shapes "
            "(3,) () () (2,)", lambda: rs.binomial(cp.array([1, 2, 3]), 0.5, size=(2,)))
    _raises(ValueError, "operands could not be broadcast together with shapes "
            "(3,) () (2,)", lambda: rs.poisson(cp.ones(3), size=(2,)))
    _raises(ValueError, "Out shape is mismatched",
            lambda: rs.beta(cp.ones((2, 3)), 1.0, size=(3,)))
    _raises(ValueError, "operands could not be broadcast together with shapes "
            "(2,) (3,) (2,)", lambda: rs.normal(cp.zeros(3), 1.0, size=(2,)))
    assert rs.normal(cp.zeros(3), 1.0, size=(2, 3)).shape == (2, 3)
