"""CuPy routines that take Python callables or client objects, run on the client.

A Python function cannot travel to the server, so the routines that call one
(``fromfunction``, ``mask_indices``, ``apply_along_axis``, ``apply_over_axes``,
``vectorize``) run here, as CuPy's own pure-Python versions do, each array
operation inside them going to the server. ``poly1d`` is a client object holding
its coefficients as a device array (after CuPy 14.2's ``cupy/lib`` sources, MIT
licence).
"""
from __future__ import annotations

import operator
from typing import Any

import numpy


def _cp() -> Any:
    from gpushare import cupy
    return cupy


def fromfunction(function: Any, shape: Any, *, dtype: Any = float, like: Any = None,
                 **kwargs: Any) -> Any:
    """Construct an array by executing a function over each coordinate.

    See Also
    --------
    cupy.fromfunction
    """
    args = _cp().indices(shape, dtype=dtype)
    return function(*args, **kwargs)


def mask_indices(n: int, mask_func: Any, k: Any = 0) -> tuple:
    """The indices of the non-zero entries of ``mask_func(ones((n, n)), k)``.

    See Also
    --------
    cupy.mask_indices
    """
    a = _cp().ones((n, n), dtype=numpy.int8)
    return mask_func(a, k).nonzero()


def apply_along_axis(func1d: Any, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """Apply a function to 1-D slices along the given axis.

    See Also
    --------
    cupy.apply_along_axis
    """
    cupy = _cp()
    arr = cupy.asarray(arr)
    ndim = arr.ndim
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise numpy.exceptions.AxisError(axis, ndim)
    axis %= ndim
    inarr_view = cupy.moveaxis(arr, axis, -1)
    inds = (ind + (Ellipsis,) for ind in numpy.ndindex(inarr_view.shape[:-1]))
    try:
        ind0 = next(inds)
    except StopIteration:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0") \
            from None
    res = cupy.asarray(func1d(inarr_view[ind0], *args, **kwargs))
    buff = cupy.empty(inarr_view.shape[:-1] + res.shape, res.dtype)
    buff[ind0] = res
    for ind in inds:
        buff[ind] = cupy.asarray(func1d(inarr_view[ind], *args, **kwargs))
    for _ in range(res.ndim):
        buff = cupy.moveaxis(buff, -1, axis)
    return buff


def apply_over_axes(func: Any, a: Any, axes: Any) -> Any:
    """Apply a function repeatedly over multiple axes.

    See Also
    --------
    cupy.apply_over_axes
    """
    cupy = _cp()
    val = cupy.asarray(a)
    n = a.ndim
    if numpy.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        if axis < 0:
            axis = n + axis
        args = (val, axis)
        res = func(*args)
        if res.ndim == val.ndim:
            val = res
        else:
            res = cupy.expand_dims(res, axis)
            if res.ndim == val.ndim:
                val = res
            else:
                raise ValueError("function is not returning an array of the correct shape")
    return val


class vectorize:
    """Generalized function class: ``pyfunc`` is applied to whole arrays.

    CuPy compiles ``pyfunc`` into a kernel; through gpushare it is called once with
    the (broadcast) device arrays, so it must be written with array operations
    (arithmetic, comparisons, ``cupy`` functions), which is what CuPy's JIT
    accepts too, minus control flow on element values.

    See Also
    --------
    cupy.vectorize
    """

    def __init__(self, pyfunc: Any, otypes: Any = None, doc: Any = None, excluded: Any = None,
                 cache: bool = False, signature: Any = None) -> None:
        self.pyfunc = pyfunc
        self.__doc__ = doc or pyfunc.__doc__
        self.excluded = excluded
        self.cache = cache
        self.signature = signature
        self.otypes = None
        if otypes is not None:
            self.otypes = "".join([numpy.dtype(t).char for t in otypes])
        if excluded is not None:
            raise NotImplementedError(
                "cupy.vectorize does not support `excluded` option currently.")
        if signature is not None:
            raise NotImplementedError(
                "cupy.vectorize does not support `signature` option currently.")

    def __call__(self, *args: Any) -> Any:
        cupy = _cp()
        arrays = cupy.broadcast_arrays(*[cupy.asarray(a) for a in args])
        out = self.pyfunc(*arrays)
        outs = out if isinstance(out, tuple) else (out,)
        if self.otypes is not None and len(self.otypes) != len(outs):
            raise TypeError("Wrong number of return values: "
                            f"{len(outs)} for otypes {self.otypes!r}")
        shape = arrays[0].shape if arrays else ()
        results = []
        for i, o in enumerate(outs):
            o = cupy.asarray(o)
            if self.otypes is not None:
                o = o.astype(self.otypes[i], copy=False)
            if o.shape != shape:
                o = cupy.broadcast_to(o, shape).copy()
            results.append(o)
        return tuple(results) if isinstance(out, tuple) else results[0]


class poly1d:
    """A one-dimensional polynomial, its coefficients held on the device.

    See Also
    --------
    cupy.poly1d
    """

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, c_or_r: Any, r: bool = False, variable: Any = None) -> None:
        cupy = _cp()
        if isinstance(c_or_r, poly1d):
            self._variable = c_or_r._variable if variable is None else variable
            self._coeffs = c_or_r._coeffs
            return
        if r:
            c_or_r = cupy.poly(c_or_r)
        c_or_r = cupy.atleast_1d(cupy.asarray(c_or_r))
        if c_or_r.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        c_or_r = cupy.trim_zeros(c_or_r, trim="f")
        if c_or_r.size == 0:
            c_or_r = cupy.array([0], dtype=c_or_r.dtype)
        self._coeffs = c_or_r
        self._variable = "x" if variable is None else variable

    # --- attributes ---------------------------------------------------------------
    @property
    def coeffs(self) -> Any:
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
        return self._coeffs.size - 1

    @property
    def roots(self) -> Any:
        return _cp().roots(self._coeffs)

    r = roots
    c = coef = coefficients = coeffs
    o = order

    # --- host conversion -------------------------------------------------------------
    def get(self, stream: Any = None) -> numpy.poly1d:
        """A ``numpy.poly1d`` with the coefficients copied to the host."""
        return numpy.poly1d(self._coeffs.get(stream), variable=self._variable)

    def set(self, a: numpy.poly1d, stream: Any = None) -> None:
        """Copy a ``numpy.poly1d``'s coefficients into this polynomial."""
        self._coeffs = _cp().asarray(a.coeffs)
        self._variable = a.variable

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                        "`.get()` to construct a NumPy array explicitly.")

    def __repr__(self) -> str:
        return repr(self.get())

    def __str__(self) -> str:
        return str(self.get())

    def __len__(self) -> int:
        return self.order

    def __iter__(self) -> Any:
        return iter(self._coeffs)

    # --- evaluation and arithmetic --------------------------------------------------------
    def __call__(self, val: Any) -> Any:
        if isinstance(val, poly1d):  # composition, by Horner's rule
            res = poly1d([0])
            for c in self._coeffs.get():
                res = res * val + c
            return res
        return polyval(self._coeffs, val)

    def __neg__(self) -> "poly1d":
        return poly1d(-self._coeffs)

    def __pos__(self) -> "poly1d":
        return self

    def __add__(self, other: Any) -> "poly1d":
        return polyadd(self, other if isinstance(other, poly1d) else poly1d(other))

    __radd__ = __add__

    def __sub__(self, other: Any) -> "poly1d":
        return polysub(self, other if isinstance(other, poly1d) else poly1d(other))

    def __rsub__(self, other: Any) -> "poly1d":
        return polysub(poly1d(other), self)

    def __mul__(self, other: Any) -> "poly1d":
        if _cp().isscalar(other):
            return poly1d(self._coeffs * other)
        return polymul(self, other if isinstance(other, poly1d) else poly1d(other))

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> "poly1d":
        if _cp().isscalar(other):
            return poly1d(self._coeffs / other)
        raise NotImplementedError("gpushare: polynomial division is not supported")

    def __pow__(self, val: Any) -> "poly1d":
        if not _cp().isscalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res = poly1d([1])
        for _ in range(int(val)):
            res = res * self
        return res

    def __eq__(self, other: Any) -> bool:  # type: ignore[override]
        if not isinstance(other, poly1d):
            return NotImplemented
        if self._coeffs.shape != other._coeffs.shape:
            return False
        return bool((self._coeffs == other._coeffs).all())

    def __ne__(self, other: Any) -> bool:  # type: ignore[override]
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    def __getitem__(self, val: int) -> Any:
        ind = self.order - val
        if val > self.order or val < 0:
            return self._coeffs.dtype.type(0)
        return self._coeffs[ind]

    def __setitem__(self, key: int, val: Any) -> None:
        cupy = _cp()
        if key < 0:
            raise ValueError("Negative powers are not allowed.")
        ind = self.order - key
        if key > self.order:
            zeros = cupy.zeros(key - self.order, self._coeffs.dtype)
            self._coeffs = cupy.concatenate((zeros, self._coeffs))
            ind = 0
        self._coeffs[ind] = val

    def deriv(self, m: int = 1) -> "poly1d":
        """The m-th derivative (computed from a host copy)."""
        return poly1d(self.get().deriv(m).coeffs)

    def integ(self, m: int = 1, k: Any = 0) -> "poly1d":
        """The m-th antiderivative (computed from a host copy)."""
        return poly1d(self.get().integ(m, k).coeffs)


def _coeffs(p: Any) -> Any:
    return p._coeffs if isinstance(p, poly1d) else p


def _remote_poly(name: str) -> Any:
    """``cupy.<name>`` on the server, with poly1d arguments sent as coefficients and a
    poly1d result when one came in (as CuPy does)."""
    def fn(*args: Any, **kwargs: Any) -> Any:
        from . import _remote
        wrap = any(isinstance(a, poly1d) for a in args)
        out = _remote(f"cupy.{name}")(*map(_coeffs, args), **kwargs)
        return poly1d(out) if wrap and name in ("polyadd", "polysub", "polymul") else out
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Runs ``cupy.{name}`` on the server.\n\nSee Also\n--------\ncupy.{name}"
    return fn


polyadd = _remote_poly("polyadd")
polysub = _remote_poly("polysub")
polymul = _remote_poly("polymul")
polyval = _remote_poly("polyval")
polyfit = _remote_poly("polyfit")
roots = _remote_poly("roots")
poly = _remote_poly("poly")

LOCAL_NAMES = ("fromfunction", "mask_indices", "apply_along_axis", "apply_over_axes",
               "vectorize", "poly1d", "polyadd", "polysub", "polymul", "polyval", "polyfit",
               "roots", "poly")
