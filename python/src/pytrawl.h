/* SPDX-License-Identifier: MIT */
/*
 * The _trawl extension: the CPython face of libtrawl, over its public API
 * only. A Python Trace is a path and options; every query opens the file
 * again (a trawl_trace runs once) and makes one pass, with the GIL released
 * while libtrawl reads, unless Python callbacks run on each event.
 */
#ifndef PYTRAWL_H
#define PYTRAWL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <trawl/trawl.h>

/* trawl.TrawlError, raised with the reader's message */
extern PyObject *pt_error;

/* The options of trawl.open(), kept as C values for each pass. */
struct pt_opts {
	trawl_open_opts o;
	PyObject *formats; /* bytes, or NULL */
	PyObject *tmpdir;  /* bytes, or NULL */
};

/* Parse the opts dict of a Trace; 0 or -1 with an exception set. */
int pt_opts_parse(PyObject *dict, struct pt_opts *out);
void pt_opts_clear(struct pt_opts *o);

/* Open a path (a str or bytes object) with options; NULL with an exception
 * set. */
trawl_trace *pt_open(PyObject *path, PyObject *opts);
/* The same from a call's (path[, opts]) arguments. */
trawl_trace *pt_open_args(PyObject *args);

/* Set a TrawlError from a trawl_error (or a bare code) and return NULL. */
PyObject *pt_raise(const trawl_error *err, int code);

/*
 * Run a trace with the GIL released. While it runs, callbacks may call
 * pt_poll_signals() every so often: it takes the GIL back for a moment to
 * notice Ctrl-C. Return: trawl_run()'s value; on error (negative) a
 * TrawlError is set; when a signal handler raised, PT_STOPPED with that
 * exception set.
 */
#define PT_STOPPED 0x7074
struct pt_run {
	PyThreadState *ts; /* while the GIL is released */
	uint64_t countdown;
	int interrupted;
};
int pt_run_nogil(trawl_trace *t, struct pt_run *run);

/* Every 64 Ki events: 0 to go on, PT_STOPPED when a handler raised. */
static inline int pt_poll(struct pt_run *run)
{
	if (--run->countdown)
		return 0;
	run->countdown = 1u << 16;
	PyEval_RestoreThread(run->ts);
	int bad = PyErr_CheckSignals() < 0;
	run->ts = PyEval_SaveThread();
	if (bad) {
		run->interrupted = 1;
		return PT_STOPPED;
	}
	return 0;
}

/* A dict of the run's counters (events per type, span, lost, bad lines). */
PyObject *pt_stats_dict(trawl_trace *t);

/* Text as str: UTF-8, undecodable bytes kept as surrogates (reversible, so
 * distinct byte strings stay distinct). */
static inline PyObject *pt_str(const char *s, size_t n)
{
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "surrogateescape");
}

/* numpy arrays over malloc'd buffers they take (*data becomes NULL; n 0
 * frees it), and a dictionary's strings as a list, for Categoricals */
struct strdict;
PyObject *pt_array_i64(int64_t **data, size_t n);
PyObject *pt_array_i32(int32_t **data, size_t n);
PyObject *pt_categories(const struct strdict *d);

/* The module's functions, one file each. */
PyObject *pt_info(PyObject *self, PyObject *args);
PyObject *pt_frames(PyObject *self, PyObject *args);
PyObject *pt_apply(PyObject *self, PyObject *args);
PyObject *pt_analysis(PyObject *self, PyObject *args, PyObject *kw);
PyObject *pt_script(PyObject *self, PyObject *args);
PyObject *pt_chart(PyObject *self, PyObject *args);
PyObject *pt_tasks(PyObject *self, PyObject *args);
int pt_event_type_ready(PyObject *module);
int pt_numpy_init(void);

#endif
