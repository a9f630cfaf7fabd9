/* core/collectors/dbg_cache_xl.c: the cache engine's translation side.  Blocks are
 * translated on demand (trace/ccache) into the regions core/collectors/dbg_cache_mem.c
 * maps, found again by original pc (a hash of block ids), written into the
 * inferior in one go (staged), linked to each other once both exist, and
 * entered in the dispatchers' lookup tables; the blocks a new one leads to
 * are translated ahead.  The run (core/collectors/dbg_cache.c) asks for them. */
#include "core/collectors/dbg_cache.h"
#include "trace/ccache.h"
#include "trace/swc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/collectors/dbg_cache_int.h"
#include "core/collectors/collector.h"

/* ---- blocks ---- */

/* The hash holds ids only (4 bytes a slot): a slot's key is its block's
 * start. */
static void hput(struct dbg_cache *c, uint64_t key, uint32_t id)
{
	if (2 * (c->hn + 1) > c->hcap) {
		uint32_t *ov = c->hval;
		size_t ocap = c->hcap;

		c->hcap = c->hcap ? 2 * c->hcap : 4096;
		c->hval = xcalloc(c->hcap, sizeof(*c->hval));
		c->hn = 0;
		for (size_t i = 0; i < ocap; i++)
			if (ov[i])
				hput(c, c->blk[ov[i] - 1].start, ov[i] - 1);
		free(ov);
	}
	for (size_t h = (key * 0x9e3779b97f4a7c15ull) >> 20;; h++) {
		size_t i = h & (c->hcap - 1);

		if (!c->hval[i]) {
			c->hval[i] = id + 1;
			c->hn++;
			return;
		}
	}
}

static int64_t hget(const struct dbg_cache *c, uint64_t key)
{
	if (!c->hcap)
		return -1;
	for (size_t h = (key * 0x9e3779b97f4a7c15ull) >> 20;; h++) {
		size_t i = h & (c->hcap - 1);

		if (!c->hval[i])
			return -1;
		if (c->blk[c->hval[i] - 1].start == key)
			return (int64_t)c->hval[i] - 1;
	}
}

int dbg_cache_is_stop(void *ctx, uint64_t addr)
{
	struct dbg_cache *c = ctx;

	if (target_bp_planted(c->d->proc, addr))
		return 1;
	for (int i = 0; i < c->ngoals; i++)
		if (c->goals[i].pc == addr)
			return 1;
	return 0;
}

struct region *dbg_cache_region_of(struct dbg_cache *c, uint64_t pc)
{
	for (int i = 0; i < c->nreg; i++)
		if (pc >= c->reg[i].addr && pc < c->reg[i].addr + REGION_SIZE)
			return &c->reg[i];
	return NULL;
}

/* The block holding cache address pc, or NULL. */
struct ccache_block *dbg_cache_block_of(struct dbg_cache *c, struct region *g, uint64_t pc)
{
	size_t lo = 0, hi = g->nids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		struct ccache_block *b = &c->blk[g->ids[mid]];

		if (pc < b->base)
			hi = mid;
		else if (pc >= b->base + b->len)
			lo = mid + 1;
		else
			return b;
	}
	return NULL;
}

void dbg_cache_code_write(struct dbg_cache *c, uint64_t addr, const void *buf, size_t n)
{
	struct region *g = dbg_cache_region_of(c, addr);

	if (g && g->map && addr + n <= g->addr + REGION_SIZE)
		memcpy(g->map + (addr - g->addr), buf, n);
	else
		target_write_mem(c->d->proc, addr, buf, n, NULL);
}

/* Writes the staged code into the inferior, then the links waiting for
 * it that can be written live. */
void dbg_cache_stage_flush(struct dbg_cache *c)
{
	dbg_cache_table_flush(c);
	if (c->stage_len)
		dbg_cache_code_write(c, c->stage_base, c->stage, c->stage_len);
	c->stage_len = 0;
	dbg_cache_links_live(c);
}

/* n bytes of code for addr: into the stage when they continue it or fall
 * inside it, else (after it) straight into the inferior. */
static void put_code(struct dbg_cache *c, uint64_t addr, const void *buf, size_t n, int append)
{
	if (c->stage_len && addr >= c->stage_base && addr + n <= c->stage_base + c->stage_len) {
		memcpy(c->stage + (addr - c->stage_base), buf, n);
		return;
	}
	if (!append) {
		dbg_cache_code_write(c, addr, buf, n);
		return;
	}
	if (c->stage_len && addr != c->stage_base + c->stage_len)
		dbg_cache_stage_flush(c);
	if (!c->stage_len)
		c->stage_base = addr;
	if (c->stage_len + n > c->stage_cap) {
		c->stage_cap = c->stage_len + n > 2 * c->stage_cap ? c->stage_len + n : 2 * c->stage_cap;
		c->stage = xrealloc(c->stage, c->stage_cap);
	}
	memcpy(c->stage + c->stage_len, buf, n);
	c->stage_len += n;
}

/* Exit k of b linked to dest while threads may run b: through the
 * region's mapping here, the far slot (if used) first, then the rel32 in
 * one aligned 32-bit store, which a thread running the exit sees whole,
 * old (its dispatcher path: still right) or new.  0, or -1 (no mapping,
 * or not aligned: the link waits until every thread stopped). */
static int link_live(struct dbg_cache *c, const struct ccache_block *b, int k, uint64_t dest)
{
	struct region *g = dbg_cache_region_of(c, b->base);
	uint8_t rel[4], far[8];
	uint32_t o1, o2, r;
	uint8_t *p;

	if (!g || !g->map)
		return -1;
	ccache_link(b, k, dest, rel, &o1, far, &o2);
	p = g->map + (b->base - g->addr);
	if ((uintptr_t)(p + o1) & 3 || (o2 != UINT32_MAX && (uintptr_t)(p + o2) & 7))
		return -1;
	if (o2 != UINT32_MAX) {
		uint64_t v;

		memcpy(&v, far, 8);
		__atomic_store_n((uint64_t *)(void *)(p + o2), v, __ATOMIC_RELEASE);
	}
	memcpy(&r, rel, 4);
	__atomic_store_n((uint32_t *)(void *)(p + o1), r, __ATOMIC_RELEASE);
	c->st.links_live++;
	return 0;
}

/* The links waiting (c->dl) whose exits can be written live, written:
 * the code is out (staged code flushed before this), the others kept
 * for the stop of every thread (dbg_cache_shm.c). */
void dbg_cache_links_live(struct dbg_cache *c)
{
	size_t k = 0;

	for (size_t i = 0; i < c->ndl; i++)
		if (c->dl[i].id < c->nblk && link_live(c, &c->blk[c->dl[i].id], c->dl[i].k, c->dl[i].dest) < 0)
			c->dl[k++] = c->dl[i];
	c->ndl = k;
}

void dbg_cache_write_link(struct dbg_cache *c, const struct ccache_block *b, int k, uint64_t dest, uint8_t *local)
{
	uint8_t rel[4], far[8];
	uint32_t o1, o2;

	if (!local && c->defer_links) {
		/* (threads run: linked once the code it leads to is out,
		 * dbg_cache_links_live, or, if it cannot be written live,
		 * once every thread waits or stops) */
		dbg_cache_shm_defer_link(c, (uint32_t)(b - c->blk), k, dest);
		return;
	}
	ccache_link(b, k, dest, rel, &o1, far, &o2);
	if (local) {
		memcpy(local + o1, rel, 4);
		if (o2 != UINT32_MAX)
			memcpy(local + o2, far, 8);
		return;
	}
	if (o2 != UINT32_MAX)
		put_code(c, b->base + o2, far, 8, 0);
	put_code(c, b->base + o1, rel, 4, 0);
}

/* b's instructions moved into the chunks (ichunk). */
static void ins_keep(struct dbg_cache *c, struct ccache_block *b)
{
	struct ins_chunk *k = c->ichunk;
	size_t n = (size_t)b->n;

	if (!k || k->used + n > k->cap) {
		size_t cap = n > 4096 ? n : 4096;

		k = xmalloc(sizeof(*k) + cap * sizeof(k->ins[0]));
		k->next = c->ichunk;
		k->used = 0;
		k->cap = cap;
		c->ichunk = k;
	}
	memcpy(k->ins + k->used, b->ins, n * sizeof(*b->ins));
	free(b->ins);
	b->ins = k->ins + k->used;
	k->used += n;
}

void dbg_cache_ins_free(struct dbg_cache *c)
{
	for (uint32_t i = 0; i < c->nblk; i++)
		c->blk[i].ins = NULL;
	while (c->ichunk) {
		struct ins_chunk *k = c->ichunk;

		c->ichunk = k->next;
		free(k);
	}
}

/* The block at pc translated into g's free space (ccache_translate). */
static int translate_in(struct dbg_cache *c, struct region *g, uint64_t pc, struct ccache_block *b)
{
	struct ccache_env env = { .region = dbg_cache_gs_region(c, g->addr), .recptr = c->rr0.hdr, .dispatch = g->dispatch,
				  .decode = dbg_cache_decode, .stop = dbg_cache_is_stop, .ctx = c, .syscalls = 1,
				  .watch = dbg_cache_watch_env(c, g), .served = c->ctl != 0 };

	env.ring = env.watch ? 0 : g->ring;

	return ccache_translate(&env, pc, g->addr + CCACHE_CODE_OFF + g->used, c->nblk, b);
}

/* The block at pc, translated now if need be.  A block at a stop is the
 * tracer's to enter only (not linked, not in the tables): private.
 * Returns its id, -1 if pc cannot run in the cache. */
int64_t dbg_cache_block_for(struct dbg_cache *c, pid_t t, uint64_t pc, int private)
{
	struct ccache_block b;
	struct region *g;
	int64_t id = private ? -1 : hget(c, pc);
	uint64_t t0;

	if (id >= 0)
		return id;
	t0 = dbg_cache_now_ns();
	for (int tries = 0; tries < 2; tries++) {
		g = dbg_cache_region_near(c->d, c, t, pc, tries ? CCACHE_BLOCK_MAX_BYTES : 64);
		if (!g || translate_in(c, g, pc, &b) < 0)
			return -1;
		if (g->used + b.len <= REGION_SIZE - CCACHE_CODE_OFF)
			break;
		ccache_block_release(&b);
		if (tries)
			return -1;
		g->used = REGION_SIZE;	/* full: the next try takes a new one */
	}
	/* exits whose targets exist already are linked before it is written;
	 * the others when their target is translated */
	int waiting[CCACHE_EXITS_MAX], nw = 0;

	for (int k = 0; k < b.nexit; k++) {
		uint64_t tg = b.exit[k].target;
		int64_t to = dbg_cache_is_stop(c, tg) ? -1 : hget(c, tg);

		if (to >= 0)
			dbg_cache_write_link(c, &b, k, c->blk[to].base, b.code);
		else if (!dbg_cache_is_stop(c, tg))
			waiting[nw++] = k;
	}
	{
		/* (with the padding to the next block's start) */
		uint32_t padded = (b.len + 15) & ~15u;

		if (padded > b.len && g->used + padded <= REGION_SIZE - CCACHE_CODE_OFF) {
			b.code = xrealloc(b.code, padded);
			memset(b.code + b.len, 0, padded - b.len);
		} else {
			padded = b.len;
		}
		put_code(c, b.base, b.code, padded, 1);
	}
	for (int w = 0; w < nw; w++) {
		uint64_t tg = b.exit[waiting[w]].target;
		uint8_t **h = dbg_cache_pset_find(&c->pend_head, tg);

		size_t at = c->pend_free - 1;

		/* (entries of exits linked already are taken again first: the
		 * array holds the exits waiting now, not all there ever were) */
		if (c->pend_free) {
			c->pend_free = (size_t)(c->pend[at].next + 1);
		} else {
			if (c->npend == c->cpend) {
				c->cpend = c->cpend ? 2 * c->cpend : 1024;
				c->pend = xrealloc(c->pend, c->cpend * sizeof(*c->pend));
			}
			at = c->npend++;
		}
		c->pend[at] = (struct pend){ tg, c->nblk, waiting[w], h ? (int64_t)(uintptr_t)*h - 1 : -1 };
		dbg_cache_pset_add(&c->pend_head, tg, (uint8_t *)(uintptr_t)(at + 1));
	}
	free(b.code);
	b.code = NULL;
	g->used += (b.len + 15) & ~15u;
	c->run_bytes += b.len;
	c->st.blocks++;
	c->st.code_bytes += b.len;
	if (c->nblk == c->cblk) {
		c->cblk = c->cblk ? 2 * c->cblk : 1024;
		c->blk = xrealloc(c->blk, c->cblk * sizeof(*c->blk));
		c->plan = xrealloc(c->plan, c->cblk * sizeof(*c->plan));
		c->pk = ccache_pkt_grow(c->pk, c->nblk, c->cblk);
	}
	ins_keep(c, &b);
	c->blk[c->nblk] = b;
	/* (the compact plan where the packet plan does not serve; the
	 * others' at their first use: dbg_cache_rec.c) */
	ccache_pkt_plan(&b, &c->pk[c->nblk]);
	c->plan[c->nblk] = c->pk[c->nblk].kind == CCACHE_PKT_SLOW ? dbg_cache_plan_new(&b) : NULL;
	if (g->nids == g->cids) {
		g->cids = g->cids ? 2 * g->cids : 1024;
		g->ids = xrealloc(g->ids, g->cids * sizeof(*g->ids));
	}
	g->ids[g->nids++] = c->nblk;
	if (!private) {
		uint8_t **h = dbg_cache_pset_find(&c->pend_head, pc);

		hput(c, pc, c->nblk);
		dbg_cache_table_enter(c, pc, b.base);
		/* exits waiting for it go straight to it now */
		for (int64_t i = h ? (int64_t)(uintptr_t)*h - 1 : -1, nx; i >= 0; i = nx) {
			nx = c->pend[i].next;
			if (c->pend[i].target == pc && c->pend[i].id < c->nblk) {
				dbg_cache_write_link(c, &c->blk[c->pend[i].id], c->pend[i].k, b.base, NULL);
				c->st.links++;
			}
			/* (the chain is dropped below: its entries are free) */
			c->pend[i].next = (int64_t)c->pend_free - 1;
			c->pend_free = (size_t)i + 1;
		}
		/* (served: out of the set, which holds the targets waiting now) */
		if (h)
			dbg_cache_pset_del(&c->pend_head, pc);
	}
	c->st.translate_ns += dbg_cache_now_ns() - t0;
	return c->nblk++;
}

/* The lookup table entry of region g for original pc: its block at base. */
void dbg_cache_table_fill(struct dbg_cache *c, struct region *g, uint64_t pc, uint64_t base)
{
	dbg_cache_table_put(c, g, pc, base, 1);
}

/* Translates the blocks the direct exits of block id lead to, and theirs,
 * a few: each would otherwise cost a trap when first reached (its exits
 * are linked as they land).  The return addresses of the calls in them
 * too, entered in the lookup tables of the caller's and the callee's
 * regions: the return that comes back there would otherwise miss.  (While
 * the thread runs, a miss it posts meanwhile comes first.) */
void dbg_cache_ahead(struct dbg_cache *c, pid_t t, int64_t id)
{
	int64_t q[AHEAD];
	int nq = 0, done = 0;

	q[nq++] = id;
	for (int i = 0; i < nq && done < AHEAD && !dbg_cache_shm_posted(c); i++) {
		const struct ccache_block *b = &c->blk[q[i]];
		uint64_t tg[CCACHE_EXITS_MAX + 8], callee[CCACHE_EXITS_MAX + 8];
		int n = b->nexit, nexit = b->nexit;

		for (int k = 0; k < n; k++)
			tg[k] = b->exit[k].target;
		for (int j = 0; j < b->n && n < CCACHE_EXITS_MAX + 8; j++)
			if (b->ins[j].kind == DISASM_KIND_CALL || b->ins[j].kind == DISASM_KIND_CALL_IND) {
				callee[n] = b->ins[j].kind == DISASM_KIND_CALL ? ccache_insn_target(&b->ins[j]) : 0;
				tg[n++] = b->ins[j].addr + b->ins[j].len;
			}
		for (int k = 0; k < n && done < AHEAD; k++) {
			int64_t to = hget(c, tg[k]);

			if (dbg_cache_is_stop(c, tg[k]))
				continue;
			if (to < 0) {
				to = dbg_cache_block_for(c, t, tg[k], 0);	/* (b may move) */
				done++;
				if (to >= 0 && nq < AHEAD)
					q[nq++] = to;
			}
			if (k >= nexit && to >= 0) {
				struct region *g = dbg_cache_region_of(c, c->blk[to].base), *h = NULL;
				int64_t ce = callee[k] ? hget(c, callee[k]) : -1;

				if (ce >= 0)
					h = dbg_cache_region_of(c, c->blk[ce].base);
				if (g)
					dbg_cache_table_fill(c, g, tg[k], c->blk[to].base);
				if (h && h != g)
					dbg_cache_table_fill(c, h, tg[k], c->blk[to].base);
			}
		}
	}
}
