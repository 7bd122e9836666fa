"""``cupy._core.flags``: the class of ``ndarray.flags``."""
from __future__ import annotations

from .._ndarray import Flags

__all__ = ["Flags"]
