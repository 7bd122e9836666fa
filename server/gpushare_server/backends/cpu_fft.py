"""``cupyx.scipy.fft`` and ``cupyx.scipy.fftpack`` on the CPU backend: SciPy's, with
CuPy's differences (after CuPy 14.2, MIT licence, ``LICENSE.cupy``):

- ``get_fft_plan`` checks its arguments as CuPy's does and gives a plan object
  (``Plan1d`` or ``PlanNd``: the kind, the shape and the cuFFT type CuPy would make).
  The transforms take it (``plan=``, or ``with plan:``, which makes it the current
  plan here too) and check it against their array as CuPy's ``_exec_fft`` and
  ``_exec_fftn`` do, in their order and words (``check_plan``); then they give the
  same answers as without one: NumPy's FFTs need no plan.
- The DCT and DST are CuPy's types 2 and 3 only (``NotImplementedError`` for 1 and 4).

``FFT_OVERRIDES`` maps paths to these functions (merged in ``cpu.py``).
"""
from __future__ import annotations

import importlib
import importlib.util
import math
from typing import Any, Callable

import numpy

#: cuFFT's transform types (cupy.cuda.cufft's constants)
_CUFFT_TYPES = {("C2C", "F"): 0x29, ("R2C", "f"): 0x2a, ("C2R", "F"): 0x2c,
                ("C2C", "D"): 0x69, ("R2C", "d"): 0x6a, ("C2R", "D"): 0x6c}


#: the plan the last ``with plan:`` entered, None once one exited (CuPy's
#: ``cufft.get_current_plan``: plans do not nest)
_CURRENT: list = [None]


class _Plan:
    gpus = None  # (no multi-GPU plans)

    def __enter__(self) -> Any:
        _CURRENT[0] = self
        return self

    def __exit__(self, *exc: Any) -> None:
        _CURRENT[0] = None


class Plan1d(_Plan):
    """A cuFFT 1-D plan's description (see module docs): ``fft_type``, ``nx`` (the
    transformed length), ``batch``, as CuPy's ``Plan1d`` has them."""

    def __init__(self, nx: int, fft_type: int, batch: int) -> None:
        self.nx, self.fft_type, self.batch = int(nx), int(fft_type), int(batch)


class PlanNd(_Plan):
    """A cuFFT n-d plan's description, as CuPy's ``PlanNd``: ``shape`` (the plan's
    dimensions), ``fft_type``, ``order``, ``last_axis`` and ``last_size`` (the last
    axis, and its output length for R2C/C2R; None for C2C)."""

    def __init__(self, shape: tuple, fft_type: int, order: str, last_axis: int,
                 last_size: Any) -> None:
        self.shape = tuple(int(n) for n in shape)
        self.fft_type, self.order = int(fft_type), order
        self.last_axis = int(last_axis)
        self.last_size = None if last_size is None else int(last_size)


PLAN_MEMBERS = frozenset({"__enter__", "__exit__", "nx", "fft_type", "batch", "shape",
                          "order", "last_axis", "last_size", "gpus"})

_C2C_TYPES = (0x29, 0x69)
_C2R_TYPES = (0x2c, 0x6c)


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
        for n_, axis in zip(transformed, axes):
            if n_ is not None:
                if axis == axes[-1] and value_type == "C2R":
                    n_ = n_ // 2 + 1
                full[axis] = n_
    out_dtype = _output_dtype(a.dtype, value_type)
    fft_type = _CUFFT_TYPES.get((value_type, out_dtype.char))
    if fft_type is None:
        raise ValueError
    if n > 1 and value_type != "C2C" and a.flags.f_contiguous:
        raise ValueError("C2R/R2C PlanNd for F-order arrays is not supported")
    if n > 1:
        out_size = _out_size(full, transformed, axes[-1], value_type)
        return _plan_nd(tuple(full), fft_type, axes, order, out_size)
    if value_type != "C2R":
        out_size = full[axis1d]
    else:
        out_size = _out_size(full, transformed, axis1d, value_type)
    return Plan1d(out_size, fft_type, math.prod(full) // full[axis1d])


def _out_size(shape: Any, s: Any, last_axis: int, value_type: str) -> Any:
    """CuPy's ``_get_fftn_out_size``."""
    if value_type == "C2R":
        if s is None or s[-1] is None:
            return 2 * (shape[last_axis] - 1)
        return s[-1]
    if value_type == "R2C":
        return shape[last_axis] // 2 + 1
    return None


def _prep_fftn_axes(ndim: int, s: Any = None, axes: Any = None,
                    value_type: str = "C2C") -> tuple:
    """CuPy's ``_prep_fftn_axes``."""
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if axes is None:
        dim = ndim if s is None else len(s)
        axes = tuple(i + ndim for i in range(-dim, 0))
        return axes, axes
    axes = tuple(axes)
    if not axes:
        return (), ()
    if min(axes) < -ndim or max(axes) > ndim - 1:
        raise ValueError("The specified axes exceed the array dimensions.")
    if value_type == "C2C":
        return axes, tuple(sorted(ax % ndim for ax in axes))
    rest = sorted(ax % ndim for ax in axes[:-1])
    return axes, tuple(rest + [axes[-1] % ndim])


def _nd_plan_is_possible(axes_sorted: tuple, ndim: int) -> bool:
    return (0 < len(axes_sorted) <= 3
            and (0 in axes_sorted or (ndim - 1) in axes_sorted)
            and all((axes_sorted[n + 1] - axes_sorted[n]) == 1
                    for n in range(len(axes_sorted) - 1)))


def _plan_nd(shape: tuple, fft_type: int, axes: Any, order: str, out_size: Any) -> PlanNd:
    """CuPy's ``_get_cufft_plan_nd`` (its checks, and the plan it makes)."""
    ndim = len(shape)
    value_type = "C2C" if fft_type in _C2C_TYPES else \
        "C2R" if fft_type in _C2R_TYPES else "R2C"
    if axes is None:
        fft_axes = tuple(range(ndim))
    else:
        _, fft_axes = _prep_fftn_axes(ndim, None, axes, value_type)
    if not _nd_plan_is_possible(fft_axes, ndim):
        raise ValueError(
            "An n-dimensional cuFFT plan could not be created. The axes must "
            "be contiguous and non-repeating. Between one and three axes can "
            "be transformed and either the first or last axis must be "
            "included in axes.")
    if order not in ("C", "F"):
        raise ValueError("order must be 'C' or 'F'")
    in_dimensions = [shape[d] for d in fft_axes]
    if order == "F":
        in_dimensions = in_dimensions[::-1]
    plan_dimensions = list(in_dimensions)
    if value_type == "C2R" and out_size is not None:
        plan_dimensions[-1] = out_size
    for n in plan_dimensions:
        if n < 1:
            raise ValueError("Invalid number of FFT data points specified.")
    return PlanNd(tuple(plan_dimensions), fft_type, order, fft_axes[-1], out_size)


# --- the checks of a plan against its array (CuPy's ``cupy/fft/_fft.py``) -----------------

def _fft_type(dtype: Any, value_type: str) -> int:
    """CuPy's ``_convert_fft_type`` (of the array's dtype after ``_convert_dtype``)."""
    fft_type = _CUFFT_TYPES.get((value_type, numpy.dtype(dtype).char.upper()
                                 if value_type != "R2C" else numpy.dtype(dtype).char))
    if fft_type is None:
        raise ValueError
    return fft_type


def _check_norm(norm: Any) -> None:
    if norm not in ("backward", "ortho", "forward"):
        raise ValueError('Invalid norm value %s, should be "backward", '
                         '"ortho", or "forward".' % norm)


def _exec_fft(shape: list, dtype: Any, value_type: str, axis: int, plan: Any,
              out_size: Any = None) -> tuple:
    """``_exec_fft``'s checks; the output's shape and dtype."""
    fft_type = _fft_type(dtype, value_type)
    n = shape[axis]
    if n < 1:
        raise ValueError("Invalid number of FFT data points (%d) specified." % n)
    if out_size is None:
        out_size = n
    batch = math.prod(shape) // n
    plan = _plan_in_use(plan)
    if plan is not None:
        if not isinstance(plan, Plan1d):
            raise ValueError("expected plan to have type cufft.Plan1d")
        if fft_type != plan.fft_type:
            raise ValueError("cuFFT plan dtype mismatch.")
        if out_size != plan.nx:
            raise ValueError("Target array size does not match the plan.",
                             out_size, plan.nx)
        if batch != plan.batch:
            raise ValueError("Batch size does not match the plan.")
    shape = list(shape)
    dtype = numpy.dtype(dtype)
    if value_type == "R2C":
        shape[axis] = n // 2 + 1
        dtype = numpy.dtype(dtype.char.upper())
    elif value_type == "C2R":
        shape[axis] = out_size
        dtype = numpy.dtype(dtype.char.lower())
    return shape, dtype


def _cook_shape(shape: list, s: Any, axes: Any, value_type: str) -> list:
    if s is None or tuple(s) == tuple(shape):
        return list(shape)
    if value_type == "C2R" and s[-1] is not None:
        s = list(s)
        s[-1] = s[-1] // 2 + 1
    shape = list(shape)
    for sz, axis in zip(s, axes):
        if sz is not None and sz != shape[axis]:
            shape[axis] = sz
    return shape


def _fft_checks(shape: tuple, dtype: Any, s: Any, axes: Any, norm: Any,
                value_type: str, plan: Any) -> None:
    """CuPy's ``_fft`` (batched 1-D transforms) up to its plans' checks."""
    ndim = len(shape)
    if s is not None and axes is not None and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if axes is None:
        dim = ndim if s is None else len(s)
        axes = list(range(-dim, 0))
    else:
        axes = tuple(axes)
    if not axes or ndim == 0 or any(not -ndim <= ax < ndim for ax in axes):
        return  # (the transform itself refuses it, in CuPy's words)
    _check_norm("backward" if norm is None else norm)
    dtype = _output_dtype(numpy.dtype(dtype), value_type)
    shape = _cook_shape(list(shape), s, axes, value_type)
    if value_type == "C2C":
        for axis in axes:
            shape, dtype = _exec_fft(shape, dtype, "C2C", axis, plan)
    elif value_type == "R2C":  # (CuPy passes no plan here: only the current one)
        shape, dtype = _exec_fft(shape, dtype, "R2C", axes[-1], None)
        for axis in axes[:-1]:
            shape, dtype = _exec_fft(shape, dtype, "C2C", axis, None)
    else:
        for axis in axes[:-1]:
            shape, dtype = _exec_fft(shape, dtype, "C2C", axis, None)
        out_size = _out_size(shape, s, axes[-1], "C2R")
        _exec_fft(shape, dtype, "C2R", axes[-1], None, out_size)


def _fftn_checks(a: numpy.ndarray, s: Any, axes: Any, norm: Any, value_type: str,
                 plan: Any) -> None:
    """CuPy's ``_fftn`` (n-d plans) up to its plan's checks; the layouts CuPy's
    copies would have are followed on an uninitialized skeleton of ``a``."""
    _check_norm("backward" if norm is None else norm)
    axes, axes_sorted = _prep_fftn_axes(a.ndim, s, axes, value_type)
    if not axes_sorted:
        return
    dtype = _output_dtype(a.dtype, value_type)
    # (only its layout counts: ``astype``'s, order 'K', or ``a``'s own; never copied)
    x = a if dtype == a.dtype else numpy.empty_like(a, dtype=numpy.bool_)
    if x.flags.f_contiguous:
        order = "F"
    elif x.flags.c_contiguous:
        order = "C"
    else:
        x = numpy.empty(x.shape, numpy.bool_)
        order = "C"
    if s is not None and tuple(s) != x.shape:  # ``_cook_shape``
        sizes = list(s)
        if value_type == "C2R" and sizes[-1] is not None:
            sizes[-1] = sizes[-1] // 2 + 1
        for sz, axis in zip(sizes, axes):
            if sz is not None and sz != x.shape[axis]:
                if x.shape[axis] > sz:
                    index = [slice(None)] * x.ndim
                    index[axis] = slice(0, sz)
                    x = x[tuple(index)]
                else:
                    shape = list(x.shape)
                    shape[axis] = sz
                    x = numpy.empty(shape, numpy.bool_, order=order)
    for n in x.shape:
        if n < 1:
            raise ValueError("Invalid number of FFT data points (%d) specified." % n)
    if order == "C" and not x.flags.c_contiguous:
        x = numpy.empty(x.shape, numpy.bool_)
    elif order == "F" and not x.flags.f_contiguous:
        x = numpy.empty(x.shape, numpy.bool_, order="F")
    out_size = _out_size(x.shape, s, axes_sorted[-1], value_type)
    # ``_exec_fftn``
    fft_type = _fft_type(dtype, value_type)
    order = "C" if x.flags.c_contiguous else "F"
    if _CURRENT[0] is not None:
        plan = _CURRENT[0]
    if plan is None:
        return
    if not isinstance(plan, PlanNd):
        raise ValueError("expected plan to have type cufft.PlanNd")
    if order != plan.order:
        raise ValueError("array orders mismatch (plan: {}, input: {})"
                         .format(plan.order, order))
    if x.flags.c_contiguous:
        expected = [x.shape[ax] for ax in axes_sorted]
        if value_type == "C2R":
            expected[-1] = out_size
    else:
        expected = [x.shape[ax] for ax in axes_sorted[::-1]]
    expected_shape = tuple(expected)
    if expected_shape != plan.shape:
        raise ValueError(
            "The cuFFT plan and a.shape do not match: "
            "plan.shape = {}, expected_shape={}, a.shape = {}".format(
                plan.shape, expected_shape, x.shape))
    if fft_type != plan.fft_type:
        raise ValueError("cuFFT plan dtype mismatch.")
    if value_type != "C2C":
        if axes_sorted[-1] != plan.last_axis:
            raise ValueError("The last axis for R2C/C2R mismatch")
        if out_size != plan.last_size:
            raise ValueError("The size along the last R2C/C2R axis mismatch")


def _plan_in_use(plan: Any) -> Any:
    """``plan``, or the one entered (``with plan:``); CuPy refuses both at once."""
    current = _CURRENT[0]
    if current is None:
        return plan
    if plan is not None:
        raise RuntimeError("Use the cuFFT plan either as a context manager"
                           " or as an argument.")
    return current


def _uses_nd(a: numpy.ndarray, s: Any, axes: Any, plan: Any, value_type: str) -> bool:
    """CuPy's ``_default_fft_func``: whether the n-d path (``_fftn``) runs."""
    plan = _plan_in_use(plan)
    if isinstance(plan, PlanNd):
        return True
    if isinstance(plan, Plan1d) or a.ndim == 1:
        return False
    if a.flags.f_contiguous and value_type != "C2C":
        return False
    _, axes_sorted = _prep_fftn_axes(a.ndim, s, axes, value_type)
    return len(axes_sorted) > 1 and _nd_plan_is_possible(axes_sorted, a.ndim)


def _swap_direction(norm: Any) -> Any:
    if norm in (None, "backward"):
        return "forward"
    if norm == "forward":
        return "backward"
    if norm != "ortho":
        raise ValueError('Invalid norm value %s; should be "backward", '
                         '"ortho", or "forward".' % norm)
    return norm


#: transform name -> (its value type, whether it is n-d, whether it is a Hermitian one
#: CuPy computes through its inverse's complex-to-real or real-to-complex transform)
_TRANSFORMS = {
    "fft": ("C2C", False), "ifft": ("C2C", False), "rfft": ("R2C", False),
    "irfft": ("C2R", False), "hfft": ("C2R", False), "ihfft": ("R2C", False),
    "fft2": ("C2C", True), "ifft2": ("C2C", True), "fftn": ("C2C", True),
    "ifftn": ("C2C", True), "rfft2": ("R2C", True), "rfftn": ("R2C", True),
    "irfft2": ("C2R", True), "irfftn": ("C2R", True), "hfft2": ("C2R", True),
    "hfftn": ("C2R", True), "ihfft2": ("R2C", True), "ihfftn": ("R2C", True),
}


def check_plan(module: str, name: str, a: Any, args: tuple, kwargs: dict,
               plan: Any = None) -> None:
    """The checks CuPy's ``cupy.fft.<name>`` (``module`` ``"cupy.fft"``),
    ``cupyx.scipy.fft.<name>`` or ``cupyx.scipy.fftpack.<name>`` makes of ``plan``
    (or of the current plan) against ``a``, before transforming it; nothing when no
    plan is in play."""
    if plan is None and _CURRENT[0] is None:
        return
    if not isinstance(a, numpy.ndarray) or name not in _TRANSFORMS:
        return
    value_type, nd = _TRANSFORMS[name]
    pack = module.endswith("fftpack")
    params = (("shape" if pack else "s"), "axes") if nd else ("n", "axis")
    given = dict(zip(params + (() if pack else ("norm",)), args))
    given.update({k: v for k, v in kwargs.items() if k in params + ("norm",)})
    norm = given.get("norm")
    if name.startswith(("hfft", "ihfft")):
        norm = _swap_direction(norm)
    if not nd:
        n, axis = given.get("n"), given.get("axis", -1)
        if pack and name == "rfft" and n is None:
            n = a.shape[axis]
        shape, dtype = a.shape, a.dtype
        if pack and name == "irfft":  # (CuPy's packing into a complex array first)
            m = a.shape[axis] if n is None else n
            shape = list(a.shape)
            shape[axis] = m // 2 + 1
            dtype = numpy.complex64 if a.dtype.char in "ef" else numpy.complex128
            n = m
        if module == "cupy.fft" or name.startswith(("hfft", "ihfft")) or \
                (pack and name == "irfft"):
            plan = None  # (no plan argument: only the current plan)
        _fft_checks(tuple(shape), dtype, (n,), (axis,), norm, value_type, plan)
        return
    s = given.get("shape" if pack else "s")
    axes = given.get("axes", (-2, -1) if name.endswith("2") else None)
    if module == "cupy.fft" or name.startswith(("hfft", "ihfft")):
        plan = None
    # (cupyx.scipy.fft chooses the path without its plan, fftpack with it)
    if _uses_nd(a, s, axes, plan if pack else None, value_type):
        _fftn_checks(a, s, axes, norm, value_type, plan)
    else:
        _fft_checks(a.shape, a.dtype, s, axes, norm, value_type, plan)


def _taking_plan(fn: Callable[..., Any], position: int | None,
                 module: str = "cupyx.scipy.fft") -> Callable[..., Any]:
    """``fn`` taking CuPy's ``plan`` (by keyword, or at ``position``), checked against
    its array as CuPy does (``check_plan``); the Hermitian transforms of
    ``cupyx.scipy.fft`` take none."""
    name = getattr(fn, "__name__", "fft")

    def call(*args: Any, **kwargs: Any) -> Any:
        plan = kwargs.pop("plan", None)
        if position is not None and len(args) > position:
            plan, args = args[position], args[:position]
        if plan is not None and name.startswith(("hfft", "ihfft")):
            raise NotImplementedError(f"{name} plan is currently not yet supported")
        if args:
            check_plan(module, name, args[0], args[1:], kwargs, plan)
        return fn(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
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


def _scipy(module: str, name: str) -> Callable[..., Any]:
    """SciPy's ``module.name``, imported at its first call: importing ``scipy.fft`` took
    a third of a second of every worker's start (a session's first call waits for it)."""
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = name
    return call


def _overrides() -> dict[str, Callable[..., Any]]:
    if importlib.util.find_spec("scipy") is None:
        return {}  # the modules say so at their first call (cpu.py)
    out: dict[str, Callable[..., Any]] = {
        "cupyx.scipy.fft.get_fft_plan": get_fft_plan,
        "cupyx.scipy.fftpack.get_fft_plan": get_fft_plan,
    }
    for name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
                 "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn",
                 "ihfftn"):
        out[f"cupyx.scipy.fft.{name}"] = _taking_plan(_scipy("scipy.fft", name), None)
    for name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft"):
        out[f"cupyx.scipy.fftpack.{name}"] = _taking_plan(_scipy("scipy.fftpack", name), 4,
                                                          "cupyx.scipy.fftpack")
    for name in ("dct", "idct", "dctn", "idctn"):
        out[f"cupyx.scipy.fft.{name}"] = _types_2_and_3(_scipy("scipy.fft", name), "DCT")
    for name in ("dst", "idst", "dstn", "idstn"):
        out[f"cupyx.scipy.fft.{name}"] = _types_2_and_3(_scipy("scipy.fft", name), "DST")
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
