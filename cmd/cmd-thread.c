/* cmd/cmd-thread.c: the "thread" group (list, select, backtrace, stepping,
 * until) and the "frame" group (select, info). */
#include "cmd/data.h"
#include "cmd/builtin.h"
#include "cmd/replay.h"
#include "cmd/report.h"
#include "core/session/session.h"
#include "core/data/expr.h"
#include "core/tracing/trace_info.h"
#include "core/data/value.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


static enum cmd_status after_run(struct cmd_ctx *ctx, int r, struct dbg_stop *stop,
				 struct ptdb_err *err)
{
	const char *file;
	unsigned first, count;
	unsigned long before = report_source_shown(&file, &first, &count);
	enum cmd_status cs = cmd_after_stop(ctx, r, stop, err);

	/* lldb-16's step commands select the frame after showing it: its
	 * source manager goes on from the stop's line, not the first shown */
	report_source_from_line(before);
	return cs;
}

static int pre_run(struct cmd_ctx *ctx)
{
	if (need_process(ctx) < 0)
		return -1;
	fflush(ctx->out);
	fflush(ctx->err);
	return 0;
}

void cmd_note_return_value(struct dbg *d, pid_t tid, const struct sym_type *ret)
{
	char *buf = NULL, name[32];
	size_t len = 0;
	FILE *f;
	struct value v;
	static const struct value_fmt natural;

	if (!ret || frame_return_value(d, tid, ret, &v) < 0)
		return;
	f = open_memstream(&buf, &len);
	if (f) {
		snprintf(name, sizeof(name), "$%u", expr_keep(&d->results, d, &v));
		fputs("Return value: ", f);
		value_print(f, &d->env, name, &v, &natural);
		fclose(f);
		free(d->stop_note);
		d->stop_note = buf;
	}
	value_release(&v);
}

/* finish, and the value the function returned for the stop report:
 * "Return value: (int) $0 = 3".  Another thread's stop first: the finish
 * stays (the session's pend_out stack) with the type for its later report. */
static int finish_with_value(struct cmd_ctx *ctx, struct dbg_stop *st, struct ptdb_err *err)
{
	struct dbg *d = &ctx->s->dbg;
	const struct sym_type *ret = NULL;
	struct frame_ctx fc;
	pid_t tid = d->sel_tid;
	int r;

	if (frame_ctx_open(d, tid, d->sel_frame, &fc, NULL) == 0) {
		if (fc.vars)
			ret = fc.sc.ret;
		frame_ctx_close(&fc);
	}
	r = dbg_finish(d, st, err);
	if (r == 0 && st->reason != DBG_R_STEP_OUT && !st->out_done && dbg_pend_out_top(d) &&
	    dbg_pend_out_top(d)->tid == tid && !dbg_pend_out_top(d)->ret)
		dbg_pend_out_top(d)->ret = ret;	/* the one it left pending */
	if (r < 0 || (st->reason != DBG_R_STEP_OUT && !st->out_done) || tid != d->sel_tid)
		return r;
	cmd_note_return_value(d, tid, ret);
	return r;
}

enum step_kind { STEP_OVER, STEP_IN, STEP_OUT, STEP_INST, STEP_INST_OVER };

static enum cmd_status run_step(struct cmd_ctx *ctx, enum step_kind k)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_stop st;
	struct ptdb_err err;
	int r;

	if (dbg_replaying(d)) {
		/* forward through the history */
		static const enum dbg_replay_kind rk[] = { DBG_RP_LINE_OVER, DBG_RP_LINE_IN, DBG_RP_OUT,
							   DBG_RP_INSN, DBG_RP_INSN };

		return cmd_replay_run(ctx, 1, rk[k]);
	}
	if (pre_run(ctx) < 0)
		return CMD_ERROR;
	switch (k) {
	case STEP_OVER:
	case STEP_IN: {
		pid_t tid = d->sel_tid;
		enum cmd_status cs;

		r = dbg_step_line(d, k == STEP_IN, &st, &err);
		cs = after_run(ctx, r, &st, &err);
		/* another thread's stop came first: the stepping thread is
		 * selected again with its step pending, as lldb-16 does */
		if (r == 0 && dbg_plans_top_tid(d) == tid && d->sel_tid != tid) {
			d->sel_tid = tid;
			d->sel_frame = 0;
		}
		return cs;
	}
	case STEP_OUT: {
		pid_t tid = d->sel_tid;
		enum cmd_status cs;

		r = finish_with_value(ctx, &st, &err);
		cs = after_run(ctx, r, &st, &err);
		/* another thread's stop came first: it is reported, then the
		 * finishing thread is selected again, as lldb-16 does */
		if (r == 0 && dbg_pend_out_top(d) && dbg_pend_out_top(d)->tid == tid &&
		    d->sel_tid != tid) {
			d->sel_tid = tid;
			d->sel_frame = 0;
		}
		return cs;
	}
	default:
		r = dbg_step_insn(d, k == STEP_INST_OVER, &st, &err);
		break;
	}
	return after_run(ctx, r, &st, &err);
}

static enum cmd_status exec_step_over(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	return run_step(ctx, STEP_OVER);
}

static enum cmd_status exec_step_in(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	return run_step(ctx, STEP_IN);
}

static enum cmd_status exec_step_out(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	return run_step(ctx, STEP_OUT);
}

static enum cmd_status exec_step_inst(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	return run_step(ctx, STEP_INST);
}

static enum cmd_status exec_step_inst_over(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	return run_step(ctx, STEP_INST_OVER);
}

static int parse_uint(const char *s, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static enum cmd_status exec_until(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	uint64_t addrs[8];
	const char *file;
	unsigned line, col;
	struct dbg_frame fr;
	struct dbg_stop st;
	struct ptdb_err err;
	struct dbg_module *m;
	unsigned long v;
	int n = 0;

	if (pre_run(ctx) < 0)
		return CMD_ERROR;
	if (dbg_frames(d, d->sel_tid, &fr, 1, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	if (cmd_opt_given(ctx->node, a, "address")) {
		/* an address expression, as lldb-16's (main+4, $pc+8) */
		if (cmd_eval_addr(ctx, cmd_opt(ctx->node, a, "address"), &addrs[0]) < 0)
			return CMD_ERROR;
		n = 1;
	} else {
		if (a->argc != 1)
			return cmd_error(ctx, "thread until needs a line number or -a <address>");
		if (parse_uint(a->argv[0], &v) < 0 || v == 0)
			return cmd_error(ctx, "invalid line number '%s'", a->argv[0]);
		m = dbg_module_for(d, fr.pc);
		if (!m || dbg_addr_line(d, fr.pc, &file, &line, &col) < 0)
			return cmd_error(ctx, "no line information for the current frame");
		n = sym_lookup_line(m->sym, file, (unsigned)v, addrs, 8, NULL);
		if (n <= 0)
			return cmd_error(ctx, "no code for line %lu", v);
	}
	fprintf(ctx->out, "Process %d resuming\n", (int)d->pid);	/* as lldb-16's until */
	fflush(ctx->out);
	return after_run(ctx, dbg_until(d, addrs, n, &st, &err), &st, &err);
}

static int thread_by_index(struct dbg *d, unsigned long idx, pid_t *tid)
{
	int n, r = -1;
	struct target_thread_info *ti = dbg_thread_list(d, 0, &n);

	for (int i = 0; i < n && r < 0; i++)
		if (ti[i].index == idx) {
			*tid = ti[i].tid;
			r = 0;
		}
	free(ti);
	return r;
}

/* A thread's summary line: "* thread #1: tid = N, 0x... where, name =
 * 'x', stop reason = ..." (list: marked, the selected one by '*'). */
static void thread_line(struct cmd_ctx *ctx, const struct target_thread_info *t, int list)
{
	struct dbg *d = &ctx->s->dbg;
	const char *mark = !list ? "" : t->tid == d->sel_tid ? "* " : "  ";
	struct dbg_frame f;
	struct ptdb_err err;
	char loc[8192], why[160];

	if (!dbg_trace_loaded(d) && dbg_thread_exited(d, t->tid)) {
		/* traced, then gone: its trace is still there */
		fprintf(ctx->out, "%sthread #%u: tid = %d, exited (traced)\n", list ? "  " : "",
			t->index, (int)t->tid);
		return;
	}
	if (dbg_frames(d, t->tid, &f, 1, &err) < 0) {
		if (dbg_trace_loaded(d))	/* listed without a trace */
			fprintf(ctx->out, "%sthread #%u: tid = %d\n", mark, t->index, (int)t->tid);
		return;
	}
	if (dbg_trace_loaded(d)) {
		dbg_format_frame(d, &f, 0, loc, sizeof(loc));
		fprintf(ctx->out, "%sthread #%u: tid = %d, 0x%016" PRIx64 " %s\n", mark, t->index,
			(int)t->tid, f.pc, loc);
		return;
	}
	frame_format(d, t->tid, 0, &f, loc, sizeof(loc));
	report_reason(d, t->tid, why, sizeof(why));
	fprintf(ctx->out, "%sthread #%u: tid = %d, 0x%016" PRIx64 " %s, name = '%s'", mark,
		t->index, (int)t->tid, f.pc, loc, t->name);
	if (why[0])
		fprintf(ctx->out, ", stop reason = %s", why);
	fputc('\n', ctx->out);
}

static enum cmd_status exec_list(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct target_thread_info *ti;
	int n;

	(void)a;
	if (need_threads(ctx) < 0)
		return CMD_ERROR;
	ti = dbg_thread_list(d, 1, &n);
	if (dbg_trace_loaded(d))
		fprintf(ctx->out, "Process %d (a loaded trace; each thread is shown where its trace ends)\n",
			(int)d->pid);
	else
		fprintf(ctx->out, "Process %d stopped\n", (int)d->pid);
	for (int i = 0; i < n; i++)
		thread_line(ctx, &ti[i], 1);
	free(ti);
	return CMD_OK;
}

/* thread info [<thread-index> | all]: the summary line of the selected
 * thread, of thread N or of each, then an empty line, as LLDB. */
static enum cmd_status exec_info(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct target_thread_info *ti;
	const char *w = a->argc ? a->argv[0] : NULL;
	unsigned long idx = 0;
	int n, shown = 0;

	if (need_threads(ctx) < 0)
		return CMD_ERROR;
	if (w && strcmp(w, "all") && (parse_uint(w, &idx) < 0 || !idx))
		return cmd_error(ctx, "invalid thread index '%s'", w);
	ti = dbg_thread_list(d, 1, &n);
	for (int i = 0; i < n; i++)
		if (w ? !idx || ti[i].index == idx : ti[i].tid == d->sel_tid) {
			thread_line(ctx, &ti[i], 0);
			fputc('\n', ctx->out);
			shown++;
		}
	free(ti);
	if (!shown)
		return cmd_error(ctx, "no thread with index: \"%lu\"", idx);
	return CMD_OK;
}

static enum cmd_status exec_select(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	unsigned long idx;
	pid_t tid;

	if (need_threads(ctx) < 0)
		return CMD_ERROR;
	if (parse_uint(a->argv[0], &idx) < 0)
		return cmd_error(ctx, "invalid thread index '%s'", a->argv[0]);
	if (thread_by_index(d, idx, &tid) < 0)
		return cmd_error(ctx, "invalid thread #%lu.", idx);
	dbg_select_thread(d, tid);
	report_thread_frame(ctx->out, d, tid, 0);
	return CMD_OK;
}

static void backtrace_one(struct cmd_ctx *ctx, pid_t tid, unsigned long count)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_frame fr[DBG_MAX_FRAMES];
	struct ptdb_err err;
	int n = dbg_frames(d, tid, fr, DBG_MAX_FRAMES, &err);

	/* one frame shown: no marker, as lldb-16 (bt 1) */
	int one = n == 1 || count == 1;

	report_thread_line(ctx->out, d, tid);
	for (int i = 0; i < n && (!count || (unsigned long)i < count); i++) {
		fputs(!one && tid == d->sel_tid && (unsigned)i == d->sel_frame ? "  * " : "    ",
		      ctx->out);
		report_frame_line_tid(ctx->out, d, tid, &fr[i], (unsigned)i);
	}
}

static enum cmd_status exec_backtrace(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *c = cmd_opt(ctx->node, a, "count");
	unsigned long count = 0;

	if (need_threads(ctx) < 0)
		return CMD_ERROR;
	if (c && parse_uint(c, &count) < 0)
		return cmd_error(ctx, "invalid count '%s'", c);
	if (a->argc == 1 && !strcmp(a->argv[0], "all")) {
		int n;
		struct target_thread_info *ti = dbg_thread_list(d, 0, &n);

		/* one after the other, no empty line between (lldb-16) */
		for (int i = 0; i < n; i++)
			backtrace_one(ctx, ti[i].tid, count);
		free(ti);
		return CMD_OK;
	}
	if (a->argc == 1) {
		unsigned long idx;
		pid_t tid;

		if (parse_uint(a->argv[0], &idx) < 0)
			return cmd_error(ctx, "invalid thread index '%s'", a->argv[0]);
		if (thread_by_index(d, idx, &tid) < 0)
			return cmd_error(ctx, "invalid thread #%lu.", idx);
		backtrace_one(ctx, tid, count);
		return CMD_OK;
	}
	backtrace_one(ctx, d->sel_tid, count);
	return CMD_OK;
}

/* -r N: N frames outward (negative: inward), clamped at the ends as
 * LLDB's up and down are; an error only when already at that end. */
static int frame_relative(struct cmd_ctx *ctx, const char *rel, unsigned long *idx, int n)
{
	char *end;
	long off = strtol(rel, &end, 0);
	long to;

	if (end == rel || *end) {
		cmd_error(ctx, "invalid frame offset '%s'", rel);
		return -1;
	}
	to = (long)*idx + off;
	if (off < 0 && to < 0) {
		if (*idx == 0) {
			cmd_error(ctx, "Already at the bottom of the stack.");
			return -1;
		}
		to = 0;
	} else if (off > 0 && to >= n) {
		if (*idx == (unsigned long)n - 1) {
			cmd_error(ctx, "Already at the top of the stack.");
			return -1;
		}
		to = n - 1;
	}
	*idx = (unsigned long)to;
	return 0;
}

static enum cmd_status exec_frame_select(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_frame fr[DBG_MAX_FRAMES];
	struct ptdb_err err;
	unsigned long idx = d->sel_frame;
	const char *rel = cmd_opt(ctx->node, a, "relative");
	int n;

	if (need_threads(ctx) < 0)
		return CMD_ERROR;
	if (rel && a->argc)
		return cmd_error(ctx, "give a frame index or -r, not both");
	if (a->argc && parse_uint(a->argv[0], &idx) < 0)
		return cmd_error(ctx, "invalid frame index '%s'", a->argv[0]);
	n = dbg_frames(d, d->sel_tid, fr, DBG_MAX_FRAMES, &err);
	if (n < 0)
		return cmd_error(ctx, "%s", err.msg);
	if (rel && frame_relative(ctx, rel, &idx, n) < 0)
		return CMD_ERROR;
	if (idx >= (unsigned long)n)
		return cmd_error(ctx, "Frame index (%lu) out of range.", idx);
	d->sel_frame = (unsigned)idx;
	report_frame_line(ctx->out, d, &fr[idx], (unsigned)idx);
	report_frame_source(ctx->out, d, &fr[idx], (unsigned)idx);
	return CMD_OK;
}

static enum cmd_status exec_frame_info(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_frame fr[DBG_MAX_FRAMES];
	struct ptdb_err err;
	int n;

	(void)a;
	if (need_threads(ctx) < 0)
		return CMD_ERROR;
	n = dbg_frames(d, d->sel_tid, fr, DBG_MAX_FRAMES, &err);
	if (n < 0)
		return cmd_error(ctx, "%s", err.msg);
	if ((int)d->sel_frame >= n)
		d->sel_frame = 0;
	report_frame_line(ctx->out, d, &fr[d->sel_frame], d->sel_frame);
	return CMD_OK;
}

static const struct cmd_node thread_backtrace = {
	.name = "backtrace", .summary = "Show the stack of the selected thread, of thread N, or of all threads.",
	.syntax = "[all | <thread-index>]", .min_args = 0, .max_args = 1,
	.needs = CMD_NEEDS_THREADS, .exec = exec_backtrace,
	.opts = (const struct cmd_opt[]){
		{ 'c', "count", OPT_STRING, "count", "How many frames to show." },
		{ 0 } },
};

static const struct cmd_node thread_list = {
	.name = "list", .summary = "Show a summary of each thread in the current process.",
	.syntax = "", .min_args = 0, .max_args = 0, .needs = CMD_NEEDS_THREADS, .exec = exec_list,
};

static const struct cmd_node thread_info = {
	.name = "info", .summary = "Show a summary of the selected thread, of thread N, or of all threads.",
	.syntax = "[all | <thread-index>]", .min_args = 0, .max_args = 1, .needs = CMD_NEEDS_THREADS,
	.exec = exec_info,
};

static const struct cmd_node thread_select = {
	.name = "select", .summary = "Select the thread with the given index as the current thread.",
	.syntax = "<thread-index>", .min_args = 1, .max_args = 1, .needs = CMD_NEEDS_THREADS, .exec = exec_select,
};

static const struct cmd_node thread_step_over = {
	.name = "step-over", .summary = "Source-level step over calls to the next line (next, n).",
	.syntax = "", .min_args = 0, .max_args = 0, .needs = CMD_NEEDS_THREADS, .exec = exec_step_over,
};

static const struct cmd_node thread_step_in = {
	.name = "step-in", .summary = "Source-level step into calls with line information (step, s).",
	.syntax = "", .min_args = 0, .max_args = 0, .needs = CMD_NEEDS_THREADS, .exec = exec_step_in,
};

static const struct cmd_node thread_step_out = {
	.name = "step-out", .summary = "Run until the selected frame returns (finish).",
	.syntax = "", .min_args = 0, .max_args = 0, .needs = CMD_NEEDS_THREADS, .exec = exec_step_out,
};

static const struct cmd_node thread_step_inst = {
	.name = "step-inst", .summary = "Step one instruction, into calls (stepi, si).",
	.syntax = "", .min_args = 0, .max_args = 0, .needs = CMD_NEEDS_THREADS, .exec = exec_step_inst,
};

static const struct cmd_node thread_step_inst_over = {
	.name = "step-inst-over", .summary = "Step one instruction, over calls (nexti, ni).",
	.syntax = "", .min_args = 0, .max_args = 0, .needs = CMD_NEEDS_THREADS, .exec = exec_step_inst_over,
};

static const struct cmd_node thread_until = {
	.name = "until", .summary = "Run until a line or address in the current frame is reached, or the frame returns.",
	.syntax = "[<linenum>]", .min_args = 0, .max_args = 1, .needs = CMD_NEEDS_PROCESS, .exec = exec_until,
	.opts = (const struct cmd_opt[]){
		{ 'a', "address", OPT_STRING, "address", "Run until this address instead of a line." },
		{ 0 } },
};

const struct cmd_node cmd_thread_node = {
	.name = "thread", .summary = "Commands for operating on one or more threads of the current process.",
	.children = (const struct cmd_node *const[]){
		&thread_backtrace, &thread_info, &cmd_thread_jump_node, &thread_list, &cmd_thread_reverse_continue_node,
		&cmd_thread_reverse_finish_node, &cmd_thread_reverse_next_node,
		&cmd_thread_reverse_step_node, &cmd_thread_reverse_stepi_node, &cmd_thread_return_node,
		&thread_select,
		&cmd_thread_step_back_node, &thread_step_in, &thread_step_inst, &thread_step_inst_over,
		&thread_step_out, &thread_step_over, &cmd_thread_trace_node, &thread_until, NULL },
};

static const struct cmd_opt frame_select_opts[] = {
	{ 'r', "relative", OPT_STRING, "offset", "Select the frame this many frames outward from the selected one (negative: inward)." },
	{ 0 },
};

static const struct cmd_node frame_select = {
	.name = "select", .summary = "Select a frame of the current thread by index (0 is the innermost).",
	.syntax = "[<frame-index>]", .opts = frame_select_opts, .min_args = 0, .max_args = 1, .needs = CMD_NEEDS_THREADS, .exec = exec_frame_select,
};

static const struct cmd_node frame_info = {
	.name = "info", .summary = "Show the selected frame.",
	.syntax = "", .min_args = 0, .max_args = 0, .needs = CMD_NEEDS_THREADS, .exec = exec_frame_info,
};

const struct cmd_node cmd_frame_node = {
	.name = "frame", .summary = "Commands for selecting and examining stack frames.",
	.children = (const struct cmd_node *const[]){ &frame_info, &frame_select, &cmd_frame_variable_node, NULL },
};
