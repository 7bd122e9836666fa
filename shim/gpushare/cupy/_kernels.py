"""User kernels (ElementwiseKernel, ReductionKernel, RawKernel, RawModule, fuse).

The kernel object lives on the server (which compiles it: NVRTC on a GPU, the C
kernel emulator on the CPU backend); calling it sends the arguments by handle.
"""
from __future__ import annotations

from typing import Any

from . import _objects
from ._objects import RemoteObjectProxy


class _Kernel(RemoteObjectProxy):
    __slots__ = ()
    _path = ""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return _objects.create(cls, cls._path, cls.__name__, *args, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._gs_session.call("method", "__call__", (self, *args), kwargs)


@_objects.register("ElementwiseKernel")
class ElementwiseKernel(_Kernel):
    """See Also: cupy.ElementwiseKernel"""
    __slots__ = ()
    _path = "cupy.ElementwiseKernel"


@_objects.register("ReductionKernel")
class ReductionKernel(_Kernel):
    """See Also: cupy.ReductionKernel"""
    __slots__ = ()
    _path = "cupy.ReductionKernel"


@_objects.register("RawKernel")
class RawKernel(_Kernel):
    """See Also: cupy.RawKernel"""
    __slots__ = ()
    _path = "cupy.RawKernel"

    def __call__(self, grid: Any, block: Any, args: Any, **kwargs: Any) -> Any:
        self._gs_session.submit("method", "__call__", (self, grid, block, tuple(args)), kwargs,
                                description="RawKernel launch")


@_objects.register("RawModule")
class RawModule(_Kernel):
    """See Also: cupy.RawModule"""
    __slots__ = ()
    _path = "cupy.RawModule"


def fuse(*args: Any, **kwargs: Any) -> Any:
    """``cupy.fuse``: runs the Python function with gpushare's arrays (each operation
    on the server), which gives the same results as a fused kernel.

    See Also
    --------
    cupy.fuse
    """
    def deco(fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def fused(*a: Any, **k: Any) -> Any:
            return fn(*a, **k)
        return fused
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return deco(args[0])
    return deco
