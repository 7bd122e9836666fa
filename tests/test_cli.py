"""The commands and activation paths a user runs, each in a fresh interpreter."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from _servers import ServerProcess, run_python

pytestmark = pytest.mark.timeout(120)

PROGRAM = textwrap.dedent("""
    import sys
    import cupy
    import cupyx
    from cupy.fft.config import get_plan_cache  # (config: an object, not a module)
    assert get_plan_cache().get_size() >= -1
    x = cupy.arange(10, dtype=cupy.float32)
    y = (x * 2).sum()
    print(cupy.__spec__.name, cupy.__name__, type(x).__module__, float(y), sys.argv[1:])
""")


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(PROGRAM)
    return path


def _env_without_server():
    env = dict(os.environ)
    env.pop("GPUSHARE_SERVER", None)
    return env


def test_plain_import_cupy_with_gpushare_server(server, program):
    out = run_python("", env={"GPUSHARE_SERVER": server.address},
                     args=[str(program), "a", "b"])
    assert out.returncode == 0, out.stderr
    # gpushare's cupy, which names itself and its arrays as CuPy does
    assert out.stdout.split() == ["gpushare.cupy", "cupy", "cupy", "90.0", "['a',", "'b']"]


def test_hook_costs_nothing_without_gpushare_server():
    env = _env_without_server()
    out = subprocess.run([sys.executable, "-c",
                          "import sys; print([m for m in sys.modules if m.split('.')[0] in ('gpushare', 'cupy')])"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "[]"


def test_gpushare_run_with_server(server, program):
    out = subprocess.run([sys.executable, "-m", "gpushare", "run", "--server", server.address,
                          str(program), "x"], capture_output=True, text=True, timeout=60,
                         env=_env_without_server())
    assert out.returncode == 0, out.stderr
    assert "90.0" in out.stdout and "['x']" in out.stdout


def test_gpushare_run_module(server, tmp_path):
    (tmp_path / "mymod.py").write_text(PROGRAM)
    env = {**_env_without_server(), "PYTHONPATH": str(tmp_path) + os.pathsep +
           os.environ.get("PYTHONPATH", ""), "GPUSHARE_SERVER": server.address}
    out = subprocess.run([sys.executable, "-m", "gpushare", "run", "-m", "mymod", "q"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert "90.0" in out.stdout and "['q']" in out.stdout


def test_embedded_default_server(program):
    env = _env_without_server()
    env["GPUSHARE_BACKEND"] = os.environ.get("GPUSHARE_TEST_BACKEND", "cpu")
    out = subprocess.run([sys.executable, "-m", "gpushare", "run", str(program)],
                         capture_output=True, text=True, timeout=90, env=env)
    assert out.returncode == 0, out.stderr
    assert "90.0" in out.stdout
    out = subprocess.run([sys.executable, "-c", "import gpushare.cupy as cp; "
                          "print(int(cp.arange(5).sum()))"], capture_output=True, text=True,
                         timeout=90, env=env)
    assert out.stdout.strip() == "10", out.stderr


def _short_tmpdir():
    """A private TMPDIR short enough for ipc socket paths (108 bytes at most)."""
    import tempfile
    return tempfile.mkdtemp(prefix="gs-", dir="/tmp" if os.path.isdir("/tmp") else None)


def test_the_embedded_server_leaves_no_files_behind(program):
    """Each run of a program made a ``gpushare-embedded-*`` directory, holding the
    server's and its workers' socket files, and left it (libzmq does not remove an ipc
    endpoint's file when its socket closes): /tmp filled with one per run."""
    import shutil
    tmp = _short_tmpdir()
    try:
        env = {**_env_without_server(), "TMPDIR": tmp,
               "GPUSHARE_BACKEND": os.environ.get("GPUSHARE_TEST_BACKEND", "cpu")}
        out = subprocess.run([sys.executable, "-m", "gpushare", "run", str(program)],
                             capture_output=True, text=True, timeout=90, env=env)
        assert out.returncode == 0, out.stderr
        assert "90.0" in out.stdout
        assert os.listdir(tmp) == []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_the_embedded_server_of_a_killed_program_leaves_no_files_behind():
    """A program killed outright cannot remove the embedded server's directory; the
    server, which stops when its parent is gone, removes it once empty."""
    import shutil
    from _servers import wait_for
    tmp = _short_tmpdir()
    try:
        env = {**_env_without_server(), "TMPDIR": tmp,
               "GPUSHARE_BACKEND": os.environ.get("GPUSHARE_TEST_BACKEND", "cpu")}
        code = ("import os, signal, gpushare.cupy as cp\n"
                "print(int(cp.arange(4).sum()), flush=True)\n"
                "os.kill(os.getpid(), signal.SIGKILL)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=90, env=env)
        assert out.stdout.strip() == "6", out.stderr
        wait_for(lambda: os.listdir(tmp) == [], timeout=30)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_an_ipc_server_removes_its_socket_files_as_it_stops():
    """``serve --bind ipc://DIR/NAME``: the server's socket file, those of its
    workers' direct paths (beside it) and its private directory go when it stops."""
    import shutil
    import signal
    tmp = _short_tmpdir()
    try:
        os.mkdir(os.path.join(tmp, "run"))
        address = f"ipc://{tmp}/run/gpushare"
        srv = ServerProcess(bind=address, env={"TMPDIR": tmp})
        try:
            # (waits enough to open the express connection: a Unix socket beside the
            # worker's, removed once connected)
            code = ("import gpushare.cupy as cp; x = cp.arange(6) * 2\n"
                    "for _ in range(12): float(x.sum())\n"
                    "print(int(x.sum()))")
            for _ in range(2):  # two sessions, so a worker that ended before is among them
                out = run_python(code, env={"GPUSHARE_SERVER": address})
                assert out.returncode == 0, out.stderr
                assert out.stdout.strip() == "30"
            assert any(name.startswith("gpushare-w") for name in os.listdir(f"{tmp}/run"))
        finally:
            srv.proc.send_signal(signal.SIGTERM)
            assert srv.proc.wait(30) == 0, srv.stderr_text()
        assert os.listdir(f"{tmp}/run") == []
        assert os.listdir(tmp) == ["run"]  # (the server's gpushare-* directory is gone)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_gpushare_run_is_python_for_the_program(server, tmp_path):
    """``gpushare run`` gives a program what ``python`` gives it: an absolute
    ``__file__`` with ``sys.argv[0]`` as typed, Python's words and exit codes for a
    program that is not there, and a traceback of the program's frames only (gpushare's
    and runpy's were shown above them) through ``sys.excepthook``."""
    (tmp_path / "prog.py").write_text(textwrap.dedent("""
        import sys
        import cupy
        print(__file__, sys.argv, __name__)
        def deep():
            raise ValueError(f"boom {int(cupy.arange(3).sum())}")
        deep()
    """))
    env = {**_env_without_server(), "GPUSHARE_SERVER": server.address}

    def run(*argv):
        return subprocess.run([sys.executable, "-m", "gpushare", "run", *argv],
                              capture_output=True, text=True, timeout=60, env=env,
                              cwd=tmp_path)

    out = run("prog.py", "x")
    assert out.returncode == 1
    assert out.stdout.split() == [str(tmp_path / "prog.py"), "['prog.py',", "'x']",
                                  "__main__"]
    frames = [line.strip() for line in out.stderr.splitlines()
              if line.strip().startswith("File ")]
    assert len(frames) == 2 and all(str(tmp_path / "prog.py") in f for f in frames), \
        out.stderr
    assert out.stderr.rstrip().endswith("ValueError: boom 3")
    out = run("missing.py")
    assert out.returncode == 2 and "can't open file" in out.stderr
    assert "Traceback" not in out.stderr
    out = run("-m", "no_such_module_here")
    assert out.returncode == 1
    assert out.stderr.strip() == "gpushare run: No module named no_such_module_here"


def test_the_users_files_do_not_stand_in_for_the_servers_modules(tmp_path):
    """A program run from its project directory, which holds a ``resource.py`` of its
    own: the embedded server and its workers do not import it instead of the standard
    module (``python -P``); the worker died at its start before."""
    (tmp_path / "resource.py").write_text("raise ImportError('the project file')\n")
    (tmp_path / "prog.py").write_text("import gpushare.cupy as cp\n"
                                      "print(float(cp.arange(4).sum()))\n")
    env = _env_without_server()
    env["GPUSHARE_BACKEND"] = os.environ.get("GPUSHARE_TEST_BACKEND", "cpu")
    out = subprocess.run([sys.executable, "-m", "gpushare", "run", "prog.py"],
                         capture_output=True, text=True, timeout=90, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "6.0"


def test_info_command(server):
    out = subprocess.run([sys.executable, "-m", "gpushare", "info", "--server", server.address,
                          "--json"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["backend"] in ("cpu", "cupy") and info["devices"]
    assert info["server_version"]
    text = subprocess.run([sys.executable, "-m", "gpushare", "info", "--server",
                           server.address], capture_output=True, text=True, timeout=60)
    assert "backend:" in text.stdout and "device 0" in text.stdout


def test_serve_exits_cleanly_on_sigterm_and_sigint():
    import signal
    for sig in (signal.SIGTERM, signal.SIGINT):
        srv = ServerProcess()
        srv.proc.send_signal(sig)
        assert srv.proc.wait(20) == 0


def test_serve_refuses_bad_backend_and_bad_address():
    out = subprocess.run([sys.executable, "-m", "gpushare", "serve", "--bind", "nonsense://x"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "cannot serve" in out.stderr
    # libzmq binds a port past 65535 modulo 65536 (99999 is 34463) without a word
    out = subprocess.run([sys.executable, "-m", "gpushare", "serve", "--bind",
                          "tcp://127.0.0.1:99999"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and "listening" not in out.stdout
    assert "port 99999 is out of range (0-65535)" in out.stderr


def test_unmodified_program_gives_the_same_answer_as_numpy(server, tmp_path):
    code = textwrap.dedent("""
        import numpy
        import cupy as cp
        rng = numpy.random.default_rng(0)
        a = rng.standard_normal((64, 64))
        b = rng.standard_normal(64)
        A = cp.asarray(a @ a.T + 64 * numpy.eye(64))
        B = cp.asarray(b)
        x = cp.zeros(64)
        r = B - A @ x
        p = r.copy()
        rs = float(r @ r)
        for _ in range(100):
            Ap = A @ p
            alpha = rs / float(p @ Ap)
            x += alpha * p
            r -= alpha * Ap
            new = float(r @ r)
            if new < 1e-20:
                break
            p = r + (new / rs) * p
            rs = new
        expect = numpy.linalg.solve(a @ a.T + 64 * numpy.eye(64), b)
        print(numpy.abs(cp.asnumpy(x) - expect).max() < 1e-8)
    """)
    out = run_python(code, env={"GPUSHARE_SERVER": server.address})
    assert out.stdout.strip() == "True", out.stderr


@pytest.mark.parametrize("value, expected, warns", [
    ("", 7.0, False), ("  ", 7.0, False), ("2.5", 2.5, False), (" 0 ", 0.0, False),
    ("ten", 7.0, True), ("5s", 7.0, True),
])
def test_numbers_from_the_environment(monkeypatch, value, expected, warns):
    """GPUSHARE_TIMEOUT and its kind: unset or empty means the default; a value that
    is no number says so and uses the default (it never ends the program)."""
    import warnings
    from gpushare.settings import env_float
    monkeypatch.setenv("GPUSHARE_TEST_NUMBER", value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert env_float("GPUSHARE_TEST_NUMBER", 7.0) == expected
    assert [str(w.message) for w in caught] == (
        [f"gpushare: GPUSHARE_TEST_NUMBER={value.strip()!r} is not a number; using 7"]
        if warns else [])
    monkeypatch.delenv("GPUSHARE_TEST_NUMBER")
    assert env_float("GPUSHARE_TEST_NUMBER", 7.0) == 7.0


def test_server_side_reaches_the_real_cupy_with_gpushare_server_set(server, tmp_path):
    """A server started from a shell with GPUSHARE_SERVER exported gets the hook from the
    .pth too: the CuPy backend undoes it, and the ``auto`` probe runs without it (else
    it would ask the other server, through gpushare, whether this machine has a GPU)."""
    fake = tmp_path / "cupy"
    fake.mkdir()
    (fake / "__init__.py").write_text("REAL = True\n")
    code = textwrap.dedent("""
        import sys
        import cupy
        print(cupy.__spec__.name)
        from gpushare import _hook
        _hook.uninstall()
        import cupy
        print(cupy.__spec__.name, getattr(cupy, "REAL", False))
        from gpushare_server.backends import resolve_backend_name
        print(resolve_backend_name("auto"))
    """)
    env = {**_env_without_server(), "GPUSHARE_SERVER": server.address,
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    env.pop("GPUSHARE_BACKEND", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=90, env=env)
    assert out.returncode == 0, out.stderr
    # the fake "real" CuPy has no cuda.runtime: the probe fails, so auto is cpu, not
    # cupy (the gpushare server it would have reached has a device)
    assert out.stdout.split("\n")[:3] == ["gpushare.cupy", "cupy True", "cpu"]


def test_the_main_job_runs_without_the_optional_kernel_emulator(tmp_path):
    """``pip install .`` has no cffi (the kernel emulator's, in the ``cpu`` extra): the
    README's main job runs on the embedded CPU server all the same, and a user kernel
    says what is missing."""
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "cffi.py").write_text("raise ImportError('No module named cffi')\n")
    # (the blocker first; then where gpushare itself may come from: an install by
    # ``pip --target`` and PYTHONPATH, as on the GPU box)
    path = os.pathsep.join(p for p in (str(blocked), os.environ.get("PYTHONPATH")) if p)
    env = {"PYTHONPATH": path, "GPUSHARE_SERVER": None, "GPUSHARE_BACKEND": "cpu"}
    out = run_python("", env=env, args=["-m", "gpushare", "run", "-m",
                                        "gpushare.examples.cg_solve"], timeout=180)
    assert out.returncode == 0 and out.stdout.strip().endswith("OK"), out.stderr[-2000:]
    code = textwrap.dedent("""
        import gpushare.cupy as cp
        assert float(cp.arange(4).sum()) == 6.0
        try:
            cp.RawKernel('extern "C" __global__ void f() {}', 'f').compile()
        except NotImplementedError as e:
            print("REFUSED", e)
        """)
    out = run_python(code, env=env, timeout=180)
    assert "REFUSED" in out.stdout and "gpushare[cpu]" in out.stdout, out.stderr[-2000:]


def test_a_server_serves_64_sessions_at_once_by_default(server):
    """Each session is a worker process (a CUDA context on a GPU): unless told
    otherwise (``--max-sessions 0``), a server does not let a client open them without
    end."""
    from gpushare.cli import DEFAULT_MAX_SESSIONS, query_status
    assert DEFAULT_MAX_SESSIONS == 64
    assert query_status(server.address, timeout=30, wait=0)["max_sessions"] == 64


@pytest.mark.parametrize("address", ["gpubox:5555", "tcp://127.0.0.1", "http://127.0.0.1:80",
                                     "tcp://127.0.0.1:99999"])
def test_an_address_that_is_none_is_said_at_once(address):
    """``GPUSHARE_SERVER=gpubox:5555`` (no scheme), a port left out, another scheme:
    ZeroMQ refuses to connect, and the failed start then hung in the context's
    ``term`` (the handshake's monitor socket was left open), for ever."""
    code = ("import cupy\n"
            "try:\n"
            "    cupy.arange(3)\n"
            "except ConnectionError as exc:\n"
            "    print(type(exc).__name__, exc)\n")
    out = run_python(code, env={"GPUSHARE_SERVER": address}, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"ServerUnavailableError gpushare: {address!r} is not a "
                                 "server address ("), out.stdout
    for command in ("status", "info"):
        out = subprocess.run([sys.executable, "-m", "gpushare", command, "--server", address],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 1
        assert out.stderr.startswith(f"gpushare: {address!r} is not a server address"), \
            out.stderr
