"""The client side of the same-host shared-memory path for bulk copies (opt-in).

When the client and its server share a machine, arrays of ``STREAM_MIN`` bytes and
more can travel through a small ring of slots in a shared-memory segment instead of
as 1 MiB chunk messages: one ``memcpy`` on each side, the two pipelined (the client
fills or empties slot k+1 while the worker copies slot k). Only small control
messages (one per slot) travel on the session's ordinary numbered message path.

Who decides (``GPUSHARE_SHM``): ``0`` never; ``1`` ask the server whatever the
address; unset: ask only over ``ipc://`` (the embedded local server, ``gpushare serve
--bind ipc://...``). The server must allow it too (``gpushare_server/shm.py``).

The *worker* creates the segment (0600, random name, in ``/dev/shm``) and tells us
its name; we open only a name of the worker's own pattern, refuse anything but a
regular file of our own user of the announced size, and echo the nonce the worker
wrote in it, which proves we are on the same host; the worker then unlinks it. Any
failure falls back, silently, to the streamed path.
"""
from __future__ import annotations

import mmap
import os
import re
import stat
from typing import Any

SHM_DIR = "/dev/shm"
_NAME = re.compile(r"gpushare-\d+-[0-9a-f]{32}\Z")
NONCE_BYTES = 16


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


#: the ring: this many slots of this many bytes (the worker bounds them: 2-16 slots,
#: 1-64 MiB each)
SLOTS = _env_int("GPUSHARE_SHM_SLOTS", 4)
SLOT_BYTES = _env_int("GPUSHARE_SHM_SLOT_KIB", 4096) << 10


def wanted(address: str) -> bool:
    """Whether this client asks its server for shared memory."""
    value = os.environ.get("GPUSHARE_SHM", "").strip()
    if value == "0":
        return False
    if value == "1":
        return True
    return address.startswith("ipc://")


class Ring:
    """Our mapping of the worker's segment."""

    def __init__(self, mm: mmap.mmap, header: int, slots: int, slot_bytes: int) -> None:
        import numpy
        self.mm = mm
        self.slots = slots
        self.slot_bytes = slot_bytes
        whole = numpy.frombuffer(mm, numpy.uint8)
        self.nonce = bytes(whole[:NONCE_BYTES])
        self.slot = [whole[header + i * slot_bytes:header + (i + 1) * slot_bytes]
                     for i in range(slots)]


def attach(info: Any) -> Ring | None:
    """Map the segment the worker described in its ``shm_open`` answer; None when we
    cannot (another host, another user, anything odd)."""
    if not isinstance(info, dict):
        return None
    name, size = info.get("name"), info.get("size")
    slots, slot_bytes, header = info.get("slots"), info.get("slot_bytes"), info.get("header")
    if not (isinstance(name, str) and _NAME.match(name) and
            all(type(v) is int and v > 0 for v in (size, slots, slot_bytes, header))):
        return None
    if header < NONCE_BYTES or size != header + slots * slot_bytes:
        return None
    flags = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(os.path.join(SHM_DIR, name), flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_size != size:
            return None
        mm = mmap.mmap(fd, size, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    return Ring(mm, header, slots, slot_bytes)
