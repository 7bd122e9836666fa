"""CuPy's private ``cupy._indexing`` package, as far as programs reach into it."""
from __future__ import annotations

from . import generate  # noqa: F401
