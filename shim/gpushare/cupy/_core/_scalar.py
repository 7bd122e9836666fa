"""CuPy's ``cupy._core._scalar`` type naming (``get_typename``: the C++ name of each
dtype in kernels, structured dtypes included, with CuPy's alignment checks), shared
with the CPU backend in ``gpushare.structured``."""
from __future__ import annotations

from ...structured import format_type_decls, get_cuda_alignment, get_typename

__all__ = ["format_type_decls", "get_cuda_alignment", "get_typename"]
