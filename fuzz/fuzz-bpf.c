/* SPDX-License-Identifier: MIT */
/*
 * The BPF back end on generated scripts: the input bytes are the choices
 * of a generator of valid scripts (event probes on a few tracepoints,
 * predicates, integer and string expressions, $vars, maps of every kind
 * keyed by integers, strings, kstacks and tuples, delete, printf, exit,
 * time(), uid, gid, kernel struct members through curtask by BTF),
 * compiled with --backend bpf against a live session, which loads the
 * programs into the kernel. Checks: each compiles and the kernel's verifier
 * accepts each program, or the compiler refuses it cleanly (TRAWL_EUNSUPPORTED,
 * naming the construct); a verifier refusal of a program the back end
 * emitted is a bug. Without root, tracefs or BPF every input passes.
 */
#include <stdarg.h>
#include <trawl/live.h>
#include <trawl/script.h>

#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct gen {
	const uint8_t *d;
	size_t n, at;
	char out[16384];
	size_t len;
	int ev;	   /* the probe's event */
	int nvars; /* $v0 .. assigned so far in this probe */
} gen;

static unsigned pick(gen *g, unsigned k)
{
	unsigned v = g->at < g->n ? g->d[g->at++] : 0;
	return k ? v % k : 0;
}

__attribute__((format(printf, 2, 3))) static void put(gen *g, const char *fmt,
						      ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(g->out + g->len, sizeof(g->out) - g->len, fmt, ap);
	va_end(ap);
	if (w > 0 && (size_t)w < sizeof(g->out) - g->len)
		g->len += (size_t)w;
}

/* each event's integer fields and string expressions (a syscall's char *
 * argument read from the task's memory by str()), and what join() takes */
static const struct {
	const char *name;
	const char *ints[5];
	const char *strs[2];
	const char *argv;
} events[] = {
	{"syscalls:sys_enter_getppid", {"__syscall_nr"}, {NULL}, NULL},
	{"syscalls:sys_exit_getppid", {"__syscall_nr", "ret"}, {NULL}, NULL},
	{"sched:sched_switch",
	 {"prev_pid", "prev_prio", "prev_state", "next_pid", "next_prio"},
	 {"args.prev_comm", "args.next_comm"},
	 NULL},
	{"sched:sched_process_exec",
	 {"pid", "old_pid"},
	 {"args.filename"},
	 NULL},
	{"sched:sched_process_fork",
	 {"parent_pid", "child_pid"},
	 {"args.parent_comm", "args.child_comm"},
	 NULL},
	{"syscalls:sys_enter_openat",
	 {"dfd", "flags", "mode"},
	 {"str(args.filename)"},
	 NULL},
	{"syscalls:sys_enter_execve",
	 {"__syscall_nr"},
	 {"str(args.filename)"},
	 "args.argv"},
};

static size_t count(const char *const *a, size_t max)
{
	size_t n = 0;
	while (n < max && a[n])
		n++;
	return n;
}

static void gint(gen *g, int depth);

static void gstr(gen *g)
{
	size_t ns = count(events[g->ev].strs, 2);
	switch (pick(g, 4)) {
	case 0:
		put(g, pick(g, 4)   ? "comm"
		       : pick(g, 2) ? "curtask->real_parent->comm"
				    : "ksym(curtask->start_time)");
		break;
	case 1: {
		static const char *const lits[] = {"perl", "", "swapper/0",
						   "a longer string here"};
		put(g, "\"%s\"", lits[pick(g, 4)]);
		break;
	}
	case 2:
		if (ns) {
			put(g, "%s", events[g->ev].strs[pick(g, (unsigned)ns)]);
			break;
		}
		/* fall through */
	default:
		put(g, "(");
		gint(g, 2);
		put(g, " ? comm : \"x\")");
	}
}

static void gint(gen *g, int depth)
{
	static const char *const ctx[] = {
		"pid",
		"tid",
		"cpu",
		"nsecs",
		"tgid",
		"elapsed",
		"usecs",
		"uid",
		"gid",
		/* kernel memory through the kernel's BTF */
		"curtask->pid",
		"curtask->real_parent->tgid",
		"curtask->se.on_rq",
		"((struct task_struct *)curtask)->prio",
		"TASK_COMM_LEN",
		/* kernel memory at a symbol's address */
		/* in parentheses: a predicate's "/" then "*" opens a
		 * comment, as in bpftrace */
		"(*kaddr(\"_stext\"))",
		"(*(kaddr(\"_stext\") + 16))",
	};
	static const char *const ops[] = {
		"+",  "-",  "*",  "/", "%", "&",  "|",	"^",  "<<",
		">>", "==", "!=", "<", ">", "<=", ">=", "&&", "||"};
	unsigned k = pick(g, depth > 0 ? 9 : 4);
	size_t ni = count(events[g->ev].ints, 5);
	switch (k) {
	case 0: {
		static const long long lits[] = {
			0, 1, -1, 7, 1000000, -5000000000ll, 63, 64};
		put(g, "%lld", lits[pick(g, 8)]);
		return;
	}
	case 1:
		put(g, "%s",
		    ctx[pick(g, (unsigned)(sizeof(ctx) / sizeof(*ctx)))]);
		return;
	case 2:
		put(g, "args.%s", events[g->ev].ints[pick(g, (unsigned)ni)]);
		return;
	case 3:
		if (g->nvars) {
			put(g, "$v%u", pick(g, (unsigned)g->nvars));
			return;
		}
		put(g, "%u", pick(g, 100));
		return;
	case 4:
	case 5:
		put(g, "(");
		gint(g, depth - 1);
		put(g, " %s ", ops[pick(g, 18)]);
		gint(g, depth - 1);
		put(g, ")");
		return;
	case 6:
		put(g, "%s(", (const char *[]){"-", "!", "~"}[pick(g, 3)]);
		gint(g, depth - 1);
		put(g, ")");
		return;
	case 7:
		put(g, "(");
		gstr(g);
		put(g, " %s ",
		    (const char *[]){"==", "!=", "<", "<=", ">",
				     ">="}[pick(g, 6)]);
		gstr(g);
		put(g, ")");
		return;
	default:
		/* an integer map, keyed by one integer */
		put(g, "@i[");
		gint(g, depth - 1);
		put(g, "]");
		return;
	}
}

/* Maps by kind, each with fixed key types: @c count [int], @s sum
 * [str, int], @h hist [], @l lhist [int], @m min [str], @x max [],
 * @a avg [int], @t stats [str], @i int [int], @z str [int], @k count
 * [kstack(3)], @kv kstack [int]. */
static void gstmt(gen *g, int depth)
{
	switch (pick(g, depth > 0 ? 10 : 8)) {
	case 0:
		if (pick(g, 4) == 0) {
			/* kstack: a key, a value, a printf argument */
			put(g, "@k[kstack(3)] = count(); @kv[cpu] = kstack; ");
			if (pick(g, 2))
				put(g, "printf(\"%%s\\n\", kstack(2)); ");
			if (pick(g, 4) == 0)
				put(g, "time(\"%%H:%%M:%%S \"); ");
			return;
		}
		put(g, "@c[");
		gint(g, 2);
		put(g, "] = count(); ");
		return;
	case 1:
		put(g, "@s[");
		gstr(g);
		put(g, ", ");
		gint(g, 1);
		put(g, "] = sum(");
		gint(g, 2);
		put(g, "); ");
		return;
	case 2:
		put(g, "@h = hist(");
		gint(g, 3);
		put(g, "); ");
		return;
	case 3: {
		static const char *const agg[] = {"min", "max", "avg", "stats"};
		static const char *const name[] = {"@m[comm]", "@x", "@a[cpu]",
						   "@t[comm]"};
		unsigned a = pick(g, 4);
		put(g, "%s = %s(", name[a], agg[a]);
		gint(g, 2);
		put(g, "); ");
		return;
	}
	case 4:
		put(g, "@l[");
		gint(g, 1);
		put(g, "] = lhist(");
		gint(g, 2);
		put(g, ", -10, 120, 5); "); /* one min, max, step per map */
		return;
	case 5:
		if (g->nvars < 8) {
			put(g, "$v%d = ", g->nvars);
			gint(g, 3);
			put(g, "; ");
			g->nvars++;
			return;
		}
		/* fall through */
	case 6:
		put(g, "@i[");
		gint(g, 1);
		put(g, pick(g, 2) ? "] = " : "] += ");
		gint(g, 2);
		put(g, "; ");
		if (pick(g, 2)) {
			put(g, "delete(@i[");
			gint(g, 1);
			put(g, "]); ");
		}
		return;
	case 7:
		put(g, "@z[");
		gint(g, 1);
		put(g, "] = ");
		gstr(g);
		put(g, "; printf(\"%%d %%s %%-5d|\\n\", ");
		gint(g, 2);
		put(g, ", ");
		gstr(g);
		put(g, ", ");
		gint(g, 1);
		put(g, "); ");
		return;
	case 8:
		put(g, "if (");
		gint(g, 2);
		put(g, ") { ");
		gstmt(g, depth - 1);
		put(g, "} else { ");
		gstmt(g, depth - 1);
		put(g, "} ");
		return;
	case 9:
		if (events[g->ev].argv) {
			put(g, pick(g, 2) ? "join(%s); " : "join(%s, \",\"); ",
			    events[g->ev].argv);
			return;
		}
		/* fall through */
	default:
		if (pick(g, 8) == 0)
			put(g, "exit(); ");
		else
			gstmt(g, depth - 1);
	}
}

static void generate(gen *g)
{
	/* @i may be read before any probe assigns it */
	put(g, "BEGIN { @i[0] = 0; }\n");
	unsigned probes = 1 + pick(g, 3);
	for (unsigned p = 0; p < probes; p++) {
		g->ev = (int)pick(
			g, (unsigned)(sizeof(events) / sizeof(events[0])));
		g->nvars = 0;
		put(g, "tracepoint:%s ", events[g->ev].name);
		if (pick(g, 2)) {
			put(g, "/");
			gint(g, 2);
			put(g, "/ ");
		}
		put(g, "{ ");
		unsigned n = 1 + pick(g, 4);
		for (unsigned s = 0; s < n; s++)
			gstmt(g, 2);
		put(g, "}\n");
	}
	/* a perf event's program: the task's context, no args; an interval
	 * probe that reads kernel memory (no task's context) */
	if (pick(g, 4) == 0)
		put(g,
		    "%s { @c[cpu] = count(); @i[tid] = *kaddr(\"_stext\"); "
		    "@z[tgid] = comm; }\n",
		    pick(g, 2) ? "profile:hz:49" : "software:cs:10");
	if (pick(g, 4) == 0)
		put(g, "interval:ms:50 { @i[1] = *kaddr(\"_stext\"); "
		       "@c[2] = count(); }\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static trawl_live *lv;
	static int unusable;
	if (unusable)
		return 0;
	if (!lv) {
		trawl_live_opts lo = {0};
		trawl_error err;
		lv = trawl_live_open(&lo, &err);
		if (!lv) {
			fprintf(stderr,
				"fuzz-bpf: no live session (%s): every "
				"input passes\n",
				err.msg);
			unusable = 1;
			return 0;
		}
	}
	gen *g = calloc(1, sizeof(*g));
	FUZZ_CHECK(g, "out of memory");
	g->d = data;
	g->n = size;
	generate(g);
	trawl_script_opts so = {
		.name = "gen.tw", .map_size = 16, .backend = TRAWL_BACKEND_BPF};
	trawl_error err;
	memset(&err, 0, sizeof(err));
	trawl_script *s = trawl_script_compile(trawl_live_trace(lv), g->out,
					       g->len, &so, &err);
	if (!s && err.code == TRAWL_EENV && !strstr(err.msg, "refused")) {
		fprintf(stderr,
			"fuzz-bpf: BPF is not usable (%s): every input "
			"passes\n",
			err.msg);
		unusable = 1;
	} else if (!s) {
		FUZZ_CHECK(err.code == TRAWL_EUNSUPPORTED,
			   "a generated script failed with code %d: %s\n%s",
			   err.code, err.msg, g->out);
		FUZZ_CHECK(!strstr(err.msg, "the kernel refused"),
			   "the verifier refused a program the back end made: "
			   "%s\n%s",
			   err.msg, g->out);
		FUZZ_CHECK(strncmp(err.msg, "gen.tw:", 7) == 0,
			   "a refusal without the script's name: %s", err.msg);
	}
	trawl_script_free(s);
	free(g);
	return 0;
}
