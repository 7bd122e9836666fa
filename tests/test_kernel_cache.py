"""Kernel source travels once per *server*, not once per session (content-hash cache on
both sides; ``gpushare/cupy/_kernels.py`` and ``gpushare_server/kernels/remote.py``).

The servers here run with ``TMPDIR`` pointing at a test directory, so the broker's
private temp dir, and the kernel directory in it, can be inspected.
"""
from __future__ import annotations

import glob
import hashlib
import os
import stat
from typing import Iterator

import numpy
import pytest

from _servers import ServerProcess, run_python

pytestmark = pytest.mark.timeout(240)

EK_OP = "y = x * 3 + 1; /* kcache-ek */"
RAW_SRC = ('extern "C" __global__ void kcache_inc(float* a) '
           '{ a[threadIdx.x] += 2.0f; /* kcache-raw */ }')
RED_ARGS = ("T x", "T y", "x * x", "a + b", "y = a", "0", "kcache_sumsq")


class _KServer:
    def __init__(self, tmp: str) -> None:
        self.tmp = tmp
        self.proc = ServerProcess(env={"TMPDIR": tmp})
        self.address = self.proc.address

    def kernel_dir(self) -> str:
        found = glob.glob(os.path.join(self.tmp, "gpushare-*", "kernels"))
        assert len(found) == 1, found
        return found[0]

    def entries(self) -> list[str]:
        return sorted(os.listdir(self.kernel_dir()))


@pytest.fixture
def kserver(tmp_path) -> Iterator[_KServer]:
    srv = _KServer(str(tmp_path))
    yield srv
    srv.proc.stop()


@pytest.fixture
def kcp(kserver, monkeypatch):
    """``gpushare.cupy`` connected to ``kserver``; ``sent`` records every message the
    client sends for its sessions (calls and data)."""
    from gpushare import client
    monkeypatch.setenv("GPUSHARE_SERVER", kserver.address)
    client.reset_session()
    sent: list[bytes] = []
    real = client.Session._send_data

    def spy(self, frames):
        sent.append(b"".join(bytes(f) for f in frames))
        return real(self, frames)
    monkeypatch.setattr(client.Session, "_send_data", spy)
    import gpushare.cupy as cupy
    cupy.sent = sent  # type: ignore[attr-defined]
    yield cupy
    del cupy.sent  # type: ignore[attr-defined]
    client.reset_session()


def _times_sent(sent: list[bytes], marker: bytes) -> int:
    return sum(m.count(marker) for m in sent)


def _use_kernels(cp) -> None:
    """Construct the three kernels (twice) and check what they compute."""
    x = cp.arange(4, dtype=cp.float32)
    for _ in range(2):
        ek = cp.ElementwiseKernel("T x", "T y", EK_OP, "kcache_ek")
        assert ek(x).get().tolist() == [1, 4, 7, 10]
        raw = cp.RawKernel(RAW_SRC, "kcache_inc")
        a = cp.zeros(4, dtype=cp.float32)
        raw((1,), (4,), (a,))
        raw((1,), (4,), (a,))
        assert a.get().tolist() == [4, 4, 4, 4]
        red = cp.ReductionKernel(*RED_ARGS)
        assert float(red(x)) == 14.0


def test_second_session_sends_hashes_only(kcp, kserver) -> None:
    from gpushare import client
    cp = kcp
    s1 = client.get_session()
    server_id = s1.info.get("server_id")
    assert isinstance(server_id, str) and server_id
    _use_kernels(cp)
    assert _times_sent(cp.sent, b"kcache-ek") == 1
    assert _times_sent(cp.sent, b"kcache-raw") == 1
    assert _times_sent(cp.sent, b"kcache_sumsq") == 1
    assert len(kserver.entries()) == 3

    client.reset_session()  # a new session, a new worker process, same server
    s2 = client.get_session()
    assert s2 is not s1 and s2.info["server_id"] == server_id
    del cp.sent[:]
    _use_kernels(cp)
    assert _times_sent(cp.sent, b"kcache-ek") == 0, "the server has the source"
    assert _times_sent(cp.sent, b"kcache-raw") == 0
    assert _times_sent(cp.sent, b"kcache_sumsq") == 0
    assert len(kserver.entries()) == 3


def test_without_server_id_knowledge_is_per_session(kcp) -> None:
    from gpushare import client
    cp = kcp
    _use_kernels(cp)
    client.reset_session()
    s = client.get_session()
    s.info.pop("server_id")  # as an older server's welcome
    del cp.sent[:]
    _use_kernels(cp)
    assert _times_sent(cp.sent, b"kcache-ek") == 1
    assert _times_sent(cp.sent, b"kcache-raw") == 1


def test_server_lost_the_source_client_resends_transparently(kcp, kserver) -> None:
    from gpushare import client
    cp = kcp
    _use_kernels(cp)
    entries = kserver.entries()
    assert len(entries) == 3
    kdir = kserver.kernel_dir()
    # one spec is gone (a cleaned directory), one is damaged (its content no longer
    # hashes to its name): neither may be used
    ek_file = [e for e in entries
               if b"kcache-ek" in open(os.path.join(kdir, e), "rb").read()][0]
    raw_file = [e for e in entries
                if b"kcache-raw" in open(os.path.join(kdir, e), "rb").read()][0]
    os.unlink(os.path.join(kdir, ek_file))
    path = os.path.join(kdir, raw_file)
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data.replace(b"+= 2.0f", b"+= 9.0f"))

    client.reset_session()
    del cp.sent[:]
    _use_kernels(cp)  # right results: the damaged file was not trusted
    assert _times_sent(cp.sent, b"kcache-ek") == 1, "sent again, once"
    assert _times_sent(cp.sent, b"kcache-raw") == 1
    assert _times_sent(cp.sent, b"kcache_sumsq") == 0
    assert ek_file in kserver.entries()
    # a later session finds the server knows them all again
    client.reset_session()
    del cp.sent[:]
    _use_kernels(cp)
    assert _times_sent(cp.sent, b"kcache-ek") == 0
    assert _times_sent(cp.sent, b"kcache-raw") == 0  # the damaged file was replaced
    assert _times_sent(cp.sent, b"kcache_sumsq") == 0
    assert len(kserver.entries()) == 3


CLIENT = r'''
import gpushare.cupy as cp
x = cp.arange(4, dtype=cp.float32)
ek = cp.ElementwiseKernel("T x", "T y", %r, "kcache_ek")
raw = cp.RawKernel(%r, "kcache_inc")
a = cp.zeros(4, dtype=cp.float32)
raw((1,), (4,), (a,))
red = cp.ReductionKernel(*%r)
print(ek(x).get().tolist(), a.get().tolist(), float(red(x)))
''' % (EK_OP, RAW_SRC, RED_ARGS)


def test_two_client_processes_share_one_entry_per_kernel(kserver) -> None:
    env = {"GPUSHARE_SERVER": kserver.address}
    for _ in range(2):
        r = run_python(CLIENT, env=env)
        assert r.returncode == 0, r.stderr
        assert r.stdout.split("\n")[0] == "[1.0, 4.0, 7.0, 10.0] [2.0, 2.0, 2.0, 2.0] 14.0"
    kdir = kserver.kernel_dir()
    assert stat.S_IMODE(os.stat(kdir).st_mode) == 0o700
    entries = kserver.entries()
    assert len(entries) == 3, entries  # one per distinct kernel, no temporary files
    for name in entries:
        data = open(os.path.join(kdir, name), "rb").read()
        assert hashlib.sha256(data).hexdigest() == name


# --- the server's table, without a server -----------------------------------------------
def test_make_kernel_stores_and_verifies(tmp_path, monkeypatch) -> None:
    from gpushare.cupy._kernels import _kernel_key
    from gpushare.errors import KernelUnknownError
    from gpushare_server.kernels import remote

    kdir = tmp_path / "kernels"
    monkeypatch.setenv("GPUSHARE_KERNEL_DIR", str(kdir))
    monkeypatch.setattr(remote, "_SPECS", {})
    made: list = []

    def factory(*args, **kwargs):
        made.append((args, kwargs))
        return ("kernel", args, kwargs)
    factories = {"RawKernel": factory}
    spec = [["code", "f"], {"options": ("-O3",), "jitify": False,
                            "n": numpy.int32(3)}]
    key = _kernel_key("RawKernel", spec)
    remote.make_kernel(factories, "RawKernel", key, spec)
    assert os.listdir(kdir) == [key]
    assert stat.S_IMODE(os.stat(kdir).st_mode) == 0o700
    remote._SPECS.clear()  # as a new worker process
    obj = remote.make_kernel(factories, "RawKernel", key)
    assert obj == ("kernel", ("code", "f"),
                   {"options": ("-O3",), "jitify": False, "n": numpy.int32(3)})
    with pytest.raises(KernelUnknownError):
        remote.make_kernel(factories, "RawKernel", "0" * 64)
    with pytest.raises(KernelUnknownError):  # not a content hash: no file is touched
        remote.make_kernel(factories, "RawKernel", "../" + key)
    # a spec sent under a key that is not its hash serves its own session only
    other = [["code2", "g"], {}]
    remote.make_kernel(factories, "RawKernel", "f" * 64, other)
    assert os.listdir(kdir) == [key]
    assert remote.make_kernel(factories, "RawKernel", "f" * 64)[1] == ("code2", "g")
    # another kind under a known key is not confused with it
    factories["ElementwiseKernel"] = factory
    remote._SPECS.clear()
    with pytest.raises(KernelUnknownError):
        remote.make_kernel(factories, "ElementwiseKernel", key)


def test_the_kernel_directory_is_bounded_per_server_and_per_session(tmp_path,
                                                                     monkeypatch) -> None:
    """Kernel sources stored for other sessions take at most GPUSHARE_KERNEL_DIR_MB on
    the server's disk, a quarter of it for one session: a tenant constructing kernels
    of padding cannot fill it (a kernel not stored is only sent again)."""
    from gpushare.cupy._kernels import _kernel_key
    from gpushare_server.kernels import remote

    kdir = tmp_path / "kernels"
    monkeypatch.setenv("GPUSHARE_KERNEL_DIR", str(kdir))
    monkeypatch.setenv("GPUSHARE_KERNEL_DIR_MB", "4")
    monkeypatch.setattr(remote, "_SPECS", {})
    monkeypatch.setattr(remote, "_stored", [0])
    factories = {"RawKernel": lambda *a, **k: ("kernel", a)}

    def construct(i: int, size: int) -> None:
        spec = [[f"// {i}\n" + "x" * size, "f"], {}]
        remote.make_kernel(factories, "RawKernel", _kernel_key("RawKernel", spec), spec)

    def held() -> int:
        return sum(p.stat().st_size for p in kdir.iterdir())
    for i in range(8):                       # 8 x 300 KB: a session stores up to 1 MB
        construct(i, 300_000)
    assert len(os.listdir(kdir)) == 3 and held() <= 1 << 20
    for session in range(6):                 # more sessions: the whole stays under 4 MB
        remote._stored[0] = 0
        for i in range(4):
            construct(100 * session + i + 10, 300_000)
    assert held() <= 4 << 20 and len(os.listdir(kdir)) == 13
    monkeypatch.setenv("GPUSHARE_KERNEL_DIR_MB", "1000")
    remote._stored[0] = 0
    construct(999, remote._MAX_FILE_BYTES)   # over the size of one file: not stored
    assert len(os.listdir(kdir)) == 13
    construct(998, 1000)                     # a kernel of real size still is
    assert len(os.listdir(kdir)) == 14


def test_the_specs_a_worker_keeps_are_bounded_in_bytes(tmp_path, monkeypatch) -> None:
    """A session's worker keeps the sources of the kernels its client constructed, the
    oldest dropped past ``_MAX_SPEC_BYTES`` (a dropped one is read from the kernel
    directory, or sent again): huge sources cannot grow it without end."""
    from gpushare.cupy._kernels import _kernel_key
    from gpushare_server.kernels import remote

    monkeypatch.setenv("GPUSHARE_KERNEL_DIR", str(tmp_path / "kernels"))
    monkeypatch.setattr(remote, "_SPECS", {})
    monkeypatch.setattr(remote, "_spec_total", [0])
    monkeypatch.setattr(remote, "_MAX_SPEC_BYTES", 1 << 20)
    factories = {"RawKernel": lambda *a, **k: ("kernel", a)}
    keys = []
    for i in range(10):
        spec = [[f"// {i}\n" + "x" * 300_000, "f"], {}]
        keys.append(_kernel_key("RawKernel", spec))
        remote.make_kernel(factories, "RawKernel", keys[-1], spec)
    held = sum(entry[3] for entry in remote._SPECS.values())
    assert len(remote._SPECS) == 3 and held == remote._spec_total[0] <= 1 << 20
    assert list(remote._SPECS) == keys[-3:]  # the newest kept
    # an old one is still made: from the kernel directory
    assert remote.make_kernel(factories, "RawKernel", keys[0])[1][0].startswith("// 0\n")
