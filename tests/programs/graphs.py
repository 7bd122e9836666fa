"""CUDA graphs (stream capture, launches on other streams), raw memory calls of the
runtime, and MemoryPointer copies.

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy
import cupy

a = cupy.arange(10, dtype=cupy.float32)
s = cupy.cuda.Stream(non_blocking=True)
with s:
    s.begin_capture()
    b = a * 2
    c = b + 1
    g = s.end_capture()
a[...] = cupy.arange(10, 20, dtype=cupy.float32)
g.launch(stream=s)
s.synchronize()
assert c.tolist() == [2.0 * v + 1 for v in range(10, 20)]

h = numpy.arange(10, dtype=numpy.float32)
d = cupy.empty(10, dtype=cupy.float32)
d.data.copy_from_host(h.ctypes.data, h.nbytes)
out = numpy.empty_like(h)
d.data.copy_to_host(out.ctypes.data, out.nbytes)
assert (out == h).all()
e = cupy.empty_like(d)
e.data.copy_from_device(d.data, d.nbytes)
rt = cupy.cuda.runtime
rt.memcpy(e.data.ptr, d.data.ptr + 4, 4 * 9, rt.memcpyDeviceToDevice)
assert e.tolist() == list(range(1, 10)) + [9.0]
ptr = rt.malloc(40)
rt.memset(ptr, 0, 40)
rt.memcpy(out.ctypes.data, ptr, 40, rt.memcpyDefault)
assert not out.any()
rt.free(ptr)
print("graphs OK")
