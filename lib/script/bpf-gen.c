/* SPDX-License-Identifier: MIT */
/*
 * The script's typed tree lowered to BPF instructions (bpf-int.h has the
 * picture), and the plan of which event probes run in the kernel.
 *
 * A program: r6 is the record (the tracepoint's ctx), r7 the per-CPU
 * scratch memory (keys, strings, $var strings, printf records), r8 the
 * globals. An integer expression leaves its value in r0; what must outlive
 * a helper call waits in an 8-byte stack cell (fp-16 down). A string is a
 * TW_SC_STRMAX-byte NUL-padded buffer in scratch, so that equal strings
 * are equal bytes, as map keys need.
 *
 * The plan: each event probe is lowered on its own for each event it
 * matches (a dry run); what cannot be (a construct the back end does not
 * have, a field the record does not hold) stays in user space, with the
 * reason kept for --explain and for --backend bpf's error. Probes that
 * share a map stay on one side: a map a user-space event probe touches,
 * or an interval probe writes, takes every kernel probe touching it back
 * to user space. Then each tracepoint's program is lowered: its kernel
 * probes in script order.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/socket.h>
#include <stdio.h>

#include "bpf-int.h"

#define NCELLS	   60 /* 8-byte stack cells, fp-16 .. fp-496 */
#define NO_STR	   UINT32_MAX
#define FP_KEY	   (-8)
#define STRMAX	   TW_SC_STRMAX
#define MAP_REF(i) ((int32_t)(i))
#define FIX_REF(k) ((int32_t)(0x10000 + (k)))
#define R_CTX	   BPF_REG_6
#define R_SCRATCH  BPF_REG_7
#define R_GLOBALS  BPF_REG_8

typedef struct gen {
	tw_compiler *c;
	tw_bpf *b;
	tw_bpf_prog *p;
	const tw_schema_event *ev;
	size_t probe;
	uint32_t line, col;
	int cells;
	int var_cell[64];	/* $var slot: its int cell, or -1 */
	uint32_t var_str[64];	/* its string's scratch offset, or NO_STR */
	uint8_t var_tagged[64]; /* it may hold ksym()'s or ntop()'s */
	uint32_t scr;		/* scratch in use */
	int *labels;		/* label: its instruction, -1 unplaced */
	int *refs;		/* label: the jumps to it emitted */
	size_t refs_cap;
	int dead; /* after an unconditional jump, until a label jumped to:
		   * the verifier refuses code nothing reaches */
	size_t nlabels, labels_cap;
	struct fix {
		size_t insn;
		int label;
	} * fixes;
	size_t nfixes, fixes_cap;
	int probe_end, prog_end;
	jmp_buf refuse;
	char why[200];
	int dry;
} gen;

__attribute__((noreturn, format(printf, 3, 4))) static void
refuse(gen *g, const tw_node *n, const char *fmt, ...)
{
	char msg[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(g->why, sizeof(g->why), "%u:%u: %s", n ? n->line : g->line,
		 n ? n->col : g->col, msg);
	longjmp(g->refuse, 1);
}

/* ---- instructions ---- */

static void grow(gen *g, void **pp, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t ncap = *cap ? *cap * 2 : 256;
	while (ncap < need)
		ncap *= 2;
	void *np = tw_realloc(g->c->mem, *pp, ncap * elem);
	if (!np)
		tw_sc_oom(g->c);
	*pp = np;
	*cap = ncap;
}

static void emit(gen *g, struct bpf_insn in)
{
	tw_bpf_prog *p = g->p;
	if (g->dead)
		return;
	if (p->ninsns >= TW_BPF_MAX_INSNS)
		refuse(g, NULL, "the program is over %d instructions",
		       TW_BPF_MAX_INSNS);
	size_t cap = p->cap;
	grow(g, (void **)&p->insns, &p->cap, p->ninsns + 1, sizeof(in));
	if (p->cap != cap) {
		size_t lc = cap;
		grow(g, (void **)&p->lines, &lc, p->cap, sizeof(*p->lines));
	}
	p->lines[p->ninsns] = g->line << 12 | (g->col & 4095);
	p->insns[p->ninsns++] = in;
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off,
			    int32_t imm)
{
	struct bpf_insn in = {.code = code, .off = off, .imm = imm};
	in.dst_reg = dst & 0xf;
	in.src_reg = src & 0xf;
	return in;
}

static void alu(gen *g, int op, int dst, int32_t imm)
{
	emit(g, insn(BPF_ALU64 | op | BPF_K, dst, 0, 0, imm));
}

static void alur(gen *g, int op, int dst, int src)
{
	emit(g, insn(BPF_ALU64 | op | BPF_X, dst, src, 0, 0));
}

static void mov(gen *g, int dst, int32_t imm)
{
	alu(g, BPF_MOV, dst, imm);
}

static void movr(gen *g, int dst, int src)
{
	alur(g, BPF_MOV, dst, src);
}

static void ld64(gen *g, int dst, int64_t v)
{
	if (v >= INT32_MIN && v <= INT32_MAX) {
		mov(g, dst, (int32_t)v);
		return;
	}
	emit(g, insn(BPF_LD | BPF_DW | BPF_IMM, dst, 0, 0,
		     (int32_t)(uint32_t)(uint64_t)v));
	emit(g, insn(0, 0, 0, 0, (int32_t)(uint32_t)((uint64_t)v >> 32)));
}

/* r = the map (patched to its fd when loading) */
static void ldmap(gen *g, int dst, int32_t ref)
{
	emit(g,
	     insn(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, ref));
	emit(g, insn(0, 0, 0, 0, 0));
}

static void ldx(gen *g, int size, int dst, int src, int16_t off)
{
	emit(g, insn(BPF_LDX | BPF_MEM | size, dst, src, off, 0));
}

static void stx(gen *g, int size, int dst, int src, int16_t off)
{
	emit(g, insn(BPF_STX | BPF_MEM | size, dst, src, off, 0));
}

static void st(gen *g, int size, int dst, int16_t off, int32_t imm)
{
	emit(g, insn(BPF_ST | BPF_MEM | size, dst, 0, off, imm));
}

static void xadd(gen *g, int dst, int src, int16_t off)
{
	emit(g, insn(BPF_STX | BPF_ATOMIC | BPF_DW, dst, src, off, BPF_ADD));
}

static void call(gen *g, int fn)
{
	emit(g, insn(BPF_JMP | BPF_CALL, 0, 0, 0, fn));
}

static int label(gen *g)
{
	tw_sc_grow(g->c, (void **)&g->labels, &g->labels_cap, g->nlabels + 1,
		   sizeof(*g->labels));
	tw_sc_grow(g->c, (void **)&g->refs, &g->refs_cap, g->nlabels + 1,
		   sizeof(*g->refs));
	g->labels[g->nlabels] = -1;
	g->refs[g->nlabels] = 0;
	return (int)g->nlabels++;
}

static void place(gen *g, int l)
{
	g->labels[l] = (int)g->p->ninsns;
	if (g->refs[l])
		g->dead = 0;
}

static void jump_to(gen *g, struct bpf_insn in, int l)
{
	if (g->dead)
		return;
	g->refs[l]++;
	tw_sc_grow(g->c, (void **)&g->fixes, &g->fixes_cap, g->nfixes + 1,
		   sizeof(*g->fixes));
	g->fixes[g->nfixes++] = (struct fix){g->p->ninsns, l};
	emit(g, in);
}

static void ja(gen *g, int l)
{
	jump_to(g, insn(BPF_JMP | BPF_JA, 0, 0, 0, 0), l);
	g->dead = 1;
}

static void jimm(gen *g, int op, int reg, int32_t imm, int l)
{
	jump_to(g, insn(BPF_JMP | op | BPF_K, reg, 0, 0, imm), l);
}

static void jreg(gen *g, int op, int a, int b, int l)
{
	jump_to(g, insn(BPF_JMP | op | BPF_X, a, b, 0, 0), l);
}

static void resolve(gen *g)
{
	for (size_t i = 0; i < g->nfixes; i++) {
		int64_t d = (int64_t)g->labels[g->fixes[i].label] -
			    (int64_t)g->fixes[i].insn - 1;
		if (d < INT16_MIN || d > INT16_MAX)
			refuse(g, NULL,
			       "a jump over more than 32767 "
			       "instructions");
		g->p->insns[g->fixes[i].insn].off = (int16_t)d;
	}
	g->nfixes = 0;
	g->nlabels = 0;
}

/* ---- cells and scratch ---- */

static int16_t cell_off(int k)
{
	return (int16_t)(-16 - 8 * k);
}

static int16_t cell_push(gen *g, const tw_node *n)
{
	if (g->cells >= NCELLS)
		refuse(g, n, "the expression is too deep for the BPF stack");
	return cell_off(g->cells++);
}

static uint32_t scr_alloc(gen *g, const tw_node *n, uint32_t bytes)
{
	uint32_t at = g->scr;
	bytes = (bytes + 7) & ~7u;
	if (at + bytes > TW_BPF_SCRATCH)
		refuse(g, n, "over %d bytes of keys and strings at once",
		       TW_BPF_SCRATCH);
	g->scr += bytes;
	return at;
}

/* A string's 64 bytes from base + from to r7 + off. */
static void str_copy(gen *g, uint32_t off, int base, uint32_t from)
{
	for (uint32_t k = 0; k < STRMAX; k += 8) {
		ldx(g, BPF_DW, BPF_REG_1, base, (int16_t)(from + k));
		stx(g, BPF_DW, R_SCRATCH, BPF_REG_1, (int16_t)(off + k));
	}
}

static void scr_zero(gen *g, uint32_t off, uint32_t bytes)
{
	for (uint32_t k = 0; k < bytes; k += 8)
		st(g, BPF_DW, R_SCRATCH, (int16_t)(off + k), 0);
}

/* r = r7 + off */
static void scr_ptr(gen *g, int dst, uint32_t off)
{
	movr(g, dst, R_SCRATCH);
	if (off)
		alu(g, BPF_ADD, dst, (int32_t)off);
}

/* r0 = the value of element idx of an array map (fixed ref), or NULL;
 * the key waits in the stack's first word */
static void array_lookup(gen *g, int32_t ref, int32_t idx)
{
	ldmap(g, BPF_REG_1, ref);
	st(g, BPF_W, BPF_REG_10, FP_KEY, idx);
	movr(g, BPF_REG_2, BPF_REG_10);
	alu(g, BPF_ADD, BPF_REG_2, FP_KEY);
	call(g, BPF_FUNC_map_lookup_elem);
}

/* ---- faults ---- */

static void count_fault(gen *g, const tw_node *n, const char *what)
{
	tw_bpf *b = g->b;
	grow(g, (void **)&b->sites, &b->sites_cap, b->nsites + 1,
	     sizeof(*b->sites));
	tw_bpf_site *site = &b->sites[b->nsites];
	site->probe = g->probe;
	site->line = n ? n->line : g->line;
	site->col = n ? n->col : g->col;
	site->map = -1;
	snprintf(site->what, sizeof(site->what), "%s", what);
	int skip = label(g);
	array_lookup(g, FIX_REF(TW_BPF_M_FAULTS), (int32_t)b->nsites++);
	jimm(g, BPF_JEQ, BPF_REG_0, 0, skip);
	mov(g, BPF_REG_1, 1);
	xadd(g, BPF_REG_0, BPF_REG_1, 0);
	place(g, skip);
}

/* A full map: its message names the limit, which the loader knows. */
static void map_full(gen *g, const tw_node *n, size_t map)
{
	count_fault(g, n, "full");
	g->b->sites[g->b->nsites - 1].map = (ptrdiff_t)map;
}

/* ---- fields ---- */

static const tw_schema_field *field(gen *g, const tw_node *n)
{
	if (!g->ev)
		refuse(g, n, "a field, in a probe without an event");
	const tw_probe *pr = &g->c->probes[g->probe];
	const char *name = pr->fields[n->slot];
	for (size_t i = 0; i < g->ev->nfields; i++)
		if (strcmp(g->ev->fields[i].name, name) == 0) {
			const tw_schema_field *f = &g->ev->fields[i];
			if (!f->size)
				refuse(g, n,
				       "args.%s is not in the record (trawl "
				       "derives it)",
				       name);
			if (f->offset < 8)
				refuse(g, n,
				       "args.%s is in the record's "
				       "header",
				       name);
			return f;
		}
	refuse(g, n, "%s has no field %s", g->ev->name, name);
}

/* ---- expressions ---- */

static void gint(gen *g, const tw_node *n);
static void gstr(gen *g, const tw_node *n, uint32_t off);
static uint32_t keep_text(gen *g, char ***tab, size_t *n, const char *text,
			  size_t len);

static void at(gen *g, const tw_node *n)
{
	g->line = n->line;
	g->col = n->col;
}

static void literal(gen *g, const tw_node *n, const char *s, size_t len,
		    uint32_t off)
{
	if (len >= STRMAX)
		refuse(g, n,
		       "a string of %zu bytes (the kernel's are at most "
		       "%d)",
		       len, STRMAX - 1);
	scr_zero(g, off, STRMAX);
	for (size_t k = 0; k < len; k += 4) {
		uint32_t w = 0;
		for (size_t j = 0; j < 4 && k + j < len; j++)
			w |= (uint32_t)(unsigned char)s[k + j] << (8 * j);
		if (w)
			st(g, BPF_W, R_SCRATCH, (int16_t)(off + k), (int32_t)w);
	}
}

static int key_size(const tw_map_decl *d)
{
	int n = 0;
	for (int i = 0; i < d->nkeys; i++)
		n += d->key_types[i] == TY_STR ? STRMAX : 8;
	return n ? n : 8;
}

/* The key of m (an N_MAPGET node: its map and key expressions) built in
 * scratch; return its offset. */
static uint32_t gkey(gen *g, const tw_node *m)
{
	const tw_map_decl *d = &g->c->maps[m->slot];
	uint32_t koff = scr_alloc(g, m, (uint32_t)key_size(d));
	if (!m->nkids) {
		st(g, BPF_DW, R_SCRATCH, (int16_t)koff, 0);
		return koff;
	}
	uint32_t pos = koff;
	for (size_t i = 0; i < m->nkids; i++) {
		const tw_node *k = m->kids[i];
		if (k->type == TY_STR) {
			gstr(g, k, pos);
			pos += STRMAX;
		} else {
			gint(g, k);
			stx(g, BPF_DW, R_SCRATCH, BPF_REG_0, (int16_t)pos);
			pos += 8;
		}
	}
	return koff;
}

/* r0 = lookup(map, r7 + koff) */
static void lookup(gen *g, int32_t ref, uint32_t koff)
{
	ldmap(g, BPF_REG_1, ref);
	scr_ptr(g, BPF_REG_2, koff);
	call(g, BPF_FUNC_map_lookup_elem);
}

static int kernel_value_kind(int kind)
{
	return kind == MV_INT || kind == MV_STR;
}

static void check_map(gen *g, const tw_node *n, size_t map)
{
	const tw_map_decl *d = &g->c->maps[map];
	if (d->nkeys < 0)
		refuse(g, n, "@%s has no known key", d->name);
	if (key_size(d) > 512)
		refuse(g, n, "@%s's key is over 512 bytes", d->name);
	if (!g->dry && !g->b->maps[map].kernel)
		refuse(g, n, "@%s is in user space", d->name);
}

/* @m[k...] (n, an N_MAPGET of a map holding kind) looked up: r0 its
 * value; return the label jumped to when there is none */
static int map_find(gen *g, const tw_node *n, int kind)
{
	const tw_map_decl *d = &g->c->maps[n->slot];
	check_map(g, n, (size_t)n->slot);
	if (d->kind != kind)
		refuse(g, n,
		       "reading @%s, an aggregate, in the kernel (each CPU "
		       "has its own part)",
		       d->name);
	int none = label(g);
	lookup(g, MAP_REF(n->slot), gkey(g, n));
	jimm(g, BPF_JEQ, BPF_REG_0, 0, none);
	return none;
}

/* The BPF ALU operation of an arithmetic token (a compound assignment's
 * too, as lower.c's binop() takes them), or -1. */
static int alu_op(int tok)
{
	switch (tok) {
	case TK_PLUS:
	case TK_ADD_ASSIGN:
		return BPF_ADD;
	case TK_MINUS:
	case TK_SUB_ASSIGN:
		return BPF_SUB;
	case TK_STAR:
	case TK_MUL_ASSIGN:
		return BPF_MUL;
	case TK_SLASH:
	case TK_DIV_ASSIGN:
		return BPF_DIV;
	case TK_PERCENT:
	case TK_MOD_ASSIGN:
		return BPF_MOD;
	case TK_AMP:
	case TK_AND_ASSIGN:
		return BPF_AND;
	case TK_PIPE:
	case TK_OR_ASSIGN:
		return BPF_OR;
	case TK_CARET:
	case TK_XOR_ASSIGN:
		return BPF_XOR;
	case TK_SHL:
	case TK_SHL_ASSIGN:
		return BPF_LSH;
	case TK_SHR:
	case TK_SHR_ASSIGN:
		return BPF_RSH; /* logical, as the VM's and bpftrace's */
	default:
		return -1;
	}
}

/* The signed jump of a comparison token, or -1. */
static int compare_op(int tok)
{
	switch (tok) {
	case TK_EQ:
		return BPF_JEQ;
	case TK_NE:
		return BPF_JNE;
	case TK_LT:
		return BPF_JSLT;
	case TK_LE:
		return BPF_JSLE;
	case TK_GT:
		return BPF_JSGT;
	case TK_GE:
		return BPF_JSGE;
	default:
		return -1;
	}
}

/* r1 = a / b or a % b, signed and truncating as C does, from unsigned
 * division (the kernel's sdiv is BPF v4 only); INT64_MIN / -1 wraps; a
 * zero b is a fault that ends the probe's run */
static void signed_div(gen *g, const tw_node *n, int op)
{
	int ok = label(g), a_pos = label(g), b_pos = label(g), done = label(g);
	jimm(g, BPF_JNE, BPF_REG_0, 0, ok);
	count_fault(g, n, "division by zero");
	ja(g, g->probe_end);
	place(g, ok);
	movr(g, BPF_REG_2, BPF_REG_1);
	movr(g, BPF_REG_3, BPF_REG_0);
	mov(g, BPF_REG_4, 0); /* the result's sign */
	jimm(g, BPF_JSGE, BPF_REG_2, 0, a_pos);
	alu(g, BPF_NEG, BPF_REG_2, 0);
	mov(g, BPF_REG_4, 1);
	place(g, a_pos);
	jimm(g, BPF_JSGE, BPF_REG_3, 0, b_pos);
	alu(g, BPF_NEG, BPF_REG_3, 0);
	if (op == BPF_DIV)
		alu(g, BPF_XOR, BPF_REG_4, 1);
	place(g, b_pos);
	alur(g, op, BPF_REG_2, BPF_REG_3);
	jimm(g, BPF_JEQ, BPF_REG_4, 0, done);
	alu(g, BPF_NEG, BPF_REG_2, 0);
	place(g, done);
	movr(g, BPF_REG_1, BPF_REG_2);
}

/* r1 = a, r0 = b: r0 = a OP b (op a TK_*, or a compound assignment's) */
static void binop(gen *g, const tw_node *n, int op)
{
	int k = alu_op(op), jump = compare_op(op);
	if (jump >= 0) {
		int t = label(g);
		mov(g, BPF_REG_2, 1);
		jreg(g, jump, BPF_REG_1, BPF_REG_0, t);
		mov(g, BPF_REG_2, 0);
		place(g, t);
		movr(g, BPF_REG_1, BPF_REG_2);
	} else if (k == BPF_DIV || k == BPF_MOD) {
		signed_div(g, n, k);
	} else if (k == BPF_LSH || k == BPF_ARSH) {
		alu(g, BPF_AND, BPF_REG_0, 63);
		alur(g, k, BPF_REG_1, BPF_REG_0);
	} else if (k >= 0) {
		alur(g, k, BPF_REG_1, BPF_REG_0);
	} else {
		refuse(g, n, "this operator");
	}
	movr(g, BPF_REG_0, BPF_REG_1);
}

/* two strings in scratch, equal (r0 = 1) or not */
static void str_eq(gen *g, uint32_t a, uint32_t b, int want_equal)
{
	int ne = label(g), done = label(g);
	for (uint32_t k = 0; k < STRMAX; k += 8) {
		ldx(g, BPF_DW, BPF_REG_1, R_SCRATCH, (int16_t)(a + k));
		ldx(g, BPF_DW, BPF_REG_2, R_SCRATCH, (int16_t)(b + k));
		jreg(g, BPF_JNE, BPF_REG_1, BPF_REG_2, ne);
	}
	mov(g, BPF_REG_0, want_equal);
	ja(g, done);
	place(g, ne);
	mov(g, BPF_REG_0, !want_equal);
	place(g, done);
}

/* two strings in scratch in order (r0 = 1 when a op b, op one of TK_LT
 * TK_LE TK_GT TK_GE): NUL-padded, their big-endian 8-byte words compare
 * as strcmp() compares them */
static void str_order(gen *g, uint32_t a, uint32_t b, int op)
{
	int lt = label(g), gt = label(g), done = label(g);
	for (uint32_t k = 0; k < STRMAX; k += 8) {
		ldx(g, BPF_DW, BPF_REG_1, R_SCRATCH, (int16_t)(a + k));
		ldx(g, BPF_DW, BPF_REG_2, R_SCRATCH, (int16_t)(b + k));
		emit(g,
		     insn(BPF_ALU | BPF_END | BPF_TO_BE, BPF_REG_1, 0, 0, 64));
		emit(g,
		     insn(BPF_ALU | BPF_END | BPF_TO_BE, BPF_REG_2, 0, 0, 64));
		jreg(g, BPF_JGT, BPF_REG_1, BPF_REG_2, gt);
		jreg(g, BPF_JLT, BPF_REG_1, BPF_REG_2, lt);
	}
	mov(g, BPF_REG_0, op == TK_LE || op == TK_GE);
	ja(g, done);
	place(g, gt);
	mov(g, BPF_REG_0, op == TK_GT || op == TK_GE);
	ja(g, done);
	place(g, lt);
	mov(g, BPF_REG_0, op == TK_LT || op == TK_LE);
	place(g, done);
}

/*
 * kstack: the kernel's stack at the probe (bpf_get_stack(), up to
 * TW_SC_STACK_MAX frames) hashed, kept under its hash in the stacks map
 * ([bytes, frames...]) unless there already, the hash the value (0: no
 * stack). User space turns a hash into the stack's frames when it reads
 * the maps, cutting them to the kstack's limit there (bpf-sys.c). A hash
 * map rather than a stack-trace map: the kernel's stack map drops a stack
 * whose bucket another holds (-EEXIST), a 64-bit hash does not collide.
 */
static void gkstack(gen *g, const tw_node *n)
{
	if (!g->dry)
		g->b->kstacks++;
	g->p->kstack = 1;
	uint32_t mark = g->scr;
	uint32_t buf = scr_alloc(g, n, TW_BPF_STACK_VALUE);
	int none = label(g), hashed = label(g), done = label(g);
	movr(g, BPF_REG_1, R_CTX);
	scr_ptr(g, BPF_REG_2, buf + 8);
	mov(g, BPF_REG_3, TW_BPF_STACK_VALUE - 8);
	mov(g, BPF_REG_4, 0);
	call(g, BPF_FUNC_get_stack);
	jimm(g, BPF_JSLE, BPF_REG_0, 0, none);
	stx(g, BPF_DW, R_SCRATCH, BPF_REG_0, (int16_t)buf);
	/* FNV-1a over the frames the kernel gave */
	ld64(g, BPF_REG_1, (int64_t)0xcbf29ce484222325ull);
	ld64(g, BPF_REG_3, 0x100000001b3ll);
	for (int k = 0; k < TW_SC_STACK_MAX; k++) {
		jimm(g, BPF_JLE, BPF_REG_0, 8 * k, hashed);
		ldx(g, BPF_DW, BPF_REG_2, R_SCRATCH,
		    (int16_t)(buf + 8 + 8 * (uint32_t)k));
		alur(g, BPF_XOR, BPF_REG_1, BPF_REG_2);
		alur(g, BPF_MUL, BPF_REG_1, BPF_REG_3);
	}
	place(g, hashed);
	int nonzero = label(g);
	jimm(g, BPF_JNE, BPF_REG_1, 0, nonzero);
	mov(g, BPF_REG_1, 1);
	place(g, nonzero);
	int16_t cell = cell_push(g, n);
	stx(g, BPF_DW, BPF_REG_10, BPF_REG_1, cell);
	ldmap(g, BPF_REG_1, FIX_REF(TW_BPF_M_STACKS));
	movr(g, BPF_REG_2, BPF_REG_10);
	alu(g, BPF_ADD, BPF_REG_2, cell);
	scr_ptr(g, BPF_REG_3, buf);
	mov(g, BPF_REG_4, BPF_NOEXIST);
	call(g, BPF_FUNC_map_update_elem);
	int kept = label(g);
	jimm(g, BPF_JEQ, BPF_REG_0, 0, kept);
	jimm(g, BPF_JEQ, BPF_REG_0, -EEXIST, kept);
	count_fault(g, n,
		    "kstack: the stacks map is full (--map-size stacks); "
		    "the stack is empty");
	ja(g, none);
	place(g, kept);
	ldx(g, BPF_DW, BPF_REG_0, BPF_REG_10, cell);
	g->cells--;
	ja(g, done);
	place(g, none);
	mov(g, BPF_REG_0, 0);
	place(g, done);
	g->scr = mark;
}

/* r0 = the low (high 0) or high 32 bits of a helper's u64 */
static void call_half(gen *g, int fn, int high)
{
	call(g, fn);
	if (!high)
		alu(g, BPF_LSH, BPF_REG_0, 32);
	alu(g, BPF_RSH, BPF_REG_0, 32);
}

static void gctx_int(gen *g, const tw_node *n)
{
	switch (n->op) {
	case CX_KSTACK:
		gkstack(g, n);
		return;
	case CX_TS:
		call(g, BPF_FUNC_ktime_get_ns);
		return;
	case CX_USECS:
		call(g, BPF_FUNC_ktime_get_ns);
		alu(g, BPF_ADD, BPF_REG_0, 500);
		alu(g, BPF_DIV, BPF_REG_0, 1000);
		return;
	case CX_CPU:
		call(g, BPF_FUNC_get_smp_processor_id);
		return;
	case CX_PID:
	case CX_TID: /* trawl's pid is the thread's, common_pid */
		call_half(g, BPF_FUNC_get_current_pid_tgid, 0);
		return;
	case CX_TGID:
		call_half(g, BPF_FUNC_get_current_pid_tgid, 1);
		return;
	case CX_CURTASK:
		call(g, BPF_FUNC_get_current_task);
		return;
	case CX_CGROUP:
		call(g, BPF_FUNC_get_current_cgroup_id);
		return;
	case CX_RETVAL:
	case CX_ARG0:
	case CX_ARG0 + 1:
	case CX_ARG0 + 2:
	case CX_ARG0 + 3:
	case CX_ARG0 + 4:
	case CX_ARG5: {
#if defined(__x86_64__)
		/* struct pt_regs (x86-64): the calling convention's
		 * registers di, si, dx, cx, r8, r9; ax the return value */
		static const int16_t reg[] = {112, 104, 96, 88, 72, 64};
		ldx(g, BPF_DW, BPF_REG_0, R_CTX,
		    n->op == CX_RETVAL ? 80 : reg[n->op - CX_ARG0]);
		return;
#else
		refuse(g, n, "a function's registers on this architecture");
#endif
	}
	case CX_UID: /* gid << 32 | uid */
		call_half(g, BPF_FUNC_get_current_uid_gid, 0);
		return;
	case CX_GID:
		call_half(g, BPF_FUNC_get_current_uid_gid, 1);
		return;
	case CX_ELAPSED:
		call(g, BPF_FUNC_ktime_get_ns);
		ldx(g, BPF_DW, BPF_REG_1, R_GLOBALS,
		    (int16_t)offsetof(struct tw_bpf_globals, t0));
		alur(g, BPF_SUB, BPF_REG_0, BPF_REG_1);
		return;
	default:
		refuse(g, n, "this context value");
	}
}

/* strlen(s), and strncmp(a, b, N) with N a constant: unrolled over the
 * 64 bytes a string has in the kernel (a NUL within them ends it) */
/* A string the kernel holds as a tagged address, written out in user
 * space (ksym(), ntop(), or a $var holding one): its text is not there
 * to compare. */
static int written_later(const gen *g, const tw_node *n)
{
	if (n->kind == N_CALL && (n->op == CALL_KSYM || n->op == CALL_NTOP ||
				  n->op == CALL_STRFTIME))
		return 1;
	if (n->kind == N_CTX &&
	    (n->op == CX_USERNAME || (n->op == CX_PROBE && !g->ev)))
		return 1;
	return n->kind == N_VAR && n->slot >= 0 && n->slot < 64 &&
	       g->var_tagged[n->slot];
}

static void gcall(gen *g, const tw_node *n)
{
	uint32_t mark = g->scr;
	int done = label(g);
	if (n->op == CALL_BSWAP) {
		/* BPF_END to big-endian: a swap on this little-endian host,
		 * of the argument type's bytes (the rest 0) */
		gint(g, n->kids[0]);
		int w = n->width > 0 && n->width < 8 ? n->width : 8;
		if (w > 1)
			emit(g, insn(BPF_ALU | BPF_END | BPF_TO_BE, BPF_REG_0,
				     0, 0, w * 8));
		return;
	}
	for (size_t i = 0; i < n->nkids && n->op != CALL_BSWAP; i++)
		if (written_later(g, n->kids[i]))
			refuse(g, n,
			       "%s() of ksym()'s or ntop()'s text, which user "
			       "space writes out",
			       n->name);
	if (n->op == CALL_STRLEN) {
		uint32_t a = scr_alloc(g, n, STRMAX);
		gstr(g, n->kids[0], a);
		at(g, n);
		for (int k = 0; k < STRMAX; k++) {
			ldx(g, BPF_B, BPF_REG_1, R_SCRATCH, (int16_t)(a + k));
			mov(g, BPF_REG_0, k);
			jimm(g, BPF_JEQ, BPF_REG_1, 0, done);
		}
		mov(g, BPF_REG_0, STRMAX);
	} else if (n->op == CALL_STRNCMP && n->kids[2]->kind == N_INT) {
		int64_t lim =
			n->kids[2]->ival < STRMAX ? n->kids[2]->ival : STRMAX;
		uint32_t a = scr_alloc(g, n, STRMAX);
		uint32_t b = scr_alloc(g, n, STRMAX);
		gstr(g, n->kids[0], a);
		gstr(g, n->kids[1], b);
		at(g, n);
		mov(g, BPF_REG_0, 0);
		for (int64_t k = 0; k < lim; k++) {
			int same = label(g);
			ldx(g, BPF_B, BPF_REG_1, R_SCRATCH, (int16_t)(a + k));
			ldx(g, BPF_B, BPF_REG_2, R_SCRATCH, (int16_t)(b + k));
			jreg(g, BPF_JEQ, BPF_REG_1, BPF_REG_2, same);
			mov(g, BPF_REG_0, -1);
			jreg(g, BPF_JLT, BPF_REG_1, BPF_REG_2, done);
			mov(g, BPF_REG_0, 1);
			ja(g, done);
			place(g, same);
			jimm(g, BPF_JEQ, BPF_REG_1, 0, done);
		}
	} else {
		refuse(g, n,
		       n->op == CALL_STRNCMP
			       ? "strncmp() with a length that is not a "
				 "constant"
			       : "strcontains()");
	}
	place(g, done);
	g->scr = mark;
}

/* r0 = the address of what a member (or a struct in memory) is: its
 * base's address (a pointer's value, or a struct member's address) plus
 * its offset */
static void gaddr(gen *g, const tw_node *n, int null)
{
	if (n->kind != N_MEMBER)
		refuse(g, n, "this struct");
	if (n->op == TK_ARROW) {
		gint(g, n->a);
		/* a NULL pointer's members are 0, as in bpftrace: no fault */
		jimm(g, BPF_JEQ, BPF_REG_0, 0, null);
	} else {
		gaddr(g, n->a, null);
	}
	if (n->m.offset)
		alu(g, BPF_ADD, BPF_REG_0, (int32_t)n->m.offset);
}

/* ntop([af,] addr) into the string at r7 + off: the tag, the family,
 * the address's bytes (an int's 4, a 4- or 16-byte array member's), for
 * user space to write out (bpf-sys.c's kernel_text()) */
static void gntop(gen *g, const tw_node *n, uint32_t off)
{
	const tw_node *a = n->kids[n->nkids - 1];
	scr_zero(g, off, STRMAX);
	if (a->type == TY_STR) {
		int ok = label(g);
		gaddr(g, a, ok); /* NULL: 0.0.0.0 (::) */
		movr(g, BPF_REG_3, BPF_REG_0);
		scr_ptr(g, BPF_REG_1, off + 8);
		mov(g, BPF_REG_2, (int32_t)a->m.size);
		call(g, a->user ? BPF_FUNC_probe_read_user
				: BPF_FUNC_probe_read_kernel);
		place(g, ok);
	} else {
		gint(g, a);
		stx(g, BPF_W, R_SCRATCH, BPF_REG_0, (int16_t)(off + 8));
	}
	if (n->nkids == 2) {
		gint(g, n->kids[0]);
		stx(g, BPF_B, R_SCRATCH, BPF_REG_0, (int16_t)(off + 2));
	} else {
		st(g, BPF_B, R_SCRATCH, (int16_t)(off + 2),
		   a->type == TY_STR && a->m.size == 16 ? AF_INET6 : AF_INET);
	}
	st(g, BPF_H, R_SCRATCH, (int16_t)off,
	   TW_NTOP_TAG[0] | TW_NTOP_TAG[1] << 8);
}

/* r0 = an integer (or pointer) member, read from kernel or task memory
 * with bpf_probe_read_{kernel,user}(); what cannot be read is 0, and a
 * fault */
static void gmember_int(gen *g, const tw_node *n)
{
	uint32_t mark = g->scr;
	uint32_t buf = scr_alloc(g, n, 8);
	int ok = label(g), done = label(g), null = label(g);
	gaddr(g, n, null);
	movr(g, BPF_REG_3, BPF_REG_0);
	scr_ptr(g, BPF_REG_1, buf);
	mov(g, BPF_REG_2, (int32_t)n->m.size);
	call(g,
	     n->user ? BPF_FUNC_probe_read_user : BPF_FUNC_probe_read_kernel);
	jimm(g, BPF_JEQ, BPF_REG_0, 0, ok);
	count_fault(g, n,
		    n->user ? "a read of the task's memory through a pointer "
			      "failed (not paged in, or not valid): 0"
			    : "a read of kernel memory through a pointer "
			      "failed: 0");
	place(g, null);
	mov(g, BPF_REG_0, 0);
	ja(g, done);
	place(g, ok);
	int size = n->m.size == 1   ? BPF_B
		   : n->m.size == 2 ? BPF_H
		   : n->m.size == 4 ? BPF_W
				    : BPF_DW;
	ldx(g, size, BPF_REG_0, R_SCRATCH, (int16_t)buf);
	if (n->m.is_signed && n->m.size < 8) {
		alu(g, BPF_LSH, BPF_REG_0, (int32_t)(64 - 8 * n->m.size));
		alu(g, BPF_ARSH, BPF_REG_0, (int32_t)(64 - 8 * n->m.size));
	}
	place(g, done);
	g->scr = mark;
}

/* r0 = the 8 bytes of kernel memory at the address in r0 (loads.bt's
 * *$avenrun); what cannot be read is 0, and a fault */
static void gderef(gen *g, const tw_node *n)
{
	uint32_t mark = g->scr;
	uint32_t buf = scr_alloc(g, n, 8);
	int ok = label(g), done = label(g);
	movr(g, BPF_REG_3, BPF_REG_0);
	scr_ptr(g, BPF_REG_1, buf);
	mov(g, BPF_REG_2, 8);
	call(g, BPF_FUNC_probe_read_kernel);
	jimm(g, BPF_JEQ, BPF_REG_0, 0, ok);
	count_fault(g, n, "a read of kernel memory at an address failed: 0");
	mov(g, BPF_REG_0, 0);
	ja(g, done);
	place(g, ok);
	ldx(g, BPF_DW, BPF_REG_0, R_SCRATCH, (int16_t)buf);
	place(g, done);
	g->scr = mark;
}

static void gint(gen *g, const tw_node *n)
{
	at(g, n);
	if (n->type != TY_INT && !tw_is_stack(n->type))
		refuse(g, n, "a string where a number is wanted");
	switch (n->kind) {
	case N_INT:
		ld64(g, BPF_REG_0, n->ival);
		return;
	case N_CTX:
		gctx_int(g, n);
		return;
	case N_PCAST:
		gint(g, n->a);
		return;
	case N_MEMBER:
		gmember_int(g, n);
		return;
	case N_FIELD: {
		if (n->a)
			refuse(g, n, "an array field's element");
		const tw_schema_field *f = field(g, n);
		if (f->array || f->dloc)
			refuse(g, n, "args.%s is an array", f->name);
		int size = f->size == 1	  ? BPF_B
			   : f->size == 2 ? BPF_H
			   : f->size == 4 ? BPF_W
			   : f->size == 8 ? BPF_DW
					  : -1;
		if (size < 0 || f->offset % f->size)
			refuse(g, n, "args.%s (%u bytes at %u)", f->name,
			       f->size, f->offset);
		ldx(g, size, BPF_REG_0, R_CTX, (int16_t)f->offset);
		if (f->is_signed && f->size < 8) {
			alu(g, BPF_LSH, BPF_REG_0, (int32_t)(64 - 8 * f->size));
			alu(g, BPF_ARSH, BPF_REG_0,
			    (int32_t)(64 - 8 * f->size));
		}
		return;
	}
	case N_VAR:
		if (n->slot < 0 || n->slot >= 64 || g->var_cell[n->slot] < 0)
			refuse(g, n, "this $var");
		ldx(g, BPF_DW, BPF_REG_0, BPF_REG_10,
		    cell_off(g->var_cell[n->slot]));
		return;
	case N_MAPGET: {
		uint32_t mark = g->scr;
		int none = map_find(g, n, MV_INT), done = label(g);
		ldx(g, BPF_DW, BPF_REG_0, BPF_REG_0, 0);
		ja(g, done);
		place(g, none);
		mov(g, BPF_REG_0, 0);
		place(g, done);
		g->scr = mark;
		return;
	}
	case N_UNARY: {
		gint(g, n->a);
		at(g, n);
		if (n->op == TK_MINUS) {
			alu(g, BPF_NEG, BPF_REG_0, 0);
		} else if (n->op == TK_TILDE) {
			alu(g, BPF_XOR, BPF_REG_0, -1);
		} else if (n->op == TK_STAR) {
			gderef(g, n);
		} else if (n->op == TK_BANG) {
			int z = label(g), done = label(g);
			jimm(g, BPF_JEQ, BPF_REG_0, 0, z);
			mov(g, BPF_REG_0, 0);
			ja(g, done);
			place(g, z);
			mov(g, BPF_REG_0, 1);
			place(g, done);
		} else {
			refuse(g, n, "this operator");
		}
		return;
	}
	case N_BINARY: {
		if (n->a->type == TY_STR) {
			if (written_later(g, n->a) || written_later(g, n->b))
				refuse(g, n,
				       "comparing ksym()'s or ntop()'s text, "
				       "which user space writes out");
			uint32_t mark = g->scr;
			uint32_t a = scr_alloc(g, n, STRMAX);
			uint32_t b = scr_alloc(g, n, STRMAX);
			gstr(g, n->a, a);
			gstr(g, n->b, b);
			at(g, n);
			if (n->op == TK_EQ || n->op == TK_NE)
				str_eq(g, a, b, n->op == TK_EQ);
			else if (n->op == TK_LT || n->op == TK_LE ||
				 n->op == TK_GT || n->op == TK_GE)
				str_order(g, a, b, n->op);
			else
				refuse(g, n, "this operator on strings");
			g->scr = mark;
			return;
		}
		gint(g, n->a);
		int16_t c = cell_push(g, n);
		stx(g, BPF_DW, BPF_REG_10, BPF_REG_0, c);
		gint(g, n->b);
		at(g, n);
		ldx(g, BPF_DW, BPF_REG_1, BPF_REG_10, c);
		g->cells--;
		binop(g, n, n->op);
		return;
	}
	case N_AND:
	case N_OR: {
		int out = label(g), done = label(g);
		int and = n->kind == N_AND;
		gint(g, n->a);
		jimm(g, and? BPF_JEQ : BPF_JNE, BPF_REG_0, 0, out);
		gint(g, n->b);
		jimm(g, and? BPF_JEQ : BPF_JNE, BPF_REG_0, 0, out);
		mov(g, BPF_REG_0, and);
		ja(g, done);
		place(g, out);
		mov(g, BPF_REG_0, !and);
		place(g, done);
		return;
	}
	case N_COND: {
		int no = label(g), done = label(g);
		gint(g, n->a);
		jimm(g, BPF_JEQ, BPF_REG_0, 0, no);
		gint(g, n->b);
		ja(g, done);
		place(g, no);
		gint(g, n->c);
		place(g, done);
		return;
	}
	case N_CALL:
		gcall(g, n);
		return;
	default:
		refuse(g, n, "this expression");
	}
}

static void gstr(gen *g, const tw_node *n, uint32_t off)
{
	at(g, n);
	if (n->type != TY_STR)
		refuse(g, n, "a number where a string is wanted");
	switch (n->kind) {
	case N_STR:
		literal(g, n, n->name, n->len, off);
		return;
	case N_CTX: {
		char buf[600];
		if (n->op == CX_COMM) {
			scr_zero(g, off, STRMAX);
			scr_ptr(g, BPF_REG_1, off);
			mov(g, BPF_REG_2, 16);
			call(g, BPF_FUNC_get_current_comm);
			return;
		}
		if (n->op == CX_USERNAME) {
			/* the uid, tagged: user space names it when it
			 * reads the string (bpf-sys.c's kernel_text()) */
			scr_zero(g, off, STRMAX);
			call_half(g, BPF_FUNC_get_current_uid_gid, 0);
			stx(g, BPF_DW, R_SCRATCH, BPF_REG_0,
			    (int16_t)(off + 8));
			st(g, BPF_H, R_SCRATCH, (int16_t)off,
			   TW_USER_TAG[0] | TW_USER_TAG[1] << 8);
			return;
		}
		if (!g->ev && n->op == CX_PROBE) {
			/* a perf event's, as written (a uprobe's path may
			 * be longer than a string): written out in user
			 * space (bpf-sys.c's kernel_text()) */
			if (g->probe > UINT16_MAX)
				refuse(g, n, "more than 65535 probes");
			scr_zero(g, off, STRMAX);
			st(g, BPF_W, R_SCRATCH, (int16_t)off,
			   (int32_t)(TW_PROBE_TAG[0] | TW_PROBE_TAG[1] << 8 |
				     g->probe << 16));
			return;
		}
		if (!g->ev && n->op == CX_FUNC)
			snprintf(buf, sizeof(buf), "%s",
				 g->c->probes[g->probe].specs[0].name);
		else if (!g->ev)
			refuse(g, n, "this context value");
		else if (n->op == CX_EVENT)
			snprintf(buf, sizeof(buf), "%s", g->ev->name);
		else if (n->op == CX_PROBE)
			snprintf(buf, sizeof(buf), "tracepoint:%s%s%s",
				 g->ev->system, *g->ev->system ? ":" : "",
				 g->ev->name);
		else
			refuse(g, n, "this context value");
		literal(g, n, buf, strlen(buf), off);
		return;
	}
	case N_FIELD: {
		if (n->a)
			refuse(g, n, "an array field's element");
		const tw_schema_field *f = field(g, n);
		scr_zero(g, off, STRMAX);
		scr_ptr(g, BPF_REG_1, off);
		if (f->dloc && f->size == 4) {
			ldx(g, BPF_W, BPF_REG_3, R_CTX, (int16_t)f->offset);
			alu(g, BPF_AND, BPF_REG_3, 0xffff);
			if (f->dloc == 2)
				alu(g, BPF_ADD, BPF_REG_3,
				    (int32_t)(f->offset + f->size));
			/* the kernel lets a helper take the record plus an
			 * offset it bounds */
			jimm(g, BPF_JGT, BPF_REG_3, 0xffff, g->probe_end);
			movr(g, BPF_REG_4, R_CTX);
			alur(g, BPF_ADD, BPF_REG_4, BPF_REG_3);
			movr(g, BPF_REG_3, BPF_REG_4);
			mov(g, BPF_REG_2, STRMAX);
		} else if (f->array) {
			/* its bytes to the first NUL (one more byte is read
			 * and replaced by the NUL the helper writes) */
			uint32_t n1 =
				f->size + 1 < STRMAX ? f->size + 1 : STRMAX;
			mov(g, BPF_REG_2, (int32_t)n1);
			movr(g, BPF_REG_3, R_CTX);
			alu(g, BPF_ADD, BPF_REG_3, (int32_t)f->offset);
		} else {
			refuse(g, n, "args.%s, a pointer", f->name);
		}
		call(g, BPF_FUNC_probe_read_kernel_str);
		return;
	}
	case N_VAR:
		if (n->slot < 0 || n->slot >= 64 ||
		    g->var_str[n->slot] == NO_STR)
			refuse(g, n, "this $var");
		str_copy(g, off, R_SCRATCH, g->var_str[n->slot]);
		return;
	case N_MAPGET: {
		uint32_t mark = g->scr;
		int none = map_find(g, n, MV_STR), done = label(g);
		str_copy(g, off, BPF_REG_0, 0);
		ja(g, done);
		place(g, none);
		scr_zero(g, off, STRMAX);
		place(g, done);
		g->scr = mark;
		return;
	}
	case N_MEMBER: {
		/* a char array member: up to its length or STRMAX - 1, and
		 * a NUL (what cannot be read is "", and a fault) */
		uint32_t len = n->m.size + 1 < STRMAX ? n->m.size + 1 : STRMAX;
		int ok = label(g), null = label(g);
		scr_zero(g, off, STRMAX);
		gaddr(g, n, null);
		movr(g, BPF_REG_3, BPF_REG_0);
		scr_ptr(g, BPF_REG_1, off);
		mov(g, BPF_REG_2, (int32_t)len);
		call(g, n->user ? BPF_FUNC_probe_read_user_str
				: BPF_FUNC_probe_read_kernel_str);
		jimm(g, BPF_JSGE, BPF_REG_0, 0, ok);
		count_fault(g, n,
			    "a string member could not be read through its "
			    "pointer: \"\"");
		place(g, null); /* a NULL pointer's: "" */
		place(g, ok);
		return;
	}
	case N_CALL: {
		if (n->op == CALL_NTOP) {
			gntop(g, n, off);
			return;
		}
		if (n->op == CALL_STRFTIME) {
			/* the time and the format's index, tagged: user
			 * space writes it out (bpf-sys.c's kernel_text()) */
			const tw_node *f = n->kids[0];
			uint32_t k = g->dry ? 0
					    : keep_text(g, &g->b->times,
							&g->b->ntimes, f->name,
							f->len);
			if (k > UINT16_MAX)
				refuse(g, n, "more than 65535 formats");
			scr_zero(g, off, STRMAX);
			gint(g, n->kids[1]);
			stx(g, BPF_DW, R_SCRATCH, BPF_REG_0,
			    (int16_t)(off + 8));
			st(g, BPF_W, R_SCRATCH, (int16_t)off,
			   (int32_t)(TW_TIME_TAG[0] | TW_TIME_TAG[1] << 8 |
				     k << 16));
			return;
		}
		if (n->op == CALL_KSYM) {
			/* the address, tagged: user space names it when it
			 * reads the string (bpf-sys.c's kernel_text()) */
			scr_zero(g, off, STRMAX);
			gint(g, n->kids[0]);
			stx(g, BPF_DW, R_SCRATCH, BPF_REG_0,
			    (int16_t)(off + 8));
			st(g, BPF_H, R_SCRATCH, (int16_t)off,
			   TW_KSYM_TAG[0] | TW_KSYM_TAG[1] << 8);
			return;
		}
		if (n->op != CALL_STR || n->ival != 1)
			refuse(g, n, "this string expression");
		/* the task's memory at the pointer, up to its NUL (the
		 * helper zeroes what it cannot read) */
		scr_zero(g, off, STRMAX);
		gint(g, n->kids[0]);
		movr(g, BPF_REG_3, BPF_REG_0);
		scr_ptr(g, BPF_REG_1, off);
		mov(g, BPF_REG_2, STRMAX);
		call(g, BPF_FUNC_probe_read_user_str);
		int ok = label(g);
		jimm(g, BPF_JSGE, BPF_REG_0, 0, ok);
		count_fault(g, n,
			    "str() read nothing: the task's memory at the "
			    "pointer was not paged in (or not valid)");
		place(g, ok);
		return;
	}
	case N_COND: {
		int no = label(g), done = label(g);
		gint(g, n->a);
		jimm(g, BPF_JEQ, BPF_REG_0, 0, no);
		gstr(g, n->b, off);
		ja(g, done);
		place(g, no);
		gstr(g, n->c, off);
		place(g, done);
		return;
	}
	default:
		refuse(g, n, "this string expression");
	}
}

/* ---- statements ---- */

/* The value of a map insert at r7 + voff; r0 < 0 counts the map full. */
static void update(gen *g, const tw_node *n, size_t map, uint32_t koff,
		   uint32_t voff, int flags, int skip_exist)
{
	int ok = label(g);
	ldmap(g, BPF_REG_1, MAP_REF(map));
	scr_ptr(g, BPF_REG_2, koff);
	scr_ptr(g, BPF_REG_3, voff);
	mov(g, BPF_REG_4, flags);
	call(g, BPF_FUNC_map_update_elem);
	jimm(g, BPF_JSGE, BPF_REG_0, 0, ok);
	if (skip_exist)
		jimm(g, BPF_JEQ, BPF_REG_0, -EEXIST, ok);
	map_full(g, n, map);
	ja(g, g->probe_end);
	place(g, ok);
}

static uint32_t value_size(const tw_map_decl *d)
{
	switch (d->kind) {
	case MV_STR:
		return STRMAX;
	case MV_MIN:
	case MV_MAX:
		return 16;
	case MV_AVG:
	case MV_STATS:
		return 32;
	case MV_HIST:
		return TW_SC_HIST_BUCKETS * 8;
	case MV_LHIST:
		return (uint32_t)(tw_lhist_nb(d) + 2) * 8;
	default:
		return 8;
	}
}

/* r1 = x, r0 = the value: bucket r2 of a histogram */
static void hist_bucket(gen *g, const tw_map_decl *d, int out)
{
	int done = label(g);
	if (d->kind == MV_HIST) {
		int pos = label(g), notzero = label(g);
		mov(g, BPF_REG_2, 0);
		jimm(g, BPF_JSGE, BPF_REG_1, 0, pos);
		ja(g, done);
		place(g, pos);
		mov(g, BPF_REG_2, 1);
		jimm(g, BPF_JNE, BPF_REG_1, 0, notzero);
		ja(g, done);
		place(g, notzero);
		/* 2 + floor(log2(x)), by halving */
		mov(g, BPF_REG_2, 2);
		movr(g, BPF_REG_3, BPF_REG_1);
		for (int sh = 32; sh; sh /= 2) {
			int skip = label(g);
			movr(g, BPF_REG_4, BPF_REG_3);
			alu(g, BPF_RSH, BPF_REG_4, sh);
			jimm(g, BPF_JEQ, BPF_REG_4, 0, skip);
			movr(g, BPF_REG_3, BPF_REG_4);
			alu(g, BPF_ADD, BPF_REG_2, sh);
			place(g, skip);
		}
	} else {
		int64_t nb = tw_lhist_nb(d);
		int in = label(g), below = label(g);
		ld64(g, BPF_REG_3, d->lh_min);
		jreg(g, BPF_JSLT, BPF_REG_1, BPF_REG_3, below);
		ld64(g, BPF_REG_4, d->lh_max);
		mov(g, BPF_REG_2, (int32_t)(nb + 1));
		jreg(g, BPF_JSGE, BPF_REG_1, BPF_REG_4, done);
		ja(g, in);
		place(g, below);
		mov(g, BPF_REG_2, 0);
		ja(g, done);
		place(g, in);
		movr(g, BPF_REG_2, BPF_REG_1);
		alur(g, BPF_SUB, BPF_REG_2, BPF_REG_3);
		ld64(g, BPF_REG_4, d->lh_step);
		alur(g, BPF_DIV, BPF_REG_2, BPF_REG_4);
		alu(g, BPF_ADD, BPF_REG_2, 1);
	}
	place(g, done);
	int64_t last = d->kind == MV_HIST ? TW_SC_HIST_BUCKETS - 1
					  : tw_lhist_nb(d) + 1;
	jimm(g, BPF_JGT, BPF_REG_2, (int32_t)last, out);
	alu(g, BPF_LSH, BPF_REG_2, 3);
	alur(g, BPF_ADD, BPF_REG_0, BPF_REG_2);
	mov(g, BPF_REG_1, 1);
	xadd(g, BPF_REG_0, BPF_REG_1, 0);
}

static void gagg(gen *g, const tw_node *n)
{
	const tw_node *m = n->a;
	size_t map = (size_t)m->slot;
	check_map(g, n, map);
	const tw_map_decl *d = &g->c->maps[map];
	if (kernel_value_kind(d->kind) || d->kind == MV_NONE)
		refuse(g, n, "this aggregate");
	int16_t x = cell_push(g, n);
	if (n->nkids) {
		gint(g, n->kids[0]);
		stx(g, BPF_DW, BPF_REG_10, BPF_REG_0, x);
	} else {
		st(g, BPF_DW, BPF_REG_10, x, 0);
	}
	uint32_t mark = g->scr;
	uint32_t koff = gkey(g, m);
	at(g, n);
	int have = label(g), out = label(g);
	uint32_t vs = value_size(d);
	lookup(g, MAP_REF(map), koff);
	jimm(g, BPF_JNE, BPF_REG_0, 0, have);
	if (vs <= 64) {
		uint32_t voff = scr_alloc(g, n, vs);
		scr_zero(g, voff, vs);
		update(g, n, map, koff, voff, BPF_NOEXIST, 1);
	} else {
		/* a histogram's zeroes come from a read-only map */
		int ok = label(g), got = label(g);
		if (vs > g->b->zeros_size)
			g->b->zeros_size = vs;
		array_lookup(g, FIX_REF(TW_BPF_M_ZEROS), 0);
		jimm(g, BPF_JNE, BPF_REG_0, 0, got);
		ja(g, out);
		place(g, got);
		movr(g, BPF_REG_3, BPF_REG_0);
		ldmap(g, BPF_REG_1, MAP_REF(map));
		scr_ptr(g, BPF_REG_2, koff);
		mov(g, BPF_REG_4, BPF_NOEXIST);
		call(g, BPF_FUNC_map_update_elem);
		jimm(g, BPF_JSGE, BPF_REG_0, 0, ok);
		jimm(g, BPF_JEQ, BPF_REG_0, -EEXIST, ok);
		map_full(g, n, map);
		ja(g, out);
		place(g, ok);
	}
	lookup(g, MAP_REF(map), koff);
	jimm(g, BPF_JEQ, BPF_REG_0, 0, out);
	place(g, have);
	ldx(g, BPF_DW, BPF_REG_1, BPF_REG_10, x);
	switch (d->kind) {
	case MV_COUNT:
		mov(g, BPF_REG_1, 1);
		xadd(g, BPF_REG_0, BPF_REG_1, 0);
		break;
	case MV_SUM:
		xadd(g, BPF_REG_0, BPF_REG_1, 0);
		break;
	case MV_MIN:
	case MV_MAX: {
		int set = label(g);
		ldx(g, BPF_DW, BPF_REG_2, BPF_REG_0, 0);
		jimm(g, BPF_JEQ, BPF_REG_2, 0, set);
		ldx(g, BPF_DW, BPF_REG_3, BPF_REG_0, 8);
		jreg(g, d->kind == MV_MIN ? BPF_JSGE : BPF_JSLE, BPF_REG_1,
		     BPF_REG_3, out);
		place(g, set);
		stx(g, BPF_DW, BPF_REG_0, BPF_REG_1, 8);
		st(g, BPF_DW, BPF_REG_0, 0, 1);
		break;
	}
	case MV_AVG:
	case MV_STATS: {
		int both = label(g), m1 = label(g), m2 = label(g);
		ldx(g, BPF_DW, BPF_REG_2, BPF_REG_0, 0);
		jimm(g, BPF_JEQ, BPF_REG_2, 0, both);
		ldx(g, BPF_DW, BPF_REG_3, BPF_REG_0, 16);
		jreg(g, BPF_JSGE, BPF_REG_1, BPF_REG_3, m1);
		stx(g, BPF_DW, BPF_REG_0, BPF_REG_1, 16);
		place(g, m1);
		ldx(g, BPF_DW, BPF_REG_3, BPF_REG_0, 24);
		jreg(g, BPF_JSLE, BPF_REG_1, BPF_REG_3, m2);
		stx(g, BPF_DW, BPF_REG_0, BPF_REG_1, 24);
		ja(g, m2);
		place(g, both);
		stx(g, BPF_DW, BPF_REG_0, BPF_REG_1, 16);
		stx(g, BPF_DW, BPF_REG_0, BPF_REG_1, 24);
		place(g, m2);
		alu(g, BPF_ADD, BPF_REG_2, 1);
		stx(g, BPF_DW, BPF_REG_0, BPF_REG_2, 0);
		ldx(g, BPF_DW, BPF_REG_3, BPF_REG_0, 8);
		alur(g, BPF_ADD, BPF_REG_3, BPF_REG_1);
		stx(g, BPF_DW, BPF_REG_0, BPF_REG_3, 8);
		break;
	}
	case MV_HIST:
	case MV_LHIST:
		hist_bucket(g, d, out);
		break;
	default:
		refuse(g, n, "this aggregate");
	}
	place(g, out);
	g->scr = mark;
	g->cells--;
}

/* size bytes of scratch at rec out through the ring buffer (read at the
 * next drain); a full ring is counted as a fault of what's */
static void ring_out(gen *g, const tw_node *n, uint32_t rec, uint32_t size,
		     const char *what)
{
	char msg[96];
	snprintf(msg, sizeof(msg),
		 "%s output lost (the kernel's ring buffer was full)", what);
	int ok = label(g);
	/* the CPU in the kind's upper bits: user space puts each CPU's
	 * records together into whole lines (printf() then join()) */
	call(g, BPF_FUNC_get_smp_processor_id);
	alu(g, BPF_LSH, BPF_REG_0, 8);
	ldx(g, BPF_W, BPF_REG_1, R_SCRATCH, (int16_t)rec);
	alur(g, BPF_OR, BPF_REG_1, BPF_REG_0);
	stx(g, BPF_W, R_SCRATCH, BPF_REG_1, (int16_t)rec);
	ldmap(g, BPF_REG_1, FIX_REF(TW_BPF_M_RING));
	scr_ptr(g, BPF_REG_2, rec);
	mov(g, BPF_REG_3, (int32_t)size);
	mov(g, BPF_REG_4, BPF_RB_NO_WAKEUP);
	call(g, BPF_FUNC_ringbuf_output);
	jimm(g, BPF_JEQ, BPF_REG_0, 0, ok);
	count_fault(g, n, msg);
	place(g, ok);
}

/* A text user space prints a record by (join()'s delimiter, time()'s
 * format), kept in the back end's table: its index. */
static uint32_t keep_text(gen *g, char ***tab, size_t *n, const char *text,
			  size_t len)
{
	char **t = tw_realloc(g->c->mem, *tab, (*n + 1) * sizeof(*t));
	if (!t)
		tw_sc_oom(g->c);
	*tab = t;
	if (!(t[*n] = tw_strndup(g->c->mem, text, len)))
		tw_sc_oom(g->c);
	g->b->printfs++;
	return (uint32_t)(*n)++;
}

/* join(argv [, delim]): the strings argv points to, up to a NULL or
 * TW_BPF_JOIN_ARGS, each read with bpf_probe_read_user_str(), in one
 * record through the ring buffer (printed as printf's are) */
static void gjoin(gen *g, const tw_node *n)
{
	tw_bpf *b = g->b;
	uint32_t slot = 0;
	if (!g->dry)
		slot = keep_text(g, &b->joins, &b->njoins,
				 n->nkids == 2 ? n->kids[1]->name : " ",
				 n->nkids == 2 ? n->kids[1]->len : 1);
	uint32_t mark = g->scr;
	uint32_t size = TW_BPF_JOIN_HEAD + TW_BPF_JOIN_ARGS * STRMAX;
	uint32_t rec = scr_alloc(g, n, size);
	gint(g, n->kids[0]);
	at(g, n);
	stx(g, BPF_DW, R_SCRATCH, BPF_REG_0, (int16_t)(rec + 16));
	st(g, BPF_W, R_SCRATCH, (int16_t)rec, TW_BPF_REC_JOIN);
	st(g, BPF_W, R_SCRATCH, (int16_t)(rec + 4), (int32_t)slot);
	st(g, BPF_W, R_SCRATCH, (int16_t)(rec + 8), 0);
	int done = label(g);
	for (int k = 0; k < TW_BPF_JOIN_ARGS; k++) {
		/* the k-th pointer of the array, to its NULL */
		scr_ptr(g, BPF_REG_1, rec + 24);
		mov(g, BPF_REG_2, 8);
		ldx(g, BPF_DW, BPF_REG_3, R_SCRATCH, (int16_t)(rec + 16));
		if (k)
			alu(g, BPF_ADD, BPF_REG_3, 8 * k);
		call(g, BPF_FUNC_probe_read_user);
		jimm(g, BPF_JNE, BPF_REG_0, 0, done);
		ldx(g, BPF_DW, BPF_REG_3, R_SCRATCH, (int16_t)(rec + 24));
		jimm(g, BPF_JEQ, BPF_REG_3, 0, done);
		scr_ptr(g, BPF_REG_1,
			rec + TW_BPF_JOIN_HEAD + (uint32_t)k * STRMAX);
		mov(g, BPF_REG_2, STRMAX);
		call(g, BPF_FUNC_probe_read_user_str);
		st(g, BPF_W, R_SCRATCH, (int16_t)(rec + 8), k + 1);
	}
	place(g, done);
	ring_out(g, n, rec, size, "join()");
	g->scr = mark;
}

/* time(fmt): the probe's time (bpf_ktime_get_ns()) through the ring
 * buffer, printed as the wall clock then (bpf-sys.c) */
static void gtime(gen *g, const tw_node *n)
{
	tw_bpf *b = g->b;
	uint32_t slot = 0;
	if (!g->dry)
		slot = keep_text(g, &b->times, &b->ntimes,
				 n->nkids ? n->kids[0]->name : "%H:%M:%S\n",
				 n->nkids ? n->kids[0]->len : 9);
	uint32_t mark = g->scr;
	uint32_t rec = scr_alloc(g, n, 16);
	call(g, BPF_FUNC_ktime_get_ns);
	stx(g, BPF_DW, R_SCRATCH, BPF_REG_0, (int16_t)(rec + 8));
	at(g, n);
	st(g, BPF_W, R_SCRATCH, (int16_t)rec, TW_BPF_REC_TIME);
	st(g, BPF_W, R_SCRATCH, (int16_t)(rec + 4), (int32_t)slot);
	ring_out(g, n, rec, 16, "time()");
	g->scr = mark;
}

static void gprintf(gen *g, const tw_node *n)
{
	if (!g->dry)
		g->b->printfs++;
	uint32_t size = 8;
	for (size_t i = 1; i < n->nkids; i++)
		size += n->kids[i]->type == TY_STR ? STRMAX : 8;
	uint32_t mark = g->scr;
	uint32_t rec = scr_alloc(g, n, size);
	uint32_t pos = rec + 8;
	for (size_t i = 1; i < n->nkids; i++) {
		const tw_node *a = n->kids[i];
		if (a->type == TY_STR) {
			gstr(g, a, pos);
			pos += STRMAX;
		} else {
			gint(g, a);
			stx(g, BPF_DW, R_SCRATCH, BPF_REG_0, (int16_t)pos);
			pos += 8;
		}
	}
	at(g, n);
	st(g, BPF_W, R_SCRATCH, (int16_t)rec, TW_BPF_REC_PRINTF);
	st(g, BPF_W, R_SCRATCH, (int16_t)(rec + 4), n->slot);
	ring_out(g, n, rec, size, "printf");
	g->scr = mark;
}

static void gstmt(gen *g, const tw_node *n)
{
	at(g, n);
	switch (n->kind) {
	case N_BLOCK:
		for (size_t i = 0; i < n->nkids; i++)
			gstmt(g, n->kids[i]);
		return;
	case N_EXPRSTMT:
		if (n->a->type == TY_STR) {
			uint32_t mark = g->scr;
			gstr(g, n->a, scr_alloc(g, n, STRMAX));
			g->scr = mark;
		} else {
			gint(g, n->a);
		}
		return;
	case N_SETVAR: {
		int slot = n->a->slot;
		if (slot < 0 || slot >= 64)
			refuse(g, n, "this $var");
		if (n->a->type == TY_STR) {
			if (n->op != TK_ASSIGN)
				refuse(g, n, "this assignment");
			g->var_tagged[slot] |= written_later(g, n->b);
			gstr(g, n->b, g->var_str[slot]);
			return;
		}
		int16_t vc = cell_off(g->var_cell[slot]);
		gint(g, n->b);
		at(g, n);
		if (n->op != TK_ASSIGN) {
			ldx(g, BPF_DW, BPF_REG_1, BPF_REG_10, vc);
			binop(g, n, n->op);
		}
		stx(g, BPF_DW, BPF_REG_10, BPF_REG_0, vc);
		return;
	}
	case N_SETMAP: {
		size_t map = (size_t)n->a->slot;
		check_map(g, n, map);
		const tw_map_decl *d = &g->c->maps[map];
		if (!kernel_value_kind(d->kind))
			refuse(g, n, "assigning @%s", d->name);
		uint32_t mark = g->scr;
		uint32_t voff;
		if (d->kind == MV_STR) {
			if (n->op != TK_ASSIGN)
				refuse(g, n, "this assignment");
			voff = scr_alloc(g, n, STRMAX);
			gstr(g, n->b, voff);
		} else {
			voff = scr_alloc(g, n, 8);
			gint(g, n->b);
			stx(g, BPF_DW, R_SCRATCH, BPF_REG_0, (int16_t)voff);
		}
		uint32_t koff = gkey(g, n->a);
		at(g, n);
		if (n->op != TK_ASSIGN) {
			int none = label(g), have = label(g);
			lookup(g, MAP_REF(map), koff);
			mov(g, BPF_REG_1, 0);
			jimm(g, BPF_JEQ, BPF_REG_0, 0, none);
			ldx(g, BPF_DW, BPF_REG_1, BPF_REG_0, 0);
			ja(g, have);
			place(g, none);
			mov(g, BPF_REG_1, 0);
			place(g, have);
			ldx(g, BPF_DW, BPF_REG_0, R_SCRATCH, (int16_t)voff);
			binop(g, n, n->op);
			stx(g, BPF_DW, R_SCRATCH, BPF_REG_0, (int16_t)voff);
		}
		update(g, n, map, koff, voff, BPF_ANY, 0);
		g->scr = mark;
		return;
	}
	case N_AGG:
		gagg(g, n);
		return;
	case N_DELETE: {
		size_t map = (size_t)n->kids[0]->slot;
		check_map(g, n, map);
		uint32_t mark = g->scr;
		uint32_t koff = gkey(g, n->kids[0]);
		at(g, n);
		ldmap(g, BPF_REG_1, MAP_REF(map));
		scr_ptr(g, BPF_REG_2, koff);
		call(g, BPF_FUNC_map_delete_elem);
		g->scr = mark;
		return;
	}
	case N_IF: {
		int no = label(g), done = label(g);
		gint(g, n->a);
		jimm(g, BPF_JEQ, BPF_REG_0, 0, no);
		gstmt(g, n->b);
		ja(g, done);
		place(g, no);
		if (n->c)
			gstmt(g, n->c);
		place(g, done);
		return;
	}
	case N_PRINTF:
		gprintf(g, n);
		return;
	case N_JOIN:
		gjoin(g, n);
		return;
	case N_EXIT: {
		uint32_t mark = g->scr;
		uint32_t rec = scr_alloc(g, n, 8);
		st(g, BPF_DW, R_SCRATCH, (int16_t)rec, TW_BPF_REC_EXIT);
		ldmap(g, BPF_REG_1, FIX_REF(TW_BPF_M_RING));
		scr_ptr(g, BPF_REG_2, rec);
		mov(g, BPF_REG_3, 8);
		mov(g, BPF_REG_4, 0);
		call(g, BPF_FUNC_ringbuf_output);
		st(g, BPF_DW, R_GLOBALS,
		   (int16_t)offsetof(struct tw_bpf_globals, exited), 1);
		ja(g, g->prog_end);
		g->scr = mark;
		return;
	}
	case N_WHILE:
		refuse(g, n, "while loops");
	case N_BREAK:
	case N_CONTINUE:
		refuse(g, n, "break and continue");
	case N_CLEAR:
	case N_ZERO:
	case N_PRINTMAP:
		refuse(g, n, "clear(), zero() and print() in an event probe");
	case N_TIME:
		gtime(g, n);
		return;
	default:
		refuse(g, n, "this statement");
	}
}

/* $vars of a probe: the type of each slot its tree names */
static void var_types(const tw_node *n, int *types)
{
	if (!n)
		return;
	if (n->kind == N_VAR && n->slot >= 0 && n->slot < 64)
		types[n->slot] = n->type;
	var_types(n->a, types);
	var_types(n->b, types);
	var_types(n->c, types);
	for (size_t i = 0; i < n->nkids; i++)
		var_types(n->kids[i], types);
}

/* One probe's code, for the program's event. */
static void gprobe(gen *g, size_t probe)
{
	const tw_probe *pr = &g->c->probes[probe];
	g->probe = probe;
	g->line = pr->line;
	g->col = pr->col;
	g->cells = 0;
	g->scr = 0;
	if (pr->nslots > 64)
		refuse(g, NULL, "more than 64 $vars");
	int types[64] = {0};
	var_types(pr->pred, types);
	var_types(pr->body, types);
	for (int i = 0; i < 64; i++) {
		g->var_cell[i] = -1;
		g->var_str[i] = NO_STR;
		g->var_tagged[i] = 0;
		if (i >= pr->nslots)
			continue;
		if (types[i] == TY_STR) {
			g->var_str[i] = scr_alloc(g, NULL, STRMAX);
			scr_zero(g, g->var_str[i], STRMAX);
		} else {
			g->var_cell[i] = g->cells;
			st(g, BPF_DW, BPF_REG_10, cell_push(g, NULL), 0);
		}
	}
	g->probe_end = label(g);
	if (pr->pred) {
		gint(g, pr->pred);
		jimm(g, BPF_JEQ, BPF_REG_0, 0, g->probe_end);
	}
	gstmt(g, pr->body);
	place(g, g->probe_end);
}

static void prologue(gen *g)
{
	int ok = label(g);
	movr(g, R_CTX, BPF_REG_1);
	/* the globals by address (an array map's value, no helper call);
	 * after exit() nothing more runs */
	emit(g, insn(BPF_LD | BPF_DW | BPF_IMM, R_GLOBALS, BPF_PSEUDO_MAP_VALUE,
		     0, FIX_REF(TW_BPF_M_GLOBALS)));
	emit(g, insn(0, 0, 0, 0, 0));
	ldx(g, BPF_DW, BPF_REG_1, R_GLOBALS,
	    (int16_t)offsetof(struct tw_bpf_globals, exited));
	jimm(g, BPF_JNE, BPF_REG_1, 0, g->prog_end);
	array_lookup(g, FIX_REF(TW_BPF_M_SCRATCH), 0);
	jimm(g, BPF_JNE, BPF_REG_0, 0, ok);
	ja(g, g->prog_end);
	place(g, ok);
	movr(g, R_SCRATCH, BPF_REG_0);
}

static void epilogue(gen *g)
{
	place(g, g->prog_end);
	mov(g, BPF_REG_0, 0);
	emit(g, insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
}

/* ---- the plan ---- */

/* Event ev's tracepoint ID, from its format (read if not yet). */
static uint32_t format_id(tw_compiler *c, size_t ev)
{
	const tw_schema_event *e = tw_schema_fields(c, ev);
	if (!e->text)
		return 0;
	const char *p = e->text, *end = e->text + e->text_len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (le - p > 3 && memcmp(p, "ID:", 3) == 0) {
			uint64_t v = 0;
			for (const char *q = p + 3; q < le; q++)
				if (*q >= '0' && *q <= '9')
					v = v * 10 + (uint64_t)(*q - '0');
			return v <= UINT32_MAX ? (uint32_t)v : 0;
		}
		p = le + 1;
	}
	return 0;
}

/* A probe that is no event's runs in the kernel as a perf event's
 * program: a profile or software probe, or an interval probe that reads
 * what only the kernel has (kernel memory: loads.bt). */
static int perf_probe(const tw_probe *pr)
{
	return !pr->has_event &&
	       (pr->perf ||
		(pr->specs[0].kind == PK_INTERVAL && pr->user_line));
}

/* Lower probe alone for event e (NO_EVENT: a perf probe), to see whether
 * it can be. Return: 1. */
#define NO_EVENT SIZE_MAX
static int try_probe(gen *g, size_t probe, size_t ev)
{
	tw_bpf_prog tmp = {0};
	size_t nsites = g->b->nsites;
	uint32_t zeros = g->b->zeros_size;
	g->p = &tmp;
	g->dry = 1;
	g->nlabels = g->nfixes = 0;
	g->ev = ev == NO_EVENT ? NULL : &g->c->schema.events[ev];
	g->line = g->c->probes[probe].line;
	g->col = g->c->probes[probe].col;
	volatile int ok = 0;
	if (!setjmp(g->refuse)) {
		if (!g->ev)
			; /* a perf event's: nothing to check of it */
		else if (strcmp(g->ev->system, "ftrace") == 0)
			refuse(g, NULL,
			       "%s is ftrace's own event, not a "
			       "tracepoint",
			       g->ev->name);
		else if (!format_id(g->c, ev))
			refuse(g, NULL, "%s's format has no ID", g->ev->name);
		g->dead = 0;
		g->prog_end = label(g);
		prologue(g);
		gprobe(g, probe);
		epilogue(g);
		resolve(g);
		ok = 1;
	}
	tw_free(g->c->mem, tmp.insns);
	tw_free(g->c->mem, tmp.lines);
	g->b->nsites = nsites;
	g->b->zeros_size = zeros;
	g->dry = 0;
	return ok;
}

/* Maps a tree names; writes: assigned, aggregated or deleted. */
static void maps_of(const tw_node *n, unsigned char *used,
		    unsigned char *written)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_MAPGET:
		used[n->slot] = 1;
		break;
	case N_SETMAP:
	case N_AGG:
		used[n->a->slot] = written[n->a->slot] = 1;
		break;
	case N_DELETE:
		used[n->kids[0]->slot] = written[n->kids[0]->slot] = 1;
		break;
	case N_CLEAR:
	case N_ZERO:
	case N_PRINTMAP:
		used[n->kids[0]->slot] = 1;
		break;
	default:
		break;
	}
	maps_of(n->a, used, written);
	maps_of(n->b, used, written);
	maps_of(n->c, used, written);
	for (size_t i = 0; i < n->nkids; i++)
		maps_of(n->kids[i], used, written);
}

static void explain(tw_compiler *c, tw_bpf *b)
{
	tw_buf out = {0};
	const tw_mem *mem = c->mem;
	char line[600];
	for (size_t i = 0; i < c->nprobes; i++) {
		const tw_probe *pr = &c->probes[i];
		if (!pr->has_event && b->in_kernel[i]) {
			snprintf(line, sizeof(line),
				 "probe %zu (%s, line %u): kernel (BPF, a perf "
				 "event's program)\n",
				 i + 1, pr->label, pr->line);
		} else if (!pr->has_event) {
			snprintf(line, sizeof(line),
				 "probe %zu (%s, line %u): user space (%s)\n",
				 i + 1, pr->label, pr->line,
				 pr->specs[0].kind == PK_BEGIN ? "BEGIN"
				 : pr->specs[0].kind == PK_END ? "END"
							       : "interval");
		} else if (b->in_kernel[i]) {
			snprintf(line, sizeof(line),
				 "probe %zu (%s, line %u): kernel (BPF)\n",
				 i + 1, pr->label, pr->line);
		} else {
			snprintf(line, sizeof(line),
				 "probe %zu (%s, line %u): user space, ftrace "
				 "events: %s\n",
				 i + 1, pr->label, pr->line, b->why[i]);
		}
		if (tw_buf_append(mem, &out, line, strlen(line)) < 0)
			tw_sc_oom(c);
	}
	for (size_t k = 0; k < b->nprogs; k++) {
		snprintf(line, sizeof(line),
			 "program %s: %zu instructions, %zu probe%s\n",
			 b->progs[k].tp, b->progs[k].ninsns,
			 b->progs[k].nprobes,
			 b->progs[k].nprobes == 1 ? "" : "s");
		if (tw_buf_append(mem, &out, line, strlen(line)) < 0)
			tw_sc_oom(c);
	}
	if (tw_buf_append(mem, &out, "", 1) < 0)
		tw_sc_oom(c);
	b->explain = out.data;
}

/* The program of perf probe i (a perf event's, no record). */
/* One more program, of nprobes probes, not loaded. */
static tw_bpf_prog *new_prog(gen *g, size_t nprobes)
{
	tw_bpf *b = g->b;
	tw_bpf_prog *np =
		tw_realloc(g->c->mem, b->progs, (b->nprogs + 1) * sizeof(*np));
	if (!np)
		tw_sc_oom(g->c);
	b->progs = np;
	tw_bpf_prog *p = &b->progs[b->nprogs++];
	memset(p, 0, sizeof(*p));
	p->fd = p->pfd = -1;
	p->nprobes = nprobes;
	return p;
}

static void perf_prog(gen *g, size_t i)
{
	tw_compiler *c = g->c;
	const tw_probe *pr = &c->probes[i];
	tw_bpf_prog *p = new_prog(g, 1);
	p->perf = 1;
	const tw_probe_spec *sp = &pr->specs[0];
	snprintf(p->tp, sizeof(p->tp), "%.*s", (int)sp->len, sp->text);
	if (sp->kind == PK_INTERVAL) {
		p->perf_type = 1;   /* PERF_TYPE_SOFTWARE */
		p->perf_config = 0; /* PERF_COUNT_SW_CPU_CLOCK */
		p->period = (uint64_t)sp->period;
		p->one_cpu = 1;
	} else {
		p->perf_type = sp->perf_type;
		p->perf_config = sp->perf_config;
		p->period = (uint64_t)sp->period;
		p->freq = sp->freq;
	}
	if (sp->uprobe) {
		p->upath = tw_strndup(c->mem, sp->upath, strlen(sp->upath));
		if (!p->upath)
			tw_sc_oom(c);
		p->uoffset = sp->uoffset;
	}
	g->p = p;
	g->ev = NULL;
	g->nlabels = g->nfixes = 0;
	if (setjmp(g->refuse))
		tw_sc_error(c, TRAWL_EUNSUPPORTED, g->line, g->col,
			    "cannot lower the program of %s: %s", p->tp,
			    g->why);
	g->dead = 0;
	g->prog_end = label(g);
	prologue(g);
	gprobe(g, i);
	epilogue(g);
	resolve(g);
}

void tw_bpf_plan(tw_compiler *c, tw_bpf *b)
{
	const tw_mem *mem = c->mem;
	b->in_kernel = tw_calloc(mem, c->nprobes ? c->nprobes : 1,
				 sizeof(*b->in_kernel));
	b->why = tw_calloc(mem, c->nprobes ? c->nprobes : 1, sizeof(*b->why));
	b->maps = tw_calloc(mem, c->nmaps ? c->nmaps : 1, sizeof(*b->maps));
	if (!b->in_kernel || !b->why || !b->maps)
		tw_sc_oom(c);
	b->nmaps = c->nmaps;
	for (size_t i = 0; i < c->nmaps; i++) {
		b->maps[i].fd = -1;
		b->maps[i].key_size = (uint32_t)key_size(&c->maps[i]);
		b->maps[i].value_size = value_size(&c->maps[i]);
		b->maps[i].percpu = !kernel_value_kind(c->maps[i].kind);
	}
	for (int k = 0; k < TW_BPF_M_FIXED; k++)
		b->fixed[k] = -1;
	gen G = {.c = c, .b = b};
	gen *g = &G;
	size_t nm = c->nmaps ? c->nmaps : 1;
	unsigned char *used = tw_sc_alloc(c, c->nprobes * nm + 1);
	unsigned char *written = tw_sc_alloc(c, c->nprobes * nm + 1);
	for (size_t i = 0; i < c->nprobes; i++) {
		const tw_probe *pr = &c->probes[i];
		maps_of(pr->pred, used + i * nm, written + i * nm);
		maps_of(pr->body, used + i * nm, written + i * nm);
		if (perf_probe(pr)) {
			b->in_kernel[i] = try_probe(g, i, NO_EVENT);
			if (!b->in_kernel[i])
				memcpy(b->why[i], g->why, sizeof(b->why[i]));
			continue;
		}
		if (!pr->has_event)
			continue;
		b->in_kernel[i] = 1;
		for (size_t k = 0; k < pr->nevents && b->in_kernel[i]; k++)
			if (!try_probe(g, i, pr->events[k])) {
				b->in_kernel[i] = 0;
				memcpy(b->why[i], g->why, sizeof(b->why[i]));
			}
	}
	/* probes sharing a map stay on one side */
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t m = 0; m < c->nmaps; m++) {
			int user = 0;
			const char *who = NULL;
			for (size_t i = 0; i < c->nprobes; i++) {
				const tw_probe *pr = &c->probes[i];
				int kind = pr->has_event ? PK_EVENT
							 : pr->specs[0].kind;
				if (kind == PK_EVENT && !b->in_kernel[i] &&
				    used[i * nm + m])
					user = 1, who = "a user-space probe";
				if (kind == PK_INTERVAL && !b->in_kernel[i] &&
				    written[i * nm + m])
					user = 1, who = "an interval probe";
			}
			for (size_t i = 0; user && i < c->nprobes; i++)
				if (b->in_kernel[i] && used[i * nm + m]) {
					b->in_kernel[i] = 0;
					snprintf(b->why[i], sizeof(b->why[i]),
						 "@%s is also %s by %s",
						 c->maps[m].name,
						 who[1] == ' ' ? "used"
							       : "written",
						 who);
					changed = 1;
				}
		}
	}
	for (size_t m = 0; m < c->nmaps; m++)
		for (size_t i = 0; i < c->nprobes; i++)
			if (b->in_kernel[i] && used[i * nm + m])
				b->maps[m].kernel = 1;
	/* what only the kernel can read leaves no choice */
	for (size_t i = 0; i < c->nprobes; i++) {
		const tw_probe *pr = &c->probes[i];
		if (pr->user_line && !b->in_kernel[i])
			tw_sc_error(c, TRAWL_EUNSUPPORTED, pr->user_line,
				    pr->user_col,
				    "probe %s reads %s, which only a probe in "
				    "the kernel can, but it cannot run there: "
				    "%s",
				    pr->label,
				    pr->user_what ? pr->user_what
						  : "the task's memory (str() "
						    "of a pointer)",
				    b->why[i]);
		b->must_load |= pr->user_line != 0;
	}
	if (b->backend == TRAWL_BACKEND_BPF)
		for (size_t i = 0; i < c->nprobes; i++)
			if ((c->probes[i].has_event ||
			     perf_probe(&c->probes[i])) &&
			    !b->in_kernel[i])
				tw_sc_error(c, TRAWL_EUNSUPPORTED,
					    c->probes[i].line, c->probes[i].col,
					    "--backend bpf: probe %s cannot "
					    "run in the kernel: %s",
					    c->probes[i].label, b->why[i]);
	/* one program per event, its kernel probes in script order */
	for (size_t e = 0; e < c->schema.nevents; e++) {
		size_t n = 0;
		for (size_t i = 0; i < c->nprobes; i++)
			for (size_t k = 0;
			     b->in_kernel[i] && k < c->probes[i].nevents; k++)
				n += c->probes[i].events[k] == e;
		if (!n)
			continue;
		tw_bpf_prog *p = new_prog(g, n);
		const tw_schema_event *ev = &c->schema.events[e];
		snprintf(p->tp, sizeof(p->tp), "%s:%s", ev->system, ev->name);
		p->tp_id = format_id(c, e);
		g->p = p;
		g->ev = ev;
		g->nlabels = g->nfixes = 0;
		if (setjmp(g->refuse))
			tw_sc_error(c, TRAWL_EUNSUPPORTED, g->line, g->col,
				    "cannot lower the program of %s: %s", p->tp,
				    g->why);
		g->dead = 0;
		g->prog_end = label(g);
		prologue(g);
		for (size_t i = 0; i < c->nprobes; i++)
			for (size_t k = 0;
			     b->in_kernel[i] && k < c->probes[i].nevents; k++)
				if (c->probes[i].events[k] == e)
					gprobe(g, i);
		epilogue(g);
		resolve(g);
	}
	/* one program per perf probe */
	for (size_t i = 0; i < c->nprobes; i++)
		if (b->in_kernel[i] && perf_probe(&c->probes[i]))
			perf_prog(g, i);
	explain(c, b);
}
