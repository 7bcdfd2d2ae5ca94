/* SPDX-License-Identifier: MIT */
/*
 * The kernel stacks a script meets, interned (script-int.h, tw_stacks). A
 * kstack value is an id here; maps keyed by it sort and print by the
 * frames, so two runs that met the stacks in another order (a BPF run's
 * stacks come as its maps are read, a file's as its events go by) print
 * the same.
 *
 * The frames on top that belong to the tracing code differ by who took
 * the stack: ftrace's stacktrace trigger starts in
 * trace_event_raw_event_EVENT (or ftrace_syscall_enter) and
 * __traceiter_EVENT, a BPF program in __traceiter_EVENT (or
 * perf_syscall_enter), bpftrace shows them. Here they are dropped, so a
 * stack starts where the kernel hit the tracepoint, the same under every
 * back end and on a recording.
 */
#include <stdio.h>
#include <string.h>

#include "script-int.h"

static const char *const tracing_prefixes[] = {
	"trace_event_raw_event_",
	"__traceiter_",
	"perf_trace_",
	"__bpf_trace_",
	"bpf_trace_run",
	"trace_call_bpf",
	"perf_syscall_",
	"ftrace_syscall_",
	"perf_tp_event",
	"__perf_event_overflow",
	"event_triggers_",
	"__trace_stack",
	"trace_event_buffer_commit",
};

void tw_stacks_init(tw_stacks *st, const tw_mem *mem, trawl_trace *t)
{
	memset(st, 0, sizeof(*st));
	st->mem = mem;
	st->t = t;
}

void tw_stacks_fini(tw_stacks *st)
{
	tw_free(st->mem, st->pool);
	tw_free(st->mem, st->v);
	tw_free(st->mem, st->index);
	memset(st, 0, sizeof(*st));
}

static int tracing_frame(const tw_stacks *st, uint64_t addr)
{
	uint64_t off, size;
	const char *name = trawl_trace_symbol(st->t, addr, &off, &size);
	if (!name)
		return 0;
	for (size_t i = 0; i < TW_ARRAY_SIZE(tracing_prefixes); i++)
		if (strncmp(name, tracing_prefixes[i],
			    strlen(tracing_prefixes[i])) == 0)
			return 1;
	return 0;
}

static uint64_t hash_frames(const uint64_t *f, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;
	for (size_t i = 0; i < n; i++) {
		h ^= f[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

static int same(const tw_stacks *st, uint32_t id, const uint64_t *f, size_t n,
		uint64_t h)
{
	const struct tw_stack *x = &st->v[id];
	return x->hash == h && x->n == n &&
	       memcmp(st->pool + x->off, f, n * sizeof(*f)) == 0;
}

static int grow_index(tw_stacks *st)
{
	size_t cap = st->icap ? st->icap * 2 : 256;
	uint32_t *ix = tw_calloc(st->mem, cap, sizeof(*ix));
	if (!ix)
		return -1;
	for (size_t id = 1; id < st->n; id++) {
		size_t k = st->v[id].hash & (cap - 1);
		while (ix[k])
			k = (k + 1) & (cap - 1);
		ix[k] = (uint32_t)id;
	}
	tw_free(st->mem, st->index);
	st->index = ix;
	st->icap = cap;
	return 0;
}

int64_t tw_stack_intern(tw_stacks *st, const uint64_t *frames, size_t n,
			int type)
{
	/* the tracing code's frames on top, and ftrace's end marks */
	while (n && tracing_frame(st, frames[0]))
		frames++, n--;
	for (size_t i = 0; i < n; i++)
		if (frames[i] == 0 || frames[i] == UINT64_MAX) {
			n = i;
			break;
		}
	size_t limit = (size_t)tw_stack_limit(type);
	if (limit && n > limit)
		n = limit;
	if (!n)
		return 0;
	uint64_t h = hash_frames(frames, n);
	if (st->icap) {
		for (size_t k = h & (st->icap - 1); st->index[k];
		     k = (k + 1) & (st->icap - 1))
			if (same(st, st->index[k], frames, n, h))
				return st->index[k];
	}
	if (!st->n)
		st->n = 1; /* id 0: the empty stack */
	if (st->n >= TW_SC_STACKS_MAX) {
		st->dropped++;
		return -1;
	}
	if ((st->n + 1) * 2 > st->icap && grow_index(st) < 0)
		return -2;
	if (st->n + 1 > st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		void *v = tw_realloc(st->mem, st->v, cap * sizeof(*st->v));
		if (!v)
			return -2;
		st->v = v;
		st->cap = cap;
	}
	if (st->npool + n > st->pool_cap) {
		size_t cap = st->pool_cap ? st->pool_cap * 2 : 1024;
		while (cap < st->npool + n)
			cap *= 2;
		void *p =
			tw_realloc(st->mem, st->pool, cap * sizeof(*st->pool));
		if (!p)
			return -2;
		st->pool = p;
		st->pool_cap = cap;
	}
	uint32_t id = (uint32_t)st->n++;
	st->v[id].off = st->npool;
	st->v[id].n = (uint32_t)n;
	st->v[id].hash = h;
	memcpy(st->pool + st->npool, frames, n * sizeof(*frames));
	st->npool += n;
	size_t k = h & (st->icap - 1);
	while (st->index[k])
		k = (k + 1) & (st->icap - 1);
	st->index[k] = id;
	return id;
}

const uint64_t *tw_stack_frames(const tw_stacks *st, int64_t id, size_t *n)
{
	if (id <= 0 || (size_t)id >= st->n) {
		*n = 0;
		return NULL;
	}
	*n = st->v[id].n;
	return st->pool + st->v[id].off;
}

int tw_stack_cmp(const tw_stacks *st, int64_t a, int64_t b)
{
	if (a == b)
		return 0;
	size_t na, nb;
	const uint64_t *fa = tw_stack_frames(st, a, &na);
	const uint64_t *fb = tw_stack_frames(st, b, &nb);
	for (size_t i = 0; i < na && i < nb; i++)
		if (fa[i] != fb[i])
			return fa[i] < fb[i] ? -1 : 1;
	return na < nb ? -1 : na > nb;
}

void tw_stack_frame_name(const tw_stacks *st, uint64_t addr, char *buf,
			 size_t n)
{
	uint64_t off = 0, size = 0;
	const char *name = trawl_trace_symbol(st->t, addr, &off, &size);
	if (name)
		snprintf(buf, n, "%s+%llu", name, (unsigned long long)off);
	else
		snprintf(buf, n, "0x%llx", (unsigned long long)addr);
}
