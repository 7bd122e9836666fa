"""``cupyx.profiler``: timing helpers for code that runs on the gpushare server.

``benchmark`` times each call from the client, waiting for the server to finish
the call's work (``Device.synchronize``); the GPU time reported per repeat is that
same wall time, round trip included (CUDA events on the server cannot time one
call of a pipelined program apart from its transport). ``profile`` and
``time_range`` are accepted and mark nothing (profilers run on the server's side).

See Also
--------
cupyx.profiler
"""
from __future__ import annotations

import contextlib
import math
import time as _time
from typing import Any

import numpy


class _PerfCaseResult:
    """Timing results of :func:`benchmark` (CuPy 14.2's class, MIT licence).

    See Also
    --------
    cupyx.profiler.benchmark
    """

    def __init__(self, name: str, ts: numpy.ndarray, devices: Any) -> None:
        assert ts.ndim == 2
        assert ts.shape[0] == len(devices) + 1
        assert ts.shape[1] > 0
        self.name = name
        self._ts = ts
        self._devices = devices

    def __repr__(self) -> str:
        return self.to_str(show_gpu=True)

    @property
    def cpu_times(self) -> numpy.ndarray:
        return self._ts[0]

    @property
    def gpu_times(self) -> numpy.ndarray:
        return self._ts[1:]

    @staticmethod
    def _to_str_per_item(device_name: str, t: numpy.ndarray) -> str:
        t_us = t * 1e6
        s = "    {}: {:9.03f} us".format(device_name, t_us.mean())
        if t.size > 1:
            s += "   +/- {:6.03f} (min: {:9.03f} / max: {:9.03f}) us".format(
                t_us.std(), t_us.min(), t_us.max())
        return s

    def to_str(self, show_gpu: bool = False) -> str:
        results = [self._to_str_per_item("CPU", self._ts[0])]
        if show_gpu:
            for i, d in enumerate(self._devices):
                results.append(self._to_str_per_item("GPU-{}".format(d), self._ts[1 + i]))
        return "{:<20s}:{}".format(self.name, " ".join(results))

    def __str__(self) -> str:
        return self.to_str(show_gpu=True)


def benchmark(func: Any, args: tuple = (), kwargs: dict = {},  # noqa: B006
              n_repeat: int = 10000, *,
              name: Any = None, n_warmup: int = 10, max_duration: float = math.inf,
              devices: Any = None) -> _PerfCaseResult:
    """Time ``func(*args, **kwargs)``: CPU time to return, and time until the server
    has finished its work.

    See Also
    --------
    cupyx.profiler.benchmark
    """
    from gpushare.cupy import cuda
    if name is None:
        name = func.__name__
    devices = (0,) if devices is None else tuple(devices)
    dev = cuda.Device(0)
    for _ in range(n_warmup):
        func(*args, **kwargs)
    dev.synchronize()
    cpu, gpu = [], []
    start_all = _time.perf_counter()
    for _ in range(n_repeat):
        t0 = _time.perf_counter()
        func(*args, **kwargs)
        t1 = _time.perf_counter()
        dev.synchronize()
        t2 = _time.perf_counter()
        cpu.append(t1 - t0)
        gpu.append(t2 - t0)
        if t2 - start_all >= max_duration:
            break
    ts = numpy.asarray([cpu] + [gpu] * len(devices), dtype=numpy.float64)
    return _PerfCaseResult(name, ts, devices)


@contextlib.contextmanager
def profile() -> Any:
    """Accepted so programs run unchanged; profiling happens on the server's side."""
    yield


class time_range(contextlib.ContextDecorator):
    """NVTX range marker: accepted (as context manager or decorator), marks nothing."""

    def __init__(self, message: Any = None, color_id: Any = None, argb_color: Any = None,
                 sync: bool = False) -> None:
        self.message = message

    def __enter__(self) -> "time_range":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None
