"""The private CuPy helpers ``cupyx.signal`` uses, ported to the client.

From CuPy 14.2 (MIT licence, ``../scipy/LICENSE.cupy``): the axis helpers of
``cupyx/scipy/signal/_arraytools.py`` (``axis_slice``, ``axis_reverse``, ``odd_ext``,
``even_ext``, ``const_ext``: each array operation in them is an ordinary gpushare call),
and, in place of ``cupy._util.memoize(for_each_device=True)``, :func:`session_kernel`:
a kernel object belongs to the gpushare session that made it, so it is made once per
session (CuPy's, once per device).
"""
from __future__ import annotations

from typing import Any, Callable

from ... import client as _client
from ... import cupy

#: kernel name -> (the session that made it, the kernel)
_KERNELS: dict[str, tuple[Any, Any]] = {}


def session_kernel(name: str, make: Callable[[], Any]) -> Any:
    """The kernel ``make()`` returns, made once per gpushare session.

    CuPy makes its kernels at import (``ElementwiseKernel``) or memoizes them per device
    (``RawModule``); gpushare's kernel objects are held by the server for the session
    that made them, so they are made on first use in each session.
    """
    session = _client.get_session()
    held = _KERNELS.get(name)
    if held is not None and held[0] is session:
        return held[1]
    kernel = make()
    _KERNELS[name] = (session, kernel)
    return kernel


# --- cupyx/scipy/signal/_arraytools.py ----------------------------------------------------
def axis_slice(a: Any, start: int | None = None, stop: int | None = None,
               step: int | None = None, axis: int = -1) -> Any:
    """Take a slice along axis ``axis`` from ``a``.

    See Also
    --------
    cupyx.scipy.signal._arraytools.axis_slice
    """
    a_slice = [slice(None)] * a.ndim
    a_slice[axis] = slice(start, stop, step)
    return a[tuple(a_slice)]


def axis_reverse(a: Any, axis: int = -1) -> Any:
    """Reverse the 1-D slices of ``a`` along axis ``axis``.

    See Also
    --------
    cupyx.scipy.signal._arraytools.axis_reverse
    """
    return axis_slice(a, step=-1, axis=axis)


def _check_ext(x: Any, n: int, axis: int) -> None:
    if n > x.shape[axis] - 1:
        raise ValueError(("The extension length n (%d) is too big. " +
                          "It must not exceed x.shape[axis]-1, which is %d.")
                         % (n, x.shape[axis] - 1))


def odd_ext(x: Any, n: int, axis: int = -1) -> Any:
    """Odd extension at the boundaries of an array.

    See Also
    --------
    cupyx.scipy.signal._arraytools.odd_ext
    """
    if n < 1:
        return x
    _check_ext(x, n, axis)
    left_end = axis_slice(x, start=0, stop=1, axis=axis)
    left_ext = axis_slice(x, start=n, stop=0, step=-1, axis=axis)
    right_end = axis_slice(x, start=-1, axis=axis)
    right_ext = axis_slice(x, start=-2, stop=-(n + 2), step=-1, axis=axis)
    return cupy.concatenate((2 * left_end - left_ext, x, 2 * right_end - right_ext),
                            axis=axis)


def even_ext(x: Any, n: int, axis: int = -1) -> Any:
    """Even extension at the boundaries of an array.

    See Also
    --------
    cupyx.scipy.signal._arraytools.even_ext
    """
    if n < 1:
        return x
    _check_ext(x, n, axis)
    left_ext = axis_slice(x, start=n, stop=0, step=-1, axis=axis)
    right_ext = axis_slice(x, start=-2, stop=-(n + 2), step=-1, axis=axis)
    return cupy.concatenate((left_ext, x, right_ext), axis=axis)


def const_ext(x: Any, n: int, axis: int = -1) -> Any:
    """Constant extension at the boundaries of an array.

    See Also
    --------
    cupyx.scipy.signal._arraytools.const_ext
    """
    if n < 1:
        return x
    left_end = axis_slice(x, start=0, stop=1, axis=axis)
    ones_shape = [1] * x.ndim
    ones_shape[axis] = n
    ones = cupy.ones(ones_shape, dtype=x.dtype)
    left_ext = ones * left_end
    right_end = axis_slice(x, start=-1, axis=axis)
    right_ext = ones * right_end
    return cupy.concatenate((left_ext, x, right_ext), axis=axis)
