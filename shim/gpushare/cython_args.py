"""How CuPy's Cython functions take their arguments, for the emulator's classes (the
server's kernels) and the client's proxies alike:
Cython's errors (and their words) for too many or too few positional arguments,
unknown or repeated keywords, and typed parameters (``str code``, ``tuple options``:
``None`` passes, as Cython lets it)."""
from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _argtuple_invalid(name: str, exact: bool, least: int, most: int, found: int) -> TypeError:
    """Cython's ``__Pyx_RaiseArgtupleInvalid``."""
    if found < least:
        expected, more_or_less = least, "at least"
    else:
        expected, more_or_less = most, "at most"
    if exact:
        more_or_less = "exactly"
    return TypeError("%s() takes %s %d positional argument%s (%d given)"
                     % (name, more_or_less, expected, "" if expected == 1 else "s", found))


def tp_name(t: type) -> str:
    """A type's C ``tp_name``: qualified by its module for a static extension type
    (``numpy.ndarray``), the plain name for builtins and classes."""
    if t.__module__ == "builtins" or t.__flags__ & (1 << 9):  # Py_TPFLAGS_HEAPTYPE
        return t.__name__
    return "%s.%s" % (t.__module__, t.__name__)


def cython_signature(types: dict | None = None, name: str = "__init__") -> Callable:
    """Decorate a method so that its arguments are checked as Cython checks those of a
    ``def`` method of this signature (``self`` aside) before it runs; ``types``: the
    typed parameters (``{"code": str}``) in declaration order."""
    types = dict(types or {})

    def decorate(func: Callable) -> Callable:
        params = list(inspect.signature(func).parameters.values())[1:]
        positional = [p.name for p in params if p.kind in _POSITIONAL]
        least = sum(1 for p in params if p.kind in _POSITIONAL and p.default is p.empty)
        most = len(positional)
        named = {p.name for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD}
        var_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
        defaults = {p.name: p.default for p in params if p.default is not p.empty}

        @functools.wraps(func)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            n = len(args)
            if n > most:
                raise _argtuple_invalid(name, least == most, least, most, n)
            for i in range(n, least):  # the required ones left, by keyword
                if positional[i] not in kwargs:
                    raise _argtuple_invalid(name, least == most, least, most, i)
            for k in kwargs:
                if k in positional[:n]:
                    raise TypeError("%s() got multiple values for keyword argument '%s'"
                                    % (name, k))
                if k not in named and not var_keyword:
                    raise TypeError("%s() got an unexpected keyword argument '%s'"
                                    % (name, k))
            given = dict(zip(positional, args))
            for k, t in types.items():
                v = given[k] if k in given else kwargs.get(k, defaults.get(k))
                if v is not None and not isinstance(v, t):
                    raise TypeError("Argument '%s' has incorrect type (expected %s, got %s)"
                                    % (k, t.__name__, tp_name(type(v))))
            return func(self, *args, **kwargs)
        return wrapper
    return decorate
