/* cmd/trace-threads.c: which threads a trace command is about and what
 * it needs of the process (cmd/cmd-trace.h), shared by the trace
 * commands below cmd-trace.c (dump, function calls, export). */
#include "cmd/cmd-trace.h"
#include "core/session/session.h"
#include "core/tracing/trace_info.h"

#include <stdlib.h>

/* LLDB's words: before any process "Process not available." for the
 * commands that start tracing, "Command requires a current process." for
 * the others; "Process must be launched." after it exited; with no target
 * at all, the commands that do not start tracing need one. */
int cmd_trace_need_live(struct cmd_ctx *ctx, int starts)
{
	struct dbg *d = &ctx->s->dbg;

	if (dbg_alive(d))
		return 0;
	if (!starts && !d->tr.pm && !d->proc && !d->exe_path)
		cmd_error(ctx, "invalid target, create a target using the 'file' command");
	else if (d->tr.pm)
		cmd_error(ctx, "Tracing is not supported. Can't trace a non-live process.");
	else
		cmd_error(ctx, d->proc ? "Process must be launched." : starts ? "Process not available."
			  : "Command requires a current process.");
	return -1;
}

int cmd_trace_thread_index(struct dbg *d, pid_t tid)
{
	return (int)dbg_thread_index(d, tid);
}

int cmd_trace_thread_list(struct cmd_ctx *ctx, const struct cmd_args *a, pid_t **tids, int *n)
{
	struct dbg *d = &ctx->s->dbg;
	int all;

	if (!d->tr.pm && !dbg_trace_kept(d) && cmd_trace_need_live(ctx, 0) < 0)
		return -1;
	if (!dbg_tracing(d) && !d->tr.pm) {
		cmd_error(ctx, "Process is not being traced");
		return -1;
	}
	if (cmd_thread_args(ctx, a, tids, n, &all) < 0)
		return -1;
	if (all) {
		int nt;
		struct target_thread_info *ti = dbg_thread_list(d, 1, &nt);

		*tids = xrealloc(*tids, (size_t)(nt + 1) * sizeof(**tids));
		*n = 0;
		for (int i = 0; i < nt; i++)
			(*tids)[(*n)++] = ti[i].tid;
		free(ti);
	}
	return 0;
}
