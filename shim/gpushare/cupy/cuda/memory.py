"""``cupy.cuda.memory``: the session's memory pool on the server."""
from __future__ import annotations

from typing import Any

from ... import client as _client
from ...errors import OutOfMemoryError  # noqa: F401
from .._ndarray import MemoryPointer  # noqa: F401


class MemoryPool:
    """The session's device memory pool on the server.

    See Also
    --------
    cupy.cuda.MemoryPool
    """

    def __init__(self, allocator: Any = None) -> None:
        self._limit = 0

    def _query(self, op: str) -> Any:
        return _client.get_session().call("memory", op)

    def used_bytes(self) -> int:
        return int(self._query("used_bytes"))

    def total_bytes(self) -> int:
        return int(self._query("total_bytes"))

    def free_bytes(self) -> int:
        return int(self._query("free_bytes"))

    def n_free_blocks(self) -> int:
        return int(self._query("n_free_blocks"))

    def free_all_blocks(self, stream: Any = None) -> None:
        self._query("free_all_blocks")

    def set_limit(self, size: Any = None, fraction: Any = None) -> None:
        self._limit = int(size or 0)

    def get_limit(self) -> int:
        return self._limit


_DEFAULT_POOL = MemoryPool()
