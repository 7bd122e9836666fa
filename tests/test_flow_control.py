"""Flow control between a session's client and its worker (``gpushare/reliable.py``):
the worker sends no more than ``WINDOW`` unacknowledged bytes, clients acknowledge as
they read, and the shared broker holds no more than ``MAX_AHEAD`` bytes of a client's
messages for its worker. So a client that stops reading, or one that sends on
regardless of what its worker takes, cannot make the broker (every tenant's process)
hold whatever it asks for."""
from __future__ import annotations

import os

import msgpack
import numpy
import pytest
import zmq

from _servers import ServerProcess

pytestmark = pytest.mark.timeout(120)

MiB = 1 << 20


class RawClient:
    """A session on the broker's path, by hand: numbered batches, and replies read (and
    acknowledged) only when the test says so."""

    def __init__(self, address: str) -> None:
        from gpushare.protocol import PROTOCOL_VERSION
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.setsockopt(zmq.RCVHWM, 2)  # (ZeroMQ holds little for us: the rest waits)
        self.sock.setsockopt(zmq.ROUTING_ID, os.urandom(16))
        self.sock.connect(address)
        self.sent = 0
        self.last = 0  # the last numbered message taken from the worker
        self.sock.send_multipart([msgpack.packb({"t": "hello", "v": PROTOCOL_VERSION})])
        assert self.sock.poll(30_000)
        assert msgpack.unpackb(self.sock.recv_multipart()[0])["t"] == "welcome"

    def batch(self, calls: list, *extra: bytes) -> None:
        from gpushare.protocol import Encoder
        from gpushare.reliable import stamp_frames
        enc = Encoder(first_frame=2)
        body = b"".join(enc.pack(c) for c in calls)
        header = msgpack.packb({"t": "batch", "n": len(calls)})
        self.sent += 1
        self.sock.send_multipart(stamp_frames([header, body, *enc.frames, *extra],
                                              self.sent, self.last))

    def read(self, quiet_ms: int) -> tuple[int, list]:
        """Take what comes until nothing has come for ``quiet_ms``: (bytes, the
        unnumbered messages' first frames)."""
        from gpushare.reliable import split_envelope
        total, plain = 0, []
        while self.sock.poll(quiet_ms):
            envelope, frames = split_envelope(self.sock.recv_multipart())
            if envelope is None:
                plain.append(msgpack.unpackb(frames[0], raw=False))
                continue
            assert envelope[0] == self.last + 1  # in order, none lost
            self.last = envelope[0]
            total += sum(len(f) for f in frames)
        return total, plain

    def ack(self) -> None:
        from gpushare.reliable import control
        self.sock.send_multipart([control("ack", self.last)])

    def close(self) -> None:
        self.sock.close(0)
        self.ctx.term()


def test_a_client_that_stops_reading_is_sent_one_window():
    """Twelve 4 MiB downloads asked for at once and not read: the worker sends one
    window's worth and holds the rest back; each acknowledgement lets more come, and
    every byte arrives, in order."""
    from gpushare.protocol import HandleRef
    from gpushare.reliable import WINDOW
    srv = ServerProcess("--memory-limit", "64MiB")
    raw = RawClient(srv.address)
    try:
        raw.batch([[1, "call", "cupy.ones", [MiB // 2], {}, 100, False]])  # 4 MiB
        raw.batch([[2 + i, "download", None, [HandleRef(100)], {}, None, True]
                   for i in range(12)])
        first, _ = raw.read(1500)
        assert 0 < first <= WINDOW + 2 * MiB  # one window (and the message it ended in)
        total, rounds = first, 0
        while total < 12 * 4 * MiB and rounds < 40:
            raw.ack()
            more, _ = raw.read(1500)
            assert 0 < more <= WINDOW + 2 * MiB
            total, rounds = total + more, rounds + 1
        assert 12 * 4 * MiB <= total < 12 * 4 * MiB + MiB  # all of it (and the replies)
    finally:
        raw.close()
        srv.stop()


def test_a_client_far_ahead_of_its_busy_worker_loses_only_its_session():
    """A worker busy in an endless kernel; its client sends on through the broker.
    Past MAX_AHEAD bytes the broker ends that session (a ``fatal`` naming why) instead
    of holding them all; another session goes on."""
    from gpushare import client
    from gpushare.cupy import _ndarray
    from gpushare.protocol import HandleRef
    from gpushare_server.broker import MAX_AHEAD
    srv = ServerProcess("--memory-limit", "64MiB", "--max-call-seconds", "60")
    raw = RawClient(srv.address)
    other = client.Session(srv.address, timeout=20)
    _ndarray.install(other)
    try:
        kept = other.call("call", "cupy.arange", (5,))
        raw.batch([[1, "call", "cupy.ones", [4], {"dtype": "float32"}, 100, False],
                   [2, "call", "cupy.RawKernel", [
                       'extern "C" __global__ void spin(float* x) '
                       '{ volatile float* v = x; while (v[0] > 0) { } }', "spin"], {}, 101,
                    False],
                   [3, "method", "__call__", [HandleRef(101), (1,), (1,), (HandleRef(100),)],
                    {}, None, False]])
        junk = numpy.zeros(4 * MiB, numpy.uint8)
        fatal = None
        for i in range(MAX_AHEAD // junk.nbytes + 8):
            raw.batch([[4 + i, "call", "cupy.asarray", [junk], {}, None, False]])
            _, plain = raw.read(0)
            fatal = next((m for m in plain if m.get("t") == "fatal"), None)
            if fatal is not None:
                break
        if fatal is None:
            _, plain = raw.read(5000)
            fatal = next((m for m in plain if m.get("t") == "fatal"), None)
        assert fatal is not None and "ahead of what its worker had taken" in \
            fatal["error"][1]
        assert other.call("method", "sum", (kept,)) == 10
    finally:
        other.close()
        raw.close()
        srv.stop()
