/* SPDX-License-Identifier: MIT */
/* An unlinked temporary file (util.h's tw_temp_fd()). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

int tw_temp_fd(const char *dir, const char *name)
{
	/* O_TMPFILE where the filesystem has it: never seen by a name */
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		char path[300];
		snprintf(path, sizeof(path), "%s/%s-XXXXXX", dir, name);
		fd = mkstemp(path);
		if (fd >= 0)
			unlink(path);
	}
	return fd;
}
