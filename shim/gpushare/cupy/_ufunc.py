"""``cupy.ufunc`` on the client.

A call whose result shape and dtype follow from its operands (NumPy's own type
resolution, ``ufunc.resolve_dtypes``, plus broadcasting) is pipelined; anything
else waits for the server, which raises the error CuPy would.
"""
from __future__ import annotations

import operator
import os
import warnings
import weakref
from typing import Any

import numpy

from .. import ufunc_loops
from ..namespace import module_names
from . import _infer
from ._ndarray import (FLAG_C, FLAG_F, FLAG_OWN, _fused_into, _new, _session_of, given,
                       ndarray, session)

try:  # the operators' fast path in C (shim/gpushare/_accel.c), where it was built
    from .. import _accel
except ImportError:  # pragma: no cover - a build without a C compiler
    _accel = None
if os.environ.get("GPUSHARE_ACCEL", "1") == "0":
    _accel = None

_new_proxy = object.__new__
_weakref = weakref.ref
_SCALARS = (int, float, complex, bool)
_EXACT_SCALARS = frozenset(_SCALARS)
#: the scalars the operators' fast path takes (those a record carries as they are;
#: ints only where they fit the type NEP 50 casts them to: ``ufunc._fast_entry``)
_FAST_SCALARS = frozenset((int, float, bool))
#: (shape, itemsize) -> (strides, flags) of a new C-contiguous array
_C_LAYOUTS: dict = {}


def _c_scalars(args: tuple) -> tuple | None:
    """The Python scalars ``args`` as the NumPy scalars CuPy's ``CScalar`` makes of them
    when no array comes with them (no weak promotion: ``_check_should_use_weak_scalar``):
    bool, int64 (uint64 from 2**63 up), float64, complex128; None for an int beyond 64
    bits (the server's call, and its OverflowError, at once)."""
    if any(type(a) is int and not -(1 << 63) <= a < 1 << 64 for a in args):
        return None
    return tuple(ufunc_loops.scalar_dtype(a).type(a) for a in args)


#: (shape, shape) -> their broadcast shape, or None (the general path raises)
_BROADCASTS: dict = {}
_I64 = (-(1 << 63), (1 << 63) - 1)


def _broadcast(a: tuple, b: tuple) -> tuple | None:
    shape = _BROADCASTS.get((a, b), False)
    if shape is False:
        if len(_BROADCASTS) >= 4096:
            _BROADCASTS.clear()
        try:
            shape = numpy.broadcast_shapes(a, b)
        except ValueError:
            shape = None
        _BROADCASTS[a, b] = shape
    return shape


#: (dtype, dtype) -> whether the first casts to the second under ``same_kind``
_SAME_KIND: dict = {}


def _same_kind(a: numpy.dtype, b: numpy.dtype) -> bool:
    ok = _SAME_KIND.get((a, b))
    if ok is None:
        ok = _SAME_KIND[a, b] = bool(numpy.can_cast(a, b, "same_kind"))
    return ok


#: results under this many bytes never wait (``Session.alloc_wait_bytes`` is never less;
#: ``_accel.c`` has the same figure)
_SMALL = 1 << 16


def _big(s: Any, shape: tuple, itemsize: int) -> bool:
    """Whether a new result of ``shape`` is an allocation that waits for the server."""
    n = itemsize
    for d in shape:
        n *= d
    return n >= _SMALL and n >= s.alloc_wait_bytes


def _made(s: Any, hid: int, shape: tuple, fast: tuple) -> ndarray:
    """The proxy of a fast path's result (``ufunc._fast1``, ``_fast2``): a new
    C-contiguous array."""
    r = _new_proxy(ndarray)
    r._gs_id = hid
    r._gs_session = s
    r._shape = shape
    r._dtype = fast[0]
    r._strides, r._flags = _C_LAYOUTS.get((shape, fast[1])) or _c_layout(shape, fast[1])
    r._base = None
    r._meta_ok = True
    s.proxies.refs[hid] = _weakref(r)  # (its release drops the entry)
    return r


def _c_layout(shape: tuple, itemsize: int) -> tuple:
    layout = _C_LAYOUTS.get((shape, itemsize))
    if layout is None:
        if len(_C_LAYOUTS) >= 4096:
            _C_LAYOUTS.clear()
        flags = FLAG_C | FLAG_OWN | (FLAG_F if len(shape) <= 1 or 0 in shape or
                                      sum(n > 1 for n in shape) <= 1 else 0)
        layout = _C_LAYOUTS[shape, itemsize] = (_infer.c_strides(shape, itemsize), flags)
    return layout


def _is_proxy(value: Any) -> bool:
    return isinstance(value, ndarray)


def is_operand(value: Any) -> bool:
    """Whether an operator should try ``value`` (else it returns NotImplemented)."""
    if isinstance(value, (ndarray, numpy.ndarray, numpy.generic) + _SCALARS):
        return True
    return getattr(value, "__array_priority__", -1) <= ndarray.__array_priority__ and \
        not hasattr(value, "__cupy_override_reduction_kernel__")


_MISSING = object()
_PLAIN = (ndarray, numpy.ndarray, numpy.generic) + _SCALARS


def numpy_dispatch(x: Any, y: Any, name: str) -> Any:
    """CuPy's operator with an operand ``y`` of another type that takes part in NumPy's
    ufunc protocol (``_should_use_rop``, NEP 13): ``NotImplemented`` when ``y`` opts out
    (``__array_ufunc__ = None``: Python then runs ``y``'s reflected method), else NumPy's
    ufunc ``name``, which lets each operand's ``__array_ufunc__`` answer. ``_MISSING``
    when ``y`` is a plain operand or has no ``__array_ufunc__`` (the caller goes on)."""
    if isinstance(y, _PLAIN):
        return _MISSING
    handler = getattr(y, "__array_ufunc__", _MISSING)
    if handler is _MISSING:
        return _MISSING
    if handler is None:
        return NotImplemented
    return getattr(numpy, name)(x, y)


def is_array_like_operand(value: Any) -> bool:
    """Whether ``value`` can be an operand of a ufunc at all."""
    return isinstance(value, (ndarray, numpy.ndarray, numpy.generic, list, tuple) + _SCALARS) \
        or hasattr(value, "__cupy_get_ndarray__")


def _check_operand(value: Any) -> None:
    if isinstance(value, ndarray) or type(value) in _SCALARS or isinstance(value, numpy.generic):
        return
    raise TypeError(f"Unsupported type {type(value)}")


def _plain_scalar(value: Any) -> Any:
    for t in (bool, int, float, complex):
        if isinstance(value, t) and not isinstance(value, numpy.generic):
            return t(value)
    return value


#: the keywords CuPy's ``ufunc.__call__`` takes (``_kernel.pyx``: it pops these and
#: raises ``TypeError('Wrong arguments %s' % kwargs)`` for any other)
_CALL_KWARGS = frozenset(("out", "_where", "dtype", "casting"))


def _check_kwargs(kwargs: dict) -> None:
    """CuPy's refusal of a ufunc call's keywords other than ``_CALL_KWARGS`` (NumPy's
    ``where=``, ``order=``, ``subok=``, ``signature=``...), before anything is sent;
    ``dtype`` is read first, as CuPy's ``get_dtype`` does."""
    if _CALL_KWARGS.issuperset(kwargs):
        return
    if kwargs.get("dtype") is not None:
        numpy.dtype(kwargs["dtype"])
    rest = {k: v for k, v in kwargs.items() if k not in _CALL_KWARGS}
    raise TypeError("Wrong arguments %s" % rest)


class ufunc:
    """Universal function running on the server.

    See Also
    --------
    cupy.ufunc, numpy.ufunc
    """

    def __init__(self, name: str, module: str = "cupy", numpy_ufunc: Any = None,
                 loops: Any = None) -> None:
        # CuPy's ufuncs of ``cupy`` are named by their kernels (``cupy_add``: the name
        # their repr and errors give); ``_name`` is NumPy's, which names the calls
        self.__name__ = self.name = f"cupy_{name}" if module == "cupy" else name
        self._name = name
        self._path = f"{module}.{name}"
        self._description = self._path  # the name errors of its pipelined calls give
        # (NumPy's namesake infers the result's layout; ``numpy_ufunc=False``: none does)
        self._np = numpy_ufunc if numpy_ufunc is not None else getattr(numpy, name, None)
        if not isinstance(self._np, numpy.ufunc):
            self._np = None
        #: what infers its calls' result types: NumPy's namesake, or CuPy's own loops
        #: (``loops``: a ``ufunc_loops.Loops``, for ``cupyx.scipy.special``'s)
        self._rule = self._np if self._np is not None else loops
        if loops is not None:
            self.__name__ = self.name = loops.__name__  # (its kernel's)
        rule = self._rule
        self.nin = rule.nin if rule is not None else None
        self.nout = rule.nout if rule is not None else None
        self.nargs = rule.nargs if rule is not None else None
        self.__doc__ = f"Runs ``{self._path}`` on the server.\n\nSee Also\n--------\n{self._path}"

        #: operand kinds (dtypes, or Python scalar types) -> the result's dtype and its
        #: itemsize, or False where the operators' fast path leaves the call to the
        #: general one
        self._fast: dict = {}
        if _accel is not None and rule is not None and self.nout == 1 and \
                self.nin in (1, 2):
            # the same three paths in C (each falls back on the general path as these
            # do; ``_accel.enable(False)`` makes them always fall back)
            if self.nin == 1:
                self._fast1 = _accel.Op(self, 1, ufunc._fast1.__get__(self))
            else:
                self._fast2 = _accel.Op(self, 2, ufunc._fast2.__get__(self))
                self._fast_into = _accel.Op(self, 3, ufunc._fast_into.__get__(self))

    def __reduce__(self) -> Any:
        # by reference, as functions pickle: the ufunc of that name in its module
        # (``multiprocessing`` passes callables so; its state holds C objects)
        module, _, name = self._path.rpartition(".")
        return _exported, (f"gpushare.{module}", name)

    def __repr__(self) -> str:
        return f"<ufunc '{self.name}'>"

    def _fast1(self, a: Any) -> Any:
        """``self(a)`` for a proxy: as ``_fast2``."""
        if type(a) is not ndarray:
            return None
        fast = self._fast.get(a._dtype)
        if fast is None:
            fast = self._fast[a._dtype] = self._fast_entry((a,))
        if fast is False:
            return None
        s = a._gs_session
        if _big(s, a._shape, fast[1]):
            return None  # (the general path waits for it: see ``_ndarray._new``)
        hid = s.fast_op(4, self._path, a._gs_id, None)
        return _made(s, hid, a._shape, fast) if hid else None

    def _fast2(self, a: Any, b: Any) -> Any:
        """``self(a, b)`` when both are proxies of one session (broadcast), or one is
        a proxy and the other a plain Python scalar: the operators' path, queued with
        no checks beyond these (``Session.fast_op``). None where the general path must
        decide (it then decides everything again, errors included)."""
        ka, kb = type(a), type(b)
        if ka is ndarray:
            s, shape = a._gs_session, a._shape
            if kb is ndarray:
                if b._gs_session is not s:
                    return None
                if b._shape != shape:
                    shape = _broadcast(shape, b._shape)
                    if shape is None:
                        return None
                key, kinds, x, y = (a._dtype, b._dtype), 3, a._gs_id, b._gs_id
            elif kb in _FAST_SCALARS:
                key, kinds, x, y = (a._dtype, kb), 1, a._gs_id, b
            else:
                return None
        elif kb is ndarray and ka in _FAST_SCALARS:
            s, shape = b._gs_session, b._shape
            key, kinds, x, y = (ka, b._dtype), 2, a, b._gs_id
        else:
            return None
        fast = self._fast.get(key)
        if fast is None:
            fast = self._fast[key] = self._fast_entry((a, b))
        if fast is False:
            return None
        if kinds != 3:  # a Python int must fit where NEP 50 casts it (else it raises)
            value = y if kinds == 1 else x
            if type(value) is int and not fast[2] <= value <= fast[3]:
                return None
        if _big(s, shape, fast[1]):
            return None
        hid = s.fast_op(kinds, self._path, x, y)
        return _made(s, hid, shape, fast) if hid else None

    def _fast_into(self, a: Any, b: Any) -> Any:
        """``self(a, b, out=a)`` (``a += b``...) when ``a`` is a proxy and ``b`` a proxy of
        its session that broadcasts to ``a``'s shape, or a plain Python scalar, and the
        result casts to ``a``'s dtype (``same_kind``): ``a``, as ``_fast2``; else None."""
        if type(a) is not ndarray:
            return None
        kb, s, shape = type(b), a._gs_session, a._shape
        if kb is ndarray:
            if b._gs_session is not s or (b._shape != shape and
                                          _broadcast(shape, b._shape) != shape):
                return None
            key, kinds, y = (a._dtype, b._dtype), 11, b._gs_id
        elif kb in _FAST_SCALARS:
            key, kinds, y = (a._dtype, kb), 9, b
        else:
            return None
        fast = self._fast.get(key)
        if fast is None:
            fast = self._fast[key] = self._fast_entry((a, b))
        if fast is False or kb is int and not fast[2] <= b <= fast[3] or \
                not _same_kind(fast[0], a._dtype):
            return None
        return a if s.fast_op(kinds, self._path, a._gs_id, y, a._gs_id) else None

    def _fast_entry(self, operands: tuple) -> Any:
        """The fast path's entry for these kinds of operands (dtypes, Python scalar
        types): the result's dtype, its itemsize, and the Python ints an int operand may
        be (the bounds of the integer type NEP 50 casts it to; int64's else, what a
        record carries); False where the general path decides (no loop, several
        outputs...)."""
        if self._rule is None or self.nout != 1 or len(operands) != self.nin:
            return False
        try:
            kinds = tuple(_infer.operand_dtype(v, _is_proxy) for v in operands)
        except _infer.CannotInfer:
            return False
        resolved = _infer.resolve(self._rule, kinds, None)
        if resolved is None:
            return False
        lo, hi = _I64
        for value, dt in zip(operands, resolved):
            if type(value) is int and dt.kind in "iu":
                info = numpy.iinfo(dt)
                lo, hi = max(lo, int(info.min)), min(hi, int(info.max))
        out = resolved[-1]
        return out, out.itemsize, lo, hi

    @property
    def types(self) -> list:
        """The loops, as CuPy lists them: NumPy's, less the dtypes CuPy lacks
        ((c)longdouble, datetime, timedelta, object)."""
        if self._np is None:
            return list(self._rule.types) if self._rule is not None else []
        return list(dict.fromkeys(sig for sig in self._np.types
                                  if not any(t in sig for t in "GgMmO")))

    def _split_outputs(self, args: tuple, kwargs: dict) -> tuple:
        """Move positional outputs into ``out=`` and normalise ``out`` (a 1-tuple for
        one output, ``None`` entries meaning "allocate"), with the refusals and words
        of CuPy's ``ufunc.__call__`` (``_kernel.pyx``)."""
        if len(args) > self.nin:
            if kwargs.get("out") is not None:
                raise ValueError("Cannot specify 'out' as both a positional and keyword "
                                 "argument")
            kwargs = dict(kwargs)
            outs = args[self.nin:]
            kwargs["out"] = outs + (None,) * (self.nout - len(outs))  # CuPy pads
            args = args[:self.nin]
        out = kwargs["out"] if "out" in kwargs else None
        if out is not None and not isinstance(out, tuple) and self.nout != 1:
            raise ValueError("'out' must be a tuple of arrays")
        if isinstance(out, tuple):
            if len(out) != self.nout:
                raise ValueError("The 'out' tuple must have exactly one entry per "
                                 "ufunc output")
            kwargs = dict(kwargs)
            if all(o is None for o in out):
                del kwargs["out"]
            elif len(out) == 1:
                kwargs["out"] = out[0]
        elif "out" in kwargs and out is None:
            kwargs = dict(kwargs)
            del kwargs["out"]
        return args, kwargs

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == self.nin:
            if not kwargs:
                r = self._fast2(*args) if self.nin == 2 else \
                    self._fast1(*args) if self.nin == 1 else None
                if r is not None:
                    return r
            elif self.nin == 2 and len(kwargs) == 1 and kwargs.get("out") is args[0]:
                r = self._fast_into(*args)  # (``cupy.add(a, b, out=a)``)
                if r is not None:
                    return r
        if kwargs:
            _check_kwargs(kwargs)
        if self.nin is not None and not self.nin <= len(args) <= self.nargs:
            # (CuPy's check, after its keywords')
            raise TypeError(f"Wrong number of arguments for {self.name!r}. It must be "
                            f"either {self.nin} or {self.nargs} (with outputs), but given "
                            f"{len(args)}.")
        if not kwargs and len(args) == self.nin:
            # the common call (an operator): proxies and Python scalars, no keywords
            s = None
            for a in args:
                kind = type(a)
                if kind is ndarray:
                    s = s or a._gs_session
                elif kind not in _EXACT_SCALARS:
                    break
            else:
                if s is not None:
                    try:
                        shape, dtypes = _infer.ufunc_result(self._rule, args, None,
                                                            _is_proxy)
                    except _infer.CannotInfer:
                        pass
                    else:
                        return self._pipelined(s, args, kwargs, shape, dtypes)
                else:  # only Python scalars (``cupy.log(2 * numpy.pi)``): a 0-d array
                    strong = _c_scalars(args)
                    if strong is not None:
                        try:
                            shape, dtypes = _infer.ufunc_result(self._rule, strong, None,
                                                                _is_proxy)
                        except _infer.CannotInfer:
                            pass
                        else:
                            return self._pipelined(session(), args, kwargs, shape, dtypes)
        if self.nin is not None and (len(args) > self.nin or "out" in kwargs):
            args, kwargs = self._split_outputs(args, kwargs)
        if any(type(a) not in _EXACT_SCALARS and not isinstance(a, ndarray) and (
                hasattr(a, "__cupy_get_ndarray__") or hasattr(a, "__cuda_array_interface__"))
               for a in args):
            from . import _array_like  # CuPy's array protocols (a gpushare address only)
            args = tuple(_array_like(a) for a in args)
        try:
            for a in args:
                _check_operand(a)
        except TypeError:  # subclasses of Python scalars count as their values
            args = tuple(_plain_scalar(a) for a in args)
            for a in args:
                _check_operand(a)
        s = None
        for a in args:
            s = _session_of(a)
            if s is not None:
                break
        out = kwargs.get("out")
        for o in out if isinstance(out, tuple) else (out,):
            # (CuPy's ``_preprocess_optional_args``: an output that is no array must
            # be a scalar, which ``_get_out_args_from_optionals`` then refuses)
            if o is not None and not isinstance(o, ndarray):
                _check_operand(_plain_scalar(o))
                raise TypeError("Output arguments type must be cupy.ndarray")
            if o is not None and self.nin is not None:
                _fused_into(args[:self.nin], o)  # (inside cupy.fuse: its tracers' words)
        try:
            if s is None or self._rule is None or len(args) != self.nin:
                raise _infer.CannotInfer
            if set(kwargs) - {"out", "dtype"}:
                raise _infer.CannotInfer
            shape, dtypes = _infer.ufunc_result(self._rule, args, kwargs.get("dtype"),
                                                _is_proxy)
            if out is not None:
                outs = out if isinstance(out, tuple) else (out,)
                if len(outs) != self.nout or any(not isinstance(o, ndarray) for o in outs):
                    raise _infer.CannotInfer
                for o, dt in zip(outs, dtypes):
                    if o.shape != tuple(shape) or not numpy.can_cast(dt, o.dtype, "same_kind"):
                        raise _infer.CannotInfer
                s.submit("call", self._path, args, kwargs, description=f"cupy.{self._name}")
                return out
        except _infer.CannotInfer:
            return (s or session()).call("call", self._path, args, kwargs)
        return self._pipelined(s, args, kwargs, shape, dtypes)

    def _pipelined(self, s: Any, args: tuple, kwargs: dict, shape: tuple,
                   dtypes: list) -> Any:
        """Queue the call; its results are new C-contiguous arrays of ``shape``."""
        ids = [s.new_id() for _ in dtypes]
        s.submit("call", self._path, args, kwargs, out_id=ids if len(ids) > 1 else ids[0],
                 description=self._description)
        results = []
        for hid, dt in zip(ids, dtypes):
            strides, flags = _c_layout(tuple(shape), dt.itemsize)
            results.append(_new(s, hid, shape, dt, strides, flags, None))
        return results[0] if len(results) == 1 else tuple(results)

    def _method(self, method: str, *args: Any, **kwargs: Any) -> Any:
        for a in args[:1]:
            _check_operand(a)
        s = next((x for x in (_session_of(a) for a in args) if x is not None), None) or session()
        return s.call("ufunc_method", self._path, (method, *args), kwargs)

    def reduce(self, array: Any, axis: Any = 0, dtype: Any = None, out: Any = None,
               keepdims: bool = False) -> Any:
        """CuPy's ``ufunc.reduce``: ``add``'s is ``array.sum``, ``multiply``'s
        ``array.prod`` (``_kernel.pyx``); the others are not supported.

        See Also
        --------
        cupy.ufunc.reduce
        """
        if self._path in ("cupy.add", "cupy.multiply"):
            method = "sum" if self._path == "cupy.add" else "prod"
            if type(array) is ndarray:  # (keywords: the proxy's method pipelines)
                return getattr(array, method)(**given(dict(axis=axis, dtype=dtype, out=out,
                                                           keepdims=keepdims)))
            return getattr(array, method)(axis, dtype, out, keepdims)
        raise NotImplementedError(f"`{_cupy_ufunc_name(self)}.reduce` is not supported yet")

    def accumulate(self, array: Any, axis: Any = 0, dtype: Any = None,
                   out: Any = None) -> Any:
        """CuPy's ``ufunc.accumulate``: ``add``'s is ``array.cumsum``, ``multiply``'s
        ``array.cumprod``; the others are not supported.

        See Also
        --------
        cupy.ufunc.accumulate
        """
        if self._path == "cupy.add":
            return array.cumsum(axis, dtype, out)
        if self._path == "cupy.multiply":
            return array.cumprod(axis, dtype, out)
        raise NotImplementedError(
            f"`{_cupy_ufunc_name(self)}.accumulate` is not supported yet")

    def reduceat(self, array: Any, indices: Any, axis: Any = 0, dtype: Any = None,
                 out: Any = None) -> Any:
        """CuPy's ``ufunc.reduceat``: ``add``'s only.

        See Also
        --------
        cupy.ufunc.reduceat
        """
        if self._path != "cupy.add":
            raise NotImplementedError(
                f"`{_cupy_ufunc_name(self)}.reduceat` is not supported yet")
        if not isinstance(array, ndarray):  # (CuPy calls ``array._add_reduceat``)
            raise AttributeError(
                f"'{type(array).__name__}' object has no attribute '_add_reduceat'")
        return _add_reduceat(array, indices, axis, dtype, out)

    def outer(self, A: Any, B: Any, **kwargs: Any) -> Any:  # noqa: N803 - CuPy's names
        """CuPy's ``ufunc.outer`` (``_kernel.pyx``): both operands copied to the device
        (``core.array``: host arrays, lists and scalars too), reshaped so they
        broadcast against each other, then the ufunc's own call with ``kwargs``.

        See Also
        --------
        cupy.ufunc.outer
        """
        from . import array
        A, B = array(A), array(B)
        ndim_a, ndim_b = A.ndim, B.ndim
        A = A.reshape(A.shape + (1,) * ndim_b)
        B = B.reshape((1,) * ndim_a + B.shape)
        return self(A, B, **kwargs)

    def at(self, a: Any, indices: Any, b: Any = None) -> None:
        """CuPy's ``ufunc.at``: the ufuncs with a scatter kernel only; host arrays
        among the indices and values are copied to the device first (CuPy's
        ``core.array`` on them), and an integer-array index takes CuPy's atomic
        types only.

        See Also
        --------
        cupy.ufunc.at
        """
        op = _SCATTER_OPS.get(self._path)
        if op is None:
            raise NotImplementedError(f"`{_cupy_ufunc_name(self)}.at` is not supported yet")
        if op == "add" and add_at_queued(a, indices, b):
            return None
        if not isinstance(a, ndarray):
            raise AttributeError(f"'{type(a).__name__}' object has no attribute '_scatter_op'")
        indices, adv = _scatter_indices(indices)
        if isinstance(b, numpy.ndarray):
            from . import asarray
            b = asarray(b)
        types = _SCATTER_TYPES[op] if adv else None
        if types is not None and a.dtype.char not in types[0]:
            raise TypeError(f"cupy.{self._name}.at only supports {types[1]} as data type")
        return self._method("at", a, indices, b)


#: the dtypes CuPy's atomic add takes (``_routines_indexing.pyx: _scatter_op_single``)
_ATOMIC_ADD = frozenset(numpy.dtype(t).char for t in (
    numpy.int32, numpy.int64, numpy.float16, numpy.float32, numpy.float64, numpy.uint32,
    numpy.uint64))


def add_at_queued(a: Any, indices: Any, value: Any, warn: bool = False) -> bool:
    """Queue ``cupy.add.at(a, indices, value)`` (``a._scatter_op(indices, value,
    'add')``) where CuPy's call cannot fail: one 1-d integer index array along the first
    axis of a non-empty ``a`` of a dtype its atomic add takes, and a value that is a
    number of ``a``'s kind, or an array of ``a``'s dtype that broadcasts to
    ``indices.shape + a.shape[1:]``; the indices wrap (CuPy's kernel takes them modulo
    the axis' length). ``warn``: ``ndarray.scatter_add``'s deprecation first, here
    (``cupyx.scatter_add``). Whether it was queued."""
    if type(a) is not ndarray or type(indices) is not ndarray or \
            indices._gs_session is not a._gs_session or a._dtype.char not in _ATOMIC_ADD \
            or not a._shape or not a._shape[0] or len(indices._shape) != 1 or \
            indices._dtype.kind not in "iu":
        return False
    if type(value) is ndarray:
        if value._gs_session is not a._gs_session or value._dtype != a._dtype:
            return False
        target = indices._shape + a._shape[1:]
        try:
            if numpy.broadcast_shapes(value._shape, target) != target:
                return False
        except ValueError:
            return False
    elif type(value) is int:
        if a._dtype.kind in "iu" and not (numpy.iinfo(a._dtype).min <= value <=
                                          numpy.iinfo(a._dtype).max):
            return False  # (NumPy's OverflowError, at the call)
    elif type(value) is not float or a._dtype.kind != "f":
        return False
    if warn:  # (CuPy's ``ndarray.scatter_add``, core.pyx)
        warnings.warn("`ndarray.scatter_add` is deprecated. Please use `cupy.add.at` "
                      "instead.", DeprecationWarning, stacklevel=3)
    a._gs_session.submit("ufunc_method", "cupy.add", ("at", a, indices, value), {},
                         description="cupy.add.at")
    return True


#: CuPy's ufuncs with a scatter kernel (``ufunc.at``) and its op names
_SCATTER_OPS = {"cupy.add": "add", "cupy.subtract": "sub", "cupy.maximum": "max",
                "cupy.minimum": "min", "cupy.bitwise_and": "and", "cupy.bitwise_or": "or",
                "cupy.bitwise_xor": "xor"}
_INT_ATOMIC = ("iIlLqQ", "int32, int64, uint32, uint64")
#: the dtypes CuPy's scatter kernels take with an integer-array index
#: (``_routines_indexing._scatter_op_single``), and how its error names them
_SCATTER_TYPES = {"add": ("iIlLqQefd", "int32, int64, float16, float32, float64, uint32, "
                          "uint64"),
                  "sub": ("iI", "int32, uint32,"),
                  "max": ("iIlLqQfd", "int32, int64, float32, float64, uint32, uint64"),
                  "min": ("iIlLqQfd", "int32, int64, float32, float64, uint32, uint64"),
                  "and": _INT_ATOMIC, "or": _INT_ATOMIC, "xor": _INT_ATOMIC}


def _cupy_ufunc_name(uf: "ufunc") -> str:
    """CuPy's internal name of a ufunc (``cupy_multiply``)."""
    return uf._path.replace(".", "_")


def _scatter_indices(indices: Any) -> tuple:
    """``(indices, advanced)``: host arrays made device ones, and whether CuPy takes the
    integer-array scatter path (an index array, not a single boolean mask)."""
    from . import asarray
    items = indices if isinstance(indices, tuple) else (indices,)
    arrays = [k for k in items if isinstance(k, (ndarray, numpy.ndarray, list))]
    if any(isinstance(k, numpy.ndarray) for k in items):
        items = tuple(asarray(k) if isinstance(k, numpy.ndarray) else k for k in items)
        indices = items if isinstance(indices, tuple) else items[0]
    if not arrays:
        return indices, False
    if len(arrays) == 1:
        k = arrays[0]
        kind = numpy.asarray(k).dtype.kind if isinstance(k, list) else k.dtype.kind
        if kind == "b":
            return indices, False
    return indices, True


def _exported(module: str, name: str) -> Any:
    """The ufunc ``module`` exports as ``name`` (unpickling one)."""
    import importlib
    return getattr(importlib.import_module(module), name)


def _add_reduceat(array: Any, indices: Any, axis: Any, dtype: Any, out: Any) -> Any:
    """CuPy's ``_add_reduceat`` (``_routines_indexing.pyx``), step by step: differences
    of a cumulative sum, so its rounding is CuPy's (float32 ``[1e8, 1, 1]`` at
    ``[0, 1]`` is ``[1e8, 0]``, not NumPy's ``[1e8, 2]``), and indices past either end
    wrap as ``take``'s do, where NumPy refuses them. Every step pipelines."""
    import sys
    cupy = sys.modules[__package__]
    ndim = array.ndim
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise numpy.exceptions.AxisError(axis, ndim)
    axis %= ndim
    indices = cupy.append(indices, array.shape[axis])
    shape = [1 if i == axis else dim for i, dim in enumerate(array.shape)]
    acc = array.cumsum(axis, dtype)
    acc = cupy.append(cupy.zeros(shape, acc.dtype), acc, axis)
    mask = indices[:-1] >= indices[1:]
    mask = mask.reshape(-1, *([1] * (ndim - axis - 1)))
    result = cupy.where(mask, array.take(indices[:-1], axis),
                        acc.take(indices[1:], axis) - acc.take(indices[:-1], axis))
    if out is None:
        return result
    # (CuPy's ``where`` ufunc writing into ``out``: its checks, in its words)
    if not isinstance(out, ndarray):
        raise TypeError("Output arguments type must be cupy.ndarray")
    if out.shape != result.shape:
        raise ValueError("Out shape is mismatched")
    if result.dtype.kind != out.dtype.kind and \
            not numpy.can_cast(result.dtype, out.dtype, "same_kind"):
        raise TypeError(f"Cannot cast output operand from {result.dtype!r} to "
                        f"{out.dtype!r} according to the rule 'same_kind'")
    cupy.copyto(out, result)
    return out


for _m in ("reduce", "accumulate", "reduceat", "outer", "at"):
    # (Cython's words for a wrong argument name the bare method: ``reduce()``)
    getattr(ufunc, _m).__qualname__ = _m


def _build() -> dict[str, ufunc]:
    table = {}
    for name, kind in module_names("cupy").items():
        if kind == "ufunc":  # (CuPy's loops for those NumPy has no ufunc for)
            loops = ufunc_loops.CUPY.get(name)
            table[name] = ufunc(name, loops=loops and ufunc_loops.Loops(*loops))
    # CuPy's ufuncs with two names are one object (``cupy.abs is cupy.absolute``), and
    # __array_ufunc__ looks NumPy's up by name
    for name, alias in ALIASES:
        if name in table or alias in table:
            table[name] = table[alias] = table.get(name) or table[alias]
    return table


#: (name, alias) of CuPy's ufuncs that are one object under two names
#: (``_math/trigonometric.py``: ``degrees = rad2deg``, ``radians = deg2rad``)
ALIASES = (("rad2deg", "degrees"), ("deg2rad", "radians"),
           ("absolute", "abs"), ("true_divide", "divide"), ("conjugate", "conj"),
           ("invert", "bitwise_not"), ("invert", "bitwise_invert"), ("remainder", "mod"),
           ("power", "pow"), ("arctan", "atan"), ("arctan2", "atan2"), ("arcsin", "asin"),
           ("arccos", "acos"), ("arccosh", "acosh"), ("arcsinh", "asinh"),
           ("arctanh", "atanh"), ("left_shift", "bitwise_left_shift"),
           ("right_shift", "bitwise_right_shift"))


UFUNCS = _build()
