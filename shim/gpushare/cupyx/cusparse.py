"""``cupyx.cusparse``: CuPy's cuSPARSE wrappers, run on the server.

On a GPU server they are CuPy's own; on the CPU backend only ``check_availability`` and
``getVersion`` answer (every routine is available there, through SciPy; its version is 0,
as its CUDA runtime's is). The descriptor classes hold device pointers and are not
served.

See Also
--------
cupyx.cusparse
"""
from __future__ import annotations

import sys

import numpy

from ..cupy import _export_table, _unsupported
from ..namespace import module_names

_export_table(sys.modules[__name__], "cupyx.cusparse", numpy, {})
for _name, _kind in module_names("cupyx.cusparse").items():
    if _kind == "class":
        globals()[_name] = _unsupported.cls(f"cupyx.cusparse.{_name}",
                                            "it holds device pointers")
