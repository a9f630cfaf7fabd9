/* trace/tsc.h: converting the trace's TSC values to nanoseconds of the
 * perf clock, with the parameters the kernel publishes in a perf event's mmap
 * page (time_zero, time_mult, time_shift; LLDB's tscPerfZeroConversion). */
#ifndef PTDB_TRACE_TSC_H
#define PTDB_TRACE_TSC_H

#include <stdint.h>

struct trace_tsc_conv {
	uint32_t mult;
	uint16_t shift;
	uint64_t zero;
	int valid;	/* 0: no conversion known (print raw TSC or nothing) */
};

/* perf's formula: zero + (tsc >> shift) * mult + (((tsc & mask) * mult) >> shift),
 * which does not overflow for any tsc. */
uint64_t trace_tsc_to_ns(const struct trace_tsc_conv *c, uint64_t tsc);

#endif
