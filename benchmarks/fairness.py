"""Workload (f), fair concurrency: one session's long computations or big copies must
not stall another session's small calls.

The harness (:func:`measure`) starts one ``gpushare serve`` and two kinds of client
processes against it, each its own session:

victim (``python -m benchmarks.fairness victim CONFIG``)
    Small synchronous round trips (``float(x.sum())`` on a 1,000-element float32 array,
    as in (b)), each timed on its own, for ``seconds`` per situation. Driven through
    stdin: ``measure LABEL`` answers one ``RESULT {json}`` line with the distribution;
    ``quit`` ends it.
hog (``python -m benchmarks.fairness hog CONFIG``)
    ``compute``: ``c = a @ b`` on ``n`` x ``n`` float32, then ``float(c[0, 0])``, back to
    back; ``n`` grows from ``mm_n`` until one product takes at least ``min_op_s``.
    ``copy``: ``cupy.asarray(host)`` + ``synchronize`` and ``d.get()`` of ``copy_size``
    bytes, alternately, back to back. Prints ``started ...`` once its first operation is
    done (the harness measures the victim only after that line), runs until ``stop``
    arrives on stdin (or stdin closes, or ``max_s`` passes), then prints ``RESULT
    {json}`` with every operation's duration.

The victim runs alone first (the baseline), then beside the compute hog, then beside the
copy hog. Each hog is a fresh process; the victim is one process and one session for
all three, so the three distributions differ only by what runs beside it.

The server runs with ``--spare-workers 0``: a spare worker started in the background
(after each new session takes the warm one) would import NumPy and the backend while
the victim is being measured. With no spare, a session's worker starts while its client
connects, before any measurement.
"""
from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time
from typing import Any

from ._util import MiB, LineProcess, child_env, fmt_bytes, free_port, log, python

RESULT = "RESULT "

#: the victim's situations, in the order they are measured
SITUATIONS = ("alone", "compute", "copy")

#: PASS when the victim's p99 round trip is below the hog's median operation / this
HOL_FACTOR = 4.0


# --- the client processes -------------------------------------------------------------

def _stats(samples: list[float]) -> dict:
    import numpy
    a = numpy.asarray(samples) * 1e6
    return {"n": int(a.size), "median_us": float(numpy.median(a)),
            "p90_us": float(numpy.percentile(a, 90)), "p99_us": float(numpy.percentile(a, 99)),
            "max_us": float(a.max()), "mean_us": float(a.mean())}


def _connect() -> Any:
    from gpushare import client
    client.reset_session()
    import gpushare.cupy as cp
    return cp, client.get_session()


def victim(cfg: dict) -> None:
    cp, _ = _connect()
    x = cp.arange(int(cfg.get("size", 1000)), dtype=cp.float32)
    for _ in range(50):  # warm up: the worker's first calls, the client's caches
        float(x.sum())
    seconds, max_n = float(cfg["seconds"]), int(cfg.get("max_n", 100_000))
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        if words[0] != "measure":
            continue
        gc.collect()
        samples: list[float] = []
        clock = time.perf_counter
        end = clock() + seconds
        while len(samples) < max_n:
            t = clock()
            float(x.sum())
            done = clock()
            samples.append(done - t)
            if done >= end:
                break
        print(RESULT + json.dumps({"label": words[1] if len(words) > 1 else "",
                                   "seconds": seconds, **_stats(samples)}), flush=True)
    from gpushare import client
    client.reset_session()


def hog(cfg: dict) -> None:
    import numpy
    kind = cfg["kind"]
    cp, session = _connect()
    stop = threading.Event()

    def watch_stdin() -> None:
        for line in sys.stdin:
            if line.strip() == "stop":
                break
        stop.set()  # "stop", or stdin closed: the harness is gone

    threading.Thread(target=watch_stdin, daemon=True).start()
    info: dict[str, Any] = {"kind": kind}
    if kind == "compute":
        n, min_op = int(cfg["mm_n"]), float(cfg["min_op_s"])
        while True:
            # made on the server: nothing to upload; a @ b == a, so values stay put
            a = cp.full((n, n), 1.0 / n, dtype=cp.float32)
            b = a.copy()
            session.synchronize()

            def op() -> None:
                c = a @ b
                float(c[0, 0])

            t = time.perf_counter()
            op()
            first = time.perf_counter() - t
            if first >= min_op or n >= int(cfg.get("mm_max_n", 32768)):
                break
            n = int(n * max(1.25, min(2.0, (min_op * 1.5 / max(first, 1e-6)) ** (1 / 3))))
            n = (n + 63) // 64 * 64
            del a, b
        info["what"] = f"matmul {n}x{n} float32 + read one element"
        info["mm_n"] = n
        ops: list[tuple[str, float]] = [("compute", first)]
    elif kind == "copy":
        size = int(cfg["copy_size"])
        host = numpy.ones(size, dtype=numpy.uint8)
        state: dict[str, Any] = {"dev": None, "up": True}

        def op() -> None:
            if state["up"]:
                state["dev"] = None
                state["dev"] = cp.asarray(host)
                session.synchronize()
            else:
                got = state["dev"].get()
                del got
            state["up"] = not state["up"]

        info["what"] = f"{fmt_bytes(size)} host->device and device->host, alternately"
        info["copy_size"] = size
        t = time.perf_counter()
        op()
        first = time.perf_counter() - t
        ops = [("up", first)]
    else:
        raise SystemExit(f"unknown hog {kind!r}")
    info["first_op_s"] = first
    print(f"started {first:.4f}", flush=True)
    deadline = time.monotonic() + float(cfg.get("max_s", 120))
    while not stop.is_set() and time.monotonic() < deadline:
        what = kind if kind == "compute" else ("up" if state["up"] else "down")
        t = time.perf_counter()
        op()
        ops.append((what, time.perf_counter() - t))
    durations = sorted(d for _, d in ops)
    info.update(ops=len(ops), op_median_s=durations[len(durations) // 2],
                op_min_s=durations[0], op_max_s=durations[-1],
                op_s=[[w, d] for w, d in ops])
    if kind == "copy":
        for direction in ("up", "down"):
            ds = sorted(d for w, d in ops if w == direction)
            if ds:
                info[f"{direction}_median_s"] = ds[len(ds) // 2]
    print(RESULT + json.dumps(info), flush=True)
    from gpushare import client
    client.reset_session()


# --- the harness side -----------------------------------------------------------------

def config(quick: bool, backend: str, seconds: float | None = None,
           copy_size: int | None = None, mm_n: int | None = None) -> dict:
    """What (f) runs: seconds of victim round trips per situation, the copy hog's
    size, the compute hog's starting matrix size."""
    return {"backend": backend,
            "seconds": seconds or (3.0 if quick else 10.0),
            "copy_size": copy_size or (64 * MiB if quick else 256 * MiB),
            # grown until one product takes min_op_s; ~0.1 s at 1 BLAS thread on a CPU,
            # ~0.15 s in FP32 on a recent GPU
            "mm_n": mm_n or (16384 if backend == "cupy" else 2048),
            "mm_max_n": 32768 if backend == "cupy" else 8192,
            "min_op_s": 0.05, "size": 1000}


def _client(role: str, cfg: dict, address: str) -> LineProcess:
    return LineProcess([python(), "-m", "benchmarks.fairness", role, json.dumps(cfg)],
                       stdin=True, env=child_env({"GPUSHARE_SERVER": address}))


def _result(proc: LineProcess, start: int, timeout: float) -> dict:
    line = proc.wait_for(RESULT, timeout, start=start)
    return json.loads(line[line.index(RESULT) + len(RESULT):])


def measure(cfg: dict) -> dict:
    """Run (f): one server, the victim alone, then beside each hog."""
    address = f"tcp://127.0.0.1:{free_port()}"
    out: dict[str, Any] = {"available": True, "config": cfg, "victim": {}, "hog": {},
                           "hol_factor": HOL_FACTOR,
                           "server": "gpushare serve --spare-workers 0"}
    procs: list[LineProcess] = []
    current: LineProcess | None = None
    seconds = float(cfg["seconds"])
    started = time.perf_counter()
    try:
        server = LineProcess([python(), "-m", "gpushare", "serve", "--bind", address,
                              "--backend", cfg["backend"], "--spare-workers", "0",
                              # ends with the harness even if it is killed
                              "--exit-with-parent", str(os.getpid())],
                             env=child_env({"GPUSHARE_LOG_LEVEL": "WARNING"}))
        procs.append(server)
        current = server
        server.wait_for("listening", 90)
        vic = _client("victim", cfg, address)
        procs.append(vic)
        current = vic
        vic.wait_for("ready", 90)
        for situation in SITUATIONS:
            hogp = None
            if situation != "alone":
                hog_cfg = {**cfg, "kind": situation, "max_s": seconds + 120}
                hogp = _client("hog", hog_cfg, address)
                procs.append(hogp)
                current = hogp
                hogp.wait_for("started", 120)
            current = vic
            mark = len(vic.lines)
            vic.send(f"measure {situation}")
            r = out["victim"][situation] = _result(vic, mark, seconds + 90)
            if hogp is not None:
                current = hogp
                mark = len(hogp.lines)
                hogp.send("stop")
                h = out["hog"][situation] = _result(hogp, mark, 120)
                hogp.proc.wait(30)
                log(f"  (f) hog {situation}: {h['what']}, {h['ops']} ops, median "
                    f"{h['op_median_s'] * 1e3:.0f} ms")
            log(f"  (f) victim {situation:>7}: {r['n']} round trips, median "
                f"{r['median_us']:.0f} us, p99 {r['p99_us']:.0f} us, max {r['max_us']:.0f} us")
        current = vic
        vic.send("quit")
        vic.proc.wait(30)
        out["elapsed_s"] = time.perf_counter() - started
        log(f"  (f) done in {out['elapsed_s']:.1f} s")
    except Exception as exc:  # noqa: BLE001 - a failed workload is reported, not fatal
        out = {"available": False, "reason": f"failed: {str(exc).splitlines()[0]}"}
        log(f"  (f): {out['reason']}")
        if current is not None:
            for line in current.lines[-10:]:
                log(f"    {line}")
    finally:
        for proc in reversed(procs):  # clients first, the server last
            proc.stop()
    return out


def main() -> None:
    role, cfg = sys.argv[1], json.loads(sys.argv[2])
    {"victim": victim, "hog": hog}[role](cfg)


if __name__ == "__main__":
    main()
