"""``cupyx.scipy.fft``'s client side.

- The module is a backend of ``scipy.fft`` (uarray's protocol), as CuPy's is:
  ``with scipy.fft.set_backend(cupyx.scipy.fft): scipy.fft.fft(x)`` runs gpushare's
  ``fft`` on the server for a device array ``x`` (and copies a host array there first,
  when SciPy asks to coerce). SciPy calls the three ``__ua_*__`` names; the client
  imports nothing of SciPy.
- ``next_fast_len`` is CuPy's (cuFFT's fast sizes: 2, 3, 5 and 7; SciPy's has 11 too),
  computed here: it needs no device.
"""
from __future__ import annotations

import functools
import math
import types
from typing import Any

import numpy

from ...cupy.cuda import cufft  # noqa: F401  (its plan classes: get_fft_plan's results)

#: the ``scipy.fft`` functions CuPy implements (``_implements`` in CuPy's ``_fft.py``
#: and ``_realtransforms.py``), run by the module's function of the same name
IMPLEMENTED = frozenset((
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
    "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fht", "ifht",
    "dct", "dst", "idct", "idst", "dctn", "idctn", "dstn", "idstn"))


@functools.lru_cache(maxsize=None)
def _next_fast_len_impl(n: int, primes: tuple) -> Any:
    if len(primes) == 0:
        return math.inf
    if n == 1:
        return 1
    p = primes[0]
    return min(_next_fast_len_impl((n + p - 1) // p, primes) * p,
               _next_fast_len_impl(n, primes[1:]))


def next_fast_len(target: int, real: bool = False) -> int:
    """The smallest size of at least ``target`` that cuFFT transforms fast (its prime
    factors are 2, 3, 5 and 7). ``real`` is for SciPy's interface and changes nothing.

    See Also
    --------
    cupyx.scipy.fft.next_fast_len
    """
    if target == 0:
        return 0
    return _next_fast_len_impl(target, (2, 3, 5, 7))


def install(mod: types.ModuleType) -> None:
    """Give ``mod`` (gpushare's ``cupyx.scipy.fft``) uarray's three names and
    ``next_fast_len``."""
    def __ua_convert__(dispatchables: Any, coerce: bool) -> Any:
        from ... import cupy
        if coerce:
            try:
                replaced = [cupy.asarray(d.value) if d.coercible and d.type is numpy.ndarray
                            else d.value for d in dispatchables]
            except TypeError:
                return NotImplemented
        else:
            replaced = [d.value for d in dispatchables]
        if not all(d.type is not numpy.ndarray or isinstance(r, cupy.ndarray)
                   for r, d in zip(replaced, dispatchables)):
            return NotImplemented
        return replaced

    def __ua_function__(method: Any, args: tuple, kwargs: dict) -> Any:
        name = getattr(method, "__name__", None)
        if name not in IMPLEMENTED or \
                not getattr(method, "__module__", "").startswith("scipy.fft"):
            return NotImplemented
        return getattr(mod, name)(*args, **kwargs)

    mod.__ua_domain__ = "numpy.scipy.fft"
    mod.__ua_convert__ = __ua_convert__
    mod.__ua_function__ = __ua_function__
    next_fast_len.__module__ = "cupyx.scipy.fft"
    mod.next_fast_len = next_fast_len
