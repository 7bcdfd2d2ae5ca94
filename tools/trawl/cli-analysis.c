/* SPDX-License-Identifier: MIT */
/*
 * What the analysis subcommands share: their options (--json, --csv, --pid,
 * --comm, --from, --to, --worst), time and duration arguments, and one writer
 * for results as aligned text tables, JSON (DESIGN.md: integer ns, an
 * "overall" object beside the rows) and CSV.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int unit_scale(const char *u, int64_t *scale)
{
	static const struct {
		const char *name;
		int64_t ns;
	} units[] = {{"ns", 1},
		     {"us", 1000},
		     {"ms", 1000000},
		     {"s", 1000000000},
		     {"sec", 1000000000}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(u, units[i].name)) {
			*scale = units[i].ns;
			return 0;
		}
	return -1;
}

/* "123.456789" with a scale for the integer part: exact, no floating point. */
static int parse_scaled(const char *s, int64_t default_scale, int64_t *out)
{
	const char *p = s;
	int neg = 0;
	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (!(*p >= '0' && *p <= '9') && *p != '.')
		return -1;
	uint64_t ip = 0, frac = 0, fscale = 1;
	int digits = 0;
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		if (ip > (uint64_t)INT64_MAX / 10)
			return -1;
		else
			ip = ip * 10 + (uint64_t)(*p - '0');
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (fscale < 1000000000000000000ull) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				fscale *= 10;
			}
	}
	if (!digits)
		return -1;
	int64_t scale = default_scale;
	if (*p && unit_scale(p, &scale))
		return -1;
	if (ip > (uint64_t)(INT64_MAX / scale))
		return -1;
	int64_t v = (int64_t)ip * scale;
	v += (int64_t)((double)frac * (double)scale / (double)fscale + 0.5);
	*out = neg ? -v : v;
	return 0;
}

int cli_parse_duration(const char *s, int64_t *ns)
{
	return parse_scaled(s, 1, ns) || *ns < 0 ? -1 : 0;
}

int cli_parse_time(const char *s, int64_t *ns)
{
	return parse_scaled(s, 1000000000, ns);
}

/* --pid A,B,...: the command's until it exits (opts.filter.pids) */
static int *pid_list;

int cli_analysis_option(struct cli_analysis *c, int opt, const char *arg)
{
	trawl_filter *f = &c->opts.filter;
	char *end;
	switch (opt) {
	case 0x200:
		c->json = 1;
		return 1;
	case 0x201:
		c->csv = 1;
		return 1;
	case 0x202: {
		/* one thread id, or a list of them: A,B,... */
		size_t n = 0;
		int *pids = NULL;
		const char *p = arg;
		for (;;) {
			long v = strtol(p, &end, 10);
			if (end == p || (*end && *end != ',') || v < 0 ||
			    v > INT32_MAX) {
				free(pids);
				cli_error("--pid takes a thread id or a list "
					  "of them (12,15), not '%s'",
					  arg);
				return -1;
			}
			int *np = realloc(pids, (n + 1) * sizeof(*np));
			if (!np) {
				free(pids);
				cli_error("out of memory");
				return -1;
			}
			pids = np;
			pids[n++] = (int)v;
			if (!*end)
				break;
			p = end + 1;
		}
		free(pid_list);
		pid_list = NULL;
		f->set &= ~(unsigned)(TRAWL_FILTER_PID | TRAWL_FILTER_PIDS);
		if (n == 1) {
			f->pid = pids[0];
			f->set |= TRAWL_FILTER_PID;
			free(pids);
		} else {
			pid_list = pids;
			f->pids = pids;
			f->npids = n;
			f->set |= TRAWL_FILTER_PIDS;
		}
		return 1;
	}
	case 0x203:
		f->comm = arg;
		f->set |= TRAWL_FILTER_COMM;
		return 1;
	case 0x204:
	case 0x205: {
		int64_t v;
		if (cli_parse_time(arg, &v)) {
			cli_error("--%s takes a trace time in seconds (as "
				  "shown: 4119.466128) or with a unit (ns, "
				  "us, ms, s), not '%s'",
				  opt == 0x204 ? "from" : "to", arg);
			return -1;
		}
		if (opt == 0x204) {
			f->from = v;
			f->set |= TRAWL_FILTER_FROM;
		} else {
			f->to = v;
			f->set |= TRAWL_FILTER_TO;
		}
		return 1;
	}
	case 0x206: {
		long v = strtol(arg, &end, 10);
		if (*end || end == arg || v < 1 || v > 10000) {
			cli_error("--worst takes a number from 1 to 10000, not "
				  "'%s'",
				  arg);
			return -1;
		}
		c->opts.worst = (unsigned)v;
		return 1;
	}
	}
	return cli_input_option(&c->input, opt, arg);
}

int cli_analysis_parse(struct cli_analysis *c, int argc, char **argv,
		       const char *cmd, void (*help)(FILE *))
{
	static const struct option opts[] = {
		CLI_ANALYSIS_LONG_OPTIONS,
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int o;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (o == 'h') {
			help(stdout);
			return EXIT_OK;
		}
		int rc = cli_analysis_option(c, o, optarg);
		if (rc == 1)
			continue;
		if (rc == 0)
			help(stderr);
		return EXIT_INPUT;
	}
	int status = cli_analysis_args(c, argc, argv, cmd);
	return status ? status : -1;
}

int cli_analysis_args(struct cli_analysis *c, int argc, char **argv,
		      const char *cmd)
{
	if (c->json && c->csv) {
		cli_error("%s: choose one of --json and --csv", cmd);
		return EXIT_INPUT;
	}
	if ((c->opts.filter.set & TRAWL_FILTER_FROM) &&
	    (c->opts.filter.set & TRAWL_FILTER_TO) &&
	    c->opts.filter.to < c->opts.filter.from) {
		cli_error("%s: --to is before --from", cmd);
		return EXIT_INPUT;
	}
	if (optind != argc - 1) {
		cli_error("%s needs exactly one FILE (or - for standard "
			  "input); see `trawl %s --help`",
			  cmd, cmd);
		return EXIT_INPUT;
	}
	c->path = argv[optind];
	return EXIT_OK;
}

void print_duration(FILE *f, int width, int64_t ns)
{
	char buf[32];
	if (ns < 1000)
		snprintf(buf, sizeof(buf), "%lld ns", (long long)ns);
	else if (ns < 1000000)
		snprintf(buf, sizeof(buf), "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, sizeof(buf), "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, sizeof(buf), "%.3f s", (double)ns / 1e9);
	fprintf(f, "%*s", width, buf);
}

/* Nothing measured has no minimum, percentiles or maximum: null, an empty
 * CSV cell, "-", not 0. */
static void json_summary(FILE *f, const trawl_summary *s)
{
	if (!s->count) {
		fputs("\"count\": 0, \"min\": null, \"p50\": null, "
		      "\"p90\": null, \"p99\": null, \"max\": null, "
		      "\"total\": 0",
		      f);
		return;
	}
	fprintf(f,
		"\"count\": %llu, \"min\": %lld, \"p50\": %lld, \"p90\": %lld, "
		"\"p99\": %lld, \"max\": %lld, \"total\": %lld",
		(unsigned long long)s->count, (long long)s->min,
		(long long)s->p50, (long long)s->p90, (long long)s->p99,
		(long long)s->max, (long long)s->total);
}

static void text_summary(FILE *f, const trawl_summary *s, int values)
{
	fprintf(f, " %8llu", (unsigned long long)s->count);
	const int64_t v[] = {s->min, s->p50, s->p90, s->p99, s->max};
	for (size_t i = 0; i < 5; i++)
		if (!s->count)
			fprintf(f, " %*s", values ? 9 : 10, "-");
		else if (values) /* counters: plain numbers, not durations */
			fprintf(f, " %9lld", (long long)v[i]);
		else
			print_duration(f, 10, v[i]);
}

static void text_name(FILE *f, const char *name, int width)
{
	/* Trace text may hold control bytes: keep the table readable. */
	int n = 0;
	for (const char *p = name; *p && n < width; p++, n++)
		putc((unsigned char)*p < 0x20 ? '?' : *p, f);
	for (; n < width; n++)
		putc(' ', f);
}

/*
 * A row's share of its CPU's known time: the sum of the totals of the
 * rows of that CPU (residency rows come grouped by CPU, so one pass).
 * Return: the shares, r->nrows of them, or NULL (out of memory).
 */
static double *shares(const trawl_result *r)
{
	double *s = malloc((r->nrows ? r->nrows : 1) * sizeof(*s));
	if (!s)
		return NULL;
	for (size_t i = 0, j; i < r->nrows; i = j) {
		double span = 0;
		for (j = i; j < r->nrows && r->rows[j].cpu == r->rows[i].cpu;
		     j++)
			span += (double)r->rows[j].s.total;
		for (size_t k = i; k < j; k++)
			s[k] = span > 0 ? (double)r->rows[k].s.total / span : 0;
	}
	return s;
}

static void print_rows_text(FILE *f, const trawl_result *r,
			    const struct cli_rows *st, const double *share)
{
	int namew = 16;
	for (size_t i = 0; i < r->nrows; i++) {
		int n = (int)strlen(r->rows[i].name);
		if (n > namew)
			namew = n > 40 ? 40 : n;
	}
	fprintf(f, "%s: %llu %s (%zu rows)\n\n", r->name,
		(unsigned long long)r->overall.count, st->what, r->nrows);
	if (st->kind)
		fprintf(f, "%-8s ", "kind");
	if (st->id_key)
		fprintf(f, "%8s ", st->id_key);
	if (st->cpu)
		fprintf(f, "%4s ", "cpu");
	fprintf(f, "%-*s %8s %9s %9s %9s %9s %9s", namew, st->name_key, "count",
		"min", "p50", "p90", "p99", "max");
	if (st->self)
		fprintf(f, " %9s %5s", "self", "depth");
	if (share)
		fprintf(f, " %10s %6s", "total", "share");
	fputs("  max at\n", f);
	for (size_t i = 0; i < r->nrows; i++) {
		const trawl_row *row = &r->rows[i];
		if (st->kind)
			fprintf(f, "%-8s ", row->kind);
		if (st->id_key) {
			if (row->id >= 0)
				fprintf(f, "%8lld ", (long long)row->id);
			else
				fprintf(f, "%8s ", "-");
		}
		if (st->cpu)
			fprintf(f, "%4d ", row->cpu);
		text_name(f, row->name, namew);
		text_summary(f, &row->s, st->values);
		if (st->self) {
			print_duration(f, 10, row->self);
			fprintf(f, " %5d", row->depth);
		}
		if (share) {
			print_duration(f, 11, row->s.total);
			fprintf(f, " %5.1f%%", 100 * share[i]);
		}
		fputs("  ", f);
		print_time(f, row->max_at);
		fputc('\n', f);
	}
	if (st->kind)
		fprintf(f, "%-8s ", "");
	if (st->id_key)
		fprintf(f, "%8s ", "");
	if (st->cpu)
		fprintf(f, "%4s ", "");
	text_name(f, "(overall)", namew);
	text_summary(f, &r->overall, st->values);
	fputc('\n', f);
	if (r->nworst) {
		fprintf(f, "\n%s %zu:\n%-20s %-20s %8s %4s %-*s %10s\n",
			share ? "longest" : "worst", r->nworst, st->start_label,
			st->end_label, share ? "" : "pid", "cpu", namew,
			st->name_key, "duration");
		for (size_t i = 0; i < r->nworst; i++) {
			const trawl_instance *in = &r->worst[i];
			print_time(f, in->start);
			fputs("       ", f);
			print_time(f, in->end);
			if (share)
				fprintf(f, "       %8s %4d ", "", in->cpu);
			else
				fprintf(f, "       %8d %4d ", in->pid, in->cpu);
			text_name(f, in->name, namew);
			print_duration(f, 11, in->end - in->start);
			fputc('\n', f);
		}
	}
	for (size_t i = 0; i < r->nanomalies; i++) {
		fprintf(f, "%s: %llu (first at ", r->anomalies[i].what,
			(unsigned long long)r->anomalies[i].count);
		print_time(f, r->anomalies[i].first);
		fputs(")\n", f);
	}
}

static void print_rows_json(FILE *f, const trawl_result *r,
			    const struct cli_rows *st, const char *indent,
			    const double *share)
{
	fprintf(f, "%s\"overall\": {", indent);
	json_summary(f, &r->overall);
	fprintf(f, "},\n%s\"%s\": [", indent, st->rows_key);
	for (size_t i = 0; i < r->nrows; i++) {
		const trawl_row *row = &r->rows[i];
		fprintf(f, "%s\n%s  {", i ? "," : "", indent);
		if (st->kind)
			fprintf(f, "\"kind\": \"%s\", ", row->kind);
		if (st->id_key)
			fprintf(f, "\"%s\": %lld, ", st->id_key,
				(long long)row->id);
		if (st->cpu)
			fprintf(f, "\"cpu\": %d, ", row->cpu);
		fprintf(f, "\"%s\": ", st->name_key);
		json_string(f, row->name, strlen(row->name));
		fputs(", ", f);
		json_summary(f, &row->s);
		if (st->self)
			fprintf(f, ", \"self\": %lld, \"depth\": %d",
				(long long)row->self, row->depth);
		if (share)
			fprintf(f, ", \"share\": %.6f", share[i]);
		fprintf(f, ", \"max_at\": %lld}", (long long)row->max_at);
	}
	fprintf(f, "%s],\n%s\"worst\": [", r->nrows ? "\n" : "", indent);
	for (size_t i = 0; i < r->nworst; i++) {
		const trawl_instance *in = &r->worst[i];
		fprintf(f,
			"%s\n%s  {\"start\": %lld, \"end\": %lld, "
			"\"duration\": %lld, ",
			i ? "," : "", indent, (long long)in->start,
			(long long)in->end, (long long)(in->end - in->start));
		if (!share)
			fprintf(f, "\"pid\": %d, ", in->pid);
		fprintf(f, "\"cpu\": %d, ", in->cpu);
		if (in->kind)
			fprintf(f, "\"kind\": \"%s\", ", in->kind);
		if (st->worst_id_key)
			fprintf(f, "\"%s\": %lld, ", st->worst_id_key,
				(long long)in->id);
		fprintf(f, "\"%s\": ", st->name_key);
		json_string(f, in->name, strlen(in->name));
		fputc('}', f);
	}
	fprintf(f, "%s],\n%s\"anomalies\": [", r->nworst ? "\n" : "", indent);
	for (size_t i = 0; i < r->nanomalies; i++) {
		fprintf(f, "%s\n%s  {\"what\": ", i ? "," : "", indent);
		json_string(f, r->anomalies[i].what,
			    strlen(r->anomalies[i].what));
		fprintf(f, ", \"count\": %llu, \"first\": %lld}",
			(unsigned long long)r->anomalies[i].count,
			(long long)r->anomalies[i].first);
	}
	fprintf(f, "%s]", r->nanomalies ? "\n" : "");
}

static void csv_summary(FILE *f, const trawl_summary *s)
{
	if (!s->count) {
		fputs(",0,,,,,,0", f);
		return;
	}
	fprintf(f, ",%llu,%lld,%lld,%lld,%lld,%lld,%lld",
		(unsigned long long)s->count, (long long)s->min,
		(long long)s->p50, (long long)s->p90, (long long)s->p99,
		(long long)s->max, (long long)s->total);
}

static void print_rows_csv(FILE *f, const trawl_result *r,
			   const struct cli_rows *st, int header, int multi,
			   int self, const double *share)
{
	if (header) {
		/* Several parts share one table: generic column names. */
		if (multi)
			fputs("part,kind,id,cpu,name", f);
		else
			fprintf(f, "kind,%s,cpu,%s",
				st->id_key ? st->id_key : "id", st->name_key);
		fprintf(f, ",count,min,p50,p90,p99,max,total,max_at%s%s\n",
			self ? ",self,depth" : "", share ? ",share" : "");
	}
	/* The overall row first: kind "overall", no id, cpu or name. */
	if (multi)
		fprintf(f, "%s,", r->name);
	fputs("overall,,,", f);
	csv_summary(f, &r->overall);
	fputs(self ? ",,," : ",", f);
	fputs(share ? ",\n" : "\n", f);
	for (size_t i = 0; i < r->nrows; i++) {
		const trawl_row *row = &r->rows[i];
		if (multi)
			fprintf(f, "%s,", r->name);
		fprintf(f, "%s,", row->kind);
		if (row->id >= 0)
			fprintf(f, "%lld", (long long)row->id);
		fputc(',', f);
		if (row->cpu >= 0)
			fprintf(f, "%d", row->cpu);
		fputc(',', f);
		csv_field(f, row->name, strlen(row->name));
		csv_summary(f, &row->s);
		fprintf(f, ",%lld", (long long)row->max_at);
		if (self)
			fprintf(f, ",%lld,%d", (long long)row->self,
				row->depth);
		if (share)
			fprintf(f, ",%.6f", share[i]);
		fputc('\n', f);
	}
}

int cli_print_results(trawl_analysis *a, const struct cli_analysis *c,
		      const struct cli_rows *styles, const char *extra_json)
{
	FILE *f = stdout;
	const trawl_result *parts[4];
	unsigned n = 0;
	while (n < 4 && (parts[n] = trawl_analysis_result(a, n)))
		n++;
	if (!n) {
		cli_error("%s: out of memory while finishing the analysis",
			  c->path);
		return EXIT_ENV;
	}
	double *share[4] = {NULL};
	for (unsigned i = 0; i < n; i++)
		if (styles[i].share && !(share[i] = shares(parts[i]))) {
			for (unsigned k = 0; k < i; k++)
				free(share[k]);
			cli_error("%s: out of memory", c->path);
			return EXIT_ENV;
		}
	if (c->json) {
		fputs("{\n  \"file\": ", f);
		json_string(f, c->path, strlen(c->path));
		fprintf(f, ",\n  \"analysis\": \"%s\",\n", parts[0]->name);
		if (extra_json)
			fputs(extra_json, f);
		print_rows_json(f, parts[0], &styles[0], "  ", share[0]);
		for (unsigned i = 1; i < n; i++) {
			fprintf(f, ",\n  \"%s\": {\n", parts[i]->name);
			print_rows_json(f, parts[i], &styles[i], "    ",
					share[i]);
			fputs("\n  }", f);
		}
		fputs("\n}\n", f);
	} else if (c->csv) {
		int self = 0;
		for (unsigned i = 0; i < n; i++)
			self |= styles[i].self;
		for (unsigned i = 0; i < n; i++)
			print_rows_csv(f, parts[i], &styles[i], i == 0, n > 1,
				       self, share[i]);
	} else {
		for (unsigned i = 0; i < n; i++) {
			if (i)
				fputc('\n', f);
			print_rows_text(f, parts[i], &styles[i], share[i]);
		}
	}
	for (unsigned i = 0; i < n; i++)
		free(share[i]);
	return EXIT_OK;
}

trawl_trace *cli_analysis_open(struct cli_analysis *c, int *status)
{
	/* --from/--to hide what is outside them from the analysis, as if the
	 * trace began and ended there: a ranged run reads only that part
	 * (where the format can be entered at a time) and delivers the same */
	struct cli_input in = c->input;
	const trawl_filter *f = &c->opts.filter;
	if (f->set & (TRAWL_FILTER_FROM | TRAWL_FILTER_TO)) {
		in.flags |= TRAWL_OPEN_RANGE;
		in.from = f->set & TRAWL_FILTER_FROM ? f->from : INT64_MIN;
		in.to = f->set & TRAWL_FILTER_TO && !c->needs_end ? f->to
								  : INT64_MAX;
	}
	return cli_open(c->path, &in, status);
}

int cli_analysis_run(trawl_trace *t, const trawl_analysis *a,
		     const trawl_error *err)
{
	if (!a) {
		cli_error("%s", err->msg);
		return EXIT_ENV;
	}
	return cli_run(t);
}
