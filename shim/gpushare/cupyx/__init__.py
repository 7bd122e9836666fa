"""gpushare's ``cupyx``: CuPy's extensions, run on the server."""
from __future__ import annotations

import contextlib
import sys
import threading
from typing import Any

import numpy

from ..cupy import _export_table, _remote
from ..cupy._ufunc import ufunc as _ufunc

#: ``1 / sqrt(x)``; its loops are numpy.sqrt's (e f d F D), so its result's layout is
#: inferred here as sqrt's and the call is pipelined
rsqrt = _ufunc("rsqrt", "cupyx", numpy_ufunc=numpy.sqrt)
rsqrt.__name__ = "cupy_rsqrt"

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
            try:
                client.get_session().call("call", "cupyx.seterr", (), {"linalg": linalg})
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


def empty_pinned(shape: Any, dtype: Any = float, order: str = "C") -> numpy.ndarray:
    """Pinned host memory is host memory of this machine: a plain numpy array."""
    return numpy.empty(shape, dtype, order)


def zeros_pinned(shape: Any, dtype: Any = float, order: str = "C") -> numpy.ndarray:
    return numpy.zeros(shape, dtype, order)


def empty_like_pinned(a: Any, dtype: Any = None, order: str = "K", subok: Any = None,
                      shape: Any = None) -> numpy.ndarray:
    return numpy.empty_like(a, dtype, order, subok=True, shape=shape)


def zeros_like_pinned(a: Any, dtype: Any = None, order: str = "K", subok: Any = None,
                      shape: Any = None) -> numpy.ndarray:
    return numpy.zeros_like(a, dtype, order, subok=True, shape=shape)


class DeviceSynchronized(RuntimeError):
    """Raised when a device synchronization happens where it is not allowed.

    See Also
    --------
    cupyx.DeviceSynchronized
    """


@contextlib.contextmanager
def allow_synchronize(allow: bool) -> Any:
    """Allow (the default) or forbid device synchronization in the block.

    Through gpushare every result the client reads is a synchronization with the
    server, so forbidding them cannot be checked: ``allow=False`` is refused.

    See Also
    --------
    cupyx.allow_synchronize
    """
    if not allow:
        raise NotImplementedError("gpushare: cupyx.allow_synchronize(False) is not supported "
                                  "(synchronizations are not tracked per device)")
    yield


def get_runtime_info(full: bool = True) -> str:
    """A description of the gpushare session and its server.

    See Also
    --------
    cupyx.get_runtime_info
    """
    from .. import client
    s = client.get_session()
    return (f"gpushare session {s.session_id}\nServer: {s.address}\n"
            f"Backend: {s.backend}\n")


from ..cupy import _unsupported  # noqa: E402

GeneralizedUFunc = _unsupported.cls("cupyx.GeneralizedUFunc",
                                    "its Python function cannot run on the server")

scatter_add = _remote("cupyx.scatter_add")
scatter_max = _remote("cupyx.scatter_max")
scatter_min = _remote("cupyx.scatter_min")


def __getattr__(name: str) -> Any:
    if name in ("scipy", "linalg", "optimizing", "profiler", "time", "jit"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'cupyx' has no attribute '{name}'")
