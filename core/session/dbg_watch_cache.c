/* core/session/dbg_watch_cache.c: software watchpoints at the code cache's
 * speed.  Where no debug-register trap comes, the checking
 * (core/session/dbg_watch.c) runs a thread one instruction at a time;
 * with this, a thread runs out of the cache engine's translated code
 * (core/collectors/dbg_cache_watch.c: no trace, the watched ranges
 * compared before each access) up to the instruction that may touch a
 * watched range, a breakpoint, a goal or code the cache does not run, and
 * the single-step checking runs that one instruction as before: the stop,
 * the values and the pc are the single-stepping's.
 * 'settings set trace.software.engine ptrace' keeps the single-stepping
 * alone (the reference). */
#include "core/session/watch.h"
#include "core/session/dbg_int.h"
#include "core/collectors/dbg_cache.h"

#include <string.h>

/* The collector's view of the session, with no trace. */
static void tee_of(struct dbg *d, struct dbg_tracee *t)
{
	memset(t, 0, sizeof(*t));
	dbg_host_tee(d, t);
	t->s = d;
}

int dbg_watch_cache_turn(struct dbg *d, struct dbg_cache **cc, pid_t t, pid_t tid,
			 const struct dbg_goal *goals, int ngoals, const struct dbg_cache_wrange *rg,
			 int nrg, struct target_stop *ts, struct dbg_stop *stop, struct ptdb_err *err)
{
	struct dbg_tracee tee;
	struct user_regs_struct r;
	struct disasm_insn in;
	int hit = 0, rc, others;

	if (d->watch_by_step || target_pending_signal(d->proc, t) ||
	    target_get_regs(d->proc, t, &r, NULL) < 0)
		return DBG_WC_STEP;
	/* inside a system call (parked by the stepping), or at one: the
	 * stepping's (the cache hears of a call that maps or unmaps code) */
	if ((long)r.orig_rax >= 0 && (long)r.rax < 0 && (long)r.rax >= -4095)
		return DBG_WC_STEP;
	tee_of(d, &tee);
	if (dbg_insn_at(d, r.rip, &in) == 0 && in.kind == DISASM_KIND_SYSCALL) {
		dbg_cache_syscall(&tee, *cc, t, &r);
		return DBG_WC_STEP;
	}
	others = target_threads(d->proc, NULL, 0) > 1;
	rc = dbg_cache_watch_run(&tee, cc, t, rg, nrg, others, &r, goals, ngoals, ts, &hit, err);
	d->running = 1;		/* (the checking's run goes on) */
	switch (rc) {
	case DBG_CACHE_OFF:
	case DBG_CACHE_NOTHING:
		return DBG_WC_STEP;
	case DBG_CACHE_YIELD:
		return DBG_WC_NEXT;
	case DBG_CACHE_EVENT:
		return DBG_WC_EVENT;
	case DBG_CACHE_AT:
		break;
	default:
		return -1;
	}
	if (hit)
		return DBG_WC_STEP;	/* the instruction at pc may touch a range */
	/* arrived at a stop, as a step arrives (dbg_watch.c's sw_step) */
	rc = dbg_watch_arrive(d, t, tid, &r, goals, ngoals, stop);
	return rc == DBG_WA_ON ? DBG_WC_STEP : rc;
}

void dbg_watch_cache_end(struct dbg *d, struct dbg_cache *cc)
{
	struct dbg_tracee tee;

	if (!cc)
		return;
	tee_of(d, &tee);
	dbg_cache_finish(dbg_alive(d) ? &tee : NULL, cc);
}
