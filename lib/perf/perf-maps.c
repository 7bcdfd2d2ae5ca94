/* SPDX-License-Identifier: MIT */
/*
 * The tasks' memory mappings, as perf.data's MMAP and MMAP2 records say
 * them (perf synthesizes those of the tasks running when it starts, the
 * kernel writes the rest as they are made): for a user frame of a
 * callchain, the file it is in and where in the file, as perf script shows
 * it ("ee137 ... (/usr/lib/x86_64-linux-gnu/libc.so.6)"). A process's
 * mappings are sorted by address and do not overlap: a new one takes the
 * place of what it covers, as in perf (maps__fixup_overlappings); a
 * forked process starts with its parent's. Applied in time order by the
 * record source (perf-reader.c), on the thread that makes the records.
 */
#include "perf-int.h"

static tw_perf_pmaps *proc(tw_perf_maps *m, int32_t pid, int make)
{
	if (!m->cap) {
		if (!make)
			return NULL;
		m->procs = tw_calloc(m->mem, 256, sizeof(*m->procs));
		if (!m->procs)
			return NULL;
		m->cap = 256;
	}
	if (make && (m->nprocs + 1) * 2 > m->cap) {
		size_t ncap = m->cap * 2;
		tw_perf_pmaps *n = tw_calloc(m->mem, ncap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->procs[i].used)
				continue;
			size_t k = ((uint32_t)m->procs[i].pid * 2654435761u) &
				   (ncap - 1);
			while (n[k].used)
				k = (k + 1) & (ncap - 1);
			n[k] = m->procs[i];
		}
		tw_free(m->mem, m->procs);
		m->procs = n;
		m->cap = ncap;
	}
	size_t mask = m->cap - 1, k = ((uint32_t)pid * 2654435761u) & mask;
	while (m->procs[k].used) {
		if (m->procs[k].pid == pid)
			return &m->procs[k];
		k = (k + 1) & mask;
	}
	if (!make)
		return NULL;
	m->procs[k] = (tw_perf_pmaps){.pid = pid, .used = 1};
	m->nprocs++;
	return &m->procs[k];
}

/* Room for n more mappings in p. */
static int room(tw_perf_maps *m, tw_perf_pmaps *p, size_t n)
{
	void *v = p->m;
	if (tw_grow(m->mem, &v, &p->cap, p->n + n, sizeof(*p->m)))
		return -1;
	p->m = v;
	return 0;
}

/* The first mapping of p that ends after addr. */
static size_t after(const tw_perf_pmaps *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->m[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int tw_perf_maps_add(tw_perf_maps *m, int32_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *name, size_t nlen)
{
	uint64_t end = start + len;
	if (!len || end < start)
		return 0;
	tw_perf_pmaps *p = proc(m, pid, 1);
	void *v = m->names;
	if (!p || room(m, p, 2) ||
	    tw_grow(m->mem, &v, &m->names_cap, m->names_len + nlen + 1, 1))
		return -1;
	m->names = v;
	uint32_t at = (uint32_t)m->names_len;
	memcpy(m->names + at, name, nlen);
	m->names[at + nlen] = 0;
	m->names_len += nlen + 1;
	/* what it covers of the mappings there goes: [i, j) overlap it */
	size_t i = after(p, start), j = i;
	while (j < p->n && p->m[j].start < end)
		j++;
	tw_perf_umap keep[2];
	size_t nkeep = 0;
	if (i < j && p->m[i].start < start) { /* the part before it */
		keep[nkeep] = p->m[i];
		keep[nkeep++].end = start;
	}
	if (i < j && p->m[j - 1].end > end) { /* the part after it */
		tw_perf_umap r = p->m[j - 1];
		r.pgoff += end - r.start;
		r.start = end;
		keep[nkeep++] = r;
	}
	size_t add = 1 + nkeep; /* replaces j - i */
	memmove(p->m + i + add, p->m + j, (p->n - j) * sizeof(*p->m));
	p->n = p->n - (j - i) + add;
	size_t k = i;
	if (nkeep && keep[0].end == start)
		p->m[k++] = keep[0];
	p->m[k++] = (tw_perf_umap){start, end, pgoff, at};
	if (nkeep && keep[nkeep - 1].start == end)
		p->m[k++] = keep[nkeep - 1];
	return 0;
}

int tw_perf_maps_fork(tw_perf_maps *m, int32_t pid, int32_t ppid)
{
	tw_perf_pmaps *parent = proc(m, ppid, 0);
	if (!parent || !parent->n)
		return 0;
	size_t n = parent->n;
	tw_perf_pmaps *p = proc(m, pid, 1); /* may move the table */
	parent = proc(m, ppid, 0);
	if (!p || !parent)
		return -1;
	p->n = 0;
	if (room(m, p, n))
		return -1;
	memcpy(p->m, parent->m, n * sizeof(*p->m));
	p->n = n;
	return 0;
}

const tw_perf_pmaps *tw_perf_maps_proc(const tw_perf_maps *m, int32_t pid)
{
	return proc((tw_perf_maps *)m, pid, 0);
}

const char *tw_perf_maps_find(const tw_perf_maps *m, const tw_perf_pmaps *p,
			      uint64_t addr, uint64_t *rel)
{
	if (!p)
		return NULL;
	size_t i = after(p, addr);
	if (i == p->n || p->m[i].start > addr)
		return NULL;
	*rel = addr - p->m[i].start + p->m[i].pgoff;
	return m->names + p->m[i].name;
}

void tw_perf_maps_reset(tw_perf_maps *m)
{
	for (size_t i = 0; i < m->cap; i++)
		tw_free(m->mem, m->procs[i].m);
	if (m->procs)
		memset(m->procs, 0, m->cap * sizeof(*m->procs));
	m->nprocs = 0;
	m->names_len = 0;
}

void tw_perf_maps_fini(tw_perf_maps *m)
{
	tw_perf_maps_reset(m);
	tw_free(m->mem, m->procs);
	tw_free(m->mem, m->names);
	m->procs = NULL;
	m->names = NULL;
	m->cap = m->names_cap = 0;
}
