"""The server's main process: accepts clients and routes each to its session worker.

    client DEALER ──tcp──> [frontend ROUTER]  broker  [backend ROUTER] <──ipc── worker DEALER
                                                                      (one process per session)

The broker never runs user work, so it always answers: handshakes, pings, status
queries, and reports of a worker that died. Large frames pass through without being
copied.

What the broker enforces (see docs/operations.md):

* CurveZMQ (``--server-key``, ``--authorized-keys``): the frontend is a CURVE server
  and pyzmq's ZAP handler admits only clients whose public key is authorized. A
  non-loopback address is refused without keys unless ``--insecure``.
* ``--max-sessions`` and ``--max-sessions-per-key``: handshakes beyond them are
  refused with a clear ``fatal`` reply. ``--memory-limit`` travels to each worker.
* ``--session-timeout``: a session whose client has said nothing (no call, no
  heartbeat) for that long, and that has no call in flight, is closed and its worker
  stopped, freeing its memory (a client killed with ``kill -9`` says no goodbye).
* SIGTERM/SIGINT: no new sessions or calls, in-flight calls finish (up to
  ``--drain-timeout``), then every client is told the server stopped; a second signal
  stops at once.
* Untrusted input: ``zmq.MAXMSGSIZE`` on the frontend; anything that fails to decode
  gets a ``protocol_error`` reply and never ends the loop.
"""
from __future__ import annotations

import logging
import math
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import msgpack
import zmq

from gpushare import __version__
from gpushare.embedded import PREFIX as EMBEDDED_PREFIX
from gpushare.protocol import PROTOCOL_VERSION, Encoder
from gpushare.reliable import WINDOW, split_envelope
from gpushare.wire import keep_receive_buffers, port_problem, send_frames

from .lane import UNIX_SUFFIX


log = logging.getLogger("gpushare.server")

#: seconds a status query waits for the workers' numbers before answering with the
#: last ones known (a worker answers between calls; one in a long call answers late)
STATUS_WAIT = 1.0
#: status queries waiting for the workers' numbers at most; more are answered at once
MAX_STATUS_QUERIES = 64
#: bytes of a session's messages that may wait in the broker for its worker (a client
#: keeps at most ``reliable.WINDOW`` unacknowledged; see ``Broker._take_in``)
MAX_AHEAD = 4 * WINDOW
#: messages queued in ZeroMQ for one client before the broker holds the next ones
#: itself (a client reading slowly: TCP's backpressure fills this queue)
CLIENT_QUEUE = 16
#: bytes of a session's replies the broker holds for a client that is not reading
#: them: an honest client has at most ``reliable.WINDOW`` of them unacknowledged (the
#: worker sends no more), twice after a resend; one that acknowledges replies it never
#: read has its session ended past this (``Broker._hold``)
MAX_HELD = 2 * WINDOW + (8 << 20)
#: seconds without a held reply going out after which the broker looks at the full
#: queues every 50 ms instead of every 2
HELD_STILL = 0.5
#: seconds between refreshes of the workers' numbers while metrics are served
STATS_INTERVAL = 2.0
#: seconds between looks at the authorized-keys directory
KEYS_INTERVAL = 1.0
#: messages kept for a session whose worker is still starting
MAX_BACKLOG = 10_000
#: default message size limit when no memory limit says better
DEFAULT_MAX_MESSAGE = 16 << 30


@dataclass
class Worker:
    identity: bytes
    proc: subprocess.Popen
    ready: bool = False
    session: "Session | None" = None
    started: float = field(default_factory=time.monotonic)
    stats_pending: bool = False
    token: str = ""                # the session client's routing id on the direct path
    endpoint: str | None = None    # the worker's direct data address, once ready
    device: str | None = None      # its GPU (CUDA_VISIBLE_DEVICES) when sessions are placed
    ipc_path: str | None = None    # the socket file its direct path binds (ipc servers)

    def forget(self) -> None:
        """Remove the socket file of the worker's direct path once it has exited
        (libzmq leaves an ipc endpoint's file behind when its socket closes)."""
        if self.ipc_path:
            _unlink(self.ipc_path)
            _unlink(self.ipc_path + UNIX_SUFFIX)  # (its express listener's, if left)
            self.ipc_path = None


@dataclass
class Session:
    id: str
    client: bytes
    worker: Worker
    key: str | None = None
    backlog: list = field(default_factory=list)  # messages that came before the worker was ready
    created: float = field(default_factory=time.monotonic)
    last_seen: float = field(default_factory=time.monotonic)
    lost: str | None = None
    batches: int = 0
    inflight: int = 0   # batches sent to the worker and not yet answered
    stats: dict = field(default_factory=dict)  # the worker's last report
    reported_calls: int = 0
    reported_errors: int = 0
    welcome: dict | None = None  # held back until the worker is ready
    reported_in: int = 0
    reported_out: int = 0
    probe_at: float | None = None  # expiry check: when the worker was asked for its "idle"
    probe_answered: bool = False
    memory_limit: int = 0  # bytes this session may hold (0: no limit)
    sent_in: int = 0  # bytes of its client's messages passed (or held) for its worker
    held: deque = field(default_factory=deque)  # replies its client's queue had no room for
    held_bytes: int = 0
    taken: int = 0    # of those, how many its worker has taken (its "took" reports)


@dataclass
class StatusQuery:
    client: bytes
    deadline: float
    waiting: set


@dataclass
class BrokerOptions:
    """``gpushare serve``'s policy options (see the module docstring)."""

    server_key: str | None = None
    authorized_keys: str | None = None
    insecure: bool = False
    memory_limit: int = 0
    max_sessions: int = 0
    max_sessions_per_key: int = 0
    session_timeout: float = 60.0
    drain_timeout: float = 30.0
    max_message_size: int | None = None
    metrics_port: int | None = None
    metrics_addr: str = "127.0.0.1"
    direct: bool = True  # clients talk to their worker directly (see worker.py)
    key_limits: str | None = None  # a TOML file of per-key limits (limits.py)
    spin_us: float = 250.0  # workers poll this long for the client's next message (worker.py)
    host_memory: int | None = None  # CPU workers' memory beyond start-up (hostmem.py)
    #: the GPUs sessions are spread over, as CUDA_VISIBLE_DEVICES names them (each
    #: session's worker sees one); None or one: every worker sees what the server sees
    devices: list | None = None
    #: a session whose worker spends longer on one message ends (0: no limit; worker.py)
    max_call_seconds: float = 0.0


#: how long a session's worker may take to start before the session expires unwelcomed
#: (a loaded machine starts a Python process and its imports in seconds)
WORKER_START_S = 60.0

UNKNOWN_SESSION = ("gpushare: this session is unknown to the server (the server restarted, "
                   "or the session was closed or expired); its arrays are gone")


def _fatal(reason: str, key: str = "gpushare.SessionLost", status: int | None = None) -> list:
    message: dict = {"t": "fatal", "error": [key, reason]}
    if status is not None:  # (a CUDA error's status)
        message["status"] = status
    return Encoder().encode(message)


def _nbytes(frames: list) -> int:
    total = 0
    for frame in frames:
        try:
            total += len(frame)
        except TypeError:
            pass
    return total


class Broker:
    """Routes client messages to per-session worker processes."""

    def __init__(self, bind: str, backend: str, *, spare_workers: int = 1,
                 parent_pid: int = 0, options: BrokerOptions | None = None) -> None:
        from .auth import AuthorizedKeys, apply_server_key, is_loopback, load_server_key
        from .metrics import Metrics, NoMetrics
        opts = options or BrokerOptions()
        self.options = opts
        self.bind_address = bind
        self.backend = backend
        self.spare_target = spare_workers
        self.parent_pid = parent_pid
        why = port_problem(bind)
        if why is not None:
            raise ValueError(f"--bind {bind}: {why}")
        if bool(opts.server_key) != bool(opts.authorized_keys):
            raise ValueError("--server-key and --authorized-keys go together (the server's "
                             "secret key, and the directory of the clients' public keys)")
        self.curve = bool(opts.server_key)
        if not self.curve and not is_loopback(bind):
            if not opts.insecure:
                raise ValueError(
                    f"refusing to serve {bind} without keys: anyone who can reach it could "
                    "run code on this machine's GPU and read every message. Make keys with "
                    "`gpushare keygen --out DIR server` (and one per client) and serve with "
                    "--server-key DIR/server.key_secret --authorized-keys CLIENT_KEYS_DIR, "
                    "or pass --insecure on a network you trust.")
            banner = (f"WARNING: gpushare serves {bind} WITHOUT encryption or "
                      "authentication (--insecure): anyone who can reach this address can "
                      "use the GPU and read the traffic")
            print("!" * 78 + "\n" + banner + "\n" + "!" * 78, file=sys.stderr, flush=True)
            log.warning(banner)
        if backend == "cpu" and not is_loopback(bind):
            # (see docs/operations.md, "Untrusted input")
            note = ("the CPU backend runs clients' kernels (RawKernel, ElementwiseKernel...) "
                    "as native code in their sessions' workers, with this server's user's "
                    "rights: serve it only to clients you trust (a GPU server runs them on "
                    "the GPU)")
            print(f"gpushare: note: {note}", file=sys.stderr, flush=True)
            log.warning(note)
        server_key = load_server_key(opts.server_key) if opts.server_key else None
        from .limits import KeyLimits
        # a bad file stops the server here, with the reason
        self.key_limits = KeyLimits(opts.key_limits) if opts.key_limits else None
        self.metrics: Any = NoMetrics()
        if opts.metrics_port is not None:
            self.metrics = Metrics()
        self.ctx = zmq.Context()
        self.authorized: Any = None
        self.frontend = self.ctx.socket(zmq.ROUTER)
        try:
            if server_key is not None:
                self.authorized = AuthorizedKeys(self.ctx, str(opts.authorized_keys))
                apply_server_key(self.frontend, *server_key)
            self.frontend.setsockopt(zmq.LINGER, 0)
            # a client's full queue is reported (zmq.Again), not a reason to drop what
            # is sent to it: the broker holds the rest (``_send_client``)
            self.frontend.setsockopt(zmq.ROUTER_MANDATORY, 1)
            # a client reconnecting after a dropped connection keeps its session (its
            # routing id is random and its own)
            self.frontend.setsockopt(zmq.ROUTER_HANDOVER, 1)
            self.frontend.setsockopt(zmq.SNDHWM, CLIENT_QUEUE)
            max_msg = opts.max_message_size
            if max_msg is None:
                max_msg = DEFAULT_MAX_MESSAGE
                if opts.memory_limit:  # nothing bigger than the quota could be stored
                    max_msg = min(max_msg, opts.memory_limit + (1 << 20))
            self.max_message_size = int(max_msg)
            if self.max_message_size > 0:
                self.frontend.setsockopt(zmq.MAXMSGSIZE, self.max_message_size)
            self.frontend.bind(bind)
        except BaseException:
            self.frontend.close(0)
            if self.authorized is not None:
                self.authorized.stop()
            self.ctx.term()
            raise
        self.endpoint = self.frontend.getsockopt(zmq.LAST_ENDPOINT).decode()
        self._tmpdir = tempfile.mkdtemp(prefix="gpushare-")
        self.backend_sock = self.ctx.socket(zmq.ROUTER)
        self.backend_sock.setsockopt(zmq.LINGER, 0)
        self.backend_sock.setsockopt(zmq.SNDHWM, 0)
        self.worker_endpoint = f"ipc://{self._tmpdir}/workers"
        try:
            self.backend_sock.bind(self.worker_endpoint)
        except zmq.ZMQError:  # no ipc transport on this platform
            port = self.backend_sock.bind_to_random_port("tcp://127.0.0.1")
            self.worker_endpoint = f"tcp://127.0.0.1:{port}"
        self.workers: dict[bytes, Worker] = {}
        self.sessions: dict[bytes, Session] = {}  # by client routing id
        self.holding: dict[bytes, Session] = {}  # those with replies held (``_hold``)
        self._held_moved = 0.0  # when a held reply last went out
        self.spares: list[Worker] = []
        self.dying: list[tuple[Worker, float]] = []
        self.status_queries: list[StatusQuery] = []
        self.device_info: dict = {}
        self.started = time.monotonic()
        # names this server's lifetime: what a client learnt of it (which kernel sources
        # it holds) is void after a restart
        self.server_id = uuid.uuid4().hex
        self._signals = 0
        self._draining = False
        #: a socket a signal makes readable (``serve`` sets it: ``signal.set_wakeup_fd``)
        self.wake: socket.socket | None = None
        self._drain_deadline = 0.0
        self._last_check = 0.0
        self._last_keys = 0.0
        self._last_stats = 0.0
        self.metrics_port: int | None = None
        if opts.metrics_port is not None:
            self.metrics_port = self.metrics.serve(opts.metrics_port, opts.metrics_addr)

    # --- workers ----------------------------------------------------------------
    # --- devices: one per session, the least used (see BrokerOptions.devices) ----------
    def _device_load(self, device: str) -> tuple:
        """How used ``device`` is: its sessions' workers (running, the one being given
        a session included), then its spare workers."""
        spares = [w for w in self.spares if w.device == device]
        busy = sum(1 for w in self.workers.values() if w.device == device and
                   w not in spares and w.proc.poll() is None)
        return busy, len(spares)

    def _next_device(self) -> str | None:
        devices = self.options.devices
        if not devices or len(devices) < 2:
            return None
        return min(devices, key=lambda d: (self._device_load(d), devices.index(d)))

    def _spawn(self, device: str | None = None) -> Worker:
        identity = uuid.uuid4().hex.encode()
        # (-P: not the server's working directory first on the worker's sys.path)
        cmd = [sys.executable, "-P", "-m", "gpushare_server.worker", "--broker",
               self.worker_endpoint,
               "--identity", identity.decode(), "--backend", self.backend,
               "--parent", str(os.getpid())]
        if self.options.host_memory is not None:
            cmd += ["--host-memory", str(self.options.host_memory)]
        if self.options.max_call_seconds > 0:
            cmd += ["--max-call-seconds", str(self.options.max_call_seconds)]
        token = secrets.token_hex(16)
        direct_bind = self._direct_bind(identity) if self.options.direct else None
        if direct_bind:
            cmd += ["--direct-bind", direct_bind,
                    "--max-message-size", str(max(0, self.max_message_size))]
            if self.options.spin_us > 0:
                cmd += ["--spin-us", str(self.options.spin_us)]
            if self.options.server_key:
                cmd += ["--server-key", str(self.options.server_key),
                        "--authorized-keys", str(self.options.authorized_keys)]
        env = {**os.environ, "GPUSHARE_WORKER_TOKEN": token,  # not on the command line
               # kernel sources shared by this server's workers (kernels/remote.py)
               "GPUSHARE_KERNEL_DIR": os.path.join(self._tmpdir, "kernels")}
        if device is not None:  # the session's GPU is the only one its worker sees
            env["CUDA_VISIBLE_DEVICES"] = device
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, env=env)
        worker = Worker(identity, proc, token=token, device=device)
        if direct_bind and direct_bind.startswith("ipc://"):
            worker.ipc_path = direct_bind[len("ipc://"):]
        self.workers[identity] = worker
        return worker

    def _direct_bind(self, identity: bytes) -> str | None:
        """Where a worker binds its direct data path: the broker's interface, any port
        (or an ipc path beside the broker's)."""
        scheme, _, rest = self.endpoint.partition("://")
        if scheme == "tcp":
            host = rest.rsplit(":", 1)[0]
            return f"tcp://{host}:*"
        if scheme == "ipc":
            return f"ipc://{rest}-w{identity[:12].decode()}"
        return None

    def _top_up_spares(self) -> None:
        if self._draining:
            return
        while len(self.spares) < self.spare_target:
            self.spares.append(self._spawn(self._next_device()))

    def _take_worker(self) -> Worker:
        """A worker for a new session: a spare on a device with the fewest sessions;
        when no spare is on one, a new worker there (started cold: the GPUs stay
        balanced)."""
        best = self._next_device()
        busy = self._device_load(best)[0] if best is not None else 0
        ready = [w for w in self.spares if w.device is None or
                 self._device_load(w.device)[0] <= busy]
        if ready:
            worker = ready[0]
            self.spares.remove(worker)  # (now counted as busy on its device)
        else:
            worker = self._spawn(best)
        self._top_up_spares()
        return worker

    # --- client messages --------------------------------------------------------
    def _on_client(self, frames: list) -> None:
        client, msg = frames[0].bytes, frames[1:]
        if not msg:
            return
        self.metrics.bytes_in.inc(_nbytes(msg))
        numbered = split_envelope(msg)[1]  # calls carry sequence numbers (reliable.py)
        try:
            header = msgpack.unpackb(numbered[0].bytes, raw=False, strict_map_key=False,
                                     ext_hook=lambda code, data: None)
            kind = header.get("t") if isinstance(header, dict) else None
        except Exception:  # noqa: BLE001 - a malformed message gets an error reply
            header, kind = None, None
        session = self.sessions.get(client)
        if session is not None and self.curve and self._key_name(msg[0]) != session.key:
            # a reconnecting client takes its routing id over (ROUTER_HANDOVER); one with
            # another key must not: neither use nor replace this session
            self.metrics.protocol_errors.inc()
            self._send_client(client, Encoder().encode(
                {"t": "protocol_error", "error": "this connection's key does not own the "
                                                 "session it names"}))
            return
        if session is not None:
            session.last_seen = time.monotonic()
        if kind in ("batch", "sync", "ack") and session is not None and \
                session.lost is None and not self._take_in(session, msg):
            return
        if kind == "batch":
            if session is None:
                self._send_client(client, _fatal(UNKNOWN_SESSION))
            elif session.lost:
                self._send_client(client, _fatal(session.lost))
            elif self._draining:
                self._send_client(client, _fatal(
                    "gpushare: the server is shutting down; this call was not run and every "
                    "array of this session is gone", "gpushare.ServerStopped"))
            elif not session.worker.ready:
                if len(session.backlog) >= MAX_BACKLOG:
                    self._lose(session, "gpushare: too many calls arrived before the session's "
                                        "worker started")
                    return
                session.backlog.append(msg)
                if "chunk" not in header:  # upload chunks get no reply to wait for
                    session.batches += 1
                    session.inflight += 1
            elif "chunk" in header:  # a streamed upload's data: the worker sends no reply
                send_frames(self.backend_sock, [session.worker.identity, b"msg", *msg])
            else:
                session.batches += 1
                session.inflight += 1
                send_frames(self.backend_sock, [session.worker.identity, b"msg", *msg])
        elif kind in ("sync", "ack"):  # the client tells its worker what it has (reliable.py)
            if session is not None and session.lost is None and session.worker.ready:
                send_frames(self.backend_sock, [session.worker.identity, b"msg", *msg])
        elif kind == "hello":
            self._hello(client, header, msg[0])
        elif kind == "ping":
            alive = session is not None and session.lost is None
            self._send_client(client, Encoder().encode(
                {"t": "pong", "alive": alive,
                 "lost": session.lost if session else UNKNOWN_SESSION}))
        elif kind == "bye":
            if session is not None:
                self._close(session, "closed by client")
        elif kind == "status":
            wait = header.get("wait", STATUS_WAIT)
            if not isinstance(wait, (int, float)) or isinstance(wait, bool) or \
                    not math.isfinite(wait):  # (NaN would wait for ever)
                wait = STATUS_WAIT
            if len(self.status_queries) >= MAX_STATUS_QUERIES:
                wait = 0.0  # a flood of queries: answered at once with the numbers known
            self._status_query(client, min(max(float(wait), 0.0), 5.0))
        else:
            self.metrics.protocol_errors.inc()
            self._send_client(client, Encoder().encode(
                {"t": "protocol_error", "error": "malformed or unknown message"}))

    def _take_in(self, session: Session, msg: list) -> bool:
        """Count ``msg`` as on its way to ``session``'s worker; False (and the session
        is lost) when that puts it more than ``MAX_AHEAD`` bytes ahead of what the
        worker has taken. A client keeps at most ``reliable.WINDOW`` bytes
        unacknowledged; one that sends on regardless would have this shared process
        hold all of it."""
        session.sent_in += _nbytes(msg)
        if session.sent_in - session.taken <= MAX_AHEAD:
            return True
        log.warning("session %s lost: its client sent %d bytes ahead of its worker",
                    session.id, session.sent_in - session.taken)
        self.metrics.sessions_closed.labels("too_far_ahead").inc()
        self._lose(session, f"gpushare: this session's client sent more than "
                            f"{MAX_AHEAD >> 20} MiB ahead of what its worker had taken "
                            "(a client keeps far less in flight), so the session was "
                            "ended; every array of it is gone. Other sessions are "
                            "unaffected.")
        return False

    def _key_name(self, frame: Any) -> str | None:
        if not self.curve:
            return None
        try:
            user = frame.get("User-Id")
        except (zmq.ZMQError, AttributeError, UnicodeDecodeError):
            return None
        return str(user) if user else None

    def _refuse(self, client: bytes, key: str, reason: str, message: str) -> None:
        self.metrics.sessions_refused.labels(reason).inc()
        log.warning("session refused (%s)%s", reason, f" for key {key}" if key else "")
        self._send_client(client, _fatal(message, key="gpushare.Refused"))

    def _hello(self, client: bytes, header: dict, frame: Any) -> None:
        version = header.get("v")
        if version != PROTOCOL_VERSION:
            self._send_client(client, Encoder().encode({"t": "fatal", "error": [
                "gpushare.VersionMismatch",
                f"gpushare protocol mismatch: this server ({__version__}) speaks version "
                f"{PROTOCOL_VERSION}, the client speaks {version!r}; install the same "
                "gpushare version on both sides"]}))
            return
        key = self._key_name(frame)
        old = self.sessions.get(client)
        if old is not None:
            self._close(old, "replaced by a new handshake")
        opts = self.options
        if self._draining:
            self._refuse(client, key or "", "stopping",
                         "gpushare: the server is shutting down and takes no new sessions")
            return
        live = [s for s in self.sessions.values() if s.lost is None]
        if opts.max_sessions and len(live) >= opts.max_sessions:
            self._refuse(client, key or "", "max_sessions",
                         f"gpushare: the server is full: it serves at most {opts.max_sessions} "
                         "sessions at once (--max-sessions); try again when one ends")
            return
        if opts.max_sessions and len(self.workers) + len(self.dying) >= \
                2 * opts.max_sessions + self.spare_target:
            # (handshakes in a loop: each ends a session and starts a process; those
            # still starting or stopping count, so processes stay bounded too)
            self._refuse(client, key or "", "busy",
                         "gpushare: too many sessions are starting or ending on this "
                         "server at once; try again in a few seconds")
            return
        limit = self.key_limits.get(key) if self.key_limits is not None else None
        per_key = (limit.sessions if limit and limit.sessions else opts.max_sessions_per_key)
        if per_key and key is not None and sum(1 for s in live if s.key == key) >= per_key:
            self._refuse(client, key, "max_sessions_per_key",
                         f"gpushare: key {key!r} already has {per_key} sessions open, the "
                         "most this server allows it (--max-sessions-per-key, "
                         "--key-limits); close one first")
            return
        worker = self._take_worker()
        session = Session(uuid.uuid4().hex[:12], client, worker, key=key,
                          memory_limit=(limit.memory if limit and limit.memory
                                        else opts.memory_limit))
        worker.session = session
        if worker.ready:
            self._assign(session)  # before the client can know where the worker is
        self.sessions[client] = session
        self.metrics.sessions_opened.inc()
        info = header.get("client")
        pid = info.get("pid") if isinstance(info, dict) else None
        log.info("session %s opened: key %s, client pid %s, worker pid %d", session.id,
                 key or "-", pid if isinstance(pid, int) else "?", worker.proc.pid)
        session.welcome = {
            "t": "welcome", "v": PROTOCOL_VERSION, "session": session.id,
            "backend": self.backend, "server_version": __version__,
            "server_id": self.server_id,
            "heartbeat": max(0.1, min(15.0, opts.session_timeout / 4)),
            "session_timeout": opts.session_timeout,
            "memory_limit": session.memory_limit or None,
            "max_message_size": self.max_message_size if self.max_message_size > 0 else None,
            "key": key}
        if worker.ready or not self.options.direct:
            self._welcome(session)
        # else: welcomed once the worker is ready, with its direct address

    def _assign(self, session: Session) -> None:
        """Tell the session's worker its limits; it serves no call before this."""
        send_frames(self.backend_sock, [session.worker.identity, b"assign", msgpack.packb(
            {"memory_limit": int(session.memory_limit or 0)})])

    def _welcome(self, session: Session) -> None:
        welcome, session.welcome = session.welcome, None
        if welcome is None:
            return
        session.last_seen = time.monotonic()  # its silence counts from now
        worker = session.worker
        # the session's worker, straight: no broker hop for its calls
        welcome["direct"] = ({"endpoint": worker.endpoint, "token": worker.token}
                             if worker.ready and worker.endpoint else None)
        self._send_client(session.client, Encoder().encode(welcome))

    def _close(self, session: Session, reason: str, label: str = "closed") -> None:
        self.sessions.pop(session.client, None)
        worker = session.worker
        self._stop_worker(worker)
        self.workers.pop(worker.identity, None)
        self.dying.append((worker, time.monotonic() + 5.0))
        self.metrics.sessions_closed.labels(label).inc()
        log.info("session %s %s: %s (key %s, %d batches, %s bytes at last report)",
                 session.id, label, reason, session.key or "-", session.batches,
                 session.stats.get("memory_bytes", "?"))

    def _lose(self, session: Session, reason: str, error: list | None = None) -> None:
        """End ``session``'s work but keep its entry so its client hears why (``error``:
        the ``fatal`` message to send, when not ``reason`` itself)."""
        session.lost = reason
        session.inflight = 0
        session.backlog.clear()
        worker = session.worker
        if worker.proc.poll() is None:
            self._stop_worker(worker)
            self.workers.pop(worker.identity, None)
            self.dying.append((worker, time.monotonic() + 5.0))
        self._send_client(session.client, error or _fatal(reason))

    def _stop_worker(self, worker: Worker) -> None:
        if worker.proc.poll() is not None:
            return
        if not worker.ready:  # not connected yet, so it cannot hear "stop"
            worker.proc.terminate()
            return
        try:
            self.backend_sock.send_multipart([worker.identity, b"stop"])
        except zmq.ZMQError:
            worker.proc.terminate()

    def _reap_dying(self) -> None:
        """Collect stopped workers without blocking; kill those that do not stop."""
        now = time.monotonic()
        still = []
        for worker, deadline in self.dying:
            if worker.proc.poll() is not None:
                worker.forget()
                continue
            if now > deadline:
                worker.proc.kill()
            still.append((worker, deadline))
        self.dying = still

    def _expire(self) -> None:
        """Close sessions whose clients went silent (dead, or cut off) for too long."""
        timeout = self.options.session_timeout
        if timeout <= 0:
            return
        now = time.monotonic()
        for session in list(self.sessions.values()):
            if session.welcome is not None and \
                    now - session.created <= max(timeout, WORKER_START_S):
                continue  # its worker is starting: the client waits for us (the clock
                # starts at the welcome; a worker that never starts ends it after all)
            if session.inflight or now - session.last_seen <= timeout:
                session.probe_at = None  # heard from lately: no question outstanding
                continue
            worker = session.worker
            if worker.endpoint and session.lost is None and worker.proc.poll() is None:
                # the client may be busy on the direct path, which the broker does not
                # see: ask its worker when it last heard from the client
                if session.probe_at is None:
                    session.probe_at, session.probe_answered = now, False
                    self._ask_stats(worker)
                    continue
                if not session.probe_answered and now - session.probe_at < timeout:
                    continue  # the worker is busy with a call: the client is not gone
                session.probe_at = None
                if now - session.last_seen <= timeout:  # the answer says: still here
                    continue
            self._close(session, f"no word from the client for {timeout:g} s",
                        label="expired")
            # a client that is only silent hears it at once rather than at its next call
            self._send_client(session.client, _fatal(UNKNOWN_SESSION))

    def _send_client(self, client: bytes, frames: list) -> None:
        session = self.sessions.get(client)
        if session is not None and session.held:  # (behind those held: in order)
            self._hold(session, frames)
            return
        try:
            self._send_now(client, frames)
        except zmq.Again:  # its queue is full: the client reads slower than it asks
            if session is not None:
                self._hold(session, frames)
        except zmq.ZMQError:  # (not connected: a reconnecting client asks for a resend)
            pass

    def _send_now(self, client: bytes, frames: list) -> None:
        """Send to ``client`` without waiting: zmq.Again when its queue is full
        (``CLIENT_QUEUE`` messages: ROUTER_MANDATORY reports that, not dropping it)."""
        frontend = self.frontend
        frontend.send(client, zmq.SNDMORE | zmq.NOBLOCK)
        send_frames(frontend, frames)  # (the queue's room is checked at the first part)
        self.metrics.bytes_out.inc(_nbytes(frames))

    def _hold(self, session: Session, frames: list) -> None:
        """Keep a reply until the client's queue has room (``_send_held``). An honest
        client acknowledges only what it read, so its worker stops at ``WINDOW`` bytes
        unacknowledged; a client that claims replies it never read would make the
        broker hold everything it asks for, so its session ends past ``MAX_HELD``."""
        if not session.held:
            self._held_moved = time.monotonic()  # (a queue just filled: look soon)
        session.held.append(frames)
        session.held_bytes += _nbytes(frames)
        self.holding[session.client] = session
        if session.held_bytes > MAX_HELD and session.lost is None:
            held = session.held_bytes >> 20
            session.held.clear()
            session.held_bytes = 0
            log.warning("session %s lost: its client read none of %d MiB of replies",
                        session.id, held)
            self.metrics.sessions_closed.labels("not_reading").inc()
            self._lose(session, f"gpushare: the session's client did not read its replies "
                                f"({held} MiB waited in the server, more than its "
                                "acknowledgements allow), so the session was ended; every "
                                "array of it is gone. Other sessions are unaffected.")

    def _send_held(self) -> float | None:
        """Send what the clients' queues have room for now. None when nothing waits;
        otherwise the milliseconds to wait before looking again: soon while queues
        drain, seldom once none has for a while (a client that reads nothing does not
        keep the broker busy)."""
        waiting = False
        for client, session in list(self.holding.items()):
            held = session.held
            if self.sessions.get(client) is not session:  # (closed meanwhile)
                held.clear()
            while held:
                try:
                    self._send_now(session.client, held[0])
                except zmq.Again:
                    waiting = True
                    break
                except zmq.ZMQError:
                    pass  # (gone: as ``_send_client``)
                session.held_bytes -= _nbytes(held.popleft())
                self._held_moved = time.monotonic()
            if not held:
                session.held_bytes = 0
                del self.holding[client]
        if not waiting:
            return None
        return 2 if time.monotonic() - self._held_moved < HELD_STILL else 50

    # --- status -----------------------------------------------------------------
    def _ask_stats(self, worker: Worker, with_info: bool = False) -> bool:
        if not worker.ready or worker.proc.poll() is not None:
            return False
        if worker.stats_pending and not with_info:
            return True
        try:
            self.backend_sock.send_multipart([worker.identity, b"stats",
                                              b"1" if with_info else b"0"])
        except zmq.ZMQError:
            return False
        worker.stats_pending = True
        return True

    def _status_query(self, client: bytes, wait: float = STATUS_WAIT) -> None:
        """Answer ``client`` with the server's status once the workers reported their
        numbers, or after ``wait`` seconds with the last numbers known."""
        if wait <= 0:
            self._answer_status(StatusQuery(client, 0.0, set()))
            return
        waiting = set()
        for session in self.sessions.values():
            if session.lost is None and self._ask_stats(session.worker):
                waiting.add(session.worker.identity)
        info_from = next((w for w in self.spares if w.ready), None)
        if info_from is None:
            info_from = next((s.worker for s in self.sessions.values()
                              if s.lost is None and s.worker.ready), None)
        if info_from is not None and self._ask_stats(info_from, with_info=True):
            waiting.add(info_from.identity)
        query = StatusQuery(client, time.monotonic() + wait, waiting)
        if waiting:
            self.status_queries.append(query)
        else:
            self._answer_status(query)

    def status(self) -> dict:
        """The server's state as ``gpushare status`` shows it."""
        now = time.monotonic()
        sessions = []
        for s in self.sessions.values():
            stats = s.stats
            state = "lost" if s.lost else ("ready" if s.worker.ready else "starting")
            sessions.append({
                "id": s.id, "key": s.key, "state": state,
                "memory_bytes": int(stats.get("memory_bytes") or 0),
                "handles": int(stats.get("handles") or 0),
                "calls": int(stats.get("calls") or 0),
                "errors": int(stats.get("errors") or 0),
                "batches": s.batches, "in_flight": s.inflight,
                "memory_limit": s.memory_limit or None,
                "age_s": round(now - s.created, 3), "idle_s": round(now - s.last_seen, 3),
                "worker_pid": s.worker.proc.pid, "device": s.worker.device,
                "stale": s.worker.stats_pending or not stats})
        opts = self.options
        return {
            "server_version": __version__, "protocol": PROTOCOL_VERSION,
            "backend": self.backend, "address": self.endpoint, "pid": os.getpid(),
            "uptime_s": round(now - self.started, 3),
            "auth": "curve" if self.curve else "none",
            "memory_limit": opts.memory_limit or None,
            "max_sessions": opts.max_sessions or None,
            "session_timeout": opts.session_timeout,
            "stopping": self._draining,
            "devices": list(self.device_info.get("devices") or []),
            # the GPUs sessions are spread over (each session sees its own as device 0)
            "placement": list(opts.devices) if opts.devices and len(opts.devices) > 1
            else None,
            "memory_bytes": sum(s["memory_bytes"] for s in sessions),
            "sessions": sessions}

    def _answer_status(self, query: StatusQuery) -> None:
        self._send_client(query.client, Encoder().encode({"t": "status", **self.status()}))

    def _check_status_queries(self, force: bool = False) -> None:
        now = time.monotonic()
        still = []
        for query in self.status_queries:
            if force or not query.waiting or now >= query.deadline:
                self._answer_status(query)
            else:
                still.append(query)
        self.status_queries = still

    def _on_stats(self, worker: Worker, data: bytes) -> None:
        worker.stats_pending = False
        try:
            stats = msgpack.unpackb(data, raw=False, strict_map_key=False)
        except Exception:  # noqa: BLE001
            return
        if not isinstance(stats, dict):
            return
        info = stats.pop("info", None)
        if isinstance(info, dict):
            self.device_info = info
        session = worker.session
        if session is not None:
            calls, errs = int(stats.get("calls") or 0), int(stats.get("errors") or 0)
            if calls > session.reported_calls:
                self.metrics.calls.inc(calls - session.reported_calls)
                session.reported_calls = calls
            if errs > session.reported_errors:
                self.metrics.errors.inc(errs - session.reported_errors)
                session.reported_errors = errs
            moved_in = int(stats.get("direct_bytes_in") or 0)
            moved_out = int(stats.get("direct_bytes_out") or 0)
            if moved_in > session.reported_in:  # traffic that went straight to the worker
                self.metrics.bytes_in.inc(moved_in - session.reported_in)
                session.reported_in = moved_in
            if moved_out > session.reported_out:
                self.metrics.bytes_out.inc(moved_out - session.reported_out)
                session.reported_out = moved_out
            session.stats = stats
            session.probe_answered = True
            idle = stats.get("idle")
            if isinstance(idle, (int, float)) and idle >= 0:  # direct-path traffic
                session.last_seen = max(session.last_seen, time.monotonic() - idle)
        for query in self.status_queries:
            query.waiting.discard(worker.identity)

    def _refresh_metrics(self) -> None:
        live = [s for s in self.sessions.values() if s.lost is None]
        for session in live:
            self._ask_stats(session.worker)
        self.metrics.sessions.set(len(live))
        self.metrics.memory.set(sum(int(s.stats.get("memory_bytes") or 0) for s in live))
        self.metrics.handles.set(sum(int(s.stats.get("handles") or 0) for s in live))

    # --- worker messages --------------------------------------------------------
    def _on_worker(self, frames: list) -> None:
        identity = frames[0].bytes
        kind = frames[1].bytes if len(frames) > 1 else b""
        worker = self.workers.get(identity)
        if worker is None:
            return
        if kind == b"ready":
            worker.ready = True
            if len(frames) > 2:
                worker.endpoint = frames[2].bytes.decode(errors="replace")
            session = worker.session
            if session is not None:
                self._assign(session)
                self._welcome(session)
                for msg in session.backlog:
                    send_frames(self.backend_sock, [identity, b"msg", *msg])
                session.backlog.clear()
        elif kind == b"msg" and worker.session is not None:
            session = worker.session
            session.inflight = max(0, session.inflight - 1)
            self._send_client(session.client, frames[2:])
        elif kind == b"data" and worker.session is not None:  # a streamed download's chunks
            self._send_client(worker.session.client, frames[2:])
        elif kind == b"skip" and worker.session is not None:  # a duplicate batch: no reply
            worker.session.inflight = max(0, worker.session.inflight - 1)
        elif kind == b"took" and worker.session is not None and len(frames) > 2:
            try:  # how many bytes of its session's messages the worker has taken
                worker.session.taken = max(worker.session.taken,
                                           int(msgpack.unpackb(frames[2].bytes)))
            except (ValueError, TypeError, msgpack.UnpackException):
                log.error("bad took report from worker %s", identity.hex())
        elif kind == b"stats" and len(frames) > 2:
            self._on_stats(worker, frames[2].bytes)

    def _check_workers(self) -> None:
        for worker in list(self.workers.values()):
            code = worker.proc.poll()
            if code is None:
                continue
            self.workers.pop(worker.identity, None)
            worker.forget()
            for query in self.status_queries:
                query.waiting.discard(worker.identity)
            if worker in self.spares:
                self.spares.remove(worker)
                log.warning("spare worker exited with %s", code)
                continue
            session = worker.session
            if session is not None and session.lost is None:
                # (the worker's module, at need)
                from .worker import CALL_TOO_LONG, DRIVER_FAULTS, KERNEL_FAULTS
                if code == CALL_TOO_LONG:
                    limit = self.options.max_call_seconds
                    log.warning("session %s lost: a call ran past %g s", session.id, limit)
                    self.metrics.sessions_closed.labels("call_too_long").inc()
                    self._lose(session, f"gpushare: a call of this session ran longer than "
                                        f"the server allows ({limit:g} s, --max-call-seconds), "
                                        "so the session was ended; every array of it is gone. "
                                        "Other sessions are unaffected.")
                    continue
                fault, api = KERNEL_FAULTS.get(code), "runtime.CUDARuntimeError"
                if fault is None:  # (the call after the faulting launch launched too)
                    fault, api = DRIVER_FAULTS.get(code), "driver.CUDADriverError"
                if fault is not None:  # the client raises the CUDA error a GPU gives
                    # (a kernel's fault on the emulator, or a GPU's sticky error)
                    status, words = fault
                    log.warning("session %s lost: a kernel failed (%s)", session.id, words)
                    self.metrics.sessions_closed.labels("kernel_fault").inc()
                    self._lose(session, f"gpushare: the session's worker process ended "
                                        f"after a kernel's fault ({words}); every array "
                                        "of it is gone. Other sessions are unaffected.",
                               _fatal(words, f"cupy.cuda.{api}", status))
                    continue
                how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"
                log.warning("session %s lost: worker died (%s)", session.id, how)
                self.metrics.sessions_closed.labels("worker_died").inc()
                self._lose(session, f"gpushare: the session's worker process died ({how}); "
                                    "every array of this session is gone. Other sessions "
                                    "are unaffected.")

    # --- main loop --------------------------------------------------------------
    def _pump(self, sock: zmq.Socket, handler: Any) -> None:
        for _ in range(256):
            try:
                frames = sock.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            try:
                handler(frames)
            except Exception:  # noqa: BLE001 - one bad message must not stop the server
                log.exception("error while handling a message; the message is dropped")
                if sock is self.frontend and frames:
                    self.metrics.protocol_errors.inc()
                    self._send_client(frames[0].bytes, Encoder().encode(
                        {"t": "protocol_error", "error": "malformed message"}))

    def _drained(self) -> bool:
        """Whether every session's calls received before the drain began are done: the
        broker's (``inflight``) and, on the direct path, the worker's own, which it
        shows by answering the stats asked for when the drain began (a worker answers
        between messages)."""
        return all(s.lost or (s.inflight == 0 and not s.worker.stats_pending)
                   for s in self.sessions.values())

    def serve(self, ready_line: bool = True) -> None:
        keep_receive_buffers()  # chunks relayed for clients without a direct path
        self._top_up_spares()
        if ready_line:
            extra = f", metrics on port {self.metrics_port}" if self.metrics_port else ""
            print(f"gpushare: listening on {self.endpoint} (backend {self.backend}, "
                  f"pid {os.getpid()}{', curve' if self.curve else ''}{extra})", flush=True)
        poller = zmq.Poller()
        poller.register(self.frontend, zmq.POLLIN)
        poller.register(self.backend_sock, zmq.POLLIN)
        wake = self.wake
        if wake is not None:
            poller.register(wake, zmq.POLLIN)
        held = None
        try:
            while True:
                if self._signals and not self._draining:
                    self._draining = True
                    self._drain_deadline = time.monotonic() + self.options.drain_timeout
                    log.info("stopping: no new sessions; finishing in-flight calls "
                             "(at most %g s)", self.options.drain_timeout)
                    for session in self.sessions.values():  # (see _drained)
                        if session.lost is None:
                            self._ask_stats(session.worker)
                if self._draining and (self._signals > 1 or self._drained()
                                       or time.monotonic() > self._drain_deadline):
                    break
                # (replies held for a slow client go out as its queue drains: looked at
                # often while there are some)
                timeout = held if held is not None else 100 if self._draining else 200
                events = dict(poller.poll(timeout))
                if wake is not None and wake.fileno() in events:
                    try:  # (the signal's handler has run: ``_signals`` counts it)
                        wake.recv(4096)
                    except OSError:
                        pass
                if self.backend_sock in events:
                    self._pump(self.backend_sock, self._on_worker)
                if self.frontend in events:
                    self._pump(self.frontend, self._on_client)
                held = self._send_held()
                now = time.monotonic()
                if self.status_queries:
                    self._check_status_queries()
                if now - self._last_check > 0.2:
                    self._last_check = now
                    self._check_workers()
                    self._reap_dying()
                    self._expire()
                    if self.parent_pid and not _alive(self.parent_pid):
                        log.info("parent process %d is gone; stopping", self.parent_pid)
                        break
                if now - self._last_keys > KEYS_INTERVAL:
                    self._last_keys = now
                    try:
                        if self.authorized is not None:
                            self.authorized.refresh()
                        if self.key_limits is not None:
                            self.key_limits.refresh()
                    except Exception:  # noqa: BLE001 - keep the keys we have
                        log.exception("cannot re-read the authorized keys or key limits")
                if self.metrics_port is not None and now - self._last_stats > STATS_INTERVAL:
                    self._last_stats = now
                    self._refresh_metrics()
        finally:
            self.shutdown()

    def stop(self, *_: Any) -> None:
        """Signal handler: the first call drains, a second stops at once."""
        self._signals += 1

    def shutdown(self) -> None:
        self._check_status_queries(force=True)
        for session in list(self.sessions.values()):
            self._send_client(session.client, _fatal(
                "gpushare: the server shut down; every array of this session is gone",
                "gpushare.ServerStopped"))
            log.info("session %s closed: the server stops", session.id)
        for worker in list(self.workers.values()):
            self._stop_worker(worker)
        deadline = time.monotonic() + 3
        workers = list(self.workers.values()) + [w for w, _ in self.dying]
        for worker in workers:
            try:
                worker.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                worker.proc.kill()
                worker.proc.wait()
            worker.forget()
        self.workers.clear()
        self.sessions.clear()
        self.frontend.close(linger=200)
        self.backend_sock.close(linger=0)
        if self.authorized is not None:
            self.authorized.stop()
        self.metrics.stop()
        self.ctx.term()
        shutil.rmtree(self._tmpdir, ignore_errors=True)
        scheme, _, path = self.endpoint.partition("://")
        if scheme == "ipc" and not path.startswith("@"):  # (@: Linux's abstract names)
            _unlink(path)
            folder = os.path.dirname(path)
            if self.parent_pid and os.path.basename(folder).startswith(EMBEDDED_PREFIX):
                try:  # an embedded server's private directory, when its client could
                    os.rmdir(folder)  # not remove it (killed), once empty
                except OSError:
                    pass
        log.info("server stopped")


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs: a zombie does not (a parent killed outright stays
    one until its own parent reaps it, which may wait for our output to end first)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:  # (Linux; elsewhere: alive)
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state not in (b"Z", b"X")


def serve(bind: str, backend: str = "auto", *, spare_workers: int = 1, parent_pid: int = 0,
          options: BrokerOptions | None = None) -> None:
    """Run a server until SIGINT/SIGTERM (the ``gpushare serve`` command).

    Raises
    ------
    ValueError
        The options are inconsistent, or a non-loopback address would be served
        without keys.
    """
    from .backends import resolve_backend_name, visible_devices
    name = resolve_backend_name(backend)
    options = options or BrokerOptions()
    if options.devices is None and name == "cupy":
        options.devices = visible_devices()  # sessions spread over every GPU
    if options.devices is not None and len(options.devices) > 1:
        log.info("sessions are placed on GPUs %s, one GPU each", ",".join(options.devices))
    broker = Broker(bind, name, spare_workers=spare_workers, parent_pid=parent_pid,
                    options=options)
    signal.signal(signal.SIGTERM, broker.stop)
    signal.signal(signal.SIGINT, broker.stop)
    # a signal wakes the loop's poll at once (else it waited out its 200 ms, and a
    # program's exit waited that long for its embedded server to stop)
    wake_r, wake_w = socket.socketpair()
    for end in (wake_r, wake_w):
        end.setblocking(False)
    old_fd = signal.set_wakeup_fd(wake_w.fileno(), warn_on_full_buffer=False)
    broker.wake = wake_r
    try:
        broker.serve()
    finally:
        signal.set_wakeup_fd(old_fd)
        wake_r.close()
        wake_w.close()
