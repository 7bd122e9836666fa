"""The bulk lane: big copies on plain TCP connections straight to the worker
(``gpushare/lane.py``, ``gpushare_server/lane.py``), and its fallback to chunk
messages when a connection fails."""
from __future__ import annotations

import socket
import sys
import threading
import time

import numpy
import pytest

from _servers import ServerProcess

pytestmark = pytest.mark.timeout(120)

MiB = 1 << 20


def _session():
    from gpushare import client
    return client.get_session()


def _lane_info():
    """The lane as the client and the worker see it: (client lane or None, client
    bytes up/down, worker's info)."""
    s = _session()
    lane = s.__dict__.get("_gs_lane")
    return lane or None, list(lane.bytes) if lane else None, s.call("info", None)["lane"]


# --- the pieces, over socket pairs ---------------------------------------------------
@pytest.mark.parametrize("total", [0, 1, 5, 1000, MiB + 7, 3 * MiB])
@pytest.mark.parametrize("n", [1, 2, 3, 8])
def test_parts_cover_every_byte_once(total, n):
    from gpushare.lane import split
    ranges = split(total, n)
    assert len(ranges) == n
    assert ranges[0][0] == 0 and ranges[-1][1] == total
    for (_, end), (start, _) in zip(ranges, ranges[1:]):
        assert end == start
    assert all(start <= end for start, end in ranges)


def _pairs(n):
    pairs = [socket.socketpair() for _ in range(n)]
    for a, b in pairs:
        a.settimeout(20)
        b.settimeout(20)
    return [a for a, _ in pairs], [b for _, b in pairs]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_parts_arrive_whole_and_in_place(n):
    from gpushare import lane
    senders, receivers = _pairs(n)
    data = numpy.random.default_rng(n).integers(0, 255, 5 * MiB + 11, dtype=numpy.uint8)
    out = numpy.zeros_like(data)
    t = threading.Thread(target=lane.send_parts, args=(senders, memoryview(data)))
    t.start()
    lane.recv_parts(receivers, memoryview(out))
    t.join()
    numpy.testing.assert_array_equal(out, data)
    lane.close(senders + receivers)


def test_a_connection_closed_midway_fails_the_whole_copy_at_once():
    """One part's connection ends early: the copy raises LaneError, and every other
    part returns instead of waiting for bytes that will not come."""
    from gpushare import lane
    senders, receivers = _pairs(2)
    senders[0].sendall(b"x" * 1000)   # part 0 gets a little, part 1 nothing...
    senders[1].close()                # ...and its sender goes away
    out = memoryview(bytearray(4 * MiB))
    with pytest.raises(lane.LaneError):
        lane.recv_parts(receivers, out)
    lane.close(senders + receivers)


def _tcp_pair(timeout):
    """Two ends of a loopback TCP connection (splicing and the reader's mark are for
    TCP only)."""
    listener = socket.create_server(("127.0.0.1", 0))
    a = socket.create_connection(listener.getsockname(), timeout=20)
    b, _ = listener.accept()
    listener.close()
    a.settimeout(timeout)
    b.settimeout(20)
    return a, b


linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="vmsplice and SO_RCVLOWAT as Linux has them")


@linux_only
@pytest.mark.parametrize("readonly", [False, True])
@pytest.mark.parametrize("timeout", [None, 20])   # (a socket with a timeout: non-blocking)
def test_spliced_pages_arrive_whole(readonly, timeout):
    """A part handed over as pages (an odd size, at an odd address, read-only or
    not, on a blocking socket or one with a time limit) arrives byte for byte."""
    from gpushare import lane
    assert lane.splicing()
    data = numpy.random.default_rng(7).integers(0, 255, 9 * MiB + 14, dtype=numpy.uint8)
    view = memoryview(data.tobytes() if readonly else data)[3:]   # (not page-aligned)
    a, b = _tcp_pair(timeout)
    out = numpy.zeros(len(view), numpy.uint8)
    used = []
    t = threading.Thread(target=lambda: used.append(lane.splice_part(a, view)))
    t.start()
    lane.recv_part(b, memoryview(out))
    t.join()
    assert used == [True]
    numpy.testing.assert_array_equal(out, data[3:])
    lane.close([a, b])


@linux_only
def test_a_tail_below_the_readers_mark_arrives_and_the_mark_is_put_back():
    """The reader asks to be woken only once LOWAT bytes are there; a part whose last
    bytes are fewer still completes, and afterwards one byte wakes it (``DONE``)."""
    from gpushare import lane
    a, b = _tcp_pair(20)
    data = numpy.random.default_rng(8).integers(0, 255, 2 * MiB + 100, dtype=numpy.uint8)
    out = numpy.zeros_like(data)
    t = threading.Thread(target=lane.send_part, args=(a, memoryview(data), True))
    t.start()
    lane.recv_part(b, memoryview(out))
    t.join()
    numpy.testing.assert_array_equal(out, data)
    assert b.getsockopt(socket.SOL_SOCKET, socket.SO_RCVLOWAT) == 1
    a.sendall(lane.DONE)
    lane.recv_done(b)
    lane.close([a, b])


@linux_only
def test_a_reader_gets_bytes_that_stop_below_its_mark():
    """The sender stops with fewer than LOWAT bytes of the part sent, and only goes
    on once the reader has them: the reader must not sleep waiting for its mark."""
    from gpushare import lane
    a, b = _tcp_pair(20)
    total = 4 * MiB
    first = lane.SLICE + 1000          # the reader's second read finds 1000 bytes
    data = numpy.random.default_rng(9).integers(0, 255, total, dtype=numpy.uint8)
    out = numpy.zeros_like(data)
    t = threading.Thread(target=lane.recv_part, args=(b, memoryview(out)))
    t.start()
    a.sendall(memoryview(data)[:first])
    deadline = time.monotonic() + 20
    while not out[first - 1000:first].any() and time.monotonic() < deadline:
        time.sleep(0.001)                          # (waiting on what the reader wrote)
    assert out[first - 1000:first].any(), "the reader sat on bytes below its mark"
    a.sendall(memoryview(data)[first:])
    t.join()
    numpy.testing.assert_array_equal(out, data)
    lane.close([a, b])


def test_splicing_can_be_turned_off(monkeypatch):
    from gpushare import lane
    monkeypatch.setenv("GPUSHARE_LANE_SPLICE", "0")
    monkeypatch.setattr(lane, "_VMSPLICE", False)      # (looked up again)
    assert not lane.splicing()
    a, b = _tcp_pair(20)
    assert lane.splice_part(a, memoryview(b"x" * (2 * MiB))) is False
    lane.close([a, b])


def test_the_worker_keeps_only_connections_with_the_token():
    from gpushare import lane
    from gpushare_server.lane import Listener
    listener = Listener("tcp://127.0.0.1:5555", 2)
    stranger = socket.create_connection(("127.0.0.1", listener.port), timeout=5)
    stranger.sendall(b"\x00" * lane.TOKEN_BYTES + b"\x00")       # a wrong token
    late = socket.create_connection(("127.0.0.1", listener.port), timeout=5)
    socks = lane.connect("127.0.0.1", listener.port, listener.token, 2, 5.0)
    got = listener.accept(timeout=5.0)
    try:
        assert len(got) == 2
        for k, (mine, theirs) in enumerate(zip(socks, got)):      # in the client's order
            mine.sendall(bytes([k]))
            assert theirs.recv(1) == bytes([k])
        assert stranger.recv(1) == b""                           # dropped
        # and nobody can connect any more: the listener is closed
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", listener.port), timeout=2)
    finally:
        lane.close(socks + got + [stranger, late])


def test_no_connections_no_lane():
    from gpushare.lane import LaneError
    from gpushare_server.lane import Listener
    listener = Listener("tcp://127.0.0.1:5555", 2)
    with pytest.raises(LaneError):
        listener.accept(timeout=0.3)


def test_offered_only_over_plaintext_tcp(monkeypatch):
    from gpushare_server.lane import allowed
    monkeypatch.delenv("GPUSHARE_LANES", raising=False)
    assert allowed("tcp://127.0.0.1:4000", curve=False) == 2
    assert allowed("tcp://127.0.0.1:4000", curve=True) == 0       # encrypted: ZeroMQ
    assert allowed("ipc:///tmp/x", curve=False) == 0               # same host: the ring
    assert allowed(None, curve=False) == 0
    monkeypatch.setenv("GPUSHARE_LANES", "0")
    assert allowed("tcp://127.0.0.1:4000", curve=False) == 0
    monkeypatch.setenv("GPUSHARE_LANES", "3")
    assert allowed("tcp://127.0.0.1:4000", curve=False) == 3


# --- through a real server -----------------------------------------------------------
@pytest.fixture
def lane_cp(cp, monkeypatch):
    """Two connections (on loopback the default is one: ``test_one_connection_...``),
    so that every copy here moves parts in parallel."""
    monkeypatch.setenv("GPUSHARE_LANES", "2")
    monkeypatch.delenv("GPUSHARE_SERVER_KEY", raising=False)
    monkeypatch.delenv("GPUSHARE_CLIENT_KEY", raising=False)
    return cp


def test_streams_wanted_by_default_one_to_loopback_two_elsewhere(monkeypatch):
    from gpushare.lane import streams_wanted
    monkeypatch.delenv("GPUSHARE_LANES", raising=False)
    assert [streams_wanted(h) for h in ("127.0.0.1", "127.3.4.5", "::1", "localhost")] \
        == [1, 1, 1, 1]
    assert [streams_wanted(h) for h in ("10.0.0.7", "gpubox", "fe80::1", None)] == [2] * 4
    monkeypatch.setenv("GPUSHARE_LANES", "3")
    assert streams_wanted("127.0.0.1") == 3 and streams_wanted("gpubox") == 3


def test_one_connection_to_a_loopback_server_by_default(cp, monkeypatch):
    """The default on loopback, both ways, with the worker's pages handed over (a
    download's ``DONE`` from the client) and an array changed right after each copy."""
    monkeypatch.delenv("GPUSHARE_LANES", raising=False)
    monkeypatch.delenv("GPUSHARE_SERVER_KEY", raising=False)
    monkeypatch.delenv("GPUSHARE_CLIENT_KEY", raising=False)
    host = numpy.random.default_rng(10).random(3 * MiB)          # 24 MiB
    d = cp.asarray(host)
    for k in range(3):
        back = d.get()
        d += 1                                                   # changes the pages sent
        numpy.testing.assert_array_equal(back, host + k)
    src = host.copy()
    d.set(src)
    src[:] = -1                                                  # changes the pages sent
    numpy.testing.assert_array_equal(d.get(), host)
    lane, (up, down), worker = _lane_info()
    assert lane is not None and len(lane.socks) == 1 and worker["streams"] == 1
    assert up >= 2 * host.nbytes and down >= 4 * host.nbytes


def test_big_copies_take_the_lane_and_come_back_identical(lane_cp):
    cp = lane_cp
    rng = numpy.random.default_rng(0)
    cases = [
        rng.random(1_234_567),                                   # 9.4 MiB: odd size
        numpy.asfortranarray(rng.random((1000, 700))),           # F order
        (rng.random((300, 400, 5)) + 1j * rng.random((300, 400, 5))).astype(numpy.complex64),
        rng.random(5 * MiB) > 0.5,                               # bool
        rng.integers(-9, 9, (2048, 4096), dtype=numpy.int16)[:, ::2],  # not contiguous
    ]
    moved = 0
    for host in cases:
        d = cp.asarray(host)
        back = d.get()
        numpy.testing.assert_array_equal(back, host)
        assert back.dtype == host.dtype
        numpy.testing.assert_array_equal((d * 1).get(), host * 1)
        moved += host.nbytes
    f = numpy.asfortranarray(rng.random((2000, 400)))
    df = cp.asarray(f)
    back = df.get(order="A")                                     # in its own order
    assert back.flags.f_contiguous and not back.flags.c_contiguous
    numpy.testing.assert_array_equal(back, f)
    numpy.testing.assert_array_equal(df[::2, 1:].get(), f[::2, 1:])
    df.set(f * 3)                                                # set(): into the array
    out = numpy.empty_like(f)
    assert df.get(out=out) is out                                # get(out=): into ours
    numpy.testing.assert_array_equal(out, f * 3)
    lane, (up, down), worker = _lane_info()
    assert lane is not None and worker["active"] and worker["streams"] == 2
    assert up >= moved and down >= moved
    assert worker["bytes_in"] == up and worker["bytes_out"] == down


def test_small_copies_stay_on_chunks_and_calls(lane_cp):
    cp = lane_cp
    big = numpy.arange(2 * MiB, dtype=numpy.float32)             # 8 MiB: opens the lane
    numpy.testing.assert_array_equal(cp.asarray(big).get(), big)
    before = _lane_info()[1:]
    for host in (numpy.zeros(0), numpy.arange(1000), numpy.ones(3 * MiB // 8)):
        numpy.testing.assert_array_equal(cp.asarray(host).get(), host)
    assert _lane_info()[1:] == before


def test_a_copy_behind_queued_calls_and_a_failed_one(lane_cp):
    """The upload's announce is ordered after the calls before it; a copy into an
    array whose creation failed is read and dropped, and the lane goes on."""
    cp = lane_cp
    host = numpy.random.default_rng(2).random(MiB)               # 8 MiB
    numpy.testing.assert_array_equal(cp.asarray(host).get(), host)   # the lane is open
    x = cp.zeros(1000)
    for _ in range(200):
        x = x + 1                                                # queued, not sent yet
    assert _session()._queue
    a = cp.asarray(host)                                         # flushes them, then copies
    y = a * 2 + x[0]
    numpy.testing.assert_array_equal(y.get(), host * 2 + 200)
    lane, (up, _), worker = _lane_info()
    assert lane is not None and up >= 2 * host.nbytes


def test_a_lane_broken_during_an_upload_loses_nothing(lane_cp):
    cp = lane_cp
    rng = numpy.random.default_rng(3)
    host = rng.random(2 * MiB)                                   # 16 MiB
    d = cp.asarray(host)                                         # the lane opens
    numpy.testing.assert_array_equal(d.get(), host)
    lane = _lane_info()[0]
    assert lane is not None
    lane.socks[1].shutdown(socket.SHUT_WR)                       # the worker sees it end
    new = rng.random(2 * MiB)
    d.set(new)                                                   # fails on the lane...
    numpy.testing.assert_array_equal(d.get(), new)               # ...and came as chunks
    assert _lane_info()[0] is None and not _lane_info()[2]["active"]
    numpy.testing.assert_array_equal(cp.asarray(host).get(), host)   # chunks from now on


def test_a_lane_broken_during_a_download_loses_nothing(lane_cp):
    cp = lane_cp
    rng = numpy.random.default_rng(4)
    host = rng.random(2 * MiB)
    d = cp.asarray(host)
    numpy.testing.assert_array_equal(d.get(), host)              # the lane opens
    lane = _lane_info()[0]
    assert lane is not None
    lane.socks[1].close()                 # its part cannot be read: the copy fails here
    out = numpy.zeros_like(host)
    assert d.get(out=out) is out                                 # asked again, as chunks
    numpy.testing.assert_array_equal(out, host)
    assert _lane_info()[0] is None and not _lane_info()[2]["active"]
    numpy.testing.assert_array_equal((d + 1).get(), host + 1)


def test_a_client_can_decline_the_lane(lane_cp, monkeypatch):
    monkeypatch.setenv("GPUSHARE_LANES", "0")
    host = numpy.random.default_rng(5).random(MiB)
    numpy.testing.assert_array_equal(lane_cp.asarray(host).get(), host)
    lane, _, worker = _lane_info()
    assert lane is None and not worker["active"] and worker["bytes_in"] == 0


def test_an_upload_into_memory_over_the_quota_is_dropped_and_the_lane_goes_on(monkeypatch):
    """The array's creation fails (memory limit): the worker reads the lane's bytes
    and drops them, the error surfaces as with chunks, and the next copy works."""
    from gpushare import client, errors
    srv = ServerProcess("--memory-limit", "24MiB")
    try:
        monkeypatch.setenv("GPUSHARE_SERVER", srv.address)
        monkeypatch.delenv("GPUSHARE_LANES", raising=False)
        client.reset_session()
        import gpushare.cupy as cp
        host = numpy.random.default_rng(6).random(MiB)            # 8 MiB
        a = cp.asarray(host)                                      # the lane opens
        numpy.testing.assert_array_equal(a.get(), host)
        with pytest.raises(errors.OutOfMemoryError):
            b = cp.asarray(numpy.ones(4 * MiB))                   # 32 MiB: over the limit
            b.get()
        numpy.testing.assert_array_equal((a * 2).get(), host * 2)
        a.set(host + 1)
        numpy.testing.assert_array_equal(a.get(), host + 1)
        lane, _, worker = _lane_info()
        assert lane is not None and worker["active"]
    finally:
        client.reset_session()
        srv.stop()


def test_an_upload_waits_for_a_busy_worker(lane_cp):
    """The worker is still computing when the client writes an upload bigger than the
    sockets' buffers: the client's writes wait (it keeps the session alive meanwhile),
    and the copy lands once the worker reaches it."""
    cp = lane_cp
    rng = numpy.random.default_rng(7)
    small = rng.random(MiB)
    numpy.testing.assert_array_equal(cp.asarray(small).get(), small)   # the lane is open
    a = cp.asarray(rng.random((1200, 1200)))
    b = a
    for _ in range(6):
        b = b @ a * 1e-3                                          # pipelined: ~1 s of work
    host = rng.random(4 * MiB)                                    # 32 MiB
    d = cp.asarray(host)
    numpy.testing.assert_array_equal(d.get(), host)
    assert numpy.isfinite(float(b[0, 0]))
    lane, (up, _), worker = _lane_info()
    assert lane is not None and worker["active"] and up >= small.nbytes + host.nbytes


class _DeviceLike:
    """A backend whose arrays the lane cannot reach in place (as on a GPU: no
    ``host_bytes``): copies go through a buffer per connection, ``write_bytes`` and
    ``read_bytes`` (the CPU backend's, on NumPy arrays)."""

    def __init__(self):
        from gpushare_server.backends.cpu import CpuBackend
        cpu = CpuBackend()
        self.write_bytes, self.read_bytes = cpu.write_bytes, cpu.read_bytes

    def synchronize(self):
        pass


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_backend_without_host_memory_copies_through_buffers(n):
    from gpushare import lane
    from gpushare_server.lane import receive_into, send_from
    backend = _DeviceLike()
    assert not hasattr(backend, "host_bytes")
    rng = numpy.random.default_rng(n)
    source = numpy.asfortranarray(rng.random((700, 1100)))        # 5.9 MiB, F order
    target = numpy.zeros_like(source, order="F")
    a, b = _pairs(n)
    # the worker sends a download from ``source``, then receives it back into ``target``
    t = threading.Thread(target=send_from, args=(a, backend, source))
    t.start()
    back = numpy.empty(source.nbytes, numpy.uint8)
    lane.recv_parts(b, memoryview(back))
    t.join()
    numpy.testing.assert_array_equal(back, source.reshape(-1, order="A").view(numpy.uint8))
    t = threading.Thread(target=lane.send_parts, args=(b, memoryview(back)))
    t.start()
    receive_into(a, backend, target, source.nbytes)
    t.join()
    numpy.testing.assert_array_equal(target, source)
    # and an upload nothing can take is read and dropped, leaving the lane in step
    t = threading.Thread(target=lane.send_parts, args=(b, memoryview(back)))
    t.start()
    receive_into(a, backend, None, source.nbytes)
    t.join()
    b[0].sendall(b"!")
    assert a[0].recv(1) == b"!"
    lane.close(a + b)


def test_a_long_download_keeps_the_session_alive(lane_cp, monkeypatch):
    """While a download's parts come in, the waiting thread keeps handling the
    session (replies, pings): a slow copy (here: held back 2.5 s) ends well."""
    from gpushare import lane
    cp = lane_cp
    host = numpy.random.default_rng(8).random(MiB)
    d = cp.asarray(host)
    numpy.testing.assert_array_equal(d.get(), host)              # the lane is open
    real, checks = lane.recv_parts, []
    session = _session()
    watch = session._watch

    def counted_watch():
        check = watch()

        def counted(*args, **kwargs):
            checks.append(1)
            return check(*args, **kwargs)
        return counted

    def slow(socks, flat):
        import time
        time.sleep(2.5)
        real(socks, flat)
    monkeypatch.setattr(lane, "recv_parts", slow)
    monkeypatch.setattr(session, "_watch", counted_watch)
    numpy.testing.assert_array_equal(d.get(), host)
    assert len(checks) >= 2
    assert _lane_info()[0] is not None                           # still on the lane
