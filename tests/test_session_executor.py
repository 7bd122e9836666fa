"""The worker's executor in-process (``session.py`` is sans-IO): paths a GPU takes that
the CPU backend does not, driven here with the CPU backend."""
from __future__ import annotations

import msgpack
import numpy
import pytest

from gpushare.protocol import CHUNK_BYTES
from gpushare_server.backends.cpu import CpuBackend
from gpushare_server.session import SessionExecutor


@pytest.mark.parametrize("nbytes", [CHUNK_BYTES * 3 + 40, CHUNK_BYTES * 2])
def test_chunked_download_copies_each_chunk_as_it_is_sent(nbytes):
    backend = CpuBackend()
    backend.chunked_download = True  # what the CuPy backend does
    reads = []
    read_bytes = backend.read_bytes
    backend.read_bytes = lambda arr, offset, out: (reads.append(offset),
                                                   read_bytes(arr, offset, out))[1]
    executor = SessionExecutor(backend)
    arr = numpy.random.default_rng(0).integers(0, 255, nbytes, dtype=numpy.uint8)
    arr = arr.view(numpy.float32).reshape(2, -1) if nbytes % 8 == 0 else arr
    descriptor = executor._run("download", None, [arr], {})
    assert descriptor["order"] == "C" and descriptor["nbytes"] == arr.nbytes
    assert tuple(descriptor["shape"]) == arr.shape and reads == []  # nothing copied yet
    out = numpy.empty(arr.nbytes, numpy.uint8)
    for n, (head, buf) in enumerate(executor.take_outbox()):
        assert len(reads) == n + 1  # this chunk was copied just now
        meta = msgpack.unpackb(head)
        assert meta["stream"] == descriptor["stream"]
        out[meta["offset"]:meta["offset"] + len(buf)] = buf
    assert reads == list(range(0, arr.nbytes, CHUNK_BYTES))
    assert out.tobytes() == arr.tobytes()


def test_fortran_and_strided_downloads_keep_the_host_copy_path():
    backend = CpuBackend()
    backend.chunked_download = True
    executor = SessionExecutor(backend)
    f = numpy.asfortranarray(numpy.arange(CHUNK_BYTES // 2, dtype=numpy.float64).reshape(-1, 4))
    descriptor = executor._run("download", None, [f], {})
    assert descriptor["order"] == "F"
    assert all(not callable(m) for m in executor.outbox)
