"""CuPy's module names in what gpushare's proxy modules say of themselves.

gpushare's ``cupy.linalg`` is the module ``gpushare.cupy.linalg``, so Python's own
words for a missing attribute named it: ``module 'gpushare.cupy.linalg' has no
attribute 'foo'``, where CuPy says ``module 'cupy.linalg' ...``. Each public module
under ``gpushare.cupy`` and ``gpushare.cupyx`` is made a ``PublicModule`` as it is
imported (``Finder``, on ``sys.meta_path`` once ``gpushare.cupy`` is imported), which
words that error as CuPy does, and its functions are made to pickle as themselves
(``by_reference``). A module with a ``__getattr__`` of its own words its errors itself
and is made a ``NamedModule``.

What a module says its name is (``cupy.__name__``, ``cupy.get_array_module(x).__name__``,
which array-agnostic code compares with ``'cupy'``) is CuPy's too: ``NamedModule``'s
``__name__`` is a property, which attribute lookup takes before the module's own dict.
The dict keeps the real name, so the module's own code (its ``__name__`` global, the
``__module__`` of what it defines, its relative imports) and the import system, which
asks for the real one (``from gpushare.cupy import _x`` of a submodule not imported
yet), are unchanged; so is gpushare's own code, which asks ``real_name``.
"""
from __future__ import annotations

import importlib.machinery
import sys
import types
from typing import Any

PACKAGES = ("gpushare.cupy", "gpushare.cupyx")


def public_name(name: str) -> str:
    """``gpushare.cupy.linalg`` -> ``cupy.linalg``."""
    return name[len("gpushare."):] if name.startswith(PACKAGES) else name


#: the callers that are given a module's real name (the import system's own modules)
_REAL_NAME_CALLERS = ("importlib", "_frozen_importlib")


def real_name(module: Any) -> str:
    """The name ``module`` is imported under (``gpushare.cupy``; ``__name__`` says
    ``cupy``)."""
    own = getattr(module, "__dict__", None)
    if isinstance(own, dict) and "__name__" in own:
        return str(own["__name__"])
    return str(getattr(module, "__name__", ""))


class NamedModule(types.ModuleType):
    """A module whose ``__name__`` is CuPy's name for it (``real_name`` is its own)."""

    @property  # type: ignore[override]
    def __name__(self) -> str:
        own = str(vars(self).get("__name__", "?"))
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if type(caller) is str and caller.startswith(_REAL_NAME_CALLERS):
            return own
        return public_name(own)

    @__name__.setter
    def __name__(self, value: str) -> None:
        vars(self)["__name__"] = value


class PublicModule(NamedModule):
    """A module that names itself as CuPy's, in its missing-attribute error too."""

    def __getattr__(self, name: str) -> Any:
        own = public_name(str(vars(self).get("__name__", "?")))
        raise AttributeError(f"module '{own}' has no attribute '{name}'")


def make_public(module: types.ModuleType) -> None:
    if type(module) is types.ModuleType:
        module.__class__ = NamedModule if "__getattr__" in vars(module) else PublicModule
    by_reference(module)


def by_reference(module: types.ModuleType) -> None:
    """Make ``module``'s public functions pickle as themselves: pickle finds a function
    again by its ``__module__`` and ``__qualname__``, and those of a function made by
    a factory (``_remote``'s, ``_routines``' wrappers) named no place that holds it
    (CuPy's module, say, which is this one only under the ``import cupy`` hook). Such
    a function is given the module and name it is exported under."""
    for name, value in list(vars(module).items()):
        if type(value) is not types.FunctionType or name.startswith("_"):
            continue
        home = sys.modules.get(value.__module__)
        if home is None or not value.__module__.startswith("gpushare.") or \
                getattr(home, value.__qualname__, None) is not value:
            value.__module__, value.__qualname__ = real_name(module), name


def _is_public(fullname: str) -> bool:
    top = fullname.split(".")
    return len(top) > 2 and ".".join(top[:2]) in PACKAGES and \
        not any(part.startswith("_") for part in top[2:])


class _Loader(importlib.machinery.SourceFileLoader):
    def exec_module(self, module: types.ModuleType) -> None:
        super().exec_module(module)
        make_public(module)


class Finder:
    """Finds gpushare's public proxy modules as the path finder does, with a loader
    that makes them ``PublicModule`` once executed."""

    @classmethod
    def find_spec(cls, fullname: str, path: Any = None, target: Any = None) -> Any:
        if not _is_public(fullname):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and type(spec.loader) is importlib.machinery.SourceFileLoader:
            spec.loader = _Loader(spec.loader.name, spec.loader.path)
        return spec


def install() -> None:
    """Put ``Finder`` on ``sys.meta_path`` (idempotent), and make the public modules
    imported before it public."""
    if Finder not in sys.meta_path:
        sys.meta_path.insert(0, Finder)
    for name, module in list(sys.modules.items()):
        if _is_public(name) and isinstance(module, types.ModuleType):
            make_public(module)
