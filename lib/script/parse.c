/* SPDX-License-Identifier: MIT */
/*
 * The parser: recursive descent over the tokens of lex.c, building the
 * tree of script-int.h. Each function opens with its production. Errors
 * name the line and column of the token where the parse failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "script-int.h"

static void next(tw_compiler *c)
{
	if (c->have_peek) {
		c->tok = c->peek;
		c->have_peek = 0;
	} else {
		tw_lex_next(c, &c->tok, 0);
	}
}

static const tw_token *peek(tw_compiler *c)
{
	if (!c->have_peek) {
		tw_lex_next(c, &c->peek, 0);
		c->have_peek = 1;
	}
	return &c->peek;
}

static void show(const tw_token *t, char *buf, size_t n)
{
	if (t->kind == TK_EOF)
		snprintf(buf, n, "end of input");
	else if (t->kind == TK_STR)
		snprintf(buf, n, "a string");
	else if (t->kind == TK_MAP || t->kind == TK_VAR)
		snprintf(buf, n, "'%c%.*s'", t->kind == TK_MAP ? '@' : '$',
			 (int)(t->len > 40 ? 40 : t->len), t->text);
	else
		snprintf(buf, n, "'%.*s'", (int)(t->len > 40 ? 40 : t->len),
			 t->text);
}

__attribute__((noreturn)) static void expected(tw_compiler *c, const char *what)
{
	char got[64];
	show(&c->tok, got, sizeof(got));
	tw_sc_error(c, TRAWL_EPARSE, c->tok.line, c->tok.col,
		    "expected %s, found %s", what, got);
}

static void expect(tw_compiler *c, int kind)
{
	if (c->tok.kind != kind) {
		char what[32];
		snprintf(what, sizeof(what), "'%s'", tw_tok_name(kind));
		expected(c, what);
	}
	next(c);
}

static int is_ident(const tw_token *t, const char *s)
{
	return t->kind == TK_IDENT && strlen(s) == t->len &&
	       memcmp(t->text, s, t->len) == 0;
}

static char *dup(tw_compiler *c, const char *s, size_t n)
{
	char *p = tw_arena_strndup(&c->arena, s, n);
	if (!p)
		tw_sc_oom(c);
	return p;
}

static tw_node *node(tw_compiler *c, int kind, const tw_token *at)
{
	tw_node *n = tw_sc_alloc(c, sizeof(*n));
	n->kind = kind;
	n->line = at->line;
	n->col = at->col;
	return n;
}

static void add_kid(tw_compiler *c, tw_node *n, tw_node *kid, size_t *cap)
{
	tw_sc_grow(c, (void **)&n->kids, cap, n->nkids + 1, sizeof(*n->kids));
	n->kids[n->nkids++] = kid;
}

static tw_node *expr(tw_compiler *c);
static tw_node *unary(tw_compiler *c);
static int upper_name(const tw_token *t);
static tw_node *block(tw_compiler *c);
static tw_node *stmt(tw_compiler *c);

/* An expression node is complete: its height, which must stay bounded
 * (a + a + ... builds a left-deep tree without recursing here). */
static tw_node *done(tw_compiler *c, tw_node *n)
{
	int h = 0;
	const tw_node *sub[3] = {n->a, n->b, n->c};
	for (int i = 0; i < 3; i++)
		if (sub[i] && sub[i]->height > h)
			h = sub[i]->height;
	for (size_t i = 0; i < n->nkids; i++)
		if (n->kids[i]->height > h)
			h = n->kids[i]->height;
	n->height = h + 1;
	if (n->height > TW_SC_MAX_DEPTH)
		tw_sc_error(c, TRAWL_ELIMIT, n->line, n->col,
			    "expression nested too deep (more than %d levels)",
			    TW_SC_MAX_DEPTH);
	return n;
}

/* Statements nest by recursion: bounded too. */
static void enter(tw_compiler *c, const tw_token *at)
{
	if (++c->depth > TW_SC_MAX_DEPTH)
		tw_sc_error(c, TRAWL_ELIMIT, at->line, at->col,
			    "nested too deep (more than %d levels)",
			    TW_SC_MAX_DEPTH);
}

/* args -> '(' [ expr { ',' expr } ] ')' */
static void call_args(tw_compiler *c, tw_node *n)
{
	size_t cap = 0;
	enter(c, &c->tok);
	expect(c, TK_LPAREN);
	c->paren_depth++;
	if (c->tok.kind != TK_RPAREN) {
		for (;;) {
			add_kid(c, n, expr(c), &cap);
			if (c->tok.kind != TK_COMMA)
				break;
			next(c);
		}
	}
	c->paren_depth--;
	expect(c, TK_RPAREN);
	c->depth--;
}

/* mapref -> MAP [ '[' expr { ',' expr } ']' ] */
static tw_node *mapref(tw_compiler *c)
{
	tw_node *n = node(c, N_MAPGET, &c->tok);
	n->name = dup(c, c->tok.text, c->tok.len);
	n->len = c->tok.len;
	next(c);
	if (c->tok.kind == TK_LBRACKET) {
		size_t cap = 0;
		enter(c, &c->tok);
		next(c);
		c->paren_depth++;
		for (;;) {
			add_kid(c, n, expr(c), &cap);
			if (c->tok.kind != TK_COMMA)
				break;
			next(c);
		}
		c->paren_depth--;
		expect(c, TK_RBRACKET);
		c->depth--;
		if (n->nkids > TW_SC_MAX_KEYS)
			tw_sc_error(c, TRAWL_EPARSE, n->line, n->col,
				    "a map key has at most %d parts",
				    TW_SC_MAX_KEYS);
	}
	return done(c, n);
}

static const struct {
	const char *name;
	int id;
} ctx_names[] = {
	{"ts", CX_TS},		 {"nsecs", CX_TS},
	{"usecs", CX_USECS},	 {"cpu", CX_CPU},
	{"pid", CX_PID},	 {"tid", CX_TID},
	{"tgid", CX_TGID},	 {"comm", CX_COMM},
	{"event", CX_EVENT},	 {"probe", CX_PROBE},
	{"elapsed", CX_ELAPSED}, {"uid", CX_UID},
	{"gid", CX_GID},	 {"curtask", CX_CURTASK},
	{"cgroup", CX_CGROUP},	 {"username", CX_USERNAME},
	{"arg0", CX_ARG0},	 {"arg1", CX_ARG0 + 1},
	{"arg2", CX_ARG0 + 2},	 {"arg3", CX_ARG0 + 3},
	{"arg4", CX_ARG0 + 4},	 {"arg5", CX_ARG5},
	{"retval", CX_RETVAL},	 {"func", CX_FUNC},
};

/* bpftrace's builtins that no event of the ftrace back end carries: a
 * clear refusal instead of "unknown name". */
static const char *const bpf_only_names[] = {"ustack", "cpid",	 "rand",
					     "sarg0",  "numaid", "jiffies"};

/* Functions that need a probe in the kernel (the BPF back end): what
 * each reads or does that the ftrace back end's events cannot give. */
static const struct {
	const char *name, *why;
} bpf_only_calls[] = {
	{"uaddr", "gives a user address, whose memory only a probe in the "
		  "kernel can read"},
	{"kptr", "reads kernel memory"},
	{"uptr", "reads the task's memory"},
	{"buf", "reads memory at the probe"},
	{"path", "reads a struct path in the kernel"},
	{"reg", "reads the registers at the probe"},
	{"signal", "sends a signal from the probe"},
	{"override", "changes a function's return value"},
	{"skboutput", "copies packets from the probe"},
	{"percpu_kaddr", "reads kernel memory"},
	{"socket_cookie", "reads a socket in the kernel"},
	{"sizeof", "needs the kernel's types (BTF)"},
	{"offsetof", "needs the kernel's types (BTF)"},
	{"ustack", "walks the task's stack at the probe"},
};

/* bpftrace's functions that could be here but are not yet. */
static const char *const not_yet_calls[] = {
	"usym",	   "pton",     "macaddr",     "cgroupid", "system",
	"cat",	   "strerror", "cgroup_path", "unwatch",  "len",
	"has_key", "debugf",   "errorf"};

/* bpftrace's integer types: a cast keeps the low bits, signed ones
 * sign-extended */
static const struct {
	const char *name;
	int bits, is_signed;
} int_types[] = {
	{"int8", 8, 1},	   {"uint8", 8, 0},   {"int16", 16, 1},
	{"uint16", 16, 0}, {"int32", 32, 1},  {"uint32", 32, 0},
	{"int64", 64, 1},  {"uint64", 64, 0},
};

static const struct {
	const char *name;
	int id;
} call_names[] = {
	{"strlen", CALL_STRLEN},
	{"strncmp", CALL_STRNCMP},
	{"strcontains", CALL_STRCONTAINS},
	{"str", CALL_STR},
	{"ksym", CALL_KSYM},
	{"ntop", CALL_NTOP},
	{"bswap", CALL_BSWAP},
	{"kaddr", CALL_KADDR},
	{"strftime", CALL_STRFTIME},
};

static const struct {
	const char *name;
	int kind;
} agg_names[] = {
	{"count", MV_COUNT}, {"sum", MV_SUM},	  {"avg", MV_AVG},
	{"min", MV_MIN},     {"max", MV_MAX},	  {"stats", MV_STATS},
	{"hist", MV_HIST},   {"lhist", MV_LHIST},
};

static int agg_of(const tw_token *t)
{
	for (size_t i = 0; i < TW_ARRAY_SIZE(agg_names); i++)
		if (is_ident(t, agg_names[i].name))
			return agg_names[i].kind;
	return 0;
}

/* A positional parameter, $N or $#: a constant, known now. */
static tw_node *positional(tw_compiler *c, const tw_token *t)
{
	tw_node *n = node(c, N_INT, t);
	if (c->max_param >= 0 && (t->ival < 0 || t->ival > c->max_param))
		c->max_param = t->ival;
	if (t->ival < 0) {
		n->ival = (int64_t)c->nparams;
		return n;
	}
	if ((uint64_t)t->ival > c->nparams)
		return n; /* not given: 0, as in bpftrace */
	const char *v = c->params[t->ival - 1];
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 0);
	if (*v && !*end && !errno) {
		n->ival = x;
		return n;
	}
	n->kind = N_STR;
	n->len = strlen(v);
	n->name = dup(c, v, n->len);
	return n;
}

static tw_node *cast_bits(tw_compiler *c, const tw_token *at, int bits,
			  int is_signed, tw_node *x);

/* cast -> '(' INTTYPE ')' unary: the low bits, as bpftrace's (uint8)x:
 * x & mask, and for signed types ((x & mask) ^ sign) - sign */
static tw_node *cast(tw_compiler *c, const tw_token *at, int bits,
		     int is_signed, tw_node *x)
{
	if (bits == 64)
		return x;
	tw_node *r = cast_bits(c, at, bits, is_signed, x);
	r->width = bits / 8; /* bswap() swaps as many bytes */
	return r;
}

static tw_node *cast_bits(tw_compiler *c, const tw_token *at, int bits,
			  int is_signed, tw_node *x)
{
	tw_node *mask = node(c, N_INT, at);
	mask->ival = (int64_t)((1ull << bits) - 1);
	tw_node *n = node(c, N_BINARY, at);
	n->op = TK_AMP;
	n->a = x;
	n->b = mask;
	n = done(c, n);
	if (!is_signed)
		return n;
	tw_node *sign = node(c, N_INT, at), *sign2 = node(c, N_INT, at);
	sign->ival = sign2->ival = (int64_t)(1ull << (bits - 1));
	tw_node *x2 = node(c, N_BINARY, at);
	x2->op = TK_CARET;
	x2->a = n;
	x2->b = sign;
	tw_node *s = node(c, N_BINARY, at);
	s->op = TK_MINUS;
	s->a = done(c, x2);
	s->b = sign2;
	return done(c, s);
}

/* kstack | kstack(LIMIT) | kstack(MODE [, LIMIT]), MODE bpftrace or perf
 * (bpftrace's); the type carries both */
static tw_node *kstack(tw_compiler *c, const tw_token *t)
{
	tw_node *n = node(c, N_CTX, t);
	n->op = CX_KSTACK;
	n->name = "kstack";
	int64_t limit = TW_SC_STACK_MAX, perf = 0;
	next(c);
	if (c->tok.kind == TK_LPAREN) {
		next(c);
		if (c->tok.kind == TK_IDENT) {
			if (is_ident(&c->tok, "perf"))
				perf = 1;
			else if (!is_ident(&c->tok, "bpftrace"))
				expected(c, "bpftrace or perf (kstack's mode)");
			next(c);
			if (c->tok.kind == TK_COMMA)
				next(c);
		}
		if (c->tok.kind == TK_INT) {
			limit = c->tok.ival;
			if (limit < 1 || limit > TW_SC_STACK_MAX)
				tw_sc_error(c, TRAWL_EPARSE, c->tok.line,
					    c->tok.col,
					    "kstack's limit is 1 to %d frames",
					    TW_SC_STACK_MAX);
			next(c);
		}
		expect(c, TK_RPAREN);
	}
	n->ival = limit | perf << 8;
	return n;
}

/*
 * primary -> INT | STR | VAR | POSITIONAL | mapref | '(' expr ')'
 *          | '(' INTTYPE ')' unary
 *          | 'args' '.' NAME | CONTEXT | CALL args
 */
static tw_node *primary(tw_compiler *c)
{
	tw_token t = c->tok;
	tw_node *n;
	switch (t.kind) {
	case TK_INT:
		n = node(c, N_INT, &t);
		n->ival = t.ival;
		next(c);
		return n;
	case TK_STR:
		n = node(c, N_STR, &t);
		n->name = t.text;
		n->len = t.len;
		next(c);
		return n;
	case TK_VAR:
		n = node(c, N_VAR, &t);
		n->name = dup(c, t.text, t.len);
		n->len = t.len;
		next(c);
		return n;
	case TK_POSITIONAL:
		next(c);
		return positional(c, &t);
	case TK_MAP:
		return mapref(c);
	case TK_LPAREN:
		enter(c, &t);
		next(c);
		if (c->tok.kind == TK_IDENT && is_ident(&c->tok, "struct")) {
			/* (struct NAME *) unary: a pointer to a kernel type */
			n = node(c, N_PCAST, &c->tok);
			next(c);
			if (c->tok.kind != TK_IDENT)
				expected(c, "a struct's name after struct");
			n->name = dup(c, c->tok.text, c->tok.len);
			n->len = c->tok.len;
			next(c);
			if (c->tok.kind != TK_STAR)
				tw_sc_error(c, TRAWL_EPARSE, c->tok.line,
					    c->tok.col,
					    "a cast to a struct is to a "
					    "pointer: (struct %s *)",
					    n->name);
			next(c);
			expect(c, TK_RPAREN);
			c->depth--;
			n->a = unary(c);
			return done(c, n);
		}
		if (c->tok.kind == TK_IDENT && peek(c)->kind == TK_RPAREN) {
			for (size_t i = 0; i < TW_ARRAY_SIZE(int_types); i++)
				if (is_ident(&c->tok, int_types[i].name)) {
					next(c);
					next(c);
					c->depth--;
					return cast(c, &t, int_types[i].bits,
						    int_types[i].is_signed,
						    unary(c));
				}
		}
		c->paren_depth++;
		n = expr(c);
		c->depth--;
		c->paren_depth--;
		expect(c, TK_RPAREN);
		return n;
	case TK_IDENT:
		break;
	default:
		expected(c, "an expression");
	}
	if (is_ident(&t, "args")) {
		next(c);
		/* args->FIELD is bpftrace's older spelling of args.FIELD */
		if (c->tok.kind != TK_DOT && c->tok.kind != TK_ARROW)
			expected(c, "'.' or '->' after args (args.FIELD)");
		next(c);
		if (c->tok.kind != TK_IDENT)
			expected(c, "a field name after args.");
		n = node(c, N_FIELD, &c->tok);
		n->name = dup(c, c->tok.text, c->tok.len);
		n->len = c->tok.len;
		next(c);
		if (c->tok.kind == TK_LBRACKET) {
			/* args.FIELD[index]: an element of an array field */
			enter(c, &c->tok);
			next(c);
			c->paren_depth++;
			n->a = expr(c);
			c->paren_depth--;
			expect(c, TK_RBRACKET);
			c->depth--;
			n = done(c, n);
		}
		return n; /* args.rqtp->tv_sec: postfix() */
	}
	for (size_t i = 0; i < TW_ARRAY_SIZE(call_names); i++) {
		if (is_ident(&t, call_names[i].name)) {
			n = node(c, N_CALL, &t);
			n->op = call_names[i].id;
			n->name = call_names[i].name;
			next(c);
			call_args(c, n);
			return done(c, n);
		}
	}
	if (is_ident(&t, "kstack"))
		return kstack(c, &t);
	for (size_t i = 0; i < TW_ARRAY_SIZE(ctx_names); i++) {
		if (is_ident(&t, ctx_names[i].name)) {
			n = node(c, N_CTX, &t);
			n->op = ctx_names[i].id;
			n->name = ctx_names[i].name;
			next(c);
			return n;
		}
	}
	int64_t k;
	if (tw_const_lookup(t.text, t.len, &k)) {
		n = node(c, N_INT, &t);
		n->ival = k;
		next(c);
		return n;
	}
	for (size_t i = 0; i < TW_ARRAY_SIZE(bpf_only_names); i++)
		if (is_ident(&t, bpf_only_names[i]))
			tw_sc_error(c, TRAWL_EPARSE, t.line, t.col,
				    "'%s' is not in the events the ftrace "
				    "back end records; it needs the BPF back "
				    "end (issue 24)",
				    bpf_only_names[i]);
	if (peek(c)->kind == TK_LPAREN) {
		if (is_ident(&t, "join"))
			tw_sc_error(c, TRAWL_EPARSE, t.line, t.col,
				    "join() prints the strings: a statement "
				    "of its own, not a value");
		for (size_t i = 0; i < TW_ARRAY_SIZE(bpf_only_calls); i++)
			if (is_ident(&t, bpf_only_calls[i].name))
				tw_sc_error(
					c, TRAWL_EPARSE, t.line, t.col,
					"%s() %s: it needs the BPF back end "
					"(issue 24), which the ftrace back "
					"end is not",
					bpf_only_calls[i].name,
					bpf_only_calls[i].why);
		for (size_t i = 0; i < TW_ARRAY_SIZE(not_yet_calls); i++)
			if (is_ident(&t, not_yet_calls[i]))
				tw_sc_error(c, TRAWL_EPARSE, t.line, t.col,
					    "%s() is bpftrace's but not yet "
					    "trawl's",
					    not_yet_calls[i]);
	}
	if (agg_of(&t))
		tw_sc_error(c, TRAWL_EPARSE, t.line, t.col,
			    "%.*s() is an aggregate: assign it to a map "
			    "(@m[key] = %.*s(...))",
			    (int)t.len, t.text, (int)t.len, t.text);
	if (peek(c)->kind != TK_LPAREN && upper_name(&t)) {
		/* SKB_DROP_REASON_NOT_SPECIFIED: maybe a kernel enum's */
		n = node(c, N_ENUMC, &t);
		n->name = dup(c, t.text, t.len);
		n->len = t.len;
		next(c);
		return n;
	}
	tw_sc_error(
		c, TRAWL_EPARSE, t.line, t.col,
		"unknown name '%.*s' (context: ts nsecs usecs elapsed cpu pid "
		"tid tgid comm event probe; fields: args.NAME; variables: "
		"$name)",
		(int)(t.len > 64 ? 64 : t.len), t.text);
}

/* postfix -> primary ( '->' NAME | '.' NAME )*: a member of the kernel
 * struct a pointer points to, or of a struct member ($t->se.vruntime) */
static tw_node *postfix(tw_compiler *c, tw_node *n)
{
	while (c->tok.kind == TK_ARROW || c->tok.kind == TK_DOT) {
		tw_node *m = node(c, N_MEMBER, &c->tok);
		m->op = c->tok.kind;
		m->a = n;
		next(c);
		if (c->tok.kind != TK_IDENT)
			expected(c, "a member's name");
		m->name = dup(c, c->tok.text, c->tok.len);
		m->len = c->tok.len;
		next(c);
		n = done(c, m);
	}
	return n;
}

/* An all-capitals name (digits and '_' too), as C constants are. */
static int upper_name(const tw_token *t)
{
	if (t->len < 2 || !(t->text[0] >= 'A' && t->text[0] <= 'Z'))
		return 0;
	for (size_t i = 0; i < t->len; i++) {
		char ch = t->text[i];
		if (!((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '_'))
			return 0;
	}
	return 1;
}

/* unary -> ( '-' | '!' | '~' ) unary | postfix */
static tw_node *unary(tw_compiler *c)
{
	/* '*' p: the 8 bytes at kernel address p (loads.bt's *$avenrun) */
	if (c->tok.kind == TK_MINUS || c->tok.kind == TK_BANG ||
	    c->tok.kind == TK_TILDE || c->tok.kind == TK_STAR) {
		tw_node *n = node(c, N_UNARY, &c->tok);
		n->op = c->tok.kind;
		enter(c, &c->tok);
		next(c);
		n->a = unary(c);
		c->depth--;
		return done(c, n);
	}
	return postfix(c, primary(c));
}

/* Binary precedence, C's; 0: not a binary operator here. */
static int prec(tw_compiler *c, int kind)
{
	switch (kind) {
	case TK_OROR:
		return 1;
	case TK_ANDAND:
		return 2;
	case TK_PIPE:
		return 3;
	case TK_CARET:
		return 4;
	case TK_AMP:
		return 5;
	case TK_EQ:
	case TK_NE:
		return 6;
	case TK_LT:
	case TK_LE:
	case TK_GT:
	case TK_GE:
		return 7;
	case TK_SHL:
	case TK_SHR:
		return 8;
	case TK_PLUS:
	case TK_MINUS:
		return 9;
	case TK_SLASH:
		/* in a predicate /.../ a '/' outside parentheses ends it */
		return c->in_pred && c->paren_depth == 0 ? 0 : 10;
	case TK_STAR:
	case TK_PERCENT:
		return 10;
	default:
		return 0;
	}
}

/* binary -> unary { BINOP unary }, by precedence climbing */
static tw_node *binary(tw_compiler *c, int min)
{
	tw_node *l = unary(c);
	for (;;) {
		int p = prec(c, c->tok.kind);
		if (p == 0 || p < min)
			return l;
		tw_token op = c->tok;
		next(c);
		tw_node *r = binary(c, p + 1);
		tw_node *n = node(c,
				  op.kind == TK_ANDAND ? N_AND
				  : op.kind == TK_OROR ? N_OR
						       : N_BINARY,
				  &op);
		n->op = op.kind;
		n->a = l;
		n->b = r;
		l = done(c, n);
	}
}

/* expr -> binary [ '?' expr ':' expr ] */
static tw_node *expr(tw_compiler *c)
{
	tw_node *e = binary(c, 1);
	if (c->tok.kind != TK_QUESTION)
		return e;
	tw_node *n = node(c, N_COND, &c->tok);
	enter(c, &c->tok);
	next(c);
	c->paren_depth++;
	n->a = e;
	n->b = expr(c);
	expect(c, TK_COLON);
	c->paren_depth--;
	n->c = expr(c);
	c->depth--;
	return done(c, n);
}

static int assign_op(int kind)
{
	switch (kind) {
	case TK_ASSIGN:
	case TK_ADD_ASSIGN:
	case TK_SUB_ASSIGN:
	case TK_MUL_ASSIGN:
	case TK_DIV_ASSIGN:
	case TK_MOD_ASSIGN:
	case TK_AND_ASSIGN:
	case TK_OR_ASSIGN:
	case TK_XOR_ASSIGN:
	case TK_SHL_ASSIGN:
	case TK_SHR_ASSIGN:
		return 1;
	default:
		return 0;
	}
}

/*
 * assign -> ( VAR | mapref ) ( ASSIGNOP expr | '++' | '--' )
 *         | mapref '=' AGGREGATE args
 */
static tw_node *assignment(tw_compiler *c, tw_node *target)
{
	tw_token op = c->tok;
	tw_node *n = node(c, target->kind == N_VAR ? N_SETVAR : N_SETMAP, &op);
	n->a = target;
	n->line = target->line; /* errors point at what is assigned */
	n->col = target->col;
	if (op.kind == TK_INC || op.kind == TK_DEC) {
		next(c);
		n->op = op.kind == TK_INC ? TK_ADD_ASSIGN : TK_SUB_ASSIGN;
		n->b = node(c, N_INT, &op);
		n->b->ival = 1;
		return n;
	}
	if (!assign_op(op.kind))
		expected(c, "'=', an assignment operator, '++' or '--'");
	next(c);
	n->op = op.kind;
	int agg = agg_of(&c->tok);
	if (agg && peek(c)->kind == TK_LPAREN) {
		if (target->kind != N_MAPGET || op.kind != TK_ASSIGN)
			tw_sc_error(c, TRAWL_EPARSE, c->tok.line, c->tok.col,
				    "an aggregate is assigned to a map with "
				    "'=' (@m[key] = %.*s(...))",
				    (int)c->tok.len, c->tok.text);
		n->kind = N_AGG;
		n->op = agg;
		n->line = c->tok.line;
		n->col = c->tok.col;
		next(c);
		call_args(c, n);
		return n;
	}
	n->b = expr(c);
	return n;
}

/* A statement call: printf, print, delete, clear, exit. */
static tw_node *stmt_call(tw_compiler *c, int kind)
{
	tw_node *n = node(c, kind, &c->tok);
	next(c);
	call_args(c, n);
	return n;
}

/*
 * stmt -> block | 'if' '(' expr ')' stmt [ 'else' stmt ]
 *       | 'while' '(' expr ')' stmt | 'unroll' '(' INT ')' stmt
 *       | 'break' | 'continue'
 *       | 'printf' args | 'print' args | 'delete' args | 'clear' args
 *       | 'exit' args | assign | expr
 */
static tw_node *stmt_at(tw_compiler *c)
{
	tw_token t = c->tok;
	tw_node *n;
	if (t.kind == TK_LBRACE)
		return block(c);
	if (is_ident(&t, "if")) {
		n = node(c, N_IF, &t);
		next(c);
		expect(c, TK_LPAREN);
		c->paren_depth++;
		n->a = expr(c);
		c->paren_depth--;
		expect(c, TK_RPAREN);
		n->b = stmt(c);
		if (is_ident(&c->tok, "else")) {
			next(c);
			n->c = stmt(c);
		}
		return n;
	}
	if (is_ident(&t, "while")) {
		n = node(c, N_WHILE, &t);
		next(c);
		expect(c, TK_LPAREN);
		c->paren_depth++;
		n->a = expr(c);
		c->paren_depth--;
		expect(c, TK_RPAREN);
		n->b = stmt(c);
		return n;
	}
	if (is_ident(&t, "unroll") && peek(c)->kind == TK_LPAREN) {
		/* unroll (N) stmt: the statement N times (1 to 100, as
		 * bpftrace), the same tree each time */
		next(c);
		expect(c, TK_LPAREN);
		tw_token k = c->tok;
		if (k.kind != TK_INT || k.ival < 1 || k.ival > 100)
			tw_sc_error(c, TRAWL_EPARSE, k.line, k.col,
				    "unroll takes a number from 1 to 100");
		next(c);
		expect(c, TK_RPAREN);
		/* nested unrolls multiply: bounded, as the code they make */
		int64_t outer = c->unroll_mult ? c->unroll_mult : 1;
		if (outer * k.ival > 10000)
			tw_sc_error(c, TRAWL_ELIMIT, k.line, k.col,
				    "unroll: more than 10000 copies in all "
				    "(nested unrolls multiply)");
		c->unroll_mult = outer * k.ival;
		tw_node *body = stmt(c);
		c->unroll_mult = outer;
		n = node(c, N_BLOCK, &t);
		size_t cap = 0;
		for (int64_t i = 0; i < k.ival; i++)
			add_kid(c, n, body, &cap);
		return n;
	}
	if (is_ident(&t, "break") || is_ident(&t, "continue")) {
		n = node(c, t.len == 5 ? N_BREAK : N_CONTINUE, &t);
		next(c);
		return n;
	}
	if (is_ident(&t, "printf"))
		return stmt_call(c, N_PRINTF);
	if (is_ident(&t, "print"))
		return stmt_call(c, N_PRINTMAP);
	if (is_ident(&t, "delete"))
		return stmt_call(c, N_DELETE);
	if (is_ident(&t, "clear"))
		return stmt_call(c, N_CLEAR);
	if (is_ident(&t, "zero") && peek(c)->kind == TK_LPAREN)
		return stmt_call(c, N_ZERO);
	if (is_ident(&t, "exit"))
		return stmt_call(c, N_EXIT);
	if (is_ident(&t, "join") && peek(c)->kind == TK_LPAREN)
		return stmt_call(c, N_JOIN);
	if (is_ident(&t, "time") && peek(c)->kind == TK_LPAREN)
		return stmt_call(c, N_TIME);
	if (t.kind == TK_VAR || t.kind == TK_MAP) {
		tw_node *target = primary(c);
		if (assign_op(c->tok.kind) || c->tok.kind == TK_INC ||
		    c->tok.kind == TK_DEC)
			return assignment(c, target);
		expected(c, "an assignment ('=', '+=', '++', ...)");
	}
	n = node(c, N_EXPRSTMT, &t);
	n->a = expr(c);
	return n;
}

static tw_node *stmt(tw_compiler *c)
{
	enter(c, &c->tok);
	tw_node *n = stmt_at(c);
	c->depth--;
	return n;
}

/* block -> '{' { stmt [ ';' ] } '}'; the token after it is read unless
 * this is a probe's body (the next probe begins in probe mode). */
static tw_node *block_at(tw_compiler *c, int advance)
{
	tw_node *b = node(c, N_BLOCK, &c->tok);
	size_t cap = 0;
	expect(c, TK_LBRACE);
	while (c->tok.kind != TK_RBRACE) {
		if (c->tok.kind == TK_EOF)
			expected(c, "'}'");
		if (c->tok.kind == TK_SEMI) {
			next(c);
			continue;
		}
		tw_node *s = stmt(c);
		add_kid(c, b, s, &cap);
		if (c->tok.kind == TK_SEMI)
			next(c);
		else if (c->tok.kind != TK_RBRACE && s->kind != N_BLOCK &&
			 s->kind != N_IF && s->kind != N_WHILE)
			expected(c, "';' or '}'");
	}
	if (advance)
		next(c);
	return b;
}

static tw_node *block(tw_compiler *c)
{
	return block_at(c, 1);
}

static int64_t unit_ns(const char *u, size_t n)
{
	static const struct {
		const char *u;
		int64_t ns;
	} units[] = {{"s", 1000000000},
		     {"ms", 1000000},
		     {"us", 1000},
		     {"ns", 1},
		     {"hz", -1}};
	for (size_t i = 0; i < TW_ARRAY_SIZE(units); i++)
		if (strlen(units[i].u) == n && memcmp(u, units[i].u, n) == 0)
			return units[i].ns;
	return 0;
}

/* interval:1s, interval:100ms, interval:s:1 (bpftrace's form) */
static int64_t interval_of(tw_compiler *c, const tw_token *t, const char *p,
			   size_t n)
{
	const char *colon = memchr(p, ':', n);
	const char *num = p, *unit;
	size_t nlen, ulen;
	if (colon) {
		unit = p;
		ulen = (size_t)(colon - p);
		num = colon + 1;
		nlen = n - ulen - 1;
	} else {
		nlen = 0;
		while (nlen < n && num[nlen] >= '0' && num[nlen] <= '9')
			nlen++;
		unit = num + nlen;
		ulen = n - nlen;
	}
	int64_t v = 0;
	for (size_t i = 0; i < nlen; i++) {
		if (num[i] < '0' || num[i] > '9' || v > INT64_MAX / 10 - 10)
			nlen = 0;
		else
			v = v * 10 + (num[i] - '0');
	}
	int64_t u = unit_ns(unit, ulen);
	if (nlen == 0 || v == 0 || u == 0)
		tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
			    "cannot read interval '%.*s' (interval:1s, "
			    "interval:100ms, interval:s:1)",
			    (int)t->len, t->text);
	if (u < 0) /* hz */
		return 1000000000 / v > 0 ? 1000000000 / v : 1;
	if (v > INT64_MAX / u)
		tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
			    "interval too long");
	return v * u;
}

/* perf's software events as bpftrace names them (software:NAME[:N]),
 * PERF_COUNT_SW_* in config, and bpftrace's sample period when no N is
 * given */
static const struct {
	const char *name, *alias;
	uint64_t config;
	int64_t period;
} software_events[] = {
	{"cpu-clock", "cpu", 0, 1000000},  {"task-clock", NULL, 1, 1000000},
	{"page-faults", "faults", 2, 100}, {"context-switches", "cs", 3, 1000},
	{"cpu-migrations", NULL, 4, 1},	   {"minor-faults", NULL, 5, 100},
	{"major-faults", NULL, 6, 1},	   {"alignment-faults", NULL, 7, 1},
	{"emulation-faults", NULL, 8, 1},  {"dummy", NULL, 9, 1},
	{"bpf-output", NULL, 10, 1},
};

static int64_t count_of(const char *p, size_t n)
{
	int64_t v = 0;
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9' || v > INT64_MAX / 10 - 10)
			return 0;
		v = v * 10 + (p[i] - '0');
	}
	return v;
}

/* profile:hz:N, profile:s|ms|us:N (on every CPU, the cpu-clock's
 * samples), software:NAME[:N] (every Nth event): PERF_TYPE_SOFTWARE */
static void perf_spec(tw_compiler *c, const tw_token *t, tw_probe_spec *s,
		      int profile, const char *p, size_t n)
{
	const char *colon = memchr(p, ':', n);
	size_t head = colon ? (size_t)(colon - p) : n;
	int64_t count = colon ? count_of(colon + 1, n - head - 1) : 0;
	s->kind = PK_PERF;
	s->perf_type = 1; /* PERF_TYPE_SOFTWARE */
	if (profile) {
		int64_t unit = unit_ns(p, head);
		if (!colon || count <= 0 || unit == 0 || unit == 1)
			tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
				    "cannot read '%.*s' (profile:hz:99, "
				    "profile:ms:10, profile:s:1, "
				    "profile:us:500)",
				    (int)t->len, t->text);
		s->perf_config = 0; /* PERF_COUNT_SW_CPU_CLOCK */
		if (unit < 0)
			s->freq = (uint64_t)count;
		else if (count > INT64_MAX / unit)
			tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
				    "'%.*s': the period is too long",
				    (int)t->len, t->text);
		else
			s->period = count * unit;
		return;
	}
	for (size_t i = 0; i < TW_ARRAY_SIZE(software_events); i++) {
		const char *a = software_events[i].alias;
		if ((strlen(software_events[i].name) != head ||
		     memcmp(p, software_events[i].name, head)) &&
		    (!a || strlen(a) != head || memcmp(p, a, head)))
			continue;
		if (colon && count <= 0)
			break;
		s->perf_config = software_events[i].config;
		s->period = colon ? count : software_events[i].period;
		return;
	}
	tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
		    "cannot read '%.*s' (software:EVENT[:COUNT], EVENT one "
		    "of cpu-clock, task-clock, page-faults, context-switches, "
		    "cpu-migrations, minor-faults, major-faults, "
		    "alignment-faults, emulation-faults, dummy, bpf-output)",
		    (int)t->len, t->text);
}

/* uprobe: uretprobe: u: ur: -> the prefix's length, else 0 */
static size_t uprobe_prefix(const char *p, size_t n)
{
	static const char *const prefixes[] = {
		"uprobe:", "uretprobe:", "u:", "ur:"};
	for (size_t i = 0; i < TW_ARRAY_SIZE(prefixes); i++) {
		size_t k = strlen(prefixes[i]);
		if (n > k && memcmp(p, prefixes[i], k) == 0)
			return k;
	}
	return 0;
}

/* spec -> 'BEGIN' | 'END' | 'interval:' N UNIT | 'profile:' UNIT ':' N |
 * 'software:' EVENT [ ':' N ] | [ 'tracepoint:' ] [ SYS ':' ] EVENT */
static void spec(tw_compiler *c, tw_probe_spec *s)
{
	tw_lex_next(c, &c->tok, 1);
	if (c->tok.kind == TK_EOF)
		expected(c, "a probe (sys:event, BEGIN, END, interval:1s)");
	tw_token t = c->tok;
	const char *p = t.text;
	size_t n = t.len;
	s->text = t.text;
	s->len = t.len;
	s->line = t.line;
	s->col = t.col;
	if (n == 5 && memcmp(p, "BEGIN", 5) == 0) {
		s->kind = PK_BEGIN;
	} else if (n == 3 && memcmp(p, "END", 3) == 0) {
		s->kind = PK_END;
	} else if (n > 9 && memcmp(p, "interval:", 9) == 0) {
		s->kind = PK_INTERVAL;
		s->period = interval_of(c, &t, p + 9, n - 9);
	} else if ((n > 8 && memcmp(p, "profile:", 8) == 0) ||
		   (n > 2 && memcmp(p, "p:", 2) == 0)) {
		size_t k = p[1] == ':' ? 2 : 8;
		perf_spec(c, &t, s, 1, p + k, n - k);
	} else if ((n > 9 && memcmp(p, "software:", 9) == 0) ||
		   (n > 2 && memcmp(p, "s:", 2) == 0)) {
		size_t k = p[1] == ':' ? 2 : 9;
		perf_spec(c, &t, s, 0, p + k, n - k);
	} else if (uprobe_prefix(p, n)) {
		/* uprobe:PATH:FUNC: FUNC after the last ':' */
		size_t k = uprobe_prefix(p, n);
		s->kind = PK_PERF;
		s->uprobe = p[1] == 'r' ? 2 : 1; /* uretprobe:, ur: */
		const char *colon = memrchr(p + k, ':', n - k);
		if (!colon || colon == p + k || colon + 1 == p + n)
			tw_sc_error(c, TRAWL_EPARSE, t.line, t.col,
				    "cannot read '%.*s' (uprobe:PATH:FUNC, "
				    "uretprobe:/bin/bash:readline)",
				    (int)t.len, t.text);
		s->upath = dup(c, p + k, (size_t)(colon - (p + k)));
		s->name = dup(c, colon + 1, (size_t)(p + n - colon - 1));
	} else {
		s->kind = PK_EVENT;
		if (n > 11 && memcmp(p, "tracepoint:", 11) == 0)
			p += 11, n -= 11;
		else if (n > 2 && memcmp(p, "t:", 2) == 0)
			p += 2, n -= 2;
		const char *colon = memchr(p, ':', n);
		if (colon) {
			s->system = dup(c, p, (size_t)(colon - p));
			s->name =
				dup(c, colon + 1, n - (size_t)(colon - p) - 1);
		} else {
			s->name = dup(c, p, n);
		}
		/* a ':' in the name is another probe type's
		 * (profile:hz:99, uprobe:/bin/sh:main): check.c says so */
		if (!*s->name || (s->system && !*s->system))
			tw_sc_error(c, TRAWL_EPARSE, t.line, t.col,
				    "cannot read probe '%.*s' (sys:event, "
				    "event, sys:*)",
				    (int)t.len, t.text);
	}
	next(c);
}

/* probe -> spec { ',' spec } [ '/' expr '/' ] block */
static void probe(tw_compiler *c)
{
	tw_probe *pr;
	tw_sc_grow(c, (void **)&c->probes, &c->probes_cap, c->nprobes + 1,
		   sizeof(*c->probes));
	pr = &c->probes[c->nprobes++];
	memset(pr, 0, sizeof(*pr));
	size_t cap = 0;
	pr->line = c->peek.line;
	pr->col = c->peek.col;
	for (;;) {
		tw_sc_grow(c, (void **)&pr->specs, &cap, pr->nspecs + 1,
			   sizeof(*pr->specs));
		spec(c, &pr->specs[pr->nspecs++]);
		if (c->tok.kind != TK_COMMA)
			break;
		/* the next spec is read in probe mode by spec() */
	}
	if (c->tok.kind == TK_SLASH) {
		c->in_pred = 1;
		c->paren_depth = 0;
		next(c);
		pr->pred = expr(c);
		if (c->tok.kind != TK_SLASH)
			expected(c, "'/' to end the predicate (a division "
				    "in a predicate needs parentheses)");
		c->in_pred = 0;
		next(c);
	}
	if (c->tok.kind != TK_LBRACE)
		expected(c, "'{' to begin the probe's actions");
	pr->body = block_at(c, 0);
}

/* program -> { probe } EOF */
void tw_parse_program(tw_compiler *c)
{
	tw_lex_init(&c->lx, c->lx.src, (size_t)(c->lx.end - c->lx.src));
	for (;;) {
		/* A probe begins in probe mode: look at the next byte. */
		tw_token at;
		tw_lexer save = c->lx;
		tw_lex_next(c, &at, 0);
		if (at.kind == TK_EOF)
			break;
		c->lx = save;
		c->peek = at; /* for the probe's position only */
		probe(c);
	}
	if (c->nprobes == 0)
		tw_sc_error(c, TRAWL_EPARSE, 1, 1,
			    "no probes (try: sched:sched_switch { @[comm] = "
			    "count(); })");
	/* bpftrace ignores parameters its script does not name; a stray
	 * one here is more often a FILE given to a live run */
	if (c->max_param >= 0 && c->nparams > (size_t)c->max_param)
		tw_sc_error(c, TRAWL_EINVAL, 1, 1,
			    "parameter $%zu ('%.64s') is given but the script "
			    "names no $%zu (nor $#)",
			    (size_t)c->max_param + 1, c->params[c->max_param],
			    (size_t)c->max_param + 1);
}
