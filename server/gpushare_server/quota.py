"""Per-session memory quotas (``gpushare serve --memory-limit SIZE``).

On the CuPy backend the limit goes to the session worker's memory pool
(``MemoryPool.set_limit``): each session has its own worker process, hence its own
pool, and CuPy itself raises ``OutOfMemoryError`` from the allocator.

The CPU backend has no pool to limit, so the session checks its usage after each call
that produced arrays (``MemoryQuota.check``, installed as the executor's
``after_call``): a call whose result takes the session over its limit fails with
CuPy's ``OutOfMemoryError`` and its result is dropped; the session goes on.
"""
from __future__ import annotations

import re
from typing import Any

from gpushare.errors import OutOfMemoryError

_UNITS = {
    "": 1, "b": 1,
    "k": 1 << 10, "kib": 1 << 10, "kb": 10 ** 3,
    "m": 1 << 20, "mib": 1 << 20, "mb": 10 ** 6,
    "g": 1 << 30, "gib": 1 << 30, "gb": 10 ** 9,
    "t": 1 << 40, "tib": 1 << 40, "tb": 10 ** 12,
}


def parse_size(text: str | int) -> int:
    """Bytes in a size such as ``64MiB``, ``8GiB``, ``1.5G``, ``500MB`` or ``4096``.

    ``K``/``M``/``G``/``T`` alone and ``KiB``... are powers of 1024; ``KB``/``MB``... are
    powers of 1000.

    Raises
    ------
    ValueError
        ``text`` is not a size.
    """
    if isinstance(text, int):
        if text < 0:
            raise ValueError(f"a size cannot be negative: {text}")
        return text
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([A-Za-z]*)\s*", str(text))
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {text!r} (write e.g. 64MiB, 8GiB, 500MB or 4096)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def oom_message(size: int, total: int, limit: int) -> str:
    """CuPy's ``OutOfMemoryError`` message (cupy/cuda/memory.pyx)."""
    return (f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes, "
            f"limit set to: {limit:,} bytes).")


def _arrays(value: Any, backend: Any) -> list:
    """The arrays in ``value`` (a call's result: an array, a tuple of them, or an object
    holding some, as a sparse matrix: ``held_arrays`` of the CPU backend)."""
    out: list = []
    stack = [value]
    held = getattr(backend, "held_arrays", None)
    while stack:
        item = stack.pop()
        if isinstance(item, (tuple, list)):
            stack.extend(item)
        elif backend.is_array(item):
            out.append(item)
        elif held is not None and item is not None:
            out.extend(held([item]))
    return out


def _root(arr: Any, backend: Any) -> Any:
    while backend.is_array(getattr(arr, "base", None)):
        arr = arr.base
    return arr


class MemoryQuota:
    """Holds one session under ``limit`` bytes of arrays (0: no limit): the lower of the
    server's ``--memory-limit`` and the one the client sets (``MemoryPool.set_limit``,
    which cannot raise the server's)."""

    def __init__(self, backend: Any, limit: int) -> None:
        self.backend = backend
        self.server_limit = int(limit)
        self.limit = int(limit)
        self.executor: Any = None
        # an upper bound of the session's usage: the last full count plus every result
        # since (releases only lower the truth), so the full count runs only near the
        # limit instead of after every call
        self._estimate = 0

    def _pool(self) -> Any:
        """The CuPy backend's memory pool (a real allocator: CuPy enforces the limit);
        None on the CPU backend."""
        cupy = getattr(self.backend, "cupy", None)
        return None if cupy is None else cupy.get_default_memory_pool()

    def install(self, executor: Any) -> None:
        """Enforce the limit on ``executor`` (a ``SessionExecutor``)."""
        self.executor = executor
        executor.quota = self
        pool = self._pool()
        if pool is not None:
            pool.set_limit(size=self.limit)
            return
        executor.after_call = self.check

    def set_session_limit(self, size: int) -> None:
        """The client's own limit (0: none): the session gets the lower of it and the
        server's."""
        limits = [x for x in (self.server_limit, int(size)) if x > 0]
        self.limit = min(limits) if limits else 0
        pool = self._pool()
        if pool is not None:
            pool.set_limit(size=self.limit)
        elif self.executor is not None:
            self._estimate = self.used()  # what the session holds now counts too

    def used(self, extra: list | None = None) -> int:
        arrays = self.executor.handles.values() if self.executor is not None else []
        return int(self.backend.memory("used_bytes", [*arrays, *(extra or ())]))

    def check(self, out_id: Any, result: Any) -> None:
        """Fail the call that made ``result`` (stored under ``out_id``, if any) when the
        session is now over its limit; drop the result then."""
        arrays = _arrays(result, self.backend)
        if not arrays or not self.limit:
            return
        self._estimate += sum(int(getattr(_root(a, self.backend), "nbytes", 0))
                              for a in arrays)
        if self._estimate <= self.limit:
            return
        total = self.used(arrays)
        self._estimate = total
        if total <= self.limit:
            return
        ids = {id(a) for a in arrays}
        others = [a for a in self.executor.handles.values() if id(a) not in ids]
        held = {id(_root(a, self.backend)) for a in others}
        new = [a for a in arrays if id(_root(a, self.backend)) not in held]
        if not new:  # the result added nothing (an in-place op, a view)
            return
        book = getattr(self.backend, "pool_book", None)
        if book is not None:  # (the CPU backend's pool: CuPy's reserves nothing for
            book.refuse(new)  # an allocation it refuses)
        before = int(self.backend.memory("used_bytes", others))
        if total <= before:
            return
        for hid in (out_id if isinstance(out_id, list) else [out_id]):
            if hid is not None:
                self.executor.handles.release(hid)
        self._estimate = before
        raise OutOfMemoryError(oom_message(total - before, before, self.limit))
