/* SPDX-License-Identifier: MIT */
/*
 * _trawl: the module, its exception, the options of trawl.open(), opening
 * a trace and running it with the GIL released, and a trace's counters.
 */
#include "pytrawl.h"

#include <string.h>

PyObject *pt_error;

/* An integer option (any sign): 1 set, 0 absent or None, -1 raised; the
 * window's "from"/"to" (ns), which Trace's start=/end= give */
static int opt_time(PyObject *dict, const char *key, int64_t *out)
{
	PyObject *v = PyDict_GetItemString(dict, key);
	if (!v || v == Py_None)
		return 0;
	long long x = PyLong_AsLongLong(v);
	if (x == -1 && PyErr_Occurred())
		return -1;
	*out = x;
	return 1;
}

/* A count or size: as opt_time(), >= 0 */
static int opt_int(PyObject *dict, const char *key, long long *out)
{
	int64_t x;
	int rc = opt_time(dict, key, &x);
	if (rc <= 0)
		return rc;
	if (x < 0) {
		PyErr_Format(PyExc_ValueError, "trawl.open: %s must be >= 0",
			     key);
		return -1;
	}
	*out = x;
	return 1;
}

static int opt_bool(PyObject *dict, const char *key, unsigned bit,
		    unsigned *flags)
{
	PyObject *v = PyDict_GetItemString(dict, key);
	if (!v)
		return 0;
	int on = PyObject_IsTrue(v);
	if (on < 0)
		return -1;
	if (on)
		*flags |= bit;
	return 0;
}

static int opt_path(PyObject *dict, const char *key, PyObject **out)
{
	PyObject *v = PyDict_GetItemString(dict, key);
	if (!v || v == Py_None)
		return 0;
	if (!PyUnicode_FSConverter(v, out))
		return -1;
	return 0;
}

int pt_opts_parse(PyObject *dict, struct pt_opts *out)
{
	memset(out, 0, sizeof(*out));
	if (!dict || dict == Py_None)
		return 0;
	if (!PyDict_Check(dict)) {
		PyErr_SetString(PyExc_TypeError,
				"trawl: options must be a dict");
		return -1;
	}
	static const char *const known[] = {
		"threads", "formats",	   "tmpdir", "sort_memory",
		"strict",  "source_order", "from",	  "to",
		NULL};
	PyObject *key, *value;
	Py_ssize_t pos = 0;
	while (PyDict_Next(dict, &pos, &key, &value)) {
		const char *k =
			PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
		int ok = 0;
		for (size_t i = 0; k && known[i]; i++)
			ok |= !strcmp(k, known[i]);
		if (!ok) {
			PyErr_Format(PyExc_TypeError,
				     "trawl.open: unknown option %R (known: "
				     "threads, formats, tmpdir, sort_memory, "
				     "strict, source_order)",
				     key);
			return -1;
		}
	}
	long long v;
	int rc = opt_int(dict, "threads", &v);
	if (rc < 0)
		goto fail;
	if (rc)
		out->o.threads = v > 64 ? 64 : (int)v;
	rc = opt_int(dict, "sort_memory", &v);
	if (rc < 0)
		goto fail;
	if (rc)
		out->o.sort_memory = (size_t)v;
	if (opt_bool(dict, "strict", TRAWL_OPEN_STRICT, &out->o.flags) ||
	    opt_bool(dict, "source_order", TRAWL_OPEN_SOURCE_ORDER,
		     &out->o.flags) ||
	    opt_path(dict, "formats", &out->formats) ||
	    opt_path(dict, "tmpdir", &out->tmpdir))
		goto fail;
	/* "from"/"to": a ranged run (the library enters the file at "from"
	 * where its format allows), which Trace's start=/end= ask for */
	int64_t from = INT64_MIN, to = INT64_MAX;
	int has_from = opt_time(dict, "from", &from);
	int has_to = opt_time(dict, "to", &to);
	if (has_from < 0 || has_to < 0)
		goto fail;
	if (has_from || has_to) {
		out->o.flags |= TRAWL_OPEN_RANGE;
		out->o.from = from;
		out->o.to = to;
	}
	if (out->formats)
		out->o.formats = PyBytes_AS_STRING(out->formats);
	if (out->tmpdir)
		out->o.tmpdir = PyBytes_AS_STRING(out->tmpdir);
	return 0;
fail:
	pt_opts_clear(out);
	return -1;
}

void pt_opts_clear(struct pt_opts *o)
{
	Py_CLEAR(o->formats);
	Py_CLEAR(o->tmpdir);
}

PyObject *pt_raise(const trawl_error *err, int code)
{
	if (code < 0)
		code = -code;
	const char *msg = err && err->msg[0] ? err->msg : trawl_strerror(code);
	PyObject *exc = PyObject_CallFunction(pt_error, "s", msg);
	if (!exc)
		return NULL;
	PyObject *name = PyUnicode_FromString(trawl_err_name(code));
	PyObject *file = err ? PyUnicode_DecodeFSDefault(err->file) : NULL;
	if (!file)
		PyErr_Clear();
	PyObject_SetAttrString(exc, "code", name ? name : Py_None);
	PyObject_SetAttrString(exc, "file", file ? file : Py_None);
	PyObject *num = PyLong_FromUnsignedLongLong(err ? err->line : 0);
	PyObject_SetAttrString(exc, "line", num);
	Py_XDECREF(num);
	num = PyLong_FromUnsignedLongLong(err ? err->offset : 0);
	PyObject_SetAttrString(exc, "offset", num);
	Py_XDECREF(num);
	num = PyLong_FromLong(err ? err->sys_errno : 0);
	PyObject_SetAttrString(exc, "errno", num);
	Py_XDECREF(num);
	Py_XDECREF(name);
	Py_XDECREF(file);
	PyErr_SetObject(pt_error, exc);
	Py_DECREF(exc);
	return NULL;
}

trawl_trace *pt_open(PyObject *path, PyObject *opts)
{
	PyObject *bytes = NULL;
	if (!PyUnicode_FSConverter(path, &bytes))
		return NULL;
	struct pt_opts o;
	if (pt_opts_parse(opts, &o)) {
		Py_DECREF(bytes);
		return NULL;
	}
	trawl_error err = {0};
	trawl_trace *t;
	const char *p = PyBytes_AS_STRING(bytes);
	PyThreadState *ts = PyEval_SaveThread(); /* a trace.dat's header */
	t = trawl_open(p, &o.o, &err);
	PyEval_RestoreThread(ts);
	pt_opts_clear(&o);
	Py_DECREF(bytes);
	if (!t)
		pt_raise(&err, err.code ? err.code : TRAWL_EIO);
	return t;
}

trawl_trace *pt_open_args(PyObject *args)
{
	PyObject *path, *opts = Py_None;
	if (!PyArg_ParseTuple(args, "O|O", &path, &opts))
		return NULL;
	return pt_open(path, opts);
}

int pt_run_nogil(trawl_trace *t, struct pt_run *run)
{
	trawl_error err = {0};
	run->countdown = 1u << 16;
	run->interrupted = 0;
	run->ts = PyEval_SaveThread();
	int rc = trawl_run(t, &err);
	PyEval_RestoreThread(run->ts);
	run->ts = NULL;
	if (run->interrupted)
		return PT_STOPPED; /* the signal handler's exception is set */
	if (rc < 0)
		pt_raise(&err, rc);
	return rc;
}

static int set_u64(PyObject *d, const char *k, uint64_t v)
{
	PyObject *o = PyLong_FromUnsignedLongLong(v);
	int rc = o ? PyDict_SetItemString(d, k, o) : -1;
	Py_XDECREF(o);
	return rc;
}

static int set_i64(PyObject *d, const char *k, int64_t v)
{
	PyObject *o = PyLong_FromLongLong(v);
	int rc = o ? PyDict_SetItemString(d, k, o) : -1;
	Py_XDECREF(o);
	return rc;
}

static int set_str(PyObject *d, const char *k, const char *v)
{
	PyObject *o = pt_str(v, strlen(v));
	int rc = o ? PyDict_SetItemString(d, k, o) : -1;
	Py_XDECREF(o);
	return rc;
}

PyObject *pt_stats_dict(trawl_trace *t)
{
	const trawl_stats *st = trawl_trace_stats(t);
	PyObject *d = PyDict_New();
	PyObject *events = PyDict_New();
	PyObject *systems = PyDict_New();
	PyObject *cpus = PyDict_New();
	PyObject *bad = PyList_New(0);
	if (!d || !events || !systems || !cpus || !bad)
		goto fail;
	for (uint32_t i = 0; i < trawl_type_count(t); i++) {
		uint64_t n = trawl_type_events(t, i);
		if (!n)
			continue;
		const char *name = trawl_type_name(t, i);
		if (set_u64(events, name, n) ||
		    set_str(systems, name, trawl_type_system(t, i)))
			goto fail;
	}
	for (int c = 0; c < trawl_cpu_count(t); c++) {
		uint64_t n = trawl_cpu_events(t, c),
			 lost = trawl_cpu_lost(t, c);
		if (!n && !lost)
			continue;
		PyObject *k = PyLong_FromLong(c);
		PyObject *v = Py_BuildValue("(KK)", (unsigned long long)n,
					    (unsigned long long)lost);
		int rc = k && v ? PyDict_SetItem(cpus, k, v) : -1;
		Py_XDECREF(k);
		Py_XDECREF(v);
		if (rc)
			goto fail;
	}
	for (uint64_t i = 0; i < st->bad_lines_kept; i++) {
		PyObject *v = PyLong_FromUnsignedLongLong(st->bad_line[i]);
		int rc = v ? PyList_Append(bad, v) : -1;
		Py_XDECREF(v);
		if (rc)
			goto fail;
	}
	if (PyDict_SetItemString(d, "events", events) ||
	    PyDict_SetItemString(d, "systems", systems) ||
	    PyDict_SetItemString(d, "cpus", cpus) ||
	    PyDict_SetItemString(d, "bad_line", bad) ||
	    set_str(d, "format", trawl_format_name(trawl_format(t))) ||
	    set_str(d, "compression", trawl_compression(t)) ||
	    set_u64(d, "total_events", st->events) ||
	    set_u64(d, "bad_lines", st->bad_lines) ||
	    set_u64(d, "reordered", st->reordered) ||
	    set_u64(d, "lost_events", st->lost_events) ||
	    set_u64(d, "overwritten", st->overwritten) ||
	    set_i64(d, "first_time", st->first_time) ||
	    set_i64(d, "last_time", st->last_time) ||
	    set_u64(d, "bytes", st->bytes) || set_u64(d, "lines", st->lines) ||
	    set_u64(d, "spilled_runs", st->spilled_runs) ||
	    set_u64(d, "format_misses", st->format_misses))
		goto fail;
	/* where the source says what machine recorded it (a perf.data) */
	static const char *const host_keys[] = {"hostname", "os_release"};
	for (size_t i = 0; i < 2; i++) {
		const char *v = trawl_trace_host(t, host_keys[i]);
		if (v && set_str(d, host_keys[i], v))
			goto fail;
	}
	Py_DECREF(events);
	Py_DECREF(systems);
	Py_DECREF(cpus);
	Py_DECREF(bad);
	return d;
fail:
	Py_XDECREF(d);
	Py_XDECREF(events);
	Py_XDECREF(systems);
	Py_XDECREF(cpus);
	Py_XDECREF(bad);
	return NULL;
}

static int count_only(const trawl_event *ev, void *ctx)
{
	(void)ev;
	return pt_poll(ctx);
}

/* _trawl.info(path, opts): one pass over every event, the counters. */
PyObject *pt_info(PyObject *self, PyObject *args)
{
	(void)self;
	trawl_trace *t = pt_open_args(args);
	if (!t)
		return NULL;
	struct pt_run run = {0};
	PyObject *res = NULL;
	if (trawl_on(t, "*", count_only, &run)) {
		PyErr_NoMemory();
	} else {
		int rc = pt_run_nogil(t, &run);
		if (rc >= 0 && rc != PT_STOPPED)
			res = pt_stats_dict(t);
	}
	trawl_close(t);
	return res;
}

static int first_event(const trawl_event *ev, void *ctx)
{
	*(int64_t *)ctx = trawl_event_time(ev);
	return 1; /* stop: only the first one is wanted */
}

/* _trawl.first_time(path, opts): the first delivered event's time (ns),
 * None for a trace without events; reads only as far as that event. */
static PyObject *pt_first_time(PyObject *self, PyObject *args)
{
	(void)self;
	trawl_trace *t = pt_open_args(args);
	if (!t)
		return NULL;
	int64_t first = 0;
	struct pt_run run = {0};
	PyObject *res = NULL;
	int rc = trawl_on(t, "*", first_event, &first);
	if (rc) {
		PyErr_NoMemory();
	} else {
		rc = pt_run_nogil(t, &run);
		if (rc == 1)
			res = PyLong_FromLongLong(first);
		else if (rc == 0)
			res = Py_NewRef(Py_None);
	}
	trawl_close(t);
	return res;
}

/* _trawl.check(path, opts): open and close, raising what opening raises */
static PyObject *pt_check(PyObject *self, PyObject *args)
{
	(void)self;
	trawl_trace *t = pt_open_args(args);
	if (!t)
		return NULL;
	PyObject *fmt =
		PyUnicode_FromString(trawl_format_name(trawl_format(t)));
	trawl_close(t);
	return fmt;
}

/* known(path, opts, names) -> [(name, known, nearest or None)] */
static PyObject *pt_known(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *path, *opts, *names;
	if (!PyArg_ParseTuple(args, "OOO!", &path, &opts, &PyList_Type, &names))
		return NULL;
	trawl_trace *t = pt_open(path, opts);
	if (!t)
		return NULL;
	Py_ssize_t n = PyList_GET_SIZE(names);
	PyObject *out = PyList_New(n);
	for (Py_ssize_t i = 0; out && i < n; i++) {
		const char *name = PyUnicode_AsUTF8(PyList_GET_ITEM(names, i));
		const char *near = NULL;
		int known = name ? trawl_event_known(t, name, &near) : -1;
		PyObject *o = NULL;
		if (known < 0 && !PyErr_Occurred())
			PyErr_NoMemory();
		else if (known >= 0)
			o = Py_BuildValue("(sOz)", name,
					  known ? Py_True : Py_False, near);
		if (!o) {
			Py_CLEAR(out);
			break;
		}
		PyList_SET_ITEM(out, i, o);
	}
	trawl_close(t);
	return out;
}

static PyObject *pt_version(PyObject *self, PyObject *unused)
{
	(void)self;
	(void)unused;
	return PyUnicode_FromString(trawl_version());
}

static PyMethodDef methods[] = {
	{"check", pt_check, METH_VARARGS,
	 "check(path, opts) -> format name: open the trace, or raise"},
	{"known", pt_known, METH_VARARGS,
	 "known(path, opts, names) -> [(name, known, nearest or None)]"},
	{"info", pt_info, METH_VARARGS,
	 "info(path, opts) -> dict: one pass, the trace's counters"},
	{"frames", pt_frames, METH_VARARGS,
	 "frames(path, opts, patterns, with_event) -> (list of column lists, "
	 "stats)"},
	{"apply", pt_apply, METH_VARARGS,
	 "apply(path, opts, {pattern: callable}) -> stats"},
	{"analysis", (PyCFunction)(void (*)(void))pt_analysis,
	 METH_VARARGS | METH_KEYWORDS,
	 "analysis(path, opts, name, ...) -> the result as plain data"},
	{"script", pt_script, METH_VARARGS,
	 "script(path, opts, source, name, map_size) -> (json text, faults)"},
	{"chart", pt_chart, METH_VARARGS,
	 "chart(path, opts, start, end, width, lanes, irq_threshold, cache) "
	 "-> the SVG of the trace's timeline"},
	{"tasks", pt_tasks, METH_VARARGS,
	 "tasks(path, opts) -> each (pid, name) seen, first and last"},
	{"first_time", pt_first_time, METH_VARARGS,
	 "first_time(path, opts) -> the first event's time in ns, or None"},
	{"version", pt_version, METH_NOARGS, "libtrawl's version"},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	"_trawl",
	"libtrawl for Python (use the trawl package)",
	-1,
	methods,
	NULL,
	NULL,
	NULL,
	NULL,
};

PyMODINIT_FUNC PyInit__trawl(void);
PyMODINIT_FUNC PyInit__trawl(void)
{
	PyObject *m = PyModule_Create(&module);
	if (!m)
		return NULL;
	pt_error = PyErr_NewExceptionWithDoc(
		"trawl.TrawlError",
		"A trace could not be read: the reader's message, with .code "
		"(TRAWL_E*), .file, .line, .offset, .errno",
		NULL, NULL);
	if (!pt_error || PyModule_AddObjectRef(m, "TrawlError", pt_error) ||
	    pt_event_type_ready(m) || pt_numpy_init()) {
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
