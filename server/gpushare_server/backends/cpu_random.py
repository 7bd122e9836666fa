"""``cupy.random`` on the CPU backend: NumPy's generators behind CuPy's semantics.

The classes here mirror CuPy 14.2's ``RandomState`` (``cupy/random/_generator.py``),
``Generator`` (``_generator_api.pyx``) and bit generators (``_bit_generator.pyx``):
the same signatures, the same argument checks and error types, ``dtype=`` where CuPy
takes it (and the output in that dtype), 0-d arrays instead of scalars, and seeding
that reproduces (same seed, same values). The values come from NumPy's PCG64 rather
than cuRAND, as they would differ between GPU models; the distributions match.

The client keeps CuPy's module-level state (``get_random_state`` and friends, see
``gpushare/cupy/random/``); the server only holds generator objects, reached by handle.
"""
from __future__ import annotations

import binascii
import os
from typing import Any

import numpy

from gpushare.protocol import HostArray
from gpushare.seeds import seed_value

_UINT32_MAX = 0xffffffff
_UINT64_MAX = 0xffffffffffffffff

#: cuRAND's generator types (``cupy.cuda.curand.CURAND_RNG_PSEUDO_*``)
_CURAND_METHODS = {100, 101, 121, 141, 142, 161}


def _host(x: Any) -> Any:
    """Numpy data sent by the client stands for device data here (CuPy copies it)."""
    if isinstance(x, HostArray):
        return x.array
    if isinstance(x, (list, tuple)):
        return type(x)(_host(v) for v in x)
    return x


def _asarray(x: Any, dtype: Any = None) -> numpy.ndarray:
    """``cupy.asarray``: object data (``None``...) is refused with a ValueError."""
    arr = numpy.asarray(_host(x), dtype=dtype)
    if arr.dtype.hasobject:
        raise ValueError(f"Unsupported dtype {arr.dtype}")
    return arr


def _isscalar(x: Any) -> bool:
    return numpy.isscalar(x)


def _size_tuple(size: Any) -> tuple:
    """``cupy._core.get_size``."""
    if size is None:
        return ()
    if isinstance(size, (int, numpy.integer)):
        return (int(size),)
    return tuple(int(n) for n in size)


def _out(value: Any, dtype: Any) -> numpy.ndarray:
    """A fresh device array of ``dtype`` (CuPy writes its kernels' output there)."""
    return numpy.array(value, dtype=dtype, copy=True, ndmin=0)


def check_and_get_dtype(dtype: Any) -> numpy.dtype:
    """``cupy.random._generator._check_and_get_dtype``."""
    dtype = numpy.dtype(dtype)
    if dtype.char not in ("f", "d"):
        raise TypeError("cupy.random only supports float32 and float64")
    return dtype


def _any(cond: Any) -> bool:
    return bool(numpy.any(cond))


def _seed_to_int(seed: Any) -> int:
    """``RandomState.seed``'s reading of a seed (CuPy's checks and messages)."""
    value = seed_value(_host(seed))
    return int(binascii.hexlify(os.urandom(8)), 16) if value is None else value


class RandomState:
    """cupy.random.RandomState on the CPU backend.

    Parameters
    ----------
    seed : None or int or numpy.ndarray
        As ``RandomState.seed``.
    method : int, optional
        A ``cupy.cuda.curand.CURAND_RNG_PSEUDO_*`` value (recorded; NumPy's PCG64
        generates for all of them).

    See Also
    --------
    cupy.random.RandomState
    """

    def __init__(self, seed: Any = None, method: Any = None) -> None:
        if method is None:
            method = 100
        if int(method) not in _CURAND_METHODS:
            raise ValueError(f"unknown cuRAND generator type {method!r}")
        self.method = int(method)
        self.seed(seed)

    # --- state ----------------------------------------------------------------
    def seed(self, seed: Any = None) -> None:
        """See Also: cupy.random.RandomState.seed"""
        value = _seed_to_int(seed)
        self._rk_seed = value
        self._gen = numpy.random.Generator(numpy.random.PCG64(value))

    # --- helpers (CuPy's private ones keep their names) ------------------------
    def _random_sample_raw(self, size: Any, dtype: Any) -> numpy.ndarray:
        dtype = check_and_get_dtype(dtype)
        # cuRAND's uniform is on (0, 1]; NumPy's is [0, 1): flip it
        out = numpy.asarray(self._gen.random(_size_tuple(size), dtype=dtype))
        numpy.subtract(dtype.type(1), out, out=out)
        return out

    def _interval(self, mx: Any, size: Any) -> numpy.ndarray:
        """Integers sampled uniformly from ``[0, mx]`` (uint32 or uint64)."""
        if size is None:
            size = ()
        elif isinstance(size, (int, numpy.integer)):
            size = (int(size),)
        size = tuple(size)
        mx = _host(mx)
        if numpy.isscalar(mx):
            if mx == 0:
                return numpy.zeros(size, dtype=numpy.uint32)
            if mx < 0:
                raise ValueError(f"mx must be non-negative (actual: {mx})")
            if mx <= _UINT32_MAX:
                dtype = numpy.uint32
            elif mx <= _UINT64_MAX:
                dtype = numpy.uint64
            else:
                raise ValueError(f"mx must be within uint64 range (actual: {mx})")
            return self._gen.integers(0, int(mx), size=size, dtype=dtype, endpoint=True)
        mx = numpy.asarray(mx)
        if mx.dtype in (numpy.int32, numpy.uint32):
            dtype = numpy.uint32
        elif mx.dtype in (numpy.int64, numpy.uint64):
            dtype = numpy.uint64
        else:
            raise ValueError(f"dtype must be integer, got: {mx.dtype}")
        mx = mx.astype(dtype, copy=False)
        n = int(numpy.prod(size, dtype=numpy.int64))
        if n == 0:
            return numpy.empty(size, dtype=dtype)
        sample = self._gen.integers(0, numpy.broadcast_to(mx, (n,)) if mx.size != n
                                    else mx.reshape(n), size=n, dtype=dtype, endpoint=True)
        return sample.reshape(size)

    def _permutation(self, num: int) -> numpy.ndarray:
        return self._gen.permutation(int(num))

    # --- distributions (CuPy's order and checks) --------------------------------
    def beta(self, a: Any, b: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.beta"""
        a, b = _asarray(a), _asarray(b)
        if size is None:
            size = numpy.broadcast(a, b).shape
        return _out(self._gen.beta(a, b, size), dtype)

    def binomial(self, n: Any, p: Any, size: Any = None, dtype: Any = int) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.binomial"""
        n, p = _asarray(n), _asarray(p)
        if size is None:
            size = numpy.broadcast(n, p).shape
        return _out(self._gen.binomial(n.astype(numpy.int64), p, size), dtype)

    def chisquare(self, df: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.chisquare"""
        df = _asarray(df)
        if size is None:
            size = df.shape
        return _out(self._gen.chisquare(df, size), dtype)

    def dirichlet(self, alpha: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.dirichlet"""
        alpha = _asarray(alpha)
        if size is None:
            size = alpha.shape
        elif isinstance(size, (int, numpy.integer)):
            size = (int(size),) + alpha.shape
        else:
            size = tuple(size) + alpha.shape
        y = self._gen.standard_gamma(alpha, size)
        y = _out(y, dtype)
        y /= y.sum(axis=-1, keepdims=True)
        return y

    def exponential(self, scale: Any = 1.0, size: Any = None,
                    dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.exponential"""
        scale = _asarray(scale, dtype)
        if _any(scale < 0):
            raise ValueError("scale < 0")
        if size is None:
            size = scale.shape
        x = self.standard_exponential(size, dtype)
        x *= scale
        return x

    def f(self, dfnum: Any, dfden: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.f"""
        dfnum, dfden = _asarray(dfnum), _asarray(dfden)
        if size is None:
            size = numpy.broadcast(dfnum, dfden).shape
        return _out(self._gen.f(dfnum, dfden, size), dtype)

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None,
              dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.gamma"""
        shape, scale = _asarray(shape), _asarray(scale)
        if size is None:
            size = numpy.broadcast(shape, scale).shape
        return _out(self._gen.standard_gamma(shape, size) * scale, dtype)

    def geometric(self, p: Any, size: Any = None, dtype: Any = "l") -> numpy.ndarray:
        """See Also: cupy.random.RandomState.geometric"""
        p = _asarray(p)
        if size is None:
            size = p.shape
        return _out(self._gen.geometric(p, size), dtype)

    def hypergeometric(self, ngood: Any, nbad: Any, nsample: Any, size: Any = None,
                       dtype: Any = "l") -> numpy.ndarray:
        """See Also: cupy.random.RandomState.hypergeometric"""
        if isinstance(ngood, (int, float)) and ngood < 0:
            raise ValueError("ngood < 0")
        if isinstance(nbad, (int, float)) and nbad < 0:
            raise ValueError("nbad < 0")
        if isinstance(nsample, (int, float)) and nsample < 1:
            raise ValueError("nsample < 1")
        ngood, nbad, nsample = _asarray(ngood), _asarray(nbad), _asarray(nsample)
        if size is None:
            size = numpy.broadcast(ngood, nbad, nsample).shape
        return _out(_hypergeometric(self._gen, ngood, nbad, nsample, size), dtype)

    def laplace(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.laplace"""
        loc, scale = _asarray(loc, dtype), _asarray(scale, dtype)
        if size is None:
            size = numpy.broadcast(loc, scale).shape
        dtype = check_and_get_dtype(dtype)
        return _out(self._gen.laplace(loc, scale, _size_tuple(size)), dtype)

    def logistic(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
                 dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.logistic"""
        loc, scale = _asarray(loc), _asarray(scale)
        if size is None:
            size = numpy.broadcast(loc, scale).shape
        return _out(self._gen.logistic(loc, scale, size), dtype)

    def lognormal(self, mean: Any = 0.0, sigma: Any = 1.0, size: Any = None,
                  dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.lognormal"""
        mean, sigma = _host(mean), _host(sigma)
        if any(isinstance(arg, numpy.ndarray) for arg in (mean, sigma)):
            x = self.normal(mean, sigma, size, dtype)
            numpy.exp(x, out=x)
            return x
        if size is None:
            size = ()
        dtype = check_and_get_dtype(dtype)
        return _out(self._gen.lognormal(mean, sigma, _size_tuple(size)), dtype)

    def logseries(self, p: Any, size: Any = None, dtype: Any = "l") -> numpy.ndarray:
        """See Also: cupy.random.RandomState.logseries"""
        p = _asarray(p)
        if _any(p <= 0):
            raise ValueError("p <= 0.0")
        if _any(p >= 1):
            raise ValueError("p >= 1.0")
        if size is None:
            size = p.shape
        return _out(self._gen.logseries(p, size), dtype)

    def multivariate_normal(self, mean: Any, cov: Any, size: Any = None,
                            check_valid: str = "ignore", tol: float = 1e-08,
                            method: str = "cholesky", dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.multivariate_normal"""
        mean = _asarray(mean, dtype)
        cov = _asarray(cov, dtype)
        if size is None:
            shape: list = []
        elif isinstance(size, (int, numpy.integer)):
            shape = [int(size)]
        else:
            shape = list(size)
        if mean.ndim != 1:
            raise ValueError("mean must be 1 dimensional")
        if cov.ndim != 2 or cov.shape[0] != cov.shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if mean.shape[0] != cov.shape[0]:
            raise ValueError("mean and cov must have same length")
        final_shape = shape + [mean.shape[0]]
        if method not in {"eigh", "svd", "cholesky"}:
            raise ValueError("method must be one of {'eigh', 'svd', 'cholesky'}")
        if check_valid not in ("ignore", "warn", "raise"):
            raise ValueError("check_valid must equal 'warn', 'raise', or 'ignore'")
        decomp = _mvn_decomposition(cov, method, check_valid, tol)
        x = self.standard_normal(final_shape, dtype=dtype).reshape(-1, mean.shape[0])
        x = numpy.dot(decomp, x.T).T.astype(x.dtype, copy=False)
        x += mean
        return numpy.ascontiguousarray(x).reshape(tuple(final_shape))

    def negative_binomial(self, n: Any, p: Any, size: Any = None,
                          dtype: Any = int) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.negative_binomial"""
        n, p = _asarray(n), _asarray(p)
        if _any(n <= 0):
            raise ValueError("n <= 0")
        if _any(p < 0):
            raise ValueError("p < 0")
        if _any(p > 1):
            raise ValueError("p > 1")
        with numpy.errstate(divide="ignore", invalid="ignore"):
            y = self.gamma(n, (1 - p) / p, size)
        return self.poisson(y, dtype=dtype)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
               dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.normal"""
        dtype = check_and_get_dtype(dtype)
        loc, scale = _host(loc), _host(scale)
        if size is None:
            size = numpy.broadcast(loc, scale).shape
        x = self._gen.standard_normal(_size_tuple(size), dtype=dtype)
        if isinstance(scale, numpy.ndarray):
            numpy.multiply(x, scale, out=x, casting="unsafe")
        else:
            x *= dtype.type(scale)
        if isinstance(loc, numpy.ndarray):
            numpy.add(x, loc, out=x, casting="unsafe")
        else:
            x += dtype.type(loc)
        return x

    def pareto(self, a: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.pareto"""
        a = _asarray(a)
        if size is None:
            size = a.shape
        x = self._random_sample_raw(size, dtype)
        numpy.log(x, out=x)
        return numpy.exp(-x / a).astype(x.dtype, copy=False) - x.dtype.type(1)

    def noncentral_chisquare(self, df: Any, nonc: Any, size: Any = None,
                             dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.noncentral_chisquare"""
        df, nonc = _asarray(df), _asarray(nonc)
        if _any(df <= 0):
            raise ValueError("df <= 0")
        if _any(nonc < 0):
            raise ValueError("nonc < 0")
        if size is None:
            size = numpy.broadcast(df, nonc).shape
        return _out(self._gen.noncentral_chisquare(df, nonc, size), dtype)

    def noncentral_f(self, dfnum: Any, dfden: Any, nonc: Any, size: Any = None,
                     dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.noncentral_f"""
        dfnum, dfden, nonc = _asarray(dfnum), _asarray(dfden), _asarray(nonc)
        if _any(dfnum <= 0):
            raise ValueError("dfnum <= 0")
        if _any(dfden <= 0):
            raise ValueError("dfden <= 0")
        if _any(nonc < 0):
            raise ValueError("nonc < 0")
        if size is None:
            size = numpy.broadcast(dfnum, dfden, nonc).shape
        return _out(self._gen.noncentral_f(dfnum, dfden, nonc, size), dtype)

    def poisson(self, lam: Any = 1.0, size: Any = None, dtype: Any = "l") -> numpy.ndarray:
        """See Also: cupy.random.RandomState.poisson"""
        lam = _asarray(lam)
        if size is None:
            size = lam.shape
        lam = numpy.where(numpy.isfinite(lam) & (lam >= 0), lam, 0)
        return _out(self._gen.poisson(lam, size), dtype)

    def power(self, a: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.power"""
        a = _asarray(a)
        if _any(a < 0):
            raise ValueError("a < 0")
        if size is None:
            size = a.shape
        x = self.standard_exponential(size=size, dtype=dtype)
        numpy.exp(-x, out=x)
        numpy.add(1, -x, out=x)
        numpy.power(x, 1. / a, out=x, casting="unsafe")
        return x

    def rand(self, *size: Any, **kwarg: Any) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.rand"""
        dtype = kwarg.pop("dtype", float)
        if kwarg:
            raise TypeError("rand() got unexpected keyword arguments %s"
                            % ", ".join(kwarg.keys()))
        return self.random_sample(size=size, dtype=dtype)

    def randn(self, *size: Any, **kwarg: Any) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.randn"""
        dtype = kwarg.pop("dtype", float)
        if kwarg:
            raise TypeError("randn() got unexpected keyword arguments %s"
                            % ", ".join(kwarg.keys()))
        return self.normal(size=size, dtype=dtype)

    def random_sample(self, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.random_sample"""
        dtype = check_and_get_dtype(dtype)
        return self._gen.random(_size_tuple(size), dtype=dtype)

    def rayleigh(self, scale: Any = 1.0, size: Any = None,
                 dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.rayleigh"""
        scale = _asarray(scale)
        if size is None:
            size = scale.shape
        if _any(scale < 0):
            raise ValueError("scale < 0")
        x = self._random_sample_raw(size, dtype)
        numpy.log(x, out=x)
        numpy.multiply(x, -2., out=x)
        numpy.sqrt(x, out=x)
        numpy.multiply(x, scale, out=x, casting="unsafe")
        return x

    def standard_cauchy(self, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.standard_cauchy"""
        x = self.uniform(size=size, dtype=dtype)
        return numpy.tan(numpy.pi * (x - 0.5)).astype(x.dtype, copy=False)

    def standard_exponential(self, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.standard_exponential"""
        if size is None:
            size = ()
        x = self._random_sample_raw(size, dtype)
        numpy.log(x, out=x)
        numpy.negative(x, out=x)
        return x

    def standard_gamma(self, shape: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.standard_gamma"""
        shape = _asarray(shape)
        if size is None:
            size = shape.shape
        return _out(self._gen.standard_gamma(shape, size), dtype)

    def standard_normal(self, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.standard_normal"""
        return self.normal(size=size, dtype=dtype)

    def standard_t(self, df: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.standard_t"""
        df = _asarray(df)
        if size is None:
            size = df.shape
        return _out(self._gen.standard_t(df, size), dtype)

    def tomaxint(self, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.tomaxint"""
        if size is None:
            size = ()
        return self._gen.integers(0, numpy.iinfo(numpy.int_).max, size=size,
                                  dtype=numpy.int_, endpoint=True)

    def triangular(self, left: Any, mode: Any, right: Any, size: Any = None,
                   dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.triangular"""
        left, mode, right = _asarray(left), _asarray(mode), _asarray(right)
        if _any(left > mode):
            raise ValueError("left > mode")
        if _any(mode > right):
            raise ValueError("mode > right")
        if _any(left == right):
            raise ValueError("left == right")
        if size is None:
            size = numpy.broadcast(left, mode, right).shape
        x = self.random_sample(size=size, dtype=dtype)
        base = right - left
        leftbase = mode - left
        ratio = leftbase / base
        y = numpy.where(x <= ratio, left + numpy.sqrt(x * leftbase * base),
                        right - numpy.sqrt((1.0 - x) * (right - mode) * base))
        return _out(y, x.dtype)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None,
                dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.uniform"""
        low, high = _host(low), _host(high)
        if not numpy.isscalar(low):
            low = _asarray(low, dtype)
        if not numpy.isscalar(high):
            high = _asarray(high, dtype)
        if size is None:
            size = numpy.broadcast(low, high).shape
        dtype = numpy.dtype(dtype)
        rand = self.random_sample(size=size, dtype=dtype)
        t = dtype.type
        low_t = low.astype(dtype) if isinstance(low, numpy.ndarray) else t(low)
        high_t = high.astype(dtype) if isinstance(high, numpy.ndarray) else t(high)
        return _out(low_t + rand * (high_t - low_t), dtype)

    def vonmises(self, mu: Any, kappa: Any, size: Any = None,
                 dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.vonmises"""
        mu, kappa = _asarray(mu), _asarray(kappa)
        if size is None:
            size = numpy.broadcast(mu, kappa).shape
        return _out(self._gen.vonmises(mu, kappa, size), dtype)

    def wald(self, mean: Any, scale: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.wald"""
        mean, scale = _asarray(mean, dtype), _asarray(scale, dtype)
        if size is None:
            size = numpy.broadcast(mean, scale).shape
        dtype = check_and_get_dtype(dtype)
        return _out(self._gen.wald(mean, scale, _size_tuple(size)), dtype)

    def weibull(self, a: Any, size: Any = None, dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.weibull"""
        a = _asarray(a)
        if _any(a < 0):
            raise ValueError("a < 0")
        if size is None:
            size = a.shape
        x = self.standard_exponential(size, dtype)
        with numpy.errstate(divide="ignore"):
            numpy.power(x, 1. / a, out=x, casting="unsafe")
        return x

    def zipf(self, a: Any, size: Any = None, dtype: Any = int) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.zipf"""
        a = _asarray(a)
        if _any(a <= 1.0):
            raise ValueError("'a' must be a valid float > 1.0")
        if size is None:
            size = a.shape
        return _out(self._gen.zipf(a, size), dtype)

    def gumbel(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None,
               dtype: Any = float) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.gumbel"""
        loc, scale = _host(loc), _host(scale)
        if not numpy.isscalar(loc):
            loc = _asarray(loc, dtype)
        if not numpy.isscalar(scale):
            scale = _asarray(scale, dtype)
        if size is None:
            size = numpy.broadcast(loc, scale).shape
        x = self._random_sample_raw(size=size, dtype=dtype)
        y = loc - numpy.log(-numpy.log(x)) * scale
        return _out(y, x.dtype)

    # --- integers and sampling ---------------------------------------------------
    def choice(self, a: Any, size: Any = None, replace: Any = True, p: Any = None) -> Any:
        """See Also: cupy.random.RandomState.choice"""
        a, p = _host(a), _host(p)
        if a is None:
            raise ValueError("a must be 1-dimensional or an integer")
        if isinstance(a, numpy.ndarray) and a.ndim == 0:
            raise NotImplementedError
        if isinstance(a, int):
            a_size = a
            if a_size < 0:
                raise ValueError("a must be greater than or equal to 0")
        else:
            a = _asarray(a)
            if a.ndim != 1:
                raise ValueError("a must be 1-dimensional or an integer")
            a_size = len(a)
        if p is not None:
            p = _asarray(p)
            if p.ndim != 1:
                raise ValueError("p must be 1-dimensional")
            if len(p) != a_size:
                raise ValueError("a and p must have same size")
            if not (p >= 0).all():
                raise ValueError("probabilities are not non-negative")
            if not numpy.allclose(numpy.sum(p), 1):
                raise ValueError("probabilities do not sum to 1")
        if size is None:
            raise NotImplementedError(
                "choice() without specifying size is not supported yet")
        shape = size
        try:
            size = int(numpy.prod(shape, dtype=numpy.int64)) if not isinstance(
                shape, (int, numpy.integer)) else int(shape)
        except TypeError:
            pass
        if a_size == 0 and size > 0:
            raise ValueError("a cannot be empty unless no samples are taken")
        if not replace and p is None:
            if a_size < size:
                raise ValueError("Cannot take a larger sample than population when "
                                 "'replace=False'")
            if isinstance(a, int):
                indices = self._gen.choice(a_size, size=size, replace=False)
                return indices.astype(numpy.int64).reshape(shape)
            indices = a.copy()
            self.shuffle(indices)
            return indices[:size].reshape(shape)
        if not replace:
            raise NotImplementedError
        if p is not None:
            cdf = p.cumsum()
            cdf /= cdf[-1]
            uniform_samples = self.random_sample(shape)
            index = cdf.searchsorted(uniform_samples, side="right")
            index = numpy.minimum(index, a_size - 1)
        else:
            if a_size == 0:
                a_size = 1
            index = self.randint(0, a_size, size=shape).astype(numpy.int64, copy=False)
        if isinstance(a, int):
            return numpy.asarray(index)
        if numpy.ndim(index) == 0:
            return numpy.array(a[index], dtype=a.dtype)
        return a[index]

    def shuffle(self, a: Any) -> None:
        """See Also: cupy.random.RandomState.shuffle"""
        if not isinstance(a, numpy.ndarray):
            raise TypeError("The array must be cupy.ndarray")
        if a.ndim == 0:
            raise TypeError("An array whose ndim is 0 is not supported")
        a[:] = a[self._permutation(len(a))]

    def permutation(self, a: Any) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.permutation"""
        a = _host(a)
        if isinstance(a, (int, numpy.integer)):
            return self._permutation(a)
        return a[self._permutation(len(a))]

    def randint(self, low: Any, high: Any = None, size: Any = None,
                dtype: Any = int) -> numpy.ndarray:
        """See Also: cupy.random.RandomState.randint"""
        low, high = _host(low), _host(high)
        if not numpy.isscalar(low):
            low = _asarray(low)
            if high is None:
                lo = numpy.zeros_like(low)
                hi = low - 1
            else:
                lo = low
                hi = _asarray(high) - 1
            if size is None:
                size = numpy.broadcast(lo, hi).shape
            size = _size_tuple(size)
            lo_b = numpy.broadcast_to(lo, size)
            hi_b = numpy.broadcast_to(hi, size)
            if numpy.any(lo_b > hi_b):
                raise ValueError("low >= high")
            out = self._gen.integers(lo_b.astype(numpy.int64), hi_b.astype(numpy.int64),
                                     size=size, endpoint=True)
            return out.astype(dtype)
        if high is None:
            lo = 0
            hi1 = int(low) - 1
        else:
            lo = int(low)
            hi1 = int(high) - 1
        if lo > hi1:
            raise ValueError("low >= high")
        if lo < numpy.iinfo(dtype).min:
            raise ValueError(f"low is out of bounds for {numpy.dtype(dtype).name}")
        if hi1 > numpy.iinfo(dtype).max:
            raise ValueError(f"high is out of bounds for {numpy.dtype(dtype).name}")
        diff = hi1 - lo
        x = self._interval(diff, size).astype(dtype, copy=False)
        numpy.add(x, lo, out=x, casting="unsafe")
        return x


def _mvn_decomposition(cov: numpy.ndarray, method: str, check_valid: str,
                       tol: float) -> numpy.ndarray:
    """The factor ``A`` with ``A @ A.T == cov`` that CuPy's multivariate_normal uses."""
    import warnings
    from numpy.linalg import LinAlgError

    def factor(m: str) -> numpy.ndarray:
        if m == "cholesky":
            return numpy.linalg.cholesky(cov)
        if m == "eigh":
            s, u = numpy.linalg.eigh(cov)
            return u * numpy.sqrt(numpy.abs(s))
        u, s, vh = numpy.linalg.svd(cov)
        return u * numpy.sqrt(numpy.abs(s))

    if check_valid == "warn":
        try:
            return numpy.linalg.cholesky(cov)
        except LinAlgError:
            if method == "cholesky":
                warnings.warn("covariance is not positive-semidefinite, output *is* "
                              "invalid.", RuntimeWarning)
                # cuSOLVER leaves NaN in a failed factorization
                return numpy.full_like(cov, numpy.nan)
            decomp = factor(method)
            if method == "eigh":
                psd = not numpy.any(numpy.linalg.eigvalsh(cov) < -tol)
            else:
                u, s, vh = numpy.linalg.svd(cov)
                psd = numpy.allclose(numpy.dot(vh.T * s, vh), cov, rtol=tol, atol=tol)
            if not psd:
                warnings.warn("covariance is not positive-semidefinite, output may be "
                              "invalid.", RuntimeWarning)
            return decomp
    try:
        return factor(method)
    except LinAlgError:
        if check_valid == "raise":
            raise LinAlgError("Matrix is not positive definite; if matrix is "
                              "positive-semidefinite, set'check_valid' to 'warn'") from None
        # CuPy's cuSOLVER leaves garbage (NaN) rather than raising when ignoring
        return numpy.full_like(cov, numpy.nan)


def _hypergeometric(gen: numpy.random.Generator, ngood: numpy.ndarray, nbad: numpy.ndarray,
                    nsample: numpy.ndarray, size: Any) -> numpy.ndarray:
    """CuPy's kernel: out-of-range inputs give the clamped result instead of an error
    (``nsample > ngood + nbad`` draws everything)."""
    good = numpy.maximum(ngood.astype(numpy.int64), 0)
    bad = numpy.maximum(nbad.astype(numpy.int64), 0)
    sample = numpy.clip(nsample.astype(numpy.int64), 0, good + bad)
    return gen.hypergeometric(good, bad, sample, size)


# --- the Generator API -------------------------------------------------------------------

def _seed_sequence(seed: Any) -> numpy.random.SeedSequence:
    seed = _host(seed)
    if isinstance(seed, numpy.random.SeedSequence):
        return seed
    if seed is not None:
        arr = numpy.asarray(seed)
        if arr.dtype.kind not in "biu":
            raise TypeError("SeedSequence expects int or sequence of ints for entropy "
                            f"not {seed!r}")
        seed = int(arr) if arr.ndim == 0 else [int(v) for v in arr.ravel()]
    return numpy.random.SeedSequence(seed)


class BitGenerator:
    """cupy.random.BitGenerator on the CPU backend (NumPy's PCG64 underneath).

    See Also
    --------
    cupy.random.BitGenerator
    """

    def __init__(self, seed: Any = None, *, size: int = -1) -> None:
        self._seed_seq = _seed_sequence(seed)
        self._gen = numpy.random.Generator(numpy.random.PCG64(self._seed_seq))

    def random_raw(self, size: Any = None, output: bool = True) -> Any:
        """See Also: cupy.random.BitGenerator.random_raw"""
        y = self._gen.integers(0, _UINT32_MAX, size=_size_tuple(size), dtype=numpy.uint32,
                               endpoint=True)
        return y if output else None

    def state(self) -> int:
        return id(self._gen)


class XORWOW(BitGenerator):
    """See Also: cupy.random.XORWOW"""


class MRG32k3a(BitGenerator):
    """See Also: cupy.random.MRG32k3a"""


class Philox4x3210(BitGenerator):
    """See Also: cupy.random.Philox4x3210"""


def _check_output_array(dtype: Any, size: Any, out: Any, check_only_c_cont: bool = False) -> None:
    """``Generator._check_output_array``: CuPy's messages and error types."""
    if out is None:
        return
    if not isinstance(out, numpy.ndarray):
        raise TypeError("out must be a cupy.ndarray")
    if check_only_c_cont:
        if not out.flags.c_contiguous:
            raise ValueError("Supplied output array is not C contiguous")
    elif not (out.flags.c_contiguous or out.flags.f_contiguous):
        raise ValueError("Supplied output array is not contiguous, writable or aligned.")
    if out.dtype != dtype:
        raise TypeError(f"Supplied output array has the wrong type. Expected {numpy.dtype(dtype)},"
                        f" got {out.dtype}")
    if size is not None:
        if _size_tuple(size) != out.shape:
            raise ValueError("size must match out.shape when used together")


def _float_dtype(dtype: Any) -> numpy.dtype:
    dt = numpy.dtype(dtype)
    if dt.char not in "fd":
        raise TypeError(f"Unsupported dtype {dt.name!r} for the requested distribution")
    return dt


class Generator:
    """cupy.random.Generator on the CPU backend.

    Parameters
    ----------
    bit_generator : BitGenerator
        The stream the distributions draw on.

    See Also
    --------
    cupy.random.Generator
    """

    def __init__(self, bit_generator: Any) -> None:
        if not isinstance(bit_generator, BitGenerator):
            raise TypeError("bit_generator must be a cupy.random.BitGenerator")
        self.bit_generator = bit_generator

    @property
    def _gen(self) -> numpy.random.Generator:
        return self.bit_generator._gen

    def _fill(self, values: numpy.ndarray, out: Any) -> numpy.ndarray:
        if out is None:
            return values
        out[...] = values
        return out

    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = numpy.int64,
                 endpoint: bool = False) -> numpy.ndarray:
        """See Also: cupy.random.Generator.integers (CuPy's bounds are ``int(low)`` and
        ``int(high)``: one number each, an array of more is a TypeError; its checks and
        words, ``_generator_api.pyx``)."""
        low, high = _host(low), _host(high)
        if high is None:
            lo, hi1 = 0, int(low)
        else:
            lo, hi1 = int(low), int(high)
        if not endpoint:
            hi1 -= 1
        if lo > hi1:
            raise ValueError("low >= high")
        info = numpy.iinfo(dtype)
        if lo < info.min:
            raise ValueError(f"low is out of bounds for {numpy.dtype(dtype).name}")
        if hi1 > info.max:
            raise ValueError(f"high is out of bounds for {numpy.dtype(dtype).name}")
        if hi1 - lo > 0xFFFFFFFFFFFFFFFF:
            raise ValueError(f"high - low must be within uint64 range (actual: {hi1 - lo})")
        low_a, high_a = numpy.asarray(lo), numpy.asarray(hi1)
        return _out(self._gen.integers(low_a, high_a, size=_size_tuple(size), dtype=dtype,
                                       endpoint=True), dtype)

    def random(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> Any:
        """See Also: cupy.random.Generator.random"""
        dtype = numpy.dtype(dtype)
        _check_output_array(dtype, size, out)
        if out is not None and size is None:
            size = out.shape
        size = _size_tuple(size)
        if dtype.char in "fd":
            values = self._gen.random(size, dtype=dtype)
        elif dtype.kind in "biu":
            # CuPy writes [0, 1) uniforms into the output: integers are all 0
            values = numpy.zeros(size, dtype=dtype)
        else:
            values = self._gen.random(size).astype(dtype)
        return self._fill(values, out)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None,
                dtype: Any = numpy.float64) -> numpy.ndarray:
        """See Also: cupy.random.Generator.uniform"""
        low, high = _asarray(low), _asarray(high)
        if size is None:
            size = numpy.broadcast(low, high).shape
        dtype = _float_dtype(dtype)
        x = self._gen.random(_size_tuple(size), dtype=dtype)
        return _out(low + x * (high - low), dtype)

    def standard_normal(self, size: Any = None, dtype: Any = numpy.float64,
                        out: Any = None) -> Any:
        """See Also: cupy.random.Generator.standard_normal"""
        dtype = _float_dtype(dtype)
        _check_output_array(dtype, size, out)
        if out is not None and size is None:
            size = out.shape
        return self._fill(self._gen.standard_normal(_size_tuple(size), dtype=dtype), out)

    def standard_exponential(self, size: Any = None, dtype: Any = numpy.float64,
                             method: str = "inv", out: Any = None) -> Any:
        """See Also: cupy.random.Generator.standard_exponential"""
        dtype = _float_dtype(dtype)
        if method not in ("inv", "zig"):
            raise ValueError(f"Method {method!r} is not supported")
        _check_output_array(dtype, size, out)
        if out is not None and size is None:
            size = out.shape
        return self._fill(self._gen.standard_exponential(_size_tuple(size), dtype=dtype,
                                                         method=method), out)

    def standard_gamma(self, shape: Any, size: Any = None, dtype: Any = numpy.float64,
                       out: Any = None) -> Any:
        """See Also: cupy.random.Generator.standard_gamma"""
        dtype = _float_dtype(dtype)
        _check_output_array(dtype, size, out, check_only_c_cont=True)
        shape = _asarray(shape)
        if size is None:
            size = out.shape if out is not None else shape.shape
        return self._fill(_out(self._gen.standard_gamma(shape, _size_tuple(size)), dtype), out)

    def beta(self, a: Any, b: Any, size: Any = None, dtype: Any = numpy.float64) -> numpy.ndarray:
        """See Also: cupy.random.Generator.beta"""
        a, b = _asarray(a), _asarray(b)
        dtype = _float_dtype(dtype)
        return _out(self._gen.beta(a, b, size), dtype)

    def binomial(self, n: Any, p: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.binomial"""
        return _out(self._gen.binomial(_asarray(n), _asarray(p), size), numpy.int64)

    def chisquare(self, df: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.chisquare"""
        return _out(self._gen.chisquare(_asarray(df), size), numpy.float64)

    def dirichlet(self, alpha: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.dirichlet"""
        # CuPy normalizes gamma draws over the last axis of ``size + alpha.shape``
        alpha = _asarray(alpha)
        size = alpha.shape if size is None else _size_tuple(size) + alpha.shape
        y = _out(self._gen.standard_gamma(alpha, size), numpy.float64)
        y /= y.sum(axis=-1, keepdims=True)
        return y

    def exponential(self, scale: Any = 1.0, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.exponential"""
        return _out(self._gen.exponential(_asarray(scale), size), numpy.float64)

    def f(self, dfnum: Any, dfden: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.f"""
        return _out(self._gen.f(_asarray(dfnum), _asarray(dfden), size), numpy.float64)

    def gamma(self, shape: Any, scale: Any = 1.0, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.gamma"""
        return _out(self._gen.gamma(_asarray(shape), _asarray(scale), size), numpy.float64)

    def geometric(self, p: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.geometric"""
        return _out(self._gen.geometric(_asarray(p), size), numpy.int64)

    def hypergeometric(self, ngood: Any, nbad: Any, nsample: Any,
                       size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.hypergeometric"""
        ngood, nbad, nsample = _asarray(ngood), _asarray(nbad), _asarray(nsample)
        if _any(ngood < 0):
            raise ValueError("ngood < 0")
        if _any(nbad < 0):
            raise ValueError("nbad < 0")
        if _any(nsample < 0):
            raise ValueError("nsample < 0")
        if size is None:
            size = numpy.broadcast(ngood, nbad, nsample).shape
        return _out(_hypergeometric(self._gen, ngood, nbad, nsample, size), numpy.int64)

    def logseries(self, p: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.logseries"""
        p = _asarray(p)
        if _any(p < 0) or _any(p >= 1):
            raise ValueError("p < 0, p >= 1 or p is NaN")
        return _out(self._gen.logseries(p, size), numpy.int64)

    def poisson(self, lam: Any = 1.0, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.poisson"""
        if lam is None:
            raise TypeError("lam must be a number or an array, not None")
        return _out(self._gen.poisson(_asarray(lam), size), numpy.int64)

    def power(self, a: Any, size: Any = None) -> numpy.ndarray:
        """See Also: cupy.random.Generator.power"""
        return _out(self._gen.power(_asarray(a), size), numpy.float64)


def default_rng(seed: Any = None) -> Generator:
    """See Also: cupy.random.default_rng"""
    seed = _host(seed)
    if isinstance(seed, BitGenerator):
        return Generator(seed)
    if isinstance(seed, Generator):
        return seed
    return Generator(XORWOW(seed))


def random_function(backend: Any, name: str) -> Any:
    """The module-level ``cupy.random.<name>`` for a CPU session called by name (the
    gpushare client keeps CuPy's per-device states itself; this serves other clients)."""
    if name == "seed":
        return lambda seed=None: backend._random.seed(seed)
    if name == "get_random_state":
        return lambda: backend._random
    if name == "set_random_state":
        def set_state(rs: Any) -> None:
            if not isinstance(rs, RandomState):
                raise TypeError("Random state must be an instance of RandomState. "
                                f"Actual: {type(rs)}")
            backend._random = rs
        return set_state
    if name == "reset_states":
        def reset() -> None:
            backend._random = RandomState()
        return reset
    if name == "bytes":
        return lambda length: numpy.random.bytes(length)
    if name in ("random", "ranf", "sample"):
        name = "random_sample"
    if name == "random_integers":
        def random_integers(low: Any, high: Any = None, size: Any = None) -> numpy.ndarray:
            if high is None:
                low, high = 1, low
            return backend._random.randint(low, high + 1, size, "l")
        return random_integers
    return lambda *a, **k: getattr(backend._random, name)(*a, **k)


_RANDOM_STATE_METHODS = frozenset({
    "beta", "binomial", "chisquare", "dirichlet", "exponential", "f", "gamma", "geometric",
    "hypergeometric", "laplace", "logistic", "lognormal", "logseries", "multivariate_normal",
    "negative_binomial", "normal", "pareto", "noncentral_chisquare", "noncentral_f",
    "poisson", "power", "rand", "randn", "random_sample", "rayleigh", "seed",
    "standard_cauchy", "standard_exponential", "standard_gamma", "standard_normal",
    "standard_t", "tomaxint", "triangular", "uniform", "vonmises", "wald", "weibull", "zipf",
    "choice", "shuffle", "permutation", "gumbel", "randint", "method", "_interval"})
_GENERATOR_METHODS = frozenset({
    "beta", "binomial", "chisquare", "dirichlet", "exponential", "f", "gamma", "geometric",
    "hypergeometric", "integers", "logseries", "poisson", "power", "random",
    "standard_exponential", "standard_gamma", "standard_normal", "uniform"})
_BIT_GENERATOR_METHODS = frozenset({"random_raw", "state"})

#: cupy.random names served by something other than the session generator
RANDOM_OVERRIDES: dict[str, Any] = {
    "cupy.random.RandomState": RandomState,
    "cupy.random.XORWOW": XORWOW,
    "cupy.random.MRG32k3a": MRG32k3a,
    "cupy.random.Philox4x3210": Philox4x3210,
    "cupy.random.BitGenerator": BitGenerator,
    "cupy.random.default_rng": default_rng,
}
#: random types a client may hold handles to, with the methods it may call
RANDOM_REMOTE_TYPES: dict[str, frozenset[str]] = {
    "RandomState": _RANDOM_STATE_METHODS,
    "Generator": _GENERATOR_METHODS,
    "BitGenerator": _BIT_GENERATOR_METHODS,
    "XORWOW": _BIT_GENERATOR_METHODS,
    "MRG32k3a": _BIT_GENERATOR_METHODS,
    "Philox4x3210": _BIT_GENERATOR_METHODS,
}
