"""A session worker process: owns one session's arrays and runs its calls.

Started by the broker (``python -m gpushare_server.worker ...``). One process per
session means a crash in native code, or a sticky CUDA error, ends that session
only; on a GPU it also gives each tenant its own CUDA context.

Broker <-> worker frames (over the broker's internal ROUTER socket):
``[b"ready"]`` worker -> broker once the backend is loaded;
``[b"msg", *client_frames]`` broker -> worker, ``[b"msg", *reply_frames]`` back;
``[b"stop"]`` broker -> worker;
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
import sys

import zmq

from .backends import load_backend
from .session import SessionExecutor

log = logging.getLogger("gpushare.worker")

#: frames at least this large are sent without copying
ZERO_COPY_MIN = 1 << 16


def send_frames(sock: zmq.Socket, frames: list) -> None:
    last = len(frames) - 1
    for i, frame in enumerate(frames):
        size = len(frame) if not isinstance(frame, memoryview) else frame.nbytes
        sock.send(frame, zmq.SNDMORE if i < last else 0, copy=size < ZERO_COPY_MIN)


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
        import select
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        deadline = 50  # ms: let the reader thread catch up with what is already written
        while deadline > 0 and select.select([self._fd], [], [], 0)[0]:
            select.select([], [], [], 0.001)
            deadline -= 1
        with self._lock:
            chunks, self._chunks = self._chunks, []
        return b"".join(chunks).decode(errors="replace")


def _stats(executor: SessionExecutor, errors_seen: int, with_info: bool) -> bytes:
    import msgpack
    backend = executor.backend
    stats: dict = {"handles": len(executor.handles), "calls": executor.calls,
                   "errors": errors_seen, "pid": os.getpid()}
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


def run(broker: str, identity: bytes, backend_name: str, parent: int,
        memory_limit: int = 0) -> int:
    backend = load_backend(backend_name)
    capture = OutputCapture()
    executor = SessionExecutor(backend, output=capture.take)
    if memory_limit:
        from .quota import MemoryQuota
        MemoryQuota(backend, memory_limit).install(executor)
    errors_seen = 0
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.IDENTITY, identity)
    sock.setsockopt(zmq.LINGER, 1000)
    sock.connect(broker)
    sock.send(b"ready")
    poller = zmq.Poller()
    poller.register(sock, zmq.POLLIN)
    try:
        while True:
            if not poller.poll(1000):
                if parent and os.getppid() != parent:  # the broker is gone
                    return 0
                continue
            frames = sock.recv_multipart(copy=False)
            kind = frames[0].bytes
            if kind == b"stop":
                return 0
            if kind == b"stats":
                with_info = len(frames) > 1 and frames[1].bytes == b"1"
                sock.send_multipart([b"stats", _stats(executor, errors_seen, with_info)])
                continue
            if kind != b"msg":
                continue
            failed_before = executor.failed_seq
            reply = _handle_safely(executor, frames[1:])
            if executor.failed_seq is not None and executor.failed_seq != failed_before:
                errors_seen += 1
            if reply:  # streamed-upload chunks get none
                send_frames(sock, [b"msg", *reply])
            for extra in executor.take_outbox():  # streamed-download chunks: no reply of
                send_frames(sock, [b"data", *extra])  # their own, so "data", not "msg"
    finally:
        executor.handles.clear()
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
    args = parser.parse_args(argv)
    logging.basicConfig(level=os.environ.get("GPUSHARE_LOG_LEVEL", "WARNING"))
    return run(args.broker, args.identity.encode(), args.backend, args.parent,
               memory_limit=args.memory_limit)


if __name__ == "__main__":
    sys.exit(main())
