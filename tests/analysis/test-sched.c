/* SPDX-License-Identifier: MIT */
/*
 * trawl_sched_new() on hand-made traces; every expected number is worked
 * out in the comments (times in us after 100 s).
 */
#include "analysis-test.h"

#include "../helpers/helpers.h"

#define SW(pc, pp, st, nc, np)                                                 \
	"sched_switch: prev_comm=" pc " prev_pid=" pp                          \
	" prev_prio=120 prev_state=" st " ==> next_comm=" nc " next_pid=" np   \
	" next_prio=120"
#define WAKING(c, p, cpu)                                                      \
	"sched_waking: comm=" c " pid=" p " prio=120 target_cpu=" cpu
#define MIGRATE(c, p, from, to)                                                \
	"sched_migrate_task: comm=" c " pid=" p " prio=120 orig_cpu=" from     \
	" dest_cpu=" to

/*
 * No sched_migrate_task: migrations are switch-ins on another CPU.
 *
 *  0 cpu0 idle -> a        a first seen: running from 0; cpu0 busy from 0
 *  5 cpu1 c wakes b        b unknown: runnable from 5 (maybe running)
 * 10 cpu1 c (S) -> b       c: nothing counted before, asleep from 10;
 *                          b was waiting after all: runnable 5; cpu1 from 10
 * 20 cpu0 a (R+) -> idle   a: run 20, preempted; cpu0 busy 20
 * 30 cpu1 b (S) -> a       b: run 20; a: runnable 10, cpu0 -> cpu1: migration
 * 30 cpu1 a wakes b        same time, after the switch in record order:
 *                          b asleep 0, runnable from 30
 * 35 cpu0 idle -> b        b: runnable 5, cpu1 -> cpu0: migration;
 *                          cpu0 idle 15
 * 50 cpu0 b (X) -> idle    b: run 15, dead: nothing more; cpu0 busy 15
 * 60 cpu1 a (S) -> c       a: run 30; c: no wakeup seen, sleep 50; cpu1 busy 30
 * 70 cpu1 c wakes a        a: sleep 10, runnable from 70
 * 80 cpu0 idle -> d        d first seen: running from 80; cpu0 idle 30
 * 85 cpu1 c wakes e        e unknown: runnable from 85 (maybe running)
 * 90 cpu2 e (S) -> idle    e was running: the 5 is dropped, no anomaly;
 *                          asleep from 90; cpu2 idle from 90
 * 100 cpu1 a print         the trace ends: a runnable 30, c run 40,
 *                          d run 20, e sleep 10; cpu0 busy 20, cpu1 busy 40,
 *                          cpu2 idle 10
 *
 * a: count 2, run 50, runnable 40, sleep 10, switches 2, preempted 1, mig 1
 * b: count 2, run 35, runnable 10, sleep 0, switches 2, preempted 0, mig 1
 * c: count 1, run 40, runnable 0, sleep 50, switches 1
 * d: count 1, run 20; e: count 0, sleep 10, switches 1
 * cpu0: busy 55, idle 45, 5 switches; cpu1: busy 90, idle 0, 3 switches;
 * cpu2: busy 0, idle 10, 1 switch.
 */
/* clang-format off */
static const char trace[] = "# tracer: nop\n"
	L("<idle>-0", 0, "100.000000", SW("swapper/0", "0", "R", "a", "10"))
	L("c-30", 1, "100.000005", WAKING("b", "20", "001"))
	L("c-30", 1, "100.000010", SW("c", "30", "S", "b", "20"))
	L("a-10", 0, "100.000020", SW("a", "10", "R+", "swapper/0", "0"))
	L("b-20", 1, "100.000030", SW("b", "20", "S", "a", "10"))
	L("a-10", 1, "100.000030", WAKING("b", "20", "000"))
	L("<idle>-0", 0, "100.000035", SW("swapper/0", "0", "R", "b", "20"))
	L("b-20", 0, "100.000050", SW("b", "20", "X", "swapper/0", "0"))
	L("a-10", 1, "100.000060", SW("a", "10", "S", "c", "30"))
	L("c-30", 1, "100.000070", WAKING("a", "10", "001"))
	L("<idle>-0", 0, "100.000080", SW("swapper/0", "0", "R", "d", "40"))
	L("c-30", 1, "100.000085", WAKING("e", "50", "002"))
	L("e-50", 2, "100.000090", SW("e", "50", "S", "swapper/2", "0"))
	L("c-30", 1, "100.000100", "tracing_mark_write: hello");
/* clang-format on */

static const trawl_sched_task *task(const trawl_sched_report *r, int pid)
{
	for (size_t i = 0; i < r->ntasks; i++)
		if (r->tasks[i].pid == pid)
			return &r->tasks[i];
	cr_assert_fail("no task %d", pid);
	return NULL;
}

/* The anomaly of that kind, first seen at first (ns). */
static const trawl_anomaly *sched_anomaly(const trawl_sched_report *r,
					  const char *what, int64_t first)
{
	for (size_t i = 0; i < r->nanomalies; i++)
		if (!strcmp(r->anomalies[i].what, what) &&
		    r->anomalies[i].first == first)
			return &r->anomalies[i];
	return NULL;
}

#define US(x) ((int64_t)(x)*1000)

#define assert_task(t, n, run_, rbl, slp, sw, pre, mig)                        \
	do {                                                                   \
		cr_expect_eq((t)->count, (n), "%d count %llu", (t)->pid,       \
			     (unsigned long long)(t)->count);                  \
		cr_expect_eq((t)->run, US(run_), "%d run %lld", (t)->pid,      \
			     (long long)(t)->run);                             \
		cr_expect_eq((t)->runnable, US(rbl), "%d runnable %lld",       \
			     (t)->pid, (long long)(t)->runnable);              \
		cr_expect_eq((t)->sleep, US(slp), "%d sleep %lld", (t)->pid,   \
			     (long long)(t)->sleep);                           \
		cr_expect_eq((t)->switches, (sw), "%d switches", (t)->pid);    \
		cr_expect_eq((t)->preempted, (pre), "%d preempted", (t)->pid); \
		cr_expect_eq((t)->migrations, (mig), "%d migrations",          \
			     (t)->pid);                                        \
	} while (0)

#define assert_cpu(c, id, busy_, idle_, sw)                                    \
	do {                                                                   \
		cr_expect_eq((c)->cpu, (id));                                  \
		cr_expect_eq((c)->busy, US(busy_), "cpu%d busy %lld", (id),    \
			     (long long)(c)->busy);                            \
		cr_expect_eq((c)->idle, US(idle_), "cpu%d idle %lld", (id),    \
			     (long long)(c)->idle);                            \
		cr_expect_eq((c)->switches, (sw), "cpu%d switches", (id));     \
	} while (0)

Test(sched, times_switches_migrations_and_cpus_by_hand)
{
	struct run r;
	run_open(&r, trace);
	r.a = trawl_sched_new(r.t, NULL, NULL);
	run_go(&r);
	const trawl_sched_report *s = trawl_sched_result(r.a);
	cr_assert_not_null(s);
	cr_expect_eq(s->start, 100000000000);
	cr_expect_eq(s->end, 100000100000, "closed at the trace's last event");
	cr_expect_str_eq(s->migrations_from, "switch_in");
	cr_assert_eq(s->ntasks, 5);
	cr_expect_eq(s->tasks[0].pid, 10, "most run time first");
	cr_expect_eq(s->tasks[1].pid, 30);
	cr_expect_eq(s->tasks[2].pid, 20);
	cr_expect_str_eq(task(s, 10)->comm, "a");
	assert_task(task(s, 10), 2, 50, 40, 10, 2, 1, 1);
	assert_task(task(s, 20), 2, 35, 10, 0, 2, 0, 1);
	assert_task(task(s, 30), 1, 40, 0, 50, 1, 0, 0);
	assert_task(task(s, 40), 1, 20, 0, 0, 0, 0, 0);
	assert_task(task(s, 50), 0, 0, 0, 10, 1, 0, 0);
	assert_task(&s->overall, 6, 145, 50, 70, 6, 1, 2);
	cr_assert_eq(s->ncpus, 3);
	assert_cpu(&s->cpus[0], 0, 55, 45, 5);
	assert_cpu(&s->cpus[1], 1, 90, 0, 3);
	assert_cpu(&s->cpus[2], 2, 0, 10, 1);
	cr_expect_eq(s->nanomalies, 0);
	cr_expect_null(trawl_sched_result(NULL));
	run_done(&r);
}

/*
 * --from 30 --to 70: as if the trace were those lines only.
 * 30 b (S) -> a: b first seen asleep from 30; a running from 30 on cpu1
 * 30 a wakes b: b asleep 0, runnable from 30
 * 35 idle -> b (cpu0): b runnable 5, cpu1 -> cpu0 migration; cpu0 from 35
 * 50 b (X): run 15; cpu0 busy 15
 * 60 a (S) -> c: a run 30; c first seen running from 60; cpu1 busy 30
 * 70 c wakes a: a sleep 10; end (--to) 70: c run 10, cpu0 idle 20,
 *    cpu1 busy 10
 */
Test(sched, window_counts_nothing_before_the_first_event)
{
	struct run r;
	run_open(&r, trace);
	trawl_analysis_opts o = {
		.filter = {.set = TRAWL_FILTER_FROM | TRAWL_FILTER_TO,
			   .from = 100000030000,
			   .to = 100000070000},
	};
	r.a = trawl_sched_new(r.t, &o, NULL);
	run_go(&r);
	const trawl_sched_report *s = trawl_sched_result(r.a);
	cr_assert_not_null(s);
	cr_expect_eq(s->start, 100000030000);
	cr_expect_eq(s->end, 100000070000);
	cr_assert_eq(s->ntasks, 3);
	assert_task(task(s, 10), 1, 30, 0, 10, 1, 0, 0);
	assert_task(task(s, 20), 1, 15, 5, 0, 2, 0, 1);
	assert_task(task(s, 30), 1, 10, 0, 0, 0, 0, 0);
	cr_assert_eq(s->ncpus, 2);
	assert_cpu(&s->cpus[0], 0, 15, 20, 2);
	assert_cpu(&s->cpus[1], 1, 40, 0, 2);
	run_done(&r);
}

Test(sched, pid_filter_selects_rows_and_overall)
{
	struct run r;
	run_open(&r, trace);
	trawl_analysis_opts o = {
		.filter = {.set = TRAWL_FILTER_PID, .pid = 20}};
	r.a = trawl_sched_new(r.t, &o, NULL);
	run_go(&r);
	const trawl_sched_report *s = trawl_sched_result(r.a);
	cr_assert_eq(s->ntasks, 1);
	assert_task(&s->tasks[0], 2, 35, 10, 0, 2, 0, 1);
	assert_task(&s->overall, 2, 35, 10, 0, 2, 0, 1);
	cr_expect_eq(s->ncpus, 3, "CPUs are not filtered");
	run_done(&r);
}

/*
 * With sched_migrate_task, the events count (orig_cpu == dest_cpu does
 * not), and the switch-in on another CPU is not counted again.
 *  0 cpu0 idle -> a; 10 a (S) -> idle: run 10, asleep from 10
 * 20 migrate a 0 -> 1; 21 migrate a 1 -> 1 (no move); 22 wakes a: sleep 12
 * 30 cpu1 idle -> a: runnable 8; runs to the end
 * 40 cpu2 y (S) -> idle: y asleep from 40
 * 45 cpu2 y (S) -> idle again: two anomalies (y switched out while
 *    asleep; cpu2's last switch-in was idle, not y); the 5 us are not
 *    counted; asleep from 45
 * 50 cpu3 z (X) -> idle: z first seen, dead
 * 60 wakeup_new z: a new task with z's pid, runnable from 60
 * 70 cpu3 idle -> z: runnable 10; the trace ends at 70:
 *    a run 10 + 40 = 50, y sleep 25, z run 0
 */
/* clang-format off */
static const char migrating[] =
	L("<idle>-0", 0, "100.000000", SW("swapper/0", "0", "R", "a", "10"))
	L("a-10", 0, "100.000010", SW("a", "10", "S", "swapper/0", "0"))
	L("x-99", 1, "100.000020", MIGRATE("a", "10", "0", "1"))
	L("x-99", 1, "100.000021", MIGRATE("a", "10", "1", "1"))
	L("x-99", 1, "100.000022", WAKING("a", "10", "001"))
	L("<idle>-0", 1, "100.000030", SW("swapper/1", "0", "R", "a", "10"))
	L("y-77", 2, "100.000040", SW("y", "77", "S", "swapper/2", "0"))
	L("y-77", 2, "100.000045", SW("y", "77", "S", "swapper/2", "0"))
	L("z-88", 3, "100.000050", SW("z", "88", "X", "swapper/3", "0"))
	L("x-99", 1, "100.000060", "sched_wakeup_new: comm=z pid=88 prio=120 target_cpu=003")
	L("<idle>-0", 3, "100.000070", SW("swapper/3", "0", "R", "z", "88"));
/* clang-format on */

Test(sched, migrate_events_count_and_anomalies)
{
	struct run r;
	run_open(&r, migrating);
	r.a = trawl_sched_new(r.t, NULL, NULL);
	run_go(&r);
	const trawl_sched_report *s = trawl_sched_result(r.a);
	cr_assert_not_null(s);
	cr_expect_str_eq(s->migrations_from, "sched_migrate_task");
	assert_task(task(s, 10), 2, 50, 8, 12, 1, 0, 1);
	assert_task(task(s, 77), 0, 0, 0, 25, 2, 0, 0);
	assert_task(task(s, 88), 1, 0, 10, 0, 1, 0, 0);
	cr_assert_eq(s->nanomalies, 2);
	cr_expect_not_null(sched_anomaly(s, "switch-out of a task not running",
					 100000045000));
	cr_expect_not_null(
		sched_anomaly(s,
			      "sched_switch's prev_pid is not the task "
			      "switched in on its CPU",
			      100000045000));
	run_done(&r);
}

/*
 * A switch-out that is not in the trace (a lost event, a capture missing
 * lines): a CPU runs what its last sched_switch switched in until its next
 * one, whatever that one's prev_pid says.
 *  0 cpu0 idle -> a (75)      a running from 0 on cpu0
 *  5 cpu1 idle -> b (80)      b running from 5 on cpu1
 * 10 cpu0 c (S) -> idle       cpu0 ran a, not c: a's run ends, 10; a's
 *                             state is not known after; c asleep from 10
 *                             (no switch-in of c seen: an anomaly too)
 * 20 cpu1 b (S) -> a          b run 15; a running from 20 on cpu1
 * 40 cpu0 idle -> b           b asleep 20 (no wakeup seen); runs from 40
 * 50 cpu1 a (R) -> idle       a run 10 + 30 = 40
 * 60 cpu0 d (S) -> idle       cpu0 ran b: b's run ends, 15 + 20 = 35;
 *                             d asleep from 60
 * 100 the trace ends (a print on cpu1): a runnable 50, c asleep 90,
 *     d asleep 40; cpu0 busy 10 + 20 = 30, idle 70; cpu1 busy 45, idle 50
 * The tasks' run (75) is the CPUs' busy time (75); before the rule, a ran
 * from 0 to 100 on cpu0 and b from 40 to 100.
 */
/* clang-format off */
static const char missing_switch_out[] =
	L("<idle>-0", 0, "100.000000", SW("swapper/0", "0", "R", "a", "75"))
	L("<idle>-0", 1, "100.000005", SW("swapper/1", "0", "R", "b", "80"))
	L("c-90", 0, "100.000010", SW("c", "90", "S", "swapper/0", "0"))
	L("b-80", 1, "100.000020", SW("b", "80", "S", "a", "75"))
	L("<idle>-0", 0, "100.000040", SW("swapper/0", "0", "R", "b", "80"))
	L("a-75", 1, "100.000050", SW("a", "75", "R", "swapper/1", "0"))
	L("d-95", 0, "100.000060", SW("d", "95", "S", "swapper/0", "0"))
	L("x-99", 1, "100.000100", "tracing_mark_write: end");
/* clang-format on */

Test(sched, a_cpu_runs_what_it_switched_in_until_its_next_switch)
{
	struct run r;
	run_open(&r, missing_switch_out);
	r.a = trawl_sched_new(r.t, NULL, NULL);
	run_go(&r);
	const trawl_sched_report *s = trawl_sched_result(r.a);
	cr_assert_not_null(s);
	/* count, run, runnable, sleep, switches, preempted, migrations */
	assert_task(task(s, 75), 2, 40, 50, 0, 1, 1, 1);
	assert_task(task(s, 80), 2, 35, 0, 20, 1, 0, 1);
	assert_task(task(s, 90), 0, 0, 0, 90, 1, 0, 0);
	assert_task(task(s, 95), 0, 0, 0, 40, 1, 0, 0);
	assert_cpu(&s->cpus[0], 0, 30, 70, 4);
	assert_cpu(&s->cpus[1], 1, 45, 50, 3);
	cr_expect_eq(s->overall.run, s->cpus[0].busy + s->cpus[1].busy,
		     "tasks ran %lld, CPUs were busy %lld",
		     (long long)s->overall.run,
		     (long long)(s->cpus[0].busy + s->cpus[1].busy));
	const trawl_anomaly *x =
		sched_anomaly(s,
			      "sched_switch's prev_pid is not the task "
			      "switched in on its CPU",
			      100000010000);
	cr_assert_not_null(x);
	cr_expect_eq(x->count, 2, "at 10 and 60 on cpu0");
	run_done(&r);
}

/*
 * A switch-out of a task another CPU runs (that CPU switched it in and has
 * not switched since) changes nothing of the task:
 *  0 cpu0 idle -> a (75)      a running on cpu0
 * 10 cpu1 a (S) -> idle       cpu1's first switch; a runs on cpu0: kept
 * 20 cpu0 a (S) -> idle       a run 20, asleep from 20
 * 30 the end: a sleep 10; cpu0 busy 20, idle 10; cpu1 idle 20
 */
/* clang-format off */
static const char switched_out_elsewhere[] =
	L("<idle>-0", 0, "100.000000", SW("swapper/0", "0", "R", "a", "75"))
	L("a-75", 1, "100.000010", SW("a", "75", "S", "swapper/1", "0"))
	L("a-75", 0, "100.000020", SW("a", "75", "S", "swapper/0", "0"))
	L("x-99", 1, "100.000030", "tracing_mark_write: end");
/* clang-format on */

Test(sched, a_switch_out_of_a_task_another_cpu_runs_changes_nothing)
{
	struct run r;
	run_open(&r, switched_out_elsewhere);
	r.a = trawl_sched_new(r.t, NULL, NULL);
	run_go(&r);
	const trawl_sched_report *s = trawl_sched_result(r.a);
	cr_assert_not_null(s);
	assert_task(task(s, 75), 1, 20, 0, 10, 1, 0, 0);
	assert_cpu(&s->cpus[0], 0, 20, 10, 2);
	assert_cpu(&s->cpus[1], 1, 0, 20, 1);
	run_done(&r);
}

/* Fail allocation N = 0, 1, ... until none fails: always a clean error. */
Test(sched, every_allocation_failure_is_a_clean_error)
{
	char *path = tmp_file(trace, strlen(trace));
	long n;
	for (n = 0; n < 10000; n++) {
		struct fault f = {.countdown = n};
		trawl_open_opts o = {.realloc = fault_realloc,
				     .alloc_ctx = &f,
				     .threads = 1};
		trawl_error err = {0};
		trawl_trace *t = trawl_open(path, &o, &err);
		if (!t) {
			cr_assert(f.fired, "%s", err.msg);
			continue;
		}
		trawl_analysis *a = trawl_sched_new(t, NULL, &err);
		if (!a) {
			cr_assert(f.fired, "%s", err.msg);
			cr_assert_eq(err.code, TRAWL_ENOMEM, "%s", err.msg);
			trawl_close(t);
			continue;
		}
		int rc = trawl_run(t, &err);
		const trawl_sched_report *s = rc ? NULL : trawl_sched_result(a);
		trawl_analysis_free(a);
		trawl_close(t);
		if (!f.fired) {
			cr_assert_eq(rc, 0, "%s", err.msg);
			cr_assert_not_null(s);
			break;
		}
		cr_assert(rc == 0 || rc == -TRAWL_ENOMEM, "allocation %ld: %d",
			  n, rc);
	}
	cr_expect_gt(n, 5, "the sweep reached the analysis");
	cr_expect_lt(n, 10000);
	unlink(path);
	free(path);
}

/*
 * Two tasks running for 6e18 ns each: every task's time fits, the overall
 * sum (1.2e19) does not and stays at INT64_MAX instead of wrapping.
 */
/* clang-format off */
static const char huge[] = "# tracer: nop\n"
	L("<idle>-0", 0, "0.000000", SW("swapper/0", "0", "R", "a", "10"))
	L("<idle>-0", 1, "0.000000", SW("swapper/1", "0", "R", "b", "20"))
	L("a-10", 0, "6000000000.000000", "tracing_mark_write: end");
/* clang-format on */

Test(sched, overall_times_saturate_instead_of_wrapping)
{
	struct run r;
	run_open(&r, huge);
	r.a = trawl_sched_new(r.t, NULL, NULL);
	run_go(&r);
	const trawl_sched_report *s = trawl_sched_result(r.a);
	cr_assert_not_null(s);
	cr_assert_eq(s->ntasks, 2);
	cr_expect_eq(task(s, 10)->run, 6000000000000000000LL);
	cr_expect_eq(task(s, 20)->run, 6000000000000000000LL);
	cr_expect_eq(s->overall.run, INT64_MAX);
	run_done(&r);
}
