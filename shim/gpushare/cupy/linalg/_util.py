"""Private helpers of ``cupy.linalg`` that CuPy's tests use (after CuPy 14.2's
``cupy/linalg/_util.py``, MIT licence)."""
from __future__ import annotations

from typing import Any


def stacked_identity(batch_shape: tuple, n: int, dtype: Any) -> Any:
    import gpushare.cupy as cupy
    shape = batch_shape + (n, n)
    idx = cupy.arange(n)
    x = cupy.zeros(shape, dtype)
    x[..., idx, idx] = 1
    return x


def stacked_identity_like(x: Any) -> Any:
    import gpushare.cupy as cupy
    n = x.shape[-1]
    idx = cupy.arange(n)
    x = cupy.zeros_like(x)
    x[..., idx, idx] = 1
    return x
