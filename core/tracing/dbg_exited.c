/* core/tracing/dbg_exited.c: threads that exited while traced stay in the session
 * (listed as exited, their traces dumpable) until the process runs again
 * from a new start: the trace commands see live and exited threads alike. */
#include "core/tracing/dbg_trace_int.h"
#include "core/tracing/trace_info.h"
#include "trace/swc.h"

#include <stdlib.h>
#include <string.h>

int dbg_thread_exited(struct dbg *d, pid_t tid)
{
	if (dbg_source(d)->loaded || !dbg_trace_thread(d, tid))
		return 0;
	return dbg_trace_kept(d) || !dbg_tr(d)->host->alive(d) || !target_thread_index(dbg_tr_proc(d), tid);
}

int dbg_trace_threads(struct dbg *d, struct target_thread_info *out, int max)
{
	struct trace_swc_thread **th;
	int n = dbg_threads(d, out, max), nt;

	if (dbg_source(d)->files_only(d) || !dbg_tr(d)->host->alive(d))
		return n;	/* dbg_threads has them all */
	th = dbg_trace_list(d, &nt);
	for (int i = 0; i < nt && n < max; i++) {
		if (target_thread_index(dbg_tr_proc(d), th[i]->tid))
			continue;	/* alive: listed already */
		memset(&out[n], 0, sizeof(out[n]));
		out[n].tid = th[i]->tid;
		out[n].index = th[i]->index;
		n++;
	}
	free(th);
	return n;
}
