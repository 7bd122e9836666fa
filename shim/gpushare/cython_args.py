"""How CuPy's Cython functions take their arguments, for the emulator's classes (the
server's kernels) and the client's proxies alike:
Cython's errors (and their words) for too many or too few positional arguments,
unknown or repeated keywords, C-typed parameters converted as Cython converts them
(``size_t shared_mem``), and typed parameters (``str code``, ``tuple options``: ``None``
passes, as Cython lets it), in Cython's order. ``cython_signature`` decorates a method,
``cython_function`` a plain function (CuPy's signatures stated as such:
``launch_rules.raw_kernel_call``)."""
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


#: how Cython names CuPy's ndarray parameter type (``_ndarray_base a``)
NDARRAY_BASE = "cupy._core.core._ndarray_base"


def argument_type_error(name: str, expected: str, value: Any) -> TypeError:
    """Cython's error for an argument of a typed parameter given another type
    (``expected``: the type's name as Cython words it, e.g. ``cupy.cuda.stream.Event``)."""
    return TypeError("Argument '%s' has incorrect type (expected %s, got %s)"
                     % (name, expected, tp_name(type(value))))


def _parser(params: list, types: dict, name: str, convert: dict) -> Callable:
    """A function ``parse(args, kwargs) -> (args, kwargs)`` that checks a call's
    arguments as Cython checks those of a ``def`` function whose parameters are
    ``params`` (``inspect.Parameter``s, ``self`` left out), and converts the C-typed ones
    it is given (``convert``: the parameter's name -> its conversion, which raises
    Cython's errors), before it tests the typed ones (``types``), as Cython's wrappers
    do."""
    positional = [p.name for p in params if p.kind in _POSITIONAL]
    least = sum(1 for p in params if p.kind in _POSITIONAL and p.default is p.empty)
    most = len(positional)
    exact = least == most
    named = {p.name for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD}
    var_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    defaults = {p.name: p.default for p in params if p.default is not p.empty}
    index = {k: i for i, k in enumerate(positional)}

    def parse(args: tuple, kwargs: dict) -> tuple:
        n = len(args)
        if n > most:
            raise _argtuple_invalid(name, exact, least, most, n)
        for i in range(n, least):  # the required ones left, by keyword
            if positional[i] not in kwargs:
                raise _argtuple_invalid(name, exact, least, most, i)
        for k in kwargs:
            i = index.get(k)
            if i is not None and i < n:
                raise TypeError("%s() got multiple values for keyword argument '%s'"
                                % (name, k))
            if k not in named and not var_keyword:
                raise TypeError("%s() got an unexpected keyword argument '%s'"
                                % (name, k))
        if convert:  # (C-typed parameters: converted as they are unpacked)
            for k, conv in convert.items():
                i = index.get(k)
                if i is not None and i < n:
                    args = args[:i] + (conv(args[i]),) + args[i + 1:]
                elif k in kwargs:
                    kwargs = dict(kwargs)
                    kwargs[k] = conv(kwargs[k])
        for k, t in types.items():  # (then the typed ones: None passes)
            i = index.get(k)
            v = args[i] if i is not None and i < n else kwargs.get(k, defaults.get(k))
            if v is not None and not isinstance(v, t):
                raise argument_type_error(k, t.__name__, v)
        return args, kwargs
    return parse


def cython_signature(types: dict | None = None, name: str = "__init__",
                     convert: dict | None = None) -> Callable:
    """Decorate a method so that its arguments are checked as Cython checks those of a
    ``def`` method of this signature (``self`` aside) before it runs; ``types``: the
    typed parameters (``{"code": str}``) in declaration order; ``convert``: the C-typed
    ones (``size_t shared_mem``) and their conversions, whose results the method
    receives."""
    types = dict(types or {})
    convert = dict(convert or {})

    def decorate(func: Callable) -> Callable:
        params = list(inspect.signature(func).parameters.values())[1:]
        parse = _parser(params, types, name, convert)

        @functools.wraps(func)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            args, kwargs = parse(args, kwargs)
            return func(self, *args, **kwargs)
        return wrapper
    return decorate


def cython_function(types: dict | None = None, name: str | None = None,
                    convert: dict | None = None) -> Callable:
    """:func:`cython_signature` for a plain function (no ``self``): the decorated
    function checks and converts its arguments as Cython's ``def`` function ``name``
    (the function's own name by default) of its signature would."""
    types = dict(types or {})
    convert = dict(convert or {})

    def decorate(func: Callable) -> Callable:
        params = list(inspect.signature(func).parameters.values())
        parse = _parser(params, types, name or func.__name__, convert)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            args, kwargs = parse(args, kwargs)
            return func(*args, **kwargs)
        return wrapper
    return decorate
