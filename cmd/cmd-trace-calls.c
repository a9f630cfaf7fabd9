/* cmd/cmd-trace-calls.c: "thread trace dump function-calls" (the call tree
 * of each thread's trace, LLDB's layout, or JSON) and "thread trace export
 * ctf" (the same segments as Chrome Trace Event Format complete events, for
 * Perfetto).  The tree itself comes from trace/calls. */
#include "cmd/builtin.h"
#include "cmd/cmd-trace.h"
#include "cmd/outfile.h"
#include "core/tracing/calls.h"
#include "core/session/session.h"
#include "core/tracing/trace_info.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The call tree of tid's trace (release with dbg_calls_release).
 * 1: built; 0: the thread is not traced; -1 after printing the error. */
static int calls_of(struct cmd_ctx *ctx, pid_t tid, int extents, struct dbg_calls *c)
{
	struct ptdb_err err;
	int r = dbg_trace_calls(&ctx->s->dbg, tid, extents, c, &err);

	if (r < 0)
		cmd_error(ctx, "%s", err.msg);
	return r;
}

/* n spaces: the indentation of a call tree n/2 levels deep.  Its width
 * is the depth's (LLDB's layout), so a chain of d calls prints d * d
 * spaces in all: written a block at a time, not a space at a time as
 * printf pads. */
static void indent(FILE *out, size_t n)
{
	static const char sp[] = "                                                                "
				 "                                                                ";

	while (n > 0) {
		size_t k = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;

		fwrite(sp, 1, k, out);
		n -= k;
	}
}

/* ---- naming segments ---- */

struct seg_names {
	const char *module;	/* NULL: no module */
	const char *func;	/* NULL: no symbol */
	const char *label;	/* func, else "module`0x401000" or "0x401000" */
	char buf[300];
};

static void seg_names(struct dbg *d, uint64_t ip, struct seg_names *n)
{
	struct dbg_module *m = dbg_module_for(d, ip);
	struct sym_loc loc;

	n->module = m && m->sym ? sym_module_name(m->sym) : NULL;
	n->func = NULL;
	if (m && m->sym && sym_lookup_addr(m->sym, ip, &loc) == 0)
		n->func = loc.func;
	n->label = n->func ? n->func : n->buf;
	if (!n->func && n->module)
		snprintf(n->buf, sizeof(n->buf), "%s`0x%" PRIx64, n->module, ip);
	else if (!n->func)
		snprintf(n->buf, sizeof(n->buf), "0x%" PRIx64, ip);
}

/* LLDB's segment context: "mod`main + 15 at f.c:10:3 to 12:7", the end as
 * "<+off>" or an address without line information. */
static void print_segment(struct dbg *d, const struct dbg_call_seg *s, FILE *out)
{
	struct dbg_module *m = dbg_module_for(d, s->last_ip);
	struct sym_loc b;
	char buf[2048];
	const char *file;
	unsigned line, col;

	fprintf(out, "%s to ", dbg_format_addr(d, s->first_ip, buf, sizeof(buf)));
	if (dbg_addr_line(d, s->first_ip, &file, &line, &col) == 0 && line &&
	    dbg_addr_line(d, s->last_ip, &file, &line, &col) == 0 && line) {
		fprintf(out, "%u:%u", line, col);
	} else if (m && m->sym && sym_lookup_addr(m->sym, s->last_ip, &b) == 0 && b.func) {
		fprintf(out, "<+%" PRIu64 ">", s->last_ip - b.func_addr);
	} else {
		fprintf(out, "0x%" PRIx64, s->last_ip);
	}
	fprintf(out, "  [%" PRIu64 ", %" PRIu64 "]\n", s->first_id, s->last_id);
}

static void print_tree_text(struct dbg *d, const struct dbg_call_seg *segs, size_t n, FILE *out)
{
	for (size_t i = 0; i < n; i++) {
		const struct dbg_call_seg *s = &segs[i];
		struct seg_names nm;

		if (i == 0 || s->tree != segs[i - 1].tree)
			fprintf(out, "\n[call tree #%u]\n", s->tree);
		indent(out, 2 * (size_t)s->depth);
		switch (s->kind) {
		case DBG_SEG_ERRORS:
			fprintf(out, "<tracing errors>  [%" PRIu64 ", %" PRIu64 "]\n", s->first_id, s->last_id);
			break;
		case DBG_SEG_UNTRACED:
			/* LLDB's words for a caller without a symbol or a module */
			seg_names(d, s->first_ip, &nm);
			if (nm.module)
				fprintf(out, "%s`%s\n", nm.module, nm.func ? nm.func : "(none)");
			else
				fputs("(none)\n", out);
			break;
		default:
			print_segment(d, s, out);
		}
	}
}

/* GDB's "record function-call-history /ilc": one numbered line per
 * segment, indented by call level, with its instructions and source
 * lines ("2\t  fact\tinst 2,11\tat recurse.c:4,7"). */
static void print_flat(struct dbg *d, const struct dbg_call_seg *segs, size_t n, FILE *out)
{
	unsigned num = 0;

	for (size_t i = 0; i < n; i++) {
		const struct dbg_call_seg *s = &segs[i];
		struct seg_names nm;
		const char *f1, *f2;
		unsigned l1, l2, col;

		if (s->kind == DBG_SEG_UNTRACED)
			continue;	/* GDB lists what was traced */
		fprintf(out, "%u\t", ++num);
		indent(out, 2 * (size_t)s->depth);
		if (s->kind == DBG_SEG_ERRORS) {
			fprintf(out, "[decode error]\tinst %" PRIu64 "\n", s->first_id);
			continue;
		}
		seg_names(d, s->first_ip, &nm);
		fprintf(out, "%s\tinst %" PRIu64 ",%" PRIu64, nm.label, s->first_id, s->last_id);
		if (dbg_addr_line(d, s->first_ip, &f1, &l1, &col) == 0 &&
		    dbg_addr_line(d, s->last_ip, &f2, &l2, &col) == 0 && f1 == f2) {
			const char *base = strrchr(f1, '/');

			fprintf(out, "\tat %s:%u,%u", base ? base + 1 : f1, l1 < l2 ? l1 : l2,
				l1 < l2 ? l2 : l1);
		}
		fputc('\n', out);
	}
}

/* ---- a streaming JSON writer (no recursion, no tree in memory) ---- */

struct jw {
	FILE *f;
	int pretty;
	int after_key;
	size_t level, cap;
	unsigned char *empty;	/* per level: nothing written in it yet */
};

static void jw_sep(struct jw *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (!w->level)
		return;
	if (!w->empty[w->level])
		fputc(',', w->f);
	w->empty[w->level] = 0;
	if (w->pretty) {
		fputc('\n', w->f);
		indent(w->f, 2 * w->level);
	}
}

static void jw_open(struct jw *w, char c)
{
	jw_sep(w);
	fputc(c, w->f);
	if (++w->level >= w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->empty = xrealloc(w->empty, w->cap);
	}
	w->empty[w->level] = 1;
}

static void jw_close(struct jw *w, char c)
{
	int had = !w->empty[w->level];

	w->level--;
	if (w->pretty && had) {
		fputc('\n', w->f);
		indent(w->f, 2 * w->level);
	}
	fputc(c, w->f);
	if (!w->level)
		fputc('\n', w->f);
}

static void jw_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void jw_key(struct jw *w, const char *k)
{
	jw_sep(w);
	jw_string(w->f, k);
	fputs(w->pretty ? ": " : ":", w->f);
	w->after_key = 1;
}

static void jw_str(struct jw *w, const char *k, const char *v)
{
	jw_key(w, k);
	jw_sep(w);
	jw_string(w->f, v);
}

static void jw_u64(struct jw *w, const char *k, uint64_t v)
{
	jw_key(w, k);
	jw_sep(w);
	fprintf(w->f, "%" PRIu64, v);
}

static void jw_raw(struct jw *w, const char *k, const char *v)
{
	jw_key(w, k);
	jw_sep(w);
	fputs(v, w->f);
}

static void jw_addr(struct jw *w, const char *k, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
	jw_str(w, k, buf);
}

static void jw_release(struct jw *w)
{
	free(w->empty);
	w->empty = NULL;
}

/* ---- thread trace dump function-calls ---- */

static void json_segment(struct dbg *d, struct jw *w, const struct dbg_call_seg *s)
{
	struct seg_names nm;

	jw_open(w, '{');
	if (s->kind == DBG_SEG_ERRORS) {
		jw_str(w, "error", "tracing errors");
	} else {
		seg_names(d, s->first_ip, &nm);
		if (nm.func)
			jw_str(w, "function", nm.func);
		if (nm.module)
			jw_str(w, "module", nm.module);
		if (s->kind == DBG_SEG_UNTRACED)
			jw_raw(w, "untraced", "true");
	}
	jw_u64(w, "firstId", s->first_id);
	jw_u64(w, "lastId", s->last_id);
	if (s->kind == DBG_SEG_TRACED) {
		jw_addr(w, "firstLoadAddress", s->first_ip);
		jw_addr(w, "lastLoadAddress", s->last_ip);
	}
	jw_key(w, "calls");
	jw_open(w, '[');
}

/* Closes n open segments (each an object holding its "calls" array; a tree's
 * "segments" array in its object is closed the same way). */
static void json_close_segments(struct jw *w, size_t n)
{
	for (; n; n--) {
		jw_close(w, ']');
		jw_close(w, '}');
	}
}

/* Trees of one thread: {"threadIndex", "tid", "tree", "segments": [...]},
 * each segment's "calls" holding the segments one level deeper that follow
 * it (until the next segment at its level). */
static void json_trees(struct dbg *d, struct jw *w, pid_t tid, const struct dbg_call_seg *segs,
		       size_t n)
{
	size_t open = 0;

	for (size_t i = 0; i < n; i++) {
		if (i == 0 || segs[i].tree != segs[i - 1].tree) {
			/* the tree before (its open segments, its "segments") */
			json_close_segments(w, open + (i ? 1 : 0));
			open = 0;
			jw_open(w, '{');
			jw_u64(w, "threadIndex", (uint64_t)cmd_trace_thread_index(d, tid));
			jw_u64(w, "tid", (uint64_t)tid);
			jw_u64(w, "tree", segs[i].tree);
			jw_key(w, "segments");
			jw_open(w, '[');
		}
		if (open > segs[i].depth) {
			json_close_segments(w, open - segs[i].depth);
			open = segs[i].depth;
		}
		json_segment(d, w, &segs[i]);
		open++;
	}
	json_close_segments(w, open + (n ? 1 : 0));
}

static FILE *open_output(struct cmd_ctx *ctx, const char *path)
{
	FILE *f;

	if (!path)
		return ctx->out;
	f = cmd_outfile_open(ctx, path);
	return f;
}

static enum cmd_status close_output(struct cmd_ctx *ctx, const char *path, FILE *f,
				    enum cmd_status st)
{
	if (path)
		return cmd_outfile_close(ctx, path, f, st);
	return st;
}

static enum cmd_status exec_function_calls(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	pid_t *tids = NULL;
	const char *path = cmd_opt(ctx->node, a, "file");
	int pretty = cmd_opt_given(ctx->node, a, "pretty-json");
	int json = pretty || cmd_opt_given(ctx->node, a, "json");
	enum cmd_status st = CMD_OK;
	struct jw w = { 0 };
	FILE *out;
	int n;

	if (cmd_trace_thread_list(ctx, a, &tids, &n) < 0)
		return CMD_ERROR;
	if (!(out = open_output(ctx, path))) {
		free(tids);
		return CMD_ERROR;
	}
	w.f = out;
	w.pretty = pretty;
	if (json)
		jw_open(&w, '[');
	for (int i = 0; i < n && st == CMD_OK; i++) {
		struct dbg_calls wk;
		const struct dbg_call_seg *segs;
		size_t ns;
		int r = calls_of(ctx, tids[i], 0, &wk);

		if (r < 0) {
			st = CMD_ERROR;
			break;
		}
		if (!json)
			fprintf(out, "thread #%d: tid = %d%s\n", cmd_trace_thread_index(d, tids[i]),
				(int)tids[i], r ? "" : ", not traced");
		if (r == 0)
			continue;
		segs = wk.segs;
		ns = wk.nsegs;
		if (json)
			json_trees(d, &w, tids[i], segs, ns);
		else if (cmd_opt_given(ctx->node, a, "flat"))
			print_flat(d, segs, ns, out);
		else
			print_tree_text(d, segs, ns, out);
		dbg_calls_release(&wk);
	}
	if (json && st == CMD_OK)
		jw_close(&w, ']');
	jw_release(&w);
	free(tids);
	return close_output(ctx, path, out, st);
}

/* ---- thread trace export ctf ---- */

struct ctf_thread {
	pid_t tid;
	struct dbg_calls wk;
	const struct dbg_call_seg *segs;
	size_t n;
	uint64_t *last;		/* extents (wk's) */
};

/* Time of boundary x: TSC (as ns when the conversion is known) or the
 * instruction count, relative to base; in microseconds with 3 decimals. */
static uint64_t ctf_time(const struct dbg *d, const struct ctf_thread *t, int tsc, uint64_t x)
{
	uint64_t v;

	if (!tsc)
		return x * 1000;	/* 1 instruction = 1 us */
	v = dbg_calls_tsc_at(&t->wk, x);
	return dbg_tsc_known(d, NULL) ? dbg_tsc_to_ns(d, v) : v;
}

static void jw_us(struct jw *w, const char *k, uint64_t ns)
{
	char buf[48];

	if (ns % 1000)
		snprintf(buf, sizeof(buf), "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, ns / 1000);
	jw_raw(w, k, buf);
}

static void ctf_meta(struct jw *w, const char *what, pid_t pid, pid_t tid, const char *key,
		     const char *name, uint64_t num)
{
	jw_open(w, '{');
	jw_str(w, "name", what);
	jw_str(w, "ph", "M");
	jw_u64(w, "pid", (uint64_t)pid);
	jw_u64(w, "tid", (uint64_t)tid);
	jw_key(w, "args");
	jw_open(w, '{');
	if (name)
		jw_str(w, key, name);
	else
		jw_u64(w, key, num);
	jw_close(w, '}');
	jw_close(w, '}');
}

static size_t ctf_events(struct dbg *d, struct jw *w, const struct ctf_thread *t, int tsc,
			 uint64_t base)
{
	size_t count = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct dbg_call_seg *s = &t->segs[i];
		uint64_t t0 = ctf_time(d, t, tsc, s->first_id) - base;
		struct seg_names nm;

		jw_open(w, '{');
		if (s->kind == DBG_SEG_ERRORS) {
			jw_str(w, "name", "tracing errors");
			jw_str(w, "cat", "error");
			jw_str(w, "ph", "i");
			jw_str(w, "s", "t");
		} else {
			seg_names(d, s->first_ip, &nm);
			jw_str(w, "name", nm.label);
			jw_str(w, "cat", nm.module ? nm.module : "unknown");
			jw_str(w, "ph", "X");
			count++;
		}
		jw_u64(w, "pid", (uint64_t)d->pid);
		jw_u64(w, "tid", (uint64_t)t->tid);
		jw_us(w, "ts", t0);
		if (s->kind != DBG_SEG_ERRORS)
			jw_us(w, "dur", ctf_time(d, t, tsc, t->last[i] + 1) - base - t0);
		jw_key(w, "args");
		jw_open(w, '{');
		jw_u64(w, "tree", s->tree);
		jw_u64(w, "depth", s->depth);
		if (s->kind == DBG_SEG_ERRORS) {
			jw_u64(w, "beforeId", s->first_id);
		} else {
			jw_u64(w, "firstId", s->first_id);
			jw_u64(w, "lastId", s->last_id);
		}
		if (s->kind == DBG_SEG_TRACED) {
			jw_addr(w, "firstLoadAddress", s->first_ip);
			jw_addr(w, "lastLoadAddress", s->last_ip);
		} else if (s->kind == DBG_SEG_UNTRACED) {
			jw_raw(w, "untraced", "true");
		}
		jw_close(w, '}');
		jw_close(w, '}');
	}
	return count;
}

static void ctf_write(struct dbg *d, FILE *out, struct ctf_thread *t, int nt, size_t *events)
{
	struct jw w = { 0 };
	const char *exe = d->exe_path ? strrchr(d->exe_path, '/') : NULL;
	int tsc = nt > 0;
	uint64_t base = UINT64_MAX;
	char note[160];

	/* timestamps only when every thread has them, from the earliest */
	for (int i = 0; i < nt; i++)
		if (!t[i].wk.timed)
			tsc = 0;
	for (int i = 0; i < nt; i++) {
		uint64_t v = ctf_time(d, &t[i], tsc, 0);

		if (v < base)
			base = v;
	}
	if (!tsc)
		base = 0;
	w.f = out;
	jw_open(&w, '{');
	jw_key(&w, "traceEvents");
	jw_open(&w, '[');
	ctf_meta(&w, "process_name", d->pid, d->pid, "name", exe ? exe + 1 : "process", 0);
	for (int i = 0; i < nt; i++) {
		int idx = cmd_trace_thread_index(d, t[i].tid);

		snprintf(note, sizeof(note), "thread #%d", idx);
		ctf_meta(&w, "thread_name", d->pid, t[i].tid, "name", note, 0);
		ctf_meta(&w, "thread_sort_index", d->pid, t[i].tid, "sort_index", NULL, (uint64_t)idx);
	}
	*events = 0;
	for (int i = 0; i < nt; i++)
		*events += ctf_events(d, &w, &t[i], tsc, base);
	jw_close(&w, ']');
	jw_str(&w, "displayTimeUnit", "ns");
	jw_key(&w, "otherData");
	jw_open(&w, '{');
	jw_str(&w, "generator", "ptdb");
	if (tsc && dbg_tsc_known(d, NULL)) {
		jw_str(&w, "clock", "ns");
		jw_u64(&w, "timeZeroNs", base);
		jw_str(&w, "note", "perf clock nanoseconds from the TSC, relative to timeZeroNs; "
		       "linear between timestamps");
	} else if (tsc) {
		jw_str(&w, "clock", "tsc");
		jw_u64(&w, "tscZero", base);
		jw_str(&w, "note", "TSC ticks relative to tscZero, shown as nanoseconds (no "
		       "TSC-to-time conversion known); linear between timestamps");
	} else {
		jw_str(&w, "clock", "instructions");
		jw_str(&w, "note", "no timestamps in the trace (thread trace start --tsc adds "
		       "them): 1 instruction = 1 microsecond");
	}
	jw_close(&w, '}');
	jw_close(&w, '}');
	jw_release(&w);
}

static enum cmd_status exec_export_ctf(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	pid_t *tids = NULL;
	const char *path = cmd_opt(ctx->node, a, "file");
	const char *which = cmd_opt(ctx->node, a, "tid");
	struct cmd_args ta = { 0 };
	char *argv[1] = { (char *)which };
	struct ctf_thread *t;
	enum cmd_status st = CMD_OK;
	size_t events = 0;
	int n, nt = 0;
	FILE *out = NULL;

	if (which) {
		ta.argc = 1;
		ta.argv = argv;
	}
	if (cmd_trace_thread_list(ctx, &ta, &tids, &n) < 0)
		return CMD_ERROR;
	t = xcalloc((size_t)n, sizeof(*t));
	for (int i = 0; i < n; i++) {
		int r = calls_of(ctx, tids[i], 1, &t[nt].wk);

		if (r < 0) {
			st = CMD_ERROR;
			break;
		}
		if (r == 0) {
			/* one thread asked for and not traced is an error; 'all' skips */
			if (!which || strcmp(which, "all")) {
				cmd_error(ctx, "thread #%d is not traced", cmd_trace_thread_index(d, tids[i]));
				st = CMD_ERROR;
				break;
			}
			continue;
		}
		t[nt].tid = tids[i];
		t[nt].segs = t[nt].wk.segs;
		t[nt].n = t[nt].wk.nsegs;
		t[nt].last = t[nt].wk.last;
		nt++;
	}
	if (st == CMD_OK && !nt)
		st = cmd_error(ctx, "no traced thread to export");
	if (st == CMD_OK && !(out = open_output(ctx, path)))
		st = CMD_ERROR;
	if (st == CMD_OK) {
		ctf_write(d, out, t, nt, &events);
		st = close_output(ctx, path, out, st);
		if (st == CMD_OK && path)
			fprintf(ctx->out, "Exported %zu function-call segment%s of %d thread%s to %s\n",
				events, events == 1 ? "" : "s", nt, nt == 1 ? "" : "s", path);
	}
	for (int i = 0; i < nt; i++)
		dbg_calls_release(&t[i].wk);
	free(t);
	free(tids);
	return st;
}

/* ---- the nodes ---- */

const struct cmd_node cmd_thread_trace_dump_function_calls_node = {
	.name = "function-calls", .summary = "Dump the call tree of the traces of one or more threads.",
	.syntax = "[<thread-index> ... | all]",
	.details = "One line per segment (a run of instructions of one call of one function, "
		"between the calls it makes), indented two spaces per call level, with the "
		"instruction ids it covers.  Gaps in the trace end a call tree.",
	.min_args = 0, .max_args = -1, .exec = exec_function_calls,
	.opts = (const struct cmd_opt[]){
		{ 'j', "json", OPT_FLAG, NULL, "Print the call trees as JSON." },
		{ 'J', "pretty-json", OPT_FLAG, NULL, "Print the call trees as indented JSON." },
		{ 'F', "file", OPT_STRING, "file", "Write the call trees to a file instead." },
		{ 0, "flat", OPT_FLAG, NULL, "GDB's function-call-history layout: numbered segments with instruction ids and source lines." },
		{ 0 } },
};

static const struct cmd_node thread_trace_export_ctf = {
	.name = "ctf", .summary = "Export the call tree of a thread's trace in Chrome Trace Event Format (Perfetto, chrome://tracing).",
	.syntax = "",
	.details = "One complete event per call segment, lasting until the function's next "
		"segment, so calls nest in their callers.  Without -t the selected thread.",
	.min_args = 0, .max_args = 0, .exec = exec_export_ctf,
	.opts = (const struct cmd_opt[]){
		{ 'f', "file", OPT_STRING, "file", "Write to this file (default: the output)." },
		{ 't', "tid", OPT_STRING, "thread-index", "The thread to export, by index, or 'all'." },
		{ 0 } },
};

const struct cmd_node cmd_thread_trace_export_node = {
	.name = "export", .summary = "Commands for exporting traces to other tools.",
	.children = (const struct cmd_node *const[]){ &thread_trace_export_ctf, NULL },
};
