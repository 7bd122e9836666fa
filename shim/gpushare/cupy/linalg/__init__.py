"""``cupy.linalg``: every public function runs on the server (see ``_export_table``);
``norm`` of a whole array pipelines (``_routines.norm``)."""
from __future__ import annotations

import sys

import numpy
import numpy.linalg

from .. import _export_table, _remote, _routines

_export_table(sys.modules[__name__], "cupy.linalg", numpy.linalg,
              {"norm": _routines.norm(_remote("cupy.linalg.norm", "norm"))})
LinAlgError = numpy.linalg.LinAlgError
