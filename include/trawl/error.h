/* SPDX-License-Identifier: MIT */
/*
 * Error values of libtrawl. Functions return 0 or a negative TRAWL_E* code and
 * fill an optional caller-allocated trawl_error. One list, TRAWL_ERRORS(X),
 * produces the enum, trawl_strerror() and trawl_err_name(), so they cannot
 * drift apart.
 */
#ifndef TRAWL_ERROR_H
#define TRAWL_ERROR_H

#include <stddef.h>
#include <stdint.h>

#ifndef TRAWL_API
#define TRAWL_API __attribute__((visibility("default")))
#endif

/* X(NAME, description) */
#define TRAWL_ERRORS(X)                                                        \
	X(OK, "success")                                                       \
	X(NOMEM, "out of memory")                                              \
	X(IO, "input/output error")                                            \
	X(FORMAT, "unrecognised input format")                                 \
	X(PARSE, "malformed input")                                            \
	X(MISUSE, "library misuse")                                            \
	X(NOENT, "no such event or field")                                     \
	X(TYPE, "value has another type")                                      \
	X(INVAL, "invalid argument")                                           \
	X(LIMIT, "limit exceeded")                                             \
	X(UNSUPPORTED, "unsupported input")                                    \
	X(ENV, "tracing unavailable (tracefs, permissions, kernel)")

enum trawl_errcode {
#define TRAWL_X_ENUM(name, desc) TRAWL_E##name,
	TRAWL_ERRORS(TRAWL_X_ENUM)
#undef TRAWL_X_ENUM
		TRAWL_E_COUNT
};

/**
 * struct trawl_error - where and why something failed
 * @code:      a positive TRAWL_E* code (the function itself returns -code)
 * @sys_errno: errno of the failing system call, or 0
 * @file:      the input's name ("-" or "<stdin>" for standard input), or ""
 * @line:      1-based line in the (decompressed) input, or 0
 * @column:    1-based column in that line, or 0
 * @offset:    byte offset in the (decompressed) input, or 0
 * @msg:       one line, "file:line:col: cannot ..." ready to print
 *
 * Reporting an error never allocates: everything lives in this struct.
 */
typedef struct trawl_error {
	int code;
	int sys_errno;
	char file[256];
	uint64_t line;
	uint32_t column;
	uint64_t offset;
	char msg[512];
} trawl_error;

/**
 * trawl_strerror() - describe an error code
 * @code: a TRAWL_E* code, positive or negative
 *
 * Return: a static description such as "out of memory"; never NULL.
 * Lifetime: static storage.
 */
TRAWL_API const char *trawl_strerror(int code);

/**
 * trawl_err_name() - the symbolic name of an error code
 * @code: a TRAWL_E* code, positive or negative
 *
 * Return: a static string such as "TRAWL_ENOMEM"; never NULL.
 * Lifetime: static storage.
 */
TRAWL_API const char *trawl_err_name(int code);

#endif
