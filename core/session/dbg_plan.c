/* core/session/dbg_plan.c: the threads' pending plans, as LLDB's thread
 * plan stacks keep them.  A finish (step-out plan) or a line step ('n',
 * 's': a step range plan) that another stop came before (a breakpoint
 * deeper in the same thread, or another thread's) stays; continue goes on
 * with the newest line step, or pursues every thread's pending finishes
 * at once; a stop drops the stale ones, and a command's own stop that
 * finds its thread's line step stale is reported as that step's ("stop
 * reason = step in" after a finish out of the function 's' entered). */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"

#include <stdlib.h>
#include <string.h>

static void drop(struct dbg *d, int i)
{
	free(d->pend_out[i].step);
	memmove(d->pend_out + i, d->pend_out + i + 1,
		(size_t)(d->npend_out - i - 1) * sizeof(d->pend_out[0]));
	d->npend_out--;
}

void dbg_plans_clear(struct dbg *d)
{
	while (d->npend_out)
		drop(d, d->npend_out - 1);
}

/* The newest pending finish still valid. */
struct dbg_pend_out *dbg_pend_out_top(struct dbg *d)
{
	dbg_plans_prune(d, NULL);
	for (int i = d->npend_out - 1; i >= 0; i--)
		if (!d->pend_out[i].step)
			return &d->pend_out[i];
	return NULL;
}

pid_t dbg_plans_top_tid(struct dbg *d)
{
	dbg_plans_prune(d, NULL);
	return d->npend_out ? d->pend_out[d->npend_out - 1].tid : 0;
}

/* Whether pending plan p is stale: its thread is gone; a finish whose
 * frame returned (the thread's stack pointer at or above the caller's);
 * a line step that dbg_step.c finds stale. */
static int stale(struct dbg *d, struct dbg_pend_out *p)
{
	struct user_regs_struct r;

	if (!dbg_alive(d) || !target_thread_index(d->proc, p->tid) ||
	    dbg_thread_regs(d, p->tid, &r, NULL) < 0)
		return 1;
	if (p->step)
		return dbg_step_plan_stale(d, p->tid, p->step);
	return r.rsp >= p->g.min_rsp;
}

void dbg_plans_prune(struct dbg *d, struct dbg_stop *stop)
{
	/* a stop a command's own plan made (LLDB's completed plans): the
	 * oldest stale line step of its thread names it */
	int own = stop && stop->reason >= DBG_R_STEP_OVER && stop->reason <= DBG_R_UNTIL;

	for (int i = 0; i < d->npend_out;) {
		struct dbg_pend_out *p = &d->pend_out[i];

		if (!stale(d, p)) {
			i++;
			continue;
		}
		if (own && p->step && p->tid == stop->tid) {
			stop->reason = dbg_step_plan_reason(p->step);
			own = 0;
		}
		drop(d, i);
	}
}

static void push(struct dbg *d, const struct dbg_pend_out *p)
{
	if (d->npend_out == DBG_MAX_PEND_OUT)	/* the oldest goes */
		drop(d, 0);
	d->pend_out[d->npend_out++] = *p;
}

void dbg_pend_out_push(struct dbg *d, pid_t tid, const struct dbg_goal *g)
{
	push(d, &(struct dbg_pend_out){ tid, *g, NULL, NULL });
}

void dbg_plan_push_step(struct dbg *d, pid_t tid, const struct dbg_step_plan *p, size_t size)
{
	struct dbg_pend_out e = { .tid = tid, .step = xmalloc(size) };

	memcpy(e.step, p, size);
	push(d, &e);
}

/* continue with every thread's pending finish: each one's return planted
 * for its thread; the first reached completes ("stop reason = step out",
 * d->out_ret its return type), the others stay. */
static int pursue_finishes(struct dbg *d, struct dbg_stop *stop, struct ptdb_err *err)
{
	struct dbg_goal g[DBG_MAX_PEND_OUT] = { { 0, 0, 0 } };
	int ng = 0, r;

	for (int i = 0; i < d->npend_out; i++)
		if (!d->pend_out[i].step) {
			g[ng] = d->pend_out[i].g;
			g[ng].tid = d->pend_out[i].tid;
			if (target_bp_insert(d->proc, g[ng].pc, err) < 0) {
				while (ng--)
					target_bp_remove(d->proc, g[ng].pc, NULL);
				return -1;
			}
			ng++;
		}
	r = dbg_run_plan(d, 0, 0, g, ng, stop, err);
	if (dbg_alive(d))
		for (int i = 0; i < ng; i++)
			target_bp_remove(d->proc, g[i].pc, NULL);
	if (r < 0)
		return -1;
	if (r == RW_GOAL) {
		struct user_regs_struct regs;
		pid_t tid = stop->tid;

		if (dbg_thread_regs(d, tid, &regs, err) < 0)
			return -1;
		for (int i = d->npend_out - 1; i >= 0; i--) {
			struct dbg_pend_out *p = &d->pend_out[i];

			if (!p->step && p->tid == tid && p->g.pc == regs.rip &&
			    regs.rsp >= p->g.min_rsp) {
				d->out_ret = p->ret;
				drop(d, i);
				break;
			}
		}
		dbg_step_out_stop(d, stop, tid, regs.rip);
		return 0;
	}
	dbg_user_stop(d, stop);
	return 0;
}

int dbg_continue(struct dbg *d, struct dbg_stop *stop, struct ptdb_err *err)
{
	int r;

	if (dbg_check_alive(d, err) < 0)
		return -1;
	d->out_ret = NULL;
	dbg_plans_prune(d, NULL);
	if (d->npend_out && d->pend_out[d->npend_out - 1].step) {
		/* the newest plan is a line step: it goes on (off the stack
		 * while it runs, back on when another stop comes first) */
		struct dbg_pend_out p = d->pend_out[--d->npend_out];

		r = dbg_step_resume(d, p.tid, p.step, stop, err);
		if (r == 1)
			push(d, &p);
		else
			free(p.step);
		return r < 0 ? -1 : 0;
	}
	if (d->npend_out)
		return pursue_finishes(d, stop, err);
	r = dbg_run_wait(d, 0, 0, NULL, 0, stop, err);
	if (r < 0)
		return -1;
	dbg_user_stop(d, stop);
	return 0;
}
