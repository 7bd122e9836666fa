"""CuPy 14.2's answers for ``cupy.random`` and ``cupyx.jit`` through a real server:
``BitGenerator.random_raw``'s int32 (``_bit_generator.pyx:114``), the Generator API's
parameter rules and dtypes (``_generator_api.pyx``), the legacy ``RandomState``'s
array ``randint``, ``normal``'s C-double parameters, closed-form kernels without checks
(``_generator.py``), proxies that know their members, and ``cupyx.jit``'s warning,
modules and error types (``cupyx/jit/_interface.py``, ``_compile.py``)."""
from __future__ import annotations

import warnings

import numpy
import pytest

from test_cpu_semantics import _raises

pytestmark = pytest.mark.timeout(240)


# --- A3: bit generators -----------------------------------------------------------------

def test_random_raw_is_int32_and_generators_differ(cp):
    r = cp.random.XORWOW(1).random_raw(1000)
    assert r.dtype == numpy.int32 and r.shape == (1000,)
    assert (r.get() < 0).any()
    assert cp.random.XORWOW(1).random_raw().shape == ()
    streams = [g(7).random_raw(16).get() for g in
               (cp.random.XORWOW, cp.random.MRG32k3a, cp.random.Philox4x3210)]
    assert not numpy.array_equal(streams[0], streams[1])
    assert not numpy.array_equal(streams[0], streams[2])
    assert not numpy.array_equal(streams[1], streams[2])
    # same seed, same stream
    assert numpy.array_equal(cp.random.MRG32k3a(7).random_raw(16).get(), streams[1])


@pytest.mark.parametrize("seed", [0, 1234, 2 ** 70, [1, 2, 3], "sequence", "spawned"])
def test_the_cupy_backend_seeds_as_cupy_would(seed):
    """The client sends the word CuPy's ``_cuRANDGenerator`` takes of the seed's
    SeedSequence; the cupy backend hands CuPy a SeedSequence that gives that word, so the
    real CuPy seeds its cuRAND states as it would from the user's own seed."""
    from gpushare.cupy.random._bit_generator import _seed_arg
    from gpushare_server.backends.cupy_backend import _seeded
    if seed == "sequence":
        seed = numpy.random.SeedSequence(99)
    elif seed == "spawned":
        seed = numpy.random.SeedSequence(99).spawn(3)[2]
    local = seed if isinstance(seed, numpy.random.SeedSequence) else \
        numpy.random.SeedSequence(seed)
    word = local.generate_state(1, numpy.uint32)[0]
    got = _seeded(lambda seed, size=-1: (seed, size))(_seed_arg(seed), size=5)
    assert isinstance(got[0], numpy.random.SeedSequence) and got[1] == 5
    assert got[0].generate_state(1, numpy.uint32)[0] == word


def test_base_bit_generator_cannot_draw(cp):
    _raises(NotImplementedError, "Not implemented in base BitGenerator",
            lambda: cp.random.BitGenerator(1).random_raw(3))


# --- C3: proxies know their members -------------------------------------------------------

def test_random_proxies_hasattr(cp):
    g = cp.random.default_rng(0)
    assert not hasattr(g, "bogus_xyz")
    for name in ("normal", "choice", "permutation"):
        assert not hasattr(g, name)
    assert hasattr(g, "standard_normal") and hasattr(g, "bit_generator")
    assert getattr(g, "normal", None) is None
    rs = cp.random.RandomState(0)
    assert not hasattr(rs, "bogus_xyz") and hasattr(rs, "randint")
    bg = cp.random.XORWOW(0)
    assert not hasattr(bg, "bogus_xyz") and hasattr(bg, "random_raw")


# --- B2 / D2: the Generator API --------------------------------------------------------------

def test_generator_zig_and_methods(cp):
    g = cp.random.default_rng(0)
    _raises(NotImplementedError, "Ziggurat method is not supported",
            lambda: g.standard_exponential(3, method="zig"))
    assert g.standard_exponential(3, method="other").shape == (3,)


def test_generator_dtypes_cast_at_the_end(cp):
    g = cp.random.default_rng(0)
    assert g.uniform(0, 10, 3, dtype=int).dtype == numpy.int64
    assert g.uniform(0, 1, 3, dtype=numpy.float16).dtype == numpy.float16
    assert g.standard_exponential(3, dtype=int).dtype == numpy.int64
    assert g.beta(1., 1., 3, dtype=int).dtype == numpy.int64
    _raises(TypeError, "Unsupported dtype int64 for standard_normal",
            lambda: g.standard_normal(3, dtype=int))
    _raises(TypeError, "Unsupported dtype float64 for standard_gamma",
            lambda: g.standard_gamma(1., 3, dtype=int))


def test_generator_parameter_types(cp):
    g = cp.random.default_rng(0)
    _raises(TypeError, "a is required to be a cupy.ndarray or a scalar",
            lambda: g.beta([1, 2], 1))
    _raises(TypeError, "a is required to be a cupy.ndarray or a scalar",
            lambda: g.beta(numpy.float64(2.), 1))
    _raises(TypeError, "df is required to be a cupy.ndarray or a scalar",
            lambda: g.chisquare([1, 2]))
    _raises(TypeError, "a is required to be a cupy.ndarray or a scalar",
            lambda: g.power(numpy.array([1., 2.])))
    _raises(TypeError, "lam is required to be a cupy.ndarray or a scalar",
            lambda: g.poisson([1., 2.]))
    _raises(ValueError, "shape is required to be a cupy.ndarray or a scalar",
            lambda: g.standard_gamma([1., 2.]))
    _raises(TypeError, "p is required to be a cupy.ndarray or a scalar",
            lambda: g.binomial(5, 1))  # p: a Python float only
    assert g.beta(cp.asarray([1., 2.]), 1).shape == (2,)


def test_generator_closed_forms_without_checks(cp):
    g = cp.random.default_rng(0)
    assert (g.exponential(-1., 4).get() <= 0).all()
    assert g.power(-1., 4).shape == (4,)
    assert (g.gamma(1., -1., 4).get() <= 0).all()
    # rk_standard_gamma returns 0 for a negative shape
    assert g.standard_gamma(-1., 3).get().tolist() == [0., 0., 0.]
    assert g.chisquare(-1., 2).get().tolist() == [0., 0.]


# --- B3 / B4 / B5 / D4: RandomState -------------------------------------------------------

def test_randint_array_bounds(cp):
    rs = cp.random.RandomState(0)
    _raises(TypeError, "reduce() arg 2 must support iteration",
            lambda: rs.randint(cp.asarray([5, 6]), size=2))
    _raises(ValueError, "operands could not be broadcast together with shapes (6,) (2,)",
            lambda: rs.randint(cp.asarray([5, 6]), size=(3, 2)))
    _raises(ValueError, "dtype must be integer, got: float64",
            lambda: rs.randint(cp.asarray([5., 6.])))
    r = rs.randint(cp.asarray([5, 6]))
    assert r.shape == (2,) and (r.get() < [5, 6]).all()
    rs.randint(cp.asarray([5, 6]), cp.asarray([2, 3]))  # no low >= high check


def test_normal_refuses_lists_and_numpy_arrays(cp):
    rs = cp.random.RandomState(0)
    _raises(TypeError, "must be real number, not list", lambda: rs.normal([0., 1.], 1., 2))
    # (a NumPy array reaches CuPy as it is, and Cython's ``double`` conversion is NumPy's
    # ``float()``: NumPy's own words, "only 0-dimensional arrays ..." since NumPy 2.4)
    with pytest.raises(TypeError) as numpy_words:
        float(numpy.zeros(2))
    _raises(TypeError, str(numpy_words.value), lambda: rs.normal(numpy.zeros(2), 1., 2))
    _raises(TypeError, "must be real number, not list", lambda: rs.lognormal([0., 1.]))
    assert rs.normal(cp.zeros(2), 1.).shape == (2,)


def test_gamma_int_dtype_and_closed_forms(cp):
    rs = cp.random.RandomState(0)
    with pytest.raises(TypeError):
        rs.gamma(1., size=3, dtype=int)
    assert rs.laplace(0., -1., 4).shape == (4,)
    assert rs.logistic(0., -1., 4).dtype == numpy.float64
    assert rs.vonmises(0., -1., 4).shape == (4,)
    assert rs.wald(-1., 1., 3).shape == (3,)  # CuPy's kernel, no check


def test_permutation_of_numpy_values(cp):
    rs = cp.random.RandomState(0)
    _raises(TypeError, "object of type 'int64' has no len()",
            lambda: rs.permutation(numpy.int64(5)))
    with pytest.raises(TypeError):
        cp.random.permutation(numpy.arange(3))
    assert sorted(rs.permutation(5).get().tolist()) == list(range(5))


# --- cupyx.jit ---------------------------------------------------------------------------

def test_jit_rawkernel_warns_and_modules(cp):
    from gpushare.cupyx import jit
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        jit.rawkernel()
    assert any(issubclass(w.category, FutureWarning) and "cupyx.jit.rawkernel is "
               "experimental" in str(w.message) for w in seen)
    assert jit._n_functions_upperlimit == 100
    assert hasattr(jit.cub, "BlockReduce") and hasattr(jit.thrust, "sort")


def _compile_error(cp, func):
    from gpushare.cupyx import jit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        k = jit.rawkernel()(func)
    x = cp.zeros(4, dtype=numpy.int32)
    with pytest.raises(Exception) as info:
        k[1, 1](x)
    return info.value


def test_jit_error_types(cp):
    def k_raise(x):
        raise ValueError()

    def k_with(x):
        with open("f"):
            x[0] = 1

    def k_dict(x):
        d = {1: 2}
        x[0] = d[1]

    def k_slice(x):
        x[1:2] = 1

    def k_attr(x):
        x[0] = x[0].foobar

    def k_cub(x):
        from gpushare.cupyx import jit
        jit.cub.Sum()

    e = _compile_error(cp, k_raise)
    assert type(e) is ValueError and "throw/catch are not allowed." in str(e)
    e = _compile_error(cp, k_with)
    assert type(e) is ValueError and "Switching contexts are not allowed." in str(e)
    e = _compile_error(cp, k_dict)
    assert type(e) is ValueError and "Not supported: type" in str(e)
    e = _compile_error(cp, k_slice)
    assert type(e) is ValueError and "Not supported: type" in str(e)
    e = _compile_error(cp, k_attr)
    assert type(e) is AttributeError and "Unknown attribute: foobar" in str(e)
    e = _compile_error(cp, k_cub)
    assert type(e) in (ValueError, NotImplementedError)
