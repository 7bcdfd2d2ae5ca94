/* SPDX-License-Identifier: MIT */
/*
 * What trawl record does to the settings of a tracefs, on any directory:
 * each REL=VALUE is set through the recorder's journal (tw_tracefs_set,
 * which saves the old text first), then the journal is played back
 * (tw_tracefs_restore), as at the end of a --top-level recording. With a
 * stand-in tracefs tree this shows, without root and on any machine, what
 * trawl leaves behind for the forms the files read, a freshly booted
 * machine's "7 (expanded: 1408)" among them.
 *
 * usage: tracefs-journal DIR REL=VALUE...
 * Exit 0 when every setting was made and put back; 1 otherwise.
 */
#include <stdio.h>
#include <string.h>

#include "../../lib/live/live-int.h"

static int kind_of(const char *rel)
{
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	if (!strcmp(base, "buffer_size_kb"))
		return TW_SET_BUFFER_KB;
	if (!strcmp(base, "trace_clock"))
		return TW_SET_BRACKET;
	if (!strcmp(base, "filter"))
		return TW_SET_FILTER;
	return TW_SET_VALUE;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: tracefs-journal DIR REL=VALUE...\n");
		return 2;
	}
	tw_tracefs tf = {.top = argv[1], .dir = strdup(argv[1])};
	tw_mem_init(&tf.mem, NULL, NULL);
	int failed = 0;
	for (int i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq) {
			fprintf(stderr, "tracefs-journal: not REL=VALUE: %s\n",
				argv[i]);
			failed = 1;
			break;
		}
		*eq = '\0';
		trawl_error err;
		if (tw_tracefs_set(&tf, argv[i], eq + 1, kind_of(argv[i]),
				   &err) < 0) {
			fprintf(stderr, "tracefs-journal: %s\n", err.msg);
			failed = 1;
			break;
		}
	}
	int unrestored = tw_tracefs_restore(&tf);
	if (unrestored)
		fprintf(stderr, "tracefs-journal: %d settings not put back\n",
			unrestored);
	return failed || unrestored;
}
