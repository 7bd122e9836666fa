"""CUDA's single-precision flush-to-zero, as CuPy's kernels have it, on the CPU backend.

CuPy compiles every kernel it builds at run time with ``-ftz=true``
(``cupy/cuda/compiler.py``, ``_compile_with_cache_cuda``): its ufuncs and operators,
ElementwiseKernel, ReductionKernel, its own reductions. There each float32 instruction
reads a subnormal operand as a zero of its sign and writes a subnormal result as one
(add, mul, div, sqrt, min/max, abs, neg, comparisons, float32 <-> float64 conversions,
the math library's ftz variants); doubles never are. Precompiled libraries are not built
so (``install/cupy_builder/_compiler.py``: nvcc ``-O2``): cuBLAS, cuFFT, cuSOLVER, and
CUB's device reductions and scans (``cupy/cuda/cupy_cub.cu``), which CuPy's default
``CUPY_ACCELERATORS=cub`` runs for ``sum``, ``max``, ``argmax``, ``cumsum``... of a
contiguous array (``cupy/_core/_routines_math.pyx``, ``_routines_statistics.pyx``).

``wrap(uf)`` is a NumPy ufunc as such a kernel runs it (``_ftz.Ufunc``, see
``gpushare_server/_ftz.c``): MXCSR's FTZ and DAZ bits set around a float32/complex64
loop, float32/complex64 operands of a double loop flushed (``cvt.ftz.f64.f32``), and,
for the ufuncs whose NumPy loops work on the bits where DAZ does not reach them
(``absolute``, ``negative``, ``cbrt``, ``log1p``, ``arctan``...), the operands flushed
first. Without the C extension (or on a machine whose flushing mode it does not know)
nothing is flushed: NumPy's IEEE answers, as before.
"""
from __future__ import annotations

from typing import Any

try:
    from gpushare_server import _ftz
except ImportError:  # (optional, as _records is)
    _ftz = None

#: whether flushing is done on this server
AVAILABLE = bool(_ftz is not None and _ftz.available)

#: ufuncs whose CuPy kernels leave a subnormal as it is: a copy (``positive``, and
#: ``conjugate``'s real loops, ``out0 = in0``; its complex loop flushes the imaginary
#: part only, not mirrored), the bits (``copysign``, ``signbit``, ``isnan``...), or
#: libdevice's functions whose ftz treatment is not read here (``nextafter``, ``frexp``,
#: ``ldexp``, ``spacing``); gufuncs are cuBLAS's (``matmul``...), never flushed
EXEMPT = frozenset({"positive", "conjugate", "copysign", "signbit", "isnan", "isinf",
                    "isfinite", "isnat", "nextafter", "frexp", "ldexp", "spacing"})

#: ufuncs whose NumPy loops are the processor's arithmetic and comparison instructions,
#: which DAZ reaches (so their operands are not scanned first)
DAZ_ENOUGH = frozenset({"add", "subtract", "multiply", "divide", "true_divide",
                        "greater", "greater_equal", "less", "less_equal", "equal",
                        "not_equal", "logical_and", "logical_or", "logical_xor",
                        "logical_not", "square", "sqrt", "floor", "ceil", "trunc",
                        "rint", "sign", "heaviside"})

#: ufuncs CuPy has no single-precision loop for (a float32 operand is converted)
DOUBLE_ONLY = frozenset({"float_power"})


def wrap(uf: Any, name: str | None = None) -> Any:
    """``uf`` (a NumPy ufunc, or the CPU backend's ``_Ufunc`` for one, named ``name``)
    called as CuPy's ``-ftz=true`` kernel computes it; ``uf`` itself where CuPy's
    kernel does not flush, or flushing is not available."""
    if not AVAILABLE:
        return uf
    name = name or getattr(uf, "__name__", "")
    if name in EXEMPT or getattr(uf, "signature", None) is not None:
        return uf
    return _ftz.Ufunc(uf, scan=name not in DAZ_ENOUGH, double=name in DOUBLE_ONLY)

