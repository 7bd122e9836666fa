"""``ElementwiseKernel`` on the CPU emulator (mirrors cupy/_core/_kernel.pyx)."""
from __future__ import annotations

import numpy

from . import _common as C
from gpushare.cython_args import argument_type_error, cython_signature


_TEMPLATE = '''{typedefs}{line_preamble}{preamble}
extern "C" __global__ void {name}({params}) {{
  {loop_prep};
  const ptrdiff_t _gs_n = _ind.size();
  const ptrdiff_t _gs_nt = (ptrdiff_t)gridDim.x * blockDim.x;
  const ptrdiff_t _gs_tid = (ptrdiff_t)blockIdx.x * blockDim.x + threadIdx.x;
  const ptrdiff_t _gs_chunk = (_gs_n + _gs_nt - 1) / _gs_nt;
  const ptrdiff_t _gs_beg = _gs_tid * _gs_chunk;
  const ptrdiff_t _gs_end =
      _gs_beg + _gs_chunk < _gs_n ? _gs_beg + _gs_chunk : _gs_n;
  for (ptrdiff_t i = _gs_beg; i < _gs_end; ++i) {{
    _ind.set(i);
{line_operation}    {operation};
  }}
  {after_loop};
}}
'''


def cupy_lines(typedefs, preamble, loop_prep):
    """``#line`` directives giving the preamble and the operation (with its
    parameters' declarations) the lines they have in CuPy's source, as NVRTC's log
    counts them: ``compile_with_cache``'s four ``#include`` lines, then
    ``_get_simple_elementwise_kernel_code``'s template (cupy/_core/_kernel.pyx): the
    preamble on line 7 + the typedefs' lines, ``loop_prep`` two lines after it, the
    operation four after that."""
    first = 7 + typedefs.count('\n')
    operation = first + preamble.count('\n') + 2 + loop_prep.count('\n') + 4
    return ('#line %d "kernel.cu"\n' % first, '#line %d "kernel.cu"\n' % operation)


#: ``_get_elementwise_kernel``'s parameters after its positional ones, with their
#: defaults and types (cupy/_core/_kernel.pyx)
_KERNEL_KWARGS = (('loop_prep', '', str), ('after_loop', '', str), ('options', (), tuple))


def _kernel_kwargs(kwargs):
    """The constructor's extra keyword arguments as CuPy hands them on to the memoized
    ``_get_elementwise_kernel(..., **self.kwargs)``: hashed first (the memo's key),
    then Cython's keyword and type checks; ``(loop_prep, after_loop, options)``."""
    if kwargs:
        frozenset(kwargs.items())  # (TypeError: unhashable type)
    for k in kwargs:
        if k in ('arginfos', 'type_map', 'params'):  # (its positional parameters)
            raise TypeError("_get_elementwise_kernel() got multiple values for keyword "
                            "argument '%s'" % k)
        if k not in ('loop_prep', 'after_loop', 'options'):
            raise TypeError("_get_elementwise_kernel() got an unexpected keyword "
                            "argument '%s'" % k)
    values = []
    for k, default, t in _KERNEL_KWARGS:
        v = kwargs.get(k, default)
        if v is not None and not isinstance(v, t):
            raise argument_type_error(k, t.__name__, v)
        values.append(v)
    loop_prep, after_loop, options = values
    return loop_prep, after_loop, tuple(options or ())


class ElementwiseKernel:
    """User-defined elementwise kernel (see ``cupy.ElementwiseKernel``)."""

    @cython_signature()
    def __init__(self, in_params, out_params, operation, name='kernel',
                 reduce_dims=True, preamble='', no_return=False,
                 return_tuple=False, **kwargs):
        # CuPy's signature: ``loop_prep``, ``after_loop`` and ``options`` are
        # keyword arguments kept in ``kwargs``, handed on at the first call
        if not C.is_valid_kernel_name(name):
            raise ValueError('Invalid kernel name: "%s"' % name)
        self.in_params = C.get_param_info(in_params, True)
        self.out_params = C.get_param_info(out_params, False)
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        param_rest = C.get_param_info('CIndexer _ind', False)
        self.params = self.in_params + self.out_params + param_rest
        self.operation = operation
        self.name = name
        self.reduce_dims = reduce_dims
        self.preamble = preamble
        self.no_return = no_return
        self.return_tuple = return_tuple
        self.kwargs = kwargs
        self._params_type_memo = {}
        self._cached_codes = {}
        self._elementwise_kernel_memo = {}
        names = [p.name for p in self.params]
        if 'i' in names:
            raise ValueError("Can not use 'i' as a parameter name")

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

    def _decide_params_type(self, in_args_dtype, out_args_dtype):
        key = (in_args_dtype, out_args_dtype)
        ret = self._params_type_memo.get(key)
        if ret is None:
            ret = C.decide_params_type(self.in_params, self.out_params,
                                       in_args_dtype, out_args_dtype)
            self._params_type_memo[key] = ret
        return ret

    def __call__(self, *args, **kwargs):
        size = kwargs.pop('size', None)
        if size is None:
            size = -1
        kwargs.pop('stream', None)
        block_size = kwargs.pop('block_size', None)
        if kwargs:
            raise TypeError('Wrong arguments %s' % kwargs)
        if block_size is None:
            block_size = 128
        if block_size <= 0:
            raise ValueError('block_size must be greater than zero')
        n_args = len(args)
        if n_args != self.nin and n_args != self.nargs:
            raise TypeError(
                'Wrong number of arguments for {!r}. It must be either {} or '
                '{} (with outputs), but given {}.'.format(
                    self.name, self.nin, self.nargs, n_args))
        arg_list = [C.preprocess_arg(a) for a in args]
        in_args = arg_list[:self.nin]
        out_args = arg_list[self.nin:]

        # CuPy broadcasts first (``_broadcast``: the loop size), then decides the
        # types from the arrays' dtypes (not their scalar types: its messages name
        # them so)
        is_size_specified = size != -1
        broad_values = [a for i, a in enumerate(arg_list)
                        if isinstance(a, numpy.ndarray)
                        and not self.params[i].raw]
        if is_size_specified:
            if broad_values:
                raise ValueError(
                    "Specified 'size' can be used only if all of the ndarray "
                    "are 'raw'.")
        elif not broad_values:
            raise ValueError('Loop size is undecided.')
        shape = C.broadcast_shape(broad_values, [
            a if isinstance(a, numpy.ndarray) and not self.params[i].raw else None
            for i, a in enumerate(arg_list)]) if broad_values else ()

        in_ndarray_types = tuple([C.arg_dtype(a) for a in in_args])
        # (CuPy's ``a.dtype`` of every output: a scalar's too, its CScalar's)
        out_ndarray_types = tuple([C.scalar_dtype(a.value) if isinstance(a, C.Scalar)
                                   and C.arg_dtype(a) is None else C.arg_dtype(a)
                                   for a in out_args])
        in_types, out_types, type_map = self._decide_params_type(
            in_ndarray_types, out_ndarray_types)
        if is_size_specified:
            shape = (int(size),)

        # outputs
        if not out_args:
            for p in self.out_params:
                if p.raw and not is_size_specified:
                    raise ValueError('Output array size is Undecided')
            out_args = [numpy.empty(shape, dtype=t) for t in out_types]
        else:
            for i, p in enumerate(self.out_params):
                a = out_args[i]
                if not isinstance(a, numpy.ndarray):
                    raise TypeError(
                        'Output arguments type must be cupy.ndarray')
                if not p.raw and a.shape != tuple(shape):
                    raise ValueError('Out shape is mismatched')

        ret = out_args
        total = 1
        for n in shape:
            total *= n
        if total != 0:  # (an empty loop returns first: its scalars are never packed,
            # so one that does not fit its type raises nothing, as in CuPy)
            in_args = [a if isinstance(a, numpy.ndarray)
                       else C.cast_scalar(a.value, t)
                       for a, t in zip(in_args, in_types)]
            self._launch(in_args + out_args, shape, type_map)
        if self.no_return:
            return None
        if not self.return_tuple and self.nout == 1:
            return ret[0]
        return tuple(ret)

    def _launch(self, args, shape, type_map):
        loop_prep, after_loop, options = _kernel_kwargs(self.kwargs)
        params = self.params[:self.nargs]
        nonraw = [i for i, (p, a) in enumerate(zip(params, args))
                  if isinstance(a, numpy.ndarray) and not p.raw]
        strides_list = [C.bcast_strides(args[i], shape) for i in nonraw]
        if self.reduce_dims:
            shape, strides_list = C.reduce_dims(tuple(shape), strides_list)
        st_of = dict(zip(nonraw, strides_list))
        decls, blobs, key = [], [], []
        for i, (p, a) in enumerate(zip(params, args)):
            const = 'const ' if p.is_const else ''
            ctype = p.ctype
            if isinstance(a, numpy.ndarray):
                if p.raw:
                    shp, st = a.shape, a.strides
                    cname = p.name
                else:
                    shp, st = shape, st_of[i]
                    cname = '_raw_' + p.name
                t = C.carray_type(ctype, shp, st, a.itemsize)
                decls.append('%s%s %s' % (const, t, cname))
                blobs.append(C.carray_bytes(C.data_ptr(a), shp, st))
                key.append(t)
            else:
                decls.append('%s%s %s' % (const, ctype, p.name))
                blobs.append(a.tobytes())
                key.append(ctype)
        decls.append('CIndexer<%d, 0> _ind' % len(shape))
        blobs.append(C.cindexer_bytes(shape))
        key = (tuple(key), len(shape), type_map)
        fn = self._elementwise_kernel_memo.get(key)
        if fn is None:
            op = []
            for i, (p, a) in enumerate(zip(params, args)):
                if not p.raw and isinstance(a, numpy.ndarray):
                    if p.is_const:
                        fmt = 'const {t} &{n} = _raw_{n}[_ind.get()];'
                    else:
                        fmt = '{t} &{n} = _raw_{n}[_ind.get()];'
                    op.append(fmt.format(t=p.ctype, n=p.name))
            op.append(self.operation)
            typedefs = C.typedef_code(type_map)
            fields = dict(typedefs=typedefs, preamble=self.preamble,
                          name=self.name, params=', '.join(decls),
                          loop_prep=loop_prep, operation='\n'.join(op),
                          after_loop=after_loop)
            code = _TEMPLATE.format(line_preamble='', line_operation='', **fields)
            self._cached_codes[key] = code
            lines = cupy_lines(typedefs, self.preamble, loop_prep)
            compiled, k = C.get_function(  # (NVRTC's line numbers in its errors)
                _TEMPLATE.format(line_preamble=lines[0], line_operation=lines[1], **fields),
                self.name, options)
            fn = (compiled, k, compiled.signature(k))
            self._elementwise_kernel_memo[key] = fn
        compiled, k, sizes = fn
        total = 1
        for n in shape:
            total *= n
        C.launch_linear(compiled, k, total, blobs, sizes, ftz=C.ftz_launch(args))
