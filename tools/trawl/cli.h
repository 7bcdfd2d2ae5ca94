/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of the trawl command: the subcommand table, option helpers,
 * the progress bar and output escaping. Subcommands return the exit status:
 * 0 success, 1 bad input or usage, 2 environment.
 */
#ifndef TRAWL_CLI_H
#define TRAWL_CLI_H

#include <stdio.h>

#include <trawl/trawl.h>

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_ENV = 2 };

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

int cmd_stats(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_latency(int argc, char **argv);
int cmd_irq(int argc, char **argv);
int cmd_workqueue(int argc, char **argv);
int cmd_slices(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_power(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_view(int argc, char **argv);
int cmd_chart(int argc, char **argv);
int cmd_fleet(int argc, char **argv);

/* Exports (export-*.c): subscribe, run and write; return the exit status. */
int export_csv(trawl_trace *t, const char *dir, int with_all, int threads);

int export_perfetto(trawl_trace *t, const char *path, int threads);

/* Print "trawl: <msg>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Exit status for a library error code (negative TRAWL_E*). */
int cli_status(int rc);

/* Options every reading subcommand takes. */
struct cli_input {
	unsigned flags;	     /* TRAWL_OPEN_* */
	int threads;	     /* 0: library default */
	size_t window;	     /* 0: exact order */
	const char *formats; /* --formats: event formats for text traces */
	int64_t from, to;    /* with TRAWL_OPEN_RANGE: only these times */
};

/* Parse a common option (--strict, --threads N); 1 if it was one. */
int cli_input_option(struct cli_input *in, int opt, const char *arg);

#define CLI_INPUT_LONG_OPTIONS                                                 \
	{"strict", no_argument, NULL, 0x100},                                  \
		{"threads", required_argument, NULL, 0x101},                   \
		{"window", required_argument, NULL, 0x102},                    \
	{                                                                      \
		"formats", required_argument, NULL, 0x103                      \
	}

#define CLI_INPUT_HELP                                                         \
	"  --strict       the first malformed line is an error (exit 1)\n"     \
	"  --threads N    threads for reading (default 2; 1 = no helper "      \
	"threads)\n"                                                           \
	"  --window N     stream (e.g. a live trace_pipe): put events in "     \
	"order\n"                                                              \
	"                 within N at a time instead of reading to the end "   \
	"first;\n"                                                             \
	"                 later ones are delivered anyway and counted as "     \
	"late\n"                                                               \
	"  --formats P    text traces: the event formats naming and typing "   \
	"the\n"                                                                \
	"                 fields: an events/ tree (a copy of a device's "      \
	"tracefs),\n"                                                          \
	"                 a file of formats, or \"none\"; default: this "      \
	"machine's\n"                                                          \
	"                 tracefs, then the table bundled in trawl\n"

/* trawl_open()'s options from the common ones, with the progress bar
 * when stderr is a terminal; cli_progress_end() clears it after a run
 * that was not cli_run()'s. */
void cli_open_opts(const struct cli_input *in, trawl_open_opts *o);
void cli_progress_end(void);

/* Open FILE with the common options; prints the error and sets *status. */
trawl_trace *cli_open(const char *path, const struct cli_input *in,
		      int *status);

/* Run with a progress bar on stderr when it is a terminal. */
int cli_run(trawl_trace *t);

/* A progress callback for trawl_open_opts. */
void cli_progress(void *ctx, uint64_t done, uint64_t total);

/* Output helpers */
void json_string(FILE *f, const char *s, size_t n);
void csv_field(FILE *f, const char *s, size_t n);
int is_json_integer(const char *s, size_t n);
void print_time(FILE *f, int64_t ns);
void flags_string(const trawl_event *ev, char out[6]);

/* A growable output buffer (cli-buf.c): build a row, write it at once. */
struct cli_buf {
	char *p;
	size_t n, cap;
	int oom; /* an append failed: buf_write() reports it */
};
void buf_bytes(struct cli_buf *b, const char *s, size_t n);
void buf_str(struct cli_buf *b, const char *s);
void buf_char_grow(struct cli_buf *b, char c);
/* one byte: inline, the exports write one between every two values */
static inline void buf_char(struct cli_buf *b, char c)
{
	if (b->n < b->cap)
		b->p[b->n++] = c;
	else
		buf_char_grow(b, c);
}
void buf_u64(struct cli_buf *b, uint64_t v);
void buf_hex(struct cli_buf *b, uint64_t v); /* 0x... */
void buf_i64(struct cli_buf *b, int64_t v);
/* printf's "%*d" (pad ' ') and "%0*d" (pad '0') of v */
void buf_int_width(struct cli_buf *b, int64_t v, int width, char pad);
/* print_time(): seconds and nine decimals */
void buf_time(struct cli_buf *b, int64_t ns);
/* ns as microseconds with three decimals (exact) */
void buf_us(struct cli_buf *b, int64_t ns);
/* as csv_field() and json_string() */
void buf_csv(struct cli_buf *b, const char *s, size_t n);
void buf_json(struct cli_buf *b, const char *s, size_t n);
/* ev's fields as a JSON object (trawl_event_fields_json()) */
void buf_json_fields(struct cli_buf *b, const trawl_event *ev);
/* Field i's typed value as text (hex for pointers), else its text. */
void buf_value(struct cli_buf *b, const trawl_event *ev, size_t i);
/* Room for n more bytes: where to write them (then buf_commit() with
 * the end of what was written), or NULL when memory ran out. */
char *buf_room(struct cli_buf *b, size_t n);
static inline void buf_commit(struct cli_buf *b, const char *end)
{
	b->n = (size_t)(end - b->p);
}
/* The decimal digits of v written to end at the latest: the first. */
char *cli_digits(uint64_t v, char *end);
/* The buf_* numbers written at o (room reserved): the end. At most 20,
 * 21, 41 or 31 bytes. */
char *put_u64(char *o, uint64_t v);
char *put_i64(char *o, int64_t v);
char *put_hex(char *o, uint64_t v); /* 0x..., at most 18 bytes */
/*
 * The decimal digits of numbers that grow slowly (times, seq): those above
 * the last six are kept from the number before, so only six are made
 * while they stay the same. One cache per sequence of numbers, zeroed to
 * start. They write up to 24 bytes at o (put_us_near 28), whatever the
 * number's length.
 */
struct cli_near {
	uint64_t hi;  /* the number / 10^6 whose digits text holds */
	uint32_t len; /* 0: none yet; at most 14 */
	char text[20];
};
char *put_u64_near(struct cli_near *c, char *o, uint64_t v);
char *put_i64_near(struct cli_near *c, char *o, int64_t v);
/* put_us() with its whole microseconds through c */
char *put_us_near(struct cli_near *c, char *o, int64_t ns);
char *put_int_width(char *o, int64_t v, int width, char pad);
char *put_time(char *o, int64_t ns);
/* ns as microseconds with three decimals (at most 26 bytes); a JSON
 * string of s[0..n) (at most 6 * n + 2 bytes) */
char *put_us(char *o, int64_t ns);
char *put_json(char *o, const char *s, size_t n);
/* Write what is there and empty it. Return: 0, or -1 (write or memory). */
int buf_write(struct cli_buf *b, FILE *f);
void buf_free(struct cli_buf *b);

/* Analysis subcommands (cli-analysis.c) */
struct cli_analysis {
	struct cli_input input;
	trawl_analysis_opts opts;
	int json, csv;
	const char *path;
	/* the analysis's end is the trace's last event when before --to
	 * (sched): the run may not stop at --to */
	int needs_end;
};

#define CLI_ANALYSIS_LONG_OPTIONS                                              \
	{"json", no_argument, NULL, 0x200}, {"csv", no_argument, NULL, 0x201}, \
		{"pid", required_argument, NULL, 0x202},                       \
		{"comm", required_argument, NULL, 0x203},                      \
		{"from", required_argument, NULL, 0x204},                      \
		{"to", required_argument, NULL, 0x205},                        \
		{"worst", required_argument, NULL, 0x206},                     \
		CLI_INPUT_LONG_OPTIONS

#define CLI_ANALYSIS_HELP                                                      \
	"  --json         machine-readable output (durations and times in "    \
	"integer ns)\n"                                                        \
	"  --csv          one CSV table: the overall row, then one row per "   \
	"key\n"                                                                \
	"  --pid PID      only this task (thread id); PID,PID,... these "     \
	"tasks\n"                                                              \
	"  --comm NAME    only tasks of this name (exact)\n"                   \
	"  --from T       ignore events before T (trace time in seconds as "   \
	"shown,\n"                                                             \
	"                 e.g. 4119.466128, or with a unit: ns, us, ms, s)\n"  \
	"  --to T         ignore events after T\n"                             \
	"  --worst N      keep the N longest instances (default "              \
	"10)\n" CLI_INPUT_HELP

/* What the rows of one result part are called. */
struct cli_rows {
	const char *rows_key;	  /* JSON array: "tasks", "irqs" ... */
	const char *what;	  /* text: "wakeups", "handler runs" */
	const char *id_key;	  /* "pid", "irq"; NULL: no id column */
	const char *name_key;	  /* "comm", "name", "function" */
	const char *worst_id_key; /* JSON key of trawl_instance.id, or NULL */
	const char *start_label, *end_label;
	int kind, cpu, self; /* columns shown */
	int values;	     /* numbers are values, not durations */
	/* residencies: a row's total and its share of its CPU's time (the
	 * rows come grouped by CPU); instances have no task */
	int share;
};

/* Parse a common or analysis option: 1 taken, 0 not ours, -1 bad value. */
int cli_analysis_option(struct cli_analysis *c, int opt, const char *arg);
/* Check the options and take FILE; prints why not. Return: exit status. */
int cli_analysis_args(struct cli_analysis *c, int argc, char **argv,
		      const char *cmd);
/*
 * The whole command line of an analysis without options of its own: the
 * common options, --help (help(stdout)) and FILE. Return: -1 to go on, or
 * the exit status to return.
 */
int cli_analysis_parse(struct cli_analysis *c, int argc, char **argv,
		       const char *cmd, void (*help)(FILE *));
trawl_trace *cli_analysis_open(struct cli_analysis *c, int *status);
/* Run the trace for analysis a (NULL: its making failed with err, which is
 * reported). Return: the exit status. */
int cli_analysis_run(trawl_trace *t, const trawl_analysis *a,
		     const trawl_error *err);
/* Print every part of the result (styles[i] for part i); extra_json is
 * printed as is after "analysis" (it ends with ",\n"). */
int cli_print_results(trawl_analysis *a, const struct cli_analysis *c,
		      const struct cli_rows *styles, const char *extra_json);
/* "1ms", "250us", "2s", "100" (ns) */
int cli_parse_duration(const char *s, int64_t *ns);
/* "4119.466128" (seconds) or with a unit */
int cli_parse_time(const char *s, int64_t *ns);
void print_duration(FILE *f, int width, int64_t ns);

/* A writer thread (bg-writer.c): full buffers are handed over and written
 * in the order given; closing a file is queued behind its writes. Each
 * returns 0 or the errno of the first failed write (bgw_submit also
 * ENOMEM for a buffer that ran out of memory: not handed over). */
struct bg_writer;
struct bg_writer *bgw_start(void); /* NULL: write on your own thread */
/* Hands b's bytes over and gives b an empty buffer back. */
int bgw_submit(struct bg_writer *w, int fd, int close_after, struct cli_buf *b,
	       const char *path);
int bgw_error(struct bg_writer *w, const char **path);
/* Waits for everything handed over, stops the thread, frees w. */
int bgw_finish(struct bg_writer *w, const char **path);

#endif
