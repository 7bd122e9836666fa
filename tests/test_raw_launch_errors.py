"""User kernel calls through a real server: CuPy 14.2's errors at the call, also for
the calls the client pipelines, and the client's pipelined RawKernel launch.

* An ElementwiseKernel / ReductionKernel call whose signature ran before is pipelined;
  a scalar whose value does not fit its parameter's type (``CScalar.apply_dtype``:
  NumPy's item assignment; ``kernel_params.cast_scalar``) is refused by the client
  itself, at the call, with CuPy's error, and nothing is sent.
* A RawKernel's scalars are packed by their own types (``function.pyx`` ``_pointer``:
  ``CScalar(x)``, whatever the kernel's parameters): what can fail is decided by their
  types (and an int's range), so a launch of new such types waits; ``stream=`` of the
  wrong kind waits too, so its AttributeError is raised at the call.
* Argument errors of ``RawKernel.__call__`` / ``Function.__call__`` / ``RawModule``
  in Cython's words (``cython_args``, ``launch_rules``).
* A repeated RawKernel launch goes straight to the queue (``_launch_key``), its
  arguments packed as the session's encoder packs them (the same bytes).
"""
from __future__ import annotations

import numpy
import pytest

from _servers import BACKEND

pytestmark = pytest.mark.timeout(240)

_ADD = r'''
extern "C" __global__ void gs_rle_add(float* x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += a;
}
'''


def _at_call(exc_type, message, fn):
    """``fn()`` itself raises ``exc_type`` with exactly ``message`` (not the next call
    that waits); the session has no error pending afterwards."""
    from gpushare import client
    with pytest.raises(exc_type) as info:
        fn()
    assert type(info.value) is exc_type, type(info.value)
    assert str(info.value) == message
    client.get_session().synchronize()  # (nothing else failed meanwhile)


def _launches(seen):
    return [c for c in seen if c == ("method", "__call__")]


# --- ElementwiseKernel / ReductionKernel: a pipelined call's scalars ---------------------

def test_elementwise_pipelined_scalar_that_does_not_fit_is_refused_at_the_call(
        cp, synchronous_calls):
    k = cp.ElementwiseKernel('T x, int8 c, int32 n', 'T y', 'y = x + c + n',
                             'gs_rle_ew')
    x = cp.ones(4, dtype=cp.float32)
    y = cp.zeros(4, dtype=cp.float32)
    k(x, numpy.int64(1), 1.5, y)  # the signature's first call: waits
    assert y.get().tolist() == [3.0] * 4
    del synchronous_calls[:]
    k(x, numpy.int64(2), 2.5, y)  # pipelined, checked here
    assert _launches(synchronous_calls) == []
    cases = [
        (OverflowError, "Python integer 1000 out of bounds for int8",
         (x, numpy.int64(1000), 1.5, y)),
        (ValueError, "cannot convert float NaN to integer", (x, numpy.int64(1), numpy.nan, y)),
        (OverflowError, "cannot convert float infinity to integer",
         (x, numpy.int64(1), numpy.inf, y)),
        (OverflowError, "Python integer 3000000000 out of bounds for int32",
         (x, numpy.int64(1), 3e9, y)),
    ]
    for exc_type, message, args in cases:
        _at_call(exc_type, message, lambda: k(*args))
    assert _launches(synchronous_calls) == []
    assert y.get().tolist() == [5.0] * 4  # none of them ran
    k(x, numpy.int64(-3), 1.0, y)  # and the kernel still runs, pipelined
    assert y.get().tolist() == [-1.0] * 4
    assert _launches(synchronous_calls) == []


def test_elementwise_scalar_typed_by_an_array_is_checked(cp):
    """A ``T`` parameter's type comes from the arrays (in the signature): a NumPy int64
    scalar for an int16 ``T``."""
    k = cp.ElementwiseKernel('T x, T s', 'T y', 'y = x + s', 'gs_rle_ew_t')
    x = cp.arange(3, dtype=cp.int16)
    y = k(x, numpy.int64(7))
    assert y.get().tolist() == [7, 8, 9]
    y = k(x, numpy.int64(8))
    _at_call(OverflowError, "Python integer 40000 out of bounds for int16",
             lambda: k(x, numpy.int64(40000)))
    assert y.get().tolist() == [8, 9, 10]
    assert k(x, numpy.int64(-1)).get().tolist() == [-1, 0, 1]


def test_reduction_pipelined_scalar_that_does_not_fit_is_refused_at_the_call(
        cp, synchronous_calls):
    k = cp.ReductionKernel('T x, int8 w', 'T y', 'x * w', 'a + b', 'y = a', '0',
                           'gs_rle_red')
    x = cp.arange(4, dtype=cp.float32)
    assert float(k(x, numpy.int32(2))) == 12.0
    del synchronous_calls[:]
    out = cp.zeros((), dtype=cp.float32)
    k(x, numpy.int32(3), out=out)  # new signature (out=): waits
    assert float(out) == 18.0
    del synchronous_calls[:]
    k(x, numpy.int32(1), out=out)
    assert _launches(synchronous_calls) == []
    _at_call(OverflowError, "Python integer 300 out of bounds for int8",
             lambda: k(x, numpy.int32(300), out=out))
    _at_call(OverflowError, "Python integer -200 out of bounds for int8",
             lambda: k(x, numpy.int32(-200), out=out))
    assert float(out) == 6.0
    k(x, numpy.int32(2), out=out)
    assert float(out) == 12.0
    assert _launches(synchronous_calls) == []
    k(x, numpy.float32(1.5), out=out)  # a float32 for the int8: a new signature
    assert float(out) == 6.0  # (1.5 -> 1)
    del synchronous_calls[:]
    _at_call(ValueError, "cannot convert float NaN to integer",
             lambda: k(x, numpy.float32("nan"), out=out))
    assert _launches(synchronous_calls) == []
    assert float(out) == 6.0


# --- RawKernel: what a pipelined launch can get wrong ------------------------------------

def test_raw_kernel_scalars_packed_by_their_own_types(cp, synchronous_calls):
    """CuPy packs each scalar by its own type: an int as int64 (uint64 from 2**63 on,
    NumPy's OverflowError beyond), whatever the parameter; ints of any size in int64's
    range share a pipelined launch, the others wait for the server."""
    k = cp.RawKernel(_ADD, 'gs_rle_add')
    x = cp.zeros(8, dtype=cp.float32)
    k((1,), (8,), (x, 8, numpy.float32(1)))
    del synchronous_calls[:]
    k((1,), (8,), (x, 5, numpy.float32(1)))  # another int of int64's range: pipelined
    k((1,), (8,), (x, 2 ** 40, numpy.float32(1)))  # (the kernel reads its low 4 bytes: 0)
    assert _launches(synchronous_calls) == []
    assert x.get().tolist() == [2.0] * 5 + [1.0] * 3
    # (NumPy's ``PyArray_Pack`` words, as an H200 with NumPy 2.5.2 gave them)
    _at_call(OverflowError, "Python int too large to convert to C long",
             lambda: k((1,), (8,), (x, 2 ** 64, numpy.float32(1))))
    _at_call(TypeError, "Unsupported type <class 'str'>",
             lambda: k((1,), (8,), (x, "8", numpy.float32(1))))
    assert x.get().tolist() == [2.0] * 5 + [1.0] * 3
    k((1,), (8,), (x, 8, numpy.float32(1)))
    assert x.get().tolist() == [3.0] * 5 + [2.0] * 3


@pytest.mark.skipif(BACKEND != "cpu", reason="the CPU emulator's check (CUDA has none)")
def test_raw_kernel_argument_count_after_pipelined_launches(cp):
    k = cp.RawKernel(_ADD, 'gs_rle_add')
    x = cp.zeros(8, dtype=cp.float32)
    for _ in range(3):
        k((1,), (8,), (x, 8, numpy.float32(1)))
    from gpushare.errors import CUDADriverError
    _at_call(CUDADriverError, "CUDA_ERROR_INVALID_VALUE: invalid argument (kernel "
             "gs_rle_add takes 3 arguments, 2 given)", lambda: k((1,), (8,), (x, 8)))
    assert x.get().tolist() == [3.0] * 8
    k((1,), (8,), (x, 8, numpy.float32(1)))
    assert x.get().tolist() == [4.0] * 8


def test_raw_kernel_stream_of_the_wrong_kind_after_pipelined_launches(cp, synchronous_calls):
    k = cp.RawKernel(_ADD, 'gs_rle_add')
    x = cp.zeros(8, dtype=cp.float32)
    stream = cp.cuda.Stream()
    for _ in range(3):
        k((1,), (8,), (x, 8, numpy.float32(1)), stream=stream)
    del synchronous_calls[:]
    k((1,), (8,), (x, 8, numpy.float32(1)), stream=stream)
    k((1,), (8,), (x, 8, numpy.float32(1)), stream=None)
    assert _launches(synchronous_calls) == []
    _at_call(AttributeError, "'int' object has no attribute 'ptr'",
             lambda: k((1,), (8,), (x, 8, numpy.float32(1)), stream=5))
    assert x.get().tolist() == [5.0] * 8
    k((1,), (8,), (x, 8, numpy.float32(1)), stream=stream)
    stream.synchronize()
    assert x.get().tolist() == [6.0] * 8


def test_raw_kernel_grid_items_are_not_taken_for_equal_ints(cp, synchronous_calls):
    """``(4.0,)`` equals ``(4,)`` but CuPy refuses it (``grid[0]``'s ``__index__``)."""
    k = cp.RawKernel(_ADD, 'gs_rle_add')
    x = cp.zeros(8, dtype=cp.float32)
    for _ in range(3):
        k((2,), (4,), (x, 8, numpy.float32(1)))
    for grid, block in (((2.0,), (4,)), ((2,), (4.0,))):
        _at_call(TypeError, "'float' object cannot be interpreted as an integer",
                 lambda: k(grid, block, (x, 8, numpy.float32(1))))
    k((2, 1.0), (4, 1, True), (x, 8, numpy.float32(1)))  # (the others: __int__)
    assert x.get().tolist() == [4.0] * 8


def test_raw_kernel_shared_memory_limit_change_is_seen(cp):
    k = cp.RawKernel(_ADD, 'gs_rle_add')
    x = cp.zeros(8, dtype=cp.float32)
    from gpushare.errors import CUDADriverError
    k.max_dynamic_shared_size_bytes = 65536
    for _ in range(3):
        k((1,), (8,), (x, 8, numpy.float32(1)), shared_mem=60000)
    k.max_dynamic_shared_size_bytes = 49152
    _at_call(CUDADriverError, "CUDA_ERROR_INVALID_VALUE: invalid argument",
             lambda: k((1,), (8,), (x, 8, numpy.float32(1)), shared_mem=60000))
    assert x.get().tolist() == [3.0] * 8


# --- Cython's argument rules ------------------------------------------------------------

def test_raw_kernel_call_arguments_in_cythons_words(cp):
    k = cp.RawKernel(_ADD, 'gs_rle_add')
    x = cp.zeros(8, dtype=cp.float32)
    args = (x, 8, numpy.float32(1))
    for _ in range(2):  # before and after pipelined launches
        _at_call(TypeError, "__call__() takes exactly 3 positional arguments (2 given)",
                 lambda: k((1,), (8,)))
        _at_call(TypeError, "__call__() takes exactly 3 positional arguments (1 given)",
                 lambda: k((1,), args=args))
        _at_call(TypeError, "__call__() takes exactly 3 positional arguments (4 given)",
                 lambda: k((1,), (8,), args, 0))
        _at_call(TypeError, "__call__() got multiple values for keyword argument 'block'",
                 lambda: k((1,), (8,), args, block=(8,)))
        _at_call(TypeError, "__call__() got an unexpected keyword argument 'foo'",
                 lambda: k((1,), (8,), args, foo=1))
        _at_call(TypeError, "function() got multiple values for keyword argument "
                 "'enable_cooperative_groups'",
                 lambda: k((1,), (8,), args, enable_cooperative_groups=False))
        _at_call(TypeError, "Argument 'grid' has incorrect type (expected tuple, got "
                 "numpy.ndarray)", lambda: k(numpy.array([1]), (8,), args))
        _at_call(TypeError, "Argument 'block' has incorrect type (expected tuple, got "
                 "list)", lambda: k((1,), [8], args))
        _at_call(OverflowError, "can't convert negative value to size_t",
                 lambda: k([1], (8,), args, shared_mem=-1))  # (converted before the test)
        _at_call(IndexError, "tuple index out of range", lambda: k((), (8,), args))
        k((1,), (8,), args)
        k((1,), (8,), args)
    assert x.get().tolist() == [4.0] * 8


def test_raw_kernel_without_len_args_checks_the_rest_first(cp):
    k = cp.RawKernel(_ADD, 'gs_rle_add')
    _at_call(TypeError, "Argument 'grid' has incorrect type (expected tuple, got "
             "numpy.ndarray)", lambda: k(numpy.array([1]), (8,), 5))
    _at_call(AttributeError, "'int' object has no attribute 'ptr'",
             lambda: k((1,), (8,), 5, stream=3))
    _at_call(TypeError, "object of type 'int' has no len()", lambda: k((1,), (8,), 5))


def test_raw_module_arguments_in_cythons_words(cp):
    code = _ADD
    _at_call(TypeError, "__init__() takes exactly 0 positional arguments (1 given)",
             lambda: cp.RawModule(code))
    _at_call(TypeError, "__init__() got an unexpected keyword argument 'name'",
             lambda: cp.RawModule(code=code, name='gs_rle_add'))
    _at_call(TypeError, "Argument 'code' has incorrect type (expected str, got bytes)",
             lambda: cp.RawModule(code=code.encode()))
    _at_call(TypeError, "Argument 'options' has incorrect type (expected tuple, got list)",
             lambda: cp.RawModule(code=code, options=['-DX=1']))
    _at_call(TypeError, "Argument 'backend' has incorrect type (expected str, got int)",
             lambda: cp.RawModule(code=code, backend=1))
    _at_call(TypeError, "Exactly one of `code` and `path` keyword arguments must be given.",
             lambda: cp.RawModule())
    module = cp.RawModule(code=code)
    _at_call(TypeError, "get_function() takes exactly 1 positional argument (0 given)",
             lambda: module.get_function())
    _at_call(TypeError, "Argument 'name' has incorrect type (expected str, got bytes)",
             lambda: module.get_function(b'gs_rle_add'))
    _at_call(TypeError, "get_function() takes exactly 1 positional argument (0 given)",
             lambda: module.get_function(nam='gs_rle_add'))  # (the missing one first)
    _at_call(TypeError, "get_function() got an unexpected keyword argument 'nam'",
             lambda: module.get_function('gs_rle_add', nam=1))
    _at_call(TypeError, "compile() takes at most 1 positional argument (2 given)",
             lambda: module.compile(None, None))
    _at_call(TypeError, "get_global() takes exactly 1 positional argument (0 given)",
             lambda: module.get_global())
    # (Cython's ``str name`` lets None through, to the driver call's ``name.encode()``)
    _at_call(AttributeError, "'NoneType' object has no attribute 'encode'",
             lambda: module.get_function(None))
    k = module.get_function(name='gs_rle_add')
    _at_call(TypeError, "compile() got an unexpected keyword argument 'log'",
             lambda: k.compile(log=None))
    x = cp.zeros(4, dtype=cp.float32)
    k((1,), (4,), (x, 4, numpy.float32(2)))
    assert x.get().tolist() == [2.0] * 4


# --- the pipelined launch ---------------------------------------------------------------

def test_repeated_raw_launch_is_pipelined_and_packed_as_the_encoder_packs_it(
        cp, synchronous_calls):
    from gpushare import client
    from gpushare.cupy import _kernels
    k = cp.RawKernel(_ADD, 'gs_rle_add')
    x = cp.zeros(8, dtype=cp.float32)
    one, half = numpy.float32(1), numpy.float32(0.5)
    k((1,), (8,), [x, 8, one])
    k((2,), (4,), (x, 8, half), shared_mem=0)
    del synchronous_calls[:]
    for _ in range(5):
        k((1,), (8,), [x, 8, one])  # (a list: any sized sequence)
        k((2,), (4,), (x, 8, half), shared_mem=0)
    assert _launches(synchronous_calls) == []
    assert x.get().tolist() == [9.0] * 8
    s = client.get_session()
    for args in [(x, 8, 1.0), (x, -2 ** 63, True, None), (x, x, 2 ** 63 - 1, 0.25), (),
                 (x, numpy.float32(1.5), numpy.int8(-3), numpy.uint64(2 ** 64 - 1),
                  numpy.bool_(True), numpy.float16(2), numpy.complex64(1j))]:
        packed = _kernels._args_ext(args)
        assert packed is not None
        assert s._encode_call(7, "method", "__call__", (k, (1,), (8,), args), {}, None,
                              False) == \
            s._encode_call(7, "method", "__call__",
                           (k, _kernels.plain_ext((1,)), _kernels.plain_ext((8,)), packed),
                           {}, None, False)
    for args in [(x, 1j), (x, 1, 1j)]:  # (not packed there)
        assert _kernels._args_ext(args) is None


def test_a_modules_function_got_again_launches_without_waiting(cp, synchronous_calls):
    """``RawModule.get_function(name)`` twice: one CUDA function, so the second
    kernel's launches of a signature the first launched are queued at once (only the
    lookup waits); another name, or another signature, still waits once."""
    mod = cp.RawModule(code=_ADD)
    x = cp.zeros(8, dtype=cp.float32)
    mod.get_function("gs_rle_add")((1,), (8,), (x, 8, numpy.float32(1)))
    k = mod.get_function("gs_rle_add")
    del synchronous_calls[:]
    k((1,), (8,), (x, 8, numpy.float32(2)))
    k((2,), (4,), (x, 8, numpy.float32(0.5)))
    assert _launches(synchronous_calls) == []
    assert x.get().tolist() == [3.5] * 8
    del synchronous_calls[:]
    k((1,), (8,), (x, numpy.int64(8), numpy.float32(1)))  # (a new signature)
    assert len(_launches(synchronous_calls)) == 1
    with pytest.raises(Exception, match="CUDA_ERROR_NOT_FOUND: named symbol not found"):
        mod.get_function("gs_no_such_function")  # (still CuPy's error, at the lookup)
    with pytest.raises(Exception, match="CUDA_ERROR_NOT_FOUND: named symbol not found"):
        mod.get_function("gs_no_such_function")  # (a name not found is looked up again)


def test_a_function_found_before_is_got_without_waiting(cp, synchronous_calls):
    """A name ``get_function`` found in a module before cannot fail now (the module is
    compiled and has it): the lookup is queued, and the kernel it gives is a new
    object of the server's, which launches; another module's lookup still waits."""
    mod = cp.RawModule(code=_ADD)
    first = mod.get_function("gs_rle_add")
    del synchronous_calls[:]
    again = mod.get_function("gs_rle_add")
    assert synchronous_calls == []
    assert type(again) is type(first) and again is not first
    assert again._gs_id != first._gs_id and again.__dict__["_gs_name"] == "gs_rle_add"
    x = cp.zeros(8, dtype=cp.float32)
    first((1,), (8,), (x, 8, numpy.float32(1)))
    again((1,), (8,), (x, 8, numpy.float32(2)))
    assert x.get().tolist() == [3.0] * 8
    del synchronous_calls[:]
    cp.RawModule(code=_ADD).get_function("gs_rle_add")
    assert ("method", "get_function") in synchronous_calls


def test_streams_and_events_are_made_without_waiting(cp, synchronous_calls):
    """``Stream()``/``Event()`` of plain arguments cannot fail in CuPy (a stream of an int
    priority, which CUDA clamps; an event of bool flags): made queued, and usable at
    once; CuPy's own refusal still comes at the call."""
    cp.cuda.Device().synchronize()
    del synchronous_calls[:]
    stream = cp.cuda.Stream(non_blocking=True)
    low = cp.cuda.Stream(priority=-1)
    start, stop = cp.cuda.Event(), cp.cuda.Event(block=True)
    with stream:
        start.record()
        y = cp.arange(100, dtype=cp.float32) * 2
        stop.record()
    assert synchronous_calls == []
    stop.synchronize()
    assert cp.cuda.get_elapsed_time(start, stop) >= 0
    assert stream.is_non_blocking and stream.ptr not in (0, low.ptr) and low.priority == -1
    assert float(y.sum()) == 9900.0
    assert cp.cuda.Stream.null.ptr == 0
    with pytest.raises(ValueError, match="Timing must be disabled for interprocess events"):
        cp.cuda.Event(interprocess=True)


def test_client_scalar_check_raises_as_the_servers_cast():
    """``kernel_params.check_scalar`` (the client's) raises what ``cast_scalar`` (the
    server's) raises, and gives no warning where it gives none."""
    import warnings
    from gpushare.kernel_params import cast_scalar, check_scalar
    values = [0, -1, 127, 128, -129, 255, 256, 2 ** 31, -2 ** 31 - 1, 2 ** 63, 2 ** 64 - 1,
              0.0, -0.5, 1.5, 3e9, -3e9, 1e20, 1e300, numpy.nan, numpy.inf, -numpy.inf,
              True, 1j]
    values += [t(v) for t in (numpy.int8, numpy.int32, numpy.int64, numpy.uint8,
                              numpy.uint64) for v in (0, 1, 100)]
    values += [numpy.int64(v) for v in (-1, 300, -200, 2 ** 40, -2 ** 63)]
    values += [numpy.uint64(2 ** 64 - 1), numpy.uint64(2 ** 63)]
    values += [t(v) for t in (numpy.float16, numpy.float32, numpy.float64)
               for v in (0.5, -7.9, 1e4, numpy.nan, numpy.inf, -numpy.inf)]
    values += [numpy.float64(1e300), numpy.float32(3e9), numpy.bool_(True)]
    dtypes = [numpy.dtype(c) for c in ("i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8",
                                       "?", "f2", "f4", "f8", "c8", "c16", "V8")]
    for dtype in dtypes:
        for v in values:
            outcome = []
            for f in (cast_scalar, check_scalar):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        f(v, dtype)
                        outcome.append(None)
                    except Exception as e:
                        outcome.append((type(e), str(e)))
                outcome.append([str(w.message) for w in caught])
            assert outcome[0:2] == outcome[2:4], (v, dtype, outcome)
