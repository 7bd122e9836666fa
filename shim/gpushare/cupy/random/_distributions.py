"""``cupy.random._distributions``: the module-level distributions, drawn from the
current device's global ``RandomState`` (as in CuPy, so tests may patch them here)."""
from __future__ import annotations

from typing import Any

from . import _generator
from .._util import experimental


def beta(a: Any, b: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.beta"""
    rs = _generator.get_random_state()
    return rs.beta(a, b, size, dtype)


def binomial(n: Any, p: Any, size: Any = None, dtype: Any = int) -> Any:
    """See Also: cupy.random.binomial"""
    rs = _generator.get_random_state()
    return rs.binomial(n, p, size, dtype)


def chisquare(df: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.chisquare"""
    rs = _generator.get_random_state()
    return rs.chisquare(df, size, dtype)


def dirichlet(alpha: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.dirichlet"""
    rs = _generator.get_random_state()
    return rs.dirichlet(alpha, size, dtype)


def exponential(scale: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.exponential"""
    rs = _generator.get_random_state()
    return rs.exponential(scale, size, dtype)


def f(dfnum: Any, dfden: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.f"""
    rs = _generator.get_random_state()
    return rs.f(dfnum, dfden, size, dtype)


def gamma(shape: Any, scale: Any = 1.0, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.gamma"""
    rs = _generator.get_random_state()
    return rs.gamma(shape, scale, size, dtype)


def geometric(p: Any, size: Any = None, dtype: Any = 'l') -> Any:
    """See Also: cupy.random.geometric"""
    rs = _generator.get_random_state()
    return rs.geometric(p, size, dtype)


def gumbel(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.gumbel"""
    rs = _generator.get_random_state()
    return rs.gumbel(loc, scale, size, dtype)


def hypergeometric(ngood: Any, nbad: Any, nsample: Any, size: Any = None, dtype: Any = 'l') -> Any:
    """See Also: cupy.random.hypergeometric"""
    rs = _generator.get_random_state()
    return rs.hypergeometric(ngood, nbad, nsample, size, dtype)


def logistic(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.logistic"""
    rs = _generator.get_random_state()
    return rs.logistic(loc, scale, size, dtype)


def laplace(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.laplace"""
    rs = _generator.get_random_state()
    return rs.laplace(loc, scale, size, dtype)


def lognormal(mean: Any = 0.0, sigma: Any = 1.0, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.lognormal"""
    rs = _generator.get_random_state()
    return rs.lognormal(mean, sigma, size=size, dtype=dtype)


def logseries(p: Any, size: Any = None, dtype: Any = 'l') -> Any:
    """See Also: cupy.random.logseries"""
    rs = _generator.get_random_state()
    return rs.logseries(p, size=size, dtype=dtype)


def negative_binomial(n: Any, p: Any, size: Any = None, dtype: Any = int) -> Any:
    """See Also: cupy.random.negative_binomial"""
    rs = _generator.get_random_state()
    return rs.negative_binomial(n, p, size=size, dtype=dtype)


def multivariate_normal(mean: Any, cov: Any, size: Any = None, check_valid: Any = 'ignore',
                        tol: Any = 1e-08, method: Any = 'cholesky',
                        dtype: Any = float) -> Any:
    """See Also: cupy.random.multivariate_normal"""
    experimental("cupy.random.multivariate_normal")
    rs = _generator.get_random_state()
    return rs.multivariate_normal(mean, cov, size, check_valid, tol, method, dtype)


def normal(loc: Any = 0.0, scale: Any = 1.0, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.normal"""
    rs = _generator.get_random_state()
    return rs.normal(loc, scale, size, dtype)


def pareto(a: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.pareto"""
    rs = _generator.get_random_state()
    return rs.pareto(a, size, dtype)


def noncentral_chisquare(df: Any, nonc: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.noncentral_chisquare"""
    rs = _generator.get_random_state()
    return rs.noncentral_chisquare(df, nonc, size=size, dtype=dtype)


def noncentral_f(dfnum: Any, dfden: Any, nonc: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.noncentral_f"""
    rs = _generator.get_random_state()
    return rs.noncentral_f(dfnum, dfden, nonc, size=size, dtype=dtype)


def poisson(lam: Any = 1.0, size: Any = None, dtype: Any = 'l') -> Any:
    """See Also: cupy.random.poisson"""
    rs = _generator.get_random_state()
    return rs.poisson(lam, size, dtype)


def power(a: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.power"""
    rs = _generator.get_random_state()
    return rs.power(a, size, dtype)


def rayleigh(scale: Any = 1.0, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.rayleigh"""
    rs = _generator.get_random_state()
    return rs.rayleigh(scale, size, dtype)


def standard_cauchy(size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.standard_cauchy"""
    rs = _generator.get_random_state()
    return rs.standard_cauchy(size, dtype)


def standard_exponential(size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.standard_exponential"""
    rs = _generator.get_random_state()
    return rs.standard_exponential(size, dtype)


def standard_gamma(shape: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.standard_gamma"""
    rs = _generator.get_random_state()
    return rs.standard_gamma(shape, size, dtype)


def standard_normal(size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.standard_normal"""
    rs = _generator.get_random_state()
    return rs.standard_normal(size, dtype)


def standard_t(df: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.standard_t"""
    rs = _generator.get_random_state()
    return rs.standard_t(df, size, dtype)


def triangular(left: Any, mode: Any, right: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.triangular"""
    rs = _generator.get_random_state()
    return rs.triangular(left, mode, right, size, dtype)


def uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.uniform"""
    rs = _generator.get_random_state()
    return rs.uniform(low, high, size=size, dtype=dtype)


def vonmises(mu: Any, kappa: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.vonmises"""
    rs = _generator.get_random_state()
    return rs.vonmises(mu, kappa, size=size, dtype=dtype)


def wald(mean: Any, scale: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.wald"""
    rs = _generator.get_random_state()
    return rs.wald(mean, scale, size, dtype)


def weibull(a: Any, size: Any = None, dtype: Any = float) -> Any:
    """See Also: cupy.random.weibull"""
    rs = _generator.get_random_state()
    return rs.weibull(a, size=size, dtype=dtype)


def zipf(a: Any, size: Any = None, dtype: Any = int) -> Any:
    """See Also: cupy.random.zipf"""
    rs = _generator.get_random_state()
    return rs.zipf(a, size=size, dtype=dtype)
