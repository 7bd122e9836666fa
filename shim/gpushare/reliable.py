"""Sequence numbers that let a session survive a dropped connection (sans-IO).

ZeroMQ reconnects a broken TCP connection by itself, but whatever was in flight when
it broke (in a kernel buffer, in a middlebox) is gone, and a ROUTER silently drops
what it sends to a peer that is away. So every message of a session's data stream
(client -> worker: call batches and upload chunks; worker -> client: replies and
download chunks) is numbered, and each side keeps what it sent until the other side
acknowledges it:

* A numbered message is ``[envelope, *frames]`` where ``envelope`` is the msgpack
  array ``[n, ack]``: ``n`` numbers this message (1, 2, 3... per direction) and ``ack``
  is the highest number the sender has *received in order* from the other side. No
  other message of the protocol starts with a two-element msgpack array (they are
  maps), so the envelope is recognisable on its own.
* A receiver takes message ``n`` only when it is the next one (``last + 1``). A
  duplicate (``n <= last``) is dropped: it was applied already. A message after a gap
  is dropped too and the receiver asks for a resend (go-back-N): calls run in order,
  and exactly once.
* Recovery: the client sends ``{"t": "sync", "have": last_reply}`` when its connection
  to the worker comes back, when replies show a gap, or after a silence; the worker
  answers ``{"t": "state", "have": last_message}`` and resends its unacknowledged
  replies after ``have``; the client resends its unacknowledged messages after the
  worker's ``have``. The worker also sends a ``state`` by itself when it sees a gap.

Unacknowledged messages are kept by reference (zero-copy frames stay views of the
data they were sent from); each message that arrives acknowledges the other side's.
"""
from __future__ import annotations

from collections import deque
from typing import Any

import msgpack

__all__ = ["NEW", "DUPLICATE", "GAP", "Sender", "Receiver", "split_envelope"]

NEW, DUPLICATE, GAP = "new", "duplicate", "gap"

_ENVELOPE_FIRST = 0x92  # msgpack fixarray of two elements
_ENVELOPE_MAX = 19      # two uint64s and the array byte


def _raw(frame: Any) -> bytes:
    if isinstance(frame, bytes):
        return frame
    buffer = getattr(frame, "bytes", None)  # a zmq.Frame
    return buffer if isinstance(buffer, bytes) else bytes(frame)


def split_envelope(frames: list) -> tuple[tuple[int, int] | None, list]:
    """``((n, ack), rest)`` for a numbered message, ``(None, frames)`` otherwise."""
    if not frames:
        return None, frames
    first = frames[0]
    size = first.nbytes if isinstance(first, memoryview) else len(first)
    if size > _ENVELOPE_MAX or size < 3:
        return None, frames
    raw = _raw(first)
    if raw[0] != _ENVELOPE_FIRST:
        return None, frames
    try:
        n, ack = msgpack.unpackb(raw)
    except Exception:  # noqa: BLE001 - not an envelope after all
        return None, frames
    if type(n) is not int or type(ack) is not int or n < 1 or ack < 0:
        return None, frames
    return (n, ack), frames[1:]


class Sender:
    """Numbers outgoing messages and keeps them until the peer acknowledges them."""

    def __init__(self) -> None:
        self.sent = 0  # the number of the latest message
        self.resent = 0  # how many messages were sent again
        self._unacked: deque = deque()  # (n, frames)

    def stamp(self, frames: list, ack: int) -> list:
        """Number ``frames`` as the next message; return the frames to send."""
        self.sent += 1
        self._unacked.append((self.sent, frames))
        return [msgpack.packb([self.sent, ack]), *frames]

    def acked(self, upto: int) -> None:
        """The peer has every message up to ``upto``: forget them."""
        unacked = self._unacked
        while unacked and unacked[0][0] <= upto:
            unacked.popleft()

    def resend(self, have: int, ack: int) -> list:
        """The messages after ``have`` (the peer's last in-order message), stamped
        anew with the current ``ack``, to send again in order."""
        self.acked(have)
        self.resent += len(self._unacked)
        return [[msgpack.packb([n, ack]), *frames] for n, frames in self._unacked]

    @property
    def pending(self) -> int:
        """How many sent messages are not acknowledged yet."""
        return len(self._unacked)


class Receiver:
    """Takes numbered messages in order, exactly once."""

    def __init__(self) -> None:
        self.last = 0  # the latest message taken in order
        self._asked_at = -1  # ``last`` when a resend was last requested

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

    def forget_ask(self) -> None:
        """Allow asking again (a timeout passed without the resend arriving)."""
        self._asked_at = -1
