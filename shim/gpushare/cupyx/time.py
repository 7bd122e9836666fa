"""``cupyx.time``: CuPy's deprecated alias of :func:`cupyx.profiler.benchmark`.

See Also
--------
cupyx.time.repeat
"""
from __future__ import annotations

import warnings
from typing import Any

from .profiler import _PerfCaseResult, benchmark  # noqa: F401


def repeat(func: Any, args: tuple = (), kwargs: dict = {}, n_repeat: int = 10000, *,  # noqa: B006
           name: Any = None, n_warmup: int = 10, max_duration: float = float("inf"),
           devices: Any = None) -> _PerfCaseResult:
    """Deprecated: use cupyx.profiler.benchmark."""
    warnings.warn("cupyx.time.repeat has been moved to cupyx.profiler.benchmark since "
                  "CuPy v10. Access through cupyx.time is deprecated and will be "
                  "removed in the future.", stacklevel=2)  # (CuPy's: a UserWarning)
    return benchmark(func, args, kwargs, n_repeat, name=name, n_warmup=n_warmup,
                     max_duration=max_duration, devices=devices)
