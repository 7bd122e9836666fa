"""CuPy 14.2's statistics routines written in Python or Cython, ported line by line where
their answers, dtypes or errors differ from NumPy's: ``median`` (``_routines_statistics.pyx:
_median``), ``var``/``std`` (``_var``/``_std``), ``nanvar``/``nanstd`` (``_nanvar``),
``average`` (``_statistics/meanvar.py``), ``cov``/``corrcoef``
(``_statistics/correlation.py``), ``unique`` along an axis
(``_manipulation/add_remove.py``), ``convolve``/``correlate``'s checks
(``_math/misc.py``, ``correlation.py``). Registered by ``cpu_routines`` (at its end)."""
from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Callable

import numpy

from gpushare.cython_args import argument_type_error
from gpushare.protocol import HostArray

from . import cpu_ftz, cpu_routines
from .cpu_routines import (_BOOL_ERRORS, _half_reduction, _kth, _normalize_axis,
                           _strict_method)

_mean = _half_reduction("mean")  # (CuPy's mean: float16 summed in float32)


def _quietly(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn`` without NumPy's floating-point warnings: CuPy's kernels give none."""
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


def _reduction_axes(axis: Any, ndim: int) -> tuple[tuple, tuple]:
    """``_reduction.pyx: _get_axis``: the reduced axes (sorted) and the others."""
    if axis is None:
        return tuple(range(ndim)), ()
    axis = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    reduce_axis = tuple(sorted(_normalize_axis(dim, ndim) for dim in axis))
    out_axis = tuple(dim for dim in range(ndim) if dim not in reduce_axis)
    if len(reduce_axis) + len(out_axis) != ndim:
        raise ValueError("duplicate value in 'axis'")
    return reduce_axis, out_axis


# --- median (_routines_statistics.pyx: _median) ------------------------------------------

def median(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Any:
    """See Also: cupy.median (CuPy's partition: an empty slice is its ``kth`` error, an axis
    past the end ``Axis overrun``; the middle values' mean, NaN where the slice has one)."""
    if not isinstance(a, numpy.ndarray):
        raise argument_type_error("a", "cupy._core.core._ndarray_base",
                                  a.array if isinstance(a, HostArray) else a)
    keep_ndim = a.ndim
    out_shape = None
    if isinstance(axis, (tuple, list)):
        # (CuPy moves the reduced axes last and makes them one)
        reduce_axis, out_axis = _reduction_axes(axis, keep_ndim)
        out_shape = tuple(1 if i in reduce_axis else n for i, n in enumerate(a.shape)) \
            if keepdims else tuple(a.shape[i] for i in out_axis)
        a = a.transpose(out_axis + reduce_axis)
        a = numpy.ascontiguousarray(a.reshape(a.shape[:len(out_axis)] + (-1,)))
        axis = -1
    if axis is None:
        sz = a.size
    else:
        if axis < -keep_ndim or axis >= keep_ndim:
            raise numpy.exceptions.AxisError("Axis overrun")
        sz = a.shape[axis]
    kth = [sz // 2 - 1, sz // 2] if sz % 2 == 0 else [(sz - 1) // 2]
    part = a if overwrite_input else a.copy()
    if axis is None:
        part = part.ravel()
    length = part.shape[-1 if axis is None else axis]
    if length == 0:
        # (``part.partition(kth)``: ``_ndarray_partition`` has no early return for an
        # empty axis, and the ``kth`` of an empty slice is [-1, 0]; NumPy answers NaN)
        raise ValueError(f"kth(={kth[0]}) out of bounds 0")
    ks, _ = _kth(kth, length)
    part.partition(ks, axis=-1 if axis is None else axis)
    if axis is None:
        axis = 0
    indexer: list = [slice(None)] * part.ndim
    if keepdims and out_shape is None:
        indexer.extend([None] * (keep_ndim - part.ndim))
    index = part.shape[axis] // 2
    indexer[axis] = slice(index, index + 1) if part.shape[axis] % 2 == 1 else \
        slice(index - 1, index + 1)
    result = _quietly(_mean, part[tuple(indexer)], axis=axis, out=out, keepdims=keepdims)
    if part.dtype.kind in "fc":
        isnan = numpy.isnan(part).any(axis=axis, keepdims=keepdims)
        # (``cupy.where``: a new array, even where ``out`` was given)
        result = numpy.where(isnan, result.dtype.type(numpy.nan), result)
    if out_shape is not None:
        result = result.reshape(out_shape)
    return result


# --- var, std (_routines_statistics.pyx: _var, _std) -------------------------------------

def _sum_of_squares(a: numpy.ndarray, mean: numpy.ndarray, axis: tuple, keepdims: bool,
                    dtype: Any) -> numpy.ndarray:
    """The ``my_norm(x - mean)`` summed (``_norm_preamble``: ``norm`` of a complex)."""
    d = a - mean
    sq = d.real * d.real + d.imag * d.imag if d.dtype.kind == "c" else d * d
    if len(set(axis)) == a.ndim and a.size > 1:
        total = _kernel_order_sum(sq, dtype)
        return total.reshape((1,) * a.ndim if keepdims else ())
    return sq.sum(axis=axis, dtype=dtype, keepdims=keepdims)


def _kernel_order_sum(x: numpy.ndarray, dtype: Any) -> numpy.ndarray:
    """The sum of all of ``x`` in the order of CuPy's reduction kernel
    (``_reduction.pyx``) for one output: ``_get_block_specs`` with the default block of
    512 threads gives ``block_stride`` ``clp2(max(1, 512 // n) // 2 + 1)``; the
    ``512 // block_stride`` threads of the output each add up the elements ``k, k + L,
    ...`` in turn, then the block's tree halves them (``_REDUCE``). (The GPU: ``var([1.,
    2., 4.])`` is ``(s0 + s2) + s1``, 1.5555555555555556, one ulp over NumPy's. The
    GPU's compiler may fuse a thread's map and add into an FMA where a thread takes
    several elements; that is not followed here.)"""
    flat = numpy.asarray(x, dtype).ravel(order="K")
    n = flat.size
    stride = max(1, 512 // n) // 2 + 1
    stride = 1 << (stride - 1).bit_length()  # (``internal.clp2``)
    lanes = 512 // stride
    padded = numpy.zeros(-(-n // lanes) * lanes, flat.dtype)
    padded[:n] = flat
    rows = padded.reshape(-1, lanes)
    acc = rows[0].copy()
    for row in rows[1:]:
        acc += row
    while lanes > 1:
        lanes //= 2
        acc = acc[:lanes] + acc[lanes:2 * lanes]
    return acc.reshape(())


def var(a: numpy.ndarray, axis: Any = None, dtype: Any = None, out: Any = None,
        ddof: Any = 0, keepdims: bool = False) -> Any:
    """See Also: cupy.var (CuPy's ``_var``: the result is float16, float32 or else float64
    by the dtype asked (a complex or integer ``dtype`` gives float64); NaN where ``ddof``
    leaves no degree of freedom; with ``out``, ``out`` cast to that dtype)."""
    if axis is None:
        axis = tuple(range(a.ndim))
    if not isinstance(axis, tuple):
        axis = (axis,)
    dtype_mean = a.dtype
    dtype_out = numpy.dtype(dtype)
    if dtype is None:
        if a.dtype.kind in "biu":
            dtype_mean = dtype_out = numpy.dtype(numpy.float64)
        else:
            dtype_out = numpy.dtype(a.dtype.char.lower()) if a.dtype.kind == "c" else a.dtype
    items = 1
    for ax in axis:
        items *= a.shape[ax]  # (CuPy indexes the shape tuple: IndexError past the end)
    div = max(items - ddof, 0)
    alpha = 1. / div if div != 0 else math.nan
    arrmean = _quietly(_mean, a, axis=axis, dtype=dtype_mean, keepdims=True)
    if out is None:
        kind = numpy.dtype(dtype_out if dtype_out in (numpy.float16, numpy.float32)
                           else numpy.float64)
        # (``_var_core_float16``/``32``/``64``: the sum in that type, times a float32
        # alpha (float64 for float64))
        run = _ftz_kernel(a, kind)
        total = _quietly(run, _sum_of_squares, a, arrmean, axis, keepdims, kind)
        scale = numpy.float64 if kind == numpy.float64 else numpy.float32
        return numpy.asarray(_quietly(run, numpy.multiply, total, scale(alpha))).astype(kind)
    run = _ftz_kernel(a, out.dtype)  # (_var_core_out)
    total = _quietly(run, _sum_of_squares, a, arrmean, axis, keepdims, out.dtype)
    if out.dtype.kind in "biu":  # (``U alpha``: the Python float packed into out's dtype
        packed = numpy.empty((), out.dtype)  # as CuPy's ``CScalar.apply_dtype`` does
        packed[()] = alpha  # (1/3 is 0; NaN is NumPy's ValueError)
        alpha = packed
    numpy.copyto(out, _quietly(run, numpy.multiply, total, alpha), casting="unsafe")
    return out.astype(dtype_out, copy=False)


def _direct(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


def _ftz_kernel(a: numpy.ndarray, kind: numpy.dtype) -> Callable[..., Any]:
    """How the reduction kernel (``-ftz=true``) of ``var``/``nanvar`` computes over
    ``a`` into ``kind``: with float32 flushing on (``cpu_ftz.call``) where its map
    computes in float32/complex64 or its sum does; its double steps are not touched
    there, as no double subnormal can reach a float32 result or come from float32
    operands."""
    if a.dtype.char in "fF" or kind.char in "fF":
        return cpu_ftz.call
    return _direct


def std(a: numpy.ndarray, axis: Any = None, dtype: Any = None, out: Any = None,
        ddof: Any = 0, keepdims: bool = False) -> Any:
    """See Also: cupy.std (``_std``: ``sqrt(var(...), dtype=dtype, out=out)``)."""
    ret = var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    return _sqrt(ret, dtype, out)


def _sqrt(x: numpy.ndarray, dtype: Any, out: Any) -> Any:
    """CuPy's ``_math._sqrt(x, dtype=dtype, out=out)``: the ufunc's own errors (``out``'s
    cast: ``Cannot cast output operand ...``; a ``dtype`` without a loop)."""
    try:
        return numpy.sqrt(x, dtype=dtype, out=out)
    except TypeError as exc:
        raise cpu_routines.ufunc_error(numpy.sqrt, (x,), {"dtype": dtype, "out": out},
                                       exc) from None


# --- nanvar, nanstd (_routines_statistics.pyx: _nanvar) ----------------------------------

def nanvar(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
           keepdims: bool = False) -> Any:
    """See Also: cupy.nanvar (``_nanvar_core``: the result has the input's dtype (a complex
    one's real part), whatever ``dtype``; each term divided by ``max(count - ddof, 0)``, so
    no degree of freedom gives inf or NaN as the division does)."""
    if a.dtype.kind in "biu":  # (``_statistics/meanvar.py``: the array's var)
        return var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)
    axes = axis
    nan = numpy.isnan(a)
    count = (~nan).sum(axis=axes, dtype=numpy.int64, keepdims=True)
    summed, run = cpu_ftz.reduction("nansum", a, axes, dtype)  # (a -ftz=true kernel)
    arrsum = numpy.asarray(run(numpy.nansum, summed, axis=axes, dtype=dtype, keepdims=True))
    if arrsum.dtype == numpy.float16:  # (CuPy's nansum of float16 sums in float32)
        arrsum = numpy.nansum(a, axis=axes, dtype=numpy.float32,
                              keepdims=True).astype(numpy.float16)
    if out is None:
        if a.dtype == numpy.complex64 or dtype == numpy.complex64:
            kind = numpy.dtype(numpy.float32)
        elif a.dtype == numpy.complex128 or dtype == numpy.complex128:
            kind = numpy.dtype(numpy.float64)
        else:
            kind = a.dtype
    else:
        kind = out.dtype

    def terms() -> numpy.ndarray:
        mean = arrsum / count.astype(arrsum.dtype)
        d = a - mean
        sq = d.real * d.real + d.imag * d.imag if d.dtype.kind == "c" else d * d
        sq = numpy.where(nan, sq.dtype.type(0), sq)
        return sq / numpy.maximum(count - ddof, 0).astype(sq.dtype)

    result = _quietly(_ftz_kernel(a, kind), lambda: terms().sum(
        axis=axes, dtype=kind, keepdims=keepdims))
    if out is None:
        return numpy.asarray(result, kind)
    numpy.copyto(out, result, casting="unsafe")
    return out


def nanstd(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0,
           keepdims: bool = False) -> Any:
    """See Also: cupy.nanstd (``_nanstd``: ``sqrt(nanvar(...), dtype=dtype, out=out)``)."""
    if a.dtype.kind in "biu":
        return std(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims)
    return _sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims), dtype, out)


# --- average (_statistics/meanvar.py) ------------------------------------------------------

_sum = _half_reduction("sum")


class HostScalar:
    """A NumPy scalar that CuPy returns as such (the backend's results are otherwise
    device arrays: ``cpu.to_device_result`` gives this one back unwrapped)."""
    __slots__ = ("value",)

    def __init__(self, value: numpy.generic) -> None:
        self.value = value


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
            keepdims: bool = False) -> Any:
    """See Also: cupy.average (CuPy's checks and words; without weights the sum of weights
    is ``avg.dtype.type(a.size / avg.size)``, a NumPy scalar where it has the average's
    shape)."""
    a = numpy.asarray(a)
    if weights is None:
        avg = numpy.asarray(_quietly(_mean, a, axis=axis, keepdims=keepdims))
        scl = avg.dtype.type(a.size / avg.size)
    else:
        wgt = numpy.asarray(weights)
        if issubclass(a.dtype.type, (numpy.integer, numpy.bool_)):
            result_dtype = functools.reduce(numpy.promote_types, (a.dtype, wgt.dtype, "f8"))
        else:
            result_dtype = numpy.promote_types(a.dtype, wgt.dtype)
        if a.shape != wgt.shape:
            if axis is None:
                raise TypeError("Axis must be specified when shapes of a and weights "
                                "differ.")
            if wgt.ndim != 1:
                raise TypeError("1D weights expected when shapes of a and weights differ.")
            if wgt.shape[0] != a.shape[axis]:
                raise ValueError("Length of weights not compatible with specified axis.")
            wgt = numpy.broadcast_to(wgt, (a.ndim - 1) * (1,) + wgt.shape)
            wgt = wgt.swapaxes(-1, axis)
        scl = numpy.asarray(_sum(wgt, axis=axis, dtype=result_dtype, keepdims=keepdims))
        if numpy.any(scl == 0.0):
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        avg = numpy.asarray(_quietly(
            numpy.true_divide, _sum(numpy.multiply(a, wgt, dtype=result_dtype), axis,
                                    keepdims=keepdims), scl))
    if returned:
        if scl.shape != avg.shape:
            scl = numpy.broadcast_to(numpy.array(scl), avg.shape).copy()
        elif isinstance(scl, numpy.generic):  # (CuPy's ``avg.dtype.type(...)`` as it is)
            scl = HostScalar(scl)
        return avg, scl
    return avg


# --- cov, corrcoef (_statistics/correlation.py) -------------------------------------------

def _observation_weights(name: str, weights: Any, integer: bool, samples: int) -> Any:
    """``fweights``/``aweights`` checked as CuPy checks them (none of NumPy's value checks:
    negative weights pass "for performance reasons"), as float64."""
    if not isinstance(weights, numpy.ndarray):  # (a host array, a list, an int)
        raise TypeError(f"{name} must be a cupy.ndarray")
    if integer and weights.dtype.char not in "bBhHiIlLqQ":
        raise TypeError(f"{name} must be integer")
    weights = weights.astype(float)
    if weights.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if weights.shape[0] != samples:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    return weights


def cov(a: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> Any:
    """See Also: cupy.cov (CuPy's checks, in its order and words)."""
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
            dtype = functools.reduce(numpy.promote_types, (a.dtype, y.dtype, numpy.float64))
    X = numpy.array(a, ndmin=2, dtype=dtype)
    if not rowvar and a.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return numpy.array([]).reshape(0, 0)
    if y is not None:
        y = numpy.array(y, copy=None, ndmin=2, dtype=dtype)
        if not rowvar and y.shape[0] != 1:
            y = y.T
        X = numpy.concatenate((X, y), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        w = _observation_weights("fweights", fweights, True, X.shape[1])
    if aweights is not None:
        aweights = _observation_weights("aweights", aweights, False, X.shape[1])
        w = aweights if w is None else w * aweights
    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        fact = X.shape[1] - ddof
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * sum(w * aweights) / w_sum
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    X -= X.mean(axis=1)[:, None]
    X_T = X.T if w is None else (X * w).T
    out = _quietly(numpy.true_divide, X.dot(X_T.conj()), fact)
    return out.squeeze()


def corrcoef(a: Any, y: Any = None, rowvar: bool = True, bias: Any = None, ddof: Any = None,
             *, dtype: Any = None) -> Any:
    """See Also: cupy.corrcoef (``bias``/``ddof`` still taken, with CuPy's warning; NumPy 2
    removed them)."""
    if bias is not None or ddof is not None:
        warnings.warn("bias and ddof have no effect and are deprecated", DeprecationWarning)
    out = numpy.asarray(cov(a, y, rowvar, dtype=dtype))
    try:
        d = numpy.diag(out)
    except ValueError:
        return _quietly(numpy.true_divide, out, out)
    stddev = numpy.sqrt(d.real)
    with numpy.errstate(all="ignore"):
        out /= stddev[:, None]
        out /= stddev[None, :]
    numpy.clip(out.real, -1, 1, out=out.real)
    if numpy.iscomplexobj(out):
        numpy.clip(out.imag, -1, 1, out=out.imag)
    return out


# --- unique along an axis (_manipulation/add_remove.py) ----------------------------------

def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: Any = None, *, equal_nan: bool = True) -> Any:
    """See Also: cupy.unique (along an axis, CuPy's own sort: a quicksort of the rows that
    compares them by the first nonzero item of their difference, so a boolean array's
    rows raise CuPy's subtract error, integer differences wrap, and NaN never compares
    less; NaN rows stay apart)."""
    if axis is None:
        ar.shape  # (CuPy reads ``inverse_shape=ar.shape`` first: a list's AttributeError)
        return numpy.unique(ar, return_index, return_inverse, return_counts,
                            equal_nan=equal_nan)
    if not isinstance(ar, numpy.ndarray):  # (``_move_single_axis``'s typed ``a``)
        raise argument_type_error("a", "cupy._core.core._ndarray_base", ar)
    ar = numpy.moveaxis(ar, _normalize_axis(axis, ar.ndim), 0)
    orig_shape = ar.shape
    idx = numpy.arange(0, orig_shape[0], dtype=numpy.intp)
    ar = numpy.ascontiguousarray(ar.reshape(orig_shape[0], math.prod(orig_shape[1:])))
    is_complex = numpy.iscomplexobj(ar)
    ar_cmp = ar.astype(numpy.intp) if numpy.issubdtype(ar.dtype, numpy.unsignedinteger) \
        else ar

    def compare_axis_elems(idx1: int, idx2: int) -> bool:
        left, right = ar_cmp[idx1], ar_cmp[idx2]
        if left.dtype == numpy.bool_:
            raise TypeError(_BOOL_ERRORS["subtract"])
        comp = numpy.trim_zeros(left - right, "f")
        if comp.shape[0] > 0:
            diff = comp[0]
            if is_complex and numpy.isnan(diff):
                return True
            return bool(diff < 0)
        return False

    sorted_indices = numpy.empty(orig_shape[0], dtype=numpy.intp)
    queue = [(idx.tolist(), 0)]
    while queue:
        current, off = queue.pop(0)
        if not current:
            continue
        mid_elem = current[0]
        left, right = [], []
        for i in range(1, len(current)):
            (left if compare_axis_elems(current[i], mid_elem) else right).append(current[i])
        elem_pos = off + len(left)
        queue.append((left, off))
        queue.append((right, elem_pos + 1))
        sorted_indices[elem_pos] = mid_elem
    ar = ar[sorted_indices]
    if ar.size > 0:
        mask = numpy.empty(ar.shape, dtype=numpy.bool_)
        mask[:1] = True
        mask[1:] = ar[1:] != ar[:-1]
        mask = numpy.any(mask, axis=1)
    else:  # (the first empty row is the unique one)
        mask = numpy.ones(ar.shape[0], dtype=numpy.bool_)
        mask[1:] = False
    ar = ar[mask]
    ar = numpy.moveaxis(ar.reshape(int(mask.sum()), *orig_shape[1:]), 0, axis)
    ret: tuple = (ar,)
    if return_index:
        ret += (sorted_indices[mask],)
    if return_inverse:
        inv_idx = numpy.empty(mask.shape, dtype=numpy.intp)
        inv_idx[sorted_indices] = numpy.cumsum(mask) - 1
        ret += (inv_idx,)
    if return_counts:
        nonzero = numpy.nonzero(mask)[0]
        ret += (numpy.diff(numpy.append(nonzero, mask.size)),)
    return ret[0] if len(ret) == 1 else ret


# --- convolve, correlate (_math/misc.py, _statistics/correlation.py) ---------------------

def _convolved(a: numpy.ndarray, v: numpy.ndarray, mode: Any, host: Callable) -> Any:
    """``host(a, v, mode)`` once CuPy's ``_choose_conv_method`` and its two methods have
    read ``mode``: integer or bool operands go to ``_dot_convolve``, whose unknown mode
    leaves ``out_size`` unbound (Python's UnboundLocalError), others to ``_fft_convolve``,
    which refuses it in words. (The values are the direct sums, as CuPy's direct method;
    its FFT's rounding is cuFFT's.)"""
    if a.dtype.kind in "bui" or v.dtype.kind in "bui":
        if mode == "full" or mode == "same" or mode == "valid":
            out_size = 0
        out_size  # noqa: B018 - (``_dot_convolve``'s own failure)
    elif mode not in ("full", "same", "valid"):
        raise ValueError("acceptable mode flags are `valid`, `same`, or `full`.")
    return host(a, v, mode)


def convolve(a: Any, v: Any, mode: Any = "full") -> Any:
    """See Also: cupy.convolve (CuPy's checks: only ``v`` must be 1-d, ``a`` is
    raveled)."""
    if a.size == 0:
        raise ValueError("a cannot be empty")
    if v.size == 0:
        raise ValueError("v cannot be empty")
    if v.ndim > 1:
        raise ValueError("v cannot be multidimensional array")
    if v.size > a.size:
        a, v = v, a
    return _convolved(a.ravel(), v.ravel(), mode, numpy.convolve)


def correlate(a: Any, v: Any, mode: Any = "valid") -> Any:
    """See Also: cupy.correlate (CuPy's checks and words: a 0-d operand is "too deep"
    too)."""
    if a.size == 0 or v.size == 0:
        raise ValueError("Array arguments cannot be empty")
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("object too deep for desired array")
    return _convolved(a, v, mode, numpy.correlate)


# --- histogram (_statistics/histogram.py) --------------------------------------------------

def histogram(x: Any, bins: Any = 10, range: Any = None, density: bool = False,
              weights: Any = None) -> Any:
    """See Also: cupy.histogram (with weights, ``_weighted_histogram_kernel``: a NaN passes
    its range test and its binary search ends in the first bin, so its weight counts there;
    NumPy drops it. ``cpu_host`` checks the arguments and gives the counts CuPy's dtype.)"""
    hist, edges = numpy.histogram(x, bins, range, density=False, weights=weights)
    if edges is not bins and not edges.flags.owndata:
        edges = edges.copy()  # (CuPy's ``linspace`` edges own their memory; NumPy's view)
    if weights is not None and x.dtype.kind == "f":
        nan = numpy.isnan(x.ravel())
        if nan.any():
            kind = {"b": numpy.int64, "u": numpy.int64, "i": numpy.int64,
                    "c": numpy.complex128}.get(weights.dtype.kind, numpy.float64)
            hist = hist.astype(kind)
            hist[0] += weights.ravel()[nan].astype(kind).sum()
    if density:  # (CuPy's: ``y / db / y.sum()``, db the edges' float64 differences)
        db = numpy.diff(edges).astype(numpy.float64)
        return _quietly(lambda: hist / db / hist.sum()), edges
    return hist, edges


# --- nanmedian (_routines_statistics.pyx: _nanmedian) -------------------------------------

def nanmedian(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
              keepdims: bool = False) -> Any:
    """See Also: cupy.nanmedian (``_nanmedian``: NaNs replaced by the dtype's largest finite
    value, the rows sorted, the middle of each row's non-NaN count picked by
    ``_pickup_median_kernel``, its two values' mean in the dtype itself, float for
    float16; so a row with +inf and NaN picks the stand-in before inf)."""
    if a.dtype.char not in "efdFD":  # (``_statistics/meanvar.py``: median)
        return median(a, axis=axis, out=out, overwrite_input=overwrite_input,
                      keepdims=keepdims)
    if axis is None:
        axis = tuple(range(a.ndim))
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    reduce_axis, reduce_shape, out_axis, out_shape = [], [], [], []
    for i in range(a.ndim):
        if i in axis or i - a.ndim in axis:
            reduce_axis.append(i)
            reduce_shape.append(a.shape[i])
        else:
            out_axis.append(i)
            out_shape.append(a.shape[i])
    if 0 in out_shape:  # (CuPy's ``infer_unknown_dimension`` for the -1 below)
        raise ValueError(f"cannot reshape array of size {a.size} into shape "
                         f"{tuple(out_shape + [-1])}")
    rows = numpy.array(a.transpose(out_axis + reduce_axis).reshape(out_shape + [-1]),
                       order="C")
    nan = numpy.isnan(rows)
    count = rows.shape[-1] - nan.sum(axis=-1)
    rows[nan] = numpy.finfo(rows.dtype).max
    rows.sort(axis=-1)
    b = numpy.full(out_shape, numpy.nan, dtype=rows.dtype)
    flat_rows, flat_count, flat_b = rows.reshape(b.size, rows.shape[-1]), \
        count.reshape(-1), b.reshape(-1)
    for r in numpy.flatnonzero(flat_count > 0):
        lo, hi = (flat_count[r] - 1) // 2, flat_count[r] // 2
        if lo == hi:
            flat_b[r] = flat_rows[r, lo]
        else:
            # (CuPy's ``float16`` class has no ``+``: its values add as floats, and
            # the float mean is rounded to half; the GPU's median of 60000 and 60000)
            kind = numpy.float32 if rows.dtype == numpy.float16 else rows.dtype.type
            with numpy.errstate(all="ignore"):
                flat_b[r] = (kind(flat_rows[r, lo]) + kind(flat_rows[r, hi])) / kind(2.0)
    if keepdims:
        b = b.reshape(out_shape + [1] * len(reduce_axis))
        axes = [-1] * b.ndim
        for i, j in enumerate(out_axis + reduce_axis):
            axes[j] = i
        b = b.transpose(axes)
    if out is None:
        return b
    numpy.copyto(out, b, casting="unsafe")
    return out


# --- isin, intersect1d (_logic/truth.py) ---------------------------------------------------

def isin(element: Any, test_elements: Any, assume_unique: bool = False,
         invert: bool = False) -> Any:
    """See Also: cupy.isin (``in1d(...).reshape(element.shape)``: arrays only, a list or a
    scalar has no ``ravel``; NumPy's ``kind=`` is no parameter)."""
    return cpu_routines.in1d(element, test_elements, assume_unique=assume_unique,
                             invert=invert).reshape(element.shape)


def _exists_and_search(x: numpy.ndarray, bins: numpy.ndarray) -> tuple:
    """``search.py``'s ``_exists_and_searchsorted_kernel``: the left search of each ``x``
    in ``bins`` taken as increasing, found where ``bins[y] == x``."""
    n = bins.size
    if n == 0:
        return numpy.zeros(x.shape, numpy.bool_), numpy.zeros(x.shape, numpy.int64)
    y = cpu_routines._digitize_search(bins, x, False, assume_increasing=True)
    with numpy.errstate(invalid="ignore"):
        found = (y != n) & (bins[numpy.minimum(y, n - 1)] == x)
    return found, y


def intersect1d(arr1: Any, arr2: Any, assume_unique: bool = False,
                return_indices: bool = False) -> Any:
    """See Also: cupy.intersect1d (the values of ``arr1`` found in ``arr2`` by CuPy's
    search, in ``arr1``'s order: with ``assume_unique`` neither is sorted or made unique,
    so the result follows ``arr1`` and ``arr2`` is searched as if sorted)."""
    common_dtype = numpy.result_type(arr1.dtype, arr2.dtype)
    if not assume_unique:
        if return_indices:
            arr1, ind1 = numpy.unique(arr1, return_index=True)
            arr2, ind2 = numpy.unique(arr2, return_index=True)
        else:
            arr1, arr2 = numpy.unique(arr1), numpy.unique(arr2)
    else:
        arr1, arr2 = arr1.ravel(), arr2.ravel()
    mask, v1 = _exists_and_search(arr1, arr2)
    if not return_indices:
        return arr1[mask].astype(common_dtype)
    int1d = arr1[mask].astype(common_dtype)
    arr1_indices = numpy.flatnonzero(mask)
    arr2_indices = v1[mask]
    if not assume_unique:
        arr1_indices = ind1[arr1_indices]
        arr2_indices = ind2[arr2_indices]
    return int1d, arr1_indices, arr2_indices


# --- union1d, setxor1d, setdiff1d (_logic/truth.py) ----------------------------------------

def _concatenated(ar1: Any, ar2: Any) -> numpy.ndarray:
    """``cupy.concatenate((ar1, ar2), axis=None)``: each one's ``ravel()`` (a list's
    AttributeError), then ``concatenate_method``'s ``_preprocess_args``, which takes
    what is not a cupy array for a scalar (``CScalar``): a NumPy array's ``Unsupported
    type`` (before its own 'Only cupy arrays can be concatenated' is reached)."""
    tup = [(m.array if isinstance(m, HostArray) else m).ravel() for m in (ar1, ar2)]
    for m, raveled in zip((ar1, ar2), tup):
        if isinstance(m, HostArray) or not isinstance(m, numpy.ndarray):
            raise TypeError(f"Unsupported type {type(raveled)}")
    return numpy.concatenate(tup)


def union1d(arr1: Any, arr2: Any) -> Any:
    """See Also: cupy.union1d (``unique(concatenate((arr1, arr2), axis=None))``)."""
    return unique(_concatenated(arr1, arr2))


def setxor1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """See Also: cupy.setxor1d (CuPy's unique, concatenation and ``setxorkernel``)."""
    if not assume_unique:
        ar1, ar2 = unique(ar1), unique(ar2)
    aux = _concatenated(ar1, ar2)
    if aux.size == 0:
        return aux
    aux.sort()
    keep = numpy.ones(aux.size, numpy.bool_)
    with numpy.errstate(invalid="ignore"):
        differs = aux[1:] != aux[:-1]
    keep[1:] &= differs
    keep[:-1] &= differs
    return aux[keep]


def setdiff1d(ar1: Any, ar2: Any, assume_unique: bool = False) -> Any:
    """See Also: cupy.setdiff1d (``ar1``'s values not in ``ar2``, by CuPy's ``in1d``)."""
    if assume_unique:
        ar1 = ar1.ravel()
    else:
        ar1, ar2 = unique(ar1), unique(ar2)
    return ar1[cpu_routines.in1d(ar1, ar2, assume_unique=True, invert=True)]


# --- count_nonzero (_sorting/count.py) ----------------------------------------------------

def count_nonzero(a: Any, axis: Any = None) -> Any:
    """See Also: cupy.count_nonzero (a ``_SimpleReductionKernel``: its ``a`` must be a cupy
    array, in ``_convert_from_cupy_like``'s words; int64 counts, a 0-d array for the whole
    array; no ``keepdims``)."""
    if not isinstance(a, numpy.ndarray):
        got = type(a.array) if isinstance(a, HostArray) else type(a)
        raise TypeError("Argument 'a' has incorrect type (expected "
                        f"<class 'cupy._core.core._ndarray_base'>, got {got}).")
    return numpy.asarray(numpy.count_nonzero(a, axis=axis), dtype=numpy.int64)


# --- what is no device array (the functions' first reads of ``a``) ------------------------

def _reduction_kernel_argument(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``nanmax``/``nanmin``: ``_core.nanmax`` is a ``_SimpleReductionKernel``, whose ``a``
    goes through ``_convert_from_cupy_like(a, error="Argument 'a'")``."""
    @functools.wraps(fn)
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(a, numpy.ndarray):
            got = type(a.array) if isinstance(a, HostArray) else type(a)
            raise TypeError("Argument 'a' has incorrect type (expected "
                            f"<class 'cupy._core.core._ndarray_base'>, got {got}).")
        return fn(a, *args, **kwargs)
    return call


def _typed_after_dtype(fn: Callable[..., Any], method: str | None) -> Callable[..., Any]:
    """``nanmean``/``nanvar``/``nanstd``/``nanmedian`` (``_statistics/meanvar.py``): read
    ``a.dtype`` first (a list's AttributeError), then, for an integer dtype, the array's own
    ``method`` (``nanmedian``: ``median``, typed too), else a Cython function taking
    ``_ndarray_base a`` (a host array: Cython's TypeError)."""
    @functools.wraps(fn)
    def call(a: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(a, HostArray):
            host = a.array
            if method is not None and host.dtype.kind in "biu":
                return getattr(host, method)(*args, **kwargs)
            raise argument_type_error("a", "cupy._core.core._ndarray_base", host)
        if not isinstance(a, numpy.ndarray):
            a.dtype  # (the AttributeError CuPy's first read gives)
        return fn(a, *args, **kwargs)
    return call

STATS_OVERRIDES: dict[str, Callable[..., Any]] = {
    "cupy.median": median,
    "cupy.var": var,
    "cupy.std": std,
    "cupy.nanvar": nanvar,
    "cupy.nanstd": nanstd,
    "cupy.average": average,
    "cupy.cov": cov,
    "cupy.corrcoef": corrcoef,
    "cupy.unique": unique,
    "cupy.convolve": convolve,
    "cupy.correlate": correlate,
    "cupy.histogram": histogram,
    "cupy.nanmedian": nanmedian,
    "cupy.isin": isin,
    "cupy.intersect1d": intersect1d,
    "cupy.union1d": union1d,
    "cupy.setxor1d": setxor1d,
    "cupy.setdiff1d": setdiff1d,
    "cupy.count_nonzero": count_nonzero,
}
STATS_OVERRIDES.update({
    "cupy.nanmedian": _typed_after_dtype(nanmedian, None),
    "cupy.nanvar": _typed_after_dtype(nanvar, "var"),
    "cupy.nanstd": _typed_after_dtype(nanstd, "std"),
    "cupy.nanmean": _typed_after_dtype(cpu_routines.ROUTINE_OVERRIDES["cupy.nanmean"], "mean"),
    "cupy.nanmax": _reduction_kernel_argument(cpu_routines.ROUTINE_OVERRIDES["cupy.nanmax"]),
    "cupy.nanmin": _reduction_kernel_argument(cpu_routines.ROUTINE_OVERRIDES["cupy.nanmin"]),
})
#: ndarray methods (CuPy's Cython signatures: NumPy's ``where=`` refused)
STATS_METHODS: dict[str, Callable[..., Any]] = {
    "var": _strict_method("var", var),
    "std": _strict_method("std", std),
}
