"""The worker's side of the bulk lane (``gpushare/lane.py`` says what it is).

Offered only where the lane exposes nothing the session's calls do not: the worker's
direct path is ``tcp://`` and the server has no CurveZMQ keys (its client-facing
sockets are plaintext); ``GPUSHARE_LANES=0`` on the server turns it off, ``N`` caps
the connections a client may open.

The worker listens for the lane only between ``lane_open`` and ``lane_confirm`` (a
random port on the direct path's interface) and keeps the connections that introduce
themselves with the random token it gave its client over the session's own channel.
Every lane socket has the server's ``GPUSHARE_TIMEOUT`` (default 30 s): a copy whose
client makes no progress that long fails, and the lane is closed.
"""
from __future__ import annotations

import hmac
import os
import secrets
import socket
import time
from typing import Any

from gpushare import lane as lanes
from gpushare.lane import (SLICE, TOKEN_BYTES, LaneError, close, host_of, in_parallel,
                           recv_part, send_part, split, streams_wanted, tune)
from gpushare.settings import env_float

#: seconds a lane socket waits for progress (the server's ``GPUSHARE_TIMEOUT``)
TIMEOUT = env_float("GPUSHARE_TIMEOUT", 30.0)
#: seconds ``lane_confirm`` waits for the client's connections
CONNECT_TIMEOUT = 5.0
#: seconds a new connection has to introduce itself
HELLO_S = 0.5
#: an ``ipc://`` worker's express listener: its direct path's file and this
UNIX_SUFFIX = "-x"


def allowed(direct_bind: str | None, curve: bool) -> int:
    """How many connections this worker's client may open (0: no lane)."""
    if curve or not direct_bind or not str(direct_bind).startswith("tcp://"):
        return 0
    return streams_wanted()


class Listener:
    """The lane's listening socket, from ``lane_open`` until ``lane_confirm``: a random
    port on the interface of a ``tcp://`` direct path, or for an ``ipc://`` one (the
    express connection only) a Unix socket beside its file (``UNIX_SUFFIX``: 0600,
    removed once the connection came or the listener closed; beside an abstract name,
    ``ipc://@NAME`` on Linux, an abstract name too, with no file)."""

    def __init__(self, direct_bind: str, streams: int) -> None:
        self.path: str | None = None  # the socket file, while there is one
        self.address: str | None = None  # a Unix socket's address, for the offer
        if direct_bind.startswith("ipc://"):
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            name = direct_bind[len("ipc://"):] + UNIX_SUFFIX
            abstract = name.startswith("@")  # (libzmq's spelling; Python's is a NUL)
            self.address = "\0" + name[1:] if abstract else name
            try:
                if not abstract:
                    _unlink(name)  # (a listener of a worker killed before its confirm)
                self.sock.bind(self.address)
                if not abstract:
                    self.path = name
                    # (the directory's permissions and the token guard the moment before)
                    os.chmod(name, 0o600)
                self.sock.listen(streams + 4)
            except BaseException:
                self.close()
                raise
            self.port = 0
        else:
            host = host_of(direct_bind)
            if host in ("*", "", "0.0.0.0"):
                host = None
            family, kind, proto, _, where = socket.getaddrinfo(
                host, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
            self.sock = socket.socket(family, kind, proto)
            try:
                self.sock.bind(where[:2] if family == socket.AF_INET else where)
                self.sock.listen(streams + 4)
            except BaseException:
                self.sock.close()
                raise
            self.port = self.sock.getsockname()[1]
        self.streams = streams
        self.token = secrets.token_bytes(TOKEN_BYTES)

    def offer(self) -> dict:
        """What ``*_open`` answers: where to connect, the token, how many streams."""
        where = {"path": self.address} if self.address else {"port": self.port}
        return {**where, "token": self.token.hex(), "streams": self.streams}

    def accept(self, timeout: float = CONNECT_TIMEOUT) -> list:
        """The client's connections, in its order; raises ``LaneError`` unless all came
        within ``timeout`` seconds. Connections without the token are dropped (at
        most a few: then the lane is refused)."""
        deadline = time.monotonic() + timeout
        got: dict = {}
        tries = 0
        try:
            while len(got) < self.streams:
                tries += 1
                left = deadline - time.monotonic()
                if left <= 0 or tries > 4 * self.streams + 4:
                    raise LaneError("the client's lane connections did not come")
                self.sock.settimeout(left)
                try:
                    conn, _ = self.sock.accept()
                except OSError as exc:
                    raise LaneError(f"no lane connection: {exc}") from exc
                try:
                    # our client wrote its hello before it asked us to accept: it is
                    # there already (a silent stranger costs at most HELLO_S)
                    conn.settimeout(max(0.01, min(HELLO_S, deadline - time.monotonic())))
                    hello = bytearray(TOKEN_BYTES + 1)
                    recv_part(conn, memoryview(hello))
                    index = hello[TOKEN_BYTES]
                    if not hmac.compare_digest(bytes(hello[:TOKEN_BYTES]), self.token) or \
                            index >= self.streams or index in got:
                        raise LaneError("a stranger on the lane port")
                except (OSError, LaneError):
                    conn.close()
                    continue
                tune(conn)
                conn.settimeout(TIMEOUT)
                got[index] = conn
        except BaseException:
            close(list(got.values()))
            raise
        finally:
            self.close()
        return [got[k] for k in range(self.streams)]

    def close(self) -> None:
        self.sock.close()
        if self.path:
            _unlink(self.path)
            self.path = None


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _host_bytes(backend: Any, arr: Any) -> Any:
    """``arr``'s bytes as a writable memoryview, when the backend keeps it in host
    memory (the CPU backend); None: copy through a buffer per connection."""
    view = getattr(backend, "host_bytes", None)
    return view(arr) if view is not None else None


def _copy(socks: list, total: int, flat: Any, part: Any, through: Any) -> None:
    """Move a copy's ``total`` bytes on the connections, part ``k`` on connection
    ``k``: straight from or into ``flat`` (``part(sock, view)``) when the array's bytes
    are at hand, else slice by slice through a buffer per connection
    (``through(sock, buffer, offset)``)."""
    ranges = split(total, len(socks))

    def work(sock: socket.socket, k: int) -> None:
        start, end = ranges[k]
        if flat is not None:
            part(sock, flat[start:end])
            return
        buf = memoryview(bytearray(min(SLICE, end - start)))
        for pos in range(start, end, SLICE):
            through(sock, buf[:min(SLICE, end - pos)], pos)
    in_parallel(socks, work)


def receive_into(socks: list, backend: Any, arr: Any, total: int) -> None:
    """Read an upload's parts into the contiguous ``arr`` (in its own memory order);
    ``arr`` None: read and drop them (an array that cannot take them)."""
    def through(sock: socket.socket, buf: memoryview, pos: int) -> None:
        recv_part(sock, buf)
        if arr is not None:
            backend.write_bytes(arr, pos, buf)
    _copy(socks, total, _host_bytes(backend, arr) if arr is not None else None,
          recv_part, through)


def pages_handed(backend: Any, arr: Any) -> bool:
    """Whether ``send_from`` hands ``arr``'s own pages to the sockets (its bytes in
    host memory, and this platform splices): the client must then say ``DONE``
    before anything may change them."""
    return lanes.splicing() and _host_bytes(backend, arr) is not None


def send_from(socks: list, backend: Any, arr: Any) -> None:
    """Write the contiguous ``arr``'s bytes (in its own memory order) as a download's
    parts; when ``pages_handed``, wait for the client's ``DONE``."""
    def through(sock: socket.socket, buf: memoryview, pos: int) -> None:
        backend.read_bytes(arr, pos, buf)
        sock.sendall(buf)  # (the buffer is reused: copied, never spliced)
    pages = pages_handed(backend, arr)
    _copy(socks, int(arr.nbytes), _host_bytes(backend, arr),
          lambda sock, view: send_part(sock, view, pages), through)
    if pages:
        lanes.recv_done(socks[0])
