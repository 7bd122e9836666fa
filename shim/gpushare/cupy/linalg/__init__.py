"""``cupy.linalg``: every public function runs on the server (see ``_export_table``);
``norm`` of a whole array or along an axis, and ``solve``, ``inv``, ``det``, ``cholesky``,
``eigh``, ``eigvalsh``, ``qr``, ``svd``, ``slogdet``, ``pinv`` and ``matrix_rank`` of
non-empty matrices under ``linalg='ignore'``, pipeline (``_routines``)."""
from __future__ import annotations

import sys

import numpy
import numpy.linalg

from .. import _export_table, _remote, _routines

_export_table(sys.modules[__name__], "cupy.linalg", numpy.linalg,
              {"norm": _routines.norm(_remote("cupy.linalg.norm", "norm")),
               "solve": _routines.solve(_remote("cupy.linalg.solve", "solve")),
               "inv": _routines.inv(_remote("cupy.linalg.inv", "inv")),
               "matrix_power": _routines.matrix_power(
                   _remote("cupy.linalg.matrix_power", "matrix_power")),
               **_routines.decompositions(_remote)})
LinAlgError = numpy.linalg.LinAlgError
