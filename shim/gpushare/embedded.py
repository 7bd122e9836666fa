"""The embedded local server, started when no ``GPUSHARE_SERVER`` is configured.

It is an ordinary ``gpushare serve`` in a child process, bound to a private ``ipc://``
socket (or a loopback port), with ``--backend auto`` (CuPy when this machine has a
working GPU, else the CPU backend). It exits with its parent.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field

from . import errors
from ._hook import environment_without
from .settings import env_float


#: the name of an embedded server's private directory (``tempfile.mkdtemp``'s prefix):
#: the server removes it when its client was killed (``broker.Broker.shutdown``)
PREFIX = "gpushare-embedded-"


@dataclass
class EmbeddedServer:
    address: str
    proc: subprocess.Popen
    tmpdir: str
    owner: int = field(default_factory=os.getpid)

    def stop(self) -> None:
        if os.getpid() != self.owner:  # a forked child's copy: the server is the parent's
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        # the directory is ours alone (mkdtemp): the server's socket files go with it
        shutil.rmtree(self.tmpdir, ignore_errors=True)


def _drain(proc: subprocess.Popen) -> None:
    assert proc.stdout is not None
    with proc.stdout:
        for _ in proc.stdout:
            pass


def start_embedded_server(timeout: float | None = None) -> EmbeddedServer:
    """Start a local server and return once it listens."""
    if timeout is None:
        timeout = env_float("GPUSHARE_TIMEOUT", 30.0) + 60
    tmpdir = tempfile.mkdtemp(prefix=PREFIX)
    address = f"ipc://{tmpdir}/server"
    backend = os.environ.get("GPUSHARE_BACKEND", "auto") or "auto"
    # (-P: the user's directory is not put first on the server's sys.path, where a
    # ``signal.py`` or ``resource.py`` of theirs would stand in for the standard one)
    cmd = [sys.executable, "-P", "-m", "gpushare", "serve", "--bind", address,
           "--backend", backend, "--exit-with-parent", str(os.getpid())]
    # (not the hook's variables: the server's ``import cupy`` is this machine's CuPy)
    env = {**environment_without(),
           "GPUSHARE_LOG_LEVEL": os.environ.get("GPUSHARE_LOG_LEVEL", "WARNING")}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                            env=env)
    line: list[str] = []

    def read_first_line() -> None:
        assert proc.stdout is not None
        for text in proc.stdout:
            if "listening" in text:
                line.append(text)
                break
        # keep draining so the server never blocks on a full pipe; close at its end
        threading.Thread(target=_drain, args=(proc,), daemon=True).start()

    reader = threading.Thread(target=read_first_line, daemon=True)
    reader.start()
    reader.join(timeout)
    if not line:
        code = proc.poll()
        if code is None:
            proc.kill()
            proc.wait()
            why = f"did not start within {timeout:g} s"
        else:
            why = f"exited with code {code} (its error is printed above)"
        shutil.rmtree(tmpdir, ignore_errors=True)
        raise errors.ServerUnavailableError(
            f"gpushare: the embedded local server {why} (command: {' '.join(cmd)}). "
            "Set GPUSHARE_SERVER to use a remote server instead.")
    return EmbeddedServer(address, proc, tmpdir)
