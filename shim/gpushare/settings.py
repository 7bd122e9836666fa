"""Numbers read from the environment (``GPUSHARE_TIMEOUT``, ``GPUSHARE_SPIN_US``...),
read the same way by the client, the command line and the server."""
from __future__ import annotations

import os
import warnings


def env_float(name: str, default: float) -> float:
    """The number in environment variable ``name``; ``default`` when it is unset or
    empty, and (with a warning that says so) when it is not a number."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return float(value)
    except ValueError:
        warnings.warn(f"gpushare: {name}={value!r} is not a number; using {default:g}",
                      RuntimeWarning, stacklevel=2)
        return default
