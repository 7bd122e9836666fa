"""One system's measurements, in a child process of the harness.

``python -m benchmarks._child CONFIG_JSON`` prints progress lines, then one line
``RESULT {json}``. ``CONFIG_JSON["mode"]`` is ``system`` (the workloads of one system,
see ``systems.py``), ``memory`` (gpushare's peak memory during a copy each way, driven
by the harness through stdin), ``breakdown`` (gpushare's (a) and (b) split into client
CPU, server executor and the rest, see ``profile.py``) or ``kernels`` (the CPU kernel
emulator's own benchmark).
"""
from __future__ import annotations

import gc
import json
import sys
import time
import traceback
from typing import Any, Callable

import numpy

from . import systems
from ._util import KiB, MiB, Skip, fmt_bytes, log, median

RESULT = "RESULT "


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[-1] if text else ''}"[:300]


def _reps(nbytes: int, quick: bool) -> int:
    """Repetitions of one copy (the best is kept): many for small, two for huge."""
    if nbytes <= MiB:
        return 3 if quick else 7
    if nbytes <= 16 * MiB:
        return 2 if quick else 3
    # big copies too: on a shared VM one copy can take 5x another of the same size
    # (the kernel reclaiming and faulting memory back), and the best is what is kept.
    # Best of 3 left the (c) ratios at 64-256 MiB to chance: two systems' bests moved by
    # 20-30% from run to run (session 5), so 5 here, for floors and systems alike
    if nbytes <= 256 * MiB:
        return 5
    return 2


def _settle(limit: float = 5.0, window: float = 0.2, busy: float = 0.1) -> float:
    """Wait until this machine is quiet (under ``busy`` of one core in use over
    ``window`` s), at most ``limit`` s; the seconds waited. A system may go on starting
    helpers once it answers (gpushare's server boots a spare worker when a session
    takes the first one; Ray its workers): on two cores that would land in the first
    workload's figures. Every system, the floors too, waits the same way."""
    def busy_ticks() -> int | None:
        try:
            with open("/proc/stat") as f:
                fields = [int(v) for v in f.readline().split()[1:]]
        except (OSError, ValueError):
            return None  # not Linux: nothing to wait for
        return sum(fields) - fields[3] - (fields[4] if len(fields) > 4 else 0)
    start = time.perf_counter()
    hz = 100  # (USER_HZ: /proc/stat counts in 1/100 s on every Linux)
    while time.perf_counter() - start < limit:
        before = busy_ticks()
        if before is None:
            break
        time.sleep(window)
        if busy_ticks() - before <= busy * window * hz:
            break
    return time.perf_counter() - start


class Runner:
    def __init__(self, cfg: dict) -> None:
        self.cfg = cfg
        self.quick = bool(cfg.get("quick"))
        self.deadline = float(cfg.get("deadline", time.time() + 3600))
        self.system = systems.get(cfg["system"])(cfg)
        self.out: dict[str, Any] = {"name": self.system.name, "kind": self.system.kind,
                                    "label": self.system.label or self.system.name,
                                    "available": True, "skipped": [], "notes": []}

    def left(self) -> float:
        return self.deadline - time.time()

    def skip(self, what: str, why: str) -> None:
        self.out["skipped"].append(f"{what}: {why}")
        log(f"  {self.system.name}: skipped {what} ({why})")

    def run(self) -> dict:
        sysobj = self.system
        t = time.perf_counter()
        try:
            sysobj.start()
        except Skip as exc:
            self.out.update(available=False, reason=str(exc))
            log(f"  {sysobj.name}: not measured: {exc}")
            return self.out
        except Exception as exc:  # noqa: BLE001 - a peer failing is a result too
            traceback.print_exc()
            self.out.update(available=False, reason=f"failed to start: {_reason(exc)}")
            log(f"  {sysobj.name}: not measured: {self.out['reason']}")
            try:
                sysobj.stop()
            except Exception:  # noqa: BLE001
                pass
            return self.out
        self.out["label"] = sysobj.label or sysobj.name
        self.out["startup_s"] = time.perf_counter() - t
        log(f"  {sysobj.name}: started in {self.out['startup_s']:.1f} s")
        self.out["settle_s"] = _settle()
        try:
            every = ["small_ops", "round_trips", "matmul", "copies", "paired"]
            for name in self.cfg.get("workloads", sysobj.workloads or every):
                try:
                    getattr(self, "w_" + name)()
                except NotImplementedError:
                    pass  # this system has no such workload
                except Skip as exc:
                    self.skip(name, str(exc))
                except Exception as exc:  # noqa: BLE001
                    traceback.print_exc()
                    self.skip(name, f"failed: {_reason(exc)}")
        finally:
            self.out["notes"] = sysobj.notes
            try:
                sysobj.stop()
            except Exception as exc:  # noqa: BLE001
                log(f"  {sysobj.name}: stopping failed: {_reason(exc)}")
        return self.out

    def _counted(self, key: str, fn: Callable[[int], float], n: int, probe: int) -> None:
        """Run ``fn(n)`` after a probe ``fn(probe)``, best of 3 (full run: 5), as
        ``timeit`` does: a burst of another tenant's load on this shared machine
        should not decide a ratio whose floor was measured a few seconds apart. Fewer
        than ``n`` calls when the probe says they do not fit in the time left (and
        say so)."""
        reps = 3 if self.quick else 5
        # warmed first: a GPU's first calls compile and load kernels (local CuPy's
        # first 200 ops took 3 ms each on an H200), which says nothing of the rest
        fn(min(probe, 10))
        per = fn(probe) / probe
        fits = int(self.left() * 0.35 / per / (reps + 1)) if per > 0 else n
        if fits < n:
            if fits < probe:
                raise Skip(f"{n} calls would take ~{per * n:.0f} s, over the time budget")
            self.out["notes"].append(f"{key}: {fits} calls instead of {n} (time budget)")
            log(f"  {self.system.name}: {key} with {fits} calls instead of {n} (time budget)")
            n = fits
        fn(n)  # once untimed, as the runs after it: the threads of both sides placed
        # on the cores by then (the first burst after a pause runs slower here)
        best = min(fn(n) for _ in range(reps))
        self.out[key] = {"n": n, "total_s": best, "per_call_us": best / n * 1e6}

    def w_small_ops(self) -> None:
        size = int(self.cfg.get("small_size", 1000))
        n = int(self.cfg.get("small_n", 10_000))
        self._counted("small_ops", lambda k: self.system.small_ops(k, size), n,
                      min(200, n))
        self.out["small_ops"]["size"] = size
        log(f"  {self.system.name}: (a) {self.out['small_ops']['per_call_us']:.2f} us/op")

    def w_round_trips(self) -> None:
        n = int(self.cfg.get("rt_n", 1000))
        self._counted("round_trip", self.system.round_trips, n, min(20, n))
        log(f"  {self.system.name}: (b) {self.out['round_trip']['per_call_us']:.1f} "
            "us/round trip")

    def w_matmul(self) -> None:
        n, iters = int(self.cfg.get("mm_n", 512)), int(self.cfg.get("mm_iters", 20))
        self.system.matmul(n, 1)  # warmed first (cuBLAS's handle, the kernels)
        one = self.system.matmul(n, 1)
        if one * iters > self.left() * 0.35:
            raise Skip(f"~{one * iters:.0f} s, over the time budget")
        # best of a few when cheap: one slow pass on a shared machine says little
        reps = 3 if one * iters * 3 < self.left() * 0.2 else 1
        best = min(self.system.matmul(n, iters) for _ in range(reps))
        self.out["matmul"] = {"n": n, "iters": iters, "seconds": best}
        log(f"  {self.system.name}: (d) matmul {n}x{n} x{iters}: {best:.3f} s")

    def w_copies(self) -> None:
        sizes = [int(s) for s in self.cfg.get("sizes", [4 * KiB, MiB])]
        up: dict[str, float] = {}
        down: dict[str, float] = {}
        self.out["upload"], self.out["download"] = up, down
        last = 0.0
        for i, size in enumerate(sizes):
            reps = _reps(size, self.quick)
            # sizes grow 4x: the next pair of copies takes about 4x the last one
            prev = sizes[i - 1] if i else size
            estimate = last * size / prev * reps
            if estimate > self.left() - 1.0:
                self.skip(f"copies of {fmt_bytes(size)} and more",
                          f"~{estimate:.0f} s, over the time budget")
                break
            host = numpy.ones(size, dtype=numpy.uint8)
            t_up = min(self.system.upload(host) for _ in range(reps))
            del host
            gc.collect()
            t_down = min(self.system.download(size) for _ in range(reps))
            gc.collect()
            up[str(size)], down[str(size)] = t_up, t_down
            last = t_up + t_down
            if getattr(self.system, "new_arrays", False) and size >= 64 * MiB:
                # into new arrays (page faults included): reported beside, as information
                host = numpy.ones(size, dtype=numpy.uint8)
                self.out.setdefault("upload_new", {})[str(size)] = min(
                    self.system.upload_new(host) for _ in range(reps))
                del host
                gc.collect()
                self.out.setdefault("download_new", {})[str(size)] = min(
                    self.system.download_new(size) for _ in range(reps))
                gc.collect()
            log(f"  {self.system.name}: (c) {fmt_bytes(size):>8}  up {size / t_up / MiB:8.1f} "
                f"MiB/s  down {size / t_down / MiB:8.1f} MiB/s")


    def w_paired(self) -> None:
        """(b) and (c) once more, each round the floor then gpushare, back to back in
        this process: the ratio of each round, and their median.

        On a shared virtual machine a floor measured alone, a few seconds before or
        after gpushare, can move by 2x between runs (raw TCP one way: 1.1 to 3.0 GB/s
        within a minute, session 21), so a ratio of two bests measured apart says as
        much about the moment as about gpushare. Rounds that alternate see the same
        moments; their median ratio is kept beside the bests (``report.py`` judges the
        (b) and (c) targets on it when it was measured)."""
        floors = [f for f in self.cfg.get("paired_with", []) if f in ("zmq", "tcp")]
        if self.system.name != "gpushare" or not floors:
            raise NotImplementedError
        rounds = 5 if self.quick else 9
        out: dict[str, Any] = {"rounds": rounds}
        self.out["paired"] = out
        for name in floors:
            floor = systems.get(name)(self.cfg)
            floor.start()
            try:
                if name == "zmq":
                    self._paired_round_trips(floor, rounds, out)
                else:
                    self._paired_copies(floor, rounds, out)
            except Skip as exc:
                self.skip(f"paired with {name}", str(exc))
            finally:
                floor.stop()

    def _paired_round_trips(self, floor: Any, rounds: int, out: dict) -> None:
        n = max(50, int(self.cfg.get("rt_n", 1000)) // 4)
        per = self.system.round_trips(20) / 20 + floor.round_trips(20) / 20
        if per * n * (rounds + 1) > self.left() * 0.3:
            raise Skip(f"paired (b): ~{per * n * (rounds + 1):.0f} s, over the time budget")
        floor.round_trips(n)
        self.system.round_trips(n)
        pairs = [(floor.round_trips(n) / n * 1e6, self.system.round_trips(n) / n * 1e6)
                 for _ in range(rounds)]
        out["round_trip"] = {"n": n, "floor_us": [f for f, _ in pairs],
                             "gpushare_us": [g for _, g in pairs],
                             "median_ratio": median([g / f for f, g in pairs])}
        log(f"  gpushare: (b) paired with raw ZeroMQ, {rounds} rounds of {n}: median "
            f"ratio {out['round_trip']['median_ratio']:.2f}")

    def _paired_copies(self, floor: Any, rounds: int, out: dict) -> None:
        sizes = [int(s) for s in self.cfg.get("sizes", []) if int(s) >= 64 * MiB]
        for size in sizes:
            host = numpy.ones(size, dtype=numpy.uint8)
            t = floor.upload(host) + self.system.upload(host)
            t += floor.download(size) + self.system.download(size)
            if t * rounds * 1.5 > self.left() - 5.0:
                self.skip(f"paired copies of {fmt_bytes(size)} and more",
                          f"~{t * rounds * 1.5:.0f} s, over the time budget")
                break
            for direction in ("upload", "download"):
                arg = host if direction == "upload" else size
                pairs = []
                for _ in range(rounds):
                    f = size / getattr(floor, direction)(arg)
                    g = size / getattr(self.system, direction)(arg)
                    pairs.append((f, g))
                    gc.collect()
                out.setdefault(direction, {})[str(size)] = {
                    "floor_bps": [f for f, _ in pairs], "gpushare_bps": [g for _, g in pairs],
                    "median_ratio": median([g / f for f, g in pairs])}
            del host
            gc.collect()
            log(f"  gpushare: (c) {fmt_bytes(size):>8} paired with raw TCP, {rounds} rounds: "
                f"median ratio up {out['upload'][str(size)]['median_ratio']:.2f}, down "
                f"{out['download'][str(size)]['median_ratio']:.2f}")


def memory(cfg: dict) -> dict:
    """Drive a gpushare client through a copy each way; the harness samples RSS."""
    size = int(cfg["size"])
    gs = systems.Gpushare(cfg)
    gs.start()
    try:
        print(f"server_pid {gs.server.pid}", flush=True)
        host = numpy.ones(size, dtype=numpy.uint8)
        float(gs.cp.arange(4).sum())
        time.sleep(1.0)  # the broker starts a spare worker for the next session
        print("ready up", flush=True)
        sys.stdin.readline()
        t = time.perf_counter()
        d = gs.cp.asarray(host)
        gs.session.synchronize()
        print(f"done up {time.perf_counter() - t:.3f}", flush=True)
        sys.stdin.readline()
        del host
        gc.collect()
        print("ready down", flush=True)
        sys.stdin.readline()
        t = time.perf_counter()
        got = d.get()
        print(f"done down {time.perf_counter() - t:.3f}", flush=True)
        assert got.nbytes == size
        sys.stdin.readline()
        del got, d
    finally:
        gs.stop()
    return {}


def kernels(cfg: dict) -> dict:
    try:
        from gpushare_server.kernels import bench
    except ImportError as exc:
        return {"available": False, "reason": f"not importable: {exc}"}
    try:
        figures = bench.run(**cfg.get("params", {}))
    except Exception as exc:  # noqa: BLE001
        traceback.print_exc()
        return {"available": False, "reason": f"failed: {_reason(exc)}"}
    return {"available": True, "params": cfg.get("params", {}),
            **{k: float(v) for k, v in figures.items()}}


def main() -> None:
    cfg = json.loads(sys.argv[1])
    mode = cfg.get("mode", "system")
    if mode == "system":
        result = Runner(cfg).run()
    elif mode == "memory":
        result = memory(cfg)
    elif mode == "kernels":
        result = kernels(cfg)
    elif mode == "breakdown":
        from .profile import breakdown
        try:
            result = {"available": True, **breakdown(cfg.get("backend", "cpu"),
                                                     int(cfg.get("n", 5000)))}
        except Exception as exc:  # noqa: BLE001
            traceback.print_exc()
            result = {"available": False, "reason": f"failed: {_reason(exc)}"}
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    print(RESULT + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
