/* tests/unit/test-cursor.c: the cursor over a decoded trace and the one
 * instruction cache behind it: a dump of N instructions reads and
 * disassembles each distinct instruction once (the cache's misses are the
 * distinct addresses listed, though both the walk and the listing ask
 * it), a second dump none;
 * the cursor's seeks and steps agree with a sequential walk. */
#include "test.h"
#include "decode_same.h"

#include "cmd/cmd.h"
#include "cmd/builtin.h"
#include "core/tracing/cursor.h"
#include "trace/decode.h"
#include "core/session/session.h"
#include "trace/swc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* the command tree, as main.c hands it to the dispatcher */
__attribute__((constructor)) static void hand_tree(void)
{
	cmd_set_tree(cmd_builtin_root(), cmd_builtin_aliases());
}

#define PROG "tests/programs/trace_loop"

static struct session s;

static int run(const char *line, char **text)
{
	char *ob = NULL, *eb = NULL;
	size_t ol = 0, el = 0;
	FILE *out = open_memstream(&ob, &ol), *err = open_memstream(&eb, &el);
	int r = cmd_run_line(&s, line, out, err);

	fclose(out);
	fclose(err);
	if (eb[0])
		fprintf(stderr, "%s: %s", line, eb);
	free(eb);
	if (text)
		*text = ob;
	else
		free(ob);
	return r;
}

/* trace_loop traced from main to its return. */
static int traced(void)
{
	session_init(&s);
	return run("file " PROG, NULL) == CMD_OK && run("b main", NULL) == CMD_OK &&
	       run("r", NULL) == CMD_OK && run("thread trace start", NULL) == CMD_OK &&
	       run("b trace_loop.c:7", NULL) == CMD_OK && run("c", NULL) == CMD_OK;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

TEST(dump_reads_each_instruction_once)
{
	uint64_t l0, m0, l1, m1, l2, m2, ips[4096];
	size_t n = 0, distinct = 0;
	char *text, *p;

	CHECK(traced());
	dbg_icache_stats(&s.dbg, &l0, &m0);
	CHECK_INT(run("thread trace dump instructions -a -r", &text), CMD_OK);
	dbg_icache_stats(&s.dbg, &l1, &m1);
	/* "    [12] 0x0000000000401136" */
	for (p = text; (p = strstr(p, "] 0x")) && n < 4096; p += 4)
		ips[n++] = strtoull(p + 2, NULL, 16);
	free(text);
	CHECK(n > 20);
	qsort(ips, n, sizeof(ips[0]), cmp_u64);
	for (size_t i = 0; i < n; i++)
		distinct += i == 0 || ips[i] != ips[i - 1];
	CHECK(distinct < n);		/* the loop ran its body more than once */
	CHECK_INT(m1 - m0, distinct);	/* read and disassembled once each */
	/* the walk's next addresses and the listing's text both asked it */
	CHECK(l1 - l0 > distinct);
	/* the same dump again: all from the cache */
	CHECK_INT(run("thread trace dump instructions -a", NULL), CMD_OK);
	dbg_icache_stats(&s.dbg, &l2, &m2);
	CHECK_INT(m2 - m1, 0);
	CHECK(l2 > l1);
}

TEST(cursor_seeks_and_steps)
{
	struct trace_swc_thread *th = dbg_trace_thread(&s.dbg, s.dbg.sel_tid);
	struct trace_decoded *dec;
	struct dbg_cursor *c, *w;
	struct ptdb_err err;
	uint64_t n, insns = 0;

	CHECK(th);
	CHECK_INT(dbg_trace_decode(&s.dbg, th, &dec, &err), 0);
	n = trace_decoded_item_count(dec);
	c = dbg_cursor_new(&s.dbg, dec);
	w = dbg_cursor_new(&s.dbg, dec);
	CHECK_INT(dbg_cursor_seek_item(w, 0), 0);
	for (uint64_t i = 0; i < n; i++) {
		const struct dbg_item *it = dbg_cursor_item(w);

		CHECK_INT(dbg_cursor_index(w), i);
		CHECK_INT(dbg_cursor_id(w), insns);
		if (it->kind == DBG_ITEM_INSN) {
			const struct dbg_insn *in = dbg_cursor_insn(w);

			CHECK(in && in->ok && in->ip == it->ip);
			/* a seek by id lands on the same item */
			CHECK_INT(dbg_cursor_seek_insn(c, insns), 0);
			CHECK_INT(dbg_cursor_index(c), i);
			CHECK_INT(dbg_cursor_item(c)->ip, it->ip);
			insns++;
		}
		CHECK_INT(dbg_cursor_next(w), i + 1 < n ? 0 : 1);
	}
	CHECK_INT(insns, trace_decoded_insn_count(dec));
	/* backward to the start */
	for (uint64_t i = n - 1; i > 0; i--)
		CHECK_INT(dbg_cursor_prev(w), 0);
	CHECK_INT(dbg_cursor_index(w), 0);
	CHECK_INT(dbg_cursor_id(w), 0);
	CHECK_INT(dbg_cursor_prev(w), 1);
	CHECK_INT(dbg_cursor_seek_insn(c, insns), -1);
	dbg_cursor_free(c);
	dbg_cursor_free(w);
	run("kill", NULL);
	session_release(&s);
}

/* A thread's decoded trace is an index over chunks decoded on demand: a
 * trace of 64-byte PSB periods, a chunk at every PSB, reads as the full
 * store of the same bytes, through the session's image and instruction
 * cache; the cursor's walk across the chunks agrees with it. */
TEST(indexed_trace_reads_as_full_store)
{
	struct trace_swc_thread *th;
	struct trace_decoded *dec, *full;
	struct trace_image img;
	struct dbg_cursor *c;
	struct ptdb_err err;
	struct trace_item it;
	uint64_t chunks, decodes, n;
	uint8_t *buf;
	size_t len;

	setenv("PTDB_TRACE_CHUNK_BYTES", "0", 1);
	setenv("PTDB_DECODE_THREADS", "3", 1);	/* the indexing pass in segments */
	session_init(&s);
	CHECK(run("file tests/programs/trace_long", NULL) == CMD_OK && run("b main", NULL) == CMD_OK &&
	      run("r", NULL) == CMD_OK && run("thread trace start -p 64 -s 64KB", NULL) == CMD_OK &&
	      run("b trace_long.c:20", NULL) == CMD_OK && run("c", NULL) == CMD_OK);
	th = dbg_trace_thread(&s.dbg, s.dbg.sel_tid);
	CHECK(th);
	CHECK_INT(dbg_trace_decode(&s.dbg, th, &dec, &err), 0);
	trace_decoded_chunk_stats(dec, &chunks, &decodes);
	CHECK(chunks > 100);
	CHECK_INT(trace_decoded_index_threads(dec), 3);
	CHECK_INT(trace_ring_snapshot(&th->ring, &buf, &len, &err), 0);
	CHECK_INT(dbg_trace_build_image(&s.dbg, &img, &err), 0);
	CHECK(decoded_same(buf, len, &img, dbg_cursor_next_ip, &s.dbg));
	CHECK_INT(trace_decode(buf, len, &img, &full, &err), 0);
	n = trace_decoded_item_count(full);
	CHECK_INT(trace_decoded_item_count(dec), n);
	c = dbg_cursor_new(&s.dbg, dec);
	CHECK_INT(dbg_cursor_seek_item(c, 0), 0);
	for (uint64_t i = 0; i < n; i++) {
		CHECK_INT(trace_decoded_item(full, i, &it, dbg_cursor_next_ip, &s.dbg), 0);
		CHECK_INT(dbg_cursor_item(c)->ip, it.ip);
		CHECK_INT(dbg_cursor_item(c)->kind, (int)it.kind);
		CHECK_INT(dbg_cursor_next(c), i + 1 < n ? 0 : 1);
	}
	for (uint64_t i = n; i-- > 0;) {
		CHECK_INT(trace_decoded_item(full, i, &it, dbg_cursor_next_ip, &s.dbg), 0);
		CHECK_INT(dbg_cursor_item(c)->ip, it.ip);
		CHECK_INT(dbg_cursor_prev(c), i ? 0 : 1);
	}
	dbg_cursor_free(c);
	trace_decoded_free(full);
	trace_image_release(&img);
	free(buf);
	run("kill", NULL);
	session_release(&s);
	unsetenv("PTDB_TRACE_CHUNK_BYTES");
	unsetenv("PTDB_DECODE_THREADS");
}

TEST_MAIN(dump_reads_each_instruction_once, cursor_seeks_and_steps, indexed_trace_reads_as_full_store)
