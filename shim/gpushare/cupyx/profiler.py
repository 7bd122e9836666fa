"""``cupyx.profiler``: timing helpers for code that runs on the gpushare server.

``benchmark`` times each call on the client's clock (CPU time) and on the server's
device, between two events recorded there around it (GPU time), as CuPy's.
``profile`` and ``time_range`` call the profiler and NVTX hooks of ``cupy.cuda``,
which mark nothing here (profilers run on the server's side).

See Also
--------
cupyx.profiler
"""
from __future__ import annotations

import contextlib
import functools
import math
import time as _clock
import types
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
    """Time ``func(*args, **kwargs)``: the CPU time to return (here, on the client), and
    the GPU time between two events recorded on the server before and after it (CuPy's
    ``_repeat``: ``cupy.cuda.get_elapsed_time`` of the two).

    See Also
    --------
    cupyx.profiler.benchmark
    """
    import numbers
    from gpushare.cupy import cuda
    if name is None:
        name = func.__name__
    if devices is None:
        devices = (0,)
    if not callable(func):
        raise ValueError("`func` should be a callable object.")
    if not isinstance(args, tuple):
        raise ValueError("`args` should be of tuple type.")
    if not isinstance(kwargs, dict):
        raise ValueError("`kwargs` should be of dict type.")
    if not isinstance(n_repeat, int):
        raise ValueError("`n_repeat` should be an integer.")
    if not isinstance(name, str):
        raise ValueError("`name` should be a string.")
    if not isinstance(n_warmup, int):
        raise ValueError("`n_warmup` should be an integer.")
    if not isinstance(max_duration, numbers.Real):
        raise ValueError("`max_duration` should be given in seconds")
    if not isinstance(devices, tuple):
        raise ValueError("`devices` should be of tuple type")
    runtime = cuda.runtime
    for device in devices:  # (CuPy's ``_repeat`` makes each device current in turn)
        previous = runtime.getDevice()
        try:
            runtime.setDevice(device)
        finally:
            runtime.setDevice(previous)
    starts = [cuda.Event() for _ in devices]
    ends = [cuda.Event() for _ in devices]
    for _ in range(n_warmup):
        func(*args, **kwargs)
    for event in starts:
        event.record()
        event.synchronize()
    cpu_times: list = []
    gpu_times: list = [[] for _ in devices]
    duration = 0.0
    for _ in range(n_repeat):
        for event in starts:
            event.record()
        t1 = _clock.perf_counter()
        func(*args, **kwargs)
        t2 = _clock.perf_counter()
        cpu_times.append(t2 - t1)
        for event in ends:
            event.record()
        for event in ends:
            event.synchronize()
        for i, (ev1, ev2) in enumerate(zip(starts, ends)):
            gpu_times[i].append(cuda.get_elapsed_time(ev1, ev2) * 1e-3)
        duration += _clock.perf_counter() - t1
        if duration > max_duration:
            break
    ts = numpy.asarray([cpu_times] + gpu_times, dtype=numpy.float64)
    return _PerfCaseResult(name, ts, devices)


@contextlib.contextmanager
def profile() -> Any:
    """Accepted so programs run unchanged; profiling happens on the server's side."""
    yield


class time_range:
    """An NVTX range around a block or a function (CuPy's class: ``cupy.cuda.nvtx``'s
    ``RangePush``/``RangePushC`` and ``RangePop``, which mark nothing here).

    See Also
    --------
    cupyx.profiler.time_range
    """

    def __init__(self, message: Any = None, color_id: Any = None, argb_color: Any = None,
                 sync: bool = False) -> None:
        from ..cupy import cuda
        if not cuda.nvtx.available:
            raise RuntimeError("nvtx is not installed")
        if color_id is not None and argb_color is not None:
            raise ValueError("Only either color_id or argb_color can be specified")
        self.message = message
        self.color_id = color_id if color_id is not None else -1
        self.argb_color = argb_color
        self.sync = sync

    def __enter__(self) -> "time_range":
        from ..cupy import cuda
        if self.message is None:
            raise ValueError("when used as a context manager, the message argument cannot "
                             "be None")
        if self.sync:
            cuda.runtime.deviceSynchronize()
        if self.argb_color is not None:
            cuda.nvtx.RangePushC(self.message, self.argb_color)
        else:
            cuda.nvtx.RangePush(self.message, self.color_id)
        return self

    def __exit__(self, *exc: Any) -> None:
        from ..cupy import cuda
        if self.sync:
            cuda.runtime.deviceSynchronize()
        cuda.nvtx.RangePop()

    def __call__(self, func: Any) -> Any:
        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            if self.message is None:
                self.message = func.__name__
            with self:
                return func(*args, **kwargs)
        return inner


#: CuPy's private ``cupyx.profiler._time`` module, where ``benchmark`` and its result
#: class live (programs and CuPy's tests reach them there)
_time = types.SimpleNamespace(benchmark=benchmark, _PerfCaseResult=_PerfCaseResult)
