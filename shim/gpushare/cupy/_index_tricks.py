"""``cupy.r_``, ``cupy.c_``, ``cupy.mgrid``, ``cupy.ogrid``, ``cupy.broadcast`` and
``ndarray.flat`` on the client; they build on ordinary gpushare calls.

``AxisConcatenator`` and ``nd_grid`` are CuPy 14.2's own (``cupy/_indexing/generate.py``,
``cupy/_creation/ranges.py``; MIT licence, Copyright (c) 2015 Preferred Infrastructure,
Inc. and Preferred Networks, Inc.), with ``cupy`` meaning gpushare's proxy.
"""
from __future__ import annotations

import math
from typing import Any

import numpy


def _cp() -> Any:
    import gpushare.cupy
    return gpushare.cupy


class AxisConcatenator:
    """Translates slice objects to concatenation along an axis.

    For detailed documentation on usage, see :func:`cupy.r_`.
    This implementation is partially borrowed from NumPy's one.

    """

    def _output_obj(self, obj, ndim, ndmin, trans1d):
        k2 = ndmin - ndim
        if trans1d < 0:
            trans1d += k2 + 1
        defaxes = list(range(ndmin))
        k1 = trans1d
        axes = defaxes[:k1] + defaxes[k2:] + \
            defaxes[k1:k2]
        return obj.transpose(axes)

    def __init__(self, axis=0, matrix=False, ndmin=1, trans1d=-1):
        self.axis = axis
        self.trans1d = trans1d
        self.matrix = matrix
        self.ndmin = ndmin

    def __getitem__(self, key):
        trans1d = self.trans1d
        ndmin = self.ndmin
        objs = []
        arrays = []
        scalars = []
        if isinstance(key, str):
            raise NotImplementedError
        if not isinstance(key, tuple):
            key = (key,)

        for i, k in enumerate(key):
            if isinstance(k, slice):
                raise NotImplementedError
            elif isinstance(k, str):
                if i != 0:
                    raise ValueError(
                        'special directives must be the first entry.')
                raise NotImplementedError
            elif type(k) in numpy.ScalarType:
                newobj = _cp().array(k, ndmin=ndmin)
                scalars.append(i)
            else:
                newobj = _cp().array(k, copy=False, ndmin=ndmin)
                if ndmin > 1:
                    ndim = _cp().array(k, copy=False).ndim
                    if trans1d != -1 and ndim < ndmin:
                        newobj = self._output_obj(newobj, ndim, ndmin, trans1d)
                arrays.append(newobj)

            objs.append(newobj)

        final_dtype = numpy.result_type(*arrays, *[key[k] for k in scalars])
        if final_dtype is not None:
            for k in scalars:
                objs[k] = objs[k].astype(final_dtype)

        return _cp().concatenate(tuple(objs), axis=self.axis)

    def __len__(self):
        return 0


class CClass(AxisConcatenator):

    def __init__(self):
        super().__init__(-1, ndmin=2, trans1d=0)


c_ = CClass()
"""Translates slice objects to concatenation along the second axis.

This is a CuPy object that corresponds to :obj:`cupy.r_`, which is
useful because of its common occurrence. In particular, arrays will be
stacked along their last axis after being upgraded to at least 2-D with
1's post-pended to the shape (column vectors made out of 1-D arrays).

For detailed documentation, see :obj:`r_`.

This implementation is partially borrowed from NumPy's one.

Returns:
    cupy.ndarray: Joined array.

.. seealso:: :obj:`numpy.c_`

Examples
--------
>>> a = cupy.array([[1, 2, 3]], dtype=np.int32)
>>> b = cupy.array([[4, 5, 6]], dtype=np.int32)
>>> cupy.c_[a, 0, 0, b]
array([[1, 2, 3, 0, 0, 4, 5, 6]], dtype=int32)

"""


class RClass(AxisConcatenator):

    def __init__(self):
        super().__init__()


r_ = RClass()
"""Translates slice objects to concatenation along the first axis.

This is a simple way to build up arrays quickly.
If the index expression contains comma separated arrays, then stack
them along their first axis.

This object can build up from normal CuPy arrays.
Therefore, the other objects (e.g. writing strings like '2,3,4',
or using imaginary numbers like [1,2,3j],
or using string integers like '-1') are not implemented yet
compared with NumPy.

This implementation is partially borrowed from NumPy's one.

Returns:
    cupy.ndarray: Joined array.

.. seealso:: :obj:`numpy.r_`

Examples
--------
>>> a = cupy.array([1, 2, 3], dtype=np.int32)
>>> b = cupy.array([4, 5, 6], dtype=np.int32)
>>> cupy.r_[a, 0, 0, b]
array([1, 2, 3, 0, 0, 4, 5, 6], dtype=int32)

"""



class nd_grid:
    """Construct a multi-dimensional "meshgrid".

    ``grid = nd_grid()`` creates an instance which will return a mesh-grid
    when indexed.  The dimension and number of the output arrays are equal
    to the number of indexing dimensions.  If the step length is not a
    complex number, then the stop is not inclusive.

    However, if the step length is a **complex number** (e.g. 5j), then the
    integer part of its magnitude is interpreted as specifying the
    number of points to create between the start and stop values, where
    the stop value **is inclusive**.

    If instantiated with an argument of ``sparse=True``, the mesh-grid is
    open (or not fleshed out) so that only one-dimension of each returned
    argument is greater than 1.

    Args:
        sparse (bool, optional): Whether the grid is sparse or not.
            Default is False.

    .. seealso:: :data:`numpy.mgrid` and :data:`numpy.ogrid`

    """

    def __init__(self, sparse=False):
        self.sparse = sparse

    def __getitem__(self, key):
        if isinstance(key, slice):
            step = key.step
            stop = key.stop
            start = key.start
            if start is None:
                start = 0
            if isinstance(step, complex):
                step = abs(step)
                length = int(step)
                if step != 1:
                    step = (key.stop - start) / float(step - 1)
                stop = key.stop + step
                return _cp().arange(0, length, 1, float) * step + start
            else:
                return _cp().arange(start, stop, step)

        size = []
        typ = int
        for k in range(len(key)):
            step = key[k].step
            start = key[k].start
            if start is None:
                start = 0
            if step is None:
                step = 1
            if isinstance(step, complex):
                size.append(int(abs(step)))
                typ = float
            else:
                size.append(
                    int(math.ceil((key[k].stop - start) / (step * 1.0))))
            if (isinstance(step, float) or
                    isinstance(start, float) or
                    isinstance(key[k].stop, float)):
                typ = float
        if self.sparse:
            nn = [_cp().arange(_x, dtype=_t)
                  for _x, _t in zip(size, (typ,) * len(size))]
        else:
            nn = _cp().indices(size, typ)
        for k in range(len(size)):
            step = key[k].step
            start = key[k].start
            if start is None:
                start = 0
            if step is None:
                step = 1
            if isinstance(step, complex):
                step = int(abs(step))
                if step != 1:
                    step = (key[k].stop - start) / float(step - 1)
            nn[k] = (nn[k] * step + start)
        if self.sparse:
            slobj = [_cp().newaxis] * len(size)
            for k in range(len(size)):
                slobj[k] = slice(None, None)
                nn[k] = nn[k][tuple(slobj)]
                slobj[k] = _cp().newaxis
        return nn

    def __len__(self):
        return 0


mgrid = nd_grid(sparse=False)
ogrid = nd_grid(sparse=True)


class broadcast:
    """Object that mimics broadcasting of arrays (``cupy.broadcast``).

    See Also
    --------
    cupy.broadcast, numpy.broadcast
    """

    def __init__(self, *arrays: Any) -> None:
        cp = _cp()
        arrays = [a if isinstance(a, cp.ndarray) else cp.asarray(a) for a in arrays]
        self.shape = numpy.broadcast_shapes(*(a.shape for a in arrays))
        self.values = tuple(cp.broadcast_to(a, self.shape) for a in arrays)
        self.nd = self.ndim = len(self.shape)
        self.size = math.prod(self.shape)
        self.numiter = len(arrays)


class flatiter:
    """Flat iterator over an array (``ndarray.flat``); indexing runs on the server.

    See Also
    --------
    cupy.flatiter
    """

    def __init__(self, base: Any) -> None:
        self._base = base
        self._index = 0

    @property
    def base(self) -> Any:
        return self._base

    @staticmethod
    def _check_index(key: Any) -> None:
        # CuPy's flatiter takes a scalar, a slice or Ellipsis, nothing else
        if key is Ellipsis or isinstance(key, slice):
            return
        raise IndexError("unsupported iterator index")

    def _position(self, key: Any) -> tuple | None:
        """A scalar index as CuPy's flatiter reads it: ``int(key)`` spread over the
        base's axes with floor division (so -1 is the last element, and one out of
        range raises the base's own IndexError); None for any other key."""
        if isinstance(key, (tuple, bool)) or not numpy.isscalar(key):
            return None
        ind, size, indices = int(key), self._base.size, []
        for n in self._base.shape:
            size //= n
            indices.append(ind // size)
            ind %= size
        return tuple(indices)

    def __getitem__(self, key: Any) -> Any:
        position = self._position(key)
        if position is not None:
            return self._base[position].copy()
        self._check_index(key)
        return self._base._gs_session.call("flat_getitem", None, (self._base, key))

    def __setitem__(self, key: Any, value: Any) -> None:
        position = self._position(key)
        if position is not None:
            self._base[position] = value
            return
        self._check_index(key)
        self._base._gs_session.call("flat_setitem", None, (self._base, key, value))

    def __len__(self) -> int:
        return self._base.size

    def __iter__(self) -> "flatiter":
        return self

    def __next__(self) -> Any:
        index = self._index
        if index >= self._base.size:
            raise StopIteration
        self._index = index + 1
        return self._base[numpy.unravel_index(index, self._base.shape)] \
            if self._base.ndim != 1 else self._base[index]

    def copy(self) -> Any:
        return self._base.flatten()

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                        "`.get()` to construct a NumPy array explicitly.")
