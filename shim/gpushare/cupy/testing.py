"""``cupy.testing``: NumPy's assertions, applied to arrays fetched from the server.

See Also
--------
cupy.testing
"""
from __future__ import annotations

from typing import Any

import numpy
import numpy.testing

from ._ndarray import ndarray


def _host(x: Any) -> Any:
    return x.get() if isinstance(x, ndarray) else x


def _wrap(name: str) -> Any:
    np_fn = getattr(numpy.testing, name)

    def check(*args: Any, **kwargs: Any) -> Any:
        return np_fn(*(_host(a) for a in args), **{k: _host(v) for k, v in kwargs.items()})
    check.__name__ = check.__qualname__ = name
    check.__doc__ = f"numpy.testing.{name} on host copies.\n\nSee Also\n--------\ncupy.testing.{name}"
    return check


assert_allclose = _wrap("assert_allclose")
assert_array_almost_equal = _wrap("assert_array_almost_equal")
assert_array_almost_equal_nulp = _wrap("assert_array_almost_equal_nulp")
assert_array_max_ulp = _wrap("assert_array_max_ulp")
assert_array_equal = _wrap("assert_array_equal")
assert_array_less = _wrap("assert_array_less")
assert_equal = _wrap("assert_equal")
assert_almost_equal = _wrap("assert_almost_equal")


def assert_array_list_equal(xlist: Any, ylist: Any, err_msg: str = "", verbose: bool = True) -> None:
    if len(xlist) != len(ylist):
        raise AssertionError(f"List size is different: {len(xlist)} != {len(ylist)}")
    for x, y in zip(xlist, ylist):
        numpy.testing.assert_array_equal(_host(x), _host(y), err_msg=err_msg, verbose=verbose)
