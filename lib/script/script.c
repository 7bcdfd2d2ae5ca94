/* SPDX-License-Identifier: MIT */
/*
 * The public API of the script language and its probe dispatch.
 *
 * Compile: parse, check against the trace's formats, lower; then one
 * subscription (trawl_on) per event a probe matches, each with its own
 * table of field handles resolved once by name, so the VM reads fields by
 * index with no string lookup per event, and only the events a script
 * names are delivered to it (and only the fields it reads are decoded).
 *
 * Dispatch, per trawl_script_run():
 *
 *            BEGIN probes (ts = 0)
 *                  |  exit()? ------------------------------.
 *                  v                                        |
 *   .-----> next event of the run (time order) ----- end ---+
 *   |              |                                        |
 *   |   interval probes: every period boundary passed       |
 *   |   since the last event fires once, at that time       |
 *   |   (trace time; the first boundary is one period       |
 *   |   after the first event; a live trace also tells      |
 *   |   the time while no event comes, and it fires them)   |
 *   |              |                                        |
 *   |   each probe subscribed to this event, in source      |
 *   |   order: predicate, then actions (a fault ends just   |
 *   |   that probe's run)                                   |
 *   |              |  exit()? ------------------------------+
 *   '--------------'                                        v
 *                                   END probes (ts = the last event's)
 *                                   then every map, by name (as bpftrace)
 */
#include <arpa/inet.h>
#include <pwd.h>
#include <stdio.h>
#include <time.h>

#include "../formats/formats.h"
#include "bpf-int.h"
#include "opcodes.h"
#include "script-int.h"

#define DEFAULT_MAP_SIZE 4096

int tw_sc_run_event(trawl_script *s, tw_binding *b, const trawl_event *ev)
{
	if (s->exited)
		return 1;
	if (TW_UNLIKELY(!s->have_t0)) {
		/* off-line, elapsed counts from the trace's first event */
		const trawl_stats *st = trawl_trace_stats(s->t);
		s->t0 = st && st->events ? st->first_time
					 : trawl_event_time(ev);
		s->have_t0 = 1;
	}
	int rc = tw_vm_exec(s, b->probe, ev, b, 0);
	if (TW_UNLIKELY(s->live) && s->out.len)
		tw_out_flush(s);
	return rc;
}

static int on_event(const trawl_event *ev, void *ctx)
{
	tw_binding *b = ctx;
	trawl_script *s = b->s;
	if (TW_UNLIKELY(s->hold != NULL))
		return tw_hold_event(s, b, ev);
	return tw_sc_run_event(s, b, ev);
}

/* Interval probes, fired from a "*" subscription made before the others,
 * so they run before the event that passed their time. */
#define MAX_CATCH_UP 100000

/* Fire the interval probes whose boundaries ts has passed. */
int tw_sc_intervals_to(trawl_script *s, int64_t ts)
{
	if (s->exited)
		return 1;
	if (!s->started_intervals) {
		for (size_t i = 0; i < s->nintervals; i++) {
			struct tw_interval *iv = &s->intervals[i];
			if (ts > INT64_MAX - iv->period)
				iv->period = 0; /* never: past the clock */
			else
				iv->next = ts + iv->period;
		}
		s->started_intervals = 1;
	}
	for (;;) {
		struct tw_interval *due = NULL;
		for (size_t i = 0; i < s->nintervals; i++)
			if (s->intervals[i].period &&
			    s->intervals[i].next <= ts &&
			    (!due || s->intervals[i].next < due->next))
				due = &s->intervals[i];
		if (!due)
			break;
		int64_t at = due->next;
		if ((ts - at) / due->period > MAX_CATCH_UP) {
			/* a gap of more periods than is sane to print: skip
			 * to the last boundary before this event */
			tw_sc_fault(s, due->probe, 0,
				    "more than 100000 periods without events "
				    "were skipped");
			at += ((ts - at) / due->period) * due->period;
		}
		if (at > INT64_MAX - due->period)
			due->period = 0; /* the last one the clock can hold */
		else
			due->next = at + due->period;
		if (s->bpf)
			tw_bpf_sync(s); /* it reads the kernel's maps */
		int rc = tw_vm_exec(s, due->probe, NULL, NULL, at);
		if (s->live && s->out.len)
			tw_out_flush(s);
		if (rc)
			return 1;
	}
	return 0;
}

static int on_any(const trawl_event *ev, void *ctx)
{
	trawl_script *s = ctx;
	if (s->hold)
		return tw_hold_time(s, trawl_event_time(ev));
	return tw_sc_intervals_to(s, trawl_event_time(ev));
}

/* A live trace's time passing while no event comes (lib/core). */
static int on_time(int64_t ts, void *ctx)
{
	trawl_script *s = ctx;
	if (s->hold)
		return tw_hold_time(s, ts);
	return tw_sc_intervals_to(s, ts);
}

/* The BPF back end's printf() output and exit(), drained each time a
 * live trace tells the time. */
static int on_bpf_time(int64_t ts, void *ctx)
{
	(void)ts;
	trawl_script *s = ctx;
	if (tw_bpf_poll(s)) {
		s->exited = 1;
		return 1;
	}
	return 0;
}

static int compile(trawl_script *s, tw_compiler *c)
{
	int rc = setjmp(c->jmp);
	if (rc)
		return -rc;
	tw_parse_program(c);
	tw_check_program(c);
	tw_lower_program(c);
	if (s->live && s->opts.backend != TRAWL_BACKEND_FTRACE) {
		s->bpf = tw_calloc(s->mem, 1, sizeof(*s->bpf));
		if (!s->bpf)
			tw_sc_oom(c);
		s->bpf->backend = s->opts.backend;
		tw_bpf_plan(c, s->bpf);
	}
	return 0;
}

/* Load the programs (the verifier runs now, before anything starts). In
 * auto mode a failure leaves everything to the ftrace path, said in the
 * explanation. */
static int load_bpf(trawl_script *s, trawl_error *err)
{
	tw_bpf *b = s->bpf;
	if (!b)
		return 0;
	if (!b->nprogs) {
		/* the plan's reasons stay in the explanation */
		s->explain = b->explain;
		b->explain = NULL;
		tw_bpf_free(s->mem, b);
		s->bpf = NULL;
		return 0;
	}
	trawl_error e = {0};
	if (tw_bpf_load(s, &e) == 0)
		return 0;
	if (b->backend == TRAWL_BACKEND_BPF || b->must_load) {
		if (err)
			*err = e;
		return -e.code;
	}
	char note[600];
	snprintf(note, sizeof(note),
		 "BPF is not used: %s; every probe runs in user space\n",
		 e.msg);
	tw_free(s->mem, s->explain);
	s->explain = tw_strndup(s->mem, note, strlen(note));
	tw_bpf_free(s->mem, b);
	s->bpf = NULL;
	return 0;
}

/* What outlives the compiler: probes' code starts and labels, maps. */
static int keep(trawl_script *s, tw_compiler *c, trawl_error *err)
{
	const tw_mem *mem = s->mem;
	s->probes = tw_calloc(mem, c->nprobes, sizeof(*s->probes));
	s->maps = tw_calloc(mem, c->nmaps ? c->nmaps : 1, sizeof(*s->maps));
	s->smaps = tw_calloc(mem, c->nmaps ? c->nmaps : 1, sizeof(*s->smaps));
	if (!s->probes || !s->maps || !s->smaps)
		goto oom;
	s->nprobes = c->nprobes;
	for (size_t i = 0; i < c->nprobes; i++) {
		const tw_probe *p = &c->probes[i];
		s->probes[i].code_start = p->code_start;
		s->probes[i].has_event = p->has_event;
		s->probes[i].nslots = p->nslots;
		s->probes[i].kind = p->has_event ? PK_EVENT : p->specs[0].kind;
		s->probes[i].fnames = tw_calloc(
			mem, p->nfields ? p->nfields : 1, sizeof(char *));
		if (!s->probes[i].fnames)
			goto oom;
		for (size_t f = 0; f < p->nfields; f++) {
			s->probes[i].fnames[f] = tw_strndup(
				mem, p->fields[f], strlen(p->fields[f]));
			if (!s->probes[i].fnames[f])
				goto oom;
			s->probes[i].nfnames = f + 1;
		}
		memcpy(s->probes[i].label, p->label, sizeof(p->label));
	}
	for (size_t i = 0; i < c->nmaps; i++) {
		s->maps[i] = c->maps[i];
		s->maps[i].name =
			tw_strndup(mem, c->maps[i].name, c->maps[i].len);
		if (!s->maps[i].name)
			goto oom;
		s->nmaps = i + 1;
	}
	for (size_t i = 0; i < s->nmaps; i++) {
		tw_smap_init(&s->smaps[i], &s->maps[i], mem, s->opts.map_size);
		s->smaps[i].stacks = &s->stacks;
	}
	size_t nv = (size_t)(s->prog.nvars ? s->prog.nvars : 1);
	size_t nf = 1;
	for (size_t i = 0; i < c->nprobes; i++)
		if (c->probes[i].nfields > nf)
			nf = c->probes[i].nfields;
	s->fvals = tw_calloc(mem, nf, sizeof(*s->fvals));
	s->fgen = tw_calloc(mem, nf, sizeof(*s->fgen));
	if (!s->fvals || !s->fgen)
		goto oom;
	s->stack = tw_calloc(mem, s->prog.max_stack + 1, sizeof(*s->stack));
	s->vars = tw_calloc(mem, nv, sizeof(*s->vars));
	s->var_bufs = tw_calloc(mem, nv, sizeof(*s->var_bufs));
	if (!s->stack || !s->vars || !s->var_bufs)
		goto oom;
	return 0;
oom:
	return tw_error_at(err, TRAWL_ENOMEM, 0, s->name, 0, 0, 0,
			   "out of memory");
}

/* Subscribe each probe to each event it matches, with its handles. */
static int subscribe(trawl_script *s, tw_compiler *c, trawl_error *err)
{
	const tw_mem *mem = s->mem;
	size_t nb = 0, ni = 0;
	for (size_t i = 0; i < c->nprobes; i++) {
		nb += c->probes[i].nevents;
		for (size_t k = 0; k < c->probes[i].nspecs; k++)
			ni += c->probes[i].specs[k].kind == PK_INTERVAL;
	}
	s->bindings = tw_calloc(mem, nb ? nb : 1, sizeof(*s->bindings));
	s->intervals = tw_calloc(mem, ni ? ni : 1, sizeof(*s->intervals));
	if (!s->bindings || !s->intervals)
		goto oom;
	for (size_t i = 0; i < c->nprobes; i++)
		for (size_t k = 0; k < c->probes[i].nspecs; k++)
			if (c->probes[i].specs[k].kind == PK_INTERVAL &&
			    !(s->bpf && s->bpf->in_kernel[i])) {
				struct tw_interval *iv =
					&s->intervals[s->nintervals++];
				iv->probe = i;
				iv->period = c->probes[i].specs[k].period;
			}
	/* a probe off the kernel that reads kstack: its events wait for
	 * their stacks, seen first of all subscribers (hold.c) */
	int hold = 0;
	for (size_t i = 0; i < c->nprobes; i++)
		hold |= c->probes[i].kstack && c->probes[i].has_event &&
			!(s->bpf && s->bpf->in_kernel[i]);
	if (hold &&
	    (tw_hold_init(s) < 0 || trawl_on(s->t, "*", tw_hold_watch, s) < 0))
		goto oom;
	if (s->nintervals && (trawl_on(s->t, "*", on_any, s) < 0 ||
			      tw_on_time(s->t, on_time, s) < 0))
		goto oom;
	if (s->bpf && tw_on_time(s->t, on_bpf_time, s) < 0)
		goto oom;
	for (size_t i = 0; i < c->nprobes; i++) {
		const tw_probe *p = &c->probes[i];
		if (s->bpf && s->bpf->in_kernel[i])
			continue;
		for (size_t k = 0; k < p->nevents; k++) {
			const tw_schema_event *e =
				&c->schema.events[p->events[k]];
			tw_binding *b = &s->bindings[s->nbindings++];
			b->s = s;
			b->probe = i;
			b->kstack = p->kstack;
			b->handles = tw_calloc(mem, p->nfields ? p->nfields : 1,
					       sizeof(*b->handles));
			b->aidx = tw_calloc(mem, p->nfields ? p->nfields : 1,
					    sizeof(*b->aidx));
			if (!b->handles || !b->aidx)
				goto oom;
			for (size_t f = 0; f < p->nfields; f++) {
				b->handles[f] = trawl_field_lookup(
					s->t, e->name, p->fields[f]);
				if (!b->handles[f])
					goto oom;
			}
			char pat[512];
			snprintf(pat, sizeof(pat), "%s%s%s", e->system,
				 *e->system ? ":" : "", e->name);
			b->pattern = tw_strndup(mem, pat, strlen(pat));
			char full[540];
			snprintf(full, sizeof(full), "tracepoint:%s", pat);
			b->probe_name = tw_strndup(mem, full, strlen(full));
			if (!b->pattern || !b->probe_name)
				goto oom;
			b->filter = tw_filter_of(c, p->pred, e);
			int rc = trawl_on(s->t, pat, on_event, b);
			if (rc < 0)
				return tw_error_at(err, -rc, 0, s->name, 0, 0,
						   0, "cannot subscribe to %s",
						   pat);
		}
	}
	return 0;
oom:
	return tw_error_at(err, TRAWL_ENOMEM, 0, s->name, 0, 0, 0,
			   "out of memory");
}

/* trawl_script_explain()'s text: the plan's, with the kernel memory; or
 * every probe in user space. */
static int explain_all(trawl_script *s, tw_compiler *c, trawl_error *err)
{
	tw_buf out = {0};
	char line[400];
	const char *plan = s->bpf ? s->bpf->explain : NULL;
	if (plan) {
		if (tw_buf_append(s->mem, &out, plan, strlen(plan)) < 0)
			goto oom;
		snprintf(line, sizeof(line),
			 "kernel memory: %.1f KiB (maps of at most %zu keys%s, "
			 "%d CPUs)\n",
			 (double)s->bpf->kernel_bytes / 1024, s->opts.map_size,
			 s->bpf->kstacks ? " and as many kstacks of 1 KiB" : "",
			 s->bpf->ncpus);
		if (tw_buf_append(s->mem, &out, line, strlen(line)) < 0)
			goto oom;
	} else {
		for (size_t i = 0; i < c->nprobes; i++) {
			snprintf(line, sizeof(line),
				 "probe %zu (%s, line %u): user space\n", i + 1,
				 c->probes[i].label, c->probes[i].line);
			if (tw_buf_append(s->mem, &out, line, strlen(line)) < 0)
				goto oom;
		}
	}
	if (tw_buf_append(s->mem, &out, "", 1) < 0)
		goto oom;
	s->explain = out.data;
	return 0;
oom:
	tw_buf_fini(s->mem, &out);
	return tw_error_at(err, TRAWL_ENOMEM, 0, s->name, 0, 0, 0,
			   "out of memory");
}

TRAWL_API trawl_script *trawl_script_compile(trawl_trace *t, const char *src,
					     size_t len,
					     const trawl_script_opts *opts,
					     trawl_error *err)
{
	if (!t || (!src && len)) {
		tw_error_at(err, TRAWL_EINVAL, 0, NULL, 0, 0, 0,
			    "trawl_script_compile: no trace or no source");
		return NULL;
	}
	if (t->ran) {
		tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
			    "trawl_script_compile: the trace has already run");
		return NULL;
	}
	const tw_mem *mem = &t->mem;
	trawl_script *s = tw_calloc(mem, 1, sizeof(*s));
	if (!s) {
		tw_error_at(err, TRAWL_ENOMEM, 0, NULL, 0, 0, 0,
			    "out of memory");
		return NULL;
	}
	s->t = t;
	s->mem = mem;
	tw_stacks_init(&s->stacks, mem, t);
	s->live = trawl_format(t) == TRAWL_FORMAT_LIVE;
	if (opts)
		s->opts = *opts;
	if (!s->opts.map_size)
		s->opts.map_size = DEFAULT_MAP_SIZE;
	snprintf(s->name, sizeof(s->name), "%s",
		 s->opts.name ? s->opts.name : "<script>");
	s->opts.name = s->name;

	tw_compiler c;
	memset(&c, 0, sizeof(c));
	c.t = t;
	c.mem = mem;
	c.arena.mem = mem;
	c.err = err;
	c.name = s->name;
	c.prog = &s->prog;
	c.params = s->opts.params;
	c.nparams = s->opts.params ? s->opts.nparams : 0;
	c.kernel = s->live && s->opts.backend != TRAWL_BACKEND_FTRACE;
	c.lx.src = src ? src : "";
	c.lx.end = c.lx.src + len;
	int rc = compile(s, &c);
	if (rc == 0)
		rc = keep(s, &c, err);
	if (rc == 0)
		rc = load_bpf(s, err);
	if (rc == 0)
		rc = subscribe(s, &c, err);
	if (rc == 0 && !s->explain)
		rc = explain_all(s, &c, err);
	tw_arena_free(&c.arena);
	tw_format_set_free(c.bundled);
	tw_btf_free(&c);
	if (rc < 0) {
		trawl_script_free(s);
		return NULL;
	}
	return s;
}

static int64_t mono_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Run every probe of one kind (BEGIN, END). Return: 1 after exit(). */
static int run_kind(trawl_script *s, int kind, int64_t now)
{
	for (size_t i = 0; i < s->nprobes; i++)
		if (s->probes[i].kind == kind &&
		    tw_vm_exec(s, i, NULL, NULL, now))
			return 1;
	return 0;
}

TRAWL_API int trawl_script_attach(trawl_script *s, trawl_error *err)
{
	if (!s)
		return tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
				   "trawl_script_attach: no script");
	if (!s->bpf || s->bpf->attached)
		return 0;
	/* elapsed counts from here, as the kernel's programs see it */
	s->t0 = mono_now();
	s->have_t0 = 1;
	int rc = tw_bpf_attach(s, err);
	if (rc < 0)
		tw_bpf_detach(s);
	return rc;
}

TRAWL_API void trawl_script_detach(trawl_script *s)
{
	if (s && s->bpf)
		tw_bpf_detach(s);
}

TRAWL_API int trawl_script_run(trawl_script *s, trawl_error *err)
{
	if (!s)
		return tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
				   "trawl_script_run: no script");
	int rc = 0;
	if (s->opts.flags & TRAWL_SCRIPT_JSON)
		tw_out(s, "", 0); /* opens the object */
	/* Live, nsecs in BEGIN and END is the time now on the trace's
	 * clock (CLOCK_MONOTONIC, bpftrace's), and elapsed counts from
	 * here; off-line BEGIN runs at 0 and END at the last event. */
	if (s->live && !s->have_t0) {
		s->t0 = mono_now();
		s->have_t0 = 1;
	}
	int exited = run_kind(s, PK_BEGIN, s->live ? s->t0 : 0);
	if (s->live)
		tw_out_flush(s); /* before the first event */
	if (!exited && s->bpf) {
		int arc = s->bpf->attached ? tw_bpf_push(s)
					   : tw_bpf_attach(s, err);
		if (arc < 0) {
			tw_bpf_detach(s);
			return arc == -1 ? tw_error_at(err, TRAWL_ENOMEM, 0,
						       s->name, 0, 0, 0,
						       "out of memory")
					 : arc;
		}
	}
	if (!exited) {
		rc = trawl_run(s->t, err);
		/* the events still waiting for a stack that did not come */
		if (rc == 0)
			rc = tw_hold_flush(s);
		if (rc > 0)
			rc = 0; /* exit() stopped the run */
	}
	if (s->bpf) {
		/* what the kernel did, before END reads it */
		tw_bpf_detach(s);
		tw_bpf_sync(s);
		tw_bpf_flush_lines(s);
	}
	/* END runs after exit() too, as in bpftrace, and after a run that
	 * failed part way (a file cut short): what was read is reported */
	s->exited = 0;
	const trawl_stats *st = trawl_trace_stats(s->t);
	run_kind(s, PK_END,
		 s->live	    ? mono_now()
		 : st && st->events ? st->last_time
				    : 0);
	if (s->opts.flags & TRAWL_SCRIPT_JSON) {
		tw_print_json_maps(s);
	} else {
		/* bpftrace writes two newlines before the maps it prints at
		 * exit (main.cpp); here only when there is a map to print */
		int any = 0;
		for (size_t i = 0; i < s->nmaps; i++)
			any |= s->smaps[i].n != 0;
		if (any)
			tw_out(s, "\n\n", 2);
		/* in bpftrace's order, by name (its maps are a std::map);
		 * names are unique, so each round takes the next one up */
		const char *prev = NULL;
		for (size_t k = 0; k < s->nmaps; k++) {
			size_t best = s->nmaps;
			for (size_t i = 0; i < s->nmaps; i++) {
				const char *nm = s->maps[i].name;
				if ((!prev || strcmp(nm, prev) > 0) &&
				    (best == s->nmaps ||
				     strcmp(nm, s->maps[best].name) < 0))
					best = i;
			}
			prev = s->maps[best].name;
			if (s->smaps[best].n)
				tw_print_map(s, best, -1);
		}
	}
	tw_out_flush(s);
	if (rc == 0 && s->oom)
		rc = tw_error_at(err, TRAWL_ENOMEM, 0, s->name, 0, 0, 0,
				 "out of memory while running the script");
	return rc;
}

TRAWL_API const char *trawl_script_fault(const trawl_script *s, size_t i,
					 uint64_t *count)
{
	if (!s || i >= s->nfaults)
		return NULL;
	if (count)
		*count = s->faults[i].count;
	return s->faults[i].msg;
}

TRAWL_API const char *trawl_script_event(const trawl_script *s, size_t i,
					 const char **filter)
{
	if (!s || i >= s->nbindings)
		return NULL;
	if (filter)
		*filter = s->bindings[i].filter;
	return s->bindings[i].pattern;
}

TRAWL_API const char *trawl_script_explain(const trawl_script *s)
{
	return s && s->explain ? s->explain : "";
}

TRAWL_API const char *trawl_script_kernel_event(const trawl_script *s, size_t i)
{
	if (!s || !s->bpf || i >= s->bpf->nprogs)
		return NULL;
	return s->bpf->progs[i].tp;
}

TRAWL_API int trawl_script_stack(const trawl_script *s, const char *event)
{
	if (!s || !event)
		return 0;
	for (size_t i = 0; i < s->nbindings; i++)
		if (s->bindings[i].kstack &&
		    strcmp(s->bindings[i].pattern, event) == 0)
			return 1;
	for (size_t i = 0; s->bpf && i < s->bpf->nprogs; i++)
		if (s->bpf->progs[i].kstack &&
		    strcmp(s->bpf->progs[i].tp, event) == 0)
			return 1;
	return 0;
}

TRAWL_API void trawl_script_free(trawl_script *s)
{
	if (!s)
		return;
	const tw_mem *mem = s->mem;
	tw_bpf_free(mem, s->bpf);
	tw_hold_free(s);
	tw_stacks_fini(&s->stacks);
	tw_free(mem, s->explain);
	for (size_t i = 0; i < s->nmaps; i++) {
		tw_smap_fini(&s->smaps[i]);
		tw_free(mem, (char *)s->maps[i].name);
	}
	tw_free(mem, s->smaps);
	tw_free(mem, s->maps);
	for (size_t i = 0; i < s->nbindings; i++) {
		tw_free(mem, s->bindings[i].handles);
		tw_free(mem, s->bindings[i].aidx);
		tw_free(mem, s->bindings[i].pattern);
		tw_free(mem, s->bindings[i].probe_name);
		tw_free(mem, s->bindings[i].filter);
	}
	for (size_t i = 0; s->probes && i < s->nprobes; i++) {
		for (size_t f = 0; f < s->probes[i].nfnames; f++)
			tw_free(mem, s->probes[i].fnames[f]);
		tw_free(mem, s->probes[i].fnames);
	}
	tw_free(mem, s->bindings);
	tw_free(mem, s->intervals);
	tw_free(mem, s->probes);
	tw_free(mem, s->stack);
	tw_free(mem, s->vars);
	tw_free(mem, s->var_bufs);
	tw_free(mem, s->fvals);
	tw_free(mem, s->fgen);
	tw_program_free(mem, &s->prog);
	tw_buf_fini(mem, &s->out);
	tw_free(mem, s);
}

const char *tw_ksym(struct trawl_script *s, uint64_t addr, char *buf)
{
	uint64_t off, size;
	const char *name = trawl_trace_symbol(s->t, addr, &off, &size);
	if (name)
		return name; /* the trace's table: kept while it is open */
	if (!buf) /* a few kept at once: a key of several, a printf's */
		buf = s->texts[s->texts_next++ % TW_SC_MAX_ARGS];
	snprintf(buf, 20, "0x%llx", (unsigned long long)addr);
	return buf;
}

const char *tw_username(struct trawl_script *s, uint32_t uid)
{
	char *buf = s->texts[s->texts_next++ % TW_SC_MAX_ARGS];
	char pw[1024];
	struct passwd pwd, *p = NULL;
	if (getpwuid_r(uid, &pwd, pw, sizeof(pw), &p) == 0 && p)
		snprintf(buf, sizeof(s->texts[0]), "%s", p->pw_name);
	else /* no such user here: its number, as bpftrace prints it */
		snprintf(buf, sizeof(s->texts[0]), "%u", uid);
	return buf;
}

const char *tw_strftime(struct trawl_script *s, const char *fmt, int64_t ns)
{
	char *buf = s->texts[s->texts_next++ % TW_SC_MAX_ARGS];
	struct tm tm;
	int64_t wall = ns;
	if (s->live) {
		/* the monotonic clock (the live trace's, the kernel's
		 * nsecs) as the wall clock: their distance now */
		struct timespec mono, real;
		clock_gettime(CLOCK_MONOTONIC, &mono);
		clock_gettime(CLOCK_REALTIME, &real);
		wall += ((int64_t)real.tv_sec - mono.tv_sec) * 1000000000 +
			(real.tv_nsec - mono.tv_nsec);
	}
	time_t at = (time_t)(wall / 1000000000);
	/* off line the trace's clock says no date (ftrace's count from
	 * boot): its time as it is, in UTC */
	if (!(s->live ? localtime_r(&at, &tm) : gmtime_r(&at, &tm))) {
		buf[0] = 0;
		return buf;
	}
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (!strftime(buf, sizeof(s->texts[0]), fmt, &tm))
		buf[0] = 0; /* longer than a string holds */
#pragma GCC diagnostic pop
	return buf;
}

const char *tw_ntop(struct trawl_script *s, int family, const void *addr)
{
	char *buf = s->texts[s->texts_next++ % TW_SC_MAX_ARGS];
	if (!inet_ntop(family, addr, buf, sizeof(s->texts[0])))
		snprintf(buf, sizeof(s->texts[0]), "(family %d)", family);
	return buf;
}
