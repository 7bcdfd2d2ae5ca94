/* SPDX-License-Identifier: MIT */
/*
 * The perf.data reader on whatever bytes: a header, attrs, ids and feature
 * sections that lie about where they are, tracing data cut anywhere,
 * records of every kind with sizes and sample fields that do not fit.
 *
 * Input: the file itself (the seed is a real recording, made smaller).
 * A reads it from a mapped memfd (a tiny sort budget, so disorder spills),
 * B by path in strict mode: B must agree with A when A found no damage,
 * and fail with -TRAWL_EPARSE when it did. C gives it through a pipe
 * (spooled to a temporary file, the merge ahead on): the same as A;
 * pipe-mode files and perf record -z's compressed records come in the
 * seeds. Every event is
 * taken apart (fields by handle and by enumeration, text, copies) by
 * fuzz-common.h.
 */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fz_memfd(data, size);
	FUZZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	fz_run r;
	memset(&r, 0, sizeof(r));
	trawl_open_opts o;
	memset(&o, 0, sizeof(o));
	o.sort_memory = 1u << 16;
	trawl_error err;

	/* A: mapped; B: by path, strict */
	fz_result a;
	fz_mapped_and_strict(fd, size, &r, &o, &a);

	/* C: a pipe, read from the copy it is spooled to, with the merge
	 * handed to a second thread and back every few events: what A
	 * read */
	int pfd = fz_pipe(data, size);
	if (pfd >= 0) {
		o.flags = 0;
		memset(&err, 0, sizeof(err));
		fz_result c;
		setenv("TRAWL_MERGE_AHEAD", size % 2 ? "flip:3" : "on", 1);
		fz_run_trace(trawl_open_fd(pfd, "<pipe>", &o, &err), &err, &r,
			     &c);
		unsetenv("TRAWL_MERGE_AHEAD");
		close(pfd);
		fz_same(&a, &c, "mapped vs pipe");
	}
	return 0;
}
