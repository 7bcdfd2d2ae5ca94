/* SPDX-License-Identifier: MIT */
/*
 * The script compiler and VM on arbitrary programs.
 *
 * Input: the program text. It is compiled against a small fixed text trace
 * (sched, irq, syscalls, systrace markers; fields named by the bundled
 * formats) and, when it compiles, run over it with a small map limit.
 * Checks: a failure is a clean error naming the script with a known code;
 * a success runs to the end with a JSON object or text written, and its
 * faults are named by probe. Events lie within 10 us, so interval probes
 * fire a bounded number of times.
 */
#include <trawl/script.h>

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char trace[] =
	"# tracer: nop\n"
	"  <idle>-0 [000] d..2. 100.000001: sched_switch: prev_comm=swapper/0 "
	"prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 "
	"next_prio=120\n"
	"  a-10 [000] d..2. 100.000002: sched_waking: comm=b pid=20 prio=120 "
	"target_cpu=001\n"
	"  a-10 [001] d.h2. 100.000003: irq_handler_entry: irq=5 name=eth0\n"
	"  a-10 [001] d.h2. 100.000004: irq_handler_exit: irq=5 ret=handled\n"
	"  a-10 [000] ..... 100.000005: tracing_mark_write: B|10|frame\n"
	"  a-10 [000] ..... 100.000006: sys_enter: NR 0 (3, 7ffd, 10, 0, 0, "
	"0)\n"
	"  a-10 [000] ..... 100.000007: sys_exit: NR 0 = 16\n"
	"  a-10 [000] ..... 100.000008: tracing_mark_write: E|10\n"
	"  a-10 [000] d..2. 100.000009: sched_switch: prev_comm=a prev_pid=10 "
	"prev_prio=120 prev_state=S ==> next_comm=b next_pid=20 "
	"next_prio=120\n";

struct sink {
	size_t n;
	uint64_t h;
};

static void sink_write(void *ctx, const char *p, size_t n)
{
	struct sink *s = ctx;
	s->n += n;
	s->h = fz_mix(s->h, p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	if (fd < 0) {
		fd = fz_memfd(trace, sizeof(trace) - 1);
		FUZZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	}
	FUZZ_CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek");
	trawl_open_opts o = {.threads = 1};
	trawl_error err;
	trawl_trace *t = trawl_open_fd(fd, "fuzz.txt", &o, &err);
	FUZZ_CHECK(t, "open: %s", err.msg);
	struct sink out = {0, 0};
	trawl_script_opts so = {
		.name = "fuzz.tw",
		.map_size = 8,
		.write = sink_write,
		.write_ctx = &out,
		.flags = size && (data[0] & 1) ? TRAWL_SCRIPT_JSON : 0};
	memset(&err, 0, sizeof(err));
	trawl_script *s =
		trawl_script_compile(t, (const char *)data, size, &so, &err);
	if (!s) {
		FUZZ_CHECK(err.code == TRAWL_EPARSE ||
				   err.code == TRAWL_ENOENT ||
				   err.code == TRAWL_ETYPE ||
				   err.code == TRAWL_ELIMIT ||
				   /* what only a live run with BPF does */
				   err.code == TRAWL_EUNSUPPORTED,
			   "compile error code %d: %s", err.code, err.msg);
		FUZZ_CHECK(strncmp(err.msg, "fuzz.tw:", 8) == 0,
			   "message without the script's name: %s", err.msg);
		FUZZ_CHECK(out.n == 0, "output from a failed compile");
	} else {
		int rc = trawl_script_run(s, &err);
		FUZZ_CHECK(rc == 0, "run: %d %s", rc, err.msg);
		if (so.flags & TRAWL_SCRIPT_JSON)
			FUZZ_CHECK(out.n >= 14, "no JSON object (%zu bytes)",
				   out.n);
		uint64_t n;
		const char *m;
		for (size_t i = 0; (m = trawl_script_fault(s, i, &n)); i++)
			FUZZ_CHECK(strstr(m, "probe ") && n > 0,
				   "fault without its probe: %s", m);
	}
	trawl_script_free(s);
	trawl_close(t);
	return 0;
}
