"""Tiny benchmark of the CPU kernel emulator.

``run()`` returns a dict with
  * ``elementwise_speedup_vs_numpy``: time of NumPy ``x*y + 1`` over 10^7
    float32 divided by the ElementwiseKernel time (>1: emulator faster),
  * ``elementwise_s`` / ``numpy_s``: the two times in seconds,
  * ``barrier_ns_per_thread``: cost of one ``__syncthreads`` per emulated
    thread, from a block-reduction RawKernel run with and without barriers.
"""
from __future__ import annotations

import time

import numpy


def _best(fn, reps=5):
    best = float('inf')
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


_RED = r'''
extern "C" __global__ void red(const float* x, float* out, int rounds) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  float v = x[blockIdx.x * blockDim.x + t];
  for (int r = 0; r < rounds; ++r) {
    s[t] = v;
    BARRIER;
    v = s[(t + 1) & 255] * 0.5f + v * 0.5f;
    BARRIER;
  }
  out[blockIdx.x * blockDim.x + t] = v;
}
'''


def run(n=10 ** 7, blocks=64, rounds=32):
    from . import ElementwiseKernel, RawKernel
    x = numpy.random.rand(n).astype(numpy.float32)
    y = numpy.random.rand(n).astype(numpy.float32)
    k = ElementwiseKernel('T x, T y', 'T z', 'z = x * y + 1', 'gs_bench_ew')
    z = numpy.empty_like(x)
    k(x, y, z)
    t_k = _best(lambda: k(x, y, z))
    t_np = _best(lambda: numpy.add(numpy.multiply(x, y), 1, out=z))

    a = numpy.random.rand(blocks * 256).astype(numpy.float32)
    o = numpy.empty_like(a)
    with_b = RawKernel('#define BARRIER __syncthreads()\n' + _RED, 'red')
    without = RawKernel('#define BARRIER\n' + _RED, 'red')
    with_b((blocks,), (256,), (a, o, numpy.int32(rounds)))
    without((blocks,), (256,), (a, o, numpy.int32(rounds)))
    t_b = _best(lambda: with_b((blocks,), (256,), (a, o, numpy.int32(rounds))))
    t_0 = _best(lambda: without((blocks,), (256,),
                                (a, o, numpy.int32(rounds))))
    nbar = blocks * 256 * rounds * 2
    return {
        'elementwise_s': t_k,
        'numpy_s': t_np,
        'elementwise_speedup_vs_numpy': t_np / t_k,
        'barrier_ns_per_thread': max(t_b - t_0, 0.0) / nbar * 1e9,
    }


if __name__ == '__main__':
    print(run())
