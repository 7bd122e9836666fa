"""gpushare's ``cupyx.scipy``: each submodule forwards its public functions to the server.

``interpolate``'s classes and ``spatial``'s ``KDTree``/``Delaunay`` are served as objects on
the server (``namespace.SERVED_CLASSES``): constructing one, calling it and its methods
are calls; its attributes are read from the server. The other classes (sparse matrices,
LTI systems, CZT plans) are not served yet: each exists and raises
``NotImplementedError`` when constructed.
"""
from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any

import numpy

from ...cupy import _export_table, _objects, _unsupported
from ...namespace import SERVED_CLASSES, SERVED_MODULES, module_names

#: as CuPy's: whether this machine has SciPy (CuPy's tests compare against it); looked
#: up, not imported (the client stays light)
_scipy_available = importlib.util.find_spec("scipy") is not None

_SUBMODULES = ("special", "ndimage", "linalg", "signal", "signal.windows", "sparse", "stats",
               "fft", "fftpack", "interpolate", "spatial", "spatial.distance")

#: why each module's classes are not served
_NO_CLASSES = {
    "sparse": "sparse matrices are not served yet",
    "signal": "LTI system and CZT objects are not served yet; the functions are",
    "spatial.distance": "only the distance functions are served",
}


def _served_class(module: str, name: str, made: dict[str, type]) -> type:
    """The client's class for ``SERVED_CLASSES[name]``: instances are handles of server
    objects (see ``cupy/_objects.py``)."""
    if name in made:
        return made[name]
    parent, methods, _ = SERVED_CLASSES[name]
    base = _served_class(module, parent, made) if parent else _objects.RemoteObjectProxy
    path = f"{module}.{name}"
    method_names = frozenset(methods)

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        return _objects.create(cls, path, name, *args, **kwargs)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        return self._call("__call__", *args, **kwargs)

    def __getattr__(self: Any, attr: str) -> Any:
        if attr.startswith("_"):
            raise AttributeError(attr)
        if attr in method_names:
            return _objects._BoundRemoteMethod(self, attr)
        return self._gs_session.call("getattr", attr, (self,))

    cls = type(name, (base,), {
        "__slots__": (), "__new__": __new__, "__init__": __init__, "__call__": __call__,
        "__getattr__": __getattr__, "__module__": module,
        "__doc__": f"{path}, an object on the gpushare server.\n\nSee Also\n--------\n{path}"})
    made[name] = _objects.register(name)(cls)
    return cls


def _make(name: str) -> types.ModuleType:
    full = f"{__name__}.{name}"
    cupy_module = f"cupyx.scipy.{name}"
    mod = types.ModuleType(full, f"{cupy_module}, run on the gpushare server.")
    _export_table(mod, cupy_module, numpy, {})
    made: dict[str, type] = {}
    for cls, kind in module_names(cupy_module).items():
        if kind == "class" and SERVED_MODULES.get(cls) == cupy_module:
            setattr(mod, cls, _served_class(cupy_module, cls, made))
        elif kind == "class":
            setattr(mod, cls, _unsupported.cls(f"{cupy_module}.{cls}",
                                               _NO_CLASSES.get(name, "not served yet")))
    if name == "sparse":
        mod.issparse = lambda x: False
        mod.SparseWarning = type("SparseWarning", (Warning,), {"__module__": full})
        mod.SparseEfficiencyWarning = type("SparseEfficiencyWarning", (mod.SparseWarning,),
                                           {"__module__": full})
    elif name == "signal":  # a warning, raised by the server's filter design functions
        mod.BadCoefficients = type("BadCoefficients", (UserWarning,), {"__module__": full})
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[f"{__name__}.{parent}"], child, mod)
    sys.modules[full] = mod
    return mod


for _name in _SUBMODULES:
    if "." not in _name:
        globals()[_name] = _make(_name)
    else:
        _make(_name)


def get_array_module(*args: Any) -> Any:
    from ... import cupy
    return cupy.get_array_module(*args)
