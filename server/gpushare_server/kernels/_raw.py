"""RawKernel / RawModule on the CPU emulator."""
from __future__ import annotations

import re
import struct
import threading

import numpy

from gpushare import launch_rules
from gpushare.protocol import HostArray, mdspan_arg

from . import _build, _runtime, _source
from gpushare.cython_args import cython_signature
from ._errors import CompileException, CUDADriverError, JitifyException

_MAX_SHARED_DEFAULT = launch_rules.MAX_SHARED_DEFAULT
_MAX_SHARED_OPTIN = launch_rules.MAX_SHARED_OPTIN


#: what the host's <math.h> defines and NVRTC has not (an H200's NVRTC 13: ``error:
#: identifier "NAN" is undefined``): hidden from the kernel's source after the
#: emulator's own headers have used them
_HOST_ONLY_MACROS = '#undef NAN\n#undef INFINITY\n'


def _entry_code(code, entries, globals_, fibers, cupy_headers=False, nvrtc=False):
    head = '#define GS_USE_FIBERS %d\n' % (1 if fibers else 0)
    if _source.uses_grid_sync(code):
        head += '#define GS_GRID_SYNC 1\n'  # a cooperative launch (gs_launch)
    head += ('#include "gpushare_cupy.h"\n' if cupy_headers
             else '#include "gpushare_cuda.h"\n')
    if nvrtc:
        head += _HOST_ONLY_MACROS
    body = _source.rewrite(code)
    lines = [head, '#line 1 "kernel.cu"\n', body, '\n#line 1 "gs_entries"\n']
    # the parameters' names must not hide a kernel's (a kernel may well be called `k`)
    lines.append('GS_EXPORT int gs_module_launch(int gs_which_, const gs_launch_t* gs_l_,'
                 ' void** gs_p_, int gs_n_) {\n  switch (gs_which_) {\n')
    for i, e in enumerate(entries):
        lines.append('    case %d: return gs_launch(gs_l_, gs_p_, gs_n_, &%s);\n' % (i, e))
    lines.append('  }\n  return -2;\n}\n')
    lines.append('GS_EXPORT int gs_module_signature(int gs_which_, long long* gs_s_, '
                 'int gs_cap_) {\n  switch (gs_which_) {\n')
    for i, e in enumerate(entries):
        lines.append('    case %d: return gs_signature(gs_s_, gs_cap_, &%s);\n'
                     % (i, e))
    lines.append('  }\n  return -2;\n}\n')
    lines.append('GS_EXPORT void* gs_module_global(const char* gs_name_, '
                 'size_t* gs_size_) {\n')
    for g in globals_:
        lines.append('  if (strcmp(gs_name_, "%s") == 0) { *gs_size_ = sizeof(%s); '
                     'return (void*)&%s; }\n' % (g, g, g))
    lines.append('  *gs_size_ = 0;\n  return 0;\n}\n')
    return ''.join(lines)


class _Compiled:
    """A compiled module: a dlopen'd library plus its entry table."""

    def __init__(self, lib, entries, globals_, path):
        self.lib = lib
        self.entries = list(entries)
        self.globals = list(globals_)
        self.path = path
        self._sigs = {}

    def signature(self, k):
        s = self._sigs.get(k)
        if s is None:
            from ._runtime import ffi
            buf = ffi.new('long long[]', 256)
            n = self.lib.gs_module_signature(k, buf, 256)
            s = tuple(buf[i] for i in range(min(n, 256)))
            self._sigs[k] = s
        return s


#: ``#include <cuComplex.h>`` (CuPy's ``_cucomplex_include_pattern``)
_CUCOMPLEX_INCLUDE_RE = re.compile(r'\s*'.join(['', '#', 'include', '<', r'cuComplex\.h',
                                                 '>']))


def translate_cucomplex(code):
    """CuPy's ``translate_cucomplex=True``: the ``cuComplex.h`` include becomes CuPy's
    bridge header (cuComplex's names as macros over ``complex<T>``), and CuPy's
    headers are prepended."""
    lines = []
    for line in code.splitlines(keepends=True):
        if _CUCOMPLEX_INCLUDE_RE.match(line):
            lines.append('#include <cupy/cuComplex_bridge.h>  // translate_cucomplex\n')
        else:
            lines.append(line)
    return ''.join(lines)


def _entry_lines(log, entries):
    """The entries whose lines of the generated launch table the compile log blames
    (``gs_entries`` line ``3 + i`` takes the address of entry ``i``)."""
    blamed = set()
    for m in re.finditer(r'gs_entries[:(](\d+)[:)]', log or ''):
        i = int(m.group(1)) - 3
        if 0 <= i < len(entries):
            blamed.add(entries[i])
    return blamed


def _write_log(log_stream, text):
    """CuPy writes the compiler's log to ``log_stream``; gpushare's client, whose stream
    cannot travel, passes True and is given the text."""
    if log_stream is True:
        return text
    if log_stream is not None:
        log_stream.write(text)
    return None


def _check_backend(backend, jitify):
    """CuPy's checks when it compiles (``_compile_with_cache_cuda``)."""
    if jitify and backend != 'nvrtc':
        raise ValueError('jitify only works with NVRTC')
    if backend not in ('nvrtc', 'nvcc'):
        raise ValueError('Invalid backend %s' % backend)


class _ModuleSource:
    """Source + lazily compiled module; recompiles when new entry points
    (kernels or globals) are requested.

    A template kernel is found only by a name expression given to the module (as
    NVRTC instantiates and names only those), and NVRTC's include path has no C++
    standard library (``_build.nvrtc_headers``); ``jitify=True`` mimics Jitify's
    preprocessing: the standard headers are there, a missing header is commented out
    (an empty header stands for it), and an error in the source is a
    :class:`JitifyException`."""

    def __init__(self, code, options=(), name_expressions=None,
                 cupy_headers=False, name='kernel', translate=False, jitify=False,
                 backend='nvrtc'):
        self.code = code
        self.backend = backend
        self.options = tuple(options or ())
        self.cupy_headers = cupy_headers or translate
        self.source = translate_cucomplex(code) if translate else code
        self.name = name
        self.jitify = bool(jitify)
        self.fibers = _source.uses_fibers(code)
        self.name_expressions = tuple(name_expressions or ())
        entries = list(self.name_expressions)
        # the symbols of extern "C" kernels -> the expressions naming them; a kernel of
        # C++ linkage is in the table (so that it compiles) but not found by its name
        # without a name expression (NVRTC's module has it under a mangled name)
        self._symbols: dict = {}
        self._mangled: set = set()
        for expression, symbol in _source.kernels(code):
            if expression not in entries:
                entries.append(expression)
            if symbol is not None:
                self._symbols.setdefault(symbol, expression)
            else:
                self._mangled.update((expression, expression.rpartition('::')[2]))
        self.entries = entries
        self.globals = _source.global_names(code)
        self._compiled = None
        self._stubs = set()   # headers Jitify would comment out
        self._lock = threading.RLock()

    def findable(self, name):
        """Whether NVRTC could give a kernel of this name: a template's, or one of C++
        linkage (in a namespace, or not ``extern "C"``), only by a name expression of
        the module."""
        if name in self.name_expressions or name in self._symbols:
            return True
        return '<' not in name and '::' not in name and name not in self._mangled

    def _build_once(self, entries, globals_):
        src = _entry_code(self.source, entries, globals_, self.fibers,
                          self.cupy_headers,
                          nvrtc=self.backend == 'nvrtc' and not self.jitify)
        while True:
            extra = (('-idirafter', str(_build.stub_headers(self._stubs)))
                     if self._stubs else ())
            if self.backend == 'nvrtc' and not self.jitify:  # (nvcc has the host's)
                extra += ('-I', str(_build.nvrtc_headers()))
            try:
                path = _build.build_shared(src, self.name, self.options, self.code,
                                           extra_flags=extra)
            except CompileException as e:
                missing = set(_build.missing_headers(str(e))) - self._stubs
                if not self.jitify or not missing:
                    raise
                self._stubs |= missing  # Jitify: "[jitify] File not found", and on
                continue
            lib = _runtime.load_module(path)
            return _Compiled(lib, entries, globals_, path)

    def _build(self, entries, globals_):
        try:
            return self._build_once(entries, globals_)
        except CompileException as e:
            log = str(e)
            bad = [n for n in _entry_lines(log, entries)
                   if n in self.name_expressions and '<' in n]
            if bad:
                try:  # the source alone compiles: its name expressions are wrong
                    self._build_once([n for n in entries if n not in bad], globals_)
                except CompileException:
                    pass
                else:
                    msg = log + ''.join('Error in parsing name expression: %s\n' % n
                                        for n in sorted(bad))
                    raise CompileException(msg, e.source, e.name, e.options,
                                           e.backend) from None
            if self.jitify:
                raise JitifyException(str(e)) from e
            raise

    def compiled(self):
        c = self._compiled
        if c is None:
            _check_backend(self.backend, self.jitify)
            with self._lock:
                c = self._compiled
                if c is None:
                    try:
                        c = self._build(self.entries, self.globals)
                    except Exception:
                        if not self.globals:
                            raise
                        # the global-variable scan may have been wrong
                        c = self._build(self.entries, [])
                    self._compiled = c
        return c

    def log(self):
        """The compiler's warnings about the source (``compile(log_stream=)``)."""
        return _build.compile_log(self.compiled().path)

    def entry_index(self, name):
        c = self.compiled()
        if name is None:  # (Cython's ``str name`` lets None through to ``name.encode()``)
            raise AttributeError("'NoneType' object has no attribute 'encode'")
        if not self.findable(name):
            raise CUDADriverError('CUDA_ERROR_NOT_FOUND', 'named symbol not found')
        if name not in self.name_expressions:
            name = self._symbols.get(name, name)
        if name in c.entries:
            return c, c.entries.index(name)
        with self._lock:
            entries = c.entries + [name]
            try:
                c2 = self._build(entries, c.globals)
            except Exception:
                raise CUDADriverError('CUDA_ERROR_NOT_FOUND',
                                      'named symbol not found')
            self._compiled = c2
            self.entries = entries
            return c2, len(entries) - 1

    def global_ptr(self, name):
        from ._runtime import ffi
        c = self.compiled()
        if name not in c.globals:
            with self._lock:
                globals_ = c.globals + [name]
                try:
                    c2 = self._build(c.entries, globals_)
                except Exception:
                    raise CUDADriverError('CUDA_ERROR_NOT_FOUND',
                                          'named symbol not found')
                self._compiled = c = c2
                self.globals = globals_
        size = ffi.new('size_t*')
        p = c.lib.gs_module_global(name.encode(), size)
        if p == ffi.NULL:
            raise CUDADriverError('CUDA_ERROR_NOT_FOUND',
                                  'named symbol not found')
        return p, size[0]


# ------------------------------------------------------------ marshalling
def _mdspan_bytes(m):
    """libcudacxx's ``mdspan`` of a layout_stride mapping, as CuPy packs it
    (cupy/_core/_carray.pyx): the data pointer, every extent, every stride in
    elements, in the index type (a layout_right/left kernel reads the extents only).
    The client made CuPy's checks when the user called ``ndarray.mdspan``."""
    a = m.array
    if not isinstance(a, numpy.ndarray):
        raise TypeError('gpushare: an mdspan of %s' % type(a).__name__)
    code = '<i' if m.index_itemsize == 4 else '<q'
    items = list(a.shape) + [s // a.itemsize for s in a.strides]
    return (struct.pack('<Q', a.__array_interface__['data'][0])
            + numpy.array(items, dtype=code).tobytes())


def _arg_bytes(a):
    """Bytes CuPy would pass for kernel argument ``a`` (cuLaunchKernel)."""
    if isinstance(a, bytes):
        return a
    if mdspan_arg(a) is not None:
        return _mdspan_bytes(a)
    if a is None:
        return b'\0' * 8
    if isinstance(a, HostArray):
        # numpy data sent by a client: passed by value when of size one (CuPy's
        # CNumpyArray: a struct, or a value of any shape); a host buffer has no device
        # address (cupy/cuda/function.pyx _pointer)
        h = a.array
        if h.size == 1:
            return h.tobytes()
        raise TypeError(
            'You are trying to pass a numpy.ndarray of shape {} as a kernel parameter. '
            'Only numpy.ndarrays of size one can be passed by value. If you meant to '
            'pass a pointer to __global__ memory, you need to pass a cupy.ndarray '
            'instead.'.format(h.shape))
    if isinstance(a, numpy.ndarray):    # a device array: its address
        return struct.pack('<Q', a.__array_interface__['data'][0])
    if isinstance(a, numpy.generic):
        return a.tobytes()
    if isinstance(a, bool):
        # CuPy's CScalar of a Python bool: one byte (``numpy_dtype_from_pyscalar``), in
        # a zeroed buffer (a wider parameter reads 0 or 1; pack_args zeroes its slots)
        return numpy.bool_(a).tobytes()
    if isinstance(a, int):
        # CuPy's CScalar: an int64, a uint64 from 2**63 on (``numpy_dtype_from_pyscalar``)
        # stored by NumPy's assignment (``PyArray_Pack``), whose error is NumPy's own for
        # what neither holds ("Python int too large to convert to C long", as on a GPU)
        slot = numpy.empty((), numpy.uint64 if a >= 2 ** 63 else numpy.int64)
        slot[()] = a
        return slot.tobytes()
    if isinstance(a, float):
        return numpy.float64(a).tobytes()
    if isinstance(a, complex):
        return numpy.complex128(a).tobytes()
    cai = getattr(a, '__cuda_array_interface__', None)
    if cai is not None:
        return struct.pack('<Q', cai['data'][0])
    ai = getattr(a, '__array_interface__', None)
    if ai is not None:
        return struct.pack('<Q', ai['data'][0])
    ptr = getattr(a, 'ptr', None)
    if isinstance(ptr, int):
        return struct.pack('<Q', ptr)
    raise TypeError('Unsupported type %s' % type(a))


def pack_args(args, sizes):
    """Build the ``void**`` kernel parameter array; returns (params, keep)."""
    from ._runtime import ffi
    n = len(args)
    blobs = [_arg_bytes(a) for a in args]
    offs = []
    total = 0
    for i, b in enumerate(blobs):
        need = max(len(b), sizes[i] if i < len(sizes) else 0, 1)
        offs.append(total)
        total += (need + 15) // 16 * 16
    buf = ffi.new('char[]', total + 16)
    base = int(ffi.cast('uintptr_t', buf))
    pad = (-base) % 16
    params = ffi.new('void*[]', max(n, 1))
    for i, b in enumerate(blobs):
        o = offs[i] + pad
        ffi.memmove(buf + o, b, len(b))
        params[i] = buf + o
    return params, buf


def check_launch(grid, block, shared_mem, max_dyn):
    """``grid``, ``block`` and the dynamic shared memory as ``cuLaunchKernel`` receives
    them from CuPy (``gpushare.launch_rules``); CuPy's TypeError or OverflowError, or
    CUDA's ``CUDA_ERROR_INVALID_VALUE`` where CUDA refuses them."""
    g = launch_rules.dim3(grid, 'grid')
    b = launch_rules.dim3(block, 'block')
    if not launch_rules.within_limits(g, b, shared_mem, max_dyn):
        raise CUDADriverError('CUDA_ERROR_INVALID_VALUE', 'invalid argument')
    return g, b, launch_rules.shared_mem_bytes(shared_mem)


class RawKernel:
    """User-defined custom kernel, emulated on the CPU (see CuPy's
    ``cupy.RawKernel``).  Arguments: NumPy arrays (they stand for device
    arrays and are passed as pointers to their data), ``None`` (NULL),
    Python/NumPy scalars (by value, CuPy's widths), size-1 structured NumPy
    arrays (struct by value)."""

    @cython_signature({'code': str, 'name': str, 'options': tuple, 'backend': str})
    def __init__(self, code, name, options=(), backend='nvrtc', *,
                 translate_cucomplex=False, enable_cooperative_groups=False,
                 jitify=None):
        self.code = code
        self.name = name
        self.options = tuple(options) if options is not None else None
        self.backend = backend
        self.translate_cucomplex = translate_cucomplex
        self.enable_cooperative_groups = enable_cooperative_groups
        self.jitify = jitify
        self.file_path = None
        self.name_expressions = None
        self._module = None
        self._max_dyn = _MAX_SHARED_DEFAULT
        self._carveout = -1

    @classmethod
    def _from_module(cls, module, name):
        k = cls(module.code, name, module.options, module.backend,
                translate_cucomplex=module.translate_cucomplex,
                enable_cooperative_groups=module.enable_cooperative_groups,
                jitify=module.jitify or None)
        k.file_path = module.file_path
        k.name_expressions = module.name_expressions
        k._module = module._msrc
        return k

    def _msrc(self):
        if self._module is None:
            self._module = _ModuleSource(self.code, self.options, None,
                                         name=self.name, backend=self.backend,
                                         translate=self.translate_cucomplex,
                                         jitify=self.jitify)
        return self._module

    @cython_signature(name='compile')
    def compile(self, log_stream=None):
        """Compile now (normally done on first launch); the compiler's warnings go to
        ``log_stream`` (``log_stream=True``: returned, for gpushare's client)."""
        m = self._msrc()
        m.entry_index(self.name)
        return _write_log(log_stream, m.log())

    @property
    def kernel(self):
        return self

    @cython_signature(name='__call__')
    def __call__(self, grid, block, args, **kwargs):
        # CuPy's ``RawKernel.__call__(self, grid, block, args, **kwargs)``: compiles
        # (``self.kernel``), then calls ``Function.__call__(grid, block, args,
        # enable_cooperative_groups=self.enable_cooperative_groups, **kwargs)``, whose
        # arguments and steps ``gpushare.launch_rules`` states: the keywords, the
        # conversion of ``shared_mem``, the tuple tests, the padding, the stream, the
        # dimensions (``_launch``'s parameters), then the arguments (``len(args)``,
        # ``_pointer`` of each), then the cooperative check
        c, k = self._msrc().entry_index(self.name)
        kwargs = launch_rules.function_kwargs(kwargs, self.enable_cooperative_groups)
        if isinstance(grid, HostArray):  # (a client's numpy array: CuPy names its type)
            grid = grid.array
        if isinstance(block, HostArray):
            block = block.array
        grid3, block3, args, shared_mem, stream = launch_rules.function_call(
            grid, block, args, **kwargs)
        launch_rules.stream_ptr(stream)
        launch_rules.dims(grid3)
        launch_rules.dims(block3)
        len(args)  # (Python's TypeError for an object without a length, as CuPy's)
        args = list(args)
        sizes = c.signature(k)
        params, keep = pack_args(args, sizes)
        if self.enable_cooperative_groups:
            grid, message = launch_rules.cooperative_grid(grid)
            if message is not None:
                import warnings
                warnings.warn(message, UserWarning)
        g, b, shared_mem = check_launch(grid, block, shared_mem, self._max_dyn)
        if len(sizes) != len(args):
            raise CUDADriverError(
                'CUDA_ERROR_INVALID_VALUE',
                'invalid argument (kernel %s takes %d arguments, %d given)'
                % (self.name, len(sizes), len(args)))
        r, _ = _runtime.launch(c.lib, k, g, b, int(shared_mem), params, len(args),
                               bool(self.enable_cooperative_groups),
                               ftz=_runtime.ftz_launch(args))  # (-ftz=true)
        del keep
        if r == -3:  # GS_COOP_MAX_BLOCKS
            raise CUDADriverError('CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE',
                                  'too many blocks in cooperative launch')
        if r != 0:
            raise CUDADriverError('CUDA_ERROR_LAUNCH_FAILED',
                                  'unspecified launch failure')

    # -- attributes (values of a typical sm_90 kernel where not emulated)
    @property
    def max_threads_per_block(self):
        return 1024

    @property
    def shared_size_bytes(self):
        return 0

    @property
    def const_size_bytes(self):
        return 0

    @property
    def local_size_bytes(self):
        return 0

    @property
    def num_regs(self):
        return 32

    @property
    def ptx_version(self):
        return 90

    @property
    def binary_version(self):
        return 90

    @property
    def cache_mode_ca(self):
        return 0

    @property
    def max_dynamic_shared_size_bytes(self):
        return self._max_dyn

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, v):
        v = int(v)
        if v < 0 or v > _MAX_SHARED_OPTIN:
            raise CUDADriverError('CUDA_ERROR_INVALID_VALUE',
                                  'invalid argument')
        self._max_dyn = v

    @property
    def preferred_shared_memory_carveout(self):
        return self._carveout

    @preferred_shared_memory_carveout.setter
    def preferred_shared_memory_carveout(self, v):
        self._carveout = int(v)

    @property
    def attributes(self):
        return {
            'max_threads_per_block': self.max_threads_per_block,
            'shared_size_bytes': self.shared_size_bytes,
            'const_size_bytes': self.const_size_bytes,
            'local_size_bytes': self.local_size_bytes,
            'num_regs': self.num_regs,
            'ptx_version': self.ptx_version,
            'binary_version': self.binary_version,
            'cache_mode_ca': self.cache_mode_ca,
            'max_dynamic_shared_size_bytes':
                self.max_dynamic_shared_size_bytes,
            'preferred_shared_memory_carveout':
                self.preferred_shared_memory_carveout,
        }


class RawModule:
    """User-defined custom module (see ``cupy.RawModule``).

    ``get_global(name)`` returns a writable ``numpy.ndarray`` of dtype
    ``uint8`` viewing the bytes of the ``__device__``/``__constant__``
    variable (``.ctypes.data`` is its address; use ``.view(dtype)`` to
    reinterpret)."""

    @cython_signature({'code': str, 'path': str, 'options': tuple, 'backend': str})
    def __init__(self, *, code=None, path=None, options=(), backend='nvrtc',
                 translate_cucomplex=False, enable_cooperative_groups=False,
                 name_expressions=None, jitify=None):
        if (code is None) == (path is None):
            raise TypeError(
                'Exactly one of `code` and `path` keyword arguments must be '
                'given.')
        if name_expressions is not None:
            if code is None:
                raise ValueError('need CUDA C++ code for the requested '
                                 'kernels')
            if backend != 'nvrtc':
                raise ValueError('only nvrtc supports retrieving the mangled '
                                 'names for the given name expressions')
        if jitify:
            if code is None:
                raise ValueError('Jitify does not support precompiled objects')
            if backend != 'nvrtc':
                raise ValueError('Jitify only supports NVRTC')
        if path is not None:
            try:
                with open(path, 'rb') as f:
                    data = f.read()
            except FileNotFoundError:
                raise CUDADriverError('CUDA_ERROR_FILE_NOT_FOUND',
                                      'file not found') from None
            if data[:4] == b'\x7fELF' or b'.version' in data[:4096] \
                    and b'.target' in data[:4096]:
                raise NotImplementedError(
                    'gpushare CPU emulator cannot load cubin/PTX modules; '
                    'pass CUDA C++ source with code=')
            code = data.decode('utf-8')
            # CuPy loads a file as it is: no options, no translation
            options, backend, translate_cucomplex = (), 'nvcc', False
        self.code = code
        self.file_path = path
        self.options = tuple(options) if options is not None else None
        self.backend = backend
        self.translate_cucomplex = translate_cucomplex
        self.enable_cooperative_groups = enable_cooperative_groups
        self.jitify = jitify
        self.name_expressions = (tuple(name_expressions)
                                 if name_expressions is not None else None)
        self._msrc = _ModuleSource(code, self.options, self.name_expressions,
                                   name='module', backend=backend,
                                   translate=translate_cucomplex, jitify=jitify)

    @property
    def module(self):
        return self

    @cython_signature(name='compile')
    def compile(self, log_stream=None):
        """Compile now; the compiler's warnings go to ``log_stream`` (True: returned,
        for gpushare's client)."""
        return _write_log(log_stream, self._msrc.log())

    @cython_signature({'name': str}, name='get_function')
    def get_function(self, name):
        self._msrc.entry_index(name)
        return RawKernel._from_module(self, name)

    @cython_signature(name='get_global')
    def get_global(self, name):
        p, size = self._msrc.global_ptr(name)
        from ._runtime import ffi
        arr = numpy.frombuffer(ffi.buffer(p, size), dtype=numpy.uint8)
        return arr
