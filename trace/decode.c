/* trace/decode.c: libipt block-decoder loop (pt-packets.md §13) producing a
 * compact decoded thread, and the item iterator over it.
 *
 * Storage: a dictionary of distinct blocks (ip, end_ip, ninsn, flags) and a
 * run-length list of block occurrences: each run is one 32-bit word holding
 * a dictionary index (24 bits) and a repeat count (1..128, 7 bits); a loop
 * body decoded a million times is some 8,000 runs.  Memory matters twice:
 * for its size and because every fresh page costs a fault while decoding.
 * Gaps and events are side-table entries that occupy one item each and are
 * referenced from the run list with TRACE_RUN_SIDE.  Every 64 runs a
 * checkpoint stores the first item index of that run for random access.
 * The side items (gaps, events, sync points, ticks) are trace/decode_events.c's. */
#include "trace/decode.h"
#include "trace/decode_int.h"
#include "trace/pages.h"

#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

static uint64_t decode_serial;	/* decodes so far */

static uint64_t block_hash(const struct trace_dblock *b)
{
	uint64_t h = b->ip * 0x9e3779b97f4a7c15ull;

	h ^= (b->end_ip + ((uint64_t)b->ninsn << 32) + b->flags) * 0xc2b2ae3d27d4eb4full;
	return h ^ (h >> 29);
}

static void dict_grow(struct trace_decoded *d)
{
	size_t cap = d->hcap ? 2 * d->hcap : 1024;

	free(d->htab);
	d->htab = xcalloc(cap, sizeof(*d->htab));
	d->hcap = cap;
	for (size_t i = 0; i < d->ndict; i++) {
		size_t h = (size_t)block_hash(&d->dict[i]) & (cap - 1);

		while (d->htab[h])
			h = (h + 1) & (cap - 1);
		d->htab[h] = (uint32_t)i + 1;
	}
}

/* b's fields come as values: a block built on the stack with two 32-bit
 * stores and compared as one 64-bit load (the compiler merges ninsn and
 * flags) stalls store forwarding on every block, a fifth of the decode. */
static int dict_find(struct trace_decoded *d, uint64_t ip, uint64_t end_ip, uint32_t ninsn,
		     uint32_t flags, uint32_t *idx)
{
	const struct trace_dblock key = { ip, end_ip, ninsn, flags };
	size_t h;

	if (2 * (d->ndict + 1) > d->hcap)
		dict_grow(d);
	h = (size_t)block_hash(&key) & (d->hcap - 1);
	while (d->htab[h]) {
		const struct trace_dblock *e = &d->dict[d->htab[h] - 1];

		if (e->ip == ip && e->end_ip == end_ip && e->ninsn == ninsn && e->flags == flags) {
			*idx = d->htab[h] - 1;
			return 0;
		}
		h = (h + 1) & (d->hcap - 1);
	}
	if (d->ndict >= RUN_IDX_MAX)
		return -1;
	if (d->ndict == d->cdict) {
		d->cdict = d->cdict ? 2 * d->cdict : 256;
		d->dict = xrealloc(d->dict, d->cdict * sizeof(*d->dict));
	}
	d->dict[d->ndict] = key;
	d->htab[h] = (uint32_t)d->ndict + 1;
	*idx = (uint32_t)d->ndict++;
	return 0;
}

/* The code versions of img (trace/pages.h) for d's blocks. */
static void use_pages(struct trace_decoded *d, const struct trace_image *img)
{
	d->pages = img ? img->pages : NULL;
	d->tagging = trace_pages_touched(d->pages);
	d->gen = 0;
	trace_gen_images_free(d->gi);
	d->gi = trace_gen_images_new(img);
}

/* The decoder dec is done with: its images per generation go. */
static void free_decoder(struct trace_decoded *d, struct pt_block_decoder *dec)
{
	pt_blk_free_decoder(dec);
	trace_gen_images_free(d->gi);
	d->gi = NULL;
	d->dec = NULL;
}

static int add_block(struct trace_decoded *d, const struct pt_block *blk)
{
	uint32_t idx, ninsn = blk->ninsn;
	struct trace_run *last;

	if (!ninsn)
		return 0;
	if (d->mode == TRACE_MODE_INDEX) {	/* counts only: the chunks have the
						 * blocks (a dictionary here was a
						 * tenth of the pass) */
		d->items += ninsn;
		d->insns += ninsn;
		d->blocks++;
		return 0;
	}
	if (dict_find(d, blk->ip, blk->end_ip, ninsn,
		      (uint32_t)blk->mode | (blk->truncated ? 0x100u : 0u) |
		      (d->tagging ? trace_pages_tag(d->pages, blk->ip, d->gen) << 12 : 0u), &idx) < 0)
		return -1;
	last = d->nruns ? &d->runs[d->nruns - 1] : NULL;
	if (last && !(last->v & TRACE_RUN_SIDE) && RUN_IDX(last->v) == idx &&
	    RUN_REP(last->v) < RUN_REP_MAX)
		last->v += 1u << RUN_IDX_BITS;
	else
		trace_add_run(d, idx);
	d->items += ninsn;
	d->insns += ninsn;
	d->blocks++;
	return 0;
}

/* Decoding is done: the dictionary's hash goes, the arrays shrink to fit. */
static void trim(struct trace_decoded *d)
{
	free(d->htab);
	d->htab = NULL;
	d->hcap = 0;
	if (d->nruns) {
		d->runs = xrealloc(d->runs, d->nruns * sizeof(*d->runs));
		d->cruns = d->nruns;
	}
	if (d->ndict) {
		d->dict = xrealloc(d->dict, d->ndict * sizeof(*d->dict));
		d->cdict = d->ndict;
	}
	if (d->nckpt) {
		d->ckpt = xrealloc(d->ckpt, d->nckpt * sizeof(*d->ckpt));
		d->cckpt = d->nckpt;
	}
	if (d->nside) {
		d->side = xrealloc(d->side, d->nside * sizeof(*d->side));
		d->cside = d->nside;
	}
}

int trace_decode(const uint8_t *buf, size_t len, struct trace_image *img,
		 struct trace_decoded **out, struct ptdb_err *err)
{
	return trace_decode_hooked(buf, len, img, NULL, out, err);
}

#define HOOK_EVERY 4096		/* blocks between progress calls */

/* Instructions decoded while the decoder's position in the trace stands
 * still: code runs that long without a packet (every conditional branch,
 * return and indirect branch needs one) only in a loop of direct jumps (a
 * hostile or corrupt image: 'jmp .'), which no packet would ever end.
 * Past it: an error item, and decoding goes on at the next PSB. */
#define ENDLESS_INSNS ((uint64_t)1 << 16)

struct pt_packet_decoder *trace_pkt_decoder(const uint8_t *buf, size_t len)
{
	struct pt_config cfg;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	return pt_pkt_alloc_decoder(&cfg);
}

/* Whether the trace carries time: a TSC packet in its first PSB+ (hardware
 * and --tsc software traces put one in every PSB+).  Without, libipt is
 * not asked for tick events: looking for a new time at every branch costs
 * about an eighth of the decode, and the time never changes. */
static int has_timing(const uint8_t *buf, size_t len)
{
	struct pt_packet_decoder *pd;
	int found = 0;

	pd = trace_pkt_decoder(buf, len);
	if (!pd)
		return 1;
	if (pt_pkt_sync_forward(pd) >= 0) {
		struct pt_packet pk;

		for (int n = 0; n < 64 && pt_pkt_next(pd, &pk, sizeof(pk)) >= 0; n++) {
			if (pk.type == ppt_tsc) {
				found = 1;
				break;
			}
			if (pk.type == ppt_psbend)
				break;
		}
	}
	pt_pkt_free_decoder(pd);
	return found;
}

/* A block decoder over buf[0,len) reading code from img (NULL: none). */
static struct pt_block_decoder *new_decoder(const uint8_t *buf, size_t len,
					    const struct trace_image *img, int timing,
					    struct ptdb_err *err)
{
	struct pt_config cfg;
	struct pt_block_decoder *dec;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	cfg.flags.variant.block.enable_tick_events = (uint32_t)timing;
	/* libipt 2.0.5 follows a direct jump or call inside one block by
	 * recursing once per instruction (up to 65535 deep): a loop of
	 * direct jumps ('jmp .') overflows the stack.  Ending blocks there
	 * bounds the recursion. */
	cfg.flags.variant.block.end_on_jump = 1;
	cfg.flags.variant.block.end_on_call = 1;
	if (img && img->cpu.intel) {
		cfg.cpu.vendor = pcv_intel;
		cfg.cpu.family = img->cpu.family;
		cfg.cpu.model = img->cpu.model;
		cfg.cpu.stepping = img->cpu.stepping;
		if (pt_cpu_errata(&cfg.errata, &cfg.cpu) < 0) {
			ptdb_err_set(err, "unsupported CPU family %u model %u for Intel PT decoding",
				     cfg.cpu.family, cfg.cpu.model);
			return NULL;
		}
	}
	dec = pt_blk_alloc_decoder(&cfg);
	if (!dec) {
		ptdb_err_set(err, "cannot allocate the Intel PT block decoder");
		return NULL;
	}
	if (img && img->image && pt_blk_set_image(dec, img->image) < 0) {
		pt_blk_free_decoder(dec);
		ptdb_err_set(err, "cannot set the trace image");
		return NULL;
	}
	return dec;
}

static struct trace_decoded *new_decoded(const uint8_t *buf, size_t len, int mode)
{
	struct trace_decoded *d = xcalloc(1, sizeof(*d));

	d->mode = mode;
	d->serial = __atomic_add_fetch(&decode_serial, 1, __ATOMIC_RELAXED);
	trace_cursor_init(&d->cur, d);
	d->buf = buf;
	d->len = len;
	d->next_psb = UINT64_MAX;
	d->stop_off = UINT64_MAX;
	return d;
}

/* The decode loop: from the first PSB (set: from the PSB at set_off) to
 * the end, or in a chunk to the next chunk's PSB.  0, -1 (err), or
 * TRACE_DECODE_CANCELLED. */
static int decode_run(struct trace_decoded *d, struct pt_block_decoder *dec,
		      const struct trace_decode_hook *hook, int set, uint64_t set_off,
		      struct ptdb_err *err)
{
	uint64_t prev_sync = 0;
	unsigned until_hook = HOOK_EVERY;
	int have_prev = 0, synced_once = 0;

	d->dec = dec;
	trace_gen_images_set(d->gi, dec, d->gen);

	for (;;) {
		uint64_t sync = 0;
		int status = set ? pt_blk_sync_set(dec, set_off) : pt_blk_sync_forward(dec);

		uint64_t gap_ip = 0;

		set = 0;
		if (status < 0) {
			if (status != -pte_eos)
				trace_add_gap(d, dec, status, 0);
			else if (!synced_once)
				trace_add_gap(d, dec, TRACE_GAP_NO_SYNC, 0);	/* not one PSB */
			break;
		}
		synced_once = 1;
		pt_blk_get_sync_offset(dec, &sync);
		if (have_prev && sync <= prev_sync)
			break;
		prev_sync = sync;
		have_prev = 1;
		trace_synced(d, dec);
		if (d->stop)
			break;
		{
		uint64_t still = 0, at = UINT64_MAX;

		for (;;) {
			struct pt_block blk;
			uint64_t pos = 0;

			if (status >= 0 && (status & pts_event_pending))
				status = trace_drain(d, dec, status);
			if (status < 0 || d->stop)
				break;
			if (status & pts_eos) {	/* the last packet is read: the
						 * trace ends here, not where the
						 * code after it would lead */
				status = -pte_eos;
				break;
			}
			memset(&blk, 0, sizeof(blk));
			status = pt_blk_next(dec, &blk, sizeof(blk));
			if (add_block(d, &blk) < 0)
				return ptdb_err_set(err, "decoded trace too large");
			if (status < 0) {
				/* nothing decoded: blk.ip is where it failed
				 * (the unmapped address for "no memory mapped") */
				if (!blk.ninsn)
					gap_ip = blk.ip;
				break;
			}
			pt_blk_get_offset(dec, &pos);
			still = pos == at ? still + blk.ninsn : 0;
			at = pos;
			if (still > ENDLESS_INSNS) {
				status = TRACE_GAP_ENDLESS;	/* on at the next PSB */
				gap_ip = blk.ip;
				break;
			}
			if (hook && --until_hook == 0) {
				uint64_t off = 0;

				until_hook = HOOK_EVERY;
				pt_blk_get_offset(dec, &off);
				if (hook->progress(hook->ctx, off, d->len)) {
					ptdb_err_code(err, PTDB_E_CANCELLED, "interrupted");
					return TRACE_DECODE_CANCELLED;
				}
			}
		}
		}
		if (d->stop || status == -pte_eos)
			break;
		trace_add_gap(d, dec, status, gap_ip);
	}
	return 0;
}

struct trace_decoded *trace_decoded_new(const uint8_t *buf, size_t len, int mode)
{
	return new_decoded(buf, len, mode);
}

int trace_decode_span(struct trace_decoded *d, const struct trace_image *img, int timing,
		      const struct trace_decode_hook *hook, int set, uint64_t off,
		      struct ptdb_err *err)
{
	struct pt_block_decoder *dec = new_decoder(d->buf, d->len, img, timing, err);
	int r;

	if (!dec)
		return -1;
	use_pages(d, img);
	r = decode_run(d, dec, hook, set, off, err);
	free_decoder(d, dec);
	return r;
}

int trace_dict_add(struct trace_decoded *d, const struct trace_dblock *b)
{
	uint32_t idx;

	return dict_find(d, b->ip, b->end_ip, b->ninsn, b->flags, &idx);
}

/* Decodes buf (mode FULL or INDEX) into d. */
static int decode_all(struct trace_decoded *d, struct trace_image *img, int timing,
		      const struct trace_decode_hook *hook, struct ptdb_err *err)
{
	struct pt_block_decoder *dec;
	int r;

	if (img && img->ncpu_marks) {
		d->marks = img->cpu_marks;
		d->mark_cpus = img->cpu_ids;
		d->nmarks = img->ncpu_marks;
	}
	use_pages(d, img);
	if (!d->len)
		return 0;
	dec = new_decoder(d->buf, d->len, img, timing, err);
	if (!dec)
		return -1;
	r = decode_run(d, dec, hook, 0, 0, err);
	free_decoder(d, dec);
	return r;
}

int trace_decode_hooked(const uint8_t *buf, size_t len, struct trace_image *img,
			const struct trace_decode_hook *hook, struct trace_decoded **out,
			struct ptdb_err *err)
{
	struct trace_decoded *d = new_decoded(buf, len, TRACE_MODE_FULL);
	int r;

	*out = NULL;
	r = decode_all(d, img, len && has_timing(buf, len), hook, err);
	if (r < 0) {
		trace_decoded_free(d);
		return r;
	}
	trim(d);
	d->buf = NULL;		/* the caller's; not kept */
	d->marks = NULL;
	d->mark_cpus = NULL;
	*out = d;
	return 0;
}

int trace_decode_indexed(const uint8_t *buf, size_t len, struct trace_image *img,
			 size_t chunk_bytes, const struct trace_decode_hook *hook,
			 struct trace_decoded **out, struct ptdb_err *err)
{
	struct trace_decoded *d = new_decoded(buf, len, TRACE_MODE_INDEX);
	struct trace_index *ix = trace_index_new(d, img, chunk_bytes);
	int r;

	*out = NULL;
	ix->timing = len && has_timing(buf, len);
	r = trace_index_parallel(d, img, hook, err);
	if (r == 0)
		r = decode_all(d, img, d->ix->timing, hook, err);	/* (a fresh index when the parallel pass fell back) */
	else if (r == 1)
		r = 0;
	if (r < 0) {
		trace_decoded_free(d);
		return r;
	}
	trace_index_flush(d);
	trace_index_finish(d);
	trim(d);
	free(d->side);		/* (emptied by the flushes) */
	d->side = NULL;
	d->nside = d->cside = 0;
	d->buf = NULL;
	d->marks = NULL;
	d->mark_cpus = NULL;
	*out = d;
	return 0;
}

struct trace_decoded *trace_decode_chunk(const struct trace_decoded *top, size_t ci)
{
	const struct trace_index *ix = top->ix;
	const struct trace_ixent *e = &ix->ent[ci];
	struct trace_decoded *st = new_decoded(ix->buf, ix->len, TRACE_MODE_CHUNK);
	struct pt_block_decoder *dec;
	int r;

	st->marks = ix->marks;
	st->mark_cpus = ix->mark_cpus;
	st->nmarks = ix->nmarks;
	st->next_mark = e->next_mark;
	st->last_tsc = e->last_tsc;
	st->have_tsc = e->have_tsc;
	st->hw_disabled = e->hw_disabled;
	st->first_resumed = e->first_resumed;
	st->stop_off = ci + 1 < ix->n ? ix->ent[ci + 1].off : UINT64_MAX;
	use_pages(st, &ix->img);
	dec = new_decoder(ix->buf, ix->len, ix->img.image ? &ix->img : NULL, ix->timing, NULL);
	if (!dec) {
		trace_decoded_free(st);
		return NULL;
	}
	r = decode_run(st, dec, NULL, ci > 0, e->off, NULL);
	free_decoder(st, dec);
	if (r < 0) {
		trace_decoded_free(st);
		return NULL;
	}
	trim(st);
	st->buf = NULL;
	st->marks = NULL;
	st->mark_cpus = NULL;
	return st;
}

void trace_decoded_free(struct trace_decoded *d)
{
	if (!d)
		return;
	trace_cursor_release(&d->cur);
	if (d->ix)
		trace_index_free(d->ix);
	free(d->dict);
	free(d->htab);
	free(d->runs);
	free(d->ckpt);
	free(d->side);
	free(d->gens);
	trace_gen_images_free(d->gi);
	free(d);
}

uint64_t trace_decoded_insn_count(const struct trace_decoded *d) { return d->insns; }
uint64_t trace_decoded_serial(const struct trace_decoded *d) { return d->serial; }
uint64_t trace_decoded_item_count(const struct trace_decoded *d) { return d->items; }
uint64_t trace_decoded_block_count(const struct trace_decoded *d) { return d->blocks; }
uint64_t trace_decoded_gap_count(const struct trace_decoded *d) { return d->gaps; }

size_t trace_decoded_mem_bytes(const struct trace_decoded *d)
{
	return (d->ix ? trace_index_mem_bytes(d->ix) : 0) + sizeof(*d) + d->cdict * sizeof(*d->dict) + d->hcap * sizeof(*d->htab) +
	       d->cruns * sizeof(*d->runs) + d->cckpt * sizeof(*d->ckpt) +
	       d->cside * sizeof(*d->side) + d->cur.cap * sizeof(*d->cur.ips);
}
