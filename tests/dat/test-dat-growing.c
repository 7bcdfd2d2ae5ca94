/* SPDX-License-Identifier: MIT */
/*
 * A version 7 file still being written, as trawl record writes it: each
 * CPU's batch is appended with an options section of its own, then the
 * previous section is pointed at it. A reader that mapped the file just
 * before the writer's last append finds the chain running past its map:
 * that is a file that grew, not one cut short, and it reads whole (the
 * reader maps it again). A long recording's chain has thousands of options
 * sections, one per CPU per second.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../helpers/helpers.h"

static void temp_path(char *path)
{
	int fd = mkstemp(path);
	cr_assert(fd >= 0, "mkstemp %s", path);
	close(fd);
}

Test(dat_growing, a_chain_of_thousands_of_options_sections_reads_whole)
{
	/* 2 CPUs x 2500 batches: 5000 options sections, more than a
	 * recording of half an hour on two CPUs adds */
	char path[] = "/tmp/trawl-growing-XXXXXX";
	temp_path(path);
	cr_assert_eq(synth_dat_stream(path, 2500, 0), 0);
	got g = {0};
	int rc = collect_path(path, NULL, &g);
	cr_assert_eq(rc, 0, "%s", g.err.msg);
	cr_assert_eq(g.n, (size_t)2500 * 2 * SYNTH_PER_PAGE);
	cr_assert_eq(g.stats.bad_lines, 0);
	got_free(&g);
	unlink(path);
}

Test(dat_growing, a_file_read_while_it_is_written_is_never_cut, .timeout = 120)
{
	char path[] = "/tmp/trawl-growing-XXXXXX";
	temp_path(path);
	const int batches = 3000;
	pid_t writer = fork();
	cr_assert(writer >= 0);
	if (writer == 0)
		_exit(synth_dat_stream(path, batches, 300) ? 1 : 0);
	size_t prev = 0;
	int reads = 0, status = 0;
	for (;;) {
		int done = waitpid(writer, &status, WNOHANG) == writer;
		got g = {0};
		int rc = collect_path(path, NULL, &g);
		/* before its first batch the file is not yet a trace (nor a
		 * trace.dat before its first options section); after it,
		 * every read is whole and holds at least as much */
		if (prev || (rc == 0 && g.n)) {
			cr_assert_eq(rc, 0, "read %d, after %zu events: %s",
				     reads, prev, g.err.msg);
			cr_assert_eq(g.stats.bad_lines, 0,
				     "read %d: damage at offset %llu", reads,
				     (unsigned long long)g.stats.bad_line[0]);
			cr_assert_geq(g.n, prev, "read %d", reads);
			cr_assert_eq(g.n % SYNTH_PER_PAGE, 0, "read %d", reads);
			prev = g.n;
			reads++;
		}
		got_free(&g);
		if (done)
			break;
	}
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the writer failed");
	cr_assert_eq(prev, (size_t)batches * 2 * SYNTH_PER_PAGE);
	cr_assert_geq(reads, 10, "only %d reads while the file grew", reads);
	unlink(path);
}
