/* SPDX-License-Identifier: MIT */
/*
 * A probe's predicate as the kernel's event filter (events/.../filter),
 * where the filter language can say the same: comparisons of a field with
 * a constant, joined by && and ||, on fields the event's format has. This
 * is the first lowering of the typed IR to the kernel; live mode will push
 * it so that filtered events never leave the kernel. The predicate still
 * runs in the VM, so a filter only has to let through a superset.
 *
 * Signedness: the kernel compares a field as its type (unsigned fields
 * unsigned), the VM as int64; the two agree for values below 2^63, which
 * is why constants must be non-negative for an ordering comparison.
 */
#include <inttypes.h>
#include <stdio.h>

#include "script-int.h"

static int field_in(const tw_schema_event *e, const char *name, int *type)
{
	for (size_t i = 0; i < e->nfields; i++)
		if (strcmp(e->fields[i].name, name) == 0) {
			*type = e->fields[i].type;
			return 1;
		}
	return 0;
}

static int const_of(const tw_node *n, int64_t *v)
{
	if (n->kind == N_INT) {
		*v = n->ival;
		return 1;
	}
	if (n->kind == N_UNARY && n->op == TK_MINUS && n->a->kind == N_INT) {
		*v = (int64_t)(0 - (uint64_t)n->a->ival);
		return 1;
	}
	return 0;
}

static const char *cmp_op(int tok)
{
	switch (tok) {
	case TK_EQ:
		return "==";
	case TK_NE:
		return "!=";
	case TK_LT:
		return "<";
	case TK_LE:
		return "<=";
	case TK_GT:
		return ">";
	case TK_GE:
		return ">=";
	default:
		return NULL;
	}
}

static int flip(int tok)
{
	switch (tok) {
	case TK_LT:
		return TK_GT;
	case TK_LE:
		return TK_GE;
	case TK_GT:
		return TK_LT;
	case TK_GE:
		return TK_LE;
	default:
		return tok;
	}
}

/* The kernel's name of what n reads, or NULL: a field of e, or the
 * context the filter language has (common_pid, CPU, COMM). */
static const char *operand(const tw_node *n, const tw_schema_event *e,
			   int *type)
{
	if (n->kind == N_FIELD && !n->a)
		return field_in(e, n->name, type) && *type != TY_VOID ? n->name
								      : NULL;
	if (n->kind == N_CTX) {
		*type = n->type;
		switch (n->op) {
		case CX_PID:
		case CX_TID:
			return "common_pid";
		case CX_CPU:
			return "CPU";
		case CX_COMM:
			return "COMM";
		default:
			return NULL;
		}
	}
	return NULL;
}

static int emit(tw_buf *b, const tw_mem *m, const char *s, size_t n)
{
	return tw_buf_append(m, b, s, n);
}

static int put(const tw_mem *m, tw_buf *b, const tw_node *n,
	       const tw_schema_event *e, int parent)
{
	if (n->kind == N_AND || n->kind == N_OR) {
		/* || inside && needs its parentheses */
		int paren = n->kind == N_OR && parent == N_AND;
		if (paren && emit(b, m, "(", 1))
			return -1;
		if (put(m, b, n->a, e, n->kind) ||
		    emit(b, m, n->kind == N_AND ? " && " : " || ", 4) ||
		    put(m, b, n->b, e, n->kind))
			return -1;
		return paren ? emit(b, m, ")", 1) : 0;
	}
	if (n->kind != N_BINARY || !cmp_op(n->op))
		return -1;
	int type, op = n->op;
	const tw_node *f = n->a, *k = n->b;
	const char *name = operand(f, e, &type);
	if (!name) {
		f = n->b;
		k = n->a;
		op = flip(op);
		name = operand(f, e, &type);
	}
	if (!name)
		return -1;
	char text[160];
	int len;
	int64_t v;
	if (type == TY_STR) {
		/* strings: == and != of a literal without quotes inside */
		if (k->kind != N_STR || (op != TK_EQ && op != TK_NE) ||
		    memchr(k->name, '"', k->len) ||
		    memchr(k->name, '\\', k->len) ||
		    memchr(k->name, '\0', k->len) || k->len > 100)
			return -1;
		len = snprintf(text, sizeof(text), "%s %s \"%.*s\"", name,
			       cmp_op(op), (int)k->len, k->name);
	} else {
		if (!const_of(k, &v) || (v < 0 && op != TK_EQ && op != TK_NE))
			return -1;
		len = snprintf(text, sizeof(text), "%s %s %" PRId64, name,
			       cmp_op(op), v);
	}
	return len > 0 && (size_t)len < sizeof(text)
		       ? emit(b, m, text, (size_t)len)
		       : -1;
}

char *tw_filter_of(tw_compiler *c, const tw_node *pred,
		   const tw_schema_event *e)
{
	if (!pred)
		return NULL;
	tw_buf b = {0};
	char *out = NULL;
	if (put(c->mem, &b, pred, e, 0) == 0 && b.data) {
		out = tw_strndup(c->mem, b.data, b.len);
		if (!out) {
			tw_buf_fini(c->mem, &b);
			tw_sc_oom(c);
		}
	}
	tw_buf_fini(c->mem, &b);
	return out;
}
