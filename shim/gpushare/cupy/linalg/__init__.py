"""``cupy.linalg``: every public function runs on the server (see ``_export_table``)."""
from __future__ import annotations

import sys

import numpy
import numpy.linalg

from .. import _export_table

_export_table(sys.modules[__name__], "cupy.linalg", numpy.linalg, {})
LinAlgError = numpy.linalg.LinAlgError
