"""The ``cupyx.jit`` transpiler: a Python function -> CUDA C++ source, on the client.

gpushare never ships Python code to the server, so a JIT kernel is translated here
and launched as an ordinary ``cupy.RawKernel`` (which both server backends run: NVRTC
on a GPU, the C++ kernel emulator on the CPU backend). This module is sans-IO: it
reads the function's source (``inspect.getsource`` + ``ast``, the function is never
called) and the types of the launch arguments, and returns source text.

Model (after CuPy's ``cupyx/jit/_compile.py``; the semantics are CuPy's, the code is
not):

* An expression evaluates to a compile-time :class:`Const` (Python literals, the
  function's globals/closure values, folded arithmetic on them), a run-time
  :class:`Data` (C++ code + NumPy dtype), an :class:`Arr` (an array view: pointer,
  shape and strides as code), a :class:`Tup` (``jit.grid(2)``, ``x.shape``, tuples) or
  a :class:`Rng` (``range``, only as a ``for`` iterator).
* Types follow CuPy's rules for ``mode='cuda'``: Python ``int`` constants and
  arguments are ``int32`` when they fit (else ``int64``), ``float`` ones ``float32``,
  ``bool`` is ``bool``; an operator picks the first of its ufunc's loops (CuPy's type
  lists) every operand can be cast to in the order ``?bBhHiIlLqQefdFD`` (``mode='numpy'``:
  ``int64``/``float64``/``complex128`` and NumPy's safe casting); run-time operands are
  then cast to the loop's types with the ``same_kind`` rule (``int32 + uint32`` picks
  the ``uint32`` loop and is refused, as in CuPy 14 with NumPy 2). Comparisons use
  CuPy 14's loops (integers as int64, or exactly int64 against uint64). Constants
  are folded (Python's operators), but not the arguments of ``cupy``'s ufuncs nor
  ``min``/``max`` (typed run-time values). ``is``/``in`` and unary ``+`` raise
  CuPy's ``KeyError``. ``jit.threadIdx.x`` and ``jit.grid(1)`` are ``uint32``;
  ``range`` loops take the type of ``stop``.
* ``complex64``/``complex128`` are ``complex<float>``/``complex<double>`` of
  ``cupy/complex.cuh``, with CuPy's loops: arithmetic, ``**``, ``==``/``!=`` (``<``
  and the like raise ``TypeError``), ``abs``, the complex math functions of thrust;
  casting to a real type warns ``ComplexWarning`` and keeps the real part.
* ``float16`` scalars are ``float`` in C++ (CuPy's ``Scalar.__str__``): operations,
  casts (``numpy.float16(x)`` of a ``float32`` value does not round), locals, device
  function parameters and results, kernel scalar arguments (passed as ``float32``)
  and ``jit.shared_memory(numpy.float16, n)`` (CuPy's ``float`` array) keep float
  precision; a ``float16`` constant is the ``float`` nearest to its shortest decimal
  text (``float(0.1)``, as CuPy prints it). Only the elements of ``float16`` arrays
  are ``__half`` (CuPy's ``float16`` class): a value is rounded to half precision
  when it is stored into one (an assignment, ``+=``, ``jit.atomic_add``, a
  ``cupy.vectorize`` output), and widened to ``float`` when read.
* A local variable's type is that of its first assignment; later assignments are
  cast with the ``same_kind`` rule. Variables first assigned inside a block are
  declared at the top of the function (Python's function scope); so are the items
  of a tuple value (``shapes = arr.shape`` inside an ``if``), which can be rebound to
  a tuple of the same item types. A non-scalar constant (a tuple of constants, a
  dtype...) assigned at the top level names a compile-time value, and such names
  cannot then hold run-time data (CuPy's errors). An array variable can be rebound
  to an array of the same dtype, ndim and layout (another shape too: its shape and
  strides are variables); ``jit.shared_memory`` gives a pointer (CuPy's ``Ptr``: no
  ``shape``/``size``/``len``, pointer arithmetic with integers), whose variables
  can only be rebound to pointers into the same allocation; a group variable only
  to the group of the same ``this_grid()``/``this_thread_block()`` call.
* Array arguments travel as a pointer plus their shape (``long long`` scalars) and,
  when not C-contiguous, their strides in bytes; the specialisation key records
  dtype, ndim and contiguity. Negative indices are not wrapped (as in CuPy).

Supported: assignments (also augmented and tuple unpacking), arithmetic, comparison
(of two values, as in CuPy), boolean and bitwise operators with Python's ``//``/``%``
semantics,
``a if c else b``, ``if``/``while``/``for ... in range(...)`` (``jit.range(...,
unroll=)``), ``break``/``continue``/``return``/``assert``/``pass``; ``x[i]``,
``x[i, j]``, ``x[i]`` of an n-d array (a sub-array), ``x.shape``, ``x.size``,
``x.ndim``, ``x.strides`` (bytes), ``len(x)``; ``return a, b`` in a device function
(through trailing ``T& gs_out<i>`` parameters; ``cupy.vectorize`` only); lambdas,
found as CuPy does (``ValueError`` when more than one lambda is on their lines);
``jit.threadIdx/blockIdx/blockDim/gridDim``, ``jit.warpsize`` (a run-time ``int32``,
as in CuPy), ``jit.laneid()``,
``jit.grid(n)``, ``jit.gridsize(n)``, ``jit.syncthreads()``,
``jit.syncwarp(mask=)``, ``jit.shared_memory(dtype, size or None)``,
the ``jit.atomic_*`` and ``jit.shfl_*_sync``
families (CuPy's dtype lists; ``atomic_add`` on ``float16`` is a compare-and-swap
loop on the enclosing 32-bit word); cooperative groups (``jit.cg``):
``this_thread_block()`` (``sync``, ``thread_rank``, ``size``, ``num_threads``,
``group_index``, ``thread_index``, ``group_dim``, ``dim_threads``; ``dim3`` results
with ``.x/.y/.z``), ``this_grid()`` (``is_valid``, ``thread_rank``, ``block_rank``,
``size``, ``num_threads``, ``num_blocks``, ``group_dim``, ``dim_blocks``,
``block_index``, ``sync``: a kernel that synchronizes a grid is launched with
``enable_cooperative_groups=True``, on the CPU backend's emulator too, up to 256
blocks),
``cg.sync(g)``, ``cg.memcpy_async(g, dst, i, src, j, nbytes, aligned_size=)`` (done
synchronously by the group: the emulator has no asynchronous copies) with
``cg.wait(g)``/``cg.wait_prior(g, n)`` as block barriers;
``range``/``len``/``min``/``max`` (CuPy's only built-ins), ``int()``/``float()``/
``bool()``/``complex()``/NumPy scalar type casts, the ufuncs of ``cupy``, calls of
``rawkernel(device=True)`` functions; any other function (``print``, ``abs``, the
``math`` module, NumPy's ufuncs...) is called at compile time when all its arguments
are constants (``print("x")`` prints once, on the client) and refused otherwise
(``TypeError: Invalid function call 'abs'.``), as CuPy does; constant folding of
globals and closure values.

Anything outside the subset raises ``NotImplementedError`` (or ``TypeError`` /
``NameError`` for errors in the kernel itself) naming the construct and the line.
Errors CuPy defines keep its type and text: ``Unbound name: x`` (``NameError``),
``jit.grid(n)`` with a non-integer ``n`` (``TypeError``) or one outside 1..3
(``ValueError``), unpacking a non-tuple (``... cannot be unpack``), a kernel
returning a value (``Failed to infer the return type: void or ...``) and recursive
device functions (``ValueError``). Not supported: ``jit.cub``/``jit.thrust``,
thread block tiles (``cg.tiled_partition``), ``memcpy_async`` on grid groups.
"""
from __future__ import annotations

import ast
import inspect
import linecache
import math
import numbers
import re
import textwrap
import types
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy

_PREFIX = "gpushare cupyx.jit: "

# --- types ------------------------------------------------------------------------------
#: CuPy's order of scalar types for its "cuda" casting rule (``_cuda_typerules._typechars``;
#: int64 is 'l' after _norm, 'q'/'Q' appear in the loops of CuPy's comparisons only)
_ORDER = "?bBhHiIlLqQefdFD"
_CTYPE = {"?": "bool", "b": "signed char", "B": "unsigned char", "h": "short",
          "H": "unsigned short", "i": "int", "I": "unsigned int", "l": "long long",
          "L": "unsigned long long", "e": "float", "f": "float", "d": "double",
          "F": "complex<float>", "D": "complex<double>"}
#: result types C++ would widen (integer promotion): cast back
_NARROW = set("?bBhH")
_INT = set("bBhHiIlL")
_FLOAT = set("efd")
_COMPLEX = set("FD")


def _norm(dt: Any) -> numpy.dtype:
    """A NumPy dtype with one char per type (int64 -> 'l', never 'q'); only the
    scalar types the transpiler knows."""
    try:
        d = numpy.dtype(dt)
    except TypeError:
        raise TypeError(f"{_PREFIX}{dt!r} is not a dtype") from None
    d = numpy.dtype(d.name) if d.kind in "biufc" else d
    if d.char not in _CTYPE:
        raise TypeError(f"{_PREFIX}dtype {d} is not supported in jit kernels")
    return d


_BOOL = numpy.dtype("bool")
_I32 = numpy.dtype("int32")
_U32 = numpy.dtype("uint32")
_I64 = numpy.dtype("int64")
_U64 = numpy.dtype("uint64")
_F32 = numpy.dtype("float32")
_F64 = numpy.dtype("float64")
_C64 = numpy.dtype("complex64")
_C128 = numpy.dtype("complex128")


def ctype(dt: numpy.dtype) -> str:
    """The C++ type of a scalar of ``dt`` (``float16``: ``float``, as in CuPy)."""
    return _CTYPE[dt.char]


def _elem_ctype(dt: numpy.dtype, ptr: bool) -> str:
    """The C++ type of the elements of an array of ``dt``: CuPy's ``CArray<float16>``
    holds ``__half`` (its ``float16`` class), its pointers (``Ptr``: shared memory)
    ``float`` (``str(Scalar(float16))``); other types are their scalar type."""
    return "__half" if dt.char == "e" and not ptr else ctype(dt)


@dataclass(frozen=True)
class ArrayArg:
    """The specialisation key of an array argument."""
    dtype: numpy.dtype
    ndim: int
    c_contiguous: bool
    has_shape: bool = True

    def __repr__(self) -> str:
        layout = "c_contiguous" if self.c_contiguous else "strided"
        return f"CArray<{self.dtype}, {self.ndim}, {layout}>"


def scalar_type(x: Any, mode: str) -> numpy.dtype:
    """The type of a Python/NumPy scalar (CuPy's ``get_ctype_from_scalar``)."""
    if isinstance(x, numpy.generic):
        return _norm(x.dtype)
    if isinstance(x, (bool, numpy.bool_)):
        return _BOOL
    if isinstance(x, int):
        if mode == "cuda" and -(1 << 31) <= x < (1 << 31):
            return _I32
        return _I64
    if isinstance(x, float):
        return _F32 if mode == "cuda" else _F64
    if isinstance(x, complex):
        return _C64 if mode == "cuda" else _C128
    raise TypeError(f"{_PREFIX}{type(x).__name__} {x!r} is not a scalar")


def _can_cast(a: numpy.dtype, b: numpy.dtype, mode: str) -> bool:
    if mode == "cuda":
        return _ORDER.index(a.char) <= _ORDER.index(b.char)
    return bool(numpy.can_cast(a, b))


def _resolve(loops: list, ins: list, mode: str, what: str) -> tuple:
    """The first loop ``(in_chars, out_char)`` all of ``ins`` can be cast to."""
    for loop in loops:
        if all(_can_cast(t, numpy.dtype(c), mode) for t, c in zip(ins, loop[0])):
            return loop
    # CuPy's words (_call_ufunc, cupyx/jit/_compile.py:452), ``what`` its ufunc's name
    raise TypeError(f'{_PREFIX}"{what}" does not support for the input types: '
                    f'{[numpy.dtype(t) for t in ins]}')


def _loops(chars: str, nin: int, out: str | None = None) -> list:
    """Homogeneous loops (``'ii->i'``), or all with output ``out``."""
    return [(c * nin, out or c) for c in chars]


_HELPER_RE = re.compile(r"\bgs_jit_\w+(?=[<(])")
_DIV_LOOPS = _loops("bBhHiIlL", 2, "d") + _loops("efdFD", 2)
#: comparison loops: CuPy 14's (``create_comparison``, cupy/_core/_routines_logic.pyx:
#: 103), in both modes: integers compare as int64/uint64, mixed pairs exactly; in
#: mode='cuda' every pair of integers (even two uint64) takes the int64 loop, 'q' being
#: after 'L' in CuPy's order; complex values have ``==``/``!=`` only
_CMP_LOOPS = [("??", "?"), ("qq", "?"), ("QQ", "?"), ("qQ", "?"), ("Qq", "?"),
              ("ee", "?"), ("ff", "?"), ("dd", "?")]


# --- values ------------------------------------------------------------------------------
class Value:
    pass


@dataclass
class Const(Value):
    obj: Any


@dataclass
class Data(Value):
    code: str
    dtype: Any  # numpy.dtype, or None for void
    #: the element of a ``float16`` array (``__half``) it reads, as an lvalue (``code``
    #: is its value as ``float``); None for the other values
    lv: str | None = None


@dataclass
class Arr(Value):
    """An array view: ``strides`` are element strides (C-contiguous views) or byte
    strides (``byte_strides``), all as code; ``shape`` is None when unknown (extern
    shared memory)."""
    dtype: numpy.dtype
    ndim: int
    ptr: str
    shape: list | None
    strides: list
    byte_strides: bool
    #: not None for CuPy's ``Ptr`` type (``jit.shared_memory``, cupyx/jit/_cuda_types.py:
    #: 274): a pointer without shape, whose type is its allocation's (types compare by
    #: identity there), kept by pointer arithmetic
    ptr_id: int | None = None

    def key(self) -> ArrayArg:
        return ArrayArg(self.dtype, self.ndim, not self.byte_strides, self.shape is not None)


@dataclass
class Tup(Value):
    items: list


@dataclass
class Rng(Value):
    start: Data
    stop: Data
    step: Data
    dtype: numpy.dtype
    positive: bool | None
    unroll: Any = None


@dataclass
class Group(Value):
    """A cooperative group (``jit.cg.this_thread_block()`` / ``this_grid()``): an alias
    of the C++ expression ``code`` (evaluated where it is used)."""
    kind: str  # "thread_block" or "grid"
    code: str
    #: CuPy makes a new group type at each ``this_grid()``/``this_thread_block()``
    #: (compared by identity: a variable cannot be rebound to another call's group)
    uid: int = 0


@dataclass
class Dim3Val(Value):
    """A run-time ``dim3`` (``g.group_index()``...): an alias of the C++ expression."""
    code: str


@dataclass(eq=False)
class GroupMethod:
    """``g.thread_rank`` and the like, before the call."""
    group: Group
    name: str


#: CuPy's signatures of its ``BuiltinFunc.__call__`` methods (``_builtin_funcs.py``,
#: ``cg.py``; ``cub``'s functors and ``thrust``'s functions keep the base one): outside
#: a kernel, a call is checked against them (Python's ``TypeError``), then refused with
#: ``RuntimeError('Cannot call this function from Python layer.')``
_CALL_SIGNATURES = {
    "range": ("RangeFunc", "*args, unroll=None"),
    "syncthreads": ("SyncThreads", ""),
    "syncwarp": ("SyncWarp", "*, mask=0xffffffff"),
    "shared_memory": ("SharedMemory", "dtype, size, alignment=None"),
    "atomic_": ("AtomicOp", "array, index, value, alt_value=None"),
    "grid": ("GridFunc", "ndim"), "gridsize": ("GridFunc", "ndim"),
    "shfl_": ("WarpShuffleOp", "mask, var, val_id, *, width=32"),
    "laneid": ("LaneID", ""),
    "cg.this_grid": ("_ThisCgGroup", ""), "cg.this_thread_block": ("_ThisCgGroup", ""),
    "cg.sync": ("_Sync", "group"), "cg.wait": ("_Wait", "group"),
    "cg.wait_prior": ("_WaitPrior", "group"),
    "cg.memcpy_async": ("_MemcpySync", "group, dst, dst_idx, src, src_idx, size, *, "
                                       "aligned_size=None"),
}
_STUBS: dict = {}


def _call_stub(jit_name: str) -> Any:
    """A function with the signature and qualified name of CuPy's ``__call__`` of
    ``jit_name`` (so that Python words its argument errors as it does for CuPy's)."""
    stub = _STUBS.get(jit_name)
    if stub is None:
        key = jit_name
        if jit_name.startswith(("atomic_", "shfl_")):
            key = jit_name.split("_")[0] + "_"
        cls, sig = _CALL_SIGNATURES.get(key, ("BuiltinFunc", ""))
        ns: dict = {}
        exec(f"def __call__(self{', ' if sig else ''}{sig}): pass", ns)
        stub = ns["__call__"]
        stub.__qualname__ = f"{cls}.__call__"
        _STUBS[jit_name] = stub
    return stub


def _shared_memory_call_const(self: Any, env: Any, dtype: Any, size: Any,
                              alignment: Any = None) -> tuple:
    return dtype, size, alignment


# Python words argument errors with this name, as for CuPy's method
_shared_memory_call_const.__qualname__ = "SharedMemory.call_const"


def _atomic_call(self: Any, env: Any, array: Any, index: Any, value: Any,
                 value2: Any = None) -> tuple:
    return array, index, value, value2


_atomic_call.__qualname__ = "AtomicOp.call"


def _shfl_call(self: Any, env: Any, mask: Any, var: Any, val_id: Any, *,
               width: Any = None) -> tuple:
    return mask, var, val_id, width


_shfl_call.__qualname__ = "WarpShuffleOp.call"


class Intrinsic:
    """Base of the objects ``cupyx.jit`` exposes for use inside kernels
    (``jit.syncthreads``, ``jit.atomic_add``...): recognised here by ``jit_name``.
    Outside a kernel they are CuPy's ``BuiltinFunc`` objects: calling one raises
    ``RuntimeError`` (cupyx/jit/_internal_types.py:97)."""

    def __init__(self, jit_name: str) -> None:
        self.jit_name = jit_name
        self.__name__ = jit_name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _call_stub(self.jit_name)(self, *args, **kwargs)
        raise RuntimeError("Cannot call this function from Python layer.")

    def __repr__(self) -> str:
        return "<cupyx.jit function>"


class Dim3:
    """``threadIdx``/``blockIdx``/``blockDim``/``gridDim``: CuPy's
    ``Data('threadIdx', dim3)`` objects (cupyx/jit/_interface.py:254), whose ``x``...
    exist only inside kernels (outside: ``AttributeError``)."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.jit_name = code

    @property
    def obj(self) -> Any:
        raise ValueError(f"Constant value is required: {self.code}")

    def __getattr__(self, attr: str) -> Any:
        raise AttributeError(f"'Data' object has no attribute '{attr}'")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("'Data' object is not callable")

    def __repr__(self) -> str:
        return f'<Data code = "{self.code}", type = dim3>'


class RuntimeData:
    """A run-time value ``cupyx.jit`` exposes as a module attribute (``jit.warpsize``):
    CuPy's ``cupyx.jit._internal_types.Data``, whose repr it copies
    (``<Data code = "warpSize", type = int>``). Inside a kernel it is that C++ code,
    of type ``dtype``, not a compile-time constant (cupyx/jit/_interface.py:260)."""

    def __init__(self, code: str, dtype: Any, doc: str = "") -> None:
        self.code = code
        self.dtype = numpy.dtype(dtype)
        self.__doc__ = doc

    @property
    def obj(self) -> Any:
        raise ValueError(f"Constant value is required: {self.code}")

    def __repr__(self) -> str:
        return f'<Data code = "{self.code}", type = {ctype(self.dtype)}>'


class KernelBase:
    """Base of ``cupyx.jit.rawkernel`` objects: ``_func``, ``_mode``, ``_device``."""
    _func: Any
    _mode: str
    _device: bool


class _Located(Exception):
    """Marks an error that already names its line."""


def _fail(exc: type, msg: str) -> Exception:
    return exc(_PREFIX + msg)


# --- code helpers ------------------------------------------------------------------------
def _lit(v: Any, dt: numpy.dtype) -> str:
    """A C++ literal of type ``dt`` for the Python/NumPy value ``v``."""
    c = dt.char
    if c == "?":
        return "true" if bool(v) else "false"
    if c in _COMPLEX:
        part = _component(dt)
        return f"{ctype(dt)}({_lit(v.real, part)}, {_lit(v.imag, part)})"
    if c in _INT:
        iv = int(v)
        if c == "i":
            return str(iv) if iv != -(1 << 31) else "(-2147483647 - 1)"
        if c == "l":
            return f"{iv}LL" if iv != -(1 << 63) else "(-9223372036854775807LL - 1)"
        if c == "I":
            return f"{iv}u"
        if c == "L":
            return f"{iv}ull"
        return f"(({_CTYPE[c]}){iv})"
    if c == "e":  # CuPy: ``float(<numpy.float16 printed>)`` (get_cuda_code_from_constant)
        h = numpy.float16(v)
        if not numpy.isfinite(h):
            return _lit(float(h), _F32)
        return _lit(numpy.float32(float(str(h))), _F32)
    fv = float(v)
    if math.isnan(fv):
        body = "__longlong_as_double(0x7ff8000000000000LL)"
    elif math.isinf(fv):
        body = ("" if fv > 0 else "-") + "__longlong_as_double(0x7ff0000000000000LL)"
    else:
        body = repr(fv)
        if "e" not in body and "." not in body:
            body += ".0"
        if c != "d":
            body += "f"
    if c == "d":
        return body if not body.startswith("-") else f"({body})"
    return f"((float)({body}))" if "__" in body else (body if not body.startswith("-")
                                                      else f"({body})")


def _component(dt: numpy.dtype) -> numpy.dtype:
    """The type of the real and imaginary parts of the complex type ``dt``."""
    return _F32 if dt.char == "F" else _F64


def _cast_code(code: str, src: numpy.dtype, dst: numpy.dtype) -> str:
    if src == dst:
        return code
    if src.char == "e" or dst.char == "e":  # float16 scalars are float (no rounding)
        return _cast_code(code, _F32 if src.char == "e" else src,
                          _F32 if dst.char == "e" else dst)
    if src.char in _COMPLEX:
        if dst.char == "?":  # NumPy's truth of a complex value: either part non-zero
            return f"(({code}) != {ctype(src)}(0))"
        if dst.char in _COMPLEX:
            return f"{ctype(dst)}({code})"
        return _cast_code(f"({code}).real()", _component(src), dst)
    if dst.char in _COMPLEX:
        return f"{ctype(dst)}({_cast_code(code, src, _component(dst))})"
    if dst.char == "?":
        return f"({code} != 0)"
    return f"(({ctype(dst)})({code}))"


#: C++ words a Python name may not be emitted as (renamed ``name_``)
_RESERVED = set("""auto break case char const continue default do double else enum extern
float for goto if inline int long register restrict return short signed sizeof static
struct switch typedef union unsigned void volatile while bool catch class delete explicit
export false friend mutable namespace new operator private protected public template this
throw true try typeid typename using virtual asm alignas alignof char16_t char32_t
constexpr decltype noexcept nullptr static_assert thread_local threadIdx blockIdx blockDim
gridDim warpSize printf min max abs assert""".split())


def _cname(name: str) -> str:
    return name + "_" if name in _RESERVED or name.startswith("gs_") else name


_HELPERS = {
    "gs_jit_ifloordiv": """template <typename T>
__device__ inline T gs_jit_ifloordiv(T a, T b) {
  if (b == 0) return 0;
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}""",
    "gs_jit_imod": """template <typename T> __device__ inline T gs_jit_imod(T a, T b) {
  if (b == 0) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}""",
    "gs_jit_ffloordiv": """template <typename T>
__device__ inline T gs_jit_ffloordiv(T a, T b) {
  if (b == 0) return a / b;
  T mod = fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
  if (div == 0) return copysign((T)0, a / b);
  T fl = floor(div);
  if (div - fl > (T)0.5) fl += 1;
  return fl;
}""",
    "gs_jit_fmod": """template <typename T> __device__ inline T gs_jit_fmod(T a, T b) {
  if (b == 0) return fmod(a, b);
  T mod = fmod(a, b);
  if (mod != 0) { if ((b < 0) != (mod < 0)) mod += b; }
  else mod = copysign((T)0, b);
  return mod;
}""",
    "gs_jit_ipow": """template <typename T> __device__ inline T gs_jit_ipow(T a, T b) {
  if (b < 0) return a == 1 ? (T)1 : (a == (T)-1 ? ((b & 1) ? (T)-1 : (T)1) : (T)0);
  T r = 1;
  while (b) { if (b & 1) r *= a; a *= a; b >>= 1; }
  return r;
}""",
    "gs_jit_cpow": """template <typename T> __device__ inline T gs_jit_cpow(T a, T b) {
  return b == T(0) ? T(1) : pow(a, b);
}""",
    "gs_jit_cmp_lL": """__device__ inline int gs_jit_cmp_lL(long long a, unsigned long long b) {
  return a < 0 ? -1 : ((unsigned long long)a < b ? -1 : ((unsigned long long)a > b));
}""",
    "gs_jit_ireciprocal": """template <typename T>
__device__ inline T gs_jit_ireciprocal(T a) {
  return a == 0 ? (T)0 : (T)(1 / a);
}""",
    "gs_jit_atomic_add_half": """__device__ inline __half gs_jit_atomic_add_half(__half* p,
                                                       __half v) {
  unsigned int* word = (unsigned int*)((size_t)p - ((size_t)p & 2));
  bool high = ((size_t)p & 2) != 0;
  unsigned int old = *word, assumed;
  unsigned short old_bits;
  do {
    assumed = old;
    old_bits = (unsigned short)(high ? (old >> 16) : (old & 0xffffu));
    __half sum = __float2half(__half2float(__ushort_as_half(old_bits)) + __half2float(v));
    unsigned int bits = __half_as_ushort(sum);
    old = atomicCAS(word, assumed, high ? ((bits << 16) | (old & 0xffffu))
                                        : ((old & 0xffff0000u) | bits));
  } while (assumed != old);
  return __ushort_as_half(old_bits);
}""",
    "gs_jit_memcpy_async": """template <typename G>
__device__ inline void gs_jit_memcpy_async(const G& g, void* dst, const void* src,
                                           unsigned int n) {
  char* d = (char*)dst;
  const char* s = (const char*)src;
  for (unsigned int i = g.thread_rank(); i < n; i += g.size()) d[i] = s[i];
}""",
    # cupy.minimum / cupy.maximum: NaN (CuPy's NAN) when either is NaN
    "gs_jit_min": """template <typename T> __device__ inline T gs_jit_min(T a, T b) {
  return (a != a || b != b) ? (T)__int_as_float(0x7fffffff) : (b < a ? b : a);
}""",
    "gs_jit_max": """template <typename T> __device__ inline T gs_jit_max(T a, T b) {
  return (a != a || b != b) ? (T)__int_as_float(0x7fffffff) : (b > a ? b : a);
}""",
    # complex: the order of cupy/complex.cuh's min/max (real parts, then imaginary)
    "gs_jit_cmin": """template <typename T> __device__ inline T gs_jit_cmin(T a, T b) {
  return (isnan(a) || isnan(b)) ? T(__int_as_float(0x7fffffff)) : min(a, b);
}""",
    "gs_jit_cmax": """template <typename T> __device__ inline T gs_jit_cmax(T a, T b) {
  return (isnan(a) || isnan(b)) ? T(__int_as_float(0x7fffffff)) : max(a, b);
}""",
}


# --- operators ---------------------------------------------------------------------------
def _binop_spec(op: ast.AST, mode: str) -> tuple:
    """(loops, formatter(out_dtype, a, b) -> code, name) for a binary operator."""
    t = type(op)
    arith = "?bBhHiIlLefd"
    # (bool loops: CuPy's ``create_arithmetic`` boolops, ``|`` and ``&``: in C++ ``true +
    # true`` is 2, which a wider expression around it would see)
    if t is ast.Add:
        return _loops(arith + "FD", 2), \
            lambda o, a, b: f"({a} | {b})" if o.char == "?" else f"({a} + {b})", "cupy_add"
    if t is ast.Sub:  # bool - bool is an error (``binop``)
        return _loops(arith + "FD", 2), lambda o, a, b: f"({a} - {b})", "cupy_subtract"
    if t is ast.Mult:
        return _loops(arith + "FD", 2), \
            lambda o, a, b: f"({a} & {b})" if o.char == "?" else f"({a} * {b})", \
            "cupy_multiply"
    if t is ast.Div:
        return _DIV_LOOPS, lambda o, a, b: f"({a} / {b})", "cupy_true_divide"
    if t in (ast.FloorDiv, ast.Mod):
        kind = "floordiv" if t is ast.FloorDiv else "mod"

        def fmt(o: numpy.dtype, a: str, b: str) -> str:
            if o.char in _INT:
                return f"gs_jit_i{kind}<{ctype(o)}>({a}, {b})"
            return f"gs_jit_f{kind}<{ctype(o)}>({a}, {b})"
        return _loops(arith[1:], 2), fmt, \
            "cupy_floor_divide" if kind == "floordiv" else "cupy_remainder"
    if t is ast.Pow:
        def pw(o: numpy.dtype, a: str, b: str) -> str:
            if o.char in _INT:
                return f"gs_jit_ipow<{ctype(o)}>({a}, {b})"
            if o.char in _COMPLEX:
                return f"gs_jit_cpow<{ctype(o)}>({a}, {b})"
            if o.char == "d":
                return f"pow({a}, {b})"
            return f"powf((float)({a}), (float)({b}))"
        return _loops(arith[1:] + "FD", 2), pw, "cupy_power"
    bits = {ast.BitAnd: ("&", "and"), ast.BitOr: ("|", "or"), ast.BitXor: ("^", "xor")}
    if t in bits:
        sym, name = bits[t]
        return _loops("?bBhHiIlL", 2), lambda o, a, b: f"({a} {sym} {b})", \
            f"cupy_bitwise_{name}"
    shifts = {ast.LShift: ("<<", "left"), ast.RShift: (">>", "right")}
    if t in shifts:
        sym, name = shifts[t]
        return _loops("bBhHiIlL", 2), lambda o, a, b: f"({a} {sym} {b})", \
            f"cupy_{name}_shift"
    cmps = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
            ast.GtE: ">="}
    if t in cmps:
        sym = cmps[t]
        eq = t in (ast.Eq, ast.NotEq)
        loops = _CMP_LOOPS + (_loops("FD", 2, "?") if eq else [])
        name = {ast.Eq: "cupy_equal", ast.NotEq: "cupy_not_equal"}.get(t, "cupy_scalar_less")
        return loops, lambda o, a, b: f"({a} {sym} {b})", name
    # CuPy has no ufunc for the others (``@``, ``is``, ``in``...): a KeyError in
    # ``_cuda_typerules.get_ufunc`` / ``get_pyfunc``
    raise KeyError(t)


_PY_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
              ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
              ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
              ast.Pow: lambda a, b: a ** b, ast.BitAnd: lambda a, b: a & b,
              ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b,
              ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
              ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
              ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
              ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}

#: ufunc names that are operators
_UFUNC_OPS = {"add": ast.Add, "subtract": ast.Sub, "multiply": ast.Mult,
              "true_divide": ast.Div, "divide": ast.Div, "floor_divide": ast.FloorDiv,
              "remainder": ast.Mod, "mod": ast.Mod, "power": ast.Pow,
              "bitwise_and": ast.BitAnd, "bitwise_or": ast.BitOr, "bitwise_xor": ast.BitXor,
              "left_shift": ast.LShift, "right_shift": ast.RShift, "equal": ast.Eq,
              "not_equal": ast.NotEq, "less": ast.Lt, "less_equal": ast.LtE,
              "greater": ast.Gt, "greater_equal": ast.GtE}
_UFUNC_UNARY_OPS = {"negative": ast.USub, "positive": ast.UAdd, "invert": ast.Invert,
                    "bitwise_not": ast.Invert, "logical_not": ast.Not}

#: float math functions by ufunc / ``math`` name -> C (double) name; float32 appends 'f'
_MATH1 = {n: n for n in ("sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10",
                         "log1p", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin",
                         "acos", "atan", "asinh", "acosh", "atanh", "floor", "ceil",
                         "trunc", "rint", "fabs", "erf", "erfc", "lgamma")}
_MATH1.update({"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
               "arccosh": "acosh", "arctanh": "atanh", "gamma": "tgamma"})
_MATH2 = {"arctan2": "atan2", "atan2": "atan2", "hypot": "hypot", "fmod": "fmod",
          "copysign": "copysign", "fmin": "fmin", "fmax": "fmax", "pow": "pow"}
#: the functions of ``_MATH1`` that have complex versions (``cupy/complex.cuh``)
_COMPLEX_MATH = {"sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
                 "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh",
                 "arccosh", "arctanh"}
_PREDICATES = {"isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite"}

_ATOMIC_TYPES = {
    "add": ("int32", "uint32", "uint64", "float32", "float64", "float16"),
    "sub": ("int32", "uint32"), "exch": ("int32", "uint32", "uint64", "float32"),
    "min": ("int32", "uint32", "uint64"), "max": ("int32", "uint32", "uint64"),
    "inc": ("uint32",), "dec": ("uint32",), "cas": ("int32", "uint32", "uint64", "uint16"),
    "and": ("int32", "uint32", "uint64"), "or": ("int32", "uint32", "uint64"),
    "xor": ("int32", "uint32", "uint64")}
#: the methods of CuPy's thread groups and their return types
_CG_METHODS = {
    "thread_block": {"sync": None, "thread_rank": _U32, "group_index": "dim3",
                     "thread_index": "dim3", "dim_threads": "dim3", "num_threads": _U32,
                     "size": _U32, "group_dim": "dim3"},
    "grid": {"sync": None, "is_valid": _BOOL, "thread_rank": _U64, "block_rank": _U64,
             "num_threads": _U64, "num_blocks": _U64, "dim_blocks": "dim3",
             "block_index": "dim3", "size": _U64, "group_dim": "dim3"}}
_SHFL_TYPES = ("int32", "uint32", "int64", "float32", "float64", "uint64", "float16")


# --- the transpiler ----------------------------------------------------------------------
class Generated:
    """What one kernel's translation collects: helper code and device functions."""

    def __init__(self) -> None:
        self.helpers: list = []
        self.functions: list = []
        self.device: dict = {}  # (func, key) -> (name, return dtype) or None while open
        self.include_cg = False   # uses cooperative groups
        self.cooperative = False  # needs a cooperative launch (grid_group::sync)
        self.uids = 0             # identities of pointer and group types

    def uid(self) -> int:
        self.uids += 1
        return self.uids

    def helper(self, name: str) -> None:
        if name not in self.helpers:
            self.helpers.append(name)

    def code(self) -> str:
        parts = ["#include <cuda_fp16.h>"] if any("__half" in f for f in self.functions) \
            else []
        if any("complex<" in f for f in self.functions):
            parts.append("#include <cupy/complex.cuh>")
        if self.include_cg:
            parts.append("#include <cooperative_groups.h>\n"
                         "namespace cg = cooperative_groups;")
        parts += [_HELPERS[h] for h in self.helpers]
        parts += self.functions
        return "\n\n".join(parts) + "\n"


def _parse(func: Any) -> tuple:
    """(FunctionDef, source lines, file name) of ``func``, line numbers as in its file."""
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError) as e:
        raise _fail(NotImplementedError,
                    f"the source of {getattr(func, '__name__', func)!r} is not available "
                    f"({e}); jit kernels must be defined in a file") from None
    try:
        filename = inspect.getsourcefile(func) or "?"
    except TypeError:
        filename = "?"
    if func.__name__ == "<lambda>":
        return _parse_lambda(func, filename, first, len(lines)), lines, first, filename
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef):
        raise _fail(NotImplementedError, f"{func!r} is not a plain function (def)")
    return fdef, lines, first, filename


def _parse_lambda(func: Any, filename: str, first: int, nlines: int) -> ast.FunctionDef:
    """The lambda ``func`` as ``def _lambda_kernel(args): return body``, found (as CuPy
    does) as the only lambda of the lines ``inspect`` gives for it in its file."""
    tree = ast.parse("".join(linecache.getlines(filename)))
    nodes = [n for n in ast.walk(tree)
             if isinstance(n, ast.Lambda) and first <= n.lineno < first + nlines]
    if not nodes:
        raise _fail(NotImplementedError, f"the source of {func!r} is not available")
    if len(nodes) > 1:
        raise ValueError(f"{_PREFIX}Multiple callables are found near the definition of "
                         f"{func}, and JIT could not identify the source code for it.")
    node = nodes[0]
    fdef = ast.FunctionDef(name="_lambda_kernel", args=node.args,
                           body=[ast.copy_location(ast.Return(node.body), node.body)],
                           decorator_list=[], returns=None, type_comment=None)
    return ast.copy_location(fdef, node)


class _Function:
    """Translation of one function (a kernel or a device function) for given types."""

    def __init__(self, func: Any, mode: str, key: tuple, gen: Generated, name: str,
                 kernel: bool) -> None:
        self.func = func
        self.mode = mode
        self.gen = gen
        self.name = name
        self.kernel = kernel
        self.key = key
        cv = inspect.getclosurevars(func)
        self.consts = {**cv.builtins, **cv.globals, **cv.nonlocals}
        self.params: dict = {}
        self.locals: dict = {}
        self.decls: list = []
        self.count = 0
        self.ret: Any = None if not kernel else "void"

    # -- names and variables
    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def lookup(self, name: str) -> Value:
        if name in self.locals:
            return self.locals[name]
        if name in self.params:
            return self.params[name]
        if name in self.consts:
            return Const(self.consts[name])
        raise _fail(NameError, f"Unbound name: {name} (not defined, or used before its "
                               "first assignment)")

    # -- translation entry
    def translate(self) -> tuple:
        fdef, lines, first, filename = _parse(self.func)
        self.src_lines, self.first, self.filename = lines, first, filename
        a = fdef.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
            raise self.located(_fail(NotImplementedError, "*args, **kwargs, keyword-only "
                                     "arguments and default values are not supported"),
                               fdef)
        for deco in fdef.decorator_list:  # CuPy's warning (cupyx/jit/_compile.py:348)
            text = ast.unparse(deco)
            if not any(word in text for word in ("rawkernel", "vectorize")):
                warnings.warn(f"Decorator {text} may not supported in JIT.", RuntimeWarning,
                              stacklevel=2)
        names = [x.arg for x in a.args]
        if len(names) != len(self.key):
            raise _fail(TypeError, f"{fdef.name}() takes {len(names)} positional arguments "
                                   f"but {len(self.key)} were given.")
        params = []
        for pname, t in zip(names, self.key):
            cn = _cname(pname)
            if isinstance(t, ArrayArg):
                shape = [f"{cn}__s{k}" for k in range(t.ndim)] if t.has_shape else None
                params.append(f"{_elem_ctype(t.dtype, not t.has_shape)}* {cn}")
                params += [f"long long {s}" for s in shape or ()]
                if t.c_contiguous:
                    strides = ["1"] * t.ndim
                    for k in range(t.ndim - 2, -1, -1):
                        assert shape is not None
                        strides[k] = shape[k + 1] if strides[k + 1] == "1" else \
                            f"{strides[k + 1]} * {shape[k + 1]}"
                else:
                    strides = [f"{cn}__t{k}" for k in range(t.ndim)]
                    params += [f"long long {s}" for s in strides]
                # a pointer (shared memory) has no shape: CuPy's ``Ptr`` type
                self.params[pname] = Arr(t.dtype, t.ndim, cn, shape, strides,
                                         not t.c_contiguous,
                                         None if t.has_shape else self.gen.uid())
            else:
                params.append(f"{ctype(t)} {cn}")
                self.params[pname] = Data(cn, t)
        body = self.stmts(fdef.body, True)
        if self.ret is None:
            self.ret = "void"
        if isinstance(self.ret, tuple):  # a tuple is returned through references
            params += [f"{ctype(t)}& gs_out{i}" for i, t in enumerate(self.ret)]
        ret = self.ret if isinstance(self.ret, str) else \
            "void" if isinstance(self.ret, tuple) else ctype(self.ret)
        head = ('extern "C" __global__ ' if self.kernel else "__device__ ") + \
            f"{ret} {self.name}({', '.join(params)})"
        out = [head + " {"] + ["  " + d for d in self.decls] + ["  " + ln for ln in body]
        out.append("}")
        return "\n".join(out), self.ret

    def located(self, e: Exception, node: ast.AST) -> Exception:
        """``e`` with the kernel name, file and line added (once)."""
        if getattr(e, "_gs_located", False) or not hasattr(node, "lineno"):
            return e
        ln = node.lineno
        text = self.src_lines[ln - self.first].strip() if \
            0 <= ln - self.first < len(self.src_lines) else ""
        msg = str(e.args[0]) if e.args else type(e).__name__
        if not msg.startswith(_PREFIX):
            msg = _PREFIX + msg
        try:
            new = type(e)(f"{msg}\n  in jit kernel {self.func.__name__!r}, "
                          f"{self.filename}, line {ln}: {text}")
        except Exception:
            return e
        new._gs_located = True  # type: ignore[attr-defined]
        return new

    # -- statements
    def stmts(self, body: list, top: bool) -> list:
        out: list = []
        for s in body:
            try:
                out += self.stmt(s, top)
            except (NotImplementedError, TypeError, NameError, ValueError, LookupError,
                    AttributeError, OverflowError, ZeroDivisionError, AssertionError) as e:
                raise self.located(e, s) from None
        return out

    def block(self, head: str, body: list) -> list:
        return [head + " {"] + ["  " + ln for ln in body] + ["}"]

    def stmt(self, s: ast.stmt, top: bool) -> list:
        if isinstance(s, ast.Expr):
            v = self.expr(s.value)
            if isinstance(v, Data):
                return [v.code + ";"]
            return []  # docstrings, constant expressions
        if isinstance(s, ast.Pass):
            return []
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise _fail(NotImplementedError, "chained assignment (a = b = c) is not "
                                                 "supported")
            return self.assign(s.targets[0], self.expr(s.value), top)
        if isinstance(s, ast.AugAssign):
            return self.augassign(s)
        if isinstance(s, ast.If):
            cond = self.expr(s.test)
            if isinstance(cond, Const):  # resolved at compile time, as in CuPy
                return self.stmts(s.body if cond.obj else s.orelse, top)
            out = self.block(f"if ({self.truth(cond)})", self.stmts(s.body, False))
            if s.orelse:
                out[-1] = "} else {"
                out += ["  " + ln for ln in self.stmts(s.orelse, False)] + ["}"]
            return out
        if isinstance(s, ast.While):
            if s.orelse:
                raise _fail(NotImplementedError, "while ... else is not supported")
            cond = self.truth(self.expr(s.test))
            return self.block(f"while ({cond})", self.stmts(s.body, False))
        if isinstance(s, ast.For):
            return self.for_(s)
        if isinstance(s, ast.Break):
            return ["break;"]
        if isinstance(s, ast.Continue):
            return ["continue;"]
        if isinstance(s, ast.Return):
            return self.return_(s)
        if isinstance(s, ast.Assert):
            v = self.expr(s.test)
            if isinstance(v, Const):
                if not v.obj:  # CuPy: ``assert value.obj`` (cupyx/jit/_compile.py:658)
                    raise AssertionError(f"{_PREFIX}an assertion on a constant fails")
                return []
            return [f"assert({self.truth(v)});"]
        # CuPy's words and types for these (cupyx/jit/_compile.py:650-666)
        cupy_refusals = {ast.With: "Switching contexts are not allowed.",
                         ast.AsyncWith: "Switching contexts are not allowed.",
                         ast.Raise: "throw/catch are not allowed.",
                         ast.Try: "throw/catch are not allowed.",
                         ast.Import: "Cannot import modules from the target functions.",
                         ast.ImportFrom: "Cannot import modules from the target functions.",
                         ast.Global: "Cannot use global/nonlocal in the target functions.",
                         ast.Nonlocal: "Cannot use global/nonlocal in the target functions."}
        if type(s) in cupy_refusals:
            raise _fail(ValueError, cupy_refusals[type(s)])
        names = {ast.FunctionDef: "nested functions", ast.ClassDef: "classes",
                 ast.Delete: "del", ast.With: "with statements", ast.Raise: "raise",
                 ast.Try: "try statements", ast.Import: "import", ast.ImportFrom: "import",
                 ast.Global: "global", ast.Nonlocal: "nonlocal",
                 ast.AnnAssign: "annotated assignments", ast.AsyncFor: "async for",
                 ast.AsyncWith: "async with", ast.AsyncFunctionDef: "async functions"}
        what = names.get(type(s), f"the statement {type(s).__name__}")
        raise _fail(NotImplementedError, f"{what} are not supported in jit kernels"
                    if what.endswith("s") else f"{what} is not supported in jit kernels")

    def return_(self, s: ast.Return) -> list:
        if s.value is None or (isinstance(s.value, ast.Constant) and s.value.value is None):
            if self.ret not in (None, "void"):
                raise _fail(TypeError, "a function returning a value also returns None")
            self.ret = "void"
            return ["return;"]
        v = self.expr(s.value)
        if isinstance(v, Const) and v.obj is None:
            return self.return_(ast.Return(None))
        if self.kernel:  # CuPy's error: the return type of a kernel is void
            t = _kind(v) if not isinstance(v, (Const, Data)) else self.stype(v)
            raise _fail(ValueError, f"Failed to infer the return type: void or {t}")
        if isinstance(v, Const) and isinstance(v.obj, tuple):
            v = Tup([Const(x) for x in v.obj])
        items = [self.value(x) for x in v.items] if isinstance(v, Tup) else [self.value(v)]
        ret = tuple(d.dtype for d in items) if isinstance(v, Tup) else items[0].dtype
        if self.ret is None:
            self.ret = ret
        elif self.ret != ret:
            raise _fail(ValueError, f"Failed to infer the return type: {self.ret} or {ret}")
        if isinstance(v, Tup):  # through the reference parameters gs_out<i>
            return self.block("", [f"gs_out{i} = {d.code};" for i, d in enumerate(items)] +
                              ["return;"])
        return [f"return {items[0].code};"]

    def for_(self, s: ast.For) -> list:
        if s.orelse:
            raise _fail(NotImplementedError, "for ... else is not supported")
        if not isinstance(s.target, ast.Name):
            raise _fail(NotImplementedError, "for loops need a single name as target")
        it = self.expr(s.iter)
        if not isinstance(it, Rng):
            raise _fail(NotImplementedError, "for loops are supported over range(...) / "
                                             "jit.range(...) only")
        name = s.target.id
        var = self.locals.get(name)
        if var is None:
            if name in self.params:
                var = self.params[name]
            elif name in self.consts:  # CuPy's words (cupyx/jit/_compile.py:600)
                raise _fail(TypeError, "loop counter must not be constant value")
            else:
                var = self.locals[name] = Data(_cname(name), it.dtype)
                self.decls.append(f"{ctype(it.dtype)} {var.code};")
        if not isinstance(var, Data) or var.dtype != it.dtype:
            raise _fail(TypeError, f"Data type mismatch of variable: `{name}`: "
                                   f"{_ctype_name(var)} != {ctype(it.dtype)}")
        n = self.count = self.count + 1
        i, stop, step = f"gs_it{n}", f"gs_stop{n}", f"gs_step{n}"
        t = ctype(it.dtype)
        init = (f"{t} {i} = {_cast_code(it.start.code, it.start.dtype, it.dtype)}, "
                f"{stop} = {_cast_code(it.stop.code, it.stop.dtype, it.dtype)}, "
                f"{step} = {_cast_code(it.step.code, it.step.dtype, it.dtype)}")
        cond = {True: f"{i} < {stop}", False: f"{i} > {stop}"}.get(
            it.positive, f"{step} >= 0 ? {i} < {stop} : {i} > {stop}")  # type: ignore
        body = [f"{var.code} = {i};"] + self.stmts(s.body, False)
        out = self.block(f"for ({init}; {cond}; {i} += {step})", body)
        if it.unroll is True:
            out.insert(0, "#pragma unroll")
        elif it.unroll is not None:
            out.insert(0, f"#pragma unroll({int(it.unroll)})")
        return out

    def assign(self, target: ast.expr, value: Value, top: bool) -> list:
        if isinstance(target, ast.Name):
            return self.assign_name(target.id, value, top)
        if isinstance(target, ast.Subscript):
            lv = self.expr(target)
            if not isinstance(lv, Data):
                raise _fail(TypeError, "only array elements can be assigned to")
            v = self.cast(value, lv.dtype, "same_kind", "assignment")
            if lv.lv is not None:  # a float16 element: rounded to half when stored
                return [f"{lv.lv} = ((__half)({v.code}));"]
            return [f"{lv.code} = {v.code};"]
        if isinstance(target, ast.List):  # CuPy: ``assert False`` (_compile.py:907)
            raise AssertionError(f"{_PREFIX}a list as an assignment target")
        if isinstance(target, ast.Tuple):
            if isinstance(value, Const) and isinstance(value.obj, tuple):
                value = Tup([Const(x) for x in value.obj])
            if not isinstance(value, Tup):  # CuPy's errors
                raise _fail(ValueError, f"{_kind(value)} cannot be unpack")
            size = len(target.elts)
            if len(value.items) > size:
                raise _fail(ValueError, f"too many values to unpack (expected {size})")
            if len(value.items) < size:
                raise _fail(ValueError, f"not enough values to unpack (expected {size})")
            out, temps = [], []
            for item in value.items:  # evaluate all first: a, b = b, a
                if isinstance(item, Data):
                    tmp = self.fresh("gs_t")
                    out.append(f"{ctype(item.dtype)} {tmp} = {item.code};")
                    item = Data(tmp, item.dtype)
                elif isinstance(item, Arr):
                    lines, item = self.bind_arr(self.fresh("gs_t"), item, False)
                    out += lines
                temps.append(item)
            for tgt, item in zip(target.elts, temps):
                out += self.assign(tgt, item, False)
            return out
        raise _fail(NotImplementedError, f"assignment to {type(target).__name__} is not "
                                         "supported")

    def assign_name(self, name: str, value: Value, top: bool) -> list:
        var = self.locals.get(name, self.params.get(name))
        # CuPy's rules (cupyx/jit/_compile.py:552-566, 854): a constant that is not
        # a scalar (a tuple, a dtype, a module...) names a compile-time value, only at
        # the top level and only for a name not holding run-time data; a name bound to
        # a constant (a global, a closure value, such a compile-time value) cannot
        # then be assigned run-time data
        if isinstance(value, Const) and not _is_scalar(value.obj):
            if not top:
                raise _fail(TypeError, "Cannot assign constant value not at top-level.")
            if var is not None:
                raise _fail(TypeError, f"Type mismatch of variable: `{name}`")
            self.consts[name] = value.obj
            return []
        if var is None and name in self.consts:
            raise _fail(TypeError, "lvalue of assignment must not be constant value")
        # CuPy (``_emit_assign_stmt``, cupyx/jit/_compile.py:873): a variable keeps its
        # type; CArray types are their dtype, ndim and layout (not the shape), pointer
        # and group types compare by identity, and dim3 is one type
        mismatch = _fail(TypeError, f"Data type mismatch of variable: `{name}`: "
                                    f"{_ctype_name(var)} != {_ctype_name(value)}")
        if isinstance(value, Group):  # an alias of a pure expression
            if var is not None and (not isinstance(var, Group) or var.uid != value.uid):
                raise mismatch
            self.locals[name] = value
            return []
        if isinstance(value, Dim3Val):
            if var is None:
                cn = _cname(name)
                self.locals[name] = Dim3Val(cn)
                if top:
                    return [f"dim3 {cn} = dim3({value.code});"]
                self.decls.append(f"dim3 {cn};")
                return [f"{cn} = dim3({value.code});"]
            if not isinstance(var, Dim3Val):
                raise mismatch
            return [f"{var.code} = dim3({value.code});"]
        if isinstance(value, Arr):
            if var is None:
                lines, arr = self.bind_arr(_cname(name), value, top)
                self.locals[name] = arr
                return lines
            if not isinstance(var, Arr) or var.key() != value.key() or \
                    var.ptr_id != value.ptr_id:
                raise mismatch
            return self.rebind_arr(var, value)
        if isinstance(value, Rng):
            raise _fail(NotImplementedError, "range objects can be used only directly "
                                             "in for loops")
        if isinstance(value, Tup):
            return self.assign_tuple(name, var, value, top)
        v = self.value(value)
        if var is not None and not isinstance(var, Data):
            raise _fail(TypeError, f"Data type mismatch of variable: `{name}`: "
                                   f"{_ctype_name(var)} != {_ctype_name(v)}")
        v = self.value(value)
        if v.dtype is None:
            raise _fail(TypeError, f"{name!r} cannot be assigned a value of type void")
        if var is None:
            cn = _cname(name)
            self.locals[name] = Data(cn, v.dtype)
            if top:
                return [f"{ctype(v.dtype)} {cn} = {v.code};"]
            self.decls.append(f"{ctype(v.dtype)} {cn};")
            return [f"{cn} = {v.code};"]
        v = self.cast(v, var.dtype, "same_kind", f"assignment to {name!r}")
        return [f"{var.code} = {v.code};"]

    def bind_arr(self, cn: str, value: Arr, top: bool) -> tuple:
        """Variables ``cn`` (the pointer), ``cn__s<k>`` (the shape) and, for a strided
        view, ``cn__t<k>`` (its byte strides) holding the array ``value``: returns the
        code and the array they make (which can be rebound to another array of the
        same type, of another shape)."""
        t = _elem_ctype(value.dtype, value.ptr_id is not None)
        decls = [(f"{t}*", cn, value.ptr)]
        shape = None
        if value.shape is not None:
            shape = [f"{cn}__s{k}" for k in range(value.ndim)]
            decls += [("long long", n, c) for n, c in zip(shape, value.shape)]
        if value.byte_strides:
            strides = [f"{cn}__t{k}" for k in range(value.ndim)]
            decls += [("long long", n, c) for n, c in zip(strides, value.strides)]
        elif shape is None:
            strides = ["1"] * value.ndim
        else:
            strides = ["1"] * value.ndim
            for k in range(value.ndim - 2, -1, -1):
                strides[k] = shape[k + 1] if strides[k + 1] == "1" else \
                    f"{strides[k + 1]} * {shape[k + 1]}"
        arr = Arr(value.dtype, value.ndim, cn, shape, strides, value.byte_strides,
                  value.ptr_id)
        if top:
            return [f"{ct} {n} = {c};" for ct, n, c in decls], arr
        self.decls += [f"{ct} {n};" for ct, n, _ in decls]
        return [f"{n} = {c};" for _, n, c in decls], arr

    def rebind_arr(self, var: Arr, value: Arr) -> list:
        """``var = value`` for arrays of one type (``var``'s pointer, shape and byte
        strides are variables: a parameter's or ``bind_arr``'s)."""
        pairs = [(var.ptr, value.ptr,
                  f"{_elem_ctype(value.dtype, value.ptr_id is not None)}*")]
        if var.shape is not None and value.shape is not None:
            pairs += [(a, b, "long long") for a, b in zip(var.shape, value.shape)]
        if var.byte_strides:
            pairs += [(a, b, "long long") for a, b in zip(var.strides, value.strides)]
        pairs = [p for p in pairs if p[0] != p[1]]
        if len(pairs) <= 1:
            return [f"{a} = {b};" for a, b, _ in pairs]
        temps = [self.fresh("gs_t") for _ in pairs]  # all read before any is written
        return self.block("", [f"{t} {tmp} = {b};" for (_, b, t), tmp in zip(pairs, temps)]
                          + [f"{a} = {tmp};" for (a, _, _), tmp in zip(pairs, temps)])

    def assign_tuple(self, name: str, var: Any, value: Tup, top: bool) -> list:
        """``name = (a, b)`` / ``name = x.shape``: a tuple variable keeps the values of
        now in temporaries (declared at function scope, as Python's variables are). As
        in CuPy, where a tuple of run-time values is run-time data, its constant items
        become run-time values too, and it can be rebound to a tuple of the same item
        types (``Data type mismatch of variable`` otherwise)."""
        scalar = all(isinstance(x, Data) or (isinstance(x, Const) and _is_scalar(x.obj))
                     for x in value.items)
        if var is not None and not (isinstance(var, Tup) and scalar and
                                    all(isinstance(x, Data) for x in var.items)):
            if isinstance(var, Tup):
                raise _fail(NotImplementedError, f"{name!r}: tuples of arrays cannot be "
                                                 "reassigned in gpushare's cupyx.jit")
            raise _fail(TypeError, f"Data type mismatch of variable: `{name}`: "
                                   f"{_ctype_name(var)} != {_ctype_name(value)}")
        out, items = [], []
        for item in value.items:
            if scalar:
                item = self.value(item)
            if isinstance(item, Data):
                if item.dtype is None:
                    raise _fail(TypeError, "a void value is used")
                tmp = self.fresh("gs_t")
                if top and var is None:
                    out.append(f"{ctype(item.dtype)} {tmp} = {item.code};")
                else:
                    self.decls.append(f"{ctype(item.dtype)} {tmp};")
                    out.append(f"{tmp} = {item.code};")
                item = Data(tmp, item.dtype)
            items.append(item)
        if var is None:
            self.locals[name] = Tup(items)
            return out
        if [x.dtype for x in var.items] != [x.dtype for x in items]:
            raise _fail(TypeError, f"Data type mismatch of variable: `{name}`: "
                                   f"{_ctype_name(var)} != {_ctype_name(Tup(items))}")
        return out + [f"{old.code} = {new.code};" for old, new in zip(var.items, items)]

    def augassign(self, s: ast.AugAssign) -> list:
        if isinstance(s.target, ast.Name):
            value = self.expr(s.value)
            var = self.lookup(s.target.id)
            if isinstance(var, Const):
                # CuPy: ``TypeError(f'Cannot augassign to {target.code}')`` fails on
                # the constant's missing ``code`` (cupyx/jit/_compile.py:573)
                raise _fail(AttributeError, "'Constant' object has no attribute 'code'")
            if not isinstance(var, Data):
                raise _fail(TypeError, f"cannot use {s.target.id!r} in an augmented "
                                       "assignment")
            res = self.value(self.binop(s.op, var, value))
            _check_augassign_cast(res.dtype, var.dtype)
            res = self.cast(res, var.dtype, "same_kind", f"assignment to {s.target.id!r}")
            return [f"{var.code} = {res.code};"]
        if isinstance(s.target, ast.Subscript):
            value = self.expr(s.value)
            lv = self.expr(s.target)
            if not isinstance(lv, Data):
                raise _fail(TypeError, "only array elements can be assigned to")
            ref = self.fresh("gs_ref")
            cur = Data(ref, lv.dtype) if lv.lv is None else \
                Data(f"((float)({ref}))", lv.dtype, ref)
            res = self.value(self.binop(s.op, cur, value))
            _check_augassign_cast(res.dtype, lv.dtype)
            res = self.cast(res, lv.dtype, "same_kind", "augmented assignment")
            if lv.lv is not None:  # a float16 element: rounded to half when stored
                return [f"{{ __half& {ref} = {lv.lv}; {ref} = ((__half)({res.code})); }}"]
            return [f"{{ {ctype(lv.dtype)}& {ref} = {lv.code}; {ref} = {res.code}; }}"]
        raise _fail(NotImplementedError, "augmented assignment to "
                                         f"{type(s.target).__name__} is not supported")

    # -- expressions
    def expr(self, e: ast.expr) -> Value:
        try:
            v = self._expr(e)
            if isinstance(v, Const) and isinstance(v.obj, RuntimeData):
                return Data(v.obj.code, v.obj.dtype)  # jit.warpsize (CuPy's Data)
            if isinstance(v, Const) and isinstance(v.obj, Dim3):
                return Dim3Val(v.obj.code)  # jit.threadIdx... (CuPy's dim3 Data)
            return v
        except (NotImplementedError, TypeError, NameError, ValueError, LookupError,
                AttributeError, OverflowError, ZeroDivisionError, AssertionError) as exc:
            raise self.located(exc, e) from None

    def _expr(self, e: ast.expr) -> Value:
        if isinstance(e, ast.Constant):
            return Const(e.value)
        if isinstance(e, ast.Name):
            return self.lookup(e.id)
        if isinstance(e, ast.BinOp):
            return self.binop(e.op, self.expr(e.left), self.expr(e.right))
        if isinstance(e, ast.UnaryOp):
            return self.unop(e.op, self.expr(e.operand))
        if isinstance(e, ast.BoolOp):
            vals = [self.expr(x) for x in e.values]
            if all(isinstance(v, Const) for v in vals):
                r = vals[0].obj  # type: ignore[attr-defined]
                for v in vals[1:]:
                    o = v.obj  # type: ignore[attr-defined]
                    r = (r and o) if isinstance(e.op, ast.And) else (r or o)
                return Const(r)
            sym = " && " if isinstance(e.op, ast.And) else " || "
            return Data("(" + sym.join(self.truth(v) for v in vals) + ")", _BOOL)
        if isinstance(e, ast.Compare):
            return self.compare(e)
        if isinstance(e, ast.IfExp):
            cond = self.expr(e.test)
            x, y = self.expr(e.body), self.expr(e.orelse)
            if isinstance(cond, Const):
                # CuPy never folds ``a if c else b``: a constant ``c`` fails on its
                # missing ``ctype`` (cupyx/jit/_compile.py:724-726)
                raise _fail(AttributeError, "'Constant' object has no attribute 'ctype'")
            if self.stype(cond).char in _COMPLEX:
                raise _fail(TypeError, "Complex type value cannot be boolean condition.")
            # Python scalars take the other branch's type (NumPy scalars keep theirs)
            if _is_py_scalar(x) and isinstance(y, Data):
                x = self.cast(x, y.dtype, "same_kind", "conditional expression")
            if _is_py_scalar(y) and isinstance(x, Data):
                y = self.cast(y, x.dtype, "same_kind", "conditional expression")
            x, y = self.value(x), self.value(y)
            if x.dtype != y.dtype:
                raise _fail(TypeError, f"Type mismatch in conditional expression.: "
                                       f"{x.dtype} != {y.dtype}")
            return Data(f"({self.truth(cond)} ? {x.code} : {y.code})", x.dtype)
        if isinstance(e, ast.Attribute):
            return self.attribute(self.expr(e.value), e.attr)
        if isinstance(e, ast.Subscript):
            return self.subscript(self.expr(e.value), e.slice)
        if isinstance(e, ast.Tuple) and isinstance(e.ctx, ast.Load):
            items = [self.expr(x) for x in e.elts]
            if all(isinstance(x, Const) for x in items):
                return Const(tuple(x.obj for x in items))  # type: ignore[attr-defined]
            return Tup(items)
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Lambda):  # CuPy's words (cupyx/jit/_compile.py:710)
            raise _fail(NotImplementedError, "Not implemented. (lambda expressions)")
        # a list literal too: ValueError (CuPy has no list type; _compile.py:845)
        names = {ast.List: "lists", ast.ListComp: "list comprehensions",
                 ast.GeneratorExp: "generator expressions", ast.DictComp: "comprehensions",
                 ast.SetComp: "comprehensions", ast.Dict: "dicts", ast.Set: "sets",
                 ast.JoinedStr: "f-strings", ast.Starred: "starred expressions",
                 ast.NamedExpr: "the walrus operator", ast.Slice: "slices",
                 ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield"}
        what = names.get(type(e), type(e).__name__)
        # CuPy: ValueError('Not supported: type <class ...>') (cupyx/jit/_compile.py:845)
        raise _fail(ValueError, f"Not supported: type {type(e)} ({what})")

    def value(self, v: Value) -> Data:
        """``v`` as run-time scalar data (constants become typed literals)."""
        if isinstance(v, Data):
            return v
        if isinstance(v, Const) and _is_scalar(v.obj):
            t = scalar_type(v.obj, self.mode)
            return Data(_lit(v.obj, t), t)
        if isinstance(v, Arr):
            raise _fail(TypeError, "an array is used where a scalar is needed")
        if isinstance(v, Const):
            raise _fail(TypeError, f"{v.obj!r} cannot be used as a value in a jit kernel")
        raise _fail(TypeError, f"a {type(v).__name__.lower()} is used where a scalar is "
                               "needed")

    def stype(self, v: Value) -> numpy.dtype:
        if isinstance(v, Const) and _is_scalar(v.obj):
            return scalar_type(v.obj, self.mode)
        d = self.value(v)
        if d.dtype is None:
            raise _fail(TypeError, "a void value is used")
        return d.dtype

    def cast(self, v: Value, dt: numpy.dtype, casting: str, what: str) -> Data:
        if isinstance(v, Const) and _is_scalar(v.obj):
            # constants are converted as CuPy does (dt.type(value))
            obj = v.obj
            if dt.char in _INT and isinstance(obj, (float, numpy.floating)) and \
                    not math.isfinite(obj):
                raise _fail(ValueError, f"cannot convert {obj} to {dt}")
            return Data(_lit(dt.type(obj), dt), dt)
        d = self.value(v)
        if d.dtype == dt:
            return d
        if casting != "unsafe" and not numpy.can_cast(d.dtype, dt, casting):
            # CuPy's words (_astype_scalar, cupyx/jit/_compile.py:1012)
            raise _fail(TypeError, f"Cannot cast from '{d.dtype}' to {dt} with casting "
                                   f"rule {casting}.")
        if d.dtype.char in _COMPLEX and dt.char not in _COMPLEX and dt.char != "?":
            warnings.warn("Casting complex values to real discards the imaginary part",
                          numpy.exceptions.ComplexWarning, stacklevel=2)
        return Data(_cast_code(d.code, d.dtype, dt), dt)

    def truth(self, v: Value) -> str:
        if isinstance(v, Const):
            return "true" if v.obj else "false"
        return self.cast(v, _BOOL, "unsafe", "condition").code

    def binop(self, op: ast.AST, a: Value, b: Value, dtype: Any = None,
              fold: bool = True) -> Value:
        """``a op b``; ``dtype`` selects the ufunc loop by its output type (as
        ``cupy.add(a, b, dtype=...)`` does); constants are folded (Python's operator)
        unless ``fold`` is false (a call of a ufunc of ``cupy``)."""
        if isinstance(a, Const) and isinstance(b, Const) and dtype is None and fold:
            f = _PY_BINOPS.get(type(op))
            if f is None:  # CuPy: KeyError in _cuda_typerules.get_pyfunc
                raise KeyError(type(op))
            return Const(f(a.obj, b.obj))
        if isinstance(a, Arr) or isinstance(b, Arr):
            return self.ptr_arith(op, a, b)
        loops, fmt, what = _binop_spec(op, self.mode)
        if dtype is None:
            ins = [self.stype(a), self.stype(b)]
            loop = _resolve(loops, ins, self.mode, what)
            loop = (loop[0].replace("q", "l").replace("Q", "L"), loop[1])
            # CuPy casts run-time operands to the loop's types with 'same_kind'
            # (_call_ufunc, cupyx/jit/_compile.py:462), constants without a check
            for x, t, c in zip((a, b), ins, loop[0]):
                if not isinstance(x, Const):
                    _check_same_kind(t, numpy.dtype(c))
            casting = "unsafe"
        else:
            dt = _norm(dtype)
            loop = next((lp for lp in loops if lp[1] == dt.char), None)
            if loop is None:
                raise _fail(TypeError, f"Wrong type ({dt}) of arguments for {what}")
            casting = "same_kind"
        if isinstance(op, ast.Sub) and loop[0] == "??":
            raise _fail(TypeError, "cupy boolean subtract, the `-` operator, is deprecated, "
                        "use the bitwise_xor, the `^` operator, or the logical_xor "
                        "function instead.")
        out = numpy.dtype(loop[1])
        # true division computes in its output type ('ii->d'); the rest in the loop's
        to = [out] * 2 if isinstance(op, ast.Div) else [numpy.dtype(c) for c in loop[0]]
        ca, cb = (self.cast(x, t, casting, what).code for x, t in zip((a, b), to))
        if loop[0] in ("lL", "Ll"):  # int64 against uint64, exactly
            self.gen.helper("gs_jit_cmp_lL")
            cmp = (f"gs_jit_cmp_lL({ca}, {cb})", "0") if loop[0] == "lL" else \
                ("0", f"gs_jit_cmp_lL({cb}, {ca})")
            return Data(fmt(out, *cmp), out)
        code = fmt(out, ca, cb)
        for helper in _HELPER_RE.findall(code):
            self.gen.helper(helper)
        if out.char in _NARROW and loop[1] != "?":
            code = f"(({ctype(out)})({code}))"  # undo C's integer promotion
        return Data(code, out)

    def ptr_arith(self, op: ast.AST, a: Value, b: Value) -> Value:
        """Arithmetic with an array operand: pointer arithmetic for CuPy's pointers
        (``PointerBase._add``/``_radd``/``_sub``, cupyx/jit/_cuda_types.py:97), else
        CuPy's refusal of non-scalar operands of a ufunc."""
        def is_int(x: Value) -> bool:
            return not isinstance(x, (Arr, Tup, Group, Dim3Val, Rng)) and \
                self.stype(x).char in _INT
        if isinstance(a, Arr) and a.ptr_id is not None:
            if isinstance(op, (ast.Add, ast.Sub)) and is_int(b):
                sym = "+" if isinstance(op, ast.Add) else "-"
                return replace(a, ptr=f"({a.ptr} {sym} {self.value(b).code})")
            if isinstance(op, ast.Sub) and isinstance(b, Arr) and b.ptr_id == a.ptr_id:
                return Data(f"((long long)({a.ptr} - {b.ptr}))", _I64)  # ptrdiff_t
        if isinstance(b, Arr) and b.ptr_id is not None and isinstance(op, ast.Add) and \
                is_int(a):
            return replace(b, ptr=f"({self.value(a).code} + {b.ptr})")
        _binop_spec(op, self.mode)  # CuPy: KeyError for an operator without a ufunc
        bad = next(x for x in (a, b) if not isinstance(x, (Const, Data)))
        raise _fail(TypeError, f"cupy.ufunc: {_ctype_name(bad)} is unsupported")

    def unop(self, op: ast.AST, a: Value, fold: bool = True) -> Value:
        if isinstance(op, ast.UAdd):  # CuPy has no unary + (KeyError in get_pyfunc /
            raise KeyError(ast.UAdd)  # get_ufunc, cupyx/jit/_cuda_typerules.py)
        if isinstance(a, Const) and fold:
            f = {ast.USub: lambda x: -x, ast.Not: lambda x: not x,
                 ast.Invert: lambda x: ~x}[type(op)]
            return Const(f(a.obj))
        if isinstance(a, Arr):
            raise _fail(TypeError, f"cupy.ufunc: {_ctype_name(a)} is unsupported")
        t = self.stype(a)
        d = self.value(a)
        if isinstance(op, ast.Not):
            return Data(f"(!{self.truth(d)})", _BOOL)
        if isinstance(op, ast.Invert):
            if t.char == "?":
                return Data(f"(!{d.code})", _BOOL)
            if t.char not in _INT:
                raise _fail(TypeError, f"~ does not support {t}")
            return Data(f"(({ctype(t)})(~ {d.code}))", t)
        # negation
        if t.char == "?":
            raise _fail(TypeError, "The cupy boolean negative, the `-` operator, is not "
                        "supported, use the `~` operator or the logical_not function "
                        "instead.")
        code = f"(- {d.code})"
        if t.char in _NARROW:
            code = f"(({ctype(t)})({code}))"
        return Data(code, t)

    def compare(self, e: ast.Compare) -> Value:
        operands = [e.left] + list(e.comparators)
        if len(e.ops) > 1:  # CuPy's words (cupyx/jit/_compile.py:716)
            raise _fail(NotImplementedError, "Comparison of 3 or more values is not "
                                             "implemented.")
        a, b = [self.expr(x) for x in operands]
        # ``is``, ``is not``, ``in``, ``not in``: CuPy has neither a Python function nor
        # a ufunc for them, constants or not (KeyError, cupyx/jit/_cuda_typerules.py)
        return self.binop(e.ops[0], a, b)

    def attribute(self, v: Value, attr: str) -> Value:
        if isinstance(v, Const):
            obj = v.obj
            if _is_proxy(obj):
                raise _fail(TypeError, f"{type(obj).__name__} objects from the enclosing "
                                       "scope cannot be used inside jit kernels; pass "
                                       "arrays as kernel arguments")
            # CuPy: ``Constant(getattr(value.obj, expr.attr))``, Python's own error
            return Const(getattr(obj, attr))
        # CuPy: the attributes that are methods of the value's type (shape, strides,
        # size, ndim, begin, end of CArray; ndim of pointers; x, y, z of dim3; a
        # group's methods), else AttributeError('Unknown attribute: ...')
        # (cupyx/jit/_compile.py:813-821): not an array's dtype or itemsize
        if isinstance(v, Arr) and v.ptr_id is None:
            if attr in ("shape", "strides") and v.ndim > 10:
                raise _fail(NotImplementedError, "getting shape/strides for an array with "
                                                 "ndim > 10 is not supported yet")
            if attr == "shape":
                return Tup([Data(s, _I64) for s in self._shape(v)])
            if attr == "strides":  # in bytes, as CuPy's CArray
                if v.byte_strides:
                    return Tup([Data(f"(({st}))", _I64) for st in v.strides])
                n = v.dtype.itemsize
                return Tup([Data(f"{n}LL" if st == "1" else f"(({st}) * {n}LL)", _I64)
                            for st in v.strides])
            if attr == "size":
                sh = self._shape(v)
                return Data("(" + " * ".join(sh) + ")" if sh else "1LL", _I64)
            if attr in ("begin", "end"):
                raise _fail(NotImplementedError, f"{attr}() (CArray iterators, for "
                                                 "cupyx.jit.thrust) is not supported by "
                                                 "gpushare")
        if isinstance(v, Arr) and attr == "ndim":
            return Const(v.ndim)
        if isinstance(v, Group) and attr in _CG_METHODS[v.kind]:
            return Const(GroupMethod(v, attr))
        if isinstance(v, Dim3Val) and attr in ("x", "y", "z"):
            return Data(f"{v.code}.{attr}", _U32)
        # CuPy: AttributeError('Unknown attribute: ...') (cupyx/jit/_compile.py:821)
        raise _fail(AttributeError, f"Unknown attribute: {attr}")

    def _shape(self, v: Arr) -> list:
        if v.shape is None:
            raise _fail(TypeError, "the shape of extern (dynamic) shared memory is unknown")
        return list(v.shape)

    def subscript(self, v: Value, sl: ast.expr) -> Value:
        if isinstance(sl, ast.Slice) or (isinstance(sl, ast.Tuple) and
                                         any(isinstance(x, ast.Slice) for x in sl.elts)):
            # CuPy: ValueError('Not supported: type <class 'ast.Slice'>') (_compile.py:845)
            raise _fail(ValueError, f"Not supported: type {ast.Slice} (slices)")
        return self.index(v, self.expr(sl))

    def index(self, v: Value, idx: Value) -> Value:
        """``v[idx]`` for an evaluated index."""
        if isinstance(v, Const):
            if isinstance(idx, Const):
                return Const(v.obj[idx.obj])
            raise _fail(TypeError, f"{type(v.obj).__name__} values from the enclosing "
                                   "scope can be indexed by constants only")
        if isinstance(v, Tup):
            if not isinstance(idx, Const) or not isinstance(idx.obj, int):
                raise _fail(TypeError, "tuples can be indexed by integer constants only")
            return v.items[idx.obj]
        if not isinstance(v, Arr):
            raise _fail(TypeError, "only arrays and tuples can be indexed")
        if isinstance(idx, Tup):
            items = idx.items
        elif isinstance(idx, Const) and isinstance(idx.obj, tuple):
            items = [Const(x) for x in idx.obj]
        else:
            items = [idx]
        if len(items) > v.ndim:
            raise _fail(IndexError, f"too many indices ({len(items)}) for a "
                                    f"{v.ndim}-dimensional array")
        terms = []
        for k, it in enumerate(items):
            if isinstance(it, Const):
                if not isinstance(it.obj, (int, numpy.integer)) or isinstance(it.obj, bool):
                    raise _fail(TypeError, "array indices must be integers")
                if it.obj < 0:
                    raise _fail(IndexError, "negative indices are not wrapped in jit kernels "
                                            f"(index {it.obj})")
                code = str(int(it.obj))
            else:
                d = self.value(it)
                if d.dtype.char not in _INT:
                    raise _fail(TypeError, f"array indices must be integers, not {d.dtype}")
                code = d.code
            st = v.strides[k]
            terms.append(f"({code})" if st == "1" else f"({code}) * ({st})")
        off = " + ".join(terms) if terms else "0"
        t = _elem_ctype(v.dtype, v.ptr_id is not None)
        if len(items) == v.ndim:
            if v.byte_strides:
                elem = f"(*reinterpret_cast<{t}*>(reinterpret_cast<char*>({v.ptr}) + {off}))"
            else:
                elem = f"{v.ptr}[{off}]"
            if t == "__half":  # read as float (CuPy's float16 class: operator float)
                return Data(f"((float)({elem}))", v.dtype, elem)
            return Data(elem, v.dtype)
        k = len(items)
        ptr = (f"reinterpret_cast<{t}*>(reinterpret_cast<char*>({v.ptr}) + {off})"
               if v.byte_strides else f"({v.ptr} + {off})")
        return Arr(v.dtype, v.ndim - k, ptr, None if v.shape is None else v.shape[k:],
                   v.strides[k:], v.byte_strides)

    # -- calls
    def call(self, e: ast.Call) -> Value:
        fv = self.expr(e.func)
        args = [self.expr(a) for a in e.args]
        if any(isinstance(a, ast.Starred) for a in e.args):
            raise _fail(NotImplementedError, "*args in calls are not supported")
        kwargs = {}
        for kw in e.keywords:
            if kw.arg is None:
                raise _fail(NotImplementedError, "**kwargs in calls are not supported")
            kwargs[kw.arg] = self.expr(kw.value)
        if not isinstance(fv, Const):
            what = f'<Data code = "{fv.code}", type = {_ctype_name(fv)}>' \
                if isinstance(fv, Data) else _ctype_name(fv)
            raise _fail(TypeError, f"'{what}' is not callable.")
        f = fv.obj
        fname = getattr(f, "__name__", repr(f))
        if isinstance(f, Intrinsic):
            return self.intrinsic(f.jit_name, args, kwargs)
        if isinstance(f, GroupMethod):
            return self.group_method(f, args, kwargs)
        if isinstance(f, KernelBase):
            return self.device_call(f, args, kwargs)
        if f is range:
            return self.intrinsic("range", args, kwargs)
        # CuPy's built-ins are range, len, min and max only (_builtin_funcs.py:455):
        # print, abs... are ordinary functions, called at compile time on constants
        # (``print("x")`` prints once, on the host) and refused on run-time values
        builtin = {len: "len", min: "min", max: "max"}
        try:
            bname = builtin.get(f)
        except TypeError:  # unhashable
            bname = None
        if bname is not None:
            return getattr(self, "b_" + bname)(args, kwargs)
        all_const = all(isinstance(a, Const) for a in [*args, *kwargs.values()])
        # CuPy's ufuncs (``cupy.sqrt``...), before any compile-time call
        # (_compile.py:772); NumPy's ufuncs and ``math`` are plain functions there
        ufunc = _ufunc_name(f)
        if ufunc is not None:
            return self.math(ufunc, args, kwargs)
        if all_const and callable(f) and not _is_proxy(f):
            # compile-time call on constants, as in CuPy
            return Const(f(*[a.obj for a in args],  # type: ignore[attr-defined]
                           **{k: v.obj for k, v in kwargs.items()}))  # type: ignore
        # explicit casts: numpy.float32(x), cupy.int64(x), int(x), float(x), bool(x),
        # complex(x) (CuPy: classes of bool, numpy.bool_, numbers.Number)
        if isinstance(f, type) and issubclass(f, (bool, numpy.bool_, numbers.Number)):
            if len(args) != 1:
                raise _fail(TypeError, f"function takes {f} invalid number of argument")
            return self.cast(args[0], _norm(f), "unsafe", f"{fname}()")
        # CuPy's words (cupyx/jit/_compile.py:795)
        raise _fail(TypeError, f"Invalid function call '{fname}'.")

    def math(self, name: str, args: list, kwargs: dict) -> Value:
        """A call of one of ``cupy``'s ufuncs."""
        dtype = kwargs.pop("dtype", Const(None))
        uname = name if name.startswith("cupy_") else "cupy_" + name  # CuPy's ufunc.name
        if kwargs:  # CuPy's words (cupyx/jit/_compile.py:776)
            raise _fail(TypeError, f"'{next(iter(kwargs))}' is an invalid keyword to "
                                   f"ufunc {uname}")
        if not isinstance(dtype, Const):
            raise _fail(TypeError, f"{name}(): dtype must be a constant")
        if dtype.obj is not None and name not in _UFUNC_OPS:
            raise _fail(NotImplementedError, f"keyword arguments to {name}() are not "
                                             "supported in jit kernels")
        # constant arguments are not folded: CuPy's ufuncs give typed run-time values
        # (``cupy.sqrt(2.0)`` is float32 in mode='cuda')
        if name in _UFUNC_OPS and len(args) == 2:
            return self.binop(_UFUNC_OPS[name](), *args, dtype=dtype.obj, fold=False)
        if name == "positive" and len(args) == 1:  # CuPy's loops: every type but bool
            v = args[0]
            if isinstance(v, Arr):
                raise _fail(TypeError, f"cupy.ufunc: {_ctype_name(v)} is unsupported")
            if self.stype(v).char == "?":
                raise _fail(TypeError, "The cupy boolean positive, the `+` operator, is "
                                       "not supported.")
            return self.value(v)
        if name in _UFUNC_UNARY_OPS and len(args) == 1:
            return self.unop(_UFUNC_UNARY_OPS[name](), args[0], fold=False)
        if name in ("logical_and", "logical_or", "logical_xor") and len(args) == 2:
            a, b = self.truth(args[0]), self.truth(args[1])
            sym = {"logical_and": "&&", "logical_or": "||", "logical_xor": "!="}[name]
            return Data(f"({a} {sym} {b})", _BOOL)
        if name in ("minimum", "maximum"):
            if len(args) != 2:  # CuPy's _call_ufunc
                raise _fail(ValueError, "invalid number of arguments")
            return self.minmax(name, args[0], args[1])
        if name in ("absolute", "abs") and len(args) == 1:
            return self.b_abs(args, {})
        if name == "square" and len(args) == 1:
            return self.binop(ast.Mult(), args[0], args[0], fold=False)
        ins = [self.stype(a) for a in args]
        if name == "reciprocal" and len(args) == 1:
            return self.reciprocal(args[0], ins[0])
        cplx = "FD"  # (ufuncs take complex values)
        if name in _PREDICATES and len(args) == 1:
            loop = _resolve(_loops("efd" + cplx, 1, "?"), ins, self.mode, uname)
            t = numpy.dtype(loop[0][0])
            a = self.cast(args[0], t, "unsafe", name)
            return Data(f"({_PREDICATES[name]}({a.code}) != 0)", _BOOL)
        table = _MATH1 if len(args) == 1 else _MATH2 if len(args) == 2 else {}
        cname = table.get(name)
        if cname is None or name == "pow":
            raise _fail(NotImplementedError, f"{name}() with {len(args)} argument(s) is not "
                                             "supported in jit kernels")
        chars = "efd" + (cplx if name in _COMPLEX_MATH else "")
        loop = _resolve(_loops(chars, len(args)), ins, self.mode, uname)
        t = numpy.dtype(loop[1])
        cargs = [self.cast(a, t, "unsafe", name).code for a in args]
        if t.char in "dFD":
            code = f"{cname}({', '.join(cargs)})"
        else:
            code = f"{cname}f({', '.join(f'(float)({c})' for c in cargs)})"
        return Data(code, t)

    def reciprocal(self, a: Value, t: numpy.dtype) -> Value:
        """``cupy.reciprocal(a)`` (CuPy's loops: integers give 0 for 0)."""
        loop = _resolve(_loops("bBhHiIlLefdFD", 1), [t], self.mode, "cupy_reciprocal")
        out = numpy.dtype(loop[1])
        x = self.cast(a, out, "unsafe", "reciprocal").code
        if out.char in _INT:
            self.gen.helper("gs_jit_ireciprocal")
            return Data(f"gs_jit_ireciprocal<{ctype(out)}>({x})", out)
        return Data(f"({ctype(out)}(1) / {x})", out)

    def minmax(self, name: str, a: Value, b: Value) -> Value:
        """``cupy.minimum(a, b)`` / ``cupy.maximum(a, b)`` (also what ``min``/``max``
        reduce with): CuPy's loops, constants not folded, NaN if either is NaN."""
        for x in (a, b):
            if isinstance(x, Arr):
                raise _fail(TypeError, f"cupy.ufunc: {_ctype_name(x)} is unsupported")
        ins = [self.stype(a), self.stype(b)]
        loop = _resolve(_loops("?bBhHiIlLefdFD", 2), ins, self.mode, "cupy_" + name)
        t = numpy.dtype(loop[1])
        for x, src in zip((a, b), ins):
            if not isinstance(x, Const):
                _check_same_kind(src, t)
        x, y = (self.cast(v, t, "unsafe", name).code for v in (a, b))
        helper = ("gs_jit_c" if t.char in _COMPLEX else "gs_jit_") + name[:3]
        self.gen.helper(helper)
        return Data(f"{helper}<{ctype(t)}>({x}, {y})", t)

    # builtins
    def b_len(self, args: list, kwargs: dict) -> Value:
        # CuPy's LenFunc (cupyx/jit/_builtin_funcs.py:110-123)
        if len(args) != 1:
            raise _fail(TypeError, f"len() expects only 1 argument, got {len(args)}")
        if kwargs:
            raise _fail(TypeError, "keyword arguments are not supported")
        a = args[0]
        if isinstance(a, Const):  # CuPy reads the constant's missing ``ctype``
            raise _fail(AttributeError, "'Constant' object has no attribute 'ctype'")
        if not isinstance(a, Arr) or a.ptr_id is not None:
            raise _fail(TypeError, "len() supports only array type")
        if a.ndim == 0:
            raise _fail(TypeError, "len() of unsized array")
        return Data(self._shape(a)[0], _I64)

    def b_min(self, args: list, kwargs: dict) -> Value:
        return self.b_minmax("min", args, kwargs)

    def b_max(self, args: list, kwargs: dict) -> Value:
        return self.b_minmax("max", args, kwargs)

    def b_minmax(self, name: str, args: list, kwargs: dict) -> Value:
        """CuPy's MinFunc/MaxFunc (cupyx/jit/_builtin_funcs.py:126-146): a reduction
        with ``cupy.minimum``/``cupy.maximum``, never folded (``min(1, 2)`` is an
        ``int32`` run-time value)."""
        if len(args) < 2:
            raise _fail(TypeError, f"{name}() expects at least 2 arguments, got {len(args)}")
        if kwargs:
            raise _fail(TypeError, "keyword arguments are not supported")
        acc = args[0]
        for b in args[1:]:
            acc = self.minmax(name + "imum", acc, b)
        return acc

    def b_abs(self, args: list, kwargs: dict) -> Value:
        if len(args) != 1 or kwargs:
            raise _fail(TypeError, "abs() takes exactly one argument")
        a = args[0]  # (``cupy.absolute``: constants are not folded)
        if isinstance(a, Arr):
            raise _fail(TypeError, f"cupy.ufunc: {_ctype_name(a)} is unsupported")
        d = self.value(a)
        c = d.dtype.char
        if c == "?" or c in "BHIL":
            return d
        if c in _COMPLEX:
            return Data(f"abs({d.code})", _component(d.dtype))
        if c in _INT:
            code = f"({d.code} < 0 ? -{d.code} : {d.code})"
            return Data(f"(({ctype(d.dtype)})({code}))" if c in _NARROW else code, d.dtype)
        if c == "d":
            return Data(f"fabs({d.code})", d.dtype)
        return Data(f"fabsf({d.code})", d.dtype)  # float32, float16 (a float)

    def intrinsic(self, name: str, args: list, kwargs: dict) -> Value:
        if name == "range":
            return self.range_(args, kwargs)
        if name in ("syncthreads",):
            self._noargs(name, args, kwargs)
            return Data("__syncthreads()", None)
        if name == "syncwarp":  # CuPy's SyncWarp.call(self, env, *, mask=None)
            mask = kwargs.pop("mask", None)
            if args:
                raise _fail(TypeError, f"SyncWarp.call() takes 2 positional arguments but "
                                       f"{len(args) + 2} were given")
            if kwargs:
                raise _fail(TypeError, "SyncWarp.call() got an unexpected keyword argument "
                                       f"'{next(iter(kwargs))}'")
            if mask is None:
                return Data("__syncwarp()", None)
            if isinstance(mask, Const) and not 0 <= mask.obj <= 0xFFFFFFFF:
                raise _fail(ValueError, "mask is out of range")
            # cast to int32 'same_kind' (NumPy 2: 0xffffffff overflows int32, as in CuPy)
            return Data(f"__syncwarp({self.cast(mask, _I32, 'same_kind', 'mask').code})",
                        None)
        if name == "laneid":
            self._noargs(name, args, kwargs)
            return Data("(((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + "
                        "threadIdx.x) & 31u)", _U32)
        if name in ("grid", "gridsize"):
            ndim = (args + [kwargs.pop("ndim", None)])[0]
            if ndim is None or len(args) > 1 or kwargs:
                raise _fail(TypeError, f"{name}() takes exactly one argument (ndim)")
            if not isinstance(ndim, Const):  # CuPy's BuiltinFunc.call
                raise _fail(TypeError, "Arguments must be constants.")
            if not isinstance(ndim.obj, int):  # (a bool is an int there)
                raise _fail(TypeError, "ndim must be an integer")
            if ndim.obj not in (1, 2, 3):
                raise _fail(ValueError, "Only ndim=1,2,3 are supported")
            fmt = ("(blockIdx.{0} * blockDim.{0} + threadIdx.{0})" if name == "grid"
                   else "(blockDim.{0} * gridDim.{0})")
            items = [Data(fmt.format(d), _U32) for d in "xyz"[:ndim.obj]]
            return items[0] if ndim.obj == 1 else Tup(items)  # type: ignore[return-value]
        if name == "shared_memory":
            return self.memory(name, args, kwargs)
        if name.startswith("atomic_"):
            return self.atomic(name[7:], args, kwargs)
        if name.startswith("shfl_"):
            return self.shfl(name, args, kwargs)
        if name.startswith("cg."):
            return self.cg(name[3:], args, kwargs)
        raise _fail(NotImplementedError, f"jit.{name} is not supported by gpushare")

    def _noargs(self, name: str, args: list, kwargs: dict) -> None:
        if args or kwargs:
            raise _fail(TypeError, f"{name}() takes no arguments")

    def range_(self, args: list, kwargs: dict) -> Value:
        # CuPy's RangeFunc.call (cupyx/jit/_builtin_funcs.py:54)
        unroll = kwargs.pop("unroll", None)
        if kwargs:
            raise _fail(TypeError, "RangeFunc.call() got an unexpected keyword argument "
                                   f"'{next(iter(kwargs))}'")
        if not args:
            raise _fail(TypeError, "range expected at least 1 argument, got 0")
        if len(args) > 3:
            raise _fail(TypeError, f"range expected at most 3 argument, got {len(args)}")
        if len(args) == 1:
            start, stop, step = Const(0), args[0], Const(1)
        elif len(args) == 2:
            start, stop, step = args[0], args[1], Const(1)
        else:
            start, stop, step = args
        u = None
        if unroll is not None:  # (even ``unroll=None``, which is then refused)
            if not all(isinstance(x, Const) for x in (start, stop, step, unroll)):
                raise _fail(TypeError, "loop unrolling requires constant start, stop, step "
                                       "and unroll value")
            u = unroll.obj
            if not isinstance(u, int):
                raise _fail(TypeError, "unroll value expected to be of type int, got "
                                       f"{type(u).__name__}")
            if u is False:
                u = 1
            if not (u is True or 0 < u < 1 << 31):
                warnings.warn("loop unrolling is ignored as the unroll value is "
                              "non-positive or greater than INT_MAX", stacklevel=2)
        # a constant step of 0 counts as positive (no check, as in CuPy)
        if isinstance(step, Const):
            positive: bool | None = step.obj >= 0
        else:
            positive = True if self.stype(step).char in "BHIL" else None
        ds = [self.value(x) for x in (start, stop, step)]
        for d in ds:
            if d.dtype.char not in _INT:
                raise _fail(TypeError, "range supports only for integer type.")
        dt = _I64 if self.mode == "numpy" else ds[1].dtype
        return Rng(ds[0], ds[1], ds[2], dt, positive, u)

    def memory(self, name: str, args: list, kwargs: dict) -> Value:
        """``jit.shared_memory(dtype, size, alignment=None)``: CuPy's ``SharedMemory``
        (cupyx/jit/_builtin_funcs.py:218), a pointer (``Ptr``, no shape)."""
        for v in [*args, *kwargs.values()]:
            if not isinstance(v, Const):  # CuPy's BuiltinFunc.call (_internal_types.py)
                raise _fail(TypeError, "Arguments must be constants.")
        dtype, size, align = _shared_memory_call_const(
            self, None, *[a.obj for a in args], **{k: v.obj for k, v in kwargs.items()})
        # CuPy's SharedMem raises a str there: "exceptions must derive from BaseException"
        if not (isinstance(size, int) or size is None) or \
                not (isinstance(align, int) or align is None):
            raise _fail(TypeError, "exceptions must derive from BaseException")
        dt = _norm(dtype)
        t = ctype(dt)
        al = f"__align__({int(align)}) " if align is not None else ""
        if size is None:
            var = self.fresh("gs_dsmem")
            self.decls.append(f"extern __shared__ {al}{t} {var}[];")
        else:
            if size <= 0:
                raise _fail(ValueError, f"{name}(): the size must be positive")
            var = self.fresh("gs_smem")
            self.decls.append(f"{al}__shared__ {t} {var}[{int(size)}];")  # g++: alignas first
        return Arr(dt, 1, var, None, ["1"], False, self.gen.uid())

    def atomic(self, op: str, args: list, kwargs: dict) -> Value:
        # CuPy's AtomicOp.call(self, env, array, index, value, value2=None)
        # (cupyx/jit/_builtin_funcs.py:265)
        arr, idx, value, value2 = _atomic_call(self, None, *args, **kwargs)
        cname = {"cas": "CAS", "exch": "Exch"}.get(op, op.capitalize())
        if not isinstance(arr, Arr):
            raise _fail(TypeError, "The first argument must be of array type.")
        target = self.index(arr, idx)
        if not isinstance(target, Data):
            raise _fail(TypeError, f"atomic_{op}: the index must select one element")
        dt = target.dtype
        if dt.name not in _ATOMIC_TYPES[op]:
            raise _fail(TypeError, f"`atomic{cname}` does not support {dt} input.")
        v = self.cast(value, dt, "same_kind", f"atomic_{op} value")
        if (op == "cas") != (value2 is not None):  # CuPy's asserts
            raise AssertionError(_PREFIX + ("atomic_cas needs 4 arguments" if op == "cas"
                                            else f"atomic_{op} takes 3 arguments"))
        if op == "cas":
            v2 = self.cast(value2, dt, "same_kind", "atomic_cas value")
            return Data(f"atomicCAS(&{target.code}, {v.code}, {v2.code})", dt)
        if target.lv is not None:  # a float16 element (__half): a compare-and-swap
            # loop on the enclosing 32-bit word; the value is rounded to half first
            # (CuPy's atomicAdd(float16*, float16))
            self.gen.helper("gs_jit_atomic_add_half")
            return Data(f"((float)(gs_jit_atomic_add_half(&{target.lv}, "
                        f"((__half)({v.code})))))", dt)
        # (float16 shared memory is float there, as in CuPy: atomicAdd(float*, float))
        return Data(f"atomic{cname}(&{target.code}, {v.code})", dt)

    def shfl(self, name: str, args: list, kwargs: dict) -> Value:
        # CuPy's WarpShuffleOp.call(self, env, mask, var, val_id, *, width=None)
        # (cupyx/jit/_builtin_funcs.py:357)
        mask, var, val, width = _shfl_call(self, None, *args, **kwargs)
        op = name[5:-5]  # "", "up", "down", "xor"
        cname = "__shfl_" + (op + "_" if op else "") + "sync"
        d = self.value(var)
        if d.dtype.name not in _SHFL_TYPES:
            raise _fail(TypeError, f"`{cname}` does not support {d.dtype} input.")
        if not isinstance(mask, Const):
            raise _fail(TypeError, "mask must be an integer")
        if not 0 <= mask.obj <= 0xFFFFFFFF:
            raise _fail(ValueError, "mask is out of range")
        m = hex(mask.obj)
        vt = _U32 if op in ("up", "down") else _I32
        v = self.cast(val, vt, "same_kind", name)
        if width is None:
            width = Const(32)  # the warp size
        elif isinstance(width, Const) and width.obj not in (2, 4, 8, 16, 32):
            raise _fail(ValueError, "width needs to be power of 2")
        w = self.cast(width, _I32, "same_kind", "width").code
        return Data(f"{cname}({m}u, {d.code}, {v.code}, {w})", d.dtype)

    def cg(self, name: str, args: list, kwargs: dict) -> Value:
        """``jit.cg.*`` (CuPy's ``cupyx.jit.cg``)."""
        self.gen.include_cg = True
        if name in ("this_thread_block", "this_grid"):
            self._noargs(name, args, kwargs)
            kind = name[5:]
            return Group(kind, f"cg::{name}()", self.gen.uid())
        if name in ("sync", "wait", "wait_prior"):
            nargs = 2 if name == "wait_prior" else 1
            if len(args) != nargs or kwargs:
                raise _fail(TypeError, f"cg.{name}() takes {nargs} argument(s)")
            g = args[0]
            if not isinstance(g, Group):  # CuPy's words (cupyx/jit/cg.py:337)
                if name == "sync":
                    raise _fail(ValueError, "group must be a valid cooperative group")
                raise _fail(TypeError, f"cg.{name}(): the argument must be a thread group")
            if name == "wait_prior":
                if not isinstance(args[1], Const):  # CuPy's words (cupyx/jit/cg.py:437)
                    raise _fail(ValueError, "step must be a compile-time constant")
                if not isinstance(args[1].obj, int):
                    raise _fail(TypeError, "cg.wait_prior(): step must be an integer")
            if name == "sync":
                if g.kind == "grid":
                    self.gen.cooperative = True
                return Data(f"cg::sync({g.code})", None)
            if g.kind != "thread_block":
                raise _fail(TypeError, f"cg.{name}() needs a thread block group")
            # the copies of gs_jit_memcpy_async are done: waiting is a barrier
            return Data(f"{g.code}.sync()", None)
        if name == "memcpy_async":
            names = ("group", "dst", "dst_idx", "src", "src_idx", "size")
            params = dict(zip(names, args))
            align = kwargs.pop("aligned_size", Const(None))
            params.update(kwargs)
            if set(params) != set(names) or len(args) > len(names):
                raise _fail(TypeError, "cg.memcpy_async(group, dst, dst_idx, src, src_idx, "
                                       "size, *, aligned_size=None)")
            g = params["group"]
            if not isinstance(g, Group) or g.kind != "thread_block":
                raise _fail(TypeError, "cg.memcpy_async() needs a thread block group")
            if not isinstance(align, Const):  # CuPy's words (cupyx/jit/cg.py:394)
                raise _fail(ValueError, "aligned_size must be a compile-time constant")
            if align.obj is not None and (not isinstance(align.obj, int) or align.obj <= 0 or
                                          align.obj & (align.obj - 1)):
                raise _fail(ValueError, "aligned_size must be a power of 2")
            ends = []
            for arr, idx in (("dst", "dst_idx"), ("src", "src_idx")):
                a = params[arr]
                if not isinstance(a, Arr):
                    raise _fail(TypeError, "dst/src must be of array type.")
                e = self.index(a, params[idx])
                if not isinstance(e, Data):
                    raise _fail(TypeError, f"cg.memcpy_async(): {idx} must select one "
                                           "element")
                ends.append(e.code if e.lv is None else e.lv)
            n = self.cast(params["size"], _U32, "same_kind", "memcpy_async size")
            self.gen.helper("gs_jit_memcpy_async")
            # done synchronously by the group (portable: the C++ emulator has no
            # asynchronous copies); cg.wait / cg.wait_prior are then barriers
            return Data(f"gs_jit_memcpy_async({g.code}, (void*)&({ends[0]}), "
                        f"(const void*)&({ends[1]}), {n.code})", None)
        raise _fail(NotImplementedError, f"jit.cg.{name} is not supported by gpushare")

    def group_method(self, m: GroupMethod, args: list, kwargs: dict) -> Value:
        """``g.thread_rank()`` and the other methods of CuPy's thread groups."""
        self._noargs(m.name, args, kwargs)
        g, name = m.group, m.name
        ret = _CG_METHODS[g.kind][name]
        if name == "sync":
            if g.kind == "grid":
                self.gen.cooperative = True
            return Data(f"{g.code}.sync()", None)
        grid = "((unsigned long long)gridDim.x * gridDim.y * gridDim.z)"
        rank = ("(blockIdx.x + (unsigned long long)gridDim.x * "
                "(blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z))")
        code = {("grid", "num_blocks"): grid, ("grid", "block_rank"): rank,
                ("grid", "dim_blocks"): "dim3(gridDim)",
                ("grid", "block_index"): "dim3(blockIdx)"}.get((g.kind, name),
                                                             f"{g.code}.{name}()")
        if ret == "dim3":
            return Dim3Val(code)
        return Data(f"(({ctype(ret)})({code}))", ret)

    def device_call(self, f: KernelBase, args: list, kwargs: dict) -> Value:
        if not f._device:  # CuPy's words (cupyx/jit/_compile.py:750)
            raise _fail(TypeError, f"Calling __global__ function {f._func.__name__} from "
                                   "__global__ function is not allowed.")
        # (CuPy ignores keyword arguments there)
        key, cargs = [], []
        for a in args:
            if isinstance(a, Arr):
                key.append(a.key())
                cargs.append(a.ptr)
                cargs += list(a.shape or ())
                if a.byte_strides:
                    cargs += list(a.strides)
            else:
                d = self.value(a)
                key.append(d.dtype)
                cargs.append(d.code)
        name, ret = compile_device(f._func, tuple(key), self.gen, self.mode)
        if isinstance(ret, tuple):
            raise _fail(NotImplementedError, "device functions returning tuples can be "
                                             "called only by cupy.vectorize in gpushare")
        return Data(f"{name}({', '.join(cargs)})", None if ret == "void" else ret)


def _is_scalar(obj: Any) -> bool:
    return isinstance(obj, (bool, int, float, complex, numpy.bool_, numpy.number))


def _kind(v: Value) -> str:
    """What ``v`` is, for error messages."""
    if isinstance(v, Data):
        return str(v.dtype)
    if isinstance(v, Const):
        return f"constant {v.obj!r}"
    return type(v).__name__.lower()


def _check_augassign_cast(src: numpy.dtype, dst: numpy.dtype) -> None:
    """CuPy's check of an augmented assignment's result (``_raise_if_invalid_cast``,
    cupy/_core/_dtype.pyx:149, from cupyx/jit/_compile.py:583)."""
    if src.kind != dst.kind and not numpy.can_cast(src, dst, "same_kind"):
        raise _fail(TypeError, f"Cannot cast array data from {src!r} to {dst!r} "
                               "according to the rule 'same_kind'")


def _ctype_name(v: Value) -> str:
    """The C++ type CuPy's messages name for ``v`` (``int``, ``STD::pair<int, float>``,
    ``CArray<float, 1, true, true>``...)."""
    if isinstance(v, Data):
        return ctype(v.dtype) if v.dtype is not None else "void"
    if isinstance(v, Const) and _is_scalar(v.obj):
        return ctype(scalar_type(v.obj, "cuda"))
    if isinstance(v, Tup):
        kind = "pair" if len(v.items) == 2 else "tuple"
        return f"STD::{kind}<{', '.join(_ctype_name(x) for x in v.items)}>"
    if isinstance(v, Arr):
        if v.ptr_id is not None:
            return f"{ctype(v.dtype)}*"
        elem = "float16" if v.dtype.char == "e" else ctype(v.dtype)  # (get_typename)
        return (f"CArray<{elem}, {v.ndim}, "
                f"{'false' if v.byte_strides else 'true'}, true>")
    if isinstance(v, Group):
        return "cg::grid_group" if v.kind == "grid" else "cg::thread_block"
    if isinstance(v, Dim3Val):
        return "dim3"
    return _kind(v)


def _check_same_kind(src: numpy.dtype, dst: numpy.dtype) -> None:
    """CuPy's check of a run-time value cast to a ufunc loop's type
    (``_astype_scalar``, cupyx/jit/_compile.py:1008)."""
    if src != dst and not numpy.can_cast(src, dst, "same_kind"):
        raise _fail(TypeError, f"Cannot cast from '{src}' to {dst} with casting rule "
                               "same_kind.")


def _is_py_scalar(v: Value) -> bool:
    """Whether ``v`` is a Python (not NumPy) scalar constant."""
    return isinstance(v, Const) and _is_scalar(v.obj) and not isinstance(v.obj, numpy.generic)


def _is_proxy(obj: Any) -> bool:
    mod = getattr(type(obj), "__module__", "") or ""
    return mod.startswith("gpushare.") and not isinstance(obj, types.ModuleType)


def _ufunc_name(f: Any) -> str | None:
    """The name of ``f`` when it is one of ``cupy``'s ufuncs (gpushare's proxies).
    NumPy's ufuncs and the ``math`` module are not ufuncs to CuPy's transpiler: they
    are called at compile time on constants and refused on run-time values."""
    if type(f).__name__ == "ufunc" and (type(f).__module__ or "").startswith("gpushare."):
        return getattr(f, "_name", None)  # (NumPy's name: ``name`` is CuPy's cupy_<name>)
    return None


def compile_device(func: Any, key: tuple, gen: Generated, mode: str) -> tuple:
    """Translate the Python function ``func`` (a ``def`` or a lambda) into a
    ``__device__`` function of ``gen`` for argument types ``key``: returns its name and
    its return type (a dtype, ``"void"``, or a tuple of dtypes, returned through
    trailing reference parameters ``T& gs_out<i>``)."""
    k = (func, key)
    if k in gen.device:
        done = gen.device[k]
        if done is None:
            raise _fail(ValueError, "Recursive function is not supported.")
        return done
    base = "_lambda_kernel" if func.__name__ == "<lambda>" else _cname(func.__name__)
    name = f"{base}_{len(gen.device) + 1}"
    gen.device[k] = None
    fn = _Function(func, mode, key, gen, name, kernel=False)
    code, ret = fn.translate()
    gen.functions.append(code)
    gen.device[k] = (name, ret)
    return name, ret


def transpile(func: Any, mode: str, key: tuple, flags: dict | None = None) -> tuple:
    """CUDA C++ source of the kernel ``func`` for argument types ``key``: returns
    ``(code, kernel_name)``. ``flags``, when given, receives ``"cooperative"``: whether
    the kernel needs a cooperative launch (it synchronizes a grid group)."""
    if mode not in ("cuda", "numpy"):
        raise ValueError(f"{_PREFIX}mode must be 'cuda' or 'numpy', not {mode!r}")
    gen = Generated()
    name = _cname(func.__name__)
    fn = _Function(func, mode, key, gen, name, kernel=True)
    code, _ = fn.translate()
    gen.functions.append(code)
    if flags is not None:
        flags["cooperative"] = gen.cooperative
    return gen.code(), name
