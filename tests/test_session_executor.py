"""The worker's executor in-process (``session.py`` is sans-IO): paths a GPU takes that
the CPU backend does not, driven here with the CPU backend; and mangled batches."""
from __future__ import annotations

import random

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


def test_mangled_batches_get_a_reply_never_an_exception():
    """Headers and call streams with bytes changed at random (a malformed ``n``, a
    release list that is no list, a call whose result id is no id...): ``handle``
    answers each with a reply (``done``, or ``protocol_error`` saying what was wrong),
    never an exception, which the worker could only turn into a vaguer error."""
    rng = random.Random(3)
    packer = msgpack.Packer(use_bin_type=True)
    handle = msgpack.ExtType(1, b"\x01")
    calls = [[1, 1, "cupy.add", 1, 1.0, 100], [2, 1, "cupy.multiply", 100, 2.0, 101],
             [3, "call", "cupy.sum", [handle], {}, None, True],
             [4, "call", "cupy.reshape", [handle, 2, 2], {}, 102, False],
             [5, 4, "cupy.negative", 101, None, 103], [6, 9, "cupy.add", 1, 2, 1],
             [7, "method", "astype", [handle, "f8"], {}, 104, True]]
    kinds = set()
    for _ in range(1500):
        executor = SessionExecutor(CpuBackend())
        executor.handles.put(1, numpy.arange(4.0))
        batch = rng.sample(calls, rng.randint(1, len(calls)))
        header = {"t": "batch", "n": len(batch),
                  "release": [[rng.randint(0, 8), rng.choice([1, 7, 100, 101, 102])]
                              for _ in range(rng.randint(0, 4))]}
        if rng.random() < 0.3:
            header["ack"] = rng.randint(0, 8)
        frames = [bytearray(msgpack.packb(header)),
                  bytearray(b"".join(packer.pack(c) for c in batch))]
        for frame in frames:
            for _ in range(rng.randint(0, 3)):
                frame[rng.randrange(len(frame))] = rng.randrange(256)
        reply = msgpack.unpackb(executor.handle([bytes(f) for f in frames])[0],
                                strict_map_key=False)
        assert reply["t"] in ("done", "protocol_error")
        kinds.add(reply["t"])
    assert kinds == {"done", "protocol_error"}


def test_a_sticky_cuda_error_ends_the_worker_with_a_status_naming_it():
    """On a GPU a sticky error (an illegal address...) leaves the context unusable: the
    executor replies with the error and marks itself fatal, keeping CUDA's status; the
    worker then exits with the status that names it (``worker.fatal_exit_code``), so
    the broker tells the client that error rather than "exit code 3"."""
    from gpushare.errors import CUDARuntimeError
    from gpushare_server.worker import FATAL_ERROR, KERNEL_FAULTS, fatal_exit_code
    backend = CpuBackend()
    backend.is_fatal = lambda exc: isinstance(exc, CUDARuntimeError)  # (as CuPy's)

    def misaligned(*args):
        raise CUDARuntimeError(716, "cudaErrorMisalignedAddress: misaligned address")
    function = backend.function
    backend.function = lambda path: misaligned if path == "cupy.fail" else function(path)
    executor = SessionExecutor(backend)
    calls = msgpack.packb([1, "call", "cupy.fail", [], {}, None, True])
    reply = msgpack.unpackb(executor.handle(
        [msgpack.packb({"t": "batch", "n": 1}), calls])[0])
    assert reply["error"][0] == 1 and reply["error"][1][3] == 716
    assert executor.fatal_status == 716
    code = fatal_exit_code(executor.fatal_status)
    assert KERNEL_FAULTS[code] == (716, "cudaErrorMisalignedAddress: misaligned address")
    assert fatal_exit_code(None) == FATAL_ERROR and fatal_exit_code(999) == FATAL_ERROR
    assert len({s for s, _ in KERNEL_FAULTS.values()}) == len(KERNEL_FAULTS)
