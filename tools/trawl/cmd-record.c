/* SPDX-License-Identifier: MIT */
/*
 * trawl record: record kernel events into a trace.dat while a command runs,
 * for a time, or until Ctrl-C. The recorder is the library's
 * (trawl_record_*); this file runs the command, waits for signals (all
 * blocked and taken with sigtimedwait, so there are no handlers to race
 * with), draws the status line and prints the summary.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli-child.h"
#include "cli.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl record [-e EVENT [-f FILTER] [-T]]... [-o "
		"trace.dat] [-b KB]\n"
		"                    [--clock CLOCK] [-d SECONDS] "
		"[--flight-recorder [--trigger EVENT]]\n"
		"                    [--app NAME]... [--json] [-- CMD "
		"ARGS...]\n\n"
		"Records kernel events into a trace.dat (trace-cmd's format; "
		"`trace-cmd report`\nand KernelShark open it) until CMD exits, "
		"SECONDS pass, or Ctrl-C / SIGTERM.\nNeeds root. Recording "
		"uses a private tracefs instance, so the main buffer\nand its "
		"settings stay as they are; everything is removed at the "
		"end.\n\n"
		"  -e EVENT        sched:sched_switch, 'sched:*', sched (a "
		"system), sched_switch;\n"
		"                  repeat for more\n"
		"  -f FILTER       kernel event filter for the events of the "
		"-e before it,\n"
		"                  e.g. -e sched:sched_switch -f "
		"'prev_pid==0'\n"
		"  -T, --stack     the kernel's stack after each event of the "
		"-e before it (each\n"
		"                  one its -f keeps): a kernel_stack record "
		"right after it, on\n"
		"                  its CPU (ftrace's stacktrace trigger, "
		"removed at the end).\n"
		"                  Per -e, as trace-cmd's -R stacktrace; "
		"trace-cmd's own -T puts\n"
		"                  a stack after every event of the recording\n"
		"  -o FILE         output (default trace.dat)\n"
		"  -b KB           kernel buffer per CPU in KiB (default: as "
		"it is)\n"
		"  --clock CLOCK   trace clock: local, global, mono, boot, ... "
		"(default local)\n"
		"  -d SECONDS      stop after SECONDS (fractions allowed)\n"
		"  --flight-recorder\n"
		"                  keep only the last KB per CPU in the kernel "
		"buffer, read\n"
		"                  nothing while running, save at the end; "
		"SIGUSR1 saves\n"
		"                  what the buffer holds now to FILE.N.dat and "
		"goes on\n"
		"  --trigger 'SYSTEM:EVENT [if FILTER]'\n"
		"                  flight recorder: when EVENT fires, tracing "
		"stops (the\n"
		"                  kernel's traceoff trigger) and the buffer "
		"is "
		"saved at once\n"
		"  --top-level     record in the main tracefs buffer (as "
		"trace-cmd does);\n"
		"                  its settings are saved and put back\n"
		"  --no-kallsyms   leave /proc/kallsyms out of the file (5 MB "
		"or so)\n"
		"  --app NAME      also record the application channel NAME "
		"(trawl/ring.h,\n"
		"                  e.g. build/examples/ring-demo's \"demo\") "
		"into a buffer of its\n"
		"                  own, its events as NAME:EVENT; repeat for "
		"more; the clock is\n"
		"                  mono\n"
		"  --file-version N\n"
		"                  trace.dat version: 7 (default, as trace-cmd "
		"3.x) or 6\n"
		"  --compression zstd|zlib|none\n"
		"                  version 7's compression (default zstd)\n"
		"  --json[=FILE]   summary as JSON on stdout, alone: CMD's "
		"standard output\n"
		"                  goes to standard error then; or into FILE, "
		"and CMD keeps it\n"
		"  -h, --help      this text\n\n"
		"A version 7 file is written as the recording goes (formats "
		"first, then\npages about once a second), so a recorder that "
		"is killed leaves a file\nthat reads up to its last second; at "
		"the end it is rewritten in trace-cmd's\nlayout.\n"
		"While recording, with standard error on a terminal, one "
		"status "
		"line: time,\nevents and bytes saved (and per second), events "
		"lost so far.\n"
		"When recording fails (disk full, ...), CMD is stopped too "
		"(SIGTERM, then\nSIGKILL after 2 s).\n"
		"The instance is instances/trawl-PID, or trawl-TAG-PID with "
		"TRAWL_INSTANCE_TAG=TAG\nin the environment (to tell several "
		"recordings apart); instances left by a\nkilled recorder are "
		"removed at the next start.\n\n"
		"Exit status: 0 recorded, 1 bad usage or CMD could not start, "
		"2 no tracefs\nor not root, or recording failed.\n");
}

struct options {
	trawl_record_opts rec;
	trawl_record_event *events;
	size_t nevents;
	const char **apps;
	size_t napps;
	double seconds;
	int json;
	const char *json_file; /* --json=FILE; NULL: stdout */
	char **cmd;
};

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{"help", no_argument, NULL, 'h'},
		{"clock", required_argument, NULL, 0x200},
		{"flight-recorder", no_argument, NULL, 0x201},
		{"trigger", required_argument, NULL, 0x202},
		{"top-level", no_argument, NULL, 0x203},
		{"no-kallsyms", no_argument, NULL, 0x204},
		{"json", optional_argument, NULL, 0x205},
		{"file-version", required_argument, NULL, 0x206},
		{"compression", required_argument, NULL, 0x207},
		{"app", required_argument, NULL, 0x208},
		{"stack", no_argument, NULL, 'T'},
		{NULL, 0, NULL, 0},
	};
	int c;
	unsigned long v;
	char *end;
	memset(o, 0, sizeof(*o));
	o->events = calloc((size_t)argc, sizeof(*o->events));
	o->apps = calloc((size_t)argc, sizeof(*o->apps));
	if (!o->events || !o->apps)
		return EXIT_ENV;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:f:o:b:d:hT", longs, NULL)) !=
	       -1) {
		switch (c) {
		case 'e':
			o->events[o->nevents++].name = optarg;
			break;
		case 'f':
			if (!o->nevents) {
				cli_error("-f applies to the -e before it; "
					  "put it after an -e");
				return EXIT_INPUT;
			}
			o->events[o->nevents - 1].filter = optarg;
			break;
		case 'T':
			if (!o->nevents) {
				cli_error("-T (--stack) applies to the -e "
					  "before it; put it after an -e");
				return EXIT_INPUT;
			}
			o->events[o->nevents - 1].flags |=
				TRAWL_RECORD_EVENT_STACK;
			break;
		case 'o':
			o->rec.output = optarg;
			break;
		case 'b':
			if (parse_uint(optarg, 1ul << 30, &v) < 0 || !v) {
				cli_error("-b takes KiB per CPU, a whole "
					  "number > 0, not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			o->rec.buffer_kb = (unsigned)v;
			break;
		case 'd':
			errno = 0;
			o->seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(o->seconds > 0) || !isfinite(o->seconds)) {
				cli_error("-d takes seconds > 0, not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			break;
		case 0x200:
			o->rec.clock = optarg;
			break;
		case 0x201:
			o->rec.flags |= TRAWL_RECORD_FLIGHT;
			break;
		case 0x202:
			o->rec.trigger = optarg;
			break;
		case 0x203:
			o->rec.flags |= TRAWL_RECORD_TOP_LEVEL;
			break;
		case 0x204:
			o->rec.flags |= TRAWL_RECORD_NO_KALLSYMS;
			break;
		case 0x205:
			o->json = 1;
			o->json_file = optarg;
			break;
		case 0x206:
			if (parse_uint(optarg, 7, &v) < 0 || v < 6) {
				cli_error("--file-version is 6 or 7, not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			o->rec.file_version = (unsigned)v;
			break;
		case 0x207:
			if (strcmp(optarg, "zstd") && strcmp(optarg, "zlib") &&
			    strcmp(optarg, "none")) {
				cli_error("--compression is zstd, zlib or "
					  "none, not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			o->rec.compression = optarg;
			break;
		case 0x208:
			o->apps[o->napps++] = optarg;
			break;
		case 'h':
			help(stdout);
			return -1;
		default:
			fprintf(stderr, "run `trawl record --help` for the "
					"options\n");
			return EXIT_INPUT;
		}
	}
	if (!o->nevents) {
		cli_error("no events to record; name some with -e, e.g. -e "
			  "'sched:*' -e 'irq:*'");
		return EXIT_INPUT;
	}
	if (o->rec.trigger && !(o->rec.flags & TRAWL_RECORD_FLIGHT)) {
		cli_error("--trigger works with --flight-recorder");
		return EXIT_INPUT;
	}
	o->rec.events = o->events;
	o->rec.nevents = o->nevents;
	o->rec.apps = (const char *const *)o->apps;
	o->rec.napps = o->napps;
	if (!o->rec.output)
		o->rec.output = "trace.dat";
	o->cmd = optind < argc ? argv + optind : NULL;
	return EXIT_OK;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* x.dat -> x.N.dat for the Nth SIGUSR1 save */
static void snapshot_name(char *out, size_t n, const char *output, int k)
{
	size_t len = strlen(output);
	if (len > 4 && !strcmp(output + len - 4, ".dat"))
		snprintf(out, n, "%.*s.%d.dat", (int)(len - 4), output, k);
	else
		snprintf(out, n, "%s.%d", output, k);
}

static void summary_text(trawl_record *r, const struct options *o,
			 const char *path, double secs)
{
	int flight = o->rec.flags & TRAWL_RECORD_FLIGHT;
	uint64_t ev = 0, by = 0, ov = 0, dr = 0;
	fprintf(stderr, "trawl: saved %s (%.1f MB) after %.2f s\n", path,
		(double)trawl_record_file_size(r) / 1e6, secs);
	fprintf(stderr, "  cpu %12s %14s %12s %12s\n", "events", "bytes",
		flight ? "overwritten" : "overrun", "dropped");
	for (int c = 0; c < trawl_record_cpu_count(r); c++) {
		const trawl_record_cpu *x = trawl_record_cpu_stats(r, c);
		fprintf(stderr, "  %3d %12llu %14llu %12llu %12llu\n", c,
			(unsigned long long)x->events,
			(unsigned long long)x->bytes,
			(unsigned long long)x->overrun,
			(unsigned long long)x->dropped);
		ev += x->events;
		by += x->bytes;
		ov += x->overrun;
		dr += x->dropped;
	}
	fprintf(stderr, "  all %12llu %14llu %12llu %12llu\n",
		(unsigned long long)ev, (unsigned long long)by,
		(unsigned long long)ov, (unsigned long long)dr);
	if (!flight && ov + dr)
		fprintf(stderr,
			"trawl: %llu events were lost (the reader fell "
			"behind); a bigger buffer (-b) or fewer events "
			"helps\n",
			(unsigned long long)(ov + dr));
}

static void summary_json(FILE *f, trawl_record *r, const struct options *o,
			 const char *path, double secs,
			 const struct cli_child *ch)
{
	uint64_t ev = 0, lost = 0;
	fputs("{\n  \"output\": ", f);
	json_string(f, path, strlen(path));
	fprintf(f,
		",\n  \"mode\": \"%s\",\n  \"file_size\": %llu,\n"
		"  \"duration\": %lld,\n  \"cpus\": {",
		o->rec.flags & TRAWL_RECORD_FLIGHT ? "flight_recorder"
						   : "stream",
		(unsigned long long)trawl_record_file_size(r),
		(long long)llround(secs * 1e9));
	for (int c = 0; c < trawl_record_cpu_count(r); c++) {
		const trawl_record_cpu *x = trawl_record_cpu_stats(r, c);
		fprintf(f,
			"%s\n    \"%d\": {\"events\": %llu, \"bytes\": %llu, "
			"\"overrun\": %llu, \"dropped\": %llu}",
			c ? "," : "", c, (unsigned long long)x->events,
			(unsigned long long)x->bytes,
			(unsigned long long)x->overrun,
			(unsigned long long)x->dropped);
		ev += x->events;
		lost += x->overrun + x->dropped;
	}
	fprintf(f, "\n  },\n  \"total_events\": %llu,\n",
		(unsigned long long)ev);
	fprintf(f, "  \"lost_events\": %llu,\n  \"command_status\": ",
		(unsigned long long)lost);
	if (ch->pid && ch->done && WIFEXITED(ch->status))
		fprintf(f, "%d\n}\n", WEXITSTATUS(ch->status));
	else if (ch->pid && ch->done && WIFSIGNALED(ch->status))
		fprintf(f, "%d\n}\n", 128 + WTERMSIG(ch->status));
	else
		fputs("null\n}\n", f);
}

/* Numbers for the status line: 1234 -> "1234", 12345678 -> "12.3 M". */
static void human(char *out, size_t n, double v, const char *unit)
{
	if (v >= 1e9)
		snprintf(out, n, "%.1f G%s", v / 1e9, unit);
	else if (v >= 1e6)
		snprintf(out, n, "%.1f M%s", v / 1e6, unit);
	else if (v >= 1e4)
		snprintf(out, n, "%.1f k%s", v / 1e3, unit);
	else
		snprintf(out, n, "%.0f%s%s", v, *unit ? " " : "", unit);
}

/*
 * The status line, as perf record users are used to seeing something:
 * elapsed time, events and bytes saved and their rates over the last
 * second or so, lost events. Redrawn in place; the last width is kept to
 * blank what a shorter line leaves.
 */
struct status_line {
	double at, last_at;
	uint64_t last_events, last_bytes;
	double ev_rate, by_rate;
	int width;
};

static void draw_status(struct status_line *s, const trawl_record_status *st,
			double elapsed, double t)
{
	if (t - s->last_at >= 1.0 || !s->last_at) {
		double dt = t - s->last_at;
		if (s->last_at && dt > 0) {
			s->ev_rate = (double)(st->events - s->last_events) / dt;
			s->by_rate = (double)(st->bytes - s->last_bytes) / dt;
		}
		s->last_at = t;
		s->last_events = st->events;
		s->last_bytes = st->bytes;
	}
	char ev[32], evr[32], by[32], byr[32], line[200];
	human(ev, sizeof(ev), (double)st->events, "");
	human(evr, sizeof(evr), s->ev_rate, "");
	human(by, sizeof(by), (double)st->bytes, "B");
	human(byr, sizeof(byr), s->by_rate, "B");
	int w = snprintf(line, sizeof(line),
			 "recording %.0f s: %s events (%s/s), %s (%s/s), "
			 "%llu lost",
			 elapsed, ev, evr, by, byr,
			 (unsigned long long)st->lost);
	if (w < 0)
		return;
	fprintf(stderr, "\r%s%*s", line, s->width > w ? s->width - w : 0, "");
	s->width = w;
}

static int record(struct options *o)
{
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);

	trawl_error err = {0};
	struct cli_child ch = {.pid = 0, .exec_fd = -1};
	int status = EXIT_OK, tty = isatty(2),
	    flight = o->rec.flags & TRAWL_RECORD_FLIGHT;
	trawl_record *r = trawl_record_start(&o->rec, &err);
	if (!r) {
		cli_error("%s", err.msg);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return err.code == TRAWL_EENV ? EXIT_ENV : EXIT_INPUT;
	}
	int stale = trawl_record_stale_removed(r);
	if (stale)
		fprintf(stderr,
			"trawl: removed %d tracefs instance%s (instances/"
			"trawl-[TAG-]PID) left by a recorder that was killed\n",
			stale, stale == 1 ? "" : "s");
	double start = now(), end = o->seconds ? start + o->seconds : 0;
	FILE *json = stdout;
	if (o->json_file && !(json = fopen(o->json_file, "w"))) {
		cli_error("cannot write %s: %s", o->json_file, strerror(errno));
		trawl_record_stop(r, &err);
		trawl_record_free(r);
		sigprocmask(SIG_SETMASK, &old, NULL);
		return EXIT_INPUT;
	}
	struct status_line line = {0};
	if (o->cmd) {
		ch.argv0 = o->cmd[0];
		int rc = cli_spawn(&ch, o->cmd, &old, o->json && !o->json_file);
		int e = rc < 0 ? -rc : cli_exec_error(&ch);
		if (e) {
			cli_error("cannot run %s: %s; the recording so far is "
				  "saved",
				  o->cmd[0], strerror(e));
			status = EXIT_INPUT;
			cli_reap(&ch, 1);
			goto stop;
		}
	}
	int snapshots = 0;
	for (;;) {
		struct timespec wait = {0, 200 * 1000 * 1000};
		siginfo_t si;
		int sig = sigtimedwait(&set, &si, &wait);
		if (sig == SIGCHLD) {
			cli_reap(&ch, 0);
			if (ch.pid && ch.done)
				break;
		} else if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			/* Ctrl-C reaches CMD from the terminal; a kill
			 * aimed at us is passed on. */
			if (ch.pid && !ch.done && si.si_code == SI_USER)
				kill(ch.pid, sig);
			break;
		} else if (sig == SIGUSR1 && flight) {
			char path[4096];
			snapshot_name(path, sizeof(path), o->rec.output,
				      ++snapshots);
			if (tty)
				fprintf(stderr, "\r%60s\r", "");
			if (trawl_record_snapshot(r, path, &err) < 0)
				cli_error("%s", err.msg);
			else
				summary_text(r, o, path, now() - start);
		}
		trawl_record_status st;
		trawl_record_poll(r, &st);
		if (st.failed || st.triggered)
			break;
		if (end && now() >= end)
			break;
		if (tty) {
			double t = now();
			if (flight)
				fprintf(stderr,
					"\rflight recorder armed: %.0f s ",
					t - start);
			else
				draw_status(&line, &st, t - start, t);
		}
	}
stop:;
	trawl_record_status st;
	trawl_record_poll(r, &st);
	if (tty)
		fprintf(stderr, "\r%*s\r", line.width > 60 ? line.width : 60,
			"");
	if (st.failed)
		cli_stop_child(&ch, "the recording failed");
	if (st.triggered)
		fprintf(stderr,
			"trawl: the trigger fired; saving the buffer\n");
	double secs = now() - start;
	int rc = trawl_record_stop(r, &err);
	if (rc < 0) {
		cli_error("%s", err.msg);
		/* A full disk is the machine's state, not bad input. */
		status = err.sys_errno == ENOSPC ? EXIT_ENV : cli_status(rc);
		cli_stop_child(&ch, "the recording failed");
	}
	if (trawl_record_file_size(r)) {
		if (o->json)
			summary_json(json, r, o, o->rec.output, secs, &ch);
		else
			summary_text(r, o, o->rec.output, secs);
	}
	if (json != stdout && fclose(json) != 0) {
		cli_error("cannot write %s: %s", o->json_file, strerror(errno));
		status = EXIT_ENV;
	}
	trawl_record_free(r);
	if (ch.pid && !ch.done) {
		if (st.triggered && !o->seconds) {
			fprintf(stderr, "trawl: waiting for %s to exit\n",
				o->cmd[0]);
			cli_reap(&ch, 1);
		} else {
			cli_reap(&ch, 0);
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}

int cmd_record(int argc, char **argv)
{
	struct options o;
	int rc = parse(argc, argv, &o);
	if (rc == 0)
		rc = record(&o);
	else if (rc < 0)
		rc = EXIT_OK; /* --help */
	free(o.events);
	free(o.apps);
	return rc;
}
