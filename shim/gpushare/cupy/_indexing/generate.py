"""CuPy's ``cupy._indexing.generate``: the index-trick classes, run on the client
(see ``gpushare.cupy._index_tricks``) and the generators, which run on the server."""
from __future__ import annotations

from typing import Any

from .._index_tricks import AxisConcatenator, CClass, RClass, c_, r_  # noqa: F401


def __getattr__(name: str) -> Any:
    from gpushare import cupy
    if not name.startswith("_") and hasattr(cupy, name):  # indices, ix_, unravel_index...
        return getattr(cupy, name)
    raise AttributeError(f"module 'cupy._indexing.generate' has no attribute '{name}'")
