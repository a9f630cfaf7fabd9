/* cmd/data.c: what the data commands share (cmd/data.h): reading memory
 * or, without a live process, code and static data from the executable's
 * file (core/symbols/sym_file.c); the module holding an address; option
 * values; the selected frame's pc. */
#include "cmd/data.h"
#include "core/session/session.h"
#include "core/symbols/sym_file.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- reading target memory or, without a process, the executable ---- */

/* Reads up to n bytes at addr; returns how many could be read from the start
 * (0: none). */
size_t cmd_data_read(struct dbg *d, uint64_t addr, uint8_t *buf, size_t n)
{
	size_t got = 0;

	if (d->tr.pm || dbg_trace_kept(d)) {
		/* a loaded trace, an exited process's: the code its traces kept
		 * as it ran, else the modules' files; page by page */
		while (got < n) {
			uint64_t a = addr + got;
			size_t chunk = 4096 - (size_t)(a & 4095), k;

			if (chunk > n - got)
				chunk = n - got;
			k = dbg_trace_code_read(d, a, buf + got, chunk);
			if (!k)
				k = dbg_read_some(d, a, buf + got, chunk);
			got += k;
			if (k < chunk)
				break;
		}
		return got;
	}
	if (dbg_alive(d)) {
		if (dbg_read(d, addr, buf, n, NULL) == 0) {
			dbg_trace_code_overlay(d, addr, buf, n);	/* replaying */
			return n;
		}
		/* page by page up to the first unreadable one */
		while (got < n) {
			uint64_t a = addr + got;
			size_t chunk = 4096 - (size_t)(a & 4095);

			if (chunk > n - got)
				chunk = n - got;
			if (dbg_read(d, a, buf + got, chunk, NULL) < 0)
				break;
			got += chunk;
		}
		dbg_trace_code_overlay(d, addr, buf, got);
		return got;
	}
	if (d->nmods && d->mods[0].sym)
		got = sym_file_read(d->mods[0].sym, addr, buf, n);
	return got;
}

/* 1 if addr lies in module m's mapping (or, before the process runs, in a
 * PT_LOAD segment of its file). */
int cmd_module_covers(struct dbg_module *m, uint64_t addr)
{
	if (m->end)
		return addr >= m->start && addr < m->end;
	return sym_file_covers(m->sym, addr);
}

/* 1 if addr lies in an executable segment of module m (symbols without a
 * size, such as _fini, would otherwise claim all data after them). */
int cmd_module_code(struct dbg_module *m, uint64_t addr)
{
	if (m->end && (addr < m->start || addr >= m->end))
		return 0;
	if (sym_module_is_raw(m->sym))
		return m->end != 0;
	return sym_file_code(m->sym, addr);
}

int cmd_module_is_interp(struct dbg *d, struct dbg_module *m)
{
	const char *interp = d->nmods && d->mods[0].sym ? sym_module_interp(d->mods[0].sym) : NULL;
	struct stat a, b;

	return interp && m->sym && stat(interp, &a) == 0 && stat(sym_module_path(m->sym), &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The module holding addr, NULL if none really does (dbg_module_for answers
 * the executable for any address while no process runs). */
struct dbg_module *cmd_module_at(struct dbg *d, uint64_t addr)
{
	struct dbg_module *m = dbg_module_for(d, addr);

	return m && cmd_module_covers(m, addr) ? m : NULL;
}

int cmd_module_usable(const struct dbg *d, const struct dbg_module *m)
{
	return m->sym && (m->end || m->is_exe || !dbg_alive(d));
}

int cmd_data_opt_uint(struct cmd_ctx *ctx, const struct cmd_args *a, const char *name,
		      unsigned def, unsigned *out)
{
	uint64_t v;

	*out = def;
	if (!cmd_opt_num(ctx->node, a, name, &v))
		return 0;
	if (v > UINT_MAX) {
		cmd_error(ctx, "invalid value for --%s: '%s'", name, cmd_opt(ctx->node, a, name));
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

/* pc of the selected frame (0 without a process). */
uint64_t cmd_selected_pc(struct dbg *d, int *caller)
{
	struct dbg_frame fr[DBG_MAX_FRAMES];
	struct ptdb_err err;
	int n;

	*caller = 0;
	if (!dbg_alive(d) && !d->tr.pm)	/* a loaded trace has frames too */
		return 0;
	n = dbg_frames(d, d->sel_tid, fr, (int)d->sel_frame + 1 < DBG_MAX_FRAMES ?
		       (int)d->sel_frame + 1 : DBG_MAX_FRAMES, &err);
	if (n <= 0)
		return 0;
	*caller = d->sel_frame > 0 && (int)d->sel_frame < n;
	return fr[(int)d->sel_frame < n ? d->sel_frame : (unsigned)n - 1].pc;
}

int cmd_dynamic_option(struct cmd_ctx *ctx, const char *v, int *dyn)
{
	if (!strcmp(v, "no-dynamic-values") || !strcmp(v, "no-run-target") ||
	    !strcmp(v, "run-target")) {
		*dyn = strcmp(v, "no-dynamic-values") != 0;
		return 0;
	}
	(void)v;	/* lldb-16's words */
	cmd_error(ctx, "invalid enumeration value, valid values are: \"no-dynamic-values\", "
		  "\"run-target\", \"no-run-target\"");
	return -1;
}
