"""``cupyx.cusolver``: CuPy's cuSOLVER wrappers (``cupyx/_cusolver.pyx``), run on the
server.

``check_availability``, ``gesv``, ``gels``, ``gesvdj``, ``gesvda``, ``syevj`` and
``csrlsvqr`` are server calls (arrays and sparse matrices by handle): on a GPU server
CuPy's own, on the CPU backend ``backends/cpu_cusolver.py`` (NumPy/SciPy with CuPy's
checks, result layouts and in-place behaviour). ``check_availability``'s answer is kept
per session, as CuPy memoizes it per device. The version tables are CuPy's, here as
data; ``_gesvdj_batched`` and ``_syevj_batched`` are the public routines' batched paths.

See Also
--------
cupyx.cusolver
"""
from __future__ import annotations

import sys
from typing import Any

import numpy

from ..cupy import _export_table, _remote, _session_of, session

csrlsvqr = _remote("cupyx.cusolver.csrlsvqr")
gels = _remote("cupyx.cusolver.gels")
gesv = _remote("cupyx.cusolver.gesv")
gesvda = _remote("cupyx.cusolver.gesvda")
gesvdj = _remote("cupyx.cusolver.gesvdj")
syevj = _remote("cupyx.cusolver.syevj")
_export_table(sys.modules[__name__], "cupyx.cusolver", numpy,
              {"csrlsvqr": csrlsvqr, "gels": gels, "gesv": gesv, "gesvda": gesvda,
               "gesvdj": gesvdj, "syevj": syevj})

_available_cuda_version = {
    'gesvdj': (0, None),
    'gesvdjBatched': (0, None),
    'gesvda': (0, None),
    'potrfBatched': (0, None),
    'potrsBatched': (0, None),
    'syevj': (0, None),
    'gesv': (0, None),
    'gels': (0, None),
    'csrlsvqr': (0, None),
    'geev': (11700, None),
}

_available_hip_version = {
    'gesvdj': (numpy.inf, None),
    'gesvdjBatched': (309, None),
    'gesvda': (numpy.inf, None),
    'potrfBatched': (306, None),
    'potrsBatched': (306, None),
    'syevj': (402, None),
    'gesv': (numpy.inf, None),
    'gels': (numpy.inf, None),
    'csrlsvqr': (numpy.inf, None),
    'geev': (numpy.inf, None),
}

_available_compute_capability = {
    'gesv': 70,
    'gels': 70,
}

_check_availability = _remote("cupyx.cusolver.check_availability", "check_availability")


def check_availability(name: Any) -> bool:
    """Whether the cuSOLVER routine ``name`` is available on the server's device
    (``ValueError`` for a name CuPy has no version information for).

    See Also
    --------
    cupyx.cusolver.check_availability
    """
    s = _session_of(name) or session()
    known = s.__dict__.setdefault("_gs_cusolver_available", {})
    answer = known.get(name)  # (an unhashable name: CuPy's memoize's TypeError)
    if answer is None:
        answer = known[name] = bool(_check_availability(name))
    return answer



def _gesvdj_batched(a: Any, full_matrices: Any, compute_uv: Any, overwrite_a: Any) -> Any:
    """``gesvdj`` of a ``(batch, m, n)`` stack (``cusolverDn<t>gesvdjBatched``)."""
    batch_size, m, n = a.shape  # (CuPy's unpacking error for another ndim)
    return gesvdj(a, full_matrices, compute_uv, overwrite_a)


def _syevj_batched(a: Any, UPLO: Any, with_eigen_vector: Any) -> Any:
    """``syevj`` of a stack of matrices (``cusolverDn<t>syevjBatched``)."""
    if a.ndim <= 2:
        raise NotImplementedError("gpushare: _syevj_batched takes a stack of matrices")
    return syevj(a, UPLO, with_eigen_vector)
