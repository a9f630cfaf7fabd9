/* tests/unit/decode_same.h: the indexed decoded trace (trace_decode_indexed,
 * chunks decoded on demand) against the full store (trace_decode) of the
 * same bytes: counts, every item forward, backward and at random, every
 * instruction id's item, the side table, time spans, summary and error
 * kinds.  Included by the unit tests that make traces. */
#ifndef PTDB_TESTS_DECODE_SAME_H
#define PTDB_TESTS_DECODE_SAME_H

#include "trace/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int item_eq(const struct trace_item *a, const struct trace_item *b)
{
	return a->kind == b->kind && a->ip == b->ip && a->error == b->error &&
	       a->offset == b->offset && a->event == b->event && a->resumed == b->resumed &&
	       a->hw == b->hw && a->libipt_type == b->libipt_type && a->tsc == b->tsc &&
	       a->has_tsc == b->has_tsc && a->cpu == b->cpu;
}

#define SAME(cond) do { if (!(cond)) { \
	printf("#   indexed (chunks of %zu bytes) differs: %s (at %llu)\n", chunk, #cond, \
	       (unsigned long long)at); \
	return 0; } } while (0)

struct same_blocks { uint64_t *v; size_t n, cap; };
static int same_parallel;	/* indexing passes that ran on several threads */

static void same_block(void *ctx, uint64_t ip, uint64_t end_ip)
{
	struct same_blocks *b = ctx;

	if (b->n + 2 > b->cap) {
		b->cap = b->cap ? 2 * b->cap : 256;
		b->v = realloc(b->v, b->cap * sizeof(*b->v));
	}
	b->v[b->n++] = ip;
	b->v[b->n++] = end_ip;
}

static int same_store(struct trace_decoded *f, struct trace_decoded *x, size_t chunk,
		      trace_next_ip_fn nip, void *ctx, int deep)
{
	uint64_t n = trace_decoded_item_count(f), at = 0, id = 0, ef[TRACE_EV_NKINDS],
		 ex[TRACE_EV_NKINDS], lo[2] = { 0, 0 }, hi[2] = { 0, 0 }, cf[8], cx[8];
	const char *tf[8], *tx[8];
	struct trace_item a, b;
	struct trace_cursor c;
	struct same_blocks bx = { 0 };
	int hf = 0, hx = 0, nf, nx, ok;

	SAME(trace_decoded_item_count(x) == n);
	SAME(trace_decoded_insn_count(x) == trace_decoded_insn_count(f));
	SAME(trace_decoded_gap_count(x) == trace_decoded_gap_count(f));
	SAME(trace_decoded_side_count(x) == trace_decoded_side_count(f));
	trace_decoded_summary(f, ef, TRACE_EV_NKINDS, &lo[0], &hi[0], &hf);
	trace_decoded_summary(x, ex, TRACE_EV_NKINDS, &lo[1], &hi[1], &hx);
	SAME(!memcmp(ef, ex, sizeof(ef)) && hf == hx && lo[0] == lo[1] && hi[0] == hi[1]);
	nf = trace_decoded_error_kinds(f, tf, cf, 8);
	nx = trace_decoded_error_kinds(x, tx, cx, 8);
	SAME(nf == nx && !memcmp(tf, tx, (size_t)nf * sizeof(*tf)) &&
	     !memcmp(cf, cx, (size_t)nf * sizeof(*cf)));
	/* (libipt's blocks depend on its block cache, warm or not: the
	 * instructions are the same, their split into blocks need not be) */
	trace_decoded_blocks(x, same_block, &bx);
	ok = (bx.n > 0) == (trace_decoded_insn_count(f) > 0);
	free(bx.v);
	SAME(ok);
	for (at = 0; at < n; at++) {
		struct trace_time_span sf, sx;

		SAME(trace_decoded_item(f, at, &a, nip, ctx) == trace_decoded_item(x, at, &b, nip, ctx));
		if (!item_eq(&a, &b))
			printf("#   full: kind %d ip %llx ev %d off %llu tsc %llu r%d h%d; indexed: kind %d ip %llx ev %d off %llu tsc %llu r%d h%d\n",
			       a.kind, (unsigned long long)a.ip, a.event, (unsigned long long)a.offset,
			       (unsigned long long)a.tsc, a.resumed, a.hw, b.kind, (unsigned long long)b.ip, b.event,
			       (unsigned long long)b.offset, (unsigned long long)b.tsc, b.resumed, b.hw);
		SAME(item_eq(&a, &b));
		SAME(trace_decoded_side_before(x, at) == trace_decoded_side_before(f, at));
		if (a.kind == TRACE_ITEM_INSN) {
			SAME(trace_decoded_insn_item(x, id) == at);
			id++;
		} else {
			uint64_t k = trace_decoded_side_before(f, at), i1 = 0, i2 = 0;

			SAME(trace_decoded_side(f, k, &i1, &a) == 0 && trace_decoded_side(x, k, &i2, &b) == 0);
			SAME(i1 == i2 && i1 == at && item_eq(&a, &b));
		}
		if (deep || at % 97 == 0) {
			trace_decoded_time_span(f, at, &sf);
			trace_decoded_time_span(x, at, &sx);
			SAME(!memcmp(&sf, &sx, sizeof(sf)));
		}
	}
	SAME(trace_decoded_item(x, n, &b, nip, ctx) == -1);
	SAME(trace_decoded_side_before(x, n) == trace_decoded_side_before(f, n));
	/* a reader's own cursor, backward, then at random */
	trace_cursor_init(&c, x);
	for (at = n; at-- > 0;) {
		SAME(trace_decoded_item(f, at, &a, nip, ctx) == trace_cursor_item(&c, at, &b, nip, ctx));
		SAME(item_eq(&a, &b));
	}
	srand(11);
	for (int r = 0; r < 500 && n; r++) {
		at = (uint64_t)rand() % n;
		SAME(trace_decoded_item(f, at, &a, nip, ctx) == trace_cursor_item(&c, at, &b, nip, ctx));
		SAME(item_eq(&a, &b));
	}
	trace_cursor_release(&c);
	return 1;
}

/* buf decoded both ways, chunks at every PSB and of some hundred bytes,
 * the indexing pass on one thread and on three (segments of at least 256
 * bytes: PTDB_DECODE_THREADS), the same. */
static int decoded_same(const uint8_t *buf, size_t len, struct trace_image *img,
			trace_next_ip_fn nip, void *ctx)
{
	static const size_t chunks[] = { 0, 300, 0, 300 };
	struct trace_decoded *f, *x;
	int ok = 1;

	if (trace_decode(buf, len, img, &f, NULL) < 0)
		return 0;
	for (size_t k = 0; ok && k < sizeof(chunks) / sizeof(chunks[0]); k++) {
		if (k >= 2)
			setenv("PTDB_DECODE_THREADS", "3", 1);
		else
			unsetenv("PTDB_DECODE_THREADS");
		ok = trace_decode_indexed(buf, len, img, chunks[k], NULL, &x, NULL) == 0;
		unsetenv("PTDB_DECODE_THREADS");
		if (ok && k >= 2 && trace_decoded_index_threads(x) > 1)
			same_parallel++;
		if (ok) {
			ok = same_store(f, x, chunks[k], nip, ctx, trace_decoded_item_count(f) < 100000);
			trace_decoded_free(x);
		}
	}
	trace_decoded_free(f);
	return ok;
}

#endif
