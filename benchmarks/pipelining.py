"""How often a realistic step waits: ``python -m benchmarks.pipelining [--steps N]``.

A PCA-and-clustering step of the kind users write (``mean(0)``, ``eigh``, ``norm`` along
an axis, ``argmin``, ``fftshift``, ``array_split``, ``diff``, ``einsum``, ``trace``,
then one ``float``) runs against the embedded server (or ``GPUSHARE_SERVER``); printed:
the synchronous calls (round trips the client waited for) per step, which pipelining
removes, and the time per step. A call the client cannot infer waits for the server:
this counts those, by kind.
"""
from __future__ import annotations

import argparse
import time
from collections import Counter


def step(cp, X):
    Xc = X - X.mean(0)
    cov = Xc.T @ Xc / (X.shape[0] - 1)
    w, v = cp.linalg.eigh(cov)
    P = Xc @ v[:, -3:]
    d = cp.linalg.norm(P[:, None, :] - P[:8][None], axis=2)
    onehot = (d.argmin(1)[:, None] == cp.arange(8)[None]).astype(cp.float32)
    cent = (onehot.T @ P) / cp.maximum(onehot.sum(0), 1)[:, None]
    Z = cp.fft.fftshift(cp.fft.rfft(P[:, 0]).real)
    s = sum(p.sum(0) for p in cp.array_split(P, 4))
    g = cp.diff(P[:, 1]).clip(-1, 1)
    r = cp.einsum("ij,ij->i", P, P)
    return float(cent.sum() + Z.sum() + s.sum() + g.sum() + r.sum() + w.sum() + cp.trace(cov))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pipelining")
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args(argv)
    import gpushare.cupy as cp
    from gpushare import client
    seen: Counter = Counter()
    original = client.Session.call

    def call(self, op, target, *rest, **kwargs):  # type: ignore[no-untyped-def]
        seen[(op, target)] += 1
        return original(self, op, target, *rest, **kwargs)
    client.Session.call = call  # type: ignore[method-assign]
    X = cp.random.RandomState(0).standard_normal((400, 16)).astype(cp.float32)
    step(cp, X)
    seen.clear()
    t = time.perf_counter()
    for _ in range(args.steps):
        value = step(cp, X)
    per = (time.perf_counter() - t) / args.steps
    print(f"{sum(seen.values()) / args.steps:.1f} synchronous calls per step, "
          f"{per * 1e3:.2f} ms per step (value {value:.4f})")
    for (op, target), n in seen.most_common():
        print(f"  {n / args.steps:5.1f}  {op} {target or ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
