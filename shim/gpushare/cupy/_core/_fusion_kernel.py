"""``cupy._core._fusion_kernel``: CuPy's fused-kernel class, by name only.

gpushare evaluates a fused function operation by operation on the server (see
``gpushare.cupy._kernels.Fusion``), so no ``FusedKernel`` is ever built; the name
exists because programs and tests patch it.
"""
from __future__ import annotations

from typing import Any


class FusedKernel:
    """Placeholder for cupy._core._fusion_kernel.FusedKernel (never instantiated by
    gpushare)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("gpushare does not build fused kernels; cupy.fuse runs "
                                  "the function's operations on the server")
