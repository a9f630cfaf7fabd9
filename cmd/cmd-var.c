/* cmd/cmd-var.c: the program's variables — "frame variable" (alias v)
 * and "target variable", in LLDB's words and layout. */
#include "cmd/builtin.h"
#include "cmd/data.h"
#include "cmd/report.h"
#include "core/session/session.h"
#include "core/data/value.h"

#include <string.h>

static int parse_format(struct cmd_ctx *ctx, const struct cmd_args *a, struct value_fmt *o)
{
	const char *f = cmd_opt(ctx->node, a, "format");

	memset(o, 0, sizeof(*o));
	o->show_types = cmd_opt_given(ctx->node, a, "show-types");
	o->show_loc = cmd_opt_given(ctx->node, a, "location");
	o->raw = cmd_opt_given(ctx->node, a, "raw-output");
	o->dynamic = !ctx->s->dbg.no_dynamic;
	{
		uint64_t depth;

		if (cmd_opt_num(ctx->node, a, "depth", &depth))
			o->max_depth = depth ? (int)(depth > 1000 ? 1000 : depth) : -1;
		if (cmd_opt_num(ctx->node, a, "ptr-depth", &depth))
			o->ptr_depth = (int)(depth > 1000 ? 1000 : depth);
	}
	if (cmd_opt(ctx->node, a, "dynamic-type") &&
	    cmd_dynamic_option(ctx, cmd_opt(ctx->node, a, "dynamic-type"), &o->dynamic) < 0)
		return -1;
	if (!f)
		return 0;
	if (!strcmp(f, "x") || !strcmp(f, "hex"))
		o->format = 'x';
	else if (!strcmp(f, "d") || !strcmp(f, "decimal"))
		o->format = 'd';
	else if (!strcmp(f, "u") || !strcmp(f, "unsigned"))
		o->format = 'u';
	else if (!strcmp(f, "c") || !strcmp(f, "char"))
		o->format = 'c';
	else if (!strcmp(f, "b") || !strcmp(f, "binary"))
		o->format = 'b';
	else if (!strcmp(f, "o") || !strcmp(f, "octal"))
		o->format = 'o';
	else {
		cmd_error(ctx, "Invalid format character or name '%s'. Valid values are: x, d, u, c, b", f);
		return -1;
	}
	return 0;
}

/* Variables need the process's memory and registers: a replayed trace
 * or a loaded bundle holds neither. */
static int need_data(struct cmd_ctx *ctx)
{
	struct dbg *d = &ctx->s->dbg;

	if (d->tr.replay) {
		cmd_error(ctx, "the trace holds no data: variables are not available while replaying "
			  "(leave with 'thread trace goto end' or run the process)");
		return -1;
	}
	if (dbg_trace_loaded(d)) {
		cmd_error(ctx, "the trace holds no data: a loaded trace has no variables");
		return -1;
	}
	return need_process(ctx);
}

static void print_globals(struct cmd_ctx *ctx, struct frame_ctx *fc, const struct value_fmt *o,
			  int header)
{
	struct dbg *d = ctx->s->dbg.exe_path ? &ctx->s->dbg : NULL;
	struct sym_var *g;
	const char *cu;
	int n;

	if (!d || !fc->mod || !fc->mod->sym)
		return;
	n = sym_global_vars(fc->mod->sym, fc->look, &cu, &g, NULL);
	if (n <= 0)
		return;
	if (header)
		fprintf(ctx->out, "Global variables for %s in %s:\n", cu ? cu : "?",
			sym_module_path(fc->mod->sym));
	for (int i = 0; i < n; i++) {
		struct value v;

		frame_var_value(fc, fc->mod->sym, &g[i], &v);
		value_print(ctx->out, &d->env, g[i].name, &v, o);
		value_release(&v);
	}
	sym_vars_free(g, n);
}

/* The name lldb-16 shows a path's value under: the path, but an
 * address-of takes its last step's name, "&[2]" for "&buf[2]", "&x" for
 * "&p->x" (its value's name is the child's) */
static const char *shown_name(const char *path, char *buf, size_t n)
{
	const char *last = path + 1;

	if (path[0] != '&')
		return path;
	for (const char *p = last; *p; p++)
		if (*p == '.' || *p == '[')
			last = p;
		else if (p[0] == '-' && p[1] == '>')
			last = p + 1;
	if (*last == '.' || *last == '>')
		last++;
	snprintf(buf, n, "&%s", last);
	return buf;
}

static enum cmd_status print_paths(struct cmd_ctx *ctx, struct frame_ctx *fc,
				   const struct cmd_args *a, const struct value_fmt *o, int globals)
{
	enum cmd_status st = CMD_OK;

	for (int i = 0; i < a->argc; i++) {
		struct value v;
		struct ptdb_err err;
		char name[256];

		int rc = frame_path_value(fc, a->argv[i], &v, &err);

		if (rc < 0) {
			if (globals && rc == FRAME_PATH_NO_VAR)
				st = cmd_error(ctx, "can't find global variable '%s'", a->argv[i]);
			else
				st = cmd_error(ctx, "%s", err.msg);
			continue;
		}
		value_print(ctx->out, &ctx->s->dbg.env, shown_name(a->argv[i], name, sizeof(name)),
			    &v, o);
		value_release(&v);
	}
	return st;
}

/* The checks both variable commands start with, then the selected
 * frame's context: 0, or -1 with the error said. */
static int open_selected(struct cmd_ctx *ctx, const struct cmd_args *a, struct value_fmt *o,
			 struct frame_ctx *fc)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;

	if (need_data(ctx) < 0 || parse_format(ctx, a, o) < 0)
		return -1;
	if (frame_ctx_open(d, d->sel_tid, d->sel_frame, fc, &err) < 0) {
		cmd_error(ctx, "%s", err.msg);
		return -1;
	}
	return 0;
}

static enum cmd_status exec_frame_variable(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct frame_ctx fc;
	struct value_fmt o;
	enum cmd_status st = CMD_OK;

	if (open_selected(ctx, a, &o, &fc) < 0)
		return CMD_ERROR;
	if (!fc.vars) {
		frame_ctx_close(&fc);
		return cmd_error(ctx, "no debug information for frame %u", d->sel_frame);
	}
	if (a->argc)
		st = print_paths(ctx, &fc, a, &o, 0);
	else {
		int no_args = cmd_opt_given(ctx->node, a, "no-args");
		int no_locals = cmd_opt_given(ctx->node, a, "no-locals");

		for (int i = 0; i < fc.nvars; i++) {
			struct value v;

			/* a function's statics are named, not listed (as LLDB) */
			if ((fc.vars[i].global && !fc.vars[i].is_param) ||
			    (fc.vars[i].is_param ? no_args : no_locals))
				continue;
			frame_var_value(&fc, fc.mod->sym, &fc.vars[i], &v);
			value_print(ctx->out, &d->env, fc.vars[i].name, &v, &o);
			value_release(&v);
		}
		if (cmd_opt_given(ctx->node, a, "show-globals"))
			print_globals(ctx, &fc, &o, 0);
	}
	frame_ctx_close(&fc);
	return st;
}

static enum cmd_status exec_target_variable(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct frame_ctx fc;
	struct value_fmt o;
	enum cmd_status st = CMD_OK;

	if (open_selected(ctx, a, &o, &fc) < 0)
		return CMD_ERROR;
	if (a->argc) {
		/* globals only: a frame without its locals */
		if (fc.vars)
			sym_vars_free(fc.vars, fc.nvars);
		fc.vars = NULL;
		fc.nvars = 0;
		st = print_paths(ctx, &fc, a, &o, 1);
	} else if (!fc.mod || !fc.mod->sym)
		st = cmd_error(ctx, "no global variables were found in the current frame's module");
	else
		print_globals(ctx, &fc, &o, 1);
	frame_ctx_close(&fc);
	return st;
}

#define VAR_FORMAT_OPT { 'f', "format", OPT_STRING, "format", \
	"Display the values in this format: x (hex), d (decimal), u (unsigned), c (char), b (binary), o (octal)." }

static const struct cmd_opt frame_variable_opts[] = {
	VAR_FORMAT_OPT,
	{ 'T', "show-types", OPT_FLAG, NULL, "Show the type of every member and element too." },
	{ 'L', "location", OPT_FLAG, NULL, "Show where each value lives (its address, or its register)." },
	{ 'R', "raw-output", OPT_FLAG, NULL, "Show the members of library types, not their formatted values." },
	{ 'g', "show-globals", OPT_FLAG, NULL, "Show the globals and statics of the frame's compile unit too." },
	{ 'a', "no-args", OPT_FLAG, NULL, "Leave out the function's arguments." },
	{ 'l', "no-locals", OPT_FLAG, NULL, "Leave out the function's local variables." },
	{ 'D', "depth", OPT_UINT, "count", "Show aggregates down to this many levels; deeper ones as "
		"{...} (default: all)." },
	{ 'P', "ptr-depth", OPT_UINT, "count", "Expand pointers that are not null, this many along "
		"each path, as the objects they point to (default: 0)." },
	{ 'd', "dynamic-type", OPT_STRING, "none", "Show pointers and references to C++ objects with "
		"virtual functions by the objects' own classes (no-run-target, run-target) or by their "
		"declared types (no-dynamic-values); target.prefer-dynamic-value by default." },
	{ 0 },
};

const struct cmd_node cmd_frame_variable_node = {
	.name = "variable", .summary = "Show the arguments and locals of the selected frame, or the variables named.",
	.syntax = "[<variable-path> ...]",
	.details = "A variable path is a name followed by .member, ->member or [index], "
		   "optionally preceded by * (p->next->val, a[3], *p).  Variables the compiler "
		   "optimized away print <variable not available>; in a caller frame, a variable "
		   "held in a register the unwinder does not recover prints "
		   "<register NAME is not available>.",
	.opts = frame_variable_opts, .min_args = 0, .max_args = -1,
	.needs = CMD_NEEDS_PROCESS, .exec = exec_frame_variable,
};

static const struct cmd_opt target_variable_opts[] = {
	VAR_FORMAT_OPT,
	{ 'L', "location", OPT_FLAG, NULL, "Show where each value lives (its address)." },
	{ 0 },
};

const struct cmd_node cmd_target_variable_node = {
	.name = "variable", .summary = "Show the globals and statics of the selected frame's compile unit, or the globals named.",
	.syntax = "[<variable-path> ...]",
	.opts = target_variable_opts, .min_args = 0, .max_args = -1,
	.needs = CMD_NEEDS_PROCESS, .exec = exec_target_variable,
};
