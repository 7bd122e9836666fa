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

    A proxy class has CuPy's members of its class and no others: the ones it defines
    itself (methods call the server's by name, ``remote_method``) and its server
    object's data attributes it lists in ``_gs_data`` (each read with a call). Any
    other name is an AttributeError in Python's words (``hasattr`` False,
    ``getattr(obj, name, default)`` the default), as on CuPy's objects; ``dir`` lists
    them all."""

    __slots__ = ("_type_name",)
    #: the server object's data attributes, read from the server
    _gs_data: frozenset = frozenset()

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
        raise AttributeError(f"'{cls.__name__}' object has no attribute '{name}'")

    def __dir__(self) -> list:
        return sorted({*super().__dir__(), *type(self)._gs_data})

    def __repr__(self) -> str:
        return f"<gpushare remote {self._type_name} #{self._gs_id}>"


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


def create_queued(cls: type, path: str, type_name: str, *args: Any, **kwargs: Any) -> Any:
    """``create``, queued: the server stores the object under an id chosen here. For
    constructors whose arguments the client has checked (they cannot fail for them)."""
    return queue_object(_client.get_session(), "call", path, args, kwargs, cls, type_name,
                        path)


def queue_object(s: _client.Session, op: str, target: Any, args: tuple, kwargs: dict,
                 cls: type, type_name: str, description: str) -> Any:
    """Queue a call that makes a server object (one that cannot fail), stored under an
    id chosen here; its proxy, a ``cls`` of ``type_name``."""
    hid = s.new_id()
    s.submit(op, target, args, kwargs, out_id=hid, description=description)
    proxy = object.__new__(cls)
    bind(proxy, s, hid, type_name)
    return proxy


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
