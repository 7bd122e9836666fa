"""A TCP relay whose connections can be cut at once: a network interruption on loopback.

``cut()`` resets every relayed connection (``SO_LINGER`` 0: an RST, both ways) and
refuses new ones for a moment; whatever was in flight (in the relay, in the kernel's
buffers) is lost, as when a link or a NAT drops a connection. ZeroMQ then reconnects
by itself; what gpushare must do is lose and repeat nothing (``reliable.py``).
"""
from __future__ import annotations

import socket
import struct
import threading
import time


def _reset(sock: socket.socket) -> None:
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    try:
        sock.close()
    except OSError:
        pass


class CuttableProxy:
    """Relays connections made to ``listen`` (host, port) to ``target``."""

    def __init__(self, listen: tuple[str, int], target: tuple[str, int]) -> None:
        self.target = target
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(listen)
        self._server.listen(16)
        self._lock = threading.Lock()
        self._conns: list[socket.socket] = []
        self._refuse_until = 0.0
        self._closed = False
        self.accepted = 0
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            if time.monotonic() < self._refuse_until:
                _reset(client)  # the network is "down"
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                _reset(client)
                continue
            with self._lock:
                self.accepted += 1
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(1 << 16)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        _reset(src)
        _reset(dst)

    def cut(self, down_for: float = 0.3) -> None:
        """Reset every connection now; refuse new ones for ``down_for`` seconds."""
        with self._lock:
            self._refuse_until = time.monotonic() + down_for
            conns, self._conns = self._conns, []
            self.cuts += 1
        for sock in conns:
            try:  # an RST at close; the shutdown wakes the relay threads blocked on it
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            _reset(sock)

    def close(self) -> None:
        self._closed = True
        self.cut(0)
        self._server.close()
