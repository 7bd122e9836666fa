"""CUDA graphs on the CPU backend: stream capture recorded, and replayed at ``launch``.

On a GPU, ``Stream.begin_capture()`` makes CUDA record the work queued on the stream
instead of running it, and ``end_capture()`` returns it as a ``cupy.cuda.Graph`` whose
``launch()`` runs it again on the same memory. Here work runs in call order, so a
capture runs each call at once to make its results (what a captured call leaves in its
result before the graph's first launch is undefined in CUDA: here it is the answer),
puts back the values of the memory that was there before the capture (which CUDA leaves
untouched until the launch: ``x += 1`` captured changes ``x`` at the launch only), and
records the call;
``Graph.launch()`` runs the recorded calls again, in order, each into the arrays the
captured call gave (its results are copied into them: they are the memory the rest of
the graph, and the program, hold).

What CUDA and CuPy refuse during a capture is refused the same way, with their errors:

* CUDA's (``CUDARuntimeError``): synchronizing a capturing stream or the device
  (``cudaErrorStreamCaptureUnsupported``; the capture is then invalidated, and
  ``end_capture`` says ``cudaErrorStreamCaptureInvalidated``), ending a capture on
  another stream than the one that began it (``...Unmatched``), a fork not joined back
  (``...Unjoined``), ending where no capture is (``cudaErrorIllegalState``), the legacy
  stream used while a blocking stream captures (``...Implicit``);
* CuPy's own checks: copies between host and device (``RuntimeError: the current
  stream is capturing, so D2H transfers are disallowed``), routines that synchronize
  (``nonzero``, boolean masks...), and the libraries CuPy does not capture: cuBLAS
  (``matmul``, ``dot``...), cuSOLVER (``linalg``), cuRAND (``cupy.random``'s legacy
  functions) raise ``NotImplementedError``.

Streams join a capture as CUDA's do: a stream that waits for an event recorded on a
capturing stream captures into the same graph (a fork), and must be waited for by the
capture before it ends (the join).

The session's executor sends every call through ``CAPTURE`` while a capture is active
(``SessionExecutor._batch``), and ``Stream`` (``cpu.py``) asks it about its own methods.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy

from gpushare.errors import CUDARuntimeError

from . import cpu as _cpu
from . import sparse as _sparse

_MESSAGES = {
    401: "cudaErrorIllegalState: the operation cannot be performed in the present state",
    900: "cudaErrorStreamCaptureUnsupported: operation not permitted when stream is capturing",
    901: "cudaErrorStreamCaptureInvalidated: operation failed due to a previous error "
         "during capture",
    903: "cudaErrorStreamCaptureUnmatched: the capture was not initiated in this stream",
    904: "cudaErrorStreamCaptureUnjoined: capture sequence contains a fork that was not "
         "joined to the primary stream",
    906: "cudaErrorStreamCaptureImplicit: operation would make the legacy stream depend "
         "on a capturing blocking stream",
}


def cuda_error(status: int) -> CUDARuntimeError:
    return CUDARuntimeError(status, _MESSAGES[status])


#: CuPy's own refusals during a capture (cupy/cuda/memory.pyx and the libraries)
_D2H = "the current stream is capturing, so D2H transfers are disallowed"
_H2D = "the current stream is capturing, so H2D transfers are disallowed"
_SYNC = "the current stream is capturing, so synchronous API calls are disallowed"
_LIBRARY = "calling {} API during stream capture is currently unsupported"

#: calls whose result's size depends on the data: CuPy reads it back (a synchronization)
_SYNCHRONIZING = frozenset({
    "cupy.nonzero", "cupy.argwhere", "cupy.flatnonzero", "cupy.extract", "cupy.unique",
    "cupy.compress", "cupy.unique_values", "cupy.unique_counts", "cupy.unique_inverse",
    "cupy.unique_all", "cupy.trim_zeros", "cupy.asnumpy"})
_CUBLAS = frozenset({"cupy.matmul", "cupy.dot", "cupy.tensordot", "cupy.inner", "cupy.vdot",
                     "cupy.outer", "cupy.einsum", "cupy.kron", "cupy.linalg.matrix_power",
                     "cupy.linalg.multi_dot"})
#: ``cupy.random``'s functions that draw through cuRAND (the ``Generator`` API's
#: kernels are captured)
_CURAND_FREE = frozenset({"cupy.random.default_rng", "cupy.random.seed",
                          "cupy.random.get_random_state", "cupy.random.set_random_state",
                          "cupy.random.reset_states", "cupy.random.Generator",
                          "cupy.random.RandomState", "cupy.random.XORWOW",
                          "cupy.random.MRG32k3a", "cupy.random.Philox4x3210",
                          "cupy.random.BitGenerator"})
#: the objects whose methods are the capture's own bookkeeping, never replayed
_BOOKKEEPING = frozenset({"Stream", "Event", "Graph"})
#: a sparse matrix's products with a matrix or a vector: cuSPARSE's
_CUSPARSE_METHODS = frozenset({"__mul__", "__rmul__", "__matmul__", "__rmatmul__", "dot"})
_D2H_METHODS = frozenset({"get", "item", "tolist", "__bool__", "__float__", "__int__",
                          "__complex__", "__index__", "nonzero"})


class Capture:
    """One capture sequence: the streams in it, the calls recorded, its state."""

    def __init__(self, origin: Any) -> None:
        self.origin = origin
        self.streams = [origin]
        self.unjoined: list = []  # streams forked into it and not yet joined back
        self.calls: list = []     # (function, args, kwargs, result)
        self.invalid = False
        self.made: dict = {}      # id -> array, of the arrays captured calls made

    def join(self, stream: Any) -> None:
        if all(s is not stream for s in self.streams):
            self.streams.append(stream)
            self.unjoined.append(stream)
        stream.capture = self

    def end(self) -> None:
        for s in self.streams:
            s.capture = None
        ACTIVE[:] = [c for c in ACTIVE if c is not self]


#: the captures under way in this worker (one session per worker)
ACTIVE: list = []


def current_stream() -> Any:
    current = _cpu.Stream._current
    return current[-1] if current else None


def _blocking_capture() -> Capture | None:
    """A capture under way on a blocking stream: the legacy stream may not be used
    beside it (``cudaErrorStreamCaptureImplicit``)."""
    return next((cap for cap in ACTIVE if any(not s.is_non_blocking for s in cap.streams)),
                None)


def recording() -> Capture | None:
    """The capture the current stream records into (the legacy stream's work while a
    blocking stream captures invalidates that capture, as in CUDA)."""
    stream = current_stream()
    if stream is not None and stream.capture is not None:
        return stream.capture
    if stream is None or stream.ptr == 0:
        cap = _blocking_capture()
        if cap is not None:
            cap.invalid = True
            raise cuda_error(906)
    return None


# --- the stream's own methods (cpu.Stream calls these) ---------------------------------
def begin_capture(stream: Any, mode: Any = None) -> None:
    if stream.capture is not None:
        raise cuda_error(401)
    if mode is not None and int(mode) not in (0, 1, 2):
        raise CUDARuntimeError(1, "cudaErrorInvalidValue: invalid argument")
    cap = Capture(stream)
    stream.capture = cap
    ACTIVE.append(cap)


def end_capture(stream: Any) -> "Graph":
    cap = stream.capture
    if cap is None:
        raise cuda_error(401)
    if cap.origin is not stream:
        cap.invalid = True
        raise cuda_error(903)
    cap.end()
    if cap.invalid:
        raise cuda_error(901)
    if cap.unjoined:
        raise cuda_error(904)
    return Graph(cap.calls)


def is_capturing(stream: Any) -> bool:
    if stream.ptr == 0:
        if _blocking_capture() is not None:
            raise cuda_error(906)
        return False
    cap = stream.capture
    if cap is not None and cap.invalid:
        raise RuntimeError("the stream was capturing, but an error has invalidated the "
                           "capture sequence")
    return cap is not None


def synchronize(stream: Any) -> None:
    """``cudaStreamSynchronize`` of a capturing stream: refused, capture invalidated."""
    if stream.capture is not None:
        stream.capture.invalid = True
        raise cuda_error(900)


def query(stream: Any) -> bool:
    """``cudaStreamQuery`` (``Stream.done``): it invalidates a capture under way."""
    if stream.capture is not None:
        stream.capture.invalid = True
        return False
    return True


def wait_event(stream: Any, event: Any) -> None:
    """A stream waiting for an event recorded in a capture forks into it; the capture
    waiting for a forked stream's event joins that stream back."""
    cap, source = getattr(event, "captured", None) or (None, None)
    if cap is None or cap not in ACTIVE:
        return
    if stream.capture is None:
        cap.join(stream)
    elif stream.capture is cap and source is not stream:
        cap.unjoined = [s for s in cap.unjoined if s is not source]


def record_event(event: Any, stream: Any) -> bool:
    """Whether ``event`` was recorded in a capture (it then marks a point of the graph,
    not a time)."""
    if stream is not None and stream.capture is not None:
        event.captured = (stream.capture, stream)
        return True
    event.captured = None
    return False


# --- the executor's calls while a capture is active ------------------------------------
def _check(op: str, target: Any, args: Any) -> None:
    """CuPy's and CUDA's refusals of ``op`` inside a capture."""
    if op == "download":
        raise RuntimeError(_D2H)
    if op in ("upload", "upload_begin"):
        raise RuntimeError(_H2D)
    if op == "synchronize" or op == "call" and target == "cupy.cuda.runtime.deviceSynchronize":
        for cap in ACTIVE:
            cap.invalid = True
        raise cuda_error(900)
    if op == "call":
        name = str(target)
        if name in _SYNCHRONIZING or name == "cupy.where" and len(args) == 1:
            raise RuntimeError(_D2H if name == "cupy.asnumpy" else _SYNC)
        if name in _CUBLAS:
            raise NotImplementedError(_LIBRARY.format("cuBLAS"))
        if name.startswith("cupy.linalg.") and name != "cupy.linalg.norm":
            raise NotImplementedError(_LIBRARY.format("cuSOLVER"))
        if name.startswith("cupy.random.") and name not in _CURAND_FREE:
            raise NotImplementedError(_LIBRARY.format("cuRAND"))
        if any(isinstance(a, _cpu.HostArray) for a in args):
            raise RuntimeError(_H2D)
    elif op == "method" and args:
        obj, name = args[0], str(target)
        if isinstance(obj, numpy.ndarray):
            if name in _D2H_METHODS:
                raise RuntimeError(_D2H if name != "nonzero" else _SYNC)
            if name == "dot":
                raise NotImplementedError(_LIBRARY.format("cuBLAS"))
            if name == "set":
                raise RuntimeError(_H2D)
        elif type(obj).__name__ == "RandomState":
            raise NotImplementedError(_LIBRARY.format("cuRAND"))
        elif _sparse.is_sparse(obj) and name in _CUSPARSE_METHODS and any(
                _sparse.is_sparse(a) or isinstance(a, numpy.ndarray) for a in args[1:]):
            raise NotImplementedError(_LIBRARY.format("cuSPARSE"))
    elif op in ("getitem", "setitem") and len(args) > 1:
        keys = args[1] if isinstance(args[1], tuple) else (args[1],)
        if any(isinstance(k, numpy.ndarray) and k.dtype == bool for k in keys):
            raise RuntimeError(_SYNC)  # a boolean mask: CuPy counts it on the host
        if op == "setitem" and len(args) > 2 and isinstance(args[2], _cpu.HostArray) and \
                not all(k is None or k is Ellipsis or isinstance(k, (int, slice))
                        for k in keys):
            raise RuntimeError(_H2D)  # a host array's values (``_scatter_op_single``'s
            # ``core.array(value)``); with basic indices CuPy's ``y.fill(value)`` takes
            # a 0-d one and refuses another ('non-scalar numpy.ndarray cannot be used for
            # fill'), capturing or not: the backend's own setitem says so


def _replayed(op: str, args: Any) -> bool:
    if op in ("getattr", "meta", "pointer", "info", "memory"):
        return False
    if op == "method" and args and type(args[0]).__name__ in _BOOKKEEPING:
        return False
    return True


class _Hooks:
    """What the session's executor calls through while a capture is active."""

    @property
    def active(self) -> bool:
        return bool(ACTIVE)

    def function(self, lookup: Callable[[str], Any]) -> Callable[[str], Any]:
        """``backend.function`` whose functions record themselves."""
        def get(target: str) -> Any:
            fn = lookup(target)

            def call(*args: Any, **kwargs: Any) -> Any:
                return _call("call", target, args, fn, args, kwargs)
            return call
        return get

    def run(self, run: Callable[..., Any]) -> Callable[..., Any]:
        """``SessionExecutor._run`` that records the calls it runs."""
        def call(op: str, target: Any, args: Any, kwargs: Any) -> Any:
            return _call(op, target, args, run, (op, target, args, kwargs), {})
        return call


def _call(op: str, target: Any, args: Any, fn: Callable[..., Any], fargs: tuple,
          fkwargs: dict) -> Any:
    """Run ``fn(*fargs, **fkwargs)``, the call ``op target(args)``; in a capture, check
    it first and record it."""
    cap = recording()
    if cap is None:
        return fn(*fargs, **fkwargs)
    _check(op, target, args)
    # CUDA records the call and runs nothing: the memory that was there before the
    # capture keeps its values until the graph's launch (the call runs here to give
    # its results, undefined in CUDA until then, and is undone on older memory)
    inputs = {id(root) for root in _roots((args, fkwargs))}
    kept = [(root, root.copy()) for root in _older(cap, (args, fkwargs))]
    try:
        result = _cpu.to_device_result(fn(*fargs, **fkwargs))
    finally:
        for root, values in kept:
            numpy.copyto(root, values)
    for root in _roots(result):  # (an ``out=`` or a view of an input is no new memory)
        if id(root) not in inputs:
            cap.made[id(root)] = root
    if _replayed(op, args):
        label = str(target) if op == "call" else f"{op} {target}"
        cap.calls.append((label, fn, fargs, fkwargs, result))
    return result


CAPTURE = _Hooks()


def _roots(value: Any) -> list:
    """The arrays whose memory ``value`` (an array, or lists, tuples and dicts of them)
    views: each one's last NumPy base."""
    if isinstance(value, numpy.ndarray):
        return [_cpu.root_array(value)]
    if isinstance(value, (list, tuple)):
        return [r for v in value for r in _roots(v)]
    if isinstance(value, dict):
        return [r for v in value.values() for r in _roots(v)]
    return []


def _older(cap: Capture, values: Any) -> list:
    """The writable arrays among ``values`` that were there before the capture."""
    seen: dict = {}
    for root in _roots(values):
        if id(root) not in cap.made and root.flags.writeable:
            seen.setdefault(id(root), root)
    return list(seen.values())


class Graph:
    """``cupy.cuda.Graph`` on the CPU backend: the calls of a capture, run again at each
    ``launch``. ``Graph()`` is refused as CuPy refuses it."""

    def __init__(self, calls: list) -> None:
        self._calls = calls

    def launch(self, stream: Any = None) -> None:
        cap = recording() if stream is None else stream.capture
        if cap is not None:  # a graph launched into a capture becomes part of it
            cap.calls.extend(self._calls)
        for _, fn, args, kwargs, result in self._calls:
            _copy_into(result, _cpu.to_device_result(fn(*args, **kwargs)))

    def upload(self, stream: Any = None) -> None:
        return None

    def debug_dot_str(self, flags: int = 0) -> str:
        lines = ["digraph dot {", "subgraph cluster_1 {", 'label="graph_0"']
        for i, (label, *_) in enumerate(self._calls):
            lines.append(f'"graph_0_node_{i}" [label="KERNEL\\n{label}"];')
            if i:
                lines.append(f'"graph_0_node_{i - 1}" -> "graph_0_node_{i}";')
        lines += ["}", "}"]
        return "\n".join(lines) + "\n"


def _copy_into(dst: Any, src: Any) -> None:
    """Write a replayed call's result into the array its captured call gave."""
    if isinstance(dst, numpy.ndarray):
        if isinstance(src, numpy.ndarray) and src is not dst and dst.flags.writeable:
            try:
                numpy.copyto(dst, src, casting="unsafe")
            except ValueError:  # (a shape the replay changed: nothing to write to)
                pass
    elif isinstance(dst, (tuple, list)) and isinstance(src, (tuple, list)) and \
            len(dst) == len(src):
        for d, s in zip(dst, src):
            _copy_into(d, s)
