"""``cupy.cuda.runtime``: device queries answered by the server."""
from __future__ import annotations

from typing import Any

from ... import client as _client
from ...errors import CUDARuntimeError  # noqa: F401

is_hip = False


def _call(name: str, *args: Any) -> Any:
    return _client.get_session().call("call", f"cupy.cuda.runtime.{name}", args)


def getDeviceCount() -> int:
    return int(_call("getDeviceCount"))


def getDevice() -> int:
    return 0


def setDevice(device: int) -> None:
    if int(device) != 0:
        raise CUDARuntimeError(101, "cudaErrorInvalidDevice: invalid device ordinal")


def getDeviceProperties(device: int) -> dict:
    return _call("getDeviceProperties", device)


def memGetInfo() -> tuple:
    return tuple(_call("memGetInfo"))


def runtimeGetVersion() -> int:
    return int(_call("runtimeGetVersion"))


def driverGetVersion() -> int:
    return int(_call("driverGetVersion"))


def deviceCanAccessPeer(device: int, peer_device: int) -> int:
    return 0


def deviceSynchronize() -> None:
    _client.get_session().call("synchronize", None)


def deviceGetAttribute(attrib: int, device: int) -> int:
    props = getDeviceProperties(device)
    return int(props.get("attributes", {}).get(str(attrib), 0))


def _load_constants() -> None:
    import json
    from importlib import resources
    text = resources.files("gpushare.cupy.cuda").joinpath("_runtime_constants.json").read_text()
    globals().update({k: v for k, v in json.loads(text).items() if k not in globals()})


_load_constants()


def check_status(status: int) -> None:
    """Raise ``CUDARuntimeError`` for a non-zero status (see cupy.cuda.runtime.check_status)."""
    if status != 0:
        raise CUDARuntimeError(status, f"CUDA runtime error {status}")


def profilerStart() -> None:
    """Profiling runs on the server's side, if at all: accepted, a no-op."""
    return None


def profilerStop() -> None:
    """See profilerStart."""
    return None


def _fill_unsupported() -> None:
    """The rest of CuPy's runtime API hands out raw device pointers, streams or
    handles that mean nothing on this machine: each raises NotImplementedError."""
    from ...namespace import module_names
    from .. import _unsupported
    why = "raw CUDA runtime calls act on the server's GPU, not reachable from here"
    for name, kind in module_names("cupy.cuda.runtime").items():
        if name in globals():
            continue
        if kind == "function":
            globals()[name] = _unsupported.function(f"cupy.cuda.runtime.{name}", why)
        elif kind == "class":
            globals()[name] = _unsupported.cls(f"cupy.cuda.runtime.{name}", why)


_fill_unsupported()
