"""CuPy 14.2's window names (``cupyx/scipy/signal/windows/_windows.py``:
``_win_equiv_raw``), shared by the client, which queues ``get_window`` of a window that
takes no parameter, and the CPU backend, which serves ``get_window`` with them (SciPy's
own table differs: no ``hanning``, ``dpss`` added, ``tukey`` taking none).

Each group: its names, SciPy's window function for it, and whether it needs parameters
(a tuple ``(name, *params)``).
"""
from __future__ import annotations

WINDOW_GROUPS = (
    (("barthann", "brthan", "bth"), "barthann", False),
    (("bartlett", "bart", "brt"), "bartlett", False),
    (("blackman", "black", "blk"), "blackman", False),
    (("blackmanharris", "blackharr", "bkh"), "blackmanharris", False),
    (("bohman", "bman", "bmn"), "bohman", False),
    (("boxcar", "box", "ones", "rect", "rectangular"), "boxcar", False),
    (("chebwin", "cheb"), "chebwin", True),
    (("cosine", "halfcosine"), "cosine", False),
    (("exponential", "poisson"), "exponential", True),
    (("flattop", "flat", "flt"), "flattop", False),
    (("general cosine", "general_cosine"), "general_cosine", True),
    (("gaussian", "gauss", "gss"), "gaussian", True),
    (("general gaussian", "general_gaussian", "general gauss", "general_gauss", "ggs"),
     "general_gaussian", True),
    (("general hamming", "general_hamming"), "general_hamming", True),
    (("hamming", "hamm", "ham"), "hamming", False),
    (("hanning", "hann", "han"), "hann", False),
    (("lanczos", "sinc"), "lanczos", False),
    (("kaiser", "ksr"), "kaiser", True),
    (("kaiser bessel derived", "kbd"), "kaiser_bessel_derived", True),
    (("nuttall", "nutl", "nut"), "nuttall", False),
    (("parzen", "parz", "par"), "parzen", False),
    (("triangle", "triang", "tri"), "triang", False),
    (("tukey", "tuk"), "tukey", True),
)

#: name -> (SciPy's window function, whether it needs parameters)
WINDOWS = {name: (fn, needs) for names, fn, needs in WINDOW_GROUPS for name in names}

#: the names of the windows that take no parameter
WITHOUT_PARAMETERS = frozenset(name for name, (_, needs) in WINDOWS.items() if not needs)
