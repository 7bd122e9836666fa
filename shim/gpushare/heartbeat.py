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
"""
from __future__ import annotations

import os
import threading
import weakref
from typing import Any

#: seconds between pings when the server does not say
DEFAULT_INTERVAL = 10.0


def heartbeat_interval(welcome: dict) -> float:
    """Seconds between pings for a session whose handshake reply was ``welcome``."""
    env = os.environ.get("GPUSHARE_HEARTBEAT", "").strip()
    if env:
        try:
            return max(0.0, float(env))
        except ValueError:
            pass
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
