/* trace/tsc.h: converting the trace's TSC values to nanoseconds of the
 * perf clock, with the parameters the kernel publishes in a perf event's mmap
 * page (time_zero, time_mult, time_shift; LLDB's tscPerfZeroConversion), or
 * equivalent ones calibrated against CLOCK_MONOTONIC where the kernel does
 * not publish them (most VMs). */
#ifndef PTDB_TRACE_TSC_H
#define PTDB_TRACE_TSC_H

#include <stddef.h>
#include <stdint.h>

struct perf_event_mmap_page;

/* Where the parameters came from. */
enum trace_tsc_source {
	TRACE_TSC_GIVEN = 0,	/* filled in by their reader (a trace bundle) */
	TRACE_TSC_PERF,		/* the kernel's perf_event mmap page */
	TRACE_TSC_CALIBRATED,	/* rdtsc measured against CLOCK_MONOTONIC */
};

struct trace_tsc_conv {
	uint32_t mult;
	uint16_t shift;
	uint64_t zero;
	int valid;	/* 0: no conversion known (print raw TSC or nothing) */
	int source;	/* enum trace_tsc_source */
	/* The TSC when tracing with timestamps started: dumps show times
	 * relative to it, as LLDB shows them relative to the trace's start.
	 * has_start 0: relative to the first timestamp of the trace shown. */
	uint64_t start_tsc;
	int has_start;
	/* Why the kernel's parameters were not used (TRACE_TSC_CALIBRATED),
	 * e.g. "cap_user_time_zero is 0"; empty otherwise. */
	char note[160];
};

/* perf's formula: zero + (tsc >> shift) * mult + (((tsc & mask) * mult) >> shift),
 * which does not overflow for any tsc. */
uint64_t trace_tsc_to_ns(const struct trace_tsc_conv *c, uint64_t tsc);

/* Parameters for a TSC ticking at hz such that ref_tsc converts to ref_ns
 * exactly: the largest shift (at most 32, so the formula cannot overflow)
 * whose mult fits 32 bits.  -1 if hz is 0 or so slow (below 0.24 Hz) that
 * no mult fits. */
int trace_tsc_from_freq(struct trace_tsc_conv *c, uint64_t hz, uint64_t ref_tsc,
			uint64_t ref_ns);
/* The TSC frequency the parameters describe (1e9 << shift) / mult, in Hz. */
double trace_tsc_freq(const struct trace_tsc_conv *c);

/* Reads time_mult/time_shift/time_zero from a perf mmap page under its
 * seqlock (retrying while the kernel updates it: lock odd or changed).
 * -1 with why filled when the page does not offer them
 * (cap_user_time_zero clear, or cap_user_time_short, whose wrapping
 * counter this formula does not model) or the lock never settles. */
int trace_tsc_from_perf_page(struct trace_tsc_conv *c,
			     const volatile struct perf_event_mmap_page *pg,
			     char *why, size_t whylen);

/* Fills c for this machine (trace/tsc_perf.c): the kernel's parameters
 * from a dummy perf event on ptdb itself when perf_event_paranoid allows
 * it and the kernel publishes them, else calibration (about 20 ms).
 * start_tsc is set to now.  -1 if neither works (c->valid stays 0). */
int trace_tsc_measure(struct trace_tsc_conv *c);

/* "perf" / "calibrated" / "given" (what dump info and JSON call it). */
const char *trace_tsc_source_name(const struct trace_tsc_conv *c);

#endif
