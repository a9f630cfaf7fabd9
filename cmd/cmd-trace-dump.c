/* cmd/cmd-trace-dump.c: "thread trace dump instructions": LLDB's options
 * (-c -s -i -f -a -r -k -t -e -E -C -j -J -F), the listing with its events
 * and errors, the events-only listing (-E), progress and Ctrl-C. */
#include "cmd/json-stream.h"
#include "cmd/trace-loss.h"
#include "cmd/cmd-trace.h"
#include "cmd/progress.h"
#include "core/cursor.h"
#include "core/session.h"
#include "core/size.h"
#include "core/source.h"
#include "disasm/disasm.h"

#include <json-c/json.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROGRESS_EVERY 4096	/* items between progress updates */

/* ---- the listing ---- */

static const char *error_text(const struct trace_item *it)
{
	return it->error ? it->error : "decoding error";
}

struct dump_opts {
	uint64_t count, skip;
	int64_t id;		/* -i, or -1 */
	int count_given, forwards, all, raw, kinds, times, events, only_events;
	int json, pretty, cont;
	int source;		/* -m: source lines among the instructions */
	int64_t from, to;	/* --from/--to: an instruction id range, or -1 */
};

/* Where the last "dump instructions" of a thread stopped (its -C), for
 * the decoded trace it listed; with events (-E) next counts events, not
 * instructions. */
struct dump_cont {
	pid_t tid;
	uint64_t serial;	/* trace_decoded_serial: 0 none */
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

struct dump {
	struct cmd_ctx *ctx;
	struct dbg *d;
	FILE *out;
	struct disasm *ds;
	struct cmd_trace_clock clk;
	const struct dump_opts *o;
	int width;
	/* the symbol context of the previous line */
	const char *func, *file;
	unsigned line, column;
	int have_ctx;
	int prev_error;		/* "...missing instructions" once per run of errors */
	struct cmd_jstream *json;	/* -j/-J: the array, written as it goes */
	/* -m: the source line shown last */
	const char *src_file;
	unsigned src_line;
	/* replaying this thread: the cursor's instruction id, marked "->" */
	int64_t cursor;
	struct dbg_cursor *cur;	/* over the decoded trace */
	struct dump_cont *cont;	/* this thread's -C */
	/* each address's text, made once per dump (open addressing) */
	struct memo *memo;
	size_t mcap, mn;
	/* the listing, written in large pieces */
	size_t on;
	char obuf[1 << 16];
};

/* What a dump writes for the instruction at ip, made on its first use:
 * its symbol context, its context line (with the address), and the rest
 * of its line after the id (text) or its JSON members after "id". */
struct memo {
	uint64_t ip;		/* 0: empty */
	struct sym_loc loc;
	char *ctx;		/* "  <address>\n", made when first shown */
	char *text;
	size_t tlen;
};

#define MEMO_MAX (1u << 16)	/* addresses kept */

static void out_flush(struct dump *p)
{
	if (p->on)
		fwrite(p->obuf, 1, p->on, p->out);
	p->on = 0;
}

static void out_put(struct dump *p, const char *s, size_t n)
{
	if (p->on + n > sizeof(p->obuf)) {
		out_flush(p);
		if (n > sizeof(p->obuf)) {
			fwrite(s, 1, n, p->out);
			return;
		}
	}
	memcpy(p->obuf + p->on, s, n);
	p->on += n;
}

static void out_str(struct dump *p, const char *s)
{
	out_put(p, s, strlen(s));
}

/* v right-aligned in width columns (the ids of a listing). */
static void out_uint(struct dump *p, uint64_t v, int width)
{
	char b[24];
	int k = (int)sizeof(b);

	do {
		b[--k] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while ((int)sizeof(b) - k < width && k > 0)
		b[--k] = ' ';
	out_put(p, b + k, sizeof(b) - (size_t)k);
}

static void memo_clear(struct dump *p)
{
	for (size_t i = 0; i < p->mcap; i++) {
		free(p->memo[i].ctx);
		free(p->memo[i].text);
	}
	free(p->memo);
	p->memo = NULL;
	p->mcap = p->mn = 0;
}

static size_t memo_slot(const struct dump *p, uint64_t ip)
{
	return (size_t)((ip * 0x9E3779B97F4A7C15ull) >> 20) & (p->mcap - 1);
}

static void make_text(struct dump *p, struct memo *m, const struct dbg_insn *e);
static void make_json(struct dump *p, struct memo *m, const struct dbg_insn *e);

/* The memo of ip, made on its first use. */
static struct memo *memo_get(struct dump *p, uint64_t ip)
{
	struct dbg_module *mod;
	struct memo *m;
	size_t k;

	if (p->mcap) {
		for (k = memo_slot(p, ip); p->memo[k].ip; k = (k + 1) & (p->mcap - 1))
			if (p->memo[k].ip == ip)
				return &p->memo[k];
	}
	if (p->mn >= MEMO_MAX)
		memo_clear(p);
	if (2 * (p->mn + 1) > p->mcap) {
		struct memo *old = p->memo;
		size_t ocap = p->mcap;

		p->mcap = ocap ? 2 * ocap : 1024;
		p->memo = xcalloc(p->mcap, sizeof(*p->memo));
		for (size_t i = 0; i < ocap; i++) {
			if (!old[i].ip)
				continue;
			for (k = memo_slot(p, old[i].ip); p->memo[k].ip; k = (k + 1) & (p->mcap - 1))
				;
			p->memo[k] = old[i];
		}
		free(old);
	}
	for (k = memo_slot(p, ip); p->memo[k].ip; k = (k + 1) & (p->mcap - 1))
		;
	m = &p->memo[k];
	p->mn++;
	m->ip = ip;
	if ((mod = dbg_module_for(p->d, ip)))
		sym_lookup_addr(mod->sym, ip, &m->loc);
	if (p->json)
		make_json(p, m, dbg_insn_cached(p->d, ip));
	else
		make_text(p, m, dbg_insn_cached(p->d, ip));
	return m;
}

static const char *kind_name(enum disasm_kind k)
{
	switch (k) {
	case DISASM_KIND_JCC:
	case DISASM_KIND_JRCXZ:
	case DISASM_KIND_LOOP:
		return "cond jump";
	case DISASM_KIND_JMP:
	case DISASM_KIND_JMP_IND:
		return "jump";
	case DISASM_KIND_CALL:
	case DISASM_KIND_CALL_IND:
		return "call";
	case DISASM_KIND_RET:
		return "return";
	case DISASM_KIND_SYSCALL:
	case DISASM_KIND_INT:
	case DISASM_KIND_FAR:
		return "far";
	default:
		return "other";
	}
}

static void print_ctx_line(struct dump *p, struct memo *mo)
{
	const struct sym_loc *loc = &mo->loc;

	/* a new line-table position (function, file, line, column) */
	if (p->have_ctx && loc->func == p->func && loc->file == p->file && loc->line == p->line &&
	    loc->column == p->column)
		return;
	p->func = loc->func;
	p->file = loc->file;
	p->line = loc->line;
	p->column = loc->column;
	p->have_ctx = 1;
	if (!p->o->raw) {
		if (!mo->ctx) {
			char buf[512], line[520];

			snprintf(line, sizeof(line), "  %s\n", dbg_format_addr(p->d, mo->ip, buf, sizeof(buf)));
			mo->ctx = xstrdup(line);
		}
		out_str(p, mo->ctx);
	}
	/* -m: each new source line once, as "source list" shows it (GDB's
	 * /m); a missing source file shows nothing */
	if (p->o->source && loc->file && loc->line &&
	    (loc->file != p->src_file || loc->line != p->src_line)) {
		char mapped[4096];

		p->src_file = loc->file;
		p->src_line = loc->line;
		out_flush(p);
		source_list_range(p->out, dbg_source_path(p->d, loc->file, mapped, sizeof(mapped)),
				  loc->line, loc->line, NULL);
	}
}

/* An instruction's members after "id". */
static void json_members(struct dump *p, struct json_object *o, const struct memo *m,
			 const struct dbg_insn *e)
{
	struct dbg_module *mod = dbg_module_for(p->d, m->ip);
	char addr[32];

	snprintf(addr, sizeof(addr), "0x%016" PRIx64, m->ip);
	json_object_object_add(o, "loadAddress", json_object_new_string(addr));
	if (mod)
		json_object_object_add(o, "module", json_object_new_string(sym_module_name(mod->sym)));
	if (m->loc.func)
		json_object_object_add(o, "symbol", json_object_new_string(m->loc.func));
	if (e->ok) {
		char text[200];

		snprintf(text, sizeof(text), "%s%s%s", e->in.mnemonic, e->in.operands[0] ? " " : "",
			 e->in.operands);
		json_object_object_add(o, "mnemonic", json_object_new_string(e->in.mnemonic));
		json_object_object_add(o, "instruction", json_object_new_string(text));
		json_object_object_add(o, "controlFlowKind", json_object_new_string(kind_name(e->in.kind)));
	}
	if (m->loc.file && m->loc.line) {
		json_object_object_add(o, "source", json_object_new_string(m->loc.file));
		json_object_object_add(o, "line", json_object_new_int((int)m->loc.line));
		json_object_object_add(o, "column", json_object_new_int((int)m->loc.column));
	}
}

/* The members of an instruction after "id", as json-c writes them
 * plainly: ',"loadAddress":...' (-j streams them itself). */
static void make_json(struct dump *p, struct memo *m, const struct dbg_insn *e)
{
	struct json_object *o = json_object_new_object();
	const char *s;

	json_members(p, o, m, e);
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	m->tlen = strlen(s) - 1;	/* {"loadAddress":...} -> ,"loadAddress":... */
	m->text = xmalloc(m->tlen + 1);
	memcpy(m->text, s, m->tlen);
	m->text[0] = ',';
	m->text[m->tlen] = 0;
	json_object_put(o);
}

/* The rest of an instruction's line after "[id] " and the time. */
static void make_text(struct dump *p, struct memo *m, const struct dbg_insn *e)
{
	struct dbg_module *mod = dbg_module_for(p->d, m->ip);
	char t[1024];
	int k;

	if (p->o->raw) {
		/* LLDB's raw mode: ids and addresses only */
		k = snprintf(t, sizeof(t), "0x%016" PRIx64 "\n", m->ip);
	} else if (!e->ok) {
		k = snprintf(t, sizeof(t), "0x%016" PRIx64 "    <unreadable>\n", m->ip);
	} else {
		const struct disasm_insn *in = &e->in;

		k = snprintf(t, sizeof(t), "0x%016" PRIx64 "    ", m->ip);
		if (p->o->kinds)
			k += snprintf(t + k, sizeof(t) - (size_t)k, "%-10s ", kind_name(in->kind));
		if (in->operands[0])
			k += snprintf(t + k, sizeof(t) - (size_t)k, "%-6s %s", in->mnemonic, in->operands);
		else
			k += snprintf(t + k, sizeof(t) - (size_t)k, "%s", in->mnemonic);
		/* direct branches within the function: "; <+28> at trace_loop.c:4" */
		if (in->has_target && mod) {
			struct sym_loc a, b;

			if (sym_lookup_addr(mod->sym, m->ip, &a) == 0 && a.func &&
			    sym_lookup_addr(mod->sym, in->target, &b) == 0 && b.func &&
			    a.func_addr == b.func_addr) {
				int pad = 25 - (int)strlen(in->operands);

				k += snprintf(t + k, sizeof(t) - (size_t)k, "%*s ; <+%" PRIu64 ">",
					      pad > 0 ? pad : 0, "", in->target - b.func_addr);
				if (b.file && b.line) {
					const char *base = strrchr(b.file, '/');

					k += snprintf(t + k, sizeof(t) - (size_t)k, " at %s:%u",
						      base ? base + 1 : b.file, b.line);
				}
			}
		}
		if (k > (int)sizeof(t) - 2)
			k = (int)sizeof(t) - 2;
		t[k++] = '\n';
		t[k] = 0;
	}
	m->tlen = (size_t)k;
	m->text = xstrdup(t);
}

/* Instruction id at item index, at ip. */
static void print_insn(struct dump *p, uint64_t id, uint64_t index, uint64_t ip)
{
	struct memo *m = memo_get(p, ip);
	char tbuf[96];

	p->prev_error = 0;
	if (p->json && !p->o->pretty) {
		out_put(p, cmd_jstream_next(p->json) ? ",{\"id\":" : "[{\"id\":", 7);
		out_uint(p, id, 0);
		out_put(p, m->text, m->tlen);
		out_put(p, tbuf, cmd_trace_clock_json_text(&p->clk, index, p->o->times, tbuf, sizeof(tbuf)));
		out_put(p, "}", 1);
		return;
	}
	if (p->json) {
		/* -J: json-c's indented layout, from the same members */
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "id", json_object_new_int64((int64_t)id));
		json_members(p, o, m, dbg_insn_cached(p->d, ip));
		cmd_trace_clock_json(&p->clk, index, p->o->times, o);
		out_flush(p);
		cmd_jstream_add(p->json, o);
		return;
	}
	print_ctx_line(p, m);
	out_put(p, (int64_t)id == p->cursor ? "->  [" : "    [", 5);
	out_uint(p, id, p->width);
	out_put(p, "] ", 2);
	if (p->o->times) {
		out_str(p, cmd_trace_clock_text(&p->clk, index, tbuf, sizeof(tbuf)));
		out_put(p, " ", 1);
	}
	out_put(p, m->text, m->tlen);
}

/* An event or error at item index, before instruction id: LLDB's
 * "(event) software disabled tracing", "(event) HW clock tick [<tsc>]",
 * "(event) trace synchronization point [offset = 0x1331]", and
 * "(error) <libipt's text>[: <address>]" after "...missing instructions";
 * ptdb adds where in the trace an error lies.  The index column is blank
 * in a listing (the position shows) and the following instruction's id
 * with -E. */
static void print_side(struct dump *p, uint64_t id, uint64_t index, const struct trace_item *it)
{
	char tbuf[64], tbuf2[256], col[32] = "";

	out_flush(p);
	if (p->json) {
		struct json_object *o = json_object_new_object();
		char buf[64];

		json_object_object_add(o, "id", json_object_new_int64((int64_t)id));
		if (cmd_trace_is_error(it)) {
			json_object_object_add(o, "error", json_object_new_string(error_text(it)));
			if (it->kind == TRACE_ITEM_GAP)
				json_object_object_add(o, "traceOffset", json_object_new_uint64(it->offset));
		} else {
			json_object_object_add(o, "event", json_object_new_string(cmd_trace_event_name(it)));
			if (it->event == TRACE_EV_TICK)
				json_object_object_add(o, "hwClock", json_object_new_uint64(it->tsc));
			if (it->event == TRACE_EV_CPU)
				json_object_object_add(o, "cpuId", json_object_new_int(it->cpu));
			if (it->event == TRACE_EV_SYNC) {
				snprintf(buf, sizeof(buf), "offset = 0x%" PRIx64, it->offset);
				json_object_object_add(o, "syncPointMetadata", json_object_new_string(buf));
			}
		}
		if (it->ip) {
			snprintf(buf, sizeof(buf), "0x%016" PRIx64, it->ip);
			json_object_object_add(o, "loadAddress", json_object_new_string(buf));
		}
		cmd_trace_clock_json(&p->clk, index, p->o->times, o);
		cmd_jstream_add(p->json, o);
		return;
	}
	if (cmd_trace_is_error(it) && !p->prev_error)
		fputs("    ...missing instructions\n", p->out);
	if (p->o->only_events)
		snprintf(col, sizeof(col), "%" PRIu64, id);
	fprintf(p->out, "    [%*s] ", p->width, col);
	if (p->o->times)
		fprintf(p->out, "%s ", cmd_trace_clock_text(&p->clk, index, tbuf, sizeof(tbuf)));
	fprintf(p->out, "%s\n", cmd_trace_item_text(it, tbuf2, sizeof(tbuf2)));
	if (cmd_trace_is_error(it))
		p->have_ctx = 0;
	p->prev_error = cmd_trace_is_error(it);
}

/* Items [i0, i1] hold instructions [first, last] with the events and
 * errors just before first (so consecutive -C windows show each once) and,
 * when last is the final instruction, those after it (the trace's end):
 * two binary searches. */
static void item_range(const struct trace_decoded *dec, uint64_t first, uint64_t last,
		       uint64_t total, uint64_t *i0, uint64_t *i1)
{
	*i0 = first ? trace_decoded_insn_item(dec, first - 1) + 1 : 0;
	*i1 = last + 1 < total ? trace_decoded_insn_item(dec, last) : trace_decoded_item_count(dec) - 1;
}

static void json_flush(struct dump *p)
{
	out_flush(p);
	cmd_jstream_end(p->json);
	p->json = NULL;
}

static enum cmd_status interrupted(struct dump *p, struct cmd_progress *pg)
{
	cmd_progress_done(pg);
	out_flush(p);
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
	struct trace_item it;
	uint64_t index = 0;

	trace_decoded_side(dec, k, &index, &it);
	return index - k;
}

/* The first side item at or after instruction id (pos >= id). */
static uint64_t side_from(struct trace_decoded *dec, uint64_t id)
{
	uint64_t lo = 0, hi = trace_decoded_side_count(dec);

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
	uint64_t n = trace_decoded_side_count(dec), first, last, count;
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
	p->cont->serial = trace_decoded_serial(dec);
	p->cont->events = 1;
	p->cont->forwards = forwards;
	p->cont->next = forwards ? last + 1 : first;
	for (uint64_t x = side_pos(dec, last); x >= 10; x /= 10)
		p->width++;
	cmd_progress_init(&pg, p->ctx, "Dumping thread #%d", cmd_trace_thread_index(p->d, tid));
	for (uint64_t j = first; j <= last; j++) {
		struct trace_item it;
		uint64_t index;

		if (cmd_interrupted(p->d))
			return interrupted(p, &pg);
		if ((j - first) % PROGRESS_EVERY == 0 && !isatty(fileno(p->out)))
			cmd_progress_update(&pg, j - first, last - first + 1);
		trace_decoded_side(dec, j, &index, &it);
		print_side(p, index - j, index, &it);
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
		const struct trace_item *it = dbg_cursor_item(p->cur);

		if (cmd_trace_is_error(it) || p->o->events)
			print_side(p, 0, dbg_cursor_index(p->cur), it);
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
	struct trace_decode_hook hook = { cmd_progress_hook, &pg };
	struct ptdb_err err;
	int r;

	cmd_progress_init(&pg, ctx, "Decoding thread #%d", cmd_trace_thread_index(d, tid));
	r = dbg_trace_decode_hooked(d, th, &hook, dec, &err);
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
		const struct trace_item *it = dbg_cursor_item(p->cur);

		if (i > i0)
			r = dbg_cursor_next(p->cur);
		if (cmd_interrupted(p->d)) {
			if (forwards)
				p->cont->next = insn;	/* -C goes on from here */
			return interrupted(p, &pg);
		}
		/* on a terminal the listing itself shows progress */
		if ((i - i0) % PROGRESS_EVERY == 0 && !isatty(fileno(p->out))) {
			out_flush(p);
			cmd_progress_update(&pg, i - i0, i1 - i0 + 1);
		}
		if (r != 0) {
			out_flush(p);
			fprintf(p->out, "    error: cannot read the instruction after 0x%016" PRIx64 "\n", it->ip);
			break;
		}
		if (it->kind == TRACE_ITEM_INSN)
			print_insn(p, insn++, i, it->ip);
		else if (cmd_trace_is_error(it) || p->o->events)
			print_side(p, insn, i, it);
	}
	out_flush(p);
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

	total = trace_decoded_insn_count(dec);
	/* -C: on from where the previous dump of this kind of this thread
	 * stopped */
	cont = o->cont && p->cont->serial == trace_decoded_serial(dec) &&
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
	if (!total && id != -2 && trace_decoded_item_count(dec))
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
	p->cont->serial = trace_decoded_serial(dec);
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
	out_flush(p);
	dbg_cursor_free(p->cur);
	memo_clear(p);
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
	pid_t tids[CMD_TRACE_MAX_THREADS];
	const char *path = cmd_opt(ctx->node, a, "file");
	enum cmd_status st = CMD_OK;
	struct dump_opts o;
	FILE *out = ctx->out;
	int n;

	if (cmd_trace_threads(ctx, a, tids, &n) < 0 || parse_opts(ctx, a, &o) < 0)
		return CMD_ERROR;
	if (path && !(out = fopen(path, "w")))
		return cmd_error(ctx, "cannot write '%s': %s", path, strerror(errno));
	cmd_busy_begin(d);
	for (int i = 0; i < n; i++) {
		if (dump_one(ctx, &o, tids[i], out) != CMD_OK)
			st = CMD_ERROR;
		if (cmd_interrupted(d))
			break;		/* Ctrl-C stops the whole command */
	}
	cmd_busy_end(d);
	if (path && fclose(out) != 0)
		return cmd_error(ctx, "cannot write '%s': %s", path, strerror(errno));
	return st;
}

