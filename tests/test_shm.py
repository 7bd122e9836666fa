"""The same-host shared-memory path for bulk copies (``gpushare/shm.py``,
``gpushare_server/shm.py``): opt-in, worker-owned segment, silent fallback."""
from __future__ import annotations

import os
import tempfile

import msgpack
import numpy
import pytest

from _servers import BACKEND, ServerProcess, run_python

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm")]

MiB = 1 << 20


@pytest.fixture(scope="module")
def ipc_server():
    tmp = tempfile.mkdtemp(prefix="gpushare-shm-test-")
    srv = ServerProcess(bind=f"ipc://{tmp}/server")
    yield srv
    srv.stop()
    try:
        os.rmdir(tmp)
    except OSError:
        pass


def _connect(monkeypatch, address):
    from gpushare import client
    monkeypatch.setenv("GPUSHARE_SERVER", address)
    client.reset_session()
    import gpushare.cupy as cupy
    return cupy, client.get_session()


@pytest.fixture
def cp(ipc_server, monkeypatch):
    monkeypatch.delenv("GPUSHARE_SHM", raising=False)
    cupy, _ = _connect(monkeypatch, ipc_server.address)
    yield cupy
    from gpushare import client
    client.reset_session()


def _session():
    from gpushare import client
    return client.get_session()


def _moved():
    """Bytes through the ring, as the client and the worker count them."""
    s = _session()
    up, down = getattr(s, "shm_bytes", [0, 0])
    worker = s.call("info", None)["shm"]
    return up, down, worker


def test_copies_take_the_ring_and_come_back_identical(cp):
    rng = numpy.random.default_rng(0)
    cases = [
        rng.random(1_234_567),                                   # 9.4 MiB: not a multiple
        numpy.asfortranarray(rng.random((1000, 700))),           # F order
        (rng.random((300, 400, 5)) + 1j * rng.random((300, 400, 5))).astype(numpy.complex64),
        rng.random(3 * MiB) > 0.5,                               # bool
        rng.integers(-9, 9, (2048, 1024), dtype=numpy.int16)[:, ::2],  # not contiguous
        rng.random((MiB // 8) + 3),                              # just over STREAM_MIN
    ]
    for host in cases:
        d = cp.asarray(host)
        assert d.flags.f_contiguous == (host.flags.f_contiguous and not host.flags.c_contiguous
                                        or host.ndim <= 1)
        back = d.get()
        numpy.testing.assert_array_equal(back, host)
        assert back.dtype == host.dtype
        numpy.testing.assert_array_equal(cp.asnumpy(d), host)
        numpy.testing.assert_array_equal((d * 1).get(), host * 1)
    f = numpy.asfortranarray(rng.random((2000, 300)))
    df = cp.asarray(f)
    back = df.get(order="A")                                     # in its own order
    assert back.flags.f_contiguous and not back.flags.c_contiguous
    numpy.testing.assert_array_equal(back, f)
    back = df.get()                                              # CuPy's default: C
    assert back.flags.c_contiguous
    numpy.testing.assert_array_equal(back, f)
    view = df[::2, 1:]                                           # a non-contiguous download
    numpy.testing.assert_array_equal(view.get(), f[::2, 1:])
    d = cp.asarray(f)
    d.set(f * 2)                                                 # set() keeps its own path
    numpy.testing.assert_array_equal(d.get(), f * 2)
    up, down, worker = _moved()
    assert worker["active"]
    assert up >= sum(h.nbytes for h in cases) and down >= sum(h.nbytes for h in cases)
    assert worker["bytes_in"] == up and worker["bytes_out"] == down


def test_small_and_empty_arrays_stay_on_the_normal_path(cp):
    big = numpy.arange(MiB // 4, dtype=numpy.float32)            # 1 MiB: opens the ring
    numpy.testing.assert_array_equal(cp.asarray(big).get(), big)
    before = _moved()
    for host in (numpy.zeros(0), numpy.zeros((0, 5), order="F"), numpy.float64(3.5),
                 numpy.arange(1000), numpy.ones(MiB // 8 - 1)):
        d = cp.asarray(host)
        back = d.get()
        numpy.testing.assert_array_equal(back, host)
        assert back.shape == numpy.shape(host)
    assert _moved() == before


def test_many_copies_in_a_row(cp):
    rng = numpy.random.default_rng(1)
    hosts = [rng.random(400_000 + 1000 * i) for i in range(12)]
    devices = [cp.asarray(h) for h in hosts]
    for d, h in zip(devices, hosts):
        numpy.testing.assert_array_equal(d.get(), h)
    for _ in range(5):                                           # reuse the ring, both ways
        h = rng.random((700, 1100))
        numpy.testing.assert_array_equal(cp.asarray(h).get(), h)
    up, down, worker = _moved()
    assert up >= sum(h.nbytes for h in hosts) and down == worker["bytes_out"]


def test_a_copy_while_pipelined_calls_are_queued(cp):
    host = numpy.random.default_rng(2).random(500_000)
    numpy.testing.assert_array_equal(cp.asarray(host).get(), host)  # the ring is open
    before = _moved()
    x = cp.zeros(1000)
    for _ in range(200):
        x = x + 1                                                 # queued, not sent yet
    assert _session()._queue
    a = cp.asarray(host)                                          # flushes them, then copies
    y = a * 2 + x[0]
    for _ in range(50):
        x = x + 1
    numpy.testing.assert_array_equal(y.get(), host * 2 + 200)
    assert float(x[0]) == 250.0
    after = _moved()
    assert after[0] - before[0] >= host.nbytes and after[1] - before[1] >= host.nbytes


def test_an_error_in_the_copy_surfaces_as_before(ipc_server, monkeypatch):
    tmp = tempfile.mkdtemp(prefix="gpushare-shm-test-")
    srv = ServerProcess("--memory-limit", "4MiB", bind=f"ipc://{tmp}/server")
    try:
        cupy, s = _connect(monkeypatch, srv.address)
        ok = numpy.ones(MiB // 4, dtype=numpy.float32)
        numpy.testing.assert_array_equal(cupy.asarray(ok).get(), ok)
        assert s.shm_bytes[0] >= ok.nbytes
        big = numpy.ones(MiB, dtype=numpy.float64)                # 8 MiB: over the quota
        from gpushare import errors
        with pytest.raises(errors.OutOfMemoryError):
            cupy.asarray(big)                                     # raised at the next wait
            s.synchronize()
        numpy.testing.assert_array_equal(cupy.asarray(ok * 3).get(), ok * 3)  # goes on
    finally:
        from gpushare import client
        client.reset_session()
        srv.stop()
        os.rmdir(tmp) if os.path.isdir(tmp) and not os.listdir(tmp) else None


def test_disabled_or_not_same_host_falls_back_to_streaming(ipc_server, server, monkeypatch):
    host = numpy.random.default_rng(3).random(600_000)
    from gpushare import client
    try:
        monkeypatch.setenv("GPUSHARE_SHM", "0")                   # the client declines
        cupy, s = _connect(monkeypatch, ipc_server.address)
        numpy.testing.assert_array_equal(cupy.asarray(host).get(), host)
        assert getattr(s, "shm_bytes", [0, 0]) == [0, 0]
        assert not s.call("info", None)["shm"]["active"]
        monkeypatch.delenv("GPUSHARE_SHM")                        # tcp: not asked by default
        cupy, s = _connect(monkeypatch, server.address)
        numpy.testing.assert_array_equal(cupy.asarray(host).get(), host)
        assert getattr(s, "shm_bytes", [0, 0]) == [0, 0]
        monkeypatch.setenv("GPUSHARE_SHM", "1")                   # asked, but this server
        cupy, s = _connect(monkeypatch, server.address)           # does not allow it
        numpy.testing.assert_array_equal(cupy.asarray(host).get(), host)
        numpy.testing.assert_array_equal(cupy.asarray(host).get(), host)
        assert s.shm_bytes == [0, 0]
        assert not s.call("info", None)["shm"]["active"]
    finally:
        client.reset_session()


def test_tcp_with_the_explicit_option_on_both_sides(monkeypatch):
    srv = ServerProcess(env={"GPUSHARE_SHM": "1"})
    from gpushare import client
    try:
        monkeypatch.setenv("GPUSHARE_SHM", "1")
        cupy, s = _connect(monkeypatch, srv.address)
        host = numpy.asfortranarray(numpy.random.default_rng(4).random((900, 800)))
        back = cupy.asarray(host).get(order="A")
        numpy.testing.assert_array_equal(back, host)
        assert back.flags.f_contiguous
        assert s.shm_bytes == [host.nbytes, host.nbytes]
    finally:
        client.reset_session()
        srv.stop()


def test_the_segment_is_unlinked_once_attached(cp):
    host = numpy.ones(MiB)
    numpy.testing.assert_array_equal(cp.asarray(host).get(), host)
    s = _session()
    pid = s.call("info", None)["pid"]
    assert s.shm_bytes[0] >= host.nbytes
    assert not [n for n in os.listdir("/dev/shm") if n.startswith(f"gpushare-{pid}-")]
    maps = open(f"/proc/{pid}/maps").read()                        # mapped, but unlinked
    assert "/dev/shm/gpushare-" in maps and "(deleted)" in maps


def test_the_server_never_opens_a_path_the_client_names(cp):
    from gpushare import errors
    s = _session()
    host = numpy.ones(MiB)
    numpy.testing.assert_array_equal(cp.asarray(host).get(), host)
    with pytest.raises(TypeError):
        s.call("shm_open", None, ("/etc/passwd",))
    with pytest.raises(TypeError):
        s.call("shm_open", None, (), {"name": "/etc/passwd", "slots": 4})
    with pytest.raises(ValueError):
        s.call("shm_open", None, (), {"slots": 4, "slot_bytes": 1 << 40})
    assert s.call("shm_confirm", None, ("/etc/passwd",)) is False
    # raw ring messages naming a path, a slot out of range, bytes outside an array: ignored
    d = cp.zeros(100)
    for value in (["put", d._gs_id, 0, 99, 10], ["put", d._gs_id, -8, 0, 16],
                  ["put", d._gs_id, 0, 0, 1 << 30], ["open", "/etc/passwd"], "/etc/passwd",
                  ["free", 1, 99], ["up", 1, d._gs_id, 0, 16], ["up", 1, "/etc/passwd", 0, 16, 0],
                  ["up", 1, d._gs_id, 0, 16, 0.5], ["up", 1, d._gs_id, 0, 16, 0, 0], ["up"]):
        s._send_data([msgpack.packb({"t": "batch", "n": 0, "chunk": None, "shm": value,
                                     "path": "/etc/passwd"})])
    assert float(d.sum()) == 0.0                                    # the session goes on
    pid = s.call("info", None)["pid"]
    assert "passwd" not in open(f"/proc/{pid}/maps").read()
    fds = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    assert not any("passwd" in target for target in fds)
    # the refused requests left the ring as it was: copies still take it
    before = _moved()
    host2 = numpy.arange(MiB // 4, dtype=numpy.float64)
    numpy.testing.assert_array_equal(cp.asarray(host2).get(), host2)
    after = _moved()
    assert after[2]["active"] and after[0] - before[0] == host2.nbytes
    assert isinstance(errors.GpushareError, type)


def test_the_client_refuses_odd_segments():
    from gpushare import shm
    assert shm.attach(None) is None
    assert shm.attach({"name": "../../etc/passwd", "size": 4096 + 2 * MiB, "slots": 2,
                       "slot_bytes": MiB, "header": 4096}) is None
    assert shm.attach({"name": "gpushare-1-" + "0" * 32, "size": 4096 + 2 * MiB,
                       "slots": 2, "slot_bytes": MiB, "header": 4096}) is None  # not there


_EMBEDDED = """
import numpy, gpushare.cupy as cp
from gpushare import client
h = numpy.asfortranarray(numpy.random.default_rng(5).random((1500, 1000)))
d = cp.asarray(h)
back = d.get(order="A")
assert numpy.array_equal(back, h) and back.flags.f_contiguous
assert d.get().flags.c_contiguous  # CuPy's default order
assert numpy.array_equal(cp.asnumpy(d[::3]), h[::3])
print("MOVED", getattr(client.get_session(), "shm_bytes", [0, 0]))
"""


@pytest.mark.parametrize("setting", [None, "0"])
def test_the_embedded_server_uses_it_unless_disabled(setting):
    env = {"GPUSHARE_SERVER": None, "GPUSHARE_SHM": setting, "GPUSHARE_BACKEND": BACKEND}
    out = run_python(_EMBEDDED, env=env)
    assert out.returncode == 0, out.stderr
    moved = eval(out.stdout.split("MOVED", 1)[1])
    if setting == "0":
        assert moved == [0, 0]
    else:
        assert moved[0] == 1500 * 1000 * 8 and moved[1] >= 1500 * 1000 * 8


def test_through_the_broker_without_the_direct_path(monkeypatch):
    srv = ServerProcess("--no-direct", env={"GPUSHARE_SHM": "1"})
    from gpushare import client
    try:
        monkeypatch.setenv("GPUSHARE_SHM", "1")
        cupy, s = _connect(monkeypatch, srv.address)
        assert s._data is None
        rng = numpy.random.default_rng(6)
        for _ in range(3):
            host = rng.random(700_001)
            numpy.testing.assert_array_equal(cupy.asarray(host).get(), host)
        assert s.shm_bytes == [3 * host.nbytes, 3 * host.nbytes]
        assert float(cupy.asarray(host).sum()) == pytest.approx(host.sum())
    finally:
        client.reset_session()
        srv.stop()


# --- the counter hand-off (slots change hands through the header's counts) -------------

def _ring():
    ring = _session().__dict__.get("_gs_shm")
    assert ring, "the shared-memory ring is not open"
    return ring


def _counts(ring):
    from gpushare import shm
    return {name: int(ring.words[getattr(shm, name)]) for name in (
        "UP_PRODUCED", "UP_CONSUMED", "DOWN_PRODUCED", "DOWN_CONSUMED", "ABORT")}


def test_sizes_around_slot_boundaries_both_ways(cp):
    from gpushare.protocol import STREAM_MIN
    numpy.testing.assert_array_equal(cp.asarray(numpy.ones(MiB)).get(), numpy.ones(MiB))
    ring = _ring()
    s_, n = ring.slot_bytes, ring.slots
    sizes = sorted({k * s_ + d for k in (1, 2, n - 1, n, n + 1, 2 * n, 3 * n + 1)
                    for d in (-1, 0, 1)} | {STREAM_MIN - 1, STREAM_MIN})
    rng = numpy.random.default_rng(7)
    for size in sizes:
        host = rng.integers(0, 256, size, dtype=numpy.uint8)
        before = list(_session().shm_bytes)
        d = cp.asarray(host)                                        # upload, new array
        back = d.get()                                              # download, new array
        numpy.testing.assert_array_equal(back, host)
        host2 = host[::-1].copy()
        d.set(host2)                                                # into an existing one
        out = numpy.zeros(size, numpy.uint8)
        assert d.get(out=out) is out                                # straight into ours
        numpy.testing.assert_array_equal(out, host2)
        moved = [a - b for a, b in zip(_session().shm_bytes, before)]
        assert moved == ([2 * size, 2 * size] if size >= STREAM_MIN else [0, 0]), size
    counts = _counts(ring)                                          # every slot handed back
    assert counts["UP_PRODUCED"] == counts["UP_CONSUMED"] > 0
    assert counts["DOWN_PRODUCED"] == counts["DOWN_CONSUMED"] > 0
    assert counts["ABORT"] == 0
    up, down, worker = _moved()
    assert worker["bytes_in"] == up and worker["bytes_out"] == down


def test_many_transfers_back_to_back_both_ways(cp):
    rng = numpy.random.default_rng(8)
    numpy.testing.assert_array_equal(cp.asarray(numpy.ones(MiB)).get(), numpy.ones(MiB))
    ring = _ring()
    before = _counts(ring)
    d = cp.zeros((1200, 1000), dtype=numpy.float32, order="F")
    total_up = total_down = 0
    for i in range(60):
        rows = 300 + 37 * i
        host = rng.standard_normal((rows, 1000)).astype(numpy.float32)
        if i % 3 == 0:
            host = numpy.asfortranarray(host)
        a = cp.asarray(host)
        b = a * 2                                                   # a call between copies
        numpy.testing.assert_array_equal(b.get(), host * 2)
        numpy.testing.assert_array_equal(cp.asnumpy(a), host)
        total_up += host.nbytes
        total_down += 2 * host.nbytes
        if i % 10 == 0:
            f = numpy.asfortranarray(rng.random((1200, 1000), dtype=numpy.float32))
            d.set(f)
            out = numpy.empty((1200, 1000), numpy.float32, order="F")
            d.get(out=out)
            numpy.testing.assert_array_equal(out, f)
    after = _counts(ring)
    assert after["UP_PRODUCED"] == after["UP_CONSUMED"] > before["UP_PRODUCED"]
    assert after["DOWN_PRODUCED"] == after["DOWN_CONSUMED"]
    assert after["DOWN_CONSUMED"] - before["DOWN_CONSUMED"] >= total_down // ring.slot_bytes
    assert after["ABORT"] == 0


class _StopAt:
    """Runs ``action`` once, just before the client's ``nth`` copy into or out of the
    ring (``numpy.copyto`` on a slot), then lets the copy go on."""

    def __init__(self, monkeypatch, ring, nth, action):
        self.whole = numpy.frombuffer(ring.mm, numpy.uint8)
        self.seen, self.nth, self.action = 0, nth, action
        self.copyto = numpy.copyto
        monkeypatch.setattr(numpy, "copyto", self)

    def __call__(self, dst, src, *args, **kwargs):
        if numpy.may_share_memory(dst, self.whole) or numpy.may_share_memory(src, self.whole):
            self.seen += 1
            if self.seen == self.nth:
                self.action()
        return self.copyto(dst, src, *args, **kwargs)


@pytest.fixture
def own_server(monkeypatch):
    """An ipc server of our own (its worker gets killed) and a session on it whose
    timeout is short."""
    tmp = tempfile.mkdtemp(prefix="gpushare-shm-test-")
    srv = ServerProcess(bind=f"ipc://{tmp}/server", env={"GPUSHARE_TIMEOUT": "3"})
    monkeypatch.delenv("GPUSHARE_SHM", raising=False)
    monkeypatch.setenv("GPUSHARE_TIMEOUT", "5")
    try:
        yield srv
    finally:
        from gpushare import client
        client.reset_session()
        srv.stop()
        os.rmdir(tmp) if os.path.isdir(tmp) and not os.listdir(tmp) else None


def _signal_when(ring, word, count, pid, signum):
    """An action: wait (bounded) until the worker's ``word`` count reaches ``count``, so
    it is in the middle of the copy, then send it ``signum``."""
    import time

    def action():
        deadline = time.monotonic() + 30
        while ring.words[word] < count:
            assert time.monotonic() < deadline, "the worker never got to the copy"
        os.kill(pid, signum)
    return action


@pytest.mark.parametrize("direction", ["upload", "download"])
@pytest.mark.parametrize("how", ["killed", "stopped"])
def test_a_worker_gone_mid_copy_is_a_clear_error_not_a_hang(own_server, monkeypatch,
                                                            direction, how):
    """Killed: the broker says the session is lost. Stopped (SIGSTOP: the broker still
    says it is alive): the client gives up after its timeout without progress."""
    import signal
    import time

    from gpushare import errors, shm
    cupy, s = _connect(monkeypatch, own_server.address)
    assert s.timeout == 5
    if how == "stopped":
        s.timeout = 2
    signum = signal.SIGKILL if how == "killed" else signal.SIGSTOP
    numpy.testing.assert_array_equal(cupy.asarray(numpy.ones(MiB)).get(), numpy.ones(MiB))
    ring = _ring()
    pid = s.call("info", None)["pid"]
    host = numpy.random.default_rng(9).random(ring.slots * ring.slot_bytes)  # 8 rings
    if direction == "upload":
        base = int(ring.words[shm.UP_CONSUMED])
        # before our (slots + 2)th slot the worker has emptied two, and waits for more
        _StopAt(monkeypatch, ring, ring.slots + 2,
                _signal_when(ring, shm.UP_CONSUMED, base + 2, pid, signum))
        copy = lambda: cupy.asarray(host)                          # noqa: E731
    else:
        d = cupy.asarray(host)
        s.synchronize()
        base = int(ring.words[shm.DOWN_PRODUCED])
        # before our third slot the worker has filled more than the ring, and waits
        _StopAt(monkeypatch, ring, 3, _signal_when(ring, shm.DOWN_PRODUCED,
                                                   base + ring.slots, pid, signum))
        copy = d.get
    expected = errors.SessionLostError if how == "killed" else errors.ServerUnavailableError
    started = time.monotonic()
    try:
        with pytest.raises(expected) as info:
            copy()
        took = time.monotonic() - started
        assert took < s.timeout + 10
        if how == "stopped":
            assert took >= s.timeout and "in the middle of a copy" in str(info.value)
            assert int(ring.words[shm.ABORT]) == 1                 # the worker is told
        with pytest.raises(errors.GpushareError):                  # it stays lost, at once
            s.call("info", None)
    finally:
        if how == "stopped":
            os.kill(pid, signal.SIGCONT)
    from gpushare import client                                    # the server goes on
    client.reset_session()
    cupy, s = _connect(monkeypatch, own_server.address)
    numpy.testing.assert_array_equal(cupy.asarray(host[:MiB]).get(), host[:MiB])


def test_a_client_that_stalls_mid_copy_is_dropped_by_the_worker(own_server, monkeypatch):
    """The worker gives up on a client that makes no progress (the server's
    GPUSHARE_TIMEOUT, 3 s here) and sets the abort word; the client, when it goes on,
    gets a clear error instead of waiting for its own timeout."""
    import time

    from gpushare import errors, shm
    cupy, s = _connect(monkeypatch, own_server.address)
    s.timeout = 60                                                 # not what ends it
    numpy.testing.assert_array_equal(cupy.asarray(numpy.ones(MiB)).get(), numpy.ones(MiB))
    ring = _ring()

    def stall():                                                   # until the worker quits
        deadline = time.monotonic() + 30
        while not ring.words[shm.ABORT]:
            assert time.monotonic() < deadline, "the worker never gave up"
            time.sleep(0.01)
    _StopAt(monkeypatch, ring, 2, stall)
    host = numpy.random.default_rng(10).random(3 * ring.slots * ring.slot_bytes // 8)
    started = time.monotonic()
    with pytest.raises(errors.RemoteProtocolError, match="abandoned"):
        cupy.asarray(host)
    assert time.monotonic() - started < 30
    assert int(ring.words[shm.ABORT]) == 2


def test_only_where_stores_keep_their_order(monkeypatch):
    """The counters rely on x86-64's store order: elsewhere neither side offers the ring
    (copies stream as messages)."""
    from gpushare import shm
    from gpushare_server import shm as server_shm
    monkeypatch.delenv("GPUSHARE_SHM", raising=False)
    assert shm.wanted("ipc:///tmp/x") == shm.TSO
    monkeypatch.setattr(shm, "TSO", False)
    monkeypatch.setattr(server_shm, "TSO", False)
    monkeypatch.setenv("GPUSHARE_SHM", "1")
    assert not shm.wanted("ipc:///tmp/x") and not shm.wanted("tcp://127.0.0.1:1")
    assert not server_shm.allowed("ipc:///tmp/x")


@pytest.mark.parametrize("direction", ["upload", "download"])
def test_an_interrupted_copy_leaves_the_ring_and_the_session_goes_on(own_server,
                                                                     monkeypatch, direction):
    """Ctrl-C in the middle of a copy: the client leaves the ring (the abort word tells
    the worker, which stops waiting at once) and later copies stream as messages."""
    import time

    from gpushare import shm
    cupy, s = _connect(monkeypatch, own_server.address)
    numpy.testing.assert_array_equal(cupy.asarray(numpy.ones(MiB)).get(), numpy.ones(MiB))
    ring = _ring()
    host = numpy.random.default_rng(12).random(ring.slots * ring.slot_bytes)  # 8 rings
    d = cupy.asarray(host)
    s.synchronize()

    def interrupt():
        raise KeyboardInterrupt
    _StopAt(monkeypatch, ring, 3, interrupt)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        d.set(host * 2) if direction == "upload" else d.get()
    assert int(ring.words[shm.ABORT]) == 1 and s.__dict__["_gs_shm"] is None
    moved = list(s.shm_bytes)
    info = s.call("info", None)                                    # answers at once: the
    assert time.monotonic() - started < 10                        # worker did not wait
    assert not info["shm"]["active"]
    numpy.testing.assert_array_equal(cupy.asarray(host).get(), host)  # streamed now
    d.set(host * 3)
    numpy.testing.assert_array_equal(d.get(), host * 3)
    assert s.shm_bytes == moved


def test_a_worker_paused_before_it_begins_an_upload_is_waited_for(own_server, monkeypatch):
    """Stopped (SIGSTOP) before it takes the announce, for longer than the client's
    timeout: while the broker says the session is alive the client waits, as any
    wait does; once the worker goes on, the copy completes (its no-progress clock
    starts when the worker begins)."""
    import signal
    import threading
    import time
    cupy, s = _connect(monkeypatch, own_server.address)
    numpy.testing.assert_array_equal(cupy.asarray(numpy.ones(MiB)).get(), numpy.ones(MiB))
    ring = _ring()
    pid = s.call("info", None)["pid"]
    s.timeout = 1.5
    host = numpy.random.default_rng(13).random(3 * ring.slots * ring.slot_bytes // 8)
    os.kill(pid, signal.SIGSTOP)
    resume = threading.Timer(2 * s.timeout, os.kill, (pid, signal.SIGCONT))
    resume.start()
    try:
        started = time.monotonic()
        d = cupy.asarray(host)
        took = time.monotonic() - started
    finally:
        resume.join()
        os.kill(pid, signal.SIGCONT)
    assert took > s.timeout
    numpy.testing.assert_array_equal(d.get(), host)
