/* core/session/dbg_bp.c: breakpoints — their locations in the modules (by name,
 * file and line, address), planted in the live process, enabled and
 * disabled, and which one a trap hit. */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "core/symbols/source.h"

#include <stdlib.h>
#include <string.h>

/* Whether f names a function template's instance: "ns::g<int>(int *)". */
static int template_name(const char *f)
{
	size_t st = sym_name_stem_len(f);

	return st && f[st - 1] == '>' && !strstr(f, "operator");
}

/* The out-of-line copies of an overloaded name (n, found in address
 * order; entry: their functions' starts) as lldb-16 numbers them: the
 * functions its DWARF index finds, last defined first, then function
 * template instances (found by their symbols), in address order
 * ("b ns::f": 1.1 f(char), 1.2 f(double), 1.3 f(int); then g<int>). */
static void overloads_in_lldb_order(struct dbg_module *m, uint64_t *out, const uint64_t *entry,
				    int n)
{
	uint64_t plain[DBG_MAX_LOCS], tmpl[DBG_MAX_LOCS];
	int np = 0, nt = 0;

	if (n < 2 || n > DBG_MAX_LOCS)
		return;
	for (int i = 0; i < n; i++) {
		struct sym_loc loc;

		if (sym_lookup_addr(m->sym, entry[i], &loc) == 0 && loc.func &&
		    template_name(loc.func))
			tmpl[nt++] = out[i];
		else
			plain[np++] = out[i];
	}
	for (int i = 0; i < np; i++)
		out[i] = plain[np - 1 - i];
	for (int i = 0; i < nt; i++)
		out[np + i] = tmpl[i];
}

/* Breakpoint resolution: the locations of bp in module m. */
static int bp_addrs_in(struct dbg *d, struct dbg_bp *bp, struct dbg_module *m,
		       uint64_t *out, int max)
{
	uint64_t entry[DBG_MAX_LOCS], after[DBG_MAX_LOCS];
	int n;

	switch (bp->kind) {
	case DBG_BP_NAME: {
		/* every inlined copy, then the out-of-line copies, in the order
		 * lldb-16 lists them (the DWARF's: a function's concrete copy
		 * comes after the functions it is inlined into) */
		int ni = sym_lookup_inlined(m->sym, bp->name, out, max);

		n = max - ni < DBG_MAX_LOCS ? max - ni : DBG_MAX_LOCS;
		n = n > 0 ? sym_lookup_func(m->sym, bp->name, entry, after, n) : 0;
		for (int i = 0; i < n; i++)
			out[ni + i] = after[i] ? after[i] : entry[i];
		overloads_in_lldb_order(m, out + ni, entry, n);
		return ni + n;
	}
	case DBG_BP_LINE: {
		const char *file = bp->file;

		if (!file) {
			if (!m->is_exe)
				return 0;
			file = sym_main_file(m->sym);
			if (!file)
				return 0;
		}
		{
			/* a path under a source map's NEW: the DWARF's OLD */
			char old[4096];

			file = source_map_reverse(d->source_map, file, old, sizeof(old));
			return sym_lookup_line_bp(m->sym, file, bp->line, out, max);
		}
	}
	case DBG_BP_REGEX: {
		regex_t re;

		if (regcomp(&re, bp->name, REG_EXTENDED | REG_NOSUB))
			return 0;	/* checked when it was set */
		n = sym_lookup_func_regex(m->sym, &re, entry, after, max < DBG_MAX_LOCS ? max : DBG_MAX_LOCS);
		regfree(&re);
		for (int i = 0; i < n; i++)
			out[i] = after[i] ? after[i] : entry[i];
		return n;
	}
	case DBG_BP_ADDR:
		(void)d;
		if (m->end ? bp->addr >= m->start && bp->addr < m->end : m->is_exe) {
			out[0] = bp->addr;
			return 1;
		}
		return 0;
	}
	return 0;
}

static void loc_plant(struct dbg *d, struct dbg_bp *bp, struct dbg_bp_loc *l)
{
	int want = dbg_alive(d) && bp->enabled && l->enabled;
	struct ptdb_err err;

	if (want && !l->planted) {
		if (target_bp_insert(d->proc, l->addr, &err) == 0)
			l->planted = 1;
	} else if (!want && l->planted) {
		if (dbg_alive(d))
			target_bp_remove(d->proc, l->addr, &err);
		l->planted = 0;
	}
}

static void bp_resolve(struct dbg *d, struct dbg_bp *bp)
{
	uint64_t addrs[DBG_MAX_LOCS];

	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];
		int n;

		if (!m->sym || (dbg_alive(d) && !m->end))
			continue;
		n = bp_addrs_in(d, bp, m, addrs, DBG_MAX_LOCS);
		for (int k = 0; k < n && bp->nlocs < DBG_MAX_LOCS; k++) {
			int dup = 0;

			for (int j = 0; j < bp->nlocs; j++)
				dup |= bp->locs[j].addr == addrs[k];
			if (dup)
				continue;
			bp->locs[bp->nlocs].addr = addrs[k];
			bp->locs[bp->nlocs].enabled = 1;
			bp->locs[bp->nlocs].hits = 0;
			bp->locs[bp->nlocs].planted = 0;
			bp->nlocs++;
		}
	}
	if (bp->kind == DBG_BP_ADDR && !bp->nlocs) {
		/* in no module: lldb-16 keeps the address as its one location,
		 * unresolved ("b -a '+4'": 0x4), planted if it can be */
		bp->locs[0].addr = bp->addr;
		bp->locs[0].enabled = 1;
		bp->nlocs = 1;
	}
	for (int k = 0; k < bp->nlocs; k++)
		loc_plant(d, bp, &bp->locs[k]);
}

void dbg_resolve_all(struct dbg *d)
{
	for (int i = 0; i < d->nbps; i++)
		bp_resolve(d, &d->bps[i]);
}

struct dbg_bp *dbg_bp_add(struct dbg *d, enum dbg_bp_kind kind,
			  const char *name, const char *file, unsigned line,
			  uint64_t addr)
{
	struct dbg_bp *bp;

	d->bps = xrealloc(d->bps, (size_t)(d->nbps + 1) * sizeof(*d->bps));
	bp = &d->bps[d->nbps++];
	memset(bp, 0, sizeof(*bp));
	bp->id = d->next_bp_id++;
	bp->kind = kind;
	bp->name = name ? xstrdup(name) : NULL;
	bp->file = file ? xstrdup(file) : NULL;
	bp->line = line;
	bp->addr = addr;
	bp->enabled = 1;
	bp_resolve(d, bp);
	bp->told = bp->nlocs;	/* the command says where */
	return bp;
}

struct dbg_bp *dbg_bp_find(struct dbg *d, unsigned id)
{
	for (int i = 0; i < d->nbps; i++)
		if (d->bps[i].id == id)
			return &d->bps[i];
	return NULL;
}

int dbg_bp_delete(struct dbg *d, unsigned id)
{
	struct dbg_bp *bp = dbg_bp_find(d, id);

	if (!bp)
		return -1;
	bp->enabled = 0;
	for (int k = 0; k < bp->nlocs; k++)
		loc_plant(d, bp, &bp->locs[k]);
	free(bp->name);
	free(bp->file);
	free(bp->cond);
	dbg_bp_set_commands(bp, NULL, 0, 0);
	memmove(bp, bp + 1, (size_t)(d->bps + d->nbps - bp - 1) * sizeof(*bp));
	d->nbps--;
	return 0;
}

void dbg_bp_set_commands(struct dbg_bp *bp, char *const *cmds, int n, int auto_continue)
{
	for (int i = 0; i < bp->ncommands; i++)
		free(bp->commands[i]);
	free(bp->commands);
	bp->commands = NULL;
	bp->ncommands = 0;
	bp->auto_continue = n ? auto_continue : 0;
	if (!n)
		return;
	bp->commands = xcalloc((size_t)n, sizeof(*bp->commands));
	for (int i = 0; i < n; i++)
		bp->commands[i] = xstrdup(cmds[i]);
	bp->ncommands = n;
}

int dbg_bp_enable(struct dbg *d, struct dbg_bp *bp, int loc, int on,
		  struct ptdb_err *err)
{
	if (loc < 0 || loc > bp->nlocs)
		return ptdb_err_set(err, "breakpoint %u has no location %d", bp->id, loc);
	if (loc == 0)
		bp->enabled = on;
	else
		bp->locs[loc - 1].enabled = on;
	for (int k = 0; k < bp->nlocs; k++)
		loc_plant(d, bp, &bp->locs[k]);
	return 0;
}

/* A replayed stop at an enabled breakpoint counts as a hit, as a live one
 * does (breakpoint list shows replayed hits): the trace session's
 * bp_replay_hit (core/tracing/dbg_replay.c). */
int dbg_bp_replay_hit(struct dbg *d, uint64_t ip, unsigned *id, unsigned *loc)
{
	for (int i = 0; i < d->nbps; i++) {
		struct dbg_bp *bp = &d->bps[i];

		if (!bp->enabled)
			continue;
		for (int k = 0; k < bp->nlocs; k++)
			if (bp->locs[k].addr == ip && bp->locs[k].enabled) {
				*id = bp->id;
				*loc = (unsigned)k + 1;
				bp->hits++;
				bp->locs[k].hits++;
				return 1;
			}
	}
	return 0;
}

/* Is addr a planted, enabled user breakpoint location?  Counts the hit of
 * every breakpoint there (d->hit: those whose hit stops). */
int dbg_bp_hit(struct dbg *d, pid_t tid, uint64_t addr, unsigned *id, unsigned *loc)
{
	int found = 0;

	memset(&d->hit, 0, sizeof(d->hit));
	d->hit.tid = tid;
	d->hit.addr = addr;
	for (int i = 0; i < d->nbps; i++) {
		struct dbg_bp *bp = &d->bps[i];

		if (!bp->enabled)
			continue;
		for (int k = 0; k < bp->nlocs; k++)
			if (bp->locs[k].addr == addr && bp->locs[k].enabled &&
			    bp->locs[k].planted) {
				int pass = dbg_bp_passes(d, bp, tid, k);

				if (!pass)
					continue;
				bp->hits++;
				bp->locs[k].hits++;
				if (pass == 2)
					continue;
				if (d->hit.nids < 8)
					d->hit.ids[d->hit.nids++] = bp->id;
				if (!found) {
					*id = bp->id;
					*loc = (unsigned)k + 1;
				}
				found = 1;
			}
	}
	return found;
}
