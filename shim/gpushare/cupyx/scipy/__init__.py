"""gpushare's ``cupyx.scipy``: each submodule forwards its public functions to the server."""
from __future__ import annotations

import importlib
import sys
import types
from typing import Any

import numpy

from ...cupy import _export_table

_SUBMODULES = ("special", "ndimage", "linalg", "signal", "sparse", "stats", "fft")


def _make(name: str) -> types.ModuleType:
    full = f"{__name__}.{name}"
    mod = types.ModuleType(full, f"cupyx.scipy.{name}, run on the gpushare server.")
    _export_table(mod, f"cupyx.scipy.{name}", numpy, {})
    if name == "sparse":  # sparse matrices are not served yet
        from ...cupy import _unsupported
        mod.issparse = lambda x: False
        for cls in ("coo_array", "coo_matrix", "csc_array", "csc_matrix", "csr_array",
                    "csr_matrix", "dia_array", "dia_matrix", "sparray", "spmatrix"):
            setattr(mod, cls, _unsupported.cls(f"cupyx.scipy.sparse.{cls}",
                                               "sparse matrices are not served yet"))
        mod.SparseWarning = type("SparseWarning", (Warning,), {"__module__": full})
        mod.SparseEfficiencyWarning = type("SparseEfficiencyWarning", (mod.SparseWarning,),
                                           {"__module__": full})
    sys.modules[full] = mod
    return mod


for _name in _SUBMODULES:
    globals()[_name] = _make(_name)


def get_array_module(*args: Any) -> Any:
    from ... import cupy
    return cupy.get_array_module(*args)
