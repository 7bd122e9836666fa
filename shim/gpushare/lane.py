"""The bulk lane: big copies over plain TCP connections straight to the worker.

Over ``tcp://``, a copy of ``LANE_MIN`` bytes and more goes through a few plain TCP
connections of its own instead of 1 MiB ZeroMQ chunk messages: each connection carries
one contiguous part of the array's bytes, the parts moving in parallel (for a network
where one stream is limited by its window or by one core's receive path; on a 2-core
loopback, where both cores are busy with the two kernel copies each byte takes, one,
two or three connections move about the same), and each side reads straight into the
destination's memory (``recv_into``: no message buffer in between, one copy fewer
than a chunk message).

Only for a session whose calls travel in plaintext (no CurveZMQ: the lane carries
bytes as they are, so an encrypted session keeps its data in ZeroMQ), over the direct
path to a ``tcp://`` worker, when neither side says ``GPUSHARE_LANES=0``
(``GPUSHARE_LANES=N``: N connections, 1-8; default 2).

Opening (``Session._lane``, two round trips, on the first big copy): ``lane_open``
makes the worker listen on a port of its own (its direct path's interface) and answer
the port and a random token; the client connects its N connections and writes
``token + index`` on each; ``lane_confirm`` makes the worker accept them, keep those
with the token and stop listening. A connection without the token is dropped.

A copy (``send_parts`` / ``recv_parts`` on both sides, part ``k`` of ``split``):

* upload: one numbered message announces it (``"lane": ["up", hid, nbytes]``, after
  the calls before it, like a chunk); the client then writes the parts, and the
  worker, reaching the announce, reads them into the array and writes ``DONE`` on
  connection 0. The client waits for that byte as any call waits (the worker may be
  busy with earlier calls), so a copy that fails on the lane is repeated as chunk
  messages with nothing lost (``set()`` has not returned: the host data is still
  there).
* download: the reply carries ``"lane": True`` in the stream descriptor; the worker
  writes the parts once the reply is sent, and the client reads them. A download that
  fails on the lane is asked for again, as chunk messages. With ``"ack": True`` the
  worker handed its array's own pages to the sockets, and waits for the client's
  ``DONE`` on connection 0 before it does anything else.

On Linux a part of ``SPLICE_MIN`` bytes and more is written without copying it into
the kernel (``splice_part``: its pages through a pipe to the socket, whose segments
point at them until the reader has them; the reader's copy is the only one, which on
loopback halves what a byte costs), and read with the socket's wake-up mark at
``LOWAT`` bytes (``recv_part``): a reader woken per segment of so fast a sender spends
its time waking. The ``DONE`` of either direction is what lets the pages change again.
``GPUSHARE_LANE_SPLICE=0`` makes a side copy into the kernel (``sendall``) instead.

Both sides run a copy's parts in threads (``in_parallel``; on the client all of them
off the caller's thread, which goes on handling the session meanwhile:
``Session._on_lane``); the client holds its session's lock throughout, and the worker
serves one message at a time, so at most one copy is on a lane at once.

Either side that sees a connection fail, or no progress for ``GPUSHARE_TIMEOUT``
seconds, closes every connection of the lane: the other side's copy then fails at
once, and the session goes on without a lane.
"""
from __future__ import annotations

import ipaddress
import os
import select
import socket
import sys
import threading
from typing import Any, Callable

from .settings import env_float

#: copies from this many bytes go through the lane (smaller: chunk messages)
LANE_MIN = 4 << 20
#: bytes per send and per receive: small enough to stay in cache between the two
#: copies a byte takes on loopback, big enough to cost few calls
SLICE = 1 << 20
#: parts from this many bytes: pages spliced (``splice_part``), reads woken by LOWAT
SPLICE_MIN = 1 << 20
#: the reader's wake-up mark (SO_RCVLOWAT), and how long it waits for that many
LOWAT = 256 << 10
LOWAT_WAIT_MS = 2
F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032
SPLICE_F_MORE = 4
_INET = (socket.AF_INET, socket.AF_INET6)
_LINUX = sys.platform.startswith("linux")
_VMSPLICE: Any = False  # (not looked up yet)
MAX_STREAMS = 8
DEFAULT_STREAMS = 2
TOKEN_BYTES = 16
#: what the worker writes on connection 0 once an upload is in the array
DONE = b"\x01"
#: seconds a client waits for each of its connections to be accepted (a port the
#: network does not let through must not stall the first big copy for long)
CONNECT_S = 3.0


class LaneError(ConnectionError):
    """A copy on the lane failed (a connection closed, or no progress)."""


def streams_wanted(host: str | None = None) -> int:
    """The number of connections ``GPUSHARE_LANES`` asks for: 0 (off) to MAX_STREAMS;
    unset, DEFAULT_STREAMS, or one to a loopback ``host`` (both ends share this
    machine's cores: a second stream only adds two threads to run; with pages
    spliced, one connection moved 1.3-1.8x what two did on a 2-core VM)."""
    default = 1 if host is not None and is_loopback_host(host) else DEFAULT_STREAMS
    return max(0, min(MAX_STREAMS, int(env_float("GPUSHARE_LANES", default))))


_LOOPBACK_NAMES = {"localhost", "ip6-localhost", "ip6-loopback"}


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (an address or name, no brackets or port) is this machine's
    loopback: a loopback address or one of its usual names (any other name is taken
    to be reachable from elsewhere; it is not resolved)."""
    host = host.strip().lower()
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_of(address: str) -> str:
    """The host of a ``tcp://HOST:PORT`` address (brackets of an IPv6 host removed)."""
    host = address.partition("://")[2].rsplit(":", 1)[0]
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host


def split(total: int, n: int) -> list[tuple[int, int]]:
    """The ``(start, end)`` byte ranges of a copy's ``n`` parts (the last may be
    shorter; empty parts for tiny copies are fine)."""
    size = -(-total // n) if n else 0
    return [(min(k * size, total), min((k + 1) * size, total)) for k in range(n)]


def send_part(sock: socket.socket, view: memoryview, pages: bool = False) -> None:
    """Write ``view`` on ``sock``; ``pages``: hand its memory pages to the socket
    (``splice_part``) where this platform can, which the caller may do only if the
    bytes stay as they are until the other side says it has read them."""
    if pages and len(view) >= SPLICE_MIN and splice_part(sock, view):
        return
    for pos in range(0, len(view), SLICE):
        sock.sendall(view[pos:pos + SLICE])


def recv_part(sock: socket.socket, view: memoryview) -> None:
    got, total = 0, len(view)
    if total < SPLICE_MIN or not _LINUX or sock.family not in _INET:
        while got < total:
            n = sock.recv_into(view[got:got + SLICE])
            if not n:
                raise LaneError("the other side closed the lane")
            got += n
        return
    # Woken for every segment, a reader of a fast sender (pages spliced, on loopback)
    # spends its time waking: asked to wake only once LOWAT bytes are there (the
    # socket's SO_RCVLOWAT), it reads 2-3x faster. Linux can leave such a reader
    # asleep with too few bytes queued and none coming (seen about once per GiB on
    # loopback), so the wait for LOWAT lasts at most LOWAT_WAIT_MS; then the reader
    # takes what is there. A want smaller than LOWAT (the tail) lowers it: the kernel
    # wakes a reader by its socket's mark, not by the size the read asks for.
    ready = select.poll()
    ready.register(sock.fileno(), select.POLLIN)
    mark = 1
    try:
        while got < total:
            want = min(SLICE, total - got)
            if mark != min(LOWAT, want):
                mark = min(LOWAT, want)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, mark)
            if mark > 1 and not ready.poll(LOWAT_WAIT_MS):
                mark = 1
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, 1)
            n = sock.recv_into(view[got:got + want])
            if not n:
                raise LaneError("the other side closed the lane")
            got += n
    finally:
        if mark != 1:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT, 1)
            except OSError:
                pass


def _vmsplice() -> Any:
    """libc's ``vmsplice`` (through ctypes), or None where there is none."""
    global _VMSPLICE
    if _VMSPLICE is False:
        _VMSPLICE = None
        if _LINUX and hasattr(os, "splice") and \
                env_float("GPUSHARE_LANE_SPLICE", 1.0) != 0:
            try:
                import ctypes
                libc = ctypes.CDLL(None, use_errno=True)
                fn = libc.vmsplice
                fn.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_uint]
                fn.restype = ctypes.c_ssize_t
                _VMSPLICE = (fn, ctypes)
            except (OSError, AttributeError):
                pass
    return _VMSPLICE


def splicing() -> bool:
    """Whether this process hands pages to its lane sockets (``splice_part``): Linux,
    unless ``GPUSHARE_LANE_SPLICE=0``."""
    return _vmsplice() is not None


def splice_part(sock: socket.socket, view: memoryview) -> bool:
    """Write ``view`` on the TCP socket ``sock`` without copying it into the kernel:
    its pages go into a pipe (``vmsplice``) and from there to the socket (``splice``),
    whose segments then point at them until the other side has read them. On
    loopback that halves what a byte costs (the reader's copy is the only one).
    False, with nothing written, where this cannot be done here (not Linux, not TCP,
    no pipe); an error once bytes went raises, as ``sendall`` would."""
    fns = _vmsplice()
    if fns is None or sock.family not in _INET:
        return False
    vmsplice, ctypes = fns
    import fcntl
    try:
        import numpy
        base = int(numpy.frombuffer(view, dtype=numpy.uint8).ctypes.data)
        rd, wr = os.pipe()
    except (OSError, TypeError, ValueError, BufferError):
        return False
    try:
        try:
            fcntl.fcntl(wr, F_SETPIPE_SZ, SLICE)
        except OSError:
            pass  # (a user over their pipe quota: the default 64 KiB pipe)
        step = fcntl.fcntl(wr, F_GETPIPE_SZ)
        iov = (ctypes.c_size_t * 2)()  # (one struct iovec: base, length)
        fd, total, pos = sock.fileno(), len(view), 0
        timeout = sock.gettimeout()
        out = select.poll()
        out.register(fd, select.POLLOUT)
        while pos < total:
            iov[0], iov[1] = base + pos, min(step, total - pos)
            n = vmsplice(wr, iov, 1, 0)
            if n <= 0:
                err = ctypes.get_errno()
                if pos == 0:
                    return False
                raise OSError(err, os.strerror(err))
            left = n
            while left:
                more = SPLICE_F_MORE if pos + n < total else 0
                try:
                    moved = os.splice(rd, fd, left, flags=more)
                    if moved <= 0:
                        raise LaneError("the lane's socket took nothing")
                    left -= moved
                except BlockingIOError:  # (a socket with a timeout is non-blocking)
                    if not out.poll(None if timeout is None else timeout * 1000):
                        raise socket.timeout("no progress on the lane") from None
            pos += n
        return True
    finally:
        os.close(rd)
        os.close(wr)


def in_parallel(socks: list, work: Callable[[socket.socket, int], None]) -> None:
    """Run ``work(sock, k)`` for every connection ``k`` at once (threads for all but
    the first, which runs here: socket calls let go of the GIL) and raise the first
    error. A failure closes every connection (``shut``), so that no other part waits
    for ever on a copy that cannot complete."""
    errors: list = []

    def run(k: int) -> None:
        try:
            work(socks[k], k)
        except BaseException as exc:  # noqa: BLE001 - reported below, in order
            errors.append(exc)
            shut(socks)
    threads = [threading.Thread(target=run, args=(k,), daemon=True,
                                name=f"gpushare-lane-{k}") for k in range(1, len(socks))]
    for t in threads:
        t.start()
    try:
        run(0)
    finally:
        for t in threads:
            t.join()
    if errors:
        exc = errors[0]
        if isinstance(exc, (OSError, LaneError)):
            raise LaneError(f"a copy on the lane failed: {exc}") from exc
        raise exc


def send_parts(socks: list, flat: memoryview, pages: bool = False) -> None:
    """Write ``flat`` (bytes) on the connections, part ``k`` on connection ``k``
    (``pages``: as ``send_part`` says)."""
    ranges = split(len(flat), len(socks))
    in_parallel(socks, lambda sock, k: send_part(sock, flat[ranges[k][0]:ranges[k][1]],
                                                 pages))


def recv_parts(socks: list, flat: memoryview) -> None:
    """Read the parts of a copy of ``len(flat)`` bytes into the writable ``flat``."""
    ranges = split(len(flat), len(socks))
    in_parallel(socks, lambda sock, k: recv_part(sock, flat[ranges[k][0]:ranges[k][1]]))


def shut(socks: list) -> None:
    """End every connection at once (a thread blocked on one returns with an error)."""
    for sock in socks:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def close(socks: list) -> None:
    shut(socks)
    for sock in socks:
        try:
            sock.close()
        except OSError:
            pass


def tune(sock: socket.socket) -> None:
    if sock.family != getattr(socket, "AF_UNIX", None):  # (an ipc:// express connection)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def connect(host: str, port: int | str, token: bytes, n: int, timeout: float) -> list:
    """The client's ``n`` connections to a worker's lane port (or, ``port`` a ``str``,
    to the Unix socket of that path: an ``ipc://`` worker's express listener), each
    introduced by the token and its index (blocking sockets with ``timeout``: a wait
    without progress that long fails)."""
    socks: list = []
    try:
        for k in range(n):
            if isinstance(port, str):
                if not hasattr(socket, "AF_UNIX"):
                    raise OSError("no Unix sockets on this platform")
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                socks.append(sock)
                sock.settimeout(min(timeout, CONNECT_S))
                sock.connect(port)
            else:
                sock = socket.create_connection((host, port),
                                                timeout=min(timeout, CONNECT_S))
                socks.append(sock)
            sock.settimeout(timeout)
            tune(sock)
            sock.sendall(token + bytes([k]))
    except BaseException:
        close(socks)
        raise
    return socks


class Lane:
    """The client's open lane: its connections and what it has moved."""

    def __init__(self, socks: list) -> None:
        self.socks = socks
        self.bytes = [0, 0]  # up, down

    def close(self) -> None:
        close(self.socks)
        self.socks = []


def recv_done(sock: socket.socket) -> None:
    """Read the worker's ``DONE`` after an upload (connection 0)."""
    got = sock.recv(1)
    if got != DONE:
        raise LaneError("the worker closed the lane" if not got else
                        f"unexpected byte {got!r} on the lane")
