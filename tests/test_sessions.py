"""Pipelining, errors, memory, and isolation between sessions."""
from __future__ import annotations

import os
import signal
import time

import numpy
import pytest

from _servers import run_python

pytestmark = pytest.mark.timeout(90)


def test_pipelined_calls_do_not_wait(cp):
    from gpushare import client
    s = client.get_session()
    x = cp.ones(1000, dtype=cp.float32)
    done_before = s._done_seq
    for _ in range(200):
        x = x * 1.0 + 0.0
    assert x.shape == (1000,) and x.dtype == numpy.float32   # known without the server
    assert s._done_seq == done_before                          # nothing was waited for
    assert float(x.sum()) == 1000.0


def test_pipelined_error_surfaces_at_next_wait_with_users_line(cp, monkeypatch):
    from gpushare import client
    # (an allocation this big waits for the server by default, GPUSHARE_WAIT_ALLOC_MB:
    # raised far above it, the call is pipelined as any other)
    monkeypatch.setenv("GPUSHARE_WAIT_ALLOC_MB", str(1 << 40))
    s = client.get_session()
    done_before = s._done_seq
    huge = cp.empty((2 ** 44,), dtype=cp.float64)     # 128 TiB: fails on the server
    assert s._done_seq == done_before and huge.shape == (2 ** 44,)  # but nothing waited
    with pytest.raises(cp.cuda.memory.OutOfMemoryError) as info:
        float(cp.ones(3).sum())
    msg = str(info.value)
    assert "pipelined call cupy.empty" in msg and "test_sessions.py" in msg
    assert isinstance(info.value, MemoryError)
    with pytest.raises(MemoryError):
        huge.get()                                   # its result never existed
    assert (cp.ones(4) * 2).tolist() == [2, 2, 2, 2]  # the session goes on


def test_gpushare_sync_raises_at_call_site(server, tmp_path):
    code = (
        "import gpushare.cupy as cp\n"
        "try:\n"
        "    c = cp.empty((2 ** 44,))\n"
        "    print('NOT RAISED')\n"
        "except MemoryError:\n"
        "    print('RAISED AT CALL')\n"
        "try:\n"
        "    cp.arange(4).fill(1 + 2j)\n"
        "except TypeError as e:\n"
        "    print('NOTE' if '[gpushare]' in str(e) else 'PLAIN')\n")
    out = run_python(code, env={"GPUSHARE_SERVER": server.address, "GPUSHARE_SYNC": "1"})
    assert "RAISED AT CALL" in out.stdout, out.stderr
    # raised where it happened, its message is the call's own (no pipelining note)
    assert "PLAIN" in out.stdout, out.stdout


def test_errors_are_cupys_classes(cp):
    with pytest.raises(ValueError):
        cp.ones(3) + cp.ones(4)
    with pytest.raises(numpy.exceptions.AxisError):
        cp.ones((2, 2)).sum(axis=5)
    with pytest.raises(TypeError):
        cp.arange(3).astype("no-such-dtype")
    with pytest.raises(IndexError):
        cp.arange(3)[7]


def test_dropping_references_frees_server_memory(cp):
    pool = cp.get_default_memory_pool()
    base = pool.used_bytes()
    a = cp.zeros((1024, 1024), dtype=cp.float32)
    assert pool.used_bytes() == base + 4 * 1024 * 1024
    v = a[10:20]
    del a
    assert pool.used_bytes() == base + 4 * 1024 * 1024      # the view keeps it alive
    del v
    assert pool.used_bytes() == base
    for _ in range(50):
        b = cp.ones(10_000) * 2
    del b
    assert pool.used_bytes() == base
    pool.free_all_blocks()


def test_sessions_are_isolated_and_a_worker_crash_costs_one_session(server):
    from gpushare import client, errors
    healthy = client.Session(server.address)
    victim = client.Session(server.address)
    try:
        from gpushare.cupy import _ndarray
        _ndarray.install(healthy)
        _ndarray.install(victim)
        a = healthy.call("call", "cupy.arange", (5,))
        victim_info = victim.call("info", None)
        assert victim_info["handles"] == 0
        # a handle of one session means nothing in another
        with pytest.raises(LookupError):
            victim.call("call", "cupy.negative", (a,))
        # crash the victim's worker as a segfault in native code would
        info_h = healthy.call("info", None)
        info_v = victim.call("info", None)
        os.kill(info_v["pid"], signal.SIGSEGV)
        with pytest.raises(errors.SessionLostError, match="worker process died"):
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                victim.call("info", None)
                time.sleep(0.05)
        assert info_h["pid"] != info_v["pid"]
        assert healthy.call("method", "sum", (a,)).get() == 10
    finally:
        healthy.close()
        victim.close()


def test_unreachable_server_is_a_connection_error_in_bounded_time():
    from _servers import free_port
    code = ("import time, gpushare.cupy as cp\n"
            "t = time.monotonic()\n"
            "try:\n"
            "    cp.arange(3)\n"
            "except ConnectionError as e:\n"
            "    print('ERR', round(time.monotonic() - t), e)\n")
    out = run_python(code, env={"GPUSHARE_SERVER": f"tcp://127.0.0.1:{free_port()}",
                                "GPUSHARE_TIMEOUT": "2"}, timeout=30)
    assert "ERR" in out.stdout, out.stderr
    assert "gpushare serve" in out.stdout and "127.0.0.1" in out.stdout
    assert int(out.stdout.split()[1]) <= 4


def test_server_going_away_is_reported_not_hung(fresh_server):
    from gpushare import client
    from gpushare.cupy import _ndarray
    s = client.Session(fresh_server.address, timeout=3)
    _ndarray.install(s)
    try:
        a = s.call("call", "cupy.arange", (3,))
        fresh_server.stop()
        t = time.monotonic()
        with pytest.raises(ConnectionError):
            s.call("method", "sum", (a,))
        assert time.monotonic() - t < 15
    finally:
        s.close()


def test_version_mismatch_is_a_clear_error(server, monkeypatch):
    from gpushare import client, errors, protocol
    monkeypatch.setattr(client, "PROTOCOL_VERSION", protocol.PROTOCOL_VERSION + 99)
    with pytest.raises(errors.VersionMismatchError, match="protocol mismatch"):
        client.Session(server.address)


def test_many_clients_at_once(server):
    code = ("import gpushare.cupy as cp, sys\n"
            "k = int(sys.argv[1])\n"
            "x = cp.arange(1000) * k\n"
            "print(int(x.sum()))\n")
    import subprocess
    import sys
    procs = [subprocess.Popen([sys.executable, "-c", code, str(k)], stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "GPUSHARE_SERVER": server.address})
             for k in range(6)]
    outs = [p.communicate(timeout=60)[0] for p in procs]
    assert [int(o) for o in outs] == [499500 * k for k in range(6)]


def test_after_a_lost_session_new_work_gets_a_new_session(cp, server):
    import os
    import signal

    from gpushare import client, errors
    old = client.get_session()
    a = cp.arange(3)
    os.kill(old.call("info", None)["pid"], signal.SIGKILL)
    with pytest.raises(errors.SessionLostError):
        for _ in range(200):      # the broker notices the dead worker within ~0.2 s
            a.sum().get()
            time.sleep(0.05)
    with pytest.raises(errors.SessionLostError):
        (a + 1).get()             # the lost session's arrays keep saying so
    b = cp.arange(4)              # new work: a new session
    assert client.get_session() is not old and int(b.sum()) == 6


@pytest.mark.parametrize("path", ["chunk messages", "through the broker"])
def test_an_interrupted_download_leaves_the_session_whole(cp, monkeypatch, path):
    """Ctrl-C in the middle of ``get()``: KeyboardInterrupt reaches the program, the
    rest of the copy is dropped as it arrives, and the session, its arrays and its
    pipelined work go on (it used to be lost: the copy's chunks read as a protocol
    error)."""
    from gpushare import client
    monkeypatch.setenv("GPUSHARE_LANES", "0")
    monkeypatch.setenv("GPUSHARE_SHM", "0")
    if path == "through the broker":
        monkeypatch.setenv("GPUSHARE_DIRECT", "0")
    client.reset_session()
    s = client.get_session()
    x = cp.arange(4 << 20, dtype=cp.float32)  # 16 MiB: many chunk messages
    y = x[:5] * 2                             # queued: done before or after the copy
    chunks = []
    original = client.Session._take

    def take(self, frames):
        got = original(self, frames)
        if got is not None and len(got) == 2 and b"chunk" in bytes(got[0].bytes
                                                                   if hasattr(got[0], "bytes")
                                                                   else got[0]):
            chunks.append(1)
            if len(chunks) == 3:
                raise KeyboardInterrupt
        return got

    monkeypatch.setattr(client.Session, "_take", take)
    with pytest.raises(KeyboardInterrupt):
        x.get()
    monkeypatch.setattr(client.Session, "_take", original)
    assert len(chunks) == 3 and s._abandoned  # the copy's rest is still to come
    assert y.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert float(x[-1]) == float((4 << 20) - 1)
    assert client.get_session() is s and s._lost is None
    numpy.testing.assert_array_equal(x.get(), numpy.arange(4 << 20, dtype=numpy.float32))
