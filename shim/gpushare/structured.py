"""Structured (record) dtypes as CuPy 14.2 treats them, shared by the client and the
CPU backend (pure functions of the dtype): the C++ name each dtype has in kernels
(``cupy._core._scalar.get_typename``, structs as ``cupy::StructView<...>`` with CuPy's
alignment checks), each type's CUDA alignment, ``cupy.make_aligned_dtype``
(``cupy._core._dtype``), CuPy's alignment check of a field view
(``cupy._core.internal.check_aligned``) and its rules for comparing structured arrays
(``cupy._core._routines_logic.struct_compare_resolution``)."""
from __future__ import annotations

import graphlib
from typing import Any

import numpy

_TYPENAMES_BASE = {
    numpy.dtype("float64"): ("double", None),
    numpy.dtype("float32"): ("float", None),
    numpy.dtype("float16"): ("float16", '#include "cupy/float16.cuh"'),
    numpy.dtype("complex128"): ("thrust::complex<double>", None),
    numpy.dtype("complex64"): ("thrust::complex<float>", None),
    numpy.dtype("int64"): ("long long", None),
    numpy.dtype("int32"): ("int", None),
    numpy.dtype("int16"): ("short", None),
    numpy.dtype("int8"): ("signed char", None),
    numpy.dtype("uint64"): ("unsigned long long", None),
    numpy.dtype("uint32"): ("unsigned int", None),
    numpy.dtype("uint16"): ("unsigned short", None),
    numpy.dtype("uint8"): ("unsigned char", None),
    numpy.dtype("bool"): ("bool", None),
}

_TYPENAMES: dict = {}
for _char in "?bhilqBHILQefdFD":
    _dt = numpy.dtype(_char)
    _TYPENAMES[_dt.type] = _TYPENAMES_BASE[_dt]
_TYPENAMES["cudaTextureObject_t"] = ("cudaTextureObject_t", None)

#: alignment of each type in device code (CuPy's ``_cuda_alignments``: the itemsize of
#: each basic type; complex is aligned to its full size on the GPU)
_CUDA_ALIGNMENTS = {numpy.dtype(c): numpy.dtype(c).itemsize for c in "?bhilqBHILQefdFD"}


def _flatten_type_decls(type_decls: Any, declarations: dict) -> set:
    direct_deps = set()
    for decl in type_decls:
        if isinstance(decl, str):
            direct_deps.add(decl)
            declarations[decl] = ()
        elif isinstance(decl, tuple):
            decl, decl_deps = decl
            direct_deps.add(decl)
            declarations[decl] = _flatten_type_decls(decl_deps, declarations)
        else:
            raise TypeError("type_decls must be str or (str, frozenset)")
    return direct_deps


def format_type_decls(type_decls: set) -> str:
    """See Also: cupy._core._scalar.format_type_decls"""
    if not type_decls:
        return ""
    declarations: dict = {}
    _flatten_type_decls(type_decls, declarations)
    declarations = dict(sorted(declarations.items()))
    ts = graphlib.TopologicalSorter(declarations)
    return "\n".join(ts.static_order()) + "\n\n"


def get_typename(dtype: Any, type_decls: Any = None) -> str:
    """See Also: cupy._core._scalar.get_typename"""
    if dtype is None:
        raise TypeError("dtype is None")
    try:
        info = _TYPENAMES.get(dtype)
    except TypeError:  # unhashable dtype-like
        info = None
    if info is None:
        info = _TYPENAMES.get(numpy.dtype(dtype).type)
    if info is not None:
        name, header = info
        if type_decls is not None and header is not None:
            type_decls.add(header)
        return name
    if isinstance(dtype, numpy.dtype) and dtype.kind == "V":
        if dtype.fields is not None:
            return _build_struct_typename(dtype, type_decls)[0]
        if dtype.subdtype is None and dtype.itemsize > 0:
            if type_decls is not None:
                type_decls.add('#include "cupy/unstructured_void.cuh"')
            return f"cupy::UnstructuredVoid<{dtype.itemsize}>"
    raise ValueError(f"Unsupported dtype {dtype}")


def get_cuda_alignment(dtype: numpy.dtype) -> int:
    """The alignment of ``dtype`` in device code (CuPy asks a kernel; for the types
    CuPy names that is the basic types' itemsize, 1 for unstructured void)."""
    alignment = _CUDA_ALIGNMENTS.get(dtype)
    if alignment is not None:
        return alignment
    if dtype.kind == "V":
        if dtype.fields is not None:
            raise NotImplementedError(
                f"get_cuda_alignment() only supports unstructured dtypes, "
                f"got {dtype}")
        if dtype.subdtype is not None:
            if dtype.base.fields is not None:
                raise ValueError("CuPy does not yet support subarray dtypes.")
            return get_cuda_alignment(dtype.base)
        get_typename(dtype)  # raises CuPy's error for V0
        return 1  # cupy::UnstructuredVoid<n> is char[n]
    if dtype.subdtype is not None:
        return get_cuda_alignment(dtype.base)
    get_typename(dtype)  # ValueError: Unsupported dtype
    return dtype.alignment


def _build_struct_typename(dtype: numpy.dtype, type_decls: Any) -> tuple:
    alignment = dtype.alignment
    if dtype.metadata:
        alignment = dtype.metadata.get("__cuda_alignment__", alignment)
    fields = []
    subtype_decls = {'#include "cupy/structview.cuh"'}
    for name, (subdtype, offset, *_) in dtype.fields.items():
        if subdtype.kind == "V" and subdtype.fields is not None:
            subname, subalignment = _build_struct_typename(subdtype, subtype_decls)
        else:
            subname = get_typename(subdtype, subtype_decls)
            subalignment = get_cuda_alignment(subdtype)
            if subdtype.metadata:
                subalignment = subdtype.metadata.get("__cuda_alignment__", subalignment)
        assert ((subalignment - 1) & subalignment) == 0
        alignment = max(alignment, subalignment)
        if offset % subalignment != 0:
            raise ValueError(f"Field {name} with offset {offset} is not "
                             f"aligned to {subalignment} in dtype {dtype}. "
                             f"This is not supported by CuPy please ensure "
                             "the structure is aligned. You can do so with "
                             "the `make_aligned_dtype()` helper.")
        fields.append(f"cupy::Field<{subname}, {offset}>")
    if dtype.itemsize % alignment != 0:
        raise ValueError(
            f"Itemsize {dtype.itemsize} is not a multiple of alignment "
            f"{alignment} for dtype {dtype} and kernel launches are not "
            "supported. You can ensure compatibility with the "
            "`make_aligned_dtype()` helper (or try `align=True`).")
    if type_decls is not None:
        type_decls.update(subtype_decls)
    joined = ", ".join(fields)
    name = (f"cupy::StructView<cupy::raw_structview_storage<{dtype.itemsize}, "
            f"{alignment}>, {joined}>")
    return name, alignment


def _make_aligned_dtype(dtype: Any, *, alignment: int = -1, recurse: bool = True) -> tuple:
    alignment = int(alignment)
    final_alignment = 1
    curr_offset = 0
    min_offset = 0
    descr = numpy.dtype(dtype, align=True)
    if alignment != -1 and (alignment <= 0 or alignment.bit_count() != 1):
        raise ValueError("Reasonable alignments must be >0 and a power of 2.")

    if descr.kind != "V" or descr.fields is None:
        dtype_info: Any = descr
        final_alignment = get_cuda_alignment(descr)
        curr_offset = descr.itemsize
    else:
        names, offsets, subdtypes = [], [], []
        for name, (subdtype, offset, *_) in descr.fields.items():
            if offset < min_offset:
                raise ValueError(
                    "make_aligned_dtype() only supports well behaved "
                    "in-order fields as it ignores field offsets.")
            min_offset = offset + subdtype.itemsize
            subalignment = None
            if subdtype.metadata:
                subalignment = subdtype.metadata.get("__cuda_alignment__")
            if subalignment is not None:
                pass
            elif subdtype.kind != "V" or subdtype.fields is None:
                subalignment = get_cuda_alignment(subdtype)
            elif not recurse:
                subalignment = subdtype.alignment
            else:
                subdtype, subalignment = _make_aligned_dtype(subdtype, recurse=recurse)
            if curr_offset % subalignment != 0:
                curr_offset += subalignment - (curr_offset % subalignment)
            final_alignment = max(final_alignment, subalignment)
            names.append(name)
            subdtypes.append(subdtype)
            offsets.append(curr_offset)
            curr_offset += subdtype.itemsize
        dtype_info = dict(names=names, offsets=offsets, formats=subdtypes, itemsize=0)

    metadata: dict = {}
    if alignment != -1:
        if alignment >= final_alignment:
            final_alignment = alignment
            metadata = {"metadata": {"__cuda_alignment__": alignment}}
        else:
            raise ValueError(
                f"make_aligned_dtype(): given alignment={alignment} "
                f"smaller than minimum alignment {final_alignment}")

    itemsize = (curr_offset + final_alignment - 1) // final_alignment * final_alignment
    if descr.kind != "V":
        if descr.itemsize != itemsize:
            raise ValueError("Alignment larger than itemsize for non-structured dtype.")
    else:
        if descr.itemsize > itemsize:
            raise ValueError("Input descriptor had larger itemsize than inferred.")
        dtype_info["itemsize"] = itemsize
    return numpy.dtype(dtype_info, align=True, **metadata), final_alignment


def make_aligned_dtype(dtype: Any, *, alignment: int = -1, recurse: bool = True) -> numpy.dtype:
    """See Also: cupy.make_aligned_dtype"""
    descr = numpy.dtype(dtype, align=True)
    if descr.kind != "V" or descr.fields is None:
        raise ValueError("make_aligned_dtype() only supports structured dtypes.")
    return _make_aligned_dtype(dtype, alignment=alignment, recurse=recurse)[0]


def check_aligned(arr: numpy.ndarray, address: int) -> None:
    """CuPy's ``internal.check_aligned`` of a field view ``arr`` whose first byte is at
    ``address``: ValueError unless its strides and address are multiples of its
    itemsize. Structured and void fields count as aligned, an empty view too."""
    if arr.dtype.char == "V" or 0 in arr.shape:
        return
    mask = arr.dtype.itemsize - 1
    if not any(s & mask for s in arr.strides) and not address & mask:
        return
    raise ValueError(
        f"result array with dtype {arr.dtype} would not be sufficiently "
        "aligned for GPU operations. When using structured dtypes you must "
        "manually align the dtype and its fields; CuPy may provide "
        "utilities for this in the future.")


def struct_compare_dtype(dt1: numpy.dtype, dt2: numpy.dtype) -> numpy.dtype:
    """The dtype CuPy compares two void arrays in (``cupy.equal``/``not_equal``'s
    ``VV`` loop, ``struct_compare_resolution``), with its errors."""
    if dt1.fields is None and dt2.fields is None:
        if dt1.itemsize == dt2.itemsize and dt1.itemsize > 0:
            return dt1
        raise TypeError(
            f"cannot compare unstructured voids of different size "
            f"({dt1.itemsize} vs {dt2.itemsize})")
    if dt1.fields is None or dt2.fields is None:
        raise TypeError("Cannot compare structured and non-structured dtypes")
    try:
        cmp_dtype = numpy.promote_types(dt1, dt2)
    except TypeError:
        raise TypeError(
            "Cannot compare structured arrays unless they have a common "
            "dtype.  I.e. `np.result_type(arr1, arr2)` must be defined.") from None
    cmp_dtype = make_aligned_dtype(cmp_dtype)
    get_typename(cmp_dtype)  # the kernel launch's checks
    return cmp_dtype


def compare(negate: bool, a: numpy.ndarray, b: numpy.ndarray, out: Any = None,
            **kwargs: Any) -> numpy.ndarray:
    """``cupy.equal``/``not_equal`` of two void arrays on NumPy (the CPU backend):
    both cast to the dtype CuPy compares in, then compared field by field as NumPy's
    ``==`` does (CuPy's ``StructView`` compares each field with ``==``; ``!=`` is its
    negation)."""
    cmp_dtype = struct_compare_dtype(a.dtype, b.dtype)
    if cmp_dtype.fields is not None:
        a, b = a.astype(cmp_dtype), b.astype(cmp_dtype)
    result = numpy.asarray(a == b)
    if negate:
        result = ~result
    if out is not None:
        if isinstance(out, tuple):
            out, = out
        numpy.copyto(out, result, casting="same_kind")
        return out
    return numpy.ascontiguousarray(result)


def unsupported_dtype(dtype: numpy.dtype) -> ValueError:
    """CuPy's error for a dtype device arrays cannot have (``check_supported_dtype``):
    a void dtype holding references (object fields), or another it has no type for."""
    if dtype.kind == "V" and dtype.subdtype is None and dtype.itemsize and dtype.hasobject:
        return ValueError(
            f"Unsupported dtype {dtype} because it contains references "
            "which cannot be supported by CuPy.\n"
            "This may happen even if a dtype only contains basic types "
            "if the original array contained e.g. object dtype.")
    return ValueError(f"Unsupported dtype {dtype}")
