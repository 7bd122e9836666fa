"""The worker's shared-memory ring for bulk copies with a client on the same host.

Opt-in and worker-owned: the *worker* creates the segment, a regular file in
``/dev/shm`` made with ``O_CREAT | O_EXCL | O_NOFOLLOW``, mode 0600, under a random
unguessable name; the client never names a path (only counts of slots, which the
worker bounds), so a client cannot make the server open anything it chooses.

The client proves it shares the host by attaching the segment by name and echoing
the random nonce the worker wrote at its start (``shm_confirm``); the worker then
unlinks the name at once: from then on the memory lives only as long as the two
mappings, and nothing is left behind even if both processes die. A segment whose
confirmation never comes is unlinked at the next ``shm_open``, at ``shm_close``, when
the worker exits (atexit), or, after a crash in that short window, by the next worker
of the same user that opens a segment (names carry the creating pid; ``sweep``).

Layout: a 4 KiB header (the 16-byte nonce first, then the hand-off counters and the
abort word described in ``gpushare/shm.py``), then ``slots`` slots of ``slot_bytes``
each. Slots change hands through those counters, not messages: the worker empties an
upload's slots as the client's count says they are full and fills a download's as
the client's count says they are free (``session.py``: ``_shm_message``,
``_fill_ring``), giving up after ``TIMEOUT`` seconds without progress (the abort
word tells the client). Offered only on x86-64, whose store order the counters rely
on (``gpushare.shm.TSO``).
"""
from __future__ import annotations

import atexit
import mmap
import os
import re
import secrets
from typing import Any

from gpushare.settings import env_float
from gpushare.shm import ABORT, LAYOUT_BYTES, TSO

SHM_DIR = "/dev/shm"
HEADER = 4096
NONCE_BYTES = 16
MIN_SLOTS, MAX_SLOTS = 2, 16
MIN_SLOT_BYTES, MAX_SLOT_BYTES = 1 << 20, 64 << 20
_NAME = re.compile(r"gpushare-(\d+)-[0-9a-f]{32}\Z")


def _timeout() -> float:
    return env_float("GPUSHARE_TIMEOUT", 30.0)


#: seconds a ring copy waits for a client that makes no progress before it gives up
#: (the server's ``GPUSHARE_TIMEOUT``, default 30)
TIMEOUT = _timeout()


def allowed(direct_bind: str | None) -> bool:
    """Whether this server offers shared memory to its clients.

    ``GPUSHARE_SHM=0`` on the server: never; ``GPUSHARE_SHM=1``: whenever a client asks
    (it must still prove it is on this host); unset: only when the client reaches this
    worker over ``ipc://`` (``direct_bind``, the worker's direct path, is an ipc socket:
    the client is local). Never on a machine other than x86-64 (``TSO``)."""
    value = os.environ.get("GPUSHARE_SHM", "").strip()
    if value == "0" or not TSO:
        return False
    if value == "1":
        return True
    if not os.path.isdir(SHM_DIR):
        return False
    return bool(direct_bind) and str(direct_bind).startswith("ipc://")


def sweep() -> None:
    """Unlink this user's gpushare segments whose creating worker is gone (a crash
    between ``shm_open`` and ``shm_confirm``)."""
    try:
        names = os.listdir(SHM_DIR)
    except OSError:
        return
    uid = os.geteuid()
    for name in names:
        match = _NAME.match(name)
        if match is None:
            continue
        pid = int(match.group(1))
        try:
            os.kill(pid, 0)
            continue  # alive (or not ours to signal): leave it
        except ProcessLookupError:
            pass
        except OSError:
            continue
        path = os.path.join(SHM_DIR, name)
        try:
            if os.lstat(path).st_uid == uid:
                os.unlink(path)
        except OSError:
            pass


class Segment:
    """One worker-created shared-memory ring."""

    def __init__(self, slots: int, slot_bytes: int) -> None:
        self.slots = slots
        self.slot_bytes = slot_bytes
        self.size = HEADER + slots * slot_bytes
        self.name = f"gpushare-{os.getpid()}-{secrets.token_hex(16)}"
        self.path = os.path.join(SHM_DIR, self.name)
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | \
            getattr(os, "O_CLOEXEC", 0)
        fd = os.open(self.path, flags, 0o600)
        self.linked = True
        try:
            os.ftruncate(fd, self.size)
            self.mm = mmap.mmap(fd, self.size, flags=mmap.MAP_SHARED |
                                getattr(mmap, "MAP_POPULATE", 0))
        except BaseException:
            self.unlink()
            raise
        finally:
            os.close(fd)
        self.nonce = secrets.token_bytes(NONCE_BYTES)
        self.mm[:NONCE_BYTES] = self.nonce
        self.confirmed = False
        import numpy
        self.words = numpy.frombuffer(self.mm, numpy.int64, count=LAYOUT_BYTES // 8)
        view = memoryview(self.mm)
        self._slots = [view[HEADER + i * slot_bytes:HEADER + (i + 1) * slot_bytes]
                       for i in range(slots)]
        atexit.register(self.unlink)

    def slot(self, index: int) -> memoryview:
        return self._slots[index]

    def unlink(self) -> None:
        if self.linked:
            self.linked = False
            try:
                os.unlink(self.path)
            except OSError:
                pass

    def close(self) -> None:
        self.unlink()
        atexit.unregister(self.unlink)
        if self._slots and not self.words[ABORT]:
            self.words[ABORT] = 2  # a client still mapping it must not wait on it
        self._slots = []
        self.words = None
        try:
            self.mm.close()
        except (BufferError, ValueError):  # a view is still alive: the GC unmaps it
            pass


def check_ring(slots: Any, slot_bytes: Any) -> None:
    """Raise unless a client's ring request is within bounds."""
    if type(slots) is not int or type(slot_bytes) is not int:
        raise TypeError("shm_open: slots and slot_bytes must be integers")
    if not (MIN_SLOTS <= slots <= MAX_SLOTS and MIN_SLOT_BYTES <= slot_bytes <= MAX_SLOT_BYTES):
        raise ValueError("shm_open: ring size out of bounds")


def open_segment(slots: int, slot_bytes: int) -> Segment:
    check_ring(slots, slot_bytes)
    sweep()
    return Segment(slots, slot_bytes)
