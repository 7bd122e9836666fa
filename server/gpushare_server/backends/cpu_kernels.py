"""User kernels on the CPU backend: CuPy's kernel classes over the C kernel emulator
(``gpushare_server.kernels``), as the server exposes them to clients."""
from __future__ import annotations

from typing import Any

from gpushare.kernel_includes import checked
from gpushare.protocol import _UINT_WIDTHS  # (a msgpack uint's width, by its first byte)


def _emulator() -> Any:
    """The kernel emulator's package (optional: it needs cffi)."""
    try:
        from gpushare_server import kernels
    except ImportError as exc:
        raise NotImplementedError(
            f"gpushare: user kernels need the CPU backend's kernel emulator, which this "
            f"server cannot load ({exc}): install it with pip install 'gpushare[cpu]'"
        ) from None
    return kernels


def _kernels(name: str) -> Any:
    return getattr(_emulator(), name)


def _checked(name: str) -> Any:
    """The emulator's constructor ``name``, imported at the first call (the emulator
    is optional: cffi), refusing sources that would read the server's files."""
    construct = (lambda *a, **k: _kernels(name)(*a, **k))
    return construct if name == "fuse" else checked(name, construct)


KERNEL_OVERRIDES: dict[str, Any] = {
    f"cupy.{name}": _checked(name)
    for name in ("ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule", "fuse")
}


def _make_kernel(kind: str, key: str, spec: Any = None) -> Any:
    _emulator()
    from gpushare_server.kernels.remote import cpu_make_kernel
    return cpu_make_kernel(kind, key, spec)


#: the client constructs kernels by content hash through this name (see
#: ``gpushare_server.kernels.remote``)
KERNEL_OVERRIDES["gpushare.kernel"] = _make_kernel

#: kernel types a client may hold handles to, and the methods it may call on them
KERNEL_REMOTE_TYPES: dict[str, frozenset[str]] = {
    "ElementwiseKernel": frozenset({"__call__", "name", "nin", "nout", "nargs", "params",
                                    "cached_codes", "cached_code"}),
    "ReductionKernel": frozenset({"__call__", "name", "nin", "nout", "nargs", "params",
                                  "cached_codes", "cached_code"}),
    "RawKernel": frozenset({"__call__", "attributes", "compile", "max_dynamic_shared_size_bytes",
                            "num_regs", "max_threads_per_block", "shared_size_bytes",
                            "const_size_bytes", "local_size_bytes", "ptx_version",
                            "binary_version", "cache_mode_ca", "preferred_shared_memory_carveout",
                            "name", "code", "options", "backend", "translate_cucomplex",
                            "enable_cooperative_groups", "jitify", "file_path",
                            "name_expressions"}),
    "RawModule": frozenset({"get_function", "get_global", "compile", "code", "options",
                            "backend", "name_expressions", "translate_cucomplex",
                            "enable_cooperative_groups", "jitify", "file_path"}),
}


# --- a kernel's fault: where its sticky error surfaces ----------------------------------
# On a GPU a faulting kernel (a failed ``assert``, ``__trap()``, a bad pointer) returns
# from its launch without an error; the error comes at the next CUDA call: from the
# driver API (``CUDADriverError: CUDA_ERROR_ASSERT: ...``) when that call is a launch
# (CuPy launches every kernel with ``cuLaunchKernel``), from the runtime
# (``CUDARuntimeError: cudaErrorAssert: ...``) when it is a copy, a memset or a
# synchronize; calls that make no CUDA call (a view, an attribute) raise nothing. The
# emulator cannot go on after the fault (nor can the context), so the worker ends at
# the launch itself, with a status that names the fault and, asked before the launch
# (``next_call_launches``), whether the batch's next call that touches the device is a
# launch: the broker then hands the client the driver's error, else the runtime's
# (``worker.KERNEL_FAULTS``, ``DRIVER_FAULTS``). With no such call left in the batch the
# error is the runtime's: the client's next wait is a copy or a synchronize, even where
# the program's next call, in a later batch, is a launch. (Calls that make no CUDA call
# run on a GPU before the error surfaces; here the batch ends at the fault: their
# results could only be seen through a later call, which raises. A call of several
# launches whose first faults raises the driver's error at its second on a GPU; here the
# next call decides. A call that fails before any CUDA call, a ``ValueError`` of its
# arguments, raises that on a GPU, and the sticky error comes after; here the CUDA
# error comes first.)

#: a call's kinds, as CuPy's first CUDA call for it goes (``call_kind``)
DRIVER, RUNTIME = "driver", "runtime"

#: methods whose first CUDA call is a runtime copy or synchronize (``get``, and what
#: CuPy does through it), or that make none (views, ``None``)
_METHOD_KINDS = {
    **dict.fromkeys(("get", "set", "tolist", "item", "tobytes", "tofile", "dump", "dumps",
                     "__float__", "__int__", "__index__", "__complex__", "__bool__",
                     "__repr__", "__str__", "__format__", "__array__", "synchronize",
                     "record", "query", "copy_from_host", "copy_to_host",
                     "copy_from_host_async", "copy_to_host_async", "memset",
                     "memset_async"), RUNTIME),
    **dict.fromkeys(("reshape", "view", "transpose", "swapaxes", "squeeze", "ravel",
                     "__getitem__", "diagonal", "real", "imag", "T", "mT",
                     "__len__", "__array_namespace__", "__dlpack_device__",
                     "get_function_name", "__cuda_array_interface__"), None),
}

#: functions of the same kinds (the rest launch a kernel, or call the driver)
_CALL_KINDS = {
    **dict.fromkeys(("cupy.asnumpy", "cupy.zeros", "cupy.zeros_like",
                     "cupy.cuda.get_elapsed_time", "cupy.cuda.Stream", "cupy.cuda.Event",
                     "cupy.cuda.ExternalStream", "cupy.cuda.runtime.deviceSynchronize"),
                    RUNTIME),
    **dict.fromkeys(("cupy.empty", "cupy.empty_like", "cupy.reshape", "cupy.transpose",
                     "cupy.swapaxes", "cupy.moveaxis", "cupy.rollaxis", "cupy.squeeze",
                     "cupy.expand_dims", "cupy.ravel", "cupy.broadcast_to",
                     "cupy.broadcast_arrays", "cupy.atleast_1d", "cupy.atleast_2d",
                     "cupy.atleast_3d", "cupy.real", "cupy.imag", "cupy.diagonal",
                     "cupy.result_type", "cupy.can_cast", "cupy.min_scalar_type",
                     "cupy.ndim", "cupy.shape", "cupy.size", "cupy.isscalar",
                     "cupy.get_array_module", "cupyx.get_runtime_info",
                     "gpushare.kernel", "cupy.ElementwiseKernel", "cupy.ReductionKernel",
                     "cupy.RawKernel", "cupy.RawModule", "cupy.fuse"), None),
}
#: CuPy's copies from host data (a host array or list: a memcpy); of a device array,
#: ``asarray`` is the array itself, ``array`` a copy kernel
_FROM_HOST = frozenset({"cupy.array", "cupy.asarray", "cupy.asanyarray",
                        "cupy.ascontiguousarray", "cupy.asfortranarray"})
#: the runtime API's calls that use the context (the rest, version and device queries,
#: answer after a sticky error too)
_RUNTIME_USES_CONTEXT = ("memcpy", "memset", "malloc", "free", "stream", "event", "graph",
                         "memGetInfo", "memPrefetch", "memAdvise", "launch",
                         "deviceSynchronize", "hostRegister", "hostUnregister", "ipc")
#: operations of the executor that make no CUDA call (or no user's)
_QUIET_OPS = frozenset({"getattr", "setattr", "pointer", "meta", "from_pointer", "info",
                        "device_attributes", "shm_open", "shm_confirm", "shm_close",
                        "lane_open", "lane_confirm", "lane_close", "express_open",
                        "express_confirm", "express_close"})


def _basic_index(index: Any) -> bool:
    """Whether ``index`` is a basic one (a view: no CUDA call in CuPy)."""
    if isinstance(index, tuple):
        return all(_basic_index(i) for i in index)
    return index is None or index is Ellipsis or type(index) in (int, slice) or (
        hasattr(index, "dtype") and getattr(index, "ndim", 1) == 0 and
        index.dtype.kind in "iu")


def call_kind(call: Any, objects: Any) -> str | None:
    """Which API CuPy's first CUDA call for the executor's ``call`` is in: ``DRIVER``
    (a kernel launch, or another driver call), ``RUNTIME`` (a copy, memset or
    synchronize), or None (no CUDA call: a view, an attribute). ``objects``: the
    session's handle table (``id -> object``), for an array the call names. Where CuPy's
    call depends on more than the call's name, its most common case."""
    if type(call) is not list:
        return None
    if len(call) == 6:  # an operator's record: a ufunc's launch
        return DRIVER
    if len(call) != 7:
        return None
    op, target, args = call[1], call[2], call[3]
    args = args if type(args) is list else []
    if op in ("download", "upload", "upload_begin", "synchronize"):
        if op == "download" and args:
            ref = args[0]
            arr = objects.get(getattr(ref, "id", None))
            if arr is not None and getattr(arr, "size", 1) == 0:
                return None  # (CuPy's get of an empty array copies nothing)
            if arr is not None and hasattr(arr, "flags") and not arr.flags.c_contiguous:
                return DRIVER  # (CuPy's get makes it C-contiguous first: a launch)
        return RUNTIME
    if op in _QUIET_OPS:
        return RUNTIME if op == "getattr" and target == "done" else None  # (a query)
    if op == "memory":
        return RUNTIME if target == "free_all_blocks" else None  # (cudaFree)
    if op == "getitem":  # (an array's basic index is a view; a sparse matrix's is not)
        obj = objects.get(getattr(args[0], "id", None)) if args else None
        return None if len(args) > 1 and _basic_index(args[1]) and (
            obj is None or hasattr(obj, "flags")) else DRIVER
    if op == "method":
        return _METHOD_KINDS.get(target, DRIVER) if type(target) is str else DRIVER
    if op == "call" and type(target) is str:
        if target in _CALL_KINDS:
            return _CALL_KINDS[target]
        if target in _FROM_HOST:
            if args and getattr(args[0], "id", None) in objects:
                return None if target != "cupy.array" else DRIVER
            return RUNTIME
        if target.startswith("cupy.cuda.runtime."):
            name = target[len("cupy.cuda.runtime."):]
            return RUNTIME if name.startswith(_RUNTIME_USES_CONTEXT) else None
    return DRIVER  # (ufuncs, routines, kernels, random draws: launches)


def _first_kind(data: bytes, pos: int) -> str | None:
    """``call_kind`` of the call packed at ``data[pos:]`` read off its first bytes
    (asked before every launch, and a call's whole decoding costs a good part of a small
    launch): its op and target, when they decide; None when they do not (the call's
    arguments decide, it makes no CUDA call, or its bytes are not the usual)."""
    try:
        first = data[pos]
        if first == 0x96:  # (an operator's record: six items)
            return DRIVER
        if first != 0x97:
            return None
        pos += 1
        c = data[pos]
        pos += 1 if c < 0x80 else 1 + _UINT_WIDTHS[c]  # (the call's number)
        c = data[pos]
        if not 0xa0 <= c <= 0xbf:
            return None
        op = data[pos + 1:pos + 1 + (c & 0x1f)].decode()
        pos += 1 + (c & 0x1f)
        c = data[pos]
        if 0xa0 <= c <= 0xbf:
            target = data[pos + 1:pos + 1 + (c & 0x1f)].decode()
        elif c == 0xd9:
            target = data[pos + 2:pos + 2 + data[pos + 1]].decode()
        elif c == 0xc0:
            target = None
        else:
            return None
    except (IndexError, KeyError, UnicodeDecodeError):
        return None
    if op in ("download", "getitem") or op == "call" and target in _FROM_HOST:
        return None  # (by its arguments)
    return call_kind([0, op, target, [], {}, None, False], {})


_session: Any = None  # (``gpushare_server.session``, once imported)


def next_call_launches() -> bool:
    """Whether, in the batch being run (``session.RUNNING``), the first call after the
    running one that makes a CUDA call launches a kernel (or calls the driver): the
    emulator, asked before each launch, ends the worker at a fault with a status the
    broker reports as the driver's error then, else the runtime's."""
    global _session
    if _session is None:
        from gpushare_server import session
        _session = session
    executor, decoder, data, unpacker = _session.RUNNING
    if executor is None:
        return False
    pos = unpacker.tell()
    kind = _first_kind(data, pos)
    if kind is not None:
        return kind == DRIVER
    import msgpack
    rest = msgpack.Unpacker(ext_hook=decoder._ext, raw=False, strict_map_key=False,
                            use_list=True, max_buffer_size=max(len(data) - pos, 1))
    rest.feed(memoryview(data)[pos:])
    from collections import ChainMap
    views: dict = {}  # the basic views the calls before it make (``get``'s layout)
    table = ChainMap(views, executor.handles.objects)
    try:
        for call in rest:
            kind = call_kind(call, table)
            if kind is not None:
                return kind == DRIVER
            if call[1] == "getitem" and type(call[5]) is int:  # (a basic index: a view)
                base = table.get(getattr(call[3][0], "id", None))
                if hasattr(base, "flags"):
                    views[call[5]] = base[call[3][1]]
    except Exception:  # noqa: BLE001 - a malformed call: the executor will say so
        pass
    return False


def watch_faults() -> None:
    """Have the emulator ask ``next_call_launches`` before each launch (the CPU
    backend's; a no-op without the emulator)."""
    try:
        from gpushare_server.kernels import _runtime
    except ImportError:
        return
    _runtime.fault_rule = next_call_launches
