"""``cupy.random.Generator``'s kernels on the CPU backend: CuPy's own device code
(``cupy/random/cupy_distributions.cu``, vendored as
``csrc/include/cupy/random_distributions.cuh``) over the emulator's cuRAND
(``csrc/include/curand_kernel.h``), launched as CuPy's ``_launch_dist`` launches it:
one thread per generator state, 256 to a block, thread ``t`` drawing the outputs
``t, t + states, t + 2 * states...`` from state ``t``. So a seeded Generator draws the
numbers CuPy's draws on a GPU with as many multiprocessors as this backend reports
(``8 * 256`` states per multiprocessor; arrays up to that many elements do not depend
on it), and each distribution is CuPy's algorithm.

One module per cuRAND state type, compiled on first use (and cached on disk like
every emulated kernel)."""
from __future__ import annotations

import functools
import os
from typing import Any

import numpy

#: cuRAND's state types, their sizes (``sizeof``), and CuPy's generator ids
STATES = {
    "xorwow": ("curandState", 48),
    "mrg32k3a": ("curandStateMRG32k3a", 48),
    "philox4x3210": ("curandStatePhilox4_32_10_t", 64),
}

#: ``sizeof(rk_binomial_state)``: the work space ``Generator.binomial`` keeps per state
BINOMIAL_STATE_SIZE = 136

_THREADS = 256

#: CuPy's entry points (``cupy_distributions.cu``'s host functions): the functor, the
#: output's C type, the extra parameters (``array:T`` is CuPy's ``array_data<T>*``,
#: an ``_array_data`` of a broadcast device array; ``binomial`` is its work space)
ENTRIES = {
    "raw": ("raw_functor", "int32_t", ()),
    "random_uniform": ("random_uniform_functor", "double", ()),
    "random_uniform_float": ("random_uniform_float_functor", "float", ()),
    "interval_32": ("interval_32_functor", "uint32_t", ("uint32_t", "uint32_t")),
    "interval_64": ("interval_64_functor", "uint64_t", ("uint64_t", "uint64_t")),
    "beta": ("beta_functor", "double", ("array:double", "array:double")),
    "exponential": ("exponential_functor", "double", ()),
    "geometric": ("geometric_functor", "int64_t", ("array:double",)),
    "hypergeometric": ("hypergeometric_functor", "int64_t",
                       ("array:int64_t", "array:int64_t", "array:int64_t")),
    "logseries": ("logseries_functor", "int64_t", ("array:double",)),
    "poisson": ("poisson_functor", "int64_t", ("array:double",)),
    "standard_normal": ("standard_normal_functor", "double", ()),
    "standard_normal_float": ("standard_normal_float_functor", "float", ()),
    "standard_gamma": ("standard_gamma_functor", "double", ("array:double",)),
    # (CuPy passes n as int64 and reads it as int: its low half, as here)
    "binomial": ("binomial_functor", "int64_t", ("array:int", "array:double", "binomial")),
}

def multiprocessor_count() -> int:
    """The multiprocessors the CPU backend reports (``multiProcessorCount``)."""
    return os.cpu_count() or 1


_NUMPY_SCALAR = {"uint32_t": numpy.uint32, "uint64_t": numpy.uint64}


def _source(kind: str) -> str:
    lines = ["#include <cupy/random_distributions.cuh>",
             f"typedef curand_pseudo_state<{STATES[kind][0]}> S;",
             'extern "C" __global__ void gs_init(intptr_t state, unsigned long long seed, '
             "long long size) { init_curand<S>(state, seed, size); }"]
    for name, (functor, out_type, params) in ENTRIES.items():
        decl, call = [], []
        for i, p in enumerate(params):
            if p.startswith("array:"):
                decl.append(f"intptr_t a{i}")
                call.append(f"reinterpret_cast<array_data<{p[6:]}>*>(a{i})")
            elif p == "binomial":
                decl.append(f"intptr_t a{i}")
                call.append(f"reinterpret_cast<rk_binomial_state*>(a{i})")
            else:
                decl.append(f"{p} a{i}")
                call.append(f"a{i}")
        lines.append(
            f'extern "C" __global__ void gs_{name}(intptr_t state, long long state_size, '
            f"intptr_t out, long long size{''.join(', ' + d for d in decl)}) {{ "
            f"execute_dist<{functor}, S, {out_type}>(state, state_size, out, size"
            f"{''.join(', ' + c for c in call)}); }}")
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=None)
def _module(kind: str) -> Any:
    from gpushare_server import kernels
    return kernels.RawModule(code=_source(kind))


def state_bytes(kind: str, size: int) -> numpy.ndarray:
    """Zeroed memory for ``size`` states, rounded up to whole blocks: CuPy's kernels
    load (and store back) the state of every thread they launch, also past ``size``
    when it is not a multiple of 256 (on a GPU, past the allocation)."""
    padded = -(-max(size, 0) // _THREADS) * _THREADS
    return numpy.zeros(STATES[kind][1] * padded, numpy.int8)


def init_states(kind: str, state: numpy.ndarray, seed: int, size: int) -> None:
    """CuPy's ``init_curand_generator``: state ``i`` is ``curand_init(seed, i, 0)``."""
    if size <= 0:
        return
    _module(kind).get_function("gs_init")(
        (-(-size // _THREADS),), (_THREADS,),
        (numpy.intp(state.ctypes.data), numpy.uint64(seed), numpy.int64(size)))


def _array_data(a: numpy.ndarray) -> numpy.ndarray:
    """CuPy's ``_array_data``: ``(ptr, ndim) + shape + strides`` as int64."""
    return numpy.array((a.ctypes.data, a.ndim) + a.shape + a.strides, numpy.int64)


def launch(kind: str, state: numpy.ndarray, state_size: int, name: str,
           out: numpy.ndarray, args: tuple = ()) -> None:
    """CuPy's ``_launch``: ``name``'s kernel fills ``out`` (contiguous) from the
    states; array arguments go as ``_array_data`` of themselves, others by value."""
    if out.size == 0:
        return
    if not (out.flags.c_contiguous or out.flags.f_contiguous):  # (as CuPy checks)
        raise ValueError("Supplied output array is not contiguous, writable or aligned.")
    params = ENTRIES[name][2]
    keep = []
    values = []
    for p, a in zip(params, args):
        if p.startswith("array:"):
            data = _array_data(a)
            keep.append((a, data))
            values.append(numpy.intp(data.ctypes.data))
        elif p == "binomial":
            values.append(numpy.intp(a.ctypes.data))
        else:
            values.append(_NUMPY_SCALAR[p](a))
    _module(kind).get_function("gs_" + name)(
        (-(-state_size // _THREADS),), (_THREADS,),
        (numpy.intp(state.ctypes.data), numpy.int64(state_size),
         numpy.intp(out.ctypes.data), numpy.int64(out.size), *values))
    del keep
