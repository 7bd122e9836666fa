"""``cupy._core.fusion``: the ``Fusion`` class behind ``cupy.fuse``.

See Also
--------
cupy.fuse
"""
from __future__ import annotations

from .._kernels import Fusion, fuse

__all__ = ["Fusion", "fuse"]
