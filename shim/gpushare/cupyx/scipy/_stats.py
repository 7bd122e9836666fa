"""``cupyx.scipy.stats``: CuPy writes each of its functions in CuPy (``scipy_stats.py``
holds them, CuPy 14.2's code), so for device arrays they run here, on the client's
``cupy``, and each step is an ordinary call, pipelined where it can be (``entropy``,
``boxcox_llf``, ``zscore`` need not wait; ``trim_mean``'s ``size`` and ``zmap``'s
``nan_policy='raise'`` test wait as in CuPy). Anything else (a NumPy array, a list, a
device ``lmb``...) is the server's call, which answers as CuPy does (the same code on
the CPU backend, ``backends/cpu_scipy_stats.py``).
"""
from __future__ import annotations

import functools
import types
from typing import Any

from ... import scipy_stats
from ._special import _device


#: name -> the arrays of a call (those that must be device arrays for it to run here)
_ARRAYS = {
    "entropy": lambda pk, qk=None, base=None, axis=0: (pk, qk),
    # (a device lmb: the server's; CuPy compares it, which waits anyway)
    "boxcox_llf": lambda lmb, data: (data,) if type(lmb) in (int, float) else (0,),
    "trim_mean": lambda a, proportiontocut, axis=0: (a,),
    "zscore": lambda a, axis=0, ddof=0, nan_policy="propagate": (a,),
    "zmap": lambda scores, compare, axis=0, ddof=0, nan_policy="propagate":
        (scores, compare),
}


def _on_device(name: str, served: Any) -> Any:
    """``served`` (the server's ``name``), run here as CuPy's Python when the call's
    arrays are all device arrays."""
    arrays = _ARRAYS[name]

    def fn(*args: Any, **kwargs: Any) -> Any:
        try:
            on_device = _device(*arrays(*args, **kwargs))
        except TypeError:  # (a wrong call: the server's, in CuPy's signature's words)
            on_device = False
        if not on_device:
            return served(*args, **kwargs)
        from ... import cupy
        from . import special  # type: ignore[attr-defined]
        return scipy_stats.FUNCTIONS[name](cupy, special, *args, **kwargs)
    functools.update_wrapper(fn, scipy_stats.FUNCTIONS[name], assigned=("__name__",
                                                                       "__qualname__"))
    fn.__doc__ = f"See Also: cupyx.scipy.stats.{name} (CuPy's Python, for device arrays)"
    fn.__module__ = "cupyx.scipy.stats"
    return fn


def install(mod: types.ModuleType) -> None:
    """Put the client's functions in gpushare's ``cupyx.scipy.stats``."""
    for name in _ARRAYS:
        setattr(mod, name, _on_device(name, getattr(mod, name)))
