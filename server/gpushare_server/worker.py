"""A session worker process: owns one session's arrays and runs its calls.

Started by the broker (``python -m gpushare_server.worker ...``). One process per
session means a crash in native code, or a sticky CUDA error, ends that session
only; on a GPU it also gives each tenant its own CUDA context.

Broker <-> worker frames (over the broker's internal ROUTER socket):
``[b"ready"]`` worker -> broker once the backend is loaded;
``[b"msg", *client_frames]`` broker -> worker, ``[b"msg", *reply_frames]`` back;
``[b"stop"]`` broker -> worker;
``[b"assign", msgpack({"memory_limit": bytes})]`` broker -> worker when a session takes
this worker: its limits. The worker serves its direct socket only after this, so no
call can run before the session's limits are in force;
``[b"data", *frames]`` worker -> broker: a message for the client that answers no
batch (streamed-download chunks, ``state``, resent replies); ``[b"skip"]``: a batch
that was a duplicate or came after a gap (see ``gpushare/reliable.py``), so it gets no
reply; ``[b"took", msgpack(bytes)]`` worker -> broker every ``reliable.ACK_BYTES``: the
bytes of ``msg`` frames taken so far (the broker bounds what a client sends ahead);
``[b"ready", endpoint]``: with ``--direct-bind`` the worker also binds a ROUTER of its own;
the session's client connects there (its routing id is the worker's secret token) and
batches then skip the broker hop;
``[b"stats", b"0" | b"1"]`` broker -> worker, answered between calls with
``[b"stats", msgpack({"memory_bytes", "handles", "calls", "errors", "pid"[, "info"]})]``
(``b"1"`` asks for the backend's ``info()`` too: devices and their memory).

The worker never trusts a message: anything that fails to decode or run gets an
error reply, so a malformed message cannot end the session.
"""
from __future__ import annotations

import argparse
import logging
import os
import select
import sys
import threading
import time
from collections import deque
from typing import Any

import msgpack
import zmq

from gpushare.reliable import (ACK_BYTES, GAP, NEW, WINDOW, Receiver, Sender, control, parse_control,
                               split_envelope)
from gpushare.wire import give_way, keep_receive_buffers, readable, send_frames
from gpushare.wire import spin as wait_readable
from gpushare import express as expresses
from gpushare.express import EXPRESS_MAX, Express, ExpressClosed

from . import lane
from .backends import load_backend
from .session import SessionExecutor

log = logging.getLogger("gpushare.worker")


#: messages queued on the direct socket before ZeroMQ stops reading the connection
RECV_QUEUE = 16
#: while serving a client, how often (s) the broker's socket is looked at at least
BROKER_LOOK = 0.02


class OutputCapture:
    """Collects what the session's code prints to this process's stdout (``printf`` in
    kernels included) so it can reach the client's stdout with the next reply."""

    def __init__(self) -> None:
        import threading
        read_fd, write_fd = os.pipe()
        sys.stdout.flush()
        os.dup2(write_fd, 1)
        os.close(write_fd)
        self._fd = read_fd
        self._pending = select.poll()  # whether the pipe holds output not read yet
        self._pending.register(read_fd, select.POLLIN)
        self._chunks: list[bytes] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self._fd, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self._chunks.append(data)

    def take(self) -> str:
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        deadline = 50  # ms: let the reader thread catch up with what is already written
        while deadline > 0 and self._pending.poll(0):
            time.sleep(0.001)
            deadline -= 1
        if not self._chunks:  # (the common case: nothing printed)
            return ""
        with self._lock:
            chunks, self._chunks = self._chunks, []
        return b"".join(chunks).decode(errors="replace")


def _stats(executor: SessionExecutor, errors_seen: int, with_info: bool,
           moved: list | None = None, idle: float | None = None) -> bytes:
    backend = executor.backend
    stats: dict = {"handles": len(executor.handles), "calls": executor.calls,
                   "errors": errors_seen, "pid": os.getpid()}
    if moved is not None:  # (the bulk lane's copies are direct traffic too)
        stats["direct_bytes_in"] = moved[0] + executor.lane_bytes[0]
        stats["direct_bytes_out"] = moved[1] + executor.lane_bytes[1]
    if idle is not None:  # the broker cannot see direct traffic: it asks before expiring
        stats["idle"] = idle
    try:
        stats["memory_bytes"] = int(backend.memory("used_bytes", executor.handles.values()))
    except Exception:  # noqa: BLE001 - numbers are best effort
        stats["memory_bytes"] = None
    if with_info:
        try:
            stats["info"] = backend.info()
        except Exception as exc:  # noqa: BLE001
            stats["info"] = {"error": str(exc)}
    return msgpack.packb(stats, default=str)


def _handle_safely(executor: SessionExecutor, frames: list) -> list:
    """The executor's reply to ``frames``; an error reply if handling itself failed."""
    try:
        return executor.handle(frames)
    except Exception as exc:  # noqa: BLE001 - a message must never end the session
        # debug only: a hostile client must not be able to flood the server's log
        log.debug("malformed message from the client: %s: %s", type(exc).__name__, exc)
        from gpushare.protocol import Encoder
        return Encoder().encode({"t": "protocol_error",
                                 "error": f"malformed message ({type(exc).__name__})"})


#: the exit status that tells the broker a message ran past --max-call-seconds (the
#: broker reads it with this name)
CALL_TOO_LONG = 75

#: the exit statuses of a worker ended by a kernel's fault during a launch (the CPU
#: backend's kernel emulator: ``csrc/gpushare_rt.h``, ``GS_EXIT_*``), and the CUDA error
#: a GPU gives for it, which the broker hands the client to raise (the context is as
#: unusable on a GPU: CuPy's later calls fail too)
KERNEL_FAULTS = {
    80: (710, "cudaErrorAssert: device-side assert triggered"),
    81: (700, "cudaErrorIllegalAddress: an illegal memory access was encountered"),
    82: (715, "cudaErrorIllegalInstruction: an illegal instruction was encountered"),
    83: (719, "cudaErrorLaunchFailure: unspecified launch failure"),
    84: (701, "cudaErrorLaunchOutOfResources: too many resources requested for launch"),
    # the GPU's other sticky errors (a worker on the cupy backend ends after one)
    85: (702, "cudaErrorLaunchTimeout: the launch timed out and was terminated"),
    86: (714, "cudaErrorHardwareStackError: hardware stack error"),
    87: (716, "cudaErrorMisalignedAddress: misaligned address"),
    88: (717, "cudaErrorInvalidAddressSpace: operation not supported on global/shared "
              "address space"),
    89: (718, "cudaErrorInvalidPc: invalid program counter"),
}
#: the same faults where the batch's next call after the launch launched a kernel
#: (``csrc/gpushare_rt.h``: ``GS_EXIT_AT_LAUNCH`` added; ``cpu_kernels.next_call_launches``):
#: on a GPU the error surfaces there, from the driver API (``cuLaunchKernel``), in its
#: words (``cuGetErrorName``, ``cuGetErrorString``): ``CUDADriverError``
DRIVER_FAULTS = {
    90: (710, "CUDA_ERROR_ASSERT: device-side assert triggered"),
    91: (700, "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"),
    92: (715, "CUDA_ERROR_ILLEGAL_INSTRUCTION: an illegal instruction was encountered"),
    93: (719, "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"),
}
#: a worker whose backend reported a sticky error without a status of these
FATAL_ERROR = 3


def fatal_exit_code(status: object) -> int:
    """The exit status of a worker ended by a sticky CUDA error of ``status`` (the
    broker then tells the client that error, as a GPU's later calls would raise it)."""
    for code, (known, _) in KERNEL_FAULTS.items():
        if status == known:
            return code
    return FATAL_ERROR


class _Watchdog:
    """``gpushare serve --max-call-seconds``: a thread that ends this worker (its
    session) when one message of calls runs longer than the limit: an endless kernel,
    or any call, cannot hold the device for ever. The broker tells the client why
    (``CALL_TOO_LONG``). Nothing runs without a limit."""

    def __init__(self, limit: float) -> None:
        self.limit = float(limit or 0.0)
        self.started: float | None = None  # when the message being handled began
        if self.limit > 0:
            threading.Thread(target=self._watch, daemon=True,
                             name="gpushare-watchdog").start()

    def _watch(self) -> None:
        period = min(1.0, max(0.05, self.limit / 10))
        while True:
            time.sleep(period)
            started = self.started
            if started is not None and time.monotonic() - started > self.limit:
                log.error("a message of calls ran past %g s (--max-call-seconds): "
                          "ending the session", self.limit)
                os._exit(CALL_TOO_LONG)


def _is_chunk(frames: list) -> bool:
    """Whether ``frames`` is a streamed-upload chunk (which gets no reply)."""
    try:
        header = msgpack.unpackb(frames[0].bytes, raw=False, ext_hook=lambda c, d: None)
    except Exception:  # noqa: BLE001
        return False
    return isinstance(header, dict) and "chunk" in header


def _direct_socket(ctx: zmq.Context, bind: str, server_key: str | None,
                   authorized_keys: str | None, max_message_size: int = 0,
                   token: bytes = b"") -> tuple:
    """The worker's own socket, which its session's client talks to directly (no hop
    through the broker). CurveZMQ-protected with the server's keys when it has them;
    otherwise its handshake asks for the session's token (``auth.SessionToken``)."""
    sock = ctx.socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 1000)
    # the client reconnecting after a dropped connection takes its routing id over
    sock.setsockopt(zmq.ROUTER_HANDOVER, 1)
    sock.setsockopt(zmq.SNDHWM, 0)  # a ROUTER drops what exceeds it: a streamed download
    # a streamed upload waits in the client (TCP backpressure) rather than piling up
    # here: at most this many 1 MiB chunks are queued beside the array being written
    sock.setsockopt(zmq.RCVHWM, RECV_QUEUE)
    # a wait for the client ends this often, to look at the broker's socket
    sock.setsockopt(zmq.RCVTIMEO, int(BROKER_LOOK * 1000))
    if max_message_size > 0:  # the broker's limit holds here too
        sock.setsockopt(zmq.MAXMSGSIZE, max_message_size)
    authorized: Any = None
    try:
        if server_key:
            from .auth import AuthorizedKeys, apply_server_key, load_server_key
            authorized = AuthorizedKeys(ctx, str(authorized_keys))
            apply_server_key(sock, *load_server_key(server_key))
        else:
            from .auth import SessionToken
            authorized = SessionToken(ctx, token)
            sock.plain_server = True
        sock.bind(bind)
    except BaseException:
        sock.close(0)
        if authorized is not None:
            authorized.stop()
        raise
    return sock, sock.getsockopt(zmq.LAST_ENDPOINT).decode(), authorized


def run(broker: str, identity: bytes, backend_name: str, parent: int,
        memory_limit: int = 0, direct_bind: str | None = None, server_key: str | None = None,
        authorized_keys: str | None = None, max_message_size: int = 0,
        spin_us: float = 0.0, host_memory: int | None = None,
        max_call_seconds: float = 0.0) -> int:
    keep_receive_buffers()  # a streamed upload's chunks reuse the same memory
    backend = load_backend(backend_name)
    from . import hostmem
    hostmem.prefer_for_oom_killer()  # under host pressure a worker goes, not the broker
    if backend_name == "cpu":  # its device memory is this heap: outgrowing the host is
        hostmem.bound_data(host_memory)  # OutOfMemoryError, not the OOM killer
    capture = OutputCapture()
    watchdog = _Watchdog(max_call_seconds)
    executor = SessionExecutor(backend, output=capture.take)
    executor.record_warnings()
    from . import shm
    executor.shm_allowed = shm.allowed(direct_bind)

    def limit_memory(limit: int) -> None:
        if limit:
            from .quota import MemoryQuota
            MemoryQuota(backend, limit).install(executor)
    limit_memory(memory_limit)
    errors_seen = 0
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.IDENTITY, identity)
    sock.setsockopt(zmq.LINGER, 1000)
    sock.setsockopt(zmq.SNDHWM, 0)
    sock.connect(broker)
    direct = authorized = None
    # only the session's client knows this token: it is the client's routing id
    token = bytes.fromhex(os.environ.pop("GPUSHARE_WORKER_TOKEN", "") or "") or None
    ready = [b"ready"]
    if direct_bind and token:
        try:
            direct, endpoint, authorized = _direct_socket(ctx, direct_bind, server_key,
                                                          authorized_keys, max_message_size,
                                                          token)
            ready.append(endpoint.encode())
            # big copies on plain TCP connections, when the session is plaintext
            executor.lane_streams = lane.allowed(endpoint, bool(server_key))
            executor.lane_bind = endpoint
            if endpoint.startswith(("tcp://", "ipc://")) and not server_key and \
                    expresses.enabled():
                executor.express_bind = endpoint  # (plaintext, as the bulk lane)
        except (zmq.ZMQError, ValueError, OSError) as exc:  # the broker path still works
            log.warning("no direct data path (%s); traffic goes through the broker", exc)
            direct = None
    sock.send_multipart(ready)

    link_in, link_out = Receiver(), Sender()  # numbered messages (gpushare/reliable.py)
    spin = max(0.0, spin_us) / 1e6
    hot = [True]  # whether to poll before sleeping (the client sends again quickly)
    answered = [0.0]  # when the last message was served (perf_counter)

    def deliver(out: Any, prefix: list, kind: bytes, frames: list) -> None:
        if type(out) is Express:
            for f in frames:
                moved[1] += f.nbytes if isinstance(f, memoryview) else len(f)
            try:
                out.send_message(frames)
            except ExpressClosed as exc:
                drop_express(exc)  # (a numbered message is sent again on the client's sync)
            return
        if out is not sock:  # the broker counts what passes through it; this did not
            for f in frames:
                moved[1] += f.nbytes if isinstance(f, memoryview) else len(f)
        send_frames(out, [*prefix, kind, *frames] if out is sock else [*prefix, *frames])

    told = [0]  # the last of the client's messages we told it we have

    def tell(out: zmq.Socket, prefix: list, kind: str) -> None:
        """Send ``state`` (where we are, before resending) or ``ack`` (just that)."""
        told[0] = link_in.last
        link_in.acknowledged()
        deliver(out, prefix, b"data", [control(kind, link_in.last)])

    # numbered messages held back while WINDOW bytes of those sent are unacknowledged
    # (reliable.py): (socket, prefix, kind, frames), in order
    held: deque = deque()

    def send_numbered(out: zmq.Socket, prefix: list, kind: bytes, frames: list) -> None:
        if held or link_out.unacked_bytes >= WINDOW:
            held.append((out, prefix, kind, frames))
            return
        told[0] = link_in.last
        link_in.acknowledged()
        deliver(out, prefix, kind, link_out.stamp(frames, link_in.last))

    def flush_held() -> None:
        while held and link_out.unacked_bytes < WINDOW:
            out, prefix, kind, frames = held.popleft()
            told[0] = link_in.last
            link_in.acknowledged()
            deliver(out, prefix, kind, link_out.stamp(frames, link_in.last))

    def serve_message(frames: list, out: zmq.Socket, prefix: list) -> None:
        nonlocal errors_seen
        envelope, frames = split_envelope(frames)
        if envelope is None:
            message = parse_control(frames)
            if message is not None and message[0] != "state":  # the client's sync or ack
                kind, have = message
                link_out.acked(have)
                if kind == "sync":  # the client lost something: resend after
                    tell(out, prefix, "state")
                    for resent in link_out.resend(have):
                        deliver(out, prefix, b"data", resent)
                flush_held()
                return
        else:
            n, ack = envelope
            link_out.acked(ack)
            verdict = link_in.check(n)
            if verdict != NEW:  # applied already, or a message before it was lost
                if verdict == GAP and link_in.should_ask():
                    tell(out, prefix, "state")
                if out is sock and not _is_chunk(frames):
                    send_frames(out, [b"skip"])  # the broker counts batches in flight
                flush_held()
                return
            flush_held()
        # (a long upload: acknowledged as it goes, so its sender's window moves on)
        took = envelope is not None and link_in.took(frames)
        failed_before = executor.failed_seq
        watchdog.started = time.monotonic()
        try:
            reply = _handle_safely(executor, frames)
        finally:
            watchdog.started = None
        if executor.failed_seq is not None and executor.failed_seq != failed_before:
            errors_seen += 1

        # (unnumbered: a message without an envelope gets its reply so, at once)
        send = deliver if envelope is None else send_numbered
        if reply:  # streamed-upload chunks get none
            send(out, prefix, b"msg", reply)
        for extra in executor.take_outbox():  # streamed-download chunks: no reply of
            # their own, so the broker sees "data", not "msg"
            send(out, prefix, b"data", extra)
        if took and told[0] < link_in.last:
            tell(out, prefix, "ack")
        if executor.express_socket is not None:  # confirmed just now: from here on
            adopt_express(executor.express_socket)
            executor.express_socket = None

    # the express connection (gpushare/express.py), once the client has opened it
    express: list = [None]

    def adopt_express(conn: Any) -> None:
        drop_express(None)
        conn.settimeout(None)
        ex = Express(conn, limit=EXPRESS_MAX + 4096, stall=lane.TIMEOUT)
        express[0] = ex
        if both is not None:
            both.register(ex.fileno(), zmq.POLLIN)

    def drop_express(why: Any) -> None:
        ex, express[0] = express[0], None
        if ex is None:
            return
        if why is not None:
            log.info("express connection closed: %s", why)
        try:
            if both is not None:
                both.unregister(ex.fileno())
        except (KeyError, ValueError, zmq.ZMQError):
            pass
        ex.close()

    def serve_express(ex: Express, block: bool) -> bool:
        """Serve the next message of the express connection, or of the direct socket
        should one come there first; wait for one (polling first, as ``serve_direct``)
        up to BROKER_LOOK when ``block``. False when none came."""
        try:
            frames = ex.take()
            if frames is None and block:
                if spin > 0 and hot[0]:
                    end = time.perf_counter() + spin
                    turn = 0
                    while frames is None:
                        turn += 1
                        # (the direct socket, every 8th turn: a big message, rare here,
                        # and a ZeroMQ option read costs as much as the rest of a turn)
                        if not turn & 7 and readable(direct):
                            return serve_direct(False)
                        if time.perf_counter() >= end:
                            hot[0] = False
                            break
                        give_way()
                        frames = ex.take()
                if frames is None:
                    ready = dict(both.poll(int(BROKER_LOOK * 1000)))
                    if direct in ready:
                        return serve_direct(False)
                    if ex.fileno() in ready:
                        # what the socket has, without waiting for the rest of a
                        # message begun: one cut short (its sender stopped midway)
                        # must not hold up the session's ZeroMQ path
                        frames = ex.take()
            if frames is None:
                return False
        except ExpressClosed as exc:
            drop_express(exc)
            return True
        if spin > 0:
            hot[0] = hot[0] or time.perf_counter() - answered[0] <= spin
        serve_client(frames, ex, [], lambda: express[0] is not ex or ex.buffered())
        return True

    def serve_client(frames: list, out: Any, prefix: list, more: Any) -> None:
        """Serve a message of the client on the direct path (the direct socket, or
        the express connection): ``more()`` says whether another is waiting there."""
        for f in frames:
            moved[0] += len(f)
        heard[0] = time.monotonic()
        serve_message(frames, out, prefix)
        answered[0] = time.perf_counter()
        if told[0] < link_in.last and not more():
            # idle after messages that got no reply (upload chunks): say we have
            # them, so the client can let go of their buffers
            tell(out, prefix, "ack")

    def serve_direct(block: bool) -> bool:
        try:
            if block and spin > 0 and hot[0]:
                # poll a short while before sleeping: a client in a loop of round trips
                # sends again within microseconds, and a sleeping thread's wake-up
                # costs more than that on a busy or virtual machine. Only while the
                # client is in such a loop: a wait that outlasts the poll turns it off
                # until a message comes that soon after our last one again
                hot[0] = wait_readable(direct, spin)
            frames = direct.recv_multipart(0 if block else zmq.NOBLOCK, copy=False)
        except zmq.Again:
            return False
        if spin > 0:
            hot[0] = hot[0] or time.perf_counter() - answered[0] <= spin
        if frames[0].bytes == token and len(frames) > 1:
            direct_peer[0] = frames[0]
            serve_client(frames[1:], direct, [frames[0]], lambda: direct.poll(0))
        return True  # anyone else is ignored: it cannot name this session

    last_keys = time.monotonic()
    taken = [0, 0]  # bytes of messages taken from the broker; as last reported to it
    via_broker = [False]  # whether the client's last message came through the broker
    direct_peer: list = [b""]  # the client's routing id on the direct socket
    moved = [0, 0]  # bytes in and out on the direct path (reported in stats)
    heard = [time.monotonic()]  # when the client last spoke on the direct path
    looked = 0.0  # when the broker's socket was last looked at while serving
    # a poller of the broker's and the direct socket, once the session is assigned
    # (its client then talks on the direct socket): while serving
    both: Any = None
    try:
        while True:
            if executor.fatal is not None:
                # the reply that carried the error is sent; the device context is gone
                log.error("ending the session after %s: its CUDA context is unusable",
                          executor.fatal)
                return fatal_exit_code(executor.fatal_status)
            now = time.monotonic()
            if authorized is not None and now - last_keys > 1.0:
                last_keys = now
                authorized.refresh()
            ex = express[0]
            if ex is not None and not via_broker[0]:
                # the express connection (and the direct socket) first, as below
                if serve_express(ex, True):
                    if now - looked < BROKER_LOOK:
                        continue
                    looked = now
                    if not sock.poll(0):
                        continue
                else:  # quiet for BROKER_LOOK: wait on everything
                    looked = now
                    ready = dict(both.poll(1000))
                    if not ready and parent and os.getppid() != parent:
                        return 0  # the broker is gone
                    if express[0] is ex and ex.fileno() in ready:
                        serve_express(ex, False)
                    if direct in ready:
                        serve_direct(False)
                    if sock not in ready:
                        continue
            elif both is not None:
                # while the client talks, wait on the direct socket alone (one wake-up
                # per message, as in a plain echo loop) and look at the broker's socket
                # (stop, stats: rare) at least every BROKER_LOOK seconds; once the
                # client has been quiet that long, wait on both sockets
                # (a client that declined the direct path talks through the broker:
                # then both are waited on at once, not the direct socket first)
                if not via_broker[0] and serve_direct(True):
                    if now - looked < BROKER_LOOK:
                        continue
                    looked = now
                    if not sock.poll(0):
                        continue
                else:
                    looked = now
                    ready = dict(both.poll(1000))
                    if not ready and parent and os.getppid() != parent:
                        return 0  # the broker is gone
                    if direct in ready:
                        via_broker[0] = False
                        serve_direct(False)
                    if sock not in ready:
                        continue
            elif not sock.poll(1000):
                if parent and os.getppid() != parent:  # the broker is gone
                    return 0
                continue
            frames = sock.recv_multipart(copy=False)
            kind = frames[0].bytes
            if kind == b"stop":
                # finish what the client already sent on the direct path, then go
                while direct is not None and serve_direct(False):
                    pass
                while express[0] is not None and serve_express(express[0], False):
                    pass
                return 0
            if kind == b"assign":
                try:
                    terms = msgpack.unpackb(frames[1].bytes) if len(frames) > 1 else {}
                    limit_memory(int(terms.get("memory_limit") or 0))
                except Exception:  # noqa: BLE001 - the broker's own message: never bad
                    log.exception("bad assign message from the broker")
                    return 1
                if direct is not None:
                    both = zmq.Poller()
                    both.register(sock, zmq.POLLIN)
                    both.register(direct, zmq.POLLIN)
                continue
            if kind == b"stats":
                with_info = len(frames) > 1 and frames[1].bytes == b"1"
                sock.send_multipart([b"stats", _stats(
                    executor, errors_seen, with_info, moved,
                    time.monotonic() - heard[0] if direct is not None else None)])
                continue
            if kind != b"msg":
                continue
            via_broker[0] = True
            # the broker holds what its client sends ahead of us: say what we took
            taken[0] += sum(len(f) for f in frames[1:])
            if taken[0] - taken[1] >= ACK_BYTES:
                taken[1] = taken[0]
                sock.send_multipart([b"took", msgpack.packb(taken[0])])
            serve_message(frames[1:], sock, [])
            if told[0] < link_in.last and not sock.poll(0):
                tell(sock, [], "ack")  # as on the direct path (see serve_direct)
    finally:
        executor.handles.clear()
        if direct is not None:
            direct.close(linger=1000)
        if authorized is not None:
            authorized.stop()
        sock.close(linger=1000)
        ctx.term()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpushare_server.worker")
    parser.add_argument("--broker", required=True)
    parser.add_argument("--identity", required=True)
    parser.add_argument("--backend", required=True)
    parser.add_argument("--parent", type=int, default=0)
    parser.add_argument("--memory-limit", type=int, default=0,
                        help="bytes of arrays this session may hold (0: no limit)")
    parser.add_argument("--direct-bind", help="address for the client's direct data path")
    parser.add_argument("--max-message-size", type=int, default=0,
                        help="largest message the direct socket accepts (0: no limit)")
    parser.add_argument("--spin-us", type=float, default=0.0,
                        help="poll this long for the client's next message before sleeping")
    parser.add_argument("--server-key")
    parser.add_argument("--authorized-keys")
    parser.add_argument("--max-call-seconds", type=float, default=0.0,
                        help="end the session when one message runs longer (0: no limit)")
    parser.add_argument("--host-memory", type=int, default=None,
                        help="CPU backend: bytes of private memory this worker may take "
                             "beyond its start-up (default: the host's available memory "
                             "and swap; 0: no bound)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=os.environ.get("GPUSHARE_LOG_LEVEL", "WARNING"))
    return run(args.broker, args.identity.encode(), args.backend, args.parent,
               memory_limit=args.memory_limit, direct_bind=args.direct_bind,
               server_key=args.server_key, authorized_keys=args.authorized_keys,
               max_message_size=args.max_message_size, spin_us=args.spin_us,
               host_memory=args.host_memory, max_call_seconds=args.max_call_seconds)


if __name__ == "__main__":
    sys.exit(main())
