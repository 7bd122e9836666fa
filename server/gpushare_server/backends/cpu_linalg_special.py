"""``cupyx.scipy.linalg``'s special matrices and ``cupyx.scipy.special``'s Python
functions on the CPU backend: CuPy 14.2's own code (``cupyx/scipy/linalg/
_special_matrices.py``, ``_decomp_lu.py``; ``cupyx/scipy/special/_lambertw.py``,
``_gammaln.py``, ``_sph_harm.py``, ``_spherical_bessel.py``, ``_polygamma.py``,
``_softmax.py``, ``_logsoftmax.py``, ``_logsumexp.py``) ported to NumPy, where SciPy's
namesakes answer otherwise.

SciPy 1.17 treats an n-D input to ``toeplitz``, ``circulant``, ``companion``,
``fiedler``, ``convolution_matrix``, ``block_diag``... as a batch; CuPy ravels it or
refuses it, in its own words. SciPy converts lists and numbers; CuPy's code reads an
attribute first (``c.ravel()``, ``f.ndim``, ``a.dtype``) and so refuses them with
Python's AttributeError, or hands them to one of its ufuncs (``Unsupported type``), or
begins with ``cupy.asarray`` and takes them (``block_diag``, ``lu``, ``lu_factor``).
CuPy checks less than SciPy (``companion``'s and ``fiedler_companion``'s zero leading
coefficient is not looked at: that would synchronize) and its ufuncs' loops give the
results' types (``lambertw``: complex128; ``sph_harm_y``: complex64 for float32 angles,
NaN where ``|m| > n``). The values are SciPy's or NumPy's.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import numpy
from numpy.lib.stride_tricks import as_strided

from gpushare import ufunc_loops
from gpushare.errors import assert_2d, assert_stacked_square
from gpushare.protocol import HostArray

from . import cpu_routines, scipy_module


def _special() -> Any:
    return scipy_module("scipy.special", "cupyx.scipy.special")


def _ufunc(uf: numpy.ufunc, *args: Any, **kwargs: Any) -> Any:
    """``cupy.<uf>`` of arrays: NumPy's loop, CuPy's words for a refused one (a boolean
    ``-``: ``_routines_math.pyx``)."""
    try:
        return uf(*args, **kwargs)
    except TypeError as exc:
        raise cpu_routines.ufunc_error(uf, args, kwargs, exc) from None


def _cupy_special(name: str, *args: Any) -> numpy.ndarray:
    """``cupyx.scipy.special.<name>`` (a CuPy ufunc): SciPy's values in the type of
    the loop CuPy runs (``ufunc_loops.SPECIAL``), CuPy's TypeError where none fits."""
    kernel, loops = ufunc_loops.SPECIAL[name][0], ufunc_loops.SPECIAL[name][1]
    loop = cpu_routines.cupy_loop(kernel, ufunc_loops.compact(loops), args)
    return numpy.asarray(getattr(_special(), name)(*args)).astype(loop[-1], copy=False)


def _any(a: Any) -> numpy.ndarray:
    """``cupy.any`` (``_logic/truth.py``: ``_util.check_array(a, arg_name='a')``; a NumPy
    scalar here is a 0-d array's result, CuPy's 0-d array)."""
    if not isinstance(a, (numpy.ndarray, numpy.generic)):
        raise TypeError(f"'a' must be a cupy.ndarray object, not {type(a)}.")
    return a.any()


def _broadcast_arrays(*args: Any) -> tuple:
    """``cupy.broadcast_arrays``: the arrays broadcast, anything else given back as it
    is (``internal._broadcast_core`` skips what is no ndarray)."""
    index = [i for i, v in enumerate(args) if isinstance(v, numpy.ndarray)]
    out = list(args)
    for i, view in zip(index, numpy.broadcast_arrays(*(args[i] for i in index))):
        out[i] = view
    return tuple(out)


def _where(condition: Any, x: Any, y: Any) -> numpy.ndarray:
    """``cupy.where(condition, x, y)``: ``condition.astype('?', copy=False)`` first."""
    return numpy.where(condition.astype("?", copy=False), x, y)


# --- cupyx.scipy.linalg: _special_matrices.py ----------------------------------------

def _toeplitz_matrix(c: numpy.ndarray, r: numpy.ndarray, hankel: bool = False
                     ) -> numpy.ndarray:
    """``_create_toeplitz_matrix``: a strided view of ``concatenate((c, r))``, copied
    (of shape ``(c.size, r.size + 1)``)."""
    vals = numpy.concatenate((c, r))
    n = vals.strides[0]
    return as_strided(vals if hankel else vals[c.size - 1:], shape=(c.size, r.size + 1),
                      strides=(n if hankel else -n, n)).copy()


def toeplitz(c: Any, r: Any = None) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.toeplitz (``c = c.ravel()``: any shape raveled,
    where SciPy 1.17 takes an n-D ``c`` as a batch; a list refused)."""
    c = c.ravel()
    r = c.conjugate() if r is None else r.ravel()
    return _toeplitz_matrix(c[::-1], r[1:])


def circulant(c: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.circulant (raveled, as ``toeplitz``)."""
    c = c.ravel()
    return _toeplitz_matrix(c[::-1], c[:0:-1])


def hankel(c: Any, r: Any = None) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.hankel (a 0-d ``c`` is one element)."""
    c = c.ravel()
    r = numpy.zeros_like(c) if r is None else r.ravel()
    return _toeplitz_matrix(c, r[1:], True)


def hadamard(n: Any, dtype: Any = int) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.hadamard (CuPy's words; its kernel writes ``-1`` or
    ``1`` into an array of any ``dtype``: all True for bool)."""
    lg2 = 0 if n < 1 else (int(n).bit_length() - 1)
    if 2 ** lg2 != n:
        raise ValueError("n must be an positive a power of 2 integer")
    H = numpy.empty((n, n), dtype)
    i = numpy.arange(n)
    odd = numpy.bitwise_count(i[:, None] & i[None, :]) & 1
    H[...] = numpy.where(odd, -1, 1).astype(H.dtype)  # (the kernel's C conversion)
    return H


def leslie(f: Any, s: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.leslie (CuPy's checks and words, 1-D only)."""
    if f.ndim != 1:
        raise ValueError("Incorrect shape for f. f must be 1D")
    if s.ndim != 1:
        raise ValueError("Incorrect shape for s. s must be 1D")
    n = f.size
    if n != s.size + 1:
        raise ValueError("Length of s must be one less than length of f")
    if s.size == 0:
        raise ValueError("The length of s must be at least 1.")
    a = numpy.zeros((n, n), dtype=numpy.result_type(f, s))
    a[0] = f
    numpy.fill_diagonal(a[1:], s)
    return a


def kron(a: Any, b: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.kron (deprecated; ``cupy.outer`` reshaped and
    concatenated twice along axis 1: 2-D operands only, 1-D ones an AxisError)."""
    warnings.warn(
        "`cupyx.scipy.linalg.kron` has been deprecated in CuPy v14 and will "
        "be removed in the near future. Please use `cupy.kron` instead.",
        DeprecationWarning)
    o = _ufunc(numpy.multiply, a.ravel()[:, None], b.ravel()[None, :])
    o = o.reshape(a.shape + b.shape)
    return numpy.concatenate(numpy.concatenate(o, axis=1), axis=1)


def block_diag(*arrs: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.block_diag (``cupy.atleast_2d``: lists and host
    arrays taken; more than 2 dimensions refused, where SciPy 1.17 batches them)."""
    if not arrs:
        return numpy.empty((1, 0))
    arrs = tuple(numpy.atleast_2d(numpy.asarray(a)) for a in arrs)
    if any(a.ndim != 2 for a in arrs):
        bad = [k for k in range(len(arrs)) if arrs[k].ndim != 2]
        raise ValueError("arguments in the following positions have dimension "
                         "greater than 2: {}".format(bad))
    shapes = tuple(a.shape for a in arrs)
    shape = tuple(sum(x) for x in zip(*shapes))
    out = numpy.zeros(shape, dtype=numpy.result_type(*arrs))
    r, c = 0, 0
    for arr in arrs:
        rr, cc = arr.shape
        out[r:r + rr, c:c + cc] = arr
        r += rr
        c += cc
    return out


def companion(a: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.companion (CuPy's words; a zero ``a[0]`` not
    checked: infinities)."""
    n = a.size
    if a.ndim != 1:
        raise ValueError("`a` must be one-dimensional.")
    if n < 2:
        raise ValueError("The length of `a` must be at least 2.")
    first_row = _ufunc(numpy.negative, a[1:]) / a[0:1]
    c = numpy.zeros((n - 1, n - 1), dtype=first_row.dtype)
    c[0] = first_row
    numpy.fill_diagonal(c[1:], 1)
    return c


def helmert(n: Any, full: bool = False) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.helmert"""
    d = numpy.arange(n)
    H = numpy.tri(n, n, -1)
    H[numpy.diag_indices(min(H.shape))] -= d
    d *= numpy.arange(1, n + 1)
    H[0] = 1
    d[0] = n
    H /= numpy.sqrt(d)[:, None]
    return H if full else H[1:]


def hilbert(n: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.hilbert (``hankel`` of the reciprocals: ``n == 0``
    gives shape ``(0, 1)``)."""
    values = numpy.arange(1, 2 * n, dtype=numpy.float64)
    numpy.reciprocal(values, values)
    return hankel(values[:n], r=values[n - 1:])


def dft(n: Any, scale: Any = None) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.dft (``-2j*pi/n``: ZeroDivisionError for 0)."""
    if scale not in (None, "sqrtn", "n"):
        raise ValueError("scale must be None, 'sqrtn', or 'n'; "
                         "%r is not valid." % (scale,))
    r = numpy.arange(n, dtype="complex128")
    r *= -2j * numpy.pi / n
    omegas = numpy.exp(r, out=r)[:, None]
    m = omegas ** numpy.arange(n)
    if scale is not None:
        m *= (1 / math.sqrt(n)) if scale == "sqrtn" else (1 / n)
    return m


def fiedler(a: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.fiedler (1-D only; ``cupy.abs(a, out=a)``: complex
    input keeps its complex type)."""
    if a.ndim != 1:
        raise ValueError("Input `a` must be a 1D array.")
    if a.size == 0:
        return numpy.zeros(0)
    if a.size == 1:
        return numpy.zeros((1, 1))
    a = _ufunc(numpy.subtract, a[:, None], a)
    return numpy.abs(a, out=a)


def fiedler_companion(a: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.fiedler_companion (1-D only; a zero leading
    coefficient not checked)."""
    if a.ndim != 1:
        raise ValueError("Input `a` must be a 1-D array.")
    if a.size < 2:
        return numpy.zeros((0,), a.dtype)
    if a.size == 2:
        return (_ufunc(numpy.negative, a[1:2]) / a[0:1]).reshape(1, 1)
    a = a / a[0:1]
    n = a.size - 1
    c = numpy.zeros((n, n), dtype=a.dtype)
    numpy.fill_diagonal(c[3::2, 1::2], 1)
    numpy.fill_diagonal(c[2::2, 1::2], -a[3::2])
    numpy.fill_diagonal(c[::2, 2::2], 1)
    numpy.fill_diagonal(c[::2, 1::2], -a[2::2])
    c[0, 0] = -a[1]
    c[1, 0] = 1
    return c


def convolution_matrix(a: Any, n: Any, mode: str = "full") -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.convolution_matrix (1-D only, CuPy's words)."""
    if n <= 0:
        raise ValueError("n must be a positive integer.")
    if a.ndim != 1:
        raise ValueError("convolution_matrix expects a one-dimensional array as input")
    if a.size == 0:
        raise ValueError("len(a) must be at least 1.")
    if mode not in ("full", "valid", "same"):
        raise ValueError("`mode` argument must be one of ('full', 'valid', 'same')")
    az = numpy.pad(a, (0, n - 1), "constant")
    raz = numpy.pad(a[::-1], (0, n - 1), "constant")
    if mode == "same":
        trim = min(n, a.size) - 1
        tb = trim // 2
        te = trim - tb
        col0 = az[tb:az.size - te]
        row0 = raz[-n - tb:raz.size - tb]
    elif mode == "valid":
        tb = min(n, a.size) - 1
        te = tb
        col0 = az[tb:az.size - te]
        row0 = raz[-n - tb:raz.size - tb]
    else:
        col0 = az
        row0 = raz[-n:]
    return toeplitz(col0, row0)


# --- cupyx.scipy.linalg: _decomp_lu.py -------------------------------------------------

def _lu_input(a: Any, check_finite: Any) -> numpy.ndarray:
    """``_lu_factor``'s checks: ``cupy.asarray(a)`` (lists, host arrays taken), 2-D
    only (``_assert_2d``), cuSOLVER's types, and only real input checked for
    infinities and NaNs."""
    a = numpy.asarray(a)
    assert_2d(a)
    if a.dtype.char not in "fdFD":
        raise NotImplementedError(cpu_routines._LAPACK_TYPES)
    if check_finite and a.dtype.kind == "f" and not numpy.isfinite(a).all():
        raise ValueError("array must not contain infs or NaNs")
    return a


def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple:
    """See Also: cupyx.scipy.linalg.lu_factor"""
    a = _lu_input(a, check_finite)
    linalg = scipy_module("scipy.linalg", "cupyx.scipy.linalg.lu_factor")
    return linalg.lu_factor(a, check_finite=False)


def lu(a: Any, permute_l: bool = False, overwrite_a: bool = False,
       check_finite: bool = True) -> tuple:
    """See Also: cupyx.scipy.linalg.lu (no ``p_indices``)."""
    a = _lu_input(a, check_finite)
    linalg = scipy_module("scipy.linalg", "cupyx.scipy.linalg.lu")
    return linalg.lu(a, permute_l=permute_l, check_finite=False)


def _assert_cupy_array(*arrays: Any) -> None:
    """``cupy.linalg._util._assert_cupy_array``: LinAlgError for anything else (a list,
    a host array)."""
    for a in arrays:
        if not isinstance(a, numpy.ndarray):
            raise numpy.linalg.LinAlgError("cupy.linalg only supports cupy.ndarray")


def lu_solve(lu_and_piv: Any, b: Any, trans: Any = 0, overwrite_b: bool = False,
             check_finite: bool = True) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.lu_solve (``lu`` a device array, else LinAlgError;
    ``trans`` compared with ``==``: True is 1; only real input checked for infinities
    and NaNs, in CuPy's words; the result ``b`` as ``lu``'s type, F-ordered)."""
    (lu, ipiv) = lu_and_piv
    _assert_cupy_array(lu)
    assert_2d(lu)
    assert_stacked_square(lu)
    if lu.shape[0] != (b.array if isinstance(b, HostArray) else b).shape[0]:
        raise ValueError("incompatible dimensions.")
    dtype = lu.dtype
    if dtype.char not in "fdFD":
        raise NotImplementedError(cpu_routines._LAPACK_TYPES)
    for code in (0, 1, 2):
        if trans == code:
            trans = code
            break
    else:
        raise ValueError("unknown trans")
    for value in (ipiv, b):  # (``ipiv.astype``, ``b.astype``: a host array's NumPy
        if isinstance(value, HostArray):  # methods, then a CuPy kernel refuses it)
            raise TypeError(f"Unsupported type {type(value.array)}")
    ipiv = ipiv.astype(ipiv.dtype, order="F", copy=True)
    b = b.astype(dtype, order="F", copy=True)
    if check_finite:
        if lu.dtype.kind == "f" and not numpy.isfinite(lu).all():
            raise ValueError(
                "array must not contain infs or NaNs.\n"
                "Note that when a singular matrix is given, unlike "
                "scipy.linalg.lu_factor, cupyx.scipy.linalg.lu_factor "
                "returns an array containing NaN.")
        if b.dtype.kind == "f" and not numpy.isfinite(b).all():
            raise ValueError("array must not contain infs or NaNs")
    linalg = scipy_module("scipy.linalg", "cupyx.scipy.linalg.lu_solve")
    x = linalg.lu_solve((lu, ipiv), b, trans=trans, check_finite=False)
    return numpy.asfortranarray(numpy.asarray(x).astype(dtype, copy=False))


def solve_triangular(a: Any, b: Any, *args: Any, **kwargs: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.linalg.solve_triangular (``_assert_cupy_array(a, b)``
    first: a LinAlgError for a list or host array; then ``cpu_routines``')."""
    _assert_cupy_array(a, b)
    return cpu_routines.solve_triangular(a, b, *args, **kwargs)


# --- cupyx.scipy.special ---------------------------------------------------------------

def lambertw(z: Any, k: Any = 0, tol: Any = 1e-8) -> numpy.ndarray:
    """See Also: cupyx.scipy.special.lambertw (``_lambertw_scalar(z, k, tol)``, a ufunc
    of loops ``Dld->D Fif->f``: complex128, an integer ``k``, no list)."""
    loop = cpu_routines.cupy_loop("cupyx_scipy_lambertw_scalar", ("DldD", "Fiff"),
                                  (z, k, tol))
    k = numpy.asarray(k).astype(loop[1], copy=False)
    return numpy.asarray(_special().lambertw(z, k, tol)).astype(loop[-1], copy=False)


def multigammaln(a: Any, d: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.special.multigammaln (``d`` a scalar, not an array; CuPy's
    words; float32 input summed in float64 as CuPy's ``res + gam0``)."""
    if not numpy.isscalar(d) or (math.floor(d) != d):
        raise ValueError("d should be a positive integer (dimension)")
    if numpy.isscalar(a):
        a = numpy.asarray(a, dtype=float)
    if int(_any(a <= 0.5 * (d - 1))):
        raise ValueError("condition a > 0.5 * (d-1) not met")
    res = (d * (d - 1) * 0.25) * numpy.log(numpy.pi)
    gam0 = _cupy_special("gammaln", a)
    if a.dtype.kind != "f":
        gam0 = gam0.astype(numpy.float64)
    res = res + gam0
    for j in range(2, d + 1):
        res += _cupy_special("gammaln", a - (j - 1.0) / 2)
    return res


#: ``_sph_harm.py``: ``_sph_harm``'s name and loops
_SPH_HARM = ("cupyx_scipy_lpmv", ("iiffF", "iiddD", "llffF", "llddD"))


def _sph_harm(m: Any, n: Any, theta: Any, phi: Any, out: Any = None) -> Any:
    """CuPy's ``_sph_harm`` ufunc (``sph_harmonic(m, n, theta, phi)``): its loop's
    complex type, NaN where ``|m| > n`` or ``n < 0``."""
    loop = cpu_routines.cupy_loop(*_SPH_HARM, (m, n, theta, phi))
    m, n = (numpy.asarray(v).astype(t, copy=False) for v, t in zip((m, n), loop))
    result = numpy.asarray(_special().sph_harm_y(n, m, phi, theta))
    result = numpy.where((numpy.abs(m) > n) | (n < 0), complex(numpy.nan, 0), result)
    result = result.astype(loop[-1], copy=False)
    if out is not None:
        numpy.copyto(out, result, casting="same_kind")
        return out
    return result


def sph_harm(m: Any, n: Any, theta: Any, phi: Any, out: Any = None) -> Any:
    """See Also: cupyx.scipy.special.sph_harm (deprecated)."""
    warnings.warn(DeprecationWarning(
        "`cupyx.scipy.special.sph_harm` is deprecated in CuPy v14 "
        "and are planned to be removed in the future."))
    return _sph_harm(m, n, theta, phi, out=out)


def sph_harm_y(n: Any, m: Any, theta: Any, phi: Any, *, diff_n: Any = 0) -> Any:
    """See Also: cupyx.scipy.special.sph_harm_y (``_sph_harm(m, n, phi, theta)``: no
    derivatives)."""
    if diff_n != 0:
        raise NotImplementedError("Derivatives not implemented.")
    return _sph_harm(m, n, phi, theta)


def spherical_yn(n: Any, z: Any, derivative: bool = False) -> numpy.ndarray:
    """See Also: cupyx.scipy.special.spherical_yn (no complex ``z``; ufuncs of loops
    ``id->d ld->d``: an integer ``n``)."""
    if numpy.iscomplexobj(z):
        raise NotImplementedError
    name = "dyn" if derivative else "yn"
    cpu_routines.cupy_loop(f"cupyx_scipy_spherical_{name}_real", ("idd", "ldd"), (n, z))
    return numpy.asarray(_special().spherical_yn(n, z, derivative), dtype=numpy.float64)


def polygamma(n: Any, x: Any) -> numpy.ndarray:
    """See Also: cupyx.scipy.special.polygamma (CuPy's code: ``n`` a Python int meets
    ``(n == 0).astype``, an AttributeError)."""
    n, x = _broadcast_arrays(n, x)
    fac2 = (-1.0) ** (n + 1) * _cupy_special("gamma", n + 1.0) * \
        _cupy_special("zeta", n + 1.0, x)
    return _where(n == 0, _cupy_special("digamma", x), fac2)


def _beta_dist(kernel: str, scipy_name: str, message: str) -> Callable[..., Any]:
    """``btdtr``/``btdtri``: a DeprecationWarning, then CuPy's ufunc of loops ``fff->f
    ddd->d`` (no list)."""
    def fn(a: Any, b: Any, x: Any, out: Any = None) -> Any:
        warnings.warn(message, DeprecationWarning)
        loop = cpu_routines.cupy_loop(kernel, ("ffff", "dddd"), (a, b, x))
        result = numpy.asarray(getattr(_special(), scipy_name)(a, b, x)).astype(
            loop[-1], copy=False)
        if out is not None:
            numpy.copyto(out, result, casting="same_kind")
            return out
        return result
    fn.__name__ = kernel.rpartition("_")[2]
    fn.__doc__ = f"See Also: cupyx.scipy.special.{fn.__name__} (deprecated)"
    return fn


btdtr = _beta_dist("cupyx_scipy_btdtr", "betainc",
                   "Use cupyx.scipy.special.betainc instead.")
btdtri = _beta_dist("cupyx_scipy_btdtri", "betaincinv",
                    "Use cupyx.scipy.special.betaincinv instead.")


def _amax(a: Any, axis: Any, keepdims: bool) -> Any:
    """``cupy.amax``: ``a.max(...)`` (a list's AttributeError)."""
    return a.max(axis=axis, keepdims=keepdims)


def softmax(x: Any, axis: Any = None) -> numpy.ndarray:
    """See Also: cupyx.scipy.special.softmax"""
    x_max = _amax(x, axis=axis, keepdims=True)
    exp_x_shifted = numpy.exp(x - x_max)
    return exp_x_shifted / numpy.sum(exp_x_shifted, axis=axis, keepdims=True)


def log_softmax(x: Any, axis: Any = None) -> numpy.ndarray:
    """See Also: cupyx.scipy.special.log_softmax"""
    x_max = numpy.asarray(_amax(x, axis=axis, keepdims=True))
    if x_max.ndim > 0:
        x_max[~numpy.isfinite(x_max)] = 0
    elif not numpy.isfinite(x_max):
        x_max = 0
    tmp = x - x_max
    if tmp.dtype.kind in "iu":
        for out_dtype in (numpy.float16, numpy.float32, numpy.float64):
            if numpy.can_cast(tmp.dtype, out_dtype):
                tmp = tmp.astype(out_dtype)
                break
    out = numpy.log(numpy.sum(numpy.exp(tmp), axis=axis, keepdims=True, dtype=tmp.dtype))
    return tmp - out


def logsumexp(a: Any, axis: Any = None, b: Any = None, keepdims: bool = False,
              return_sign: bool = False) -> Any:
    """See Also: cupyx.scipy.special.logsumexp (``a.dtype`` read first: no list; ``b``
    an array: ``cp.any(b == 0)``)."""
    if a.dtype.kind in "biu":
        a = a.astype(numpy.float64)
    if b is not None:
        a, b = _broadcast_arrays(a, b)
        if _any(b == 0):
            a = a + 0.
            a[b == 0] = -numpy.inf
    a_max = numpy.asarray(numpy.max(a.real, axis=axis, keepdims=True))
    if a_max.ndim > 0:
        a_max[~numpy.isfinite(a_max)] = 0
    elif not numpy.isfinite(a_max):
        a_max = 0
    tmp = numpy.exp(a - a_max) if b is None else b * numpy.exp(a - a_max)
    s = numpy.asarray(numpy.sum(tmp, axis=axis, keepdims=keepdims))
    if return_sign:
        if s.dtype.kind == "c":
            sgn = s / numpy.where(s == 0, 1, numpy.abs(s))
        else:
            sgn = numpy.sign(s)
        s = numpy.abs(s)
    out = numpy.asarray(numpy.log(s))
    if not keepdims:
        a_max = numpy.squeeze(a_max, axis=axis)
    out += a_max  # (in place: ``out`` keeps its type)
    if return_sign:
        return out, sgn
    return out


LINALG_SPECIAL_OVERRIDES: dict[str, Callable[..., Any]] = {
    **{f"cupyx.scipy.linalg.{fn.__name__}": fn for fn in (
        toeplitz, circulant, hankel, hadamard, leslie, kron, block_diag, companion,
        helmert, hilbert, dft, fiedler, fiedler_companion, convolution_matrix, lu,
        lu_factor, lu_solve, solve_triangular)},
    **{f"cupyx.scipy.special.{fn.__name__}": fn for fn in (
        lambertw, multigammaln, sph_harm, sph_harm_y, spherical_yn, polygamma, softmax,
        log_softmax, logsumexp, btdtr, btdtri)},
    # (``cupy.round``: ``_core.array(a, copy=False).round(decimals)``, an integer
    # array's type kept, where SciPy's ufunc gives float64)
    "cupyx.scipy.special.round": cpu_routines.around,
}

#: those whose CuPy code begins with ``cupy.asarray``: host arrays are taken
HOST_OK = frozenset({"cupyx.scipy.linalg.block_diag", "cupyx.scipy.linalg.lu",
                     "cupyx.scipy.linalg.lu_factor", "cupyx.scipy.special.round"})
#: those that refuse host arrays themselves, in CuPy's words
SELF_CHECKED = frozenset({"cupyx.scipy.linalg.lu_solve",
                          "cupyx.scipy.linalg.solve_triangular"})


def overrides(wrap: Callable[..., Any], wrap_host_ok: Callable[..., Any]
              ) -> dict[str, Callable[..., Any]]:
    """``LINALG_SPECIAL_OVERRIDES`` for ``cpu.OVERRIDES``: ``wrap`` refusing host arrays
    (``cpu._wrap``), ``wrap_host_ok`` taking them (``cpu._wrap_host_ok``)."""
    return {name: fn if name in SELF_CHECKED else
            (wrap_host_ok if name in HOST_OK else wrap)(fn)
            for name, fn in LINALG_SPECIAL_OVERRIDES.items()}
