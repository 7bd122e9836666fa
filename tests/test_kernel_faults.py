"""A kernel's fault (a failed device-side ``assert``, ``__trap()``, a bad pointer) is
CUDA's error, as CuPy raises it on a GPU at the next call that waits
(``cudaErrorAssert``, ``cudaErrorLaunchFailure``, ``cudaErrorIllegalAddress``), not a
lost connection. The CPU backend's emulator cannot go on after such a fault (nor can a
CUDA context): the worker exits with a status that names it (``csrc/gpushare_rt.cpp``,
``worker.KERNEL_FAULTS``), the broker tells the client, the client raises the CUDA
error once and ``SessionLostError`` for the session's arrays after it; new work gets a
new session. NVRTC's ``assert`` needs no header (there is no ``assert.h`` to include
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


def test_a_kernel_fault_surfaces_at_a_later_wait(cp):
    kernel = cp.RawKernel(r'''
extern "C" __global__ void check(const int* x) { assert(x[threadIdx.x] >= 0); }''',
                          "check")
    good, bad = cp.arange(8, dtype=cp.int32), cp.arange(-1, 7, dtype=cp.int32)
    kernel((1,), (8,), (good,))
    cp.cuda.Device().synchronize()  # (the first launch is fine)
    kernel((1,), (8,), (bad,))
    y = good * 2  # (pipelined work after the failed launch)
    # (CuPy raises the sticky error at the next CUDA call: on an H200 that was the
    # multiply's launch, through the driver API: ``CUDADriverError: CUDA_ERROR_ASSERT``;
    # the CPU backend's worker ends at the failing launch itself, and the client raises
    # the runtime's ``cudaErrorAssert``, as a copy or a synchronize would)
    with pytest.raises((cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError),
                       match="cudaErrorAssert|CUDA_ERROR_ASSERT: device-side assert "
                             "triggered") as info:
        y.get()
    assert ("CUDA_ERROR" in str(info.value)) == isinstance(info.value,
                                                           cp.cuda.driver.CUDADriverError)


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
