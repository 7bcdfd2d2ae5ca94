/* SPDX-License-Identifier: MIT */
/*
 * trawl sched: run, runnable and sleep time, switches and migrations per
 * task, busy and idle per CPU (trawl_sched_new(), lib/analysis/sched.c).
 */
#include <getopt.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl sched FILE [--json|--csv] [--pid PID] [--comm "
		"NAME] [--from T]\n"
		"                   [--to T]\n\n"
		"Per task: times switched in (count), run time, runnable time "
		"(woken or\npreempted, waiting for a CPU), sleep time, "
		"switches out (and how many were\npreemptions), migrations. "
		"Per CPU: busy and idle time and the busy share.\n"
		"From sched_switch, sched_waking / sched_wakeup / "
		"sched_wakeup_new and\nsched_migrate_task. Nothing is assumed "
		"before a task's (or CPU's) first\nevent, so a trace that "
		"starts mid-way gives no invented time; the last\nstate runs "
		"to the end of the trace (or --to). Without wakeup events, "
		"waiting\nafter a wakeup counts as sleep. Migrations are "
		"sched_migrate_task events\nwhen traced, else switch-ins on "
		"another CPU than the last one.\n"
		"A CPU runs what its last sched_switch switched in until its "
		"next one,\nwhatever that one's prev_pid says (a lost event): "
		"the disagreement is an\nanomaly, and the tasks' run time "
		"never exceeds the CPUs' busy time.\n\n" CLI_ANALYSIS_HELP
		"                 (--worst has no effect here)\n"
		"  -h, --help     this text\n");
}

static const char *const task_cols[] = {
	"count",    "run",	 "runnable",   "sleep",
	"switches", "preempted", "migrations",
};

static void task_values(const trawl_sched_task *t, long long v[7])
{
	v[0] = (long long)t->count;
	v[1] = t->run;
	v[2] = t->runnable;
	v[3] = t->sleep;
	v[4] = (long long)t->switches;
	v[5] = (long long)t->preempted;
	v[6] = (long long)t->migrations;
}

static double busy_share(const trawl_sched_cpu *c)
{
	int64_t span = c->busy + c->idle;
	return span > 0 ? (double)c->busy / (double)span : 0.0;
}

static void json_task(FILE *f, const trawl_sched_task *t)
{
	long long v[7];
	task_values(t, v);
	for (size_t i = 0; i < 7; i++)
		fprintf(f, "%s\"%s\": %lld", i ? ", " : "", task_cols[i], v[i]);
}

static void print_json(FILE *f, const char *path, const trawl_sched_report *r)
{
	fputs("{\n  \"file\": ", f);
	json_string(f, path, strlen(path));
	fprintf(f,
		",\n  \"analysis\": \"sched\",\n  \"start\": %lld,\n  \"end\": "
		"%lld,\n  \"migrations_from\": \"%s\",\n  \"overall\": {",
		(long long)r->start, (long long)r->end, r->migrations_from);
	json_task(f, &r->overall);
	fputs("},\n  \"tasks\": [", f);
	for (size_t i = 0; i < r->ntasks; i++) {
		const trawl_sched_task *t = &r->tasks[i];
		fprintf(f, "%s\n    {\"pid\": %d, \"comm\": ", i ? "," : "",
			t->pid);
		json_string(f, t->comm, strlen(t->comm));
		fputs(", ", f);
		json_task(f, t);
		fputc('}', f);
	}
	fprintf(f, "%s],\n  \"cpus\": [", r->ntasks ? "\n  " : "");
	for (size_t i = 0; i < r->ncpus; i++) {
		const trawl_sched_cpu *c = &r->cpus[i];
		fprintf(f,
			"%s\n    {\"cpu\": %d, \"busy\": %lld, \"idle\": %lld, "
			"\"busy_share\": %.4f, \"switches\": %llu}",
			i ? "," : "", c->cpu, (long long)c->busy,
			(long long)c->idle, busy_share(c),
			(unsigned long long)c->switches);
	}
	fprintf(f, "%s],\n  \"anomalies\": [", r->ncpus ? "\n  " : "");
	for (size_t i = 0; i < r->nanomalies; i++) {
		fprintf(f, "%s\n    {\"what\": ", i ? "," : "");
		json_string(f, r->anomalies[i].what,
			    strlen(r->anomalies[i].what));
		fprintf(f, ", \"count\": %llu, \"first\": %lld}",
			(unsigned long long)r->anomalies[i].count,
			(long long)r->anomalies[i].first);
	}
	fprintf(f, "%s]\n}\n", r->nanomalies ? "\n  " : "");
}

static void csv_task(FILE *f, const char *kind, const trawl_sched_task *t)
{
	long long v[7];
	task_values(t, v);
	fprintf(f, "%s,", kind);
	if (t->pid >= 0)
		fprintf(f, "%d", t->pid);
	fputc(',', f);
	csv_field(f, t->comm, strlen(t->comm));
	for (size_t i = 0; i < 7; i++)
		fprintf(f, ",%lld", v[i]);
	fputs(",,\n", f);
}

static void print_csv(FILE *f, const trawl_sched_report *r)
{
	/* One table: task columns, and busy/idle filled on the cpu rows. */
	fputs("kind,id,comm", f);
	for (size_t i = 0; i < 7; i++)
		fprintf(f, ",%s", task_cols[i]);
	fputs(",busy,idle\n", f);
	csv_task(f, "overall", &r->overall);
	for (size_t i = 0; i < r->ntasks; i++)
		csv_task(f, "task", &r->tasks[i]);
	for (size_t i = 0; i < r->ncpus; i++) {
		const trawl_sched_cpu *c = &r->cpus[i];
		fprintf(f, "cpu,%d,,,,,,%llu,,,%lld,%lld\n", c->cpu,
			(unsigned long long)c->switches, (long long)c->busy,
			(long long)c->idle);
	}
}

static void text_comm(FILE *f, const char *s, int width)
{
	int n = 0;
	for (; *s && n < width; s++, n++)
		putc((unsigned char)*s < 0x20 ? '?' : *s, f);
	for (; n < width; n++)
		putc(' ', f);
}

static void text_task(FILE *f, const trawl_sched_task *t)
{
	fprintf(f, " %8llu", (unsigned long long)t->count);
	print_duration(f, 11, t->run);
	print_duration(f, 11, t->runnable);
	print_duration(f, 11, t->sleep);
	fprintf(f, " %8llu %9llu %10llu\n", (unsigned long long)t->switches,
		(unsigned long long)t->preempted,
		(unsigned long long)t->migrations);
}

static void print_text(FILE *f, const trawl_sched_report *r)
{
	fprintf(f, "sched: %zu tasks over ", r->ntasks);
	print_duration(f, 0, r->end - r->start);
	fputs(" (", f);
	print_time(f, r->start);
	fputs(" .. ", f);
	print_time(f, r->end);
	fprintf(f, "); migrations from %s\n\n", r->migrations_from);
	fprintf(f, "%8s %-16s %8s %10s %10s %10s %8s %9s %10s\n", "pid", "comm",
		"count", "run", "runnable", "sleep", "switches", "preempted",
		"migrations");
	for (size_t i = 0; i < r->ntasks; i++) {
		fprintf(f, "%8d ", r->tasks[i].pid);
		text_comm(f, r->tasks[i].comm, 16);
		text_task(f, &r->tasks[i]);
	}
	fprintf(f, "%8s ", "");
	text_comm(f, "(overall)", 16);
	text_task(f, &r->overall);
	fprintf(f, "\n%4s %10s %10s %7s %8s\n", "cpu", "busy", "idle", "busy%",
		"switches");
	for (size_t i = 0; i < r->ncpus; i++) {
		const trawl_sched_cpu *c = &r->cpus[i];
		fprintf(f, "%4d", c->cpu);
		print_duration(f, 11, c->busy);
		print_duration(f, 11, c->idle);
		fprintf(f, " %6.1f%% %8llu\n", 100.0 * busy_share(c),
			(unsigned long long)c->switches);
	}
	for (size_t i = 0; i < r->nanomalies; i++) {
		fprintf(f, "%s%s: %llu (first at ", i ? "" : "\n",
			r->anomalies[i].what,
			(unsigned long long)r->anomalies[i].count);
		print_time(f, r->anomalies[i].first);
		fputs(")\n", f);
	}
}

int cmd_sched(int argc, char **argv)
{
	struct cli_analysis c = {0};
	int status = cli_analysis_parse(&c, argc, argv, "sched", help);
	if (status >= 0)
		return status;
	c.needs_end = 1; /* the last state runs to the trace's last event */
	trawl_trace *t = cli_analysis_open(&c, &status);
	if (!t)
		return status;
	trawl_error err = {0};
	trawl_analysis *a = trawl_sched_new(t, &c.opts, &err);
	status = cli_analysis_run(t, a, &err);
	if (status == EXIT_OK) {
		const trawl_sched_report *r = trawl_sched_result(a);
		if (!r) {
			cli_error("%s: out of memory while finishing the "
				  "analysis",
				  c.path);
			status = EXIT_ENV;
		} else if (c.json) {
			print_json(stdout, c.path, r);
		} else if (c.csv) {
			print_csv(stdout, r);
		} else {
			print_text(stdout, r);
		}
	}
	trawl_analysis_free(a);
	trawl_close(t);
	return status;
}
