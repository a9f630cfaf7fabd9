/* cmd/cmd-bundle.c: "trace save|load|schema": trace bundles (LLDB's layout
 * and schema) written from a session and loaded into a post-mortem one. */
#include "cmd/builtin.h"
#include "cmd/trace-loss.h"
#include "core/tracing/bundle.h"
#include "core/session/session.h"
#include "core/tracing/trace_info.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>

static enum cmd_status exec_save(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;
	char json[PATH_MAX];

	if (!d->tr.pm && !dbg_alive(d) && !dbg_trace_kept(d))
		return cmd_error(ctx, d->proc ? "Process must be launched."
				      : d->exe_path ? "Command requires a current process."
						    : "invalid target, create a target using the 'file' command");
	if (dbg_save_bundle(d, a->argv[0], cmd_opt_given(ctx->node, a, "compact"),
			    cmd_opt_given(ctx->node, a, "force"), json, sizeof(json), &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	fprintf(ctx->out, "Trace bundle description file written to: %s\n", json);
	return CMD_OK;
}

static enum cmd_status exec_load(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;
	struct bundle *b;
	int verbose = cmd_opt_given(ctx->node, a, "verbose"), traced = 0;
	int outside = cmd_opt_given(ctx->node, a, "allow-outside") ||
		      settings_get_bool(&ctx->s->settings, SETTING_BUNDLE_OUTSIDE);

	if (dbg_load_bundle(d, a->argv[0], outside, &b, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	/* what was read outside the bundle, allowed: said every time */
	for (int i = 0; i < b->noutside; i++)
		fprintf(ctx->err, "warning: %s:%s (outside the bundle's directory)\n", b->json, b->outside[i]);
	for (int i = 0; i < d->tr.pm->nth; i++)
		traced += d->tr.pm->th[i].th != NULL;
	fprintf(ctx->out, "Loaded the trace of process %d: %d thread%s (%d traced), %d module%s.\n",
		(int)d->pid, d->tr.pm->nth, d->tr.pm->nth == 1 ? "" : "s", traced, d->nmods,
		d->nmods == 1 ? "" : "s");
	if (d->tr.pm->nproc > 1)
		fprintf(ctx->out, "The bundle holds %d processes: this is target #0 of them "
			"('target list', 'target select <index>').\n", d->tr.pm->nproc);
	for (int i = 0; i < d->tr.pm->nth; i++)	/* as the live trace said */
		if (d->tr.pm->th[i].th)
			cmd_trace_loss_loaded(ctx->out, d->tr.pm->th[i].index, d->tr.pm->th[i].th);
	if (verbose) {
		const struct bundle_process *p = &b->procs[d->tr.pm->proc];

		fprintf(ctx->out, "Bundle: %s\n", b->json);
		fprintf(ctx->out, "CPU: %s, family %" PRIu64 ", model %" PRIu64 ", stepping %" PRIu64 "\n", b->vendor, b->family,
			b->model, b->stepping);
		for (int i = 0; i < p->nthreads; i++) {
			struct trace_swc_thread *th = d->tr.pm->th[i].th;
			struct dbg_trace_figures f;

			if (th) {
				dbg_trace_figures(d, th, &f);
				fprintf(ctx->out, "  thread #%d: tid = %d, trace %s (%zu bytes)\n", i + 1,
					(int)p->threads[i].tid, p->threads[i].trace, f.pos);
			} else
				fprintf(ctx->out, "  thread #%d: tid = %d, no trace\n", i + 1,
					(int)p->threads[i].tid);
		}
		for (int i = 0; i < p->nmods; i++)
			fprintf(ctx->out, "  module %s at 0x%016llx%s%s, file %s\n", p->mods[i].system_path,
				(unsigned long long)p->mods[i].load_addr, p->mods[i].uuid ? ", uuid " : "",
				p->mods[i].uuid ? p->mods[i].uuid : "", p->mods[i].file);
		if (b->tsc.valid)
			fprintf(ctx->out, "TSC conversion: timeMult %u, timeShift %u, timeZero %llu\n",
				b->tsc.mult, b->tsc.shift, (unsigned long long)b->tsc.zero);
		for (int i = 0; i < b->nabsolute; i++)
			fprintf(ctx->out, "Absolute path: %s\n", b->absolute[i]);
	}
	bundle_free(b);
	return CMD_OK;
}

static enum cmd_status exec_schema(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	if (strcmp(a->argv[0], "intel-pt") && strcmp(a->argv[0], "all"))
		return cmd_error(ctx, "no trace plug-in matches the specified type: \"%s\"", a->argv[0]);
	fputs(bundle_schema_text, ctx->out);
	return CMD_OK;
}

static const struct cmd_node trace_save = {
	.name = "save", .summary = "Save the traces of the session as a trace bundle.",
	.syntax = "<directory>",
	.details = "Writes trace.json (the intel-pt trace bundle schema, see 'trace schema intel-pt'), "
		"each thread's raw Intel PT buffer as threads/<tid>.intelpt_trace and a copy of every "
		"module under modules/ (the vDSO and anonymous executable memory are copied out of the "
		"process).  The bundle loads with 'trace load' here or on another machine.",
	.min_args = 1, .max_args = 1, .exec = exec_save,
	.opts = (const struct cmd_opt[]){
		{ 'c', "compact", OPT_FLAG, NULL, "Keep only the threads with traced instructions and the modules their traces ran in." },
		{ 0, "force", OPT_FLAG, NULL, "Write into a directory that is not empty (files of the same name are replaced)." },
		{ 0 } },
};

static const struct cmd_node trace_load = {
	.name = "load", .summary = "Load a trace bundle as a post-mortem target.",
	.syntax = "<directory | trace.json>",
	.details = "The bundle's process, threads and modules replace the current target; "
		"'thread list', 'image list', 'image lookup', 'disassemble' and 'thread trace dump' "
		"work as for a live process.  Paths in trace.json are relative to its directory; "
		"a file the bundle names outside that directory (an absolute path, .., a symlink) "
		"is refused unless --allow-outside (or the setting trace.load-outside-files) allows it, "
		"and then named in a warning.",
	.min_args = 1, .max_args = 1, .exec = exec_load,
	.opts = (const struct cmd_opt[]){
		{ 'v', "verbose", OPT_FLAG, NULL, "Show what was loaded: threads, traces, modules, absolute paths." },
		{ 0, "allow-outside", OPT_FLAG, NULL, "Read the files the bundle names outside its directory (each is named in a warning)." },
		{ 0 } },
};

static const struct cmd_node trace_schema = {
	.name = "schema", .summary = "Show the schema of trace bundle descriptions.",
	.syntax = "<plug-in>",
	.details = "The plug-in is intel-pt (or all).",
	.min_args = 1, .max_args = 1, .exec = exec_schema,
};

const struct cmd_node cmd_trace_node = {
	.name = "trace", .summary = "Commands for saving, loading and describing trace bundles.",
	.children = (const struct cmd_node *const[]){ &trace_load, &trace_save, &trace_schema, NULL },
};
