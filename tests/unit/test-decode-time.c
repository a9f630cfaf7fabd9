/* tests/unit/test-decode-time.c: time in the decoded trace of the
 * simulated program (decode_sim.h): ticks between branches where the
 * hardware writes TSC there, a tick only where the time changes, time
 * spans around an instruction, and none of it without TSC packets. */
#include "tests/unit/test.h"
#include "tests/unit/decode_sim.h"

#include <intel-pt.h>

/* Encodes PSB+ (with TSC 1000), TIP.PGE(BASE), the loop's TNTs with TSC
 * 2000 after the first, and FUP(BASE+9)+TIP.PGD; tsc 0: no TSC at all. */
static size_t timed_loop_trace(uint8_t *buf, size_t cap, int tsc)
{
	struct pt_config cfg;
	struct pt_encoder *e;
	struct pt_packet pk[16];
	int n = 0, tnt[4] = { 1, 1, 1, 0 };
	uint64_t off = 0;

	memset(pk, 0, sizeof(pk));
	pk[n++].type = ppt_psb;
	pk[n].type = ppt_mode;
	pk[n].payload.mode.leaf = pt_mol_exec;
	pk[n++].payload.mode.bits.exec.csl = 1;
	if (tsc) {
		pk[n].type = ppt_tsc;
		pk[n++].payload.tsc.tsc = 1000;
	}
	pk[n++].type = ppt_psbend;
	pk[n] = pk[1];	/* MODE.Exec before TIP.PGE */
	n++;
	pk[n].type = ppt_tip_pge;
	pk[n].payload.ip.ipc = pt_ipc_sext_48;
	pk[n++].payload.ip.ip = BASE;
	for (int k = 0; k < 4; k++) {
		pk[n].type = ppt_tnt_8;
		pk[n].payload.tnt.bit_size = 1;
		pk[n++].payload.tnt.payload = (uint64_t)tnt[k];
		if (k == 0 && tsc) {
			pk[n].type = ppt_tsc;
			pk[n++].payload.tsc.tsc = 2000;
		}
	}
	pk[n].type = ppt_fup;
	pk[n].payload.ip.ipc = pt_ipc_sext_48;
	pk[n++].payload.ip.ip = BASE + 9;
	pk[n].type = ppt_tip_pgd;
	pk[n++].payload.ip.ipc = pt_ipc_suppressed;
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + cap;
	e = pt_alloc_encoder(&cfg);
	for (int k = 0; e && k < n; k++)
		if (pt_enc_next(e, &pk[k]) < 0)
			n = -1;
	if (e && n > 0)
		pt_enc_get_offset(e, &off);
	pt_free_encoder(e);
	return n > 0 ? (size_t)off : 0;
}

/* Hardware's TSC (or MTC, CYC) comes between branches, not only with
 * events: the decoder asks libipt for tick events when the trace has time,
 * so the new time lands at its branch; a trace without any TSC decodes the
 * same instructions with no tick at all. */
TEST(decode_tick_between_branches)
{
	struct trace_image img;
	uint8_t buf[256 + 16];

	CHECK(make_image(&img) == 0);
	for (int tsc = 1; tsc >= 0; tsc--) {
		struct trace_decoded *d;
		struct trace_item it;
		uint64_t insns = 0, tick_at = UINT64_MAX, ticks = 0;
		size_t len = timed_loop_trace(buf, 256, tsc);

		memset(buf + len, 0, 16);
		CHECK(len > 0);
		CHECK_INT(decode_both(buf, len, &img, &d), 0);
		for (uint64_t i = 0; i < trace_decoded_item_count(d); i++) {
			CHECK_INT(trace_decoded_item(d, i, &it, next_ip, NULL), 0);
			if (it.kind == TRACE_ITEM_INSN)
				insns++;
			if (it.kind == TRACE_ITEM_EVENT && it.event == TRACE_EV_TICK) {
				ticks++;
				if (it.tsc == 2000)
					tick_at = insns;
			}
		}
		CHECK_INT(insns, 9);	/* mov, then dec/jnz four times */
		if (tsc) {
			/* after the first jnz (3 instructions), before the last */
			CHECK(tick_at >= 3 && tick_at < 9);
		} else {
			CHECK_INT(ticks, 0);
		}
		trace_decoded_free(d);
	}
	free_image(&img);
}

/* A tick whenever the time changes and only then; every timed event has
 * its time in force; the time span around an instruction brackets it. */
TEST(decode_ticks_and_time_span)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	struct trace_item it;
	struct trace_time_span sp;
	uint8_t *buf;
	size_t len;
	uint64_t now = 0, ticks = 0, first_insn = UINT64_MAX, last_insn = 0;
	int have = 0;

	sim_init(&s, 1 << 16, 4096);
	s.w.now = 1000;
	program(&s, 3, 0);	/* times 1010, 1020 (syscall), 1030 (resume) */
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	CHECK_INT(decode_both(buf, len, &img, &d), 0);
	for (uint64_t i = 0; i < trace_decoded_item_count(d); i++) {
		CHECK_INT(trace_decoded_item(d, i, &it, next_ip, NULL), 0);
		if (it.kind == TRACE_ITEM_INSN) {
			if (first_insn == UINT64_MAX)
				first_insn = i;
			last_insn = i;
		}
		if (it.kind != TRACE_ITEM_EVENT || !it.has_tsc)
			continue;
		if (it.event == TRACE_EV_TICK) {
			CHECK(!have || it.tsc != now);	/* only new times */
			now = it.tsc;
			have = 1;
			ticks++;
		} else {
			CHECK(have && it.tsc == now);	/* announced by a tick */
		}
	}
	CHECK_INT(ticks, 3);
	CHECK_INT(now, 1030);
	trace_decoded_time_span(d, first_insn, &sp);
	CHECK(sp.has_lo && sp.lo_tsc == 1010 && sp.lo_index < first_insn);
	CHECK(sp.has_hi && sp.hi_tsc == 1020 && sp.hi_index > first_insn);
	trace_decoded_time_span(d, last_insn, &sp);
	CHECK(sp.has_lo && sp.lo_tsc == 1030);
	CHECK(sp.has_hi && sp.hi_index > last_insn);	/* the final stop's disable */
	trace_decoded_time_span(d, trace_decoded_item_count(d) - 1, &sp);
	CHECK(sp.has_lo && !sp.has_hi);
	trace_decoded_free(d);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

/* Without TSC packets there are no timing points at all. */
TEST(decode_no_tsc_no_time)
{
	struct sim s;
	struct trace_image img;
	struct trace_decoded *d;
	struct trace_time_span sp;
	uint8_t *buf;
	size_t len;

	sim_init_tsc(&s, 1 << 16, 4096, 0);
	program(&s, 3, 0);
	CHECK(make_image(&img) == 0);
	trace_ring_snapshot(&s.ring, &buf, &len, NULL);
	CHECK_INT(decode_both(buf, len, &img, &d), 0);
	CHECK(trace_decoded_insn_count(d) > 0);
	trace_decoded_time_span(d, trace_decoded_item_count(d) / 2, &sp);
	CHECK(!sp.has_lo && !sp.has_hi);
	trace_decoded_free(d);
	free(buf);
	free_image(&img);
	sim_free(&s);
}

TEST_MAIN(decode_tick_between_branches, decode_ticks_and_time_span, decode_no_tsc_no_time)
