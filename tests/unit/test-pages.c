/* tests/unit/test-pages.c: trace/pages — code page versions by generation,
 * what changed, the bundle file — and a trace that runs two versions of
 * the same page (another shape each), written by trace/ptw with the
 * generation in PIPs and decoded through the image's pages alone. */
#include "tests/unit/test.h"
#include "trace/decode.h"
#include "trace/pages.h"
#include "trace/ptw.h"
#include "trace/ring.h"

#include <stdlib.h>
#include <string.h>

#define PG 0x100000ull

static void page_of(uint8_t *b, const uint8_t *code, size_t n)
{
	memset(b, 0xcc, TRACE_PAGE);
	memcpy(b, code, n);
}

TEST(versions_by_generation)
{
	static const uint8_t v0[] = { 0x90, 0x90, 0x90, 0xc3 };
	static const uint8_t v1[] = { 0xb9, 0x03, 0x00, 0x00, 0x00, 0xc3 };
	struct trace_pages *p = trace_pages_new();
	uint8_t b[TRACE_PAGE], r[8];
	uint64_t np, nv;

	page_of(b, v0, sizeof(v0));
	CHECK_INT(trace_pages_known(p, PG, v0, 4), 0);
	CHECK_INT(trace_pages_put(p, PG, b), 0);		/* a first version */
	CHECK_INT(trace_pages_known(p, PG, v0, 4), 1);
	CHECK_INT(trace_pages_touched(p), 0);
	CHECK_INT(trace_pages_tag(p, PG, 0), 0);		/* never changed */
	CHECK_INT(trace_pages_changed(p, 0x200000, 0x300000), 0);	/* nothing kept there */
	CHECK_INT(trace_pages_changed(p, PG + 100, PG + 101), 1);
	CHECK_INT(trace_pages_gen(p), 1);
	CHECK_INT(trace_pages_known(p, PG, v0, 4), 0);		/* read again */
	CHECK_INT(trace_pages_put(p, PG, b), 0);		/* the same: no version */
	trace_pages_count(p, &np, &nv);
	CHECK_INT(nv, 1);
	CHECK_INT(trace_pages_changed(p, 0, ~0ull), 1);	/* gen 2 */
	page_of(b, v1, sizeof(v1));
	CHECK_INT(trace_pages_put(p, PG, b), 0);		/* said: holds from 2 */
	CHECK_INT(trace_pages_read(p, 1, PG, r, 4), 4);
	CHECK(!memcmp(r, v0, 4));
	CHECK_INT(trace_pages_read(p, 2, PG, r, 6), 6);
	CHECK(!memcmp(r, v1, 6));
	CHECK_INT(trace_pages_read(p, UINT64_MAX, PG, r, 6), 6);
	CHECK(!memcmp(r, v1, 6));
	CHECK_INT(trace_pages_read(p, 0, PG + TRACE_PAGE, r, 1), 0);
	CHECK_INT(trace_pages_tag(p, PG, 1), 1);		/* version 0: tag 1 */
	CHECK_INT(trace_pages_tag(p, PG, 5), 3);		/* from 2: tag 3 */
	CHECK_INT(trace_pages_next_ip(p, 0, PG), PG + 1);
	CHECK_INT(trace_pages_next_ip(p, 2, PG), PG + 5);
	/* changed unannounced (a store into writable code): moves it */
	b[0] = 0x90;
	CHECK_INT(trace_pages_put(p, PG, b), 1);
	CHECK_INT(trace_pages_gen(p), 3);
	trace_pages_count(p, &np, &nv);
	CHECK_INT(np, 1);
	CHECK_INT(nv, 3);
	trace_pages_free(p);
}

TEST(bundle_file_round_trip)
{
	struct trace_pages *p = trace_pages_new(), *q = trace_pages_new();
	uint8_t b[TRACE_PAGE], r[4], *f;
	struct ptdb_err err;
	size_t len;

	memset(b, 1, sizeof(b));
	trace_pages_put(p, PG, b);
	trace_pages_put(p, PG + TRACE_PAGE, b);
	trace_pages_changed(p, PG, PG + 1);
	memset(b, 2, sizeof(b));
	trace_pages_put(p, PG, b);
	f = trace_pages_save(p, &len);
	CHECK_INT(trace_pages_load(q, f, len, &err), 0);
	CHECK_INT(trace_pages_gen(q), 1);
	CHECK_INT(trace_pages_touched_at(q, PG), 1);
	CHECK_INT(trace_pages_touched_at(q, PG + TRACE_PAGE), 0);
	CHECK_INT(trace_pages_read(q, 0, PG, r, 1), 1);
	CHECK_INT(r[0], 1);
	CHECK_INT(trace_pages_read(q, 1, PG, r, 1), 1);
	CHECK_INT(r[0], 2);
	CHECK_INT(trace_pages_load(q, f, len - 1, &err), -1);
	CHECK_STR(err.msg, "the code pages file is not one ptdb wrote");
	f[0] = 'X';
	CHECK_INT(trace_pages_load(q, f, len, &err), -1);
	free(f);
	trace_pages_free(p);
	trace_pages_free(q);
}

/* Runs the code at PG to its ret (going to 0x200000, where tracing stops). */
static int run_once(struct trace_ptw *w)
{
	return trace_ptw_enable(w, PG) < 0 || trace_ptw_ret(w, 0x200000) < 0 ||
	       trace_ptw_disable_async(w, 0x200000) < 0 ? -1 : 0;
}

TEST(trace_decodes_each_version)
{
	static const uint8_t v0[] = { 0x90, 0x90, 0x90, 0xc3 };
	static const uint8_t v1[] = { 0xb9, 0x03, 0x00, 0x00, 0x00, 0xc3 };
	static const uint64_t want[] = { PG, PG + 1, PG + 2, PG + 3, PG, PG + 5, PG, PG + 1, PG + 2, PG + 3 };
	struct trace_pages *p = trace_pages_new();
	struct trace_ring ring;
	struct trace_ptw w;
	struct trace_image img;
	struct trace_decoded *dec;
	struct trace_item it;
	uint8_t b[TRACE_PAGE], *buf;
	size_t len, n = 0;
	int pips = 0;

	CHECK_INT(trace_ring_init(&ring, 1 << 16, NULL), 0);
	CHECK_INT(trace_ptw_init(&w, &ring, NULL, NULL), 0);
	w.code_gen = trace_pages_gen_ptr(p);
	page_of(b, v0, sizeof(v0));
	trace_pages_put(p, PG, b);
	CHECK_INT(run_once(&w), 0);
	trace_pages_changed(p, PG, PG + TRACE_PAGE);		/* gen 1 */
	page_of(b, v1, sizeof(v1));
	trace_pages_put(p, PG, b);
	CHECK_INT(run_once(&w), 0);
	trace_pages_changed(p, PG, PG + TRACE_PAGE);		/* gen 2 */
	page_of(b, v0, sizeof(v0));
	trace_pages_put(p, PG, b);
	CHECK_INT(run_once(&w), 0);
	CHECK_INT(trace_ring_snapshot(&ring, &buf, &len, NULL), 0);
	for (size_t i = 0; i + 1 < len; i++)
		pips += buf[i] == 0x02 && buf[i + 1] == 0x43;
	CHECK_INT(pips, 2);		/* before each TIP.PGE that followed a change */
	CHECK_INT(trace_image_init(&img, NULL), 0);
	trace_image_set_pages(&img, p);
	CHECK_INT(trace_decode(buf, len, &img, &dec, NULL), 0);
	for (uint64_t i = 0; i < trace_decoded_item_count(dec); i++) {
		CHECK_INT(trace_decoded_item(dec, i, &it, NULL, NULL), 0);
		CHECK(it.kind != TRACE_ITEM_GAP);
		if (it.kind != TRACE_ITEM_INSN)
			continue;
		CHECK(n < sizeof(want) / sizeof(want[0]));
		CHECK_INT(it.ip, want[n]);
		CHECK(it.code_tag != 0);
		n++;
	}
	CHECK_INT(n, sizeof(want) / sizeof(want[0]));
	trace_decoded_free(dec);
	trace_image_release(&img);
	free(buf);
	trace_ptw_release(&w);
	trace_ring_release(&ring);
	trace_pages_free(p);
}

TEST_MAIN(versions_by_generation, bundle_file_round_trip, trace_decodes_each_version)
