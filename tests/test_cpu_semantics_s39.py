"""Fidelity items of session 39, each read in CuPy's source."""
from __future__ import annotations

import numpy
import pytest

from gpushare import protocol

pytestmark = pytest.mark.timeout(240)


@pytest.mark.parametrize("first", ["q", "l"])
def test_longlong_and_int64_keep_their_own_types_on_the_wire(first):
    # (``numpy.dtype('q') == numpy.dtype('l')`` and they hash alike, but they are two
    # types, printed apart: a dtype argument and a result's description keep the char)
    order = [first, "l" if first == "q" else "q", "Q", "L", first]
    for char in order:
        dt = numpy.dtype(char)
        ext = protocol.dtype_ext(dt)
        enc = protocol.encode(dt)
        for frames in ([protocol.encode(ext)[0]], enc):
            assert protocol.decode(frames).char == char
        assert protocol.dtype_from_wire(protocol.dtype_to_wire(dt)).char == char
    big = numpy.dtype(">q")
    assert protocol.dtype_from_wire(protocol.dtype_to_wire(big)) == big
    assert protocol.dtype_from_wire(protocol.dtype_to_wire(big)).char == "q"


def test_a_longlong_array_stays_longlong_on_the_server(cp):
    # (CuPy's ``poly1d.__repr__`` is ``repr(self.get())`` of numpy's poly1d of its
    # trimmed coefficients: ``dtype=int64`` is printed for longlong, not for int64;
    # ``trim_zeros`` runs on the server, so the server's array must be longlong too)
    for made in (cp.arange(5, dtype=numpy.longlong),
                 cp.asarray(numpy.arange(5, dtype=numpy.longlong))):
        trimmed = cp.trim_zeros(made, trim="f")
        assert trimmed.dtype.char == "q" and trimmed.get().dtype.char == "q"
        assert repr(cp.poly1d(made)) == repr(numpy.poly1d(numpy.arange(5, dtype=numpy.longlong)))
    assert cp.trim_zeros(cp.arange(5)).dtype.char == "l"
    assert repr(cp.poly1d(cp.arange(5))) == repr(numpy.poly1d(numpy.arange(5)))
    assert cp.trim_zeros(cp.arange(1, 4, dtype="Q")).get().dtype.char == "Q"
