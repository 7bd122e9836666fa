"""``cupy.cuda.runtime``: device queries answered by the server."""
from __future__ import annotations

import threading
from typing import Any

from ... import client as _client
from ...errors import CUDARuntimeError  # noqa: F401

is_hip = False


def _call(name: str, *args: Any) -> Any:
    return _client.get_session().call("call", f"cupy.cuda.runtime.{name}", args)


def getDeviceCount() -> int:
    s = _client.get_session()
    count = s.__dict__.get("_device_count")
    if count is None:  # (a session's devices do not change)
        count = s.__dict__["_device_count"] = int(
            s.call("call", "cupy.cuda.runtime.getDeviceCount", ()))
    return count


#: the calling thread's current device (``cudaSetDevice`` is per thread)
_current = threading.local()


def _check_device(device: Any) -> int:
    device = int(device)
    if not 0 <= device < getDeviceCount():
        raise CUDARuntimeError(101, "cudaErrorInvalidDevice: invalid device ordinal")
    return device


def getDevice() -> int:
    return getattr(_current, "device", 0)


def setDevice(device: int) -> None:
    _current.device = _check_device(device)


def getDeviceProperties(device: int) -> dict:
    return _call("getDeviceProperties", _check_device(device))


def deviceGetPCIBusId(device: int) -> str:
    """The device's PCI bus id, ``domain:bus:device.function`` in hexadecimal."""
    props = getDeviceProperties(device)
    return (f"{props.get('pciDomainID', 0):04X}:{props.get('pciBusID', 0):02X}:"
            f"{props.get('pciDeviceID', 0):02X}.0")


def deviceGetByPCIBusId(pci_bus_id: str) -> int:
    """The device with the given PCI bus id (CUDA's errors for a malformed or unknown
    one)."""
    parts = str(pci_bus_id).replace(".", ":").split(":")
    try:
        wanted = tuple(int(p, 16) for p in parts)
    except ValueError:
        wanted = ()
    if len(wanted) not in (3, 4):
        raise CUDARuntimeError(1, "cudaErrorInvalidValue: invalid argument")
    for device in range(getDeviceCount()):
        have = tuple(int(p, 16) for p in deviceGetPCIBusId(device).replace(".", ":")
                     .split(":"))
        if have[:len(wanted)] == wanted or len(wanted) == 3 and have[1:] == wanted:
            return device
    raise CUDARuntimeError(101, "cudaErrorInvalidDevice: invalid device ordinal")


def memGetInfo() -> tuple:
    return tuple(_call("memGetInfo"))


def runtimeGetVersion() -> int:
    return int(_call("runtimeGetVersion"))


def _getLocalRuntimeVersion() -> int:
    """The CUDA runtime version (the server's: gpushare has no local runtime)."""
    return runtimeGetVersion()


def driverGetVersion() -> int:
    return int(_call("driverGetVersion"))


def deviceCanAccessPeer(device: int, peer_device: int) -> int:
    return 0


def deviceSynchronize() -> None:
    _client.get_session().call("synchronize", None)


def deviceGetAttribute(attrib: int, device: int) -> int:
    return int(_call("deviceGetAttribute", int(attrib), _check_device(device)))


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
