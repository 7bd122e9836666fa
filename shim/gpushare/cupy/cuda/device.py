"""``cupy.cuda.device``: the server's device."""
from __future__ import annotations

from . import Device, _info  # noqa: F401


def get_compute_capability() -> str:
    return str(_info()["devices"][0].get("compute_capability", "0"))


def get_device_id() -> int:
    return 0
