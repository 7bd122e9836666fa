"""The floors' servers, each run in its own process:
``python -m benchmarks._servers zmq|tcp PORT``.

zmq
    A ROUTER socket. ``[b"e", *frames]`` comes back as ``frames`` (the echo for round
    trips and pipelined messages); ``[b"s", data]`` is answered ``b"k"`` once received
    (bulk one way, client to server); ``[b"g", size]`` is answered with one frame of
    ``size`` bytes (bulk one way, server to client).
tcp
    A plain socket. A 9-byte header ``op, size`` (``>cQ``): ``S`` receives ``size``
    bytes and answers one byte; ``G`` sends ``size`` bytes. The bytes land in (or come
    from) one reused 64 MiB buffer: this is the wire's floor, without allocation.
"""
from __future__ import annotations

import socket
import struct
import sys

BUF = 64 << 20


def zmq_server(port: int) -> None:
    import zmq
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    # unlimited queues: the pipelined test sends 10,000 messages before reading any
    sock.setsockopt(zmq.SNDHWM, 0)
    sock.setsockopt(zmq.RCVHWM, 0)
    sock.setsockopt(zmq.LINGER, 0)
    sock.bind(f"tcp://127.0.0.1:{port}")
    source = bytearray(BUF)
    print("listening", flush=True)
    while True:
        frames = sock.recv_multipart(copy=False)
        ident, kind = frames[0], frames[1].bytes
        if kind == b"e":
            sock.send_multipart([ident, *frames[2:]], copy=False)
        elif kind == b"s":
            sock.send_multipart([ident, b"k"])
        elif kind == b"g":
            size = int(frames[2].bytes)
            data = source if size <= BUF else bytearray(size)
            sock.send_multipart([ident, memoryview(data)[:size]], copy=False)
        elif kind == b"q":
            sock.send_multipart([ident, b"bye"])
            break
    sock.close(0)
    ctx.term()


def _recv_exact(conn: socket.socket, view: memoryview, size: int) -> None:
    n = 0
    while n < size:
        chunk = conn.recv_into(view[: min(len(view), size - n)])
        if not chunk:
            raise ConnectionError("peer closed")
        n += chunk


def tcp_server(port: int) -> None:
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(1)
    buf = memoryview(bytearray(BUF))
    print("listening", flush=True)
    while True:
        conn, _ = srv.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with conn:
            while True:
                head = bytearray(9)
                try:
                    _recv_exact(conn, memoryview(head), 9)
                except ConnectionError:
                    break
                op, size = struct.unpack(">cQ", head)
                if op == b"S":
                    _recv_exact(conn, buf, size)
                    conn.sendall(b"k")
                elif op == b"G":
                    left = size
                    while left:
                        n = min(left, BUF)
                        conn.sendall(buf[:n])
                        left -= n
                elif op == b"Q":
                    return


if __name__ == "__main__":
    kind, port = sys.argv[1], int(sys.argv[2])
    {"zmq": zmq_server, "tcp": tcp_server}[kind](port)
