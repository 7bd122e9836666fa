"""The server side of the peers: an object holding arrays, served by Ray, PyTorch RPC
or rpyc. ``python -m benchmarks._peers rpyc|torch PORT [BACKEND]`` runs a server
process (Ray runs its actor in its own worker processes).

Each peer does the same work as gpushare: keep an array in the server's memory, add a
scalar to it, sum it, take host data in, hand it back, multiply matrices.
"""
from __future__ import annotations

import sys
from typing import Any

import numpy


def _xp(backend: str) -> Any:
    if backend == "cupy":
        import cupy
        return cupy
    return numpy


class ArrayHolder:
    """Arrays kept by a peer's server; NumPy (or CuPy with ``backend="cupy"``)."""

    def __init__(self, size: int, backend: str = "cpu") -> None:
        self.backend = backend
        self.xp = _xp(backend)
        self.x = self.xp.arange(size, dtype=numpy.float32)
        self.y: Any = None
        self.a: Any = None
        self.b: Any = None

    def _sync(self) -> None:
        if self.backend == "cupy":
            self.xp.cuda.Device().synchronize()

    def add(self, value: float) -> None:
        # a new array each time, like ``x = x + 1`` on the client
        self.x = self.x + value

    def node_id(self) -> str:
        """The Ray node this actor runs on (Ray only)."""
        import ray
        return ray.get_runtime_context().get_node_id()

    def read(self) -> float:
        return float(self.x[0])

    def sum(self) -> float:
        return float(self.x.sum())

    def put(self, data: Any) -> int:
        """Keep host data (device memory on the CuPy backend); return its size."""
        self.y = self.xp.asarray(data)
        self._sync()
        return int(self.y.nbytes)

    def prepare(self, nbytes: int) -> int:
        """Make an array of ``nbytes`` to be fetched by ``get``."""
        self.y = self.xp.ones(nbytes, dtype=numpy.uint8)
        self._sync()
        return nbytes

    def get(self) -> Any:
        return self.y.get() if self.backend == "cupy" else self.y

    def mm_init(self, n: int, seed: int = 0) -> None:
        rng = numpy.random.default_rng(seed)
        # scaled so that repeated products neither overflow nor vanish
        self.a = self.xp.asarray(rng.random((n, n), dtype=numpy.float32) * (2.0 / n))
        self.b = self.a.copy()
        self._sync()

    def mm_step(self) -> None:
        self.b = self.a @ self.b

    def mm_read(self) -> float:
        return float(self.b[0, 0])


class TorchHolder:
    """The same work on ``torch`` tensors (the CPU build): PyTorch RPC's natural unit."""

    def __init__(self, size: int) -> None:
        import torch
        self.torch = torch
        self.x = torch.arange(size, dtype=torch.float32)
        self.y: Any = None
        self.a: Any = None
        self.b: Any = None

    def add(self, value: float) -> None:
        self.x = self.x + value

    def read(self) -> float:
        return float(self.x[0])

    def sum(self) -> float:
        return float(self.x.sum())

    def put(self, tensor: Any) -> int:
        self.y = tensor
        return int(tensor.numel() * tensor.element_size())

    def prepare(self, nbytes: int) -> int:
        self.y = self.torch.ones(nbytes, dtype=self.torch.uint8)
        return nbytes

    def get(self) -> Any:
        return self.y

    def mm_init(self, n: int, seed: int = 0) -> None:
        rng = numpy.random.default_rng(seed)
        self.a = self.torch.from_numpy(rng.random((n, n), dtype=numpy.float32) * (2.0 / n))
        self.b = self.a.clone()

    def mm_step(self) -> None:
        self.b = self.a @ self.b

    def mm_read(self) -> float:
        return float(self.b[0, 0])


def torch_rpc_options(port: int) -> Any:
    """TensorPipe over TCP only: on one host TensorPipe would otherwise pick shared
    memory, and the comparison is about the network path."""
    from torch.distributed import rpc
    return rpc.TensorPipeRpcBackendOptions(init_method=f"tcp://127.0.0.1:{port}",
                                           num_worker_threads=4, rpc_timeout=600,
                                           _transports=["uv"], _channels=["basic"])


def torch_server(port: int) -> None:
    from torch.distributed import rpc
    print("starting", flush=True)
    rpc.init_rpc("server", rank=1, world_size=2, rpc_backend_options=torch_rpc_options(port))
    print("listening", flush=True)
    rpc.shutdown()  # returns once the client shut down too


def rpyc_server(port: int, backend: str) -> None:
    import rpyc
    from rpyc.utils.server import ThreadedServer

    class HolderService(rpyc.Service):
        """Plain values only (bytes, numbers): rpyc would pass a NumPy array by
        reference, one remote call per element."""

        def on_connect(self, conn: Any) -> None:
            self.holder = ArrayHolder(1, backend)

        def exposed_init(self, size: int) -> None:
            self.holder = ArrayHolder(size, backend)

        def exposed_add(self, value: float) -> None:
            self.holder.add(value)

        def exposed_read(self) -> float:
            return self.holder.read()

        def exposed_sum(self) -> float:
            return self.holder.sum()

        def exposed_put(self, data: bytes) -> int:
            return self.holder.put(numpy.frombuffer(data, dtype=numpy.uint8))

        def exposed_prepare(self, nbytes: int) -> int:
            return self.holder.prepare(nbytes)

        def exposed_get(self) -> bytes:
            return numpy.ascontiguousarray(self.holder.get()).tobytes()

        def exposed_mm_init(self, n: int) -> None:
            self.holder.mm_init(n)

        def exposed_mm_step(self) -> None:
            self.holder.mm_step()

        def exposed_mm_read(self) -> float:
            return self.holder.mm_read()

    server = ThreadedServer(HolderService, hostname="127.0.0.1", port=port,
                            protocol_config={"allow_pickle": False,
                                             "sync_request_timeout": 600})
    print("listening", flush=True)
    server.start()


if __name__ == "__main__":
    kind, port = sys.argv[1], int(sys.argv[2])
    backend = sys.argv[3] if len(sys.argv) > 3 else "cpu"
    if kind == "torch":
        torch_server(port)
    elif kind == "rpyc":
        rpyc_server(port, backend)
    else:
        raise SystemExit(f"unknown peer {kind!r}")
