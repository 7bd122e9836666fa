"""A session's handle table: the objects a client may name, by id.

Ids are chosen by the client for pipelined calls (positive) and by the server for
results of synchronous calls (negative), so the two never collide.
"""
from __future__ import annotations

from typing import Any


class UnknownHandleError(LookupError):
    """A call named a handle this session does not have."""


class HandleTable:
    """Maps handle ids to server-side objects for one session."""

    def __init__(self) -> None:
        self._objects: dict[int, Any] = {}
        self._by_object: dict[int, list[int]] = {}  # id(obj) -> the handle ids naming it
        self._next_server_id = -1

    def __len__(self) -> int:
        return len(self._objects)

    def __contains__(self, hid: int) -> bool:
        return hid in self._objects

    @property
    def objects(self) -> dict[int, Any]:
        """The table itself, id -> object, to read (``hid in objects``) without a call."""
        return self._objects

    def get(self, hid: int) -> Any:
        try:
            return self._objects[hid]
        except (KeyError, TypeError):
            raise UnknownHandleError(
                f"gpushare: handle {hid!r} is unknown to this session (it was released, or the "
                "call that made it failed)") from None

    def put(self, hid: int, obj: Any) -> None:
        if type(hid) is not int and (not isinstance(hid, int) or isinstance(hid, bool)):
            raise TypeError(f"gpushare: bad handle id {hid!r}")
        objects = self._objects
        old = objects.get(hid)
        if old is not None:
            self._forget(hid, old)
        objects[hid] = obj
        hids = self._by_object.get(id(obj))
        if hids is None:
            self._by_object[id(obj)] = [hid]
        else:
            hids.append(hid)

    def add(self, obj: Any) -> int:
        """Store ``obj`` under a new server-chosen id, or return the id it has."""
        hid = self.find(obj)
        if hid is not None:
            return hid
        hid = self._next_server_id
        self._next_server_id -= 1
        self.put(hid, obj)
        return hid

    def find(self, obj: Any) -> int | None:
        hids = self._by_object.get(id(obj))
        return hids[0] if hids else None

    def release(self, hid: int) -> None:
        obj = self._objects.pop(hid, None)
        if obj is not None:
            self._forget(hid, obj)

    def _forget(self, hid: int, obj: Any) -> None:
        hids = self._by_object.get(id(obj))
        if hids is not None:
            if len(hids) == 1 and hids[0] == hid:  # (the usual case: one id an object)
                del self._by_object[id(obj)]
                return
            hids.remove(hid)
            if not hids:
                del self._by_object[id(obj)]

    def values(self) -> list:
        return list(self._objects.values())

    def clear(self) -> None:
        self._objects.clear()
        self._by_object.clear()
