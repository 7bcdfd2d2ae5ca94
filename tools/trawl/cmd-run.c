/* SPDX-License-Identifier: MIT */
/*
 * trawl run: the script language (docs/script.md) over a trace file, or
 * live (--live) over the kernel's events as they happen. The library
 * compiles and runs the script (include/trawl/script.h) on a trace; live,
 * that trace is a live session's (include/trawl/live.h), which enables
 * the script's events with their predicates as kernel filters. This file
 * reads the program, runs CMD, turns Ctrl-C, -d and CMD's exit into a
 * stop (one thread takes the signals through a signalfd, so there are no
 * handlers to race with) and reports faults and losses.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli-child.h"
#include "cli.h"

#define MAX_SCRIPT (1u << 20)
/* after -d's deadline or a signal, how long the script may still take */
#define CUT_GRACE_MS 500

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl run SCRIPT.tw FILE [PARAMS...] [options]\n"
		"       trawl run -e 'PROGRAM' FILE [PARAMS...] [options]\n"
		"       trawl run SCRIPT.tw --live [PARAMS...] [-d SECONDS] "
		"[--record FILE]\n"
		"                 [-c CMD | -p PID | -- CMD ARGS...]\n"
		"       trawl run -e 'PROGRAM' --live [...]\n"
		"       trawl run -l [PATTERN]\n\n"
		"Runs a script over every event of a trace, in time order: "
		"probes on events\nwith predicates, variables, maps and "
		"aggregates (count, sum, avg, min, max,\nstats, hist, lhist), "
		"printf. Maps still set are printed at the end.\n"
		"docs/script.md is the reference.\n\n"
		"  trawl run -e 'sched:sched_switch { @[args.prev_comm] = "
		"count(); }' trace.dat\n\n"
		"PARAMS are the script's $1, $2 ... ($# of them): each a "
		"number "
		"or a string.\n\n"
		"  -e PROGRAM     the program itself instead of a file\n"
		"  -l [PATTERN]   list this kernel's tracepoints "
		"(tracepoint:SYS:EVENT), those\n"
		"                 a glob matches\n"
		"  -f json        the same as --json (bpftrace's -f)\n"
		"  --json         one JSON object at the end: each map by "
		"name (\"@m\") as\n"
		"                 a list of {\"key\", \"value\"}; printf text "
		"under \"output\"\n"
		"  --map-size N   keys per map (default 4096); updates beyond "
		"it are dropped\n"
		"                 and reported\n" CLI_INPUT_HELP
		"  -h, --help     this text\n\n"
		"Live (root, tracefs): the kernel's events as they happen, "
		"until CMD exits,\nSECONDS pass, the script calls exit(), or "
		"Ctrl-C / SIGTERM; then END runs.\nOnly the script's events "
		"are enabled, in a private tracefs instance that is\nremoved "
		"at the end; predicates the kernel's filter language can say "
		"are set as\nthe events' filters, so what they reject never "
		"leaves the kernel. Events come\nin time order across CPUs "
		"(about 10 ms behind); interval probes fire on wall\ntime "
		"(the monotonic clock). Events the kernel lost (it overwrote "
		"them before\nthey were read) are reported on standard error. "
		"With --json, CMD's standard\noutput goes to standard error, "
		"and the object also has \"events\",\n\"lost_events\" and "
		"\"late_events\".\n\n"
		"  --live         trace live instead of reading FILE\n"
		"  -d SECONDS     stop after SECONDS (fractions allowed)\n"
		"  --record FILE  also keep the events the filters passed, as "
		"a trace.dat\n"
		"                 (version 7): `trawl run SCRIPT FILE` then "
		"gives the same\n"
		"                 answer\n"
		"  --no-pushdown  set no kernel filters: every event of the "
		"script's events\n"
		"                 comes to the script (to measure what "
		"pushdown saves)\n"
		"  -b KB          kernel buffer per CPU in KiB (default: a new "
		"instance's)\n"
		"  --no-kallsyms  leave /proc/kallsyms out (of --record too)\n"
		"  --backend B    where event probes run: auto (default: in "
		"the kernel, as\n"
		"                 eBPF, what can run there; the rest on "
		"ftrace's events),\n"
		"                 bpf (all in the kernel, or fail before "
		"starting, naming\n"
		"                 the construct), ftrace (all in user space)\n"
		"  --explain      say where each probe runs, each BPF "
		"program's size and\n"
		"                 the kernel memory, on stderr, before "
		"tracing\n"
		"  -- CMD ARGS    run CMD while tracing, stop when it exits\n"
		"  -c CMD         the same, CMD split at spaces (bpftrace's "
		"-c; implies --live)\n"
		"  -p PID         stop when process PID exits (implies "
		"--live)\n\n"
		"Exit status: 0 (also after runtime faults, which are "
		"reported on stderr),\n1 a script that does not compile, a "
		"trace that cannot be read or a CMD that\ncannot start, 2 no "
		"tracefs or not root, or live tracing failed.\n");
}

static char *read_script(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		cli_error("cannot open script %s: %s", path, strerror(errno));
		return NULL;
	}
	char *buf = malloc(MAX_SCRIPT + 1);
	size_t n = buf ? fread(buf, 1, MAX_SCRIPT + 1, f) : 0;
	int bad = !buf || ferror(f);
	if (f != stdin)
		fclose(f);
	if (bad || n > MAX_SCRIPT) {
		cli_error(bad ? "cannot read script %s"
			      : "script %s is larger than 1 MiB",
			  path);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void write_out(void *ctx, const char *buf, size_t len)
{
	fwrite(buf, 1, len, stdout);
	if (ctx) /* live: output as it is made */
		fflush(stdout);
}

static void report_faults(const trawl_script *s)
{
	uint64_t n;
	const char *msg;
	for (size_t i = 0; (msg = trawl_script_fault(s, i, &n)); i++)
		fprintf(stderr, "trawl: warning: %s (%llu time%s)\n", msg,
			(unsigned long long)n, n == 1 ? "" : "s");
}

struct live_args {
	pid_t pid; /* -p: stop when it exits */
	double seconds;
	const char *record;
	int no_pushdown;
	unsigned buffer_kb;
	int no_kallsyms;
	int explain;
	char **cmd;
};

/* The thread that turns signals, -d and CMD's exit into a stop. */
struct watcher {
	trawl_live *lv;
	trawl_script *s; /* its kernel probes stop with the events */
	struct cli_child *ch;
	int sig_fd;  /* signalfd of the blocked signals */
	int quit_fd; /* eventfd: the run ended by itself */
	int pid_fd;  /* -p: a pidfd, readable when the process exits */
	double end;  /* CLOCK_MONOTONIC seconds, 0: none */
	const char *why;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *watch(void *arg)
{
	struct watcher *w = arg;
	struct pollfd p[3] = {{.fd = w->sig_fd, .events = POLLIN},
			      {.fd = w->quit_fd, .events = POLLIN},
			      {.fd = w->pid_fd, .events = POLLIN}};
	for (;;) {
		int ms = -1;
		if (w->end) {
			double left = w->end - now();
			ms = left > 0 ? (int)ceil(left * 1000) : 0;
		}
		int k = poll(p, w->pid_fd >= 0 ? 3 : 2, ms);
		if (k < 0 && errno == EINTR)
			continue;
		if (p[1].revents & POLLIN)
			return NULL;
		if (k == 0) {
			w->why = "time is up";
			break;
		}
		if (w->pid_fd >= 0 && (p[2].revents & POLLIN)) {
			w->why = "the process exited";
			break;
		}
		struct signalfd_siginfo si;
		if (read(w->sig_fd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGCHLD) {
			/* Exited, but not reaped (WNOWAIT) until the session
			 * is over: its /proc/PID/comm names its last events. */
			siginfo_t info = {0};
			if (w->ch->pid &&
			    waitid(P_PID, (id_t)w->ch->pid, &info,
				   WEXITED | WNOHANG | WNOWAIT) == 0 &&
			    info.si_pid == w->ch->pid) {
				/* its last context switch may be just
				 * behind its exit: a moment for it */
				struct timespec t = {0, 20 * 1000 * 1000};
				nanosleep(&t, NULL);
				w->why = "the command exited";
				break;
			}
			continue;
		}
		/* Ctrl-C reaches CMD from the terminal; a kill aimed at us
		 * is passed on. */
		if (w->ch->pid && !w->ch->done && si.ssi_code == SI_USER)
			kill(w->ch->pid, (int)si.ssi_signo);
		w->why = "stopped by a signal";
		break;
	}
	trawl_script_detach(w->s);
	trawl_live_stop(w->lv);
	/* CMD's exit: everything it did is counted, however long that
	 * takes. A deadline or a signal is kept: what the script has not
	 * got through after CUT_GRACE_MS (or at a second signal) is passed
	 * and counted as not processed, as bpftrace leaves its buffers. */
	if (!strcmp(w->why, "the command exited") ||
	    !strcmp(w->why, "the process exited"))
		return NULL;
	for (;;) {
		int k = poll(p, 2, CUT_GRACE_MS);
		if (k < 0 && errno == EINTR)
			continue;
		if (k > 0 && (p[1].revents & POLLIN))
			return NULL; /* the run ended in time */
		if (k > 0 && (p[0].revents & POLLIN)) {
			struct signalfd_siginfo si;
			if (read(w->sig_fd, &si, sizeof(si)) != sizeof(si) ||
			    si.ssi_signo == SIGCHLD)
				continue;
		}
		break;
	}
	trawl_live_cut(w->lv);
	return NULL;
}

/* Each event of the script, enabled with its predicate as its filter. */
static int enable_events(trawl_live *lv, const trawl_script *s, int pushdown,
			 int record)
{
	const char *ev, *filter, *skipped = NULL;
	size_t nskipped = 0;
	trawl_error err = {0};
	for (size_t i = 0; (ev = trawl_script_event(s, i, &filter)); i++) {
		int rc = trawl_live_enable(lv, ev, pushdown ? filter : NULL,
					   &err);
		if (rc < 0) {
			cli_error("%s", err.msg);
			return EXIT_INPUT;
		}
		if (rc == 1 && !nskipped++)
			skipped = ev;
		/* kstack off the kernel: ftrace writes the stack after it */
		if (rc == 0 && trawl_script_stack(s, ev) &&
		    trawl_live_stack(lv, ev, NULL, &err) < 0) {
			cli_error("%s", err.msg);
			return EXIT_INPUT;
		}
	}
	/* what runs in the kernel is recorded as well, so that the same
	 * script runs on the recording */
	for (size_t i = 0; record && (ev = trawl_script_kernel_event(s, i));
	     i++)
		if (trawl_live_enable(lv, ev, NULL, &err) < 0 ||
		    (trawl_script_stack(s, ev) &&
		     trawl_live_stack(lv, ev, NULL, &err) < 0)) {
			cli_error("%s", err.msg);
			return EXIT_INPUT;
		}
	if (nskipped)
		fprintf(stderr,
			"trawl: warning: %s%s cannot be traced live (ftrace's "
			"own events are the top-level buffer's); left out\n",
			skipped,
			nskipped > 1 ? " and other ftrace events" : "");
	return EXIT_OK;
}

static void summary(trawl_live *lv, const struct live_args *a)
{
	const trawl_stats *st = trawl_trace_stats(trawl_live_trace(lv));
	const trawl_live_totals *x = trawl_live_stats(lv);
	uint64_t lost = x->overrun + x->dropped;
	/* quiet when all went well, as a script over a file is */
	if (!lost && !st->late_events && !x->filters_refused && !a->record &&
	    !x->unprocessed)
		return;
	fprintf(stderr,
		"trawl: live %.2f s: %llu events (%.1f MB of pages read), "
		"%llu lost",
		(double)x->duration / 1e9, (unsigned long long)st->events,
		(double)x->bytes / 1e6, (unsigned long long)lost);
	if (st->late_events)
		fprintf(stderr, ", %llu late",
			(unsigned long long)st->late_events);
	if (x->unprocessed)
		fprintf(stderr, ", %llu not processed",
			(unsigned long long)x->unprocessed);
	if (x->filters_refused)
		fprintf(stderr, "; %u kernel filter%s refused",
			x->filters_refused, x->filters_refused == 1 ? "" : "s");
	fputc('\n', stderr);
	if (lost)
		fprintf(stderr,
			"trawl: %llu events were lost (the kernel overwrote "
			"them before they were read); a bigger buffer (-b), "
			"fewer events or a predicate the kernel can filter "
			"helps\n",
			(unsigned long long)lost);
	if (x->unprocessed)
		fprintf(stderr,
			"trawl: %llu events were read but not processed: the "
			"script was behind the events when it was stopped%s\n",
			(unsigned long long)x->unprocessed,
			a->record ? " (they are in the --record file)" : "");
	if (a->record && x->record_size)
		fprintf(stderr, "trawl: saved %s (%.1f MB): %llu events\n",
			a->record, (double)x->record_size / 1e6,
			(unsigned long long)x->record_events);
	else if (a->record)
		fprintf(stderr,
			"trawl: warning: %s was not written: no event of the "
			"script was traced (BEGIN, END and interval probes, or "
			"ftrace's own events, have none to record)\n",
			a->record);
}

static int run_live(const char *program, size_t len, trawl_script_opts *so,
		    const struct live_args *a)
{
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	/* before any thread starts, so they all have them blocked */
	pthread_sigmask(SIG_BLOCK, &set, &old);
	int status = EXIT_OK;
	trawl_error err = {0};
	trawl_script *s = NULL;
	struct cli_child ch = {.pid = 0, .exec_fd = -1};
	struct watcher w = {
		.sig_fd = -1, .quit_fd = -1, .pid_fd = -1, .ch = &ch};
	pthread_t tid;
	int watching = 0;
	trawl_live_opts lo = {0};
	lo.buffer_kb = a->buffer_kb;
	lo.record = a->record;
	/* a script reads no kernel symbols: /proc/kallsyms (5 MB, a third
	 * of the start-up) is read only for a --record file */
	lo.flags = a->no_kallsyms || !a->record ? TRAWL_LIVE_NO_KALLSYMS : 0;
	trawl_live *lv = trawl_live_open(&lo, &err);
	if (!lv) {
		cli_error("%s", err.msg);
		status = err.code == TRAWL_EENV ? EXIT_ENV : EXIT_INPUT;
		goto out;
	}
	so->write_ctx = lv; /* flush as it goes */
	s = trawl_script_compile(trawl_live_trace(lv), program, len, so, &err);
	if (!s) {
		cli_error("%s", err.msg);
		status = EXIT_INPUT;
		goto out;
	}
	if (a->explain)
		fputs(trawl_script_explain(s), stderr);
	if ((status = enable_events(lv, s, !a->no_pushdown, a->record != NULL)))
		goto out;
	w.lv = lv;
	w.s = s;
	if (a->pid) {
		w.pid_fd = (int)syscall(SYS_pidfd_open, a->pid, 0);
		if (w.pid_fd < 0) {
			cli_error("-p %d: %s", (int)a->pid,
				  errno == ESRCH ? "no such process"
						 : strerror(errno));
			status = EXIT_INPUT;
			goto out;
		}
	}
	w.sig_fd = signalfd(-1, &set, SFD_CLOEXEC);
	w.quit_fd = eventfd(0, EFD_CLOEXEC);
	if (w.sig_fd < 0 || w.quit_fd < 0) {
		cli_error("cannot create a signalfd or eventfd: %s",
			  strerror(errno));
		status = EXIT_ENV;
		goto out;
	}
	if (trawl_live_start(lv, &err) < 0) {
		cli_error("%s", err.msg);
		status = err.code == TRAWL_EENV ? EXIT_ENV : EXIT_INPUT;
		goto out;
	}
	if (trawl_script_attach(s, &err) < 0) {
		cli_error("%s", err.msg);
		status = err.code == TRAWL_EENV ? EXIT_ENV : EXIT_INPUT;
		trawl_live_stop(lv);
		goto out;
	}
	int stale = trawl_live_stats(lv)->stale_removed;
	if (stale)
		fprintf(stderr,
			"trawl: removed %d tracefs instance%s (instances/"
			"trawl-[TAG-]PID) left by a recorder that was killed\n",
			stale, stale == 1 ? "" : "s");
	if (a->cmd) {
		int rc = cli_spawn(&ch, a->cmd, &old,
				   (so->flags & TRAWL_SCRIPT_JSON) != 0);
		int e = rc < 0 ? -rc : cli_exec_error(&ch);
		if (e) {
			cli_error("cannot run %s: %s", a->cmd[0], strerror(e));
			status = EXIT_INPUT;
			cli_reap(&ch, 1);
			trawl_live_stop(lv);
		}
	}
	w.end = a->seconds ? now() + a->seconds : 0;
	if (status == EXIT_OK) {
		int e = pthread_create(&tid, NULL, watch, &w);
		if (e) {
			cli_error("cannot start a thread: %s", strerror(e));
			status = EXIT_ENV;
			trawl_live_stop(lv);
		}
		watching = !e;
	}
	/* a CMD that did not start ends it here: no BEGIN output, no maps
	 * (bpftrace fails before it attaches) */
	if (status == EXIT_OK && trawl_script_run(s, &err) < 0) {
		cli_error("%s", err.msg);
		status = cli_status(-err.code);
	}
	fflush(stdout);
	if (watching) {
		uint64_t one = 1;
		if (write(w.quit_fd, &one, sizeof(one)) < 0) {
			/* it also ends with the stop it made */
		}
		pthread_join(tid, NULL);
	}
	if (trawl_live_finish(lv, &err) < 0) {
		cli_error("%s", err.msg);
		status = EXIT_ENV;
		cli_stop_child(&ch, "live tracing failed");
	}
	summary(lv, a);
	report_faults(s);
	cli_reap(&ch, 0); /* an exited CMD waited for its reaping */
out:
	trawl_script_free(s);
	trawl_live_free(lv);
	if (w.sig_fd >= 0)
		close(w.sig_fd);
	if (w.quit_fd >= 0)
		close(w.quit_fd);
	if (w.pid_fd >= 0)
		close(w.pid_fd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return status;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -l [PATTERN]: the tracepoints of this kernel (tracefs's
 * available_events) as bpftrace lists them, tracepoint:SYS:EVENT, sorted;
 * with a glob PATTERN, those it matches in that form or as SYS:EVENT */
static int list_probes(const char *pattern)
{
	static const char *const where[] = {
		"/sys/kernel/tracing/available_events",
		"/sys/kernel/debug/tracing/available_events"};
	FILE *f = NULL;
	for (size_t i = 0; !f && i < sizeof(where) / sizeof(*where); i++)
		f = fopen(where[i], "r");
	if (!f) {
		cli_error("cannot read the kernel's tracepoints (%s): %s; "
			  "-l needs tracefs (mount -t tracefs nodev "
			  "/sys/kernel/tracing) and root",
			  where[0], strerror(errno));
		return EXIT_ENV;
	}
	char **names = NULL, line[512];
	size_t n = 0, cap = 0;
	int status = EXIT_OK;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		/* ftrace's own events (print, function) are not tracepoints
		 * an instance can enable */
		if (!strchr(line, ':') || !strncmp(line, "ftrace:", 7))
			continue;
		char *full;
		if (asprintf(&full, "tracepoint:%s", line) < 0) {
			status = EXIT_ENV;
			break;
		}
		if (pattern && fnmatch(pattern, full, 0) &&
		    fnmatch(pattern, line, 0)) {
			free(full);
			continue;
		}
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 1024;
			char **nn = realloc(names, nc * sizeof(*names));
			if (!nn) {
				free(full);
				status = EXIT_ENV;
				break;
			}
			names = nn;
			cap = nc;
		}
		names[n++] = full;
	}
	fclose(f);
	if (status != EXIT_OK)
		cli_error("out of memory listing the tracepoints");
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (status == EXIT_OK)
			puts(names[i]);
		free(names[i]);
	}
	free(names);
	return status;
}

/* -c CMD: the words of CMD, split at blanks (caller frees the array; the
 * words are in it) */
static char **split_words(const char *cmd)
{
	size_t n = strlen(cmd), slots = n / 2 + 2;
	/* the words after the array, so one free() frees both */
	char **out = malloc(slots * sizeof(*out) + n + 1);
	if (!out)
		return NULL;
	char *w = (char *)(out + slots);
	memcpy(w, cmd, n + 1);
	size_t k = 0;
	char *save = NULL;
	for (char *tok = strtok_r(w, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		out[k++] = tok;
	out[k] = NULL;
	if (!k) {
		free(out);
		return NULL;
	}
	return out;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out > 0) || !isfinite(*out)) {
		cli_error("-d takes seconds > 0, not '%s'", s);
		return -1;
	}
	return 0;
}

/*
 * How many arguments follow the "--" that starts CMD (0: none), found
 * before getopt moves the operands: an argument of an option that takes
 * one is not it.
 */
static int cmd_args(int argc, char **argv)
{
	static const char *const with_arg[] = {
		"-e",	     "-d",	 "-b",	      "--map-size",
		"-c",	     "-p",	 "-f",	      "--record",
		"--threads", "--window", "--formats", "--backend"};
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return argc - i - 1;
		for (size_t k = 0; k < sizeof(with_arg) / sizeof(*with_arg);
		     k++)
			if (!strcmp(argv[i], with_arg[k])) {
				i++;
				break;
			}
	}
	return 0;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"map-size", required_argument, NULL, 'm'},
		{"live", no_argument, NULL, 'L'},
		{"record", required_argument, NULL, 'R'},
		{"no-pushdown", no_argument, NULL, 'P'},
		{"no-kallsyms", no_argument, NULL, 'K'},
		{"backend", required_argument, NULL, 'B'},
		{"explain", no_argument, NULL, 'X'},
		{"list", optional_argument, NULL, 'l'},
		CLI_INPUT_LONG_OPTIONS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cli_input input = {0};
	struct live_args la = {0};
	trawl_script_opts so = {0};
	const char *program = NULL;
	int c, live = 0, live_only = 0, file_only = 0;
	int ncmd = cmd_args(argc, argv); /* before getopt moves them */
	const char *list = NULL, *cmd_line = NULL;
	int listing = 0;
	while ((c = getopt_long(argc, argv, "he:d:b:f:c:p:l", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'e':
			program = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
				cli_error("-f takes json or text (bpftrace's "
					  "output formats), not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			if (!strcmp(optarg, "json"))
				so.flags |= TRAWL_SCRIPT_JSON;
			break;
		case 'j':
			so.flags |= TRAWL_SCRIPT_JSON;
			break;
		case 'l':
			listing = 1;
			/* -l PATTERN as bpftrace takes it: the operand */
			list = optarg;
			break;
		case 'c':
			cmd_line = optarg;
			live = 1;
			break;
		case 'p': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v <= 0 || v > INT32_MAX) {
				cli_error("-p takes a process id, not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			la.pid = (pid_t)v;
			live = 1;
			break;
		}
		case 'm': {
			char *end;
			unsigned long long n = strtoull(optarg, &end, 10);
			if (*end || n < 1 || n > 100000000ull) {
				cli_error("--map-size takes a number of keys "
					  "from 1 to 100000000, not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			so.map_size = (size_t)n;
			break;
		}
		case 'L':
			live = 1;
			break;
		case 'd':
			if (parse_seconds(optarg, &la.seconds) < 0)
				return EXIT_INPUT;
			live_only = 'd';
			break;
		case 'b': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !v || v > (1ul << 30) || optarg[0] == '-') {
				cli_error("-b takes KiB per CPU, a whole "
					  "number > 0, not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			la.buffer_kb = (unsigned)v;
			live_only = 'b';
			break;
		}
		case 'R':
			la.record = optarg;
			live_only = 'R';
			break;
		case 'P':
			la.no_pushdown = 1;
			live_only = 'P';
			break;
		case 'K':
			la.no_kallsyms = 1;
			live_only = 'K';
			break;
		case 'B':
			if (!strcmp(optarg, "auto"))
				so.backend = TRAWL_BACKEND_AUTO;
			else if (!strcmp(optarg, "bpf"))
				so.backend = TRAWL_BACKEND_BPF;
			else if (!strcmp(optarg, "ftrace"))
				so.backend = TRAWL_BACKEND_FTRACE;
			else {
				cli_error(
					"--backend takes auto, bpf or ftrace, "
					"not '%s'",
					optarg);
				return EXIT_INPUT;
			}
			live_only = 'B';
			break;
		case 'X':
			la.explain = 1;
			live_only = 'X';
			break;
		case 'h':
			help(stdout);
			return EXIT_OK;
		default:
			switch (cli_input_option(&input, c, optarg)) {
			case 1:
				file_only = 1;
				continue;
			case 0:
				help(stderr);
			}
			return EXIT_INPUT;
		}
	}
	if (listing) {
		if (!list && optind < argc)
			list = argv[optind++];
		if (optind < argc) {
			cli_error("-l takes at most one PATTERN");
			return EXIT_INPUT;
		}
		return list_probes(list);
	}
	if (cmd_line && ncmd) {
		cli_error("-c CMD and -- CMD ARGS are one command: give one");
		return EXIT_INPUT;
	}
	if (la.pid && (cmd_line || ncmd)) {
		cli_error("-p PID traces until that process exits; it takes no "
			  "command (-c or --)");
		return EXIT_INPUT;
	}
	if (live_only && !live) {
		cli_error("-d, -b, --record, --no-pushdown, --no-kallsyms, "
			  "--backend and --explain are for --live");
		return EXIT_INPUT;
	}
	if (file_only && live) {
		cli_error("--strict, --threads, --window and --formats are for "
			  "reading a FILE, not --live");
		return EXIT_INPUT;
	}
	char *text = NULL;
	size_t len;
	if (!live)
		ncmd = 0;
	/* operands: [SCRIPT] [FILE] PARAMS... [-- CMD...]; the PARAMS are
	 * the script's $1, $2 ... (bpftrace's positional parameters) */
	int need = (program ? 0 : 1) + (live ? 0 : 1);
	int noper = argc - optind - (live ? ncmd : 0);
	if (live && noper < need) {
		cli_error("run --live needs a SCRIPT (or -e PROGRAM); see "
			  "`trawl run --help`");
		return EXIT_INPUT;
	}
	if (!live && noper < need) {
		cli_error(program ? "run -e PROGRAM needs a FILE; see `trawl "
				    "run --help`"
				  : "run needs a SCRIPT and a FILE (or -e "
				    "PROGRAM FILE); see `trawl run --help`");
		return EXIT_INPUT;
	}
	so.params = (const char *const *)argv + optind + need;
	so.nparams = (size_t)(noper - need);
	if (program) {
		len = strlen(program);
		so.name = "-e";
	} else {
		text = read_script(argv[optind], &len);
		if (!text)
			return EXIT_INPUT;
		program = text;
		so.name = argv[optind++];
	}
	so.write = write_out;
	int status = EXIT_OK;
	if (live) {
		char **split = NULL;
		/* CMD is the last ncmd arguments, however getopt moved
		 * the operands before its "--" */
		la.cmd = ncmd ? argv + argc - ncmd : NULL;
		if (cmd_line) {
			/* -c CMD: split at spaces, as bpftrace does (no
			 * shell) */
			split = split_words(cmd_line);
			if (!split) {
				cli_error("-c needs a command");
				free(text);
				return EXIT_INPUT;
			}
			la.cmd = split;
		}
		status = run_live(program, len, &so, &la);
		free(split);
		free(text);
		return status;
	}
	const char *path = argv[optind];
	if (!strcmp(path, "-") && !strcmp(so.name, "-")) {
		cli_error("the script and the trace cannot both be standard "
			  "input");
		free(text);
		return EXIT_INPUT;
	}
	trawl_open_opts o = {0};
	o.flags = input.flags;
	o.threads = input.threads;
	o.window = input.window;
	o.formats = input.formats;
	trawl_error err = {0};
	trawl_trace *t = trawl_open(path, &o, &err);
	if (!t) {
		cli_error("%s", err.msg);
		free(text);
		return EXIT_INPUT;
	}
	trawl_script *s = trawl_script_compile(t, program, len, &so, &err);
	if (!s) {
		cli_error("%s", err.msg);
		status = EXIT_INPUT;
		goto out;
	}
	if (trawl_script_run(s, &err) < 0) {
		cli_error("%s", err.msg);
		status = EXIT_INPUT;
	}
	fflush(stdout);
	report_faults(s);
out:
	trawl_script_free(s);
	trawl_close(t);
	free(text);
	return status;
}
