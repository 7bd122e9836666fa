/* gpushare_server._records: a run of operators' records in C (optional; pure Python
 * otherwise).
 *
 * The worker's hottest loop is a chain such as the client's ``x = x + 1.0`` in a loop:
 * one operator's record after another (``[seq, kinds, target, a, b, out_id]``, see
 * client.Session.fast_op), each taking the last one's result, which the client
 * releases right after. ``SessionExecutor._batch`` (session.py) carries such a result
 * instead of storing it, and computes the next call into it (``Backend.inplace``).
 * ``Runner.run`` does the same for as many records in a row as it can: it reads them
 * straight from the batch's msgpack stream, makes the releases due before each, and
 * calls the NumPy ufunc itself, on the operand the backend's ``into.operand`` made
 * (and which it keeps while the record's scalar and dtype stay the same).
 *
 * It stops at the first record it does not take, before touching anything for it,
 * and session.py's loop goes on from there (and decides everything again). So this
 * file holds no rule of its own: what it runs, and how, is what the Python loop runs
 * (tests/test_records.py runs the same batches both ways).
 *
 * It takes a record when:
 *   - it is an array of 6 plain values, well formed (else session.py says why not);
 *   - it is a unary (kinds 4) or a handle-and-scalar (kinds 1, 2) call whose handle is
 *     the carried result;
 *   - its own result is released right after the next call (so it is carried too);
 *   - the backend computes its target into the carried array
 *     (``Backend.inplace(target)``, whose ``operand`` says whether the result keeps
 *     the array's dtype, and what the scalar is as the ufunc takes it).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

/* --- msgpack, the few formats a record's values take ------------------------------ */
enum { V_NIL, V_FALSE, V_TRUE, V_INT, V_FLOAT, V_STR, V_OTHER };

typedef struct {
    int type;
    int64_t i;
    double d;
    const char *s;
    Py_ssize_t n;
} Val;

static uint64_t be(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int k = 0; k < n; k++)
        v = (v << 8) | p[k];
    return v;
}

/* Parse one value at p (avail bytes): its length, or 0 for a value of another kind
 * (or cut short), which the caller leaves to msgpack. */
static Py_ssize_t parse(const unsigned char *p, Py_ssize_t avail, Val *v)
{
    if (avail < 1)
        return 0;
    unsigned char c = p[0];
    if (c <= 0x7f) {
        v->type = V_INT; v->i = c; return 1;
    }
    if (c >= 0xe0) {
        v->type = V_INT; v->i = (int8_t)c; return 1;
    }
    if (c >= 0xa0 && c <= 0xbf) {
        Py_ssize_t n = c & 0x1f;
        if (avail < 1 + n) return 0;
        v->type = V_STR; v->s = (const char *)p + 1; v->n = n; return 1 + n;
    }
    static const signed char size[] = {
        /* c0 */ 1, 0, 1, 1, 0, 0, 0, 0, 0, 0,
        /* ca */ 5, 9, 2, 3, 5, 9, 2, 3, 5, 9,
        /* d4 */ 0, 0, 0, 0, 0, 2, 3, 5,
    };
    if (c < 0xc0 || c > 0xdb || size[c - 0xc0] == 0)
        return 0;
    Py_ssize_t head = size[c - 0xc0];
    if (avail < head)
        return 0;
    uint64_t u = be(p + 1, (int)head - 1);
    switch (c) {
    case 0xc0: v->type = V_NIL; return 1;
    case 0xc2: v->type = V_FALSE; return 1;
    case 0xc3: v->type = V_TRUE; return 1;
    case 0xca: { uint32_t w = (uint32_t)u; float f; memcpy(&f, &w, 4);
                 v->type = V_FLOAT; v->d = f; return head; }
    case 0xcb: { double d; memcpy(&d, &u, 8); v->type = V_FLOAT; v->d = d; return head; }
    case 0xcc: case 0xcd: case 0xce:
        v->type = V_INT; v->i = (int64_t)u; return head;
    case 0xcf:
        if (u > (uint64_t)INT64_MAX) return 0;
        v->type = V_INT; v->i = (int64_t)u; return head;
    case 0xd0: v->type = V_INT; v->i = (int8_t)u; return head;
    case 0xd1: v->type = V_INT; v->i = (int16_t)u; return head;
    case 0xd2: v->type = V_INT; v->i = (int32_t)u; return head;
    case 0xd3: v->type = V_INT; v->i = (int64_t)u; return head;
    default: {  /* d9 da db: str 8, 16, 32 */
        Py_ssize_t n = (Py_ssize_t)u;
        if (n < 0 || avail - head < n) return 0;
        v->type = V_STR; v->s = (const char *)p + head; v->n = n; return head + n;
    }
    }
}

/* --- the targets seen: name -> the ufunc and its operand maker --------------------- */
#define MAX_TARGETS 64

typedef struct {
    char *name;
    Py_ssize_t n;
    PyObject *uf;       /* the NumPy ufunc; NULL: not computed here */
    PyObject *operand;  /* into.operand(r, value, first) */
    int nin;
    /* the operand last made, for: */
    PyObject *dtype;    /* r's dtype */
    int tag;            /* the value's type (V_FALSE, V_TRUE, V_INT, V_FLOAT; V_NIL unary) */
    int first;          /* whether r is the first operand */
    uint64_t bits;      /* its bits */
    PyObject *made;     /* what the ufunc takes (NULL: the result does not keep r's dtype) */
    int valid;
} Target;

typedef struct {
    PyObject_HEAD
    PyObject *lookup;   /* Backend.inplace */
    Target targets[MAX_TARGETS];
    int count;
    int last;           /* the target last used */
} Runner;

static PyObject *s_ufunc, *s_operand, *s_nin, *s_dtype;
/* ("out",): the keyword names of a ufunc call writing into its carried array */
static PyObject *k_out;

static void clear_target(Target *t)
{
    PyMem_Free(t->name);
    t->name = NULL;
    Py_CLEAR(t->uf);
    Py_CLEAR(t->operand);
    Py_CLEAR(t->dtype);
    Py_CLEAR(t->made);
    t->valid = 0;
}

static void clear_targets(Runner *self)
{
    for (int k = 0; k < self->count; k++)
        clear_target(&self->targets[k]);
    self->count = 0;
    self->last = 0;
}

/* The target named by (s, n); NULL with an error set, or NULL and none set when the
 * name is no text (session.py says so). */
static Target *target(Runner *self, const char *s, Py_ssize_t n)
{
    if (self->count) {
        Target *t = &self->targets[self->last];
        if (t->n == n && memcmp(t->name, s, n) == 0)
            return t;
        for (int k = 0; k < self->count; k++) {
            t = &self->targets[k];
            if (t->n == n && memcmp(t->name, s, n) == 0) {
                self->last = k;
                return t;
            }
        }
    }
    PyObject *name = PyUnicode_DecodeUTF8(s, n, "strict");
    if (name == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *into = PyObject_CallOneArg(self->lookup, name);
    Py_DECREF(name);
    if (into == NULL)
        return NULL;
    PyObject *uf = NULL, *operand = NULL;
    long nin = 0;
    if (into != Py_None) {
        uf = PyObject_GetAttr(into, s_ufunc);
        operand = uf ? PyObject_GetAttr(into, s_operand) : NULL;
        PyObject *v = operand ? PyObject_GetAttr(uf, s_nin) : NULL;
        nin = v ? PyLong_AsLong(v) : -1;
        Py_XDECREF(v);
        if (nin == -1 && PyErr_Occurred()) {  /* not an into this file knows */
            PyErr_Clear();
            Py_CLEAR(uf);
            Py_CLEAR(operand);
        }
    }
    Py_DECREF(into);
    if (self->count == MAX_TARGETS)
        clear_targets(self);
    Target *t = &self->targets[self->count];
    t->name = PyMem_Malloc(n ? n : 1);
    if (t->name == NULL) {
        Py_XDECREF(uf);
        Py_XDECREF(operand);
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(t->name, s, n);
    t->n = n;
    t->uf = uf;
    t->operand = operand;
    t->nin = (int)nin;
    t->dtype = NULL;
    t->made = NULL;
    t->valid = 0;
    self->last = self->count++;
    return t;
}

/* What the ufunc takes beside r for the value v (r first or not): a new reference;
 * Py_None (new) when the result would not keep r's dtype; NULL with an error set. */
static PyObject *operand(Target *t, PyObject *r, PyObject *dtype, Val *v, int first)
{
    uint64_t bits = 0;
    if (v->type == V_FLOAT)
        memcpy(&bits, &v->d, 8);
    else if (v->type == V_INT)
        bits = (uint64_t)v->i;
    if (t->valid && t->dtype == dtype && t->tag == v->type && t->first == first &&
            t->bits == bits) {
        PyObject *made = t->made ? t->made : Py_None;
        Py_INCREF(made);
        return made;
    }
    PyObject *value;
    switch (v->type) {
    case V_NIL: value = Py_NewRef(Py_None); break;
    case V_FALSE: value = Py_NewRef(Py_False); break;
    case V_TRUE: value = Py_NewRef(Py_True); break;
    case V_INT: value = PyLong_FromLongLong(v->i); break;
    default: value = PyFloat_FromDouble(v->d); break;
    }
    if (value == NULL)
        return NULL;
    PyObject *made = PyObject_CallFunctionObjArgs(t->operand, r, value,
                                                  first ? Py_True : Py_False, NULL);
    Py_DECREF(value);
    if (made == NULL)
        return NULL;
    t->valid = 0;
    Py_XSETREF(t->dtype, Py_NewRef(dtype));
    Py_XSETREF(t->made, made == Py_None ? NULL : Py_NewRef(made));
    t->tag = v->type;
    t->first = first;
    t->bits = bits;
    t->valid = 1;
    return made;
}

static int Runner_init(Runner *self, PyObject *args, PyObject *kwds)
{
    PyObject *lookup;
    static char *kwlist[] = {"lookup", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Runner", kwlist, &lookup))
        return -1;
    Py_XSETREF(self->lookup, Py_NewRef(lookup));
    clear_targets(self);
    return 0;
}

static int Runner_traverse(Runner *self, visitproc visit, void *arg)
{
    Py_VISIT(self->lookup);
    for (int k = 0; k < self->count; k++) {
        Py_VISIT(self->targets[k].uf);
        Py_VISIT(self->targets[k].operand);
        Py_VISIT(self->targets[k].dtype);
        Py_VISIT(self->targets[k].made);
    }
    return 0;
}

static int Runner_clear(Runner *self)
{
    Py_CLEAR(self->lookup);
    clear_targets(self);
    return 0;
}

static void Runner_dealloc(Runner *self)
{
    PyObject_GC_UnTrack(self);
    Runner_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The exception set, normalized, with its traceback (a new reference). */
static PyObject *fetch(void)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL && value != NULL)
        PyException_SetTraceback(value, tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value != NULL ? value : Py_NewRef(Py_None);
}

/* An int as a long long, clamped (a client may send any int: it then equals no
 * handle id the records name, and lies beyond, or before, every position). */
static int clamped(PyObject *v, long long *out)
{
    int overflow;
    *out = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (*out == -1 && PyErr_Occurred())
        return -1;
    if (overflow)
        *out = overflow > 0 ? LLONG_MAX : LLONG_MIN;
    return overflow != 0;
}

/* The release list's item k: (position, handle id), both ints (session.py made it). */
static int release_at(PyObject *releases, Py_ssize_t k, long long *pos, PyObject **hid)
{
    PyObject *item = PyList_GET_ITEM(releases, k);
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
        PyErr_SetString(PyExc_TypeError, "a release is not a (position, id) pair");
        return -1;
    }
    if (clamped(PyTuple_GET_ITEM(item, 0), pos) < 0)
        return -1;
    *hid = PyTuple_GET_ITEM(item, 1);
    return 0;
}

PyDoc_STRVAR(run_doc,
"run(data, pos, index, releases, next_release, dies, objects, release, cid, r,\n"
"    after_call)\n"
"\n"
"Run the records of ``data`` (a batch's stream of calls) from byte ``pos`` on, the\n"
"first being call ``index`` of the batch, while the result carried, ``r`` under id\n"
"``cid``, is their operand (see the top of _records.c). ``releases`` is the batch's\n"
"sorted list of (position, id), of which ``next_release`` is the next due, and\n"
"``dies`` maps an id to its first release's position (session.py made both);\n"
"``objects`` the handle table and ``release`` its release method; ``after_call``\n"
"None or called as after_call(out_id, r) after each call.\n"
"\n"
"Returns (pos, index, next_release, cid, count, seq, error): where the next record\n"
"starts, its index, the next release due, the id ``r`` now has, how many calls ran,\n"
"the last one's seq (None for none), and the exception the last one raised (None\n"
"if none did: ``r`` is then carried under ``cid``; else it is lost).");

static PyObject *Runner_run(Runner *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "run() takes 11 arguments");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *result = NULL, *dtype = NULL, *error = Py_None, *last_seq = NULL;
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
    long long index = PyLong_AsLongLong(args[2]);
    PyObject *releases = args[3];
    Py_ssize_t next_release = PyLong_AsSsize_t(args[4]);
    PyObject *dies = args[5], *objects = args[6], *release = args[7];
    long long cid;
    int odd = clamped(args[8], &cid);  /* (an id out of int64's range: no record names it) */
    PyObject *r = args[9], *after_call = args[10];
    Py_ssize_t count = 0;
    if (PyErr_Occurred())
        goto done;
    if (!PyList_Check(releases) || !PyDict_Check(dies) || !PyDict_Check(objects)) {
        PyErr_SetString(PyExc_TypeError,
                        "run(): releases must be a list, dies and objects dicts");
        goto done;
    }
    if (pos < 0 || pos > view.len || next_release < 0) {
        PyErr_SetString(PyExc_ValueError, "run(): position out of range");
        goto done;
    }
    dtype = PyObject_GetAttr(r, s_dtype);
    if (dtype == NULL)
        goto done;
    const unsigned char *data = view.buf;
    while (!odd) {
        /* the record: [seq, kinds, target, a, b, out_id] of plain values */
        Py_ssize_t at = pos, len;
        Val f[6];
        if (at >= view.len || data[at] != 0x96)
            break;
        at++;
        int k;
        for (k = 0; k < 6; k++) {
            len = parse(data + at, view.len - at, &f[k]);
            if (len == 0)
                break;
            at += len;
        }
        if (k < 6 || f[0].type != V_INT || f[1].type != V_INT || f[2].type != V_STR ||
                f[5].type != V_INT)
            break;
        long long kinds = f[1].i, out_id = f[5].i;
        int first;
        Val *value;
        if (kinds == 1 && f[3].type == V_INT && f[3].i == cid) {
            first = 1;
            value = &f[4];
        } else if (kinds == 2 && f[4].type == V_INT && f[4].i == cid) {
            first = 0;
            value = &f[3];
        } else if (kinds == 4 && f[3].type == V_INT && f[3].i == cid &&
                   f[4].type == V_NIL) {
            first = 1;
            value = &f[4];
        } else {
            break;
        }
        if (kinds != 4 && value->type != V_INT && value->type != V_FLOAT &&
                value->type != V_TRUE && value->type != V_FALSE)
            break;
        /* its result is carried too: released right after the next call (its first
         * release, as session.py's ``dies`` says) */
        PyObject *key = PyLong_FromLongLong(out_id);
        if (key == NULL)
            goto done;
        PyObject *due = PyDict_GetItemWithError(dies, key);  /* (borrowed) */
        Py_DECREF(key);
        long long at_pos;
        if (due == NULL) {
            if (PyErr_Occurred())
                goto done;
            break;
        }
        int far = clamped(due, &at_pos);
        if (far < 0)
            goto done;
        if (far || at_pos != index + 2)
            break;
        Py_ssize_t nrel = PyList_GET_SIZE(releases);
        /* From here on, an exception is this call's error, as in session.py (where
         * the releases due before a call are made before it runs) */
        PyObject *made = NULL;
        Target *t = target(self, f[2].s, f[2].n);
        if (t != NULL) {
            if (t->uf == NULL || t->nin != (kinds == 4 ? 1 : 2))
                break;
            made = operand(t, r, dtype, value, first);
            if (made == Py_None) {
                Py_DECREF(made);
                break;
            }
        } else if (!PyErr_Occurred()) {
            break;  /* no text: session.py says so */
        }
        /* taken: the releases due before it, then the call */
        PyObject *exc = made == NULL ? fetch() : NULL;
        while (next_release < nrel) {
            long long rpos;
            PyObject *hid;
            if (release_at(releases, next_release, &rpos, &hid) < 0)
                goto fail;
            if (rpos > index)
                break;
            int has = PyDict_Contains(objects, hid);
            if (has > 0) {  /* (a carried array never was) */
                PyObject *out = PyObject_CallOneArg(release, hid);
                if (out == NULL)
                    goto fail;
                Py_DECREF(out);
            } else if (has < 0) {
                goto fail;
            }
            next_release++;
        }
        pos = at;
        index++;
        count++;
        Py_XSETREF(last_seq, PyLong_FromLongLong(f[0].i));
        if (last_seq == NULL)
            goto fail;
        if (exc != NULL) {
            error = exc;
            break;
        }
        /* the result into r, given as out= (NumPy deprecates a positional output for
           maximum and minimum) */
        PyObject *call[3];
        size_t n;
        if (kinds == 4) {
            call[0] = r; call[1] = r; n = 1;
        } else if (first) {
            call[0] = r; call[1] = made; call[2] = r; n = 2;
        } else {
            call[0] = made; call[1] = r; call[2] = r; n = 2;
        }
        PyObject *out = PyObject_Vectorcall(t->uf, call, n, k_out);
        Py_CLEAR(made);
        if (out != NULL) {
            Py_DECREF(out);
            cid = out_id;
            if (after_call != Py_None) {
                PyObject *hid = PyLong_FromLongLong(out_id);
                out = hid ? PyObject_CallFunctionObjArgs(after_call, hid, r, NULL) : NULL;
                Py_XDECREF(hid);
                Py_XDECREF(out);
            }
        }
        if (out == NULL) {  /* the call failed: its error goes back */
            error = fetch();
            break;
        }
        continue;
    fail:  /* (taken, then an error before its call ran) */
        Py_XDECREF(made);
        Py_XDECREF(exc);
        goto done;
    }
    result = Py_BuildValue("nLnLnOO", pos, index, next_release, cid, count,
                           last_seq ? last_seq : Py_None, error);
done:
    if (error != Py_None)
        Py_DECREF(error);
    Py_XDECREF(last_seq);
    Py_XDECREF(dtype);
    PyBuffer_Release(&view);
    return result;
}

static PyMethodDef Runner_methods[] = {
    {"run", (PyCFunction)(void (*)(void))Runner_run, METH_FASTCALL, run_doc},
    {NULL},
};

static PyTypeObject RunnerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gpushare_server._records.Runner",
    .tp_basicsize = sizeof(Runner),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Runner(lookup): runs records for one executor; ``lookup`` is its "
              "backend's ``inplace``.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Runner_init,
    .tp_traverse = (traverseproc)Runner_traverse,
    .tp_clear = (inquiry)Runner_clear,
    .tp_dealloc = (destructor)Runner_dealloc,
    .tp_methods = Runner_methods,
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "gpushare_server._records",
    "A run of operators' records in C (see the top of _records.c).", -1, NULL,
};

PyMODINIT_FUNC PyInit__records(void)
{
    if ((s_ufunc = PyUnicode_InternFromString("ufunc")) == NULL ||
            (s_operand = PyUnicode_InternFromString("operand")) == NULL ||
            (s_nin = PyUnicode_InternFromString("nin")) == NULL ||
            (s_dtype = PyUnicode_InternFromString("dtype")) == NULL ||
            (k_out = Py_BuildValue("(s)", "out")) == NULL)
        return NULL;
    if (PyType_Ready(&RunnerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "Runner", (PyObject *)&RunnerType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
