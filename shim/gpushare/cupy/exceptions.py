"""``cupy.exceptions``: NumPy's own exception classes, as in CuPy."""
from numpy.exceptions import (AxisError, ComplexWarning, ModuleDeprecationWarning,  # noqa: F401
                              RankWarning, TooHardError, VisibleDeprecationWarning)
import numpy  # noqa: E402,F401  (as in CuPy's cupy.exceptions)
