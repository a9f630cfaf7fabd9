/* cmd/cmd-trace.c: "thread trace start|stop|dump instructions|dump info"
 * and "process trace start|stop" (LLDB's trace commands). */
#include "cmd/trace-loss.h"
#include "cmd/builtin.h"
#include "cmd/cmd-trace.h"
#include "cmd/progress.h"
#include "cmd/report.h"
#include "core/session/session.h"
#include "core/session/size.h"
#include "core/tracing/trace_info.h"

#include <json-c/json.h>

#include <signal.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_SIZE (4u << 10)
#define DEFAULT_TOTAL_LIMIT ((size_t)500 << 20)

/* The backend (core/ chooses: dbg_trace_backend), the error said here. */
static int backend_ok(struct cmd_ctx *ctx, const struct cmd_args *a, int *backend)
{
	struct ptdb_err err;

	if (dbg_trace_backend(&ctx->s->dbg, cmd_opt(ctx->node, a, "backend"), backend, &err) < 0) {
		cmd_error(ctx, "%s", err.msg);
		return -1;
	}
	return 0;
}

/* A size the parser read (OPT_SIZE): 0 when not given, -1 after the error
 * when outside [1 byte, 4 GiB]. */
static int buffer_size(struct cmd_ctx *ctx, const struct cmd_args *a, const char *name, size_t *size)
{
	uint64_t x;

	if (!cmd_opt_num(ctx->node, a, name, &x))
		return 0;
	if (x == 0 || x > ((uint64_t)1 << 32)) {
		cmd_error(ctx, "invalid --%s '%s': between 1 byte and 4 GiB", name, cmd_opt(ctx->node, a, name));
		return -1;
	}
	*size = (size_t)x;
	return 0;
}

/* A buffer the machine cannot hold says so before tracing starts: more
 * than the memory available is an error (the traced program would be
 * killed with ptdb); more than half of it a warning (reading a trace
 * copies its buffer). */
static int fits_memory(struct cmd_ctx *ctx, const struct cmd_args *a, size_t size)
{
	const char *opt = cmd_opt_given(ctx->node, a, "buffer-size") ? "buffer-size" : "size";
	char s1[32], s2[32];
	uint64_t avail;

	if (mem_available(&avail) < 0 || (uint64_t)size <= avail / 2)
		return 0;
	size_format(size, s1, sizeof(s1));
	size_format(avail, s2, sizeof(s2));
	if ((uint64_t)size > avail) {
		cmd_error(ctx, "--%s %s is more than the memory this machine has available (%s, "
			  "MemAvailable in /proc/meminfo)", opt, s1, s2);
		return -1;
	}
	fprintf(ctx->err, "warning: --%s %s: reading the trace takes twice that (its buffer is "
		"copied), more than the %s this machine has available (MemAvailable in "
		"/proc/meminfo)\n", opt, s1, s2);
	return 0;
}

static int trace_opts(struct cmd_ctx *ctx, const struct cmd_args *a, struct dbg_trace_opts *o)
{
	struct ptdb_err err;
	const char *v;
	uint64_t x;

	memset(o, 0, sizeof(*o));
	if (backend_ok(ctx, a, &o->backend) < 0)
		return -1;
	o->size = DEFAULT_SIZE;
	o->total_limit = DEFAULT_TOTAL_LIMIT;
	/* --size: a bare number is KiB, as in LLDB's original command;
	 * --buffer-size (LLDB's spelling): bytes */
	if (buffer_size(ctx, a, "size", &o->size) < 0)
		return -1;
	if (cmd_opt_given(ctx->node, a, "buffer-size") && cmd_opt_given(ctx->node, a, "size")) {
		cmd_error(ctx, "--size and --buffer-size give the same size: use one");
		return -1;
	}
	if (buffer_size(ctx, a, "buffer-size", &o->size) < 0)
		return -1;
	if (fits_memory(ctx, a, o->size) < 0)
		return -1;
	if (cmd_opt_num(ctx->node, a, "total-size-limit", &x))
		o->total_limit = (size_t)x;
	if (cmd_opt_num(ctx->node, a, "psb-period", &x)) {
		/* intel-pt checks its own (powers of two the CPU offers) */
		if (x < dbg_trace_min_psb_period() && o->backend == DBG_BACKEND_SOFTWARE) {
			cmd_error(ctx, "invalid --psb-period '%s': at least %u bytes",
				  cmd_opt(ctx->node, a, "psb-period"), dbg_trace_min_psb_period());
			return -1;
		}
		o->psb_period = (size_t)x;
	}
	if ((v = cmd_opt(ctx->node, a, "perf-config"))) {
		if (uint_parse(v, &x, &err) < 0) {
			cmd_error(ctx, "invalid --perf-config: %s", err.msg);
			return -1;
		}
		if (o->backend != DBG_BACKEND_INTEL_PT) {
			cmd_error(ctx, "--perf-config goes with the intel-pt backend");
			return -1;
		}
		o->perf_config = x;
	}
	o->no_cgroup = cmd_opt_given(ctx->node, a, "disable-cgroup-filtering");
	o->tsc = cmd_opt_given(ctx->node, a, "tsc");
	o->single_step = !strcmp(settings_get(&ctx->s->settings, SETTING_TRACE_STEPPING), "single");
	o->engine = !strcmp(settings_get(&ctx->s->settings, SETTING_TRACE_ENGINE), "cache")
		    ? DBG_ENGINE_CACHE : DBG_ENGINE_PTRACE;
	return 0;
}

static enum cmd_status exec_thread_start(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_trace_opts o;
	struct ptdb_err err;
	pid_t *tids;
	int n, all;

	if (cmd_trace_need_live(ctx, 1) < 0 || trace_opts(ctx, a, &o) < 0 ||
	    cmd_thread_args(ctx, a, &tids, &n, &all) < 0)
		return CMD_ERROR;
	o.total_limit = 0;	/* thread tracing has no process-wide limit */
	if (dbg_trace_start(d, tids, n, all, 0, &o, &err) < 0) {
		free(tids);
		return cmd_error(ctx, "%s", err.msg);
	}
	/* the default buffer: a wrap gets one notice (trace-loss.c) */
	if (!cmd_opt_given(ctx->node, a, "size"))
		dbg_trace_want_loss_notice(d, tids, n, all);
	free(tids);
	return CMD_OK;
}

static enum cmd_status exec_process_start(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_trace_opts o;
	struct ptdb_err err;
	const char *v;
	int signo = 0;

	if (cmd_trace_need_live(ctx, 1) < 0 || trace_opts(ctx, a, &o) < 0)
		return CMD_ERROR;
	o.per_cpu = cmd_opt_given(ctx->node, a, "per-cpu-tracing");
	if (dbg_trace_is_process(d))
		return cmd_error(ctx, "Process currently traced. Stop process tracing first");
	if ((v = cmd_opt(ctx->node, a, "snapshot-on")) && (signo = cmd_parse_signal(v)) < 0)
		return cmd_error(ctx, "invalid signal '%s' for --snapshot-on", v);
	if (v && (signo == SIGKILL || signo == SIGSTOP || signo == SIGTRAP))
		return cmd_error(ctx, "--snapshot-on %s: ptdb cannot catch that signal", v);
	if (!v && cmd_opt(ctx->node, a, "snapshot-dir"))
		return cmd_error(ctx, "--snapshot-dir goes with --snapshot-on");
	if (dbg_trace_start(d, NULL, 0, 1, 1, &o, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	if (signo > 0) {
		struct session *s = ctx->s;

		s->snapshot_policy = d->sig[signo];
		s->snapshot_signo = signo;
		s->snapshot_count = 0;
		snprintf(s->snapshot_dir, sizeof(s->snapshot_dir), "%s",
			 cmd_opt(ctx->node, a, "snapshot-dir") ? cmd_opt(ctx->node, a, "snapshot-dir")
								: "ptdb-snapshots");
		/* it stops the process for the snapshot and is not delivered */
		d->sig[signo].stop = 1;
		d->sig[signo].pass = 0;
		d->sig[signo].notify = 1;
	}
	return CMD_OK;
}

static enum cmd_status exec_thread_stop(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;
	pid_t *tids;
	int n, all, r;

	if (cmd_trace_need_live(ctx, 0) < 0)
		return CMD_ERROR;
	if (!dbg_tracing(d))
		return cmd_error(ctx, "Process is not being traced");
	if (cmd_thread_args(ctx, a, &tids, &n, &all) < 0)
		return CMD_ERROR;
	r = dbg_trace_stop(d, tids, n, all, &err);
	free(tids);
	if (r < 0)
		return cmd_error(ctx, "%s", err.msg);
	return CMD_OK;
}

static enum cmd_status exec_process_stop(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;

	(void)a;
	if (cmd_trace_need_live(ctx, 0) < 0)
		return CMD_ERROR;
	if (!dbg_tracing(d))
		return cmd_error(ctx, "Process is not being traced");
	if (dbg_trace_stop(d, NULL, 0, 1, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	if (ctx->s->snapshot_signo) {
		d->sig[ctx->s->snapshot_signo] = ctx->s->snapshot_policy;
		ctx->s->snapshot_signo = 0;
	}
	return CMD_OK;
}

static enum cmd_status exec_process_state(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;
	char *text;

	if (cmd_trace_need_live(ctx, 1) < 0)
		return CMD_ERROR;
	if (!(text = dbg_trace_state(d, !cmd_opt_given(ctx->node, a, "json"), &err)))
		return cmd_error(ctx, "%s", err.msg);
	fprintf(ctx->out, "%s\n", text);
	free(text);
	return CMD_OK;
}

/* dump info -j: LLDB's layout (traceTechnology, threadStats) plus ptdb's
 * figures. */
static void info_json(struct cmd_ctx *ctx, pid_t tid, const struct trace_swc_thread *th,
		      struct trace_decoded *dec)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_trace_figures f;
	struct dbg_decoded_figures df;
	struct json_object *o = json_object_new_object(), *st = json_object_new_object();
	struct json_object *m = json_object_new_object(), *t = json_object_new_object();
	struct json_object *c = json_object_new_object();
	char b1[64];

	dbg_trace_figures(d, th, &f);
	dbg_decoded_figures(dec, &df);
	snprintf(b1, sizeof(b1), "%zu", df.mem);
	json_object_object_add(o, "traceTechnology", json_object_new_string(dbg_trace_technology(d)));
	json_object_object_add(st, "tid", json_object_new_int((int)tid));
	json_object_object_add(st, "threadIndex", json_object_new_int(cmd_trace_thread_index(d, tid)));
	json_object_object_add(st, "traceItemsCount", json_object_new_uint64(df.items));
	json_object_object_add(st, "instructions", json_object_new_uint64(df.insns));
	json_object_object_add(m, "totalInBytes", json_object_new_string(b1));
	json_object_object_add(m, "avgPerItemInBytes", df.items ? json_object_new_double((double)df.mem / (double)df.items) : NULL);
	json_object_object_add(m, "avgPerInstructionInBytes", df.insns ? json_object_new_double((double)df.mem / (double)df.insns) : NULL);
	json_object_object_add(m, "rawTraceSize", json_object_new_uint64(f.raw_size));
	json_object_object_add(m, "traceBufferSize", json_object_new_uint64(f.buffer_size));
	cmd_trace_loss_json(d, th, m);
	json_object_object_add(st, "memoryUsage", m);
	json_object_object_add(t, "Decoding instructions", json_object_new_double(f.dec_seconds));
	json_object_object_add(st, "timingInSeconds", t);
	cmd_trace_info_json(d, dec, st);
	json_object_object_add(st, "gaps", json_object_new_uint64(df.gaps));
	json_object_object_add(st, "stepping", json_object_new_string(
		dbg_trace_single_step(d) ? "single" : "block"));
	json_object_object_add(c, "traps", json_object_new_uint64(f.traps));
	json_object_object_add(c, "stateDependentTransfers", json_object_new_uint64(f.transfers));
	json_object_object_add(c, "computedTransfers", json_object_new_uint64(f.emulated));
	json_object_object_add(c, "engine", json_object_new_string(dbg_trace_engine(d)));
	json_object_object_add(st, "collector", c);
	json_object_object_add(o, "threadStats", st);
	fprintf(ctx->out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
			JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* dump info's per-CPU section: each CPU's buffer, the context switches. */
static void info_cpus(FILE *out, const struct trace_swc_thread *th, const struct dbg_trace_figures *f)
{
	struct dbg_trace_cpu_figures c;
	size_t records = 0;
	uint64_t lost = 0;
	char b1[64], b2[64];

	fprintf(out, "\n  Per-CPU tracing:\n");
	for (int i = 0; dbg_trace_cpu_figures(th, i, &c) == 0; i++) {
		fprintf(out, "    CPU %d trace buffer: %s, raw trace %s\n", c.id,
			size_format(c.buffer_size, b1, sizeof(b1)), size_format(c.raw_size, b2, sizeof(b2)));
		records += c.switch_records;
		lost += c.lost;
	}
	fprintf(out, "    Context switches: %zu records\n", records);
	if (lost)
		fprintf(out, "    Context switches lost: the ring overflowed %" PRIu64 " time%s "
			"between stops (the oldest switches of those periods are gone)\n",
			lost, lost == 1 ? "" : "s");
	fprintf(out, "    Continuous executions of this thread: %u (%u PSB blocks", f->executions,
		f->psbs);
	if (f->inexact)
		fprintf(out, ", %u starting between PSBs", f->inexact);
	if (f->cpu_changes)
		fprintf(out, ", %u CPU changes", f->cpu_changes);
	fprintf(out, ")\n");
}

/* dump info -v: the collector's state (intel-pt) or counters (software). */
static void info_collector(struct dbg *d, FILE *out, const struct dbg_trace_figures *f)
{
	if (!d->tr.pm && !strcmp(dbg_trace_technology(d), "intel-pt")) {
		/* the hardware counts nothing for ptdb: the perf event's state */
		fprintf(out, "\n  Collector:\n    perf_event_open intel_pt, %s\n",
			f->per_cpu ? "one event per online CPU" : "one event for this thread");
		fprintf(out, "    Bytes in the buffer at the last stop: %zu\n", f->pos);
		fprintf(out, "    Tracing: %s\n", f->tracing ? "yes" : "stopped");
		return;
	}
	fprintf(out, "\n  Collector:\n    Instructions recorded: %" PRIu64 "\n", f->insns);
	fprintf(out, "    State-dependent transfers: %" PRIu64 " (%" PRIu64 " computed, not run)\n",
		f->transfers, f->emulated);
	fprintf(out, "    Traps: %" PRIu64 " (%.2f per state-dependent transfer)\n", f->traps,
		f->transfers ? (double)f->traps / (double)f->transfers : 0.0);
	fprintf(out, "    Bytes written (padding included): %" PRIu64 "\n", f->written);
	cmd_trace_cache_info(d, out);
	fprintf(out, "    Tracing: %s\n", f->tracing ? "yes" : "stopped");
}

/* -v: how the decoded trace is held (ptdb's own section). */
static void info_index(FILE *out, const struct dbg_decoded_figures *df)
{
	fprintf(out, "\n  Decoded trace:\n");
	if (!df->chunks) {
		fprintf(out, "    Held whole in memory\n");
		return;
	}
	fprintf(out, "    Chunks: %" PRIu64 " (%" PRIu64 " decoded so far)\n", df->chunks,
		df->chunk_decodes);
	fprintf(out, "    Indexing pass: %d thread%s%s\n", df->index_threads,
		df->index_threads == 1 ? "" : "s",
		df->index_fell_back ? " (the parallel pass fell back to the serial one)" : "");
}

static void info_text(struct cmd_ctx *ctx, pid_t tid, const struct trace_swc_thread *th,
		      struct trace_decoded *dec, int verbose)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_trace_figures f;
	struct dbg_decoded_figures df;
	FILE *out = ctx->out;
	char b1[64], b2[64];

	dbg_trace_figures(d, th, &f);
	dbg_decoded_figures(dec, &df);
	fprintf(out, "thread #%d: tid = %d%s\n", cmd_trace_thread_index(d, tid), (int)tid,
		dbg_thread_exited(d, tid) ? " (exited)" : "");
	if (d->tr.pm)
		fprintf(out, "\n  Trace technology: intel-pt (loaded from %s)\n", d->tr.pm->json);
	else if (!strcmp(dbg_trace_technology(d), "intel-pt"))
		fprintf(out, "\n  Trace technology: intel-pt\n");
	else
		fprintf(out, "\n  Trace technology: software (Intel PT packets, %s)\n",
			dbg_trace_single_step(d) ? "single-stepped"
			: !strcmp(dbg_trace_engine(d), "cache") ? "cache engine" : "block stepping");
	fprintf(out, "\n  Total number of trace items: %" PRIu64 "\n", df.items);
	fprintf(out, "  Total number of instructions: %" PRIu64 "\n", df.insns);
	fprintf(out, "\n  Memory usage:\n");
	fprintf(out, "    Trace buffer size: %s\n", size_format(f.buffer_size, b1, sizeof(b1)));
	fprintf(out, "    Raw trace size: %s\n", size_format(f.raw_size, b2, sizeof(b2)));
	cmd_trace_loss_info(out, th);
	fprintf(out, "    Total approximate memory usage (excluding raw trace): %.2f KiB\n",
		(double)df.mem / 1024.0);
	if (df.items)
		fprintf(out, "    Average memory usage per item (excluding raw trace): %.2f bytes\n",
			(double)df.mem / (double)df.items);
	if (df.insns)
		fprintf(out, "    Average memory usage per instruction (excluding raw trace): %.2f bytes\n",
			(double)df.mem / (double)df.insns);
	if (f.per_cpu)
		info_cpus(out, th, &f);
	fprintf(out, "\n  Timing for this thread:\n    Decoding instructions: %.5fs\n", f.dec_seconds);
	cmd_trace_info_sections(d, dec, out);
	if (verbose) {
		info_collector(d, out, &f);
		info_index(out, &df);
	}
}

static enum cmd_status info_one(struct cmd_ctx *ctx, pid_t tid, int verbose, int json)
{
	struct dbg *d = &ctx->s->dbg;
	struct trace_swc_thread *th = dbg_trace_thread(d, tid);
	struct trace_decoded *dec;

	if (!th) {
		fprintf(ctx->out, "thread #%d: tid = %d, not traced\n", cmd_trace_thread_index(d, tid), (int)tid);
		return CMD_OK;
	}
	if (cmd_trace_decode(ctx, th, tid, &dec) < 0)
		return CMD_ERROR;
	if (json)
		info_json(ctx, tid, th, dec);
	else
		info_text(ctx, tid, th, dec, verbose);
	return CMD_OK;
}

static enum cmd_status exec_dump_info(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	pid_t *tids;
	int n;
	enum cmd_status st = CMD_OK;

	if (cmd_trace_thread_list(ctx, a, &tids, &n) < 0)
		return CMD_ERROR;
	cmd_busy_begin(&ctx->s->dbg);
	for (int i = 0; i < n && !cmd_interrupted(&ctx->s->dbg); i++)
		if (info_one(ctx, tids[i], cmd_opt_given(ctx->node, a, "verbose"),
			     cmd_opt_given(ctx->node, a, "json")) != CMD_OK)
			st = CMD_ERROR;
	cmd_busy_end(&ctx->s->dbg);
	free(tids);
	return st;
}

#define PSB_HELP "Bytes of trace between PSB synchronization points (software: at least 64; intel-pt: a power of two of at least 2 KiB that the CPU offers in caps/psb_periods)."
#define BACKEND_OPT { 0, "backend", OPT_ENUM, "name", "The trace backend: intel-pt (Intel PT hardware) or software (ptrace; the default without Intel PT)." }
static const struct cmd_choices backend_choices[] = {
	{ "backend", (const char *const[]){ "intel-pt", "software", NULL } },
	{ 0 } };

static const struct cmd_node *start_help(const struct session *s);
static const struct cmd_node thread_trace_start;

/* The same options with either backend; only the help's summary differs. */
static const struct cmd_opt thread_start_opts[] = {
	{ 's', "size", OPT_SIZE_KIB, "size", "Trace buffer size per thread (a bare number is KiB; rounded up to a power-of-two number of pages). Default 4 KiB." },
	{ 'c', "perf-config", OPT_STRING, "perf-config", "Raw perf_event_attr.config bits for intel-pt." },
	{ 't', "tsc", OPT_FLAG, NULL, "Add timestamps (TSC packets) to the trace." },
	{ 'p', "psb-period", OPT_SIZE, "bytes", PSB_HELP },
	BACKEND_OPT,
	{ 0 } };

static const struct cmd_node thread_trace_start_ipt = {
	.name = "start", .summary = "Start tracing one or more threads with intel-pt.",
	.syntax = "[<thread-index> <thread-index> ... | all] [<intel-pt-options>]",
	.details = "Without an index the selected thread is traced; 'all' traces every current and "
		"future thread.  Tracing a traced thread again restarts its trace.",
	.min_args = 0, .max_args = -1, .exec = exec_thread_start,
	.opts = thread_start_opts, .choices = backend_choices, .flags = CMD_NAMED_ERRORS,
};

static const struct cmd_node thread_trace_start = {
	.name = "start", .summary = "Start tracing one or more threads with software.",
	.help_for = start_help,
	.syntax = "[<thread-index> <thread-index> ... | all] [<software-options>]",
	.details = "Without an index the selected thread is traced; 'all' traces every current and "
		"future thread.  Tracing a traced thread again restarts its trace.",
	.min_args = 0, .max_args = -1, .exec = exec_thread_start,
	.opts = thread_start_opts, .choices = backend_choices, .flags = CMD_NAMED_ERRORS,
};

/* Before a process lives the backend (and so its options) is not known. */
static const struct cmd_node thread_trace_start_generic = {
	.name = "start", .summary = "Start tracing threads of the current process.",
	.syntax = "[<trace-options>]",
	.details = "The trace backend, and so the options, are chosen when a process runs: intel-pt "
		"with Intel PT hardware, software otherwise.  Launch a process and ask again for them.",
	.min_args = 0, .max_args = -1, .exec = exec_thread_start,
};

static const struct cmd_node *start_help(const struct session *s)
{
	if (!dbg_alive(&s->dbg))
		return &thread_trace_start_generic;
	/* LLDB names the plugin the options belong to: the default backend */
	return dbg_trace_pmu_present() ? &thread_trace_start_ipt : &thread_trace_start;
}

static const struct cmd_node thread_trace_stop = {
	.name = "stop", .summary = "Stop tracing one or more threads; their trace stays readable until the process runs again.",
	.syntax = "[<thread-index> ... | all]", .min_args = 0, .max_args = -1, .exec = exec_thread_stop,
};

/* As LLDB: an empty line goes on from where the dump stopped, the other
 * options of the line kept (-c 3 shows the next 3). */
static const char *dump_repeat(const char *line, char *buf, size_t n)
{
	char **w;
	const char *msg;
	int nw = cmd_split(line, &w, &msg), cont = 0;

	for (int i = 0; i < nw; i++)
		if (!strcmp(w[i], "-C") || !strcmp(w[i], "--continue"))
			cont = 1;
	if (nw >= 0)
		cmd_argv_free(w);
	if (cont)
		return line;
	snprintf(buf, n, "%s -C", line);
	return buf;
}

static const struct cmd_node thread_trace_dump_instructions = {
	.repeat = dump_repeat,
	.name = "instructions", .summary = "Dump the traced instructions of one or more threads.",
	.syntax = "[<thread-index> ...]",
	.details = "By default the most recent 20 instructions, oldest first.",
	.min_args = 0, .max_args = -1, .exec = cmd_trace_dump_instructions,
	.opts = (const struct cmd_opt[]){
		{ 'c', "count", OPT_STRING, "count", "How many instructions to show (default 20)." },
		{ 's', "skip", OPT_STRING, "skip", "How many instructions to skip from the end (from the start with -f)." },
		{ 'i', "id", OPT_STRING, "id", "Start at the instruction with this index." },
		{ 'f', "forwards", OPT_FLAG, NULL, "Show from the oldest instruction onwards." },
		{ 'a', "all", OPT_FLAG, NULL, "Show every instruction." },
		{ 'r', "raw", OPT_FLAG, NULL, "Ids and addresses only: no symbol context lines, no disassembly." },
		{ 'e', "events", OPT_FLAG, NULL, "Show the trace events among the instructions (software/hardware disabled tracing, HW clock tick, trace synchronization point, CPU core changed)." },
		{ 'E', "only-events", OPT_FLAG, NULL, "Show only the events and errors; --count and --skip count events." },
		{ 't', "time", OPT_FLAG, NULL, "Show each item's time in nanoseconds since tracing started (traced with --tsc)." },
		{ 'k', "kind", OPT_FLAG, NULL, "Show the control-flow kind of each instruction." },
		{ 'C', "continue", OPT_FLAG, NULL, "Go on from where the previous dump of the thread stopped." },
		{ 0, "from", OPT_STRING, "id", "Show from the instruction with this id (with --to: up to it; else --count of them)." },
		{ 0, "to", OPT_STRING, "id", "Show up to the instruction with this id." },
		{ 'm', "source", OPT_FLAG, NULL, "Show each new source line among the instructions." },
		{ 'j', "json", OPT_FLAG, NULL, "Print the instructions as JSON." },
		{ 'J', "pretty-json", OPT_FLAG, NULL, "Print the instructions as indented JSON." },
		{ 'F', "file", OPT_STRING, "file", "Write the dump to a file instead." },
		{ 0 } },
};

static const struct cmd_node thread_trace_dump_info = {
	.name = "info", .summary = "Show the trace of one or more threads in figures: size, instructions, memory, errors.",
	.syntax = "[<thread-index> ... | all]", .min_args = 0, .max_args = -1, .exec = exec_dump_info,
	.opts = (const struct cmd_opt[]){
		{ 'v', "verbose", OPT_FLAG, NULL, "Also the collector's counters." },
		{ 'j', "json", OPT_FLAG, NULL, "Print the figures as JSON." },
		{ 0 } },
};

static const struct cmd_node thread_trace_dump = {
	.name = "dump", .summary = "Commands for showing the trace of threads.",
	.children = (const struct cmd_node *const[]){
		&cmd_thread_trace_dump_function_calls_node, &thread_trace_dump_info,
		&thread_trace_dump_instructions, NULL },
};

const struct cmd_node cmd_thread_trace_node = {
	.name = "trace", .summary = "Commands for tracing the instructions threads execute.",
	.children = (const struct cmd_node *const[]){
		&thread_trace_dump, &cmd_thread_trace_export_node, &cmd_thread_trace_goto_node,
		&thread_trace_start, &thread_trace_stop, NULL },
};

static const struct cmd_node process_trace_start = {
	.name = "start", .summary = "Start tracing every current and future thread of the process.",
	.syntax = "",
	.details = "Each thread gets its own buffer; when a new thread's buffer would exceed the "
		"total limit, the process stops.",
	.min_args = 0, .max_args = 0, .exec = exec_process_start,
	.choices = backend_choices, .flags = CMD_NAMED_ERRORS,
	.opts = (const struct cmd_opt[]){
		{ 's', "size", OPT_SIZE_KIB, "size", "Trace buffer size per thread (a bare number is KiB). Default 4 KiB." },
		{ 0, "buffer-size", OPT_SIZE, "size", "LLDB's spelling of --size: per thread, or per CPU with --per-cpu-tracing (a bare number is bytes)." },
		{ 'l', "total-size-limit", OPT_SIZE, "size", "Limit of all the threads' buffers together (a bare number is bytes). Default 500 MiB." },
		{ 't', "tsc", OPT_FLAG, NULL, "Add timestamps (TSC packets) to the trace." },
		{ 'p', "psb-period", OPT_SIZE, "bytes", PSB_HELP },
		{ 'c', "perf-config", OPT_STRING, "perf-config", "Raw perf_event_attr.config bits for intel-pt." },
		{ 'd', "disable-cgroup-filtering", OPT_FLAG, NULL, "intel-pt per CPU: trace every task on the CPUs, not only the process's cgroup." },
		{ 0, "snapshot-on", OPT_STRING, "signal", "When the process gets this signal (e.g. SIGUSR2), save the trace as a bundle and continue (the signal is not delivered)." },
		{ 0, "snapshot-dir", OPT_STRING, "directory", "Where --snapshot-on saves: <directory>/snapshot-N (default ptdb-snapshots)." },
		{ 0, "per-cpu-tracing", OPT_FLAG, NULL, "Trace each CPU instead of each thread, with context-switch records (TSC on; intel-pt: every online CPU, paused while the process is stopped; the software backend emulates one CPU)." },
		BACKEND_OPT,
		{ 0 } },
};

static const struct cmd_node process_trace_stop = {
	.name = "stop", .summary = "Stop tracing the process and all its threads.",
	.syntax = "", .min_args = 0, .max_args = 0, .exec = exec_process_stop,
};

static const struct cmd_node process_trace_state = {
	.name = "state", .summary = "Show what is traced as LLDB's jLLDBTraceGetState response (JSON).",
	.syntax = "",
	.details = "The traced threads and CPUs and the bytes of each of their buffers (iptTrace, "
		"perfContextSwitchTrace) and of /proc/cpuinfo (procfsCpuInfo) that can be read now, "
		"the TSC conversion and, per CPU on intel-pt, whether cgroup filtering is on.",
	.min_args = 0, .max_args = 0, .exec = exec_process_state,
	.opts = (const struct cmd_opt[]){
		{ 'j', "json", OPT_FLAG, NULL, "One line of JSON instead of indented JSON." },
		{ 0 } },
};

const struct cmd_node cmd_process_trace_node = {
	.name = "trace", .summary = "Commands for tracing every thread of the process.",
	.children = (const struct cmd_node *const[]){ &process_trace_start, &process_trace_stop,
						      &process_trace_state, NULL },
};
