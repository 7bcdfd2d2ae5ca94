/* SPDX-License-Identifier: MIT */
/*
 * Kernel constants that print formats name without defining: an event's
 * format keeps "{ HRTIMER_MODE_REL, "REL" }" when the kernel has no
 * TRACE_DEFINE_ENUM for it, so neither the format nor libtraceevent knows
 * the number. Only constants that are ABI or have kept their values for
 * many releases are here, each with where it is defined; the pair tests
 * (a recording read as text and as trace.dat) check them on this kernel.
 * Names not here stay unresolved: counted, and shown as the text has them.
 */
#include <string.h>

#include "pfmt-int.h"

static const struct {
	const char *name;
	int64_t value;
} constants[] = {
	/* include/linux/hrtimer_types.h, enum hrtimer_mode (since 4.16) */
	{"HRTIMER_MODE_ABS", 0x00},
	{"HRTIMER_MODE_ABS_HARD", 0x08},
	{"HRTIMER_MODE_ABS_PINNED", 0x02},
	{"HRTIMER_MODE_ABS_PINNED_HARD", 0x0a},
	{"HRTIMER_MODE_ABS_PINNED_SOFT", 0x06},
	{"HRTIMER_MODE_ABS_SOFT", 0x04},
	{"HRTIMER_MODE_HARD", 0x08},
	{"HRTIMER_MODE_PINNED", 0x02},
	{"HRTIMER_MODE_REL", 0x01},
	{"HRTIMER_MODE_REL_HARD", 0x09},
	{"HRTIMER_MODE_REL_PINNED", 0x03},
	{"HRTIMER_MODE_REL_PINNED_HARD", 0x0b},
	{"HRTIMER_MODE_REL_PINNED_SOFT", 0x07},
	{"HRTIMER_MODE_REL_SOFT", 0x05},
	{"HRTIMER_MODE_SOFT", 0x04},
	/* include/uapi/linux/ioprio.h */
	{"IOPRIO_CLASS_BE", 2},
	{"IOPRIO_CLASS_IDLE", 3},
	{"IOPRIO_CLASS_INVALID", 7},
	{"IOPRIO_CLASS_NONE", 0},
	{"IOPRIO_CLASS_RT", 1},
	/* include/net/tcp_states.h */
	{"TCP_CLOSE", 7},
	{"TCP_CLOSE_WAIT", 8},
	{"TCP_CLOSING", 11},
	{"TCP_ESTABLISHED", 1},
	{"TCP_FIN_WAIT1", 4},
	{"TCP_FIN_WAIT2", 5},
	{"TCP_LAST_ACK", 9},
	{"TCP_LISTEN", 10},
	{"TCP_NEW_SYN_RECV", 12},
	{"TCP_SYN_RECV", 3},
	{"TCP_SYN_SENT", 2},
	{"TCP_TIME_WAIT", 6},
};

int tw_pf_constant(const char *name, int64_t *out)
{
	size_t lo = 0, hi = TW_ARRAY_SIZE(constants);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(constants[mid].name, name);
		if (c == 0) {
			*out = constants[mid].value;
			return 0;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}
