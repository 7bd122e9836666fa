"""The few private ``cupy._core`` entry points that real programs (and CuPy's tests)
use: ``create_reduction_func``/``create_ufunc``-style helpers and accelerator
settings. The heavy lifting happens on the server through ``cupy.ReductionKernel``."""
from __future__ import annotations

from typing import Any

import numpy

_routine_accelerators: list = []
_reduction_accelerators: list = []
_compute_type: dict = {}


def get_routine_accelerators() -> list:
    return list(_routine_accelerators)


def set_routine_accelerators(accelerators: Any) -> None:
    _routine_accelerators[:] = list(accelerators)


def get_reduction_accelerators() -> list:
    return list(_reduction_accelerators)


def set_reduction_accelerators(accelerators: Any) -> None:
    _reduction_accelerators[:] = list(accelerators)


def get_compute_type(dtype: Any) -> Any:
    return _compute_type.get(numpy.dtype(dtype).char, "default")


def set_compute_type(dtype: Any, compute_type: Any) -> None:
    _compute_type[numpy.dtype(dtype).char] = compute_type


def get_size(size: Any) -> tuple:
    if size is None:
        return ()
    if isinstance(size, (int, numpy.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


def elementwise_copy(src: Any, dst: Any) -> Any:
    dst[...] = src
    return dst


def _get_warpsize() -> int:
    """The warp size of CuPy's CUDA builds (private CuPy helpers its tests reach)."""
    return 32


def _full_mask() -> int:
    """A warp's every lane, as shuffle masks take it (``0xffffffff``)."""
    return 0xffffffff


#: CuPy's C++ type names (``cupy._core._scalar.get_typename``)
_CTYPES = {"?": "bool", "b": "signed char", "B": "unsigned char", "h": "short",
           "H": "unsigned short", "i": "int", "I": "unsigned int", "l": "long long",
           "L": "unsigned long long", "q": "long long", "Q": "unsigned long long",
           "e": "float16", "f": "float", "d": "double", "F": "thrust::complex<float>",
           "D": "thrust::complex<double>"}


def get_typename(dtype: Any) -> str:
    """The C++ type name CuPy's kernels use for ``dtype`` (``float``,
    ``thrust::complex<double>``...).

    See Also
    --------
    cupy._core._scalar.get_typename
    """
    if dtype is None:
        raise ValueError("dtype is None")
    name = _CTYPES.get(numpy.dtype(dtype).char)
    if name is None:
        raise TypeError(f"Type is mismatched: {dtype}")
    return name


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

    @property
    def _cached_codes(self) -> dict:
        """The generated sources of every kernel this reduction compiled (CuPy keeps
        one per type signature)."""
        codes: dict = {}
        for key, (kernel, _) in self._kernels.items():
            for code_key, code in kernel.cached_codes.items():
                codes[(key, code_key)] = code
        return codes

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
                    # CuPy's own reductions name their types type_in0_raw/type_out0_raw,
                    # and its CUB path (on by default on a GPU) uses those names
                    typedefs = (f"typedef {_CTYPES[in_t.char]} type_in0_raw;\n"
                                f"typedef {_CTYPES[out_t.char]} type_out0_raw;\n")
                    self._kernels[key] = (ReductionKernel(
                        f"{in_t.name} in0", f"{out_t.name} out0", map_expr, reduce_expr,
                        post_map_expr, "" if self._identity is None else str(self._identity),
                        self.name, reduce_type=reduce_type or None,
                        preamble=typedefs + self._preamble), in_t)
                return self._kernels[key]
        raise TypeError(f"Type is mismatched. {self.name}(...), {dtype}")

    def __call__(self, a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
                 keepdims: bool = False) -> Any:
        from .. import asarray, ndarray
        if not isinstance(a, ndarray) and hasattr(a, "__cuda_array_interface__"):
            a = asarray(a)
        if not isinstance(a, ndarray):
            cupy_get = getattr(a, "__cupy_get_ndarray__", None)
            if cupy_get is None:  # CuPy's typed argument: no host arrays, no lists
                from ...cython_args import NDARRAY_BASE, argument_type_error
                raise argument_type_error("a", NDARRAY_BASE, a)
            a = cupy_get()
        kernel, in_t = self._kernel(numpy.dtype(dtype) if dtype is not None else a.dtype)
        if a.dtype != in_t:
            a = a.astype(in_t)
        return kernel(a, axis=axis, out=out, keepdims=keepdims)


def create_reduction_func(name: str, ops: Any, routine: Any = None, identity: Any = None,
                          preamble: str = "", sort_reduce_axis: bool = True) -> _ReductionFunc:
    return _ReductionFunc(name, ops, routine, identity, preamble)


_SUBMODULES = ("fusion", "_fusion_kernel", "flags", "core", "_gufuncs")

#: what ``cupy._core`` shares with ``cupy`` (the same objects: ``cupy._core.ndarray is
#: cupy.ndarray``), from CuPy's ``cupy/_core/__init__.py``
_FROM_CUPY = frozenset((
    "ndarray", "array", "ascontiguousarray", "asfortranarray", "divmod", "ufunc",
    "ElementwiseKernel", "ReductionKernel", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_count", "invert", "left_shift", "right_shift", "dot", "matmul", "equal",
    "greater", "greater_equal", "less", "less_equal", "not_equal", "array_split",
    "broadcast", "broadcast_to", "moveaxis", "rollaxis", "size", "absolute", "add",
    "angle", "conjugate", "divide", "floor_divide", "multiply", "negative", "positive",
    "power", "remainder", "sqrt", "subtract", "true_divide", "nanmax", "nanmin",
    "min_scalar_type", "fromDlpack", "from_dlpack"))


def __getattr__(name: str) -> Any:
    # submodules load on first use, so ``cupy._core.fusion.Fusion`` works without an import
    if name in _SUBMODULES:
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    if name in _FROM_CUPY:
        import importlib
        return getattr(importlib.import_module(__name__.rpartition(".")[0]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
