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

from .. import _export_table, _remote, _routines

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
    def get_plan_cache() -> None:
        return None

    @staticmethod
    def clear_plan_cache() -> None:
        return None

    @staticmethod
    def get_plan_cache_size() -> int:
        return 0

    @staticmethod
    def set_plan_cache_size(size: int) -> None:
        return None

    @staticmethod
    def get_plan_cache_max_memsize() -> int:
        return -1

    @staticmethod
    def set_plan_cache_max_memsize(size: int) -> None:
        return None

    @staticmethod
    def show_plan_cache_info() -> None:
        print("gpushare: cuFFT plan caches live on the server")

    @staticmethod
    def get_current_callback_manager(*args: Any, **kwargs: Any) -> None:
        return None

    @staticmethod
    def set_cufft_callbacks(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("gpushare: cuFFT callbacks are not supported")


config = _FFTConfig()
sys.modules[__name__ + ".config"] = config  # type: ignore[assignment]
