/* core/collectors/dbg_cache_gs.c: per-thread slots.  The stubs of the
 * cache (trace/ccache*.c, CCACHE_GS) keep their registers in slots at
 * %gs:offset: each traced thread has its own slot page in one pool
 * mapped into the inferior, and its gs base points there while it runs
 * in the cache (set when it enters, the program's own value put back
 * whenever it leaves: a clone, a signal handler or the ptrace engine
 * never see ours).  Glibc and Go use fs for their thread pointers and
 * leave gs alone on x86-64 Linux; code that does use gs ends its block
 * (the translator runs none of it), so it runs outside the cache with
 * its own gs base.  Without the pool (it could not be mapped) the slots
 * stay the region's: one thread at a time in the cache either way
 * (dbg_cache.c's turns), each thread's slots its own here.  When the
 * pool is shared with ptdb (a memfd, dbg_cache_shm.c: c->pt) each slot
 * page also holds the thread's control block (CCACHE_SLOT_CTL: its
 * request word for misses and its record ring's header) and each thread
 * has its own ring of records after the slot pages: the stubs reach
 * both through %gs (CCACHE_GS_CTL), the drainer reads each thread's ring
 * into that thread's trace, and one translator serves every thread's
 * request (woken through the control page's doorbell).  A thread past
 * the pool's GS_RINGS runs outside the cache (the ptrace engine). */
#include "core/collectors/dbg_cache.h"
#include "trace/ccache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "core/collectors/dbg_cache_int.h"

/* The pool: a page of its own first (the magic that tells a pool left
 * behind), then one slot page per thread, handed out in order. */
int dbg_cache_gs_setup(struct dbg_tracee *d, struct dbg_cache *c, pid_t t)
{
	uint64_t a[6] = { 0, GS_POOL_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0 };
	int64_t r;

	c->gs_pool = 0;
	c->ngs = 0;
	c->pt = 0;
	c->gs_bytes = GS_POOL_BYTES;
	if (c->gs_shared && !getenv("PTDB_CACHE_NO_GS")) {
		/* shared with ptdb (dbg_cache_shm.c): per-thread rings and
		 * requests */
		memcpy(c->gs_map, &c->magic, 8);
		c->gs_pool = c->gs_shared;
		c->gs_bytes = GS_SHARED_BYTES;
		c->pt = 1;
		return 0;
	}
	if (getenv("PTDB_CACHE_NO_GS") || dbg_cache_inject(d, c, t, SYS_mmap, a, &r) < 0 || (r < 0 && r > -4096))
		return -1;
	if (target_write_mem(d->proc, (uint64_t)r, &c->magic, 8, NULL) < 0) {
		dbg_cache_leave_behind(d, c, (uint64_t)r, GS_POOL_BYTES, 0);
		return -1;
	}
	c->gs_pool = (uint64_t)r;
	return 0;
}

static struct gs_thread *gs_find(struct dbg_cache *c, pid_t t)
{
	for (size_t i = 0; i < c->ngs; i++)
		if (c->gs[i].tid == t)
			return &c->gs[i];
	return NULL;
}

/* Thread g's ring (the i-th: after the slot pages) and control block,
 * in its slot page, shared: the ring empty, nothing served until the
 * drainer runs for it (its words 2: the traps). */
static void own_ring(struct dbg_cache *c, struct gs_thread *g, size_t i)
{
	uint8_t *m = c->gs_map + (g->page - c->gs_pool) + CCACHE_SLOT_CTL;
	uint64_t start = c->gs_pool + GS_SLOT_BYTES + (uint64_t)i * REC_BYTES, hdr[CCACHE_RING_HDR_BYTES / 8];
	uint32_t trap = CCACHE_RING_TRAP;

	g->rr = xcalloc(1, sizeof(*g->rr));
	g->rr->cur = -1;
	ccache_ring_init(&g->rr->ring, start, REC_BYTES);
	g->rr->hdr = g->page + CCACHE_SLOT_CTL + CCACHE_CTL_RING;
	g->rr->map = m + CCACHE_CTL_RING;
	hdr[0] = start;
	hdr[1] = (uint64_t)0 - g->rr->ring.end;
	hdr[2] = CCACHE_RING_TRAP;
	hdr[3] = start;
	hdr[4] = (uint64_t)0 - g->rr->ring.end;
	hdr[5] = start;
	hdr[6] = 0;	/* (no wrap by itself until the tracer reads) */
	memcpy(g->rr->map, hdr, sizeof(hdr));
	__atomic_store_n((uint32_t *)(m + CCACHE_CTL_REQ), trap, __ATOMIC_RELEASE);
	g->ctl = m;
}

/* Thread t's slot page: its own, handed out now if need be (0: the pool
 * is full). */
static struct gs_thread *gs_page(struct dbg_cache *c, pid_t t)
{
	struct gs_thread *g = gs_find(c, t);
	uint64_t page;

	if (g)
		return g;
	if (c->ngs + 1 >= (c->pt ? GS_RINGS + 1 : GS_POOL_BYTES / 4096))
		return NULL;
	page = c->gs_pool + 4096 * (c->ngs + 1);
	if (target_write_mem(c->d->proc, page + CCACHE_SLOT_SELF, &page, 8, NULL) < 0)
		return NULL;
	if (c->ngs == c->cgs) {
		c->cgs = c->cgs ? 2 * c->cgs : 16;
		c->gs = xrealloc(c->gs, c->cgs * sizeof(*c->gs));
	}
	g = &c->gs[c->ngs++];
	c->st.slot_pages++;
	g->tid = t;
	g->page = page;
	g->prog = 0;
	g->in = 0;
	g->rr = NULL;
	g->ctl = NULL;
	if (c->pt)
		own_ring(c, g, c->ngs - 1);
	return g;
}

static int in_pool(const struct dbg_cache *c, uint64_t v)
{
	return c->gs_pool && v >= c->gs_pool && v < c->gs_pool + GS_POOL_BYTES;
}

uint64_t dbg_cache_slots(struct dbg_cache *c, const struct region *g, pid_t t)
{
	struct gs_thread *s = c->gs_pool ? gs_find(c, t) : NULL;

	return s ? s->page : g->addr;
}

uint64_t dbg_cache_gs_region(const struct dbg_cache *c, uint64_t region)
{
	return c->gs_pool ? region | CCACHE_GS | (c->pt ? CCACHE_GS_CTL : 0) : region;
}

struct rring *dbg_cache_gs_ring(struct dbg_cache *c, pid_t t)
{
	struct gs_thread *g = c->pt ? gs_find(c, t) : NULL;

	return g && g->rr ? g->rr : &c->rr0;
}

int dbg_cache_gs_enter(struct dbg_cache *c, pid_t t, struct user_regs_struct *r)
{
	struct gs_thread *g;

	if (!c->gs_pool)
		return 0;
	if (!(g = gs_page(c, t)) || (c->pt && !g->rr))
		return -1;
	if (!g->in) {
		/* (a thread made while another was in the cache would have
		 * inherited its page: never, clone leaves the cache first;
		 * but a stale one is not the program's) */
		g->prog = in_pool(c, r->gs_base) ? 0 : r->gs_base;
		g->in = 1;
	}
	r->gs_base = g->page;
	return 0;
}

void dbg_cache_gs_leave(struct dbg_cache *c, pid_t t, struct user_regs_struct *r)
{
	struct gs_thread *g = c->gs_pool ? gs_find(c, t) : NULL;

	if (!g || !g->in)
		return;
	g->in = 0;
	if (r->gs_base != g->page && !in_pool(c, r->gs_base))
		return;		/* (not ours: as the thread has it) */
	r->gs_base = g->prog;
	target_set_regs(c->d->proc, t, r, NULL);	/* (gone: nothing to give back) */
}

void dbg_cache_gs_forget_cur(struct dbg_cache *c)
{
	c->rr0.cur = -1;
	for (size_t i = 0; i < c->ngs; i++)
		if (c->gs[i].rr)
			c->gs[i].rr->cur = -1;
}

void dbg_cache_gs_finish(struct dbg_tracee *d, struct dbg_cache *c)
{
	if (c->gs_pool && d)
		dbg_cache_leave_behind(d, c, c->gs_pool, c->gs_bytes, 0);
	c->gs_pool = 0;
	c->pt = 0;
	c->rr = &c->rr0;
	for (size_t i = 0; i < c->ngs; i++)
		free(c->gs[i].rr);
	free(c->gs);
	c->gs = NULL;
	c->ngs = c->cgs = 0;
}
