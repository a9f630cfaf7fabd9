/* trace/decode_last.c: where a trace ends without decoding it all (issue
 * 33: 'thread list' over a loaded bundle's threads shows each one's last
 * instruction).  The decode from a PSB on is the decode from the trace's
 * start past that PSB (the chunks of an indexed trace rely on it too), so
 * the last instruction is the last one decoded from the last PSB after
 * which there is one: PSBs are tried from the end, within a bounded
 * stretch of the trace. */
#include "trace/decode.h"

#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#define SPAN ((uint64_t)256 << 10)	/* trace bytes from the end tried; then
					 * the caller decodes it all */
#define ENDLESS_INSNS ((uint64_t)1 << 16)	/* as trace/decode.c's */

static const uint8_t psb[16] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };

static struct pt_block_decoder *decoder(const uint8_t *buf, size_t len, const struct trace_image *img)
{
	struct pt_config cfg;
	struct pt_block_decoder *dec;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	cfg.flags.variant.block.end_on_jump = 1;	/* as trace/decode.c's */
	cfg.flags.variant.block.end_on_call = 1;
	if (img->cpu.intel) {
		cfg.cpu.vendor = pcv_intel;
		cfg.cpu.family = img->cpu.family;
		cfg.cpu.model = img->cpu.model;
		cfg.cpu.stepping = img->cpu.stepping;
		if (pt_cpu_errata(&cfg.errata, &cfg.cpu) < 0)
			return NULL;
	}
	dec = pt_blk_alloc_decoder(&cfg);
	if (dec && pt_blk_set_image(dec, img->image) < 0) {
		pt_blk_free_decoder(dec);
		dec = NULL;
	}
	return dec;
}

/* The last instruction decoded from the PSB at off to the end: 1 (*ip),
 * 0 none. */
static int last_from(struct pt_block_decoder *dec, uint64_t off, uint64_t *ip)
{
	int found = 0, status = pt_blk_sync_set(dec, off);
	uint64_t still = 0, at = UINT64_MAX;

	while (status >= 0) {
		struct pt_block blk;
		uint64_t pos = 0;

		while (status >= 0 && (status & pts_event_pending)) {
			struct pt_event ev;

			status = pt_blk_event(dec, &ev, sizeof(ev));
		}
		if (status >= 0 && (status & pts_eos))
			break;
		if (status >= 0) {
			memset(&blk, 0, sizeof(blk));
			status = pt_blk_next(dec, &blk, sizeof(blk));
			if (blk.ninsn) {
				*ip = blk.end_ip;
				found = 1;
			}
			pt_blk_get_offset(dec, &pos);
			still = pos == at ? still + blk.ninsn : 0;
			at = pos;
		}
		if (status == -pte_eos)
			break;
		if (status < 0 || still > ENDLESS_INSNS) {	/* a gap: on at the next PSB */
			status = pt_blk_sync_forward(dec);
			still = 0;
			at = UINT64_MAX;
		}
	}
	return found;
}

/* The last PSB of buf[0,len) that begins before end, or UINT64_MAX. */
static uint64_t psb_before(const uint8_t *buf, size_t len, uint64_t end)
{
	size_t p = end < len - sizeof(psb) + 1 ? (size_t)end : len - sizeof(psb) + 1;

	while (p-- > 0)
		if (buf[p] == 0x02 && !memcmp(buf + p, psb, sizeof(psb)))
			return p;
	return UINT64_MAX;
}

int trace_last_insn_ip(const uint8_t *buf, size_t len, const struct trace_image *img, uint64_t *ip)
{
	struct pt_block_decoder *dec;
	uint64_t p = len;
	int found = 0;

	if (!img || !img->image || len < sizeof(psb) || !(dec = decoder(buf, len, img)))
		return 0;
	while (!found && (p = psb_before(buf, len, p)) != UINT64_MAX && len - p <= SPAN)
		found = last_from(dec, p, ip);
	pt_blk_free_decoder(dec);
	return found;
}
