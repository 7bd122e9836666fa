"""What a user kernel's source may ask of the server's files: the shared rule.

CuPy compiles a kernel where the program runs, so ``#include "mine.cuh"`` with
``options=('-I', 'my/headers')`` reads the program's own files. Under gpushare the
compiler runs on the server: there, an include path or ``#include "/etc/passwd"``
would read the *server's* files, and a compiler's error log quotes what it read. So:

* the client (:func:`localize`) reads the headers a kernel includes from its own
  include directories (``-I``/``--include-path``, and a ``RawModule(path=...)`` file's
  directory) and puts their text in place of the ``#include`` line, as the
  preprocessor would; the include options are not sent;
* the server (:func:`check_spec`) compiles with its own CUDA and CuPy headers only: it
  refuses include paths and other options that name its files (``-I``,
  ``--pre-include``, precompiled-header and timing files), ``#include`` of an absolute
  path or one that climbs out with ``..``, computed includes (``#include MACRO``) and
  ``#include_next``/``#import``/``#embed``, with ``CompileException``.

Pure functions, no I/O but :func:`localize`'s reading of the client's headers.
"""
from __future__ import annotations

import os
import re
from typing import Any

#: a preprocessor directive that reads a file (``%:`` is the digraph of ``#``)
_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*(include_next|include|import|embed)\b[ \t]*"
                        r"(.*)$", re.M)
_TARGET = re.compile(r'(?:<([^<>\n]*)>|"([^"\n]*)")')

#: options that make the compiler read or write a file of its machine
_FILE_OPTIONS = ("include-path", "pre-include", "include", "isystem", "idirafter", "iquote",
                 "create-pch", "use-pch", "pch-dir", "time", "fdevice-time-trace")

#: which positional argument of each kernel constructor holds its options
_OPTIONS_AT = {"RawKernel": 2, "ReductionKernel": 10}  # (ElementwiseKernel: keyword only)


def _blank(match: "re.Match[str]") -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


_LEXEMES = re.compile(
    r'//[^\n]*'                                      # a line comment
    r'|/\*.*?\*/'                                     # a block comment
    r'|(?:u8|[uUL])?R"([^()\\ \t\n]{0,16})\((?:.|\n)*?\)\1"'  # a raw string
    r'|"(?:\\.|[^"\\\n])*"'                           # a string
    r"|'(?:\\.|[^'\\\n])*'",                          # a character
    re.S)


def _directives(text: str, splice: bool = True) -> list:
    """``(line, kind, rest)`` of each file-reading directive in ``text``, read as the
    preprocessor reads it: comments and raw strings blanked, and lines spliced (or,
    with ``splice`` False, where line numbers must stay the text's, left apart)."""
    if splice:
        text = text.replace("\\\r\n", "").replace("\\\n", "")
    text = _LEXEMES.sub(lambda m: _blank(m) if m.group(0)[:1] in "/uUL" or
                        m.group(0).startswith('R"') else m.group(0), text)
    return [(text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2).strip())
            for m in _DIRECTIVE.finditer(text)]


def _target(rest: str) -> tuple[str, bool] | None:
    """The header an ``#include``'s rest of line names and whether it is quoted; None
    for a computed include."""
    m = _TARGET.match(rest)
    if m is None:
        return None
    return (m.group(2), True) if m.group(2) is not None else (m.group(1), False)


def _outside(name: str) -> bool:
    """Whether a header name reaches outside the directories searched: an absolute
    path, a home directory, a drive, or a ``..`` component."""
    if name.startswith(("/", "\\", "~")) or re.match(r"[A-Za-z]:", name):
        return True
    return ".." in re.split(r"[/\\]+", name)


# --- the server ------------------------------------------------------------------------
def refusal(text: str) -> str | None:
    """Why the server refuses to compile ``text`` (None: it does not)."""
    for line, kind, rest in _directives(text):
        if kind != "include":
            return f"line {line}: #{kind} is not allowed (the server's headers are " \
                   "reached with #include of a relative name)"
        target = _target(rest)
        if target is None:
            return f"line {line}: a computed #include ({rest[:60]!r}) is not allowed; " \
                   "name the header in quotes or angle brackets"
        if _outside(target[0]):
            return f'line {line}: #include "{target[0]}" names a file outside the ' \
                   "include directories; the server compiles with its own CUDA and " \
                   "CuPy headers and those the client sends"
    return None


def option_refusal(option: Any) -> str | None:
    """Why the server refuses a compiler option (None: it does not)."""
    if not isinstance(option, str) or not option.startswith("-"):
        return None
    name = option.lstrip("-").split("=", 1)[0]
    if option.startswith("-I") or name in _FILE_OPTIONS:
        return f"option {option!r} names a file or directory of the server; gpushare " \
               "reads headers from the program's include directories on the client " \
               "and sends them with the source"
    return None


def check_spec(kind: str, args: Any, kwargs: Any) -> None:
    """Refuse, with ``CompileException``, a kernel whose source or options would have
    the server's compiler read or write the server's files."""
    from .errors import CompileException
    values = list(args) + list(kwargs.values())
    if kwargs.get("path") is not None:
        raise CompileException("gpushare: RawModule(path=...) names a file of the "
                               "server; the client sends the file's source")
    for value in values:
        if isinstance(value, str):
            why = refusal(value)
        elif isinstance(value, (list, tuple)):
            why = next((w for w in map(option_refusal, value) if w), None)
        else:
            why = None
        if why:
            raise CompileException(f"gpushare: {kind}: {why}")


def checked(kind: str, factory: Any) -> Any:
    """``factory``, a kernel constructor a client may name (``cupy.RawKernel``...),
    refusing what ``check_spec`` refuses."""
    def construct(*args: Any, **kwargs: Any) -> Any:
        check_spec(kind, args, kwargs)
        return factory(*args, **kwargs)
    return construct


# --- the client ------------------------------------------------------------------------
def _include_dirs(options: Any) -> tuple[list, tuple]:
    """The include directories named in ``options``, and the options without them."""
    dirs, kept = [], []
    it = iter(options or ())
    for o in it:
        if o in ("-I", "--include-path"):
            nxt = next(it, None)
            if isinstance(nxt, str):
                dirs.append(nxt)
        elif isinstance(o, str) and o.startswith("-I"):
            dirs.append(o[2:])
        elif isinstance(o, str) and o.startswith("--include-path="):
            dirs.append(o.split("=", 1)[1])
        else:
            kept.append(o)
    return dirs, tuple(kept)


def _inline(text: str, dirs: list, here: str | None, seen_once: set, depth: int) -> str:
    """``text`` with each ``#include`` found in ``here`` (quoted names) or ``dirs``
    replaced by the header's text, recursively."""
    if depth > 64:
        raise RecursionError("#include nested too deeply (an include cycle?)")
    found = _directives(text, splice=False)
    if not found:
        return text
    lines = text.split("\n")
    for line, kind, rest in reversed(found):
        target = _target(rest) if kind == "include" else None
        if target is None:
            continue
        name, quoted = target
        if os.path.isabs(name):  # this machine's file, as CuPy would read it
            path = name if os.path.isfile(name) else None
        else:
            search = ([here] if quoted and here is not None else []) + dirs
            path = next((os.path.join(d, name) for d in search
                         if os.path.isfile(os.path.join(d, name))), None)
        if path is None:
            continue  # the server's own header (CUDA's, CuPy's), or missing
        real = os.path.realpath(path)
        with open(path, encoding="utf-8") as f:
            header = f.read()
        if real in seen_once:
            header = ""
        elif re.search(r"^[ \t]*#[ \t]*pragma[ \t]+once\b", header, re.M):
            seen_once.add(real)
        body = _inline(header, dirs, os.path.dirname(path), seen_once, depth + 1)
        # the lines a directive spans (spliced lines) all give way to the header
        start = line - 1
        lines[start] = f'#line 1 "{name}"\n{body}\n#line {line + 1}'
    return "\n".join(lines)


def localize(kind: str, args: tuple, kwargs: dict, here: str | None = None) -> tuple:
    """A kernel's constructor arguments with the headers it includes from the client's
    include directories (its ``-I`` options; ``here``, a source file's directory)
    written into its source, and those options dropped."""
    at = _OPTIONS_AT.get(kind)
    if "options" in kwargs:
        options = kwargs["options"]
    elif at is not None and len(args) > at:
        options = args[at]
    else:
        options = None
    dirs, kept = _include_dirs(options if isinstance(options, (list, tuple)) else ())
    if not dirs and here is None and not any(
            isinstance(v, str) and "include" in v and re.search(r'include\s*[<"]/', v)
            for v in (*args, *kwargs.values())):
        return args, kwargs  # (an absolute #include is read here too)
    seen: set = set()

    def fix(value: Any) -> Any:
        return _inline(value, dirs, here, seen, 0) if isinstance(value, str) else value
    args = tuple(fix(a) for a in args)
    kwargs = {k: fix(v) if k not in ("name", "options", "name_expressions", "backend")
              else v for k, v in kwargs.items()}
    if dirs:
        if "options" in kwargs:
            kwargs["options"] = kept
        elif at is not None and len(args) > at:
            args = args[:at] + (kept,) + args[at + 1:]
    return args, kwargs
