"""The operators' fast path in C (``gpushare/_accel.c``): built, and the same as the
Python path it stands in for (``ufunc._fast1``/``_fast2``/``_fast_into``,
``Session.fast_op``, ``Session.release``): the same records on the wire, byte for byte,
the same releases, and the Python path wherever it declines. ``test_fast_ops.py`` and
``test_api.py`` run their programs both ways too (the ``op_path`` fixture)."""
from __future__ import annotations

import os
import subprocess
import sys

import msgpack
import numpy
import pytest

ACCEL_OFF = os.environ.get("GPUSHARE_ACCEL", "1") == "0"


@pytest.mark.skipif(ACCEL_OFF, reason="GPUSHARE_ACCEL=0")
def test_the_accelerator_is_built_and_installed():
    """A machine that builds the CPU backend's kernels (a C compiler) builds this too:
    a missing module here is a broken build, not a choice."""
    from gpushare import _accel
    from gpushare.cupy import _ufunc
    from gpushare.cupy._ndarray import ndarray
    assert _ufunc._accel is _accel
    assert type(ndarray.__add__).__name__ == "method_descriptor"
    assert type(ndarray.__del__).__name__ == "method_descriptor"
    assert isinstance(_ufunc.UFUNCS["add"]._fast2, _accel.Op)
    assert isinstance(_ufunc.UFUNCS["negative"]._fast1, _accel.Op)


def test_gpushare_accel_0_keeps_to_python(tmp_path):
    """``GPUSHARE_ACCEL=0``: no C at all, and the operators still pipeline."""
    script = ("import gpushare.cupy as cp\n"
              "from gpushare.cupy import _ufunc\n"
              "assert _ufunc._accel is None\n"
              "x = cp.arange(5, dtype=cp.float32)\n"
              "for _ in range(3):\n"
              "    x = x * 2 + 1\n"
              "print(x.get().tolist())\n")
    env = dict(os.environ, GPUSHARE_ACCEL="0")
    env.pop("GPUSHARE_SERVER", None)  # the embedded server
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    expected = numpy.arange(5, dtype=numpy.float32)
    for _ in range(3):
        expected = expected * 2 + 1
    assert out.stdout.strip() == str(expected.tolist())


def _program(cp):
    """Operators of every kind the fast path takes, and some it declines."""
    a = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    b = cp.ones(4, dtype=cp.float32)
    i = cp.arange(6, dtype=cp.int8)
    u = cp.arange(6, dtype=cp.uint64)
    out = [a + 1.5, 2 * a, a - b, b / a, -a, abs(a), a ** 2, a > 3, a == b,
           i + 100, i - (-7), 3 - i, i * True, u + 7, u + (1 << 63),
           u + (1 << 62), a * float("nan"), a + -0.0, cp.sqrt(a), cp.add(a, b)]
    c = a.copy()
    c += 1.0
    c *= b
    i += 1
    out += [c, i]
    try:
        i + 1000  # (NEP 50: no int8; the general path raises NumPy's error)
    except OverflowError:
        pass
    return out


def _records(cp, monkeypatch) -> tuple[list, list]:
    """The program's operators' records as they go on the wire, and the values."""
    from gpushare import client
    sent: list = []
    send = client.Session._send_batch

    def capture(self, calls, info, frames, drain=True):
        sent.extend(c if type(c) is bytes else msgpack.packb(list(c)) for c in calls)
        return send(self, calls, info, frames, drain)
    monkeypatch.setattr(client.Session, "_send_batch", capture)
    client.reset_session()
    values = [v.get() for v in _program(cp)]
    monkeypatch.setattr(client.Session, "_send_batch", send)
    # records are arrays of 6; a packed general call is an array of 7
    return [r for r in sent if r[:1] == b"\x96"], values


@pytest.mark.skipif(ACCEL_OFF, reason="GPUSHARE_ACCEL=0")
def test_the_c_path_queues_the_python_paths_records_byte_for_byte(cp, monkeypatch):
    from gpushare.cupy import _ufunc
    c_records, c_values = _records(cp, monkeypatch)
    _ufunc._accel.enable(False)
    try:
        py_records, py_values = _records(cp, monkeypatch)
    finally:
        _ufunc._accel.enable(True)
    assert len(c_records) >= 20
    assert c_records == py_records
    for got, expected in zip(c_values, py_values):
        assert got.dtype == expected.dtype
        numpy.testing.assert_array_equal(got, expected)


def test_a_dead_proxy_is_released_at_once(cp, op_path):
    """``ndarray.__del__`` (C or Python): the release is queued and the proxy table
    forgets the id, whatever made the proxy."""
    x = cp.arange(4, dtype=cp.float64)
    s = x._gs_session
    with s._lock:  # (the idle flush waits: the queue holds still)
        made = [x + 1.0, cp.exp(x), x.reshape(2, 2)]
        ids = [m._gs_id for m in made]
        assert all(hid in s.proxies.refs for hid in ids)
        del made
        queued = {hid for _, hid in s._release}
        assert set(ids) <= queued
        assert not set(ids) & set(s.proxies.refs)
    assert x.get().tolist() == [0.0, 1.0, 2.0, 3.0]


def test_another_thread_holding_the_lock_sends_the_operator_the_python_way(cp, op_path):
    """The C path never waits for the session's lock: while another thread holds it,
    an operator takes the Python path (which waits) and still gives the answer."""
    import threading
    x = cp.arange(3, dtype=cp.float64)
    s = x._gs_session
    held, go = threading.Event(), threading.Event()

    def hold() -> None:
        with s._lock:
            held.set()
            go.wait(30)
    t = threading.Thread(target=hold)
    t.start()
    assert held.wait(30)
    result: list = []
    worker = threading.Thread(target=lambda: result.append(x * 3.0))
    worker.start()
    worker.join(0.2)  # (it waits on the lock: the Python path, as it should)
    go.set()
    worker.join(30)
    t.join(30)
    assert result and result[0].get().tolist() == [0.0, 3.0, 6.0]


def test_operands_of_two_sessions_take_the_general_path(server, monkeypatch):
    """Arrays of different sessions: declined by the fast path (either), and the
    general path says what CuPy's would of arrays on two devices."""
    from gpushare import client
    monkeypatch.setenv("GPUSHARE_SERVER", server.address)
    client.reset_session()
    import gpushare.cupy as cp
    a = cp.arange(3.0)
    other = client.Session(server.address)
    try:
        b = cp.ndarray.__new__(cp.ndarray)
        assert cp.add._fast2(a, a) is not None
        b._gs_session = other
        b._gs_id, b._shape, b._dtype = a._gs_id, a._shape, a._dtype
        assert cp.add._fast2(a, b) is None
    finally:
        b._gs_session = None
        other.close()
        client.reset_session()
