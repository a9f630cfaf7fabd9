/* trace/decode_items.c: reading a decoded thread — caller-owned cursors
 * over its items (sequential steps O(1), jumps a binary search over the
 * run checkpoints), instruction ids to items, the side table of gaps and
 * events, time spans and error kinds. */
#include "trace/decode.h"
#include "trace/decode_int.h"
#include "trace/pages.h"

#include <stdlib.h>
#include <string.h>

/* Moves the cursor to the run holding item index (index < d->items). */
static void seek_run(struct trace_cursor *c, uint64_t index)
{
	const struct trace_decoded *d = c->d;
	uint64_t n;

	if (c->run < d->nruns) {
		n = run_items(d, &d->runs[c->run]);
		if (index >= c->first && index < c->first + n)
			return;
		if (index == c->first + n && c->run + 1 < d->nruns) {
			c->first += n;
			c->run++;
			return;
		}
		if (c->run > 0 && index + 1 == c->first) {
			c->run--;
			c->first -= run_items(d, &d->runs[c->run]);
			return;
		}
	}
	{
		size_t lo = 0, hi = d->nckpt;     /* last ckpt <= index */

		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;

			if (d->ckpt[mid] <= index)
				lo = mid;
			else
				hi = mid;
		}
		c->run = lo << TRACE_CKPT_SHIFT;
		c->first = d->ckpt[lo];
	}
	for (;;) {
		n = run_items(d, &d->runs[c->run]);
		if (index < c->first + n)
			return;
		c->first += n;
		c->run++;
	}
}

/* The instruction addresses of block di, through next_ip (once per block
 * entered). */
static int fill_block(struct trace_cursor *c, uint32_t di, trace_next_ip_fn next_ip, void *ctx)
{
	const struct trace_dblock *b = &c->d->dict[di];
	uint64_t ip = b->ip;
	uint32_t tag = TRACE_DBLOCK_TAG(b->flags);
	struct trace_pages *pages = c->d->pages;

	if (c->blk == di)
		return 0;
	c->blk = UINT32_MAX;
	if (c->cap < b->ninsn) {
		free(c->ips);
		c->cap = b->ninsn;
		c->ips = xmalloc(c->cap * sizeof(*c->ips));
	}
	for (uint32_t k = 0; k < b->ninsn; k++) {
		c->ips[k] = ip;
		if (k + 1 < b->ninsn) {
			uint64_t at = ip;

			/* code that changed: its version (trace/pages.h);
			 * else the caller's, and the kept code where that
			 * has none (a process gone, a bundle) */
			ip = tag ? trace_pages_next_ip(pages, tag - 1, at) : next_ip ? next_ip(ctx, at) : 0;
			if (!ip && !tag && pages)
				ip = trace_pages_next_ip(pages, UINT64_MAX, at);
			if (!ip)
				return -1;
		}
	}
	if (ip != b->end_ip)
		return -1;
	c->blk = di;
	return 0;
}

void trace_side_item(const struct trace_side *s, struct trace_item *it)
{
	memset(it, 0, sizeof(*it));
	it->kind = (enum trace_item_kind)s->kind;
	it->ip = s->ip;
	it->error = s->error;
	it->offset = s->offset;
	it->event = s->event;
	it->resumed = s->resumed;
	it->hw = s->hw;
	it->libipt_type = s->libipt_type;
	it->tsc = s->tsc;
	it->has_tsc = s->has_tsc;
	it->cpu = s->cpu;
}

void trace_cursor_init(struct trace_cursor *c, const struct trace_decoded *d)
{
	memset(c, 0, sizeof(*c));
	if (d && d->ix)
		c->top = d;	/* (c->d: the chunk, once read) */
	else
		c->d = d;
	c->run = SIZE_MAX;
	c->blk = UINT32_MAX;
}

void trace_cursor_release(struct trace_cursor *c)
{
	trace_store_unref(c->chunk);
	c->chunk = NULL;
	if (c->top)
		c->d = NULL;
	free(c->ips);
	c->ips = NULL;
	c->cap = 0;
	c->blk = UINT32_MAX;
}

int trace_cursor_item(struct trace_cursor *c, uint64_t index, struct trace_item *it,
		      trace_next_ip_fn next_ip, void *ctx)
{
	if (c->top)
		return trace_index_item(c, index, it, next_ip, ctx);
	return trace_store_item(c, index, it, next_ip, ctx);
}

int trace_store_item(struct trace_cursor *c, uint64_t index, struct trace_item *it,
		     trace_next_ip_fn next_ip, void *ctx)
{
	const struct trace_decoded *d = c->d;
	const struct trace_run *r;

	memset(it, 0, sizeof(*it));
	if (index >= d->items)
		return -1;
	seek_run(c, index);
	r = &d->runs[c->run];
	if (r->v & TRACE_RUN_SIDE) {
		trace_side_item(&d->side[RUN_IDX(r->v)], it);
		return 0;
	}
	it->kind = TRACE_ITEM_INSN;
	if (fill_block(c, RUN_IDX(r->v), next_ip, ctx) < 0)
		return -1;
	it->ip = c->ips[(index - c->first) % d->dict[RUN_IDX(r->v)].ninsn];
	it->code_tag = TRACE_DBLOCK_TAG(d->dict[RUN_IDX(r->v)].flags);
	return 0;
}

uint64_t trace_cursor_gen(const struct trace_cursor *c, uint64_t index)
{
	const struct trace_decoded *st = c->d;
	size_t lo = 0, hi;

	if (!st || index < c->base)
		return 0;
	index -= c->base;
	hi = st->ngens / 2;	/* the last change at or before index */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->gens[2 * mid] <= index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? st->gens[2 * (lo - 1) + 1] : 0;
}

int trace_decoded_item(struct trace_decoded *d, uint64_t index, struct trace_item *it,
		       trace_next_ip_fn next_ip, void *ctx)
{
	return trace_cursor_item(&d->cur, index, it, next_ip, ctx);
}

uint64_t trace_decoded_insn_item(const struct trace_decoded *d, uint64_t id)
{
	size_t lo = 0, hi = d->nside;

	if (d->ix)
		return trace_index_insn_item(d, id);
	/* side items k with (instructions before them) <= id come first */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->side[mid].item - mid <= id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return id + lo;
}

void trace_decoded_summary(const struct trace_decoded *d, uint64_t *events, int nkinds,
			   uint64_t *tsc_lo, uint64_t *tsc_hi, int *have_tsc)
{
	if (d->ix) {
		trace_index_summary(d, events, nkinds, tsc_lo, tsc_hi, have_tsc);
		return;
	}
	*have_tsc = 0;
	for (int k = 0; k < nkinds; k++)
		events[k] = 0;
	for (size_t i = 0; i < d->nside; i++) {
		const struct trace_side *s = &d->side[i];

		if (s->kind == TRACE_ITEM_EVENT && s->event < nkinds)
			events[s->event]++;
		if (s->has_tsc) {
			if (!*have_tsc || s->tsc < *tsc_lo)
				*tsc_lo = s->tsc;
			if (!*have_tsc || s->tsc > *tsc_hi)
				*tsc_hi = s->tsc;
			*have_tsc = 1;
		}
	}
}

void trace_decoded_blocks(const struct trace_decoded *d,
			  void (*fn)(void *ctx, uint64_t ip, uint64_t end_ip), void *ctx)
{
	if (d->ix) {
		trace_index_blocks(d, fn, ctx);
		return;
	}
	for (size_t i = 0; i < d->ndict; i++)
		fn(ctx, d->dict[i].ip, d->dict[i].end_ip);
}

uint64_t trace_decoded_side_count(const struct trace_decoded *d)
{
	if (d->ix)
		return d->ix->nside;
	return d->nside;
}

int trace_decoded_side(const struct trace_decoded *d, uint64_t k, uint64_t *index,
		       struct trace_item *it)
{
	if (d->ix)
		return trace_index_side(d, k, index, it);
	if (k >= d->nside)
		return -1;
	*index = d->side[k].item;
	trace_side_item(&d->side[k], it);
	return 0;
}

uint64_t trace_decoded_side_before(const struct trace_decoded *d, uint64_t index)
{
	size_t lo = 0, hi = d->nside;

	if (d->ix)
		return trace_index_side_before(d, index);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->side[mid].item < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void trace_decoded_time_span(const struct trace_decoded *d, uint64_t index,
			     struct trace_time_span *s)
{
	uint64_t k;

	if (d->ix) {
		trace_index_time_span(d, index, s);
		return;
	}
	k = trace_decoded_side_before(d, index + 1);	/* first after index */
	memset(s, 0, sizeof(*s));
	if (!d->have_tsc)
		return;		/* traced without --tsc: no walk over the side table */
	for (uint64_t j = k; j-- > 0;)
		if (d->side[j].has_tsc) {
			s->has_lo = 1;
			s->lo_index = d->side[j].item;
			s->lo_tsc = d->side[j].tsc;
			break;
		}
	for (uint64_t j = k; j < d->nside; j++)
		if (d->side[j].has_tsc) {
			s->has_hi = 1;
			s->hi_index = d->side[j].item;
			s->hi_tsc = d->side[j].tsc;
			break;
		}
}

int trace_decoded_error_kinds(const struct trace_decoded *d, const char **texts,
			      uint64_t *counts, int max)
{
	int n = 0;

	if (d->ix)
		return trace_index_error_kinds(d, texts, counts, max);
	for (size_t i = 0; i < d->nside; i++) {
		const char *e = d->side[i].error;
		int k;

		if (!e)
			continue;
		for (k = 0; k < n && strcmp(texts[k], e); k++)
			;
		if (k == n) {
			if (n == max)
				continue;
			texts[n] = e;
			counts[n++] = 0;
		}
		counts[k]++;
	}
	return n;
}
