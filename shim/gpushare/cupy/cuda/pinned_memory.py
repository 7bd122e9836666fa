"""``cupy.cuda.pinned_memory``: pinned memory is host memory of this machine; gpushare
keeps no pinned pool, so the pool reports nothing in use."""
from __future__ import annotations

from typing import Any


class PinnedMemoryPool:
    def __init__(self, allocator: Any = None) -> None:
        pass

    def free_all_blocks(self) -> None:
        return None

    def n_free_blocks(self) -> int:
        return 0

    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0


_DEFAULT_POOL = PinnedMemoryPool()
