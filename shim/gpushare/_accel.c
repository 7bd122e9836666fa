/* gpushare._accel: the client's operators in C (optional; pure Python otherwise).
 *
 * The same work as the pure-Python fast path, done without a Python frame:
 *   - ufunc._fast1 / _fast2 / _fast_into (cupy/_ufunc.py): decide from the operands'
 *     kinds whether an elementwise call may be queued blind, the result's dtype coming
 *     from the ufunc's own cache (``ufunc._fast``, filled by ``ufunc._fast_entry``);
 *   - Session.fast_op (client.py): queue the call as an operator's record, packed here
 *     straight to msgpack (``[seq, kinds, target, a, b, out_id]``);
 *   - _ufunc._made: the result's proxy;
 *   - Session.release (through ndarray.__del__): the proxy's release.
 * Every case this file does not take (another thread holds the session's lock, a
 * broadcast it has not seen, a failed call about...) returns to the Python code,
 * which decides everything again. So this file holds no rule of its own: what is
 * queued, and when, is what the Python path queues (tests/test_accel.py runs the
 * same programs both ways).
 *
 * Allocation of objects the garbage collector tracks (tuples, proxies, weak
 * references, frame objects) may run finalizers, which touch the session's queue;
 * so they are all made before the session's lock is taken and its state read.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "structmember.h"
#include <string.h>

#if PY_VERSION_HEX < 0x030B0000
#error "gpushare._accel needs Python 3.11 or newer (the pure-Python path serves older ones)"
#endif

/* --- set up once by gpushare.cupy._ndarray (setup) -------------------------------- */
static int ready = 0;
static PyTypeObject *Array;        /* gpushare.cupy.ndarray */
static PyTypeObject *SessionType;  /* gpushare.client.Session */
static Py_ssize_t off_id, off_session, off_shape, off_dtype, off_strides, off_flags,
    off_base, off_meta_ok;
static PyObject *g_ours;       /* client._OURS: file name -> whether it is gpushare's */
static PyObject *g_where;      /* client._where(frame) */
static PyObject *g_c_layout;   /* _ufunc._c_layout(shape, itemsize) */
static PyObject *g_broadcast;  /* _ufunc._broadcast(shape, shape) */
static PyObject *g_same_kind;  /* _ufunc._same_kind(dtype, dtype) */
static Py_ssize_t g_batch_calls;

static PyObject *s_closed, *s_lost, *s_sync, *s_poisoned, *s_next_id, *s_seq, *s_queue,
    *s_queue_info, *s_queued, *s_release, *s_lock, *s_proxies, *s_refs, *s_flush_locked,
    *s_flush_releases, *s_is_set, *s_set, *s_acquire, *s_release_m, *s_fast,
    *s_path, *s_fast_entry;

#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

static void set_slot(PyObject *obj, Py_ssize_t off, PyObject *value)
{
    PyObject *old = SLOT(obj, off);
    Py_XINCREF(value);
    SLOT(obj, off) = value;
    Py_XDECREF(old);
}

/* --- the session last used: its __dict__, lock and proxy table ------------------- */
static PyObject *c_session, *c_dict, *c_acquire, *c_unlock, *c_refs;

static void unbind(void)
{
    Py_CLEAR(c_session);
    Py_CLEAR(c_dict);
    Py_CLEAR(c_acquire);
    Py_CLEAR(c_unlock);
    Py_CLEAR(c_refs);
}

/* 1 when ``session`` is a Session whose parts are now in c_*; 0 when it is not one
 * (the caller takes the Python path); -1 with an error set. */
static int bind(PyObject *session)
{
    if (session == c_session)
        return 1;
    if (!PyObject_TypeCheck(session, SessionType))
        return 0;
    PyObject *dict = PyObject_GenericGetDict(session, NULL);
    if (dict == NULL)
        return -1;
    PyObject *lock = PyDict_GetItemWithError(dict, s_lock);
    PyObject *proxies = lock ? PyDict_GetItemWithError(dict, s_proxies) : NULL;
    if (proxies == NULL) {
        Py_DECREF(dict);
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *acquire = PyObject_GetAttr(lock, s_acquire);
    PyObject *unlock = acquire ? PyObject_GetAttr(lock, s_release_m) : NULL;
    PyObject *refs = unlock ? PyObject_GetAttr(proxies, s_refs) : NULL;
    if (refs == NULL || !PyDict_CheckExact(refs)) {
        Py_DECREF(dict);
        Py_XDECREF(acquire);
        Py_XDECREF(unlock);
        Py_XDECREF(refs);
        return PyErr_Occurred() ? -1 : 0;
    }
    unbind();
    Py_INCREF(session);
    c_session = session;
    c_dict = dict;
    c_acquire = acquire;
    c_unlock = unlock;
    c_refs = refs;
    return 1;
}

/* --- msgpack, the few forms a record needs -------------------------------------- */
typedef struct {
    char *p;
} Out;

static void put_be(Out *o, unsigned char tag, unsigned long long v, int n)
{
    *o->p++ = (char)tag;
    for (int i = n - 1; i >= 0; i--)
        *o->p++ = (char)((v >> (8 * i)) & 0xff);
}

static void pack_int(Out *o, long long v)
{
    if (v >= 0) {
        unsigned long long u = (unsigned long long)v;
        if (u < 128)
            *o->p++ = (char)u;
        else if (u < 0x100)
            put_be(o, 0xcc, u, 1);
        else if (u < 0x10000)
            put_be(o, 0xcd, u, 2);
        else if (u < 0x100000000ULL)
            put_be(o, 0xce, u, 4);
        else
            put_be(o, 0xcf, u, 8);
    } else if (v >= -32) {
        *o->p++ = (char)(unsigned char)(v & 0xff);
    } else if (v >= -128) {
        put_be(o, 0xd0, (unsigned long long)v, 1);
    } else if (v >= -32768) {
        put_be(o, 0xd1, (unsigned long long)v, 2);
    } else if (v >= -2147483648LL) {
        put_be(o, 0xd2, (unsigned long long)v, 4);
    } else {
        put_be(o, 0xd3, (unsigned long long)v, 8);
    }
}

/* a record's operand: a handle id (is_handle), or a plain scalar (int, float, bool),
 * or None. 0, or -1 for anything else (the caller checked the kinds already). */
static int pack_value(Out *o, PyObject *v, long long handle, int is_handle)
{
    if (is_handle) {
        pack_int(o, handle);
    } else if (v == Py_None) {
        *o->p++ = (char)0xc0;
    } else if (v == Py_True) {
        *o->p++ = (char)0xc3;
    } else if (v == Py_False) {
        *o->p++ = (char)0xc2;
    } else if (PyFloat_CheckExact(v)) {
        double d = PyFloat_AS_DOUBLE(v);
        unsigned long long u;
        memcpy(&u, &d, 8);
        put_be(o, 0xcb, u, 8);
    } else if (PyLong_CheckExact(v)) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || (x == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return -1;
        }
        pack_int(o, x);
    } else {
        return -1;
    }
    return 0;
}

static int is_fast_scalar(PyObject *v)
{
    return PyFloat_CheckExact(v) || PyLong_CheckExact(v) || PyBool_Check(v);
}

/* --- Op: one ufunc's fast path (unary, binary, or into its first operand) -------- */
enum { UNARY = 1, BINARY = 2, INTO = 3 };

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int mode;
    PyObject *uf;       /* the client ufunc */
    PyObject *python;   /* its Python method of the same (enable(False) calls it) */
    PyObject *fast;     /* uf._fast */
    PyObject *path;     /* uf._path (str) */
    const char *target; /* its UTF-8 */
    Py_ssize_t target_len;
    /* the last operand kinds seen, and what ufunc._fast says of them */
    PyObject *ka, *kb;
    PyObject *e_dtype;
    Py_ssize_t e_itemsize;
    long long e_lo, e_hi;
    int e_ok;
    /* the last (shape, itemsize) -> (strides, flags) */
    PyObject *l_shape, *l_layout;
    Py_ssize_t l_itemsize;
} OpObject;

static PyTypeObject OpType;

/* 1 when the cached entry is for (ka, kb); fills it otherwise (0 with no error) */
static int entry(OpObject *op, PyObject *ka, PyObject *kb, PyObject *a, PyObject *b,
                 PyObject *a_dtype)
{
    if (ka == op->ka && kb == op->kb)
        return 1;
    PyObject *key = op->mode == UNARY ? (Py_INCREF(ka), ka) : PyTuple_Pack(2, ka, kb);
    if (key == NULL)
        return -1;
    PyObject *e = PyDict_GetItemWithError(op->fast, key);
    if (e != NULL) {
        Py_INCREF(e);
    } else if (PyErr_Occurred()) {
        Py_DECREF(key);
        return -1;
    } else {
        PyObject *operands = op->mode == UNARY ? PyTuple_Pack(1, a) : PyTuple_Pack(2, a, b);
        e = operands ? PyObject_CallMethodOneArg(op->uf, s_fast_entry, operands) : NULL;
        Py_XDECREF(operands);
        if (e == NULL || PyDict_SetItem(op->fast, key, e) < 0) {
            Py_DECREF(key);
            Py_XDECREF(e);
            return -1;
        }
    }
    Py_DECREF(key);
    int ok = 0;
    PyObject *dtype = NULL;
    Py_ssize_t itemsize = 0;
    long long lo = 0, hi = 0;
    if (PyTuple_CheckExact(e) && PyTuple_GET_SIZE(e) == 4) {
        int o1 = 0, o2 = 0;
        dtype = PyTuple_GET_ITEM(e, 0);
        itemsize = PyLong_AsSsize_t(PyTuple_GET_ITEM(e, 1));
        lo = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(e, 2), &o1);
        hi = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(e, 3), &o2);
        if (PyErr_Occurred()) {
            Py_DECREF(e);
            return -1;
        }
        ok = !o1 && !o2;
        if (ok && op->mode == INTO) {  /* the result must cast to a's dtype */
            PyObject *same = PyObject_CallFunctionObjArgs(g_same_kind, dtype, a_dtype, NULL);
            if (same == NULL) {
                Py_DECREF(e);
                return -1;
            }
            ok = same == Py_True;
            Py_DECREF(same);
        }
    }
    Py_XINCREF(dtype);
    Py_XSETREF(op->e_dtype, dtype);
    Py_DECREF(e);
    op->e_itemsize = itemsize;
    op->e_lo = lo;
    op->e_hi = hi;
    op->e_ok = ok;
    Py_INCREF(ka);
    Py_XSETREF(op->ka, ka);
    Py_INCREF(kb);
    Py_XSETREF(op->kb, kb);
    return 1;
}

/* (strides, flags) of a new C-contiguous array of this shape: new reference */
static PyObject *layout(OpObject *op, PyObject *shape, Py_ssize_t itemsize)
{
    if (shape == op->l_shape && itemsize == op->l_itemsize) {
        Py_INCREF(op->l_layout);
        return op->l_layout;
    }
    PyObject *n = PyLong_FromSsize_t(itemsize);
    PyObject *l = n ? PyObject_CallFunctionObjArgs(g_c_layout, shape, n, NULL) : NULL;
    Py_XDECREF(n);
    if (l == NULL)
        return NULL;
    if (!PyTuple_CheckExact(l) || PyTuple_GET_SIZE(l) != 2) {
        Py_DECREF(l);
        PyErr_SetString(PyExc_TypeError, "gpushare._accel: bad layout");
        return NULL;
    }
    Py_INCREF(shape);
    Py_XSETREF(op->l_shape, shape);
    Py_INCREF(l);
    Py_XSETREF(op->l_layout, l);
    op->l_itemsize = itemsize;
    return l;
}

/* where the user made the call: (code, offset of its instruction) of the innermost
 * frame outside gpushare, or what client._where says (a file it has not seen yet):
 * new reference, None when unknown */
static PyObject *where(void)
{
    PyFrameObject *f = PyEval_GetFrame();
    Py_XINCREF(f);
    while (f != NULL) {
        PyCodeObject *code = PyFrame_GetCode(f);
        PyObject *ours = PyDict_GetItemWithError(g_ours, code->co_filename);
        if (ours == Py_False) {
            PyObject *r = Py_BuildValue("(Ni)", (PyObject *)code, PyFrame_GetLasti(f));
            Py_DECREF(f);
            return r;
        }
        Py_DECREF(code);
        if (ours != Py_True) {  /* unknown (or an error): the Python walk decides */
            PyErr_Clear();
            PyObject *r = PyObject_CallOneArg(g_where, (PyObject *)f);
            Py_DECREF(f);
            return r;
        }
        PyFrameObject *back = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = back;
    }
    Py_RETURN_NONE;
}

#define NOT_FAST() do { result = Py_None; Py_INCREF(result); goto done; } while (0)
#define FAIL() do { result = NULL; goto done; } while (0)

/* The operands' part of the fast path: fills the kinds, session, shape, dtype keys
 * and handle ids; 1 when the path may go on, 0 when not, -1 with an error set.
 * ``*shape`` is a new reference on 1. */
typedef struct {
    int kinds;
    PyObject *s, *shape, *ka, *kb;
    long long x, y;  /* handle ids of a and b, where they are handles */
} Operands;

static int handle_of(PyObject *v, PyObject **s, long long *id)
{
    PyObject *hid = SLOT(v, off_id);
    *s = SLOT(v, off_session);
    if (hid == NULL || *s == NULL || SLOT(v, off_shape) == NULL ||
            SLOT(v, off_dtype) == NULL || !PyLong_CheckExact(hid))
        return 0;
    *id = PyLong_AsLongLong(hid);
    return *id == -1 && PyErr_Occurred() ? -1 : 1;
}

static int operands(OpObject *op, PyObject *a, PyObject *b, Operands *o)
{
    int r;
    if (Py_TYPE(a) == Array) {
        if ((r = handle_of(a, &o->s, &o->x)) != 1)
            return r;
        o->shape = SLOT(a, off_shape);
        o->ka = SLOT(a, off_dtype);
        if (op->mode == UNARY) {
            o->kinds = 4;
            o->kb = Py_None;
        } else if (Py_TYPE(b) == Array) {
            PyObject *bs;
            if ((r = handle_of(b, &bs, &o->y)) != 1)
                return r;
            if (bs != o->s)
                return 0;
            o->kb = SLOT(b, off_dtype);
            o->kinds = op->mode == INTO ? 11 : 3;
            PyObject *bshape = SLOT(b, off_shape);
            if (bshape != o->shape) {
                int eq = PyObject_RichCompareBool(bshape, o->shape, Py_EQ);
                if (eq < 0)
                    return -1;
                if (!eq) {  /* broadcast (INTO: to a's shape) */
                    PyObject *bc = PyObject_CallFunctionObjArgs(g_broadcast, o->shape, bshape,
                                                                NULL);
                    if (bc == NULL)
                        return -1;
                    int fits = bc != Py_None;
                    if (fits && op->mode == INTO)
                        fits = PyObject_RichCompareBool(bc, o->shape, Py_EQ);
                    if (fits <= 0) {
                        Py_DECREF(bc);
                        return fits;
                    }
                    if (op->mode != INTO) {
                        o->shape = bc;  /* (the new reference) */
                        return 1;
                    }
                    Py_DECREF(bc);
                }
            }
        } else if (is_fast_scalar(b)) {
            o->kb = (PyObject *)Py_TYPE(b);
            o->kinds = op->mode == INTO ? 9 : 1;
        } else {
            return 0;
        }
    } else {  /* a scalar, b a proxy (BINARY) */
        if (op->mode != BINARY || Py_TYPE(b) != Array || !is_fast_scalar(a))
            return 0;
        if ((r = handle_of(b, &o->s, &o->y)) != 1)
            return r;
        o->shape = SLOT(b, off_shape);
        o->kb = SLOT(b, off_dtype);
        o->ka = (PyObject *)Py_TYPE(a);
        o->kinds = 2;
    }
    Py_INCREF(o->shape);
    return 1;
}

/* The fast path: the result (a new proxy; ``a`` for INTO), None where the Python
 * path must decide, NULL with an error set. */
static PyObject *run(OpObject *op, PyObject *a, PyObject *b)
{
    if (!ready || op->target_len > 200)
        Py_RETURN_NONE;
    Operands o = {0};
    int r = operands(op, a, b, &o);
    if (r <= 0)
        return r < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *result = NULL, *info = NULL, *proxy = NULL, *ref = NULL, *lay = NULL,
             *record = NULL, *dict = NULL, *unlock = NULL, *refs = NULL;
    PyObject *s = Py_NewRef(o.s);
    int kinds = o.kinds;
    if ((r = entry(op, o.ka, o.kb, a, b, kinds & 8 ? o.ka : NULL)) < 0)
        FAIL();
    if (!op->e_ok)
        NOT_FAST();
    /* a new result of Session.alloc_wait_bytes or more waits for the server (so that
     * its OutOfMemoryError is the call's own): the general path (``_ndarray._new``);
     * under 64 KiB (``_ufunc._SMALL``) it never does, and the session is not asked */
    if (op->mode != INTO) {
        Py_ssize_t nbytes = op->e_itemsize, k = PyTuple_GET_SIZE(o.shape);
        for (Py_ssize_t i = 0; i < k && nbytes; i++) {
            Py_ssize_t d = PyLong_AsSsize_t(PyTuple_GET_ITEM(o.shape, i));
            if (d == -1 && PyErr_Occurred())
                FAIL();
            nbytes = d > 0 && nbytes > PY_SSIZE_T_MAX / d ? PY_SSIZE_T_MAX : nbytes * d;
        }
        if (nbytes >= (1 << 16)) {
            PyObject *w = PyObject_GetAttrString(s, "alloc_wait_bytes");
            Py_ssize_t limit = w ? PyLong_AsSsize_t(w) : -1;
            Py_XDECREF(w);
            if (limit == -1 && PyErr_Occurred())
                FAIL();
            if (nbytes >= limit)
                NOT_FAST();
        }
    }
    /* a Python int must fit where NEP 50 casts it (else the call raises) */
    if (kinds == 1 || kinds == 2 || kinds == 9) {
        PyObject *v = kinds == 2 ? a : b;
        if (PyLong_CheckExact(v)) {
            int overflow = 0;
            long long iv = PyLong_AsLongLongAndOverflow(v, &overflow);
            if (iv == -1 && PyErr_Occurred())
                FAIL();
            if (overflow || iv < op->e_lo || iv > op->e_hi)
                NOT_FAST();
        }
    }
    /* everything the collector tracks, made before the session's state is read (see
     * the top) */
    if ((info = where()) == NULL)
        FAIL();
    if (op->mode != INTO) {
        if ((lay = layout(op, o.shape, op->e_itemsize)) == NULL)
            FAIL();
        if ((proxy = Array->tp_alloc(Array, 0)) == NULL)
            FAIL();
        set_slot(proxy, off_shape, o.shape);
        set_slot(proxy, off_dtype, op->e_dtype);
        set_slot(proxy, off_strides, PyTuple_GET_ITEM(lay, 0));
        set_slot(proxy, off_flags, PyTuple_GET_ITEM(lay, 1));
        set_slot(proxy, off_base, Py_None);
        set_slot(proxy, off_meta_ok, Py_True);
        if ((ref = PyWeakref_NewRef(proxy, NULL)) == NULL)
            FAIL();
    }
    if ((r = bind(s)) < 0)
        FAIL();
    if (r == 0)
        NOT_FAST();
    dict = Py_NewRef(c_dict);
    unlock = Py_NewRef(c_unlock);
    refs = Py_NewRef(c_refs);
    {
        PyObject *got = PyObject_CallOneArg(c_acquire, Py_False);
        if (got == NULL)
            FAIL();
        int locked = got == Py_True;
        Py_DECREF(got);
        if (!locked) {  /* another thread has it: the Python path waits for it */
            Py_CLEAR(unlock);
            NOT_FAST();
        }
    }
    PyObject *closed = PyDict_GetItemWithError(dict, s_closed),
             *lost = PyDict_GetItemWithError(dict, s_lost),
             *sync = PyDict_GetItemWithError(dict, s_sync),
             *poisoned = PyDict_GetItemWithError(dict, s_poisoned),
             *queue = PyDict_GetItemWithError(dict, s_queue);
    if (closed != Py_False || lost != Py_None || sync != Py_False || poisoned == NULL ||
            !PyDict_CheckExact(poisoned) || PyDict_GET_SIZE(poisoned) || queue == NULL ||
            !PyList_CheckExact(queue))
        NOT_FAST();  /* (the general path raises, or waits, or says why) */
    if (PyList_GET_SIZE(queue) == 0) {  /* the idle flush's event, as Session.submit */
        PyObject *queued = PyDict_GetItemWithError(dict, s_queued);
        if (queued == NULL)
            NOT_FAST();
        Py_INCREF(queued);
        PyObject *is_set = PyObject_CallMethodNoArgs(queued, s_is_set);
        PyObject *set = is_set == Py_False ? PyObject_CallMethodNoArgs(queued, s_set)
                                           : Py_XNewRef(is_set);
        Py_XDECREF(is_set);
        Py_DECREF(queued);
        if (set == NULL)
            FAIL();
        Py_DECREF(set);
    }
    /* (read again: Python code may have run) */
    PyObject *next_id = PyDict_GetItemWithError(dict, s_next_id),
             *seq_o = PyDict_GetItemWithError(dict, s_seq),
             *infos = PyDict_GetItemWithError(dict, s_queue_info);
    queue = PyDict_GetItemWithError(dict, s_queue);
    if (next_id == NULL || seq_o == NULL || queue == NULL || infos == NULL ||
            !PyLong_CheckExact(next_id) || !PyLong_CheckExact(seq_o) ||
            !PyList_CheckExact(queue) || !PyList_CheckExact(infos))
        NOT_FAST();
    long long hid = op->mode == INTO ? o.x : PyLong_AsLongLong(next_id);
    long long seq = PyLong_AsLongLong(seq_o) + 1;
    if (PyErr_Occurred())
        FAIL();
    {
        char buf[320];
        Out out = {buf};
        *out.p++ = (char)0x96;
        pack_int(&out, seq);
        pack_int(&out, kinds);
        if (op->target_len < 32) {
            *out.p++ = (char)(0xa0 | op->target_len);
        } else {
            *out.p++ = (char)0xd9;
            *out.p++ = (char)op->target_len;
        }
        memcpy(out.p, op->target, op->target_len);
        out.p += op->target_len;
        if (pack_value(&out, a, o.x, kinds & 1 || kinds == 4) < 0 ||
                pack_value(&out, kinds == 4 ? Py_None : b, o.y, kinds & 2) < 0)
            NOT_FAST();
        pack_int(&out, hid);
        if ((record = PyBytes_FromStringAndSize(buf, out.p - buf)) == NULL)
            FAIL();
    }
    {
        PyObject *n_seq = PyLong_FromLongLong(seq);
        PyObject *n_id = op->mode == INTO ? NULL : PyLong_FromLongLong(hid + 1);
        PyObject *o_id = op->mode == INTO ? NULL : PyLong_FromLongLong(hid);
        int bad = n_seq == NULL || (op->mode != INTO && (n_id == NULL || o_id == NULL)) ||
                  PyDict_SetItem(dict, s_seq, n_seq) < 0 ||
                  (op->mode != INTO && PyDict_SetItem(dict, s_next_id, n_id) < 0) ||
                  PyList_Append(queue, record) < 0 || PyList_Append(infos, info) < 0;
        Py_XDECREF(n_seq);
        Py_XDECREF(n_id);
        if (!bad && op->mode != INTO) {
            set_slot(proxy, off_id, o_id);
            set_slot(proxy, off_session, s);
            bad = PyDict_SetItem(refs, o_id, ref) < 0;
        }
        Py_XDECREF(o_id);
        if (bad)
            FAIL();
    }
    if (PyList_GET_SIZE(queue) >= g_batch_calls) {
        PyObject *x = PyObject_CallMethodNoArgs(s, s_flush_locked);
        if (x == NULL)
            FAIL();
        Py_DECREF(x);
    }
    if (op->mode == INTO) {
        result = Py_NewRef(a);
    } else {
        result = proxy;
        proxy = NULL;
    }
done:
    if (unlock != NULL) {  /* (held) */
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        PyObject *x = PyObject_CallNoArgs(unlock);
        if (x == NULL) {
            Py_XDECREF(et);
            Py_XDECREF(ev);
            Py_XDECREF(tb);
            Py_CLEAR(result);
        } else {
            Py_DECREF(x);
            PyErr_Restore(et, ev, tb);
        }
    }
    Py_XDECREF(unlock);
    Py_XDECREF(dict);
    Py_XDECREF(refs);
    Py_XDECREF(info);
    Py_XDECREF(lay);
    Py_XDECREF(ref);
    Py_XDECREF(record);
    Py_XDECREF(proxy);  /* (unused: no session set, so its __del__ does nothing) */
    Py_DECREF(o.shape);
    Py_DECREF(s);
    return result;
}

static PyObject *op_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames)
{
    OpObject *op = (OpObject *)self;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    Py_ssize_t want = op->mode == UNARY ? 1 : 2;
    if (n != want || (kwnames && PyTuple_GET_SIZE(kwnames))) {
        PyErr_Format(PyExc_TypeError, "gpushare._accel.Op takes %zd operands", want);
        return NULL;
    }
    if (!ready)
        return PyObject_Vectorcall(op->python, args, n, NULL);
    return run(op, args[0], want == 2 ? args[1] : Py_None);
}

static PyObject *op_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    PyObject *uf, *python;
    int mode;
    if (!PyArg_ParseTuple(args, "OiO:Op", &uf, &mode, &python))
        return NULL;
    if (mode < UNARY || mode > INTO) {
        PyErr_SetString(PyExc_ValueError, "mode: 1 (unary), 2 (binary) or 3 (into)");
        return NULL;
    }
    PyObject *fast = PyObject_GetAttr(uf, s_fast);
    PyObject *path = fast ? PyObject_GetAttr(uf, s_path) : NULL;
    if (path == NULL || !PyDict_Check(fast) || !PyUnicode_Check(path)) {
        Py_XDECREF(fast);
        Py_XDECREF(path);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "Op: a ufunc with _fast (dict), _path (str)");
        return NULL;
    }
    Py_ssize_t len;
    const char *target = PyUnicode_AsUTF8AndSize(path, &len);
    if (target == NULL) {
        Py_DECREF(fast);
        Py_DECREF(path);
        return NULL;
    }
    OpObject *op = (OpObject *)type->tp_alloc(type, 0);
    if (op == NULL) {
        Py_DECREF(fast);
        Py_DECREF(path);
        return NULL;
    }
    op->vectorcall = op_vectorcall;
    op->mode = mode;
    op->uf = Py_NewRef(uf);
    op->python = Py_NewRef(python);
    op->fast = fast;
    op->path = path;
    op->target = target;
    op->target_len = len;
    return (PyObject *)op;
}

static int op_traverse(OpObject *op, visitproc visit, void *arg)
{
    Py_VISIT(op->uf);
    Py_VISIT(op->python);
    Py_VISIT(op->fast);
    Py_VISIT(op->ka);
    Py_VISIT(op->kb);
    Py_VISIT(op->e_dtype);
    Py_VISIT(op->l_shape);
    Py_VISIT(op->l_layout);
    return 0;
}

static int op_clear(OpObject *op)
{
    Py_CLEAR(op->uf);
    Py_CLEAR(op->python);
    Py_CLEAR(op->fast);
    Py_CLEAR(op->ka);
    Py_CLEAR(op->kb);
    Py_CLEAR(op->e_dtype);
    Py_CLEAR(op->l_shape);
    Py_CLEAR(op->l_layout);
    return 0;
}

static void op_dealloc(OpObject *op)
{
    PyObject_GC_UnTrack(op);
    op_clear(op);
    Py_CLEAR(op->path);
    Py_TYPE(op)->tp_free((PyObject *)op);
}

static PyObject *op_repr(OpObject *op)
{
    static const char *modes[] = {"", "unary", "binary", "into"};
    return PyUnicode_FromFormat("<gpushare._accel.Op %U (%s)>", op->path, modes[op->mode]);
}

static PyTypeObject OpType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gpushare._accel.Op",
    .tp_doc = "Op(ufunc, mode, python): ufunc._fast1 (mode 1), _fast2 (2) or _fast_into (3) in C; "
              "python, the same in Python, is called instead while enable(False).",
    .tp_basicsize = sizeof(OpObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(OpObject, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = op_new,
    .tp_traverse = (traverseproc)op_traverse,
    .tp_clear = (inquiry)op_clear,
    .tp_dealloc = (destructor)op_dealloc,
    .tp_repr = (reprfunc)op_repr,
};

/* --- the operators as methods of ndarray ----------------------------------------- */
#define MAX_METHODS 64
static OpObject *m_op[MAX_METHODS];
static PyObject *m_fallback[MAX_METHODS];
static int m_reversed[MAX_METHODS];
static PyMethodDef m_def[MAX_METHODS];
static int m_count = 0;

static PyObject *dispatch(int i, PyObject *self, PyObject *other)
{
    PyObject *r = m_reversed[i] ? run(m_op[i], other, self) : run(m_op[i], self, other);
    if (r != Py_None)
        return r;
    Py_DECREF(r);
    PyObject *args[2] = {self, other};
    return PyObject_Vectorcall(m_fallback[i], args, 2, NULL);
}

/* m00 ... m77: method number 0##i, i being two octal digits (m10 is method 010, 8) */
#define M(i) static PyObject *m##i(PyObject *s, PyObject *o) { return dispatch(0##i, s, o); }
#define M8(i) M(i##0) M(i##1) M(i##2) M(i##3) M(i##4) M(i##5) M(i##6) M(i##7)
M8(0) M8(1) M8(2) M8(3) M8(4) M8(5) M8(6) M8(7)
#define F8(i) m##i##0, m##i##1, m##i##2, m##i##3, m##i##4, m##i##5, m##i##6, m##i##7,
static PyObject *(*m_funcs[MAX_METHODS])(PyObject *, PyObject *) = {
    F8(0) F8(1) F8(2) F8(3) F8(4) F8(5) F8(6) F8(7)
};

static PyObject *method(PyObject *module, PyObject *args)
{
    const char *name;
    PyObject *op, *fallback;
    int reversed;
    if (!PyArg_ParseTuple(args, "sO!Op:method", &name, &OpType, &op, &fallback, &reversed))
        return NULL;
    if (Array == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "gpushare._accel.setup first");
        return NULL;
    }
    if (((OpObject *)op)->mode == UNARY) {
        PyErr_SetString(PyExc_ValueError, "method: a binary or into Op");
        return NULL;
    }
    if (m_count >= MAX_METHODS) {
        PyErr_SetString(PyExc_RuntimeError, "gpushare._accel: too many methods");
        return NULL;
    }
    char *copy = PyMem_RawMalloc(strlen(name) + 1);
    if (copy == NULL)
        return PyErr_NoMemory();
    strcpy(copy, name);
    int i = m_count;
    m_def[i].ml_name = copy;
    m_def[i].ml_meth = (PyCFunction)m_funcs[i];
    m_def[i].ml_flags = METH_O;
    m_def[i].ml_doc = NULL;
    PyObject *descr = PyDescr_NewMethod(Array, &m_def[i]);
    if (descr == NULL)
        return NULL;
    Py_INCREF(op);
    Py_INCREF(fallback);
    m_op[i] = (OpObject *)op;
    m_fallback[i] = fallback;
    m_reversed[i] = reversed;
    m_count++;
    return descr;
}

/* ndarray.__del__: Session.release(hid), as client.py writes it */
static PyObject *release(PyObject *self, PyObject *unused)
{
    PyObject *s = SLOT(self, off_session), *hid = SLOT(self, off_id);
    if (s == NULL || hid == NULL)
        Py_RETURN_NONE;
    Py_INCREF(s);
    Py_INCREF(hid);
    PyObject *entry = PyTuple_New(2);  /* (before anything is read: see the top) */
    PyObject *dict = NULL, *refs = NULL, *rel = NULL;
    int r = entry == NULL ? -1 : ready ? bind(s) : 0;
    if (r == 1) {
        dict = Py_NewRef(c_dict);
        refs = Py_NewRef(c_refs);
        PyObject *queue = PyDict_GetItemWithError(dict, s_queue),
                 *poisoned = PyDict_GetItemWithError(dict, s_poisoned);
        rel = Py_XNewRef(PyDict_GetItemWithError(dict, s_release));
        if (PyDict_GetItemWithError(dict, s_closed) != Py_False) {
            r = -1;  /* closed (or odd): nothing to do, as Python does */
        } else if (!queue || !rel || !poisoned || !PyList_CheckExact(queue) ||
                   !PyList_CheckExact(rel) || !PyDict_CheckExact(poisoned)) {
            r = 0;
        } else {
            PyObject *pos = PyLong_FromSsize_t(PyList_GET_SIZE(queue));
            if (pos != NULL) {
                PyTuple_SET_ITEM(entry, 0, pos);
                PyTuple_SET_ITEM(entry, 1, Py_NewRef(hid));
                if (PyList_Append(rel, entry) == 0) {
                    int flush = PyList_GET_SIZE(rel) >= 4 * g_batch_calls;
                    /* (its proxy is gone: no sweep needed) */
                    if (PyDict_GetItemWithError(refs, hid) != NULL)
                        PyDict_DelItem(refs, hid);
                    if (PyDict_GET_SIZE(poisoned) &&
                            PyDict_GetItemWithError(poisoned, hid) != NULL)
                        PyDict_DelItem(poisoned, hid);
                    if (flush) {
                        PyObject *x = PyObject_CallMethodNoArgs(s, s_flush_releases);
                        Py_XDECREF(x);
                    }
                }
            }
        }
    }
    if (r == 0) {  /* not a session this file knows: as Python does it */
        PyErr_Clear();
        PyObject *x = PyObject_CallMethodOneArg(s, s_release_m, hid);
        Py_XDECREF(x);
    }
    Py_XDECREF(rel);
    Py_XDECREF(refs);
    Py_XDECREF(dict);
    Py_XDECREF(entry);
    Py_DECREF(hid);
    Py_DECREF(s);
    PyErr_Clear();  /* (finalizers must not raise) */
    Py_RETURN_NONE;
}

static PyMethodDef release_def = {"__del__", release, METH_NOARGS,
                                  "Release the array on the server (the session's next batch)."};

static int slot_offset(PyObject *descr, Py_ssize_t *off)
{
    if (!Py_IS_TYPE(descr, &PyMemberDescr_Type) ||
            ((PyMemberDescrObject *)descr)->d_member->type != T_OBJECT_EX) {
        PyErr_SetString(PyExc_TypeError, "gpushare._accel.setup: a __slots__ member expected");
        return -1;
    }
    *off = ((PyMemberDescrObject *)descr)->d_member->offset;
    return 0;
}

static PyObject *setup(PyObject *module, PyObject *args)
{
    PyObject *array, *session, *ours, *where_, *c_layout, *broadcast, *same_kind;
    Py_ssize_t batch;
    PyObject *d[8];
    if (!PyArg_ParseTuple(args, "O!O!O!OOOOn(OOOOOOOO):setup", &PyType_Type, &array,
                          &PyType_Type, &session, &PyDict_Type, &ours, &where_, &c_layout,
                          &broadcast, &same_kind, &batch, &d[0], &d[1], &d[2], &d[3],
                          &d[4], &d[5], &d[6], &d[7]))
        return NULL;
    Py_ssize_t *offs[8] = {&off_id, &off_session, &off_shape, &off_dtype, &off_strides,
                           &off_flags, &off_base, &off_meta_ok};
    for (int i = 0; i < 8; i++)
        if (slot_offset(d[i], offs[i]) < 0)
            return NULL;
    ready = 0;
    unbind();
    Py_XSETREF(Array, (PyTypeObject *)Py_NewRef(array));
    Py_XSETREF(SessionType, (PyTypeObject *)Py_NewRef(session));
    Py_XSETREF(g_ours, Py_NewRef(ours));
    Py_XSETREF(g_where, Py_NewRef(where_));
    Py_XSETREF(g_c_layout, Py_NewRef(c_layout));
    Py_XSETREF(g_broadcast, Py_NewRef(broadcast));
    Py_XSETREF(g_same_kind, Py_NewRef(same_kind));
    g_batch_calls = batch;
    ready = 1;
    return PyDescr_NewMethod(Array, &release_def);
}

static PyObject *enable(PyObject *module, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    if (on < 0)
        return NULL;
    if (on && Array == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "gpushare._accel.setup first");
        return NULL;
    }
    ready = on;
    if (!on)
        unbind();
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(ndarray, Session, _OURS, _where, _c_layout, _broadcast, _same_kind, "
     "BATCH_CALLS, (the 8 slot descriptors)) -> ndarray.__del__ in C"},
    {"method", method, METH_VARARGS,
     "method(name, op, fallback, reversed) -> a method of ndarray: op's fast path, "
     "else fallback(self, other)"},
    {"enable", enable, METH_O, "enable(flag): take the fast path (True) or not (False)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "gpushare._accel",
    "The client's operators in C (see the top of _accel.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__accel(void)
{
    struct { PyObject **p; const char *s; } names[] = {
        {&s_closed, "_closed"}, {&s_lost, "_lost"}, {&s_sync, "sync"},
        {&s_poisoned, "_poisoned"}, {&s_next_id, "_next_id"}, {&s_seq, "_seq"},
        {&s_queue, "_queue"}, {&s_queue_info, "_queue_info"}, {&s_queued, "_queued"},
        {&s_release, "_release"}, {&s_lock, "_lock"}, {&s_proxies, "proxies"},
        {&s_refs, "refs"}, {&s_flush_locked, "_flush_locked"},
        {&s_flush_releases, "_flush_releases"}, {&s_is_set, "is_set"}, {&s_set, "set"},
        {&s_acquire, "acquire"}, {&s_release_m, "release"}, {&s_fast, "_fast"},
        {&s_path, "_path"}, {&s_fast_entry, "_fast_entry"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        *names[i].p = PyUnicode_InternFromString(names[i].s);
        if (*names[i].p == NULL)
            return NULL;
    }
    if (PyType_Ready(&OpType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&OpType);
    if (PyModule_AddObject(m, "Op", (PyObject *)&OpType) < 0) {
        Py_DECREF(&OpType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
