/* SPDX-License-Identifier: MIT */
/*
 * The VM: runs one probe's bytecode (opcodes.h) for one event. Values are
 * integers or borrowed strings (event fields until the callback returns,
 * constants, map entries, $var buffers); what outlives the run is copied
 * (maps, $vars: at most TW_SC_STRMAX bytes). A fault (division by zero, a
 * loop over its bound) abandons this run only and is counted; a full map
 * drops that one update. The stack's depth was bounded when lowering.
 */
#include <limits.h>
#include <stdio.h>
#include <sys/socket.h>

#include "opcodes.h"
#include "bpf-int.h"
#include "script-int.h"

static tw_fault *fault_at(trawl_script *s, size_t probe, uint32_t pc,
			  uint32_t lc, const char *what)
{
	for (size_t i = 0; i < s->nfaults; i++)
		if (s->faults[i].probe == probe && s->faults[i].pc == pc)
			return &s->faults[i];
	if (s->nfaults == TW_SC_MAX_FAULTS) {
		s->faults_lost++;
		return NULL;
	}
	tw_fault *f = &s->faults[s->nfaults++];
	f->probe = probe;
	f->pc = pc;
	f->count = 0;
	snprintf(f->msg, sizeof(f->msg), "%s:%u:%u: probe %s: %s", s->name,
		 lc >> 12, lc & 4095, s->probes[probe].label, what);
	return f;
}

void tw_sc_fault(trawl_script *s, size_t probe, uint32_t pc, const char *what)
{
	tw_fault *f = fault_at(
		s, probe, pc, pc < s->prog.ncode ? s->prog.lines[pc] : 0, what);
	if (f)
		f->count++;
}

void tw_sc_fault_set(trawl_script *s, size_t probe, uint32_t key, uint32_t line,
		     uint32_t col, const char *what, uint64_t count)
{
	tw_fault *f = fault_at(s, probe, key, line << 12 | (col & 4095), what);
	if (f)
		f->count = count;
}

static const char empty[1] = "";

static int str_cmp(const tw_sval *a, const tw_sval *b)
{
	size_t an = (size_t)a->i, bn = (size_t)b->i;
	size_t n = an < bn ? an : bn;
	int c = n ? memcmp(a->s, b->s, n) : 0;
	if (c)
		return c < 0 ? -1 : 1;
	return an == bn ? 0 : an < bn ? -1 : 1;
}

static int64_t do_strncmp(const tw_sval *a, const tw_sval *b, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		int ca = i < a->i ? (unsigned char)a->s[i] : 0;
		int cb = i < b->i ? (unsigned char)b->s[i] : 0;
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (!ca)
			break;
	}
	return 0;
}

/* A chained map's entry for keys (create: made if absent; *full as
 * tw_smap_get() says). A map without keys has one entry: the last one. */
static tw_mentry *lookup(tw_smap *m, const tw_sval *keys, char *buf, int create,
			 int *full)
{
	if (m->nkeys == 0 && m->last)
		return m->last;
	size_t kl = tw_smap_key(m->decl, keys, buf);
	return tw_smap_get(m, buf, kl, create, full);
}

/* An update dropped at the map's limit: counted as a fault of its site. */
static void map_full(trawl_script *s, size_t probe, uint32_t pc,
		     const tw_smap *m)
{
	char what[96];
	snprintf(what, sizeof(what),
		 "@%s is full (%zu keys, --map-size): update dropped",
		 m->decl->name, m->limit);
	tw_sc_fault(s, probe, pc, what);
}

/* kstack: the stack ftrace recorded after the event (hold.c gave it),
 * interned as a stack of type type; none recorded is a fault */
static int64_t event_stack(trawl_script *s, size_t probe, uint32_t pc, int type)
{
	if (s->ev_stack != 1) {
		tw_sc_fault(s, probe, pc,
			    "kstack: no kernel stack was recorded after this "
			    "event (record with trawl record -e EVENT --stack, "
			    "or trace-cmd record -R stacktrace); the stack is "
			    "empty");
		return 0;
	}
	int64_t id = tw_stack_intern(&s->stacks, s->ev_frames, s->ev_nframes,
				     TY_STACK | type);
	if (id == -1)
		tw_sc_fault(s, probe, pc,
			    "kstack: more distinct stacks than a run keeps "
			    "(262144); the stack is empty");
	else if (id == -2)
		s->oom = 1;
	return id < 0 ? 0 : id;
}

/* tw_mentry_int(), inline */
static inline int64_t value_int(const tw_smap *m, const tw_mentry *e)
{
	if (m->kind == MV_AVG || m->kind == MV_STATS)
		return e->v[0] ? e->v[1] / e->v[0] : 0;
	return e->v[0];
}

static void agg(const tw_smap *m, tw_mentry *e, int64_t x)
{
	const tw_map_decl *d = m->decl;
	int64_t *v = e->v;
	switch (m->kind) {
	case MV_COUNT:
		v[0]++;
		break;
	case MV_SUM:
		v[0] = (int64_t)((uint64_t)v[0] + (uint64_t)x);
		break;
	case MV_MIN:
		if (x < v[0])
			v[0] = x;
		break;
	case MV_MAX:
		if (x > v[0])
			v[0] = x;
		break;
	case MV_AVG:
	case MV_STATS:
		v[0]++;
		v[1] = (int64_t)((uint64_t)v[1] + (uint64_t)x);
		if (x < v[2])
			v[2] = x;
		if (x > v[3])
			v[3] = x;
		break;
	case MV_HIST:
		v[tw_hist_bucket(x)]++;
		break;
	case MV_LHIST: {
		int64_t nb = tw_lhist_nb(d);
		int64_t i;
		if (x < d->lh_min)
			i = 0;
		else if (x >= d->lh_max)
			i = nb + 1;
		else
			i = 1 +
			    (int64_t)(((__int128)x - d->lh_min) / d->lh_step);
		v[i]++;
		break;
	}
	default:
		break;
	}
}

/*
 * Element k of array field slot of ev. Fields are reached by index for
 * arrays (the public API has no array read by handle): the index where the
 * field was found last is tried first, its name compared, as field.c does
 * for handles; only a type whose layout differs searches.
 */
static int64_t array_elem(const trawl_script *s, size_t probe,
			  const trawl_event *ev, tw_binding *b, uint32_t slot,
			  int64_t k)
{
	const char *name = s->probes[probe].fnames[slot];
	size_t nl = strlen(name), cnt = trawl_event_field_count(ev), len;
	int32_t at = b->aidx[slot];
	const char *fn = at >= 0 && (size_t)at < cnt
				 ? trawl_event_field_name(ev, (size_t)at, &len)
				 : NULL;
	if (!fn || len != nl || memcmp(fn, name, nl) != 0) {
		at = -1;
		for (size_t i = 0; i < cnt && at < 0; i++) {
			fn = trawl_event_field_name(ev, i, &len);
			if (fn && len == nl && memcmp(fn, name, nl) == 0)
				at = (int32_t)i;
		}
		if (at < 0)
			return 0;
		b->aidx[slot] = at;
	}
	const int64_t *el = NULL;
	size_t n = trawl_event_field_array(ev, (size_t)at, &el);
	return k >= 0 && (uint64_t)k < n && el ? el[k] : 0;
}

int tw_vm_exec(trawl_script *s, size_t probe, const trawl_event *ev,
	       tw_binding *b, int64_t now)
{
	const trawl_field *handles = b ? b->handles : NULL;
	const tw_program *p = &s->prog;
	const uint32_t *code = p->code;
	tw_smap *smaps = s->smaps;
	uint64_t *fgen = s->fgen;
	tw_sval *fvals = s->fvals;
	tw_sval *st = s->stack;
	size_t sp = 0;
	size_t pc = s->probes[probe].code_start;
	uint64_t loops = 0;
	char *key = s->keybuf;
	uint64_t gen = ++s->gen;
	/* its own $vars only: a $var set in one branch may be read after it
	 * (the checker goes by the text's order), and reads "" or 0 then */
	for (int i = 0; i < s->probes[probe].nslots; i++) {
		s->vars[i].i = 0;
		s->vars[i].s = empty;
	}
#define A   (TW_ARG(w))
#define TOP (st[sp - 1])
#define FAULT(what)                                                            \
	do {                                                                   \
		tw_sc_fault(s, probe, (uint32_t)(pc - 1), what);               \
		return 0;                                                      \
	} while (0)
#define BIN(expr)                                                              \
	do {                                                                   \
		int64_t b = st[--sp].i, a = TOP.i;                             \
		(void)a;                                                       \
		(void)b;                                                       \
		TOP.i = (expr);                                                \
	} while (0)
#define SCMP(cond)                                                             \
	do {                                                                   \
		sp--;                                                          \
		int r = str_cmp(&st[sp - 1], &st[sp]);                         \
		TOP.i = (cond);                                                \
		TOP.s = NULL;                                                  \
	} while (0)
#define JCMP(op)                                                               \
	do {                                                                   \
		sp -= 2;                                                       \
		if (st[sp].i op st[sp + 1].i)                                  \
			pc = A;                                                \
	} while (0)
#define JCMPK(op)                                                              \
	do {                                                                   \
		int64_t k = (int32_t)code[pc++];                               \
		if (st[--sp].i op k)                                           \
			pc = A;                                                \
	} while (0)
	/*
	 * Dispatch: with GCC and clang each handler (its case label and
	 * an op_NAME label) jumps straight to the next one through a table of
	 * label addresses ("computed goto"): one indirect jump per
	 * instruction, which the branch predictor learns per handler, instead
	 * of the switch's bounds check and shared jump; the switch then only
	 * starts the run. Elsewhere NEXT is the switch's break.
	 */
#if defined(__GNUC__)
	static const void *const ops[256] = {
#define TW_X_LBL(name, doc) [OP_##name] = &&op_##name,
		TW_OPCODES(TW_X_LBL)
#undef TW_X_LBL
			[OP_COUNT... 255] = &&op_bad,
	};
#define NEXT                                                                   \
	do {                                                                   \
		w = code[pc++];                                                \
		goto *ops[TW_OP(w)];                                           \
	} while (0)
#else
#define NEXT break
#endif
	for (;;) {
		uint32_t w = code[pc++];
		switch (TW_OP(w)) {
		case OP_HALT:
		op_HALT:
			return 0;
		case OP_PUSHI:
		op_PUSHI:
			st[sp].i = A;
			st[sp++].s = NULL;
			NEXT;
		case OP_PUSHK:
		op_PUSHK:
			st[sp].i = p->ints[A];
			st[sp++].s = NULL;
			NEXT;
		case OP_PUSHS:
		op_PUSHS:
			st[sp].s = p->strs[A].s;
			st[sp++].i = (int64_t)p->strs[A].len;
			NEXT;
		case OP_CTX:
		op_CTX : {
			tw_sval *v = &st[sp++];
			v->s = NULL;
			switch (A) {
			case CX_TS:
				v->i = ev ? trawl_event_time(ev) : now;
				break;
			case CX_USECS:
				v->i = ((ev ? trawl_event_time(ev) : now) +
					500) /
				       1000;
				break;
			case CX_CPU:
				v->i = trawl_event_cpu(ev);
				break;
			case CX_PID:
			case CX_TID:
				v->i = trawl_event_pid(ev);
				break;
			case CX_TGID:
				v->i = trawl_event_tgid(ev);
				break;
			case CX_COMM:
				v->s = trawl_event_comm(ev);
				v->i = (int64_t)strlen(v->s);
				break;
			case CX_PROBE:
				v->s = b ? b->probe_name
					 : s->probes[probe].label;
				v->i = (int64_t)strlen(v->s);
				break;
			case CX_ELAPSED:
				v->i = s->have_t0 ? (ev ? trawl_event_time(ev)
							: now) -
							    s->t0
						  : 0;
				break;
			default:
				v->s = trawl_event_name(ev);
				v->i = (int64_t)strlen(v->s);
				break;
			}
			NEXT;
		}
		case OP_KSTACK:
		op_KSTACK:
			st[sp].s = NULL;
			st[sp++].i = event_stack(s, probe, (uint32_t)(pc - 1),
						 (int)(A << 8));
			NEXT;
		case OP_FIELDI:
		op_FIELDI : {
			/* each field is read once per run, however often the
			 * script names it; the value is pushed from a local,
			 * not reloaded from the cache just stored (a 24-byte
			 * load after two 8-byte stores stalls) */
			tw_sval v;
			if (fgen[A] != gen) {
				int64_t x = 0;
				if (trawl_event_get_int(ev, handles[A], &x) < 0)
					x = 0;
				v.i = x;
				v.s = NULL;
				fvals[A] = v;
				fgen[A] = gen;
			} else {
				v = fvals[A];
			}
			st[sp++] = v;
			NEXT;
		}
		case OP_FIELDS:
		op_FIELDS : {
			tw_sval v;
			if (fgen[A] != gen) {
				size_t n = 0;
				const char *r =
					trawl_event_raw(ev, handles[A], &n);
				if (!r) {
					r = empty;
					n = 0;
				}
				while (n && r[n - 1] == '\0')
					n--; /* a char array's padding */
				v.s = r;
				v.i = (int64_t)n;
				fvals[A] = v;
				fgen[A] = gen;
			} else {
				v = fvals[A];
			}
			st[sp++] = v;
			NEXT;
		}
		case OP_FIELDK:
		op_FIELDK:
			/* the lowering proved a read of A ran in this run */
			st[sp++] = fvals[A];
			NEXT;
		case OP_FIELDA:
		op_FIELDA:
			TOP.i = array_elem(s, probe, ev, b, A, TOP.i);
			TOP.s = NULL;
			NEXT;
		case OP_LDV:
		op_LDV:
			st[sp++] = s->vars[A];
			NEXT;
		case OP_STV:
		op_STV : {
			tw_sval v = st[--sp];
			if (v.s) {
				size_t n = v.i > TW_SC_STRMAX ? TW_SC_STRMAX
							      : (size_t)v.i;
				memmove(s->var_bufs[A], v.s, n);
				v.s = s->var_bufs[A];
				v.i = (int64_t)n;
			}
			s->vars[A] = v;
			NEXT;
		}
		case OP_POP:
		op_POP:
			sp--;
			NEXT;
		case OP_ADD:
		op_ADD:
			BIN((int64_t)((uint64_t)a + (uint64_t)b));
			NEXT;
		case OP_SUB:
		op_SUB:
			BIN((int64_t)((uint64_t)a - (uint64_t)b));
			NEXT;
		case OP_MUL:
		op_MUL:
			BIN((int64_t)((uint64_t)a * (uint64_t)b));
			NEXT;
		case OP_DIV:
		op_DIV:
		case OP_MOD:
		op_MOD : {
			int64_t b = st[--sp].i, a = TOP.i;
			if (b == 0)
				FAULT("division by zero");
			if (a == INT64_MIN && b == -1)
				TOP.i = TW_OP(w) == OP_DIV ? INT64_MIN : 0;
			else
				TOP.i = TW_OP(w) == OP_DIV ? a / b : a % b;
			NEXT;
		}
		case OP_AND:
		op_AND:
			BIN(a & b);
			NEXT;
		case OP_OR:
		op_OR:
			BIN(a | b);
			NEXT;
		case OP_XOR:
		op_XOR:
			BIN(a ^ b);
			NEXT;
		case OP_SHL:
		op_SHL:
			BIN((int64_t)((uint64_t)a << (b & 63)));
			NEXT;
		case OP_SHR:
		op_SHR:
			/* logical, as bpftrace's (-16 >> 2 is 2^62 - 4) */
			BIN((int64_t)((uint64_t)a >> (b & 63)));
			NEXT;
		case OP_NEG:
		op_NEG:
			TOP.i = (int64_t)(0 - (uint64_t)TOP.i);
			NEXT;
		case OP_NOT:
		op_NOT:
			TOP.i = !TOP.i;
			NEXT;
		case OP_BNOT:
		op_BNOT:
			TOP.i = ~TOP.i;
			NEXT;
		case OP_EQ:
		op_EQ:
			BIN(a == b);
			NEXT;
		case OP_NE:
		op_NE:
			BIN(a != b);
			NEXT;
		case OP_LT:
		op_LT:
			BIN(a < b);
			NEXT;
		case OP_LE:
		op_LE:
			BIN(a <= b);
			NEXT;
		case OP_GT:
		op_GT:
			BIN(a > b);
			NEXT;
		case OP_GE:
		op_GE:
			BIN(a >= b);
			NEXT;
		case OP_SEQ:
		op_SEQ:
			SCMP(r == 0);
			NEXT;
		case OP_SNE:
		op_SNE:
			SCMP(r != 0);
			NEXT;
		case OP_SLT:
		op_SLT:
			SCMP(r < 0);
			NEXT;
		case OP_SLE:
		op_SLE:
			SCMP(r <= 0);
			NEXT;
		case OP_SGT:
		op_SGT:
			SCMP(r > 0);
			NEXT;
		case OP_SGE:
		op_SGE:
			SCMP(r >= 0);
			NEXT;
		case OP_JMP:
		op_JMP:
			pc = A;
			NEXT;
		case OP_JZ:
		op_JZ:
			if (!st[--sp].i)
				pc = A;
			NEXT;
		case OP_JNZ:
		op_JNZ:
			if (st[--sp].i)
				pc = A;
			NEXT;
		case OP_JEQ:
		op_JEQ:
			JCMP(==);
			NEXT;
		case OP_JNE:
		op_JNE:
			JCMP(!=);
			NEXT;
		case OP_JLT:
		op_JLT:
			JCMP(<);
			NEXT;
		case OP_JLE:
		op_JLE:
			JCMP(<=);
			NEXT;
		case OP_JGT:
		op_JGT:
			JCMP(>);
			NEXT;
		case OP_JGE:
		op_JGE:
			JCMP(>=);
			NEXT;
		case OP_JEQK:
		op_JEQK:
			JCMPK(==);
			NEXT;
		case OP_JNEK:
		op_JNEK:
			JCMPK(!=);
			NEXT;
		case OP_JLTK:
		op_JLTK:
			JCMPK(<);
			NEXT;
		case OP_JLEK:
		op_JLEK:
			JCMPK(<=);
			NEXT;
		case OP_JGTK:
		op_JGTK:
			JCMPK(>);
			NEXT;
		case OP_JGEK:
		op_JGEK:
			JCMPK(>=);
			NEXT;
		case OP_LOOP:
		op_LOOP:
			if (++loops > TW_SC_LOOP_MAX)
				FAULT("a loop ran over its bound of 100000 "
				      "iterations");
			NEXT;
		case OP_MGET:
		case OP_MGETK:
		op_MGET:
		op_MGETK : {
			tw_smap *m = &smaps[A];
			tw_mentry *e;
			if (TW_OP(w) == OP_MGETK) {
				/* the key: a field read before in this run */
				const tw_sval *kp = &fvals[code[pc++]];
				e = m->flat ? tw_flat_find(m, kp->i)
					    : lookup(m, kp, key, 0, NULL);
			} else if (m->flat) {
				e = tw_flat_find(m, st[--sp].i);
			} else {
				sp -= (size_t)m->nkeys;
				e = lookup(m, &st[sp], key, 0, NULL);
			}
			tw_sval *v = &st[sp++];
			if (m->kind == MV_STR) {
				v->s = e ? (const char *)(e->v + 1) : empty;
				v->i = e ? e->v[0] : 0;
			} else {
				v->s = NULL;
				v->i = e ? value_int(m, e) : 0;
			}
			NEXT;
		}
		case OP_MSET:
		case OP_MSETK:
		case OP_MAGG:
		op_MSET:
		op_MSETK:
		op_MAGG : {
			tw_smap *m = &smaps[A];
			int has_arg =
				TW_OP(w) != OP_MAGG || m->kind != MV_COUNT;
			tw_sval val = has_arg ? st[--sp] : (tw_sval){0};
			int full = 0;
			tw_mentry *e;
			if (TW_OP(w) == OP_MSETK) {
				/* the key: a field read before in this run */
				const tw_sval *kp = &fvals[code[pc++]];
				if (!m->flat)
					e = lookup(m, kp, key, 1, &full);
				else if (!(e = tw_flat_find(m, kp->i)))
					e = tw_smap_geti(m, kp->i, 1, &full);
			} else if (m->flat) {
				int64_t k = st[--sp].i;
				e = tw_flat_find(m, k);
				if (!e)
					e = tw_smap_geti(m, k, 1, &full);
			} else {
				sp -= (size_t)m->nkeys;
				e = lookup(m, &st[sp], key, 1, &full);
			}
			if (!e) {
				if (full == -2) {
					s->oom = 1;
					FAULT("out of memory");
				}
				map_full(s, probe, (uint32_t)(pc - 1), m);
				NEXT;
			}
			if (TW_OP(w) == OP_MAGG) {
				agg(m, e, val.i);
			} else if (m->kind == MV_STR) {
				size_t n = val.i > TW_SC_STRMAX ? TW_SC_STRMAX
								: (size_t)val.i;
				memmove(e->v + 1, val.s, n);
				e->v[0] = (int64_t)n;
			} else {
				e->v[0] = val.i;
			}
			NEXT;
		}
		case OP_MDEL:
		op_MDEL : {
			tw_smap *m = &smaps[A];
			if (m->flat) {
				tw_smap_deletei(m, st[--sp].i);
			} else {
				sp -= (size_t)m->nkeys;
				size_t kl = tw_smap_key(m->decl, &st[sp], key);
				tw_smap_delete(m, key, kl);
			}
			NEXT;
		}
		case OP_MCLEAR:
		op_MCLEAR:
			tw_smap_clear(&s->smaps[A]);
			if (TW_UNLIKELY(s->bpf != NULL))
				tw_bpf_cleared(s, A, 0);
			NEXT;
		case OP_MZERO:
		op_MZERO:
			tw_smap_zero(&s->smaps[A]);
			if (TW_UNLIKELY(s->bpf != NULL))
				tw_bpf_cleared(s, A, 1);
			NEXT;
		case OP_MPRINT:
		op_MPRINT:
			sp--;
			tw_print_map(s, A, st[sp].i);
			NEXT;
		case OP_PRINTF:
		op_PRINTF : {
			const tw_fmt *f = &p->fmts[A];
			sp -= f->nargs;
			tw_printf(s, f, &st[sp]);
			NEXT;
		}
		case OP_KSYM:
		op_KSYM:
			TOP.s = tw_ksym(s, (uint64_t)TOP.i, NULL);
			TOP.i = (int64_t)strlen(TOP.s);
			NEXT;
		case OP_NTOP:
		op_NTOP : {
			tw_sval a = st[--sp];
			int af = 0;
			if (A == 2)
				af = (int)st[--sp].i;
			unsigned char addr[16] = {0};
			if (a.s) { /* the bytes of an array: 4 or 16 */
				memcpy(addr, a.s, a.i < 16 ? (size_t)a.i : 16);
				if (!af)
					af = a.i == 16 ? AF_INET6 : AF_INET;
			} else {
				uint32_t v = (uint32_t)a.i;
				memcpy(addr, &v, 4);
				if (!af)
					af = AF_INET;
			}
			st[sp].s = tw_ntop(s, af, addr);
			st[sp].i = (int64_t)strlen(st[sp].s);
			sp++;
			NEXT;
		}
		case OP_BSWAP:
		op_BSWAP : {
			uint64_t v = (uint64_t)TOP.i, r = 0;
			for (uint32_t k = 0; k < A; k++, v >>= 8)
				r = r << 8 | (v & 0xff);
			TOP.i = (int64_t)r;
			NEXT;
		}
		case OP_STRLEN:
		op_STRLEN:
			/* a string's length is its i */
			TOP.s = NULL;
			NEXT;
		case OP_STRNCMP:
		op_STRNCMP : {
			int64_t n = st[--sp].i;
			sp--;
			TOP.i = do_strncmp(&st[sp - 1], &st[sp], n);
			TOP.s = NULL;
			NEXT;
		}
		case OP_STRCONTAINS:
		op_STRCONTAINS : {
			sp--;
			const tw_sval *h = &st[sp - 1], *nd = &st[sp];
			int r = nd->i == 0 || (h->i >= nd->i &&
					       memmem(h->s, (size_t)h->i, nd->s,
						      (size_t)nd->i) != NULL);
			TOP.i = r;
			TOP.s = NULL;
			NEXT;
		}
		case OP_STRFTIME:
		op_STRFTIME : {
			tw_sval ns = st[--sp];
			st[sp - 1].s = tw_strftime(s, st[sp - 1].s, ns.i);
			st[sp - 1].i = (int64_t)strlen(st[sp - 1].s);
			NEXT;
		}
		case OP_TIME:
		op_TIME:
			sp--;
			tw_print_time(s, st[sp].s);
			NEXT;
		case OP_EXIT:
		op_EXIT:
			s->exited = 1;
			return 1;
		default:
		op_bad:
			FAULT("bad instruction");
		}
	}
#undef A
#undef TOP
#undef FAULT
#undef BIN
#undef SCMP
#undef JCMP
#undef JCMPK
#undef NEXT
}
