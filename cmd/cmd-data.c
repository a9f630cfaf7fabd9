/* cmd/cmd-data.c: looking at the program's modules and source — "image
 * list|lookup", "source list".  What the data commands share (cmd/data.h)
 * is in cmd/data.c. */
#include "cmd/builtin.h"
#include "cmd/data.h"
#include "cmd/report.h"
#include "core/session/session.h"
#include "core/session/size.h"
#include "core/symbols/source.h"
#include "core/symbols/sym_file.h"

#include <inttypes.h>
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- image list / lookup ---- */

/* lldb-16's order of the modules: the executable, the program
 * interpreter, the vDSO, then the libraries in link-map order, then any
 * other (a module not in the link map) */
static int image_rank(struct dbg *d, struct dbg_module *m)
{
	if (m->is_exe)
		return 0;
	if (cmd_module_is_interp(d, m))
		return 1;
	if (!strcmp(m->path, "[vdso]"))
		return 2;
	return m->lm_order ? 2 + m->lm_order : 1 << 20;
}

static void image_line(struct cmd_ctx *ctx, int k, struct dbg_module *m)
{
	uint64_t at = m->end ? m->start : sym_module_link_base(m->sym);
	const char *dbgf = sym_module_debug_path(m->sym);
	char uuid[128];

	sym_module_uuid(m->sym, uuid, sizeof(uuid));
	fprintf(ctx->out, "[%3d] ", k);
	if (uuid[0])
		fprintf(ctx->out, "%s ", uuid);
	fprintf(ctx->out, "0x%016" PRIx64 " %s", at, sym_module_path(m->sym));
	if (!strcmp(m->path, "[vdso]"))	/* lldb-16 names it by its address too */
		fprintf(ctx->out, " (0x%016" PRIx64 ")", at);
	fputc('\n', ctx->out);
	if (dbgf)	/* the separate debug file its symbols come from */
		fprintf(ctx->out, "      %s\n", dbgf);
}

static enum cmd_status exec_image_list(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	int k = 0, last = -1;

	(void)a;
	if (need_target(ctx) < 0)
		return CMD_ERROR;
	/* by rank, then in the session's order: a pass per rank present */
	for (;;) {
		int next = INT_MAX;

		for (int i = 0; i < d->nmods; i++) {
			struct dbg_module *m = &d->mods[i];
			int r;

			if (!m->sym || (dbg_alive(d) && !m->end && !m->is_exe))
				continue;
			r = image_rank(d, m);
			if (r > last && r < next)
				next = r;
		}
		if (next == INT_MAX)
			break;
		for (int i = 0; i < d->nmods; i++) {
			struct dbg_module *m = &d->mods[i];

			if (m->sym && !(dbg_alive(d) && !m->end && !m->is_exe) && image_rank(d, m) == next)
				image_line(ctx, k++, m);
		}
		last = next;
	}
	return CMD_OK;
}

/* "      Address: trace_loop[0x...] (trace_loop..text + 4)" and the summary. */
static void lookup_print(struct cmd_ctx *ctx, struct dbg_module *m, uint64_t addr,
			 const char *indent)
{
	struct dbg *d = &ctx->s->dbg;
	uint64_t file_addr = addr - sym_module_bias(m->sym), sec = 0;
	const char *mn = sym_module_name(m->sym);
	char secname[128] = "", buf[512], pad[64];

	sym_file_section(m->sym, file_addr, secname, sizeof(secname), &sec);
	fprintf(ctx->out, "%sAddress: %s[0x%016" PRIx64 "]", indent, mn, file_addr);
	if (secname[0])
		fprintf(ctx->out, " (%s.%s + %" PRIu64 ")", mn, secname, file_addr - sec);
	fprintf(ctx->out, "\n%sSummary: %s\n", indent, dbg_format_addr(d, addr, buf, sizeof(buf)));
	snprintf(pad, sizeof(pad), "%s         ", indent);	/* under the summary */
	fputs(dbg_format_inline_callers(d, addr, pad, buf, sizeof(buf)), ctx->out);
}

/* -s: each module's symbols of that name, as lldb-16 lists them (a
 * blank line after each module's) */
static enum cmd_status lookup_symbol(struct cmd_ctx *ctx, const char *name, int regex)
{
	struct dbg *d = &ctx->s->dbg;
	int total = 0;
	regex_t re;

	if (regex && regcomp(&re, name, REG_EXTENDED | REG_NOSUB))
		return cmd_error(ctx, "invalid regular expression '%s'", name);

	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];
		struct sym_symbol sy[16];
		int k;

		if (!cmd_module_usable(d, m))
			continue;
		k = sym_lookup_symbols(m->sym, name, regex ? &re : NULL, sy, 16);
		if (k <= 0)
			continue;
		fprintf(ctx->out, "%d symbols match %s'%s' in %s:\n", k,
			regex ? "the regular expression " : "", name, sym_module_path(m->sym));
		for (int j = 0; j < k; j++) {
			if (sy[j].undef)
				fprintf(ctx->out, "        Name: %s\n        Value: 0x%016" PRIx64 "\n",
					sy[j].name, sy[j].addr);
			else
				lookup_print(ctx, m, sy[j].addr, "        ");
		}
		fprintf(ctx->out, "\n");
		total += k;
	}
	if (regex)
		regfree(&re);
	if (!total)
		return cmd_error(ctx, "no symbol named '%s' found", name);
	return CMD_OK;
}

static enum cmd_status exec_image_lookup(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *s_addr = cmd_opt(ctx->node, a, "address");
	const char *name = cmd_opt(ctx->node, a, "name");
	const char *symbol = cmd_opt(ctx->node, a, "symbol");
	int total = 0, regex = cmd_opt_given(ctx->node, a, "regex");
	regex_t re;

	if (need_target(ctx) < 0)
		return CMD_ERROR;
	if (!!s_addr + !!name + !!symbol != 1)
		return cmd_error(ctx, "give one of --address, --name and --symbol");
	if (symbol)
		return lookup_symbol(ctx, symbol, regex);
	if (s_addr) {
		uint64_t addr;
		struct dbg_module *m;

		if (cmd_eval_addr(ctx, s_addr, &addr) < 0)
			return CMD_ERROR;
		m = cmd_module_at(d, addr);
		if (!m)
			return cmd_error(ctx, "address 0x%" PRIx64 " is not in any module", addr);
		lookup_print(ctx, m, addr, "      ");
		return CMD_OK;
	}
	if (regex && regcomp(&re, name, REG_EXTENDED | REG_NOSUB))
		return cmd_error(ctx, "invalid regular expression '%s'", name);
	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];
		uint64_t entry[16];
		int k;

		if (!cmd_module_usable(d, m))
			continue;
		k = regex ? sym_lookup_func_regex(m->sym, &re, entry, NULL, 16) :
			    sym_lookup_func(m->sym, name, entry, NULL, 16);
		if (k <= 0)
			continue;
		fprintf(ctx->out, "%d match%s found in %s:\n", k, k == 1 ? "" : "es",
			sym_module_path(m->sym));
		for (int j = 0; j < k; j++)
			lookup_print(ctx, m, entry[j], "        ");
		total += k;
	}
	if (regex)
		regfree(&re);
	if (!total)
		return cmd_error(ctx, "no function named '%s' found", name);
	return CMD_OK;
}

/* ---- source list ---- */


/* Finds a source file: an existing path, else a file of the line tables
 * whose path ends in name. */
static int find_source(struct dbg *d, const char *name, char *out, size_t n)
{
	char abs[PATH_MAX];

	if (access(name, R_OK) == 0 && realpath(name, abs)) {
		snprintf(out, n, "%s", abs);
		return 0;
	}
	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];
		uint64_t addr;
		struct sym_loc loc;

		if (!cmd_module_usable(d, m) ||
		    sym_lookup_line(m->sym, name, 1, &addr, 1, NULL) <= 0 ||
		    sym_lookup_addr(m->sym, addr, &loc) < 0 || !loc.file)
			continue;
		snprintf(out, n, "%s", loc.file);
		return 0;
	}
	return -1;
}

/* File and line of function name's entry; with decl, its declaration's
 * line when the DWARF gives one (LLDB's start line of a function). */
static int func_line(struct dbg *d, const char *name, const char **file, unsigned *line, int decl)
{
	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];
		uint64_t entry;
		struct sym_loc loc;

		if (cmd_module_usable(d, m) && sym_lookup_func(m->sym, name, &entry, NULL, 1) > 0 &&
		    sym_lookup_addr(m->sym, entry, &loc) == 0 && loc.file && loc.line) {
			unsigned dl = decl ? sym_func_decl_line(m->sym, entry) : 0;

			*file = loc.file;
			*line = dl ? dl : loc.line;
			return 0;
		}
	}
	return -1;
}

/* What a listing around the selected frame belongs to: the process's stop
 * (a loaded trace does not move) and the replay cursor's place; a new one
 * lists around the frame again, as a stop does. */
static uint64_t list_stop_id(struct dbg *d)
{
	return dbg_alive(d) ? target_stop_id(d->proc) : 0;
}

static uint64_t list_replay_id(const struct dbg *d)
{
	uint64_t id = 0, total;

	dbg_replay_cursor(d, &id, &total);
	return id;
}

static enum cmd_status exec_source_list(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct session *s = ctx->s;
	struct dbg *d = &s->dbg;
	const char *fname = cmd_opt(ctx->node, a, "file");
	const char *func = cmd_opt(ctx->node, a, "name");
	const char *file = NULL;
	char path[PATH_MAX];
	unsigned count, line = 0, first, back;
	struct ptdb_err err;
	int shown, center = 1, given;

	if (need_target(ctx) < 0)
		return CMD_ERROR;
	if (cmd_data_opt_uint(ctx, a, "count", 0, &count) < 0 || cmd_data_opt_uint(ctx, a, "line", 0, &line) < 0)
		return CMD_ERROR;
	given = count != 0;
	if (count == 0)
		count = 10;
	back = count >= 10 ? 5 : count / 2;
	if (func) {
		if (func_line(d, func, &file, &line, 1) < 0)
			return cmd_error(ctx, "Could not find function named: \"%s\".", func);
		fprintf(ctx->out, "File: %s\n", file);
		count++;	/* lldb-16: from the declaration less back, count more */
	} else if (fname) {
		if (find_source(d, fname, path, sizeof(path)) < 0)
			return cmd_error(ctx, "Could not find source file \"%s\".", fname);
		file = path;
		center = 0;
		if (!line)
			line = 1;
		else
			count++;	/* lldb-16: from the line, count more after it */
	} else if (line) {
		center = 0;	/* lldb-16: count lines from the line */
		if (s->list_file[0]) {
			file = s->list_file;
		} else if (d->mods && d->mods[0].sym && sym_main_file(d->mods[0].sym)) {
			file = sym_main_file(d->mods[0].sym);
		} else {
			return cmd_error(ctx, "No default source file; use --file.");
		}
	} else {
		int caller;
		uint64_t pc = cmd_selected_pc(d, &caller);
		unsigned col, sfirst, scount;
		const char *sfile;

		/* lldb-16 goes on from the last lines shown, by a stop or a
		 * listing: from their first line plus the count asked for now
		 * (else theirs), that many lines */
		if (report_source_shown(&sfile, &sfirst, &scount) != s->list_seen) {
			file = sfile;
			count = given ? count : scount;
			line = sfirst + count;
			center = 0;
		} else if (pc && (d->pid != ctx->s->list_pid || list_stop_id(d) != ctx->s->list_stop_id ||
			   dbg_replay_tid(d) != s->list_replay_tid || list_replay_id(d) != s->list_replay_id ||
			   !s->list_next) &&
		    dbg_addr_line(d, caller ? pc - 1 : pc, &file, &line, &col) == 0) {
			/* around the selected frame */
		} else if (s->list_next && s->list_file[0]) {
			unsigned prev = s->list_count ? s->list_count : 10;

			file = s->list_file;
			center = 0;
			count = given ? count : prev;
			line = s->list_next - prev + count;
		} else if (func_line(d, "main", &file, &line, 0) < 0) {
			if (d->mods && d->mods[0].sym && sym_main_file(d->mods[0].sym)) {
				file = sym_main_file(d->mods[0].sym);
				line = 1;
			} else {
				return cmd_error(ctx, "No source file available; use --file.");
			}
		}
	}
	first = center ? (line > back ? line - back : 1) : line;
	if (file != s->list_file)
		snprintf(s->list_file, sizeof(s->list_file), "%s", file);
	{
		char mapped[4096];

		shown = source_list_range(ctx->out, dbg_source_path(d, s->list_file, mapped, sizeof(mapped)),
					  first, first + count - 1, &err);
	}
	if (shown < 0)
		return cmd_error(ctx, "%s", err.msg);
	s->list_next = first + (unsigned)shown;
	s->list_count = count;
	{
		const char *f;
		unsigned nx, nc;

		s->list_seen = report_source_shown(&f, &nx, &nc);
	}
	if (dbg_alive(d) || d->tr.pm) {
		ctx->s->list_pid = d->pid;
		ctx->s->list_stop_id = list_stop_id(d);
		s->list_replay_tid = dbg_replay_tid(d);
		s->list_replay_id = list_replay_id(d);
	}
	return CMD_OK;
}

/* ---- the nodes ---- */

static const struct cmd_node image_list_node = {
	.name = "list", .summary = "List the modules of the target with their load addresses.",
	.syntax = "", .min_args = 0, .max_args = 0, .exec = exec_image_list,
};

static const struct cmd_node image_lookup_node = {
	.name = "lookup", .summary = "Look up an address or a function name in the modules.",
	.syntax = "", .min_args = 0, .max_args = 0, .flags = CMD_ARGS_SYMBOLS,
	.exec = exec_image_lookup,
	.details = "Give exactly one of -a, -n and -s; -r makes -n or -s a regular expression.",
	.opts = (const struct cmd_opt[]){
		{ 'a', "address", OPT_STRING, "address", "Show the module, file address and "
			"symbol of this address." },
		{ 'n', "name", OPT_STRING, "function", "Find the functions with this name." },
		{ 's', "symbol", OPT_STRING, "symbol", "Find the ELF symbols with this name (or "
			"this name before its @version) in each module's symbol table: a defined one "
			"with its address, an undefined one (another module gives it) with value 0." },
		{ 'r', "regex", OPT_FLAG, NULL, "The name of -n or -s is an extended regular "
			"expression (unanchored): the functions or symbols it finds." },
		{ 0 } },
};

static const struct cmd_node *const image_children[] = {
	&image_list_node, &image_lookup_node, NULL,
};

const struct cmd_node cmd_image_node = {
	.name = "image", .summary = "Commands for accessing the modules of the target.",
	.children = image_children,
};

/* LLDB's own name of it: 'image' is its alias of 'target modules' */
const struct cmd_node cmd_target_modules_node = {
	.name = "modules", .summary = "Commands for accessing information for one or more target modules.",
	.children = image_children,
};

/* As LLDB: an empty line lists on after the last line shown. */
static const char *source_list_repeat(const char *line, char *buf, size_t n)
{
	(void)line;
	snprintf(buf, n, "source list");
	return buf;
}

static const struct cmd_node source_list_node = {
	.repeat = source_list_repeat,
	.name = "list", .summary = "List source code of the target.",
	.syntax = "",
	.min_args = 0, .max_args = 0, .exec = exec_source_list,
	.details = "Without options, lists around the selected frame's line, or around main "
		"before the process runs; repeating it (or Enter after a listing) continues "
		"after the last line shown.",
	.opts = (const struct cmd_opt[]){
		{ 'f', "file", OPT_STRING, "filename", "The source file (a path, or a name "
			"matched against the line tables)." },
		{ 'l', "line", OPT_UINT, "linenum", "List around this line." },
		{ 'n', "name", OPT_STRING, "symbol", "List around the start of this function." },
		{ 'c', "count", OPT_UINT, "count", "The number of lines to show (default 10)." },
		{ 0 } },
};

const struct cmd_node cmd_source_node = {
	.name = "source", .summary = "Commands for examining source code of the target.",
	.children = (const struct cmd_node *const[]){ &source_list_node, NULL },
};
