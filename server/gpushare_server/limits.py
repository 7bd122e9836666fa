"""Per-key limits (``gpushare serve --key-limits FILE``): quality of service by client key.

A TOML file gives some client keys (the ``NAME`` of ``NAME.key`` in
``--authorized-keys``) limits of their own; every other key keeps the server-wide
``--memory-limit`` and ``--max-sessions-per-key``::

    [keys.alice]          # a big tenant
    memory = "32GiB"      # each of alice's sessions may hold this much
    sessions = 8          # alice may have this many sessions at once

    [keys.ci]
    memory = "512MiB"
    sessions = 2

``memory`` is per session, enforced by the session's allocator exactly like
``--memory-limit``; so a key holds at most ``sessions x memory`` in all. The file is
read at start (a bad file stops the server with the reason) and re-read when it
changes (a bad edit is logged and the previous limits stay).
"""
from __future__ import annotations

import logging
import os
import tomllib
from dataclasses import dataclass
from typing import Any

from .quota import parse_size

log = logging.getLogger("gpushare.limits")


@dataclass(frozen=True)
class KeyLimit:
    memory: int = 0    # bytes per session; 0: the server-wide limit
    sessions: int = 0  # sessions at once; 0: the server-wide limit


def parse_limits(text: str) -> dict[str, KeyLimit]:
    """The per-key limits in a TOML document.

    Raises
    ------
    ValueError
        The document is not valid TOML or not of the shape above.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML: {exc}") from None
    unknown = set(data) - {"keys"}
    if unknown:
        raise ValueError(f"unknown section(s) {sorted(unknown)}: only [keys.NAME] tables")
    keys = data.get("keys", {})
    if not isinstance(keys, dict):
        raise ValueError("[keys] must hold one table per key name")
    out: dict[str, KeyLimit] = {}
    for name, table in keys.items():
        if not isinstance(table, dict):
            raise ValueError(f"keys.{name} must be a table")
        extra = set(table) - {"memory", "sessions"}
        if extra:
            raise ValueError(f"keys.{name}: unknown setting(s) {sorted(extra)} "
                             "(use memory and sessions)")
        memory = table.get("memory", 0)
        sessions = table.get("sessions", 0)
        if isinstance(sessions, bool) or not isinstance(sessions, int) or sessions < 0:
            raise ValueError(f"keys.{name}.sessions must be a whole number >= 0")
        if isinstance(memory, bool) or not isinstance(memory, (int, str)):
            raise ValueError(f"keys.{name}.memory must be a size such as \"8GiB\"")
        out[name] = KeyLimit(memory=parse_size(memory), sessions=sessions)
    return out


class KeyLimits:
    """The limits of ``path``, re-read when the file changes (:meth:`refresh`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._mtime: Any = None
        self.limits: dict[str, KeyLimit] = {}
        try:  # a bad file at start is the operator's error: stop with the reason
            self._load()
        except OSError as exc:
            raise ValueError(f"cannot read --key-limits {path}: {exc}") from None
        except ValueError as exc:
            raise ValueError(f"bad --key-limits file {path}: {exc}") from None

    def _load(self) -> None:
        st = os.stat(self.path)
        with open(self.path, encoding="utf-8") as f:
            limits = parse_limits(f.read())
        self.limits, self._mtime = limits, (st.st_mtime_ns, st.st_size)
        log.info("per-key limits from %s: %d key(s)", self.path, len(limits))

    def refresh(self) -> None:
        """Re-read the file if it changed; keep the current limits if it is bad."""
        try:
            st = os.stat(self.path)
        except OSError as exc:
            log.warning("cannot read the key limits %s (%s); keeping the previous ones",
                        self.path, exc)
            return
        if (st.st_mtime_ns, st.st_size) == self._mtime:
            return
        try:
            self._load()
        except (OSError, ValueError) as exc:
            self._mtime = (st.st_mtime_ns, st.st_size)  # do not log it every second
            log.warning("bad key limits file %s (%s); keeping the previous ones",
                        self.path, exc)

    def get(self, key: str | None) -> KeyLimit:
        return self.limits.get(key, KeyLimit()) if key is not None else KeyLimit()
