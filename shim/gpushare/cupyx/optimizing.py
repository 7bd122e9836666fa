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
    """Accepted so programs run unchanged (no tuning through gpushare); without Optuna
    installed where the program runs, CuPy's RuntimeError (``_optimize.py``)."""
    import importlib.util
    if importlib.util.find_spec("optuna") is None:
        raise RuntimeError(
            "Optuna is required to run optimization. "
            "See https://optuna.org/ for the installation instructions.")
    yield
