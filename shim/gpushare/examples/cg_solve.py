"""An ordinary CuPy program: solve a symmetric positive definite system by conjugate
gradients, then check the answer against NumPy. Nothing in it knows about gpushare:

    gpushare run -m gpushare.examples.cg_solve          # embedded local server
    GPUSHARE_SERVER=tcp://gpubox:5555 python -m gpushare.examples.cg_solve
"""
import sys
import time

import numpy

import cupy as cp


def conjugate_gradient(A, b, tol=1e-10, max_iter=1000):
    x = cp.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = float(r @ r)
    for it in range(max_iter):
        Ap = A @ p
        alpha = rs / float(p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = float(r @ r)
        if rs_new < tol * tol:
            return x, it + 1
        p = r + (rs_new / rs) * p
        rs = rs_new
    return x, max_iter


def main(n=512):
    rng = numpy.random.default_rng(42)
    m = rng.standard_normal((n, n))
    a_host = m @ m.T + n * numpy.eye(n)
    b_host = rng.standard_normal(n)
    A = cp.asarray(a_host)
    b = cp.asarray(b_host)
    t0 = time.perf_counter()
    x, iters = conjugate_gradient(A, b)
    residual = float(cp.linalg.norm(A @ x - b))
    elapsed = time.perf_counter() - t0
    expect = numpy.linalg.solve(a_host, b_host)
    err = float(numpy.abs(cp.asnumpy(x) - expect).max())
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"]
    name = dev.decode() if isinstance(dev, bytes) else dev
    print(f"device: {name}")
    print(f"n={n}: converged in {iters} iterations, {elapsed:.3f} s, "
          f"residual {residual:.2e}, max error vs numpy {err:.2e}")
    ok = err < 1e-6
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 512))
