"""gpushare's ``cupyx``: CuPy's extensions, run on the server."""
from __future__ import annotations

import contextlib
import math
import sys
import threading
import warnings
from typing import Any

import numpy

from .. import _public
from ..cupy import _export_table, _remote
from ..cupy._ufunc import ufunc as _ufunc

#: ``1 / sqrt(x)``; its loops are numpy.sqrt's (e f d F D), so its result's layout is
#: inferred here as sqrt's and the call is pipelined
rsqrt = _ufunc("rsqrt", "cupyx", numpy_ufunc=numpy.sqrt)
rsqrt.__name__ = rsqrt.name = "cupy_rsqrt"  # (CuPy's kernel name)

_export_table(sys.modules[__name__], "cupyx", numpy, {"rsqrt": rsqrt})


_config = threading.local()
_server_has_seterr = True


def geterr() -> dict:
    """The error handling in effect (CuPy's: only ``linalg`` is configurable).

    See Also
    --------
    cupyx.geterr
    """
    return {"divide": None, "over": None, "under": None, "invalid": None,
            "linalg": getattr(_config, "linalg", "ignore")}


def seterr(*, divide: Any = None, over: Any = None, under: Any = None, invalid: Any = None,
           linalg: Any = None) -> dict:
    """Set how errors are handled; returns the previous settings.

    ``linalg='raise'`` makes linear-algebra routines raise ``LinAlgError`` on
    singular input (the setting is sent to the server, where they run).

    See Also
    --------
    cupyx.seterr
    """
    global _server_has_seterr
    old_state = geterr()
    if divide is not None or over is not None or under is not None or invalid is not None:
        raise NotImplementedError()
    if linalg is not None:
        if linalg not in ("ignore", "raise"):
            raise NotImplementedError()
        if linalg != old_state["linalg"] and _server_has_seterr:
            from .. import client
            session = client.get_session()
            if session.__dict__.get("_gs_seterr_served"):  # (queued: nothing can fail)
                session.submit("call", "cupyx.seterr", (), {"linalg": linalg},
                               description="cupyx.seterr")
            else:
                try:
                    session.call("call", "cupyx.seterr", (), {"linalg": linalg})
                    session.__dict__["_gs_seterr_served"] = True
                except (NotImplementedError, AttributeError):
                    _server_has_seterr = False  # an older server: the setting stays local
        _config.linalg = linalg
    return old_state


@contextlib.contextmanager
def errstate(*, divide: Any = None, over: Any = None, under: Any = None, invalid: Any = None,
             linalg: Any = None) -> Any:
    """Context manager for error handling (see :func:`seterr`).

    See Also
    --------
    cupyx.errstate
    """
    old_state = seterr(divide=divide, over=over, under=under, invalid=invalid, linalg=linalg)
    try:
        yield
    finally:
        seterr(**old_state)


def _pinned_shape(a: Any, shape: Any) -> tuple:
    if shape is None and a is not None:
        return tuple(a.shape)
    if isinstance(shape, int):
        return (shape,)
    return tuple(shape)


def _pinned_buffer(shape: tuple, dtype: Any) -> Any:
    """Page-aligned host memory for ``shape`` (``cupy.cuda.alloc_pinned_memory``): the
    array's ``base`` is its ``PinnedMemoryPointer``, as in CuPy."""
    from ..cupy import cuda
    return cuda.alloc_pinned_memory(math.prod(shape) * numpy.dtype(dtype).itemsize)


def empty_pinned(shape: Any, dtype: Any = float, order: str = "C") -> numpy.ndarray:
    """A new NumPy array in pinned host memory (host memory of this machine).

    See Also
    --------
    cupyx.empty_pinned
    """
    shape = _pinned_shape(None, shape)
    return numpy.ndarray(shape, dtype=dtype, buffer=_pinned_buffer(shape, dtype), order=order)


def empty_like_pinned(a: Any, dtype: Any = None, order: str = "K", subok: Any = None,
                      shape: Any = None) -> numpy.ndarray:
    """A new NumPy array in pinned host memory, with ``a``'s shape and layout.

    See Also
    --------
    cupyx.empty_like_pinned
    """
    if subok is not None:
        raise TypeError("subok is not supported yet")
    if dtype is None:
        dtype = a.dtype
    shape = _pinned_shape(a, shape)
    order = order.upper()
    if order not in ("C", "F", "K", "A"):
        raise ValueError(f"order not understood: {order}")
    strides = None
    c_contiguous, f_contiguous = a.flags.c_contiguous, a.flags.f_contiguous
    if order == "K" and len(shape) != a.ndim:
        order = "C"
    elif order == "A":
        order = "F" if f_contiguous and not c_contiguous else "C"
    elif order == "K" and c_contiguous:
        order = "C"
    elif order == "K" and f_contiguous:
        order = "F"
    elif order == "K":  # CuPy's _get_strides_for_order_K: a's axes by stride, packed
        stride, strides_list = numpy.dtype(dtype).itemsize, [0] * a.ndim
        for _, i in sorted((abs(st), -i) for i, st in enumerate(a.strides)):
            strides_list[-i] = stride
            stride *= shape[-i]
        strides, order = tuple(strides_list), "C"
    return numpy.ndarray(shape, dtype=dtype, buffer=_pinned_buffer(shape, dtype),
                         strides=strides, order=order)


def zeros_pinned(shape: Any, dtype: Any = float, order: str = "C") -> numpy.ndarray:
    """See Also: cupyx.zeros_pinned"""
    out = empty_pinned(shape, dtype, order)
    numpy.copyto(out, 0, casting="unsafe")
    return out


def zeros_like_pinned(a: Any, dtype: Any = None, order: str = "K", subok: Any = None,
                      shape: Any = None) -> numpy.ndarray:
    """See Also: cupyx.zeros_like_pinned"""
    out = empty_like_pinned(a, dtype, order, subok, shape)
    numpy.copyto(out, 0, casting="unsafe")
    return out


class DeviceSynchronized(RuntimeError):
    """Raised when device synchronization is detected while disallowed.

    See Also
    --------
    cupyx.DeviceSynchronized
    """

    def __init__(self, message: Any = None) -> None:
        if message is None:
            message = "Device synchronization was detected while disallowed."
        super().__init__(message)


@contextlib.contextmanager
def allow_synchronize(allow: bool) -> Any:
    """Allow or forbid device synchronization in the current thread for the block:
    where CuPy would synchronize (a copy to the host, ``Device.synchronize()``),
    :class:`DeviceSynchronized` is raised (``cupy._ndarray.declare_synchronize``).

    See Also
    --------
    cupyx.allow_synchronize
    """
    from ..cupy._ndarray import SYNC_STATE
    warnings.warn("cupyx.allow_synchronize will be removed in future releases as it is not "
                  "possible to reliably detect synchronizations.")
    old = getattr(SYNC_STATE, "allowed", True)
    SYNC_STATE.allowed = allow
    try:
        yield
    finally:
        SYNC_STATE.allowed = old


class _RuntimeInfo:
    """What ``cupyx.get_runtime_info`` reports: CuPy's version (the one gpushare
    mirrors), and the gpushare session, server and backend serving this program."""

    def __init__(self, full: bool = True) -> None:
        from .. import __version__, client
        from ..cupy import __version__ as cupy_version, cuda
        s = client.get_session()
        self.cupy_version = cupy_version
        self.gpushare_version = __version__
        self.server, self.backend, self.session = s.address, s.backend, s.session_id
        self.cuda_runtime_version = self.cuda_driver_version = None
        if full:
            try:
                self.cuda_runtime_version = cuda.runtime.runtimeGetVersion()
                self.cuda_driver_version = cuda.runtime.driverGetVersion()
            except Exception as exc:  # noqa: BLE001 (reported, as CuPy does)
                self.cuda_runtime_version = f"{type(exc).__name__}: {exc}"

    def __str__(self) -> str:
        rows = [("OS", sys.platform), ("Python Version", sys.version.split()[0]),
                ("CuPy Version", self.cupy_version),
                ("gpushare Version", self.gpushare_version),
                ("gpushare Server", self.server), ("gpushare Backend", self.backend),
                ("gpushare Session", self.session),
                ("CUDA Runtime Version (server)", self.cuda_runtime_version),
                ("CUDA Driver Version (server)", self.cuda_driver_version)]
        return "".join(f"{k:<32}: {v}\n" for k, v in rows)


def get_runtime_info(*, full: bool = True) -> _RuntimeInfo:
    """The runtime information: CuPy's version, and the gpushare session and server
    this program runs on (``str()`` of it is a table, as CuPy's).

    See Also
    --------
    cupyx.get_runtime_info
    """
    return _RuntimeInfo(full=full)


from ..cupy import _unsupported  # noqa: E402

GeneralizedUFunc = _unsupported.cls("cupyx.GeneralizedUFunc",
                                    "its Python function cannot run on the server")

def scatter_add(a: Any, slices: Any, value: Any) -> None:
    """Adds given values to specified elements of an array (on the server; queued
    where nothing in the call can fail: ``cupy.add.at``'s terms, which CuPy's
    ``ndarray.scatter_add`` runs after its deprecation warning).

    See Also
    --------
    cupyx.scatter_add
    """
    from ..cupy._ufunc import add_at_queued
    if add_at_queued(a, slices, value, warn=True):
        return None
    return _remote_scatter_add(a, slices, value)


_remote_scatter_add = _remote("cupyx.scatter_add")
scatter_max = _remote("cupyx.scatter_max")
scatter_min = _remote("cupyx.scatter_min")


def __getattr__(name: str) -> Any:
    if name in ("scipy", "linalg", "optimizing", "profiler", "time", "jit", "signal",
                "lapack"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'cupyx' has no attribute '{name}'")


# (says its name is CuPy's; its functions pickle as themselves)
_public.make_public(sys.modules[__name__])
