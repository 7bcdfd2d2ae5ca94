/* SPDX-License-Identifier: MIT */
/*
 * The checker: resolves probes to events, args.FIELD to fields of those
 * events, $vars to slots and @maps to declarations, and types every node.
 * After it the tree is the typed intermediate form (script-int.h).
 *
 * Maps are global and may be read (in BEGIN, say) before the probe that
 * assigns them, so checking runs twice: pass 1 fixes what each map holds,
 * treating a read of a map not fixed yet as "unknown" (TY_VOID), which
 * never causes an error; pass 2 checks everything with every map known.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <tracefs.h>
#include <unistd.h>

#include "../formats/formats.h"
#include "script-int.h"

#define ERR(c, n, code, ...)                                                   \
	tw_sc_error((c), (code), (n)->line, (n)->col, __VA_ARGS__)

static const char *type_name(int t)
{
	if (tw_is_stack(t))
		return tw_stack_perf(t) || tw_stack_limit(t) != TW_SC_STACK_MAX
			       ? "kstack (of another limit or mode)"
			       : "kstack";
	return t == TY_INT ? "integer" : t == TY_STR ? "string" : "nothing";
}

static int has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* ---- probes to events ---- */

static void add_event(tw_compiler *c, tw_probe *pr, size_t *cap, size_t e)
{
	for (size_t i = 0; i < pr->nevents; i++)
		if (pr->events[i] == e)
			return;
	tw_sc_grow(c, (void **)&pr->events, cap, pr->nevents + 1,
		   sizeof(*pr->events));
	pr->events[pr->nevents++] = e;
}

/*
 * Whether spec s names an event of the kernel the bundled table comes
 * from: a trace.dat keeps only the formats of the events it recorded, so
 * sched_wakeup_new may be missing from a file and still be no typo.
 */
static int known_kernel_event(tw_compiler *c, const tw_probe_spec *s)
{
	if (!c->bundled) {
		trawl_error e;
		if (tw_format_set_bundled(c->mem, &c->bundled, &e))
			tw_sc_oom(c);
	}
	const tw_format_text *f =
		tw_format_set_find(c->bundled, s->name, strlen(s->name));
	if (!f)
		return 0;
	if (!s->system || strcmp(s->system, f->system) == 0)
		return 1;
	return tw_format_set_find_in(c->bundled, s->system, s->name,
				     strlen(s->name)) != NULL;
}

/* bpftrace's probe types other than tracepoints: what this back end
 * says of each, instead of the nearest event name */
static void other_probe_type(tw_compiler *c, const tw_probe_spec *s)
{
	static const char *const kprobes[] = {
		"kprobe", "kretprobe", "k", "kr", "kfunc",	   "kretfunc",
		"fentry", "fexit",     "f", "fr", "rawtracepoint", "rt"};
	static const char *const uprobes[] = {"usdt", "U"};
	static const char *const perf[] = {
		"hardware",	   "h",	   "watchpoint", "w",
		"asyncwatchpoint", "iter", "it"};
	const char *sys = s->system;
	if (!sys)
		return;
	for (size_t i = 0; i < TW_ARRAY_SIZE(kprobes); i++) {
		if (strcmp(sys, kprobes[i]))
			continue;
		const char *dir = trawl_format(c->t) == TRAWL_FORMAT_LIVE
					  ? tracefs_tracing_dir()
					  : NULL;
		char path[4096];
		snprintf(path, sizeof(path), "%s/kprobe_events",
			 dir ? dir : "");
		if (dir && access(path, F_OK) != 0)
			tw_sc_error(c, TRAWL_ENOENT, s->line, s->col,
				    "'%.*s': this kernel has no kprobe_events "
				    "in tracefs (%s), so it cannot probe "
				    "kernel functions; tracepoints "
				    "(tracepoint:SYS:EVENT, trawl run -l) it "
				    "has",
				    (int)s->len, s->text, path);
		tw_sc_error(c, TRAWL_ENOENT, s->line, s->col,
			    "'%.*s': kernel function probes are not among "
			    "trawl's probes yet (they need kprobe_events, or "
			    "the BPF back end of issue 24); tracepoints are "
			    "(tracepoint:SYS:EVENT)",
			    (int)s->len, s->text);
	}
	for (size_t i = 0; i < TW_ARRAY_SIZE(uprobes); i++)
		if (!strcmp(sys, uprobes[i]))
			tw_sc_error(c, TRAWL_ENOENT, s->line, s->col,
				    "'%.*s': USDT probes are not among "
				    "trawl's probes yet; uprobe:PATH:FUNC "
				    "and tracepoints are",
				    (int)s->len, s->text);
	for (size_t i = 0; i < TW_ARRAY_SIZE(perf); i++)
		if (!strcmp(sys, perf[i]))
			tw_sc_error(c, TRAWL_ENOENT, s->line, s->col,
				    "'%.*s': %s probes are not among trawl's "
				    "probes yet; profile:, software:, "
				    "interval: and tracepoints are (profile "
				    "and software live, with the BPF back end)",
				    (int)s->len, s->text, sys);
}

static void unknown_event(tw_compiler *c, const tw_probe_spec *s)
{
	other_probe_type(c, s);
	/* the nearest among this trace's events and the kernel's */
	const tw_schema *sc = &c->schema;
	size_t nb = c->bundled ? tw_format_set_count(c->bundled) : 0;
	const char **cands =
		tw_sc_alloc(c, (sc->nevents + nb + 1) * sizeof(char *));
	const char **systems =
		tw_sc_alloc(c, (sc->nevents + nb + 1) * sizeof(char *));
	size_t n = 0;
	for (size_t i = 0; i < sc->nevents; i++, n++) {
		cands[n] = sc->events[i].name;
		systems[n] = sc->events[i].system;
	}
	for (size_t i = 0; i < nb; i++, n++) {
		cands[n] = tw_format_set_at(c->bundled, i)->name;
		systems[n] = tw_format_set_at(c->bundled, i)->system;
	}
	const char *near = tw_nearest(s->name, cands, n);
	const char *sys = NULL;
	for (size_t i = 0; near && i < n && !sys; i++)
		if (cands[i] == near)
			sys = systems[i];
	if (near)
		tw_sc_error(c, TRAWL_ENOENT, s->line, s->col,
			    "unknown event '%.*s' (did you mean '%s%s%s'?)",
			    (int)s->len, s->text, sys && *sys ? sys : "",
			    sys && *sys ? ":" : "", near);
	if (sc->nevents == 0)
		tw_sc_error(c, TRAWL_ENOENT, s->line, s->col,
			    "unknown event '%.*s': no event formats are known "
			    "for this trace (give --formats)",
			    (int)s->len, s->text);
	tw_sc_error(c, TRAWL_ENOENT, s->line, s->col, "unknown event '%.*s'",
		    (int)s->len, s->text);
}

static void resolve_probe(tw_compiler *c, tw_probe *pr)
{
	const tw_probe_spec *empty = NULL;
	size_t cap = 0;
	int events = 0, others = 0;
	size_t lab = 0;
	for (size_t k = 0; k < pr->nspecs; k++) {
		tw_probe_spec *s = &pr->specs[k];
		int w = snprintf(pr->label + lab, sizeof(pr->label) - lab,
				 "%s%.*s", k ? "," : "", (int)s->len, s->text);
		if (w > 0 && lab + (size_t)w < sizeof(pr->label))
			lab += (size_t)w;
		if (s->kind == PK_PERF)
			pr->perf = 1;
		if (s->uprobe)
			pr->uprobe = s->uprobe;
		if (s->kind != PK_EVENT) {
			others++;
			continue;
		}
		events++;
		size_t before = pr->nevents;
		for (size_t i = 0; i < c->schema.nevents; i++) {
			const tw_schema_event *e = &c->schema.events[i];
			if (s->system && !tw_glob(s->system, e->system))
				continue;
			if (!tw_glob(s->name, e->name) &&
			    !(strcmp(s->name, "tracing_mark_write") == 0 &&
			      strcmp(e->name, "print") == 0))
				continue;
			add_event(c, pr, &cap, i);
		}
		/* A spec that matches nothing is fine beside others that
		 * match, unless it is a typo (no kernel event has its name). */
		if (pr->nevents == before) {
			int exact = !has_glob(s->name) &&
				    (!s->system || !has_glob(s->system));
			if (exact && !known_kernel_event(c, s))
				unknown_event(c, s);
			if (!empty)
				empty = s;
		}
	}
	if (events && pr->nevents == 0) {
		if (has_glob(empty->name) ||
		    (empty->system && has_glob(empty->system)))
			tw_sc_error(c, TRAWL_ENOENT, empty->line, empty->col,
				    "probe '%.*s' matches no event of this "
				    "trace",
				    (int)empty->len, empty->text);
		tw_sc_error(c, TRAWL_ENOENT, empty->line, empty->col,
			    "event '%.*s' is not in this trace (its format "
			    "is not in the file: was it recorded?)",
			    (int)empty->len, empty->text);
	}
	if (events && others)
		tw_sc_error(c, TRAWL_EPARSE, pr->line, pr->col,
			    "a probe list mixes events with BEGIN, END or "
			    "interval: give them separate probes");
	if (others > 1)
		tw_sc_error(c, TRAWL_EPARSE, pr->line, pr->col,
			    "BEGIN, END, interval, profile and software probes "
			    "stand alone");
	pr->has_event = events > 0;
	if (pr->uprobe && !c->kernel)
		tw_sc_error(c, TRAWL_EUNSUPPORTED, pr->specs[0].line,
			    pr->specs[0].col,
			    "'%.*s' probes a program's function, which the "
			    "BPF back end does in a live run (--live, "
			    "--backend auto or bpf); a trace holds only its "
			    "events",
			    (int)pr->specs[0].len, pr->specs[0].text);
	if (pr->perf && !c->kernel)
		tw_sc_error(c, TRAWL_EUNSUPPORTED, pr->specs[0].line,
			    pr->specs[0].col,
			    "'%.*s' is a perf event, which a probe in the "
			    "kernel samples: a live run with the BPF back end "
			    "opens it (--live, --backend auto or bpf); a "
			    "trace holds only its events (a perf.data's "
			    "samples are perf:cpu_clock ... events)",
			    (int)pr->specs[0].len, pr->specs[0].text);
	for (size_t k = 0; k < pr->nspecs; k++)
		if (pr->specs[k].uprobe)
			tw_uprobe_resolve(c, &pr->specs[k]);
	if (pr->perf && !pr->user_line) {
		/* sampled in the kernel or not at all */
		pr->user_line = pr->specs[0].line;
		pr->user_col = pr->specs[0].col;
		pr->user_what = "a perf event's samples";
	}
}

/* ---- fields ---- */

static int field_slot(tw_compiler *c, tw_probe *pr, tw_node *n)
{
	if (!pr->has_event)
		ERR(c, n, TRAWL_EPARSE,
		    "args.%s: only event probes have fields", n->name);
	int user_ptr = 0; /* 1: char *, 2: char ** */
	for (size_t i = 0; i < pr->nevents && !user_ptr; i++) {
		tw_schema_event *e = tw_schema_fields(c, pr->events[i]);
		for (size_t j = 0; j < e->nfields; j++)
			if (e->fields[j].user_ptr &&
			    strcmp(e->fields[j].name, n->name) == 0)
				user_ptr = e->fields[j].user_ptr;
	}
	n->ival = user_ptr;
	/* the pointer alone is of no use, and as a string ("0x55cc...")
	 * it never matches one: refused but where str() reads it or a map
	 * keeps it for a str() later */
	if (user_ptr && !c->uptr_ok && !c->kernel)
		ERR(c, n, TRAWL_ETYPE,
		    "args.%s is a pointer into the task's memory: a trace "
		    "holds the pointer, not the string; str(args.%s) reads "
		    "it in a live run with the BPF back end (--live, "
		    "--backend auto or bpf)",
		    n->name, n->name);
	if (user_ptr && !c->uptr_ok)
		ERR(c, n, TRAWL_ETYPE,
		    "args.%s is a pointer into the task's memory: "
		    "str(args.%s) is its string",
		    n->name, n->name);
	for (size_t i = 0; i < pr->nfields; i++)
		if (strcmp(pr->fields[i], n->name) == 0) {
			n->type = pr->field_types[i];
			return (int)i;
		}
	int type = TY_VOID, found = 0;
	const char *first_ev = NULL;
	for (size_t i = 0; i < pr->nevents; i++) {
		tw_schema_event *e = tw_schema_fields(c, pr->events[i]);
		for (size_t j = 0; j < e->nfields; j++) {
			if (strcmp(e->fields[j].name, n->name) != 0)
				continue;
			if (found && e->fields[j].type != type)
				ERR(c, n, TRAWL_ETYPE,
				    "args.%s is a %s in %s but a %s in %s",
				    n->name, type_name(type), first_ev,
				    type_name(e->fields[j].type), e->name);
			if (!found)
				first_ev = e->name;
			found = 1;
			type = e->fields[j].type;
		}
	}
	if (!found) {
		size_t nc = 0, cap = 0;
		const char **cands = NULL;
		for (size_t i = 0; i < pr->nevents; i++) {
			tw_schema_event *e = tw_schema_fields(c, pr->events[i]);
			for (size_t j = 0; j < e->nfields; j++) {
				tw_sc_grow(c, (void **)&cands, &cap, nc + 1,
					   sizeof(*cands));
				cands[nc++] = e->fields[j].name;
			}
		}
		const char *near = tw_nearest(n->name, cands, nc);
		const char *ev = c->schema.events[pr->events[0]].name;
		if (near)
			ERR(c, n, TRAWL_ENOENT,
			    "unknown field args.%s of %s%s (did you mean "
			    "args.%s?)",
			    n->name, ev, pr->nevents > 1 ? " ..." : "", near);
		ERR(c, n, TRAWL_ENOENT, "unknown field args.%s of %s%s",
		    n->name, ev, pr->nevents > 1 ? " ..." : "");
	}
	size_t cap = pr->nfields; /* grown by copy in the arena */
	tw_sc_grow(c, (void **)&pr->fields, &cap, pr->nfields + 1,
		   sizeof(*pr->fields));
	cap = pr->nfields;
	tw_sc_grow(c, (void **)&pr->field_types, &cap, pr->nfields + 1,
		   sizeof(*pr->field_types));
	if (user_ptr)
		type = TY_INT; /* the address */
	pr->fields[pr->nfields] = n->name;
	pr->field_types[pr->nfields] = type;
	n->type = type;
	return (int)pr->nfields++;
}

/* ---- maps and vars ---- */

static tw_map_decl *map_of(tw_compiler *c, tw_node *n)
{
	for (size_t i = 0; i < c->nmaps; i++)
		if (c->maps[i].len == n->len &&
		    memcmp(c->maps[i].name, n->name, n->len) == 0) {
			n->slot = (int)i;
			return &c->maps[i];
		}
	tw_sc_grow(c, (void **)&c->maps, &c->maps_cap, c->nmaps + 1,
		   sizeof(*c->maps));
	tw_map_decl *d = &c->maps[c->nmaps];
	memset(d, 0, sizeof(*d));
	d->name = n->name;
	d->len = n->len;
	d->nkeys = -1;
	d->line = n->line;
	d->col = n->col;
	n->slot = (int)c->nmaps++;
	return d;
}

static void expr(tw_compiler *c, tw_node *n);

static void check_keys(tw_compiler *c, tw_node *n, tw_map_decl *d)
{
	for (size_t i = 0; i < n->nkids; i++) {
		expr(c, n->kids[i]);
		if (n->kids[i]->type == TY_VOID && c->pass == 1)
			return; /* not known yet */
		if (n->kids[i]->type == TY_VOID)
			ERR(c, n->kids[i], TRAWL_ETYPE, "a key has no value");
	}
	if (d->nkeys < 0) {
		d->nkeys = (int)n->nkids;
		for (size_t i = 0; i < n->nkids; i++)
			d->key_types[i] = n->kids[i]->type;
		return;
	}
	if ((size_t)d->nkeys != n->nkids)
		ERR(c, n, TRAWL_ETYPE, "@%s has keys of %d parts, not %zu",
		    d->name, d->nkeys, n->nkids);
	for (size_t i = 0; i < n->nkids; i++)
		if (d->key_types[i] != n->kids[i]->type)
			ERR(c, n->kids[i], TRAWL_ETYPE,
			    "@%s: key part %zu is a%s %s, not a%s %s", d->name,
			    i + 1, d->key_types[i] == TY_INT ? "n" : "",
			    type_name(d->key_types[i]),
			    n->kids[i]->type == TY_INT ? "n" : "",
			    type_name(n->kids[i]->type));
}

static const char *kind_name(int k)
{
	static const char *const names[] = {
		[MV_NONE] = "nothing",	[MV_INT] = "integer",
		[MV_STR] = "string",	[MV_COUNT] = "count()",
		[MV_SUM] = "sum()",	[MV_AVG] = "avg()",
		[MV_MIN] = "min()",	[MV_MAX] = "max()",
		[MV_STATS] = "stats()", [MV_HIST] = "hist()",
		[MV_LHIST] = "lhist()"};
	return k >= 0 && k <= MV_LHIST ? names[k] : "?";
}

static void set_kind(tw_compiler *c, tw_node *n, tw_map_decl *d, int kind)
{
	if (d->kind == MV_NONE)
		d->kind = kind;
	else if (d->kind != kind)
		ERR(c, n, TRAWL_ETYPE, "@%s holds %s values, not %s", d->name,
		    kind_name(d->kind), kind_name(kind));
}

/* An integer map holds integers or kstacks, fixed by its first store. */
static void value_type(tw_compiler *c, tw_node *n, tw_map_decl *d, int type)
{
	if (!d->vtype)
		d->vtype = type;
	else if (d->vtype != type)
		ERR(c, n, TRAWL_ETYPE, "@%s holds %s values, not %s values",
		    d->name, type_name(d->vtype), type_name(type));
}

static struct tw_var *var_of(tw_compiler *c, tw_node *n)
{
	for (size_t i = 0; i < c->nvars; i++)
		if (c->vars[i].len == n->len &&
		    memcmp(c->vars[i].name, n->name, n->len) == 0)
			return &c->vars[i];
	return NULL;
}

static struct tw_var *new_var(tw_compiler *c, tw_node *n, int type)
{
	tw_sc_grow(c, (void **)&c->vars, &c->vars_cap, c->nvars + 1,
		   sizeof(*c->vars));
	struct tw_var *v = &c->vars[c->nvars++];
	v->name = n->name;
	v->len = n->len;
	v->type = type;
	v->slot = c->nslots++;
	return v;
}

/* The bytes of field n in the probe's first event that has it (0: 8). */
static int field_width(tw_compiler *c, tw_probe *pr, const tw_node *n)
{
	for (size_t i = 0; i < pr->nevents; i++) {
		tw_schema_event *e = tw_schema_fields(c, pr->events[i]);
		for (size_t j = 0; j < e->nfields; j++)
			if (!strcmp(e->fields[j].name, n->name))
				return e->fields[j].array || e->fields[j].dloc
					       ? 0
					       : (int)e->fields[j].size;
	}
	return 0;
}

/* ---- kernel memory: casts to structs and their members ---- */

/* The probe reads what only the kernel has at n (what: for messages;
 * NULL: the task's memory by str() or join()): it runs there or not at
 * all (bpf-gen.c). The first such place is kept. */
static void in_kernel(tw_compiler *c, const tw_node *n, const char *what)
{
	tw_probe *pr = &c->probes[c->cur_probe];
	if (pr->user_line)
		return;
	pr->user_line = n->line, pr->user_col = n->col;
	pr->user_what = what;
}

/* A probe reads kernel or task memory (or what else only a probe in the
 * kernel has): refused off the kernel, and the probe kept there. */
static void kernel_only(tw_compiler *c, tw_node *n, const char *what)
{
	if (!c->kernel)
		ERR(c, n, TRAWL_ETYPE,
		    "%s, which only a probe in the kernel can: it is read in "
		    "a live run with the BPF back end (--live, --backend auto "
		    "or bpf); a trace has only the events' fields",
		    what);
	in_kernel(c, n, "memory through a pointer");
}

/* Where the kernel lists its symbols; the tests point it elsewhere. */
static const char *kallsyms_path(void)
{
	const char *p = getenv("TRAWL_KALLSYMS");
	return p && *p ? p : "/proc/kallsyms";
}

/* /proc/kallsyms' text into c (once a compilation: every kaddr() looks in
 * it), its data symbols (types D, d, B, b) counted. */
static void load_ksyms(tw_compiler *c, const tw_node *n)
{
	if (c->ksyms)
		return;
	FILE *f = fopen(kallsyms_path(), "re");
	if (!f)
		ERR(c, n, TRAWL_ENOENT, "kaddr(): cannot read %s: %s",
		    kallsyms_path(), strerror(errno));
	size_t cap = 0, len = 0;
	char *text = NULL;
	for (;;) { /* its size says 0: read to the end */
		tw_sc_grow(c, (void **)&text, &cap, len + 65536 + 1, 1);
		size_t k = fread(text + len, 1, cap - len - 1, f);
		len += k;
		if (k == 0)
			break;
	}
	fclose(f);
	text[len] = 0;
	for (const char *l = text; l < text + len;) {
		const char *sp = memchr(l, ' ', (size_t)(text + len - l));
		if (sp && sp + 1 < text + len && strchr("DdBb", sp[1]))
			c->ksyms_data++;
		const char *nl = memchr(l, '\n', (size_t)(text + len - l));
		l = nl ? nl + 1 : text + len;
	}
	c->ksyms = text;
	c->ksyms_len = len;
}

/* name's address in /proc/kallsyms (its first line "ADDR T name"). */
static int ksym_addr(tw_compiler *c, const tw_node *n, const char *name,
		     uint64_t *addr)
{
	load_ksyms(c, n);
	size_t nl = strlen(name);
	const char *text = c->ksyms, *end = text + c->ksyms_len;
	for (const char *p = text; nl && p < end;) {
		const char *m = memmem(p, (size_t)(end - p), name, nl);
		if (!m)
			break;
		p = m + 1;
		/* the whole third word of a line: " T name" then its end */
		if (m - text < 3 || m[-1] != ' ' || m[-3] != ' ' ||
		    (m + nl < end && m[nl] != '\n' && m[nl] != '\t'))
			continue;
		const char *line = m - 3;
		while (line > text && line[-1] != '\n')
			line--;
		*addr = strtoull(line, NULL, 16);
		return 1;
	}
	return 0;
}

/* kaddr("name"): the symbol's address in this kernel, a constant from
 * /proc/kallsyms (as bpftrace takes it when it compiles): the node
 * becomes that number. */
static void kaddr_call(tw_compiler *c, tw_node *n)
{
	if (n->nkids != 1 || n->kids[0]->kind != N_STR)
		ERR(c, n, TRAWL_EPARSE,
		    "kaddr() takes a symbol's name, a string literal "
		    "(kaddr(\"avenrun\"))");
	const char *name = n->kids[0]->name;
	if (!c->kernel)
		ERR(c, n, TRAWL_ETYPE,
		    "kaddr(\"%s\") is an address in the running kernel, "
		    "whose memory only a probe in the kernel can read: a "
		    "live run with the BPF back end (--live, --backend "
		    "auto or bpf)",
		    name);
	uint64_t addr = 0;
	int found = ksym_addr(c, n, name, &addr);
	size_t data = c->ksyms_data;
	/* a kernel built without CONFIG_KALLSYMS_ALL lists its functions
	 * and a few section bounds only (bpftrace fails there the same) */
	if (!found)
		ERR(c, n, TRAWL_ENOENT, "kaddr(\"%s\"): no such symbol in %s%s",
		    name, kallsyms_path(),
		    data < 1000
			    ? " (this kernel lists no data symbols there: "
			      "it was built without CONFIG_KALLSYMS_ALL, so "
			      "variables have no address to read)"
			    : "");
	if (!addr)
		ERR(c, n, TRAWL_EENV,
		    "kaddr(\"%s\"): %s shows addresses as 0 (not root, or "
		    "kernel.kptr_restrict)",
		    name, kallsyms_path());
	n->kind = N_INT;
	n->ival = (int64_t)addr;
	n->nkids = 0;
	n->type = TY_INT;
}

/* args.F as a pointer to the kernel struct its format declares
 * ("struct __kernel_timespec * rqtp"); a syscall's points into the task. */
static void field_pointer(tw_compiler *c, tw_node *f)
{
	tw_probe *pr = &c->probes[c->cur_probe];
	for (size_t i = 0; i < pr->nevents; i++) {
		tw_schema_event *e = tw_schema_fields(c, pr->events[i]);
		for (size_t j = 0; j < e->nfields; j++) {
			const tw_schema_field *sf = &e->fields[j];
			if (strcmp(sf->name, f->name) != 0 || !sf->ctype)
				continue;
			const char *t = sf->ctype, *end = t + sf->ctype_len;
			while (t < end && (*t == ' ' || *t == '\t'))
				t++;
			if (end - t > 6 && !memcmp(t, "const ", 6))
				t += 6;
			const char *star = memchr(t, '*', (size_t)(end - t));
			if (end - t < 8 || memcmp(t, "struct ", 7) != 0 ||
			    !star ||
			    memchr(star + 1, '*', (size_t)(end - star - 1)))
				break;
			const char *nm = t + 7, *ne = nm;
			while (ne < star && *ne != ' ' && *ne != '\t')
				ne++;
			f->btf = tw_btf_struct(c, f, nm, (size_t)(ne - nm));
			f->mem = TW_MEM_PTR;
			f->user = strcmp(e->system, "syscalls") == 0;
			return;
		}
	}
	ERR(c, f, TRAWL_ETYPE,
	    "args.%s is not a pointer to a struct: cast it, "
	    "((struct NAME *)args.%s)->member",
	    f->name, f->name);
}

static void member(tw_compiler *c, tw_node *n)
{
	tw_node *a = n->a;
	kernel_only(c, n,
		    n->op == TK_ARROW ? "'->' reads memory through a pointer"
				      : "'.' of a struct reads memory");
	if (n->op == TK_ARROW && a->kind == N_FIELD && a->mem == TW_MEM_NONE)
		field_pointer(c, a);
	if (n->op == TK_ARROW && (a->mem != TW_MEM_PTR || !a->btf))
		ERR(c, n, TRAWL_ETYPE,
		    "'->%s' needs a pointer to a struct: cast it first "
		    "((struct NAME *)...)",
		    n->name);
	if (n->op == TK_DOT && a->mem != TW_MEM_STRUCT)
		ERR(c, n, TRAWL_ETYPE,
		    "'.%s' needs a struct: a pointer's member is '->%s'",
		    n->name, n->name);
	tw_btf_find(c, n, a->btf, n->name, &n->m);
	n->user = a->user;
	n->mem = TW_MEM_NONE;
	n->btf = 0;
	n->width = n->m.kind == TW_BTF_INT ? (int)n->m.size : 0;
	switch (n->m.kind) {
	case TW_BTF_INT:
		n->type = TY_INT;
		break;
	case TW_BTF_PTR:
		n->type = TY_INT; /* the address */
		if (n->m.target) {
			n->mem = TW_MEM_PTR;
			n->btf = n->m.target;
		}
		break;
	case TW_BTF_STRUCT:
		n->type = TY_VOID; /* only its members are values */
		n->mem = TW_MEM_STRUCT;
		n->btf = n->m.target;
		break;
	case TW_BTF_CHARS:
		n->type = TY_STR;
		break;
	}
}

/* ---- expressions ---- */

static void want(tw_compiler *c, tw_node *n, int type, const char *what)
{
	if (n->type == type || (n->type == TY_VOID && c->pass == 1))
		return;
	ERR(c, n, TRAWL_ETYPE, "%s needs a%s %s, not a%s %s", what,
	    type == TY_INT ? "n" : "", type_name(type),
	    n->type == TY_INT ? "n" : "", type_name(n->type));
}

static void expr(tw_compiler *c, tw_node *n);

/* The user pointer a syscall's char * argument holds, in a field or in
 * a map it was stored in. */
static int user_ptr(tw_compiler *c, const tw_node *n)
{
	if (n->kind == N_FIELD)
		return n->ival == 1;
	if (n->kind == N_MAPGET)
		return c->maps[n->slot].user_ptr;
	/* a uprobe's function's arguments and return value: maybe
	 * pointers into the task's memory, which str() reads */
	if (n->kind == N_CTX && n->op >= CX_ARG0 && n->op <= CX_RETVAL)
		return 1;
	return 0;
}

/* n checked where a user pointer may stand (ok), or not. */
static void pointer_expr(tw_compiler *c, tw_node *n, int ok)
{
	int before = c->uptr_ok;
	c->uptr_ok = ok;
	expr(c, n);
	c->uptr_ok = before;
}

/* str(s): a string is itself (the ftrace back end's strings are copied
 * into the event already); bpftrace's str(ptr) reads memory at the probe,
 * which only a probe in the kernel can. */
static void str_call(tw_compiler *c, tw_node *n)
{
	if (n->nkids < 1 || n->nkids > 2)
		ERR(c, n, TRAWL_EPARSE,
		    "str() takes a string and an optional "
		    "length");
	tw_node *a = n->kids[0];
	pointer_expr(c, a, 1);
	if (user_ptr(c, a) && c->kernel && n->nkids == 1) {
		/* read where the probe runs, which must be the kernel
		 * (bpf-gen.c says so if it cannot be) */
		in_kernel(c, n, NULL);
		n->ival = 1;
		n->type = TY_STR;
		return;
	}
	if (user_ptr(c, a))
		ERR(c, n, TRAWL_ETYPE,
		    "str(): %s is a pointer into the task's memory, which a "
		    "trace does not hold (a syscall event has the pointer, "
		    "not the string); it is read in a live run with the BPF "
		    "back end (--live, --backend auto or bpf)%s",
		    a->kind == N_FIELD ? "the argument" : "the value",
		    n->nkids > 1 ? ", without a length" : "");
	if (a->type == TY_INT)
		ERR(c, n, TRAWL_ETYPE,
		    "str(): the value is a number, not a syscall's char * "
		    "argument (args.NAME, or a map holding one), whose string "
		    "a live run with the BPF back end reads");
	if (n->nkids == 2) {
		expr(c, n->kids[1]);
		want(c, n->kids[1], TY_INT, "str()'s length");
		ERR(c, n->kids[1], TRAWL_EPARSE,
		    "str(s, n): a length is for reading memory, which the "
		    "ftrace back end does not; cut a string with "
		    "printf(\"%%.Ns\")");
	}
	if (a->type == TY_STR) {
		tw_node keep = *a;
		*n = keep; /* str() of a string is that string */
		return;
	}
	n->type = TY_STR; /* pass 1: a map whose kind comes later */
}

static void expr(tw_compiler *c, tw_node *n)
{
	tw_probe *pr = &c->probes[c->cur_probe];
	switch (n->kind) {
	case N_INT:
		n->type = TY_INT;
		return;
	case N_STR:
		n->type = TY_STR;
		return;
	case N_CTX:
		/* a perf event's probe runs in the task it interrupted (or
		 * that caused it): its context, but no event */
		if ((!pr->has_event && !pr->perf && n->op != CX_TS &&
		     n->op != CX_USECS && n->op != CX_ELAPSED &&
		     n->op != CX_PROBE) ||
		    (pr->perf && n->op == CX_EVENT))
			ERR(c, n, TRAWL_EPARSE, "'%s' is only known in %s",
			    n->name,
			    pr->perf ? "event probes: a profile or software "
				       "probe has no event"
				     : "event probes (and the task's context "
				       "in profile and software probes)");
		if ((n->op >= CX_ARG0 && n->op <= CX_FUNC) &&
		    (!pr->uprobe || (n->op == CX_RETVAL && pr->uprobe != 2)))
			ERR(c, n, TRAWL_EPARSE,
			    "'%s' is %s: only %s probes have it", n->name,
			    n->op == CX_RETVAL ? "a function's return value"
			    : n->op == CX_FUNC ? "the probed function's name"
					       : "a function's argument",
			    n->op == CX_RETVAL ? "uretprobe"
					       : "uprobe and "
						 "uretprobe");
		if (n->op >= CX_ARG0 && n->op <= CX_RETVAL) {
			n->type = TY_INT;
			return;
		}
		if (n->op == CX_FUNC) {
			n->type = TY_STR;
			return;
		}
		if (n->op == CX_KSTACK) {
			n->type = TW_STACK_TYPE((int)(n->ival & 0xff),
						(int)(n->ival >> 8));
			pr->kstack = 1;
			return;
		}
		if (n->op == CX_CURTASK) {
			kernel_only(c, n,
				    "'curtask' is the task's kernel struct");
			n->btf = tw_btf_struct(c, n, "task_struct", 11);
			n->mem = TW_MEM_PTR;
			n->type = TY_INT;
			return;
		}
		if (n->op == CX_UID || n->op == CX_GID || n->op == CX_CGROUP ||
		    n->op == CX_USERNAME) {
			/* the task's credentials and cgroup: no event
			 * carries them */
			static const char *const what[] = {
				[CX_UID] = "user id",
				[CX_GID] = "group id",
				[CX_CGROUP] = "cgroup (v2) id",
				[CX_USERNAME] = "user's name",
			};
			if (!c->kernel)
				ERR(c, n, TRAWL_ETYPE,
				    "'%s' is the task's %s at the probe, "
				    "which no event the ftrace back end "
				    "records carries: it is read in a live "
				    "run with the BPF back end (--live, "
				    "--backend auto or bpf)",
				    n->name, what[n->op]);
			in_kernel(c, n, n->name);
			n->type = n->op == CX_USERNAME ? TY_STR : TY_INT;
			return;
		}
		n->type = (n->op == CX_COMM || n->op == CX_EVENT ||
			   n->op == CX_PROBE)
				  ? TY_STR
				  : TY_INT;
		return;
	case N_FIELD:
		n->slot = field_slot(c, pr, n);
		n->width = field_width(c, pr, n);
		/* an array field (TY_VOID in the table) is read by element */
		if (n->a) {
			if (n->type != TY_VOID)
				ERR(c, n, TRAWL_ETYPE,
				    "args.%s is not an array: it takes no "
				    "index",
				    n->name);
			expr(c, n->a);
			want(c, n->a, TY_INT, "an array index");
			n->type = TY_INT;
		} else if (n->type == TY_VOID) {
			ERR(c, n, TRAWL_ETYPE,
			    "args.%s is an array: read an element (args.%s[0])",
			    n->name, n->name);
		}
		return;
	case N_VAR: {
		struct tw_var *v = var_of(c, n);
		if (!v)
			ERR(c, n, TRAWL_EPARSE,
			    "$%s is used before it is assigned", n->name);
		n->slot = v->slot;
		n->type = v->type;
		n->mem = v->mem;
		n->btf = v->btf;
		n->user = v->user;
		n->width = v->width;
		return;
	}
	case N_ENUMC: {
		int64_t v;
		if (!c->kernel)
			ERR(c, n, TRAWL_ENOENT,
			    "unknown name '%s': not among the constants trawl "
			    "knows; a kernel enum's value is read from the "
			    "kernel's types (BTF) in a live run with the BPF "
			    "back end (--live, --backend auto or bpf)",
			    n->name);
		if (!tw_btf_enum(c, n, n->name, &v))
			ERR(c, n, TRAWL_ENOENT,
			    "unknown name '%s': not among the constants trawl "
			    "knows nor the kernel's enums (BTF)",
			    n->name);
		n->kind = N_INT;
		n->ival = v;
		n->type = TY_INT;
		return;
	}
	case N_PCAST:
		expr(c, n->a);
		want(c, n->a, TY_INT, "a cast to a struct pointer");
		kernel_only(c, n,
			    "a cast to a struct reads kernel memory through "
			    "its pointer");
		n->btf = tw_btf_struct(c, n, n->name, n->len);
		n->mem = TW_MEM_PTR;
		/* a syscall's pointer argument points into the task */
		n->user = n->a->user ||
			  (n->a->kind == N_FIELD && pr->nevents &&
			   strcmp(c->schema.events[pr->events[0]].system,
				  "syscalls") == 0);
		n->type = TY_INT;
		return;
	case N_MEMBER:
		expr(c, n->a);
		member(c, n);
		return;
	case N_MAPGET: {
		tw_map_decl *d = map_of(c, n);
		check_keys(c, n, d);
		switch (d->kind) {
		case MV_NONE:
			if (c->pass == 2)
				ERR(c, n, TRAWL_EPARSE,
				    "@%s is read but never assigned", d->name);
			c->deferred = 1;
			n->type = TY_VOID;
			return;
		case MV_STR:
			n->type = TY_STR;
			return;
		case MV_STATS:
		case MV_HIST:
		case MV_LHIST:
			ERR(c, n, TRAWL_ETYPE,
			    "@%s holds %s values, which only print() shows",
			    d->name, kind_name(d->kind));
		case MV_INT:
			n->type = d->vtype ? d->vtype : TY_INT;
			return;
		default:
			n->type = TY_INT;
			return;
		}
	}
	case N_UNARY:
		expr(c, n->a);
		want(c, n->a, TY_INT,
		     n->op == TK_MINUS	? "'-'"
		     : n->op == TK_BANG ? "'!'"
		     : n->op == TK_STAR ? "'*' (an address)"
					: "'~'");
		if (n->op == TK_STAR)
			kernel_only(c, n,
				    "'*' reads the 8 bytes of kernel memory "
				    "at an address");
		n->type = TY_INT;
		return;
	case N_AND:
	case N_OR:
		expr(c, n->a);
		expr(c, n->b);
		want(c, n->a, TY_INT, tw_tok_name(n->op));
		want(c, n->b, TY_INT, tw_tok_name(n->op));
		n->type = TY_INT;
		return;
	case N_BINARY: {
		expr(c, n->a);
		expr(c, n->b);
		int cmp = n->op == TK_EQ || n->op == TK_NE || n->op == TK_LT ||
			  n->op == TK_LE || n->op == TK_GT || n->op == TK_GE;
		n->type = TY_INT;
		if (cmp && (n->a->type == TY_STR || n->b->type == TY_STR)) {
			want(c, n->b,
			     n->a->type == TY_VOID ? n->b->type : n->a->type,
			     "a comparison with a string");
			want(c, n->a,
			     n->b->type == TY_VOID ? n->a->type : n->b->type,
			     "a comparison with a string");
			return;
		}
		want(c, n->a, TY_INT, tw_tok_name(n->op));
		want(c, n->b, TY_INT, tw_tok_name(n->op));
		return;
	}
	case N_COND:
		expr(c, n->a);
		expr(c, n->b);
		expr(c, n->c);
		want(c, n->a, TY_INT, "the condition of '?:'");
		if (n->b->type != TY_VOID && n->c->type != TY_VOID &&
		    n->b->type != n->c->type)
			ERR(c, n, TRAWL_ETYPE,
			    "the two sides of '?:' are a %s and a %s",
			    type_name(n->b->type), type_name(n->c->type));
		n->type = n->b->type != TY_VOID ? n->b->type : n->c->type;
		return;
	case N_CALL: {
		static const int nargs[] = {[CALL_STRLEN] = 1,
					    [CALL_STRNCMP] = 3,
					    [CALL_STRCONTAINS] = 2,
					    [CALL_STR] = 1,
					    [CALL_KSYM] = 1};
		if (n->op == CALL_STR) {
			str_call(c, n);
			return;
		}
		if (n->op == CALL_KADDR) {
			kaddr_call(c, n);
			return;
		}
		if (n->op == CALL_STRFTIME) {
			/* strftime("fmt", ns): the format a literal, as
			 * bpftrace's */
			if (n->nkids != 2 || n->kids[0]->kind != N_STR)
				ERR(c, n, TRAWL_EPARSE,
				    "strftime() takes a format, a string "
				    "literal, and a time in ns "
				    "(strftime(\"%%H:%%M:%%S\", nsecs))");
			expr(c, n->kids[0]);
			expr(c, n->kids[1]);
			want(c, n->kids[1], TY_INT, "strftime()'s time");
			n->type = TY_STR;
			return;
		}
		if (n->op == CALL_KSYM || n->op == CALL_BSWAP) {
			if (n->nkids != 1)
				ERR(c, n, TRAWL_EPARSE, "%s() takes 1 argument",
				    n->name);
			expr(c, n->kids[0]);
			want(c, n->kids[0], TY_INT, n->name);
			n->type = n->op == CALL_KSYM ? TY_STR : TY_INT;
			n->width = n->kids[0]->width;
			return;
		}
		if (n->op == CALL_NTOP) {
			/* ntop(addr) or ntop(af, addr): an int is IPv4 (its
			 * bytes in memory order, as a __be32 holds them), a
			 * char array of 4 or 16 bytes IPv4 or IPv6 */
			if (n->nkids != 1 && n->nkids != 2)
				ERR(c, n, TRAWL_EPARSE,
				    "ntop() takes an address, or a family and "
				    "an address");
			for (size_t i = 0; i < n->nkids; i++)
				expr(c, n->kids[i]);
			if (n->nkids == 2)
				want(c, n->kids[0], TY_INT, "ntop()'s family");
			tw_node *a = n->kids[n->nkids - 1];
			if (a->type == TY_STR &&
			    !(a->kind == N_MEMBER &&
			      a->m.kind == TW_BTF_CHARS &&
			      (a->m.size == 4 || a->m.size == 16)))
				ERR(c, a, TRAWL_ETYPE,
				    "ntop() of a string: only a struct's array "
				    "of 4 or 16 bytes (an address) is one");
			if (a->type != TY_STR)
				want(c, a, TY_INT, "ntop()'s address");
			n->type = TY_STR;
			return;
		}
		if (n->nkids != (size_t)nargs[n->op])
			ERR(c, n, TRAWL_EPARSE, "%s() takes %d argument%s",
			    n->name, nargs[n->op], nargs[n->op] > 1 ? "s" : "");
		for (size_t i = 0; i < n->nkids; i++) {
			expr(c, n->kids[i]);
			want(c, n->kids[i], i == 2 ? TY_INT : TY_STR, n->name);
		}
		n->type = TY_INT;
		return;
	}
	default:
		ERR(c, n, TRAWL_EPARSE, "not an expression");
	}
}

/* ---- printf ---- */

static void compile_fmt(tw_compiler *c, tw_node *n)
{
	tw_node *f = n->kids[0];
	const char *s = f->name;
	size_t len = f->len, cap = 0, lit = 0;
	tw_fmt fm = {0};
	fm.text = s;
	tw_fmt_conv *cv = NULL;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '%')
			continue;
		if (i + 1 < len && s[i + 1] == '%') {
			/* "%%": the literal up to and with one '%' */
			tw_sc_grow(c, (void **)&cv, &cap, fm.nconvs + 1,
				   sizeof(*cv));
			tw_fmt_conv *x = &cv[fm.nconvs++];
			memset(x, 0, sizeof(*x));
			x->lit_off = lit;
			x->lit_len = i + 1 - lit;
			x->type = TY_VOID;
			x->prec = -1;
			lit = i + 2;
			i++;
			continue;
		}
		tw_sc_grow(c, (void **)&cv, &cap, fm.nconvs + 1, sizeof(*cv));
		tw_fmt_conv *x = &cv[fm.nconvs++];
		memset(x, 0, sizeof(*x));
		x->lit_off = lit;
		x->lit_len = i - lit;
		x->prec = -1;
		if (i == len) {
			x->type = TY_VOID;
			break;
		}
		size_t j = i + 1, o = 0;
		char spec[32];
		spec[o++] = '%';
		while (j < len && strchr("-+ #0", s[j]) && o < 6) {
			x->left |= s[j] == '-';
			spec[o++] = s[j++];
		}
		/* the width: a number (cut to TW_SC_FMT_WIDTH_MAX) or '*' */
		int width = -1;
		if (j < len && s[j] == '*') {
			x->star = 1;
			spec[o++] = '*';
			j++;
		} else {
			while (j < len && s[j] >= '0' && s[j] <= '9') {
				width = (width < 0 ? 0 : width) * 10 +
					(s[j] - '0');
				if (width > TW_SC_FMT_WIDTH_MAX)
					width = TW_SC_FMT_WIDTH_MAX;
				j++;
			}
			if (width >= 0)
				o += (size_t)snprintf(spec + o, 8, "%d", width);
		}
		x->width = width < 0 ? 0 : width;
		int prec = -1;
		if (j < len && s[j] == '.') {
			j++;
			prec = 0;
			while (j < len && s[j] >= '0' && s[j] <= '9') {
				if (prec < TW_SC_FMT_WIDTH_MAX)
					prec = prec * 10 + (s[j] - '0');
				j++;
			}
			if (prec > TW_SC_FMT_WIDTH_MAX)
				prec = TW_SC_FMT_WIDTH_MAX;
		}
		int longer = 0;
		while (j < len && strchr("hlzjtL", s[j]))
			longer |= s[j++] != 'h';
		if (j >= len || !strchr("diuxXocspr", s[j]))
			ERR(c, f, TRAWL_EPARSE,
			    "printf: unknown conversion at byte %zu of the "
			    "format (%%d %%u %%x %%o %%c %%s %%p %%r)",
			    i + 1);
		char conv = s[j];
		x->conv = conv;
		if (conv == 's' || conv == 'r') {
			/* %r: the string with bytes that do not print as
			 * \xNN (bpftrace's buffers) */
			memcpy(spec + o, ".*s", 4);
			x->prec = prec;
			x->type = TY_STR;
		} else {
			if (prec >= 0)
				o += (size_t)snprintf(spec + o, 8, ".%d", prec);
			if (conv == 'c') {
				spec[o++] = 'c';
			} else if (conv == 'p') {
				/* libc's %p, as bpftrace prints it: 0x...,
				 * and (nil) for 0 */
				memmove(spec + 2, spec + 1, o - 1);
				spec[1] = '#';
				o++;
				memcpy(spec + o, "llx", 3);
				o += 3;
			} else {
				spec[o++] = 'l';
				spec[o++] = 'l';
				spec[o++] = conv == 'i' ? 'd' : conv;
				x->u32 = !longer && conv != 'd' && conv != 'i';
			}
			spec[o] = '\0';
			x->type = TY_INT;
		}
		memcpy(x->spec, spec, sizeof(spec));
		fm.nargs += 1 + (size_t)x->star;
		lit = j + 1;
		i = j;
	}
	fm.convs = cv;
	if (fm.nargs != n->nkids - 1)
		ERR(c, n, TRAWL_EPARSE,
		    "printf: the format has %zu conversions but %zu "
		    "argument%s follow",
		    fm.nargs, n->nkids - 1, n->nkids == 2 ? "" : "s");
	size_t a = 1;
	for (size_t k = 0; k < fm.nconvs; k++) {
		if (cv[k].type == TY_VOID)
			continue;
		if (cv[k].star) {
			tw_node *w = n->kids[a++];
			if (w->type == TY_STR)
				ERR(c, w, TRAWL_ETYPE,
				    "printf: argument %zu is the width of a "
				    "'*' conversion: an integer, not a string",
				    a - 1);
		}
		tw_node *arg = n->kids[a++];
		if (tw_is_stack(arg->type) && cv[k].type == TY_STR) {
			/* printed as bpftrace prints a stack */
			cv[k].stack = arg->type;
			continue;
		}
		if (arg->type != cv[k].type &&
		    !(arg->type == TY_VOID && c->pass == 1))
			ERR(c, arg, TRAWL_ETYPE,
			    "printf: argument %zu is a%s %s but its "
			    "conversion %s wants a%s %s",
			    a - 1, arg->type == TY_INT ? "n" : "",
			    type_name(arg->type),
			    cv[k].type == TY_STR ? "%s" : "%d",
			    cv[k].type == TY_INT ? "n" : "",
			    type_name(cv[k].type));
	}
	if (c->pass == 2) {
		tw_sc_grow(c, (void **)&c->fmts, &c->fmts_cap, c->nfmts + 1,
			   sizeof(*c->fmts));
		c->fmts[c->nfmts] = fm;
		n->slot = (int)c->nfmts++;
	}
}

/* print(value): bpftrace prints a value that is not a map on a line of
 * its own; here it is printf("%d\n") or printf("%s\n") of it. */
static void print_value(tw_compiler *c, tw_node *n)
{
	tw_node *v = n->kids[0];
	expr(c, v);
	if (v->type == TY_VOID && c->pass == 1)
		return;
	if (v->kind == N_MAPGET && c->maps[v->slot].kind >= MV_STATS)
		ERR(c, v, TRAWL_ETYPE,
		    "print(@%s[...]): print a histogram or stats map whole "
		    "(print(@%s))",
		    c->maps[v->slot].name, c->maps[v->slot].name);
	tw_node *f = tw_sc_alloc(c, sizeof(*f));
	*f = *v;
	f->kind = N_STR;
	f->type = TY_STR;
	f->name = v->type == TY_STR || tw_is_stack(v->type) ? "%s\n" : "%d\n";
	f->len = 3;
	f->a = f->b = f->c = NULL;
	f->kids = NULL;
	f->nkids = 0;
	tw_node **kids = tw_sc_alloc(c, 2 * sizeof(*kids));
	kids[0] = f;
	kids[1] = v;
	n->kind = N_PRINTF;
	n->kids = kids;
	n->nkids = 2;
	compile_fmt(c, n);
}

/* ---- statements ---- */

static tw_map_decl *whole_map(tw_compiler *c, tw_node *call, size_t i,
			      const char *fn)
{
	if (call->nkids <= i || call->kids[i]->kind != N_MAPGET ||
	    call->kids[i]->nkids)
		ERR(c, call, TRAWL_EPARSE, "%s() takes a map (@name)", fn);
	return map_of(c, call->kids[i]);
}

static int64_t const_int(tw_compiler *c, tw_node *n, const char *what)
{
	if (n->kind == N_INT)
		return n->ival;
	if (n->kind == N_UNARY && n->op == TK_MINUS && n->a->kind == N_INT)
		return (int64_t)(0 - (uint64_t)n->a->ival);
	ERR(c, n, TRAWL_EPARSE, "%s must be a number", what);
}

static void agg(tw_compiler *c, tw_node *n)
{
	tw_map_decl *d = map_of(c, n->a);
	check_keys(c, n->a, d);
	int want_args = n->op == MV_COUNT ? 0 : n->op == MV_LHIST ? 4 : 1;
	if (n->nkids != (size_t)want_args)
		ERR(c, n, TRAWL_EPARSE, "%s takes %d argument%s",
		    kind_name(n->op), want_args, want_args == 1 ? "" : "s");
	if (want_args) {
		expr(c, n->kids[0]);
		want(c, n->kids[0], TY_INT, kind_name(n->op));
	}
	if (n->op == MV_LHIST) {
		int64_t lo = const_int(c, n->kids[1], "lhist()'s min");
		int64_t hi = const_int(c, n->kids[2], "lhist()'s max");
		int64_t st = const_int(c, n->kids[3], "lhist()'s step");
		if (st <= 0 || hi <= lo ||
		    ((__int128)hi - lo) / st > TW_SC_LHIST_MAX)
			ERR(c, n, TRAWL_EPARSE,
			    "lhist(v, min, max, step) needs min < max, step "
			    "> 0 and at most %d buckets",
			    TW_SC_LHIST_MAX);
		if (d->kind == MV_LHIST &&
		    (d->lh_min != lo || d->lh_max != hi || d->lh_step != st))
			ERR(c, n, TRAWL_ETYPE,
			    "@%s: every lhist() of a map has the same min, "
			    "max and step",
			    d->name);
		d->lh_min = lo;
		d->lh_max = hi;
		d->lh_step = st;
	}
	set_kind(c, n, d, n->op);
}

static void stmt(tw_compiler *c, tw_node *n)
{
	switch (n->kind) {
	case N_BLOCK:
		for (size_t i = 0; i < n->nkids; i++)
			stmt(c, n->kids[i]);
		return;
	case N_EXPRSTMT:
		expr(c, n->a);
		return;
	case N_SETVAR: {
		expr(c, n->b);
		struct tw_var *v = var_of(c, n->a);
		if (n->op != TK_ASSIGN) {
			if (!v)
				ERR(c, n->a, TRAWL_EPARSE,
				    "$%s is used before it is assigned",
				    n->a->name);
			want(c, n->b, TY_INT, tw_tok_name(n->op));
			if (v->type == TY_STR)
				ERR(c, n, TRAWL_ETYPE,
				    "$%s is a string: '%s' needs an integer",
				    n->a->name, tw_tok_name(n->op));
		} else if (!v) {
			v = new_var(c, n->a, n->b->type);
		} else if (v->type == TY_VOID) {
			v->type = n->b->type;
		} else if (n->b->type != TY_VOID && v->type != n->b->type) {
			ERR(c, n, TRAWL_ETYPE, "$%s is a%s %s, not a%s %s",
			    n->a->name, v->type == TY_INT ? "n" : "",
			    type_name(v->type), n->b->type == TY_INT ? "n" : "",
			    type_name(n->b->type));
		}
		if (n->op == TK_ASSIGN) {
			/* what it points to, when it holds a struct pointer;
			 * its type's size */
			v->mem = n->b->mem == TW_MEM_PTR ? TW_MEM_PTR : 0;
			v->btf = v->mem ? n->b->btf : 0;
			v->user = v->mem ? n->b->user : 0;
			v->width = n->b->width;
		} else {
			v->width = 0;
		}
		n->a->slot = v->slot;
		n->a->type = v->type;
		n->type = TY_VOID;
		return;
	}
	case N_SETMAP: {
		tw_map_decl *d = map_of(c, n->a);
		check_keys(c, n->a, d);
		/* a syscall's char * argument kept for a str() in a later
		 * probe (opensnoop's @filename[tid] = args.filename) */
		pointer_expr(c, n->b,
			     c->kernel && n->op == TK_ASSIGN &&
				     n->b->kind == N_FIELD);
		if (n->op != TK_ASSIGN) {
			want(c, n->b, TY_INT, tw_tok_name(n->op));
			set_kind(c, n, d, MV_INT);
			value_type(c, n, d, TY_INT);
		} else if (n->b->type != TY_VOID) {
			set_kind(c, n, d,
				 n->b->type == TY_STR ? MV_STR : MV_INT);
			if (d->kind == MV_INT)
				value_type(c, n, d, n->b->type);
			if (user_ptr(c, n->b))
				d->user_ptr = 1;
		}
		n->a->type = n->b->type;
		return;
	}
	case N_AGG:
		agg(c, n);
		return;
	case N_DELETE: {
		if (n->nkids != 1 || n->kids[0]->kind != N_MAPGET)
			ERR(c, n, TRAWL_EPARSE, "delete() takes @map[key]");
		tw_map_decl *d = map_of(c, n->kids[0]);
		check_keys(c, n->kids[0], d);
		return;
	}
	case N_CLEAR:
	case N_ZERO: {
		const char *fn = n->kind == N_CLEAR ? "clear" : "zero";
		if (n->nkids != 1)
			ERR(c, n, TRAWL_EPARSE, "%s() takes a map (@name)", fn);
		whole_map(c, n, 0, fn);
		return;
	}
	case N_PRINTMAP:
		if (n->nkids == 1 &&
		    !(n->kids[0]->kind == N_MAPGET && !n->kids[0]->nkids)) {
			print_value(c, n);
			return;
		}
		if (n->nkids < 1 || n->nkids > 2)
			ERR(c, n, TRAWL_EPARSE,
			    "print() takes a map and an optional count "
			    "(print(@m), print(@m, 10))");
		whole_map(c, n, 0, "print");
		if (n->nkids == 2) {
			expr(c, n->kids[1]);
			want(c, n->kids[1], TY_INT, "print()'s count");
		}
		return;
	case N_PRINTF:
		if (n->nkids < 1 || n->kids[0]->kind != N_STR)
			ERR(c, n, TRAWL_EPARSE,
			    "printf() takes a format string first");
		if (n->nkids - 1 > TW_SC_MAX_ARGS)
			ERR(c, n, TRAWL_EPARSE,
			    "printf() takes at most %d arguments",
			    TW_SC_MAX_ARGS);
		for (size_t i = 1; i < n->nkids; i++)
			expr(c, n->kids[i]);
		compile_fmt(c, n);
		return;
	case N_TIME:
		if (n->nkids > 1 || (n->nkids && n->kids[0]->kind != N_STR))
			ERR(c, n, TRAWL_EPARSE,
			    "time() takes a strftime format string "
			    "(time(\"%%H:%%M:%%S \"))");
		if (n->nkids &&
		    (n->kids[0]->len > 200 ||
		     memchr(n->kids[0]->name, '\0', n->kids[0]->len)))
			ERR(c, n, TRAWL_ELIMIT,
			    "time(): the format is longer than 200 bytes or "
			    "holds a NUL");
		return;
	case N_JOIN: {
		if (n->nkids < 1 || n->nkids > 2 ||
		    (n->nkids == 2 && n->kids[1]->kind != N_STR))
			ERR(c, n, TRAWL_EPARSE,
			    "join() takes an array of strings and an optional "
			    "delimiter (a string literal)");
		tw_node *a = n->kids[0];
		pointer_expr(c, a, 1);
		if (a->kind != N_FIELD || a->ival != 2)
			ERR(c, a, TRAWL_ETYPE,
			    "join() reads a syscall's array of strings "
			    "(args.argv of sys_enter_execve)");
		if (!c->kernel)
			ERR(c, n, TRAWL_ETYPE,
			    "join() reads an array of strings from the task's "
			    "memory, which a trace does not hold (a syscall "
			    "event has the pointer): it is read in a live run "
			    "with the BPF back end (--live, --backend auto or "
			    "bpf)");
		in_kernel(c, n, NULL);
		n->type = TY_VOID;
		return;
	}
	case N_EXIT:
		if (n->nkids)
			ERR(c, n, TRAWL_EPARSE, "exit() takes no arguments");
		return;
	case N_IF:
		expr(c, n->a);
		want(c, n->a, TY_INT, "if");
		stmt(c, n->b);
		if (n->c)
			stmt(c, n->c);
		return;
	case N_WHILE:
		expr(c, n->a);
		want(c, n->a, TY_INT, "while");
		c->loop_depth++;
		stmt(c, n->b);
		c->loop_depth--;
		return;
	case N_BREAK:
	case N_CONTINUE:
		if (!c->loop_depth)
			ERR(c, n, TRAWL_EPARSE, "%s outside a loop",
			    n->kind == N_BREAK ? "break" : "continue");
		return;
	default:
		ERR(c, n, TRAWL_EPARSE, "not a statement");
	}
}

static int check_pass(tw_compiler *c, int pass)
{
	c->pass = pass;
	c->deferred = 0;
	c->nfmts = 0;
	int maxslots = 0;
	for (size_t i = 0; i < c->nprobes; i++) {
		tw_probe *pr = &c->probes[i];
		c->cur_probe = i;
		c->nvars = 0;
		c->nslots = 0;
		pr->nfields = 0;
		if (pr->pred) {
			expr(c, pr->pred);
			want(c, pr->pred, TY_INT, "a predicate");
		}
		stmt(c, pr->body);
		pr->nslots = c->nslots;
		if (c->nslots > maxslots)
			maxslots = c->nslots;
	}
	return maxslots;
}

void tw_check_program(tw_compiler *c)
{
	if (tw_schema_load(c))
		tw_sc_oom(c);
	for (size_t i = 0; i < c->nprobes; i++)
		resolve_probe(c, &c->probes[i]);
	check_pass(c, 1);
	int slots = check_pass(c, 2);
	c->nslots = slots;
	for (size_t i = 0; i < c->nmaps; i++) {
		tw_map_decl *d = &c->maps[i];
		if (d->kind == MV_NONE)
			tw_sc_error(c, TRAWL_EPARSE, d->line, d->col,
				    "@%s is never assigned", d->name);
		if (d->nkeys < 0)
			d->nkeys = 0;
	}
}
