/* SPDX-License-Identifier: MIT */
/*
 * Print formats compiled once per event type and run both ways:
 *
 *   render: a binary record  -> the text the kernel prints for it
 *   scan:   the kernel's text -> the record's fields, typed
 *
 * The format file is parsed by libtraceevent (tep_parse_format); its tree of
 * print arguments is compiled here into a flat program: the format string
 * cut into literal and conversion segments, each conversion with an
 * expression over the record's fields. What the compiler cannot handle is
 * named (tw_pfmt.fallback), and the callers fall back to libtraceevent
 * (render) or to the generic key=value decoder (scan).
 *
 * Used by the trace.dat reader (render, typed fields), the text reader
 * (scan) and the recorder alike. Internal to libtrawl.
 */
#ifndef TW_PFMT_H
#define TW_PFMT_H

#include <stddef.h>
#include <stdint.h>

#include "../util/util.h"

struct tep_event;

/* Why a format did not compile whole: the helper it stopped at. */
enum tw_pfmt_fallback {
	TW_PF_OK = 0,
	TW_PF_NO_FORMAT, /* the format has no print fmt line */
	TW_PF_PRINTF,	 /* a conversion this compiler does not render */
	TW_PF_POINTER,	 /* a %p extension (%pI4, %pM, %pU, ...) */
	TW_PF_HELPER,	 /* a helper (__print_ns_to_secs, FUNC, ...) */
	TW_PF_ARGS,	 /* more or fewer arguments than conversions */
	TW_PF_NFALLBACK
};

/* Field layout flags (struct tw_pf_field.flags). */
enum {
	TW_PFF_SIGNED = 1u << 0,
	TW_PFF_ARRAY = 1u << 1,	   /* fixed array: elements of elem_size */
	TW_PFF_DYNAMIC = 1u << 2,  /* __data_loc: offset/length word */
	TW_PFF_RELATIVE = 1u << 3, /* __rel_loc: offset from the word */
	TW_PFF_STRING = 1u << 4,   /* text: char[] or __data_loc char[] */
	TW_PFF_LONG = 1u << 5,	   /* a long (its size is the file's) */
	TW_PFF_POINTER = 1u << 6,  /* a pointer: shown in hex */
	TW_PFF_CHARPTR = 1u << 7,  /* a char *: a string the kernel keeps */
	TW_PFF_STACK = 1u << 8,	   /* a stack's frames: as many as the record
				    * holds (tw_pfmt_stack()) */
};

typedef struct tw_pf_field {
	const char *name;
	uint32_t name_len;
	uint32_t offset;
	uint32_t size;
	uint32_t elem_size;
	uint32_t flags;
} tw_pf_field;

/* What one field is in the text, for the text reader's fast paths. */
enum tw_pf_textform {
	TW_PFT_NONE = 0, /* not printed, or printed through an expression */
	TW_PFT_PLAIN,	 /* "name=%d" (decimal, or 0x-prefixed hex) or
			  * "name=%s" of the field itself: the generic
			  * key=value decoder reads it right */
	TW_PFT_LOCAL,	 /* "name=" then conversions of this field alone
			  * (prev_state=%s%s): the generic decoder finds its
			  * text, tw_pfmt_scan_local() reads the value */
};

typedef struct tw_pfmt tw_pfmt;

/* How records are laid out: the byte order and long size of the source. */
typedef struct tw_pf_layout {
	int big_endian;
	int long_size; /* 4 or 8 */
} tw_pf_layout;

/*
 * What records point at, for the source to resolve: a symbol table for
 * %pS, %ps and friends (the name, the offset into it and the symbol's size:
 * the kernel prints "name+0xoff/0xsz [module]"), and the strings a %s of a
 * pointer field names (trace_printk formats, tracepoint_string()s).
 * Either may be NULL; both return NULL when they do not know the address.
 */
typedef struct tw_pf_resolve {
	const char *(*symbol)(void *ctx, uint64_t addr, uint64_t *offset,
			      uint64_t *size, const char **module);
	const char *(*string)(void *ctx, uint64_t addr);
	void *ctx;
} tw_pf_resolve;

/*
 * Whether a format file's text is safe to hand to libtraceevent (sane.c):
 * BAD when a field line or the layout is not as the kernel writes them;
 * ARGS_UNSAFE when the print fmt's arguments are not (unbalanced quotes,
 * parentheses or braces, an undeclared REC->field, a '[' indexing anything
 * but a field): libtraceevent's parser trusts both, and fuzzing found
 * damaged ones that crash it.
 */
enum { TW_PF_TEXT_BAD, TW_PF_TEXT_OK, TW_PF_TEXT_ARGS_UNSAFE };
int tw_pfmt_text_check(const char *text, size_t len);

struct tep_handle;
/*
 * Parse a format with libtraceevent after that check: NULL when BAD (or
 * libtraceevent refuses it); when the arguments are unsafe or do not parse
 * with trawl's own parser, libtraceevent sees the fields only: the event
 * keeps its name and fields, its print format is marked failed
 * (TEP_EVENT_FL_FAILED). libtraceevent crashes on arguments it cannot
 * parse (fuzz-pfmt), and prints nothing of the format itself.
 * Return: the event, owned by tep.
 */
struct tep_event *tw_pfmt_parse(struct tep_handle *tep, const tw_mem *mem,
				const char *text, size_t len, const char *sys);

/*
 * Compile e's print format: e (parsed by libtraceevent) gives the fields;
 * the print fmt is parsed by trawl (args.c) from the format's text.
 * Always returns a program (NULL only when out
 * of memory); one that did not compile whole renders and scans nothing and
 * says why in tw_pfmt_fallback().
 * Lifetime: caller frees with tw_pfmt_free(); independent of e afterwards.
 */
tw_pfmt *tw_pfmt_compile(const tw_mem *mem, const struct tep_event *e,
			 const char *text, size_t text_len,
			 const tw_pf_layout *layout);
void tw_pfmt_free(tw_pfmt *p);

int tw_pfmt_fallback(const tw_pfmt *p);
const char *tw_pfmt_fallback_name(int why);
/* Whether the print fmt's arguments parse (trawl's parser, syntax only). */
int tw_pfmt_args_ok(const char *text, size_t len);
/* Symbol table entries whose name the format leaves undefined. */
int tw_pfmt_unresolved(const tw_pfmt *p);
/* What the compiler stopped at, for messages ("%pI4", "__print_ns..."). */
const char *tw_pfmt_fallback_detail(const tw_pfmt *p);

size_t tw_pfmt_nfields(const tw_pfmt *p);
const tw_pf_field *tw_pfmt_field(const tw_pfmt *p, size_t i);
/* Field index by name, or -1. */
int tw_pfmt_find(const tw_pfmt *p, const char *name, size_t len);
/* The same among the common fields too (common_pid...): indexes past
 * tw_pfmt_nfields() are common ones, for the calls taking a field index
 * and tw_pfmt_field_any(). */
int tw_pfmt_find_any(const tw_pfmt *p, const char *name, size_t len);
const tw_pf_field *tw_pfmt_field_any(const tw_pfmt *p, size_t i);
int tw_pfmt_textform(const tw_pfmt *p, size_t field);

/*
 * ftrace's stack records (kernel_stack, user_stack): the format declares
 * `unsigned long caller[8]`, but the kernel writes `int size; unsigned
 * long caller[]` with `size` entries (kernel_stack since 5.2; older
 * kernels 8, ended by ULONG_MAX) and user_stack 8 ended by 0. Such a
 * program's caller field is TW_PFF_STACK: its bytes (and elements) are
 * the frames, caller[0 .. min(size, what the record holds)) up to the
 * first ULONG_MAX or 0; it renders as the kernel's trace file prints the
 * record ("<stack trace>" and a " => symbol" line a frame), not by its
 * print fmt, and scans nothing (the text is several lines).
 */
enum { TW_PF_STACK_NONE, TW_PF_STACK_KERNEL, TW_PF_STACK_USER };
int tw_pfmt_stack(const tw_pfmt *p);
/* Whether a stack record is shorter than its size says (damaged: its
 * frames are those it holds). */
int tw_pfmt_stack_short(const tw_pfmt *p, const void *data, size_t len);

/* Where a field's bytes are in a record; -1 when the record is too short. */
int tw_pfmt_field_bytes(const tw_pfmt *p, size_t field, const void *data,
			size_t len, const unsigned char **at, size_t *n);
/* A scalar field's value (sign-extended by its size); -1 when not one. */
int tw_pfmt_field_int(const tw_pfmt *p, size_t field, const void *data,
		      size_t len, int64_t *out);
/* Element j of an array field; -1 when out of range or not an array. */
int tw_pfmt_field_elem(const tw_pfmt *p, size_t field, const void *data,
		       size_t len, size_t j, int64_t *out);
size_t tw_pfmt_field_elems(const tw_pfmt *p, size_t field, const void *data,
			   size_t len);

/*
 * Render a record (the event's data, common fields first) as the kernel
 * prints it, appending to out. The record must hold every field (callers
 * check with tw_pfmt_fits()).
 * Return: 0, or -1 when out of memory.
 */
int tw_pfmt_render(const tw_pfmt *p, const void *data, size_t len,
		   const tw_pf_resolve *rs, tw_buf *out);
int tw_pfmt_fits(const tw_pfmt *p, const void *data, size_t len);

/*
 * The label of field i as its print format shows it symbolically (the
 * text of the conversion that prints it through __print_symbolic,
 * __print_flags or a ternary of strings): appended to out.
 * Return: 1 when the field has one, 0 when not, -1 out of memory.
 */
int tw_pfmt_label(const tw_pfmt *p, size_t field, const void *data, size_t len,
		  const tw_pf_resolve *rs, tw_buf *out);

/* ---- scan: text back to fields ---- */

enum tw_pf_vtype {
	TW_PFV_NONE = 0, /* not in the text */
	TW_PFV_INT,
	TW_PFV_STR,
	TW_PFV_ARRAY,
	TW_PFV_TEXT, /* display only: the text lost the value */
};

/* One field recovered from text. */
typedef struct tw_pf_value {
	uint8_t type;	/* enum tw_pf_vtype */
	uint8_t exact;	/* INT: every bit of the field was in the text */
	uint8_t uns;	/* INT, ARRAY: the field is unsigned */
	uint8_t ptr;	/* INT: the field is a pointer */
	uint16_t nelem; /* ARRAY: elements in tw_pf_scan.elems */
	uint32_t elem0; /* ARRAY: first element's index there */
	uint8_t hex;	/* binary INT: its text is hex (pointers, longs) */
	uint16_t index; /* binary: the field's place in its format */
	int64_t i;	/* INT */
	const char *s;	/* STR, TEXT: the text; INT: the text it came from */
	uint32_t slen;
	uint32_t label_len;
	const char *label; /* INT printed symbolically: its label, or NULL */
} tw_pf_value;

#define TW_PF_MAX_ELEMS 256

/* tw_pfmt_scan_local()'s answer for a text it read: such a text is short
 * and repeats (prev_state "S", "R+"), and its value depends on nothing
 * else, so the same text is not matched again. */
#define TW_PF_MEMO	8
#define TW_PF_MEMO_TEXT 22
typedef struct tw_pf_memo {
	const void *p; /* the format (NULL: unused) */
	uint16_t field;
	uint8_t len;
	char text[TW_PF_MEMO_TEXT];
	tw_pf_value v; /* s and label: offsets into text, as uintptr_t */
} tw_pf_memo;

/* The scanner's answer and scratch; the caller owns it, reused per event;
 * zero-initialised before the first use. */
typedef struct tw_pf_scan {
	tw_pf_memo memo[TW_PF_MEMO]; /* valid while the formats live */
	tw_pf_value *vals; /* one per field, tw_pfmt_nfields() of them */
	size_t nvals_cap;
	int64_t elems[TW_PF_MAX_ELEMS];
	size_t nelems;
	/* constraints collected while matching, and where each segment
	 * began (internal) */
	void *work;
	size_t work_cap;
	const char **pos;
	size_t pos_cap;
} tw_pf_scan;

/*
 * Scan text (the event's payload, as the kernel printed it) with p.
 * Return: 1 when it matched (s->vals filled, pointing into text), 0 when
 * the text does not have the format's shape, -1 out of memory.
 */
int tw_pfmt_scan(const tw_pfmt *p, const tw_mem *mem, const char *text,
		 size_t len, tw_pf_scan *s);
void tw_pf_scan_fini(const tw_mem *mem, tw_pf_scan *s);

/*
 * The value of a TW_PFT_LOCAL field from its text alone (what follows
 * "name=" up to the next field), without scanning the whole event.
 * Return: 1 with *out filled (pointing into text), 0 when the text does
 * not match (scan the event instead), -1 out of memory.
 */
int tw_pfmt_scan_local(const tw_pfmt *p, const tw_mem *mem, size_t field,
		       const char *text, size_t len, tw_pf_scan *s,
		       tw_pf_value *out);

#endif
