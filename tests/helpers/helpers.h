/* SPDX-License-Identifier: MIT */
/* Test helpers: run a trace given as a string and collect what arrives. */
#ifndef TW_TEST_HELPERS_H
#define TW_TEST_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include <trawl/trawl.h>

typedef struct got_event {
	int64_t ts;
	uint64_t seq;
	uint64_t line;
	int cpu;
	int pid;
	int tgid;
	unsigned flags;
	int preempt;
	char comm[64];
	char name[64];
} got_event;

typedef struct got {
	got_event *ev;
	size_t n, cap;
	trawl_stats stats;
	int format;
	int rc;
	trawl_error err;
} got;

/* A whole file into memory (free() it); NULL when it cannot be read. */
char *read_whole(const char *path, size_t *len);

/* Write bytes to a new temporary file; returns its path (free() it). */
char *tmp_file(const void *data, size_t len);

/* Open path with opts, subscribe "*" and collect every event. */
int collect_path(const char *path, const trawl_open_opts *opts, got *g);

/* The same for a string (through a temporary file). */
int collect_text(const char *text, const trawl_open_opts *opts, got *g);

/* The same through a pipe (not seekable), fed by a child process. */
int collect_pipe(const void *data, size_t len, const trawl_open_opts *opts,
		 got *g);

void got_free(got *g);

/* Path of a fixture under tests/fixtures (TRAWL_FIXTURES or source dir);
 * an absolute path (a file the test made) as it is. */
const char *fixture(const char *name);

/*
 * A synthetic trace.dat (v7, zstd; synth-dat.c) of two CPUs, pages0 and
 * pages1 pages of SYNTH_PER_PAGE "tick" events (fields comm, n, addr) each,
 * SYNTH_STEP_NS apart; page `back` of CPU back_cpu (-1: none) starts where
 * the page before it started, a step back in time. Return: 0, or -1.
 */
#define SYNTH_PER_PAGE 4
#define SYNTH_STEP_NS  1000
int synth_dat(const char *path, int pages0, int pages1, int back_cpu, int back);
/* The kernel's ring buffer page and event headers as a trace.dat holds
 * them (this kernel's, 4 KiB pages), for tests that write their own. */
extern const char synth_header_page[], synth_header_event[];

/*
 * The same ticks as trawl record's stream file while recording: batches
 * of one page per CPU, each CPU's synced into the file at once (an options
 * section each), pause_us between batches, left unfinished as a killed
 * recorder leaves it. Return: 0, or -1.
 */
int synth_dat_stream(const char *path, int batches, unsigned pause_us);

/*
 * Fault injection for the OOM sweeps: an allocator hook (trawl_open_opts /
 * trawl_record_opts .realloc, ctx a struct fault) whose countdown-th
 * allocation fails; fired says it did, live counts blocks not yet freed.
 * Atomic: the recorder's reader threads allocate too.
 */
struct fault {
	long countdown; /* allocations left before the failing one */
	int fired;
	long live;
};
void *fault_realloc(void *ctx, void *ptr, size_t size);

/* For the tests that trace for real: NULL when this is root and tracefs is
 * at /sys/kernel/tracing (then the lock that keeps one test tracing at a
 * time, as tests/live/live-lib.sh takes it, is held until exit), else why
 * the test is skipped. */
const char *tracing_unavailable(void);
/* Whether this process's private tracefs instance (trawl-PID) is left. */
int own_instance_left(void);

#endif
