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
        pass

    def _query(self, op: str, *args: Any) -> Any:
        return _client.get_session().call("memory", op, args)

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
        """Limit the session's device memory to ``size`` bytes, or to ``fraction`` of
        the device's (0, or neither: no limit of the session's own). The server's
        ``--memory-limit`` still holds: the session gets the lower of the two.

        See Also
        --------
        cupy.cuda.MemoryPool.set_limit
        """
        if size is None:
            if fraction is None:
                size = 0
            else:
                if not 0 <= fraction <= 1:
                    raise ValueError(f"memory limit fraction out of range: {fraction}")
                from . import runtime
                size = int(fraction * runtime.memGetInfo()[1])
        elif fraction is not None:
            raise ValueError("size and fraction cannot be specified at one time")
        if size < 0:
            raise ValueError(f"memory limit size out of range: {size}")
        self._query("set_limit", int(size))

    def get_limit(self) -> int:
        """The session's limit in bytes (0: none), the server's ``--memory-limit``
        included (see cupy.cuda.MemoryPool.get_limit)."""
        return int(self._query("get_limit"))


_DEFAULT_POOL = MemoryPool()
