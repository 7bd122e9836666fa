"""From the results dict to ratios against the floors, a Markdown table and a plot."""
from __future__ import annotations

import math

from ._util import GiB, MiB, fmt_bytes, median

#: copies at least this large count for the bandwidth targets
BIG = 64 * MiB


def _ok(system: dict | None) -> bool:
    return bool(system) and bool(system.get("available"))


def _per_call(system: dict | None, key: str) -> float | None:
    if not _ok(system) or key not in system:  # type: ignore[operator]
        return None
    return float(system[key]["per_call_us"])  # type: ignore[index]


def _bandwidth(system: dict | None, direction: str) -> dict[int, float]:
    """``{size: bytes per second}`` of one direction's copies."""
    if not _ok(system):
        return {}
    return {int(size): int(size) / t for size, t in (system.get(direction) or {}).items()  # type: ignore[union-attr]
            if t > 0}


def _ratio_row(rows: list, key: str, what: str, value: float | None, op: str,
               target: float | None, detail: str = "") -> None:
    passed = None
    if value is not None and target is not None:
        passed = value <= target if op == "<=" else value >= target
    rows.append({"key": key, "what": what, "value": value, "op": op, "target": target,
                 "pass": passed, "detail": detail})


def ratios(res: dict) -> list[dict]:
    """Every figure of the issue's targets, against the floors measured in this run.

    ``pass`` is ``None`` when a side was not measured (or for figures without target).
    """
    S = res.get("systems", {})
    gs, zmq, tcp, local = (S.get(k) for k in ("gpushare", "zmq", "tcp", "local"))
    peers = [s for s in S.values() if s.get("kind") == "peer" and _ok(s)]
    rows: list[dict] = []
    backend = res.get("config", {}).get("backend", "cpu")

    # (a) pipelined small ops. The (a) and (b) targets are the CPU backend's:
    # on a GPU each op is a real launch (local CuPy's own cost per op is of the order of
    # the raw ZeroMQ floor), so there the figures are information, and the overhead over
    # local CuPy is reported beside them
    cpu = backend == "cpu"
    gpu_note = "" if cpu else " (the target is the CPU backend's; a GPU: information)"
    g_op, z_pipe = _per_call(gs, "small_ops"), _per_call(zmq, "small_ops")
    _ratio_row(rows, "a_vs_zmq", "(a) gpushare per op / raw ZeroMQ pipelined per message",
               g_op / z_pipe if g_op and z_pipe else None, "<=", 1.0 if cpu else None,
               f"{g_op:.2f} us vs {z_pipe:.2f} us{gpu_note}" if g_op and z_pipe else "")
    if not cpu:
        for key, what in (("small_ops", "(a) per op"), ("round_trip", "(b) per round trip")):
            g, l_ = _per_call(gs, key), _per_call(local, key)
            _ratio_row(rows, f"{key}_overhead_vs_local",
                       f"{what}: gpushare's overhead over local CuPy (us)",
                       g - l_ if g and l_ else None, "<=", None,
                       f"{g:.1f} us vs local CuPy {l_:.1f} us" if g and l_ else "")
    peer_ops = [(p["label"], _per_call(p, "small_ops")) for p in peers]
    peer_ops = [(name, v) for name, v in peer_ops if v]
    if peer_ops and g_op:
        name, best = min(peer_ops, key=lambda x: x[1])
        _ratio_row(rows, "a_vs_peer", "(a) fastest peer per op / gpushare per op",
                   best / g_op, ">=", 20.0 if cpu else None,
                   f"{name}: {best:.1f} us vs {g_op:.2f} us{gpu_note}")
    else:
        _ratio_row(rows, "a_vs_peer", "(a) fastest peer per op / gpushare per op", None,
                   ">=", 20.0, "no peer measured" if g_op else "gpushare not measured")

    # (b) synchronous round trip. When gpushare's child also ran rounds alternating
    # with the floor (``_child.Runner.w_paired``), the target is judged on their median
    # ratio, and the ratio of the two bests measured apart is shown beside it
    paired = gs.get("paired") or {} if _ok(gs) else {}  # type: ignore[union-attr]
    g_rt, z_rt = _per_call(gs, "round_trip"), _per_call(zmq, "round_trip")
    apart = g_rt / z_rt if g_rt and z_rt else None
    apart_detail = f"{g_rt:.0f} us vs {z_rt:.0f} us" if g_rt and z_rt else ""
    p_rt = paired.get("round_trip")
    if p_rt:
        _ratio_row(rows, "b_vs_zmq", "(b) gpushare round trip / raw ZeroMQ round trip "
                   "(median of rounds alternating with the floor)", p_rt["median_ratio"],
                   "<=", 1.3 if cpu else None,
                   f"{_median_pair(p_rt['gpushare_us'], p_rt['floor_us'])} us, "
                   f"{len(p_rt['floor_us'])} rounds of {p_rt['n']}{gpu_note}")
        _ratio_row(rows, "b_vs_zmq_apart", "(b) gpushare round trip / raw ZeroMQ round "
                   "trip (bests, measured apart)", apart, "<=", None, apart_detail)
    else:
        _ratio_row(rows, "b_vs_zmq", "(b) gpushare round trip / raw ZeroMQ round trip",
                   apart, "<=", 1.3 if cpu else None, apart_detail + gpu_note)

    # (c) bulk copies
    for direction, arrow in (("upload", "host->device"), ("download", "device->host")):
        g_bw, t_bw = _bandwidth(gs, direction), _bandwidth(tcp, direction)
        value, detail = _worst_big(g_bw, t_bw)
        p_bw = {int(k): v for k, v in (paired.get(direction) or {}).items()}
        if p_bw:
            worst = min(p_bw, key=lambda k: p_bw[k]["median_ratio"])
            w = p_bw[worst]
            _ratio_row(rows, f"c_{direction}_vs_tcp",
                       f"(c) {arrow} gpushare / raw TCP, >= 64 MiB (worst size; median of "
                       "rounds alternating with the floor)", w["median_ratio"], ">=", 0.9,
                       f"{fmt_bytes(worst)}: "
                       f"{_median_pair(w['gpushare_bps'], w['floor_bps'], MiB)} MiB/s, "
                       f"{len(w['floor_bps'])} rounds")
            _ratio_row(rows, f"c_{direction}_vs_tcp_apart",
                       f"(c) {arrow} gpushare / raw TCP, >= 64 MiB (worst size; bests, "
                       "measured apart)", value, ">=", None, detail)
        else:
            _ratio_row(rows, f"c_{direction}_vs_tcp",
                       f"(c) {arrow} gpushare / raw TCP, >= 64 MiB (worst size)", value,
                       ">=", 0.9, detail)
        n_bw = _bandwidth(gs, direction + "_new")  # into new arrays: page faults too
        new = sorted(s for s in n_bw if s in t_bw)
        if new:
            worst = min(new, key=lambda s: n_bw[s] / t_bw[s])
            how = "cupy.asarray" if direction == "upload" else "get()"
            _ratio_row(rows, f"c_{direction}_new_vs_tcp",
                       f"(c) {arrow} into a new array ({how}) / raw TCP (worst size)",
                       n_bw[worst] / t_bw[worst], ">=", None,
                       f"{fmt_bytes(worst)}: {n_bw[worst] / MiB:.0f} vs "
                       f"{t_bw[worst] / MiB:.0f} MiB/s; fresh memory is page-faulted in")
        peer_bw = [(p["label"], _bandwidth(p, direction)) for p in peers]
        common = sorted(s for s in g_bw if any(s in bw for _, bw in peer_bw))
        sizes = [s for s in common if s >= BIG] or common[-1:]
        if sizes:
            def best_peer(s: int) -> tuple[str, float]:
                return max(((n, bw[s]) for n, bw in peer_bw if s in bw), key=lambda x: x[1])
            worst = min(sizes, key=lambda s: g_bw[s] / best_peer(s)[1])
            name, bw = best_peer(worst)
            note = "" if worst >= BIG else " (peers measured only up to this size)"
            _ratio_row(rows, f"c_{direction}_vs_peer",
                       f"(c) {arrow} gpushare / best peer, >= 64 MiB (worst size)",
                       g_bw[worst] / bw, ">=", 3.0,
                       f"{fmt_bytes(worst)}: {g_bw[worst] / MiB:.0f} vs {name} "
                       f"{bw / MiB:.0f} MiB/s{note}")
        else:
            _ratio_row(rows, f"c_{direction}_vs_peer",
                       f"(c) {arrow} gpushare / best peer, >= 64 MiB (worst size)", None,
                       ">=", 3.0, "no peer copies measured")

    # what encryption costs: the same workloads against a server with keys (CurveZMQ),
    # as any server beyond loopback runs; information, against the same floors
    curve = S.get("gpushare_curve")
    if _ok(curve):
        c_rt = _per_call(curve, "round_trip")
        _ratio_row(rows, "b_curve_vs_zmq",
                   "(b) gpushare with CurveZMQ round trip / raw ZeroMQ round trip",
                   c_rt / z_rt if c_rt and z_rt else None, "<=", None,
                   f"{c_rt:.0f} us vs {z_rt:.0f} us" if c_rt and z_rt else "")
        for direction, arrow in (("upload", "host->device"), ("download", "device->host")):
            value, detail = _worst_big(_bandwidth(curve, direction), _bandwidth(tcp, direction),
                                       "", " (encrypted vs plaintext)")
            _ratio_row(rows, f"c_{direction}_curve_vs_tcp",
                       f"(c) {arrow} gpushare with CurveZMQ / raw TCP, >= 64 MiB (worst size)",
                       value, ">=", None, detail)

    # same host: ipc:// against local memcpy
    ipc = S.get("gpushare_ipc")
    if _ok(ipc) and backend == "cpu":
        for direction, arrow in (("upload", "host->device"), ("download", "device->host")):
            i_bw = _bandwidth(ipc, direction)
            value, detail = _worst_big(i_bw, _bandwidth(local, direction), "memcpy ")
            _ratio_row(rows, f"shm_{direction}_vs_memcpy",
                       f"same host {arrow}: gpushare ipc:// (shm ring, into existing arrays) / local memcpy", value,
                       ">=", 0.5, detail)
            # Ray on one host copies through its shared-memory object store: the fair
            # comparison is with gpushare's same-host path, not with its TCP one
            ray = S.get("ray_shm")
            r_bw = _bandwidth(ray, direction) if _ok(ray) else {}
            both = sorted(s for s in i_bw if s >= BIG and s in r_bw)
            if both:
                worst = min(both, key=lambda s: i_bw[s] / r_bw[s])
                _ratio_row(rows, f"shm_{direction}_vs_ray",
                           f"same host {arrow}: gpushare ipc:// (shm) / Ray actor on one "
                           "node (its shared-memory object store)", i_bw[worst] / r_bw[worst], ">=", None,
                           f"{fmt_bytes(worst)}: {i_bw[worst] / MiB:.0f} vs "
                           f"{r_bw[worst] / MiB:.0f} MiB/s")

    # the CPU kernel emulator: ElementwiseKernel against NumPy, same expression
    k = res.get("kernels") or {}
    if k.get("available") and backend == "cpu":
        n = (k.get("params") or {}).get("n", 10 ** 7)
        _ratio_row(rows, "kernel_vs_numpy",
                   f"ElementwiseKernel x*y+1 over {n:,} float32: NumPy time / kernel time",
                   k["elementwise_speedup_vs_numpy"], ">=", 1.0,
                   f"{k['elementwise_s'] * 1e3:.1f} ms vs NumPy {k['numpy_s'] * 1e3:.1f} ms; "
                   f"__syncthreads {k['barrier_ns_per_thread']:.1f} ns per thread")

    # (d) compute-bound program
    if _ok(gs) and "matmul" in gs and _ok(local) and "matmul" in local:  # type: ignore[operator]
        g_mm, l_mm = gs["matmul"], local["matmul"]  # type: ignore[index]
        _ratio_row(rows, "d_vs_local", f"(d) matmul loop gpushare / {local['label']}",  # type: ignore[index]
                   g_mm["seconds"] / l_mm["seconds"], "<=",
                   1.05 if backend == "cupy" else None,
                   f"{g_mm['n']}x{g_mm['n']} x{g_mm['iters']}: {g_mm['seconds']:.3f} s vs "
                   f"{l_mm['seconds']:.3f} s" + ("" if backend == "cupy" else
                                                 " (target is for a GPU; CPU: figure only)"))

    # (e) peak memory during a copy each way
    mem = res.get("memory") or {}
    if mem.get("available"):
        size = mem["size"]
        limit = 1.25 * size / GiB
        for direction in ("up", "down"):
            for side in ("client", "server"):
                extra = mem[direction][f"{side}_extra"] / GiB
                _ratio_row(rows, f"e_{direction}_{side}",
                           f"(e) extra peak memory, {side}, "
                           f"{'host->device' if direction == 'up' else 'device->host'} "
                           f"{fmt_bytes(size)} (GiB)", extra, "<=", limit,
                           f"peak {mem[direction][f'{side}_peak'] / GiB:.2f} GiB")

    # (f) fair concurrency: a victim's round trips beside a hog session
    fair = res.get("fairness") or {}
    for hog, beside in (("compute", "long computations"), ("copy", "big copies")):
        what = f"(f) victim p99 round trip / hog op, beside {beside}"
        target = 1.0 / float(fair.get("hol_factor", 4.0))
        v, h = (fair.get("victim") or {}), (fair.get("hog") or {})
        if not (fair.get("available") and hog in v and "alone" in v and hog in h):
            reason = fair.get("reason", "not run")
            _ratio_row(rows, f"f_{hog}_hol", what, None, "<=", target, reason)
            continue
        alone, r, op = v["alone"], v[hog], h[hog]["op_median_s"] * 1e6
        _ratio_row(rows, f"f_{hog}_hol", what, r["p99_us"] / op, "<=", target,
                   f"p99 {_us(r['p99_us'])} vs hog op {_us(op)} ({h[hog]['what']}); "
                   f"max {_us(r['max_us'])}")
        _ratio_row(rows, f"f_{hog}_slowdown",
                   f"(f) victim round trip beside {beside} / alone, median",
                   r["median_us"] / alone["median_us"], "<=", None,
                   f"median {_us(r['median_us'])} vs {_us(alone['median_us'])}; p99 "
                   f"{_us(r['p99_us'])} vs {_us(alone['p99_us'])} "
                   f"({r['p99_us'] / alone['p99_us']:.1f}x)")
    return rows


def _worst_big(bw: dict, floor: dict, floor_name: str = "", note: str = "") -> tuple:
    """``(ratio, detail)`` of ``bw`` to ``floor`` at the copy size of 64 MiB or more
    where it is lowest; ``(None, why)`` when no such size was measured on both."""
    big = sorted(s for s in bw if s >= BIG and s in floor)
    if not big:
        return None, "no copy of 64 MiB or more measured on both"
    worst = min(big, key=lambda s: bw[s] / floor[s])
    return bw[worst] / floor[worst], (f"{fmt_bytes(worst)}: {bw[worst] / MiB:.0f} vs "
                                      f"{floor_name}{floor[worst] / MiB:.0f} MiB/s{note}")


def _median_pair(system: list, floor: list, unit: float = 1.0) -> str:
    """``"G vs F"``: the medians of a paired measurement's two sides, in ``unit``."""
    return f"{median(system) / unit:.0f} vs {median(floor) / unit:.0f}"


def _us(v: float) -> str:
    """Microseconds as ``850 us`` or ``4.1 ms``."""
    return f"{v:.0f} us" if v < 1000 else f"{v / 1000:.1f} ms"


def _fmt(v: float | None, digits: int = 2) -> str:
    if v is None:
        return "n/a"
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.{digits}f}"


def _verdict(row: dict) -> str:
    if row["target"] is None:
        return "info"
    if row["pass"] is None:
        return "not measured"
    return "PASS" if row["pass"] else "FAIL"


def _copy_label(s: dict) -> str:
    """Local NumPy's copies are ``memcpy`` (``numpy.copyto``): say so."""
    return s["label"] + (" (memcpy)" if s["label"] == "local NumPy" else "")


def _order(res: dict) -> list[dict]:
    kinds = {"gpushare": 0, "floor": 1, "peer": 2}
    return sorted(res.get("systems", {}).values(), key=lambda s: kinds.get(s.get("kind"), 3))


def markdown(res: dict) -> str:
    """The results as Markdown: machine, targets, per-call costs, copies, memory."""
    m = res.get("machine", {})
    cfg = res.get("config", {})
    lines = ["# gpushare benchmarks", ""]
    lines.append(
        f"Machine: {m.get('cpu')}, {m.get('cores_usable')} of {m.get('cores')} cores usable, "
        f"{m.get('memory_gib')} GiB RAM, load average at start {m.get('load_average')}, "
        f"{m.get('os')}; Python {m.get('python')}, NumPy {m.get('numpy')}, pyzmq "
        f"{m.get('pyzmq')} (libzmq {m.get('libzmq')}), msgpack {m.get('msgpack')}; peers: "
        f"Ray {m.get('ray')}, torch {m.get('torch')}, rpyc {m.get('rpyc')}"
        + (f"; GPU {m.get('gpu')}, CuPy {m.get('cupy')}" if m.get("gpu") else "") + ".")
    lines.append("")
    lines.append(f"Run: `python -m benchmarks{' --quick' if cfg.get('quick') else ''} "
                 f"--backend {cfg.get('backend')}`, {res.get('started', '')}, "
                 f"{res.get('elapsed_s', 0):.0f} s. Backend {cfg.get('backend')}, loopback TCP, "
                 f"BLAS threads per process: {cfg.get('blas_threads', 'keep')}.")
    lines += ["", "## Targets (ratios against floors measured in the same run)", "",
              "| figure | value | target | result | detail |", "|---|---:|---:|---|---|"]
    for row in res.get("ratios", []):
        target = "" if row["target"] is None else f"{row['op']} {_fmt(row['target'])}"
        lines.append(f"| {row['what']} | {_fmt(row['value'])} | {target} | "
                     f"{_verdict(row)} | {row['detail']} |")

    lines += ["", "## Per-call cost and compute", "",
              f"(a) {cfg.get('small_n', 10000):,} elementwise ops on a "
              f"{cfg.get('small_size', 1000):,}-element array back to back, then one read "
              "(raw ZeroMQ: 64-byte messages pipelined); (b) synchronous round trips "
              "(`float(x.sum())`; raw ZeroMQ: one 64-byte echo); (d) matmul loop "
              f"`b = a @ b`, {cfg.get('mm_n')}x{cfg.get('mm_n')} float32, "
              f"{cfg.get('mm_iters')} times, then one read.", "",
              "| system | (a) us per op | (b) us per round trip | (d) matmul s | start s |",
              "|---|---:|---:|---:|---:|"]
    for s in _order(res):
        if not s.get("available"):
            continue
        if not any(k in s for k in ("small_ops", "round_trip", "matmul")):
            continue
        mm = s.get("matmul", {}).get("seconds")
        lines.append(f"| {s['label']} | {_fmt(_per_call(s, 'small_ops'))} | "
                     f"{_fmt(_per_call(s, 'round_trip'))} | {_fmt(mm, 3)} | "
                     f"{_fmt(s.get('startup_s'), 1)} |")

    for direction, title in (("upload", "host -> device"), ("download", "device -> host")):
        cols = [s for s in _order(res) if _bandwidth(s, direction)]
        if not cols:
            continue
        sizes = sorted({size for s in cols for size in _bandwidth(s, direction)})
        lines += ["", f"## Copies {title} (MiB/s)", "",
                  "| size | " + " | ".join(_copy_label(s) for s in cols) + " |",
                  "|---|" + "---:|" * len(cols)]
        for size in sizes:
            cells = []
            for s in cols:
                bw = _bandwidth(s, direction).get(size)
                cells.append(_fmt(bw / MiB if bw else None, 1))
            lines.append(f"| {fmt_bytes(size)} | " + " | ".join(cells) + " |")

    bd = res.get("breakdown") or {}
    if bd.get("available"):
        lines += ["", "## Where gpushare's time goes ((a) and (b))", "",
                  "Client CPU: the client's main-thread CPU time per call. Server executor: "
                  "the same messages replayed into an in-process `SessionExecutor` (no "
                  "sockets). The rest: wire, broker hop, worker loop, and waiting for a "
                  "core (see `python -m benchmarks.profile`).", "",
                  "| workload | calls | messages | end to end us/call | client CPU | "
                  "server executor | the rest |", "|---|---:|---:|---:|---:|---:|---:|"]
        for name in ("a", "b"):
            r = bd.get(name)
            if not r:
                continue
            rest = r["end_to_end_us"] - r["client_cpu_us"] - r["server_executor_us"]
            lines.append(f"| ({name}) | {r['calls']} | {r['messages']} | "
                         f"{r['end_to_end_us']:.1f} | {r['client_cpu_us']:.1f} | "
                         f"{r['server_executor_us']:.1f} | {rest:.1f} |")

    mem = res.get("memory") or {}
    lines += ["", "## Peak memory during a copy (e)", ""]
    if mem.get("available"):
        lines += [f"Copy of {fmt_bytes(mem['size'])}; extra = peak resident memory minus the "
                  "resident memory just before the copy (client: the benchmark's client "
                  "process; server: broker plus its workers). The copy's destination counts.",
                  "", "| direction | seconds | client extra GiB | server extra GiB |",
                  "|---|---:|---:|---:|"]
        for d, name in (("up", "host -> device"), ("down", "device -> host")):
            r = mem[d]
            lines.append(f"| {name} | {r['seconds']:.2f} | {r['client_extra'] / GiB:.2f} | "
                         f"{r['server_extra'] / GiB:.2f} |")
    else:
        lines.append(f"Not measured: {mem.get('reason', 'not run')}.")

    fair = res.get("fairness") or {}
    lines += ["", "## Fair concurrency (f)", ""]
    if fair.get("available"):
        fc = fair["config"]
        lines += [f"One server ({fair.get('server', 'gpushare serve')}); a victim session "
                  f"(its own client process) times each `float(x.sum())` on a "
                  f"{fc.get('size', 1000):,}-element array for {fc['seconds']:g} s: alone, "
                  "then while a hog session (another client process) runs operations back "
                  "to back. No head-of-line blocking: the victim's p99 stays far below one "
                  f"hog operation (target: below 1/{fair.get('hol_factor', 4):g} of it); "
                  "on a CPU backend some slowdown is the cores being shared.", "",
                  "| situation | hog operation | hog ops | hog op median | victim calls | "
                  "median | p99 | max | median / alone | p99 / alone |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        alone = fair["victim"].get("alone")
        for name in ("alone", "compute", "copy"):
            r = fair["victim"].get(name)
            if r is None:
                continue
            h = fair["hog"].get(name)
            hog_cells = (f"{h['what']} | {h['ops']} | {_us(h['op_median_s'] * 1e6)}"
                         if h else "none | | ")
            lines.append(
                f"| {name} | {hog_cells} | {r['n']:,} | {_us(r['median_us'])} | "
                f"{_us(r['p99_us'])} | {_us(r['max_us'])} | "
                f"{r['median_us'] / alone['median_us']:.2f} | "
                f"{r['p99_us'] / alone['p99_us']:.2f} |")
    else:
        lines.append(f"Not measured: {fair.get('reason', 'not run')}.")

    k = res.get("kernels") or {}
    lines += ["", "## CPU kernel emulator (`gpushare_server.kernels.bench`)", ""]
    if k.get("available"):
        lines.append(f"ElementwiseKernel `z = x * y + 1` over {k.get('params', {}).get('n', 10**7):,} "
                     f"float32: {k['elementwise_s'] * 1e3:.1f} ms vs NumPy "
                     f"{k['numpy_s'] * 1e3:.1f} ms (speed-up {k['elementwise_speedup_vs_numpy']:.2f}x); "
                     f"`__syncthreads` costs {k['barrier_ns_per_thread']:.2f} ns per thread.")
    else:
        lines.append(f"Not measured: {k.get('reason', 'not run')}.")

    notes = []
    for s in _order(res):
        if not s.get("available"):
            notes.append(f"- {s.get('label', s.get('name'))}: not measured: {s.get('reason')}")
        for skipped in s.get("skipped", []):
            notes.append(f"- {s['label']}: skipped {skipped}")
        for note in s.get("notes", []):
            notes.append(f"- {s['label']}: {note}")
    notes += [f"- {n}" for n in res.get("notes", [])]
    if notes:
        lines += ["", "## Notes and skips", "", *notes]
    return "\n".join(lines) + "\n"


def plot(res: dict, path: str) -> str | None:
    """Bandwidth against size (both directions) and per-call costs; ``None`` if drawn,
    else why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        return f"matplotlib is not installed ({exc})"
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    styles = {"gpushare": dict(lw=2.5, color="C3"),
              "gpushare_curve": dict(lw=2, color="C3", ls=":"),
              "gpushare_ipc": dict(lw=2, color="C1", ls="--"),
              "tcp": dict(color="k", ls=":"), "zmq": dict(color="0.5", ls=":"),
              "local": dict(color="C2", ls="-."), "ray": dict(color="C0"),
              "ray_shm": dict(color="C0", ls="--"),
              "torch_rpc": dict(color="C4"), "rpyc": dict(color="C5")}
    for ax, direction, title in ((axes[0], "upload", "host -> device"),
                                 (axes[1], "download", "device -> host")):
        for s in _order(res):
            bw = _bandwidth(s, direction)
            if not bw:
                continue
            xs = sorted(bw)
            ax.plot(xs, [bw[x] / GiB for x in xs], marker="o", ms=3, label=_copy_label(s),
                    **styles.get(s["name"], {}))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("copy size (bytes)")
        ax.set_ylabel("GiB/s")
        ax.set_title(f"(c) {title}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    ax = axes[2]
    names, a_vals, b_vals = [], [], []
    for s in _order(res):
        a, b = _per_call(s, "small_ops"), _per_call(s, "round_trip")
        if a or b:
            names.append(s["label"])
            a_vals.append(a or math.nan)
            b_vals.append(b or math.nan)
    xs = range(len(names))
    ax.bar([x - 0.2 for x in xs], a_vals, 0.4, label="(a) pipelined op")
    ax.bar([x + 0.2 for x in xs], b_vals, 0.4, label="(b) round trip")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("microseconds per call")
    ax.set_title("per-call cost")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    m = res.get("machine", {})
    fig.suptitle(f"gpushare benchmarks ({res.get('config', {}).get('backend')} backend) on "
                 f"{m.get('cpu')}, {m.get('cores_usable')} cores, {m.get('memory_gib')} GiB")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return None


def console_summary(res: dict) -> str:
    """The targets table, for the terminal."""
    out = []
    width = max((len(r["what"]) for r in res.get("ratios", [])), default=20)
    for r in res.get("ratios", []):
        target = "" if r["target"] is None else f"{r['op']} {_fmt(r['target'])}"
        out.append(f"{r['what']:<{width}}  {_fmt(r['value']):>8}  {target:>8}  "
                   f"{_verdict(r):<12} {r['detail']}")
    return "\n".join(out)
