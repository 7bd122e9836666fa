"""``cupy._core.core``: where CuPy defines ``ndarray`` and its constructors (the same
objects as ``cupy``'s here)."""
from __future__ import annotations

from .. import array, ascontiguousarray, asfortranarray, min_scalar_type, ndarray

#: the headers CuPy's kernels include (``cupy/_core/core.pyx``, "exposed to Python
#: for unit testing"); gpushare's kernel compiler vendors the same files
_cupy_header_list = [
    "cupy/complex.cuh",
    "cupy/carray.cuh",
    "cupy/atomics.cuh",
    "cupy/math_constants.h",
]

__all__ = ["ndarray", "array", "ascontiguousarray", "asfortranarray", "min_scalar_type"]
