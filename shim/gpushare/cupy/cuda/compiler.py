"""``cupy.cuda.compiler``: kernel compile errors raised on the server."""
from ...errors import CompileException  # noqa: F401
