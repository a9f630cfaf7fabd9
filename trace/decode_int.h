/* trace/decode_int.h: the decoded thread's storage, shared by
 * trace/decode.c and trace/decode_events.c (which build it) and
 * trace/decode_items.c (which reads it: items, cursors, side table, time
 * spans).  Not for other files. */
#ifndef PTDB_TRACE_DECODE_INT_H
#define PTDB_TRACE_DECODE_INT_H

#include "trace/decode.h"

#define TRACE_RUN_SIDE 0x80000000u
#define RUN_IDX_BITS 24
#define RUN_IDX_MAX ((1u << RUN_IDX_BITS) - 1)
#define RUN_IDX(v) ((v) & RUN_IDX_MAX)
#define RUN_REP(v) ((((v) >> RUN_IDX_BITS) & 0x7fu) + 1)
#define RUN_REP_MAX 128u
#define TRACE_CKPT_SHIFT 6

struct trace_dblock {
	uint64_t ip;
	uint64_t end_ip;
	uint32_t ninsn;
	uint32_t flags;		/* libipt's mode, 0x100 truncated, bits 12-31
				 * the code version's tag (trace/pages.h) */
};
#define TRACE_DBLOCK_TAG(flags) ((flags) >> 12)

struct trace_run {
	uint32_t v;         /* TRACE_RUN_SIDE | side index, or (rep - 1) << 24 |
			     * dictionary index */
};

struct trace_side {
	uint8_t kind;
	uint8_t event;
	uint8_t resumed;
	uint8_t has_tsc;
	uint8_t hw;
	uint8_t libipt_type;	/* enum pt_event_type (< 256) */
	uint16_t cpu;		/* TRACE_EV_CPU */
	uint64_t ip;
	uint64_t tsc;
	uint64_t offset;
	uint64_t item;		/* its item index (side entries are in order) */
	const char *error;
};

/* An indexed trace's chunk: where its decode starts and the state the
 * decoder had there.  Chunk 0 decodes from the trace's start. */
struct trace_ixent {
	uint64_t off;			/* the PSB it starts at */
	uint64_t item, insn, side;	/* its first item, instruction id, side index */
	uint64_t last_tsc;		/* the time in force */
	uint64_t prev_item, prev_tsc;	/* the last timing item before it */
	uint64_t next_item, next_tsc;	/* the first timing item at or after it */
	uint32_t next_mark;		/* CPU marks reported before it */
	uint8_t have_tsc, hw_disabled, has_prev, has_next;
	/* libipt's resumed flag of the chunk's first enabled event: a decoder
	 * synchronized at a PSB while tracing is off no longer knows where
	 * it stopped; 2: no enabled event in the chunk */
	uint8_t first_resumed;
};

#define TRACE_CHUNK_CACHE 8	/* chunks kept decoded */
#define TRACE_INDEX_ERRS 32	/* distinct error texts counted */

struct trace_index {
	const uint8_t *buf;	/* the trace (borrowed, or owned: own_buf) */
	size_t len;
	void *own_buf;
	struct trace_image img;	/* a copy (released at the end if own_img) */
	int own_img, timing;
	size_t *marks;		/* the image's CPU marks, copied */
	int *mark_cpus;
	size_t nmarks;
	size_t chunk_bytes;	/* trace bytes a chunk spans at least */
	struct trace_ixent *ent;
	size_t n, cap;
	/* totals of the side table */
	uint64_t nside, events[TRACE_EV_NKINDS], tsc_lo, tsc_hi;
	int have_tsc_range, have_last;
	uint64_t last_item, last_tsc;	/* the last timing item so far */
	const char *err_text[TRACE_INDEX_ERRS];
	uint64_t err_count[TRACE_INDEX_ERRS];
	int nerr;
	struct {
		size_t ci;
		struct trace_decoded *st;	/* NULL: free slot */
		uint64_t used;
	} cache[TRACE_CHUNK_CACHE];
	uint64_t clock, chunk_decodes;
	int segments;		/* threads the indexing pass ran on */
	int fell_back;		/* a parallel pass was run again serially */
};

/* A decoded trace is either a store (the blocks, runs and side table of
 * all its items: trace_decode's, and each chunk of an indexed trace) or
 * an index (ix set: trace_decode_indexed's; counts and dictionary only,
 * its items read from chunks decoded on demand). */
enum trace_decode_mode {
	TRACE_MODE_FULL = 0,	/* a store of the whole trace */
	TRACE_MODE_INDEX,	/* the indexing pass: counts, no runs */
	TRACE_MODE_CHUNK,	/* a store of one chunk (local item indexes) */
};

struct trace_decoded {
	struct trace_index *ix;	/* an index: its chunks and totals */
	int mode;		/* enum trace_decode_mode */
	int stop;		/* a chunk's decode reached the next chunk */
	uint64_t stop_off;	/* (its PSB offset; UINT64_MAX: the last chunk) */
	int refs;		/* a chunk's: the cache's and cursors' */
	struct trace_dblock *dict;
	size_t ndict, cdict;
	uint32_t *htab;     /* dictionary index + 1, 0 = empty */
	size_t hcap;
	struct trace_run *runs;
	size_t nruns, cruns;
	uint64_t *ckpt;     /* first item of run k << TRACE_CKPT_SHIFT */
	size_t nckpt, cckpt;
	struct trace_side *side;
	size_t nside, cside;
	struct trace_side overflow_side;	/* sink once the side table is full */
	uint64_t items, insns, blocks, gaps;
	/* while decoding */
	const uint8_t *buf;	/* the trace, for finding its PSBs */
	size_t len;
	uint64_t next_psb;	/* the next PSB not reported yet, or UINT64_MAX */
	const size_t *marks;	/* trace_image's CPU marks */
	const int *mark_cpus;
	size_t nmarks, next_mark;
	uint64_t sync;		/* the last PSB reported */
	int have_sync;
	uint64_t last_tsc;	/* the time in force (ticks when it changes) */
	int have_tsc;
	int hw_disabled;	/* the last disable was a hardware one */
	uint64_t enables;	/* enabled events in this chunk so far */
	int first_resumed;	/* a chunk's: the index's ent.first_resumed */
	/* a segment of a parallel indexing pass (trace/decode_par.c): what
	 * its guessed starting state could have changed */
	int stop_exact;		/* it stopped at the PSB at stop_off itself */
	int seen_tsc, seen_hw, first_hw_enabled;
	uint64_t first_tsc, first_hw_item;
	uint64_t serial;	/* trace_decoded_serial */
	/* the code as it ran (the image's pages, borrowed): blocks on pages
	 * that changed carry their version's tag in flags (bits 12-31, see
	 * trace_pages_tag), read at the generation the last PIP said */
	struct trace_pages *pages;
	int tagging;
	uint64_t gen;
	struct gen_images *gi;		/* the decoder's images (or NULL) */
	struct pt_block_decoder *dec;	/* the decoder running */
	/* where the generation changed (a store's: item index, then the new
	 * generation; trace_cursor_gen) */
	uint64_t *gens;
	size_t ngens, cgens;
	/* trace_decoded_item's own cursor (readers own theirs) */
	struct trace_cursor cur;
};

/* trace/decode_index.c, called while decoding in TRACE_MODE_INDEX: a new
 * chunk starts at the PSB at off (before its CPU and sync items); the side
 * table so far is folded into the totals and emptied. */
void trace_index_boundary(struct trace_decoded *d, uint64_t off);
void trace_index_flush(struct trace_decoded *d);
/* The index of d (mode INDEX) with its first chunk; the image copied. */
struct trace_index *trace_index_new(struct trace_decoded *d, const struct trace_image *img,
				    size_t chunk_bytes);
/* After the pass: the timing items after each chunk. */
void trace_index_finish(struct trace_decoded *d);
void trace_index_free(struct trace_index *ix);
size_t trace_index_mem_bytes(const struct trace_index *ix);
/* trace/decode.c: decodes chunk ci of an indexed trace into a store. */
struct trace_decoded *trace_decode_chunk(const struct trace_decoded *top, size_t ci);
/* A version of a page whose code changed, as a section of the image's
 * section cache (isid), in force in generations [from, to). */
struct image_vers {
	struct image_ver {
		uint64_t page, from, to;
		int isid;
	} *v;
	size_t n;
};
/* image_pages.c: a decoder's images, one per generation (the trace_image's
 * with the versions in force then), switched at each new generation the
 * trace says; NULL when img has no versions. */
struct gen_images;
struct pt_block_decoder;
struct gen_images *trace_gen_images_new(const struct trace_image *img);
void trace_gen_images_set(struct gen_images *g, struct pt_block_decoder *dec, uint64_t gen);
void trace_gen_images_free(struct gen_images *g);
/* trace_image's reader (its reader field). */
struct image_reader {
	trace_image_read_fn fn;	/* NULL: the pages alone */
	void *ctx;
	struct trace_pages *pages;
	/* the ranges the files' sections cover (trace_image_add_file) */
	struct image_range { uint64_t lo, hi; } *files;
	size_t nfiles, cfiles;
	/* the kept pages as file sections (trace/image_pages.c): the memfd
	 * holding their bytes (-1: none), and the versions of pages whose
	 * code changed (the image's vers) */
	int fd;
	struct image_vers vers;
};
/* image.c: what the image's reader gives for size bytes at ip in address
 * space cr3 (the pages' version, else fn's): bytes, or 0. */
size_t trace_image_read(const struct image_reader *r, uint64_t cr3, uint64_t ip, uint8_t *buf,
			size_t size);

/* trace/decode.c for trace/decode_par.c: a decoded trace of buf in mode;
 * decoding it from the first PSB (set: the PSB at off) to its stop_off;
 * a block into its dictionary; the arrays trimmed once decoded. */
struct trace_decoded *trace_decoded_new(const uint8_t *buf, size_t len, int mode);
int trace_decode_span(struct trace_decoded *d, const struct trace_image *img, int timing,
		      const struct trace_decode_hook *hook, int set, uint64_t off,
		      struct ptdb_err *err);
int trace_dict_add(struct trace_decoded *d, const struct trace_dblock *b);
/* decode_par.c: the indexing pass of d (mode INDEX, nothing decoded yet)
 * split at sync points and run on all cores, with the serial pass's
 * results: 1 done, 0 declined (too small, one core,
 * or a segment's guessed starting state proved wrong: d untouched), or
 * -1 / TRACE_DECODE_CANCELLED. */
int trace_index_parallel(struct trace_decoded *d, struct trace_image *img,
			 const struct trace_decode_hook *hook, struct ptdb_err *err);
/* decode_items.c: a store's item through a cursor (local index). */
int trace_store_item(struct trace_cursor *c, uint64_t index, struct trace_item *it,
		     trace_next_ip_fn next_ip, void *ctx);
int trace_index_item(struct trace_cursor *c, uint64_t index, struct trace_item *it,
		     trace_next_ip_fn next_ip, void *ctx);
void trace_store_unref(struct trace_decoded *st);
/* decode_index.c: decode.h's readers over an indexed trace. */
uint64_t trace_index_insn_item(const struct trace_decoded *top, uint64_t id);
int trace_index_side(const struct trace_decoded *top, uint64_t k, uint64_t *index,
		     struct trace_item *it);
uint64_t trace_index_side_before(const struct trace_decoded *top, uint64_t index);
/* Every chunk's blocks (an index keeps none of its own). */
void trace_index_blocks(const struct trace_decoded *top,
			void (*fn)(void *ctx, uint64_t ip, uint64_t end_ip), void *ctx);
void trace_index_summary(const struct trace_decoded *top, uint64_t *events, int nkinds,
			 uint64_t *tsc_lo, uint64_t *tsc_hi, int *have_tsc);
void trace_index_time_span(const struct trace_decoded *top, uint64_t index,
			   struct trace_time_span *s);
int trace_index_error_kinds(const struct trace_decoded *top, const char **texts,
			    uint64_t *counts, int max);
void trace_side_item(const struct trace_side *s, struct trace_item *it);

/* trace/decode_events.c, for trace/decode.c's loop: a gap item (status:
 * libipt's error, or one of ptdb's own below; ip where decoding failed,
 * 0 if not known); the items of a (re)synchronization at a PSB; the
 * pending events after a status (returns the new status; stops early
 * once d->stop). */
#define TRACE_GAP_NO_SYNC	(-1000)
#define TRACE_GAP_ENDLESS	(-1001)
void trace_add_gap(struct trace_decoded *d, struct pt_block_decoder *dec, int status,
		   uint64_t ip);
void trace_synced(struct trace_decoded *d, struct pt_block_decoder *dec);
int trace_drain(struct trace_decoded *d, struct pt_block_decoder *dec, int status);

/* The first PSB of buf[0, len) at or after from, or UINT64_MAX
 * (decode_events.c); a packet decoder over buf[0, len), or NULL
 * (decode.c). */
uint64_t trace_next_psb(const uint8_t *buf, size_t len, uint64_t from);
struct pt_packet_decoder;
struct pt_packet_decoder *trace_pkt_decoder(const uint8_t *buf, size_t len);

/* A run (a block's dictionary index, or TRACE_RUN_SIDE | side index) at
 * the end of d's run list, with a checkpoint every 1 << TRACE_CKPT_SHIFT
 * runs; an index keeps none. */
static inline void trace_add_run(struct trace_decoded *d, uint32_t what)
{
	if (d->mode == TRACE_MODE_INDEX)
		return;		/* the index counts; chunks hold the runs */
	if (d->nruns == d->cruns) {
		d->cruns = d->cruns ? 2 * d->cruns : 256;
		d->runs = xrealloc(d->runs, d->cruns * sizeof(*d->runs));
	}
	if (!(d->nruns & ((1u << TRACE_CKPT_SHIFT) - 1))) {
		if (d->nckpt == d->cckpt) {
			d->cckpt = d->cckpt ? 2 * d->cckpt : 64;
			d->ckpt = xrealloc(d->ckpt, d->cckpt * sizeof(*d->ckpt));
		}
		d->ckpt[d->nckpt++] = d->items;
	}
	d->runs[d->nruns].v = what;
	d->nruns++;
}

static inline uint64_t run_items(const struct trace_decoded *d, const struct trace_run *r)
{
	if (r->v & TRACE_RUN_SIDE)
		return 1;
	return (uint64_t)RUN_REP(r->v) * d->dict[RUN_IDX(r->v)].ninsn;
}

#endif
