/* SPDX-License-Identifier: MIT */
/*
 * Trace.chart(): the library's timeline (include/trawl/timeline.h) of a
 * trace, its index from the user's cache when it is there, drawn as SVG
 * into memory with the GIL released.
 */
#include "pytrawl.h"

#include <stdio.h>
#include <stdlib.h>

/* chart(path, opts, start, end, width, lanes, irq_threshold, cache) ->
 * the SVG as str; start/end: ns of trace time, None the trace's own */
PyObject *pt_chart(PyObject *self, PyObject *args)
{
	(void)self;
	PyObject *path, *opts, *start, *end, *lanes;
	int width, cache;
	long long threshold;
	if (!PyArg_ParseTuple(args, "O&OOOiOLp", PyUnicode_FSConverter, &path,
			      &opts, &start, &end, &width, &lanes, &threshold,
			      &cache))
		return NULL;
	PyObject *ret = NULL;
	struct pt_opts po;
	trawl_chart_opts co = {.width = width, .kinds = TRAWL_CHART_DEFAULT};
	trawl_error err = {0};
	if (pt_opts_parse(opts, &po)) {
		Py_DECREF(path);
		return NULL;
	}
	if (width < 10 || width > TRAWL_CHART_MAX_WIDTH) {
		PyErr_Format(PyExc_ValueError,
			     "chart: width must be 10 .. %d pixels, not %d",
			     TRAWL_CHART_MAX_WIDTH, width);
		goto out;
	}
	if (lanes != Py_None) {
		const char *l =
			PyUnicode_Check(lanes) ? PyUnicode_AsUTF8(lanes) : NULL;
		if (!l) {
			PyErr_SetString(PyExc_TypeError,
					"chart: lanes must be a str such as "
					"\"cpu,slice\"");
			goto out;
		}
		if (trawl_chart_kinds(l, &co.kinds, &err)) {
			PyErr_Format(PyExc_ValueError, "chart: lanes: %s",
				     err.msg);
			goto out;
		}
	}
	trawl_timeline_opts to = {.open = po.o,
				  .irq_threshold = threshold,
				  .flags = cache ? 0 : TRAWL_TIMELINE_NO_CACHE};
	char *svg = NULL;
	size_t len = 0;
	int rc = 0, empty = 0, outside = 0;
	trawl_timeline_info in = {0};
	trawl_timeline *tl = NULL;
	FILE *f = NULL;
	Py_BEGIN_ALLOW_THREADS;
	tl = trawl_timeline_open(PyBytes_AS_STRING(path), &to, &err);
	if (!tl) {
		rc = -(err.code ? err.code : TRAWL_EIO);
	} else {
		trawl_timeline_get_info(tl, &in);
		co.from = start != Py_None ? 0 : in.first;
		co.to = end != Py_None ? 0 : in.last + 1;
	}
	Py_END_ALLOW_THREADS;
	if (rc) {
		pt_raise(&err, rc);
		goto out;
	}
	if (start != Py_None && (co.from = PyLong_AsLongLong(start)) == -1 &&
	    PyErr_Occurred())
		goto close;
	if (end != Py_None && (co.to = PyLong_AsLongLong(end)) == -1 &&
	    PyErr_Occurred())
		goto close;
	empty = !in.events;
	outside = co.to <= in.first || co.from > in.last;
	if (co.to <= co.from || empty || outside) {
		PyErr_Format(PyExc_ValueError,
			     empty ? "chart: the trace has no events to draw"
			     : co.to <= co.from
				     ? "chart: end must be after start"
				     : "chart: the window is outside the trace "
				       "(%lld .. %lld ns)",
			     (long long)in.first, (long long)in.last);
		goto close;
	}
	Py_BEGIN_ALLOW_THREADS;
	f = open_memstream(&svg, &len);
	rc = f ? trawl_timeline_svg(tl, &co, f, &err) : -TRAWL_ENOMEM;
	if (f && fclose(f) && !rc)
		rc = -TRAWL_ENOMEM;
	Py_END_ALLOW_THREADS;
	if (rc)
		pt_raise(&err, rc);
	else
		ret = PyUnicode_DecodeUTF8(svg, (Py_ssize_t)len, "strict");
	free(svg);
close:
	Py_BEGIN_ALLOW_THREADS;
	trawl_timeline_close(tl);
	Py_END_ALLOW_THREADS;
out:
	pt_opts_clear(&po);
	Py_DECREF(path);
	return ret;
}
