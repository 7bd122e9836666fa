"""Child processes of a program that uses gpushare.

A program that forks (``os.fork``, ``multiprocessing``'s default start on Linux)
after using gpushare: the child shares the parent's sockets, express connection and
shared memory, so it must never speak on them. It gets what CuPy gives a child forked
after CUDA was initialised (``cudaErrorInitializationError`` at every call), and the
parent's session goes on unharmed. Before, the child's calls went out on the parent's
express connection and the parent's next answer was another's (a silent wrong value)."""
from __future__ import annotations

import textwrap

import pytest

from _servers import BACKEND, run_python

pytestmark = pytest.mark.timeout(120)

PARENT_USED_IT = textwrap.dedent("""
    import os, sys
    import cupy
    x = cupy.arange(10)
    for _ in range(40):  # (waits enough for the express connection to open)
        assert int(x.sum()) == 45
    pid = os.fork()
    if pid == 0:
        failures = []
        for what, attempt in [("op", lambda: x + 1), ("get", lambda: x.get()),
                              ("new", lambda: cupy.arange(3)),
                              ("sum", lambda: int(x.sum()))]:
            try:
                attempt()
                failures.append(what + " worked")
            except cupy.cuda.runtime.CUDARuntimeError as exc:
                if exc.status != 3 or str(exc) != (
                        "cudaErrorInitializationError: initialization error"):
                    failures.append(f"{what}: {exc.status} {exc}")
        print("child", failures or "ok", flush=True)
        sys.exit(0)  # (atexit runs: it must not end the parent's session)
    assert os.waitpid(pid, 0)[1] == 0
    y = x * 3
    for _ in range(40):
        assert int(y.sum()) == 135
    assert (x + 1).get().tolist() == list(range(1, 11))
    print("parent ok", flush=True)
""")


def test_a_forked_child_gets_cudas_error_and_the_parent_goes_on(server):
    out = run_python(PARENT_USED_IT, env={"GPUSHARE_SERVER": server.address}, timeout=100)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split("\n")[:2] == ["child ok", "parent ok"], out.stdout


def test_the_embedded_server_outlives_a_forked_childs_exit():
    """The embedded server is the parent's: a child's exit (its atexit) stopped it and
    removed its directory."""
    code = PARENT_USED_IT.replace("import cupy", "import gpushare.cupy as cupy")
    out = run_python(code, env={"GPUSHARE_SERVER": None, "GPUSHARE_BACKEND": BACKEND},
                     timeout=100)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split("\n")[:2] == ["child ok", "parent ok"], out.stdout


def test_a_child_of_a_process_that_never_used_gpushare_has_its_own_session(server):
    code = textwrap.dedent("""
        import multiprocessing
        import cupy

        def work(n):
            return int(cupy.arange(n).sum())

        if __name__ == "__main__":
            with multiprocessing.get_context("fork").Pool(2) as pool:
                print(pool.map(work, [4, 5, 6]))
            print(int(cupy.arange(7).sum()))
    """)
    out = run_python(code, env={"GPUSHARE_SERVER": server.address}, timeout=100)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["[6,", "10,", "15]", "21"]


def test_gpushare_runs_children_import_its_cupy_and_share_its_server(tmp_path):
    """``gpushare run`` with the embedded server: a ``multiprocessing`` worker started
    by ``spawn`` (the default on macOS and Windows, ``forkserver`` from Python 3.14)
    and a plain subprocess say ``import cupy`` too. They failed there (no CuPy on this
    machine: the hook was this process's only); now they get gpushare's, and once the
    program has started the embedded server, they share it."""
    (tmp_path / "prog.py").write_text(textwrap.dedent("""
        import multiprocessing, os, subprocess, sys
        import cupy

        def work(n):
            return int(cupy.arange(n).sum()), os.environ.get("GPUSHARE_SERVER")

        if __name__ == "__main__":
            spawn = multiprocessing.get_context("spawn")
            with spawn.Pool(1) as pool:  # before the program's first call
                early = pool.map(work, [4])
            x = cupy.arange(5)
            address = os.environ["GPUSHARE_SERVER"]
            with spawn.Pool(2) as pool:
                late = pool.map(work, [5, 6])
            child = subprocess.run([sys.executable, "-c",
                                    "import cupy; print(int(cupy.ones(3).sum()))"],
                                   capture_output=True, text=True, timeout=60)
            print(early[0][0], [n for n, _ in late], {a for _, a in late} == {address},
                  child.stdout.strip() or child.stderr, int(x.sum()))
    """))
    env = {"GPUSHARE_SERVER": None, "GPUSHARE_HOOK": None, "GPUSHARE_BACKEND": BACKEND}
    out = run_python("", env=env, args=["-m", "gpushare", "run", str(tmp_path / "prog.py")],
                     timeout=110)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "6 [10, 15] True 3 10", out.stdout
