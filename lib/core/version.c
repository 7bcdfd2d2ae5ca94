/* SPDX-License-Identifier: MIT */
/*
 * The library's own version, for programs that want to know which
 * libtrawl.so they run with (the macros tell what they were compiled with).
 */
#include "trawl/version.h"

TRAWL_API const char *trawl_version(void)
{
	return TRAWL_VERSION;
}

TRAWL_API int trawl_version_number(void)
{
	return TRAWL_VERSION_NUMBER;
}
