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


# --- raw memory: the addresses of gpushare arrays (``x.data.ptr``) and this process's
# own memory; each copy a copy into or out of a view of the server's memory
#: what ``malloc`` gave and ``free`` has not taken back: address -> its MemoryPointer
_MALLOCED: dict = {}
_malloc_lock = threading.Lock()


def malloc(size: int) -> int:
    """``cudaMalloc``: ``size`` bytes of the server's device memory, at an address
    gpushare's other calls resolve; held until ``free``."""
    from .memory import alloc
    mem = alloc(size)
    ptr = int(mem.ptr)
    if ptr:
        with _malloc_lock:
            _MALLOCED[ptr] = mem
    return ptr


def mallocManaged(size: int, flags: int = 1) -> int:
    """``cudaMallocManaged``: as ``malloc`` (the memory is the server's, either way)."""
    return malloc(size)


def mallocAsync(size: int, stream: Any) -> int:
    """``cudaMallocAsync``: as ``malloc`` (the session's calls run in order)."""
    return malloc(size)


def free(ptr: int) -> None:
    """``cudaFree`` of an address ``malloc`` gave (0 is allowed, as CUDA allows it)."""
    ptr = int(ptr)
    if not ptr:
        return
    with _malloc_lock:
        mem = _MALLOCED.pop(ptr, None)
    if mem is None:
        raise CUDARuntimeError(1, "cudaErrorInvalidValue: invalid argument")


def freeAsync(ptr: int, stream: Any) -> None:
    free(ptr)


def _device_pointer(ptr: int) -> Any:
    """The MemoryPointer of a gpushare array's address; None for any other address."""
    from .._ndarray import MemoryPointer, resolve_pointer
    try:
        root, _ = resolve_pointer(_client.get_session(), int(ptr))
    except ValueError:
        return None
    return MemoryPointer(int(ptr), root)


def memcpy(dst: int, src: int, size: int, kind: int) -> None:
    """``cudaMemcpy`` between gpushare arrays' device addresses and this process's
    memory (``kind``: ``memcpyHostToDevice``... or ``memcpyDefault``, which tells them
    apart by address)."""
    from .._ndarray import _size
    size, kind = _size(size), int(kind)
    if kind not in (0, 1, 2, 3, 4):
        raise CUDARuntimeError(21, "cudaErrorInvalidMemcpyDirection: invalid copy direction "
                                   "for memcpy")
    if not size:
        return
    to, of = _device_pointer(dst), _device_pointer(src)
    if kind != 4 and ((to is not None) != (kind in (1, 3)) or
                      (of is not None) != (kind in (2, 3))):
        raise CUDARuntimeError(1, "cudaErrorInvalidValue: invalid argument")
    if to is not None and of is not None:
        to.copy_from_device(of, size)
    elif to is not None:
        to.copy_from_host(int(src), size)
    elif of is not None:
        of.copy_to_host(int(dst), size)
    else:
        import ctypes
        ctypes.memmove(int(dst), int(src), size)


def memcpyAsync(dst: int, src: int, size: int, kind: int, stream: Any) -> None:
    """As ``memcpy``: the session's calls run in order on the server, and host bytes
    are read or written before this returns."""
    memcpy(dst, src, size, kind)


def memset(ptr: int, value: int, size: int) -> None:
    """``cudaMemset`` of a gpushare array's device memory."""
    mem = _device_pointer(ptr)
    if mem is None:
        raise CUDARuntimeError(1, "cudaErrorInvalidValue: invalid argument")
    mem.memset(value, size)


def memsetAsync(ptr: int, value: int, size: int, stream: Any) -> None:
    memset(ptr, value, size)


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
