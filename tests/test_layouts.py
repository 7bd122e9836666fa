"""Every result's layout, as the client holds it, against the server's array: shape,
dtype, strides and the C/F/OWNDATA flags. A pipelined result's layout is the client's
prediction (``_infer.py``, ``_routines.py``), so on a CuPy server this checks the
predictions against real CuPy, and on the CPU backend it checks that the backend builds
CuPy's layouts (``test_pipelined_routines.py`` covers the pipelined routines one by one).
Found on a GPU: NumPy's ufuncs follow their inputs' order where CuPy's outputs are
always C-contiguous; CuPy's ``argsort`` along an inner axis, ``cumsum`` and whole-array
``argmax`` give views."""
from __future__ import annotations

import numpy
import pytest

EXPRESSIONS = """a+1|a*a|f+1|f*f|f+a|a[:, ::2]+1|a[:, ::2]*a[:, ::2]|-f|cp.exp(f)|cp.sqrt(a[:, ::2])
a.T+1|f.T*2|a>0|f>0|cp.maximum(f, 0)|a.astype(cp.float64)|f.astype(cp.float64)
a[:, ::2].astype(cp.float64)|f.copy()|a[:, ::2].copy()|a.copy(order='F')|cp.ascontiguousarray(f)
cp.asfortranarray(a)|a.reshape(4, 3)|f.reshape(4, 3)|f.ravel()|a[:, ::2].ravel()|a.T|a[1]|a[:, 1]
a[None]|a[..., None]|a[::-1]|f[1:]|c.real|c.imag|cp.abs(c)|a.sum()|a.sum(0)|a.sum(1)
a.sum(keepdims=True)|f.sum(0)|f.sum()|a[:, ::2].sum()|a.max()|f.max(1)|a.mean()|a.mean(0)|a.var()
a.std(1)|a.any()|b.all(0)|a.prod()|i.sum()|i.sum(0)|a.min(axis=(0, 1))|cp.sum(a, axis=0)|cp.nansum(a)
a.argmax(1)|f.argmax()|a[:, ::2].argmax()|cp.matmul(f, a.T)|a @ f.T|cp.zeros((3, 4), order='F')
cp.empty_like(f)|cp.zeros_like(a[:, ::2])|cp.ones_like(f)|cp.full_like(a, 2)|cp.arange(12).reshape(3, 4)
cp.dot(f, f.T)|cp.where(f > 0, f, 0)|cp.clip(f, 0, 1)|cp.concatenate([f, f])|f.T.copy()|f.flatten()
cp.transpose(f)|cp.expand_dims(f, 0)|f[:, None]|a.swapaxes(0, 1)|cp.sort(f)|cp.abs(a[:, ::2])|a ** 2
f ** 2|cp.add(a, 1, dtype=cp.float64)|t.sum(1)|t.sum((0, 2))|t.max(-1)|t.transpose(2, 0, 1)+1
t.transpose(2, 0, 1).sum(0)|t[:, 1:, ::2].sum(1)|t.cumsum(1)|cp.cumsum(t, 0)|t.argsort(0)|t.argmin()
i.argmax()|b.argmax()|b.T.argmax()|f.T.argmin()|cp.cumprod(i)|cp.cumsum(b, 1)|a.sum(dtype=cp.float64)
i.mean(1)|c.sum(0)|c.conj()|cp.linalg.norm(a, axis=1)|cp.linalg.inv(a[:3, :3])
cp.linalg.solve(a[:3, :3], v[:3])|cp.fft.fft(f)|cp.fft.rfft(a, axis=0)|cp.fft.fft2(a)
cp.fft.ifft(c, axis=0)|cp.fft.irfft(c)|cp.outer(v, v)|cp.tensordot(t, a, ([1, 2], [0, 1]))
cp.einsum('ij,kj->ik', a, f)|cp.tile(f, 2)|cp.repeat(f, 2, 0)|cp.flip(f, 0)|cp.roll(a, 1)
cp.stack([f, f])|cp.take(f, cp.arange(2), axis=1)|a[cp.arange(2)]|a[b]|f[1:, 2:]+f[:2, :2]|cp.triu(f)
cp.diag(f)|cp.linspace(0, 1, 7)|cp.eye(3, 4)|cp.unique(i)|cp.broadcast_to(v, (2, 5))|cp.nonzero(b)[0]
cp.round(a, 1)|cp.broadcast_to(a[:1], (2, 1, 4))|cp.broadcast_to(f[:, :1], (3, 5))
cp.broadcast_arrays(a[:1], t)[0]|cp.broadcast_arrays(t, v[:4])[0]|cp.roll(f, 1)|cp.roll(v, -2)
cp.roll(f, 2, 1)|cp.roll(t, (1, 2), (0, 2))|cp.roll(a, [1], axis=[0])|cp.roll(t[:, ::2], 1, 0)
cp.pad(f, 1)|cp.pad(a[:, ::2], (1, 2))|cp.pad(t, ((0, 1), (2, 0), (1, 1)), mode="edge")
cp.linalg.solve(a[:3, :3], a[:3, :2])|cp.linalg.inv(f[:3, :3])|cp.linalg.solve(f[:3, :3], f[:, :1])
cp.fft.fftn(t)|cp.fft.rfft2(a)|cp.fft.irfftn(c)|cp.fft.ifft2(t, norm="ortho")|cp.fft.fftn(f)
f[1]|i[1]|a[1:, ::2]|f[1:, ::2]|i[1:, ::2]|a[True]|a[1, None]|f[..., -1]|t[1, ..., None]|t[:, 1:, ::2]
""".strip().replace("\n", "|").split("|")


@pytest.fixture(scope="module")
def arrays(server):
    from gpushare import client
    import os
    old = os.environ.get("GPUSHARE_SERVER")
    os.environ["GPUSHARE_SERVER"] = server.address
    client.reset_session()
    import gpushare.cupy as cp
    rng = numpy.random.default_rng(0)
    hosts = {
        "a": rng.random((3, 4), dtype=numpy.float32),
        "f": numpy.asfortranarray(rng.random((3, 4), dtype=numpy.float32)),
        "v": rng.random(5),
        "i": rng.integers(-5, 5, (3, 4)).astype(numpy.int16),
        "b": rng.integers(0, 2, (3, 4)).astype(bool),
        "c": (rng.random((3, 4)) + 1j * rng.random((3, 4))).astype(numpy.complex64),
        "t": rng.random((2, 3, 4)),
    }
    yield cp, {k: cp.asarray(h) for k, h in hosts.items()}
    client.reset_session()
    if old is None:
        os.environ.pop("GPUSHARE_SERVER", None)
    else:
        os.environ["GPUSHARE_SERVER"] = old


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_layout_is_the_servers(arrays, expr):
    from gpushare.cupy._ndarray import FLAG_C, FLAG_F, FLAG_OWN
    cp, names = arrays
    x = eval(expr, {"cp": cp, **names})  # noqa: S307 - the expressions above
    shape, dtype, strides, flags, _ = x._gs_session.call("meta", None, (x,))
    mask = FLAG_C | FLAG_F | FLAG_OWN
    assert [tuple(x.shape), x.dtype, tuple(x.strides), (x._flags or 0) & mask] == \
        [tuple(shape), numpy.dtype(dtype), tuple(strides), flags & mask]


def test_broadcast_strides_are_cupys():
    """CuPy's ``broadcast_to`` (``_routines_manipulation.pyx``) keeps the stride of an
    axis whose length is kept, a length-1 one too; NumPy gives such an axis 0."""
    from gpushare.layouts import broadcast_strides
    assert broadcast_strides((1, 3), (12, 4), (2, 1, 3)) == (0, 12, 4)
    assert broadcast_strides((3, 1), (4, 12), (3, 5)) == (4, 0)
    assert broadcast_strides((1,), (8,), (1,)) == (8,)
    assert broadcast_strides((), (), (2, 2)) == (0, 0)
    for shape, out in (((2, 3), (3,)), ((2,), (3,)), ((2, 1), (3, 4))):
        with pytest.raises(ValueError):
            broadcast_strides(shape, (8,) * len(shape), out)


def test_getitem_cache_keys_are_exact():
    """``_infer.getitem_result`` caches basic keys only, and tells apart what a dict
    would not (``True`` is ``1`` there, not to NumPy)."""
    from gpushare.cupy._infer import _basic_key
    assert _basic_key(1) == (1,) and _basic_key(True) is None
    assert _basic_key(numpy.int64(1)) is None and _basic_key(slice(1.0, 2)) is None
    assert _basic_key((slice(1, None), None, Ellipsis)) == ((1, None, None), None, Ellipsis)
    assert _basic_key([1, 2]) is None and _basic_key((1, [2])) is None
