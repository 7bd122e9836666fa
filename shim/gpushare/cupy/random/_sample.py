"""``cupy.random._sample``: uniform samples, integers, ``choice`` and ``multinomial``,
from the current device's global ``RandomState`` (CuPy's module layout)."""
from __future__ import annotations

from typing import Any

from . import _distributions, _generator


def rand(*size: Any, **kwarg: Any) -> Any:
    """Uniform random values over ``[0, 1)`` in an array of shape ``size``.

    See Also
    --------
    cupy.random.rand
    """
    dtype = kwarg.pop("dtype", float)
    if kwarg:
        raise TypeError("rand() got unexpected keyword arguments %s"
                        % ", ".join(kwarg.keys()))
    return random_sample(size=size, dtype=dtype)


def randn(*size: Any, **kwarg: Any) -> Any:
    """Standard normal random values in an array of shape ``size``.

    See Also
    --------
    cupy.random.randn
    """
    dtype = kwarg.pop("dtype", float)
    if kwarg:
        raise TypeError("randn() got unexpected keyword arguments %s"
                        % ", ".join(kwarg.keys()))
    return _distributions.normal(size=size, dtype=dtype)


def randint(low: Any, high: Any = None, size: Any = None, dtype: Any = "l") -> Any:
    """Integers drawn uniformly from ``[low, high)``.

    See Also
    --------
    cupy.random.randint
    """
    rs = _generator.get_random_state()
    return rs.randint(low, high, size, dtype)


def random_integers(low: Any, high: Any = None, size: Any = None) -> Any:
    """Integers drawn uniformly from ``[low, high]``.

    See Also
    --------
    cupy.random.random_integers
    """
    if high is None:
        high = low
        low = 1
    return randint(low, high + 1, size)


def random_sample(size: Any = None, dtype: Any = float) -> Any:
    """Uniform random values over ``[0, 1)``.

    See Also
    --------
    cupy.random.random_sample
    """
    rs = _generator.get_random_state()
    return rs.random_sample(size=size, dtype=dtype)


def choice(a: Any, size: Any = None, replace: Any = True, p: Any = None) -> Any:
    """Random values drawn from a 1-D array (or ``arange(a)``).

    See Also
    --------
    cupy.random.choice
    """
    rs = _generator.get_random_state()
    return rs.choice(a, size, replace, p)


def multinomial(n: Any, pvals: Any, size: Any = None) -> Any:
    """Counts drawn from the multinomial distribution, in an array of shape
    ``size + (len(pvals),)``.

    See Also
    --------
    cupy.random.multinomial
    """
    from .. import arange, bincount, zeros
    if size is None:
        m = 1
        size = ()
    elif isinstance(size, int):
        m = size
        size = (size,)
    else:
        size = tuple(size)
        m = 1
        for x in size:
            m *= x
    p = len(pvals)
    shape = size + (p,)
    if m * p == 0:
        return zeros(shape, "l")
    # CuPy draws n * m outcomes and counts them per trial; bincount does the counting
    xs = choice(p, p=pvals, size=n * m)
    trial = arange(n * m, dtype="l") // n
    return bincount(trial * p + xs, minlength=m * p).astype("l", copy=False).reshape(shape)
