/* trace/calls.h: the call tree of a trace (LLDB's "function calls"): the
 * instructions of a thread in order (address, fall-through address,
 * control-flow class, and the function each belongs to, from a callback) in,
 * segments out — maximal runs of instructions of one call of one function,
 * each with its depth in its tree.  Gaps end a tree.  No ptrace, no
 * symbols: the caller classifies and names.  Library code: never prints. */
#ifndef PTDB_TRACE_CALLS_H
#define PTDB_TRACE_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* How the instruction hands on control. */
enum trace_calls_class {
	TRACE_CALLS_OTHER,	/* goes on at next (elsewhere: it was interrupted) */
	TRACE_CALLS_JUMP,	/* jmp, jcc, loop: within the function, a tail
				 * call, or a non-local return (longjmp) */
	TRACE_CALLS_CALL,	/* near call, direct or indirect */
	TRACE_CALLS_RETURN,	/* near ret */
	TRACE_CALLS_FAR,	/* syscall, int, far transfers: goes on at next, or
				 * resumes an interrupted frame (sigreturn) */
};

enum trace_call_seg_kind {
	TRACE_SEG_TRACED,	/* instructions first_id..last_id */
	TRACE_SEG_UNTRACED,	/* a caller whose call began before the trace
				 * (LLDB's untraced prefix): first_ip is where it
				 * was returned to; first_id..last_id are its
				 * callees' instructions */
	TRACE_SEG_ERRORS,	/* one or more gaps before instruction first_id
				 * (= last_id); ips 0 */
};

/* Instruction ids count instructions from 0, as in 'dump instructions'. */
struct trace_call_seg {
	uint64_t first_id, last_id;
	uint64_t first_ip, last_ip;
	uint32_t tree;		/* call tree number, from 0 */
	uint32_t depth : 28;	/* 0 = the tree's root level */
	uint32_t kind : 4;	/* enum trace_call_seg_kind */
};

/* Calls and returns deeper than this are an error (no real stack holds them). */
#define TRACE_CALLS_MAX_DEPTH (1u << 20)

/* The function holding ip, as a key: its start address with *named = 1,
 * or, for code no symbol covers, any value the caller picks with *named =
 * 0 (LLDB takes such code of one module as one function).  Equal keys mean
 * one function; only named ones are looked for up the stack. */
typedef uint64_t (*trace_calls_func_fn)(void *ctx, uint64_t ip, int *named);

struct trace_calls;

/* Returns a builder (heap; free with trace_calls_free) that asks func for
 * each instruction's function. */
struct trace_calls *trace_calls_new(trace_calls_func_fn func, void *ctx);
void trace_calls_free(struct trace_calls *c);

/* The next instruction: at ip, next = ip + its length (0 if unknown).
 * Returns 0, or -1 with err (deeper than TRACE_CALLS_MAX_DEPTH, or after
 * trace_calls_finish). */
int trace_calls_insn(struct trace_calls *c, uint64_t ip, uint64_t next,
		     enum trace_calls_class cls, struct ptdb_err *err);
/* A decoding gap (or lost trace) before the next instruction: the current
 * tree ends; consecutive gaps make one TRACE_SEG_ERRORS tree. */
int trace_calls_gap(struct trace_calls *c, struct ptdb_err *err);
/* The trace stopped asynchronously before the instruction at 'at' (a stop,
 * a signal): if the next instruction is elsewhere, it was entered like a
 * call (a signal handler) that returns to 'at'. */
void trace_calls_async(struct trace_calls *c, uint64_t at);
/* Ends the input: places the untraced callers before their trees and
 * makes depths start at 0.  Returns 0, or -1 if already finished. */
int trace_calls_finish(struct trace_calls *c, struct ptdb_err *err);

/* The segments in display order (a tree's untraced callers shallowest
 * first, then its segments chronologically); valid after finish, owned by
 * c.  *n gets the count. */
const struct trace_call_seg *trace_calls_segs(const struct trace_calls *c, size_t *n);
uint32_t trace_calls_tree_count(const struct trace_calls *c);
/* Heap bytes held by c. */
size_t trace_calls_mem_bytes(const struct trace_calls *c);

/* For each segment (display order, as from trace_calls_segs), the last
 * instruction of its extent: the segment and the calls it makes, up to the
 * next segment at its depth or shallower in the same tree.  Extents of a
 * segment's callees lie within its extent, so they nest in time. */
void trace_calls_extents(const struct trace_call_seg *segs, size_t n, uint64_t *last);

/* A clock over instruction boundaries (x = instructions before; 0..total)
 * from timestamps taken at some boundaries (anchors, in trace order):
 * linear between anchors, flat before the first and after the last,
 * never decreasing. */
struct trace_clock {
	struct { uint64_t id, tsc; } *a;
	size_t n, cap;
};
void trace_clock_init(struct trace_clock *k);
void trace_clock_release(struct trace_clock *k);
/* An anchor at boundary id (ids must not decrease; a tsc lower than the
 * previous one is raised to it). */
void trace_clock_add(struct trace_clock *k, uint64_t id, uint64_t tsc);
/* The time at boundary x; 0 without anchors. */
uint64_t trace_clock_at(const struct trace_clock *k, uint64_t x);

#endif
