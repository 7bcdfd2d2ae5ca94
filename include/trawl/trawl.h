/* SPDX-License-Identifier: MIT */
/*
 * libtrawl: read Linux kernel traces and get every event in one time order.
 *
 *	trawl_trace *t = trawl_open("trace.txt", NULL, &err);
 *	trawl_field next = trawl_field_lookup(t, "sched_switch", "next_pid");
 *	trawl_on(t, "sched_switch", on_switch, &state);
 *	trawl_run(t, &err);
 *	trawl_close(t);
 */
#ifndef TRAWL_TRAWL_H
#define TRAWL_TRAWL_H

#include "error.h"
#include "event.h"
#include "field.h"
#include "record.h"
#include "live.h"
#include "trace.h"
#include "analysis.h"
#include "script.h"
#include "ring.h"
#include "timeline.h"
#include <trawl/version.h> /* generated from version.h.in */

#endif
