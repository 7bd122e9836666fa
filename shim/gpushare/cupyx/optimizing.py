"""``cupyx.optimizing``: kernel auto-tuning happens (or not) on the server; the context
manager is accepted and changes no result.

See Also
--------
cupyx.optimizing.optimize
"""
from __future__ import annotations

import contextlib
from typing import Any


@contextlib.contextmanager
def optimize(*, key: Any = None, path: Any = None, readonly: bool = False,
             **config_dict: Any) -> Any:
    """Accepted so programs run unchanged (no tuning through gpushare)."""
    yield
