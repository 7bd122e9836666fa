"""The CPU backend's answers where CuPy 14.2's differ from NumPy's and SciPy's, through a
real server: ``eig``/``eigvals``' complex results, ``center_of_mass``' arrays, sparse
``multiply``'s CSR results, ``sum_labels`` of no labels, and CuPy's own errors (type and
words) for matrix products, empty reductions, joins, ``split``, ``linspace``,
``bincount``, ``clip``, sparse products and ``spsolve``."""
from __future__ import annotations

import numpy
import pytest

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def ndi(cp):
    from gpushare.cupyx.scipy import ndimage
    return ndimage


def _raises(exc_type, message, fn):
    """``fn()`` raises ``exc_type`` with exactly ``message``."""
    with pytest.raises(exc_type) as info:
        fn()
        # (a pipelined call's error surfaces at the next wait)
        from gpushare import client
        client.get_session().synchronize()
    assert type(info.value) is exc_type or issubclass(type(info.value), exc_type)
    assert str(info.value) == message


# --- eig / eigvals -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype, expected", [
    (numpy.float64, numpy.complex128), (numpy.float32, numpy.complex64),
    (numpy.int32, numpy.complex128), (numpy.bool_, numpy.complex128),
    (numpy.complex64, numpy.complex64)])
def test_eig_of_real_input_is_complex(cp, dtype, expected):
    host = numpy.array([[2, 1], [1, 3]]).astype(dtype)
    a = cp.asarray(host)
    w = cp.linalg.eigvals(a)
    assert w.dtype == expected
    numpy.testing.assert_allclose(numpy.sort(w.get().real),
                                  numpy.sort(numpy.linalg.eigvals(host).real), rtol=1e-5)
    w2, v2 = cp.linalg.eig(a)
    assert w2.dtype == v2.dtype == expected
    assert v2.flags.c_contiguous
    # A v = v diag(w)
    numpy.testing.assert_allclose(host.astype(expected) @ v2.get(), v2.get() * w2.get(),
                                  atol=1e-4)
    batch = cp.linalg.eigvals(cp.asarray(numpy.stack([host, host])))
    assert batch.shape == (2, 2) and batch.dtype == expected


def test_eig_errors_and_empty_input(cp):
    _raises(TypeError, "float16 is unsupported in linalg",
            lambda: cp.linalg.eigvals(cp.ones((2, 2), dtype=cp.float16)))
    w, v = cp.linalg.eig(cp.ones((0, 0), dtype=cp.float32))
    assert w.dtype == v.dtype == numpy.float32 and w.shape == (0,)
    assert cp.linalg.eigvals(cp.ones((2, 0, 0), dtype=cp.int64)).dtype == numpy.float64


# --- ndimage -------------------------------------------------------------------------------

def test_center_of_mass_of_an_index_array(cp, ndi):
    img = cp.arange(16, dtype=cp.float32).reshape(4, 4)
    lab = cp.asarray([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 2, 2], [0, 0, 2, 2]], dtype=cp.int32)
    r = ndi.center_of_mass(img, lab, cp.asarray([1, 2]))
    assert type(r) is list and len(r) == 2
    assert all(isinstance(v, cp.ndarray) and v.shape == (2,) and v.dtype == numpy.float64
               for v in r)
    numpy.testing.assert_allclose(r[0].get(), [0.9, 0.6])
    numpy.testing.assert_allclose(r[1].get(), [2.58, 2.52])
    assert ndi.center_of_mass(img, lab, cp.asarray([], dtype=cp.int32)) == []
    # a scalar index, and no labels: a tuple of 0-d arrays, as before
    r1 = ndi.center_of_mass(img, lab, 1)
    assert type(r1) is tuple and all(isinstance(v, cp.ndarray) and v.ndim == 0 for v in r1)
    r0 = ndi.center_of_mass(img)
    assert type(r0) is tuple and len(r0) == 2


def test_sum_labels_of_no_index(cp, ndi):
    img = cp.arange(4, dtype=cp.float32)
    lab = cp.asarray([0, 1, 1, 2])
    for fn in (ndi.sum_labels, ndi.sum):
        r = fn(img, lab, cp.asarray([], dtype=cp.int32))
        assert r.dtype == numpy.int64 and r.shape == (0,)
    assert ndi.sum_labels(img, lab, cp.asarray([1, 2])).get().tolist() == [3.0, 3.0]


# --- sparse ----------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_sparse_multiply_by_dense_is_csr(cp, sp, fmt):
    dense = numpy.array([[1., 0., 2.], [0., 0., 0.], [0., 3., 0.]])
    M = getattr(sp, f"{fmt}_matrix")(cp.asarray(dense))
    r = M.multiply(cp.full((3, 3), 2.0))
    assert type(r).__name__ == "csr_matrix" and r.format == "csr"
    numpy.testing.assert_array_equal(r.toarray().get(), dense * 2)
    row = M.multiply(cp.asarray([[1.0, 2.0, 3.0]]))  # broadcast row
    assert row.format == "csr"
    numpy.testing.assert_array_equal(row.toarray().get(), dense * [1, 2, 3])
    col = M.multiply(cp.asarray([1.0, 2.0, 3.0], dtype=cp.float32))  # 1-D: a row
    assert col.dtype == numpy.float64
    numpy.testing.assert_array_equal(col.toarray().get(), dense * [1, 2, 3])
    assert M.multiply(3.0).format == "csr"


def test_sparse_multiply_broadcasts_the_sparse_operand(cp, sp):
    row = sp.csr_matrix(cp.asarray([[1.0, 0.0, 2.0]]))
    r = row.multiply(cp.arange(6, dtype=cp.float32).reshape(2, 3))
    assert r.format == "csr" and r.shape == (2, 3) and r.nnz == 4
    numpy.testing.assert_array_equal(r.toarray().get(), [[0, 0, 4], [3, 0, 10]])
    col = sp.csr_matrix(cp.asarray([[2.0], [0.0]]))
    r = col.multiply(cp.asarray([[1.0, 2.0, 3.0]]))
    assert r.shape == (2, 3) and r.nnz == 3
    numpy.testing.assert_array_equal(r.toarray().get(), [[2, 4, 6], [0, 0, 0]])
    _raises(ValueError, "inconsistent shape",
            lambda: row.multiply(cp.ones((2, 2))))


def test_sparse_product_errors(cp, sp):
    from gpushare.cupyx.scipy.sparse import linalg
    M = sp.csr_matrix(cp.eye(3))
    _raises(ValueError, "dimension mismatch", lambda: M @ cp.ones(4))
    _raises(ValueError, "dimension mismatch", lambda: M @ cp.ones((4, 2)))
    _raises(ValueError, "dimension mismatch", lambda: M.dot(cp.ones(4)))
    _raises(ValueError, "A must be a square matrix (A.shape: (2, 3))",
            lambda: linalg.spsolve(sp.csr_matrix(cp.ones((2, 3))), cp.ones(2)))
    _raises(ValueError, "matrix dimension mismatch (A.shape: (3, 3), b.shape: (2,))",
            lambda: linalg.spsolve(M, cp.ones(2)))
    _raises(TypeError, "b must be cupy.ndarray", lambda: linalg.spsolve(M, [1.0, 2.0, 3.0]))
    _raises(TypeError, "b must be cupy.ndarray", lambda: linalg.spsolve(M, numpy.ones(3)))
    _raises(TypeError, "A must be cupyx.scipy.sparse.spmatrix",
            lambda: linalg.spsolve(numpy.eye(3), cp.ones(3)))
    x = linalg.spsolve(M, cp.asarray([1.0, 2.0, 3.0]))
    assert x.get().tolist() == [1.0, 2.0, 3.0]


# --- errors in CuPy's words ----------------------------------------------------------------

def test_solver_failures_under_linalg_raise(cp):
    """``cupyx.errstate(linalg='raise')``: the routine CuPy calls, its info array
    (LAPACK's: the first zero pivot, the first minor not positive definite)."""
    import gpushare.cupyx as cupyx

    def fails(routine, info, library="cuSOLVER"):
        what = "infoArray/devInfoArray" if library == "cuBLAS" else "devInfo"
        return (f"Error reported by {routine} in {library}. {what} = {info}. Please "
                f"refer to the {library} documentation.")
    singular = cp.asarray([[1.0, 2.0], [2.0, 4.0]])
    with cupyx.errstate(linalg="raise"):
        _raises(numpy.linalg.LinAlgError, fails("dgetrf", "[1]"),
                lambda: cp.linalg.inv(cp.zeros((3, 3))))
        _raises(numpy.linalg.LinAlgError, fails("sgetrf", "[2]"),
                lambda: cp.linalg.inv(singular.astype(cp.float32)))
        _raises(numpy.linalg.LinAlgError, fails("dgetrf", "[2]"),
                lambda: cp.linalg.solve(singular.astype(cp.int64), cp.ones(2)))
        _raises(numpy.linalg.LinAlgError, fails("zgetrfBatched", "[0 2]", "cuBLAS"),
                lambda: cp.linalg.inv(cp.stack([cp.eye(2), singular]).astype(cp.complex128)))
        _raises(numpy.linalg.LinAlgError, fails("dgetrfBatched", "[2 0]", "cuBLAS"),
                lambda: cp.linalg.solve(cp.stack([singular, cp.eye(2)]), cp.ones((2, 2, 1))))
        _raises(numpy.linalg.LinAlgError, fails("dpotrf", "[1]"),
                lambda: cp.linalg.cholesky(-cp.eye(3)))
        _raises(numpy.linalg.LinAlgError, fails("cpotrfBatched", "[0 2]"),
                lambda: cp.linalg.cholesky(cp.asarray([numpy.eye(2), [[1, 0], [0, -1]]],
                                                      dtype=cp.complex64)))
        _raises(numpy.linalg.LinAlgError, fails("dpotrf", "[1]"),
                lambda: cupyx.linalg.invh(-cp.eye(3)))
        assert float(cp.linalg.inv(2 * cp.eye(2))[0, 0]) == 0.5
    # CuPy's default, 'ignore': no error; gesv's substitutions through the zero pivot
    # (the GPU's answer: getrf, then getrs in IEEE arithmetic)
    assert cp.linalg.inv(singular).get().tolist() == [[-numpy.inf, numpy.inf],
                                                      [numpy.inf, -numpy.inf]]


def test_matrix_product_errors(cp):
    _raises(ValueError, "Axis dimension mismatch", lambda: cp.ones((2, 3)) @ cp.ones((2, 3)))
    _raises(ValueError, "Axis dimension mismatch",
            lambda: cp.matmul(cp.ones((2, 3)), cp.ones((2, 3))))
    _raises(ValueError, "Axis dimension mismatch",
            lambda: cp.dot(cp.ones((2, 3)), cp.ones((2, 3))))
    _raises(ValueError, "Axis dimension mismatch", lambda: cp.ones(3) @ cp.ones(4))
    _raises(ValueError, "Axis dimension mismatch", lambda: cp.ones((2, 3)) @ cp.ones(4))
    _raises(ValueError, "Axis dimension mismatch",
            lambda: cp.dot(cp.ones((2, 3, 4)), cp.ones((5, 6))))
    _raises(ValueError, "Axis dimension mismatch", lambda: cp.ones((2, 3)).dot(cp.ones(4)))
    _raises(ValueError, "shapes (4,2,3) and (4,2,3) not aligned",
            lambda: cp.matmul(cp.ones((4, 2, 3)), cp.ones((4, 2, 3))))
    _raises(ValueError, "shapes (4,2,3) and (2) not aligned",  # (CuPy's join)
            lambda: cp.ones((4, 2, 3)) @ cp.ones(2))
    _raises(ValueError, "operands could not be broadcast together with remapped shapes",
            lambda: cp.ones((4, 2, 3)) @ cp.ones((3, 3, 2)))
    _raises(ValueError, "Scalar operands are not allowed, use '*' instead",
            lambda: cp.matmul(cp.ones(()), cp.ones(3)))
    # the successful products are NumPy's
    assert (cp.ones((4, 2, 3)) @ cp.ones(3)).shape == (4, 2)
    assert cp.dot(cp.ones((2, 3)), cp.ones(3)).get().tolist() == [3.0, 3.0]


@pytest.mark.parametrize("fn, name", [
    (lambda cp, a: cp.max(a), "CUPY_CUB_MAX"),
    (lambda cp, a: cp.amin(a), "CUPY_CUB_MIN"),
    (lambda cp, a: a.max(), "CUPY_CUB_MAX"),
    (lambda cp, a: a.min(axis=0), "CUPY_CUB_MIN"),
    (lambda cp, a: cp.ptp(a), "CUPY_CUB_MAX"),
    (lambda cp, a: cp.argmax(a), "CUPY_CUB_ARGMAX"),
    (lambda cp, a: a.argmin(), "CUPY_CUB_ARGMIN"),
    (lambda cp, a: cp.argmax(a, dtype=cp.int32), "cupy_argmax"),
    (lambda cp, a: cp.nanargmax(a), "cupy_nanargmax"),
    (lambda cp, a: cp.nanmax(a), "cupy_nanmax"),
    (lambda cp, a: cp.max(a.astype(bool)), "cupy_max"),
    (lambda cp, a: cp.argmax(a.astype(bool)), "CUPY_CUB_ARGMAX"),
    (lambda cp, a: cp.argmin(a.astype(bool)), "cupy_argmin"),
    (lambda cp, a: cp.nanargmin(a.astype(cp.int8)), "CUPY_CUB_ARGMIN"),
    (lambda cp, a: cp.max(a.reshape(0, 3), axis=0), "cupy_max"),
    (lambda cp, a: cp.argmax(a.reshape(0, 3), axis=0), "cupy_argmax"),
])
def test_empty_reductions(cp, fn, name):
    a = cp.zeros(0)
    _raises(ValueError, f"zero-size array to reduction operation {name} which has no "
            "identity", lambda: fn(cp, a))


def test_empty_reductions_with_results(cp):
    assert cp.max(cp.zeros((3, 0)), axis=0).shape == (0,)
    assert cp.max(cp.arange(3)).get() == 2
    assert int(cp.argmax(cp.asarray([1, 5, 2]))) == 1


def test_join_errors(cp):
    concat = "All arrays must have same shape except the axis to concatenate"
    _raises(ValueError, concat, lambda: cp.concatenate([cp.ones((3, 4)), cp.ones((2, 3))]))
    _raises(ValueError, concat, lambda: cp.stack([cp.ones((3, 4)), cp.ones((2, 4))]))
    _raises(ValueError, concat, lambda: cp.vstack([cp.ones((3, 4)), cp.ones((2, 3))]))
    _raises(ValueError, concat, lambda: cp.hstack([cp.ones((3, 4)), cp.ones((2, 3))]))
    _raises(ValueError, "All arrays to concatenate must have the same ndim",
            lambda: cp.concatenate([cp.ones((3, 4)), cp.ones(3)]))
    _raises(ValueError, "All arrays to concatenate must have the same ndim",
            lambda: cp.stack([cp.ones((3, 4)), cp.ones(3)]))
    _raises(TypeError, "zero-dimensional arrays cannot be concatenated",
            lambda: cp.concatenate([cp.ones(()), cp.ones(())]))
    _raises(ValueError, "Cannot concatenate from empty tuple", lambda: cp.concatenate([]))
    _raises(ValueError, "Only 1 or 2 dimensional arrays can be column stacked",
            lambda: cp.column_stack([cp.ones((2, 2, 2))]))
    assert cp.concatenate([cp.ones((2, 3)), cp.ones((1, 3))]).shape == (3, 3)


def test_other_argument_errors(cp):
    _raises(ValueError, "indices_or_sections must divide the size along the axes.\n"
            "If you want to split the array into non-equally-sized arrays, use array_split "
            "instead.", lambda: cp.split(cp.arange(10), 3))
    _raises(IndexError, "Axis exceeds ndim", lambda: cp.split(cp.arange(10), 2, axis=1))
    assert [p.get().tolist() for p in cp.split(cp.arange(4), 2)] == [[0, 1], [2, 3]]
    _raises(ValueError, "linspace with num<0 is not supported", lambda: cp.linspace(0, 1, -1))
    _raises(ValueError, "The first argument of bincount must be non-negative",
            lambda: cp.bincount(cp.asarray([-1, 2])))
    _raises(TypeError, "x must be int array", lambda: cp.bincount(cp.asarray([1.0, 2.0])))
    _raises(ValueError, "object too deep for desired array",
            lambda: cp.bincount(cp.ones((2, 2), dtype=cp.int32)))
    _raises(ValueError, "object of too small depth for desired array",
            lambda: cp.bincount(cp.asarray(1)))
    _raises(ValueError, "minlength must be non-negative",
            lambda: cp.bincount(cp.asarray([1]), minlength=-1))
    _raises(ValueError, "The weights and list don't have the same length.",
            lambda: cp.bincount(cp.asarray([1]), cp.ones(2)))
    r = cp.bincount(cp.asarray([1, 1, 3], dtype=cp.uint8), minlength=5)
    assert r.dtype == numpy.intp and r.get().tolist() == [0, 2, 0, 1, 0]
    w = cp.bincount(cp.asarray([0, 1, 1]), cp.asarray([1, 2, 3], dtype=cp.float32))
    assert w.dtype == numpy.float64 and w.get().tolist() == [1.0, 5.0]
    e = cp.bincount(cp.asarray([], dtype=cp.int32), cp.ones(0), minlength=2)
    assert e.dtype == numpy.intp and e.get().tolist() == [0, 0]
    _raises(TypeError, "clip() missing 2 required positional arguments: 'a_min' and 'a_max'",
            lambda: cp.clip(cp.arange(3)))
    assert cp.clip(cp.arange(5), 1, 3).get().tolist() == [1, 1, 2, 3, 3]


# --- ufuncs' errors (the CPU backend's ufunc wrappers call ``ufunc_error`` on their error
# path; checked here against NumPy's own exceptions) -----------------------------------

def _numpy_error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("no error")


@pytest.mark.parametrize("uf, args, kwargs, exc_type, message", [
    (numpy.bitwise_and, (numpy.ones(3), numpy.ones(3)), {}, TypeError,
     "Wrong type ((dtype('float64'), dtype('float64'))) of arguments for cupy_bitwise_and"),
    (numpy.invert, (numpy.ones(3, numpy.float32),), {}, TypeError,
     "Wrong type ((dtype('float32'),)) of arguments for cupy_invert"),
    (numpy.left_shift, (numpy.ones(3), 1), {}, TypeError,
     "Wrong type ((dtype('float64'), dtype('int64'))) of arguments for cupy_left_shift"),
    (numpy.bitwise_or, (numpy.ones(3), numpy.ones(3)), {"dtype": "f"}, TypeError,
     "Wrong type (float32) of arguments for cupy_bitwise_or"),
    (numpy.add, (numpy.ones(3), 1), {"out": numpy.zeros(3, numpy.int32)}, TypeError,
     "Cannot cast output operand from dtype('float64') to dtype('int32') according to the "
     "rule 'same_kind'"),
    (numpy.subtract, (numpy.ones(1, bool), numpy.ones(1, bool)), {}, TypeError,
     "cupy boolean subtract, the `-` operator, is deprecated, use the bitwise_xor, the `^` "
     "operator, or the logical_xor function instead."),
    (numpy.negative, (numpy.ones(1, bool),), {}, TypeError,
     "The cupy boolean negative, the `-` operator, is not supported, use the `~` operator "
     "or the logical_not function instead."),
])
def test_ufunc_errors_in_cupys_words(uf, args, kwargs, exc_type, message):
    from gpushare_server.backends.cpu_routines import ufunc_error
    exc = _numpy_error(lambda: uf(*args, **kwargs))
    restated = ufunc_error(uf, args, kwargs, exc)
    assert type(restated) is exc_type and str(restated) == message
    other = ValueError("operands could not be broadcast together")
    assert ufunc_error(uf, args, kwargs, other) is other


def test_ufunc_errors_are_cupys_through_the_server(cp) -> None:
    """No loop for the operands, an ``out=`` that cannot take the result, bool ``-``:
    CuPy's exception types and words, for operators and ufuncs called by name."""
    f = cp.ones(3)
    _raises(TypeError, "Wrong type ((dtype('float64'), dtype('float64'))) of arguments "
                       "for cupy_bitwise_and", lambda: cp.bitwise_and(f, f))
    _raises(TypeError, "Cannot cast output operand from dtype('float64') to "
                       "dtype('int32') according to the rule 'same_kind'",
            lambda: cp.add(f, 1, out=cp.zeros(3, cp.int32)))
    b = cp.ones(3, dtype=bool)
    with pytest.raises(TypeError, match="^cupy boolean subtract"):
        b - b
        float(f[0])
    with pytest.raises(TypeError, match="^The cupy boolean negative"):
        -b
        float(f[0])
    assert float((f + 1).sum()) == 6.0  # the session goes on


def test_fmod_of_64_bit_integers_goes_through_double_as_cupys(cp):
    # CuPy's integer loop: ``in1 == 0 ? 0 : fmod((double)in0, (double)in1)``
    a = cp.array([2**62 + 1, -(2**62) - 3, 7, -7, 2**53 + 1], dtype=cp.int64)
    b = cp.array([3, 5, 0, 2, 2], dtype=cp.int64)
    expected = [1, -4, 0, -1, 0]  # NumPy's exact remainders: [2, -2, 0, -1, 1]
    assert cp.fmod(a, b).get().tolist() == expected
    out = cp.empty(5, cp.int64)
    assert cp.fmod(a, b, out=out) is out and out.get().tolist() == expected
    u = cp.array([2**64 - 1, 2**63 + 5], cp.uint64)
    assert cp.fmod(u, cp.array([7, 10], cp.uint64)).get().tolist() == [2, 8]
    # up to 32 bits a double holds every value: the exact remainder, dtype kept
    small = cp.fmod(cp.array([2**31 - 1, -(2**31)], cp.int32), cp.array([10, 7], cp.int32))
    assert small.dtype == cp.int32 and small.get().tolist() == [7, -2]
    assert cp.fmod(cp.array([5.5]), 2).get().tolist() == [1.5]


def test_nanargmax_never_answers_a_nan_and_gives_minus_one_for_all_nan(cp):
    # CuPy's kernel (_routines_statistics.pyx): a NaN's index is -1 and never wins;
    # NumPy raises for an all-NaN slice and reads NaN as -inf (+inf for nanargmin)
    x = cp.array([[numpy.nan, numpy.nan, numpy.nan], [numpy.nan, -numpy.inf, 2.0],
                  [numpy.nan, -numpy.inf, numpy.nan], [1.0, 3.0, 3.0]])
    assert cp.nanargmax(x, axis=1).get().tolist() == [-1, 2, 1, 1]
    assert cp.nanargmin(x, axis=1).get().tolist() == [-1, 1, 1, 0]
    assert cp.nanargmax(x, axis=0).get().tolist() == [3, 3, 3]
    assert int(cp.nanargmax(x)) == 10 and int(cp.nanargmin(cp.array([numpy.nan, numpy.inf]))) == 1
    assert int(cp.nanargmax(cp.array([numpy.nan]))) == -1
    assert cp.nanargmax(x, axis=1, keepdims=True).shape == (4, 1)
    y = cp.full((2, 2, 2), numpy.nan)
    y[0, 1, 0] = 0.5
    assert cp.nanargmax(y, axis=(1, 2)).get().tolist() == [2, -1]
    # (the GPU: the kernel's routines all answer int64; none is found for another dtype)
    _raises(TypeError, "Wrong type (<class 'numpy.int32'>) of arguments for cupy_nanargmin",
            lambda: cp.nanargmin(y, axis=0, dtype=cp.int32))
    assert int(cp.nanargmax(cp.array([complex(numpy.nan, 0), 1j]))) == 1
    assert int(cp.nanargmax(cp.array([3, 1, 3]))) == 0  # integers: argmax


def test_partition_sorts_where_cupys_kernel_would_not_run(cp):
    # CuPy (``_routines_sorting.pyx``) sorts the whole axis unless its selection kernel
    # takes the call (axes of ~10,000 elements and more for partition, 160 for
    # argpartition, with a small kth); NumPy's introselect leaves the rest unsorted
    values = numpy.random.default_rng(1).permutation(100)
    a = cp.asarray(values)
    assert cp.partition(a, 3).get().tolist() == sorted(values.tolist())
    assert cp.argpartition(a, 3).get().tolist() == \
        numpy.argsort(values, kind="stable").tolist()
    b = cp.asarray(values.reshape(4, 25))
    b.partition(2, axis=0)
    assert b.get().tolist() == numpy.sort(values.reshape(4, 25), axis=0).tolist()
    big = numpy.random.default_rng(2).random(20000)
    p = cp.partition(cp.asarray(big), 10).get()  # the kernel's path: a partition still
    assert p[10] == numpy.sort(big)[10] and (p[:10] <= p[10]).all() and (p[11:] >= p[10]).all()
    assert cp.argpartition(cp.zeros((3, 0)), 0).shape == (0,)
    _raises(ValueError, "kth(=5) out of bounds 3", lambda: cp.partition(cp.arange(3), 5))
    _raises(ValueError, "kth(=-2) out of bounds 3", lambda: cp.argpartition(cp.arange(3), -5))
    # a NumPy integer is no ``int`` to CuPy's Cython: it iterates it
    _raises(TypeError, "'numpy.int64' object is not iterable",
            lambda: cp.partition(cp.arange(3), numpy.int64(1)))


def test_ndimage_checks_modes_orders_and_sum_types_as_cupys(cp, ndi):
    import warnings
    from gpushare.errors import PerformanceWarning
    g = cp.ones((8, 8), cp.float32)
    # the interpolations' ``_check_parameter`` and per-axis arguments (SciPy: RuntimeError)
    _raises(ValueError, "boundary mode (foo) is not supported", lambda: ndi.zoom(g, 2, mode="foo"))
    _raises(ValueError, "spline order is not supported", lambda: ndi.shift(g, 1, order=6))
    _raises(ValueError, "boundary mode (y) is not supported",
            lambda: ndi.map_coordinates(g, cp.zeros((2, 3)), mode="y"))
    _raises(RuntimeError, "zoom must have length equal to input rank",
            lambda: ndi.zoom(g, (2, 2, 2)))
    # the filters' ``_check_mode`` (SciPy's words name no mode; it takes grid-constant)
    _raises(RuntimeError, "boundary mode not supported (actual: foo)",
            lambda: ndi.gaussian_filter(g, 1, mode="foo"))
    _raises(RuntimeError, "boundary mode not supported (actual: bad)",
            lambda: ndi.uniform_filter(g, 3, mode=["reflect", "bad"]))
    _raises(RuntimeError, "boundary mode not supported (actual: grid-constant)",
            lambda: ndi.median_filter(g, 3, mode="grid-constant"))
    assert ndi.zoom(g, 2, order=1, mode="grid-constant").shape == (16, 16)
    # sum_labels: complex refused; a type without CuPy's atomicAdd warns
    _raises(TypeError, "cupyx.scipy.ndimage.sum does not support %<class 'numpy.complex64'>",
            lambda: ndi.sum_labels(cp.ones((4, 4), cp.complex64)))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert int(ndi.sum_labels(cp.ones((4, 4), cp.int64), cp.ones((4, 4), cp.int32), 1)) == 16
        assert float(ndi.sum_labels(cp.ones((4, 4), cp.float32))) == 16
    assert [w.category for w in seen] == [PerformanceWarning]


def test_einsum_label_sizes_checked_in_cupys_words(cp):
    _raises(ValueError, "Size of label 'j' for operand 1 (4) does not match previous terms (5).",
            lambda: cp.einsum("ij,jk->ik", cp.ones((4, 5)), cp.ones((4, 5))))
    assert cp.einsum("ij,ij->i", cp.ones((4, 1)), cp.ones((4, 5))).shape == (4,)  # 1 broadcasts
    with pytest.raises(ValueError):  # an ellipsis' dimensions: NumPy's words
        cp.einsum("...i,...i", cp.ones((2, 3)), cp.ones((4, 3)))


def test_compress_and_put_as_cupys_kernels(cp):
    # compress is ``take`` of the condition's nonzero indices (``_ndarray_compress``):
    # a longer condition wraps, as take's indices do
    a = cp.arange(3)
    assert cp.compress([True, False, True, True], a).get().tolist() == [0, 2, 0]
    assert a.compress(cp.array([1, 0, 1])).get().tolist() == [0, 2]
    assert cp.compress(numpy.array([0, 1]), cp.arange(6).reshape(2, 3), axis=1).shape == (2, 1)
    _raises(ValueError, "condition must be a 1-d array", lambda: cp.compress(True, a))
    _raises(ValueError, "condition must be a 1-d array", lambda: cp.compress([[1, 0]], a))
    # put(mode="raise"): CuPy's kernel writes the indices in bounds, then raises
    x = cp.arange(4)
    _raises(IndexError, "invalid entry in indices array",
            lambda: cp.put(x, [1, 9, 2], [10, 20, 30], mode="raise"))
    assert x.get().tolist() == [0, 10, 30, 3]
    _raises(ValueError, "clipmode not understood", lambda: cp.put(x, [0], [1], mode="x"))
    cp.put(x, [99], cp.array([], x.dtype), mode="raise")  # no values: nothing checked


def test_swapaxes_and_transpose_checks_in_cupys_words(cp):
    a = cp.ones((2, 3))
    for call in (lambda: a.swapaxes(0, 5), lambda: cp.swapaxes(a, -3, 0)):
        with pytest.raises(ValueError) as info:  # (no AxisError: CuPy's plain ValueError)
            call()
        assert type(info.value) is ValueError and str(info.value) == "Axis out of range"
    _raises(ValueError, "repeated axis in transpose", lambda: a.transpose(0, 0))
    _raises(ValueError, "repeated axis in transpose", lambda: cp.transpose(a, (1, 1)))
    _raises(ValueError, "axes don't match array", lambda: a.transpose(0, 1, 2))
    with pytest.raises(numpy.exceptions.AxisError):
        a.transpose(0, 2)
    assert a.swapaxes(0, -1).shape == (3, 2) and a.transpose(1, 0).strides == (8, 24)


def test_linalg_arguments_checked_as_cupys(cp):
    import gpushare.cupyx.scipy.linalg as sl
    s = cp.array([[2.0, 1.0], [1.0, 3.0]])
    _raises(ValueError, "UPLO argument must be 'L' or 'U'", lambda: cp.linalg.eigvalsh(s, UPLO="u"))
    _raises(TypeError, "exponent must be an integer",
            lambda: cp.linalg.matrix_power(s, numpy.int64(2)))
    assert cp.linalg.matrix_power(s, 2).get().tolist() == [[5, 5], [5, 10]]
    _raises(ValueError, "The deprecated mode 'full' is not supported",
            lambda: cp.linalg.qr(s, mode="full"))
    # (the GPU: CUB, CuPy's default accelerator, takes the whole-array max of 1-d ``S``)
    _raises(ValueError, "zero-size array to reduction operation CUPY_CUB_MAX which has no "
            "identity", lambda: cp.linalg.matrix_rank(cp.empty((0, 0))))
    assert cp.linalg.matrix_rank(cp.empty((0, 3, 3))).shape == (0,)
    _raises(NotImplementedError, "Only float32, float64, complex64 and complex128 are supported.",
            lambda: sl.lu(cp.eye(2, dtype=int)))
    factors = sl.lu_factor(s)
    _raises(ValueError, "unknown trans", lambda: sl.lu_solve(factors, cp.ones(2), trans=3))
    _raises(ValueError, "incompatible dimensions.", lambda: sl.lu_solve(factors, cp.ones(3)))
    numpy.testing.assert_allclose(sl.lu_solve(factors, cp.ones(2)).get(), [0.4, 0.2])


def test_fft_arguments_as_cupys(cp):
    import warnings
    _raises(ValueError, 'Invalid norm value bad, should be "backward", "ortho", or "forward".',
            lambda: cp.fft.fft(cp.ones(4), norm="bad"))
    _raises(ValueError, 'Invalid norm value bad, should be "backward", "ortho", or "forward".',
            lambda: cp.fft.rfftn(cp.ones((2, 2)), norm="bad"))
    # a complex input to a real transform is cast to real, with NumPy's ComplexWarning
    with pytest.warns(numpy.exceptions.ComplexWarning):
        assert cp.fft.rfft(cp.ones(4, "F")).dtype == cp.complex64
    # fftfreq is CuPy's arange over n * d: any real n, 0 too
    assert cp.fft.fftfreq(0).shape == (0,)
    assert cp.fft.fftfreq(4.0).get().tolist() == [0.0, 0.25, -0.5, -0.25]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cp.fft.rfftfreq(4).get().tolist() == [0.0, 0.25, 0.5]
