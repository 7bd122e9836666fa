"""The CuPy 14.2 public namespace, as data: the one place that says what exists.

``_cupy_names.json`` (beside the ``cupy`` proxy package) was read off CuPy 14.2.0
itself: for each public module, each public name and its kind (``function``,
``ufunc``, ``class``, ``module``, ``numpy_type``, ``numpy_obj``, ``constant:...``),
and the members of ``cupy.ndarray``. The client builds its proxy modules from it;
the server uses it as its allow-list of what a client may call by name.
"""
from __future__ import annotations

import functools
import json
from importlib import resources


@functools.lru_cache(maxsize=None)
def public_names() -> dict:
    """``{module_name: {name: kind}}`` plus ``"cupy.ndarray": [member, ...]``."""
    text = resources.files("gpushare.cupy").joinpath("_cupy_names.json").read_text()
    return json.loads(text)


def module_names(module: str) -> dict[str, str]:
    return public_names().get(module, {})


@functools.lru_cache(maxsize=None)
def ndarray_members() -> frozenset[str]:
    return frozenset(public_names()["cupy.ndarray"])


#: Modules whose public functions a client may call on the server.
CALLABLE_KINDS = frozenset({"function", "ufunc", "class"})


def is_public_callable(path: str) -> bool:
    """True when ``path`` (``"cupy.linalg.solve"``) names a public CuPy callable."""
    module, _, name = path.rpartition(".")
    if not name or name.startswith("_"):
        return False
    return module_names(module).get(name) in CALLABLE_KINDS
