"""``cupyx.linalg``: ``invh``, ``cho_solve`` and ``sparse.lschol`` run on the server.

See Also
--------
cupyx.linalg
"""
from __future__ import annotations

import sys

from .._public import PublicModule, by_reference, real_name
from ..cupy import _remote

invh = _remote("cupyx.linalg.invh")
cho_solve = _remote("cupyx.linalg.cho_solve")

sparse = PublicModule(f"{__name__}.sparse", "cupyx.linalg.sparse, run on the gpushare "
                                                "server.")
sparse.lschol = _remote("cupyx.linalg.sparse.lschol")  # type: ignore[attr-defined]
sys.modules[real_name(sparse)] = sparse
by_reference(sparse)
