/* cmd/cmd-target.c: "target list" and "target select": the session's one
 * target, or the processes of a loaded trace bundle, each a target as LLDB
 * makes them (one is loaded at a time). */
#include "cmd/builtin.h"
#include "core/tracing/bundle.h"
#include "core/session/session.h"

#include <stdlib.h>
#include <string.h>

#define TRIPLE "x86_64-*-linux"

static void list(struct cmd_ctx *ctx)
{
	struct dbg *d = &ctx->s->dbg;

	if (d->tr.pm) {
		fprintf(ctx->out, "Current targets:\n");
		for (int i = 0; i < d->tr.pm->nproc; i++) {
			const struct dbg_pm_proc *p = &d->tr.pm->procs[i];

			fprintf(ctx->out, "%c target #%d: %s ( arch=%s, platform=host, pid=%d, state=stopped )\n",
				i == d->tr.pm->proc ? '*' : ' ', i, p->exe ? p->exe : "(none)",
				p->triple ? p->triple : TRIPLE, (int)p->pid);
		}
		return;
	}
	if (!d->exe_path) {
		fprintf(ctx->out, "No targets.\n");
		return;
	}
	fprintf(ctx->out, "Current targets:\n* target #0: %s ( arch=%s, platform=host", d->exe_path, TRIPLE);
	if (d->proc)
		fprintf(ctx->out, ", pid=%d, state=%s", (int)d->pid, dbg_alive(d) ? "stopped" : "exited");
	fprintf(ctx->out, " )\n");
}

static enum cmd_status exec_list(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	list(ctx);
	return CMD_OK;
}

static enum cmd_status exec_select(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *w = a->argv[0];
	struct ptdb_err err;
	struct bundle *b;
	char *end, *json;
	long idx = strtol(w, &end, 10);
	int n = d->tr.pm ? d->tr.pm->nproc : d->exe_path ? 1 : 0;

	if (!*w || *end)
		return cmd_error(ctx, "invalid index string value '%s'", w);
	if (!n)
		return cmd_error(ctx, "index %ld is out of range since there are no active targets", idx);
	if (idx < 0 || idx >= n)
		return cmd_error(ctx, "index %ld is out of range, valid target indexes are 0 - %d", idx, n - 1);
	if (d->tr.pm && idx != d->tr.pm->proc) {
		/* the bundle again, with that process (the current one stays
		 * loaded if it cannot be) */
		json = xstrdup(d->tr.pm->json);
		if (dbg_load_bundle_process(d, json, (int)idx, d->tr.pm->allow_outside, &b, &err) < 0) {
			free(json);
			return cmd_error(ctx, "%s", err.msg);
		}
		free(json);
		bundle_free(b);
	}
	list(ctx);
	return CMD_OK;
}

static const struct cmd_node target_list = {
	.name = "list", .summary = "List the targets: the program, or each process of a loaded trace bundle.",
	.syntax = "", .min_args = 0, .max_args = 0, .exec = exec_list,
};

static const struct cmd_node target_select = {
	.name = "select", .summary = "Select a target by index; for a loaded trace bundle, load that process's trace.",
	.syntax = "<target-index>", .min_args = 1, .max_args = 1, .exec = exec_select,
};

const struct cmd_node cmd_target_node = {
	.name = "target", .summary = "Commands for the debugger's targets.",
	.children = (const struct cmd_node *const[]){ &cmd_target_variable_node, &target_list,
						      &target_select, &cmd_target_modules_node,
						      NULL },
};
