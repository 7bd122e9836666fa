"""Floating point to integer conversions as a GPU makes them, for the CPU backend.

CuPy converts arrays on the device (``astype``, ``cupy.array(x, dtype)``,
``copyto``, assignment, a ufunc's casts of its inputs and outputs): C++ conversions in
its kernels (``_kernel.pyx``: ``const in0_type in0(_raw_in0[...])``), which compile to
PTX ``cvt.rzi``: truncation toward zero that *saturates*, a value beyond the type's
range becoming its limit. NumPy's casts are the CPU's: on x86 NaN and infinities become
the "integer indefinite" value (-2**31 for int32), negative values wrap into unsigned
types. CuPy's user guide states the difference ("Cast behavior from float to integer":
float32 infinity to int32 is 2147483647 in CuPy, -1.0 to uint32 is 0).

NaN is not always 0. Measured on an H200 (CUDA 13, CuPy 14.2.0; a float16 converts
through float32, a complex value its real part):

- from float32 (float16) to a 32-bit integer: 0;
- from float64 to a 32-bit integer: the sign bit alone, ``0x80000000`` (-2**31 for
  int32, 2**31 for uint32);
- from either to a 64-bit integer: ``0x8000000000000000`` (-2**63, 2**63).

The 8- and 16-bit types are the low bits of the 32-bit conversion of their signedness
(int32 for int8/int16, uint32 for uint8/uint16): 1e6 to int8 is 64, 3e9 to uint16 is
24064 (3e9's own low bits), inf to int16 is -1 (2**31 - 1's), -1.0 to uint8 is 0, and
NaN from float64 to any of them is 0.

A complex value converts its real part (``fix_cast_expr``: ``.real()``).

Not here: the conversions inside user kernels the emulator compiles (``int i = x;``
in a RawKernel is the host compiler's), and Python scalars, which CuPy converts on the
host with NumPy (``fill``, assignment of a scalar).
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy

from . import cpu_ftz

#: integer kind and size -> the conversion CUDA makes (its saturating range); the
#: narrower types keep its low bits
_CONVERT = {("i", 1): numpy.dtype(numpy.int32), ("i", 2): numpy.dtype(numpy.int32),
            ("u", 1): numpy.dtype(numpy.uint32), ("u", 2): numpy.dtype(numpy.uint32)}


def changes(src: numpy.dtype, dst: Any) -> bool:
    """Whether converting ``src`` to ``dst`` on a GPU can differ from NumPy's cast."""
    return src.kind in "fc" and numpy.dtype(dst).kind in "iu"


def _in_range(values: numpy.ndarray, info: numpy.iinfo) -> bool:
    """No NaN, and every value truncates into ``info``'s range (NumPy's cast is then
    exact and CUDA's)."""
    if values.size == 0:
        return True
    with numpy.errstate(invalid="ignore"):  # (NaN spreads through min and max)
        low, high = float(numpy.trunc(values.min())), float(numpy.trunc(values.max()))
    # (as Python floats, exact for every float type; the limits too: 2**bits and
    # -2**(bits-1) are floats, 2**63 - 1 is not)
    return low >= float(info.min) and high < float(info.max) + 1.0


def _real(values: numpy.ndarray, dtype: numpy.dtype) -> numpy.ndarray:
    """The floats a conversion of ``values`` to ``dtype`` converts (a complex array's
    real parts)."""
    if values.dtype.kind == "c":
        values = values.real
    if values.dtype.kind != "f" or dtype.kind not in "iu":
        raise TypeError(f"gpushare: no float-to-integer conversion from {values.dtype} "
                        f"to {dtype}")
    return values


def _nan_value(src: numpy.dtype, wide: numpy.dtype) -> int:
    """What CUDA's conversion of a NaN of the float type ``src`` to the 32- or 64-bit
    integer type ``wide`` gives (see above): 0 from float32 (and float16) to 32 bits, the
    sign bit alone otherwise."""
    if wide.itemsize == 4 and src.itemsize < 8:
        return 0
    return int(numpy.iinfo(wide).min) if wide.kind == "i" else 1 << (8 * wide.itemsize - 1)


def _saturated(values: numpy.ndarray, dtype: numpy.dtype) -> numpy.ndarray:
    """Floats ``values`` converted to ``dtype`` as a CUDA kernel converts them, those
    beyond its range and NaN included (the slow way)."""
    wide = _CONVERT.get((dtype.kind, dtype.itemsize), dtype)
    info = numpy.iinfo(wide)
    nan_value = _nan_value(values.dtype, wide)
    values = values.astype(numpy.float64, copy=False)  # (exact; the limits are too)
    truncated = numpy.trunc(values)
    over = truncated >= float(info.max) + 1.0
    under = truncated < float(info.min)
    nan = numpy.isnan(values)
    with numpy.errstate(invalid="ignore"):
        out = numpy.where(over | under | nan, 0, values).astype(wide)
    out[over] = info.max
    out[under] = info.min
    out[nan] = nan_value
    return out if wide == dtype else out.astype(dtype)  # (the low bits: integer casts wrap)


def convert(values: numpy.ndarray, dtype: Any) -> numpy.ndarray:
    """``values`` (a float or complex array) converted to the integer ``dtype`` as a
    CUDA kernel converts them: a new array of ``values``' shape. A complex array's
    conversion warns as CuPy's cast checks warn (``_dtype.check_can_cast``)."""
    dtype = numpy.dtype(dtype)
    if values.dtype.kind == "c":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      numpy.exceptions.ComplexWarning, stacklevel=2)
    values = _real(values, dtype)
    if _in_range(values, numpy.iinfo(dtype)):
        with numpy.errstate(invalid="ignore"):
            return values.astype(dtype)
    return _saturated(values, dtype)


def mend(out: numpy.ndarray, src: numpy.ndarray) -> numpy.ndarray:
    """``out``, NumPy's conversion of the float or complex array ``src`` to an integer
    type (of ``src``'s shape, or with leading 1s), with CUDA's results written where
    they differ; nothing is done when every value is in range (the usual case)."""
    values = _real(src, out.dtype)
    if not _in_range(values, numpy.iinfo(out.dtype)):
        numpy.copyto(out, _saturated(values, out.dtype))
    return out


def astype(a: numpy.ndarray, dtype: Any, *args: Any, **kwargs: Any) -> numpy.ndarray:
    """``a.astype(dtype, ...)`` with a float-to-integer conversion made as on a GPU
    (``order``, ``copy`` and the rest as NumPy's ``astype``)."""
    with numpy.errstate(invalid="ignore"):  # (CuPy does not warn)
        out = a.astype(dtype, *args, **kwargs)
    if out is not a and changes(a.dtype, out.dtype):
        mend(out, a)
    return out


def assign(dst: numpy.ndarray, value: Any) -> Any:
    """``value`` ready for assignment into ``dst``: a device float or complex array
    going into an integer array converted first, as on a GPU, one between float32 and
    float64 flushed as CuPy's ``-ftz=true`` copy kernel converts it
    (``cpu_ftz.converted``); anything else as it is."""
    if type(value) is numpy.ndarray:
        if changes(value.dtype, dst.dtype):
            return convert(value, dst.dtype)
        if value.dtype != dst.dtype:
            return cpu_ftz.converted(value, dst.dtype)
    return value


def ufunc_call(uf: numpy.ufunc, general: Any, args: tuple, kwargs: dict) -> Any:
    """A ufunc's call with ``casting='unsafe'`` (``general`` the backend's call of
    ``uf``) whose float-to-integer conversions, of its inputs to ``dtype=`` and of its
    result into ``out=``, are made as a CuPy kernel makes them; None when the call has
    none of them (then it is NumPy's)."""
    if uf.nout != 1:
        return None
    args, kwargs = list(args), dict(kwargs)
    if len(args) > uf.nin:  # (out given by position)
        kwargs["out"], args = args[uf.nin], args[:uf.nin]
    out = kwargs.get("out")
    if type(out) is tuple and len(out) == 1:
        out = out[0]
    dtype = kwargs.get("dtype")
    converted = False
    if dtype is not None and numpy.dtype(dtype).kind in "iu":
        for i, value in enumerate(args):  # the kernel converts its inputs to dtype
            if type(value) is numpy.ndarray and changes(value.dtype, dtype):
                args[i], converted = convert(value, dtype), True
    if type(out) is numpy.ndarray and out.dtype.kind in "iu":
        rest = {k: v for k, v in kwargs.items() if k != "out"}
        with numpy.errstate(invalid="ignore"):
            result = general(*args, **rest)
        if type(result) is numpy.ndarray and changes(result.dtype, out.dtype):
            numpy.copyto(out, convert(result, out.dtype))  # then into out
            return out
        numpy.copyto(out, result, casting="unsafe")
        return out
    return general(*args, **kwargs) if converted else None


_PYTHON_SCALARS = (bool, int, float, complex)


def cupy_casting(uf: numpy.ufunc, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """A ufunc call's ``args`` and ``kwargs`` (with ``dtype=`` or ``casting=``) made
    ready for NumPy to compute what CuPy's ``ufunc.__call__`` computes
    (``_core/_kernel.pyx``): CuPy never checks its inputs against ``casting`` (NumPy
    refuses ``add(int16, int32, out=int32, casting='no')``, or a float64 operand of
    ``dtype=int32`` under the default 'same_kind'); ``dtype=`` picks the loop by its
    output type, whatever the inputs (``_guess_routine_from_dtype``), which the kernel
    converts as C++ does (``fix_cast_expr``: a complex value's ``.real()``, ``!= 0`` to
    bool; no ComplexWarning); only the outputs' casts are checked
    (``_get_out_args_from_optionals``: ``_dtype._raise_if_invalid_cast``, in its words).
    So ``casting`` itself is read only there: a value that is not a ``str`` is Cython's
    TypeError once an output is given, an unknown string ``numpy.can_cast``'s ValueError
    once an output's dtype is not the loop's, and nothing without outputs.
    The call then goes with ``casting='unsafe'``; as it was where NumPy finds no loop
    (its error is CuPy's ``Wrong type``) or an operand is not a device array or a
    Python scalar."""
    nin, nout = uf.nin, uf.nout
    dtype = kwargs.get("dtype")
    casting = kwargs.get("casting", "same_kind")
    inputs = args[:nin]
    outs: Any = args[nin:]
    if not outs:
        outs = kwargs.get("out")
        outs = () if outs is None else outs if type(outs) is tuple else (outs,)
    if casting is not None and not isinstance(casting, str) and any(
            o is not None for o in outs):  # (``str casting``: Cython's argument test)
        raise TypeError(f"Expected str, got {type(casting).__name__}")
    if len(inputs) != nin or any(
            type(o) is not numpy.ndarray for o in outs if o is not None):
        return args, kwargs
    in_types: list = []
    for value in inputs:
        if type(value) is numpy.ndarray:
            in_types.append(value.dtype)
        elif type(value) in _PYTHON_SCALARS:
            in_types.append(type(value))
        else:
            return args, kwargs
    try:
        if dtype is not None:
            loop = uf.resolve_dtypes(tuple(in_types) + (None,) * nout,
                                     signature=(None,) * nin + (numpy.dtype(dtype),) * nout,
                                     casting="unsafe")
        else:
            loop = uf.resolve_dtypes(tuple(in_types) + (None,) * nout)
    except (TypeError, ValueError, OverflowError, numpy.exceptions.DTypePromotionError):
        return args, kwargs
    for loop_type, out in zip(loop[nin:], outs):
        if out is None or loop_type == out.dtype:
            continue
        if casting == "same_kind" and loop_type.kind == out.dtype.kind:
            continue
        if not numpy.can_cast(loop_type, out.dtype, casting):
            raise TypeError(f"Cannot cast output operand from {loop_type!r} to "
                            f"{out.dtype!r} according to the rule '{casting}'")
    converted = list(args)
    for i, (value, loop_type) in enumerate(zip(inputs, loop[:nin])):
        if type(value) is numpy.ndarray and value.dtype.kind == "c" and \
                loop_type.kind != "c":
            converted[i] = value != 0 if loop_type.kind == "b" else value.real
    kwargs = dict(kwargs)
    kwargs["casting"] = "unsafe"
    return tuple(converted), kwargs


#: the int64 types CuPy's loops name for NumPy's longlong ones
_LONGS = {"q": numpy.dtype("l"), "Q": numpy.dtype("L")}


def cupy_long(arr: Any) -> Any:
    """``arr``, a new array NumPy made longlong ('q', 'Q'), relabelled in place as int64
    'l' ('L'), the type CuPy gives it: its loops list 'll->l' before 'qq->q' and it takes
    the first loop an operand casts to safely (``_kernel.pyx:
    _guess_routine_from_in_types``). Anything else, and views, as they are."""
    if type(arr) is numpy.ndarray and arr.flags.owndata:
        long = _LONGS.get(arr.dtype.char)
        if long is not None:
            arr.dtype = long
    return arr
