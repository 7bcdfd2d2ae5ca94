/* SPDX-License-Identifier: MIT */
/*
 * Intervals collected in C while an analysis runs (every latency, handler
 * run or work item; every state interval of every task), as columns that
 * become numpy arrays and Categoricals without a Python object per row.
 * The callbacks run with the GIL released: plain C and malloc only.
 */
#include "intervals.h"

#include <stdlib.h>
#include <string.h>

static int grow(struct pt_intervals *iv)
{
	size_t cap = iv->cap ? iv->cap * 2 : 4096;
	struct {
		void **p;
		size_t size;
	} cols[] = {
		{(void **)&iv->start, sizeof(*iv->start)},
		{(void **)&iv->end, sizeof(*iv->end)},
		{(void **)&iv->id, sizeof(*iv->id)},
		{(void **)&iv->pid, sizeof(*iv->pid)},
		{(void **)&iv->cpu, sizeof(*iv->cpu)},
		{(void **)&iv->name, sizeof(*iv->name)},
		{(void **)&iv->kind, sizeof(*iv->kind)},
		{(void **)&iv->part, sizeof(*iv->part)},
	};
	/* each grown in turn: a failure leaves the others valid (and
	 * larger), all freed by pt_intervals_free() */
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		void *p = realloc(*cols[i].p, cap * cols[i].size);
		if (!p)
			return -1;
		*cols[i].p = p;
	}
	iv->cap = cap;
	return 0;
}

static int32_t code(struct strdict *d, const char *s)
{
	return s ? strdict_code(d, s, strlen(s)) : -1;
}

void pt_intervals_add(struct pt_intervals *iv, int64_t start, int64_t end,
		      int pid, int cpu, int64_t id, const char *name,
		      const char *kind, const char *part)
{
	if (iv->failed)
		return;
	if (iv->n == iv->cap && grow(iv)) {
		iv->failed = 1;
		return;
	}
	size_t i = iv->n;
	iv->start[i] = start;
	iv->end[i] = end;
	iv->id[i] = id;
	iv->pid[i] = pid;
	iv->cpu[i] = cpu;
	iv->name[i] = code(&iv->names, name);
	iv->kind[i] = code(&iv->kinds, kind);
	iv->part[i] = code(&iv->parts, part);
	if ((name && iv->name[i] < 0) || (kind && iv->kind[i] < 0) ||
	    (part && iv->part[i] < 0)) {
		iv->failed = 1;
		return;
	}
	iv->n++;
}

static PyObject *cat(int32_t **codes, size_t n, const struct strdict *d)
{
	PyObject *c = pt_array_i32(codes, n);
	PyObject *names = c ? pt_categories(d) : NULL;
	if (!names) {
		Py_XDECREF(c);
		return NULL;
	}
	return Py_BuildValue("(NN)", c, names);
}

PyObject *pt_intervals_dict(struct pt_intervals *iv)
{
	if (iv->failed)
		return PyErr_NoMemory();
	size_t n = iv->n;
	return Py_BuildValue(
		"{s:N,s:N,s:N,s:N,s:N,s:N,s:N,s:N}", "start",
		pt_array_i64(&iv->start, n), "end", pt_array_i64(&iv->end, n),
		"id", pt_array_i64(&iv->id, n), "pid",
		pt_array_i32(&iv->pid, n), "cpu", pt_array_i32(&iv->cpu, n),
		"name", cat(&iv->name, n, &iv->names), "kind",
		cat(&iv->kind, n, &iv->kinds), "part",
		cat(&iv->part, n, &iv->parts));
}

void pt_intervals_free(struct pt_intervals *iv)
{
	free(iv->start);
	free(iv->end);
	free(iv->id);
	free(iv->pid);
	free(iv->cpu);
	free(iv->name);
	free(iv->kind);
	free(iv->part);
	strdict_free(&iv->names);
	strdict_free(&iv->kinds);
	strdict_free(&iv->parts);
	memset(iv, 0, sizeof(*iv));
}
