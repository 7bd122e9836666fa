"""Light rewriting and scanning of user CUDA sources for the emulator."""
from __future__ import annotations

import re

_FIBER_RE = re.compile(
    r'\b(__syncthreads\w*|__syncwarp|__shfl\w*|__ballot\w*|__any(_sync)?|'
    r'__all(_sync)?|__activemask|__match_(any|all)_sync|__reduce_\w+_sync|'
    r'cooperative_groups|this_thread_block|tiled_partition|'
    # (threads that wait on each other without a barrier: they yield to the others)
    r'__nanosleep|barrier|arrive_and_wait|arrive_and_drop)\b')

_EXTERN_SHARED_RE = re.compile(
    r'extern\s+__shared__\s+'
    r'((?:(?:__align__|alignas)\s*\(\s*\w+\s*\)\s*)?)'
    r'((?:[A-Za-z_][\w:]*(?:<[^;{}]*?>)?[\s\*]+?)+?)'
    r'((?:(?:__align__|alignas)\s*\(\s*\w+\s*\)\s*)?)'
    r'([A-Za-z_]\w*)\s*\[\s*\]\s*;')

_GLOBAL_FN_RE = re.compile(
    r'__global__\s+(?:(?:static|inline|__forceinline__|__noinline__)\s+)*'
    r'void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(')

_GLOBAL_VAR_RE = re.compile(
    r'(?<![\w])(?:__device__|__constant__|__managed__)\s+'
    r'(?:(?:__device__|__constant__|__managed__|static|const|volatile|'
    r'(?:__align__|alignas)\s*\(\s*\w+\s*\))\s+)*'
    r'[A-Za-z_][\w:]*(?:\s*<[^;{}()]*>)?[\s\*]+([A-Za-z_]\w*)\s*'
    r'(?:\[[^;=(){}]*\]\s*)*(?:=|;)')


def _strip_comments(code: str) -> str:
    """Blank out comments and string literals (keeping offsets)."""
    out = list(code)
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c == '/' and i + 1 < n and code[i + 1] == '/':
            j = code.find('\n', i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = ' '
            i = j
        elif c == '/' and i + 1 < n and code[i + 1] == '*':
            j = code.find('*/', i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != '\n':
                    out[k] = ' '
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and code[j] != c:
                if code[j] == '\\':
                    j += 1
                j += 1
            for k in range(i + 1, min(j, n)):
                if out[k] != '\n':
                    out[k] = ' '
            i = j + 1
        else:
            i += 1
    return ''.join(out)


def _depths(clean: str):
    """Brace depth before each character offset (cumulative)."""
    d = 0
    res = [0] * (len(clean) + 1)
    for i, c in enumerate(clean):
        res[i] = d
        if c == '{':
            d += 1
        elif c == '}':
            d -= 1
    res[len(clean)] = d
    return res


def _in_function(clean: str, pos: int) -> bool:
    """Whether offset ``pos`` lies inside a function body (approximate: the
    innermost open brace follows a ``)``)."""
    stack = []
    for i in range(pos):
        c = clean[i]
        if c == '{':
            stack.append(i)
        elif c == '}' and stack:
            stack.pop()
    for b in reversed(stack):
        head = clean[:b].rstrip()
        head = re.sub(r'(\b(const|noexcept|override|final|mutable)\s*)+$', '',
                      head).rstrip()
        if head.endswith(')') or head.endswith('else') or head.endswith('do'):
            return True
        if re.search(r'\b(struct|class|union|namespace|enum)\b[^;{}]*$', head) \
                or head.endswith('"C"') or head.endswith('"C++"'):
            continue
        return True
    return False


def uses_fibers(code: str) -> bool:
    return _FIBER_RE.search(_strip_comments(code)) is not None


#: a whole grid synchronized (``cooperative_groups::this_grid().sync()``): the launch
#: is cooperative (every block at once, ``GS_GRID_SYNC`` in gpushare_cuda.h)
_GRID_RE = re.compile(r'\b(this_grid|grid_group)\b')


def uses_grid_sync(code: str) -> bool:
    return _GRID_RE.search(_strip_comments(code)) is not None


#: a comma before a closing ``>`` (outside comments and strings: no valid C++ has one
#: but a template argument list NVRTC accepts with a trailing comma)
_TRAILING_COMMA_RE = re.compile(r',(?=\s*>)')


def rewrite(code: str) -> str:
    """Rewrite constructs g++ cannot take as is:

    * ``extern __shared__ T name[];`` -> pointer into the per-block dynamic
      shared memory buffer,
    * ``static __shared__`` -> ``__shared__`` (which expands to
      ``static thread_local``),
    * a comma ending a template's argument list (``extents<IndexType,>``, which
      NVRTC takes: CuPy's own mdspan tests write it for a 0-d array) -> dropped.
    """
    clean = _strip_comments(code)
    commas = [m.start() for m in _TRAILING_COMMA_RE.finditer(clean)]
    if commas:  # same length: the offsets in `clean` still hold
        chars = list(code)
        for i in commas:
            chars[i] = ' '
        code = ''.join(chars)
    matches = list(_EXTERN_SHARED_RE.finditer(clean))
    if matches:
        out = []
        last = 0
        for m in matches:
            typ = ' '.join(m.group(2).split())
            name = m.group(4)
            out.append(code[last:m.start()])
            if _in_function(clean, m.start()):
                out.append('%s* const %s = reinterpret_cast<%s*>('
                           'gs_dyn_smem_ptr);' % (typ, name, typ))
            else:
                out.append('\n#define %s (reinterpret_cast<%s*>('
                           'gs_dyn_smem_ptr))\n' % (name, typ))
            last = m.end()
        out.append(code[last:])
        code = ''.join(out)
    code = re.sub(r'\bstatic\s+__shared__\b', '__shared__', code)
    code = re.sub(r'\b__shared__\s+static\b', '__shared__', code)
    return code


def _extern_c(code: str, clean: str, a: int, b: int, at_end: bool = False) -> bool:
    """Whether ``code[a:b]`` says ``extern "C"`` outside comments (at its end only, with
    ``at_end``; ``clean`` blanks the literal's letter, so it is read from ``code``)."""
    pattern = r'\bextern\s*"C"\s*$' if at_end else r'\bextern\s*"C"'
    return any(clean.startswith('extern', a + m.start())
               for m in re.finditer(pattern, code[a:b]))


def _scope(code: str, clean: str, pos: int) -> tuple[str, bool]:
    """The namespaces enclosing offset ``pos`` (``"a::b::"``; an anonymous one adds
    nothing) and whether an ``extern "C" { ... }`` block encloses it."""
    stack: list = []
    start = 0
    for i in range(pos):
        c = clean[i]
        if c == '{':
            head = clean[start:i]
            m = re.search(r'\bnamespace\s*([A-Za-z_][\w:]*)?\s*$', head)
            if m:
                stack.append(('ns', m.group(1) or ''))
            elif _extern_c(code, clean, start, i, at_end=True):
                stack.append(('c', ''))
            else:
                stack.append(('', ''))
            start = i + 1
        elif c == '}':
            if stack:
                stack.pop()
            start = i + 1
        elif c == ';':
            start = i + 1
    prefix = ''.join(name + '::' for kind, name in stack if kind == 'ns' and name)
    return prefix, any(kind == 'c' for kind, _ in stack)


def kernels(code: str) -> list:
    """The non-template ``__global__`` functions: ``(expression, symbol)`` each, the
    C++ expression naming it (qualified by its namespaces) and the name NVRTC's module
    gives it: its own for ``extern "C"``, None for C++ linkage (a mangled name, which
    only a name expression finds)."""
    clean = _strip_comments(code)
    found: list = []
    for m in _GLOBAL_FN_RE.finditer(clean):
        start = m.start()
        j = max(clean.rfind(';', 0, start), clean.rfind('}', 0, start),
                clean.rfind('{', 0, start))
        seg = clean[j + 1:start]
        if re.search(r'\btemplate\b', seg):
            continue
        prefix, in_c_block = _scope(code, clean, start)
        c_linkage = in_c_block or _extern_c(code, clean, j + 1, start)
        entry = (prefix + m.group(1), m.group(1) if c_linkage else None)
        if entry not in found:
            found.append(entry)
    return found


def global_names(code: str):
    """Names of namespace-scope ``__device__``/``__constant__`` variables."""
    clean = _strip_comments(code)
    names = []
    for m in _GLOBAL_VAR_RE.finditer(clean):
        if _in_function(clean, m.start()):
            continue
        # skip declarations inside templates
        j = max(clean.rfind(';', 0, m.start()), clean.rfind('}', 0, m.start()))
        if re.search(r'\btemplate\b', clean[j + 1:m.start()]):
            continue
        if m.group(1) not in names:
            names.append(m.group(1))
    return names
