"""Makes ``import cupy`` / ``import cupyx`` resolve to gpushare's modules.

Installed from ``gpushare-hook.pth`` at interpreter start only when
``GPUSHARE_SERVER`` or ``GPUSHARE_HOOK`` is set (``gpushare run`` sets the latter, so
that the program's child processes, ``multiprocessing``'s spawned workers among them,
import gpushare's ``cupy`` too); otherwise nothing happens and a real CuPy stays
untouched.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from typing import Any

ALIASES = {"cupy": "gpushare.cupy", "cupyx": "gpushare.cupyx"}
#: what makes ``gpushare-hook.pth`` install the hook in a new interpreter
ENVIRONMENT = ("GPUSHARE_SERVER", "GPUSHARE_HOOK")


def environment_without() -> dict:
    """This process's environment without the variables that activate the hook: for
    the processes of a server, whose ``import cupy`` must be this machine's CuPy (one
    that reached gpushare's would look for a server in turn)."""
    import os
    return {k: v for k, v in os.environ.items() if k not in ENVIRONMENT}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target
        self._spec: Any = None

    def create_module(self, spec: Any) -> Any:
        module = importlib.import_module(self.target)
        # (``cupy.fft.config`` is an object standing as a module: it has no spec)
        self._spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module: Any) -> None:
        # the import system stamped the alias spec on the module; the module keeps its
        # own, so its relative imports and __package__ stay consistent
        if self._spec is not None:
            module.__spec__ = self._spec


class CupyAliasFinder(importlib.abc.MetaPathFinder):
    """Finds ``cupy[.x]`` and ``cupyx[.x]`` as gpushare's proxy modules."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        top, _, rest = fullname.partition(".")
        if top not in ALIASES:
            return None
        target_name = ALIASES[top] + ("." + rest if rest else "")
        try:
            importlib.import_module(target_name)
        except ImportError:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(target_name),
                                              is_package=True)


def _ours(module: Any) -> bool:
    """Whether ``module`` is one of gpushare's (by the name it was imported under: its
    ``__name__`` attribute says CuPy's, ``_public.NamedModule``)."""
    own = getattr(module, "__dict__", None)
    name = own.get("__name__") if isinstance(own, dict) else None
    if name is None:
        name = getattr(module, "__name__", "")
    return str(name).startswith("gpushare")


def install() -> None:
    """Route ``import cupy`` to gpushare (idempotent)."""
    if not installed():
        sys.meta_path.insert(0, CupyAliasFinder())
    for name in list(sys.modules):  # a real CuPy imported before must not shadow us
        if name.split(".")[0] in ALIASES and not _ours(sys.modules[name]):
            del sys.modules[name]


def uninstall() -> None:
    """Undo :func:`install`: a server process must reach the real CuPy even when it was
    started with ``GPUSHARE_SERVER`` in its environment (the hook came with it)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, CupyAliasFinder)]
    for name in list(sys.modules):
        if name.split(".")[0] in ALIASES and _ours(sys.modules[name]):
            del sys.modules[name]


def _from_pth() -> None:
    import os
    if os.environ.get("GPUSHARE_SERVER") or os.environ.get("GPUSHARE_HOOK"):
        install()


def installed() -> bool:
    """Whether ``import cupy`` means gpushare's in this process."""
    return any(isinstance(f, CupyAliasFinder) for f in sys.meta_path)
