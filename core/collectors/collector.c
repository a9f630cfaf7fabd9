/* core/collectors/collector.c: what the collectors and the rooms above
 * them share of a run and a trace session (core/collectors/collector.h). */
#include "core/collectors/collector.h"

void dbg_exit_stop(struct dbg_stop *stop, const struct target_stop *ts)
{
	stop->reason = DBG_R_EXITED;
	stop->tid = ts->tid;
	stop->signaled = ts->kind == TARGET_STOP_SIGNALED;
	stop->signo = ts->signo;
	stop->exit_status = ts->exit_status;
}

int dbg_trace_excluded(const struct dbg_trace *t, pid_t tid)
{
	for (int i = 0; i < t->nexcl; i++)
		if (t->excluded[i] == tid)
			return 1;
	return 0;
}
