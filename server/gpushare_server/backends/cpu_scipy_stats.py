"""``cupyx.scipy.stats`` on the CPU backend: CuPy 14.2's own code (``gpushare.scipy_stats``,
which the client runs for device arrays) on NumPy and SciPy's ``special``, where SciPy's
``stats`` differs from CuPy's: ``entropy`` normalises float inputs in place and refuses
complex ones and a ``qk`` of another shape; ``zscore``/``zmap`` have CuPy's words for an
unknown ``nan_policy`` and its constant-input rule (NaN, no warning); an empty input is
a Python NaN for ``trim_mean`` and a 0-d NaN of the data's float type for
``boxcox_llf``. Nothing warns (CuPy's kernels do not).
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy

from gpushare import scipy_stats

from . import scipy_module


def _numpy(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        special = scipy_module("scipy.special", "cupyx.scipy.stats")
        with numpy.errstate(all="ignore"):
            return fn(numpy, special, *args, **kwargs)
    return call


SCIPY_STATS_OVERRIDES: dict[str, Callable[..., Any]] = {
    f"cupyx.scipy.stats.{name}": _numpy(fn) for name, fn in scipy_stats.FUNCTIONS.items()}
