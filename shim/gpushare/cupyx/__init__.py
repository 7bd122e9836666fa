"""gpushare's ``cupyx``: CuPy's extensions, run on the server."""
from __future__ import annotations

import contextlib
import sys
from typing import Any

import numpy

from ..cupy import _export_table, _remote

_export_table(sys.modules[__name__], "cupyx", numpy, {})


@contextlib.contextmanager
def errstate(**kwargs: Any) -> Any:
    """Floating-point error handling: like CuPy, the device never traps; accepted as is."""
    yield


def seterr(**kwargs: Any) -> dict:
    return geterr()


def geterr() -> dict:
    return {"divide": "ignore", "over": "ignore", "under": "ignore", "invalid": "ignore"}


def empty_pinned(shape: Any, dtype: Any = float, order: str = "C") -> numpy.ndarray:
    """Pinned host memory is host memory of this machine: a plain numpy array."""
    return numpy.empty(shape, dtype, order)


def zeros_pinned(shape: Any, dtype: Any = float, order: str = "C") -> numpy.ndarray:
    return numpy.zeros(shape, dtype, order)


def empty_like_pinned(a: Any, dtype: Any = None, order: str = "K", subok: Any = None,
                      shape: Any = None) -> numpy.ndarray:
    return numpy.empty_like(a, dtype, order, subok=True, shape=shape)


def zeros_like_pinned(a: Any, dtype: Any = None, order: str = "K", subok: Any = None,
                      shape: Any = None) -> numpy.ndarray:
    return numpy.zeros_like(a, dtype, order, subok=True, shape=shape)


scatter_add = _remote("cupyx.scatter_add")
scatter_max = _remote("cupyx.scatter_max")
scatter_min = _remote("cupyx.scatter_min")


def __getattr__(name: str) -> Any:
    if name in ("scipy",):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'cupyx' has no attribute '{name}'")
