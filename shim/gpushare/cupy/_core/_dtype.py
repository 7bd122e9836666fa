"""CuPy's ``cupy._core._dtype.make_aligned_dtype`` (``cupy.make_aligned_dtype``): a pure
function of the dtype, shared with the CPU backend in ``gpushare.structured``."""
from __future__ import annotations

from ...structured import _make_aligned_dtype, make_aligned_dtype

__all__ = ["make_aligned_dtype", "_make_aligned_dtype"]
