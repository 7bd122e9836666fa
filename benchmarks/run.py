"""The harness: runs every system in turn (each in a child process), measures
gpushare's peak memory, and writes ``results.json``, ``results.md`` and
``results.png``.

``python -m benchmarks [--quick] [--backend cpu|cupy] [--out DIR] [--only NAME ...]``
"""
from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from . import fairness, report
from ._util import (GiB, KiB, MiB, LineProcess, PeakSampler, child_env, describe_machine,
                    fmt_bytes, log, python, rss_bytes, tree_rss)
from ._child import RESULT

#: systems in the order they run; floors first, so peers' daemons never weigh on them
ORDER = ["local", "zmq", "tcp", "gpushare", "gpushare_curve", "gpushare_ipc", "rpyc",
         "torch_rpc", "ray", "ray_shm"]

#: seconds each system may take (``--quick``, full); its copies stop at what fits
BUDGET = {"local": (8, 60), "zmq": (8, 60), "tcp": (8, 60), "gpushare": (45, 360), "gpushare_curve": (20, 120),
          "gpushare_ipc": (10, 120), "rpyc": (12, 240), "torch_rpc": (22, 240),
          "ray": (30, 240), "ray_shm": (15, 120)}


BLAS_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def build_config(args: argparse.Namespace) -> dict:
    quick = args.quick
    max_copy = args.max_copy or (256 * MiB if quick else GiB)
    sizes, s = [], 4 * KiB
    while s <= max_copy:
        sizes.append(s)
        s *= 4
    if args.backend == "cupy":
        # an H200 multiplies two 2048x2048 float32 matrices in ~0.3 ms: 4096 and up
        # keep (d) a compute-bound program rather than a second per-call figure
        mm_n, mm_iters = (4096, 20) if quick else (8192, 20)
    else:
        mm_n, mm_iters = (512, 20) if quick else (1024, 20)
    mm_n, mm_iters = args.mm_n or mm_n, args.mm_iters or mm_iters
    return {
        "quick": quick, "backend": args.backend, "sizes": sizes, "max_copy": max_copy,
        "small_n": args.small_n, "small_size": 1000, "rt_n": args.rt_n,
        "mm_n": mm_n, "mm_iters": mm_iters,
        "memory_size": args.memory_size or (256 * MiB if quick else GiB),
        "budget_scale": args.budget_scale,
    }


def run_child(cfg: dict, timeout: float) -> dict | None:
    """Run ``_child`` with ``cfg``; its progress goes to our stdout; its result back."""
    proc = LineProcess([python(), "-m", "benchmarks._child", json.dumps(cfg)],
                       on_line=lambda line: None if line.startswith(RESULT) else log(line))
    try:
        line = proc.wait_for(RESULT, timeout)
        return json.loads(line[len(RESULT):])
    except RuntimeError as exc:
        log(f"  {cfg.get('system', cfg.get('mode'))}: no result ({str(exc).splitlines()[0]})")
        return None
    finally:
        proc.stop()


def measure_memory(cfg: dict) -> dict:
    """Peak RSS of the client process and of the server's process tree while a
    gpushare client copies ``cfg['memory_size']`` bytes to the server and back."""
    size = cfg["memory_size"]
    child_cfg = {"mode": "memory", "backend": cfg["backend"], "size": size}
    proc = LineProcess([python(), "-m", "benchmarks._child", json.dumps(child_cfg)],
                       stdin=True, env=child_env())
    out: dict[str, Any] = {"available": True, "size": size,
                           "method": "RSS sampled every 2 ms from /proc"}
    timeout = 120 + 60 * size / GiB
    try:
        server = int(proc.wait_for("server_pid", 120).split()[1])
        for phase in ("up", "down"):
            proc.wait_for(f"ready {phase}", timeout)
            base_c, base_s = rss_bytes(proc.pid), tree_rss(server)
            with PeakSampler({"client": (proc.pid, False), "server": (server, True)}) as s:
                proc.send("go")
                done = proc.wait_for(f"done {phase}", timeout)
            out[phase] = {"seconds": float(done.split()[2]),
                          "client_base": base_c, "server_base": base_s,
                          "client_peak": s.peak["client"], "server_peak": s.peak["server"],
                          "client_extra": max(0, s.peak["client"] - base_c),
                          "server_extra": max(0, s.peak["server"] - base_s),
                          "samples": s.samples}
            log(f"  memory {phase}: {size / MiB:.0f} MiB in {out[phase]['seconds']:.2f} s; "
                f"extra client {out[phase]['client_extra'] / GiB:.2f} GiB, server "
                f"{out[phase]['server_extra'] / GiB:.2f} GiB")
            proc.send("next")
        proc.wait_for(RESULT, 60)
    except (RuntimeError, OSError, ValueError) as exc:
        out = {"available": False, "reason": f"failed: {str(exc).splitlines()[0]}"}
        log(f"  memory: {out['reason']}")
        for line in proc.lines[-10:]:
            log(f"    {line}")
    finally:
        proc.stop()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description="gpushare against its floors and peers")
    parser.add_argument("--quick", action="store_true",
                        help="about two minutes: copies up to 256 MiB, smaller matmul, "
                             "memory figure with a 256 MiB copy when time allows")
    parser.add_argument("--backend", choices=["cpu", "cupy"], default="cpu",
                        help="gpushare server backend, local floor and peers' arrays")
    parser.add_argument("--out", default=os.path.join("benchmarks", "results"),
                        help="directory for results.json/.md/.png (default benchmarks/results)")
    parser.add_argument("--only", nargs="+", metavar="SYSTEM", choices=ORDER,
                        help=f"measure only these systems ({', '.join(ORDER)})")
    parser.add_argument("--no-memory", action="store_true", help="skip workload (e)")
    parser.add_argument("--no-fairness", action="store_true", help="skip workload (f)")
    parser.add_argument("--fair-seconds", type=float,
                        help="(f): seconds of victim round trips per situation "
                             "(default 3 with --quick, else 10)")
    parser.add_argument("--fair-copy", type=int, metavar="BYTES",
                        help="(f): the copy hog's size (default 64 MiB with --quick, "
                             "else 256 MiB)")
    parser.add_argument("--fair-mm-n", type=int, metavar="N",
                        help="(f): the compute hog's first matrix size (grown until one "
                             "product takes 50 ms)")
    parser.add_argument("--no-kernels", action="store_true",
                        help="skip the kernel emulator's figures")
    parser.add_argument("--max-copy", type=int, help="largest copy in bytes")
    parser.add_argument("--memory-size", type=int, help="bytes copied for (e)")
    parser.add_argument("--small-n", type=int, default=10_000, help="ops in (a)")
    parser.add_argument("--mm-n", type=int, help="matrix size in (d)")
    parser.add_argument("--mm-iters", type=int, help="products in (d)")
    parser.add_argument("--rt-n", type=int, default=1000, help="round trips in (b)")
    parser.add_argument("--blas-threads", default="1", metavar="N",
                        help="OMP/OpenBLAS/MKL threads for every process (default 1, the "
                             "same for every system: Ray would pin its actors to 1 anyway; "
                             "'keep' leaves the environment alone)")
    parser.add_argument("--budget-scale", type=float, default=1.0,
                        help="multiply every system's time budget")
    args = parser.parse_args(argv)

    cfg = build_config(args)
    # the floors gpushare's (b) and (c) are paired with, round by round (``_child``)
    cfg["paired_with"] = [f for f in ("zmq", "tcp") if not args.only or f in args.only]
    if args.blas_threads != "keep":
        for var in BLAS_VARS:  # inherited by every child, server and peer process
            os.environ[var] = str(int(args.blas_threads))
    cfg["blas_threads"] = args.blas_threads
    started = time.time()
    machine = describe_machine(args.backend)
    log(f"gpushare benchmarks ({'quick' if args.quick else 'full'}, backend {args.backend})")
    log(f"machine: {machine['cpu']}, {machine['cores_usable']}/{machine['cores']} cores, "
        f"{machine['memory_gib']} GiB, load {machine['load_average']}, Python "
        f"{machine['python']}, NumPy {machine['numpy']}, pyzmq {machine['pyzmq']}")
    res: dict[str, Any] = {"machine": machine, "config": cfg, "systems": {}, "notes": [],
                           "started": time.strftime("%Y-%m-%d %H:%M:%S %Z",
                                                    time.localtime(started))}
    res["config"]["command"] = "python -m benchmarks" + (" --quick" if args.quick else "")

    for name in args.only or ORDER:
        budget = BUDGET[name][0 if args.quick else 1] * args.budget_scale
        log(f"[{name}] (budget {budget:.0f} s)")
        child = {**cfg, "mode": "system", "system": name, "deadline": time.time() + budget}
        result = run_child(child, budget + 90)
        if result is None:
            result = {"name": name, "kind": "peer", "label": name, "available": False,
                      "reason": "the child process gave no result (see the output above)",
                      "skipped": [], "notes": []}
        res["systems"][name] = result

    if args.no_memory or (args.only and "gpushare" not in args.only):
        res["memory"] = {"available": False, "reason": "not asked for"}
    else:
        log(f"[memory] copy of {fmt_bytes(cfg['memory_size'])} each way")
        res["memory"] = measure_memory(cfg)
        if args.quick and res["memory"].get("available"):
            res["notes"].append(f"--quick measures (e) with a {fmt_bytes(cfg['memory_size'])} "
                                "copy; the target scales with the size (1.25 x the copy)")

    if args.no_fairness or (args.only and "gpushare" not in args.only):
        res["fairness"] = {"available": False, "reason": "not asked for"}
    else:
        fcfg = fairness.config(args.quick, args.backend, args.fair_seconds, args.fair_copy,
                               args.fair_mm_n)
        log(f"[fairness] one server; a victim's round trips alone, beside a compute hog, "
            f"beside a {fmt_bytes(fcfg['copy_size'])} copy hog ({fcfg['seconds']:g} s each)")
        res["fairness"] = fairness.measure(fcfg)

    if not args.only or "gpushare" in args.only:
        log("[breakdown] gpushare (a) and (b): client CPU, server executor, the rest")
        res["breakdown"] = run_child({"mode": "breakdown", "backend": args.backend,
                                      "n": min(args.small_n, 5000)}, 120) or {
            "available": False, "reason": "the child process gave no result"}
        for name, r in res["breakdown"].items():
            if isinstance(r, dict):
                log(f"  ({name}) end to end {r['end_to_end_us']:.1f} us/call: client CPU "
                    f"{r['client_cpu_us']:.1f}, server executor {r['server_executor_us']:.1f}")

    if args.no_kernels or args.only:
        res["kernels"] = {"available": False, "reason": "not asked for"}
    else:
        log("[kernels] CPU kernel emulator")
        params: dict = {}  # 10^7 elements, as the issue asks, in --quick too
        res["kernels"] = run_child({"mode": "kernels", "params": params}, 120) or {
            "available": False, "reason": "the child process gave no result"}

    res["elapsed_s"] = time.time() - started
    res["ratios"] = report.ratios(res)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    text = report.markdown(res)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(text)
    why_not = report.plot(res, os.path.join(args.out, "results.png"))
    log("")
    log(text)
    log(report.console_summary(res))
    log("")
    log(f"wrote {os.path.join(args.out, 'results.json')}, results.md"
        + (f" (no plot: {why_not})" if why_not else ", results.png")
        + f" in {res['elapsed_s']:.0f} s")
    return 0
