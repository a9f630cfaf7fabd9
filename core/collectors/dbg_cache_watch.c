/* core/collectors/dbg_cache_watch.c: watchpoints checked by the cache engine,
 * for a run with no trace where the machine delivers no debug-register
 * traps.  The thread runs translated code (core/collectors/dbg_cache.c)
 * that records nothing; before each instruction that may touch a watched
 * range of the kind it watches, a check (trace/ccache_watch.c) compares
 * the addresses it is about to touch with the ranges, which every region
 * holds in its slot page, and traps on a possible hit.  The thread is then
 * in the original state before that instruction, and the caller (the
 * session's single-step checking) runs it exactly as it runs every
 * instruction without the cache: the stop, the values and the pc are its. */
#include "core/collectors/dbg_cache.h"
#include "trace/ccache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "core/collectors/dbg_cache_int.h"

/* A turn in the cache while other threads wait (one may spin on what
 * this one is to write, or the other way round). */
#define WATCH_QUANTUM_NS 20000000ull

static int mem_of(void *ctx, const struct disasm_insn *in, struct disasm_mem *m, int max)
{
	struct dbg_cache *c = ctx;
	struct disasm *dis = c->d->host->disasm(c->d->s);

	return dis ? disasm_mem_access(dis, in->bytes, in->len, in->addr, m, max) : -1;
}

const struct ccache_watch *dbg_cache_watch_env(struct dbg_cache *c, struct region *g)
{
	uint64_t tab[2 * CCACHE_WATCH_MAX];

	if (!c->watch)
		return NULL;
	if (!g->watch_set) {
		for (int i = 0; i < c->wdesc.n; i++) {
			tab[2 * i] = c->wlo[i];
			tab[2 * i + 1] = c->whi[i];
		}
		if (c->wdesc.n &&
		    target_write_mem(c->d->proc, g->addr + CCACHE_WATCH_OFF, tab, 16u * (unsigned)c->wdesc.n, NULL) < 0)
			return &c->wdesc;	/* (zeros there: no hit; cannot happen, the region is ours) */
		g->watch_set = 1;
	}
	return &c->wdesc;
}

/* The ranges for this run: a change in their number or kinds makes the
 * translations stale (their checks are unrolled over them); a change in
 * their addresses only the tables. */
static void set_ranges(struct dbg_cache *c, const struct dbg_cache_wrange *w, int n)
{
	int stale = c->wdesc.n != n, moved = 0;

	for (int i = 0; i < n; i++) {
		stale |= c->wdesc.access[i] != w[i].access;
		moved |= c->wlo[i] != w[i].addr || c->whi[i] != w[i].addr + w[i].size;
		c->wdesc.access[i] = w[i].access;
		c->wlo[i] = w[i].addr;
		c->whi[i] = w[i].addr + w[i].size;
	}
	c->wdesc.n = n;
	c->wdesc.mem = mem_of;
	/* (the kernel sets HWCAP2_FSGSBASE when user code may run them) */
	c->wdesc.fsgsbase = (getauxval(AT_HWCAP2) & 2) != 0;
	if (stale && c->ready)
		c->need_flush = 1;
	if ((stale || moved) && c->ready)
		for (int i = 0; i < c->nreg; i++)
			c->reg[i].watch_set = 0;
}

int dbg_cache_watch_run(struct dbg_tracee *d, struct dbg_cache **cc, pid_t t, const struct dbg_cache_wrange *w,
			int n, int others, struct user_regs_struct *r, const struct dbg_goal *goals, int ngoals,
			struct target_stop *ts, int *hit, struct ptdb_err *err)
{
	struct dbg_cache *c;
	int rc;

	if (n < 0 || n > CCACHE_WATCH_MAX)
		return DBG_CACHE_OFF;
	if (!*cc) {
		*cc = xcalloc(1, sizeof(**cc));
		(*cc)->rr0.cur = -1;
		(*cc)->wdesc.n = -1;
	}
	c = *cc;
	c->d = d;
	c->watch = 1;
	set_ranges(c, w, n);
	for (int i = 0; i < c->nreg; i++)
		dbg_cache_watch_env(c, &c->reg[i]);
	memset(&c->wth, 0, sizeof(c->wth));
	c->wth.tid = t;
	c->wquantum = others ? WATCH_QUANTUM_NS : 0;
	c->wruns++;
	rc = dbg_cache_run(d, cc, &c->wth, r, goals, ngoals, ts, err);
	*hit = *cc && (*cc)->whit;
	return rc;
}

void dbg_cache_watch_counts(const struct dbg_cache *c, uint64_t *traps, uint64_t *entries)
{
	*traps = c ? c->wtraps : 0;
	*entries = c ? c->wruns : 0;
}
