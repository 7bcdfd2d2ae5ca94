/* SPDX-License-Identifier: MIT */
/*
 * trawl_live_stack(): the kernel's stack after each record of an event
 * (ftrace's stacktrace trigger in the session's instance, with the event's
 * filter). The test's own getppid() calls, filtered on its pid, must each
 * be followed on their CPU by an ftrace:kernel_stack record, a child's
 * calls (which the filter drops) by none, and the trigger must be gone
 * with the instance after the session; a stack for an event not enabled
 * is refused at the start, filters the kernel refuses are left out and
 * counted, and every failed allocation of a start with stacks leaves
 * nothing. Only names, order and counts are checked, not the frames.
 * Needs root and tracefs: skipped otherwise.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trawl/trawl.h"

#include "../helpers/helpers.h"

#define TFS	 "/sys/kernel/tracing"
#define GETPPID	 "syscalls:sys_enter_getppid"
#define TRIGGER	 "events/syscalls/sys_enter_getppid/trigger"
#define CALLS	 5
#define MAX_SEEN 4096

/* The events of the session in the order delivered, per CPU. */
struct seen {
	int n;
	int cpu[MAX_SEEN];
	int pid[MAX_SEEN];
	char stack[MAX_SEEN]; /* 1: kernel_stack, 0: sys_enter_getppid */
	int getppids, stacks, others;
	trawl_live *lv;
};

static int on_any(const trawl_event *ev, void *ctx)
{
	struct seen *s = ctx;
	const char *name = trawl_event_name(ev);
	int stack = !strcmp(name, "kernel_stack");
	if (!stack && strcmp(name, "sys_enter_getppid")) {
		s->others++;
		return 0;
	}
	if (s->n < MAX_SEEN) {
		s->cpu[s->n] = trawl_event_cpu(ev);
		s->pid[s->n] = trawl_event_pid(ev);
		s->stack[s->n] = (char)stack;
		s->n++;
	}
	if (stack)
		s->stacks++;
	else
		s->getppids++;
	/* read until every call and its stack came */
	if (s->getppids >= CALLS && s->stacks >= CALLS)
		trawl_live_stop(s->lv);
	return 0;
}

static void *deadline(void *arg)
{
	sleep(10); /* the events did not come: end the run anyway */
	trawl_live_stop(arg);
	return NULL;
}

static trawl_live *open_session(void)
{
	trawl_error err = {0};
	trawl_live_opts o = {.flags = TRAWL_LIVE_NO_KALLSYMS};
	trawl_live *lv = trawl_live_open(&o, &err);
	cr_assert(lv, "%s", err.msg);
	return lv;
}

/* A tracefs file of this process's instance (or the top level: NULL),
 * read whole; caller frees. NULL when it is not there. */
static char *read_tracefs(int instance, const char *rel)
{
	char path[512];
	if (instance)
		snprintf(path, sizeof(path), TFS "/instances/trawl-%d/%s",
			 (int)getpid(), rel);
	else
		snprintf(path, sizeof(path), TFS "/%s", rel);
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *text = NULL;
	size_t cap = 0;
	if (getdelim(&text, &cap, '\0', f) < 0) {
		free(text);
		text = strdup("");
	}
	fclose(f);
	return text;
}

static void child_getppid(void)
{
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		for (int i = 0; i < CALLS; i++)
			syscall(SYS_getppid);
		_exit(0);
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
}

Test(live_stack, each_event_kept_is_followed_by_its_stack, .timeout = 60)
{
	const char *why = tracing_unavailable();
	if (why)
		cr_skip_test("%s", why);
	char *top_before = read_tracefs(0, TRIGGER);
	trawl_error err = {0};
	trawl_live *lv = open_session();
	trawl_trace *t = trawl_live_trace(lv);
	struct seen *s = calloc(1, sizeof(*s));
	cr_assert(s);
	s->lv = lv;
	cr_assert_eq(trawl_on(t, "*", on_any, s), 0);
	char filter[64];
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)getpid());
	cr_assert_eq(trawl_live_enable(lv, GETPPID, filter, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(trawl_live_stack(lv, GETPPID, NULL, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(trawl_live_start(lv, &err), 0, "%s", err.msg);

	/* the trigger, with the event's filter, while the session runs */
	char *trig = read_tracefs(1, TRIGGER);
	cr_assert(trig, "the instance's trigger file");
	char want[128];
	snprintf(want, sizeof(want), "stacktrace:unlimited if %s\n", filter);
	cr_expect(strstr(trig, want), "the trigger is '%s': %s", want, trig);
	free(trig);

	/* a child's calls, which the filter drops, then the test's own */
	child_getppid();
	for (int i = 0; i < CALLS; i++)
		syscall(SYS_getppid);
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, deadline, lv), 0);
	cr_assert_eq(trawl_run(t, &err), 0, "%s", err.msg);
	cr_assert_eq(trawl_live_finish(lv, &err), 0, "%s", err.msg);
	trawl_live_free(lv);
	pthread_cancel(th);
	pthread_join(th, NULL);

	cr_expect_eq(s->getppids, CALLS, "%d getppid events for %d calls",
		     s->getppids, CALLS);
	cr_expect_eq(s->stacks, s->getppids,
		     "%d stacks for %d events (none for the child's)",
		     s->stacks, s->getppids);
	cr_expect_eq(s->others, 0, "%d other events", s->others);
	for (int i = 0; i < s->n; i++) {
		cr_expect_eq(s->pid[i], (int)getpid(),
			     "event %d is of pid %d, not the test's", i,
			     s->pid[i]);
		if (s->stack[i])
			continue;
		/* the next event on its CPU is its stack */
		int j = i + 1;
		while (j < s->n && s->cpu[j] != s->cpu[i])
			j++;
		cr_expect(j < s->n && s->stack[j],
			  "getppid %d (CPU %d) is followed by its stack", i,
			  s->cpu[i]);
	}
	cr_expect(!own_instance_left(), "the instance is gone");
	char *top_after = read_tracefs(0, TRIGGER);
	cr_expect_str_eq(top_after ? top_after : "",
			 top_before ? top_before : "",
			 "the top level's trigger as it was");
	free(top_before);
	free(top_after);
	free(s);
}

Test(live_stack, the_trigger_takes_the_events_filters_and_its_own)
{
	const char *why = tracing_unavailable();
	if (why)
		cr_skip_test("%s", why);
	trawl_error err = {0};
	trawl_live *lv = open_session();
	/* enabled twice: widened with ||; the stack's own joined with && */
	cr_assert_eq(trawl_live_enable(lv, GETPPID, "common_pid == 1", &err),
		     0);
	cr_assert_eq(trawl_live_enable(lv, GETPPID, "common_pid == 2", &err),
		     0);
	cr_assert_eq(trawl_live_stack(lv, GETPPID, "common_pid > 1", &err), 0);
	cr_assert_eq(trawl_live_stack(lv, "ftrace:print", NULL, &err), 1,
		     "ftrace's own events are refused");
	cr_assert_eq(trawl_live_start(lv, &err), 0, "%s", err.msg);
	char *trig = read_tracefs(1, TRIGGER);
	cr_assert(trig);
	cr_expect(strstr(trig, "stacktrace:unlimited if ((common_pid == 1) || "
			       "(common_pid == 2)) && (common_pid > 1)\n"),
		  "the trigger's filter: %s", trig);
	free(trig);
	cr_assert_eq(trawl_live_stack(lv, GETPPID, NULL, &err), -TRAWL_EMISUSE,
		     "not after the start");
	trawl_live_stop(lv);
	cr_assert_eq(trawl_run(trawl_live_trace(lv), &err), 0, "%s", err.msg);
	cr_assert_eq(trawl_live_finish(lv, &err), 0, "%s", err.msg);
	cr_expect_eq(trawl_live_stats(lv)->filters_refused, 0);
	trawl_live_free(lv);
	cr_expect(!own_instance_left(), "the instance is gone");
}

Test(live_stack, refused_filters_are_left_out_and_counted)
{
	const char *why = tracing_unavailable();
	if (why)
		cr_skip_test("%s", why);
	trawl_error err = {0};
	/* the event's filter refused: the trigger has none */
	trawl_live *lv = open_session();
	cr_assert_eq(trawl_live_enable(lv, GETPPID, "no_such_field == 1", &err),
		     0);
	cr_assert_eq(trawl_live_stack(lv, GETPPID, NULL, &err), 0);
	cr_assert_eq(trawl_live_start(lv, &err), 0, "%s", err.msg);
	char *trig = read_tracefs(1, TRIGGER);
	cr_assert(trig);
	cr_expect(strstr(trig, "stacktrace:unlimited\n"), "plain: %s", trig);
	free(trig);
	trawl_live_stop(lv);
	cr_assert_eq(trawl_run(trawl_live_trace(lv), &err), 0, "%s", err.msg);
	cr_assert_eq(trawl_live_finish(lv, &err), 0, "%s", err.msg);
	cr_expect_eq(trawl_live_stats(lv)->filters_refused, 1);
	trawl_live_free(lv);
	cr_expect(!own_instance_left());

	/* the stack's own refused: the event's alone */
	lv = open_session();
	cr_assert_eq(trawl_live_enable(lv, GETPPID, "common_pid == 1", &err),
		     0);
	cr_assert_eq(trawl_live_stack(lv, GETPPID, "no_such_field == 1", &err),
		     0);
	cr_assert_eq(trawl_live_start(lv, &err), 0, "%s", err.msg);
	trig = read_tracefs(1, TRIGGER);
	cr_assert(trig);
	cr_expect(strstr(trig, "stacktrace:unlimited if common_pid == 1\n"),
		  "the event's filter: %s", trig);
	free(trig);
	trawl_live_stop(lv);
	cr_assert_eq(trawl_run(trawl_live_trace(lv), &err), 0, "%s", err.msg);
	cr_assert_eq(trawl_live_finish(lv, &err), 0, "%s", err.msg);
	cr_expect_eq(trawl_live_stats(lv)->filters_refused, 1);
	trawl_live_free(lv);
	cr_expect(!own_instance_left());
}

Test(live_stack, a_stack_for_an_event_not_enabled_is_refused_at_the_start)
{
	const char *why = tracing_unavailable();
	if (why)
		cr_skip_test("%s", why);
	trawl_error err = {0};
	trawl_live *lv = open_session();
	cr_assert_eq(trawl_live_enable(lv, "sched:sched_switch", NULL, &err),
		     0);
	cr_assert_eq(trawl_live_stack(lv, GETPPID, NULL, &err), 0);
	cr_assert_eq(trawl_live_stack(lv, "sched", NULL, &err), -TRAWL_EINVAL);
	cr_assert_eq(trawl_live_start(lv, &err), -TRAWL_EMISUSE);
	cr_expect(strstr(err.msg, "sys_enter_getppid"), "named: %s", err.msg);
	trawl_live_free(lv);
	cr_expect(!own_instance_left(), "nothing left in tracefs");
}

Test(live_stack, every_failed_allocation_of_a_start_with_stacks_is_clean,
     .timeout = 300)
{
	const char *why = tracing_unavailable();
	if (why)
		cr_skip_test("%s", why);
	char *top_before = read_tracefs(0, TRIGGER);
	long n, failures = 0;
	for (n = 0;; n++) {
		struct fault f = {.countdown = LONG_MAX};
		trawl_live_opts o = {.flags = TRAWL_LIVE_NO_KALLSYMS,
				     .realloc = fault_realloc,
				     .alloc_ctx = &f};
		trawl_error err = {0};
		trawl_live *lv = trawl_live_open(&o, &err);
		cr_assert(lv, "%s", err.msg);
		int rc =
			trawl_live_enable(lv, GETPPID, "common_pid == 1", &err);
		if (rc == 0)
			rc = trawl_live_stack(lv, GETPPID, NULL, &err);
		/* from here on, allocation n fails */
		__atomic_store_n(&f.countdown, n, __ATOMIC_RELAXED);
		if (rc == 0)
			rc = trawl_live_start(lv, &err);
		if (rc == 0) {
			trawl_live_stop(lv);
			rc = trawl_run(trawl_live_trace(lv), &err);
			int frc = trawl_live_finish(lv, &err);
			if (rc == 0)
				rc = frc;
		}
		trawl_live_free(lv);
		cr_assert(!own_instance_left(),
			  "allocation %ld failed: the instance is left", n);
		cr_assert_eq(__atomic_load_n(&f.live, __ATOMIC_RELAXED), 0,
			     "allocation %ld: blocks not freed", n);
		if (!__atomic_load_n(&f.fired, __ATOMIC_RELAXED)) {
			cr_assert_eq(rc, 0, "%s", err.msg);
			break;
		}
		failures += rc < 0;
	}
	cr_log_info("%ld allocations after the open, %ld failed sessions", n,
		    failures);
	cr_assert_gt(failures, 0, "the start allocates through the hook");
	char *top_after = read_tracefs(0, TRIGGER);
	cr_expect_str_eq(top_after ? top_after : "",
			 top_before ? top_before : "");
	free(top_before);
	free(top_after);
}
