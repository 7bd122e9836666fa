"""``cupyx.cusparse``: CuPy's cuSPARSE wrappers, run on the server.

On a GPU server they are CuPy's own; on the CPU backend they are CuPy's checks with
SciPy's arithmetic (``backends/cpu_cusparse.py``), answering as cuSPARSE 12.0 (its
CUDA runtime's version, 12000): the legacy routines CUDA 12 removed (``csrmv``,
``csrgemm``, ``dense2csr``...) are not available there, as on a GPU with CUDA 12. The
descriptor classes hold device pointers and are not served.

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
