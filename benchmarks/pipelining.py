"""How often a realistic step waits: ``python -m benchmarks.pipelining [--steps N]``.

Two steps of the kind users write run against the embedded server (or
``GPUSHARE_SERVER``): a PCA-and-clustering step (``mean(0)``, ``eigh``, ``norm`` along
an axis, ``argmin``, ``fftshift``, ``array_split``, ``diff``, ``einsum``, ``trace``,
then one ``float``) and a data-summary step (``nan_to_num``, ``median``,
``percentile``, ``cov``, ``ptp``, ``digitize``, ``count_nonzero``, ``take_along_axis``,
``searchsorted``, ``quantile``, ``average``, ``isin``, ``matrix_power``,
``column_stack``, then one ``float``); for each, printed:
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


def stats_step(cp, X):
    """A data-summary step (robust scaling, covariance, histograms, ranks, quantiles),
    as users write it, then one ``float``."""
    X = cp.nan_to_num(X)
    med = cp.median(X, axis=0)
    lo, hi = cp.percentile(X, [5, 95], axis=0)
    Xn = (X - med) / (hi - lo + 1e-6)
    C = cp.cov(Xn, rowvar=False)
    spread = cp.ptp(Xn, axis=0)
    bins = cp.digitize(Xn[:, 0], cp.linspace(-3, 3, 9))
    counts = cp.count_nonzero(bins[:, None] == cp.arange(10)[None], axis=0)
    top = cp.take_along_axis(Xn, cp.argsort(Xn, axis=0)[-5:], axis=0)
    pos = cp.searchsorted(cp.sort(Xn[:, 1]), Xn[:5, 1])
    q = cp.quantile(Xn[:, 2], 0.5)
    w = cp.average(Xn, axis=0)
    sel = cp.isin(bins, cp.asarray([3, 4, 5]))
    P = cp.linalg.matrix_power(C / cp.trace(C), 3)
    feats = cp.column_stack((med, spread, w))
    return float(C.sum() + counts.sum() + top.sum() + pos.sum() + q + sel.sum() +
                 P.sum() + feats.sum())


STEPS = {"pca": step, "stats": stats_step}


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
    for name, fn in STEPS.items():
        fn(cp, X)
        seen.clear()
        t = time.perf_counter()
        for _ in range(args.steps):
            value = fn(cp, X)
        per = (time.perf_counter() - t) / args.steps
        print(f"{name}: {sum(seen.values()) / args.steps:.1f} synchronous calls per step, "
              f"{per * 1e3:.2f} ms per step (value {value:.4f})")
        for (op, target), n in seen.most_common():
            print(f"  {n / args.steps:5.1f}  {op} {target or ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
