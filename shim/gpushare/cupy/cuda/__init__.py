"""``cupy.cuda``: devices, streams and events of the server's GPU."""
from __future__ import annotations

import contextlib
import threading
from typing import Any

from ... import client as _client
from .. import _objects
from .._objects import RemoteObjectProxy
from . import compiler, cufft, driver, memory, pinned_memory, runtime  # noqa: F401
from .memory import (BaseMemory, CFunctionAllocator, ManagedMemory, Memory,  # noqa: F401
                     MemoryAsync, MemoryAsyncPool, MemoryPointer, MemoryPool,
                     OutOfMemoryError, PooledMemory, PythonFunctionAllocator, UnownedMemory,
                     alloc, get_allocator, malloc_async, malloc_managed, set_allocator,
                     using_allocator)
from .pinned_memory import (PinnedMemory, PinnedMemoryPointer, PinnedMemoryPool,  # noqa: F401
                            PooledPinnedMemory, alloc_pinned_memory, is_memory_pinned,
                            set_pinned_memory_allocator)


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
        devices = _info()["devices"]
        if not 0 <= self.id < len(devices):
            runtime.setDevice(self.id)  # CuPy's path to CUDA's error (invalid device)
        return str(devices[self.id].get("compute_capability", "0"))

    @property
    def mem_info(self) -> tuple:
        return tuple(runtime.memGetInfo())

    @property
    def pci_bus_id(self) -> str:
        return runtime.deviceGetPCIBusId(self.id)

    @property
    def attributes(self) -> dict:
        """The device's attributes by name (``cudaDevAttr`` trimmed), as CuPy's: each
        ``deviceGetAttribute``, those the device lacks (cudaErrorInvalidValue) left out,
        asked for in one round trip (``device_attributes``, the server's loop)."""
        names = [(name, value) for name, value in sorted(vars(runtime).items())
                 if name.startswith("cudaDevAttr")]
        values = _client.get_session().call(
            "device_attributes", None, ([int(v) for _, v in names],
                                        runtime._check_device(self.id)))
        return {name[len("cudaDevAttr"):]: int(v)
                for (name, _), v in zip(names, values) if v is not None}


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


class _SessionStream:
    """``Stream.null`` / ``Stream.ptds``: the device's default streams, one proxy of each
    per session."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __get__(self, obj: Any, cls: Any) -> "Stream":
        session = _client.get_session()
        key = f"_{self.kind}_stream"
        stream = session.__dict__.get(key)
        if stream is None:
            stream = cls(**{self.kind: True})
            session.__dict__[key] = stream
        return stream


class _StreamState(threading.local):
    """The calling thread's current stream and ``with`` stack (as CuPy's, per thread),
    for the session they were made in."""

    session: Any = None
    current: Any = None
    stack: list


_STREAMS = _StreamState()


def _stream_state() -> _StreamState:
    session = _client.get_session()
    state = _STREAMS
    if state.session is not session:
        state.session = session
        state.current = None
        state.stack = []
    return state


def _current_stream_ptr() -> int:
    """The current stream's ``ptr`` (0, the null stream's, when none was made current)."""
    state = _stream_state()
    return 0 if state.current is None else state.current.ptr


def _check_cuda_stream(obj: Any) -> int:
    """The stream pointer of an object of the CUDA stream protocol (CuPy's checks)."""
    method = getattr(obj, "__cuda_stream__", None)
    if method is None:
        raise TypeError(f"{type(obj).__name__} object does not implement the "
                        "__cuda_stream__ protocol")
    try:
        version, stream_ptr = method()
    except (TypeError, ValueError) as e:
        raise TypeError("__cuda_stream__() must return a 2-tuple of (version, stream_ptr)"
                        ) from e
    if not isinstance(version, int) or not isinstance(stream_ptr, int):
        raise TypeError(f"__cuda_stream__() must return (int, int), got "
                        f"({type(version).__name__}, {type(stream_ptr).__name__})")
    if version != 0:
        raise TypeError(f"__cuda_stream__() returned unsupported version {version}")
    return stream_ptr


@_objects.register("Stream")
class Stream(RemoteObjectProxy):
    """A stream on the server's device. The current stream is the calling thread's, as
    CuPy's (``use``, ``with``, ``get_current_stream``), and is made the server's when it
    changes; streams compare and hash by ``ptr``.

    See Also
    --------
    cupy.cuda.Stream
    """

    __slots__ = ("__dict__",)

    def __new__(cls, null: bool = False, non_blocking: bool = False, ptds: bool = False,
                priority: Any = None) -> "Stream":
        kwargs: dict = {"null": null, "non_blocking": non_blocking, "ptds": ptds}
        if priority is not None:
            kwargs["priority"] = priority
        # queued where nothing can fail: a default stream (CuPy's is its pointer), or a
        # new one, ``streamCreateWithPriority`` of an int (CUDA clamps it to its range)
        queued = null is True or ptds is True or null is False and ptds is False and \
            type(non_blocking) is bool and (
                priority is None or type(priority) is int and -2**31 <= priority < 2**31)
        stream = (_objects.create_queued if queued else _objects.create)(
            cls, "cupy.cuda.Stream", "Stream", **kwargs)
        if null or ptds:  # CuPy's default streams belong to no device (stream.pyx)
            stream._device_id = -1
        return stream

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    null = _SessionStream("null")
    ptds = _SessionStream("ptds")

    def __del__(self) -> None:
        if "_alias_of" not in self.__dict__:  # an alias shares its stream's handle
            RemoteObjectProxy.__del__(self)

    @classmethod
    def from_external(cls, obj: Any) -> "Stream":
        """A Stream for ``obj``, an object of the CUDA stream protocol, that keeps ``obj``
        alive (see cupy.cuda.Stream.from_external). The stream must be one of this
        gpushare session's: streams of other libraries cannot reach the server."""
        ptr = _check_cuda_stream(obj)
        target = None
        for proxy in list(_client.get_session().proxies.refs.values()):
            proxy = proxy()
            if isinstance(proxy, Stream) and "_alias_of" not in proxy.__dict__ and \
                    proxy.ptr == ptr:
                target = proxy
                break
        if target is None:
            raise NotImplementedError("gpushare: Stream.from_external takes the streams of "
                                      "this gpushare session only (streams of other "
                                      "libraries cannot reach the server)")
        alias = object.__new__(cls)
        alias._gs_id = target._gs_id
        alias._gs_session = target._gs_session
        alias._type_name = "Stream"
        alias._alias_of = target
        alias._ptr = ptr
        alias._device_id = -1
        alias._foreign_stream_ref = obj
        return alias

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Stream) and self.ptr == other.ptr

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self.ptr

    def __repr__(self) -> str:
        return f"<Stream {self.ptr} (device {self.device_id})>"

    def __cuda_stream__(self) -> tuple:
        """``(0, ptr)``: the CUDA stream protocol (the pointer is the server's)."""
        return (0, self.ptr)

    def _make_current(self, stream: "Stream") -> None:
        _stream_state().current = stream
        stream._call("use")

    def __enter__(self) -> "Stream":
        state = _stream_state()
        state.stack.append(self)
        self._make_current(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        state = _stream_state()
        if state.stack:
            state.stack.pop()
        self._make_current(state.stack[-1] if state.stack else Stream.null)

    def use(self) -> "Stream":
        """Make this the calling thread's current stream."""
        self._make_current(self)
        return self

    def synchronize(self) -> None:
        self._gs_session.call("method", "synchronize", (self,))

    @property
    def done(self) -> bool:
        return bool(self._gs_session.call("getattr", "done", (self,)))

    @property
    def ptr(self) -> int:
        ptr = self.__dict__.get("_ptr")
        if ptr is None:
            ptr = self._ptr = int(self._gs_session.call("getattr", "ptr", (self,)))
        return ptr

    @property
    def device_id(self) -> int:
        return self.__dict__.get("_device_id", 0)

    @property
    def priority(self) -> int:
        return int(self._gs_session.call("getattr", "priority", (self,)))

    @property
    def is_non_blocking(self) -> bool:
        return bool(self._gs_session.call("getattr", "is_non_blocking", (self,)))

    def record(self, event: Any = None) -> "Event":
        return self._gs_session.call("method", "record", (self, event))

    def wait_event(self, event: Any) -> None:
        self._call("wait_event", event)

    def add_callback(self, callback: Any, arg: Any) -> None:
        """Call ``callback(self, 0, arg)`` once the work queued so far is done: on this
        machine, after waiting for it (see cupy.cuda.Stream.add_callback)."""
        self.synchronize()
        callback(self, 0, arg)

    def launch_host_func(self, callback: Any, arg: Any) -> None:
        """Call ``callback(arg)`` once the work queued so far is done: on this machine,
        after waiting for it; in a capture, after each launch of the graph (see
        cupy.cuda.Stream.launch_host_func)."""
        funcs = self.__dict__.get("_host_funcs")
        if funcs is not None:  # capturing: the graph keeps it (see graph.py)
            funcs.append((callback, arg))
            return
        self.synchronize()
        callback(arg)

    def begin_capture(self, mode: Any = None) -> None:
        """Begin capturing this stream's work into a CUDA graph, on the server (see
        cupy.cuda.Stream.begin_capture)."""
        if self.ptr == 0 or self.ptr == 1:
            raise RuntimeError("cannot capture on the default (legacy) stream")
        s = self._gs_session
        s.call("method", "begin_capture", (self, mode))
        self._host_funcs = []
        # while a capture is under way every call waits for the server, so that what
        # CUDA or CuPy refuse in a capture is raised at its call, as CuPy raises it (a
        # capture is made once; its graph's launches are pipelined)
        captures = s.__dict__.get("_captures", 0)
        if not captures:
            s.__dict__["_sync_outside_capture"] = s.sync
        s.__dict__["_captures"] = captures + 1
        s.sync = True

    def end_capture(self) -> Any:
        """End the capture; the graph it made (see cupy.cuda.Stream.end_capture)."""
        s = self._gs_session
        funcs = self.__dict__.pop("_host_funcs", None)
        try:
            graph = s.call("method", "end_capture", (self,))
        finally:
            if funcs is not None:  # the capture this stream began is over, whatever came
                captures = s.__dict__["_captures"] = max(0, s.__dict__.get("_captures", 1) - 1)
                if not captures:
                    s.sync = bool(s.__dict__.pop("_sync_outside_capture", False))
        graph._host_funcs = funcs or []
        return graph

    def is_capturing(self) -> bool:
        """Whether the stream is capturing (see cupy.cuda.Stream.is_capturing)."""
        return bool(self._gs_session.call("method", "is_capturing", (self,)))


@_objects.register("Event")
class Event(RemoteObjectProxy):
    """An event on the server's device.

    See Also
    --------
    cupy.cuda.Event
    """

    __slots__ = ()
    _gs_data = frozenset({"ptr"})

    def __new__(cls, block: bool = False, disable_timing: bool = False,
                interprocess: bool = False) -> "Event":
        if interprocess and not disable_timing:  # (CuPy's check, stream.pyx)
            raise ValueError('Timing must be disabled for interprocess events')
        # (flags of bools: CuPy's ``eventCreateWithFlags`` cannot fail, so it is queued)
        create = _objects.create_queued if all(
            type(flag) is bool for flag in (block, disable_timing, interprocess)) \
            else _objects.create
        return create(cls, "cupy.cuda.Event", "Event", block=block,
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
    for event in (start_event, end_event):  # CuPy reads their ``ptr`` first (stream.pyx):
        if not isinstance(event, Event):     # another object's AttributeError
            getattr(event, "ptr")
    return float(_client.get_session().call("call", "cupy.cuda.get_elapsed_time",
                                            (start_event, end_event)))


def get_current_stream(device_id: Any = None) -> Any:
    """The calling thread's current stream (``Stream.null`` until one is made current).

    See Also
    --------
    cupy.cuda.get_current_stream
    """
    current = _stream_state().current
    return Stream.null if current is None else current


def is_available() -> bool:
    return True


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
    warnings.warn(
        "cupy.cuda.profile has been deprecated since CuPy v10 "
        "and will be removed in the future. Use cupyx.profiler.profile "
        "instead.", stacklevel=3)
    profiler.start()
    try:
        yield
    finally:
        profiler.stop()


def _profiler_noop(*args: Any, **kwargs: Any) -> None:
    """The CUDA profiler runs on the server's side, if at all: accepted, a no-op."""
    return None


profiler = __import__("gpushare._public", fromlist=["_"]).PublicModule(
    f"{__name__}.profiler", "cupy.cuda.profiler: start/stop are no-ops here.")
profiler.start = profiler.stop = profiler.initialize = _profiler_noop
__import__("sys").modules[f"{__name__}.profiler"] = profiler

from . import device  # noqa: E402,F401
from . import graph  # noqa: E402,F401
from .graph import Graph  # noqa: E402,F401

from . import curand  # noqa: E402,F401


# --- the rest of cupy.cuda's namespace ---------------------------------------------------
import contextlib  # noqa: E402,F401  (CuPy's cupy.cuda exposes these modules too)
import warnings  # noqa: E402,F401

from .. import _unsupported  # noqa: E402
from ... import errors as _errors  # noqa: E402

_WHY_MEM = "device memory is managed by the gpushare server"





def get_local_runtime_version() -> int:
    """The CUDA runtime version of the server's GPU (see cupy.cuda.get_local_runtime_version)."""
    return runtime.runtimeGetVersion()


def get_cuda_path() -> None:
    """None: no CUDA toolkit is used on this machine (see cupy.cuda.get_cuda_path)."""
    return None


get_nvcc_path = get_hipcc_path = get_rocm_path = get_cuda_path

get_cublas_handle = _unsupported.function("cupy.cuda.get_cublas_handle",
                                          "library handles live on the server")
MemoryHook = _unsupported.cls("cupy.cuda.MemoryHook", _WHY_MEM)
ExternalStream = _unsupported.cls("cupy.cuda.ExternalStream",
                                  "streams of other libraries cannot reach the server")
Function = _unsupported.cls("cupy.cuda.Function", "use cupy.RawKernel / cupy.RawModule")
Module = _unsupported.cls("cupy.cuda.Module", "use cupy.RawModule")


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
memory_hook = _unsupported.module(f"{__name__}.memory_hook", "cupy.cuda.memory_hook",
                                  {"MemoryHook": MemoryHook})
memory_hooks = _unsupported.module(f"{__name__}.memory_hooks", "cupy.cuda.memory_hooks",
                                   classes=("DebugPrintHook", "LineProfileHook"), why=_WHY_MEM)


def _nvrtc_version() -> tuple:
    """The server's NVRTC version, ``(major, minor)`` (the CPU backend's: the CUDA its
    kernel emulator compiles for).

    See Also
    --------
    cupy.cuda.nvrtc.getVersion
    """
    s = _client.get_session()
    version = s.__dict__.get("_nvrtc_version")
    if version is None:  # (a server's does not change)
        version = s.__dict__["_nvrtc_version"] = tuple(
            int(v) for v in s.call("call", "cupy.cuda.nvrtc.getVersion", ()))
    return version


def _nvrtc_archs() -> tuple:
    """The GPU architectures the server's NVRTC compiles for (``nvrtcGetSupportedArchs``).

    See Also
    --------
    cupy.cuda.nvrtc.getSupportedArchs
    """
    return tuple(int(v) for v in _client.get_session().call(
        "call", "cupy.cuda.nvrtc.getSupportedArchs", ()))


def _nvrtc_check_status(status: int) -> None:
    if status != 0:
        raise _errors.NVRTCError(status)


_nvrtc_version.__name__ = _nvrtc_version.__qualname__ = "getVersion"
_nvrtc_archs.__name__ = _nvrtc_archs.__qualname__ = "getSupportedArchs"
_nvrtc_check_status.__name__ = _nvrtc_check_status.__qualname__ = "check_status"
nvrtc = _unsupported.module(f"{__name__}.nvrtc", "cupy.cuda.nvrtc: kernels compile on the server",
                            {"NVRTCError": _errors.NVRTCError, "getVersion": _nvrtc_version,
                             "getSupportedArchs": _nvrtc_archs,
                             "check_status": _nvrtc_check_status},
                            functions=("compileProgram", "createProgram", "destroyProgram",
                                       "getPTX", "getCUBIN", "getLTOIR", "getProgramLog",
                                       "addNameExpression", "getLoweredName"),
                            why="kernels are compiled on the server")
nvtx = _unsupported.module(f"{__name__}.nvtx", "cupy.cuda.nvtx: markers are accepted, no-ops",
                           {"available": True,  # (accepted: the markers are no-ops)
                            **{n: _nvtx_noop for n in ("Mark", "MarkC", "RangePush",
                                                       "RangePushC", "RangePop")}})
stream = _unsupported.module(f"{__name__}.stream", "cupy.cuda.stream",
                             {"Stream": Stream, "Event": Event, "ExternalStream": ExternalStream,
                              "get_current_stream": get_current_stream,
                              "get_elapsed_time": get_elapsed_time})
from . import texture  # noqa: E402,F401
