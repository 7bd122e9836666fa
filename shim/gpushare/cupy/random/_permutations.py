"""``cupy.random._permutations``: ``shuffle`` and ``permutation`` with the current
device's global ``RandomState``."""
from __future__ import annotations

from typing import Any

from . import _generator


def shuffle(a: Any) -> None:
    """Shuffle an array in place along its first axis.

    See Also
    --------
    cupy.random.shuffle
    """
    rs = _generator.get_random_state()
    return rs.shuffle(a)


def permutation(a: Any) -> Any:
    """A permuted range, or a permuted copy of an array.

    See Also
    --------
    cupy.random.permutation
    """
    rs = _generator.get_random_state()
    return rs.permutation(a)
