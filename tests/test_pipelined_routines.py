"""Routines that pipeline (``cupy/_routines.py`` and a few ndarray methods): each returns
at once, and the layout it infers is exactly the one the server's array has.

For every case: the call must not wait (no synchronous call is made), the proxy's shape,
dtype, strides and flags must equal what the server reports for that array, and the
values must equal NumPy's. Cases the client cannot infer, and bad arguments, must still
raise CuPy's error at the call.
"""
from __future__ import annotations

import warnings

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

pytestmark = pytest.mark.timeout(120)


def _layout_matches_server(x):
    from gpushare.cupy._ndarray import FLAG_C, FLAG_F, FLAG_OWN
    shape, dtype, strides, flags, _ = x._gs_session.call("meta", None, (x,))
    assert tuple(shape) == x.shape and numpy.dtype(dtype) == x.dtype
    assert tuple(strides) == x.strides
    mask = FLAG_C | FLAG_F | FLAG_OWN
    assert flags & mask == x._flags & mask


def _host(rng, shape, dtype):
    if numpy.dtype(dtype).kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if numpy.dtype(dtype).kind in "iu":
        return rng.integers(0, 5, shape).astype(dtype)
    return (rng.standard_normal(shape) * 3).astype(dtype)


CASES = [
    # (name, host arrays as (shape, dtype[, order]), the call on xp)
    ("matmul 2d", [((3, 4), "f4"), ((4, 5), "f4")], lambda xp, a, b: xp.matmul(a, b)),
    ("@ mixed dtypes", [((3, 4), "i4"), ((4, 2), "f4")], lambda xp, a, b: a @ b),
    ("@ vector", [((3, 4), "f8"), ((4,), "f8")], lambda xp, a, b: a @ b),
    ("@ vector left", [((4,), "f8"), ((4, 3), "f8")], lambda xp, a, b: a @ b),
    ("@ vectors", [((4,), "c8"), ((4,), "c8")], lambda xp, a, b: a @ b),
    ("@ batched broadcast", [((2, 1, 3, 4), "f4"), ((5, 4, 2), "f4")],
     lambda xp, a, b: a @ b),
    ("@ fortran operand", [((4, 3), "f4", "F"), ((4, 2), "f4")], lambda xp, a, b: a.T @ b),
    ("@ bool", [((2, 3), "?"), ((3, 2), "?")], lambda xp, a, b: a @ b),
    ("@ int8", [((2, 3), "i1"), ((3, 2), "u1")], lambda xp, a, b: a @ b),
    ("dot 2d", [((3, 4), "f4"), ((4, 5), "f4")], lambda xp, a, b: xp.dot(a, b)),
    ("dot 1d", [((6,), "f8"), ((6,), "f8")], lambda xp, a, b: xp.dot(a, b)),
    ("dot nd", [((2, 3, 4), "f4"), ((5, 4, 2), "f4")], lambda xp, a, b: xp.dot(a, b)),
    ("dot nd 1d", [((2, 3, 4), "f4"), ((4,), "f4")], lambda xp, a, b: a.dot(b)),
    ("tensordot", [((3, 4, 5), "f4"), ((4, 5, 2), "f4")], lambda xp, a, b: xp.tensordot(a, b)),
    ("tensordot int axes", [((3, 4), "i4"), ((4, 2), "f4")],
     lambda xp, a, b: xp.tensordot(a, b, 1)),
    ("tensordot outer", [((3,), "f8"), ((2, 2), "f8")], lambda xp, a, b: xp.tensordot(a, b, 0)),
    ("tensordot pairs", [((3, 4, 5), "c8"), ((5, 2, 3), "c8")],
     lambda xp, a, b: xp.tensordot(a, b, axes=([0, -1], [2, 0]))),
    ("tensordot scalar axes", [((3, 4), "f4"), ((2, 4), "f4", "F")],
     lambda xp, a, b: xp.tensordot(a, b, axes=(1, 1))),
    ("tensordot to a scalar", [((3, 4), "f4"), ((3, 4), "f4")],
     lambda xp, a, b: xp.tensordot(a, b, axes=2)),
    ("outer", [((3,), "i4"), ((2, 2), "f4")], lambda xp, a, b: xp.outer(a, b)),
    ("where", [((3, 4), "?"), ((3, 4), "f4"), ((4,), "f8")],
     lambda xp, c, a, b: xp.where(c, a, b)),
    ("where scalar", [((3, 4), "f4")], lambda xp, a: xp.where(a > 0, a, 0)),
    ("where scalar first", [((3, 4), "i2")], lambda xp, a: xp.where(a > 2, -7, a)),
    ("where bool scalar", [((3, 4), "?")], lambda xp, a: xp.where(a, a, False)),
    ("where of fortran arrays", [((3, 4), "f8", "F")], lambda xp, a: xp.where(a > 0, 0.5, a)),
    ("where of views", [((3, 4), "c8")],
     lambda xp, a: xp.where(a.imag > 0, xp.inf, a.real[:, ::-1])),
    ("where of a transpose", [((3, 4), "i4"), ((4, 3), "i4")],
     lambda xp, a, b: xp.where(a.T > 1, a.T, b)),
    ("isclose", [((3, 4), "f4"), ((4,), "f4")], lambda xp, a, b: xp.isclose(a, b, atol=2)),
    ("isclose complex", [((5,), "c8"), ((5,), "c8")],
     lambda xp, a, b: xp.isclose(a, a + b * 1e-7, rtol=0, equal_nan=True)),
    ("allclose", [((3, 4), "f8"), ((3, 4), "f8")],
     lambda xp, a, b: xp.asarray(xp.allclose(a, a + b * 1e-9))),
    ("moveaxis", [((2, 3, 4), "f4")], lambda xp, a: xp.moveaxis(a, 0, -1)),
    ("moveaxis several", [((2, 3, 4, 5), "i2")],
     lambda xp, a: xp.moveaxis(a, [0, 1], [3, 0])),
    ("clip", [((3, 4), "f4")], lambda xp, a: xp.clip(a, -1, 1.5)),
    ("clip int", [((3, 4), "u1")], lambda xp, a: xp.clip(a, 1, None)),
    ("clip method", [((3, 4), "f8")], lambda xp, a: a.clip(None, 0.5)),
    ("clip of a fortran array", [((3, 4), "f4", "F")], lambda xp, a: xp.clip(a, -1, 1)),
    ("clip of a view", [((3, 4), "i4")], lambda xp, a: xp.clip(a[:, ::-2], 1, 3)),
    ("clip into out", [((3, 4), "f8")], lambda xp, a: xp.clip(a, -0.5, 0.5, out=a)),
    ("clip into another", [((3, 4), "f4"), ((3, 4), "f4", "F")],
     lambda xp, a, b: a.clip(0, None, out=b)),
    ("expand_dims", [((3, 4), "f4")], lambda xp, a: xp.expand_dims(a, 1)),
    ("expand_dims several", [((3, 4), "f4")], lambda xp, a: xp.expand_dims(a, (0, -1))),
    ("concatenate", [((2, 3), "f4"), ((4, 3), "f4")],
     lambda xp, a, b: xp.concatenate([a, b])),
    ("concatenate axis 1", [((2, 3), "i8"), ((2, 1), "i8")],
     lambda xp, a, b: xp.concatenate((a, b), axis=1)),
    ("concatenate axis -1", [((2, 3), "i8"), ((2, 1), "i8")],
     lambda xp, a, b: xp.concatenate((a, b), axis=-1)),
    ("concatenate None", [((2, 3), "f4"), ((5,), "f4")],
     lambda xp, a, b: xp.concatenate([a, b], axis=None)),
    ("stack", [((2, 3), "f4"), ((2, 3), "f4")], lambda xp, a, b: xp.stack([a, b], axis=1)),
    ("stack last", [((2, 3), "f4"), ((2, 3), "f4")],
     lambda xp, a, b: xp.stack([a, b], axis=-1)),
    ("vstack", [((3,), "f4"), ((2, 3), "f4")], lambda xp, a, b: xp.vstack([a, b])),
    ("diag of a vector", [((4,), "f4")], lambda xp, a: xp.diag(a)),
    ("diag of a vector, below", [((3,), "i2")], lambda xp, a: xp.diag(a, -2)),
    ("diag of a matrix", [((3, 5), "f8")], lambda xp, a: xp.diag(a)),
    ("diag of a matrix, above", [((3, 5), "f8")], lambda xp, a: xp.diag(a, 3)),
    ("diag of a matrix, below", [((4, 3), "c8", "F")], lambda xp, a: xp.diag(a, -1)),
    ("diag beyond a matrix", [((3, 5), "f4")], lambda xp, a: xp.diag(a, 7)),
    ("tile", [((2, 3), "f4")], lambda xp, a: xp.tile(a, 2)),
    ("tile more axes", [((2, 3), "i4", "F")], lambda xp, a: xp.tile(a, (2, 1, 3))),
    ("tile fewer reps", [((2, 1, 3), "f8")], lambda xp, a: xp.tile(a, [4, 1])),
    ("tile 1-d", [((5,), "u1")], lambda xp, a: xp.tile(a, 3)),
    ("repeat flat", [((2, 3), "f4")], lambda xp, a: xp.repeat(a, 2)),
    ("repeat axis", [((2, 3), "i8", "F")], lambda xp, a: xp.repeat(a, 3, axis=1)),
    ("repeat axis -1 once", [((2, 3), "f4")], lambda xp, a: xp.repeat(a, 1, axis=-1)),
    ("repeat none", [((2, 3), "c8")], lambda xp, a: xp.repeat(a, 0, axis=0)),
    ("repeat method", [((4,), "?")], lambda xp, a: a.repeat(2)),
    ("sort", [((3, 5), "f4")], lambda xp, a: xp.sort(a)),
    ("sort axis 0", [((3, 5), "i4")], lambda xp, a: xp.sort(a, axis=0)),
    ("sort flat", [((3, 5), "f8")], lambda xp, a: xp.sort(a, axis=None)),
    ("sort fortran", [((3, 5), "f4", "F")], lambda xp, a: xp.sort(a, axis=0)),
    # ufuncs allocate C-contiguous outputs in CuPy, whatever the inputs' layout
    ("ufunc of fortran", [((3, 4), "f4", "F")], lambda xp, a: xp.exp(a) + 1),
    ("comparison of a transpose", [((3, 4), "i4")], lambda xp, a: a.T > 0),
    # dtype= picks CuPy's loop by its output type whatever the inputs (_kernel.pyx:
    # _guess_routine_from_dtype; NumPy needs casting='unsafe' to agree)
    ("ufunc dtype= of another kind", [((3, 4), "f8"), ((4,), "f8")],
     lambda xp, a, b: xp.add(a, b, dtype="i4",
                             **({"casting": "unsafe"} if xp is numpy else {}))),
    ("power of fortran", [((3, 4), "f8", "F")], lambda xp, a: a ** 2),
    ("ufunc of a permuted 3-d", [((2, 3, 4), "f8")],
     lambda xp, a: xp.maximum(a.transpose(2, 0, 1), 0.5)),
    ("argsort", [((4, 3), "f4")], lambda xp, a: xp.argsort(a, axis=0)),
    ("argsort middle", [((2, 4, 3), "i4")], lambda xp, a: xp.argsort(a, axis=1)),
    ("argsort last", [((2, 4, 3), "f8")], lambda xp, a: xp.argsort(a, axis=-1)),
    ("cumsum first of 3", [((2, 3, 4), "f4")], lambda xp, a: xp.cumsum(a, axis=0)),
    ("cumsum last of 3", [((2, 3, 4), "u1")], lambda xp, a: xp.cumsum(a, axis=2)),
    ("cumsum 1-d axis", [((5,), "f8")], lambda xp, a: xp.cumsum(a, axis=0)),
    ("cumsum method", [((3, 4), "i4")], lambda xp, a: a.cumsum()),
    ("argmax full", [((3, 4), "f8")], lambda xp, a: a.argmax()),
    ("argmax 1-d axis", [((7,), "u2")], lambda xp, a: a.argmax(axis=0)),
    ("argmax bool", [((3, 4), "?")], lambda xp, a: a.argmax()),
    ("argmax bool fortran", [((3, 4), "?", "F")], lambda xp, a: a.argmax()),
    ("argmin fortran", [((3, 4), "f4", "F")], lambda xp, a: a.argmin()),
    ("argmin axis", [((3, 4), "f4")], lambda xp, a: a.argmin(axis=1)),
    ("cumsum int8", [((3, 4), "i1")], lambda xp, a: xp.cumsum(a)),
    ("cumsum bool axis", [((3, 4), "?")], lambda xp, a: xp.cumsum(a, axis=1)),
    ("cumsum float", [((3, 4), "f4")], lambda xp, a: xp.cumsum(a, axis=0)),
    ("cumprod", [((3, 4), "i2")], lambda xp, a: xp.cumprod(a, axis=1)),
    ("hstack vectors", [((3,), "f4"), ((2,), "f4")], lambda xp, a, b: xp.hstack([a, b])),
    ("hstack of views", [((4, 6), "f4"), ((4, 2), "f4", "F")],
     lambda xp, a, b: xp.hstack([a[:, ::3], b])),
    ("concatenate fortran", [((2, 3), "f8", "F"), ((2, 3), "f8", "F")],
     lambda xp, a, b: xp.concatenate([a, b], axis=1)),
    ("stack fortran", [((2, 3), "i2", "F"), ((2, 3), "i2", "F")],
     lambda xp, a, b: xp.stack([a, b], axis=-1)),
    ("hstack matrices", [((2, 3), "i4"), ((2, 1), "i4")], lambda xp, a, b: xp.hstack((a, b))),
    ("flip", [((3, 4), "f4")], lambda xp, a: xp.flip(a)),
    ("flip axis", [((2, 3, 4), "f4", "F")], lambda xp, a: xp.flip(a, axis=(0, -1))),
    ("fliplr", [((3, 4), "i8")], lambda xp, a: xp.fliplr(a)),
    ("flipud of a flip", [((5,), "f8")], lambda xp, a: xp.flipud(xp.flip(a)[1:])),
    ("triu", [((4, 4), "f4")], lambda xp, a: xp.triu(a)),
    ("tril below", [((2, 3, 5), "i4")], lambda xp, a: xp.tril(a, -1)),
    ("triu above, bool", [((3, 4), "?")], lambda xp, a: xp.triu(a, 2)),
    ("take", [((3, 4), "f4"), ((5,), "i8")], lambda xp, a, i: xp.take(a, i % 4, axis=1)),
    ("take flat", [((3, 4), "f4"), ((2, 2), "i4")], lambda xp, a, i: xp.take(a, i)),
    ("norm", [((3, 4), "f4")], lambda xp, a: xp.linalg.norm(a)),
    ("norm complex", [((5,), "c8")], lambda xp, a: xp.linalg.norm(a)),
    ("fft", [((3, 8), "f4")], lambda xp, a: xp.fft.fft(a)),
    ("fft n ortho", [((8,), "f8")], lambda xp, a: xp.fft.fft(a, 12, norm="ortho")),
    ("ifft truncated", [((2, 8), "c8")], lambda xp, a: xp.fft.ifft(a, n=5, axis=1)),
    ("ifft int", [((6,), "i4")], lambda xp, a: xp.fft.ifft(a, norm="forward")),
    ("rfft", [((2, 9), "f4")], lambda xp, a: xp.fft.rfft(a)),
    ("rfft int n", [((9,), "i2")], lambda xp, a: xp.fft.rfft(a, 6)),
    ("irfft", [((3, 5), "c8")], lambda xp, a: xp.fft.irfft(a)),
    ("irfft n", [((5,), "c16")], lambda xp, a: xp.fft.irfft(a, 7, norm="backward")),
    ("irfft of reals", [((4, 5), "f8")], lambda xp, a: xp.fft.irfft(a, axis=-1)),
    ("fft of a reversed view", [((7,), "f4")], lambda xp, a: xp.fft.fft(a[::-2])),
    ("rfft of a transpose", [((5, 3), "f8")], lambda xp, a: xp.fft.rfft(a.T, 8)),
    ("irfft of a fortran array", [((3, 4), "c8", "F")], lambda xp, a: xp.fft.irfft(a)),
    ("broadcast_to", [((1, 3), "f4")], lambda xp, a: xp.broadcast_to(a, (2, 1, 3))),
    ("broadcast_to fortran column", [((3, 1), "i4", "F")],
     lambda xp, a: xp.broadcast_to(a, (3, 4))),
    ("broadcast_to of a view", [((4, 6), "f8")],
     lambda xp, a: xp.broadcast_to(a[1:2, ::2], (2, 3))),
    ("roll flat", [((3, 4), "f4")], lambda xp, a: xp.roll(a, 5)),
    ("roll axis fortran", [((3, 4), "f8", "F")], lambda xp, a: xp.roll(a, -1, axis=1)),
    ("roll axes", [((2, 3, 4), "i2")], lambda xp, a: xp.roll(a, (1, 2), axis=(0, 2))),
    ("roll 1-d", [((5,), "c8")], lambda xp, a: xp.roll(a, 7)),
    ("pad", [((3, 4), "f4")], lambda xp, a: xp.pad(a, 2)),
    ("pad fortran pairs", [((3, 4), "f8", "F")], lambda xp, a: xp.pad(a, ((1, 0), (2, 3)))),
    ("pad constant values", [((5,), "i4")],
     lambda xp, a: xp.pad(a, (1, 2), constant_values=(7, -1))),
    ("pad reflect", [((2, 3, 4), "f4")], lambda xp, a: xp.pad(a, [(0, 1)], mode="reflect")),
    ("pad edge of a view", [((4, 6), "i2")], lambda xp, a: xp.pad(a[:, ::2], 1, "edge")),
    ("pad wrap column", [((4, 1), "f4", "F")], lambda xp, a: xp.pad(a, (3,), mode="wrap")),
    ("solve", [((3, 3), "f8"), ((3,), "f8")],
     lambda xp, a, b: xp.linalg.solve(a + 10 * xp.eye(3), b)),
    ("solve matrix", [((3, 3), "f4"), ((3, 2), "f4")],
     lambda xp, a, b: xp.linalg.solve(a, b)),
    ("solve fortran", [((4, 4), "c16", "F"), ((4, 1), "c16")],
     lambda xp, a, b: xp.linalg.solve(a, b)),
    ("inv", [((3, 3), "f8")], lambda xp, a: xp.linalg.inv(a + 10 * xp.eye(3))),
    ("inv fortran", [((3, 3), "f4", "F")], lambda xp, a: xp.linalg.inv(a)),
    ("inv complex view", [((4, 8), "c8")], lambda xp, a: xp.linalg.inv(a[:, ::2])),
    ("fft2", [((4, 6), "f4")], lambda xp, a: xp.fft.fft2(a)),
    ("ifft2 batched", [((2, 3, 4), "c16")], lambda xp, a: xp.fft.ifft2(a, norm="ortho")),
    ("fftn 3-d s", [((2, 3, 4), "c8")], lambda xp, a: xp.fft.fftn(a, s=(3, 3, 5))),
    ("ifftn", [((5, 4), "f8")], lambda xp, a: xp.fft.ifftn(a)),
    ("rfft2", [((4, 6), "f8")], lambda xp, a: xp.fft.rfft2(a)),
    ("rfftn odd", [((3, 4, 7), "f4")], lambda xp, a: xp.fft.rfftn(a, norm="forward")),
    ("irfft2", [((4, 4), "c8")], lambda xp, a: xp.fft.irfft2(a)),
    ("irfftn s", [((3, 5), "c16")], lambda xp, a: xp.fft.irfftn(a, s=(3, 9))),
    # functions that are their array's method in CuPy
    ("reshape function", [((3, 4), "f4")], lambda xp, a: xp.reshape(a, (2, -1))),
    ("ravel function", [((3, 4), "i4")], lambda xp, a: xp.ravel(a)),
    ("transpose function", [((2, 3, 4), "f4")], lambda xp, a: xp.transpose(a, (1, 2, 0))),
    ("squeeze function", [((3, 1), "f8")], lambda xp, a: xp.squeeze(a)),
    ("copy function", [((3, 4), "f4", "F")], lambda xp, a: xp.copy(a)),
    ("all function", [((3, 4), "f4")], lambda xp, a: xp.all(a > -1, axis=1)),
    ("any function", [((3, 4), "f4")], lambda xp, a: xp.any(a > 1)),
    ("argmax function", [((3, 4), "f4")], lambda xp, a: xp.argmax(a, axis=0)),
    ("argmin function", [((3, 4), "i2")], lambda xp, a: xp.argmin(a)),
    ("flatten", [((3, 4), "f4", "F")], lambda xp, a: a.flatten()),
    ("squeeze", [((3, 1, 4, 1), "f4")], lambda xp, a: a.squeeze()),
    ("squeeze axis", [((3, 1, 4, 1), "f4")], lambda xp, a: a.squeeze(axis=-1)),
    ("swapaxes", [((2, 3, 4), "f4")], lambda xp, a: a.swapaxes(0, -1)),
    ("swapaxes of a slice", [((6, 4), "f4")], lambda xp, a: a[::2].swapaxes(1, 0)),
    # (session 30) indices given as lists and host arrays, as CuPy takes them
    ("list index", [((5, 3), "f4")], lambda xp, a: a[[4, 0, -1]]),
    ("nested list index", [((6,), "i4")], lambda xp, a: a[[[1, 2], [0, 5]]]),
    ("list index, then an operator", [((5,), "f8")], lambda xp, a: a[[1, 2]] * 2),
    ("list and slice", [((4, 5), "f4")], lambda xp, a: a[1:, [0, 3]]),
    ("two lists", [((4, 5), "i2")], lambda xp, a: a[[0, 3], [4, 1]]),
    ("empty list", [((4, 5), "f4")], lambda xp, a: a[[]]),
    ("bool list", [((4,), "f4")], lambda xp, a: a[[True, False, True, True]]),
    ("host bool mask", [((3, 4), "f4")],
     lambda xp, a: a[numpy.array([[True, False] * 2] * 3)]),
    ("host int array", [((3, 4), "u1")], lambda xp, a: a[:, numpy.array([3, 1], "u2")]),
    # (session 30) reductions with positional arguments
    ("sum positional axis", [((3, 4), "f4")], lambda xp, a: a.sum(0)),
    ("mean positional axis dtype", [((3, 4), "i4")], lambda xp, a: a.mean(1, xp.float32)),
    ("max keepdims positional", [((3, 4), "f8")], lambda xp, a: a.max(0, None, True)),
    ("var ddof positional", [((3, 4), "f4")], lambda xp, a: a.var(1, None, None, 1)),
    ("argmin positional", [((3, 4), "f4")], lambda xp, a: a.argmin(1)),
    ("any positional", [((3, 4), "?")], lambda xp, a: a.any(0)),
    # (session 30) CuPy's functions that are a method, or a few pipelined calls
    ("real of complex", [((3, 4), "c8")], lambda xp, a: xp.real(a)),
    ("imag of a complex view", [((3, 4), "c16")], lambda xp, a: a[:, ::2].imag),
    ("imag of real", [((3, 4), "f4")], lambda xp, a: a.imag),
    ("real of real", [((3, 4), "i4")], lambda xp, a: a.T.real),
    ("conj", [((3, 4), "c8")], lambda xp, a: a.conj()),
    ("conjugate of real", [((3, 4), "f4")], lambda xp, a: a.conjugate()),
    ("diagonal", [((3, 4), "f4")], lambda xp, a: xp.diagonal(a)),
    ("diagonal offset axes", [((3, 4, 5), "f4")], lambda xp, a: a.diagonal(-1, 2, 0)),
    ("diagonal past the edge", [((3, 4), "f4")], lambda xp, a: a.diagonal(7)),
    ("trace", [((3, 4), "i4")], lambda xp, a: xp.trace(a)),
    ("trace offset dtype", [((3, 4, 5), "f4")], lambda xp, a: a.trace(1, 1, 2, xp.float64)),
    ("around", [((3, 4), "f4")], lambda xp, a: xp.around(a, 1)),
    ("round complex", [((3, 4), "c16")], lambda xp, a: xp.round(a, 2)),
    ("round int negative", [((3, 4), "i4")], lambda xp, a: (a * 1234).round(-2)),
    ("round bool", [((3, 4), "?")], lambda xp, a: a.round()),
    ("swapaxes function", [((2, 3, 4), "f4")], lambda xp, a: xp.swapaxes(a, 0, 2)),
    ("argsort method", [((3, 4), "f4")], lambda xp, a: a.argsort(0)),
    ("take method", [((3, 4), "f4"), ((2,), "i4")], lambda xp, a, i: a.take(i % 4, 1)),
    ("diff", [((3, 5), "f4")], lambda xp, a: xp.diff(a)),
    ("diff twice along 0", [((4, 3), "i2")], lambda xp, a: xp.diff(a, 2, axis=0)),
    ("diff bool", [((6,), "?")], lambda xp, a: xp.diff(a)),
    ("norm along an axis", [((3, 4), "f4")], lambda xp, a: xp.linalg.norm(a, axis=1)),
    ("norm complex keepdims", [((3, 4), "c8")],
     lambda xp, a: xp.linalg.norm(a, axis=0, keepdims=True)),
    ("norm of integers", [((3, 4), "i4")], lambda xp, a: xp.linalg.norm(a, 2, -1)),
    ("ascontiguousarray of a transpose", [((3, 4), "f4")],
     lambda xp, a: xp.ascontiguousarray(a.T)),
    ("ascontiguousarray to a dtype", [((3, 4), "i2")],
     lambda xp, a: xp.ascontiguousarray(a, dtype=xp.float64)),
    ("asfortranarray", [((3, 4), "f8")], lambda xp, a: xp.asfortranarray(a)),
    ("asfortranarray of a slice", [((3, 4), "c8")], lambda xp, a: xp.asfortranarray(a[:, 1:])),
    ("fftshift", [((4, 5), "c8")], lambda xp, a: xp.fft.fftshift(a)),
    ("ifftshift along an axis", [((4, 5), "f4")], lambda xp, a: xp.fft.ifftshift(a, axes=1)),
    ("einsum matmul", [((3, 4), "f4"), ((4, 5), "f4")],
     lambda xp, a, b: xp.einsum("ij,jk->ik", a, b)),
    ("einsum implicit", [((3, 4), "f4"), ((4, 5), "f8")], lambda xp, a, b: xp.einsum("ij,jk", a, b)),
    ("einsum transpose (a view)", [((3, 4), "f4")], lambda xp, a: xp.einsum("ij->ji", a)),
    ("einsum diagonal", [((4, 4), "i4")], lambda xp, a: xp.einsum("ii->i", a)),
    ("einsum trace", [((4, 4), "f4")], lambda xp, a: xp.einsum("ii", a)),
    ("einsum ellipsis batch", [((2, 3, 4), "f8"), ((4, 5), "f8")],
     lambda xp, a, b: xp.einsum("...ij,jk->...ik", a, b)),
    ("einsum rows dot", [((3, 4), "c8"), ((3, 4), "c8")],
     lambda xp, a, b: xp.einsum("ij,ij->i", a, b)),
    ("einsum size-1 label", [((3, 4), "f4"), ((1, 4), "f4")],
     lambda xp, a, b: xp.einsum("ij,kj->ik", a, b)),
    ("einsum total", [((3, 4), "f4")], lambda xp, a: xp.einsum("ij->", a)),
    ("atleast_2d", [((4,), "f4")], lambda xp, a: xp.atleast_2d(a)),
    ("atleast_3d of a matrix", [((2, 3), "i4")], lambda xp, a: xp.atleast_3d(a)),
    ("atleast_1d of a 0-d", [((4,), "f8")], lambda xp, a: xp.atleast_1d(a[2])),
    ("view", [((3, 4), "f4")], lambda xp, a: a.T.view()),
    ("view as another dtype of its size", [((3, 4), "f8")], lambda xp, a: a[:, 1:].view("i8")),
    ("nansum", [((3, 4), "f4")], lambda xp, a: xp.nansum(xp.where(a > 1, xp.nan, a))),
    ("nansum positional axis", [((3, 4), "f8")], lambda xp, a: xp.nansum(a, 0)),
    ("nanmean keepdims", [((3, 4), "f4")], lambda xp, a: xp.nanmean(a, axis=1, keepdims=True)),
    ("nanvar", [((3, 4), "f4")], lambda xp, a: xp.nanvar(xp.where(a > 1, xp.nan, a))),
    ("nanvar axis ddof", [((3, 4), "f8")],
     lambda xp, a: xp.nanvar(xp.where(a > 3, xp.nan, a), axis=0, ddof=1)),
    ("nanvar positional keepdims", [((3, 4, 2), "f4")],
     lambda xp, a: xp.nanvar(a, (0, 2), None, None, 0, True)),
    ("nanstd", [((3, 4), "f8")], lambda xp, a: xp.nanstd(xp.where(a > 1, xp.nan, a), axis=1)),
    ("nanstd of a transpose", [((3, 4), "f4")], lambda xp, a: xp.nanstd(a.T, axis=-1)),
    ("nanargmax", [((3, 4), "f4")], lambda xp, a: xp.nanargmax(xp.where(a > 1, xp.nan, a))),
    ("nanargmax axis", [((3, 4), "f8")],
     lambda xp, a: xp.nanargmax(xp.where(a > 1, xp.nan, a), axis=0)),
    ("nanargmin keepdims", [((3, 4), "f4")],
     lambda xp, a: xp.nanargmin(a, axis=1, keepdims=True)),
    ("nanargmin of a view", [((3, 4), "f8", "F")], lambda xp, a: xp.nanargmin(a[:, ::2], -1)),
    ("nanmedian", [((3, 4, 5), "f4")],
     lambda xp, a: xp.nanmedian(xp.where(a > 1, xp.nan, a))),
    ("nanmedian axis", [((3, 4, 5), "f8")],
     lambda xp, a: xp.nanmedian(xp.where(a > 2, xp.nan, a), axis=1)),
    ("nanmedian axes", [((3, 4, 5), "f4")], lambda xp, a: xp.nanmedian(a, (0, -1))),
    ("nanmedian keepdims", [((3, 4, 5), "f8")],
     lambda xp, a: xp.nanmedian(xp.where(a < 0, xp.nan, a), axis=-2, keepdims=True)),
    ("nanmedian of ints", [((3, 4), "i4")], lambda xp, a: xp.nanmedian(a, axis=0)),
    ("nanmedian of a transpose", [((4, 6), "f4")], lambda xp, a: xp.nanmedian(a.T, 1)),
    ("nancumsum", [((3, 4), "f4")], lambda xp, a: xp.nancumsum(xp.where(a > 1, xp.nan, a))),
    ("nancumsum axis", [((3, 4), "f8")],
     lambda xp, a: xp.nancumsum(xp.where(a > 1, xp.nan, a), axis=1)),
    ("nancumprod axis 0", [((3, 4), "f4")],
     lambda xp, a: xp.nancumprod(xp.where(a > 1, xp.nan, a), 0)),
    ("nancumsum of ints", [((3, 4), "i2")], lambda xp, a: xp.nancumsum(a, axis=-1)),
    ("nancumprod of bools", [((6,), "?")], lambda xp, a: xp.nancumprod(a)),
    ("packbits", [((3, 5), "i4")], lambda xp, a: xp.packbits(a)),
    ("packbits little of a transpose", [((3, 5), "?")],
     lambda xp, a: xp.packbits(a.T, bitorder="little")),
    ("unpackbits", [((4,), "u1")], lambda xp, a: xp.unpackbits(a)),
    ("unpackbits little", [((2, 3), "u1")], lambda xp, a: xp.unpackbits(a, bitorder="little")),
    ("nanprod dtype", [((3, 4), "f4")], lambda xp, a: xp.nanprod(a, 0, xp.float64)),
    ("count_nonzero", [((3, 4), "i4")], lambda xp, a: xp.asarray(xp.count_nonzero(a))),
    ("count_nonzero along axes", [((2, 3, 4), "f4")],
     lambda xp, a: xp.count_nonzero(a > 0, axis=(0, 2))),
    ("count_nonzero of an empty axis", [((3, 0), "?")],
     lambda xp, a: xp.count_nonzero(a, axis=1)),
    ("ptp", [((3, 4), "f4")], lambda xp, a: xp.ptp(a)),
    ("ptp along an axis", [((3, 4), "i2")], lambda xp, a: xp.ptp(a, axis=0, keepdims=True)),
    ("ptp method", [((3, 4), "f8")], lambda xp, a: xp.ptp(a, 1)),
    ("vdot", [((3, 4), "f4"), ((12,), "f4")], lambda xp, a, b: xp.vdot(a, b)),
    ("vdot complex", [((5,), "c8"), ((5,), "c16")], lambda xp, a, b: xp.vdot(a, b)),
    ("inner", [((2, 3, 4), "f4"), ((5, 4), "f8")], lambda xp, a, b: xp.inner(a, b)),
    ("inner of vectors", [((4,), "i4"), ((4,), "i4")], lambda xp, a, b: xp.inner(a, b)),
    ("take_along_axis", [((3, 4), "f4")],
     lambda xp, a: xp.take_along_axis(a, xp.argsort(a, axis=1), axis=1)),
    ("take_along_axis none", [((3, 4), "i4")],
     lambda xp, a: xp.take_along_axis(a, xp.argsort(a, axis=None), axis=None)),
    ("nan_to_num", [((3, 4), "f4")],
     lambda xp, a: xp.nan_to_num(xp.where(a > 1, xp.inf, xp.where(a < -1, xp.nan, a)))),
    ("nan_to_num values", [((3, 4), "f8", "F")],
     lambda xp, a: xp.nan_to_num(a / 0, nan=-1.0, posinf=7, neginf=-7.5)),
    ("nan_to_num complex", [((4,), "c8")],
     lambda xp, a: xp.nan_to_num(a.real / 0 + 1j * a.imag)),
    ("nan_to_num integers", [((4,), "i2")], lambda xp, a: xp.nan_to_num(a)),
    ("append", [((3, 4), "f4"), ((2, 2), "f8")], lambda xp, a, b: xp.append(a, b)),
    ("append along an axis", [((3, 4), "i4"), ((1, 4), "i4")],
     lambda xp, a, b: xp.append(a, b, axis=0)),
    ("resize", [((3, 4), "f4")], lambda xp, a: xp.resize(a, (5, 3))),
    ("resize of a transpose", [((3, 4), "i2")], lambda xp, a: xp.resize(a.T, 7)),
    ("resize empty", [((0,), "f4")], lambda xp, a: xp.resize(a, (2, 2))),
    ("partition", [((3, 7), "f4")], lambda xp, a: xp.sort(xp.partition(a, 3), axis=1)),
    ("partition along axis 0", [((6, 2), "i4")],
     lambda xp, a: xp.partition(a, [1, -2], axis=0)[[1, 4]]),
    ("partition flat", [((3, 4), "f8")], lambda xp, a: xp.partition(a, 5, axis=None)[5]),
    ("sort_complex", [((6,), "c8")], lambda xp, a: xp.sort_complex(a)),
    ("sort_complex of int16", [((6,), "i2")], lambda xp, a: xp.sort_complex(a)),
    ("sort_complex of float32", [((6,), "f4")], lambda xp, a: xp.sort_complex(a)),
    ("interp", [((2, 5), "f4"), ((6,), "f4"), ((6,), "f4")],
     lambda xp, x, a, f: xp.interp(x, xp.sort(a), f)),
    ("interp bounds", [((7,), "f8"), ((4,), "i4"), ((4,), "f8")],
     lambda xp, x, a, f: xp.interp(x, xp.sort(a), f, left=-1.0, right=9)),
    ("interp complex", [((5,), "f8"), ((4,), "f8"), ((4,), "c16")],
     lambda xp, x, a, f: xp.interp(x, xp.sort(a), f)),
    ("searchsorted", [((8,), "f4"), ((2, 3), "f4")],
     lambda xp, a, v: xp.searchsorted(xp.sort(a), v)),
    ("searchsorted right of a scalar", [((8,), "i4")],
     lambda xp, a: xp.asarray(xp.searchsorted(xp.sort(a), 2, side="right"))),
    ("searchsorted sorter", [((8,), "f8"), ((5,), "f8")],
     lambda xp, a, v: xp.searchsorted(a, v, sorter=xp.argsort(a))),
    ("searchsorted empty", [((0,), "f4"), ((3,), "f4")], lambda xp, a, v: xp.searchsorted(a, v)),
    ("digitize", [((3, 4), "f4"), ((5,), "f4")],
     lambda xp, x, b: xp.digitize(x, xp.sort(b))),
    ("digitize right", [((6,), "i4"), ((4,), "i4")],
     lambda xp, x, b: xp.digitize(x, xp.sort(b), right=True)),
    ("kron", [((2, 3), "f4"), ((3, 2), "f4")], lambda xp, a, b: xp.kron(a, b)),
    ("kron of unequal ranks", [((4,), "i4"), ((2, 3), "f8")], lambda xp, a, b: xp.kron(a, b)),
    ("require", [((3, 4), "f4")], lambda xp, a: xp.require(a)),
    ("require fortran", [((3, 4), "f4")], lambda xp, a: xp.require(a, requirements="F")),
    ("require owndata of a view", [((3, 4), "f8")],
     lambda xp, a: xp.require(a[:, 1:], "f4", ["C", "O"])),
    ("corrcoef", [((3, 6), "f4")], lambda xp, a: xp.corrcoef(a)),
    ("corrcoef by column with y", [((6, 2), "f8"), ((6, 1), "f8")],
     lambda xp, a, b: xp.corrcoef(a, b, rowvar=False)),
    ("corrcoef complex", [((3, 5), "c16")], lambda xp, a: xp.corrcoef(a)),
    ("cov", [((3, 6), "f4")], lambda xp, a: xp.cov(a)),
    ("cov of integers by column", [((5, 3), "i4")], lambda xp, a: xp.cov(a, rowvar=False)),
    ("cov with y", [((2, 5), "f8"), ((5,), "f4")], lambda xp, a, b: xp.cov(a, b, bias=True)),
    ("cov complex ddof", [((3, 4), "c8")], lambda xp, a: xp.cov(a, ddof=0)),
    ("cov dtype", [((3, 4), "i2")], lambda xp, a: xp.cov(a, dtype=xp.float32)),
    ("array copy", [((3, 4), "f4")], lambda xp, a: xp.array(a)),
    ("array copy to a dtype", [((3, 4), "i4")], lambda xp, a: xp.array(a, dtype=xp.float64)),
    ("array ndmin", [((4,), "f4")], lambda xp, a: xp.array(a, ndmin=3)),
    ("array of a transpose", [((3, 4), "f8")], lambda xp, a: xp.array(a.T)),
    ("array of a slice in C", [((3, 4), "u1")], lambda xp, a: xp.array(a[:, ::2], order="C")),
    ("array copy=None to a dtype", [((3, 4), "f4")],
     lambda xp, a: xp.array(a, dtype="f8", copy=None, ndmin=3)),
    ("column_stack", [((4,), "f4"), ((4, 2), "f8")], lambda xp, a, b: xp.column_stack((a, b))),
    ("dstack", [((4,), "i4"), ((1, 4), "i4")], lambda xp, a, b: xp.dstack([a, b])),
    ("rot90", [((3, 4), "f4")], lambda xp, a: xp.rot90(a)),
    ("rot90 twice", [((3, 4, 2), "f4")], lambda xp, a: xp.rot90(a, 2, axes=(0, -1))),
    ("rot90 back", [((3, 4, 2), "i2")], lambda xp, a: xp.rot90(a, -1, (2, 1))),
    ("rot90 none", [((3, 4), "f8")], lambda xp, a: xp.rot90(a, 4)),
    ("angle", [((5,), "c8")], lambda xp, a: xp.angle(a)),
    ("angle of reals", [((2, 3), "f4")], lambda xp, a: xp.angle(a)),
    ("angle of int8", [((4,), "i1")], lambda xp, a: xp.angle(a)),
    ("angle of int32", [((4,), "i4")], lambda xp, a: xp.angle(a.T)),
    ("angle of bools", [((4,), "?")], lambda xp, a: xp.angle(a)),
    ("convolve", [((9,), "f8"), ((4,), "f8")], lambda xp, a, v: xp.convolve(a, v)),
    ("convolve same, swapped", [((3,), "f4"), ((8,), "f4")],
     lambda xp, a, v: xp.convolve(a, v, "same")),
    ("convolve valid, complex", [((10,), "c8"), ((4,), "c8")],
     lambda xp, a, v: xp.convolve(a, v, mode="valid")),
    ("convolve ints", [((7,), "i4"), ((3,), "i2")], lambda xp, a, v: xp.convolve(a, v)),
    ("convolve int8 same", [((4,), "i1"), ((6,), "i1")],
     lambda xp, a, v: xp.convolve(a, v, "same")),
    ("convolve bools", [((5,), "?"), ((2,), "?")],
     lambda xp, a, v: xp.convolve(a, v, "valid")),
    ("convolve mixed", [((6,), "i4"), ((3,), "f4")], lambda xp, a, v: xp.convolve(a, v)),
    ("correlate", [((9,), "f8"), ((4,), "f8")], lambda xp, a, v: xp.correlate(a, v)),
    ("correlate full, float32", [((5,), "f4"), ((5,), "f4")],
     lambda xp, a, v: xp.correlate(a, v, "full")),
    ("correlate same, complex", [((4,), "c16"), ((7,), "c16")],
     lambda xp, a, v: xp.correlate(a, v, "same")),
    ("correlate ints", [((8,), "u1"), ((3,), "i1")],
     lambda xp, a, v: xp.correlate(a, v, "full")),
    ("select", [((3, 4), "f4"), ((4,), "f8")],
     lambda xp, a, b: xp.select([a > 1, a < -1], [a, b], -1.5)),
    ("select of ints, scalar conditions' shape", [((2, 1), "i2"), ((1, 5), "i4")],
     lambda xp, a, b: xp.select([b > 2, a == 0], [a, b])),
    ("select of 0-d choices", [((3, 4), "f4")],
     lambda xp, a: xp.select([a > 0], [xp.asarray(a.dtype.type(2))], 1)),
    ("histogram counts", [((50,), "f4")],
     lambda xp, a: xp.histogram(a, bins=7, range=(-2.0, 3))[0]),
    ("histogram edges", [((50,), "f4")],
     lambda xp, a: xp.histogram(a, bins=7, range=(-2.0, 3))[1]),
    ("histogram of ints, int range", [((5, 6), "i2")],
     lambda xp, a: xp.histogram(a, 4, range=[0, 4])[0]),
    ("histogram edges of ints", [((5, 6), "i2")],
     lambda xp, a: xp.histogram(a, 4, range=(0, 4))[1]),
    ("histogram of an empty range", [((9,), "f8")],
     lambda xp, a: xp.histogram(a, 3, range=(1, 1))[1]),
    ("lexsort", [((3, 6), "i4")], lambda xp, a: xp.lexsort(a)),
    ("lexsort of a transpose", [((5, 2), "f8")], lambda xp, a: xp.lexsort(a.T)),
    ("delete", [((7,), "f4")], lambda xp, a: xp.delete(a, 2)),
    ("delete negative, flattened", [((3, 4), "i4")], lambda xp, a: xp.delete(a, -1)),
    ("delete a slice along an axis", [((3, 5), "f8", "F")],
     lambda xp, a: xp.delete(a, slice(1, None, 2), axis=1)),
    ("delete a row", [((3, 4), "c8")], lambda xp, a: xp.delete(a, 0, axis=-2)),
    ("delete an empty slice", [((4,), "i2")], lambda xp, a: xp.delete(a, slice(3, 1))),
    ("matrix_power", [((3, 3), "f8")], lambda xp, a: xp.linalg.matrix_power(a, 5)),
    ("matrix_power stacked", [((2, 3, 3), "f4")], lambda xp, a: xp.linalg.matrix_power(a, 2)),
    ("matrix_power negative", [((3, 3), "f8")],
     lambda xp, a: xp.linalg.matrix_power(a + 4 * xp.eye(3), -3)),
]


@pytest.mark.parametrize("name, specs, fn", CASES, ids=[c[0] for c in CASES])
@pytest.mark.filterwarnings("ignore:`axes` should not be `None`:DeprecationWarning")  # NumPy's
@pytest.mark.filterwarnings("ignore:All-NaN slice:RuntimeWarning")  # (NumPy's; CuPy never warns)
def test_routine_pipelines_with_the_servers_layout(cp, synchronous_calls, name, specs, fn):
    rng = numpy.random.default_rng(0)
    hosts = []
    for spec in specs:
        shape, dtype, order = (*spec, "C")[:3]
        h = _host(rng, shape, dtype)
        hosts.append(numpy.asfortranarray(h) if order == "F" else h)
    devs = [cp.asarray(h) for h in hosts]
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = fn(cp, *devs)
    assert synchronous_calls == [], f"{name} waited for the server"
    _layout_matches_server(out)
    expected = fn(numpy, *hosts)
    got = out.get()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    numpy.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda xp, a: a.T.reshape(-1),                       # a copy (CuPy: no view of it)
    lambda xp, a: a[:, ::2].reshape(2, 2, 4),             # a view of a strided array
    lambda xp, a: a.reshape((6, 4), order="F"),           # another order: a copy
    lambda xp, a: a.T.reshape((4, 6), order="F"),         # ... of its F layout: a view
    lambda xp, a: xp.einsum("ijk->kji", a).reshape(4, 6),  # a layout not known here
    lambda xp, a: xp.einsum("ijk->kji", a).reshape(2, -1).reshape(-1, 3, order="A")])
def test_reshape_of_any_layout_pipelines(cp, synchronous_calls, call):
    """A reshape the client cannot lay out itself (not C-contiguous, another order, a
    layout the server knows) is queued: the server's reshape decides view or copy, as
    CuPy's ``_get_strides_for_nocopy_reshape`` does; the layout and base are asked for
    when used. A view shares the memory: a write through it is seen in the array."""
    host = numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4)
    a = cp.asarray(host)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = call(cp, a)
    assert synchronous_calls == []
    expected = call(numpy, host)
    _layout_matches_server(out)
    numpy.testing.assert_array_equal(out.get(), expected)
    is_view = numpy.shares_memory(expected, host)  # (each case's first element is a's)
    out[(0,) * out.ndim] = -1
    assert (float(a[0, 0, 0]) == -1) == is_view


@pytest.mark.parametrize("call", [
    lambda xp, a: xp.split(a, 3, axis=1), lambda xp, a: xp.array_split(a, 4),
    lambda xp, a: xp.array_split(a, [1, -1, 10], axis=1), lambda xp, a: xp.hsplit(a, 2),
    lambda xp, a: xp.vsplit(a, [1]), lambda xp, a: xp.array_split(a[:0], 3),
    lambda xp, a: xp.dsplit(a.reshape(2, 2, 6), [2, 2, 5])])
def test_splits_pipeline_as_views_with_the_servers_layout(cp, synchronous_calls, call):
    host = numpy.arange(24, dtype=numpy.float32).reshape(4, 6)
    a = cp.asarray(host)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    parts = call(cp, a)
    assert synchronous_calls == []
    expected = call(numpy, host)
    assert len(parts) == len(expected)
    for part, want in zip(parts, expected):
        _layout_matches_server(part)
        assert part.base is not None  # (a view, as CuPy's array_split makes)
        numpy.testing.assert_array_equal(part.get(), want)


def test_frequencies_and_copyto_pipeline(cp, synchronous_calls):
    freqs = [cp.fft.fftfreq(8, 0.1), cp.fft.fftfreq(7), cp.fft.rfftfreq(9, 2.0)]
    dst = cp.zeros((3, 4), dtype=cp.float32)
    cp.copyto(dst, 2)
    cp.copyto(dst, cp.arange(4, dtype=cp.int64), casting="same_kind")
    cp.copyto(dst, cp.ones((1, 1, 4), dtype=cp.float32) * 9, where=dst > 1.5)
    assert synchronous_calls == []
    # (CuPy's own formula: the positive and negative halves, divided by n * d)
    expected = [numpy.hstack((numpy.arange(0, 4.0), numpy.arange(-4.0, 0))) / (8 * 0.1),
                numpy.hstack((numpy.arange(0, 4.0), numpy.arange(-3.0, 0))) / 7,
                numpy.arange(0, 5.0) / 18.0]
    for got, want in zip(freqs, expected):
        assert got.dtype == numpy.float64
        numpy.testing.assert_array_equal(got.get(), want)
    assert dst.tolist() == [[0.0, 1.0, 9.0, 9.0]] * 3


@pytest.mark.parametrize("call", [
    lambda xp, x, y: xp.meshgrid(x, y), lambda xp, x, y: xp.meshgrid(x, y, indexing="ij"),
    lambda xp, x, y: xp.meshgrid(x, y, sparse=True, copy=False),
    lambda xp, x, y: xp.broadcast_arrays(x[None, :], y[:, None]),
    lambda xp, x, y: xp.atleast_2d(x, y[0])])
def test_routines_of_several_arrays_pipeline(cp, synchronous_calls, call):
    hosts = numpy.arange(3.0), numpy.arange(4, dtype=numpy.float32)
    devs = [cp.asarray(h) for h in hosts]
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    outs = call(cp, *devs)
    assert synchronous_calls == []
    expected = call(numpy, *hosts)
    assert len(outs) == len(expected)
    for got, want in zip(outs, expected):
        _layout_matches_server(got)
        assert got.dtype == want.dtype
        numpy.testing.assert_array_equal(got.get(), want)
    same = cp.arange(3)
    assert cp.broadcast_arrays(same, same)[0] is same  # (as CuPy's broadcast leaves it)


def _rebuilt(name, outs):
    """The matrix a decomposition's factors multiply back to (NumPy, on the host)."""
    if name in ("qr", "qr complete"):
        q, r = outs
        return q @ r
    if name.startswith("svd") and len(outs) == 3:
        u, sv, vh = outs
        k = sv.shape[-1]
        return (u[..., :k] * sv[..., None, :]) @ vh[..., :k, :]
    if name.startswith("eigh"):
        w, v = outs
        return (v * w[..., None, :]) @ numpy.swapaxes(v, -1, -2).conj()
    return None


@pytest.mark.parametrize("name, shape, dtype, call", [
    ("det", (3, 3), "f4", lambda xp, a: xp.linalg.det(a)),
    ("det of a stack of integers", (2, 3, 3), "i4", lambda xp, a: xp.linalg.det(a)),
    ("cholesky", (3, 3), "f8", lambda xp, a: xp.linalg.cholesky(a)),
    ("cholesky complex", (3, 3), "c8", lambda xp, a: xp.linalg.cholesky(a)),
    ("eigh", (3, 3), "f4", lambda xp, a: xp.linalg.eigh(a)),
    ("eigh upper, complex stack", (2, 3, 3), "c16", lambda xp, a: xp.linalg.eigh(a, "U")),
    ("eigvalsh", (3, 3), "f8", lambda xp, a: xp.linalg.eigvalsh(a)),
    ("qr", (4, 3), "f4", lambda xp, a: xp.linalg.qr(a)),
    ("qr complete", (3, 4), "c8", lambda xp, a: xp.linalg.qr(a, mode="complete")),
    ("qr r", (4, 3), "f8", lambda xp, a: xp.linalg.qr(a, mode="r")),
    ("svd", (4, 3), "f4", lambda xp, a: xp.linalg.svd(a)),
    ("svd thin stack", (2, 3, 5), "f8", lambda xp, a: xp.linalg.svd(a, full_matrices=False)),
    ("svd values", (3, 4), "c8", lambda xp, a: xp.linalg.svd(a, compute_uv=False)),
    ("slogdet", (3, 3), "f4", lambda xp, a: xp.linalg.slogdet(a)),
    ("slogdet complex stack", (2, 3, 3), "c8", lambda xp, a: xp.linalg.slogdet(a)),
    ("slogdet of integers", (3, 3), "i4", lambda xp, a: xp.linalg.slogdet(a)),
    ("pinv", (4, 3), "f8", lambda xp, a: xp.linalg.pinv(a)),
    ("pinv stack", (2, 3, 5), "f4", lambda xp, a: xp.linalg.pinv(a, 1e-3)),
    ("pinv complex", (3, 2), "c16", lambda xp, a: xp.linalg.pinv(a)),
    ("matrix_rank", (4, 3), "f8", lambda xp, a: xp.linalg.matrix_rank(a)),
    ("matrix_rank stack tol", (2, 3, 3), "i4", lambda xp, a: xp.linalg.matrix_rank(a, 0.5)),
    ("inv of a stack", (2, 3, 3), "f8", lambda xp, a: xp.linalg.inv(a)),
    ("inv of a complex stack", (4, 2, 2, 2), "c8", lambda xp, a: xp.linalg.inv(a)),
    ("solve a stack, vector b", (4, 3, 3), "f4",
     lambda xp, a: xp.linalg.solve(a, a[0, 0] + 1)),
    ("solve a stack, matrix b", (2, 3, 3), "f8",
     lambda xp, a: xp.linalg.solve(a, a[:, :, :2] * 2 + 1)),
    ("solve a stack, columns", (5, 3, 3), "c16",
     lambda xp, a: xp.linalg.solve(a, a[..., :1] + 1j)),
])
def test_decompositions_pipeline(cp, synchronous_calls, name, shape, dtype, call):
    rng = numpy.random.default_rng(1)
    host = _host(rng, shape, dtype)
    if name.startswith(("cholesky", "eigh", "eigvalsh")):  # (Hermitian, positive definite)
        host = (host @ numpy.swapaxes(host, -1, -2).conj() +
                shape[-1] * numpy.eye(shape[-1])).astype(dtype)
    a = cp.asarray(host)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    got = call(cp, a)
    assert synchronous_calls == [], f"{name} waited for the server"
    expected = call(numpy, host)
    got = got if isinstance(got, tuple) else (got,)
    expected = tuple(expected) if isinstance(expected, tuple) else (expected,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        _layout_matches_server(g)
        assert g.shape == numpy.shape(e) and g.dtype == numpy.asarray(e).dtype
    outs = [g.get() for g in got]
    rebuilt = _rebuilt(name, outs)
    if rebuilt is not None:
        numpy.testing.assert_allclose(rebuilt, host, rtol=1e-4, atol=1e-4)
    elif not name.startswith("qr r"):  # (R is unique up to the signs of its rows)
        numpy.testing.assert_allclose(outs[0], expected[0], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype, b_dtype", [("f4", "f8"), ("f8", "f8"), ("c8", "c16"),
                                            ("f8", "i4")])
@pytest.mark.parametrize("b_shape, kwargs", [
    ((5,), {}), ((5, 3), {"lower": True}), ((5, 2), {"trans": 1}),
    ((5,), {"trans": "T", "unit_diagonal": True}), ((5, 1), {"trans": "C", "lower": True})])
def test_solve_triangular_pipelines(cp, synchronous_calls, dtype, b_dtype, b_shape, kwargs):
    """``cupyx.scipy.linalg.solve_triangular`` of one matrix: queued, a new
    Fortran-ordered array of ``b``'s shape in ``a``'s dtype (CuPy's copy of ``b``)."""
    import scipy.linalg
    from gpushare.cupyx.scipy import linalg
    rng = numpy.random.default_rng(12)
    host = _host(rng, (5, 5), dtype) + 6 * numpy.eye(5, dtype=dtype)
    hb = _host(rng, b_shape, b_dtype)
    a, b = cp.asarray(host), cp.asarray(hb)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    x = linalg.solve_triangular(a, b, **kwargs)
    assert synchronous_calls == []
    _layout_matches_server(x)
    assert x.shape == b_shape and x.dtype == numpy.dtype(dtype) and x.flags.f_contiguous
    expected = scipy.linalg.solve_triangular(host, hb, **kwargs)
    numpy.testing.assert_allclose(x.get(), expected, rtol=1e-4, atol=1e-4)


def test_solve_triangular_keeps_cupys_errors(cp):
    from gpushare.cupyx.scipy import linalg
    with pytest.raises(ValueError, match="expected square matrix"):
        linalg.solve_triangular(cp.ones((2, 3)), cp.ones(2))
    with pytest.raises(ValueError, match="incompatible dimensions"):
        linalg.solve_triangular(cp.eye(3), cp.ones(2))
    with pytest.raises(ValueError, match="infs or NaNs"):
        linalg.solve_triangular(cp.eye(2) * cp.nan, cp.ones(2), check_finite=True)
    b = cp.asfortranarray(cp.ones((2, 2)))
    assert linalg.solve_triangular(cp.eye(2), b, overwrite_b=True).shape == (2, 2)


def test_decompositions_wait_where_cupy_raises(cp, synchronous_calls):
    with pytest.raises(numpy.linalg.LinAlgError):
        cp.linalg.det(cp.ones((2, 3)))  # (not square: CuPy's error, at the call)
    with pytest.raises(TypeError, match="float16"):
        cp.linalg.svd(cp.ones((2, 2), dtype=cp.float16))
    with pytest.raises(ValueError, match="must have"):
        cp.linalg.solve(cp.ones((2, 3, 3)), cp.ones((2, 3)))  # (CuPy's, not NumPy's)
    with pytest.raises(numpy.linalg.LinAlgError):
        cp.linalg.slogdet(cp.ones((2, 3)))
    # (1-d: ``svd``'s ``n, m = a.shape``, Python's ValueError on the GPU, not LinAlgError)
    with pytest.raises(ValueError, match=r"^not enough values to unpack \(expected 2, got 1\)$"):
        cp.linalg.pinv(cp.ones(3))
    assert cp.linalg.matrix_rank(cp.ones(3)).tolist() == 1  # (CuPy's any() of a vector)
    sign, logdet = cp.linalg.slogdet(cp.ones((0, 2, 2)))  # (CuPy's empty batch: served)
    assert sign.shape == logdet.shape == (0,)
    import gpushare.cupyx as cupyx
    with cupyx.errstate(linalg="raise"):  # (the data may raise: the call waits)
        synchronous_calls.clear()
        cp.linalg.cholesky(cp.eye(2))
        assert synchronous_calls != []


def test_copyto_keeps_cupys_errors_at_the_call(cp):
    dst = cp.zeros((3, 4), dtype=cp.float32)
    with pytest.raises(TypeError, match="Cannot cast complex128 to float32"):
        cp.copyto(dst, cp.ones(4) + 1j)
    with pytest.raises(ValueError, match="could not broadcast"):
        cp.copyto(dst, cp.ones(3, dtype=cp.float32))
    with pytest.raises(OverflowError):
        cp.copyto(cp.zeros(2, dtype=cp.uint8), 300)
    assert dst.tolist() == [[0.0] * 4] * 3


def test_split_keeps_cupys_rules(cp):
    a = cp.arange(12.0).reshape(3, 4)
    assert cp.split(a, 1)[0] is a and cp.array_split(a, -2)[0] is a  # (no indices)
    with pytest.raises(ValueError, match="must divide the size"):
        cp.split(a, 2)
    with pytest.raises(IndexError, match="Axis exceeds ndim"):
        cp.array_split(a, 2, axis=2)
    with pytest.raises(ZeroDivisionError):
        cp.array_split(a, 0)
    with pytest.raises(ValueError, match="Cannot vsplit"):
        cp.vsplit(a[0], 2)
    with pytest.raises(ValueError, match="order must be non-negative"):
        cp.diff(a, -1)
    with pytest.raises(numpy.exceptions.AxisError):
        cp.diff(a, axis=2)
    x = cp.arange(3.0)
    assert x.real is x and x.conj() is x and cp.diff(x, 0) is x
    z = cp.asarray([1 + 2j])
    assert z.real.base is z and z.imag.base is z


CREATIONS = [
    ("arange", args, kwargs) for args, kwargs in [
        ((10,), {}), ((2, 10), {}), ((10, 2, -3), {}), ((0, 1, 0.1), {}),
        ((5,), {"dtype": "f4"}), ((0,), {}), ((3, 1), {}), ((-2.5, 4, 0.5), {"dtype": "i2"}),
        ((1, 2, None), {}), ((7,), {"dtype": numpy.uint8})]
] + [
    ("linspace", args, kwargs) for args, kwargs in [
        ((0, 1), {}), ((2, -3, 7), {}), ((0, 1, 5), {"endpoint": False}), ((1.5, 1.5, 1), {}),
        ((0, 10, 0), {}), ((0, 10, 4), {"dtype": "f4"}), ((-3, 9, 5), {"dtype": numpy.int16}),
        ((0.5, 7, 6), {"dtype": "u1", "axis": 0})]
] + [
    ("tri", args, kwargs) for args, kwargs in [
        ((3,), {}), ((3, 5), {}), ((4, 2, -1), {}), ((3,), {"k": 1, "dtype": "i4"}),
        ((0, 2), {})]
] + [
    ("indices", args, kwargs) for args, kwargs in [
        (((2, 3),), {}), (((4,),), {"dtype": "f4"}), (((2, 0, 3),), {})]
] + [
    ("logspace", args, kwargs) for args, kwargs in [
        ((0, 2, 5), {}), ((1, 3), {"num": 4, "base": 2.0}), ((0, 2, 3), {"dtype": "i4"}),
        ((0, 1, 4), {"endpoint": False, "dtype": "f4"})]
]


@pytest.mark.parametrize("name, args, kwargs", CREATIONS)
def test_creation_pipelines_with_the_servers_layout(cp, synchronous_calls, name, args, kwargs):
    out = getattr(cp, name)(*args, **kwargs)
    assert synchronous_calls == []
    _layout_matches_server(out)
    expected = getattr(numpy, name)(*args, **kwargs)
    assert out.dtype == expected.dtype and out.shape == expected.shape
    numpy.testing.assert_allclose(out.get(), expected)


def test_diag_and_linspace_take_host_arrays_as_cupy_does(cp):
    """CuPy's ``diag`` copies a host vector (or a host matrix's diagonal) to the device,
    and ``linspace`` its host-array bounds; the client did the same, not TypeError."""
    m = numpy.arange(12).reshape(3, 4)
    assert cp.diag(numpy.arange(3), -1).tolist() == numpy.diag(numpy.arange(3), -1).tolist()
    assert cp.diag(m, 1).tolist() == [1, 6, 11] and isinstance(cp.diag(m), cp.ndarray)
    with pytest.raises(ValueError):
        cp.diag(numpy.zeros((2, 2, 2)))
    got = cp.linspace(numpy.zeros(2), numpy.array([1.0, 2.0]), 3)
    numpy.testing.assert_allclose(got.get(), numpy.linspace([0, 0], [1, 2], 3))
    got = cp.linspace(0, numpy.array([1.0, 2.0]), 3, axis=1)
    numpy.testing.assert_allclose(got.get(), numpy.linspace(0, [1, 2], 3, axis=1))


def test_singular_systems_pipeline_only_where_cupy_ignores_them(cp, synchronous_calls):
    """Under CuPy's default ``cupyx.errstate(linalg='ignore')`` a singular matrix is no
    error, so ``solve`` and ``inv`` return at once (the result is meaningless, NaN on the
    CPU backend); under ``'raise'`` they wait, and raise LinAlgError at the call."""
    import gpushare.cupyx as cupyx
    zero = cp.zeros((3, 3))
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    x, z = cp.linalg.solve(zero, cp.ones(3)), cp.linalg.inv(zero)
    assert synchronous_calls == [] and x.shape == (3,) and z.shape == (3, 3)
    assert x.get().shape == (3,) and z.get().shape == (3, 3)  # no error (the values:
    # NaN on the CPU backend, whatever cuSOLVER leaves on a GPU)
    with cupyx.errstate(linalg="raise"):
        with pytest.raises(cp.linalg.LinAlgError):
            cp.linalg.solve(zero, cp.ones(3))
        with pytest.raises(cp.linalg.LinAlgError):
            cp.linalg.inv(zero)
    assert float(cp.linalg.inv(cp.eye(2) * 2)[0, 0]) == 0.5


def test_a_pipelined_result_is_used_again_without_waiting(cp, synchronous_calls):
    """The point of it all: a loop of products and joins queues everything and waits
    once, at the end."""
    a = cp.ones((8, 8), dtype=cp.float32)
    w = cp.eye(8, dtype=cp.float32) * 0.5
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    for _ in range(5):
        a = cp.concatenate([a @ w, a.T.dot(w)], axis=0)[:8]
        a = cp.where(a > 0, a, -a)
    assert synchronous_calls == []
    assert float(a.sum()) == pytest.approx(64 * 0.5 ** 5)


@pytest.mark.parametrize("call, error", [
    (lambda cp, a, b: a @ b, ValueError),                      # inner sizes differ
    (lambda cp, a, b: cp.dot(a, b), ValueError),
    (lambda cp, a, b: cp.concatenate([a, b], axis=0), ValueError),
    (lambda cp, a, b: cp.stack([a, b]), ValueError),
    (lambda cp, a, b: cp.sort(a, axis=3), numpy.exceptions.AxisError),
    (lambda cp, a, b: a.squeeze(axis=0), ValueError),
    (lambda cp, a, b: a.swapaxes(0, 2), ValueError),  # CuPy: "Axis out of range"
    (lambda cp, a, b: cp.eye(-1), ValueError),
    (lambda cp, a, b: cp.expand_dims(a, 5), numpy.exceptions.AxisError),
    (lambda cp, a, b: cp.where(a > 0, a, b), ValueError),          # shapes do not broadcast
    (lambda cp, a, b: cp.arange(0, 10, 0), ZeroDivisionError),
    (lambda cp, a, b: cp.linspace(0, 1, -1), ValueError),
    (lambda cp, a, b: cp.diag(a[None]), ValueError),              # 3-d
    (lambda cp, a, b: cp.tensordot(a, b, axes=([1], [1])), ValueError),  # 4 against 5
    (lambda cp, a, b: cp.reshape(a, (5, -1)), ValueError),
    (lambda cp, a, b: cp.flip(a, 2), numpy.exceptions.AxisError),
    (lambda cp, a, b: cp.moveaxis(a, [0, 1], [0]), ValueError),
    (lambda cp, a, b: cp.isclose(a, b), ValueError),               # shapes do not broadcast
    (lambda cp, a, b: cp.fliplr(a[0]), ValueError),
    (lambda cp, a, b: cp.hstack([a, b[:2]]), ValueError),
    (lambda cp, a, b: cp.transpose(a, (0, 0)), ValueError),
    (lambda cp, a, b: cp.squeeze(a, 0), ValueError),
    (lambda cp, a, b: cp.argmax(a, axis=2), numpy.exceptions.AxisError),
    (lambda cp, a, b: cp.all([1, 0], axis=0), TypeError),        # CuPy takes no lists
    (lambda cp, a, b: cp.repeat(a, -1), ValueError),
    (lambda cp, a, b: a.repeat(2, axis=2), numpy.exceptions.AxisError),
    (lambda cp, a, b: cp.fft.fft(a, 0), ValueError),              # no data points
    (lambda cp, a, b: cp.fft.irfft(a[:, :1]), RuntimeError),  # 2 (1 - 1) points: cuFFT's
    (lambda cp, a, b: cp.fft.rfft(a, norm="none"), ValueError),
    (lambda cp, a, b: cp.broadcast_to(a, (4, 4)), ValueError),
    (lambda cp, a, b: cp.broadcast_to(a, (4,)), ValueError),      # fewer dimensions
    (lambda cp, a, b: cp.roll(a, 1, axis=2), numpy.exceptions.AxisError),
    (lambda cp, a, b: cp.roll(a, (1, 2, 3), axis=(0, 1)), ValueError),
    (lambda cp, a, b: cp.fft.fft2(a, s=(0, 4)), ValueError),
    (lambda cp, a, b: cp.fft.fftn(a, norm="none"), ValueError),
    (lambda cp, a, b: cp.pad(a, -1), ValueError),
    (lambda cp, a, b: cp.pad(a, ((1, 2), (3, 4), (5, 6))), ValueError),
    (lambda cp, a, b: cp.pad(a, 1.5), TypeError),
    (lambda cp, a, b: cp.pad(a, 1, mode="edge", constant_values=3), ValueError),
    (lambda cp, a, b: cp.pad(a, 1, mode="no-such-mode"), ValueError),
    (lambda cp, a, b: cp.convolve(a[0], b[0], "no-such-mode"), ValueError),
    (lambda cp, a, b: cp.convolve(a[0].astype(int), b[0], "no-such-mode"),
     UnboundLocalError),  # (CuPy's ``_dot_convolve``)
    (lambda cp, a, b: cp.correlate(a, b[0]), ValueError),          # "too deep"
    (lambda cp, a, b: cp.select([a > 0], [a.astype(int)], 0.5), TypeError),
    (lambda cp, a, b: cp.select([a], [a]), ValueError),            # not a bool condition
    (lambda cp, a, b: cp.select([a > 0], [b]), ValueError),        # shapes do not broadcast
    (lambda cp, a, b: cp.fill_diagonal(a[0], 1), ValueError),
    (lambda cp, a, b: cp.fill_diagonal(a[None], 1), ValueError),   # unequal dimensions
    (lambda cp, a, b: cp.putmask(a, b > 0, 0), ValueError),        # shapes differ
    (lambda cp, a, b: cp.putmask(a, a > 0, b.astype(complex)), TypeError),
    (lambda cp, a, b: cp.putmask(a.astype(cp.uint8), a > 0, -1), OverflowError),
    (lambda cp, a, b: a.astype(cp.uint8).__setitem__(a > 0, 300), OverflowError),
    (lambda cp, a, b: cp.histogram(a, 3, range=(2, 1)), ValueError),
    (lambda cp, a, b: cp.histogram(a, 0, range=(0, 1)), ValueError),
    (lambda cp, a, b: cp.histogram(a, 3, range=(0, float("inf"))), ValueError),
    (lambda cp, a, b: cp.lexsort(a[None]), NotImplementedError),
    (lambda cp, a, b: cp.delete(a, 4, axis=0), IndexError),
    (lambda cp, a, b: cp.delete(a, 0, axis=2), numpy.exceptions.AxisError),
    (lambda cp, a, b: cp.random.choice(0, 3), ValueError),
    (lambda cp, a, b: cp.random.choice(a, 3), ValueError),         # 2-d
    (lambda cp, a, b: cp.nanargmax(a[:, :0], axis=1), ValueError),  # an empty axis
    (lambda cp, a, b: cp.nanargmin(a[:0]), ValueError),
    (lambda cp, a, b: cp.nanargmax(a, axis=2), numpy.exceptions.AxisError),
    (lambda cp, a, b: cp.nanvar(a, axis=(0, 0)), ValueError),       # a duplicate axis
    (lambda cp, a, b: cp.nanstd(a, axis=-3), numpy.exceptions.AxisError),
])
def test_what_cannot_pipeline_still_raises_at_the_call(cp, call, error):
    a = cp.ones((3, 4), dtype=cp.float32)
    b = cp.ones((3, 5), dtype=cp.float32)
    with pytest.raises(error):
        call(cp, a, b)
    assert float(a.sum()) == 12.0  # the session goes on


shapes = st.lists(st.integers(1, 3), min_size=0, max_size=4).map(tuple)


@given(shapes, shapes)
def test_matmul_shapes_are_numpys_or_left_to_the_server(a, b):
    """The client's matmul shape is NumPy's (and CuPy's) for every pair it pipelines;
    for a pair NumPy refuses it does not guess (the server raises CuPy's error)."""
    from gpushare.cupy import _infer
    from gpushare.cupy._routines import _matmul_shape
    try:
        expected = numpy.matmul(numpy.ones(a), numpy.ones(b)).shape
    except ValueError:
        with pytest.raises(_infer.CannotInfer):
            _matmul_shape(a, b)
    else:
        assert _matmul_shape(a, b) == expected


class _EighSignsOf:
    """NumPy, but for ``linalg.eigh``'s eigenvectors, whose signs are those the server's
    solver chose for the step's covariance of ``X`` (an eigenvector's sign is arbitrary:
    the GPU's cuSOLVER picked others than LAPACK, and the step's value depends on them)."""

    def __init__(self, cp, X):
        Xc = X - X.mean(0)
        self._device_v = cp.linalg.eigh(Xc.T @ Xc / (X.shape[0] - 1))[1].get()
        self.linalg = self

    def __getattr__(self, name):  # (``numpy.x``, and ``numpy.linalg.x`` as ``self.x``)
        found = getattr(numpy, name, None)
        return found if found is not None else getattr(numpy.linalg, name)

    def eigh(self, a):
        w, v = numpy.linalg.eigh(a)
        signs = numpy.where((v * self._device_v).sum(0) < 0, -1, 1).astype(v.dtype)
        return w, v * signs


def _run_step(cp, synchronous_calls, name):
    """``benchmarks/pipelining.py``'s step ``name`` on 64x16 float32 data, once to warm
    up, then again: the calls that waited the second time (but the express connection's
    own, opened once), after checking its value against NumPy's."""
    import os
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if root not in sys.path:
        sys.path.insert(0, root)
    from benchmarks.pipelining import STEPS
    step = STEPS[name]
    X = cp.random.RandomState(0).standard_normal((64, 16)).astype(cp.float32)
    expected = step(_EighSignsOf(cp, X) if name == "pca" else numpy, X.get())
    step(cp, X)
    synchronous_calls.clear()
    got = step(cp, X)
    assert abs(got - expected) <= 1e-3 * max(1.0, abs(expected))
    return [c for c in synchronous_calls if not c[0].startswith("express_")]


def test_a_realistic_step_waits_only_where_it_must(cp, synchronous_calls):
    """``benchmarks/pipelining.py``'s step (PCA and clustering, as users write it): its
    final ``float`` waits, and three calls on arrays whose layout the client does not
    know (a decomposition's factor sliced, a column's FFT, a roll of a view); nothing
    else does (it waited 17 times a step before session 30)."""
    waited = _run_step(cp, synchronous_calls, "pca")
    assert len(waited) <= 4, waited
    assert ("method", "__float__") in waited


def test_a_data_summary_step_waits_only_where_it_must(cp, synchronous_calls):
    """``benchmarks/pipelining.py``'s statistics step (robust scaling, covariance,
    histograms, ranks, quantiles): its final ``float`` waits, and the layout of the
    percentiles once (unpacked: indexed); nothing else (15 waits a step in session 30)."""
    waited = _run_step(cp, synchronous_calls, "stats")
    assert sorted(waited) == [("meta", None), ("method", "__float__")], waited


def test_einsum_and_copyto_keep_cupys_errors_at_the_call(cp):
    # (CuPy's own tests: ``test_einsum.py::TestEinSumError``, ``test_basic.py``)
    with pytest.raises(ValueError):
        cp.einsum("...->", cp.zeros((2, 2, 2)))  # an ellipsis the output drops
    with pytest.raises(ValueError):
        cp.einsum("ii", cp.arange(3).reshape(1, 3))  # a diagonal of unequal axes
    a = cp.arange(6, dtype=cp.int32)
    with pytest.raises(TypeError):
        cp.copyto(a, a[::-1], where=cp.arange(6.0))  # a mask that is no bool array
    with pytest.raises(ValueError):
        cp.copyto(a, 1, where=cp.ones(4, dtype=bool))  # one that does not broadcast
    assert a.tolist() == list(range(6))


@pytest.mark.parametrize("dtype", ["?", "i1", "u4", "i8", "f2", "f4", "f8", "c8"])
def test_whole_array_reductions_queue_as_records(cp, synchronous_calls, dtype):
    """``x.sum()``, ``x.max()``... with no argument travel as an operator's record
    (``cupy.sum(x)``, which CuPy's ``x.sum()`` is): queued without waiting, the 0-d
    result's layout and value the server's, for every reduction and dtype; an empty
    array's ``max`` still raises CuPy's error at the call."""
    from gpushare.cupy._ndarray import _RECORD_REDUCTIONS
    rng = numpy.random.default_rng(7)
    host = _host(rng, (4, 5), dtype)
    x = cp.asarray(host)[:, ::2]  # (not contiguous: the reduction sees strides)
    h = host[:, ::2]
    names = dict(_RECORD_REDUCTIONS)
    if dtype == "?":
        with pytest.raises(TypeError, match="boolean subtract"):  # CuPy's, at the call
            x.ptp()
        del names["ptp"]
    for name in names:
        getattr(x, name)()  # the first of a dtype fills the client's dtype cache
    cp.cuda.Device().synchronize()
    s = x._gs_session
    before = len(synchronous_calls)
    queued = s._seq
    with s._lock:  # (the idle flush waits: the queue is read below)
        got = {name: getattr(x, name)() for name in names}
        assert [(c[1], c[2], c[3]) for c in s._queue[-len(got):]] == [
            (4, target, x._gs_id) for target in names.values()]
    assert len(synchronous_calls) == before  # nothing waited
    assert s._seq == queued + len(got)
    for name, r in got.items():
        _layout_matches_server(r)
        want = numpy.ptp(h) if name == "ptp" else getattr(h, name)()
        assert r.dtype == want.dtype or name in ("mean", "var", "std") and \
            dtype == "f2" and r.dtype == numpy.float16, (name, r.dtype, want.dtype)
        numpy.testing.assert_allclose(r.get(), want, rtol=2e-2 if dtype == "f2" else 1e-5,
                                      err_msg=name)
    empty = cp.zeros((0, 3), dtype=dtype)
    with pytest.raises(ValueError):
        empty.max()
    assert empty.sum().get() == 0


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_put_along_axis_pipelines(cp, synchronous_calls, axis):
    host = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    a = cp.asarray(host)
    idx = numpy.array([[0], [2], [1]]) if axis in (1, -1) else \
        numpy.array([[2, 0, 1, 1]]) if axis == 0 else numpy.array([5, 0, 11])
    i = cp.asarray(idx)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    assert cp.put_along_axis(a, i, -1.5, axis) is None
    assert synchronous_calls == []
    numpy.put_along_axis(host, idx, -1.5, axis)
    numpy.testing.assert_array_equal(a.get(), host)
    with pytest.raises(IndexError, match="integer array"):
        cp.put_along_axis(a, i.astype(cp.float32), 0, 0)


STATISTICS = [
    ("median", lambda xp, a: xp.median(a)),
    ("median along an axis", lambda xp, a: xp.median(a, axis=1)),
    ("median keepdims", lambda xp, a: xp.median(a, axis=-1, keepdims=True)),
    ("median of the whole keepdims", lambda xp, a: xp.median(a, keepdims=True)),
    ("percentile", lambda xp, a: xp.percentile(a, 30)),
    ("percentile several", lambda xp, a: xp.percentile(a, [10, 50.5, 90], axis=0)),
    ("percentile host q keepdims", lambda xp, a: xp.percentile(
        a, numpy.array([25.0, 75.0]), axis=1, keepdims=True)),
    ("percentile lower", lambda xp, a: xp.percentile(a, 40, axis=(0, 1), method="lower")),
    ("quantile", lambda xp, a: xp.quantile(a, 0.25)),
    ("quantile midpoint", lambda xp, a: xp.quantile(a, [0.5, 0.1], axis=1, method="midpoint")),
    ("quantile nearest keepdims", lambda xp, a: xp.quantile(a, 0.7, method="nearest",
                                                           keepdims=True)),
    ("average", lambda xp, a: xp.average(a)),
    ("average along an axis", lambda xp, a: xp.average(a, axis=0)),
]


@pytest.mark.parametrize("dtype", ["i4", "f4", "f8"])
@pytest.mark.parametrize("name, fn", STATISTICS, ids=[c[0] for c in STATISTICS])
def test_statistics_pipeline_with_the_servers_shape_and_dtype(cp, synchronous_calls, name,
                                                              fn, dtype):
    rng = numpy.random.default_rng(3)
    host = _host(rng, (4, 5, 3), dtype)
    a = cp.asarray(host)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = fn(cp, a)
    assert synchronous_calls == [], f"{name} waited for the server"
    shape, server_dtype = out._gs_session.call("meta", None, (out,))[:2]
    assert (tuple(shape), numpy.dtype(server_dtype)) == (out.shape, out.dtype)
    expected = fn(numpy, host)
    assert out.shape == numpy.shape(expected)
    numpy.testing.assert_allclose(out.get().astype(float), expected, rtol=1e-5, atol=1e-6)


def test_statistics_keep_cupys_errors_and_dtypes(cp):
    a = cp.arange(12, dtype=cp.int32).reshape(3, 4)
    with pytest.raises(ValueError, match="Percentiles must be in the range"):
        cp.percentile(a, 150)
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        cp.quantile(a, [-1, -2])
    with pytest.raises(ValueError, match="not yet supported"):
        cp.quantile(a, 0.5, method="hazen")
    # (CuPy's result_type of the array and a Python int: int32, where NumPy's is float64)
    assert cp.quantile(a, 1).dtype == cp.int32
    avg, scl = cp.average(a, axis=1, returned=True)
    assert avg.dtype == scl.dtype == cp.float64 and scl.shape == (3,)
    numpy.testing.assert_array_equal(scl.get(), [4.0, 4.0, 4.0])


@pytest.mark.parametrize("name", ["isin", "in1d"])
@pytest.mark.parametrize("invert", [False, True])
def test_membership_pipelines(cp, synchronous_calls, name, invert):
    host = numpy.arange(12).reshape(3, 4) % 5
    test = numpy.array([1, 3, 7])
    a, t = cp.asarray(host), cp.asarray(test)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = getattr(cp, name)(a, t, invert=invert)
    empty = getattr(cp, name)(a, t[:0], invert=invert)
    assert synchronous_calls == []
    want = numpy.isin(host, test, invert=invert)
    want = want if name == "isin" else want.ravel()
    assert out.shape == want.shape and out.dtype == want.dtype
    _layout_matches_server(out)
    numpy.testing.assert_array_equal(out.get(), want)
    numpy.testing.assert_array_equal(empty.get(), numpy.full(want.shape, invert))


def test_partition_keeps_cupys_checks(cp):
    a = cp.arange(10, dtype=cp.float32)
    with pytest.raises(ValueError, match="out of bounds"):
        cp.partition(a, 10)
    with pytest.raises(ValueError, match="out of bounds"):
        cp.partition(a, [1, -11])
    with pytest.raises(numpy.exceptions.AxisError):
        cp.partition(a, 1, axis=1)


def test_squeeze_with_nothing_to_squeeze_is_the_array_itself(cp, synchronous_calls):
    """CuPy's ``_ndarray_squeeze`` returns ``self`` when no axis has size one (or
    ``axis=()``): the same proxy, no call."""
    a = cp.ones((3, 4))
    synchronous_calls.clear()
    assert a.squeeze() is a and a.squeeze(axis=()) is a and cp.squeeze(a) is a
    b = a[None]
    assert b.squeeze() is not b and b.squeeze().shape == (3, 4)
    assert synchronous_calls == []


def test_a_result_of_unknown_layout_is_asked_for_once(cp, synchronous_calls):
    """Indexing a result whose layout only the server knows asks for that layout once;
    every later view of it is inferred (each used to wait)."""
    a = cp.arange(24, dtype=cp.float32).reshape(4, 6)
    q = cp.percentile(a, [10, 90], axis=0)
    assert q._strides is None
    synchronous_calls.clear()
    lo, hi = q
    row = q[1, ::2]
    assert synchronous_calls == [("meta", None)]
    _layout_matches_server(row)
    want = numpy.percentile(numpy.arange(24, dtype=numpy.float32).reshape(4, 6), [10, 90], 0)
    numpy.testing.assert_allclose(lo.get(), want[0], rtol=1e-6)
    numpy.testing.assert_allclose(hi.get(), want[1], rtol=1e-6)
    numpy.testing.assert_allclose(row.get(), want[1, ::2], rtol=1e-6)


def test_permutation_and_shuffle_pipeline(cp, synchronous_calls):
    """``permutation`` of an int (an argsort: int64) or of an array (``a[perm]``: a new
    C-ordered array) and ``shuffle`` (in place) queue without waiting; the same seed
    gives the same permutation as before (the server draws them)."""
    x = cp.arange(12, dtype=cp.float32).reshape(6, 2)
    f = cp.asfortranarray(x)
    cp.random.seed(3)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    p = cp.random.permutation(10)
    q = cp.random.permutation(f)
    cp.random.shuffle(x)
    assert synchronous_calls == []
    for v in (p, q):
        _layout_matches_server(v)
    assert p.dtype == cp.int64 and sorted(p.get().tolist()) == list(range(10))
    assert sorted(q.get()[:, 0].tolist()) == [0, 2, 4, 6, 8, 10]
    rows = x.get()
    assert sorted(rows[:, 0].tolist()) == [0, 2, 4, 6, 8, 10]
    assert (rows[:, 1] == rows[:, 0] + 1).all()  # (whole rows moved)
    cp.random.seed(3)
    assert cp.random.permutation(10).get().tolist() == p.get().tolist()
    with pytest.raises(ValueError):
        cp.random.permutation(-1)


@pytest.mark.parametrize("axes", [{}, {"axis": 0}, {"axisa": 0, "axisb": -1, "axisc": 0}])
def test_cross_pipelines_with_the_servers_shape_and_dtype(cp, synchronous_calls, axes):
    rng = numpy.random.default_rng(5)
    ha = rng.standard_normal((3, 4, 3)).astype(numpy.float32)
    hb = rng.standard_normal((3, 3) if "axisa" in axes else (3, 4, 3))
    a, b = cp.asarray(ha), cp.asarray(hb)
    if "axis" in axes:  # (the axis of 3s is the first)
        ha, a = ha.transpose(2, 1, 0), a.transpose(2, 1, 0)
        hb, b = hb.transpose(2, 1, 0), b.transpose(2, 1, 0)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = cp.cross(a, b, **axes)
    assert synchronous_calls == []
    want = numpy.cross(ha, hb, **axes)
    assert out.shape == want.shape and out.dtype == want.dtype
    _layout_matches_server(out)
    numpy.testing.assert_allclose(out.get(), want, rtol=1e-5, atol=1e-6)


def test_ix_pipelines_for_indices_and_waits_for_masks_as_cupy(cp, synchronous_calls):
    a = cp.arange(20).reshape(4, 5)
    i, j = cp.asarray([0, 3]), cp.asarray([1, 2, 4])
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    rows, cols = cp.ix_(i, j)
    picked = a[rows, cols]
    assert synchronous_calls == []
    assert rows.shape == (2, 1) and cols.shape == (1, 3)
    numpy.testing.assert_array_equal(picked.get(), numpy.arange(20).reshape(4, 5)[
        numpy.ix_([0, 3], [1, 2, 4])])
    mask, = cp.ix_(cp.asarray([True, False, True]))  # (nonzero: data-dependent)
    numpy.testing.assert_array_equal(mask.get(), [0, 2])
    with pytest.raises(ValueError, match="1 dimensional"):
        cp.ix_(a)


def test_an_empty_result_is_both_c_and_f_contiguous(cp, synchronous_calls):
    """An array of no elements is C- and F-contiguous at once (CuPy's flags, NumPy's):
    the operators' inferred layout says so too (it said only C for (2, 0, 4))."""
    a = cp.asarray(numpy.float64(2))
    b = cp.empty((2, 0, 4))
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    results = [a * b, b + 1, -b, cp.kron(a, b), cp.multiply(b, b)]
    assert synchronous_calls == []
    for r in results:
        assert r.flags.c_contiguous and r.flags.f_contiguous
        _layout_matches_server(r)


@pytest.mark.parametrize("shape, kth, axis", [((40,), 5, -1), ((3, 50), [2, -3], 1),
                                              ((50, 3), 10, 0), ((4, 10), 7, None)])
def test_argpartition_pipelines(cp, synchronous_calls, shape, kth, axis):
    host = numpy.random.default_rng(2).permutation(numpy.prod(shape)).reshape(shape)
    host = host.astype(numpy.float32)
    a = cp.asarray(host)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    idx = cp.argpartition(a, kth, axis=axis)
    assert synchronous_calls == []
    got = idx.get()
    assert idx.shape == got.shape and got.dtype == numpy.int64
    flat = host.ravel() if axis is None else host
    ax = -1 if axis is None else axis
    part = numpy.take_along_axis(flat, got, axis=ax)
    for k in ([kth] if isinstance(kth, int) else kth):  # (a valid partition at each kth)
        numpy.testing.assert_array_equal(numpy.take(part, k, axis=ax),
                                         numpy.take(numpy.sort(flat, axis=ax), k, axis=ax))
    with pytest.raises(ValueError, match="out of bounds"):
        cp.argpartition(a, 1000, axis=axis)


def test_binomial_and_poisson_pipeline_with_the_same_draws(cp, synchronous_calls):
    """``binomial``/``poisson`` of Python numbers or device arrays, with the default
    dtype, queue without waiting (CuPy draws them into ``cupy.empty(size)``, checking
    nothing); the same seed gives the same numbers as the waiting path."""
    lam = cp.asarray([1.0, 5.0, 20.0])
    rs = cp.random.RandomState(4)
    cp.random.poisson(1.0)  # (the global state, made at its first use: a call)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    outs = [rs.binomial(10, 0.3, 5), rs.binomial(10, 0.5), rs.poisson(lam),
            rs.poisson(3.0, (2, 2)), cp.random.binomial(5, 0.5, 3)]
    assert synchronous_calls == []
    for o, shape in zip(outs, [(5,), (), (3,), (2, 2), (3,)]):
        assert o.shape == shape and o.dtype == cp.int64
        _layout_matches_server(o)
    again = cp.random.RandomState(4)
    waited = again.binomial(10, 0.3, 5, dtype="i4")  # (another dtype: the server's)
    numpy.testing.assert_array_equal(waited.get(), outs[0].get())
    assert (outs[2].get() >= 0).all() and (outs[0].get() <= 10).all()


def test_in_place_routines_and_masked_assignments_queue(cp, synchronous_calls):
    """``fill_diagonal``, ``putmask`` and ``a[mask] = v`` (whose mask count waits in CuPy,
    but whose every error is known here) queue without waiting and write what NumPy
    writes."""
    host = numpy.arange(20, dtype=numpy.float32).reshape(4, 5) - 8
    a, b, c, d, e = (cp.asarray(host) for _ in range(5))
    v = cp.asarray(numpy.array([-1.0, -2.0, -3.0], dtype=numpy.float32))
    cube = cp.zeros((3, 3, 3), dtype=cp.int32)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    cp.fill_diagonal(a, 7)
    cp.fill_diagonal(b, 0.5, wrap=True)
    cp.fill_diagonal(cube, 2)
    cp.putmask(c, c > 3, 0)
    cp.putmask(d, d < 0, v)                  # values repeated by flat index
    cp.putmask(e, e > 0, cp.asarray(-host))  # values of the same shape
    a[a < -5] = cp.float32(9)
    b[b > 10] = cp.asarray(numpy.float32(-4))  # a 0-d device value
    assert synchronous_calls == []
    want = [host.copy() for _ in range(5)]
    numpy.fill_diagonal(want[0], 7)
    numpy.fill_diagonal(want[1], 0.5, wrap=True)
    numpy.putmask(want[2], want[2] > 3, 0)
    numpy.putmask(want[3], want[3] < 0, [-1.0, -2.0, -3.0])
    numpy.putmask(want[4], want[4] > 0, -host)
    want[0][want[0] < -5] = 9
    want[1][want[1] > 10] = -4
    for got, expected in zip((a, b, c, d, e), want):
        numpy.testing.assert_array_equal(got.get(), expected)
    expected_cube = numpy.zeros((3, 3, 3), numpy.int32)
    numpy.fill_diagonal(expected_cube, 2)
    numpy.testing.assert_array_equal(cube.get(), expected_cube)


@pytest.mark.parametrize("a, size", [(6, 4), (6, (2, 3)), (9, ()), ("array", 5),
                                     ("array", (2, 2)), ("array", ())])
def test_choice_with_replacement_pipelines_with_cupys_draws(cp, synchronous_calls, a, size):
    """``choice(a, size)`` runs CuPy's Python here (``randint`` indices, ``a[index]``):
    no wait, and the draws the server's own ``choice`` makes from the same seed."""
    if a == "array":
        a = cp.arange(8, dtype=cp.float32) * 3
    cp.random.seed(5)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    got = cp.random.choice(a, size)
    assert synchronous_calls == []
    _layout_matches_server(got)
    cp.random.seed(5)
    state = cp.random.get_random_state()
    expected = state._gs_session.call("method", "choice", (state, a, size, True, None))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    numpy.testing.assert_array_equal(got.get(), expected.get())


def test_convolve_ravels_a_and_lexsort_of_one_key_is_cupys(cp, synchronous_calls):
    """CuPy's own answers where NumPy's differ: ``convolve`` ravels an n-d ``a``;
    ``lexsort`` of a 1-d array is the 0-d ``array(0)``."""
    host = numpy.arange(6, dtype=numpy.float64).reshape(2, 3)
    a, v, k = cp.asarray(host), cp.asarray(numpy.array([1.0, -1.0])), cp.arange(4)[::-1]
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    r = cp.convolve(a, v)
    first = cp.lexsort(k)
    assert synchronous_calls == []
    numpy.testing.assert_allclose(r.get(), numpy.convolve(host.ravel(), [1.0, -1.0]),
                                  atol=1e-12)
    _layout_matches_server(first)
    assert first.shape == () and first.dtype == numpy.intp and int(first) == 0


@pytest.mark.parametrize("name, args", [
    ("log", (2 * numpy.pi,)), ("log", (3,)), ("log", (True,)), ("add", (1, 2)),
    ("add", (1, 2.5)), ("true_divide", (1, 2)), ("sqrt", (1j,)), ("power", (2, 3)),
    ("greater", (1, 2.0)), ("floor_divide", (-7, 2)), ("left_shift", (1, 3)),
    ("add", (True, False)), ("remainder", (-7, 3.0)), ("exp", (-(2 ** 62),)),
    ("add", (2 ** 63, 1)), ("add", (2 ** 63, 2 ** 63)), ("multiply", (2 ** 64 - 1, 0.5)),
    ("subtract", (-1, 2 ** 63))])
def test_a_ufunc_of_python_scalars_pipelines_as_a_0d_array(cp, synchronous_calls, name,
                                                           args):
    """``cupy.log(2 * numpy.pi)``: CuPy's ``CScalar``s, without weak promotion (no array
    comes with them), give a 0-d array of the loop's type; nothing waits. (An int from
    2**63 up is uint64 there: ``add(2**63, 1)`` is float64, as uint64 and int64 meet.)"""
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = getattr(cp, name)(*args)
    assert synchronous_calls == []
    _layout_matches_server(out)
    expected = getattr(numpy, name)(*(numpy.asarray(a) for a in args))
    assert out.shape == () and out.dtype == expected.dtype
    numpy.testing.assert_allclose(out.get(), expected)


def test_a_ufunc_of_python_scalars_keeps_cupys_errors_at_the_call(cp):
    with pytest.raises(TypeError):
        cp.bitwise_and(1.0, 2)          # no loop takes a float
    with pytest.raises(OverflowError):
        cp.add(2 ** 64, 1)              # no CScalar holds it


@pytest.mark.parametrize("name, args, kwargs", [
    ("gaussian_filter", (2.0,), {}), ("gaussian_filter", (1,), {"mode": "nearest"}),
    ("gaussian_filter", (0.7,), {"truncate": 2.0, "mode": "grid-wrap"}),
    ("uniform_filter", (), {"size": 5}), ("median_filter", (3,), {}),
    ("maximum_filter", (), {"size": 4, "mode": "constant", "cval": 1.5}),
    ("minimum_filter", (2,), {}), ("sobel", (0,), {}), ("prewitt", (), {}),
    ("laplace", (), {"mode": "wrap"}), ("gaussian_filter1d", (1.5,), {}),
    ("gaussian_filter1d", (0.8, 0), {"mode": "mirror", "truncate": 3.0}),
    ("uniform_filter1d", (4,), {"axis": 0}), ("minimum_filter1d", (3,), {}),
    ("maximum_filter1d", (5, -2), {"mode": "constant", "cval": -1.0}),
    ("shift", (1.5,), {}), ("shift", ((0.5, -2),), {"order": 1, "mode": "nearest"}),
    ("shift", ([0.25, 3],), {"order": 0, "mode": "grid-wrap", "prefilter": False}),
    ("zoom", (1.5,), {}), ("zoom", ((0.5, 2),), {"order": 1, "mode": "nearest"}),
    ("zoom", (0.3,), {"mode": "grid-wrap", "grid_mode": True}),
    ("zoom", (2,), {"order": 5, "mode": "mirror", "cval": 1.0})])
@pytest.mark.parametrize("order", ["C", "F"])
def test_common_ndimage_filters_pipeline(cp, synchronous_calls, name, args, kwargs, order):
    """The plain forms of the common filters (and ``shift``) write
    ``cupy.empty(input.shape, input.dtype)`` (``zoom``: of its output's shape): queued with
    that result, whatever the input's layout."""
    import scipy.ndimage
    from gpushare.cupyx.scipy import ndimage
    host = numpy.random.default_rng(0).standard_normal((9, 7)).astype(numpy.float32)
    x = cp.asarray(numpy.asfortranarray(host) if order == "F" else host)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = getattr(ndimage, name)(x, *args, **kwargs)
    assert synchronous_calls == []
    _layout_matches_server(out)
    expected = getattr(scipy.ndimage, name)(host, *args, **kwargs)
    assert out.dtype == expected.dtype == numpy.float32
    numpy.testing.assert_allclose(out.get(), expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name, weights, kwargs", [
    ("correlate", ((3, 2), "f4"), {}), ("convolve", ((3, 2), "f4"), {"mode": "constant"}),
    ("correlate", ((2, 4), "f8"), {"mode": "wrap"}), ("convolve", ((1, 3), "i4"), {}),
    ("correlate", ((3, 3), "u1"), {"mode": "constant", "cval": 2.5}),
    ("convolve", ((4, 1), "f4"), {"mode": "nearest"}), ("correlate1d", ((3,), "f4"), {}),
    ("convolve1d", ((4,), "f8"), {"axis": 0, "mode": "mirror"}),
    ("correlate1d", ((2,), "i8"), {"axis": -2, "mode": "constant", "cval": -1})])
@pytest.mark.parametrize("order", ["C", "F"])
def test_correlations_with_device_weights_pipeline(cp, synchronous_calls, name, weights,
                                                   kwargs, order):
    """``correlate``/``convolve`` and their 1-d forms with weights on the device (real,
    none empty, of the right dimensions): CuPy's output is ``cupy.empty(input.shape,
    input.dtype)`` (``_filters_core._call_kernel``), queued so."""
    import scipy.ndimage
    from gpushare.cupyx.scipy import ndimage
    rng = numpy.random.default_rng(1)
    host = rng.standard_normal((9, 7)).astype(numpy.float32)
    w = _host(rng, *weights)
    x = cp.asarray(numpy.asfortranarray(host) if order == "F" else host)
    dw = cp.asarray(w)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = getattr(ndimage, name)(x, dw, **kwargs)
    assert synchronous_calls == []
    _layout_matches_server(out)
    expected = getattr(scipy.ndimage, name)(host, w.astype(numpy.float64), **kwargs)
    assert out.dtype == numpy.float32
    numpy.testing.assert_allclose(out.get(), expected, rtol=1e-4, atol=1e-4)


def test_ndimage_filters_keep_cupys_errors_at_the_call(cp):
    from gpushare.cupyx.scipy import ndimage
    x = cp.ones((4, 4), dtype=cp.float32)
    with pytest.raises(RuntimeError, match="boundary mode not supported"):
        ndimage.gaussian_filter(x, 1.0, mode="no-such-mode")
    with pytest.raises(TypeError):
        ndimage.sobel(x, 0, no_such_keyword=1)
    with pytest.raises(ValueError, match="spline order is not supported"):
        ndimage.zoom(x, 2.0, order=7)
    with pytest.raises(RuntimeError, match="shift must have length equal to input rank"):
        ndimage.shift(x, (1.0, 2.0, 3.0))
    with pytest.warns(UserWarning, match="grid-constant"):
        ndimage.zoom(x, 2.0, grid_mode=True)  # (the warning at the call)
    with pytest.raises(RuntimeError, match="filter weights array has incorrect shape"):
        ndimage.correlate(x, cp.ones(3, dtype=cp.float32))
    with pytest.raises(RuntimeError, match="incorrect filter size"):
        ndimage.convolve1d(x, cp.ones((2, 2), dtype=cp.float32))
    with pytest.raises(ValueError, match="invalid origin"):
        ndimage.correlate1d(x, cp.ones(3, dtype=cp.float32), origin=2)
    with pytest.raises(RuntimeError, match="boundary mode not supported"):
        ndimage.convolve(x, cp.ones((2, 2), dtype=cp.float32), mode="no-such-mode")
    with pytest.raises(RuntimeError, match="filter weights array has incorrect shape"):
        ndimage.correlate(x, cp.ones((0, 2), dtype=cp.float32))  # (CuPy drops empty axes)
    with pytest.raises(ValueError, match="invalid origin"):
        ndimage.convolve(x, cp.ones((2, 3), dtype=cp.float32), origin=-2)
    # weights of more dimensions, the extra ones empty: CuPy's zeros_like
    z = ndimage.correlate(x, cp.ones((0, 2, 2), dtype=cp.float32))
    assert z.shape == (4, 4) and z.dtype == x.dtype and float(abs(z).sum()) == 0.0
    assert float(x.sum()) == 16.0


@pytest.mark.parametrize("name", ["random", "standard_normal"])
@pytest.mark.parametrize("size, dtype", [(None, "d"), (5, "f"), ((2, 3), numpy.float64)])
def test_generator_draws_pipeline_with_the_same_values(cp, synchronous_calls, name, size,
                                                       dtype):
    """``Generator.random``/``standard_normal`` of float32 or float64 draw into a new
    array of ``size``: queued, and the values the server's own call draws."""
    g = cp.random.default_rng(7)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    got = getattr(g, name)(size, dtype)
    assert synchronous_calls == []
    _layout_matches_server(got)
    expected = getattr(cp.random.default_rng(7), "_run")(name, size, dtype, None)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    numpy.testing.assert_array_equal(got.get(), expected.get())
    with pytest.raises(TypeError):
        g.standard_normal(3, numpy.int32)  # (CuPy's: unsupported dtype, at the call)


@pytest.mark.parametrize("name, args", [
    ("uniform", (0.0, 1.0, 5)), ("uniform", (-2, 3.5, (2, 3), "f")),
    ("uniform", (1, 2, (4,), numpy.float64)), ("standard_exponential", (5,)),
    ("standard_exponential", ((2, 2), "f")), ("exponential", (2.5, (3, 2))),
    ("exponential", (1, None))])
def test_generator_distributions_pipeline_with_the_same_draws(cp, synchronous_calls, name,
                                                              args):
    """``uniform`` of Python bounds, ``standard_exponential`` and ``exponential`` of a
    Python scale: queued, the values the server's own call draws."""
    g = cp.random.default_rng(11)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    got = getattr(g, name)(*args)
    assert synchronous_calls == []
    _layout_matches_server(got)
    expected = getattr(cp.random.default_rng(11), "_run")(name, *args)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    numpy.testing.assert_array_equal(got.get(), expected.get())
    # and the generator's state moved as the server's call moves it
    numpy.testing.assert_array_equal(g.random(3).get(),
                                     (lambda h: (getattr(h, "_run")(name, *args),
                                                 h.random(3))[1])(
                                         cp.random.default_rng(11)).get())


def test_generator_distributions_keep_cupys_errors(cp):
    g = cp.random.default_rng(0)
    with pytest.raises(NotImplementedError):
        g.standard_exponential(3, method="zig")
    assert g.standard_exponential(3, numpy.int32).dtype == numpy.int32  # (astype: CuPy's)
    assert g.uniform(numpy.float32(0), 1.0, 3).dtype == numpy.float64  # (the server's)


@pytest.mark.parametrize("args", [(10,), (3, 9, (2, 4)), (-5, 5, 6, "i1"), (0, 255, 3, "u1", True),
                                  (2 ** 40, 2 ** 41, None)])
def test_generator_integers_pipeline_with_the_same_draws(cp, synchronous_calls, args):
    """``Generator.integers`` of integer bounds CuPy's checks pass: queued, the values the
    server's own call draws; a bad interval still raises at the call."""
    g = cp.random.default_rng(3)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    got = g.integers(*args)
    assert synchronous_calls == []
    _layout_matches_server(got)
    full = (*args, None, None, None, None)[:5]
    low, high, size, dtype, endpoint = full[0], full[1], full[2], full[3] or "i8", bool(full[4])
    expected = getattr(cp.random.default_rng(3), "_run")("integers", low, high, size, dtype,
                                                         endpoint)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    numpy.testing.assert_array_equal(got.get(), expected.get())
    with pytest.raises(ValueError, match="low >= high"):
        g.integers(5, 2)
    with pytest.raises(ValueError, match="out of bounds"):
        g.integers(0, 300, 2, numpy.uint8)


_SPECIAL_DTYPES = ["?", "i1", "i4", "i8", "u8", "f2", "f4", "f8", "c8"]


def _special_ufuncs():
    from gpushare.ufunc_loops import SPECIAL
    return sorted(SPECIAL)


@pytest.mark.parametrize("name", _special_ufuncs())
def test_special_ufuncs_pipeline_with_cupys_loops(cp, synchronous_calls, name):
    """``cupyx.scipy.special``'s ufuncs: CuPy's own loops (``ufunc_loops.SPECIAL``) say
    each call's result types, so it is queued; the server's arrays have exactly those
    types and layouts. Where no loop takes the operands, CuPy's TypeError comes at the
    call."""
    from gpushare.cupyx.scipy import special
    from gpushare.ufunc_loops import SPECIAL, Loops
    uf = getattr(special, name)
    loops = Loops(*SPECIAL[name])
    assert uf.__name__ == SPECIAL[name][0] and uf.types == loops.types
    assert (uf.nin, uf.nout) == (loops.nin, loops.nout)
    import scipy.special
    rng = numpy.random.default_rng(0)
    for dtype in _SPECIAL_DTYPES:
        hosts = [_host(rng, (3, 4), dtype).T for _ in range(uf.nin)]
        try:
            with numpy.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                getattr(scipy.special, name)(*hosts)
        except TypeError:  # (the CPU backend's SciPy lacks CuPy's loop: exprel's F->F)
            continue
        args = [cp.asarray(h) for h in hosts]
        cp.cuda.Device().synchronize()
        synchronous_calls.clear()
        try:
            out = uf(*args)
        except TypeError as exc:  # (no loop: raised by the server, at the call)
            assert str(exc) == (f"Wrong type ({(numpy.dtype(dtype),) * uf.nin}) of "
                                f"arguments for {SPECIAL[name][0]}")
            with pytest.raises(TypeError):
                loops.resolve_dtypes((numpy.dtype(dtype),) * uf.nin)
            continue
        assert synchronous_calls == [], (name, dtype)
        expected = loops.resolve_dtypes((numpy.dtype(dtype),) * uf.nin)[uf.nin:]
        for o, dt in zip(out if uf.nout > 1 else (out,), expected):
            assert o.dtype == dt and o.shape == (4, 3) and o.flags.c_contiguous
            _layout_matches_server(o)


@pytest.mark.parametrize("name, args, dtype", [
    # (CuPy 14.2.0's loops, read off its source: the first a call casts to safely)
    ("erf", ("f2",), "f8"),              # e->d
    ("erf", ("i4",), "f8"),              # no f loop takes int32 safely: d->d
    ("gamma", ("i4",), "f8"),            # l->d comes first
    ("gamma", ("c8",), "c8"),            # F->F
    ("boxcox", ("f2", "f2"), "f4"),      # ee->f
    ("xlogy", ("i4", "i4"), "f8"),       # ll->d
    ("xlogy", ("f4", 2.0), "f4"),        # a weak Python float
    ("xlogy", (2, "f4"), "f4"),          # a weak Python int
    ("xlogy", ("i4", 2.5), "f8"),        # a float beyond the arrays' kind: strong
    ("yn", (2, "f4"), "f8"),             # id->d (an int order)
    ("expit", ("f4",), "f4"),
    ("log1p", ("c8",), "c8"),
])
def test_special_ufuncs_give_cupys_types(cp, synchronous_calls, name, args, dtype):
    import scipy.special
    from gpushare.cupyx.scipy import special
    rng = numpy.random.default_rng(1)
    hosts = [_host(rng, (5,), a) if isinstance(a, str) else a for a in args]
    hosts = [numpy.abs(h) + 0.5 if isinstance(h, numpy.ndarray) and h.dtype.kind == "f" else h
             for h in hosts]
    operands = [cp.asarray(h) if isinstance(h, numpy.ndarray) else h for h in hosts]
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = getattr(special, name)(*operands)
    assert synchronous_calls == []
    assert out.dtype == numpy.dtype(dtype)
    _layout_matches_server(out)
    expected = getattr(scipy.special, name)(*hosts)
    numpy.testing.assert_allclose(out.get(), expected, rtol=2e-3)


def test_special_ufuncs_keep_cupys_errors_and_names(cp):
    from gpushare.cupyx.scipy import special
    with pytest.raises(TypeError, match=r"Wrong type \(\(dtype\('complex64'\),\)\) of "
                                        r"arguments for cupyx_scipy_special_erf"):
        special.erf(cp.ones(3, dtype=cp.complex64))
    with pytest.raises(TypeError):
        special.erf(cp.ones(3), cp.ones(3), cp.ones(3))  # (more than nin and nout)
    assert repr(special.expit) == "<ufunc 'cupy_expit'>"
    assert special.psi is special.digamma and special.sinc is cp.sinc
    x = cp.linspace(0.1, 0.9, 4, dtype=cp.float32)
    si, ci = special.sici(x)  # (two outputs: CuPy's f->ff)
    assert si.dtype == ci.dtype == numpy.float32
    _layout_matches_server(si)
    _layout_matches_server(ci)


@pytest.mark.parametrize("dtype", ["?", "i1", "i4", "f2", "f4", "c8"])
@pytest.mark.parametrize("name", ["sinc", "i0"])
def test_cupys_own_ufuncs_pipeline_with_their_loops(cp, synchronous_calls, name, dtype):
    """``cupy.sinc`` and ``cupy.i0`` (NumPy has no ufunc of theirs to infer from):
    CuPy's loops (``ufunc_loops.CUPY``: bool and int8 give float16)."""
    from gpushare.ufunc_loops import CUPY, Loops
    host = _host(numpy.random.default_rng(2), (3, 4), dtype)
    x = cp.asarray(host)
    if name == "i0" and dtype == "c8":  # (its complex kernel does not compile: at once)
        with pytest.raises(cp.cuda.compiler.CompileException):
            cp.i0(x)
        return
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = getattr(cp, name)(x.T)
    assert synchronous_calls == []
    assert out.dtype == Loops(*CUPY[name]).resolve_dtypes((x.dtype,))[1]
    _layout_matches_server(out)
    numpy.testing.assert_allclose(out.get(), getattr(numpy, name)(host.T), rtol=5e-3,
                                  atol=1e-3)


@pytest.mark.parametrize("call", [
    lambda sp, x: sp.softmax(x), lambda sp, x: sp.softmax(x, axis=1),
    lambda sp, x: sp.log_softmax(x, axis=0), lambda sp, x: sp.log_softmax(x, axis=(0, 1)),
    lambda sp, x: sp.logsumexp(x), lambda sp, x: sp.logsumexp(x, axis=1, keepdims=True),
    lambda sp, x: sp.logsumexp(x, axis=0, return_sign=True)[0],
    lambda sp, x: sp.logsumexp((x[:3] * 3).astype("int32"), axis=1)])
@pytest.mark.parametrize("dtype", ["f4", "f8"])
def test_softmax_and_logsumexp_run_cupys_code_pipelined(cp, synchronous_calls, call, dtype):
    import scipy.special
    from gpushare.cupyx.scipy import special
    host = numpy.random.default_rng(3).standard_normal((4, 5)).astype(dtype)
    host[1, 2] = -numpy.inf
    x = cp.asarray(host)
    call(special, x)  # (log_softmax's ReductionKernel: its first call waits, once)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = call(special, x)
    assert synchronous_calls == []
    _layout_matches_server(out)
    expected = call(scipy.special, host)
    assert out.shape == expected.shape
    numpy.testing.assert_allclose(out.get(), expected, rtol=1e-5, atol=1e-6)


def test_softmax_of_host_data_is_the_servers_call(cp):
    from gpushare.cupyx.scipy import special
    with pytest.raises(TypeError):  # (CuPy's cupy.exp refuses the NumPy array)
        special.softmax(numpy.ones(3))
    out = special.logsumexp(cp.ones(4), b=cp.asarray([1.0, 0.0, 1.0, 1.0]))
    assert float(out) == pytest.approx(1 + numpy.log(3))


@pytest.mark.parametrize("src, dtype", [
    ("[a, a]", None), ("[a, b]", None), ("(a, a, a)", "f4"), ("[a[0], a[1]]", None),
    ("[a.T, a.T]", None), ("[a, b]", "c8")])
@pytest.mark.parametrize("order, ndmin", [(None, 0), ("F", 0), ("C", 4)])
def test_array_of_device_arrays_pipelines_as_cupys_concatenate(cp, synchronous_calls, src,
                                                               dtype, order, ndmin):
    """``cupy.array([a, b])`` of device arrays of one shape: CuPy concatenates them and
    reshapes (``_array_from_nested_cupy_sequence``): the same steps, queued, the same
    layout and flags as the server's."""
    rng = numpy.random.default_rng(4)
    ha, hb = _host(rng, (3, 4), "f8"), _host(rng, (3, 4), "i4")
    a, b = cp.asarray(ha), cp.asarray(hb)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = cp.array(eval(src, {"a": a, "b": b}), dtype=dtype, order=order, ndmin=ndmin)
    same = cp.asarray(eval(src, {"a": a, "b": b}), dtype=dtype)
    assert synchronous_calls == []
    expected = numpy.array(eval(src, {"a": ha, "b": hb}), dtype=dtype, order=order or "K",
                           ndmin=ndmin)
    for got in (out, same):
        _layout_matches_server(got)
        assert got.dtype == expected.dtype
    assert out.shape == expected.shape
    numpy.testing.assert_array_equal(out.get(), expected)
    numpy.testing.assert_array_equal(same.get(), numpy.asarray(eval(src, {"a": ha, "b": hb}),
                                                               dtype=dtype))
    with pytest.raises(TypeError, match="Implicit conversion"):  # (shapes that differ:
        cp.array([a, a[0]])  # CuPy's NumPy conversion of the list, refused)


@pytest.mark.parametrize("name, call", [
    ("entropy", lambda st, p, q: st.entropy(p, axis=1)),
    ("entropy base", lambda st, p, q: st.entropy(p, q, base=2, axis=0)),
    ("boxcox_llf", lambda st, p, q: st.boxcox_llf(0.5, p)),
    ("boxcox_llf 0", lambda st, p, q: st.boxcox_llf(0, q)),
    ("zscore", lambda st, p, q: st.zscore(p, axis=1, ddof=1)),
    ("zmap", lambda st, p, q: st.zmap(p, q, axis=0)),
    ("trim_mean", lambda st, p, q: st.trim_mean(q, 0.2, axis=1))])
def test_scipy_stats_run_cupys_code_pipelined(cp, synchronous_calls, name, call):
    """``cupyx.scipy.stats``' functions are CuPy's Python: run here for device arrays,
    every step queued, the values SciPy's."""
    import scipy.stats
    from gpushare.cupyx.scipy import stats
    rng = numpy.random.default_rng(5)
    hp, hq = rng.uniform(0.1, 2.0, (6, 5)), rng.uniform(0.1, 2.0, (6, 5))
    p, q = cp.asarray(hp), cp.asarray(hq)
    call(stats, p.copy(), q.copy())  # (a kernel's first call waits, once a session)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = call(stats, p.copy(), q.copy())
    assert synchronous_calls == [], name
    _layout_matches_server(out)
    expected = call(scipy.stats, hp.copy(), hq.copy())
    numpy.testing.assert_allclose(out.get(), expected, rtol=1e-10, atol=1e-12)


def test_scipy_stats_of_host_data_is_the_servers_call(cp):
    from gpushare.cupyx.scipy import stats
    with pytest.raises(TypeError):  # (CuPy's: special.entr refuses the NumPy array)
        stats.entropy(numpy.ones(3))
    with pytest.raises(ValueError, match="nan_policy must be one of"):
        stats.zscore(cp.ones(3), nan_policy="nope")
    z = stats.zscore(cp.asarray([1.0, numpy.nan, 3.0]), nan_policy="omit")
    numpy.testing.assert_allclose(z.get(), [-1.0, numpy.nan, 1.0])


def test_a_transpose_of_an_unknown_layout_is_queued_and_asked_for_once(cp,
                                                                      synchronous_calls):
    """``Q.T`` of a decomposition's result (its layout the server's): a view queued with
    its shape; its layout is asked for when used, and is the server's."""
    host = numpy.random.default_rng(6).standard_normal((5, 3))
    q, r = cp.linalg.qr(cp.asarray(host))
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    qt = q.T
    y = qt @ cp.ones(5)
    assert qt.shape == (3, 5) and y.shape == (3,)
    assert [c for c in synchronous_calls if c[0] != "meta"] == []
    _layout_matches_server(qt)
    q_host, _ = numpy.linalg.qr(host)
    numpy.testing.assert_allclose(numpy.abs(qt.get()), numpy.abs(q_host.T), atol=1e-12)
    assert qt.base is not None  # (a view: its base the server's)


def test_default_rng_and_its_bit_generators_are_made_without_waiting(cp, synchronous_calls):
    """``default_rng(seed)``: the seed is read here (NumPy's ``SeedSequence``, as CuPy
    reads it), so making the ``XORWOW`` and its ``Generator`` is queued; the draws are
    those of the generators the server made at once."""
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    g = cp.random.default_rng(1234)
    h = cp.random.Generator(cp.random.MRG32k3a(7))
    x, y = g.random(4), h.standard_normal(3)
    assert synchronous_calls == []
    assert isinstance(g.bit_generator, cp.random.XORWOW)
    numpy.testing.assert_array_equal(
        x.get(), getattr(cp.random.default_rng(1234), "_run")("random", 4, "d", None).get())
    numpy.testing.assert_array_equal(
        y.get(), getattr(cp.random.Generator(cp.random.MRG32k3a(7)), "_run")(
            "standard_normal", 3, "d", None).get())
    with pytest.raises(TypeError):
        cp.random.default_rng("not a seed")  # (SeedSequence's words, at the call)
    with pytest.raises(TypeError, match="bit_generator must be"):
        cp.random.Generator(3)
    synchronous_calls.clear()
    rs = cp.random.RandomState(99)
    z = rs.standard_normal((2, 2))
    assert synchronous_calls == []
    numpy.testing.assert_array_equal(z.get(), cp.random.RandomState(99).standard_normal(
        (2, 2)).get())


@pytest.mark.parametrize("args, kwargs", [
    ((7, 2), {}), ((5, 3), {"deriv": 1, "delta": 0.5}), ((9, 2), {"mode": "mirror"}),
    ((4, 1), {"axis": 0, "mode": "nearest"}), ((7, 3), {"mode": "constant", "cval": 2.0}),
    ((3, 0), {"mode": "wrap"})])
@pytest.mark.parametrize("dtype", ["f4", "f8"])
def test_savgol_filter_pipelines(cp, synchronous_calls, args, kwargs, dtype):
    """``signal.savgol_filter`` of a float array: ``convolve1d`` into a new array of its
    shape and dtype; queued where CuPy's checks pass (a window longer than the axis, a
    polyorder not under the window, a bad mode still raise at the call)."""
    import scipy.signal
    from gpushare.cupyx.scipy import signal
    host = numpy.random.default_rng(8).standard_normal((6, 11)).astype(dtype)
    x = cp.asarray(host)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = signal.savgol_filter(x, *args, **kwargs)
    assert synchronous_calls == []
    _layout_matches_server(out)
    expected = scipy.signal.savgol_filter(host, *args, **kwargs)
    assert out.dtype == expected.dtype
    numpy.testing.assert_allclose(out.get(), expected, rtol=1e-4 if dtype == "f4" else 1e-9,
                                  atol=1e-4 if dtype == "f4" else 1e-10)
    for bad in ((12, 2), (5, 5)):
        with pytest.raises(ValueError):
            signal.savgol_filter(x, *bad)
    with pytest.raises(ValueError):
        signal.savgol_filter(x, 5, 2, mode="no-such-mode")


@pytest.mark.parametrize("name, kwargs", [
    ("medfilt", {}), ("medfilt", {"kernel_size": 5}), ("medfilt", {"kernel_size": (3, 1)}),
    ("medfilt", {"kernel_size": [1, 7]}), ("hilbert", {}), ("hilbert", {"N": 16}),
    ("hilbert", {"axis": 0}), ("hilbert", {"N": 3, "axis": -2})])
@pytest.mark.parametrize("dtype", ["f4", "f8"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_medfilt_and_hilbert_pipeline(cp, synchronous_calls, name, kwargs, dtype, order):
    """``signal.medfilt`` (``rank_filter``: a new array of the input's shape and dtype)
    and ``signal.hilbert`` (complex, of the input's precision, ``N`` long along ``axis``)
    of a float array: queued."""
    import scipy.signal
    from gpushare.cupyx.scipy import signal
    host = numpy.random.default_rng(9).standard_normal((6, 11)).astype(dtype)
    x = cp.asarray(numpy.asfortranarray(host) if order == "F" else host)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = getattr(signal, name)(x, **kwargs)
    assert synchronous_calls == []
    _layout_matches_server(out)
    expected = getattr(scipy.signal, name)(host, **kwargs)
    assert out.dtype == expected.dtype and out.shape == expected.shape
    numpy.testing.assert_allclose(out.get(), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtypes", [("f4", "f4", "f4"), ("f8", "f8", "f4"),
                                    ("f4", "f8", "f8")])
@pytest.mark.parametrize("axis", [-1, 0])
@pytest.mark.parametrize("order", ["C", "F"])
def test_lfilter_and_sosfilt_pipeline(cp, synchronous_calls, dtypes, axis, order):
    """``signal.lfilter`` (1-d coefficients) and ``signal.sosfilt`` of float device
    arrays, no ``zi``: queued, of ``x``'s shape and the promoted dtype."""
    import scipy.signal
    from gpushare.cupyx.scipy import signal
    x_dtype, coef_dtype, den_dtype = dtypes
    host = numpy.random.default_rng(10).standard_normal((5, 40)).astype(x_dtype)
    b, a = scipy.signal.butter(3, 0.2)
    b, a = b.astype(coef_dtype), a.astype(den_dtype)
    sos = scipy.signal.butter(4, 0.15, output="sos").astype(coef_dtype)
    x = cp.asarray(numpy.asfortranarray(host) if order == "F" else host)
    db, da, dsos = cp.asarray(b), cp.asarray(a), cp.asarray(sos)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    y = signal.lfilter(db, da, x, axis=axis)
    z = signal.sosfilt(dsos, x, axis)
    fir = signal.lfilter(db, da[:1], x, axis=axis)  # (no recurrence: the FIR part alone)
    assert synchronous_calls == []
    for got, want in ((y, scipy.signal.lfilter(b, a, host, axis=axis)),
                      (z, scipy.signal.sosfilt(sos, host, axis)),
                      (fir, scipy.signal.lfilter(b, a[:1], host, axis=axis))):
        _layout_matches_server(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        numpy.testing.assert_allclose(got.get(), want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("x_dtype, zi_dtype", [("f4", "f4"), ("f4", "f8"), ("f8", "f4")])
@pytest.mark.parametrize("axis", [-1, 0])
def test_lfilter_with_a_state_pipelines(cp, synchronous_calls, x_dtype, zi_dtype, axis):
    """``signal.lfilter`` with ``zi`` of ``x``'s shape but ``len(b) - 1 + len(a) - 1``
    along ``axis`` (CuPy's state: past inputs, then past outputs): queued, ``y`` and
    ``zf`` of the output's dtype; a block filtered in two halves, the state carried,
    is the whole block filtered."""
    from gpushare.cupyx.scipy import signal
    host = numpy.random.default_rng(11).standard_normal((3, 50)).astype(x_dtype)
    if axis == 0:
        host = numpy.ascontiguousarray(host.T)
    b = cp.asarray([0.2, 0.3, 0.1], "f4")
    a = cp.asarray([1.0, -0.5, 0.1], x_dtype)
    x = cp.asarray(host)
    state = [3, 3]
    state[axis] = 4
    zi = cp.zeros(tuple(state), zi_dtype)
    whole = signal.lfilter(b, a, x, axis=axis)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    first, second = (x[:30], x[30:]) if axis == 0 else (x[:, :30], x[:, 30:])
    y1, z1 = signal.lfilter(b, a, first, axis=axis, zi=zi)
    y2, z2 = signal.lfilter(b, a, second, axis=axis, zi=z1)
    assert synchronous_calls == []
    for got in (y1, z1, y2, z2):
        _layout_matches_server(got)
        assert got.dtype == numpy.dtype(x_dtype)
    assert z1.shape == z2.shape == tuple(state)
    numpy.testing.assert_allclose(cp.concatenate([y1, y2], axis).get(), whole.get(),
                                  rtol=1e-4, atol=1e-5)
    # the state: the last two inputs along the axis, then the last two outputs
    last_in = numpy.take(host, [-2, -1], axis)
    numpy.testing.assert_allclose(numpy.take(z2.get(), [0, 1], axis), last_in, rtol=1e-6)
    numpy.testing.assert_allclose(numpy.take(z2.get(), [2, 3], axis),
                                  numpy.take(whole.get(), [-2, -1], axis), rtol=1e-4,
                                  atol=1e-5)


@pytest.mark.parametrize("x_dtype, sos_dtype", [("f4", "f4"), ("f4", "f8"), ("f8", "f4")])
@pytest.mark.parametrize("axis", [-1, 0])
def test_sosfilt_with_a_state_pipelines(cp, synchronous_calls, x_dtype, sos_dtype, axis):
    """``signal.sosfilt`` with ``zi`` of shape ``(n_sections, ..., 4, ...)``: queued,
    ``y`` and ``zf`` of the promoted dtype; two halves with the state carried are the
    whole block filtered with the same first state (``sosfilt_zi``'s)."""
    import scipy.signal
    from gpushare.cupyx.scipy import signal
    host = numpy.random.default_rng(12).standard_normal((3, 50)).astype(x_dtype)
    if axis == 0:
        host = numpy.ascontiguousarray(host.T)
    sos = cp.asarray(scipy.signal.butter(4, 0.2, output="sos").astype(sos_dtype))
    x = cp.asarray(host)
    zi = signal.sosfilt_zi(sos)  # (n_sections, 4): for each of the 3 signals
    zi = cp.ascontiguousarray(cp.broadcast_to(zi[:, :, None] if axis == 0 else zi[:, None],
                                              (2, 4, 3) if axis == 0 else (2, 3, 4)))
    whole, _ = signal.sosfilt(sos, x, axis, zi)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    first, second = (x[:30], x[30:]) if axis == 0 else (x[:, :30], x[:, 30:])
    y1, z1 = signal.sosfilt(sos, first, axis, zi)
    y2, z2 = signal.sosfilt(sos, second, axis, zi=z1)
    assert synchronous_calls == []
    dtype = numpy.result_type(x_dtype, sos_dtype)
    for got in (y1, z1, y2, z2):
        _layout_matches_server(got)
        assert got.dtype == dtype
    assert z1.shape == z2.shape == zi.shape
    numpy.testing.assert_allclose(cp.concatenate([y1, y2], axis).get(), whole.get(),
                                  rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("window", ["hann", "hanning", "hamming", "blackman", "boxcar",
                                    "triang", "flattop", "bartlett", "nuttall", "lanczos"])
@pytest.mark.parametrize("n, fftbins", [(0, True), (1, True), (2, False), (16, True),
                                       (33, False)])
def test_get_window_pipelines(cp, synchronous_calls, window, n, fftbins):
    """``signal.get_window`` of a window without parameters: queued, ``n`` float64
    values, the server's own window (CuPy's names, ``hanning`` too)."""
    from gpushare.cupyx.scipy import signal
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    got = signal.get_window(window, n, fftbins)
    assert synchronous_calls == []
    _layout_matches_server(got)
    assert got.shape == (n,) and got.dtype == numpy.float64
    remote = signal.get_window.__closure__[0].cell_contents  # (the server's, waited for)
    numpy.testing.assert_array_equal(got.get(), remote(window, n, fftbins).get())


def test_get_window_keeps_cupys_errors(cp):
    from gpushare.cupyx.scipy import signal
    with pytest.raises(ValueError, match="needs one or more parameters"):
        signal.get_window("kaiser", 8)
    with pytest.raises(ValueError, match="Unknown window type"):
        signal.get_window("no-such-window", 8)
    assert signal.get_window(("kaiser", 4.0), 8).shape == (8,)
    assert signal.get_window(0.5, 8).shape == (8,)  # (a number: kaiser's beta)
    assert signal.get_window("hann", 0).shape == (0,)  # (CuPy's ones(0))


def test_medfilt_and_hilbert_keep_cupys_errors_at_the_call(cp):
    from gpushare.cupyx.scipy import signal
    x = cp.ones((4, 5), dtype=cp.float32)
    with pytest.raises(ValueError, match="should be odd"):
        signal.medfilt(x, 4)
    with pytest.warns(UserWarning, match="kernel_size exceeds volume extent"):
        signal.medfilt(x, 7)
    with pytest.raises(ValueError, match="x must be real"):
        signal.hilbert(x + 1j)
    with pytest.raises(ValueError, match="N must be positive"):
        signal.hilbert(x, 0)
    # CuPy's lfilter reads ``a[0]`` first, then negates ``a[1:]``: a Python number or list
    # as ``a`` (SciPy takes both) is CuPy's TypeError
    with pytest.raises(TypeError, match="not subscriptable"):
        signal.lfilter(x[0], 1.0, x)
    with pytest.raises(TypeError, match="bad operand type for unary -"):
        signal.lfilter(x[0], [1.0, 0.5], x)
    assert float(x.sum()) == 20.0


def test_packbits_keep_cupys_errors_at_the_call(cp):
    """CuPy's ``packbits``/``unpackbits`` check the dtype, then refuse ``axis``, then
    check ``bitorder`` (``_binary/packing.py``), where NumPy takes ``axis``."""
    with pytest.raises(TypeError, match="integer or boolean"):
        cp.packbits(cp.ones(3, cp.float32), bitorder="middle")
    with pytest.raises(NotImplementedError, match="axis option"):
        cp.packbits(cp.ones((2, 3), cp.int32), axis=0)
    with pytest.raises(ValueError, match="bitorder must be"):
        cp.packbits(cp.ones(3, cp.int32), bitorder="middle")
    with pytest.raises(TypeError, match="unsigned byte"):
        cp.unpackbits(cp.ones(3, cp.int8))
    with pytest.raises(NotImplementedError, match="axis option"):
        cp.unpackbits(cp.ones((2, 3), cp.uint8), axis=1)
    with pytest.raises(AttributeError, match="no attribute 'dtype'"):
        cp.packbits([1, 0, 1])
    with pytest.raises(TypeError, match="Unsupported type"):  # (its kernel's refusal)
        cp.packbits(numpy.ones(3, numpy.int32))
    assert cp.packbits(cp.zeros(0, cp.int32)).dtype == numpy.uint8


def test_nanmedian_waits_where_cupy_raises(cp, synchronous_calls):
    """An empty kept dimension is CuPy's reshape error; an axis outside the array is
    ignored by CuPy's rule (nothing reduced)."""
    with pytest.raises(ValueError, match="cannot reshape"):
        cp.nanmedian(cp.ones((0, 3), cp.float32), axis=1)
    x = cp.arange(6, dtype=cp.float32).reshape(2, 3)
    numpy.testing.assert_array_equal(cp.nanmedian(x, axis=5).get(), x.get())


@pytest.mark.parametrize("name, args, kwargs", [
    ("entropy", ("p",), {"axis": 1}), ("entropy", ("p", "q"), {"base": 2.0}),
    ("boxcox_llf", (0.5, "p"), {}), ("boxcox_llf", (0, "q"), {}),
    ("zscore", ("p",), {"axis": None}), ("zscore", ("n",), {"nan_policy": "omit"}),
    ("zmap", ("p", "q"), {"axis": 1, "ddof": 1}), ("trim_mean", ("q", 0.25), {"axis": None})])
def test_scipy_stats_on_the_server_are_the_clients_code(cp, name, args, kwargs):
    """The server's ``cupyx.scipy.stats`` (a call that does not run on the client) is
    the same code (``gpushare.scipy_stats``) on its own arrays: the same answers."""
    from gpushare.cupyx.scipy import stats
    rng = numpy.random.default_rng(9)
    hosts = {"p": rng.uniform(0.1, 2.0, (4, 6)), "q": rng.uniform(0.1, 2.0, (4, 6)),
             "n": numpy.where(rng.uniform(size=(4, 6)) > 0.8, numpy.nan, 1.0) *
             rng.uniform(0.1, 2.0, (4, 6))}
    operands = lambda: [cp.asarray(hosts[a]) if isinstance(a, str) else a for a in args]
    here = getattr(stats, name)(*operands(), **kwargs)
    assert isinstance(here, cp.ndarray)
    served = here._gs_session.call("call", f"cupyx.scipy.stats.{name}", tuple(operands()),
                                   kwargs)
    assert served.shape == here.shape and served.dtype == here.dtype
    numpy.testing.assert_allclose(served.get(), here.get(), rtol=1e-12, equal_nan=True)


def test_special_ufunc_into_an_output_keeps_cupys_loop_check(cp):
    from gpushare.cupyx.scipy import special
    out = cp.empty(3, dtype=cp.float32)
    assert special.erf(cp.ones(3, dtype=cp.float16), out=out) is out
    numpy.testing.assert_allclose(out.get(), [0.8427007] * 3, rtol=1e-6)
    with pytest.raises(TypeError, match="Wrong type"):
        special.erf(cp.ones(3, dtype=cp.complex64), out=cp.empty(3, dtype=cp.complex64))


@pytest.mark.parametrize("dtype", ["f4", "f8"])
def test_polygamma_runs_cupys_code_pipelined(cp, synchronous_calls, dtype):
    import scipy.special
    from gpushare.cupyx.scipy import special
    hx = numpy.linspace(0.5, 4.0, 8).astype(dtype)
    hn = numpy.array([0, 1, 2, 3] * 2)
    x, n = cp.asarray(hx), cp.asarray(hn)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = special.polygamma(n, x)
    assert synchronous_calls == []
    _layout_matches_server(out)
    numpy.testing.assert_allclose(out.get(), scipy.special.polygamma(hn, hx), rtol=1e-4)
    assert out.dtype == numpy.float64  # (CuPy's: (-1.0) ** (n + 1) of int64 n)


@pytest.mark.parametrize("call", [
    lambda xp, a, b: xp.ediff1d(a), lambda xp, a, b: xp.ediff1d(a[1]),
    lambda xp, a, b: xp.ediff1d(a, to_begin=b[0, :2], to_end=b[1]),
    lambda xp, a, b: xp.ediff1d(a[0], to_end=b[0, :1]),
    lambda xp, a, b: xp.trapezoid(a), lambda xp, a, b: xp.trapezoid(a, axis=0),
    lambda xp, a, b: xp.trapezoid(a, dx=0.5), lambda xp, a, b: xp.trapezoid(a, x=b[0]),
    lambda xp, a, b: xp.trapezoid(a, x=b, axis=0),
    lambda xp, a, b: (numpy.trapezoid if xp is numpy else xp.trapz)(a)])  # (NumPy 2.4: no trapz)
def test_ediff1d_and_trapezoid_run_cupys_code_pipelined(cp, synchronous_calls, call):
    rng = numpy.random.default_rng(10)
    ha, hb = rng.standard_normal((3, 4)), numpy.cumsum(rng.uniform(0.1, 1, (3, 4)), axis=1)
    a, b = cp.asarray(ha), cp.asarray(hb)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = call(cp, a, b)
    assert synchronous_calls == []
    _layout_matches_server(out)
    expected = call(numpy, ha, hb)
    numpy.testing.assert_allclose(out.get(), expected, rtol=1e-12)


def test_ediff1d_and_trapezoid_keep_cupys_errors(cp):
    with pytest.raises(TypeError, match="`arr` should be of type cupy.ndarray"):
        cp.ediff1d(numpy.ones(3))
    with pytest.raises(TypeError, match="`to_begin` should be of type"):
        cp.ediff1d(cp.ones(3), to_begin=[1.0])
    with pytest.raises(TypeError, match="same_kind"):
        cp.ediff1d(cp.ones(3, dtype=cp.int32), to_end=cp.ones(1))
    with pytest.raises(TypeError, match="`y` should be of type cupy.ndarray"):
        cp.trapezoid([1.0, 2.0])


@pytest.mark.parametrize("args, kwargs", [
    ((), {}), ((0.5,), {}), ((2.0, 0.5), {}), ((), {"axis": 1}), ((), {"axis": (1, 0)}),
    ((), {"edge_order": 2}), ((0.3,), {"axis": -1, "edge_order": 2})])
@pytest.mark.parametrize("dtype", ["f4", "f8", "i4"])
def test_gradient_runs_cupys_code_pipelined(cp, synchronous_calls, args, kwargs, dtype):
    host = _host(numpy.random.default_rng(12), (5, 6), dtype)
    f = cp.asarray(host)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = cp.gradient(f, *args, **kwargs)
    assert synchronous_calls == []
    expected = numpy.gradient(host, *args, **kwargs)
    outs, exps = (out, expected) if isinstance(out, list) else ([out], [expected])
    assert len(outs) == len(exps)
    for o, e in zip(outs, exps):
        _layout_matches_server(o)
        assert o.dtype == e.dtype
        numpy.testing.assert_allclose(o.get(), e, rtol=1e-5)


def test_gradient_of_spacings_and_its_errors_are_cupys(cp):
    host = numpy.random.default_rng(13).standard_normal((4, 5))
    xs = numpy.array([0.0, 0.5, 1.5, 1.7, 3.0])
    numpy.testing.assert_allclose(cp.gradient(cp.asarray(host), 1.0, cp.asarray(xs))[1].get(),
                                  numpy.gradient(host, 1.0, xs)[1])
    with pytest.raises(ValueError, match="greater than 2"):
        cp.gradient(cp.ones(4), edge_order=3)
    with pytest.raises(ValueError, match="too small"):
        cp.gradient(cp.ones(1))
    with pytest.raises(TypeError, match="invalid number of arguments"):
        cp.gradient(cp.ones(4), 1.0, 2.0)
    numpy.testing.assert_allclose(cp.gradient([1.0, 2.0, 4.0]).get(), [1.0, 1.5, 2.0])


def test_special_ufuncs_of_float_orders_do_not_warn(cp):
    """CuPy's loops take a float where SciPy's namesakes warn (``expn``, ``yn``,
    ``bdtr``...): CuPy's kernels never warn, and neither does the server."""
    import warnings as w
    from gpushare.cupyx.scipy import special
    x = cp.linspace(0.3, 3.7, 5)
    with w.catch_warnings():
        w.simplefilter("error")
        for name in ("expn", "yn", "pdtri"):
            getattr(special, name)(x, x).get()
        for name in ("bdtr", "nbdtr"):
            getattr(special, name)(x, x * 2, x / 4).get()


@pytest.mark.parametrize("conds, funcs", [
    (lambda x: [x < 0], [-1.0]), (lambda x: [x < 0, x > 1], [-1, 1]),
    (lambda x: [x < 0, x > 1], [-1.0, 1.0, 0.25]), (lambda x: (x > 0,), [2.5])])
def test_piecewise_runs_cupys_kernel_pipelined(cp, synchronous_calls, conds, funcs):
    """``cupy.piecewise``: CuPy's ``cupy_piecewise_kernel`` over ``zeros``/``full``; its
    first call in a session waits (the kernel is made and learns its layout), later
    ones queue."""
    host = numpy.random.default_rng(14).standard_normal((4, 5))
    x = cp.asarray(host)
    cp.piecewise(x, conds(x), funcs)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    out = cp.piecewise(x, conds(x), funcs)
    assert synchronous_calls == []
    _layout_matches_server(out)
    numpy.testing.assert_array_equal(out.get(), numpy.piecewise(host, conds(host), funcs))
    with pytest.raises(ValueError, match="either"):
        cp.piecewise(x, [x < 0], [1.0, 2.0, 3.0])
    with pytest.raises(NotImplementedError):
        cp.piecewise(x, [x < 0], [lambda v: v])
    with pytest.raises(ValueError, match="with 4 condition"):  # (CuPy's len(condlist) of
        cp.piecewise(x, x > 0, [2.0])                           # an array: NumPy wraps it)


def test_an_empty_elementwise_launch_packs_no_scalar(cp):
    """CuPy's ``ElementwiseKernel.__call__`` returns before its scalars are packed when
    the loop is empty (``_contains_zero(shape)``), so a value its type cannot hold
    raises only for a loop that runs."""
    k = cp.ElementwiseKernel("T x, T v", "T y", "y = x + v", "gs_add_scalar")
    empty = cp.zeros(0, dtype=cp.int8)
    assert k(empty, 1000).shape == (0,)
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        k(cp.zeros(2, dtype=cp.int8), 1000)


@pytest.mark.parametrize("dtype", ["f4", "f8", "i4", "i8", "u4", "u8", "f2"])
def test_scatter_add_pipelines_and_wraps_indices_as_cupy(cp, synchronous_calls, dtype):
    """``cupyx.scatter_add`` and ``cupy.add.at`` of one 1-d index array along the first
    axis, a number or an array of the array's dtype: queued (they return nothing); the
    indices wrap modulo the axis' length, as CuPy's atomic-add kernel takes them."""
    import gpushare.cupyx as cupyx
    a = cp.zeros((5, 3), dtype=dtype)
    idx = cp.asarray(numpy.array([0, 1, 1, 7, -1, -6], dtype=numpy.int64))
    v = cp.ones((6, 3), dtype=dtype)
    cp.cuda.Device().synchronize()
    synchronous_calls.clear()
    with pytest.warns(DeprecationWarning, match="`ndarray.scatter_add` is deprecated"):
        assert cupyx.scatter_add(a, idx, v) is None  # (CuPy's warning, at the call)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (and no other, later)
        cp.add.at(a, idx[:2], 2)
        cp.add.at(a, idx[2:3], v[0])  # (a row, broadcast)
        if a.dtype.kind == "f":
            cp.add.at(a, idx[:1], 0.5)
        assert synchronous_calls == []
        a.get()
    expected = numpy.zeros((5, 3), dtype=dtype)
    for i in (0, 1, 1, 7 % 5, -1 % 5, -6 % 5):
        expected[i] += 1
    expected[[0, 1]] += 2
    expected[1] += 1
    if a.dtype.kind == "f":
        expected[0] += 0.5
    numpy.testing.assert_array_equal(a.get(), expected)


def test_scatter_add_keeps_cupys_errors_at_the_call(cp):
    import gpushare.cupyx as cupyx
    a = cp.zeros(4, dtype=cp.float32)
    with pytest.raises(ValueError, match="not broadcastable"):
        cupyx.scatter_add(a, cp.array([0, 1]), cp.ones(3, dtype=cp.float32))
    with pytest.raises(TypeError, match="cupy.add.at only supports"):
        cupyx.scatter_add(cp.zeros(3, dtype=cp.int8), cp.array([0]), 1)
    assert float(a.sum()) == 0.0
