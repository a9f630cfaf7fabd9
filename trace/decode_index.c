/* trace/decode_index.c: the decoded trace as an index, not a copy (issue
 * 33).  The indexing pass is trace/decode.c's decode loop with no runs
 * kept: at each sync point at least chunk_bytes after the last one it
 * records a chunk (its PSB, its first item, instruction id and side index,
 * and the decoder's state: the time in force, the last disable, the CPU
 * marks passed) and folds the side table so far into the totals (events,
 * time range, error kinds, timing items).  A reader's item is read from
 * its chunk, decoded from that PSB to the next chunk's by the same loop
 * (trace_decode_chunk) and kept in a small cache (LRU); cursors hold a
 * reference to their chunk, so eviction never pulls one from under them. */
#include "trace/decode.h"
#include "trace/decode_int.h"

#include <stdlib.h>
#include <string.h>

struct trace_index *trace_index_new(struct trace_decoded *d, const struct trace_image *img,
				    size_t chunk_bytes)
{
	struct trace_index *ix = xcalloc(1, sizeof(*ix));

	d->ix = ix;
	trace_cursor_init(&d->cur, d);
	ix->buf = d->buf;
	ix->len = d->len;
	ix->chunk_bytes = chunk_bytes;
	if (img) {
		ix->img = *img;
		ix->img.cpu_marks = NULL;
		ix->img.cpu_ids = NULL;
		ix->img.ncpu_marks = 0;
		if (img->ncpu_marks) {
			ix->nmarks = img->ncpu_marks;
			ix->marks = xmalloc(ix->nmarks * sizeof(*ix->marks));
			ix->mark_cpus = xmalloc(ix->nmarks * sizeof(*ix->mark_cpus));
			memcpy(ix->marks, img->cpu_marks, ix->nmarks * sizeof(*ix->marks));
			memcpy(ix->mark_cpus, img->cpu_ids, ix->nmarks * sizeof(*ix->mark_cpus));
		}
	}
	ix->cap = 64;
	ix->ent = xcalloc(ix->cap, sizeof(*ix->ent));
	ix->n = 1;		/* chunk 0: from the start */
	ix->ent[0].first_resumed = 2;
	return ix;
}

void trace_decoded_adopt(struct trace_decoded *d, void *buf, struct trace_image *img)
{
	struct trace_index *ix = d->ix;

	if (!ix) {		/* a store needs neither */
		free(buf);
		if (img)
			trace_image_release(img);
		return;
	}
	ix->own_buf = buf;
	if (img) {
		ix->img.image = img->image;
		ix->img.iscache = img->iscache;
		ix->img.reader = img->reader;
		ix->img.pages = img->pages;
		ix->own_img = 1;
		memset(img, 0, sizeof(*img));
	}
}

void trace_index_flush(struct trace_decoded *d)
{
	struct trace_index *ix = d->ix;
	struct trace_ixent *cur = &ix->ent[ix->n - 1];

	for (size_t i = 0; i < d->nside; i++) {
		const struct trace_side *s = &d->side[i];

		if (s->kind == TRACE_ITEM_EVENT && s->event < TRACE_EV_NKINDS)
			ix->events[s->event]++;
		if (s->has_tsc) {
			if (!ix->have_tsc_range || s->tsc < ix->tsc_lo)
				ix->tsc_lo = s->tsc;
			if (!ix->have_tsc_range || s->tsc > ix->tsc_hi)
				ix->tsc_hi = s->tsc;
			ix->have_tsc_range = 1;
			if (!cur->has_next) {
				cur->has_next = 1;
				cur->next_item = s->item;
				cur->next_tsc = s->tsc;
			}
			ix->have_last = 1;
			ix->last_item = s->item;
			ix->last_tsc = s->tsc;
		}
		if (s->error) {
			int k;

			for (k = 0; k < ix->nerr && strcmp(ix->err_text[k], s->error); k++)
				;
			if (k == ix->nerr) {
				if (k == TRACE_INDEX_ERRS)
					continue;
				ix->err_text[ix->nerr++] = s->error;
			}
			ix->err_count[k]++;
		}
	}
	ix->nside += d->nside;
	d->nside = 0;
}

void trace_index_boundary(struct trace_decoded *d, uint64_t off)
{
	struct trace_index *ix = d->ix;
	const struct trace_ixent *last = &ix->ent[ix->n - 1];
	struct trace_ixent *e;

	if (off >= last->off && off - last->off < ix->chunk_bytes)
		return;
	trace_index_flush(d);
	if (ix->n == ix->cap) {
		ix->cap *= 2;
		ix->ent = xrealloc(ix->ent, ix->cap * sizeof(*ix->ent));
	}
	e = &ix->ent[ix->n++];
	memset(e, 0, sizeof(*e));
	e->off = off;
	e->first_resumed = 2;
	d->enables = 0;
	e->item = d->items;
	e->insn = d->insns;
	e->side = ix->nside;
	e->last_tsc = d->last_tsc;
	e->have_tsc = (uint8_t)d->have_tsc;
	e->hw_disabled = (uint8_t)d->hw_disabled;
	e->next_mark = (uint32_t)d->next_mark;
	e->has_prev = (uint8_t)ix->have_last;
	e->prev_item = ix->last_item;
	e->prev_tsc = ix->last_tsc;
}

void trace_index_finish(struct trace_decoded *d)
{
	struct trace_index *ix = d->ix;

	for (size_t i = ix->n - 1; i-- > 0;)
		if (!ix->ent[i].has_next && ix->ent[i + 1].has_next) {
			ix->ent[i].has_next = 1;
			ix->ent[i].next_item = ix->ent[i + 1].next_item;
			ix->ent[i].next_tsc = ix->ent[i + 1].next_tsc;
		}
	ix->ent = xrealloc(ix->ent, ix->n * sizeof(*ix->ent));
	ix->cap = ix->n;
}

void trace_store_unref(struct trace_decoded *st)
{
	if (st && --st->refs <= 0)
		trace_decoded_free(st);
}

void trace_index_free(struct trace_index *ix)
{
	for (int i = 0; i < TRACE_CHUNK_CACHE; i++)
		trace_store_unref(ix->cache[i].st);
	free(ix->ent);
	free(ix->marks);
	free(ix->mark_cpus);
	free(ix->own_buf);
	if (ix->own_img)
		trace_image_release(&ix->img);
	free(ix);
}

size_t trace_index_mem_bytes(const struct trace_index *ix)
{
	size_t n = sizeof(*ix) + ix->cap * sizeof(*ix->ent) +
		   ix->nmarks * (sizeof(*ix->marks) + sizeof(*ix->mark_cpus));

	for (int i = 0; i < TRACE_CHUNK_CACHE; i++)
		if (ix->cache[i].st)
			n += trace_decoded_mem_bytes(ix->cache[i].st);
	return n;
}

void trace_decoded_chunk_stats(const struct trace_decoded *d, uint64_t *chunks,
			       uint64_t *decodes)
{
	*chunks = d->ix ? d->ix->n : 0;
	*decodes = d->ix ? d->ix->chunk_decodes : 0;
}

int trace_decoded_index_threads(const struct trace_decoded *d)
{
	return d->ix && d->ix->segments > 1 ? d->ix->segments : 1;
}

int trace_decoded_index_fell_back(const struct trace_decoded *d)
{
	return d->ix ? d->ix->fell_back : 0;
}


/* Chunk ci decoded, with a reference for the caller (NULL: it failed). */
static struct trace_decoded *chunk_get(const struct trace_decoded *top, size_t ci)
{
	struct trace_index *ix = top->ix;
	struct trace_decoded *st;
	int slot = 0;

	ix->clock++;
	for (int i = 0; i < TRACE_CHUNK_CACHE; i++)
		if (ix->cache[i].st && ix->cache[i].ci == ci) {
			ix->cache[i].used = ix->clock;
			ix->cache[i].st->refs++;
			return ix->cache[i].st;
		}
	st = trace_decode_chunk(top, ci);
	if (!st)
		return NULL;
	ix->chunk_decodes++;
	for (int i = 0; i < TRACE_CHUNK_CACHE; i++) {
		if (!ix->cache[i].st) {
			slot = i;
			break;
		}
		if (ix->cache[i].used < ix->cache[slot].used)
			slot = i;
	}
	trace_store_unref(ix->cache[slot].st);
	ix->cache[slot].st = st;
	ix->cache[slot].ci = ci;
	ix->cache[slot].used = ix->clock;
	st->refs = 2;		/* the cache's and the caller's */
	return st;
}

/* The last chunk whose first (item | instruction | side entry) is <= v:
 * the one holding it (a chunk before it holding none of them starts at
 * the same value). */
enum { BY_ITEM, BY_INSN, BY_SIDE };

static size_t chunk_of(const struct trace_index *ix, int by, uint64_t v)
{
	size_t lo = 0, hi = ix->n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		const struct trace_ixent *e = &ix->ent[mid];
		uint64_t x = by == BY_ITEM ? e->item : by == BY_INSN ? e->insn : e->side;

		if (x <= v)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int trace_index_item(struct trace_cursor *c, uint64_t index, struct trace_item *it,
		     trace_next_ip_fn next_ip, void *ctx)
{
	const struct trace_decoded *top = c->top;

	memset(it, 0, sizeof(*it));
	if (index >= top->items)
		return -1;
	if (!c->chunk || index < c->base || index - c->base >= c->chunk->items) {
		size_t ci = chunk_of(top->ix, BY_ITEM, index);
		struct trace_decoded *st = chunk_get(top, ci);

		if (!st)
			return -1;
		trace_store_unref(c->chunk);
		c->chunk = st;
		c->ci = ci;
		c->base = top->ix->ent[ci].item;
		c->d = st;
		c->run = SIZE_MAX;
		c->first = 0;
		c->blk = UINT32_MAX;
	}
	return trace_store_item(c, index - c->base, it, next_ip, ctx);
}

uint64_t trace_index_insn_item(const struct trace_decoded *top, uint64_t id)
{
	const struct trace_index *ix = top->ix;
	size_t ci = chunk_of(ix, BY_INSN, id);
	struct trace_decoded *st = chunk_get(top, ci);
	uint64_t r = ix->ent[ci].item;

	if (st)
		r += trace_decoded_insn_item(st, id - ix->ent[ci].insn);
	trace_store_unref(st);
	return r;
}

int trace_index_side(const struct trace_decoded *top, uint64_t k, uint64_t *index,
		     struct trace_item *it)
{
	const struct trace_index *ix = top->ix;
	size_t ci;
	struct trace_decoded *st;
	int r = -1;

	if (k >= ix->nside)
		return -1;
	ci = chunk_of(ix, BY_SIDE, k);
	st = chunk_get(top, ci);
	if (st && k - ix->ent[ci].side < st->nside) {
		const struct trace_side *s = &st->side[k - ix->ent[ci].side];

		*index = ix->ent[ci].item + s->item;
		trace_side_item(s, it);
		r = 0;
	}
	trace_store_unref(st);
	return r;
}

uint64_t trace_index_side_before(const struct trace_decoded *top, uint64_t index)
{
	const struct trace_index *ix = top->ix;
	size_t ci;
	struct trace_decoded *st;
	uint64_t r;

	if (index >= top->items)
		return ix->nside;
	ci = chunk_of(ix, BY_ITEM, index);
	st = chunk_get(top, ci);
	r = ix->ent[ci].side;
	if (st)
		r += trace_decoded_side_before(st, index - ix->ent[ci].item);
	trace_store_unref(st);
	return r;
}

void trace_index_blocks(const struct trace_decoded *top,
			void (*fn)(void *ctx, uint64_t ip, uint64_t end_ip), void *ctx)
{
	for (size_t ci = 0; ci < top->ix->n; ci++) {
		struct trace_decoded *st = chunk_get(top, ci);

		for (size_t i = 0; st && i < st->ndict; i++)
			fn(ctx, st->dict[i].ip, st->dict[i].end_ip);
		trace_store_unref(st);
	}
}

void trace_index_summary(const struct trace_decoded *top, uint64_t *events, int nkinds,
			 uint64_t *tsc_lo, uint64_t *tsc_hi, int *have_tsc)
{
	const struct trace_index *ix = top->ix;

	for (int k = 0; k < nkinds; k++)
		events[k] = k < TRACE_EV_NKINDS ? ix->events[k] : 0;
	*have_tsc = ix->have_tsc_range;
	if (ix->have_tsc_range) {
		*tsc_lo = ix->tsc_lo;
		*tsc_hi = ix->tsc_hi;
	}
}

void trace_index_time_span(const struct trace_decoded *top, uint64_t index,
			   struct trace_time_span *s)
{
	const struct trace_index *ix = top->ix;
	size_t ci;
	const struct trace_ixent *e;
	struct trace_decoded *st;
	uint64_t k, local;

	memset(s, 0, sizeof(*s));
	if (!top->have_tsc || !top->items)
		return;
	if (index >= top->items)
		index = top->items - 1;
	ci = chunk_of(ix, BY_ITEM, index);
	e = &ix->ent[ci];
	st = chunk_get(top, ci);
	if (!st)
		return;
	local = index - e->item;
	k = trace_decoded_side_before(st, local + 1);	/* first after index */
	for (uint64_t j = k; j-- > 0;)
		if (st->side[j].has_tsc) {
			s->has_lo = 1;
			s->lo_index = e->item + st->side[j].item;
			s->lo_tsc = st->side[j].tsc;
			break;
		}
	if (!s->has_lo && e->has_prev) {
		s->has_lo = 1;
		s->lo_index = e->prev_item;
		s->lo_tsc = e->prev_tsc;
	}
	for (uint64_t j = k; j < st->nside; j++)
		if (st->side[j].has_tsc) {
			s->has_hi = 1;
			s->hi_index = e->item + st->side[j].item;
			s->hi_tsc = st->side[j].tsc;
			break;
		}
	if (!s->has_hi && ci + 1 < ix->n && ix->ent[ci + 1].has_next) {
		s->has_hi = 1;
		s->hi_index = ix->ent[ci + 1].next_item;
		s->hi_tsc = ix->ent[ci + 1].next_tsc;
	}
	trace_store_unref(st);
}

int trace_index_error_kinds(const struct trace_decoded *top, const char **texts,
			    uint64_t *counts, int max)
{
	const struct trace_index *ix = top->ix;
	int n = ix->nerr < max ? ix->nerr : max;

	for (int k = 0; k < n; k++) {
		texts[k] = ix->err_text[k];
		counts[k] = ix->err_count[k];
	}
	return n;
}
