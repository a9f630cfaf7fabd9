/* cmd/cmd-disasm.c: "disassemble" (and memory read -f i), LLDB's layout:
 * a "module`function:" line, <+offset>, the branch targets' symbols. */
#include "cmd/dis-comment.h"
#include "cmd/builtin.h"
#include "cmd/data.h"
#include "cmd/report.h"
#include "core/session/session.h"
#include "core/session/settings.h"
#include "core/symbols/source.h"
#include "disasm/disasm.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DIS_MAX_INSNS 2000

/* ---- disassembly ---- */


struct disasm *cmd_dis_new(struct cmd_ctx *ctx)
{
	struct ptdb_err err;
	struct disasm *ds = disasm_new(&err);
	const char *fl = settings_get(&ctx->s->settings, SETTING_DISASSEMBLY_FLAVOR);

	if (!ds) {
		cmd_error(ctx, "%s", err.msg);
		return NULL;
	}
	disasm_set_flavor(ds, fl && !strcmp(fl, "intel") ? DISASM_INTEL : DISASM_ATT);
	return ds;
}

/* Symbol of addr: module and function (func NULL if none). */
static void sym_at(struct dbg *d, uint64_t addr, struct dbg_module **mp, struct sym_loc *loc)
{
	struct dbg_module *m = dbg_module_for(d, addr);

	memset(loc, 0, sizeof(*loc));
	*mp = m;
	if (m)
		sym_lookup_addr(m->sym, addr, loc);
}

/* Decodes instructions from start: at most count (0: no limit), below end
 * (0: no limit), and with func_only, while they belong to the function
 * starting at start.  Returns the number decoded into *out (heap). */
static int dis_collect(struct dbg *d, struct disasm *ds, uint64_t start, uint64_t end,
		       unsigned count, int func_only, struct disasm_insn **out)
{
	uint8_t win[4096];
	uint64_t wstart = 0;
	size_t wlen = 0;
	uint64_t a = start;
	int n = 0, cap = 0;
	struct disasm_insn *v = NULL;

	while (n < DIS_MAX_INSNS && (!count || (unsigned)n < count) && (!end || a < end)) {
		struct ptdb_err err;
		struct disasm_insn in;

		if (func_only && a != start) {
			struct dbg_module *m;
			struct sym_loc loc;

			sym_at(d, a, &m, &loc);
			if (!loc.func || loc.func_addr != start)
				break;
		}
		if (a < wstart || a + 16 > wstart + wlen) {
			wstart = a;
			wlen = cmd_data_read(d, a, win, sizeof(win));
			if (!wlen)
				break;
		}
		if (disasm_insn(ds, win + (a - wstart), wlen - (size_t)(a - wstart), a, &in, &err) < 0) {
			if (wlen - (a - wstart) < 16 && wlen == sizeof(win)) {
				wlen = 0;	/* truncated at the window's end: refill */
				continue;
			}
			memset(&in, 0, sizeof(in));
			in.addr = a;
			in.len = 1;
			in.bytes[0] = win[a - wstart];
			snprintf(in.mnemonic, sizeof(in.mnemonic), "(bad)");
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xrealloc(v, (size_t)cap * sizeof(*v));
		}
		v[n++] = in;
		a += in.len;
	}
	*out = v;
	return n;
}

/* Prints instructions LLDB style, a "module`function:" line before each
 * function's run. */
static void dis_print(struct cmd_ctx *ctx, const struct disasm_insn *v, int n,
		      const struct cmd_dis_opts *o)
{
	struct dbg *d = &ctx->s->dbg;
	int offw = 0, bytew = 0;
	uint64_t cur = UINT64_MAX;
	char off[32], cm[512], bytes[64], name[1024];

	for (int i = 0; i < n; i++) {
		struct dbg_module *m;
		struct sym_loc loc;

		sym_at(d, v[i].addr, &m, &loc);
		if (loc.func) {
			int w = snprintf(off, sizeof(off), "<+%" PRIu64 ">:", v[i].addr - loc.func_addr);

			if (w > offw)
				offw = w;
		}
		if (v[i].len * 3 - 1 > bytew)
			bytew = v[i].len * 3 - 1;
	}
	for (int i = 0; i < n; i++) {
		const struct disasm_insn *in = &v[i];
		struct dbg_module *m;
		struct sym_loc loc;
		uint64_t fa;

		sym_at(d, in->addr, &m, &loc);
		fa = loc.func ? loc.func_addr : UINT64_MAX;
		if (!o->bare && (fa != cur || i == 0)) {
			if (loc.func)
				fprintf(ctx->out, "%s`%s:\n", sym_module_name(m->sym),
					loc.func_whole ? loc.func :
					cmd_dis_func_name(loc.func, name, sizeof(name)));
			cur = fa;
		}
		fprintf(ctx->out, "%s0x%" PRIx64, o->mark && in->addr == o->mark ? "->  " : "    ",
			in->addr);
		if (loc.func && !o->bare) {
			snprintf(off, sizeof(off), "<+%" PRIu64 ">:", in->addr - loc.func_addr);
			fprintf(ctx->out, " %-*s ", offw, off);
		} else {
			fputs(": ", ctx->out);
		}
		if (o->show_bytes) {
			size_t k = 0;

			bytes[0] = 0;
			for (int b = 0; b < in->len && k + 4 < sizeof(bytes); b++)
				k += (size_t)snprintf(bytes + k, sizeof(bytes) - k, "%s%02x",
						      b ? " " : "", in->bytes[b]);
			fprintf(ctx->out, "%-*s  ", bytew, bytes);
		}
		cmd_dis_comment(d, in, loc.func ? loc.func_addr : 0, cm, sizeof(cm));
		if (cm[0])
			fprintf(ctx->out, "%-6s %-25s %s\n", in->mnemonic, in->operands, cm);
		else if (in->operands[0])
			fprintf(ctx->out, "%-6s %s\n", in->mnemonic, in->operands);
		else
			fprintf(ctx->out, "%s\n", in->mnemonic);
	}
}

/* Disassembles and prints; returns -1 (error printed) if nothing could be
 * read at start. */
int cmd_dis_range(struct cmd_ctx *ctx, struct disasm *ds, uint64_t start, uint64_t end,
		     unsigned count, int func_only, const struct cmd_dis_opts *o)
{
	struct disasm_insn *v;
	int n = dis_collect(&ctx->s->dbg, ds, start, end, count, func_only, &v);

	if (n == 0) {
		free(v);
		cmd_error(ctx, "Failed to read memory at 0x%" PRIx64 ".", start);
		return -1;
	}
	dis_print(ctx, v, n, o);
	free(v);
	return 0;
}

/* -l: the code of the selected frame's line entry (its pc's, a caller's
 * pc - 1), after its source from the function's declaration line, as
 * lldb-16 shows it. */
static enum cmd_status dis_line(struct cmd_ctx *ctx, struct disasm *ds, uint64_t pc, int caller,
				const struct cmd_dis_opts *o)
{
	struct dbg *d = &ctx->s->dbg;
	uint64_t at = caller ? pc - 1 : pc;
	struct sym_line_entry le;
	struct dbg_module *m;
	struct sym_loc loc;
	struct ptdb_err err;
	unsigned decl;
	char path[4096];

	sym_at(d, at, &m, &loc);
	if (!m || sym_line_entry_at(m->sym, at, &le) < 0 || !le.file || !le.line)
		return cmd_error(ctx, "No line information for the current frame's pc.");
	decl = loc.func && loc.file && !strcmp(loc.file, le.file) ?
	       sym_func_decl_line(m->sym, at) : 0;
	/* blank lines around the source, also when it cannot be read */
	fputc('\n', ctx->out);
	source_list_mixed(ctx->out, source_map_apply(d->source_map, le.file, path, sizeof(path)),
			  decl && decl <= le.line ? decl : le.line, le.line,
			  pc >= le.lo && pc < le.hi, &err);
	fputc('\n', ctx->out);
	return cmd_dis_range(ctx, ds, le.lo, le.hi, 0, 0, o) < 0 ? CMD_ERROR : CMD_OK;
}

static enum cmd_status exec_disassemble(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const struct cmd_node *nd = ctx->node;
	const char *name = cmd_opt(nd, a, "name");
	const char *s_start = cmd_opt(nd, a, "start-address");
	const char *s_end = cmd_opt(nd, a, "end-address");
	const char *s_addr = cmd_opt(nd, a, "address");
	struct cmd_dis_opts o = { 0, cmd_opt_given(nd, a, "bytes"), 0 };
	struct disasm *ds = NULL;
	enum cmd_status st = CMD_OK;
	unsigned count;
	int caller, given = 0;
	uint64_t pc;

	given = !!name + !!s_start + !!s_addr + cmd_opt_given(nd, a, "frame") +
		cmd_opt_given(nd, a, "pc") + cmd_opt_given(nd, a, "line");
	if (given > 1)
		return cmd_error(ctx, "only one of --name, --start-address, --address, --frame, "
				 "--pc and --line may be given");
	if (s_end && !s_start)
		return cmd_error(ctx, "--end-address needs --start-address");
	if (!d->exe_path && !dbg_alive(d)) {
		need_target(ctx);
		return CMD_ERROR;
	}
	if (cmd_data_opt_uint(ctx, a, "count", 0, &count) < 0)
		return CMD_ERROR;
	pc = cmd_selected_pc(d, &caller);
	o.mark = pc;
	if (!given || cmd_opt_given(nd, a, "frame") || cmd_opt_given(nd, a, "pc") ||
	    cmd_opt_given(nd, a, "line")) {
		if (!dbg_alive(d) && !d->tr.pm)
			return cmd_error(ctx, "Cannot disassemble around the current %s without a "
					 "selected frame: no currently running process.",
					 cmd_opt_given(nd, a, "pc") ? "PC" : "function");
	}
	if (!(ds = cmd_dis_new(ctx)))
		return CMD_ERROR;

	if (name) {
		int found = 0;

		for (int i = 0; i < d->nmods; i++) {
			uint64_t entry[16];
			int k;

			if (!cmd_module_usable(d, &d->mods[i]))
				continue;
			k = sym_lookup_func(d->mods[i].sym, name, entry, NULL, 16);
			for (int j = 0; j < k; j++, found++)
				if (cmd_dis_range(ctx, ds, entry[j], 0, count, 1, &o) < 0)
					st = CMD_ERROR;
		}
		if (!found)
			st = cmd_error(ctx, "Unable to find symbol with name '%s'.", name);
	} else if (s_start) {
		uint64_t start, end = 0;

		if (cmd_eval_addr(ctx, s_start, &start) < 0 || (s_end && cmd_eval_addr(ctx, s_end, &end) < 0))
			st = CMD_ERROR;
		else if (s_end && end <= start)
			st = cmd_error(ctx, "End address before start address.");
		else if (cmd_dis_range(ctx, ds, start, s_end ? end : (count ? 0 : start + 32),
				   count, 0, &o) < 0)
			st = CMD_ERROR;
	} else if (cmd_opt_given(nd, a, "line")) {
		st = dis_line(ctx, ds, pc, caller, &o);
	} else if (cmd_opt_given(nd, a, "pc")) {
		if (cmd_dis_range(ctx, ds, pc, 0, count ? count : 4, 0, &o) < 0)
			st = CMD_ERROR;
	} else {
		uint64_t at;
		struct dbg_module *m;
		struct sym_loc loc;

		if (s_addr) {
			if (cmd_eval_addr(ctx, s_addr, &at) < 0) {
				disasm_free(ds);
				return CMD_ERROR;
			}
		} else {
			at = caller ? pc - 1 : pc;
		}
		sym_at(d, at, &m, &loc);
		if (!m || !loc.func || !cmd_module_covers(m, at)) {
			if (s_addr)
				st = cmd_error(ctx, "Could not find function bounds for address 0x%" PRIx64, at);
			else if (cmd_dis_range(ctx, ds, pc, 0, count ? count : 4, 0, &o) < 0)
				st = CMD_ERROR;
		} else if (cmd_dis_range(ctx, ds, loc.func_addr, 0, count, 1, &o) < 0) {
			st = CMD_ERROR;
		}
	}
	disasm_free(ds);
	return st;
}

const struct cmd_node cmd_disassemble_node = {
	.name = "disassemble", .summary = "Disassemble instructions of the current target.",
	.syntax = "",
	.min_args = 0, .max_args = 0, .exec = exec_disassemble,
	.details = "Without options, disassembles the function of the selected frame.  "
		"Works without a process, reading the executable's file.  The selected frame's pc "
		"is marked with '->'.",
	.opts = (const struct cmd_opt[]){
		{ 'n', "name", OPT_STRING, "function", "Disassemble the function with this name." },
		{ 's', "start-address", OPT_STRING, "address", "Disassemble from this address "
			"(32 bytes unless -e or -c is given)." },
		{ 'e', "end-address", OPT_STRING, "address", "Stop before this address (with -s)." },
		{ 'c', "count", OPT_UINT, "num-lines", "The number of instructions to show." },
		{ 'a', "address", OPT_STRING, "address", "Disassemble the function holding this "
			"address." },
		{ 'f', "frame", OPT_FLAG, NULL, "Disassemble the function of the selected frame "
			"(the default)." },
		{ 'p', "pc", OPT_FLAG, NULL, "Disassemble a few instructions from the selected "
			"frame's pc." },
		{ 'l', "line", OPT_FLAG, NULL, "Disassemble the selected frame's current source "
			"line (its line entry), after its source from the function's declaration." },
		{ 'b', "bytes", OPT_FLAG, NULL, "Show the bytes of each instruction." },
		{ 0 } },
};
