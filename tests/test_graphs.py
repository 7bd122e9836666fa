"""CUDA graphs: ``Stream.begin_capture``/``end_capture`` and ``Graph.launch``, through a
real server (the CPU backend emulates capture: ``backends/cpu_graph.py``)."""
import numpy
import pytest

pytestmark = pytest.mark.timeout(120)


def test_a_launch_runs_the_captured_work_again_on_the_current_inputs(cp):
    a = cp.arange(4, dtype=cp.float32)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        assert s.is_capturing()
        b = a * 2
        c = b + 1
        c += cp.sqrt(a)          # an in-place operator
        c[0] = -1                # an assignment
        g = s.end_capture()
    assert isinstance(g, cp.cuda.Graph) and not s.is_capturing()
    a[...] = cp.asarray([4, 9, 16, 25], dtype=cp.float32)  # after the capture
    g.launch(stream=s)
    s.synchronize()
    assert c.tolist() == [-1.0, 22.0, 37.0, 56.0]
    assert b.tolist() == [8.0, 18.0, 32.0, 50.0]
    a += 1
    other = cp.cuda.Stream()
    with other:
        g.upload()
        g.launch()               # on the current stream
    other.synchronize()
    want = (numpy.array([5, 10, 17, 26], numpy.float32) * 2 + 1 +
            numpy.sqrt(numpy.array([5, 10, 17, 26], numpy.float32)))
    numpy.testing.assert_allclose(c.get()[1:], want[1:], rtol=1e-6)
    assert float(c[0]) == -1.0


def test_a_capture_leaves_older_memory_alone_until_the_launch(cp):
    """CUDA runs nothing while it captures: an in-place update of an array made before
    the capture changes it at each launch only (a kernel's writes too)."""
    x = cp.zeros(3, dtype=cp.float32)
    k = cp.RawKernel(r'''extern "C" __global__ void bump(float* v) { v[threadIdx.x] += 10; }''',
                     "bump")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        x += 1
        k((1,), (3,), (x,))
        y = x * 2
        g = s.end_capture()
    assert x.get().tolist() == [0, 0, 0]
    g.launch(s)
    s.synchronize()
    assert x.get().tolist() == [11, 11, 11] and y.get().tolist() == [22, 22, 22]
    g.launch(s)
    s.synchronize()
    assert x.get().tolist() == [22, 22, 22] and y.get().tolist() == [44, 44, 44]


def test_kernels_and_reductions_are_captured(cp):
    x = cp.ones((3, 4), dtype=cp.float64)
    square = cp.ElementwiseKernel("T x", "T y", "y = x * x", "gs_square")
    total = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "gs_total")
    add_one = cp.RawKernel(r'''
    extern "C" __global__ void add_one(double* x, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] += 1.0;
    }''', "add_one")
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        add_one((1,), (16,), (x, cp.int32(x.size)))
        y = square(x)
        t = total(y, axis=1)
        g = s.end_capture()
    x[...] = 1  # (what a capture leaves before the first launch is undefined)
    for launch in range(1, 4):
        g.launch(stream=s)
        s.synchronize()
        assert x.tolist() == [[1.0 + launch] * 4] * 3  # one more at each launch
        assert t.tolist() == [4 * (1.0 + launch) ** 2] * 3


def test_forked_streams_join_the_capture(cp):
    a = cp.arange(5, dtype=cp.float64)
    s1, s2 = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
    e1, e2 = cp.cuda.Event(), cp.cuda.Event()
    with s1:
        s1.begin_capture()
        out1 = a * 100
        e1.record(s1)
        s2.wait_event(e1)       # s2 forks from the capture
        assert s2.is_capturing()
        with s2:
            out2 = 3 * out1 + 1
            e2.record(s2)
        s1.wait_event(e2)       # and joins back
        g = s1.end_capture()
    assert not s1.is_capturing() and not s2.is_capturing()
    a[...] = 1
    g.launch(stream=s1)
    s1.synchronize()
    assert out2.tolist() == [301.0] * 5


def test_what_a_capture_refuses_raises_cudas_and_cupys_errors(cp):
    a = cp.arange(6, dtype=cp.float64)
    idx = cp.asarray([0, 1])
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        with pytest.raises(RuntimeError, match="is capturing, so D2H transfers"):
            a.get()              # raised at its own call: a capture's calls all wait
        with pytest.raises(RuntimeError, match="is capturing"):
            bool(a.sum() > 0)
        with pytest.raises(RuntimeError, match="is capturing, so H2D transfers"):
            cp.asarray(numpy.ones(3))
        with pytest.raises(NotImplementedError, match="cuBLAS"):
            cp.matmul(a.reshape(2, 3), a.reshape(3, 2))
        with pytest.raises(NotImplementedError, match="cuRAND"):
            cp.random.random(10)
        with pytest.raises(NotImplementedError, match="cuSOLVER"):
            cp.linalg.inv(cp.eye(2))
        with pytest.raises(RuntimeError, match="is capturing"):
            cp.nonzero(a)
        with pytest.raises(RuntimeError, match="is capturing, so H2D transfers"):
            a[idx] = numpy.arange(2.0)  # (core.array(value): a transfer)
        # CuPy refuses a host array for basic indices (``y.fill(value)``), capturing or
        # not (the GPU's answer); a 0-d one fills, no transfer
        with pytest.raises(ValueError, match="non-scalar numpy.ndarray cannot be used for "
                                             "fill"):
            a[:3] = numpy.arange(3.0)
        b = a + 1                 # CuPy's refusals leave the capture valid
        g = s.end_capture()
    g.launch(stream=s)
    assert b.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]

    with s:
        s.begin_capture()
        with pytest.raises(cp.cuda.runtime.CUDARuntimeError,
                           match="cudaErrorStreamCaptureUnsupported"):
            s.synchronize()
        with pytest.raises(cp.cuda.runtime.CUDARuntimeError,
                           match="cudaErrorStreamCaptureInvalidated"):
            s.end_capture()
    assert not s.is_capturing()
    s.synchronize()
    with pytest.raises(cp.cuda.runtime.CUDARuntimeError, match="cudaErrorIllegalState"):
        s.end_capture()

    s2 = cp.cuda.Stream(non_blocking=True)
    e = cp.cuda.Event()
    with s:
        s.begin_capture()
        e.record(s)
        s2.wait_event(e)
        with pytest.raises(cp.cuda.runtime.CUDARuntimeError,
                           match="cudaErrorStreamCaptureUnmatched"):
            s2.end_capture()
        with pytest.raises(cp.cuda.runtime.CUDARuntimeError,
                           match="cudaErrorStreamCaptureInvalidated"):
            s.end_capture()
    with s:
        s.begin_capture()
        e.record(s)
        s2.wait_event(e)
        with s2:
            a * 2
        with pytest.raises(cp.cuda.runtime.CUDARuntimeError,
                           match="cudaErrorStreamCaptureUnjoined"):
            s.end_capture()
    assert not s.is_capturing() and not s2.is_capturing()
    with pytest.raises(RuntimeError, match=r"default \(legacy\) stream"):
        cp.cuda.Stream.null.begin_capture()
    with pytest.raises(NotImplementedError, match="stream capture"):
        cp.cuda.Graph()


def test_a_capture_waits_for_each_call_and_pipelining_comes_back(cp):
    from gpushare import client
    session = client.get_session()
    assert session.sync is False
    s = cp.cuda.Stream(non_blocking=True)
    a = cp.zeros(3)
    with s:
        s.begin_capture()
        assert session.sync is True
        a += 1
        g = s.end_capture()
    assert session.sync is False  # the operators' fast path is back
    a[...] = 0
    for _ in range(3):
        g.launch(stream=s)
    assert a.tolist() == [3.0, 3.0, 3.0]


def test_host_functions_run_at_each_launch(cp):
    count = {"n": 0}

    def callback(arg):
        count["n"] += arg["delta"]

    s = cp.cuda.Stream(non_blocking=True)
    with s:
        s.begin_capture()
        s.launch_host_func(callback, {"delta": 2})
        g = s.end_capture()
    assert count["n"] == 0
    g.launch()
    assert count["n"] == 2
    g.launch(stream=s)
    assert count["n"] == 4
    assert g.debug_dot_str().startswith("digraph")
