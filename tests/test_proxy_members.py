"""What the client's proxies of server objects and arrays answer as CuPy's objects do:
kernels' constructor attributes (read back on the client), data attributes that are
values (not methods), unknown names that are AttributeErrors, ``ndarray.view`` with a
class, ``reduced_view``, and a few ``cupy.cuda`` details."""
from __future__ import annotations

import warnings

import numpy
import pytest

pytestmark = pytest.mark.timeout(240)


def test_elementwise_kernel_attributes_are_its_constructors(cp):
    k = cp.ElementwiseKernel("T x, raw float32 y", "T z", "z = x * 2", "dbl",
                             preamble="// hi", options=("-O3",))
    assert (k.name, k.__name__, k.operation, k.preamble) == ("dbl", "dbl", "z = x * 2",
                                                             "// hi")
    assert (k.nin, k.nout, k.nargs) == (2, 1, 3)
    assert (k.no_return, k.return_tuple, k.reduce_dims) == (False, False, True)
    assert k.kwargs == {"options": ("-O3",)}
    assert [(p.name, p.dtype, p.ctype, p.raw, p.is_const) for p in k.params] == [
        ("x", None, "T", False, True), ("y", numpy.dtype("float32"), "float", True, True),
        ("z", None, "T", False, False), ("_ind", None, None, False, False)]
    assert k.in_params[0] == k.params[0] and hash(k.in_params[0]) == hash(k.params[0])
    assert k(cp.arange(3), cp.ones(1, dtype=cp.float32)).get().tolist() == [0, 2, 4]
    assert not hasattr(k, "no_such_attribute")
    with pytest.raises(AttributeError, match="no attribute 'no_such_attribute'"):
        k.no_such_attribute


def test_reduction_kernel_attributes_are_its_constructors(cp):
    r = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "sm")
    assert (r.name, r.identity, r.map_expr, r.reduce_expr, r.post_map_expr) == (
        "sm", "0", "x", "a + b", "y = a")
    assert (r.reduce_type, r.options, r.reduce_dims, r.preamble) == ("T", (), True, "")
    assert r.params is None  # (CuPy declares it and never sets it)
    assert (r.nin, r.nout) == (1, 1)
    assert int(r(cp.arange(4))) == 6
    # reduce_dims is the constructor's: CuPy's __call__ takes out, axis, keepdims, stream
    with pytest.raises(TypeError, match=r"Wrong arguments \{'reduce_dims': False\}"):
        r(cp.arange(4), reduce_dims=False)
    typed = cp.ReductionKernel("float32 x", "float64 y", "x", "a + b", "y = a", None,
                               reduce_type="double")
    assert (typed.identity, typed.reduce_type, typed.out_params[0].ctype) == (
        "", "double", "double")


def test_data_attributes_are_values_and_unknown_names_are_errors(cp):
    e = cp.cuda.Event()
    e.record()
    e.synchronize()
    assert type(e.ptr) is int and e.done is True
    s = cp.cuda.Stream()
    assert not hasattr(s, "no_such_attribute") and not hasattr(e, "no_such_attribute")
    assert type(s.ptr) is int
    from gpushare.cupyx.scipy import fft
    x = cp.arange(16, dtype=cp.complex64)
    plan = fft.get_fft_plan(x)
    assert (plan.nx, plan.batch) == (16, 1) and type(plan.fft_type) is int
    assert not hasattr(plan, "no_such_attribute")


def test_view_with_the_array_class_and_reduced_view(cp):
    a = cp.arange(24, dtype=cp.float32).reshape(2, 3, 4)
    assert type(a.view(cp.ndarray)) is cp.ndarray and a.view(cp.ndarray).shape == (2, 3, 4)
    assert a.view(type=cp.ndarray).dtype == cp.float32
    assert a.view(cp.int32).dtype == cp.int32
    with pytest.raises(ValueError, match="Cannot specify output type twice."):
        a.view(cp.ndarray, type=cp.ndarray)
    with pytest.raises(ValueError, match="Type must be a sub-type of ndarray type"):
        a.view(type=int)
    host = numpy.arange(24, dtype=numpy.float32).reshape(2, 3, 4)
    for index, shape in (((), (24,)), ((slice(None), slice(None), slice(0, 2)), (6, 2)),
                         ((slice(None), slice(1, 2)), (2, 4)),
                         ((slice(None), slice(None, None, 2)), (2, 2, 4))):
        r = a[index].reduced_view()
        assert r.shape == shape
        assert r.get().ravel().tolist() == host[index].ravel().tolist()
    with pytest.warns(DeprecationWarning, match="reduced_view with dtype"):
        assert a.reduced_view(cp.int32).dtype == cp.int32
    with pytest.raises(NotImplementedError, match="cstruct"):
        a.cstruct


def test_cuda_profile_warns_and_a_bad_device_is_cudas_error(cp):
    from gpushare import errors
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with cp.cuda.profile():
            pass
    assert [str(w.message)[:35] for w in caught] == ["cupy.cuda.profile has been deprecat"]
    with pytest.raises(errors.CUDARuntimeError, match="cudaErrorInvalidDevice"):
        cp.cuda.Device(99).compute_capability


def test_fused_reductions_refuse_keepdims_as_cupys(cp):
    @cp.fuse()
    def total(x):
        return cp.sum(x * 2, keepdims=True)

    @cp.fuse()
    def peak(x):
        return cp.amax(x, 0, None, True)  # (keepdims given by position)

    @cp.fuse()
    def fine(x):
        return cp.sum(x * 2, axis=0)
    x = cp.arange(6, dtype=cp.float32).reshape(2, 3)
    with pytest.raises(NotImplementedError,
                       match="cupy.sum does not support `keepdims` in fusion yet."):
        total(x)
    with pytest.raises(NotImplementedError,
                       match="cupy.amax does not support `keepdims` in fusion yet."):
        peak(x)
    assert fine(x).get().tolist() == [6.0, 10.0, 14.0]
    assert cp.sum(x, keepdims=True).shape == (1, 1)  # (outside a fusion: as ever)
    assert cp.max is cp.amax


# -- every proxy class of a server object has CuPy 14.2's members and no others --------

def _has_no(obj, name="bogus"):
    """``obj`` lacks ``name`` as CuPy's object does: hasattr False, getattr's default,
    AttributeError in Python's words, and it is not in ``dir``."""
    assert not hasattr(obj, name)
    assert getattr(obj, name, "dflt") == "dflt"
    with pytest.raises(AttributeError) as info:
        getattr(obj, name)
    assert str(info.value) == f"'{type(obj).__name__}' object has no attribute '{name}'"
    assert name not in dir(obj)


def test_graph_has_cupys_members_only(cp):
    calls = []
    a = cp.arange(4, dtype=cp.float32)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        b = a * 2
        s.launch_host_func(calls.append, "done")
        g = s.end_capture()
    assert type(g).__name__ == "Graph"
    assert g.host_funcargs == [(calls.append, "done")]
    g.launch(stream=s)
    s.synchronize()
    assert b.get().tolist() == [0.0, 2.0, 4.0, 6.0] and calls == ["done"]
    assert isinstance(g.debug_dot_str(), str)
    for name in ("launch", "upload", "debug_dot_str", "host_funcargs"):
        assert hasattr(g, name) and name in dir(g)
    _has_no(g)
    _has_no(g, "record")  # (a Stream's/Event's method: not a graph's)


def test_texture_objects_have_cupys_members_only(cp):
    from gpushare.cupy.cuda import runtime
    from gpushare.cupy.cuda.texture import (ChannelFormatDescriptor, CUDAarray,
                                            ResourceDescriptor, SurfaceObject,
                                            TextureDescriptor, TextureObject)
    ch = ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    assert ch.get_channel_format() == {"x": 32, "y": 0, "z": 0, "w": 0, "f": 2}
    arr = CUDAarray(ch, 4, 3, 0, runtime.cudaArraySurfaceLoadStore)
    assert (arr.width, arr.height, arr.depth, arr.ndim) == (4, 3, 0, 2)
    assert arr.desc.get_channel_format()["x"] == 32
    arr.copy_from(numpy.arange(12, dtype=numpy.float32).reshape(3, 4))
    out = numpy.zeros((3, 4), dtype=numpy.float32)
    arr.copy_to(out)
    assert out.ravel().tolist() == list(range(12))
    res = ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr)
    assert res.get_resource_desc()["resType"] == runtime.cudaResourceTypeArray
    assert res.chDesc is None and res.arr is None and res.cuArr.width == 4
    desc = TextureDescriptor()
    assert isinstance(desc.get_texture_desc(), dict)
    tex = TextureObject(res, desc)
    surf = SurfaceObject(res)
    assert tex.ResDesc.cuArr.height == 3 and tex.TexDesc.get_texture_desc() is not None
    assert surf.ResDesc.cuArr.width == 4
    for obj in (ch, arr, res, desc, tex, surf):
        assert type(obj.ptr) is int and "ptr" in dir(obj)
        _has_no(obj)
    _has_no(arr, "get_channel_format")  # (the descriptor's, not the array's)
    _has_no(surf, "TexDesc")  # (a texture object's)
    _has_no(tex, "copy_from")


def test_fft_plans_and_the_plan_cache_have_cupys_members_only(cp):
    from gpushare.cupyx.scipy import fft
    plan = fft.get_fft_plan(cp.arange(16, dtype=cp.complex64))
    assert type(plan).__name__ == "Plan1d"
    assert (plan.nx, plan.batch, plan.gpus) == (16, 1, None)
    _has_no(plan)
    _has_no(plan, "shape")  # (a PlanNd's)
    plan2 = fft.get_fft_plan(cp.ones((4, 8), dtype=cp.complex64))
    assert type(plan2).__name__ == "PlanNd"
    assert (plan2.shape, plan2.order, plan2.last_axis, plan2.last_size) == (
        (4, 8), "C", 1, None)
    with plan2:
        out = cp.fft.fft2(cp.ones((4, 8), dtype=cp.complex64))
    assert float(out[0, 0].real) == 32.0
    _has_no(plan2)
    _has_no(plan2, "nx")  # (a Plan1d's)
    cache = cp.fft.config.get_plan_cache()
    assert isinstance(cache.get_size(), int) and cache.get_curr_size() >= 0
    _has_no(cache)


def test_served_scipy_classes_have_cupys_members_only(cp):
    from gpushare.cupyx.scipy import interpolate, signal, spatial
    x = cp.arange(5, dtype=cp.float64)
    spline = interpolate.CubicSpline(x, x ** 2)
    assert float(spline(cp.asarray([2.0]))[0]) == pytest.approx(4.0)
    # (CuPy's CubicSpline of 4 points or more: ``make_interp_spline``'s knots, _cubic.py)
    assert spline.x.get().tolist() == [0, 0, 0, 0, 2, 4, 4, 4, 4] and spline.axis == 0
    assert float(spline.derivative()(cp.asarray([1.0]))[0]) == pytest.approx(2.0)
    assert {"c", "x", "axis", "extrapolate", "roots", "solve"} <= set(dir(spline))
    _has_no(spline)
    _has_no(spline, "query")  # (a KDTree's)
    bary = interpolate.BarycentricInterpolator(x, 2 * x)
    assert bary.yi.get().ravel().tolist() == [0, 2, 4, 6, 8] and bary.n == 5
    _has_no(bary)
    tree = spatial.KDTree(cp.asarray([[0.0, 0.0], [1.0, 1.0], [3.0, 3.0]]))
    dist, idx = tree.query(cp.asarray([[0.9, 0.9]]))
    assert int(idx[0]) == 1 and tree.n == 3 and tree.m == 2
    assert not callable(tree)  # (CuPy's KDTree has no __call__)
    _has_no(tree)
    _has_no(tree, "derivative")
    # Delaunay.vertex_neighbor_vertices is a method in CuPy (SciPy's is a property):
    # (indptr int64, indices int32)
    square = cp.asarray([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.4]])
    indptr, indices = spatial.Delaunay(square).vertex_neighbor_vertices()
    assert (indptr.dtype, indices.dtype) == (numpy.int64, numpy.int32)
    indptr, indices = indptr.get(), indices.get()
    assert indptr.tolist()[0] == 0 and indptr[-1] == len(indices)
    # the centre point neighbours the four corners
    assert sorted(indices[indptr[4]:indptr[5]].tolist()) == [0, 1, 2, 3]
    system = signal.lti([1.0], [1.0, 1.0])
    assert type(system).__name__ == "TransferFunctionContinuous"
    assert system.den.get().tolist() == [1.0, 1.0] and not callable(system)
    assert (system.inputs, system.outputs) == (1, 1)
    assert isinstance(system.to_zpk(), signal.ZerosPolesGain)
    _has_no(system)
    _has_no(system, "gain")  # (a ZerosPolesGain's)


def test_sparse_matrices_have_their_formats_cupy_members_only(sp, cp):
    dense = cp.asarray([[1.0, 0.0], [0.0, 2.0]])
    csr, coo, dia = sp.csr_matrix(dense), sp.coo_matrix(dense), sp.dia_matrix(
        __import__("scipy.sparse").sparse.dia_matrix(dense.get()))  # (no dense branch)
    assert csr.indptr.get().tolist() == [0, 1, 2] and float(csr.max()) == 2.0
    assert coo.row.get().tolist() == [0, 1] and coo.has_canonical_format in (True, False)
    assert dia.offsets.get().tolist() == [0] and dia.nnz == 2
    assert float(dia.sum()) == 3.0 and csr.getformat() == "csr"
    with pytest.raises(NotImplementedError):  # (CuPy 14.2's spbase.device)
        csr.device
    for obj in (csr, coo, dia, sp.csr_array(dense)):
        _has_no(obj)
    for name in ("row", "col", "coords", "offsets"):
        _has_no(csr, name)
    for name in ("indices", "indptr", "max", "argmin", "sort_indices", "offsets"):
        _has_no(coo, name)
    for name in ("row", "indices", "sum_duplicates", "has_canonical_format", "argmax"):
        _has_no(dia, name)
    with pytest.raises(AttributeError, match="type object 'dia_matrix' has no attribute"):
        sp.dia_matrix.max
    _has_no(sp.csr_array(dense), "getrow")  # (the matrix kind's only)


def test_server_made_operators_and_superlu_have_cupys_members_only(sp, cp):
    from gpushare.cupyx.scipy.sparse import linalg
    A = sp.csr_matrix(cp.asarray([[4.0, 1.0], [1.0, 3.0]]))
    op = linalg.aslinearoperator(A)
    assert op.shape == (2, 2) and op.matvec(cp.ones(2)).get().tolist() == [5.0, 4.0]
    assert "matvec" in dir(op)
    _has_no(op)
    lu = linalg.splu(sp.csc_matrix(A))
    assert lu.shape == (2, 2)
    assert lu.solve(cp.asarray([5.0, 4.0])).get().tolist() == pytest.approx([1.0, 1.0])
    assert not callable(lu)
    _has_no(lu)
