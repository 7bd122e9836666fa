"""The CuPy 14.2 public namespace, as data: the one place that says what exists.

``_cupy_names.json`` (beside the ``cupy`` proxy package) was read off CuPy 14.2.0
itself: for each public module, each public name and its kind (``function``,
``ufunc``, ``class``, ``module``, ``numpy_type``, ``numpy_obj``, ``constant:...``),
and the members of ``cupy.ndarray``. The client builds its proxy modules from it;
the server uses it as its allow-list of what a client may call by name.
"""
from __future__ import annotations

import functools
import json
from importlib import resources


@functools.lru_cache(maxsize=None)
def public_names() -> dict:
    """``{module_name: {name: kind}}`` plus ``"cupy.ndarray": [member, ...]``."""
    # (read through ``gpushare``: naming the ``cupy`` package would import the client's
    # proxies, which a server, that asks first, does not need)
    text = (resources.files("gpushare") / "cupy" / "_cupy_names.json").read_text()
    return json.loads(text)


def module_names(module: str) -> dict[str, str]:
    return public_names().get(module, {})


@functools.lru_cache(maxsize=None)
def ndarray_members() -> frozenset[str]:
    return frozenset(public_names()["cupy.ndarray"])


#: Modules whose public functions a client may call on the server.
CALLABLE_KINDS = frozenset({"function", "ufunc", "class"})


#: CuPy's functions and ndarray methods that read or write files. The client runs them
#: on the program's machine (``cupy/__init__.py``, ``cupy/_ndarray.py``), whose files
#: they mean; a server refuses them, or a client could read and write the server's
#: files (``cupy.load`` would also unpickle them).
FILE_FUNCTIONS = frozenset({"cupy.fromfile", "cupy.genfromtxt", "cupy.load", "cupy.loadtxt",
                            "cupy.save", "cupy.savetxt", "cupy.savez",
                            "cupy.savez_compressed"})
FILE_METHODS = frozenset({"tofile", "dump", "dumps"})


def refuse_file_access(path: str) -> None:
    """Raise for a function or ``ndarray`` method (``"ndarray.tofile"``) that reads or
    writes files, named on a server (see ``FILE_FUNCTIONS``)."""
    raise NotImplementedError(
        f"gpushare: {path} reads or writes files: a program's gpushare client runs it on "
        "the program's machine, and a server does not run it on its own files")


def is_public_callable(path: str) -> bool:
    """True when ``path`` (``"cupy.linalg.solve"``) names a public CuPy callable."""
    module, _, name = path.rpartition(".")
    if not name or name.startswith("_"):
        return False
    return module_names(module).get(name) in CALLABLE_KINDS


_PPOLY = (("antiderivative", "derivative", "extend", "integrate", "roots", "solve"),
          ("axis", "c", "extrapolate", "x"))
_UNIVARIATE = (("antiderivative", "derivative", "derivatives", "get_coeffs", "get_knots",
                "get_residual", "integral", "set_smoothing_factor"), ("ext",))
_ND = ((), ("fill_value", "is_complex", "offset", "points", "scale", "tri", "values",
            "values_shape"))
_LTI = ("bode", "freqresp", "impulse", "output", "step", "to_discrete")
_CONVERT = ("to_ss", "to_tf", "to_zpk")
_OPERATOR = (("adjoint", "dot", "matmat", "matvec", "rmatmat", "rmatvec", "transpose",
              "__add__", "__matmul__", "__mul__", "__neg__", "__pow__", "__rmatmul__",
              "__rmul__", "__sub__", "__truediv__"), ("H", "T", "dtype", "ndim", "shape"))

#: ``cupyx.scipy``'s classes served as objects on the server (an instance is a handle;
#: calling it or a method is a call): ``name -> (parent(s), methods, attributes)``, read
#: off CuPy 14.2.0 (public methods and the attributes its constructors set;
#: classmethods are not served), in ``SERVED_MODULES[name]``. The client builds its
#: classes from it (``cupyx/scipy/__init__.py``), the server allows these members and no
#: others.
SERVED_CLASSES: dict[str, tuple[str | tuple | None, tuple, tuple]] = {
    "PPoly": (None, *_PPOLY),
    "CubicHermiteSpline": ("PPoly", *_PPOLY),
    "CubicSpline": ("CubicHermiteSpline", *_PPOLY),
    "PchipInterpolator": ("CubicHermiteSpline", *_PPOLY),
    "Akima1DInterpolator": ("CubicHermiteSpline", *_PPOLY),
    "BPoly": (None, ("antiderivative", "derivative", "extend", "integrate"),
              ("axis", "c", "extrapolate", "x")),
    "NdPPoly": (None, ("antiderivative", "derivative", "integrate", "integrate_1d"),
                ("c", "extrapolate", "x")),
    "BSpline": (None, ("antiderivative", "derivative", "integrate"),
                ("axis", "c", "extrapolate", "k", "t", "tck")),
    "NdBSpline": (None, (), ("c", "extrapolate", "k", "t")),
    "BarycentricInterpolator": (None, ("add_xi", "set_yi"), ("dtype", "n", "r", "wi", "xi",
                                                             "yi")),
    "KroghInterpolator": (None, ("derivative", "derivatives"), ("c", "dtype", "n", "r", "xi",
                                                               "yi")),
    "interp1d": (None, (), ("axis", "bounds_error", "copy", "dtype", "fill_value", "x",
                            "x_bds", "y")),
    "RegularGridInterpolator": (None, (), ("bounds_error", "fill_value", "grid", "method",
                                           "values")),
    "RBFInterpolator": (None, (), ("d", "d_dtype", "d_shape", "epsilon", "kernel",
                                   "neighbors", "powers", "smoothing", "y")),
    "LinearNDInterpolator": (None, *_ND),
    "NearestNDInterpolator": (None, (), (*_ND[1], "tree")),
    "CloughTocher2DInterpolator": (None, (), (*_ND[1], "grad")),
    "UnivariateSpline": (None, *_UNIVARIATE),
    "InterpolatedUnivariateSpline": ("UnivariateSpline", *_UNIVARIATE),
    "LSQUnivariateSpline": ("UnivariateSpline", *_UNIVARIATE),
    # cupyx.scipy.spatial (KDTree's on the CPU backend: backends/cpu_spatial.py)
    "KDTree": (None, ("count_neighbors", "query", "query_ball_point", "query_ball_tree",
                      "query_pairs", "sparse_distance_matrix"),
               ("bounds", "boxsize", "copy_query_points", "data", "index", "m", "maxes",
                "mins", "n", "tree")),
    "Delaunay": (None, ("find_simplex", "vertex_neighbor_vertices"),
                 ("neighbors", "points", "simplices")),
    # cupyx.scipy.sparse.linalg: the operators the server makes (aslinearoperator, and
    # their sums, products, transposes...; one of Python functions cannot be served)
    "LinearOperator": (None, *_OPERATOR),
    "MatrixLinearOperator": ("LinearOperator", _OPERATOR[0], (*_OPERATOR[1], "A", "args")),
    "_AdjointMatrixOperator": ("MatrixLinearOperator", _OPERATOR[0],
                               (*_OPERATOR[1], "A", "args")),
    "IdentityOperator": ("LinearOperator", *_OPERATOR),
    **{name: ("LinearOperator", _OPERATOR[0], (*_OPERATOR[1], "A", "args"))
       for name in ("_AdjointLinearOperator", "_TransposedLinearOperator")},
    **{name: ("LinearOperator", _OPERATOR[0], (*_OPERATOR[1], "args")) for name in (
        "_SumLinearOperator", "_ProductLinearOperator", "_ScaledLinearOperator",
        "_PowerLinearOperator")},
    "SuperLU": (None, ("solve",), ("L", "U", "nnz", "perm_c", "perm_r", "shape")),
    # cupyx.scipy.signal: LTI systems (CuPy's hierarchy: a continuous transfer function is
    # a TransferFunction and an lti) and CZT plans
    "LinearTimeInvariant": (None, (), ("dt", "inputs", "outputs", "poles", "zeros")),
    "lti": ("LinearTimeInvariant", _LTI, ()),
    "dlti": ("LinearTimeInvariant", _LTI[:-1], ()),
    "TransferFunction": ("LinearTimeInvariant", _CONVERT, ("den", "num")),
    "ZerosPolesGain": ("LinearTimeInvariant", _CONVERT, ("gain",)),
    "StateSpace": ("LinearTimeInvariant", (*_CONVERT, "__add__", "__mul__", "__neg__",
                                           "__radd__", "__rmul__", "__rsub__", "__sub__",
                                           "__truediv__"), ("A", "B", "C", "D")),
    **{f"{kind}{time}": ((kind, "lti" if time == "Continuous" else "dlti"), (), ())
       for kind in ("TransferFunction", "ZerosPolesGain", "StateSpace")
       for time in ("Continuous", "Discrete")},
    "Bunch": (None, (), ("X", "computed_poles", "gain_matrix", "nb_iter", "requested_poles",
                         "rtol")),  # (what place_poles returns)
    "CZT": (None, ("points",), ("a", "m", "n", "w")),
    "ZoomFFT": ("CZT", (), ("f1", "f2", "fs")),
}
#: the served classes CuPy 14.2 gives no ``__call__`` (their objects are not callable;
#: the others' are, and calling one is a call)
SERVED_NOT_CALLABLE = frozenset((
    "KDTree", "Delaunay", "SuperLU", "LinearTimeInvariant", "lti", "dlti", "TransferFunction",
    "ZerosPolesGain", "StateSpace", "Bunch",
    *(f"{kind}{time}" for kind in ("TransferFunction", "ZerosPolesGain", "StateSpace")
      for time in ("Continuous", "Discrete"))))
#: the served classes' classmethods a client may call (``BSpline.design_matrix(...)``):
#: calls of ``"<module>.<class>.<name>"``; a subclass has its parents'
SERVED_CLASSMETHODS = {
    "BSpline": ("basis_element", "construct_fast", "design_matrix"),
    "NdBSpline": ("design_matrix",),
    "PPoly": ("construct_fast", "from_bernstein_basis", "from_spline"),
    "BPoly": ("construct_fast", "from_derivatives", "from_power_basis"),
    "NdPPoly": ("construct_fast",),
}


def served_classmethods(name: str) -> frozenset[str]:
    """The classmethods of ``SERVED_CLASSES[name]``, its parents' with them."""
    parent = SERVED_CLASSES[name][0]
    parents = () if parent is None else (parent,) if isinstance(parent, str) else parent
    return frozenset(SERVED_CLASSMETHODS.get(name, ())).union(
        *(served_classmethods(p) for p in parents))


def served_classmethod(path: str) -> tuple[str, str, str] | None:
    """``(module, class, name)`` when ``path`` names a served class's classmethod."""
    owner, _, name = path.rpartition(".")
    module, _, cls = owner.rpartition(".")
    if cls in SERVED_CLASSES and SERVED_MODULES[cls] == module and \
            name in served_classmethods(cls):
        return module, cls, name
    return None


_SIGNAL = ("LinearTimeInvariant", "lti", "dlti", "TransferFunction", "ZerosPolesGain",
           "StateSpace", "CZT", "ZoomFFT", "Bunch")
SERVED_MODULES = {name: "cupyx.scipy.spatial" if name in ("KDTree", "Delaunay")
                  else "cupyx.scipy.sparse.linalg" if name.endswith(("Operator", "SuperLU"))
                  else "cupyx.scipy.signal" if name.startswith(_SIGNAL)
                  else "cupyx.scipy.interpolate" for name in SERVED_CLASSES}



#: ``cupyx.scipy.sparse``'s matrices and arrays, objects on the server (``SPARSE_FORMATS``
#: name their formats). The client's classes are in ``cupyx/scipy/_sparse.py``; the
#: server's operators in ``backends/sparse.py``.
SPARSE_FORMATS = ("csr", "csc", "coo", "dia")
SPARSE_CLASSES = tuple(f"{fmt}_{kind}" for fmt in SPARSE_FORMATS for kind in ("matrix", "array"))
#: their public methods (CuPy 14.2's ``_spbase`` and subclasses; ``spmatrix``'s own) and the
#: operators a client calls as methods
SPARSE_METHODS = frozenset((
    "argmax", "argmin", "asformat", "asfptype", "astype", "conj", "conjugate", "copy",
    "count_nonzero", "diagonal", "dot", "eliminate_zeros", "getH", "get_shape", "getcol",
    "getformat", "getmaxprint", "getnnz", "getrow", "max", "maximum", "mean", "min",
    "minimum", "multiply", "nonzero", "power", "prune", "reshape", "set_shape", "setdiag",
    "sort_indices", "sorted_indices", "sum", "sum_duplicates", "toarray", "tobsr", "tocoo",
    "tocsc", "tocsr", "todense", "todia", "todok", "tolil", "trace", "transpose",
    "__abs__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
    "__truediv__", "__rtruediv__", "__matmul__", "__rmatmul__", "__pow__", "__neg__",
    "__round__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__iadd__",
    "__isub__", "__imul__", "__itruediv__", "__getitem__", "__setitem__", "__str__",
    # the ufuncs CuPy's ``_data_matrix`` applies to the stored values
    "arcsin", "arcsinh", "arctan", "arctanh", "ceil", "deg2rad", "expm1", "floor", "log1p",
    "rad2deg", "rint", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"))
#: the methods only the matrix kind has (``spmatrix``'s own; sparse arrays lack them)
SPARSE_MATRIX_ONLY = frozenset(("asfptype", "getH", "get_shape", "getcol", "getformat",
                                "getmaxprint", "getnnz", "getrow", "set_shape"))
SPARSE_ATTRIBUTES = frozenset((
    "T", "col", "coords", "data", "dtype", "has_canonical_format",
    "has_sorted_indices", "imag", "indices", "indptr", "nnz", "offsets", "real", "row",
    "shape", "size"))
#: the names of ``SPARSE_METHODS`` and ``SPARSE_ATTRIBUTES`` each format's classes lack
#: in CuPy 14.2 (``_compressed_sparse_matrix``, ``_coo_base``, ``_dia_base``: only the
#: compressed formats have the min/max mixin and ``indices``/``indptr``...): on the client
#: an AttributeError, as on CuPy's
_NOT_COMPRESSED = ("argmax", "argmin", "has_sorted_indices", "indices", "indptr", "max",
                   "min", "prune", "sort_indices", "sorted_indices")
SPARSE_FORMAT_LACKS = {
    "csr": frozenset(("col", "coords", "offsets", "row")),
    "csc": frozenset(("col", "coords", "offsets", "row")),
    "coo": frozenset((*_NOT_COMPRESSED, "offsets")),
    "dia": frozenset((*_NOT_COMPRESSED, "col", "coords", "eliminate_zeros",
                      "has_canonical_format", "row", "sum_duplicates")),
}
#: the attributes a client may set (as on CuPy's: its arrays, flags and shape)
SPARSE_SETTABLE = frozenset(("col", "data", "has_canonical_format", "has_sorted_indices",
                             "indices", "indptr", "offsets", "row", "shape"))


def served_members() -> dict[str, frozenset[str]]:
    """The server's allow-list for ``SERVED_CLASSES`` and ``SPARSE_CLASSES``: each one's
    methods (``__call__`` too) and attributes, its parents' with them."""
    def own_and_inherited(name: str) -> frozenset[str]:
        parent, methods, attributes = SERVED_CLASSES[name]
        parents = () if parent is None else (parent,) if isinstance(parent, str) else parent
        return frozenset({"__call__", *methods, *attributes}).union(
            *(own_and_inherited(p) for p in parents))
    members = {name: own_and_inherited(name) for name in SERVED_CLASSES}
    for name in SPARSE_CLASSES:
        own = SPARSE_METHODS if name.endswith("_matrix") else SPARSE_METHODS - SPARSE_MATRIX_ONLY
        members[name] = own | SPARSE_ATTRIBUTES
    return members
