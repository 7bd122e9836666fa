"""``cupy.poly1d`` and the polynomial routines, run on the client as CuPy's are.

CuPy writes these in Python (``cupy/lib/_polynomial.pyx``, ``cupy/lib/_routines_poly.py``
and ``cupy/_math/misc.py``'s FFT convolution, CuPy 14.2, MIT licence): each array
operation inside them is an ordinary gpushare call, so this port gives CuPy's results,
types and errors (a poly1d is a client object holding its coefficients as a device
array). The binary operators take either operand first, as CuPy's Cython class does
(``c_api_binop_methods``: ``2 * p`` calls ``poly1d.__mul__(2, p)``).
"""
from __future__ import annotations

import functools
import numbers
import warnings
from typing import Any

import numpy


def _cp() -> Any:
    from gpushare import cupy
    return cupy


# --- poly1d ------------------------------------------------------------------------------
class poly1d:
    """A one-dimensional polynomial class, its coefficients on the device.

    See Also
    --------
    cupy.poly1d
    """

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, c_or_r: Any, r: bool = False, variable: Any = None) -> None:
        cupy = _cp()
        if isinstance(c_or_r, (numpy.poly1d, poly1d)):
            self._coeffs = cupy.asarray(c_or_r.coeffs)
            self._variable = c_or_r._variable
            self._trimmed = True
            if variable is not None:
                self._variable = variable
            return
        if r:
            c_or_r = poly(c_or_r)
        c_or_r = cupy.atleast_1d(c_or_r)
        if c_or_r.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        self._coeffs = c_or_r
        self._trimmed = False
        self._variable = "x" if variable is None else variable

    # --- attributes ---------------------------------------------------------------
    @property
    def coeffs(self) -> Any:
        if self._trimmed:
            return self._coeffs
        cupy = _cp()
        self._coeffs = cupy.trim_zeros(self._coeffs, trim="f")
        if self._coeffs.size == 0:
            self._coeffs = cupy.array([0.], self._coeffs.dtype)
        self._trimmed = True
        return self._coeffs

    @coeffs.setter
    def coeffs(self, value: Any) -> None:
        if value is not self._coeffs:
            raise AttributeError("Cannot set attribute")

    @property
    def variable(self) -> str:
        return self._variable

    @property
    def order(self) -> int:
        return self.coeffs.size - 1

    @property
    def roots(self) -> Any:
        return roots(self._coeffs)

    @property
    def r(self) -> Any:
        return self.roots

    @property
    def c(self) -> Any:
        return self.coeffs

    @property
    def coef(self) -> Any:
        return self.coeffs

    @property
    def coefficients(self) -> Any:
        return self.coeffs

    @property
    def o(self) -> int:
        return self.order

    # --- conversions --------------------------------------------------------------
    def __cupy_get_ndarray__(self) -> Any:
        return self.coeffs

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. "
            "Please use `.get()` to construct a NumPy array explicitly.")

    def __repr__(self) -> str:
        return repr(self.get())

    def __len__(self) -> int:
        return self.order

    def __str__(self) -> str:
        return str(self.get())

    def __iter__(self) -> Any:
        return iter(self.coeffs)

    def get(self, stream: Any = None) -> numpy.poly1d:
        """A copy on the host, as a ``numpy.poly1d``.

        See Also
        --------
        cupy.poly1d.get
        """
        return numpy.poly1d(self.coeffs.get(stream=stream), variable=self.variable)

    def set(self, polyin: Any, stream: Any = None) -> None:
        """Copy a ``numpy.poly1d`` from the host into this polynomial.

        See Also
        --------
        cupy.poly1d.set
        """
        if not isinstance(polyin, numpy.poly1d):
            raise TypeError("Only numpy.poly1d can be set to cupy.poly1d")
        self._variable = polyin.variable
        self.coeffs.set(polyin.coeffs, stream)

    # --- evaluation and arithmetic ------------------------------------------------
    def __call__(self, val: Any) -> Any:
        return polyval(self.coeffs, val)

    def __neg__(self) -> "poly1d":
        return poly1d(-self.coeffs)

    def __pos__(self) -> "poly1d":
        return self

    def __mul__(self, other: Any) -> Any:
        return _mul(self, other)

    def __rmul__(self, other: Any) -> Any:
        return _mul(other, self)

    def __add__(self, other: Any) -> Any:
        return _add(self, other)

    def __radd__(self, other: Any) -> Any:
        return _add(other, self)

    def __sub__(self, other: Any) -> Any:
        return _sub(self, other)

    def __rsub__(self, other: Any) -> Any:
        return _sub(other, self)

    def __pow__(self, val: Any, modulo: Any = None) -> Any:
        return _pow(self, val)

    def __rpow__(self, other: Any, modulo: Any = None) -> Any:
        return _pow(other, self)

    def __truediv__(self, other: Any) -> Any:
        return _truediv(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _truediv(other, self)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        if not isinstance(other, poly1d):
            raise NotImplementedError
        if self.coeffs.shape != other.coeffs.shape:
            return False
        return (self.coeffs == other.coeffs).all().get()[()]

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        if not isinstance(other, poly1d):
            raise NotImplementedError
        return not self.__eq__(other)

    def __getitem__(self, val: Any) -> Any:
        if 0 <= val < self._coeffs.size:
            return self._coeffs[-val - 1]
        return 0

    def __setitem__(self, key: Any, val: Any) -> None:
        if key < 0:
            raise ValueError("Negative powers are not supported.")
        if key >= self._coeffs.size:
            self._coeffs = _cp().pad(self._coeffs, (key - (self._coeffs.size - 1), 0))
        self._coeffs[-key - 1] = val

    def integ(self, m: int = 1, k: Any = 0) -> Any:
        raise NotImplementedError

    def deriv(self, m: int = 1) -> Any:
        raise NotImplementedError


# CuPy's operator slots, called with the operands in the order they were written
def _mul(x: Any, y: Any) -> Any:
    cupy = _cp()
    if cupy.isscalar(y):  # poly1d * Python scalar
        return poly1d(x.coeffs * y)
    if isinstance(x, numpy.generic):
        raise TypeError("Numpy scalar and poly1d multiplication is not supported currently.")
    if cupy.isscalar(x) and isinstance(y, poly1d):  # Python scalar * poly1d
        x = y._coeffs.dtype.type(x)
    return polymul(x, y)


def _add(x: Any, y: Any) -> Any:
    if isinstance(x, numpy.generic):
        raise TypeError("Numpy scalar and poly1d addition is not supported")
    return polyadd(x, y)


def _sub(x: Any, y: Any) -> Any:
    if isinstance(x, numpy.generic):
        raise TypeError("Numpy scalar and poly1d subtraction is not supported")
    return polysub(x, y)


def _pow(x: Any, val: Any) -> Any:
    cupy = _cp()
    if not cupy.isscalar(val) or int(val) != val or val < 0:
        raise ValueError("Power to non-negative integers only.")
    if not isinstance(val, numbers.Integral):
        raise TypeError("float object cannot be interpreted as an integer")
    base = x.coeffs
    dtype = base.dtype
    if dtype.kind == "c":
        base = base.astype(numpy.complex128, copy=False)
    elif dtype.kind == "f" or dtype == numpy.uint64:
        base = base.astype(numpy.float64, copy=False)
    else:  # a Python int here, for cross-platform portability
        base = base.astype(numpy.promote_types(dtype, int), copy=False)
    return poly1d(_polypow(base, val))


def _truediv(x: Any, y: Any) -> Any:
    if _cp().isscalar(y):
        return poly1d(x.coeffs / y)
    raise NotImplementedError


# --- the routines ------------------------------------------------------------------------
def _wraps_polyroutine(func: Any) -> Any:
    """``func`` on coefficient arrays, taking poly1d objects, scalars and 1-d arrays,
    and giving a poly1d when one came in."""
    def _get_coeffs(x: Any) -> Any:
        cupy = _cp()
        if isinstance(x, poly1d):
            return x._coeffs
        if cupy.isscalar(x):
            return cupy.atleast_1d(x)
        if isinstance(x, cupy.ndarray):
            x = cupy.atleast_1d(x)
            if x.ndim == 1:
                return x
            raise ValueError("Multidimensional inputs are not supported")
        raise TypeError("Unsupported type")

    def wrapper(*args: Any) -> Any:
        out = func(*[_get_coeffs(x) for x in args])
        if all(not isinstance(x, poly1d) for x in args):
            return out
        if isinstance(out, tuple):
            return tuple(poly1d(x) for x in out)
        return poly1d(out)
    return functools.update_wrapper(wrapper, func)


def poly(seq_of_zeros: Any) -> Any:
    """The coefficients of the polynomial with the given roots.

    See Also
    --------
    cupy.poly
    """
    cupy = _cp()
    x = seq_of_zeros
    if x.ndim == 2 and x.shape[0] == x.shape[1] and x.shape[0] != 0:
        if cupy.array_equal(x, x.conj().T):
            x = cupy.linalg.eigvalsh(x)
        else:
            raise NotImplementedError("Only complex Hermitian and real symmetric 2d arrays "
                                      "are supported currently")
    elif x.ndim == 1:
        x = x.astype(cupy.mintypecode(x.dtype.char), copy=False)
    else:
        raise ValueError("Input must be 1d or non-empty square 2d array.")
    if x.size == 0:
        return 1.0
    size = 2 ** (x.size - 1).bit_length()
    a = cupy.zeros((size, 2), x.dtype)
    a[:, 0].fill(1)
    cupy.negative(x, out=a[:x.size, 1])
    while size > 1:
        size = size // 2
        a = _fft_convolve(a[:size], a[size:], "full")
    return a[0, :x.size + 1]


@_wraps_polyroutine
def polyadd(a1: Any, a2: Any) -> Any:
    """The sum of two polynomials.

    See Also
    --------
    cupy.polyadd
    """
    cupy = _cp()
    if a1.size < a2.size:
        a1, a2 = a2, a1
    out = cupy.pad(a2, (a1.size - a2.size, 0))
    out = out.astype(cupy.result_type(a1, a2), copy=False)
    out += a1
    return out


@_wraps_polyroutine
def polysub(a1: Any, a2: Any) -> Any:
    """The difference of two polynomials.

    See Also
    --------
    cupy.polysub
    """
    cupy = _cp()
    if a1.shape[0] <= a2.shape[0]:
        out = cupy.pad(a1, (a2.shape[0] - a1.shape[0], 0))
        out = out.astype(cupy.result_type(a1, a2), copy=False)
        out -= a2
    else:
        out = cupy.pad(a2, (a1.shape[0] - a2.shape[0], 0))
        out = out.astype(cupy.result_type(a1, a2), copy=False)
        out -= 2 * out - a1
    return out


@_wraps_polyroutine
def polymul(a1: Any, a2: Any) -> Any:
    """The product of two polynomials.

    See Also
    --------
    cupy.polymul
    """
    cupy = _cp()
    a1 = cupy.trim_zeros(a1, trim="f")
    a2 = cupy.trim_zeros(a2, trim="f")
    if a1.size == 0:
        a1 = cupy.array([0.], a1.dtype)
    if a2.size == 0:
        a2 = cupy.array([0.], a2.dtype)
    return cupy.convolve(a1, a2)


def _polypow_direct(x: Any, n: int) -> Any:
    convolve = _cp().convolve
    if n == 0:
        return 1
    if n == 1:
        return x
    if n % 2 == 0:
        return _polypow(convolve(x, x), n // 2)
    return convolve(x, _polypow(convolve(x, x), (n - 1) // 2))


def _polypow(x: Any, n: int) -> Any:
    cupy = _cp()
    if n == 0:
        return 1
    if n == 1:
        return x
    if x.dtype.kind in "bui":  # CuPy's _choose_conv_method: 'direct' for integers
        return _polypow_direct(x, n)
    fft, ifft = (cupy.fft.fft, cupy.fft.ifft) if x.dtype.kind == "c" else \
        (cupy.fft.rfft, cupy.fft.irfft)
    out_size = (x.size - 1) * n + 1
    size = _next_fast_len(out_size)
    fx = fft(x, size)
    fy = cupy.power(fx, n, fx)
    y = ifft(fy, size)
    return y[:out_size]


def _next_fast_len(n: int) -> int:
    from ..cupyx.scipy import fft
    return fft.next_fast_len(n)


def _fft_convolve(a1: Any, a2: Any, mode: str) -> Any:
    """CuPy's FFT convolution along the last axis (``cupy._math.misc._fft_convolve``)."""
    cupy = _cp()
    offset = 0
    if a1.shape[-1] < a2.shape[-1]:
        a1, a2 = a2, a1
        offset = 1 - a2.shape[-1] % 2
    if a1.dtype.kind == "c" or a2.dtype.kind == "c":
        fft, ifft = cupy.fft.fft, cupy.fft.ifft
    else:
        fft, ifft = cupy.fft.rfft, cupy.fft.irfft
    dtype = cupy.result_type(a1, a2)
    n1, n2 = a1.shape[-1], a2.shape[-1]
    out_size = _next_fast_len(n1 + n2 - 1)
    out = ifft(fft(a1, out_size) * fft(a2, out_size), out_size)
    if mode == "full":
        start, end = 0, n1 + n2 - 1
    elif mode == "same":
        start = (n2 - 1) // 2 + offset
        end = start + n1
    elif mode == "valid":
        start, end = n2 - 1, n1
    else:
        raise ValueError("acceptable mode flags are `valid`, `same`, or `full`.")
    out = out[..., start:end]
    if dtype.kind in "iu":
        out = cupy.around(out)
    return out.astype(dtype, copy=False)


def _polyfit_typecast(x: Any) -> Any:
    if x.dtype.kind == "c":
        return x.astype(numpy.complex128, copy=False)
    return x.astype(numpy.float64, copy=False)


def polyfit(x: Any, y: Any, deg: Any, rcond: Any = None, full: bool = False, w: Any = None,
            cov: Any = False) -> Any:
    """Least-squares polynomial fit.

    See Also
    --------
    cupy.polyfit
    """
    cupy = _cp()
    if x.dtype.char == "e" and y.dtype.kind == "b":
        raise NotImplementedError("float16 x and bool y are not currently supported")
    if y.dtype == numpy.float16:
        raise TypeError("float16 y are not supported")
    x = _polyfit_typecast(x)
    y = _polyfit_typecast(y)
    deg = int(deg)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.size != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    lhs = cupy.polynomial.polynomial.polyvander(x, deg)[:, ::-1]
    rhs = y
    if w is not None:
        w = _polyfit_typecast(w)
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.size != x.size:
            raise TypeError("expected w and y to have the same length")
        lhs *= w[:, None]
        if rhs.ndim == 2:
            w = w[:, None]
        rhs *= w
    if rcond is None:
        rcond = x.size * cupy.finfo(x.dtype).eps
    scale = cupy.sqrt((cupy.square(lhs)).sum(axis=0))
    lhs /= scale
    c, resids, rank, s = cupy.linalg.lstsq(lhs, rhs, rcond)
    if y.ndim > 1:
        scale = scale.reshape(-1, 1)
    c /= scale
    order = deg + 1
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", cupy.exceptions.RankWarning,
                      stacklevel=3)
    if full:
        if resids.dtype.kind == "c":
            resids = cupy.absolute(resids)
        return c, resids, rank, s, rcond
    if cov:
        base = cupy.linalg.inv(cupy.dot(lhs.T, lhs))
        base /= cupy.outer(scale, scale)
        if cov == "unscaled":
            factor = 1
        elif x.size > order:
            factor = resids / (x.size - order)
        else:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")
        if y.ndim != 1:
            base = base[..., None]
        return c, base * factor
    return c


def polyval(p: Any, x: Any) -> Any:
    """Evaluate a polynomial at given points.

    See Also
    --------
    cupy.polyval
    """
    cupy = _cp()
    if isinstance(p, poly1d):
        p = p.coeffs
    if not isinstance(p, cupy.ndarray) or p.ndim == 0:
        raise TypeError("p must be 1d ndarray or poly1d object")
    if p.ndim > 1:
        raise ValueError("p must be 1d array")
    if isinstance(x, poly1d):
        dtype = numpy.result_type(x.coeffs, 1)
        res = poly1d(cupy.array([0], dtype=dtype))
        prod = poly1d(cupy.array([1], dtype=dtype))
        for c in p[::-1]:
            res = res + prod * c
            prod = prod * x
        return res
    if not isinstance(x, cupy.ndarray):
        x = cupy.asarray(x)
    dtype = numpy.result_type(p.dtype.type(0), x)
    p = p.astype(dtype, copy=False)
    if p.size == 0:
        return cupy.zeros(x.shape, dtype)
    if dtype == numpy.bool_:
        return p.any() * x + p[-1]
    if not cupy.isscalar(x):
        x = cupy.asarray(x, dtype=dtype)[..., None]
    x = x ** cupy.arange(p.size, dtype=dtype)
    return (p[::-1] * x).sum(axis=-1, dtype=dtype)


def roots(p: Any) -> Any:
    """The roots of a polynomial with the given coefficients.

    See Also
    --------
    cupy.roots
    """
    cupy = _cp()
    if isinstance(p, poly1d):
        p = p.coeffs
    if p.dtype.kind == "b":
        raise NotImplementedError("boolean inputs are not supported")
    if p.ndim == 0:
        raise TypeError("0-dimensional input is not allowed")
    if p.size < 2:
        return cupy.array([])
    [p] = cupy.polynomial.polyutils.as_series([p[::-1]])
    if p.size < 2:
        return cupy.array([])
    if p.size == 2:
        out = (-p[0] / p[1])[None]
        if p[0] == 0:
            out = out.real.astype(numpy.float64)
        return out
    cmatrix = cupy.polynomial.polynomial.polycompanion(p)
    if cupy.array_equal(cmatrix, cmatrix.conj().T):
        out = cupy.linalg.eigvalsh(cmatrix)
    else:
        raise NotImplementedError("Only complex Hermitian and real symmetric 2d arrays are "
                                  "supported currently")
    return out.astype(p.dtype)


LOCAL_NAMES = ("poly1d", "poly", "polyadd", "polysub", "polymul", "polyfit", "polyval",
               "roots")
