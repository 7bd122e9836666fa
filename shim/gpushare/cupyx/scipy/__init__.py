"""gpushare's ``cupyx.scipy``: each submodule forwards its public functions to the server.

``interpolate``'s classes, ``spatial``'s ``KDTree``/``Delaunay``, ``signal``'s LTI systems
and CZT plans and ``sparse.linalg``'s server-made operators and ``SuperLU`` are served as
objects on the server (``namespace.SERVED_CLASSES``): constructing one, calling it and its
methods (and classmethods) are calls; its attributes are read from the server. So are
``sparse``'s matrices and arrays (``_sparse.py``). A ``LinearOperator`` of the user's
Python functions lives here (``_operators.py``), and the solvers that can take one run
here for it (``_iterative.py``, ``_eigen.py``, ``_lobpcg.py``). The classes left
(``spatial.distance``'s) exist and raise ``NotImplementedError`` when constructed.
"""
from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any

import numpy

from ... import client, errors
from ..._public import PublicModule, by_reference
from ...cupy import _export_table, _objects, _unsupported
from ...namespace import (SERVED_CLASSES, SERVED_CLASSMETHODS, SERVED_MODULES,
                          SERVED_NOT_CALLABLE, module_names)
from . import (_eigen, _fft, _iterative, _lobpcg, _ndimage, _operators, _sparse, _special,
               _stats)

#: as CuPy's: whether this machine has SciPy (CuPy's tests compare against it); looked
#: up, not imported (the client stays light)
_scipy_available = importlib.util.find_spec("scipy") is not None

_SUBMODULES = ("special", "ndimage", "linalg", "signal", "signal.windows", "sparse",
               "sparse.linalg", "sparse.csgraph", "stats", "fft", "fftpack", "interpolate",
               "spatial", "spatial.distance")

#: why each module's classes are not served
_NO_CLASSES = {
    "spatial.distance": "only the distance functions are served",
}


#: served classes whose objects only the server makes (a client's would hold Python
#: functions, which cannot run there)
_MADE_ON_SERVER = {"LinearOperator": "the server's operators are made by aslinearoperator",
                   "SuperLU": "splu and spilu make it"}
#: ``sparse.linalg``'s solvers that run on the client for an operator of Python functions
#: or a callback (CuPy's, ported); the others run on the server only
_CLIENT_SOLVERS = {"bicgstab": _iterative.bicgstab, "cg": _iterative.cg,
                   "cgs": _iterative.cgs, "gmres": _iterative.gmres,
                   "minres": _iterative.minres, "eigsh": _eigen.eigsh, "svds": _eigen.svds,
                   "lobpcg": _lobpcg.lobpcg}


def _served_class(module: str, name: str, made: dict[str, type]) -> type:
    """The client's class for ``SERVED_CLASSES[name]``: instances are handles of server
    objects (see ``cupy/_objects.py``)."""
    if name in made:
        return made[name]
    parent, methods, attributes = SERVED_CLASSES[name]
    if parent:
        bases: tuple = tuple(_served_class(module, p, made)
                             for p in ((parent,) if isinstance(parent, str) else parent))
    elif name == "LinearOperator":  # the server's operators are LinearOperators here too
        bases = (_objects.RemoteObjectProxy, _operators.LinearOperator)
    else:
        bases = (_objects.RemoteObjectProxy,)
    path = f"{module}.{name}"

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        if name in _MADE_ON_SERVER:
            raise NotImplementedError(f"gpushare: {path} is not supported ("
                                      f"{_MADE_ON_SERVER[name]})")
        return _objects.create(cls, path, name, *args, **kwargs)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        return self._call("__call__", *args, **kwargs)

    def __setattr__(self: Any, attr: str, value: Any) -> None:
        # (CuPy's classes here are Python objects: their data attributes are writable,
        # ``interp1d.fill_value = 321.0``, ``BSpline.extrapolate = 'periodic'``)
        if attr in type(self)._gs_data:
            self._gs_session.call("setattr", attr, (self, value))
            return
        object.__setattr__(self, attr, value)

    # CuPy's members and no others: its methods (on the class, below) and its attributes
    # and its parents', read from the server; any other name is an AttributeError
    # (RemoteObjectProxy.__getattr__)
    data = frozenset(attributes).union(*(getattr(b, "_gs_data", ()) for b in bases))
    namespace = {
        "__slots__": (), "__new__": __new__, "__init__": __init__, "__setattr__": __setattr__,
        "_gs_data": data, "__module__": module,
        "__doc__": f"{path}, an object on the gpushare server.\n\nSee Also\n--------\n{path}"}
    if name not in SERVED_NOT_CALLABLE:  # (CuPy's LTI systems, KDTree... are not callable)
        namespace["__call__"] = __call__
    for method in SERVED_CLASSMETHODS.get(name, ()):
        namespace[method] = classmethod((lambda method: lambda cls, *args, **kwargs: (
            client.get_session().call(
                "call", f"{module}.{cls.__name__}.{method}", args, kwargs)))(method))
    for method in methods:  # (operators must be: Python looks them up on the class)
        namespace[method] = _objects.remote_method(method, f"See Also: {path}.{method}")
    if name == "LinearOperator":  # what the client's operators call on their operands
        for own, public in (("_matvec", "matvec"), ("_rmatvec", "rmatvec"),
                            ("_matmat", "matmat"), ("_rmatmat", "rmatmat"),
                            ("_adjoint", "adjoint"), ("_transpose", "transpose")):
            namespace[own] = namespace[public]
        namespace["__repr__"] = _operators.LinearOperator.__repr__
    cls = type(name, bases, namespace)
    made[name] = _objects.register(name)(cls)
    return cls


def _make(name: str) -> types.ModuleType:
    full = f"{__name__}.{name}"
    cupy_module = f"cupyx.scipy.{name}"
    mod = PublicModule(full, f"{cupy_module}, run on the gpushare server.")
    _export_table(mod, cupy_module, numpy, {})
    made: dict[str, type] = {}
    sparse_classes = _sparse.classes() if name == "sparse" else {}
    if name == "sparse":
        mod._spbase = _sparse._spbase
    for cls in SERVED_MODULES:  # (the private ones too: the server's results)
        if SERVED_MODULES[cls] == cupy_module:
            _served_class(cupy_module, cls, made)
    for cls, kind in module_names(cupy_module).items():
        if cls in sparse_classes:
            setattr(mod, cls, sparse_classes[cls])
        elif kind == "class" and SERVED_MODULES.get(cls) == cupy_module:
            setattr(mod, cls, _served_class(cupy_module, cls, made))
        elif kind == "class":
            setattr(mod, cls, _unsupported.cls(f"{cupy_module}.{cls}",
                                               _NO_CLASSES.get(name, "not served yet")))
    if name == "sparse":
        for pname, predicate in _sparse.predicates(sparse_classes).items():
            predicate.__module__, predicate.__name__ = cupy_module, pname
            setattr(mod, pname, predicate)
        mod.SparseWarning = errors.SparseWarning  # (warnings the server's calls raise)
        mod.SparseEfficiencyWarning = errors.SparseEfficiencyWarning
    elif name == "sparse.linalg":
        _client_operators(mod)
    elif name == "special":  # CuPy's alias (imported as psi): one object
        mod.psi = mod.digamma
        _special.install(mod)  # (softmax and the like: CuPy's code, run here)
    elif name == "ndimage":  # the filters that call Python functions run here
        _ndimage.install(mod)
    elif name == "stats":  # CuPy's Python, run here for device arrays
        _stats.install(mod)
    elif name == "fft":  # a backend of scipy.fft, as CuPy's
        _fft.install(mod)
    elif name == "linalg":  # they run CuPy's code on whatever arrays they are given
        mod.khatri_rao = _khatri_rao()
        mod.expm = _expm(mod.expm)
        mod.solve_triangular = _solve_triangular(mod.solve_triangular)
    elif name == "signal":  # a warning, raised by the server's filter design functions
        mod.BadCoefficients = errors.BadCoefficients
        mod.cwt = _cwt(mod)  # it calls a Python function: run here
        mod.argrelextrema = _argrelextrema()  # (so does this one: its comparator)
        mod.csd, mod.welch = _csd_welch(mod)  # (a Python detrend: run here)
        for fname, plain in _ndimage.PIPELINED_SIGNAL.items():  # (queued where it can)
            setattr(mod, fname, _ndimage.pipelined_filter(
                fname, getattr(mod, fname), plain, "cupyx.scipy.signal"))
        mod.get_window = _ndimage.pipelined_get_window(mod.get_window)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[f"{__name__}.{parent}"], child, mod)
    sys.modules[full] = mod
    by_reference(mod)  # (its functions pickle as themselves)
    return mod


def _csd_welch(mod: Any) -> Any:
    """``signal.csd`` and ``welch`` with a Python function as ``detrend``: CuPy's own
    Python (``_spectral.py``, ``_spectral_impl.py``: ``_spectral_helper`` in its
    ``psd`` mode, no boundary, no padding; MIT licence, ``LICENSE.cupy``) run here over
    device arrays, the function called on the segments as in CuPy. Any other ``detrend``
    is the server's call."""
    import warnings
    remote_csd, remote_welch = mod.csd, mod.welch

    def _triage(cupy: Any, window: Any, nperseg: Any, n: int) -> Any:
        if isinstance(window, (str, tuple)):
            if nperseg is None:
                nperseg = 256
            if nperseg > n:
                warnings.warn("nperseg = {0:d} is greater than input length "
                              " = {1:d}, using nperseg = {1:d}".format(nperseg, n))
                nperseg = n
            return mod.get_window(window, nperseg), nperseg
        win = cupy.asarray(window)
        if len(win.shape) != 1:
            raise ValueError("window must be 1-D")
        if n < win.shape[-1]:
            raise ValueError("window is longer than input signal")
        if nperseg is None:
            nperseg = win.shape[0]
        elif nperseg != win.shape[0]:
            raise ValueError("value specified for nperseg is different"
                             " from length of window")
        return win, nperseg

    def _fft_helper(cupy: Any, x: Any, win: Any, detrend_func: Any, nperseg: int,
                    noverlap: int, nfft: int, sides: str) -> Any:
        if nperseg == 1 and noverlap == 0:
            result = x[..., None]
        else:
            step = nperseg - noverlap
            shape = x.shape[:-1] + ((x.shape[-1] - noverlap) // step, nperseg)
            strides = x.strides[:-1] + (step * x.strides[-1], x.strides[-1])
            result = cupy.lib.stride_tricks.as_strided(x, shape=shape, strides=strides)
        result = win * detrend_func(result)
        if sides == "twosided":
            return cupy.fft.fft(result, n=nfft)
        return cupy.fft.rfft(result.real, n=nfft)

    def _helper(cupy: Any, x: Any, y: Any, fs: Any, window: Any, nperseg: Any,
                noverlap: Any, nfft: Any, detrend: Any, return_onesided: Any,
                scaling: Any, axis: Any) -> Any:
        same_data = y is x
        axis = int(axis)
        x = cupy.asarray(x)
        if not same_data:
            y = cupy.asarray(y)
            outdtype = cupy.result_type(x, y, cupy.complex64)
            xouter, youter = list(x.shape), list(y.shape)
            xouter.pop(axis)
            youter.pop(axis)
            try:
                outershape = cupy.broadcast(cupy.empty(xouter), cupy.empty(youter)).shape
            except ValueError:
                raise ValueError("x and y cannot be broadcast together.")
        else:
            outdtype = cupy.result_type(x, cupy.complex64)
        if same_data:
            if x.size == 0:
                return (cupy.empty(x.shape), cupy.empty(x.shape), cupy.empty(x.shape))
        elif x.size == 0 or y.size == 0:
            outshape = outershape + (min([x.shape[axis], y.shape[axis]]),)
            emptyout = cupy.rollaxis(cupy.empty(outshape), -1, axis)
            return emptyout, emptyout, emptyout
        if x.ndim > 1 and axis != -1:
            x = cupy.rollaxis(x, axis, len(x.shape))
            if not same_data and y.ndim > 1:
                y = cupy.rollaxis(y, axis, len(y.shape))
        if not same_data and x.shape[-1] != y.shape[-1]:
            if x.shape[-1] < y.shape[-1]:
                pad_shape = list(x.shape)
                pad_shape[-1] = y.shape[-1] - x.shape[-1]
                x = cupy.concatenate((x, cupy.zeros(pad_shape)), -1)
            else:
                pad_shape = list(y.shape)
                pad_shape[-1] = x.shape[-1] - y.shape[-1]
                y = cupy.concatenate((y, cupy.zeros(pad_shape)), -1)
        if nperseg is not None:
            nperseg = int(nperseg)
            if nperseg < 1:
                raise ValueError("nperseg must be a positive integer")
        win, nperseg = _triage(cupy, window, nperseg, x.shape[-1])
        if nfft is None:
            nfft = nperseg
        elif nfft < nperseg:
            raise ValueError("nfft must be greater than or equal to nperseg.")
        else:
            nfft = int(nfft)
        noverlap = nperseg // 2 if noverlap is None else int(noverlap)
        if noverlap >= nperseg:
            raise ValueError("noverlap must be less than nperseg.")
        if axis != -1:
            def detrend_func(d: Any) -> Any:
                d = cupy.rollaxis(d, -1, axis)
                d = detrend(d)
                return cupy.rollaxis(d, axis, len(d.shape))
        else:
            detrend_func = detrend
        if cupy.result_type(win, cupy.complex64) != outdtype:
            win = win.astype(outdtype)
        if scaling == "density":
            scale = 1.0 / (fs * (win * win).sum())
        elif scaling == "spectrum":
            scale = 1.0 / win.sum() ** 2
        else:
            raise ValueError("Unknown scaling: %r" % scaling)
        sides = "twosided"
        if return_onesided:
            if cupy.iscomplexobj(x):
                warnings.warn("Input data is complex, switching to return_onesided=False")
            else:
                sides = "onesided"
                if not same_data and cupy.iscomplexobj(y):
                    sides = "twosided"
                    warnings.warn(
                        "Input data is complex, switching to return_onesided=False")
        if sides == "twosided":
            freqs = cupy.fft.fftfreq(nfft, 1 / fs)
        else:
            freqs = cupy.fft.rfftfreq(nfft, 1 / fs)
        result = _fft_helper(cupy, x, win, detrend_func, nperseg, noverlap, nfft, sides)
        if not same_data:
            result_y = _fft_helper(cupy, y, win, detrend_func, nperseg, noverlap, nfft,
                                   sides)
            result = cupy.conj(result) * result_y
        else:
            result = cupy.conj(result) * result
        result *= scale
        if sides == "onesided":
            if nfft % 2:
                result[..., 1:] *= 2
            else:
                result[..., 1:-1] *= 2
        result = result.astype(outdtype)
        if same_data:
            result = result.real
        if axis < 0:
            axis -= 1
        return freqs, None, cupy.rollaxis(result, -1, axis)

    def csd(x: Any, y: Any, fs: Any = 1.0, window: Any = "hann", nperseg: Any = None,
            noverlap: Any = None, nfft: Any = None, detrend: Any = "constant",
            return_onesided: Any = True, scaling: Any = "density", axis: Any = -1,
            average: Any = "mean") -> Any:
        """See Also: cupyx.scipy.signal.csd"""
        if not detrend or not hasattr(detrend, "__call__"):
            return remote_csd(x, y, fs, window, nperseg, noverlap, nfft, detrend,
                              return_onesided, scaling, axis, average)
        from ... import cupy
        x = cupy.asarray(x)
        y = cupy.asarray(y)
        freqs, _, Pxy = _helper(cupy, x, y, fs, window, nperseg, noverlap, nfft,
                                detrend, return_onesided, scaling, axis)
        if len(Pxy.shape) >= 2 and Pxy.size > 0:
            if Pxy.shape[-1] > 1:
                if average == "median":
                    n = Pxy.shape[-1]
                    ii_2 = 2 * cupy.arange(1.0, (n - 1) // 2 + 1)
                    bias = 1 + cupy.sum(1.0 / (ii_2 + 1) - 1.0 / ii_2)
                    Pxy = cupy.median(Pxy, axis=-1) / bias
                elif average == "mean":
                    Pxy = Pxy.mean(axis=-1)
                else:
                    raise ValueError(
                        'average must be "median" or "mean", got %s' % (average,))
            else:
                Pxy = cupy.reshape(Pxy, Pxy.shape[:-1])
        return freqs, Pxy

    def welch(x: Any, fs: Any = 1.0, window: Any = "hann", nperseg: Any = None,
              noverlap: Any = None, nfft: Any = None, detrend: Any = "constant",
              return_onesided: Any = True, scaling: Any = "density", axis: Any = -1,
              average: Any = "mean") -> Any:
        """See Also: cupyx.scipy.signal.welch"""
        if not detrend or not hasattr(detrend, "__call__"):
            return remote_welch(x, fs, window, nperseg, noverlap, nfft, detrend,
                                return_onesided, scaling, axis, average)
        freqs, Pxx = csd(x, x, fs=fs, window=window, nperseg=nperseg,
                         noverlap=noverlap, nfft=nfft, detrend=detrend,
                         return_onesided=return_onesided, scaling=scaling, axis=axis,
                         average=average)
        return freqs, Pxx.real

    csd.__module__ = welch.__module__ = "cupyx.scipy.signal"
    return csd, welch


def _solve_triangular(remote: Any) -> Any:
    """``linalg.solve_triangular`` (``remote``, the server's), queued for one square
    matrix ``a`` of floats or complex numbers and a ``b`` of as many rows, without
    ``overwrite_b`` or ``check_finite``: CuPy's result (``_solve_triangular.py``) is
    ``b`` copied into a new Fortran-ordered array of ``a``'s dtype, solved in place by
    ``trsm``; nothing in it can fail but the data."""
    def solve_triangular(a: Any, b: Any, trans: Any = 0, lower: Any = False,
                         unit_diagonal: Any = False, overwrite_b: Any = False,
                         check_finite: Any = False) -> Any:
        from ...cupy import _infer
        from ...cupy._ndarray import ndarray
        from ...cupy._routines import _submit
        if type(a) is ndarray and type(b) is ndarray and \
                a._gs_session is b._gs_session and len(a._shape) == 2 and \
                a._shape[0] == a._shape[1] and 1 <= len(b._shape) <= 2 and \
                b._shape[0] == a._shape[0] and 0 not in b._shape and \
                a._dtype.char in "fdFD" and (b._dtype.kind in "biuf" or
                                             a._dtype.kind == b._dtype.kind == "c") and \
                trans in (0, 1, 2, "N", "T", "C") and type(trans) in (int, str) and \
                overwrite_b is False and check_finite is False and \
                type(lower) is bool and type(unit_diagonal) is bool:
            return _submit(a._gs_session, "cupyx.scipy.linalg.solve_triangular", (a, b),
                           {"trans": trans, "lower": lower, "unit_diagonal": unit_diagonal},
                           b._shape, a._dtype,
                           strides=_infer.f_strides(b._shape, a._dtype.itemsize))
        return remote(a, b, trans, lower, unit_diagonal, overwrite_b, check_finite)
    solve_triangular.__module__ = "cupyx.scipy.linalg"
    solve_triangular.__doc__ = getattr(remote, "__doc__", None)
    return solve_triangular


def _khatri_rao() -> Any:
    """``linalg.khatri_rao``, CuPy's (``_matfuncs.py``) run on the client: it is
    indexing and a product of its operands as they come, so NumPy arrays give a NumPy
    array (CuPy's tests call it so), CuPy's arrays a CuPy array."""
    def khatri_rao(a: Any, b: Any) -> Any:
        """See Also: cupyx.scipy.linalg.khatri_rao"""
        from ... import cupy
        errors.assert_2d(a, b)
        if a.shape[1] != b.shape[1]:
            raise ValueError("The number of columns for both arrays "
                             "should be equal.")
        c = a[..., :, cupy.newaxis, :] * b[..., cupy.newaxis, :, :]
        return c.reshape((-1,) + c.shape[2:])
    khatri_rao.__module__ = "cupyx.scipy.linalg"
    return khatri_rao


def _expm(served: Any) -> Any:
    """``linalg.expm``: CuPy's answers an empty input (any array with a ``size`` of 0,
    a NumPy one too) with ``cupy.zeros((0, 0), a.dtype)`` before anything else; the rest
    is the server's."""
    def expm(a: Any) -> Any:
        """See Also: cupyx.scipy.linalg.expm"""
        from ... import cupy
        if isinstance(a, (numpy.ndarray, cupy.ndarray)) and a.size == 0:
            return cupy.zeros((0, 0), dtype=a.dtype)
        return served(a)
    expm.__module__ = "cupyx.scipy.linalg"
    return expm


_CWT_DEPRECATED = (
    "Following the change in SciPy 1.12, all wavelet functions have been "
    "deprecated in CuPy v14 and are planned to be removed in the future. "
    "To request continued support of the features, "
    "please leave a comment at https://github.com/cupy/cupy/issues/8864.")


def _cwt(mod: types.ModuleType) -> Any:
    """``signal.cwt``, CuPy's (``_wavelets.py``) run on the client: its ``wavelet`` is a
    Python function (``ricker``, ``morlet2`` or the user's), which a server cannot
    call; each step (the wavelet's samples, ``convolve``, the row written) is a server
    call."""
    def cwt(data: Any, wavelet: Any, widths: Any) -> Any:
        """See Also: cupyx.scipy.signal.cwt"""
        import warnings

        from ... import cupy
        warnings.warn(_CWT_DEPRECATED, numpy.exceptions.VisibleDeprecationWarning)
        if cupy.asarray(wavelet(1, 1)).dtype.char in "FDG":
            dtype = cupy.complex128
        else:
            dtype = cupy.float64
        output = cupy.empty([len(widths), len(data)], dtype=dtype)
        for ind, width in enumerate(widths):
            n = numpy.min([10 * int(width), len(data)])
            wavelet_data = cupy.conj(wavelet(n, int(width)))[::-1]
            output[ind, :] = mod.convolve(data, wavelet_data, mode="same")
        return output
    cwt.__module__ = "cupyx.scipy.signal"
    cwt.__qualname__ = "cwt"  # (Python's messages name it: "cwt() got an unexpected...")
    return cwt


#: the comparators CuPy's boolrelextrema kernels take (``_peak_finding._modedict``)
_ARGREL_COMPARATORS = ("less", "greater", "less_equal", "greater_equal", "equal",
                       "not_equal")
#: the kernels' template types (``_peak_finding.FLOAT_INT_TYPES``)
_ARGREL_TYPES = "efdbhil"


def _argrelextrema() -> Any:
    """``signal.argrelextrema``, CuPy's (``_peak_finding.py``) run on the client: its
    ``comparator`` is a function (``cupy.greater``... or, on 3-D data and more, any
    callable), which cannot travel to the server. Data of one or two dimensions gets
    the arithmetic of CuPy's kernels (``boolrelextrema_1D``/``_2D``: the six comparison
    ufuncs only, a neighbour's index clipped, or wrapped once; on 2-D data any axis but
    0 is axis 1), more dimensions CuPy's loop of ``take`` calls."""
    def boolrelextrema(cupy: Any, data: Any, comparator: Any, axis: Any, order: Any,
                       mode: Any) -> Any:
        if (int(order) != order) or (order < 1):
            raise ValueError("Order must be an int >= 1")
        if data.ndim < 3:
            modes = {getattr(cupy, name): i for i, name in enumerate(_ARGREL_COMPARATORS)}
            modes[comparator]  # (CuPy's KeyError for any other comparator)
            n = data.shape[axis]
            if data.dtype.char not in _ARGREL_TYPES:  # (no such kernel instantiated)
                raise errors.CUDADriverError(
                    500, "CUDA_ERROR_NOT_FOUND: named symbol not found")
            along = 0 if data.ndim < 2 or axis == 0 else 1
            if data.ndim == 2:
                n = data.shape[along]
            locs = numpy.arange(n)
            results = None
            for o in range(1, int(order) + 1):
                plus, minus = locs + o, locs - o
                if mode == "clip":
                    plus, minus = numpy.minimum(plus, n - 1), numpy.maximum(minus, 0)
                else:
                    plus = numpy.where(plus >= n, plus - n, plus)
                    minus = numpy.where(minus < 0, minus + n, minus)
                step = comparator(data, cupy.take(data, cupy.asarray(plus), axis=along))
                step &= comparator(data, cupy.take(data, cupy.asarray(minus), axis=along))
                results = step if results is None else results & step
            return results
        datalen = data.shape[axis]
        locs = cupy.arange(0, datalen)
        results = cupy.ones(data.shape, dtype=bool)
        main = cupy.take(data, locs, axis=axis)
        for shift in cupy.arange(1, order + 1):
            if mode == "clip":
                p_locs = cupy.clip(locs + shift, a_min=None, a_max=(datalen - 1))
                m_locs = cupy.clip(locs - shift, a_min=0, a_max=None)
            else:
                p_locs = locs + shift
                m_locs = locs - shift
            plus = cupy.take(data, p_locs, axis=axis)
            minus = cupy.take(data, m_locs, axis=axis)
            results &= comparator(main, plus)
            results &= comparator(main, minus)
            if ~results.any():
                return results
        return results

    def argrelextrema(data: Any, comparator: Any, axis: Any = 0, order: Any = 1,
                      mode: Any = "clip") -> Any:
        """See Also: cupyx.scipy.signal.argrelextrema"""
        from ... import cupy
        data = cupy.asarray(data)
        results = boolrelextrema(cupy, data, comparator, axis, order, mode)
        if mode == "raise":
            raise NotImplementedError("CuPy `take` doesn't support `mode='raise'`.")
        return cupy.nonzero(results)
    argrelextrema.__module__ = "cupyx.scipy.signal"
    return argrelextrema


def _client_operators(mod: types.ModuleType) -> None:
    """``sparse.linalg`` with the client's ``LinearOperator`` (of Python functions): its
    iterative solvers take one (and callbacks) by running here; the other functions
    refuse one clearly (they run on the server, where Python functions cannot)."""
    mod.LinearOperator = _operators.LinearOperator
    served_aslinearoperator = mod.aslinearoperator

    def aslinearoperator(A: Any) -> Any:
        from ... import cupy
        if isinstance(A, (cupy.ndarray, _sparse._spbase)):
            return served_aslinearoperator(A)  # an operator on the server
        return _operators.aslinearoperator(A)
    aslinearoperator.__doc__ = _operators.aslinearoperator.__doc__
    mod.aslinearoperator = aslinearoperator

    def factorized(A: Any) -> Any:
        """CuPy's: ``splu(A).solve`` (a method of the server's LU object).

        See Also
        --------
        cupyx.scipy.sparse.linalg.factorized
        """
        return mod.splu(A).solve
    mod.factorized = factorized
    for fname, kind in module_names("cupyx.scipy.sparse.linalg").items():
        if fname in ("eigsh", "svds", "minres"):
            # CuPy's iterations for every operand (the server has SciPy's: ARPACK for
            # eigsh, which converges otherwise; a minres without CuPy's ``tol``)
            setattr(mod, fname, _CLIENT_SOLVERS[fname])
        elif fname in _CLIENT_SOLVERS:
            setattr(mod, fname, _iterative.routed(fname, getattr(mod, fname),
                                                  _CLIENT_SOLVERS[fname]))
        elif kind == "function" and fname not in ("aslinearoperator", "factorized"):
            setattr(mod, fname, _refusing_client_operators(getattr(mod, fname),
                                                           f"cupyx.scipy.sparse.linalg.{fname}"))


def _refusing_client_operators(fn: Any, path: str) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        for value in (*args, *kwargs.values()):
            if callable(value) and not isinstance(value, type) and \
                    not hasattr(value, "_gs_id"):  # (a LinearOperator is callable)
                raise NotImplementedError(
                    f"gpushare: {path} runs on the server, which cannot call this "
                    f"client's Python functions ({type(value).__name__}); "
                    f"{', '.join(_CLIENT_SOLVERS)} can")
        return fn(*args, **kwargs)
    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


for _name in _SUBMODULES:
    if "." not in _name:
        globals()[_name] = _make(_name)
    else:
        _make(_name)


def get_array_module(*args: Any) -> types.ModuleType:
    """``cupyx.scipy`` for device arrays and sparse matrices, else ``scipy``.

    See Also
    --------
    cupyx.scipy.get_array_module
    """
    from ... import cupy
    if cupy.get_array_module(*args) is cupy:
        return sys.modules[__name__]
    import scipy
    return scipy
