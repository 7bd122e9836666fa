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
    if name == "sparse":
        mod.issparse = lambda x: False  # sparse matrices are not served yet
    sys.modules[full] = mod
    return mod


for _name in _SUBMODULES:
    globals()[_name] = _make(_name)


def get_array_module(*args: Any) -> Any:
    from ... import cupy
    return cupy.get_array_module(*args)
