/* SPDX-License-Identifier: MIT */
/*
 * Lowering: the typed intermediate form to bytecode (opcodes.h), one code
 * range per probe. The VM's stack depth is counted as code is emitted, so
 * the stack is allocated once at its maximum and never checked per op.
 * Conditions (predicates, if, while, ?:, && and ||) are lowered as jumps
 * (branch()), not as values that are then tested: an integer comparison
 * is one compare-and-jump, and && and || jump past what they need not
 * evaluate without making a 0 or 1 first.
 */
#include "opcodes.h"
#include "script-int.h"

typedef struct lower {
	tw_compiler *c;
	tw_program *p;
	size_t depth;
	/* the innermost loop: where continue goes, and breaks to patch */
	size_t loop_top;
	size_t *breaks;
	size_t nbreaks, breaks_cap;
	uint32_t line, col;
	/* the fields (slots below 64) certainly read already in this run of
	 * the probe, on every path to the code being emitted: a read of one
	 * of them is FIELDK. Code that may not run (the right side of && and
	 * ||, the arms of if and ?:, a loop's body) adds nothing after it. */
	uint64_t known;
} lower;

static size_t emit(lower *L, int op, uint32_t arg)
{
	tw_program *p = L->p;
	if (arg > TW_ARG_MAX)
		tw_sc_error(L->c, TRAWL_ELIMIT, L->line, L->col,
			    "the script is too large");
	if (tw_grow(L->c->mem, (void **)&p->code, &p->code_cap, p->ncode + 1,
		    sizeof(*p->code)))
		tw_sc_oom(L->c);
	if (tw_grow(L->c->mem, (void **)&p->lines, &p->lines_cap, p->ncode + 1,
		    sizeof(*p->lines)))
		tw_sc_oom(L->c);
	p->code[p->ncode] = (uint32_t)op | arg << 8;
	p->lines[p->ncode] = L->line << 12 | (L->col > 4095 ? 4095 : L->col);
	return p->ncode++;
}

static void patch(lower *L, size_t at, size_t target)
{
	if (target > TW_ARG_MAX)
		tw_sc_error(L->c, TRAWL_ELIMIT, L->line, L->col,
			    "the script is too large");
	L->p->code[at] = TW_OP(L->p->code[at]) | (uint32_t)target << 8;
}

static void push(lower *L, size_t n)
{
	L->depth += n;
	if (L->depth > L->p->max_stack)
		L->p->max_stack = L->depth;
	if (L->depth > TW_SC_MAX_STACK)
		tw_sc_error(L->c, TRAWL_ELIMIT, L->line, L->col,
			    "expression too deep");
}

static void pop(lower *L, size_t n)
{
	L->depth -= n;
}

static void at(lower *L, const tw_node *n)
{
	L->line = n->line;
	L->col = n->col;
}

static void push_int(lower *L, int64_t v)
{
	if (v >= 0 && v <= (int64_t)TW_ARG_MAX) {
		emit(L, OP_PUSHI, (uint32_t)v);
	} else {
		tw_program *p = L->p;
		if (tw_grow(L->c->mem, (void **)&p->ints, &p->ints_cap,
			    p->nints + 1, sizeof(*p->ints)))
			tw_sc_oom(L->c);
		p->ints[p->nints] = v;
		emit(L, OP_PUSHK, (uint32_t)p->nints++);
	}
	push(L, 1);
}

static void push_str(lower *L, const char *s, size_t n)
{
	tw_program *p = L->p;
	if (tw_grow(L->c->mem, (void **)&p->strs, &p->strs_cap, p->nstrs + 1,
		    sizeof(*p->strs)))
		tw_sc_oom(L->c);
	char *copy = tw_strndup(L->c->mem, s, n);
	if (!copy)
		tw_sc_oom(L->c);
	p->strs[p->nstrs].s = copy;
	p->strs[p->nstrs].len = n;
	emit(L, OP_PUSHS, (uint32_t)p->nstrs++);
	push(L, 1);
}

static int binop(int tok, int str)
{
	switch (tok) {
	case TK_PLUS:
	case TK_ADD_ASSIGN:
		return OP_ADD;
	case TK_MINUS:
	case TK_SUB_ASSIGN:
		return OP_SUB;
	case TK_STAR:
	case TK_MUL_ASSIGN:
		return OP_MUL;
	case TK_SLASH:
	case TK_DIV_ASSIGN:
		return OP_DIV;
	case TK_PERCENT:
	case TK_MOD_ASSIGN:
		return OP_MOD;
	case TK_AMP:
	case TK_AND_ASSIGN:
		return OP_AND;
	case TK_PIPE:
	case TK_OR_ASSIGN:
		return OP_OR;
	case TK_CARET:
	case TK_XOR_ASSIGN:
		return OP_XOR;
	case TK_SHL:
	case TK_SHL_ASSIGN:
		return OP_SHL;
	case TK_SHR:
	case TK_SHR_ASSIGN:
		return OP_SHR;
	case TK_EQ:
		return str ? OP_SEQ : OP_EQ;
	case TK_NE:
		return str ? OP_SNE : OP_NE;
	case TK_LT:
		return str ? OP_SLT : OP_LT;
	case TK_LE:
		return str ? OP_SLE : OP_LE;
	case TK_GT:
		return str ? OP_SGT : OP_GT;
	case TK_GE:
		return str ? OP_SGE : OP_GE;
	default:
		return OP_HALT;
	}
}

static void expr(lower *L, const tw_node *n);
static void emit_word(lower *L, uint32_t w);

/* The slot of m's key when it is one integer field read already in this
 * run (MGETK, MSETK take it from the run's field cache), else -1. */
static int known_key(const lower *L, const tw_node *m)
{
	if (m->nkids != 1)
		return -1;
	const tw_node *k = m->kids[0];
	if (k->kind != N_FIELD || k->a || k->type != TY_INT || k->slot >= 64 ||
	    !(L->known >> k->slot & 1))
		return -1;
	return k->slot;
}

/*
 * Jumps whose target is not known yet are chained through their A field
 * (the index of the next one in the chain plus 1; 0 ends it), as Lua's
 * code generator keeps its jump lists, and patched together once the
 * target is emitted.
 */
static void jump(lower *L, int op, size_t *chain)
{
	size_t at = emit(L, op, (uint32_t)*chain);
	*chain = at + 1;
}

static void patch_chain(lower *L, size_t chain, size_t target)
{
	while (chain) {
		size_t at = chain - 1;
		chain = TW_ARG(L->p->code[at]);
		patch(L, at, target);
	}
}

/* The compare-and-jump of an integer comparison: jumping when it holds
 * (sense 1) or when it does not (sense 0); OP_HALT for other operators. */
static int jcmp(int tok, int sense)
{
	switch (tok) {
	case TK_EQ:
		return sense ? OP_JEQ : OP_JNE;
	case TK_NE:
		return sense ? OP_JNE : OP_JEQ;
	case TK_LT:
		return sense ? OP_JLT : OP_JGE;
	case TK_LE:
		return sense ? OP_JLE : OP_JGT;
	case TK_GT:
		return sense ? OP_JGT : OP_JLE;
	case TK_GE:
		return sense ? OP_JGE : OP_JLT;
	default:
		return OP_HALT;
	}
}

/* The JxxK form of a compare-and-jump (the opcodes are in the same
 * order) */
_Static_assert(OP_JNEK - OP_JEQK == OP_JNE - OP_JEQ &&
		       OP_JLTK - OP_JEQK == OP_JLT - OP_JEQ &&
		       OP_JLEK - OP_JEQK == OP_JLE - OP_JEQ &&
		       OP_JGTK - OP_JEQK == OP_JGT - OP_JEQ &&
		       OP_JGEK - OP_JEQK == OP_JGE - OP_JEQ,
	       "opcodes.h: JxxK in the order of Jxx");

static int jcmpk(int op)
{
	return op - OP_JEQ + OP_JEQK;
}

/* A raw word after an instruction: a JxxK's constant */
static void emit_word(lower *L, uint32_t w)
{
	size_t at = emit(L, OP_HALT, 0);
	L->p->code[at] = w;
}

/*
 * Code that jumps to the chain *chain when n's truth is sense and falls
 * through otherwise.
 *   cond -> cond && cond | cond || cond | !cond | e CMP e | e
 */
static void branch(lower *L, const tw_node *n, int sense, size_t *chain)
{
	at(L, n);
	if (n->kind == N_AND || n->kind == N_OR) {
		if ((n->kind == N_AND) != sense) {
			/* && when false, || when true: either side decides */
			branch(L, n->a, sense, chain);
			uint64_t k = L->known;
			branch(L, n->b, sense, chain);
			L->known = k;
		} else {
			/* && when true, || when false: the left side alone
			 * can only rule it out */
			size_t skip = 0;
			branch(L, n->a, !sense, &skip);
			uint64_t k = L->known;
			branch(L, n->b, sense, chain);
			L->known = k;
			patch_chain(L, skip, L->p->ncode);
		}
		return;
	}
	if (n->kind == N_UNARY && n->op == TK_BANG) {
		branch(L, n->a, !sense, chain);
		return;
	}
	int op = n->kind == N_BINARY && n->a->type == TY_INT
			 ? jcmp(n->op, sense)
			 : OP_HALT;
	if (op != OP_HALT && n->b->kind == N_INT && n->b->ival >= INT32_MIN &&
	    n->b->ival <= INT32_MAX) {
		/* against a constant: the constant in the instruction */
		expr(L, n->a);
		at(L, n);
		jump(L, jcmpk(op), chain);
		emit_word(L, (uint32_t)(int32_t)n->b->ival);
		pop(L, 1);
		return;
	}
	if (op != OP_HALT) {
		expr(L, n->a);
		expr(L, n->b);
		at(L, n);
		jump(L, op, chain);
		pop(L, 2);
		return;
	}
	expr(L, n);
	jump(L, sense ? OP_JNZ : OP_JZ, chain);
	pop(L, 1);
}

static void keys(lower *L, const tw_node *m)
{
	for (size_t i = 0; i < m->nkids; i++)
		expr(L, m->kids[i]);
}

static void expr(lower *L, const tw_node *n)
{
	size_t j2;
	at(L, n);
	switch (n->kind) {
	case N_INT:
		push_int(L, n->ival);
		return;
	case N_STR:
		push_str(L, n->name, n->len);
		return;
	case N_PCAST:
	case N_MEMBER:
		/* kernel memory: a probe that reads it never runs here
		 * (bpf-gen.c) */
		if (n->type == TY_STR)
			push_str(L, "", 0);
		else
			push_int(L, 0);
		return;
	case N_CTX:
		if (n->op == CX_KSTACK)
			emit(L, OP_KSTACK, (uint32_t)n->type >> 8);
		else
			emit(L, OP_CTX, (uint32_t)n->op);
		push(L, 1);
		return;
	case N_FIELD:
		if (n->a) {
			expr(L, n->a);
			at(L, n);
			emit(L, OP_FIELDA, (uint32_t)n->slot);
			return;
		}
		if (n->slot < 64 && (L->known >> n->slot & 1)) {
			emit(L, OP_FIELDK, (uint32_t)n->slot);
		} else {
			emit(L, n->type == TY_STR ? OP_FIELDS : OP_FIELDI,
			     (uint32_t)n->slot);
			if (n->slot < 64)
				L->known |= 1ull << n->slot;
		}
		push(L, 1);
		return;
	case N_VAR:
		emit(L, OP_LDV, (uint32_t)n->slot);
		push(L, 1);
		return;
	case N_MAPGET: {
		int f = known_key(L, n);
		if (f >= 0) {
			emit(L, OP_MGETK, (uint32_t)n->slot);
			emit_word(L, (uint32_t)f);
			push(L, 1);
			return;
		}
		keys(L, n);
		at(L, n);
		emit(L, OP_MGET, (uint32_t)n->slot);
		pop(L, n->nkids);
		push(L, 1);
		return;
	}
	case N_UNARY:
		expr(L, n->a);
		at(L, n);
		if (n->op == TK_STAR) {
			/* kernel memory: a probe that reads it never runs
			 * here (bpf-gen.c) */
			emit(L, OP_POP, 0);
			pop(L, 1);
			push_int(L, 0);
			return;
		}
		emit(L,
		     n->op == TK_MINUS	? OP_NEG
		     : n->op == TK_BANG ? OP_NOT
					: OP_BNOT,
		     0);
		return;
	case N_BINARY:
		expr(L, n->a);
		expr(L, n->b);
		at(L, n);
		emit(L, binop(n->op, n->a->type == TY_STR), 0);
		pop(L, 1);
		return;
	case N_AND:
	case N_OR: {
		size_t no = 0;
		branch(L, n, 0, &no);
		push_int(L, 1);
		j2 = emit(L, OP_JMP, 0);
		pop(L, 1);
		patch_chain(L, no, L->p->ncode);
		push_int(L, 0);
		patch(L, j2, L->p->ncode);
		return;
	}
	case N_COND: {
		size_t no = 0;
		branch(L, n->a, 0, &no);
		uint64_t k = L->known;
		expr(L, n->b);
		L->known = k;
		j2 = emit(L, OP_JMP, 0);
		pop(L, 1);
		patch_chain(L, no, L->p->ncode);
		expr(L, n->c);
		L->known = k;
		patch(L, j2, L->p->ncode);
		return;
	}
	case N_CALL:
		if (n->op == CALL_KSYM || n->op == CALL_BSWAP) {
			expr(L, n->kids[0]);
			at(L, n);
			emit(L, n->op == CALL_KSYM ? OP_KSYM : OP_BSWAP,
			     n->width > 0 && n->width < 8 ? (uint32_t)n->width
							  : 8);
			return;
		}
		if (n->op == CALL_STRFTIME) {
			expr(L, n->kids[0]);
			expr(L, n->kids[1]);
			at(L, n);
			emit(L, OP_STRFTIME, 0);
			pop(L, 1);
			return;
		}
		if (n->op == CALL_NTOP) {
			for (size_t i = 0; i < n->nkids; i++)
				expr(L, n->kids[i]);
			at(L, n);
			emit(L, OP_NTOP, (uint32_t)n->nkids);
			pop(L, n->nkids - 1);
			return;
		}
		if (n->op == CALL_STR) {
			/* str() of a user pointer: read in the kernel, and a
			 * probe that has one never runs here (bpf-gen.c) */
			push_str(L, "", 0);
			return;
		}
		for (size_t i = 0; i < n->nkids; i++)
			expr(L, n->kids[i]);
		at(L, n);
		emit(L,
		     n->op == CALL_STRLEN    ? OP_STRLEN
		     : n->op == CALL_STRNCMP ? OP_STRNCMP
					     : OP_STRCONTAINS,
		     0);
		pop(L, n->nkids - 1);
		return;
	default:
		tw_sc_error(L->c, TRAWL_EPARSE, n->line, n->col,
			    "cannot lower this expression");
	}
}

static void stmt(lower *L, const tw_node *n)
{
	at(L, n);
	switch (n->kind) {
	case N_BLOCK:
		for (size_t i = 0; i < n->nkids; i++)
			stmt(L, n->kids[i]);
		return;
	case N_EXPRSTMT:
		expr(L, n->a);
		emit(L, OP_POP, 0);
		pop(L, 1);
		return;
	case N_SETVAR:
		if (n->op != TK_ASSIGN) {
			emit(L, OP_LDV, (uint32_t)n->a->slot);
			push(L, 1);
			expr(L, n->b);
			at(L, n);
			emit(L, binop(n->op, 0), 0);
			pop(L, 1);
		} else {
			expr(L, n->b);
		}
		emit(L, OP_STV, (uint32_t)n->a->slot);
		pop(L, 1);
		return;
	case N_SETMAP:
		if (n->op == TK_ASSIGN && known_key(L, n->a) >= 0) {
			/* a field's cached value has no side effect: the key
			 * may be taken after the value */
			int f = known_key(L, n->a);
			expr(L, n->b);
			at(L, n);
			emit(L, OP_MSETK, (uint32_t)n->a->slot);
			emit_word(L, (uint32_t)f);
			pop(L, 1);
			return;
		}
		keys(L, n->a);
		if (n->op != TK_ASSIGN) {
			keys(L, n->a);
			at(L, n);
			emit(L, OP_MGET, (uint32_t)n->a->slot);
			pop(L, n->a->nkids);
			push(L, 1);
			expr(L, n->b);
			at(L, n);
			emit(L, binop(n->op, 0), 0);
			pop(L, 1);
		} else {
			expr(L, n->b);
		}
		at(L, n);
		emit(L, OP_MSET, (uint32_t)n->a->slot);
		pop(L, n->a->nkids + 1);
		return;
	case N_AGG:
		keys(L, n->a);
		if (n->nkids)
			expr(L, n->kids[0]);
		at(L, n);
		emit(L, OP_MAGG, (uint32_t)n->a->slot);
		pop(L, n->a->nkids + (n->nkids ? 1 : 0));
		return;
	case N_DELETE:
		keys(L, n->kids[0]);
		at(L, n);
		emit(L, OP_MDEL, (uint32_t)n->kids[0]->slot);
		pop(L, n->kids[0]->nkids);
		return;
	case N_CLEAR:
		emit(L, OP_MCLEAR, (uint32_t)n->kids[0]->slot);
		return;
	case N_ZERO:
		emit(L, OP_MZERO, (uint32_t)n->kids[0]->slot);
		return;
	case N_PRINTMAP:
		if (n->nkids == 2)
			expr(L, n->kids[1]);
		else
			push_int(L, -1);
		at(L, n);
		emit(L, OP_MPRINT, (uint32_t)n->kids[0]->slot);
		pop(L, 1);
		return;
	case N_PRINTF:
		for (size_t i = 1; i < n->nkids; i++)
			expr(L, n->kids[i]);
		at(L, n);
		emit(L, OP_PRINTF, (uint32_t)n->slot);
		pop(L, n->nkids - 1);
		return;
	case N_TIME:
		if (n->nkids)
			push_str(L, n->kids[0]->name, n->kids[0]->len);
		else
			push_str(L, "%H:%M:%S\n", 9); /* bpftrace's default */
		at(L, n);
		emit(L, OP_TIME, 0);
		pop(L, 1);
		return;
	case N_JOIN:
		/* read in the kernel: a probe that has one never runs here
		 * (bpf-gen.c) */
		return;
	case N_EXIT:
		emit(L, OP_EXIT, 0);
		return;
	case N_IF: {
		size_t no = 0;
		branch(L, n->a, 0, &no);
		uint64_t k = L->known;
		stmt(L, n->b);
		L->known = k;
		if (n->c) {
			size_t je = emit(L, OP_JMP, 0);
			patch_chain(L, no, L->p->ncode);
			stmt(L, n->c);
			L->known = k;
			patch(L, je, L->p->ncode);
		} else {
			patch_chain(L, no, L->p->ncode);
		}
		return;
	}
	case N_WHILE: {
		size_t outer_top = L->loop_top, outer_breaks = L->nbreaks;
		L->loop_top = emit(L, OP_LOOP, 0);
		size_t no = 0;
		branch(L, n->a, 0, &no);
		uint64_t k = L->known;
		stmt(L, n->b);
		L->known = k;
		emit(L, OP_JMP, (uint32_t)L->loop_top);
		patch_chain(L, no, L->p->ncode);
		for (size_t i = outer_breaks; i < L->nbreaks; i++)
			patch(L, L->breaks[i], L->p->ncode);
		L->nbreaks = outer_breaks;
		L->loop_top = outer_top;
		return;
	}
	case N_BREAK: {
		size_t j = emit(L, OP_JMP, 0);
		tw_sc_grow(L->c, (void **)&L->breaks, &L->breaks_cap,
			   L->nbreaks + 1, sizeof(*L->breaks));
		L->breaks[L->nbreaks++] = j;
		return;
	}
	case N_CONTINUE:
		emit(L, OP_JMP, (uint32_t)L->loop_top);
		return;
	default:
		tw_sc_error(L->c, TRAWL_EPARSE, n->line, n->col,
			    "cannot lower this statement");
	}
}

static void copy_fmts(tw_compiler *c, tw_program *p)
{
	if (!c->nfmts)
		return;
	p->fmts = tw_calloc(c->mem, c->nfmts, sizeof(*p->fmts));
	if (!p->fmts)
		tw_sc_oom(c);
	p->nfmts = c->nfmts;
	for (size_t i = 0; i < c->nfmts; i++) {
		const tw_fmt *f = &c->fmts[i];
		size_t tl = f->nconvs ? f->convs[f->nconvs - 1].lit_off +
						f->convs[f->nconvs - 1].lit_len
				      : 0;
		char *text = tw_strndup(c->mem, f->text, tl);
		tw_fmt_conv *cv = tw_calloc(c->mem, f->nconvs ? f->nconvs : 1,
					    sizeof(*cv));
		if (!text || !cv) {
			tw_free(c->mem, text);
			tw_free(c->mem, cv);
			tw_sc_oom(c);
		}
		if (f->nconvs)
			memcpy(cv, f->convs, f->nconvs * sizeof(*cv));
		p->fmts[i] = *f;
		p->fmts[i].text = text;
		p->fmts[i].convs = cv;
	}
}

void tw_lower_program(tw_compiler *c)
{
	lower L = {.c = c, .p = c->prog};
	copy_fmts(c, c->prog);
	for (size_t i = 0; i < c->nprobes; i++) {
		tw_probe *pr = &c->probes[i];
		L.line = pr->line;
		L.col = pr->col;
		pr->code_start = L.p->ncode;
		L.known = 0;
		size_t no = 0;
		if (pr->pred)
			branch(&L, pr->pred, 0, &no);
		stmt(&L, pr->body);
		patch_chain(&L, no, L.p->ncode);
		emit(&L, OP_HALT, 0);
	}
	c->prog->nvars = c->nslots;
}

void tw_program_free(const tw_mem *mem, tw_program *p)
{
	tw_free(mem, p->code);
	tw_free(mem, p->lines);
	tw_free(mem, p->ints);
	for (size_t i = 0; i < p->nstrs; i++)
		tw_free(mem, p->strs[i].s);
	tw_free(mem, p->strs);
	for (size_t i = 0; i < p->nfmts; i++) {
		tw_free(mem, (char *)p->fmts[i].text);
		tw_free(mem, p->fmts[i].convs);
	}
	tw_free(mem, p->fmts);
	tw_free(mem, p->var_types);
	memset(p, 0, sizeof(*p));
}
