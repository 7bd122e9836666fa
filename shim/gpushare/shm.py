"""The client side of the same-host shared-memory path for bulk copies (opt-in).

When the client and its server share a machine, arrays of ``STREAM_MIN`` bytes and
more travel through a small ring of slots in a shared-memory segment instead of as
1 MiB chunk messages: one ``memcpy`` on each side, the two pipelined (the producer
fills slot k+1 while the consumer empties slot k). The slots are handed over through
counters in the segment's header, not messages: the producer publishes how many
slots it has filled, the consumer how many it has emptied, and each waits on the
other's count (a short spin, then yields and short sleeps). One numbered message
announces an upload (``["up", ...]``, see ``Session._shm_upload``); a download is
announced by its reply (``"shm": True`` in the stream descriptor). Neither side waits
for ever once both are on a copy: each gives up after ``GPUSHARE_TIMEOUT`` seconds
without progress from the other and sets the abort word, which ends the other's wait;
the client's copy then fails with a clear error (the session is lost). A client
interrupted mid-copy sets the word too and goes on without the ring. (Until the worker
begins an upload, the client waits as any call waits: while the broker says the session
is alive, the worker is busy.)

Layout of the 4 KiB header (int64 words, each on its own 64-byte line; the counters
only grow, for the ring's whole life, and each has exactly one writer)::

    bytes 0-15   the nonce (the proof of locality, below)
    word  8      UP_PRODUCED    upload slots the client has filled
    word 16      UP_CONSUMED    upload slots the worker has emptied
    word 24      DOWN_PRODUCED  download slots the worker has filled
    word 32      DOWN_CONSUMED  download slots the client has emptied
    word 40      XFER           the id of the upload the worker is emptying
    word 48      ABORT          nonzero: the ring is dead (1 the client left it first,
                                2 the worker)

Transfer n's slot k (counted from the base its announce names) is ring slot
``(base + k) % slots`` and holds its bytes ``[k * slot_bytes, (k + 1) * slot_bytes)``.
This is only correct where stores become visible in program order (x86-64's TSO):
elsewhere neither side offers the ring (``TSO``) and copies stream as messages.

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
import platform
import re
import stat
import time
# (bound once: a program that mocks time's clocks leaves the transport alone)
from time import perf_counter as _perf_counter
from typing import Any, Callable

SHM_DIR = "/dev/shm"
_NAME = re.compile(r"gpushare-\d+-[0-9a-f]{32}\Z")
NONCE_BYTES = 16

#: the header's int64 words (see above)
UP_PRODUCED, UP_CONSUMED, DOWN_PRODUCED, DOWN_CONSUMED, XFER, ABORT = 8, 16, 24, 32, 40, 48
#: the header bytes the words above need
LAYOUT_BYTES = 512
#: whether this machine orders stores as the counter protocol needs (x86-64)
TSO = platform.machine().lower() in ("x86_64", "amd64")
#: a wait spins this long (s), then yields the CPU until YIELD_S, then sleeps, calling its
#: ``idle`` between sleeps: sleeps of at most 100 us until it has lasted 5 ms (the peer
#: is late, not absent: do not oversleep its return), then 1 ms, then 10 ms after 0.1 s
SPIN_S, YIELD_S = 50e-6, 300e-6
SLEEPS = ((5e-3, 100e-6), (0.1, 1e-3), (float("inf"), 10e-3))


class Aborted(Exception):
    """The ring is dead: a side gave up on it."""


def wait(words: Any, index: int, target: int, idle: Callable[[float], None]) -> None:
    """Wait until the counter ``words[index]`` reaches ``target``. ``idle(waited)``
    (seconds since the wait began) is called between sleeps, once the wait has lasted
    YIELD_S; it may raise to give up. Raises ``Aborted`` once the abort word is set."""
    if words[index] >= target:
        return
    clock = _perf_counter
    start = clock()
    while clock() - start < SPIN_S:
        if words[index] >= target:
            return
    while clock() - start < YIELD_S:
        os.sched_yield()
        if words[index] >= target:
            return
    delay = 20e-6
    while words[index] < target:
        if words[ABORT]:
            raise Aborted("gpushare: the other side gave up on the shared-memory ring")
        waited = clock() - start
        idle(waited)
        time.sleep(delay)
        delay = min(delay * 2, next(most for until, most in SLEEPS if waited < until))


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


#: the ring: this many slots of this many bytes (the worker bounds them: 2-16 slots,
#: 1-64 MiB each)
SLOTS = _env_int("GPUSHARE_SHM_SLOTS", 4)
SLOT_BYTES = _env_int("GPUSHARE_SHM_SLOT_KIB", 1024) << 10


def wanted(address: str) -> bool:
    """Whether this client asks its server for shared memory."""
    value = os.environ.get("GPUSHARE_SHM", "").strip()
    if value == "0" or not TSO:
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
        self.words = numpy.frombuffer(mm, numpy.int64, count=LAYOUT_BYTES // 8)
        self.slot = [whole[header + i * slot_bytes:header + (i + 1) * slot_bytes]
                     for i in range(slots)]
        self.uploads = 0  # the last upload's id (XFER)


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
    if header < LAYOUT_BYTES or size != header + slots * slot_bytes:
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
