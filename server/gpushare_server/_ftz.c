/* gpushare_server._ftz: CUDA's single-precision flush-to-zero for the CPU backend
 * (optional: without it nothing is flushed, backends/cpu_ftz.py).
 *
 * CuPy compiles every kernel it builds at run time with ``-ftz=true``
 * (cupy/cuda/compiler.py, _compile_with_cache_cuda): there every float32 instruction
 * (add, mul, fma, div, sqrt, min/max, abs, neg, comparisons, conversions to and from
 * double, the math library's ftz variants) reads a subnormal operand as a zero of its
 * sign and writes a subnormal result as one. Doubles never are.
 *
 * On the CPU the same is the x86 MXCSR's FTZ (bit 15: results) and DAZ (bit 6:
 * operands) bits, aarch64's FPCR.FZ (bit 24: both): NumPy's float32 loops, SIMD or
 * not, obey them. They are per thread, and flush doubles too, so they are set only
 * around a NumPy call whose loop computes in float32 or complex64, and always put back.
 *
 *   call(fn, *args, **kwargs)  fn(*args, **kwargs) with flushing on
 *   flushed(a)                 a float32/complex64 array itself when it holds no
 *                              subnormal, else a C-ordered copy whose subnormals are
 *                              zeros of their sign (the operand a ftz instruction reads;
 *                              NumPy's loops that work on the bits, abs, negative,
 *                              cbrt, log1p..., ignore DAZ)
 *   has_subnormal(a)           whether the float32/complex64 array a holds one
 *   Ufunc(uf, scan, double)    uf as a CuPy kernel runs it (below)
 *   available                  whether this machine's flushing mode is known here
 *
 * ``Ufunc(uf, scan, double)`` calls the NumPy ufunc (or the CPU backend's own function
 * for one) ``uf`` with flushing on when its loop computes in single precision: when its
 * ``out=`` (keyword or positional) is a float32/complex64 array, or, without one, when
 * an operand is such an array (or NumPy scalar) and every other one is of a type NumPy
 * promotes to it (bool, 8- and 16-bit integers, float16; Python scalars are weak), and
 * ``double`` is false (the ufunc has no single-precision loop: float_power). With
 * ``scan`` the float32/complex64 array operands are also ``flushed`` first (for the
 * loops DAZ does not reach). A float32/complex64 operand of a double loop is always
 * flushed (CUDA's cvt.ftz.f64.f32 reads it). ``dtype=`` chooses the loop itself;
 * ``signature=`` and anything else not an array or a Python scalar: the plain call.
 * It has the ufunc's ``nin``, so ``_records.c`` calls it as the ufunc. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <structmember.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
typedef unsigned int fpmode_t;
#define FLUSH_BITS 0x8040u /* FTZ | DAZ */
static inline fpmode_t fp_get(void) { return _mm_getcsr(); }
static inline void fp_set(fpmode_t v) { _mm_setcsr(v); }
#define HAVE_FLUSH 1
#elif defined(__aarch64__)
typedef uint64_t fpmode_t;
#define FLUSH_BITS ((uint64_t)1 << 24) /* FPCR.FZ */
static inline fpmode_t fp_get(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    return v;
}
static inline void fp_set(fpmode_t v) { __asm__ __volatile__("msr fpcr, %0" : : "r"(v)); }
#define HAVE_FLUSH 1
#else
typedef unsigned int fpmode_t;
#define FLUSH_BITS 0u
static inline fpmode_t fp_get(void) { return 0; }
static inline void fp_set(fpmode_t v) { (void)v; }
#define HAVE_FLUSH 0
#endif

static PyObject *
ftz_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "call() needs the function to call");
        return NULL;
    }
    fpmode_t old = fp_get();
    fp_set(old | FLUSH_BITS);
    PyObject *out = PyObject_Vectorcall(args[0], args + 1, (size_t)(nargs - 1), kwnames);
    fp_set(old);
    return out;
}

#define SUBNORMAL(u) (((u) & 0x7f800000u) == 0 && ((u) & 0x007fffffu) != 0)

/* whether n float32 values at p, step bytes apart, hold a subnormal */
static int run_has(const char *p, Py_ssize_t n, Py_ssize_t step)
{
    uint32_t any = 0;
    if (step == 4) {
        const uint32_t *q = (const uint32_t *)p;
        for (Py_ssize_t i = 0; i < n; i++) {
            uint32_t u = q[i];
            any |= (uint32_t)SUBNORMAL(u);
        }
        return any != 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, p + i * step, 4);
        any |= (uint32_t)SUBNORMAL(u);
    }
    return any != 0;
}

/* whether the buffer (float32 items, or complex64 ones as pairs) holds a subnormal */
static int view_has(const Py_buffer *v, int dim, const char *p)
{
    Py_ssize_t parts = v->itemsize / 4;
    if (dim == v->ndim) {  /* (a 0-d array) */
        return run_has(p, parts, 4);
    }
    Py_ssize_t n = v->shape[dim], s = v->strides[dim];
    if (dim == v->ndim - 1) {
        if (parts == 1)
            return run_has(p, n, s);
        if (s == v->itemsize)
            return run_has(p, n * parts, 4);
        return run_has(p, n, s) || run_has(p + 4, n, s);
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (view_has(v, dim + 1, p + i * s))
            return 1;
    return 0;
}

static int has_subnormal_obj(PyObject *a)
{
    Py_buffer v;
    if (PyObject_GetBuffer(a, &v, PyBUF_RECORDS_RO) < 0)
        return -1;
    int found = 0;
    if (v.itemsize != 4 && v.itemsize != 8) {
        PyErr_SetString(PyExc_TypeError, "a float32 or complex64 array is expected");
        found = -1;
    } else if (v.format != NULL && (v.format[0] == '>' || v.format[0] == '!')) {
        found = 0;  /* (another byte order: left as it is) */
    } else if (v.len > 0) {
        found = view_has(&v, 0, (const char *)v.buf);
    }
    PyBuffer_Release(&v);
    return found;
}

static PyObject *ftz_has_subnormal(PyObject *self, PyObject *a)
{
    int found = has_subnormal_obj(a);
    if (found < 0)
        return NULL;
    return PyBool_FromLong(found);
}

static PyObject *s_copy;

static PyObject *ftz_flushed(PyObject *self, PyObject *a)
{
    int found = has_subnormal_obj(a);
    if (found < 0)
        return NULL;
    if (!found)
        return Py_NewRef(a);
    PyObject *copy = PyObject_CallMethodNoArgs(a, s_copy);  /* (C-ordered) */
    if (copy == NULL)
        return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(copy, &v, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(copy);
        return NULL;
    }
    uint32_t *q = (uint32_t *)v.buf;
    Py_ssize_t n = v.len / 4;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t u = q[i];
        if (SUBNORMAL(u))
            q[i] = u & 0x80000000u;
    }
    PyBuffer_Release(&v);
    return copy;
}

static PyObject *np_ndarray, *np_generic, *np_dtype, *dt_f32, *dt_c64;
static PyObject *s_dtype, *s_out, *s_signature, *s_nin;
/* dtypes NumPy promotes to float32 beside it (bool, int8, uint8, int16, uint16, float16) */
static PyObject *dt_small[6];

/* the dtype object of an ndarray (borrowed from a new reference the caller drops) */
static inline PyObject *array_dtype(PyObject *a)
{
    return PyObject_GetAttr(a, s_dtype);
}

static inline int is_single(PyObject *dt) { return dt == dt_f32 || dt == dt_c64; }

static int is_small(PyObject *dt)
{
    for (int k = 0; k < 6; k++)
        if (dt == dt_small[k])
            return 1;
    return 0;
}

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *uf;
    int nin;
    int scan;
    int dbl;
} FtzUfunc;

enum { M_PLAIN = 0, M_SCAN = 1, M_FLUSH = 2 };

/* how to run a call: M_PLAIN, M_SCAN (flush single operands), M_FLUSH (| M_SCAN), or
 * -1 with an error set */
static int decide(FtzUfunc *self, PyObject *const *args, Py_ssize_t nargs,
                  PyObject *kwnames)
{
    PyObject *out = nargs > self->nin ? args[self->nin] : NULL;
    PyObject *dtype_kw = NULL;
    if (kwnames != NULL) {
        Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
        for (Py_ssize_t k = 0; k < nk; k++) {
            PyObject *name = PyTuple_GET_ITEM(kwnames, k);
            PyObject *value = args[nargs + k];
            if (name == s_out || PyUnicode_Compare(name, s_out) == 0) {
                if (PyTuple_Check(value) && PyTuple_GET_SIZE(value) == 1)
                    value = PyTuple_GET_ITEM(value, 0);
                out = value;
            } else if (name == s_dtype || PyUnicode_Compare(name, s_dtype) == 0) {
                dtype_kw = value;
            } else if (name == s_signature || PyUnicode_Compare(name, s_signature) == 0) {
                if (value != Py_None)
                    return M_PLAIN;
            }
        }
    }
    if (out == Py_None)
        out = NULL;
    Py_ssize_t nin = nargs < self->nin ? nargs : self->nin;
    int single = 0, wide = 0;
    for (Py_ssize_t i = 0; i < nin; i++) {
        PyObject *v = args[i];
        PyTypeObject *t = Py_TYPE(v);
        /* an array, or a NumPy scalar (its own type, not weak) */
        if (t == (PyTypeObject *)np_ndarray ||
                PyObject_TypeCheck(v, (PyTypeObject *)np_generic)) {
            PyObject *dt = array_dtype(v);
            if (dt == NULL)
                return -1;
            if (is_single(dt))
                single = 1;
            else if (!is_small(dt))
                wide = 1;
            Py_DECREF(dt);
        } else if (!(t == &PyFloat_Type || t == &PyLong_Type || t == &PyBool_Type ||
                     t == &PyComplex_Type)) {
            wide = 1;  /* (a list...: NumPy's call decides; not flushed) */
        }
    }
    int flush;
    if (dtype_kw != NULL && dtype_kw != Py_None) {
        PyObject *dt = PyObject_CallOneArg(np_dtype, dtype_kw);
        if (dt == NULL) {  /* (NumPy's call says why) */
            PyErr_Clear();
            return M_PLAIN;
        }
        flush = is_single(dt);
        Py_DECREF(dt);
    } else if (out != NULL && Py_TYPE(out) == (PyTypeObject *)np_ndarray) {
        PyObject *dt = array_dtype(out);
        if (dt == NULL)
            return -1;
        flush = is_single(dt);
        Py_DECREF(dt);
    } else {
        flush = single && !wide;
    }
    if (flush && !self->dbl)
        return M_FLUSH | (self->scan && single ? M_SCAN : 0);
    return single ? M_SCAN : M_PLAIN;
}

static PyObject *
FtzUfunc_vectorcall(PyObject *op, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    FtzUfunc *self = (FtzUfunc *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    int mode = decide(self, args, nargs, kwnames);
    if (mode < 0)
        return NULL;
    if (mode == M_PLAIN)
        return PyObject_Vectorcall(self->uf, args, nargsf, kwnames);
    Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject *small[8];
    PyObject **call = (PyObject **)args;
    if (mode & M_SCAN) {
        call = total <= 8 ? small : PyMem_Malloc(total * sizeof(PyObject *));
        if (call == NULL)
            return PyErr_NoMemory();
        Py_ssize_t nin = nargs < self->nin ? nargs : self->nin;
        Py_ssize_t i = 0, failed = 0;
        for (; i < total; i++) {
            PyObject *v = args[i];
            if (i < nin && Py_TYPE(v) == (PyTypeObject *)np_ndarray) {
                PyObject *dt = array_dtype(v);
                int one = dt != NULL && is_single(dt);
                Py_XDECREF(dt);
                v = dt == NULL ? NULL : one ? ftz_flushed(NULL, v) : Py_NewRef(v);
                if (v == NULL) {
                    failed = 1;
                    break;
                }
            } else {
                Py_INCREF(v);
            }
            call[i] = v;
        }
        if (failed) {
            while (i-- > 0)
                Py_DECREF(call[i]);
            if (call != small)
                PyMem_Free(call);
            return NULL;
        }
    }
    PyObject *result;
    if (mode & M_FLUSH) {
        fpmode_t old = fp_get();
        fp_set(old | FLUSH_BITS);
        result = PyObject_Vectorcall(self->uf, call, (size_t)nargs, kwnames);
        fp_set(old);
    } else {
        result = PyObject_Vectorcall(self->uf, call, (size_t)nargs, kwnames);
    }
    if (call != args) {
        for (Py_ssize_t i = 0; i < total; i++)
            Py_DECREF(call[i]);
        if (call != small)
            PyMem_Free(call);
    }
    return result;
}

static PyObject *FtzUfunc_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"uf", "scan", "double", NULL};
    PyObject *uf;
    int scan = 0, dbl = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|pp", kwlist, &uf, &scan, &dbl))
        return NULL;
    PyObject *v = PyObject_GetAttr(uf, s_nin);
    if (v == NULL)
        return NULL;
    long nin = PyLong_AsLong(v);
    Py_DECREF(v);
    if (nin == -1 && PyErr_Occurred())
        return NULL;
    FtzUfunc *self = (FtzUfunc *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = FtzUfunc_vectorcall;
    self->uf = Py_NewRef(uf);
    self->nin = (int)nin;
    self->scan = scan;
    self->dbl = dbl;
    return (PyObject *)self;
}

static int FtzUfunc_traverse(FtzUfunc *self, visitproc visit, void *arg)
{
    Py_VISIT(self->uf);
    return 0;
}

static int FtzUfunc_clear(FtzUfunc *self)
{
    Py_CLEAR(self->uf);
    return 0;
}

static void FtzUfunc_dealloc(FtzUfunc *self)
{
    PyObject_GC_UnTrack(self);
    FtzUfunc_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *FtzUfunc_getattro(PyObject *op, PyObject *name)
{
    PyObject *v = PyObject_GenericGetAttr(op, name);
    if (v != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError))
        return v;
    PyErr_Clear();  /* (the ufunc's own: __name__, reduce, types...) */
    return PyObject_GetAttr(((FtzUfunc *)op)->uf, name);
}

static PyMemberDef FtzUfunc_members[] = {
    {"nin", T_INT, offsetof(FtzUfunc, nin), READONLY, "the ufunc's operands"},
    {"__wrapped__", T_OBJECT, offsetof(FtzUfunc, uf), READONLY, "the ufunc"},
    {"scan", T_INT, offsetof(FtzUfunc, scan), READONLY, "operands flushed first"},
    {NULL}};

static PyTypeObject FtzUfunc_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gpushare_server._ftz.Ufunc",
    .tp_basicsize = sizeof(FtzUfunc),
    .tp_dealloc = (destructor)FtzUfunc_dealloc,
    .tp_vectorcall_offset = offsetof(FtzUfunc, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_getattro = FtzUfunc_getattro,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Ufunc(uf, scan=False, double=False): uf as CuPy's -ftz=true kernel runs it",
    .tp_traverse = (traverseproc)FtzUfunc_traverse,
    .tp_clear = (inquiry)FtzUfunc_clear,
    .tp_members = FtzUfunc_members,
    .tp_new = FtzUfunc_new,
};

static PyMethodDef methods[] = {
    {"call", (PyCFunction)(void (*)(void))ftz_call, METH_FASTCALL | METH_KEYWORDS,
     "call(fn, *args, **kwargs): fn's call with float32 flushing to zero (FTZ, DAZ)"},
    {"flushed", ftz_flushed, METH_O,
     "flushed(a): a, or a copy whose float32 subnormals are zeros of their sign"},
    {"has_subnormal", ftz_has_subnormal, METH_O,
     "has_subnormal(a): whether the float32/complex64 array a holds a subnormal"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "gpushare_server._ftz",
    "CUDA's float32 flush-to-zero (-ftz=true) around NumPy calls", -1, methods};

PyMODINIT_FUNC PyInit__ftz(void)
{
    if ((s_copy = PyUnicode_InternFromString("copy")) == NULL ||
            (s_dtype = PyUnicode_InternFromString("dtype")) == NULL ||
            (s_out = PyUnicode_InternFromString("out")) == NULL ||
            (s_signature = PyUnicode_InternFromString("signature")) == NULL ||
            (s_nin = PyUnicode_InternFromString("nin")) == NULL)
        return NULL;
    PyObject *numpy = PyImport_ImportModule("numpy");
    if (numpy == NULL)
        return NULL;
    static const char *small[6] = {"bool", "int8", "uint8", "int16", "uint16", "float16"};
    PyObject *dtype = PyObject_GetAttrString(numpy, "dtype");
    np_ndarray = PyObject_GetAttrString(numpy, "ndarray");
    np_generic = PyObject_GetAttrString(numpy, "generic");
    Py_DECREF(numpy);
    if (dtype == NULL || np_ndarray == NULL || np_generic == NULL)
        return NULL;
    dt_f32 = PyObject_CallFunction(dtype, "s", "float32");
    dt_c64 = PyObject_CallFunction(dtype, "s", "complex64");
    for (int k = 0; k < 6 && dt_c64 != NULL; k++)
        if ((dt_small[k] = PyObject_CallFunction(dtype, "s", small[k])) == NULL)
            dt_c64 = NULL;
    np_dtype = dtype;  /* (kept) */
    if (dt_f32 == NULL || dt_c64 == NULL)
        return NULL;
    if (PyType_Ready(&FtzUfunc_Type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "available", HAVE_FLUSH) < 0 ||
            PyModule_AddObjectRef(m, "Ufunc", (PyObject *)&FtzUfunc_Type) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
