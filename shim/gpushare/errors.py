"""A closed table of the exceptions and warnings that may cross the wire.

The server names an exception by a key from ``ERROR_KEYS``; the client raises the
class CuPy would raise for it. Anything not in the table arrives as ``RuntimeError``
carrying the remote class name, never as an arbitrary class chosen by the peer.

Errors of gpushare itself (a lost server, a peer speaking nonsense) are kept apart
from errors of user code, as h11 splits its local and remote protocol errors.
"""
from __future__ import annotations

import builtins
import warnings
from typing import Any

import numpy
import numpy.exceptions
import numpy.linalg


class GpushareError(Exception):
    """Base class of gpushare's own errors (not errors of the user's CuPy code)."""


class ServerUnavailableError(GpushareError, ConnectionError):
    """The server cannot be reached, or stopped answering."""


class SessionLostError(GpushareError, ConnectionError):
    """The server ended this session (its worker died, or the server restarted).

    Every array of the session is gone.
    """


class VersionMismatchError(GpushareError, RuntimeError):
    """Client and server speak different protocol versions."""


class RemoteProtocolError(GpushareError, RuntimeError):
    """The peer sent a message that is not gpushare's protocol."""


class KernelUnknownError(GpushareError, LookupError):
    """The server does not hold the kernel source the client named by its hash (the
    client sends the source again; users never see this)."""


# Classes defined on the client for CuPy-specific errors; the proxy modules
# (gpushare.cupy.cuda.*) re-export them under CuPy's names. Each carries the
# ``__module__`` of CuPy's class, so that a traceback names it as CuPy's does
# (``cupy.cuda.memory.OutOfMemoryError: ...``), and pickles through this module
# (``_CupyNamed``), which the name need not be importable for.
def _rebuild(name: str, args: tuple, state: dict) -> BaseException:
    """Unpickle one of this module's CuPy-named classes (``_CupyNamed.__reduce__``)."""
    exc = _CUPY_NAMED[name].__new__(_CUPY_NAMED[name])
    exc.args = args
    exc.__dict__.update(state)
    return exc


class _CupyNamed:
    """Mixin of the classes named as CuPy's: pickled by this module's name for them."""

    def __reduce__(self) -> Any:
        return _rebuild, (type(self).__qualname__, self.args,  # type: ignore[attr-defined]
                          dict(self.__dict__))


class OutOfMemoryError(_CupyNamed, MemoryError):
    """Raised when the device (or the session's quota) runs out of memory.

    See Also
    --------
    cupy.cuda.memory.OutOfMemoryError
    """

    __module__ = "cupy.cuda.memory"


class CUDARuntimeError(_CupyNamed, RuntimeError):
    """An error from the CUDA runtime on the server (cupy.cuda.runtime.CUDARuntimeError)."""

    __module__ = "cupy_backends.cuda.api.runtime"

    def __init__(self, status: Any = None, *args: Any) -> None:
        self.status = status
        super().__init__(status, *args) if args else super().__init__(status)

    def __str__(self) -> str:
        return str(self.args[-1]) if self.args else ""


class CUDADriverError(_CupyNamed, RuntimeError):
    """An error from the CUDA driver on the server (cupy.cuda.driver.CUDADriverError):
    ``status`` is the ``CUresult`` code, ``str(e)`` CUDA's name and words for it."""

    __module__ = "cupy_backends.cuda.api.driver"

    def __init__(self, status: Any = None, *args: Any) -> None:
        if not args and not isinstance(status, int):  # (a message alone)
            status, args = None, (status,)
        self.status = status
        super().__init__(*args) if args else super().__init__(status)


#: NVRTC's words for its status codes (``nvrtcGetErrorString``, CUDA 12)
NVRTC_ERRORS = (
    "NVRTC_SUCCESS", "NVRTC_ERROR_OUT_OF_MEMORY", "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
    "NVRTC_ERROR_INVALID_INPUT", "NVRTC_ERROR_INVALID_PROGRAM", "NVRTC_ERROR_INVALID_OPTION",
    "NVRTC_ERROR_COMPILATION", "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
    "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
    "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION", "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
    "NVRTC_ERROR_INTERNAL_ERROR", "NVRTC_ERROR_TIME_FILE_WRITE_FAILED")


class NVRTCError(_CupyNamed, RuntimeError):
    """An error of NVRTC on the server (cupy.cuda.nvrtc.NVRTCError): ``status`` is the
    ``nvrtcResult``, ``str(e)`` NVRTC's name for it and the code, as CuPy words it."""

    __module__ = "cupy_backends.cuda.libs.nvrtc"

    def __init__(self, status: Any = None, *args: Any) -> None:
        self.status = status
        if not args:
            name = NVRTC_ERRORS[status] if type(status) is int and \
                0 <= status < len(NVRTC_ERRORS) else "NVRTC_ERROR unknown"
            args = (f"{name} ({status})",)
        super().__init__(*args)


class CompileException(_CupyNamed, Exception):
    """A kernel failed to compile (cupy.cuda.compiler.CompileException)."""

    __module__ = "cupy.cuda.compiler"

    def __init__(self, msg: str = "", source: str = "", name: str = "", options: Any = (),
                 backend: str = "nvrtc") -> None:
        self._msg = msg
        self.source = source
        self.name = name
        self.options = options
        self.backend = backend
        super().__init__(msg)

    def get_message(self) -> str:
        return self._msg

    def dump(self, f: Any) -> None:
        f.write(self.source)


class JitifyException(_CupyNamed, Exception):
    """Jitify failed to preprocess a kernel's source (cupy.cuda.compiler.JitifyException)."""

    __module__ = "cupy.cuda.compiler"


class PerformanceWarning(_CupyNamed, RuntimeWarning):
    """cupyx's PerformanceWarning."""

    __module__ = "cupy._util"


class SparseWarning(Warning):
    """cupyx.scipy.sparse's SparseWarning."""

    __module__ = "cupyx.scipy.sparse"


class SparseEfficiencyWarning(SparseWarning):
    """cupyx.scipy.sparse's SparseEfficiencyWarning (an operation that is slow in this
    format)."""

    __module__ = "cupyx.scipy.sparse"


class BadCoefficients(UserWarning):
    """cupyx.scipy.signal's BadCoefficients (a badly conditioned filter)."""

    __module__ = "cupyx.scipy.signal"


_CUPY_NAMED: dict[str, type[BaseException]] = {
    cls.__qualname__: cls for cls in (OutOfMemoryError, CUDARuntimeError, CUDADriverError,
                                      NVRTCError, CompileException, JitifyException,
                                      PerformanceWarning)}


def _table() -> dict[str, type[BaseException]]:
    table: dict[str, type[BaseException]] = {}
    for name in ("ValueError", "TypeError", "IndexError", "KeyError", "ZeroDivisionError",
                 "OverflowError", "FloatingPointError", "ArithmeticError", "NotImplementedError",
                 "AttributeError", "RuntimeError", "MemoryError", "AssertionError",
                 "StopIteration", "LookupError", "BufferError", "OSError", "UnicodeError",
                 "RecursionError", "NameError", "UnboundLocalError", "Exception"):
        table[name] = getattr(builtins, name)
    table["numpy.exceptions.AxisError"] = numpy.exceptions.AxisError
    table["numpy.linalg.LinAlgError"] = numpy.linalg.LinAlgError
    table["numpy.exceptions.TooHardError"] = numpy.exceptions.TooHardError
    table["numpy.exceptions.DTypePromotionError"] = numpy.exceptions.DTypePromotionError
    table["cupy.cuda.memory.OutOfMemoryError"] = OutOfMemoryError
    table["cupy.cuda.runtime.CUDARuntimeError"] = CUDARuntimeError
    table["cupy.cuda.driver.CUDADriverError"] = CUDADriverError
    table["cupy.cuda.nvrtc.NVRTCError"] = NVRTCError
    table["cupy.cuda.compiler.CompileException"] = CompileException
    table["cupy.cuda.compiler.JitifyException"] = JitifyException
    table["gpushare.KernelUnknown"] = KernelUnknownError
    return table


#: key -> class raised on the client
ERROR_CLASSES = _table()
_ERROR_KEYS = {cls: key for key, cls in ERROR_CLASSES.items()}

WARNING_CLASSES: dict[str, type[Warning]] = {
    "RuntimeWarning": RuntimeWarning,
    "DeprecationWarning": DeprecationWarning,
    "PendingDeprecationWarning": PendingDeprecationWarning,
    "FutureWarning": FutureWarning,
    "UserWarning": UserWarning,
    "Warning": Warning,
    "numpy.exceptions.ComplexWarning": numpy.exceptions.ComplexWarning,
    "numpy.exceptions.VisibleDeprecationWarning": numpy.exceptions.VisibleDeprecationWarning,
    "numpy.exceptions.RankWarning": numpy.exceptions.RankWarning,
    "cupyx.PerformanceWarning": PerformanceWarning,
    "cupyx.scipy.sparse.SparseWarning": SparseWarning,
    "cupyx.scipy.sparse.SparseEfficiencyWarning": SparseEfficiencyWarning,
    "cupyx.scipy.signal.BadCoefficients": BadCoefficients,
}
_WARNING_KEYS = {cls: key for key, cls in WARNING_CLASSES.items()}
#: the server's SciPy (or CuPy) classes of the warnings above, by name
_WARNING_NAMES = {"SparseWarning": "cupyx.scipy.sparse.SparseWarning",
                  "SparseEfficiencyWarning": "cupyx.scipy.sparse.SparseEfficiencyWarning",
                  "BadCoefficients": "cupyx.scipy.signal.BadCoefficients",
                  # CuPy's own (cupy._util.PerformanceWarning, as cupyx's is): the GPU
                  # run showed it arriving as its base, RuntimeWarning
                  "PerformanceWarning": "cupyx.PerformanceWarning"}


def error_key(exc: BaseException, extra: dict[type, str] | None = None) -> str:
    """The table key for ``exc``: its own class or the nearest listed base."""
    for cls in type(exc).__mro__:
        if extra and cls in extra:
            return extra[cls]
        if cls in _ERROR_KEYS:
            return _ERROR_KEYS[cls]
    return "RuntimeError"


def warning_key(category: type[Warning], extra: dict[type, str] | None = None) -> str:
    for cls in category.__mro__:
        if extra and cls in extra:
            return extra[cls]
        if cls in _WARNING_KEYS:
            return _WARNING_KEYS[cls]
        if cls.__qualname__ in _WARNING_NAMES and cls.__module__.startswith(("scipy.", "cupyx.", "cupy.")):
            return _WARNING_NAMES[cls.__qualname__]
    return "Warning"


def error_info(exc: BaseException, extra: dict[type, str] | None = None) -> list:
    """Encode ``exc`` as ``[key, message, remote_class_name]`` for the wire, and its
    ``status`` after them where it has an integer one (a CUDA error's code)."""
    if isinstance(exc, KeyError) and exc.args:
        message = str(exc.args[0])
    else:
        message = str(exc)
    info = [error_key(exc, extra), message, f"{type(exc).__module__}.{type(exc).__qualname__}"]
    status = getattr(exc, "status", None)
    if type(status) is int:
        info.append(status)
    return info


def build_error(info: Any, context: str | None = None) -> BaseException:
    """Rebuild the exception described by ``info`` (see :func:`error_info`)."""
    try:
        key, message, remote_name, *rest = info
        key, message, remote_name = str(key), str(message), str(remote_name)
        status = rest.pop() if len(rest) == 1 and type(rest[0]) is int else None
        if rest:
            raise ValueError
    except (TypeError, ValueError):
        return RemoteProtocolError(f"malformed error from server: {info!r}")
    cls = ERROR_CLASSES.get(key, RuntimeError)
    if context:
        message = f"{message}\n  [gpushare] {context}"
    if cls is numpy.exceptions.AxisError:
        exc: BaseException = numpy.exceptions.AxisError(message)
    elif cls is CUDARuntimeError or cls is CUDADriverError or cls is NVRTCError:
        exc = cls(status, message)
    elif cls is KeyError:
        exc = KeyError(message)
    else:
        try:
            exc = cls(message)
        except Exception:
            exc = RuntimeError(f"{remote_name}: {message}")
    exc.__gpushare_remote_class__ = remote_name  # type: ignore[attr-defined]
    return exc


def reissue_warnings(items: Any, stacklevel: int = 3) -> None:
    """Re-raise warnings recorded on the server as the same class here."""
    for item in items or ():
        try:
            key, message = item
        except (TypeError, ValueError):
            continue
        warnings.warn(str(message), WARNING_CLASSES.get(str(key), Warning), stacklevel=stacklevel)


# --- cupy.piecewise's checks, for both sides (the client's, the CPU backend's) --------

def piecewise_values(condlist: Any, funclist: Any) -> tuple:
    """``cupy.piecewise``'s (``_functional/piecewise.py``) reading of its lists, with
    its errors: ``(condlist, values, default)``, ``default`` the extra last value
    (None without one), each value to write where its condition holds."""
    condlen = len(condlist)
    funclen = len(funclist)
    default = None
    if condlen + 1 == funclen:
        default = funclist[-1]
        funclist = funclist[:-1]
        if callable(default):
            raise NotImplementedError("Callable functions are not supported currently")
    elif condlen != funclen:
        raise ValueError("with {} condition(s), either {} or {} functions are expected"
                         .format(condlen, condlen, condlen + 1))
    for func in funclist:
        if callable(func):
            raise NotImplementedError("Callable functions are not supported currently")
    return condlist, funclist, default


# --- cupy.linalg._util's checks, for the routines both sides write ------------------

def assert_2d(*arrays: Any) -> None:
    """``cupy.linalg._util._assert_2d``: LinAlgError unless every array is 2-D."""
    for a in arrays:
        if a.ndim != 2:
            raise numpy.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must "
                                           "be two-dimensional")


def assert_stacked_square(*arrays: Any) -> None:
    """``_assert_stacked_2d`` then ``_assert_stacked_square``: stacks of square
    matrices."""
    for a in arrays:
        if a.ndim < 2:
            raise numpy.linalg.LinAlgError(f"{a.ndim}-dimensional array given. Array must "
                                           "be at least two-dimensional")
    for a in arrays:
        if a.shape[-1] != a.shape[-2]:
            raise numpy.linalg.LinAlgError("Last 2 dimensions of the array must be square")
