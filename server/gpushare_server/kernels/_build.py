"""Lazy compilation of emulated CUDA sources with the host C++ compiler.

Nothing is compiled at install time.  On first use the runtime
(``csrc/gpushare_rt.cpp``) and then each kernel module are compiled into
shared objects cached by content hash under ``$GPUSHARE_KERNEL_CACHE`` (or
``~/.cache/gpushare/kernels``).  Files are written to a temporary name and
moved into place with ``os.replace`` so that concurrent processes are safe.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from ._errors import CompileException

_lock = threading.RLock()
_state: dict = {}

#: ``-Bsymbolic`` (GNU ld): a module's own references bind to its own functions. A kernel
#: named as a C library function g++ knows as a builtin (``cabs``, ``carg``, ``cexp``...)
#: keeps default visibility (g++ ignores ``hidden`` on a builtin's name), and its
#: address, taken by the entry table, was otherwise the process's libm's function: the
#: launch ran libm's ``cabs`` on the kernel's parameters, silently. NVRTC declares no
#: such function, so on a GPU the kernel is the user's.
CXXFLAGS = ('-std=c++17', '-O2', '-fPIC', '-shared', '-fno-strict-aliasing',
            '-fvisibility=hidden') + (('-Wl,-Bsymbolic',) if sys.platform.startswith('linux')
                                      else ())
#: the warnings NVRTC gives by default about user code (#177-D "declared but never
#: referenced", #550-D "set but never used"); only those in the user's source are
#: kept in a compile log (``_user_log``)
WARNFLAGS = ('-Wunused-variable', '-Wunused-but-set-variable')

#: g++'s report of a missing header, and NVRTC's words for it
_MISSING_HEADER_RE = re.compile(r'^(.*?)fatal error: (.+?): No such file or directory\s*$',
                                re.M)


def csrc_dir() -> Path:
    """Directory holding the emulator sources (``csrc/``)."""
    p = _state.get('csrc')
    if p is not None:
        return p
    p = None
    try:
        from importlib.resources import files
        cand = files('gpushare_server._csrc')
        cp = Path(str(cand))
        if (cp / 'gpushare_cuda.h').is_file():
            p = cp
    except Exception:
        p = None
    if p is None:
        p = Path(__file__).resolve().parents[3] / 'csrc'
    _state['csrc'] = p
    return p


def find_compiler() -> str | None:
    """Path of the C++ compiler used for kernels, or ``None``."""
    if 'cxx' in _state:
        return _state['cxx']
    cands = []
    env = os.environ.get('GPUSHARE_CXX') or os.environ.get('CXX')
    if env:
        cands.append(env)
    cands += ['g++', 'c++', 'clang++']
    found = None
    for c in cands:
        w = shutil.which(c)
        if w:
            found = w
            break
    _state['cxx'] = found
    return found


def compiler_available() -> bool:
    return find_compiler() is not None


def cache_dir() -> Path:
    d = os.environ.get('GPUSHARE_KERNEL_CACHE')
    p = Path(d) if d else Path.home() / '.cache' / 'gpushare' / 'kernels'
    p.mkdir(parents=True, exist_ok=True)
    return p


def _compiler_id() -> str:
    if 'cxx_id' not in _state:
        cxx = find_compiler()
        try:
            out = subprocess.run([cxx, '--version'], capture_output=True,
                                 text=True, timeout=60).stdout
        except Exception:
            out = ''
        _state['cxx_id'] = cxx + '\n' + out.splitlines()[0] if out else cxx
    return _state['cxx_id']


def _csrc_digest() -> str:
    if 'csrc_digest' not in _state:
        h = hashlib.sha256()
        root = csrc_dir()
        for f in sorted(root.rglob('*')):
            if f.is_file() and f.suffix in ('.h', '.hpp', '.cuh', '.cpp', '.c'):
                h.update(str(f.relative_to(root)).encode())
                h.update(f.read_bytes())
        _state['csrc_digest'] = h.hexdigest()
    return _state['csrc_digest']


def _tls_flags() -> tuple:
    if 'tls' not in _state:
        import platform
        _state['tls'] = (('-mtls-dialect=gnu2',)
                         if platform.machine() in ('x86_64', 'AMD64') else ())
    return _state['tls']


#: the C++ standard library's headers: NVRTC has none of them (CUDA's and CuPy's
#: include directories neither; Jitify brings its own), so a kernel compiled without
#: Jitify that includes one fails there with "cannot open source file"
_CXX_STD_HEADERS = (
    'algorithm', 'any', 'array', 'atomic', 'bitset', 'cassert', 'cctype', 'cerrno', 'cfenv',
    'cfloat', 'charconv', 'chrono', 'cinttypes', 'climits', 'clocale', 'cmath', 'codecvt',
    'complex', 'condition_variable', 'csetjmp', 'csignal', 'cstdarg', 'cstddef', 'cstdint',
    'cstdio', 'cstdlib', 'cstring', 'ctime', 'cuchar', 'cwchar', 'cwctype', 'deque',
    'exception', 'execution', 'filesystem', 'forward_list', 'fstream', 'functional',
    'future', 'initializer_list', 'iomanip', 'ios', 'iosfwd', 'iostream', 'istream',
    'iterator', 'limits', 'list', 'locale', 'map', 'memory', 'memory_resource', 'mutex',
    'new', 'numeric', 'optional', 'ostream', 'queue', 'random', 'ratio', 'regex',
    'scoped_allocator', 'set', 'shared_mutex', 'sstream', 'stack', 'stdexcept',
    'streambuf', 'string', 'string_view', 'system_error', 'thread', 'tuple',
    'type_traits', 'typeindex', 'typeinfo', 'unordered_map', 'unordered_set', 'utility',
    'valarray', 'variant', 'vector',
    # the C library's that NVRTC was seen to lack (an H200, CUDA 13: ``catastrophic
    # error: cannot open source file "assert.h"``; device code's assert() is there
    # without it)
    'assert.h')

#: how a header of ``_CXX_STD_HEADERS`` included by the kernel's own source reads (the
#: emulator's headers, a level deeper, still reach the real one): g++'s "No such
#: file", which ``_nvrtc_words`` words as NVRTC does, at the user's line
_ABSENT = ('// gpushare: NVRTC has no <%(n)s>; the emulator\'s own headers use the host\'s\n'
           '#if __INCLUDE_LEVEL__ == 1\n#include "gs_nvrtc_absent/%(n)s"\n'
           '#else\n#include_next <%(n)s>\n#endif\n')
_ABSENT_RE = re.compile(r'^In file included from (kernel\.cu:\d+):\n[^\n]*: fatal error: '
                        r'gs_nvrtc_absent/(.+?): No such file or directory[ \t]*'
                        r'(?:\n +\d* *\|[^\n]*)*$', re.M)


def nvrtc_headers() -> Path:
    """A directory that, first on the include path, hides the C++ standard library's
    headers from the kernel's source as NVRTC does (see ``_ABSENT``)."""
    key = hashlib.sha256((_ABSENT + '\0'.join(_CXX_STD_HEADERS)).encode()).hexdigest()[:16]
    d = cache_dir() / ('nvrtc_' + key)
    if not d.is_dir():
        tmp = Path(tempfile.mkdtemp(prefix='nvrtc-', dir=str(cache_dir())))
        for n in _CXX_STD_HEADERS:
            (tmp / n).write_text(_ABSENT % {'n': n})
        try:
            os.replace(tmp, d)
        except OSError:  # another process made it first
            shutil.rmtree(tmp, ignore_errors=True)
    return d


def _nvrtc_words(log: str) -> str:
    """g++'s log with NVRTC's wording where a user would look for it: a missing
    header is NVRTC's ``catastrophic error: cannot open source file "x.h"``."""
    log = _ABSENT_RE.sub(lambda m: '%s:10: fatal error: %s: No such file or directory'
                         % (m.group(1), m.group(2)), log)
    return _MISSING_HEADER_RE.sub(
        lambda m: '%scatastrophic error: cannot open source file "%s"' % (m.group(1),
                                                                           m.group(2)), log)


#: a g++ diagnostic (``file:line:column: error: words``) and the lines g++ adds around
#: them that NVRTC's log has not (the function it is in, template instantiation
#: steps, notes, "compilation terminated.")
_GCC_DIAG_RE = re.compile(r'^([^\s:][^:]*):(\d+):(?:(\d+):)? '
                          r'(error|warning|catastrophic error): (.*)$')
#: g++'s excerpt of the source line under a diagnostic (``   4 |   text``) and its
#: caret line (``     |   ^~~~``)
_GCC_EXCERPT_RE = re.compile(r'^ *\d+ \| ?(.*)$')
_GCC_CARET_RE = re.compile(r'^ *\| ?( *)[~^]')
_TMP_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789_'


def nvrtc_path(key: str) -> str:
    """The file name NVRTC's log gives a CuPy kernel: CuPy writes the source to a new
    temporary directory as ``<sha1 hex of its cache key>.cubin.cu``
    (cupy/cuda/compiler.py: ``_compile_with_cache_cuda``, ``tempfile.TemporaryDirectory``);
    here the hash is of ``key`` (the kernel's source and options), the directory's name
    ``tempfile``'s pattern, new each time as there."""
    import random
    tmp = 'tmp' + ''.join(random.choice(_TMP_CHARS) for _ in range(8))
    return os.path.join(tempfile.gettempdir(), tmp,
                        hashlib.sha1(key.encode('utf-8', 'surrogatepass')).hexdigest()
                        + '.cubin.cu')


def nvrtc_closing(path: str, errors: int = 1, catastrophic: int = 0) -> str:
    """NVRTC's last line(s): ``N error(s) [and 1 catastrophic error] detected in the
    compilation of "PATH".`` (and ``Compilation terminated.`` after a catastrophic one)."""
    parts = []
    if errors:
        parts.append('%d error%s' % (errors, '' if errors == 1 else 's'))
    if catastrophic:
        parts.append('%d catastrophic error%s' % (catastrophic,
                                                  '' if catastrophic == 1 else 's'))
    return '%s detected in the compilation of "%s".\n%s' % (
        ' and '.join(parts), path, 'Compilation terminated.\n' if catastrophic else '')


def nvrtc_diagnostic(path: str, line: int, kind: str, words: str, excerpt=None,
                     column: int = 0) -> str:
    """One diagnostic as NVRTC prints it: ``PATH(LINE): kind: words``, the source line
    ``excerpt`` (indented by two spaces) and a caret under its ``column`` (0-based)
    when known, then a blank line."""
    out = '%s(%d): %s: %s\n' % (path, line, kind, words)
    if excerpt is not None:  # (NVRTC indents the line by two spaces)
        out += '  %s\n%s^\n' % (excerpt, ' ' * (column + 2))
    return out + '\n'


def kernel_line(src_text: str, n: int):
    """The text of the line ``#line`` directives of ``src_text`` number ``n`` in
    ``"kernel.cu"`` (the user's source, or CuPy's generated one), or ``None``; the
    last such line where several are (the emulator's template lines after the
    preamble run on in its numbering, below the user's operation's)."""
    current = found = None
    for line in src_text.splitlines():
        m = re.match(r'#line (\d+) "([^"]*)"$', line)
        if m:
            current = int(m.group(1)) if m.group(2) == 'kernel.cu' else None
            continue
        if current is not None:
            if current == n:
                found = line
            current += 1
    return found


def _nvrtc_words_of(words: str) -> str:
    """g++'s words where NVRTC's differ in ways a program may look for."""
    words = words.replace('\u2018', '"').replace('\u2019', '"')  # (NVRTC's quotes)
    words = re.sub(r'\s*\[-W[^\]]*\]$', '', words)  # (g++'s option name)
    m = re.match(r'"([^"]+)" was not declared in this scope(?:; did you mean .*)?$', words)
    if m:
        return 'identifier "%s" is undefined' % m.group(1)
    m = _CONFLICT_RE.match(words)
    if m:  # (a kernel named as one of CUDA's C functions)
        return 'more than one instance of overloaded function "%s" has "C" linkage' \
            % m.group(1)
    if words.startswith('#error '):  # (EDG: every #error stops the compilation)
        return '#error directive: ' + words[len('#error '):]
    return words


def nvrtc_shape(log: str, closing: bool = True, path: str = 'kernel.cu',
                source=None) -> str:
    """g++'s ``log`` in the shape of NVRTC's (the ``CompileException``'s message, the
    ``log_stream`` text): each error or warning as ``PATH(LINE): error: words``, the
    source line and a caret under the column g++ points at, and a blank line (the
    user's source is ``kernel.cu`` to g++, ``path`` here: ``nvrtc_path``'s name, as
    CuPy's temporary file's); g++'s other lines dropped, and (``closing``) NVRTC's
    last line, ``N error(s) detected in the compilation of "PATH".``. A catastrophic
    error (a missing header, ``_nvrtc_words``; an ``#error``) ends the log, as NVRTC
    stops there. The words stay g++'s, but for those ``_nvrtc_words_of`` renames."""
    out, errors, fatal = [], 0, 0
    lines = log.splitlines()
    for k, line in enumerate(lines):
        m = _GCC_DIAG_RE.match(line)
        if m is None:
            continue
        f, n, col, kind, words = m.groups()
        if f == 'gs_entries' and out:
            continue  # (the emulator's entry table, failing for the user's error)
        words = _nvrtc_words_of(words)
        if kind == 'warning' and words == '#pragma once in main file':
            continue  # (a header the client wrote into the source: NVRTC read a file)
        if words.startswith('#error directive: '):
            kind = 'catastrophic error'
        opening = words.startswith('cannot open source file ')
        excerpt = column = None
        if k + 1 < len(lines):
            e = _GCC_EXCERPT_RE.match(lines[k + 1])
            if e is not None:
                excerpt = e.group(1)
                c = _GCC_CARET_RE.match(lines[k + 2]) if k + 2 < len(lines) else None
                column = len(c.group(1)) if c is not None else 0
        if f == 'kernel.cu' and source is not None:
            # (g++ reads its excerpt of a ``#line``'d file from the file system, not
            # from the source: the line is the source's own, the column g++'s)
            line_text = kernel_line(source, int(n))
            if line_text is not None:
                excerpt, column = line_text, max(int(col or 1) - 1, 0)
        if opening and excerpt is not None:  # (NVRTC's caret: the include's last character)
            column = max(len(excerpt.rstrip()) - 1, 0)
        out.append(nvrtc_diagnostic(path if f == 'kernel.cu' else f, int(n), kind, words,
                                    excerpt, column or 0))
        if kind == 'catastrophic error':
            fatal = 1
            break
        errors += kind == 'error'
    if not out:
        return log  # (nothing g++ would call an error: the log says what it says)
    if closing and (errors or fatal):
        out.append(nvrtc_closing(path, errors, fatal))
    return ''.join(out)


def missing_headers(log: str) -> list:
    """The headers a compile log (as :func:`_nvrtc_words` words it) says could not be
    found, as written in the ``#include`` lines."""
    return re.findall(r'catastrophic error: cannot open source file "(.+?)"', log or '')


def _user_log(log: str, files=('kernel.cu',)) -> str:
    """The diagnostics of a successful compile that are about the user's source
    (those about the emulator's own headers and generated entries dropped)."""
    keep = []
    kept = False
    for line in log.splitlines(keepends=True):
        if line.startswith(tuple(f + ':' for f in files)):
            kept = True
        elif not line[:1].isspace():
            kept = False
        if kept:
            keep.append(line)
    return ''.join(keep)


def _log_path(out: Path) -> Path:
    return out.with_suffix('.log')


_CUDA_MATH = (
    'acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi '
    'cyl_bessel_i0 cyl_bessel_i1 erf erfc erfcinv erfcx erfinv exp exp10 exp2 expm1 fabs '
    'fdim floor fma fmax fmin fmod frexp hypot ilogb j0 j1 jn ldexp lgamma llrint llround '
    'log log10 log1p log2 logb lrint lround modf nan nearbyint nextafter norm norm3d '
    'norm4d normcdf normcdfinv pow rcbrt remainder remquo rhypot rint rnorm rnorm3d '
    'rnorm4d round rsqrt scalbln scalbn sin sincos sincospi sinh sinpi sqrt tan tanh '
    'tgamma trunc y0 y1 yn').split()
#: the C functions CUDA declares for device code (its math library, float versions
#: too, and the device runtime's): a kernel named as one of them fails to compile
#: with NVRTC as with g++ ("conflicting declaration of C function")
CUDA_C_FUNCTIONS = frozenset(_CUDA_MATH + [f + 'f' for f in _CUDA_MATH] + [
    'fdividef', 'abs', 'labs', 'llabs', 'printf', 'malloc', 'free', 'memcpy', 'memset',
    'clock', 'clock64', 'min', 'max'])
_CONFLICT_RE = re.compile(r'conflicting declaration of C function ["\u2018\']'
                          r'[^"\u2019\'(]*?\b(\w+)\(')
_REDECLARED_RE = re.compile(r'["\u2018\']([^"\u2019\']+)["\u2019\'] redeclared as '
                            r'different kind of')
#: the prefix a kernel's name takes when the host's C library has one of its own
_RENAMED = 'gs_user_fn_'


def _renames(src_text: str, log: str) -> str:
    """``#define``s that rename the user's functions whose names only the host's C
    library declares (``div``, ``select``, ``time``, ``read``...: a kernel may be named
    so under NVRTC, which declares none of them), for the code after the headers;
    empty when there are none (or the text has no user part to put them before)."""
    found = {m.group(1) for m in _CONFLICT_RE.finditer(log)}
    for m in _REDECLARED_RE.finditer(log):  # (a variable: ``__device__ float write[2]``)
        name = re.search(r'(\w+)(?:\s*\[[^\]]*\])*\s*$', m.group(1))
        if name:
            found.add(name.group(1))
    names = sorted(found - CUDA_C_FUNCTIONS)
    names = [n for n in names if not n.startswith(_RENAMED)]
    if not names or '"kernel.cu"\n' not in src_text or \
            src_text.rfind('#line ', 0, src_text.index('"kernel.cu"\n')) < 0:
        return ''
    return ''.join('#define %s %s%s\n' % (n, _RENAMED, n) for n in names)


def _compile(src_text: str, out: Path, extra: list, name: str,
             options: tuple, user_source: str) -> None:
    cxx = find_compiler()
    if cxx is None:
        raise RuntimeError('gpushare kernels: no C++ compiler found '
                           '(set CXX or install g++)')
    root = csrc_dir()
    with tempfile.TemporaryDirectory(prefix='gpushare-build-',
                                     dir=str(out.parent)) as td:
        src = Path(td) / (name + '.cpp')
        src.write_text(src_text)
        tmp_out = Path(td) / 'out.so'
        flags = list(CXXFLAGS) + list(WARNFLAGS)
        cmd = [cxx, *flags, *_tls_flags(), '-I', str(root),
               '-I', str(root / 'include'), *extra, '-o', str(tmp_out),
               str(src), '-lpthread']
        r = subprocess.run(cmd, capture_output=True, text=True)
        log = (r.stderr or r.stdout or '').replace(str(src), name + '.cu')
        renames = _renames(src_text, log) if r.returncode != 0 else ''
        if renames:  # once more, the user's functions renamed after the headers
            at = src_text.rfind('#line ', 0, src_text.index('"kernel.cu"\n'))
            src.write_text(src_text[:at] + renames + src_text[at:])
            r = subprocess.run(cmd, capture_output=True, text=True)
            log = (r.stderr or r.stdout or '').replace(str(src), name + '.cu') \
                .replace(_RENAMED, '')
        path = nvrtc_path('%s\0%s' % (user_source, '\0'.join(map(str, options))))
        if r.returncode != 0:
            raise CompileException(nvrtc_shape(_nvrtc_words(log), path=path,
                                               source=src_text),
                                   user_source, name, options, 'nvrtc')
        # the compile log (the warnings about the user's code), for compile(log_stream=)
        tmp_log = Path(td) / 'out.log'
        tmp_log.write_text(nvrtc_shape(_user_log(log), closing=False, path=path,
                                       source=src_text))
        os.replace(tmp_log, _log_path(out))
        os.replace(tmp_out, out)


def _user_flags(options) -> list:
    """Translate NVRTC options: keep -D/-U/-I, drop the rest."""
    flags = []
    it = iter(options or ())
    for o in it:
        if not isinstance(o, str):
            continue
        if o in ('-D', '-U', '-I'):
            nxt = next(it, None)
            if nxt is not None:
                flags += [o, nxt]
        elif o.startswith(('-D', '-U', '-I')) and len(o) > 2:
            flags.append(o)
        elif o.startswith('--define-macro='):
            flags.append('-D' + o.split('=', 1)[1])
        elif o.startswith('--include-path='):
            flags.append('-I' + o.split('=', 1)[1])
        elif o.startswith(('-std=', '--std=')) and o.split('=', 1)[1] in _DIALECTS:
            # (compiled as C++17 all the same; CCCL's dialect check reads it:
            # csrc/include/thrust/detail/config/cpp_dialect.h)
            flags.append('-DGS_USER_CPLUSPLUS=%s' % _DIALECTS[o.split('=', 1)[1]])
    return flags


#: NVRTC's ``--std`` values and their ``__cplusplus``
_DIALECTS = {'c++03': '199711L', 'c++11': '201103L', 'c++14': '201402L',
             'c++17': '201703L', 'c++20': '202002L'}


def build_shared(src_text: str, name: str, options=(), user_source=None,
                 extra_flags=()) -> Path:
    """Compile ``src_text`` (complete C++ TU) into a cached ``.so``."""
    flags = _user_flags(options) + list(extra_flags)
    key = hashlib.sha256('\0'.join(
        [_compiler_id(), _csrc_digest(), ' '.join(CXXFLAGS + WARNFLAGS),
         ' '.join(_tls_flags()), ' '.join(flags), src_text]).encode()
    ).hexdigest()[:32]
    d = cache_dir()
    out = d / ('k_' + key + '.so')
    if out.exists():
        return out
    _compile(src_text, out, flags, name, tuple(options or ()),
             user_source if user_source is not None else src_text)
    return out


def compile_log(path: Path) -> str:
    """The compiler's diagnostics about the user's source when ``path`` was built
    (empty for a module built before logs were kept)."""
    try:
        return _log_path(Path(path)).read_text()
    except OSError:
        return ''


def stub_headers(names) -> Path:
    """A directory holding an empty header for each of ``names`` (Jitify's way with a
    header it cannot find: the ``#include`` is commented out and compiling goes on)."""
    names = sorted(set(names))
    key = hashlib.sha256('\0'.join(names).encode()).hexdigest()[:16]
    d = cache_dir() / ('stubs_' + key)
    if not d.is_dir():
        tmp = Path(tempfile.mkdtemp(prefix='stubs-', dir=str(cache_dir())))
        for n in names:
            p = (tmp / n).resolve()
            if tmp.resolve() not in p.parents:  # only names below the directory
                continue
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text('// [jitify] File not found: commented out\n')
        try:
            os.replace(tmp, d)
        except OSError:  # another process made it first
            shutil.rmtree(tmp, ignore_errors=True)
    return d


def build_runtime() -> Path:
    with _lock:
        p = _state.get('rt_path')
        if p is not None:
            return p
        root = csrc_dir()
        text = (root / 'gpushare_rt.cpp').read_text()
        p = build_shared('#line 1 "gpushare_rt.cpp"\n' + text, 'gpushare_rt')
        _state['rt_path'] = p
        return p
