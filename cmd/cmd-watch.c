/* cmd/cmd-watch.c: "watchpoint set variable|expression", "watchpoint
 * list|delete|enable|disable|modify", in LLDB's words. */
#include "cmd/builtin.h"
#include "cmd/report.h"
#include "core/data/expr.h"
#include "core/session/session.h"
#include "core/data/value.h"
#include "core/session/watch.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void print_wp(struct cmd_ctx *ctx, struct dbg_watchpoint *w, int brief)
{
	struct dbg *d = &ctx->s->dbg;
	char val[256];

	fprintf(ctx->out, "Watchpoint %u: addr = 0x%08" PRIx64 " size = %u state = %s type = %s\n",
		w->id, w->addr, w->size,
		w->enabled ? "enabled" : "disabled",
		w->access == DBG_WATCH_READ ? "r" : w->access == DBG_WATCH_WRITE ? "w" : "rw");
	if (brief)
		return;
	if (w->decl)
		fprintf(ctx->out, "    declare @ '%s'\n", w->decl);
	if (w->spec) {
		fprintf(ctx->out, "    watchpoint spec = '%s'\n", w->spec);
	}
	dbg_watch_format(d, w, w->now, val, sizeof(val));
	fprintf(ctx->out, "    new value: %s\n", val);
	if (w->cond)
		fprintf(ctx->out, "    condition = '%s'\n", w->cond);
}

static int parse_access(struct cmd_ctx *ctx, const struct cmd_args *a, int *acc)
{
	const char *s = cmd_opt(ctx->node, a, "watch");

	*acc = DBG_WATCH_WRITE;
	if (!s || !strcmp(s, "write"))
		return 0;
	if (!strcmp(s, "read"))
		*acc = DBG_WATCH_READ;
	else if (!strcmp(s, "read_write"))
		*acc = DBG_WATCH_READ | DBG_WATCH_WRITE;
	else {
		cmd_error(ctx, "invalid watch type '%s' (write, read or read_write)", s);
		return -1;
	}
	return 0;
}

static int parse_size(struct cmd_ctx *ctx, const struct cmd_args *a, unsigned *size)
{
	const char *s = cmd_opt(ctx->node, a, "size");
	char *end;
	unsigned long v;

	if (!s)
		return 0;
	v = strtoul(s, &end, 0);
	if (!*s || *end || !isdigit((unsigned char)*s) || v > 64) {
		cmd_error(ctx, "invalid watch size '%s' (1, 2, 4 or 8)", s);
		return -1;
	}
	*size = (unsigned)v;
	return 0;
}

static enum cmd_status created(struct cmd_ctx *ctx, uint64_t addr, unsigned size, int acc,
			       const char *spec, const struct sym_type *t, const char *decl)
{
	struct ptdb_err err;
	struct dbg_watchpoint *w;

	if (dbg_tracing(&ctx->s->dbg))
		return cmd_error(ctx, "watchpoints cannot be checked in a process that has a trace "
				 "(thread trace start): the trace runs it");
	w = dbg_watch_add(&ctx->s->dbg, addr, size, acc, spec, t, decl, &err);
	if (!w)
		return cmd_error(ctx, "%s", err.msg);
	fprintf(ctx->out, "Watchpoint created: ");
	print_wp(ctx, w, 0);
	if (!strcmp(dbg_watch_method(&ctx->s->dbg), "software (single-step)"))
		fprintf(ctx->out, "Note: watchpoints are checked by single-stepping here (%s): "
			"a run is thousands of times slower, its progress shown on the terminal; "
			"Ctrl-C stops it.\n", ctx->s->dbg.no_hw_watch ?
			"target.hardware-watchpoints is false" :
			"this machine delivers no debug-register traps");
	else if (!strncmp(dbg_watch_method(&ctx->s->dbg), "software", 8))
		fprintf(ctx->out, "Note: watchpoints are checked in software here (%s): the process runs "
			"out of a code cache that checks its memory accesses, a few times slower; "
			"Ctrl-C stops it.\n", ctx->s->dbg.no_hw_watch ?
			"target.hardware-watchpoints is false" :
			"this machine delivers no debug-register traps");
	return CMD_OK;
}

/* "file:line:col" where the variable a path starts from is declared, as
 * lldb-16 shows it under the watchpoint; "" if unknown */
static int decl_in(const struct sym_var *v, int nv, const char *spec, char *out, size_t n)
{
	/* the innermost of that name: the last one in scope */
	for (int i = nv - 1; i >= 0; i--) {
		if (strcmp(v[i].name, spec))
			continue;
		if (v[i].decl_file && v[i].decl_line)
			snprintf(out, n, "%s:%u:%u", v[i].decl_file, v[i].decl_line, v[i].decl_col);
		return 1;
	}
	return 0;
}

static void declared_at(const struct frame_ctx *fc, const char *path, char *out, size_t n)
{
	struct sym_var *g = NULL;
	const char *cu;
	char spec[256];
	size_t k = 0;
	int ng;

	out[0] = 0;
	/* a path's root variable: "bytes" of "bytes[3]", "p" of "*p->next" */
	while (*path == '*' || isspace((unsigned char)*path))
		path++;
	while ((isalnum((unsigned char)path[k]) || path[k] == '_') && k < sizeof(spec) - 1) {
		spec[k] = path[k];
		k++;
	}
	spec[k] = 0;
	if (!k)
		return;
	if (decl_in(fc->vars, fc->nvars, spec, out, n) || !fc->mod || !fc->mod->sym)
		return;
	/* a global or a static of the frame's unit */
	ng = sym_global_vars(fc->mod->sym, fc->look, &cu, &g, NULL);
	if (ng <= 0)
		return;
	decl_in(g, ng, spec, out, n);
	sym_vars_free(g, ng);
}

static enum cmd_status exec_set_variable(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct frame_ctx fc;
	struct ptdb_err err;
	struct value v;
	char decl[4200];
	unsigned size = 0;
	int acc, r;

	if (parse_access(ctx, a, &acc) < 0 || parse_size(ctx, a, &size) < 0)
		return CMD_ERROR;
	if (frame_ctx_open(d, d->sel_tid, d->sel_frame, &fc, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	r = frame_path_value(&fc, a->argv[0], &v, &err);
	declared_at(&fc, a->argv[0], decl, sizeof(decl));
	frame_ctx_close(&fc);
	if (r < 0)
		return cmd_error(ctx, "%s", err.msg);
	if (!v.in_mem) {
		value_release(&v);
		return cmd_error(ctx, "'%s' is not in memory (a register or a constant) and "
				 "cannot be watched", a->argv[0]);
	}
	{
		uint64_t addr = v.addr;
		const struct sym_type *t = v.type;
		unsigned n = size ? size : (unsigned)v.size;

		value_release(&v);
		return created(ctx, addr, n, acc, a->argv[0], size ? NULL : t, decl[0] ? decl : NULL);
	}
}

static enum cmd_status exec_set_expression(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct frame_ctx fc;
	struct ptdb_err err;
	struct value v;
	char text[1024] = "";
	uint64_t addr = 0;
	unsigned size = 8;
	int acc, r;

	if (parse_access(ctx, a, &acc) < 0 || parse_size(ctx, a, &size) < 0)
		return CMD_ERROR;
	for (int i = 0; i < a->argc; i++) {
		if (i)
			strncat(text, " ", sizeof(text) - strlen(text) - 1);
		strncat(text, a->argv[i], sizeof(text) - strlen(text) - 1);
	}
	if (frame_ctx_open(d, d->sel_tid, d->sel_frame, &fc, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	r = expr_eval(&fc, &d->results, text, &v, &err);
	frame_ctx_close(&fc);
	if (r < 0)
		return cmd_error(ctx, "%s", err.msg);
	if (v.status != VAL_OK || !v.size) {
		value_release(&v);
		return cmd_error(ctx, "expression '%s' has no address value", text);
	}
	memcpy(&addr, v.bytes, v.size < 8 ? v.size : 8);
	value_release(&v);
	return created(ctx, addr, size, acc, NULL, NULL, NULL);
}

static enum cmd_status exec_list(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	int n, brief = cmd_opt_given(ctx->node, a, "brief");
	struct dbg_watchpoint *w = dbg_watch_all(d, &n);

	if (!n) {
		fprintf(ctx->out, "No watchpoints currently set.\n");
		return CMD_OK;
	}
	fprintf(ctx->out, "Number of supported hardware watchpoints: %d\n", DBG_WATCH_MAX);
	if (dbg_tracing(d)) {
		fprintf(ctx->out, "Watchpoints are checked by: nothing: the process has a trace\n");
	} else if (!strcmp(dbg_watch_method(d), "software (code cache)")) {
		uint64_t traps, entries;

		dbg_watch_cache_counts(d, &traps, &entries);
		fprintf(ctx->out, "Watchpoints are checked by: software (code cache: %" PRIu64 " entries, %"
			PRIu64 " checks trapped)\n", entries, traps);
	} else if (strcmp(dbg_watch_method(d), "hardware")) {
		/* hardware: as lldb-16, which says nothing more */
		fprintf(ctx->out, "Watchpoints are checked by: %s\n", dbg_watch_method(d));
	}
	fprintf(ctx->out, "Current watchpoints:\n");
	for (int i = 0; i < n; i++)
		print_wp(ctx, &w[i], brief);
	return CMD_OK;
}

/* The watchpoints named by ids (none: every one) into out; -1 on a bad id. */
static int pick(struct cmd_ctx *ctx, const struct cmd_args *a, unsigned *out, int *n)
{
	struct dbg *d = &ctx->s->dbg;
	int all;
	struct dbg_watchpoint *w = dbg_watch_all(d, &all);

	*n = 0;
	if (!all) {
		const char *v = ctx->node->name;

		cmd_error(ctx, "No watchpoints exist to be %s.", !strcmp(v, "delete") ? "deleted" :
			  !strcmp(v, "enable") ? "enabled" : !strcmp(v, "disable") ? "disabled" :
			  "modified");
		return -1;
	}
	if (!a->argc) {
		for (int i = 0; i < all; i++)
			out[(*n)++] = w[i].id;
		return 0;
	}
	for (int i = 0; i < a->argc && *n < 64; i++) {
		char *end;
		unsigned long id = strtoul(a->argv[i], &end, 10);

		if (!isdigit((unsigned char)a->argv[i][0]) || *end || !dbg_watch_find(d, (unsigned)id)) {
			cmd_error(ctx, "invalid watchpoint ID '%s'", a->argv[i]);
			return -1;
		}
		out[(*n)++] = (unsigned)id;
	}
	return 0;
}

static enum cmd_status exec_delete(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	unsigned ids[64];
	int n;

	if (pick(ctx, a, ids, &n) < 0)
		return CMD_ERROR;
	for (int i = 0; i < n; i++)
		dbg_watch_delete(&ctx->s->dbg, ids[i]);
	if (!a->argc)
		fprintf(ctx->out, "All watchpoints removed. (%d watchpoints)\n", n);
	else
		fprintf(ctx->out, "%d watchpoints deleted.\n", n);
	return CMD_OK;
}

static enum cmd_status enable_common(struct cmd_ctx *ctx, const struct cmd_args *a, int on)
{
	unsigned ids[64];
	struct ptdb_err err;
	int n;

	if (pick(ctx, a, ids, &n) < 0)
		return CMD_ERROR;
	for (int i = 0; i < n; i++)
		if (dbg_watch_enable(&ctx->s->dbg, dbg_watch_find(&ctx->s->dbg, ids[i]), on, &err) < 0)
			return cmd_error(ctx, "%s", err.msg);
	fprintf(ctx->out, "%d watchpoints %s.\n", n, on ? "enabled" : "disabled");
	return CMD_OK;
}

static enum cmd_status exec_enable(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	return enable_common(ctx, a, 1);
}

static enum cmd_status exec_disable(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	return enable_common(ctx, a, 0);
}

static enum cmd_status exec_modify(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	const char *c = cmd_opt(ctx->node, a, "condition");
	unsigned ids[64];
	int n;

	if (pick(ctx, a, ids, &n) < 0)
		return CMD_ERROR;
	for (int i = 0; i < n; i++)
		dbg_watch_set_condition(dbg_watch_find(&ctx->s->dbg, ids[i]), c);
	fprintf(ctx->out, "%d watchpoints modified.\n", n);
	return CMD_OK;
}

#define WATCH_SET_OPTS \
	{ 'w', "watch", OPT_STRING, "watch-type", "What stops: write (the default), read or read_write." }, \
	{ 's', "size", OPT_STRING, "byte-size", "Bytes watched: 1, 2, 4 or 8 (aligned to it)." }, \
	{ 0 }

static const struct cmd_node set_variable = {
	.name = "variable", .summary = "Set a watchpoint on a variable of the selected frame (or a global).",
	.syntax = "<variable-name>",
	.opts = (const struct cmd_opt[]){ WATCH_SET_OPTS }, .min_args = 1, .max_args = 1,
	.needs = CMD_NEEDS_PROCESS, .exec = exec_set_variable,
};

static const struct cmd_node set_expression = {
	.name = "expression", .summary = "Set a watchpoint on the address an expression evaluates to.",
	.syntax = "-- <expr>",
	.details = "The size is 8 bytes unless -s gives it.",
	.opts = (const struct cmd_opt[]){ WATCH_SET_OPTS }, .min_args = 1, .max_args = -1,
	.needs = CMD_NEEDS_PROCESS, .exec = exec_set_expression,
};

static const struct cmd_node watch_set = {
	.name = "set", .summary = "Set a watchpoint.",
	.children = (const struct cmd_node *const[]){ &set_expression, &set_variable, NULL },
};

static const struct cmd_node watch_list = {
	.name = "list", .summary = "List the watchpoints and how they are checked.",
	.min_args = 0, .max_args = 0, .exec = exec_list,
	.opts = (const struct cmd_opt[]){
		{ 'b', "brief", OPT_FLAG, NULL, "One line per watchpoint." }, { 0 } },
};

static const struct cmd_node watch_delete = {
	.name = "delete", .summary = "Delete the watchpoints given (all when none is).",
	.syntax = "[<watchpoint-id> ...]", .min_args = 0, .max_args = -1, .exec = exec_delete,
};

static const struct cmd_node watch_enable = {
	.name = "enable", .summary = "Enable the watchpoints given (all when none is).",
	.syntax = "[<watchpoint-id> ...]", .min_args = 0, .max_args = -1, .exec = exec_enable,
};

static const struct cmd_node watch_disable = {
	.name = "disable", .summary = "Disable the watchpoints given (all when none is).",
	.syntax = "[<watchpoint-id> ...]", .min_args = 0, .max_args = -1, .exec = exec_disable,
};

static const struct cmd_node watch_modify = {
	.name = "modify", .summary = "Set the condition of the watchpoints given (all when none is).",
	.syntax = "[<watchpoint-id> ...]", .min_args = 0, .max_args = -1,
	.exec = exec_modify,
	.details = "A hit stops only when the condition is true in the stopping thread's frame; "
		   "-c \"\" (or no -c) removes it.",
	.opts = (const struct cmd_opt[]){
		{ 'c', "condition", OPT_STRING, "expr", "Stop only when the expression is true." },
		{ 0 } },
};

const struct cmd_node cmd_watchpoint_node = {
	.name = "watchpoint", .summary = "Commands for operating on watchpoints.",
	.details = "Up to four watchpoints, as the x86 debug registers allow.  Where this machine "
		   "does not deliver debug-register traps (probed once), they are checked in "
		   "software: the process runs one instruction at a time, which is exact but slow.",
	.children = (const struct cmd_node *const[]){ &watch_delete, &watch_disable, &watch_enable,
		&watch_list, &watch_modify, &watch_set, NULL },
};
