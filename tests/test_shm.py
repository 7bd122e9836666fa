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
    back = df.get()
    assert back.flags.f_contiguous and not back.flags.c_contiguous
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
        back = cupy.asarray(host).get()
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
                  ["free", 1, 99]):
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
back = d.get()
assert numpy.array_equal(back, h) and back.flags.f_contiguous
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
