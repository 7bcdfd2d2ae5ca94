/* SPDX-License-Identifier: MIT */
/*
 * The print fmt's arguments parsed by trawl, straight from the format's
 * text, into the program's expression nodes: C's precedence, casts,
 * ternaries, REC->field, REC->field[i], and the helpers trace events use
 * (__print_flags, __print_symbolic, __get_str, __print_hex, ...).
 *
 * Why not libtraceevent's parsed tree: it loses parentheses
 * ("REC->flags & (A | B)" comes out as "(REC->flags & A) | B", so
 * timer_start's flags print "D|P|I" where the kernel prints nothing), and
 * damaged arguments crash its parser (fuzz-pfmt). What this parser does not
 * know leaves the tree to libtraceevent, as before.
 *
 * Grammar (highest binding last):
 *   args    -> expr { ',' expr }
 *   expr    -> lor [ '?' expr ':' expr ]
 *   lor .. mul : the binary operators of C, left to right
 *   unary   -> ('!' | '~' | '-' | '+') unary | '(' type ')' unary | postfix
 *   postfix -> primary { '[' expr ']' }
 *   primary -> number | 'c' | "string" | REC->name | helper '(' ... ')'
 *            | identifier | '(' expr ')'
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pfmt-int.h"

#define MAX_DEPTH 96

typedef struct lx {
	struct tw_pf_cc *c;
	const char *p, *end;
	int err; /* this parser cannot: leave it to libtraceevent */
	int depth;
} lx;

static int32_t expr(lx *l);
static int32_t unary(lx *l);

static void ws(lx *l)
{
	while (l->p < l->end && isspace((unsigned char)*l->p))
		l->p++;
}

static int is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Accept punctuation s (not the start of a longer operator). */
static int accept(lx *l, const char *s)
{
	ws(l);
	size_t n = strlen(s);
	if ((size_t)(l->end - l->p) < n || memcmp(l->p, s, n) != 0)
		return 0;
	char nx = l->p + n < l->end ? l->p[n] : 0;
	/* "|" is not "||", "<" not "<<" or "<=", "&" not "&&", ... */
	if (n == 1 && strchr("|&<>", s[0]) && (nx == s[0] || nx == '='))
		return 0;
	if (n == 1 && (s[0] == '!' || s[0] == '=') && nx == '=')
		return 0;
	if (n == 2 && (s[0] == '<' || s[0] == '>') && s[1] == s[0] && nx == '=')
		return 0;
	l->p += n;
	return 1;
}

static int expect(lx *l, const char *s)
{
	if (accept(l, s))
		return 1;
	l->err = 1;
	return 0;
}

static size_t ident(lx *l, const char **s)
{
	ws(l);
	const char *b = l->p;
	if (b >= l->end || !(isalpha((unsigned char)*b) || *b == '_'))
		return 0;
	while (l->p < l->end && is_ident(*l->p))
		l->p++;
	*s = b;
	return (size_t)(l->p - b);
}

static int32_t node(lx *l, pf_node n)
{
	int32_t i = tw_pf_cc_node(l->c, n);
	if (i < 0)
		l->err = 1;
	return i;
}

/* "..." with C escapes, into the pool. */
static int string(lx *l, uint32_t *at, uint32_t *len)
{
	ws(l);
	if (l->p >= l->end || *l->p != '"')
		return 0;
	char buf[1024];
	size_t n = 0;
	for (l->p++; l->p < l->end && *l->p != '"'; l->p++) {
		char ch = *l->p;
		if (ch == '\\' && l->p + 1 < l->end) {
			ch = *++l->p;
			ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch;
		}
		if (n + 1 >= sizeof(buf)) {
			l->err = 1;
			return 0;
		}
		buf[n++] = ch;
	}
	if (l->p >= l->end) {
		l->err = 1;
		return 0;
	}
	l->p++;
	/* C joins adjacent literals */
	ws(l);
	*at = tw_pf_cc_pool(l->c, buf, n);
	*len = (uint32_t)n;
	if (l->p < l->end && *l->p == '"') {
		uint32_t a2, n2;
		if (!string(l, &a2, &n2))
			return 0;
		if (!l->c) /* the syntax alone: nothing was kept */
			return 1;
		char *j = malloc(n + n2 + 1);
		if (!j) {
			l->err = 1;
			return 0;
		}
		memcpy(j, buf, n);
		memcpy(j + n, tw_pf_cc_pool_at(l->c, a2), n2);
		*at = tw_pf_cc_pool(l->c, j, n + n2);
		*len = (uint32_t)(n + n2);
		free(j);
	}
	return 1;
}

/* A field named by the next identifier, for __get_str(name) and REC->. */
static int field(lx *l)
{
	const char *s;
	size_t n = ident(l, &s);
	int f = n ? tw_pf_cc_field(l->c, s, n) : -1;
	if (f < 0)
		l->err = 1;
	return f;
}

/* { value, "name" } entries of __print_flags / __print_symbolic */
static int32_t table(lx *l, int64_t *count)
{
	int32_t first = -1;
	*count = 0;
	while (!l->err && accept(l, ",")) {
		if (!expect(l, "{"))
			break;
		int32_t v = expr(l);
		uint32_t at = 0, len = 0;
		if (v < 0 || !expect(l, ","))
			break;
		ws(l);
		if (l->p < l->end && *l->p != '"') {
			/* { -1, NULL }: the kernel's end of the table */
			int32_t z = expr(l);
			int64_t zk;
			if (z < 0 || !tw_pf_cc_const(l->c, z, &zk) || zk ||
			    !expect(l, "}"))
				break;
			continue;
		}
		if (!string(l, &at, &len) || !expect(l, "}"))
			break;
		int64_t k;
		int resolved = tw_pf_cc_const(l->c, v, &k);
		int32_t i =
			tw_pf_cc_sym(l->c, resolved ? k : 0, resolved, at, len);
		if (i < 0) {
			l->err = 1;
			break;
		}
		if (first < 0)
			first = i;
		(*count)++;
	}
	if (first < 0)
		first = tw_pf_cc_nsyms(l->c);
	return first;
}

static int32_t helper(lx *l, const char *name, size_t n)
{
#define IS(s) (n == sizeof(s) - 1 && memcmp(name, s, n) == 0)
	int32_t x, y, z;
	int f;
	int64_t k;
	pf_node nd = {0};
	if (IS("__get_str") || IS("__get_rel_str")) {
		f = field(l);
		expect(l, ")");
		return node(l, (pf_node){.op = N_FIELD, .a = f});
	}
	if (IS("__get_dynamic_array") || IS("__get_rel_dynamic_array") ||
	    IS("__get_dynamic_array_len") ||
	    IS("__get_rel_dynamic_array_len")) {
		f = field(l);
		expect(l, ")");
		nd.op = memmem(name, n, "_len", 4) ? N_DYNLEN : N_DYN;
		nd.a = f;
		return node(l, nd);
	}
	if (IS("__get_bitmask") || IS("__get_cpumask") ||
	    IS("__get_rel_bitmask") || IS("__get_rel_cpumask")) {
		f = field(l);
		expect(l, ")");
		return node(l, (pf_node){.op = N_BITMASK, .a = f});
	}
	if (IS("__print_flags") || IS("__print_flags_u64")) {
		uint32_t d, dl;
		x = expr(l);
		if (x < 0 || !expect(l, ",") || !string(l, &d, &dl))
			return -1;
		y = table(l, &k);
		expect(l, ")");
		return node(l, (pf_node){.op = N_FLAGS,
					 .a = x,
					 .b = y,
					 .c = (int32_t)d,
					 .k = k});
	}
	if (IS("__print_symbolic") || IS("__print_symbolic_u64")) {
		x = expr(l);
		if (x < 0)
			return -1;
		y = table(l, &k);
		expect(l, ")");
		return node(l,
			    (pf_node){.op = N_SYMBOL, .a = x, .b = y, .k = k});
	}
	if (IS("__print_hex") || IS("__print_hex_str")) {
		x = expr(l);
		if (x < 0 || !expect(l, ","))
			return -1;
		y = expr(l);
		expect(l, ")");
		return node(
			l, (pf_node){.op = IS("__print_hex") ? N_HEX : N_HEXSTR,
				     .a = x,
				     .b = y});
	}
	if (IS("__print_array")) {
		x = expr(l);
		if (x < 0 || !expect(l, ","))
			return -1;
		y = expr(l);
		if (y < 0 || !expect(l, ","))
			return -1;
		z = expr(l);
		expect(l, ")");
		return node(
			l, (pf_node){.op = N_INTARRAY, .a = x, .b = y, .c = z});
	}
	if (IS("sizeof")) {
		/* of a basic type: its size; of a struct we do not know */
		const char *t = l->p;
		while (l->p < l->end && *l->p != ')')
			l->p++;
		char type[64];
		size_t tn = (size_t)(l->p - t);
		if (l->p >= l->end || tn >= sizeof(type)) {
			l->err = 1;
			return -1;
		}
		memcpy(type, t, tn);
		type[tn] = '\0';
		l->p++;
		uint8_t c = tw_pf_cc_cast(l->c, type);
		if (c & (0x40 | 0x20)) { /* CAST_NONE, CAST_BOOL */
			l->err = 1;
			return -1;
		}
		return node(l, (pf_node){.op = N_CONST, .k = c & 0xf});
	}
#undef IS
	/* jiffies_to_msecs(), ...: not ours to guess */
	l->err = 1;
	return -1;
}

/* After '(': is this a cast? Type words (and '*'s) up to ')'. */
static size_t cast_len(lx *l)
{
	const char *q = l->p, *end = l->end;
	int words = 0, typeword = 0;
	for (;;) {
		while (q < end && isspace((unsigned char)*q))
			q++;
		if (q < end && *q == ')')
			break;
		if (q < end && *q == '*') {
			q++;
			typeword = 1;
			continue;
		}
		const char *w = q;
		while (q < end && is_ident(*q))
			q++;
		size_t n = (size_t)(q - w);
		if (!n)
			return 0;
		words++;
		static const char *const kw[] = {
			"unsigned", "signed", "int",	  "long",   "short",
			"char",	    "void",   "const",	  "struct", "enum",
			"bool",	    "_Bool",  "volatile", "u8",	    "u16",
			"u32",	    "u64",    "s8",	  "s16",    "s32",
			"s64",	    "uint",   "__u8",	  "__u16",  "__u32",
			"__u64",    "__s8",   "__s16",	  "__s32",  "__s64",
			"__force",  "umode_t"};
		for (size_t i = 0; i < TW_ARRAY_SIZE(kw); i++)
			if (strlen(kw[i]) == n && memcmp(w, kw[i], n) == 0)
				typeword = 1;
		if (n > 2 && w[n - 2] == '_' && w[n - 1] == 't')
			typeword = 1; /* gfp_t, size_t, pid_t, __kernel_rwf_t */
	}
	if (!words || !typeword)
		return 0;
	return (size_t)(q - l->p);
}

static int32_t primary(lx *l)
{
	ws(l);
	if (l->p >= l->end) {
		l->err = 1;
		return -1;
	}
	char ch = *l->p;
	if (ch == '(') {
		l->p++;
		/* (REC)->field, as some formats write it */
		const char *save = l->p;
		const char *w;
		if (ident(l, &w) == 3 && memcmp(w, "REC", 3) == 0 &&
		    accept(l, ")") && accept(l, "->"))
			return node(l, (pf_node){.op = N_FIELD, .a = field(l)});
		l->p = save;
		size_t cl = cast_len(l);
		if (cl) {
			char type[96];
			size_t n =
				cl < sizeof(type) - 1 ? cl : sizeof(type) - 1;
			memcpy(type, l->p, n);
			type[n] = '\0';
			l->p += cl + 1; /* and the ')' */
			int32_t x = unary(l);
			if (x < 0)
				return -1;
			return node(l,
				    (pf_node){.op = N_CAST,
					      .sub = tw_pf_cc_cast(l->c, type),
					      .a = x});
		}
		int32_t x = expr(l);
		expect(l, ")");
		return x;
	}
	if (isdigit((unsigned char)ch)) {
		char *e;
		unsigned long long v = strtoull(l->p, &e, 0);
		if (e > l->end) {
			l->err = 1;
			return -1;
		}
		l->p = e;
		while (l->p < l->end && strchr("uUlL", *l->p))
			l->p++;
		return node(l, (pf_node){.op = N_CONST, .k = (int64_t)v});
	}
	if (ch == '\'') {
		if (l->end - l->p < 3 || l->p[2] != '\'') {
			l->err = 1;
			return -1;
		}
		int64_t v = (unsigned char)l->p[1];
		l->p += 3;
		return node(l, (pf_node){.op = N_CONST, .k = v});
	}
	if (ch == '"') {
		uint32_t at, len;
		if (!string(l, &at, &len))
			return -1;
		return node(l, (pf_node){.op = N_STR, .k = at, .klen = len});
	}
	const char *s;
	size_t n = ident(l, &s);
	if (!n) {
		l->err = 1;
		return -1;
	}
	if (n == 3 && memcmp(s, "REC", 3) == 0 && accept(l, "->"))
		return node(l, (pf_node){.op = N_FIELD, .a = field(l)});
	if (accept(l, "("))
		return helper(l, s, n);
	/* a constant the format does not define: known, or unresolved */
	char name[128];
	size_t nn = n < sizeof(name) - 1 ? n : sizeof(name) - 1;
	memcpy(name, s, nn);
	name[nn] = '\0';
	int64_t v;
	if (tw_pf_constant(name, &v) == 0)
		return node(l, (pf_node){.op = N_CONST, .k = v});
	if (strcmp(name, "true") == 0 || strcmp(name, "false") == 0)
		return node(l, (pf_node){.op = N_CONST, .k = name[0] == 't'});
	uint32_t at = tw_pf_cc_pool(l->c, name, nn);
	return node(l, (pf_node){.op = N_STR, .k = at, .klen = (uint32_t)nn});
}

static int32_t postfix(lx *l)
{
	int32_t x = primary(l);
	while (x >= 0 && !l->err && accept(l, "[")) {
		int32_t i = expr(l);
		expect(l, "]");
		int f = tw_pf_cc_node_field(l->c, x);
		if (f < 0 || i < 0) {
			l->err = 1;
			return -1;
		}
		x = node(l, (pf_node){.op = N_ELEM, .a = f, .b = i});
	}
	return x;
}

static int32_t unary(lx *l)
{
	if (++l->depth > MAX_DEPTH) {
		l->err = 1;
		return -1;
	}
	int32_t x;
	int sub = accept(l, "!")   ? U_NOT
		  : accept(l, "~") ? U_BNOT
		  : accept(l, "-") ? U_NEG
		  : accept(l, "+") ? -1
				   : 0;
	if (sub) {
		x = unary(l);
		if (x >= 0 && sub > 0)
			x = node(l, (pf_node){.op = N_UN,
					      .sub = (uint8_t)sub,
					      .a = x});
	} else {
		x = postfix(l);
	}
	l->depth--;
	return l->err ? -1 : x;
}

/* The binary levels, loosest first. */
static const struct level {
	const char *ops[4];
	uint8_t subs[4];
} levels[] = {
	{{"||"}, {B_LOR}},
	{{"&&"}, {B_LAND}},
	{{"|"}, {B_OR}},
	{{"^"}, {B_XOR}},
	{{"&"}, {B_AND}},
	{{"==", "!="}, {B_EQ, B_NE}},
	{{"<=", ">=", "<", ">"}, {B_LE, B_GE, B_LT, B_GT}},
	{{"<<", ">>"}, {B_SHL, B_SHR}},
	{{"+", "-"}, {B_ADD, B_SUB}},
	{{"*", "/", "%"}, {B_MUL, B_DIV, B_MOD}},
};

static int32_t binary(lx *l, size_t lev)
{
	if (lev == TW_ARRAY_SIZE(levels))
		return unary(l);
	int32_t x = binary(l, lev + 1);
	while (x >= 0 && !l->err) {
		const struct level *v = &levels[lev];
		int sub = 0;
		for (int i = 0; i < 4 && v->ops[i] && !sub; i++)
			if (accept(l, v->ops[i]))
				sub = v->subs[i];
		if (!sub)
			break;
		int32_t y = binary(l, lev + 1);
		if (y < 0)
			return -1;
		x = node(l, (pf_node){.op = N_BIN,
				      .sub = (uint8_t)sub,
				      .a = x,
				      .b = y});
	}
	return x;
}

static int32_t expr(lx *l)
{
	if (++l->depth > MAX_DEPTH) {
		l->err = 1;
		return -1;
	}
	int32_t x = binary(l, 0);
	if (x >= 0 && !l->err && accept(l, "?")) {
		int32_t y = expr(l);
		int32_t z = expect(l, ":") ? expr(l) : -1;
		if (y < 0 || z < 0) {
			l->err = 1;
			return -1;
		}
		int64_t k;
		x = tw_pf_cc_const(l->c, x, &k)
			    ? (k ? y : z)
			    : node(l, (pf_node){.op = N_COND,
						.a = x,
						.b = y,
						.c = z});
	}
	l->depth--;
	return l->err ? -1 : x;
}

int tw_pf_parse_args(struct tw_pf_cc *c, const char *s, size_t n, int32_t *out,
		     size_t max, size_t *count)
{
	lx l = {c, s, s + n, 0, 0};
	*count = 0;
	ws(&l);
	while (!l.err && l.p < l.end) {
		if (!expect(&l, ","))
			break;
		int32_t x = expr(&l);
		if (x < 0 || *count == max) {
			l.err = 1;
			break;
		}
		out[(*count)++] = x;
		ws(&l);
	}
	return l.err ? -1 : 0;
}
