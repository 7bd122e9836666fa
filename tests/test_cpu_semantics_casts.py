"""Floating point to integer conversions of device arrays as CuPy makes them on a GPU
(``backends/cpu_cast.py``): truncation that saturates at the type's limits (PTX
``cvt.rzi``; CuPy's user guide, "Cast behavior from float to integer"), where NumPy's
casts on x86 give the "integer indefinite" value or wrap. NaN is 0 from float32 (and
float16) into 32 bits, but the sign bit alone (-2**31, 2**31) from float64 into 32 bits
and from either into 64 bits; 8- and 16-bit types keep the low bits of the int32
(signed) or uint32 (unsigned) conversion. These expectations are CuPy's own answers on
an H200 (CUDA 13, CuPy 14.2.0; the session-36 probe). Host data is converted by NumPy,
as CuPy does (``numpy.array(obj, dtype)`` on the host)."""
from __future__ import annotations

import warnings

import numpy
import pytest

pytestmark = pytest.mark.timeout(240)

VALUES = [numpy.nan, numpy.inf, -numpy.inf, -1.0, 3e9, 1e20, 2.7, -2.7, 300.0, 1e6,
          -1e6, 7e4, 40000.0, 2.0 ** 63, -2.0 ** 63, 2.0 ** 31, -2.0 ** 31]

#: from float64 (CuPy on an H200)
EXPECTED = {
    "int8": [0, -1, 0, -1, -1, -1, 2, -2, 44, 64, -64, 112, 64, -1, 0, -1, 0],
    "uint8": [0, 255, 0, 0, 0, 255, 2, 0, 44, 64, 0, 112, 64, 255, 0, 0, 0],
    "int16": [0, -1, 0, -1, -1, -1, 2, -2, 300, 16960, -16960, 4464, -25536, -1, 0, -1, 0],
    "uint16": [0, 65535, 0, 0, 24064, 65535, 2, 0, 300, 16960, 0, 4464, 40000, 65535, 0,
               0, 0],
    "int32": [-2**31, 2**31 - 1, -2**31, -1, 2**31 - 1, 2**31 - 1, 2, -2, 300, 10**6,
              -10**6, 70000, 40000, 2**31 - 1, -2**31, 2**31 - 1, -2**31],
    "uint32": [2**31, 2**32 - 1, 0, 0, 3 * 10**9, 2**32 - 1, 2, 0, 300, 10**6, 0, 70000,
               40000, 2**32 - 1, 0, 2**31, 0],
    "int64": [-2**63, 2**63 - 1, -2**63, -1, 3 * 10**9, 2**63 - 1, 2, -2, 300, 10**6,
              -10**6, 70000, 40000, 2**63 - 1, -2**63, 2**31, -2**31],
    "uint64": [2**63, 2**64 - 1, 0, 0, 3 * 10**9, 2**64 - 1, 2, 0, 300, 10**6, 0, 70000,
               40000, 2**63, 0, 2**31, 0],
}

#: from float32 and float16, where they differ from float64's: NaN into 32 bits is 0
NAN_FROM_SINGLE = {"int32": 0, "uint32": 0}


@pytest.mark.parametrize("dtype", sorted(EXPECTED))
def test_astype_saturates_and_nan_is_zero(cp, dtype):
    x = cp.array(VALUES)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (CuPy warns of nothing; NumPy's cast would)
        got = x.astype(dtype)
    assert got.dtype == numpy.dtype(dtype)
    assert got.tolist() == EXPECTED[dtype]
    # the same values from float32 (where they exist: 2**31 and 2**63 do) and float16
    # (inf for everything past 65504)
    single = [NAN_FROM_SINGLE.get(dtype, EXPECTED[dtype][0])] + EXPECTED[dtype][1:]
    f32 = cp.array(VALUES).astype(cp.float32).astype(dtype).tolist()
    assert f32 == single
    half = cp.array([numpy.nan, 1e6, -1e6, 2.5, -1.0]).astype(cp.float16).astype(dtype)
    expect = [single[i] for i in (0, 1, 2)] + [2, single[3]]
    assert half.tolist() == expect


def test_in_range_values_truncate_toward_zero(cp):
    x = cp.array([-2.9, -0.5, 0.5, 2.9, 127.9, -128.9, 255.9])
    assert x.astype(cp.int32).tolist() == [-2, 0, 0, 2, 127, -128, 255]
    assert x.astype(cp.uint8).tolist() == [0, 0, 0, 2, 127, 0, 255]
    assert x.astype(cp.int8).tolist() == [-2, 0, 0, 2, 127, -128, -1]
    # (order and copy as NumPy's astype)
    f = cp.asfortranarray(cp.array([[1.5, numpy.inf], [numpy.nan, -3.5]]))
    got = f.astype(cp.int32, order="K")
    assert got.flags.f_contiguous and got.tolist() == [[1, 2**31 - 1], [-2**31, -3]]


def test_complex_converts_its_real_part(cp):
    z = cp.array([complex(numpy.inf, 1.0), complex(-1.0, 5.0), complex(numpy.nan, 0)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (CuPy's ComplexWarning)
        assert z.astype(cp.int32).tolist() == [2**31 - 1, -1, -2**31]
        assert z.astype(cp.uint32).tolist() == [2**32 - 1, 0, 2**31]
        # (complex64: its float32 real part's conversion, NaN to 0)
        assert z.astype(cp.complex64).astype(cp.int32).tolist() == [2**31 - 1, -1, 0]


def test_creation_from_a_device_array_converts_on_the_device(cp):
    x = cp.array([numpy.nan, numpy.inf, -1.0, 2.5])
    for got in (cp.array(x, dtype=cp.int32), cp.asarray(x, dtype=cp.int32),
                cp.ascontiguousarray(x, dtype=cp.int32),
                cp.asfortranarray(x, dtype=cp.int32), cp.asanyarray(x, dtype=cp.int32)):
        assert got.tolist() == [-2**31, 2**31 - 1, -1, 2]
    assert cp.array(x, dtype=cp.uint32, ndmin=2).tolist() == [[2**31, 2**32 - 1, 0, 2]]
    # a sequence of device arrays: concatenated, then converted on the device
    assert cp.array([x, x[::-1]], dtype=cp.int32).tolist() == \
        [[-2**31, 2**31 - 1, -1, 2], [2, -1, 2**31 - 1, -2**31]]
    # host data is converted by NumPy on the host, as CuPy's _array_default does
    host = numpy.array([-1.0, 2.5])
    assert cp.array(host, dtype=cp.uint32).tolist() == host.astype(numpy.uint32).tolist()


def test_assignment_copyto_put_and_fill_convert_on_the_device(cp):
    x = cp.array([numpy.nan, numpy.inf, -numpy.inf, -1.0])
    a = cp.zeros(4, dtype=cp.int32)
    a[...] = x
    assert a.tolist() == [-2**31, 2**31 - 1, -2**31, -1]
    b = cp.full(6, 7, dtype=cp.uint16)
    b[cp.array([0, 2, 4, 5])] = x  # (advanced indexing: CuPy's scatter kernel)
    assert b.tolist() == [0, 7, 65535, 7, 0, 0]
    c = cp.zeros(4, dtype=cp.int64)
    cp.copyto(c, x, casting="unsafe")
    assert c.tolist() == [-2**63, 2**63 - 1, -2**63, -1]
    d = cp.zeros(4, dtype=cp.uint8)
    cp.put(d, cp.array([3, 2, 1, 0]), x)
    assert d.tolist() == [0, 0, 255, 0]
    f = cp.zeros(5, dtype=cp.int32)
    cp.place(f, cp.array([True, False, True, True, False]), x[:2])  # (vals repeat)
    assert f.tolist() == [-2**31, 0, 2**31 - 1, -2**31, 0]
    e = cp.zeros(3, dtype=cp.int32)
    e.fill(cp.array(numpy.inf))  # (a 0-d device array: astype on the device)
    assert e.tolist() == [2**31 - 1] * 3


def test_ufunc_casts_in_and_out_convert_on_the_device(cp):
    x = cp.array([numpy.nan, numpy.inf, -1.0, 2.5])
    out = cp.zeros(4, dtype=cp.int32)
    got = cp.add(x, 0.75, out=out, casting="unsafe")
    assert got is out and out.tolist() == [-2**31, 2**31 - 1, 0, 3]
    out2 = cp.zeros(4, dtype=cp.uint32)
    cp.negative(x, out2, casting="unsafe")  # (out given by position)
    assert out2.tolist() == [2**31, 0, 1, 0]
    # dtype=: the inputs are converted, then the integer loop runs
    got = cp.add(x, x, dtype=cp.int32, casting="unsafe")
    assert got.dtype == cp.int32 and got.tolist() == [0, -2, -2, 4]
    # (-2**31 and 2**31 - 1 twice wrap in int32 arithmetic, as in CuPy's kernel)
    # without casting='unsafe' CuPy refuses, as NumPy does
    with pytest.raises(TypeError):
        cp.add(x, 1, out=cp.zeros(4, dtype=cp.int32))


def test_complex_into_integers_warns_once_as_cupys_cast_check(cp):
    """CuPy's cast checks (``_dtype.check_can_cast``) warn ``ComplexWarning`` for each
    complex-to-real cast under ``casting='unsafe'``, as NumPy does: also where the CPU
    backend converts as the GPU does (complex to an integer ``out=`` or ``dtype=``)."""
    a = cp.arange(6, dtype=cp.complex128)
    b = cp.arange(6, dtype=cp.uint32)
    for kwargs in ({"out": cp.zeros(6, cp.int32)}, {"out": cp.zeros(6, cp.float64)}):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = cp.add(a, b, casting="unsafe", **kwargs)
            assert r.tolist() == [2 * i for i in range(6)]
        assert [w.category for w in caught] == [numpy.exceptions.ComplexWarning], kwargs
    # (dtype= converts the inputs in the kernel, ``_kernel.pyx: fix_cast_expr``'s
    # ``.real()``, unchecked: CuPy checks the outputs' casts only, so no warning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = cp.add(a, b, casting="unsafe", dtype=cp.int32)
        assert r.dtype == cp.int32 and r.tolist() == [2 * i for i in range(6)]
    assert caught == []
