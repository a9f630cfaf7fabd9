/* cmd/cmd-bpcond.c: when a breakpoint stops — the -c (condition),
 * -i (ignore count), -t (thread id) and -x (thread index) options of
 * "breakpoint set" and "breakpoint modify", and their wording in
 * "breakpoint list" (LLDB's "Condition:" line and "Options:"). */
#include "cmd/builtin.h"
#include "cmd/bpcond.h"
#include "core/session/session.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int parse_num(const char *s, unsigned long *v)
{
	char *end;

	if (!s || !*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || *end ? -1 : 0;
}

int bp_check_options(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	const char *i = cmd_opt(ctx->node, a, "ignore-count");
	const char *t = cmd_opt(ctx->node, a, "thread-id");
	const char *x = cmd_opt(ctx->node, a, "thread-index");
	unsigned long v;

	if (i && (parse_num(i, &v) < 0 || v > 0xffffffffu)) {
		cmd_error(ctx, "invalid ignore count '%s'", i);
		return -1;
	}
	if (t && (parse_num(t, &v) < 0 || v > 0x7fffffffu)) {
		cmd_error(ctx, "invalid thread id string '%s'", t);
		return -1;
	}
	if (x && (parse_num(x, &v) < 0 || v > 0xffffffffu)) {
		cmd_error(ctx, "invalid thread index string '%s'", x);
		return -1;
	}
	return 0;
}

void bp_apply_options(struct cmd_ctx *ctx, const struct cmd_args *a, struct dbg_bp *bp)
{
	const char *c = cmd_opt(ctx->node, a, "condition");
	const char *i = cmd_opt(ctx->node, a, "ignore-count");
	const char *t = cmd_opt(ctx->node, a, "thread-id");
	const char *x = cmd_opt(ctx->node, a, "thread-index");
	unsigned long v;

	if (!bp)
		return;
	if (c)
		dbg_bp_set_condition(bp, c);
	if (i && parse_num(i, &v) == 0)
		bp->ignore = (unsigned)v;
	if (t && parse_num(t, &v) == 0)
		bp->tid = (pid_t)v;
	if (x && parse_num(x, &v) == 0)
		bp->tindex = (unsigned)v;
}

void bp_print_options(FILE *out, const struct dbg_bp *bp)
{
	if (!bp->ignore && !bp->tid && !bp->tindex) {
		if (!bp->enabled)
			fprintf(out, " Options: disabled");
		return;
	}
	fprintf(out, " Options: ");
	if (bp->ignore)
		fprintf(out, "ignore: %u ", bp->ignore);
	fprintf(out, "%s ", bp->enabled ? "enabled" : "disabled");
	if (bp->tid)
		fprintf(out, "tid: 0x%x ", (unsigned)bp->tid);
	if (bp->tindex)
		fprintf(out, "index: %u ", bp->tindex);
}

void bp_print_condition(FILE *out, const struct dbg_bp *bp)
{
	if (bp->cond)
		fprintf(out, "Condition: %s\n\n", bp->cond);
}

static enum cmd_status exec_modify(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_bp *bps[64];
	int n = 0;

	if (bp_check_options(ctx, a) < 0)
		return CMD_ERROR;
	if (!a->argc) {
		/* LLDB: the breakpoint set last */
		if (!d->nbps)
			return cmd_error(ctx, "No breakpoints exist to be modified.");
		bps[n++] = &d->bps[d->nbps - 1];
	}
	for (int i = 0; i < a->argc; i++) {
		unsigned long id;

		if (parse_num(a->argv[i], &id) < 0)
			return cmd_error(ctx, "invalid breakpoint id '%s' (modify works on whole "
					 "breakpoints: N)", a->argv[i]);
		if (!dbg_bp_find(d, (unsigned)id))
			return cmd_error(ctx, "invalid breakpoint ID %s", a->argv[i]);
		if (n < 64)
			bps[n++] = dbg_bp_find(d, (unsigned)id);
	}
	for (int i = 0; i < n; i++)
		bp_apply_options(ctx, a, bps[i]);
	return CMD_OK;
}

#define BP_COND_OPTS \
	{ 'c', "condition", OPT_STRING, "expr", "Stop only when the expression is true in the stopping thread's frame (\"\" removes the condition)." }, \
	{ 'i', "ignore-count", OPT_STRING, "count", "Ignore this many hits before stopping." }, \
	{ 't', "thread-id", OPT_STRING, "tid", "Stop only in the thread with this id." }, \
	{ 'x', "thread-index", OPT_STRING, "index", "Stop only in the thread with this index." }

const struct cmd_opt bp_cond_opts_for_set[] = {
	{ 'n', "name", OPT_STRING, "function-name", "Set the breakpoint by function name." },
	{ 'f', "file", OPT_STRING, "filename", "The source file of a line breakpoint." },
	{ 'l', "line", OPT_STRING, "linenum", "The line number of a line breakpoint." },
	{ 'a', "address", OPT_STRING, "address", "Set the breakpoint at an address: any "
		"address expression (main+4, $pc+8, &var)." },
	{ 'r', "func-regex", OPT_STRING, "regular-expression", "Set the breakpoint on every "
		"function whose name this regular expression (POSIX extended) finds, in every "
		"module, now and as modules load." },
	BP_COND_OPTS,
	{ 0 },
};

const struct cmd_node cmd_bp_modify_node = {
	.name = "modify", .summary = "Change when the breakpoints given (or the one set last) stop.",
	.syntax = "[<breakpoint-id> ...]",
	.details = "A condition that cannot be evaluated stops the process with an error saying "
		   "why, as LLDB does.  A hit whose condition is false, or in another thread, "
		   "does not count; an ignored hit does.",
	.min_args = 0, .max_args = -1, .exec = exec_modify,
	.opts = (const struct cmd_opt[]){ BP_COND_OPTS, { 0 } },
};
