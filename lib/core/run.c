/* SPDX-License-Identifier: MIT */
/*
 * The run loop: one time order for every source. A seekable input is first
 * scanned for its timestamps only; if they never go backwards, events are
 * delivered straight from the reader (zero copy). Otherwise, and for pipes
 * (which cannot be read twice), records go through the external sorter and
 * come out by (time, seq), seq being the record order in the source, so
 * equal timestamps keep their record order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../input/input.h"
#include "../formats/formats.h"
#include "core.h"

#define DEFAULT_SORT_MEMORY (32u << 20)
#define PROGRESS_EVERY	    65536

static trawl_trace *new_trace(const trawl_open_opts *opts, trawl_error *err)
{
	trawl_open_opts o = {0};
	if (opts)
		o = *opts;
	tw_mem mem;
	tw_mem_init(&mem, o.realloc, o.alloc_ctx);
	trawl_trace *t = tw_calloc(&mem, 1, sizeof(*t));
	if (!t) {
		tw_error_at(err, TRAWL_ENOMEM, 0, NULL, 0, 0, 0,
			    "out of memory");
		return NULL;
	}
	t->mem = mem;
	t->opts = o;
	if (!t->opts.sort_memory)
		t->opts.sort_memory = DEFAULT_SORT_MEMORY;
	t->compression = "none";
	t->ev.t = t;
	t->ev.nfields = -1;
	return t;
}

/* A perf.data: lib/perf reads the container and hands its tracepoint
 * records to the trace.dat reader, which decodes them as a trace.dat's. */
static int open_perf(trawl_trace *t, tw_input *in, trawl_error *err)
{
	const struct tw_records *src;
	int rc = tw_perf_open(t, in, &src, err);
	return rc ? rc
		  : tw_dat_open_records(t, src, TRAWL_FORMAT_PERF_DATA, err);
}

static trawl_trace *open_any(const char *path, int fd, const char *name,
			     const trawl_open_opts *opts, trawl_error *err)
{
	trawl_trace *t = new_trace(opts, err);
	if (!t)
		return NULL;
	snprintf(t->name, sizeof(t->name), "%s",
		 name ? name : (strcmp(path, "-") ? path : "<stdin>"));
	/* The input layer opens the bytes; their first ones say which
	 * reader gets them. */
	tw_input *in = tw_input_open(&t->mem, path, fd, t->name, err);
	if (!in) {
		trawl_close(t);
		return NULL;
	}
	static const char *const comp[] = {"none", "gzip", "zstd"};
	t->compression = comp[tw_input_compression(in)];
	const char *p;
	size_t n = 16;
	int rc = tw_input_peek(in, &p, &n, err);
	if (rc == 0 && tw_is_perf_data(p, n))
		rc = open_perf(t, in, err);
	else if (rc == 0)
		rc = tw_is_trace_dat(p, n) ? tw_dat_open(t, in, err)
					   : tw_text_open(t, in, err);
	else
		tw_input_close(in);
	if (rc) {
		trawl_close(t);
		return NULL;
	}
	return t;
}

trawl_trace *tw_open_feed(const trawl_open_opts *opts, const char *name,
			  const struct tw_feed *feed, trawl_error *err)
{
	trawl_trace *t = new_trace(opts, err);
	if (!t)
		return NULL;
	snprintf(t->name, sizeof(t->name), "%s", name);
	if (tw_dat_open_feed(t, feed, err)) {
		trawl_close(t);
		return NULL;
	}
	return t;
}

TRAWL_API trawl_trace *trawl_open(const char *path, const trawl_open_opts *opts,
				  trawl_error *err)
{
	if (!path) {
		tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
			    "trawl_open: path is NULL");
		return NULL;
	}
	return open_any(path, -1, NULL, opts, err);
}

TRAWL_API trawl_trace *trawl_open_fd(int fd, const char *name,
				     const trawl_open_opts *opts,
				     trawl_error *err)
{
	if (fd < 0) {
		tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
			    "trawl_open_fd: bad descriptor %d", fd);
		return NULL;
	}
	return open_any(NULL, fd, name ? name : "<fd>", opts, err);
}

TRAWL_API void trawl_close(trawl_trace *t)
{
	if (!t)
		return;
	if (t->ops && t->ops->close)
		t->ops->close(t);
	tw_types_free(t);
	tw_textfmt_free(t);
	for (size_t i = 0; i < t->nsubs; i++) {
		tw_free(&t->mem, t->subs[i].sys_pat);
		tw_free(&t->mem, t->subs[i].name_pat);
	}
	tw_free(&t->mem, t->subs);
	tw_free(&t->mem, t->time_subs);
	for (struct trawl_field_def *f = t->fields, *n; f; f = n) {
		n = f->next;
		tw_free(&t->mem, f->event);
		tw_free(&t->mem, f->name);
		tw_free(&t->mem, f->bin);
		tw_buf_fini(&t->mem, &f->label);
		tw_free(&t->mem, f);
	}
	tw_free(&t->mem, t->cpu_events_mem);
	tw_free(&t->mem, t->cpu_lost);
	tw_free(&t->mem, t->lost_places);
	tw_buf_fini(&t->mem, &t->ev.comm_z);
	tw_buf_fini(&t->mem, &t->ev.str_z);
	tw_buf_fini(&t->mem, &t->ev.payload_z);
	tw_buf_fini(&t->mem, &t->ev.fields_z);
	tw_buf_fini(&t->mem, &t->ev.elems_z);
	tw_buf_fini(&t->mem, &t->ev.label_z);
	tw_buf_fini(&t->mem, &t->ev.num_z);
	tw_buf_fini(&t->mem, &t->ev.json_z);
	tw_buf_fini(&t->mem, &t->ev.notes_z);
	tw_buf_fini(&t->mem, &t->known_names);
	tw_format_set_free(t->known_bundled);
	tw_mem mem = t->mem;
	tw_free(&mem, t);
}

TRAWL_API int trawl_on(trawl_trace *t, const char *pattern, trawl_callback cb,
		       void *ctx)
{
	if (!t || !cb)
		return -TRAWL_EMISUSE;
	if (t->ran)
		return -TRAWL_EMISUSE;
	if (!pattern || !*pattern)
		return -TRAWL_EINVAL;
	void *p = t->subs;
	if (tw_grow(&t->mem, &p, &t->subs_cap, t->nsubs + 1, sizeof(tw_sub)))
		return -TRAWL_ENOMEM;
	t->subs = p;
	tw_sub *s = &t->subs[t->nsubs];
	memset(s, 0, sizeof(*s));
	const char *colon = strchr(pattern, ':');
	if (colon) {
		if (colon == pattern || !colon[1])
			return -TRAWL_EINVAL;
		s->sys_pat =
			tw_strndup(&t->mem, pattern, (size_t)(colon - pattern));
		s->name_pat = tw_strndup(&t->mem, colon + 1, strlen(colon + 1));
	} else {
		s->name_pat = tw_strndup(&t->mem, pattern, strlen(pattern));
	}
	if (!s->name_pat || (colon && !s->sys_pat)) {
		tw_free(&t->mem, s->sys_pat);
		tw_free(&t->mem, s->name_pat);
		return -TRAWL_ENOMEM;
	}
	s->cb = cb;
	s->ctx = ctx;
	t->nsubs++;
	return 0;
}

int tw_on_time(trawl_trace *t, tw_time_callback cb, void *ctx)
{
	if (!t || !cb || t->ran)
		return -TRAWL_EMISUSE;
	tw_time_sub *p = tw_realloc(&t->mem, t->time_subs,
				    (t->ntime_subs + 1) * sizeof(*p));
	if (!p)
		return -TRAWL_ENOMEM;
	t->time_subs = p;
	p[t->ntime_subs++] = (tw_time_sub){cb, ctx};
	return 0;
}

int tw_note_cpu(trawl_trace *t, int cpu)
{
	if (cpu < 0 || cpu >= TW_MAX_CPUS)
		return -1;
	if ((size_t)cpu >= t->cpu_cap) {
		size_t ncap = t->cpu_cap ? t->cpu_cap : 8;
		while (ncap <= (size_t)cpu)
			ncap *= 2;
		uint64_t *m = tw_realloc(&t->mem, t->cpu_events_mem,
					 (ncap + 16) * sizeof(*m));
		if (!m)
			return -1;
		t->cpu_events_mem = m;
		uint64_t *a = t->cpu_events = m + 8;
		uint64_t *b =
			tw_realloc(&t->mem, t->cpu_lost, ncap * sizeof(*b));
		if (!b)
			return -1;
		t->cpu_lost = b;
		memset(a + t->cpu_cap, 0, (ncap - t->cpu_cap) * sizeof(*a));
		memset(b + t->cpu_cap, 0, (ncap - t->cpu_cap) * sizeof(*b));
		t->cpu_cap = ncap;
	}
	if (cpu >= t->ncpu)
		t->ncpu = cpu + 1;
	return 0;
}

void tw_note_bad_line(trawl_trace *t, uint64_t line)
{
	/* kept in order; counts added without a place do not leave holes */
	if (t->stats.bad_lines_kept < TRAWL_BAD_LINES_KEPT)
		t->stats.bad_line[t->stats.bad_lines_kept++] = line;
	t->stats.bad_lines++;
}

void tw_note_lost(trawl_trace *t, int cpu, uint64_t n)
{
	t->stats.lost_events += n;
	if (tw_note_cpu(t, cpu) == 0)
		t->cpu_lost[cpu] += n;
}

void tw_note_lost_in(trawl_trace *t, uint32_t buffer, int cpu, uint64_t n)
{
	tw_note_lost(t, cpu, n);
	size_t i = 0;
	while (i < t->nlost_places && (t->lost_places[i].buffer != buffer ||
				       t->lost_places[i].cpu != cpu))
		i++;
	if (i == t->nlost_places) {
		void *p = t->lost_places;
		/* few places (buffers times CPUs): out of memory, the total
		 * and the CPU's count still have them */
		if (tw_grow(&t->mem, &p, &t->lost_places_cap, i + 1,
			    sizeof(*t->lost_places)))
			return;
		t->lost_places = p;
		t->lost_places[t->nlost_places++] =
			(struct tw_lost_place){buffer, cpu, 0};
	}
	t->lost_places[i].n += n;
}

/*
 * One bar over all passes, each an equal share. Within a pass, progress is
 * the reader's bytes, or n of `of` records when `of` is set (the sorter's
 * output, which has no byte position).
 */
static void report_progress(trawl_trace *t, int pass, int passes, uint64_t n,
			    uint64_t of)
{
	if (!t->opts.progress || !t->ops->progress)
		return;
	uint64_t done, total;
	t->ops->progress(t, &done, &total);
	if (total) {
		if (of)
			done = (uint64_t)((double)total * (double)n /
					  (double)of);
		done = (total * (uint64_t)pass + done) / (uint64_t)passes;
	}
	t->opts.progress(t->opts.progress_ctx, done, total);
}

/* Outside the range of a ranged run (TRAWL_OPEN_RANGE)? */
static inline int out_of_range(const trawl_trace *t, int64_t ts)
{
	return t->ranged && (ts < t->opts.from || ts > t->opts.to);
}

static int deliver(trawl_trace *t, const tw_rec *r, uint64_t seq,
		   trawl_error *err)
{
	if (TW_UNLIKELY(out_of_range(t, r->ts)))
		return 0; /* the loops skip them first; this never counts */
	int typed = (r->bits & TW_EV_TYPED) != 0;
	tw_type *ty = typed ? r->type : tw_type_get(t, r->name, r->name_len);
	if (ty && !typed && t->ops->type_seen)
		t->ops->type_seen(t, r, ty);
	if (!ty && !typed && t->ntypes >= TW_MAX_TYPES) {
		if (t->opts.flags & TRAWL_OPEN_STRICT)
			return tw_error_at(err, TRAWL_ELIMIT, 0, t->name,
					   r->line, 0, 0,
					   "cannot take a %dth distinct event "
					   "name: is this a trace?",
					   TW_MAX_TYPES + 1);
		tw_note_bad_line(t, r->line); /* one name too many */
		return 0;
	}
	if (!ty || (r->cpu >= t->ncpu && tw_note_cpu(t, r->cpu) < 0))
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, r->line, 0, 0,
				   "out of memory");
	trawl_stats *st = &t->stats;
	if (st->events == 0)
		st->first_time = r->ts;
	st->last_time = r->ts;
	st->events++;
	ty->events++;
	if (r->cpu >= 0 && r->cpu < t->ncpu)
		t->cpu_events[r->cpu]++;

	if (!ty->nsubs)
		return 0; /* counted; nobody to show it to */

	trawl_event *ev = &t->ev;
	ev->ts = r->ts;
	ev->seq = seq;
	ev->line = r->line;
	ev->cpu = r->cpu;
	ev->pid = r->pid;
	ev->tgid = r->tgid;
	ev->flags = r->flags;
	ev->preempt = r->preempt;
	ev->bits = r->bits;
	ev->comm = r->comm;
	ev->comm_len = r->comm_len;
	if (r->bits & TW_EV_BINARY) {
		/* the text is made from the record when asked */
		ev->data = r->payload;
		ev->data_len = r->payload_len;
		ev->buffer = r->name_len;
		ev->payload = r->text; /* NULL: made when asked */
		ev->payload_len = r->text_len;
	} else {
		ev->payload = r->payload;
		ev->payload_len = r->payload_len;
	}
	ev->type = ty;
	ev->nfields = -1;
	ev->pending = 0;
	ev->comm_ready = 0;

	for (uint32_t i = 0; i < ty->nsubs; i++) {
		int rc = ty->subs[i]->cb(ev, ty->subs[i]->ctx);
		if (rc)
			return rc;
	}
	return 0;
}

/* Deliver a record the sorter or the window kept as raw bytes. */
static int deliver_kept(trawl_trace *t, const tw_sorted *o, trawl_error *err)
{
	tw_rec r;
	if (t->ops->reparse(t, o->raw, o->len, &r) != TW_NEXT_EVENT)
		return tw_error_at(err, TRAWL_EPARSE, 0, t->name, o->line, 0, 0,
				   "cannot parse a kept record again "
				   "(internal error)");
	r.line = o->line;
	return deliver(t, &r, o->seq, err);
}

/* Is the input already in time order? Reads it once, timestamps only. */
static int prescan(trawl_trace *t, int *sorted, trawl_error *err)
{
	tw_rec r;
	int64_t last = INT64_MIN;
	uint64_t n = 0;
	int rc;
	*sorted = 1;
	if (t->ops->prescan) {
		int threads = t->opts.threads > 0 ? t->opts.threads : 2;
		rc = t->ops->prescan(t, threads, sorted, err);
		if (rc != -TRAWL_EUNSUPPORTED)
			return rc;
	}
	while ((rc = t->ops->next(t, &r, 1, err)) == TW_NEXT_EVENT) {
		if (r.ts < last) {
			*sorted = 0;
			break;
		}
		last = r.ts;
		if (++n % PROGRESS_EVERY == 0)
			report_progress(t, 0, 2, 0, 0);
	}
	/*
	 * Damaged input (a truncated gzip member, say): the pre-scan saw
	 * what comes before the damage in order; the main pass delivers
	 * that part and then reports the same error, at the same place.
	 */
	if (rc < 0 && rc != -TRAWL_ENOMEM && rc != -TRAWL_EIO)
		rc = 0;
	if (rc < 0)
		return rc;
	return t->ops->rewind(t, err);
}

static int run_direct(trawl_trace *t, int pass, int passes, trawl_error *err)
{
	tw_rec r;
	int64_t last = INT64_MIN;
	uint64_t seq = 0;
	int rc;
	while ((rc = t->ops->next(t, &r, 0, err)) > 0) {
		if (rc == TW_NEXT_TIME) {
			for (size_t i = 0; i < t->ntime_subs; i++)
				if ((rc = t->time_subs[i].cb(
					     r.ts, t->time_subs[i].ctx)))
					return rc;
			continue;
		}
		if (TW_UNLIKELY(out_of_range(t, r.ts))) {
			/* in time order past the end: nothing more to come */
			if (r.ts > t->opts.to && !t->streaming &&
			    !(t->opts.flags & TRAWL_OPEN_SOURCE_ORDER))
				return 0;
			continue;
		}
		if (r.ts >= last)
			last = r.ts;
		else if (t->streaming)
			t->stats.late_events++; /* it came after its time */
		else
			t->stats.reordered++; /* only in source order mode */
		rc = deliver(t, &r, seq++, err);
		if (rc)
			return rc;
		if (seq % PROGRESS_EVERY == 0)
			report_progress(t, pass, passes, 0, 0);
	}
	return rc;
}

static int run_sorted(trawl_trace *t, trawl_error *err)
{
	t->need_raw = 1;
	tw_sorter *s =
		tw_sorter_new(&t->mem, t->opts.sort_memory, t->opts.tmpdir);
	if (!s)
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory");
	tw_rec r;
	int64_t max = INT64_MIN;
	uint64_t seq = 0;
	int rc;
	while ((rc = t->ops->next(t, &r, 0, err)) == TW_NEXT_EVENT) {
		if (out_of_range(t, r.ts))
			continue; /* not kept: the sort is of the range only */
		if (r.ts < max)
			t->stats.reordered++;
		else
			max = r.ts;
		rc = tw_sorter_add(s, r.ts, seq++, r.line, r.raw, r.raw_len,
				   err);
		if (rc)
			goto out;
		if (seq % PROGRESS_EVERY == 0)
			report_progress(t, 0, 2, 0, 0);
	}
	if (rc < 0)
		goto out;
	rc = tw_sorter_finish(s, err);
	if (rc)
		goto out;
	t->stats.spilled_runs = tw_sorter_runs_spilled(s);
	tw_sorted o;
	uint64_t n = 0;
	while ((rc = tw_sorter_next(s, &o, err)) == 1) {
		rc = deliver_kept(t, &o, err);
		if (rc)
			goto out;
		if (++n % PROGRESS_EVERY == 0)
			report_progress(t, 1, 2, n, seq);
	}
out:
	tw_sorter_free(s);
	return rc;
}

/* Streaming: a bounded reorder window, for live pipes (window.c). */
static int run_window(trawl_trace *t, trawl_error *err)
{
	t->need_raw = 1;
	tw_window *w = tw_window_new(&t->mem, t->opts.window);
	if (!w)
		return tw_error_at(err, TRAWL_ENOMEM, 0, t->name, 0, 0, 0,
				   "out of memory for a window of %zu events",
				   t->opts.window);
	tw_rec r;
	tw_sorted o;
	int64_t max_in = INT64_MIN, last_ts = INT64_MIN;
	uint64_t last_seq = 0, seq = 0;
	int rc, more = 1;
	while (more) {
		rc = t->ops->next(t, &r, 0, err);
		if (rc < 0)
			goto out;
		more = rc == TW_NEXT_EVENT;
		if (more && out_of_range(t, r.ts))
			continue;
		if (more) {
			if (r.ts < max_in)
				t->stats.reordered++;
			else
				max_in = r.ts;
			if (!tw_window_full(w)) {
				rc = tw_window_push(w, r.ts, seq++, r.line,
						    r.raw, r.raw_len);
				if (rc)
					goto nomem;
				continue;
			}
		}
		/* Full (or at the end): the oldest goes, then the new one in.
		 */
		while (tw_window_pop(w, &o)) {
			if (o.ts < last_ts ||
			    (o.ts == last_ts && o.seq < last_seq))
				t->stats.late_events++;
			else {
				last_ts = o.ts;
				last_seq = o.seq;
			}
			rc = deliver_kept(t, &o, err);
			if (rc)
				goto out;
			if (more)
				break;
		}
		if (more && (rc = tw_window_push(w, r.ts, seq++, r.line, r.raw,
						 r.raw_len)))
			goto nomem;
	}
	rc = 0;
	goto out;
nomem:
	rc = tw_error_at(err, TRAWL_ENOMEM, 0, t->name, r.line, 0, 0,
			 "out of memory");
out:
	tw_window_free(w);
	return rc;
}

TRAWL_API int trawl_run(trawl_trace *t, trawl_error *err)
{
	if (!t)
		return -TRAWL_EMISUSE;
	if (t->ran)
		return tw_error_at(err, TRAWL_EMISUSE, 0, t->name, 0, 0, 0,
				   "trawl_run: a trace runs only once");
	t->ran = 1;
	int rc;
	if (t->opts.flags & TRAWL_OPEN_RANGE) {
		t->ranged = 1;
		if (t->opts.from > t->opts.to)
			return 0; /* an empty range: nothing to deliver */
		if (t->ops->seek_range) {
			rc = t->ops->seek_range(t, t->opts.from, t->opts.to,
						err);
			if (rc && rc != -TRAWL_EUNSUPPORTED)
				return rc;
		}
	}
	if ((t->opts.flags & TRAWL_OPEN_SOURCE_ORDER) || t->streaming)
		return run_direct(t, 0, 1, err);
	if (t->opts.window)
		return run_window(t, err);
	trawl_error scratch;
	if (t->ops->rewind(t, &scratch) == -TRAWL_EUNSUPPORTED)
		return run_sorted(t, err);
	int sorted;
	rc = prescan(t, &sorted, err);
	if (rc)
		return rc;
	if (sorted)
		return run_direct(t, 1, 2, err);
	return run_sorted(t, err);
}

TRAWL_API int trawl_format(const trawl_trace *t)
{
	return t ? t->format : TRAWL_FORMAT_UNKNOWN;
}

TRAWL_API const char *trawl_format_name(int format)
{
	switch (format) {
	case TRAWL_FORMAT_FTRACE:
		return "ftrace";
	case TRAWL_FORMAT_SYSTRACE:
		return "systrace";
	case TRAWL_FORMAT_SYSTRACE_HTML:
		return "systrace-html";
	case TRAWL_FORMAT_TRACE_CMD_REPORT:
		return "trace-cmd-report";
	case TRAWL_FORMAT_TRACE_DAT:
		return "trace-dat";
	case TRAWL_FORMAT_LIVE:
		return "live";
	case TRAWL_FORMAT_PERF_DATA:
		return "perf-data";
	case TRAWL_FORMAT_PERF_SCRIPT:
		return "perf-script";
	default:
		return "unknown";
	}
}

TRAWL_API const char *trawl_compression(const trawl_trace *t)
{
	return t ? t->compression : "none";
}

TRAWL_API const char *trawl_trace_host(const trawl_trace *t, const char *what)
{
	if (!t || !what || !t->ops || !t->ops->host)
		return NULL;
	return t->ops->host(t, what);
}

TRAWL_API const char *trawl_trace_symbol(trawl_trace *t, uint64_t addr,
					 uint64_t *offset, uint64_t *size)
{
	uint64_t off = 0, sz = 0;
	if (!t || !t->ops || !t->ops->symbol)
		return NULL;
	const char *name = t->ops->symbol(t, addr, &off, &sz);
	if (name && offset)
		*offset = off;
	if (name && size)
		*size = sz;
	return name;
}

TRAWL_API uint64_t trawl_data_bytes(const trawl_trace *t)
{
	return t ? t->data_bytes : 0;
}

TRAWL_API const trawl_stats *trawl_trace_stats(const trawl_trace *t)
{
	return t ? &t->stats : NULL;
}

TRAWL_API uint32_t trawl_type_count(const trawl_trace *t)
{
	return t ? (uint32_t)t->ntypes : 0;
}

TRAWL_API const char *trawl_type_name(const trawl_trace *t, uint32_t id)
{
	return t && id < t->ntypes ? t->types[id]->name : NULL;
}

TRAWL_API const char *trawl_type_system(const trawl_trace *t, uint32_t id)
{
	return t && id < t->ntypes ? t->types[id]->system : NULL;
}

TRAWL_API uint64_t trawl_type_events(const trawl_trace *t, uint32_t id)
{
	return t && id < t->ntypes ? t->types[id]->events : 0;
}

TRAWL_API int trawl_type_fields(trawl_trace *t, uint32_t id)
{
	if (!t || id >= t->ntypes)
		return -1;
	tw_type *ty = t->types[id];
	if (t->ops && t->ops->fields_source)
		return t->ops->fields_source(t, ty);
	if (ty->kind == TW_KIND_PRINT) /* ip, buf and the marker fields */
		return TRAWL_FIELDS_FORMAT;
	if (tw_textfmt_of(t, ty))
		return TRAWL_FIELDS_FORMAT;
	return ty->pf_state == 2 ? TRAWL_FIELDS_FALLBACK : TRAWL_FIELDS_GENERIC;
}

TRAWL_API int trawl_cpu_count(const trawl_trace *t)
{
	return t ? t->ncpu : 0;
}

TRAWL_API uint64_t trawl_cpu_events(const trawl_trace *t, int cpu)
{
	return t && cpu >= 0 && cpu < t->ncpu ? t->cpu_events[cpu] : 0;
}

TRAWL_API uint64_t trawl_cpu_lost(const trawl_trace *t, int cpu)
{
	return t && cpu >= 0 && cpu < t->ncpu ? t->cpu_lost[cpu] : 0;
}

TRAWL_API size_t trawl_lost_places(const trawl_trace *t)
{
	return t ? t->nlost_places : 0;
}

TRAWL_API int trawl_lost_place(const trawl_trace *t, size_t i,
			       const char **buffer, int *cpu, uint64_t *n)
{
	if (!t || i >= t->nlost_places || !buffer || !cpu || !n)
		return -TRAWL_EMISUSE;
	const struct tw_lost_place *p = &t->lost_places[i];
	*buffer = t->ops->buffer_name ? t->ops->buffer_name(t, p->buffer) : "";
	*cpu = p->cpu;
	*n = p->n;
	return 0;
}
