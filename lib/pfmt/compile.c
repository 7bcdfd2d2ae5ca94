/* SPDX-License-Identifier: MIT */
/*
 * The print-format compiler: a format's fields (as libtraceevent parsed
 * them) and its print fmt (the arguments parsed by args.c) become a flat
 * program (pfmt-int.h). The format string is cut into literals and
 * conversions here, by the kernel's vsnprintf rules (a %p takes every
 * letter and digit after it); constants are folded, symbol tables
 * evaluated once, and every field the conversions name is looked up once,
 * so running the program never touches a string.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "pfmt-int.h"

#define MAX_DEPTH 64
#define MAX_NODES 4096
#define MAX_SEGS  512

typedef struct tw_pf_cc cc;
struct tw_pf_cc {
	tw_pfmt *p;
	const struct tep_event *e;
	size_t nodes_cap, segs_cap, syms_cap, pool_cap;
	uint32_t *name_at; /* pool offsets of the field names */
	int oom;
	/* the arguments, when trawl's own parser read them (args.c) */
	int32_t argv[TW_PF_MAX_ARGS];
	size_t argc, argi;
};

static void fail(cc *c, int why, const char *detail)
{
	if (c->p->fallback)
		return;
	c->p->fallback = why;
	snprintf(c->p->detail, sizeof(c->p->detail), "%s",
		 detail ? detail : "");
}

static uint32_t pool_add(cc *c, const char *s, size_t n)
{
	tw_pfmt *p = c->p;
	if (tw_grow(p->mem, (void **)&p->pool, &c->pool_cap,
		    p->pool_len + n + 1, 1)) {
		c->oom = 1;
		return 0;
	}
	uint32_t at = (uint32_t)p->pool_len;
	memcpy(p->pool + at, s, n);
	p->pool[at + n] = '\0';
	p->pool_len += n + 1;
	return at;
}

static int32_t node_add(cc *c, pf_node n)
{
	tw_pfmt *p = c->p;
	if (p->nnodes >= MAX_NODES) {
		fail(c, TW_PF_HELPER, "too many nodes");
		return -1;
	}
	if (tw_grow(p->mem, (void **)&p->nodes, &c->nodes_cap, p->nnodes + 1,
		    sizeof(pf_node))) {
		c->oom = 1;
		return -1;
	}
	p->nodes[p->nnodes] = n;
	return (int32_t)p->nnodes++;
}

/* The size and sign a cast gives: "unsigned int", "u8", "void *", ... */
static uint8_t cast_of(cc *c, const char *type)
{
	if (!type)
		return CAST_NONE;
	if (strchr(type, '*'))
		return (uint8_t)c->p->layout.long_size;
	char t[64];
	size_t n = 0;
	for (const char *s = type; *s && n + 1 < sizeof(t); s++)
		if (!isspace((unsigned char)*s) || (n && t[n - 1] != ' '))
			t[n++] = isspace((unsigned char)*s) ? ' ' : *s;
	while (n && t[n - 1] == ' ')
		n--;
	t[n] = '\0';
	const char *w = t;
	if (strncmp(w, "const ", 6) == 0)
		w += 6;
	int uns = strncmp(w, "unsigned", 8) == 0 || w[0] == 'u';
	int sgn = strncmp(w, "signed", 6) == 0 || w[0] == 's' ||
		  strcmp(w, "int") == 0 || strcmp(w, "long") == 0 ||
		  strcmp(w, "long long") == 0 || strcmp(w, "short") == 0 ||
		  strcmp(w, "char") == 0 || strcmp(w, "long int") == 0;
	static const struct {
		const char *name;
		uint8_t size;
	} known[] = {
		{"u8", 1},
		{"s8", 1},
		{"u16", 2},
		{"s16", 2},
		{"u32", 4},
		{"s32", 4},
		{"u64", 8},
		{"s64", 8},
		{"__u8", 1},
		{"__u16", 2},
		{"__u32", 4},
		{"__u64", 8},
		{"__s8", 1},
		{"__s16", 2},
		{"__s32", 4},
		{"__s64", 8},
		{"char", 1},
		{"signed char", 1},
		{"unsigned char", 1},
		{"short", 2},
		{"unsigned short", 2},
		{"short int", 2},
		{"int", 4},
		{"signed", 4},
		{"unsigned", 4},
		{"signed int", 4},
		{"unsigned int", 4},
		{"long long", 8},
		{"unsigned long long", 8},
		{"long long int", 8},
		{"pid_t", 4},
		{"gfp_t", 4},
	};
	for (size_t i = 0; i < TW_ARRAY_SIZE(known); i++)
		if (strcmp(w, known[i].name) == 0)
			return (uint8_t)(known[i].size |
					 (sgn && !uns && w[0] != 'g'
						  ? CAST_SIGNED
						  : 0));
	if (strcmp(w, "bool") == 0 || strcmp(w, "_Bool") == 0)
		return CAST_BOOL | 1;
	if (strcmp(w, "long") == 0 || strcmp(w, "long int") == 0)
		return (uint8_t)(c->p->layout.long_size | CAST_SIGNED);
	if (strcmp(w, "unsigned long") == 0 || strcmp(w, "size_t") == 0 ||
	    strcmp(w, "unsigned long int") == 0)
		return (uint8_t)c->p->layout.long_size;
	if (strcmp(w, "ssize_t") == 0)
		return (uint8_t)(c->p->layout.long_size | CAST_SIGNED);
	return CAST_NONE; /* a typedef we do not know: leave the value */
}

/* A node that is a constant: its value (for folding). */
static int const_of(cc *c, int32_t i, int64_t *v)
{
	if (i < 0 || c->p->nodes[i].op != N_CONST)
		return 0;
	*v = c->p->nodes[i].k;
	return 1;
}

static int32_t fold(cc *c, pf_node n)
{
	int64_t x, y;
	if (n.op == N_BIN && const_of(c, n.a, &x) && const_of(c, n.b, &y)) {
		int64_t v;
		uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
		switch (n.sub) {
		case B_ADD:
			v = (int64_t)(ux + uy);
			break;
		case B_SUB:
			v = (int64_t)(ux - uy);
			break;
		case B_MUL:
			v = (int64_t)(ux * uy);
			break;
		case B_DIV:
			v = y ? (int64_t)(ux / uy) : 0;
			break;
		case B_MOD:
			v = y ? (int64_t)(ux % uy) : 0;
			break;
		case B_SHL:
			v = uy < 64 ? (int64_t)(ux << uy) : 0;
			break;
		case B_SHR:
			v = uy < 64 ? (int64_t)(ux >> uy) : 0;
			break;
		case B_AND:
			v = x & y;
			break;
		case B_OR:
			v = x | y;
			break;
		case B_XOR:
			v = x ^ y;
			break;
		default:
			goto keep;
		}
		return node_add(c, (pf_node){.op = N_CONST, .k = v});
	}
	if (n.op == N_UN && const_of(c, n.a, &x)) {
		int64_t v = n.sub == U_NOT    ? !x
			    : n.sub == U_BNOT ? ~x
					      : (int64_t)(0 - (uint64_t)x);
		return node_add(c, (pf_node){.op = N_CONST, .k = v});
	}
	if (n.op == N_CAST && const_of(c, n.a, &x) &&
	    !(n.sub & (CAST_NONE | CAST_BOOL))) {
		int size = n.sub & 0xf;
		uint64_t v = (uint64_t)x;
		if (size < 8) {
			v &= (1ull << (size * 8)) - 1;
			if (n.sub & CAST_SIGNED) {
				uint64_t sign = 1ull << (size * 8 - 1);
				v = (v ^ sign) - sign;
			}
		}
		return node_add(c, (pf_node){.op = N_CONST, .k = (int64_t)v});
	}
keep:
	return node_add(c, n);
}

static int seg_add(cc *c, pf_seg s)
{
	tw_pfmt *p = c->p;
	if (p->nsegs >= MAX_SEGS) {
		fail(c, TW_PF_PRINTF, "too many conversions");
		return -1;
	}
	if (tw_grow(p->mem, (void **)&p->segs, &c->segs_cap, p->nsegs + 1,
		    sizeof(pf_seg))) {
		c->oom = 1;
		return -1;
	}
	p->segs[p->nsegs++] = s;
	return 0;
}

/* Append literal bytes, merging with a literal just before. */
static int lit_add(cc *c, const char *s, size_t n)
{
	tw_pfmt *p = c->p;
	if (!n)
		return 0;
	if (p->nsegs && p->segs[p->nsegs - 1].kind == S_LIT &&
	    p->segs[p->nsegs - 1].lit + p->segs[p->nsegs - 1].lit_len + 1 ==
		    p->pool_len) {
		/* the last literal ends the pool: extend it in place */
		pf_seg *l = &p->segs[p->nsegs - 1];
		p->pool_len--; /* drop its NUL */
		uint32_t at = pool_add(c, s, n);
		(void)at;
		l->lit_len += (uint32_t)n;
		return c->oom ? -1 : 0;
	}
	pf_seg l = {.kind = S_LIT};
	l.lit = pool_add(c, s, n);
	l.lit_len = (uint32_t)n;
	return c->oom ? -1 : seg_add(c, l);
}

/* The next argument, as the parser built it. */
static int32_t next_arg(cc *c)
{
	if (c->argi < c->argc)
		return c->argv[c->argi++];
	fail(c, TW_PF_ARGS, "too few arguments");
	return -1;
}

/* The array field (or dynamic array) node i reads bytes of, or -1. */
static int bytes_field(const tw_pfmt *p, int32_t i)
{
	while (i >= 0 && p->nodes[i].op == N_CAST)
		i = p->nodes[i].a;
	if (i < 0 || (p->nodes[i].op != N_FIELD && p->nodes[i].op != N_DYN))
		return -1;
	int f = p->nodes[i].a;
	return p->fields[f].flags & (TW_PFF_ARRAY | TW_PFF_DYNAMIC) ? f : -1;
}

static int parse_format(cc *c, const char *fmt)
{
	const char *s = fmt;
	while (*s && !c->p->fallback && !c->oom) {
		if (*s == '\\') {
			char ch = s[1];
			char out = ch == 'n'   ? '\n'
				   : ch == 't' ? '\t'
				   : ch == 'r' ? '\r'
					       : ch;
			if (!ch)
				break;
			if (lit_add(c, &out, 1))
				return -1;
			s += 2;
			continue;
		}
		if (*s != '%') {
			const char *e = s;
			while (*e && *e != '%' && *e != '\\')
				e++;
			if (lit_add(c, s, (size_t)(e - s)))
				return -1;
			s = e;
			continue;
		}
		s++;
		if (*s == '%') {
			if (lit_add(c, "%", 1))
				return -1;
			s++;
			continue;
		}
		pf_seg g = {.kind = S_CONV,
			    .width = -1,
			    .prec = -1,
			    .width_expr = -1,
			    .prec_expr = -1};
		for (;; s++) {
			if (*s == '-')
				g.flags |= F_MINUS;
			else if (*s == '+')
				g.flags |= F_PLUS;
			else if (*s == ' ')
				g.flags |= F_SPACE;
			else if (*s == '#')
				g.flags |= F_HASH;
			else if (*s == '0')
				g.flags |= F_ZERO;
			else
				break;
		}
		if (*s == '*') {
			g.width_expr = next_arg(c);
			s++;
		} else if (isdigit((unsigned char)*s)) {
			g.width = 0;
			while (isdigit((unsigned char)*s) && g.width < 4096)
				g.width = g.width * 10 + (*s++ - '0');
		}
		if (*s == '.') {
			s++;
			g.prec = 0;
			if (*s == '*') {
				g.prec_expr = next_arg(c);
				s++;
			} else {
				while (isdigit((unsigned char)*s) &&
				       g.prec < 4096)
					g.prec = g.prec * 10 + (*s++ - '0');
			}
		}
		int ls = c->p->layout.long_size;
		g.size = 4;
		if (s[0] == 'h' && s[1] == 'h')
			g.size = 1, s += 2;
		else if (s[0] == 'h')
			g.size = 2, s++;
		else if (s[0] == 'l' && s[1] == 'l')
			g.size = 8, s += 2;
		else if (s[0] == 'l' || s[0] == 'z' || s[0] == 'Z' ||
			 s[0] == 't')
			g.size = (uint8_t)ls, s++;
		else if (s[0] == 'L' || s[0] == 'q' || s[0] == 'j')
			g.size = 8, s++;
		char conv = *s;
		if (!conv) {
			fail(c, TW_PF_PRINTF, "a % at the end");
			return -1;
		}
		s++;
		switch (conv) {
		case 'd':
		case 'i':
		case 'u':
		case 'x':
		case 'X':
		case 'o':
		case 'c':
		case 's':
			break;
		case 'p': {
			size_t n = 0;
			while (isalnum((unsigned char)*s)) {
				if (n + 1 < sizeof(g.pext))
					g.pext[n++] = *s;
				s++;
			}
			g.size = (uint8_t)ls;
			int known = n == 0 ||
				    ((g.pext[0] == 'S' || g.pext[0] == 's' ||
				      g.pext[0] == 'F' || g.pext[0] == 'f' ||
				      g.pext[0] == 'B') &&
				     (n == 1 || g.pext[1] == 'R')) ||
				    (n == 1 &&
				     (g.pext[0] == 'x' || g.pext[0] == 'K')) ||
				    tw_pf_bytes_ext(g.pext);
			if (!known) {
				char d[8] = "%p";
				memcpy(d + 2, g.pext, n);
				d[2 + n] = '\0';
				fail(c, TW_PF_POINTER, d);
				return -1;
			}
			break;
		}
		default: {
			char d[4] = {'%', conv, 0, 0};
			fail(c, TW_PF_PRINTF, d);
			return -1;
		}
		}
		g.conv = (uint8_t)conv;
		g.expr = next_arg(c);
		if (g.expr < 0)
			return -1;
		if (conv == 'p' && tw_pf_bytes_ext(g.pext) &&
		    bytes_field(c->p, g.expr) < 0) {
			/* %pU, %pI4, ... print bytes: of an array field */
			fail(c, TW_PF_POINTER, "%p of bytes not in the record");
			return -1;
		}
		if (seg_add(c, g))
			return -1;
	}
	if (!c->p->fallback && c->argi < c->argc)
		fail(c, TW_PF_ARGS, "more arguments than conversions");
	return c->oom ? -1 : 0;
}

static int add_field(cc *c, const struct tep_format_field *f)
{
	tw_pfmt *p = c->p;
	tw_pf_field *d = &p->fields[p->nall++];
	d->name = f->name;
	d->name_len = (uint32_t)strlen(f->name);
	d->offset = f->offset > 0 ? (uint32_t)f->offset : 0;
	d->size = f->size > 0 ? (uint32_t)f->size : 0;
	d->elem_size = f->elementsize ? f->elementsize : d->size;
	if (f->flags & TEP_FIELD_IS_SIGNED)
		d->flags |= TW_PFF_SIGNED;
	if (f->flags & TEP_FIELD_IS_ARRAY)
		d->flags |= TW_PFF_ARRAY;
	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		d->flags |= TW_PFF_DYNAMIC;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		d->flags |= TW_PFF_RELATIVE;
	if (f->flags & TEP_FIELD_IS_LONG)
		d->flags |= TW_PFF_LONG;
	if (f->flags & TEP_FIELD_IS_POINTER)
		d->flags |= TW_PFF_POINTER;
	if ((f->flags & TEP_FIELD_IS_POINTER) && f->type &&
	    strstr(f->type, "char") && !(f->flags & TEP_FIELD_IS_ARRAY))
		d->flags |= TW_PFF_CHARPTR;
	if ((f->flags & TEP_FIELD_IS_STRING) ||
	    ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
	     d->elem_size == 1 && f->type && strstr(f->type, "char")))
		d->flags |= TW_PFF_STRING;
	if (d->flags & TW_PFF_DYNAMIC)
		d->elem_size = f->elementsize ? f->elementsize : 1;
	/* the names live in the pool, so the program outlives e; they are
	 * pointed at once the pool stops growing */
	c->name_at[p->nall - 1] = pool_add(c, f->name, d->name_len);
	d->name = NULL;
	return c->oom ? -1 : 0;
}

/* Whether node i is the field itself (maybe through a no-op cast). */
static int plain_field(const tw_pfmt *p, int32_t i)
{
	while (i >= 0 && p->nodes[i].op == N_CAST &&
	       (p->nodes[i].sub & CAST_NONE))
		i = p->nodes[i].a;
	return i >= 0 && p->nodes[i].op == N_FIELD ? p->nodes[i].a : -1;
}

/* The field a conversion shows symbolically, or -1. */
static int labelled_field(const tw_pfmt *p, int32_t i, int depth)
{
	if (i < 0 || depth > 8)
		return -1;
	const pf_node *n = &p->nodes[i];
	int32_t x = -1;
	if (n->op == N_SYMBOL || n->op == N_FLAGS)
		x = n->a;
	else if (n->op == N_COND) {
		int f = labelled_field(p, n->b, depth + 1);
		return f >= 0 ? f : labelled_field(p, n->c, depth + 1);
	}
	/* through masks, shifts and casts down to the field */
	while (x >= 0 &&
	       (p->nodes[x].op == N_CAST ||
		(p->nodes[x].op == N_BIN &&
		 (p->nodes[x].sub == B_AND || p->nodes[x].sub == B_SHR ||
		  p->nodes[x].sub == B_SHL) &&
		 p->nodes[p->nodes[x].b].op == N_CONST)))
		x = p->nodes[x].a;
	return x >= 0 && p->nodes[x].op == N_FIELD ? p->nodes[x].a : -1;
}

/* The fields node i reads, added to refs; returns the only one, or -2 when
 * it reads none, -1 when several. */
static int node_fields(const tw_pfmt *p, int32_t i, int one, int depth)
{
	if (i < 0 || depth > 64)
		return one;
	const pf_node *n = &p->nodes[i];
	switch (n->op) {
	case N_FIELD:
	case N_DYN:
	case N_DYNLEN:
	case N_BITMASK:
	case N_ELEM:
		if (one == -2)
			one = n->a;
		else if (one != n->a)
			return -1;
		if (n->op == N_ELEM)
			one = node_fields(p, n->b, one, depth + 1);
		return one;
	case N_CONST:
	case N_STR:
		return one;
	default:
		one = node_fields(p, n->a, one, depth + 1);
		if (one == -1)
			return -1;
		if (n->op == N_BIN || n->op == N_COND || n->op == N_HEX ||
		    n->op == N_HEXSTR || n->op == N_INTARRAY)
			one = node_fields(p, n->b, one, depth + 1);
		if (one != -1 && (n->op == N_COND || n->op == N_INTARRAY))
			one = node_fields(p, n->c, one, depth + 1);
		return one;
	}
}

/*
 * "name=" then conversions that read only that field, up to the next
 * " key" literal or the end: the generic decoder finds the text, and the
 * conversions alone read it (TW_PFT_LOCAL). Every conversion reading the
 * field must be among them.
 */
static int local_forms(tw_pfmt *p, uint8_t *uses)
{
	size_t n = p->nfields ? p->nfields : 1;
	p->local = tw_calloc(p->mem, 2 * n, sizeof(*p->local));
	int *reads = tw_calloc(p->mem, n, sizeof(int));
	if (!p->local || !reads) {
		tw_free(p->mem, reads);
		tw_free(p->mem, uses);
		return -1;
	}
	for (size_t s = 0; s < p->nsegs; s++) {
		const pf_seg *g = &p->segs[s];
		int f = g->kind == S_CONV ? node_fields(p, g->expr, -2, 0) : -2;
		if (f >= 0 && (size_t)f < p->nfields)
			reads[f]++;
		else if (f == -1)
			for (size_t k = 0; k < p->nfields; k++)
				reads[k] += 1000; /* mixed: not local */
	}
	for (size_t s = 0; s + 1 < p->nsegs; s++) {
		const pf_seg *l = &p->segs[s];
		if (l->kind != S_LIT || p->segs[s + 1].kind != S_CONV)
			continue;
		size_t e = s + 1;
		int f = node_fields(p, p->segs[e].expr, -2, 0);
		if (f < 0 || (size_t)f >= p->nfields ||
		    p->textform[f] != TW_PFT_NONE)
			continue;
		while (e + 1 < p->nsegs && p->segs[e + 1].kind == S_CONV &&
		       node_fields(p, p->segs[e + 1].expr, -2, 0) == f)
			e++;
		const tw_pf_field *fd = &p->fields[f];
		const char *lit = p->pool + l->lit;
		size_t nl = fd->name_len;
		if (l->lit_len < nl + 1 || lit[l->lit_len - 1] != '=' ||
		    memcmp(lit + l->lit_len - 1 - nl, fd->name, nl) != 0 ||
		    (l->lit_len > nl + 1 && lit[l->lit_len - 2 - nl] != ' '))
			continue;
		if (e + 1 < p->nsegs && (p->segs[e + 1].kind != S_LIT ||
					 p->pool[p->segs[e + 1].lit] != ' '))
			continue;
		if (reads[f] != (int)(e - s))
			continue; /* read elsewhere too */
		p->textform[f] = TW_PFT_LOCAL;
		p->local[2 * f] = (uint16_t)(s + 1);
		p->local[2 * f + 1] = (uint16_t)e;
	}
	tw_free(p->mem, reads);
	tw_free(p->mem, uses);
	return 0;
}

/* Whether conversion g prints strings chosen by field f alone
 * (`REC->prev_state & 256 ? "+" : ""`): it adds to f's label. */
static int suffix_of(const tw_pfmt *p, const pf_seg *g, int f)
{
	if (g->kind != S_CONV || g->conv != 's' || g->expr < 0)
		return 0;
	const pf_node *n = &p->nodes[g->expr];
	if (n->op != N_COND || n->b < 0 || n->c < 0 ||
	    p->nodes[n->b].op != N_STR || p->nodes[n->c].op != N_STR)
		return 0;
	return node_fields(p, n->a, -2, 0) == f;
}

/* Per field: plain "name=%d" text, and the conversion labelling it. */
static int classify(cc *c)
{
	tw_pfmt *p = c->p;
	size_t n = p->nfields ? p->nfields : 1;
	p->textform = tw_calloc(p->mem, n, 1);
	p->label_seg = tw_malloc(p->mem, n * sizeof(int32_t));
	p->label_end = tw_malloc(p->mem, n * sizeof(int32_t));
	if (!p->textform || !p->label_seg || !p->label_end)
		return -1;
	for (size_t i = 0; i < p->nfields; i++)
		p->label_seg[i] = p->label_end[i] = -1;
	/* how many conversions name each field at all */
	uint8_t *uses = tw_calloc(p->mem, n, 1);
	if (!uses)
		return -1;
	for (size_t s = 0; s < p->nsegs; s++) {
		const pf_seg *g = &p->segs[s];
		if (g->kind != S_CONV)
			continue;
		int f = plain_field(p, g->expr);
		if (f >= 0 && (size_t)f < p->nfields && uses[f] < 255)
			uses[f]++;
		int l = labelled_field(p, g->expr, 0);
		if (g->conv == 'p' && strchr("SsFfB", g->pext[0]) &&
		    g->pext[0]) {
			/* %ps: a function pointer, labelled by its symbol */
			int32_t x = g->expr;
			while (x >= 0 && p->nodes[x].op == N_CAST)
				x = p->nodes[x].a;
			l = x >= 0 && p->nodes[x].op == N_FIELD ? p->nodes[x].a
								: -1;
		}
		if (l >= 0 && (size_t)l < p->nfields && p->label_seg[l] < 0) {
			p->label_seg[l] = p->label_end[l] = (int32_t)s;
			/* "%s%s": a choice of strings by the same field right
			 * after its label is part of it (prev_state's "+") */
			while (p->label_end[l] + 1 < (int32_t)p->nsegs &&
			       suffix_of(p, &p->segs[p->label_end[l] + 1], l))
				p->label_end[l]++;
		}
	}
	for (size_t s = 0; s < p->nsegs; s++) {
		const pf_seg *g = &p->segs[s];
		if (g->kind != S_CONV || s == 0 || p->segs[s - 1].kind != S_LIT)
			continue;
		int f = plain_field(p, g->expr);
		if (f < 0 || (size_t)f >= p->nfields || uses[f] != 1)
			continue;
		const tw_pf_field *fd = &p->fields[f];
		/* "... name=" right before the conversion */
		const pf_seg *l = &p->segs[s - 1];
		const char *lit = p->pool + l->lit;
		size_t nl = fd->name_len;
		const char *name = fd->name;
		if (l->lit_len < nl + 1 || lit[l->lit_len - 1] != '=' ||
		    memcmp(lit + l->lit_len - 1 - nl, name, nl) != 0 ||
		    (l->lit_len > nl + 1 && lit[l->lit_len - 2 - nl] != ' '))
			continue;
		/* and a value the generic decoder reads as the field's */
		int ok;
		if (fd->flags & TW_PFF_STRING)
			ok = g->conv == 's' && g->width < 0 && g->prec < 0;
		else if (fd->flags & (TW_PFF_ARRAY | TW_PFF_DYNAMIC))
			ok = 0;
		else
			ok = (g->conv == 'd' || g->conv == 'i' ||
			      g->conv == 'u') &&
			     g->size >= fd->size && !(g->flags & F_PLUS);
		/* the next literal must start a new " key=" or end it */
		if (ok && s + 1 < p->nsegs) {
			const pf_seg *nx = &p->segs[s + 1];
			ok = nx->kind == S_LIT && p->pool[nx->lit] == ' ';
		}
		if (ok)
			p->textform[f] = TW_PFT_PLAIN;
	}
	return local_forms(p, uses);
}

/* ---- what args.c builds with ---- */

/* With c NULL the parser only checks the syntax (tw_pfmt_args_ok()). */
int32_t tw_pf_cc_node(cc *c, pf_node n)
{
	if (!c)
		return 0;
	if (c->oom)
		return -1;
	if (n.op == N_BIN || n.op == N_UN || n.op == N_CAST)
		return fold(c, n);
	return node_add(c, n);
}

uint32_t tw_pf_cc_pool(cc *c, const char *s, size_t n)
{
	return c ? pool_add(c, s, n) : 0;
}

const char *tw_pf_cc_pool_at(cc *c, uint32_t at)
{
	return c ? c->p->pool + at : "";
}

int tw_pf_cc_field(cc *c, const char *name, size_t n)
{
	if (!c)
		return 0;
	for (size_t i = 0; i < c->p->nall; i++) {
		const char *f = c->p->pool + c->name_at[i];
		if (strlen(f) == n && memcmp(f, name, n) == 0)
			return (int)i;
	}
	return -1;
}

int tw_pf_cc_node_field(cc *c, int32_t i)
{
	if (!c)
		return 0;
	return i >= 0 && c->p->nodes[i].op == N_FIELD ? c->p->nodes[i].a : -1;
}

uint8_t tw_pf_cc_cast(cc *c, const char *type)
{
	return c ? cast_of(c, type) : 8;
}

int tw_pf_cc_const(cc *c, int32_t i, int64_t *k)
{
	if (!c) {
		*k = 0;
		return 1;
	}
	return const_of(c, i, k);
}

int32_t tw_pf_cc_nsyms(cc *c)
{
	return c ? (int32_t)c->p->nsyms : 0;
}

int32_t tw_pf_cc_sym(cc *c, int64_t value, int resolved, uint32_t str,
		     uint32_t len)
{
	if (!c)
		return 0;
	tw_pfmt *p = c->p;
	if (tw_grow(p->mem, (void **)&p->syms, &c->syms_cap, p->nsyms + 1,
		    sizeof(pf_sym))) {
		c->oom = 1;
		return -1;
	}
	if (!resolved)
		p->unresolved++;
	p->syms[p->nsyms] = (pf_sym){value, str, len, resolved};
	return (int32_t)p->nsyms++;
}

/*
 * The print fmt line of a format text: the format string as written (its
 * escapes still in) and the arguments after it. Return: 0, or -1.
 */
static int print_fmt_line(const char *text, size_t len, const char **fmt,
			  size_t *fmt_len, const char **args, size_t *args_len)
{
	const char *pf = memmem(text, len, "print fmt: \"", 12);
	if (!pf)
		return -1;
	/* to the end of the text: strings may hold newlines */
	const char *end = text + len, *q = pf + 12;
	const char *e = q;
	while (e < end && *e != '"')
		e += *e == '\\' && e + 1 < end ? 2 : 1;
	if (e >= end)
		return -1;
	*fmt = q;
	*fmt_len = (size_t)(e - q);
	*args = e + 1;
	*args_len = (size_t)(end - e - 1);
	return 0;
}

int tw_pfmt_args_ok(const char *text, size_t len)
{
	const char *fmt, *args;
	size_t fn, an, argc;
	int32_t argv[TW_PF_MAX_ARGS];
	return print_fmt_line(text, len, &fmt, &fn, &args, &an) == 0 &&
	       tw_pf_parse_args(NULL, args, an, argv, TW_PF_MAX_ARGS, &argc) ==
		       0;
}

/*
 * ftrace's kernel_stack and user_stack, by their shape as well as their
 * names: the caller array of longs last in the record, after kernel_stack's
 * int size. The kernel prints them with trace_stack_print() and
 * trace_user_stack_print(), not their print fmt (which trawl's parser
 * does not take: it prints 8 frames, whatever the record holds).
 */
static void stack_shape(cc *c)
{
	tw_pfmt *p = c->p;
	const struct tep_event *e = c->e;
	int kind = TW_PF_STACK_NONE;
	if (!e->system || !e->name || strcmp(e->system, "ftrace") != 0)
		return;
	if (strcmp(e->name, "kernel_stack") == 0)
		kind = TW_PF_STACK_KERNEL;
	else if (strcmp(e->name, "user_stack") == 0)
		kind = TW_PF_STACK_USER;
	else
		return;
	int caller = -1, count = -1, maps = -1;
	uint64_t end = 0;
	for (size_t i = 0; i < p->nall; i++) {
		const tw_pf_field *f = &p->fields[i];
		const char *name = p->pool + c->name_at[i];
		if ((uint64_t)f->offset + f->size > end)
			end = (uint64_t)f->offset + f->size;
		if (i < p->nfields && strcmp(name, "caller") == 0)
			caller = (int)i;
		else if (i < p->nfields && strcmp(name, "size") == 0)
			count = (int)i;
		else if (i < p->nfields && strcmp(name, "maps") == 0 &&
			 (f->flags & TW_PFF_DYNAMIC) &&
			 (f->flags & TW_PFF_STRING))
			maps = (int)i;
	}
	if (caller < 0)
		return;
	const tw_pf_field *cf = &p->fields[caller];
	if ((cf->flags & (TW_PFF_ARRAY | TW_PFF_DYNAMIC | TW_PFF_STRING)) !=
		    TW_PFF_ARRAY ||
	    cf->elem_size != (uint32_t)p->layout.long_size ||
	    (uint64_t)cf->offset + cf->size != end)
		return;
	if (kind == TW_PF_STACK_KERNEL) {
		if (count < 0)
			return;
		const tw_pf_field *nf = &p->fields[count];
		if ((nf->flags & (TW_PFF_ARRAY | TW_PFF_DYNAMIC)) ||
		    nf->size != 4 || (uint64_t)nf->offset + 4 > cf->offset)
			return;
	} else {
		count = -1; /* user stacks end at a 0 */
		p->stack_maps = maps;
	}
	p->fields[caller].flags |= TW_PFF_STACK;
	p->stack = kind;
	p->stack_field = caller;
	p->stack_count = count;
}

/* What tw_pfmt_fits() checks: the fixed fields' end, the dynamic ones. */
static int layout_bounds(tw_pfmt *p)
{
	p->dynamic = tw_malloc(p->mem,
			       (p->nall ? p->nall : 1) * sizeof(*p->dynamic));
	if (!p->dynamic)
		return -1;
	for (size_t i = 0; i < p->nall; i++) {
		const tw_pf_field *f = &p->fields[i];
		/* a stack holds as many frames as it holds: none at least */
		size_t end = (size_t)f->offset + (f->flags & TW_PFF_DYNAMIC ? 4
						  : f->flags & TW_PFF_STACK
							  ? 0
							  : f->size);
		if (end > p->min_len)
			p->min_len = end;
		if (f->flags & TW_PFF_DYNAMIC)
			p->dynamic[p->ndynamic++] = (uint32_t)i;
	}
	return 0;
}

tw_pfmt *tw_pfmt_compile(const tw_mem *mem, const struct tep_event *e,
			 const char *text, size_t text_len,
			 const tw_pf_layout *layout)
{
	tw_pfmt *p = tw_calloc(mem, 1, sizeof(*p));
	if (!p)
		return NULL;
	p->mem = mem;
	p->layout = layout ? *layout : (tw_pf_layout){0, 8};
	if (p->layout.long_size != 4)
		p->layout.long_size = 8;
	cc c = {.p = p, .e = e};
	size_t total =
		(size_t)(e->format.nr_fields > 0 ? e->format.nr_fields : 0) +
		(size_t)(e->format.nr_common > 0 ? e->format.nr_common : 0);
	p->fields = tw_calloc(mem, total ? total : 1, sizeof(tw_pf_field));
	c.name_at = tw_calloc(mem, total ? total : 1, sizeof(uint32_t));
	if (!p->fields || !c.name_at)
		goto oom;
	for (const struct tep_format_field *f = e->format.fields;
	     f && p->nall < total; f = f->next)
		if (add_field(&c, f))
			goto oom;
	p->nfields = p->nall;
	for (const struct tep_format_field *f = e->format.common_fields;
	     f && p->nall < total; f = f->next)
		if (add_field(&c, f))
			goto oom;
	/* the print fmt, parsed by trawl from the format's own text; not
	 * the stacks', which the kernel does not print by it */
	const char *fmt, *args;
	size_t fmt_len, args_len;
	char *fmt_z = NULL;
	p->stack_field = p->stack_count = p->stack_maps = -1;
	stack_shape(&c);
	if (p->stack) {
		/* rendered by render_stack(), as the kernel prints it */
	} else if (!text || print_fmt_line(text, text_len, &fmt, &fmt_len,
					   &args, &args_len)) {
		fail(&c, TW_PF_NO_FORMAT, "no print fmt line");
	} else if (!(fmt_z = tw_strndup(mem, fmt, fmt_len))) {
		goto oom;
	} else if (tw_pf_parse_args(&c, args, args_len, c.argv, TW_PF_MAX_ARGS,
				    &c.argc) ||
		   c.oom) {
		if (c.oom) {
			tw_free(mem, fmt_z);
			goto oom;
		}
		if (!p->fallback)
			fail(&c, TW_PF_HELPER, "arguments trawl cannot parse");
	} else {
		if (parse_format(&c, fmt_z) && c.oom) {
			tw_free(mem, fmt_z);
			goto oom; /* otherwise it fell back, and says why */
		}
	}
	tw_free(mem, fmt_z);
	if (c.oom)
		goto oom;
	for (size_t i = 0; i < p->nall; i++)
		p->fields[i].name = p->pool + c.name_at[i];
	if (classify(&c) || layout_bounds(p))
		goto oom;
	tw_pf_mark_fast(p);
	tw_free(mem, c.name_at);
	return p;
oom:
	tw_free(mem, c.name_at);
	tw_pfmt_free(p);
	return NULL;
}

void tw_pfmt_free(tw_pfmt *p)
{
	if (!p)
		return;
	const tw_mem *m = p->mem;
	tw_free(m, p->fields);
	tw_free(m, p->dynamic);
	tw_free(m, p->textform);
	tw_free(m, p->local);
	tw_free(m, p->label_seg);
	tw_free(m, p->label_end);
	tw_free(m, p->segs);
	tw_free(m, p->nodes);
	tw_free(m, p->syms);
	tw_free(m, p->pool);
	tw_free(m, p);
}

int tw_pfmt_fallback(const tw_pfmt *p)
{
	return p->fallback;
}

int tw_pfmt_stack(const tw_pfmt *p)
{
	return p->stack;
}

int tw_pfmt_unresolved(const tw_pfmt *p)
{
	return p->unresolved;
}

const char *tw_pfmt_fallback_detail(const tw_pfmt *p)
{
	return p->detail;
}

const char *tw_pfmt_fallback_name(int why)
{
	static const char *const names[TW_PF_NFALLBACK] = {
		"compiled",	"no print format", "printf conversion",
		"%p extension", "helper",	   "argument count",
	};
	return why >= 0 && why < TW_PF_NFALLBACK ? names[why] : "?";
}

size_t tw_pfmt_nfields(const tw_pfmt *p)
{
	return p->nfields;
}

const tw_pf_field *tw_pfmt_field(const tw_pfmt *p, size_t i)
{
	return i < p->nfields ? &p->fields[i] : NULL;
}

int tw_pfmt_find(const tw_pfmt *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->nfields; i++)
		if (tw_eq(p->fields[i].name, p->fields[i].name_len, name, len))
			return (int)i;
	return -1;
}

int tw_pfmt_find_any(const tw_pfmt *p, const char *name, size_t len)
{
	for (size_t i = 0; i < p->nall; i++)
		if (tw_eq(p->fields[i].name, p->fields[i].name_len, name, len))
			return (int)i;
	return -1;
}

const tw_pf_field *tw_pfmt_field_any(const tw_pfmt *p, size_t i)
{
	return i < p->nall ? &p->fields[i] : NULL;
}

int tw_pfmt_textform(const tw_pfmt *p, size_t field)
{
	return field < p->nfields && !p->fallback ? p->textform[field]
						  : TW_PFT_NONE;
}
