/* tests/unit/test-tsc.c: trace/tsc: mult/shift/zero derived from a
 * frequency, the seqlock read of a (fake) perf mmap page and its refusals,
 * and this machine's measured conversion against CLOCK_MONOTONIC. */
#include "tests/unit/test.h"
#include "trace/tsc.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <time.h>

static int64_t diff(uint64_t a, uint64_t b)
{
	return (int64_t)(a - b);
}

TEST(freq_1ghz_is_one_ns_per_tick)
{
	struct trace_tsc_conv c = { 0 };

	CHECK_INT(trace_tsc_from_freq(&c, 1000000000ull, 5000, 123456789), 0);
	CHECK(c.valid);
	CHECK_INT(c.shift, 31);		/* 2^32 would not fit 32 bits */
	CHECK_INT(c.mult, 1u << 31);
	CHECK_INT(trace_tsc_to_ns(&c, 5000), 123456789);
	CHECK_INT(trace_tsc_to_ns(&c, 5001), 123456790);
	CHECK_INT(trace_tsc_to_ns(&c, 5000 + 1000000000ull), 123456789 + 1000000000ull);
}

TEST(freq_2_6ghz_exact_at_reference_and_close_after)
{
	struct trace_tsc_conv c = { 0 };
	uint64_t hz = 2599998000ull, ref = (1ull << 50) + 12345, ns = 4000000000000ull;

	CHECK_INT(trace_tsc_from_freq(&c, hz, ref, ns), 0);
	CHECK_INT(c.shift, 32);
	CHECK(c.mult > 0);
	CHECK_INT(trace_tsc_to_ns(&c, ref), ns);
	/* one second later: within 1 ns; ten seconds: within 5 ns */
	CHECK(llabs(diff(trace_tsc_to_ns(&c, ref + hz), ns + 1000000000ull)) <= 1);
	CHECK(llabs(diff(trace_tsc_to_ns(&c, ref + 10 * hz), ns + 10000000000ull)) <= 5);
	CHECK(trace_tsc_freq(&c) > hz - 2.0 && trace_tsc_freq(&c) < hz + 2.0);
}

TEST(freq_slow_clock_smaller_shift)
{
	struct trace_tsc_conv c = { 0 };

	CHECK_INT(trace_tsc_from_freq(&c, 100000000ull, 0, 0), 0);	/* 10 ns per tick */
	CHECK(c.shift <= 29);
	CHECK_INT(trace_tsc_to_ns(&c, 100), 1000);
	CHECK_INT(trace_tsc_to_ns(&c, 100000000ull), 1000000000ull);
	CHECK_INT(trace_tsc_from_freq(&c, 1, 7, 0), 0);		/* 1 Hz still fits */
	CHECK_INT(trace_tsc_to_ns(&c, 8), 1000000000ull);
}

TEST(freq_wraps_zero_when_tsc_predates_clock)
{
	struct trace_tsc_conv c = { 0 };
	uint64_t hz = 3000000000ull, ref = 9000000000000ull;	/* 3000 s of TSC */

	CHECK_INT(trace_tsc_from_freq(&c, hz, ref, 5), 0);	/* but 5 ns of clock */
	CHECK(c.zero > (1ull << 63));				/* "negative" */
	CHECK_INT(trace_tsc_to_ns(&c, ref), 5);
	CHECK(llabs(diff(trace_tsc_to_ns(&c, ref + 3 * hz), 3000000005ull)) <= 1);
}

TEST(freq_errors)
{
	struct trace_tsc_conv c = { 0 };

	CHECK_INT(trace_tsc_from_freq(&c, 0, 1, 1), -1);
	CHECK(!c.valid);
	CHECK_INT(trace_tsc_from_freq(&c, UINT64_MAX, 1, 1), -1);	/* no mult fits */
	CHECK(!c.valid);
	CHECK(trace_tsc_freq(&c) == 0.0);
}

static struct perf_event_mmap_page page;

static void fake_page(uint32_t lock, int zero_cap, int short_cap)
{
	memset(&page, 0, sizeof(page));
	page.lock = lock;
	page.cap_user_time = 1;
	page.cap_user_time_zero = zero_cap;
	page.cap_user_time_short = short_cap;
	page.time_mult = 1644153540u;
	page.time_shift = 32;
	page.time_zero = 0xfffe2a0b1c2d3e4full;
}

TEST(perf_page_read)
{
	struct trace_tsc_conv c = { 0 };
	char why[128] = "";

	fake_page(4, 1, 0);
	CHECK_INT(trace_tsc_from_perf_page(&c, &page, why, sizeof(why)), 0);
	CHECK(c.valid);
	CHECK_INT(c.source, TRACE_TSC_PERF);
	CHECK_INT(c.mult, 1644153540u);
	CHECK_INT(c.shift, 32);
	CHECK(c.zero == 0xfffe2a0b1c2d3e4full);
	CHECK_STR(trace_tsc_source_name(&c), "perf");
}

TEST(perf_page_refusals)
{
	struct trace_tsc_conv c = { 0 };
	char why[128] = "";

	fake_page(2, 0, 0);
	CHECK_INT(trace_tsc_from_perf_page(&c, &page, why, sizeof(why)), -1);
	CHECK(!c.valid);
	CHECK(strstr(why, "cap_user_time_zero is 0"));
	fake_page(2, 1, 1);
	CHECK_INT(trace_tsc_from_perf_page(&c, &page, why, sizeof(why)), -1);
	CHECK(strstr(why, "cap_user_time_short"));
	fake_page(2, 1, 0);
	page.time_mult = 0;
	CHECK_INT(trace_tsc_from_perf_page(&c, &page, why, sizeof(why)), -1);
	CHECK(strstr(why, "time_mult 0"));
	CHECK(!c.valid);
}

/* An odd lock is the kernel in the middle of an update: never accepted. */
TEST(perf_page_odd_lock_never_settles)
{
	struct trace_tsc_conv c = { 0 };
	char why[128] = "";

	fake_page(7, 1, 0);
	CHECK_INT(trace_tsc_from_perf_page(&c, &page, why, sizeof(why)), -1);
	CHECK(strstr(why, "did not settle"));
	CHECK(!c.valid);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* This machine: perf's page or the calibration, and what it says. */
TEST(measure_this_machine)
{
	struct trace_tsc_conv c;
	uint64_t before = __builtin_ia32_rdtsc();
	double hz;

	CHECK_INT(trace_tsc_measure(&c), 0);
	CHECK(c.valid);
	CHECK(c.has_start && c.start_tsc >= before);
	hz = trace_tsc_freq(&c);
	CHECK(hz > 1e8 && hz < 1e10);
	printf("# source %s, %.3f MHz, mult %u shift %u zero %llu%s%s\n",
	       trace_tsc_source_name(&c), hz / 1e6, c.mult, c.shift,
	       (unsigned long long)c.zero, c.note[0] ? "; " : "", c.note);
	if (c.source == TRACE_TSC_CALIBRATED) {
		/* it is CLOCK_MONOTONIC, to well within a millisecond */
		int64_t d = (int64_t)trace_tsc_to_ns(&c, __builtin_ia32_rdtsc()) - mono_ns();

		CHECK(c.note[0]);
		CHECK(llabs(d) < 1000000);
	} else {
		CHECK_INT(c.source, TRACE_TSC_PERF);
		CHECK(!c.note[0]);
	}
}

TEST_MAIN(freq_1ghz_is_one_ns_per_tick, freq_2_6ghz_exact_at_reference_and_close_after,
	  freq_slow_clock_smaller_shift, freq_wraps_zero_when_tsc_predates_clock, freq_errors,
	  perf_page_read, perf_page_refusals, perf_page_odd_lock_never_settles,
	  measure_this_machine)
