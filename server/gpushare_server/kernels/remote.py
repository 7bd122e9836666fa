"""User kernels as a gpushare server hands them to clients (both backends).

A client names a kernel by a content hash of its constructor arguments (the SHA-256
of ``Encoder().pack([kind, [args, kwargs]])``). Kernel source travels once per
*server*, not once per session:

* The first time a client constructs a kernel on a server it sends the arguments
  with the hash. The worker keeps them in its table (per process, so per session)
  and also stores them in the server's kernel directory (``GPUSHARE_KERNEL_DIR``,
  set by the broker for every worker it spawns, under its private temp dir): one
  file per kernel, named by the hash, holding exactly the bytes that hash to it,
  written to a temporary name and moved into place with ``os.replace``.
* Later constructions, in this session or in any later session of the same server,
  send the hash alone. The worker rebuilds the kernel from its table or, failing
  that, from the directory; a file is trusted only when its content hashes to its
  name (and a spec is stored only when it hashes to the key the client gave).
* When neither has the hash (the directory was cleaned, or was full) the worker
  raises :class:`gpushare.errors.KernelUnknownError`; the client then sends the
  source once more and retries, so the user never sees it.

Compiled code is cached by content separately (the CPU emulator's module cache and
on-disk ``.so`` cache, CuPy's kernel cache on a GPU), so a kernel compiles once per
server.

On the ``cupy`` backend the real CuPy kernel objects are wrapped (:class:`_Wrapped`
subclasses named like CuPy's classes, so the backend's allow-list by type name
applies) only to unwrap :class:`~gpushare.protocol.HostArray` arguments: numpy
values the client sent (structs by value as size-1 structured arrays).
"""
from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
from typing import Any, Callable

from gpushare.errors import KernelUnknownError
from gpushare.kernel_includes import check_spec
from gpushare.protocol import Decoder, Encoder, HostArray, mdspan_arg

#: the kernel constructors a client may name
KINDS = ("ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule")

#: hash -> (kind, args, kwargs, bytes); per worker process, so per session
_SPECS: dict[str, tuple[str, tuple, dict, int]] = {}
_LOCK = threading.Lock()
_MAX_SPECS = 4096
_MAX_SPEC_BYTES = 64 << 20
_spec_total = [0]  # bytes of the specs kept

#: the server's kernel directory is not allowed to grow past this many entries (a
#: kernel not stored there is sent again by the next session that needs it)
_MAX_FILES = 16384
#: nor to hold a spec larger than this
_MAX_FILE_BYTES = 16 << 20
#: nor to grow past this many bytes in all (``GPUSHARE_KERNEL_DIR_MB``, default 256:
#: the directory is on the server's disk, or in its memory where /tmp is a tmpfs),
#: of which one session may store a quarter (one tenant cannot fill it for the rest)
_MAX_DIR_BYTES_DEFAULT = 256 << 20
_stored = [0]  # bytes this worker (so this session) stored
_KEY_RE = re.compile(r"[0-9a-f]{64}")


def _kernel_dir() -> str | None:
    """The server's kernel directory (shared by its workers); None when unset."""
    return os.environ.get("GPUSHARE_KERNEL_DIR") or None


def spec_bytes(kind: str, args: Any, kwargs: Any) -> bytes | None:
    """What the client hashed to name this kernel (see ``gpushare.cupy._kernels``);
    None when the spec does not fit in one self-contained message."""
    encoder = Encoder()
    try:
        data = encoder.pack([kind, [list(args), dict(kwargs)]])
    except (TypeError, ValueError, OverflowError):
        return None
    return None if encoder.frames else data


def _store(key: str, kind: str, args: tuple, kwargs: dict) -> None:
    """Store a spec in the server's kernel directory (best effort: a kernel that is
    not stored is only sent again)."""
    directory = _kernel_dir()
    if directory is None or not _KEY_RE.fullmatch(key):
        return
    data = spec_bytes(kind, args, kwargs)
    if data is None or len(data) > _MAX_FILE_BYTES or \
            hashlib.sha256(data).hexdigest() != key:
        return  # only content that names itself is shared with other sessions
    path = os.path.join(directory, key)
    try:
        if _read_valid(path, key) is not None:
            return  # another session stored it (a damaged file is replaced)
        budget = _dir_budget()
        if _stored[0] + len(data) > budget // 4:
            return
        os.makedirs(directory, mode=0o700, exist_ok=True)
        count = held = 0
        with os.scandir(directory) as entries:
            for entry in entries:
                count += 1
                try:
                    held += entry.stat(follow_symlinks=False).st_size
                except OSError:
                    pass
        if count >= _MAX_FILES or held + len(data) > budget:
            return
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            _stored[0] += len(data)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        return


def _dir_budget() -> int:
    """Bytes the kernel directory may hold (``GPUSHARE_KERNEL_DIR_MB``)."""
    from gpushare.settings import env_float
    return int(env_float("GPUSHARE_KERNEL_DIR_MB", _MAX_DIR_BYTES_DEFAULT / (1 << 20))
               * (1 << 20))


def _read_valid(path: str, key: str) -> bytes | None:
    """The content of ``path`` if it hashes to ``key`` (else it is damaged, or not
    ours, and ignored: the client resends the source)."""
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_FILE_BYTES + 1)
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == key else None


def _load(key: str, kind: str) -> tuple[tuple, dict] | None:
    """A spec from the server's kernel directory, if it is there and its content
    hashes to ``key``."""
    directory = _kernel_dir()
    if directory is None or not _KEY_RE.fullmatch(key):
        return None
    data = _read_valid(os.path.join(directory, key), key)
    if data is None:
        return None
    try:
        stored_kind, (args, kwargs) = Decoder([b""], host_array=HostArray).unpack(data)
    except Exception:  # noqa: BLE001 - a file we cannot read is a file we do not have
        return None
    if stored_kind != kind or not isinstance(args, list) or not isinstance(kwargs, dict):
        return None
    return tuple(args), kwargs


def _spec_bytes(args: tuple, kwargs: dict) -> int:
    """About the memory a spec holds: its strings and bytes (sources, names, options)."""
    size, stack = 0, [*args, *kwargs.values()]
    while stack:
        item = stack.pop()
        if isinstance(item, (str, bytes)):
            size += len(item)
        elif isinstance(item, (tuple, list)):
            stack.extend(item)
        else:
            size += 64
    return size


def _remember(key: str, kind: str, args: tuple, kwargs: dict) -> None:
    """Keep a spec for the session's next use of ``key`` (the oldest go first past
    ``_MAX_SPECS`` of them or ``_MAX_SPEC_BYTES`` in all; one not kept is read from the
    kernel directory, or sent again by the client)."""
    size = _spec_bytes(args, kwargs)
    with _LOCK:
        old = _SPECS.pop(key, None)
        if old is not None:
            _spec_total[0] -= old[3]
        while _SPECS and (len(_SPECS) >= _MAX_SPECS or
                          _spec_total[0] + size > _MAX_SPEC_BYTES):
            _spec_total[0] -= _SPECS.pop(next(iter(_SPECS)))[3]
        if not _SPECS:
            _spec_total[0] = 0
        if size <= _MAX_SPEC_BYTES:
            _SPECS[key] = (kind, args, dict(kwargs), size)
            _spec_total[0] += size


def unwrap(value: Any) -> Any:
    """Replace :class:`HostArray` (numpy data from the client) by the numpy array, and
    :data:`~gpushare.protocol.MdspanArg` by CuPy's mdspan of the array, inside tuples
    and lists too (RawKernel's argument tuple)."""
    if isinstance(value, HostArray):
        return value.array
    if mdspan_arg(value) is not None:  # cupy.ndarray.mdspan, made here by CuPy
        import cupy
        return value.array.mdspan(
            index_type=cupy.int32 if value.index_itemsize == 4 else cupy.int64,
            allow_unsafe=bool(value.allow_unsafe))
    if isinstance(value, tuple):
        return tuple(unwrap(v) for v in value)
    if isinstance(value, list):
        return [unwrap(v) for v in value]
    return value


def make_kernel(factories: dict[str, Callable[..., Any]], kind: str, key: str,
                spec: Any = None) -> Any:
    """Construct kernel ``kind`` from ``spec`` (``[args, kwargs]``) or, when ``spec``
    is None, from the spec stored under ``key`` by this session or by any session of
    this server (:class:`~gpushare.errors.KernelUnknownError` when there is none).

    See Also
    --------
    cupy.ElementwiseKernel, cupy.ReductionKernel, cupy.RawKernel, cupy.RawModule
    """
    if kind not in KINDS or kind not in factories:
        raise TypeError(f"gpushare: {kind!r} is not a kernel type")
    if not isinstance(key, str) or not key:
        raise TypeError("gpushare: bad kernel key")
    if spec is None:
        with _LOCK:
            stored = _SPECS.get(key)
        if stored is not None and stored[0] == kind:
            _, args, kwargs, _ = stored
        else:
            loaded = _load(key, kind)
            if loaded is None:
                raise KernelUnknownError(
                    f"gpushare: kernel {key} is unknown to this server; construct it "
                    "again with its source")
            args, kwargs = loaded
            _remember(key, kind, args, kwargs)
    else:
        try:
            args, kwargs = spec
        except (TypeError, ValueError):
            raise TypeError("gpushare: malformed kernel spec") from None
        if not isinstance(args, (list, tuple)) or not isinstance(kwargs, dict):
            raise TypeError("gpushare: malformed kernel spec")
        args = tuple(args)
    check_spec(kind, args, kwargs)  # nothing that reads the server's files
    obj = factories[kind](*args, **kwargs)
    if spec is not None:  # only a spec that constructs is remembered
        _remember(key, kind, args, kwargs)
        _store(key, kind, args, kwargs)
    return obj


# --- the CPU backend ------------------------------------------------------------------
def cpu_factories() -> dict[str, Callable[..., Any]]:
    from . import ElementwiseKernel, RawKernel, RawModule, ReductionKernel
    return {"ElementwiseKernel": ElementwiseKernel, "ReductionKernel": ReductionKernel,
            "RawKernel": RawKernel, "RawModule": RawModule}


def cpu_make_kernel(kind: str, key: str, spec: Any = None) -> Any:
    """:func:`make_kernel` with the CPU emulator's classes (they unwrap HostArray
    arguments themselves)."""
    return make_kernel(cpu_factories(), kind, key, spec)


# --- the cupy backend -------------------------------------------------------------------
class _Wrapped:
    """A real CuPy kernel object; calls unwrap HostArray arguments first."""

    __slots__ = ("_k",)

    def __init__(self, k: Any) -> None:
        object.__setattr__(self, "_k", k)

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_k"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_k"), name, value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._k(*unwrap(args), **{k: unwrap(v) for k, v in kwargs.items()})


class ElementwiseKernel(_Wrapped):
    __slots__ = ()


class ReductionKernel(_Wrapped):
    __slots__ = ()


def _compile_logged(k: Any, log_stream: Any) -> Any:
    """``compile(log_stream=True)`` from gpushare's client (whose stream cannot travel):
    the log's text is returned."""
    if log_stream is True:
        import io
        buf = io.StringIO()
        k.compile(log_stream=buf)
        return buf.getvalue()
    return k.compile(log_stream=log_stream)


def _without_jitify_warning(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with CuPy's jitify DeprecationWarning dropped: it is the
    client's to give, where the user's program constructs the kernel (and
    ``get_function`` of a ``jitify=True`` module)."""
    import warnings
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"(jitify=True|The jitify argument) is "
                                r"deprecated", category=DeprecationWarning)
        return fn(*args, **kwargs)


class RawKernel(_Wrapped):
    __slots__ = ()

    def compile(self, log_stream: Any = None) -> Any:
        return _compile_logged(self._k, log_stream)


class RawModule(_Wrapped):
    __slots__ = ()

    def compile(self, log_stream: Any = None) -> Any:
        return _compile_logged(self._k, log_stream)

    def get_function(self, name: str) -> RawKernel:
        return RawKernel(_without_jitify_warning(self._k.get_function, name))

    def get_global(self, name: str) -> Any:
        """The variable's bytes as a uint8 device array (CuPy returns a MemoryPointer,
        which cannot travel; the client turns the array back into a pointer). CuPy's
        pointer has size 0 (``UnownedMemory(ptr, 0, mod, dev)``: ``moduleGetGlobal``
        drops the size ``cuModuleGetGlobal`` gives), so the size is asked of the driver."""
        import cupy
        from cupy.cuda.memory import MemoryPointer, UnownedMemory
        p = self._k.get_global(name)
        size = _global_size(p.mem._owner.ptr, name if isinstance(name, str) else
                            name.decode())
        mem = UnownedMemory(p.ptr, size, p.mem._owner, p.mem.device_id)
        return cupy.ndarray((size,), cupy.uint8, MemoryPointer(mem, 0))


_LIBCUDA: Any = None


def _global_size(module: int, name: str) -> int:
    """``cuModuleGetGlobal``'s size of the module's global ``name`` (the driver's
    library through ctypes: CuPy's wrapper returns only the address)."""
    import ctypes
    global _LIBCUDA
    if _LIBCUDA is None:
        _LIBCUDA = ctypes.CDLL("libcuda.so.1")
    fn = getattr(_LIBCUDA, "cuModuleGetGlobal_v2", None) or _LIBCUDA.cuModuleGetGlobal
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_size_t),
                   ctypes.c_void_p, ctypes.c_char_p]
    dptr, size = ctypes.c_uint64(), ctypes.c_size_t()
    status = fn(ctypes.byref(dptr), ctypes.byref(size), ctypes.c_void_p(module),
                name.encode())
    if status != 0:
        from cupy.cuda.driver import CUDADriverError
        raise CUDADriverError(status)
    return int(size.value)


def cupy_make_kernel(kind: str, key: str, spec: Any = None) -> Any:
    """:func:`make_kernel` with CuPy's classes, wrapped (see :class:`_Wrapped`)."""
    import cupy
    wrappers = {"ElementwiseKernel": ElementwiseKernel, "ReductionKernel": ReductionKernel,
                "RawKernel": RawKernel, "RawModule": RawModule}
    def factory(cls: Any, w: Any) -> Callable[..., Any]:
        return lambda *a, **kw: w(_without_jitify_warning(cls, *a, **kw))
    factories = {k: factory(getattr(cupy, k), w) for k, w in wrappers.items()}
    return make_kernel(factories, kind, key, spec)
