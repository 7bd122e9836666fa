"""``cupy.cuda``: devices, streams and events of the server's GPU."""
from __future__ import annotations

import contextlib
import threading
from typing import Any

from ... import client as _client
from .. import _objects
from .._objects import RemoteObjectProxy
from . import compiler, cufft, driver, memory, pinned_memory, runtime  # noqa: F401
from .memory import MemoryPointer, MemoryPool, OutOfMemoryError  # noqa: F401
from .pinned_memory import (PinnedMemory, PinnedMemoryPointer, PinnedMemoryPool,  # noqa: F401
                            alloc_pinned_memory, set_pinned_memory_allocator)


class Device:
    """A device of the server (a gpushare session sees the server's devices; it
    computes on device 0). The current device is the calling thread's, as in CUDA.

    See Also
    --------
    cupy.cuda.Device
    """

    def __init__(self, device: Any = None) -> None:
        self.id = runtime.getDevice() if device is None else int(device)

    @classmethod
    def from_pci_bus_id(cls, pci_bus_id: str) -> "Device":
        """The device with the given PCI bus id.

        See Also
        --------
        cupy.cuda.Device.from_pci_bus_id
        """
        return cls(runtime.deviceGetByPCIBusId(pci_bus_id))

    def __int__(self) -> int:
        return self.id

    def __index__(self) -> int:
        return self.id

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __lt__(self, other: Any) -> Any:
        return self.id < other.id if isinstance(other, Device) else NotImplemented

    def __le__(self, other: Any) -> Any:
        return self.id <= other.id if isinstance(other, Device) else NotImplemented

    def __gt__(self, other: Any) -> Any:
        return self.id > other.id if isinstance(other, Device) else NotImplemented

    def __ge__(self, other: Any) -> Any:
        return self.id >= other.id if isinstance(other, Device) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.id)

    def use(self) -> "Device":
        """Make this device the thread's current one."""
        runtime.setDevice(self.id)
        return self

    def __enter__(self) -> "Device":
        _device_stack().append(runtime.getDevice())
        if self.id != runtime.getDevice():
            try:
                runtime.setDevice(self.id)
            except BaseException:
                _device_stack().pop()
                raise
        return self

    def __exit__(self, *exc: Any) -> None:
        runtime.setDevice(_device_stack().pop())

    def synchronize(self) -> None:
        """Wait for every queued call of this session (raises pending errors)."""
        from .._ndarray import declare_synchronize
        declare_synchronize()
        s = _client.get_session()
        s.call("synchronize", None)

    @property
    def compute_capability(self) -> str:
        return str(_info()["devices"][self.id].get("compute_capability", "0"))

    @property
    def mem_info(self) -> tuple:
        return tuple(runtime.memGetInfo())

    @property
    def pci_bus_id(self) -> str:
        return runtime.deviceGetPCIBusId(self.id)

    @property
    def attributes(self) -> dict:
        """The device's attributes by name (``cudaDevAttr`` trimmed), as CuPy's."""
        out = {}
        for name, value in sorted(vars(runtime).items()):
            if name.startswith("cudaDevAttr"):
                try:
                    out[name[len("cudaDevAttr"):]] = runtime.deviceGetAttribute(value, self.id)
                except runtime.CUDARuntimeError as e:
                    if e.status != 1:  # cudaErrorInvalidValue: an attribute it lacks
                        raise
        return out


def _device_stack() -> list:
    """The devices ``with Device(n):`` blocks of this thread will return to."""
    stack = getattr(_DEVICE_STACK, "stack", None)
    if stack is None:
        stack = _DEVICE_STACK.stack = []
    return stack


_DEVICE_STACK = threading.local()


def _info() -> dict:
    s = _client.get_session()
    info = getattr(s, "_device_info", None)
    if info is None:
        info = s.call("info", None)
        s._device_info = info
    return info


class _NullStream:
    """``Stream.null``: the device's default stream, one proxy per session."""

    def __get__(self, obj: Any, cls: Any) -> "Stream":
        session = _client.get_session()
        stream = session.__dict__.get("_null_stream")
        if stream is None:
            stream = cls(null=True)
            session.__dict__["_null_stream"] = stream
        return stream


@_objects.register("Stream")
class Stream(RemoteObjectProxy):
    """A stream on the server's device.

    See Also
    --------
    cupy.cuda.Stream
    """

    __slots__ = ()

    def __new__(cls, null: bool = False, non_blocking: bool = False, ptds: bool = False,
                priority: Any = None) -> "Stream":
        kwargs: dict = {"null": null, "non_blocking": non_blocking, "ptds": ptds}
        if priority is not None:
            kwargs["priority"] = priority
        return _objects.create(cls, "cupy.cuda.Stream", "Stream", **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    null = _NullStream()

    def __enter__(self) -> "Stream":
        self._call("__enter__")
        return self

    def __exit__(self, *exc: Any) -> None:
        self._call("__exit__", None, None, None)

    def use(self) -> "Stream":
        self._call("use")
        return self

    def synchronize(self) -> None:
        self._gs_session.call("method", "synchronize", (self,))

    @property
    def done(self) -> bool:
        return bool(self._gs_session.call("getattr", "done", (self,)))

    @property
    def ptr(self) -> int:
        return int(self._gs_session.call("getattr", "ptr", (self,)))

    def record(self, event: Any = None) -> "Event":
        return self._gs_session.call("method", "record", (self, event))

    def wait_event(self, event: Any) -> None:
        self._call("wait_event", event)


@_objects.register("Event")
class Event(RemoteObjectProxy):
    """An event on the server's device.

    See Also
    --------
    cupy.cuda.Event
    """

    __slots__ = ()

    def __new__(cls, block: bool = False, disable_timing: bool = False,
                interprocess: bool = False) -> "Event":
        return _objects.create(cls, "cupy.cuda.Event", "Event", block=block,
                               disable_timing=disable_timing, interprocess=interprocess)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def record(self, stream: Any = None) -> None:
        self._call("record", stream) if stream is not None else self._call("record")

    def synchronize(self) -> None:
        self._gs_session.call("method", "synchronize", (self,))

    @property
    def done(self) -> bool:
        return bool(self._gs_session.call("getattr", "done", (self,)))


def get_elapsed_time(start_event: Event, end_event: Event) -> float:
    """Milliseconds between two recorded events (see cupy.cuda.get_elapsed_time)."""
    return float(_client.get_session().call("call", "cupy.cuda.get_elapsed_time",
                                            (start_event, end_event)))


def get_current_stream(device_id: Any = None) -> Any:
    """See Also: cupy.cuda.get_current_stream"""
    return _client.get_session().call("call", "cupy.cuda.get_current_stream", ())


def is_available() -> bool:
    return True


def using_allocator(allocator: Any = None) -> Any:
    """Allocators run on the server; accepted so programs run unchanged."""
    import contextlib
    return contextlib.nullcontext()


def set_allocator(allocator: Any = None) -> None:
    return None


def get_allocator() -> Any:
    return None


def get_device_id() -> int:
    return 0


@contextlib.contextmanager
def profile() -> Any:
    """Enable CUDA profiling in the ``with`` block (``profiler.start``/``stop``: the
    profiler runs on the server's side, if at all, so these are no-ops here).

    See Also
    --------
    cupy.cuda.profile
    """
    profiler.start()
    try:
        yield
    finally:
        profiler.stop()


def _profiler_noop(*args: Any, **kwargs: Any) -> None:
    """The CUDA profiler runs on the server's side, if at all: accepted, a no-op."""
    return None


profiler = __import__("types").ModuleType(f"{__name__}.profiler",
                                          "cupy.cuda.profiler: start/stop are no-ops here.")
profiler.start = profiler.stop = profiler.initialize = _profiler_noop
__import__("sys").modules[profiler.__name__] = profiler

from . import device  # noqa: E402,F401

from . import curand  # noqa: E402,F401


# --- the rest of cupy.cuda's namespace ---------------------------------------------------
import contextlib  # noqa: E402,F401  (CuPy's cupy.cuda exposes these modules too)
import warnings  # noqa: E402,F401

from .. import _unsupported  # noqa: E402

_WHY_MEM = "device memory is managed by the gpushare server"


def alloc(size: int) -> MemoryPointer:
    """Allocate ``size`` bytes of the server's device memory.

    See Also
    --------
    cupy.cuda.alloc
    """
    from .. import empty
    from .._ndarray import pointer_of
    import numpy
    return pointer_of(empty((int(size),), dtype=numpy.uint8))


malloc_managed = alloc  # where the memory lives is the server's business
malloc_async = alloc




def get_local_runtime_version() -> int:
    """The CUDA runtime version of the server's GPU (see cupy.cuda.get_local_runtime_version)."""
    return runtime.runtimeGetVersion()


def get_cuda_path() -> None:
    """None: no CUDA toolkit is used on this machine (see cupy.cuda.get_cuda_path)."""
    return None


get_nvcc_path = get_hipcc_path = get_rocm_path = get_cuda_path

get_cublas_handle = _unsupported.function("cupy.cuda.get_cublas_handle",
                                          "library handles live on the server")
for _name in ("BaseMemory", "Memory", "ManagedMemory", "MemoryAsync", "UnownedMemory",
              "MemoryAsyncPool", "CFunctionAllocator", "PythonFunctionAllocator",
              "MemoryHook"):
    globals()[_name] = _unsupported.cls(f"cupy.cuda.{_name}", _WHY_MEM)
ExternalStream = _unsupported.cls("cupy.cuda.ExternalStream",
                                  "streams of other libraries cannot reach the server")
Function = _unsupported.cls("cupy.cuda.Function", "use cupy.RawKernel / cupy.RawModule")
Module = _unsupported.cls("cupy.cuda.Module", "use cupy.RawModule")
Graph = _unsupported.cls("cupy.cuda.Graph", "CUDA graphs are not forwarded")


def _nvtx_noop(*args: Any, **kwargs: Any) -> None:
    """Profiler markers: accepted, and nothing to mark on this machine."""
    return None


common = _unsupported.module(f"{__name__}.common", "CuPy's cupy.cuda.common (nothing public).")
cub = _unsupported.module(f"{__name__}.cub", "cupy.cuda.cub: CUB runs on the server.",
                          {"available": False})
thrust = _unsupported.module(f"{__name__}.thrust", "cupy.cuda.thrust: Thrust runs on the server.",
                             {"available": False})
function = _unsupported.module(f"{__name__}.function", "cupy.cuda.function",
                               {"Function": Function, "Module": Module})
graph = _unsupported.module(f"{__name__}.graph", "cupy.cuda.graph", {"Graph": Graph})
memory_hook = _unsupported.module(f"{__name__}.memory_hook", "cupy.cuda.memory_hook",
                                  {"MemoryHook": MemoryHook})  # noqa: F821
memory_hooks = _unsupported.module(f"{__name__}.memory_hooks", "cupy.cuda.memory_hooks",
                                   classes=("DebugPrintHook", "LineProfileHook"), why=_WHY_MEM)
nvrtc = _unsupported.module(f"{__name__}.nvrtc", "cupy.cuda.nvrtc: kernels compile on the server",
                            functions=("getVersion", "compileProgram", "createProgram",
                                       "destroyProgram", "getPTX", "getCUBIN", "getProgramLog"),
                            why="kernels are compiled on the server")
nvtx = _unsupported.module(f"{__name__}.nvtx", "cupy.cuda.nvtx: markers are accepted, no-ops",
                           {"available": True,  # (accepted: the markers are no-ops)
                            **{n: _nvtx_noop for n in ("Mark", "MarkC", "RangePush",
                                                       "RangePushC", "RangePop")}})
stream = _unsupported.module(f"{__name__}.stream", "cupy.cuda.stream",
                             {"Stream": Stream, "Event": Event, "ExternalStream": ExternalStream,
                              "get_current_stream": get_current_stream,
                              "get_elapsed_time": get_elapsed_time})
texture = _unsupported.module(f"{__name__}.texture", "cupy.cuda.texture",
                              classes=("ChannelFormatDescriptor", "CUDAarray",
                                       "ResourceDescriptor", "TextureDescriptor",
                                       "TextureObject", "SurfaceObject"),
                              why="textures are not forwarded")
