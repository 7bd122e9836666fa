"""``cupy.fft``: every public function runs on the server; the 1-D transforms along
the last axis of a C-contiguous array, and the n-d ones over their default 2 or 3 axes,
pipeline (``_routines.ffts``)."""
from __future__ import annotations

import contextvars
import sys
import warnings
from typing import Any

import numpy
import numpy.fft

from .. import _export_table, _remote, _routines, _util
from .._objects import RemoteObjectProxy as _RemoteObjectProxy

# fft, ifft, rfft and irfft along the last axis, fft2/fftn and kin over their default
# axes, pipeline (``_routines.ffts``)
_export_table(sys.modules[__name__], "cupy.fft", numpy.fft, _routines.ffts(_remote))


class _FFTConfig:
    """``cupy.fft.config``: plan caches live on the server; the settings are kept here
    so programs that read or set them run unchanged (after CuPy 14.2's _config.py).

    See Also
    --------
    cupy.fft.config
    """

    _enable_nd_planning = contextvars.ContextVar("cupy.fft.config.enable_nd_planning",
                                                 default=True)
    _use_multi_gpus = contextvars.ContextVar("cupy.fft.config.use_multi_gpus", default=False)
    _devices = contextvars.ContextVar("cupy.fft.config.devices", default=None)

    @property
    def enable_nd_planning(self) -> bool:
        warnings.warn("enable_nd_planning is deprecated as of CuPy 14 and will always be True "
                      "in the future.", DeprecationWarning, stacklevel=2)
        return self._enable_nd_planning.get()

    @enable_nd_planning.setter
    def enable_nd_planning(self, value: bool) -> None:
        warnings.warn("enable_nd_planning is deprecated as of CuPy 14 and will always be True "
                      "in the future.", DeprecationWarning, stacklevel=2)
        self._enable_nd_planning.set(value)

    @property
    def use_multi_gpus(self) -> bool:
        return self._use_multi_gpus.get()

    @use_multi_gpus.setter
    def use_multi_gpus(self, value: Any) -> None:
        self._use_multi_gpus.set(bool(value))

    @property
    def devices(self) -> Any:
        return self._devices.get() if self._use_multi_gpus.get() else None

    def set_cufft_gpus(self, gpus: Any) -> None:
        devs = list(range(gpus)) if isinstance(gpus, int) else list(gpus)
        if len(devs) <= 1:
            raise ValueError("Must use at least 2 GPUs.")
        self._devices.set(tuple(devs))

    @staticmethod
    def get_plan_cache() -> "PlanCache":
        """The cuFFT plan cache of the server's device (the thread that serves this
        session: CuPy's caches are per thread and device).

        See Also
        --------
        cupy.fft.config.get_plan_cache
        """
        from .. import _objects
        return _objects.create(PlanCache, "cupy.fft.config.get_plan_cache", "PlanCache")

    def clear_plan_cache(self) -> None:
        _util.experimental("cupy.fft.cache.clear_plan_cache")
        self.get_plan_cache().clear()

    def get_plan_cache_size(self) -> int:
        _util.experimental("cupy.fft.cache.get_plan_cache_size")
        return self.get_plan_cache().get_size()

    def set_plan_cache_size(self, size: int) -> None:
        _util.experimental("cupy.fft.cache.set_plan_cache_size")
        self.get_plan_cache().set_size(size)

    def get_plan_cache_max_memsize(self) -> int:
        _util.experimental("cupy.fft.cache.get_plan_cache_max_memsize")
        return self.get_plan_cache().get_memsize()

    def set_plan_cache_max_memsize(self, size: int) -> None:
        _util.experimental("cupy.fft.cache.set_plan_cache_max_memsize")
        self.get_plan_cache().set_memsize(size)

    def show_plan_cache_info(self) -> None:
        """The caches of this session's one device (CuPy prints every device's of the
        calling thread)."""
        print("=============== cuFFT plan cache info (all devices) ===============")
        self.get_plan_cache().show_info()
        print()

    @staticmethod
    def get_current_callback_manager(*args: Any, **kwargs: Any) -> None:
        return None

    @staticmethod
    def set_cufft_callbacks(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("gpushare: cuFFT callbacks are not supported")


class PlanCache(_RemoteObjectProxy):
    """``cupy.fft._cache.PlanCache``: a cuFFT plan cache of the server's, reached by
    handle (its plans stay there).

    See Also
    --------
    cupy.fft._cache.PlanCache
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("gpushare: a plan cache lives on the server; use "
                        "cupy.fft.config.get_plan_cache()")

    def _get(self, name: str, *args: Any) -> Any:
        return self._gs_session.call("method", name, (self, *args))

    def set_size(self, size: int) -> None:
        self._get("set_size", _index(size))

    def get_size(self) -> int:
        return int(self._get("get_size"))

    def get_curr_size(self) -> int:
        return int(self._get("get_curr_size"))

    def set_memsize(self, memsize: int) -> None:
        self._get("set_memsize", _index(memsize))

    def get_memsize(self) -> int:
        return int(self._get("get_memsize"))

    def get_curr_memsize(self) -> int:
        return int(self._get("get_curr_memsize"))

    def clear(self) -> None:
        self._get("clear")

    def show_info(self) -> None:
        print(self)

    def __str__(self) -> str:
        return str(self._get("__repr__"))

    __repr__ = __str__


def _index(value: Any) -> int:
    """A ``Py_ssize_t`` argument, as Cython takes it."""
    import operator
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an "
                        "integer") from None


config = _FFTConfig()
sys.modules[__name__ + ".config"] = config  # type: ignore[assignment]
