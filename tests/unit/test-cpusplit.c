/* tests/unit/test-cpusplit.c: per-CPU traces — context-switch records in
 * perf's layout, the software backend's one-CPU stream, and splitting it
 * into threads that decode to exactly what each thread executed. */
#include "tests/unit/test.h"
#include "trace/cpusplit.h"
#include "trace/decode.h"
#include "trace/ring.h"
#include "trace/swc.h"

#include <stdlib.h>
#include <unistd.h>

static const struct trace_tsc_conv ticks = { .mult = 1, .valid = 1 };

/* One CPU's trace split into threads the way core/ does it: its pieces,
 * then the threads' parts merged from them. */
static int split_one_cpu(const uint8_t *buf, size_t len, const struct trace_switch *sw, size_t nsw,
			 const struct trace_tsc_conv *conv, struct trace_split_thread **out,
			 size_t *n, struct ptdb_err *err)
{
	struct trace_piece *pieces = NULL;
	size_t np = 0;
	int r;

	*out = NULL;
	*n = 0;
	if (trace_split_pieces(buf, len, sw, nsw, conv, 0, &pieces, &np, err) < 0) {
		free(pieces);
		return -1;
	}
	r = trace_split_merge(&buf, pieces, np, out, n);
	free(pieces);
	return r;
}

TEST(switch_records_round_trip)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;
	struct trace_switch s = { 1234567, 10, 11, 1 }, *out;

	trace_switch_append(&buf, &len, &cap, &s, 10, 12);
	s.out = 0;
	s.tid = 12;
	s.time = 1234999;
	trace_switch_append(&buf, &len, &cap, &s, 10, 11);
	CHECK_INT(len, 64);
	/* perf_event_header: type 15 (SWITCH_CPU_WIDE), misc SWITCH_OUT, size 32 */
	CHECK_INT(buf[0], 15);
	CHECK_INT(buf[5], 0x20);
	CHECK_INT(buf[6], 32);
	CHECK_INT(trace_switch_parse(buf, len, &out, &n, NULL), 0);
	CHECK_INT(n, 2);
	CHECK_INT(out[0].out, 1);
	CHECK_INT(out[0].tid, 11);
	CHECK_INT(out[0].pid, 10);
	CHECK_INT(out[0].time, 1234567);
	CHECK_INT(out[1].out, 0);
	CHECK_INT(out[1].tid, 12);
	CHECK_INT(out[1].time, 1234999);
	free(out);
	free(buf);
}

TEST(switch_records_hostile)
{
	uint8_t rec[40] = { 0 };
	struct trace_switch *out;
	struct ptdb_err e;
	size_t n;

	/* size 0 would never advance */
	rec[0] = 15;
	CHECK_INT(trace_switch_parse(rec, 32, &out, &n, &e), -1);
	CHECK(strstr(e.msg, "too small") != NULL);
	/* a size past the end */
	rec[6] = 200;
	CHECK_INT(trace_switch_parse(rec, 32, &out, &n, &e), -1);
	CHECK(strstr(e.msg, "runs past the end") != NULL);
	/* a cut header */
	CHECK_INT(trace_switch_parse(rec, 5, &out, &n, &e), -1);
	CHECK(strstr(e.msg, "cut off") != NULL);
	/* other record types (here PERF_RECORD_LOST, 16 bytes) are skipped */
	memset(rec, 0, sizeof(rec));
	rec[0] = 2;
	rec[6] = 16;
	CHECK_INT(trace_switch_parse(rec, 16, &out, &n, &e), 0);
	CHECK_INT(n, 0);
	free(out);
}

static void nop(struct trace_swc_thread *t, uint64_t ip)
{
	struct disasm_insn in;

	memset(&in, 0, sizeof(in));
	in.addr = ip;
	in.len = 1;
	in.kind = DISASM_KIND_OTHER;
	trace_swc_executed(t, &in, ip + 1);
}

static uint64_t next_ip(void *ctx, uint64_t ip)
{
	(void)ctx;
	return ip + 1;
}

/* The instructions of a split part, decoded against a page of NOPs. */
/* "CPU core changed" events of the last decode_part: the CPU, and how
 * many instructions came before. */
static int cpu_events[8][2], ncpu_events;

static int decode_part(const struct trace_split_thread *p, const char *code, uint64_t *ips, int max)
{
	struct trace_image img;
	struct trace_decoded *d;
	int n = 0;

	if (trace_image_init(&img, NULL) < 0 || trace_image_add_file(&img, code, 0, 0x2000, 0x1000, NULL) < 0)
		return -1;
	img.cpu_marks = p->cpu_marks;
	img.cpu_ids = p->cpu_ids;
	img.ncpu_marks = p->ncpu_marks;
	if (trace_decode(p->bytes, p->len, &img, &d, NULL) < 0)
		return -1;
	ncpu_events = 0;
	for (uint64_t i = 0; i < trace_decoded_item_count(d); i++) {
		struct trace_item it;

		if (trace_decoded_item(d, i, &it, next_ip, NULL) < 0)
			continue;
		if (it.kind == TRACE_ITEM_INSN && n < max)
			ips[n++] = it.ip;
		if (it.kind == TRACE_ITEM_EVENT && it.event == TRACE_EV_CPU && ncpu_events < 8) {
			cpu_events[ncpu_events][0] = it.cpu;
			cpu_events[ncpu_events++][1] = n;
		}
	}
	trace_decoded_free(d);
	trace_image_release(&img);
	return n;
}

TEST(one_cpu_split_exact)
{
	char code[] = "/tmp/ptdb-test-nops-XXXXXX";
	int fd = mkstemp(code);
	uint8_t nops[0x2000];
	struct trace_swc_cpu c;
	struct trace_swc_thread a, b;
	struct trace_switch *sw;
	struct trace_split_thread *parts;
	uint8_t *buf;
	size_t len, nsw, nparts;
	uint64_t ips[32];

	CHECK(fd >= 0);
	memset(nops, 0x90, sizeof(nops));
	CHECK_INT(write(fd, nops, sizeof(nops)), (long long)sizeof(nops));
	close(fd);
	CHECK_INT(trace_swc_cpu_init(&c, 0, 10, 4096, 0, &ticks, NULL), 0);
	trace_swc_init_on_cpu(&a, 11, 1, &c);
	trace_swc_init_on_cpu(&b, 12, 2, &c);
	/* A runs 5, B 3, A 2 more, then the process stops */
	CHECK_INT(trace_swc_resume(&a, 0x1000), 0);
	for (int i = 0; i < 5; i++)
		nop(&a, 0x1000 + (uint64_t)i);
	CHECK_INT(trace_swc_resume(&b, 0x2000), 0);
	for (int i = 0; i < 3; i++)
		nop(&b, 0x2000 + (uint64_t)i);
	for (int i = 5; i < 7; i++)
		nop(&a, 0x1000 + (uint64_t)i);
	CHECK_INT(trace_swc_pause(&b, 0x2003), 0);	/* off the CPU: nothing */
	CHECK_INT(trace_swc_pause(&a, 0x1007), 0);
	CHECK_INT(c.switches, 3);
	CHECK_INT(c.sw_len, 5 * 32);	/* in A; out A, in B; out B, in A */

	CHECK_INT(trace_switch_parse(c.sw, c.sw_len, &sw, &nsw, NULL), 0);
	CHECK_INT(trace_ring_snapshot(&c.s.ring, &buf, &len, NULL), 0);
	CHECK_INT(split_one_cpu(buf, len, sw, nsw, &c.conv, &parts, &nparts, NULL), 0);
	CHECK_INT(nparts, 2);
	CHECK_INT(parts[0].tid, 11);
	CHECK_INT(parts[0].executions, 2);
	CHECK_INT(parts[0].inexact, 0);
	CHECK_INT(parts[1].tid, 12);
	CHECK_INT(parts[1].executions, 1);
	CHECK_INT(decode_part(&parts[0], code, ips, 32), 7);
	for (int i = 0; i < 7; i++)
		CHECK_INT(ips[i], 0x1000 + i);
	CHECK_INT(decode_part(&parts[1], code, ips, 32), 3);
	for (int i = 0; i < 3; i++)
		CHECK_INT(ips[i], 0x2000 + i);
	unlink(code);
	trace_split_free(parts, nparts);
	free(buf);
	free(sw);
	trace_swc_cpu_release(&c);
}

TEST(two_cpus_merge)
{
	/* A runs on CPU 0, then B there while A moves on to CPU 1: A's part is
	 * its pieces in time order with one CPU change */
	char code[] = "/tmp/ptdb-test-nops-XXXXXX";
	int fd = mkstemp(code);
	uint8_t nops[0x2000];
	struct trace_swc_cpu c0, c1;
	struct trace_swc_thread a, b;
	struct trace_piece *pieces = NULL;
	struct trace_split_thread *parts;
	const uint8_t *bufs[2];
	uint8_t *buf[2];
	size_t len[2], np = 0, nparts;
	uint64_t ips[32];

	CHECK(fd >= 0);
	memset(nops, 0x90, sizeof(nops));
	CHECK_INT(write(fd, nops, sizeof(nops)), (long long)sizeof(nops));
	close(fd);
	CHECK_INT(trace_swc_cpu_init(&c0, 0, 10, 4096, 0, &ticks, NULL), 0);
	CHECK_INT(trace_swc_cpu_init(&c1, 1, 10, 4096, 0, &ticks, NULL), 0);
	trace_swc_init_on_cpu(&a, 11, 1, &c0);
	trace_swc_init_on_cpu(&b, 12, 2, &c0);
	CHECK_INT(trace_swc_resume(&a, 0x1000), 0);
	for (int i = 0; i < 3; i++)
		nop(&a, 0x1000 + (uint64_t)i);
	CHECK_INT(trace_swc_resume(&b, 0x2000), 0);	/* A leaves CPU 0 */
	nop(&b, 0x2000);
	a.cpu = &c1;					/* and goes on on CPU 1 */
	for (int i = 3; i < 6; i++)
		nop(&a, 0x1000 + (uint64_t)i);
	trace_swc_pause(&a, 0x1006);
	b.cpu = &c0;
	trace_swc_pause(&b, 0x2001);
	for (int k = 0; k < 2; k++) {
		struct trace_swc_cpu *c = k ? &c1 : &c0;
		struct trace_switch *sw;
		size_t nsw;

		CHECK_INT(trace_switch_parse(c->sw, c->sw_len, &sw, &nsw, NULL), 0);
		CHECK_INT(trace_ring_snapshot(&c->s.ring, &buf[k], &len[k], NULL), 0);
		CHECK_INT(trace_split_pieces(buf[k], len[k], sw, nsw, &ticks, k, &pieces, &np, NULL), 0);
		bufs[k] = buf[k];
		free(sw);
	}
	CHECK_INT(np, 3);
	CHECK_INT(trace_split_merge(bufs, pieces, np, &parts, &nparts), 0);
	CHECK_INT(nparts, 2);
	CHECK_INT(parts[0].tid, 11);
	CHECK_INT(parts[0].executions, 2);
	CHECK_INT(parts[0].cpu_changes, 1);
	/* its first execution and the one on another CPU are marked */
	CHECK_INT(parts[0].ncpu_marks, 2);
	CHECK_INT(parts[0].cpu_marks[0], 0);
	CHECK_INT(parts[0].cpu_ids[0], 0);
	CHECK(parts[0].cpu_marks[1] > 0 && parts[0].cpu_marks[1] < parts[0].len);
	CHECK_INT(parts[0].cpu_ids[1], 1);
	CHECK_INT(decode_part(&parts[0], code, ips, 32), 6);
	for (int i = 0; i < 6; i++)
		CHECK_INT(ips[i], 0x1000 + i);
	/* and decode as "CPU core changed" events where they start */
	CHECK_INT(ncpu_events, 2);
	CHECK_INT(cpu_events[0][0], 0);
	CHECK_INT(cpu_events[0][1], 0);
	CHECK_INT(cpu_events[1][0], 1);
	CHECK_INT(cpu_events[1][1], 3);
	CHECK_INT(parts[1].tid, 12);
	CHECK_INT(parts[1].ncpu_marks, 1);
	CHECK_INT(decode_part(&parts[1], code, ips, 32), 1);
	CHECK_INT(ncpu_events, 1);
	unlink(code);
	trace_split_free(parts, nparts);
	free(pieces);
	free(buf[0]);
	free(buf[1]);
	trace_swc_cpu_release(&c0);
	trace_swc_cpu_release(&c1);
}

TEST(split_between_psbs)
{
	/* a switch that falls inside a PSB chunk leaves the chunk to the
	 * thread running at its start, and counts the next one's start as
	 * inexact; chunks while nobody runs are dropped */
	struct trace_ring r;
	struct trace_ptw w;
	struct trace_ptw_config cfg = { 64, 1 };
	struct trace_split_thread *parts;
	struct trace_switch sw[] = {
		{ 100, 1, 7, 0 }, { 150, 1, 7, 1 }, { 150, 1, 8, 0 }, { 300, 1, 8, 1 },
	};
	uint8_t *buf;
	size_t len, n;

	CHECK_INT(trace_ring_init(&r, 4096, NULL), 0);
	CHECK_INT(trace_ptw_init(&w, &r, &cfg, NULL), 0);
	trace_ptw_set_time(&w, 100);
	CHECK_INT(trace_ptw_psb_disabled(&w), 0);	/* chunk at 100: thread 7 */
	trace_ptw_set_time(&w, 200);
	CHECK_INT(trace_ptw_psb_disabled(&w), 0);	/* at 200: 8 (came in at 150) */
	trace_ptw_set_time(&w, 400);
	CHECK_INT(trace_ptw_psb_disabled(&w), 0);	/* at 400: nobody */
	CHECK_INT(trace_ring_snapshot(&r, &buf, &len, NULL), 0);
	CHECK_INT(split_one_cpu(buf, len, sw, 4, &ticks, &parts, &n, NULL), 0);
	CHECK_INT(n, 2);
	CHECK_INT(parts[0].tid, 7);
	CHECK_INT(parts[0].psbs, 1);
	CHECK_INT(parts[1].tid, 8);
	CHECK_INT(parts[1].psbs, 1);
	CHECK_INT(parts[1].inexact, 1);
	trace_split_free(parts, n);
	free(buf);
	trace_ptw_release(&w);
	trace_ring_release(&r);
}

TEST(split_needs_timestamps)
{
	struct trace_ring r;
	struct trace_ptw w;
	struct trace_split_thread *parts;
	struct trace_switch sw = { 1, 1, 7, 0 };
	struct ptdb_err e;
	uint8_t *buf;
	size_t len, n;

	CHECK_INT(trace_ring_init(&r, 4096, NULL), 0);
	CHECK_INT(trace_ptw_init(&w, &r, NULL, NULL), 0);	/* no TSC */
	CHECK_INT(trace_ptw_psb_disabled(&w), 0);
	CHECK_INT(trace_ring_snapshot(&r, &buf, &len, NULL), 0);
	CHECK_INT(split_one_cpu(buf, len, &sw, 1, &ticks, &parts, &n, &e), -1);
	CHECK(strstr(e.msg, "without a timestamp") != NULL);
	free(buf);
	trace_ptw_release(&w);
	trace_ring_release(&r);
}

TEST_MAIN(switch_records_round_trip, switch_records_hostile, one_cpu_split_exact, two_cpus_merge,
	  split_between_psbs, split_needs_timestamps)
