"""User kernels (ElementwiseKernel, ReductionKernel, RawKernel, RawModule, fuse).

The kernel object lives on the server, which compiles it (NVRTC on a GPU, the C
kernel emulator on the CPU backend). Three things keep the round trips down:

* **Source once per server.** A kernel is named by a content hash of its
  constructor arguments. The first construction on a server sends the source and
  waits (so errors in the parameter lists are raised where CuPy raises them); the
  server keeps it, for all its sessions (``gpushare_server/kernels/remote.py``).
  Later constructions of the same kernel send the hash alone: in the same session
  they do not wait (its worker holds the kernel); in a later session of the same
  server (named by the ``server_id`` of the broker's welcome; without one, what a
  session learnt dies with it) the first one waits, and should the server not hold
  the source after all (its directory cleaned or full) it answers
  :class:`~gpushare.errors.KernelUnknownError` and the source is sent once more,
  which the user never sees.
* **First call waits, repeats are pipelined.** A call whose *signature* (argument
  kinds, dtypes, shapes, strides, keyword arguments) this kernel object has not
  run yet waits for the server: compile errors and argument errors are raised at
  the call, as in CuPy. The layout of its results is recorded; a later call with
  the same signature does not wait: the client names the result handles and builds
  the proxies from the recorded layout (CuPy's output layout depends on nothing
  else). Errors of a pipelined call surface at the next call that waits; but a
  scalar whose value decides whether it can be packed for its parameter's type (a
  float or NumPy integer for an ``int8``...) is cast here first
  (``kernel_params.check_scalar``: the server's ``cast_scalar``), so that CuPy's
  error is raised at the call, which is not sent (``_ElementwiseBase._scalar_checks``).
* **RawKernel launches** return None, so after the first launch of a signature
  they are queued without waiting at all. CuPy packs a RawKernel's scalars by their
  own types (``function.pyx`` ``_pointer``: ``CScalar(x)``), whatever the kernel's
  parameters, so what can fail is decided by the signature (an int's range, not its
  value); ``stream=`` other than None or a stream, and a grid, block or shared memory
  ``launch_rules`` does not pass, wait. A launch like one pipelined before (its grid,
  block, ``shared_mem`` and its arguments' types: ``_launch_key``) is queued at once,
  its arguments packed here (``_args_ext``).
"""
from __future__ import annotations

import hashlib
import os
import weakref
from typing import Any, Callable

import msgpack
import numpy

from .. import client as _client
from .. import errors, launch_rules
from ..client import RemoteHandle, handle_ext
from ..cython_args import cython_function, cython_signature
from ..kernel_includes import localize
from ..kernel_params import check_scalar, decide_params_type, param_info
from ..protocol import Encoder, Ext, MdspanArg, plain_ext
from . import _ndarray, _objects
from ._objects import RemoteObjectProxy

#: session -> kernel keys its worker holds (constructions need not wait)
_KNOWN: "weakref.WeakKeyDictionary[Any, set]" = weakref.WeakKeyDictionary()
#: server_id -> kernel keys that server holds for all its sessions (so far as we know)
_SERVER_KNOWN: dict[str, set] = {}

_SCALAR_KINDS = (bool, int, float, complex)

#: NumPy 2's rules for packing a scalar into a parameter's type (CuPy 14's)
_NUMPY2 = int(numpy.__version__.split(".")[0]) >= 2


def _known(s: Any) -> set:
    known = _KNOWN.get(s)
    if known is None:
        known = _KNOWN[s] = set()
    return known


def _server_known(s: Any) -> set | None:
    """The keys ``s``'s server holds, by its ``server_id``; None when it names none."""
    info = getattr(s, "info", None)
    server_id = info.get("server_id") if isinstance(info, dict) else None
    if not isinstance(server_id, str) or not server_id:
        return None
    return _SERVER_KNOWN.setdefault(server_id, set())


def _kernel_key(kind: str, spec: list) -> str:
    """Content hash of a kernel's constructor arguments."""
    return hashlib.sha256(Encoder().pack([kind, spec])).hexdigest()


def _bind(cls: type, s: Any, hid: int, kind: str, remote: Any) -> Any:
    """The proxy of type ``cls`` for the kernel the server returned as ``remote``."""
    if type(remote) is cls:
        return remote
    proxy = object.__new__(cls)  # a subclass of the registered class
    _objects.bind(proxy, s, hid, kind)
    if remote is not None:
        remote._gs_id = 0  # ownership moves to the new proxy
    return proxy


def session_kernel(s: Any, name: str, make: Callable[[], Any]) -> Any:
    """The kernel ``make()`` gives, made once for session ``s`` (a kernel belongs to its
    session, and learns its results' layout at its first call: later ones queue). For
    the kernels CuPy's own Python routines make at import (``piecewise``...)."""
    kernels = s.__dict__.setdefault("_gs_kernels", {})
    kernel = kernels.get(name)
    if kernel is None:
        kernel = kernels[name] = make()
    return kernel


def _construct(cls: type, kind: str, args: tuple, kwargs: dict,
               here: str | None = None) -> Any:
    """Create the server kernel ``kind(*args, **kwargs)`` bound to a new ``cls`` (the
    headers its source includes from this machine's include directories, or from
    ``here``, written into it: ``kernel_includes.localize``)."""
    given = (args, kwargs)
    args, kwargs = localize(kind, args, kwargs, here)
    proxy = _construct_localized(cls, kind, args, kwargs)
    proxy.__dict__["_gs_spec"] = (args, kwargs)  # (what a pickle carries)
    proxy.__dict__["_gs_given"] = given  # (what its attributes read back)
    return proxy


def _param_info(s: str, is_const: bool) -> tuple:
    """The kernel parameters ``s`` as CuPy's ``ParameterInfo`` (``kernel_params``)."""
    from ._core import get_typename
    return param_info(s, is_const, get_typename)


#: the constructors' parameters, in order, with their defaults (CuPy's)
_SIGNATURES = {
    "ElementwiseKernel": (("in_params", None), ("out_params", None), ("operation", None),
                          ("name", "kernel"), ("reduce_dims", True), ("preamble", ""),
                          ("no_return", False), ("return_tuple", False)),
    "ReductionKernel": (("in_params", None), ("out_params", None), ("map_expr", None),
                        ("reduce_expr", None), ("post_map_expr", None), ("identity", None),
                        ("name", "reduce_kernel"), ("reduce_type", None),
                        ("reduce_dims", True), ("preamble", ""), ("options", ())),
}


def _unpickle(cls: type, args: tuple, kwargs: dict) -> Any:
    """A pickled RawKernel or RawModule, made again (CuPy recompiles after unpickling)."""
    proxy = _construct(cls, cls._kind, args, kwargs)
    if kwargs.get("jitify"):
        proxy.__dict__["_gs_jitify"] = True
    return proxy


def _unpickle_function(module: Any, name: str) -> Any:
    return module.get_function(name)


def _construct_localized(cls: type, kind: str, args: tuple, kwargs: dict) -> Any:
    s = _client.get_session()
    spec = [list(args), dict(kwargs)]
    key = _kernel_key(kind, spec)
    known = _known(s)
    server_known = _server_known(s)
    if key in known:  # this session's worker has the kernel: no source, no wait
        hid = s.new_id()
        s.submit("call", "gpushare.kernel", (kind, key), {}, out_id=hid,
                 description=f"cupy.{kind}")
        proxy = object.__new__(cls)
        _objects.bind(proxy, s, hid, kind)
        return proxy
    if server_known is not None and key in server_known:
        # the server has the source: the hash alone, waiting, as it may be gone
        hid = s.new_id()
        try:
            remote = s.call("call", "gpushare.kernel", (kind, key), {}, out_id=hid)
        except errors.KernelUnknownError as exc:
            if key not in str(exc):
                raise
            server_known.discard(key)
            s.release(hid)  # never made; forgets the failure recorded for it
        else:
            known.add(key)
            return _bind(cls, s, hid, kind, remote)
    hid = s.new_id()
    remote = s.call("call", "gpushare.kernel", (kind, key, spec), {}, out_id=hid)
    known.add(key)
    if server_known is not None:
        server_known.add(key)
    return _bind(cls, s, hid, kind, remote)


def _prepare_arg(a: Any) -> Any:
    """Kernel arguments as they should travel: 0-d numpy arrays as scalars (CuPy
    reads them as values); size-1 structured arrays stay arrays (structs by value)."""
    if isinstance(a, numpy.ndarray) and a.ndim == 0 and a.dtype.kind != "V":
        return a[()]
    if type(a) in _PLAIN_ARGS or isinstance(a, (_ndarray.ndarray, numpy.ndarray)):
        return a
    if hasattr(a, "__cuda_array_interface__"):  # as CuPy's kernels: a view of the
        from . import _array_like                # gpushare array it points into
        return _array_like(a)
    return a


_PLAIN_ARGS = frozenset({int, float, complex, bool, type(None)})


def _raw_arg(s: Any, a: Any) -> Any:
    """A RawKernel argument as it should travel: a ``MemoryPointer`` (CuPy passes its
    address) as a byte view of the server memory from that address to the end of its
    allocation, which the kernel receives as a pointer to its first byte."""
    from ._core._carray import mdspan
    from ._ndarray import MemoryPointer, from_pointer, resolve_pointer
    if isinstance(a, mdspan):
        return a._wire()
    if not isinstance(a, MemoryPointer):
        return _prepare_arg(a)
    if a.ptr == 0:
        return None  # NULL
    root = a._root if a._root is not None else resolve_pointer(s, a.ptr)[0]
    s = root._gs_session
    _, offset = resolve_pointer(s, a.ptr)
    return from_pointer(s, a.ptr, (max(root.nbytes - offset, 0),), numpy.uint8, None)


def _arg_sig(a: Any, raw: bool = False) -> Any:
    """What of an argument decides the layout of a kernel's results (and whether the
    server accepts it); None when the call must wait."""
    from ._ndarray import ndarray
    if isinstance(a, ndarray):
        if raw:
            return ("a",)
        return ("a", a.dtype.str, a.shape, a.strides)
    if isinstance(a, bool):
        return ("b",)
    if isinstance(a, int):
        if raw:  # packed by its own type (CuPy's ``CScalar``): an int64, a uint64 from
            # 2**63 on, NumPy's OverflowError beyond
            return ("i", 0 if _I64_MIN <= a < _I64_END else 1 if 0 <= a < 1 << 64 else 2)
        # whether an int fits a given integer type depends only on its sign and the
        # bit length of its magnitude
        return ("i", a < 0, (a if a >= 0 else ~a).bit_length())
    if isinstance(a, float):
        return ("f",)
    if isinstance(a, complex):
        return ("c",)
    if isinstance(a, numpy.generic):
        return ("s", a.dtype.str)
    if isinstance(a, numpy.ndarray):
        return ("h", a.dtype.str, a.shape)
    if a is None:
        return ("n",)
    if isinstance(a, RemoteObjectProxy):
        return ("o", a._type_name)
    if isinstance(a, MdspanArg):
        return ("m", a.index_itemsize, a.allow_unsafe)
    return None


def _kw_sig(v: Any) -> Any:
    """What of a keyword argument decides the layout of a kernel's results: its value
    for scalars (``axis=``, ``keepdims=``, ``size=`` give the shape), item by item for
    sequences; as :func:`_arg_sig` for the rest (``out=``, ``stream=``)."""
    if v is None or type(v) in (bool, int, float, complex, str):
        return ("v", type(v).__name__, v)
    if isinstance(v, numpy.generic) and v.dtype.kind in "biufc":
        return ("v", v.dtype.str, v.item())
    if isinstance(v, (tuple, list)):
        t = tuple(_kw_sig(x) for x in v)
        return None if None in t else (type(v).__name__, t)
    return _arg_sig(v)


def _call_sig(args: Any, kwargs: dict, raw: bool = False) -> Any:
    sig = []
    for a in args:
        t = _arg_sig(a, raw)
        if t is None:
            return None
        sig.append(t)
    for k in sorted(kwargs):
        t = _kw_sig(kwargs[k])
        if t is None:
            return None
        sig.append((k, t))
    return tuple(sig)


def _template(result: Any, args: tuple, kwargs: dict) -> Any:
    """Record the layout of a call's result: ``("none",)``, ``("one", item)`` or
    ``("tuple", [items])``; an item is ``("arg", i)`` / ``("kw", name)`` (the result
    is that argument, e.g. ``out=``) or ``("new", shape, dtype, strides, flags)``;
    None when not recordable."""
    from ._ndarray import ndarray

    def item(r: Any) -> Any:
        if not isinstance(r, ndarray):
            return None
        for i, a in enumerate(args):
            if a is r:
                return ("arg", i)
        for k, a in kwargs.items():
            if a is r:
                return ("kw", k)
        if r._flags is None or r._base is not None:
            return None
        return ("new", r._shape, r._dtype, r._strides, r._flags)
    if result is None:
        return ("none",)
    if isinstance(result, tuple):
        items = [item(r) for r in result]
        return None if None in items else ("tuple", items)
    one = item(result)
    return None if one is None else ("one", one)


def _pipelined(s: Any, obj: Any, template: Any, args: tuple, kwargs: dict,
               description: str) -> Any:
    """Queue ``obj(*args, **kwargs)`` and build its result from ``template``."""
    from ._ndarray import _new
    kind = template[0]
    if kind == "none":
        s.submit("method", "__call__", (obj, *args), kwargs, description=description)
        return None
    items = template[1] if kind == "tuple" else [template[1]]
    if kind == "one" and items[0][0] in ("arg", "kw"):  # the result is an argument (out)
        s.submit("method", "__call__", (obj, *args), kwargs, description=description)
        return args[items[0][1]] if items[0][0] == "arg" else kwargs[items[0][1]]
    ids = [s.new_id() for _ in items]
    out_id: Any = ids if kind == "tuple" else ids[0]
    s.submit("method", "__call__", (obj, *args), kwargs, out_id=out_id,
             description=description)
    results = []
    for hid, it in zip(ids, items):
        if it[0] in ("arg", "kw"):
            s.release(hid)  # a second name for an argument: not needed here
            results.append(args[it[1]] if it[0] == "arg" else kwargs[it[1]])
        else:
            _, shape, dtype, strides, flags = it
            results.append(_new(s, hid, shape, dtype, strides, flags, None))
    return tuple(results) if kind == "tuple" else results[0]


class _Kernel(RemoteObjectProxy):
    """A server kernel object; calls wait the first time per signature only."""

    _kind = ""
    _gs_templates: Any = None  # signature -> result template (per object)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return _construct(cls, cls._kind, args, kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def _templates(self) -> dict:
        t = self.__dict__.get("_gs_templates")
        if t is None:
            t = self.__dict__["_gs_templates"] = {}
        return t

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        s = self._gs_session
        args = tuple(_prepare_arg(a) for a in args)
        kwargs = {k: _prepare_arg(v) for k, v in kwargs.items()}
        sig = None if s.sync else _call_sig(args, kwargs)
        templates = self._templates()
        template = templates.get(sig) if sig is not None else None
        if template is not None:
            checks = template[-1] if template[0] == "checked" else None
            if checks is not None:
                template = template[1]
                for i, dtype in checks:  # CuPy's error for a value that does not fit
                    check_scalar(args[i], dtype)  # its parameter, raised at the call
            return _pipelined(s, self, template, args, kwargs, f"{self._kind} call")
        result = s.call("method", "__call__", (self, *args), kwargs)
        if sig is not None:
            t = _template(result, args, kwargs)
            if t is not None:
                checks = self._scalar_checks(args, kwargs)
                templates[sig] = ("checked", t, checks) if checks else t
        return result

    def _scalar_checks(self, args: tuple, kwargs: dict) -> tuple:
        """``(index, dtype)`` of each scalar argument of this call whose packing for
        its parameter depends on its value (see :class:`_ElementwiseBase`)."""
        return ()

    def _attr(self, name: str) -> Any:
        return self._gs_session.call("getattr", name, (self,))

    def __repr__(self) -> str:
        return f"<gpushare {self._kind} #{self._gs_id}>"


def _given_attr(name: str) -> property:
    """A kernel's readonly attribute: the constructor's argument ``name``."""
    return property(lambda self: self._given()[name], doc=f"See Also: {name} (CuPy's)")


class _ElementwiseBase(_Kernel):
    """ElementwiseKernel and ReductionKernel: what they were constructed with reads back
    here (CuPy's readonly attributes), without asking the server."""

    def _given(self) -> dict:
        """The constructor's arguments by name, defaults filled in; extra keyword
        arguments under ``"kwargs"``."""
        given = self.__dict__.get("_gs_given_map")
        if given is None:
            args, kwargs = self.__dict__.get("_gs_given", ((), {}))
            kwargs = dict(kwargs)
            given = {}
            for i, (name, default) in enumerate(_SIGNATURES[self._kind]):
                given[name] = args[i] if i < len(args) else kwargs.pop(name, default)
            given["kwargs"] = kwargs
            self.__dict__["_gs_given_map"] = given
        return given

    def _scalar_checks(self, args: tuple, kwargs: dict) -> tuple:
        """``(index, dtype)`` of each scalar argument of this call (which the server ran:
        its arguments' dtypes, in its signature, typed it) whose packing for its
        parameter's type depends on its value, not only on what the signature holds:
        ``kernel_params.cast_scalar`` (CuPy's ``CScalar.apply_dtype``, NumPy's item
        assignment; ``check_scalar`` here, the same without the value) of a
        float, or of a NumPy integer or float, into an integer type (NaN, infinity, out
        of range), of any but a bool into other types (structs). A later call of that
        signature is pipelined, so the client casts those scalars itself first, and
        CuPy's error is raised at the call, which is not sent.

        Python ints and bools are not checked: the signature holds an int's sign and
        bit length, which decide whether it fits; nor casts into float, complex or bool
        types, which take any real value (NaN, infinity); nor complex NumPy scalars
        into integers (NumPy's ComplexWarning would be given twice). None of it with
        NumPy 1 on the client (CuPy 14's NumPy 2 rules differ): errors of such calls
        surface at the next call that waits, as before."""
        if not _NUMPY2:
            return ()
        from ._ndarray import ndarray
        try:
            in_params, out_params = self.in_params, self.out_params
            nin = len(in_params)
            outs = list(args[nin:])
            if self._kind == "ReductionKernel" and kwargs.get("out") is not None:
                outs = [kwargs["out"]]

            def dtype_of(a: Any) -> Any:
                if isinstance(a, ndarray):
                    return a.dtype
                if type(a) in _PLAIN_ARGS or isinstance(a, numpy.generic):
                    return None
                raise TypeError  # (a texture object...: not checked here)
            in_types, _, _ = decide_params_type(
                in_params, out_params, tuple(dtype_of(a) for a in args[:nin]),
                tuple(dtype_of(a) for a in outs))
        except Exception:
            return ()
        checks = []
        for i, (a, t) in enumerate(zip(args[:nin], in_types)):
            if isinstance(a, ndarray) or a is None:
                continue
            t = numpy.dtype(t)
            if t.kind in "fcb" or isinstance(a, (bool, int, numpy.bool_)):
                continue
            if t.kind in "iu" and not (isinstance(a, float) or isinstance(
                    a, numpy.generic) and a.dtype.kind in "iuf"):
                continue
            if isinstance(a, numpy.generic) and a.dtype == t:
                continue
            checks.append((i, t))
        return tuple(checks)

    def _params_of(self, which: str) -> tuple:
        key = f"_gs_{which}"
        params = self.__dict__.get(key)
        if params is None:
            params = self.__dict__[key] = _param_info(self._given()[which],
                                                      which == "in_params")
        return params

    @property
    def name(self) -> str:
        return self._given()["name"]

    @property
    def __name__(self) -> str:  # type: ignore[override]  # (profilers read it)
        return self._given()["name"]

    @property
    def in_params(self) -> tuple:
        return self._params_of("in_params")

    @property
    def out_params(self) -> tuple:
        return self._params_of("out_params")

    @property
    def nin(self) -> int:
        return len(self.in_params)

    @property
    def nout(self) -> int:
        return len(self.out_params)

    @property
    def nargs(self) -> int:
        return self.nin + self.nout

    @property
    def reduce_dims(self) -> bool:
        return bool(self._given()["reduce_dims"])

    preamble = _given_attr("preamble")

    @property
    def cached_codes(self) -> dict:
        return dict(self._attr("cached_codes"))

    @property
    def _cached_codes(self) -> dict:
        return self.cached_codes

    @property
    def cached_code(self) -> str:
        return self._attr("cached_code")


@_objects.register("ElementwiseKernel")
class ElementwiseKernel(_ElementwiseBase):
    """User-defined elementwise kernel, compiled and run on the server.

    See Also
    --------
    cupy.ElementwiseKernel
    """

    _kind = "ElementwiseKernel"

    @property
    def params(self) -> tuple:
        return self.in_params + self.out_params + _param_info("CIndexer _ind", False)

    operation = _given_attr("operation")

    @property
    def no_return(self) -> bool:
        return bool(self._given()["no_return"])

    @property
    def return_tuple(self) -> bool:
        return bool(self._given()["return_tuple"])

    @property
    def kwargs(self) -> dict:
        return dict(self._given()["kwargs"])


@_objects.register("ReductionKernel")
class ReductionKernel(_ElementwiseBase):
    """User-defined reduction kernel, compiled and run on the server.

    See Also
    --------
    cupy.ReductionKernel
    """

    _kind = "ReductionKernel"

    params = None  # (CuPy declares it and never sets it)

    @property
    def identity(self) -> str:
        identity = self._given()["identity"]
        return "" if identity is None else str(identity)

    map_expr = _given_attr("map_expr")

    reduce_expr = _given_attr("reduce_expr")

    post_map_expr = _given_attr("post_map_expr")

    options = _given_attr("options")

    @property
    def reduce_type(self) -> Any:
        reduce_type = self._given()["reduce_type"]
        return self.out_params[0].ctype if reduce_type is None else reduce_type


def _launch_ok(kernel: Any, grid: Any, block: Any, shared_mem: Any) -> bool:
    """Whether a launch surely passes CuPy's and CUDA's checks (``launch_rules``, the
    server's own; else it waits, so the error is raised at the launch), with the
    kernel's ``max_dynamic_shared_size_bytes`` as this proxy set it."""
    max_shared = kernel.__dict__.get("_gs_max_dyn", launch_rules.MAX_SHARED_DEFAULT)
    if not launch_rules.launch_ok(grid, block, shared_mem, max_shared):
        return False
    if kernel._cooperative():  # (CuPy's warning or ValueError: the launch waits)
        try:
            return launch_rules.cooperative_grid(grid)[1] is None
        except Exception:
            return False
    return True


_STREAM: Any = None  # cupy.cuda.Stream (imported at the first launch)


def _stream_type() -> type:
    global _STREAM
    if _STREAM is None:
        from .cuda import Stream
        _STREAM = Stream
    return _STREAM


def _plain_launch(kwargs: dict) -> bool:
    """Whether a launch's keywords are all ``Function.__call__``'s own and surely pass
    its checks but ``shared_mem``'s (:func:`_launch_ok`): ``stream=`` None or a stream
    of this client (a stream's ``ptr``: ``_get_stream``). Else the launch waits, and the
    server raises CuPy's error (an unknown keyword's TypeError, ``stream=5``'s
    AttributeError) at the call."""
    for name, value in kwargs.items():
        if name == "stream":
            if value is not None and not isinstance(value, _stream_type()):
                return False
        elif name != "shared_mem":
            return False
    return True


def _no_len_launch(kernel: Any, grid: Any, block: Any, args: Any, kwargs: dict) -> None:
    """A launch whose ``args`` has no length (it cannot travel): what CuPy raises before
    it takes ``len(args)`` (the compile, then ``Function.__call__``'s keywords,
    ``shared_mem``, ``grid``, ``block``, ``stream``: ``launch_rules``) raised here; else
    the caller raises ``len``'s error."""
    _compile(kernel, None)
    kwargs = launch_rules.function_kwargs(kwargs, False)  # (its value: not looked at)
    grid3, block3, _, _, stream = launch_rules.function_call(grid, block, args, **kwargs)
    launch_rules.stream_ptr(stream)
    launch_rules.dims(grid3)
    launch_rules.dims(block3)


_I64_MIN, _I64_END = -(1 << 63), 1 << 63

#: argument type -> whether a launch of such arguments can be decided by their types
#: alone (:func:`_launch_key`): device arrays (a pointer), None, Python's bool, float
#: and int (from -2**63 to below 2**63: an int64), NumPy's numeric scalars. Each is
#: packed by its own type (CuPy's ``_pointer``: ``CScalar(x)``, not the parameter's
#: type), which the server surely does for them; other arguments (memory pointers,
#: mdspans, host arrays, objects) go the general way
_BY_TYPE: dict = {}


def _by_type(t: type) -> bool:
    ok = _BY_TYPE.get(t)
    if ok is None:
        if issubclass(t, _ndarray.ndarray):
            ok = True
        elif t in (bool, int, float, complex, type(None)):
            ok = True
        elif issubclass(t, numpy.generic) and t is not numpy.generic:
            ok = numpy.dtype(t).kind in "biufc"
        else:
            ok = False
        if len(_BY_TYPE) < 1024:
            _BY_TYPE[t] = ok
    return ok


def _launch_key(grid: Any, block: Any, args: Any, kwargs: dict) -> Any:
    """What decides whether a launch can be pipelined, when its arguments' types do
    (:func:`_by_type`): ``grid``, ``block`` (tuples of ints), ``shared_mem`` (an int)
    and the types of ``args`` (a tuple or list), with ``stream=`` None or a stream;
    None otherwise (the launch goes the general way)."""
    if type(grid) is not tuple or type(block) is not tuple:
        return None
    for v in grid:  # (exact ints: 4.0 == 4 hashes alike, and is refused)
        if type(v) is not int:
            return None
    for v in block:
        if type(v) is not int:
            return None
    shared_mem = 0
    if kwargs:
        if not _plain_launch(kwargs):
            return None
        shared_mem = kwargs.get("shared_mem", 0)
        if type(shared_mem) is not int:
            return None
    t = type(args)
    if t is not tuple and t is not list:
        return None
    types = []
    for a in args:
        t = type(a)
        ok = _BY_TYPE.get(t)
        if ok is None:
            ok = _by_type(t)
        if not ok or (t is int and not _I64_MIN <= a < _I64_END):
            return None
        types.append(t)
    return (grid, block, shared_mem, tuple(types))


_TUPLE_PACKER = msgpack.Packer(strict_types=True, use_bin_type=True)
_PACKED_AS_IS = frozenset({int, float, bool, type(None)})


def _args_ext(args: Any) -> Any:
    """A launch's ``args`` (of :func:`_launch_key`'s types) as the session's encoder
    packs a tuple of them, made directly (``protocol.plain_ext``'s way, arrays as
    ``client.handle_ext``, NumPy scalars as ``Encoder`` packs them: the same bytes,
    ``tests/test_raw_launch_errors.py`` checks); None where it would do more than that
    (a complex; an array whose making call failed, whose error the encoder raises)."""
    items = []
    for a in args:
        t = type(a)
        if t in _PACKED_AS_IS:  # (ints: int64's, by the key)
            items.append(a)
        elif isinstance(a, RemoteHandle):
            if a._gs_session._poisoned:
                return None
            items.append(handle_ext(a._gs_id))
        else:
            code = _SCALAR_WIRE.get(t)
            if code is None:
                if t is complex or not issubclass(t, numpy.generic):
                    return None
                code = _SCALAR_WIRE[t] = numpy.dtype(t).str  # (numeric: ``_by_type``)
            items.append(msgpack.ExtType(Ext.NUMPY_SCALAR,
                                         _TUPLE_PACKER.pack([code, a.tobytes()])))
    return msgpack.ExtType(Ext.TUPLE, _TUPLE_PACKER.pack(items))


#: NumPy scalar type -> its dtype on the wire (``protocol.dtype_to_wire``)
_SCALAR_WIRE: dict = {}


#: launch keys remembered per kernel (a program that varies its grid at each launch
#: starts again from none past this)
_MAX_LAUNCH_KEYS = 256


@_objects.register("RawKernel")
class RawKernel(_Kernel):
    """User-defined raw CUDA kernel, compiled and launched on the server.

    Launches return None; after the first launch of an argument signature they are
    queued without waiting for the server.

    See Also
    --------
    cupy.RawKernel
    """

    _kind = "RawKernel"

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("jitify") is not None:
            from .cuda.compiler import _jitify_deprecation_warning
            _jitify_deprecation_warning(kwargs["jitify"])
        return _construct(cls, cls._kind, args, kwargs)

    def __reduce__(self) -> Any:
        """A pickle holds what made the kernel (its source and options: CuPy's
        ``__getstate__``), made again where it is loaded."""
        module = self.__dict__.get("_gs_module")
        if module is not None:
            return _unpickle_function, (module, self.__dict__["_gs_name"])
        return _unpickle, (type(self), *self.__dict__["_gs_spec"])

    def __call__(self, *pos: Any, **kwargs: Any) -> None:
        # CuPy's ``RawKernel.__call__(self, grid, block, args, **kwargs)``, which compiles
        # and calls ``Function.__call__(grid, block, args, enable_cooperative_groups=
        # self.enable_cooperative_groups, **kwargs)``: ``args`` any object with a length,
        # ``shared_mem=`` and ``stream=`` the only keywords (``launch_rules``)
        s = self._gs_session
        fast = self.__dict__.get("_gs_fast")
        if fast is not None and len(pos) == 3:
            # a launch like one pipelined before: its grid, block, shared_mem and the
            # types of its arguments decided that (``_launch_key``), nothing else
            grid, block, args = pos
            key = _launch_key(grid, block, args, kwargs)
            if key is not None:
                known = fast.get(key)
                if known is not None:
                    description, grid_ext, block_ext = known
                    packed = _args_ext(args)
                    if packed is not None:  # (grid, block and args as packed already)
                        s.submit("method", "__call__", (self, grid_ext, block_ext, packed),
                                 kwargs, description=description)
                    else:
                        s.submit("method", "__call__", (self, grid, block, tuple(args)),
                                 kwargs, description=description)
                    return None
        grid, block, args, kwargs = launch_rules.raw_kernel_call(*pos, **kwargs)
        try:
            len(args)
        except Exception:
            _no_len_launch(self, grid, block, args, kwargs)
            raise
        given = args
        args = tuple(_raw_arg(s, a) for a in args)
        call_args = (grid, block, args)
        sig = None if s.sync else _call_sig(args, {}, raw=True)
        templates = self._templates()
        plain = sig is not None and _plain_launch(kwargs)
        if plain and sig in templates and \
                _launch_ok(self, grid, block, kwargs.get("shared_mem", 0)):
            s.submit("method", "__call__", (self, *call_args), kwargs,
                     description=self._remember(grid, block, given, kwargs))
            return None
        s.call("method", "__call__", (self, *call_args), kwargs)
        if plain:
            templates[sig] = ("none",)
            if _launch_ok(self, grid, block, kwargs.get("shared_mem", 0)):
                self._remember(grid, block, given, kwargs)
        return None

    def _remember(self, grid: Any, block: Any, args: Any, kwargs: dict) -> str:
        """Note that launches like this one (``_launch_key``) are pipelined, so that
        the next one comes straight to the queue; its description."""
        description = f"RawKernel {self._name_hint()} launch"
        key = _launch_key(grid, block, args, kwargs)
        if key is not None:
            fast = self.__dict__.get("_gs_fast")
            if fast is None or len(fast) >= _MAX_LAUNCH_KEYS:
                fast = self.__dict__["_gs_fast"] = {}
            fast[key] = (description, plain_ext(grid), plain_ext(block))
        return description

    def _cooperative(self) -> bool:
        """The kernel's ``enable_cooperative_groups`` (its constructor's, or its
        module's; asked of the server once where neither is known here)."""
        flag = self.__dict__.get("_gs_coop")
        if flag is None:
            module = self.__dict__.get("_gs_module")
            owner = module if module is not None else self
            given = owner.__dict__.get("_gs_given")
            if given is not None and "enable_cooperative_groups" in given[1]:
                flag = bool(given[1]["enable_cooperative_groups"])
            elif given is not None and module is None and len(given[0]) <= 4:
                flag = False  # (keyword-only in CuPy's constructor: the default)
            elif given is not None and module is not None:
                flag = False
            else:
                flag = bool(self._attr("enable_cooperative_groups"))
            self.__dict__["_gs_coop"] = flag
        return flag

    def _name_hint(self) -> str:
        return self.__dict__.get("_gs_name") or f"#{self._gs_id}"

    @cython_signature(name="compile")
    def compile(self, log_stream: Any = None) -> None:
        """Compile now (on the server); the compiler's log is written to ``log_stream``.
        See cupy.RawKernel.compile."""
        _compile(self, log_stream)

    @property
    def attributes(self) -> dict:
        return dict(self._attr("attributes"))

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        return self._attr("max_dynamic_shared_size_bytes")

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, value: int) -> None:
        # (kept here: the launches it allows are pipelined, the others wait)
        self._gs_session.call("setattr", "max_dynamic_shared_size_bytes", (self, int(value)))
        self.__dict__["_gs_max_dyn"] = int(value)
        fast = self.__dict__.pop("_gs_fast", None)  # (the launches it decided)
        if fast is not None:
            fast.clear()  # (and those of the same module's function: ``get_function``)

    @property
    def preferred_shared_memory_carveout(self) -> int:
        return self._attr("preferred_shared_memory_carveout")

    @preferred_shared_memory_carveout.setter
    def preferred_shared_memory_carveout(self, value: int) -> None:
        self._gs_session.call("setattr", "preferred_shared_memory_carveout", (self, int(value)))

    def __getattr__(self, name: str) -> Any:
        if name in ("num_regs", "max_threads_per_block", "shared_size_bytes",
                    "const_size_bytes", "local_size_bytes", "ptx_version", "binary_version",
                    "cache_mode_ca", "name", "code", "options", "backend",
                    "translate_cucomplex", "enable_cooperative_groups", "jitify", "file_path",
                    "name_expressions"):
            return self._attr(name)
        return super().__getattr__(name)


@cython_function({"code": str, "path": str, "options": tuple, "backend": str},
                 name="__init__")
def _raw_module_init(*, code: Any = None, path: Any = None, options: Any = (),
                     backend: Any = "nvrtc", translate_cucomplex: Any = False,
                     enable_cooperative_groups: Any = False, name_expressions: Any = None,
                     jitify: Any = None) -> None:
    """CuPy's ``RawModule.__init__(self, *, str code=None, str path=None, tuple
    options=(), str backend='nvrtc', bint translate_cucomplex=False, bint
    enable_cooperative_groups=False, name_expressions=None, jitify=None)``: Cython's
    checks of its arguments (the server's ``RawModule`` has the same signature)."""


@_objects.register("RawModule")
class RawModule(_Kernel):
    """User-defined CUDA module, compiled on the server.

    ``RawModule(path=...)`` reads the file here (the client's machine) and sends its
    CUDA C++ source; cubin/PTX/fatbin files cannot be loaded.

    See Also
    --------
    cupy.RawModule
    """

    _kind = "RawModule"

    def __new__(cls, *args: Any, code: Any = None, path: Any = None, **kwargs: Any) -> Any:
        # keyword-only, as CuPy's (Cython's words); and sent so, since CuPy's
        # constructor on a GPU server takes no positional argument
        _raw_module_init(*args, code=code, path=path, **kwargs)
        if (code is None) == (path is None):
            raise TypeError("Exactly one of `code` and `path` keyword arguments must be "
                            "given.")
        if path is not None:  # CuPy's checks before the file is read
            if kwargs.get("name_expressions") is not None:
                raise ValueError("need CUDA C++ code for the requested kernels")
            if kwargs.get("jitify"):
                raise ValueError("Jitify does not support precompiled objects")
        if kwargs.get("jitify") is not None:
            from .cuda.compiler import _jitify_deprecation_warning
            _jitify_deprecation_warning(kwargs["jitify"])
        if path is not None:
            # the file is read here, where the program runs; CuPy reads it at the first
            # get_function (cuModuleLoad), so a missing file is reported earlier
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                raise errors.CUDADriverError(
                    301, "CUDA_ERROR_FILE_NOT_FOUND: file not found") from None
            head = data[:4096]
            if head[:4] == b"\x7fELF" or b"\x00" in head or (b".version" in head and
                                                             b".target" in head):
                raise NotImplementedError(
                    "gpushare: RawModule(path=...) can load CUDA C++ source files only "
                    "(cubin/PTX/fatbin files cannot be sent to the server); pass code=")
            code = data.decode("utf-8")
        if kwargs.get("name_expressions") is not None:
            kwargs["name_expressions"] = list(kwargs["name_expressions"])
        proxy = _construct(cls, cls._kind, (), {"code": code, **kwargs},
                           os.path.dirname(os.path.abspath(path)) if path is not None
                           else None)
        if kwargs.get("jitify"):
            proxy.__dict__["_gs_jitify"] = True
        return proxy

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("'RawModule' object is not callable")

    def __reduce__(self) -> Any:
        """See :meth:`RawKernel.__reduce__`."""
        return _unpickle, (type(self), *self.__dict__["_gs_spec"])

    @cython_signature(name="compile")
    def compile(self, log_stream: Any = None) -> None:
        """Compile now (on the server); the compiler's log is written to ``log_stream``.
        See cupy.RawModule.compile."""
        _compile(self, log_stream)

    @cython_signature({"name": str}, name="get_function")
    def get_function(self, name: str) -> RawKernel:
        """See Also: cupy.RawModule.get_function"""
        if self.__dict__.get("_gs_jitify"):  # CuPy's RawKernel(jitify=True) warns
            from .cuda.compiler import _jitify_deprecation_warning
            _jitify_deprecation_warning(True)
        s = self._gs_session
        found = self.__dict__.setdefault("_gs_found", {})
        if isinstance(name, str) and name in found:
            # found before: the module is compiled and has it, so nothing can fail now
            # (CuPy's lookup returns a new kernel object each time; so does the server)
            k = _objects.queue_object(s, "method", "get_function", (self, name), {},
                                      *found[name], "RawModule.get_function")
        else:
            k = s.call("method", "get_function", (self, name))
            if isinstance(name, str) and len(found) < 256:
                found[name] = (type(k), k._type_name)
        k.__dict__["_gs_name"] = name
        k.__dict__["_gs_module"] = self  # (a pickle of the kernel carries the module's)
        # What the launches of this module's ``name`` taught (the argument signatures
        # that launch, the launches queued straight away) is one CUDA function's: the
        # kernels of later ``get_function(name)`` calls share it, so only the first
        # launch of each signature waits, not the first of each kernel object
        learned = self.__dict__.setdefault("_gs_learned", {})
        if isinstance(name, str) and name not in learned and len(learned) < 256:
            learned[name] = ({}, {})
        if isinstance(name, str) and name in learned:
            k.__dict__["_gs_templates"], k.__dict__["_gs_fast"] = learned[name]
        return k

    @cython_signature(name="get_global")
    def get_global(self, name: str) -> Any:
        """A pointer to the ``__device__``/``__constant__`` variable ``name``; view it
        with ``cupy.ndarray(shape, dtype, memptr=...)``.

        See Also
        --------
        cupy.RawModule.get_global
        """
        arr = self._gs_session.call("method", "get_global", (self, name))
        from . import _ndarray
        return _ndarray.pointer_of(arr)

    def __getattr__(self, name: str) -> Any:
        if name in ("code", "options", "backend", "name_expressions", "translate_cucomplex",
                    "enable_cooperative_groups", "jitify", "file_path"):
            return self._attr(name)
        return super().__getattr__(name)


def _compile(kernel: Any, log_stream: Any) -> None:
    """``compile(log_stream=...)`` of a RawKernel or RawModule: the stream cannot travel,
    so the server is asked for the log's text (``log_stream=True``) and it is written
    here."""
    if log_stream is None:
        kernel._gs_session.call("method", "compile", (kernel,))
        return
    log = kernel._gs_session.call("method", "compile", (kernel,), {"log_stream": True})
    if isinstance(log, str):
        log_stream.write(log)


# --- cupy.fuse -----------------------------------------------------------------------
#: how deep this thread is in fused functions called with device arrays
from ._ndarray import _FUSING as FUSING  # noqa: E402 - shared with ndarray's conversions


class Fusion:
    """What ``cupy.fuse`` returns. gpushare runs the Python function with its arrays
    (every operation on the server, pipelined), which gives the fused kernel's
    results; with only host values as arguments it runs on them as CuPy does.

    See Also
    --------
    cupy.fuse
    """

    def __init__(self, func: Any, name: Any = None) -> None:
        self.func = func
        self.name = name or getattr(func, "__name__", "fused")
        self._memo: dict = {}

    def __repr__(self) -> str:
        return '<Fusion \'{}\'>'.format(self.name)

    def clear_cache(self) -> None:
        self._memo = {}

    def __call__(self, *args: Any) -> Any:
        from ._ndarray import ndarray
        depth = getattr(FUSING, "depth", 0)
        if depth:  # a fused function called in another: its code is inlined
            return self.func(*args)
        on_device = any(isinstance(a, ndarray) for a in args)
        if not on_device:
            return self.func(*args)
        for a in args:  # CuPy's ``_acceptable_types`` (cupy/_core/fusion.pyx)
            if not isinstance(a, _FUSE_ACCEPTS):
                raise TypeError('Invalid argument type for \'{}\': ({})'.format(
                    self.name, ', '.join("<class 'cupy.ndarray'>" if isinstance(
                        b, ndarray) else repr(type(b)) for b in args)))
        FUSING.depth = depth + 1  # arrays refuse Python-scalar conversion meanwhile
        try:
            result = self.func(*args)
        finally:
            FUSING.depth = depth
        if isinstance(result, numpy.generic):
            from . import asarray
            return asarray(result)  # CuPy's fused kernels return 0-d device arrays
        # a fused kernel's outputs are new arrays: an argument returned is copied
        if isinstance(result, ndarray):
            return result.copy() if any(result is a for a in args) else result
        if isinstance(result, tuple):
            return tuple(r.copy() if isinstance(r, ndarray) and any(r is a for a in args)
                         else r for r in result)
        return result


#: the arguments a fused function takes with device arrays
_FUSE_ACCEPTS = (_ndarray.ndarray, numpy.ndarray, numpy.generic, int, float, complex,
                 bool, type(None))


def fuse(*args: Any, **kwargs: Any) -> Any:
    """``cupy.fuse``, usable as ``@fuse`` and ``@fuse(kernel_name=...)``.

    See Also
    --------
    cupy.fuse
    """
    import functools

    def wrapper(f: Any, kernel_name: Any = None) -> Fusion:
        return functools.update_wrapper(Fusion(f, kernel_name), f)
    if len(args) == 1 and not kwargs and callable(args[0]):
        return wrapper(args[0])
    return lambda f: wrapper(f, *args, **kwargs)

