"""Where gpushare's time goes: ``python -m benchmarks.profile [--workload a|b|c|d]``.

Runs one workload against a real server, with cProfile on the client (in this
process) and, when ``py-spy`` is installed, py-spy sampling the server (the broker and
its session worker; non-idle samples only). Prints the top functions of each side:
self time (where the CPU goes) and inclusive time of gpushare's own functions.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from typing import Any

import numpy

from . import systems
from ._util import MiB


def _workload(g: systems.Gpushare, name: str, scale: int) -> tuple[float, str]:
    if name == "a":
        n = 10_000 * scale
        return g.small_ops(n, 1000) / n * 1e6, "us per op"
    if name == "b":
        n = 1000 * scale
        return g.round_trips(n) / n * 1e6, "us per round trip"
    if name == "c":
        host = numpy.ones(64 * MiB, dtype=numpy.uint8)
        t = sum(g.upload(host) + g.download(64 * MiB) for _ in range(scale))
        return 2 * scale * 64 / t, "MiB/s (64 MiB up and down)"
    if name == "d":
        return g.matmul(512, 20 * scale), "s"
    raise SystemExit(f"unknown workload {name!r}")


def breakdown(backend: str = "cpu", n: int = 10_000, replay_profile: int = 0) -> dict:
    """Split workloads (a) and (b) into client time, server executor time and the rest.

    The client's messages are recorded while the workload runs against a real server,
    then replayed into an in-process ``SessionExecutor`` (no sockets): that is the
    server's own cost. ``client_cpu_us`` is the client's main-thread CPU time (so
    other processes' load does not count), less the time spent polling for replies
    (``GPUSHARE_SPIN_US``: waiting, not work); ``client_issue_us`` the wall time of the
    loop without the final read. With ``replay_profile`` (a count of lines), the replay
    is timed, then run again under cProfile: each workload's ``"replay_profile"`` is
    the executor's top functions by self time (what to trim on a backend).
    """
    from gpushare import client
    from gpushare_server.backends import load_backend
    from gpushare_server.session import SessionExecutor

    polled = [0.0]  # main-thread CPU spent polling for replies
    spin = client.spin

    def timed_spin(sock: object, seconds: float) -> None:
        c = time.thread_time()
        spin(sock, seconds)
        polled[0] += time.thread_time() - c

    # (a wait on the express connection polls in ``Express.wait``: the same)
    from gpushare.express import Express
    express_wait = Express.wait

    def timed_express_wait(self: Any, spin_s: float, timeout: float) -> Any:
        c = time.thread_time()
        try:
            return express_wait(self, spin_s, timeout)
        finally:
            polled[0] += time.thread_time() - c

    g = systems.Gpushare({"backend": backend})
    g.start()
    out: dict = {}
    try:
        cp, s = g.cp, g.session
        recorded: list[list[bytes]] = []
        send = s._send_data  # calls and data (before their sequence-number envelope)

        def recording_send(frames: list) -> None:
            recorded.append([bytes(f) for f in frames])
            send(frames)

        for name in ("a", "b"):
            count = n if name == "a" else n // 10
            s.synchronize()
            recorded.clear()
            s._send_data = recording_send  # type: ignore[method-assign]
            client.spin = timed_spin  # type: ignore[assignment]
            Express.wait = timed_express_wait  # type: ignore[method-assign]
            t0 = time.perf_counter()
            x = cp.arange(1000, dtype=cp.float32)
            float(x[0])
            c1 = time.thread_time()
            polled[0] = 0.0
            t1 = time.perf_counter()
            if name == "a":
                for _ in range(count):
                    x = x + 1.0
                t2 = time.perf_counter()
                float(x[0])
            else:
                for _ in range(count):
                    float(x.sum())
                t2 = time.perf_counter()
            t3 = time.perf_counter()
            c3 = time.thread_time() - polled[0]
            s._send_data = send  # type: ignore[method-assign]
            client.spin = spin  # type: ignore[assignment]
            Express.wait = express_wait  # type: ignore[method-assign]
            del x
            executor = SessionExecutor(load_backend(backend))
            batches = [m for m in recorded if m and b"batch" in m[0][:16]]
            # replay: the first batches make the array (not timed with the loop)
            setup = 0
            while setup < len(batches):
                executor.handle(batches[setup])
                setup += 1
                if name == "a" and setup >= 2 or name == "b" and setup >= 2:
                    break
            r0 = time.perf_counter()
            for frames in batches[setup:]:
                executor.handle(frames)
            r1 = time.perf_counter()
            profiled = ""
            if replay_profile:
                prof = cProfile.Profile()
                prof.enable()
                for frames in batches[setup:]:
                    executor.handle(frames)
                prof.disable()
                text = io.StringIO()
                pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(
                    replay_profile)
                profiled = "\n".join(text.getvalue().splitlines()[4:])
            out[name] = {"replay_profile": profiled,"calls": count, "messages": len(batches) - setup,
                         "end_to_end_us": (t3 - t1) / count * 1e6,
                         "client_issue_us": (t2 - t1) / count * 1e6,
                         "client_cpu_us": (c3 - c1) / count * 1e6,
                         "server_executor_us": (r1 - r0) / count * 1e6,
                         "setup_s": t1 - t0}
    finally:
        g.stop()
    return out


def _spy_summary(path: str, top: int) -> str:
    """Self time per function and inclusive time of gpushare functions, per process."""
    self_time: dict[str, Counter] = {}
    inclusive: dict[str, Counter] = {}
    totals: Counter = Counter()
    with open(path) as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            frames = stack.split(";")
            procs = [fr for fr in frames if fr.startswith("process ")]
            kind = "worker" if procs and "gpushare_server.worker" in procs[-1] else "broker"
            frames = [fr for fr in frames if not fr.startswith(("process ", "thread "))]
            n = int(count)
            totals[kind] += n
            self_time.setdefault(kind, Counter())[frames[-1] if frames else "?"] += n
            seen = set()
            for fr in frames:
                if "gpushare" in fr and fr not in seen:
                    seen.add(fr)
                    inclusive.setdefault(kind, Counter())[fr] += n
    out = io.StringIO()
    for kind in ("broker", "worker"):
        total = totals[kind]
        if not total:
            continue
        out.write(f"\n--- server {kind}: {total} busy samples ---\nself time:\n")
        for fr, n in self_time[kind].most_common(top):
            out.write(f"  {100 * n / total:5.1f}%  {fr}\n")
        out.write("inclusive (gpushare functions):\n")
        for fr, n in inclusive.get(kind, Counter()).most_common(top):
            out.write(f"  {100 * n / total:5.1f}%  {fr}\n")
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile")
    parser.add_argument("--workload", default="a", choices=["a", "b", "c", "d"])
    parser.add_argument("--backend", default="cpu", choices=["cpu", "cupy"])
    parser.add_argument("--scale", type=int, default=3, help="repeat the workload N times")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--no-server", action="store_true", help="client profile only")
    parser.add_argument("--breakdown", action="store_true",
                        help="split (a) and (b) into client, server executor and the rest")
    parser.add_argument("--calls", type=int, default=10_000,
                        help="with --breakdown: (a)'s calls ((b) makes a tenth)")
    parser.add_argument("--replay-profile", action="store_true",
                        help="with --breakdown: cProfile the server executor's replay")
    args = parser.parse_args(argv)
    if args.breakdown:
        top = args.top if args.replay_profile else 0
        for name, r in breakdown(args.backend, args.calls, replay_profile=top).items():
            rest = r["end_to_end_us"] - r["server_executor_us"] - r["client_cpu_us"]
            print(f"({name}) {r['calls']} calls in {r['messages']} messages: end to end "
                  f"{r['end_to_end_us']:.1f} us/call; client CPU (main thread) "
                  f"{r['client_cpu_us']:.1f}; server executor alone "
                  f"{r['server_executor_us']:.1f}; the rest (wire, broker, worker loop, "
                  f"scheduling) {rest:.1f}")
            if r["replay_profile"]:
                print(f"--- ({name}) server executor replay (cProfile, by self time) ---")
                print(r["replay_profile"])
        return 0

    g = systems.Gpushare({"backend": args.backend})
    g.start()
    spy = None
    raw = os.path.join(tempfile.mkdtemp(prefix="gpushare-prof-"), "server.txt")
    try:
        _workload(g, args.workload, 1)  # warm up: imports, caches, the worker's first calls
        py_spy = shutil.which("py-spy") or os.path.join(os.path.dirname(sys.executable),
                                                        "py-spy")
        if not args.no_server and os.path.exists(py_spy):
            spy = subprocess.Popen(
                [py_spy, "record", "--pid", str(g.server.pid), "--subprocesses", "--format",
                 "raw", "-o", raw, "--rate", "400", "--nonblocking"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            time.sleep(1.0)  # py-spy attaches
        prof = cProfile.Profile()
        prof.enable()
        value, unit = _workload(g, args.workload, args.scale)
        prof.disable()
    finally:
        if spy is not None:
            spy.send_signal(2)  # SIGINT: py-spy writes what it has
            spy.communicate(timeout=30)
        g.stop()
    print(f"workload ({args.workload}): {value:.2f} {unit} (under the profilers)")
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(args.top)
    print("\n--- client (cProfile, by self time) ---")
    print("\n".join(text.getvalue().splitlines()[6:]))
    if spy is not None and os.path.exists(raw):
        print(_spy_summary(raw, args.top))
    elif not args.no_server:
        print("(server not profiled: py-spy is not installed; pip install py-spy)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
