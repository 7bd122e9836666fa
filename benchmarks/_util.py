"""Helpers shared by the harness and its child processes: processes, ports, memory,
the machine's description."""
from __future__ import annotations

import os
import platform
import socket
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Iterable

#: the repository root (``benchmarks/``'s parent): children run from here
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


class Skip(Exception):
    """A workload or system that does not run here; the message says why."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def child_env(extra: dict | None = None, drop: Iterable[str] = ()) -> dict:
    """The environment for a child process: the repository on ``PYTHONPATH`` (so
    ``benchmarks`` imports from anywhere) and no ``GPUSHARE_SERVER`` unless asked
    for (it would turn ``import cupy`` into gpushare)."""
    env = dict(os.environ)
    env.pop("GPUSHARE_SERVER", None)
    for key in drop:
        env.pop(key, None)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra or {})
    return env


class LineProcess:
    """A child process whose stdout is read line by line in a thread.

    ``wait_for(text)`` returns the first line containing ``text``; every line is kept
    in ``lines`` (and handed to ``on_line``, if given).
    """

    def __init__(self, cmd: list[str], *, env: dict | None = None, stdin: bool = False,
                 on_line: Callable[[str], None] | None = None) -> None:
        self.cmd = cmd
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
            env=env if env is not None else child_env(),
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, bufsize=1)
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self._on_line = on_line
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            with self._cond:
                self.lines.append(line)
                self._cond.notify_all()
            if self._on_line is not None:
                self._on_line(line)
        with self._cond:
            self._cond.notify_all()

    def wait_for(self, text: str, timeout: float, start: int = 0) -> str:
        """The first line (from index ``start``) containing ``text``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for line in self.lines[start:]:
                    if text in line:
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    tail = "\n".join(self.lines[-15:])
                    raise RuntimeError(f"{' '.join(self.cmd[:6])}: no line with {text!r} "
                                       f"within {timeout:g} s; output:\n{tail}")
                self._cond.wait(min(left, 0.2))

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def stop(self, timeout: float = 10.0) -> None:
        """Terminate (then kill) the child, and reap it."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(2)


# --- memory ---------------------------------------------------------------------------

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_bytes(pid: int) -> int:
    """Resident set size of ``pid`` in bytes (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants (Linux ``/proc``)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return out


def tree_rss(pid: int) -> int:
    """Summed resident memory of ``pid`` and its descendants."""
    return sum(rss_bytes(p) for p in process_tree(pid))


class PeakSampler:
    """Samples resident memory in a thread and keeps each peak.

    ``roots`` maps a name to ``(pid, tree)``: with ``tree`` the process and all its
    descendants are summed (a server: broker plus workers). Sampling every
    ``interval`` seconds misses only spikes shorter than that; a copy of hundreds of
    MiB lasts far longer.
    """

    def __init__(self, roots: dict[str, tuple[int, bool]], interval: float = 0.002) -> None:
        self.roots = roots
        self.interval = interval
        self.peak = {name: 0 for name in roots}
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _pids(self) -> dict[str, list[int]]:
        return {name: process_tree(pid) if tree else [pid]
                for name, (pid, tree) in self.roots.items()}

    def _run(self) -> None:
        pids = self._pids()
        while not self._stop.is_set():
            self.samples += 1
            if self.samples % 50 == 0:  # a worker could start meanwhile: look again
                pids = self._pids()
            for name, group in pids.items():
                value = sum(rss_bytes(p) for p in group)
                if value > self.peak[name]:
                    self.peak[name] = value
            self._stop.wait(self.interval)

    def __enter__(self) -> "PeakSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


# --- the machine ----------------------------------------------------------------------

def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _mem_total() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _version(module: str) -> str | None:
    try:
        from importlib.metadata import version
        return version(module)
    except Exception:  # noqa: BLE001 - not installed
        return None


def describe_machine(backend: str) -> dict:
    """What the figures were measured on (CPU, cores, memory, load, versions)."""
    import numpy
    import zmq
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    info: dict[str, Any] = {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": affinity,
        "memory_gib": round(_mem_total() / GiB, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg")
        else None,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "pyzmq": zmq.__version__,
        "libzmq": zmq.zmq_version(),
        "msgpack": _version("msgpack"),
        "gpushare": _version("gpushare"),
        "ray": _version("ray"),
        "torch": _version("torch"),
        "rpyc": _version("rpyc"),
        "backend": backend,
    }
    if backend == "cupy":
        try:
            import cupy
            props = cupy.cuda.runtime.getDeviceProperties(0)
            name = props["name"]
            info["gpu"] = name.decode() if isinstance(name, bytes) else str(name)
            info["cupy"] = cupy.__version__
        except Exception as exc:  # noqa: BLE001 - report, do not fail
            info["gpu"] = f"unavailable ({exc})"
    return info


def fmt_bytes(n: int) -> str:
    """``4 KiB``, ``64 MiB``, ``1 GiB``."""
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def log(msg: str) -> None:
    """Progress output of the harness and its children (flushed at once)."""
    print(msg, flush=True)


def python() -> str:
    return sys.executable


def median(values: list) -> float:
    """The median of a non-empty list of numbers."""
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
