/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the subcommands: opening a trace with a progress bar,
 * mapping library errors to exit codes, escaping for JSON and CSV (trace
 * text may hold NUL bytes and invalid UTF-8; the output stays valid), and
 * the command a recording traces (cli-child.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli-child.h"
#include "cli.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;
	fputs("trawl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_status(int rc)
{
	if (rc >= 0)
		return EXIT_OK;
	return rc == -TRAWL_EENV ? EXIT_ENV : EXIT_INPUT;
}

struct progress_state {
	struct timespec start, last;
	int shown;
};

static struct progress_state progress;

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void cli_progress(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* Only long runs get a bar, and it redraws ten times a second. */
	if (since(&progress.start, &now) < 0.5 ||
	    since(&progress.last, &now) < 0.1)
		return;
	progress.last = now;
	progress.shown = 1;
	double el = since(&progress.start, &now);
	if (total) {
		int pct = (int)(done * 100 / total);
		if (pct > 100)
			pct = 100;
		char bar[31];
		int full = pct * 30 / 100;
		memset(bar, '#', (size_t)full);
		memset(bar + full, '.', (size_t)(30 - full));
		bar[30] = '\0';
		fprintf(stderr, "\r[%s] %3d%%  %.0f MB/s ", bar, pct,
			(double)done / 1e6 / el);
	} else {
		fprintf(stderr, "\r%.0f MB read ", (double)done / 1e6);
	}
}

static void progress_done(void)
{
	if (progress.shown)
		fprintf(stderr, "\r%60s\r", "");
}

int cli_input_option(struct cli_input *in, int opt, const char *arg)
{
	if (opt == 0x100) {
		in->flags |= TRAWL_OPEN_STRICT;
		return 1;
	}
	if (opt == 0x101) {
		char *end;
		long n = strtol(arg, &end, 10);
		if (*end || n < 1 || n > 64) {
			cli_error("--threads takes a number from 1 to 64, not "
				  "'%s'",
				  arg);
			return -1;
		}
		in->threads = (int)n;
		return 1;
	}
	if (opt == 0x102) {
		char *end;
		unsigned long long n = strtoull(arg, &end, 10);
		if (*end || n < 1 || n > 100000000ull) {
			cli_error("--window takes a number of events from 1 to "
				  "100000000, not '%s'",
				  arg);
			return -1;
		}
		in->window = (size_t)n;
		return 1;
	}
	if (opt == 0x103) {
		in->formats = arg;
		return 1;
	}
	return 0;
}

void cli_open_opts(const struct cli_input *in, trawl_open_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->flags = in->flags;
	o->threads = in->threads;
	o->window = in->window;
	o->formats = in->formats;
	o->from = in->from;
	o->to = in->to;
	if (isatty(2)) {
		o->progress = cli_progress;
		memset(&progress, 0, sizeof(progress));
		clock_gettime(CLOCK_MONOTONIC, &progress.start);
		progress.last = progress.start;
	}
}

void cli_progress_end(void)
{
	progress_done();
}

trawl_trace *cli_open(const char *path, const struct cli_input *in, int *status)
{
	trawl_open_opts o;
	cli_open_opts(in, &o);
	trawl_error err = {0};
	trawl_trace *t = trawl_open(path, &o, &err);
	if (!t) {
		cli_error("%s", err.msg);
		*status = EXIT_INPUT;
		return NULL;
	}
	*status = EXIT_OK;
	return t;
}

int cli_run(trawl_trace *t)
{
	trawl_error err = {0};
	int rc = trawl_run(t, &err);
	progress_done();
	if (rc < 0) {
		cli_error("%s", err.msg[0] ? err.msg : trawl_strerror(rc));
		return EXIT_INPUT;
	}
	if (rc > 0) /* a callback stopped the run (output closed) */
		return rc == EXIT_INPUT ? EXIT_INPUT : EXIT_OK;
	return EXIT_OK;
}

void json_string(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	putc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned c = p[i];
		if (c == '"' || c == '\\') {
			putc('\\', f);
			putc((int)c, f);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			putc((int)c, f);
			i++;
		} else {
			size_t l = trawl_utf8_len(p + i, n - i);
			if (l == 0) {
				fputs("\\ufffd", f);
				i++;
			} else {
				fwrite(p + i, 1, l, f);
				i += l;
			}
		}
	}
	putc('"', f);
}

void csv_field(FILE *f, const char *s, size_t n)
{
	int quote = 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' ||
		    s[i] == '\r' || s[i] == ' ') {
			quote = 1;
			break;
		}
	if (!quote) {
		fwrite(s, 1, n, f);
		return;
	}
	putc('"', f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			putc('"', f);
		putc(s[i] ? s[i] : ' ', f);
	}
	putc('"', f);
}

int is_json_integer(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	if (i == n || n - i > 18)
		return 0;
	if (s[i] == '0' && n - i > 1)
		return 0; /* leading zeros: keep as text (e.g. "000") */
	for (; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

void print_time(FILE *f, int64_t ns)
{
	const char *sign = "";
	uint64_t u = (uint64_t)ns;
	if (ns < 0) {
		sign = "-";
		u = (uint64_t)0 - u;
	}
	fprintf(f, "%s%llu.%09llu", sign, (unsigned long long)(u / 1000000000),
		(unsigned long long)(u % 1000000000));
}

void flags_string(const trawl_event *ev, char out[6])
{
	unsigned fl = trawl_event_flags(ev);
	if (!(fl & TRAWL_FLAG_KNOWN)) {
		out[0] = '\0';
		return;
	}
	int irq = fl & TRAWL_FLAG_IRQS_OFF, bh = fl & TRAWL_FLAG_BH_OFF;
	out[0] = irq && bh ? 'D' : irq ? 'd' : bh ? 'b' : '.';
	int nr = fl & TRAWL_FLAG_NEED_RESCHED,
	    pr = fl & TRAWL_FLAG_PREEMPT_RESCHED;
	out[1] = nr && pr ? 'N' : nr ? 'n' : pr ? 'p' : '.';
	int hi = fl & TRAWL_FLAG_HARDIRQ, si = fl & TRAWL_FLAG_SOFTIRQ;
	out[2] = fl & TRAWL_FLAG_NMI ? 'Z'
		 : hi && si	     ? 'H'
		 : hi		     ? 'h'
		 : si		     ? 's'
				     : '.';
	int d = trawl_event_preempt_depth(ev);
	out[3] = d <= 0 ? '.' : "0123456789abcdef"[d & 15];
	out[4] = '\0';
}

/*
 * Start CMD with the signal mask and dispositions it would have had. A
 * close-on-exec pipe tells whether exec worked: EOF when it did, the errno
 * when it did not.
 */
int cli_spawn(struct cli_child *ch, char **cmd, const sigset_t *old,
	      int stdout_to_stderr)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return -e;
	}
	if (pid == 0) {
		close(p[0]);
		sigprocmask(SIG_SETMASK, old, NULL);
		/* --json on stdout: the JSON is all that goes there */
		if (stdout_to_stderr && dup2(2, 1) < 0)
			_exit(127);
		execvp(cmd[0], cmd);
		int e = errno;
		if (write(p[1], &e, sizeof(e)) < 0) {
			/* the parent sees EOF and a 127 exit */
		}
		_exit(127);
	}
	close(p[1]);
	ch->argv0 = cmd[0];
	ch->pid = pid;
	ch->exec_fd = p[0];
	return 0;
}

int cli_exec_error(struct cli_child *ch)
{
	int e = 0;
	ssize_t k;
	do
		k = read(ch->exec_fd, &e, sizeof(e));
	while (k < 0 && errno == EINTR);
	close(ch->exec_fd);
	ch->exec_fd = -1;
	return k == sizeof(e) ? e : 0;
}

void cli_reap(struct cli_child *ch, int block)
{
	if (!ch->pid || ch->done)
		return;
	pid_t p;
	do
		p = waitpid(ch->pid, &ch->status, block ? 0 : WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == ch->pid || (p < 0 && errno == ECHILD))
		ch->done = 1;
}

void cli_stop_child(struct cli_child *ch, const char *why)
{
	if (!ch->pid || ch->done)
		return;
	kill(ch->pid, SIGTERM);
	for (int i = 0; i < 40 && !ch->done; i++) {
		struct timespec t = {0, 50 * 1000 * 1000};
		nanosleep(&t, NULL);
		cli_reap(ch, 0);
	}
	if (!ch->done) {
		kill(ch->pid, SIGKILL);
		cli_reap(ch, 1);
	}
	fprintf(stderr, "trawl: stopped %s: %s\n", ch->argv0, why);
}
