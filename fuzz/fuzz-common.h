/* SPDX-License-Identifier: MIT */
/*
 * Shared by the fuzz targets: putting bytes behind a file descriptor (memfd,
 * pipe), a callback that touches everything an event offers, and a digest
 * of what a run delivered so that two ways of reading the same bytes can be
 * compared. A failed check prints what it saw and aborts, which libFuzzer
 * records as a crash.
 */
#ifndef TRAWL_FUZZ_COMMON_H
#define TRAWL_FUZZ_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trawl/trawl.h"

#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "fuzz check failed: %s (%s:%d)\n  ",   \
				#cond, __FILE__, __LINE__);                    \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
			abort();                                               \
		}                                                              \
	} while (0)

static inline uint64_t fz_mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 1099511628211ull;
	}
	return h;
}

static inline uint64_t fz_mix_u64(uint64_t h, uint64_t v)
{
	return fz_mix(h, &v, sizeof(v));
}

/* A memfd holding the bytes, offset back at 0; -1 on failure. */
static inline int fz_memfd(const void *data, size_t size)
{
	int fd = memfd_create("trawl-fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	const char *p = data;
	size_t left = size;
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return -1;
		}
		p += w;
		left -= (size_t)w;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The read end of a pipe already holding all the bytes (write end closed),
 * or -1 when the pipe cannot hold them; the reader then streams, as it
 * does for stdin.
 */
static inline int fz_pipe(const void *data, size_t size)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if (size > 65536)
		(void)fcntl(p[1], F_SETPIPE_SZ, (int)(size + 4096));
	long cap = fcntl(p[1], F_GETPIPE_SZ);
	if (cap < 0 || (size_t)cap < size ||
	    fcntl(p[1], F_SETFL, O_NONBLOCK) < 0)
		goto fail;
	const char *c = data;
	size_t left = size;
	while (left > 0) {
		ssize_t w = write(p[1], c, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			goto fail;
		c += w;
		left -= (size_t)w;
	}
	close(p[1]);
	return p[0];
fail:
	close(p[0]);
	close(p[1]);
	return -1;
}

/* A trawl_error after a failure must be filled and printable. */
static inline void fz_check_error(int rc, const trawl_error *err)
{
	FUZZ_CHECK(rc < 0 && -rc < TRAWL_E_COUNT, "rc %d", rc);
	FUZZ_CHECK(err->code == -rc, "err.code %d rc %d (%s)", err->code, rc,
		   err->msg);
	FUZZ_CHECK(memchr(err->msg, '\0', sizeof(err->msg)) != NULL &&
			   err->msg[0] != '\0',
		   "message not terminated or empty");
	FUZZ_CHECK(memchr(err->file, '\0', sizeof(err->file)) != NULL,
		   "file not terminated");
	(void)trawl_strerror(rc);
	(void)trawl_err_name(rc);
}

/* Handles looked up before the run; read from every event. */
enum {
	FZ_H_NEXT_PID,
	FZ_H_PREV_COMM,
	FZ_H_PID,
	FZ_H_PRINT_NAME,
	FZ_H_MARK_BUF,
	FZ_H_ANY_COMM,
	FZ_H_FUNC_PARENT,
	FZ_H_WQ_FUNCTION,
	FZ_H_VALUE,
	FZ_H_COUNT,
};

static const char *const fz_handle_spec[FZ_H_COUNT][2] = {
	{"sched_switch", "next_pid"},
	{"sched_switch", "prev_comm"},
	{NULL, "pid"},
	{"print", "name"},
	{"tracing_mark_write", "buf"},
	{"*", "comm"},
	{"function", "parent_ip"},
	{"workqueue_execute_start", "function"},
	{NULL, "value"},
};

#define FZ_KEEP	       4
#define FZ_FULL_EVENTS 512 /* events taken apart completely, per run */

typedef struct fz_run {
	trawl_trace *t;
	trawl_field h[FZ_H_COUNT];
	int check_order;     /* events must come by (time, seq) */
	int copy_every;	     /* copy every n-th event (0: never) */
	uint64_t stop_after; /* stop the run after n events (0: never) */
	uint64_t prefix_n;   /* remember the digest after n events */
	uint64_t prefix_digest;
	uint64_t events;     /* callbacks seen */
	uint64_t digest;     /* of everything delivered, in order */
	uint64_t sum;	     /* of the same, in any order */
	uint64_t inversions; /* events before the one delivered last */
	int64_t last_ts;
	uint64_t last_seq;
	/* Copies kept beyond their callback, with their digest then. */
	trawl_event *keep[FZ_KEEP];
	uint64_t keep_digest[FZ_KEEP];
	unsigned nkeep_next;
} fz_run;

/*
 * Everything an event offers, folded into one digest. Every byte of every
 * borrowed string is read, so ASan sees any pointer past its end. With
 * full clear, only the header, comm, name and payload (big inputs: the
 * fields of the first FZ_FULL_EVENTS are enough).
 */
static inline uint64_t fz_touch_some(fz_run *r, const trawl_event *ev, int full)
{
	trawl_trace *t = r->t;
	uint64_t h = 1469598103934665603ull;
	h = fz_mix_u64(h, (uint64_t)trawl_event_time(ev));
	h = fz_mix_u64(h, trawl_event_seq(ev));
	h = fz_mix_u64(h, trawl_event_line(ev));
	int cpu = trawl_event_cpu(ev);
	h = fz_mix_u64(h, (uint64_t)(int64_t)cpu);
	h = fz_mix_u64(h, (uint64_t)(int64_t)trawl_event_pid(ev));
	h = fz_mix_u64(h, (uint64_t)(int64_t)trawl_event_tgid(ev));
	unsigned flags = trawl_event_flags(ev);
	int preempt = trawl_event_preempt_depth(ev);
	h = fz_mix_u64(h, flags);
	h = fz_mix_u64(h, (uint64_t)(int64_t)preempt);
	FUZZ_CHECK(cpu >= -1 && (cpu < 0 || cpu < trawl_cpu_count(t)),
		   "cpu %d of %d", cpu, trawl_cpu_count(t));
	FUZZ_CHECK(preempt >= -1 && preempt <= 15, "preempt %d", preempt);
	FUZZ_CHECK(!(flags & TRAWL_FLAG_KNOWN) == (preempt < 0),
		   "flags %#x but preempt depth %d", flags, preempt);
	FUZZ_CHECK((flags & TRAWL_FLAG_KNOWN) || flags == 0,
		   "flags %#x without KNOWN", flags);
	if (trawl_format(t) == TRAWL_FORMAT_TRACE_DAT ||
	    trawl_format(t) == TRAWL_FORMAT_PERF_DATA)
		FUZZ_CHECK(trawl_event_line(ev) == 0, "a line in binary");
	else
		FUZZ_CHECK(trawl_event_line(ev) > 0, "line 0");

	const char *comm = trawl_event_comm(ev);
	FUZZ_CHECK(comm != NULL, "comm NULL");
	h = fz_mix(h, comm, strlen(comm) + 1);
	const char *comm2 = trawl_event_comm(ev);
	FUZZ_CHECK(comm2 && strcmp(comm, comm2) == 0, "comm changed");

	const char *name = trawl_event_name(ev);
	const char *sys = trawl_event_system(ev);
	uint32_t id = trawl_event_type_id(ev);
	FUZZ_CHECK(name && sys, "name or system NULL");
	FUZZ_CHECK(id < trawl_type_count(t), "type %u of %u", id,
		   trawl_type_count(t));
	const char *tname = trawl_type_name(t, id);
	FUZZ_CHECK(tname && strcmp(tname, name) == 0, "type name %s vs %s",
		   tname ? tname : "(null)", name);
	const char *tsys = trawl_type_system(t, id);
	FUZZ_CHECK(tsys && strcmp(tsys, sys) == 0, "type system");
	h = fz_mix(h, name, strlen(name) + 1);
	h = fz_mix(h, sys, strlen(sys) + 1);

	size_t plen = 0;
	const char *payload = trawl_event_payload(ev, &plen);
	FUZZ_CHECK(payload != NULL || plen == 0, "payload NULL, len %zu", plen);
	h = fz_mix_u64(h, plen);
	if (plen)
		h = fz_mix(h, payload, plen);

	if (!full)
		return h;

	size_t nf = trawl_event_field_count(ev);
	FUZZ_CHECK(nf <= 1024, "%zu fields", nf);
	h = fz_mix_u64(h, nf);
	for (size_t i = 0; i < nf; i++) {
		size_t kl = 0, vl = 0;
		const char *k = trawl_event_field_name(ev, i, &kl);
		const char *v = trawl_event_field_value(ev, i, &vl);
		FUZZ_CHECK(k && v, "field %zu of %zu missing", i, nf);
		FUZZ_CHECK(kl > 0, "empty field name at %zu", i);
		h = fz_mix(h, k, kl);
		h = fz_mix_u64(h, kl);
		h = fz_mix(h, v, vl);
		h = fz_mix_u64(h, vl);
	}
	/* arrays' elements (a stack's frames), and the kernel symbols they
	 * may name */
	for (size_t i = 0; i < nf; i++) {
		const int64_t *el = NULL;
		size_t ne = trawl_event_field_array(ev, i, &el);
		FUZZ_CHECK(ne == 0 || el, "array %zu without elements", i);
		h = fz_mix_u64(h, ne);
		for (size_t j = 0; j < ne && j < 64; j++) {
			uint64_t off = 0, size = 0;
			const char *s = trawl_trace_symbol(t, (uint64_t)el[j],
							   &off, &size);
			FUZZ_CHECK(!s || off < size,
				   "symbol offset %llu of %llu",
				   (unsigned long long)off,
				   (unsigned long long)size);
			h = fz_mix_u64(h, (uint64_t)el[j]);
			if (s)
				h = fz_mix(h, s, strlen(s) + 1);
		}
	}
	size_t dummy;
	FUZZ_CHECK(trawl_event_field_name(ev, nf, &dummy) == NULL &&
			   trawl_event_field_value(ev, nf, &dummy) == NULL,
		   "field past the count");

	trawl_marker m;
	int mrc = trawl_event_marker(ev, &m);
	FUZZ_CHECK(mrc == 0 || mrc == -TRAWL_ENOENT, "marker rc %d", mrc);
	if (mrc == 0) {
		FUZZ_CHECK(strchr("BECSF", m.kind) && m.kind, "marker kind %d",
			   m.kind);
		FUZZ_CHECK(m.name || m.name_len == 0, "marker name");
		h = fz_mix_u64(h, (uint64_t)m.kind);
		h = fz_mix_u64(h, (uint64_t)m.pid);
		h = fz_mix_u64(h, (uint64_t)m.value);
		if (m.name)
			h = fz_mix(h, m.name, m.name_len);
	}

	for (int i = 0; i < FZ_H_COUNT; i++) {
		trawl_field f = r->h[i];
		if (!f)
			continue;
		int has = trawl_event_has(ev, f);
		int64_t v = 0;
		int grc = trawl_event_get_int(ev, f, &v);
		FUZZ_CHECK(grc == 0 || grc == -TRAWL_ENOENT ||
				   grc == -TRAWL_ETYPE,
			   "get_int rc %d", grc);
		FUZZ_CHECK(has == (grc != -TRAWL_ENOENT), "has %d, get_int %d",
			   has, grc);
		FUZZ_CHECK(trawl_event_int(ev, f) == (grc ? 0 : v), "int");
		FUZZ_CHECK(trawl_event_uint(ev, f) == (grc ? 0 : (uint64_t)v),
			   "uint");
		size_t rl = 0;
		const char *raw = trawl_event_raw(ev, f, &rl);
		FUZZ_CHECK((raw != NULL) == has, "raw vs has");
		const char *str = trawl_event_str(ev, f);
		FUZZ_CHECK((str != NULL) == has, "str vs has");
		h = fz_mix_u64(h, (uint64_t)has);
		if (has) {
			h = fz_mix_u64(h, (uint64_t)grc);
			h = fz_mix_u64(h, (uint64_t)v);
			h = fz_mix(h, raw, rl);
			/* str is raw plus a NUL (raw may hold NULs itself) */
			FUZZ_CHECK(memcmp(str, raw, rl) == 0 && str[rl] == '\0',
				   "str differs from raw");
		}
	}
	return h;
}

static inline uint64_t fz_touch(fz_run *r, const trawl_event *ev)
{
	return fz_touch_some(r, ev, 1);
}

static inline void fz_keep_check(fz_run *r, unsigned i)
{
	if (!r->keep[i])
		return;
	uint64_t again = fz_touch(r, r->keep[i]);
	FUZZ_CHECK(again == r->keep_digest[i],
		   "a copy changed after its callback (event seq %llu)",
		   (unsigned long long)trawl_event_seq(r->keep[i]));
}

static inline void fz_keep_release(fz_run *r)
{
	for (unsigned i = 0; i < FZ_KEEP; i++) {
		fz_keep_check(r, i);
		trawl_event_free(r->keep[i]);
		r->keep[i] = NULL;
	}
}

static inline int fz_on_event(const trawl_event *ev, void *ctx)
{
	fz_run *r = ctx;
	r->events++;
	int full = r->events <= FZ_FULL_EVENTS;
	uint64_t h = fz_touch_some(r, ev, full);
	/* A second look must see the same (lazy decoding is cached). */
	if (full)
		FUZZ_CHECK(fz_touch(r, ev) == h, "second look differs");
	r->digest = fz_mix_u64(r->digest, h);
	r->sum += h;
	if (r->events == r->prefix_n)
		r->prefix_digest = r->digest;

	const trawl_stats *st = trawl_trace_stats(r->t);
	FUZZ_CHECK(st && st->events == r->events,
		   "stats say %llu events, callbacks %llu",
		   (unsigned long long)(st ? st->events : 0),
		   (unsigned long long)r->events);
	FUZZ_CHECK(trawl_type_events(r->t, trawl_event_type_id(ev)) > 0,
		   "type count");
	int cpu = trawl_event_cpu(ev);
	if (cpu >= 0)
		FUZZ_CHECK(trawl_cpu_events(r->t, cpu) > 0, "cpu count");

	int64_t ts = trawl_event_time(ev);
	uint64_t seq = trawl_event_seq(ev);
	if (r->check_order && r->events > 1)
		FUZZ_CHECK(ts > r->last_ts ||
				   (ts == r->last_ts && seq > r->last_seq),
			   "out of order: (%lld, %llu) after (%lld, %llu), "
			   "line %llu",
			   (long long)ts, (unsigned long long)seq,
			   (long long)r->last_ts,
			   (unsigned long long)r->last_seq,
			   (unsigned long long)trawl_event_line(ev));
	if (r->events > 1 &&
	    (ts < r->last_ts || (ts == r->last_ts && seq < r->last_seq)))
		r->inversions++;
	r->last_ts = ts;
	r->last_seq = seq;

	if (full && r->copy_every && r->events % (uint64_t)r->copy_every == 0) {
		trawl_event *c = trawl_event_copy(ev);
		FUZZ_CHECK(c != NULL, "copy failed");
		uint64_t hc = fz_touch(r, c);
		FUZZ_CHECK(hc == h, "copy differs from its event (seq %llu)",
			   (unsigned long long)seq);
		unsigned i = r->nkeep_next++ % FZ_KEEP;
		fz_keep_check(r, i);
		trawl_event_free(r->keep[i]);
		r->keep[i] = c;
		r->keep_digest[i] = hc;
	}
	if (r->stop_after && r->events >= r->stop_after)
		return 42;
	return 0;
}

/* The outcome of one open + run. */
typedef struct fz_result {
	int open_rc; /* 0, or the negative code trawl_open*() reported */
	int run_rc;
	int format;
	const char *compression;
	uint64_t events;
	uint64_t digest;
	uint64_t sum;
	uint64_t inversions;
	trawl_stats stats;
	uint32_t types;
	int cpus;
	uint64_t cpu_digest;
} fz_result;

/*
 * Open (the trace from open_fn), subscribe "*", run, check the counters
 * after the run, close. Everything is freed before returning.
 */
static inline void fz_run_trace(trawl_trace *t, const trawl_error *open_err,
				fz_run *r, fz_result *out)
{
	memset(out, 0, sizeof(*out));
	if (!t) {
		out->open_rc = -open_err->code;
		fz_check_error(out->open_rc, open_err);
		return;
	}
	r->t = t;
	r->events = 0;
	r->digest = 1469598103934665603ull;
	r->prefix_digest = 0;
	r->sum = 0;
	r->inversions = 0;
	r->last_ts = 0;
	r->last_seq = 0;
	r->nkeep_next = 0;
	memset(r->keep, 0, sizeof(r->keep));
	for (int i = 0; i < FZ_H_COUNT; i++) {
		r->h[i] = trawl_field_lookup(t, fz_handle_spec[i][0],
					     fz_handle_spec[i][1]);
		FUZZ_CHECK(r->h[i] != NULL, "lookup %s", fz_handle_spec[i][1]);
	}
	FUZZ_CHECK(trawl_field_lookup(t, NULL, fz_handle_spec[FZ_H_PID][1]) ==
			   r->h[FZ_H_PID],
		   "second lookup gives another handle");
	FUZZ_CHECK(trawl_on(t, "*", fz_on_event, r) == 0, "trawl_on");
	FUZZ_CHECK(trawl_on(t, "", fz_on_event, r) == -TRAWL_EINVAL,
		   "empty pattern");
	out->format = trawl_format(t);
	FUZZ_CHECK((out->format >= TRAWL_FORMAT_FTRACE &&
		    out->format <= TRAWL_FORMAT_TRACE_DAT) ||
			   out->format == TRAWL_FORMAT_PERF_DATA ||
			   out->format == TRAWL_FORMAT_PERF_SCRIPT,
		   "format %d", out->format);
	(void)trawl_format_name(out->format);
	out->compression = trawl_compression(t);

	trawl_error err;
	memset(&err, 0, sizeof(err));
	out->run_rc = trawl_run(t, &err);
	if (out->run_rc < 0)
		fz_check_error(out->run_rc, &err);
	else
		FUZZ_CHECK(out->run_rc == 0 || out->run_rc == 42,
			   "run returned %d", out->run_rc);
	FUZZ_CHECK(trawl_run(t, NULL) == -TRAWL_EMISUSE, "ran twice");
	FUZZ_CHECK(trawl_on(t, "*", fz_on_event, r) == -TRAWL_EMISUSE,
		   "trawl_on after the run");

	const trawl_stats *st = trawl_trace_stats(t);
	out->stats = *st;
	out->events = r->events;
	out->digest = r->digest;
	out->sum = r->sum;
	out->inversions = r->inversions;
	FUZZ_CHECK(st->events == r->events, "stats %llu callbacks %llu",
		   (unsigned long long)st->events,
		   (unsigned long long)r->events);
	if (r->events && out->run_rc == 0)
		FUZZ_CHECK(st->last_time == r->last_ts, "last_time");
	uint64_t per_type = 0;
	out->types = trawl_type_count(t);
	for (uint32_t i = 0; i < out->types; i++) {
		FUZZ_CHECK(trawl_type_name(t, i) && trawl_type_system(t, i),
			   "type %u", i);
		per_type += trawl_type_events(t, i);
	}
	FUZZ_CHECK(trawl_type_name(t, out->types) == NULL, "type past end");
	FUZZ_CHECK(per_type == st->events, "per-type %llu vs %llu",
		   (unsigned long long)per_type,
		   (unsigned long long)st->events);
	out->cpus = trawl_cpu_count(t);
	uint64_t cd = 0;
	for (int c = 0; c < out->cpus; c++) {
		cd = fz_mix_u64(cd, trawl_cpu_events(t, c));
		cd = fz_mix_u64(cd, trawl_cpu_lost(t, c));
	}
	FUZZ_CHECK(trawl_cpu_events(t, out->cpus) == 0 &&
			   trawl_cpu_events(t, -1) == 0,
		   "cpu past end");
	out->cpu_digest = cd;

	fz_keep_release(r);
	trawl_close(t);
	r->t = NULL;
}

/* Two complete runs of the same bytes must agree on everything. */
static inline void fz_same(const fz_result *a, const fz_result *b,
			   const char *what)
{
	FUZZ_CHECK(a->open_rc == b->open_rc, "%s: open %d vs %d", what,
		   a->open_rc, b->open_rc);
	if (a->open_rc)
		return;
	FUZZ_CHECK(a->format == b->format, "%s: format %d vs %d", what,
		   a->format, b->format);
	FUZZ_CHECK(a->run_rc == b->run_rc, "%s: run %d vs %d", what, a->run_rc,
		   b->run_rc);
	if (a->run_rc)
		return;
	FUZZ_CHECK(a->events == b->events, "%s: events %llu vs %llu", what,
		   (unsigned long long)a->events,
		   (unsigned long long)b->events);
	FUZZ_CHECK(a->digest == b->digest, "%s: events differ", what);
	FUZZ_CHECK(a->stats.bad_lines == b->stats.bad_lines,
		   "%s: bad lines %llu vs %llu", what,
		   (unsigned long long)a->stats.bad_lines,
		   (unsigned long long)b->stats.bad_lines);
	FUZZ_CHECK(memcmp(a->stats.bad_line, b->stats.bad_line,
			  sizeof(a->stats.bad_line)) == 0,
		   "%s: bad line numbers", what);
	FUZZ_CHECK(a->stats.lost_events == b->stats.lost_events,
		   "%s: lost events", what);
	FUZZ_CHECK(a->stats.overwritten == b->stats.overwritten,
		   "%s: overwritten", what);
	FUZZ_CHECK(a->stats.reordered == b->stats.reordered,
		   "%s: reordered %llu vs %llu", what,
		   (unsigned long long)a->stats.reordered,
		   (unsigned long long)b->stats.reordered);
	FUZZ_CHECK(a->stats.first_time == b->stats.first_time &&
			   a->stats.last_time == b->stats.last_time,
		   "%s: first/last time", what);
	FUZZ_CHECK(a->types == b->types && a->cpus == b->cpus &&
			   a->cpu_digest == b->cpu_digest,
		   "%s: per-type or per-cpu counters", what);
}

/*
 * A binary file's two first runs: A from the memfd fd as mapped (two
 * threads for some inputs), B by path in strict mode, which must agree
 * with A when A found no damage and fail with -TRAWL_EPARSE when it did.
 * Closes fd; *a is A's result, *r and *o as the runs left them.
 */
static inline void fz_mapped_and_strict(int fd, size_t size, fz_run *r,
					trawl_open_opts *o, fz_result *a)
{
	trawl_error err;
	o->threads = size % 4 == 0 ? 2 : 1;
	r->check_order = 1;
	r->copy_every = 3;
	memset(&err, 0, sizeof(err));
	fz_run_trace(trawl_open_fd(fd, "<memfd>", o, &err), &err, r, a);

	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	o->flags = TRAWL_OPEN_STRICT;
	o->threads = 1;
	r->copy_every = 5;
	memset(&err, 0, sizeof(err));
	fz_result b;
	fz_run_trace(trawl_open(path, o, &err), &err, r, &b);
	close(fd);
	FUZZ_CHECK(a->open_rc == b.open_rc, "open: fd %d, path %d", a->open_rc,
		   b.open_rc);
	if (a->open_rc == 0 && a->run_rc == 0) {
		if (a->stats.bad_lines == 0)
			fz_same(a, &b, "default vs strict");
		else
			FUZZ_CHECK(b.run_rc == -TRAWL_EPARSE,
				   "strict with %llu damaged returned %d",
				   (unsigned long long)a->stats.bad_lines,
				   b.run_rc);
	}
}

#endif
