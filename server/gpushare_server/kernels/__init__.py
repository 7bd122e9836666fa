"""CPU implementation of CuPy's user-kernel APIs for gpushare's ``cpu`` backend.

NumPy arrays stand for device arrays.  CUDA C/C++ sources are compiled with
the host C++ compiler against an emulation header (``csrc/``) and run with
CUDA's execution model (blocks in parallel on a thread pool, the threads of a
block as cooperative fibers when barriers / warp intrinsics are used).

Public objects: :class:`ElementwiseKernel`, :class:`ReductionKernel`,
:class:`RawKernel`, :class:`RawModule`, :func:`fuse`,
:class:`CompileException`, :class:`CUDADriverError`,
:func:`set_printf_handler`, :func:`capture_printf`,
:func:`compiler_available`, :func:`num_threads`.

Kernel ``printf`` output is collected per launch and passed to the handler
installed with :func:`set_printf_handler` (default: written to
``sys.stdout``), or gathered by the :func:`capture_printf` context manager.
"""
from __future__ import annotations

from ._errors import CompileException, CUDADriverError
from ._build import compiler_available
from ._runtime import set_printf_handler, capture_printf, num_threads
from ._raw import RawKernel, RawModule

__all__ = [
    'ElementwiseKernel', 'ReductionKernel', 'RawKernel', 'RawModule', 'fuse',
    'CompileException', 'CUDADriverError', 'set_printf_handler',
    'capture_printf', 'compiler_available', 'num_threads', 'Fusion',
]
from ._elementwise import ElementwiseKernel  # noqa: E402
from ._reduction import ReductionKernel  # noqa: E402
from ._fusion import fuse, Fusion  # noqa: E402
