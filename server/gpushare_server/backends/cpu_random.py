"""``cupy.random`` on the CPU backend: NumPy's generators behind CuPy's signatures.

CuPy's random functions take ``dtype=``, return 0-d arrays rather than scalars, and
accept only float32/float64 for continuous distributions. Values differ from CuPy's
(cuRAND) streams, as they would between GPUs models; distributions match.
"""
from __future__ import annotations

from typing import Any

import numpy

_FLOAT_TYPES = {None: numpy.float64}


class RandomState:
    """cupy.random.RandomState on the CPU: NumPy's generator with CuPy's signatures.

    See Also
    --------
    cupy.random.RandomState
    """

    def __init__(self, seed: Any = None, method: Any = None) -> None:
        self._rs = numpy.random.RandomState(self._seed_value(seed))

    @staticmethod
    def _seed_value(seed: Any) -> Any:
        if isinstance(seed, numpy.ndarray):
            seed = seed.tolist()
        if isinstance(seed, int):
            seed %= 2 ** 32
        return seed

    def seed(self, seed: Any = None) -> None:
        self._rs.seed(self._seed_value(seed))

    @staticmethod
    def _float_dtype(dtype: Any) -> numpy.dtype:
        dt = numpy.dtype(dtype if dtype is not None else numpy.float64)
        if dt.char not in "fd":
            raise TypeError(f"cupy.random only supports float32 and float64, got {dt}")
        return dt

    def _shape(self, size: Any) -> Any:
        return size

    def rand(self, *size: Any, dtype: Any = float) -> numpy.ndarray:
        return self.random_sample(size=size or None, dtype=dtype)

    def randn(self, *size: Any, dtype: Any = float) -> numpy.ndarray:
        return self.normal(size=size or None, dtype=dtype)

    def random_sample(self, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        dt = self._float_dtype(dtype)
        return numpy.asarray(self._rs.random_sample(size)).astype(dt, copy=False)

    random = ranf = sample = random_sample

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None,
                dtype: Any = float) -> numpy.ndarray:
        dt = self._float_dtype(dtype)
        return numpy.asarray(self._rs.uniform(low, high, size)).astype(dt, copy=False)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
               dtype: Any = float) -> numpy.ndarray:
        dt = self._float_dtype(dtype)
        return numpy.asarray(self._rs.normal(loc, scale, size)).astype(dt, copy=False)

    def standard_normal(self, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        return self.normal(size=size, dtype=dtype)

    def randint(self, low: Any, high: Any = None, size: Any = None,
                dtype: Any = "l") -> numpy.ndarray:
        return numpy.asarray(self._rs.randint(low, high, size, dtype=dtype))

    def random_integers(self, low: Any, high: Any = None, size: Any = None) -> numpy.ndarray:
        if high is None:
            low, high = 1, low
        return numpy.asarray(self._rs.randint(low, high + 1, size))

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None) -> Any:
        return numpy.asarray(self._rs.choice(a, size, replace, p))

    def shuffle(self, a: numpy.ndarray) -> None:
        if not isinstance(a, numpy.ndarray):
            raise TypeError("The array must be cupy.ndarray")
        self._rs.shuffle(a)

    def permutation(self, a: Any) -> numpy.ndarray:
        return numpy.asarray(self._rs.permutation(a))

    def tomaxint(self, size: Any = None) -> numpy.ndarray:
        return numpy.asarray(self._rs.randint(0, numpy.iinfo(numpy.int64).max, size))

    def __getattr__(self, name: str) -> Any:
        # the remaining distributions: NumPy's own, with dtype= and 0-d results
        if name.startswith("_"):
            raise AttributeError(name)
        fn = getattr(self._rs, name)

        def call(*args: Any, dtype: Any = None, **kwargs: Any) -> numpy.ndarray:
            out = numpy.asarray(fn(*args, **kwargs))
            if dtype is not None:
                out = out.astype(dtype, copy=False)
            elif out.dtype == numpy.int64 and name in _INT_DISTRIBUTIONS:
                out = out.astype(numpy.int64)
            return out
        return call


_INT_DISTRIBUTIONS = {"binomial", "geometric", "hypergeometric", "logseries",
                      "negative_binomial", "poisson", "zipf"}


def random_function(backend: Any, name: str) -> Any:
    """The module-level ``cupy.random.<name>`` for a CPU session (one generator per
    session, as CuPy keeps one per device)."""
    if name == "seed":
        return lambda seed=None: backend._random.seed(seed)
    if name == "get_random_state":
        return lambda: backend._random
    if name == "reset_states":
        def reset() -> None:
            backend._random = RandomState()
        return reset
    if name == "RandomState":
        return RandomState
    return lambda *a, **k: getattr(backend._random, name)(*a, **k)


#: cupy.random names served by something other than the session generator
RANDOM_OVERRIDES: dict[str, Any] = {"cupy.random.RandomState": RandomState}
#: random types a client may hold handles to (an empty set: every public method)
RANDOM_REMOTE_TYPES: dict[str, frozenset[str]] = {"RandomState": frozenset()}
