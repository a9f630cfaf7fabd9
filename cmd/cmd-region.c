/* cmd/cmd-region.c: "memory region": the mapping of the process holding an
 * address, from /proc/PID/maps, as lldb-16 prints it: its range, its
 * permissions, its file (or [heap], [stack], [vdso]) and the module's
 * segment it loads ("PT_LOAD[1]"); a spot no mapping holds is the region
 * from it to the next mapping, "---".  Without an address, the region after the
 * last one shown. */
#include "cmd/builtin.h"
#include "cmd/data.h"
#include "cmd/report.h"
#include "core/session/session.h"
#include "target/target.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The segment a mapping starting at start loads, as lldb-16 names it */
static void region_segment(struct dbg *d, uint64_t start, char *buf, size_t n)
{
	struct dbg_module *m = dbg_module_for(d, start);
	int seg;

	buf[0] = 0;
	if (m && m->sym && cmd_module_covers(m, start) && !cmd_module_is_interp(d, m) &&
	    (seg = sym_load_segment(m->sym, start)) >= 0)
		snprintf(buf, n, " PT_LOAD[%d]", seg);
}

static void region_print(struct cmd_ctx *ctx, const struct target_map *mp, uint64_t lo,
			 uint64_t hi)
{
	char seg[32];

	if (!mp) {
		fprintf(ctx->out, "[0x%016" PRIx64 "-0x%016" PRIx64 ") ---\n", lo, hi);
		return;
	}
	region_segment(&ctx->s->dbg, mp->start, seg, sizeof(seg));
	fprintf(ctx->out, "[0x%016" PRIx64 "-0x%016" PRIx64 ") %c%c%c%s%s%s\n", mp->start, mp->end,
		mp->perms[0] == 'r' ? 'r' : '-', mp->perms[1] == 'w' ? 'w' : '-',
		mp->perms[2] == 'x' ? 'x' : '-', mp->path[0] ? " " : "", mp->path, seg);
}

/* --all: every mapping and the gaps between them */
static enum cmd_status region_all(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct target_map *maps = NULL;
	struct ptdb_err err;
	uint64_t at = 0;
	int n = 0;

	if (a->argc)
		return cmd_error(ctx, "The \"--all\" option cannot be used when an address "
				 "argument is given");
	if (target_maps(ctx->s->dbg.proc, &maps, &n, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	for (int k = 0; k < n; k++) {
		if (maps[k].start > at)
			region_print(ctx, NULL, at, maps[k].start);
		region_print(ctx, &maps[k], 0, 0);
		at = maps[k].end;
	}
	if (at < UINT64_MAX)
		region_print(ctx, NULL, at, UINT64_MAX);
	free(maps);
	return CMD_OK;
}

static enum cmd_status exec_memory_region(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct target_map *maps = NULL;
	struct ptdb_err err;
	uint64_t addr, hi = UINT64_MAX;
	int n = 0, k;

	if (cmd_opt_given(ctx->node, a, "all"))
		return region_all(ctx, a);
	if (a->argc == 0) {
		if (!ctx->s->region_next_ok || ctx->s->region_next == UINT64_MAX)
			return cmd_error(ctx, "'memory region' takes one argument or \"--all\" "
					 "option");
		addr = ctx->s->region_next;
	} else if (cmd_eval_addr(ctx, a->argv[0], &addr) < 0) {
		return CMD_ERROR;
	}
	if (target_maps(d->proc, &maps, &n, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	for (k = 0; k < n && maps[k].end <= addr; k++)
		;
	if (k < n && maps[k].start <= addr) {
		region_print(ctx, &maps[k], 0, 0);
		hi = maps[k].end;
	} else {
		if (k < n)
			hi = maps[k].start;
		region_print(ctx, NULL, addr, hi);	/* from addr, as lldb-16 */
	}
	ctx->s->region_next_ok = 1;
	ctx->s->region_next = hi;
	free(maps);
	return CMD_OK;
}

/* Enter after it: the next region */
static const char *memory_region_repeat(const char *line, char *buf, size_t n)
{
	(void)line;
	snprintf(buf, n, "memory region");
	return buf;
}

const struct cmd_node cmd_memory_region_node = {
	.repeat = memory_region_repeat,
	.name = "region", .summary = "Get information on the memory region containing an address.",
	.syntax = "[<address-expression>]", .min_args = 0, .max_args = 1,
	.needs = CMD_NEEDS_PROCESS, .exec = exec_memory_region,
	.details = "Shows the mapping of the process holding the address: its range, its "
		   "permissions, its file and the module's segment it loads (PT_LOAD[N]), as "
		   "/proc/PID/maps gives it; an address no mapping holds shows the gap around it "
		   "(---).  Without an address (or Enter after it), the region after the last one "
		   "shown.",
	.opts = (const struct cmd_opt[]){
		{ 'a', "all", OPT_FLAG, NULL, "Show every memory region of the process." },
		{ 0 } },
};
