/* tests/unit/test-perf-model.c: the intel-pt backend's reading of the
 * kernel's rings (trace/ipt_perf.c) and its PMU facts (trace/ipt.c), driven
 * by the perf mmap model of tests/unit/perf_model.h and sysfs fixtures in
 * the kernel's own formats.  Test plan:
 *
 *  M1  the model itself: a writable data ring keeps the oldest records,
 *      drops the rest and says so with PERF_RECORD_LOST; an overwrite-mode
 *      aux ring's aux_head is an offset inside the buffer
 *  M2  a wrapped aux ring is read whole, oldest first: the newest bytes
 *      (all of them) are kept (finding 1)
 *  M3  an aux ring that has not wrapped: its bytes come last, zeros (PAD)
 *      before them
 *  M4  caps/psb_periods as the kernel writes it (%x: "3f") allows
 *      --psb-period 4 KiB (finding 2)
 *  M5  more context switches between two stops than the data ring holds:
 *      the newest are kept, in time order, and the loss is counted
 *      (finding 3); the next read goes on from there
 *  M6  the intel_pt event excludes the idle task (exclude_idle)
 *  M7  locked-memory limits do not bind with CAP_IPC_LOCK or
 *      perf_event_paranoid -1 (/proc/self/status and the sysctl's text)
 *  M8  TSC to time with timeShift above 32 (rem * mult past 64 bits)
 *  M9  a hardware ring that wrapped never goes unsaid: the read knows it
 *      (and that an unwrapped one did not), and dump info and the dump
 *      header say more than the buffer's size was written into it, the
 *      oldest part lost; an unwrapped one says nothing
 */
#include "tests/unit/test.h"
#include "tests/unit/perf_model.h"
#include "cmd/trace-loss.h"
#include "trace/swc.h"
#include "trace/cpusplit.h"
#include "trace/ipt.h"
#include "trace/ring.h"
#include "trace/tsc.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void put_switch(struct perf_model *m, uint64_t time, int out)
{
	struct trace_switch s = { time, 100, 100 + (pid_t)(time % 7), out };
	uint8_t *rec = NULL;
	size_t len = 0, cap = 0;

	trace_switch_append(&rec, &len, &cap, &s, 200, 201);
	pm_record(m, rec, len);
	free(rec);
}

/* M1 */
TEST(model_follows_the_kernel)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	struct perf_model m;
	uint8_t b[3 * PM_PAGE];
	struct trace_switch *sw;
	size_t n;
	uint64_t lost = 0;

	/* a writable forward ring of one page: 128 switch records fit */
	memset(&m, 0, sizeof(m));
	m.data_size = PM_PAGE;
	m.mp = calloc(1, 2 * PM_PAGE);
	m.data = (uint8_t *)m.mp + PM_PAGE;
	for (uint64_t t = 1; t <= 130; t++) {
		struct trace_switch s = { t, 1, 1, 0 };
		uint8_t *rec = NULL;
		size_t len = 0, cap = 0;

		trace_switch_append(&rec, &len, &cap, &s, 2, 2);
		pm_record_(&m, rec, len);
		free(rec);
	}
	CHECK_INT(m.head, PM_PAGE);
	CHECK_INT(m.dropped, 2);
	/* the reader frees the ring: the next record comes after a LOST */
	m.mp->data_tail = m.head;
	{
		struct trace_switch s = { 131, 1, 1, 0 };
		uint8_t *rec = NULL;
		size_t len = 0, cap = 0;

		trace_switch_append(&rec, &len, &cap, &s, 2, 2);
		pm_record_(&m, rec, len);
		free(rec);
	}
	CHECK_INT(m.head, PM_PAGE + 40 + 32);
	CHECK_INT(((struct perf_event_header *)m.data)->type, PM_RECORD_LOST);
	memcpy(&lost, m.data + 16, 8);
	CHECK_INT(lost, 2);
	CHECK_INT(trace_switch_parse(m.data, 72, &sw, &n, NULL), 0);
	CHECK_INT(n, 1);
	CHECK_INT(sw[0].time, 131);
	free(sw);
	free(m.mp);

	/* overwrite-mode aux: aux_head is where the PMU stopped, mod size */
	pm_open(&m, &a, 0, 1);
	m.aux_overwrite = 1;
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(i + 1);
	pm_aux_write(&m, b, PM_PAGE + 100);
	pm_aux_stop(&m);
	CHECK_INT(m.mp->aux_head, 100);
	pm_close(&m);
}

/* M2 */
TEST(wrapped_aux_keeps_the_newest)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	struct perf_model m;
	size_t size = 4 * PM_PAGE, total = size * 2 + 1000;
	uint8_t *b = malloc(total), *out;
	size_t len;
	struct ptdb_err err;

	for (size_t i = 0; i < total; i++)
		b[i] = (uint8_t)(i % 251 + 1);
	pm_open(&m, &a, 0, size / PM_PAGE);
	pm_aux_write(&m, b, total);
	pm_aux_stop(&m);
	CHECK_INT(trace_ipt_event_read_aux(&m.ev, &out, &len, &err), 0);
	CHECK_INT(m.ev.aux_wrapped, 1);
	CHECK_INT(len, size);
	CHECK(!memcmp(out, b + total - size, size));
	for (size_t i = 0; i < TRACE_RING_SLACK; i++)
		CHECK_INT(out[len + i], 0);
	free(out);
	free(b);
	pm_close(&m);
}

/* M3 */
TEST(unwrapped_aux_is_padded_before)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	struct perf_model m;
	size_t size = 2 * PM_PAGE, w = 700;
	uint8_t b[700], *out;
	size_t len, at;
	struct ptdb_err err;

	for (size_t i = 0; i < w; i++)
		b[i] = (uint8_t)(i % 13 + 1);
	pm_open(&m, &a, 0, size / PM_PAGE);
	pm_aux_write(&m, b, w);
	pm_aux_stop(&m);
	CHECK_INT(trace_ipt_event_read_aux(&m.ev, &out, &len, &err), 0);
	CHECK_INT(m.ev.aux_wrapped, 0);
	CHECK(len >= w);
	at = len - w;
	CHECK(!memcmp(out + at, b, w));
	for (size_t i = 0; i < at; i++)
		CHECK_INT(out[i], 0);	/* PAD */
	free(out);
	pm_close(&m);
}

static void put_file(const char *root, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* M4: the files as the kernel writes them: type "%d\n", format
 * "config:10\n", caps (pt_cap_show) "%x\n" */
TEST(psb_periods_in_the_kernels_format)
{
	char root[] = "/tmp/ptdb-pmu-XXXXXX", path[600];
	struct trace_ipt_pmu p;
	struct ptdb_err err;
	unsigned n = 99;

	CHECK(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/format", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/caps", root);
	mkdir(path, 0755);
	put_file(root, "type", "10\n");
	put_file(root, "format/tsc", "config:10\n");
	put_file(root, "format/psb_period", "config:24-27\n");
	put_file(root, "caps/psb_cyc", "1\n");
	put_file(root, "caps/psb_periods", "3f\n");
	CHECK_INT(trace_ipt_pmu_read(&p, root, &err), 0);
	CHECK_INT(p.type, 10);
	CHECK_INT(p.psb_periods, 0x3f);
	CHECK_INT(trace_ipt_psb_exponent(&p, 4096, &n, &err), 0);
	CHECK_INT(n, 1);
	put_file(root, "caps/psb_periods", "ffff\n");
	CHECK_INT(trace_ipt_pmu_read(&p, root, &err), 0);
	CHECK_INT(p.psb_periods, 0xffff);
	for (const char *f = "type\0format/tsc\0format/psb_period\0caps/psb_cyc\0caps/psb_periods\0";
	     *f; f += strlen(f) + 1) {
		snprintf(path, sizeof(path), "%s/%s", root, f);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/format", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/caps", root);
	rmdir(path);
	rmdir(root);
}

/* M5 */
TEST(switch_ring_keeps_the_newest)
{
	struct perf_event_attr a;
	struct perf_model m;
	struct trace_switch *sw;
	struct ptdb_err err;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;
	uint64_t t = 0, fits = TRACE_IPT_SWITCH_BYTES / 32;

	trace_ipt_attr_switch(&a);
	pm_open(&m, &a, TRACE_IPT_SWITCH_BYTES / PM_PAGE, 0);
	/* a first stop with a few switches */
	while (t < 10) {
		t++;
		put_switch(&m, t, t & 1);
	}
	CHECK_INT(trace_ipt_event_read_data(&m.ev, &buf, &len, &cap, &err), 0);
	CHECK_INT(m.ev.data_lost, 0);
	/* then half as many again as the ring holds before the next stop */
	while (t < 10 + fits + fits / 2) {
		t++;
		put_switch(&m, t, t & 1);
	}
	CHECK_INT(trace_ipt_event_read_data(&m.ev, &buf, &len, &cap, &err), 0);
	CHECK_INT(trace_switch_parse(buf, len, &sw, &n, &err), 0);
	CHECK(n > 10);
	/* the first stop's ten, then the newest, contiguous up to the last */
	for (size_t i = 0; i < 10; i++)
		CHECK_INT(sw[i].time, i + 1);
	CHECK_INT(sw[n - 1].time, t);
	for (size_t i = 11; i < n; i++)
		CHECK_INT(sw[i].time, sw[i - 1].time + 1);
	CHECK(n - 10 >= fits - 1);	/* a torn oldest one at most */
	CHECK(m.ev.data_lost > 0);	/* and the loss is known */
	free(sw);
	/* and on from there at the next stop, nothing lost */
	m.ev.data_lost = 0;
	for (int i = 0; i < 5; i++) {
		t++;
		put_switch(&m, t, 0);
	}
	CHECK_INT(trace_ipt_event_read_data(&m.ev, &buf, &len, &cap, &err), 0);
	CHECK_INT(m.ev.data_lost, 0);
	CHECK_INT(trace_switch_parse(buf, len, &sw, &n, &err), 0);
	CHECK_INT(sw[n - 1].time, t);
	CHECK_INT(sw[n - 6].time, t - 5);
	free(sw);
	free(buf);
	pm_close(&m);
}

/* M6 */
TEST(intel_pt_excludes_idle)
{
	struct trace_ipt_pmu p = { .type = 10 };
	struct trace_ipt_opts o = { 0 };
	struct perf_event_attr a;

	CHECK_INT(trace_ipt_attr_pt(&a, &p, &o, 0, NULL), 0);
	CHECK_INT(a.exclude_kernel, 1);
	CHECK_INT(a.exclude_hv, 1);
	CHECK_INT(a.exclude_idle, 1);
}

/* M7 */
TEST(mlock_limits_and_their_exemptions)
{
	const char *root_caps = "Name:\tptdb\nUmask:\t0022\nCapInh:\t0000000000000000\n"
				"CapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\n";
	const char *user_caps = "Name:\tptdb\nCapInh:\t0000000000000000\n"
				"CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n";
	const char *ipc_lock = "Name:\tptdb\nCapEff:\t0000000000004000\n";
	struct trace_ipt_limits l = { .mlock_kb = 516, .has_mlock = 1, .memlock = 8 << 20, .ncpus = 2 };
	struct ptdb_err err;

	CHECK_INT(trace_ipt_mlock_exempt(root_caps, "2\n"), 1);
	CHECK_INT(trace_ipt_mlock_exempt(ipc_lock, "2\n"), 1);
	CHECK_INT(trace_ipt_mlock_exempt(user_caps, "2\n"), 0);
	CHECK_INT(trace_ipt_mlock_exempt(user_caps, "1\n"), 0);
	CHECK_INT(trace_ipt_mlock_exempt(user_caps, "-1\n"), 1);
	CHECK_INT(trace_ipt_mlock_exempt(NULL, NULL), 0);
	/* 64 MiB over 516 KiB per CPU and 8 MiB: refused unless exempt */
	CHECK_INT(trace_ipt_check_mlock(&l, 64 << 20, 4096, 0, 1, &err), -1);
	l.privileged = trace_ipt_mlock_exempt(user_caps, "-1\n");
	CHECK_INT(trace_ipt_check_mlock(&l, 64 << 20, 4096, 0, 1, &err), 0);
}

/* M9: what the backend keeps of a read (trace_ring_take_aux, as
 * core/collectors/dbg_ipt.c does at every stop) and what dump info and the dump
 * header say of it. */
static char *loss_texts(size_t size, size_t w)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	struct trace_swc_thread th;
	struct perf_model m;
	uint8_t *b = malloc(w), *out;
	size_t len, n = 0;
	struct ptdb_err err;
	char *text = NULL;
	FILE *f = open_memstream(&text, &n);

	for (size_t i = 0; i < w; i++)
		b[i] = (uint8_t)(i % 13 + 1);
	memset(&th, 0, sizeof(th));
	pm_open(&m, &a, 0, size / PM_PAGE);
	pm_aux_write(&m, b, w);
	pm_aux_stop(&m);
	if (trace_ipt_event_read_aux(&m.ev, &out, &len, &err) == 0) {
		trace_ring_take_aux(&th.ring, out, len, m.ev.aux_size, m.ev.aux_wrapped);
		cmd_trace_loss_info(f, &th);
		cmd_trace_loss_line(f, &th);
		free(th.ring.buf);
	}
	fclose(f);
	free(b);
	pm_close(&m);
	return text;
}

TEST(hardware_ring_wrap_is_reported)
{
	char *t = loss_texts(4 * PM_PAGE, 4 * PM_PAGE * 3 + 100);

	CHECK_STR(t, "    Trace buffer wrapped: more than 16 KiB written into 16 KiB, the oldest "
		  "part is lost\n"
		  "  (trace buffer wrapped: more than 16 KiB written into 16 KiB; the oldest part "
		  "of the history is lost)\n");
	free(t);
	t = loss_texts(4 * PM_PAGE, 3000);
	CHECK_STR(t, "");
	free(t);
}

/* M8 */
TEST(tsc_with_a_large_shift)
{
	struct trace_tsc_conv c = { .mult = 1u << 31, .shift = 40, .zero = 5, .valid = 1 };
	uint64_t tsc = ((uint64_t)1 << 40) - 1;

	/* (2^40 - 1) * 2^31 / 2^40 = 2^31 - 2^-9: floor 2^31 - 1 */
	CHECK_INT(trace_tsc_to_ns(&c, tsc), 5 + ((uint64_t)1 << 31) - 1);
	/* shift 63: quot 1, rem 2^62; 5 * 2^62 >> 63 = 2 */
	c.shift = 63;
	c.mult = 5;
	CHECK_INT(trace_tsc_to_ns(&c, ((uint64_t)1 << 63) + ((uint64_t)1 << 62)), 5 + 5 + 2);
}

TEST_MAIN(model_follows_the_kernel, wrapped_aux_keeps_the_newest, unwrapped_aux_is_padded_before,
	  psb_periods_in_the_kernels_format, switch_ring_keeps_the_newest, intel_pt_excludes_idle,
	  mlock_limits_and_their_exemptions, tsc_with_a_large_shift,
	  hardware_ring_wrap_is_reported)
