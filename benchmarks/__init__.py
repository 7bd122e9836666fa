"""gpushare's benchmark harness: ``python -m benchmarks [--quick] [--backend cpu|cupy]``.

One run measures every system side by side -- the floors (raw ZeroMQ, raw TCP, local
NumPy or CuPy), the peers a user could pick instead (a Ray actor, PyTorch RPC, rpyc) and
gpushare itself -- on the same workloads, and writes ``results.json``, ``results.md``
and ``results.png`` into ``--out`` (default ``benchmarks/results/``).

Every system runs in its own child process (``python -m benchmarks._child``), so one
system's threads, imports and memory never weigh on another's figures. See
``docs/performance.md`` for what each figure means.
"""
from __future__ import annotations

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks (the ``python -m benchmarks`` entry point)."""
    from .run import main as _main
    return _main(argv)
