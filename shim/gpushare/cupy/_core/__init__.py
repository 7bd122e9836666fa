"""The few private ``cupy._core`` entry points that real programs (and CuPy's tests)
use: ``create_reduction_func``/``create_ufunc``-style helpers and accelerator
settings. The heavy lifting happens on the server through ``cupy.ReductionKernel``."""
from __future__ import annotations

from typing import Any

import numpy

_routine_accelerators: list = []
_reduction_accelerators: list = []
_compute_type = {"value": "default"}


def get_routine_accelerators() -> list:
    return list(_routine_accelerators)


def set_routine_accelerators(accelerators: Any) -> None:
    _routine_accelerators[:] = list(accelerators)


def get_reduction_accelerators() -> list:
    return list(_reduction_accelerators)


def set_reduction_accelerators(accelerators: Any) -> None:
    _reduction_accelerators[:] = list(accelerators)


def get_compute_type(dtype: Any) -> str:
    return _compute_type["value"]


def set_compute_type(compute_type: Any) -> None:
    _compute_type["value"] = compute_type


def get_size(size: Any) -> tuple:
    if size is None:
        return ()
    if isinstance(size, (int, numpy.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


def elementwise_copy(src: Any, dst: Any) -> Any:
    dst[...] = src
    return dst


class _ReductionFunc:
    """What ``create_reduction_func`` returns: a reduction with typed loops."""

    def __init__(self, name: str, ops: Any, routine: Any, identity: Any,
                 preamble: str = "") -> None:
        self.name = name
        self._ops = [op.split("->") for op in ops]
        self._routine = routine
        self._identity = identity
        self._preamble = preamble
        self._kernels: dict = {}

    def _kernel(self, dtype: numpy.dtype) -> Any:
        for ins, outs in self._ops:
            in_t = numpy.dtype(ins)
            if numpy.can_cast(dtype, in_t, "safe"):
                key = (ins, outs)
                if key not in self._kernels:
                    from .. import ReductionKernel
                    map_expr, reduce_expr, post_map_expr, reduce_type = (
                        tuple(self._routine) + (None,) * 4)[:4]
                    out_t = numpy.dtype(outs)
                    self._kernels[key] = (ReductionKernel(
                        f"{in_t.name} in0", f"{out_t.name} out0", map_expr, reduce_expr,
                        post_map_expr, "" if self._identity is None else str(self._identity),
                        self.name, reduce_type=reduce_type or None,
                        preamble=self._preamble), in_t)
                return self._kernels[key]
        raise TypeError(f"Type is mismatched. {self.name}(...), {dtype}")

    def __call__(self, a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
                 keepdims: bool = False) -> Any:
        from .. import asarray, ndarray
        if not isinstance(a, ndarray):
            cupy_get = getattr(a, "__cupy_get_ndarray__", None)
            a = cupy_get() if cupy_get is not None else asarray(a)
        kernel, in_t = self._kernel(numpy.dtype(dtype) if dtype is not None else a.dtype)
        if a.dtype != in_t:
            a = a.astype(in_t)
        return kernel(a, axis=axis, out=out, keepdims=keepdims)


def create_reduction_func(name: str, ops: Any, routine: Any = None, identity: Any = None,
                          preamble: str = "", sort_reduce_axis: bool = True) -> _ReductionFunc:
    return _ReductionFunc(name, ops, routine, identity, preamble)
