/* core/tracing/calls.h: the call tree of a thread's trace (trace/calls segments
 * and clock), built in core/tracing/dbg_calls.c by walking the decoded trace with
 * the cursor. */
#ifndef PTDB_CORE_CALLS_H
#define PTDB_CORE_CALLS_H

#include <sys/types.h>

#include "base/err.h"
#include "trace/calls.h"

struct dbg;

struct dbg_calls {
	struct trace_calls *calls;	/* trace_calls_segs() */
	struct trace_clock clock;	/* TSC at instruction boundaries */
};

/* 1: built (release with dbg_calls_release); 0: tid is not traced; -1
 * with err ("cannot read the traced instruction after index N", "cannot
 * build the call tree: ...", or the decoder's). */
int dbg_trace_calls(struct dbg *d, pid_t tid, struct dbg_calls *c, struct ptdb_err *err);
void dbg_calls_release(struct dbg_calls *c);

#endif
