"""``cupy.cuda.driver``: driver errors raised on the server."""
from ...errors import CUDADriverError  # noqa: F401
