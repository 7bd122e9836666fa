"""Shared pieces of ElementwiseKernel / ReductionKernel: parameter grammar,
type resolution (mirroring ``cupy/_core/_kernel.pyx``), argument
preprocessing, broadcasting and CArray/CIndexer marshalling."""
from __future__ import annotations

import re
import struct
import threading

import numpy

from gpushare import kernel_params, structured
from gpushare.kernel_params import param_info
from gpushare.protocol import HostArray

from . import _raw, _runtime

_typenames = {
    numpy.dtype('bool'): 'bool',
    numpy.dtype('int8'): 'signed char',
    numpy.dtype('uint8'): 'unsigned char',
    numpy.dtype('int16'): 'short',
    numpy.dtype('uint16'): 'unsigned short',
    numpy.dtype('int32'): 'int',
    numpy.dtype('uint32'): 'unsigned int',
    numpy.dtype('int64'): 'long long',
    numpy.dtype('uint64'): 'unsigned long long',
    numpy.dtype('float16'): 'float16',
    numpy.dtype('float32'): 'float',
    numpy.dtype('float64'): 'double',
    numpy.dtype('complex64'): 'thrust::complex<float>',
    numpy.dtype('complex128'): 'thrust::complex<double>',
}

_name_re = re.compile(r'^[A-Za-z_][A-Za-z_0-9]*$')


def is_valid_kernel_name(name):
    return isinstance(name, str) and _name_re.match(name) is not None


#: the type a texture or surface object argument takes in kernel type resolution: a
#: dtype no array has, named ``cudaTextureObject_t`` in the kernel (as CuPy passes
#: them); its value is the object's ``ptr``
TEXTURE_OBJECT = numpy.dtype([('cudaTextureObject_t', '<u8')])


def is_texture(a):
    """Whether ``a`` is a texture or surface object (the CPU backend's)."""
    return type(a).__name__ in ('TextureObject', 'SurfaceObject') and \
        isinstance(getattr(a, 'ptr', None), int)


def get_typename(dtype, type_decls=None):
    """CuPy's C++ name of ``dtype``; a structured (or void) dtype's is CuPy's
    ``cupy::StructView<...>`` (``cupy::UnstructuredVoid<n>``), whose declarations go
    into ``type_decls`` (see ``gpushare.structured``)."""
    dtype = numpy.dtype(dtype)
    try:
        return _typenames[dtype]
    except KeyError:
        pass
    if dtype == TEXTURE_OBJECT:
        return 'cudaTextureObject_t'
    if dtype.kind == 'V':
        return structured.get_typename(dtype, type_decls)
    raise TypeError('Unsupported dtype: %s' % dtype)


_param_cache = {}


def get_param_info(s, is_const):
    key = (s, is_const)
    r = _param_cache.get(key)
    if r is None:
        if len(s) == 0:
            r = ()
        else:
            r = param_info(s, is_const, get_typename)
        _param_cache[key] = r
    return r


def arg_type(a):
    """An argument's type for kernel type resolution: an array's scalar type, or its
    dtype when that is structured (``numpy.void`` alone would lose the fields); a
    texture object's ``TEXTURE_OBJECT``; None for a scalar (typed by its parameter)."""
    if isinstance(a, numpy.ndarray):
        return a.dtype if a.dtype.kind == 'V' else a.dtype.type
    if isinstance(a, Scalar) and isinstance(a.value, numpy.void) and \
            a.value.dtype == TEXTURE_OBJECT:
        return TEXTURE_OBJECT
    return None


def arg_dtype(a):
    """An argument's type as ``ElementwiseKernel`` resolves it: an array's dtype (CuPy's
    ``a.dtype``, which its type-mismatch messages print), a texture object's
    ``TEXTURE_OBJECT``; None for a scalar (typed by its parameter)."""
    if isinstance(a, numpy.ndarray):
        return a.dtype
    return arg_type(a)


#: how the parameters are typed and a scalar packed for its parameter's type (stated once
#: for both sides: the client checks a pipelined call's scalars by them)
decide_params_type = kernel_params.decide_params_type
cast_scalar = kernel_params.cast_scalar
scalar_dtype = kernel_params.scalar_dtype


class Scalar:
    __slots__ = ('value',)

    def __init__(self, value):
        self.value = value


def preprocess_arg(a):
    if isinstance(a, numpy.ndarray):
        return a
    if isinstance(a, HostArray):
        # numpy data sent by a client: CuPy refuses host arrays as kernel arguments
        raise TypeError('Unsupported type %s' % type(a.array))
    if isinstance(a, (numpy.generic, bool, int, float, complex)):
        return Scalar(a)
    if is_texture(a):  # a cudaTextureObject_t: the object's address
        return Scalar(numpy.array(a.ptr, dtype=TEXTURE_OBJECT)[()])
    if hasattr(a, '__array_interface__') or hasattr(a, '__array__'):
        return numpy.asarray(a)
    raise TypeError('Unsupported type %s' % type(a))


def broadcast_shape(arrays, slots=None):
    """The shape ``arrays`` broadcast to; else CuPy's error (``internal._broadcast_core``),
    naming every argument slot (``slots``: the arrays in place, None for a scalar or a
    raw argument, shown ``()``)."""
    try:
        return numpy.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        raise ValueError(
            'operands could not be broadcast together with shapes {}'.format(
                ' '.join([str(x.shape) if x is not None else '()'
                          for x in (arrays if slots is None else slots)]))) from None


def bcast_strides(a, shape):
    nd = len(shape)
    off = nd - a.ndim
    st = [0] * nd
    for i in range(a.ndim):
        if a.shape[i] != 1 or shape[off + i] == 1:
            st[off + i] = a.strides[i]
    return tuple(st)


def reduce_dims(shape, strides_list):
    """CuPy's ``_reduce_dims``: merge contiguous axes of all arrays."""
    ndim = len(shape)
    if ndim <= 1:
        return tuple(shape), list(strides_list)
    vecshape = list(shape)
    axis = -1
    cnt = 0
    for i in range(1, ndim):
        if vecshape[i - 1] == 1:
            continue
        for st in strides_list:
            if st[i] * vecshape[i] != st[i - 1]:
                cnt += 1
                axis = i - 1
                break
        else:
            vecshape[i] *= vecshape[i - 1]
            vecshape[i - 1] = 1
    if vecshape[ndim - 1] != 1:
        cnt += 1
        axis = ndim - 1
    if cnt == ndim:
        return tuple(shape), list(strides_list)
    if cnt == 1:
        return (vecshape[axis],), [(st[axis],) for st in strides_list]
    keep = [j for j in range(ndim) if vecshape[j] != 1]
    return (tuple(vecshape[j] for j in keep),
            [tuple(st[j] for j in keep) for st in strides_list])


def is_c_contig(shape, strides, itemsize):
    exp = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if s != exp:
            return False
        exp *= n
    return True


def carray_type(ctype, shape, strides, itemsize):
    nd = len(shape)
    cc = 1 if nd == 0 or is_c_contig(shape, strides, itemsize) else 0
    return 'CArray<%s, %d, %d, 0>' % (ctype, nd, cc)


def carray_bytes(ptr, shape, strides):
    size = 1
    for n in shape:
        size *= n
    nd = len(shape)
    return struct.pack('<Qq%dq%dq' % (nd, nd), ptr, size, *shape, *strides)


def cindexer_bytes(shape):
    size = 1
    for n in shape:
        size *= n
    nd = len(shape)
    return struct.pack('<q%dq%dq' % (nd, nd), size, *shape, *([0] * nd))


def data_ptr(a):
    return a.__array_interface__['data'][0]


def typedef_code(type_map):
    decls = set()
    typedefs = ''.join(['typedef %s %s;\n' % (get_typename(t, decls), k)
                        for k, t in type_map])
    return structured.format_type_decls(decls) + typedefs


# ------------------------------------------------------------ module cache
_mod_lock = threading.Lock()
_mod_cache = {}


def get_function(code, name, options=()):
    """Compile (cached) generated ``code`` and return (compiled, index)."""
    key = (code, name, tuple(options))
    r = _mod_cache.get(key)
    if r is None:
        with _mod_lock:
            r = _mod_cache.get(key)
            if r is None:
                ms = _raw._ModuleSource(code, options, [name],
                                        cupy_headers=True, name=name)
                r = ms.entry_index(name)
                _mod_cache[key] = r
    return r


ftz_launch = _runtime.ftz_launch


def launch_linear(compiled, k, n, blobs, sizes, ftz=False):
    """Launch a generated grid-stride kernel over ``n`` items (``ftz``: see
    ``ftz_launch``)."""
    nt = _runtime.num_threads()
    grid = max(1, min(n // 4096, nt * 8))
    params, keep = _raw.pack_args(blobs, sizes)
    r, _ = _runtime.launch(compiled.lib, k, (grid, 1, 1), (1, 1, 1), 0,
                           params, len(blobs), ftz=ftz)
    del keep
    if r != 0:
        raise RuntimeError('kernel launch failed (%d)' % r)
