"""``cupy.lib``: ``stride_tricks`` (views laid over gpushare arrays, made here)."""
from __future__ import annotations

from . import stride_tricks  # noqa: F401
