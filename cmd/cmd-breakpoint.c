/* cmd/cmd-breakpoint.c: the "breakpoint" group (set, list, delete,
 * enable, disable); "b" is "breakpoint set" with one smart argument. */
#include "cmd/trace-progress.h"
#include "cmd/builtin.h"
#include "cmd/bpcond.h"
#include "cmd/report.h"
#include "cmd/data.h"
#include "core/session/session.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -1 : 0;
}

static int parse_line(const char *s, unsigned *line)
{
	uint64_t v;

	if (!isdigit((unsigned char)*s) || parse_u64(s, &v) < 0 || v == 0 || v > 10000000)
		return -1;
	*line = (unsigned)v;
	return 0;
}

static void print_loc_where(FILE *out, struct dbg *d, uint64_t addr)
{
	char buf[512];

	/* in no module (yet): LLDB gives the address alone */
	if (!dbg_module_for(d, addr))
		fprintf(out, "address = 0x%016" PRIx64, addr);
	else
		fprintf(out, "where = %s, address = 0x%016" PRIx64,
			dbg_format_addr(d, addr, buf, sizeof(buf)), addr);
}

static void print_new(struct cmd_ctx *ctx, struct dbg_bp *bp)
{
	struct dbg *d = &ctx->s->dbg;

	fprintf(ctx->out, "Breakpoint %u: ", bp->id);
	if (bp->nlocs == 1) {
		print_loc_where(ctx->out, d, bp->locs[0].addr);
		fputc('\n', ctx->out);
	} else if (bp->nlocs > 1) {
		fprintf(ctx->out, "%d locations.\n", bp->nlocs);
	} else {
		fprintf(ctx->out, "no locations (pending).\n");
		fprintf(ctx->out, "WARNING:  Unable to resolve breakpoint to any actual locations.\n");
	}
}

/* -r: every function whose name the regex finds, in every module */
static enum cmd_status set_regex(struct cmd_ctx *ctx, const struct cmd_args *a, const char *regex,
				 int other)
{
	struct dbg_bp *bp;
	regex_t re;
	char why[256];
	int r;

	if (other)
		return cmd_error(ctx, "give only one of -n, -r, -l and -a");
	if ((r = regcomp(&re, regex, REG_EXTENDED | REG_NOSUB))) {
		regerror(r, &re, why, sizeof(why));
		return cmd_error(ctx, "Function name regular expression could not be compiled: %s", why);
	}
	regfree(&re);
	bp = dbg_bp_add(&ctx->s->dbg, DBG_BP_REGEX, regex, NULL, 0, 0);
	bp_apply_options(ctx, a, bp);
	print_new(ctx, bp);
	return CMD_OK;
}

static enum cmd_status exec_set(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *name = cmd_opt(ctx->node, a, "name");
	const char *file = cmd_opt(ctx->node, a, "file");
	const char *line = cmd_opt(ctx->node, a, "line");
	const char *addr = cmd_opt(ctx->node, a, "address");
	const char *regex = cmd_opt(ctx->node, a, "func-regex");
	struct dbg_bp *bp;
	unsigned ln = 0;
	uint64_t av = 0;

	if (bp_check_options(ctx, a) < 0)
		return CMD_ERROR;
	if (a->argc && (name || file || line || addr || regex))
		return cmd_error(ctx, "'breakpoint set' doesn't take any arguments.");
	if (a->argc > 1) {
		/* b WORD WORD...: one name, as lldb-16's 'b' takes the rest */
		char nm[1024];
		size_t k = 0;

		for (int i = 0; i < a->argc && k < sizeof(nm) - 1; i++)
			k += (size_t)snprintf(nm + k, sizeof(nm) - k, "%s%s", i ? " " : "", a->argv[i]);
		bp = dbg_bp_add(d, DBG_BP_NAME, nm, NULL, 0, 0);
		bp_apply_options(ctx, a, bp);
		print_new(ctx, bp);
		return CMD_OK;
	}
	if (a->argc == 1) {
		/* b NAME | FILE:LINE | LINE | ADDRESS */
		const char *w = a->argv[0], *colon = strrchr(w, ':');

		if ((!strncmp(w, "0x", 2) || !strncmp(w, "0X", 2)) && parse_u64(w, &av) == 0) {
			addr = w;	/* else a name, as lldb-16's 'b' takes it */
		} else if (isdigit((unsigned char)w[0]) && strncmp(w, "0x", 2) && strncmp(w, "0X", 2)) {
			if (parse_line(w, &ln) < 0)
				return cmd_error(ctx, "invalid line number '%s'", w);
			line = w;
		} else if (colon && colon != w && colon[1] != ':' && colon[-1] != ':') {
			char *f = xstrdup(w);

			f[colon - w] = 0;
			if (parse_line(colon + 1, &ln) < 0) {
				free(f);
				return cmd_error(ctx, "invalid line number in '%s'", w);
			}
			bp = dbg_bp_add(d, DBG_BP_LINE, NULL, f, ln, 0);
			free(f);
			bp_apply_options(ctx, a, bp);
			print_new(ctx, bp);
			return CMD_OK;
		} else {
			name = w;
		}
		if (!*w || !strcmp(w, ":"))
			return cmd_error(ctx, "invalid breakpoint location '%s'", w);
	}
	if (regex)
		return set_regex(ctx, a, regex, name || file || line || addr);
	if (line && parse_line(line, &ln) < 0)
		return cmd_error(ctx, "invalid line number '%s'", line);
	/* -a takes an address expression, as lldb-16's: main+4, &var,
	 * $pc, (char *)f + 2 */
	if (addr && !av && parse_u64(addr, &av) < 0 && cmd_eval_addr(ctx, addr, &av) < 0)
		return CMD_ERROR;
	if (!name && !line && !addr)
		return cmd_error(ctx, "breakpoint set needs a location: -n <name>, -f <file> -l <line>, -a <address>");
	if ((name != NULL) + (line != NULL) + (addr != NULL) > 1)
		return cmd_error(ctx, "give only one of -n, -l and -a");
	if (file && !line)
		return cmd_error(ctx, "-f needs -l <line>");
	if (line && !file && !d->exe_path)
		return cmd_error(ctx, "no default file: use 'file' first, or -f <file>");
	if (name)
		bp = dbg_bp_add(d, DBG_BP_NAME, name, NULL, 0, 0);
	else if (line)
		bp = dbg_bp_add(d, DBG_BP_LINE, NULL, file, ln, 0);
	else
		bp = dbg_bp_add(d, DBG_BP_ADDR, NULL, NULL, 0, av);
	bp_apply_options(ctx, a, bp);
	print_new(ctx, bp);
	return CMD_OK;
}

/* As lldb-16 says it: planted, or, with no live process (it exited, or a
 * trace is loaded), enabled at an address of a loaded module. */
static int loc_resolved(struct dbg *d, const struct dbg_bp *bp, int k)
{
	struct dbg_module *m;

	if (bp->locs[k].planted)
		return 1;
	if (dbg_alive(d) || !bp->enabled || !bp->locs[k].enabled)
		return 0;
	m = dbg_module_for(d, bp->locs[k].addr);
	return m && m->end;
}

/* A breakpoint's commands as lldb-16 lists them under its first line. */
static void print_bp_commands(FILE *out, const struct dbg_bp *bp)
{
	if (!bp->ncommands)
		return;
	fputs("    Breakpoint commands:\n", out);
	for (int i = 0; i < bp->ncommands; i++)
		fprintf(out, "      %s\n", bp->commands[i]);
	fputc('\n', out);
}

/* brief (-b): the first line alone, as lldb-16. */
static void print_bp(FILE *out, struct dbg *d, struct dbg_bp *bp, int brief)
{
	int resolved = 0;

	for (int k = 0; k < bp->nlocs; k++)
		resolved += loc_resolved(d, bp, k);
	fprintf(out, "%u: ", bp->id);
	switch (bp->kind) {
	case DBG_BP_NAME:
		fprintf(out, "name = '%s'", bp->name);
		break;
	case DBG_BP_REGEX:
		fprintf(out, "regex = '%s'", bp->name);
		break;
	case DBG_BP_LINE:
		fprintf(out, "file = '%s', line = %u, exact_match = 0", bp->file ? bp->file :
			(d->nmods && d->mods[0].sym && sym_main_file(d->mods[0].sym) ?
			 sym_main_file(d->mods[0].sym) : "<main>"), bp->line);
		break;
	case DBG_BP_ADDR: {
		struct dbg_module *m = dbg_module_for(d, bp->addr);

		/* in a loaded module: module[file address], as lldb-16 keeps it */
		if (m && m->sym && m->end)
			fprintf(out, "address = %s[0x%016" PRIx64 "]", sym_module_name(m->sym),
				bp->addr - sym_module_bias(m->sym));
		else
			fprintf(out, "address = 0x%016" PRIx64, bp->addr);
		break;
	}
	}
	fprintf(out, ", locations = %d%s", bp->nlocs, bp->nlocs ? "" : " (pending)");
	if (resolved)	/* lldb-16 counts hits only of planted breakpoints */
		fprintf(out, ", resolved = %d, hit count = %u", resolved, bp->hits);
	bp_print_options(out, bp);
	fputc('\n', out);
	if (brief)
		return;
	print_bp_commands(out, bp);
	bp_print_condition(out, bp);
	for (int k = 0; k < bp->nlocs; k++) {
		struct dbg_module *m = dbg_module_for(d, bp->locs[k].addr);
		char buf[512];

		fprintf(out, "  %u.%d: ", bp->id, k + 1);
		if (m && m->sym && !m->end)	/* never loaded: module[file address] */
			fprintf(out, "where = %s, address = %s[0x%016" PRIx64 "]",
				dbg_format_addr(d, bp->locs[k].addr, buf, sizeof(buf)),
				sym_module_name(m->sym),
				bp->locs[k].addr - sym_module_bias(m->sym));
		else
			print_loc_where(out, d, bp->locs[k].addr);
		fprintf(out, ", %s, hit count = %u%s\n",
			loc_resolved(d, bp, k) ? "resolved" : "unresolved", bp->locs[k].hits,
			bp->locs[k].enabled ? "" : "  Options: disabled");
	}
	fputc('\n', out);
}

static enum cmd_status exec_list(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;

	if (!d->nbps) {
		fprintf(ctx->out, "No breakpoints currently set.\n");
		return CMD_OK;
	}
	for (int k = 0; k < a->argc; k++) {
		char *end;
		unsigned long id = strtoul(a->argv[k], &end, 10);

		if (end == a->argv[k] || *end || !dbg_bp_find(d, (unsigned)id)) {
			cmd_error(ctx, "'%s' is not a currently valid breakpoint ID.", a->argv[k]);
			return cmd_error(ctx, "Invalid breakpoint ID.");
		}
	}
	if (!a->argc)	/* lldb-16: the header only for the whole list */
		fprintf(ctx->out, "Current breakpoints:\n");
	for (int i = 0; i < d->nbps; i++) {
		int want = a->argc == 0;

		for (int k = 0; k < a->argc; k++)
			want |= strtoul(a->argv[k], NULL, 10) == d->bps[i].id;
		if (want)
			print_bp(ctx->out, d, &d->bps[i], cmd_opt_given(ctx->node, a, "brief"));
	}
	return CMD_OK;
}

/* "N" or "N.M"; 0 ok. */
static int parse_id(struct cmd_ctx *ctx, const char *s, struct dbg_bp **bp, int *loc)
{
	char *end;
	unsigned long id, l = 0;

	errno = 0;
	id = strtoul(s, &end, 10);
	if (end != s && *end == '.') {
		const char *ls = end + 1;

		l = strtoul(ls, &end, 10);
		if (end == ls)
			end = (char *)ls - 1;
	}
	if (errno || end == s || *end || !isdigit((unsigned char)*s)) {
		cmd_error(ctx, "'%s' is not a valid breakpoint ID.", s);
		return -1;
	}
	*bp = dbg_bp_find(&ctx->s->dbg, (unsigned)id);
	if (!*bp) {
		cmd_error(ctx, "'%s' is not a currently valid breakpoint ID.", s);
		return -1;
	}
	if (l > (unsigned long)(*bp)->nlocs) {
		cmd_error(ctx, "'%s' is not a currently valid breakpoint ID.", s);
		return -1;
	}
	*loc = (int)l;
	return 0;
}

/* Every id given is valid, before any is acted on. */
static int check_ids(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	for (int i = 0; i < a->argc; i++) {
		struct dbg_bp *bp;
		int loc;

		if (parse_id(ctx, a->argv[i], &bp, &loc) < 0)
			return -1;
	}
	return 0;
}

static enum cmd_status exec_delete(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	int n = 0, dis = 0;

	if (a->argc == 0) {
		int all = d->nbps;

		while (d->nbps)
			dbg_bp_delete(d, d->bps[0].id);
		fprintf(ctx->out, "All breakpoints removed. (%d breakpoint%s)\n", all,
			all == 1 ? "" : "s");
		return CMD_OK;
	}
	if (check_ids(ctx, a) < 0)
		return CMD_ERROR;
	for (int i = 0; i < a->argc; i++) {
		struct dbg_bp *bp;
		int loc;
		struct ptdb_err err;

		if (parse_id(ctx, a->argv[i], &bp, &loc) < 0)
			return CMD_ERROR;
		if (loc) {
			/* a location cannot be deleted, only disabled (as LLDB) */
			dbg_bp_enable(d, bp, loc, 0, &err);
			dis++;
		} else {
			dbg_bp_delete(d, bp->id);
			n++;
		}
	}
	fprintf(ctx->out, "%d breakpoints deleted; %d breakpoint locations disabled.\n", n, dis);
	return CMD_OK;
}

static enum cmd_status enable_disable(struct cmd_ctx *ctx, const struct cmd_args *a, int on)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;
	int n = 0;

	if (a->argc == 0) {
		for (int i = 0; i < d->nbps; i++)
			dbg_bp_enable(d, &d->bps[i], 0, on, &err);
		fprintf(ctx->out, "All breakpoints %s. (%d breakpoint%s)\n", on ? "enabled" : "disabled",
			d->nbps, d->nbps == 1 ? "" : "s");
		return CMD_OK;
	}
	if (check_ids(ctx, a) < 0)
		return CMD_ERROR;
	for (int i = 0; i < a->argc; i++) {
		struct dbg_bp *bp;
		int loc;

		parse_id(ctx, a->argv[i], &bp, &loc);
		dbg_bp_enable(d, bp, loc, on, &err);
		n++;
	}
	fprintf(ctx->out, "%d breakpoints %s.\n", n, on ? "enabled" : "disabled");
	return CMD_OK;
}

static enum cmd_status exec_enable(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	return enable_disable(ctx, a, 1);
}

static enum cmd_status exec_disable(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	return enable_disable(ctx, a, 0);
}

/* ---- breakpoint commands: run at each hit ---- */

/* The breakpoint named by a whole-number argument; NULL after the error. */
static struct dbg_bp *bp_by_id(struct cmd_ctx *ctx, const char *s)
{
	uint64_t id;
	struct dbg_bp *bp;

	if (!isdigit((unsigned char)*s) || parse_u64(s, &id) < 0 || id > UINT32_MAX) {
		cmd_error(ctx, "invalid breakpoint id '%s'", s);
		return NULL;
	}
	if (!(bp = dbg_bp_find(&ctx->s->dbg, (unsigned)id)))
		cmd_error(ctx, "No breakpoint with id %s.", s);
	return bp;
}

/* "breakpoint command add [-o CMD]... [--auto-continue] <id>": options
 * anywhere, as in LLDB (parsed here: -o repeats). */
static enum cmd_status exec_command_add(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	char **cmds = xcalloc((size_t)a->argc + 1, sizeof(*cmds));
	const char *id = NULL;
	struct dbg_bp *bp;
	int n = 0, autoc = 0;

	for (int i = 0; i < a->argc; i++) {
		const char *w = a->argv[i];

		if (!strcmp(w, "-o") || !strcmp(w, "--one-liner")) {
			if (i + 1 >= a->argc) {
				free(cmds);
				return cmd_error(ctx, "%s needs a command", w);
			}
			cmds[n++] = a->argv[++i];
		} else if (!strncmp(w, "--one-liner=", 12)) {
			cmds[n++] = (char *)w + 12;
		} else if (!strcmp(w, "-G") || !strcmp(w, "--auto-continue")) {
			/* LLDB's -G takes true/false */
			if (!strcmp(w, "-G") && i + 1 < a->argc && (!strcmp(a->argv[i + 1], "true") ||
								 !strcmp(a->argv[i + 1], "false")))
				autoc = !strcmp(a->argv[++i], "true");
			else
				autoc = 1;
		} else if (w[0] == '-' && w[1]) {
			free(cmds);
			return cmd_error(ctx, "unknown option '%s'", w);
		} else if (id) {
			free(cmds);
			return cmd_error(ctx, "one breakpoint id expected, got '%s' and '%s'", id, w);
		} else {
			id = w;
		}
	}
	if (!id) {
		free(cmds);
		return cmd_error(ctx, "breakpoint command add needs a breakpoint id");
	}
	if (!n) {
		free(cmds);
		return cmd_error(ctx, "breakpoint command add needs at least one -o <command>");
	}
	if (!(bp = bp_by_id(ctx, id))) {
		free(cmds);
		return CMD_ERROR;
	}
	dbg_bp_set_commands(bp, cmds, n, autoc);
	free(cmds);
	return CMD_OK;
}

static enum cmd_status exec_command_list(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg_bp *bp = bp_by_id(ctx, a->argv[0]);

	if (!bp)
		return CMD_ERROR;
	if (!bp->ncommands) {
		fprintf(ctx->out, "Breakpoint %u does not have an associated command.\n", bp->id);
		return CMD_OK;
	}
	fprintf(ctx->out, "Breakpoint %u%s:\n    Breakpoint commands:\n", bp->id,
		bp->auto_continue ? " (auto-continue)" : "");
	for (int i = 0; i < bp->ncommands; i++)
		fprintf(ctx->out, "      %s\n", bp->commands[i]);
	return CMD_OK;
}

static enum cmd_status exec_command_delete(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg_bp *bp = bp_by_id(ctx, a->argv[0]);

	if (!bp)
		return CMD_ERROR;
	dbg_bp_set_commands(bp, NULL, 0, 0);
	return CMD_OK;
}

/* cmd with ${hit} replaced by the hit count (heap). */
static char *expand_hit(const char *cmd, unsigned hits)
{
	size_t cap = strlen(cmd) + 32, n = 0;
	char *out = xmalloc(cap);

	for (const char *p = cmd; *p;) {
		if (!strncmp(p, "${hit}", 6)) {
			char num[16];
			int k = snprintf(num, sizeof(num), "%u", hits);

			if (n + (size_t)k + 1 > cap)
				out = xrealloc(out, cap = cap * 2 + (size_t)k);
			memcpy(out + n, num, (size_t)k);
			n += (size_t)k;
			p += 6;
			continue;
		}
		if (n + 2 > cap)
			out = xrealloc(out, cap *= 2);
		out[n++] = *p++;
	}
	out[n] = 0;
	return out;
}

static int depth;	/* commands that run the process themselves */

/* The commands of every breakpoint whose hit made the stop, in each thread
 * at one (lldb-16 runs each location's, in order), that thread selected
 * while they run.  0: none had commands; 1: all that stopped asked to
 * continue; -1: not. */
static int run_hit_commands(struct cmd_ctx *ctx)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_bp_stop bs[DBG_MAX_BP_STOPS];
	int n = d->nbp_stops, any = 0, autoc = 1;
	pid_t sel = d->sel_tid;

	memcpy(bs, d->bp_stops, sizeof(bs[0]) * (size_t)n);
	for (int t = 0; t < n; t++)
		for (int k = 0; k < bs[t].nids; k++) {
			struct dbg_bp *bp = dbg_bp_find(d, bs[t].ids[k]);
			char **cmds;
			int nc;

			if (!bp || !bp->ncommands) {
				autoc = 0;
				continue;
			}
			any = 1;
			autoc &= bp->auto_continue;
			/* the list may change (or the breakpoint go) while it runs */
			nc = bp->ncommands;
			cmds = xcalloc((size_t)nc, sizeof(*cmds));
			for (int i = 0; i < nc; i++)
				cmds[i] = expand_hit(bp->commands[i], bp->hits);
			if (dbg_alive(d) && bs[t].tid != d->sel_tid && dbg_thread_index(d, bs[t].tid)) {
				d->sel_tid = bs[t].tid;
				d->sel_frame = 0;
			}
			depth++;
			for (int i = 0; i < nc; i++) {
				fprintf(ctx->out, "(ptdb) %s\n", cmds[i]);
				fflush(ctx->out);
				cmd_run_line(ctx->s, cmds[i], ctx->out, ctx->err);
			}
			depth--;
			for (int i = 0; i < nc; i++)
				free(cmds[i]);
			free(cmds);
		}
	if (any && dbg_alive(d) && d->sel_tid != sel && dbg_thread_index(d, sel) &&
	    dbg_bp_stop_of(d, sel)) {
		d->sel_tid = sel;	/* the stop's thread selected again */
		d->sel_frame = 0;
	}
	return !any ? 0 : autoc ? 1 : -1;
}

enum cmd_status cmd_after_stop(struct cmd_ctx *ctx, int r, struct dbg_stop *stop,
			       struct ptdb_err *err)
{
	struct dbg *d = &ctx->s->dbg;

	for (;;) {
		struct dbg_stop last0 = d->last;
		int autoc;

		cmd_trace_progress_clear(d);
		if (r < 0)
			return cmd_error(ctx, "%s", err->msg);
		if (d->stop_error) {
			/* the run did what was asked; the condition did not */
			fflush(ctx->out);
			fprintf(ctx->err, "error: %s\n", d->stop_error);
			fflush(ctx->err);
			free(d->stop_error);
			d->stop_error = NULL;
		}
		report_stop(ctx->out, d, stop);
		if (stop->reason == DBG_R_SIGNAL && ctx->s->snapshot_signo &&
		    stop->signo == ctx->s->snapshot_signo && dbg_tracing(d)) {
			/* a trace snapshot, then on */
			struct ptdb_err e2;
			char dir[4200], json[4300];

			/* the next free number: earlier snapshots stay */
			do
				snprintf(dir, sizeof(dir), "%s/snapshot-%u", ctx->s->snapshot_dir,
					 ++ctx->s->snapshot_count);
			while (access(dir, F_OK) == 0);
			if (dbg_save_bundle(d, dir, 0, 0, json, sizeof(json), &e2) < 0)
				cmd_error(ctx, "trace snapshot: %s", e2.msg);
			else
				fprintf(ctx->out, "Trace snapshot %u written to: %s\n",
					ctx->s->snapshot_count, json);
			if (!dbg_alive(d))
				return CMD_OK;
			dbg_interrupt_disarm(d);
			dbg_interrupt_arm(d);
			fprintf(ctx->out, "Process %d resuming\n", (int)d->pid);
			fflush(ctx->out);
			fflush(ctx->err);
			r = dbg_continue(d, stop, err);
			continue;
		}
		/* a plan's stop where a breakpoint's hit came too (a finish
		 * to it): its commands run, the process stays */
		if ((stop->reason != DBG_R_BREAKPOINT && !d->nbp_stops) || depth >= 4 ||
		    !(autoc = run_hit_commands(ctx)) || stop->reason != DBG_R_BREAKPOINT)
			return CMD_OK;
		/* not when the commands ran the process to another stop */
		if (autoc < 0 || !dbg_alive(d) || memcmp(&d->last, &last0, sizeof(last0)))
			return CMD_OK;
		dbg_interrupt_disarm(d);
		dbg_interrupt_arm(d);
		fprintf(ctx->out, "Process %d resuming\n", (int)d->pid);
		fflush(ctx->out);
		fflush(ctx->err);
		r = dbg_continue(d, stop, err);
	}
}

static const struct cmd_node bp_command_add = {
	.name = "add", .summary = "Add commands to run each time a breakpoint is hit.",
	.syntax = "-o <command> [-o <command> ...] [--auto-continue] <breakpoint-id>",
	.details = "${hit} in a command is replaced by the breakpoint's hit count.  With "
		"--auto-continue (LLDB's -G true) the process continues after the commands, so "
		"that, for example, 'breakpoint command add 1 -o \"trace save /tmp/snap-${hit}\" "
		"--auto-continue' keeps the trace before every hit while the program runs.",
	.min_args = 0, .max_args = -1, .flags = CMD_RAW_ARGS, .exec = exec_command_add,
};

static const struct cmd_node bp_command_list = {
	.name = "list", .summary = "List the commands of a breakpoint.",
	.syntax = "<breakpoint-id>", .min_args = 1, .max_args = 1, .exec = exec_command_list,
};

static const struct cmd_node bp_command_delete = {
	.name = "delete", .summary = "Delete the commands of a breakpoint.",
	.syntax = "<breakpoint-id>", .min_args = 1, .max_args = 1, .exec = exec_command_delete,
};

static const struct cmd_node bp_command = {
	.name = "command", .summary = "Commands for the commands breakpoints run when hit.",
	.children = (const struct cmd_node *const[]){
		&bp_command_add, &bp_command_delete, &bp_command_list, NULL },
};

static const struct cmd_node bp_set = {
	.name = "set", .summary = "Set a breakpoint on a function, a source line or an address.",
	.syntax = "[<location>]",
	.details = "'b' takes one location: a function name, FILE:LINE, a LINE in the current "
		"program's main file, or a 0x address.  A breakpoint that matches nothing yet "
		"stays pending and resolves when a module that has it loads.",
	.min_args = 0, .max_args = -1, .exec = exec_set, .flags = CMD_ARGS_SYMBOLS,
	.opts = bp_cond_opts_for_set,
};

static const struct cmd_node bp_list = {
	.name = "list", .summary = "List some or all breakpoints with their locations and hit counts.",
	.syntax = "[<breakpoint-id> ...]", .min_args = 0, .max_args = -1, .exec = exec_list,
	.opts = (const struct cmd_opt[]){
		{ 'b', "brief", OPT_FLAG, NULL, "One line per breakpoint, without its locations." },
		{ 0 } },
};

static const struct cmd_node bp_delete = {
	.name = "delete", .summary = "Delete the breakpoints given, or all of them.",
	.syntax = "[<breakpoint-id> ...]", .min_args = 0, .max_args = -1, .exec = exec_delete,
	.opts = (const struct cmd_opt[]){
		{ 'f', "force", OPT_FLAG, NULL, "Delete all breakpoints without asking (ptdb never "
			"asks; accepted as in LLDB)." },
		{ 0 } },
};

static const struct cmd_node bp_enable = {
	.name = "enable", .summary = "Enable the breakpoints or locations (N.M) given, or all.",
	.syntax = "[<breakpoint-id> ...]", .min_args = 0, .max_args = -1, .exec = exec_enable,
};

static const struct cmd_node bp_disable = {
	.name = "disable", .summary = "Disable the breakpoints or locations (N.M) given, or all.",
	.syntax = "[<breakpoint-id> ...]", .min_args = 0, .max_args = -1, .exec = exec_disable,
};

const struct cmd_node cmd_breakpoint_node = {
	.name = "breakpoint", .summary = "Commands for operating on breakpoints.",
	.children = (const struct cmd_node *const[]){
		&bp_command, &bp_delete, &bp_disable, &bp_enable, &bp_list,
		&cmd_bp_modify_node, &bp_set, NULL },
};
