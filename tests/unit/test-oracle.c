/* tests/unit/test-oracle.c: the tracing oracle.  A fixture runs between two
 * breakpoints twice: once single-stepped natively (recording every pc),
 * once traced with the software backend; the decoded instruction sequence
 * must equal the stepped one exactly, and decoding the buffer from each of
 * its PSBs must give exactly the matching tail. */
#include "test.h"

#include "core/dbg.h"
#include "core/dbg_cache.h"
#include "trace/decode.h"
#include "trace/ring.h"
#include "trace/swc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#define MAXSEQ 2000000

struct seq {
	uint64_t *ip;
	size_t n;
};

static void seq_add(struct seq *s, uint64_t ip)
{
	if (s->n < MAXSEQ)
		s->ip[s->n++] = ip;
}

/* Launches prog stopped at begin() with a breakpoint on end(); returns the
 * end address, 0 on failure. */
static uint64_t start(struct dbg *d, const char *prog, const char *begin, const char *end)
{
	struct ptdb_err err;
	struct dbg_stop st;
	char *argv[] = { (char *)prog, NULL };
	struct dbg_bp *b;

	dbg_init(d);
	d->sig[SIGUSR1].stop = 0;	/* handlers run inside the traced range */
	d->sig[SIGUSR1].notify = 0;
	if (dbg_set_exe(d, prog, &err) < 0)
		return 0;
	dbg_bp_add(d, DBG_BP_NAME, begin, NULL, 0, 0);
	b = dbg_bp_add(d, DBG_BP_NAME, end, NULL, 0, 0);
	if (dbg_launch(d, argv, 1, &err) < 0 || dbg_continue(d, &st, &err) < 0 ||
	    st.reason != DBG_R_BREAKPOINT || st.bp_id != 1 || b->nlocs != 1)
		return 0;
	return b->locs[0].addr;
}

static uint64_t pc_of(struct dbg *d)
{
	struct user_regs_struct r;

	if (target_get_regs(d->proc, d->sel_tid, &r, NULL) < 0)
		return 0;
	return r.rip;
}

static int stepped(const char *prog, struct seq *out)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	uint64_t end = start(&d, prog, "oracle_begin", "oracle_end");
	int ok = end != 0;

	/* a signal stops the stepping, so the step it pre-empted is known:
	 * its instruction did not execute (the next step enters the handler) */
	d.sig[SIGUSR1].stop = 1;
	int delivering = 0;

	while (ok) {
		uint64_t pc = pc_of(&d);

		if (pc == end)
			break;
		if (delivering) {	/* this step only enters the handler */
			delivering = 0;
			if (dbg_step_insn(&d, 0, &st, &err) < 0 || st.reason == DBG_R_EXITED)
				ok = 0;
			continue;
		}
		/* a REP string instruction steps once per iteration but is one
		 * instruction of the trace (Intel PT lists it once) */
		if (!out->n || out->ip[out->n - 1] != pc)
			seq_add(out, pc);
		if (dbg_step_insn(&d, 0, &st, &err) < 0 || st.reason == DBG_R_EXITED ||
		    out->n >= MAXSEQ)
			ok = 0;
		else if (st.reason == DBG_R_SIGNAL) {
			out->n--;
			delivering = 1;
		}
	}
	dbg_release(&d);
	return ok ? 0 : -1;
}

static int decode_ips(struct dbg *d, const uint8_t *buf, size_t len, struct seq *out)
{
	struct trace_image img;
	struct trace_decoded *dec;
	struct ptdb_err err;
	uint64_t n;

	if (dbg_trace_build_image(d, &img, &err) < 0)
		return -1;
	if (trace_decode(buf, len, &img, &dec, &err) < 0) {
		trace_image_release(&img);
		return -1;
	}
	n = trace_decoded_item_count(dec);
	for (uint64_t i = 0; i < n; i++) {
		struct trace_item it;

		if (trace_decoded_item(dec, i, &it, dbg_trace_next_ip, d) < 0) {
			trace_decoded_free(dec);
			trace_image_release(&img);
			return -1;
		}
		if (it.kind == TRACE_ITEM_INSN)
			seq_add(out, it.ip);
		else if (it.kind == TRACE_ITEM_GAP)
			printf("#   gap: %s at offset %llu\n", it.error, (unsigned long long)it.offset);
	}
	trace_decoded_free(dec);
	trace_image_release(&img);
	return 0;
}

static int is_psb(const uint8_t *p, size_t left)
{
	if (left < 16)
		return 0;
	for (int i = 0; i < 16; i += 2)
		if (p[i] != 0x02 || p[i + 1] != 0x82)
			return 0;
	return 1;
}

/* Traces the same range; checks the full decode and every PSB tail against
 * want.  Returns the number of PSBs checked, -1 on a mismatch. */
static int traced_engine(const char *prog, size_t size, size_t period, const struct seq *want,
			 int expect_wrap, int single, int engine)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	struct dbg_trace_opts o = { .size = size, .psb_period = period, .single_step = single,
				    .engine = engine };
	uint64_t end = start(&d, prog, "oracle_begin", "oracle_end");
	struct trace_swc_thread *th;
	struct seq got = { calloc(MAXSEQ, 8), 0 };
	uint8_t *buf = NULL;
	size_t len = 0;
	int psbs = 0, rc = -1;

	if (!end || dbg_trace_start(&d, &d.sel_tid, 1, 0, 0, &o, &err) < 0 ||
	    dbg_continue(&d, &st, &err) < 0 || st.reason != DBG_R_BREAKPOINT || pc_of(&d) != end) {
		printf("#   traced run did not reach the end breakpoint\n");
		goto out;
	}
	th = dbg_trace_thread(&d, d.sel_tid);
	if (!th || trace_ring_snapshot(&th->ring, &buf, &len, &err) < 0)
		goto out;
	if (engine == DBG_ENGINE_CACHE) {
		struct dbg_cache_stats cs;

		dbg_trace_cache_stats(&d, &cs);
		printf("#   cache engine: %llu insns, %llu blocks, %llu records, %llu traps (%llu links, "
		       "%llu misses, %llu drains), %llu entries, %llu stepped by ptrace\n",
		       (unsigned long long)th->insns, (unsigned long long)cs.blocks,
		       (unsigned long long)cs.records, (unsigned long long)cs.traps,
		       (unsigned long long)cs.links, (unsigned long long)cs.misses,
		       (unsigned long long)cs.drains, (unsigned long long)cs.entries,
		       (unsigned long long)cs.fallback);
		/* it really ran in the cache: most instructions came from records */
		if (cs.records == 0 || cs.entries == 0 || cs.fallback * 20 > th->insns) {
			printf("#   the cache engine did not do the run\n");
			goto out;
		}
	}
	if (!!th->ring.wrapped != !!expect_wrap) {
		printf("#   ring wrapped = %d, expected %d\n", th->ring.wrapped, expect_wrap);
		goto out;
	}
	for (size_t off = 0; off < len; off++) {
		if (!is_psb(buf + off, len - off))
			continue;
		got.n = 0;
		if (decode_ips(&d, buf + off, len - off, &got) < 0) {
			printf("#   decoding from PSB at %zu failed\n", off);
			goto out;
		}
		/* without a wrap, the first PSB gives the whole sequence */
		if (getenv("PTDB_ORACLE_DUMP") && off == 0) {
			char path[512];
			FILE *f;

			snprintf(path, sizeof(path), "%s.raw", getenv("PTDB_ORACLE_DUMP"));
			if ((f = fopen(path, "w"))) {
				fwrite(buf, 1, len, f);
				fclose(f);
			}
		}
		if ((!expect_wrap && psbs == 0 && got.n != want->n) || got.n > want->n ||
		    (got.n && memcmp(got.ip, want->ip + (want->n - got.n), got.n * 8))) {
			size_t k = 0, base = want->n >= got.n ? want->n - got.n : 0;
			const char *dump = getenv("PTDB_ORACLE_DUMP");

			if (dump) {	/* both sequences, for diff(1) */
				char path[512];
				FILE *f;

				snprintf(path, sizeof(path), "%s.want", dump);
				if ((f = fopen(path, "w"))) {
					for (size_t i = 0; i < want->n; i++)
						fprintf(f, "%llx\n", (unsigned long long)want->ip[i]);
					fclose(f);
				}
				snprintf(path, sizeof(path), "%s.got", dump);
				if ((f = fopen(path, "w"))) {
					for (size_t i = 0; i < got.n; i++)
						fprintf(f, "%llx\n", (unsigned long long)got.ip[i]);
					fclose(f);
				}
			}

			while (k < got.n && base + k < want->n && got.ip[k] == want->ip[base + k])
				k++;
			printf("#   from PSB at offset %zu: %zu instructions, want the last %zu of %zu;"
			       " first difference at %zu (0x%llx vs 0x%llx)\n", off, got.n, got.n,
			       want->n, k, k < got.n ? (unsigned long long)got.ip[k] : 0ull,
			       base + k < want->n ? (unsigned long long)want->ip[base + k] : 0ull);
			goto out;
		}
		psbs++;
		off += 15;
	}
	rc = psbs;
out:
	free(buf);
	free(got.ip);
	dbg_release(&d);
	return rc;
}

static int traced(const char *prog, size_t size, size_t period, const struct seq *want,
		  int expect_wrap, int single)
{
	return traced_engine(prog, size, period, want, expect_wrap, single, DBG_ENGINE_PTRACE);
}

/* Two threads: the worker's trace (everything traced, main busy beside it)
 * equals the worker single-stepped alone. */
static int two_threads(struct seq *stepped_seq, struct seq *got)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	struct dbg_trace_opts o = { .size = 8u << 20 };
	uint64_t end = start(&d, "tests/programs/oracle_threads", "worker_begin", "worker_end");
	struct trace_swc_thread *th;
	uint8_t *buf = NULL;
	size_t len = 0;
	pid_t worker;
	int rc = -1;

	if (!end)
		goto out;
	worker = d.sel_tid;
	/* reference: the worker alone, one instruction at a time */
	while (pc_of(&d) != end) {
		if (stepped_seq->n && stepped_seq->ip[stepped_seq->n - 1] == pc_of(&d)) {
			/* a REP instruction's next iteration */
		} else {
			seq_add(stepped_seq, pc_of(&d));
		}
		if (dbg_step_insn(&d, 0, &st, &err) < 0 || st.reason == DBG_R_EXITED ||
		    stepped_seq->n >= MAXSEQ || d.sel_tid != worker)
			goto out;
	}
	dbg_release(&d);
	/* traced: every thread, main running its own loop meanwhile */
	end = start(&d, "tests/programs/oracle_threads", "worker_begin", "worker_end");
	if (!end || dbg_trace_start(&d, NULL, 0, 1, 0, &o, &err) < 0 ||
	    dbg_continue(&d, &st, &err) < 0 || st.reason != DBG_R_BREAKPOINT || pc_of(&d) != end)
		goto out;
	th = dbg_trace_thread(&d, d.sel_tid);
	if (!th || trace_ring_snapshot(&th->ring, &buf, &len, &err) < 0)
		goto out;
	rc = decode_ips(&d, buf, len, got);
out:
	free(buf);
	dbg_release(&d);
	return rc;
}

TEST(oracle_two_threads)
{
	struct seq a = { calloc(MAXSEQ, 8), 0 }, b = { calloc(MAXSEQ, 8), 0 };
	int r = two_threads(&a, &b);
	size_t k = 0;

	while (k < a.n && k < b.n && a.ip[k] == b.ip[k])
		k++;
	if (r == 0 && (a.n != b.n || k != a.n))
		printf("#   stepped %zu, traced %zu, first difference at %zu\n", a.n, b.n, k);
	free(a.ip);
	free(b.ip);
	CHECK_INT(r, 0);
	CHECK(a.n > 1000);
	CHECK(a.n == b.n && k == a.n);
}

static struct seq want;

static void need_want(void)
{
	if (want.ip)
		return;
	want.ip = calloc(MAXSEQ, 8);
	if (stepped("tests/programs/oracle", &want) < 0)
		want.n = 0;
}

TEST(oracle_single_step_reference)
{
	need_want();
	/* loops, fib(7), 8 indirect calls + switches, printf/puts via PLT
	 * (lazy binding), syscalls, a signal handler, longjmp */
	CHECK(want.n > 1000);
}

TEST(oracle_trace_equals_stepping)
{
	int psbs;

	need_want();
	CHECK(want.n > 1000);
	psbs = traced("tests/programs/oracle", 8u << 20, 128, &want, 0, 0);
	CHECK(psbs > 10);	/* and every PSB tail matched */
}

TEST(oracle_single_step_mode_equals_block_mode)
{
	int psbs;

	need_want();
	CHECK(want.n > 1000);
	/* both modes equal the reference, hence each other */
	psbs = traced("tests/programs/oracle", 8u << 20, 4096, &want, 0, 1);
	CHECK(psbs >= 1);
}

TEST(oracle_wrapped_ring_decodes_tail)
{
	int psbs;

	need_want();
	CHECK(want.n > 1000);
	psbs = traced("tests/programs/oracle", 4096, 256, &want, 1, 0);
	CHECK(psbs > 1);
}

/* The cache engine: the threads run out of a code cache and record the
 * blocks they ran; the same sequence, from every PSB. */
TEST(oracle_cache_engine_equals_stepping)
{
	int psbs;

	need_want();
	CHECK(want.n > 1000);
	psbs = traced_engine("tests/programs/oracle", 8u << 20, 128, &want, 0, 0, DBG_ENGINE_CACHE);
	CHECK(psbs > 10);
}

TEST(oracle_cache_engine_wrapped_ring)
{
	int psbs;

	need_want();
	CHECK(want.n > 1000);
	psbs = traced_engine("tests/programs/oracle", 4096, 256, &want, 1, 0, DBG_ENGINE_CACHE);
	CHECK(psbs > 1);
}

/* A long run (hundreds of thousands of blocks: the record buffer fills
 * again and again): the cache engine writes byte for byte the stream the
 * ptrace engine writes, and both decode to the same instructions. */
static int long_run(int engine, uint8_t **buf, size_t *len, uint64_t *drains, struct seq *ips)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	struct dbg_trace_opts o = { .size = 64u << 20, .engine = engine };
	uint64_t end = start(&d, "tests/programs/cache_long", "oracle_begin", "oracle_end");
	struct trace_swc_thread *th;
	struct dbg_cache_stats cs;
	int rc = -1;

	if (end && dbg_trace_start(&d, &d.sel_tid, 1, 0, 0, &o, &err) == 0 &&
	    dbg_continue(&d, &st, &err) == 0 && st.reason == DBG_R_BREAKPOINT && pc_of(&d) == end &&
	    (th = dbg_trace_thread(&d, d.sel_tid)) && trace_ring_snapshot(&th->ring, buf, len, &err) == 0)
		rc = decode_ips(&d, *buf, *len, ips);
	dbg_trace_cache_stats(&d, &cs);
	*drains = cs.drains;
	dbg_release(&d);
	return rc;
}

TEST(oracle_cache_engine_long_run_same_stream)
{
	uint8_t *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	uint64_t da = 0, db = 0;
	struct seq sa = { calloc(MAXSEQ, 8), 0 }, sb = { calloc(MAXSEQ, 8), 0 };

	CHECK_INT(long_run(DBG_ENGINE_PTRACE, &a, &na, &da, &sa), 0);
	CHECK_INT(long_run(DBG_ENGINE_CACHE, &b, &nb, &db, &sb), 0);
	CHECK(db >= 1);		/* the buffer filled, was drained, filled again */
	CHECK(na > 4000);	/* (0.35 bytes of packets an instruction, about) */
	CHECK(na == nb && a && b && !memcmp(a, b, na));
	/* and it decodes whole: over 400,000 instructions (the
	 * sequence is cut at MAXSEQ), the same under both */
	CHECK(sa.n > 400000 && sa.n == sb.n && !memcmp(sa.ip, sb.ip, sa.n * 8));
	free(sa.ip);
	free(sb.ip);
	free(a);
	free(b);
}

/* oracle2: exceptions, qsort, vectorised string functions, dlopen,
 * tail calls at -O2, a timer signal; both engines equal stepping. */
static struct seq want2;

TEST(oracle2_both_engines_equal_stepping)
{
	want2.ip = calloc(MAXSEQ, 8);
	if (stepped("tests/programs/oracle2", &want2) < 0)
		want2.n = 0;
	CHECK(want2.n > 1000);
	CHECK(traced_engine("tests/programs/oracle2", 8u << 20, 4096, &want2, 0, 0, DBG_ENGINE_PTRACE) >= 1);
	CHECK(traced_engine("tests/programs/oracle2", 8u << 20, 4096, &want2, 0, 0, DBG_ENGINE_CACHE) >= 1);
	free(want2.ip);
}

TEST_MAIN(oracle_single_step_reference, oracle_trace_equals_stepping,
	  oracle2_both_engines_equal_stepping,
	  oracle_cache_engine_long_run_same_stream,
	  oracle_cache_engine_equals_stepping, oracle_cache_engine_wrapped_ring,
	  oracle_single_step_mode_equals_block_mode, oracle_wrapped_ring_decodes_tail,
	  oracle_two_threads)
