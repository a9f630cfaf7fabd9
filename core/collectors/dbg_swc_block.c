/* core/collectors/dbg_swc_block.c: the software collector's ptrace engine — a
 * traced thread runs natively block by block (straight-line code and
 * direct jumps up to the next state-dependent transfer, a breakpoint at
 * its end), and the transfer it stops at is computed (trace/xfer) and
 * applied instead of run: one trap per block. */
#include "core/collectors/dbg_code.h"
#include "core/collectors/dbg_swc_int.h"
#include "trace/swc.h"
#include "trace/xfer.h"

#include <stdlib.h>
#include <string.h>

#define BLK_MAX 512

/* A block: straight-line code and direct jumps/calls from start up to
 * (not including) stop, the next state-dependent control transfer, an
 * instruction the collector does not run natively in a block, or a forced
 * stop (a loop closed by direct jumps, the length cap). */
struct blk_insn {
	uint64_t addr, next, target;
	uint8_t len, kind, has_target;
};

struct blk {
	uint64_t start, stop;
	int n;
	struct blk_insn *ins;
	struct disasm_insn stop_in;	/* the instruction at stop */
	int stop_have;
	int sticky;			/* stop is a transfer the collector
					 * computes: its breakpoint stays for the
					 * run (forced stops are removed) */
	int stop_ok;			/* a breakpoint can go at stop (else
					 * the block's instructions are stepped) */
};

void dbg_swc_bcache_clear(struct dbg_swc *t)
{
	for (size_t i = 0; i < t->bcap; i++)
		if (t->bcache[i]) {
			free(t->bcache[i]->ins);
			free(t->bcache[i]);
		}
	free(t->bcache);
	t->bcache = NULL;
	t->bcap = t->bn = 0;
	free(t->maps);		/* (read again when next asked) */
	t->maps = NULL;
	t->nmaps = 0;
}

static void bcache_put(struct dbg_swc *t, struct blk *b)
{
	if (2 * (t->bn + 1) > t->bcap) {
		struct blk **old = t->bcache;
		size_t ocap = t->bcap;

		t->bcap = t->bcap ? 2 * t->bcap : 1024;
		t->bcache = xcalloc(t->bcap, sizeof(*t->bcache));
		t->bn = 0;
		for (size_t i = 0; i < ocap; i++)
			if (old[i])
				bcache_put(t, old[i]);
		free(old);
	}
	for (size_t h = (b->start * 0x9e3779b97f4a7c15ull) >> 20;; h++) {
		if (!t->bcache[h & (t->bcap - 1)]) {
			t->bcache[h & (t->bcap - 1)] = b;
			t->bn++;
			return;
		}
	}
}

static struct blk *bcache_get(struct dbg_swc *t, uint64_t start)
{
	if (!t->bcap)
		return NULL;
	for (size_t h = (start * 0x9e3779b97f4a7c15ull) >> 20;; h++) {
		struct blk *b = t->bcache[h & (t->bcap - 1)];

		if (!b || b->start == start)
			return b;
	}
}

static int plant_stop(struct dbg_tracee *d, struct blk *b, struct ptdb_err *err)
{
	struct dbg_swc *t = dbg_swc(d);

	if (!b->sticky)
		return target_bp_insert(d->proc, b->stop, err);
	for (size_t i = 0; i < t->nsticky; i++)
		if (t->sticky[i] == b->stop)
			return 0;
	if (target_bp_insert(d->proc, b->stop, err) < 0)
		return -1;
	if (t->nsticky == t->csticky) {
		t->csticky = t->csticky ? 2 * t->csticky : 256;
		t->sticky = xrealloc(t->sticky, t->csticky * sizeof(*t->sticky));
	}
	t->sticky[t->nsticky++] = b->stop;
	return 0;
}

static void unplant_stop(struct dbg_tracee *d, struct blk *b)
{
	if (!b->sticky && d->host->alive(d->s))
		target_bp_remove(d->proc, b->stop, NULL);
}

void dbg_swc_unplant_sticky(struct dbg_tracee *d)
{
	struct dbg_swc *t = dbg_swc(d);

	for (size_t i = 0; i < t->nsticky && d->host->alive(d->s); i++)
		target_bp_remove(d->proc, t->sticky[i], NULL);
	t->nsticky = 0;
}

int dbg_swc_runs_in_block(const struct disasm_insn *in)
{
	/* (a WRPKRU is stepped: see dbg_swc_hide_step) */
	return (in->kind == DISASM_KIND_OTHER && !dbg_swc_hide_insn(in)) || in->kind == DISASM_KIND_JMP ||
	       in->kind == DISASM_KIND_CALL;
}

static struct blk *block_at(struct dbg_tracee *d, struct trace_swc_thread *th, uint64_t pc)
{
	struct blk *b = bcache_get(dbg_swc(d), pc);
	uint64_t a = pc;

	if (b)
		return b;
	b = xcalloc(1, sizeof(*b));
	b->start = pc;
	b->ins = xmalloc(16 * sizeof(*b->ins));
	for (;;) {
		struct disasm_insn in;
		struct blk_insn *bi;
		uint64_t next;
		int seen = 0;

		/* (code where no breakpoint can go is stepped) */
		if (!dbg_swc_plantable(d, a) || d->host->insn_at(d->s, a, &in) < 0 ||
		    !dbg_swc_runs_in_block(&in) || b->n >= BLK_MAX)
			break;
		dbg_code_pages_insn(d, th, &in, pc);
		if (!(b->n & (b->n - 1)) && b->n >= 16)
			b->ins = xrealloc(b->ins, 2 * (size_t)b->n * sizeof(*b->ins));
		bi = &b->ins[b->n++];
		next = in.kind != DISASM_KIND_OTHER && in.has_target ? in.target : a + in.len;
		bi->addr = a;
		bi->next = next;
		bi->len = in.len;
		bi->kind = (uint8_t)in.kind;
		bi->has_target = (uint8_t)in.has_target;
		bi->target = in.target;
		for (int i = 0; i < b->n && !seen; i++)
			seen = b->ins[i].addr == next;
		a = next;
		if (seen)	/* a loop closed by direct jumps: forced stop */
			break;
	}
	b->stop = a;
	b->stop_ok = dbg_swc_plantable(d, a);
	b->stop_have = d->host->insn_at(d->s, a, &b->stop_in) == 0;
	if (b->stop_have)
		dbg_code_pages_insn(d, th, &b->stop_in, pc);
	b->sticky = b->stop_have && trace_swc_state_dependent(&b->stop_in) &&
		    b->stop_in.kind != DISASM_KIND_SYSCALL;
	bcache_put(dbg_swc(d), b);
	return b;
}

/* Records the first k instructions of b. */
static void block_record(struct trace_swc_thread *th, const struct blk *b, int k)
{
	for (int i = 0; i < k && i < b->n; i++) {
		const struct blk_insn *bi = &b->ins[i];
		struct disasm_insn in;

		memset(&in, 0, sizeof(in));
		in.addr = bi->addr;
		in.len = bi->len;
		in.kind = (enum disasm_kind)bi->kind;
		in.has_target = bi->has_target;
		in.target = bi->target;
		trace_swc_executed(th, &in, bi->next);
	}
}

/* How many of b's instructions ran before the thread stopped at pc. */
static int block_done(const struct blk *b, uint64_t pc)
{
	if (pc == b->stop)
		return b->n;
	for (int i = 0; i < b->n; i++)
		if (b->ins[i].addr == pc)
			return i;
	return 0;
}

void dbg_swc_blocks_end(struct dbg_tracee *d)
{
	struct dbg_swc *t = dbg_swc(d);
	struct user_regs_struct r;

	/* the thread that ran part of a block when everything stopped */
	if (t->blk_th) {
		if (d->host->alive(d->s) && target_get_regs(d->proc, t->blk_th->tid, &r, NULL) == 0)
			block_record(t->blk_th, t->blk_cur, block_done(t->blk_cur, r.rip));
		unplant_stop(d, t->blk_cur);
		t->blk_th = NULL;
		t->blk_cur = NULL;
	}
	dbg_swc_unplant_sticky(d);
	dbg_swc_bcache_clear(t);
	dbg_swc_hide_end(d);
}

/* ---- the transfer a block stops at (one trap each): trace/xfer ---- */

static int read_word(void *ctx, uint64_t addr, uint64_t *val)
{
	struct dbg_tracee *d = ctx;

	return target_read_mem(d->proc, addr, val, 8, NULL) < 0 ? -1 : 0;
}

/* Computes and applies the effect of the transfer in at r->rip (which has
 * not executed) to the registers and memory.  0 with *next, or -1 if it is
 * not modelled or an access failed (then it is stepped natively, so a bad
 * pointer faults for real). */
static int emulate(struct dbg_tracee *d, pid_t tid, struct user_regs_struct *r,
		   const struct disasm_insn *in, uint64_t *next)
{
	struct xfer_outcome o;

	if (xfer_compute(r, in, read_word, d, &o) < 0)
		return -1;
	if (o.push && target_write_mem(d->proc, o.rsp, &o.ret_addr, 8, NULL) < 0)
		return -1;
	xfer_apply(r, &o);
	*next = o.next;
	return target_set_regs(d->proc, tid, r, NULL) < 0 ? -1 : 0;
}

/* Runs th natively block after block from r->rip: each block up to its
 * stop, whose transfer is then computed; a transfer at the start of a
 * block is computed without running.  Returns EV_GO_ON when th stopped
 * somewhere the caller must handle (its instructions recorded),
 * EV_NOTHING when nothing ran (step pc instead), or a run result. */
int dbg_swc_run_block(struct dbg_tracee *d, struct trace_swc_thread *th, struct user_regs_struct *r,
		      const struct dbg_run_req *rq, struct dbg_stop *stop, struct ptdb_err *err)
{
	struct dbg_swc *sw = dbg_swc(d);
	pid_t t = th->tid;
	int budget = d->trace->nth > 1 ? 64 : 1 << 30, first = 1;

	for (;; first = 0) {
		struct blk *b = block_at(d, th, r->rip);
		struct target_stop ts;
		uint64_t next;
		int rr;

		/* (a held timer signal due: the collector's turn delivers it) */
		if (budget-- <= 0 || *d->interrupt_requested || (!first && dbg_swc_timer_turn_over(th)))
			return EV_GO_ON;
		d->host->progress_tick(d->s);
		if (!b->stop_ok)
			return first ? EV_NOTHING : EV_GO_ON;
		if (b->n == 0) {
			/* a lone transfer: computed in place, no trap */
			if (!b->sticky || emulate(d, t, r, &b->stop_in, &next) < 0)
				return first ? EV_NOTHING : EV_GO_ON;
			trace_swc_executed(th, &b->stop_in, next);
			dbg_traced(th)->sw.emulated++;
			rr = dbg_swc_arrived(d, t, next, r->rsp, rq, stop);
			if (rr != EV_GO_ON)
				return rr;
			continue;
		}
		/* (its page hidden from the program first) */
		if ((!target_bp_planted(d->proc, b->stop) && dbg_swc_hide(d, t, b->stop) < 0))
			return first ? EV_NOTHING : EV_GO_ON;
		if (plant_stop(d, b, err) < 0)
			return -1;
		sw->blk_th = th;
		sw->blk_cur = b;
		*d->running = 1;
		if (*d->interrupt_requested)
			target_interrupt(d->proc);
		rr = target_bp_planted(d->proc, r->rip) ? target_thread_cont(d->proc, t, err)
							: target_thread_cont_raw(d->proc, t, err);
		if (rr < 0) {
			*d->running = 0;
			return -1;
		}
		for (;;) {
			if (!target_thread_event(d->proc, 1, &ts)) {
				*d->running = 0;
				return ptdb_err_set(err, "the traced thread %d vanished", (int)t);
			}
			if (ts.tid == t)
				break;
			rr = dbg_swc_event(d, &ts, rq, stop);
			if (rr != EV_GO_ON) {
				*d->running = 0;
				return rr;	/* th still runs: dbg_swc_blocks_end */
			}
		}
		*d->running = 0;
		th = d->host->trace_find(d->s, t);
		sw->blk_th = NULL;
		sw->blk_cur = NULL;
		if (ts.kind == TARGET_STOP_EXITED || ts.kind == TARGET_STOP_SIGNALED || !th ||
		    target_get_regs(d->proc, t, r, NULL) < 0) {
			unplant_stop(d, b);
			return dbg_swc_event(d, &ts, rq, stop);
		}
		dbg_traced(th)->sw.traps++;
		block_record(th, b, block_done(b, r->rip));
		unplant_stop(d, b);
		stop->tid = t;
		/* a read of hidden code: served, the block goes on after it */
		if (dbg_swc_hide_fault(d, th, &ts, &ts)) {
			th = d->host->trace_find(d->s, t);
			if (ts.tid != t || (ts.kind != TARGET_STOP_STEP && ts.kind != TARGET_STOP_BREAKPOINT) ||
			    !th || target_get_regs(d->proc, t, r, NULL) < 0) {
				if (th && ts.tid == t && ts.kind == TARGET_STOP_SIGNAL &&
				    target_get_regs(d->proc, t, r, NULL) == 0)
					trace_swc_pause(th, r->rip);
				return dbg_swc_event(d, &ts, rq, stop);
			}
			rr = dbg_swc_arrived(d, t, r->rip, r->rsp, rq, stop);
			if (rr != EV_GO_ON)
				return rr;
			continue;
		}
		if (ts.kind != TARGET_STOP_BREAKPOINT) {
			if (ts.kind == TARGET_STOP_SIGNAL)
				trace_swc_pause(th, r->rip);
			return dbg_swc_event(d, &ts, rq, stop);
		}
		rr = dbg_swc_arrived(d, t, r->rip, r->rsp, rq, stop);
		if (rr != EV_GO_ON)
			return rr;
		/* at the block's transfer: its outcome is computed and applied
		 * here, it never runs natively */
		if (r->rip != b->stop || !b->sticky || emulate(d, t, r, &b->stop_in, &next) < 0)
			return EV_GO_ON;
		trace_swc_executed(th, &b->stop_in, next);
		dbg_traced(th)->sw.emulated++;
		rr = dbg_swc_arrived(d, t, next, r->rsp, rq, stop);
		if (rr != EV_GO_ON)
			return rr;
	}
}
