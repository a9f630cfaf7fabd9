/* trace/tsc.c: TSC -> perf clock nanoseconds (see tsc.h). */
#include "trace/tsc.h"

uint64_t trace_tsc_to_ns(const struct trace_tsc_conv *c, uint64_t tsc)
{
	uint64_t quot, rem;

	if (c->shift >= 64)
		return c->zero;
	quot = tsc >> c->shift;
	rem = tsc & (((uint64_t)1 << c->shift) - 1);
	return c->zero + quot * c->mult + ((rem * c->mult) >> c->shift);
}
