"""The CuPy backend: real device memory and real CuPy, in the session's worker process.

Each session's worker process has its own CUDA context, so a sticky CUDA error
(an illegal address in a user kernel) ends only that session.
"""
from __future__ import annotations

import functools
import importlib
from typing import Any, Callable

import numpy

from gpushare.namespace import (FILE_FUNCTIONS, FILE_METHODS, SERVED_CLASSES,
                                is_public_callable, ndarray_members, refuse_file_access,
                                served_classmethod, served_members)
from gpushare.protocol import HostArray

from . import check_member, sparse
from .cpu_fft import PLAN_CACHE_MEMBERS, PLAN_MEMBERS
from .cpu_kernels import KERNEL_REMOTE_TYPES
from .cpu_texture import MEMBERS as TEXTURE_MEMBERS
from ..kernels.remote import _Wrapped

#: Types a client may hold handles to, and the methods it may call on them
#: (an empty set: every public method).
REMOTE_TYPES: dict[str, frozenset[str]] = {
    # cupy.random: public methods, plus RandomState._interval (CuPy's tests call it)
    "RandomState": frozenset({
        "beta", "binomial", "chisquare", "dirichlet", "exponential", "f", "gamma",
        "geometric", "hypergeometric", "laplace", "logistic", "lognormal", "logseries",
        "multivariate_normal", "negative_binomial", "normal", "pareto",
        "noncentral_chisquare", "noncentral_f", "poisson", "power", "rand", "randn",
        "random_sample", "rayleigh", "seed", "standard_cauchy", "standard_exponential",
        "standard_gamma", "standard_normal", "standard_t", "tomaxint", "triangular",
        "uniform", "vonmises", "wald", "weibull", "zipf", "choice", "shuffle", "permutation",
        "gumbel", "randint", "method", "_interval"}),
    "Generator": frozenset(),
    "BitGenerator": frozenset({"random_raw", "state"}),  # (CuPy's base: it refuses to draw)
    "XORWOW": frozenset({"random_raw", "state"}),
    "MRG32k3a": frozenset({"random_raw", "state"}),
    "Philox4x3210": frozenset({"random_raw", "state"}),
    "Stream": frozenset({"synchronize", "use", "__enter__", "__exit__", "record", "wait_event",
                         "done", "ptr", "priority", "is_non_blocking", "begin_capture",
                         "end_capture", "is_capturing"}),
    "ExternalStream": frozenset({"synchronize", "use", "__enter__", "__exit__", "record",
                                 "wait_event", "done", "ptr", "begin_capture", "end_capture",
                                 "is_capturing"}),
    "Event": frozenset({"record", "synchronize", "done", "ptr"}),
    "Graph": frozenset({"launch", "upload", "debug_dot_str"}),  # from Stream.end_capture
    **TEXTURE_MEMBERS,  # cupy.cuda.texture's objects: the same members on both backends
}


# kernel objects answer the same methods on both backends; so do cupyx.scipy's
REMOTE_TYPES.update(KERNEL_REMOTE_TYPES)
REMOTE_TYPES.update(served_members())
REMOTE_TYPES.update({"Plan1d": PLAN_MEMBERS, "PlanNd": PLAN_MEMBERS,  # get_fft_plan's
                     "PlanCache": PLAN_CACHE_MEMBERS})  # cupy.fft.config.get_plan_cache's


class CupyBackend:
    """Runs a session's calls on the GPU through CuPy."""

    name = "cupy"
    remote_types = REMOTE_TYPES
    #: big downloads cross to the host a chunk at a time, as they are sent
    #: (``SessionExecutor._stream_device``)
    chunked_download = True

    def __init__(self) -> None:
        from gpushare import _hook
        _hook.uninstall()  # the real CuPy, even if GPUSHARE_SERVER is in our environment
        import cupy
        import cupy.cuda
        self.cupy = cupy
        self._cache: dict[str, Callable[..., Any]] = {}
        self._records: dict[str, Callable[..., Any]] = {}  # (``record_function``)
        try:  # the CUDA context now, as the worker starts: not in a session's first call
            cupy.cuda.runtime.free(0)  # (which --max-call-seconds would count; seconds on
        except Exception:  # noqa: BLE001 - a busy GPU) - else its error comes at that call
            pass
        self.error_keys = {
            cupy.cuda.memory.OutOfMemoryError: "cupy.cuda.memory.OutOfMemoryError",
            cupy.cuda.runtime.CUDARuntimeError: "cupy.cuda.runtime.CUDARuntimeError",
            cupy.cuda.driver.CUDADriverError: "cupy.cuda.driver.CUDADriverError",
            cupy.cuda.nvrtc.NVRTCError: "cupy.cuda.nvrtc.NVRTCError",
            cupy.cuda.compiler.CompileException: "cupy.cuda.compiler.CompileException",
            cupy.cuda.compiler.JitifyException: "cupy.cuda.compiler.JitifyException",
        }

    def is_fatal(self, exc: BaseException) -> bool:
        """A sticky CUDA error: every later call in this process would fail too."""
        cuda = self.cupy.cuda
        return isinstance(exc, (cuda.runtime.CUDARuntimeError, cuda.driver.CUDADriverError)) \
            and getattr(exc, "status", None) in _STICKY

    def function(self, path: str) -> Callable[..., Any]:
        fn = self._cache.get(path)
        if fn is None:
            fn = self._resolve(path)
            self._cache[path] = fn
        return fn

    def record_function(self, path: str) -> Callable[..., Any]:
        """``function(path)`` for an operator's record (``SessionExecutor._batch``),
        whose operands are arrays and plain scalars: a ufunc as CuPy's own, without
        ``_refuse_host``'s look at each argument (about 1 us of each small op);
        anything else as ``function`` gives it."""
        fn = self._records.get(path)
        if fn is None:
            fn = self.function(path)
            inner = getattr(fn, "__wrapped__", None)
            if isinstance(inner, self.cupy.ufunc):
                fn = inner
            self._records[path] = fn
        return fn

    def _resolve(self, path: str) -> Callable[..., Any]:
        if path in FILE_FUNCTIONS:  # the server's files are out of a client's reach
            refuse_file_access(path)
        if path == "gpushare.kernel":  # user kernels by content hash (kernels/remote.py)
            from gpushare_server.kernels.remote import cupy_make_kernel
            return cupy_make_kernel
        if path == "cupy.fft.config.get_plan_cache":  # (config is no module in the table)
            import cupy.fft.config
            return cupy.fft.config.get_plan_cache
        if path in ("cupy.cuda.nvrtc.getVersion", "cupy.cuda.nvrtc.getSupportedArchs"):
            # (cupy.cuda's attribute, cupy_backends' module: no cupy.cuda.nvrtc to import)
            return getattr(self.cupy.cuda.nvrtc, path.rpartition(".")[2])
        if path.startswith("cupy.cuda.") or path in ("cupy.cuda",):
            if not _CUDA_ALLOWED.get(path.rsplit(".", 1)[0], set()) & {path.rsplit(".", 1)[1]}:
                raise AttributeError(f"gpushare: {path} is not served")
        elif (classmethod_of := served_classmethod(path)) is not None:  # BSpline.design_matrix
            module, cls, name = classmethod_of
            return _refuse_host(getattr(getattr(importlib.import_module(module), cls), name))
        elif not is_public_callable(path):
            raise AttributeError(f"gpushare: {path} is not a public CuPy callable")
        module, _, name = path.rpartition(".")
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            raise NotImplementedError(f"{path} is not available on this server: {exc}") from None
        fn = getattr(mod, name)
        if path in ("cupy.asarray", "cupy.array", "cupy.asanyarray", "cupy.ascontiguousarray",
                    "cupy.asfortranarray"):
            return _host_ok(fn)
        if module == "cupy" and name in ("ElementwiseKernel", "ReductionKernel", "RawKernel",
                                         "RawModule"):  # nothing that reads server files
            from gpushare.kernel_includes import checked
            return _refuse_host(checked(name, fn))
        if path in _BIT_GENERATORS:  # the client's derived seed (``{"seed32": w}``)
            return _refuse_host(_seeded(fn))
        return _refuse_host(fn)

    def method(self, obj: Any, name: str) -> Callable[..., Any]:
        if isinstance(obj, self.cupy.ndarray):
            if name not in ndarray_members():
                raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
            if name in FILE_METHODS:
                refuse_file_access(f"ndarray.{name}")
            if name == "set":
                return lambda host, stream=None: obj.set(
                    host.array if isinstance(host, HostArray) else host, stream)
            return _refuse_host_bound(getattr(obj, name))  # (once per call: no metadata)
        check_member(REMOTE_TYPES, obj, name, call=True)
        if sparse.is_sparse(obj):
            fn = sparse.method(obj, name)
            if name in ("__getitem__", "__setitem__"):  # host index arrays, as CuPy's
                return lambda key, *value: fn(_unwrap_key(key), *value)
            return _refuse_host(fn)
        if type(obj).__name__ in SERVED_CLASSES:  # they take host arrays (cupy.asarray)
            return _refuse_host(getattr(obj, name))
        if type(obj).__module__.startswith("cupy.random."):  # RandomState, Generator...:
            return _refuse_host(getattr(obj, name))  # NumPy data reaches them as NumPy's
        return getattr(obj, name)

    def get_attribute(self, obj: Any, name: str) -> Any:
        if isinstance(obj, self.cupy.ndarray):
            if name not in ndarray_members():
                raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
            return getattr(obj, name)
        check_member(REMOTE_TYPES, obj, name, call=False)
        return getattr(obj, name)

    def set_attribute(self, obj: Any, name: str, value: Any) -> None:
        if isinstance(obj, self.cupy.ndarray) and name in ("shape", "real", "imag", "strides"):
            setattr(obj, name, value)
            return
        if type(obj).__name__ == "RawKernel" and name in REMOTE_TYPES["RawKernel"]:
            setattr(obj, name, value)
            return
        if sparse.is_sparse(obj):
            sparse.set_attribute(obj, name, value.array if isinstance(value, HostArray) else value)
            return
        if type(obj).__name__ in SERVED_CLASSES:  # CuPy's are Python objects: their data
            check_member(REMOTE_TYPES, obj, name, call=False)  # attributes are writable
            setattr(obj, name, value.array if isinstance(value, HostArray) else value)
            return
        raise AttributeError(f"gpushare: attribute {name!r} cannot be set")

    def getitem(self, obj: Any, key: Any) -> Any:
        return obj[_unwrap_key(key)]

    def setitem(self, obj: Any, key: Any, value: Any) -> None:
        if isinstance(value, HostArray):
            value = value.array
        obj[_unwrap_key(key)] = value

    def upload(self, host: Any, dtype: Any = None, order: str = "K") -> Any:
        arr = host.array if isinstance(host, HostArray) else host
        return self.cupy.array(arr, dtype=dtype, order=order, copy=True)

    def download(self, arr: Any) -> numpy.ndarray:
        return arr.get()

    def address(self, arr: Any) -> int:
        return arr.data.ptr

    def memory_owner(self, root: Any, arrays: Any) -> Any:
        """The array whose memory ``root`` (an array without ``base``) shows, for the
        fake addresses (``pointer``): CuPy's ``ndarray(memptr=)`` (``view_of``),
        ``from_dlpack`` and ``__cuda_array_interface__`` imports have no ``base``, so
        the first of the session's arrays whose root's allocation holds ``root``'s
        first byte (by the real device address) stands for it; ``root`` where none
        does. (The GPU: ``from_dlpack(a).data.ptr`` was not ``a.data.ptr``.)"""
        if root.size == 0:
            return root
        ndarray = self.cupy.ndarray
        first = root.data.ptr
        for h in arrays:
            if not isinstance(h, ndarray):
                continue
            r = h
            while isinstance(r.base, ndarray):
                r = r.base
            if r is root:
                return root
            if r.size == 0:
                continue
            mem = r.data.mem
            if mem.ptr <= first < mem.ptr + mem.size:
                return r
        return root

    def view_of(self, root: Any, offset: int, shape: tuple, dtype: Any, strides: Any) -> Any:
        """A view of ``root``'s memory (``__cuda_array_interface__``, ``memptr=``)."""
        return self.cupy.ndarray(shape, dtype, memptr=root.data + offset, strides=strides)

    def empty(self, shape: tuple, dtype: Any, order: str = "C") -> Any:
        return self.cupy.empty(shape, dtype, order=order)

    def write_bytes(self, arr: Any, offset: int, data: Any) -> None:
        """Copy raw host bytes into ``arr``'s device memory at ``offset``."""
        src = numpy.frombuffer(data, numpy.uint8)
        if offset < 0 or offset + src.size > arr.nbytes:
            raise ValueError("chunk outside the array")
        (arr.data + offset).copy_from_host(src.ctypes.data, src.size)

    def read_bytes(self, arr: Any, offset: int, out: Any) -> None:
        """Copy ``len(out)`` raw bytes of the contiguous ``arr``'s device memory, from
        ``offset``, into the writable host buffer ``out`` (shared-memory downloads)."""
        dst = numpy.frombuffer(out, numpy.uint8)
        if offset < 0 or offset + dst.size > arr.nbytes:
            raise ValueError("read outside the array")
        if dst.size:
            (arr.data + offset).copy_to_host(dst.ctypes.data, dst.size)

    def is_array(self, obj: Any) -> bool:
        return isinstance(obj, self.cupy.ndarray)

    def normalize(self, result: Any) -> Any:
        return result

    def info(self) -> dict:
        cupy = self.cupy
        rt = cupy.cuda.runtime
        devices = []
        for i in range(rt.getDeviceCount()):
            props = rt.getDeviceProperties(i)
            with cupy.cuda.Device(i):
                free, total = rt.memGetInfo()
            devices.append({"id": i, "name": props["name"].decode(errors="replace"),
                            "total_memory": total, "free_memory": free,
                            "compute_capability": cupy.cuda.Device(i).compute_capability})
        return {"backend": "cupy", "cupy": cupy.__version__, "numpy": numpy.__version__,
                "is_hip": bool(rt.is_hip), "runtime_version": rt.runtimeGetVersion(),
                "driver_version": rt.driverGetVersion(), "devices": devices}

    def memory(self, op: str, arrays: list) -> Any:
        pool = self.cupy.get_default_memory_pool()
        if op in ("used_bytes", "total_bytes", "free_bytes", "n_free_blocks", "free_all_blocks"):
            return getattr(pool, op)()
        raise ValueError(f"unknown memory query {op!r}")

    def synchronize(self) -> None:
        self.cupy.cuda.Device().synchronize()

    def capturing(self) -> bool:
        """Whether the current stream is capturing a CUDA graph: a download then goes
        to CuPy's ``get``, which refuses it with CuPy's error (the chunked download's
        device synchronization would invalidate the capture instead)."""
        try:
            return bool(self.cupy.cuda.get_current_stream().is_capturing())
        except Exception:  # noqa: BLE001 - an invalidated capture: CuPy's get says so
            return True


#: CUDA errors that leave the context unusable (the same numbers in the runtime and the
#: driver API): illegal address, launch timeout, device assert, hardware stack error,
#: illegal instruction, misaligned address, invalid address space, invalid PC, launch
#: failure
_STICKY = frozenset({700, 702, 710, 714, 715, 716, 717, 718, 719})


_CUDA_ALLOWED = {
    "cupy.cuda": {"Stream", "Event", "get_elapsed_time", "ExternalStream",
                  "get_current_stream", "is_available"},
    # (every name the client's cupy/cuda/runtime.py sends; the CPU backend's OVERRIDES)
    "cupy.cuda.runtime": {"getDeviceCount", "getDevice", "getDeviceProperties", "memGetInfo",
                          "runtimeGetVersion", "driverGetVersion", "deviceSynchronize",
                          "deviceGetAttribute"},
    "cupy.cuda.driver": {"get_build_version"},
    "cupy.cuda.cufft": {"getVersion"},
    "cupy.cuda.nvrtc": {"getVersion", "getSupportedArchs"},
    "cupy.cuda.texture": {"ChannelFormatDescriptor", "CUDAarray", "ResourceDescriptor",
                          "TextureDescriptor", "TextureObject", "SurfaceObject"},
}


def _plain(value: Any, copy: bool = True) -> Any:
    """An argument as local CuPy would have received it: a host array as the user's
    NumPy array (writable, as the user's was: the wire's is a read-only view, and
    NumPy's own methods that CuPy calls on it, ``arr.put`` in ``cupy.place``, check that
    first; not copied where ``copy`` is false); a kernel handle as the real CuPy kernel
    (``kernels.remote._Wrapped``: ``generic_filter`` tests ``isinstance(f,
    cupy.RawKernel)``); inside lists and tuples too (``histogramdd``'s ``bins=[a, b]``)."""
    if isinstance(value, HostArray):
        arr = value.array
        if copy and not arr.flags.writeable:
            arr = numpy.array(arr, order="K")
        return arr
    if isinstance(value, _Wrapped):
        return object.__getattribute__(value, "_k")
    if type(value) in (list, tuple) and any(
            isinstance(v, (HostArray, _Wrapped, list, tuple)) for v in value):
        return type(value)(_plain(v, copy) for v in value)
    return value


def _refuse_host(fn: Callable[..., Any], copy: bool = True) -> Callable[..., Any]:
    """``fn`` given host arrays as NumPy arrays and kernel handles as CuPy's kernels,
    positional or keyword, nested in lists and tuples too (CuPy refuses host arrays where
    it does: ``ndimage``'s ``structure=``, for one, it takes)."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*[_plain(a, copy) for a in args],
                  **{k: _plain(v, copy) for k, v in kwargs.items()})
    return call


def _refuse_host_bound(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``_refuse_host`` for an array's bound method, made for each call: without
    ``functools.wraps``'s copy of its name and docstring (2-3 us a call), and the
    arguments looked at only when there are any."""
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            return fn(*[_plain(a) for a in args], **{k: _plain(v) for k, v in kwargs.items()})
        if args:
            return fn(*[_plain(a) for a in args])
        return fn()
    return call


def _host_ok(fn: Callable[..., Any]) -> Callable[..., Any]:
    return _refuse_host(fn, copy=False)  # (cupy.asarray & co.: copied to the device)


#: CuPy's bit generators, which read a seed through ``numpy.random.SeedSequence``
_BIT_GENERATORS = frozenset(("cupy.random.BitGenerator", "cupy.random.XORWOW",
                             "cupy.random.MRG32k3a", "cupy.random.Philox4x3210"))


class _DerivedSeed(numpy.random.SeedSequence):
    """A seed the client derived already (``{"seed32": w}``, ``_bit_generator._seed_arg``):
    the one word CuPy's ``_cuRANDGenerator`` takes of its SeedSequence,
    ``generate_state(1, numpy.uint32)[0]`` (``_bit_generator.pyx``), so CuPy seeds its
    states exactly as it would from the user's own seed."""

    def __init__(self, word: int) -> None:
        super().__init__(word)
        self._gs_word = numpy.uint32(word)

    def generate_state(self, n_words: Any, dtype: Any = numpy.uint32) -> numpy.ndarray:
        if n_words != 1 or numpy.dtype(dtype) != numpy.uint32:
            raise NotImplementedError("gpushare: a derived seed gives one 32-bit word")
        return numpy.array([self._gs_word], numpy.uint32)


def _seeded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A bit generator's constructor taking the client's derived seed."""
    @functools.wraps(fn)
    def make(seed: Any = None, *args: Any, **kwargs: Any) -> Any:
        if isinstance(seed, dict) and set(seed) == {"seed32"} and \
                type(seed["seed32"]) is int and 0 <= seed["seed32"] < 1 << 32:
            seed = _DerivedSeed(seed["seed32"])
        return fn(seed, *args, **kwargs)
    return make


def _unwrap_key(key: Any) -> Any:
    if isinstance(key, HostArray):
        return key.array
    if isinstance(key, tuple):
        return tuple(k.array if isinstance(k, HostArray) else k for k in key)
    return key
