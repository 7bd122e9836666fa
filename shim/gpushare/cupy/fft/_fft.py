"""Private helpers of ``cupy.fft`` that programs (and CuPy's tests) reach for.

Plan selection follows CuPy 14.2's ``cupy/fft/_fft.py`` (MIT licence); the transforms
themselves run on the server.
"""
from __future__ import annotations

from functools import reduce as _reduce
from typing import Any


def _fft(a: Any, s: Any, axes: Any, norm: Any, direction: Any, value_type: str = "C2C",
         overwrite_x: bool = False, plan: Any = None) -> Any:
    """Batched 1-D transforms (CuPy's ``_fft``); selected by ``_default_fft_func``."""
    from . import fftn, ifftn
    return (fftn if direction == "FORWARD" else ifftn)(a, s, axes, norm)


def _fftn(a: Any, s: Any, axes: Any, norm: Any, direction: Any, value_type: str = "C2C",
          order: str = "A", plan: Any = None, overwrite_x: bool = False, out: Any = None) -> Any:
    """N-D transforms (CuPy's ``_fftn``); selected by ``_default_fft_func``."""
    from . import fftn, ifftn
    return (fftn if direction == "FORWARD" else ifftn)(a, s, axes, norm)


def _prep_fftn_axes(ndim: int, s: Any = None, axes: Any = None, value_type: str = "C2C") -> tuple:
    if (s is not None) and (axes is not None) and len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    if axes is None:
        dim = ndim if s is None else len(s)
        axes = tuple([i + ndim for i in range(-dim, 0)])
        axes_sorted = axes
    else:
        axes = tuple(axes)
        if not axes:
            return (), ()
        if _reduce(min, axes) < -ndim or _reduce(max, axes) > ndim - 1:
            raise ValueError("The specified axes exceed the array dimensions.")
        if value_type == "C2C":
            axes_sorted = tuple(sorted([ax % ndim for ax in axes]))
        else:
            rest = sorted([ax % ndim for ax in axes[:-1]])
            rest.append(axes[-1] % ndim)
            axes_sorted = tuple(rest)
    return axes, axes_sorted


def _nd_plan_is_possible(axes_sorted: tuple, ndim: int) -> bool:
    return (0 < len(axes_sorted) <= 3
            and (0 in axes_sorted or (ndim - 1) in axes_sorted)
            and all((axes_sorted[n + 1] - axes_sorted[n]) == 1
                    for n in range(len(axes_sorted) - 1)))


def _default_fft_func(a: Any, s: Any = None, axes: Any = None, plan: Any = None,
                      value_type: str = "C2C") -> Any:
    from . import config
    if a.ndim == 1 or not config._enable_nd_planning.get():
        return _fft
    if a.flags.f_contiguous and value_type != "C2C":
        return _fft
    _, axes_sorted = _prep_fftn_axes(a.ndim, s, axes, value_type)
    if len(axes_sorted) > 1 and _nd_plan_is_possible(axes_sorted, a.ndim):
        return _fftn
    return _fft


def _size_last_transform_axis(shape: tuple, s: Any, axes: Any) -> int:
    if s is not None:
        if s[-1] is not None:
            return s[-1]
    elif axes is not None:
        return shape[axes[-1]]
    return shape[-1]
