"""User kernels as a gpushare server hands them to clients (both backends).

A client names a kernel by a content hash of its constructor arguments. The first
time a session constructs a given kernel it sends the arguments with the hash;
later constructions send the hash alone and the worker rebuilds the kernel object
from its table (:func:`make_kernel`). Compiled code is cached by content
separately (the CPU emulator's module cache and on-disk ``.so`` cache, CuPy's
kernel cache on a GPU), so a kernel compiles once per server.

On the ``cupy`` backend the real CuPy kernel objects are wrapped (:class:`_Wrapped`
subclasses named like CuPy's classes, so the backend's allow-list by type name
applies) only to unwrap :class:`~gpushare.protocol.HostArray` arguments: numpy
values the client sent (structs by value as size-1 structured arrays).
"""
from __future__ import annotations

import threading
from typing import Any, Callable

from gpushare.protocol import HostArray

#: the kernel constructors a client may name
KINDS = ("ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule")

#: hash -> (kind, args, kwargs); per worker process, so per session
_SPECS: dict[str, tuple[str, tuple, dict]] = {}
_LOCK = threading.Lock()
_MAX_SPECS = 4096


def unwrap(value: Any) -> Any:
    """Replace :class:`HostArray` (numpy data from the client) by the numpy array,
    inside tuples and lists too (RawKernel's argument tuple)."""
    if isinstance(value, HostArray):
        return value.array
    if isinstance(value, tuple):
        return tuple(unwrap(v) for v in value)
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    return value


def make_kernel(factories: dict[str, Callable[..., Any]], kind: str, key: str,
                spec: Any = None) -> Any:
    """Construct kernel ``kind`` from ``spec`` (``[args, kwargs]``) or, when ``spec``
    is None, from the spec this session sent earlier under ``key``.

    See Also
    --------
    cupy.ElementwiseKernel, cupy.ReductionKernel, cupy.RawKernel, cupy.RawModule
    """
    if kind not in KINDS or kind not in factories:
        raise TypeError(f"gpushare: {kind!r} is not a kernel type")
    if not isinstance(key, str) or not key:
        raise TypeError("gpushare: bad kernel key")
    if spec is None:
        with _LOCK:
            stored = _SPECS.get(key)
        if stored is None or stored[0] != kind:
            raise LookupError(f"gpushare: kernel {key[:12]} is unknown to this session; "
                              "construct it again with its source")
        _, args, kwargs = stored
    else:
        try:
            args, kwargs = spec
        except (TypeError, ValueError):
            raise TypeError("gpushare: malformed kernel spec") from None
        if not isinstance(args, (list, tuple)) or not isinstance(kwargs, dict):
            raise TypeError("gpushare: malformed kernel spec")
        args = tuple(args)
    obj = factories[kind](*args, **kwargs)
    if spec is not None:  # only a spec that constructs is remembered
        with _LOCK:
            if len(_SPECS) >= _MAX_SPECS:
                _SPECS.pop(next(iter(_SPECS)))
            _SPECS[key] = (kind, args, dict(kwargs))
    return obj


# --- the CPU backend ------------------------------------------------------------------
def cpu_factories() -> dict[str, Callable[..., Any]]:
    from . import ElementwiseKernel, RawKernel, RawModule, ReductionKernel
    return {"ElementwiseKernel": ElementwiseKernel, "ReductionKernel": ReductionKernel,
            "RawKernel": RawKernel, "RawModule": RawModule}


def cpu_make_kernel(kind: str, key: str, spec: Any = None) -> Any:
    """:func:`make_kernel` with the CPU emulator's classes (they unwrap HostArray
    arguments themselves)."""
    return make_kernel(cpu_factories(), kind, key, spec)


# --- the cupy backend -------------------------------------------------------------------
class _Wrapped:
    """A real CuPy kernel object; calls unwrap HostArray arguments first."""

    __slots__ = ("_k",)

    def __init__(self, k: Any) -> None:
        object.__setattr__(self, "_k", k)

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_k"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_k"), name, value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._k(*unwrap(args), **{k: unwrap(v) for k, v in kwargs.items()})


class ElementwiseKernel(_Wrapped):
    __slots__ = ()


class ReductionKernel(_Wrapped):
    __slots__ = ()


class RawKernel(_Wrapped):
    __slots__ = ()


class RawModule(_Wrapped):
    __slots__ = ()

    def get_function(self, name: str) -> RawKernel:
        return RawKernel(self._k.get_function(name))

    def get_global(self, name: str) -> Any:
        """The variable's bytes as a uint8 device array (CuPy returns a MemoryPointer,
        which cannot travel; the client turns the array back into a pointer)."""
        import cupy
        p = self._k.get_global(name)
        return cupy.ndarray((p.mem.size,), cupy.uint8, p)


def cupy_make_kernel(kind: str, key: str, spec: Any = None) -> Any:
    """:func:`make_kernel` with CuPy's classes, wrapped (see :class:`_Wrapped`)."""
    import cupy
    wrappers = {"ElementwiseKernel": ElementwiseKernel, "ReductionKernel": ReductionKernel,
                "RawKernel": RawKernel, "RawModule": RawModule}
    factories = {k: (lambda cls, w: lambda *a, **kw: w(cls(*a, **kw)))(getattr(cupy, k), w)
                 for k, w in wrappers.items()}
    return make_kernel(factories, kind, key, spec)
