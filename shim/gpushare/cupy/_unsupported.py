"""Names of CuPy's API that gpushare cannot serve: they exist (so imports and
``hasattr`` work) and raise a clear ``NotImplementedError`` when used, never a
silent wrong answer."""
from __future__ import annotations

import sys
import types
from typing import Any

from .._public import PublicModule, by_reference


def _message(path: str, why: str) -> str:
    return f"gpushare: {path} is not supported ({why})"


def function(path: str, why: str = "it needs direct access to the GPU") -> Any:
    """A function that raises ``NotImplementedError`` when called."""
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(_message(path, why))
    fn.__name__ = fn.__qualname__ = path.rpartition(".")[2]
    fn.__module__ = path.rpartition(".")[0]
    fn.__doc__ = f"Not supported by gpushare ({why}).\n\nSee Also\n--------\n{path}"
    return fn


def cls(path: str, why: str = "it needs direct access to the GPU") -> type:
    """A class whose construction raises ``NotImplementedError``."""
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(_message(path, why))
    name = path.rpartition(".")[2]
    return type(name, (), {"__init__": __init__, "__module__": path.rpartition(".")[0],
                           "__doc__": f"Not supported by gpushare ({why}).\n\nSee Also\n"
                                      f"--------\n{path}"})


def module(fullname: str, doc: str, attrs: dict[str, Any] | None = None,
           functions: tuple = (), classes: tuple = (),
           why: str = "it needs direct access to the GPU") -> types.ModuleType:
    """A module (registered in ``sys.modules``) holding ``attrs`` and unsupported
    ``functions`` and ``classes``; public names follow CuPy's ``cupy.*`` paths."""
    mod = PublicModule(fullname, doc)
    cupy_path = fullname.replace("gpushare.", "", 1)
    for name in functions:
        setattr(mod, name, function(f"{cupy_path}.{name}", why))
    for name in classes:
        setattr(mod, name, cls(f"{cupy_path}.{name}", why))
    for name, value in (attrs or {}).items():
        setattr(mod, name, value)
    sys.modules[fullname] = mod
    by_reference(mod)
    return mod
