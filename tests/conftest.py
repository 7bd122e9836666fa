"""Shared fixtures: real gpushare servers in subprocesses on random ports.

``GPUSHARE_TEST_BACKEND`` picks the server backend (``cpu`` by default; ``cupy`` on a
GPU machine). Every server is stopped by its fixture's finalizer.
"""
from __future__ import annotations

from typing import Iterator

import pytest

from _servers import BACKEND, ServerProcess, free_port, run_python  # noqa: F401


@pytest.fixture(scope="session")
def server() -> Iterator[ServerProcess]:
    srv = ServerProcess()
    yield srv
    srv.stop()


@pytest.fixture
def fresh_server() -> Iterator[ServerProcess]:
    srv = ServerProcess()
    yield srv
    srv.stop()


@pytest.fixture
def cp(server: ServerProcess, monkeypatch: pytest.MonkeyPatch):
    """``gpushare.cupy`` connected to the session-wide test server (a new session each
    test)."""
    from gpushare import client
    monkeypatch.setenv("GPUSHARE_SERVER", server.address)
    client.reset_session()
    import gpushare.cupy as cupy
    yield cupy
    client.reset_session()


@pytest.fixture
def sp(cp):
    """``gpushare.cupyx.scipy.sparse`` on the ``cp`` fixture's session."""
    from gpushare.cupyx.scipy import sparse
    return sparse


@pytest.fixture
def synchronous_calls(cp, monkeypatch):
    """A list that records every call the client waits for (``Session.call``)."""
    from gpushare import client
    seen: list = []
    original = client.Session.call

    def call(self, op, target, *args, **kwargs):
        seen.append((op, target))
        return original(self, op, target, *args, **kwargs)
    monkeypatch.setattr(client.Session, "call", call)
    return seen


@pytest.fixture(params=["c", "python"])
def op_path(request: pytest.FixtureRequest) -> Iterator[str]:
    """The operators' fast path in C (``gpushare/_accel.c``) or in Python (the same
    rules, ``gpushare/cupy/_ufunc.py``): a test using this runs both."""
    from gpushare.cupy import _ufunc
    accel = _ufunc._accel
    if accel is None:
        if request.param == "c":
            pytest.skip("gpushare._accel is off (GPUSHARE_ACCEL=0)")
        yield request.param
        return
    accel.enable(request.param == "c")
    try:
        yield request.param
    finally:
        accel.enable(True)
