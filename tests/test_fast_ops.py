"""The operators' records (``client.Session.fast_op``) and how the worker runs them
(``SessionExecutor._batch``): a result that only the next call uses, and that the
client releases right after (``x = x + 1`` in a loop, ``a * b + c``), is computed into
by that call instead of being stored (``Backend.inplace``). Answers, dtypes, errors and
the arrays a program can still see must be those of running every call alone."""
from __future__ import annotations

import operator
import random

import msgpack
import numpy
import pytest

from _servers import BACKEND
from gpushare_server.backends.cpu import CpuBackend
from gpushare_server.quota import MemoryQuota
from gpushare_server.session import SessionExecutor

# --- the executor in-process ------------------------------------------------------------


def _batch(executor: SessionExecutor, calls: list, release: list = ()) -> dict:
    """Run one batch (records or 7-item calls); its decoded reply."""
    header: dict = {"t": "batch", "n": len(calls)}
    if release:
        header["release"] = [list(r) for r in release]
    packer = msgpack.Packer(use_bin_type=True)
    frames = [msgpack.packb(header), b"".join(packer.pack(c) for c in calls)]
    reply = executor.handle(frames)
    return msgpack.unpackb(reply[0], strict_map_key=False)


def _executor(*arrays: numpy.ndarray) -> SessionExecutor:
    executor = SessionExecutor(CpuBackend())
    for hid, arr in enumerate(arrays, start=1):
        executor.handles.put(hid, arr)
    return executor


def test_a_result_only_the_next_call_uses_is_computed_into_not_stored():
    x = numpy.arange(6, dtype=numpy.float32)
    executor = _executor(x)
    # t = x * 2; v = t + 1 (t released once v's call is queued); w = 3 - v; then v goes
    reply = _batch(executor, [[1, 1, "cupy.multiply", 1, 2.0, 2],
                              [2, 1, "cupy.add", 2, 1.0, 3],
                              [3, 2, "cupy.subtract", 3.0, 3, 4]],
                   release=[(2, 2), (3, 3)])
    assert reply["upto"] == 3 and "error" not in reply
    assert 2 not in executor.handles and 3 not in executor.handles
    numpy.testing.assert_array_equal(executor.handles.get(4), 3.0 - (x * 2.0 + 1.0))
    assert executor.handles.get(4).dtype == numpy.float32
    numpy.testing.assert_array_equal(x, numpy.arange(6, dtype=numpy.float32))  # untouched


def test_both_operands_the_carried_result_and_an_array_operand():
    x = numpy.linspace(-1, 1, 5)
    y = numpy.arange(5.0)
    executor = _executor(x, y)
    # t = x + y; u = t * t; v = y - u
    _batch(executor, [[1, 3, "cupy.add", 1, 2, 3],
                      [2, 3, "cupy.multiply", 3, 3, 4],
                      [3, 3, "cupy.subtract", 2, 4, 5]],
           release=[(2, 3), (3, 4)])
    t = x + y
    numpy.testing.assert_array_equal(executor.handles.get(5), y - t * t)
    numpy.testing.assert_array_equal(executor.handles.get(2), numpy.arange(5.0))


def test_one_operand_ufuncs_and_broadcast_operands_compute_into_it_too():
    x = numpy.linspace(-2, 2, 12).reshape(3, 4)
    row = numpy.arange(4.0)
    executor = _executor(x, row)
    # t = x * 2; u = -t; v = u + row; w = sqrt(abs(v))
    reply = _batch(executor, [[1, 1, "cupy.multiply", 1, 2.0, 3],
                              [2, 4, "cupy.negative", 3, None, 4],
                              [3, 3, "cupy.add", 4, 2, 5],
                              [4, 4, "cupy.absolute", 5, None, 6],
                              [5, 4, "cupy.sqrt", 6, None, 7]],
                   release=[(2, 3), (3, 4), (4, 5), (5, 6)])
    assert "error" not in reply
    assert not {3, 4, 5, 6} & set(executor.handles._objects)
    numpy.testing.assert_array_equal(executor.handles.get(7),
                                     numpy.sqrt(numpy.abs(-(x * 2.0) + row)))


def test_in_place_records_write_into_their_array():
    """``x += 2.0; x *= y; x -= y * 3`` (the last one's temporary is carried, then
    stored for it); a failing one reports its error and changes nothing."""
    x = numpy.arange(4.0)
    y = numpy.full(4, 0.5)
    executor = _executor(x, y)
    reply = _batch(executor, [[1, 9, "cupy.add", 1, 2.0, 1],
                              [2, 11, "cupy.multiply", 1, 2, 1],
                              [3, 1, "cupy.multiply", 2, 3, 3],
                              [4, 11, "cupy.subtract", 1, 3, 1]], release=[(4, 3)])
    assert "error" not in reply and reply["upto"] == 4
    assert executor.handles.get(1) is x and 3 not in executor.handles
    numpy.testing.assert_array_equal(x, (numpy.arange(4.0) + 2.0) * 0.5 - 1.5)
    i = numpy.arange(3)
    executor = _executor(i)
    reply = _batch(executor, [[1, 9, "cupy.add", 1, 1.5, 1], [2, 9, "cupy.add", 1, 1, 1]])
    assert reply["error"][0] == 1 and reply["skipped"] == [[2, 1]]
    assert i.tolist() == [0, 1, 2]


def test_a_result_the_next_call_cannot_compute_into_is_stored_first():
    """A different dtype (a comparison), another shape (broadcasting), a call that is
    not an operator's: the carried array is stored, and the next call runs as usual."""
    x = numpy.arange(4, dtype=numpy.int32)
    row = numpy.arange(4, dtype=numpy.int32)
    executor = _executor(x, row.reshape(1, 4) * 0 + 1)
    reply = _batch(executor, [
        [1, 1, "cupy.add", 1, 1, 10], [2, 1, "cupy.greater", 10, 2, 11],    # bool result
        [3, 1, "cupy.add", 1, 1.5, 12], [4, 1, "cupy.multiply", 12, 2, 13],  # float64
        [5, 1, "cupy.add", 1, 3, 14], [6, 3, "cupy.add", 14, 2, 15],        # broadcast
        [7, 1, "cupy.add", 1, 4, 16],
        [8, "call", "cupy.sum", [msgpack.ExtType(1, b"\x10")], {}, None, True],
    ], release=[(2, 10), (4, 12), (6, 14), (8, 16)])
    assert "error" not in reply
    numpy.testing.assert_array_equal(executor.handles.get(11), x + 1 > 2)
    assert executor.handles.get(13).dtype == numpy.float64
    numpy.testing.assert_array_equal(executor.handles.get(13), (x + 1.5) * 2)
    assert executor.handles.get(15).shape == (1, 4)
    numpy.testing.assert_array_equal(executor.handles.get(15), [x + 3 + 1])
    [[seq, packed]] = reply["results"]
    assert seq == 8 and 16 not in executor.handles
    assert x.tolist() == [0, 1, 2, 3]


def test_a_result_that_may_be_an_operand_itself_is_never_written_into():
    """Only a new array from an elementwise ufunc is carried: ``asarray`` returns its
    operand, which must not change when the next call would compute into it."""
    x = numpy.arange(3.0)
    executor = _executor(x)
    _batch(executor, [[1, 1, "cupy.asarray", 1, None, 2],
                      [2, 1, "cupy.add", 2, 1.0, 3]], release=[(2, 2)])
    assert x.tolist() == [0.0, 1.0, 2.0]
    assert executor.handles.get(3).tolist() == [1.0, 2.0, 3.0]


def test_a_failure_is_the_failing_calls_and_later_calls_are_skipped():
    x = numpy.arange(3.0)
    executor = _executor(x)
    reply = _batch(executor, [[1, 1, "cupy.add", 1, 1.0, 2],
                              [2, 3, "cupy.add", 2, 99, 3],   # handle 99: unknown
                              [3, 1, "cupy.add", 3, 1.0, 4]], release=[(2, 2)])
    assert reply["error"][0] == 2 and "99" in reply["error"][1][1]
    assert reply["skipped"] == [[3, 4]] and reply["upto"] == 3
    assert 2 not in executor.handles and 3 not in executor.handles


def test_the_memory_limit_counts_a_carried_result_at_its_own_call():
    """A result computed into later is counted when its call runs, as if stored: over
    the limit, that call fails (and names the user's line), not a later one; a chain
    computed into one array stays within a limit that holds two arrays."""
    x = numpy.zeros(1 << 16, dtype=numpy.float64)  # 512 KiB
    executor = _executor(x)
    MemoryQuota(executor.backend, 1100 * 1024).install(executor)
    calls = [[k, 1, "cupy.add", k, 1.0, k + 1] for k in range(1, 40)]
    reply = _batch(executor, calls, release=[(k, k) for k in range(2, 40)])
    assert "error" not in reply and reply["upto"] == 39
    numpy.testing.assert_array_equal(executor.handles.get(40), numpy.full(1 << 16, 39.0))
    reply = _batch(executor, [[40, 1, "cupy.multiply", 1, 2.0, 41],  # a third array
                              [41, 1, "cupy.less", 41, 1, 42]], release=[(2, 41)])
    assert reply["error"][0] == 40 and "OutOfMemoryError" in reply["error"][1][0]
    assert reply["skipped"] == [[41, 42]]
    assert 41 not in executor.handles and 42 not in executor.handles


@pytest.mark.parametrize("record", [
    [1, 0, "cupy.add", 1, 1.0, 2], [1, 4, "cupy.add", 1, 1.0, 2],
    [1, "1", "cupy.add", 1, 1.0, 2], [1, 1, 7, 1, 1.0, 2], ["1", 1, "cupy.add", 1, 1.0, 2],
    [1, 5, "cupy.add", 1, 1, 2], [1, 4, "cupy.negative", 1, 1, 2],
    [1, 1, "cupy.add", 1, 1.0, True], [1, 1, "cupy.add", 1, 1.0, None],
    [1, 9, "cupy.add", 1, 1.0, 2], [1, 10, "cupy.add", 1.0, 1, 1], [1, True, "cupy.add", 1, 1, 2],
])
def test_a_malformed_record_is_a_protocol_error(record):
    executor = _executor(numpy.arange(3.0))
    reply = _batch(executor, [record])
    assert reply["t"] == "protocol_error" and "malformed call" in reply["error"]


# --- through a server ---------------------------------------------------------------------

_OPS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.gt,
        operator.eq, operator.floordiv, operator.and_, operator.or_]
_INPLACE = {operator.add: operator.iadd, operator.sub: operator.isub,
            operator.mul: operator.imul, operator.truediv: operator.itruediv,
            operator.floordiv: operator.ifloordiv, operator.and_: operator.iand,
            operator.or_: operator.ior}
#: one operand: operators, and ufuncs by name (NumPy's on the host, the proxy's here)
_UNARY = [operator.neg, operator.abs, operator.invert, "exp", "sqrt"]
_SHAPES = {"a": (3, 4), "b": (4,), "c": (3, 1)}  # they broadcast together


def _random_program(rng: random.Random, dtype: str) -> list:
    """Statements ``(name, expression)``: expressions are trees of operators and
    ufuncs over variables (of shapes that broadcast) and Python scalars, so that
    temporaries die at once; some statements rebind their own operand (``x = x op s``:
    the chains the worker computes into one array)."""
    names = ["a", "b", "c"]
    ops = _OPS if numpy.dtype(dtype).kind in "iub" else _OPS[:6]
    unary = [u for u in _UNARY if numpy.dtype(dtype).kind in "iub" or u != operator.invert]
    if BACKEND != "cpu":  # transcendental functions differ in the last bits on a GPU
        unary = [u for u in unary if not isinstance(u, str)]
    constants = [0, 1, 3, 127, -1, -128, 300, 1 << 40, 1.5, -0.25, 2.0, True]

    def expr(depth: int) -> tuple:
        if depth == 0 or rng.random() < 0.2:
            if rng.random() < 0.6:
                return ("var", rng.choice(names))
            return ("const", rng.choice(constants))
        if rng.random() < 0.25:
            operand = expr(depth - 1)
            if "var" not in repr(operand):  # (a ufunc of Python scalars: the server's)
                operand = ("var", rng.choice(names))
            return ("unary", rng.choice(unary), operand)
        return ("op", rng.choice(ops), expr(depth - 1), expr(depth - 1))
    program = []
    for _ in range(12):
        target = rng.choice(names + ["d"])
        if target in names and rng.random() < 0.2:  # target op= expression
            op = rng.choice([o for o in ops if o in _INPLACE])
            program.append((target, ("inplace", _INPLACE[op], ("var", target),
                                     expr(rng.randint(0, 2)))))
            continue
        if rng.random() < 0.4:  # a chain: target = target op const, several times
            for _ in range(rng.randint(2, 6)):
                if rng.random() < 0.25:
                    program.append((target, ("unary", operator.neg, ("var", target))))
                    continue
                program.append((target, ("op", rng.choice(ops[:4]), ("var", target),
                                         ("const", rng.choice([1, 2, 0.5, 3.0, -2])))))
        else:
            program.append((target, expr(rng.randint(1, 4))))
        if target not in names:
            names.append(target)
    return program


def _cupy_floordiv(a: object, b: object) -> object:
    """``a // b`` as CuPy computes it: NumPy's dtype and integer values, but a float
    quotient is ``floor(a / b)`` in the loop's precision (``carray.cuh:
    _floor_divide``; float16 in float), where NumPy's is fmod-based (``1.0 // 0.1``:
    10 against 9; ``-1.0 // inf``: -0.0 against -1.0)."""
    if not hasattr(a, "dtype") and not hasattr(b, "dtype"):
        return a // b  # (Python's own, of two Python scalars)
    q = numpy.floor_divide(a, b)
    if q.dtype.kind != "f":
        return q
    wide = numpy.float64 if q.dtype.itemsize == 8 else numpy.float32
    x = numpy.asarray(a).astype(wide) if hasattr(a, "dtype") else a
    y = numpy.asarray(b).astype(wide) if hasattr(b, "dtype") else b
    return numpy.asarray(numpy.floor(numpy.true_divide(x, y, dtype=wide))).astype(q.dtype)


def _evaluate(node: tuple, env: dict, xp: object) -> object:
    kind = node[0]
    if kind == "var":
        return env[node[1]]
    if kind == "const":
        return node[1]
    if kind == "inplace":  # the variable itself changes (and every name bound to it)
        target, value = env[node[2][1]], _evaluate(node[3], env, xp)
        if xp is numpy and node[1] is operator.ifloordiv and target.dtype.kind == "f":
            target[...] = _cupy_floordiv(target, value)
            return target
        return node[1](target, value)
    if kind == "unary":
        fn = getattr(xp, node[1]) if isinstance(node[1], str) else node[1]
        return fn(_evaluate(node[2], env, xp))
    fn = _cupy_floordiv if xp is numpy and node[1] is operator.floordiv else node[1]
    return fn(_evaluate(node[2], env, xp), _evaluate(node[3], env, xp))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int8",
                                   "uint8", "bool"])
def test_random_operator_programs_match_numpy(cp, dtype, op_path, monkeypatch):
    """Programs of operators and ufuncs on proxies and Python scalars (chains that
    rebind their operand, nested expressions whose temporaries die at once, in-place
    operators, broadcasting, promotions to other dtypes, ints that NEP 50 refuses, casts
    that ``same_kind`` refuses) give NumPy's dtypes, values (exactly) and errors, as
    CuPy does, without waiting."""
    from gpushare import client
    waited: list = []
    wait = client.Session._wait_locked
    monkeypatch.setattr(client.Session, "_wait_locked",
                        lambda self, *a, **k: (waited.append(a), wait(self, *a, **k))[1])
    for seed in range(8):
        rng = random.Random(f"{dtype}-{seed}")
        host_rng = numpy.random.default_rng(seed)
        env_host = {n: (host_rng.normal(size=shape) * 20).astype(dtype)
                    for n, shape in _SHAPES.items()}
        env_dev = {n: cp.asarray(v) for n, v in env_host.items()}
        for name, node in _random_program(rng, dtype):
            try:
                with numpy.errstate(all="ignore"):  # (CuPy does not warn)
                    expected = _evaluate(node, env_host, numpy)
            except Exception as exc:  # noqa: BLE001 - the same error is expected
                # (NumPy's own subclasses, e.g. its casting errors, arrive as their
                # built-in base: CuPy's errors are not NumPy's classes either)
                base = next(c for c in type(exc).__mro__ if c.__module__ == "builtins")
                if isinstance(exc, numpy._core._exceptions._UFuncOutputCastingError) and \
                        node[0] == "inplace" and env_host[node[2][1]].shape != numpy.broadcast_shapes(
                            env_host[node[2][1]].shape, numpy.shape(
                                _evaluate(node[3], env_host, numpy))):
                    # (CuPy checks the output's shape before its cast, NumPy the cast
                    # first: the GPU's ``Out shape is mismatched`` for ``int8 (3, 1) -=
                    # float64 (3, 4)``)
                    base = ValueError
                with pytest.raises(base):
                    _evaluate(node, env_dev, cp)
                continue
            if not hasattr(expected, "dtype"):  # scalars only: not an array program
                continue
            expected = numpy.asarray(expected)
            waits = len(waited)
            got = _evaluate(node, env_dev, cp)
            assert len(waited) == waits, node  # pipelined: nothing waited
            assert got.dtype == expected.dtype and got.shape == expected.shape, node
            env_host[name], env_dev[name] = expected, got
        for name, expected in env_host.items():
            got = env_dev[name].get()
            assert got.dtype == expected.dtype, (dtype, seed, name)
            numpy.testing.assert_array_equal(got, expected, err_msg=f"{dtype} {seed} {name}")


def test_a_temporary_reduced_at_once_and_a_long_chain(cp):
    """``sum(x * 2 + 1)``: the temporary goes to a call that is not an operator's, so it
    is stored for it; a chain longer than a batch (512 calls) crosses batches."""
    x = cp.arange(10, dtype=cp.float64)
    assert float(cp.sum(x * 2 + 1)) == float(numpy.sum(numpy.arange(10.0) * 2 + 1))
    y, h = x, numpy.arange(10.0)
    for k in range(1500):
        y = y * 1.001 + (k % 3)
        h = h * 1.001 + (k % 3)
    numpy.testing.assert_array_equal(y.get(), h)
    assert x.get().tolist() == list(range(10))


def test_records_and_packed_calls_travel_as_one_stream():
    """``client._pack_calls``: runs of operators' records are packed in one go; the
    stream is what packing every call alone gives, for runs of any length."""
    from gpushare.client import _CALL_PACKER, _pack_calls
    records = [(k, 1, "cupy.add", k, 1.5, k + 1) for k in range(70_000)]
    packed = [_CALL_PACKER.pack([0, "call", "cupy.sum", [], {}, None, True])]
    for calls in ([], records[:1], records[:15], records[:16], records[:70_000],
                  packed + records[:20] + packed + packed + records[:3]):
        expected = b"".join(c if type(c) is bytes else msgpack.packb(list(c))
                            for c in calls)
        assert _pack_calls(calls) == expected


def test_threads_sharing_a_session_keep_their_own_chains(cp, op_path):
    """Threads issuing operators on one session (each its own chain; one of them takes
    the general path now and then) get their own answers: ids, sequence numbers,
    records and releases interleave safely, and the worker's carried arrays follow
    each chain."""
    import threading
    results: dict = {}
    failures: list = []

    def chain(k: int) -> None:
        try:
            x = cp.full(100, float(k), dtype=cp.float64)
            for i in range(3000):
                x = x * 1.0 + 1.0
                if k == 0 and i % 50 == 0:
                    x = x.reshape(10, 10).ravel()  # general path: a new table entry
            results[k] = x.get()
        except Exception as exc:  # noqa: BLE001 - reported below
            failures.append(exc)
    threads = [threading.Thread(target=chain, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not failures and sorted(results) == [0, 1, 2, 3]
    for k, got in results.items():
        numpy.testing.assert_array_equal(got, numpy.full(100, k + 3000.0))
