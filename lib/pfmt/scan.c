/* SPDX-License-Identifier: MIT */
/*
 * Running a compiled print format backwards: the kernel's text of an event
 * back to the record's fields, typed.
 *
 * The text is matched against the format's segments left to right, with
 * backtracking: a literal must be there; a number is read as its
 * conversion prints it; a string (%s of a field) may end at any place
 * where the rest matches (comms hold spaces and "=", so the first place
 * is tried first); a symbolic %s (__print_symbolic, __print_flags, a
 * ternary of strings) tries the texts it could have printed. A step
 * budget keeps hostile text linear-ish.
 *
 * Each conversion that matched is turned back into what it says about the
 * fields: the expression is inverted where it can be (casts, masks, shifts,
 * +/- a constant, a symbol's number, a ternary's truth), giving known bits
 * of a field; "dev=8,0" printed as MAJOR(dev), MINOR(dev) gives all of
 * dev's bits from the two. Bits the text did not show are taken as 0 and
 * the value is marked inexact. What cannot be inverted is display only:
 * hashed %p pointers, %pS symbols.
 */
#include <string.h>

#include "pfmt-int.h"

#define STEP_BUDGET 20000

enum ckind {
	C_BITS,	  /* known bits of a scalar field or of an element */
	C_STR,	  /* a string field */
	C_TEXT,	  /* display only */
	C_LABEL,  /* the symbolic label of a field, no number */
	C_SYMBOL, /* display only, and its label: a %pS symbol */
};

typedef struct constraint {
	int32_t field;
	int32_t elem; /* -1: the field itself */
	uint8_t kind;
	uint64_t v, mask;
	const char *s; /* the text it came from */
	uint32_t n;
	const char *label;
	uint32_t label_len;
} constraint;

typedef struct scanner {
	const tw_pfmt *p;
	const tw_mem *mem;
	const char *text;
	const char *end;
	tw_pf_scan *out;
	const char **pos; /* pos[i]: where segment i began on this path */
	size_t stop;	  /* the segment the text ends at */
	constraint *c;
	size_t nc, cap;
	long steps;
	int oom;
} scanner;

static int match(scanner *s, size_t seg, const char *at);

static int push(scanner *s, constraint c)
{
	if (s->nc == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 32;
		constraint *n = tw_realloc(s->mem, s->c, ncap * sizeof(*n));
		if (!n) {
			s->oom = 1;
			return -1;
		}
		s->c = n;
		s->cap = ncap;
	}
	s->c[s->nc++] = c;
	return 0;
}

static int budget(scanner *s)
{
	return ++s->steps < STEP_BUDGET && !s->oom;
}

static int is_const(const tw_pfmt *p, int32_t i, int64_t *k)
{
	if (i < 0 || p->nodes[i].op != N_CONST)
		return 0;
	*k = p->nodes[i].k;
	return 1;
}

/* What a printed integer v says about the fields under node i. */
static int invert(scanner *s, int32_t i, uint64_t v, uint64_t mask,
		  const char *txt, size_t n, int depth)
{
	const tw_pfmt *p = s->p;
	if (i < 0 || depth > 32 || !mask)
		return 0;
	const pf_node *nd = &p->nodes[i];
	int64_t k;
	switch (nd->op) {
	case N_FIELD: {
		const tw_pf_field *f = &p->fields[nd->a];
		if ((size_t)nd->a >= p->nfields ||
		    (f->flags &
		     (TW_PFF_STRING | TW_PFF_DYNAMIC | TW_PFF_ARRAY)))
			return 0;
		return push(s, (constraint){nd->a, -1, C_BITS, v & mask, mask,
					    txt, (uint32_t)n, NULL, 0});
	}
	case N_ELEM:
		if (!is_const(p, nd->b, &k) || k < 0 ||
		    (size_t)nd->a >= p->nfields)
			return 0;
		return push(s, (constraint){nd->a, (int32_t)k, C_BITS, v & mask,
					    mask, txt, (uint32_t)n, NULL, 0});
	case N_CAST:
		if (nd->sub & CAST_BOOL)
			return 0;
		if (!(nd->sub & CAST_NONE) && (nd->sub & 0xf) < 8)
			mask &= (1ull << ((nd->sub & 0xf) * 8)) - 1;
		return invert(s, nd->a, v & mask, mask, txt, n, depth + 1);
	case N_UN:
		if (nd->sub == U_BNOT)
			return invert(s, nd->a, ~v, mask, txt, n, depth + 1);
		if (nd->sub == U_NEG && mask == ~0ull)
			return invert(s, nd->a, 0 - v, mask, txt, n, depth + 1);
		return 0;
	case N_BIN: {
		int32_t x = nd->a, y = nd->b;
		int kconst = is_const(p, y, &k);
		if (!kconst && is_const(p, x, &k) &&
		    (nd->sub == B_AND || nd->sub == B_OR || nd->sub == B_ADD ||
		     nd->sub == B_MUL)) {
			x = nd->b; /* commutative: the constant on the left */
			kconst = 1;
		}
		if (!kconst)
			return 0;
		uint64_t uk = (uint64_t)k;
		switch (nd->sub) {
		case B_AND:
			return invert(s, x, v & uk, mask & uk, txt, n,
				      depth + 1);
		case B_OR:
			return invert(s, x, v & ~uk, mask & ~uk, txt, n,
				      depth + 1);
		case B_SHR:
			if (uk >= 64)
				return 0;
			return invert(s, x, v << uk, mask << uk, txt, n,
				      depth + 1);
		case B_SHL:
			if (uk >= 64)
				return 0;
			return invert(s, x, v >> uk, mask >> uk, txt, n,
				      depth + 1);
		case B_ADD:
			return mask == ~0ull ? invert(s, x, v - uk, mask, txt,
						      n, depth + 1)
					     : 0;
		case B_SUB:
			return mask == ~0ull && x == nd->a
				       ? invert(s, x, v + uk, mask, txt, n,
						depth + 1)
				       : 0;
		case B_MUL:
			return mask == ~0ull && uk && v % uk == 0
				       ? invert(s, x, v / uk, mask, txt, n,
						depth + 1)
				       : 0;
		case B_XOR:
			return invert(s, x, v ^ uk, mask, txt, n, depth + 1);
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* The field under casts, or -1. */
static int inner_field(const tw_pfmt *p, int32_t i)
{
	while (i >= 0 && p->nodes[i].op == N_CAST)
		i = p->nodes[i].a;
	return i >= 0 && p->nodes[i].op == N_FIELD &&
			       (size_t)p->nodes[i].a < p->nfields
		       ? p->nodes[i].a
		       : -1;
}

/* What a condition's truth says: (X & k) == 0, or a single bit set. */
static int truth(scanner *s, int32_t i, int is_true, const char *txt, size_t n)
{
	const tw_pfmt *p = s->p;
	const pf_node *nd = &p->nodes[i];
	int64_t k;
	uint64_t m = ~0ull;
	int32_t x = i;
	if (nd->op == N_BIN && nd->sub == B_AND && is_const(p, nd->b, &k)) {
		m = (uint64_t)k;
		x = nd->a;
	} else if (nd->op == N_BIN && nd->sub == B_AND &&
		   is_const(p, nd->a, &k)) {
		m = (uint64_t)k;
		x = nd->b;
	} else if (nd->op == N_UN && nd->sub == U_NOT) {
		return truth(s, nd->a, !is_true, txt, n);
	}
	if (!is_true)
		return invert(s, x, 0, m, txt, n, 0);
	if (m && !(m & (m - 1))) /* one bit: set */
		return invert(s, x, m, m, txt, n, 0);
	return 0;
}

/* "0x1f" at q: its value and length, or 0 when not there. */
static size_t hex_at(const char *q, const char *end, uint64_t *v)
{
	if (end - q < 3 || q[0] != '0' || (q[1] != 'x' && q[1] != 'X') ||
	    tw_hexval(q[2]) < 0)
		return 0;
	const char *r = q + 2;
	uint64_t x = 0;
	while (r < end && tw_hexval(*r) >= 0)
		x = x * 16 + (uint64_t)tw_hexval(*r++);
	*v = x;
	return (size_t)(r - q);
}

/* An integer as conversion g prints it: its value and end, or NULL. */
static const char *read_int(const pf_seg *g, const char *q, const char *end,
			    uint64_t *v)
{
	while (q < end && *q == ' ' && g->width > 0)
		q++;
	int neg = 0;
	if (q < end && (*q == '-' || *q == '+'))
		neg = *q++ == '-';
	unsigned base = g->conv == 'x' || g->conv == 'X' ? 16
			: g->conv == 'o'		 ? 8
							 : 10;
	if (base == 16 && end - q >= 2 && q[0] == '0' &&
	    (q[1] == 'x' || q[1] == 'X'))
		q += 2;
	const char *d = q;
	uint64_t x = 0;
	while (q < end) {
		int h = tw_hexval(*q);
		if (h < 0 || (unsigned)h >= base)
			break;
		x = x * base + (uint64_t)h;
		q++;
	}
	if (q == d)
		return NULL;
	*v = neg ? 0 - x : x;
	return q;
}

/* The mask of bits a conversion's text shows. */
static uint64_t conv_mask(const pf_seg *g)
{
	int is_signed = g->conv == 'd' || g->conv == 'i';
	if (is_signed || g->size >= 8)
		return ~0ull;
	return (1ull << (g->size * 8)) - 1;
}

static int sym_try(scanner *s, size_t seg, const char *at, int32_t x,
		   const pf_sym *e, uint64_t v, size_t len)
{
	size_t mark = s->nc;
	int rc =
		e && !e->resolved
			? push(s, (constraint){inner_field(s->p, x), -1,
					       C_LABEL, 0, 0, at, (uint32_t)len,
					       at, (uint32_t)len})
			: invert(s, x, v, ~0ull, at, len, 0);
	if (rc == 0 && s->nc > mark && e) {
		/* the label belongs to the field the number went to */
		for (size_t k = mark; k < s->nc; k++) {
			s->c[k].label = at;
			s->c[k].label_len = (uint32_t)len;
		}
	}
	if (rc == 0 && match(s, seg + 1, at + len))
		return 1;
	s->nc = mark;
	return 0;
}

/* __print_symbolic: the longest entry that is there, or 0x... */
static int try_symbol(scanner *s, size_t seg, const char *at, const pf_node *nd)
{
	const tw_pfmt *p = s->p;
	size_t left = (size_t)(s->end - at);
	/* longest first: "REL|HARD" before "REL" */
	uint32_t tried = UINT32_MAX;
	for (;;) {
		const pf_sym *best = NULL;
		for (int64_t k = 0; k < nd->k; k++) {
			const pf_sym *e = &p->syms[nd->b + k];
			if (e->len <= left && e->len < tried &&
			    (!best || e->len > best->len) &&
			    memcmp(at, p->pool + e->str, e->len) == 0)
				best = e;
		}
		if (!best)
			break;
		tried = best->len;
		if (!budget(s))
			return 0;
		/* equal texts: the first entry the kernel would print */
		if (sym_try(s, seg, at, nd->a, best, (uint64_t)best->value,
			    best->len))
			return 1;
		if (tried == 0)
			break;
	}
	uint64_t v;
	size_t n = hex_at(at, s->end, &v);
	return n && sym_try(s, seg, at, nd->a, NULL, v, n);
}

/* __print_flags: entries joined by the delimiter, maybe a 0x... rest. */
static int try_flags(scanner *s, size_t seg, const char *at, const pf_node *nd)
{
	const tw_pfmt *p = s->p;
	const char *delim = p->pool + nd->c;
	size_t dl = strlen(delim);
	/* parse the longest run of tokens, remembering where each ends */
	const char *ends[64];
	uint64_t vals[64];
	int unresolved[64];
	int nt = 0;
	const char *q = at;
	uint64_t v = 0;
	int bad = 0;
	while (nt < 64) {
		const char *t = q;
		if (nt > 0) {
			if (!dl || (size_t)(s->end - t) < dl ||
			    memcmp(t, delim, dl) != 0)
				break;
			t += dl;
		}
		size_t left = (size_t)(s->end - t);
		const pf_sym *best = NULL;
		for (int64_t k = 0; k < nd->k; k++) {
			const pf_sym *e = &p->syms[nd->b + k];
			if (e->len && e->len <= left &&
			    (!best || e->len > best->len) &&
			    memcmp(t, p->pool + e->str, e->len) == 0)
				best = e;
		}
		uint64_t hv;
		size_t hn = hex_at(t, s->end, &hv);
		if (best && best->len >= hn) {
			v |= (uint64_t)best->value;
			bad |= !best->resolved;
			q = t + best->len;
		} else if (hn) {
			v |= hv;
			q = t + hn;
		} else {
			break;
		}
		ends[nt] = q;
		vals[nt] = v;
		unresolved[nt] = bad;
		nt++;
	}
	/* longest first, down to none (a value of 0 prints nothing) */
	for (int k = nt; k >= 0; k--) {
		if (!budget(s))
			return 0;
		const char *e = k ? ends[k - 1] : at;
		size_t len = (size_t)(e - at);
		pf_sym fake = {.resolved = !(k && unresolved[k - 1])};
		if (sym_try(s, seg, at, nd->a, &fake, k ? vals[k - 1] : 0, len))
			return 1;
	}
	return 0;
}

/* %s of something that is not one of the shapes above: any length. */
static int try_any(scanner *s, size_t seg, const char *at, int field, int kind)
{
	const tw_pfmt *p = s->p;
	const pf_seg *next = seg + 1 < p->nsegs ? &p->segs[seg + 1] : NULL;
	const char *q = at;
	for (;;) {
		const char *e;
		if (!next) {
			e = s->end;
		} else if (next->kind == S_LIT) {
			e = memmem(q, (size_t)(s->end - q), p->pool + next->lit,
				   next->lit_len);
			if (!e) {
				/* a literal that ends the text may lose its
				 * newline */
				e = s->end;
			}
		} else {
			e = q;
		}
		if (!budget(s))
			return 0;
		size_t mark = s->nc;
		if (field >= 0 &&
		    push(s, (constraint){field, -1, (uint8_t)kind, 0, 0, at,
					 (uint32_t)(e - at), NULL, 0}))
			return 0;
		if (match(s, seg + 1, e))
			return 1;
		s->nc = mark;
		if (e >= s->end)
			return 0;
		q = e + 1;
	}
}

/* __print_hex / __print_array: the bytes or numbers of an array field. */
static int try_array(scanner *s, size_t seg, const char *at, const pf_node *nd)
{
	const tw_pfmt *p = s->p;
	const pf_node *src = &p->nodes[nd->a];
	int f = (src->op == N_DYN || src->op == N_FIELD) &&
				(size_t)src->a < p->nfields
			? src->a
			: -1;
	const char *q = at;
	size_t mark = s->nc;
	int32_t idx = 0;
	if (nd->op == N_INTARRAY) {
		if (q >= s->end || *q != '{')
			return 0;
		q++;
		while (q < s->end && *q != '}') {
			uint64_t v;
			size_t n = hex_at(q, s->end, &v);
			if (!n || !budget(s))
				goto no;
			if (f >= 0 &&
			    push(s, (constraint){f, idx, C_BITS, v, ~0ull, q,
						 (uint32_t)n, NULL, 0}))
				goto no;
			idx++;
			q += n;
			if (q < s->end && *q == ',')
				q++;
		}
		if (q >= s->end)
			goto no;
		q++;
	} else {
		while (s->end - q >= 2 && tw_hexval(q[0]) >= 0 &&
		       tw_hexval(q[1]) >= 0) {
			uint64_t v = (uint64_t)(tw_hexval(q[0]) * 16 +
						tw_hexval(q[1]));
			if (!budget(s))
				goto no;
			if (f >= 0 &&
			    push(s, (constraint){f, idx, C_BITS, v, 0xff, q, 2,
						 NULL, 0}))
				goto no;
			idx++;
			q += 2;
			if (nd->op == N_HEX && s->end - q >= 3 && *q == ' ' &&
			    tw_hexval(q[1]) >= 0 && tw_hexval(q[2]) >= 0)
				q++;
		}
	}
	if (match(s, seg + 1, q))
		return 1;
no:
	s->nc = mark;
	return 0;
}

/* Try the texts a string-valued node could have printed at `at`. */
static int try_str(scanner *s, size_t seg, const char *at, int32_t i, int depth)
{
	const tw_pfmt *p = s->p;
	const pf_node *nd = &p->nodes[i];
	if (depth > 16)
		return 0;
	switch (nd->op) {
	case N_STR:
		if ((size_t)(s->end - at) < nd->klen ||
		    memcmp(at, p->pool + nd->k, nd->klen) != 0)
			return 0;
		return match(s, seg + 1, at + nd->klen);
	case N_COND:
		for (int branch = 1; branch >= 0; branch--) {
			size_t mark = s->nc;
			if (!budget(s))
				return 0;
			const pf_node *bn = &p->nodes[branch ? nd->b : nd->c];
			size_t bl = bn->op == N_STR ? bn->klen : 0;
			if (truth(s, nd->a, branch, at, bl) == 0 &&
			    try_str(s, seg, at, branch ? nd->b : nd->c,
				    depth + 1))
				return 1;
			s->nc = mark;
		}
		return 0;
	case N_SYMBOL:
		return try_symbol(s, seg, at, nd);
	case N_FLAGS:
		return try_flags(s, seg, at, nd);
	case N_HEX:
	case N_HEXSTR:
	case N_INTARRAY:
		return try_array(s, seg, at, nd);
	case N_FIELD: {
		const tw_pf_field *f = &p->fields[nd->a];
		if ((size_t)nd->a < p->nfields &&
		    (f->flags & (TW_PFF_STRING | TW_PFF_CHARPTR)))
			return try_any(s, seg, at, nd->a, C_STR);
		return try_any(s, seg, at, -1, C_TEXT);
	}
	default:
		return try_any(s, seg, at, -1, C_TEXT);
	}
}

static int try_conv(scanner *s, size_t seg, const char *at)
{
	const tw_pfmt *p = s->p;
	const pf_seg *g = &p->segs[seg];
	if (g->width_expr >= 0 || g->prec_expr >= 0)
		return try_any(s, seg, at, -1, C_TEXT);
	size_t mark = s->nc;
	switch (g->conv) {
	case 's':
		if (g->width > 0 || g->prec >= 0) {
			/* padded: the field's text is the trimmed span */
			int f = inner_field(p, g->expr);
			const tw_pf_field *fd = f >= 0 ? &p->fields[f] : NULL;
			return try_any(s, seg, at, f,
				       fd && (fd->flags & TW_PFF_STRING)
					       ? C_STR
					       : C_TEXT);
		}
		return try_str(s, seg, at, g->expr, 0);
	case 'c':
		if (at >= s->end)
			return 0;
		if (invert(s, g->expr, (unsigned char)*at, 0xff, at, 1, 0) ||
		    !match(s, seg + 1, at + 1)) {
			s->nc = mark;
			return 0;
		}
		return 1;
	case 'p': {
		int f = inner_field(p, g->expr);
		uint64_t v = 0;
		size_t n = 0;
		if (g->pext[0] == 'x') {
			const char *e = read_int(&(pf_seg){.conv = 'x'}, at,
						 s->end, &v);
			n = e ? (size_t)(e - at) : 0;
		} else if (g->pext[0] && g->pext[0] != 'K') {
			n = hex_at(at, s->end, &v); /* no symbol for it */
		}
		if (n) {
			if (invert(s, g->expr, v, ~0ull, at, n, 0) == 0 &&
			    match(s, seg + 1, at + n))
				return 1;
			s->nc = mark;
		}
		/* hashed, or a symbol: display only, any length */
		return try_any(s, seg, at, f,
			       g->pext[0] && g->pext[0] != 'K' ? C_SYMBOL
							       : C_TEXT);
	}
	default: {
		uint64_t v;
		const char *e = read_int(g, at, s->end, &v);
		if (!e)
			return 0;
		if (invert(s, g->expr, v, conv_mask(g), at, (size_t)(e - at),
			   0) == 0 &&
		    match(s, seg + 1, e))
			return 1;
		s->nc = mark;
		return 0;
	}
	}
}

static int only_blanks(const char *q, const char *end)
{
	while (q < end && (*q == '\n' || *q == ' '))
		q++;
	return q == end;
}

static int match(scanner *s, size_t seg, const char *at)
{
	const tw_pfmt *p = s->p;
	if (!budget(s))
		return 0;
	s->pos[seg] = at;
	if (seg == s->stop)
		return only_blanks(at, s->end);
	const pf_seg *g = &p->segs[seg];
	if (g->kind == S_CONV)
		return try_conv(s, seg, at);
	const char *lit = p->pool + g->lit;
	size_t n = g->lit_len, left = (size_t)(s->end - at);
	if (left >= n && memcmp(at, lit, n) == 0)
		return match(s, seg + 1, at + n);
	/* the text's line lost the format's trailing newlines */
	if (left < n && memcmp(at, lit, left) == 0 &&
	    only_blanks(lit + left, lit + n) && seg + 1 == s->stop) {
		s->pos[seg + 1] = s->end;
		return 1;
	}
	return 0;
}

static int64_t finish_int(const tw_pf_field *f, uint64_t v)
{
	size_t size = f->size;
	if (size >= 8 || size == 0)
		return (int64_t)v;
	v &= (1ull << (size * 8)) - 1;
	if (f->flags & TW_PFF_SIGNED) {
		uint64_t sign = 1ull << (size * 8 - 1);
		v = (v ^ sign) - sign;
	}
	return (int64_t)v;
}

/* Turn the constraints of a match into one value per field. */
static int settle(scanner *s)
{
	const tw_pfmt *p = s->p;
	tw_pf_scan *o = s->out;
	uint64_t *known = (uint64_t *)(o->vals + p->nfields);
	memset(o->vals, 0, p->nfields * sizeof(*o->vals));
	memset(known, 0, p->nfields * sizeof(*known));
	o->nelems = 0;
	for (size_t k = 0; k < s->nc; k++) {
		const constraint *c = &s->c[k];
		if (c->field < 0 || (size_t)c->field >= p->nfields)
			continue;
		tw_pf_value *v = &o->vals[c->field];
		const tw_pf_field *f = &p->fields[c->field];
		switch (c->kind) {
		case C_BITS:
			if (c->elem >= 0) {
				/* elements: an array, in order of index */
				size_t fixed = (f->flags & TW_PFF_ARRAY) &&
							       f->elem_size
						       ? f->size / f->elem_size
						       : 0;
				if (v->type != TW_PFV_ARRAY) {
					size_t want = fixed ? fixed : 0;
					if (o->nelems + want > TW_PF_MAX_ELEMS)
						continue;
					v->type = TW_PFV_ARRAY;
					v->elem0 = (uint32_t)o->nelems;
					v->nelem = (uint16_t)want;
					memset(o->elems + o->nelems, 0,
					       want * sizeof(int64_t));
					o->nelems += want;
					v->s = c->s;
					v->slen = c->n;
					v->exact = 1;
				}
				size_t e = (size_t)c->elem;
				if (e >= v->nelem) {
					/* grow only the last array */
					if (v->elem0 + v->nelem != o->nelems ||
					    v->elem0 + e + 1 > TW_PF_MAX_ELEMS)
						continue;
					for (size_t z = v->nelem; z <= e; z++)
						o->elems[v->elem0 + z] = 0;
					o->nelems = v->elem0 + e + 1;
					v->nelem = (uint16_t)(e + 1);
				}
				int64_t *slot = &o->elems[v->elem0 + e];
				uint64_t es =
					f->elem_size >= 8
						? ~0ull
						: (1ull << (f->elem_size * 8)) -
							  1;
				*slot = (int64_t)(((uint64_t)*slot & ~c->mask) |
						  (c->v & c->mask));
				if ((c->mask & es) != es)
					v->exact = 0;
				/* text spans the conversions it came from */
				if (c->s + c->n > v->s + v->slen)
					v->slen =
						(uint32_t)(c->s + c->n - v->s);
				continue;
			}
			if (v->type != TW_PFV_INT) {
				v->type = TW_PFV_INT;
				v->s = c->s;
				v->slen = c->n;
			} else if (c->s >= v->s &&
				   c->s + c->n > v->s + v->slen) {
				/* "R+", "8,0": the text of every conversion
				 * that showed the field */
				v->slen = (uint32_t)(c->s + c->n - v->s);
			}
			v->i = (int64_t)(((uint64_t)v->i & ~c->mask) |
					 (c->v & c->mask));
			known[c->field] |= c->mask;
			if (c->label && !v->label) {
				v->label = c->label;
				v->label_len = c->label_len;
			}
			break;
		case C_STR:
			if (v->type == TW_PFV_NONE) {
				v->type = TW_PFV_STR;
				v->s = c->s;
				v->slen = c->n;
			}
			break;
		case C_TEXT:
		case C_LABEL:
		case C_SYMBOL:
			if (v->type == TW_PFV_NONE) {
				v->type = TW_PFV_TEXT;
				v->s = c->s;
				v->slen = c->n;
				if (c->kind == C_LABEL) {
					v->label = c->label;
					v->label_len = c->label_len;
				} else if (c->kind == C_SYMBOL) {
					v->label = c->s;
					v->label_len = c->n;
				}
			}
			break;
		}
	}
	for (size_t i = 0; i < p->nfields; i++) {
		tw_pf_value *v = &o->vals[i];
		const tw_pf_field *f = &p->fields[i];
		/* the label: what the labelling conversion printed, as the
		 * render of a record makes it (a number is no label) */
		int32_t ls = p->label_seg[i];
		if (ls >= 0 &&
		    (v->type == TW_PFV_INT || v->type == TW_PFV_TEXT)) {
			const char *a = s->pos[ls],
				   *b = s->pos[p->label_end[i] + 1];
			if (b > a &&
			    !(b - a >= 2 && a[0] == '0' && a[1] == 'x')) {
				v->label = a;
				v->label_len = (uint32_t)(b - a);
			} else if (v->type == TW_PFV_INT) {
				v->label = NULL;
			}
		}
		v->uns = !(f->flags & TW_PFF_SIGNED);
		v->ptr = (f->flags & TW_PFF_POINTER) != 0;
		if (v->type != TW_PFV_INT)
			continue;
		uint64_t all = f->size >= 8 || !f->size
				       ? ~0ull
				       : (1ull << (f->size * 8)) - 1;
		v->exact = (known[i] & all) == all;
		v->i = finish_int(f, (uint64_t)v->i);
	}
	return 1;
}

/* Room for the values (and the known bits of each after them) and the
 * segment positions. Return: 0, or -1 out of memory. */
static int prepare(const tw_pfmt *p, const tw_mem *mem, tw_pf_scan *out)
{
	size_t need = (p->nfields ? p->nfields : 1) *
		      (sizeof(tw_pf_value) + sizeof(uint64_t));
	if (need > out->nvals_cap * sizeof(tw_pf_value)) {
		size_t n = need / sizeof(tw_pf_value) + 1;
		tw_pf_value *v = tw_realloc(mem, out->vals, n * sizeof(*v));
		if (!v)
			return -1;
		out->vals = v;
		out->nvals_cap = n;
	}
	if (p->nsegs + 1 > out->pos_cap) {
		const char **np =
			tw_realloc(mem, out->pos, (p->nsegs + 1) * sizeof(*np));
		if (!np)
			return -1;
		out->pos = np;
		out->pos_cap = p->nsegs + 1;
	}
	return 0;
}

/* Match text from segment first to the one before stop, then settle.
 * Return: 1 matched, 0 not, -1 out of memory. */
static int run(const tw_pfmt *p, const tw_mem *mem, tw_pf_scan *out,
	       size_t first, size_t stop, const char *text, size_t len)
{
	if (prepare(p, mem, out))
		return -1;
	scanner s = {.p = p,
		     .mem = mem,
		     .text = text,
		     .end = text + len,
		     .out = out,
		     .pos = out->pos,
		     .stop = stop,
		     .c = out->work,
		     .cap = out->work_cap};
	int ok = match(&s, first, text);
	out->work = s.c;
	out->work_cap = s.cap;
	if (s.oom)
		return -1;
	return ok ? settle(&s) : 0;
}

int tw_pfmt_scan(const tw_pfmt *p, const tw_mem *mem, const char *text,
		 size_t len, tw_pf_scan *out)
{
	if (p->fallback || p->stack)
		return 0;
	return run(p, mem, out, 0, p->nsegs, text, len);
}

void tw_pf_scan_fini(const tw_mem *mem, tw_pf_scan *s)
{
	memset(s->memo, 0, sizeof(s->memo));
	tw_free(mem, s->vals);
	tw_free(mem, s->work);
	tw_free(mem, s->pos);
	s->pos = NULL;
	s->pos_cap = 0;
	s->vals = NULL;
	s->work = NULL;
	s->nvals_cap = s->work_cap = 0;
}

int tw_pfmt_scan_local(const tw_pfmt *p, const tw_mem *mem, size_t field,
		       const char *text, size_t len, tw_pf_scan *out,
		       tw_pf_value *v)
{
	if (p->fallback || field >= p->nfields ||
	    p->textform[field] != TW_PFT_LOCAL)
		return 0;
	/* direct-mapped by the text's ends and length */
	tw_pf_memo *m = NULL;
	if (len && len <= TW_PF_MEMO_TEXT) {
		unsigned h = (unsigned char)text[0] * 7u +
			     (unsigned char)text[len - 1] * 3u + (unsigned)len +
			     (unsigned)field;
		m = &out->memo[h % TW_PF_MEMO];
		if (m->p == p && m->field == field && m->len == len &&
		    memcmp(m->text, text, len) == 0) {
			*v = m->v;
			if (v->s)
				v->s = text + (uintptr_t)v->s - 1;
			if (v->label)
				v->label = text + (uintptr_t)v->label - 1;
			return 1;
		}
	}
	int rc = run(p, mem, out, p->local[2 * field],
		     (size_t)p->local[2 * field + 1] + 1, text, len);
	if (rc != 1)
		return rc;
	*v = out->vals[field];
	if (v->type == TW_PFV_NONE)
		return 0;
	/* kept when every pointer of the value is into text (offsets
	 * stored plus 1, so that NULL stays NULL) */
	int inside =
		v->type == TW_PFV_INT &&
		(!v->s || (v->s >= text && v->s <= text + len)) &&
		(!v->label || (v->label >= text && v->label <= text + len));
	if (m && inside) {
		m->p = p;
		m->field = (uint16_t)field;
		m->len = (uint8_t)len;
		memcpy(m->text, text, len);
		m->v = *v;
		if (v->s)
			m->v.s = (const char *)(uintptr_t)(v->s - text + 1);
		if (v->label)
			m->v.label =
				(const char *)(uintptr_t)(v->label - text + 1);
	}
	return 1;
}
