"""Tensor code: multi-head causal self-attention written with einsum (projections,
scores, a tril mask applied with where, a stable softmax, the weighted sum, the heads
merged back with moveaxis/reshape), layer normalisation, the same block again with
batched matmul, and a small convolution over a batch of images done three ways (padded
with cupy.pad, windows from sliding_window_view and from as_strided, contracted with
tensordot and einsum), each checked against NumPy; and the mistakes users make
(mismatched einsum labels, an output label never given, a window larger than the image,
an unsupported pad mode), with the errors CuPy raises.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
from cupy.lib.stride_tricks import as_strided, sliding_window_view


def params(xp, d=32, seed=5):
    rs = numpy.random.RandomState(seed)
    mk = lambda *s: xp.asarray(rs.randn(*s) / numpy.sqrt(s[0]), dtype=xp.float32)
    return mk(d, d), mk(d, d), mk(d, d), mk(d, d)


def layer_norm(xp, x, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / xp.sqrt(var + eps)


def attention_einsum(xp, x, Wq, Wk, Wv, Wo, heads=4):
    B, T, D = x.shape
    dh = D // heads
    q = xp.einsum("btd,de->bte", x, Wq).reshape(B, T, heads, dh)
    k = xp.einsum("btd,de->bte", x, Wk).reshape(B, T, heads, dh)
    v = xp.einsum("btd,de->bte", x, Wv).reshape(B, T, heads, dh)
    scores = xp.einsum("bqhd,bkhd->bhqk", q, k) / numpy.float32(numpy.sqrt(dh))
    causal = xp.tril(xp.ones((T, T), dtype=bool))
    scores = xp.where(causal, scores, xp.float32(-numpy.inf))
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = xp.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    ctx = xp.einsum("bhqk,bkhd->bqhd", w, v)
    out = ctx.reshape(B, T, D) @ Wo
    return layer_norm(xp, x + out), w


def attention_matmul(xp, x, Wq, Wk, Wv, Wo, heads=4):
    B, T, D = x.shape
    dh = D // heads
    split = lambda t: xp.moveaxis(t.reshape(B, T, heads, dh), 2, 1)  # (B, H, T, dh)
    q, k, v = split(x @ Wq), split(x @ Wk), split(x @ Wv)
    scores = q @ xp.swapaxes(k, -1, -2) / numpy.float32(numpy.sqrt(dh))
    mask = xp.triu(xp.ones((T, T), dtype=bool), k=1)
    scores[..., mask] = -numpy.inf
    m = scores.max(axis=-1, keepdims=True)
    w = xp.exp(scores - m)
    w = w / w.sum(axis=-1, keepdims=True)
    ctx = xp.moveaxis(w @ v, 1, 2).reshape(B, T, D)
    return layer_norm(xp, x + ctx @ Wo), w


rs = numpy.random.RandomState(0)
x_h = rs.randn(3, 16, 32).astype(numpy.float32)
x = cupy.asarray(x_h)
out, w = attention_einsum(cupy, x, *params(cupy))
out_h, w_h = attention_einsum(numpy, x_h, *params(numpy))
assert out.dtype == numpy.float32 and out.shape == (3, 16, 32) and w.shape == (3, 4, 16, 16)
# float32 contractions summed in another order: a few ulps of the unit-scale outputs
numpy.testing.assert_allclose(out.get(), out_h, rtol=1e-4, atol=1e-5)
numpy.testing.assert_allclose(w.get(), w_h, rtol=1e-4, atol=1e-6)
assert float(cupy.abs(cupy.triu(w, k=1)).max()) == 0.0  # nothing from the future
numpy.testing.assert_allclose(w.sum(axis=-1).get(), 1, rtol=1e-5)
out2, w2 = attention_matmul(cupy, x, *params(cupy))
numpy.testing.assert_allclose(out2.get(), out.get(), rtol=1e-4, atol=1e-5)
numpy.testing.assert_allclose(w2.get(), w.get(), rtol=1e-4, atol=1e-6)
# einsum extras: traces, an outer product, an implicit output, ellipsis
A = cupy.asarray(rs.randn(4, 5, 5))
assert numpy.allclose(cupy.einsum("bii->b", A).get(), numpy.einsum("bii->b", A.get()))
assert numpy.allclose(cupy.einsum("bii", A).get(), numpy.einsum("bii", A.get()))
assert numpy.allclose(cupy.einsum("i,j", A[0, 0], A[1, 1]).get(), numpy.outer(A.get()[0, 0], A.get()[1, 1]))
assert numpy.allclose(cupy.einsum("...ij,...jk->...ik", A, A).get(), A.get() @ A.get())
assert cupy.einsum("ij,jk->ik", A[0], A[1].astype(cupy.float32)).dtype == numpy.float64
gram = cupy.einsum("bij,bkj->bik", A, A, optimize=True)
numpy.testing.assert_allclose(gram.get(), numpy.einsum("bij,bkj->bik", A.get(), A.get()), rtol=1e-12)

# a 3x3 convolution over a batch of NHWC images, three ways
imgs_h = rs.rand(2, 12, 10, 3).astype(numpy.float32)
kern_h = rs.randn(3, 3, 3, 4).astype(numpy.float32)  # (kh, kw, cin, cout)
imgs, kern = cupy.asarray(imgs_h), cupy.asarray(kern_h)
nchw = cupy.moveaxis(imgs, -1, 1)
assert nchw.shape == (2, 3, 12, 10) and not nchw.flags.c_contiguous
padded = cupy.pad(imgs, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="reflect")
padded_h = numpy.pad(imgs_h, ((0, 0), (1, 1), (1, 1), (0, 0)), mode="reflect")
assert padded.shape == (2, 14, 12, 3)
numpy.testing.assert_array_equal(padded.get(), padded_h)
win = sliding_window_view(padded, (3, 3), axis=(1, 2))  # (2, 12, 10, 3, 3, 3)
assert win.shape == (2, 12, 10, 3, 3, 3)
conv1 = cupy.einsum("nhwcij,ijco->nhwo", win, kern)
win_h = numpy.lib.stride_tricks.sliding_window_view(padded_h, (3, 3), axis=(1, 2))
conv_h = numpy.einsum("nhwcij,ijco->nhwo", win_h, kern_h)
numpy.testing.assert_allclose(conv1.get(), conv_h, rtol=1e-4, atol=1e-5)
s = padded.strides
cols = as_strided(padded, shape=(2, 12, 10, 3, 3, 3), strides=(s[0], s[1], s[2], s[1], s[2], s[3]))
assert cols.strides == (s[0], s[1], s[2], s[1], s[2], s[3])
conv2 = cupy.tensordot(cols, kern, axes=([3, 4, 5], [0, 1, 2]))
numpy.testing.assert_allclose(conv2.get(), conv_h, rtol=1e-4, atol=1e-5)
conv3 = cupy.tensordot(cupy.ascontiguousarray(cols).reshape(240, 27), kern.reshape(27, 4), axes=1)
numpy.testing.assert_allclose(conv3.reshape(2, 12, 10, 4).get(), conv_h, rtol=1e-4, atol=1e-5)
for mode in ("edge", "wrap", "symmetric", "constant", "linear_ramp", "mean", "maximum"):
    numpy.testing.assert_allclose(cupy.pad(imgs[0, :, :, 0], 2, mode=mode).get(),
                                  numpy.pad(imgs_h[0, :, :, 0], 2, mode=mode), rtol=1e-6, err_msg=mode)
pooled = cupy.max(sliding_window_view(imgs, (2, 2), axis=(1, 2))[:, ::2, ::2], axis=(-2, -1))
assert pooled.shape == (2, 6, 5, 3)
numpy.testing.assert_array_equal(pooled.get(), imgs_h.reshape(2, 6, 2, 5, 2, 3).max(axis=(2, 4)))

# the mistakes
try:
    cupy.einsum("bij,bjk->bik", A, cupy.ones((4, 6, 2)))
except ValueError as e:
    # cupy/linalg/_einsum.py: einsum
    assert str(e) == "Size of label 'j' for operand 1 (6) does not match previous terms (5).", str(e)
else:
    raise AssertionError("mismatched einsum labels not refused")
try:
    cupy.einsum("ij->ik", A[0])
except ValueError as e:
    assert str(e) == ("einstein sum subscripts string included output subscript 'k' "
                      "which never appeared in an input"), str(e)
else:
    raise AssertionError("an unknown output label not refused")
try:
    sliding_window_view(imgs, (13, 3), axis=(1, 2))
except ValueError as e:
    # cupy/lib/stride_tricks.py: sliding_window_view
    assert str(e) == "window shape cannot be larger than input array shape", str(e)
else:
    raise AssertionError("a window larger than the image not refused")
try:
    cupy.pad(imgs, 1, mode="median")
except ValueError as e:
    # cupy/_padding/pad.py: pad ('median' is commented out of allowed_kwargs)
    assert str(e) == "mode 'median' is not supported", str(e)
else:
    raise AssertionError("pad mode 'median' taken")
print("attention OK")
