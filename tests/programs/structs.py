"""Structs as kernel arguments: CUDA's vector types, a template struct through name
expressions, an aligned struct with nested arrays, after CuPy's examples/custom_struct
(MIT licence).

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import numpy, cupy
code = '''
__device__ double3 operator+(const double3& lhs, const double3& rhs) {
    return make_double3(lhs.x + rhs.x, lhs.y + rhs.y, lhs.z + rhs.z);
}
extern "C" __global__ void sum_kernel(const double3* lhs, double3 rhs, double3* out) {
  int i = threadIdx.x;
  out[i] = lhs[i] + rhs;
}
'''
double3 = numpy.dtype({'names': ['x', 'y', 'z'], 'formats': [numpy.float64] * 3})
N = 8
kernel = cupy.RawKernel(code, 'sum_kernel')
lhs = cupy.random.rand(3 * N, dtype=cupy.float64).reshape(N, 3)
rhs = numpy.random.rand(3).astype(numpy.float64)
out = cupy.empty_like(lhs)
kernel((1,), (N,), (lhs, rhs.view(double3)[0], out))
numpy.testing.assert_allclose(out.get(), lhs.get() + rhs)

# packed matrix: templated struct by name expression
code2 = '''
template<typename T, int N>
struct packed { T data[N]; };
template<typename T, int N>
__global__ void add(const packed<T,N>* a, packed<T,N> b, packed<T,N>* out) {
  int i = threadIdx.x;
  for (int j = 0; j < N; j++) out[i].data[j] = a[i].data[j] + b.data[j];
}
'''
mod = cupy.RawModule(code=code2, options=('-std=c++11',), name_expressions=['add<float,4>', 'add<int,2>'])
k = mod.get_function('add<float,4>')
a = cupy.arange(16, dtype=cupy.float32).reshape(4, 4)
b = numpy.array([1, 2, 3, 4], numpy.float32)
bt = numpy.dtype({'names': ['data'], 'formats': [(numpy.float32, 4)]})
o = cupy.empty_like(a)
k((1,), (4,), (a, b.view(bt)[0], o))
numpy.testing.assert_array_equal(o.get(), a.get() + b)

# complex struct with alignment
code3 = '''
struct complex_struct {
    int4 a;
    char b;
    double c[2];
    short1 d;
    unsigned long long int e[3];
};
extern "C" __global__ void f(complex_struct s, double* out) {
  out[0] = s.a.x + s.a.y + s.a.z + s.a.w;
  out[1] = s.b;
  out[2] = s.c[0] + s.c[1];
  out[3] = s.d.x;
  out[4] = s.e[0] + s.e[1] + s.e[2];
  out[5] = sizeof(complex_struct);
}
'''
def make_packed(basetype, N, itemsize):
    assert 0 < N <= 4, N
    names = list('xyzw')[:N]
    formats = [basetype] * N
    return numpy.dtype(dict(names=names, formats=formats, itemsize=itemsize))
int4 = make_packed(numpy.int32, 4, 16)
short1 = make_packed(numpy.int16, 1, 2)
st = numpy.dtype({'names': ['a', 'b', 'c', 'd', 'e'],
                  'formats': [int4, numpy.int8, (numpy.float64, 2), short1, (numpy.uint64, 3)],
                  'offsets': [0, 16, 24, 40, 48], 'itemsize': 80, 'aligned': True})
val = numpy.empty(1, st)
val['a'] = (1, 2, 3, 4); val['b'] = 5; val['c'] = (1.5, 2.5); val['d'] = (7,); val['e'] = (1, 2, 3)
out = cupy.zeros(6, cupy.float64)
cupy.RawKernel(code3, 'f')((1,), (1,), (val[0], out))

assert out.get().tolist() == [10, 5, 4, 7, 6, 80], out
print("structs OK")
