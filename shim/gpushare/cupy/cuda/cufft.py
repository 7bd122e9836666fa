"""``cupy.cuda.cufft``: cuFFT plans live on the server. ``get_fft_plan``
(``cupyx.scipy.fft``, ``cupyx.scipy.fftpack``) makes one there; its proxy here is a
context manager (``with plan:``, entered on the server too, in call order), as CuPy's,
and the plan it enters is what ``get_current_plan`` answers. The classes cannot be
constructed here directly."""
from __future__ import annotations

import contextvars
from typing import Any

from .._objects import RemoteObjectProxy, register

_current: contextvars.ContextVar = contextvars.ContextVar("cupy.cuda.cufft.current_plan",
                                                          default=None)


def getVersion() -> int:
    """The server's cuFFT version (``cufftGetVersion``; 0 on the CPU backend, which has
    no cuFFT).

    See Also
    --------
    cupy.cuda.cufft.getVersion
    """
    from ... import client
    return int(client.get_session().call("call", "cupy.cuda.cufft.getVersion", ()))


def get_current_plan() -> Any:
    """The plan the last ``with plan:`` entered, or None once it exited (CuPy's rule:
    plans do not nest)."""
    return _current.get()


class Plan1d(RemoteObjectProxy):
    """A cuFFT plan on the server (made by ``get_fft_plan``).

    See Also
    --------
    cupy.cuda.cufft.Plan1d
    """

    __slots__ = ()
    # CuPy's readonly attributes (``cufft.pxd``) the server's plan has
    _gs_data = frozenset({"nx", "fft_type", "batch", "gpus"})

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("gpushare: make cuFFT plans with "
                                  "cupyx.scipy.fft.get_fft_plan")

    def __enter__(self) -> Any:
        _current.set(self)
        self._call("__enter__")  # the server's CuPy uses it for cupy.fft's calls too
        return self

    def __exit__(self, *exc: Any) -> None:
        _current.set(None)
        self._call("__exit__", None, None, None)


class PlanNd(Plan1d):
    """See Also: cupy.cuda.cufft.PlanNd"""

    __slots__ = ()
    _gs_data = frozenset({"shape", "fft_type", "order", "last_axis", "last_size", "gpus"})


register("Plan1d")(Plan1d)
register("PlanNd")(PlanNd)
