"""A two-layer perceptron trained with hand-written backprop (matmul, a numerically
stable softmax, cross-entropy, argmax accuracy, in-place SGD updates), the same steps
replayed on NumPy, and the mistakes users make on the way (a matmul shape mismatch, an
out-of-range axis, an in-place dtype clash) with the errors CuPy raises.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy


def make_data(xp, n=512, d=8, k=3):
    rs = numpy.random.RandomState(0)
    centers = rs.randn(k, d) * 3
    y = rs.randint(0, k, size=n)
    X = centers[y] + rs.randn(n, d)
    return xp.asarray(X, dtype=xp.float32), xp.asarray(y, dtype=xp.int64)


def init(xp, d=8, h=32, k=3):
    rs = numpy.random.RandomState(1)
    W1 = xp.asarray(rs.randn(d, h) * numpy.sqrt(2.0 / d), dtype=xp.float32)
    b1 = xp.zeros(h, dtype=xp.float32)
    W2 = xp.asarray(rs.randn(h, k) * numpy.sqrt(2.0 / h), dtype=xp.float32)
    b2 = xp.zeros(k, dtype=xp.float32)
    return [W1, b1, W2, b2]


def softmax(xp, z):
    z = z - z.max(axis=1, keepdims=True)
    e = xp.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def train(xp, X, y, params, epochs=30, lr=0.1):
    W1, b1, W2, b2 = params
    n = X.shape[0]
    onehot = xp.zeros((n, W2.shape[1]), dtype=xp.float32)
    onehot[xp.arange(n), y] = 1
    losses = []
    for _ in range(epochs):
        h = X @ W1 + b1
        a = xp.maximum(h, 0)
        p = softmax(xp, a @ W2 + b2)
        loss = -xp.log(p[xp.arange(n), y] + 1e-7).mean()
        losses.append(float(loss))
        g = (p - onehot) / n
        gW2 = a.T @ g
        gb2 = g.sum(axis=0)
        ga = g @ W2.T
        ga *= (h > 0)
        gW1 = X.T @ ga
        gb1 = ga.sum(axis=0)
        W1 -= lr * gW1
        b1 -= lr * gb1
        W2 -= lr * gW2
        b2 -= lr * gb2
    pred = xp.argmax(xp.maximum(X @ W1 + b1, 0) @ W2 + b2, axis=1)
    acc = float((pred == y).mean())
    return losses, acc, pred


X, y = make_data(cupy)
params = init(cupy)
ids = [id(p) for p in params]
losses, acc, pred = train(cupy, X, y, params)
assert [id(p) for p in params] == ids  # updated in place
Xn, yn = make_data(numpy)
pn = init(numpy)
losses_n, acc_n, pred_n = train(numpy, Xn, yn, pn)
# float32 sums in a different order: losses agree to a few ulps of the loss scale
numpy.testing.assert_allclose(losses, losses_n, rtol=1e-4, atol=1e-5)
for p, q in zip(params, pn):
    assert p.dtype == numpy.float32
    numpy.testing.assert_allclose(p.get(), q, rtol=1e-3, atol=1e-4)
assert losses[-1] < losses[0] and acc > 0.9 and abs(acc - acc_n) < 0.01
assert pred.dtype == numpy.int64 and (pred.get() == pred_n).mean() > 0.99

# the mistakes
W1 = params[0]
try:
    X @ W1.T  # (512, 8) @ (32, 8)
except ValueError as e:
    # cupy/_core/_routines_linalg.pyx: matmul of 2-d operands is dot's
    assert str(e) == "Axis dimension mismatch", str(e)
else:
    raise AssertionError("matmul shape mismatch not raised")
try:
    X.reshape(4, 128, 8) @ W1.T  # batched: matmul's own check
except ValueError as e:
    assert str(e) == "shapes (4,128,8) and (32,8) not aligned", str(e)
else:
    raise AssertionError("batched matmul shape mismatch not raised")
try:
    X.sum(axis=2)
except numpy.exceptions.AxisError as e:
    assert isinstance(e, cupy.exceptions.AxisError)
    assert str(e) == "axis 2 is out of bounds for array of dimension 2", str(e)
else:
    raise AssertionError("axis error not raised")
try:
    counts = cupy.zeros(3, dtype=cupy.int64)
    counts += cupy.array([0.5, 1.5, 2.5])
except TypeError as e:
    # cupy/_core/_dtype.pyx: _raise_if_invalid_cast, for the "output operand"
    assert str(e) == ("Cannot cast output operand from dtype('float64') to "
                      "dtype('int64') according to the rule 'same_kind'"), str(e)
else:
    raise AssertionError("in-place dtype clash not raised")
print("mlp OK")
