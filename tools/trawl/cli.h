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

/* Print "trawl: <msg>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Exit status for a library error code (negative TRAWL_E*). */
int cli_status(int rc);

/* Options every reading subcommand takes. */
struct cli_input {
	unsigned flags; /* TRAWL_OPEN_* */
	int threads;	/* 0: library default */
	size_t window;	/* 0: exact order */
};

/* Parse a common option (--strict, --threads N); 1 if it was one. */
int cli_input_option(struct cli_input *in, int opt, const char *arg);

#define CLI_INPUT_LONG_OPTIONS                                                 \
	{"strict", no_argument, NULL, 0x100},                                  \
		{"threads", required_argument, NULL, 0x101},                   \
	{                                                                      \
		"window", required_argument, NULL, 0x102                       \
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
	"late\n"

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

#endif
