"""CuPy's rules for a RawKernel launch's ``grid``, ``block`` and ``shared_mem``, stated
once for both sides: the server's kernel emulator raises CuPy's errors by them
(``gpushare_server.kernels._raw``), the client pipelines a launch only where they say
it passes (``gpushare.cupy._kernels``).

Read from CuPy 14.2's ``cupy/_core/raw.pyx`` (``RawKernel.__call__`` hands everything to
``Function.__call__``) and ``cupy/cuda/function.pyx``:

* ``RawKernel.__call__(self, grid, block, args, **kwargs)`` (:func:`raw_kernel_call`:
  Cython's words for its arguments) compiles, then passes
  ``enable_cooperative_groups=self.enable_cooperative_groups, **kwargs`` on
  (:func:`function_kwargs`: Cython's TypeError when ``kwargs`` has it too);
* ``Function.__call__(self, tuple grid, tuple block, args, size_t shared_mem=0,
  stream=None, enable_cooperative_groups=False)`` (:func:`function_call`): Cython
  refuses an unknown keyword, converts ``shared_mem`` to ``size_t`` through the
  object's ``__int__`` (a float is truncated, a negative result is an OverflowError, an
  object without ``__int__`` "an integer is required"), then tests that ``grid`` and
  ``block`` are tuples (``None`` passes);
* each is padded with ones and cut to three (``(grid + (1, 1))[:3]``: ``None`` is
  Python's TypeError there, :func:`pad3`); then ``_get_stream(stream)``
  (:func:`stream_ptr`: ``stream.ptr``, its AttributeError);
* ``_launch`` takes ``max(1, item)`` of each item (:func:`dims`), the first of each as
  a ``Py_ssize_t`` (its ``__index__``), the other two as C ``int`` (through
  ``__int__``, as ``shared_mem``: ``(1, 2.5)`` is a grid of two; Cython's
  OverflowError beyond it; ``()`` pads to two items: the third's IndexError), and
  ``shared_mem`` as a ``Py_ssize_t``; then ``len(args)`` (Python's TypeError for an
  object without one) and each argument;
* a cooperative launch (the kernel's ``enable_cooperative_groups``) compares the whole
  ``grid[0] * grid[1] * grid[2]`` (``grid[0]`` not yet cut to 32 bits) with the blocks
  that may be co-resident: beyond them a one-dimensional grid is cut down to them with a
  UserWarning, any other is a ValueError (:func:`cooperative_grid`);
* ``driver.launchKernel`` is passed ``<int>grid0``, ``<int>block0`` and
  ``<int>shared_mem`` as ``unsigned int`` parameters: C's conversions, which keep the
  low 32 bits;
* ``cuLaunchKernel`` refuses (``CUDA_ERROR_INVALID_VALUE``) a block of more than 1024
  threads or beyond (1024, 1024, 64), a grid beyond (2**31 - 1, 65535, 65535) or of
  size 0, and more dynamic shared memory than the kernel's
  ``max_dynamic_shared_size_bytes`` (48 KiB unless raised).
"""
from __future__ import annotations

import operator
from typing import Any

from .cython_args import cython_function, tp_name

#: CUDA's limits (compute capability 8.0 and later)
MAX_BLOCK = (1024, 1024, 64)
MAX_THREADS_PER_BLOCK = 1024
MAX_GRID = (2 ** 31 - 1, 65535, 65535)
#: dynamic shared memory a kernel may use before ``max_dynamic_shared_size_bytes`` is
#: raised, and how far it can be raised (H100/H200's opt-in limit)
MAX_SHARED_DEFAULT = 49152
MAX_SHARED_OPTIN = 232448

_INT_MAX = 2 ** 31 - 1
_LONG_MAX = 2 ** 63 - 1
_U32 = 2 ** 32


def _nb_int(x: Any) -> int:
    """Cython 3's conversion of a non-int object to a C integer type: its type's
    ``__int__`` (``nb_int``), else "an integer is required"."""
    if isinstance(x, int):
        return int(x)
    conv = getattr(type(x), "__int__", None)
    if conv is None:
        raise TypeError("an integer is required")
    return int(conv(x))


def _c_int(x: Any) -> int:
    """Cython's conversion of a Python object to a C ``int`` (through ``long``)."""
    x = _nb_int(x)
    if -_INT_MAX - 1 <= x <= _INT_MAX:
        return x
    if -_LONG_MAX - 1 <= x <= _LONG_MAX:
        raise OverflowError("value too large to convert to int")
    raise OverflowError("Python int too large to convert to C long")


def _ssize_t(x: int) -> int:
    """Cython's conversion of a Python int to ``Py_ssize_t`` (``PyLong_AsSsize_t``)."""
    if -_LONG_MAX - 1 <= x <= _LONG_MAX:
        return x
    raise OverflowError("Python int too large to convert to C ssize_t")


def size_t(x: Any) -> int:
    """Cython 3.2's conversion of a Python object to ``size_t`` (through ``__int__``, so
    a float is truncated): ``Function.__call__``'s ``shared_mem``, ``_get_stream``'s
    result (a stream's ``ptr``)."""
    n = _nb_int(x)
    if n < 0:
        raise OverflowError("can't convert negative value to size_t")
    if n >= 2 ** 64:
        raise OverflowError("Python int too large to convert to C unsigned long")
    return n


def shared_mem_size(shared_mem: Any) -> int:
    """``shared_mem`` as CuPy's ``size_t shared_mem`` parameter converts it (Cython 3.2:
    through ``__int__``, so a float is truncated)."""
    return size_t(shared_mem)


def pad3(v: Any) -> tuple:
    """``(v + (1, 1))[:3]``, as ``Function.__call__`` pads ``grid`` and ``block``
    (``None`` + a tuple: Python's TypeError, as in CuPy)."""
    return (v + (1, 1))[:3]


def dims(t: tuple) -> tuple:
    """A padded ``grid`` or ``block`` (:func:`pad3`) as ``_launch`` takes it and
    ``cuLaunchKernel`` receives it: item by item, ``max(1, item)`` converted (the first
    to ``Py_ssize_t`` by its ``__index__``, then ``<int>`` into an unsigned int: the low
    32 bits; the others to C ``int`` through ``__int__``), CuPy's errors on the way."""
    x = _ssize_t(operator.index(max(1, t[0]))) % _U32  # (``()`` pads to two items:
    y = _c_int(max(1, t[1]))                            # the third's IndexError)
    return (x, y, _c_int(max(1, t[2])))


def dim3(v: Any, what: str) -> tuple:
    """``grid`` or ``block`` (``what``) as ``cuLaunchKernel`` receives it from CuPy;
    CuPy's TypeError (Cython's test of a ``tuple`` parameter: ``None`` passes) or
    OverflowError when CuPy refuses it before the launch."""
    if v is not None and not isinstance(v, tuple):
        raise TypeError("Argument '%s' has incorrect type (expected tuple, got %s)"
                        % (what, tp_name(type(v))))
    return dims(pad3(v))


@cython_function(name="__call__")
def raw_kernel_call(grid: Any, block: Any, args: Any, **kwargs: Any) -> tuple:
    """CuPy's ``RawKernel.__call__(self, grid, block, args, **kwargs)`` (a Cython
    ``def``: its words for missing, extra and repeated arguments): ``(grid, block, args,
    kwargs)``."""
    return grid, block, args, kwargs


@cython_function({"grid": tuple, "block": tuple}, name="__call__",
                 convert={"shared_mem": size_t})
def function_call(grid: Any, block: Any, args: Any, shared_mem: Any = 0, stream: Any = None,
                  enable_cooperative_groups: Any = False) -> tuple:
    """CuPy's ``Function.__call__(self, tuple grid, tuple block, args, size_t
    shared_mem=0, stream=None, enable_cooperative_groups=False)`` (Cython's unknown
    keyword, ``shared_mem`` converted, then the tuple tests) and the first lines of its
    body, which pad ``grid`` and ``block`` (:func:`pad3`): ``(grid3, block3, args,
    shared_mem, stream)``; ``_get_stream(stream)`` (:func:`stream_ptr`) and
    ``_launch``'s conversions (:func:`dims`) come next."""
    return pad3(grid), pad3(block), args, shared_mem, stream


def function_kwargs(kwargs: dict, cooperative: Any) -> dict:
    """The keywords ``RawKernel.__call__`` hands ``Function.__call__``:
    ``enable_cooperative_groups=self.enable_cooperative_groups, **kwargs`` (Cython's
    error when ``kwargs`` has it too)."""
    if "enable_cooperative_groups" in kwargs:
        raise TypeError("function() got multiple values for keyword argument "
                        "'enable_cooperative_groups'")
    return {"enable_cooperative_groups": cooperative, **kwargs}


def stream_ptr(stream: Any) -> Any:
    """CuPy's ``_get_stream(stream)``: ``stream.ptr`` as a ``size_t`` (its
    AttributeError for an object without one); None for ``None`` (the current
    stream)."""
    if stream is None:
        return None
    return size_t(stream.ptr)


def shared_mem_bytes(shared_mem: int) -> int:
    """The dynamic shared memory ``cuLaunchKernel`` receives for ``shared_mem`` (from
    :func:`shared_mem_size`): ``<int>`` into an ``unsigned int``, the low 32 bits."""
    return shared_mem % _U32


def within_limits(grid: tuple, block: tuple, shared_mem: int,
                  max_shared: int = MAX_SHARED_DEFAULT) -> bool:
    """Whether ``cuLaunchKernel`` takes the launch (``grid``/``block`` from
    :func:`dim3`, ``shared_mem`` from :func:`shared_mem_size`); else CUDA's
    ``CUDA_ERROR_INVALID_VALUE``."""
    for n, most in zip(block + grid, MAX_BLOCK + MAX_GRID):
        if not 1 <= n <= most:
            return False
    if block[0] * block[1] * block[2] > MAX_THREADS_PER_BLOCK:
        return False
    return shared_mem_bytes(shared_mem) <= max(max_shared, 0)


#: the blocks of a cooperative launch that may be co-resident on the CPU emulator
#: (CuPy's ``occupancyMaxActiveBlocksPerMultiprocessor(...) * MultiProcessorCount``;
#: the emulator runs each block of such a launch on a thread of its own:
#: ``GS_COOP_MAX_BLOCKS`` in ``csrc/gpushare_rt.h``)
COOP_MAX_BLOCKS = 256


def cooperative_grid(grid: Any, max_grid_size: int = COOP_MAX_BLOCKS) -> tuple:
    """CuPy's check of a cooperative launch's grid (``_launch`` in
    ``cupy/cuda/function.pyx``), on ``grid`` as the user gave it (a tuple :func:`dim3`
    accepts): ``(grid, warning)``, the grid to launch (``grid[0]`` still whole; pass it
    to :func:`dim3`) and the UserWarning's text or None; CuPy's ValueError for a grid of
    more than one dimension beyond ``max_grid_size``."""
    t = pad3(grid)
    g0 = _ssize_t(operator.index(max(1, t[0])))
    g1, g2 = _c_int(max(1, t[1])), _c_int(max(1, t[2]))
    if g0 * g1 * g2 > max_grid_size:
        if g1 == g2 == 1:
            return ((max_grid_size, 1, 1),
                    "The grid size will be reduced from {} to {}, as the specified "
                    "grid size exceeds the limit.".format(g0, max_grid_size))
        raise ValueError("The specified grid size ({} * {} * {}) exceeds the limit "
                         "({}).".format(g0, g1, g2, max_grid_size))
    return (g0, g1, g2), None


def launch_ok(grid: Any, block: Any, shared_mem: Any,
              max_shared: int = MAX_SHARED_DEFAULT) -> bool:
    """Whether a launch with these passes all of CuPy's and CUDA's checks above
    (never raises)."""
    try:
        n = shared_mem_size(shared_mem)
        return within_limits(dim3(grid, "grid"), dim3(block, "block"), n, max_shared)
    except Exception:  # (an item's own comparison or __index__ may raise anything)
        return False
