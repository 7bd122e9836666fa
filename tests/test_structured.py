"""Structured (record) dtypes as CuPy 14.2 has them: their dtypes on the wire
(out-of-order fields, ``align=True``, CuPy's ``__cuda_alignment__``),
``cupy.make_aligned_dtype``, ``cupy._core._scalar.get_typename``, field access and
comparisons, through a real server."""
from __future__ import annotations

import importlib
import operator

import numpy
import pytest

from gpushare import protocol

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize("dt", [
    numpy.dtype("i,f,i")[["f2", "f1"]],  # out of order, with a hole: no ``descr``
    numpy.dtype("?,f8", align=True),
    numpy.dtype([("a", "i,i"), ("b", "(2,)i")]),
    numpy.dtype([(("title", "a"), "i4"), ("b", "f8")]),
    numpy.dtype({"names": ["a"], "formats": ["c8"], "offsets": [0], "itemsize": 16},
                align=True, metadata={"__cuda_alignment__": 16}),
])
def test_structured_dtypes_round_trip(dt):
    back, scalar, arr = protocol.decode(protocol.encode(
        [dt, numpy.zeros((), dt)[()], numpy.zeros(2, dt)]))
    assert scalar.dtype == dt and arr.dtype == dt
    assert back == dt and back.itemsize == dt.itemsize
    assert back.isalignedstruct == dt.isalignedstruct
    assert back.fields == dt.fields
    assert (back.metadata or {}).get("__cuda_alignment__") == \
        (dt.metadata or {}).get("__cuda_alignment__")


def test_plain_dtypes_keep_their_wire_form():
    for char in "?bhilBHILefdFD":
        assert protocol.dtype_to_wire(numpy.dtype(char)) == numpy.dtype(char).str
    for char in "qQ":  # (longlong: int64's ``str``, its own char; see test_cpu_semantics_s39)
        assert protocol.dtype_to_wire(numpy.dtype(char)) == numpy.dtype(char).str[0] + char
    assert protocol.dtype_to_wire(numpy.dtype("V8")) == "|V8"


@pytest.mark.parametrize("dt, itemsize", [
    ("?,c8", 16), ("c8,?", 16), ("?,(3,)c8", 32), ("(3,)c8,?", 32),
    (numpy.dtype([("a", "c8,?"), ("b", "?")]), 24), ("?,(4,)V3", 13),
])
def test_make_aligned_dtype(cp, dt, itemsize):
    aligned = cp.make_aligned_dtype(dt)
    assert aligned.itemsize == itemsize and aligned.isalignedstruct


def test_make_aligned_dtype_errors(cp):
    for dt in ("c16", "V3"):
        with pytest.raises(ValueError, match="only supports structured dtypes"):
            cp.make_aligned_dtype(dt)
    with pytest.raises(ValueError, match="smaller than minimum alignment 8"):
        cp.make_aligned_dtype("?,c8", alignment=4)
    dt = cp.make_aligned_dtype("?,c8", alignment=32)
    assert dt.itemsize == 32 and dt.metadata == {"__cuda_alignment__": 32}


def test_an_aligned_dtype_travels_with_its_metadata(cp):
    dt = cp.make_aligned_dtype("?,q", alignment=16)
    a = cp.zeros(3, dtype=dt)
    assert a.dtype == dt and a.dtype.metadata == {"__cuda_alignment__": 16}
    b = a[1:]  # a view the server describes
    assert b.dtype.isalignedstruct and b.dtype.metadata == {"__cuda_alignment__": 16}
    assert a.get().dtype == dt


def test_get_typename_names_structs_and_checks_their_alignment(cp):
    # (``cupy._core._scalar`` under the hook)
    get_typename = importlib.import_module(f"{cp.__spec__.name}._core._scalar").get_typename
    decls: set = set()
    name = get_typename(numpy.dtype("i,i"), decls)
    assert name == ("cupy::StructView<cupy::raw_structview_storage<8, 4>, "
                    "cupy::Field<int, 0>, cupy::Field<int, 4>>")
    assert decls == {'#include "cupy/structview.cuh"'}
    assert get_typename(numpy.dtype("V10")) == "cupy::UnstructuredVoid<10>"
    with pytest.raises(ValueError, match="Itemsize 9 is not a multiple"):
        get_typename(numpy.dtype("f8,?"))
    with pytest.raises(ValueError, match="Itemsize 9 is not a multiple"):
        cp.ones(10, dtype="f8,?")  # the fill kernel's launch
    with pytest.raises(ValueError, match="Field f1 with offset 1 is not "):
        get_typename(numpy.dtype("?,f8"))
    assert cp.zeros(3, dtype="f8,?").shape == (3,)  # (a memset: no kernel)


@pytest.mark.parametrize("op", [operator.eq, operator.ne])
def test_structured_comparisons(cp, op):
    a = numpy.array([(1, 2)], dtype="i8,f8")
    for b in (numpy.array([(1, 2.), (1, 3), (3, 2)], dtype="i8,f8"),
              numpy.array([(1, 2.), (1, 3), (3, 2)], dtype="f8,i8")):  # promoted
        assert op(cp.array(a), cp.array(b)).get().tolist() == op(a, b).tolist()
    nested_a = numpy.array([(1, (2, 3))], dtype=[("a", "f8"), ("b", "i8,f8")])
    nested_b = numpy.array([(1, (2, 3)), (1, (2, 4))], dtype=[("a", "f4"), ("b", "f4,i4")])
    assert op(cp.array(nested_a), cp.array(nested_b)).get().tolist() == \
        op(nested_a, nested_b).tolist()
    # f8,c8 and f8,f8 compare as f8,c16, which the GPU wants 32 bytes for
    c = numpy.array([(1, 2)], dtype="f8,c8")
    d = numpy.array([(1, 2), (1, 3), (2, 3)], dtype="f8,f8")
    assert op(cp.array(c), cp.array(d)).get().tolist() == op(c, d).tolist()
    voids = numpy.array([b"87654321", b"12345678"], dtype="V8")
    other = numpy.array([b"87654321", b"1234567_"], dtype="V8")
    assert op(cp.array(voids), cp.array(other)).get().tolist() == op(voids, other).tolist()
    out = cp.empty(3, dtype=bool)
    fn = cp.equal if op is operator.eq else cp.not_equal
    assert fn(cp.array(a), cp.array(b), out=out) is out
    assert out.get().tolist() == op(a, b).tolist()


@pytest.mark.parametrize("op", [operator.eq, operator.ne])
def test_structured_comparison_errors(cp, op):
    a = cp.array([(1, 2)], dtype="i8,f8")
    with pytest.raises(TypeError, match="unless they have a common dtype"):
        op(a[["f1", "f0"]], cp.array([(1, 2.)], dtype="f8,i8"))
    with pytest.raises(TypeError, match="structured and non-structured"):
        op(a, cp.zeros(1, dtype="V16"))
    with pytest.raises(TypeError, match="unstructured voids of different size"):
        op(cp.zeros(1, dtype="V8"), cp.zeros(1, dtype="V4"))
    inner = numpy.dtype([("x", "i4"), ("y", "f4")])
    s = cp.zeros(2, dtype=[("a", inner, (3,))])
    with pytest.raises(ValueError, match="subarray dtypes"):
        op(s, s)
    b = cp.array([1.0, 2.0])
    assert op(b, b).get().tolist() == op(b.get(), b.get()).tolist()  # (plain ones)


def test_field_access(cp):
    a = cp.ones(10, "i,f,i")
    a["f1"] = cp.arange(10)
    a["f2"] = -cp.arange(10)
    got = a[["f2", "f1"]]
    expected = numpy.ones(10, "i,f,i")
    expected["f1"] = numpy.arange(10)
    expected["f2"] = -numpy.arange(10)
    assert got.dtype == expected[["f2", "f1"]].dtype
    assert got.get().tolist() == expected[["f2", "f1"]].tolist()
    b = cp.ones(10, "i,f,i,f,i,f")
    nb = numpy.ones(10, "i,f,i,f,i,f")
    for i in range(6):
        b[f"f{i}"] = cp.arange(i, 10 + i)
        nb[f"f{i}"] = numpy.arange(i, 10 + i)
    b[["f1", "f0", "f4"]] = b[["f2", "f1", "f5"]].copy()
    nb[["f1", "f0", "f4"]] = nb[["f2", "f1", "f5"]].copy()
    assert b.get().tolist() == nb.tolist()


def test_field_access_errors(cp):
    with pytest.raises(ValueError, match="accessing nested subarrays"):
        cp.zeros(10, dtype="i,(3,3)i")["f1"]
    with pytest.raises(ValueError, match="no field name of nope"):
        cp.zeros(2, dtype="i,i")["nope"]
    for field, dtype in [("f1", "?,f8"), ("f0", "f8,?")]:
        a = cp.array([(1, 2), (3, 4)], dtype=dtype)
        with pytest.raises(ValueError, match="sufficiently aligned for GPU"):
            a[field]
        with pytest.raises(ValueError, match="sufficiently aligned for GPU"):
            a[field] = 1
        assert a[:0][field].shape == (0,)  # empty: fine


def test_references_are_refused(cp):
    with pytest.raises(ValueError):
        cp.array(numpy.array([1, 2, 3], dtype="q,O"))
    base = cp.zeros(3, dtype="q,q")

    class Faked:
        @property
        def __cuda_array_interface__(self):
            iface = dict(base.__cuda_array_interface__)
            iface["typestr"] = "|V16"
            iface["descr"] = [("f0", "<i8"), ("f1", "|O")]
            return iface

    with pytest.raises(ValueError, match="contains references"):
        cp.asarray(Faked())


def test_cuda_array_interface_keeps_a_padded_dtype(cp):
    a = cp.zeros(3, dtype=cp.make_aligned_dtype("?,q"))

    class Wrapper:
        __cuda_array_interface__ = a.__cuda_array_interface__

    res = cp.asarray(Wrapper())
    assert res.dtype == a.dtype and cp.may_share_memory(a, res)


def test_user_kernels_over_struct_arrays(cp):
    """ElementwiseKernel and ReductionKernel over structured arrays: a struct is CuPy's
    ``cupy::StructView`` in the kernel, its fields reached by index (``at<i>()``)."""
    kernel = cp.ElementwiseKernel(
        "T in", "T out",
        'static_assert(T::field_count == 2, "expected 2 fields");\n'
        "out.at<1>() = -in.at<0>();", "gs_struct_access")
    x = cp.array([1, 2, 3], dtype="i,i")
    y = cp.array([4, 5, 6], dtype="i,i")
    kernel(x, y)
    assert y.get().tolist() == [(4, -1), (5, -2), (6, -3)]
    dt = numpy.dtype([("a", "f8"), ("b", "i4")], align=True)
    fill = cp.ElementwiseKernel("T s, float64 v", "T o",
                                "o = s; o.at<0>() = v * 2; o.at<1>() = (int)v;", "gs_fill")
    r = fill(cp.zeros(4, dtype=dt), cp.arange(4.0))
    assert r.dtype == dt and r.get().tolist() == [(0.0, 0), (2.0, 1), (4.0, 2), (6.0, 3)]
    total = cp.ReductionKernel("T s", "float64 y", "s.at<0>() + s.at<1>()", "a + b", "y = a",
                               "0", "gs_struct_sum")
    assert float(total(r)) == 18.0
