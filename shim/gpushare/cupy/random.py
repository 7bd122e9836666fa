"""``cupy.random``: the generators live on the server (one per session)."""
from __future__ import annotations

import sys
from typing import Any

import numpy

from . import _export_table, _objects
from ._objects import RemoteObjectProxy

_export_table(sys.modules[__name__], "cupy.random", numpy.random, {})


@_objects.register("RandomState")
class RandomState(RemoteObjectProxy):
    """A random generator on the server.

    See Also
    --------
    cupy.random.RandomState
    """

    __slots__ = ()

    def __new__(cls, seed: Any = None, method: Any = None) -> "RandomState":
        kwargs = {} if method is None else {"method": method}
        return _objects.create(cls, "cupy.random.RandomState", "RandomState", seed, **kwargs)

    def __init__(self, seed: Any = None, method: Any = None) -> None:
        pass
