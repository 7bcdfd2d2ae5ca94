/* SPDX-License-Identifier: MIT */
/*
 * The print-format compiler: libtraceevent's parsed tree of a format's print
 * arguments (struct tep_print_arg) becomes a flat program (pfmt-int.h). The
 * format string is cut into literals and conversions here, by the kernel's
 * vsnprintf rules (a %p takes every letter and digit after it); constants
 * are folded, symbol tables evaluated once, and every field the conversions
 * name is looked up once, so running the program never touches a string.
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

typedef struct cc {
	tw_pfmt *p;
	const struct tep_event *e;
	size_t nodes_cap, segs_cap, syms_cap, pool_cap;
	uint32_t *name_at; /* pool offsets of the field names */
	int oom;
} cc;

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

/* "0x1f", "12UL", "'c'", "-3": a C integer constant. */
static int parse_const(const char *s, int64_t *out)
{
	if (!s || !*s)
		return -1;
	if (s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z'))
		return tw_pf_constant(s, out);
	if (s[0] == '\'') {
		if (s[1] && s[2] == '\'' && !s[3]) {
			*out = (unsigned char)s[1];
			return 0;
		}
		return -1;
	}
	int neg = 0;
	if (*s == '-')
		neg = 1, s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	char *end;
	unsigned long long v = strtoull(s, &end, 0);
	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	if (*end)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int field_index(cc *c, const char *name)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < c->p->nall; i++)
		if (strcmp(c->p->pool + c->name_at[i], name) == 0)
			return (int)i;
	return -1;
}

static int field_of(cc *c, const struct tep_format_field *f, const char *name)
{
	return field_index(c, f ? f->name : name);
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

static int binop_of(const char *op, int unary)
{
	static const struct {
		const char *s;
		int b;
	} ops[] = {
		{"+", B_ADD}, {"-", B_SUB},  {"*", B_MUL},   {"/", B_DIV},
		{"%", B_MOD}, {"<<", B_SHL}, {">>", B_SHR},  {"&", B_AND},
		{"|", B_OR},  {"^", B_XOR},  {"&&", B_LAND}, {"||", B_LOR},
		{"==", B_EQ}, {"!=", B_NE},  {"<", B_LT},    {">", B_GT},
		{"<=", B_LE}, {">=", B_GE},
	};
	if (unary) {
		if (strcmp(op, "!") == 0)
			return U_NOT;
		if (strcmp(op, "~") == 0)
			return U_BNOT;
		if (strcmp(op, "-") == 0)
			return U_NEG;
		if (strcmp(op, "+") == 0)
			return B_ADD; /* unary plus: 0 + x */
	}
	for (size_t i = 0; i < TW_ARRAY_SIZE(ops); i++)
		if (strcmp(op, ops[i].s) == 0)
			return ops[i].b;
	return 0;
}

static int32_t build(cc *c, const struct tep_print_arg *a, int depth);

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

/* Symbol and flag tables: each entry's value is evaluated once. */
static int32_t table(cc *c, const struct tep_print_flag_sym *f, int64_t *count)
{
	tw_pfmt *p = c->p;
	int32_t first = (int32_t)p->nsyms;
	*count = 0;
	for (; f; f = f->next) {
		if (tw_grow(p->mem, (void **)&p->syms, &c->syms_cap,
			    p->nsyms + 1, sizeof(pf_sym))) {
			c->oom = 1;
			return -1;
		}
		pf_sym s = {0};
		s.resolved = parse_const(f->value, &s.value) == 0;
		if (!s.resolved)
			p->unresolved++;
		const char *str = f->str ? f->str : "";
		s.len = (uint32_t)strlen(str);
		s.str = pool_add(c, str, s.len);
		p->syms[p->nsyms++] = s;
		(*count)++;
	}
	return first;
}

static int32_t build_op(cc *c, const struct tep_print_arg *a, int depth)
{
	const char *op = a->op.op;
	if (!op)
		return -1;
	if (strcmp(op, "?") == 0) {
		const struct tep_print_arg *r = a->op.right;
		if (!r || r->type != TEP_PRINT_OP || !r->op.op ||
		    strcmp(r->op.op, ":") != 0) {
			fail(c, TW_PF_HELPER, "?:");
			return -1;
		}
		int32_t x = build(c, a->op.left, depth + 1);
		int32_t y = build(c, r->op.left, depth + 1);
		int32_t z = build(c, r->op.right, depth + 1);
		if (x < 0 || y < 0 || z < 0)
			return -1;
		int64_t k;
		if (const_of(c, x, &k))
			return k ? y : z;
		return node_add(
			c, (pf_node){.op = N_COND, .a = x, .b = y, .c = z});
	}
	if (strcmp(op, "[") == 0) {
		const struct tep_print_arg *l = a->op.left;
		int f = l && l->type == TEP_PRINT_FIELD
				? field_of(c, l->field.field, l->field.name)
				: -1;
		int32_t idx = build(c, a->op.right, depth + 1);
		if (f < 0 || idx < 0) {
			fail(c, TW_PF_HELPER, "[]");
			return -1;
		}
		return node_add(c, (pf_node){.op = N_ELEM, .a = f, .b = idx});
	}
	const struct tep_print_arg *l = a->op.left;
	int unary = !l || l->type == TEP_PRINT_NULL;
	int sub = binop_of(op, unary);
	if (!sub) {
		fail(c, TW_PF_HELPER, op);
		return -1;
	}
	int32_t y = build(c, a->op.right, depth + 1);
	if (y < 0)
		return -1;
	if (unary) {
		if (sub == B_ADD)
			return y;
		return fold(c,
			    (pf_node){.op = N_UN, .sub = (uint8_t)sub, .a = y});
	}
	int32_t x = build(c, l, depth + 1);
	if (x < 0)
		return -1;
	return fold(
		c, (pf_node){.op = N_BIN, .sub = (uint8_t)sub, .a = x, .b = y});
}

static int32_t build(cc *c, const struct tep_print_arg *a, int depth)
{
	if (!a || depth > MAX_DEPTH || c->oom) {
		fail(c, TW_PF_HELPER, "depth");
		return -1;
	}
	int f;
	int64_t k;
	int32_t x, y, z;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		if (parse_const(a->atom.atom, &k) == 0)
			return node_add(c, (pf_node){.op = N_CONST, .k = k});
		/* a string literal (libtraceevent strips the quotes) */
		{
			size_t n = a->atom.atom ? strlen(a->atom.atom) : 0;
			uint32_t at = pool_add(
				c, a->atom.atom ? a->atom.atom : "", n);
			return node_add(c, (pf_node){.op = N_STR,
						     .k = at,
						     .klen = (uint32_t)n});
		}
	case TEP_PRINT_FIELD:
		f = field_of(c, a->field.field, a->field.name);
		if (f < 0) {
			fail(c, TW_PF_HELPER, "REC->?");
			return -1;
		}
		return node_add(c, (pf_node){.op = N_FIELD, .a = f});
	case TEP_PRINT_STRING:
		f = field_of(c, a->string.field, a->string.string);
		if (f < 0) {
			fail(c, TW_PF_HELPER, "__get_str");
			return -1;
		}
		return node_add(c, (pf_node){.op = N_FIELD, .a = f});
	case TEP_PRINT_BITMASK:
	case TEP_PRINT_CPUMASK:
		f = field_of(c, a->bitmask.field, a->bitmask.bitmask);
		if (f < 0) {
			fail(c, TW_PF_HELPER, "__get_bitmask");
			return -1;
		}
		return node_add(c, (pf_node){.op = N_BITMASK, .a = f});
	case TEP_PRINT_DYNAMIC_ARRAY:
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		f = field_of(c, a->dynarray.field, NULL);
		if (f < 0) {
			fail(c, TW_PF_HELPER, "__get_dynamic_array");
			return -1;
		}
		return node_add(
			c, (pf_node){.op = a->type == TEP_PRINT_DYNAMIC_ARRAY
						   ? N_DYN
						   : N_DYNLEN,
				     .a = f});
	case TEP_PRINT_TYPE:
		x = build(c, a->typecast.item, depth + 1);
		if (x < 0)
			return -1;
		return fold(c, (pf_node){.op = N_CAST,
					 .sub = cast_of(c, a->typecast.type),
					 .a = x});
	case TEP_PRINT_OP:
		return build_op(c, a, depth);
	case TEP_PRINT_SYMBOL:
		x = build(c, a->symbol.field, depth + 1);
		if (x < 0)
			return -1;
		y = table(c, a->symbol.symbols, &k);
		if (y < 0)
			return -1;
		return node_add(
			c, (pf_node){.op = N_SYMBOL, .a = x, .b = y, .k = k});
	case TEP_PRINT_FLAGS: {
		x = build(c, a->flags.field, depth + 1);
		if (x < 0)
			return -1;
		const char *d = a->flags.delim ? a->flags.delim : "";
		z = (int32_t)pool_add(c, d, strlen(d));
		y = table(c, a->flags.flags, &k);
		if (y < 0)
			return -1;
		return node_add(
			c,
			(pf_node){
				.op = N_FLAGS, .a = x, .b = y, .c = z, .k = k});
	}
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		x = build(c, a->hex.field, depth + 1);
		y = build(c, a->hex.size, depth + 1);
		if (x < 0 || y < 0)
			return -1;
		return node_add(c, (pf_node){.op = a->type == TEP_PRINT_HEX
							   ? N_HEX
							   : N_HEXSTR,
					     .a = x,
					     .b = y});
	case TEP_PRINT_INT_ARRAY:
		x = build(c, a->int_array.field, depth + 1);
		y = build(c, a->int_array.count, depth + 1);
		z = build(c, a->int_array.el_size, depth + 1);
		if (x < 0 || y < 0 || z < 0)
			return -1;
		return node_add(
			c, (pf_node){.op = N_INTARRAY, .a = x, .b = y, .c = z});
	case TEP_PRINT_FUNC:
		fail(c, TW_PF_HELPER, "a print function");
		return -1;
	default:
		fail(c, TW_PF_HELPER, "an argument");
		return -1;
	}
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

/* The next argument, built; NULL args mean too few. */
static int32_t next_arg(cc *c, const struct tep_print_arg **args)
{
	if (!*args) {
		fail(c, TW_PF_ARGS, "too few arguments");
		return -1;
	}
	const struct tep_print_arg *a = *args;
	*args = a->next;
	return build(c, a, 0);
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

static int parse_format(cc *c, const char *fmt,
			const struct tep_print_arg *args)
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
			g.width_expr = next_arg(c, &args);
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
				g.prec_expr = next_arg(c, &args);
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
		g.expr = next_arg(c, &args);
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
	if (!c->p->fallback && args)
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

/* Per field: plain "name=%d" text, and the conversion labelling it. */
static int classify(cc *c)
{
	tw_pfmt *p = c->p;
	size_t n = p->nfields ? p->nfields : 1;
	p->textform = tw_calloc(p->mem, n, 1);
	p->label_seg = tw_malloc(p->mem, n * sizeof(int32_t));
	if (!p->textform || !p->label_seg)
		return -1;
	for (size_t i = 0; i < p->nfields; i++)
		p->label_seg[i] = -1;
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
		if (l >= 0 && (size_t)l < p->nfields && p->label_seg[l] < 0)
			p->label_seg[l] = (int32_t)s;
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
	tw_free(p->mem, uses);
	return 0;
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
		size_t end = (size_t)f->offset +
			     (f->flags & TW_PFF_DYNAMIC ? 4 : f->size);
		if (end > p->min_len)
			p->min_len = end;
		if (f->flags & TW_PFF_DYNAMIC)
			p->dynamic[p->ndynamic++] = (uint32_t)i;
	}
	return 0;
}

tw_pfmt *tw_pfmt_compile(const tw_mem *mem, const struct tep_event *e,
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
	if ((e->flags & TEP_EVENT_FL_FAILED) || !e->print_fmt.format)
		fail(&c, TW_PF_NO_FORMAT, "libtraceevent could not parse it");
	else if (parse_format(&c, e->print_fmt.format, e->print_fmt.args) &&
		 c.oom)
		goto oom; /* otherwise it fell back, and says why */
	if (c.oom)
		goto oom;
	for (size_t i = 0; i < p->nall; i++)
		p->fields[i].name = p->pool + c.name_at[i];
	if (classify(&c) || layout_bounds(p))
		goto oom;
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
	tw_free(m, p->label_seg);
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
		"compiled",	  "no print format", "printf conversion",
		"%p extension",	  "helper",	     "unresolved symbol",
		"argument count",
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

int tw_pfmt_textform(const tw_pfmt *p, size_t field)
{
	return field < p->nfields && !p->fallback ? p->textform[field]
						  : TW_PFT_NONE;
}
