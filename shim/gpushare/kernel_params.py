"""The parameters of ElementwiseKernel and ReductionKernel (``"raw T x, float32 y"``),
parsed as CuPy parses them (``cupy._core._kernel.ParameterInfo``). The client reads
them back as a kernel's ``in_params``/``params``; the CPU emulator builds its kernels
from them. Each side names C++ types its own way (``typename``).

And how such a kernel types its arguments (``decide_params_type``) and packs a scalar
for its parameter's type (``cast_scalar``): the emulator runs its kernels by them, the
client checks a pipelined call's scalars by them (so that CuPy's error for a value that
does not fit is raised at the call)."""
from __future__ import annotations

from typing import Any, Callable

import numpy


class ParameterInfo:
    """One parameter: its name, its dtype (None for a type placeholder such as ``T``),
    its C++ type name, whether it is ``raw`` and whether it is const.

    See Also
    --------
    cupy._core._kernel.ParameterInfo
    """

    def __init__(self, param: str, is_const: bool,
                 typename: Callable[[numpy.dtype], str]) -> None:
        self.name: Any = None
        self.dtype: Any = None
        self.ctype: Any = None
        self.raw = False
        self.is_const = bool(is_const)
        s = tuple(i for i in param.split() if len(i) != 0)
        if len(s) < 2:
            raise Exception("Syntax error: %s" % param)
        t, self.name = s[-2:]
        if t == "CIndexer":
            pass
        elif len(t) == 1:
            self.ctype = t
        else:
            self.dtype = numpy.dtype(t)
            self.ctype = typename(self.dtype)
        for i in s[:-2]:
            if i == "raw":
                self.raw = True
            elif i == "_non_const":
                self.is_const = False
            else:
                raise Exception('Unknown keyword "%s"' % i)

    def _key(self) -> tuple:
        return (self.name, self.dtype, self.ctype, self.raw, self.is_const)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ParameterInfo) and self._key() == other._key()

    def __repr__(self) -> str:
        return ("<ParameterInfo(name={!r} dtype={!r} ctype={!r} raw={!r} "
                "is_const={!r})>".format(*self._key()))


def param_info(s: str, is_const: bool, typename: Callable[[numpy.dtype], str]) -> tuple:
    """See Also: cupy._core._kernel._get_param_info"""
    if len(s) == 0:
        return ()
    return tuple(ParameterInfo(i, is_const, typename) for i in s.strip().split(","))


def _bind_type(p: Any, a: Any, type_dict: dict) -> None:
    """One argument's dtype ``a`` against its parameter ``p``: a typed parameter's must
    match, a type name's is bound by its first argument (CuPy's words)."""
    if p.dtype is not None:
        if numpy.dtype(a) != numpy.dtype(p.dtype):
            raise TypeError('Type is mismatched. %s %s %s' % (p.name, a, p.dtype))
    elif p.ctype in type_dict:
        t = type_dict[p.ctype]
        if numpy.dtype(t) != numpy.dtype(a):
            raise TypeError('Type is mismatched. %s %s %s %s' % (p.name, a, t, p.ctype))
    else:
        type_dict[p.ctype] = a


def decide_params_type(in_params: tuple, out_params: tuple, in_args_dtype: tuple,
                       out_args_dtype: tuple) -> tuple:
    """See Also: cupy._core._kernel._decide_params_type_core (the types of the
    parameters from the arrays' dtypes; a scalar's is None: typed by its parameter)"""
    type_dict = {}
    if out_args_dtype:
        assert len(out_params) == len(out_args_dtype)
        for p, a in zip(out_params, out_args_dtype):
            if a is None:
                raise TypeError('Output arguments must be cupy.ndarray')
            _bind_type(p, a, type_dict)

    assert len(in_params) == len(in_args_dtype)
    for p, a in zip(in_params, in_args_dtype):
        if a is not None:
            _bind_type(p, a, type_dict)

    in_types = tuple([type_dict[p.ctype] if p.dtype is None else p.dtype
                      for p in in_params])
    out_types = tuple([type_dict[p.ctype] if p.dtype is None else p.dtype
                       for p in out_params])
    type_map = tuple(sorted(type_dict.items()))
    return in_types, out_types, type_map


def cast_scalar(v: Any, dtype: Any) -> Any:
    """Cast a Python / NumPy scalar to ``dtype`` as CuPy does (``CScalar.apply_dtype``:
    NumPy's ``PyArray_Pack``, which is an item assignment): out-of-range ints raise
    ``OverflowError`` (NumPy's integer scalars into a signed type too: NumPy takes them
    as known scalars and sets them, it does not cast), a complex to a real type
    ``TypeError``, NaN and infinity to an integer type ``ValueError`` and
    ``OverflowError``."""
    out = numpy.zeros((), dtype=dtype)
    with numpy.errstate(all='ignore'):
        out[()] = v
    return out[()]


_SCRATCH: dict = {}  # dtype -> a 0-d array that check_scalar assigns to


def check_scalar(v: Any, dtype: numpy.dtype) -> None:
    """Raise what :func:`cast_scalar` raises for ``v`` into ``dtype``, if anything (the
    client's check of a pipelined call's scalar, which keeps no value): the same item
    assignment, into an array kept per dtype; NumPy's floating-point warnings ignored
    as there (a NumPy float into an unsigned type warns; Python's floats and ints into
    integer types do not, and skip ``errstate``'s cost)."""
    out = _SCRATCH.get(dtype)
    if out is None:
        if len(_SCRATCH) >= 256:
            _SCRATCH.clear()
        out = _SCRATCH[dtype] = numpy.zeros((), dtype=dtype)
    if dtype.kind in 'iu' and not isinstance(v, numpy.floating):
        out[()] = v
    else:
        with numpy.errstate(all='ignore'):
            out[()] = v


def scalar_dtype(v: Any) -> numpy.dtype:
    """The dtype CuPy's ``CScalar`` gives a scalar (``numpy_dtype_from_pyscalar``):
    Python's bool, float and complex as NumPy's, an int as int64 (uint64 from
    2**63 on); a NumPy scalar's own."""
    if isinstance(v, numpy.generic):
        return v.dtype
    if isinstance(v, bool):
        return numpy.dtype(numpy.bool_)
    if isinstance(v, int):
        return numpy.dtype(numpy.uint64 if v >= 2 ** 63 else numpy.int64)
    if isinstance(v, float):
        return numpy.dtype(numpy.float64)
    return numpy.dtype(numpy.complex128)
