"""A differential fuzz of the client's metadata inference against the server's truth.

The client pipelines most calls: it infers each result's shape, dtype (its exact char:
``numpy.longlong`` 'q' is not int64 'l' to CuPy), strides and flags itself. A wrong
inference is a silent wrong answer. Here generated short programs (arrays of every
dtype CuPy has, 0-3 dims with size-0/1 axes, C/F order, strided/negative/transposed
views; ufuncs and operators with arrays and scalars, in-place operators, reductions,
layout routines, indexing...) run each step twice on one server:

* pipelined, as a program runs it (the thing under test), and
* as a plain synchronous call the server makes itself (``Session.call``: CuPy's answer,
  no inference involved).

Each result's inferred layout must be what the server holds for it (``meta``) and what
the synchronous call gave; its values must be the synchronous call's; an error must be
raised by both, of one type; where NumPy's values are CuPy's (layout routines,
indexing, joins, sort, take, a few exact ufuncs) they must be NumPy's too. Explicit
regression tests for what the fuzz found are at the end.

Knobs: ``FUZZ_EXAMPLES`` (programs, 2500 by default: about 20 s), ``FUZZ_RANDOM=1``
(not derandomized: ``--hypothesis-seed=N`` explores other programs), ``FUZZ_COLLECT=
file`` (every mismatch written there, none raised: a survey).
"""
from __future__ import annotations

import operator
import os
import warnings

import numpy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.timeout(300)

DTYPES = [numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64, numpy.uint8,
          numpy.uint16, numpy.uint32, numpy.uint64, numpy.longlong, numpy.ulonglong,
          numpy.float16, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128]

FUZZ = settings(derandomize=not os.environ.get("FUZZ_RANDOM"), deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow, HealthCheck.data_too_large])


def _host(rng, shape, dtype):
    dt = numpy.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dt.kind == "u":
        return rng.integers(0, 6, shape).astype(dtype)
    if dt.kind == "i":
        return rng.integers(-4, 6, shape).astype(dtype)
    v = rng.integers(-6, 7, shape) / 2
    if dt.kind == "c":
        v = v + 1j * (rng.integers(-6, 7, shape) / 2)
    return v.astype(dtype)


def _meta(x):
    shape, dtype, strides, flags, _ = x._gs_session.call("meta", None, (x,))
    return tuple(shape), numpy.dtype(dtype), tuple(strides), flags


def _layout(x):
    """What the client says of ``x`` (inferred, or asked when it could not infer)."""
    from gpushare.cupy._ndarray import FLAG_C, FLAG_F, FLAG_OWN
    f = x.flags
    assert bool(x._flags & FLAG_C) == f.c_contiguous
    mask = FLAG_C | FLAG_F | FLAG_OWN
    return (tuple(x.shape), x.dtype, x.dtype.char, tuple(x.strides), x._flags & mask)


def _server_layout(x):
    from gpushare.cupy._ndarray import FLAG_C, FLAG_F, FLAG_OWN
    shape, dtype, strides, flags = _meta(x)
    return (shape, dtype, dtype.char, strides, flags & (FLAG_C | FLAG_F | FLAG_OWN))


def _arrays(result):
    from gpushare.cupy._ndarray import ndarray
    if isinstance(result, ndarray):
        return [result]
    if isinstance(result, (list, tuple)):
        return [r for r in result if isinstance(r, ndarray)]
    return []


def _values(result):
    arrays = _arrays(result)
    if arrays:
        return [a.get() for a in arrays]
    return [result]


def _same_values(got, want, what):
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        if isinstance(w, numpy.ndarray):
            assert g.dtype == w.dtype and g.shape == w.shape, what
            numpy.testing.assert_array_equal(g, w, err_msg=what)
        else:
            assert type(g) is type(w) and (g == w or g != g and w != w), what


def _outcome(fn):
    """``(result, None)`` or ``(None, exception type)``: a pipelined call's error may
    surface at the next wait (the synchronize here)."""
    from gpushare import cupy as cp
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn()
            cp.cuda.Device().synchronize()
        return result, None
    except Exception as e:  # noqa: BLE001
        return None, type(e)


_COLLECT = os.environ.get("FUZZ_COLLECT")  # (a file: mismatches written there, no raise)


def check_step(cp, what, pipelined, truth, numpy_fn=None, inputs=()):
    """Run one step both ways and compare everything; return the pipelined result."""
    if not _COLLECT:
        return _check_step(cp, what, pipelined, truth, numpy_fn, inputs)
    try:
        return _check_step(cp, what, pipelined, truth, numpy_fn, inputs)
    except AssertionError as e:
        with open(_COLLECT, "a") as f:
            f.write(str(e).splitlines()[0][:400] + "\n")
        return None


def _check_step(cp, what, pipelined, truth, numpy_fn=None, inputs=()):
    got, got_error = _outcome(pipelined)
    want, want_error = _outcome(truth)
    if _COLLECT:
        with open(_COLLECT + ".stats", "a") as f:
            f.write(f"{what.split('(')[0].split('[')[0][:20]} "
                    f"{want_error.__name__ if want_error else 'ok'}\n")
    assert got_error == want_error, f"{what}: pipelined {got_error}, server {want_error}"
    if got_error is not None:
        return None
    g_arrays, w_arrays = _arrays(got), _arrays(want)
    assert len(g_arrays) == len(w_arrays), what
    for g, w in zip(g_arrays, w_arrays):
        inferred = _layout(g)
        assert inferred == _server_layout(g), f"{what}: inferred {inferred} but the " \
            f"server holds {_server_layout(g)}"
        assert inferred == _server_layout(w), f"{what}: inferred {inferred} but CuPy " \
            f"gives {_server_layout(w)}"
    values = _values(got)
    _same_values(values, _values(want), what)
    if numpy_fn is not None:
        hosts = [a.get() if isinstance(a, cp.ndarray) else a for a in inputs]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = numpy_fn(*hosts)
        except Exception:  # noqa: BLE001 - NumPy refuses what CuPy takes: not compared
            return got
        for g, e in zip(values, expected if isinstance(expected, list) else [expected]):
            numpy.testing.assert_array_equal(g, e, err_msg=what)
    return got


# --- the program generator ----------------------------------------------------------

def _slice(draw, n):
    kind = draw(st.sampled_from(["all", "step", "neg", "range", "empty"]))
    if kind == "all":
        return slice(None)
    if kind == "step":
        return slice(None, None, draw(st.integers(2, 3)))
    if kind == "neg":
        return slice(None, None, -draw(st.integers(1, 2)))
    if kind == "empty":
        return slice(1, 1)
    lo = draw(st.integers(-n - 1, n + 1))
    hi = draw(st.integers(-n - 1, n + 1))
    return slice(lo, hi, draw(st.sampled_from([None, 1, 2, -1])))


def _basic_key(draw, shape):
    key = []
    for n in shape:
        k = draw(st.sampled_from(["slice", "slice", "int", "none"]))
        if k == "int" and n > 0:
            key.append(draw(st.integers(-n, n - 1)))
        elif k == "none":
            key.extend([None, _slice(draw, n)])
        else:
            key.append(_slice(draw, n))
    if key and draw(st.booleans()):  # an ellipsis for a run of full slices
        i = draw(st.integers(0, len(key)))
        key = key[:i] + [Ellipsis]
    return tuple(key)


BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "power",
          "maximum", "minimum", "logical_and", "bitwise_or", "right_shift", "arctan2",
          "hypot", "fmod", "remainder", "equal", "less", "greater_equal", "not_equal",
          "copysign", "ldexp", "fmax", "logaddexp", "gcd"]
UNARY = ["negative", "absolute", "sqrt", "exp", "sin", "floor", "ceil", "rint",
         "logical_not", "invert", "sign", "square", "isnan", "isfinite", "signbit",
         "real", "imag", "conj", "positive", "reciprocal", "log1p", "angle"]
OPERATORS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_",
             "xor", "lshift", "rshift", "lt", "le", "eq", "ne", "gt", "ge", "matmul"]
#: binary ufuncs whose values NumPy computes as CuPy does (arrays of small values)
EXACT_BINARY = frozenset(("add", "subtract", "multiply", "maximum", "minimum", "equal",
                          "less", "greater_equal", "not_equal", "logical_and", "fmax"))
OPERATOR_UFUNCS = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "and_": "bitwise_and",
    "or_": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift",
    "rshift": "right_shift", "lt": "less", "le": "less_equal", "eq": "equal",
    "ne": "not_equal", "gt": "greater", "ge": "greater_equal", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or"}
REDUCTIONS = ["sum", "prod", "max", "min", "mean", "var", "argmax", "argmin", "any",
              "all", "std", "nansum"]


def _call(cp, name, *args, **kw):
    s = _session()
    return (lambda: _attr(cp, name)(*args, **kw),
            lambda: s.call("call", f"cupy.{name}", args, kw))


def _method(cp, x, name, *args, **kw):
    s = x._gs_session
    return (lambda: getattr(x, name)(*args, **kw),
            lambda: s.call("method", name, (x, *args), kw))


def _attr(cp, name):
    obj = cp
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _session():
    from gpushare import client
    return client.get_session()


@st.composite
def programs(draw):
    """A program: a list of steps, each ``(kind, params)``; arrays are named by their
    index in the pool the program builds (``run_program``)."""
    n_start = draw(st.integers(1, 2))
    starts = []
    for _ in range(n_start):
        ndim = draw(st.integers(0, 3))
        shape = tuple(draw(st.sampled_from([0, 1, 1, 2, 3, 4])) for _ in range(ndim))
        dtype = draw(st.sampled_from(DTYPES))
        order = draw(st.sampled_from("CF"))
        view = draw(st.sampled_from([None, None, "key", "T"]))
        key = _basic_key(draw, shape) if view == "key" else None
        starts.append((shape, dtype, order, view, key))
    steps = []
    for _ in range(draw(st.integers(2, 6))):
        kind = draw(st.sampled_from(
            ["binary", "binary", "operator", "operator", "scalar", "scalar", "inplace",
             "unary", "reduce", "reduce", "astype", "copy", "reshape", "ravel", "axes",
             "squeeze", "broadcast", "join", "where", "clip", "matmul", "cumsum",
             "sort", "take", "getitem", "getitem", "advanced", "mask"]))
        steps.append((kind, draw(st.randoms(use_true_random=False))))
    return starts, steps


def _pick(rnd, pool):
    return pool[rnd.randrange(len(pool))]


def _axis(rnd, ndim, allow_tuple=True):
    choices = [None]
    if ndim:
        choices += [rnd.randrange(ndim), -1 - rnd.randrange(ndim)]
        if allow_tuple:
            choices.append(tuple(sorted(rnd.sample(range(ndim), rnd.randint(1, ndim)))))
            choices.append(())
    return rnd.choice(choices)


def _rnd_key(rnd, shape):
    """``_basic_key`` with a ``random.Random``."""
    key = []
    for n in shape:
        k = rnd.choice(["slice", "slice", "int", "none"])
        if k == "int" and n > 0:
            key.append(rnd.randint(-n, n - 1))
        else:
            if k == "none":
                key.append(None)
            step = rnd.choice([None, 2, -1, -2])
            key.append(slice(rnd.choice([None, 1, -1]), rnd.choice([None, -1, n]), step))
    if key and rnd.random() < 0.3:
        key = key[:rnd.randint(0, len(key))] + [Ellipsis]
    return tuple(key)


def make_start(cp, rng, shape, dtype, order, view, key):
    host = numpy.asarray(_host(rng, shape, dtype), order=order)
    x = cp.array(host, order=order)
    s = x._gs_session
    assert _layout(x) == _server_layout(x), f"cupy.array({shape}, {order})"
    if view == "key":
        x = check_step(cp, f"start {shape} {numpy.dtype(dtype).char} {order}[{key}]",
                       lambda: x[key], lambda: s.call("getitem", None, (x, key)),
                       lambda h: h[key], (x,))
    elif view == "T":
        x = check_step(cp, "start .T", *_method(cp, x, "transpose"),
                       lambda h: h.T, (x,))
    return x


def step(cp, rng, pool, kind, rnd):
    """One step of ``kind``: run, checked; its array results join the pool."""
    x = _pick(rnd, pool)
    y = _pick(rnd, pool)
    s = x._gs_session
    nd = x.ndim
    np_fn = None
    inputs = ()
    if kind == "binary":
        name = rnd.choice(BINARY)
        other = rnd.choice([y, y, rnd.choice([1, 2.5, True, 300, 1j, numpy.float32(2)])])
        args = (x, other) if rnd.random() < 0.7 else (other, x)
        kw = {}
        if rnd.random() < 0.15:
            kw["dtype"] = rnd.choice([numpy.float64, numpy.float32, numpy.int64])
        what = f"cupy.{name}{tuple(_desc(a) for a in args)} {kw}"
        fns = _call(cp, name, *args, **kw)
        if name in EXACT_BINARY and not kw and other is y:  # (NumPy's values are CuPy's)
            np_fn, inputs = getattr(numpy, name), args
    elif kind in ("operator", "scalar"):
        # (CuPy's operators are its ufuncs: ``x + y`` is ``cupy.add(x, y)``, and
        # ``1 + x`` (``x.__radd__``) ``cupy.add(1, x)``)
        name = rnd.choice(OPERATORS)
        other = y if kind == "operator" else _draw_scalar(rnd)
        args = (x, other) if rnd.random() < 0.7 else (other, x)
        op = getattr(operator, name)
        what = f"{_desc(args[0])} {name} {_desc(args[1])}"
        fns = (lambda: op(*args),
               lambda: s.call("call", f"cupy.{OPERATOR_UFUNCS[name]}", args, {}))
    elif kind == "inplace":
        name = rnd.choice(["iadd", "isub", "imul", "itruediv", "ifloordiv", "iand",
                           "ior", "ipow", "imod"])
        other = y if rnd.random() < 0.5 else _draw_scalar(rnd)
        what = f"{_desc(x)}.copy() {name} {_desc(other)}"

        def pipelined():
            z = x.copy()
            out = getattr(operator, name)(z, other)
            assert out is z
            return z

        def truth():  # (``z += y``: ``cupy.add(z, y, out=z)``)
            z = s.call("method", "copy", (x,), {})
            s.call("call", f"cupy.{OPERATOR_UFUNCS[name[1:]]}", (z, other), {"out": z})
            return z
        fns = (pipelined, truth)
    elif kind == "unary":
        name = rnd.choice(UNARY)
        what = f"cupy.{name}({_desc(x)})"
        fns = _call(cp, name, x)
    elif kind == "reduce":
        name = rnd.choice(REDUCTIONS)
        kw = {"axis": _axis(rnd, nd, name not in ("argmax", "argmin")),
              "keepdims": rnd.random() < 0.3}
        if kw["keepdims"] is False and rnd.random() < 0.5:
            del kw["keepdims"]
        if name in ("sum", "prod", "mean", "var", "nansum") and rnd.random() < 0.3:
            kw["dtype"] = rnd.choice([numpy.float64, numpy.int32, numpy.complex64,
                                      numpy.longlong, numpy.uint8])
        what = f"cupy.{name}({_desc(x)}, {kw})"
        if rnd.random() < 0.5:
            fns = _call(cp, name, x, **kw)
        else:
            fns = _method(cp, x, name, **kw) if hasattr(x, name) else \
                _call(cp, name, x, **kw)
    elif kind == "astype":
        dt = rnd.choice(DTYPES)
        kw = {}
        if rnd.random() < 0.5:
            kw["order"] = rnd.choice("CFAK")
        if rnd.random() < 0.4:
            kw["copy"] = rnd.random() < 0.5
        what = f"{_desc(x)}.astype({numpy.dtype(dt).char}, {kw})"
        fns = _method(cp, x, "astype", dt, **kw)
    elif kind == "copy":
        kw = {"order": rnd.choice("CFAK")} if rnd.random() < 0.7 else {}
        if rnd.random() < 0.5:
            what = f"{_desc(x)}.copy({kw})"
            fns = _method(cp, x, "copy", **kw)
        else:
            what = f"cupy.copy({_desc(x)}, {kw})"
            fns = _call(cp, "copy", x, **kw)
        np_fn, inputs = (lambda h: h.copy()), (x,)
    elif kind == "reshape":
        size = x.size
        shapes = [(-1,), (size,), (1, -1), (-1, 1)]
        for d in (2, 3):
            if size and size % d == 0:
                shapes += [(d, -1), (-1, d), (d, 1, -1)]
        if size == 0:
            shapes += [(0, 3), (2, 0, -1)]
        shp = rnd.choice(shapes)
        kw = {"order": rnd.choice("CFA")} if rnd.random() < 0.4 else {}
        what = f"{_desc(x)}.reshape({shp}, {kw})"
        fns = _method(cp, x, "reshape", shp, **kw) if rnd.random() < 0.6 else \
            _call(cp, "reshape", x, shp, **kw)
        if kw.get("order", "C") not in "AK":  # (the host copy's layout is not x's)
            np_fn, inputs = (lambda h: h.reshape(shp, **kw)), (x,)
    elif kind == "ravel":
        name = rnd.choice(["ravel", "flatten"])
        kw = {"order": rnd.choice("CFAK")} if rnd.random() < 0.5 else {}
        what = f"{_desc(x)}.{name}({kw})"
        fns = _method(cp, x, name, **kw) if rnd.random() < 0.6 or name == "flatten" \
            else _call(cp, "ravel", x, **kw)
        if kw.get("order", "C") not in "AK":
            np_fn, inputs = (lambda h: getattr(h, name)(**kw)), (x,)
    elif kind == "axes":
        choice = rnd.choice(["transpose", "perm", "swapaxes", "moveaxis"])
        if choice == "transpose" or nd == 0:
            what, fns = f"{_desc(x)}.transpose()", _method(cp, x, "transpose")
            np_fn = lambda h: h.transpose()  # noqa: E731
        elif choice == "perm":
            perm = tuple(rnd.sample(range(nd), nd))
            what, fns = f"{_desc(x)}.transpose{perm}", _method(cp, x, "transpose", *perm)
            np_fn = lambda h: h.transpose(*perm)  # noqa: E731
        elif choice == "swapaxes":
            a1, a2 = rnd.randrange(-nd, nd), rnd.randrange(-nd, nd)
            what, fns = f"{_desc(x)}.swapaxes({a1}, {a2})", \
                _method(cp, x, "swapaxes", a1, a2)
            np_fn = lambda h: h.swapaxes(a1, a2)  # noqa: E731
        else:
            a1, a2 = rnd.randrange(-nd, nd), rnd.randrange(-nd, nd)
            what, fns = f"moveaxis({_desc(x)}, {a1}, {a2})", \
                _call(cp, "moveaxis", x, a1, a2)
            np_fn = lambda h: numpy.moveaxis(h, a1, a2)  # noqa: E731
        inputs = (x,)
    elif kind == "squeeze":
        if rnd.random() < 0.5:
            axis = _axis(rnd, nd) if rnd.random() < 0.5 else None
            what = f"{_desc(x)}.squeeze({axis})"
            fns = _method(cp, x, "squeeze", axis) if axis is not None else \
                _method(cp, x, "squeeze")
        else:
            axis = rnd.choice([0, -1, nd, (0, 1), -nd - 1])
            what = f"expand_dims({_desc(x)}, {axis})"
            fns = _call(cp, "expand_dims", x, axis)
    elif kind == "broadcast":
        target = rnd.choice([(2,) + x.shape, (3, 1) + x.shape,
                             tuple(max(n, 2) if n == 1 else n for n in x.shape),
                             x.shape[1:] + (2,)])
        what = f"broadcast_to({_desc(x)}, {target})"
        fns = _call(cp, "broadcast_to", x, target)
    elif kind == "join":
        name = rnd.choice(["concatenate", "stack", "vstack", "hstack"])
        axis = rnd.choice([0, -1, 1, None]) if name in ("concatenate", "stack") else None
        parts = [x, rnd.choice([x, y])]
        kw = {} if axis is None and name != "concatenate" else {"axis": axis}
        what = f"{name}([{_desc(parts[0])}, {_desc(parts[1])}], {kw})"
        fns = _call(cp, name, parts, **kw)
        np_fn, inputs = (lambda p, q: getattr(numpy, name)([p, q], **kw)), parts
    elif kind == "where":
        cond = rnd.choice([x > 0, y.astype(bool), True])
        what = f"where({_desc(cond)}, {_desc(x)}, {_desc(y)})"
        fns = _call(cp, "where", cond, x, rnd.choice([y, 0, 1.5]))
    elif kind == "clip":
        lo, hi = rnd.choice([(0, 3), (-1.5, 2.5), (None, 2), (y, None), (1, y)])
        what = f"clip({_desc(x)}, {_desc(lo)}, {_desc(hi)})"
        fns = _call(cp, "clip", x, lo, hi) if rnd.random() < 0.5 else \
            _method(cp, x, "clip", lo, hi)
    elif kind == "matmul":
        k = x.shape[-1] if nd else 1
        other = cp.asarray(_host(rng, rnd.choice([(k,), (k, 2), (3, k, 1), (2,)]),
                                 rnd.choice(DTYPES)))
        name = rnd.choice(["matmul", "dot", "inner", "vdot"])
        what = f"{name}({_desc(x)}, {_desc(other)})"
        fns = _call(cp, name, x, other)
    elif kind == "cumsum":
        name = rnd.choice(["cumsum", "cumprod", "diff"])
        axis = rnd.choice([None, 0, -1]) if name != "diff" else rnd.choice([0, -1])
        what = f"{name}({_desc(x)}, axis={axis})"
        fns = _call(cp, name, x, axis=axis)
    elif kind == "sort":
        name = rnd.choice(["sort", "argsort"])
        axis = rnd.choice([-1, 0, None])
        what = f"{name}({_desc(x)}, axis={axis})"
        fns = _call(cp, name, x, axis=axis)
        if name == "sort":
            np_fn, inputs = (lambda h: numpy.sort(h, axis=axis)), (x,)
    elif kind == "take":
        n = x.size if nd == 0 else x.shape[0]
        idx = rnd.choice([[0], [0, -1], 0, cp.asarray(numpy.array([1, 0], numpy.int32))])
        axis = rnd.choice([None, 0, -1])
        what = f"take({_desc(x)}, {_desc(idx)}, axis={axis}) (n={n})"
        fns = _call(cp, "take", x, idx, axis=axis)
        np_fn, inputs = (lambda h, i: numpy.take(h, i, axis=axis)), (x, idx)
    elif kind == "getitem":
        key = _rnd_key(rnd, x.shape)
        what = f"{_desc(x)}[{key}]"
        fns = (lambda: x[key], lambda: s.call("getitem", None, (x, key)))
        np_fn, inputs = (lambda h: h[key]), (x,)
    elif kind == "advanced":
        n = x.shape[0] if nd else 1
        idx = numpy.array(rnd.choice([[0], [0, -1], [1, 1, 0], []]), numpy.intp)
        pos = rnd.choice(["first", "last", "two"]) if nd else "first"
        ix = cp.asarray(idx)
        if pos == "first" or nd < 2:
            key = (ix,)
        elif pos == "last":
            key = (Ellipsis, ix)
        else:
            key = (ix, slice(None), ix) if nd == 3 else (ix, ix)
        what = f"{_desc(x)}[{pos} int index {idx.tolist()}] (n={n})"
        fns = (lambda: x[key], lambda: s.call("getitem", None, (x, key)))
    elif kind == "mask":
        mask = x > 1 if rnd.random() < 0.5 else cp.asarray(
            rng.integers(0, 2, x.shape[:1]).astype(bool))
        what = f"{_desc(x)}[mask {mask.shape}]"
        fns = (lambda: x[mask], lambda: s.call("getitem", None, (x, mask)))
    else:  # pragma: no cover
        raise AssertionError(kind)
    out = check_step(cp, what, *fns, np_fn, inputs)
    pool.extend(a for a in _arrays(out) if a.size < 4096)
    return out


def _draw_scalar(rnd):
    return rnd.choice([0, 1, -1, 2, 3, 127, 128, 255, 256, -129, 70000, 2 ** 31,
                       2 ** 40, 2 ** 63 - 1, 2 ** 63, 2 ** 64, -2 ** 63, 0.5, -1.5, 1e40,
                       2.0, 1 + 2j, -0.5j, True, False, numpy.int8(3), numpy.uint8(200),
                       numpy.int16(-2), numpy.int32(7), numpy.int64(-5),
                       numpy.longlong(4), numpy.uint64(9), numpy.float16(1.5),
                       numpy.float32(2.5), numpy.float64(-0.25), numpy.complex64(1 - 1j),
                       numpy.bool_(True)])


def _desc(v):
    from gpushare.cupy._ndarray import ndarray
    if isinstance(v, ndarray):
        return f"<{v.dtype.char}{v.shape}{v.strides}>"
    if isinstance(v, numpy.generic):
        return f"{v.dtype.char}({v!r})"
    return repr(v)


def run_program(cp, program):
    starts, steps = program
    rng = numpy.random.default_rng(0)
    pool = [make_start(cp, rng, *start) for start in starts]
    pool = [x for x in pool if x is not None]
    if not pool:
        return
    for kind, rnd in steps:
        step(cp, rng, pool, kind, rnd)


@settings(FUZZ, max_examples=int(os.environ.get("FUZZ_EXAMPLES", "2500")))
@given(programs())
def test_inferred_metadata_is_the_servers(cp, program):
    """Generated programs: every step's inferred layout, values and errors are the
    server's own call's (``check_step``)."""
    run_program(cp, program)


# --- regressions: what the fuzz found ------------------------------------------------

def _same_as_server(x):
    assert _layout(x) == _server_layout(x)
    return _layout(x)


@pytest.mark.parametrize("first", ["l", "q"])
def test_longlong_operands_give_int64_l_results(cp, first):
    """CuPy's loops list 'll->l' before 'qq->q' and take the first one an operand casts
    to: a longlong array's ufunc results are int64 'l' (NumPy keeps 'q'). The client's
    caches (keyed by dtypes, which cannot tell 'q' from 'l') answered whichever came
    first; the server's NumPy answered 'q'."""
    q = cp.arange(1, 7, dtype=numpy.longlong).reshape(2, 3)
    l = cp.arange(1, 7, dtype=numpy.int64).reshape(2, 3)
    uq = cp.arange(1, 7, dtype=numpy.ulonglong)
    order = (l, q) if first == "l" else (q, l)
    for a in order:
        for r in (a + 1, a + a, -a, a * 2, a // a, a % 3, cp.absolute(a),
                  cp.minimum(a, True), cp.fmax(a, 1), a ** a, cp.add(a, a, dtype="q")):
            assert _same_as_server(r)[2] == "l"
    for r in (uq + 1, uq // uq, cp.floor_divide(uq[0], uq[1]),
              cp.where(uq > 2, uq, uq)):
        assert _same_as_server(r)[2] == "L"
    assert _same_as_server(cp.where(q > 2, q, 0))[2] == "l"
    assert q.dtype.char == "q" and _same_as_server(q[1:])[2] == "q"
    # (matmul and dot are ``promote_types``': 'q' stays)
    assert _same_as_server(q @ q.T)[2] == "q"
    # (a join's dtype is its first array's where all are equal: CuPy's
    # ``concatenate_method``)
    assert _same_as_server(cp.concatenate([l, q]))[2] == "l"
    assert _same_as_server(cp.stack([q, l]))[2] == "q"
    numpy.testing.assert_array_equal((q + q).get(), numpy.arange(1, 7).reshape(2, 3) * 2)


def test_longlong_scans_and_diffs_are_int64_l(cp):
    """``scan_core`` accumulates integers in ``numpy.dtype('int64')`` ('l'); ``diff``
    is ``subtract``'s (and 0-d is CuPy's AxisError, NumPy's ValueError)."""
    q = cp.arange(6, dtype=numpy.longlong).reshape(2, 3)
    for r in (cp.cumsum(q), cp.cumsum(q, axis=0), cp.cumprod(q, axis=-1),
              cp.diff(q), cp.diff(q, axis=0)):
        assert _same_as_server(r)[2] == "l"
    assert _same_as_server(cp.cumsum(q, dtype=numpy.longlong))[2] == "q"
    with pytest.raises(numpy.exceptions.AxisError):
        cp.diff(cp.asarray(1.0))
    cp.cuda.Device().synchronize()
    f = cp.asarray(numpy.arange(16, dtype=numpy.uint8).reshape(4, 4), order="F")
    d = cp.diff(f)  # (subtract's output: a new C-contiguous array)
    assert _same_as_server(d)[3] == (3, 1) and d.flags.c_contiguous
    numpy.testing.assert_array_equal(d.get(), numpy.diff(f.get()))


def test_longlong_reductions_take_the_servers_dtype(cp):
    """A longlong array's reductions: its loops give 'l', CUB's gives 'q' (the
    input's own dtype): the server decides."""
    q = cp.arange(6, dtype=numpy.longlong).reshape(2, 3)
    l = cp.arange(6, dtype=numpy.int64).reshape(2, 3)
    for a in (l, q, l):
        for r in (a.sum(), a.max(), cp.sum(a, axis=0), a.prod(keepdims=True),
                  cp.sum(a.astype(numpy.uint8), dtype=numpy.longlong)):
            _same_as_server(r)
        assert int(a.sum()) == 15


def test_an_empty_slice_keeps_its_axis_stride(cp):
    """CuPy's ``_view_getitem``: a slice of no element keeps the axis' stride (not
    times the step), as NumPy's."""
    h = numpy.arange(8, dtype=numpy.uint64).reshape(2, 4)
    x = cp.asarray(h)
    for key in [(slice(None), slice(-2, -2, -1)), (slice(1, 1, -1), None, slice(None, 4, -2)),
                (slice(None), slice(3, 0, 2)), (Ellipsis, slice(0, 4, -2))]:
        v = x[key]
        assert _same_as_server(v)[3] == h[key].strides, key
        assert v.get().shape == h[key].shape


def test_a_reshape_or_ravel_to_its_own_shape_is_a_view_with_its_strides(cp):
    """CuPy's ``_reshape`` returns ``self.view()`` for the same shape: a zero-size
    array's all-zero strides, or a one-element view's stride, stay (NumPy may
    recompute them)."""
    empty = cp.zeros((0,), dtype=numpy.float64)
    one = cp.zeros((1, 6), dtype=numpy.uint32)[0, ::6]
    col = cp.asarray(numpy.zeros((4, 1), numpy.uint8), order="F")
    for x, shape in ((empty, (-1,)), (one, (-1,)), (col, (-1, 1))):
        for r in (x.reshape(shape), cp.reshape(x, shape), x.reshape(shape, order="A")):
            assert _same_as_server(r)[3] == x.strides
        if x.ndim == 1:
            for r in (x.ravel(), cp.ravel(x), x.ravel("K")):
                assert _same_as_server(r)[3] == x.strides


def test_the_imaginary_part_of_a_real_fortran_array_is_a_new_c_array(cp):
    x = cp.asarray(numpy.ones((3, 4), numpy.uint16), order="F")
    r = x.imag  # (``_ndarray_imag_getter``: ``ndarray(self.shape, self.dtype)``)
    assert _same_as_server(r)[3:] == ((8, 2), 5)
    assert _same_as_server(cp.imag(x))[3:] == ((8, 2), 5)


def test_a_keepdims_reduction_of_a_0d_array_is_cubs_view(cp):
    x = cp.asarray(numpy.complex128(2 + 1j))
    r = cp.sum(x, axis=None, keepdims=True)
    assert _same_as_server(r)[4] == 3  # C and F, no OWNDATA (``y.reshape(())``)
    assert complex(r) == 2 + 1j


def test_where_and_integer_power_of_fortran_operands_are_c_arrays(cp):
    """Both are ufuncs: a new C-contiguous output whatever the operands' order (NumPy's
    follow it)."""
    h = numpy.arange(12, dtype=numpy.int16).reshape(3, 4) % 3
    f = cp.asarray(h, order="F")
    hf = cp.asarray(numpy.arange(12, dtype=numpy.float16).reshape(3, 4), order="F")
    for r, want in ((f ** f, h ** h), (cp.where(f > 0, hf, hf), None),
                    (cp.power(f, 2), h ** 2)):
        assert _same_as_server(r)[4] == 5  # C, OWNDATA
        if want is not None:
            numpy.testing.assert_array_equal(r.get(), want)


def test_layouts_left_to_the_server(cp):
    """Results whose layout depends on CUB's choices or on size-0 details: the client
    leaves them to the server (asked when needed)."""
    f = cp.asarray(numpy.arange(24, dtype=numpy.float32).reshape(3, 2, 4), order="F")
    d = cp.asarray(numpy.arange(6, dtype=numpy.float64).reshape(2, 1, 3), order="F")
    b = cp.zeros((0, 2), dtype=numpy.uint8)[::-1, ::-3]
    for r in (cp.min(f, axis=0), f.sum(axis=0), cp.all(d, axis=-2, keepdims=True),
              cp.std(d.astype(numpy.complex128), axis=(2,), keepdims=True),
              cp.all(b, axis=0, keepdims=True), cp.sum(b, axis=0, dtype=numpy.float64),
              cp.argsort(cp.zeros((0, 3, 3), numpy.uint16), axis=0),
              cp.cumprod(cp.asarray(numpy.ones((2, 1, 1), numpy.uint8), order="F"), axis=0)):
        _same_as_server(r)
    numpy.testing.assert_array_equal(cp.min(f, axis=0).get(), f.get().min(axis=0))
