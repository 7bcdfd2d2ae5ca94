/* SPDX-License-Identifier: MIT */
/* Script tests: compile and run a program over a hand-made ftrace text
 * (fields named by the formats pair-broad.dat carries, so the answer is
 * the same on every machine) and collect its output. */
#ifndef TW_SCRIPT_TEST_H
#define TW_SCRIPT_TEST_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../helpers/helpers.h"

#define SW(pc, pp, st, nc, np)                                                 \
	"sched_switch: prev_comm=" pc " prev_pid=" pp                          \
	" prev_prio=120 prev_state=" st " ==> next_comm=" nc " next_pid=" np   \
	" next_prio=120"
#define WAKING(c, p, cpu)                                                      \
	"sched_waking: comm=" c " pid=" p " prio=120 target_cpu=" cpu
/* one line: task, cpu, time, payload */
#define L(task, cpu, ts, payload)                                              \
	"  " task " [00" #cpu "] d..2. " ts ": " payload "\n"

struct run_out {
	char *text;
	size_t n, cap;
	trawl_error err;
	int rc; /* compile: -code; else trawl_script_run()'s */
	char faults[2048];
};

static inline void out_write(void *ctx, const char *p, size_t n)
{
	struct run_out *o = ctx;
	if (o->n + n + 1 > o->cap) {
		o->cap = (o->n + n + 1) * 2;
		o->text = realloc(o->text, o->cap);
	}
	memcpy(o->text + o->n, p, n);
	o->n += n;
	o->text[o->n] = '\0';
}

static inline const char *formats_dat(void)
{
	static char path[4096];
	const char *dir = getenv("TRAWL_FIXTURES");
	cr_assert(dir, "TRAWL_FIXTURES is not set");
	snprintf(path, sizeof(path), "%s/pair-broad.dat", dir);
	return path;
}

/* Compile prog against t, run it, collect its output and faults (t is
 * closed). */
static inline struct run_out run_on(trawl_trace *t, struct run_out o,
				    const char *prog, unsigned flags,
				    size_t map_size, const char *const *params,
				    size_t nparams)
{
	trawl_script_opts so = {.flags = flags,
				.map_size = map_size,
				.name = "t.tw",
				.write = out_write,
				.write_ctx = &o,
				.params = params,
				.nparams = nparams};
	trawl_script *s =
		trawl_script_compile(t, prog, strlen(prog), &so, &o.err);
	if (!s) {
		o.rc = -o.err.code;
	} else {
		o.rc = trawl_script_run(s, &o.err);
		uint64_t n;
		const char *m;
		size_t k = 0;
		for (size_t i = 0; (m = trawl_script_fault(s, i, &n)); i++)
			k += (size_t)snprintf(
				o.faults + k, sizeof(o.faults) - k,
				"%s (%llu)\n", m, (unsigned long long)n);
	}
	trawl_script_free(s);
	trawl_close(t);
	return o;
}

static inline struct run_out run_params(const char *trace, const char *prog,
					unsigned flags, size_t map_size,
					const char *const *params,
					size_t nparams)
{
	struct run_out o = {0};
	o.text = calloc(1, 1);
	o.cap = 1;
	char *path = tmp_file(trace, strlen(trace));
	trawl_open_opts oo = {.formats = formats_dat(), .threads = 1};
	trawl_trace *t = trawl_open(path, &oo, &o.err);
	cr_assert(t, "%s", o.err.msg);
	o = run_on(t, o, prog, flags, map_size, params, nparams);
	unlink(path);
	free(path);
	return o;
}

static inline struct run_out run_opts(const char *trace, const char *prog,
				      unsigned flags, size_t map_size)
{
	return run_params(trace, prog, flags, map_size, NULL, 0);
}

static inline struct run_out run(const char *trace, const char *prog)
{
	return run_opts(trace, prog, 0, 0);
}

/* Assert that the output is exactly want. */
#define cr_assert_out(o, want)                                                 \
	do {                                                                   \
		cr_assert_eq((o).rc, 0, "rc %d: %s", (o).rc, (o).err.msg);     \
		cr_assert_str_eq((o).text, (want));                            \
	} while (0)

#endif
