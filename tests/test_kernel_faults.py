"""A kernel's fault (a failed device-side ``assert``, ``__trap()``, a bad pointer) is
CUDA's error, as CuPy raises it on a GPU at the next call that waits
(``cudaErrorAssert``, ``cudaErrorLaunchFailure``, ``cudaErrorIllegalAddress``), not a
lost connection. The CPU backend's emulator cannot go on after such a fault (nor can a
CUDA context): the worker exits with a status that names it (``csrc/gpushare_rt.cpp``,
``worker.KERNEL_FAULTS``), the broker tells the client, the client raises the CUDA
error once and ``SessionLostError`` for the session's arrays after it; new work gets a
new session. Which error is CuPy's on a GPU: the next CUDA call's. A launch after the
fault (a ufunc, a routine, a kernel: ``cuLaunchKernel``) raises the driver's
``CUDADriverError: CUDA_ERROR_ASSERT: ...``; a copy or a synchronize the runtime's
``CUDARuntimeError: cudaErrorAssert: ...``; a view or an attribute nothing. The worker
asks before each launch what the batch's next such call is (``cpu_kernels``:
``next_call_launches``); with none, the client's wait (a copy or a synchronize) raises
the runtime's. The idle flush is off in the tests that depend on what one batch holds
(``GPUSHARE_IDLE_FLUSH_MS=0``). NVRTC's ``assert`` needs no header (there is no ``assert.h`` to include
on a GPU: "catastrophic error: cannot open source file "assert.h"")."""
from __future__ import annotations

import pytest

from _servers import BACKEND

pytestmark = pytest.mark.timeout(240)

FAULTS = {
    "assert": ("assert(x[0] == 1.0f);", 710,
               "cudaErrorAssert: device-side assert triggered"),
    "trap": ("if (threadIdx.x == 1) __trap();", 719,
             "cudaErrorLaunchFailure: unspecified launch failure"),
    "null": ("if (threadIdx.x == 0) { float* p = nullptr; p[3] = 1.0f; }", 700,
             "cudaErrorIllegalAddress: an illegal memory access was encountered"),
}


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_a_kernel_fault_is_cudas_error_then_the_session_is_lost(cp, name):
    from gpushare.errors import SessionLostError
    body, status, words = FAULTS[name]
    kernel = cp.RawKernel(r'''
extern "C" __global__ void faulty(float* x) { x[threadIdx.x] = 2.0f; %s }''' % body,
                          "faulty")
    x = cp.zeros(4, dtype=cp.float32)
    kept = cp.arange(5)
    with pytest.raises(cp.cuda.runtime.CUDARuntimeError) as caught:
        # (on a GPU the launch returns and the error comes at the wait; gpushare's
        # first launch of a kernel waits for the server, so it may come there)
        kernel((1,), (4,), (x,))
        cp.cuda.Device().synchronize()
    assert str(caught.value) == words
    if BACKEND == "cpu":
        assert caught.value.status == status
    # the session is gone: its arrays with it
    with pytest.raises(SessionLostError, match="worker process (ended after a kernel's "
                       "fault|died)"):
        kept.get()
    # new work gets a new session
    assert float(cp.arange(4).sum()) == 6.0


def _faulty(cp, body="assert(x[threadIdx.x] >= 0);"):
    """A kernel that faults on ``bad`` (not on ``good``), launched once on ``good`` (the
    first launch of a kernel waits for the server; the next are pipelined)."""
    kernel = cp.RawKernel(r'''
extern "C" __global__ void check(const int* x) { %s }''' % body, "check")
    good, bad = cp.arange(8, dtype=cp.int32), cp.arange(-1, 7, dtype=cp.int32)
    kernel((1,), (8,), (good,))
    cp.cuda.Device().synchronize()  # (the first launch is fine)
    return kernel, good, bad


def _then_lost(cp, kept):
    """After the CUDA error: the session is gone, new work gets a new one."""
    from gpushare.errors import SessionLostError
    with pytest.raises(SessionLostError, match="worker process (ended after a kernel's "
                       "fault|died)"):
        kept.get()
    assert float(cp.arange(4).sum()) == 6.0


#: faults on a negative element, and the driver API's words for them
#: (``cuGetErrorName``: ``cuGetErrorString``)
DRIVER_FAULTS = {
    "assert": ("assert(x[threadIdx.x] >= 0);",
               "CUDA_ERROR_ASSERT: device-side assert triggered"),
    "trap": ("if (x[threadIdx.x] < 0) __trap();",
             "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"),
    "null": ("if (x[threadIdx.x] < 0) { int* p = nullptr; p[3] = 1; }",
             "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"),
}


def test_a_kernel_fault_surfaces_at_a_later_wait(cp, monkeypatch):
    monkeypatch.setenv("GPUSHARE_IDLE_FLUSH_MS", "0")  # (one batch: launch, multiply, get)
    kernel, good, bad = _faulty(cp)
    kernel((1,), (8,), (bad,))
    y = good * 2  # (pipelined work after the failed launch)
    # (CuPy raises the sticky error at the next CUDA call: on an H200 that was the
    # multiply's launch, through the driver API: ``CUDADriverError: CUDA_ERROR_ASSERT``;
    # on a GPU the launch may come before the fault is seen, and the get's copy raise
    # the runtime's ``cudaErrorAssert`` instead: the cupy backend may give either)
    expected = cp.cuda.driver.CUDADriverError if BACKEND == "cpu" else (
        cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError)
    with pytest.raises(expected, match="cudaErrorAssert|CUDA_ERROR_ASSERT: device-side "
                                       "assert triggered") as info:
        y.get()
    assert ("CUDA_ERROR" in str(info.value)) == isinstance(info.value,
                                                           cp.cuda.driver.CUDADriverError)
    if BACKEND == "cpu":
        assert str(info.value) == "CUDA_ERROR_ASSERT: device-side assert triggered"
        assert info.value.status == 710
        assert type(info.value).__module__ == "cupy_backends.cuda.api.driver"
    _then_lost(cp, good)


@pytest.mark.parametrize("name", sorted(DRIVER_FAULTS))
def test_a_launch_after_a_fault_raises_the_drivers_error(cp, monkeypatch, name):
    """The next call is a ufunc (a kernel launch): ``CUDADriverError``, in the driver
    API's words."""
    monkeypatch.setenv("GPUSHARE_IDLE_FLUSH_MS", "0")
    body, words = DRIVER_FAULTS[name]
    kernel, good, bad = _faulty(cp, body)
    kernel((1,), (8,), (bad,))
    y = cp.sin(good.astype(cp.float32))
    if BACKEND != "cpu":  # (a GPU's: either, by the fault's timing)
        with pytest.raises((cp.cuda.driver.CUDADriverError,
                            cp.cuda.runtime.CUDARuntimeError)):
            y.get()
        _then_lost(cp, good)
        return
    with pytest.raises(cp.cuda.driver.CUDADriverError) as info:
        y.get()
    assert str(info.value) == words
    assert info.value.status == FAULTS[name][1]
    _then_lost(cp, good)


@pytest.mark.parametrize("then", ["get", "synchronize", "stream", "shape_then_get",
                                  "view_then_get"])
def test_a_copy_or_synchronize_after_a_fault_raises_the_runtimes_error(cp, monkeypatch,
                                                                        then):
    """The next CUDA call is a copy or a synchronize (the runtime API): CuPy's
    ``CUDARuntimeError``; an attribute read or a view (no CUDA call) before it raises
    nothing."""
    monkeypatch.setenv("GPUSHARE_IDLE_FLUSH_MS", "0")
    kernel, good, bad = _faulty(cp)
    kernel((1,), (8,), (bad,))
    with pytest.raises(cp.cuda.runtime.CUDARuntimeError) as info:
        if then == "get":
            bad.get()
        elif then == "synchronize":
            cp.cuda.Device().synchronize()
        elif then == "stream":
            cp.cuda.get_current_stream().synchronize()
        elif then == "shape_then_get":
            assert bad.shape == (8,) and bad.dtype == cp.int32  # (no CUDA call)
            good.get()
        else:  # (a reshape of a contiguous array is a view: no CUDA call)
            view = good.reshape(2, 4)
            assert view.shape == (2, 4)
            view.get()
    assert str(info.value) == "cudaErrorAssert: device-side assert triggered"
    assert type(info.value).__module__ == "cupy_backends.cuda.api.runtime"
    if BACKEND == "cpu":
        assert info.value.status == 710
    _then_lost(cp, good)


def test_a_strided_get_after_a_fault_launches_first(cp, monkeypatch):
    """CuPy's ``get`` of an array that is not C-contiguous makes it contiguous first, a
    launch: the driver's error, as for a ufunc; a contiguous one copies at once."""
    monkeypatch.setenv("GPUSHARE_IDLE_FLUSH_MS", "0")
    kernel, good, bad = _faulty(cp)
    kernel((1,), (8,), (bad,))
    expected = cp.cuda.driver.CUDADriverError if BACKEND == "cpu" else (
        cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError)
    with pytest.raises(expected, match="CUDA_ERROR_ASSERT|cudaErrorAssert"):
        good[::2].get()
    _then_lost(cp, good)


def test_a_fault_in_a_batch_of_its_own_is_the_runtimes_error(cp):
    """Nothing after the launch in its batch: the client's next wait (a copy or a
    synchronize) raises it, as the runtime's, whatever it is."""
    kernel, good, bad = _faulty(cp)
    kernel((1,), (8,), (bad,))
    import time

    from gpushare import client
    client.get_session().flush()  # (the launch goes alone)
    time.sleep(0.5)
    with pytest.raises((cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError)
                       if BACKEND != "cpu" else cp.cuda.runtime.CUDARuntimeError,
                       match="device-side assert triggered"):
        float((good * 2).sum())
    _then_lost(cp, good)


def test_which_api_a_call_reaches_first():
    """``cpu_kernels.call_kind``: CuPy's first CUDA call for an executor's call."""
    from gpushare.protocol import HandleRef
    from gpushare_server.backends.cpu_kernels import DRIVER, RUNTIME, call_kind
    import numpy
    arr, strided, empty = numpy.zeros(8), numpy.zeros(8)[::2], numpy.zeros(0)
    objects = {1: arr, 2: strided, 3: empty}
    a, s, e = HandleRef(1), HandleRef(2), HandleRef(3)

    def kind(op, target, args, out=None):
        return call_kind([9, op, target, list(args), {}, out, False], objects)
    assert call_kind([9, 1, "cupy.add", 1, 2.0, 5], objects) == DRIVER  # (a record)
    assert kind("call", "cupy.sin", [a]) == DRIVER
    assert kind("method", "__call__", [HandleRef(7), (1,), (8,), ()]) == DRIVER
    assert kind("call", "cupy.sum", [a]) == DRIVER
    assert kind("setitem", None, [a, 0, 1.0]) == DRIVER
    assert kind("getitem", None, [a, arr]) == DRIVER  # (advanced: a kernel)
    assert kind("getitem", None, [a, (slice(None), Ellipsis)]) is None  # (a view)
    assert kind("method", "reshape", [a, (2, 4)]) is None
    assert kind("getattr", "shape", [a]) is None
    assert kind("download", None, [a]) == RUNTIME
    assert kind("download", None, [s]) == DRIVER  # (made contiguous first)
    assert kind("download", None, [e]) is None  # (nothing to copy)
    assert kind("synchronize", None, []) == RUNTIME
    assert kind("method", "synchronize", [HandleRef(7)]) == RUNTIME
    assert kind("method", "__float__", [a]) == RUNTIME
    assert kind("call", "cupy.zeros", [(3,)]) == RUNTIME  # (cudaMemsetAsync)
    assert kind("call", "cupy.empty", [(3,)]) is None
    assert kind("call", "cupy.asarray", [numpy.ones(2)]) == RUNTIME  # (a memcpy)
    assert kind("call", "cupy.asarray", [a]) is None
    assert kind("call", "cupy.array", [a]) == DRIVER
    assert kind("call", "cupy.cuda.runtime.memcpy", [0, 0, 8, 0]) == RUNTIME
    assert kind("call", "cupy.cuda.runtime.getDeviceCount", []) is None


def test_the_fast_reading_of_a_packed_call_agrees():
    """``cpu_kernels._first_kind`` reads a call's op and target off its bytes (asked
    before every launch): where it decides, as ``call_kind`` on the decoded call."""
    import numpy

    from gpushare.protocol import Decoder, Encoder, HandleRef
    from gpushare_server.backends.cpu_kernels import _first_kind, call_kind
    objects = {1: numpy.zeros(8)}
    calls = [
        ["call", "cupy.sin", [HandleRef(1)]], ["method", "__call__", [HandleRef(1)]],
        ["method", "reshape", [HandleRef(1), (2, 4)]], ["method", "get", [HandleRef(1)]],
        ["synchronize", None, []], ["getattr", "shape", [HandleRef(1)]],
        ["getattr", "done", [HandleRef(1)]], ["call", "cupy.zeros", [(3,)]],
        ["call", "cupy.cuda.runtime.memcpyAsync", [0, 0, 8, 0, 0]],
        ["call", "cupyx.scipy.special.elliprj_and_a_long_name_past_31", [HandleRef(1)]],
        ["download", None, [HandleRef(1)]], ["getitem", None, [HandleRef(1), 0]],
        ["call", "cupy.asarray", [HandleRef(1)]],
    ]
    decided = 0
    for seq in (5, 200, 70000, 2**33):
        for op, target, args in calls:
            call = [seq, op, target, args, {}, 7, False]
            enc = Encoder()
            data = enc.pack(call)
            decoded = Decoder([b"", data, *enc.frames]).stream(1)[0].unpack()
            fast = _first_kind(data, 0)
            if fast is not None:
                decided += 1
                assert fast == call_kind(decoded, objects), call
            else:
                assert op in ("download", "getitem", "setattr") or \
                    call_kind(decoded, objects) is None or target == "cupy.asarray", call
        record = Encoder().pack([seq, 3, "cupy.add", 1, 1, 9])
        assert _first_kind(record, 0) == "driver"
    assert decided == 4 * 8  # (all but the five its arguments or silence decide)


def test_a_stack_overflow_is_cudas_error(cp):
    """Recursion past the thread's stack (a fiber's, in a kernel with a barrier): the
    fault lands on the stack's guard page, where no handler could run without an
    alternate signal stack; it is CUDA's error like any other fault."""
    kernel = cp.RawKernel(r'''
__device__ int deep(int n, volatile int* sink) {
  volatile char pad[512];
  pad[0] = (char)n;
  sink[0] = pad[0];
  return n == 0 ? 0 : deep(n - 1, sink) + pad[0];
}
extern "C" __global__ void rec(int* out, int n) {
  __shared__ int s[32];
  s[threadIdx.x] = deep(n, out);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}''', "rec")
    out = cp.zeros(32, dtype=cp.int32)
    kernel((1,), (32,), (out, cp.int32(10)))
    assert out.tolist() == [55] * 32  # (shallow: fine)
    with pytest.raises(cp.cuda.runtime.CUDARuntimeError):
        kernel((1,), (32,), (out, cp.int32(1_000_000)))
        cp.cuda.Device().synchronize()
    assert float(cp.arange(4).sum()) == 6.0


def test_a_sticky_error_in_a_reply_is_raised_once_then_the_session_is_lost(tmp_path,
                                                                           monkeypatch):
    """The cupy backend's path (``cupy_backend.is_fatal``): a call's own reply carries
    the GPU's sticky error (``"fatal": true``), the worker ends after it and the broker
    says so too; the client raises CUDA's error once, then ``SessionLostError`` for the
    session's arrays (not the CUDA error again), and new work gets a new session. Here a
    CPU worker is told to take cudaErrorIllegalAddress as sticky (a size-one host array
    as a kernel's pointer: ``cpu_signal._kernel_param``)."""
    import os

    import numpy

    from _servers import ServerProcess
    from gpushare import client
    from gpushare.errors import CUDARuntimeError, SessionLostError
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "if 'gpushare_server.worker' in sys.orig_argv:\n"
        "    from gpushare_server.backends import cpu\n"
        "    cpu.CpuBackend.is_fatal = lambda self, exc: getattr(exc, 'status', None) == 700\n")
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)
    srv = ServerProcess(backend="cpu", env={"PYTHONPATH": path})
    try:
        monkeypatch.setenv("GPUSHARE_SERVER", srv.address)
        client.reset_session()
        import gpushare.cupy as cp
        from gpushare.cupyx.scipy import signal
        for _ in range(2):  # (and again in the new session)
            dx = cp.asarray(numpy.arange(50.0))
            with pytest.raises(CUDARuntimeError, match="cudaErrorIllegalAddress"):
                signal.lfilter(numpy.array([0.2, 0.3]), numpy.array([1.0, -0.5]), dx)
            with pytest.raises(SessionLostError, match="worker process ended after a "
                                                       "kernel's fault"):
                dx.get()
            assert float(cp.arange(4).sum()) == 6.0
    finally:
        client.reset_session()
        srv.stop()


def test_the_drivers_faults_are_the_runtimes_in_the_drivers_words():
    """``worker.DRIVER_FAULTS`` (a fault's exit status + ``GS_EXIT_AT_LAUNCH``): the same
    CUDA status as the runtime's entry, CUDA's same description, the driver's name."""
    from gpushare_server.worker import DRIVER_FAULTS, KERNEL_FAULTS
    assert sorted(DRIVER_FAULTS) == [90, 91, 92, 93]
    for code, (status, words) in DRIVER_FAULTS.items():
        runtime_status, runtime_words = KERNEL_FAULTS[code - 10]
        assert status == runtime_status
        assert words.split(": ", 1)[1] == runtime_words.split(": ", 1)[1]
        assert words.startswith("CUDA_ERROR_") and not runtime_words.startswith("CUDA")
