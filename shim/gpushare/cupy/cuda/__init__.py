"""``cupy.cuda``: devices, streams and events of the server's GPU."""
from __future__ import annotations

from typing import Any

from ... import client as _client
from .. import _objects
from .._objects import RemoteObjectProxy
from . import compiler, cufft, driver, memory, pinned_memory, runtime  # noqa: F401
from .memory import MemoryPointer, MemoryPool, OutOfMemoryError  # noqa: F401
from .pinned_memory import PinnedMemoryPool  # noqa: F401


class Device:
    """A device of the server (gpushare sessions see device 0).

    See Also
    --------
    cupy.cuda.Device
    """

    def __init__(self, device: Any = None) -> None:
        self.id = 0 if device is None else int(device)

    def __int__(self) -> int:
        return self.id

    def __index__(self) -> int:
        return self.id

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def use(self) -> None:
        return None

    def __enter__(self) -> "Device":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def synchronize(self) -> None:
        """Wait for every queued call of this session (raises pending errors)."""
        s = _client.get_session()
        s.call("synchronize", None)

    @property
    def compute_capability(self) -> str:
        return str(_info()["devices"][self.id].get("compute_capability", "0"))

    @property
    def mem_info(self) -> tuple:
        return tuple(runtime.memGetInfo())

    @property
    def attributes(self) -> dict:
        return {}


def _info() -> dict:
    s = _client.get_session()
    info = getattr(s, "_device_info", None)
    if info is None:
        info = s.call("info", None)
        s._device_info = info
    return info


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


def profile() -> Any:
    import contextlib
    return contextlib.nullcontext()


class _Profiler:
    """``cupy.cuda.profiler``: start/stop are no-ops through gpushare."""

    @staticmethod
    def start() -> None:
        return None

    @staticmethod
    def stop() -> None:
        return None


profiler = _Profiler()

from . import device  # noqa: E402,F401

from . import curand  # noqa: E402,F401
