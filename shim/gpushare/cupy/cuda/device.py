"""``cupy.cuda.device``: the server's device."""
from __future__ import annotations

from . import Device, _info  # noqa: F401


def get_compute_capability() -> str:
    return str(_info()["devices"][0].get("compute_capability", "0"))


def get_device_id() -> int:
    from . import runtime
    return runtime.getDevice()


def from_pointer(ptr: int) -> Device:
    """The device holding the memory at ``ptr`` (a gpushare device address).

    See Also
    --------
    cupy.cuda.device.from_pointer
    """
    from .._ndarray import _PTR_BASE
    from .runtime import CUDARuntimeError
    if int(ptr) < _PTR_BASE:
        raise CUDARuntimeError(1, "cudaErrorInvalidValue: invalid argument")
    return Device(0)
