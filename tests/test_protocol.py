"""The sans-IO protocol, with no network at all."""
from __future__ import annotations

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gpushare import errors
from gpushare.protocol import (ArrayMeta, Decoder, Encoder, HandleRef, HostArray,
                               ProtocolError, decode, encode)


def roundtrip(value, **kw):
    return decode(encode(value), **kw)


@pytest.mark.parametrize("value", [
    None, True, 3, -2**63, 2**64 - 1, 2**80, 1.5, float("inf"), 1 + 2j, "abc", b"\x00\x01",
    (1, (2, 3)), [1, [2, (3,)]], {"a": (1, 2)}, slice(1, None, -1), Ellipsis,
    numpy.dtype("float32"), numpy.float16, numpy.int8(-3), numpy.complex64(1 - 1j),
    numpy.dtype([("x", "<f4"), ("y", "<i8", (2,))]), int, float, complex, bool,
])
def test_values_roundtrip(value):
    out = roundtrip(value)
    assert out == value and type(out) is type(value)


def test_tuples_and_lists_stay_apart():
    assert roundtrip((1, [2, (3,)])) == (1, [2, (3,)])
    assert type(roundtrip([(1,)])[0]) is tuple


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(dtype=st.sampled_from(["f4", "f8", "i1", "u8", "c16", "?"]),
                  shape=hnp.array_shapes(min_dims=0, max_dims=4, max_side=40)))
def test_arrays_roundtrip(arr):
    frames = encode({"x": arr})
    out = decode(frames)["x"]
    assert out.dtype == arr.dtype and out.shape == arr.shape
    numpy.testing.assert_array_equal(out, arr)


def test_large_arrays_travel_as_separate_frames_without_copy():
    arr = numpy.arange(100_000, dtype=numpy.float64)
    frames = encode([arr])
    assert len(frames) == 2 and len(frames[0]) < 100
    assert numpy.shares_memory(numpy.frombuffer(frames[1], dtype=numpy.float64), arr)
    numpy.testing.assert_array_equal(decode(frames)[0], arr)


def test_non_contiguous_arrays_are_sent_in_c_order():
    arr = numpy.arange(12).reshape(3, 4).T
    numpy.testing.assert_array_equal(roundtrip(arr), arr)


def test_host_array_wrapper_on_decode():
    out = decode(encode([numpy.ones(3)]), host_array=HostArray)
    assert isinstance(out[0], HostArray)


def test_handles_and_metadata():
    class Proxy:
        pass
    proxy = Proxy()
    enc = Encoder(handle_of=lambda o: 7 if o is proxy else None)
    frames = enc.encode([proxy, HandleRef(3)])
    assert decode(frames) == [HandleRef(7), HandleRef(3)]
    meta = ArrayMeta(5, (2, 3), numpy.dtype("f4"), (12, 4), 7, None)
    assert decode(encode(meta)) == meta


@given(st.integers(-2**63, 2**64 - 1) | st.binary(max_size=10))
def test_handle_ids_of_every_width_decode_as_packed(value):
    # a handle's id is read without msgpack when it is a plain int; anything else
    # (other widths, other types) takes the general path, and so do its errors
    import msgpack
    data = msgpack.packb(value)
    assert decode([msgpack.packb(msgpack.ExtType(1, data))]) == HandleRef(value)
    with pytest.raises(ProtocolError):  # one byte short
        decode([msgpack.packb(msgpack.ExtType(1, data[:-1]))])


def test_unknown_objects_are_refused_not_pickled():
    class Thing:
        pass
    with pytest.raises(TypeError, match="cannot send"):
        encode(Thing())
    with pytest.raises(TypeError):
        encode(numpy.array([object()]))


@pytest.mark.parametrize("frames", [
    [], [b"\xc1"], [b"\x92\x01"], [b"\xd4\x63\x00"],  # reserved byte, truncated, unknown ext
])
def test_malformed_frames_raise_protocol_error(frames):
    with pytest.raises(ProtocolError):
        decode(frames)


def test_array_with_bad_frame_index_or_size():
    import msgpack
    from gpushare.protocol import Ext
    bad = msgpack.packb(msgpack.ExtType(Ext.HOST_ARRAY, msgpack.packb(["<f8", [10], 5])))
    with pytest.raises(ProtocolError):
        decode([bad])
    short = msgpack.packb(msgpack.ExtType(Ext.HOST_ARRAY, msgpack.packb(["<f8", [10], b"123"])))
    with pytest.raises(ProtocolError):
        decode([short])


def test_stream_decoding():
    import msgpack
    data = b"".join(msgpack.packb(i) for i in range(5))
    assert list(Decoder([b"", data]).iter_stream(1)) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("exc, cls", [
    (ValueError("v"), ValueError), (numpy.exceptions.AxisError(3, 1), numpy.exceptions.AxisError),
    (numpy.linalg.LinAlgError("s"), numpy.linalg.LinAlgError), (KeyError("k"), KeyError),
    (ZeroDivisionError("z"), ZeroDivisionError), (OSError("o"), OSError),
])
def test_error_table_roundtrip(exc, cls):
    rebuilt = errors.build_error(decode(encode(errors.error_info(exc))))
    assert type(rebuilt) is cls
    assert str(exc.args[0]) in str(rebuilt)


def test_a_cuda_errors_status_travels_with_it():
    exc = errors.CUDARuntimeError(700, "cudaErrorIllegalAddress: an illegal memory access "
                                       "was encountered")
    rebuilt = errors.build_error(decode(encode(errors.error_info(exc))))
    assert type(rebuilt) is errors.CUDARuntimeError and rebuilt.status == 700
    assert str(rebuilt) == str(exc)
    # (an error without a status, and a malformed one)
    assert errors.build_error(["cupy.cuda.runtime.CUDARuntimeError", "m", "x"]).status is None
    # a driver error's CUresult code too (cupy.cuda.driver.CUDADriverError.status)
    driver = errors.CUDADriverError(1, "CUDA_ERROR_INVALID_VALUE: invalid argument")
    rebuilt = errors.build_error(decode(encode(errors.error_info(driver))))
    assert type(rebuilt) is errors.CUDADriverError and rebuilt.status == 1
    assert str(rebuilt) == "CUDA_ERROR_INVALID_VALUE: invalid argument"
    assert rebuilt.args == ("CUDA_ERROR_INVALID_VALUE: invalid argument",)
    assert isinstance(errors.build_error(["ValueError", "m", "x", 1, 2]),
                      errors.RemoteProtocolError)
    assert isinstance(errors.build_error(["ValueError", "m", "x", "s"]),
                      errors.RemoteProtocolError)


def test_unlisted_errors_fall_back_to_the_nearest_listed_base():
    class Weird(IndexError):
        pass
    assert type(errors.build_error(errors.error_info(Weird("w")))) is IndexError
    assert type(errors.build_error(["no.such.Error", "m", "x"])) is RuntimeError
    assert isinstance(errors.build_error("garbage"), errors.RemoteProtocolError)


@pytest.mark.parametrize("value", [
    (), (3, 4), (-1,), (0, (1, 2)), (1.5, None, True, "C"), slice(None), slice(1, None, -2),
    (slice(1, 5), Ellipsis, None, 2), ((1 << 64) - 1, -(1 << 63)), (slice(None, (2, 3)),),
])
def test_plain_ext_is_what_the_encoder_makes(value):
    """``protocol.plain_ext`` (shapes, axes and index keys packed without an Encoder,
    the client's common calls) gives the very bytes ``Encoder`` gives."""
    import msgpack
    from gpushare.protocol import Encoder, plain_ext
    ext = plain_ext(value)
    assert ext is not None
    packer = msgpack.Packer(strict_types=True, use_bin_type=True)
    assert packer.pack([ext]) == Encoder().pack([value])
    assert decode([packer.pack(ext)]) == value  # and the server reads it back


@pytest.mark.parametrize("dt", ["f4", ">f8", "i1", "u8", "?", "c16", "e", "V4", "M8[ns]",
                                "U3", numpy.dtype("f4", metadata={"m": 1})])
def test_dtype_ext_is_what_the_encoder_makes(dt):
    """``protocol.dtype_ext`` (a dtype packed once, for creation calls and ``astype``)
    gives the very bytes ``Encoder`` gives, and the server reads the same dtype back."""
    import msgpack
    from gpushare.protocol import Encoder, dtype_ext
    dt = numpy.dtype(dt)
    ext = dtype_ext(dt)
    assert ext is not None and dtype_ext(dt) is ext  # (made once)
    packer = msgpack.Packer(strict_types=True, use_bin_type=True)
    assert packer.pack([ext]) == Encoder().pack([dt])
    assert decode([packer.pack(ext)]) == dt


def test_a_structured_dtype_nested_past_any_use_is_a_protocol_error():
    """A hostile peer's dtype nested thousands deep is refused, not a RecursionError
    escaping the decoder."""
    from gpushare.protocol import ProtocolError, dtype_from_wire
    wire: object = "<f8"
    for _ in range(5000):
        wire = {"names": ["a"], "formats": [wire], "offsets": [0], "itemsize": 8}
    with pytest.raises(ProtocolError, match="bad structured dtype"):
        dtype_from_wire(wire)


def test_dtype_ext_leaves_structured_and_subarray_dtypes_to_the_encoder():
    from gpushare.protocol import dtype_ext
    assert dtype_ext(numpy.dtype([("a", "f4"), ("b", "i2")])) is None
    assert dtype_ext(numpy.dtype(("f4", (2, 3)))) is None


@pytest.mark.parametrize("value", [
    [1, 2], (1, [2]), (1 << 64,), (numpy.int64(3),), (1, object()), slice(numpy.int64(1), 2),
    ("a", b"bytes"), (1j,),
])
def test_plain_ext_leaves_the_rest_to_the_encoder(value):
    from gpushare.protocol import plain_ext
    assert plain_ext(value) is None


def test_cupys_own_warning_classes_travel_by_name():
    """The server's real CuPy warns with ``cupy._util.PerformanceWarning`` (a
    RuntimeWarning): it travels as cupyx's PerformanceWarning, not as its base (the
    first GPU run saw a RuntimeWarning where CuPy gives a PerformanceWarning)."""
    from gpushare import errors
    perf = type("PerformanceWarning", (RuntimeWarning,), {"__module__": "cupy._util"})
    assert errors.warning_key(perf) == "cupyx.PerformanceWarning"
    assert errors.WARNING_CLASSES[errors.warning_key(perf)] is errors.PerformanceWarning
    other = type("PerformanceWarning", (RuntimeWarning,), {"__module__": "mylib"})
    assert errors.warning_key(other) == "RuntimeWarning"      # a stranger's: its base
