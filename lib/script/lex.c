/* SPDX-License-Identifier: MIT */
/*
 * The lexer: tokens with their line and column (1-based, in bytes). Probe
 * specifications (sched:sched_switch, irq:*, interval:1s) are read whole in
 * "probe mode", which the parser asks for at the start of a probe, since
 * ':' and '*' mean other things inside expressions. Comments are // and
 * C's; a first line starting with #! is skipped.
 */
#include <limits.h>

#include "script-int.h"

static const char *const names[TK_COUNT] = {
	[TK_EOF] = "end of input",
	[TK_INT] = "number",
	[TK_STR] = "string",
	[TK_IDENT] = "name",
	[TK_VAR] = "$variable",
	[TK_POSITIONAL] = "positional parameter",
	[TK_MAP] = "@map",
	[TK_PROBE] = "probe",
	[TK_LBRACE] = "{",
	[TK_RBRACE] = "}",
	[TK_LPAREN] = "(",
	[TK_RPAREN] = ")",
	[TK_LBRACKET] = "[",
	[TK_RBRACKET] = "]",
	[TK_COMMA] = ",",
	[TK_SEMI] = ";",
	[TK_DOT] = ".",
	[TK_QUESTION] = "?",
	[TK_COLON] = ":",
	[TK_PLUS] = "+",
	[TK_MINUS] = "-",
	[TK_STAR] = "*",
	[TK_SLASH] = "/",
	[TK_PERCENT] = "%",
	[TK_AMP] = "&",
	[TK_PIPE] = "|",
	[TK_CARET] = "^",
	[TK_TILDE] = "~",
	[TK_BANG] = "!",
	[TK_LT] = "<",
	[TK_GT] = ">",
	[TK_LE] = "<=",
	[TK_GE] = ">=",
	[TK_EQ] = "==",
	[TK_NE] = "!=",
	[TK_ANDAND] = "&&",
	[TK_OROR] = "||",
	[TK_SHL] = "<<",
	[TK_SHR] = ">>",
	[TK_ASSIGN] = "=",
	[TK_ADD_ASSIGN] = "+=",
	[TK_SUB_ASSIGN] = "-=",
	[TK_MUL_ASSIGN] = "*=",
	[TK_DIV_ASSIGN] = "/=",
	[TK_MOD_ASSIGN] = "%=",
	[TK_AND_ASSIGN] = "&=",
	[TK_OR_ASSIGN] = "|=",
	[TK_XOR_ASSIGN] = "^=",
	[TK_SHL_ASSIGN] = "<<=",
	[TK_SHR_ASSIGN] = ">>=",
	[TK_INC] = "++",
	[TK_DEC] = "--",
	[TK_ARROW] = "->",
};

const char *tw_tok_name(int kind)
{
	return kind >= 0 && kind < TK_COUNT && names[kind] ? names[kind] : "?";
}

void tw_lex_init(tw_lexer *lx, const char *src, size_t len)
{
	lx->src = lx->p = src;
	lx->end = src + len;
	lx->line = 1;
	lx->line_start = src;
	if (len >= 2 && src[0] == '#' && src[1] == '!')
		while (lx->p < lx->end && *lx->p != '\n')
			lx->p++;
}

static uint32_t col_of(const tw_lexer *lx, const char *p)
{
	size_t c = (size_t)(p - lx->line_start) + 1;
	return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

static int ident_start(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       ch == '_';
}

static int ident_char(char ch)
{
	return ident_start(ch) || (ch >= '0' && ch <= '9');
}

static int at_line_start(const tw_lexer *lx)
{
	for (const char *q = lx->line_start; q < lx->p; q++)
		if (*q != ' ' && *q != '\t')
			return 0;
	return 1;
}

/*
 * A preprocessor line. bpftrace hands its scripts to clang's preprocessor
 * for the kernel headers' types and constants; here there is no C
 * compiler: the constants scripts take from those headers are known
 * (consts.c) and the types come from the trace's formats, so #include and
 * the conditionals around it are skipped (both branches of an #ifndef
 * BPFTRACE_HAVE_BTF only include). A #define would change what follows:
 * refused rather than ignored.
 */
static void directive(tw_compiler *c)
{
	tw_lexer *lx = &c->lx;
	static const char *const skipped[] = {"include", "ifndef", "ifdef",
					      "if",	 "else",   "elif",
					      "endif",	 "pragma"};
	uint32_t col = col_of(lx, lx->p);
	const char *w = lx->p + 1;
	while (w < lx->end && (*w == ' ' || *w == '\t'))
		w++;
	const char *e = w;
	while (e < lx->end && ident_char(*e))
		e++;
	size_t n = (size_t)(e - w);
	int known = 0;
	for (size_t i = 0; i < TW_ARRAY_SIZE(skipped); i++)
		if (strlen(skipped[i]) == n && !memcmp(w, skipped[i], n))
			known = 1;
	if (!known)
		tw_sc_error(c, TRAWL_EPARSE, lx->line, col,
			    "#%.*s: only #include and #if/#ifdef/#ifndef/"
			    "#else/#endif lines are accepted (and skipped: "
			    "there is no C preprocessor; kernel constants "
			    "are known by name)",
			    (int)(n > 32 ? 32 : n), w);
	while (lx->p < lx->end && *lx->p != '\n')
		lx->p++;
}

static void skip_space(tw_compiler *c)
{
	tw_lexer *lx = &c->lx;
	while (lx->p < lx->end) {
		char ch = *lx->p;
		if (ch == '\n') {
			lx->p++;
			lx->line++;
			lx->line_start = lx->p;
		} else if (ch == ' ' || ch == '\t' || ch == '\r' ||
			   ch == '\f' || ch == '\v') {
			lx->p++;
		} else if (ch == '#' && at_line_start(lx)) {
			directive(c);
		} else if (ch == '/' && lx->p + 1 < lx->end &&
			   lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else if (ch == '/' && lx->p + 1 < lx->end &&
			   lx->p[1] == '*') {
			uint32_t line = lx->line, col = col_of(lx, lx->p);
			lx->p += 2;
			for (;;) {
				if (lx->p + 1 >= lx->end)
					tw_sc_error(c, TRAWL_EPARSE, line, col,
						    "comment not closed");
				if (lx->p[0] == '*' && lx->p[1] == '/')
					break;
				if (*lx->p == '\n') {
					lx->line++;
					lx->line_start = lx->p + 1;
				}
				lx->p++;
			}
			lx->p += 2;
		} else {
			break;
		}
	}
}

static void lex_number(tw_compiler *c, tw_token *t)
{
	tw_lexer *lx = &c->lx;
	const char *p = lx->p;
	uint64_t v = 0;
	int base = 10;
	if (p + 1 < lx->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	const char *digits = p;
	for (; p < lx->end; p++) {
		int d;
		if (*p == '_')
			continue;
		if (base == 16)
			d = tw_hexval(*p);
		else
			d = (*p >= '0' && *p <= '9') ? *p - '0' : -1;
		if (d < 0)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
				    "number too large");
		v = v * (uint64_t)base + (uint64_t)d;
	}
	/* bpftrace's 1e6: an integer, digits times a power of ten */
	if (base == 10 && p > digits && p + 1 < lx->end &&
	    (*p == 'e' || *p == 'E') && p[1] >= '0' && p[1] <= '9') {
		int ex = 0;
		for (p++; p < lx->end && *p >= '0' && *p <= '9'; p++)
			ex = ex < 100 ? ex * 10 + (*p - '0') : ex;
		for (; ex > 0; ex--) {
			if (v > UINT64_MAX / 10)
				tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
					    "number too large");
			v *= 10;
		}
	}
	if (p == digits || (p < lx->end && ident_char(*p)))
		tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
			    "malformed number");
	t->kind = TK_INT;
	t->ival = (int64_t)v;
	t->text = lx->p;
	t->len = (size_t)(p - lx->p);
	lx->p = p;
}

static void lex_string(tw_compiler *c, tw_token *t)
{
	tw_lexer *lx = &c->lx;
	const char *p = lx->p + 1;
	/* the resolved text is never longer than the source */
	const char *q = p;
	while (q < lx->end && *q != '"' && *q != '\n')
		q += (*q == '\\' && q + 1 < lx->end) ? 2 : 1;
	if (q >= lx->end || *q != '"')
		tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
			    "string not closed on its line");
	char *out = tw_sc_alloc(c, (size_t)(q - p) + 1);
	size_t n = 0;
	while (p < q) {
		char ch = *p++;
		if (ch != '\\') {
			out[n++] = ch;
			continue;
		}
		char e = *p++;
		switch (e) {
		case 'n':
			out[n++] = '\n';
			break;
		case 't':
			out[n++] = '\t';
			break;
		case 'r':
			out[n++] = '\r';
			break;
		case '\\':
			out[n++] = '\\';
			break;
		case '"':
			out[n++] = '"';
			break;
		case '0':
			out[n++] = '\0';
			break;
		case 'x': {
			int h = p < q ? tw_hexval(*p) : -1;
			int l = p + 1 < q ? tw_hexval(p[1]) : -1;
			if (h < 0 || l < 0)
				tw_sc_error(c, TRAWL_EPARSE, lx->line,
					    col_of(lx, p - 2),
					    "\\x needs two hex digits");
			out[n++] = (char)(h * 16 + l);
			p += 2;
			break;
		}
		default:
			tw_sc_error(c, TRAWL_EPARSE, lx->line,
				    col_of(lx, p - 2),
				    "unknown escape \\%c in a string", e);
		}
	}
	out[n] = '\0';
	t->kind = TK_STR;
	t->text = out;
	t->len = n;
	lx->p = q + 1;
}

/* A probe: letters, digits and _ : * ? [ ] . - up to a space, ',', '{' or
 * '/'. */
static void lex_probe(tw_compiler *c, tw_token *t)
{
	tw_lexer *lx = &c->lx;
	const char *p = lx->p;
	/* uprobe:/bin/bash:readline holds a path */
	int path = 0;
	static const char *const with_path[] = {
		"uprobe:", "uretprobe:", "u:", "ur:", "usdt:", "U:"};
	for (size_t i = 0; i < TW_ARRAY_SIZE(with_path); i++) {
		size_t n = strlen(with_path[i]);
		if ((size_t)(lx->end - p) > n && !memcmp(p, with_path[i], n))
			path = 1;
	}
	while (p < lx->end && (ident_char(*p) || *p == ':' || *p == '*' ||
			       *p == '?' || *p == '[' || *p == ']' ||
			       *p == '.' || *p == '-' || (path && *p == '/')))
		p++;
	if (p == lx->p)
		tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
			    "expected a probe (sys:event, BEGIN, END, "
			    "interval:1s), found '%c'",
			    *lx->p);
	t->kind = TK_PROBE;
	t->text = lx->p;
	t->len = (size_t)(p - lx->p);
	lx->p = p;
}

struct punct {
	const char *s;
	int kind;
};

/* longest first */
static const struct punct puncts[] = {
	{"<<=", TK_SHL_ASSIGN}, {">>=", TK_SHR_ASSIGN}, {"<=", TK_LE},
	{">=", TK_GE},		{"==", TK_EQ},		{"!=", TK_NE},
	{"&&", TK_ANDAND},	{"||", TK_OROR},	{"<<", TK_SHL},
	{">>", TK_SHR},		{"+=", TK_ADD_ASSIGN},	{"-=", TK_SUB_ASSIGN},
	{"*=", TK_MUL_ASSIGN},	{"/=", TK_DIV_ASSIGN},	{"%=", TK_MOD_ASSIGN},
	{"&=", TK_AND_ASSIGN},	{"|=", TK_OR_ASSIGN},	{"^=", TK_XOR_ASSIGN},
	{"++", TK_INC},		{"--", TK_DEC},		{"->", TK_ARROW},
	{"{", TK_LBRACE},	{"}", TK_RBRACE},	{"(", TK_LPAREN},
	{")", TK_RPAREN},	{"[", TK_LBRACKET},	{"]", TK_RBRACKET},
	{",", TK_COMMA},	{";", TK_SEMI},		{".", TK_DOT},
	{"?", TK_QUESTION},	{":", TK_COLON},	{"+", TK_PLUS},
	{"-", TK_MINUS},	{"*", TK_STAR},		{"/", TK_SLASH},
	{"%", TK_PERCENT},	{"&", TK_AMP},		{"|", TK_PIPE},
	{"^", TK_CARET},	{"~", TK_TILDE},	{"!", TK_BANG},
	{"<", TK_LT},		{">", TK_GT},		{"=", TK_ASSIGN},
};

void tw_lex_next(tw_compiler *c, tw_token *t, int probe_mode)
{
	tw_lexer *lx = &c->lx;
	skip_space(c);
	memset(t, 0, sizeof(*t));
	t->line = lx->line;
	t->col = col_of(lx, lx->p);
	if (lx->p >= lx->end) {
		t->kind = TK_EOF;
		return;
	}
	char ch = *lx->p;
	if (probe_mode) {
		lex_probe(c, t);
		return;
	}
	if (ch >= '0' && ch <= '9') {
		lex_number(c, t);
		return;
	}
	if (ch == '"') {
		lex_string(c, t);
		return;
	}
	if (ident_start(ch) || ch == '$' || ch == '@') {
		const char *p = lx->p + (ch == '$' || ch == '@');
		const char *s = p;
		while (p < lx->end && ident_char(*p))
			p++;
		if (ch == '$' && p == s && p < lx->end && *p == '#') {
			/* $#: how many positional parameters */
			t->kind = TK_POSITIONAL;
			t->ival = -1;
			t->text = lx->p;
			t->len = 2;
			lx->p += 2;
			return;
		}
		if (ch == '$' && p == s)
			tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
				    "'$' needs a variable name");
		if (ch == '$' && *s >= '0' && *s <= '9') {
			/* $1, $2 ...: positional parameters */
			int64_t k = 0;
			const char *q = s;
			for (; q < p && *q >= '0' && *q <= '9'; q++)
				k = k < 100000 ? k * 10 + (*q - '0') : k;
			if (q != p || k == 0)
				tw_sc_error(
					c, TRAWL_EPARSE, t->line, t->col,
					"'$%.*s': a positional parameter is "
					"$1, $2 ... and a variable name "
					"starts with a letter",
					(int)(p - s > 32 ? 32 : p - s), s);
			t->kind = TK_POSITIONAL;
			t->ival = k;
			t->text = lx->p;
			t->len = (size_t)(p - lx->p);
			lx->p = p;
			return;
		}
		if (ch == '$' && !ident_start(*s))
			tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
				    "a variable name starts with a letter");
		t->kind = ch == '$' ? TK_VAR : ch == '@' ? TK_MAP : TK_IDENT;
		t->text = s;
		t->len = (size_t)(p - s);
		lx->p = p;
		return;
	}
	size_t left = (size_t)(lx->end - lx->p);
	for (size_t i = 0; i < TW_ARRAY_SIZE(puncts); i++) {
		size_t n = strlen(puncts[i].s);
		if (n <= left && memcmp(lx->p, puncts[i].s, n) == 0) {
			t->kind = puncts[i].kind;
			t->text = lx->p;
			t->len = n;
			lx->p += n;
			return;
		}
	}
	if ((unsigned char)ch < 0x20 || (unsigned char)ch >= 0x7f)
		tw_sc_error(c, TRAWL_EPARSE, t->line, t->col,
			    "unexpected byte 0x%02x", (unsigned char)ch);
	tw_sc_error(c, TRAWL_EPARSE, t->line, t->col, "unexpected '%c'", ch);
}
