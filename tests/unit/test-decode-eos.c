/* tests/unit/test-decode-eos.c: a trace that ends in the middle of a block
 * (no TIP.PGD) ends at its last packet.  The four cases of libipt's own
 * conformance tests (test/src/tip-eos.ptt, tnt_n-eos.ptt, tnt_t-eos.ptt,
 * fup-tip-eos.ptt), with their code and packets: the reference decoder
 * lists the first instruction, then "[end of trace]" -- nothing of the code
 * the last branch leads to, and no error. */
#include "tests/unit/test.h"
#include "trace/decode.h"

#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ORG 0x1000ull

static uint64_t no_next(void *ctx, uint64_t ip)
{
	(void)ctx;
	return ip + 1;
}

/* Decodes the packets pk[n] over code (at ORG); *ninsn instructions go to
 * ips; returns the decoded trace (NULL on failure). */
static struct trace_decoded *decode(const uint8_t *code, size_t clen, const struct pt_packet *pk,
				    int n, uint64_t *ips, size_t max, size_t *ninsn)
{
	char path[64];
	struct trace_image img;
	struct trace_decoded *d = NULL;
	struct pt_config cfg;
	struct pt_encoder *e;
	uint8_t buf[256];
	uint64_t off = 0;
	int fd;

	memset(buf, 0, sizeof(buf));
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + sizeof(buf) - 16;	/* slack after the end (libipt 2.0.5) */
	e = pt_alloc_encoder(&cfg);
	for (int k = 0; e && k < n; k++)
		if (pt_enc_next(e, &pk[k]) < 0)
			n = -1;
	if (!e || n < 0 || pt_enc_get_offset(e, &off) < 0) {
		pt_free_encoder(e);
		return NULL;
	}
	pt_free_encoder(e);
	snprintf(path, sizeof(path), "/tmp/ptdb-test-eos-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, code, clen) != (ssize_t)clen)
		return NULL;
	close(fd);
	if (trace_image_init(&img, NULL) == 0 &&
	    trace_image_add_file(&img, path, 0, clen, ORG, NULL) == 0 &&
	    trace_decode(buf, (size_t)off, &img, &d, NULL) == 0) {
		struct trace_item it;

		*ninsn = 0;
		for (uint64_t i = 0; i < trace_decoded_item_count(d); i++) {
			if (trace_decoded_item(d, i, &it, no_next, NULL) < 0)
				break;
			if (it.kind == TRACE_ITEM_INSN && *ninsn < max)
				ips[(*ninsn)++] = it.ip;
		}
	}
	trace_image_release(&img);
	unlink(path);
	return d;
}

/* psb, mode.exec(64bit), fup(3: l0), psbend: pk[0..3] */
static int header(struct pt_packet *pk)
{
	memset(pk, 0, 8 * sizeof(*pk));
	pk[0].type = ppt_psb;
	pk[1].type = ppt_mode;
	pk[1].payload.mode.leaf = pt_mol_exec;
	pk[1].payload.mode.bits.exec.csl = 1;
	pk[2].type = ppt_fup;
	pk[2].payload.ip.ipc = pt_ipc_sext_48;
	pk[2].payload.ip.ip = ORG;
	pk[3].type = ppt_psbend;
	return 4;
}

/* The expectation of every case: l0, then the end; no error. */
static int only_l0(const uint8_t *code, size_t clen, const struct pt_packet *pk, int n)
{
	uint64_t ips[16];
	size_t ninsn = 0;
	struct trace_decoded *d = decode(code, clen, pk, n, ips, 16, &ninsn);
	int ok = d && ninsn == 1 && ips[0] == ORG && trace_decoded_gap_count(d) == 0;

	if (d && !ok) {
		printf("#   %zu instructions:", ninsn);
		for (size_t i = 0; i < ninsn; i++)
			printf(" %#llx", (unsigned long long)ips[i]);
		printf("; %llu errors\n", (unsigned long long)trace_decoded_gap_count(d));
	}
	trace_decoded_free(d);
	return ok;
}

/* l0: jmp rax | l1: hlt | l2: hlt; the trace ends with tip(3: l2). */
TEST(tip_eos)
{
	static const uint8_t code[] = { 0xff, 0xe0, 0xf4, 0xf4 };
	struct pt_packet pk[8];
	int n = header(pk);

	pk[n].type = ppt_tip;
	pk[n].payload.ip.ipc = pt_ipc_sext_48;
	pk[n++].payload.ip.ip = ORG + 3;
	CHECK(only_l0(code, sizeof(code), pk, n));
}

/* l0: je l2 | l1: hlt | l2: hlt; the trace ends with tnt(n) or tnt(t). */
static int tnt_eos(int taken)
{
	static const uint8_t code[] = { 0x74, 0x01, 0xf4, 0xf4 };
	struct pt_packet pk[8];
	int n = header(pk);

	pk[n].type = ppt_tnt_8;
	pk[n].payload.tnt.bit_size = 1;
	pk[n++].payload.tnt.payload = (uint64_t)taken;
	return only_l0(code, sizeof(code), pk, n);
}

TEST(tnt_n_eos) { CHECK(tnt_eos(0)); }
TEST(tnt_t_eos) { CHECK(tnt_eos(1)); }

/* l0: nop | l1: hlt | l2: hlt; an interrupt at l1 to l2: fup(1: l1),
 * tip(1: l2), and the trace ends. */
TEST(fup_tip_eos)
{
	static const uint8_t code[] = { 0x90, 0xf4, 0xf4 };
	struct pt_packet pk[8];
	int n = header(pk);

	pk[n].type = ppt_fup;
	pk[n].payload.ip.ipc = pt_ipc_update_16;
	pk[n++].payload.ip.ip = ORG + 1;
	pk[n].type = ppt_tip;
	pk[n].payload.ip.ipc = pt_ipc_update_16;
	pk[n++].payload.ip.ip = ORG + 2;
	CHECK(only_l0(code, sizeof(code), pk, n));
}

TEST_MAIN(tip_eos, tnt_n_eos, tnt_t_eos, fup_tip_eos)
