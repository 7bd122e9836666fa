"""The express connection: a session's small messages over one plain TCP connection.

A ZeroMQ message crosses two I/O threads on each side of a round trip: the sender's
thread hands it to its I/O thread, which writes it to the kernel; the receiver's I/O
thread reads it and hands it to the receiving thread. Each hand-over wakes a sleeping
thread, and on a virtual machine with two cores those wake-ups are most of a round
trip (loopback, ~90 us for pyzmq's echo against ~15-25 us for a plain socket's). A
program that waits often (``float(x.sum())`` in a loop, a shape it must ask for,
printing) pays that at every wait.

So a session whose calls travel in plaintext (no CurveZMQ: the same terms as the bulk
lane, ``lane.py``) opens, once it has waited ``OPEN_AFTER`` times, one plain TCP
connection to its worker (over ``ipc://``, the embedded server's transport, a Unix
socket beside the worker's own socket file), and sends its numbered messages of up to
``EXPRESS_MAX`` bytes on it; the worker answers each on the connection it came on.
Bigger messages (upload chunks) stay on ZeroMQ. Both channels carry the same numbered
messages (``reliable.py``), and a client switches channel only once the worker has
acknowledged everything sent on the other one, so the worker takes them in order.
When the connection fails, either side closes it; the client then resends what the
worker has not acknowledged, and asks the worker to resend, on ZeroMQ (the numbering
drops what arrived twice), and the session goes on without it.
``GPUSHARE_EXPRESS=0`` on either side turns it off.

Opening (``Session._open_express``, two round trips): ``express_open`` makes the worker
listen on a port of its own (its direct path's interface; over ``ipc://``, a Unix
socket at its direct path's file plus ``-x``, 0600, removed once connected) and answer
the port (or path) and a random token; the client connects and writes the token
(``lane.connect``'s hello); ``express_confirm`` makes the worker accept it, check the
token and stop listening.

Framing (``encode``/``decode``; ``Express`` does the I/O): a message is ``<I`` the length
of the rest, ``<I`` its number of frames, ``<I`` each frame's length, then the frames.
"""
from __future__ import annotations

import collections
import functools
import os
import select
import socket
import struct
from time import perf_counter as _perf_counter
from typing import Any

from .reliable import HeadFrame
from .wire import give_way


#: messages up to this many bytes (all frames) go on the express connection
EXPRESS_MAX = 64 << 10
#: the client opens the connection at its this-many-th synchronous call
OPEN_AFTER = 8
#: the most bytes one message from the worker may have (a reply's inline results and
#: a download's 1 MiB chunks are far smaller); a longer one is a broken stream
MAX_MESSAGE = 1 << 30
#: bytes read from the socket at a time for small messages
READ_SIZE = 1 << 18
#: frames shorter than this are handed out as bytes; longer as ``BufferFrame``
_COPY_BELOW = 1 << 16

_U32 = struct.Struct("<I")


class ExpressClosed(ConnectionError):
    """The express connection failed or was closed by the other side."""


def enabled() -> bool:
    """Whether ``GPUSHARE_EXPRESS`` leaves the express connection on (default: on)."""
    return os.environ.get("GPUSHARE_EXPRESS", "").strip() != "0"


class BufferFrame:
    """A big received frame: its memory as ``.buffer`` (no copy), like zmq.Frame."""

    __slots__ = ("buffer",)

    def __init__(self, buffer: memoryview) -> None:
        self.buffer = buffer

    @property
    def bytes(self) -> bytes:
        return self.buffer.tobytes()

    @property
    def nbytes(self) -> int:
        return self.buffer.nbytes

    def __len__(self) -> int:
        return self.buffer.nbytes


def encode(frames: list) -> list:
    """The buffers that carry ``frames`` as one message (for ``sendmsg``)."""
    sizes = [f.nbytes if isinstance(f, memoryview) else len(f) for f in frames]
    head = struct.pack(f"<II{len(sizes)}I", 4 + 4 * len(sizes) + sum(sizes), len(sizes),
                       *sizes)
    return [head, *frames]


def decode(body: memoryview) -> list:
    """The frames of a message's ``body`` (everything after its length)."""
    if body.nbytes < 4:
        raise ExpressClosed("a malformed message on the express connection")
    count = _U32.unpack_from(body)[0]
    start = 4 + 4 * count
    if count < 1 or start > body.nbytes:
        raise ExpressClosed("a malformed message on the express connection")
    sizes = struct.unpack_from(f"<{count}I", body, 4)
    if start + sum(sizes) != body.nbytes:
        raise ExpressClosed("a malformed message on the express connection")
    frames: list = []
    for size in sizes:
        part = body[start:start + size]
        start += size
        frames.append(HeadFrame(part) if size < _COPY_BELOW else BufferFrame(part))
    return frames


class Express:
    """One end of an express connection (a connected, blocking TCP socket): messages
    out with ``send_message``, in with ``take`` (without waiting) or ``receive``.
    ``limit``: the longest message accepted from the other side."""

    def __init__(self, sock: socket.socket, limit: int = MAX_MESSAGE,
                 stall: float = 30.0) -> None:
        self.sock = sock
        self.limit = limit
        #: seconds the rest of a message that has begun may take to come
        self.stall = stall
        self._buf = bytearray()  # bytes read of a message not whole yet
        self._ready: collections.deque = collections.deque()  # whole messages read
        self._fd = sock.fileno()
        # whether the socket has something to read, without reading (a failing ``recv``
        # costs three times as much, its exception included): each turn of a polling
        # wait asks it (no ``select.poll`` on every platform: there each turn reads)
        self._readable: Any = None
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(self._fd, select.POLLIN)
            self._readable = functools.partial(poller.poll, 0)
        # a send that makes no progress for ``stall`` seconds (the other side reads
        # nothing: stopped, or stuck) fails, and with it the connection, rather than
        # hang: the session goes on over ZeroMQ (the socket stays blocking for reads)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                            struct.pack("@ll", int(stall), int(stall % 1 * 1e6)))
        except (OSError, struct.error):  # (not every platform takes a timeval)
            pass

    def fileno(self) -> int:
        return self._fd

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    # --- out -------------------------------------------------------------------------
    def send_message(self, frames: list) -> None:
        """Send ``frames`` as one message (blocking until the kernel has it all)."""
        parts = encode(frames)
        try:
            # (the length ``encode`` put first: the sizes are not summed again)
            if 4 + _U32.unpack_from(parts[0])[0] <= _COPY_BELOW:
                self.sock.sendall(b"".join(parts))
                return
            views = [memoryview(p).cast("B") for p in parts]
            while views:
                sent = self.sock.sendmsg(views)
                while views and sent >= views[0].nbytes:
                    sent -= views[0].nbytes
                    views.pop(0)
                if views and sent:
                    views[0] = views[0][sent:]
        except OSError as exc:
            raise ExpressClosed(f"the express connection failed: {exc}") from exc
        except BaseException:  # (Ctrl-C) a message cut short: the stream is no more
            self.close()
            raise

    # --- in --------------------------------------------------------------------------
    # (after every read, the whole messages read go to ``_ready``: the buffer never
    # holds one, so ``buffered`` need not look there)
    def _parse(self) -> None:
        buf = self._buf
        while len(buf) >= 4:
            size = _U32.unpack_from(buf)[0]
            if size > self.limit:
                raise ExpressClosed(f"a message of {size} bytes on the express connection")
            end = 4 + size
            if len(buf) < end:
                return
            body = memoryview(bytes(buf[4:end]))
            del buf[:end]
            self._ready.append(decode(body))

    def fill(self) -> None:
        """Read what the socket has, without waiting."""
        try:
            data = self.sock.recv(READ_SIZE, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            raise ExpressClosed(f"the express connection failed: {exc}") from exc
        if not data:
            raise ExpressClosed("the other side closed the express connection")
        self._buf += data
        self._parse()

    def take(self) -> list | None:
        """A message if one is here (read what the socket has, without waiting); None
        otherwise."""
        ready = self._ready
        if not ready:
            if self._readable is not None and not self._readable():
                return None
            self.fill()
        return ready.popleft() if ready else None

    def buffered(self) -> bool:
        """Whether a whole message is read already (a poll of the socket would not
        show it)."""
        return bool(self._ready)

    def receive(self, timeout: float | None) -> list | None:
        """The next message, waiting up to ``timeout`` seconds for its first bytes
        (None: for ever); None when none began. Once a message has begun, its rest is
        waited for (the sender writes a message whole) up to ``stall`` seconds."""
        message = self.take()
        if message is not None:
            return message
        sock, ready = self.sock, self._ready
        try:
            if not self._buf:
                sock.settimeout(timeout)
                try:
                    data = sock.recv(READ_SIZE)
                except socket.timeout:
                    return None
                if not data:
                    raise ExpressClosed("the other side closed the express connection")
                self._buf += data
                self._parse()
            sock.settimeout(self.stall)
            while not ready:
                buf = self._buf
                if len(buf) >= 4 and _U32.unpack_from(buf)[0] + 4 - len(buf) > READ_SIZE:
                    self._receive_big(_U32.unpack_from(buf)[0])
                    break
                data = sock.recv(READ_SIZE)
                if not data:
                    raise ExpressClosed("the other side closed the express connection")
                buf += data
                self._parse()
            return ready.popleft()
        except socket.timeout as exc:
            raise ExpressClosed("a message on the express connection stopped midway") \
                from exc
        except OSError as exc:
            raise ExpressClosed(f"the express connection failed: {exc}") from exc
        finally:
            try:
                sock.settimeout(None)
            except OSError:
                pass

    def _receive_big(self, size: int) -> None:
        """Read the rest of a long message straight into its own memory."""
        if size > self.limit:
            raise ExpressClosed(f"a message of {size} bytes on the express connection")
        body = bytearray(size)
        view = memoryview(body)
        have = len(self._buf) - 4
        view[:have] = self._buf[4:]
        self._buf = bytearray()
        try:
            while have < size:
                n = self.sock.recv_into(view[have:])
                if not n:
                    raise ExpressClosed("the other side closed the express connection")
                have += n
        except BaseException:  # (Ctrl-C) what was read of it is gone: so is the stream
            self.close()
            raise
        self._ready.append(decode(view))

    def recv_multipart(self, flags: int = 0, copy: bool = True) -> list:
        """The next message (as zmq.Socket's: for code that reads whichever socket a
        poll found ready; ``buffered`` says whether one is)."""
        message = self.receive(self.stall)
        if message is None:
            raise ExpressClosed("no message on the express connection")
        return message

    def wait(self, spin_s: float, timeout: float) -> list | None:
        """The next message: polled for ``spin_s`` seconds (each turn yields the core,
        as ``wire.spin``), then waited for up to ``timeout``; None when none came."""
        message = self.take()
        if message is not None:
            return message
        end = _perf_counter() + spin_s
        while _perf_counter() < end:
            give_way()
            message = self.take()
            if message is not None:
                return message
        return self.receive(timeout)
