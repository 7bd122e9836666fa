"""CuPy-fidelity items of session 30, each read in CuPy 14.2's source."""
from __future__ import annotations

import pickle

import pytest

pytestmark = pytest.mark.timeout(240)


def test_nvrtc_version_and_architectures_are_the_servers(cp):
    # cupy_backends/cuda/libs/nvrtc.pyx: getVersion() -> (major, minor),
    # getSupportedArchs() -> a tuple of ints; the CPU backend's CUDA is 12.0
    version = cp.cuda.nvrtc.getVersion()
    assert version == (12, 0)
    assert cp.cuda.runtime.runtimeGetVersion() == version[0] * 1000 + version[1] * 10
    archs = cp.cuda.nvrtc.getSupportedArchs()
    assert type(archs) is tuple and all(type(a) is int for a in archs)
    assert int(cp.cuda.Device().compute_capability) in archs


def test_nvrtc_error_is_cupys_class_and_words(cp):
    err = cp.cuda.nvrtc.NVRTCError(6)
    assert isinstance(err, RuntimeError)
    assert err.status == 6 and str(err) == "NVRTC_ERROR_COMPILATION (6)"
    assert type(err).__module__ == "cupy_backends.cuda.libs.nvrtc"
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is type(err) and again.status == 6 and str(again) == str(err)
    with pytest.raises(cp.cuda.nvrtc.NVRTCError, match=r"NVRTC_ERROR_INVALID_INPUT \(3\)"):
        cp.cuda.nvrtc.check_status(3)
    cp.cuda.nvrtc.check_status(0)
    # (the compiler's own functions stay on the server)
    with pytest.raises(NotImplementedError, match="gpushare"):
        cp.cuda.nvrtc.createProgram("", "k", [], [])


def test_an_nvrtc_error_crosses_the_wire_with_its_status():
    # what the cupy backend sends for CuPy's NVRTCError, and what the client raises
    from gpushare import errors

    class ServersNVRTCError(RuntimeError):  # (stands for cupy_backends' class)
        def __init__(self, status):
            self.status = status
            super().__init__(f"NVRTC_ERROR_INVALID_OPTION ({status})")

    info = errors.error_info(ServersNVRTCError(5),
                             {ServersNVRTCError: "cupy.cuda.nvrtc.NVRTCError"})
    exc = errors.build_error(info)
    assert type(exc) is errors.NVRTCError and exc.status == 5
    assert str(exc) == "NVRTC_ERROR_INVALID_OPTION (5)"
