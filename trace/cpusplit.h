/* trace/cpusplit.h: splitting a per-CPU Intel PT trace into per-thread
 * traces with the CPU's context-switch records (perf's
 * PERF_RECORD_SWITCH_CPU_WIDE with the PERF_SAMPLE_TID | PERF_SAMPLE_TIME
 * sample_id trailer).
 *
 * The trace is cut at its PSBs: every PSB-delimited chunk belongs to the
 * thread that ran on the CPU at the chunk's first timestamp (a switch-in at
 * exactly that time wins over the switch-out it follows).  A thread's trace
 * is its chunks in order; each starts with a PSB, so the concatenation
 * decodes as one stream.  The software backend writes a PSB at every switch,
 * which makes the split exact; on hardware a switch between two PSBs leaves
 * the chunk to the thread that was running at its start (the next thread's
 * first instructions before its first PSB are lost: counted as inexact).
 * The software backend writes a switch's records 2 ns (out) and 1 ns (in)
 * before that PSB, as LLDB needs (records strictly increasing in time, a
 * PSB strictly inside its thread's execution); a switch that close before
 * a PSB counts as exact. */
#ifndef PTDB_TRACE_CPUSPLIT_H
#define PTDB_TRACE_CPUSPLIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "trace/tsc.h"

struct trace_switch {
	uint64_t time;		/* perf clock ns */
	pid_t pid, tid;		/* the task switching in or out */
	int out;		/* 1 switch-out, 0 switch-in */
};

/* perf's record layout: appends one PERF_RECORD_SWITCH_CPU_WIDE record
 * (32 bytes) to *buf (xrealloc'd; *len used of *cap bytes). */
void trace_switch_append(uint8_t **buf, size_t *len, size_t *cap, const struct trace_switch *s,
			 pid_t other_pid, pid_t other_tid);
/* Parses the records of buf[0,len) (other record types are skipped;
 * malformed sizes end the walk with an error).  *out is heap. */
int trace_switch_parse(const uint8_t *buf, size_t len, struct trace_switch **out, size_t *n,
		       struct ptdb_err *err);

/* One continuous execution of a thread on a CPU: consecutive PSB chunks
 * of the CPU's trace owned by the thread. */
struct trace_piece {
	pid_t tid;
	int cpu;		/* the CPU's index in the caller's list */
	uint64_t ns;		/* timestamp of its first PSB */
	size_t off, len;	/* bytes of the CPU trace */
	unsigned psbs;
	int inexact;		/* its start fell between PSBs */
};

/* Cuts buf[0,len) (chronological) by the switch records sw (any order)
 * into pieces (heap, appended to *out, *n), tagged with cpu. */
int trace_split_pieces(const uint8_t *buf, size_t len, const struct trace_switch *sw, size_t nsw,
		       const struct trace_tsc_conv *conv, int cpu, struct trace_piece **out,
		       size_t *n, struct ptdb_err *err);

/* One thread's part of the CPU traces. */
struct trace_split_thread {
	pid_t tid;
	uint8_t *bytes;		/* its pieces in time order, concatenated
				 * (heap, with TRACE_RING_SLACK zero bytes
				 * after len) */
	size_t len;
	unsigned executions;	/* pieces */
	unsigned psbs;		/* PSB chunks */
	unsigned inexact;	/* executions whose start fell between PSBs */
	unsigned cpu_changes;	/* consecutive pieces on different CPUs */
	/* the first piece and each one on another CPU than the last: where
	 * in bytes it starts (at a PSB) and its CPU (an index into the
	 * caller's list); ncpu_marks = cpu_changes + 1 */
	size_t *cpu_marks;
	int *cpu_ids;
	unsigned ncpu_marks;
};

/* The threads' parts of the CPU traces bufs[k][0,lens[k]) cut into pieces:
 * *out[0..*n) one entry per thread (heap; trace_split_free). */
int trace_split_merge(const uint8_t *const *bufs, const struct trace_piece *pieces, size_t npieces,
		      struct trace_split_thread **out, size_t *n);

void trace_split_free(struct trace_split_thread *t, size_t n);

#endif
