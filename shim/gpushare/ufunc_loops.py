"""CuPy's ufuncs beyond ``cupy``'s own: their loops, as data, and the rule CuPy picks one by.

``cupy``'s ufuncs have NumPy namesakes whose type resolution (``ufunc.resolve_dtypes``)
is CuPy's; ``cupyx.scipy.special``'s do not: SciPy's ufuncs of those names have other
loops (CuPy's ``erf`` has ``e->d f->f d->d``, so float16 gives float64 and complex
raises). ``SPECIAL`` was read off CuPy 14.2.0's ``cupyx/scipy/special/*.py`` (each
public name's ``_core.create_ufunc(kernel_name, loops, ...)``, as its ``__init__.py``
imports it; ``sinc`` is ``cupy.sinc`` itself), ``CUPY`` off ``cupy/_math/special.py``.

``pick`` is CuPy's choice of a loop (``_kernel.pyx``: ``_Ops.guess_routine`` and
``_guess_routine_from_in_types``). The client infers a call's result from it
(``Loops``, ``cupy/_ufunc.py``), and the CPU backend gives that result's type
(``backends/cpu.py``), so the two agree with each other and with CuPy.
"""
from __future__ import annotations

from typing import Any

import numpy

#: public name -> (CuPy's kernel name, its loops in order: inputs "->" outputs)
SPECIAL: dict[str, tuple[str, str]] = {
    "bdtr": ("cupyx_scipy_bdtr", "fff->f dld->d ddd->d"),
    "bdtrc": ("cupyx_scipy_bdtrc", "fff->f dld->d ddd->d"),
    "bdtri": ("cupyx_scipy_bdtri", "fff->f dld->d ddd->d"),
    "beta": ("cupyx_scipy_beta", "ll->d LL->d ee->d ff->f dd->d"),
    "betainc": ("cupyx_scipy_betainc", "fff->f ddd->d"),
    "betaincinv": ("cupyx_scipy_betaincinv", "fff->f ddd->d"),
    "betaln": ("cupyx_scipy_betaln", "ll->d LL->d ee->d ff->f dd->d"),
    "binom": ("cupyx_scipy_binom", "ff->f dd->d"),
    "boxcox": ("cupy_boxcox", "ee->f ff->f dd->d"),
    "boxcox1p": ("cupy_boxcox1p", "ee->f ff->f dd->d"),
    "cbrt": ("cupyx_scipy_special_cbrt", "l->d L->d e->d f->f d->d"),
    "chdtr": ("cupyx_scipy_chdtr", "ff->f dd->d"),
    "chdtrc": ("cupyx_scipy_chdtrc", "ff->f dd->d"),
    "chdtri": ("cupyx_scipy_chdtri", "ff->f dd->d"),
    "cosdg": ("cupyx_scipy_special_cosdg", "l->d L->d e->d f->f d->d"),
    "cosm1": ("cupyx_scipy_special_cosm1", "l->d L->d e->d f->f d->d"),
    "cotdg": ("cupyx_scipy_special_cotdg", "l->d L->d e->d f->f d->d"),
    "digamma": ("cupyx_scipy_special_digamma", "l->d e->d f->f d->d F->F D->D"),
    "ellipeinc": ("cupyx_scipy_special_ellipeinc", "ff->f dd->d"),
    "ellipj": ("cupyx_scipy_special_ellipj", "ff->ffff dd->dddd"),
    "ellipk": ("cupyx_scipy_special_ellipkm1", "f->f d->d"),
    "ellipkinc": ("cupyx_scipy_special_ellipkinc", "ff->f dd->d"),
    "ellipkm1": ("cupyx_scipy_special_ellipk", "f->f d->d"),
    "entr": ("cupyx_scipy_special_entr", "f->f d->d"),
    "erf": ("cupyx_scipy_special_erf", "e->d f->f d->d"),
    "erfc": ("cupyx_scipy_special_erfc", "e->d f->f d->d"),
    "erfcinv": ("cupyx_scipy_special_erfcinv", "f->f d->d"),
    "erfcx": ("cupyx_scipy_special_erfcx", "e->d f->f d->d"),
    "erfinv": ("cupyx_scipy_special_erfinv", "f->f d->d"),
    "exp1": ("cupyx_scipy_special_exp1", "f->f d->d"),
    "exp10": ("cupyx_scipy_special_exp10", "e->d l->d L->d f->f d->d"),
    "exp2": ("cupyx_scipy_special_exp2", "e->d l->d L->d f->f d->d"),
    "expi": ("cupyx_scipy_special_expi", "f->f d->d"),
    "expit": ("cupy_expit", "e->d f->f d->d"),
    "expm1": ("cupyx_scipy_special_expm1", "e->d l->d L->d f->f d->d F->F D->D"),
    "expn": ("cupyx_scipy_special_expn", "ff->f dd->d"),
    "exprel": ("cupyx_scipy_special_exprel", "l->d L->d e->d f->f d->d F->F D->D"),
    "fdtr": ("cupyx_scipy_fdtr", "fff->f ddd->d"),
    "fdtrc": ("cupyx_scipy_fdtrc", "fff->f ddd->d"),
    "fdtri": ("cupyx_scipy_fdtri", "fff->f ddd->d"),
    "gamma": ("cupyx_scipy_gamma", "l->d e->d f->f d->d F->F D->D"),
    "gammainc": ("cupyx_scipy_gammainc", "ff->f dd->d"),
    "gammaincc": ("cupyx_scipy_gammaincc", "ff->f dd->d"),
    "gammainccinv": ("cupyx_scipy_gammainccinv", "ff->f dd->d"),
    "gammaincinv": ("cupyx_scipy_gammaincinv", "ff->f dd->d"),
    "gammaln": ("cupyx_scipy_special_gammaln", "l->d e->d f->f d->d"),
    "gammasgn": ("cupyx_scipy_gammasgn", "l->d L->d e->d f->f d->d"),
    "gdtr": ("cupyx_scipy_gdtr", "fff->f ddd->d"),
    "gdtrc": ("cupyx_scipy_gdtrc", "fff->f ddd->d"),
    "huber": ("cupyx_scipy_special_huber", "ff->f dd->d"),
    "i0": ("cupyx_scipy_special_i0", "l->d L->d e->d f->f d->d"),
    "i0e": ("cupyx_scipy_special_i0e", "l->d L->d e->d f->f d->d"),
    "i1": ("cupyx_scipy_special_i1", "l->d L->d e->d f->f d->d"),
    "i1e": ("cupyx_scipy_special_i1e", "l->d L->d e->d f->f d->d"),
    "inv_boxcox": ("cupy_inv_boxcox", "ee->f ff->f dd->d"),
    "inv_boxcox1p": ("cupy_inv_boxcox1p", "ee->f ff->f dd->d"),
    "j0": ("cupyx_scipy_special_j0", "l->d L->d e->d f->f d->d"),
    "j1": ("cupyx_scipy_special_j1", "l->d L->d e->d f->f d->d"),
    "k0": ("cupyx_scipy_special_k0", "l->d L->d e->d f->f d->d"),
    "k0e": ("cupyx_scipy_special_k0e", "l->d L->d e->d f->f d->d"),
    "k1": ("cupyx_scipy_special_k1", "l->d L->d e->d f->f d->d"),
    "k1e": ("cupyx_scipy_special_k1e", "l->d L->d e->d f->f d->d"),
    "kl_div": ("cupyx_scipy_special_kl_div", "ff->f dd->d"),
    "log1p": ("cupyx_scipy_log1p", "l->d L->d e->d f->f F->F d->d D->D"),
    "log_expit": ("cupy_log_expit", "e->d f->f d->d"),
    "log_ndtr": ("cupyx_scipy_special_log_ndtr", "e->d f->f d->d"),
    "loggamma": ("cupyx_scipy_loggamma", "l->d e->d f->f d->d F->F D->D"),
    "logit": ("cupy_logit", "e->d f->f d->d"),
    "lpmv": ("cupyx_scipy_lpmv", "fff->f ddd->d"),
    "nbdtr": ("cupyx_scipy_nbdtr", "lld->d fff->f ddd->d"),
    "nbdtrc": ("cupyx_scipy_nbdtrc", "lld->d fff->f ddd->d"),
    "nbdtri": ("cupyx_scipy_nbdtri", "lld->d fff->f ddd->d"),
    "ndtr": ("cupyx_scipy_special_ndtr", "e->d f->f d->d"),
    "ndtri": ("cupyx_scipy_special_ndtri", "f->f d->d"),
    "pdtr": ("cupyx_scipy_pdtr", "ff->f dd->d"),
    "pdtrc": ("cupyx_scipy_pdtrc", "ff->f dd->d"),
    "pdtri": ("cupyx_scipy_pdtri", "ld->d ff->f dd->d"),
    "poch": ("cupyx_scipy_poch", "ff->f dd->d"),
    "pseudo_huber": ("cupyx_scipy_special_pseudo_huber", "ff->f dd->d"),
    "psi": ("cupyx_scipy_special_digamma", "l->d e->d f->f d->d F->F D->D"),
    "radian": ("cupyx_scipy_special_radian", "lll->d LLL->d eee->d fff->f ddd->d"),
    "rel_entr": ("cupyx_scipy_special_rel_entr", "ff->f dd->d"),
    "rgamma": ("cupyx_scipy_rgamma", "l->d e->d f->f d->d F->F D->D"),
    "shichi": ("cupyx_scipy_special_shichi", "f->ff d->dd F->FF D->DD"),
    "sici": ("cupyx_scipy_special_sici", "f->ff d->dd F->FF D->DD"),
    "sindg": ("cupyx_scipy_special_sindg", "l->d L->d e->d f->f d->d"),
    "tandg": ("cupyx_scipy_special_tandg", "l->d L->d e->d f->f d->d"),
    "wright_bessel": ("cupyx_scipy_special_wright_bessel", "fff->f ddd->d"),
    "xlog1py": ("cupy_xlog1py", "ee->d ll->d LL->d ff->f dd->d FF->F DD->D"),
    "xlogy": ("cupy_xlogy", "ee->d ll->d LL->d ff->f dd->d FF->F DD->D"),
    "y0": ("cupyx_scipy_special_y0", "l->d L->d e->d f->f d->d"),
    "y1": ("cupyx_scipy_special_y1", "l->d L->d e->d f->f d->d"),
    "yn": ("cupyx_scipy_special_yn", "id->d dd->d"),
    "zeta": ("cupyx_scipy_special_zeta", "ff->f dd->d"),
    "zetac": ("cupyx_scipy_special_zetac", "l->d L->d e->d f->f d->d"),
}

#: a Python scalar's type -> the dtype CuPy lists for it (``_scalar.pyx``; an int
#: from 2**63 on is uint64 there: the client's calls of such ints wait for the server)
#: ``cupy``'s ufuncs that NumPy has no ufunc for (``_math/special.py``): name -> as
#: above, and the loops whose kernel does not compile (``i0``'s complex ones: CUDA's
#: ``cyl_bessel_i0`` has no complex overload, so CuPy raises at the call)
CUPY: dict[str, tuple] = {
    "i0": ("cupy_i0", "e->e f->f d->d F->F D->D", "F->F D->D"),
    "sinc": ("cupy_sinc", "e->e f->f d->d F->F D->D"),
}


def compact(loops: str) -> tuple:
    """``SPECIAL``'s or ``CUPY``'s loops as strings of their dtype chars, inputs then
    outputs (``"e->d"``: ``"ed"``)."""
    return tuple(loop.replace("->", "") for loop in loops.split())


_WEAK = {int: numpy.dtype(numpy.int64), float: numpy.dtype(numpy.float64),
         complex: numpy.dtype(numpy.complex128)}


def scalar_dtype(value: Any) -> numpy.dtype | None:
    """The dtype CuPy's ``CScalar`` gives a Python scalar (``_scalar.pyx:
    numpy_dtype_from_pyscalar``): bool, int64 (uint64 from 2**63 up), float64,
    complex128; None for anything else."""
    kind = type(value)
    if kind is int:
        return _UINT64 if value >= 1 << 63 else _WEAK[int]
    if kind is bool:
        return _BOOL
    return _WEAK.get(kind)


_UINT64, _BOOL = numpy.dtype(numpy.uint64), numpy.dtype(numpy.bool_)


def _kind_score(kind: Any) -> int:
    """``_kernel.pyx: _get_kind_score`` (of a scalar type, NumPy's or Python's)."""
    if issubclass(kind, numpy.bool_):
        return 0
    if issubclass(kind, (numpy.integer, int)):
        return 1
    if issubclass(kind, (numpy.inexact, float, complex)):
        return 2
    return 3


def pick(loops: tuple, in_types: tuple, weaks: tuple) -> int | None:
    """The index of the loop CuPy runs for operands of dtypes ``in_types`` (a Python
    scalar's: ``_scalar.pyx: numpy_dtype_from_pyscalar``), of which those with a type in
    ``weaks`` (int, float or complex; else None) are Python scalars; None where no loop
    takes them (CuPy's TypeError). ``loops``: each a sequence of the inputs' dtypes
    (then anything). Python scalars are weak unless one is of a higher kind than every
    array, or no array comes (``_check_should_use_weak_scalar``); then the first loop
    every operand casts to safely wins, a weak scalar where ``result_type(scalar, loop
    type)`` is the loop's type."""
    scalar_kinds = [_kind_score(w) for w in weaks if w is not None]
    array_kinds = [_kind_score(t.type) for t, w in zip(in_types, weaks) if w is None]
    if not (scalar_kinds and array_kinds and max(array_kinds) >= max(scalar_kinds)):
        weaks = (None,) * len(in_types)
    for index, loop in enumerate(loops):
        for it, ot, weak in zip(in_types, loop, weaks):
            if numpy.can_cast(it, ot):
                continue
            if weak is None:
                break
            try:
                if numpy.result_type(weak(0), ot) != ot:
                    break
            except TypeError:
                break
        else:
            return index
    return None


class Loops:
    """One of ``SPECIAL``'s ufuncs as the client's type inference asks a NumPy ufunc
    (``cupy/_infer.py: resolve``): ``nin``, ``nout``, ``types`` and ``resolve_dtypes``."""

    def __init__(self, kernel: str, loops: str, failing: str = "") -> None:
        self.__name__ = kernel
        self.types = loops.split()
        self._failing = frozenset(failing.split())  # (left to the server: it raises)
        ins, _, outs = self.types[0].partition("->")
        self.nin, self.nout = len(ins), len(outs)
        self.nargs = self.nin + self.nout
        self._loops = tuple(tuple(numpy.dtype(c) for c in loop.replace("->", ""))
                            for loop in self.types)

    def __repr__(self) -> str:
        return f"<ufunc '{self.__name__}'>"

    def resolve_dtypes(self, dtypes: tuple, *, signature: Any = None,
                       casting: Any = None) -> tuple:
        """The loop's dtypes, inputs then outputs, for operands of ``dtypes`` (a Python
        scalar by its type, as NEP 50 reads it: weak); TypeError where CuPy raises.
        (``dtype=``, a signature, is left to the server.)"""
        if signature is not None or casting is not None:
            raise TypeError("a signature is resolved by the server")
        in_types, weaks = [], []
        for t in dtypes[:self.nin]:
            weak = _WEAK.get(t) if isinstance(t, type) else None  # (dtype('d') == float)
            if weak is not None:
                in_types.append(weak)
                weaks.append(t)
            else:
                in_types.append(numpy.dtype(t))
                weaks.append(None)
        index = pick(self._loops, tuple(in_types), tuple(weaks))
        if index is None or self.types[index] in self._failing:
            raise TypeError(f"Wrong type ({tuple(in_types)}) of arguments for {self.__name__}")
        return self._loops[index]
