"""ZeroMQ helpers shared by the client and the server (the only I/O outside their
socket loops)."""
from __future__ import annotations

import os
import time
from typing import Any

import zmq

_yield = getattr(os, "sched_yield", lambda: None)  # (not on every platform)
# plain ints: pyzmq's option and flag constants are enums, and ``int & Flag`` builds
# enum members on every turn of a polling loop (half of that loop's cost)
_EVENTS, _POLLIN = int(zmq.EVENTS), int(zmq.POLLIN)

#: frames at least this large are sent without copying
ZERO_COPY_MIN = 1 << 16


def send_frames(sock: Any, frames: list) -> None:
    """Send ``frames`` as one message; big frames go without a copy."""
    last = len(frames) - 1
    for i, frame in enumerate(frames):
        size = frame.nbytes if isinstance(frame, memoryview) else len(frame)
        sock.send(frame, zmq.SNDMORE if i < last else 0, copy=size < ZERO_COPY_MIN)


def spin(sock: Any, seconds: float) -> bool:
    """Return True when ``sock`` has a message, False after ``seconds`` of polling for
    one.

    A message that comes within a round trip's time is then taken without the cost of
    the thread's sleep and wake-up (tens of microseconds, more on a virtual machine).
    Each turn yields the core (``sched_yield``): a thread that has work to do, such
    as ZeroMQ's I/O thread bringing that very message, runs first."""
    end = time.perf_counter() + seconds
    events, now, give_way = sock.getsockopt, time.perf_counter, _yield
    while not events(_EVENTS) & _POLLIN:
        if now() >= end:
            return False
        give_way()
    return True
