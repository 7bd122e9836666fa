"""CuPy's reading of a random seed, shared by the client (which checks seeds at the call)
and the CPU backend (which seeds its generators)."""
from __future__ import annotations

import hashlib
from typing import Any

import numpy


def seed_value(seed: Any) -> int | None:
    """``RandomState.seed``'s checks and messages; ``None`` stays ``None`` (fresh entropy).

    See Also
    --------
    cupy.random.RandomState.seed
    """
    if seed is None:
        return None
    if isinstance(seed, numpy.ndarray):
        # CuPy hashes array seeds
        return int(hashlib.md5(numpy.ascontiguousarray(seed),
                               usedforsecurity=False).hexdigest()[:16], 16)
    seed_arr = numpy.asarray(seed)
    if seed_arr.dtype.kind not in "biu":
        raise TypeError("Seed must be an integer.")
    value = int(seed_arr)
    if value < 0 or value >= 2 ** 64:
        raise ValueError("Seed must be an integer between 0 and 2**64 - 1")
    return value
