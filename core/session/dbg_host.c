/* core/session/dbg_host.c: what a collector asks of the session and of the
 * trace session (struct dbg_host, core/collectors/collector.h), each call
 * with the session as its first argument.  dbg_init hands it to d->host;
 * the trace session passes it down in the struct dbg_tracee it hands the
 * collector, which never calls up by name. */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "core/tracing/dbg_trace_int.h"

const struct dbg_host dbg_host = {
	.alive = dbg_alive,
	.insn_at = dbg_insn_at,
	.disasm = dbg_disasm,
	.bp_hit = dbg_bp_hit,
	.refresh_modules = dbg_refresh_modules,
	.signal_stop = dbg_signal_stop,
	.end_stop = dbg_end_stop,
	.run_native = dbg_run_native,
	.progress_begin = dbg_progress_begin,
	.progress_tick = dbg_progress_tick,
	.progress_poll = dbg_progress_poll,
	.trace_find = dbg_trace_find,
	.proc_threads = dbg_proc_threads,
	.trace_adopt = dbg_trace_adopt,
	.trace_over_limit = dbg_trace_over_limit,
	.trace_drop_kept = dbg_trace_drop_kept,
	.thread_release = dbg_trace_thread_release,
};
