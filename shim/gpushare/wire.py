"""ZeroMQ helpers shared by the client and the server (the only I/O outside their
socket loops)."""
from __future__ import annotations

import os
# (bound once: a program that mocks time's clocks leaves the transport alone)
from time import perf_counter as _perf_counter
from typing import Any

import zmq

#: yield the core to a thread that has work to do (``sched_yield``; not on every
#: platform): each turn of a polling loop calls it
give_way = getattr(os, "sched_yield", lambda: None)
# plain ints: pyzmq's option and flag constants are enums, and ``int & Flag`` builds
# enum members on every turn of a polling loop (a third of that loop's cost)
_EVENTS, _POLLIN = int(zmq.EVENTS), int(zmq.POLLIN)

#: frames at least this large are sent without copying
ZERO_COPY_MIN = 1 << 16

#: ZeroMQ mallocs each message it receives; glibc serves blocks this large and more
#: with mmap, and gives the heap's free top back to the kernel beyond the trim
#: threshold, so each 1 MiB chunk of a copy faulted its pages in afresh (a fifth to a
#: third of a copy's time on loopback). Blocks under MMAP_THRESHOLD come from the heap,
#: and up to TRIM_THRESHOLD of freed heap stays for the next chunks
#: (``keep_receive_buffers``; ``GPUSHARE_MALLOC_TUNING=0`` leaves malloc alone).
MMAP_THRESHOLD, TRIM_THRESHOLD = 4 << 20, 64 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (malloc.h)


def port_problem(address: str) -> str | None:
    """What is wrong with the port of a ``tcp://`` address, or None. libzmq takes a
    port past 65535 modulo 65536 (``tcp://host:99999`` is port 34463), so a typo
    would bind, or reach, another port without a word."""
    scheme, _, rest = address.partition("://")
    if scheme != "tcp" or ":" not in rest:
        return None
    port = rest.rsplit(":", 1)[1]
    if port == "*" or not port.isdigit() or int(port) <= 65535:
        return None  # (what is no number at all, libzmq refuses itself)
    return f"port {port} is out of range (0-65535)"


def send_frames(sock: Any, frames: list) -> None:
    """Send ``frames`` as one message; big frames go without a copy."""
    last = len(frames) - 1
    for i, frame in enumerate(frames):
        size = frame.nbytes if isinstance(frame, memoryview) else len(frame)
        sock.send(frame, zmq.SNDMORE if i < last else 0, copy=size < ZERO_COPY_MIN)


def keep_receive_buffers() -> bool:
    """Let freed receive buffers be reused rather than unmapped and faulted in again
    (glibc; nothing elsewhere). True when malloc took the settings."""
    if os.environ.get("GPUSHARE_MALLOC_TUNING", "").strip() == "0":
        return False
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt  # the process's C library
    except (OSError, AttributeError):  # no glibc-style malloc here
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    # (each returns 1 on success; musl's is a stub that returns 0)
    return mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and \
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1


def readable(sock: Any) -> bool:
    """Whether the ZeroMQ socket ``sock`` has a message (without waiting)."""
    return bool(sock.getsockopt(_EVENTS) & _POLLIN)


def spin(sock: Any, seconds: float) -> bool:
    """Return True when ``sock`` has a message, False after ``seconds`` of polling for
    one.

    A message that comes within a round trip's time is then taken without the cost of
    the thread's sleep and wake-up (tens of microseconds, more on a virtual machine).
    Each turn yields the core (``sched_yield``): a thread that has work to do, such
    as ZeroMQ's I/O thread bringing that very message, runs first."""
    end = _perf_counter() + seconds
    events, now, yield_core = sock.getsockopt, _perf_counter, give_way
    while not events(_EVENTS) & _POLLIN:
        if now() >= end:
            return False
        yield_core()
    return True
