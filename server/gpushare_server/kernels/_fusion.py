"""``fuse`` for NumPy-backed arrays: the Python function is evaluated with the
arrays directly (the result equals CuPy's fused kernel up to dtype rules,
which NumPy 2 shares with CuPy 14); NumPy scalars produced from array inputs
are returned as 0-d arrays like CuPy's fused kernels."""
from __future__ import annotations

import functools

import numpy


def _wrap(r):
    if isinstance(r, numpy.generic):
        return numpy.asarray(r)
    if isinstance(r, tuple):
        return tuple(_wrap(x) for x in r)
    return r


class Fusion:
    def __init__(self, func, name=None):
        self.func = func
        self.name = name or getattr(func, '__name__', 'fused')
        self._memo = {}

    def __repr__(self):
        return '<Fusion name={}>'.format(self.name)

    def clear_cache(self):
        self._memo = {}

    def __call__(self, *args, **kwargs):
        if not any(isinstance(a, numpy.ndarray) for a in args):
            return self.func(*args, **kwargs)
        return _wrap(self.func(*args, **kwargs))


def fuse(*args, **kwargs):
    """Decorator, usable as ``@fuse`` and ``@fuse(kernel_name=...)``."""
    def wrapper(f, kernel_name=None):
        return Fusion(f, kernel_name)

    if len(args) == 1 and len(kwargs) == 0 and callable(args[0]):
        return functools.update_wrapper(wrapper(args[0]), args[0])
    return lambda f: functools.update_wrapper(
        wrapper(f, *args, **kwargs), f)
