"""The client's heartbeat: keeps an idle session alive on the server, and notices early
when the server has dropped it.

The server frees a session it has not heard from for ``--session-timeout`` seconds
(a client killed with ``kill -9`` says no goodbye). A client that is merely idle (the
user's program computes on the host, or waits for input) sends a ``ping`` every
``heartbeat`` seconds, as the server asked in its ``welcome`` (a quarter of its
session timeout); ``GPUSHARE_HEARTBEAT`` overrides it (``0`` turns heartbeats off).

The pinger is a daemon thread holding only a weak reference to the session. It never
waits for the session's lock: while a call is in progress the session is anything but
idle, and its own wait loop pings a silent server.

The idle flush (``start_idle_flush``) is the same kind of thread for queued calls: a
program that queues calls and then computes on the host for a while (or sleeps) would
otherwise leave them in the client's queue until its next wait, and the device idle
meanwhile. Once the program has queued nothing new for ``GPUSHARE_IDLE_FLUSH_MS``
milliseconds (default 5), the queue is sent. While the program queues calls, the thread
wakes once per interval (no more: waits and round trips do not wake it); while nothing
is queued, it sleeps. Releases (arrays the program dropped) cannot wake it: they come
from finalizers, which must not take the event's lock. They go out with the next batch,
or after ``RELEASE_IDLE_S`` seconds of a queue with nothing else in it, so an idle
program's dropped arrays do not hold device memory for long.
"""
from __future__ import annotations

import os
import threading
import weakref
from typing import Any

from .settings import env_float

#: seconds after which releases alone are sent, when no call is queued
RELEASE_IDLE_S = 1.0

#: seconds between pings when the server does not say
DEFAULT_INTERVAL = 10.0


def heartbeat_interval(welcome: dict) -> float:
    """Seconds between pings for a session whose handshake reply was ``welcome``."""
    if os.environ.get("GPUSHARE_HEARTBEAT", "").strip():
        return max(0.0, env_float("GPUSHARE_HEARTBEAT", DEFAULT_INTERVAL))
    try:
        value = float(welcome.get("heartbeat", DEFAULT_INTERVAL))
    except (TypeError, ValueError):
        value = DEFAULT_INTERVAL
    return max(0.05, value)


def start_heartbeat(session: Any) -> threading.Thread | None:
    """Start pinging the server for ``session`` (a ``client.Session``); None when
    heartbeats are turned off."""
    interval = heartbeat_interval(getattr(session, "info", {}) or {})
    if interval <= 0:
        return None
    ref = weakref.ref(session)
    stop = threading.Event()
    session._gs_heartbeat_stop = stop
    thread = threading.Thread(target=_beat, args=(ref, interval, stop),
                              name="gpushare-heartbeat", daemon=True)
    thread.start()
    return thread


def _beat(ref: "weakref.ref[Any]", interval: float, stop: threading.Event) -> None:
    from .protocol import Encoder
    ping = Encoder().encode({"t": "ping"})
    while not stop.wait(interval):
        session = ref()
        if session is None:
            return
        lock = session._lock
        if not lock.acquire(blocking=False):
            del session
            continue  # a call is in progress: the session is not idle
        try:
            if session._closed or session._lost is not None:
                return
            session._send(list(ping))
            # handle what already came: pongs, and a "fatal" telling that the server
            # stopped or dropped the session, so the next call raises it at once
            session._drain()
        except Exception:  # noqa: BLE001 - a dying interpreter or a closed socket
            return
        finally:
            lock.release()
            del session


def idle_flush_interval() -> float:
    """Seconds without a new call after which queued calls are sent (0: never)."""
    return max(0.0, env_float("GPUSHARE_IDLE_FLUSH_MS", 5.0)) / 1e3


def start_idle_flush(session: Any, queued: threading.Event) -> threading.Thread | None:
    """Send ``session``'s queued calls once the program stops queueing for a moment.
    ``queued`` is set by the session when a call enters its empty queue (under its
    lock), and cleared here (under the lock) once the queue has gone."""
    interval = idle_flush_interval()
    if interval <= 0:
        return None
    thread = threading.Thread(target=_flush_when_idle,
                              args=(weakref.ref(session), queued, interval),
                              name="gpushare-idle-flush", daemon=True)
    thread.start()
    return thread


def _flush_when_idle(ref: "weakref.ref[Any]", queued: threading.Event,
                     interval: float) -> None:
    import time
    while True:
        if not queued.wait(RELEASE_IDLE_S):  # nothing queued: is the session still there?
            session = ref()
            if session is None or session._closed:
                return
            if session._release and session._lost is None and \
                    not _flush_if_free(session):  # dropped arrays: free them
                return
            del session
            continue
        session = ref()
        seen = session._seq if session is not None else None
        del session
        while True:  # one wake-up per interval while the program is busy, none when idle
            time.sleep(interval)
            session = ref()
            if session is None or session._closed or session._lost is not None:
                return
            if session._queue and session._seq != seen:  # still queueing: let it go on
                seen = session._seq
                del session
                continue
            if not _flush_if_free(session, queued):
                return
            del session
            break


def _flush_if_free(session: Any, queued: threading.Event | None = None) -> bool:
    """Send ``session``'s queue (and releases) unless a call is in progress (it sends
    them itself); clear ``queued`` as the queue goes. False: the session is unusable."""
    lock = session._lock
    if lock.acquire(blocking=False):
        try:
            if queued is not None:
                queued.clear()
            if session._queue or session._release:
                session._flush_locked()
        except Exception:  # noqa: BLE001 - the next call reports the session's state
            return False
        finally:
            lock.release()
    return True
