/* cmd/cmd-jump.c: the selected thread moved without running, as lldb-16
 * does it: "thread jump", its pc set to a line of the current function
 * (-l, -f), a number of lines from the current one (-b), or an address
 * expression (-a), nothing printed; "thread return", its frame 0 popped
 * (a value in rax), the new frame 0 shown. */
#include "cmd/data.h"
#include "cmd/builtin.h"
#include "cmd/report.h"
#include "core/data/expr.h"
#include "core/session/session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The address of file:line in the function holding pc (lldb-16's words
 * when there is none, or none there).  0 or -1 (error printed). */
static int line_addr(struct cmd_ctx *ctx, uint64_t pc, const char *file, long line,
		     uint64_t *out)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_module *m = dbg_module_for(d, pc);
	const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	struct sym_loc here, loc;
	uint64_t addrs[16];
	int n = 0;

	if (m && line > 0 && sym_lookup_addr(m->sym, pc, &here) == 0)
		n = sym_lookup_line(m->sym, file, (unsigned)line, addrs, 16, NULL);
	if (n <= 0)
		return cmd_error(ctx, "Cannot locate an address for %s:%ld.", base, line), -1;
	for (int i = 0; i < n; i++)
		if (sym_lookup_addr(m->sym, addrs[i], &loc) == 0 && loc.func_addr == here.func_addr) {
			*out = addrs[i];
			return 0;
		}
	return cmd_error(ctx, "%s:%ld is outside the current function.", base, line), -1;
}

static enum cmd_status exec_jump(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *l = cmd_opt(ctx->node, a, "line"), *b = cmd_opt(ctx->node, a, "by");
	const char *ad = cmd_opt(ctx->node, a, "address"), *f = cmd_opt(ctx->node, a, "file");
	struct user_regs_struct r;
	struct ptdb_err err;
	const char *file;
	unsigned line, col;
	uint64_t to;
	char *end;
	long v = 0;

	if ((l != NULL) + (b != NULL) + (ad != NULL) != 1 || (f && !l))
		return cmd_error(ctx, "invalid combination of options for the given command");
	if (target_get_regs(d->proc, d->sel_tid, &r, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	if (ad) {
		if (cmd_eval_addr(ctx, ad, &to) < 0)
			return CMD_ERROR;
	} else {
		errno = 0;
		v = strtol(l ? l : b, &end, 0);
		if (errno || *end || end == (l ? l : b))
			return cmd_error(ctx, "invalid line number '%s'", l ? l : b);
		if (dbg_addr_line(d, r.rip, &file, &line, &col) < 0)
			return cmd_error(ctx, "no line information for the current frame");
		if (line_addr(ctx, r.rip, f ? f : file, b ? (long)line + v : v, &to) < 0)
			return CMD_ERROR;
	}
	r.rip = to;
	if (target_set_regs(d->proc, d->sel_tid, &r, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	d->sel_frame = 0;
	return CMD_OK;
}

const struct cmd_node cmd_thread_jump_node = {
	.name = "jump", .summary = "Set the program counter to a new address.",
	.syntax = "-l <linenum> [-f <file>] | -b <lines> | -a <address>",
	.details = "Nothing runs: the selected thread goes on from there at the next step or "
		"continue, as in lldb-16.",
	.min_args = 0, .max_args = 0, .needs = CMD_NEEDS_PROCESS, .exec = exec_jump,
	.opts = (const struct cmd_opt[]){
		{ 'l', "line", OPT_STRING, "linenum", "A line of the current function." },
		{ 'f', "file", OPT_STRING, "filename", "The file of -l (the current one by default)." },
		{ 'b', "by", OPT_STRING, "offset", "That many lines from the current one." },
		{ 'a', "address", OPT_STRING, "address", "An address expression." },
		{ 0 } },
};

/* The return value's bytes (an integer or a pointer, up to 8): 0, or -1
 * (error printed). */
static int return_value(struct cmd_ctx *ctx, const struct cmd_args *a, uint64_t *rax)
{
	struct dbg *d = &ctx->s->dbg;
	struct frame_ctx fc;
	struct ptdb_err err;
	struct value v;
	char text[1024] = "";
	int r;

	for (int i = 0; i < a->argc; i++) {
		if (i)
			strncat(text, " ", sizeof(text) - strlen(text) - 1);
		strncat(text, a->argv[i], sizeof(text) - strlen(text) - 1);
	}
	if (frame_ctx_open(d, d->sel_tid, 0, &fc, &err) < 0)
		return cmd_error(ctx, "%s", err.msg), -1;
	r = expr_eval(&fc, &d->results, text, &v, &err);
	frame_ctx_close(&fc);
	if (r < 0)
		return cmd_error(ctx, "%s", err.msg), -1;
	expr_keep(&d->results, d, &v);	/* a result, as lldb-16 keeps it ($N) */
	if (v.status != VAL_OK || !v.size || v.size > 8 || !v.type ||
	    sym_type_scalar_class(v.type) == 'f' || !sym_type_scalar_class(v.type)) {
		value_release(&v);
		return cmd_error(ctx, "'%s' is not an integer or a pointer: only those are "
				 "returned (in rax)", text), -1;
	}
	*rax = 0;
	memcpy(rax, v.bytes, v.size);
	/* a signed value fills rax as the callee's movslq would */
	if (v.size < 8 && sym_type_scalar_class(v.type) == 's' && (*rax >> (v.size * 8 - 1) & 1))
		*rax |= ~0ULL << (v.size * 8);
	value_release(&v);
	return 0;
}

static enum cmd_status exec_return(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;
	uint64_t rax;

	if (d->sel_frame != 0)
		return cmd_error(ctx, "thread return pops frame 0 only: select it first "
				 "('frame select 0')");
	if (a->argc && return_value(ctx, a, &rax) < 0)
		return CMD_ERROR;
	if (dbg_thread_return(d, d->sel_tid, a->argc ? &rax : NULL, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	report_thread_frame(ctx->out, d, d->sel_tid, 0);
	return CMD_OK;
}

const struct cmd_node cmd_thread_return_node = {
	.name = "return", .summary = "Return from the selected thread's frame 0 now, short-circuiting "
		"the rest of its function.",
	.syntax = "[<expr>]",
	.details = "Nothing runs: the thread's registers become its caller's (the return address, "
		"the stack pointer, the registers the callee saved), and <expr>, an integer or a "
		"pointer, is the return value (rax).  The new frame 0 is shown, the thread's stop "
		"reason kept, as in lldb-16.",
	.min_args = 0, .max_args = -1, .needs = CMD_NEEDS_PROCESS, .exec = exec_return,
	.flags = CMD_RAW_ARGS,
};
