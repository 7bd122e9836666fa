"""CuPy 14.2's ufuncs where gpushare answered otherwise (session 26): ``ufunc.__call__``'s
argument checks and words (``cupy/_core/_kernel.pyx``), the ufuncs' names (their
kernels', ``cupy_<name>``), and elementwise kernels whose arithmetic is not NumPy's."""
from __future__ import annotations

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


# --- ufunc.__call__'s arguments (cupy/_core/_kernel.pyx) ---------------------------------

def test_ufunc_call_refuses_arguments_in_cupys_words(cp):
    a = cp.arange(6.0).reshape(2, 3)
    b = cp.arange(3.0)
    o = cp.empty((2, 3))
    _raises(TypeError, "Wrong number of arguments for 'cupy_add'. It must be either 2 or 3 "
            "(with outputs), but given 1.", lambda: cp.add(a))
    _raises(TypeError, "Wrong number of arguments for 'cupy_add'. It must be either 2 or 3 "
            "(with outputs), but given 4.", lambda: cp.add(a, b, o, o))
    _raises(ValueError, "Cannot specify 'out' as both a positional and keyword argument",
            lambda: cp.add(a, b, o, out=o))
    _raises(ValueError, "The 'out' tuple must have exactly one entry per ufunc output",
            lambda: cp.add(a, b, out=(o, o)))
    _raises(ValueError, "'out' must be a tuple of arrays", lambda: cp.divmod(a, b, out=o))
    _raises(TypeError, "Unsupported type <class 'list'>", lambda: cp.add(a, b, out=[o]))
    _raises(TypeError, "Unsupported type <class 'numpy.ndarray'>",
            lambda: cp.add(a, b, out=numpy.empty((2, 3))))
    _raises(TypeError, "Output arguments type must be cupy.ndarray",
            lambda: cp.add(a, b, out=3))
    # (an out=None keyword beside a positional output is no conflict)
    assert cp.add(a, b, o, out=None) is o
    assert o.tolist() == [[0.0, 2.0, 4.0], [3.0, 5.0, 7.0]]


def test_ufunc_names_are_cupys_kernel_names(cp):
    assert cp.add.name == cp.add.__name__ == "cupy_add"
    assert repr(cp.sqrt) == "<ufunc 'cupy_sqrt'>"
    assert cp.divide.name == "cupy_true_divide" and cp.abs.name == "cupy_absolute"
    # (_math/trigonometric.py: degrees = rad2deg, radians = deg2rad)
    assert cp.degrees is cp.rad2deg and cp.radians is cp.deg2rad
    assert cp.degrees(cp.array([numpy.pi])).tolist() == [180.0]
    import gpushare.cupyx as cupyx
    assert cupyx.rsqrt.name == "cupy_rsqrt"


# --- floor_divide, remainder, divmod of floats (_routines_math.pyx, carray.cuh) ----------

def test_float_floor_division_is_cupys_floor_of_the_quotient(cp):
    # (carray.cuh: _floor_divide(x, y) = floor(x / y) for floats; NumPy's, as Python's,
    # is fmod-based: 1.0 // 0.1 == 9.0)
    a = cp.array([1.0, -1.0, 7.5, 1.0, 5.0])
    b = cp.array([0.1, 0.1, 2.0, -numpy.inf, 0.0])
    assert (a // b).tolist() == [10.0, -10.0, 3.0, -0.0, numpy.inf]
    assert numpy.signbit((a // b).get()[3])
    assert cp.floor_divide(a.astype(cp.float32), b.astype(cp.float32)).tolist() == \
        [10.0, -10.0, 3.0, -0.0, numpy.inf]
    # float16 operands divide as floats: -1 / float16(0.1) = -10.0024...
    got = cp.floor_divide(a.astype(cp.float16), b.astype(cp.float16))
    assert got.dtype == numpy.float16 and got.tolist()[:3] == [10.0, -11.0, 3.0]
    x = cp.ones(3)
    x //= 0.1  # (into an operand)
    assert x.tolist() == [10.0] * 3
    for _ in range(2):  # (carried records)
        x = x // 0.1
    assert x.tolist() == [1000.0] * 3
    assert float(cp.floor_divide(cp.array(1.0), cp.array(0.1))) == 10.0
    assert (cp.arange(-3, 3) // cp.array(2)).tolist() == [-2, -1, -1, 0, 0, 1]
    assert (cp.arange(3) // cp.array([0, 0, 0])).tolist() == [0, 0, 0]


def test_float_remainder_is_cupys_fused_difference(cp):
    # (``out0 = in0 - _floor_divide(in0, in1) * in1``, one FMA under NVRTC's default
    # --fmad=true: 1.0 % 0.1 is 1 - 10 * 0.1 rounded once; NumPy's is 0.09999999999999995)
    a = cp.array([1.0, -1.0, 7.5, 1.0, -1.0, 5.0])
    b = cp.array([0.1, 0.1, 2.0, numpy.inf, numpy.inf, 0.0])
    got = (a % b).tolist()
    assert got[:3] == [-5.551115123125783e-17, 5.551115123125783e-17, 1.5]
    assert all(numpy.isnan(v) for v in got[3:])  # (0 * inf: NumPy's 1.0, inf, nan)
    assert cp.remainder(cp.array([1.0], cp.float32), cp.array([0.1], cp.float32)).tolist() \
        == [float(numpy.float32(1.0) - numpy.float32(10) * numpy.float64(numpy.float32(0.1)))]
    x = cp.ones(2)
    x %= 0.1
    assert x.tolist() == [-5.551115123125783e-17] * 2
    q, r = cp.divmod(a[:3], b[:3])
    assert q.tolist() == [10.0, -10.0, 3.0]
    assert r.tolist() == [-5.551115123125783e-17, 5.551115123125783e-17, 1.5]
    q, r = divmod(cp.array([7, -7, 7]), cp.array([2, 2, 0]))
    assert q.tolist() == [3, -4, 0] and r.tolist() == [1, 1, 0]


# --- special values (float16.cuh, complex.cuh, _math/misc.py) ----------------------------

def test_float16_nextafter_of_an_infinity_is_nan(cp):
    # (float16.cuh: float16's nextafter gives NaN for ``!x.isfinite() || y.isnan()``;
    # NumPy steps from inf to 65504)
    x = cp.array([numpy.inf, -numpy.inf, 0.0, 65504.0, 1.0], cp.float16)
    got = cp.nextafter(x, cp.zeros(5, cp.float16)).get()
    assert numpy.isnan(got[:2]).all() and got[2:].tolist() == [0.0, 65472.0, 0.99951171875]
    got = cp.nextafter(cp.array([0.0, -0.0], cp.float16), cp.array([1.0, -1.0], cp.float16))
    assert got.tolist() == [5.960464477539063e-08, -5.960464477539063e-08]
    assert cp.nextafter(cp.array([numpy.inf]), cp.array([0.0])).tolist() == \
        [numpy.finfo(numpy.float64).max]  # (doubles: CUDA's nextafter, NumPy's)


def test_complex_maximum_with_nan_is_nan_plus_0j(cp):
    # (_math/misc.py: _float_maximum = (isnan(in0) | isnan(in1)) ? out0_type(NAN) : ...;
    # NumPy gives the NaN operand itself)
    x = cp.array([complex(numpy.nan, 1), 1j, 1 + 1j])
    y = cp.array([1j, complex(2, numpy.nan), 1 + 2j])
    for got in (cp.maximum(x, y).get(), cp.minimum(x, y).get()):
        assert numpy.isnan(got[:2].real).all() and got[:2].imag.tolist() == [0.0, 0.0]
    assert cp.maximum(x, y).get()[2] == 1 + 2j and cp.minimum(x, y).get()[2] == 1 + 1j
    # fmax/fmin's complex loops are complex.cuh's max/min: two NaNs give the second
    both = cp.fmax(cp.array([complex(numpy.nan, 1)]), cp.array([complex(numpy.nan, 2)]))
    assert both.get()[0].imag == 2.0
    assert cp.fmin(x, y).get().tolist()[0] == 1j


def test_angle_of_reals_is_cupys_sign_test(cp):
    # (_routines_math.pyx: _angle is ``in0 >= 0 ? 0.0 : M_PI`` for reals: -0.0 gives 0,
    # NaN gives pi; loops ?->d e->e f->f d->d F->f D->d)
    got = cp.angle(cp.array([-1.0, 0.0, -0.0, numpy.nan]))
    assert got.tolist() == [numpy.pi, 0.0, 0.0, numpy.pi]
    assert cp.angle(cp.array([-1.0, 2.0]), deg=True).tolist() == [180.0, 0.0]
    got = cp.angle(cp.array([True, False]))
    assert got.dtype == numpy.float64 and got.tolist() == [0.0, 0.0]
    got = cp.angle(cp.array([-1, 2], cp.int8))
    assert got.dtype == numpy.float16 and got.tolist() == [3.140625, 0.0]
    got = cp.angle(cp.array([-1 + 0j, complex(-1, -0.0), 1j]), deg=True)
    assert got.tolist() == [180.0, -180.0, 90.0]
    assert cp.angle(cp.array([1 + 1j], cp.complex64)).dtype == numpy.float32
    _raises(TypeError, "Unsupported type <class 'list'>", lambda: cp.angle([1.0]))


def test_gcd_refusals_are_cupys(cp):
    _raises(TypeError, "gcd cannot be computed with boolean arrays",
            lambda: cp.gcd(cp.array([True]), cp.array([False])))
    _raises(TypeError, "lcm cannot be computed with boolean arrays",
            lambda: cp.lcm(cp.array([True]), True))
    _raises(TypeError, "Wrong type ((dtype('float64'), dtype('float64'))) of arguments for "
            "cupy_gcd", lambda: cp.gcd(cp.array([1.0]), cp.array([2.0])))
    assert cp.gcd(cp.array([True]), 4).tolist() == [1]


def test_ufunc_broadcast_and_out_shape_errors_are_cupys(cp):
    # (_kernel.pyx: the operands and the given outputs broadcast together, in
    # internal._broadcast_core's words; an output of another shape: 'Out shape is
    # mismatched')
    a = cp.ones((2, 3))
    _raises(ValueError, "operands could not be broadcast together with shapes (2, 3) (4,)",
            lambda: a + cp.ones(4))
    _raises(ValueError, "operands could not be broadcast together with shapes (2, 3) (3,) "
            "(4,)", lambda: cp.add(a, cp.ones(3), out=cp.empty(4)))
    _raises(ValueError, "Out shape is mismatched",
            lambda: cp.add(a, cp.ones(3), out=cp.empty(3)))
    _raises(ValueError, "Out shape is mismatched", lambda: cp.sin(a, out=cp.empty(3)))
    _raises(ValueError, "Out shape is mismatched",
            lambda: cp.power(a, 2, out=cp.empty(3)))  # (an override of the CPU backend)
    _raises(ValueError, "Out shape is mismatched", lambda: a.__iadd__(cp.ones((4, 2, 3))))
    # (an output that broadcasts the operands further is CuPy's too)
    assert cp.add(a, 1, out=cp.empty((4, 2, 3))).shape == (4, 2, 3)


def test_python_ints_beyond_64_bits_are_refused_as_cupy_packs_them(cp):
    # (_scalar.pyx: CScalar packs a Python int as uint64 from 2**63 up, else as int64,
    # before any loop is chosen)
    _raises(OverflowError, "Python integer 18446744073709551616 out of bounds for uint64",
            lambda: cp.arange(3) + 2**64)
    _raises(OverflowError, "Python integer 18446744073709551616 out of bounds for uint64",
            lambda: cp.add(cp.arange(3, dtype=cp.uint8), 2**64))
    _raises(OverflowError, "Python integer -9223372036854775809 out of bounds for int64",
            lambda: cp.arange(3, dtype=cp.uint8) + -(2**63 + 1))
    _raises(OverflowError, "Python integer 300 out of bounds for int8",
            lambda: cp.arange(3, dtype=cp.int8) + 300)


# --- i0, sinc (cupy/_math/special.py) -----------------------------------------------------

def test_sinc_is_cupys_sinpi_kernel(cp):
    # (``abs(in0) > 1e-9 ? sinpi(in0) / (M_PI * in0) : 1``: 0 at the integers, where
    # NumPy's sin(pi x) / (pi x) is 3.9e-17 at 1; NaN fails the test and gives 1; loops
    # e f d F D, so int8 gives float16)
    got = cp.sinc(cp.array([0.0, 0.5, 1.0, 1e-10, numpy.nan]))
    assert got.tolist() == [1.0, 0.6366197723675814, 0.0, 1.0, 1.0]
    got = cp.sinc(cp.array([0, 1], cp.int8))
    assert got.dtype == numpy.float16 and got.tolist() == [1.0, 0.0]
    assert cp.sinc(cp.array([0, 1], cp.int16)).dtype == numpy.float32
    assert cp.sinc(cp.array([0.5]), out=cp.empty(1, cp.float32)).dtype == numpy.float32
    _raises(TypeError, "Unsupported type <class 'list'>", lambda: cp.sinc([0.5]))


def test_i0_computes_in_cupys_loops(cp):
    # (create_math_ufunc('cyl_bessel_i0', ...): loops e f d; float16 and float32 as
    # CUDA's Bessel function computes them, not NumPy's series in their own precision)
    got = cp.i0(cp.array([0.0, 1.0], cp.float32))
    assert got.dtype == numpy.float32 and got.tolist()[0] == 1.0
    assert abs(got.tolist()[1] - 1.2660658777520082) < 1e-7
    got = cp.i0(cp.array([0, 1], cp.int8))
    assert got.dtype == numpy.float16 and got.tolist() == [1.0, 1.265625]
    assert cp.i0(cp.array([0, 1])).dtype == numpy.float64


def test_isclose_broadcasts_its_five_operands_in_cupys_words(cp):
    # (_logic/comparison.py: the ufunc _is_close(a, b, rtol, atol, equal_nan))
    message = "operands could not be broadcast together with shapes (2, 3) (4,) () () ()"
    _raises(ValueError, message, lambda: cp.isclose(cp.ones((2, 3)), cp.ones(4)))
    _raises(ValueError, message, lambda: cp.allclose(cp.ones((2, 3)), cp.ones(4)))
    got = cp.isclose(cp.array([1.0, numpy.nan]), cp.array([[1.0 + 1e-9], [numpy.nan]]),
                     equal_nan=True)
    assert got.tolist() == [[True, False], [False, True]]
    assert cp.allclose([1.0], cp.array([1.0])).shape == ()


def test_ufunc_outer_copies_its_operands_to_the_device(cp):
    # (_kernel.pyx: ufunc.outer is core.array(A), core.array(B), reshaped, then the
    # ufunc's call: host arrays and lists are operands)
    got = cp.multiply.outer(numpy.arange(3), [1, 2])
    assert isinstance(got, cp.ndarray) and got.tolist() == [[0, 0], [1, 2], [2, 4]]
    q, r = cp.divmod.outer(cp.arange(1, 4), cp.arange(1, 3))
    assert q.tolist() == [[1, 0], [2, 1], [3, 1]] and r.tolist() == [[0, 1], [0, 0], [0, 1]]
    assert cp.add.outer(cp.arange(3), 1.5, dtype=cp.float32).dtype == numpy.float32


def test_logical_ufuncs_refuse_complex_and_positive_refuses_bools(cp):
    # (_logic/ops.py, _routines_logic.pyx create_comparison: bool, integer and real
    # float loops only; _routines_math.pyx: positive's ?->? loop raises its own error)
    _raises(TypeError, "Wrong type ((dtype('complex128'),)) of arguments for "
            "cupy_logical_not", lambda: cp.logical_not(cp.array([0j])))
    _raises(TypeError, "Wrong type ((dtype('float64'), dtype('complex128'))) of arguments "
            "for cupy_logical_and", lambda: cp.logical_and(cp.array([1.0]), 1j))
    assert cp.logical_xor(cp.array([1, 0], cp.int8), cp.array([1, 1], cp.int8)).tolist() \
        == [False, True]
    b = cp.array([True, False])
    _raises(TypeError, "The cupy boolean positive, the `+` operator, is not supported.",
            lambda: +b)
    _raises(TypeError, "The cupy boolean positive, the `+` operator, is not supported.",
            lambda: cp.positive(b))


# --- power (core.pyx __pow__, _routines_math.pyx complex_power) ---------------------------

def test_complex_power_is_thrusts_exp_log_and_pow_takes_cupys_shortcuts(cp):
    z = cp.array([1 + 1j, 2 + 0j, -1 + 0j])
    # (complex_power: in1 == 0 ? 1 : pow(in0, in1) = exp(log(z) * w); NumPy multiplies)
    got = (z ** 3).get()
    want = numpy.exp(numpy.log(z.get()) * 3)
    assert got.tolist() == want.tolist() and got[0] != -2 + 2j
    assert cp.power(z, 2).get().tolist() == numpy.exp(numpy.log(z.get()) * 2).tolist()
    assert (z ** 0).tolist() == [1 + 0j] * 3
    # (__pow__: ** 2 is square, ** 0.5 sqrt, ** -1.0 reciprocal)
    assert (z ** 2).tolist() == [2j, 4 + 0j, 1 + 0j]
    assert (z ** 0.5).get()[2] == 1j
    got = cp.array([2, 0]) ** -1.0
    assert got.dtype == numpy.float64 and got.tolist() == [0.5, numpy.inf]
    got = cp.array([True]) ** 2
    assert got.dtype == numpy.int64 and got.tolist() == [1]
    got = cp.array([3], cp.uint8) ** 2
    assert got.dtype == numpy.uint8 and got.tolist() == [9]
    assert (cp.array([-1, 1, 2]) ** cp.array([-3, -2, -1])).tolist() == [-1, 1, 0]


def test_complex_reciprocal_is_thrusts_quotient(cp):
    # (_math/arithmetic.py: ``out0 = in0_type(1) / in0``, thrust's scaled division, as
    # 1 / z, its sums of products contracted into fma by NVRTC: on an H200 1 / (1+2j) is
    # 0.2-0.4j, where the unfused steps give 0.19999999999999996-0.3999999999999999j)
    z = cp.array([1 + 2j, 0j])
    got = cp.reciprocal(z).get()
    assert got[0] == (1 / z).get()[0] == 0.2 - 0.4j
    assert numpy.isnan(got[1].real) and numpy.isnan(got[1].imag)
    x = cp.array([0.345584192064786 + 0.3208483045665637j])
    for _ in range(2):  # (carried records: NumPy's reciprocal gives ...+0.32084830456656366j)
        x = cp.reciprocal(x)
    assert x.get()[0] == 0.3455841920647859 + 0.3208483045665636j


def test_ufunc_takes_cupys_private_where(cp):
    # (_kernel.pyx: ufunc.__call__ pops ``_where``: a bool array, or a scalar's bool())
    a = cp.arange(6.0).reshape(2, 3)
    got = cp.add(a, 1.0, out=cp.zeros((2, 3)), _where=a > 2)
    assert got.tolist() == [[0.0, 0.0, 0.0], [4.0, 5.0, 6.0]]
    assert cp.sqrt(a, out=cp.zeros((2, 3)), _where=0).tolist() == [[0.0] * 3] * 2
    assert cp.power(a, 2, out=cp.zeros((2, 3)), _where=a < 1).tolist() == [[0.0] * 3] * 2
    _raises(TypeError, "Cannot cast array data from dtype('int64') to dtype('bool') "
            "according to the rule 'safe'",
            lambda: cp.add(a, 1.0, out=cp.zeros((2, 3)), _where=cp.ones((2, 3), int)))


def test_ldexp_exponents_as_cupys_loops_take_them(cp):
    # (_math/floating.py: loops ei fi el fl di dq: a Python int exponent is packed into
    # int32; an int64 array's reach CUDA's ldexp(x, int) wrapped to int)
    x = cp.array([1.0, 3.0])
    _raises(OverflowError, "Python integer 1099511627776 out of bounds for int32",
            lambda: cp.ldexp(x, 2**40))
    assert cp.ldexp(x, cp.array([2**32 + 3, -2**32])).tolist() == [8.0, 3.0]
    assert cp.ldexp(x, 3).tolist() == [8.0, 24.0]
    got = cp.ldexp(cp.array([1, 2]), 2)
    assert got.dtype == numpy.float64 and got.tolist() == [4.0, 8.0]


def test_float_floor_division_into_integers_converts_as_a_gpu(cp):
    # (casting='unsafe' into an int32 out=: the kernel's float result converted as CUDA
    # converts it, saturating; a float64 NaN (0.0 // 0.0) to -2**31, as on an H200)
    o = cp.zeros(4, cp.int32)
    got = cp.floor_divide(cp.array([1.0, 1e20, -1.0, 0.0]), cp.array([0.1, 1.0, 0.0, 0.0]),
                          out=o, casting="unsafe")
    assert got is o and o.tolist() == [10, 2147483647, -2147483648, -2147483648]
