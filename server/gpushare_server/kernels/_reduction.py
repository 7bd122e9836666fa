"""``ReductionKernel`` on the CPU emulator (mirrors cupy/_core/_reduction.pyx).

Each emulated thread reduces whole output elements sequentially (CuPy uses a
shared-memory tree; results equal up to floating point reassociation)."""
from __future__ import annotations

import ctypes
import operator

import numpy

from . import _common as C
from gpushare.cython_args import cython_signature

_TEMPLATE = '''{typedefs}typedef {index_type} IndexT;
{line_preamble}{preamble}
#define REDUCE(a, b) ({reduce_expr})
#define POST_MAP(a) ({post_map_expr})
typedef {reduce_type} _type_reduce;
extern "C" __global__ void {name}({params}) {{
  const ptrdiff_t _gs_out = _out_ind.size();
  const ptrdiff_t _gs_red = _gs_out > 0 ? _in_ind.size() / _gs_out : 0;
  const ptrdiff_t _gs_nt = (ptrdiff_t)gridDim.x * blockDim.x;
  const ptrdiff_t _gs_tid = (ptrdiff_t)blockIdx.x * blockDim.x + threadIdx.x;
  const ptrdiff_t _gs_chunk = (_gs_out + _gs_nt - 1) / _gs_nt;
  const ptrdiff_t _gs_beg = _gs_tid * _gs_chunk;
  const ptrdiff_t _gs_end =
      _gs_beg + _gs_chunk < _gs_out ? _gs_beg + _gs_chunk : _gs_out;
  for (ptrdiff_t _i = _gs_beg; _i < _gs_end; ++_i) {{
    _type_reduce _s = _type_reduce({identity});
    for (ptrdiff_t _J = 0; _J < _gs_red; ++_J) {{
      const ptrdiff_t _j = _J * _gs_out + _i;
      _in_ind.set(_j);
      {input_expr}
{line_map}      _type_reduce _a = static_cast<_type_reduce>({map_expr});
      _s = REDUCE(_s, _a);
    }}
    _out_ind.set(_i);
    {output_expr}
    POST_MAP(_s);
  }}
}}
'''


def cupy_lines(typedefs, preamble, n_inputs):
    """``#line`` directives giving the preamble (the ``REDUCE`` and ``POST_MAP``
    definitions after it) and the map expression the lines they have in CuPy's source,
    as NVRTC's log counts them: ``compile_with_cache``'s four ``#include`` lines, then
    ``_get_reduction_kernel_code``'s template (cupy/_core/_reduction.pyx), whose
    typedefs end with ``IndexT``'s, the map expression 30 lines below the preamble's
    first (the template's lines 3 and 33), after the inputs' declarations. An H200
    (NVRTC 13.0) put ``'T x'``'s map expression on line 36: the preamble on line 4 +
    the typedefs' lines."""
    first = 4 + typedefs.count('\n') + 1
    return ('#line %d "kernel.cu"\n' % first,
            '#line %d "kernel.cu"\n' % (first + preamble.count('\n') + 29
                                         + max(n_inputs, 1)))


def _is_sequence(obj):
    """CPython's ``PySequence_Check``: not a dict, and a type with ``sq_item`` (as
    ``__getitem__`` defined in Python, or by C sequences)."""
    return bool(ctypes.pythonapi.PySequence_Check(ctypes.py_object(obj)))


def _get_axis(axis, ndim):
    """CuPy's ``_get_axis`` (cupy/_core/_reduction.pyx): a sequence (by
    ``PySequence_Check``: a string too) is taken item by item, anything else as one
    axis; each converted to ``Py_ssize_t`` (its ``__index__``: a float or a string
    is Python's TypeError) and normalized (``AxisError``)."""
    if axis is None:
        return tuple(range(ndim))
    axis = tuple(axis) if _is_sequence(axis) else (axis,)
    ax = []
    for a in axis:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise numpy.exceptions.AxisError(a, ndim)
        ax.append(a % ndim)
    if len(set(ax)) != len(ax):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(ax))


class ReductionKernel:
    """User-defined reduction kernel (see ``cupy.ReductionKernel``)."""

    @cython_signature({'in_params': str, 'out_params': str})
    def __init__(self, in_params, out_params, map_expr, reduce_expr,
                 post_map_expr, identity, name='reduce_kernel',
                 reduce_type=None, reduce_dims=True, preamble='',
                 options=()):
        if not C.is_valid_kernel_name(name):
            raise ValueError('Invalid kernel name: "%s"' % name)
        self.in_params = C.get_param_info(in_params, True)
        self.out_params = C.get_param_info(out_params, False)
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.params = (
            self.in_params + self.out_params +
            C.get_param_info('CIndexer _in_ind, CIndexer _out_ind', False) +
            C.get_param_info('int32 _block_stride', True))
        self.identity = identity
        self.reduce_expr = reduce_expr
        self.map_expr = map_expr
        self.name = name
        self.options = tuple(options)
        self._options_given = options  # (CuPy keeps it as given: see __call__'s compile)
        self.reduce_dims = reduce_dims
        self.post_map_expr = post_map_expr
        if reduce_type is None:
            self.reduce_type = self.out_params[0].ctype
        else:
            self.reduce_type = reduce_type
        self.preamble = preamble
        self._cached_codes = {}
        self._memo = {}

    @property
    def cached_codes(self):
        return dict(self._cached_codes)

    @property
    def cached_code(self):
        codes = self._cached_codes
        if len(codes) != 1:
            raise RuntimeError(
                'This function cannot be called unless exactly one kernel has '
                'been compiled; {} kernels have been compiled.'.format(
                    len(codes)))
        return next(iter(codes.values()))

    def __call__(self, *args, **kwargs):
        out = kwargs.pop('out', None)
        axis = kwargs.pop('axis', None)
        keepdims = kwargs.pop('keepdims', False)
        kwargs.pop('stream', None)
        reduce_dims = self.reduce_dims  # (a constructor argument: CuPy's call takes none)
        if kwargs:
            raise TypeError('Wrong arguments %s' % kwargs)
        n_args = len(args)
        if n_args != self.nin and n_args != self.nargs:
            raise TypeError('Wrong number of arguments for %s' % self.name)
        out_args = list(args[self.nin:])
        if out is not None:
            if self.nout != 1:
                raise NotImplementedError('')
            if len(out_args) != 0:
                raise ValueError("cannot specify 'out' as both "
                                 "a positional and keyword argument")
            out_args = [out]
        in_args = [C.preprocess_arg(a) for a in args[:self.nin]]
        out_args = [C.preprocess_arg(a) for a in out_args]
        # CuPy's order: broadcast the inputs (``_broadcast``: the loop size), decide
        # the types (an output must be an array), then the axes
        arrays = [a for p, a in zip(self.in_params, in_args)
                  if isinstance(a, numpy.ndarray) and not p.raw]
        if not arrays:
            raise ValueError('Loop size is undecided.')
        in_shape = C.broadcast_shape(arrays, [
            a if isinstance(a, numpy.ndarray) and not p.raw else None
            for p, a in zip(self.in_params, in_args)])
        in_types, out_types, type_map = C.decide_params_type(
            self.in_params, self.out_params,
            tuple(C.arg_type(a)
                  for a in in_args),
            tuple(C.arg_type(a) for a in out_args))
        ndim = len(in_shape)
        reduce_axis = _get_axis(axis, ndim)
        out_axis = tuple(i for i in range(ndim) if i not in reduce_axis)
        if len(in_args) == 1 and len(out_axis) <= 1 and isinstance(
                in_args[0], numpy.ndarray) and not in_args[0].flags.c_contiguous:
            # (CuPy's ``_sort_axis``: one input, not C-contiguous: its reduced axes in
            # decreasing order of their strides' sizes, which is the order ``_J``
            # counts them in)
            strides = in_args[0].strides
            reduce_axis = tuple(sorted(reduce_axis, key=lambda i: -abs(strides[i])))
        if keepdims:
            out_shape = tuple(1 if i in reduce_axis else in_shape[i]
                              for i in range(ndim))
        else:
            out_shape = tuple(in_shape[i] for i in out_axis)

        if not out_args:
            out_args = [numpy.empty(out_shape, dtype=t) for t in out_types]
        else:
            for p, a in zip(self.out_params, out_args):
                if not p.raw and a.shape != out_shape:
                    raise ValueError('Out shape is mismatched')
        in_args = [a if isinstance(a, numpy.ndarray)
                   else C.cast_scalar(a.value, t)
                   for a, t in zip(in_args, in_types)]

        out_size = 1
        for i in out_axis:
            out_size *= in_shape[i]
        red_size = 1
        for i in reduce_axis:
            red_size *= in_shape[i]
        if out_size != 0:
            if red_size == 0 and (self.identity is None
                                  or str(self.identity) == ''):
                raise ValueError(
                    'zero-size array to reduction operation %s which has no '
                    'identity' % self.name)
            if reduce_axis + out_axis != tuple(range(ndim)) and any(
                    p.raw for p in self.in_params):
                # (``_set_permuted_args``: reduced axes that are not the leading ones
                # would transpose the arguments, which a raw one refuses)
                raise NotImplementedError('Illegal conditions')
            self._launch(in_args, out_args, in_shape, reduce_axis, out_axis,
                         keepdims, type_map, reduce_dims)
        return out_args[0]  # (CuPy's ``_call`` returns its first output only)

    def _launch(self, in_args, out_args, in_shape, reduce_axis, out_axis,
                keepdims, type_map, reduce_dims):
        oshape = tuple(in_shape[i] for i in out_axis)
        rshape = tuple(in_shape[i] for i in reduce_axis)
        in_idx = [i for i, (p, a) in enumerate(zip(self.in_params, in_args))
                  if isinstance(a, numpy.ndarray) and not p.raw]
        out_idx = [i for i, p in enumerate(self.out_params) if not p.raw]
        in_st = [C.bcast_strides(in_args[i], in_shape) for i in in_idx]
        out_st = []
        for i in out_idx:
            a = out_args[i]
            if keepdims:
                out_st.append(tuple(a.strides[j] for j in out_axis))
            else:
                out_st.append(tuple(a.strides))
        o_list = [tuple(st[j] for j in out_axis) for st in in_st] + out_st
        r_list = [tuple(st[j] for j in reduce_axis) for st in in_st]
        if reduce_dims:
            oshape, o_list = C.reduce_dims(oshape, o_list)
            rshape, r_list = C.reduce_dims(rshape, r_list)
        nin_arr = len(in_idx)
        # (CuPy's ``axis_permutes = reduce_axis + out_axis``: the reduced axes lead,
        # ``_j`` is ``_i + _J * _out_ind.size()``)
        full_in = {i: r_list[k] + o_list[k] for k, i in enumerate(in_idx)}
        full_out = {i: o_list[nin_arr + k] for k, i in enumerate(out_idx)}
        ishape = tuple(rshape) + tuple(oshape)

        decls, blobs, key = [], [], []
        input_expr, output_expr = [], []
        for i, (p, a) in enumerate(zip(self.in_params, in_args)):
            const = 'const ' if p.is_const else ''
            if isinstance(a, numpy.ndarray):
                if p.raw:
                    shp, st, cname = a.shape, a.strides, p.name
                else:
                    shp, st, cname = ishape, full_in[i], '_raw_' + p.name
                    input_expr.append('const {0} {1} = _raw_{1}[_in_ind.get()];'
                                      .format(p.ctype, p.name))
                t = C.carray_type(p.ctype, shp, st, a.itemsize)
                decls.append('%s%s %s' % (const, t, cname))
                blobs.append(C.carray_bytes(C.data_ptr(a), shp, st))
                key.append(t)
            else:
                decls.append('%s%s %s' % (const, p.ctype, p.name))
                blobs.append(a.tobytes())
                key.append(p.ctype)
        for i, (p, a) in enumerate(zip(self.out_params, out_args)):
            if p.raw:
                shp, st, cname = a.shape, a.strides, p.name
            else:
                shp, st, cname = oshape, full_out[i], '_raw_' + p.name
                output_expr.append('{0} &{1} = _raw_{1}[_out_ind.get()];'
                                   .format(p.ctype, p.name))
            t = C.carray_type(p.ctype, shp, st, a.itemsize)
            decls.append('%s %s' % (t, cname))
            blobs.append(C.carray_bytes(C.data_ptr(a), shp, st))
            key.append(t)
        decls.append('CIndexer<%d, 0> _in_ind' % len(ishape))
        blobs.append(C.cindexer_bytes(ishape))
        decls.append('CIndexer<%d, 0> _out_ind' % len(oshape))
        blobs.append(C.cindexer_bytes(oshape))
        decls.append('const int _block_stride')
        blobs.append(numpy.int32(1).tobytes())
        red = 1
        for n in rshape:
            red *= n
        # CuPy's ``IndexT`` (the reduction's index type, in its type map)
        index_type = 'long long' if red > 0x7fffffff else 'int'
        key = (tuple(key), len(ishape), len(oshape), type_map, index_type)
        fn = self._memo.get(key)
        if fn is None:
            # CuPy's kernel caches (``_util.memoize``) are keyed by the options as given:
            # a list is Python's "unhashable type" at the first compile
            hash(self._options_given)
            identity = '' if self.identity is None else str(self.identity)
            typedefs = C.typedef_code(type_map)
            fields = dict(
                typedefs=typedefs, preamble=self.preamble,
                index_type=index_type, reduce_type=self.reduce_type, reduce_expr=self.reduce_expr,
                post_map_expr=self.post_map_expr, name=self.name,
                params=', '.join(decls), identity=identity,
                input_expr='\n      '.join(input_expr),
                map_expr=self.map_expr,
                output_expr='\n    '.join(output_expr))
            code = _TEMPLATE.format(line_preamble='', line_map='', **fields)
            self._cached_codes[key] = code
            lines = cupy_lines(typedefs, self.preamble, len(input_expr))
            compiled, k = C.get_function(  # (NVRTC's line numbers in its errors)
                _TEMPLATE.format(line_preamble=lines[0], line_map=lines[1], **fields),
                self.name, self.options)
            fn = (compiled, k, compiled.signature(k))
            self._memo[key] = fn
        compiled, k, sizes = fn
        n = 1
        for s in oshape:
            n *= s
        C.launch_linear(compiled, k, n * 4096 if n < 4096 else n, blobs,
                        sizes, ftz=C.ftz_launch(list(in_args) + list(out_args)))
