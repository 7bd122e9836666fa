"""Faults: dead clients, stopped and killed servers, restarts, load, and fuzzing (issue #6).

Real servers in subprocesses; conditions are polled with deadlines, never slept for.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time

import msgpack
import numpy
import pytest
import zmq

from _servers import BACKEND, ServerProcess, wait_for

pytestmark = pytest.mark.timeout(60)


def status(address: str, wait: float | None = None) -> dict:
    from gpushare.cli import query_status
    return query_status(address, timeout=10, wait=wait)


def open_session(address: str, timeout: float = 10.0):
    from gpushare import client
    from gpushare.cupy import _ndarray
    session = client.Session(address, timeout=timeout)
    _ndarray.install(session)
    return session


def pid_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie child of a process we cannot reap still "exists"
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True
    return False


SESSION_TIMEOUT = 3.0


@pytest.fixture(scope="module")
def short_server():
    """Sessions expire after 3 s of silence; at most 20 sessions at once."""
    srv = ServerProcess("--session-timeout", str(SESSION_TIMEOUT), "--max-sessions", "20",
                        "--memory-limit", "256MiB")
    yield srv
    srv.stop()


# --- dead clients -------------------------------------------------------------------

CLIENT = """
import sys, gpushare.cupy as cp
from gpushare import client
x = cp.ones((1024, 1024), dtype=cp.float64)      # 8 MiB
x.sum().get()
print(client.get_session().session_id, flush=True)
sys.stdin.read()                                   # hold the session until killed
"""


def test_kill9_client_frees_its_session_and_memory(short_server):
    env = {**os.environ, "GPUSHARE_SERVER": short_server.address}
    proc = subprocess.Popen([sys.executable, "-c", CLIENT], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        session_id = proc.stdout.readline().strip()
        assert session_id

        def held():
            mine = [s for s in status(short_server.address)["sessions"]
                    if s["id"] == session_id]
            return mine and mine[0]["memory_bytes"] >= 8 << 20 and mine[0]["handles"] >= 1
        wait_for(held, timeout=10)
        proc.kill()                                # kill -9: no goodbye
        proc.wait(10)
        t = time.monotonic()

        def freed():
            st = status(short_server.address)
            return all(s["id"] != session_id for s in st["sessions"]) and \
                st["memory_bytes"] == 0
        wait_for(freed, timeout=10, interval=0.1)
        assert time.monotonic() - t < SESSION_TIMEOUT + 2.0   # the timeout, plus checks
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_idle_client_is_kept_alive_by_heartbeats(short_server, monkeypatch):
    s = open_session(short_server.address)
    try:
        a = s.call("call", "cupy.arange", (4,))
        idle_until = time.monotonic() + SESSION_TIMEOUT + 1.0   # longer than the timeout
        while time.monotonic() < idle_until:
            time.sleep(0.1)
        assert s.call("method", "sum", (a,)).get() == 6
    finally:
        s.close()
    # without heartbeats the same silence ends the session, and the client is told so
    from gpushare import errors
    monkeypatch.setenv("GPUSHARE_HEARTBEAT", "0")
    s = open_session(short_server.address)
    try:
        a = s.call("call", "cupy.arange", (4,))
        wait_for(lambda: all(x["id"] != s.session_id
                             for x in status(short_server.address)["sessions"]), timeout=10)
        with pytest.raises(errors.SessionLostError, match="unknown to the server"):
            s.call("method", "sum", (a,))
    finally:
        s.close()


def test_status_json_lists_sessions(short_server):
    s = open_session(short_server.address)
    try:
        held = s.call("call", "cupy.zeros", (1000,))  # noqa: F841 - held while asked
        out = subprocess.run([sys.executable, "-m", "gpushare", "status", "--server",
                              short_server.address, "--json"],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        import json
        data = json.loads(out.stdout)
        assert data["backend"] and data["server_version"] and data["devices"]
        mine = [x for x in data["sessions"] if x["id"] == s.session_id]
        assert mine and {"id", "memory_bytes", "handles", "calls", "age_s", "key"} <= set(mine[0])
        assert mine[0]["memory_bytes"] == 8192 and mine[0]["handles"] == 1
        text = subprocess.run([sys.executable, "-m", "gpushare", "status", "--server",
                               short_server.address], capture_output=True, text=True, timeout=30)
        assert s.session_id in text.stdout and "session(s)" in text.stdout
    finally:
        s.close()


def test_a_status_query_is_answered_whatever_wait_it_asks(short_server):
    """A status query's ``wait`` that is not a finite number (NaN never passed, and the
    query was never answered nor dropped while a worker was busy) is the default."""
    s = open_session(short_server.address)
    try:
        from gpushare.cli import query_status
        m = s.call("call", "cupy.ones", ((1200, 1200),))
        prev = None
        for _ in range(50):          # a worker busy for seconds: it answers stats late
            hid = s.new_id()
            s.submit("call", "cupy.matmul", (m, m), out_id=hid)
            if prev is not None:
                s.release(prev)
            prev = hid
        s.flush()
        for wait in (float("nan"), float("inf")):  # answered after the default second
            st = query_status(short_server.address, timeout=2.5, wait=wait)
            assert any(x["id"] == s.session_id for x in st["sessions"])
        s.synchronize()
    finally:
        s.close()


def test_prometheus_metrics():
    pytest.importorskip("prometheus_client")
    import urllib.request
    from _servers import free_port
    port = free_port()
    srv = ServerProcess("--metrics-port", str(port))
    s = open_session(srv.address)
    try:
        a = s.call("call", "cupy.asarray", (numpy.ones(100_000),))      # 800 KB up
        with pytest.raises(ValueError):
            s.call("call", "cupy.add", (a, s.call("call", "cupy.ones", (3,))))

        def scraped():
            text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics",
                                          timeout=5).read().decode()
            values = {}
            for line in text.splitlines():
                if line.startswith("gpushare_") and " " in line:
                    name, value = line.rsplit(" ", 1)
                    values[name] = float(value)
            ok = (values.get("gpushare_sessions") == 1
                  and values.get("gpushare_memory_bytes", 0) >= 800_000
                  and values.get("gpushare_calls_total", 0) >= 3
                  and values.get("gpushare_errors_total", 0) >= 1
                  and values.get("gpushare_bytes_received_total", 0) >= 800_000)
            return values if ok else None
        values = wait_for(scraped, timeout=15, interval=0.2)
        assert values["gpushare_sessions_opened_total"] == 1
    finally:
        s.close()
        srv.stop()


# --- many clients -------------------------------------------------------------------

@pytest.fixture
def roomy_server():
    srv = ServerProcess("--spare-workers", "2")
    yield srv
    srv.stop()


def test_sixteen_concurrent_clients_then_memory_back_to_zero(roomy_server):
    server = roomy_server
    # the default session timeout: 16 sessions starting at once on a small, busy
    # machine may leave a client silent for seconds between handshake and first call
    results: dict[int, object] = {}

    def client_job(k: int) -> None:
        try:
            s = open_session(server.address, timeout=30)
            try:
                x = s.call("call", "cupy.arange", (10_000,), {"dtype": "float64"})
                y = s.call("call", "cupy.multiply", (x, k))
                m = s.call("call", "cupy.ones", ((200, 200),))
                total = s.call("method", "sum", (y,)).get() + s.call("method", "sum", (m,)).get()
                results[k] = float(total)
            finally:
                s.close()
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            results[k] = exc

    threads = [threading.Thread(target=client_job, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(50)
    expected = {k: 49_995_000.0 * k + 40_000.0 for k in range(16)}
    assert results == expected

    def all_freed():
        st = status(server.address)
        return not st["sessions"] and st["memory_bytes"] == 0
    wait_for(all_freed, timeout=10, interval=0.1)


# --- servers that stop, die, restart --------------------------------------------------

@pytest.fixture
def brokered_server():
    """Every call through the broker (--no-direct): the broker's own fault semantics."""
    srv = ServerProcess("--no-direct")
    yield srv
    srv.stop()


def test_sigstopped_server_is_a_connection_error_in_bounded_time(brokered_server):
    fresh_server = brokered_server
    s = open_session(fresh_server.address, timeout=2)
    a = s.call("call", "cupy.arange", (3,))
    os.kill(fresh_server.proc.pid, signal.SIGSTOP)
    try:
        t = time.monotonic()
        with pytest.raises(ConnectionError, match="stopped answering") as info:
            s.call("method", "sum", (a,))
        assert time.monotonic() - t < 5
        assert fresh_server.address in str(info.value)
        with pytest.raises(ConnectionError):     # and it stays an error, quickly
            s.call("method", "sum", (a,))
    finally:
        os.kill(fresh_server.proc.pid, signal.SIGCONT)
        s.close()


def test_sigkilled_server_then_restart_is_reported(brokered_server):
    fresh_server = brokered_server
    from gpushare import errors
    a_sess = open_session(fresh_server.address, timeout=2)
    b_sess = open_session(fresh_server.address, timeout=10)
    restarted = None
    try:
        a = a_sess.call("call", "cupy.arange", (3,))
        b = b_sess.call("call", "cupy.arange", (3,))
        workers = [a_sess.call("info", None)["pid"], b_sess.call("info", None)["pid"]]
        fresh_server.proc.kill()
        fresh_server.proc.wait(10)
        t = time.monotonic()
        with pytest.raises(ConnectionError, match=fresh_server.address):
            a_sess.call("method", "sum", (a,))
        assert time.monotonic() - t < 5
        wait_for(lambda: all(pid_gone(p) for p in workers), timeout=10)  # no orphans
        restarted = ServerProcess(bind=fresh_server.address)
        with pytest.raises(errors.SessionLostError, match="restarted"):
            b_sess.call("method", "sum", (b,))
    finally:
        a_sess.close()
        b_sess.close()
        if restarted is not None:
            restarted.stop()


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.parametrize("path", ["through the broker", "direct"])
def test_sigterm_finishes_in_flight_calls_then_tells_clients(path):
    """SIGTERM: the calls a session's worker is running finish (on the direct path
    too, where the broker does not see them: the drain waits for the worker to answer
    between messages), then the clients are told."""
    fresh_server = ServerProcess(*(["--no-direct"] if path != "direct" else []))
    from gpushare import errors
    s = open_session(fresh_server.address, timeout=20)
    try:
        m = s.call("call", "cupy.ones", ((300, 300),))
        prev = None
        last = 0
        with s._lock:  # (one message: on a loaded machine the idle flush could split it)
            for _ in range(100):                 # ~1 s of work, queued in one batch
                hid = s.new_id()
                s.submit("call", "cupy.matmul", (m, m), out_id=hid)
                if prev is not None:
                    s.release(prev)
                prev = last = hid
            s.flush()

        (mine,) = [x for x in status(fresh_server.address, wait=0)["sessions"]
                   if x["id"] == s.session_id]
        worker, busy = mine["worker_pid"], _cpu_seconds(mine["worker_pid"])

        def in_flight():
            if path == "direct":  # the worker is at it (the broker does not see it)
                return _cpu_seconds(worker) > busy + 0.05
            st = status(fresh_server.address, wait=0)   # the broker's numbers, at once
            return any(x["id"] == s.session_id and x["in_flight"] for x in st["sessions"])
        wait_for(in_flight, timeout=10, interval=0.01)
        fresh_server.proc.send_signal(signal.SIGTERM)
        s.synchronize()                          # every queued call ran
        assert s._done_seq >= s._seq and last
        assert fresh_server.proc.wait(20) == 0
        with pytest.raises(errors.SessionLostError, match="shut down|shutting down"):
            s.call("method", "sum", (m,))        # the client was told
    finally:
        s.close()
        fresh_server.stop()


def test_a_wait_its_replies_satisfy_returns_though_the_shutdown_word_came_first():
    """On the direct path the worker's last replies and the broker's word that the
    server stopped come on two connections, in either order: a wait that those replies
    satisfy returns (the calls ran), and the next call raises the session's end."""
    fresh_server = ServerProcess()
    from gpushare import errors
    s = open_session(fresh_server.address, timeout=20)
    direct = s._data
    try:
        m = s.call("call", "cupy.ones", ((200, 200),))
        with s._lock:
            for _ in range(20):
                hid = s.new_id()
                s.submit("call", "cupy.matmul", (m, m), out_id=hid)
                s.release(hid)
            s.flush()
            last = s._seq
        fresh_server.proc.send_signal(signal.SIGTERM)
        assert fresh_server.proc.wait(20) == 0  # both words are on their way, or here
        # (read every socket at once, the broker's first: as a wait does once the
        # worker has been silent a while)
        s._data = None
        s.synchronize()
        assert s._done_seq >= last
        with pytest.raises(errors.SessionLostError, match="shut down"):
            s.call("method", "sum", (m,))
    finally:
        s._data = direct  # (closed with the others)
        s.close()
        fresh_server.stop()


# --- a crashing session beside a healthy one ---------------------------------------------

def test_killed_worker_costs_only_its_session(short_server):
    from gpushare import errors
    healthy, victim = open_session(short_server.address), open_session(short_server.address)
    try:
        h = healthy.call("call", "cupy.arange", (10,))
        os.kill(victim.call("info", None)["pid"], signal.SIGKILL)
        with pytest.raises(errors.SessionLostError, match="SIGKILL"):
            wait_for(lambda: victim.call("info", None) and False, timeout=10)
        assert healthy.call("method", "sum", (h,)).get() == 45
    finally:
        healthy.close()
        victim.close()


# --- fuzzing ------------------------------------------------------------------------

def _valid_batches() -> list[list[bytes]]:
    """Real batch messages (as the client encodes them) to mutate."""
    from gpushare.protocol import Encoder, HandleRef
    calls = [
        [1, "method", "sum", [HandleRef(1)], {}, None, True],
        [2, "getattr", "shape", [HandleRef(1)], {}, None, True],
        [3, "info", None, [], {}, None, True],
        [4, "call", "cupy.negative", [HandleRef(1)], {}, 2, False],
        [5, "call", "cupy.add", [HandleRef(1), 1.5], {"dtype": None}, 3, False],
        [6, "getitem", None, [HandleRef(2), (slice(0, 2, None), Ellipsis)], {}, None, True],
        [7, "meta", None, [HandleRef(3)], {}, None, True],
    ]
    out = []
    for n in range(1, len(calls) + 1):
        enc = Encoder(first_frame=2)
        body = b"".join(enc.pack(c) for c in calls[:n])
        out.append([msgpack.packb({"t": "batch", "n": n, "release": [[0, 9]], "ack": 3}),
                    body])
    return out


def test_fuzzing_never_hurts_an_honest_client():
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    srv = ServerProcess("--max-sessions", "4", "--memory-limit", "64MiB",
                        "--max-message-size", "1MiB")
    errors_logged = srv.err_lines  # the ServerProcess drains stderr into this list
    ctx = zmq.Context()
    stranger = ctx.socket(zmq.DEALER)              # no session: the broker parses
    insider = ctx.socket(zmq.DEALER)               # a session: its worker parses
    honest = None
    sent = [0]
    try:
        for sock in (stranger, insider):
            sock.setsockopt(zmq.LINGER, 0)
            sock.connect(srv.address)
        from gpushare.protocol import PROTOCOL_VERSION
        insider.send_multipart([msgpack.packb({"t": "hello", "v": PROTOCOL_VERSION})])
        assert insider.poll(10000)
        assert msgpack.unpackb(insider.recv_multipart()[0], raw=False)["t"] == "welcome"
        honest = open_session(srv.address)
        data = numpy.arange(100, dtype=numpy.float64)
        x = honest.call("call", "cupy.asarray", (data,))
        bases = _valid_batches()
        kinds = st.sampled_from(["batch", "ping", "status", "nope", 7, None, b"batch"])
        header = st.fixed_dictionaries(
            {"t": kinds},
            optional={"n": st.integers(-2, 2 ** 40) | st.text(max_size=3),
                      "release": st.lists(st.lists(st.integers(-3, 3) | st.none(),
                                                   max_size=3), max_size=3) | st.integers(-2 ** 63, 2 ** 63 - 1),
                      "ack": st.integers(-1, 9) | st.binary(max_size=3)})
        random_frames = st.lists(st.binary(max_size=48), min_size=1, max_size=4)
        structured = st.tuples(header.map(lambda h: msgpack.packb(h, use_bin_type=True)),
                               st.lists(st.binary(max_size=32), max_size=2)
                               ).map(lambda t: [t[0], *t[1]])
        mutated = st.tuples(st.sampled_from(range(len(bases))),
                            st.lists(st.tuples(st.integers(0, 1), st.integers(0, 10 ** 6),
                                               st.integers(0, 255)), min_size=1, max_size=4),
                            st.booleans()).map(lambda t: _mutate(bases[t[0]], t[1], t[2]))
        message = st.tuples(st.booleans(), random_frames | structured | mutated)

        def drain() -> None:
            for sock in (stranger, insider):
                while sock.poll(0):
                    sock.recv_multipart()

        # hypothesis shapes 10 messages per example; a seeded RNG it draws adds 90
        # more random and mutated ones (hypothesis alone is too slow for 10,000 here)
        @settings(max_examples=100, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(st.lists(message, min_size=10, max_size=10), st.integers(0, 2 ** 32 - 1))
        def fuzz(messages, seed):
            rng = random.Random(seed)
            messages = [*messages, *(_random_message(rng, bases) for _ in range(90))]
            for to_insider, frames in messages:
                (insider if to_insider else stranger).send_multipart(frames)
                sent[0] += 1
            drain()
            # the honest client, between every 100 hostile messages, gets right answers
            k = random.randint(1, 9)
            y = honest.call("call", "cupy.multiply", (x, k))
            assert honest.call("method", "sum", (y,)).get() == 4950.0 * k

        fuzz()
        assert sent[0] >= 10_000
        assert srv.proc.poll() is None                     # the server lives
        st_ = status(srv.address)
        assert any(s["id"] == honest.session_id for s in st_["sessions"])
        # the insider's hostile batches really reached its worker
        assert any(s["id"] != honest.session_id and s["batches"] >= 500
                   for s in st_["sessions"]), st_["sessions"]
        insider.send_multipart([msgpack.packb({"t": "ping"})])    # and the insider's
        reply = wait_for(lambda: _recv_pong(insider), timeout=10)  # session, too
        assert reply["alive"] is True
        assert not [line for line in errors_logged if "Traceback" in line], errors_logged
    finally:
        if honest is not None:
            honest.close()
        stranger.close()
        insider.close()
        ctx.term()
        srv.stop()


def _recv_pong(sock):
    while sock.poll(100):
        reply = msgpack.unpackb(sock.recv_multipart()[0], raw=False, strict_map_key=False)
        if isinstance(reply, dict) and reply.get("t") == "pong":
            return reply
    return None


_KINDS = ["batch", "ping", "status", "bye?", "hello!", "", 0, None, b"batch", [1], {"t": 1}]


def _random_message(rng: random.Random, bases: list) -> tuple[bool, list[bytes]]:
    """One hostile message: random frames, a random header, or a mutated real batch."""
    choice = rng.random()
    if choice < 0.3:
        frames = [rng.randbytes(rng.randint(0, 64)) for _ in range(rng.randint(1, 4))]
    elif choice < 0.55:
        header = {"t": rng.choice(_KINDS)}
        for key in rng.sample(["n", "release", "ack", "v", "calls", "wait"], rng.randint(0, 3)):
            header[key] = rng.choice([rng.randint(-2 ** 63, 2 ** 63 - 1), rng.randint(-3, 9),
                                      "x" * rng.randint(0, 5), [[0, rng.randint(-2, 9)]],
                                      None, 1.5, [], {}])
        frames = [msgpack.packb(header), *(rng.randbytes(rng.randint(0, 32))
                                           for _ in range(rng.randint(0, 2)))]
    else:
        edits = [(rng.randint(0, 1), rng.randint(0, 10 ** 6), rng.randint(0, 255))
                 for _ in range(rng.randint(1, 4))]
        frames = _mutate(rng.choice(bases), edits, rng.random() < 0.3)
    return rng.random() < 0.5, frames


def _mutate(frames: list[bytes], edits: list, truncate: bool) -> list[bytes]:
    out = [bytearray(f) for f in frames]
    for which, pos, value in edits:
        frame = out[which % len(out)]
        if frame:
            frame[pos % len(frame)] = value
    if truncate and out[-1]:
        del out[-1][len(out[-1]) // 2:]
    return [bytes(f) for f in out]


def test_a_session_that_fails_to_start_leaves_no_socket_open():
    """A handshake that goes wrong (here a reply that is no welcome) raises a clear
    error, and the session's ZeroMQ context is ended there and then: one left with an
    open socket would block the program later, in its term(), when collected."""
    from gpushare import client, errors
    from gpushare.protocol import Decoder, Encoder
    import gc

    def open_contexts() -> set:  # (not collected here: that is what could block)
        return {id(o) for o in gc.get_objects() if isinstance(o, zmq.Context) and not o.closed}
    before = open_contexts()
    ctx = zmq.Context()
    fake = ctx.socket(zmq.ROUTER)
    fake.setsockopt(zmq.LINGER, 0)
    port = fake.bind_to_random_port("tcp://127.0.0.1")

    def answer() -> None:  # the fake server answers the hello with nonsense
        if fake.poll(10000):
            ident, *frames = fake.recv_multipart(copy=False)
            assert Decoder(frames).decode()["t"] == "hello"
            fake.send_multipart([ident, *Encoder().encode({"t": "nonsense"})])
    t = threading.Thread(target=answer)
    t.start()
    try:
        with pytest.raises(errors.RemoteProtocolError, match="unexpected handshake reply") as ei:
            client.Session(f"tcp://127.0.0.1:{port}", timeout=10)
        # the error's traceback holds the half-made session: its context is ended already
        assert ei.tb is not None and open_contexts() <= before | {id(ctx)}
    finally:
        t.join(10)
        fake.close(0)
        ctx.term()


def test_a_session_whose_worker_starts_slowly_is_welcomed_not_expired(tmp_path):
    """On a loaded machine a worker can take longer to start than the session timeout;
    the client, waiting for its welcome, is not silent: the session's clock starts at
    the welcome (here every worker takes 2.5 s to start, against a 1 s timeout)."""
    (tmp_path / "sitecustomize.py").write_text(
        "import sys, time\n"
        "if 'gpushare_server.worker' in sys.orig_argv:\n"
        "    time.sleep(2.5)\n")
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)
    srv = ServerProcess("--session-timeout", "1", env={"PYTHONPATH": path})
    sessions = []
    try:
        for _ in range(2):  # the second one's worker starts when it asks
            # (the client's own wait: a CuPy worker also starts CUDA, slowly while other
            # tests share the GPU; the session's 1 s is the point)
            sessions.append(open_session(srv.address, 10 if BACKEND == "cpu" else 40))
        for k, s in enumerate(sessions):
            x = s.call("call", "cupy.arange", (4,))
            assert float(s.call("method", "sum", (x,))) == 6.0, k
    finally:
        for s in sessions:
            s.close()
        srv.stop()


# --- host memory ----------------------------------------------------------------------

@pytest.mark.skipif(BACKEND != "cpu", reason="the CPU backend's arrays live in the worker's "
                    "heap, which --host-memory bounds; a GPU's live in device memory (on the "
                    "cupy backend 1 GiB fits and nothing is refused)")
def test_a_session_that_outgrows_its_host_memory_gets_out_of_memory_not_killed():
    """On the CPU backend a session's arrays live in its worker's heap: past the host
    memory bound (``--host-memory``; by default what the host has available), NumPy's
    allocation fails and the call raises CuPy's OutOfMemoryError instead of the kernel's
    OOM killer ending the session. The session goes on; others never notice."""
    from gpushare import errors
    srv = ServerProcess("--host-memory", "512MiB")
    a = b = None
    try:
        a, b = open_session(srv.address), open_session(srv.address)
        pid = a.call("info", None)["pid"]
        with open(f"/proc/{pid}/oom_score_adj") as f:
            assert int(f.read()) >= 500  # a worker goes before the broker
        kept = a.call("call", "cupy.ones", ((64 << 20) // 8,))  # 64 MiB: fits
        with pytest.raises(errors.OutOfMemoryError):
            a.call("call", "cupy.ones", ((1 << 30) // 8,))      # 1 GiB: does not
        # no half-made array was kept, and the session still computes
        assert a.call("method", "sum", (kept,)).get() == (64 << 20) // 8
        more = [a.call("call", "cupy.zeros", ((64 << 20) // 8,)) for _ in range(3)]
        assert a.call("method", "sum", (more[-1],)).get() == 0
        h = b.call("call", "cupy.arange", (10,))  # the other session: unaffected
        assert b.call("method", "sum", (h,)).get() == 45
    finally:
        for s in (a, b):
            if s is not None:
                s.close()
        srv.stop()


def test_sessions_are_spread_over_the_servers_gpus():
    """``--devices`` (by default every GPU a GPU server sees): each session's worker
    sees one GPU, the least used one (``CUDA_VISIBLE_DEVICES`` set for it alone), and
    ``gpushare status`` says which. The CPU backend takes the list as labels."""
    import json
    # (the CPU backend: on a GPU machine these labels would hide its GPUs)
    srv = ServerProcess("--devices", "3,5", "--spare-workers", "1", backend="cpu")
    sessions = []
    try:
        for _ in range(4):
            sessions.append(open_session(srv.address))
        for s in sessions:  # each works
            assert float(s.call("call", "cupy.ones", (3,)).sum().get()) == 3.0

        def status():
            out = subprocess.run([sys.executable, "-m", "gpushare", "status", "--server",
                                  srv.address, "--json"], capture_output=True, text=True,
                                 timeout=30)
            assert out.returncode == 0, out.stderr
            return {x["id"]: x for x in json.loads(out.stdout)["sessions"]}
        placed = status()
        devices = [placed[s.session_id]["device"] for s in sessions]
        assert sorted(devices) == ["3", "3", "5", "5"], devices
        for s in sessions:
            pid = placed[s.session_id]["worker_pid"]
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(item.split(b"=", 1) for item in f.read().split(b"\0") if b"=" in item)
            assert env[b"CUDA_VISIBLE_DEVICES"].decode() == placed[s.session_id]["device"]
        # a session that ends frees its place: the next goes where the fewest are
        gone = next(s for s in sessions if placed[s.session_id]["device"] == "5")
        gone.close()
        sessions.remove(gone)
        wait_for(lambda: len(status()) == 3, timeout=20)
        sessions.append(open_session(srv.address))
        assert status()[sessions[-1].session_id]["device"] == "5"
        text = subprocess.run([sys.executable, "-m", "gpushare", "status", "--server",
                               srv.address], capture_output=True, text=True, timeout=30)
        assert "gpu" in text.stdout and "spread over GPUs 3,5" in text.stdout
    finally:
        for s in sessions:
            s.close()
        srv.stop()
    bad = subprocess.run([sys.executable, "-m", "gpushare", "serve", "--backend", "cpu",
                          "--devices", "0,,1"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "--devices" in bad.stderr


def test_a_call_past_max_call_seconds_ends_only_its_session():
    """``--max-call-seconds``: a session whose message of calls runs longer (here an
    endless kernel) is ended, its client told why, at once; another session goes on."""
    from gpushare import errors
    # (on a GPU a new worker's first calls, CUDA's start and NVRTC's compiles while
    # other tests share the device, may take more than a second of their own)
    limit = 1 if BACKEND == "cpu" else 5
    srv = ServerProcess("--max-call-seconds", str(limit))
    spinner = open_session(srv.address, timeout=20)
    other = open_session(srv.address, timeout=20)
    try:
        x = spinner.call("call", "cupy.ones", (4,), {"dtype": "float32"})
        kernel = spinner.call("call", "cupy.RawKernel", (
            'extern "C" __global__ void spin(float* x) '
            '{ volatile float* v = x; while (v[0] > 0) { } }', "spin"))
        kept = other.call("call", "cupy.arange", (5,))
        with pytest.raises(errors.SessionLostError, match=r"longer than the server allows "
                                                          r"\(%d s, --max-call-seconds\)"
                                                          % limit):
            spinner.call("method", "__call__", (kernel, (1,), (1,), (x,)))
            # (a GPU launches asynchronously, as CuPy does: the launch returns and the
            # copy back waits for the kernel; the emulator runs it in the call)
            spinner.download(x)
        assert other.call("method", "sum", (kept,)) == 10
    finally:
        spinner.close()
        other.close()
        srv.stop()


def _children(pid: int) -> int:
    """How many processes ``pid`` has (read from /proc)."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                count += 1
    return count


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="counts processes in /proc")
def test_a_loop_of_handshakes_starts_boundedly_many_workers():
    """Each handshake on a connection ends that connection's session and starts a
    worker; a loop of them is refused ("busy") before the processes starting and
    stopping outnumber twice ``--max-sessions`` (plus the spares), and a well-behaved
    client still gets its session."""
    from gpushare.protocol import PROTOCOL_VERSION
    srv = ServerProcess("--max-sessions", "2", "--spare-workers", "1")
    ctx = zmq.Context()
    storm = ctx.socket(zmq.DEALER)
    storm.setsockopt(zmq.LINGER, 0)
    storm.connect(srv.address)
    most, busy = 0, 0
    try:
        hello = [msgpack.packb({"t": "hello", "v": PROTOCOL_VERSION})]
        for _ in range(40):
            for _ in range(10):
                storm.send_multipart(hello)
            while storm.poll(20):
                reply = msgpack.unpackb(storm.recv_multipart()[0], raw=False)
                busy += reply.get("t") == "fatal" and "starting or ending" in str(reply)
            most = max(most, _children(srv.proc.pid))
        assert busy > 0
        assert most <= 2 * 2 + 1, most
        storm.close()
        wait_for(lambda: _children(srv.proc.pid) <= 2, timeout=30)
        honest = open_session(srv.address, timeout=20)
        try:
            assert honest.call("method", "sum", (honest.call("call", "cupy.arange", (5,)),)) == 10
        finally:
            honest.close()
    finally:
        storm.close()
        ctx.term()
        srv.stop()


def test_a_refused_connection_fails_well_before_the_timeout():
    """Nothing listens at the address (a wrong port, a server not started): the client
    says so once the connection has been refused for 10 s, not after GPUSHARE_TIMEOUT
    (60 s here) of silence, and names the address."""
    from _servers import free_port, run_python
    address = f"tcp://127.0.0.1:{free_port()}"
    code = """
import time
import gpushare.cupy as cp
from gpushare.errors import ServerUnavailableError
start = time.monotonic()
try:
    cp.arange(3)
except ServerUnavailableError as exc:
    print(time.monotonic() - start)
    print(exc)
"""
    out = run_python(code, env={"GPUSHARE_SERVER": address, "GPUSHARE_TIMEOUT": "60"},
                     timeout=55)
    took, message = out.stdout.splitlines()[:2]
    assert 9.5 < float(took) < 40, out.stdout
    assert message.startswith(f"gpushare: nothing accepts connections at {address} "
                              "(refused for 10 s)"), message
