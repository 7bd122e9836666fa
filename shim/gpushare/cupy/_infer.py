"""Client-side shape and dtype inference, so common calls need no round trip.

A call is pipelined only when this module can say, without the server, exactly what
it returns (shape, dtype, strides) and that it will not fail for shape or type
reasons; otherwise the call waits for the server, which raises errors where CuPy
would. The rules come from NumPy itself, run on stand-ins that cost no memory:
``ufunc.resolve_dtypes`` for type resolution, ``broadcast_shapes``, and zero-stride
"ghost" arrays for indexing.
"""
from __future__ import annotations

import math
import operator
import warnings
from typing import Any

import numpy
from numpy.lib.stride_tricks import as_strided


_COMPARISONS = frozenset({"equal", "not_equal", "less", "less_equal", "greater",
                          "greater_equal"})


class CannotInfer(Exception):
    """The call must go to the server synchronously."""


def reshape_strides(shape: tuple, itemsize: int) -> tuple:
    """C strides of a reshape view; NumPy counts zero-length axes as 1 there (a
    zero-size array made afresh has all-zero strides instead, see c_strides)."""
    strides = []
    step = itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def c_strides(shape: tuple, itemsize: int) -> tuple:
    if 0 in shape:  # NumPy gives zero-size arrays all-zero strides
        return (0,) * len(shape)
    return reshape_strides(shape, itemsize)


def f_strides(shape: tuple, itemsize: int) -> tuple:
    """Fortran order: the C strides of the reversed shape, reversed."""
    return tuple(reversed(c_strides(tuple(reversed(shape)), itemsize)))


def operand_dtype(value: Any, is_proxy: Any) -> Any:
    """The dtype (or weak Python type) of a ufunc operand, or raise CannotInfer."""
    if is_proxy(value):
        return value.dtype
    t = type(value)
    if t is bool:
        return numpy.dtype(bool)
    if t in (int, float, complex):
        return t
    if isinstance(value, numpy.generic):
        return value.dtype
    raise CannotInfer


def operand_shape(value: Any, is_proxy: Any) -> tuple:
    return value.shape if is_proxy(value) else ()


def ufunc_result(uf: numpy.ufunc, args: tuple, dtype: Any, is_proxy: Any) -> tuple:
    """``(shape, [out_dtypes])`` of ``uf(*args, dtype=dtype)``; raise CuPy's errors.

    This is the hot path of every pipelined operator: type resolution is cached per
    (ufunc, operand dtypes, dtype=), and equal shapes skip broadcasting.
    """
    in_dtypes = []
    shapes = []
    for a in args:
        if is_proxy(a):
            in_dtypes.append(a.dtype)
            shapes.append(a.shape)
        else:
            in_dtypes.append(operand_dtype(a, is_proxy))
    in_key = tuple(in_dtypes)
    if not shapes and all(isinstance(d, type) for d in in_key):
        raise CannotInfer  # only Python scalars: let the server decide
    if not shapes:
        shape: tuple = ()
    elif len(shapes) == 1 or all(sh == shapes[0] for sh in shapes):
        shape = shapes[0]
    else:
        try:
            shape = numpy.broadcast_shapes(*shapes)
        except ValueError:  # the server raises it, worded as the ufunc words it
            raise CannotInfer from None
    key = (uf, in_key, dtype)
    try:
        resolved = _RESOLVED.get(key, _MISSING)
    except TypeError:  # an unhashable dtype= argument
        key, resolved = None, _MISSING
    if resolved is _MISSING:
        resolved = resolve(uf, in_key, dtype)
        if key is not None:
            _RESOLVED[key] = resolved
    if resolved is None:
        raise CannotInfer  # the server raises CuPy's error
    if int in in_key:
        for value, dt in zip(args, resolved[:uf.nin]):
            # NEP 50: a Python int must fit the integer type it is cast to
            if type(value) is int and dt.kind in "iu":
                info = numpy.iinfo(dt)
                if not info.min <= value <= info.max:
                    if uf.__name__ in _COMPARISONS:
                        raise CannotInfer  # compared exactly, on the server
                    if not -(1 << 63) <= value < (1 << 64):
                        # (CuPy's ``CScalar`` refuses it first, packing it as uint64
                        # from 2**63 up, else as int64)
                        dt = "uint64" if value > 0 else "int64"
                    raise OverflowError(f"Python integer {value} out of bounds for {dt}")
    return shape, list(resolved[uf.nin:])


_MISSING = object()
#: (ufunc, operand dtypes or Python scalar types, dtype=) -> resolved dtypes, or None
#: when NumPy cannot resolve them (the call then goes to the server)
_RESOLVED: dict = {}


_BOOL = numpy.dtype(numpy.bool_)
_INT8_LOOP = (numpy.dtype(numpy.int8), numpy.dtype(numpy.int8))


_INT32 = numpy.dtype(numpy.int32)
#: ufuncs whose CuPy loops take no complex operand where NumPy's do (``_logic/ops.py``,
#: ``_routines_logic.pyx: create_comparison``)
_REAL_ONLY = frozenset((numpy.logical_and, numpy.logical_or, numpy.logical_xor,
                        numpy.logical_not))


_LONG = numpy.dtype("l")
_ULONG = numpy.dtype("L")


def cupy_loop_dtype(dt: numpy.dtype) -> numpy.dtype:
    """A loop's (or reduction's) dtype as CuPy's loops name it: they list 'll->l'
    before 'qq->q' (and 'LL->L' before 'QQ->Q'), and CuPy takes the first loop an
    operand casts to safely, so a longlong operand (or ``dtype=numpy.longlong``) runs
    the int64 'l' loop; NumPy keeps 'q'."""
    char = dt.char
    if char == "q":
        return _LONG
    if char == "Q":
        return _ULONG
    return dt


def resolve(uf: numpy.ufunc, in_dtypes: tuple, dtype: Any) -> tuple | None:
    """``uf``'s dtypes, inputs then outputs, for these operand dtypes (Python scalar
    types weak, as NEP 50 says); None where NumPy finds no loop. 64-bit integers are
    CuPy's 'l'/'L' (``cupy_loop_dtype``)."""
    resolved = _resolve(uf, in_dtypes, dtype)
    if resolved is not None and any(d.char in "qQ" for d in resolved):
        resolved = tuple(cupy_loop_dtype(d) for d in resolved)
    return resolved


def _resolve(uf: numpy.ufunc, in_dtypes: tuple, dtype: Any) -> tuple | None:
    try:
        if dtype is None:
            if uf is numpy.sign and in_dtypes[0] == _BOOL:
                return _INT8_LOOP  # CuPy's first loop, b->b, takes bools (NumPy has none)
            if uf in _REAL_ONLY and any(t is complex or getattr(t, "kind", "") == "c"
                                        for t in in_dtypes):
                return None  # (the server raises CuPy's TypeError)
            if uf is numpy.ldexp and in_dtypes[1] is int:
                # (CuPy's loops take a Python int exponent as int32: ei fi di)
                return uf.resolve_dtypes(in_dtypes + (None,),
                                         signature=(None, _INT32, None))
            return uf.resolve_dtypes(in_dtypes + (None,) * uf.nout)
        # dtype= picks the loop whose outputs have that type, whatever the inputs
        # (CuPy's rule, ``_kernel.pyx: _guess_routine_from_dtype``: only the outputs'
        # casts are checked, so the inputs' casts are NumPy's 'unsafe')
        return uf.resolve_dtypes(in_dtypes + (None,) * uf.nout,
                                 signature=(None,) * uf.nin + (numpy.dtype(dtype),) * uf.nout,
                                 casting="unsafe")
    except (TypeError, ValueError, OverflowError, numpy.exceptions.DTypePromotionError):
        return None


def int_fits(value: Any, dtype: numpy.dtype) -> bool:
    """False for a Python int that an integer ``dtype`` cannot hold (NEP 50 raises
    OverflowError when it is cast)."""
    if type(value) is not int or dtype.kind not in "iu":
        return True
    info = numpy.iinfo(dtype)
    return info.min <= value <= info.max


def fill_is_quiet(value: Any, dtype: numpy.dtype) -> bool:
    """Whether ``numpy.asarray(value, dtype)`` (CuPy's ``fill`` of a scalar, and so
    ``a[...] = value``) surely neither raises nor warns: False for a complex scalar
    into a real dtype (TypeError, or ComplexWarning), a float into integers out of
    their range or not finite (OverflowError/ValueError, or RuntimeWarning), a finite
    float beyond a float dtype's range (RuntimeWarning), so that the call waits and
    the error or warning comes from the statement that made it."""
    kind = dtype.kind
    if isinstance(value, (complex, numpy.complexfloating)):
        return kind == "c"
    if isinstance(value, (float, numpy.floating)):
        value = float(value)
        if kind in "iu":
            info = numpy.iinfo(dtype)
            return math.isfinite(value) and info.min <= math.trunc(value) <= info.max
        if kind == "f" and math.isfinite(value):
            return abs(value) <= numpy.finfo(dtype).max
    return True


def ghost(shape: tuple, dtype: numpy.dtype, strides: tuple | None = None) -> numpy.ndarray:
    """A zero-memory array of ``shape``: every element aliases one byte buffer."""
    base = numpy.zeros(1, dtype=dtype)
    return as_strided(base, shape=shape, strides=(0,) * len(shape), writeable=False)


def _host_index(k: Any) -> numpy.ndarray:
    """A list or NumPy array in an index, as CuPy takes it (``_prepare_slice_list``:
    made an array, an empty list an integer one): integers as a ghost of their shape
    (their values are the server's business: CuPy wraps what NumPy would refuse),
    booleans as they are (here, unlike a device mask, the data is at hand)."""
    try:
        arr = numpy.asarray(k)
    except (TypeError, ValueError):  # (ragged, or holding device arrays)
        raise CannotInfer from None
    if isinstance(k, list) and arr.size == 0:
        arr = arr.astype(numpy.intp)
    if arr.dtype.kind in "iu":
        return ghost(arr.shape, arr.dtype)
    if arr.dtype.kind == "b" and arr.ndim:
        return arr
    raise CannotInfer  # (the server words CuPy's IndexError)


def _index_ghosts(key: Any, is_proxy: Any) -> Any:
    """Replace proxies in an index by ghosts of their shape (integer arrays only), and
    lists and NumPy arrays by what ``_host_index`` makes of them."""
    def one(k: Any) -> Any:
        if is_proxy(k):
            if k.dtype.kind not in "iu":
                raise CannotInfer  # boolean masks: the shape depends on the data
            return ghost(k.shape, k.dtype)
        if isinstance(k, (list, numpy.ndarray)):
            return _host_index(k)
        if isinstance(k, slice):
            for part in (k.start, k.stop, k.step):
                if part is not None and not isinstance(part, (int, numpy.integer)):
                    raise CannotInfer
            if k.step == 0:
                raise CannotInfer  # (the server raises it in CuPy's words)
            return k
        if k is None or k is Ellipsis or isinstance(k, (int, numpy.integer)) and \
                not isinstance(k, bool):
            return k
        raise CannotInfer
    if isinstance(key, tuple):
        return tuple(one(k) for k in key)
    return one(key)


#: (shape, strides, basic key) -> ``getitem_result``'s answer (see ``_basic_key``)
_GETITEM: dict = {}


def _basic_key(key: Any) -> tuple | None:
    """``key`` as a hashable value when it is basic indexing by Python ints, slices of
    Python ints, None and Ellipsis (its result then follows from the shape and strides
    alone); None for anything else."""
    out = []
    for k in key if type(key) is tuple else (key,):
        kind = type(k)
        if kind is int or k is None or k is Ellipsis:
            out.append(k)
        elif kind is slice:
            part = (k.start, k.stop, k.step)
            for v in part:
                if v is not None and type(v) is not int:
                    return None
            out.append(part)
        else:  # (bool among them: True is 1 to a dict, not to NumPy)
            return None
    return tuple(out)


def getitem_result(shape: tuple, dtype: numpy.dtype, strides: tuple, key: Any,
                   is_proxy: Any) -> tuple:
    """``(shape, strides, is_view)`` of ``a[key]``; raise IndexError as CuPy would.
    Basic keys' answers are cached (an index in a loop is inferred once)."""
    basic = _basic_key(key)
    if basic is not None and type(shape) is tuple and type(strides) is tuple:
        cache_key = (shape, strides, basic)
        found = _GETITEM.get(cache_key)
        if found is None:
            found = _getitem_result(shape, dtype, strides, key, is_proxy)
            if len(_GETITEM) >= 4096:
                _GETITEM.clear()
            _GETITEM[cache_key] = found
        return found
    return _getitem_result(shape, dtype, strides, key, is_proxy)


def _getitem_result(shape: tuple, dtype: numpy.dtype, strides: tuple, key: Any,
                    is_proxy: Any) -> tuple:
    gkey = _index_ghosts(key, is_proxy)
    # a ghost with the real strides, so the view's strides come out right (of a
    # structured dtype, raw bytes: NumPy's ``as_strided`` loses padded fields)
    base = numpy.zeros(1, dtype=dtype if dtype.fields is None else
                       numpy.dtype((numpy.void, dtype.itemsize)))
    arr = as_strided(base, shape=shape, strides=(0,) * len(shape), writeable=False)
    advanced = any(isinstance(k, numpy.ndarray) for k in (gkey if isinstance(gkey, tuple)
                                                           else (gkey,)))
    try:
        result = arr[gkey]
    except IndexError as exc:
        if advanced and 0 in shape:  # (an index array into an empty axis: the server's)
            raise CannotInfer from None
        if any(isinstance(k, (list, numpy.ndarray))
               for k in (key if isinstance(key, tuple) else (key,))):
            raise CannotInfer from None  # (a host mask that does not fit: CuPy's words)
        message = str(exc)
        if message.startswith("index ") and " is out of bounds for axis " in message:
            # an integer index: CuPy's words (``_routines_indexing.pyx``)
            raise IndexError("I" + message[1:]) from None
        if message.startswith("shape mismatch"):
            raise CannotInfer from None  # (CuPy's is a ValueError: the server raises it)
        raise
    if isinstance(result, numpy.generic):
        # a 0-d integer array among the indices is advanced indexing to CuPy (a copy:
        # ``_prepare_slice_list``, ``take``), where NumPy reads it as an integer
        return (), (), not advanced
    if advanced:
        return result.shape, c_strides(result.shape, dtype.itemsize), False
    # basic indexing: recompute the view's strides from the real strides
    real = _ViewStrides(shape, strides)
    return result.shape, real.strides_for(gkey, result.shape), True


class _ViewStrides:
    """Strides of a basic-indexing view, computed the way NumPy does."""

    def __init__(self, shape: tuple, strides: tuple) -> None:
        self.shape = shape
        self.strides = strides

    def strides_for(self, key: Any, out_shape: tuple) -> tuple:
        items = list(key) if isinstance(key, tuple) else [key]
        n_real = sum(1 for k in items if k is not None and k is not Ellipsis)
        if Ellipsis in items:
            i = items.index(Ellipsis)
            items[i:i + 1] = [slice(None)] * (len(self.shape) - n_real)
        else:
            items += [slice(None)] * (len(self.shape) - n_real)
        out = []
        dim = 0
        for k in items:
            if k is None:
                out.append(0)
            elif isinstance(k, slice):
                step = k.step if k.step is not None else 1
                if step != 1 and not len(range(*k.indices(self.shape[dim]))):
                    step = 1  # an empty slice keeps the axis' stride (CuPy's
                    # ``_view_getitem``, as NumPy)
                out.append(self.strides[dim] * step)
                dim += 1
            else:
                dim += 1
        if len(out) != len(out_shape):
            raise CannotInfer
        return tuple(0 if n == 1 and s == 0 else s for s, n in zip(out, out_shape))


def reshape_result(shape: tuple, newshape: Any) -> tuple:
    if isinstance(newshape, (int, numpy.integer)):
        newshape = (int(newshape),)
    newshape = tuple(operator.index(n) for n in newshape)
    size = math.prod(shape)
    unknown = [i for i, n in enumerate(newshape) if n == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    if any(n < -1 for n in newshape):
        raise CannotInfer
    if unknown:
        known = math.prod(n for n in newshape if n != -1)
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape {newshape}")
        newshape = tuple(size // known if n == -1 else n for n in newshape)
    if math.prod(newshape) != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {newshape}")
    return newshape


def normalize_axes(axis: Any, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, numpy.integer)) and not isinstance(axis, bool):
        axis = (int(axis),)
    elif not isinstance(axis, tuple):
        raise CannotInfer
    out = []
    for a in axis:
        if not isinstance(a, (int, numpy.integer)) or isinstance(a, bool):
            raise CannotInfer
        if not -ndim <= a < ndim:
            raise numpy.exceptions.AxisError(int(a), ndim)
        a = int(a) % ndim if ndim else 0
        if a in out:
            raise ValueError("duplicate value in 'axis'")
        out.append(a)
    return tuple(out)


#: reductions the client infers: name -> whether it accepts dtype=
REDUCTIONS = {"sum": True, "prod": True, "mean": True, "max": False, "min": False,
              "any": False, "all": False, "argmax": False, "argmin": False,
              "var": True, "std": True, "nansum": True, "nanprod": True,
              "nanmax": False, "nanmin": False, "nanmean": True, "amax": False,
              "amin": False, "ptp": False, "nanvar": True, "nanstd": True,
              "nanargmax": False, "nanargmin": False}


#: reductions that raise on an empty axis
NO_EMPTY = frozenset({"max", "min", "amax", "amin", "argmax", "argmin", "nanmax", "nanmin",
                      "nanargmax", "nanargmin",
                      "ptp"})


def _dtype_char(dtype: Any) -> str | None:
    if dtype is None:
        return None
    try:
        return numpy.dtype(dtype).char
    except TypeError:
        return None


def reduction_result(name: str, shape: tuple, dtype: numpy.dtype, kwargs: dict) -> tuple:
    """``(shape, dtype)`` of a reduction; raise AxisError/ValueError as CuPy would."""
    if dtype.char in "qQ" or _dtype_char(kwargs.get("dtype")) in ("q", "Q"):
        # a longlong array's (or dtype=): its loops give int64 'l' (``cupy_loop_dtype``),
        # but CUB's whole-array and segmented reductions allocate the input's own dtype,
        # 'q', when they run: the server decides (the caches here cannot tell 'q' from
        # 'l' apart)
        raise CannotInfer
    if not kwargs:  # the whole array, a dtype seen before: what the code below gives
        out_dtype = _REDUCTION_DTYPES.get((name, dtype, None, None))
        if out_dtype is not None and (0 not in shape or name not in NO_EMPTY):
            return (), out_dtype
    allowed = {"axis", "keepdims", "dtype", "ddof"}
    if set(kwargs) - allowed or (not REDUCTIONS[name] and "dtype" in kwargs):
        raise CannotInfer
    if kwargs.get("dtype") is not None and dtype.kind == "c" and \
            numpy.dtype(kwargs["dtype"]).kind != "c":
        raise CannotInfer  # the server's ComplexWarning must come at the call
    axis = kwargs.get("axis")
    keepdims = bool(kwargs.get("keepdims", False))
    if name in ("argmax", "argmin", "nanargmax", "nanargmin"):
        if axis is not None and not isinstance(axis, (int, numpy.integer)):
            raise CannotInfer
    axes = normalize_axes(axis, len(shape))
    for a in axes:
        if shape[a] == 0 and name in NO_EMPTY:
            raise CannotInfer  # the server raises CuPy's message
    if keepdims:
        out_shape = tuple(1 if i in axes else n for i, n in enumerate(shape))
    else:
        out_shape = tuple(n for i, n in enumerate(shape) if i not in axes)
    key = (name, dtype, kwargs.get("dtype"), kwargs.get("ddof"))
    try:
        out_dtype = _REDUCTION_DTYPES.get(key)
    except TypeError:  # an unhashable argument: no caching
        key, out_dtype = None, None
    if out_dtype is None:
        out_dtype = _reduction_dtype(name, dtype, kwargs)
        if key is not None:
            _REDUCTION_DTYPES[key] = out_dtype
    return out_shape, out_dtype


#: (name, dtype, dtype=, ddof=) -> result dtype: the hot path asks NumPy only once
_REDUCTION_DTYPES: dict = {}


def _reduction_dtype(name: str, dtype: numpy.dtype, kwargs: dict) -> numpy.dtype:
    """The result dtype of a reduction, from NumPy run on a one-element stand-in."""
    asked = kwargs.get("dtype")
    if name in ("var", "std") and asked is not None:
        # (CuPy's ``_var`` (``_routines_statistics.pyx``) picks its kernel by the dtype
        # asked: float16, float32, else float64 (an integer or complex one too); ``std`` is
        # ``sqrt(var, dtype=dtype)``, which the server decides for the other dtypes)
        asked = numpy.dtype(asked)
        if asked.char in "ef":
            return asked
        if name == "var" or asked.char == "d":
            return numpy.dtype(numpy.float64)
        raise CannotInfer
    tiny = numpy.zeros((1,), dtype=dtype)
    kw = {k: v for k, v in kwargs.items() if k in ("dtype", "ddof")}
    try:
        with numpy.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. ddof >= size on the stand-in
            out = getattr(numpy, name)(tiny, **kw)
    except (TypeError, ValueError):
        raise CannotInfer from None
    return cupy_loop_dtype(numpy.asarray(out).dtype)
