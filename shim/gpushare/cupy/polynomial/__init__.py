"""``cupy.polynomial``: CuPy 14.2's power-series routines (``polynomial``, ``polyutils``),
run on the client over gpushare arrays.

See Also
--------
cupy.polynomial
"""
from __future__ import annotations

from . import polynomial, polyutils  # noqa: F401
