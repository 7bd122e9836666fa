"""``cupy._util``, private in CuPy: the warning class programs and CuPy's tests filter."""
from __future__ import annotations

from ..errors import PerformanceWarning

__all__ = ["PerformanceWarning"]

import atexit as _atexit
import functools as _functools
from typing import Any as _Any, Callable as _Callable

#: the memo of every function decorated by :func:`memoize` (``clear_memo`` empties them)
_memos: list = []


def memoize(for_each_device: bool = False) -> _Callable[[_Callable], _Callable]:
    """Makes a function memoizing the result for each argument and device.

    CuPy's: the key is the positional arguments (and the keyword arguments, when
    given), plus the current device when ``for_each_device`` is true; a result is
    computed once per key and kept until :func:`clear_memo`.
    """
    def decorator(f: _Callable) -> _Callable:
        memo: dict = {}
        _memos.append(memo)

        @_functools.wraps(f)
        def ret(*args: _Any, **kwargs: _Any) -> _Any:
            dev = -1
            if for_each_device:
                from .cuda import runtime
                dev = runtime.getDevice()
            if kwargs:
                arg_key: _Any = (dev, args, frozenset(kwargs.items()))
            else:
                arg_key = (dev, args)
            result = memo.get(arg_key, memo)
            if result is memo:
                result = f(*args, **kwargs)
                result = memo.setdefault(arg_key, result)
            return result

        return ret

    return decorator


@_atexit.register
def clear_memo() -> None:
    """Clears the memoized results for all functions decorated by memoize."""
    for memo in _memos:
        memo.clear()

import os as _os

#: CuPy's ``__cuda_array_interface__`` settings (``CUPY_CUDA_ARRAY_INTERFACE_*``)
CUDA_ARRAY_INTERFACE_SYNC = bool(int(_os.environ.get("CUPY_CUDA_ARRAY_INTERFACE_SYNC", 1)))
CUDA_ARRAY_INTERFACE_EXPORT_VERSION = int(
    _os.environ.get("CUPY_CUDA_ARRAY_INTERFACE_EXPORT_VERSION", 3))


def experimental(api_name: str) -> None:
    """CuPy's FutureWarning for an experimental API (silenced by
    ``cupy.disable_experimental_feature_warning``)."""
    import warnings

    from .. import cupy as _cupy
    if not _cupy.disable_experimental_feature_warning:
        warnings.warn(f"{api_name} is experimental. The interface can change in the future.",
                      FutureWarning, stacklevel=3)
