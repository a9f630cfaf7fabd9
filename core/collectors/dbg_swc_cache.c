/* core/collectors/dbg_swc_cache.c: the software collector's cache engine behind the
 * collector's loop — one turn of a traced thread run natively out of the
 * code cache (core/collectors/dbg_cache.c, core/collectors/dbg_cache_mem.c, trace/ccache), with
 * the ptrace engine's results. */
#include "core/collectors/dbg_swc_int.h"
#include "core/collectors/dbg_cache.h"
#include "trace/swc.h"

#include <stdlib.h>

/* Threads in parallel: the other traced threads that may run in the
 * cache beside th offered to the engine (core/collectors/
 * dbg_cache_crew.c): stopped at an original pc, not parked in a system
 * call, no signal or event waiting, not in a system call the kernel
 * restarts (turn's work); the rest, stopped, wait for a turn.  Not for
 * a per-CPU trace (one emulated CPU: one thread on it at a time), a
 * step, or single-stepping. */
static void offer_crew(struct dbg_tracee *d, struct trace_swc_thread *th, const struct user_regs_struct *r,
		       const struct dbg_run_req *rq)
{
	struct dbg_trace *t = d->trace;
	struct dbg_cache **cc = &dbg_swc(d)->cc;
	struct trace_swc_thread **ok;
	struct user_regs_struct *regs;
	int n = 0, waiting = 0;

	/* (no crew: the others wait for turns) */
	dbg_cache_crew_offer(cc, NULL, 0, NULL, t->nth > 1);
	if (t->nth < 2 || t->cpu || rq->step_tid || t->opts.single_step)
		return;
	ok = xmalloc((size_t)t->nth * sizeof(*ok));
	regs = xmalloc((size_t)t->nth * sizeof(*regs));
	for (int i = 0; i < t->nth; i++) {
		struct trace_swc_thread *o = t->th[i];
		long e;

		if (o == th || !o->tracing || dbg_traced(o)->sw.parked_at || !target_thread_stopped(d->proc, o->tid))
			continue;
		if (target_pending_signal(d->proc, o->tid) || dbg_traced(o)->sw.timer_held ||
		    target_thread_has_event(d->proc, o->tid) || target_get_regs(d->proc, o->tid, &regs[n], NULL) < 0) {
			waiting++;
			continue;
		}
		e = (long)regs[n].rax;
		if ((long)regs[n].orig_rax >= 0 && (e == -512 || e == -513 || e == -514 || e == -516)) {
			waiting++;
			continue;
		}
		ok[n++] = o;
	}
	dbg_cache_crew_offer(cc, NULL, 0, NULL, waiting);
	if (n) {
		dbg_cache_crew_offer(cc, th, th->tid, r, 0);
		for (int i = 0; i < n; i++)
			dbg_cache_crew_offer(cc, ok[i], ok[i]->tid, &regs[i], 0);
	}
	free(ok);
	free(regs);
}

/* The cache engine runs th (core/collectors/dbg_cache.c), with dbg_swc_run_block's results:
 * like dbg_swc_run_block it goes on past a stop that is not the user's (the
 * loader's breakpoint, a goal in a deeper frame) and comes back before
 * code it does not run, so the collector's loop turns as often under
 * either engine (its turns schedule the threads).  EV_OFF: the ptrace
 * engine runs instead. */
int dbg_swc_cache_step(struct dbg_tracee *d, struct trace_swc_thread *th, struct user_regs_struct *r,
		       const struct dbg_run_req *rq, struct dbg_stop *stop, struct ptdb_err *err)
{
	struct target_stop ts;
	pid_t t = th->tid;
	/* (arrivals at stops that do not end the run, in a loop: a
	 * breakpoint whose condition is false, a goal in a deeper frame,
	 * another thread's parked return, end the turn after a while, as
	 * the ptrace engine's block budget does: the others get theirs) */
	int budget = d->trace->nth > 1 ? 64 : 1 << 30, rr;

	/* the ptrace engine's breakpoints, left by a turn it took (a signal
	 * waited), would be stops to the cache's blocks: a loop holding one
	 * would leave the cache on every pass */
	if (dbg_swc(d)->nsticky)
		dbg_swc_unplant_sticky(d);
	for (int first = 1;; first = 0) {
		if (!first && (*d->interrupt_requested || budget-- <= 0))
			return EV_GO_ON;
		/* (threads in parallel unless turns are asked for) */
		if (dbg_cache_parallel())
			offer_crew(d, th, r, rq);
		switch (dbg_cache_run(d, &dbg_swc(d)->cc, th, r, rq->goals, rq->ngoals, &ts, err)) {
		case DBG_CACHE_OFF:
			return first ? EV_OFF : EV_GO_ON;
		case DBG_CACHE_NOTHING:
			return first ? EV_NOTHING : EV_GO_ON;
		case DBG_CACHE_AT:
			stop->tid = t;
			rr = dbg_swc_arrived(d, t, r->rip, r->rsp, rq, stop);
			if (rr != EV_GO_ON)
				return rr;
			break;
		case DBG_CACHE_EVENT:
			stop->tid = t;
			return dbg_swc_event(d, &ts, rq, stop);
		case DBG_CACHE_YIELD:
			/* its turn is over (at an original pc): the next
			 * thread's, after the events of the others */
			dbg_swc_turn_over(d);
			return EV_GO_ON;
		default:
			return -1;
		}
	}
}

/* The end of a run: the cache and its buffer leave the inferior (died:
 * nothing to unmap). */
void dbg_swc_cache_finish(struct dbg_tracee *d, int died)
{
	dbg_cache_finish(died ? NULL : d, dbg_swc(d)->cc);
}

void dbg_swc_cache_syscall(struct dbg_tracee *d, pid_t t, const struct user_regs_struct *r)
{
	dbg_cache_syscall(d, dbg_swc(d)->cc, t, r);
}

void dbg_swc_cache_count_fallback(struct dbg_tracee *d)
{
	dbg_cache_count_fallback(dbg_swc(d)->cc);
}

void dbg_swc_cache_free(struct dbg_tracee *d)
{
	dbg_cache_free(dbg_swc(d)->cc);
	dbg_swc(d)->cc = NULL;
}

struct dbg_cache_stats dbg_swc_cache_stats(const struct dbg_trace *t)
{
	return dbg_cache_get_stats(t && t->sw ? t->sw->cc : NULL);
}
