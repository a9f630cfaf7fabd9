/* trace/tsc_perf.c: the kernel-facing part of the TSC conversion: perf's
 * parameters from a dummy event's mmap page, or a calibration of rdtsc
 * against CLOCK_MONOTONIC where the kernel does not publish them. */
#include "trace/tsc.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"
#define CALIBRATION_NS 20000000ll

/* 0 with the page's parameters in c, else -1 and why. */
static int from_perf(struct trace_tsc_conv *c, char *why, size_t n)
{
	struct perf_event_attr attr;
	long page = sysconf(_SC_PAGESIZE);
	int paranoid = 2, fd, r;
	FILE *f = fopen(PARANOID_PATH, "r");
	void *pg;

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	/* above 2 (Debian's 3) unprivileged perf_event_open is refused;
	 * 2 allows user-space-only events on ourselves, which is all a
	 * dummy event needs */
	if (paranoid > 2 && geteuid() != 0) {
		snprintf(why, n, "perf_event_paranoid is %d", paranoid);
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, n, "perf_event_open: %s", strerror(errno));
		return -1;
	}
	pg = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		snprintf(why, n, "mmap of the perf page: %s", strerror(errno));
		close(fd);
		return -1;
	}
	r = trace_tsc_from_perf_page(c, pg, why, n);
	munmap(pg, (size_t)page);
	close(fd);
	return r;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* A (tsc, ns) pair read as close together as we can: the narrowest of a
 * few rdtsc / clock_gettime / rdtsc windows, the TSC at its middle. */
static void pair(uint64_t *tsc, int64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 16; i++) {
		uint64_t t0 = __builtin_ia32_rdtsc();
		int64_t t = mono_ns();
		uint64_t t1 = __builtin_ia32_rdtsc();

		if (t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = t;
		}
	}
}

static int calibrate(struct trace_tsc_conv *c)
{
	struct timespec nap = { 0, CALIBRATION_NS };
	uint64_t tsc0, tsc1;
	int64_t ns0, ns1;
	double hz;

	pair(&tsc0, &ns0);
	while (nanosleep(&nap, &nap) < 0 && errno == EINTR)
		;
	pair(&tsc1, &ns1);
	if (ns1 <= ns0 || tsc1 <= tsc0)
		return -1;
	hz = (double)(tsc1 - tsc0) * 1e9 / (double)(ns1 - ns0);
	if (trace_tsc_from_freq(c, (uint64_t)(hz + 0.5), tsc1, (uint64_t)ns1) < 0)
		return -1;
	c->source = TRACE_TSC_CALIBRATED;
	return 0;
}

int trace_tsc_measure(struct trace_tsc_conv *c)
{
	char why[sizeof(c->note)];

	memset(c, 0, sizeof(*c));
	if (from_perf(c, why, sizeof(why)) < 0) {
		memset(c, 0, sizeof(*c));
		if (calibrate(c) < 0) {
			memset(c, 0, sizeof(*c));
			return -1;
		}
		snprintf(c->note, sizeof(c->note), "%s", why);
	}
	c->start_tsc = __builtin_ia32_rdtsc();
	c->has_start = 1;
	return 0;
}
