"""``cupyx.jit``: not available through gpushare.

CuPy's JIT turns a Python function into CUDA C++ with its transpiler, which needs
the Python function object itself (its source, globals and closure). gpushare
never ships Python code to the server (only data and CUDA C++ source), so JIT
kernels cannot run remotely. Decorating works, so modules that define JIT kernels
still import; calling one raises :class:`NotImplementedError` naming the
alternative (``cupy.RawKernel`` / ``cupy.ElementwiseKernel`` with CUDA C++ source).

See Also
--------
cupyx.jit.rawkernel
"""
from __future__ import annotations

import functools
from typing import Any

_MESSAGE = ("gpushare: cupyx.jit kernels cannot run through gpushare (the server runs "
            "CUDA C++ source, never Python functions); write {name!r} as a "
            "cupy.RawKernel or cupy.ElementwiseKernel with CUDA C++ source instead")


class _JitKernel:
    """What ``cupyx.jit.rawkernel()`` returns here: a kernel that refuses to run."""

    def __init__(self, func: Any, mode: str = "cuda", device: bool = False) -> None:
        self._func = func
        self._mode = mode
        self._device = device
        functools.update_wrapper(self, func)

    def __call__(self, grid: Any = None, block: Any = None, args: Any = (), **kwargs: Any) -> Any:
        raise NotImplementedError(_MESSAGE.format(name=getattr(self._func, "__name__", "?")))

    def __getitem__(self, key: Any) -> "_JitKernel":  # kernel[grid, block](...)
        return self

    @property
    def cached_code(self) -> str:
        raise NotImplementedError(_MESSAGE.format(name=getattr(self._func, "__name__", "?")))

    cached_codes = cached_code


def rawkernel(*, mode: str = "cuda", device: bool = False) -> Any:
    """Decorator for JIT kernels (see module docstring: calls raise NotImplementedError).

    See Also
    --------
    cupyx.jit.rawkernel
    """
    def deco(func: Any) -> _JitKernel:
        return _JitKernel(func, mode, device)
    return deco


class _Dim3:
    """``threadIdx``, ``blockIdx``...: names JIT kernel bodies refer to."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        raise NotImplementedError(f"gpushare: cupyx.jit.{self._name} exists only inside "
                                  "JIT kernels, which gpushare cannot run")


threadIdx = _Dim3("threadIdx")
blockIdx = _Dim3("blockIdx")
blockDim = _Dim3("blockDim")
gridDim = _Dim3("gridDim")
warpsize = 32


def _device_only(name: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"gpushare: cupyx.jit.{name} exists only inside JIT "
                                  "kernels, which gpushare cannot run")
    fn.__name__ = name
    return fn


for _name in ("syncthreads", "syncwarp", "shared_memory", "atomic_add", "atomic_sub",
              "atomic_exch", "atomic_min", "atomic_max", "atomic_inc", "atomic_dec",
              "atomic_cas", "atomic_and", "atomic_or", "atomic_xor", "grid", "gridsize",
              "laneid", "range", "shfl_sync", "shfl_up_sync", "shfl_down_sync",
              "shfl_xor_sync", "local_memory"):
    globals()[_name] = _device_only(_name)
del _name
