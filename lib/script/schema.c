/* SPDX-License-Identifier: MIT */
/*
 * What a script may name: the events of the formats the trace's events are
 * read by (tw_trace_format_at(): a trace.dat's own, else --formats and the
 * bundled table), and each event's fields from its format's "field:" lines,
 * parsed only for the events a probe matches. The print event also has the
 * systrace marker fields lib/core adds (kind, pid, name, value, cookie).
 */
#include "script-int.h"

static uint64_t name_hash(const char *name, size_t nl, const char *sys)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < nl; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
	for (; *sys; sys++)
		h = (h ^ (unsigned char)*sys) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

/* Whether the events so far have this name and system; if not, it is
 * noted as event sc->nevents. The set holds event indices + 1 (open
 * addressing, at most half full), so that the 2323 bundled formats are
 * not compared each with all before it. */
static int seen(tw_compiler *c, size_t **set, size_t *cap, const char *name,
		size_t nl, const char *sys)
{
	tw_schema *sc = &c->schema;
	if ((sc->nevents + 1) * 2 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		size_t *ns = tw_sc_alloc(c, ncap * sizeof(*ns));
		for (size_t j = 0; j < sc->nevents; j++) {
			const tw_schema_event *e = &sc->events[j];
			size_t k =
				name_hash(e->name, strlen(e->name), e->system) &
				(ncap - 1);
			while (ns[k])
				k = (k + 1) & (ncap - 1);
			ns[k] = j + 1;
		}
		*set = ns; /* the old one stays in the arena until the end */
		*cap = ncap;
	}
	size_t k = name_hash(name, nl, sys) & (*cap - 1);
	for (; (*set)[k]; k = (k + 1) & (*cap - 1)) {
		const tw_schema_event *e = &sc->events[(*set)[k] - 1];
		if (strncmp(e->name, name, nl) == 0 && e->name[nl] == '\0' &&
		    strcmp(e->system, sys) == 0)
			return 1;
	}
	(*set)[k] = sc->nevents + 1;
	return 0;
}

int tw_schema_load(tw_compiler *c)
{
	tw_schema *sc = &c->schema;
	size_t cap = 0, set_cap = 0;
	size_t *set = NULL;
	tw_format_ref f;
	size_t n = 0;
	while (tw_trace_format_at(c->t, n, &f))
		n++;
	/* the arena keeps what it gives: one array of the right size, not
	 * a doubling's trail (a live kernel names thousands of events) */
	tw_sc_grow(c, (void **)&sc->events, &cap, n, sizeof(*sc->events));
	for (size_t i = 0; tw_trace_format_at(c->t, i, &f); i++) {
		if (!f.name || f.name_len == 0)
			continue;
		if (seen(c, &set, &set_cap, f.name, f.name_len, f.system))
			continue; /* the user's formats come first */
		tw_sc_grow(c, (void **)&sc->events, &cap, sc->nevents + 1,
			   sizeof(*sc->events));
		tw_schema_event *e = &sc->events[sc->nevents++];
		memset(e, 0, sizeof(*e));
		e->system = f.system;
		e->name = tw_arena_strndup(&c->arena, f.name, f.name_len);
		if (!e->name)
			tw_sc_oom(c);
		e->format = i;
		e->text = f.text; /* NULL: read when a probe needs it */
		e->text_len = f.len;
	}
	return 0;
}

static int ident_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

static void add_field(tw_compiler *c, tw_schema_event *e, size_t *cap,
		      const char *name, size_t n, int type)
{
	tw_sc_grow(c, (void **)&e->fields, cap, e->nfields + 1,
		   sizeof(*e->fields));
	memset(&e->fields[e->nfields], 0, sizeof(e->fields[0]));
	e->fields[e->nfields].name = tw_arena_strndup(&c->arena, name, n);
	if (!e->fields[e->nfields].name)
		tw_sc_oom(c);
	e->fields[e->nfields++].type = type;
}

/* One "field:TYPE NAME[N];" declaration (up to its ';'). Return: 1 when
 * it was added as the last field. */
static int parse_decl(tw_compiler *c, tw_schema_event *e, size_t *cap,
		      const char *d, size_t n)
{
	const char *br = memchr(d, '[', n);
	const char *nend = d + n;
	while (nend > d && (nend[-1] == ' ' || nend[-1] == '\t'))
		nend--;
	if (nend > d && nend[-1] == ']') {
		/* "char comm[16]": the name is before the last brackets */
		while (nend > d && nend[-1] != '[')
			nend--;
		if (nend > d)
			nend--;
	}
	/* "__data_loc char[] name": the name is the last word */
	const char *nstart = nend;
	while (nstart > d && ident_char(nstart[-1]))
		nstart--;
	size_t nl = (size_t)(nend - nstart);
	if (nl == 0 || (nl > 7 && memcmp(nstart, "common_", 7) == 0))
		return 0;
	int is_char = 0, array = br != NULL,
	    pointer = memchr(d, '*', n) != NULL;
	for (const char *p = d; p + 4 <= nstart; p++)
		if (memcmp(p, "char", 4) == 0 &&
		    (p == d || !ident_char(p[-1])) &&
		    (p + 4 == nstart || !ident_char(p[4])))
			is_char = 1;
	int dloc = n > 10 && (memcmp(d, "__data_loc", 10) == 0 ||
			      memcmp(d, "__rel_loc", 9) == 0);
	int type = TY_INT;
	if (is_char && (array || pointer || dloc))
		type = TY_STR;
	else if (array || dloc)
		type = TY_VOID;
	add_field(c, e, cap, nstart, nl, type);
	/* a syscall's "const char * filename" holds the user pointer, not
	 * the string: only a probe in the kernel (BPF) could read it */
	int stars = 0;
	for (size_t k = 0; k < n; k++)
		stars += d[k] == '*';
	e->fields[e->nfields - 1].user_ptr =
		is_char && pointer && !array && !dloc &&
				strcmp(e->system, "syscalls") == 0
			? (stars > 1 ? 2 : 1)
			: 0;
	e->fields[e->nfields - 1].dloc = !dloc				  ? 0
					 : memcmp(d, "__rel_loc", 9) == 0 ? 2
									  : 1;
	e->fields[e->nfields - 1].array = array;
	e->fields[e->nfields - 1].ctype =
		tw_arena_strndup(&c->arena, d, (size_t)(nstart - d));
	if (!e->fields[e->nfields - 1].ctype)
		tw_sc_oom(c);
	e->fields[e->nfields - 1].ctype_len = (size_t)(nstart - d);
	return 1;
}

/* "offset:8;\tsize:4;\tsigned:1;" after a declaration: into f. */
static void parse_layout(tw_schema_field *f, const char *p, const char *end)
{
	static const char *const keys[] = {"offset:", "size:", "signed:"};
	for (size_t k = 0; k < TW_ARRAY_SIZE(keys); k++) {
		size_t kl = strlen(keys[k]);
		const char *q = p;
		while (q + kl <= end && memcmp(q, keys[k], kl) != 0)
			q++;
		if (q + kl > end)
			return;
		uint64_t v = 0;
		for (q += kl; q < end && *q >= '0' && *q <= '9'; q++)
			v = v * 10 + (uint64_t)(*q - '0');
		if (v > UINT32_MAX)
			return;
		if (k == 0)
			f->offset = (uint32_t)v;
		else if (k == 1)
			f->size = (uint32_t)v;
		else
			f->is_signed = v != 0;
	}
}

tw_schema_event *tw_schema_fields(tw_compiler *c, size_t i)
{
	tw_schema_event *e = &c->schema.events[i];
	if (e->parsed)
		return e;
	e->parsed = 1;
	tw_format_ref f = {.system = e->system, .name = e->name};
	if (!e->text && tw_trace_format_text(c->t, e->format, &f) == 0) {
		e->text = f.text;
		e->text_len = f.len;
	}
	size_t cap = 0;
	const char *p = e->text ? e->text : "", *end = p + e->text_len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *f = p;
		while (f < le && (*f == ' ' || *f == '\t'))
			f++;
		if ((size_t)(le - f) > 6 && memcmp(f, "field:", 6) == 0) {
			f += 6;
			const char *semi = memchr(f, ';', (size_t)(le - f));
			if (semi &&
			    parse_decl(c, e, &cap, f, (size_t)(semi - f)))
				parse_layout(&e->fields[e->nfields - 1], semi,
					     le);
		}
		p = le + 1;
	}
	if (strcmp(e->name, "print") == 0) {
		static const struct {
			const char *n;
			int type;
		} marker[] = {{"kind", TY_STR},
			      {"pid", TY_INT},
			      {"name", TY_STR},
			      {"value", TY_INT},
			      {"cookie", TY_INT}};
		for (size_t k = 0; k < TW_ARRAY_SIZE(marker); k++)
			add_field(c, e, &cap, marker[k].n, strlen(marker[k].n),
				  marker[k].type);
	}
	return e;
}

int tw_glob(const char *pat, const char *s)
{
	/* shell globs: * ? and [set], iteratively with one backtrack point */
	const char *star = NULL, *ss = NULL;
	while (*s) {
		if (*pat == '*') {
			star = pat++;
			ss = s;
			continue;
		}
		if (*pat == '?' || *pat == *s) {
			pat++;
			s++;
			continue;
		}
		if (*pat == '[') {
			const char *q = pat + 1;
			int neg = *q == '!' || *q == '^', hit = 0;
			q += neg;
			while (*q && *q != ']') {
				if (q[1] == '-' && q[2] && q[2] != ']') {
					hit |= *s >= q[0] && *s <= q[2];
					q += 3;
				} else {
					hit |= *q++ == *s;
				}
			}
			if (*q == ']' && hit != neg) {
				pat = q + 1;
				s++;
				continue;
			}
		}
		if (!star)
			return 0;
		pat = star + 1;
		s = ++ss;
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}
