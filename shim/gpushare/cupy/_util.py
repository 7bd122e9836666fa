"""``cupy._util``, private in CuPy: the warning class programs and CuPy's tests filter."""
from __future__ import annotations

from ..errors import PerformanceWarning

__all__ = ["PerformanceWarning"]
