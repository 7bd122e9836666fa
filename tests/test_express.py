"""The express connection (``gpushare/express.py``): a plaintext session that waits
often moves its small messages to one plain TCP connection to its worker; bigger ones
stay on ZeroMQ, in order; a failed connection loses nothing (the session goes on over
ZeroMQ), and either side can turn it off."""
from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
import threading

import numpy
import pytest

from _servers import ServerProcess

pytestmark = pytest.mark.timeout(240)

MiB = 1 << 20


# --- framing (sans-IO) ---------------------------------------------------------------
def test_frames_go_and_come_back_as_they_were():
    from gpushare.express import Express
    a, b = socket.socketpair()
    try:
        ours, theirs = Express(a), Express(b)
        big = numpy.arange(300_000, dtype=numpy.uint8)
        messages = [[b"head", b""], [b"x" * 10, memoryview(big), b"tail"], [b"\x92\x01\x00"]]
        # (the big one fills the socket's buffers: sent while the other end reads)
        sender = threading.Thread(target=lambda: [ours.send_message(m) for m in messages])
        sender.start()
        for m in messages:
            got = theirs.receive(5.0)
            assert [bytes(f.bytes) for f in got] == [bytes(f) for f in m]
        sender.join(10)
        assert theirs.take() is None and theirs.receive(0.05) is None
    finally:
        a.close()
        b.close()


def test_a_send_the_other_side_does_not_read_fails_rather_than_hang():
    from gpushare.express import Express, ExpressClosed
    a, b = socket.socketpair()
    try:
        ours = Express(a, stall=0.5)
        with pytest.raises(ExpressClosed, match="failed"):
            for _ in range(1000):  # (b reads nothing: the buffers fill, then it stalls)
                ours.send_message([b"z" * 60_000])
    finally:
        a.close()
        b.close()


def test_a_message_over_the_limit_or_malformed_ends_the_connection():
    from gpushare.express import Express, ExpressClosed
    a, b = socket.socketpair()
    try:
        theirs = Express(b, limit=1000)
        Express(a).send_message([b"y" * 2000])
        with pytest.raises(ExpressClosed, match="2008 bytes"):
            theirs.receive(5.0)
    finally:
        a.close()
        b.close()
    a, b = socket.socketpair()
    try:
        a.sendall(b"\x08\x00\x00\x00" + b"\x05\x00\x00\x00" + b"\x00" * 4)  # 5 frames?
        with pytest.raises(ExpressClosed, match="malformed"):
            Express(b).receive(5.0)
        a.close()
        with pytest.raises(ExpressClosed, match="closed"):
            Express(b).receive(5.0)
    finally:
        b.close()


# --- through a real server -----------------------------------------------------------
@pytest.fixture
def express_cp(cp, monkeypatch):
    for name in ("GPUSHARE_EXPRESS", "GPUSHARE_SERVER_KEY", "GPUSHARE_CLIENT_KEY"):
        monkeypatch.delenv(name, raising=False)
    return cp


def _session():
    from gpushare import client
    return client.get_session()


def _open(cp) -> None:
    """Wait often enough that the session opens its express connection."""
    from gpushare.express import OPEN_AFTER
    x = cp.arange(10.0)
    for _ in range(OPEN_AFTER + 1):
        float(x.sum())


def test_a_session_that_waits_moves_to_the_express_connection(express_cp):
    from gpushare.express import Express
    cp = express_cp
    _open(cp)
    session = _session()
    assert isinstance(session._express, Express)
    sent = []
    original = session._express.send_message
    session._express.send_message = lambda frames: (sent.append(frames), original(frames))
    rng = numpy.random.default_rng(1)
    x = cp.zeros(1000, dtype=cp.int64)
    for r in range(1, 4):
        for _ in range(100):
            x += 1                                   # pipelined, on the express connection
        h = rng.random(200_000)                       # 1.5 MiB: chunk messages on ZeroMQ
        d = cp.asarray(h)
        assert numpy.array_equal(d.get(), h)          # its download's chunks: express
        big = rng.random(700_000)                     # 5.3 MiB: the bulk lane
        assert float(cp.asarray(big).sum()) == pytest.approx(big.sum())
        assert int(x[0]) == 100 * r
    assert session._on_express and isinstance(session._express, Express)
    assert len(sent) >= 10
    assert session.resyncs == 0 and session.gaps == 0


def test_errors_and_warnings_come_back_on_the_express_connection(express_cp, monkeypatch):
    cp = express_cp
    monkeypatch.setenv("GPUSHARE_WAIT_ALLOC_MB", str(1 << 40))  # (read once a session)
    _open(cp)
    huge = cp.empty((2 ** 44,), dtype=cp.float64); line = sys._getframe().f_lineno  # noqa: E702
    # (pipelined; fails on the server: the error names the call and the user's line)
    with pytest.raises(cp.cuda.memory.OutOfMemoryError,
                       match=f"pipelined call cupy.empty made at .*test_express.py:{line};"):
        float(cp.ones(3).sum())
    del huge
    with pytest.warns(numpy.exceptions.ComplexWarning):  # (CuPy's astype warns so)
        float(cp.ones(2, dtype=cp.complex64).astype(cp.float32).sum())
    assert float(cp.arange(4.0).sum()) == 6.0
    assert _session()._on_express


@pytest.mark.parametrize("when", ["before-send", "after-send"])
def test_a_failed_express_connection_loses_and_repeats_nothing(express_cp, when):
    cp = express_cp
    _open(cp)
    session = _session()
    express = session._express
    x = cp.zeros(1000, dtype=cp.int64)
    for _ in range(50):
        x += 1
    if when == "after-send":
        session.flush()   # the calls are on the connection; their reply may be lost
    express.sock.shutdown(socket.SHUT_RDWR)
    for _ in range(50):
        x += 1
    assert int(x[0]) == 100 and int(x.sum()) == 100_000
    assert session._express is False and not session._on_express
    assert session.resyncs >= 1
    # and the session goes on over ZeroMQ
    for _ in range(20):
        float(x.sum())
    assert int(x[999]) == 100


def test_the_worker_drops_an_oversized_message_and_the_session_goes_on(express_cp):
    from gpushare.express import EXPRESS_MAX
    cp = express_cp
    _open(cp)
    session = _session()
    x = cp.arange(5.0)
    session._express.send_message([b"\x00" * (2 * EXPRESS_MAX)])  # no client sends this
    assert float(x.sum()) == 10.0
    assert session._express is False


def test_off_on_the_client(express_cp, monkeypatch):
    monkeypatch.setenv("GPUSHARE_EXPRESS", "0")
    _open(express_cp)
    assert _session()._express is False


def _use(server, monkeypatch):
    """gpushare's ``cupy``, its session on ``server``, plaintext, express allowed."""
    from gpushare import client
    for name in ("GPUSHARE_EXPRESS", "GPUSHARE_SERVER_KEY", "GPUSHARE_CLIENT_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GPUSHARE_SERVER", server.address)
    client.reset_session()
    import gpushare.cupy as cp
    return cp


def test_off_on_the_server(monkeypatch):
    from gpushare import client
    server = ServerProcess(env={"GPUSHARE_EXPRESS": "0"})
    try:
        cp = _use(server, monkeypatch)
        _open(cp)
        assert _session()._express is False
        assert float(cp.arange(3.0).sum()) == 3.0
    finally:
        client.reset_session()
        server.stop()


def test_an_ipc_session_takes_a_unix_socket_and_leaves_no_file(monkeypatch):
    """Over ``ipc://`` (the embedded server's transport) the express connection is a
    Unix socket beside the worker's own socket file, 0600 while it listens and removed
    once the client is connected; a failed one loses nothing there either."""
    from gpushare import client
    from gpushare.express import Express
    tmp = tempfile.mkdtemp(prefix="gpushare-x-", dir="/tmp")
    server = ServerProcess(bind=f"ipc://{tmp}/server")
    try:
        cp = _use(server, monkeypatch)
        _open(cp)
        session = _session()
        assert isinstance(session._express, Express)
        assert session._express.sock.family == socket.AF_UNIX
        assert not [n for n in os.listdir(tmp) if n.endswith("-x")]
        x = cp.zeros(1000, dtype=cp.int64)
        for _ in range(30):
            x += 1
        assert int(x.sum()) == 30_000 and session._on_express
        session._express.sock.shutdown(socket.SHUT_RDWR)
        for _ in range(30):
            x += 1
        assert int(x[0]) == 60 and session._express is False
    finally:
        client.reset_session()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def _connect_and_talk(listener, path) -> None:
    """Connect to ``listener`` at ``path`` with its token, and pass a few bytes; close."""
    from gpushare import lane
    try:
        socks = lane.connect("", path, listener.token, 1, 5.0)
        got = listener.accept()
        socks[0].sendall(b"hi")
        assert got[0].recv(2) == b"hi"
        lane.close(socks + got)
    finally:
        listener.close()


def test_a_unix_listener_is_private_and_goes_when_closed(tmp_path):
    from gpushare import lane
    from gpushare_server.lane import Listener
    listener = Listener(f"ipc://{tmp_path}/w1", 1)
    path = f"{tmp_path}/w1-x"
    assert listener.offer() == {"path": path, "token": listener.token.hex(), "streams": 1}
    assert os.stat(path).st_mode & 0o777 == 0o600
    _connect_and_talk(listener, path)
    assert not os.path.exists(path)
    stranger = Listener(f"ipc://{tmp_path}/w2", 1)
    socks = lane.connect("", f"{tmp_path}/w2-x", b"\0" * lane.TOKEN_BYTES, 1, 5.0)
    try:
        with pytest.raises(lane.LaneError):
            stranger.accept(timeout=1.0)
    finally:
        lane.close(socks)
    assert not os.path.exists(f"{tmp_path}/w2-x")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's abstract names")
def test_beside_an_abstract_ipc_name_the_listener_is_abstract_too(tmp_path, monkeypatch):
    """``ipc://@NAME`` (libzmq's abstract namespace): the express listener takes an
    abstract name too, and makes no file (not ``@NAME-w...-x`` in the working
    directory)."""
    import secrets
    from gpushare_server.lane import Listener
    monkeypatch.chdir(tmp_path)
    name = f"gpushare-test-{secrets.token_hex(6)}"
    listener = Listener(f"ipc://@{name}", 1)
    assert listener.offer()["path"] == f"\0{name}-x"
    _connect_and_talk(listener, f"\0{name}-x")
    assert os.listdir(tmp_path) == []
