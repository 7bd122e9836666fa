"""Backends: what actually holds arrays and runs calls for a session.

Everything above this interface (worker, broker, client) is the same for both:

``cupy``  real device memory and real CuPy, on a GPU (``cupy_backend.py``)
``cpu``   NumPy arrays and the C kernel emulator, mirroring CuPy's semantics (``cpu.py``)
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
from typing import Any, Callable, Protocol


def host_memory() -> tuple[int, int]:
    """This machine's free and total memory in bytes (0, 0 where unknown): the CPU
    backend's device memory."""
    try:
        page = os.sysconf("SC_PAGE_SIZE")
        return os.sysconf("SC_AVPHYS_PAGES") * page, os.sysconf("SC_PHYS_PAGES") * page
    except (ValueError, OSError, AttributeError):
        return 0, 0


def scipy_module(name: str, cupy_module: str) -> Any:
    """The host module ``name`` (SciPy's, mostly) answering ``cupy_module`` (or a path
    in it) on the CPU backend; a server without it says so, as ``NotImplementedError``,
    at the first call that needs it."""
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError:
        raise NotImplementedError(
            f"{cupy_module} needs {name.split('.')[0]} on the CPU backend's server") from None


class Backend(Protocol):
    """The small interface a session worker drives."""

    name: str
    #: backend exception classes -> keys of gpushare.errors.ERROR_CLASSES
    error_keys: dict[type, str]

    def function(self, path: str) -> Callable[..., Any]:
        """The callable CuPy exposes as ``path`` (e.g. ``"cupy.linalg.solve"``)."""

    def method(self, obj: Any, name: str) -> Callable[..., Any]:
        """The bound method ``name`` of a backend object."""

    def get_attribute(self, obj: Any, name: str) -> Any: ...

    def set_attribute(self, obj: Any, name: str, value: Any) -> None: ...

    def getitem(self, obj: Any, key: Any) -> Any: ...

    def setitem(self, obj: Any, key: Any, value: Any) -> None: ...

    def upload(self, host: Any, dtype: Any = None, order: str = "K") -> Any:
        """A new device array holding the numpy array ``host``."""

    def download(self, arr: Any) -> Any:
        """The numpy array holding ``arr``'s data."""

    def empty(self, shape: tuple, dtype: Any, order: str = "C") -> Any:
        """A new uninitialised device array (streamed uploads write into it)."""

    def write_bytes(self, arr: Any, offset: int, data: Any) -> None:
        """Copy the host buffer ``data`` into the contiguous ``arr``'s memory (in its own
        order) at byte ``offset``."""

    def read_bytes(self, arr: Any, offset: int, out: Any) -> None:
        """Copy ``len(out)`` bytes of the contiguous ``arr``'s memory (in its own order)
        from byte ``offset`` into the writable host buffer ``out``."""

    def is_array(self, obj: Any) -> bool: ...

    def normalize(self, result: Any) -> Any:
        """Turn a raw result into what CuPy would return (e.g. 0-d arrays for scalars)."""

    def info(self) -> dict: ...

    def memory(self, op: str, arrays: list) -> Any:
        """Memory-pool queries: ``used_bytes``, ``total_bytes``, ``free_all_blocks``..."""

    def synchronize(self) -> None: ...

    # Optional: ``inplace(path)``, for ``path`` an elementwise ufunc of one or two
    # operands whose calls give new arrays, returns ``into(r, x, y) -> bool``, which
    # computes ``path(x, y)`` (``path(x)``, y None) into ``r`` (one of the operands, an
    # array the executor holds alone) when the result fits it, and says whether it did;
    # None for other paths. The session's executor then computes a chain of operators
    # into one array (``_batch``). The CPU backend has it; without it every result is
    # stored. ``into`` has two attributes for the worker's C runs (``_records.c``):
    # ``ufunc``, the NumPy ufunc it calls, and ``operand(r, value, first)``, what that
    # ufunc takes beside ``r`` for the Python scalar ``value`` (None when the result
    # would not keep r's dtype; for one operand, value None: anything but None if it
    # keeps it).
    #
    # Optional: ``restate_error(exc, arrays)``, the exception to send for ``exc`` (the
    # CPU backend words NumPy's MemoryError as CuPy's OutOfMemoryError, with the bytes
    # ``arrays``, the session's, hold); ``capture``, CUDA graphs emulated (``active``,
    # and ``function``/``run`` wrappers the executor sends every call through while a
    # capture is active: ``cpu_graph.py``); ``capturing()``, whether the current stream
    # captures (the cupy backend's, for downloads).
    #
    # Optional: ``host_bytes(arr)``, the contiguous ``arr``'s bytes (in its own order) as
    # a writable memoryview, for a backend whose arrays live in host memory (the CPU
    # backend): the bulk lane (``lane.py``) then reads uploads into the array and sends
    # downloads from it directly; without it, through ``write_bytes``/``read_bytes``.


def check_view(root_nbytes: int, offset: int, shape: tuple, itemsize: int,
               strides: Any) -> None:
    """Raise ValueError unless a view of ``shape`` (``strides``: None for C order) at byte
    ``offset`` of an allocation of ``root_nbytes`` bytes stays inside it (``ndarray(memptr=)``
    and ``MemoryPointer`` copies: CuPy would read or write past the allocation; a server
    refuses it for both backends alike)."""
    if any(n == 0 for n in shape):
        return
    if strides is None:  # C order: the next size * itemsize bytes
        low, high = offset, offset + math.prod(shape) * itemsize
    else:
        low = offset + sum((n - 1) * st for n, st in zip(shape, strides) if st < 0)
        high = offset + sum((n - 1) * st for n, st in zip(shape, strides) if st > 0) + itemsize
    if low < 0 or high > root_nbytes:
        raise ValueError(f"gpushare: a view of bytes {low}..{high} reaches outside its "
                         f"allocation of {root_nbytes} bytes")


def check_member(remote_types: dict, obj: Any, name: str, call: bool) -> None:
    """Raise CuPy's AttributeError unless a client may reach ``name`` on the server object
    ``obj``: its type must be in ``remote_types`` and ``name`` in its allow-list (an empty
    list: every public name); private names only when listed, and only to call them."""
    allowed = remote_types.get(type(obj).__name__)
    listed = allowed is not None and name in allowed
    if allowed is None or (allowed and not listed) or \
            (name.startswith("_") and not (call and listed)):
        raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")


def cupy_usable() -> bool:
    """True when CuPy imports and sees a GPU (probed in a subprocess, so this process
    never creates a CUDA context)."""
    return _device_count() > 0


_COUNT: list = []  # the probe's answer, once asked


def _device_count() -> int:
    """How many GPUs this machine's CuPy sees (0 without CuPy or a GPU), probed once."""
    if not _COUNT:
        probe = "import cupy; print(cupy.cuda.runtime.getDeviceCount())"
        # without the hook's variables, so that `import cupy` is this machine's CuPy
        from gpushare._hook import environment_without
        env = environment_without()
        try:
            out = subprocess.run([sys.executable, "-c", probe], capture_output=True,
                                 text=True, timeout=120, env=env)
            count = int(out.stdout.strip()) if out.returncode == 0 else 0
        except (OSError, subprocess.TimeoutExpired, ValueError):
            count = 0
        _COUNT.append(count)
    return _COUNT[0]


def visible_devices() -> list:
    """The GPUs this machine's CuPy sees, as ``CUDA_VISIBLE_DEVICES`` names them (its
    own entries when it is set, else ``0``..``n-1``; probed in a subprocess, so this
    process never creates a CUDA context); empty when none."""
    listed = os.environ.get("CUDA_VISIBLE_DEVICES")
    if listed is not None:
        return [d.strip() for d in listed.split(",") if d.strip()]
    return [str(i) for i in range(_device_count())]


def resolve_backend_name(name: str) -> str:
    """``auto`` -> ``cupy`` when a GPU is usable, else ``cpu``."""
    name = (name or "auto").lower()
    if name not in ("auto", "cpu", "cupy"):
        raise ValueError(f"unknown backend {name!r}: choose auto, cupy or cpu")
    if name == "auto":
        forced = os.environ.get("GPUSHARE_BACKEND")
        if forced in ("cpu", "cupy"):
            return forced
        return "cupy" if cupy_usable() else "cpu"
    return name


def load_backend(name: str) -> Backend:
    if name == "cpu":
        from .cpu import CpuBackend
        return CpuBackend()
    if name == "cupy":
        from .cupy_backend import CupyBackend
        return CupyBackend()
    raise ValueError(f"unknown backend {name!r}")
