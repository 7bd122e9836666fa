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
