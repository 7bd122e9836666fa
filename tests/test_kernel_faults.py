"""A kernel's fault (a failed device-side ``assert``, ``__trap()``, a bad pointer) is
CUDA's error, as CuPy raises it on a GPU at the next call that waits
(``cudaErrorAssert``, ``cudaErrorLaunchFailure``, ``cudaErrorIllegalAddress``), not a
lost connection. The CPU backend's emulator cannot go on after such a fault (nor can a
CUDA context): the worker exits with a status that names it (``csrc/gpushare_rt.cpp``,
``worker.KERNEL_FAULTS``), the broker tells the client, the client raises the CUDA
error once and ``SessionLostError`` for the session's arrays after it; new work gets a
new session."""
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
#include <assert.h>
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
#include <assert.h>
extern "C" __global__ void check(const int* x) { assert(x[threadIdx.x] >= 0); }''',
                          "check")
    good, bad = cp.arange(8, dtype=cp.int32), cp.arange(-1, 7, dtype=cp.int32)
    kernel((1,), (8,), (good,))
    cp.cuda.Device().synchronize()  # (the first launch is fine)
    kernel((1,), (8,), (bad,))
    y = good * 2  # (pipelined work after the failed launch)
    with pytest.raises(cp.cuda.runtime.CUDARuntimeError, match="cudaErrorAssert"):
        y.get()


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
