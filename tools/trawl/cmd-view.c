/* SPDX-License-Identifier: MIT */
/*
 * trawl view FILE: index the trace (the library's timeline,
 * include/trawl/timeline.h; a progress bar on a terminal), then serve the
 * timeline viewer (view-http.c) until SIGINT or SIGTERM. The one line on
 * stdout is the URL, with the access token. With --follow a thread looks
 * at the file every second and, when it has grown (a recording still being
 * written), indexes it again and serves the new index from then on
 * (requests hold the old one until they end); the index's generation in
 * /api/info (trawl_timeline_follow()) tells the page.
 */
#include <getopt.h>
#include <signal.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "view-http.h"

extern char **environ;

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl view FILE [--port N] [--bind ADDR] [--open] "
		"[--no-token]\n"
		"                  [--irq-threshold D] [--follow]\n\n"
		"Index the trace and serve its timeline to a web browser: "
		"the running task\nper CPU, thread states per task, hardirq "
		"and softirq per CPU, workqueue\nexecutions, systrace "
		"slices, async slices and counters, cpu_frequency,\nmarkers "
		"and lost events; zoom, pan, details, search, and the "
		"analyses of\nthe visible window. When ready it prints one "
		"line, `trawl view: serving URL`,\nand serves until Ctrl-C. "
		"The URL carries a random token every API request\nneeds "
		"(docs/view-api.md).\n\n"
		"  --port N       TCP port (default 8000; 0 picks a free "
		"one)\n"
		"  --bind ADDR    listen on ADDR instead of 127.0.0.1 (other "
		"machines can\n"
		"                 then reach it: a warning is printed)\n"
		"  --open         open the URL in a browser (xdg-open)\n"
		"  --no-token     serve the API without the token (scripted "
		"use)\n"
		"  --irq-threshold D  handlers longer than D are warnings "
		"(default 1ms)\n" CLI_INPUT_HELP
		"  --no-cache     neither read nor write the index cache "
		"($XDG_CACHE_HOME/trawl,\n"
		"                 else ~/.cache/trawl; a trace indexed before "
		"opens at once)\n"
		"  --follow       a file still being written (a recording) is "
		"indexed again\n"
		"                 each time it has grown (looked at every "
		"second); the page\n"
		"                 shows the new events as they come\n"
		"  -h, --help     this text\n");
}

/* --follow: index the file again when it grew, swap it in. */
struct follow {
	struct view_server *s;
	const char *path;
	trawl_timeline_opts to;
	struct stat last;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	pthread_t tid;
};

static void *follow_main(void *arg)
{
	struct follow *f = arg;
	/* each index reads the whole file again: the next look waits twice
	 * as long as the last index took (at least a second), so following
	 * a long recording takes at most a third of a core */
	int64_t wait = 1000000000;
	pthread_mutex_lock(&f->mu);
	while (!f->stop) {
		struct timespec at;
		clock_gettime(CLOCK_REALTIME, &at);
		int64_t ns = at.tv_nsec + wait;
		at.tv_sec += ns / 1000000000;
		at.tv_nsec = ns % 1000000000;
		pthread_cond_timedwait(&f->cv, &f->mu, &at);
		if (f->stop)
			break;
		struct stat st;
		if (stat(f->path, &st) ||
		    (st.st_size == f->last.st_size &&
		     st.st_mtim.tv_sec == f->last.st_mtim.tv_sec &&
		     st.st_mtim.tv_nsec == f->last.st_mtim.tv_nsec &&
		     st.st_ino == f->last.st_ino))
			continue;
		pthread_mutex_unlock(&f->mu);
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		trawl_error err = {0};
		trawl_timeline *nix =
			trawl_timeline_open(f->path, &f->to, &err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		int64_t took = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 +
			       (t1.tv_nsec - t0.tv_nsec);
		wait = 2 * took > 1000000000 ? 2 * took : 1000000000;
		/* a failed index (the file caught mid-write) keeps the old */
		if (nix) {
			pthread_rwlock_wrlock(&f->s->lock);
			trawl_timeline *old = f->s->ix;
			trawl_timeline_follow(
				nix, 1, trawl_timeline_generation(old) + 1);
			f->s->ix = nix;
			pthread_rwlock_unlock(&f->s->lock);
			trawl_timeline_close(old);
		}
		pthread_mutex_lock(&f->mu);
		f->last = st;
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

static int make_token(char out[33])
{
	unsigned char r[16];
	size_t got = 0;
	while (got < sizeof(r)) {
		ssize_t n = getrandom(r + got, sizeof(r) - got, 0);
		if (n < 0)
			return -1;
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
	return 0;
}

static void open_browser(const char *url)
{
	pid_t pid;
	char *args[] = {"xdg-open", (char *)url, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "xdg-open", &fa, NULL, args, environ))
		cli_error("--open: cannot run xdg-open; open the URL by hand");
	posix_spawn_file_actions_destroy(&fa);
}

static void say_warning(void *ctx, const char *msg)
{
	(void)ctx;
	cli_error("%s", msg);
}

static void timeline_opts(const struct view_cmd_opts *o,
			  trawl_timeline_opts *to)
{
	memset(to, 0, sizeof(*to));
	cli_open_opts(&o->input, &to->open);
	to->irq_threshold = o->irq_threshold;
	to->flags = o->no_cache ? TRAWL_TIMELINE_NO_CACHE : 0;
	to->warn = say_warning;
}

int view_cmd_open(const char *path, const struct view_cmd_opts *o,
		  trawl_timeline **out)
{
	trawl_timeline_opts to;
	timeline_opts(o, &to);
	trawl_error err = {0};
	*out = trawl_timeline_open(path, &to, &err);
	cli_progress_end();
	if (*out)
		return EXIT_OK;
	cli_error("%s", err.msg[0] ? err.msg : trawl_strerror(-err.code));
	return err.code == TRAWL_ENOMEM || err.code == TRAWL_EIO ? EXIT_ENV
								 : EXIT_INPUT;
}

int view_build_option(struct view_cmd_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case 'C':
		o->no_cache = 1;
		return 1;
	case 'i':
		if (cli_parse_duration(arg, &o->irq_threshold) ||
		    o->irq_threshold <= 0) {
			cli_error("--irq-threshold takes a duration such as "
				  "1ms, not '%s'",
				  arg);
			return -1;
		}
		return 1;
	}
	return cli_input_option(&o->input, opt, arg);
}

int cmd_view(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_INPUT_LONG_OPTIONS,
		{"port", required_argument, NULL, 'p'},
		{"bind", required_argument, NULL, 'b'},
		{"open", no_argument, NULL, 'o'},
		{"no-token", no_argument, NULL, 'n'},
		{"irq-threshold", required_argument, NULL, 'i'},
		{"no-cache", no_argument, NULL, 'C'},
		{"follow", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct view_cmd_opts bo = {0};
	long port = 8000;
	const char *bind = "127.0.0.1";
	int open_it = 0, no_token = 0, follow = 0, o;
	optind = 1;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end;
		switch (o) {
		case 'h':
			help(stdout);
			return EXIT_OK;
		case 'p':
			port = strtol(optarg, &end, 10);
			if (*end || !*optarg || port < 0 || port > 65535) {
				cli_error("--port takes 0 .. 65535, not '%s'",
					  optarg);
				return EXIT_INPUT;
			}
			break;
		case 'b':
			bind = optarg;
			break;
		case 'o':
			open_it = 1;
			break;
		case 'n':
			no_token = 1;
			break;
		case 'f':
			follow = 1;
			break;
		default: {
			int rc = view_build_option(&bo, o, optarg);
			if (rc == 1)
				break;
			if (rc == 0)
				help(stderr);
			return EXIT_INPUT;
		}
		}
	}
	if (optind + 1 != argc) {
		cli_error("view takes one FILE");
		help(stderr);
		return EXIT_INPUT;
	}
	struct view_server s = {0};
	if (!no_token && make_token(s.guard.token)) {
		cli_error("cannot make a token: getrandom failed: %m");
		return EXIT_ENV;
	}
	/* SIGINT/SIGTERM are waited for below; the server's threads inherit
	 * the mask, so the signal comes to this thread */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	struct follow fw = {.s = &s, .path = argv[optind]};
	struct view_cmd_opts fo = bo;
	fo.no_cache = 1; /* a cache file per size the recording had: no */
	timeline_opts(&fo, &fw.to);
	/* the file indexed again has no progress bar over the server's */
	fw.to.open.progress = NULL;
	if (follow && (!strcmp(fw.path, "-") || stat(fw.path, &fw.last))) {
		cli_error("--follow needs a file (%s)", fw.path);
		return EXIT_INPUT;
	}
	int status = view_cmd_open(argv[optind], &bo, &s.ix);
	if (status)
		return status;
	trawl_timeline_info info;
	trawl_timeline_get_info(s.ix, &info);
	if (!info.events && !follow) {
		/* nothing to show: say so rather than serve an empty page */
		cli_error("%s has no events to show (is it a trace? `trawl "
			  "stats %s` says what was read)",
			  argv[optind], argv[optind]);
		trawl_timeline_close(s.ix);
		return EXIT_INPUT;
	}
	s.guard.bind = bind;
	trawl_timeline_follow(s.ix, follow, 0);
	const char *why = "";
	if (view_server_start(&s, bind, (int)port, &why)) {
		cli_error("cannot serve on %s port %ld: %s", bind, port, why);
		trawl_timeline_close(s.ix);
		return EXIT_ENV;
	}
	if (strcmp(bind, "127.0.0.1") && strcmp(bind, "::1"))
		cli_error("warning: serving on %s: other machines can reach "
			  "this server%s",
			  bind,
			  no_token ? ", and without a token anyone can read "
				     "the trace"
				   : "");
	char url[200];
	int v6 = strchr(bind, ':') != NULL;
	snprintf(url, sizeof(url), "http://%s%s%s:%d/%s%s", v6 ? "[" : "", bind,
		 v6 ? "]" : "", s.guard.port,
		 no_token ? "" : "?token=", s.guard.token);
	printf("trawl view: serving %s\n", url);
	fflush(stdout);
	if (open_it)
		open_browser(url);
	pthread_mutex_init(&fw.mu, NULL);
	pthread_cond_init(&fw.cv, NULL);
	int following =
		follow && !pthread_create(&fw.tid, NULL, follow_main, &fw);
	if (follow && !following) {
		trawl_timeline_follow(s.ix, 0, 0);
		cli_error("--follow: cannot start its thread; serving what "
			  "was read");
	}
	int sig;
	while (sigwait(&stop, &sig))
		;
	if (following) {
		pthread_mutex_lock(&fw.mu);
		fw.stop = 1;
		pthread_cond_signal(&fw.cv);
		pthread_mutex_unlock(&fw.mu);
		pthread_join(fw.tid, NULL);
	}
	view_server_stop(&s);
	trawl_timeline_close(s.ix);
	return EXIT_OK;
}
