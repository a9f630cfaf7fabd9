/* core/session/dbg_finish.c: finish (out of the selected frame, or of
 * an inlined call) and until, runs of dbg_step.c's helpers. */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"

#include <string.h>

/* How many inlined calls hold pc (0: none, or no module). */
static int inline_depth(struct dbg *d, uint64_t pc)
{
	struct dbg_module *m = dbg_module_for(d, pc);
	struct sym_inline inl[DBG_MAX_INLINE];

	return m ? sym_inlines_at(m->sym, pc, inl, DBG_MAX_INLINE) : 0;
}

/* The inlined call level calls deep at pc (1: the outermost). */
static int inline_level(struct dbg *d, uint64_t pc, int level, struct sym_inline *out)
{
	struct dbg_module *m = dbg_module_for(d, pc);
	struct sym_inline inl[DBG_MAX_INLINE];
	int ni = m ? sym_inlines_at(m->sym, pc, inl, DBG_MAX_INLINE) : 0;

	if (level < 1 || level > ni)
		return -1;
	*out = inl[ni - level];
	return 0;
}

int dbg_finish(struct dbg *d, struct dbg_stop *stop, struct ptdb_err *err)
{
	struct dbg_frame fr[DBG_MAX_FRAMES];
	pid_t tid = d->sel_tid;
	struct dbg_goal g;
	int n, k, rr;

	if (dbg_check_alive(d, err) < 0)
		return -1;
	dbg_interrupt_arm(d);
	n = dbg_frames(d, tid, fr, DBG_MAX_FRAMES, err);
	if (n < 0)
		return -1;
	/* out of an inlined call of the innermost function: run (over
	 * calls) until pc is out of it, as LLDB steps out of one */
	if ((int)d->sel_frame < n && fr[d->sel_frame].inl < fr[d->sel_frame].ninl &&
	    fr[d->sel_frame].look == fr[0].look) {
		int target = (int)(fr[d->sel_frame].ninl - fr[d->sel_frame].inl) - 1, dep;
		struct sym_inline self, cur;
		struct user_regs_struct r0;

		if (dbg_thread_regs(d, tid, &r0, err) < 0)
			return -1;
		if (inline_level(d, r0.rip, target + 1, &self) < 0)
			self.name = NULL;
		for (;;) {
			struct disasm_insn in;
			struct user_regs_struct r;
			int ret, rr;

			if (d->interrupt_requested) {
				dbg_step_done(d, stop, tid, DBG_R_INTERRUPT);
				return 0;
			}
			if (dbg_thread_regs(d, tid, &r, err) < 0)
				return -1;
			ret = dbg_insn_at(d, r.rip, &in) == 0 && in.kind == DISASM_KIND_RET;
			rr = dbg_one_insn(d, tid, 1, stop, err);
			if (rr != RW_STEPPED)
				return dbg_step_end(d, rr, stop, tid, DBG_R_STEP_OUT);
			if (dbg_thread_regs(d, tid, &r, err) < 0)
				return -1;
			if (ret || (dep = inline_depth(d, r.rip)) <= target)
				break;
			/* in another inlined call at that level: stop at its call
			 * site, its frames hidden (as 'n' does) */
			if (inline_level(d, r.rip, target + 1, &cur) == 0 &&
			    (cur.name != self.name || cur.call_line != self.call_line ||
			     cur.call_file != self.call_file)) {
				dbg_step_done(d, stop, tid, DBG_R_STEP_OUT);
				d->inl_hide.n = (unsigned)(dep - target);
				d->inl_hide.tid = tid;
				d->inl_hide.pc = r.rip;
				d->inl_hide.stop_id = target_stop_id(d->proc);
				return 0;
			}
		}
		dbg_step_done(d, stop, tid, DBG_R_STEP_OUT);
		return 0;
	}
	/* the caller: the next concrete frame (an inlined call's frames
	 * share their function's) */
	for (k = (int)d->sel_frame + 1; k < n && fr[k].virt; k++)
		;
	if (k >= n)
		return ptdb_err_set(err, "\"finish\" not meaningful in the outermost frame.");
	g.pc = fr[k].pc;
	g.min_rsp = fr[k].rsp;
	g.tid = 0;
	rr = dbg_run_to_plan(d, tid, &g, 1, stop, err);
	if (rr == RW_USER && dbg_alive(d) && stop->reason != DBG_R_EXITED &&
	    stop->reason != DBG_R_EXEC && stop->reason != DBG_R_INTERRUPT)
		dbg_pend_out_push(d, tid, &g);	/* completed by a later continue */
	if (rr == RW_GOAL) {
		dbg_step_out_stop(d, stop, tid, g.pc);
		return 0;
	}
	return dbg_step_end(d, rr, stop, tid, DBG_R_STEP_OUT);
}

int dbg_until(struct dbg *d, const uint64_t *addrs, int n,
	      struct dbg_stop *stop, struct ptdb_err *err)
{
	struct dbg_frame fr[2 + DBG_MAX_INLINE];

	dbg_replay_leave(d);
	struct dbg_goal g[8];
	pid_t tid = d->sel_tid;
	int nf, ng = 0;

	if (dbg_check_alive(d, err) < 0)
		return -1;
	dbg_interrupt_arm(d);
	nf = dbg_frames(d, tid, fr, 2 + DBG_MAX_INLINE, err);
	if (nf < 0)
		return -1;
	for (int i = 0; i < n && ng < 7; i++)
		g[ng++] = (struct dbg_goal){ addrs[i], fr[0].rsp, 0 };
	for (int i = 1; i < nf; i++)
		if (!fr[i].virt) {	/* the caller (past inlined frames) */
			g[ng++] = (struct dbg_goal){ fr[i].pc, fr[i].rsp, 0 };
			break;
		}
	return dbg_step_end(d, dbg_run_to(d, tid, g, ng, stop, err), stop, tid, DBG_R_UNTIL);
}
