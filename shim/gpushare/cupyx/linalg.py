"""``cupyx.linalg``: ``invh`` runs as ``cupy.linalg.inv`` on the server; the rest is not
served.

See Also
--------
cupyx.linalg
"""
from __future__ import annotations

from typing import Any

from ..cupy import _unsupported


def invh(a: Any) -> Any:
    """Inverse of a Hermitian positive-definite matrix (see cupyx.linalg.invh)."""
    from gpushare.cupy import linalg
    return linalg.inv(a)


cho_solve = _unsupported.function("cupyx.linalg.cho_solve", "not served yet")
sparse = _unsupported.module(f"{__name__}.sparse", "cupyx.linalg.sparse (not served yet)",
                             functions=("lschol",), why="not served yet")
