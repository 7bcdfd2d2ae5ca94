/* SPDX-License-Identifier: MIT */
/*
 * Trace.apply({pattern: callable}): Python callbacks in the one time order,
 * each given a light trawl.Event: seq, time, cpu, pid, tgid, comm, name,
 * system as attributes, and every field of the event by its name
 * (ev.next_pid), typed (int, str, tuple of ints). The Event is reused from
 * one call to the next unless the callback kept a reference to it; it is
 * valid only during its callback (afterwards it raises). Each event type
 * keeps a dict from field name to its index, checked against the event's
 * own name there, so an attribute costs a dict hit and no search.
 */
#include "pytrawl.h"

#include <string.h>

typedef struct {
	PyObject_HEAD const trawl_event *ev;
	PyObject *names; /* borrowed: the type's {field name: index} */
} pt_event;

static PyTypeObject pt_event_type;

static PyObject *detached(void)
{
	PyErr_SetString(PyExc_RuntimeError,
			"trawl.Event used after its callback returned (copy "
			"what you need, e.g. ev.fields())");
	return NULL;
}

static PyObject *field_value(const trawl_event *ev, size_t i)
{
	trawl_value v;
	trawl_event_field_get(ev, i, &v); /* type, flags, value at once */
	switch (v.type) {
	case TRAWL_VALUE_INT:
		if (v.flags & (TRAWL_VALUE_UNSIGNED | TRAWL_VALUE_POINTER))
			return PyLong_FromUnsignedLongLong((uint64_t)v.i);
		return PyLong_FromLongLong(v.i);
	case TRAWL_VALUE_ARRAY: {
		const int64_t *e = NULL;
		size_t n = trawl_event_field_array(ev, i, &e);
		PyObject *t = PyTuple_New((Py_ssize_t)n);
		for (size_t j = 0; t && j < n; j++) {
			PyObject *x = PyLong_FromLongLong(e[j]);
			if (!x) {
				Py_CLEAR(t);
				break;
			}
			PyTuple_SET_ITEM(t, (Py_ssize_t)j, x);
		}
		return t;
	}
	case TRAWL_VALUE_NONE:
		Py_RETURN_NONE;
	default:
		break;
	}
	if (!v.s)
		Py_RETURN_NONE;
	return pt_str(v.s, v.len);
}

/* The index of the field named like the str key, or -1. */
static long field_index(pt_event *self, PyObject *key)
{
	const trawl_event *ev = self->ev;
	Py_ssize_t klen;
	const char *k = PyUnicode_AsUTF8AndSize(key, &klen);
	if (!k) {
		PyErr_Clear();
		return -1;
	}
	PyObject *hit = self->names ? PyDict_GetItem(self->names, key) : NULL;
	if (hit) {
		size_t i = PyLong_AsSize_t(hit), n;
		const char *name = trawl_event_field_name(ev, i, &n);
		if (name && n == (size_t)klen && !memcmp(name, k, n))
			return (long)i;
	}
	/* first use of the name on this type, or a text event whose fields
	 * come in another order */
	size_t count = trawl_event_field_count(ev);
	for (size_t i = 0; i < count; i++) {
		size_t n;
		const char *name = trawl_event_field_name(ev, i, &n);
		if (name && n == (size_t)klen && !memcmp(name, k, n)) {
			PyObject *idx = PyLong_FromSize_t(i);
			if (idx && self->names)
				PyDict_SetItem(self->names, key, idx);
			Py_XDECREF(idx);
			PyErr_Clear();
			return (long)i;
		}
	}
	return -1;
}

static PyObject *field_prefix;

/* ev["pid"]: the field of that name, even where a header attribute has
 * the same name (sched_wakeup's pid is the woken task) */
static PyObject *event_subscript(PyObject *o, PyObject *key)
{
	pt_event *self = (pt_event *)o;
	if (!self->ev)
		return detached();
	long i = PyUnicode_Check(key) ? field_index(self, key) : -1;
	if (i >= 0)
		return field_value(self->ev, (size_t)i);
	PyErr_SetObject(PyExc_KeyError, key);
	return NULL;
}

static PyMappingMethods event_mapping = {
	.mp_subscript = event_subscript,
};

static PyObject *event_getattro(PyObject *o, PyObject *key)
{
	pt_event *self = (pt_event *)o;
	/* methods and the header properties */
	PyObject *r = PyObject_GenericGetAttr(o, key);
	if (r || !PyErr_ExceptionMatches(PyExc_AttributeError))
		return r;
	PyErr_Clear();
	if (!self->ev)
		return detached();
	long i = field_index(self, key);
	if (i >= 0)
		return field_value(self->ev, (size_t)i);
	/* field_pid: a field named like a header attribute, as in df() */
	if (PyUnicode_Check(key) && PyUnicode_GET_LENGTH(key) > 6 &&
	    PyUnicode_Tailmatch(key, field_prefix, 0, 6, -1) == 1) {
		PyObject *rest =
			PyUnicode_Substring(key, 6, PyUnicode_GET_LENGTH(key));
		i = rest ? field_index(self, rest) : -1;
		Py_XDECREF(rest);
		if (i >= 0)
			return field_value(self->ev, (size_t)i);
	}
	PyErr_Format(PyExc_AttributeError, "%s has no field '%U'",
		     trawl_event_name(self->ev), key);
	return NULL;
}

#define HEADER(fn, expr)                                                       \
	static PyObject *fn(PyObject *o, void *c)                              \
	{                                                                      \
		(void)c;                                                       \
		const trawl_event *ev = ((pt_event *)o)->ev;                   \
		if (!ev)                                                       \
			return detached();                                     \
		return expr;                                                   \
	}
HEADER(get_seq, PyLong_FromUnsignedLongLong(trawl_event_seq(ev)))
HEADER(get_time, PyLong_FromLongLong(trawl_event_time(ev)))
HEADER(get_cpu, PyLong_FromLong(trawl_event_cpu(ev)))
HEADER(get_pid, PyLong_FromLong(trawl_event_pid(ev)))
HEADER(get_tgid, PyLong_FromLong(trawl_event_tgid(ev)))
HEADER(get_comm, pt_str(trawl_event_comm(ev), strlen(trawl_event_comm(ev))))
HEADER(get_name, PyUnicode_FromString(trawl_event_name(ev)))
HEADER(get_system, PyUnicode_FromString(trawl_event_system(ev)))
HEADER(get_flags, PyLong_FromUnsignedLong(trawl_event_flags(ev)))

static PyGetSetDef event_getset[] = {
	{"seq", get_seq, NULL, "position in the source (ties in time)", NULL},
	{"time", get_time, NULL, "time in ns", NULL},
	{"cpu", get_cpu, NULL, "CPU, -1 when unknown", NULL},
	{"pid", get_pid, NULL, "thread id of the current task", NULL},
	{"tgid", get_tgid, NULL, "process id, -1 when unknown", NULL},
	{"comm", get_comm, NULL, "name of the current task", NULL},
	{"name", get_name, NULL, "the event's name", NULL},
	{"system", get_system, NULL, "the event's system", NULL},
	{"flags", get_flags, NULL, "irq-info flags (trawl_event_flags)", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyObject *event_fields(PyObject *o, PyObject *unused)
{
	(void)unused;
	const trawl_event *ev = ((pt_event *)o)->ev;
	if (!ev)
		return detached();
	PyObject *d = PyDict_New();
	size_t n = trawl_event_field_count(ev);
	for (size_t i = 0; d && i < n; i++) {
		size_t kl;
		const char *k = trawl_event_field_name(ev, i, &kl);
		PyObject *key = k ? pt_str(k, kl) : NULL;
		PyObject *v = key ? field_value(ev, i) : NULL;
		if (!v || PyDict_SetItem(d, key, v))
			Py_CLEAR(d);
		Py_XDECREF(key);
		Py_XDECREF(v);
	}
	return d;
}

static PyObject *event_repr(PyObject *o)
{
	const trawl_event *ev = ((pt_event *)o)->ev;
	if (!ev)
		return PyUnicode_FromString("<trawl.Event (detached)>");
	return PyUnicode_FromFormat("<trawl.Event %s seq=%llu time=%lld>",
				    trawl_event_name(ev),
				    (unsigned long long)trawl_event_seq(ev),
				    (long long)trawl_event_time(ev));
}

static PyMethodDef event_methods[] = {
	{"fields", event_fields, METH_NOARGS, "every field as a dict"},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject pt_event_type = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "trawl.Event",
	.tp_basicsize = sizeof(pt_event),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "one event, valid during its callback",
	.tp_getattro = event_getattro,
	.tp_getset = event_getset,
	.tp_methods = event_methods,
	.tp_repr = event_repr,
	.tp_as_mapping = &event_mapping,
};

int pt_event_type_ready(PyObject *module)
{
	field_prefix = PyUnicode_InternFromString("field_");
	if (!field_prefix || PyType_Ready(&pt_event_type) < 0)
		return -1;
	return PyModule_AddObjectRef(module, "Event",
				     (PyObject *)&pt_event_type);
}

struct apply_ctx {
	pt_event *obj;	 /* the Event handed to callbacks */
	PyObject *names; /* list by type id of {field name: index} dicts */
	int failed;	 /* a callback raised */
};

struct apply_sub {
	struct apply_ctx *ctx;
	PyObject *fn;
};

static int on_event(const trawl_event *ev, void *arg)
{
	struct apply_sub *sub = arg;
	struct apply_ctx *c = sub->ctx;
	if (!c->obj) {
		c->obj = PyObject_New(pt_event, &pt_event_type);
		if (!c->obj)
			goto fail;
		c->obj->ev = NULL;
		c->obj->names = NULL;
	}
	uint32_t id = trawl_event_type_id(ev);
	while ((size_t)PyList_GET_SIZE(c->names) <= id) {
		PyObject *d = PyDict_New();
		if (!d || PyList_Append(c->names, d)) {
			Py_XDECREF(d);
			goto fail;
		}
		Py_DECREF(d);
	}
	c->obj->ev = ev;
	c->obj->names = PyList_GET_ITEM(c->names, id);
	PyObject *r = PyObject_CallOneArg(sub->fn, (PyObject *)c->obj);
	c->obj->ev = NULL;
	c->obj->names = NULL;
	if (Py_REFCNT(c->obj) > 1) /* kept: the next event gets a new one */
		Py_CLEAR(c->obj);
	if (!r)
		goto fail;
	Py_DECREF(r);
	return 0;
fail:
	c->failed = 1;
	return 1;
}

/* _trawl.apply(path, opts, {pattern: callable}) -> stats */
PyObject *pt_apply(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *path, *opts, *subs;
	if (!PyArg_ParseTuple(args, "OOO!", &path, &opts, &PyDict_Type, &subs))
		return NULL;
	Py_ssize_t n = PyDict_Size(subs);
	struct apply_sub *s = calloc(n ? (size_t)n : 1, sizeof(*s));
	struct apply_ctx c = {.names = PyList_New(0)};
	PyObject *res = NULL;
	trawl_trace *t = NULL;
	if (!s || !c.names) {
		PyErr_NoMemory();
		goto out;
	}
	t = pt_open(path, opts);
	if (!t)
		goto out;
	PyObject *key, *fn;
	Py_ssize_t pos = 0, i = 0;
	while (PyDict_Next(subs, &pos, &key, &fn)) {
		const char *p =
			PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
		if (!p) {
			PyErr_SetString(PyExc_TypeError,
					"apply: keys are event patterns (str)");
			goto out;
		}
		if (!PyCallable_Check(fn)) {
			PyErr_Format(
				PyExc_TypeError,
				"apply: the value for '%s' is not callable", p);
			goto out;
		}
		s[i].ctx = &c;
		s[i].fn = fn;
		int rc = trawl_on(t, p, on_event, &s[i]);
		if (rc) {
			trawl_error e = {0};
			snprintf(e.msg, sizeof(e.msg), "bad event pattern '%s'",
				 p);
			pt_raise(&e, rc);
			goto out;
		}
		i++;
	}
	/* Python runs on every event: the GIL stays held */
	trawl_error err = {0};
	int rc = trawl_run(t, &err);
	if (c.failed) {
		if (!PyErr_Occurred())
			PyErr_NoMemory();
		goto out;
	}
	if (rc < 0) {
		pt_raise(&err, rc);
		goto out;
	}
	res = pt_stats_dict(t);
out:
	Py_XDECREF(c.obj);
	Py_XDECREF(c.names);
	free(s);
	trawl_close(t);
	return res;
}
