"""Common routines that pipeline: the result's shape, dtype and layout are inferred
here, so ``c = a @ b`` returns at once, like an operator, instead of waiting for the
server (a round trip each: on a network, the cost of a loop's every step).

Each routine pipelines only when the inference is certain to match CuPy: array
arguments that are proxies of one session, numeric dtypes, and shapes that fit. Anything
else (Python lists, mismatched shapes, keyword arguments this file does not handle)
goes to the server as before and waits, so CuPy's own error is raised at the call. The
layouts are CuPy's, read from its source: most results are new C-contiguous arrays
(routines whose layout would follow their inputs' pipeline only for C-contiguous
inputs); ``tile`` and ``repeat`` return one through a reshape; ``flip`` and ``moveaxis``
are views, made here by slicing and transposing as CuPy does.
"""
from __future__ import annotations

import builtins
import functools
import math
import numbers
import operator
import warnings
from typing import Any, Callable

import numpy

from ..errors import piecewise_values
from ..layouts import broadcast_strides, moved_axis_strides
from . import _infer
from ._ndarray import (FLAG_C, FLAG_F, FLAG_OWN, _contiguity, _new, _quiet_fill, named,
                       ndarray)

#: dtype kinds whose results these routines infer (not strings, objects, datetimes)
_NUMERIC = frozenset("biufc")


def _arrays(values: Any, c_contiguous: bool = False) -> Any:
    """The session all of ``values`` (proxies) share, or None when any is not a usable
    proxy of it (then the call goes to the server and waits)."""
    s = None
    for v in values:
        if type(v) is not ndarray or v._dtype.kind not in _NUMERIC:
            return None
        if s is None:
            s = v._gs_session
        elif v._gs_session is not s:
            return None
        if c_contiguous and (v._flags is None or not v._flags & FLAG_C):
            return None
    return s


def _submit(s: Any, path: str, args: tuple, kwargs: dict, shape: tuple,
            dtype: numpy.dtype, owns: bool = True, strides: tuple | None = None,
            view_of: ndarray | None = None, laid_out: bool = True, op: str = "call",
            description: str | None = None) -> ndarray:
    """Queue ``path(*args, **kwargs)`` (``op`` ``"method"``: the method ``path`` of
    ``args[0]``); its result is a new C-contiguous array (seen through a reshape when not
    ``owns``: ``tile`` and ``repeat`` return it so), or one with these ``strides``, or a
    view of the array ``view_of``; not ``laid_out``: of a layout the server knows (asked
    for when it is needed)."""
    hid = s.new_id()
    s.submit(op, path, args, kwargs, out_id=hid, description=description or path)
    if not laid_out:
        return _new(s, hid, shape, dtype, None, None, None)
    base = None
    if view_of is not None:
        owns, base = False, view_of._base if view_of._base is not None else view_of
    return _fresh(s, hid, shape, dtype, strides, owns, base)


def _fresh(s: Any, hid: int, shape: tuple, dtype: numpy.dtype,
           strides: tuple | None = None, owns: bool = True, base: Any = None) -> ndarray:
    """The proxy of the array ``hid`` a queued call makes: of ``shape`` and ``dtype``,
    with these ``strides`` (C-contiguous by default), owning its memory or not."""
    strides = strides or _infer.c_strides(shape, dtype.itemsize)
    c, f = _contiguity(shape, strides, dtype.itemsize)
    return _new(s, hid, shape, dtype, strides,
                (FLAG_C if c else 0) | (FLAG_F if f else 0) | (FLAG_OWN if owns else 0), base)


def _pad_with_function(array: Any, pad_width: Any, function: Any, kwargs: dict) -> Any:
    """``cupy.pad(array, pad_width, function)``: CuPy's "old behaviour" (``numpy.pad``'s
    too), the user's ``function(vector, pad_width, iaxis, kwargs)`` called on each 1-d
    view of a zero-padded array along each axis, writing the padding in place."""
    from . import asarray, empty, moveaxis
    array = asarray(array)
    width = numpy.asarray(pad_width)
    if not width.dtype.kind == "i":
        raise TypeError("`pad_width` must be of integral type.")
    if width.size == 1:  # ``_as_pairs``, as CuPy (and NumPy) read pad_width
        pairs = [[int(width.ravel()[0])] * 2] * array.ndim
    elif width.size == 2 and width.shape != (2, 1):
        pairs = [width.ravel().tolist()] * array.ndim
    else:
        pairs = numpy.broadcast_to(width, (array.ndim, 2)).tolist()
    if any(lo < 0 or hi < 0 for lo, hi in pairs):
        raise ValueError("index can't contain negative values")
    shape = tuple(lo + n + hi for n, (lo, hi) in zip(array.shape, pairs))
    order = "F" if array.flags.fnc else "C"
    padded = empty(shape, dtype=array.dtype, order=order)
    padded.fill(0)
    padded[tuple(slice(lo, lo + n) for n, (lo, _) in zip(array.shape, pairs))] = array
    for axis in range(padded.ndim):
        view = moveaxis(padded, axis, -1)
        for ind in numpy.ndindex(view.shape[:-1]):
            function(view[ind + (Ellipsis,)], pairs[axis], axis, kwargs)
    return padded


def _pipelines(remote: Callable[..., Any]) -> Callable[[Callable[..., Any]], Any]:
    """``fn`` returns a proxy, or None to have ``remote`` run the call (and wait)."""
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                out = fn(*args, **kwargs)
            except (_infer.CannotInfer, TypeError, ValueError):  # (AxisError too): the
                out = None                                      # server raises CuPy's
            return remote(*args, **kwargs) if out is None else out
        call.__name__ = call.__qualname__ = fn.__name__
        call.__doc__ = fn.__doc__
        return call
    return wrap


def _matmul_shape(a: tuple, b: tuple) -> tuple:
    if not a or not b:
        raise _infer.CannotInfer  # 0-d: CuPy raises
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise _infer.CannotInfer  # CuPy raises its own message
    try:
        batch = numpy.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        raise _infer.CannotInfer from None
    return batch + a[-2:-1] + b[-1:] if len(b) > 1 else batch + a[-2:-1]


def _promoted(a: ndarray, b: ndarray) -> numpy.dtype:
    return numpy.promote_types(a._dtype, b._dtype)


def _real(dtype: numpy.dtype) -> numpy.dtype:
    """The dtype of a complex dtype's real part (any other dtype as it is)."""
    return numpy.dtype(dtype.char.lower()) if dtype.kind == "c" else dtype


def _axes(value: Any, ndim: int) -> tuple:
    """Axes given as an int, a tuple or a list, normalized (``_infer.normalize_axes``)."""
    return _infer.normalize_axes(tuple(value) if isinstance(value, list) else value, ndim)


#: ``cupy.pad``'s modes that take no keyword argument but ``constant_values``
_PAD_MODES = frozenset({"constant", "edge", "wrap", "reflect", "symmetric", "maximum",
                        "minimum", "mean", "linear_ramp", "empty"})
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}
_SCALAR_RANK = {bool: 0, int: 1, float: 2, complex: 3}


def _weak_fits(value: Any, dtype: numpy.dtype) -> bool:
    """Whether the Python scalar ``value`` leaves ``dtype`` as it is when the two meet
    (NEP 50, which CuPy follows: a scalar of a lower or the same kind is weak), without
    overflowing it."""
    rank = _SCALAR_RANK.get(type(value))
    return rank is not None and rank <= _KIND_RANK[dtype.kind] and \
        _infer.int_fits(value, dtype)


def _casts_quietly(value: Any, dtype: numpy.dtype) -> bool:
    """Whether ``cupy.array(value, dtype)`` of a Python int or float neither raises
    (an integer out of range: OverflowError) nor warns (a float beyond the type's)."""
    if type(value) is int:
        return _infer.int_fits(value, dtype)
    if type(value) is not float:
        return False
    if dtype.kind in "fc":
        return not math.isfinite(value) or abs(value) <= numpy.finfo(dtype).max
    return math.isfinite(value) and dtype.kind in "iu" and \
        numpy.iinfo(dtype).min <= value < numpy.iinfo(dtype).max + 1


def build(remote: Callable[[str], Callable[..., Any]]) -> dict:
    """The pipelined routines, by CuPy name; ``remote(path)`` is the waiting call."""

    @_pipelines(remote("cupy.matmul"))
    def matmul(x1: Any, x2: Any, /, out: Any = None, **kwargs: Any) -> Any:
        """See Also: cupy.matmul"""
        s = _arrays((x1, x2))
        if s is None or out is not None or kwargs:
            return None
        shape = _matmul_shape(x1._shape, x2._shape)
        dtype = numpy.matmul.resolve_dtypes((x1._dtype, x2._dtype, None))[2]
        return _submit(s, "cupy.matmul", (x1, x2), {}, shape, dtype)

    @_pipelines(remote("cupy.dot"))
    def dot(a: Any, b: Any, out: Any = None) -> Any:
        """See Also: cupy.dot"""
        s = _arrays((a, b))
        if s is None or out is not None or not a._shape or not b._shape:
            return None
        if len(b._shape) == 1:
            if a._shape[-1] != b._shape[0]:
                return None
            shape = a._shape[:-1]
        else:
            if a._shape[-1] != b._shape[-2]:
                return None
            shape = a._shape[:-1] + b._shape[:-2] + b._shape[-1:]
        return _submit(s, "cupy.dot", (a, b), {}, shape, _promoted(a, b))

    @_pipelines(remote("cupy.tensordot"))
    def tensordot(a: Any, b: Any, axes: Any = 2) -> Any:
        """See Also: cupy.tensordot"""
        s = _arrays((a, b))
        if s is None or not a._shape or not b._shape:
            return None  # (0-d: CuPy multiplies; its checks are the server's)
        if type(axes) is int:
            if not 0 <= axes <= min(a.ndim, b.ndim):
                return None
            a_axes = tuple(range(a.ndim - axes, a.ndim))
            b_axes = tuple(range(axes))
        elif isinstance(axes, (tuple, list)) and len(axes) == 2:
            if any(ax is None for ax in axes):
                return None
            a_axes, b_axes = _axes(axes[0], a.ndim), _axes(axes[1], b.ndim)
        else:
            return None
        if len(a_axes) != len(b_axes) or \
                any(a._shape[i] != b._shape[j] for i, j in zip(a_axes, b_axes)):
            return None  # CuPy's ValueError, from the server
        shape = tuple(n for i, n in enumerate(a._shape) if i not in a_axes) + \
            tuple(n for i, n in enumerate(b._shape) if i not in b_axes)
        return _submit(s, "cupy.tensordot", (a, b), {"axes": axes}, shape, _promoted(a, b))

    @_pipelines(remote("cupy.outer"))
    def outer(a: Any, b: Any, out: Any = None) -> Any:
        """See Also: cupy.outer"""
        s = _arrays((a, b))
        if s is None or out is not None:
            return None
        return _submit(s, "cupy.outer", (a, b), {}, (a.size, b.size), _promoted(a, b))

    @_pipelines(remote("cupy.where"))
    def where(condition: Any, x: Any = None, y: Any = None) -> Any:
        """See Also: cupy.where"""
        if x is None or y is None:
            return None  # the indices of nonzero elements: their count is the server's
        arrays = [v for v in (condition, x, y) if type(v) is ndarray]
        s = _arrays(arrays)  # (a ufunc's result, C-ordered whatever the operands')
        if s is None or condition is not arrays[0] or len(arrays) < 2:
            return None
        if type(x) is ndarray and type(y) is ndarray:
            dtype = _promoted(x, y)
        else:  # one Python scalar: the array's dtype when the scalar is weak in it
            array, scalar = (x, y) if type(x) is ndarray else (y, x)
            if not _weak_fits(scalar, array._dtype):
                return None
            dtype = array._dtype
        shape = numpy.broadcast_shapes(*(a._shape for a in arrays))
        return _submit(s, "cupy.where", (condition, x, y), {}, shape,
                       _infer.cupy_loop_dtype(dtype))  # (its loops: '?ll->l' first)

    def _isclose(a: Any, b: Any, rtol: Any, atol: Any, equal_nan: Any) -> Any:
        """CuPy's isclose ufunc over two C-contiguous arrays (a new boolean array), or
        None."""
        s = _arrays((a, b), c_contiguous=True)
        if s is None or "b" in (a._dtype.kind, b._dtype.kind) or \
                type(rtol) not in (int, float) or type(atol) not in (int, float) or \
                type(equal_nan) is not bool:
            return None
        shape = numpy.broadcast_shapes(a._shape, b._shape)
        return _submit(s, "cupy.isclose", (a, b), {"rtol": rtol, "atol": atol,
                                                   "equal_nan": equal_nan},
                       shape, numpy.dtype(bool))

    @_pipelines(remote("cupy.isclose"))
    def isclose(a: Any, b: Any, rtol: Any = 1.e-5, atol: Any = 1.e-8,
                equal_nan: bool = False) -> Any:
        """See Also: cupy.isclose"""
        return _isclose(a, b, rtol, atol, equal_nan)

    @_pipelines(remote("cupy.allclose"))
    def allclose(a: Any, b: Any, rtol: Any = 1.e-5, atol: Any = 1.e-8,
                 equal_nan: bool = False) -> Any:
        """See Also: cupy.allclose (CuPy's ``isclose(...).all()``: a 0-d array)"""
        close = _isclose(a, b, rtol, atol, equal_nan)
        return None if close is None else close.all()

    @_pipelines(remote("cupy.moveaxis"))
    def moveaxis(a: Any, source: Any, destination: Any) -> Any:
        """See Also: cupy.moveaxis (CuPy's transpose, a view)"""
        if type(a) is not ndarray:
            return None
        src, dst = _axes(source, a.ndim), _axes(destination, a.ndim)
        if len(src) != len(dst):
            return None  # CuPy's ValueError, from the server
        order = [i for i in range(a.ndim) if i not in src]
        for d, s_ in sorted(zip(dst, src)):
            order.insert(d, s_)
        return a.transpose(tuple(order))

    @_pipelines(remote("cupy.broadcast_to"))
    def broadcast_to(array: Any, shape: Any) -> Any:
        """See Also: cupy.broadcast_to (a view, with CuPy's strides)"""
        if type(array) is not ndarray or array._strides is None:
            return None
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        if not all(type(n) is int and n >= 0 for n in shape):
            return None
        # (a shape it cannot take: ValueError here, so the server raises CuPy's)
        strides = broadcast_strides(array._shape, array._strides, shape)
        return _submit(array._gs_session, "cupy.broadcast_to", (array, shape), {}, shape,
                       array._dtype, strides=strides, view_of=array)

    @_pipelines(remote("cupy.roll"))
    def roll(a: Any, shift: Any, axis: Any = None) -> Any:
        """See Also: cupy.roll (a new array like ``a``, ``empty_like``'s layout; with no
        ``axis``, the flat array rolled and seen in ``a``'s shape: a view of it)"""
        s = _arrays((a,))
        if s is None or a._flags is None or not a._shape or 0 in a._shape:
            return None
        shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
        if not shifts or not all(type(n) is int for n in shifts):
            return None
        if axis is None:
            if type(shift) is not int:
                return None
            return _submit(s, "cupy.roll", (a, shift), {}, a._shape, a._dtype, owns=False)
        axes = _axes(axis, a.ndim)
        if len(shifts) not in (1, len(axes)) and len(axes) != 1:
            return None  # CuPy's ValueError, from the server
        itemsize = a._dtype.itemsize
        if a._flags & FLAG_C:
            strides = _infer.c_strides(a._shape, itemsize)
        elif a._flags & FLAG_F:
            strides = _infer.f_strides(a._shape, itemsize)
        else:
            return None  # empty_like of a strided array: the server knows its layout
        return _submit(s, "cupy.roll", (a, shift, axis), {}, a._shape, a._dtype,
                       strides=strides)

    @_pipelines(remote("cupy.pad"))
    def pipelined_pad(array: Any, pad_width: Any, mode: Any = "constant",
                      **kwargs: Any) -> Any:
        s = _arrays((array,))
        if s is None or array._flags is None or not array._shape or \
                mode not in _PAD_MODES or kwargs and (mode != "constant" or
                                                      set(kwargs) != {"constant_values"}):
            return None
        if array.size == 0 and mode not in ("constant", "empty"):
            return None  # CuPy's errors for an empty axis, from the server
        values = kwargs.get("constant_values", 0)
        flat = list(numpy.ravel(numpy.array(values, dtype=object)))
        if not flat or not all(_weak_fits(v, array._dtype) for v in flat):
            return None
        width = numpy.asarray(pad_width)
        if width.dtype.kind != "i" or width.size == 0 or width.min() < 0:
            return None  # CuPy's errors, from the server
        ndim = array.ndim
        if width.size == 1:  # ``_as_pairs``, as CuPy (and NumPy) read pad_width
            pairs = [(int(width.ravel()[0]),) * 2] * ndim
        elif width.size == 2 and width.shape != (2, 1):
            pairs = [tuple(int(w) for w in width.ravel())] * ndim
        else:
            pairs = numpy.broadcast_to(width, (ndim, 2)).tolist()
        shape = tuple(n + lo + hi for n, (lo, hi) in zip(array._shape, pairs))
        itemsize = array._dtype.itemsize
        fortran = array._flags & FLAG_F and not array._flags & FLAG_C
        strides = (_infer.f_strides if fortran else _infer.c_strides)(shape, itemsize)
        return _submit(s, "cupy.pad", (array, pad_width, mode), kwargs, shape,
                       array._dtype, strides=strides)

    def pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Any:
        """See Also: cupy.pad (a new array, F-ordered when ``array`` is F- and not
        C-contiguous, else C-ordered: ``_pad_simple``; a function as ``mode`` runs
        here, on views of the padded array, as CuPy's)"""
        if callable(mode):
            return _pad_with_function(array, pad_width, mode, kwargs)
        return pipelined_pad(array, pad_width, mode, **kwargs)

    @_pipelines(remote("cupy.clip"))
    def clip(a: Any, a_min: Any, a_max: Any, out: Any = None,
             **kwargs: Any) -> Any:
        """See Also: cupy.clip (CuPy's ``_clip`` ufunc: a new C-ordered array, or
        written into ``out`` of ``a``'s shape and dtype, which it returns)"""
        s = _arrays((a,) if out is None else (a, out))
        if s is None or kwargs or (a_min is None and a_max is None) or \
                a._dtype.kind == "c" or \
                not all(v is None or _weak_fits(v, a._dtype) for v in (a_min, a_max)):
            return None
        if out is not None:
            if out._shape != a._shape or out._dtype != a._dtype:
                return None
            s.submit("call", "cupy.clip", (a, a_min, a_max), {"out": out},
                     description="cupy.clip")
            return out
        return _submit(s, "cupy.clip", (a, a_min, a_max), {}, a._shape, a._dtype)

    @_pipelines(remote("cupy.expand_dims"))
    def expand_dims(a: Any, axis: Any) -> Any:
        """See Also: cupy.expand_dims (CuPy's is a reshape, and so is this one)"""
        if type(a) is not ndarray:
            return None
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        out_ndim = len(axes) + a.ndim
        axes = _infer.normalize_axes(axes, out_ndim)
        dims = iter(a._shape)
        return a.reshape(tuple(1 if i in axes else next(dims) for i in range(out_ndim)))

    def _joined(arrays: Any, axis: Any, new_axis: bool) -> tuple | None:
        """(session, shape, dtype) of concatenating (or stacking) ``arrays``."""
        if not isinstance(arrays, (list, tuple)) or not arrays:
            return None
        s = _arrays(arrays)  # (CuPy writes any layout into a new C-ordered array)
        if s is None:
            return None
        # (``concatenate_method``: the dtypes promoted, each castable to that)
        dtype = functools.reduce(numpy.promote_types, {a._dtype for a in arrays})
        first = arrays[0]._shape
        if axis is None and not new_axis:  # flattened, whatever the shapes
            return s, (sum(a.size for a in arrays),), dtype
        if len({a._shape for a in arrays} if new_axis else
               {len(a._shape) for a in arrays}) != 1:
            return None
        if new_axis:
            (ax,) = _infer.normalize_axes(axis, len(first) + 1)
            return s, first[:ax] + (len(arrays),) + first[ax:], dtype
        if not first:
            return None  # 0-d arrays cannot be concatenated: CuPy raises
        (ax,) = _infer.normalize_axes(axis, len(first))
        rest = {a._shape[:ax] + a._shape[ax + 1:] for a in arrays}
        if len(rest) != 1:
            return None
        return s, first[:ax] + (sum(a._shape[ax] for a in arrays),) + first[ax + 1:], dtype

    def joining(name: str, new_axis: bool) -> Callable[..., Any]:
        """``concatenate`` (along an axis) or ``stack`` (along a new one)."""
        def join(tup: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None,
                 casting: str = "same_kind") -> Any:
            if out is not None or dtype is not None or casting != "same_kind":
                return None
            found = _joined(tup, axis, new_axis)
            if found is None:
                return None
            s, shape, dt = found
            return _submit(s, f"cupy.{name}", (list(tup),), {"axis": axis}, shape, dt)
        join.__name__, join.__doc__ = name, f"See Also: cupy.{name}"
        return _pipelines(remote(f"cupy.{name}"))(join)
    concatenate, stack = joining("concatenate", False), joining("stack", True)

    @_pipelines(remote("cupy.vstack"))
    def vstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Any:
        """See Also: cupy.vstack"""
        if dtype is not None or casting != "same_kind" or not isinstance(tup, (list, tuple)):
            return None
        if any(type(a) is not ndarray or len(a._shape) > 2 for a in tup):
            return None
        rows = [a._shape if len(a._shape) == 2 else (1, a.size) for a in tup]
        found = _joined(tup, None, new_axis=False)
        if found is None or len({r[1] for r in rows}) != 1:
            return None  # (CuPy's error for mismatched rows comes from the server)
        s, _, dt = found
        shape = (sum(r[0] for r in rows), rows[0][1])
        return _submit(s, "cupy.vstack", (list(tup),), {}, shape, dt)

    @_pipelines(remote("cupy.hstack"))
    def hstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Any:
        """See Also: cupy.hstack (CuPy's concatenation along the first axis of vectors,
        the second of anything else)"""
        if dtype is not None or casting != "same_kind" or not isinstance(tup, (list, tuple)) \
                or not tup or any(type(a) is not ndarray or not a._shape for a in tup):
            return None  # (0-d arrays: CuPy's atleast_1d first)
        found = _joined(tup, 0 if len(tup[0]._shape) == 1 else 1, new_axis=False)
        if found is None:
            return None
        s, shape, dt = found
        return _submit(s, "cupy.hstack", (list(tup),), {}, shape, dt)

    def _reversed(m: Any, axes: tuple) -> Any:
        """CuPy's flips: the array's reversed slices along ``axes`` (a view)."""
        return m[tuple(slice(None, None, -1) if i in axes else slice(None)
                       for i in range(m.ndim))]

    @_pipelines(remote("cupy.flip"))
    def flip(m: Any, axis: Any = None) -> Any:
        """See Also: cupy.flip"""
        if type(m) is not ndarray:
            return None
        return _reversed(m, _infer.normalize_axes(axis, m.ndim))

    @_pipelines(remote("cupy.fliplr"))
    def fliplr(m: Any) -> Any:
        """See Also: cupy.fliplr"""
        # (fewer axes than it needs: CuPy's ValueError, from the server)
        return _reversed(m, (1,)) if type(m) is ndarray and m.ndim >= 2 else None

    @_pipelines(remote("cupy.flipud"))
    def flipud(m: Any) -> Any:
        """See Also: cupy.flipud"""
        return _reversed(m, (0,)) if type(m) is ndarray and m.ndim >= 1 else None

    def triangle(name: str) -> Callable[..., Any]:
        """``triu`` or ``tril``: CuPy's ``where`` of a triangular mask and the matrix."""
        def tri(m: Any, k: Any = 0) -> Any:
            s = _arrays((m,), c_contiguous=True)
            if s is None or type(k) is not int or len(m._shape) < 2:
                return None
            return _submit(s, f"cupy.{name}", (m,), {"k": k}, m._shape, m._dtype)
        tri.__name__, tri.__doc__ = name, f"See Also: cupy.{name}"
        return _pipelines(remote(f"cupy.{name}"))(tri)
    triu, tril = triangle("triu"), triangle("tril")

    @_pipelines(remote("cupy.arange"))
    def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Any:
        """See Also: cupy.arange"""
        from . import _device_dtype, session
        values = (start, stop, step)
        if any(v is not None and type(v) not in (int, float) for v in values):
            return None  # NumPy scalars, complex, arrays: as the server says
        if stop is None:
            start, stop = 0, start
        if step is None:
            step = 1
        if dtype is None:
            dt = numpy.dtype(float if float in map(type, values) else int)
        else:
            dt = _device_dtype(dtype)
            if dt.kind not in "iuf":
                return None  # bool's and complex's rules (and errors) are the server's
        if not step:
            return None  # CuPy's ZeroDivisionError, at the call
        size = max(0, math.ceil((stop - start) / step))  # CuPy's (and NumPy's) count
        return _submit(session(), "cupy.arange", (start, stop, step), {"dtype": dt},
                       (size,), dt)

    @_pipelines(remote("cupy.tile"))
    def tile(A: Any, reps: Any) -> Any:
        """See Also: cupy.tile"""
        s = _arrays((A,))
        tup = tuple(reps) if isinstance(reps, (tuple, list)) else (reps,)
        if s is None or not A.size or any(type(r) is not int or r < 1 for r in tup) or \
                all(r == 1 for r in tup):
            return None  # (all ones: a copy with CuPy's own layout; zeros: an empty array)
        d = max(len(tup), A.ndim)
        tup = (1,) * (d - len(tup)) + tup
        shape = tuple(n * r for n, r in zip((1,) * (d - A.ndim) + A._shape, tup))
        return _submit(s, "cupy.tile", (A, reps), {}, shape, A._dtype, owns=False)

    @_pipelines(remote("cupy.repeat"))
    def repeat(a: Any, repeats: Any, axis: Any = None) -> Any:
        """See Also: cupy.repeat (by one count: per-element counts wait)"""
        s = _arrays((a,))
        if s is None or type(repeats) is not int or repeats < 0:
            return None
        if axis is None:
            before, n, after = (), a.size, ()
        elif type(axis) is int:
            (ax,) = _infer.normalize_axes(axis, len(a._shape))
            before, n, after = a._shape[:ax], a._shape[ax], a._shape[ax + 1:]
        else:
            return None
        return _submit(s, "cupy.repeat", (a, repeats), {"axis": axis},
                       before + (n * repeats,) + after, a._dtype, owns=not n * repeats)

    @_pipelines(remote("cupy.linspace"))
    def _linspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True,
                 retstep: bool = False, dtype: Any = None, axis: Any = 0) -> Any:
        """See Also: cupy.linspace"""
        from . import _device_dtype, session
        if type(start) not in (int, float) or type(stop) not in (int, float) or \
                type(num) is not int or num < 0 or retstep or type(axis) is not int or axis:
            return None  # array bounds, a step to return, another axis: as the server says
        dt = numpy.dtype(numpy.float64) if dtype is None else _device_dtype(dtype)
        if dt.kind not in "iuf":
            return None
        return _submit(session(), "cupy.linspace", (start, stop, num),
                       {"endpoint": endpoint, "dtype": dt}, (num,), dt)

    def linspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True,
                 retstep: bool = False, dtype: Any = None, axis: Any = 0) -> Any:
        """See Also: cupy.linspace (host arrays as bounds are copied to the device, as
        CuPy's ``cupy.asarray`` does)"""
        from . import asarray
        start = asarray(start) if isinstance(start, numpy.ndarray) else start
        stop = asarray(stop) if isinstance(stop, numpy.ndarray) else stop
        return _linspace(start, stop, num, endpoint, retstep, dtype, axis)

    def diag(v: Any, k: Any = 0) -> Any:
        """See Also: cupy.diag (a host array as CuPy takes it: a vector is copied to the
        device; of a matrix, only its diagonal)"""
        if isinstance(v, (numpy.ndarray, numpy.generic)):
            from . import array
            if numpy.ndim(v) == 2 and type(k) is int:
                return array(numpy.asarray(v).diagonal(k))
            v = array(v)
        return _diag(v, k)

    @_pipelines(remote("cupy.diag"))
    def _diag(v: Any, k: Any = 0) -> Any:
        """See Also: cupy.diag (both ways a new array: a matrix from a vector, a copy of
        a matrix's diagonal)"""
        s = _arrays((v,))
        if s is None or type(k) is not int or len(v._shape) not in (1, 2):
            return None
        if len(v._shape) == 1:
            n = v._shape[0] + abs(k)
            shape: tuple = (n, n)
        else:
            rows, cols = v._shape
            shape = (max(0, min(rows, cols - k) if k >= 0 else min(rows + k, cols)),)
        return _submit(s, "cupy.diag", (v,), {"k": k}, shape, v._dtype)

    @_pipelines(remote("cupy.eye"))
    def eye(N: Any, M: Any = None, k: Any = 0, dtype: Any = float, order: str = "C") -> Any:
        """See Also: cupy.eye"""
        from . import _device_dtype, _shape_tuple, session
        if order != "C" or type(k) is not int:
            return None
        shape = _shape_tuple((N, N if M is None else M))
        dt = _device_dtype(dtype)
        return _submit(session(), "cupy.eye", shape, {"k": k, "dtype": dt}, shape, dt)

    @_pipelines(remote("cupy.sort"))
    def sort(a: Any, axis: Any = -1, kind: Any = None) -> Any:
        """See Also: cupy.sort"""
        s = _arrays((a,))
        if s is None or kind is not None or a._dtype.kind not in "iuf" or not a._shape:
            return None
        if axis is None:
            return _submit(s, "cupy.sort", (a,), {"axis": None}, (a.size,), a._dtype)
        _infer.normalize_axes(axis, len(a._shape))  # AxisError as CuPy's
        return _submit(s, "cupy.sort", (a,), {"axis": axis}, a._shape, a._dtype)

    @_pipelines(remote("cupy.argsort"))
    def argsort(a: Any, axis: Any = -1, kind: Any = None) -> Any:
        """See Also: cupy.argsort"""
        s = _arrays((a,), c_contiguous=True)
        if s is None or kind is not None or a._dtype.kind not in "iuf" or not a._shape \
                or not a.size:  # (a zero-size array's: the server's layout)
            return None
        intp = numpy.dtype(numpy.intp)
        if axis is None:
            return _submit(s, "cupy.argsort", (a,), {"axis": None}, (a.size,), intp)
        (ax,) = _infer.normalize_axes(axis, len(a._shape))
        if ax == len(a._shape) - 1:
            return _submit(s, "cupy.argsort", (a,), {"axis": axis}, a._shape, intp)
        # CuPy's view of the indices with the axis moved back
        return _submit(s, "cupy.argsort", (a,), {"axis": axis}, a._shape, intp, owns=False,
                       strides=moved_axis_strides(a._shape, ax, intp.itemsize))

    def accumulating(name: str) -> Callable[..., Any]:
        """``cumsum`` or ``cumprod`` (or ``nancumsum``, ``nancumprod``)."""
        fold = getattr(numpy, name)

        def cum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
            # (C-contiguous input only: the layouts below were checked on a GPU for it)
            s = _arrays((a,), c_contiguous=True)
            if s is None or dtype is not None or out is not None or not a.size:
                return None
            if axis is None:
                shape = (a.size,)
            else:
                (ax,) = _infer.normalize_axes(axis, len(a._shape))
                if 0 < ax < len(a._shape) - 1:
                    return None  # CuPy's result along a middle axis is not C-contiguous
                shape = a._shape
            # NumPy's rule, which CuPy follows: small integers and bools accumulate in
            # the platform's long; floats and complex as they are
            # (CuPy's ``scan_core`` names them ``numpy.dtype('int64')``: 'l', not 'q')
            dt = _infer.cupy_loop_dtype(fold(numpy.zeros(1, a._dtype)).dtype)
            # (a view in CuPy: of a raveled copy, or of its batched scan along the axis;
            # with an axis of length 1, the strides of those its reshapes give: the
            # server's, asked for when needed)
            return _submit(s, f"cupy.{name}", (a,), {"axis": axis}, shape, dt, owns=False,
                           laid_out=axis is None or 1 not in a._shape or a.ndim < 2)
        cum.__name__, cum.__doc__ = name, f"See Also: cupy.{name}"
        return _pipelines(remote(f"cupy.{name}"))(cum)
    cumsum, cumprod = accumulating("cumsum"), accumulating("cumprod")
    # (CuPy's ``_replace_nan`` is ``empty_like(a)``, so of ``a``'s C-contiguous layout,
    # then ``cumsum``/``cumprod`` of it: their shapes, types and layouts; NumPy's
    # nancumsum/nancumprod type as they do)
    nancumsum, nancumprod = accumulating("nancumsum"), accumulating("nancumprod")

    @_pipelines(remote("cupy.take"))
    def take(a: Any, indices: Any, axis: Any = None, out: Any = None) -> Any:
        """See Also: cupy.take"""
        s = _arrays((a, indices), c_contiguous=True)
        if s is None or out is not None or indices._dtype.kind not in "iu" or not a._shape:
            return None
        if axis is None:
            shape, n = indices._shape, a.size
        else:
            (ax,) = _infer.normalize_axes(axis, len(a._shape))
            shape, n = a._shape[:ax] + indices._shape + a._shape[ax + 1:], a._shape[ax]
        if n == 0 and indices.size:
            return None  # CuPy's IndexError, at the call
        return _submit(s, "cupy.take", (a, indices), {"axis": axis}, shape, a._dtype)

    def nan_reduction(name: str, params: tuple,
                      allowed: frozenset | None = None) -> Callable[..., Any]:
        """``nansum``, ``nanprod``, ``nanmax``, ``nanmin``, ``nanmean``, ``nanvar``,
        ``nanstd``, ``nanargmax``, ``nanargmin`` of a float32 or float64 proxy, the
        arguments given ``allowed`` (all ``params`` but ``out`` by default; an integer
        ``ddof``): the result's shape and dtype as a reduction's (``_infer``: CuPy's
        ``_nanvar`` is of the input's dtype, ``cupy_nanargmax`` int64, -1 for an all-NaN
        slice; an empty axis is the server's error), its layout the server's."""
        allowed = frozenset(params) - {"out"} if allowed is None else allowed

        def fn(a: Any, *args: Any, **kwargs: Any) -> Any:
            bound = named(params, args, kwargs)
            s = _arrays((a,))
            if s is None or bound is None or a._dtype.char not in "fd" or \
                    set(bound) - allowed or type(bound.get("ddof", 0)) is not int:
                return None
            kwargs = bound
            shape, dtype = _infer.reduction_result(name, a._shape, a._dtype, kwargs)
            return _submit(s, f"cupy.{name}", (a,), kwargs, shape, dtype, laid_out=False)
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"See Also: cupy.{name}"
        return _pipelines(remote(f"cupy.{name}"))(fn)
    nansum, nanprod, nanmean = (nan_reduction(n, ("axis", "dtype", "out", "keepdims"))
                                for n in ("nansum", "nanprod", "nanmean"))
    # (not pipelined: CuPy's ``nanmax``/``nanmin`` synchronize to warn ``All-NaN slice
    # encountered`` at the call, ``_statistics/order.py``; a pipelined call's warning
    # would come at the next wait, outside the caller's ``catch_warnings``)
    nanmax, nanmin = remote("cupy.nanmax"), remote("cupy.nanmin")
    # (no ``dtype``: NumPy's would be the result's, CuPy's ``_nanvar`` keeps the input's)
    nanvar, nanstd = (nan_reduction(n, ("axis", "dtype", "out", "ddof", "keepdims"),
                                    frozenset({"axis", "ddof", "keepdims"}))
                      for n in ("nanvar", "nanstd"))
    nanargmax, nanargmin = (nan_reduction(n, ("axis", "dtype", "out", "keepdims"),
                                          frozenset({"axis", "keepdims"}))
                            for n in ("nanargmax", "nanargmin"))

    def broadcast_arrays(*args: Any) -> Any:
        """See Also: cupy.broadcast_arrays (CuPy's ``broadcast(*args).values``: an array
        of the broadcast shape as it is, any other a view, as ``broadcast_to`` makes)"""
        if not args or _arrays(args) is None:
            return remote("cupy.broadcast_arrays")(*args)
        try:
            shape = numpy.broadcast_shapes(*(a._shape for a in args))
        except ValueError:
            return remote("cupy.broadcast_arrays")(*args)  # (CuPy's error)
        return tuple(a if a._shape == shape else broadcast_to(a, shape) for a in args)

    def meshgrid(*xi: Any, **kwargs: Any) -> Any:
        """See Also: cupy.meshgrid (CuPy's Python: views of each vector, broadcast and
        copied)"""
        indexing = kwargs.pop("indexing", "xy")
        copy = bool(kwargs.pop("copy", True))
        sparse = bool(kwargs.pop("sparse", False))
        if kwargs:
            raise TypeError("meshgrid() got an unexpected keyword argument '{}'".format(
                list(kwargs)[0]))
        if indexing not in ["xy", "ij"]:
            raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
        for x in xi:
            if x.ndim != 1:
                raise ValueError("input has to be 1d")
            if not isinstance(x, ndarray):
                raise ValueError("input has to be cupy.ndarray")
        if len(xi) <= 1:
            return tuple(xi)
        meshes = []
        for i, x in enumerate(xi):
            left = (1 if i == 0 else 0 if i == 1 else i) if indexing == "xy" else i
            meshes.append(x[(None,) * left + (slice(None),) + (None,) * (len(xi) - left - 1)])
        out = meshes if sparse else list(broadcast_arrays(*meshes))
        if copy:
            out = [m.copy() for m in out]
        return tuple(out)

    def atleast(n: int) -> Callable[..., Any]:
        """``atleast_1d``, ``_2d`` or ``_3d`` (CuPy's ``_atleast_nd_helper``: reshapes)"""
        grow = {(1, 0): lambda sh: (1,), (2, 0): lambda sh: (1, 1),
                (2, 1): lambda sh: (1,) + sh, (3, 0): lambda sh: (1, 1, 1),
                (3, 1): lambda sh: (1,) + sh + (1,), (3, 2): lambda sh: sh + (1,)}

        def fn(*arys: Any) -> Any:
            from . import asarray
            res = []
            for a in arys:
                a = asarray(a)
                if a.ndim < n:
                    a = a.reshape(*grow[(n, a.ndim)](a.shape))
                res.append(a)
            return res[0] if len(res) == 1 else res
        fn.__name__ = fn.__qualname__ = f"atleast_{n}d"
        fn.__doc__ = f"See Also: cupy.atleast_{n}d"
        return fn
    atleast_1d, atleast_2d, atleast_3d = atleast(1), atleast(2), atleast(3)

    @_pipelines(remote("cupy.einsum"))
    def einsum(*operands: Any, **kwargs: Any) -> Any:
        """See Also: cupy.einsum (the result's shape from the subscripts, as CuPy's
        ``_einsum.py`` sizes each label, a label of size 1 taking another's; its dtype
        ``result_type`` of the operands; its layout, a view's at times, the server's)"""
        subscripts, arrays = (operands[0], operands[1:]) if operands else (None, ())
        if kwargs or type(subscripts) is not str or not arrays or _arrays(arrays) is None:
            return None
        if "->" not in subscripts and not subscripts.replace(",", "").replace(" ", "").isalpha() \
                or "->" not in subscripts and not subscripts.islower():
            return None  # (an implicit output's order: CuPy's, of mixed case or ellipses)
        if "..." in subscripts.partition("->")[0] and "..." not in subscripts.partition("->")[2]:
            return None  # (CuPy refuses an ellipsis the output drops: at the call)
        try:
            from numpy._core.einsumfunc import _parse_einsum_input
        except ImportError:  # (NumPy 1)
            return None
        ins, out, _ = _parse_einsum_input(
            [subscripts, *(_infer.ghost(a._shape, a._dtype) for a in arrays)])
        sizes: dict = {}
        for labels, a in zip(ins.split(","), arrays):
            if len(labels) != len(a._shape):
                return None
            own = dict(zip(labels, a._shape))
            if [n for label, n in zip(labels, a._shape) if own[label] != n]:
                return None  # (a diagonal of unequal axes: CuPy's ValueError)
            for label, n in zip(labels, a._shape):
                have = sizes.get(label)
                if have is None or have == 1:
                    sizes[label] = n
                elif n not in (1, have):
                    return None  # CuPy's ValueError, from the server
        if len(set(out)) != len(out) or not set(out) <= set(sizes):
            return None
        s = arrays[0]._gs_session
        return _submit(s, "cupy.einsum", operands, {}, tuple(sizes[label] for label in out),
                       numpy.result_type(*(a._dtype for a in arrays)), laid_out=False)

    # --- CuPy's Python functions that are their array's method, or short compositions
    # of pipelined calls: run here as CuPy's source runs them (``cupy/_manipulation``,
    # ``_math``, ``_indexing``, ``_creation``), on proxies; anything else to the server
    def via_method(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        far = remote(f"cupy.{name}")

        def fn(a: Any, *args: Any, **kwargs: Any) -> Any:
            return method(a, *args, **kwargs) if type(a) is ndarray else far(a, *args, **kwargs)
        fn.__name__, fn.__doc__ = name, f"See Also: cupy.{name}"
        return fn

    def _swapaxes(a: Any, axis1: Any, axis2: Any) -> Any:
        return a.swapaxes(axis1, axis2)

    def _diagonal(a: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1) -> Any:
        return a.diagonal(offset, axis1, axis2)

    def _trace(a: Any, offset: Any = 0, axis1: Any = 0, axis2: Any = 1, dtype: Any = None,
               out: Any = None) -> Any:
        return a.trace(offset, axis1, axis2, dtype, out)

    def _around(a: Any, decimals: Any = 0, out: Any = None) -> Any:
        return a.round(decimals, out=out)

    def _real_of(val: Any) -> Any:
        return val.real

    def _imag_of(val: Any) -> Any:
        return val.imag

    swapaxes = via_method("swapaxes", _swapaxes)
    diagonal = via_method("diagonal", _diagonal)
    trace = via_method("trace", _trace)
    around = via_method("around", _around)
    round_ = via_method("round", _around)
    real = via_method("real", _real_of)
    imag = via_method("imag", _imag_of)

    def identity(n: Any, dtype: Any = float) -> Any:
        """See Also: cupy.identity (CuPy's ``eye(n, dtype=dtype)``)"""
        return eye(n, dtype=dtype)

    def diff(a: Any, n: Any = 1, axis: Any = -1, prepend: Any = None,
             append: Any = None) -> Any:
        """See Also: cupy.diff (CuPy's: slices of the array subtracted, ``n`` times)"""
        from . import asanyarray, broadcast_to, not_equal, subtract
        from . import concatenate as concat
        if n == 0:
            return a
        if n < 0:
            raise ValueError("order must be non-negative but got " + repr(n))
        a = asanyarray(a)
        nd = a.ndim
        axis = operator.index(axis)
        if not -nd <= axis < nd:
            raise numpy.exceptions.AxisError(axis, nd)
        axis %= nd
        combined = []
        for value in (prepend, a, append):
            if value is None:
                continue
            if value is not a:
                value = asanyarray(value)
                if value.ndim == 0:
                    shape = list(a.shape)
                    shape[axis] = 1
                    value = broadcast_to(value, tuple(shape))
            combined.append(value)
        if len(combined) > 1:
            a = concat(combined, axis)
        slice1 = [slice(None)] * nd
        slice2 = [slice(None)] * nd
        slice1[axis] = slice(1, None)
        slice2[axis] = slice(None, -1)
        op = not_equal if a.dtype == numpy.bool_ else subtract
        for _ in range(n):
            a = op(a[tuple(slice1)], a[tuple(slice2)])
        return a

    def ediff1d(arr: Any, to_end: Any = None, to_begin: Any = None) -> Any:
        """See Also: cupy.ediff1d (CuPy's: the raveled array's differences written
        after ``to_begin`` and before ``to_end``)"""
        from . import can_cast, empty, subtract
        if not isinstance(arr, ndarray):
            raise TypeError("`arr` should be of type cupy.ndarray")
        arr = arr.ravel()
        dtype_req = arr.dtype
        if to_begin is None and to_end is None:
            return arr[1:] - arr[:-1]
        ends = []
        for value, name in ((to_begin, "to_begin"), (to_end, "to_end")):
            if value is None:
                ends.append((None, 0))
                continue
            if not isinstance(value, ndarray):
                raise TypeError(f"`{name}` should be of type cupy.ndarray")
            if not can_cast(value, dtype_req, casting="same_kind"):
                raise TypeError(f"dtype of `{name}` must be compatible "
                                "with input `arr` under the `same_kind` rule.")
            value = value.ravel()
            ends.append((value, len(value)))
        (to_begin, l_begin), (to_end, l_end) = ends
        l_diff = builtins.max(len(arr) - 1, 0)
        result = empty(l_diff + l_begin + l_end, dtype=arr.dtype)
        if l_begin > 0:
            result[:l_begin] = to_begin
        if l_end > 0:
            result[l_begin + l_diff:] = to_end
        subtract(arr[1:], arr[:-1], result[l_begin:l_begin + l_diff])
        return result

    def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: Any = 1) -> Any:
        """See Also: cupy.gradient (CuPy's: central differences of slices, written into
        ``empty_like`` results; a device ``f`` runs here)"""
        from . import empty_like, ndim as ndim_of
        if type(f) is not ndarray:
            return remote("cupy.gradient")(f, *varargs, axis=axis, edge_order=edge_order)
        ndim = f.ndim
        try:
            axes = _infer.normalize_axes(axis, ndim)
        except _infer.CannotInfer:
            return remote("cupy.gradient")(f, *varargs, axis=axis, edge_order=edge_order)
        len_axes = len(axes)
        n = len(varargs)
        if n == 0:
            dx = [1.0] * len_axes
        elif n == 1 and ndim_of(varargs[0]) == 0:
            dx = list(varargs) * len_axes
        elif n == len_axes:
            dx = list(varargs)
            for i, distances in enumerate(dx):
                if ndim_of(distances) == 0:
                    continue
                elif ndim_of(distances) != 1:
                    raise ValueError("distances must be either scalars or 1d")
                if len(distances) != f.shape[axes[i]]:
                    raise ValueError("when 1d, distances must match the length of the "
                                     "corresponding dimension")
                if numpy.issubdtype(distances.dtype, numpy.integer):
                    distances = distances.astype(numpy.float64)
                diffx = diff(distances)
                if (diffx == diffx[0]).all():
                    diffx = diffx[0]
                dx[i] = diffx
        else:
            raise TypeError("invalid number of arguments")
        if edge_order > 2:
            raise ValueError("'edge_order' greater than 2 not supported")
        outvals = []
        slice1 = [slice(None)] * ndim
        slice2 = [slice(None)] * ndim
        slice3 = [slice(None)] * ndim
        slice4 = [slice(None)] * ndim
        otype = f.dtype
        if not numpy.issubdtype(otype, numpy.inexact):
            if numpy.issubdtype(otype, numpy.integer):
                f = f.astype(numpy.float64)
            otype = numpy.float64
        for axis, ax_dx in zip(axes, dx):
            if f.shape[axis] < edge_order + 1:
                raise ValueError("Shape of array too small to calculate a numerical "
                                 "gradient, at least (edge_order + 1) elements are "
                                 "required.")
            out = empty_like(f, dtype=otype)
            uniform_spacing = ndim_of(ax_dx) == 0
            slice1[axis] = slice(1, -1)
            slice2[axis] = slice(None, -2)
            slice3[axis] = slice(1, -1)
            slice4[axis] = slice(2, None)
            if uniform_spacing:
                out[tuple(slice1)] = (f[tuple(slice4)] - f[tuple(slice2)]) / (2.0 * ax_dx)
            else:
                dx1 = ax_dx[0:-1]
                dx2 = ax_dx[1:]
                dx_sum = dx1 + dx2
                a = -dx2 / (dx1 * dx_sum)
                b = (dx2 - dx1) / (dx1 * dx2)
                c = dx1 / (dx2 * dx_sum)
                shape = [1] * ndim
                shape[axis] = -1
                a.shape = b.shape = c.shape = tuple(shape)
                out[tuple(slice1)] = a * f[tuple(slice2)] + b * f[tuple(slice3)] + \
                    c * f[tuple(slice4)]
            if edge_order == 1:
                slice1[axis] = 0
                slice2[axis] = 1
                slice3[axis] = 0
                dx_0 = ax_dx if uniform_spacing else ax_dx[0]
                out[tuple(slice1)] = (f[tuple(slice2)] - f[tuple(slice3)]) / dx_0
                slice1[axis] = -1
                slice2[axis] = -1
                slice3[axis] = -2
                dx_n = ax_dx if uniform_spacing else ax_dx[-1]
                out[tuple(slice1)] = (f[tuple(slice2)] - f[tuple(slice3)]) / dx_n
            else:
                slice1[axis] = 0
                slice2[axis] = 0
                slice3[axis] = 1
                slice4[axis] = 2
                if uniform_spacing:
                    a = -1.5 / ax_dx
                    b = 2.0 / ax_dx
                    c = -0.5 / ax_dx
                else:
                    dx1 = ax_dx[0]
                    dx2 = ax_dx[1]
                    dx_sum = dx1 + dx2
                    a = -(2.0 * dx1 + dx2) / (dx1 * dx_sum)
                    b = dx_sum / (dx1 * dx2)
                    c = -dx1 / (dx2 * dx_sum)
                out[tuple(slice1)] = a * f[tuple(slice2)] + b * f[tuple(slice3)] + \
                    c * f[tuple(slice4)]
                slice1[axis] = -1
                slice2[axis] = -3
                slice3[axis] = -2
                slice4[axis] = -1
                if uniform_spacing:
                    a = 0.5 / ax_dx
                    b = -2.0 / ax_dx
                    c = 1.5 / ax_dx
                else:
                    dx1 = ax_dx[-2]
                    dx2 = ax_dx[-1]
                    dx_sum = dx1 + dx2
                    a = dx2 / (dx1 * dx_sum)
                    b = -dx_sum / (dx1 * dx2)
                    c = (2.0 * dx2 + dx1) / (dx2 * dx_sum)
                out[tuple(slice1)] = a * f[tuple(slice2)] + b * f[tuple(slice3)] + \
                    c * f[tuple(slice4)]
            outvals.append(out)
            slice1[axis] = slice(None)
            slice2[axis] = slice(None)
            slice3[axis] = slice(None)
            slice4[axis] = slice(None)
        if len_axes == 1:
            return outvals[0]
        return outvals

    def piecewise(x: Any, condlist: Any, funclist: Any) -> Any:
        """See Also: cupy.piecewise (CuPy's: ``cupy_piecewise_kernel`` writing each
        value where its condition holds; a device ``x`` with device or bool conditions
        runs here, the kernel made once per session)"""
        from . import ElementwiseKernel, full, isscalar, zeros
        from ._kernels import session_kernel
        if isscalar(condlist):
            condlist = [condlist]
        if type(x) is not ndarray or not isinstance(condlist, (list, tuple)) or any(
                type(c) is not ndarray and type(c) is not bool for c in condlist):
            return remote("cupy.piecewise")(x, condlist, funclist)
        condlist, funclist, default = piecewise_values(condlist, funclist)
        out = zeros(x.shape, x.dtype) if default is None else full(x.shape, default, x.dtype)
        kernel = session_kernel(x._gs_session, "cupy_piecewise_kernel", lambda: (
            ElementwiseKernel("bool cond, T value", "T y", "if (cond) y = value",
                              "cupy_piecewise_kernel")))
        for condition, func in zip(condlist, funclist):
            if isinstance(func, ndarray):
                func = func.astype(x.dtype)
            kernel(condition, func, out)
        return out

    def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: Any = -1) -> Any:
        """See Also: cupy.trapezoid (CuPy's: the mean of neighbours times the steps,
        summed)"""
        from . import add
        if not isinstance(y, ndarray):
            raise TypeError("`y` should be of type cupy.ndarray")
        if x is None:
            d = dx
        else:
            if not isinstance(x, ndarray):
                raise TypeError("`x` should be of type cupy.ndarray")
            if x.ndim == 1:
                d = diff(x)
                # reshape to correct shape
                shape = [1] * y.ndim
                shape[axis] = d.shape[0]
                d = d.reshape(shape)
            else:
                d = diff(x, axis=axis)
        nd = y.ndim
        slice1 = [slice(None)] * nd
        slice2 = [slice(None)] * nd
        slice1[axis] = slice(1, None)
        slice2[axis] = slice(None, -1)
        product = d * (y[tuple(slice1)] + y[tuple(slice2)]) / 2.0
        try:
            ret = product.sum(axis)
        except ValueError:
            ret = add.reduce(product, axis)
        return ret

    def array_split(ary: Any, indices_or_sections: Any, axis: Any = 0) -> Any:
        """See Also: cupy.array_split (views of ``ary``, CuPy's sizes; their layouts are
        the server's)"""
        far = remote("cupy.array_split")
        if type(ary) is not ndarray or type(axis) is not int:
            return far(ary, indices_or_sections, axis)
        ndim = ary.ndim
        if -ndim > axis or ndim <= axis:
            raise IndexError("Axis exceeds ndim")
        axis %= ndim
        size = ary._shape[axis]
        sections = indices_or_sections
        if numpy.isscalar(sections):
            if type(sections) is not int:
                return far(ary, sections, axis)  # (CuPy's error)
            if sections == 0:  # (CuPy's Cython division by it)
                raise ZeroDivisionError("integer division or modulo by zero")
            each, large = (size - 1) // sections, (size - 1) % sections + 1
            indices = [i * each + min(i, large) for i in range(1, sections)]
        else:
            try:
                indices = [operator.index(i) for i in sections]
            except TypeError:
                return far(ary, sections, axis)
            indices = [i if i >= 0 else size + i for i in indices]
            if any(i < 0 for i in indices):
                return far(ary, sections, axis)
        if not indices:
            return [ary]
        sizes, prev = [], 0
        for index in indices:
            index = min(index, size)
            sizes.append(max(index - prev, 0))
            prev = index
        sizes.append(size - prev)
        s = ary._gs_session
        ids = [s.new_id() for _ in sizes]
        s.submit("call", "cupy.array_split", (ary, indices_or_sections, axis), {},
                 out_id=ids, description="cupy.array_split")
        return [_new(s, hid, ary._shape[:axis] + (n,) + ary._shape[axis + 1:], ary._dtype,
                     None, None, None) for hid, n in zip(ids, sizes)]

    def split(ary: Any, indices_or_sections: Any, axis: Any = 0) -> Any:
        """See Also: cupy.split"""
        if type(ary) is not ndarray:
            return remote("cupy.split")(ary, indices_or_sections, axis)
        if ary.ndim <= axis:
            raise IndexError("Axis exceeds ndim")
        size = ary.shape[axis]
        if numpy.isscalar(indices_or_sections) and type(indices_or_sections) is int and \
                indices_or_sections and size % indices_or_sections != 0:
            raise ValueError("indices_or_sections must divide the size along the axes.\n"
                             "If you want to split the array into non-equally-sized "
                             "arrays, use array_split instead.")
        return array_split(ary, indices_or_sections, axis)

    def hsplit(ary: Any, indices_or_sections: Any) -> Any:
        """See Also: cupy.hsplit"""
        if type(ary) is not ndarray:
            return remote("cupy.hsplit")(ary, indices_or_sections)
        if ary.ndim == 0:
            raise ValueError("Cannot hsplit a zero-dimensional array")
        return split(ary, indices_or_sections, 0 if ary.ndim == 1 else 1)

    def axis_split(name: str, axis: int, words: str) -> Callable[..., Any]:
        """``vsplit`` (along axis 0) or ``dsplit`` (2): arrays of more dimensions only."""
        def fn(ary: Any, indices_or_sections: Any) -> Any:
            if type(ary) is not ndarray:
                return remote(f"cupy.{name}")(ary, indices_or_sections)
            if ary.ndim <= max(axis, 1):
                raise ValueError(f"Cannot {name} an array with less than {words} dimensions")
            return split(ary, indices_or_sections, axis)
        fn.__name__, fn.__doc__ = name, f"See Also: cupy.{name}"
        return fn
    vsplit, dsplit = axis_split("vsplit", 0, "2"), axis_split("dsplit", 2, "3")

    @_pipelines(remote("cupy.count_nonzero"))
    def count_nonzero(a: Any, axis: Any = None) -> Any:
        """See Also: cupy.count_nonzero (a reduction: a 0-d array for the whole array,
        never a Python int)"""
        s = _arrays((a,))
        if s is None:
            return None
        axes = _axes(axis, len(a._shape))
        shape = tuple(n for i, n in enumerate(a._shape) if i not in axes)
        return _submit(s, "cupy.count_nonzero", (a,),
                       {} if axis is None else {"axis": axis}, shape,
                       numpy.dtype(numpy.int64))

    @_pipelines(remote("cupy.vdot"))
    def vdot(a: Any, b: Any) -> Any:
        """See Also: cupy.vdot (``tensordot_core`` of the flattened arrays: 0-d)"""
        s = _arrays((a, b))
        if s is None or a.size != b.size:
            return None  # (CuPy's ValueError, from the server)
        return _submit(s, "cupy.vdot", (a, b), {}, (), _promoted(a, b))

    @_pipelines(remote("cupy.inner"))
    def inner(a: Any, b: Any) -> Any:
        """See Also: cupy.inner (``tensordot_core`` over the last axes: a new array)"""
        s = _arrays((a, b))
        if s is None or not a._shape or not b._shape or a._shape[-1] != b._shape[-1]:
            return None  # (0-d: CuPy's multiply; a mismatch: its ValueError)
        return _submit(s, "cupy.inner", (a, b), {}, a._shape[:-1] + b._shape[:-1],
                       _promoted(a, b))

    def _along_axis(shape: tuple, indices: Any, axis: int) -> tuple:
        """The fancy index of ``take_along_axis`` and ``put_along_axis`` (CuPy's
        ``_make_along_axis_idx``): ``indices`` along ``axis``, a range along each other
        axis, shaped to broadcast against it."""
        from . import arange
        ones = (1,) * len(shape)
        return tuple(indices if i == axis else arange(n).reshape(ones[:i] + (-1,) +
                                                                 ones[i + 1:])
                     for i, n in enumerate(shape))

    def take_along_axis(a: Any, indices: Any, axis: Any) -> Any:
        """See Also: cupy.take_along_axis (CuPy's Python: ``a`` indexed by ``indices``
        and ranges along the other axes)"""
        if type(a) is not ndarray or type(indices) is not ndarray:
            return remote("cupy.take_along_axis")(a, indices, axis)
        if indices.dtype.kind not in ("i", "u"):
            raise IndexError("`indices` must be an integer array")
        if axis is None:
            a = a.ravel()
            axis = 0
        ndim = a.ndim
        axis = operator.index(axis)
        if not -ndim <= axis < ndim:
            raise numpy.exceptions.AxisError(axis, ndim)
        axis %= ndim
        if ndim != indices.ndim:
            raise ValueError("`indices` and `a` must have the same number of dimensions")
        return a[_along_axis(a.shape, indices, axis)]

    @_pipelines(remote("cupy.nan_to_num"))
    def nan_to_num(x: Any, copy: bool = True, nan: Any = 0.0, posinf: Any = None,
                   neginf: Any = None) -> Any:
        """See Also: cupy.nan_to_num (into ``empty_like(x)``: x's order when it is
        contiguous)"""
        s = _arrays((x,))
        if s is None or copy is not True or not x._meta_ok or \
                not x._flags & (FLAG_C | FLAG_F):
            return None
        if type(nan) not in (int, float) or any(
                v is not None and type(v) not in (int, float) for v in (posinf, neginf)):
            return None
        order = _infer.c_strides if x._flags & FLAG_C else _infer.f_strides
        return _submit(s, "cupy.nan_to_num", (x,),
                       {"nan": nan, "posinf": posinf, "neginf": neginf}, x._shape,
                       x._dtype, strides=order(x._shape, x._dtype.itemsize))

    @_pipelines(remote("cupy.tri"))
    def tri(N: Any, M: Any = None, k: Any = 0, dtype: Any = float) -> Any:
        """See Also: cupy.tri (into ``cupy.empty((N, M), dtype)``)"""
        from . import _device_dtype, _shape_tuple, session
        if type(k) is not int or type(N) is not int or M is not None and type(M) is not int:
            return None
        shape = _shape_tuple((N, N if M is None else M))
        if min(shape) < 0:
            return None
        dt = _device_dtype(dtype)
        return _submit(session(), "cupy.tri", shape, {"k": k, "dtype": dt}, shape, dt)

    def indices(dimensions: Any, dtype: Any = int) -> Any:
        """See Also: cupy.indices (CuPy's Python: ranges written into a new array)"""
        from . import arange, empty
        dimensions = tuple(dimensions)
        n = len(dimensions)
        shape = (1,) * n
        res = empty((n,) + dimensions, dtype=dtype)
        for i, dim in enumerate(dimensions):
            res[i] = arange(dim, dtype=dtype).reshape(shape[:i] + (dim,) + shape[i + 1:])
        return res

    def logspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True,
                 base: Any = 10.0, dtype: Any = None, axis: Any = 0) -> Any:
        """See Also: cupy.logspace (CuPy's Python: ``power(base, linspace(...))``)"""
        from . import float64, power
        y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
        if dtype is None:
            return power(base, y)
        if numpy.dtype(dtype).kind in "iu":
            y = y.astype(float64)
        return power(base, y).astype(dtype)

    def append(arr: Any, values: Any, axis: Any = None) -> Any:
        """See Also: cupy.append (CuPy's Python: a concatenation)"""
        from . import asarray
        arr = asarray(arr)
        values = asarray(values)
        if axis is None:
            return concatenate((arr.ravel(), values.ravel()), 0).ravel()
        return concatenate((arr, values), axis)

    @_pipelines(remote("cupy.resize"))
    def resize(a: Any, new_shape: Any) -> Any:
        """See Also: cupy.resize (a new array of ``new_shape``, ``a`` repeated in it)"""
        from . import _shape_tuple
        s = _arrays((a,))
        if s is None:
            return None
        shape = _shape_tuple(new_shape)
        if min(shape, default=0) < 0:
            return None
        return _submit(s, "cupy.resize", (a, new_shape), {}, shape, a._dtype)

    def column_stack(tup: Any) -> Any:
        """See Also: cupy.column_stack (CuPy's Python: vectors as columns, joined)"""
        if any(not isinstance(a, ndarray) for a in tup):
            raise TypeError("Only cupy arrays can be column stacked")
        lst = list(tup)
        for i, a in enumerate(lst):
            if a.ndim == 1:
                lst[i] = a[:, None]
            elif a.ndim != 2:
                raise ValueError("Only 1 or 2 dimensional arrays can be column stacked")
        return concatenate(lst, axis=1)

    def dstack(tup: Any) -> Any:
        """See Also: cupy.dstack (CuPy's Python: ``atleast_3d`` of each, joined)"""
        return concatenate([atleast_3d(m) for m in tup], 2)

    def rot90(a: Any, k: Any = 1, axes: Any = (0, 1)) -> Any:
        """See Also: cupy.rot90 (CuPy's Python: a view, flipped and transposed)"""
        if type(a) is not ndarray:
            return remote("cupy.rot90")(a, k, axes)
        a_ndim = a.ndim
        if a_ndim < 2:
            raise ValueError("Input must be >= 2-d")
        axes = tuple(axes)
        if len(axes) != 2:
            raise ValueError("len(axes) must be 2")
        if axes[0] == axes[1] or abs(axes[0] - axes[1]) == a_ndim:
            raise ValueError("axes must be different")
        if not (-a_ndim <= axes[0] < a_ndim and -a_ndim <= axes[1] < a_ndim):
            raise ValueError("axes must be >= %d and < %d" % (-a_ndim, a_ndim))
        k = k % 4
        if k == 0:
            return a[:]
        if k == 2:
            return _reversed(a, tuple(ax % a_ndim for ax in axes))
        axes_t = list(range(0, a_ndim))
        axes_t[axes[0]], axes_t[axes[1]] = axes_t[axes[1]], axes_t[axes[0]]
        if k == 1:
            return _reversed(a, (axes[1] % a_ndim,)).transpose(axes_t)
        return _reversed(a.transpose(axes_t), (axes[1] % a_ndim,))

    def put_along_axis(arr: Any, indices: Any, values: Any, axis: Any) -> Any:
        """See Also: cupy.put_along_axis (CuPy's Python: an assignment through
        ``indices`` and ranges along the other axes)"""
        from . import integer, issubdtype, put
        if type(arr) is not ndarray or type(indices) is not ndarray:
            return remote("cupy.put_along_axis")(arr, indices, values, axis)
        if axis is None:
            if indices.ndim != 1:
                raise NotImplementedError("Tuple setitem isn't supported for flatiter.")
            put(arr, indices, values)
            return None
        ndim = arr.ndim
        axis = operator.index(axis)
        if not -ndim <= axis < ndim:
            raise numpy.exceptions.AxisError(axis, ndim)
        axis %= ndim
        if not issubdtype(indices.dtype, integer):
            raise IndexError("`indices` must be an integer array")
        if ndim != indices.ndim:
            raise ValueError(
                "`indices` and `arr` must have the same number of dimensions")
        arr[_along_axis(arr.shape, indices, axis)] = values
        return None

    def put(a: Any, ind: Any, v: Any, mode: str = "wrap") -> None:
        """See Also: cupy.put (``a.put``: queued when nothing can raise, that is integer
        indices on the device and values of ``a``'s dtype or a Python scalar, wrapped
        or clipped)"""
        if type(a) is ndarray and type(ind) is ndarray and mode in ("wrap", "clip") and \
                ind._dtype.kind in "iu" and ind._gs_session is a._gs_session and (
                    type(v) in (int, float, bool) and _weak_fits(v, a._dtype) or
                    type(v) is ndarray and v._dtype == a._dtype and
                    v._gs_session is a._gs_session):
            a._gs_session.submit("method", "put", (a, ind, v), {"mode": mode},
                                 description="cupy.put")
            return None
        return remote("cupy.put")(a, ind, v, mode=mode)

    @_pipelines(remote("cupy.median"))
    def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
               keepdims: bool = False) -> Any:
        """See Also: cupy.median (CuPy's ``_median``: the mean of the middle of a
        partition, a NaN where the data has one: shaped and typed as that mean)"""
        s = _arrays((a,))
        if s is None or out is not None or overwrite_input or 0 in a._shape or \
                axis is not None and not isinstance(axis, (int, numpy.integer)):
            return None  # (axes as a sequence: a reshaped result, its layout the server's)
        shape, dtype = _infer.reduction_result(
            "mean", a._shape, a._dtype, {"axis": axis, "keepdims": bool(keepdims)})
        return _submit(s, "cupy.median", (a,), {"axis": axis, "keepdims": keepdims},
                       shape, dtype)

    @_pipelines(remote("cupy.nanmedian"))
    def nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                  keepdims: bool = False) -> Any:
        """See Also: cupy.nanmedian (CuPy's ``_nanmedian`` of a float or complex array:
        a new array of the axes not reduced, in ``a``'s dtype (its rule for ``axis``:
        each dimension named by ``i`` or ``i - ndim``), a transposed view of it with
        ``keepdims`` (its layout the server's); of any other dtype, ``median``)"""
        if type(a) is not ndarray:
            return None
        if a._dtype.char not in "efdFD":
            return median(a, axis, out, overwrite_input, keepdims)
        s = _arrays((a,))
        if s is None or out is not None or overwrite_input:
            return None
        if axis is None:
            axes: Any = range(a.ndim)
        else:
            axes = axis if type(axis) in (tuple, list) else (axis,)
            if not all(type(i) is int for i in axes):
                return None
        kept = tuple(n for i, n in enumerate(a._shape)
                     if not (i in axes or i - a.ndim in axes))
        if 0 in kept:
            return None  # (CuPy's reshape to ``kept + (-1,)`` raises)
        if keepdims:
            shape = tuple(1 if i in axes or i - a.ndim in axes else n
                          for i, n in enumerate(a._shape))
            return _submit(s, "cupy.nanmedian", (a,), {"axis": axis, "keepdims": True},
                           shape, a._dtype, laid_out=False)
        return _submit(s, "cupy.nanmedian", (a,), {"axis": axis}, kept, a._dtype)

    def quantiles(name: str, scale: float) -> Callable[..., Any]:
        """``percentile`` (``q`` in percent) or ``quantile``: CuPy's
        ``_quantile_unchecked``, shaped and typed here for ``q`` on the host (checked
        there as CuPy checks it), its layout the server's"""
        far = remote(f"cupy.{name}")

        @_pipelines(far)
        def fn(a: Any, q: Any, axis: Any = None, out: Any = None,
               overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, interpolation: Any = None) -> Any:
            s = _arrays((a,))
            if s is None or out is not None or interpolation is not None or \
                    not a.size or method not in ("linear", "lower", "higher",
                                                 "midpoint", "nearest"):
                return None
            given_q = q
            if isinstance(q, (tuple, list)):
                q = numpy.asarray(q)
            if not isinstance(q, (int, float, numpy.ndarray)) or isinstance(q, bool) or \
                    isinstance(q, numpy.ndarray) and (q.ndim > 1 or q.dtype.kind not in "iuf"):
                return None
            q = q / scale if scale != 1 else q
            if not (numpy.count_nonzero(0.0 <= q) and numpy.count_nonzero(q <= 1.0)):
                return None  # (CuPy's ValueError, from the server)
            axes = None if axis is None else _axes(axis, a.ndim)
            q_shape = numpy.shape(q)
            dtype = a._dtype if method in ("lower", "higher", "nearest") else \
                numpy.result_type(a._dtype, q)
            if axes is None:
                kept: tuple = ()
                keepdim = (1,) * a.ndim
            else:
                kept = tuple(n for i, n in enumerate(a._shape) if i not in axes)
                keepdim = tuple(1 if i in axes else n for i, n in enumerate(a._shape))
            shape = q_shape + kept
            if keepdims:
                shape = ((numpy.size(q),) if numpy.size(q) > 1 else ()) + keepdim
            return _submit(s, f"cupy.{name}", (a, given_q),
                           {"axis": axis, "method": method, "keepdims": keepdims}, shape,
                           numpy.dtype(dtype), laid_out=False)
        fn.__name__, fn.__doc__ = name, f"See Also: cupy.{name}"
        return fn
    percentile, quantile = quantiles("percentile", 100), quantiles("quantile", 1)

    def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
                keepdims: bool = False) -> Any:
        """See Also: cupy.average (CuPy's Python; weights make it wait, as in CuPy)"""
        from . import asarray, broadcast_to
        from . import array as array_
        if weights is not None:
            return remote("cupy.average")(a, axis, weights, returned, keepdims=keepdims)
        a = asarray(a)
        avg = a.mean(axis=axis, keepdims=keepdims)
        scl = avg.dtype.type(a.size / avg.size)
        if returned:
            if scl.shape != avg.shape:
                scl = broadcast_to(array_(scl), avg.shape).copy()
            return avg, scl
        return avg

    def _partitioned(a: Any, kth: Any, axis: Any) -> tuple | None:
        """(session, result shape) of ``partition``/``argpartition``: ``a``'s shape, flat
        for ``axis=None``; None where CuPy raises (``kth`` out of bounds, checked as it
        checks it: ValueError from the server) or the axis is empty"""
        s = _arrays((a,))
        if s is None or not a._shape or a._dtype.kind == "c":
            return None
        shape = (a.size,) if axis is None else a._shape
        (ax,) = _axes(-1 if axis is None else axis, len(shape))
        length = shape[ax]
        ks = (kth,) if isinstance(kth, int) else kth
        if not length or not isinstance(ks, (tuple, list)) or not ks or \
                any(type(k) is not int or not -length <= k < length for k in ks):
            return None
        return s, shape

    @_pipelines(remote("cupy.partition"))
    def partition(a: Any, kth: Any, axis: Any = -1) -> Any:
        """See Also: cupy.partition (a C-ordered copy, partitioned in place)"""
        found = _partitioned(a, kth, axis)
        if found is None:
            return None
        s, shape = found
        return _submit(s, "cupy.partition", (a, kth), {"axis": axis}, shape, a._dtype)

    @_pipelines(remote("cupy.interp"))
    def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None,
               period: Any = None) -> Any:
        """See Also: cupy.interp (CuPy's checks, then its kernel into a new float64, or
        complex128, array of ``x``'s shape)"""
        s = _arrays((x, xp, fp))
        if s is None or period is not None or len(xp._shape) != 1 or \
                len(fp._shape) != 1 or xp.size != fp.size or not xp.size or \
                not x._meta_ok or not x._flags & FLAG_C or \
                {x._dtype.kind, xp._dtype.kind} & {"b", "c"} or \
                not all(v is None or _casts_quietly(v, fp._dtype) for v in (left, right)):
            return None  # (CuPy's errors, and ``period``: the server's)
        dtype = numpy.dtype("D" if fp._dtype.kind == "c" else "d")
        return _submit(s, "cupy.interp", (x, xp, fp), {"left": left, "right": right},
                       x._shape, dtype)

    @_pipelines(remote("cupy.argpartition"))
    def argpartition(a: Any, kth: Any, axis: Any = -1) -> Any:
        """See Also: cupy.argpartition (int64 indices; the layout the server's: a
        reshape's view, rolled back)"""
        found = _partitioned(a, kth, axis)
        if found is None:
            return None  # (and an empty axis: CuPy's flat empty result)
        s, shape = found
        return _submit(s, "cupy.argpartition", (a, kth), {"axis": axis}, shape,
                       numpy.dtype(numpy.int64), laid_out=False)

    @_pipelines(remote("cupy.sort_complex"))
    def sort_complex(a: Any) -> Any:
        """See Also: cupy.sort_complex (a complex copy, sorted)"""
        s = _arrays((a,), c_contiguous=True)
        if s is None or not a._shape:
            return None
        dtype = numpy.dtype("F" if a._dtype.char in "bhBHF" else "D")
        return _submit(s, "cupy.sort_complex", (a,), {}, a._shape, dtype)

    def membership(name: str) -> Callable[..., Any]:
        """``isin`` (``element``'s shape) or ``in1d`` (flat): CuPy's search of a sorted
        copy, a bool array (its layout the server's: a reshape's view, at times)"""
        @_pipelines(remote(f"cupy.{name}"))
        def fn(element: Any, test_elements: Any, assume_unique: bool = False,
               invert: bool = False) -> Any:
            s = _arrays((element, test_elements))
            if s is None:
                return None
            shape = element._shape if name == "isin" else (element.size,)
            return _submit(s, f"cupy.{name}", (element, test_elements),
                           {"assume_unique": assume_unique, "invert": invert}, shape,
                           numpy.dtype(numpy.bool_), laid_out=False)
        fn.__name__, fn.__doc__ = name, f"See Also: cupy.{name}"
        return fn
    isin, in1d = membership("isin"), membership("in1d")

    def cov(a: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
            fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> Any:
        """See Also: cupy.cov (CuPy's Python, without weights: a mean removed in place,
        a product; weights go to the server)"""
        from . import array as array_
        if fweights is not None or aweights is not None or type(a) is not ndarray or \
                y is not None and type(y) is not ndarray:
            return remote("cupy.cov")(a, y, rowvar, bias, ddof, fweights, aweights,
                                      dtype=dtype)
        if ddof is not None and ddof != int(ddof):
            raise ValueError("ddof must be integer")
        if a.ndim > 2:
            raise ValueError("Input must be <= 2-d")
        if dtype is None:
            if y is None:
                dtype = numpy.promote_types(a.dtype, numpy.float64)
            else:
                if y.ndim > 2:
                    raise ValueError("y must be <= 2-d")
                dtype = functools.reduce(numpy.promote_types,
                                         (a.dtype, y.dtype, numpy.float64))
        X = array_(a, ndmin=2, dtype=dtype)
        if not rowvar and a.ndim != 1:
            X = X.T
        if X.shape[0] == 0:
            return array_([]).reshape(0, 0)
        if y is not None:
            y = array_(y, copy=None, ndmin=2, dtype=dtype)
            if not rowvar and y.shape[0] != 1:
                y = y.T
            X = concatenate((X, y), axis=0)
        if ddof is None:
            ddof = 0 if bias else 1
        # (CuPy's ``average(X, axis=1, returned=True)`` here serves only weights)
        fact = X.shape[1] - ddof
        if fact <= 0:
            warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
            fact = 0.0
        X -= X.mean(axis=1)[:, None]
        out = X.dot(X.T.conj()) / fact
        return out.squeeze()

    def _searched(s: Any, path: str, args: tuple, kwargs: dict, v: Any) -> Any:
        """``_searchsorted``'s result: ``cupy.zeros(v.shape, int64)`` written by a
        kernel (``v`` a proxy or a Python scalar)"""
        shape = v._shape if type(v) is ndarray else ()
        return _submit(s, path, args, kwargs, shape, numpy.dtype(numpy.int64))

    @_pipelines(remote("cupy.searchsorted"))
    def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
        """See Also: cupy.searchsorted (CuPy's checks, then a kernel: nothing to wait for)"""
        s = _arrays((a,) + ((v,) if type(v) is ndarray else ()) +
                    ((sorter,) if sorter is not None else ()))
        if s is None or len(a._shape) != 1 or \
                type(v) is not ndarray and type(v) not in (int, float, complex) or \
                sorter is not None and (sorter._dtype.kind not in "iu" or
                                        sorter.size != a.size):
            return None  # (CuPy's errors, from the server)
        return _searched(s, "cupy.searchsorted", (a, v),
                         {"side": side, "sorter": sorter}, v)

    @_pipelines(remote("cupy.digitize"))
    def digitize(x: Any, bins: Any, right: bool = False) -> Any:
        """See Also: cupy.digitize (``_searchsorted`` of ``x`` in ``bins``)"""
        s = _arrays((x, bins))
        if s is None or x._dtype.kind == "c" or len(bins._shape) != 1:
            return None  # (CuPy's errors, from the server)
        return _searched(s, "cupy.digitize", (x, bins), {"right": right}, x)

    def corrcoef(a: Any, y: Any = None, rowvar: bool = True, bias: Any = None,
                 ddof: Any = None, *, dtype: Any = None) -> Any:
        """See Also: cupy.corrcoef (CuPy's Python: ``cov`` scaled in place, clipped)"""
        from . import iscomplexobj, sqrt
        if bias is not None or ddof is not None:
            warnings.warn("bias and ddof have no effect and are deprecated",
                          DeprecationWarning)  # (CuPy's own stack level: its module)
        out = cov(a, y, rowvar, dtype=dtype)
        try:
            d = diag(out)
        except ValueError:
            return out / out
        stddev = sqrt(d.real)
        out /= stddev[:, None]
        out /= stddev[None, :]
        clip(out.real, -1, 1, out=out.real)
        if iscomplexobj(out):
            clip(out.imag, -1, 1, out=out.imag)
        return out

    def kron(a: Any, b: Any) -> Any:
        """See Also: cupy.kron (CuPy's Python: a broadcast product, reshaped)"""
        from . import multiply
        a_isnumber, b_isnumber = isinstance(a, numbers.Number), isinstance(b, numbers.Number)
        if a_isnumber and b_isnumber:
            return a * b
        if a_isnumber or b_isnumber:
            return multiply(a, b)
        if type(a) is not ndarray or type(b) is not ndarray:
            return remote("cupy.kron")(a, b)
        a_ndim, b_ndim = a.ndim, b.ndim
        if a_ndim == 0 or b_ndim == 0:
            return multiply(a, b)
        ndim = builtins.max(a_ndim, b_ndim)
        a_shape = (1,) * (ndim - a_ndim) + a.shape
        b_shape = (1,) * (ndim - b_ndim) + b.shape
        a_arr = expand_dims(a.reshape(a_shape), axis=tuple(range(1, ndim * 2, 2)))
        b_arr = expand_dims(b.reshape(b_shape), axis=tuple(range(0, ndim * 2, 2)))
        out_shape = tuple(s_a * s_b for s_a, s_b in zip(a_shape, b_shape))
        return multiply(a_arr, b_arr).reshape(out_shape)

    @_pipelines(remote("cupy.cross"))
    def cross(a: Any, b: Any, axisa: Any = -1, axisb: Any = -1, axisc: Any = -1,
              axis: Any = None) -> Any:
        """See Also: cupy.cross (of 3-vectors: shaped and typed here, laid out by the
        server, its result being a ``moveaxis`` view)"""
        if axis is not None:
            axisa, axisb, axisc = (axis,) * 3
        s = _arrays((a, b))
        if s is None or not a._shape or not b._shape:
            return None
        (ax_a,) = _axes(axisa, a.ndim)
        (ax_b,) = _axes(axisb, b.ndim)
        if a._shape[ax_a] != 3 or b._shape[ax_b] != 3:
            return None  # (2-vectors warn in CuPy; other sizes raise: the server's)
        rest_a = a._shape[:ax_a] + a._shape[ax_a + 1:]
        rest_b = b._shape[:ax_b] + b._shape[ax_b + 1:]
        shape = numpy.broadcast_shapes(rest_a, rest_b) + (3,)
        (ax_c,) = _axes(axisc, len(shape))
        shape = shape[:-1][:ax_c] + (3,) + shape[:-1][ax_c:]
        return _submit(s, "cupy.cross", (a, b),
                       {"axisa": axisa, "axisb": axisb, "axisc": axisc}, shape,
                       _promoted(a, b), laid_out=False)

    def ix_(*args: Any) -> Any:
        """See Also: cupy.ix_ (CuPy's Python: reshapes; a bool array's ``nonzero``
        waits, as in CuPy)"""
        from . import asarray, bool_, intp, issubdtype
        out = []
        nd = len(args)
        for k, new in enumerate(args):
            new = asarray(new)
            if new.ndim != 1:
                raise ValueError("Cross index must be 1 dimensional")
            if new.size == 0:
                new = new.astype(intp)
            if issubdtype(new.dtype, bool_):
                new, = new.nonzero()
            new = new.reshape((1,) * k + (new.size,) + (1,) * (nd - k - 1))
            out.append(new)
        return tuple(out)

    def require(a: Any, dtype: Any = None, requirements: Any = None) -> Any:
        """See Also: cupy.require (CuPy's Python: ``asanyarray``, or ``array`` in the
        order asked)"""
        from . import array as array_
        from . import asanyarray
        possible_flags = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C",
                          "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F",
                          "O": "OWNDATA", "OWNDATA": "OWNDATA"}
        if not requirements:
            try:
                return asanyarray(a, dtype=dtype)
            except TypeError:
                raise ValueError('Incorrect dtype "{}" provided'.format(dtype)) from None
        try:
            requirements = {possible_flags[x.upper()] for x in requirements}
        except KeyError:
            raise ValueError('Incorrect flag "{}" in requirements'.format(
                (set(requirements) - set(possible_flags.keys())).pop())) from None
        order = "A"
        if requirements >= {"C", "F"}:
            raise ValueError('Cannot specify both "C" and "F" order')
        elif "F" in requirements:
            order = "F"
            requirements.remove("F")
        elif "C" in requirements:
            order = "C"
            requirements.remove("C")
        copy = True if "OWNDATA" in requirements else None
        try:
            return array_(a, dtype=dtype, order=order, copy=copy, subok=False)
        except TypeError:
            raise ValueError('Incorrect dtype "{}" provided'.format(dtype)) from None

    def _convolved(path: str, a: Any, v: Any, mode: Any) -> Any:
        """``path(a, v, mode)`` as CuPy's ``_choose_conv_method`` runs it (``a`` and
        ``v`` 1-d here): integers or bools by ``_dot_convolve``'s reduction kernel, a
        new C-ordered array of ``result_type(a, v)`` (queued to the server); floats by
        ``_fft_convolve``, CuPy's Python run here (each FFT and the slice of the last
        one pipelined: the result is that slice). None: the server's call, and its
        error (an unknown mode, dtypes CuPy's FFTs take otherwise)."""
        s = _arrays((a, v))
        if s is None or mode not in ("full", "same", "valid"):
            return None
        if a._dtype.kind in "bui" or v._dtype.kind in "bui":
            n1, n2 = builtins.max(a.size, v.size), builtins.min(a.size, v.size)
            size = n1 + n2 - 1 if mode == "full" else n1 if mode == "same" else n1 - n2 + 1
            return _submit(s, path, (a, v), {"mode": mode}, (size,), _promoted(a, v))
        if a._dtype.char not in "fdFD" or v._dtype.char not in "fdFD":
            return None
        from ._poly import _fft_convolve
        if path == "cupy.correlate":
            v = v.conj()[::-1]
        return _fft_convolve(a, v, mode)

    @_pipelines(remote("cupy.convolve"))
    def convolve(a: Any, v: Any, mode: Any = "full") -> Any:
        """See Also: cupy.convolve (``a`` raveled; see ``_convolved``)"""
        if type(a) is not ndarray or type(v) is not ndarray or not a.size or \
                not v.size or v.ndim > 1:
            return None  # (CuPy's errors, from the server)
        if v.size > a.size:
            a, v = v, a
        if _arrays((a, v)) is None or mode not in ("full", "same", "valid"):
            return None  # (before the ravels: the server's call takes the originals)
        return _convolved("cupy.convolve", a.ravel(), v.ravel(), mode)

    @_pipelines(remote("cupy.correlate"))
    def correlate(a: Any, v: Any, mode: Any = "valid") -> Any:
        """See Also: cupy.correlate (1-d operands; see ``_convolved``)"""
        if type(a) is not ndarray or type(v) is not ndarray or not a.size or \
                not v.size or a.ndim != 1 or v.ndim != 1:
            return None
        return _convolved("cupy.correlate", a, v, mode)

    @_pipelines(remote("cupy.select"))
    def select(condlist: Any, choicelist: Any, default: Any = 0) -> Any:
        """See Also: cupy.select (into ``cupy.empty`` of the broadcast shape and the
        choices' ``result_type``; a Python scalar ``default`` its ``copyto`` takes
        quietly)"""
        if type(condlist) not in (list, tuple) or type(choicelist) not in (list, tuple) or \
                not condlist or len(condlist) != len(choicelist):
            return None
        s = _arrays((*condlist, *choicelist))
        if s is None or any(c._dtype != numpy.bool_ for c in condlist):
            return None
        dtype = numpy.result_type(*(c._dtype for c in choicelist))
        if not _weak_fits(default, dtype):
            return None  # (``copyto``'s same-kind casting refuses it: the server's error)
        shape = numpy.broadcast_shapes(*(a._shape for a in (*condlist, *choicelist)))
        return _submit(s, "cupy.select", (list(condlist), list(choicelist)),
                       {"default": default}, shape, dtype)

    def fill_diagonal(a: Any, val: Any, wrap: bool = False) -> None:
        """See Also: cupy.fill_diagonal (CuPy's checks here, then ``a.flat[::step] =
        val`` queued: a scalar that fits ``a``'s dtype, or a 0-d device array)"""
        if type(a) is not ndarray or not _quiet_fill(val, a):
            return remote("cupy.fill_diagonal")(a, val, wrap=wrap)
        if a.ndim < 2:
            raise ValueError("array must be at least 2-d")
        if a.ndim > 2 and len(set(a._shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        a._gs_session.submit("call", "cupy.fill_diagonal", (a, val), {"wrap": wrap},
                             description="cupy.fill_diagonal")
        return None

    def putmask(a: Any, mask: Any, values: Any) -> None:
        """See Also: cupy.putmask (CuPy's checks here, then queued: a scalar that fits
        ``a``'s dtype, or device values its dtype casts from safely)"""
        if type(a) is ndarray and type(mask) is ndarray and \
                mask._gs_session is a._gs_session and (
                    type(values) is ndarray and values._gs_session is a._gs_session or
                    _quiet_fill(values, a)):
            if a._shape != mask._shape:
                raise ValueError("mask and data must be the same size")
            if type(values) is ndarray and not numpy.can_cast(values._dtype, a._dtype):
                raise TypeError(f"Cannot cast array data from {values._dtype} to "
                                f"{a._dtype} according to the rule 'safe'")
            if type(values) is not ndarray or values.size:
                a._gs_session.submit("call", "cupy.putmask", (a, mask, values), {},
                                     description="cupy.putmask")
                return None
        return remote("cupy.putmask")(a, mask, values)

    @_pipelines(remote("cupy.delete"))
    def delete(arr: Any, indices: Any, axis: Any = None) -> Any:
        """See Also: cupy.delete (``compress`` of a mask, which waits in CuPy: pipelined
        where the count it waits for is known here, an int in range or a slice, the
        result a new C-ordered array)"""
        s = _arrays((arr,))
        if s is None or type(indices) is bool:
            return None
        kwargs = {} if axis is None else {"axis": axis}
        if axis is None:
            shape = (arr.size,)
            axis = 0
        else:
            (axis,) = _axes(axis, arr.ndim)
            shape = arr._shape
        size = shape[axis]
        if isinstance(indices, slice):
            gone = len(range(size)[indices])
        elif isinstance(indices, (int, numpy.integer)) and -size <= indices < size:
            gone = 1
        else:
            return None  # (index arrays, or an IndexError: the server's call)
        return _submit(s, "cupy.delete", (arr, indices), kwargs,
                       shape[:axis] + (size - gone,) + shape[axis + 1:], arr._dtype)

    @_pipelines(remote("cupy.histogram"))
    def histogram(x: Any, bins: Any = 10, range: Any = None, density: Any = False,
                  weights: Any = None) -> Any:
        """See Also: cupy.histogram (with a ``range`` of Python numbers and an int of
        bins nothing waits in CuPy: int64 counts and ``linspace`` edges of the type
        ``_get_bin_edges`` picks, each a new array; without ``range`` CuPy reads the
        data's extremes, and waits)"""
        s = _arrays((x,))
        if s is None or x._dtype.kind == "c" or weights is not None or \
                density is not False or type(bins) is not int or bins < 1 or \
                type(range) not in (tuple, list) or len(range) != 2:
            return None
        first, last = range
        if type(first) not in (int, float) or type(last) not in (int, float) or \
                not first <= last or not (math.isfinite(first) and math.isfinite(last)):
            return None
        if first == last:  # (``_get_outer_edges``: an empty range widened)
            first, last = first - 0.5, last + 0.5
        bin_type = numpy.result_type(first, last, x._dtype)
        if bin_type.kind in "iu":
            bin_type = numpy.result_type(bin_type, float)
        return _queue_results(s, "cupy.histogram", (x,), {"bins": bins, "range": range},
                              [((bins,), numpy.dtype(numpy.int64)), ((bins + 1,), bin_type)],
                              new_arrays=True)

    @_pipelines(remote("cupy.lexsort"))
    def lexsort(keys: Any) -> Any:
        """See Also: cupy.lexsort (Thrust's indices into a new array of the keys' length;
        a 1-d ``keys`` gives CuPy's 0-d ``array(0)``)"""
        s = _arrays((keys,))
        if s is None or keys.ndim not in (1, 2) or keys._dtype.char not in "?bBhHiIlLqQfd":
            return None
        return _submit(s, "cupy.lexsort", (keys,), {}, keys._shape[1:],
                       numpy.dtype(numpy.intp))

    #: ``_core.angle``'s loops (input, output), in the order CuPy tries them
    angle_loops = (("?", "d"), ("e", "e"), ("f", "f"), ("d", "d"), ("F", "f"), ("D", "d"))

    @_pipelines(remote("cupy.angle"))
    def angle(z: Any, deg: Any = False) -> Any:
        """See Also: cupy.angle (CuPy's ``_core.angle`` ufunc: a new C-ordered array of
        the first loop ``z``'s dtype casts to safely)"""
        s = _arrays((z,))
        if s is None or deg:
            return None
        for loop_in, loop_out in angle_loops:
            if numpy.can_cast(z._dtype, loop_in):
                return _submit(s, "cupy.angle", (z,), {}, z._shape, numpy.dtype(loop_out))
        return None

    return {fn.__name__: fn for fn in (matmul, dot, tensordot, outer, isclose, allclose,
                                       moveaxis, where, clip, expand_dims, broadcast_to,
                                       roll, pad, concatenate, stack, vstack, hstack, tile, repeat,
                                       flip, fliplr, flipud, triu, tril, arange, linspace,
                                       diag, eye, sort, argsort, cumsum, cumprod, take,
                                       swapaxes, diagonal, trace, around, round_, real, imag,
                                       identity, diff, ediff1d, gradient, piecewise,
                                       trapezoid,
                                       array_split,
                                       split, hsplit, vsplit,
                                       dsplit, einsum, broadcast_arrays, meshgrid, atleast_1d,
                                       atleast_2d, atleast_3d, nansum, nanprod, nanmean,
                                       nanmax, nanmin, nanvar, nanstd, nanargmax,
                                       nanargmin, count_nonzero, vdot, inner,
                                       take_along_axis, nan_to_num, tri, indices,
                                       logspace, append, resize, column_stack, dstack,
                                       rot90, put_along_axis, angle, put, median,
                                       nanmedian, nancumsum, nancumprod,
                                       percentile, quantile, average, partition,
                                       sort_complex, isin, in1d, cov, corrcoef,
                                       searchsorted, digitize, kron, cross, ix_,
                                       require, argpartition, interp, convolve,
                                       correlate, select, fill_diagonal, putmask,
                                       lexsort, delete, histogram)}


def norm(remote: Callable[..., Any]) -> Callable[..., Any]:
    """``cupy.linalg.norm``: the 2-norm of a whole float or complex array, and the
    vector 2-norm along one axis, pipeline."""
    @_pipelines(remote)
    def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
        """See Also: cupy.linalg.norm"""
        s = _arrays((x,))
        if s is None or ord not in (None, 2) or keepdims and axis is None:
            return None
        # (CuPy computes in float64 what is no float or complex)
        dtype = _real(x._dtype) if x._dtype.kind in "fc" else numpy.dtype(numpy.float64)
        if axis is None:
            if ord is not None and len(x._shape) != 1 or x._dtype.kind not in "fc" or \
                    len(x._shape) > 2:
                return None
            return _submit(s, "cupy.linalg.norm", (x,), {}, (), dtype)
        if type(axis) is not int:
            return None
        # one axis: CuPy's ``_norm_ord2`` reduction along it (its layout the server's)
        shape, _ = _infer.reduction_result("sum", x._shape, x._dtype,
                                           {"axis": axis, "keepdims": keepdims})
        return _submit(s, "cupy.linalg.norm", (x,),
                       {"ord": ord, "axis": axis, "keepdims": keepdims}, shape, dtype,
                       laid_out=False)
    return norm


def _linalg_ignores_errors() -> bool:
    """Whether ``cupyx.errstate(linalg=...)`` is CuPy's default, ``'ignore'``: then a
    singular matrix is no error, and a square system's result is known beforehand."""
    from ..cupyx import geterr
    return geterr()["linalg"] == "ignore"


def _square(a: Any) -> Any:
    """The session of ``a``, a proxy of a non-empty square float or complex matrix, of
    which CuPy's ``solve``/``inv`` run the 2-D path; else None."""
    s = _arrays((a,))
    if s is None or len(a._shape) != 2 or a._shape[0] != a._shape[1] or \
            not a._shape[0] or a._dtype.char not in "fdFD" or a._flags is None:
        return None
    return s


def _solve_stack(a: Any, b: Any) -> Any:
    """``cupy.linalg.solve`` of a non-empty stack of square float or complex matrices
    and a ``b`` of their dtype whose shape CuPy takes (``(M,)``, broadcast; or ``a``'s
    but its last axis), under ``linalg='ignore'``: no warning, no error; a result of
    ``b``'s (broadcast) shape, of a layout the server knows."""
    s = _stacked(a, True)
    if s is None or _arrays((a, b)) is None or a._dtype.char not in "fdFD" or \
            b._dtype != a._dtype or 0 in b._shape:
        return None
    if len(b._shape) == 1:
        if b._shape[0] != a._shape[-1]:
            return None
        shape = a._shape[:-1]
    elif b._shape[:-1] == a._shape[:-1] and len(b._shape) == len(a._shape):
        shape = b._shape
    else:
        return None  # (CuPy's ValueError, at the call)
    return _submit(s, "cupy.linalg.solve", (a, b), {}, shape, a._dtype, laid_out=False)


def solve(remote: Callable[..., Any]) -> Callable[..., Any]:
    """``cupy.linalg.solve`` of one square system pipelines under ``linalg='ignore'``."""
    @_pipelines(remote)
    def solve(a: Any, b: Any) -> Any:
        """See Also: cupy.linalg.solve (``lapack.gesv`` into an F-ordered copy of b; a
        stack: ``cublas.batched_gesv``, or ``gesv`` matrix by matrix, of a layout the
        server knows)"""
        if len(getattr(a, "_shape", ())) > 2:
            return _solve_stack(a, b)
        s = _square(a)
        if s is None or _arrays((a, b)) is None or b._dtype != a._dtype or \
                b._shape[:1] != a._shape[:1] or len(b._shape) > 2 or 0 in b._shape or \
                not _linalg_ignores_errors():
            return None
        strides = (_infer.f_strides if len(b._shape) == 2 else _infer.c_strides)(
            b._shape, b._dtype.itemsize)
        return _submit(s, "cupy.linalg.solve", (a, b), {}, b._shape, b._dtype,
                       strides=strides)
    return solve


def inv(remote: Callable[..., Any]) -> Callable[..., Any]:
    """``cupy.linalg.inv`` of one square matrix pipelines under ``linalg='ignore'``."""
    @_pipelines(remote)
    def inv(a: Any) -> Any:
        """See Also: cupy.linalg.inv (the identity solved in a's order: F-ordered for an
        F-ordered a, else C; a stack: ``_batched_inv``, of a layout the server knows)"""
        if len(getattr(a, "_shape", ())) > 2:
            s = _stacked(a, True)
            if s is None or a._dtype.char not in "fdFD":
                return None
            return _submit(s, "cupy.linalg.inv", (a,), {}, a._shape, a._dtype,
                           laid_out=False)
        s = _square(a)
        if s is None or not _linalg_ignores_errors():
            return None
        strides = (_infer.f_strides if a._flags & FLAG_F else _infer.c_strides)(
            a._shape, a._dtype.itemsize)
        return _submit(s, "cupy.linalg.inv", (a,), {}, a._shape, a._dtype, strides=strides)
    return inv


def matrix_power(remote: Callable[..., Any]) -> Callable[..., Any]:
    """``cupy.linalg.matrix_power`` of a positive power (or a negative one, through a
    pipelined ``inv``) as CuPy's Python computes it: products of pipelined ``matmul``."""
    def matrix_power(M: Any, n: Any) -> Any:
        """See Also: cupy.linalg.matrix_power"""
        from . import matmul
        if type(M) is not ndarray or M.ndim < 2 or M._shape[-1] != M._shape[-2] or \
                not isinstance(n, int) or n == 0:
            return remote(M, n)  # (CuPy's errors, and the stacked identity of n == 0)
        if n < 0:
            from .linalg import inv
            M = inv(M)
            n *= -1
        if n <= 3:
            if n == 1:
                return M
            if n == 2:
                return matmul(M, M)
            return matmul(matmul(M, M), M)
        result, z = None, None
        for b in numpy.binary_repr(n)[::-1]:
            z = M if z is None else matmul(z, z)
            if b == "1":
                result = z if result is None else matmul(result, z)
        return result
    return matrix_power


def _linalg_dtype(dtype: numpy.dtype) -> numpy.dtype | None:
    """CuPy's ``linalg_common_type`` result dtype of one array's (``_util.py``): floats
    and complex as they are, booleans and integers float64; None for float16 (CuPy's
    TypeError) and anything else."""
    if dtype.kind in "biu":
        return numpy.dtype(numpy.float64)
    return dtype if dtype.char in "fdFD" else None


def _stacked(a: Any, square: bool) -> Any:
    """The session of ``a``, a proxy of a non-empty (stack of) matrices, square if
    ``square``, under ``linalg='ignore'`` (so the data raise nothing); else None."""
    s = _arrays((a,))
    if s is None or len(a._shape) < 2 or 0 in a._shape or \
            square and a._shape[-1] != a._shape[-2] or _linalg_dtype(a._dtype) is None or \
            not _linalg_ignores_errors():
        return None
    return s


def _queue_results(s: Any, path: str, args: tuple, kwargs: dict, results: list,
                   new_arrays: bool = False) -> Any:
    """Queue ``path(*args, **kwargs)``, a call with one result of each ``(shape, dtype)``
    in ``results`` (a tuple of them when more than one); their layouts are the
    server's, or (``new_arrays``) each a new C-contiguous array."""
    ids = [s.new_id() for _ in results]
    s.submit("call", path, args, kwargs, out_id=ids if len(ids) > 1 else ids[0],
             description=path)
    made = [_fresh(s, hid, shape, dtype) if new_arrays else
            _new(s, hid, shape, dtype, None, None, None)
            for hid, (shape, dtype) in zip(ids, results)]
    return tuple(made) if len(made) > 1 else made[0]


def decompositions(remote: Callable[[str, str], Callable[..., Any]]) -> dict:
    """``cupy.linalg``'s ``det``, ``cholesky``, ``eigh``, ``eigvalsh``, ``qr`` and ``svd``
    of non-empty matrices under ``linalg='ignore'``: their results' shapes and dtypes
    follow from the argument's (CuPy's ``linalg_common_type``)."""
    def of_square(name: str, shape_of: Callable[[tuple], tuple]) -> Callable[..., Any]:
        """``det`` or ``cholesky``: one result, of the argument's linalg dtype."""
        def fn(a: Any) -> Any:
            s = _stacked(a, True)
            if s is None:
                return None
            return _queue_results(s, f"cupy.linalg.{name}", (a,), {},
                                  [(shape_of(a._shape), _linalg_dtype(a._dtype))])
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"See Also: cupy.linalg.{name}"
        return _pipelines(remote(f"cupy.linalg.{name}", name))(fn)
    det = of_square("det", lambda shape: shape[:-2])
    cholesky = of_square("cholesky", lambda shape: shape)

    def eigen(name: str, vectors: bool) -> Callable[..., Any]:
        def fn(a: Any, UPLO: str = "L") -> Any:
            s = _stacked(a, True)
            if s is None or UPLO not in ("L", "U"):
                return None
            dtype = _linalg_dtype(a._dtype)
            w = (a._shape[:-1], _real(dtype))
            return _queue_results(s, f"cupy.linalg.{name}", (a,), {"UPLO": UPLO},
                                  [w, (a._shape, dtype)] if vectors else [w])
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"See Also: cupy.linalg.{name}"
        return _pipelines(remote(f"cupy.linalg.{name}", name))(fn)

    @_pipelines(remote("cupy.linalg.qr", "qr"))
    def qr(a: Any, mode: str = "reduced") -> Any:
        """See Also: cupy.linalg.qr"""
        s = _stacked(a, False)
        if s is None or len(a._shape) != 2 or mode not in ("reduced", "complete", "r"):
            return None
        (m, n), dtype = a._shape, _linalg_dtype(a._dtype)
        k = min(m, n)
        r = ((m if mode == "complete" else k, n), dtype)
        if mode == "r":
            return _queue_results(s, "cupy.linalg.qr", (a,), {"mode": mode}, [r])
        return _queue_results(s, "cupy.linalg.qr", (a,), {"mode": mode},
                              [((m, m if mode == "complete" else k), dtype), r])

    @_pipelines(remote("cupy.linalg.svd", "svd"))
    def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
        """See Also: cupy.linalg.svd"""
        s = _stacked(a, False)
        if s is None or type(full_matrices) is not bool or type(compute_uv) is not bool:
            return None
        dtype = _linalg_dtype(a._dtype)
        batch, (m, n) = a._shape[:-2], a._shape[-2:]
        k = min(m, n)
        sv = (batch + (k,), _real(dtype))
        kwargs = {"full_matrices": full_matrices, "compute_uv": compute_uv}
        if not compute_uv:
            return _queue_results(s, "cupy.linalg.svd", (a,), kwargs, [sv])
        u = (batch + (m, m if full_matrices else k), dtype)
        vh = (batch + (n if full_matrices else k, n), dtype)
        return _queue_results(s, "cupy.linalg.svd", (a,), kwargs, [u, sv, vh])

    @_pipelines(remote("cupy.linalg.slogdet", "slogdet"))
    def slogdet(a: Any) -> Any:
        """See Also: cupy.linalg.slogdet (a sign of the linalg dtype, a logarithm of its
        real one, each of the stack's shape)"""
        s = _stacked(a, True)
        if s is None:
            return None
        dtype = _linalg_dtype(a._dtype)
        return _queue_results(s, "cupy.linalg.slogdet", (a,), {},
                              [(a._shape[:-2], dtype), (a._shape[:-2], _real(dtype))])

    @_pipelines(remote("cupy.linalg.pinv", "pinv"))
    def pinv(a: Any, rcond: Any = 1e-15) -> Any:
        """See Also: cupy.linalg.pinv (of a non-empty stack of matrices and a plain
        ``rcond``: the stack of their (n, m) pseudo-inverses, of the linalg dtype)"""
        s = _stacked(a, False)
        if s is None or type(rcond) not in (int, float):
            return None
        m, n = a._shape[-2:]
        return _queue_results(s, "cupy.linalg.pinv", (a,), {"rcond": rcond},
                              [(a._shape[:-2] + (n, m), _linalg_dtype(a._dtype))])

    @_pipelines(remote("cupy.linalg.matrix_rank", "matrix_rank"))
    def matrix_rank(M: Any, tol: Any = None) -> Any:
        """See Also: cupy.linalg.matrix_rank (of a non-empty stack of matrices, the
        count of singular values over ``tol``, an intp per matrix)"""
        s = _stacked(M, False)
        if s is None or tol is not None and type(tol) not in (int, float):
            return None
        return _queue_results(s, "cupy.linalg.matrix_rank", (M,), {"tol": tol},
                              [(M._shape[:-2], numpy.dtype(numpy.intp))])

    return {"det": det, "cholesky": cholesky, "eigh": eigen("eigh", True),
            "eigvalsh": eigen("eigvalsh", False), "qr": qr, "svd": svd,
            "slogdet": slogdet, "pinv": pinv, "matrix_rank": matrix_rank}


#: the 1-D transforms that pipeline, with the length of their output's last axis
_FFT_LENGTH: dict[str, Callable[[int], int]] = {
    "fft": lambda n: n, "ifft": lambda n: n,
    "rfft": lambda n: n // 2 + 1, "irfft": lambda n: n}
_SINGLE = frozenset("efF")  # float16, float32, complex64: CuPy transforms in single


def _fft_dtype(name: str, dtype: numpy.dtype) -> numpy.dtype:
    """The result dtype of CuPy's 1-D transform ``name`` (after its ``_fft.py``)."""
    if name == "irfft":  # computed in single or double, then cast as _compat_caster does
        return numpy.result_type(_real(dtype), 1.0)
    return numpy.dtype(numpy.complex64 if dtype.char in _SINGLE else numpy.complex128)


def _in_plan() -> bool:
    """Whether a cuFFT plan is entered (``with plan:``): a transform then waits, so
    that CuPy's checks of the plan against the array raise at the call."""
    from .cuda import cufft
    return cufft._current.get() is not None


def ffts(remote: Callable[[str, str], Callable[..., Any]]) -> dict:
    """``cupy.fft``'s 1-D transforms along the last axis pipeline: CuPy writes those into
    a new C-contiguous array (its plan's output), of any input (``_exec_fft`` copies a
    view or a non-C-contiguous array first). Along another axis CuPy returns a swapped
    view, and that waits for the server's layout."""
    def transform(name: str) -> Callable[..., Any]:
        length = _FFT_LENGTH[name]

        def fn(a: Any, n: Any = None, axis: Any = -1, norm: Any = None) -> Any:
            s = _arrays((a,))
            if s is None or _in_plan() or not a._shape or not a.size or \
                    (name == "rfft" and a._dtype.kind == "c") or \
                    norm not in (None, "backward", "ortho", "forward") or \
                    type(axis) is not int or axis not in (-1, len(a._shape) - 1):
                return None
            if n is None:  # irfft's default length: 2 (m - 1), for m complex inputs
                n = 2 * (a._shape[-1] - 1) if name == "irfft" else a._shape[-1]
            elif type(n) is not int:
                return None
            if n < 1 or length(n) < 1:
                return None  # CuPy's "Invalid number of FFT data points", at the call
            return _submit(s, f"cupy.fft.{name}", (a,), {"n": n, "norm": norm},
                           a._shape[:-1] + (length(n),), _fft_dtype(name, a._dtype))
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"See Also: cupy.fft.{name}"
        return _pipelines(remote(f"cupy.fft.{name}", name))(fn)

    def transform_nd(name: str) -> Callable[..., Any]:
        """``fft2``/``fftn`` and kin over their default axes, 2 or 3 of them: CuPy's
        n-d plan (``_fftn``, ``enable_nd_planning`` on, as by default) writes a
        C-contiguous input's transform into a new C-contiguous array."""
        two = name.endswith("2")
        r2c, c2r = name.startswith("rfft"), name.startswith("irfft")

        def fn(a: Any, s: Any = None, axes: Any = (-2, -1) if two else None,
               norm: Any = None) -> Any:
            sess = _arrays((a,), c_contiguous=True)
            if sess is None or _in_plan() or not a.size or \
                    norm not in (None, "backward", "ortho", "forward") or \
                    axes != ((-2, -1) if two else None) or (r2c and a._dtype.kind == "c"):
                return None
            ndim = len(a._shape)
            k = 2 if two else ndim
            if not 2 <= k <= 3 or ndim < k:
                return None
            lengths = list(a._shape[-k:])
            if c2r:
                lengths[-1] = 2 * (lengths[-1] - 1)
            if s is not None:
                if not isinstance(s, (tuple, list)) or len(s) != k or \
                        not all(type(n) is int for n in s):
                    return None
                lengths = list(s)
            if r2c:
                lengths[-1] = lengths[-1] // 2 + 1 if lengths[-1] >= 1 else 0
            if min(lengths) < 1:
                return None  # CuPy's "Invalid number of FFT data points", at the call
            single = a._dtype.char in _SINGLE
            dtype = numpy.dtype((numpy.float32 if single else numpy.float64) if c2r else
                                (numpy.complex64 if single else numpy.complex128))
            return _submit(sess, f"cupy.fft.{name}", (a,), {"s": s, "norm": norm},
                           a._shape[:-k] + tuple(lengths), dtype)
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"See Also: cupy.fft.{name}"
        return _pipelines(remote(f"cupy.fft.{name}", name))(fn)
    # CuPy's Python (``cupy/fft/_fft.py``): calls that pipeline, made here
    def fftfreq(n: Any, d: Any = 1.0) -> Any:
        """See Also: cupy.fft.fftfreq"""
        from .. import cupy as cp_
        return cp_.hstack((cp_.arange(0, (n - 1) // 2 + 1, dtype=numpy.float64),
                           cp_.arange(-(n // 2), 0, dtype=numpy.float64))) / (n * d)

    def rfftfreq(n: Any, d: Any = 1.0) -> Any:
        """See Also: cupy.fft.rfftfreq"""
        from .. import cupy as cp_
        return cp_.arange(0, n // 2 + 1, dtype=numpy.float64) / (n * d)

    def shifting(name: str, sign: int) -> Callable[..., Any]:
        def shift(x: Any, axes: Any = None) -> Any:
            from .. import cupy as cp_
            x = cp_.asarray(x)
            if axes is None:
                axes = list(range(x.ndim))
            elif isinstance(axes, int):
                axes = (axes,)
            return cp_.roll(x, [sign * (x.shape[axis] // 2) for axis in axes], axes)
        shift.__name__ = shift.__qualname__ = name
        shift.__doc__ = f"See Also: cupy.fft.{name}"
        return shift

    return {**{name: transform(name) for name in _FFT_LENGTH},
            **{name: transform_nd(name) for name in _FFT_ND},
            "fftfreq": fftfreq, "rfftfreq": rfftfreq, "fftshift": shifting("fftshift", 1),
            "ifftshift": shifting("ifftshift", -1)}


#: the n-d transforms that pipeline (over their default axes)
_FFT_ND = ("fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn")
