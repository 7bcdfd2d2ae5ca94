/* SPDX-License-Identifier: MIT */
/*
 * Inside a compiled print format: the program that render.c runs forwards
 * and scan.c runs backwards. Include only from lib/pfmt.
 *
 * A program is the format string cut into segments, each a literal or a
 * conversion, and an array of expression nodes the conversions point at:
 *
 *   "prev_comm=%s prev_pid=%d ..."   REC->prev_comm, REC->prev_pid, ...
 *
 *   seg 0  LIT  "prev_comm="
 *   seg 1  CONV 's'  expr -> node FIELD(prev_comm)
 *   seg 2  LIT  " prev_pid="
 *   seg 3  CONV 'd'  expr -> node FIELD(prev_pid)
 *   ...
 *
 * Nodes refer to each other by index (children come before parents).
 */
#ifndef TW_PFMT_INT_H
#define TW_PFMT_INT_H

#include "pfmt.h"

/* Expression nodes. */
enum pf_op {
	N_CONST,    /* k */
	N_STR,	    /* a string literal: pool[k .. k+klen) */
	N_FIELD,    /* field a */
	N_ELEM,	    /* element b of array field a */
	N_DYN,	    /* the bytes of array field a (__get_dynamic_array) */
	N_DYNLEN,   /* their length in bytes */
	N_CAST,	    /* (type) a: sub = size | CAST_SIGNED | CAST_BOOL */
	N_UN,	    /* sub a */
	N_BIN,	    /* a sub b */
	N_COND,	    /* a ? b : c */
	N_SYMBOL,   /* __print_symbolic(a, table b, count k) */
	N_FLAGS,    /* __print_flags(a, delim pool[c..], table b, count k) */
	N_HEX,	    /* __print_hex(a, size b) */
	N_HEXSTR,   /* __print_hex_str(a, size b) */
	N_INTARRAY, /* __print_array(a, count b, elem size c) */
	N_BITMASK,  /* __get_bitmask(field a) */
};

enum pf_binop {
	B_ADD = 1,
	B_SUB,
	B_MUL,
	B_DIV,
	B_MOD,
	B_SHL,
	B_SHR,
	B_AND,
	B_OR,
	B_XOR,
	B_LAND,
	B_LOR,
	B_EQ,
	B_NE,
	B_LT,
	B_GT,
	B_LE,
	B_GE,
	U_NOT,
	U_BNOT,
	U_NEG,
};

#define CAST_SIGNED 0x10
#define CAST_BOOL   0x20
#define CAST_NONE   0x40 /* a type we do not know: the value as it is */

typedef struct pf_node {
	uint8_t op;
	uint8_t sub;
	int32_t a, b, c;
	int64_t k;
	uint32_t klen;
} pf_node;

/* A __print_symbolic / __print_flags entry. */
typedef struct pf_sym {
	int64_t value;
	uint32_t str; /* pool offset */
	uint32_t len;
	int resolved; /* the value was a number (or a known constant) */
} pf_sym;

enum pf_segkind { S_LIT, S_CONV };

/* printf flags of a conversion */
enum {
	F_MINUS = 1,
	F_PLUS = 2,
	F_SPACE = 4,
	F_HASH = 8,
	F_ZERO = 16,
};

typedef struct pf_seg {
	uint8_t kind;
	uint8_t conv;  /* d i u x X o c s p */
	uint8_t flags; /* F_* */
	uint8_t size;  /* integer size from the length modifier: 1 2 4 8 */
	char pext[6];  /* %p extension letters ("S", "s", "x", ...) */
	uint8_t fast;  /* enum pf_fast: a common case rendered directly */
	int32_t width; /* -1 none */
	int32_t prec;  /* -1 none */
	int32_t width_expr, prec_expr; /* '*': node, else -1 */
	int32_t expr;		       /* conversions: the node */
	uint32_t lit, lit_len;	       /* literals: pool */
} pf_seg;

struct tw_pfmt {
	const tw_mem *mem;
	tw_pf_layout layout;
	int fallback;
	char detail[64];
	int unresolved;	   /* symbol entries with no number */
	size_t min_len;	   /* a record holds every fixed field */
	uint32_t *dynamic; /* the __data_loc fields, to check each */
	size_t ndynamic;
	/* ftrace's stack records (tw_pfmt_stack()): the kind, the caller
	 * field and the one that counts its frames (-1: none) */
	int stack;
	int32_t stack_field, stack_count;
	/* a user stack's frames' mappings, a line a frame (perf.data's:
	 * lib/perf/perf-synth.c), or -1 */
	int32_t stack_maps;

	tw_pf_field *fields; /* the event's fields, then the common ones */
	size_t nfields;	     /* the event's own */
	size_t nall;	     /* including common fields */
	uint8_t *textform;   /* per own field: enum tw_pf_textform */
	uint16_t *local;     /* TW_PFT_LOCAL: first and last segment */
	int32_t *label_seg;  /* per own field: the conversion that labels
			      * it, or -1 */
	int32_t *label_end;  /* and the last of the conversions right after
			      * it that add to its label (sched_switch's
			      * "+" of a preempted R) */

	pf_seg *segs;
	size_t nsegs;
	pf_node *nodes;
	size_t nnodes;
	pf_sym *syms;
	size_t nsyms;
	char *pool;
	size_t pool_len;
};

/* Whether a %p extension prints bytes the record holds (netfmt.c). */
int tw_pf_bytes_ext(const char *pext);
/* Print them as the kernel does: %pU, %pM, %pI4, %pI6(c), %pIS(pc). */
int tw_pf_render_bytes(const tw_pfmt *p, const char *pext,
		       const unsigned char *b, size_t n, tw_buf *out);

/* A named kernel constant formats use undefined (constants.c); 0 or -1. */
int tw_pf_constant(const char *name, int64_t *out);

/* What the argument parser (args.c) builds with, from compile.c. */
#define TW_PF_MAX_ARGS 128
struct tw_pf_cc;
int32_t tw_pf_cc_node(struct tw_pf_cc *c, pf_node n); /* folded */
uint32_t tw_pf_cc_pool(struct tw_pf_cc *c, const char *s, size_t n);
const char *tw_pf_cc_pool_at(struct tw_pf_cc *c, uint32_t at);
int tw_pf_cc_field(struct tw_pf_cc *c, const char *name, size_t n);
int tw_pf_cc_node_field(struct tw_pf_cc *c, int32_t node);
uint8_t tw_pf_cc_cast(struct tw_pf_cc *c, const char *type);
int tw_pf_cc_const(struct tw_pf_cc *c, int32_t node, int64_t *k);
int32_t tw_pf_cc_nsyms(struct tw_pf_cc *c);
int32_t tw_pf_cc_sym(struct tw_pf_cc *c, int64_t value, int resolved,
		     uint32_t str, uint32_t len);
/* Parse ", arg, arg ..." into nodes. Return: 0, or -1 when it cannot. */
int tw_pf_parse_args(struct tw_pf_cc *c, const char *s, size_t n, int32_t *out,
		     size_t max, size_t *count);

/* The integer value of node i for a record (render.c). */
int64_t tw_pf_eval(const tw_pfmt *p, int32_t i, const unsigned char *data,
		   size_t len);
/* Render conversion segment s into out (render.c). */
/* The common conversions that render without the general path: a plain
 * %d/%u of a whole scalar field, a plain %s of a string field. */
enum pf_fast { FAST_NONE, FAST_INT, FAST_STR };
void tw_pf_mark_fast(tw_pfmt *p);
int tw_pf_render_conv(const tw_pfmt *p, const pf_seg *s,
		      const unsigned char *data, size_t len,
		      const tw_pf_resolve *rs, tw_buf *out);

#endif
