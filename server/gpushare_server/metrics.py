"""Prometheus metrics (``gpushare serve --metrics-port PORT``).

Served by ``prometheus-client`` (the ``server`` extra) from a thread of the broker;
the broker updates the numbers from its loop and from the workers' periodic reports.
Without ``--metrics-port`` nothing is imported and nothing is served.
"""
from __future__ import annotations

from typing import Any


class Metrics:
    """The server's metrics, in a registry of their own."""

    def __init__(self) -> None:
        try:
            from prometheus_client import CollectorRegistry, Counter, Gauge
        except ImportError as exc:
            raise ValueError("--metrics-port needs prometheus-client: pip install "
                             "'gpushare[server]' (or prometheus-client)") from exc
        self.registry = CollectorRegistry()
        r = self.registry
        self.sessions = Gauge("gpushare_sessions", "Sessions open now", registry=r)
        self.memory = Gauge("gpushare_memory_bytes",
                            "Bytes of arrays held by all sessions (as last reported)",
                            registry=r)
        self.handles = Gauge("gpushare_handles", "Server objects held by all sessions",
                             registry=r)
        self.sessions_opened = Counter("gpushare_sessions_opened",
                                       "Sessions opened", registry=r)
        self.sessions_closed = Counter("gpushare_sessions_closed", "Sessions ended, by reason",
                                       ["reason"], registry=r)
        self.sessions_refused = Counter("gpushare_sessions_refused",
                                        "Handshakes refused, by reason", ["reason"],
                                        registry=r)
        self.calls = Counter("gpushare_calls", "Calls run by session workers", registry=r)
        self.errors = Counter("gpushare_errors",
                              "Calls that raised (user errors and quota refusals)",
                              registry=r)
        self.protocol_errors = Counter("gpushare_protocol_errors",
                                       "Malformed or unknown messages received", registry=r)
        self.bytes_in = Counter("gpushare_bytes_received",
                                "Bytes received from clients", registry=r)
        self.bytes_out = Counter("gpushare_bytes_sent", "Bytes sent to clients", registry=r)
        self._server: Any = None

    def serve(self, port: int, addr: str = "127.0.0.1") -> int:
        """Start the HTTP endpoint; return the port it listens on."""
        from prometheus_client import start_http_server
        result = start_http_server(port, addr=addr, registry=self.registry)
        if isinstance(result, tuple):  # prometheus-client >= 0.20 returns (server, thread)
            self._server = result[0]
            return int(self._server.server_address[1])
        return port

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


class NoMetrics:
    """Stands in for :class:`Metrics` when no metrics port is given: every update is a
    no-op."""

    def __getattr__(self, name: str) -> Any:
        return _NULL

    def stop(self) -> None:
        pass


class _Null:
    def __getattr__(self, name: str) -> Any:
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self


_NULL = _Null()
