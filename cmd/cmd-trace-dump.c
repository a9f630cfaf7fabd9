/* cmd/cmd-trace-dump.c: "thread trace dump instructions": LLDB's options
 * (-c -s -i -f -a -r -k -t -e -E -C -j -J -F), the listing with its events
 * and errors, the events-only listing (-E), progress and Ctrl-C. */
#include "cmd/dump.h"
#include "cmd/outfile.h"
#include "cmd/trace-loss.h"
#include "cmd/progress.h"
#include "core/session/size.h"
#include "core/tracing/trace_info.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROGRESS_EVERY 4096	/* items between progress updates */

/* ---- the listing ---- */

/* Where the last "dump instructions" of a thread stopped (its -C), for
 * the decoded trace it listed; with events (-E) next counts events, not
 * instructions. */
struct dump_cont {
	pid_t tid;
	uint64_t serial;	/* dbg_decoded_serial: 0 none */
	int forwards, events;
	uint64_t next;
};
static struct dump_cont *conts;
static size_t nconts;

/* The thread's entry (made empty when new). */
static struct dump_cont *cont_of(pid_t tid)
{
	for (size_t i = 0; i < nconts; i++)
		if (conts[i].tid == tid)
			return &conts[i];
	conts = xrealloc(conts, (nconts + 1) * sizeof(*conts));
	memset(&conts[nconts], 0, sizeof(*conts));
	conts[nconts].tid = tid;
	return &conts[nconts++];
}

/* Items [i0, i1] hold instructions [first, last] with the events and
 * errors just before first (so consecutive -C windows show each once) and,
 * when last is the final instruction, those after it (the trace's end):
 * two binary searches. */
static void item_range(const struct trace_decoded *dec, uint64_t first, uint64_t last,
		       uint64_t total, uint64_t *i0, uint64_t *i1)
{
	*i0 = first ? dbg_decoded_insn_item(dec, first - 1) + 1 : 0;
	*i1 = last + 1 < total ? dbg_decoded_insn_item(dec, last) : dbg_decoded_item_count(dec) - 1;
}

static void json_flush(struct dump *p)
{
	dump_out_flush(p);
	cmd_jstream_end(p->json);
	p->json = NULL;
}

static enum cmd_status interrupted(struct dump *p, struct cmd_progress *pg)
{
	cmd_progress_done(pg);
	dump_out_flush(p);
	if (p->json) {
		cmd_jstream_free(p->json);	/* what was written is closed */
		p->json = NULL;
	}
	fflush(p->out);
	return cmd_error(p->ctx, "interrupted");
}

/* Instructions before side item k (side items sit between instructions). */
static uint64_t side_pos(struct trace_decoded *dec, uint64_t k)
{
	struct dbg_item it;
	uint64_t index = 0;

	dbg_decoded_side(dec, k, &index, &it);
	return index - k;
}

/* The first side item at or after instruction id (pos >= id). */
static uint64_t side_from(struct trace_decoded *dec, uint64_t id)
{
	uint64_t lo = 0, hi = dbg_decoded_side_count(dec);

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (side_pos(dec, mid) < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* -E: only the events and errors, straight from the side table; --count
 * and --skip count them, -i and -C position as for instructions. */
static enum cmd_status dump_events(struct dump *p, pid_t tid,
				   struct trace_decoded *dec, int cont)
{
	const struct dump_opts *o = p->o;
	uint64_t n = dbg_decoded_side_count(dec), first, last, count;
	int64_t k;
	int forwards = o->forwards;
	struct cmd_progress pg;

	count = o->all ? (n ? n : 1) : o->count;
	if (cont && p->cont->events) {
		forwards = p->cont->forwards;
		k = forwards ? (int64_t)p->cont->next : (int64_t)p->cont->next - 1;
	} else if (forwards) {
		k = (int64_t)((o->id >= 0 ? side_from(dec, (uint64_t)o->id) : 0) + o->skip);
	} else {
		/* the last one at or before instruction id */
		k = o->id >= 0 ? (int64_t)side_from(dec, (uint64_t)o->id + 1) - 1 : (int64_t)n - 1;
		k -= (int64_t)o->skip;
	}
	if (k < 0 || (uint64_t)k >= n) {
		if (p->json) {
			cmd_jstream_free(p->json);
			p->json = NULL;
		}
		fprintf(p->out, o->json ? "[]\n" : "    no more data\n");
		return CMD_OK;
	}
	if (forwards) {
		first = (uint64_t)k;
		last = first + count - 1 < n - 1 ? first + count - 1 : n - 1;
	} else {
		last = (uint64_t)k;
		first = last + 1 >= count ? last + 1 - count : 0;
	}
	p->cont->serial = dbg_decoded_serial(dec);
	p->cont->events = 1;
	p->cont->forwards = forwards;
	p->cont->next = forwards ? last + 1 : first;
	for (uint64_t x = side_pos(dec, last); x >= 10; x /= 10)
		p->width++;
	cmd_progress_init(&pg, p->ctx, "Dumping thread #%d", cmd_trace_thread_index(p->d, tid));
	for (uint64_t j = first; j <= last; j++) {
		struct dbg_item it;
		uint64_t index;

		if (cmd_interrupted(p->d))
			return interrupted(p, &pg);
		if ((j - first) % PROGRESS_EVERY == 0 && !isatty(fileno(p->out)))
			cmd_progress_update(&pg, j - first, last - first + 1);
		dbg_decoded_side(dec, j, &index, &it);
		dump_print_side(p, index - j, index, &it);
	}
	cmd_progress_done(&pg);
	if (p->json)
		json_flush(p);
	return CMD_OK;
}

/* A trace without instructions still lists its errors (and, with -e, its
 * events): a trace whose code is missing is all errors. */
static enum cmd_status dump_no_insns(struct dump *p)
{
	int r = dbg_cursor_seek_item(p->cur, 0);

	for (; r == 0; r = dbg_cursor_next(p->cur)) {
		const struct dbg_item *it = dbg_cursor_item(p->cur);

		if (cmd_trace_is_error(it) || p->o->events)
			dump_print_side(p, 0, dbg_cursor_index(p->cur), it);
	}
	if (p->json)
		json_flush(p);
	return CMD_OK;
}

int cmd_trace_decode(struct cmd_ctx *ctx, struct trace_swc_thread *th, pid_t tid,
		     struct trace_decoded **dec)
{
	struct dbg *d = &ctx->s->dbg;
	struct cmd_progress pg;
	struct ptdb_err err;
	int r;

	cmd_progress_init(&pg, ctx, "Decoding thread #%d", cmd_trace_thread_index(d, tid));
	r = dbg_trace_decode_progress(d, th, cmd_progress_hook, &pg, dec, &err);
	cmd_progress_done(&pg);
	if (r < 0) {
		cmd_error(ctx, "%s", err.msg);
		return -1;
	}
	return 0;
}

/* The instruction range [first, last] to show, oldest first, from the
 * options and where -C goes on (id -2: nothing older); *forwards as the
 * listing goes.  Returns 0, or 1 when --from is past the end. */
static int dump_range(const struct dump_opts *o, uint64_t total, uint64_t count, int64_t id,
		      int *forwards, uint64_t *first, uint64_t *last)
{
	if (o->from >= 0 || o->to >= 0) {
		/* --from/--to: that range (with one of them, --count from it) */
		if (o->from >= 0 && (uint64_t)o->from >= total)
			return 1;
		if (o->from >= 0 && o->to >= 0) {
			*first = (uint64_t)o->from;
			*last = (uint64_t)o->to;
		} else if (o->from >= 0) {
			*first = (uint64_t)o->from;
			*last = *first + count - 1;	/* (-a: count is all) */
		} else {
			*last = (uint64_t)o->to;
			*first = *last + 1 < count ? 0 : *last + 1 - count;
		}
		if (*last >= total)
			*last = total - 1;	/* first < total: checked above */
		*forwards = 1;
	} else if (*forwards) {
		*first = id >= 0 ? (uint64_t)id : o->skip;
		*last = *first + count - 1 < total - 1 ? *first + count - 1 : total - 1;
	} else {
		*last = id >= 0 ? (uint64_t)id : (o->skip < total ? total - 1 - o->skip : UINT64_MAX);
		*first = *last + 1 >= count ? *last + 1 - count : 0;
	}
	return 0;
}

/* Items [i0, i1] of the listing, instructions from first on. */
static enum cmd_status dump_items(struct dump *p, pid_t tid,
				  int forwards, uint64_t first, uint64_t i0, uint64_t i1)
{
	uint64_t insn = first;
	struct cmd_progress pg;
	int r;

	cmd_progress_init(&pg, p->ctx, "Dumping thread #%d", cmd_trace_thread_index(p->d, tid));
	r = dbg_cursor_seek_item(p->cur, i0);
	for (uint64_t i = i0; i <= i1; i++) {
		const struct dbg_item *it = dbg_cursor_item(p->cur);

		if (i > i0)
			r = dbg_cursor_next(p->cur);
		if (cmd_interrupted(p->d)) {
			if (forwards)
				p->cont->next = insn;	/* -C goes on from here */
			return interrupted(p, &pg);
		}
		/* on a terminal the listing itself shows progress */
		if ((i - i0) % PROGRESS_EVERY == 0 && !isatty(fileno(p->out))) {
			dump_out_flush(p);
			if (cmd_outfile_failed(p->out))
				break;	/* the file cannot take more: said at its close */
			cmd_progress_update(&pg, i - i0, i1 - i0 + 1);
		}
		if (r != 0) {
			dump_out_flush(p);
			fprintf(p->out, "    error: cannot read the instruction after 0x%016" PRIx64 "\n", it->ip);
			break;
		}
		if (it->kind == DBG_ITEM_INSN)
			dump_print_insn(p, insn++, i, it->ip);
		else if (cmd_trace_is_error(it) || p->o->events)
			dump_print_side(p, insn, i, it);
	}
	dump_out_flush(p);
	cmd_progress_done(&pg);
	if (p->json)
		json_flush(p);
	return CMD_OK;
}

static enum cmd_status dump_trace(struct dump *p, struct trace_swc_thread *th, pid_t tid,
				  struct trace_decoded *dec)
{
	const struct dump_opts *o = p->o;
	struct dbg *d = p->d;
	FILE *out = p->out;
	uint64_t count = o->count, total, first, last, i0, i1;
	int forwards = o->forwards, cont;
	int64_t id = o->id;

	total = dbg_decoded_insn_count(dec);
	/* -C: on from where the previous dump of this kind of this thread
	 * stopped */
	cont = o->cont && p->cont->serial == dbg_decoded_serial(dec) &&
	       p->cont->events == o->only_events;
	if (!o->json) {
		fprintf(out, "thread #%d: tid = %d, total instructions = %" PRIu64 "\n",
			cmd_trace_thread_index(d, tid), (int)tid, total);
		cmd_trace_loss_line(out, th);
	}
	if (o->json)
		p->json = cmd_jstream_new(out, o->pretty);
	if (o->only_events)
		return dump_events(p, tid, dec, cont);
	if (o->all)
		count = total ? total : 1;
	if (cont) {
		forwards = p->cont->forwards;
		if (forwards)
			id = (int64_t)p->cont->next;
		else if (p->cont->next == 0)
			id = -2;	/* nothing older */
		else
			id = (int64_t)p->cont->next - 1;
	}
	if (dump_range(o, total, count, id, &forwards, &first, &last)) {
		fprintf(out, o->json ? "[]\n" : "    no more data\n");
		if (p->json)
			cmd_jstream_free(p->json);
		return CMD_OK;
	}
	if (!total && id != -2 && dbg_decoded_item_count(dec))
		return dump_no_insns(p);
	if (id == -2 || !total || first >= total || last >= total) {
		if (p->json) {
			cmd_jstream_free(p->json);
			fprintf(out, "[]\n");
		} else if (id == -2 || (total && first >= total)) {
			fprintf(out, "    no more data\n");
		}
		return CMD_OK;
	}
	p->cont->serial = dbg_decoded_serial(dec);
	p->cont->events = 0;
	p->cont->forwards = forwards;
	p->cont->next = forwards ? last + 1 : first;
	for (uint64_t x = last; x >= 10; x /= 10)
		p->width++;
	item_range(dec, first, last, total, &i0, &i1);
	return dump_items(p, tid, forwards, first, i0, i1);
}

static enum cmd_status dump_one(struct cmd_ctx *ctx, const struct dump_opts *o, pid_t tid, FILE *out)
{
	struct dbg *d = &ctx->s->dbg;
	struct trace_swc_thread *th = dbg_trace_thread(d, tid);
	struct trace_decoded *dec;
	struct dump *p;
	enum cmd_status st;

	if (!th) {
		fprintf(out, "thread #%d: tid = %d, not traced\n", cmd_trace_thread_index(d, tid), (int)tid);
		return CMD_OK;
	}
	if (cmd_trace_decode(ctx, th, tid, &dec) < 0)
		return CMD_ERROR;
	p = xcalloc(1, sizeof(*p));
	p->ctx = ctx;
	p->d = d;
	p->out = out;
	p->o = o;
	p->width = 1;
	p->cursor = -1;
	if (dbg_replaying(d) && dbg_replay_tid(d) == tid) {
		uint64_t cid, ctotal;

		if (dbg_replay_cursor(d, &cid, &ctotal) == 0)
			p->cursor = (int64_t)cid;
	}
	p->ds = dbg_disasm(d);
	p->cur = dbg_cursor_new(d, dec);
	p->cont = cont_of(tid);
	cmd_trace_clock_init(&p->clk, d, dec);
	st = dump_trace(p, th, tid, dec);
	dump_out_flush(p);
	dbg_cursor_free(p->cur);
	dump_memo_clear(p);
	free(p);
	return st;
}

static int parse_opts(struct cmd_ctx *ctx, const struct cmd_args *a, struct dump_opts *o)
{
	struct ptdb_err err;
	const char *v;
	uint64_t x;

	memset(o, 0, sizeof(*o));
	o->count = 20;
	o->id = -1;
	if ((v = cmd_opt(ctx->node, a, "count")) && (uint_parse(v, &o->count, &err) < 0 || !o->count)) {
		cmd_error(ctx, "invalid --count '%s'", v);
		return -1;
	}
	if ((v = cmd_opt(ctx->node, a, "skip")) && uint_parse(v, &o->skip, &err) < 0) {
		cmd_error(ctx, "invalid --skip '%s'", v);
		return -1;
	}
	if ((v = cmd_opt(ctx->node, a, "id"))) {
		if (uint_parse(v, &x, &err) < 0 || x > INT64_MAX) {
			cmd_error(ctx, "invalid --id '%s'", v);
			return -1;
		}
		o->id = (int64_t)x;
	}
	o->forwards = cmd_opt_given(ctx->node, a, "forwards");
	o->all = cmd_opt_given(ctx->node, a, "all");
	o->raw = cmd_opt_given(ctx->node, a, "raw");
	o->kinds = cmd_opt_given(ctx->node, a, "kind");
	o->times = cmd_opt_given(ctx->node, a, "time");
	o->only_events = cmd_opt_given(ctx->node, a, "only-events");
	o->events = o->only_events || cmd_opt_given(ctx->node, a, "events");
	o->pretty = cmd_opt_given(ctx->node, a, "pretty-json");
	o->json = o->pretty || cmd_opt_given(ctx->node, a, "json");
	o->cont = cmd_opt_given(ctx->node, a, "continue");
	o->source = cmd_opt_given(ctx->node, a, "source");
	o->from = o->to = -1;
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "to" : "from";

		if (!(v = cmd_opt(ctx->node, a, name)))
			continue;
		if (uint_parse(v, &x, &err) < 0 || x > INT64_MAX) {
			cmd_error(ctx, "invalid --%s '%s'", name, v);
			return -1;
		}
		*(k ? &o->to : &o->from) = (int64_t)x;
	}
	if (o->from >= 0 && o->to >= 0 && o->from > o->to) {
		cmd_error(ctx, "--from %" PRId64 " is after --to %" PRId64, o->from, o->to);
		return -1;
	}
	if ((o->from >= 0 || o->to >= 0) && (o->id >= 0 || o->cont || o->only_events ||
					     cmd_opt(ctx->node, a, "skip"))) {
		cmd_error(ctx, "--from/--to give the range: they cannot be used with --id, --skip, --continue or --only-events");
		return -1;
	}
	return 0;
}

enum cmd_status cmd_trace_dump_instructions(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	pid_t *tids = NULL;
	const char *path = cmd_opt(ctx->node, a, "file");
	enum cmd_status st = CMD_OK;
	struct dump_opts o;
	FILE *out = ctx->out;
	int n;

	if (cmd_trace_thread_list(ctx, a, &tids, &n) < 0)
		return CMD_ERROR;
	if (parse_opts(ctx, a, &o) < 0) {
		free(tids);
		return CMD_ERROR;
	}
	if (path && !(out = cmd_outfile_open(ctx, path))) {
		free(tids);
		return CMD_ERROR;
	}
	cmd_busy_begin(d);
	for (int i = 0; i < n; i++) {
		if (dump_one(ctx, &o, tids[i], out) != CMD_OK)
			st = CMD_ERROR;
		if (cmd_interrupted(d) || (path && cmd_outfile_failed(out)))
			break;		/* Ctrl-C (or a full disk) stops the whole command */
	}
	cmd_busy_end(d);
	free(tids);
	if (path)
		return cmd_outfile_close(ctx, path, out, st);
	return st;
}


