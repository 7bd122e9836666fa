"""gpushare's ``cupy``/``cupyx`` expose every public name of CuPy 14.2.

The reference list is ``shim/gpushare/cupy/_cupy_names.json`` (read off CuPy 14.2.0).
A name that gpushare cannot serve must still exist and raise a clear
``NotImplementedError`` when used, never answer silently and wrongly.
"""
from __future__ import annotations

import importlib
import inspect

import pytest

from gpushare.namespace import public_names

pytestmark = pytest.mark.timeout(120)

#: names in the reference list that are no API: ``from __future__ import annotations``
#: leaves ``annotations`` in every CuPy module, and Cython adds ``__pyx_vtable__``.
_ARTIFACTS = {"annotations", "__pyx_vtable__"}

_MODULES = sorted(m for m in public_names() if m != "cupy.ndarray")


def _proxy_module(name: str):
    """gpushare's module for CuPy's ``name`` (``cupy.fft`` -> ``gpushare.cupy.fft``)."""
    full = "gpushare." + name
    try:
        return importlib.import_module(full)
    except ImportError:
        parent, _, child = full.rpartition(".")
        return getattr(importlib.import_module(parent), child)


def test_reference_list_covers_the_main_modules():
    names = public_names()
    for module in ("cupy", "cupy.linalg", "cupy.fft", "cupy.random", "cupy.cuda",
                   "cupy.testing", "cupyx", "cupyx.scipy.special", "cupy.ndarray"):
        assert names.get(module), module
    assert len(names["cupy"]) > 400


@pytest.mark.parametrize("module", _MODULES)
def test_every_public_name_exists(cp, module):
    mod = _proxy_module(module)
    missing = []
    for name in public_names()[module]:
        if name in _ARTIFACTS:
            continue
        try:
            getattr(mod, name)
        except AttributeError:
            missing.append(name)
    assert not missing, f"{module} lacks {missing}"


@pytest.mark.parametrize("module", _MODULES)
def test_a_missing_name_is_reported_as_cupys_module_would(cp, module):
    """Python's words for a missing attribute name the module: CuPy's name, not
    gpushare's (``module 'cupy.linalg' has no attribute ...``)."""
    mod = _proxy_module(module)
    if not isinstance(mod, type(importlib)):
        pytest.skip(f"{module} is an object here (it takes CuPy's settings)")
    with pytest.raises(AttributeError) as info:
        getattr(mod, "no_such_name")
    assert str(info.value) == f"module '{module}' has no attribute 'no_such_name'"
    assert not hasattr(mod, "no_such_name")


@pytest.mark.parametrize("module", _MODULES)
def test_public_functions_pickle_as_themselves(cp, module):
    """Pickle finds a function again by its module and name (``multiprocessing``
    passes them so): each public function and ufunc of gpushare's modules comes back
    as itself, also where a factory made it (``import gpushare.cupy``, no hook)."""
    import pickle
    import types
    from gpushare.cupy._ufunc import ufunc
    mod = _proxy_module(module)
    failed = []
    for name in public_names()[module]:
        value = getattr(mod, name, None)
        if type(value) is types.FunctionType or isinstance(value, ufunc):
            try:
                if pickle.loads(pickle.dumps(value)) is not value:
                    failed.append(name)
            except (pickle.PicklingError, AttributeError, ImportError) as exc:
                failed.append(f"{name}: {exc}")
    assert not failed, f"{module}: {failed}"


def test_every_ndarray_member_exists(cp):
    missing = [n for n in public_names()["cupy.ndarray"]
               if n not in _ARTIFACTS and not hasattr(cp.ndarray, n)]
    assert not missing, f"cupy.ndarray lacks {missing}"


def test_kinds_match(cp):
    """Functions are callable, classes are classes, ufuncs are ufuncs, modules are
    modules: a name is not merely present."""
    wrong = []
    for module in _MODULES:
        mod = _proxy_module(module)
        for name, kind in public_names()[module].items():
            if name in _ARTIFACTS:
                continue
            value = getattr(mod, name)
            if kind == "function" and not callable(value):
                wrong.append((module, name, kind))
            elif kind == "class" and not inspect.isclass(value):
                wrong.append((module, name, kind))
            elif kind == "module" and not inspect.ismodule(value):
                wrong.append((module, name, kind))
            elif kind == "ufunc" and not isinstance(value, cp.ufunc):
                wrong.append((module, name, kind))
    assert not wrong, wrong


@pytest.mark.parametrize("path", [
    "cupy.cuda.runtime.streamCreate",
    "cupy.cuda.get_cublas_handle", "cupy.cuda.runtime.hostAlloc",
    "cupy.cuda.nvrtc.compileProgram",
])
def test_unservable_functions_raise_not_implemented(cp, path):
    module, _, name = path.rpartition(".")
    fn = getattr(_proxy_module(module), name)
    with pytest.raises(NotImplementedError, match="gpushare"):
        fn(0)


@pytest.mark.parametrize("path", [
    "cupy.cuda.ExternalStream",
    "cupy.cuda.memory_hooks.LineProfileHook",
])
def test_unservable_classes_raise_not_implemented(cp, path):
    module, _, name = path.rpartition(".")
    cls = getattr(_proxy_module(module), name)
    with pytest.raises(NotImplementedError, match="gpushare"):
        cls()


def test_served_stand_ins_answer(cp):
    """Names served on the client answer correctly rather than refusing."""
    import numpy
    ptr = cp.cuda.alloc(64)
    assert ptr.ptr != 0 and ptr.mem.size == 512  # (a pool block: 512-byte units)
    assert cp.cuda.cub.available is False
    cp.cuda.nvtx.RangePush("x")
    cp.cuda.nvtx.RangePop()
    assert cp.disable_experimental_feature_warning is False
    assert inspect.signature(cp.isscalar) == inspect.signature(numpy.isscalar)
    assert cp.isscalar.__doc__ and cp.isscalar.__doc__ is not numpy.isscalar.__doc__
    assert cp.typing.NDArray is not None
    p = cp.polynomial.polynomial.polyval(cp.arange(3.0), cp.array([1.0, 2.0]))
    assert p.get().tolist() == [1.0, 3.0, 5.0]
    res = __import__("gpushare.cupyx.profiler", fromlist=["benchmark"]).benchmark(
        lambda: cp.arange(3) + 1, n_repeat=3, n_warmup=1)
    assert res.cpu_times.shape == (3,) and res.gpu_times.shape == (1, 3)
    assert (res.gpu_times >= 0).all() and numpy.isfinite(res.gpu_times).all()  # server events


def test_the_server_reads_the_names_without_importing_the_client_proxies():
    """A worker checks each call's name against the list: reading it must not import
    ``gpushare.cupy`` (the client's proxy package: ~0.3 s, at the session's first call,
    which ``--max-call-seconds`` counts)."""
    import subprocess
    import sys
    code = ("import sys; from gpushare_server.backends import load_backend; "
            "from gpushare_server.session import SessionExecutor; "
            "ex = SessionExecutor(load_backend('cpu')); "
            "r = ex._run('call', 'cupy.ones', [(4,)], {'dtype': 'float32'}); "
            "assert r.tolist() == [1.0] * 4 and str(r.dtype) == 'float32', r; "
            "print(sorted(m for m in sys.modules if m.startswith('gpushare.cupy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
