/* SPDX-License-Identifier: MIT */
/*
 * The command a recording or a live script traces (trawl record -- CMD,
 * trawl run --live -- CMD): started with the signal mask it would have had,
 * watched, reaped, and stopped when tracing fails (cli-util.c).
 */
#ifndef TRAWL_CLI_CHILD_H
#define TRAWL_CLI_CHILD_H

#include <signal.h>
#include <sys/types.h>

struct cli_child {
	const char *argv0;
	pid_t pid;   /* 0: none */
	int exec_fd; /* read end: errno of a failed exec, or EOF */
	int status;  /* waitpid()'s, once done */
	int done;
};

/*
 * Start cmd with the signal mask old (the caller blocks what it waits
 * for) and, with stdout_to_stderr, its standard output on standard error.
 * Return: 0, or -errno when it could not start; then cli_exec_error().
 */
int cli_spawn(struct cli_child *ch, char **cmd, const sigset_t *old,
	      int stdout_to_stderr);
/* The errno of a failed exec, 0 when it ran (closes exec_fd). */
int cli_exec_error(struct cli_child *ch);
/* Reap it if it ended (block: wait until it does). */
void cli_reap(struct cli_child *ch, int block);
/* Tracing failed: SIGTERM, SIGKILL after 2 s, and say so. */
void cli_stop_child(struct cli_child *ch, const char *why);

#endif
