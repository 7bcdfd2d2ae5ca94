/* SPDX-License-Identifier: MIT */
/*
 * The formats bundled in libtrawl: kernel-formats.zst, every format of the
 * kernel gen-kernel-formats.sh ran on (2323 of Linux 6.18, 2 MB of text,
 * 90 KB compressed), embedded by embed-blob.py. Each set decompresses its
 * own copy, so there is no shared state to guard.
 */
#include "../core/core.h"
#include "formats-int.h"

/* kernel-formats-blob.c, generated at build time */
extern const unsigned char tw_kernel_formats_zst[]
	__attribute__((visibility("hidden")));
extern const uint64_t tw_kernel_formats_zst_size
	__attribute__((visibility("hidden")));

#define BUNDLED_NAME "<bundled formats>"

int tw_format_set_bundled(const tw_mem *mem, tw_format_set **out,
			  trawl_error *err)
{
	if (out)
		*out = NULL;
	if (!mem || !out)
		return tw_error_at(err, TRAWL_EMISUSE, 0, NULL, 0, 0, 0,
				   "tw_format_set_bundled: NULL argument");
	tw_format_set *s = tw_format_set_new(mem);
	if (!s)
		return tw_error_at(err, TRAWL_ENOMEM, 0, BUNDLED_NAME, 0, 0, 0,
				   "cannot allocate memory for event formats");
	int rc = tw_formats_load_bytes(s, (const char *)tw_kernel_formats_zst,
				       (size_t)tw_kernel_formats_zst_size,
				       BUNDLED_NAME, err);
	if (rc) {
		tw_format_set_free(s);
		return rc;
	}
	*out = s;
	return 0;
}
