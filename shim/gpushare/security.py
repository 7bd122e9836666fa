"""Client-side connection security (CurveZMQ keys). See issue #6.

``configure_client_socket`` is called by ``client.Session`` on its socket before it
connects.
"""
from __future__ import annotations

from typing import Any


def configure_client_socket(sock: Any, address: str) -> None:
    """Apply the client's security settings to ``sock`` (nothing configured: plain)."""
    return None
