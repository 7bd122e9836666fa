"""``cupy.random._bit_generator``: the Generator API's bit generators, held by the
server (``XORWOW``, ``MRG32k3a``, ``Philox4x3210``)."""
from __future__ import annotations

from typing import Any

import numpy

from .. import _objects
from .._objects import RemoteObjectProxy


def _seed_arg(seed: Any) -> Any:
    """The seed as the wire carries it: the one 32-bit word CuPy's generators take of
    the seed's ``numpy.random.SeedSequence`` (``generate_state(1, uint32)[0]``), derived
    here, as CuPy derives it (a cupy array read to the host first; a SeedSequence as it
    is, spawned ones too; any int NumPy takes; NumPy's errors at the call). The CPU
    backend seeds its states with the word (``cpu_random._DerivedSeed``); the cupy
    backend hands the real CuPy a ``numpy.random.SeedSequence`` that gives it
    (``cupy_backend._seeded``), so both draw what local CuPy draws for the user's seed."""
    if isinstance(seed, RemoteObjectProxy) or hasattr(seed, "_gs_id"):
        from .. import asnumpy
        seed = asnumpy(seed)
    if not isinstance(seed, numpy.random.SeedSequence):
        seed = numpy.random.SeedSequence(seed)
    return {"seed32": int(seed.generate_state(1, numpy.uint32)[0])}


class BitGenerator(RemoteObjectProxy):
    """Generic BitGenerator: a stream of random bits on the server.

    Parameters
    ----------
    seed : None or int or array_like[ints] or numpy.random.SeedSequence
        Passed to ``numpy.random.SeedSequence`` (on the server) to derive the state.

    See Also
    --------
    cupy.random.BitGenerator
    """

    __slots__ = ()
    _path = "cupy.random.BitGenerator"

    def __new__(cls, seed: Any = None, *, size: int = -1) -> "BitGenerator":
        kwargs = {} if size == -1 else {"size": size}
        state = _seed_arg(seed)
        if cls in _CURAND and not kwargs:  # (the seed checked above: queued)
            return _objects.create_queued(cls, cls._path, cls.__name__, state)
        return _objects.create(cls, cls._path, cls.__name__, state, **kwargs)

    def __init__(self, seed: Any = None, *, size: int = -1) -> None:
        pass

    def random_raw(self, size: Any = None, output: bool = True) -> Any:
        """Raw random bits as the underlying generator makes them.

        See Also
        --------
        cupy.random.BitGenerator.random_raw
        """
        return self._gs_session.call("method", "random_raw", (self, size, output), {})


class _cuRANDGenerator(BitGenerator):
    """CuPy's cuRAND bit generators' common base (``_bit_generator.pyx``)."""

    __slots__ = ()

    def state(self) -> Any:
        """The address of the generator's state (a server-side id here).

        See Also
        --------
        cupy.random.XORWOW.state
        """
        return self._gs_session.call("method", "state", (self,), {})


@_objects.register("XORWOW")
class XORWOW(_cuRANDGenerator):
    """BitGenerator using cuRAND's XORWOW generator.

    See Also
    --------
    cupy.random.XORWOW
    """

    __slots__ = ()
    _path = "cupy.random.XORWOW"
    generator = 0  # CuPy's ``RandGenerators`` enum (cupy_distributions.cuh)


@_objects.register("MRG32k3a")
class MRG32k3a(_cuRANDGenerator):
    """BitGenerator using cuRAND's MRG32k3a generator.

    See Also
    --------
    cupy.random.MRG32k3a
    """

    __slots__ = ()
    _path = "cupy.random.MRG32k3a"
    generator = 1  # CuPy's ``RandGenerators`` enum (cupy_distributions.cuh)


@_objects.register("Philox4x3210")
class Philox4x3210(_cuRANDGenerator):
    """BitGenerator using cuRAND's Philox4x32-10 generator.

    See Also
    --------
    cupy.random.Philox4x3210
    """

    __slots__ = ()
    _path = "cupy.random.Philox4x3210"
    generator = 2  # CuPy's ``RandGenerators`` enum (cupy_distributions.cuh)


_objects.register("BitGenerator")(BitGenerator)


#: the cuRAND generators a seed alone makes (their construction is queued)
_CURAND = frozenset((XORWOW, MRG32k3a, Philox4x3210))
