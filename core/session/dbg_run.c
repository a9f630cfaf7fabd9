/* core/session/dbg_run.c: running the process natively (or through the
 * trace session or watchpoints) until a stop the user sees or a goal, and
 * what a stop the user sees updates.  Stepping, finish and until
 * (dbg_step.c) run through dbg_run_wait. */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"

#include <string.h>

void dbg_user_stop(struct dbg *d, struct dbg_stop *stop)
{
	pid_t sel;

	d->nbp_stops = 0;
	d->last = *stop;
	if (d->proc)
		d->pid = target_pid(d->proc);	/* the child, after a followed fork */
	if (stop->reason == DBG_R_EXITED) {
		dbg_plans_clear(d);
		dbg_trace_exited(d);
		return;
	}
	if (stop->reason == DBG_R_EXEC && d->tr.trace) {
		/* the traced image is gone (and with it the tracer's parked
		 * breakpoints, which the target forgot): its trace cannot be
		 * decoded against the new program, nor tracing go on there */
		dbg_trace_end(d);
		stop->trace_ended = 1;
		d->last = *stop;
	}
	dbg_trace_did_stop(d);
	sel = dbg_bp_stops_take(d, stop, d->sel_tid);
	dbg_plans_prune(d, stop);
	d->last = *stop;
	d->sel_tid = sel;
	d->sel_frame = 0;
	dbg_refresh_modules(d);
}

int dbg_thread_regs(struct dbg *d, pid_t tid, struct user_regs_struct *r,
		       struct ptdb_err *err)
{
	return target_get_regs(d->proc, tid, r, err);
}

/* Runs (step_tid != 0: single-steps that thread) until a user-visible stop
 * (RW_USER, *stop filled), a goal reached by tid (RW_GOAL), or, when
 * stepping, the step done (RW_STEPPED).  Handles module loads and the
 * signal policy on the way. */
int dbg_run_native(struct dbg *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		   struct ptdb_err *err)
{
	pid_t step_tid = rq->step_tid;
	struct target_stop ts;

	dbg_replay_leave(d);	/* any resume leaves replay mode */
	memset(stop, 0, sizeof(*stop));
	for (;;) {
		int r = step_tid ? target_step(d->proc, step_tid, err)
				 : target_resume(d->proc, err);

		if (r < 0)
			return -1;
		d->running = 1;
		if (d->interrupt_requested)
			target_interrupt(d->proc);	/* Ctrl-C came between two steps */
		r = target_wait(d->proc, &ts, err);
		d->running = 0;
		if (r < 0)
			return -1;
		stop->tid = ts.tid;
		switch (ts.kind) {
		case TARGET_STOP_EXITED:
		case TARGET_STOP_SIGNALED:
			dbg_exit_stop(stop, &ts);
			return RW_USER;
		case TARGET_STOP_BREAKPOINT: {
			struct user_regs_struct regs;

			if (dbg_bp_hit(d, ts.tid, ts.addr, &stop->bp_id, &stop->loc_id)) {
				stop->reason = DBG_R_BREAKPOINT;
				return RW_USER;
			}
			if (dbg_goal_at(rq, ts.tid, ts.addr) &&
			    dbg_thread_regs(d, ts.tid, &regs, err) == 0 &&
			    dbg_goal_reached(rq, ts.tid, ts.addr, regs.rsp))
				return RW_GOAL;
			if (ts.addr == d->load_bp)
				dbg_refresh_modules(d);
			if (step_tid && ts.tid == step_tid)
				return RW_STEPPED;
			break;	/* someone else's internal breakpoint: go on */
		}
		case TARGET_STOP_STEP:
			if (step_tid && ts.tid == step_tid)
				return RW_STEPPED;
			break;
		case TARGET_STOP_SIGNAL:
			if (dbg_signal_stop(d, &ts, stop))
				return RW_USER;
			break;
		case TARGET_STOP_EXEC:
			stop->reason = DBG_R_EXEC;
			return RW_USER;
		case TARGET_STOP_INTERRUPT:
			if (d->interrupt_requested) {
				stop->reason = DBG_R_INTERRUPT;
				return RW_USER;
			}
			stop->reason = DBG_R_SIGNAL;
			stop->signo = 19;	/* SIGSTOP from outside */
			return RW_USER;
		case TARGET_STOP_NONE:
			break;
		}
		if (d->interrupt_requested) {
			/* the interrupt landed as another event; stop here */
			stop->reason = DBG_R_INTERRUPT;
			return RW_USER;
		}
	}
}

int dbg_run_wait(struct dbg *d, pid_t step_tid, pid_t tid,
		    const struct dbg_goal *goals, int ngoals,
		    struct dbg_stop *stop, struct ptdb_err *err)
{
	struct dbg_run_req rq = { step_tid, tid, goals, ngoals };
	int r;

	if (d->goal_bp.on && d->proc && d->goal_bp.stop_id == target_stop_id(d->proc)) {
		/* the plan runs on from the goal a breakpoint's hit came to:
		 * the breakpoint's stop */
		d->goal_bp.on = 0;
		memset(stop, 0, sizeof(*stop));
		stop->reason = DBG_R_BREAKPOINT;
		stop->tid = d->goal_bp.tid;
		stop->bp_id = d->goal_bp.id;
		stop->loc_id = d->goal_bp.loc;
		return RW_USER;
	}
	d->goal_bp.on = 0;
	if (d->on_resume.fn)
		d->on_resume.fn(d->on_resume.ctx);
	/* the tracer's threads are the parent's: it follows the parent */
	target_set_follow_fork(d->proc, d->follow_fork_child && !dbg_tracing(d));
	if (dbg_tracing(d))
		return dbg_trace_run(d, &rq, stop, err);
	r = dbg_watch_run(d, &rq, stop, err);
	if (r != -2)
		return r;
	return dbg_run_native(d, &rq, stop, err);
}

/* A run for a plan: a stop at a user breakpoint where tid also reached
 * one of goals (the plan's own breakpoint at the same site, as LLDB's
 * step out plan shares a breakpoint site with the user's) is the goal's
 * (RW_GOAL), the hit kept in d->goal_bp: the plan's stop if it ends
 * there, else the breakpoint's at the plan's next run (dbg_run_wait). */
int dbg_run_plan(struct dbg *d, pid_t step_tid, pid_t tid, const struct dbg_goal *goals,
		 int ngoals, struct dbg_stop *stop, struct ptdb_err *err)
{
	int r = dbg_run_wait(d, step_tid, tid, goals, ngoals, stop, err);
	struct dbg_run_req rq = { step_tid, tid, goals, ngoals };
	struct user_regs_struct regs;

	if (r == RW_USER && stop->reason == DBG_R_BREAKPOINT && ngoals > 0 && dbg_alive(d) &&
	    dbg_thread_regs(d, stop->tid, &regs, NULL) == 0 &&
	    dbg_goal_reached(&rq, stop->tid, regs.rip, regs.rsp)) {
		d->goal_bp.on = 1;
		d->goal_bp.tid = stop->tid;
		d->goal_bp.id = stop->bp_id;
		d->goal_bp.loc = stop->loc_id;
		d->goal_bp.pc = regs.rip;
		d->goal_bp.stop_id = target_stop_id(d->proc);
		return RW_GOAL;
	}
	return r;
}

static int run_to(struct dbg *d, pid_t tid, const struct dbg_goal *goals, int n, int plan,
		  struct dbg_stop *stop, struct ptdb_err *err)
{
	int planted[8] = { 0 }, r;

	for (int i = 0; i < n && i < 8; i++)
		planted[i] = target_bp_insert(d->proc, goals[i].pc, err) == 0;
	r = plan ? dbg_run_plan(d, 0, tid, goals, n, stop, err)
		 : dbg_run_wait(d, 0, tid, goals, n, stop, err);
	if (dbg_alive(d))
		for (int i = 0; i < n && i < 8; i++)
			if (planted[i])
				target_bp_remove(d->proc, goals[i].pc, NULL);
	return r;
}

/* Runs to any of goals (internal breakpoints planted for the run). */
int dbg_run_to(struct dbg *d, pid_t tid, const struct dbg_goal *goals,
	       int n, struct dbg_stop *stop, struct ptdb_err *err)
{
	return run_to(d, tid, goals, n, 0, stop, err);
}

int dbg_run_to_plan(struct dbg *d, pid_t tid, const struct dbg_goal *goals,
		    int n, struct dbg_stop *stop, struct ptdb_err *err)
{
	return run_to(d, tid, goals, n, 1, stop, err);
}

int dbg_check_alive(struct dbg *d, struct ptdb_err *err)
{
	if (!dbg_alive(d))
		return ptdb_err_code(err, PTDB_E_NO_PROCESS, "Process must be launched.");
	return 0;
}

int dbg_poll_exit(struct dbg *d, struct dbg_stop *stop, struct ptdb_err *err)
{
	struct target_stop ts;
	int rc;

	if (!dbg_alive(d))
		return 0;
	rc = target_poll_exit(d->proc, &ts, err);
	if (rc <= 0)
		return rc;
	memset(stop, 0, sizeof(*stop));
	dbg_exit_stop(stop, &ts);
	dbg_user_stop(d, stop);
	return 1;
}
