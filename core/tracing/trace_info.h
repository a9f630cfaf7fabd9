/* core/tracing/trace_info.h: what the trace commands read of the session's traces
 * without the trace/ types (core/tracing/dbg_trace_info.c): a thread's trace and
 * its decoded trace in figures, the backend to trace with, wrap notices,
 * and the threads of the session as heap arrays (no fixed limit).
 * The trace pointers are opaque here: cmd/ holds them, core/ reads them. */
#ifndef PTDB_CORE_TRACE_INFO_H
#define PTDB_CORE_TRACE_INFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

struct dbg;
struct trace_swc_thread;
struct trace_decoded;
struct target_thread_info;

/* A thread's trace buffer and what its collector did. */
struct dbg_trace_figures {
	size_t buffer_size;	/* the buffer (ring) size */
	size_t raw_size;	/* bytes of trace it holds now */
	size_t pos;		/* where the next byte goes (bytes at the
				 * last stop for intel-pt, a loaded trace's
				 * length) */
	uint64_t written;	/* bytes ever written, padding included */
	int wrapped;		/* the oldest part is lost */
	int tracing;		/* started and not stopped by the user */
	double dec_seconds;	/* its last decoding took */
	uint64_t insns, transfers, traps, emulated;	/* the collector's */
	int per_cpu;		/* its packets go to a CPU's stream */
	unsigned executions, psbs, inexact, cpu_changes;	/* last split */
};
void dbg_trace_figures(struct dbg *d, const struct trace_swc_thread *th,
		       struct dbg_trace_figures *f);

/* The i-th CPU stream of a per-CPU thread trace: 0, or -1 past the last. */
struct dbg_trace_cpu_figures {
	int id;
	size_t buffer_size, raw_size;
	size_t switch_records;	/* context-switch records held */
	uint64_t lost;		/* switch-ring overflows (intel-pt) */
};
int dbg_trace_cpu_figures(const struct trace_swc_thread *th, int i, struct dbg_trace_cpu_figures *c);

/* A decoded trace in figures. */
struct dbg_decoded_figures {
	uint64_t insns, items, gaps;	/* items: insns + gaps + events */
	size_t mem;			/* bytes it takes in memory */
	/* an index's chunks, the chunk decodes so far, the threads its
	 * indexing pass ran on, and whether a parallel pass fell back to
	 * the serial one (chunks 0: a store of the whole trace) */
	uint64_t chunks, chunk_decodes;
	int index_threads, index_fell_back;
};
void dbg_decoded_figures(const struct trace_decoded *dec, struct dbg_decoded_figures *f);

/* The session's TSC conversion (measured when tracing started with
 * timestamps, or a loaded bundle's; core/tracing/dbg_items.c). */
enum dbg_tsc_source {
	DBG_TSC_GIVEN = 0,	/* read with the trace (a bundle) */
	DBG_TSC_PERF,		/* the kernel's perf_event mmap page */
	DBG_TSC_CALIBRATED,	/* rdtsc measured against CLOCK_MONOTONIC */
};
struct dbg_tsc_figures {
	uint32_t mult;
	unsigned shift;
	uint64_t zero;
	int source;		/* enum dbg_tsc_source */
	const char *source_name;	/* "perf" / "calibrated" / "given" */
	double hz;		/* the TSC frequency the parameters describe */
	/* times are shown relative to start_tsc (tracing started), else
	 * to the first timestamp of the trace shown */
	int has_start;
	uint64_t start_tsc;
	const char *note;	/* why not the kernel's parameters, or "" */
};
/* 1 with f filled (f may be NULL) when the conversion is known, else 0. */
int dbg_tsc_known(const struct dbg *d, struct dbg_tsc_figures *f);
/* A TSC value as nanoseconds of the perf clock (the conversion known). */
uint64_t dbg_tsc_to_ns(const struct dbg *d, uint64_t tsc);

/* dbg_trace_decode with a progress callback: fn(ctx, bytes decoded, total)
 * every few thousand blocks, nonzero cancels ("interrupted"). */
int dbg_trace_decode_progress(struct dbg *d, struct trace_swc_thread *th,
			      int (*fn)(void *ctx, uint64_t done, uint64_t total), void *ctx,
			      struct trace_decoded **out, struct ptdb_err *err);

/* 1 if th's buffer wrapped, with *written the bytes ever written into it
 * and *size its size; 0 if it holds all it got (or th is NULL). */
int dbg_trace_wrapped(const struct trace_swc_thread *th, unsigned long long *written,
		      unsigned long long *size);

/* 1 if the intel_pt PMU is there (the default backend is then intel-pt). */
int dbg_trace_pmu_present(void);
/* The backend to start tracing with: name ("intel-pt", "software") when
 * given, else the one already tracing the process, else intel-pt when the
 * PMU exists, else software.  -1 with err: intel-pt without the PMU (the
 * PMU reader's words), "invalid backend '<name>': expected intel-pt or
 * software". */
int dbg_trace_backend(struct dbg *d, const char *name, int *backend, struct ptdb_err *err);
/* The least --psb-period the software backend takes, in bytes. */
unsigned dbg_trace_min_psb_period(void);

/* Threads traced with the default buffer size get one notice when it
 * wraps: marks tids[0,n) (every traced thread when all). */
void dbg_trace_want_loss_notice(struct dbg *d, const pid_t *tids, int n, int all);
/* The marked threads whose buffer wrapped since, unmarked now: a heap
 * array (free it) of *n, in thread order; NULL when none. */
struct dbg_trace_loss {
	pid_t tid;
	unsigned long long written, size;
};
struct dbg_trace_loss *dbg_trace_take_loss_notices(struct dbg *d, int *n);
/* How many traces the session holds (dbg_trace_all's, without a limit). */
int dbg_trace_count(struct dbg *d);
/* Every trace the session holds, as dbg_trace_all orders them: a heap
 * array of *n (free it), however many there are. */
struct trace_swc_thread **dbg_trace_list(struct dbg *d, int *n);

/* The session's threads (dbg_threads), or with traced the threads for the
 * trace commands (dbg_trace_threads): a heap array of *n (free it; NULL
 * when there are none). */
struct target_thread_info *dbg_thread_list(struct dbg *d, int traced, int *n);

#endif
