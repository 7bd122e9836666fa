"""Client proxies for server objects that are not arrays (RandomState, Stream, kernels...)."""
from __future__ import annotations

from typing import Any

from .. import client as _client
from ..protocol import RemoteObject

#: methods that return nothing and may be pipelined
_PIPELINED = {"Stream": {"use", "__enter__", "__exit__", "wait_event"},
              "Event": {"record"}, "Graph": {"launch", "upload"},
              "RandomState": {"seed"},
              "Plan1d": {"__enter__", "__exit__"}, "PlanNd": {"__enter__", "__exit__"}}


class RemoteObjectProxy(_client.RemoteHandle):
    """A server object reached by handle; attribute reads and calls go to the server.

    A proxy class that lists its server object's data attributes (``_gs_data``) reads
    them with a call; one that sets ``_gs_closed`` defines every other member itself,
    so a name it does not know is an AttributeError (``hasattr`` False), as in CuPy.
    Otherwise any public name is a method of the server object."""

    __slots__ = ("_type_name",)
    _gs_data: frozenset = frozenset()
    _gs_closed = False

    def __del__(self) -> None:
        try:
            s = self._gs_session
            if not s._closed:
                s.release(self._gs_id)
        except Exception:  # noqa: BLE001
            pass

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if name in _PIPELINED.get(self._type_name, ()):
            self._gs_session.submit("method", name, (self, *args), kwargs,
                                    description=f"{self._type_name}.{name}")
            return None
        return self._gs_session.call("method", name, (self, *args), kwargs)

    def __getattr__(self, name: str) -> Any:
        cls = type(self)
        if name in cls._gs_data:
            return self._gs_session.call("getattr", name, (self,))
        if name.startswith("_") or cls._gs_closed:
            raise AttributeError(f"'{cls.__name__}' object has no attribute '{name}'")
        return _BoundRemoteMethod(self, name)

    def __repr__(self) -> str:
        return f"<gpushare remote {self._type_name} #{self._gs_id}>"


class _BoundRemoteMethod:
    __slots__ = ("obj", "name")

    def __init__(self, obj: RemoteObjectProxy, name: str) -> None:
        self.obj, self.name = obj, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.obj._call(self.name, *args, **kwargs)


def remote_method(name: str, doc: str | None = None) -> Any:
    """A method, for a proxy class, that calls the server object's method ``name``."""
    def call(self: RemoteObjectProxy, *args: Any, **kwargs: Any) -> Any:
        return self._call(name, *args, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    return call


_CLASSES: dict[str, type] = {}


def register(type_name: str) -> Any:
    def deco(cls: type) -> type:
        _CLASSES[type_name] = cls
        return cls
    return deco


def from_remote(s: _client.Session, obj: RemoteObject) -> Any:
    cls = _CLASSES.get(obj.type_name, RemoteObjectProxy)
    proxy = object.__new__(cls)
    bind(proxy, s, obj.id, obj.type_name)
    return proxy


def bind(proxy: Any, s: _client.Session, hid: int, type_name: str) -> None:
    proxy._gs_id = hid
    proxy._gs_session = s
    proxy._type_name = type_name
    s.proxies[hid] = proxy


def create(cls: type, path: str, type_name: str, *args: Any, **kwargs: Any) -> Any:
    """Create the server object ``path(*args, **kwargs)``, bound to a new ``cls``."""
    s = _client.get_session()
    remote = s.call("call", path, args, kwargs)
    if isinstance(remote, cls):
        return remote
    proxy = object.__new__(cls)
    bind(proxy, s, remote._gs_id, type_name)
    remote._gs_id = 0  # ownership moves to the new proxy
    return proxy
