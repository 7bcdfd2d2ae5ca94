/* SPDX-License-Identifier: MIT */
/*
 * Trace.run(script): the script language through trawl_script_*, with its
 * output as the one JSON object of `trawl run --json` (maps by name, the
 * printf text under "output"), collected in C while the GIL is released;
 * the trawl package parses it into DataFrames.
 */
#include "pytrawl.h"

#include <stdlib.h>
#include <string.h>

struct out_buf {
	char *p;
	size_t n, cap;
	int failed;
};

static void write_out(void *ctx, const char *buf, size_t len)
{
	struct out_buf *b = ctx;
	if (b->failed)
		return;
	if (b->n + len > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->n + len)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->failed = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, buf, len);
	b->n += len;
}

static int poll_signals(const trawl_event *ev, void *ctx)
{
	(void)ev;
	return pt_poll(ctx);
}

/* _trawl.script(path, opts, source, name, map_size) -> (json, faults) */
PyObject *pt_script(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *path, *opts;
	const char *src, *name;
	Py_ssize_t len;
	unsigned long long map_size = 0;
	if (!PyArg_ParseTuple(args, "OOs#s|K", &path, &opts, &src, &len, &name,
			      &map_size))
		return NULL;
	trawl_trace *t = pt_open(path, opts);
	if (!t)
		return NULL;
	struct out_buf out = {0};
	trawl_script_opts so = {
		.flags = TRAWL_SCRIPT_JSON,
		.map_size = (size_t)map_size,
		.name = name,
		.write = write_out,
		.write_ctx = &out,
	};
	trawl_error err = {0};
	PyObject *res = NULL;
	trawl_script *s = trawl_script_compile(t, src, (size_t)len, &so, &err);
	if (!s) {
		pt_raise(&err, err.code ? err.code : TRAWL_EPARSE);
		goto out;
	}
	/* Ctrl-C: a no-op subscriber polls for signals on the script's own
	 * events (on every event, the readers could no longer pass over the
	 * others cheaply) */
	struct pt_run run = {.countdown = 1u << 16};
	const char *ev;
	for (size_t i = 0; (ev = trawl_script_event(s, i, NULL)); i++)
		if (trawl_on(t, ev, poll_signals, &run)) {
			PyErr_NoMemory();
			goto out;
		}
	run.ts = PyEval_SaveThread();
	int rc = trawl_script_run(s, &err);
	PyEval_RestoreThread(run.ts);
	if (run.interrupted)
		goto out; /* the signal handler's exception is set */
	if (rc < 0) {
		pt_raise(&err, rc);
		goto out;
	}
	if (out.failed) {
		PyErr_NoMemory();
		goto out;
	}
	PyObject *faults = PyList_New(0);
	const char *msg;
	uint64_t count;
	for (size_t i = 0; faults && (msg = trawl_script_fault(s, i, &count));
	     i++) {
		PyObject *f = Py_BuildValue("(NK)", pt_str(msg, strlen(msg)),
					    (unsigned long long)count);
		if (!f || PyList_Append(faults, f))
			Py_CLEAR(faults);
		Py_XDECREF(f);
	}
	if (faults)
		res = Py_BuildValue("(NN)", pt_str(out.p ? out.p : "", out.n),
				    faults);
out:
	free(out.p);
	trawl_script_free(s);
	trawl_close(t);
	return res;
}
