/* SPDX-License-Identifier: MIT */
/*
 * Error codes and messages. The tables come from TRAWL_ERRORS(X) in
 * trawl/error.h, as libtraceevent's TEP_ERRORS does for tep_strerror().
 */
#include <stdio.h>
#include <string.h>

#include "core.h"

static const char *const descriptions[] = {
#define X(name, desc) desc,
	TRAWL_ERRORS(X)
#undef X
};

static const char *const names[] = {
#define X(name, desc) "TRAWL_E" #name,
	TRAWL_ERRORS(X)
#undef X
};

static int index_of(int code)
{
	if (code < 0)
		code = -code;
	return code < TRAWL_E_COUNT ? code : -1;
}

TRAWL_API const char *trawl_strerror(int code)
{
	int i = index_of(code);
	return i < 0 ? "unknown error" : descriptions[i];
}

TRAWL_API const char *trawl_err_name(int code)
{
	int i = index_of(code);
	return i < 0 ? "TRAWL_E?" : names[i];
}

int tw_error_at(trawl_error *err, int code, int sys_errno, const char *file,
		uint64_t line, uint32_t column, uint64_t offset,
		const char *fmt, ...)
{
	if (!err)
		return -code;
	err->code = code;
	err->sys_errno = sys_errno;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	err->line = line;
	err->column = column;
	err->offset = offset;

	int k;
	if (line && column)
		k = snprintf(err->msg, sizeof(err->msg),
			     "%s:%llu:%u: ", err->file,
			     (unsigned long long)line, column);
	else if (line)
		k = snprintf(err->msg, sizeof(err->msg), "%s:%llu: ", err->file,
			     (unsigned long long)line);
	else if (file && *file)
		k = snprintf(err->msg, sizeof(err->msg), "%s: ", err->file);
	else
		k = 0;
	if (k < 0 || (size_t)k >= sizeof(err->msg))
		k = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg + k, sizeof(err->msg) - (size_t)k, fmt, ap);
	va_end(ap);
	return -code;
}
