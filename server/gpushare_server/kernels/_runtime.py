"""cffi glue: loads the emulator runtime and compiled kernel modules, launches
kernels and collects ``printf`` output."""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

import cffi

from . import _build

try:  # (the CPU backend's float32 flushing: gpushare_server/_ftz.c)
    from gpushare_server import _ftz
    if not _ftz.available:
        _ftz = None
except ImportError:
    _ftz = None

ffi = cffi.FFI()
ffi.cdef('''
typedef struct gs_rt_api gs_rt_api;
typedef struct gs_launch_t {
  unsigned grid[3];
  unsigned block[3];
  size_t shared_mem;
  const gs_rt_api* rt;
  int cooperative;
} gs_launch_t;
const gs_rt_api* gs_rt_get_api(void);
size_t gs_rt_output_size(void);
size_t gs_rt_output_take(char* buf, size_t cap);
int gs_rt_num_threads(void);
void gs_rt_fault_at_launch(int next_launches);
int gs_module_launch(int k, const gs_launch_t* L, void** params, int n);
int gs_module_signature(int k, long long* sizes, int cap);
void* gs_module_global(const char* name, size_t* size);
''')

_lock = threading.RLock()
_rt = {}
_modules = {}          # path -> cffi lib (kept alive for the process)
_tls = threading.local()
_printf_handler = None
#: called before each launch: whether the call after it is another kernel launch (the
#: CPU backend's rule, ``cpu_kernels.next_call_launches``); a fault during the launch
#: then ends the worker with a status the server reports as the driver's error, as a
#: GPU's sticky error surfaces at that launch (``gs_rt_fault_at_launch``)
fault_rule = None
_fault_shift = [0]  # (what the runtime was last told)


def runtime():
    """The loaded runtime library (compiled on first use)."""
    lib = _rt.get('lib')
    if lib is None:
        with _lock:
            lib = _rt.get('lib')
            if lib is None:
                path = _build.build_runtime()
                lib = ffi.dlopen(str(path))
                _rt['api'] = lib.gs_rt_get_api()
                _rt['lib'] = lib
    return lib


def num_threads() -> int:
    """Number of host worker threads that run blocks in parallel."""
    return runtime().gs_rt_num_threads()


def load_module(path):
    path = str(path)
    with _lock:
        lib = _modules.get(path)
        if lib is None:
            runtime()
            lib = ffi.dlopen(path)
            _modules[path] = lib
        return lib


# ---------------------------------------------------------------- printf
def set_printf_handler(fn):
    """Install ``fn(text)`` called with the ``printf`` output of each launch.

    ``None`` restores the default (write to ``sys.stdout``).  Returns the
    previous handler."""
    global _printf_handler
    old = _printf_handler
    _printf_handler = fn
    return old


@contextmanager
def capture_printf():
    """Context manager collecting kernel ``printf`` output of this thread's
    launches into a list of strings (one per launch) instead of the handler.
    """
    buf = []
    prev = getattr(_tls, 'capture', None)
    _tls.capture = buf
    try:
        yield buf
    finally:
        _tls.capture = prev


def _take_output():
    lib = runtime()
    n = lib.gs_rt_output_size()
    if not n:
        return ''
    buf = ffi.new('char[]', n)
    m = lib.gs_rt_output_take(buf, n)
    return ffi.unpack(buf, m).decode('utf-8', 'replace')


def _dispatch_output(text):
    if not text:
        return
    cap = getattr(_tls, 'capture', None)
    if cap is not None:
        cap.append(text)
        return
    h = _printf_handler
    if h is not None:
        h(text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def ftz_launch(args):
    """Whether a launch over ``args`` (arrays, NumPy scalars, Python scalars) runs with
    float32 flushing on, as CuPy's ``-ftz=true`` kernels compute (``compiler.py``:
    every kernel it compiles, RawKernel's too): where an argument is float32 or
    complex64 and none is float64 or complex128 (nor a Python float, a double
    parameter), since the processor's flushing would take genuine double subnormals
    too, which CUDA keeps. Float32 arithmetic, and conversions between float32 and
    double, are then exact; glibc's float functions, which misread a subnormal under
    DAZ, are reached through wrappers that flush it (``gpushare_cuda.h``:
    ``GS_FTZ_RENAME``)."""
    single = False
    for a in args:
        dt = getattr(a, 'dtype', None)
        if dt is None:
            if type(a) is float or type(a) is complex:
                return False
            continue
        c = dt.char
        if c == 'f' or c == 'F':
            single = True
        elif c == 'd' or c == 'D':
            return False
    return single


def launch(lib, k, grid, block, shared_mem, params, nparams, cooperative=False,
           ftz=False):
    """Launch entry ``k`` of module ``lib``; returns the printf output. With ``ftz``
    float32 subnormals are flushed as under CuPy's ``-ftz=true`` (the launching
    thread's flushing bits on, which the runtime's workers take for the launch)."""
    runtime()
    L = ffi.new('gs_launch_t*')
    L.grid = grid
    L.block = block
    L.shared_mem = shared_mem
    L.rt = _rt['api']
    L.cooperative = 1 if cooperative else 0
    rule = fault_rule
    if rule is not None:
        shift = 1 if rule() else 0
        if shift != _fault_shift[0]:
            _rt['lib'].gs_rt_fault_at_launch(shift)
            _fault_shift[0] = shift
    if ftz and _ftz is not None:
        r = _ftz.call(lib.gs_module_launch, k, L, params, nparams)
    else:
        r = lib.gs_module_launch(k, L, params, nparams)
    text = _take_output()
    _dispatch_output(text)
    return r, text
