/* SPDX-License-Identifier: MIT */
/*
 * The inside of lib/script. A script goes through: the lexer (lex.c) and
 * the parser (parse.c), which build a tree; the checker (check.c), which
 * resolves every name against the trace's formats (schema.c) and types the
 * tree in place: after it, the tree is the typed intermediate form
 * described below; the lowering to bytecode (lower.c, opcodes in
 * opcodes.h); the VM (vm.c) over maps (maps.c); output (print.c). Nothing
 * here is public.
 */
#ifndef TW_SCRIPT_INT_H
#define TW_SCRIPT_INT_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/core.h"
#include "trawl/script.h"

#define TW_SC_STRMAX	   64	  /* bytes of a string kept in a map or $var */
#define TW_SC_MAX_KEYS	   8	  /* parts of a map key */
#define TW_SC_MAX_ARGS	   16	  /* printf arguments */
#define TW_SC_MAX_STACK	   256	  /* VM value stack, checked when lowering */
#define TW_SC_MAX_DEPTH	   200	  /* nesting of expressions and of statements */
#define TW_SC_LOOP_MAX	   100000 /* iterations of one while per probe run */
#define TW_SC_MAX_FAULTS   32	  /* distinct fault sites reported */
#define TW_SC_HIST_BUCKETS 66	  /* hist(): <0, 0, 1, [2,4) ... [2^63, ...) */
#define TW_SC_LHIST_MAX	   1000	  /* lhist() buckets */
#define TW_SC_STACK_MAX                                                        \
	127			   /* kstack frames (the kernel's              \
				    * perf_event_max_stack, bpftrace's) */
#define TW_SC_STACKS_MAX (1 << 18) /* distinct stacks one run keeps */

/* ---- arena: the compiler's memory, freed at once ---- */

typedef struct tw_arena_block tw_arena_block;
typedef struct tw_arena {
	const tw_mem *mem;
	tw_arena_block *head;
} tw_arena;

void *tw_arena_alloc(tw_arena *a, size_t n); /* zeroed; NULL on OOM */
char *tw_arena_strndup(tw_arena *a, const char *s, size_t n);
void tw_arena_free(tw_arena *a);

/* ---- lexer ---- */

enum tw_tok {
	TK_EOF = 0,
	TK_INT,	       /* integer literal: ival */
	TK_STR,	       /* string literal, escapes resolved: text, len */
	TK_IDENT,      /* name */
	TK_VAR,	       /* $name (text without the $) */
	TK_POSITIONAL, /* $1, $2 ...: ival; $#: ival -1 */
	TK_MAP,	       /* @name or @ (text without the @) */
	TK_PROBE,      /* a probe specification, read in probe mode */
	/* operators and punctuation: their own characters in tw_tok_name() */
	TK_LBRACE,
	TK_RBRACE,
	TK_LPAREN,
	TK_RPAREN,
	TK_LBRACKET,
	TK_RBRACKET,
	TK_COMMA,
	TK_SEMI,
	TK_DOT,
	TK_QUESTION,
	TK_COLON,
	TK_PLUS,
	TK_MINUS,
	TK_STAR,
	TK_SLASH,
	TK_PERCENT,
	TK_AMP,
	TK_PIPE,
	TK_CARET,
	TK_TILDE,
	TK_BANG,
	TK_LT,
	TK_GT,
	TK_LE,
	TK_GE,
	TK_EQ,
	TK_NE,
	TK_ANDAND,
	TK_OROR,
	TK_SHL,
	TK_SHR,
	TK_ASSIGN,
	TK_ADD_ASSIGN,
	TK_SUB_ASSIGN,
	TK_MUL_ASSIGN,
	TK_DIV_ASSIGN,
	TK_MOD_ASSIGN,
	TK_AND_ASSIGN,
	TK_OR_ASSIGN,
	TK_XOR_ASSIGN,
	TK_SHL_ASSIGN,
	TK_SHR_ASSIGN,
	TK_INC,
	TK_DEC,
	TK_ARROW, /* -> (args->field, bpftrace's spelling of args.field) */
	TK_COUNT
};

typedef struct tw_token {
	int kind;
	uint32_t line, col;
	const char *text; /* TK_STR: arena copy with escapes resolved;
			   * others: points into the source */
	size_t len;
	int64_t ival;
} tw_token;

typedef struct tw_compiler tw_compiler;

typedef struct tw_lexer {
	const char *src, *end, *p;
	uint32_t line;
	const char *line_start;
} tw_lexer;

void tw_lex_init(tw_lexer *lx, const char *src, size_t len);
/* The next token; probe_mode reads a probe specification (sys:event,
 * globs, interval:1s) as one TK_PROBE. Errors longjmp via tw_sc_error(). */
void tw_lex_next(tw_compiler *c, tw_token *out, int probe_mode);
const char *tw_tok_name(int kind);

/* consts.c: a kernel constant scripts take from #include (TASK_RUNNING,
 * SIGKILL, AF_INET): 1 and its value in *value, or 0 when unknown. */
int tw_const_lookup(const char *name, size_t len, int64_t *value);

/* ---- the tree; after check.c, the typed intermediate form ----
 *
 * Every node has a type (TY_INT, TY_STR or TY_VOID). Names are resolved:
 * a field is an index into its probe's field table (one handle per event
 * the probe matches), a $var a slot, a map an index into the map table
 * with its key and value types fixed. Nothing in it needs an interpreter
 * except where the KERNEL column of the node table says so; a kernel
 * backend (eBPF; ftrace hist triggers for count/sum/hist on fields of one
 * event with field keys) lowers this form, not the bytecode.
 *
 * node         meaning                                 KERNEL
 * N_INT        integer literal                         yes
 * N_STR        string literal                          yes (eBPF: map
 * key/printf only) N_CTX        ts usecs cpu pid tid tgid comm event    yes
 * N_FIELD      args.FIELD, args.FIELD[i]               yes
 * N_VAR        $var                                    yes (eBPF stack)
 * N_MAPGET     @m[k...]                                yes (eBPF map lookup)
 * N_UNARY      - ! ~                                   yes
 * N_BINARY     + - * / % & | ^ << >> compare           yes (string compare:
 * eBPF loop) N_AND N_OR   && || (short circuit)                   yes N_COND c
 * ? a : b                               yes N_CALL       strlen strncmp
 * strcontains              eBPF: bounded loop N_BLOCK      { stmts } N_EXPRSTMT
 * an expression evaluated for nothing N_SETVAR     $v = e N_SETMAP     @m[k] =
 * e N_AGG        @m[k] = count() | sum(e) ... lhist()    yes (hist triggers:
 * count/sum/hist) N_DELETE     delete(@m[k])                           yes
 * N_CLEAR      clear(@m)                               eBPF: user space
 * N_ZERO       zero(@m)                                eBPF: user space
 * N_PRINTMAP   print(@m [, n])                         user space
 * N_PRINTF     printf("fmt", args...)                  eBPF: perf buffer
 * N_IF         if (c) s else s                         yes
 * N_WHILE      while (c) s  (at most TW_SC_LOOP_MAX)   eBPF: bounded loop
 * N_BREAK N_CONTINUE                                   yes
 * N_EXIT       exit()                                  yes (signals user space)
 */
enum tw_node_kind {
	N_INT = 1,
	N_STR,
	N_CTX,
	N_FIELD,
	N_VAR,
	N_MAPGET,
	N_UNARY,
	N_BINARY,
	N_AND,
	N_OR,
	N_COND,
	N_CALL,
	N_BLOCK,
	N_EXPRSTMT,
	N_SETVAR,
	N_SETMAP,
	N_AGG,
	N_DELETE,
	N_CLEAR,
	N_PRINTMAP,
	N_PRINTF,
	N_IF,
	N_WHILE,
	N_BREAK,
	N_CONTINUE,
	N_EXIT,
	N_TIME,	  /* time("fmt"): the wall clock now, by strftime */
	N_ZERO,	  /* zero(@m): every value 0, the keys kept */
	N_JOIN,	  /* join(args.argv [, "delim"]): a syscall's char ** argument's
		   * strings printed, read in the kernel only */
	N_PCAST,  /* (struct NAME *)a: a's value as a pointer to a kernel
		   * type (btf.c), in the kernel only */
	N_MEMBER, /* a->name (op TK_ARROW) or a.name of a struct (TK_DOT):
		   * kernel or task memory, read in the kernel only */
	N_ENUMC,  /* NAME not among trawl's constants: a kernel enum's,
		   * from BTF in the kernel only (check.c makes it N_INT) */
};

/* A member of a kernel struct (btf.c). */
enum { TW_BTF_INT = 1, TW_BTF_PTR, TW_BTF_STRUCT, TW_BTF_CHARS };
typedef struct tw_btf_member {
	uint32_t offset; /* bytes into the struct */
	uint32_t size;	 /* bytes; TW_BTF_CHARS: the array's length */
	int kind;	 /* TW_BTF_* */
	int is_signed;
	int32_t target; /* PTR: the struct it points to (0: another
			 * type); STRUCT: its type */
} tw_btf_member;

/* What a node's value says of memory (tw_node.mem). */
enum {
	TW_MEM_NONE,
	TW_MEM_PTR,    /* an address of a struct of type btf */
	TW_MEM_STRUCT, /* a struct of type btf in memory: its address is
			* computed, never loaded (a.b.c) */
};

enum tw_type_id { TY_VOID = 0, TY_INT, TY_STR, TY_STACK };

/* A kstack's type carries its frame limit and print mode, so kstack(5)
 * and kstack are different types, as in bpftrace; as a value it is an
 * integer, the id of the stack in the script's table (stacks.c). */
#define TW_STACK_TYPE(limit, perf) (TY_STACK | (limit) << 8 | (perf) << 16)
static inline int tw_is_stack(int type)
{
	return (type & 0xff) == TY_STACK;
}
static inline int tw_stack_limit(int type)
{
	return (type >> 8) & 0xff;
}
static inline int tw_stack_perf(int type)
{
	return (type >> 16) & 1;
}

enum tw_ctx_id {
	CX_TS,
	CX_USECS, /* (ts + 500) / 1000: the kernel's text rounds so */
	CX_CPU,
	CX_PID,
	CX_TID,
	CX_TGID,
	CX_COMM,
	CX_EVENT,
	CX_PROBE,   /* "tracepoint:sys:name", as bpftrace prints probe */
	CX_ELAPSED, /* ns since the run began (live) or its first event */
	CX_KSTACK,  /* the kernel stack at the event (ival: limit | perf
		     * << 8); ftrace records it after the event */
	CX_UID,	    /* the task's user and group ids: in the kernel only */
	CX_GID,
	CX_CURTASK, /* the task's struct task_struct *: in the kernel only */
	CX_CGROUP,  /* the task's cgroup v2 id: in the kernel only */
	CX_USERNAME, /* the name of the task's uid: in the kernel only */
	CX_ARG0,     /* a uprobe's function's arguments, arg0 .. arg5 */
	CX_ARG5 = CX_ARG0 + 5,
	CX_RETVAL, /* a uretprobe's function's return value */
	CX_FUNC,   /* a uprobe's function's name */
};

enum tw_call_id {
	CALL_STRLEN,
	CALL_STRNCMP,
	CALL_STRCONTAINS,
	CALL_STR,
	CALL_KSYM,  /* ksym(addr): the kernel symbol holding addr */
	CALL_NTOP,  /* ntop([af,] addr): an IPv4 or IPv6 address's text */
	CALL_BSWAP, /* bswap(x): its bytes reversed, as many as x's type */
	CALL_KADDR, /* kaddr("sym"): a kernel symbol's address (check.c
		     * makes it N_INT from /proc/kallsyms, live only) */
	CALL_STRFTIME, /* strftime("fmt", ns): a time of the trace's clock
			* as text (slot: the format's index in the
			* compiler's formats) */
};

/* ksym() in the kernel: a string whose first bytes are these, then the
 * address at byte 8, named when user space reads it (bpf-sys.c) */
#define TW_KSYM_TAG "\001K"
/* ntop() in the kernel: the tag, the family at byte 2, the address's
 * bytes from byte 8 */
#define TW_NTOP_TAG "\001N"
/* username in the kernel: the tag, the uid at byte 8 */
#define TW_USER_TAG "\001U"
/* strftime() in the kernel: the tag, the format's index (u16) at byte
 * 2, the time (the probe's monotonic ns) at byte 8 */
#define TW_TIME_TAG "\001T"
/* probe in a perf event's program (its path may be longer than a
 * string): the tag, the probe's index (u16) at byte 2 */
#define TW_PROBE_TAG "\001P"

/* ksym(): the name of the kernel symbol holding addr, or "0x..." (in
 * buf, 20 bytes) when none does (script.c). */
const char *tw_ksym(struct trawl_script *s, uint64_t addr, char *buf);
/* ntop(): an address's text (family AF_INET or AF_INET6, the bytes in
 * network order), in one of the script's few buffers (script.c). */
const char *tw_ntop(struct trawl_script *s, int family, const void *addr);
/* username: the name of a uid (getpwuid), else the number, in one of
 * the script's few buffers (script.c). */
const char *tw_username(struct trawl_script *s, uint32_t uid);
/* strftime(): fmt of the time ns (the trace's clock; live, the monotonic
 * clock made the wall clock), in one of the script's few buffers. */
const char *tw_strftime(struct trawl_script *s, const char *fmt, int64_t ns);

/* Map value kinds: what a map holds, fixed by its first use. */
enum tw_mv_kind {
	MV_NONE = 0,
	MV_INT,
	MV_STR,
	MV_COUNT,
	MV_SUM,
	MV_AVG,
	MV_MIN,
	MV_MAX,
	MV_STATS,
	MV_HIST,
	MV_LHIST,
};

typedef struct tw_node tw_node;
struct tw_node {
	int kind;
	int type; /* enum tw_type_id, set by check.c */
	uint32_t line, col;
	int op;	      /* N_UNARY/N_BINARY: a TK_*; N_CTX: CX_*; N_CALL: CALL_*;
		       * N_AGG: MV_*; N_SETVAR/N_SETMAP: TK_ASSIGN or a
		       * compound TK_*_ASSIGN */
	int64_t ival; /* N_INT; N_FIELD: 1 for a syscall's char * argument,
		       * 2 for a char ** (argv);
		       * N_CALL str(): 1 when it reads the task's memory */
	const char *name; /* N_STR text, identifiers, field and var names */
	size_t len;
	int slot;   /* N_FIELD: field index; N_VAR: slot; maps: map index */
	int height; /* parse.c: of the expression tree, bounded so that the
		     * checker's and the lowering's recursion is */
	tw_node *a, *b, *c; /* operands; N_IF: cond, then, else */
	tw_node **kids;	    /* keys, call/printf arguments, block stmts */
	size_t nkids;
	/* check.c: a pointer to a kernel struct, or a struct in memory
	 * (TW_MEM_*, of BTF type btf), the task's memory (user) or the
	 * kernel's; N_MEMBER: the member */
	int mem;
	int32_t btf;
	int user;
	tw_btf_member m;
	int width; /* check.c: bytes of the value's type (a member's, a
		    * field's, a cast's) for bswap(); 0: 8 */
};

/* A probe specification: an event pattern, BEGIN, END, interval, or a
 * perf event (profile:hz:99, software:faults:100: the BPF back end's, a
 * BPF_PROG_TYPE_PERF_EVENT program on each CPU). */
enum tw_probe_kind { PK_EVENT, PK_BEGIN, PK_END, PK_INTERVAL, PK_PERF };

typedef struct tw_probe_spec {
	int kind;
	const char *text; /* as written, for messages */
	size_t len;
	const char *system; /* PK_EVENT: NULL for any (arena strings) */
	const char *name;
	int64_t period; /* PK_INTERVAL: ns; PK_PERF: the sample period (ns
			 * of cpu-clock, or events), 0 with freq */
	uint64_t freq;	/* PK_PERF: samples a second (profile:hz:N) */
	uint32_t perf_type;   /* PK_PERF: PERF_TYPE_SOFTWARE, or the uprobe
			       * PMU's type (uprobe.c) */
	uint64_t perf_config; /* PK_PERF: PERF_COUNT_SW_*; a uprobe's: its
			       * return-probe bit */
	/* PK_PERF, uprobe:PATH:FUNC (name: FUNC): 1 a uprobe, 2 a
	 * uretprobe; the file (resolved by uprobe.c) and FUNC's offset */
	int uprobe;
	const char *upath;
	uint64_t uoffset;
	uint32_t line, col;
} tw_probe_spec;

typedef struct tw_probe {
	tw_probe_spec *specs;
	size_t nspecs;
	tw_node *pred; /* or NULL */
	tw_node *body;
	uint32_t line, col;
	/* check.c: the fields it reads (names) and their types */
	const char **fields;
	int *field_types;
	size_t nfields;
	/* the events it matches (schema indices) */
	size_t *events;
	size_t nevents;
	int has_event; /* an event probe: context and args available */
	int perf;      /* a perf event's (PK_PERF): the task's context, no
			* args; in the kernel only */
	int uprobe;    /* of those, a uprobe's (1) or uretprobe's (2):
			* arg0 .. arg5, retval, func */
	int nslots;    /* check.c: its $vars (slots 0 .. nslots - 1) */
	int kind;      /* script.c: PK_EVENT, or the one spec's kind */
	/* lower.c */
	size_t code_start;
	char label[320]; /* the specs as written (probe; fault messages) */
	char **fnames;	/* script.c: the field names, for array reads */
	size_t nfnames;
	/* check.c: where it first reads the task's memory (str() of a user
	 * pointer, N_CALL CALL_STR with ival 1), which only a probe in the
	 * kernel can; 0: it does not */
	uint32_t user_line, user_col;
	const char *user_what; /* what it reads there ("str() of a ...") */
	int kstack;	       /* check.c: it reads kstack */
} tw_probe;

/* A map as the checker fixed it. */
typedef struct tw_map_decl {
	const char *name; /* without the @ */
	size_t len;
	int nkeys; /* -1: not known yet */
	int key_types[TW_SC_MAX_KEYS];
	int kind;			 /* enum tw_mv_kind */
	int64_t lh_min, lh_max, lh_step; /* MV_LHIST */
	int vtype;    /* MV_INT: TY_INT, or a stack type (@s[tid] = kstack) */
	int user_ptr; /* MV_INT holding a syscall's char * argument (the
		       * address, for a str() in the kernel) */
	uint32_t line, col;
} tw_map_decl;

/* lhist buckets between min and max (the open ends are two more); in
 * 128 bits, since max - min need not fit in 64. */
static inline int64_t tw_lhist_nb(const tw_map_decl *d)
{
	__int128 span = (__int128)d->lh_max - d->lh_min;
	return (int64_t)((span + d->lh_step - 1) / d->lh_step);
}

/* A printf format compiled: literal text and conversions. */
/* printf widths and precisions beyond this are cut to it: bpftrace
 * honours any (%999999999d writes a gigabyte, slowly); the output buffer
 * of one conversion is sized by it */
#define TW_SC_FMT_WIDTH_MAX 4096

typedef struct tw_fmt_conv {
	size_t lit_off, lit_len; /* literal text before it, in text */
	char spec[32];		 /* a C conversion ("%-8lld", "%-8.*s") */
	int prec;		 /* %s: the precision given, or -1 */
	int type;		 /* TY_INT, TY_STR; TY_VOID: no conversion
				  * (the trailing literal) */
	char conv;		 /* the conversion letter as written */
	int star;		 /* %*d: the width is an argument before */
	int width;		 /* the width written (for %p's "(nil)") */
	int left;		 /* the '-' flag */
	int u32;		 /* %u %x %o without l: a negative value of
				  * 32 bits prints as 32 bits (bpftrace) */
	int stack;		 /* %s of a kstack: its type, else 0 */
} tw_fmt_conv;

typedef struct tw_fmt {
	const char *text;
	tw_fmt_conv *convs;
	size_t nconvs; /* including the trailing literal */
	size_t nargs;  /* values popped: one per conversion, two for %*d */
} tw_fmt;

/* ---- schema: the events and fields a trace's formats declare ---- */

typedef struct tw_schema_field {
	const char *name;
	int type;     /* TY_INT, TY_STR; TY_VOID: an array (not readable yet) */
	int user_ptr; /* a syscall's char * (1) or char ** (2, argv)
		       * argument: a pointer into the
		       * task's memory, which ftrace does not copy */
	/* where the record holds it (the format's offset:, size:, signed:),
	 * for a probe compiled to BPF; size 0: not in the record (the print
	 * event's marker fields, which lib/core derives) */
	uint32_t offset, size;
	int is_signed;
	int dloc;  /* 1: __data_loc, 2: __rel_loc (offset after the field) */
	int array; /* a fixed array: char comm[16] */
	/* its declaration before the name ("struct __kernel_timespec *") */
	const char *ctype;
	size_t ctype_len;
} tw_schema_field;

typedef struct tw_schema_event {
	const char *system;
	const char *name;
	size_t format;	  /* its index for tw_trace_format_at() */
	const char *text; /* the format, read and parsed on first need */
	size_t text_len;
	tw_schema_field *fields;
	size_t nfields;
	int parsed;
} tw_schema_event;

typedef struct tw_schema {
	tw_schema_event *events;
	size_t nevents;
} tw_schema;

int tw_schema_load(tw_compiler *c);
/* Event i with its text and fields, read and parsed the first time.
 * A text that cannot be read leaves it with no fields. */
tw_schema_event *tw_schema_fields(tw_compiler *c, size_t i);
int tw_glob(const char *pat, const char *s);

/* ---- bytecode program ---- */

typedef struct tw_program {
	uint32_t *code;
	size_t ncode, code_cap;
	int64_t *ints;
	size_t nints, ints_cap;
	/* string literals: arena-owned in the compiler, copied here */
	struct tw_pstr {
		char *s;
		size_t len;
	} * strs;
	size_t nstrs, strs_cap;
	tw_fmt *fmts;
	size_t nfmts;
	uint32_t *lines; /* line << 12 | col of each instruction */
	size_t lines_cap;
	size_t max_stack;
	int nvars;
	int *var_types;
} tw_program;

/* ---- compiler ---- */

struct tw_compiler {
	trawl_trace *t;
	const tw_mem *mem;
	tw_arena arena;
	jmp_buf jmp;
	trawl_error *err;
	const char *name;
	tw_lexer lx;
	tw_token tok, peek;
	int have_peek;
	int paren_depth; /* '/' is division inside parentheses only, in a
			  * predicate */
	int in_pred;
	int depth; /* parse.c: recursion, at most TW_SC_MAX_DEPTH */
	tw_probe *probes;
	size_t nprobes, probes_cap;
	tw_map_decl *maps;
	size_t nmaps, maps_cap;
	/* scratch variables of the probe being checked */
	struct tw_var {
		const char *name;
		size_t len;
		int type;
		int slot;
		/* a pointer to a kernel struct it holds (tw_node's) */
		int mem, user;
		int32_t btf;
		int width; /* of what it holds (tw_node's) */
	} * vars;
	size_t nvars, vars_cap;
	int nslots;
	int loop_depth;
	int pass;     /* check.c: 1 infers map kinds, 2 checks all */
	int kernel;   /* live with the BPF back end allowed: a probe may
		       * read the task's memory (str() of a user pointer) */
	int uptr_ok;  /* check.c: a user pointer may stand here (str()'s
		       * argument, a map's value) */
	int deferred; /* pass 1 met a map whose kind comes later */
	size_t cur_probe;
	tw_schema schema;
	struct tw_format_set *bundled; /* check.c: loaded when needed */
	tw_program *prog;
	tw_fmt *fmts;
	size_t nfmts, fmts_cap;
	const char *const *params; /* $1 ... (trawl_script_opts) */
	size_t nparams;
	int64_t max_param;   /* the highest $N the script names; -1: $# */
	int64_t unroll_mult; /* parse.c: copies of the unrolls around */
	struct btf *btf;     /* btf.c: the kernel's types, once named */
	/* check.c: /proc/kallsyms' text, read at the first kaddr() (arena),
	 * and how many data symbols it lists */
	char *ksyms;
	size_t ksyms_len, ksyms_data;
};

/* btf.c: the kernel's struct (or union) NAME, its BTF id; longjmps with
 * a message at `at` when it is not there or BTF cannot be read. */
int32_t tw_btf_struct(tw_compiler *c, const tw_node *at, const char *name,
		      size_t len);
/* Member name of struct id (through anonymous members), into *out. */
void tw_btf_find(tw_compiler *c, const tw_node *at, int32_t id,
		 const char *name, tw_btf_member *out);
/* The value of the kernel's enum constant name: 1 with *v, or 0. */
int tw_btf_enum(tw_compiler *c, const tw_node *at, const char *name,
		int64_t *v);
/* A type's name, for messages. */
const char *tw_btf_name(tw_compiler *c, int32_t id);
void tw_btf_free(tw_compiler *c);

/* Fail compilation: fills c->err with NAME:LINE:COL and longjmps. */
__attribute__((noreturn, format(printf, 5, 6))) void
tw_sc_error(tw_compiler *c, int code, uint32_t line, uint32_t col,
	    const char *fmt, ...);
__attribute__((noreturn)) void tw_sc_oom(tw_compiler *c);
void *tw_sc_alloc(tw_compiler *c, size_t n);
/* Grow an arena array (copying), longjmp on OOM. */
void tw_sc_grow(tw_compiler *c, void **pp, size_t *cap, size_t need,
		size_t elem);

/* filter.c: the predicate as the kernel's filter for event e, or NULL
 * when the filter language cannot say it (caller frees with tw_free). */
char *tw_filter_of(tw_compiler *c, const tw_node *pred,
		   const tw_schema_event *e);

/* uprobe.c: a uprobe spec's file, FUNC's offset in it and the uprobe
 * PMU's perf type and config; errors at the spec. */
void tw_uprobe_resolve(tw_compiler *c, tw_probe_spec *s);

void tw_parse_program(tw_compiler *c);
void tw_check_program(tw_compiler *c);
void tw_lower_program(tw_compiler *c);
void tw_program_free(const tw_mem *mem, tw_program *p);

/* ---- maps (maps.c) ---- */

/* A value: an integer (s NULL), or a string of i bytes at s (not
 * NUL-terminated); 16 bytes, the VM copies them all the time. */
typedef struct tw_sval {
	int64_t i;
	const char *s;
} tw_sval;

/* ---- kernel stacks (stacks.c) ----
 *
 * Every stack a run meets, interned: a kstack value is its id (0: the
 * empty stack). A stack is kept as the kernel gave it less the tracing
 * code's own frames on top (trace_event_raw_event_*, __traceiter_*,
 * perf_syscall_enter ...: ftrace's stacktrace trigger and a BPF program
 * see different ones), then cut to the kstack's limit, so the same stack
 * has the same id whichever back end saw it. */
typedef struct tw_stacks {
	const tw_mem *mem;
	trawl_trace *t; /* its symbols name the frames */
	uint64_t *pool; /* every stack's frames, one after the other */
	size_t npool, pool_cap;
	struct tw_stack {
		size_t off;
		uint32_t n;
		uint64_t hash;
	} * v; /* by id; v[0] the empty stack */
	size_t n, cap;
	uint32_t *index; /* open addressing: ids by hash, 0 free */
	size_t icap;
	uint64_t dropped; /* stacks not kept: TW_SC_STACKS_MAX reached */
} tw_stacks;

void tw_stacks_init(tw_stacks *st, const tw_mem *mem, trawl_trace *t);
void tw_stacks_fini(tw_stacks *st);
/* The id of frames[0..n) (innermost first) as a kstack of type type
 * (its limit): tracing frames dropped, then cut. Return: the id, 0 for
 * an empty stack; -1 when the table is full (st->dropped counts it), -2
 * out of memory: the caller takes the empty stack then. */
int64_t tw_stack_intern(tw_stacks *st, const uint64_t *frames, size_t n,
			int type);
const uint64_t *tw_stack_frames(const tw_stacks *st, int64_t id, size_t *n);
/* Stacks in a fixed order (by frames, not ids, which differ by run). */
int tw_stack_cmp(const tw_stacks *st, int64_t a, int64_t b);
/* A frame as bpftrace prints it: "name+off" (decimal), or the address. */
void tw_stack_frame_name(const tw_stacks *st, uint64_t addr, char *buf,
			 size_t n);

typedef struct tw_mentry tw_mentry;
struct tw_mentry {
	tw_mentry *next;
	uint64_t hash;
	uint32_t klen;
	/* value (vsize bytes), then the key */
	int64_t v[];
};

typedef struct tw_smap {
	const tw_map_decl *decl;
	const tw_mem *mem;
	int kind, nkeys; /* the decl's, kept here for the VM */
	/* flat (one integer key, a small value): cap slots of stride bytes,
	 * each a tw_mentry (klen 0 when free) with its value and key inline */
	int flat;
	unsigned shift; /* 64 - log2(cap) */
	char *slots;
	size_t cap, stride;
	/* chained (every other map) */
	tw_mentry **buckets;
	size_t nbuckets;
	size_t n;
	size_t limit;
	size_t vsize; /* bytes, a multiple of 8 */
	uint64_t dropped;
	/* the entry found or made last: a probe often names one key several
	 * times (read, then set), and this skips the bucket walk, whose
	 * loads miss the cache on big maps */
	tw_mentry *last;
	const tw_stacks *stacks; /* kstack keys and values sort by frames */
} tw_smap;

void tw_smap_init(tw_smap *m, const tw_map_decl *d, const tw_mem *mem,
		  size_t limit);
void tw_smap_fini(tw_smap *m);
void tw_smap_clear(tw_smap *m);
/* zero(): every value 0 (or "", or empty buckets), the keys kept */
void tw_smap_zero(tw_smap *m);
/* Serialise key values into buf; return the length. */
size_t tw_smap_key(const tw_map_decl *d, const tw_sval *keys, char *buf);
/* Find (and with create, insert zeroed) the entry of key. Return: the
 * entry, NULL when absent (create: -1 in *full when at the limit, -2 out
 * of memory). */
tw_mentry *tw_smap_get(tw_smap *m, const char *key, size_t klen, int create,
		       int *full);
void tw_smap_delete(tw_smap *m, const char *key, size_t klen);
/* The same for a flat map (m->flat), by the integer key itself. */
tw_mentry *tw_smap_geti(tw_smap *m, int64_t key, int create, int *full);
void tw_smap_deletei(tw_smap *m, int64_t key);

/* Flat maps: slot i, and where key's probe run starts (Fibonacci hashing:
 * the top bits of key * 2^64/phi, which spreads consecutive pids). A used
 * slot has klen 8 and its key in hash. */
static inline tw_mentry *tw_flat_slot(const tw_smap *m, size_t i)
{
	return (tw_mentry *)(m->slots + i * m->stride);
}

static inline size_t tw_flat_home(const tw_smap *m, int64_t key)
{
	return (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> m->shift);
}

/* The entry of key in a flat map, or NULL. */
static inline tw_mentry *tw_flat_find(const tw_smap *m, int64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = tw_flat_home(m, key);; i = (i + 1) & (m->cap - 1)) {
		tw_mentry *e = tw_flat_slot(m, i);
		if (!e->klen)
			return NULL;
		if (e->hash == (uint64_t)key)
			return e;
	}
}
static inline const char *tw_mentry_key(const tw_smap *m, const tw_mentry *e)
{
	return (const char *)e->v + m->vsize;
}
/* Decode the key of e into vals (strings point into the entry). */
void tw_smap_unkey(const tw_smap *m, const tw_mentry *e, tw_sval *vals);
/* Entries sorted as printed (by value ascending, hist by key); caller
 * frees the array with tw_free. Return: NULL when empty or OOM. */
tw_mentry **tw_smap_sorted(const tw_smap *m, size_t *n);
/* The value of e as an integer (count, sum, avg...). */
int64_t tw_mentry_int(const tw_smap *m, const tw_mentry *e);
int tw_hist_bucket(int64_t v);

/* ---- the script (script.c, vm.c, print.c) ---- */

typedef struct tw_fault {
	size_t probe;
	uint32_t pc;
	uint64_t count;
	char msg[800];
} tw_fault;

/* One event a probe matches: its subscription context. */
typedef struct tw_binding {
	struct trawl_script *s;
	size_t probe;
	trawl_field *handles; /* one per field of the probe */
	int32_t *aidx;	  /* array fields: the index where the field was last
			   * found (its name is checked there first) */
	char *pattern;	  /* "sys:event" as subscribed */
	char *probe_name; /* "tracepoint:sys:event", bpftrace's probe */
	char *filter;	  /* the predicate as a kernel filter, or NULL */
	int kstack; /* its probe reads kstack: the event is held (hold.c) */
} tw_binding;

struct tw_bpf;

struct tw_hold;

struct trawl_script {
	trawl_trace *t;
	/* ksym()'s and ntop()'s texts: as many at once as a printf has
	 * arguments (a key has fewer parts) */
	char texts[TW_SC_MAX_ARGS][TW_SC_STRMAX];
	unsigned texts_next;
	/* kernel stacks (stacks.c); the events held until the stack ftrace
	 * writes after each has come (hold.c; NULL: no probe off the
	 * kernel reads kstack); the stack of the event being run: 1 its
	 * frames, -1 none came with it, 0 none asked for */
	tw_stacks stacks;
	struct tw_hold *hold;
	const uint64_t *ev_frames;
	size_t ev_nframes;
	int ev_stack;
	struct tw_bpf *bpf; /* the BPF back end's (bpf-int.h), or NULL */
	char *explain;	    /* trawl_script_explain() */
	const tw_mem *mem;
	trawl_script_opts opts;
	char name[128];
	tw_program prog;
	tw_probe *probes; /* copied out of the compiler: code_start, label,
			   * has_event; specs are not kept */
	size_t nprobes;
	tw_map_decl *maps;
	tw_smap *smaps;
	size_t nmaps;
	tw_binding *bindings;
	size_t nbindings;
	/* interval probes */
	struct tw_interval {
		size_t probe;
		int64_t period;
		int64_t next;
	} * intervals;
	size_t nintervals;
	int started_intervals;
	/* VM state */
	tw_sval *stack;
	/* a map key serialised (vm.c): here, not on the VM's stack frame,
	 * which then needs no stack protector's canary per probe run */
	char keybuf[TW_SC_MAX_KEYS * (TW_SC_STRMAX + 8)];
	tw_sval *vars;
	char (*var_bufs)[TW_SC_STRMAX];
	/* the fields read in this run: fvals[i] is current when fgen[i] is
	 * the run's generation */
	tw_sval *fvals;
	uint64_t *fgen;
	uint64_t gen;
	int exited;
	tw_fault faults[TW_SC_MAX_FAULTS];
	size_t nfaults;
	uint64_t faults_lost;
	/* output */
	tw_buf out;
	tw_buf *capture; /* tw_out() appends here instead (bpf-sys.c: a
			  * CPU's line being put together) */
	/* one printf conversion: widths and precisions are at most
	 * TW_SC_FMT_WIDTH_MAX (check.c), so the value is never cut off */
	char fmt_buf[2 * TW_SC_FMT_WIDTH_MAX + 64];
	int json_open; /* the "output" string has begun */
	int oom;
	int live; /* a live trace: output goes out after each probe run */
	/* elapsed counts from t0: the run's start live (CLOCK_MONOTONIC,
	 * the trace clock), else the first event's time */
	int64_t t0;
	int have_t0;
};

/* Run a probe's code for ev (NULL for BEGIN, END, interval). Return: 1
 * after exit(), 0 otherwise. */
int tw_vm_exec(struct trawl_script *s, size_t probe, const trawl_event *ev,
	       tw_binding *b, int64_t now);
void tw_sc_fault(struct trawl_script *s, size_t probe, uint32_t pc,
		 const char *what);
/* A fault counted elsewhere (the kernel's, by key 1 << 31 | site): its
 * count set to the total so far. */
void tw_sc_fault_set(struct trawl_script *s, size_t probe, uint32_t key,
		     uint32_t line, uint32_t col, const char *what,
		     uint64_t count);

/* script.c: a binding's probe run for ev, and the interval probes due
 * by ts (hold.c runs what it held through these). Return: 1 after
 * exit(). */
int tw_sc_run_event(struct trawl_script *s, tw_binding *b,
		    const trawl_event *ev);
int tw_sc_intervals_to(struct trawl_script *s, int64_t ts);

/* hold.c: events whose probes read kstack wait for the stack ftrace
 * writes after them (the next record on their CPU), and everything after
 * them waits too, so probes still run in the trace's order. */
int tw_hold_init(struct trawl_script *s);
void tw_hold_free(struct trawl_script *s);
/* the first "*" subscription: a stack or another record on a held
 * event's CPU settles it */
int tw_hold_watch(const trawl_event *ev, void *ctx);
/* Is anything held? Then what comes goes in after it. */
int tw_hold_busy(const struct trawl_script *s);
int tw_hold_event(struct trawl_script *s, tw_binding *b, const trawl_event *ev);
int tw_hold_time(struct trawl_script *s, int64_t ts);
/* The end of the run: what is still held runs (without a stack). */
int tw_hold_flush(struct trawl_script *s);

/* print.c */
void tw_out(struct trawl_script *s, const char *p, size_t n);
void tw_out_flush(struct trawl_script *s);
void tw_print_map(struct trawl_script *s, size_t map, int64_t top);
void tw_printf(struct trawl_script *s, const tw_fmt *f, const tw_sval *args);
void tw_print_json_maps(struct trawl_script *s);
/* time("fmt"): the wall clock now by strftime (fmt NUL-terminated) */
void tw_print_time(struct trawl_script *s, const char *fmt);
/* The same for a wall-clock time (ns since the epoch). */
void tw_print_time_at(struct trawl_script *s, const char *fmt, int64_t wall_ns);

#endif
