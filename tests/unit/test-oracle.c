/* tests/unit/test-oracle.c: the tracing oracle.  A fixture runs between two
 * breakpoints twice: once single-stepped natively (recording every pc),
 * once traced with the software backend; the decoded instruction sequence
 * must equal the stepped one exactly, and decoding the buffer from each of
 * its PSBs must give exactly the matching tail. */
#include "test.h"

#include "core/session/dbg.h"
#include "core/collectors/dbg_cache.h"
#include "trace/decode.h"
#include "trace/ring.h"
#include "trace/swc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <cpuid.h>

/* Whether the CPU and the kernel have protection keys (pku, ospke).
 * Without them the ptrace engine's int3s stay visible to a program that
 * reads its code (ptdb-trace(7) says so), and the tests of the hidden
 * int3s say they were skipped. */
static int have_pkeys(void)
{
	unsigned a, b, c, d;

	return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 3)) && (c & (1u << 4));
}

#define NEEDS_PKEYS() do { if (!have_pkeys()) { \
	printf("# skipped: no protection keys (pku, ospke) on this machine\n"); return; } } while (0)

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
/* The program's argument, if set, for the next start. */
static const char *start_arg;

static uint64_t start(struct dbg *d, const char *prog, const char *begin, const char *end)
{
	struct ptdb_err err;
	struct dbg_stop st;
	char *argv[] = { (char *)prog, (char *)start_arg, NULL };
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

/* Set: the fixture writes code (the cache engine leaves writable code to
 * single-steps). */
static int code_written;
static unsigned long long last_entries;	/* the cache engine's, in the last run */

/* Set: a run that reached oracle_end continues to the process's exit,
 * its status in last_exit (-1: it did not exit). */
static int want_exit, last_exit;

/* Set: traced runs trace every thread (those made later too), and the
 * run to the exit has a breakpoint at this function whose condition is
 * never true.  last_traps: the cache engine's traps in the last run. */
static int trace_all;
static const char *exit_cond_bp;
static unsigned long long last_traps;

static void run_to_exit(struct dbg *d)
{
	struct dbg_stop st;
	struct ptdb_err err;

	last_exit = -1;
	if (want_exit && exit_cond_bp)
		dbg_bp_set_condition(dbg_bp_add(d, DBG_BP_NAME, exit_cond_bp, NULL, 0, 0), "0");
	if (want_exit && dbg_continue(d, &st, &err) == 0 && st.reason == DBG_R_EXITED && !st.signaled)
		last_exit = st.exit_status;
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
	if (ok)
		run_to_exit(&d);
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
		if (it.kind == TRACE_ITEM_INSN) {
			uint8_t b[2] = { 0, 0 };

			/* a system call the kernel restarts (its thread stopped
			 * by the tracer meanwhile) runs its SYSCALL again: the
			 * stepped reference takes a repeated pc once (REP) */
			if (out->n && out->ip[out->n - 1] == it.ip &&
			    target_read_mem(d->proc, it.ip, b, 2, NULL) == 0 && b[0] == 0x0f && b[1] == 0x05)
				continue;
			seq_add(out, it.ip);
		} else if (it.kind == TRACE_ITEM_GAP)
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
	uint64_t end = (last_exit = -1, start(&d, prog, "oracle_begin", "oracle_end"));
	struct trace_swc_thread *th;
	struct seq got = { calloc(MAXSEQ, 8), 0 };
	uint8_t *buf = NULL;
	size_t len = 0;
	int psbs = 0, rc = -1;

	if (!end || (trace_all ? dbg_trace_start(&d, NULL, 0, 1, 0, &o, &err)
			       : dbg_trace_start(&d, &d.sel_tid, 1, 0, 0, &o, &err)) < 0 ||
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
		last_traps = cs.traps;
		last_entries = cs.entries;
		/* it really ran in the cache: most instructions came from
		 * records (or some, where code is written: that is stepped) */
		if (cs.records == 0 || cs.entries == 0 || (!code_written && cs.fallback * 20 > th->insns)) {
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
	/* (the exit status says whether the program ran right, a trace
	 * that differs or not) */
	if (end && pc_of(&d) == end)
		run_to_exit(&d);
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
static int two_threads(struct seq *stepped_seq, struct seq *got, int engine)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	struct dbg_trace_opts o = { .size = 8u << 20, .engine = engine };
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
	if (engine == DBG_ENGINE_CACHE) {
		struct dbg_cache_stats cs;

		dbg_trace_cache_stats(&d, &cs);
		printf("#   cache engine: %llu records, %llu entries, %llu quanta, %llu slot pages\n",
		       (unsigned long long)cs.records, (unsigned long long)cs.entries,
		       (unsigned long long)cs.quanta, (unsigned long long)cs.slot_pages);
		if (cs.records == 0 || cs.entries == 0)
			goto out;	/* it did not do the run */
		/* the worker's slots its own (a page its gs base points at
		 * in the cache), and at the stop every thread's gs base the
		 * program's */
		if (cs.slot_pages < 1)
			goto out;
		{
			struct target_thread_info ti[16];
			int n = target_threads(d.proc, ti, 16);

			for (int i = 0; i < n && i < 16; i++) {
				struct user_regs_struct r;

				if (target_get_regs(d.proc, ti[i].tid, &r, NULL) == 0 && r.gs_base != 0) {
					printf("#   thread %d stopped with gs base 0x%llx\n", (int)ti[i].tid,
					       (unsigned long long)r.gs_base);
					goto out;
				}
			}
		}
	}
	rc = decode_ips(&d, buf, len, got);
out:
	free(buf);
	dbg_release(&d);
	return rc;
}

static void two_threads_engine(int engine)
{
	struct seq a = { calloc(MAXSEQ, 8), 0 }, b = { calloc(MAXSEQ, 8), 0 };
	int r = two_threads(&a, &b, engine);
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

TEST(oracle_two_threads)
{
	two_threads_engine(DBG_ENGINE_PTRACE);
}

TEST(oracle_two_threads_cache_engine)
{
	two_threads_engine(DBG_ENGINE_CACHE);
}

/* The traced parent forks, its child (free, not traced) execs a shell
 * whose exit status the parent checks (then vfork and posix_spawn, whose
 * children run in the parent's memory until they exec): the parent's trace equals the
 * parent stepped under both engines, and the child ran as if nothing
 * traced its parent (no breakpoint of the tracer's, no cache code in
 * its copy of the memory): the process exits 0. */
TEST(oracle_fork_exec_both_engines)
{
	struct seq w = { calloc(MAXSEQ, 8), 0 };

	want_exit = 1;
	CHECK(stepped("tests/programs/oracle_fork", &w) == 0);
	CHECK(w.n > 1000);
	CHECK_INT(last_exit, 0);
	CHECK(traced_engine("tests/programs/oracle_fork", 8u << 20, 4096, &w, 0, 0, DBG_ENGINE_PTRACE) >= 1);
	CHECK_INT(last_exit, 0);
	CHECK(traced_engine("tests/programs/oracle_fork", 8u << 20, 4096, &w, 0, 0, DBG_ENGINE_CACHE) >= 1);
	CHECK_INT(last_exit, 0);
	want_exit = 0;
	free(w.ip);
}

/* ---- threads: every thread stepped at once ---- */

#define MAXT 16

struct tseq {
	pid_t tid;
	struct seq s;
	int held;
};

static struct tseq *tseq_of(struct tseq *ts, int *n, pid_t tid)
{
	for (int i = 0; i < *n; i++)
		if (ts[i].tid == tid)
			return &ts[i];
	if (*n == MAXT)
		return NULL;
	ts[*n].tid = tid;
	ts[*n].s.ip = calloc(MAXSEQ, 8);
	ts[*n].s.n = 0;
	ts[*n].held = 0;
	return &ts[(*n)++];
}

static void tseq_free(struct tseq *ts, int n)
{
	for (int i = 0; i < n; i++)
		free(ts[i].s.ip);
}

static uint64_t sym_addr(struct dbg *d, const char *name)
{
	struct dbg_bp *b = dbg_bp_add(d, DBG_BP_NAME, name, NULL, 0, 0);
	uint64_t a = b && b->nlocs == 1 ? b->locs[0].addr : 0;

	if (b)
		dbg_bp_delete(d, b->id);
	return a;
}

/* The reference for a multi-threaded fixture: from oracle_begin until main
 * reaches oracle_end, every thread single-stepped at once (each stopped
 * thread is given its next step, and the next stop of any is taken), so a
 * thread blocked in the kernel (a read, a mutex's futex) holds no other:
 * each thread's pcs apart.  Stepping one thread with the others stopped
 * would deadlock where another holds what it waits for. */
static int stepped_threads(const char *prog, struct tseq *ts, int *nts)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	uint64_t end = start(&d, prog, "oracle_begin", "oracle_end");
	pid_t main_tid = d.sel_tid;
	int rc = -1, done = 0;
	struct target_stop ev, ex;

	*nts = 0;
	if (!end || !tseq_of(ts, nts, main_tid))
		goto out;
	/* off the breakpoint at oracle_begin (the process has one thread) */
	seq_add(&ts[0].s, pc_of(&d));
	if (dbg_step_insn(&d, 0, &st, &err) < 0 || st.reason == DBG_R_EXITED)
		goto out;
	target_thread_begin(d.proc);
	while (!done) {
		for (int i = 0; i < *nts; i++) {
			struct user_regs_struct r;
			struct seq *q = &ts[i].s;

			if (!target_thread_stopped(d.proc, ts[i].tid))
				continue;
			if (target_get_regs(d.proc, ts[i].tid, &r, NULL) < 0)
				continue;	/* gone */
			if (ts[i].tid == main_tid && r.rip == end) {
				done = 1;	/* (its instruction is not in the range) */
				break;
			}
			/* (a REP instruction's next iteration, or the pc
			 * after a system call seen again at its event) */
			if (!q->n || q->ip[q->n - 1] != r.rip)
				seq_add(q, r.rip);
			/* (a new thread holds its start event: taken below,
			 * then it steps; a breakpoint would hold it forever) */
			if (target_thread_step_start(d.proc, ts[i].tid) < 0 && ++ts[i].held > 2) {
				printf("#   thread %d could not step at 0x%llx\n", (int)ts[i].tid,
				       (unsigned long long)r.rip);
				target_thread_end(d.proc, &ex);
				goto out;
			}
		}
		if (done)
			break;
		if (!target_thread_event(d.proc, 1, &ev) || ev.kind == TARGET_STOP_EXITED ||
		    ev.kind == TARGET_STOP_SIGNALED) {
			printf("#   the process ended while stepped\n");
			goto out;
		}
		if (ev.kind == TARGET_STOP_NONE) {
			/* a thread started: stepped from its first instruction */
			struct target_thread_info ti[MAXT];
			int n = target_threads(d.proc, ti, MAXT);

			for (int i = 0; i < n; i++)
				if (!tseq_of(ts, nts, ti[i].tid))
					goto out;
		} else if (ev.kind != TARGET_STOP_STEP) {
			printf("#   thread %d stopped unexpectedly (kind %d, signal %d)\n", (int)ev.tid,
			       (int)ev.kind, ev.signo);
			target_thread_end(d.proc, &ex);
			goto out;
		}
	}
	rc = target_thread_end(d.proc, &ex) ? -1 : 0;
out:
	dbg_release(&d);
	return rc;
}

/* The same range traced (every thread, engine), each thread's trace
 * decoded apart; cs gets the cache engine's counters. */
static int traced_threads(const char *prog, int engine, struct tseq *ts, int *nts,
			  struct dbg_cache_stats *cs, uint64_t *wb, uint64_t *we)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	struct dbg_trace_opts o = { .size = 8u << 20, .engine = engine };
	uint64_t end = start(&d, prog, "oracle_begin", "oracle_end");
	struct target_thread_info ti[MAXT];
	int n, rc = -1;

	*nts = 0;
	*wb = sym_addr(&d, "worker_begin");
	*we = sym_addr(&d, "worker_end");
	err.msg[0] = 0;
	memset(&st, 0, sizeof(st));
	if (!end || dbg_trace_start(&d, NULL, 0, 1, 0, &o, &err) < 0 || dbg_continue(&d, &st, &err) < 0 ||
	    st.reason != DBG_R_BREAKPOINT || pc_of(&d) != end) {
		printf("#   traced run did not reach the end breakpoint: reason %d, signal %d, tid %d, pc 0x%llx: %s\n",
		       (int)st.reason, st.signo, (int)st.tid, (unsigned long long)pc_of(&d), err.msg);
		goto out;
	}
	dbg_trace_cache_stats(&d, cs);
	n = target_threads(d.proc, ti, MAXT);
	for (int i = 0; i < n; i++) {
		struct trace_swc_thread *th = dbg_trace_thread(&d, ti[i].tid);
		struct tseq *q = tseq_of(ts, nts, ti[i].tid);
		uint8_t *buf = NULL;
		size_t len = 0;

		if (!th || !q || trace_ring_snapshot(&th->ring, &buf, &len, &err) < 0 ||
		    decode_ips(&d, buf, len, &q->s) < 0) {
			printf("#   thread %d: no trace\n", (int)ti[i].tid);
			free(buf);
			goto out;
		}
		free(buf);
	}
	rc = 0;
out:
	dbg_release(&d);
	return rc;
}

/* The part of s from its first instruction to worker_end (excluded);
 * n 0 when it never reached worker_begin and worker_end. */
static struct seq worker_part(const struct seq *s, uint64_t wb, uint64_t we)
{
	struct seq w = { s->ip, 0 };
	int began = 0;

	for (size_t i = 0; i < s->n; i++) {
		began |= s->ip[i] == wb;
		if (s->ip[i] == we) {
			w.n = began ? i : 0;
			return w;
		}
	}
	return w;
}

/* Both sequences into files for diff(1) (PTDB_ORACLE_DUMP.N.want, .got). */
static void dump_pair(const struct seq *w, const struct seq *g, int n)
{
	const struct seq *both[2] = { w, g };

	for (int k = 0; k < 2; k++) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s.%d.%s", getenv("PTDB_ORACLE_DUMP"), n, k ? "got" : "want");
		if (!(f = fopen(path, "w")))
			continue;
		for (size_t i = 0; i < both[k]->n; i++)
			fprintf(f, "%llx\n", (unsigned long long)both[k]->ip[i]);
		fclose(f);
	}
}

/* Each worker of the traced run equals one worker of the stepped run,
 * instruction for instruction from its first, and main its whole range;
 * returns the number of workers matched, -1 on a difference. */
static int threads_match(struct tseq *want, int nwant, struct tseq *got, int ngot, uint64_t wb, uint64_t we)
{
	int used[MAXT] = { 0 }, matched = 0;

	/* main: the first thread of both */
	if (!nwant || !ngot || want[0].s.n != got[0].s.n ||
	    memcmp(want[0].s.ip, got[0].s.ip, want[0].s.n * 8)) {
		size_t k = 0;

		while (nwant && ngot && k < want[0].s.n && k < got[0].s.n && want[0].s.ip[k] == got[0].s.ip[k])
			k++;
		printf("#   main: stepped %zu, traced %zu, first difference at %zu\n", nwant ? want[0].s.n : 0,
		       ngot ? got[0].s.n : 0, k);
		return -1;
	}
	for (int i = 1; i < ngot; i++) {
		struct seq g = worker_part(&got[i].s, wb, we);
		int j;

		if (!g.n) {
			printf("#   traced thread %d: no worker_begin..worker_end in %zu instructions\n", i,
			       got[i].s.n);
			return -1;
		}
		for (j = 1; j < nwant; j++) {
			struct seq w = worker_part(&want[j].s, wb, we);

			if (!used[j] && w.n == g.n && !memcmp(w.ip, g.ip, g.n * 8))
				break;
		}
		if (j == nwant) {
			printf("#   traced worker %d (%zu instructions) equals no stepped worker:", i, g.n);
			for (j = 1; j < nwant; j++) {
				struct seq w = worker_part(&want[j].s, wb, we);
				size_t k = 0;

				while (k < w.n && k < g.n && w.ip[k] == g.ip[k])
					k++;
				printf(" (%zu, differs at %zu)", w.n, k);
				if (getenv("PTDB_ORACLE_DUMP"))
					dump_pair(&w, &g, j);
			}
			printf("\n");
			return -1;
		}
		used[j] = 1;
		matched++;
	}
	return matched;
}

/* How often the trace in buf reaches addr; -1 if it does not decode. */
static long decode_count(struct dbg *d, const uint8_t *buf, size_t len, uint64_t addr)
{
	struct trace_image img;
	struct trace_decoded *dec;
	struct ptdb_err err;
	uint64_t n;
	long hits = 0;

	if (dbg_trace_build_image(d, &img, &err) < 0)
		return -1;
	if (trace_decode(buf, len, &img, &dec, &err) < 0) {
		trace_image_release(&img);
		return -1;
	}
	n = trace_decoded_item_count(dec);
	for (uint64_t i = 0; i < n && hits >= 0; i++) {
		struct trace_item it;

		if (trace_decoded_item(dec, i, &it, dbg_trace_next_ip, d) < 0) {
			hits = -1;
		} else if (it.kind == TRACE_ITEM_GAP) {
			printf("#   gap: %s at offset %llu, item %llu of %llu\n", it.error,
			       (unsigned long long)it.offset, (unsigned long long)i, (unsigned long long)n);
			for (uint64_t k = i > 12 ? i - 12 : 0; k < i + 3 && k < n; k++)
				if (getenv("PTDB_ORACLE_DUMP") && trace_decoded_item(dec, k, &it, dbg_trace_next_ip, d) == 0)
					printf("#     item %llu: kind %d ip 0x%llx\n", (unsigned long long)k, (int)it.kind,
					       (unsigned long long)it.ip);
			hits = -1;
		}
		else if (it.kind == TRACE_ITEM_INSN && it.ip == addr)
			hits++;
	}
	trace_decoded_free(dec);
	trace_image_release(&img);
	return hits;
}

/* Two threads hand a turn back and forth by spinning, no system call
 * between: under the cache engine both run in the cache at once (threads
 * in parallel: no quantum), or, taking turns (PTDB_CACHE_TURNS), the one
 * in the cache is preempted (its quantum) and brought back to an
 * original pc, or the other never runs.  Each thread's trace shows
 * exactly the spins the program counted. */
TEST(oracle_spinning_threads_cache_engine)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	struct dbg_trace_opts o = { .size = 64u << 20, .engine = DBG_ENGINE_CACHE };
	uint64_t end = start(&d, "tests/programs/oracle_spin", "oracle_begin", "oracle_end");
	uint64_t spun = sym_addr(&d, "spun");
	struct target_thread_info ti[MAXT];
	struct user_regs_struct r;
	struct dbg_cache_stats cs;
	long got[2] = { -1, -1 };
	int n = 0;

	CHECK(end && spun);
	CHECK(dbg_trace_start(&d, NULL, 0, 1, 0, &o, &err) == 0);
	CHECK(dbg_continue(&d, &st, &err) == 0 && st.reason == DBG_R_BREAKPOINT && pc_of(&d) == end);
	CHECK(target_get_regs(d.proc, d.sel_tid, &r, NULL) == 0);
	dbg_trace_cache_stats(&d, &cs);
	n = target_threads(d.proc, ti, MAXT);
	for (int i = 0; i < n && i < 2; i++) {
		struct trace_swc_thread *th = dbg_trace_thread(&d, ti[i].tid);
		uint8_t *buf = NULL;
		size_t len = 0;

		if (th && trace_ring_snapshot(&th->ring, &buf, &len, &err) == 0 && !th->ring.wrapped)
			got[i] = decode_count(&d, buf, len, spun);
		free(buf);
	}
	printf("#   spins counted %lld and %lld, traced %ld and %ld; %llu records, %llu quanta, %llu runs in "
	       "parallel\n", (long long)r.rdi, (long long)r.rsi, got[0], got[1], (unsigned long long)cs.records,
	       (unsigned long long)cs.quanta, (unsigned long long)cs.crew_runs);
	dbg_release(&d);
	CHECK(cs.records > 0);
	CHECK(dbg_cache_parallel() ? cs.crew_runs > 0 : cs.quanta > 0);
	CHECK(n >= 1);
	CHECK(got[0] == (long)r.rdi);
	/* (the worker may have exited: its trace then went with it) */
	CHECK(n < 2 || got[1] == (long)r.rsi);
}

/* Four workers contend for a mutex with trylock, spinning while another
 * holds it (one preempted in the cache holding it keeps the others
 * spinning for a quantum): in each thread's trace, exactly the failed
 * tries the program counted. */
static void contended_mutex(void)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	struct dbg_trace_opts o = { .size = 64u << 20, .engine = DBG_ENGINE_CACHE };
	uint64_t end = start(&d, "tests/programs/oracle_contend", "oracle_begin", "oracle_end");
	uint64_t at = sym_addr(&d, "contended");
	struct target_thread_info ti[MAXT];
	struct user_regs_struct r;
	long want[4], got[4] = { -1, -1, -1, -1 }, sum = 0;
	int n = 0, same = 1;

	CHECK(end && at);
	CHECK(dbg_trace_start(&d, NULL, 0, 1, 0, &o, &err) == 0);
	err.msg[0] = 0;
	if (dbg_continue(&d, &st, &err) < 0 || st.reason != DBG_R_BREAKPOINT || pc_of(&d) != end)
		printf("#   stopped: reason %d, signal %d, tid %d, pc 0x%llx: %s\n", (int)st.reason, st.signo,
		       (int)st.tid, (unsigned long long)pc_of(&d), err.msg);
	CHECK(st.reason == DBG_R_BREAKPOINT && pc_of(&d) == end);
	CHECK(target_get_regs(d.proc, d.sel_tid, &r, NULL) == 0);
	want[0] = (long)r.rdi, want[1] = (long)r.rsi, want[2] = (long)r.rdx, want[3] = (long)r.rcx;
	n = target_threads(d.proc, ti, MAXT);
	/* thread 1 is main; the workers in the order they were created */
	for (int i = 1; i < n && i <= 4; i++) {
		struct trace_swc_thread *th = dbg_trace_thread(&d, ti[i].tid);
		uint8_t *buf = NULL;
		size_t len = 0;

		if (th && trace_ring_snapshot(&th->ring, &buf, &len, &err) == 0 && !th->ring.wrapped)
			got[i - 1] = decode_count(&d, buf, len, at);
		else
			printf("#   thread %d: %s\n", i, th ? "its trace wrapped" : "not traced");
		free(buf);
	}
	dbg_release(&d);
	for (int i = 0; i < 4; i++) {
		printf("#   worker %d: %ld failed tries counted, %ld traced\n", i, want[i], got[i]);
		same &= want[i] == got[i];
		sum += want[i];
	}
	CHECK_INT(n, 5);
	CHECK(same);
	if (!sum)
		printf("#   (no contention this time)\n");
}

TEST(oracle_contended_mutex_cache_engine)
{
	contended_mutex();
}

/* The same with a drainer for every two workers (by default one per two
 * CPUs: one for all four where there are two CPUs): each worker's records
 * read by its own drainer, the second woken for its rings' requests. */
TEST(oracle_contended_mutex_two_drainers)
{
	setenv("PTDB_CACHE_DRAINERS", "2", 1);
	contended_mutex();
	unsetenv("PTDB_CACHE_DRAINERS");
}

static struct tseq mwant[MAXT];
static int nmwant = -1;

static void need_mutex_want(void)
{
	if (nmwant >= 0)
		return;
	if (stepped_threads("tests/programs/oracle_mutex", mwant, &nmwant) < 0)
		nmwant = 0;
}

static int mutex_engine(int engine)
{
	struct tseq got[MAXT];
	int ngot = 0, r;
	struct dbg_cache_stats cs;
	uint64_t wb, we;

	need_mutex_want();
	if (nmwant != 5)
		return -1;
	if (traced_threads("tests/programs/oracle_mutex", engine, got, &ngot, &cs, &wb, &we) < 0) {
		tseq_free(got, ngot);
		return -1;
	}
	if (engine == DBG_ENGINE_CACHE) {
		printf("#   cache engine: %llu blocks, %llu records, %llu traps, %llu entries, "
		       "%llu stepped by ptrace, %llu quanta\n", (unsigned long long)cs.blocks,
		       (unsigned long long)cs.records, (unsigned long long)cs.traps,
		       (unsigned long long)cs.entries, (unsigned long long)cs.fallback,
		       (unsigned long long)cs.quanta);
		if (cs.records == 0 || cs.entries == 0) {
			printf("#   the cache engine did not do the run\n");
			tseq_free(got, ngot);
			return -1;
		}
		/* every thread that ran in the cache with slots of its own */
		if (cs.slot_pages < 5) {
			printf("#   %llu threads had slots of their own, not 5\n", (unsigned long long)cs.slot_pages);
			tseq_free(got, ngot);
			return -1;
		}
	}
	r = threads_match(mwant, nmwant, got, ngot, wb, we);
	tseq_free(got, ngot);
	return r;
}

/* Four workers under a mutex, a token passed round: stepped all at once,
 * each thread's instructions equal its trace under each engine. */
TEST(oracle_mutex_threads_stepped)
{
	need_mutex_want();
	CHECK_INT(nmwant, 5);	/* main and four workers */
	for (int i = 1; i < nmwant; i++)
		CHECK(mwant[i].s.n > 1000);
}

TEST(oracle_mutex_threads_ptrace_engine)
{
	CHECK_INT(mutex_engine(DBG_ENGINE_PTRACE), 4);
}

TEST(oracle_mutex_threads_cache_engine)
{
	CHECK_INT(mutex_engine(DBG_ENGINE_CACHE), 4);
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

/* A long run (hundreds of thousands of blocks: the record ring goes
 * round again and again): the cache engine writes byte for byte the stream the
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
	*drains = cs.drains + cs.ring_served;	/* (trapped, or served running) */
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
	CHECK(db >= 1);		/* the ring wrapped, was read, went round again */
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

/* ---- code that changes while it is traced ---- */

/* A fixture stepped once (its reference), then traced under each engine:
 * the same instructions, and the program's exit status 0 each time (its
 * own check that every round ran the code as it was then). */
static struct {
	const char *prog;
	struct seq w;
	int exit;
} code_ref[16];

static int changing_code(const char *prog, int engine)
{
	int i, psbs;

	for (i = 0; i < 16 && code_ref[i].prog && strcmp(code_ref[i].prog, prog); i++)
		;
	if (i == 16)
		return -1;
	want_exit = 1;
	if (!code_ref[i].prog) {
		code_ref[i].prog = prog;
		code_ref[i].w.ip = calloc(MAXSEQ, 8);
		if (stepped(prog, &code_ref[i].w) < 0)
			code_ref[i].w.n = 0;
		code_ref[i].exit = last_exit;
		printf("#   stepped: %zu instructions, exit %d\n", code_ref[i].w.n, last_exit);
	}
	if (code_ref[i].w.n < 100 || code_ref[i].exit != 0) {
		want_exit = 0;
		return -1;
	}
	code_written = 1;
	psbs = traced_engine(prog, 8u << 20, 4096, &code_ref[i].w, 0, 0, engine);
	want_exit = code_written = 0;
	printf("#   traced: %d PSBs matched, exit %d\n", psbs, last_exit);
	return psbs >= 1 && last_exit == 0 ? 0 : -1;
}

/* The program stores into its own .text (made writable): a je turned jne,
 * an immediate changed, then patched back. */
TEST(oracle_self_patching_ptrace_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_smc", DBG_ENGINE_PTRACE), 0);
}

TEST(oracle_self_patching_cache_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_smc", DBG_ENGINE_CACHE), 0);
}

/* A W^X JIT: each round writes its code into a writable page, makes it
 * executable, calls it. */
TEST(oracle_wx_jit_ptrace_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_jit_wx", DBG_ENGINE_PTRACE), 0);
}

TEST(oracle_wx_jit_cache_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_jit_wx", DBG_ENGINE_CACHE), 0);
}

/* A memfd mapped writable and executable: code written through the
 * writable view, or with pwrite, runs through the other (read-only,
 * shared). */
TEST(oracle_dual_mapped_jit_ptrace_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_jit_dual", DBG_ENGINE_PTRACE), 0);
}

TEST(oracle_dual_mapped_jit_cache_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_jit_dual", DBG_ENGINE_CACHE), 0);
}

/* JIT code moved with mremap and called at its new address, its old
 * place filled again, its new page made writable and executable again. */
TEST(oracle_code_moved_ptrace_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_code_move", DBG_ENGINE_PTRACE), 0);
}

TEST(oracle_code_moved_cache_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_code_move", DBG_ENGINE_CACHE), 0);
}

/* A child made by clone(CLONE_VM) runs in the traced parent's memory
 * (where the parent's code works meanwhile) and exits: the parent's trace
 * is whole and the user's breakpoint still stops it. */
TEST(oracle_clone_vm_child_ptrace_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_clone_vm", DBG_ENGINE_PTRACE), 0);
}

TEST(oracle_clone_vm_child_cache_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_clone_vm", DBG_ENGINE_CACHE), 0);
}

/* A program that reads its own code (.text byte by byte, a function with
 * memcmp and a rep string copy, libc's puts, a JIT page) after running it:
 * under the ptrace engine it reads the bytes it ran, not the engine's
 * int3s (their pages hidden by a protection key, each read served), and
 * the trace equals stepping. */
TEST(oracle_code_read_ptrace_engine)
{
	NEEDS_PKEYS();
	CHECK_INT(changing_code("tests/programs/oracle_code_read", DBG_ENGINE_PTRACE), 0);
}

/* The same under the cache engine, which plants nothing in the program's
 * code (it runs translations elsewhere): the reads see the code's bytes. */
TEST(oracle_code_read_cache_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_code_read", DBG_ENGINE_CACHE), 0);
}

TEST(oracle_code_read_by_untraced_thread_cache_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_code_read_thread", DBG_ENGINE_CACHE), 0);
}

/* A thread that is not traced reads the code the traced thread runs (its
 * reads served as it runs on its own): it reads the bytes, the traced
 * thread's trace equals stepping. */
TEST(oracle_code_read_by_untraced_thread_ptrace_engine)
{
	NEEDS_PKEYS();
	CHECK_INT(changing_code("tests/programs/oracle_code_read_thread", DBG_ENGINE_PTRACE), 0);
}

/* A program that uses protection keys itself: PKRU reads as untraced
 * while the engine hides its int3s, its pkey_alloc gets the key it gets
 * untraced (the engine gives its own back first, then plants as before),
 * its WRPKRUs and its protected page work. */
TEST(oracle_own_pkeys_ptrace_engine)
{
	NEEDS_PKEYS();
	CHECK_INT(changing_code("tests/programs/oracle_pkeys", DBG_ENGINE_PTRACE), 0);
}

/* A 1 ms interval timer ticks while the program works (every us
 * microseconds if us): traced, the program gets on (its handler ends it,
 * status 3, when starved) and the handler runs in the trace as often as
 * it counted. */
static void fast_timer(int engine, const char *us)
{
	struct dbg d;
	struct dbg_stop st;
	struct ptdb_err err;
	struct dbg_trace_opts o = { .size = 64u << 20, .engine = engine };
	uint64_t end = (start_arg = us, start(&d, "tests/programs/oracle_timer", "oracle_begin", "oracle_end"));
	uint64_t handler = sym_addr(&d, "on_alarm");
	struct trace_swc_thread *th;
	struct user_regs_struct r;
	uint8_t *buf = NULL;
	size_t len = 0;
	long got = -1;

	CHECK(end && handler);
	CHECK(dbg_trace_start(&d, &d.sel_tid, 1, 0, 0, &o, &err) == 0);
	if (dbg_continue(&d, &st, &err) < 0 || st.reason != DBG_R_BREAKPOINT || pc_of(&d) != end)
		printf("#   stopped: reason %d, exit status %d (%s)\n", (int)st.reason, st.exit_status, err.msg);
	CHECK(st.reason == DBG_R_BREAKPOINT && pc_of(&d) == end);
	CHECK(target_get_regs(d.proc, d.sel_tid, &r, NULL) == 0);
	th = dbg_trace_thread(&d, d.sel_tid);
	if (th && trace_ring_snapshot(&th->ring, &buf, &len, &err) == 0 && !th->ring.wrapped)
		got = decode_count(&d, buf, len, handler);
	free(buf);
	start_arg = NULL;
	printf("#   %lld ticks counted, %ld handler runs traced\n", (long long)r.rdi, got);
	dbg_release(&d);
	CHECK(got == (long)r.rdi);
}

TEST(oracle_fast_timer_ptrace_engine)
{
	fast_timer(DBG_ENGINE_PTRACE, NULL);
}

TEST(oracle_fast_timer_cache_engine)
{
	fast_timer(DBG_ENGINE_CACHE, NULL);
}

/* Every 50 us: faster than a ptrace stop's round trip where ptdb and the
 * program run on different CPUs of this VM.  Each tick stopped the
 * thread, and the next was pending again as it resumed: it stopped
 * before one instruction, again and again, and neither the program nor
 * its handler (paced by the thread's instructions) got on; the run hung.
 * A tick ptdb holds is blocked in the thread's mask while it runs its
 * code (core/collectors/dbg_swc_timer.c): the next ones wait, merged, in
 * the kernel, and the thread runs its pace's instructions. */
TEST(oracle_faster_timer_ptrace_engine)
{
	fast_timer(DBG_ENGINE_PTRACE, "50");
}

TEST(oracle_faster_timer_cache_engine)
{
	fast_timer(DBG_ENGINE_CACHE, "50");
}

/* Every 10 us: faster than any ptrace round trip here, on one CPU too. */
TEST(oracle_fastest_timer_ptrace_engine)
{
	fast_timer(DBG_ENGINE_PTRACE, "10");
}

TEST(oracle_fastest_timer_cache_engine)
{
	fast_timer(DBG_ENGINE_CACHE, "10");
}

/* GCC nested functions called through pointers: trampolines on the
 * executable stack, two of them taking turns in the same bytes.  Traced,
 * every call goes where it should (the program's own check: exit 0), and
 * the trace equals stepping: by oracle_end the stack holds other bytes,
 * the trace decodes against the code as it ran (the pages kept). */
static int nested(int engine)
{
	return changing_code("tests/programs/oracle_nested", engine);
}

TEST(oracle_nested_trampolines_ptrace_engine)
{
	CHECK_INT(nested(DBG_ENGINE_PTRACE), 0);
}

TEST(oracle_nested_trampolines_cache_engine)
{
	CHECK_INT(nested(DBG_ENGINE_CACHE), 0);
}

/* A loop the ptrace engine ran (a signal waited, blocked) and then the
 * cache engine: the breakpoints the first left in it are no stops of the
 * second (before: a trap per pass, and with a second thread waiting, a
 * turn that never ended: Go's preempted loops hung).  The run goes on to
 * the exit, every thread traced, main waiting for a worker in a loop
 * through a breakpoint that never stops: the worker gets its turns. */
static int sig_loop(int engine)
{
	int rc;

	trace_all = 1;
	exit_cond_bp = "wait_pass";
	last_traps = 0;
	rc = changing_code("tests/programs/oracle_sig_loop", engine);
	trace_all = 0;
	exit_cond_bp = NULL;
	printf("#   %llu traps\n", last_traps);
	/* (700 passes of the loop: a few traps to translate it) */
	return rc == 0 && (engine != DBG_ENGINE_CACHE || last_traps < 300) ? 0 : -1;
}

TEST(oracle_signal_then_loop_ptrace_engine)
{
	CHECK_INT(sig_loop(DBG_ENGINE_PTRACE), 0);
}

TEST(oracle_signal_then_loop_cache_engine)
{
	CHECK_INT(sig_loop(DBG_ENGINE_CACHE), 0);
}

/* System calls run in the cache: flags, rcx and r11 after them as
 * natively, numbers that must leave the cache (upper half of rax set,
 * x32's bit, none such) and those the engine must see, a signal
 * delivered right after one (the fixture's own checks: its exit status).
 * Of its ~330 system calls, those that return at once (getpid,
 * getrandom, rt_sigprocmask: ~170) take no ptrace stop, and the thread
 * stays in the cache (each that leaves it is one more entry). */
TEST(oracle_syscalls_in_the_cache_ptrace_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_sys", DBG_ENGINE_PTRACE), 0);
}

TEST(oracle_syscalls_in_the_cache_cache_engine)
{
	CHECK_INT(changing_code("tests/programs/oracle_sys", DBG_ENGINE_CACHE), 0);
	CHECK(last_entries > 0 && last_entries < 250);
}

TEST_MAIN(oracle_single_step_reference, oracle_trace_equals_stepping,
	  oracle2_both_engines_equal_stepping,
	  oracle_cache_engine_long_run_same_stream,
	  oracle_cache_engine_equals_stepping, oracle_cache_engine_wrapped_ring,
	  oracle_single_step_mode_equals_block_mode, oracle_wrapped_ring_decodes_tail,
	  oracle_two_threads, oracle_two_threads_cache_engine, oracle_mutex_threads_stepped, oracle_mutex_threads_ptrace_engine,
	  oracle_mutex_threads_cache_engine, oracle_fork_exec_both_engines,
	  oracle_spinning_threads_cache_engine, oracle_contended_mutex_cache_engine,
	  oracle_contended_mutex_two_drainers,
	  oracle_self_patching_ptrace_engine, oracle_self_patching_cache_engine,
	  oracle_wx_jit_ptrace_engine, oracle_wx_jit_cache_engine,
	  oracle_dual_mapped_jit_ptrace_engine, oracle_dual_mapped_jit_cache_engine,
	  oracle_code_moved_ptrace_engine, oracle_code_moved_cache_engine,
	  oracle_fast_timer_ptrace_engine, oracle_fast_timer_cache_engine,
	  oracle_faster_timer_ptrace_engine, oracle_faster_timer_cache_engine,
	  oracle_fastest_timer_ptrace_engine, oracle_fastest_timer_cache_engine,
	  oracle_clone_vm_child_ptrace_engine, oracle_clone_vm_child_cache_engine,
	  oracle_code_read_ptrace_engine, oracle_code_read_by_untraced_thread_ptrace_engine,
	  oracle_code_read_cache_engine, oracle_code_read_by_untraced_thread_cache_engine,
	  oracle_own_pkeys_ptrace_engine,
	  oracle_signal_then_loop_ptrace_engine, oracle_signal_then_loop_cache_engine,
	  oracle_nested_trampolines_ptrace_engine, oracle_nested_trampolines_cache_engine,
	  oracle_syscalls_in_the_cache_ptrace_engine, oracle_syscalls_in_the_cache_cache_engine)
