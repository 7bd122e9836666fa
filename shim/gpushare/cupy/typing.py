"""``cupy.typing``: type aliases for annotations (CuPy 14.2's, over gpushare's ndarray).

See Also
--------
cupy.typing
"""
from __future__ import annotations

from typing import Any, TypeVar

import numpy
from numpy.typing import ArrayLike, DTypeLike, NBitBase  # noqa: F401

from ._ndarray import ndarray

_ScalarType_co = TypeVar("_ScalarType_co", bound=numpy.generic, covariant=True)
NDArray = ndarray[Any, numpy.dtype[_ScalarType_co]]
