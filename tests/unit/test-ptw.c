/* tests/unit/test-ptw.c: trace/ring and trace/ptw: ring sizes, snapshots,
 * cyclic copy, and the packet sequences of docs/pt-packets.md checked with
 * libipt's packet decoder. */
#include "tests/unit/test.h"
#include "trace/ptw.h"
#include "trace/ring.h"
#include "trace/swc.h"

#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

/* Packet types (and ipc / tnt sizes) of buf, from its first PSB. */
struct pkts { int n; enum pt_packet_type type[8192]; int ipc[8192]; int bits[8192]; };

static int list_packets(const uint8_t *buf, size_t len, struct pkts *out)
{
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct pt_packet p;

	out->n = 0;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec || pt_pkt_sync_forward(dec) < 0)
		return -1;
	while (out->n < 8192 && pt_pkt_next(dec, &p, sizeof(p)) > 0) {
		out->type[out->n] = p.type;
		out->ipc[out->n] = p.payload.ip.ipc;
		out->bits[out->n] = (p.type == ppt_tnt_8 || p.type == ppt_tnt_64) ? p.payload.tnt.bit_size : 0;
		out->n++;
	}
	pt_pkt_free_decoder(dec);
	return 0;
}

static void snap(struct trace_ring *r, struct pkts *p)
{
	uint8_t *b;
	size_t n;

	trace_ring_snapshot(r, &b, &n, NULL);
	list_packets(b, n, p);
	free(b);
}

TEST(round_size)
{
	CHECK_INT(trace_ring_round_size(0), 4096);
	CHECK_INT(trace_ring_round_size(1), 4096);
	CHECK_INT(trace_ring_round_size(4096), 4096);
	CHECK_INT(trace_ring_round_size(4097), 8192);
	CHECK_INT(trace_ring_round_size(12288), 16384);
	CHECK_INT(trace_ring_round_size(1 << 20), 1 << 20);
}

TEST(cyclic_copy)
{
	uint8_t aux[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, out[8];

	CHECK_INT(trace_cyclic_copy(aux, 6, 0, out), -1);
	CHECK_INT(trace_cyclic_copy(aux, 0, 0, out), -1);
	CHECK_INT(trace_cyclic_copy(aux, 8, 5, out), 5);       /* before wrap */
	CHECK(!memcmp(out, aux, 5));
	CHECK_INT(trace_cyclic_copy(aux, 8, 8, out), 8);       /* exactly full */
	CHECK(!memcmp(out, aux, 8));
	CHECK_INT(trace_cyclic_copy(aux, 8, 8 + 3, out), 8);   /* after wrap */
	CHECK_INT(out[0], 3);
	CHECK_INT(out[4], 7);
	CHECK_INT(out[5], 0);
	CHECK_INT(out[7], 2);
	CHECK_INT(trace_cyclic_copy(aux, 8, 64 + 7, out), 8);
	CHECK_INT(out[0], 7);
	CHECK_INT(out[1], 0);
}

TEST(ring_wrap_pad_snapshot)
{
	struct trace_ring r;
	uint8_t pkt[10], *b;
	size_t n;

	CHECK_INT(trace_ring_init(&r, 100, NULL), 0);
	CHECK_INT(r.size, 4096);
	memset(pkt, 0xab, sizeof(pkt));
	trace_ring_snapshot(&r, &b, &n, NULL);
	CHECK_INT(n, 0);
	free(b);
	for (int i = 0; i < 409; i++)           /* 4090 bytes */
		CHECK_INT(trace_ring_write(&r, pkt, 10), 0);
	trace_ring_snapshot(&r, &b, &n, NULL);
	CHECK_INT(n, 4090);
	for (int i = 0; i < 16; i++)
		CHECK_INT(b[n + i], 0);
	free(b);
	pkt[0] = 0x11;
	CHECK_INT(trace_ring_write(&r, pkt, 10), 0);   /* 6 PAD bytes, wrap */
	CHECK_INT(r.pos, 10);
	CHECK_INT(r.total, 4106);
	CHECK_INT(r.buf[4090], 0);
	CHECK_INT(r.buf[4095], 0);
	trace_ring_snapshot(&r, &b, &n, NULL);
	CHECK_INT(n, 4096);
	CHECK_INT(b[0], 0xab);                 /* oldest: [10,4096) */
	CHECK_INT(b[4080], 0);                 /* the PAD fill */
	CHECK_INT(b[4086], 0x11);              /* newest packet last */
	CHECK_INT(b[4095], 0xab);
	CHECK_INT(b[4096], 0);
	free(b);
	CHECK_INT(trace_ring_write(&r, pkt, 65), -1);
	trace_ring_release(&r);
}

TEST(start_sequence)
{
	struct trace_ring r;
	struct trace_ptw w;
	struct trace_ptw_config c = { 4096, 1 };
	static struct pkts p;
	static const enum pt_packet_type want[] = {
		ppt_psb, ppt_tsc, ppt_mode, ppt_psbend, ppt_tsc, ppt_mode, ppt_tip_pge,
		ppt_tnt_8, ppt_tsc, ppt_fup, ppt_tip_pgd,
	};

	trace_ring_init(&r, 4096, NULL);
	CHECK_INT(trace_ptw_init(&w, &r, &c, NULL), 0);
	trace_ptw_set_time(&w, 1000);
	CHECK_INT(trace_ptw_cond(&w, 1), -1);          /* not enabled */
	CHECK_INT(trace_ptw_enable(&w, 0x400000), 0);
	CHECK_INT(trace_ptw_enable(&w, 0x400000), -1); /* balance (§3.2) */
	CHECK_INT(trace_ptw_cond(&w, 1), 0);
	CHECK_INT(trace_ptw_cond(&w, 0), 0);
	CHECK_INT(trace_ptw_cond(&w, 0), 0);
	CHECK_INT(trace_ptw_disable_async(&w, 0x400010), 0);
	snap(&r, &p);
	CHECK_INT(p.n, (int)(sizeof(want) / sizeof(want[0])));
	for (int i = 0; i < p.n; i++)
		CHECK_INT(p.type[i], want[i]);
	CHECK_INT(p.ipc[6], pt_ipc_sext_48);   /* after PSB: last IP invalid */
	CHECK_INT(p.bits[7], 3);
	/* payload 0b100 + stop bit: 0b1100 << 1 = 0x18 (§5 bit order) */
	CHECK_INT(r.buf[16 + 8 + 2 + 2 + 8 + 2 + 7], 0x18);
	CHECK_INT(p.ipc[9], pt_ipc_update_16);
	CHECK_INT(p.ipc[10], pt_ipc_suppressed);
	trace_ptw_release(&w);
	trace_ring_release(&r);
}

TEST(tnt_64_at_47)
{
	struct trace_ring r;
	struct trace_ptw w;
	static struct pkts p;
	size_t before;

	trace_ring_init(&r, 4096, NULL);
	trace_ptw_init(&w, &r, NULL, NULL);
	trace_ptw_enable(&w, 0x400000);
	before = trace_ptw_bytes_written(&w);
	for (int i = 0; i < 46; i++)
		trace_ptw_cond(&w, i & 1);
	CHECK_INT(trace_ptw_bytes_written(&w), before);
	trace_ptw_cond(&w, 1);
	CHECK_INT(trace_ptw_bytes_written(&w), before + 8);
	for (int i = 0; i < 7; i++)
		trace_ptw_cond(&w, 1);
	trace_ptw_jump_indirect(&w, 0x400010);     /* flush 7 bits: TNT-64 */
	trace_ptw_cond(&w, 1);
	trace_ptw_syscall(&w);                     /* flush 1 bit: TNT-8 */
	snap(&r, &p);
	CHECK_INT(p.n, 10);
	CHECK_INT(p.type[5], ppt_tnt_64);
	CHECK_INT(p.bits[5], 47);
	CHECK_INT(p.type[6], ppt_tnt_64);
	CHECK_INT(p.bits[6], 7);
	CHECK_INT(p.type[7], ppt_tip);
	CHECK_INT(p.ipc[7], pt_ipc_update_16);
	CHECK_INT(p.type[8], ppt_tnt_8);
	CHECK_INT(p.type[9], ppt_tip_pgd);
	CHECK_INT(p.ipc[9], pt_ipc_suppressed);
	trace_ptw_release(&w);
	trace_ring_release(&r);
}

TEST(ret_compression_and_stack)
{
	struct trace_ring r;
	struct trace_ptw w;
	static struct pkts p;

	trace_ring_init(&r, 4096, NULL);
	trace_ptw_init(&w, &r, NULL, NULL);
	trace_ptw_enable(&w, 0x400000);
	trace_ptw_call_direct(&w, 0x40000e, 0);
	trace_ptw_call_direct(&w, 0x400100, 1);     /* disp 0: no push */
	CHECK_INT(w.stack_n, 1);
	trace_ptw_ret(&w, 0x40000e);                /* compressed: TNT bit */
	CHECK_INT(w.stack_n, 0);
	CHECK_INT(w.tnt_n, 1);
	trace_ptw_call_indirect(&w, 0x400020, 0x400018);
	trace_ptw_ret(&w, 0x400030);                /* other target: TIP, no pop */
	CHECK_INT(w.stack_n, 1);
	trace_ptw_ret(&w, 0x400020);
	CHECK_INT(w.stack_n, 0);
	for (int i = 0; i < 70; i++)                /* 64-entry ring drops oldest */
		trace_ptw_call_direct(&w, 0x401000 + i, 0);
	CHECK_INT(w.stack_n, 64);
	trace_ptw_disable_async(&w, 0x400000);
	snap(&r, &p);
	/* PSB MODE PSBEND MODE PGE TNT8(1) TIP(call*) TIP(ret) TNT8(1) FUP PGD */
	CHECK_INT(p.n, 11);
	CHECK_INT(p.type[5], ppt_tnt_8);
	CHECK_INT(p.type[6], ppt_tip);
	CHECK_INT(p.type[7], ppt_tip);
	CHECK_INT(p.type[8], ppt_tnt_8);
	CHECK_INT(p.type[9], ppt_fup);
	trace_ptw_release(&w);
	trace_ring_release(&r);
}

TEST(periodic_psb_forms)
{
	struct trace_ring r;
	struct trace_ptw w;
	struct trace_ptw_config c = { 64, 0 };
	static struct pkts p;
	int npsb = 0, fup_after_psb = 0;

	trace_ring_init(&r, 4096, NULL);
	CHECK_INT(trace_ptw_init(&w, &r, &(struct trace_ptw_config){ 32, 0 }, NULL), -1);
	CHECK_INT(trace_ptw_init(&w, &r, &c, NULL), 0);
	CHECK_INT(trace_ptw_maybe_psb(&w, 0x400000), 0);   /* not started */
	trace_ptw_enable(&w, 0x400000);
	trace_ptw_call_direct(&w, 0x400005, 0);
	for (int i = 0; i < 200; i++) {
		trace_ptw_cond(&w, 1);
		trace_ptw_jump_indirect(&w, 0x400000 + i);
		if (trace_ptw_maybe_psb(&w, 0x400000 + i) == 1) {
			npsb++;
			CHECK_INT(w.stack_n, 0);
			CHECK_INT(w.tnt_n, 0);
		}
	}
	trace_ptw_disable_async(&w, 0x400000);
	CHECK_INT(trace_ptw_bytes_written(&w) > 64 * 10, 1);
	CHECK(npsb > 10);
	while (trace_ptw_maybe_psb(&w, 0) == 0) {          /* disabled form */
		trace_ptw_enable(&w, 0x400000);
		trace_ptw_disable_async(&w, 0x400000);
	}
	snap(&r, &p);
	for (int i = 0; i + 3 < p.n; i++) {
		if (p.type[i] == ppt_psb && p.type[i + 1] == ppt_mode && p.type[i + 2] == ppt_fup) {
			fup_after_psb++;
			CHECK_INT(p.ipc[i + 2], pt_ipc_sext_48);
			CHECK_INT(p.type[i + 3], ppt_psbend);
		}
	}
	CHECK(fup_after_psb > 5);
	CHECK_INT(p.type[p.n - 3], ppt_psb);
	CHECK_INT(p.type[p.n - 2], ppt_mode);
	CHECK_INT(p.type[p.n - 1], ppt_psbend);
	trace_ptw_release(&w);
	trace_ring_release(&r);
}

TEST(ip_compression)
{
	struct trace_ring r;
	struct trace_ptw w;
	static struct pkts p;

	trace_ring_init(&r, 4096, NULL);
	trace_ptw_init(&w, &r, NULL, NULL);
	trace_ptw_enable(&w, 0x400000);               /* sext48 */
	trace_ptw_disable_async(&w, 0x400123);        /* FUP update16 */
	trace_ptw_enable(&w, 0x400200);               /* PGE update16 after FUP+PGD(-) */
	trace_ptw_jump_indirect(&w, 0x7ffff7a01000);  /* update32? no: bits 32+ differ -> sext48 */
	trace_ptw_jump_indirect(&w, 0x7ffff8a01000);  /* update32 */
	trace_ptw_jump_indirect(&w, 0xffff800000001000ull); /* canonical kernel: sext48 */
	trace_ptw_jump_indirect(&w, 0xffff000000000000ull); /* non-canonical: update48 */
	trace_ptw_jump_indirect(&w, 0x1234000000000000ull); /* full */
	trace_ptw_syscall(&w);
	trace_ptw_overflow(&w, 0x400300);             /* sext48 after OVF */
	snap(&r, &p);
	CHECK_INT(p.n, 18);
	CHECK_INT(p.type[4], ppt_tip_pge); CHECK_INT(p.ipc[4], pt_ipc_sext_48);
	CHECK_INT(p.type[5], ppt_fup);     CHECK_INT(p.ipc[5], pt_ipc_update_16);
	CHECK_INT(p.type[8], ppt_tip_pge); CHECK_INT(p.ipc[8], pt_ipc_update_16);
	CHECK_INT(p.ipc[9], pt_ipc_sext_48);
	CHECK_INT(p.ipc[10], pt_ipc_update_32);
	CHECK_INT(p.ipc[11], pt_ipc_sext_48);
	CHECK_INT(p.ipc[12], pt_ipc_update_48);
	CHECK_INT(p.ipc[13], pt_ipc_full);
	CHECK_INT(p.type[15], ppt_ovf);
	CHECK_INT(p.type[16], ppt_mode);
	CHECK_INT(p.type[17], ppt_tip_pge); CHECK_INT(p.ipc[17], pt_ipc_sext_48);
	trace_ptw_release(&w);
	trace_ring_release(&r);
}

/* --tsc: a PSB+ written while the thread runs carries the time it is
 * written, not the time of the last stop. */
TEST(swc_psb_carries_current_time)
{
	struct trace_swc_thread t;
	struct disasm_insn jcc;
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	struct pt_packet p;
	uint64_t tscs[4096];
	size_t n = 0, distinct = 0, len;
	uint8_t *buf;

	CHECK_INT(trace_swc_init(&t, 1, 1, 1 << 16, 64, 1, NULL), 0);
	memset(&jcc, 0, sizeof(jcc));
	jcc.addr = 0x400000;
	jcc.len = 2;
	jcc.kind = DISASM_KIND_JCC;
	jcc.has_target = 1;
	jcc.target = 0x400000;
	CHECK_INT(trace_swc_resume(&t, 0x400000), 0);
	for (int i = 0; i < 5000; i++)
		CHECK_INT(trace_swc_executed(&t, &jcc, 0x400000), 0);
	CHECK_INT(trace_swc_pause(&t, 0x400000), 0);
	trace_ring_snapshot(&t.ring, &buf, &len, NULL);
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	CHECK(dec && pt_pkt_sync_forward(dec) >= 0);
	while (n < 4096 && pt_pkt_next(dec, &p, sizeof(p)) > 0)
		if (p.type == ppt_tsc)
			tscs[n++] = p.payload.tsc.tsc;
	pt_pkt_free_decoder(dec);
	free(buf);
	trace_swc_release(&t);
	for (size_t i = 0; i < n; i++) {
		CHECK(i == 0 || tscs[i] >= tscs[i - 1]);
		distinct += i == 0 || tscs[i] != tscs[i - 1];
	}
	/* the start, the PSB+s in between (about one per 64 bytes) and the stop */
	CHECK(distinct > 10);
}

/* The TNT and IP packets the writer encodes itself are byte for byte
 * libipt's: every TNT size with a pattern of bits, every IP compression
 * against several last IPs. */
static size_t libipt_enc(const struct pt_packet *p, uint8_t *out)
{
	struct pt_config cfg;
	struct pt_encoder *e;
	int n;

	pt_config_init(&cfg);
	cfg.begin = out;
	cfg.end = out + 64;
	e = pt_alloc_encoder(&cfg);
	n = e ? pt_enc_next(e, p) : -1;
	if (e)
		pt_free_encoder(e);
	return n > 0 ? (size_t)n : 0;
}

/* What the writer appended to r since total was at: into out. */
static size_t appended(const struct trace_ring *r, uint64_t at, uint8_t *out)
{
	size_t n = (size_t)(r->total - at);

	memcpy(out, r->buf + r->pos - n, n);
	return n;
}

TEST(own_encoding_is_libipts)
{
	struct trace_ring r;
	struct trace_ptw w;
	struct ptdb_err err;
	static const uint64_t ips[] = { 0x401000, 0x7f12345678ab, 0x401234, 0x4012345678, 0xffffffff81000000ull,
					0x8000123400000000ull, 0x7f1234560000, 0x10 };
	uint8_t a[64], b[64];

	CHECK_INT(trace_ring_init(&r, 1 << 20, &err), 0);
	CHECK_INT(trace_ptw_init(&w, &r, NULL, &err), 0);
	CHECK_INT(trace_ptw_enable(&w, 0x401000), 0);
	for (unsigned nbits = 1; nbits <= 47; nbits++) {
		uint64_t pat = 0x5a5a3c3cf0f0a5c3ull ^ nbits * 0x9e3779b97f4a7c15ull, at = r.total;
		struct pt_packet p;

		for (unsigned i = 0; i < nbits; i++)
			CHECK_INT(trace_ptw_cond(&w, (int)(pat >> (nbits - 1 - i)) & 1), 0);
		CHECK_INT(trace_ptw_flush(&w), 0);
		memset(&p, 0, sizeof(p));
		p.type = nbits <= 6 ? ppt_tnt_8 : ppt_tnt_64;
		p.payload.tnt.bit_size = (uint8_t)nbits;
		p.payload.tnt.payload = pat & ((1ull << nbits) - 1);
		CHECK_INT(appended(&r, at, a), libipt_enc(&p, b));
		CHECK(!memcmp(a, b, appended(&r, at, a)));
	}
	for (size_t i = 0; i < sizeof(ips) / sizeof(ips[0]); i++)
		for (size_t j = 0; j < sizeof(ips) / sizeof(ips[0]); j++) {
			struct pt_packet p;
			uint64_t at;
			size_t n;

			CHECK_INT(trace_ptw_jump_indirect(&w, ips[i]), 0);
			at = r.total;
			memset(&p, 0, sizeof(p));
			p.type = ppt_tip;
			p.payload.ip.ip = ips[j];
			/* (the compression the writer chose, read back) */
			CHECK_INT(trace_ptw_jump_indirect(&w, ips[j]), 0);
			n = appended(&r, at, a);
			p.payload.ip.ipc = (enum pt_ip_compression)(a[0] >> 5);
			CHECK_INT(n, libipt_enc(&p, b));
			CHECK(!memcmp(a, b, n));
			p.type = ppt_fup;
			CHECK_INT(trace_ptw_disable_async(&w, ips[j]), 0);
			CHECK_INT(trace_ptw_enable(&w, ips[i]), 0);
		}
	trace_ptw_release(&w);
	trace_ring_release(&r);
}

TEST_MAIN(swc_psb_carries_current_time, round_size, cyclic_copy, ring_wrap_pad_snapshot, start_sequence, tnt_64_at_47,
	  ret_compression_and_stack, periodic_psb_forms, ip_compression,
	  own_encoding_is_libipts)
