"""Every measured system behind one interface (client side).

A system runs in a child process of the harness (see ``_child.py``). Each workload
method returns seconds of wall time, measured around the work only (setup is not
timed), or raises :class:`~benchmarks._util.Skip` / ``NotImplementedError`` when the
system has no such workload.

``small_ops(n, size)``  (a) ``n`` elementwise ops on a ``size``-element array issued
                        back to back, then one read of the result
``round_trips(n)``      (b) ``n`` synchronous round trips (``float(x.sum())``)
``upload(host)``        (c) host to device: copy ``host`` into the server's memory,
                        complete when the method returns
``download(nbytes)``    (c) device to host: fetch an ``nbytes`` array made beforehand
``matmul(n, iters)``    (d) ``b = a @ b`` ``iters`` times on ``n`` x ``n`` float32,
                        then one read
"""
from __future__ import annotations

import os
import struct
import sys
import tempfile
import time
from typing import Any

import numpy

from ._util import LineProcess, Skip, child_env, free_port, python

#: bytes of one raw ZeroMQ message in (a)/(b): about a gpushare call's size
ZMQ_PAYLOAD = 64


def _mm_host(n: int, seed: int = 0) -> numpy.ndarray:
    rng = numpy.random.default_rng(seed)
    return rng.random((n, n), dtype=numpy.float32) * numpy.float32(2.0 / n)


class System:
    """Base: a system measured by the harness."""

    #: key in the results
    name = ""
    #: ``floor``, ``peer``, ``gpushare`` or ``same_host`` (a peer's same-host path, set
    #: beside gpushare's: in the tables, not in the peer targets)
    kind = "peer"
    #: how it appears in the table
    label = ""
    #: the workloads it runs (None: every one)
    workloads: list[str] | None = None

    def __init__(self, cfg: dict) -> None:
        self.cfg = cfg
        self.backend = cfg.get("backend", "cpu")
        self.notes: list[str] = []

    def start(self) -> None:
        """Start servers and connect (timed as ``startup_s``)."""

    def stop(self) -> None:
        """Disconnect and stop every process started."""

    def small_ops(self, n: int, size: int) -> float:
        raise NotImplementedError

    def round_trips(self, n: int) -> float:
        raise NotImplementedError

    def upload(self, host: numpy.ndarray) -> float:
        raise NotImplementedError

    def download(self, nbytes: int) -> float:
        raise NotImplementedError

    def matmul(self, n: int, iters: int) -> float:
        raise NotImplementedError


# --- floors ------------------------------------------------------------------------------

class Local(System):
    """Local NumPy (``--backend cpu``) or local CuPy (``--backend cupy``): no network.

    Copies are ``numpy.copyto`` into a ready buffer (the ``memcpy`` floor) on the CPU,
    ``cupy.asarray`` / ``.get()`` on a GPU.
    """

    name, kind = "local", "floor"

    def start(self) -> None:
        if self.backend == "cupy":
            os.environ.pop("GPUSHARE_SERVER", None)
            try:
                import cupy
                cupy.zeros(1).sum()  # creates the context
            except Exception as exc:  # noqa: BLE001
                raise Skip(f"local CuPy is not usable: {exc}") from None
            self.xp = cupy
            self.label = "local CuPy"
        else:
            self.xp = numpy
            self.label = "local NumPy"

    def _sync(self) -> None:
        if self.xp is not numpy:
            self.xp.cuda.Device().synchronize()

    def small_ops(self, n: int, size: int) -> float:
        xp = self.xp
        x = xp.arange(size, dtype=xp.float32)
        float(x[0])
        t = time.perf_counter()
        for _ in range(n):
            x = x + 1.0
        float(x[0])
        return time.perf_counter() - t

    def round_trips(self, n: int) -> float:
        x = self.xp.arange(1000, dtype=self.xp.float32)
        t = time.perf_counter()
        for _ in range(n):
            float(x.sum())
        return time.perf_counter() - t

    def upload(self, host: numpy.ndarray) -> float:
        if self.xp is numpy:
            dst = numpy.ones_like(host)  # touched: page faults are not part of memcpy
            t = time.perf_counter()
            numpy.copyto(dst, host)
            return time.perf_counter() - t
        t = time.perf_counter()
        d = self.xp.asarray(host)
        self._sync()
        elapsed = time.perf_counter() - t
        del d
        return elapsed

    def download(self, nbytes: int) -> float:
        if self.xp is numpy:
            src = numpy.ones(nbytes, dtype=numpy.uint8)
            return self.upload(src)
        d = self.xp.ones(nbytes, dtype=numpy.uint8)
        self._sync()
        t = time.perf_counter()
        d.get()
        return time.perf_counter() - t

    def matmul(self, n: int, iters: int) -> float:
        xp = self.xp
        a = xp.asarray(_mm_host(n))
        b = a.copy()
        self._sync()
        t = time.perf_counter()
        for _ in range(iters):
            b = a @ b
        float(b[0, 0])
        return time.perf_counter() - t


class RawZmq(System):
    """pyzmq DEALER to an echo ROUTER in another process (``_servers.py zmq``).

    ``small_ops`` is the pipelined cost: ``n`` 64-byte messages sent back to back,
    then all ``n`` echoes received. ``upload``/``download`` send one frame one way.
    """

    name, kind, label = "zmq", "floor", "raw ZeroMQ"

    def start(self) -> None:
        import zmq
        port = free_port()
        self.server = LineProcess([python(), "-m", "benchmarks._servers", "zmq", str(port)])
        self.server.wait_for("listening", 30)
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.SNDHWM, 0)
        self.sock.setsockopt(zmq.RCVHWM, 0)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.connect(f"tcp://127.0.0.1:{port}")
        self.payload = b"x" * ZMQ_PAYLOAD
        self.round_trips(10)

    def stop(self) -> None:
        try:
            self.sock.close(0)
            self.ctx.term()
        finally:
            self.server.stop()

    def round_trips(self, n: int) -> float:
        sock, msg = self.sock, [b"e", self.payload]
        t = time.perf_counter()
        for _ in range(n):
            sock.send_multipart(msg)
            sock.recv_multipart()
        return time.perf_counter() - t

    def small_ops(self, n: int, size: int) -> float:
        sock, msg = self.sock, [b"e", self.payload]
        t = time.perf_counter()
        for _ in range(n):
            sock.send_multipart(msg)
        for _ in range(n):
            sock.recv_multipart()
        return time.perf_counter() - t

    def upload(self, host: numpy.ndarray) -> float:
        t = time.perf_counter()
        self.sock.send_multipart([b"s", memoryview(host)], copy=False)
        self.sock.recv_multipart()
        return time.perf_counter() - t

    def download(self, nbytes: int) -> float:
        t = time.perf_counter()
        self.sock.send_multipart([b"g", str(nbytes).encode()])
        frames = self.sock.recv_multipart(copy=False)
        elapsed = time.perf_counter() - t
        assert len(frames[0]) == nbytes
        return elapsed


class RawTcp(System):
    """A plain TCP socket to another process (``_servers.py tcp``), one way."""

    name, kind, label = "tcp", "floor", "raw TCP"

    def start(self) -> None:
        import socket
        port = free_port()
        self.server = LineProcess([python(), "-m", "benchmarks._servers", "tcp", str(port)])
        self.server.wait_for("listening", 30)
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def stop(self) -> None:
        try:
            self.sock.sendall(struct.pack(">cQ", b"Q", 0))
            self.sock.close()
        finally:
            self.server.stop()

    def upload(self, host: numpy.ndarray) -> float:
        t = time.perf_counter()
        self.sock.sendall(struct.pack(">cQ", b"S", host.nbytes))
        self.sock.sendall(memoryview(host).cast("B"))
        self.sock.recv(1)
        return time.perf_counter() - t

    def download(self, nbytes: int) -> float:
        dst = numpy.ones(nbytes, dtype=numpy.uint8)
        view = memoryview(dst)
        t = time.perf_counter()
        self.sock.sendall(struct.pack(">cQ", b"G", nbytes))
        got = 0
        while got < nbytes:
            n = self.sock.recv_into(view[got:])
            if not n:
                raise ConnectionError("server closed")
            got += n
        return time.perf_counter() - t


# --- gpushare ----------------------------------------------------------------------------

class Gpushare(System):
    """A real ``gpushare serve`` subprocess; the client is ``gpushare.cupy``."""

    name, kind, label = "gpushare", "gpushare", "gpushare"
    transport = "tcp"
    #: whether copies into new arrays are measured too (``upload_new``/``download_new``)
    new_arrays = True

    def server_args(self) -> list:
        """More arguments for ``gpushare serve``."""
        return []

    def start(self) -> None:
        self.tmpdir = tempfile.mkdtemp(prefix="gpushare-bench-")
        if self.transport == "ipc":
            address = f"ipc://{self.tmpdir}/server"
        else:
            address = f"tcp://127.0.0.1:{free_port()}"
        env = child_env({"GPUSHARE_LOG_LEVEL": "WARNING"})
        self.server = LineProcess([python(), "-m", "gpushare", "serve", "--bind", address,
                                   "--backend", self.backend, *self.server_args()], env=env)
        self.server.wait_for("listening", 90)
        os.environ["GPUSHARE_SERVER"] = address
        from gpushare import client
        client.reset_session()
        import gpushare.cupy as cp
        self.cp = cp
        self.session = client.get_session()
        float(cp.arange(10, dtype=cp.float32).sum())

    def stop(self) -> None:
        try:
            from gpushare import client
            client.reset_session()
        finally:
            self.server.stop()
            import shutil
            shutil.rmtree(self.tmpdir, ignore_errors=True)

    def small_ops(self, n: int, size: int) -> float:
        cp = self.cp
        x = cp.arange(size, dtype=cp.float32)
        float(x[0])
        t = time.perf_counter()
        for _ in range(n):
            x = x + 1.0
        float(x[0])
        return time.perf_counter() - t

    def round_trips(self, n: int) -> float:
        x = self.cp.arange(1000, dtype=self.cp.float32)
        float(x.sum())
        t = time.perf_counter()
        for _ in range(n):
            float(x.sum())
        return time.perf_counter() - t

    # Like the raw TCP floor (which receives into buffers that exist already), the
    # copies go into arrays that exist: ``set(host)`` into a device array,
    # ``get(out=host)`` into a host array. ``upload_new``/``download_new`` make new
    # arrays (``cupy.asarray``, ``get()``), which also pays the kernel's page faults
    # for the fresh memory: reported beside, for information.
    def upload(self, host: numpy.ndarray) -> float:
        d = self.cp.ones(host.shape, dtype=host.dtype)  # written: its memory is touched
        self.session.synchronize()
        t = time.perf_counter()
        d.set(host)
        self.session.synchronize()
        elapsed = time.perf_counter() - t
        del d
        return elapsed

    def download(self, nbytes: int) -> float:
        d = self.cp.ones(nbytes, dtype=self.cp.uint8)
        out = numpy.ones(nbytes, dtype=numpy.uint8)  # touched, like the floor's buffer
        self.session.synchronize()
        t = time.perf_counter()
        d.get(out=out)
        return time.perf_counter() - t

    def upload_new(self, host: numpy.ndarray) -> float:
        t = time.perf_counter()
        d = self.cp.asarray(host)
        self.session.synchronize()
        elapsed = time.perf_counter() - t
        del d
        return elapsed

    def download_new(self, nbytes: int) -> float:
        d = self.cp.ones(nbytes, dtype=self.cp.uint8)
        self.session.synchronize()
        t = time.perf_counter()
        d.get()
        return time.perf_counter() - t

    def matmul(self, n: int, iters: int) -> float:
        cp = self.cp
        a = cp.asarray(_mm_host(n))
        b = a.copy()
        self.session.synchronize()
        t = time.perf_counter()
        for _ in range(iters):
            b = a @ b
        float(b[0, 0])
        return time.perf_counter() - t


class GpushareCurve(Gpushare):
    """gpushare as a server on a network runs it: with keys, so every message is
    encrypted and authenticated (CurveZMQ). Round trips and copies, for information:
    what the default for a server beyond loopback costs against the plaintext path."""

    name, label = "gpushare_curve", "gpushare (tcp, CurveZMQ)"
    new_arrays = False

    def server_args(self) -> list:
        import subprocess
        keys = os.path.join(self.tmpdir, "keys")
        authorized = os.path.join(keys, "authorized")
        for who in ("server", "client"):
            subprocess.run([python(), "-m", "gpushare", "keygen", "--out", keys, who],
                           env=child_env(), check=True, capture_output=True, timeout=60)
        os.makedirs(authorized)
        os.replace(os.path.join(keys, "client.key"), os.path.join(authorized, "client.key"))
        os.environ["GPUSHARE_SERVER_KEY"] = os.path.join(keys, "server.key")
        os.environ["GPUSHARE_CLIENT_KEY"] = os.path.join(keys, "client.key_secret")
        return ["--server-key", os.path.join(keys, "server.key_secret"),
                "--authorized-keys", authorized]

    def small_ops(self, n: int, size: int) -> float:
        raise NotImplementedError

    def matmul(self, n: int, iters: int) -> float:
        raise NotImplementedError


class GpushareIpc(Gpushare):
    """gpushare bound to ``ipc://`` (same host): the copies only, against ``memcpy``.
    Copies of 1 MiB and more take the shared-memory ring (``gpushare/shm.py``), on by
    default over ``ipc://``; ``GPUSHARE_SHM=0`` in the harness's environment measures
    the streamed path instead.

    Like the ``memcpy`` floor (``numpy.copyto`` into a buffer that exists already), the
    copies go into arrays that exist already (see ``Gpushare.upload``)."""

    name, label = "gpushare_ipc", "gpushare (ipc://, shm)"
    transport = "ipc"

    def stop(self) -> None:
        moved = getattr(self.session, "shm_bytes", None) if getattr(self, "session", None) \
            else None
        if moved and (moved[0] or moved[1]):
            self.notes.append(f"gpushare (ipc://): copies of 1 MiB and more went through the "
                              f"shared-memory ring ({moved[0] / 2**20:.0f} MiB up, "
                              f"{moved[1] / 2**20:.0f} MiB down)")
        else:
            self.notes.append("gpushare (ipc://): no copy took the shared-memory ring "
                              "(GPUSHARE_SHM=0, or the server refused): streamed path")
        super().stop()

    def small_ops(self, n: int, size: int) -> float:
        raise NotImplementedError

    def round_trips(self, n: int) -> float:
        raise NotImplementedError

    def matmul(self, n: int, iters: int) -> float:
        raise NotImplementedError


# --- peers -------------------------------------------------------------------------------

class RayActor(System):
    """A Ray actor holding the arrays (``_peers.ArrayHolder``) on a second Ray node of
    this host (``ray.cluster_utils.Cluster``, the actor pinned there by a resource):
    arrays travel between the two nodes' object stores over loopback TCP (Ray's object
    manager), as they would to a Ray node beside a remote GPU. ``RayActorShm`` keeps
    the actor on the driver's own node instead."""

    name, label = "ray", "Ray actor"
    #: whether the actor lives on a node of its own (its copies a network path)
    two_nodes = True

    def start(self) -> None:
        try:
            import ray
        except ImportError as exc:
            raise Skip(f"ray is not installed ({exc}); pip install 'gpushare[bench]'")
        from ._peers import ArrayHolder
        self.ray = ray
        self.cluster: Any = None
        store = int(self.cfg.get("max_copy", 1 << 28) * 3 + (256 << 20))
        runtime_env = {"env_vars": {
            "PYTHONPATH": child_env()["PYTHONPATH"],
            # the same BLAS threads as every other system (the harness sets them)
            **{k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                          "MKL_NUM_THREADS") if k in os.environ}}}
        options: dict = {}
        if self.two_nodes:
            from ray.cluster_utils import Cluster
            self.cluster = Cluster(initialize_head=True, head_node_args={
                "num_cpus": 1, "object_store_memory": store, "include_dashboard": False})
            self.cluster.add_node(num_cpus=1, object_store_memory=store,
                                  resources={"array_server": 1})
            ray.init(address=self.cluster.address, log_to_driver=False,
                     logging_level="ERROR", runtime_env=runtime_env)
            options = {"resources": {"array_server": 1}}
        else:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                     object_store_memory=store, logging_level="ERROR",
                     runtime_env=runtime_env)
        self.actor = ray.remote(ArrayHolder).options(**options).remote(
            self.cfg.get("small_size", 1000), self.backend)
        ray.get(self.actor.read.remote())
        if self.two_nodes:
            here = ray.get_runtime_context().get_node_id()
            there = ray.get(self.actor.node_id.remote())
            if here == there:
                raise RuntimeError("the Ray actor runs on the driver's node")
            self.notes.append("the actor runs on a second Ray node of this host: arrays "
                              "travel between the nodes' object stores over loopback TCP")
        else:
            self.notes.append("Ray moves arrays through its shared-memory object store on "
                              "one host: its copies are not a network path")

    def stop(self) -> None:
        self.ray.shutdown()
        if self.cluster is not None:
            self.cluster.shutdown()

    def small_ops(self, n: int, size: int) -> float:
        ray, actor = self.ray, self.actor
        t = time.perf_counter()
        for _ in range(n):
            actor.add.remote(1.0)
        ray.get(actor.read.remote())
        return time.perf_counter() - t

    def round_trips(self, n: int) -> float:
        ray, actor = self.ray, self.actor
        t = time.perf_counter()
        for _ in range(n):
            ray.get(actor.sum.remote())
        return time.perf_counter() - t

    def upload(self, host: numpy.ndarray) -> float:
        t = time.perf_counter()
        self.ray.get(self.actor.put.remote(host))
        return time.perf_counter() - t

    def download(self, nbytes: int) -> float:
        self.ray.get(self.actor.prepare.remote(nbytes))
        t = time.perf_counter()
        out = self.ray.get(self.actor.get.remote())
        elapsed = time.perf_counter() - t
        assert out.nbytes == nbytes
        return elapsed

    def matmul(self, n: int, iters: int) -> float:
        ray, actor = self.ray, self.actor
        ray.get(actor.mm_init.remote(n))
        t = time.perf_counter()
        for _ in range(iters):
            actor.mm_step.remote()
        ray.get(actor.mm_read.remote())
        return time.perf_counter() - t


class RayActorShm(RayActor):
    """The Ray actor on the driver's own node: its copies go through Ray's shared-memory
    object store, to be set beside gpushare's same-host path (``ipc://``), not its
    network one. Copies only."""

    name, kind, label = "ray_shm", "same_host", "Ray actor (one node, shm)"
    two_nodes = False
    workloads = ["copies"]


class TorchRpc(System):
    """``torch.distributed.rpc``: an RRef to a ``_peers.TorchHolder`` on another
    process (TensorPipe over TCP)."""

    name, label = "torch_rpc", "PyTorch RPC"

    def start(self) -> None:
        try:
            import torch
            from torch.distributed import rpc
        except ImportError as exc:
            raise Skip(f"torch is not installed ({exc}); pip install 'gpushare[bench]'")
        if not rpc.is_available():
            raise Skip("this torch build has no torch.distributed.rpc")
        from ._peers import TorchHolder, torch_rpc_options
        self.torch, self.rpc = torch, rpc
        if self.backend == "cupy":
            self.notes.append("the CPU build of torch keeps its tensors in host memory")
        port = free_port()
        self.server = LineProcess([python(), "-m", "benchmarks._peers", "torch", str(port)])
        self.server.wait_for("starting", 60)
        rpc.init_rpc("client", rank=0, world_size=2,
                     rpc_backend_options=torch_rpc_options(port))
        self.server.wait_for("listening", 60)
        self.rref = rpc.remote("server", TorchHolder, args=(self.cfg.get("small_size", 1000),))
        self.p_async = self.rref.rpc_async()
        self.p_sync = self.rref.rpc_sync()
        self.p_sync.read()

    def stop(self) -> None:
        try:
            del self.p_async, self.p_sync, self.rref
            self.rpc.shutdown()
        finally:
            self.server.stop(30)

    def small_ops(self, n: int, size: int) -> float:
        p = self.p_async
        t = time.perf_counter()
        futures = [p.add(1.0) for _ in range(n)]
        self.torch.futures.wait_all(futures)
        self.p_sync.read()
        return time.perf_counter() - t

    def round_trips(self, n: int) -> float:
        p = self.p_sync
        t = time.perf_counter()
        for _ in range(n):
            p.sum()
        return time.perf_counter() - t

    def upload(self, host: numpy.ndarray) -> float:
        tensor = self.torch.from_numpy(host)
        t = time.perf_counter()
        self.p_sync.put(tensor)
        return time.perf_counter() - t

    def download(self, nbytes: int) -> float:
        self.p_sync.prepare(nbytes)
        t = time.perf_counter()
        out = self.p_sync.get().numpy()
        elapsed = time.perf_counter() - t
        assert out.nbytes == nbytes
        return elapsed

    def matmul(self, n: int, iters: int) -> float:
        self.p_sync.mm_init(n)
        p = self.p_async
        t = time.perf_counter()
        futures = [p.mm_step() for _ in range(iters)]  # noqa: F841 - kept alive
        self.torch.futures.wait_all(futures)
        self.p_sync.mm_read()
        return time.perf_counter() - t


class Rpyc(System):
    """rpyc to a ``ThreadedServer`` holding the arrays; ``rpyc.async_`` for (a)."""

    name, label = "rpyc", "rpyc"

    def start(self) -> None:
        try:
            import rpyc
        except ImportError as exc:
            raise Skip(f"rpyc is not installed ({exc}); pip install 'gpushare[bench]'")
        self.rpyc = rpyc
        port = free_port()
        self.server = LineProcess([python(), "-m", "benchmarks._peers", "rpyc", str(port),
                                   self.backend])
        self.server.wait_for("listening", 60)
        for _ in range(50):  # the listener may lag its message
            try:
                self.conn = rpyc.connect("127.0.0.1", port, config={
                    "sync_request_timeout": 600, "allow_pickle": False})
                break
            except OSError:
                time.sleep(0.1)
        self.root = self.conn.root
        self.root.init(self.cfg.get("small_size", 1000))
        self.notes.append("rpyc passes only bytes efficiently: arrays travel as "
                          "tobytes() copies")

    def stop(self) -> None:
        try:
            self.conn.close()
        finally:
            self.server.stop()

    def small_ops(self, n: int, size: int) -> float:
        add = self.rpyc.async_(self.root.add)
        t = time.perf_counter()
        for _ in range(n):
            add(1.0)
        self.root.read()
        return time.perf_counter() - t

    def round_trips(self, n: int) -> float:
        root = self.root
        t = time.perf_counter()
        for _ in range(n):
            root.sum()
        return time.perf_counter() - t

    def upload(self, host: numpy.ndarray) -> float:
        t = time.perf_counter()
        self.root.put(host.tobytes())
        return time.perf_counter() - t

    def download(self, nbytes: int) -> float:
        self.root.prepare(nbytes)
        t = time.perf_counter()
        out = numpy.frombuffer(self.root.get(), dtype=numpy.uint8)
        elapsed = time.perf_counter() - t
        assert out.nbytes == nbytes
        return elapsed

    def matmul(self, n: int, iters: int) -> float:
        self.root.mm_init(n)
        step = self.rpyc.async_(self.root.mm_step)
        t = time.perf_counter()
        for _ in range(iters):
            step()
        self.root.mm_read()
        return time.perf_counter() - t


SYSTEMS: dict[str, type[System]] = {cls.name: cls for cls in (
    Local, RawZmq, RawTcp, Gpushare, GpushareCurve, GpushareIpc, RayActor, RayActorShm,
    TorchRpc, Rpyc)}


def get(name: str) -> type[System]:
    try:
        return SYSTEMS[name]
    except KeyError:
        sys.exit(f"unknown system {name!r}; known: {', '.join(SYSTEMS)}")
