"""``cupy._core._carray.mdspan``: an array described to a kernel as libcudacxx's
``cuda::std::mdspan`` (CuPy 14's ``ndarray.mdspan(index_type=...)``).

CuPy packs the struct on the host (the data pointer, every extent, every stride in
elements) for ``cuLaunchKernel``. Here the array is the server's, so the value that
travels as a kernel argument is :data:`gpushare.protocol.MDSPAN`'s named tuple (the
array, the index type's size, ``allow_unsafe``), and the server packs the struct: CuPy
itself on a GPU, ``gpushare_server/kernels/_raw.py`` on the CPU emulator (whose
``<cuda/std/mdspan>`` is ``csrc/include/cuda/std/mdspan``).
"""
from __future__ import annotations

from typing import Any

import numpy

from ...protocol import MdspanArg

_INT32_MAX = 2**31 - 1
_ITEMSIZES = ((numpy.int32, 4), (numpy.int64, 8))


class mdspan:
    """An mdspan view of a device array, for a RawKernel's argument list.

    See Also
    --------
    cupy.ndarray.mdspan
    """

    __slots__ = ("_array", "_index_itemsize", "_allow_unsafe")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("mdspan objects are made by cupy.ndarray.mdspan()")

    @classmethod
    def _from_ndarray(cls, arr: Any, index_type: Any, allow_unsafe: bool) -> "mdspan":
        # cupy/_core/core.pyx _mdspan_from_ndarray and _carray.pyx, checks in their order
        itemsize = next((n for t, n in _ITEMSIZES if index_type is t), None)
        if itemsize is None:
            raise ValueError(f"Unsupported index_type: {index_type}. "
                             "Must be cupy.int32 or cupy.int64.")
        if itemsize == 4 and arr.size > _INT32_MAX:
            raise ValueError(f"Array size {arr.size} exceeds int32 maximum ({_INT32_MAX}). "
                             "Use index_type=cupy.int64 instead.")
        allow_unsafe = bool(allow_unsafe)
        if not allow_unsafe:
            for i, n in enumerate(arr.shape):
                if n == 0:
                    raise RuntimeError(f"{i}-th dimension has size zero")
            for i, st in enumerate(arr.strides):
                if st <= 0:
                    raise RuntimeError(f"{i}-th dimension has non-positive stride")
        self = object.__new__(cls)
        self._array, self._index_itemsize, self._allow_unsafe = arr, itemsize, allow_unsafe
        return self

    def _wire(self) -> MdspanArg:
        """What travels for this argument of a kernel launch."""
        return MdspanArg(self._array, self._index_itemsize, self._allow_unsafe)

    def __repr__(self) -> str:
        return (f"<gpushare mdspan of an array {self._array.shape} "
                f"int{self._index_itemsize * 8} indices>")
