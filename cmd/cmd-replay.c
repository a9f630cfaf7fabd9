/* cmd/cmd-replay.c: going back in time over the trace — "thread trace
 * goto", the reverse stepping commands, and the forward ones while
 * replaying (GDB's reverse execution over a recorded history). */
#include "cmd/builtin.h"
#include "cmd/cmd-trace.h"
#include "cmd/progress.h"
#include "cmd/replay.h"
#include "cmd/report.h"
#include "core/session/session.h"
#include "core/tracing/cursor.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void report(struct cmd_ctx *ctx, const struct dbg_stop *st)
{
	struct dbg *d = &ctx->s->dbg;

	fprintf(ctx->out, "Process %d stopped\n", (int)d->pid);
	report_thread_frame(ctx->out, d, st->tid, 0);
}

/* The selected thread's trace must exist to replay it. */
static int need_trace(struct cmd_ctx *ctx)
{
	struct dbg *d = &ctx->s->dbg;

	if (!dbg_trace_loaded(d) && !dbg_alive(d))
		return need_process(ctx);
	if (!dbg_trace_thread(d, dbg_replaying(d) ? dbg_replay_tid(d) : d->sel_tid)) {
		cmd_error(ctx, "thread #%u is not traced: there is no history to replay",
			  dbg_thread_index(d, d->sel_tid));
		return -1;
	}
	return 0;
}

/* The thread's trace decoded before the cursor needs it: a long decode
 * (the first move back over a long trace) shows its progress and stops at
 * Ctrl-C (the DAP: at pause or cancel).  0, or -1 said. */
static int decode_first(struct cmd_ctx *ctx, pid_t tid)
{
	struct dbg *d = &ctx->s->dbg;
	struct trace_decoded *dec;
	int r;

	cmd_busy_begin(d);
	r = cmd_trace_decode(ctx, dbg_trace_thread(d, tid), tid, &dec);
	cmd_busy_end(d);
	return r;
}

enum cmd_status cmd_replay_run(struct cmd_ctx *ctx, int dir, enum dbg_replay_kind k)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_stop st;
	struct ptdb_err err;

	if (need_trace(ctx) < 0 ||
	    decode_first(ctx, dbg_replaying(d) ? dbg_replay_tid(d) : d->sel_tid) < 0)
		return CMD_ERROR;
	if (!dbg_replaying(d)) {
		/* backward from the live position: the end of the history */
		if (dir > 0)
			return cmd_error(ctx, "not replaying: the thread is at the end of its history");
		if (dbg_replay_from_end(d, d->sel_tid, &err) < 0)
			return cmd_error(ctx, "%s", err.msg);
	}
	if (dbg_replay_move(d, dir, k, &st, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	if (st.replay_edge == 2 && !dbg_trace_loaded(d)) {
		/* forward past the last recorded instruction: live again */
		dbg_replay_leave(d);
		fprintf(ctx->out, "End of the trace: the thread is live again.\n");
		report_stop(ctx->out, d, &d->last);
		return CMD_OK;
	}
	report(ctx, &st);
	return CMD_OK;
}

/* "thread trace goto <id> | begin | end" */
static enum cmd_status exec_goto(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *w = a->argv[0];
	struct trace_decoded *dec;
	struct trace_swc_thread *th;
	struct dbg_stop st;
	struct ptdb_err err;
	pid_t tid = dbg_replaying(d) ? dbg_replay_tid(d) : d->sel_tid;
	uint64_t id, total;

	if (need_trace(ctx) < 0)
		return CMD_ERROR;
	th = dbg_trace_thread(d, tid);
	if (dbg_trace_decode(d, th, &dec, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	total = dbg_decoded_insn_count(dec);
	if (!strcmp(w, "end") && !dbg_trace_loaded(d)) {
		/* the end of the history is the live thread */
		if (dbg_replaying(d)) {
			dbg_replay_leave(d);
			report_stop(ctx->out, d, &d->last);
		}
		return CMD_OK;
	}
	if (!strcmp(w, "begin")) {
		id = 0;
	} else if (!strcmp(w, "end")) {
		id = total ? total - 1 : 0;
	} else {
		char *end;

		errno = 0;
		id = strtoull(w, &end, 0);
		if (!isdigit((unsigned char)*w) || *end || errno)
			return cmd_error(ctx, "invalid instruction id '%s': expected a number, begin or end", w);
	}
	if (dbg_replay_goto(d, tid, id, &st, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	report(ctx, &st);
	return CMD_OK;
}

static enum cmd_status exec_rstepi(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	return cmd_replay_run(ctx, -1, DBG_RP_INSN);
}

static enum cmd_status exec_rstep(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	return cmd_replay_run(ctx, -1, DBG_RP_LINE_IN);
}

static enum cmd_status exec_rnext(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	return cmd_replay_run(ctx, -1, DBG_RP_LINE_OVER);
}

static enum cmd_status exec_rfinish(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	return cmd_replay_run(ctx, -1, DBG_RP_OUT);
}

static enum cmd_status exec_rcontinue(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	return cmd_replay_run(ctx, -1, DBG_RP_CONTINUE);
}

const struct cmd_node cmd_thread_trace_goto_node = {
	.name = "goto", .summary = "Move the thread's replay cursor to an instruction of its trace.",
	.syntax = "<instruction-id> | begin | end",
	.details = "Enters replay mode: the thread is shown at the traced instruction (its id as in "
		"'thread trace dump instructions'), 'bt' shows the calls that led there, and the "
		"stepping commands move through the history.  'end', or resuming the process, "
		"leaves replay mode.",
	.min_args = 1, .max_args = 1, .needs = CMD_NEEDS_THREADS, .exec = exec_goto,
};

#define REVERSE(var, nm, sum, fn) \
	const struct cmd_node var = { .name = nm, .summary = sum, .syntax = "", .min_args = 0, \
		.max_args = 0, .needs = CMD_NEEDS_THREADS, .exec = fn }

REVERSE(cmd_thread_step_back_node, "step-back",
	"Step back one instruction in the traced history (reverse-stepi).", exec_rstepi);
REVERSE(cmd_thread_reverse_stepi_node, "reverse-stepi",
	"Step back one instruction in the traced history.", exec_rstepi);
REVERSE(cmd_thread_reverse_step_node, "reverse-step",
	"Step back to the start of the previous source line, into functions.", exec_rstep);
REVERSE(cmd_thread_reverse_next_node, "reverse-next",
	"Step back to the start of the previous source line, over calls.", exec_rnext);
REVERSE(cmd_thread_reverse_finish_node, "reverse-finish",
	"Go back to the call that entered the current function.", exec_rfinish);
REVERSE(cmd_thread_reverse_continue_node, "reverse-continue",
	"Run back in the traced history to a breakpoint, or to the start of the trace.", exec_rcontinue);
