"""``cupy.cuda.driver``: driver errors raised on the server."""
from ...errors import CUDADriverError  # noqa: F401

is_hip = False


def get_build_version() -> int:
    """The CUDA version the server's CuPy was built for (0 on the CPU backend).

    See Also
    --------
    cupy.cuda.driver.get_build_version
    """
    from ... import client
    return int(client.get_session().call("call", "cupy.cuda.driver.get_build_version", ()))


def _is_cuda_python() -> bool:
    """False: gpushare's CuPy is not built on the cuda-python bindings (CuPy's tests ask)."""
    return False
