"""Sequence numbers that let a session survive a dropped connection (sans-IO).

ZeroMQ reconnects a broken TCP connection by itself, but whatever was in flight when
it broke (in a kernel buffer, in a middlebox) is gone, and a ROUTER silently drops
what it sends to a peer that is away. So every message of a session's data stream
(client -> worker: call batches and upload chunks; worker -> client: replies and
download chunks) is numbered, and each side keeps what it sent until the other side
acknowledges it:

* A numbered message is the message with an *envelope* in front of its first frame:
  the msgpack array ``[n, ack]``, where ``n`` numbers this message (1, 2, 3... per
  direction) and ``ack`` is the highest number the sender has *received in order* from
  the other side. No other message of the protocol starts with a two-element msgpack
  array (they start with maps), so the envelope is recognisable on its own. (In the
  first frame rather than a frame of its own: a frame costs a few microseconds more
  per round trip.)
* A receiver takes message ``n`` only when it is the next one (``last + 1``). A
  duplicate (``n <= last``) is dropped: it was applied already. A message after a gap
  is dropped too and the receiver asks for a resend (go-back-N): calls run in order,
  and exactly once.
* Recovery: the client sends ``{"t": "sync", "have": last_reply}`` when its connection
  to the worker comes back (a new handshake on its socket: ZeroMQ reconnected), or when
  replies show a gap (a silence is no sign of loss: TCP loses nothing on a connection
  that stays up, and the worker may be computing); the worker
  answers ``{"t": "state", "have": last_message}`` and resends its unacknowledged
  replies after ``have``; the client resends its unacknowledged messages after the
  worker's ``have``. The worker also sends a ``state`` by itself when it sees a gap.

Unacknowledged messages are kept by reference (zero-copy frames stay views of the
data they were sent from); each message that arrives acknowledges the other side's.
When one side has nothing to send back (upload chunks get no reply; a finished
download needs none) it sends an unnumbered ``{"t": "ack", "have": n}``, so that big
buffers are not held until the next call.

Flow control: a receiver also sends that ``ack`` each time it has taken ``ACK_BYTES``
since it last acknowledged (``Receiver.took``), and the worker sends its numbered
messages only while fewer than ``WINDOW`` bytes of them are unacknowledged
(``Sender.unacked_bytes``), holding the rest back in order. So a client that stops
reading (or one whose reads are slow) has at most ``WINDOW`` bytes of its downloads
queued in the sockets between it and its worker (in the broker, on the shared
path), not every copy it asked for.
"""
from __future__ import annotations

from collections import deque
from typing import Any

import msgpack

__all__ = ["NEW", "DUPLICATE", "GAP", "Sender", "Receiver", "HeadFrame", "split_envelope",
           "stamp_frames", "control", "parse_control"]

NEW, DUPLICATE, GAP = "new", "duplicate", "gap"

#: (``msgpack.packb`` without building a Packer per envelope: see ``protocol.packb``)
_packb = msgpack.Packer().pack

#: bytes of numbered messages a receiver takes before it acknowledges them unasked
ACK_BYTES = 8 << 20
#: the most bytes of numbered messages the worker has unacknowledged before it holds
#: back the next ones (a multiple of ACK_BYTES: the data keeps flowing meanwhile)
WINDOW = 4 * ACK_BYTES

_ENVELOPE_FIRST = 0x92  # msgpack fixarray of two elements
_UINT_SIZES = {0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8}


class HeadFrame(bytes):
    """A first frame once its envelope is cut off: bytes that also answer zmq.Frame's
    ``.bytes`` and ``.buffer``, so the rest of the code reads it like any frame."""

    __slots__ = ()

    @property
    def bytes(self) -> bytes:  # type: ignore[override]
        return self

    @property
    def buffer(self) -> memoryview:
        return memoryview(self)


def _raw(frame: Any) -> bytes:
    if isinstance(frame, bytes):
        return frame
    buffer = getattr(frame, "bytes", None)  # a zmq.Frame
    return buffer if isinstance(buffer, bytes) else bytes(frame)


def _uint(raw: bytes, i: int) -> tuple[int, int]:
    """The msgpack unsigned integer at ``raw[i]`` and the index after it."""
    b = raw[i]
    if b <= 0x7f:
        return b, i + 1
    size = _UINT_SIZES.get(b)
    if size is None or i + 1 + size > len(raw):
        raise ValueError("not an unsigned integer")
    return int.from_bytes(raw[i + 1:i + 1 + size], "big"), i + 1 + size


def _size(frame: Any) -> int:
    """Bytes of a frame (bytes, a buffer, a numpy array or a zmq.Frame)."""
    size = getattr(frame, "nbytes", None)
    return size if type(size) is int else len(frame)


def split_envelope(frames: list) -> tuple[tuple[int, int] | None, list]:
    """``((n, ack), frames without the envelope)`` for a numbered message,
    ``(None, frames)`` otherwise."""
    if not frames:
        return None, frames
    first = frames[0]
    size = first.nbytes if isinstance(first, memoryview) else len(first)
    if size < 3:
        return None, frames
    raw = _raw(first)
    if raw[0] != _ENVELOPE_FIRST:
        return None, frames
    try:
        n, i = _uint(raw, 1)
        ack, i = _uint(raw, i)
    except (ValueError, IndexError):
        return None, frames
    if n < 1:
        return None, frames
    return (n, ack), [HeadFrame(raw[i:]), *frames[1:]]


def stamp_frames(frames: list, n: int, ack: int) -> list:
    """``frames`` as message ``n`` acknowledging ``ack``: the envelope goes in front of
    the first frame (a header: small)."""
    first = frames[0]
    return [_packb([n, ack]) + (first if isinstance(first, bytes) else bytes(first)),
            *frames[1:]]


#: the unnumbered control messages: client -> worker ``sync`` and ``ack``, worker ->
#: client ``state`` and ``ack``; each says the last message its sender has
CONTROL_KINDS = ("sync", "state", "ack")


def control(kind: str, have: int) -> bytes:
    """The one frame of a control message."""
    return msgpack.packb({"t": kind, "have": have})


def parse_control(frames: list) -> tuple[str, int] | None:
    """``(kind, have)`` when ``frames`` is an unnumbered control message; None else."""
    if len(frames) != 1 or len(frames[0]) > 64:
        return None
    try:
        value = msgpack.unpackb(_raw(frames[0]), raw=False, ext_hook=lambda c, d: None)
    except Exception:  # noqa: BLE001 - not a control message
        return None
    if isinstance(value, dict) and value.get("t") in CONTROL_KINDS and \
            type(value.get("have")) is int:
        return value["t"], value["have"]
    return None


class Sender:
    """Numbers outgoing messages and keeps them until the peer acknowledges them."""

    def __init__(self) -> None:
        self.sent = 0  # the number of the latest message
        self.resent = 0  # how many messages were sent again
        self._unacked: deque = deque()  # (n, frames, bytes)
        self.unacked_bytes = 0  # their bytes in all

    def stamp(self, frames: list, ack: int) -> list:
        """Number ``frames`` as the next message; return the frames to send."""
        self.sent += 1
        stamped = stamp_frames(frames, self.sent, ack)
        size = sum(map(_size, stamped))
        self._unacked.append((self.sent, stamped, size))
        self.unacked_bytes += size
        return stamped

    def acked(self, upto: int) -> None:
        """The peer has every message up to ``upto``: forget them."""
        unacked = self._unacked
        while unacked and unacked[0][0] <= upto:
            self.unacked_bytes -= unacked.popleft()[2]

    def resend(self, have: int) -> list:
        """The messages after ``have`` (the peer's last in-order message), to send
        again in order, as they were (their ``ack`` may be old: acks only grow)."""
        self.acked(have)
        self.resent += len(self._unacked)
        return [frames for _, frames, _ in self._unacked]

    def delivered(self, n: int) -> bool:
        """Whether the peer has acknowledged every message up to number ``n``."""
        unacked = self._unacked
        return not unacked or unacked[0][0] > n

    @property
    def pending(self) -> int:
        """How many sent messages are not acknowledged yet."""
        return len(self._unacked)


class Receiver:
    """Takes numbered messages in order, exactly once."""

    def __init__(self) -> None:
        self.last = 0  # the latest message taken in order
        self._asked_at = -1  # ``last`` when a resend was last requested
        self._unacked_bytes = 0  # taken since this side last acknowledged

    def took(self, frames: list) -> bool:
        """Count a message taken (its frames, envelope cut off); True when
        ``ACK_BYTES`` have come since the last acknowledgement: send an ``ack`` now
        (the sender's window moves on). Anything else that acknowledges (an envelope,
        an ``ack``) calls ``acknowledged``."""
        self._unacked_bytes += sum(map(_size, frames))
        if self._unacked_bytes < ACK_BYTES:
            return False
        self._unacked_bytes = 0
        return True

    def acknowledged(self) -> None:
        """``last`` was just told to the peer."""
        self._unacked_bytes = 0

    def check(self, n: int) -> str:
        """``NEW`` (take it; ``last`` advances), ``DUPLICATE`` or ``GAP`` (drop it)."""
        if n == self.last + 1:
            self.last = n
            return NEW
        return DUPLICATE if n <= self.last else GAP

    def should_ask(self) -> bool:
        """True once per gap: whether to ask the peer for a resend now."""
        if self._asked_at == self.last:
            return False
        self._asked_at = self.last
        return True
