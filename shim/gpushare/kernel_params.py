"""The parameters of ElementwiseKernel and ReductionKernel (``"raw T x, float32 y"``),
parsed as CuPy parses them (``cupy._core._kernel.ParameterInfo``). The client reads
them back as a kernel's ``in_params``/``params``; the CPU emulator builds its kernels
from them. Each side names C++ types its own way (``typename``)."""
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
