"""``cupyx.scipy.sparse``'s matrices and arrays on the server, for both backends.

A client holds each sparse object by handle (``namespace.SPARSE_CLASSES``) and calls its
methods and operators by name (``cupyx/scipy/_sparse.py``). Operators run as Python's
own ``operator`` functions, so the object's reflected method answers where its forward one
declines, exactly as in a local program; ``NotImplemented`` never travels.
"""
from __future__ import annotations

import functools
import operator
from typing import Any, Callable

from gpushare.namespace import SPARSE_CLASSES, SPARSE_SETTABLE

_BINARY = {"__add__": operator.add, "__sub__": operator.sub, "__mul__": operator.mul,
           "__truediv__": operator.truediv, "__matmul__": operator.matmul,
           "__pow__": operator.pow, "__eq__": operator.eq, "__ne__": operator.ne,
           "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt,
           "__ge__": operator.ge, "__getitem__": operator.getitem,
           "__setitem__": operator.setitem, "__iadd__": operator.iadd,
           "__isub__": operator.isub, "__imul__": operator.imul,
           "__itruediv__": operator.itruediv}
_REFLECTED = {"__radd__": operator.add, "__rsub__": operator.sub, "__rmul__": operator.mul,
              "__rtruediv__": operator.truediv, "__rmatmul__": operator.matmul}
_UNARY = {"__neg__": operator.neg, "__abs__": operator.abs, "__str__": str}
#: formats CuPy does not have (its ``tobsr``/``todok``/``tolil`` raise this)
_NO_FORMAT = ("tobsr", "todok", "tolil")


def is_sparse(obj: Any) -> bool:
    return type(obj).__name__ in SPARSE_CLASSES


def method(obj: Any, name: str) -> Callable[..., Any]:
    """The sparse ``obj``'s method ``name`` (its allow-list checked by the caller)."""
    fn = _BINARY.get(name)
    if fn is not None:
        return functools.partial(fn, obj)
    fn = _REFLECTED.get(name)
    if fn is not None:
        return functools.partial(_reflected, fn, obj)
    fn = _UNARY.get(name)
    if fn is not None:
        return functools.partial(fn, obj)
    if name in _NO_FORMAT:
        return functools.partial(_no_format, name)
    return getattr(obj, name)


def _reflected(fn: Callable[[Any, Any], Any], obj: Any, other: Any) -> Any:
    return fn(other, obj)


def _no_format(name: str, *args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError(f"cupyx.scipy.sparse has no {name[2:]} format")


def set_attribute(obj: Any, name: str, value: Any) -> None:
    if name not in SPARSE_SETTABLE:
        raise AttributeError(f"gpushare: attribute {name!r} cannot be set")
    if name in ("row", "col") and getattr(obj, "format", None) == "coo" and \
            type(obj).__module__.startswith("scipy.") and obj.ndim == 2:
        # (CuPy's ``row``/``col`` are plain attributes: the array as given, its int64
        # too; SciPy's setters cast to the old index dtype)
        obj.coords = (value, obj.coords[1]) if name == "row" else (obj.coords[0], value)
        return
    setattr(obj, name, value)
