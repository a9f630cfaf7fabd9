/* cmd/dump-format.c: how "thread trace dump instructions" writes items:
 * each address's text (its context line, the rest of its line, or its
 * JSON members) made once per listing from the instruction cache, lines
 * assembled into a 64 KiB buffer; events and errors in LLDB's words. */
#include "cmd/dump.h"
#include "core/symbols/source.h"
#include "disasm/disasm.h"

#include <json-c/json.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *error_text(const struct dbg_item *it)
{
	return it->error ? it->error : "decoding error";
}

/* What a dump writes for the instruction at ip, made on its first use:
 * its symbol context, its context line (with the address), and the rest
 * of its line after the id (text) or its JSON members after "id". */
struct memo {
	uint64_t ip;		/* 0: empty */
	uint32_t tag;		/* the code version (0: the memory's) */
	struct sym_loc loc;
	char *ctx;		/* "  <address>\n", made when first shown */
	char *text;
	size_t tlen;
};

#define MEMO_MAX (1u << 16)	/* addresses kept */

void dump_out_flush(struct dump *p)
{
	if (p->on)
		fwrite(p->obuf, 1, p->on, p->out);
	p->on = 0;
}

static void out_put(struct dump *p, const char *s, size_t n)
{
	if (p->on + n > sizeof(p->obuf)) {
		dump_out_flush(p);
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

void dump_memo_clear(struct dump *p)
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

/* The code version the cursor's instruction at ip ran in (its item's
 * code_tag: code that changed while traced), 0: the memory's. */
static uint32_t tag_of(const struct dump *p, uint64_t ip)
{
	const struct dbg_item *it = p->cur ? dbg_cursor_item(p->cur) : NULL;

	return it && it->kind == DBG_ITEM_INSN && it->ip == ip ? it->code_tag : 0;
}

/* The instruction at ip as it ran. */
static const struct dbg_insn *insn_of(struct dump *p, uint64_t ip)
{
	return tag_of(p, ip) ? dbg_cursor_insn(p->cur) : dbg_insn_cached(p->d, ip);
}

/* The memo of ip, made on its first use. */
static struct memo *memo_get(struct dump *p, uint64_t ip)
{
	struct dbg_module *mod;
	struct memo *m;
	uint32_t tag = tag_of(p, ip);
	size_t k;

	if (p->mcap) {
		for (k = memo_slot(p, ip); p->memo[k].ip; k = (k + 1) & (p->mcap - 1))
			if (p->memo[k].ip == ip && p->memo[k].tag == tag)
				return &p->memo[k];
	}
	if (p->mn >= MEMO_MAX)
		dump_memo_clear(p);
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
	m->tag = tag;
	if ((mod = dbg_module_for(p->d, ip)))
		sym_lookup_addr(mod->sym, ip, &m->loc);
	if (p->json)
		make_json(p, m, insn_of(p, ip));
	else
		make_text(p, m, insn_of(p, ip));
	return m;
}

/* LLDB's names of control-flow kinds (lldb::InstructionControlFlowKind). */
static const char *kind_name(const struct disasm_insn *in)
{
	switch (in->kind) {
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
		return "far call";
	case DISASM_KIND_FAR:	/* ljmp, lcall, lret, iret, sysret, sysexit */
		if (strstr(in->mnemonic, "ret") || strstr(in->mnemonic, "sysexit"))
			return "far return";
		return strstr(in->mnemonic, "jmp") ? "far jump" : "far call";
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
		dump_out_flush(p);
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

	snprintf(addr, sizeof(addr), "0x%" PRIx64, m->ip);	/* LLDB's: not padded */
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
		if (p->o->kinds)	/* as LLDB: with -k only */
			json_object_object_add(o, "controlFlowKind",
					       json_object_new_string(kind_name(&e->in)));
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

/* "; <+off>" (a target in ip's function) or "; name[ + off]", then
 * " at file:line[:column]" when the target has a line; "" when the
 * target has no symbol.  Returns the length written. */
static int branch_note(struct dump *p, struct dbg_module *mod, uint64_t ip,
		       const struct disasm_insn *in, char *t, size_t n)
{
	struct dbg_module *tm = dbg_module_for(p->d, in->target);
	struct sym_loc a, b;
	int pad = 25 - (int)strlen(in->operands), k;

	if (!tm || sym_lookup_addr(tm->sym, in->target, &b) < 0 || !b.func)
		return 0;
	if (tm == mod && sym_lookup_addr(mod->sym, ip, &a) == 0 && a.func &&
	    a.func_addr == b.func_addr)
		k = snprintf(t, n, "%*s ; <+%" PRIu64 ">", pad > 0 ? pad : 0, "",
			     in->target - b.func_addr);
	else if (in->target != b.func_addr)
		k = snprintf(t, n, "%*s ; %s + %" PRIu64, pad > 0 ? pad : 0, "", b.func,
			     in->target - b.func_addr);
	else
		k = snprintf(t, n, "%*s ; %s", pad > 0 ? pad : 0, "", b.func);
	if (b.file && b.line && k >= 0 && (size_t)k < n) {
		const char *base = strrchr(b.file, '/');

		k += snprintf(t + k, n - (size_t)k, " at %s:%u", base ? base + 1 : b.file, b.line);
		if (b.column && (size_t)k < n)
			k += snprintf(t + k, n - (size_t)k, ":%u", b.column);
	}
	return k < 0 ? 0 : (size_t)k < n ? k : (int)n - 1;
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
			k += snprintf(t + k, sizeof(t) - (size_t)k, "%-12s", kind_name(in));
		if (in->operands[0])
			k += snprintf(t + k, sizeof(t) - (size_t)k, "%-6s %s", in->mnemonic, in->operands);
		else
			k += snprintf(t + k, sizeof(t) - (size_t)k, "%s", in->mnemonic);
		/* direct branches and calls, as LLDB notes them: within the
		 * function "; <+28> at trace_loop.c:4:5", elsewhere
		 * "; fact at recurse.c:4:17" or "; name + 3" */
		if (in->has_target)
			k += branch_note(p, mod, m->ip, in, t + k, sizeof(t) - (size_t)k);
		if (k > (int)sizeof(t) - 2)
			k = (int)sizeof(t) - 2;
		t[k++] = '\n';
		t[k] = 0;
	}
	m->tlen = (size_t)k;
	m->text = xstrdup(t);
}

/* Instruction id at item index, at ip. */
void dump_print_insn(struct dump *p, uint64_t id, uint64_t index, uint64_t ip)
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
		json_members(p, o, m, insn_of(p, ip));
		cmd_trace_clock_json(&p->clk, index, p->o->times, o);
		dump_out_flush(p);
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
void dump_print_side(struct dump *p, uint64_t id, uint64_t index, const struct dbg_item *it)
{
	char tbuf[64], tbuf2[256], col[32] = "";

	dump_out_flush(p);
	if (p->json) {
		struct json_object *o = json_object_new_object();
		char buf[64];

		json_object_object_add(o, "id", json_object_new_int64((int64_t)id));
		if (cmd_trace_is_error(it)) {
			json_object_object_add(o, "error", json_object_new_string(error_text(it)));
			if (it->kind == DBG_ITEM_GAP)
				json_object_object_add(o, "traceOffset", json_object_new_uint64(it->offset));
		} else {
			json_object_object_add(o, "event", json_object_new_string(cmd_trace_event_name(it)));
			if (it->event == DBG_EV_TICK)
				json_object_object_add(o, "hwClock", json_object_new_uint64(it->tsc));
			if (it->event == DBG_EV_CPU)
				json_object_object_add(o, "cpuId", json_object_new_int(it->cpu));
			if (it->event == DBG_EV_SYNC) {
				snprintf(buf, sizeof(buf), "offset = 0x%" PRIx64, it->offset);
				json_object_object_add(o, "syncPointMetadata", json_object_new_string(buf));
			}
		}
		if (it->ip) {
			snprintf(buf, sizeof(buf), "0x%" PRIx64, it->ip);
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

