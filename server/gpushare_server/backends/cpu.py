"""The CPU backend: NumPy arrays standing in for device arrays, with CuPy's semantics.

Where CuPy deliberately differs from NumPy this backend follows CuPy: scalar results
are 0-d arrays, host (numpy) arrays are refused where CuPy refuses them, floating
point errors never warn, FFTs keep single precision, random functions take
``dtype=``. Names are resolved through ``OVERRIDES`` first, then through the NumPy
(or SciPy) module that mirrors the CuPy module, and only for names in CuPy's public
namespace (``gpushare.namespace``).
"""
from __future__ import annotations

import bisect
import functools
import math
import re
import threading
import time
import warnings
import weakref
from typing import Any, Callable

import numpy

from gpushare import structured, ufunc_loops
from gpushare.cython_args import argument_type_error
from gpushare.errors import CUDARuntimeError, OutOfMemoryError
from gpushare.launch_rules import MAX_SHARED_DEFAULT, MAX_SHARED_OPTIN
from gpushare.namespace import (FILE_FUNCTIONS, FILE_METHODS, SERVED_CLASSES,
                                is_public_callable, ndarray_members, refuse_file_access,
                                served_classmethod, served_members)
from gpushare.protocol import HostArray

from . import check_member, cpu_cast, cpu_curand, cpu_ftz, host_memory, scipy_module, sparse
from .cpu_random import RandomState, random_function

# CuPy never reports floating point errors (the GPU does not trap them).
numpy.seterr(all="ignore")

#: cupy module -> the host module mirroring it
MIRRORS = {
    "cupy": "numpy",
    "cupy.linalg": "numpy.linalg",
    "cupy.fft": "numpy.fft",
    "cupy.random": None,  # see _random_function
    "cupy.polynomial": "numpy.polynomial",
    "cupyx.scipy.special": "scipy.special",
    "cupyx.scipy.ndimage": "scipy.ndimage",
    "cupyx.scipy.linalg": "scipy.linalg",
    "cupyx.scipy.signal": "scipy.signal",
    "cupyx.scipy.signal.windows": "scipy.signal.windows",
    "cupyx.scipy.interpolate": "scipy.interpolate",
    "cupyx.scipy.spatial": "scipy.spatial",
    "cupyx.scipy.spatial.distance": "scipy.spatial.distance",
    "cupyx.scipy.fftpack": "scipy.fftpack",
    "cupyx.scipy.stats": "scipy.stats",
    "cupyx.scipy.fft": "scipy.fft",
    "cupyx.scipy.sparse": "scipy.sparse",
    "cupyx.scipy.sparse.linalg": "scipy.sparse.linalg",
    "cupyx.scipy.sparse.csgraph": "scipy.sparse.csgraph",
}


def _import_mirror(module: str, path: str) -> Any:
    """The host module mirroring the CuPy ``module`` (for ``path``'s errors)."""
    host_name = MIRRORS.get(module)
    if host_name is None:
        raise NotImplementedError(f"{path} is not available on gpushare's CPU backend")
    return scipy_module(host_name, path)


def _design_matrix(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return cpu_sparse.csr_matrix(fn(*args, **kwargs))


def _unsupported(value: Any) -> TypeError:
    return TypeError(f"Unsupported type {type(value)}")


def _check_args(args: tuple, kwargs: dict) -> None:
    for value in args:
        if isinstance(value, HostArray):
            raise _unsupported(value.array)
        if isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, HostArray):
                    raise _unsupported(item.array)
    for value in kwargs.values():
        if isinstance(value, HostArray):
            raise _unsupported(value.array)


def to_device_result(value: Any) -> Any:
    """CuPy returns 0-d arrays where NumPy returns scalars, and its arrays are all
    writable (NumPy's ``diagonal`` and ``broadcast_to`` give read-only views; see
    ``cpu_routines.broadcast_arrays`` for the third kind)."""
    if type(value) is numpy.ndarray:
        if not value.flags.writeable:
            _writable(value)
        if value.dtype.hasobject:  # CuPy has no object arrays; the server keeps none
            raise ValueError(f"Unsupported dtype {value.dtype}")
        return value
    if isinstance(value, numpy.generic):
        return numpy.asarray(value)
    if type(value) is HostScalar:  # (a NumPy scalar in CuPy's result too)
        return value.value
    if type(value) is numpy.matrix:  # SciPy's sparse matrices give these; CuPy ndarrays
        return value.A
    if isinstance(value, tuple) and type(value) is not tuple:  # namedtuple results
        return type(value)(*(to_device_result(v) for v in value))
    if isinstance(value, tuple):
        return tuple(to_device_result(v) for v in value)
    if isinstance(value, list) and value and isinstance(value[0], (numpy.ndarray, numpy.generic)):
        return [to_device_result(v) for v in value]
    return value


def _writable(arr: numpy.ndarray) -> None:
    """Make NumPy's read-only view of writable memory writable, as CuPy's would be."""
    try:
        arr.setflags(write=True)
    except ValueError:
        pass  # memory that is read-only itself stays so


def _device_results(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` refusing host arrays and giving CuPy's results (0-d arrays, not scalars)."""
    def call(*args: Any, **kwargs: Any) -> Any:
        _check_args(args, kwargs)
        return to_device_result(fn(*args, **kwargs))
    return call


def _c_order_outputs(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A ufunc as CuPy calls it: outputs it allocates are C-contiguous, whatever the
    inputs' layout (NumPy's follow the inputs). Its ``__wrapped__`` is what the
    session reaches ufunc methods (``reduce``, ``outer``...) through."""
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("out") is None:
            kwargs.setdefault("order", "C")
        return fn(*args, **kwargs)
    call.__name__ = getattr(fn, "__name__", "ufunc")
    call.__doc__ = fn.__doc__
    call.__wrapped__ = getattr(fn, "__wrapped__", fn)  # type: ignore[attr-defined]
    return call


_SCALAR_TYPES = frozenset((int, float, bool, complex))


_INFS = (math.inf, -math.inf)  # (``CpuBackend.inplace``: never cached)


def _device_ufunc(uf: numpy.ufunc) -> Callable[..., Any]:
    """``_c_order_outputs(_wrap(uf))`` for a NumPy ufunc, whose most common call (arrays
    and Python scalars, no keywords: every operator) runs in one Python frame. Its
    float32/complex64 loops flush subnormals as CuPy's ``-ftz=true`` kernels do
    (``cpu_ftz``: the call goes through ``cpu_ftz.wrap(uf)``, still named, and
    ``__wrapped__``, as ``uf``: the executor's ufunc methods read ``__wrapped__``)."""
    flushing = cpu_ftz.wrap(uf)
    general = _c_order_outputs(functools.wraps(uf)(_device_results(flushing)))
    nin = uf.nin

    def call(*args: Any, **kwargs: Any) -> Any:
        result = _call(*args, **kwargs)
        if len(args) <= nin and kwargs.get("out") is None:
            _cupy_longs(result)
        return result

    def _call(*args: Any, **kwargs: Any) -> Any:
        try:
            if kwargs:
                if "_where" in kwargs:
                    kwargs = _cupy_where(kwargs)
                if kwargs.get("dtype") is not None or "casting" in kwargs:
                    args, kwargs = cpu_cast.cupy_casting(uf, args, kwargs)  # (CuPy's)
                if kwargs.get("casting") == "unsafe":  # (floats into integers: a GPU's)
                    result = cpu_cast.ufunc_call(uf, general, args, kwargs)
                    if result is not None:
                        return result
                return general(*args, **kwargs)
            arrays = False
            for value in args:
                if type(value) is numpy.ndarray:
                    arrays = True
                elif type(value) not in _SCALAR_TYPES:
                    return general(*args)
            if not arrays and any(type(v) is int and v >= 1 << 63 for v in args):
                # (NumPy takes no such Python int: the NumPy scalars CuPy's CScalars are,
                # no weak promotion without an array; beyond 64 bits its OverflowError)
                args = tuple(ufunc_loops.scalar_dtype(v).type(v) for v in args)
            return to_device_result(flushing(*args, order="C"))
        except TypeError as exc:  # CuPy's words (no loop, a cast of out=, bool -)
            raise cpu_routines.ufunc_error(uf, args, kwargs, exc) from None
        except (ValueError, OverflowError) as exc:  # (broadcasting, out='s shape, an int
            # beyond 64 bits)
            raise cpu_routines._ufunc_value_error(uf, args, kwargs, exc) from None
    call.__name__ = uf.__name__
    call.__doc__ = uf.__doc__
    call.__wrapped__ = uf  # type: ignore[attr-defined]
    return call


def _cupy_longs(result: Any) -> None:
    """A new result of a ufunc whose loop NumPy ran as longlong 'q' ('Q') made int64 'l'
    ('L') in place: CuPy's loops list 'll->l' first, and it takes the first loop an
    operand casts to safely (``_kernel.pyx: _guess_routine_from_in_types``; also for
    ``dtype=numpy.longlong``, ``_guess_routine_from_dtype``)."""
    for r in result if type(result) is tuple else (result,):
        cpu_cast.cupy_long(r)


#: SciPy's ufuncs that warn of a float where they want an integer (a deprecation, or a
#: truncation); CuPy's loops take the float, and its kernels never warn
_SCIPY_WARNS = frozenset(("bdtr", "bdtrc", "bdtri", "expn", "nbdtr", "nbdtrc", "nbdtri",
                          "pdtri", "yn"))


def _special_ufunc(call: Callable[..., Any], path: str) -> Callable[..., Any]:
    """``cupyx.scipy.special``'s ufunc ``path``, served by SciPy's namesake (``call``),
    giving CuPy's result types: those of the loop CuPy's ufunc runs (``ufunc_loops``),
    or CuPy's TypeError where it has none (SciPy's loops differ: CuPy's ``erf`` makes
    float64 of float16 and refuses complex numbers). The client infers its calls'
    results from the same loops. (With ``out=``, SciPy's loop computes into it, once
    CuPy's is found; with other keywords the call is SciPy's.)"""
    name = path.rpartition(".")[2]
    entry = ufunc_loops.SPECIAL.get(name)
    if entry is None:
        return call
    kernel, loops, nin = entry[0], ufunc_loops.compact(entry[1]), entry[1].index("->")

    if name in _SCIPY_WARNS:
        plain = call

        def call(*args: Any, **kwargs: Any) -> Any:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return plain(*args, **kwargs)
        call.__name__, call.__doc__ = plain.__name__, plain.__doc__
        call.__wrapped__ = getattr(plain, "__wrapped__", plain)  # type: ignore

    def special(*args: Any, **kwargs: Any) -> Any:
        if len(args) != nin or set(kwargs) - {"out"}:
            return call(*args, **kwargs)
        outs = cpu_routines.cupy_loop(kernel, loops, args)[nin:]  # (CuPy's TypeError)
        if kwargs:  # (an output: SciPy's loop, cast into it as CuPy casts)
            return call(*args, **kwargs)
        result = call(*args)
        if len(outs) == 1:
            return _new_c_array(result, outs)
        return tuple(_new_c_array(r, t) for r, t in zip(result, outs))
    special.__name__, special.__doc__ = call.__name__, call.__doc__
    special.__wrapped__ = getattr(call, "__wrapped__", call)  # type: ignore[attr-defined]
    return special


def _new_c_array(result: numpy.ndarray, dtype: str) -> numpy.ndarray:
    """``result`` as a ufunc's new output of ``dtype``: C-contiguous, as CuPy's."""
    if result.dtype.char != dtype:
        return result.astype(dtype, order="C")
    return result if result.flags.c_contiguous else numpy.ascontiguousarray(result)


def _cupy_where(kwargs: dict) -> dict:
    """A ufunc call's ``_where=`` (CuPy's ``ufunc.__call__`` takes it, NumPy's
    ``where=`` it refuses) as NumPy's ``where=``: an array must be boolean (CuPy's
    TypeError, in NumPy's words for a 'safe' cast), anything else is ``bool(value)``."""
    kwargs = dict(kwargs)
    where = kwargs.pop("_where")
    if where is None:
        return kwargs
    if isinstance(where, HostArray):
        raise _unsupported(where.array)
    if isinstance(where, numpy.ndarray):
        if where.dtype != numpy.bool_:
            raise TypeError(f"Cannot cast array data from {where.dtype!r} to "
                            f"{numpy.dtype(numpy.bool_)!r} according to the rule 'safe'")
    else:
        where = bool(where)
    kwargs["where"] = where
    return kwargs


def _ufunc_value_errors(fn: Callable[..., Any], uf: numpy.ufunc) -> Callable[..., Any]:
    """``fn``, the CPU backend's own call of the ufunc ``uf``, raising CuPy's words for
    NumPy's broadcast and out-of-bounds errors (``cpu_routines._ufunc_value_error``)."""
    def call(*args: Any, **kwargs: Any) -> Any:
        if "_where" in kwargs:
            kwargs = _cupy_where(kwargs)
        if kwargs.get("dtype") is not None or "casting" in kwargs:
            args, kwargs = cpu_cast.cupy_casting(uf, args, kwargs)  # (CuPy's)
        try:
            return fn(*args, **kwargs)
        except (ValueError, OverflowError) as exc:
            raise cpu_routines._ufunc_value_error(uf, args, kwargs, exc) from None
    call.__name__ = fn.__name__
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn.__wrapped__  # type: ignore[attr-defined]
    return call


def _wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``_device_results(fn)`` with ``fn``'s name, docs and ``__wrapped__``."""
    return functools.wraps(fn)(_device_results(fn))


#: modules whose CuPy functions take host arrays too (they begin with
#: ``cupy.asarray``: cuSignal's heritage), where the rest of CuPy refuses them
HOST_OK_MODULES = frozenset({"cupyx.scipy.signal", "cupyx.scipy.signal.windows",
                             "cupyx.scipy.interpolate", "cupyx.scipy.spatial",
                             "cupyx.scipy.spatial.distance"})


def _host_value(value: Any) -> Any:
    if isinstance(value, HostArray):
        return value.array
    if type(value) in (list, tuple):
        return type(value)(v.array if isinstance(v, HostArray) else v for v in value)
    return value


def _wrap_host_ok(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` taking host arrays as NumPy arrays, giving CuPy's results (``fn`` marked
    ``host_arrays`` gets them as ``HostArray``s, to refuse them where CuPy does)."""
    unwrap = (lambda v: v) if getattr(fn, "host_arrays", False) else _host_value

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return to_device_result(fn(*map(unwrap, args),
                                   **{k: unwrap(v) for k, v in kwargs.items()}))
    return call


# --- cupy.* functions whose CuPy behaviour differs from NumPy's -------------------

def _asarray_like(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``cupy.asarray`` and its kin: host data converted by NumPy, a device array's
    floats converted to integers as on a GPU (``cpu_cast``)."""
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("blocking", None)
        if isinstance(a, HostArray):
            return fn(a.array, *args, **kwargs)
        with numpy.errstate(invalid="ignore"):
            out = fn(a, *args, **kwargs)
        return _device_cast(out, a)
    return call


def _device_cast(out: Any, src: Any) -> Any:
    """``out``, a conversion of the device array ``src`` by NumPy, with its floats
    converted to integers as on a GPU instead (``cpu_cast``)."""
    if type(src) is numpy.ndarray and type(out) is numpy.ndarray and out is not src and \
            cpu_cast.changes(src.dtype, out.dtype):
        cpu_cast.mend(out, src)  # (ndmin: leading 1s)
    return out


def _array(obj: Any, dtype: Any = None, copy: bool = True, order: str = "K", subok: bool = False,
           ndmin: int = 0, *, blocking: bool = False) -> numpy.ndarray:
    """See Also: cupy.array (of a device array, ``copy=None`` returns the array itself or
    a view when it can, ``copy=False`` raises ValueError when it cannot, as in NumPy 2;
    anything else, a sequence of device arrays too, is copied whatever ``copy`` says,
    as CuPy's ``_array_from_nested_sequence`` and ``_array_default`` do)."""
    if isinstance(obj, HostArray):
        # host data always lands in new device memory (converted on the host: NumPy's)
        out = numpy.array(obj.array, dtype=dtype, copy=True, order=order)
        return _with_ndmin(out, None, ndmin)
    if copy is False and not isinstance(obj, numpy.ndarray):
        copy = True
    if dtype is not None and type(obj) in (list, tuple) and _holds_device_array(obj):
        # (CuPy's ``_array_from_nested_cupy_sequence``: concatenated, then ``astype``
        # on the device: floats to integers as a GPU converts them)
        out = numpy.array(obj, copy=True, order=order, ndmin=ndmin)
        return cpu_cast.astype(out, dtype, copy=False)
    with numpy.errstate(invalid="ignore"):
        out = _device_cast(numpy.array(obj, dtype=dtype, copy=copy, order=order), obj)
    return _with_ndmin(out, obj, ndmin)


def _with_ndmin(out: numpy.ndarray, obj: Any, ndmin: int) -> numpy.ndarray:
    """``out`` with leading ones up to ``ndmin`` dimensions, as CuPy's ``array`` sets
    them into a new array's shape (it still owns its memory; NumPy's ``ndmin`` gives a
    view): a view only of ``obj`` itself, not copied."""
    if ndmin > out.ndim:
        if out is obj:
            out = out.view()
        out.shape = (1,) * (ndmin - out.ndim) + out.shape
    return out


def _holds_device_array(seq: Any) -> bool:
    """Whether a nested list or tuple holds a device array."""
    for item in seq:
        if type(item) is numpy.ndarray or \
                type(item) in (list, tuple) and _holds_device_array(item):
            return True
    return False


def _asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None,
             blocking: bool = True) -> Any:
    return numpy.array(a.array if isinstance(a, HostArray) else a, order=order)


def _get_array_module(*args: Any) -> Any:
    raise NotImplementedError("get_array_module is answered by the client")


#: FFTs whose transforms are complex-to-complex (``axes=()`` returns the input)
_C2C_FFTS = frozenset({"fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"})


def _cupy_fft_1d(name: str, a: numpy.ndarray, args: tuple, kwargs: dict) -> tuple:
    """``a``, ``args`` and ``kwargs`` of a 1-D transform as CuPy's ``_fft`` reads its
    ``n`` and ``axis`` (``fft/_fft.py``): ``_cook_shape`` slices ``a[..., :n]`` for a
    negative ``n`` (``fft(x, n=-1)`` transforms all but the last point; a C2R transform
    cooks ``n // 2 + 1`` points), reading ``a.shape[axis]`` with the axis as given, as
    does a C2R transform's output size without ``n``; ``_exec_fft`` transforms the
    last axis wherever ``axis % a.ndim`` is it, else ``a.swapaxes(axis, -1)`` (``Axis
    out of range``); no point left is ``Invalid number of FFT data points (0)``. What
    this does not reach (an axis or ``n`` not an ``int``, a 0-d array, a C2R transform
    of a non-positive ``n`` with points left: cuFFT's plan) is left as it was."""
    n = kwargs.get("n", args[0] if args else None)
    axis = kwargs.get("axis", args[1] if len(args) > 1 else -1)
    nd = a.ndim
    if type(axis) is not int or nd == 0 or (n is not None and type(n) is not int):
        return a, args, kwargs
    c2r = name in ("irfft", "hfft")
    if n is not None and (n,) != a.shape:
        size = n // 2 + 1 if c2r else n
        length = a.shape[axis]  # (Python's IndexError, as CuPy's ``a.shape[axis]``)
        if n < 0 or (n == 0 and not c2r):
            left = len(range(length)[:size])
            if left == 0:
                raise ValueError("Invalid number of FFT data points (0) specified.")
            if c2r:
                return a, args, kwargs  # (cuFFT's plan of a negative size)
            index = [slice(None)] * nd
            index[axis] = slice(0, size)
            a, n = a[tuple(index)], None
    elif c2r and n is None:
        a.shape[axis]  # (``_get_fftn_out_size``: ``in_shape[last_axis]``)
    if axis % nd == nd - 1:
        axis = -1
    elif not -nd <= axis < nd:
        raise ValueError("Axis out of range")  # (``_ndarray_swapaxes``)
    kwargs = {k: v for k, v in kwargs.items() if k not in ("n", "axis")}
    return a, (n, axis) + tuple(args[2:]), kwargs


def _fft_wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
    """CuPy keeps single precision through FFTs (float16 computes as float32), refuses
    host arrays, returns the input itself for an empty ``axes``, and n-d transforms of
    Fortran-ordered input come back Fortran-ordered. A complex-to-real transform along
    one axis ends in the input's own real precision (CuPy's ``_compat_caster``)."""
    name = fn.__name__
    multi = name.endswith(("2", "n"))
    c2r = name in ("irfft", "irfft2", "irfftn", "hfft")
    r2c = name in ("rfft", "rfft2", "rfftn", "ihfft")

    @functools.wraps(fn)
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        _check_args((a, *args), kwargs)
        if not isinstance(a, numpy.ndarray):
            raise TypeError("The input array a must be a cupy.ndarray")
        cpu_fft.check_plan("cupy.fft", name, a, args, kwargs)  # (``with plan:``)
        if multi and a.ndim > 1 and not (a.flags.f_contiguous and (c2r or r2c)):
            # (``_default_fft_func`` reads the axes before either path: CuPy's words)
            cpu_fft._prep_fftn_axes(a.ndim, kwargs.get("s", args[0] if args else None),
                                    kwargs.get("axes", args[1] if len(args) > 1 else
                                               ((-2, -1) if name.endswith("2") else None)))
        if not multi:
            a, args, kwargs = _cupy_fft_1d(name, a, args, kwargs)
        # a complex-to-real transform along one axis (axes as the caller gave them) ends
        # in the input's real precision, as NumPy's does: float16 in, float16 out
        given_axes = kwargs.get("axes", args[1] if multi and len(args) > 1 else None)
        one_axis = not multi or (isinstance(given_axes, (tuple, list)) and
                                 len(given_axes) == 1)
        if multi:
            kwargs.update(zip(("s", "axes", "norm", "out"), args))
            args = ()
            axes = kwargs.get("axes", (-2, -1) if name.endswith("2") else None)
            if axes is not None and len(tuple(axes)) == 0:
                if name in _C2C_FFTS:
                    return a
                raise IndexError("list index out of range")
            shape = kwargs.get("s")
            if shape is not None:
                if axes is None:
                    # CuPy transforms the last len(s) axes (NumPy 2 warns about this)
                    axes = kwargs["axes"] = tuple(range(-len(shape), 0))
                if any(n is None for n in shape):
                    # None keeps an axis' length (NumPy 2 deprecates None in s)
                    sizes = [a.shape[ax] for ax in axes]
                    if name.startswith("irfft") and shape[-1] is None:
                        sizes[-1] = 2 * (sizes[-1] - 1)
                    kwargs["s"] = tuple(m if n is None else n for n, m in zip(shape, sizes))
        norm = kwargs.get("norm") if multi else kwargs.get(
            "norm", args[2] if len(args) > 2 else None)
        if norm not in (None, "backward", "ortho", "forward"):  # (CuPy's words)
            raise ValueError(f'Invalid norm value {norm}, should be "backward", "ortho", '
                             'or "forward".')
        if r2c and a.dtype.kind == "c":
            # CuPy casts the input to its real type first (``_convert_dtype``)
            import warnings
            warnings.warn("Casting complex values to real discards the imaginary part",
                          numpy.exceptions.ComplexWarning, stacklevel=2)
            a = a.real.copy()
        if c2r and not multi and (kwargs.get("n", args[0] if args else None)) is None:
            axis = kwargs.get("axis", args[1] if len(args) > 1 else -1)
            if isinstance(axis, int) and -a.ndim <= axis < a.ndim and a.shape[axis] == 1:
                # the default length 2 (m - 1) is 0: cuFFT refuses the plan (CuFFTError)
                raise RuntimeError("CUFFT_INVALID_SIZE")
        single = a.dtype in (numpy.float32, numpy.complex64, numpy.float16)
        out = fn(a, *args, **kwargs)
        if single and isinstance(out, numpy.ndarray):
            out = out.astype(numpy.complex64 if out.dtype.kind == "c" else numpy.float32,
                             copy=False)
        if c2r and one_axis and isinstance(out, numpy.ndarray):
            out = out.astype(numpy.result_type(a.real.dtype, 1.0), copy=False)
        if multi and name in _C2C_FFTS and isinstance(out, numpy.ndarray) and \
                a.flags.f_contiguous and not a.flags.c_contiguous:
            out = numpy.asfortranarray(out)  # CuPy's n-d plans keep the input's layout
        if not multi and isinstance(out, numpy.ndarray) and out.ndim > 1:
            # (``_exec_fft``: a new C-ordered array of the input with ``axis`` swapped
            # last, swapped back; NumPy's follows the input's layout)
            axis = kwargs.get("axis", args[1] if len(args) > 1 else -1)
            if type(axis) is int and -out.ndim <= axis < out.ndim:
                out = numpy.ascontiguousarray(out) if axis % out.ndim == out.ndim - 1 \
                    else numpy.ascontiguousarray(out.swapaxes(axis, -1)).swapaxes(axis, -1)
        return to_device_result(out)
    return call


def _c_int(value: Any) -> int:
    """Cython's conversion of a Python object to a C ``int`` (``__Pyx_PyInt_As_int``:
    an int, or the ``__int__`` of a number; beyond ``long``, Python's words)."""
    if not isinstance(value, int):
        if isinstance(value, (str, bytes)) or not hasattr(type(value), "__int__"):
            raise TypeError("an integer is required")
        value = int(value)
    if -2 ** 31 <= value < 2 ** 31:
        return int(value)
    if -2 ** 63 <= value < 2 ** 63:
        raise OverflowError("value too large to convert to int")
    raise OverflowError("Python int too large to convert to C long")


class Stream:
    """cupy.cuda.Stream on the CPU backend: work runs in call order, so a stream is
    only an ordering token; ``synchronize`` returns at once. ``ptr`` is CUDA's: 0 for
    the null stream, 2 (``cudaStreamPerThread``) for the per-thread one."""

    _current: list = []

    #: the device's ``cudaDeviceGetStreamPriorityRange``: (least, greatest), as an
    #: A100's or H100's (lower numbers are higher priorities)
    PRIORITY_RANGE = (0, -5)

    def __init__(self, null: bool = False, non_blocking: bool = False, ptds: bool = False,
                 priority: Any = None) -> None:
        self.ptr = 0 if null else 2 if ptds else id(self)
        self.is_non_blocking = bool(non_blocking) and not (null or ptds)
        self.priority = 0
        if not (null or ptds) and priority is not None:
            # CuPy's ``streamCreateWithPriority(flags, int priority)``: Cython's C int;
            # CUDA clamps the priority into the device's range
            least, greatest = Stream.PRIORITY_RANGE
            self.priority = min(max(_c_int(priority), greatest), least)

    #: the capture this stream records into (``cpu_graph``), None when not capturing
    capture: Any = None

    @property
    def done(self) -> bool:
        return cpu_graph.query(self)

    def synchronize(self) -> None:
        cpu_graph.synchronize(self)

    def begin_capture(self, mode: Any = None) -> None:
        cpu_graph.begin_capture(self, mode)

    def end_capture(self) -> Any:
        return cpu_graph.end_capture(self)

    def is_capturing(self) -> bool:
        return cpu_graph.is_capturing(self)

    def use(self) -> "Stream":
        Stream._current[:] = [self]
        return self

    def __enter__(self) -> "Stream":
        Stream._current.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        if Stream._current:
            Stream._current.pop()

    def record(self, event: Any = None) -> "Event":
        event = event or Event()
        event.record(self)
        return event

    def wait_event(self, event: Any) -> None:
        cpu_graph.wait_event(self, event)


class Event:
    """cupy.cuda.Event on the CPU backend: records the host clock."""

    def __init__(self, block: bool = False, disable_timing: bool = False,
                 interprocess: bool = False) -> None:
        self.ptr = id(self)
        self._time: float | None = None
        self.disable_timing = disable_timing

    done = True

    def record(self, stream: Any = None) -> None:
        if not cpu_graph.record_event(self, stream if stream is not None
                                      else cpu_graph.current_stream()):
            self._time = time.perf_counter()

    def synchronize(self) -> None:
        return None


#: results of this many bytes and more are entered in the pool's book as they are made
_POOL_TRACK_MIN = 64 << 10


def root_array(arr: numpy.ndarray) -> numpy.ndarray:
    """The array that owns ``arr``'s memory: its last NumPy base (itself if none)."""
    while isinstance(arr.base, numpy.ndarray):
        arr = arr.base
    return arr


class _Chunk:
    """A part of one of the pool's allocations (CuPy's ``_Chunk``), linked to its
    neighbours in address order."""
    __slots__ = ("size", "in_use", "prev", "next")

    def __init__(self, size: int) -> None:
        self.size, self.in_use = size, True
        self.prev: Any = None
        self.next: Any = None


class PoolBook:
    """CuPy's memory pool (``cupy/cuda/memory.pyx``: ``SingleDeviceMemoryPool``) as
    bookkeeping over the arrays the CPU backend makes, which NumPy allocates: each
    array's memory is a chunk of the pool, its size rounded up to 512 bytes; a freed
    chunk stays in the pool, merged with its free neighbours, and is reused (the
    smallest that fits, split) by a later array; ``free_all_blocks`` releases the
    allocations no array uses a part of. Arrays of ``_POOL_TRACK_MIN`` bytes and more
    are seen as they are made (``track``, the backend's results) and freed as they die
    (weak references); at each query (``sync``) the session's arrays not seen yet are
    added (smaller ones, a served object's) and those it no longer holds are freed. So
    a small array made and dropped between two queries leaves no cached block, where
    CuPy's pool would keep one: tracking every result as it is made cost the hot path of
    small operators about a fifth."""

    def __init__(self) -> None:
        #: id of a root array -> (weak reference to it, its chunk)
        self._live: dict = {}
        self._sizes: list = []  # the sizes of free chunks, sorted (a size once)
        self._free: dict = {}  # size -> the free chunks of that size
        self._used = self._total = 0
        self._lock = threading.RLock()
        self._refs: dict = {}  # id of a weak reference -> its array's key
        self._dead = self._died  # (one bound method for every reference)

    def track(self, arr: numpy.ndarray) -> None:
        root = root_array(arr)
        entry = self._live.get(id(root))
        if entry is not None and entry[0]() is root:
            return
        size = -(-root.nbytes // 512) * 512  # CuPy's ``_round_size``
        if size == 0:
            return  # (CuPy's pool allocates nothing for 0 bytes)
        with self._lock:
            chunk = self._malloc(size)
            try:
                ref = weakref.ref(root, self._dead)
            except TypeError:  # (no weak references: never seen as freed)
                self._release(chunk)
                return
            self._live[id(root)] = (ref, chunk)
            self._refs[id(ref)] = id(root)

    def _died(self, ref: Any) -> None:
        """A tracked array died: its chunk goes back to the pool."""
        with self._lock:
            key = self._refs.pop(id(ref), None)
            entry = self._live.get(key)
            if entry is not None and entry[0] is ref:
                del self._live[key]
                self._release(entry[1])

    def refuse(self, arrays: Any) -> None:
        """The allocations of ``arrays`` failed (the session's limit): CuPy's pool
        reserves nothing for an allocation it refuses, so an array's chunk that is an
        allocation of its own leaves the pool (other chunks go back to it)."""
        with self._lock:
            for arr in arrays:
                root = root_array(arr)
                entry = self._live.pop(id(root), None)
                if entry is None or entry[0]() is not root:
                    continue
                self._refs.pop(id(entry[0]), None)
                chunk = entry[1]
                if chunk.prev is None and chunk.next is None:
                    self._used -= chunk.size
                    self._total -= chunk.size
                else:
                    self._release(chunk)

    def sync(self, arrays: Any) -> None:
        roots: dict = {}
        for arr in arrays:
            root = root_array(arr)
            roots.setdefault(id(root), root)
        with self._lock:
            for key, (ref, chunk) in list(self._live.items()):
                held = ref()
                if held is None or roots.get(key) is not held:
                    del self._live[key]
                    self._refs.pop(id(ref), None)
                    self._release(chunk)
        for root in roots.values():
            self.track(root)

    def _malloc(self, size: int) -> _Chunk:
        i = bisect.bisect_left(self._sizes, size)  # best fit, or the smallest larger
        if i == len(self._sizes):
            chunk = _Chunk(size)
            self._total += size
        else:
            chunk = self._take(self._sizes[i])
            chunk.in_use = True
            if chunk.size > size:  # split: the rest stays free
                rest = _Chunk(chunk.size - size)
                rest.in_use = False
                rest.prev, rest.next = chunk, chunk.next
                if chunk.next is not None:
                    chunk.next.prev = rest
                chunk.next, chunk.size = rest, size
                self._put(rest)
        self._used += size
        return chunk

    def _take(self, size: int, chunk: Any = None) -> _Chunk:
        """A free chunk of ``size`` (``chunk`` itself if given) out of the free lists."""
        chunks = self._free[size]
        if chunk is None:
            chunk = chunks.pop()
        else:
            chunks.remove(chunk)
        if not chunks:
            del self._free[size]
            self._sizes.remove(size)
        return chunk

    def _put(self, chunk: _Chunk) -> None:
        chunks = self._free.get(chunk.size)
        if chunks is None:
            chunks = self._free[chunk.size] = []
            bisect.insort(self._sizes, chunk.size)
        chunks.append(chunk)

    def _release(self, chunk: _Chunk) -> None:
        chunk.in_use = False
        self._used -= chunk.size
        nxt = chunk.next
        if nxt is not None and not nxt.in_use:  # merge the next
            self._take(nxt.size, nxt)
            self._absorb(chunk, nxt)
        prev = chunk.prev
        if prev is not None and not prev.in_use:  # and the previous
            self._take(prev.size, prev)
            self._absorb(prev, chunk)
            chunk = prev
        self._put(chunk)

    @staticmethod
    def _absorb(left: _Chunk, right: _Chunk) -> None:
        """``left`` takes over ``right``, its next neighbour."""
        left.size += right.size
        left.next = right.next
        if right.next is not None:
            right.next.prev = left

    def used_bytes(self) -> int:
        return self._used

    def total_bytes(self) -> int:
        return self._total

    def free_bytes(self) -> int:
        return self._total - self._used

    def n_free_blocks(self) -> int:
        return sum(len(chunks) for chunks in self._free.values())

    def free_all_blocks(self) -> None:
        """Release the allocations not split (CuPy's ``free_all_blocks``)."""
        with self._lock:
            for size in list(self._sizes):
                for chunk in [c for c in self._free[size]
                              if c.prev is None and c.next is None]:
                    self._take(size, chunk)
                    self._total -= size


def held_arrays(values: Any) -> Any:
    """The NumPy arrays among ``values`` and held by the objects among them (one level
    down: their attributes, and lists, tuples and dicts there), which the CPU backend
    counts as the session's device memory."""
    for value in values:
        if isinstance(value, numpy.ndarray):
            yield value
            continue
        if value is None or type(value) in _SCALAR_TYPES or isinstance(value, str):
            continue
        if sparse.is_sparse(value):
            parts = [getattr(value, name, None) for name in
                     ("data", "indices", "indptr", "row", "col", "offsets")]
        else:
            try:
                parts = list(vars(value).values())
            except TypeError:  # no __dict__ (SciPy's cKDTree): its data and index
                parts = [getattr(value, name, None) for name in ("data", "indices")]
        for part in parts:
            if isinstance(part, numpy.ndarray):
                yield part
            elif isinstance(part, (list, tuple)):
                yield from (p for p in part if isinstance(p, numpy.ndarray))
            elif isinstance(part, dict):
                yield from (p for p in part.values() if isinstance(p, numpy.ndarray))


def _get_elapsed_time(start: Event, end: Event) -> float:
    """See Also: cupy.cuda.get_elapsed_time (``cudaEventElapsedTime``: an event never
    recorded, or made with ``disable_timing=True``, is CUDA's invalid handle)."""
    for e in (start, end):
        if not isinstance(e, Event):
            raise argument_type_error("start_event" if e is start else "end_event",
                                      "cupy.cuda.stream.Event", e)
    if start._time is None or end._time is None or start.disable_timing or \
            end.disable_timing:
        raise CUDARuntimeError(400, "cudaErrorInvalidResourceHandle: invalid resource "
                                    "handle")
    return (end._time - start._time) * 1000.0


#: the CUDA version and compute capability the kernel emulator compiles for
#: (``CUDART_VERSION`` and ``__CUDA_ARCH__`` in csrc/gpushare_cuda.h), which the CPU
#: backend reports as its runtime's, driver's and device's
EMULATED_CUDA = 12000
EMULATED_ARCH = (8, 0)


def _device_properties(device: int = 0) -> dict:
    """``cupy.cuda.runtime.getDeviceProperties``: CuPy's keys, in its order
    (``runtime.pyx``, CUDA 12), for the emulated device (an sm_80 with the emulator's
    limits: its opt-in shared memory, one emulated copy engine's worth of overlap)."""
    free, total = host_memory()
    return {"name": b"gpushare CPU backend (NumPy)", "totalGlobalMem": total,
            "sharedMemPerBlock": MAX_SHARED_DEFAULT, "regsPerBlock": 65536, "warpSize": 32,
            "maxThreadsPerBlock": 1024, "maxThreadsDim": (1024, 1024, 64),
            "maxGridSize": (2147483647, 65535, 65535), "clockRate": 0,
            "totalConstMem": 65536, "major": EMULATED_ARCH[0], "minor": EMULATED_ARCH[1],
            "textureAlignment": 512, "texturePitchAlignment": 32,
            "multiProcessorCount": cpu_curand.multiprocessor_count(),
            "kernelExecTimeoutEnabled": 0, "integrated": 0, "canMapHostMemory": 1,
            "computeMode": 0, "maxTexture1D": 131072, "maxTexture2D": (131072, 65536),
            "maxTexture3D": (16384, 16384, 16384), "concurrentKernels": 1, "ECCEnabled": 0,
            "pciBusID": 0, "pciDeviceID": 0, "pciDomainID": 0, "tccDriver": 0,
            "memoryClockRate": 0, "memoryBusWidth": 0, "l2CacheSize": 0,
            "maxThreadsPerMultiProcessor": 2048, "isMultiGpuBoard": 0,
            "cooperativeLaunch": 1, "cooperativeMultiDeviceLaunch": 0,
            "maxTexture1DMipmap": 32768, "maxTexture1DLayered": (32768, 2048),
            "maxTexture2DMipmap": (32768, 32768),
            "maxTexture2DLinear": (131072, 65000, 2097120),
            "maxTexture2DLayered": (32768, 32768, 2048),
            "maxTexture2DGather": (32768, 32768), "maxTexture3DAlt": (8192, 8192, 32768),
            "maxTextureCubemap": 32768, "maxTextureCubemapLayered": (32768, 2046),
            "maxSurface1D": 32768, "maxSurface1DLayered": (32768, 2048),
            "maxSurface2D": (131072, 65536), "maxSurface2DLayered": (32768, 32768, 2048),
            "maxSurface3D": (16384, 16384, 16384), "maxSurfaceCubemap": 32768,
            "maxSurfaceCubemapLayered": (32768, 2046), "surfaceAlignment": 512,
            "asyncEngineCount": 1, "unifiedAddressing": 1,
            "streamPrioritiesSupported": 1,  # (Stream.PRIORITY_RANGE)
            "globalL1CacheSupported": 1, "localL1CacheSupported": 1,
            "sharedMemPerMultiprocessor": MAX_SHARED_OPTIN + 1024,
            "regsPerMultiprocessor": 65536, "managedMemory": 1, "multiGpuBoardGroupID": 0,
            "hostNativeAtomicSupported": 0, "pageableMemoryAccess": 0,
            "concurrentManagedAccess": 1, "computePreemptionSupported": 1,
            "canUseHostPointerForRegisteredMem": 1,
            "sharedMemPerBlockOptin": MAX_SHARED_OPTIN,
            "pageableMemoryAccessUsesHostPageTables": 0,
            "directManagedMemAccessFromHost": 0, "uuid": b"gpushare-cpu-dev", "luid": b"",
            "luidDeviceNodeMask": 0, "persistingL2CacheMaxSize": 0,
            "maxBlocksPerMultiProcessor": 32, "accessPolicyMaxWindowSize": 0,
            "reservedSharedMemPerBlock": 1024, "deviceOverlap": 1,
            "maxTexture1DLinear": 268435456, "singleToDoublePrecisionPerfRatio": 2}


#: ``cudaDevAttr*`` numbers (CUDA's enum) -> the property of ``_device_properties`` (or
#: (property, index)) that answers them on the CPU backend; other attributes read 0
_ATTRIBUTES = {1: "maxThreadsPerBlock", 2: ("maxThreadsDim", 0), 3: ("maxThreadsDim", 1),
               4: ("maxThreadsDim", 2), 5: ("maxGridSize", 0), 6: ("maxGridSize", 1),
               7: ("maxGridSize", 2), 8: "sharedMemPerBlock", 9: "totalConstMem",
               10: "warpSize", 12: "regsPerBlock", 13: "clockRate",
               16: "multiProcessorCount", 18: "integrated", 19: "canMapHostMemory",
               20: "computeMode", 32: "ECCEnabled", 33: "pciBusID", 34: "pciDeviceID",
               36: "memoryClockRate", 37: "memoryBusWidth", 38: "l2CacheSize",
               14: "textureAlignment", 17: "kernelExecTimeoutEnabled",
               31: "concurrentKernels", 39: "maxThreadsPerMultiProcessor",
               40: "asyncEngineCount", 41: "unifiedAddressing",
               50: "pciDomainID", 75: "major", 76: "minor",
               78: "streamPrioritiesSupported", 81: "sharedMemPerMultiprocessor",
               82: "regsPerMultiprocessor", 83: "managedMemory", 95: "cooperativeLaunch",
               97: "sharedMemPerBlockOptin", 106: "maxBlocksPerMultiProcessor"}


def _device_attribute(attrib: int, device: int = 0) -> int:
    """``cupy.cuda.runtime.deviceGetAttribute`` of the CPU backend's one device."""
    key = _ATTRIBUTES.get(int(attrib))
    if key is None:
        return 0
    props = _device_properties(device)
    return int(props[key[0]][key[1]] if isinstance(key, tuple) else props[key])


#: ``ndarray.scatter_add/max/min``: the ufunc, the name of the ``ufunc.at`` CuPy's
#: deprecation points to, and the types its integer-array kernels take
_SCATTER = {"add": (numpy.add, "cupy.add.at", "iIlLqQefd",
                    "int32, int64, float16, float32, float64, uint32, uint64"),
            "max": (numpy.maximum, "cupy.maximum.at", "iIlLqQfd",
                    "int32, int64, float32, float64, uint32, uint64"),
            "min": (numpy.minimum, "cupy.minimum.at", "iIlLqQfd",
                    "int32, int64, float32, float64, uint32, uint64")}


def _scatter(op: str) -> Callable[..., Any]:
    """``cupyx.scatter_add/max/min`` and ``ndarray.scatter_*`` (which CuPy's cupyx
    functions call, deprecation warning included): unbuffered in-place updates
    (``ufunc.at``), host arrays (indices, values) read as CuPy copies them, the values
    cast to the array's dtype first (CuPy's ``_scatter_op``)."""
    ufunc, at_name, types, names = _SCATTER[op]

    def scatter(a: Any, slices: Any, value: Any) -> None:
        if not isinstance(a, numpy.ndarray):
            raise TypeError(f"Unsupported type {type(a)}")
        import warnings
        sep = "." if op == "add" else ""
        warnings.warn(f"`ndarray.scatter_{op}` is deprecated{sep} Please use `{at_name}` "
                      "instead.", DeprecationWarning, stacklevel=2)

        def host(v: Any) -> Any:
            return v.array if isinstance(v, HostArray) else v
        key = tuple(map(host, slices)) if isinstance(slices, tuple) else host(slices)
        arrays = [k for k in (key if isinstance(key, tuple) else (key,))
                  if isinstance(k, (numpy.ndarray, list))]
        if arrays and not (len(arrays) == 1 and numpy.asarray(arrays[0]).dtype.kind == "b") \
                and a.dtype.char not in types:
            raise TypeError(f"{at_name} only supports {names} as data type")
        value = host(value)
        value = cpu_ftz.converted(value, a.dtype).astype(a.dtype, copy=False) \
            if isinstance(value, numpy.ndarray) else numpy.array(value, dtype=a.dtype)
        _scatter_at(ufunc, a, key, value)
    return scatter


#: one function per op, for both ``cupyx.scatter_*`` and ``ndarray.scatter_*``
_SCATTERS = {op: _scatter(op) for op in _SCATTER}


OVERRIDES: dict[str, Callable[..., Any]] = {
    **{f"cupyx.scatter_{op}": fn for op, fn in _SCATTERS.items()},
    "cupy.array": _array,
    "cupy.asarray": _asarray_like(numpy.asarray),
    "cupy.asanyarray": _asarray_like(numpy.asarray),
    "cupy.ascontiguousarray": _asarray_like(numpy.ascontiguousarray),
    "cupy.asfortranarray": _asarray_like(numpy.asfortranarray),
    "cupy.asnumpy": _asnumpy,
    "cupy.cuda.Stream": Stream,
    "cupy.cuda.Event": Event,
    "cupy.cuda.get_elapsed_time": _get_elapsed_time,
    "cupy.cuda.runtime.getDeviceCount": lambda: 1,
    "cupy.cuda.runtime.getDevice": lambda: 0,
    "cupy.cuda.runtime.getDeviceProperties": _device_properties,
    "cupy.cuda.runtime.deviceGetAttribute": _device_attribute,
    "cupy.cuda.runtime.memGetInfo": host_memory,
    # the CUDA the kernel emulator compiles for (csrc/gpushare_cuda.h: CUDART_VERSION)
    "cupy.cuda.runtime.runtimeGetVersion": lambda: EMULATED_CUDA,
    "cupy.cuda.runtime.driverGetVersion": lambda: EMULATED_CUDA,
    "cupy.cuda.runtime.deviceSynchronize": lambda: None,
    "cupy.cuda.driver.get_build_version": lambda: EMULATED_CUDA,
    # (NumPy's FFTs, not cuFFT: the version of CUDA 12.0's, whose features, JIT
    # callbacks among them, it does not claim)
    "cupy.cuda.cufft.getVersion": lambda: 11000,
    # NVRTC's, of the CUDA the emulator compiles for (12.0) and the architectures it lists
    "cupy.cuda.nvrtc.getVersion": lambda: (EMULATED_CUDA // 1000, EMULATED_CUDA % 1000 // 10),
    "cupy.cuda.nvrtc.getSupportedArchs": lambda: (50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86,
                                                  87, 89, 90),
}
for _fft_name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
                  "irfft2", "rfftn", "irfftn", "hfft", "ihfft"):
    OVERRIDES[f"cupy.fft.{_fft_name}"] = _fft_wrap(getattr(numpy.fft, _fft_name))


def _fftfreq(n: Any, d: Any = 1.0) -> numpy.ndarray:
    """See Also: cupy.fft.fftfreq (CuPy's ``arange``s over ``n * d``: any real ``n``,
    0 too)."""
    with numpy.errstate(all="ignore"):
        return numpy.hstack((numpy.arange(0, (n - 1) // 2 + 1, dtype=numpy.float64),
                             numpy.arange(-(n // 2), 0, dtype=numpy.float64))) / (n * d)


def _rfftfreq(n: Any, d: Any = 1.0) -> numpy.ndarray:
    """See Also: cupy.fft.rfftfreq"""
    with numpy.errstate(all="ignore"):
        return numpy.arange(0, n // 2 + 1, dtype=numpy.float64) / (n * d)


OVERRIDES["cupy.fft.fftfreq"] = _fftfreq
OVERRIDES["cupy.fft.rfftfreq"] = _rfftfreq

#: Types a client may hold handles to, and the methods it may call on them.
REMOTE_TYPES: dict[str, frozenset[str]] = {
    "Stream": frozenset({"synchronize", "use", "__enter__", "__exit__", "record", "wait_event",
                         "done", "ptr", "priority", "is_non_blocking", "begin_capture",
                         "end_capture", "is_capturing"}),
    "Event": frozenset({"record", "synchronize", "done", "ptr"}),
    "Graph": frozenset({"launch", "upload", "debug_dot_str"}),
}


# Each area keeps its own table; they are merged here.
from .cpu_indexing import INDEXING_METHODS, INDEXING_OVERRIDES  # noqa: E402
from .cpu_indexing import getitem as _getitem, setitem as _setitem  # noqa: E402
from .cpu_indexing import scatter_at as _scatter_plain  # noqa: E402
#: (CuPy's scatter kernels flush float32 as ``-ftz=true`` ones: ``cpu_ftz.scatter``)
_scatter_at = functools.partial(cpu_ftz.scatter, _scatter_plain)
from .cpu_kernels import KERNEL_OVERRIDES, KERNEL_REMOTE_TYPES  # noqa: E402
from .cpu_random import RANDOM_OVERRIDES, RANDOM_REMOTE_TYPES  # noqa: E402
from . import cpu_ndimage, cpu_routines  # noqa: E402
from . import cpu_fft  # noqa: E402
from .cpu_fft import FFT_OVERRIDES, PLAN_CACHE_MEMBERS, PLAN_MEMBERS  # noqa: E402
from . import cpu_signal  # noqa: E402
from .cpu_signal import SIGNAL_OVERRIDES  # noqa: E402
from .cpu_interpolate import INTERPOLATE_OVERRIDES  # noqa: E402
from .cpu_scipy_stats import SCIPY_STATS_OVERRIDES  # noqa: E402
from .cpu_host import HOST_PARAMS, host_params  # noqa: E402
from . import cpu_sparse  # noqa: E402
from . import cpu_spatial  # noqa: E402
from . import cpu_graph  # noqa: E402
from . import cpu_texture  # noqa: E402
from .cpu_routines import ROUTINE_ATTRIBUTES, ROUTINE_METHODS, ROUTINE_OVERRIDES  # noqa: E402
from .cpu_stats import HostScalar, STATS_METHODS, STATS_OVERRIDES  # noqa: E402

# (CuPy's statistics ported where NumPy's answers differ: ``cpu_stats``)
ROUTINE_OVERRIDES.update(STATS_OVERRIDES)
ROUTINE_METHODS.update(STATS_METHODS)


#: overrides that take some numpy arrays (so check host arrays themselves)
_SELF_CHECKED = frozenset({"einsum", "copyto", "gradient", "full", "full_like", "real",
                           "imag", "round_", "piecewise", "cov",
                           "union1d", "setxor1d", "count_nonzero", "searchsorted",
                           "median", "nanmedian", "nanmean", "nanvar", "nanstd", "nanmax",
                           "nanmin", "where", "digitize"})

#: overrides whose first argument CuPy's own code reads (a host array's NumPy methods
#: run, a list meets its own errors, or a Cython function's words): the others checked
_FIRST_SELF_CHECKED = frozenset({"sort", "argsort", "msort", "sort_complex", "nanargmax",
                                 "nanargmin", "cumsum", "cumprod", "cumproduct"})


def _checked(fn: Callable[..., Any]) -> Callable[..., Any]:
    """An override that refuses host (numpy) arrays as CuPy does, keeping ``fn``'s
    attributes (ufunc methods)."""
    if not callable(fn) or type(fn).__name__ != "function" or fn.__name__ in _SELF_CHECKED:
        return fn

    if fn.__name__ in _FIRST_SELF_CHECKED:
        @functools.wraps(fn)
        def call_first(*args: Any, **kwargs: Any) -> Any:
            _check_args(args[1:], {k: v for k, v in kwargs.items() if k != "a"})
            return fn(*args, **kwargs)
        return call_first

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        _check_args(args, kwargs)
        return fn(*args, **kwargs)
    return call


OVERRIDES.update({name: _checked(fn) for name, fn in ROUTINE_OVERRIDES.items()})
for _name in cpu_routines._METHOD_CALLS:  # (a list's own AttributeError, as CuPy's)
    OVERRIDES[f"cupy.{_name}"] = cpu_routines.as_method(
        _name, OVERRIDES.get(f"cupy.{_name}") or _wrap(getattr(numpy, _name)))
for _name in ("nansum", "nanprod"):
    OVERRIDES[f"cupy.{_name}"] = cpu_routines.typed_array(_name, OVERRIDES[f"cupy.{_name}"])
OVERRIDES.update({name: _wrap_host_ok(fn) for name, fn in SIGNAL_OVERRIDES.items()})
OVERRIDES.update({name: _wrap_host_ok(fn) for name, fn in INTERPOLATE_OVERRIDES.items()})
OVERRIDES.update({name: _wrap(fn) for name, fn in SCIPY_STATS_OVERRIDES.items()})
from . import cpu_linalg_special as _ls  # noqa: E402  (CuPy's linalg matrices, special)
OVERRIDES.update(_ls.overrides(_wrap, _wrap_host_ok))
from . import cpu_cusolver  # noqa: E402  (cupyx.cusolver: CuPy's checks, NumPy/SciPy's work)
OVERRIDES.update(cpu_cusolver.overrides(_wrap, _wrap_host_ok))
from .cpu_cublas import CUBLAS_OVERRIDES  # noqa: E402  (cupy.cublas: CuPy's own checks)
OVERRIDES.update(CUBLAS_OVERRIDES)
from .cpu_cusparse import CUSPARSE_OVERRIDES  # noqa: E402  (cupyx.cusparse, likewise)
OVERRIDES.update(CUSPARSE_OVERRIDES)
OVERRIDES.update(INDEXING_OVERRIDES)
OVERRIDES.update({name: _wrap(fn) for name, fn in FFT_OVERRIDES.items()})
OVERRIDES.update({name: _wrap(fn) for name, fn in cpu_sparse.SPARSE_OVERRIDES.items()})
for _name in cpu_sparse.SPARSE_CLASSES:  # (CuPy refuses a list or host array)
    _path = f"cupyx.scipy.sparse.{_name}"
    OVERRIDES[_path] = cpu_sparse.checks_initializer(_name, OVERRIDES[_path])
# (CuPy's norm refuses anything not sparse, a host array too, in its own words)
# (and so do spsolve's checks: ``A must be ...``, ``b must be cupy.ndarray``)
for _name, _fn in (("norm", cpu_sparse.norm), ("spsolve", cpu_sparse.SPARSE_OVERRIDES[
        "cupyx.scipy.sparse.linalg.spsolve"])):
    OVERRIDES[f"cupyx.scipy.sparse.linalg.{_name}"] = functools.wraps(_fn)(
        lambda *args, _fn=_fn, **kwargs: to_device_result(_fn(*args, **kwargs)))
OVERRIDES["cupyx.scipy.spatial.KDTree"] = _wrap_host_ok(cpu_spatial.kdtree)  # CuPy's checks
OVERRIDES.update({name: _wrap_host_ok(fn) for name, fn in
                  cpu_spatial.DISTANCE_OVERRIDES.items()})
OVERRIDES.update({name: _wrap_host_ok(fn) for name, fn in
                  cpu_routines.TYPE_OVERRIDES.items()})
#: ndarray methods and attributes whose CuPy semantics differ from NumPy's
METHODS: dict[str, Callable[..., Any]] = {**ROUTINE_METHODS, **INDEXING_METHODS,
                                          **{f"scatter_{op}": fn
                                             for op, fn in _SCATTERS.items()},
                                          "trace": cpu_ftz.trace}  # (-ftz=true: cpu_ftz)
ATTRIBUTES: dict[str, Callable[..., Any]] = dict(ROUTINE_ATTRIBUTES)
OVERRIDES.update(KERNEL_OVERRIDES)
OVERRIDES.update(RANDOM_OVERRIDES)
REMOTE_TYPES.update(KERNEL_REMOTE_TYPES)
REMOTE_TYPES.update(RANDOM_REMOTE_TYPES)
REMOTE_TYPES.update({"Plan1d": PLAN_MEMBERS, "PlanNd": PLAN_MEMBERS,  # cuFFT plans
                     "PlanCache": PLAN_CACHE_MEMBERS})
REMOTE_TYPES.update(served_members())  # SciPy's interpolators answer as CuPy's
OVERRIDES.update({f"cupy.cuda.texture.{name}": cls for name, cls in cpu_texture.CLASSES.items()})
REMOTE_TYPES.update(cpu_texture.MEMBERS)


def _allclose(a: Any, b: Any, rtol: Any = 1.e-5, atol: Any = 1.e-8,
              equal_nan: bool = False) -> Any:
    """See Also: cupy.allclose (CuPy's ``isclose(...).all()``: a 0-d array, not a bool)"""
    return cpu_routines.isclose(a, b, rtol, atol, equal_nan).all()


def _histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, weights: Any = None,
                 density: Any = None) -> Any:
    """See Also: cupy.histogram2d (``weights`` before ``density``, NumPy's the other way)"""
    return numpy.histogram2d(x, y, bins, range, density, weights)


def _histogramdd(sample: Any, bins: Any = 10, range: Any = None, weights: Any = None,
                 density: bool = False) -> Any:
    """See Also: cupy.histogramdd (``weights`` before ``density``, NumPy's the other way;
    bins of another dimension refused in CuPy's words, two spaces and all)"""
    if not isinstance(sample, numpy.ndarray) or 1 <= sample.ndim <= 2:
        ndim = (len(sample) if not isinstance(sample, numpy.ndarray) else
                1 if sample.ndim == 1 else sample.shape[1])
        try:
            nbins = len(bins)
        except TypeError:  # (an integer)
            nbins = ndim
        if nbins != ndim:
            raise ValueError("The dimension of bins must be equal to the dimension of the "
                             " sample x.")
    return numpy.histogramdd(sample, bins, range, density, weights)


OVERRIDES["cupy.allclose"] = _wrap(_allclose)
OVERRIDES["cupy.histogram2d"] = _wrap(_histogram2d)
OVERRIDES["cupy.histogramdd"] = _wrap(_histogramdd)


# --- cupy.* functions taking host arrays for some parameters ------------------------

_NUMPY_ALLOCATION = re.compile(r"for an array with shape \(([0-9, ]*)\) and data type (.+)$")


def _numpy_allocation(message: str) -> int | None:
    """The bytes NumPy's ``MemoryError`` says it could not allocate (its message names
    the array's shape and data type); None for another message."""
    match = _NUMPY_ALLOCATION.search(message)
    if match is None:
        return None
    try:
        shape = [int(n) for n in match.group(1).replace(" ", "").split(",") if n]
        return math.prod(shape) * numpy.dtype(match.group(2).strip()).itemsize
    except (TypeError, ValueError):
        return None


_NUMPY_FLOAT16 = "array type float16 is unsupported in linalg"


def _linalg(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A ``cupy.linalg`` function as CuPy's: results are plain tuples (NumPy's are named:
    ``SVDResult``, ``QRResult``, ``EighResult``, ``SlogdetResult``), and float16 is
    refused in CuPy's words (``linalg/_util.py: linalg_common_type``)."""
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            result = fn(*args, **kwargs)
        except TypeError as exc:
            if str(exc) == _NUMPY_FLOAT16:
                raise TypeError("float16 is unsupported in linalg") from None
            raise
        if isinstance(result, tuple) and type(result) is not tuple:
            return tuple(result)
        return result
    return call


class CpuBackend:
    """Runs a session's calls on NumPy (see module docstring)."""

    name = "cpu"
    remote_types = REMOTE_TYPES

    def __init__(self) -> None:
        self._cache: dict[str, Callable[..., Any]] = {}
        self._inplace: dict[str, Any] = {}
        self._random = RandomState()
        # host memory exhaustion is the device's OutOfMemoryError here
        self.error_keys: dict[type, str] = {MemoryError: "cupy.cuda.memory.OutOfMemoryError"}
        try:
            from gpushare_server.kernels import CompileException
            self.error_keys[CompileException] = "cupy.cuda.compiler.CompileException"
        except Exception:  # the kernel emulator is optional
            pass
        else:  # (a kernel's fault: which CUDA error, by the call after it)
            from .cpu_kernels import watch_faults
            watch_faults()

    def restate_error(self, exc: BaseException, arrays: Any) -> BaseException:
        """NumPy's ``MemoryError`` (device memory is the host's here) in the words of
        CuPy's ``OutOfMemoryError``: the bytes asked for and those ``arrays`` hold."""
        if not isinstance(exc, MemoryError) or isinstance(exc, OutOfMemoryError):
            return exc
        size = _numpy_allocation(str(exc))
        if size is None:
            return exc
        try:
            used = int(self.memory("used_bytes", arrays))
        except Exception:  # noqa: BLE001 - the message without it, then
            used = 0
        return MemoryError(f"Out of memory allocating {size:,} bytes (allocated so far: "
                           f"{used:,} bytes).")

    @property
    def capture(self) -> Any:
        """CUDA graphs' stream capture, emulated (``cpu_graph``): the executor sends
        every call through it while a capture is active."""
        return cpu_graph.CAPTURE

    # --- names ------------------------------------------------------------------
    def function(self, path: str) -> Callable[..., Any]:
        fn = self._cache.get(path)
        if fn is None:
            fn = self._resolve(path)
            self._cache[path] = fn
        return fn

    def inplace(self, path: str) -> Callable[[Any, Any, Any], bool] | None:
        """For ``path`` an elementwise ufunc of one or two operands (whose every call
        without ``out`` gives a new array): ``into(r, x, y)``, which computes
        ``path(x, y)`` (``path(x)`` when ``y`` is None, for one operand) into ``r``, one
        of its operands, when the result has ``r``'s dtype and shape, and says whether
        it did. ``r`` is an array the session's executor made and holds alone (see
        ``SessionExecutor._batch``). None for anything else. (``into.ufunc`` and
        ``into.operand``: see ``Backend`` in ``backends/__init__.py``.)"""
        into = self._inplace.get(path, False)
        if into is False:
            into = self._inplace[path] = self._make_inplace(path)
        return into

    def _make_inplace(self, path: str) -> Callable[[Any, Any, Any], bool] | None:
        try:
            uf = getattr(self.function(path), "__wrapped__", None)
        except Exception:  # noqa: BLE001 - not served: the call raises it
            return None
        if path.startswith("cupyx.scipy.special."):
            return None  # (CuPy's loops give its results' types, not SciPy's ufunc's)
        plain = getattr(OVERRIDES.get(path), "plain", None)
        if plain is not None:  # (a ufunc CuPy computes as NumPy does for these dtypes)
            uf = OVERRIDES[path]._ufunc
        elif path in OVERRIDES:
            return None
        if not isinstance(uf, numpy.ufunc) or uf.nin not in (1, 2) or uf.nout != 1:
            return None
        into = self._make_inplace_ufunc(uf, cpu_ftz.wrap(uf))
        if plain is None:
            return into

        def into_plain(r: Any, x: Any, y: Any = None) -> bool:
            return plain(r.dtype) and into(r, x, y)
        into_plain.ufunc = into.ufunc  # type: ignore[attr-defined]
        into_plain.operand = lambda r, value, first: (  # type: ignore[attr-defined]
            into.operand(r, value, first) if plain(r.dtype) else None)
        return into_plain

    def _make_inplace_ufunc(self, uf: numpy.ufunc, call: Any
                            ) -> Callable[[Any, Any, Any], bool]:
        """(``call``: ``uf`` as the CPU backend calls it, ``cpu_ftz.wrap(uf)``)"""
        ndarray = numpy.ndarray
        fits: dict = {}  # operand kinds -> whether the result has r's dtype
        if uf.nin == 1:
            def fits1(r: Any) -> bool:
                ok = fits.get(r.dtype)
                if ok is None:
                    try:
                        ok = uf.resolve_dtypes((r.dtype, None))[1] == r.dtype
                    except Exception:  # noqa: BLE001 - e.g. no loop: the call raises it
                        ok = False
                    fits[r.dtype] = ok
                return ok

            def into1(r: Any, x: Any, y: Any = None) -> bool:
                if not fits1(r) or x is not r or y is not None:
                    return False
                call(r, out=r)
                return True
            into1.ufunc = call  # type: ignore[attr-defined]
            into1.operand = lambda r, value, first: True if fits1(r) else None  # type: ignore
            return into1
        shapes: dict = {}  # (shape, r's shape) -> whether it broadcasts to r's shape

        # a Python scalar operand as NumPy casts it to its loop's dtype (NEP 50), made
        # once: (loop dtype, type, value) -> a 0-d array (see ``scalar`` below)
        scalars: dict = {}

        def scalar(loop: Any, value: Any) -> Any:
            kind = type(value)
            if kind is float and (value != value or value == 0.0 or value in _INFS) or \
                    kind is int and loop.kind not in "iub":
                return value  # as it is: NaN and 0.0 (-0.0) key badly; an int to a
                # float rounds once in the ufunc, maybe twice through a Python float
            if len(scalars) >= 1024:
                scalars.clear()
            try:
                with numpy.errstate(over="raise"):
                    made = numpy.array(value, dtype=loop)
            except Exception:  # noqa: BLE001 - out of range: the ufunc raises (or
                made = value      # warns) as it does
            scalars[loop, kind, value] = made
            return made

        def fit(key: tuple) -> Any:
            """Whether the result of operands of kinds ``key`` (r's dtype, the other's
            dtype or Python type, whether r is first) has r's dtype; for a Python
            scalar, as (the scalar's loop dtype,)."""
            ok = fits.get(key)
            if ok is None:
                r, k, first = key
                try:  # NumPy's type resolution, Python scalars weak (NEP 50), as CuPy's
                    loops = uf.resolve_dtypes((r, k, None) if first else (k, r, None))
                    ok = loops[2] == r
                    if ok and type(k) is type:  # (the scalar's loop dtype)
                        ok = (loops[1] if first else loops[0],)
                except Exception:  # noqa: BLE001 - e.g. no loop: the call raises it
                    ok = False
                fits[key] = ok
            return ok

        def operand(r: Any, value: Any, first: bool) -> Any:
            """What ``uf`` takes beside ``r`` for the Python scalar ``value``, or None
            when the result would not have r's dtype (also ``_records.c``'s entry)."""
            ok = fit((r.dtype, type(value), first))
            if not ok:
                return None
            made = scalars.get((ok[0], type(value), value))
            return scalar(ok[0], value) if made is None else made

        def into(r: Any, x: Any, y: Any) -> bool:
            first = x is r
            other = y if first else x
            if type(other) is not ndarray:
                made = operand(r, other, first)
                if made is None:
                    return False
                call(r, made, out=r) if first else call(made, r, out=r)
                return True
            if not fit((r.dtype, other.dtype, first)):
                return False
            if other is not r and other.shape != r.shape:
                key = (other.shape, r.shape)
                broadcasts = shapes.get(key)
                if broadcasts is None:
                    if len(shapes) >= 1024:
                        shapes.clear()
                    try:
                        broadcasts = numpy.broadcast_shapes(*key) == r.shape
                    except ValueError:
                        broadcasts = False
                    shapes[key] = broadcasts
                if not broadcasts:
                    return False
            call(x, y, out=r)  # (out= : NumPy deprecates it positional for maximum/minimum)
            return True
        into.ufunc = call  # type: ignore[attr-defined]
        into.operand = operand  # type: ignore[attr-defined]
        return into

    def _resolve(self, path: str) -> Callable[..., Any]:
        fn = self._resolve_host(path)
        linalg = path.startswith("cupy.linalg.") and not isinstance(fn, type)
        if path in HOST_PARAMS:  # (none is a ufunc)
            fn = host_params(path, fn)
            return _linalg(fn) if linalg else fn
        if linalg:
            return _linalg(fn)
        if path.startswith("cupyx.scipy.special.") and path not in OVERRIDES:
            inner = getattr(fn, "__wrapped__", None)  # (SciPy's zeta is a function)
            return _special_ufunc(_device_ufunc(inner) if isinstance(inner, numpy.ufunc)
                                  else fn, path)
        if path not in OVERRIDES and isinstance(getattr(fn, "__wrapped__", None),
                                                numpy.ufunc):
            return _device_ufunc(fn.__wrapped__)
        if isinstance(fn, cpu_routines._Ufunc):
            if fn._ufunc.signature is not None:  # (matmul: a gufunc, its own words)
                return _c_order_outputs(fn)
            return _ufunc_value_errors(  # (float32 flushing as CuPy's kernel: cpu_ftz)
                _c_order_outputs(cpu_ftz.wrap(fn, fn._ufunc.__name__)), fn._ufunc)
        if isinstance(getattr(fn, "__wrapped__", fn), numpy.ufunc):
            return _c_order_outputs(fn)
        return fn

    def _resolve_host(self, path: str) -> Callable[..., Any]:
        if path in FILE_FUNCTIONS:  # the server's files are out of a client's reach
            refuse_file_access(path)
        if path in OVERRIDES:
            return OVERRIDES[path]
        classmethod_of = served_classmethod(path)
        if classmethod_of is not None:  # (SciPy's classes: they take host arrays)
            module, cls, name = classmethod_of
            fn = getattr(getattr(_import_mirror(module, path), cls), name)
            if name == "design_matrix":  # CuPy's is a CSR matrix (SciPy's an array)
                fn = functools.partial(_design_matrix, fn)
            return _wrap_host_ok(fn)
        if not is_public_callable(path):
            raise AttributeError(f"gpushare: {path} is not a public CuPy callable")
        module, _, name = path.rpartition(".")
        if module == "cupy.random":
            return random_function(self, name)
        fn = getattr(_import_mirror(module, path), name, None)
        if module == "cupyx.scipy.ndimage":  # host arrays by parameter; CuPy's own
            return cpu_ndimage.resolve(name, fn, to_device_result)
        if fn is None:
            raise NotImplementedError(f"{path} is not available on gpushare's CPU backend")
        fn = cpu_ftz.routine(path, fn)  # (CuPy's own -ftz=true kernels: float32 flushed)
        return _wrap_host_ok(fn) if module in HOST_OK_MODULES else _wrap(fn)

    def method(self, obj: Any, name: str) -> Callable[..., Any]:
        if isinstance(obj, numpy.ndarray):
            if name not in ndarray_members():
                raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
            if name in FILE_METHODS:
                refuse_file_access(f"ndarray.{name}")
            if name == "set":
                return lambda host, stream=None: numpy.copyto(
                    obj, host.array if isinstance(host, HostArray) else host)
            special = METHODS.get(name)
            if special is not None:
                return functools.partial(special, obj)
            return _device_results(getattr(obj, name))  # once per call: no metadata
        check_member(REMOTE_TYPES, obj, name, call=True)
        if sparse.is_sparse(obj):
            fn = cpu_sparse.method(obj, name)
            return _wrap_host_ok(fn) if name in cpu_sparse.HOST_OK else _device_results(fn)
        spatial = cpu_spatial.METHODS.get(type(obj).__name__, {}).get(name)
        if spatial is not None:
            if getattr(spatial, "host_arrays", False):  # (it refuses them in CuPy's words)
                return _wrap_host_ok(functools.update_wrapper(
                    functools.partial(spatial, obj), spatial))
            return _device_results(functools.partial(spatial, obj))
        lti = cpu_signal.METHODS.get(type(obj).__name__, {}).get(name)
        if lti is not None:  # (CuPy's StateSpace * scalar: its matmul's TypeError)
            return _wrap_host_ok(functools.partial(lti, obj))
        if type(obj).__name__ in SERVED_CLASSES:  # they take host arrays (cupy.asarray)
            return _wrap_host_ok(getattr(obj, name))
        return getattr(obj, name)

    def get_attribute(self, obj: Any, name: str) -> Any:
        if isinstance(obj, numpy.ndarray):
            if name not in ndarray_members():
                raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")
            special = ATTRIBUTES.get(name)
            if special is not None:
                return special(obj)
            return to_device_result(getattr(obj, name))
        check_member(REMOTE_TYPES, obj, name, call=False)
        value = getattr(obj, name)
        if type(obj).__name__ == "SuperLU" and name in ("L", "U"):
            return cpu_sparse.csr_matrix(value)  # CuPy's factors are CSR matrices
        if name in ("real", "imag") and sparse.is_sparse(obj):  # (int64 indices kept)
            value = cpu_sparse.keeps_int64_indices(lambda: value, (obj,))()
        if type(obj).__name__ in SERVED_CLASSES or sparse.is_sparse(obj):
            return to_device_result(value)
        return value

    def set_attribute(self, obj: Any, name: str, value: Any) -> None:
        if isinstance(obj, numpy.ndarray) and name in ("shape", "real", "imag", "strides"):
            if isinstance(value, HostArray):
                raise _unsupported(value.array)
            setattr(obj, name, value)
            return
        if type(obj).__name__ == "RawKernel" and name in REMOTE_TYPES["RawKernel"]:
            setattr(obj, name, value)
            return
        if sparse.is_sparse(obj):
            _check_args((value,), {})
            sparse.set_attribute(obj, name, value)
            return
        if type(obj).__name__ in SERVED_CLASSES:  # CuPy's are Python objects: their data
            check_member(REMOTE_TYPES, obj, name, call=False)  # attributes are writable
            setattr(obj, name, value.array if isinstance(value, HostArray) else value)
            return
        raise AttributeError(f"gpushare: attribute {name!r} cannot be set")

    # --- arrays -----------------------------------------------------------------
    def getitem(self, obj: Any, key: Any) -> Any:
        if (type(key) is str or type(key) is list) and obj.dtype.fields is not None:
            fields = self._fields(obj, key)
            if fields is not None:
                return fields
        return _getitem(obj, key)

    def setitem(self, obj: Any, key: Any, value: Any) -> None:
        if (type(key) is str or type(key) is list) and obj.dtype.fields is not None:
            fields = self._fields(obj, key)
            if fields is not None:
                obj, key = fields, Ellipsis
        _setitem(obj, key, value)

    def _fields(self, obj: numpy.ndarray, key: Any) -> numpy.ndarray | None:
        """CuPy's field access (``_getitem_fields``): a view of one field (refused for
        a subarray field or one not aligned for the GPU) or of several; None when
        ``key`` is not field names."""
        if type(key) is list:
            if not all(isinstance(k, str) for k in key):
                return None
            return obj.view(obj.dtype[key])
        try:
            new_dtype, offset, *_ = obj.dtype.fields[key]
        except KeyError:
            raise ValueError(f"no field name of {key}") from None
        if new_dtype.shape:
            raise ValueError(
                "CuPy does not yet support accessing nested subarrays, "
                "please open an issue if you need this support.")
        view = obj[key]
        structured.check_aligned(view, self.address(view))
        return view

    def upload(self, host: Any, dtype: Any = None, order: str = "K") -> numpy.ndarray:
        arr = host.array if isinstance(host, HostArray) else host
        return numpy.array(arr, dtype=dtype, order=order, copy=True)

    def download(self, arr: Any) -> numpy.ndarray:
        return arr

    def address(self, arr: numpy.ndarray) -> int:
        return arr.__array_interface__["data"][0]

    def view_of(self, root: numpy.ndarray, offset: int, shape: tuple, dtype: Any,
                strides: Any) -> numpy.ndarray:
        """A view of ``root``'s memory (``__cuda_array_interface__``, ``memptr=``); never
        of object references (NumPy would read them from the bytes)."""
        dtype = numpy.dtype(dtype)
        if dtype.hasobject:
            raise structured.unsupported_dtype(dtype)
        flat = root.reshape(-1, order="A").view(numpy.uint8)
        return numpy.ndarray(shape, dtype, buffer=flat, offset=offset, strides=strides)

    def empty(self, shape: tuple, dtype: Any, order: str = "C") -> numpy.ndarray:
        return numpy.empty(shape, dtype, order=order)

    def write_bytes(self, arr: numpy.ndarray, offset: int, data: Any) -> None:
        """Copy raw bytes into ``arr``'s memory at ``offset`` (streamed uploads)."""
        flat = arr.reshape(-1, order="A").view(numpy.uint8)
        src = numpy.frombuffer(data, numpy.uint8)
        flat[offset:offset + src.size] = src

    def host_bytes(self, arr: numpy.ndarray) -> memoryview | None:
        """The contiguous ``arr``'s bytes, in its own order, as a writable memoryview
        (the bulk lane's reads and writes: ``lane.py``); None for other arrays."""
        if not (arr.flags.c_contiguous or arr.flags.f_contiguous) or not arr.flags.writeable:
            return None
        return memoryview(arr.reshape(-1, order="A").view(numpy.uint8))

    def read_bytes(self, arr: numpy.ndarray, offset: int, out: Any) -> None:
        """Copy ``len(out)`` raw bytes of the contiguous ``arr``'s memory (in its own
        order), from ``offset``, into the writable host buffer ``out`` (shared-memory
        downloads)."""
        flat = arr.reshape(-1, order="A").view(numpy.uint8)
        dst = numpy.frombuffer(out, numpy.uint8)
        if offset < 0 or offset + dst.size > flat.size:
            raise ValueError("read outside the array")
        numpy.copyto(dst, flat[offset:offset + dst.size])

    def is_array(self, obj: Any) -> bool:
        return isinstance(obj, numpy.ndarray)

    #: the arrays served objects hold (``quota`` counts them: there is no allocator)
    held_arrays = staticmethod(held_arrays)

    def normalize(self, result: Any) -> Any:
        result = to_device_result(result)
        if type(result) is numpy.ndarray and result.nbytes >= _POOL_TRACK_MIN:
            self.pool_book.track(result)  # (its memory, as CuPy's pool allocates it)
        return result

    def ufunc_at(self, ufunc: Any, a: Any, indices: Any, b: Any = None) -> None:
        """``ufunc.at`` as CuPy's scatter kernels do it (``cpu_indexing.scatter_at``)."""
        if not isinstance(a, numpy.ndarray):
            raise TypeError(f"Unsupported type {type(a)}")
        _scatter_at(ufunc, a, indices, b)

    def info(self) -> dict:
        free, total = host_memory()
        return {"backend": "cpu", "numpy": numpy.__version__, "is_hip": False,
                "runtime_version": EMULATED_CUDA, "driver_version": EMULATED_CUDA,
                "devices": [{"id": 0, "name": "CPU (NumPy)", "total_memory": total,
                             "free_memory": free,
                             "compute_capability": "%d%d" % EMULATED_ARCH}]}

    def memory(self, op: str, arrays: list) -> Any:
        """CuPy's default pool's statistics (``MemoryPool``'s methods), kept by
        ``PoolBook`` over the session's arrays: ``arrays`` are the session's objects;
        a served object's (a sparse matrix's, a KD-tree's, a CUDA array's...) arrays
        are device memory too, as in CuPy."""
        if op not in ("used_bytes", "total_bytes", "free_bytes", "n_free_blocks",
                      "free_all_blocks"):
            raise ValueError(f"unknown memory query {op!r}")
        book = self.pool_book
        book.sync(held_arrays(arrays))
        return getattr(book, op)()

    @functools.cached_property
    def pool_book(self) -> PoolBook:
        """The session's default memory pool's bookkeeping (see ``PoolBook``)."""
        return PoolBook()

    def synchronize(self) -> None:
        return None
