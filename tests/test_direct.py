"""The direct data path: a session's calls go straight to its worker's socket."""
from __future__ import annotations

import threading

import numpy
import pytest
import zmq

from _servers import ServerProcess, wait_for

pytestmark = pytest.mark.timeout(90)


def _session(address):
    from gpushare import client
    from gpushare.cupy import _ndarray
    s = client.Session(address)
    _ndarray.install(s)
    return s


def test_calls_and_copies_take_the_direct_path(server):
    s = _session(server.address)
    try:
        assert s.info["direct"] and s._data is not None
        host = numpy.random.default_rng(0).random(300_000)   # streamed: > 1 MiB
        a = s.call("upload", None, (host,), {"order": "C"})
        numpy.testing.assert_array_equal(s.call("download", None, (a,)), host)
        assert float(s.call("method", "sum", (a,)).get()) == pytest.approx(host.sum())
    finally:
        s.close()


def test_a_busy_polling_worker_still_answers_its_broker(monkeypatch):
    """Round trips back to back, the worker (``--spin-us``) and the client
    (``GPUSHARE_SPIN_US``) both polling before they sleep: every answer is exact, and
    meanwhile the worker still gives the broker fresh figures for ``gpushare status``
    and stops when the server stops."""
    from gpushare import client
    from gpushare.cli import query_status
    monkeypatch.setattr(client, "SPIN_S", 300e-6)
    srv = ServerProcess("--spin-us", "300")
    try:
        s = _session(srv.address)
        x = s.call("call", "cupy.arange", (1000,))
        stop, done, failures = threading.Event(), [0], []

        def round_trips() -> None:
            try:
                while not stop.is_set():
                    total = s.call("method", "__float__", (s.call("method", "sum", (x,)),))
                    assert total == 499500.0
                    done[0] += 1
            except BaseException as exc:  # noqa: BLE001 - reported below
                failures.append(exc)
        loop = threading.Thread(target=round_trips)
        loop.start()
        try:
            wait_for(lambda: done[0] >= 300 or failures, timeout=30)
            for _ in range(3):  # each answered while the loop keeps the worker busy
                (mine,) = query_status(srv.address, timeout=10, wait=5)["sessions"]
                assert not mine["stale"] and mine["calls"] >= 300, mine
        finally:
            stop.set()
            loop.join(30)
        assert not failures and done[0] >= 300
        s.close()
    finally:
        assert srv.stop() == 0


def test_without_direct_everything_goes_through_the_broker(monkeypatch):
    srv = ServerProcess("--no-direct")
    try:
        s = _session(srv.address)
        try:
            assert s.info["direct"] is None and s._data is None
            host = numpy.arange(500_000, dtype=numpy.float32)
            a = s.call("upload", None, (host,), {"order": "C"})
            numpy.testing.assert_array_equal(s.call("download", None, (a,)), host)
        finally:
            s.close()
    finally:
        srv.stop()


def test_client_can_decline_the_direct_path(server, monkeypatch):
    monkeypatch.setenv("GPUSHARE_DIRECT", "0")
    s = _session(server.address)
    try:
        assert s._data is None
        assert int(s.call("call", "cupy.arange", (5,)).sum().get()) == 10
    finally:
        s.close()


def test_a_stranger_on_the_worker_port_is_ignored(server):
    s = _session(server.address)
    ctx = zmq.Context()
    stranger = ctx.socket(zmq.DEALER)
    stranger.setsockopt(zmq.LINGER, 0)
    try:
        a = s.call("call", "cupy.arange", (5,))
        endpoint = s.info["direct"]["endpoint"]
        host = s.address.partition("://")[2].rsplit(":", 1)[0]
        stranger.connect(f"tcp://{host}:{endpoint.rsplit(':', 1)[1]}")
        # a well-formed batch naming the session's handle, without the session's token
        import msgpack
        from gpushare.protocol import Encoder, HandleRef
        call = Encoder().pack([1, "method", "sum", [HandleRef(a._gs_id)], {}, None, True])
        stranger.send_multipart([msgpack.packb({"t": "batch", "n": 1}), call])
        assert not stranger.poll(1500)            # no answer, no data
        assert int(s.call("method", "sum", (a,)).get()) == 10   # the session is unharmed
    finally:
        stranger.close()
        ctx.term()
        s.close()


@pytest.mark.parametrize("password", [None, b"0" * 32])
def test_the_worker_port_refuses_a_strangers_handshake(server, password):
    """A plaintext worker's socket asks for its session's token in the handshake
    (ZMTP PLAIN, checked by ZAP), so a stranger's messages are never even read."""
    from zmq.utils.monitor import recv_monitor_message
    s = _session(server.address)
    ctx = zmq.Context()
    stranger = ctx.socket(zmq.DEALER)
    stranger.setsockopt(zmq.LINGER, 0)
    if password is not None:
        stranger.plain_username, stranger.plain_password = b"gpushare", password
    monitor = stranger.get_monitor_socket()
    try:
        endpoint = s.info["direct"]["endpoint"]
        host = s.address.partition("://")[2].rsplit(":", 1)[0]
        stranger.connect(f"tcp://{host}:{endpoint.rsplit(':', 1)[1]}")
        failed = zmq.EVENT_HANDSHAKE_FAILED_AUTH if password else \
            zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | \
            zmq.EVENT_DISCONNECTED
        seen = []
        while monitor.poll(10_000):
            event = recv_monitor_message(monitor)["event"]
            seen.append(event)
            assert event != zmq.EVENT_HANDSHAKE_SUCCEEDED
            if event & failed:
                break
        assert seen and seen[-1] & failed, seen
        assert int(s.call("call", "cupy.arange", (5,)).sum().get()) == 10  # unharmed
    finally:
        stranger.disable_monitor()
        monitor.close(0)
        stranger.close()
        ctx.term()
        s.close()


def test_killed_server_is_a_connection_error_on_the_direct_path_too():
    """The worker leaves with its broker; the client's next call fails in bounded time."""
    import os
    import time

    srv = ServerProcess()
    s = _session(srv.address)
    s.timeout = 3
    try:
        a = s.call("call", "cupy.arange", (3,))
        assert s._data is not None
        worker = s.call("info", None)["pid"]
        srv.proc.kill()
        srv.proc.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # an idle worker notices within a second or so
            try:
                os.kill(worker, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the worker outlived its broker")
        t = time.monotonic()
        with pytest.raises(ConnectionError, match=srv.address):
            s.call("method", "sum", (a,))
        assert time.monotonic() - t < 10
    finally:
        s.close()
        srv.stop()


def test_sigterm_tells_direct_clients_and_finishes_their_calls():
    import signal

    from gpushare import errors
    srv = ServerProcess()
    s = _session(srv.address)
    try:
        m = s.call("call", "cupy.ones", ((200, 200),))
        for _ in range(20):
            s.submit("call", "cupy.matmul", (m, m), out_id=s.new_id())
        s.flush()
        srv.proc.send_signal(signal.SIGTERM)
        assert srv.proc.wait(30) == 0
        with pytest.raises(errors.SessionLostError, match="shut down|shutting down|unknown"):
            s.call("method", "sum", (m,))
    finally:
        s.close()


def test_a_busy_direct_client_is_not_expired(monkeypatch):
    """Calls on the direct path keep a session alive although the broker never sees them
    (heartbeats are off here, so only the calls speak for the client)."""
    import time

    monkeypatch.setenv("GPUSHARE_HEARTBEAT", "0")
    srv = ServerProcess("--session-timeout", "2")
    s = _session(srv.address)
    try:
        a = s.call("call", "cupy.arange", (4,))
        until = time.monotonic() + 5          # more than twice the timeout
        while time.monotonic() < until:
            assert int(s.call("method", "sum", (a,)).get()) == 6
            time.sleep(0.05)
    finally:
        s.close()
        srv.stop()


@pytest.mark.parametrize("lanes", ["0", "2"])
def test_a_long_download_does_not_expire_its_session(monkeypatch, lanes):
    """A download that outlasts the session timeout twice over (here slowed to ~3 s
    against 1 s) keeps its session: the client pings the broker while the chunks (or
    the lane's parts) come in, since the worker, busy sending, cannot speak for it."""
    import time

    from gpushare import lane
    monkeypatch.setenv("GPUSHARE_HEARTBEAT", "0")   # no idle pings: only the copy's
    monkeypatch.setenv("GPUSHARE_LANES", lanes)
    srv = ServerProcess("--session-timeout", "1")
    s = _session(srv.address)
    try:
        host = numpy.random.default_rng(9).random(6 << 17)          # 6 MiB
        a = s.call("upload", None, (host,), {"order": "C"})
        take, recv_parts = s._take, lane.recv_parts

        def slow_take(frames):                   # each chunk message held back 0.5 s
            time.sleep(0.5)
            return take(frames)

        def slow_parts(socks, flat):             # the lane's copy held back 3 s
            time.sleep(3.0)
            recv_parts(socks, flat)
        if lanes == "0":
            monkeypatch.setattr(s, "_take", slow_take)
        else:
            assert s._lane(open_now=True) is not None
            monkeypatch.setattr(lane, "recv_parts", slow_parts)
        numpy.testing.assert_array_equal(s.download(a), host)
        monkeypatch.undo()
        assert float(s.call("method", "sum", (a,))) == pytest.approx(host.sum())
    finally:
        s.close()
        srv.stop()


MALLOC_PROBE = """
import ctypes
from gpushare.wire import keep_receive_buffers
libc = ctypes.CDLL(None)
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]

class Info(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]
libc.mallinfo2.restype = Info

def kept_after_chunks():  # 16 chunks as a copy has in flight, all freed: what stays
    blocks = [libc.malloc(1 << 20) for _ in range(16)]
    for p in blocks:
        libc.free(p)
    return libc.mallinfo2().arena >> 20

def mapped(size):  # glibc: bit 2 of a chunk's size word says it has a mapping of its own
    p = libc.malloc(size)
    bit = ctypes.c_size_t.from_address(p - ctypes.sizeof(ctypes.c_size_t)).value & 2
    libc.free(p)
    return bool(bit)
tuned = keep_receive_buffers()
kept_after_chunks()
print(tuned, kept_after_chunks() >= 16, mapped(64 << 20))
"""


@pytest.mark.skipif(__import__("platform").libc_ver()[0] != "glibc", reason="glibc malloc")
@pytest.mark.parametrize("setting", [None, "0"])
def test_received_chunks_reuse_heap_memory(setting):
    """ZeroMQ mallocs every 1 MiB chunk it receives. Once client and worker tune
    malloc, the memory of freed chunks stays in the heap for the next ones (untuned,
    glibc gives it back to the kernel, and each chunk faults it in again); huge arrays
    keep mappings of their own. GPUSHARE_MALLOC_TUNING=0 leaves malloc alone."""
    from _servers import run_python
    out = run_python(MALLOC_PROBE, env={"GPUSHARE_MALLOC_TUNING": setting}, timeout=60)
    assert out.returncode == 0, out.stderr
    tuned = setting != "0"
    assert out.stdout.split() == [str(tuned), str(tuned), "True"]
