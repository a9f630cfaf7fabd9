/* trace/tsc.c: TSC -> perf clock nanoseconds, and the arithmetic behind the
 * parameters: from a frequency, or from a perf mmap page (see tsc.h). */
#include "trace/tsc.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#define PERF_PAGE_TRIES 10000

uint64_t trace_tsc_to_ns(const struct trace_tsc_conv *c, uint64_t tsc)
{
	uint64_t quot, rem;

	if (c->shift >= 64)
		return c->zero;
	quot = tsc >> c->shift;
	rem = tsc & (((uint64_t)1 << c->shift) - 1);
	/* rem * mult needs up to 95 bits when a bundle gives a timeShift
	 * above 32 (the kernel's own pages keep it at 32 or less) */
	return c->zero + quot * c->mult + (uint64_t)(((unsigned __int128)rem * c->mult) >> c->shift);
}

int trace_tsc_from_freq(struct trace_tsc_conv *c, uint64_t hz, uint64_t ref_tsc,
			uint64_t ref_ns)
{
	if (!hz)
		return -1;
	/* mult / 2^shift = 1e9 / hz; a larger shift keeps more digits, and
	 * shift <= 32 keeps (rem * mult) within 64 bits in trace_tsc_to_ns */
	for (int shift = 32; shift >= 0; shift--) {
		uint64_t mult = ((1000000000ull << shift) + hz / 2) / hz;

		if (mult == 0 || mult > UINT32_MAX)
			continue;
		c->mult = (uint32_t)mult;
		c->shift = (uint16_t)shift;
		c->zero = 0;
		/* unsigned wrap-around is intended: perf's time_zero is
		 * "negative" too when the TSC started counting before the
		 * clock's zero */
		c->zero = ref_ns - trace_tsc_to_ns(c, ref_tsc);
		c->valid = 1;
		return 0;
	}
	return -1;
}

double trace_tsc_freq(const struct trace_tsc_conv *c)
{
	if (!c->mult)
		return 0.0;
	return 1e9 * (double)((uint64_t)1 << c->shift) / (double)c->mult;
}

int trace_tsc_from_perf_page(struct trace_tsc_conv *c,
			     const volatile struct perf_event_mmap_page *pg,
			     char *why, size_t whylen)
{
	for (int i = 0; i < PERF_PAGE_TRIES; i++) {
		uint32_t seq = pg->lock, mult;
		uint16_t shift;
		uint64_t zero;
		int has_zero, is_short;

		/* the kernel bumps lock before and after an update (odd while
		 * it writes): read between two equal, even values */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		has_zero = pg->cap_user_time_zero;
		is_short = pg->cap_user_time_short;
		mult = pg->time_mult;
		shift = pg->time_shift;
		zero = pg->time_zero;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (pg->lock != seq || (seq & 1))
			continue;
		if (!has_zero) {
			snprintf(why, whylen, "the kernel publishes no TSC conversion "
				 "(cap_user_time_zero is 0)");
			return -1;
		}
		if (is_short) {
			snprintf(why, whylen, "the kernel's clock counter wraps "
				 "(cap_user_time_short is 1)");
			return -1;
		}
		if (!mult || shift > 32) {
			snprintf(why, whylen, "the kernel's TSC conversion is unusable "
				 "(time_mult %u, time_shift %u)", mult, shift);
			return -1;
		}
		c->mult = mult;
		c->shift = shift;
		c->zero = zero;
		c->valid = 1;
		c->source = TRACE_TSC_PERF;
		c->note[0] = '\0';
		return 0;
	}
	snprintf(why, whylen, "the perf page's lock did not settle");
	return -1;
}

const char *trace_tsc_source_name(const struct trace_tsc_conv *c)
{
	switch (c->source) {
	case TRACE_TSC_PERF:
		return "perf";
	case TRACE_TSC_CALIBRATED:
		return "calibrated";
	default:
		return "given";
	}
}
