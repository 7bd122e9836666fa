"""Real CuPy programs, unchanged (``tests/programs/``: each checks its own answers
against NumPy and prints ``NAME OK``), run the way a user runs them: ``gpushare run
PROGRAM`` against a server."""
from pathlib import Path

import pytest

from _servers import run_python

PROGRAMS = sorted(p.name for p in (Path(__file__).parent / "programs").glob("*.py"))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", PROGRAMS)
def test_a_cupy_program_runs_unchanged(server, name):
    path = Path(__file__).parent / "programs" / name
    out = run_python("", env={"GPUSHARE_SERVER": server.address},
                     args=["-m", "gpushare", "run", str(path)], timeout=280)
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"{name[:-3]} OK" in out.stdout.splitlines(), (out.stdout, out.stderr[-3000:])
