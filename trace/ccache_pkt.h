/* trace/ccache_pkt.h: the cache engine's block records turned into packets
 * at speed.  Each record names a translated block (trace/ccache.h) that ran
 * to its end; the next record's block start is where it went.  What a
 * block's record contributes to the stream is fixed at translation, in its
 * packet plan: its instruction count, the return addresses its direct
 * calls push, and its exit (a conditional branch's TNT bit, a return's
 * compressed bit or TIP, an indirect transfer's TIP, a direct call's
 * push).  ccache_pkt_run writes a run of records from the plans alone,
 * the pending TNT bits in registers and IP packets written in place: the
 * same bytes, and the same writer state, as the per-instruction path
 * (trace_swc_transfer / trace_swc_straight over each instruction that
 * writes packets: tests/unit/test-ccache-pkt.c compares), which remains
 * for what a plan does not cover. */
#ifndef PTDB_TRACE_CCACHE_PKT_H
#define PTDB_TRACE_CCACHE_PKT_H

#include <stddef.h>
#include <stdint.h>

#include "trace/ccache.h"
#include "trace/swc.h"

enum {
	CCACHE_PKT_SLOW,	/* not planned: the per-instruction path */
	CCACHE_PKT_NONE,	/* no exit that writes (straight code, direct
				 * jumps, a call to the next instruction) */
	CCACHE_PKT_COND,	/* jcc, jrcxz, loop: taken if the next block
				 * does not start at nlip */
	CCACHE_PKT_CALL,	/* direct call: nlip pushed */
	CCACHE_PKT_CALL_IND,	/* TIP(next), nlip pushed */
	CCACHE_PKT_JMP_IND,	/* TIP(next) */
	CCACHE_PKT_RET,		/* TNT(1) and a pop when next is the shadow
				 * stack's top, else TIP(next) */
};
#define CCACHE_PKT_PUSHES 3
/* A block with side exits (trace/ccache.h): its plan's kind is its end's
 * or'ed with its number of side exits shifted by this; the plan is what
 * its record writes when it ran to its end (each side exit's jcc not
 * taken, a bit each); a side exit's record after it says otherwise. */
#define CCACHE_PKT_SIDE_SHIFT 4

/* A block's packet plan (32 bytes: two to a cache line in an array from
 * ccache_pkt_grow; one a block, so its size is much of what ptdb keeps a
 * block). */
struct ccache_pkt {
	uint64_t start;		/* the block's first instruction */
	uint64_t nlip;		/* after its last instruction (the exit's) */
	uint16_t n;		/* its instructions (CCACHE_BLOCK_MAX_INSNS) */
	uint8_t kind, npush;
	int32_t push[CCACHE_PKT_PUSHES];	/* what its direct calls before
						 * the exit push, in order, from
						 * start */
};

/* The plans pk[0..n) moved to an array of cap (> n) plans, 64-byte
 * aligned; pk freed (free() the array). */
struct ccache_pkt *ccache_pkt_grow(struct ccache_pkt *pk, size_t n, size_t cap);
/* b's plan (CCACHE_PKT_SLOW where the exit is another kind, a transfer
 * that writes packets is not the last instruction nor a side exit's, or
 * more calls push, or one pushes beyond an int32 of start). */
void ccache_pkt_plan(const struct ccache_block *b, struct ccache_pkt *p);

/* Records ids[0..n) into t's trace through the plans pk[0..npk) (of the
 * blocks blk[0..npk): a side exit's, or a TNT packet written inside a
 * block with side exits, walks its instructions): *cur is the block whose
 * record came last (its exit written once the next record says where it
 * went; -1: none), updated.  Returns how many records were written: all
 * n, or fewer where the per-instruction path must take the next record
 * (its predecessor *cur not planned, tracing not enabled, a PSB+ due,
 * per-CPU tracing, an id not below npk but a side exit's of *cur); ids
 * not below npk are skipped. */
size_t ccache_pkt_run(const struct ccache_pkt *pk, uint32_t npk, const struct ccache_block *blk,
		      struct trace_swc_thread *t, const uint32_t *ids, size_t n, int64_t *cur);

#endif
