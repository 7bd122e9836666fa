"""A short network interruption loses nothing: calls carry sequence numbers, none is
lost or applied twice after ZeroMQ reconnects (``gpushare/reliable.py``).

The interruption is real: the client reaches the server through ``CuttableProxy``
relays (on 127.0.0.2, the server listens on 127.0.0.1), which reset every connection
at once, mid-traffic, while the client pipelines calls and streams copies.
"""
from __future__ import annotations

import contextlib
import os
import random
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from _proxy import CuttableProxy
from _servers import ServerProcess, free_port

pytestmark = pytest.mark.timeout(180)

PROXY_HOST = "127.0.0.2"

CLIENT = r"""
import sys
import numpy as np
import gpushare.cupy as cp
from gpushare.client import get_session

session = get_session()
direct = session.info.get("direct")
print("DIRECT", direct["endpoint"] if direct else "-", flush=True)
sys.stdin.readline()  # the test relays the direct port too before any call

rng = np.random.default_rng(7)
x = cp.zeros(1000, dtype=cp.int64)
ROUNDS = int(sys.argv[1])
r = 0
# at least ROUNDS rounds, and on until a cut has really caught messages in flight (a
# resend either way), so the test never passes without exercising recovery
while r < ROUNDS or (session._out.resent + session.gaps == 0 and r < 10 * ROUNDS):
    for _ in range(30):
        for _ in range(10):
            x += 1                  # pipelined: lost or repeated calls change the count
        session.flush()             # many small messages in flight when a cut comes
    h = rng.random(6 * (1 << 17))   # 6 MiB: a streamed upload and download
    d = cp.asarray(h) * 2
    back = d.get()
    assert np.array_equal(back, h * 2), "a streamed copy came back wrong"
    small = cp.asarray(h[:100]) + 1
    assert np.array_equal(small.get(), h[:100] + 1)
    assert int(x[0]) == 300 * (r + 1), (int(x[0]), 300 * (r + 1))
    r += 1
assert int(x.sum()) == 300 * r * 1000
print("OK", session.resyncs, session._out.resent + session.gaps, flush=True)
"""


def _cut_repeatedly(proxies: list, stop: threading.Event) -> None:
    """Cut every connection at random moments (20-60 ms apart) until ``stop``."""
    rng = random.Random(3)
    while not stop.wait(rng.uniform(0.02, 0.06)):
        for proxy in proxies:
            proxy.cut(0.02)


@contextlib.contextmanager
def _relayed_client(server: ServerProcess, script: str, env: dict,
                    args: tuple = ()) -> Iterator[tuple]:
    """Run ``script`` as a client reaching ``server`` only through cuttable relays (the
    broker's port, and its session worker's once the script prints ``DIRECT endpoint``
    and reads a line); yield ``(process, relays, first line)``, clean both up after."""
    port = int(server.address.rsplit(":", 1)[1])
    proxies = [CuttableProxy((PROXY_HOST, port), ("127.0.0.1", port))]
    env = {"GPUSHARE_SERVER": f"tcp://{PROXY_HOST}:{port}", **env}
    proc = subprocess.Popen([sys.executable, "-c", script, *args], text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, **env})
    try:
        first = proc.stdout.readline()
        endpoint = first.split()[1] if first.startswith("DIRECT") else "-"
        if endpoint != "-":
            wport = int(endpoint.rsplit(":", 1)[1])
            proxies.append(CuttableProxy((PROXY_HOST, wport), ("127.0.0.1", wport)))
        proc.stdin.write("go\n")
        proc.stdin.flush()
        yield proc, proxies, first
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for proxy in proxies:
            proxy.close()


def _run_client(server: ServerProcess, direct: bool, rounds: int) -> tuple[list, int]:
    env = {"GPUSHARE_TIMEOUT": "20", "GPUSHARE_DIRECT": "1" if direct else "0"}
    with _relayed_client(server, CLIENT, env, (str(rounds),)) as (proc, proxies, first):
        stop = threading.Event()
        cutter = threading.Thread(target=_cut_repeatedly, args=(proxies, stop), daemon=True)
        cutter.start()
        try:
            lines = [first, *proc.stdout.readlines()]
            proc.wait(120)
        finally:
            stop.set()
            cutter.join(10)
        return lines + [proc.stderr.read()], proc.returncode


@pytest.mark.parametrize("direct", [True, False], ids=["direct", "through-broker"])
def test_interruptions_lose_and_repeat_nothing(direct: bool) -> None:
    extra = () if direct else ("--no-direct",)
    server = ServerProcess(*extra, bind=f"tcp://127.0.0.1:{free_port()}")
    try:
        lines, code = _run_client(server, direct, rounds=6)
    finally:
        server.stop()
    out = "".join(lines)
    assert code == 0, out
    ok = [line for line in lines if line.startswith("OK")]
    assert ok, out
    resyncs, recovered = map(int, ok[0].split()[1:3])
    # the cuts came mid-traffic: messages were lost and sent again (exactly once)
    assert resyncs >= 1 and recovered >= 1, out


PARTITIONED = r"""
import sys, time
import gpushare.cupy as cp
from gpushare.client import get_session
from gpushare.errors import ServerUnavailableError, SessionLostError
session = get_session()
direct = session.info.get("direct")
print("DIRECT", direct["endpoint"] if direct else "-", flush=True)
sys.stdin.readline()
x = cp.arange(10.0)
assert float(x.sum()) == 45.0
print("READY", flush=True)
sys.stdin.readline()            # the network is down now, for longer than the timeout
t = time.monotonic()
try:
    float((x * 2).sum())
except (ServerUnavailableError, SessionLostError) as exc:
    assert isinstance(exc, ConnectionError)
    print("RAISED", round(time.monotonic() - t, 1), type(exc).__name__, str(exc)[:200],
          flush=True)
"""


def test_a_partition_longer_than_the_timeout_is_a_connection_error_not_a_hang() -> None:
    server = ServerProcess(bind=f"tcp://127.0.0.1:{free_port()}")
    try:
        with _relayed_client(server, PARTITIONED, {"GPUSHARE_TIMEOUT": "3"}) as (
                proc, proxies, _):
            assert proc.stdout.readline().startswith("READY")
            for proxy in proxies:
                proxy.cut(60)  # down for a minute: far longer than the client's 3 s
            proc.stdin.write("go\n")
            proc.stdin.flush()
            out, err = proc.communicate(timeout=60)
    finally:
        server.stop()
    assert proc.returncode == 0, err
    raised = [line for line in out.splitlines() if line.startswith("RAISED")]
    assert raised, out + err
    seconds = float(raised[0].split()[1])
    assert seconds < 15, raised[0]                 # bounded: the timeout, not forever
    assert PROXY_HOST in raised[0]                 # it names the server
