/* SPDX-License-Identifier: MIT */
/*
 * count-events: the README's library example as a whole program. Opens a
 * trace (any format trawl reads), counts its events per type and the
 * switch-ins per next_pid of sched_switch, and prints them.
 *
 *	cc count-events.c $(pkg-config --cflags --libs trawl) -o count-events
 *	./count-events trace.dat
 *
 * Built and run against the installed library by tests/install/, so it
 * cannot rot.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <trawl/trawl.h>

struct state {
	trawl_field next_pid;
	uint64_t events;
	uint64_t switches;
	uint64_t switches_to[65536];
};

static int on_event(const trawl_event *ev, void *ctx)
{
	struct state *s = ctx;
	(void)ev;
	s->events++;
	return 0;
}

static int on_switch(const trawl_event *ev, void *ctx)
{
	struct state *s = ctx;
	s->switches++;
	s->switches_to[trawl_event_int(ev, s->next_pid) & 0xffff]++;
	return 0; /* nonzero stops the run */
}

int main(int argc, char **argv)
{
	static struct state s;
	int status = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: count-events FILE\n");
		return 2;
	}
	trawl_error err;
	trawl_trace *t = trawl_open(argv[1], NULL, &err); /* or trawl_open_fd */
	if (!t) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	/* a field handle: looked up once, by name, before the run */
	s.next_pid = trawl_field_lookup(t, "sched_switch", "next_pid");
	trawl_on(t, "*", on_event, &s);
	/* patterns: "sched_switch", "irq:*", "sched_*", "*" */
	trawl_on(t, "sched_switch", on_switch, &s);
	if (trawl_run(t, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		goto out;
	}

	printf("libtrawl %s (compiled with %s)\n", trawl_version(),
	       TRAWL_VERSION);
	printf("events %llu\n", (unsigned long long)s.events);
	for (uint32_t id = 0; id < trawl_type_count(t); id++)
		printf("type %s %llu\n", trawl_type_name(t, id),
		       (unsigned long long)trawl_type_events(t, id));
	printf("sched_switch %llu\n", (unsigned long long)s.switches);
	for (size_t pid = 0; pid < 65536; pid++)
		if (s.switches_to[pid])
			printf("switches_to %zu %llu\n", pid,
			       (unsigned long long)s.switches_to[pid]);
	status = 0;
out:
	trawl_close(t);
	return status;
}
