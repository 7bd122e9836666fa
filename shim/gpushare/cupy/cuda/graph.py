"""``cupy.cuda.graph``: CUDA graphs made by stream capture (``Stream.begin_capture`` /
``end_capture``), kept and run on the server.

The server captures: on a GPU, CUDA records the work queued on the capturing stream, as
CuPy's own capture does; the CPU backend records the calls and runs them again at each
``launch`` (``gpushare_server/backends/cpu_graph.py``). Host functions a capture
queued (``Stream.launch_host_func``) cannot travel to the server: the client keeps
them with the graph and calls them after each launch's work is done.
"""
from __future__ import annotations

from typing import Any

from .. import _objects
from .._objects import RemoteObjectProxy


@_objects.register("Graph")
class Graph(RemoteObjectProxy):
    """A CUDA graph of the server's, made by stream capture.

    See Also
    --------
    cupy.cuda.Graph
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> "Graph":
        raise NotImplementedError("currently this class cannot be initiated by the user "
                                  "and must be created via stream capture")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    # CuPy's members (``graph.pyx``): launch, upload, debug_dot_str and host_funcargs,
    # defined here; any other name is an AttributeError (RemoteObjectProxy). (CuPy's
    # ``graph``/``graphExec`` handles are the server's own.)

    @property
    def host_funcargs(self) -> list:
        """The ``(callback, arg)`` pairs the capture's ``launch_host_func`` queued, as
        CuPy's graph keeps them (called here after each launch)."""
        return self.__dict__.setdefault("_host_funcs", [])

    def launch(self, stream: Any = None) -> None:
        """Run the graph on ``stream`` (the current stream when None); pipelined."""
        self._call("launch", stream) if stream is not None else self._call("launch")
        funcs = self.__dict__.get("_host_funcs")
        if funcs:  # the capture's host functions, once the graph's work is done
            if stream is None:
                from . import get_current_stream
                stream = get_current_stream()
            stream.synchronize()
            for callback, arg in funcs:
                callback(arg)

    def upload(self, stream: Any = None) -> None:
        """Upload the graph to ``stream``'s device ahead of its launch; pipelined."""
        self._call("upload", stream) if stream is not None else self._call("upload")

    def debug_dot_str(self, flags: int = 0) -> str:
        """The graph's definition in the DOT language (see cupy.cuda.Graph)."""
        return str(self._gs_session.call("method", "debug_dot_str", (self, int(flags))))
