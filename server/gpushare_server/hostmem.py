"""Host memory and session workers: a session that outgrows the host fails its own
call, not the machine.

On the CPU backend a session's "device" memory is its worker's heap. With nothing
bounding it, a session whose arrays (or NumPy's temporaries) outgrow the host is
ended by the kernel's OOM killer, and the client sees ``SessionLostError``. So each
CPU worker bounds its private memory (``RLIMIT_DATA``: private writable mappings and
the heap; shared memory such as the same-host ring is not counted) to what it held at
start plus a budget: ``gpushare serve --host-memory SIZE``, by default the host's
available memory and free swap when the worker starts. Past it, ``malloc`` fails,
NumPy raises ``MemoryError`` and the client gets CuPy's ``OutOfMemoryError`` for that
call; the session goes on. Programs the worker starts (the kernel emulator's compiler)
inherit the bound.

Every worker, on either backend, also offers itself first to the OOM killer
(``oom_score_adj``) so that, when several sessions together exhaust the host, the
kernel ends a session's worker rather than the broker that serves all of them.
"""
from __future__ import annotations

import logging
import resource

log = logging.getLogger("gpushare.hostmem")

#: added to a worker's ``oom_score_adj`` (-1000..1000): workers go before the broker
OOM_SCORE_ADJ = 500


def meminfo(path: str = "/proc/meminfo") -> dict[str, int]:
    """``/proc/meminfo`` in bytes (``{}`` where there is none)."""
    out: dict[str, int] = {}
    try:
        with open(path) as f:
            for line in f:
                name, _, rest = line.partition(":")
                fields = rest.split()
                if fields and fields[0].isdigit():
                    scale = 1024 if fields[1:2] == ["kB"] else 1
                    out[name] = int(fields[0]) * scale
    except OSError:
        return {}
    return out


def default_budget() -> int:
    """The host's available memory and free swap now, in bytes (0: unknown)."""
    info = meminfo()
    if "MemAvailable" not in info:
        return 0
    return info["MemAvailable"] + info.get("SwapFree", 0)


def _data_size() -> int:
    """This process's private writable memory now (``VmData``), in bytes."""
    status = meminfo("/proc/self/status")
    return status.get("VmData", 0)


def prefer_for_oom_killer(adj: int = OOM_SCORE_ADJ) -> None:
    """Raise this process's ``oom_score_adj`` by ``adj`` (no privilege needed)."""
    try:
        with open("/proc/self/oom_score_adj", "r+") as f:
            now = int(f.read().strip() or 0)
            f.seek(0)
            f.write(str(min(1000, now + adj)))
    except (OSError, ValueError):
        pass  # not Linux, or no procfs: nothing to adjust


def bound_data(budget: int | None) -> int | None:
    """Bound this process's private memory to what it holds now plus ``budget`` bytes
    (``None``: :func:`default_budget`; 0: no bound). Returns the limit set, or None."""
    if budget is None:
        budget = default_budget()
    if budget <= 0:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    limit = _data_size() + int(budget)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft != resource.RLIM_INFINITY and soft < limit:
        return soft  # already bounded more tightly by whoever started us
    try:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ValueError, OSError) as exc:
        log.warning("cannot bound this worker's memory (%s): a session that outgrows the "
                    "host will be ended by the kernel", exc)
        return None
    return limit
