"""cupy.random against a real CPU server: CuPy's signatures, dtypes, 0-d results,
seeding, argument errors, the global states and the Generator API."""
from __future__ import annotations

import numpy
import pytest

pytestmark = pytest.mark.timeout(120)


def test_module_functions_dtype_shape_and_0d(cp):
    r = cp.random
    assert r.rand(2, 3).shape == (2, 3)
    assert r.rand().shape == () and isinstance(r.rand(), cp.ndarray)
    assert r.randn(4, dtype=numpy.float32).dtype == numpy.float32
    assert r.lognormal(0.0, 1.0, (2, 2), numpy.float32).dtype == numpy.float32
    assert r.normal(size=None).shape == ()
    assert r.binomial(5, 0.5, size=3, dtype=numpy.int16).dtype == numpy.int16
    assert r.poisson(2.0, (2,)).dtype == numpy.dtype("l")
    assert r.beta(cp.full((3, 2), 2.0), 3.0).shape == (3, 2)
    assert r.gamma(numpy.ones((3, 2)), 2.0, (4, 3, 2)).shape == (4, 3, 2)
    assert r.dirichlet(cp.ones(3), 5).shape == (5, 3)
    assert r.multinomial(100, cp.array([0.2, 0.3, 0.5]), 4).get().sum(axis=1).tolist() == \
        [100] * 4
    assert isinstance(r.bytes(5), bytes)
    for name in ("random", "ranf", "sample", "random_sample"):
        out = getattr(r, name)(10).get()
        assert ((0 <= out) & (out < 1)).all()
    x = r.random_integers(1, 3, size=200).get()
    assert x.min() >= 1 and x.max() <= 3


def test_seed_reproducible(cp):
    cp.random.seed(3)
    a = cp.random.normal(size=5).get()
    cp.random.seed(3)
    assert (cp.random.normal(size=5).get() == a).all()
    rs1, rs2 = cp.random.RandomState(11), cp.random.RandomState(11)
    assert (rs1.gamma(2.0, size=4).get() == rs2.gamma(2.0, size=4).get()).all()
    rs1.seed(numpy.arange(5))
    rs2.seed(numpy.arange(5))
    assert (rs1.randint(0, 100, 8).get() == rs2.randint(0, 100, 8).get()).all()


def test_argument_errors(cp):
    r = cp.random
    with pytest.raises(TypeError):
        r.rand(1, unknown=1)
    with pytest.raises(TypeError):
        r.normal(size=3, dtype=numpy.int32)
    with pytest.raises(TypeError):
        r.RandomState(1).seed(1.5)
    with pytest.raises(ValueError):
        r.randint(5, 1)
    with pytest.raises(ValueError):
        r.exponential(cp.array([1.0, -1.0]))
    with pytest.raises(ValueError):
        r.logseries(1.5)
    with pytest.raises(ValueError):
        r.choice(3, 5, replace=False)
    with pytest.raises(TypeError):
        r.shuffle(numpy.arange(3))
    with pytest.raises(ValueError):
        r.poisson(None)


def test_choice_shuffle_permutation(cp):
    v = cp.random.choice(10, 10, replace=False).get()
    assert sorted(v.tolist()) == list(range(10)) and v.dtype == numpy.int64
    assert cp.random.choice(cp.array([1.0, 2.0]), 3, p=[0.5, 0.5]).dtype == numpy.float64
    a = cp.arange(6)
    cp.random.shuffle(a)
    assert sorted(a.get().tolist()) == list(range(6))
    assert sorted(cp.random.permutation(5).get().tolist()) == list(range(5))


def test_global_state_table(cp):
    from gpushare.cupy.random import _generator
    rs = cp.random.RandomState(1)
    cp.random.set_random_state(rs)
    assert cp.random.get_random_state() is rs
    cp.random.reset_states()
    assert _generator._random_states == {}
    assert cp.random.get_random_state() is not rs
    with pytest.raises(TypeError):
        cp.random.set_random_state(object())


def test_global_state_survives_session_reset(cp):
    from gpushare import client
    cp.random.seed(0)
    client.reset_session()
    assert cp.random.rand(2).shape == (2,)  # a new generator in the new session


def test_generator_api(cp):
    r = cp.random
    g1, g2 = r.default_rng(5), r.default_rng(r.XORWOW(5))
    assert isinstance(g1, r.Generator) and r.default_rng(g1) is g1
    assert (g1.standard_normal(4).get() == g2.standard_normal(4).get()).all()
    assert g1.integers(3, 10, size=5).dtype == numpy.int64
    assert g1.random(dtype=numpy.float32).shape == ()
    assert g1.poisson(cp.ones((2, 2))).dtype == numpy.int64
    out = cp.empty((3, 2))
    assert g1.standard_normal(size=(3, 2), out=out) is out
    with pytest.raises(TypeError):
        g1.standard_normal(size=(3, 2), out=cp.empty((3, 2), dtype=numpy.float32))
    with pytest.raises(ValueError):
        g1.standard_normal(size=(3, 2), out=cp.empty((3, 3)))
    with pytest.raises(TypeError):
        g1.standard_normal(dtype="i")
    g1.bit_generator = r.Philox4x3210(seed=1)
    a = g1.random(3).get()
    g1.bit_generator = r.Philox4x3210(seed=1)
    assert (g1.random(3).get() == a).all()


def test_bit_generators(cp):
    for cls in (cp.random.XORWOW, cp.random.MRG32k3a, cp.random.Philox4x3210):
        a, b = cls(numpy.int16(3)).random_raw(6), cls(3).random_raw(6)
        assert (a.get() == b.get()).all()
        with pytest.raises(TypeError):
            cls(numpy.float64(0))


def test_private_modules_as_cupy(cp):
    import importlib
    for name in ("_generator", "_distributions", "_sample", "_permutations",
                 "_bit_generator", "_generator_api"):
        importlib.import_module(f"gpushare.cupy.random.{name}")
    from gpushare.cupy.random import _generator
    assert _generator._check_and_get_dtype(numpy.float32) == numpy.float32
    with pytest.raises(TypeError):
        _generator._check_and_get_dtype(numpy.float16)
    assert cp.random.RandomState(1)._interval(0, (2,)).get().tolist() == [0, 0]


def test_seeds_cupy_takes_and_its_edge_errors(cp):
    # every seed CuPy's BitGenerator takes (``_bit_generator.pyx``: a cupy array read
    # to the host, any SeedSequence, any int NumPy takes), the same words as NumPy's
    ss = numpy.random.SeedSequence(7)
    assert cp.random.default_rng(7).random(3).tolist() == \
        cp.random.default_rng(ss).random(3).tolist()
    assert cp.random.default_rng(cp.array([1, 2])).random(2).tolist() == \
        cp.random.default_rng(numpy.array([1, 2])).random(2).tolist()
    child = numpy.random.SeedSequence(5).spawn(1)[0]
    word = int(child.generate_state(1, numpy.uint32)[0])
    assert cp.random.default_rng(child).random(2).tolist() == \
        cp.random.default_rng(numpy.random.SeedSequence(5, spawn_key=(0,))).random(2).tolist()
    assert word == int(numpy.random.SeedSequence(5, spawn_key=(0,)).generate_state(1)[0])
    assert cp.random.default_rng(2**100).random(2).shape == (2,)
    with pytest.raises(TypeError, match="SeedSequence expects int"):
        cp.random.default_rng(1.5)
    # a 0-d alpha: CuPy's ``y.sum(axis=-1)`` of a 0-d array; a negative permutation:
    # its ``cupy.empty((num,))``
    with pytest.raises(numpy.exceptions.AxisError):
        cp.random.dirichlet(2.0)
    with pytest.raises(numpy.exceptions.AxisError):
        cp.random.default_rng(1).dirichlet(2.0)
    with pytest.raises(ValueError, match="Negative dimensions are not allowed"):
        cp.random.permutation(-1)
    # the Generator's exponential and gamma multiply by ``scale`` (CuPy's arithmetic:
    # a host array or a list is refused, not copied to the device)
    g = cp.random.default_rng(1)
    for call in (lambda: g.exponential(numpy.array([1.0, 2.0]), 2),
                 lambda: g.exponential([1.0, 2.0], 2),
                 lambda: g.gamma(2.0, numpy.array([1.0, 2.0]), 2)):
        with pytest.raises(TypeError, match="Unsupported type"):
            call()
    assert g.exponential(cp.array([1.0, 2.0]), 2).shape == (2,)


def test_experimental_warning_follows_cupys_switch(cp):
    import warnings
    with pytest.warns(FutureWarning, match="multivariate_normal is experimental"):
        cp.random.RandomState(1).multivariate_normal(cp.zeros(2), cp.eye(2), 3)
    cp.disable_experimental_feature_warning = True
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            cp.random.RandomState(1).multivariate_normal(cp.zeros(2), cp.eye(2), 3)
            cp.random.multivariate_normal(cp.zeros(2), cp.eye(2), 3)
    finally:
        cp.disable_experimental_feature_warning = False
