"""Real gpushare servers in subprocesses, for the tests (see conftest.py)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time

BACKEND = os.environ.get("GPUSHARE_TEST_BACKEND", "cpu")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerProcess:
    """``gpushare serve`` in a subprocess; ``address`` once it printed ``listening``."""

    def __init__(self, *extra: str, backend: str = BACKEND, bind: str | None = None,
                 env: dict | None = None) -> None:
        self.address = bind or f"tcp://127.0.0.1:{free_port()}"
        # (it stops with this process: a test run killed midway leaves no server)
        cmd = [sys.executable, "-m", "gpushare", "serve", "--bind", self.address,
               "--backend", backend, "--exit-with-parent", str(os.getpid()), *extra]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env={**os.environ, **(env or {})})
        self.lines: list[str] = []
        self.err_lines: list[str] = []
        self._listening = False
        self._ready = threading.Event()  # listening, or its output ended (it exited)
        threading.Thread(target=self._read, daemon=True).start()
        # drain stderr too: a chatty server must never block on a full pipe
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._err_reader.start()
        if not self._ready.wait(60) or not self._listening:
            self.stop()
            raise RuntimeError(f"server did not start: {self.lines} "
                               f"{self.stderr_text()[-2000:]}")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            if "listening" in line:
                self._listening = True
                self._ready.set()
        self._ready.set()  # (a server that exits before listening fails at once)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.err_lines.append(line)

    def stderr_text(self) -> str:
        """What the server wrote to stderr so far (all of it once it has stopped)."""
        if self.proc.poll() is not None:
            self._err_reader.join(10)
        return "".join(self.err_lines)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode



def run_python(code: str, env: dict | None = None, timeout: float = 120,
               args: list[str] | None = None) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (what a user's program sees)."""
    full_env = {**os.environ, **(env or {})}
    for key, value in list(full_env.items()):
        if value is None:
            del full_env[key]
    return subprocess.run([sys.executable, *(args or ["-c", code])], capture_output=True,
                          text=True, timeout=timeout, env=full_env)


def wait_for(predicate, timeout: float = 10.0, interval: float = 0.05):
    """Poll ``predicate`` until it returns something true; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(interval)
