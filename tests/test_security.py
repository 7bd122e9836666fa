"""CurveZMQ keys, refusing strangers, quotas, and untrusted input (issue #6).

Every server is a real ``gpushare serve`` in a subprocess. Clients run in this process
(``client.Session``) with the key variables set through ``monkeypatch``.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import time

import numpy
import pytest
import zmq
import zmq.auth

from _servers import ServerProcess, free_port, wait_for

pytestmark = pytest.mark.timeout(60)


def keygen(out, name: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpushare", "keygen", "--out", str(out), name],
                          capture_output=True, text=True, timeout=30)


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    root = tmp_path_factory.mktemp("keys")
    for name in ("server", "alice", "bob", "stranger"):
        assert keygen(root, name).returncode == 0
    authorized = root / "authorized"
    authorized.mkdir()
    shutil.copy(root / "alice.key", authorized / "alice.key")
    return root


@pytest.fixture(scope="module")
def curve_server(keys):
    srv = ServerProcess("--server-key", str(keys / "server.key_secret"),
                        "--authorized-keys", str(keys / "authorized"),
                        "--memory-limit", "1MiB")
    yield srv
    srv.stop()


def use_keys(monkeypatch, keys, client: str | None, server: str = "server") -> None:
    if client is None:
        monkeypatch.delenv("GPUSHARE_SERVER_KEY", raising=False)
        monkeypatch.delenv("GPUSHARE_CLIENT_KEY", raising=False)
        return
    monkeypatch.setenv("GPUSHARE_SERVER_KEY", str(keys / f"{server}.key"))
    monkeypatch.setenv("GPUSHARE_CLIENT_KEY", str(keys / f"{client}.key_secret"))


def open_session(address: str, timeout: float = 10.0):
    from gpushare import client
    from gpushare.cupy import _ndarray
    session = client.Session(address, timeout=timeout)
    _ndarray.install(session)
    return session


def test_keygen_writes_zmq_certificates(tmp_path):
    out = keygen(tmp_path / "k", "carol")
    assert out.returncode == 0, out.stderr
    public, secret = tmp_path / "k" / "carol.key", tmp_path / "k" / "carol.key_secret"
    pub_only, none = zmq.auth.load_certificate(str(public))
    pub2, sec = zmq.auth.load_certificate(str(secret))
    assert pub_only == pub2 and none is None and sec and len(sec) == 40
    assert stat.S_IMODE(os.stat(secret).st_mode) == 0o600
    again = keygen(tmp_path / "k", "carol")                # never overwrite a key silently
    assert again.returncode != 0 and "exists" in again.stderr
    assert zmq.auth.load_certificate(str(secret))[1] == sec


def test_authorized_client_is_served_and_named(curve_server, keys, monkeypatch):
    use_keys(monkeypatch, keys, "alice")
    s = open_session(curve_server.address)
    try:
        assert s.info["key"] == "alice"
        a = s.call("call", "cupy.arange", (6,))
        assert s.call("method", "sum", (a,)).get() == 15
        from gpushare.cli import query_status
        status = query_status(curve_server.address)
        mine = [x for x in status["sessions"] if x["id"] == s.session_id]
        assert mine and mine[0]["key"] == "alice" and status["auth"] == "curve"
    finally:
        s.close()


def test_an_encrypted_session_keeps_every_message_in_curvezmq(curve_server, keys,
                                                              monkeypatch):
    """No express connection (plain TCP, gpushare/express.py) for a session with keys:
    the client does not ask, and the server, asked anyway, does not offer one."""
    use_keys(monkeypatch, keys, "alice")
    monkeypatch.delenv("GPUSHARE_EXPRESS", raising=False)
    s = open_session(curve_server.address)
    try:
        a = s.call("call", "cupy.arange", (6,))
        for _ in range(12):
            assert s.call("method", "__float__", (s.call("method", "sum", (a,)),)) == 15
        assert s._express is False
        assert s.call("express_open", None) is None
    finally:
        s.close()


def test_unauthorized_key_is_refused_quickly(curve_server, keys, monkeypatch):
    from gpushare.security import AuthenticationError
    use_keys(monkeypatch, keys, "bob")
    t = time.monotonic()
    with pytest.raises(AuthenticationError, match="refused this client's key") as info:
        open_session(curve_server.address, timeout=10)
    assert time.monotonic() - t < 5          # well within the connect timeout
    assert isinstance(info.value, ConnectionError)
    assert "bob.key_secret" in str(info.value)


def test_keyless_client_is_told_keys_are_needed(curve_server, keys, monkeypatch):
    from gpushare.security import AuthenticationError
    use_keys(monkeypatch, keys, None)
    with pytest.raises(AuthenticationError, match="requires CurveZMQ keys"):
        open_session(curve_server.address, timeout=10)


def test_wrong_server_key_is_an_error_not_a_hang(curve_server, keys, monkeypatch):
    use_keys(monkeypatch, keys, "alice", server="stranger")   # not this server's key
    t = time.monotonic()
    with pytest.raises(ConnectionError, match="keys may be wrong"):
        open_session(curve_server.address, timeout=4)
    assert time.monotonic() - t < 6


def test_half_configured_keys_are_a_clear_error(curve_server, keys, monkeypatch):
    from gpushare.security import KeyConfigurationError
    monkeypatch.setenv("GPUSHARE_SERVER_KEY", str(keys / "server.key"))
    monkeypatch.delenv("GPUSHARE_CLIENT_KEY", raising=False)
    with pytest.raises(KeyConfigurationError, match="GPUSHARE_CLIENT_KEY"):
        open_session(curve_server.address)
    monkeypatch.setenv("GPUSHARE_CLIENT_KEY", str(keys / "alice.key"))  # the public half
    with pytest.raises(KeyConfigurationError, match="no secret key"):
        open_session(curve_server.address)


def test_authorized_keys_directory_is_reread(curve_server, keys, monkeypatch):
    from gpushare.security import AuthenticationError
    use_keys(monkeypatch, keys, "bob")
    added = keys / "authorized" / "bob.key"
    shutil.copy(keys / "bob.key", added)
    try:
        def bob_gets_in():
            try:
                s = open_session(curve_server.address, timeout=3)
            except AuthenticationError:
                return None
            s.close()
            return True
        wait_for(bob_gets_in, timeout=15, interval=0.2)
    finally:
        added.unlink()

    def bob_refused():
        try:
            open_session(curve_server.address, timeout=3).close()
        except AuthenticationError:
            return True
        return False
    wait_for(bob_refused, timeout=15, interval=0.2)


def test_non_loopback_bind_needs_keys_or_insecure(tmp_path):
    port = free_port()
    out = subprocess.run([sys.executable, "-m", "gpushare", "serve", "--backend", "cpu",
                          "--bind", f"tcp://0.0.0.0:{port}"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 2
    assert "refusing to serve" in out.stderr and "--insecure" in out.stderr
    srv = ServerProcess("--insecure", bind=f"tcp://0.0.0.0:{port}")
    srv.stop()
    assert "WITHOUT encryption" in srv.stderr_text()


def test_memory_limit_raises_cupys_error_and_session_goes_on(curve_server, keys, monkeypatch):
    from gpushare import errors
    use_keys(monkeypatch, keys, "alice")
    s = open_session(curve_server.address)
    try:
        small = s.call("call", "cupy.ones", (1000,))                     # 8 KB: fine
        with pytest.raises(errors.OutOfMemoryError, match="limit set to: 1,048,576") as info:
            s.call("call", "cupy.ones", (200_000,))                      # 1.6 MB: over
        assert isinstance(info.value, MemoryError)
        # a pipelined result over the limit is dropped; the error names the call
        big_id = s.new_id()
        s.submit("call", "cupy.zeros", ((400, 400),), out_id=big_id, description="cupy.zeros")
        with pytest.raises(errors.OutOfMemoryError, match="cupy.zeros"):
            s.synchronize()
        assert s.call("memory", "used_bytes") == 8192   # only `small` (in 512-byte units)
        # several arrays that together pass the limit: the one that crosses it fails
        kept = [s.call("call", "cupy.ones", (50_000,)) for _ in range(2)]   # 800 KB
        with pytest.raises(MemoryError):
            s.call("call", "cupy.ones", (50_000,))
        assert s.call("method", "sum", (small,)).get() == 1000.0          # still usable
        views = [s.call("getitem", None, (kept[0], slice(0, 10))) for _ in range(3)]
        assert len(views) == 3                                           # views cost nothing
        del kept, views
    finally:
        s.close()


def test_max_sessions_and_per_key_limit(keys, monkeypatch, tmp_path):
    authorized = tmp_path / "authorized"
    authorized.mkdir()
    shutil.copy(keys / "alice.key", authorized / "alice.key")
    srv = ServerProcess("--server-key", str(keys / "server.key_secret"),
                        "--authorized-keys", str(authorized),
                        "--max-sessions", "3", "--max-sessions-per-key", "2")
    use_keys(monkeypatch, keys, "alice")
    sessions = []
    try:
        sessions += [open_session(srv.address) for _ in range(2)]
        with pytest.raises(ConnectionError, match="max-sessions-per-key"):
            open_session(srv.address)
        sessions[0].close()
        sessions[0] = open_session(srv.address)     # a freed slot can be used again
        shutil.copy(keys / "bob.key", authorized / "bob.key")
        use_keys(monkeypatch, keys, "bob")
        sessions.append(wait_for(lambda: _try_open(srv.address), timeout=15, interval=0.2))
        with pytest.raises(ConnectionError, match="serves at most 3 sessions"):
            open_session(srv.address)
    finally:
        for s in sessions:
            s.close()
        srv.stop()
    # one log line per session event, naming keys but never showing key material
    log = srv.stderr_text()
    assert "opened: key alice" in log and "opened: key bob" in log
    assert "closed: closed by client" in log and "session refused (max_sessions)" in log
    for name in ("server", "alice", "bob"):
        public, secret = zmq.auth.load_certificate(str(keys / f"{name}.key_secret"))
        assert public.decode() not in log and secret.decode() not in log


def test_per_key_limits_file(keys, monkeypatch, tmp_path):
    """--key-limits: alice gets more memory and fewer sessions than the server-wide
    limits; bob, not listed, gets those; a changed file applies to new sessions."""
    from gpushare import errors
    authorized = tmp_path / "authorized"
    authorized.mkdir()
    for name in ("alice", "bob"):
        shutil.copy(keys / f"{name}.key", authorized / f"{name}.key")
    limits = tmp_path / "limits.toml"
    limits.write_text('[keys.alice]\nmemory = "4MiB"\nsessions = 1\n')
    srv = ServerProcess("--server-key", str(keys / "server.key_secret"),
                        "--authorized-keys", str(authorized), "--key-limits", str(limits),
                        "--memory-limit", "1MiB", "--max-sessions-per-key", "3")
    sessions = []
    try:
        use_keys(monkeypatch, keys, "alice")
        alice = open_session(srv.address)
        sessions.append(alice)
        assert alice.info["memory_limit"] == 4 << 20
        held = alice.call("call", "cupy.ones", (300_000,))             # 2.4 MB: alice may
        with pytest.raises(errors.OutOfMemoryError, match="limit set to: 4,194,304"):
            alice.call("call", "cupy.ones", (300_000,))                 # 4.8 MB: not
        with pytest.raises(ConnectionError, match="already has 1 sessions"):
            open_session(srv.address)                                  # alice: one session
        use_keys(monkeypatch, keys, "bob")
        bob = open_session(srv.address)
        sessions.append(bob)
        with pytest.raises(errors.OutOfMemoryError, match="limit set to: 1,048,576"):
            bob.call("call", "cupy.ones", (300_000,))                   # the server-wide 1 MiB
        sessions.append(open_session(srv.address))                     # bob may have 3
        assert alice.call("method", "sum", (held,)).get() == 300_000.0  # alice goes on
        # the file is re-read on change: bob's new sessions get 8 MiB
        limits.write_text('[keys.bob]\nmemory = "8MiB"\n')

        def bob_has_more():
            s = open_session(srv.address)
            if s.info["memory_limit"] == 8 << 20:
                sessions.append(s)
                return s
            s.close()  # opened before the server saw the new file
            return None
        bob2 = wait_for(bob_has_more, timeout=15, interval=0.3)
        assert bob2.call("call", "cupy.ones", (800_000,)).shape == (800_000,)  # 6.4 MB
        import json
        out = subprocess.run([sys.executable, "-m", "gpushare", "status", "--server",
                              srv.address, "--json"], capture_output=True, text=True,
                             timeout=30, env={**os.environ})
        assert out.returncode == 0, out.stderr
        by_key = {(s["key"], s["memory_limit"]) for s in json.loads(out.stdout)["sessions"]}
        assert ("alice", 4 << 20) in by_key and ("bob", 1 << 20) in by_key
    finally:
        for s in sessions:
            s.close()
        srv.stop()


def test_bad_key_limits_file_stops_the_server_with_the_reason(tmp_path, keys):
    limits = tmp_path / "limits.toml"
    limits.write_text('[keys.alice]\nmemory = "lots"\n')
    out = subprocess.run([sys.executable, "-m", "gpushare", "serve", "--bind",
                          f"tcp://127.0.0.1:{free_port()}", "--backend", "cpu",
                          "--key-limits", str(limits)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "key-limits" in out.stderr and "not a size" in out.stderr


def _try_open(address: str):
    from gpushare.security import AuthenticationError
    try:
        return open_session(address, timeout=3)
    except AuthenticationError:
        return None


def test_malformed_messages_get_error_replies(server):
    """Raw frames straight to the broker: each gets a reply, none stops the server."""
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(server.address)
    try:
        import msgpack
        bad = [[b""], [b"\xc1"], [msgpack.packb([1, 2])], [msgpack.packb({"t": "nope"})],
               [msgpack.packb({"t": 5}), b"x"], [msgpack.packb({"t": "hello", "v": "x"})]]
        for frames in bad:
            sock.send_multipart(frames)
            assert sock.poll(5000), f"no reply to {frames!r}"
            reply = msgpack.unpackb(sock.recv_multipart()[0], raw=False)
            assert reply["t"] in ("protocol_error", "fatal")
        # a session whose batches are garbage: error replies, and the session survives
        sock.send_multipart([msgpack.packb({"t": "hello", "v": _protocol_version()})])
        assert sock.poll(5000)
        assert msgpack.unpackb(sock.recv_multipart()[0], raw=False)["t"] == "welcome"
        for frames in ([msgpack.packb({"t": "batch", "n": "many"}), b"\x00"],
                       [msgpack.packb({"t": "batch", "n": 1}), b"\x93\x01"],
                       [msgpack.packb({"t": "batch", "n": 1, "release": [[0, "x"]]}), b""],
                       [msgpack.packb({"t": "batch", "n": 1}),
                        msgpack.packb([1, "call", "os.system", ["true"], {}, None, True])]):
            sock.send_multipart(frames)
            assert sock.poll(5000)
            reply = msgpack.unpackb(sock.recv_multipart()[0], raw=False, strict_map_key=False)
            assert reply["t"] in ("protocol_error", "done")
            if reply["t"] == "done":               # os.system is not a CuPy function
                assert reply["error"] is not None
        sock.send_multipart([msgpack.packb({"t": "ping"})])
        assert sock.poll(5000)
        assert msgpack.unpackb(sock.recv_multipart()[0], raw=False)["alive"] is True
    finally:
        sock.close()
        ctx.term()


def test_message_size_limit(monkeypatch):
    srv = ServerProcess("--max-message-size", "64KiB")
    try:
        s = open_session(srv.address)
        ctx = zmq.Context()
        raw = ctx.socket(zmq.DEALER)
        raw.setsockopt(zmq.LINGER, 0)
        raw.connect(srv.address)
        raw.send_multipart([b"\x81\xa1t\xa4ping", b"\x00" * (1 << 20)])   # 1 MiB: dropped
        assert not raw.poll(500)
        raw.close()
        ctx.term()
        ok = s.call("call", "cupy.asarray", (numpy.arange(1000),))       # small: fine
        assert s.call("method", "sum", (ok,)).get() == 499500
        s.close()
    finally:
        srv.stop()


def _protocol_version() -> int:
    from gpushare.protocol import PROTOCOL_VERSION
    return PROTOCOL_VERSION


def test_another_key_cannot_take_over_a_session_by_its_routing_id(keys, monkeypatch,
                                                                   tmp_path):
    """Reconnecting clients keep their routing id (ROUTER_HANDOVER); a client with another
    key that learnt it (it is random and never shown) can neither use, replace nor close
    the session. (It does cut the owner's connection off: see docs/operations.md.)"""
    authorized = tmp_path / "authorized"
    authorized.mkdir()
    for name in ("alice", "bob"):
        shutil.copy(keys / f"{name}.key", authorized / f"{name}.key")
    srv = ServerProcess("--server-key", str(keys / "server.key_secret"),
                        "--authorized-keys", str(authorized), "--no-direct")
    use_keys(monkeypatch, keys, "alice")
    alice = open_session(srv.address)
    ctx = zmq.Context()
    try:
        a = alice.call("call", "cupy.arange", (6,))
        rid = alice._sock.getsockopt(zmq.ROUTING_ID)
        thief = ctx.socket(zmq.DEALER)
        thief.setsockopt(zmq.LINGER, 0)
        thief.setsockopt(zmq.ROUTING_ID, rid)
        bob_public, bob_secret = zmq.auth.load_certificate(str(keys / "bob.key_secret"))
        server_public, _ = zmq.auth.load_certificate(str(keys / "server.key"))
        thief.curve_publickey, thief.curve_secretkey = bob_public, bob_secret
        thief.curve_serverkey = server_public
        thief.connect(srv.address)
        from gpushare.protocol import PROTOCOL_VERSION, Decoder, Encoder
        for message in ({"t": "hello", "v": PROTOCOL_VERSION, "client": {}},
                        {"t": "batch", "n": 0}, {"t": "bye"}):
            thief.send_multipart(Encoder().encode(message))
            assert thief.poll(10_000), "no answer to the thief"
            reply = Decoder(thief.recv_multipart()).decode()
            assert reply["t"] == "protocol_error" and "does not own" in reply["error"]
        thief.close(0)
        # the thief's hello and bye neither replaced nor closed alice's session
        from gpushare.cli import query_status
        mine = [x for x in query_status(srv.address)["sessions"]
                if x["id"] == alice.session_id]
        assert mine and mine[0]["key"] == "alice" and mine[0]["state"] == "ready"
        assert mine[0]["handles"] >= 1                          # `a` is still there
    finally:
        alice.close()
        ctx.term()
        srv.stop()


def test_the_server_never_holds_object_arrays(cp):
    """CuPy has no object arrays. A server that made one and then viewed or re-strided
    its memory would read Python object pointers from bytes a client chose, so the
    server refuses them whichever call would make one, as CuPy does; the client
    refuses them at the call where it can."""
    from gpushare import client
    x = cp.arange(4)
    with pytest.raises(ValueError, match="Unsupported dtype object"):
        x.astype(object)
    with pytest.raises(ValueError, match="Unsupported dtype"):
        x.astype("O,i4")
    s = client.get_session()
    # what a client that skipped its own checks would send
    for args, kwargs in [(("cupy.arange", (3,)), {"dtype": object}),
                         (("cupy.add", (x, 1)), {"dtype": object})]:
        with pytest.raises(ValueError, match="Unsupported dtype object"):
            s.call("call", *args, kwargs)
    y = cp.add(x, 1, dtype=object)  # pipelined: fails at the next wait
    with pytest.raises(ValueError, match="Unsupported dtype object"):
        float(x.sum())
    del y
    with pytest.raises(ValueError, match="Unsupported dtype object"):
        s.call("from_pointer", None, (x, 0, (2,), numpy.dtype(object), None))
    assert x.tolist() == [0, 1, 2, 3]  # the session goes on


def test_a_client_cannot_read_or_write_the_servers_files(cp, tmp_path):
    """CuPy's file functions and methods (``load``, ``fromfile``, ``save``, ``tofile``
    ...) run on the client, on the program's files. A client that names them on the
    server itself is refused: they would read the server's files (``cupy.load`` would
    unpickle them) and write over them."""
    from gpushare import client
    secret = tmp_path / "server-secret.txt"
    secret.write_text("1 2 3\n")
    target = tmp_path / "written"
    s = client.get_session()
    x = cp.arange(3)
    calls = [("call", "cupy.fromfile", (str(secret),), {"dtype": "uint8"}),
             ("call", "cupy.loadtxt", (str(secret),), {}),
             ("call", "cupy.genfromtxt", (str(secret),), {}),
             ("call", "cupy.load", (str(secret),), {"allow_pickle": True}),
             ("call", "cupy.save", (str(target), x), {}),
             ("call", "cupy.savez", (str(target), x), {}),
             ("call", "cupy.savez_compressed", (str(target), x), {}),
             ("call", "cupy.savetxt", (str(target), x), {}),
             ("method", "tofile", (x, str(target)), {}),
             ("method", "dump", (x, str(target)), {}),
             ("method", "dumps", (x,), {})]
    for op, target_name, args, kwargs in calls:
        with pytest.raises(NotImplementedError, match="reads or writes files"):
            s.call(op, target_name, args, kwargs)
    assert list(tmp_path.iterdir()) == [secret]
    # the program's own files, through the proxy, as CuPy's
    cp.save(str(target), x)
    assert cp.load(str(target) + ".npy").tolist() == [0, 1, 2]
    assert cp.loadtxt(str(secret)).tolist() == [1.0, 2.0, 3.0]
