"""``cupy.testing``: CuPy 14.2's own testing helpers (assertions, dtype loops,
``numpy_cupy_*`` decorators), vendored in ``gpushare.cupy._testing`` and running on
gpushare arrays (each assertion copies the arrays to the host).

See Also
--------
cupy.testing
"""
from __future__ import annotations

from ._testing import *  # noqa: F401,F403
from ._testing import _array, _loops, _parameterized  # noqa: F401
