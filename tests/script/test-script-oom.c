/* SPDX-License-Identifier: MIT */
/*
 * Out-of-memory sweep of the script language (tests/core/test-oom.c's
 * habit): fail allocation N = 1, 2, ... of a trace opened, a script
 * compiled against it and run, until one run needs no more. Every failure
 * must be a clean TRAWL_ENOMEM (from compile or run); ASan checks leaks.
 */
#include "script-test.h"

#include "../helpers/helpers.h"

static void discard(void *ctx, const char *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
}

static const char trace[] = "# tracer: nop\n" L(
	"<idle>-0", 0, "100.000000", SW("swapper/0", "0", "R", "a", "10"))
	L("a-10", 0, "100.000100", WAKING("b", "20", "001"))
		L("<idle>-0", 1, "100.000300",
		  SW("swapper/1", "0", "R", "b", "20"))
			L("a-10", 0, "100.001000",
			  SW("a", "10", "S", "swapper/0", "0"));

static const char prog[] =
	"BEGIN { printf(\"%s %d\\n\", \"begin\", 1); @s[\"x\"] = \"y\"; }\n"
	"sched:sched_waking { @w[args.pid] = ts; }\n"
	"sched:sched_switch /@w[args.next_pid]/ { @h = hist(ts - "
	"@w[args.next_pid]); @l[args.next_comm] = lhist(cpu, 0, 4, 1); "
	"@st[cpu, args.next_comm] = stats(args.next_pid); "
	"delete(@w[args.next_pid]); }\n"
	"sched:* { @c[event] = count(); $i = 0; while ($i < 3) { $i++; } }\n"
	"interval:1ms { @ticks = count(); }\n"
	"END { print(@c, 1); clear(@w); }\n";

static void sweep(unsigned flags)
{
	char *path = tmp_file(trace, strlen(trace));
	long n;
	for (n = 0; n < 20000; n++) {
		struct fault f = {.countdown = n};
		trawl_open_opts o = {.realloc = fault_realloc,
				     .alloc_ctx = &f,
				     .threads = 1,
				     .formats = formats_dat()};
		trawl_error err;
		trawl_trace *t = trawl_open(path, &o, &err);
		if (!t) {
			cr_assert(f.fired, "open failed without a fault: %s",
				  err.msg);
			continue;
		}
		trawl_script_opts so = {.flags = flags, .write = discard};
		trawl_script *s =
			trawl_script_compile(t, prog, strlen(prog), &so, &err);
		if (!s) {
			cr_assert(f.fired, "compile failed without a fault: %s",
				  err.msg);
			cr_assert_eq(err.code, TRAWL_ENOMEM, "%s", err.msg);
			trawl_close(t);
			continue;
		}
		int rc = trawl_script_run(s, &err);
		trawl_script_free(s);
		trawl_close(t);
		if (!f.fired) {
			cr_assert_eq(rc, 0, "%s", err.msg);
			break;
		}
		cr_assert(rc == 0 || rc == -TRAWL_ENOMEM,
			  "allocation %ld: rc %d %s", n, rc, err.msg);
	}
	cr_assert_lt(n, 20000, "never completed");
	cr_assert_gt(n, 20, "too few allocations to be a sweep");
	unlink(path);
	free(path);
}

/* One sweep, in JSON mode: print() inside it goes through the text
 * printer, so both outputs are covered (two sweeps doubled the time
 * under ASan, beside core's sweep in the same run). */
Test(script_oom, every_allocation_failure_is_a_clean_error)
{
	sweep(TRAWL_SCRIPT_JSON);
}
