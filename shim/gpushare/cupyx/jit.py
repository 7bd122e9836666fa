"""``cupyx.jit``: CuPy's Python-to-CUDA kernels, transpiled on the client.

CuPy's JIT turns a Python function into CUDA C++. gpushare never ships Python code
to the server, so the translation happens here: at a kernel's first call with a
given argument signature, ``_jit_compile`` reads the function's source (``inspect``
+ ``ast``; the function is never executed) and emits CUDA C++, which is launched as
an ordinary ``cupy.RawKernel`` (NVRTC on a GPU server, the C++ kernel emulator on
the CPU backend). Generated code is cached per signature (``cached_codes``), and
the RawKernel proxy per session, so repeated launches are pipelined like any other
RawKernel launch.

Array arguments are passed as their data pointer followed by their shape (and, for
arrays that are not C-contiguous, their strides in bytes) as ``long long`` scalars;
Python scalars are converted as CuPy does (``mode='cuda'``: ``int`` -> ``int32`` when
it fits, else ``int64``; ``float`` -> ``float32``; ``mode='numpy'``: ``int64`` /
``float64``); a ``float16`` scalar is passed as ``float32`` (CuPy's
``_JitRawKernel.__call__``: its parameter is a ``float``).

The names used inside kernels (``threadIdx``, ``syncthreads``, ``atomic_add``, the
cooperative groups of ``cupyx.jit.cg``...) exist here as markers that behave as
CuPy's outside a kernel: calling a function raises :class:`RuntimeError` ("Cannot
call this function from Python layer."), ``jit.threadIdx.x`` :class:`AttributeError`. A kernel that synchronizes a grid group is
launched with ``enable_cooperative_groups=True``, as CuPy does.
What the transpiler supports is listed in ``_jit_compile``'s docstring; anything
else raises ``NotImplementedError`` / ``TypeError`` at the first call, naming the
construct and its line.

See Also
--------
cupyx.jit.rawkernel
"""
from __future__ import annotations

import functools
import sys
import types
import warnings
from typing import Any

import numpy

from .. import _public
from . import _jit_compile
from ._jit_compile import ArrayArg, Dim3, Intrinsic, KernelBase, RuntimeData


class _JitKernel(KernelBase):
    """What ``cupyx.jit.rawkernel()`` returns: a kernel specialised and transpiled at
    its first call per argument signature.

    See Also
    --------
    cupyx.jit._interface._JitRawKernel
    """

    def __init__(self, func: Any, mode: str = "cuda", device: bool = False) -> None:
        if mode not in ("cuda", "numpy"):
            raise ValueError(f"mode must be 'cuda' or 'numpy', not {mode!r}")
        self._func = func
        self._mode = mode
        self._device = device
        self._cached_codes: dict = {}  # signature -> (code, kernel name, cooperative)
        self._kernels: dict = {}       # signature -> (session, RawKernel proxy)
        functools.update_wrapper(self, func)

    # --- types and arguments
    def _signature(self, args: tuple) -> tuple:
        from ..cupy._ndarray import ndarray
        key = []
        for a in args:
            if isinstance(a, ndarray):
                key.append(ArrayArg(_jit_compile._norm(a.dtype), a.ndim, _c_contiguous(a)))
            elif isinstance(a, numpy.ndarray):
                raise TypeError(f"{type(a)} is not supported for RawKernel (host arrays "
                                "must be copied to the device with cupy.asarray first)")
            elif numpy.isscalar(a) and not isinstance(a, (str, bytes)):
                key.append(_jit_compile.scalar_type(a, self._mode))
            else:
                raise TypeError(f"{type(a)} is not supported for RawKernel")
        return tuple(key)

    @staticmethod
    def _launch_args(args: tuple, key: tuple) -> list:
        out: list = []
        for a, t in zip(args, key):
            if isinstance(t, ArrayArg):
                out.append(a)
                out += [numpy.int64(n) for n in a.shape]
                if not t.c_contiguous:
                    out += [numpy.int64(s) for s in a.strides]
            elif t.char == "e":  # a float16 scalar is a float parameter (CuPy passes
                out.append(numpy.float32(a))  # numpy.float32(a), _interface.py:127)
            else:
                out.append(t.type(a))
        return out

    def _code(self, key: tuple) -> tuple:
        result = self._cached_codes.get(key)
        if result is None:
            flags: dict = {}
            code, name = _jit_compile.transpile(self._func, self._mode, key, flags)
            result = self._cached_codes[key] = (code, name, flags["cooperative"])
        return result

    def _kernel(self, key: tuple) -> Any:
        from .. import client
        from ..cupy import RawKernel
        session = client.get_session()
        held = self._kernels.get(key)
        if held is not None and held[0] is session:
            return held[1]
        code, name, cooperative = self._code(key)
        # (CuPy launches its Function with ``enable_cooperative_groups=``; a RawKernel
        # takes it at its construction only)
        kern = RawKernel(code, name, enable_cooperative_groups=True) if cooperative \
            else RawKernel(code, name)
        self._kernels[key] = (session, kern)
        return kern

    # --- launching
    def __call__(self, grid: Any, block: Any, args: Any, shared_mem: Any = 0,
                 stream: Any = None) -> None:
        """Launch the kernel: ``kernel(grid, block, args, shared_mem=0, stream=None)``.

        See Also
        --------
        cupyx.jit._interface._JitRawKernel.__call__
        """
        if self._device:
            raise TypeError(f"{self._func.__name__!r} is a device function "
                            "(rawkernel(device=True)); call it from a jit kernel")
        args = tuple(args)  # (CuPy iterates them: Python's TypeError for a non-iterable)
        key = self._signature(args)
        kern = self._kernel(key)
        kern(grid, block, tuple(self._launch_args(args, key)), shared_mem=shared_mem,
             stream=stream)

    def __getitem__(self, grid_and_block: Any) -> Any:
        """Numba-style launch: ``kernel[grid, block](*args, shared_mem=0)`` (gpushare
        also takes ``kernel[grid, block, shared_mem]``)."""
        if not isinstance(grid_and_block, tuple) or len(grid_and_block) not in (2, 3):
            raise ValueError("kernel[grid, block] takes a grid and a block")
        grid, block = grid_and_block[:2]
        if not isinstance(grid, tuple):
            grid = (grid, 1, 1)
        if not isinstance(block, tuple):
            block = (block, 1, 1)
        if len(grid_and_block) == 3:
            smem = grid_and_block[2]
            return lambda *args, **kwargs: self(grid, block, args,
                                                **{"shared_mem": smem, **kwargs})
        return lambda *args, **kwargs: self(grid, block, args, **kwargs)

    # --- inspection
    @property
    def cached_codes(self) -> dict:
        """The generated CUDA C++ per argument signature (for debugging).

        See Also
        --------
        cupyx.jit._interface._JitRawKernel.cached_codes
        """
        if not self._cached_codes:
            warnings.warn("No codes are cached because compilation is deferred until "
                          "the first function call.")
        return {k: v[0] for k, v in self._cached_codes.items()}

    @property
    def cached_code(self) -> str:
        """The one generated code (``cached_codes``' first value).

        See Also
        --------
        cupyx.jit._interface._JitRawKernel.cached_code
        """
        codes = self.cached_codes
        if len(codes) > 1:
            warnings.warn("The input types of the kernel could not be inferred. Please use "
                          "`.cached_codes` instead.")
        return next(iter(codes.values()))


def _c_contiguous(a: Any) -> bool:
    """Whether ``a``'s layout is C-contiguous, from its shape and strides."""
    expect = a.dtype.itemsize
    for n, s in zip(reversed(a.shape), reversed(a.strides)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def rawkernel(*, mode: str = "cuda", device: bool = False) -> Any:
    """Decorator compiling a Python function into a CUDA kernel (transpiled on the
    client, see the module docstring).

    See Also
    --------
    cupyx.jit.rawkernel
    """
    # CuPy warns at each ``rawkernel(...)`` call (cupyx/jit/_interface.py:247)
    from gpushare.cupy._util import experimental
    experimental("cupyx.jit.rawkernel")

    def deco(func: Any) -> _JitKernel:
        return _JitKernel(func, mode, device)
    return deco


class _Dim3(Dim3):
    """``threadIdx``, ``blockIdx``...: names JIT kernel bodies refer to (CuPy's
    ``Data('threadIdx', dim3)``)."""


threadIdx = _Dim3("threadIdx")
blockIdx = _Dim3("blockIdx")
blockDim = _Dim3("blockDim")
gridDim = _Dim3("gridDim")
#: CuPy's ``jit.warpsize`` is not an int but a run-time ``int32`` value of the kernel
#: (``Data('warpSize', int32)``, cupyx/jit/_interface.py:260), with that repr
warpsize = RuntimeData("warpSize", numpy.int32, "Returns the number of threads in a "
                       "warp.\n\n.. seealso:: :obj:`numba.cuda.warpsize`\n")

class _CooperativeGroups(types.ModuleType):
    """``cupyx.jit.cg``: cooperative groups inside jit kernels
    (``this_thread_block()``, ``this_grid()``, ``sync``, ``memcpy_async``, ``wait``,
    ``wait_prior``).

    See Also
    --------
    cupyx.jit.cg
    """


cg = _CooperativeGroups(__name__ + ".cg")
for _name in ("this_thread_block", "this_grid", "sync", "memcpy_async", "wait",
              "wait_prior"):
    setattr(cg, _name, Intrinsic("cg." + _name))
sys.modules[_public.real_name(cg)] = cg

#: CuPy's ``cupyx.jit._n_functions_upperlimit`` (cupyx/jit/__init__.py)
_n_functions_upperlimit = 100


def _unservable_module(name: str, names: tuple, doc: str) -> types.ModuleType:
    """``cupyx.jit.cub`` / ``cupyx.jit.thrust``: CuPy's names exist; the emulator has no
    CUB or Thrust device code, so a kernel using one is refused (NotImplementedError)."""
    mod = _public.PublicModule(__name__ + "." + name, doc)
    for n in names:
        setattr(mod, n, Intrinsic(f"{name}.{n}"))
    sys.modules[_public.real_name(mod)] = mod
    return mod


cub = _unservable_module("cub", ("WarpReduce", "BlockReduce", "Sum", "Max", "Min"),
                         "cupyx.jit.cub: CUB's block/warp reductions (not served by gpushare)")
thrust = _unservable_module("thrust", (  # CuPy's cupyx/jit/thrust.py names
    "host", "device", "seq", "adjacent_difference", "binary_search", "copy", "count",
    "equal", "equal_range", "exclusive_scan", "exclusive_scan_by_key", "fill", "find",
    "gather", "inclusive_scan", "inclusive_scan_by_key", "inner_product", "is_sorted",
    "is_sorted_until", "lower_bound", "make_constant_iterator",
    "make_counting_iterator", "mismatch", "reduce", "reduce_by_key", "remove",
    "remove_copy", "replace", "replace_copy", "reverse", "reverse_copy", "scatter",
    "sequence", "set_difference", "set_difference_by_key", "set_intersection",
    "set_intersection_by_key", "set_symmetric_difference",
    "set_symmetric_difference_by_key", "set_union", "set_union_by_key", "sort",
    "sort_by_key", "stable_sort", "stable_sort_by_key", "swap_ranges", "unique",
    "unique_by_key", "upper_bound"),
    "cupyx.jit.thrust: Thrust's algorithms (not served by gpushare)")

for _name in ("syncthreads", "syncwarp", "shared_memory", "atomic_add", "atomic_sub",
              "atomic_exch", "atomic_min", "atomic_max", "atomic_inc", "atomic_dec",
              "atomic_cas", "atomic_and", "atomic_or", "atomic_xor", "grid", "gridsize",
              "laneid", "range", "shfl_sync", "shfl_up_sync", "shfl_down_sync",
              "shfl_xor_sync"):
    globals()[_name] = Intrinsic(_name)
del _name
