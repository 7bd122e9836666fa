"""The server's main process: accepts clients and routes each to its session worker.

    client DEALER ──tcp──> [frontend ROUTER]  broker  [backend ROUTER] <──ipc── worker DEALER
                                                                      (one process per session)

The broker never runs user work, so it always answers: handshakes, pings, and
reports of a worker that died. Large frames pass through without being copied.
"""
from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import msgpack
import zmq

from gpushare import __version__
from gpushare.protocol import PROTOCOL_VERSION, Encoder

from .worker import send_frames

log = logging.getLogger("gpushare.server")


@dataclass
class Worker:
    identity: bytes
    proc: subprocess.Popen
    ready: bool = False
    session: "Session | None" = None
    started: float = field(default_factory=time.monotonic)


@dataclass
class Session:
    id: str
    client: bytes
    worker: Worker
    backlog: list = field(default_factory=list)  # messages that came before the worker was ready
    created: float = field(default_factory=time.monotonic)
    lost: str | None = None
    calls: int = 0


def _fatal(reason: str, key: str = "gpushare.SessionLost") -> list:
    return Encoder().encode({"t": "fatal", "error": [key, reason]})


class Broker:
    """Routes client messages to per-session worker processes."""

    def __init__(self, bind: str, backend: str, *, spare_workers: int = 1,
                 parent_pid: int = 0) -> None:
        self.bind_address = bind
        self.backend = backend
        self.spare_target = spare_workers
        self.parent_pid = parent_pid
        self.ctx = zmq.Context()
        self.frontend = self.ctx.socket(zmq.ROUTER)
        self.frontend.setsockopt(zmq.LINGER, 0)
        self.frontend.setsockopt(zmq.ROUTER_MANDATORY, 0)
        self.frontend.bind(bind)
        self.endpoint = self.frontend.getsockopt(zmq.LAST_ENDPOINT).decode()
        self._tmpdir = tempfile.mkdtemp(prefix="gpushare-")
        self.backend_sock = self.ctx.socket(zmq.ROUTER)
        self.backend_sock.setsockopt(zmq.LINGER, 0)
        self.worker_endpoint = f"ipc://{self._tmpdir}/workers"
        try:
            self.backend_sock.bind(self.worker_endpoint)
        except zmq.ZMQError:  # no ipc transport on this platform
            port = self.backend_sock.bind_to_random_port("tcp://127.0.0.1")
            self.worker_endpoint = f"tcp://127.0.0.1:{port}"
        self.workers: dict[bytes, Worker] = {}
        self.sessions: dict[bytes, Session] = {}  # by client routing id
        self.spares: list[Worker] = []
        self.dying: list[tuple[subprocess.Popen, float]] = []
        self._stop = False
        self._last_check = 0.0

    # --- workers ----------------------------------------------------------------
    def _spawn(self) -> Worker:
        identity = uuid.uuid4().hex.encode()
        cmd = [sys.executable, "-m", "gpushare_server.worker", "--broker", self.worker_endpoint,
               "--identity", identity.decode(), "--backend", self.backend,
               "--parent", str(os.getpid())]
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)
        worker = Worker(identity, proc)
        self.workers[identity] = worker
        return worker

    def _top_up_spares(self) -> None:
        while len(self.spares) < self.spare_target:
            self.spares.append(self._spawn())

    def _take_worker(self) -> Worker:
        worker = self.spares.pop(0) if self.spares else self._spawn()
        self._top_up_spares()
        return worker

    # --- client messages --------------------------------------------------------
    def _on_client(self, frames: list) -> None:
        client, msg = frames[0].bytes, frames[1:]
        if not msg:
            return
        try:
            header = msgpack.unpackb(msg[0].bytes, raw=False, strict_map_key=False,
                                     ext_hook=lambda code, data: None)
            kind = header.get("t") if isinstance(header, dict) else None
        except Exception:  # noqa: BLE001 - a malformed message gets an error reply
            kind = None
        session = self.sessions.get(client)
        if kind == "batch":
            if session is None:
                self._send_client(client, _fatal(
                    "gpushare: this session is unknown to the server (the server restarted, "
                    "or the session was closed); its arrays are gone"))
            elif session.lost:
                self._send_client(client, _fatal(session.lost))
            elif not session.worker.ready:
                session.backlog.append(msg)
            else:
                session.calls += 1
                send_frames(self.backend_sock, [session.worker.identity, b"msg", *msg])
        elif kind == "hello":
            self._hello(client, header)
        elif kind == "ping":
            alive = session is not None and session.lost is None
            self._send_client(client, Encoder().encode(
                {"t": "pong", "alive": alive, "lost": session.lost if session else None}))
        elif kind == "bye":
            if session is not None:
                self._close(session, "closed by client")
        else:
            self._send_client(client, Encoder().encode(
                {"t": "protocol_error", "error": "malformed or unknown message"}))

    def _hello(self, client: bytes, header: dict) -> None:
        version = header.get("v")
        if version != PROTOCOL_VERSION:
            self._send_client(client, Encoder().encode({"t": "fatal", "error": [
                "gpushare.VersionMismatch",
                f"gpushare protocol mismatch: this server ({__version__}) speaks version "
                f"{PROTOCOL_VERSION}, the client speaks {version!r}; install the same "
                "gpushare version on both sides"]}))
            return
        old = self.sessions.get(client)
        if old is not None:
            self._close(old, "replaced by a new handshake")
        worker = self._take_worker()
        session = Session(uuid.uuid4().hex[:12], client, worker)
        worker.session = session
        self.sessions[client] = session
        log.info("session %s opened (worker pid %d)", session.id, worker.proc.pid)
        self._send_client(client, Encoder().encode({
            "t": "welcome", "v": PROTOCOL_VERSION, "session": session.id,
            "backend": self.backend, "server_version": __version__}))

    def _close(self, session: Session, reason: str) -> None:
        self.sessions.pop(session.client, None)
        worker = session.worker
        if worker.proc.poll() is None:
            try:
                self.backend_sock.send_multipart([worker.identity, b"stop"])
            except zmq.ZMQError:
                pass
        self.workers.pop(worker.identity, None)
        self.dying.append((worker.proc, time.monotonic() + 5.0))
        log.info("session %s closed: %s", session.id, reason)

    def _reap_dying(self) -> None:
        """Collect stopped workers without blocking; kill those that do not stop."""
        now = time.monotonic()
        still = []
        for proc, deadline in self.dying:
            if proc.poll() is not None:
                continue
            if now > deadline:
                proc.kill()
            still.append((proc, deadline))
        self.dying = still

    def _send_client(self, client: bytes, frames: list) -> None:
        try:
            send_frames(self.frontend, [client, *frames])
        except zmq.ZMQError:
            pass

    # --- worker messages --------------------------------------------------------
    def _on_worker(self, frames: list) -> None:
        identity = frames[0].bytes
        kind = frames[1].bytes if len(frames) > 1 else b""
        worker = self.workers.get(identity)
        if worker is None:
            return
        if kind == b"ready":
            worker.ready = True
            session = worker.session
            if session is not None:
                for msg in session.backlog:
                    send_frames(self.backend_sock, [identity, b"msg", *msg])
                session.backlog.clear()
        elif kind == b"msg" and worker.session is not None:
            self._send_client(worker.session.client, frames[2:])

    def _check_workers(self) -> None:
        for worker in list(self.workers.values()):
            code = worker.proc.poll()
            if code is None:
                continue
            self.workers.pop(worker.identity, None)
            if worker in self.spares:
                self.spares.remove(worker)
                log.warning("spare worker exited with %s", code)
                continue
            session = worker.session
            if session is not None and session.lost is None:
                how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
                session.lost = (f"gpushare: the session's worker process died ({how}); "
                                "every array of this session is gone. Other sessions are "
                                "unaffected.")
                log.warning("session %s lost: worker died (%s)", session.id, how)
                self._send_client(session.client, _fatal(session.lost))

    # --- main loop --------------------------------------------------------------
    def serve(self, ready_line: bool = True) -> None:
        self._top_up_spares()
        if ready_line:
            print(f"gpushare: listening on {self.endpoint} (backend {self.backend}, "
                  f"pid {os.getpid()})", flush=True)
        poller = zmq.Poller()
        poller.register(self.frontend, zmq.POLLIN)
        poller.register(self.backend_sock, zmq.POLLIN)
        try:
            while not self._stop:
                events = dict(poller.poll(200))
                if self.backend_sock in events:
                    for _ in range(256):
                        try:
                            self._on_worker(self.backend_sock.recv_multipart(zmq.NOBLOCK,
                                                                             copy=False))
                        except zmq.Again:
                            break
                if self.frontend in events:
                    for _ in range(256):
                        try:
                            self._on_client(self.frontend.recv_multipart(zmq.NOBLOCK,
                                                                         copy=False))
                        except zmq.Again:
                            break
                now = time.monotonic()
                if now - self._last_check > 0.2:
                    self._last_check = now
                    self._check_workers()
                    self._reap_dying()
                    if self.parent_pid and not _alive(self.parent_pid):
                        log.info("parent process %d is gone; stopping", self.parent_pid)
                        break
        finally:
            self.shutdown()

    def stop(self, *_: Any) -> None:
        self._stop = True

    def shutdown(self) -> None:
        for session in list(self.sessions.values()):
            self._send_client(session.client, _fatal(
                "gpushare: the server shut down; every array of this session is gone",
                "gpushare.ServerStopped"))
        for worker in list(self.workers.values()):
            if worker.proc.poll() is None:
                try:
                    self.backend_sock.send_multipart([worker.identity, b"stop"])
                except zmq.ZMQError:
                    pass
        deadline = time.monotonic() + 3
        procs = [w.proc for w in self.workers.values()] + [p for p, _ in self.dying]
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.workers.clear()
        self.frontend.close(linger=200)
        self.backend_sock.close(linger=0)
        self.ctx.term()
        shutil.rmtree(self._tmpdir, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def serve(bind: str, backend: str = "auto", *, spare_workers: int = 1, parent_pid: int = 0) -> None:
    """Run a server until SIGINT/SIGTERM (the ``gpushare serve`` command)."""
    from .backends import resolve_backend_name
    name = resolve_backend_name(backend)
    broker = Broker(bind, name, spare_workers=spare_workers, parent_pid=parent_pid)
    signal.signal(signal.SIGTERM, broker.stop)
    signal.signal(signal.SIGINT, broker.stop)
    broker.serve()
