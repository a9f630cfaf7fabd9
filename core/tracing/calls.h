/* core/tracing/calls.h: the call tree of a thread's trace (LLDB's "function
 * calls"): segments — maximal runs of instructions of one call of one
 * function, each with its depth in its tree — and the clock over
 * instruction boundaries, built in core/tracing/dbg_calls.c by walking the
 * decoded trace with the cursor (trace/calls does the building). */
#ifndef PTDB_CORE_CALLS_H
#define PTDB_CORE_CALLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

struct dbg;
struct dbg_calls_int;

enum dbg_call_seg_kind {
	DBG_SEG_TRACED,		/* instructions first_id..last_id */
	DBG_SEG_UNTRACED,	/* a caller whose call began before the trace
				 * (LLDB's untraced prefix): first_ip is where
				 * it was returned to; first_id..last_id are
				 * its callees' instructions */
	DBG_SEG_ERRORS,		/* one or more gaps before instruction
				 * first_id (= last_id); ips 0 */
};

/* Instruction ids count instructions from 0, as in 'dump instructions'. */
struct dbg_call_seg {
	uint64_t first_id, last_id;
	uint64_t first_ip, last_ip;
	uint32_t tree;		/* call tree number, from 0 */
	uint32_t depth;		/* 0 = the tree's root level */
	int kind;		/* enum dbg_call_seg_kind */
};

struct dbg_calls {
	/* the segments in display order (a tree's untraced callers
	 * shallowest first, then its segments chronologically) */
	struct dbg_call_seg *segs;
	size_t nsegs;
	/* with extents: for each segment, the last instruction of its
	 * extent (the segment and the calls it makes, up to the next
	 * segment at its depth or shallower in the same tree); else NULL */
	uint64_t *last;
	int timed;		/* the clock has timestamps */
	struct dbg_calls_int *in;	/* core's: the clock */
};

/* 1: built (release with dbg_calls_release); 0: tid is not traced; -1
 * with err ("cannot read the traced instruction after index N", "cannot
 * build the call tree: ...", or the decoder's). */
int dbg_trace_calls(struct dbg *d, pid_t tid, int extents, struct dbg_calls *c,
		    struct ptdb_err *err);
void dbg_calls_release(struct dbg_calls *c);
/* The TSC at instruction boundary x (0..the instruction count), linear
 * between the trace's timestamps; 0 when not timed. */
uint64_t dbg_calls_tsc_at(const struct dbg_calls *c, uint64_t x);

#endif
