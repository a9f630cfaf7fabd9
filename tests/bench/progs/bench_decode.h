/* tests/bench/progs/bench_decode.h: what decodebench.c and indexbench.c
 * share: the clock, and the loop a bare libipt user writes (sync, drain
 * events, next block) that they time ptdb's decoder against. */
#ifndef PTDB_BENCH_DECODE_H
#define PTDB_BENCH_DECODE_H

#include <intel-pt.h>
#include <stdint.h>
#include <time.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The instructions a block decoder made from cfg decodes over image
 * (NULL: none), every PSB to the end. */
static uint64_t bare_count(const struct pt_config *cfg, struct pt_image *image)
{
	struct pt_block_decoder *dec = pt_blk_alloc_decoder(cfg);
	uint64_t n = 0;

	if (!dec)
		return 0;
	if (image)
		pt_blk_set_image(dec, image);
	for (;;) {
		int st = pt_blk_sync_forward(dec);

		if (st < 0)
			break;
		for (;;) {
			struct pt_block b;

			while (st >= 0 && (st & pts_event_pending)) {
				struct pt_event ev;

				st = pt_blk_event(dec, &ev, sizeof(ev));
			}
			if (st < 0)
				break;
			st = pt_blk_next(dec, &b, sizeof(b));
			n += b.ninsn;
			if (st < 0)
				break;
		}
		if (st == -pte_eos)
			break;
	}
	pt_blk_free_decoder(dec);
	return n;
}

#endif
