"""``cupyx.scipy.fft`` and ``cupyx.scipy.fftpack`` on the CPU backend: SciPy's, with
CuPy's differences (after CuPy 14.2, MIT licence, ``LICENSE.cupy``):

- ``get_fft_plan`` checks its arguments as CuPy's does and gives a plan object
  (``Plan1d`` or ``PlanNd``: the kind, the shape and the cuFFT type CuPy would make).
  The transforms take it (``plan=``, or ``with plan:`` on the client) and give the same
  answers as without one: NumPy's FFTs need no plan. (A plan that does not fit its
  array is not refused here, where CuPy raises ``ValueError``.)
- The DCT and DST are CuPy's types 2 and 3 only (``NotImplementedError`` for 1 and 4).

``FFT_OVERRIDES`` maps paths to these functions (merged in ``cpu.py``).
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy

#: cuFFT's transform types (cupy.cuda.cufft's constants)
_CUFFT_TYPES = {("C2C", "F"): 0x29, ("R2C", "f"): 0x2a, ("C2R", "F"): 0x2c,
                ("C2C", "D"): 0x69, ("R2C", "d"): 0x6a, ("C2R", "D"): 0x6c}


class Plan1d:
    """A cuFFT 1-D plan's description (see module docs): ``fft_type``, ``nx`` (the
    transformed length), ``batch``."""

    def __init__(self, nx: int, fft_type: int, batch: int) -> None:
        self.nx, self.fft_type, self.batch = nx, fft_type, batch

    def __enter__(self) -> "Plan1d":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


class PlanNd(Plan1d):
    """A cuFFT n-d plan's description: ``shape``, ``fft_type``, ``order``."""

    def __init__(self, shape: tuple, fft_type: int, order: str, batch: int = 1) -> None:
        super().__init__(shape[-1] if shape else 0, fft_type, batch)
        self.shape, self.order = shape, order


PLAN_MEMBERS = frozenset({"__enter__", "__exit__", "nx", "fft_type", "batch", "shape",
                          "order"})


def _output_dtype(dtype: numpy.dtype, value_type: str) -> numpy.dtype:
    if value_type != "R2C":
        if dtype in (numpy.float16, numpy.float32):
            return numpy.dtype(numpy.complex64)
        if dtype not in (numpy.complex64, numpy.complex128):
            return numpy.dtype(numpy.complex128)
    else:
        if dtype in (numpy.complex64, numpy.complex128):
            return numpy.dtype(dtype.char.lower())
        if dtype == numpy.float16:
            return numpy.dtype(numpy.float32)
        if dtype not in (numpy.float32, numpy.float64):
            return numpy.dtype(numpy.float64)
    return numpy.dtype(dtype)


def get_fft_plan(a: Any, shape: Any = None, axes: Any = None,
                 value_type: str = "C2C") -> Plan1d:
    """See Also: cupyx.scipy.fft.get_fft_plan (CuPy's checks of its arguments)."""
    if not isinstance(a, numpy.ndarray):
        raise TypeError(f"Unsupported type {type(a)}")
    if a.flags.c_contiguous:
        order = "C"
    elif a.flags.f_contiguous:
        order = "F"
    else:
        raise ValueError("Input array a must be contiguous")
    if isinstance(shape, int):
        shape = (shape,)
    if isinstance(axes, int):
        axes = (axes,)
    if shape is not None and axes is not None and len(shape) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    axis1d = 0
    if axes is None:
        n = a.ndim if shape is None else len(shape)
        axes = tuple(range(-n, 0))
    else:
        n = len(axes)
        if n == 1:
            axis1d = axes[0]
            if axis1d >= a.ndim or axis1d < -a.ndim:
                raise ValueError(f"The chosen axis ({axis1d}) exceeds the number of "
                                 f"dimensions of a ({a.ndim})")
        elif n > 3:
            raise ValueError("Only up to three axes is supported")
    transformed = shape
    full = list(a.shape)
    if transformed is not None:
        for s, axis in zip(transformed, axes):
            if s is not None:
                if axis == axes[-1] and value_type == "C2R":
                    s = s // 2 + 1
                full[axis] = s
    out_dtype = _output_dtype(a.dtype, value_type)
    fft_type = _CUFFT_TYPES.get((value_type, out_dtype.char))
    if fft_type is None:
        raise ValueError
    if n > 1 and value_type != "C2C" and a.flags.f_contiguous:
        raise ValueError("C2R/R2C PlanNd for F-order arrays is not supported")
    if n > 1:
        return PlanNd(tuple(full[ax] for ax in axes), fft_type, order)
    size = full[axis1d]
    return Plan1d(size, fft_type, math.prod(full) // size if size else 0)


def _taking_plan(fn: Callable[..., Any], position: int | None) -> Callable[..., Any]:
    """``fn`` taking CuPy's ``plan`` (by keyword, or at ``position``), which changes
    nothing here."""
    def call(*args: Any, **kwargs: Any) -> Any:
        plan = kwargs.pop("plan", None)
        if position is not None and len(args) > position:
            plan, args = args[position], args[:position]
        if plan is not None and not isinstance(plan, Plan1d):
            raise ValueError(f"plan must be a cuFFT plan, not {type(plan).__name__}")
        return fn(*args, **kwargs)
    call.__name__ = call.__qualname__ = getattr(fn, "__name__", "fft")
    call.__doc__ = fn.__doc__
    return call


def _types_2_and_3(fn: Callable[..., Any], what: str) -> Callable[..., Any]:
    """``fn`` (a DCT or DST) refusing the types CuPy has not implemented."""
    def call(x: Any, type: int = 2, *args: Any, **kwargs: Any) -> Any:
        if type in (1, 4):
            raise NotImplementedError(f"Only {what}-II and {what}-III have been implemented.")
        if type not in (2, 3):
            raise ValueError(f"invalid {what} type")
        return fn(x, type, *args, **kwargs)
    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


def _overrides() -> dict[str, Callable[..., Any]]:
    try:
        import scipy.fft
        import scipy.fftpack
    except ImportError:  # the modules say so at their first call (cpu.py)
        return {}
    out: dict[str, Callable[..., Any]] = {
        "cupyx.scipy.fft.get_fft_plan": get_fft_plan,
        "cupyx.scipy.fftpack.get_fft_plan": get_fft_plan,
    }
    for name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
                 "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn",
                 "ihfftn"):
        out[f"cupyx.scipy.fft.{name}"] = _taking_plan(getattr(scipy.fft, name), None)
    for name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft"):
        out[f"cupyx.scipy.fftpack.{name}"] = _taking_plan(getattr(scipy.fftpack, name), 4)
    for name in ("dct", "idct", "dctn", "idctn"):
        out[f"cupyx.scipy.fft.{name}"] = _types_2_and_3(getattr(scipy.fft, name), "DCT")
    for name in ("dst", "idst", "dstn", "idstn"):
        out[f"cupyx.scipy.fft.{name}"] = _types_2_and_3(getattr(scipy.fft, name), "DST")
    return out


class PlanCache:
    """``cupy.fft._cache.PlanCache`` on the CPU backend, whose transforms (NumPy's and
    SciPy's) make no cuFFT plans: the settings and checks are CuPy's, and the cache is
    always empty (no hits, no misses).

    See Also
    --------
    cupy.fft._cache.PlanCache
    """

    def __init__(self, size: int = 16, memsize: int = -1, dev: int = 0) -> None:
        self._validate(size, memsize)
        self.size, self.memsize, self.dev = size, memsize, dev

    @staticmethod
    def _validate(size: int, memsize: int) -> None:
        if size < -1 or memsize < -1:
            raise ValueError("invalid input")

    def set_size(self, size: int) -> None:
        self._validate(size, self.memsize)
        self.size = size

    def get_size(self) -> int:
        return self.size

    def get_curr_size(self) -> int:
        return 0

    def set_memsize(self, memsize: int) -> None:
        self._validate(self.size, memsize)
        self.memsize = memsize

    def get_memsize(self) -> int:
        return self.memsize

    def get_curr_memsize(self) -> int:
        return 0

    def clear(self) -> None:
        return None

    def __repr__(self) -> str:  # CuPy's words (cupy/fft/_cache.pyx)
        return ("------------------- cuFFT plan cache (device {}) -------------------\n"
                "cache enabled? {}\n"
                "current / max size   : 0 / {} (counts)\n"
                "current / max memsize: 0 / {} (bytes)\n"
                "hits / misses: 0 / 0 (counts)\n"
                "\ncached plans (most recently used first):\n").format(
            self.dev, self.size != 0 and self.memsize != 0,
            "(unlimited)" if self.size == -1 else self.size,
            "(unlimited)" if self.memsize == -1 else self.memsize)


#: the one device's cache (a session's worker serves it alone)
_PLAN_CACHE: list = []


def get_plan_cache() -> PlanCache:
    """See Also: cupy.fft.config.get_plan_cache"""
    if not _PLAN_CACHE:
        _PLAN_CACHE.append(PlanCache())
    return _PLAN_CACHE[0]


#: what a client may call on a plan cache (both backends)
PLAN_CACHE_MEMBERS = frozenset({"set_size", "get_size", "get_curr_size", "set_memsize",
                                "get_memsize", "get_curr_memsize", "clear", "__repr__"})

FFT_OVERRIDES = _overrides()
FFT_OVERRIDES["cupy.fft.config.get_plan_cache"] = get_plan_cache
