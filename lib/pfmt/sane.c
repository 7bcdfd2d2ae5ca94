/* SPDX-License-Identifier: MIT */
/*
 * A format text checked before libtraceevent parses it: libtraceevent
 * trusts what it parses, and fuzzing found damaged print formats that crash
 * it. Used for every format trawl hands it: trace.dat's, and the user's
 * --formats files and trees for text traces.
 */
#include <string.h>
#include <traceevent/event-parse.h>

#include "pfmt.h"

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* Whether `name` (n bytes) is declared by a "field:... name;" line. */
static int declared(const char *text, size_t len, const char *name, size_t n)
{
	const char *end = text + len;
	for (const char *q = text;
	     (q = memmem(q, (size_t)(end - q), "field:", 6)); q += 6) {
		const char *semi = memchr(q, ';', (size_t)(end - q));
		if (!semi)
			return 0;
		const char *e = semi;
		if (e > q && e[-1] == ']') /* an array: name[N] */
			while (e > q && *e != '[')
				e--;
		const char *b = e;
		while (b > q && ident_char(b[-1]))
			b--;
		if ((size_t)(e - b) == n && memcmp(b, name, n) == 0)
			return 1;
	}
	return 0;
}

/*
 * libtraceevent trusts the print format it parses; a damaged one (seen:
 * "REC->clockidT_{ 0, ...") can crash it. Before handing a format over,
 * check what a kernel always writes: quotes, parentheses and braces that
 * balance, and every REC->field a declared field.
 */
static const char *digits(const char *p, const char *end)
{
	const char *d = p;
	while (p < end && *p >= '0' && *p <= '9' && p - d < 10)
		p++;
	return p > d ? p : NULL;
}

/* p[0..n) starts with s */
static int starts(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

/*
 * The field lines between "format:" and "print fmt:", each as the kernel
 * writes it: "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" (old
 * kernels leave out signed), or blank. Damaged ones crash libtraceevent.
 */
static int fields_sane(const char *text, const char *pf)
{
	const char *p = memmem(text, (size_t)(pf - text), "\nformat:\n", 9);
	if (!p)
		return 0;
	for (p += 9; p < pf + 1;) {
		const char *nl = memchr(p, '\n', (size_t)(pf + 1 - p));
		if (!nl)
			return 0;
		if (nl == p) { /* blank */
			p = nl + 1;
			continue;
		}
		if (!starts(p, nl, "\tfield:"))
			return 0;
		const char *semi = memchr(p, ';', (size_t)(nl - p));
		if (!semi || semi - p < 9)
			return 0;
		/* the declaration: printable, brackets in pairs (char[16],
		 * __data_loc char[]) */
		int open = 0;
		for (const char *c = p + 7; c < semi; c++) {
			if (*c < 0x20 || *c > 0x7e)
				return 0;
			if (*c == '[' && open++)
				return 0;
			if (*c == ']' && !open--)
				return 0;
		}
		if (open)
			return 0;
		const char *q = semi + 1;
		if (!starts(q, nl, "\toffset:") || !(q = digits(q + 8, nl)) ||
		    !starts(q, nl, ";\tsize:") || !(q = digits(q + 7, nl)) ||
		    !starts(q, nl, ";"))
			return 0;
		q++;
		if (starts(q, nl, "\tsigned:")) {
			if (!(q = digits(q + 8, nl)) || !starts(q, nl, ";"))
				return 0;
			q++;
		}
		if (q != nl)
			return 0;
		p = nl + 1;
	}
	return 1;
}

/*
 * The print fmt's arguments: quotes, parentheses and braces balance, every
 * REC->field is declared, and a '[' only indexes a REC->field (a '[' after
 * anything else, "s[0]", crashed libtraceevent's parser).
 */
static int args_sane(const char *text, size_t len)
{
	const char *pf = memmem(text, len, "\nprint fmt: ", 12);
	if (!pf)
		return 0;
	const char *p = pf + 12, *end = text + len;
	int paren = 0, brace = 0, quoted = 0;
	for (; p < end; p++) { /* to the end: strings may hold newlines */
		char c = *p;
		if (quoted) {
			if (c == '\\' && p + 1 < end)
				p++;
			else if (c == '"')
				quoted = 0;
			continue;
		}
		switch (c) {
		case '"':
			quoted = 1;
			break;
		case '(':
			paren++;
			break;
		case ')':
			if (--paren < 0)
				return 0;
			break;
		case '{':
			brace++;
			break;
		case '}':
			if (--brace < 0)
				return 0;
			break;
		case '\0':
			return 0;
		case '/':
		case '%': {
			/* libtraceevent evaluates a division of constants
			 * while parsing: a divisor that is 0, a name, or an
			 * expression in parentheses ("(1-1)") divides by
			 * zero (SIGFPE, fuzz-pfmt). Kernel formats divide by
			 * a number, a field or a sizeof(). */
			const char *q = p + 1;
			while (q < end && *q == ' ')
				q++;
			int rec = end - q >= 5 && !memcmp(q, "REC->", 5);
			int size = end - q >= 7 && !memcmp(q, "sizeof(", 7);
			if (q < end && !rec && !size) {
				const char *d = q;
				if (end - d > 2 && d[0] == '0' &&
				    (d[1] == 'x' || d[1] == 'X'))
					d += 2;
				int nonzero = 0, digits = 0;
				while (d < end && tw_hexval(*d) >= 0 &&
				       (q[1] == 'x' || q[1] == 'X' ||
					(*d >= '0' && *d <= '9'))) {
					nonzero |= *d != '0';
					digits++;
					d++;
				}
				if (!digits || !nonzero)
					return 0;
			}
			break;
		}
		case '[': {
			const char *b = p;
			while (b > pf + 12 && ident_char(b[-1]))
				b--;
			if (b == p || b - (pf + 12) < 5 ||
			    memcmp(b - 5, "REC->", 5) != 0)
				return 0;
			break;
		}
		case 'R':
			if (end - p > 5 && memcmp(p, "REC->", 5) == 0 &&
			    (p == pf + 12 || !ident_char(p[-1]))) {
				const char *n = p + 5, *e = n;
				while (e < end && ident_char(*e))
					e++;
				if (e == n ||
				    !declared(text, (size_t)(pf - text), n,
					      (size_t)(e - n)))
					return 0;
				p = e - 1;
			}
			break;
		}
	}
	return !quoted && paren == 0 && brace == 0;
}

int tw_pfmt_text_check(const char *text, size_t len)
{
	const char *pf = memmem(text, len, "\nprint fmt: ", 12);
	if (!pf || !fields_sane(text, pf) ||
	    memmem(pf + 1, len - (size_t)(pf + 1 - text), "\nprint fmt: ", 12))
		return TW_PF_TEXT_BAD;
	return args_sane(text, len) ? TW_PF_TEXT_OK : TW_PF_TEXT_ARGS_UNSAFE;
}

struct tep_event *tw_pfmt_parse(struct tep_handle *tep, const tw_mem *mem,
				const char *text, size_t len, const char *sys)
{
	int ok = tw_pfmt_text_check(text, len);
	if (ok == TW_PF_TEXT_BAD)
		return NULL;
	struct tep_event *e = NULL;
	if (ok == TW_PF_TEXT_OK && tw_pfmt_args_ok(text, len)) {
		if (tep_parse_format(tep, &e, text, len, sys) != 0)
			return NULL;
		return e;
	}
	/* keep the name and fields; the print format libtraceevent must not
	 * see is marked failed, and the event falls back */
	const char *pf = memmem(text, len, "\nprint fmt: ", 12);
	static const char stub[] = "\nprint fmt: \"\"\n";
	size_t head = (size_t)(pf - text);
	char *copy = tw_malloc(mem, head + sizeof(stub));
	if (!copy)
		return NULL;
	memcpy(copy, text, head);
	memcpy(copy + head, stub, sizeof(stub));
	int rc = tep_parse_format(tep, &e, copy, head + sizeof(stub) - 1, sys);
	tw_free(mem, copy);
	if (rc != 0 || !e)
		return NULL;
	e->flags |= TEP_EVENT_FL_FAILED;
	return e;
}
