"""``cupy._creation.from_data``: the array-from-data functions, the same objects as
``cupy``'s."""
from __future__ import annotations

from .. import (array, asanyarray, asarray, ascontiguousarray, copy, frombuffer, fromfile,
                fromfunction, fromiter, fromstring, loadtxt)

__all__ = ["array", "asanyarray", "asarray", "ascontiguousarray", "copy", "frombuffer",
           "fromfile", "fromfunction", "fromiter", "fromstring", "loadtxt"]
