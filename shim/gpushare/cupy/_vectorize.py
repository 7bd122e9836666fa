"""``cupy.vectorize``: a Python scalar function compiled into an elementwise kernel.

As CuPy 14.2 does, ``pyfunc`` is transpiled (never called) into a CUDA
``__device__`` function with ``cupyx.jit``'s ``mode='numpy'`` typing rules, once per
signature of input dtypes, and launched by a ``cupy.ElementwiseKernel`` named
``cupy_vectorize`` (``out0 = f(in0, in1, ...)``; a tuple return gives one output per
item). The translation is gpushare's own (``gpushare.cupyx._jit_compile``, on the
client; the server sees only C++ source): control flow on element values (``if``,
``while``, ``for ... in range(...)``, ``a if c else b``), ``min``/``max``, NumPy scalar
type casts, ufunc calls, complex arithmetic, closure and global constants and lambdas
all work as in CuPy, and CuPy's errors (``TypeError`` for mismatched variable types,
``ValueError`` when a lambda's source is ambiguous...) are raised the same way. What
gpushare's transpiler does not support raises ``NotImplementedError`` naming the
construct and its line; there is no fallback to evaluating ``pyfunc`` on whole arrays,
whose results could differ from the compiled function's.
"""
from __future__ import annotations

from typing import Any

import numpy

from ..cupyx import _jit_compile


def _input_type(arg: Any) -> numpy.dtype:
    """The dtype an argument is passed as (CuPy's ``_get_input_type``: Python scalars
    are ``numpy.dtype(type(arg))``, so ``int`` is ``int64`` and ``float`` ``float64``)."""
    if hasattr(arg, "dtype"):
        return _jit_compile._norm(arg.dtype)
    return _jit_compile._norm(numpy.dtype(type(arg)))


def _as_arg(dt: numpy.dtype, code: str) -> str:
    """``code``, an ElementwiseKernel value of type ``dt``, as the device function
    takes it (a ``float16`` scalar is a ``float`` there, as in CuPy's jit: the value
    is computed in float precision and rounded to half only when stored)."""
    return f"((float)({code}))" if dt.char == "e" else code


def _as_out(dt: numpy.dtype, code: str) -> str:
    """``code``, a device function result of type ``dt``, as an output takes it."""
    return f"((float)({code}))" if dt.char == "e" else code


class vectorize:
    """Generalized function class: ``pyfunc`` is compiled into an elementwise kernel
    (see the module docstring).

    Args:
        pyfunc (callable): The target python function (a ``def`` or a lambda whose
            source is in a file).
        otypes (str or list of dtypes, optional): The output data types; not
            supported yet (``NotImplementedError`` at the call, as in CuPy).
        doc (str or None): The docstring for the function.
        excluded: Not supported.
        cache: Ignored.
        signature: Not supported.

    See Also
    --------
    cupy.vectorize
    """

    def __init__(self, pyfunc: Any, otypes: Any = None, doc: str | None = None,
                 excluded: Any = None, cache: bool = False, signature: Any = None) -> None:
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
        self._sources: dict = {}  # input dtypes -> ElementwiseKernel arguments
        self._kernels: dict = {}  # input dtypes -> (session, ElementwiseKernel proxy)

    def _source(self, in_types: tuple) -> tuple:
        """``(in_params, out_params, operation, preamble)`` of the kernel for the input
        dtypes ``in_types``."""
        if self.otypes is not None:
            raise NotImplementedError  # (CuPy's, with no words: vectorize.py)
        gen = _jit_compile.Generated()
        name, ret = _jit_compile.compile_device(self.pyfunc, in_types, gen, "numpy")
        if not isinstance(ret, (numpy.dtype, tuple)):
            raise TypeError(f"Invalid return type: {ret}")
        in_params = ", ".join(f"{t.name} in{i}" for i, t in enumerate(in_types))
        args = [_as_arg(t, f"in{i}") for i, t in enumerate(in_types)]
        if isinstance(ret, tuple):
            temps = [f"gs_r{i}" for i in range(len(ret))]
            body = [f"{_jit_compile.ctype(t)} {r};" for t, r in zip(ret, temps)]
            body.append(f"{name}({', '.join(args + temps)});")
            body += [f"out{i} = {_as_out(t, r)};" for i, (t, r) in enumerate(zip(ret, temps))]
            outs = ret
        else:
            call = f"{name}({', '.join(args)})"
            body = [f"out0 = {_as_out(ret, call)};"]
            outs = (ret,)
        out_params = ", ".join(f"{t.name} out{i}" for i, t in enumerate(outs))
        return in_params, out_params, "\n".join(body), gen.code()

    def _kernel(self, in_types: tuple) -> Any:
        """The ElementwiseKernel for ``in_types`` in the current session."""
        from .. import client
        from . import ElementwiseKernel
        session = client.get_session()
        held = self._kernels.get(in_types)
        if held is not None and held[0] is session:
            return held[1]
        source = self._sources.get(in_types)
        if source is None:
            source = self._sources[in_types] = self._source(in_types)
        in_params, out_params, operation, preamble = source
        kern = ElementwiseKernel(in_params, out_params, operation, "cupy_vectorize",
                                 preamble=preamble)
        self._kernels[in_types] = (session, kern)
        return kern

    def __call__(self, *args: Any) -> Any:
        in_types = tuple(_input_type(a) for a in args)
        return self._kernel(in_types)(*args)
