"""The sequence-number layer on its own (``gpushare/reliable.py`` is sans-IO)."""
from __future__ import annotations

import msgpack
import pytest

from gpushare.reliable import (DUPLICATE, GAP, NEW, Receiver, Sender, split_envelope,
                               stamp_frames)


def test_envelope_round_trip_and_plain_messages_pass_untouched() -> None:
    header = msgpack.packb({"t": "batch", "n": 1})
    for n, ack in ((1, 0), (127, 128), (70_000, 2**33), (2**63, 5)):
        stamped = stamp_frames([header, b"calls"], n, ack)
        envelope, frames = split_envelope(stamped)
        assert envelope == (n, ack)
        assert frames[0] == header and frames[0].bytes == header and frames[1] == b"calls"
        assert bytes(frames[0].buffer) == header
    plain = [header, b"calls"]
    assert split_envelope(plain) == (None, plain)
    for odd in ([b""], [b"\x92"], [b"\x92\xc0\x01rest"], [b"\x92\x00\x00"], []):
        assert split_envelope(odd)[0] is None  # not an envelope: left for the decoder


def test_receiver_takes_each_message_once_in_order() -> None:
    r = Receiver()
    assert [r.check(n) for n in (1, 2, 2, 4, 3, 1, 4)] == [NEW, NEW, DUPLICATE, GAP, NEW,
                                                          DUPLICATE, NEW]
    assert r.last == 4
    r.check(6)
    assert r.should_ask() and not r.should_ask()  # once per gap
    assert r.check(5) == NEW and r.check(7) == GAP and r.should_ask()  # a new gap


def test_sender_keeps_until_acknowledged_and_resends_in_order() -> None:
    s = Sender()
    sent = [s.stamp([msgpack.packb({"i": i})], ack=0) for i in range(5)]
    assert [split_envelope(f)[0][0] for f in sent] == [1, 2, 3, 4, 5]
    s.acked(2)
    assert s.pending == 3
    again = s.resend(3)                      # the peer has 1..3: 4 and 5 go again, as sent
    assert again == sent[3:] and s.pending == 2 and s.resent == 2
    s.acked(5)
    assert s.pending == 0 and s.resend(5) == []


@pytest.mark.parametrize("lost", [{2}, {1, 4}, {3, 4, 5}, set()])
def test_go_back_n_delivers_everything_exactly_once(lost: set) -> None:
    """A simulated link that loses some messages once: after the receiver's state and
    the sender's resend, everything arrives in order, nothing twice."""
    s, r, applied = Sender(), Receiver(), []
    wire = [s.stamp([msgpack.packb(i)], 0) for i in range(1, 7)]
    for frames in wire:
        (n, _), body = split_envelope(frames)
        if n in lost:
            continue
        if r.check(n) == NEW:
            applied.append(msgpack.unpackb(body[0]))
    for frames in s.resend(r.last):         # the "state" answer: resend after r.last
        (n, _), body = split_envelope(frames)
        if r.check(n) == NEW:
            applied.append(msgpack.unpackb(body[0]))
    assert applied == [1, 2, 3, 4, 5, 6]


def test_control_messages() -> None:
    from gpushare.reliable import control, parse_control
    for kind in ("sync", "state", "ack"):
        assert parse_control([control(kind, 41)]) == (kind, 41)
    header = msgpack.packb({"t": "batch", "n": 0})
    for other in ([header], [control("ack", 1), b""], [msgpack.packb({"t": "ack"})],
                  [msgpack.packb({"t": "ack", "have": "1"})], [b"\xc1"], [b"x" * 100]):
        assert parse_control(other) is None
