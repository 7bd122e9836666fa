"""``cupyx.scipy.fft`` as a backend of ``scipy.fft`` (uarray's protocol), as CuPy's is:
``with scipy.fft.set_backend(cupyx.scipy.fft): scipy.fft.fft(x)`` runs gpushare's ``fft``
on the server for a device array ``x`` (and copies a host array there first, when SciPy
asks to coerce). SciPy calls these three names; the client imports nothing of SciPy.
"""
from __future__ import annotations

import types
from typing import Any

import numpy

#: the ``scipy.fft`` functions CuPy implements (``_implements`` in CuPy's ``_fft.py``
#: and ``_realtransforms.py``), run by the module's function of the same name
IMPLEMENTED = frozenset((
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
    "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fht", "ifht",
    "dct", "dst", "idct", "idst", "dctn", "idctn", "dstn", "idstn"))


def install(mod: types.ModuleType) -> None:
    """Give ``mod`` (gpushare's ``cupyx.scipy.fft``) uarray's three names."""
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
