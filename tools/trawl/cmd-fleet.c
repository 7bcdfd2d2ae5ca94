/* SPDX-License-Identifier: MIT */
/*
 * trawl fleet: a script over many traces at once, on Dask. The work is the
 * trawl Python package's (python/trawl/fleet.py: a LocalCluster or a
 * scheduler, one task per trace, one table back); this command runs
 * `python3 -m trawl.fleet` with the interpreter trawl was built for and a
 * PYTHONPATH that finds the package: the build tree's python/ when this
 * trawl is the build tree's, else where `meson install` put it.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "trawl-python.h"

static void help(FILE *f)
{
	fprintf(f,
		"usage: trawl fleet SCRIPT.tw DIR|GLOB|FILE... [options]\n"
		"       trawl fleet -e 'PROGRAM' DIR|GLOB|FILE... [options]\n\n"
		"Runs a script (as `trawl run`) over every trace of the "
		"directories, globs\nand files given, in parallel on Dask: a "
		"local cluster of worker processes,\nor the scheduler at "
		"--scheduler. Prints the maps of all traces as one CSV\n"
		"table, with the trace's path and the map's name first "
		"(trace, map, key...,\nvalue). A trace that cannot be read is "
		"reported on stderr, and the others\ngo on.\n\n"
		"  trawl fleet -e 'sched:sched_switch { @[args.prev_comm] = "
		"count(); }' traces/\n\n"
		"  -e, --program      SCRIPT is the program itself\n"
		"  --workers N        local worker processes (default: the "
		"CPUs)\n"
		"  --scheduler ADDR   a Dask scheduler (tcp://host:8786) whose "
		"workers have the\n"
		"                     trawl package; 'serial': no Dask, one "
		"trace after another\n"
		"  --json             JSON records, one a line, instead of "
		"CSV\n"
		"  --formats PATH     event formats for text traces (as "
		"`trawl run`)\n"
		"  -h, --help         this text\n\n"
		"Needs the trawl Python package and python3-dask, "
		"python3-distributed\n(docs/python.md); TRAWL_PYTHON names "
		"another interpreter. Exit status: 0,\n1 when a trace failed "
		"or bad usage, 2 when Python or the package cannot\nbe "
		"run.\n");
}

/* Whether this program is the build tree's trawl. */
static int in_build_tree(void)
{
	char exe[PATH_MAX], root[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || !realpath(TRAWL_BUILD_ROOT, root))
		return 0;
	exe[n] = '\0';
	size_t rl = strlen(root);
	return !strncmp(exe, root, rl) && exe[rl] == '/';
}

int cmd_fleet(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help(stdout);
			return EXIT_OK;
		}
	if (argc < 3) {
		help(stderr);
		return EXIT_INPUT;
	}
	const char *python = getenv("TRAWL_PYTHON");
	if (!python || !*python)
		python = TRAWL_PYTHON;
	if (!*python) {
		cli_error("fleet: this trawl was built where no Python was "
			  "found; set TRAWL_PYTHON to an interpreter with the "
			  "trawl package");
		return EXIT_ENV;
	}
	/* built without the module: the package comes from the
	 * interpreter's own path (pip install .) */
	const char *dir = !*TRAWL_PYTHON_INSTALL_DIR ? ""
			  : in_build_tree()	     ? TRAWL_PYTHON_BUILD_DIR
						     : TRAWL_PYTHON_INSTALL_DIR;
	const char *old = getenv("PYTHONPATH");
	char *path = NULL;
	if (*dir && (asprintf(&path, "%s%s%s", dir, old && *old ? ":" : "",
			      old ? old : "") < 0 ||
		     setenv("PYTHONPATH", path, 1))) {
		cli_error("fleet: out of memory");
		return EXIT_ENV;
	}
	free(path);
	char **args = calloc((size_t)argc + 3, sizeof(*args));
	if (!args) {
		cli_error("fleet: out of memory");
		return EXIT_ENV;
	}
	args[0] = (char *)python;
	args[1] = "-m";
	args[2] = "trawl.fleet";
	for (int i = 1; i < argc; i++)
		args[i + 2] = argv[i];
	fflush(NULL);
	execv(python, args);
	cli_error("fleet: cannot run %s: %s", python, strerror(errno));
	free(args);
	return EXIT_ENV;
}
