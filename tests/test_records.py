"""The worker's runs of operators' records in C (``gpushare_server/_records.c``): built,
and the same as the Python loop it stands in for (``SessionExecutor._batch``). Two
executors run the same random batches, one with the runner and one without: their
replies, their handle tables (every array's dtype, shape and bytes) and their call
counts must be the same, and the runner must have run most of the chains."""
from __future__ import annotations

import os
import random
import re

import msgpack
import numpy
import pytest

from gpushare_server.backends.cpu import CpuBackend
from gpushare_server.quota import MemoryQuota
from gpushare_server.session import SessionExecutor

ACCEL_OFF = os.environ.get("GPUSHARE_ACCEL", "1") == "0"
pytestmark = pytest.mark.skipif(ACCEL_OFF, reason="GPUSHARE_ACCEL=0")

BINARY = ["cupy.add", "cupy.subtract", "cupy.multiply", "cupy.true_divide", "cupy.divide",
          "cupy.floor_divide", "cupy.power", "cupy.maximum", "cupy.fmin", "cupy.greater",
          "cupy.equal", "cupy.bitwise_and", "cupy.left_shift", "cupy.remainder",
          "cupy.arctan2", "cupy.copysign", "cupy.logaddexp", "cupy.nonexistent"]
UNARY = ["cupy.negative", "cupy.absolute", "cupy.sqrt", "cupy.exp", "cupy.invert",
         "cupy.logical_not", "cupy.sign", "cupy.square", "cupy.rint", "cupy.isnan"]
SCALARS = [0, 1, 2, 3, -1, -7, 127, -128, 255, 300, 1 << 31, -(1 << 40), (1 << 63) - 1,
           True, False, 0.5, 1.0, -2.5, 3.0, 0.0, -0.0, float("nan"), float("inf"),
           -float("inf"), 1e300, -1e-300, 65504.0, 1e39]
DTYPES = ["float32", "float64", "float16", "int8", "int32", "int64", "uint8", "uint64",
          "bool", "complex64"]


class _Counting:
    """The executor's runner, counting the records it ran."""

    def __init__(self, runner) -> None:
        self.runner = runner
        self.ran = 0

    def run(self, *args):
        out = self.runner.run(*args)
        self.ran += out[4]
        return out


def _twins(arrays: dict, limit: int | None = None) -> tuple:
    """An executor with the runner (counted) and one without, holding copies of
    ``arrays`` (id -> array)."""
    pair = []
    for with_runner in (True, False):
        executor = SessionExecutor(CpuBackend())
        assert executor._runner is not None
        executor._runner = _Counting(executor._runner) if with_runner else None
        for hid, arr in arrays.items():
            executor.handles.put(hid, arr.copy())
        if limit is not None:
            MemoryQuota(executor.backend, limit).install(executor)
        pair.append(executor)
    return tuple(pair)


def _frames(calls: list, releases: list, ack: int | None) -> list:
    header: dict = {"t": "batch", "n": len(calls)}
    if releases:
        header["release"] = [list(r) for r in releases]
    if ack is not None:
        header["ack"] = ack
    packer = msgpack.Packer(use_bin_type=True)
    return [msgpack.packb(header),
            b"".join(c if type(c) is bytes else packer.pack(c) for c in calls)]


def _same_tables(fast: SessionExecutor, slow: SessionExecutor) -> None:
    assert fast.calls == slow.calls
    assert sorted(fast.handles.objects) == sorted(slow.handles.objects)
    for hid, a in slow.handles.objects.items():
        b = fast.handles.objects[hid]
        assert (b.dtype, b.shape) == (a.dtype, a.shape), hid
        assert numpy.ascontiguousarray(b).tobytes() == numpy.ascontiguousarray(a).tobytes()


def _no_temp_dirs(value: object) -> object:
    """``value`` with the temporary directories in its strings made one (a compile
    error names its source in a new one each time, as CuPy's NVRTC path does)."""
    if isinstance(value, str):
        return re.sub(r"tmp[a-z0-9_]{8}/", "tmpXXXXXXXX/", value)
    if isinstance(value, dict):
        return {k: _no_temp_dirs(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_temp_dirs(v) for v in value]
    return value


def _run_both(fast: SessionExecutor, slow: SessionExecutor, batches: list,
              ack: int | None = None) -> list:
    """Send each batch (calls, releases) to both, the first acknowledging the error
    of call ``ack``; their replies (the same)."""
    replies = []
    for calls, releases in batches:
        frames = _frames(calls, releases, ack)
        want = msgpack.unpackb(slow.handle(list(frames))[0], strict_map_key=False)
        got = msgpack.unpackb(fast.handle(list(frames))[0], strict_map_key=False)
        assert _no_temp_dirs(got) == _no_temp_dirs(want), (calls, releases)
        ack = want["error"][0] if "error" in want else None
        replies.append(want)
    _same_tables(fast, slow)
    return replies


def _random_batches(rng: random.Random, bases: list) -> list:
    """Batches as a client queues them: mostly chains (``x = x op scalar``, the last
    result released right after the next call is queued), among in-place and
    two-array calls, general calls, results kept or released late, a base array
    released, and flushes anywhere."""
    batches, calls, releases = [], [], []
    seq, next_id = 1, 100
    cur = rng.choice(bases)
    late: list = []  # ids to release some calls later

    def release(hid: int) -> None:
        releases.append((len(calls), hid))
    for _ in range(rng.randint(5, 120)):
        roll = rng.random()
        out = next_id
        next_id += 1
        if roll < 0.7:  # a chain's record (mostly of the usual operators and scalars)
            usual = rng.random() < 0.85
            binary, scalar = (BINARY[:4], rng.choice(SCALARS[:6])) if usual else \
                (BINARY, rng.choice(SCALARS))
            if rng.random() < 0.2:
                calls.append([seq, 4, rng.choice(UNARY[:2] if usual else UNARY), cur, None,
                              out])
            elif rng.random() < 0.7:
                calls.append([seq, 1, rng.choice(binary), cur, scalar, out])
            else:
                calls.append([seq, 2, rng.choice(binary), scalar, cur, out])
        elif roll < 0.8:  # two arrays
            other = rng.choice(bases + [cur])
            pair = [cur, other] if rng.random() < 0.5 else [other, cur]
            calls.append([seq, 3, rng.choice(BINARY[:8]), *pair, out])
        elif roll < 0.86:  # in place on a base array
            base = rng.choice(bases)
            if rng.random() < 0.5:
                calls.append([seq, 9, rng.choice(BINARY[:4]), base, rng.choice(SCALARS), base])
            else:
                calls.append([seq, 11, rng.choice(BINARY[:4]), base, cur, base])
            seq += 1
            continue
        elif roll < 0.92:  # a general call, which reads the result back
            calls.append([seq, "call", "cupy.sum", [msgpack.ExtType(1, msgpack.packb(cur))],
                          {}, None, True])
            seq += 1
            continue
        else:  # a fresh start from a base array
            calls.append([seq, 1, "cupy.multiply", rng.choice(bases), rng.choice(SCALARS),
                          out])
        seq += 1
        # the operand's proxy dies: at once (a chain), later, or never
        if cur not in bases:
            fate = rng.random()
            if fate < 0.85:
                release(cur)
            elif fate < 0.95:
                late.append(cur)
        if late and rng.random() < 0.3:
            release(late.pop(0))
        if rng.random() < 0.01 and len(bases) > 1:
            release(bases.pop(rng.randrange(len(bases))))
        cur = out
        if rng.random() < 0.03:  # a flush
            batches.append((calls, releases))
            calls, releases = [], []
    for hid in late:
        release(hid)
    batches.append((calls, releases))
    return batches


def _bases(rng: random.Random, dtype: str) -> dict:
    shape = rng.choice([(7,), (3, 4), (), (0,), (2, 1, 3)])
    make = numpy.random.default_rng(rng.randrange(1 << 30))
    values = make.normal(0, 4, size=shape) if dtype != "bool" else make.random(shape) > 0.5
    arrays = {1: numpy.asarray(values).astype(dtype),
              2: numpy.asarray(values).astype(dtype)[...] * 0 + 1,
              3: numpy.asarray(values).astype(rng.choice(DTYPES))}
    if arrays[1].ndim == 2:
        arrays[4] = arrays[1].T.copy().T  # (not C-contiguous)
    return arrays


def test_the_runner_is_built_and_installed():
    """A machine that builds the CPU backend's kernels (a C compiler) builds this too."""
    from gpushare_server import _records
    executor = SessionExecutor(CpuBackend())
    assert isinstance(executor._runner, _records.Runner)


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_batches_run_the_same_with_and_without_the_runner(dtype):
    ran = total = 0
    for seed in range(40):
        rng = random.Random(f"{dtype}-{seed}")
        arrays = _bases(rng, dtype)
        fast, slow = _twins(arrays)
        batches = _random_batches(rng, sorted(arrays))
        _run_both(fast, slow, batches)
        ran += fast._runner.ran
        total += sum(len(calls) for calls, _ in batches)
    assert ran > total // 20  # (it is not declining everything)


def test_a_long_chain_runs_in_c_and_matches():
    x = numpy.arange(1000, dtype=numpy.float32)
    fast, slow = _twins({1: x})
    calls = [[1, 1, "cupy.multiply", 1, 0.5, 100]]
    releases = []
    for k in range(1, 1000):
        calls.append([k + 1, 1 if k % 3 else 2, ["cupy.add", "cupy.subtract",
                                                 "cupy.multiply"][k % 3],
                      *((99 + k, 1.25) if k % 3 else (0.75, 99 + k)), 100 + k])
        releases.append((k + 1, 99 + k))
    _run_both(fast, slow, [(calls, releases)])
    assert fast._runner.ran == 998  # all but the first (nothing carried) and the last
    assert 1099 in fast.handles and fast.handles.get(1099).dtype == numpy.float32


def test_an_error_in_a_run_is_its_calls_and_skips_the_rest():
    """``x + 300`` for int8 raises in the ufunc itself (NEP 50), in the middle of a run."""
    x = numpy.arange(1, 6, dtype=numpy.int8)
    fast, slow = _twins({1: x})
    calls = [[1, 1, "cupy.add", 1, 1, 100], [2, 1, "cupy.add", 100, 1, 101],
             [3, 1, "cupy.add", 101, 300, 102], [4, 1, "cupy.add", 102, 1, 103],
             [5, 1, "cupy.add", 103, 1, 104]]
    releases = [(2, 100), (3, 101), (4, 102), (5, 103)]
    [reply] = _run_both(fast, slow, [(calls, releases)])
    assert reply["error"][0] == 3 and reply["error"][1][0] == "OverflowError"
    assert reply["skipped"] == [[4, 103], [5, 104]]
    assert fast._runner.ran == 2  # the second add, then the third, which failed
    assert not {100, 101, 102, 103, 104} & set(fast.handles.objects)
    # the next batch acknowledges the error and goes on
    _run_both(fast, slow, [([[6, 1, "cupy.add", 1, 1, 105]], [])], ack=3)
    assert fast.handles.get(105).tolist() == [2, 3, 4, 5, 6]


def test_the_memory_limit_holds_in_a_run():
    """With a limit: each record's result is counted as the Python loop counts it, and
    a call over the limit fails in the run as it does there."""
    x = numpy.zeros(1 << 14, dtype=numpy.float64)  # 128 KiB
    for limit in (300 * 1024, 600 * 1024, 1 << 30):
        fast, slow = _twins({1: x}, limit=limit)
        calls = [[1, 1, "cupy.add", 1, 1.0, 100]] + [
            [k + 1, 1, "cupy.add", 99 + k, 1.0, 100 + k] for k in range(1, 30)]
        releases = [(k + 1, 99 + k) for k in range(1, 30)]
        _run_both(fast, slow, [(calls, releases),
                               ([[31, 1, "cupy.multiply", 1, 2.0, 200],
                                 [32, 1, "cupy.add", 200, 1.0, 201]], [(2, 200)])])


@pytest.mark.parametrize("record", [
    [2, True, "cupy.add", 100, 1.0, 101], [2, 1, "cupy.add", 100, 1.0, True],
    [2, 1, "cupy.add", 100, 1.0, None], [2, 4, "cupy.negative", 100, 1, 101],
    [2, 0, "cupy.add", 100, 1.0, 101], [2, 1, 7, 100, 1.0, 101],
    [2, 1, "cupy.add", 100, "text", 101], [2, 1, "cupy.add", 100, None, 101],
    [2, 1, "cupy.add", 100, [1.0], 101], [2, 1, "cupy.add", 100, (1 << 64) - 1, 101], [2, 1, "cupy.add", 100, 1 << 63, 101],
    [2, 2, "cupy.add", 1.0, 100, 101, 7], [2, 1, "cupy.add", 100, b"\x01", 101],
    b"\x96\x02\x01\xa2\xff\xfe\x64\xcb" + numpy.float64(1.0).tobytes()[::-1] + b"\x65",
    b"\x96\x02\x01\xa8cupy.add\x64\xca" + numpy.float32(1.5).tobytes()[::-1] + b"\x65",
    b"\x96\x02\x01\xa8cupy.add\x64\xcb\x3f",  # cut short
])
def test_records_the_runner_declines_go_to_the_python_loop(record):
    """After a carried result, records that are malformed, or that the runner does not
    take, get the Python loop's answer (a protocol error, a call's error, a result)."""
    x = numpy.arange(4, dtype=numpy.float64)
    fast, slow = _twins({1: x})
    calls = [[1, 1, "cupy.add", 1, 1.0, 100], record, [3, 1, "cupy.add", 101, 1.0, 102]]
    frames = _frames(calls, [(2, 100), (3, 101)], None)
    want = msgpack.unpackb(slow.handle(list(frames))[0], strict_map_key=False)
    got = msgpack.unpackb(fast.handle(list(frames))[0], strict_map_key=False)
    assert got == want
    if want["t"] != "protocol_error":
        _same_tables(fast, slow)


def test_mangled_streams_get_the_same_answer_both_ways():
    """Bytes of a chain changed at random, or cut short: whatever either way makes of
    them (a protocol error, a call's error, results), the other makes the same."""
    rng = random.Random(5)
    packer = msgpack.Packer(use_bin_type=True)
    ran = 0
    for _ in range(400):
        fast, slow = _twins({1: numpy.arange(6, dtype=rng.choice(["float32", "int16"]))})
        calls = [[1, 1, "cupy.add", 1, 1, 100]] + [
            [k + 1, rng.choice([1, 2, 4]), rng.choice(BINARY[:4] + UNARY[:2]), 99 + k,
             rng.choice(SCALARS[:8]), 100 + k] for k in range(1, 20)]
        for call in calls[1:]:  # (a well-formed record first: then mangled)
            if call[1] == 2:
                call[3], call[4] = call[4], call[3]
            elif call[1] == 4:
                call[2], call[4] = rng.choice(UNARY[:2]), None
        data = bytearray(b"".join(packer.pack(c) for c in calls))
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.2:
            del data[rng.randrange(len(data)):]
        header = {"t": "batch", "n": len(calls),
                  "release": [[k + 1, 99 + k] for k in range(1, 20)]}
        frames = [msgpack.packb(header), bytes(data)]
        want = msgpack.unpackb(slow.handle(list(frames))[0], strict_map_key=False)
        got = msgpack.unpackb(fast.handle(list(frames))[0], strict_map_key=False)
        assert got == want, bytes(data)
        _same_tables(fast, slow)
        ran += fast._runner.ran
    assert ran > 400  # (the runner took the records before the first mangled one)


def test_an_error_from_the_backend_s_operand_is_that_call_s():
    """The backend's ``into`` (and ``into.operand``, which the runner calls) raising:
    the call whose operand it was fails, not the one before, either way."""
    def boom(*args):
        raise ValueError("no operand today")
    boom.ufunc = numpy.multiply
    boom.operand = boom
    fast, slow = _twins({1: numpy.arange(4.0)})
    for executor in (fast, slow):
        executor.backend._inplace["cupy.multiply"] = boom
    calls = [[1, 1, "cupy.add", 1, 1.0, 100], [2, 1, "cupy.add", 100, 1.0, 101],
             [3, 1, "cupy.multiply", 101, 2.0, 102], [4, 1, "cupy.add", 102, 1.0, 103]]
    [reply] = _run_both(fast, slow, [(calls, [(2, 100), (3, 101), (4, 102)])])
    assert reply["error"][0] == 3 and reply["error"][1][:2] == ["ValueError",
                                                             "no operand today"]
    assert fast._runner.ran == 2  # the second add, then the multiply, which failed


@pytest.mark.parametrize("big", [(1 << 64) - 1, -(1 << 63), (1 << 63)])
def test_ids_and_positions_beyond_int64_get_the_same_answer_both_ways(big):
    """msgpack carries ints up to 2**64 - 1: as a result's id, a released id or a
    release's position, each is taken (or declined) as the Python loop takes it."""
    for calls, releases in [
        ([[1, 1, "cupy.add", 1, 1.0, big], [2, 1, "cupy.add", big, 1.0, 101],
          [3, 1, "cupy.add", 101, 1.0, 102]], [(2, big), (3, 101)]),
        ([[1, 1, "cupy.add", 1, 1.0, 100], [2, 1, "cupy.add", 100, 1.0, 101],
          [3, 1, "cupy.add", 101, 1.0, 102]], [(2, 100), (2, big), (3, 101), (big, 7)]),
    ]:
        fast, slow = _twins({1: numpy.arange(4.0)})
        _run_both(fast, slow, [(calls, releases)])
