"""``cupy.random``: CuPy's random API, with every generator held by the server.

The layout is CuPy's own (``_generator``, ``_distributions``, ``_sample``,
``_permutations``, ``_bit_generator``, ``_generator_api``), since programs and tests
reach into it (``cupy.random._generator._random_states``, mocks of
``cupy.random._sample.randint``...). The per-device global states are kept here as
CuPy keeps them; each generator is a proxy of a server object, so random numbers
are drawn where the arrays live.
"""
from __future__ import annotations

from typing import Any

import numpy as _numpy

from . import _distributions, _generator, _permutations, _sample  # noqa: F401
from ._bit_generator import XORWOW, BitGenerator, MRG32k3a, Philox4x3210  # noqa: F401
from ._distributions import (beta, binomial, chisquare, dirichlet, exponential, f,  # noqa: F401
                             gamma, geometric, gumbel, hypergeometric, laplace, logistic,
                             lognormal, logseries, multivariate_normal, negative_binomial,
                             noncentral_chisquare, noncentral_f, normal, pareto, poisson,
                             power, rayleigh, standard_cauchy, standard_exponential,
                             standard_gamma, standard_normal, standard_t, triangular,
                             uniform, vonmises, wald, weibull, zipf)
from ._generator import (RandomState, get_random_state, reset_states, seed,  # noqa: F401
                         set_random_state)
from ._generator_api import Generator  # noqa: F401
from ._permutations import permutation, shuffle  # noqa: F401
from ._sample import (choice, multinomial, rand, randint, randn,  # noqa: F401
                      random_integers, random_sample)
from ._sample import random_sample as random  # noqa: F401
from ._sample import random_sample as ranf  # noqa: F401
from ._sample import random_sample as sample  # noqa: F401
from . import _bit_generator, _generator_api  # noqa: F401,E402

# CuPy's cupy.cuda.curand constants (RandomState's ``method=``) come with cupy.random
from ..cuda import curand as _curand  # noqa: F401,E402


def bytes(length: int) -> bytes:  # noqa: A001 - CuPy's name
    """Random bytes (made on the host, as CuPy makes them).

    See Also
    --------
    cupy.random.bytes
    """
    return _numpy.random.bytes(length)


def default_rng(seed: Any = None) -> Generator:
    """A new ``Generator`` on the default BitGenerator (``XORWOW``).

    See Also
    --------
    cupy.random.default_rng
    """
    if isinstance(seed, BitGenerator):
        return Generator(seed)
    if isinstance(seed, Generator):
        return seed
    return Generator(XORWOW(seed))
