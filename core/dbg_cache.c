/* core/dbg_cache.c: the cache engine's process side.  For one run of the
 * collector it maps, with system calls injected into the stopped thread,
 * code-cache regions near the code they translate and a record buffer
 * followed by a guard page; it translates blocks on demand (trace/ccache),
 * links them, fills the dispatchers' lookup tables, and reads the block
 * records back into trace_swc_executed calls, so the Intel PT stream is
 * the one the ptrace engine writes.  The thread leaves the cache only in
 * an original state: at an exit's trap, a lookup miss, or an instruction
 * boundary it is stepped to; nothing outside this file sees a cache pc. */
#include "core/dbg_cache.h"
#include "trace/ccache.h"
#include "trace/swc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define REGION_SIZE (16u << 20)
#define REGION_REACH (1ull << 30)	/* code within this of its region */
#define REC_BYTES (256u << 10)	/* 65536 records between drains */
#define MAX_REGIONS 16
#define AHEAD 16			/* blocks translated ahead at a trap */

struct region {
	uint64_t addr, used;		/* code bytes used after the dispatcher */
	uint64_t disp_len;		/* the dispatcher's, rounded */
	uint64_t dispatch;
	uint32_t miss_off;
	uint32_t *ids;			/* its blocks, in address order */
	size_t nids, cids;
};

/* A set of pages (open addressing; slot 0 unused as a key: page 0 is
 * never code). */
struct pset {
	uint64_t *key;
	uint8_t **val;
	size_t cap, n;
};

struct dbg_cache {
	struct dbg_cache_stats st;
	/* one run's state */
	int ready, broken;
	uint64_t magic;
	uint64_t sc;			/* a syscall instruction */
	uint64_t rec;			/* buffer mapping: pointer page,
					 * records, guard page */
	struct region reg[MAX_REGIONS];
	int nreg;
	struct ccache_block *blk;	/* by id */
	struct plan {			/* by id: its instructions that write
					 * packets (the others are counted) */
		uint16_t *pk;
		int npk;
	} *plan;
	uint32_t nblk, cblk;
	uint64_t *hkey;			/* original start -> id + 1 */
	uint32_t *hval;
	size_t hcap, hn;
	int64_t cur;			/* block whose records are read but
					 * whose instructions are not out yet */
	uint64_t run_bytes;
	/* the code the cache may translate: read-only executable mappings
	 * (writable code is a JIT's: the ptrace engine runs it), re-read
	 * after the program maps, unmaps or protects memory */
	struct target_map *maps;
	int nmaps, maps_stale;
	struct pset pages;		/* original code read: page -> bytes */
	struct pset tpages;		/* pages translated code came from */
	int need_flush;			/* the ptrace engine ran meanwhile */
	/* a signal (or an interrupt) that stopped an injected call before it
	 * ran: the caller's event, not lost */
	struct target_stop ev;
	int have_ev;
	/* exits not linked yet, by target: linked when it is translated */
	struct pend {
		uint64_t target;
		uint32_t id;
		int k;
		int64_t next;		/* the next for the same target, -1 */
	} *pend;
	size_t npend, cpend;
	struct pset pend_head;		/* target -> (index + 1) in a pointer */
	struct dbg *d;
	const struct dbg_goal *goals;
	int ngoals;
	pid_t tid;			/* the thread that ran in the cache */
	/* mappings still in the inferior (a run could not remove them) */
	struct left {
		uint64_t addr, len, magic_off, magic;
	} left[MAX_REGIONS + 1];
	int nleft;
	pid_t left_pid;
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t rec_start(const struct dbg_cache *c)
{
	return c->rec + 4096;
}

/* ---- system calls in the inferior ---- */

/* Finds the bytes of a syscall instruction in executable memory. */
static uint64_t find_syscall(struct dbg *d)
{
	struct target_map *m;
	int n;
	uint64_t found = 0;

	if (target_maps(d->proc, &m, &n, NULL) < 0)
		return 0;
	for (int pass = 0; pass < 2 && !found; pass++)
		for (int i = 0; i < n && !found; i++) {
			uint8_t buf[4096];

			if (m[i].perms[2] != 'x' || (pass == 0) != !strcmp(m[i].path, "[vdso]"))
				continue;
			for (uint64_t a = m[i].start; a < m[i].end && a - m[i].start < (1u << 20) && !found;
			     a += sizeof(buf) - 1) {
				size_t len = m[i].end - a < sizeof(buf) ? m[i].end - a : sizeof(buf);

				if (target_read_mem(d->proc, a, buf, len, NULL) < 0)
					break;
				for (size_t k = 0; k + 1 < len; k++)
					if (buf[k] == 0x0f && buf[k + 1] == 0x05) {
						found = a + k;
						break;
					}
			}
		}
	free(m);
	return found;
}

/* Runs one system call in thread t, its registers restored afterwards.
 * -1 when it did not run (a signal came first: it stays pending). */
static int inject(struct dbg *d, struct dbg_cache *c, pid_t t, long nr, const uint64_t a[6], int64_t *ret)
{
	struct user_regs_struct save, r;
	struct target_stop ts;
	int ok;

	if (!c->sc || target_pending_signal(d->proc, t) || target_get_regs(d->proc, t, &save, NULL) < 0)
		return -1;
	r = save;
	r.rip = c->sc;
	r.rax = (uint64_t)nr;
	r.orig_rax = (uint64_t)-1;
	r.rdi = a[0];
	r.rsi = a[1];
	r.rdx = a[2];
	r.r10 = a[3];
	r.r8 = a[4];
	r.r9 = a[5];
	if (target_set_regs(d->proc, t, &r, NULL) < 0)
		return -1;
	ok = target_thread_step(d->proc, t, &ts, NULL) == 0 && ts.tid == t && ts.kind == TARGET_STOP_STEP &&
	     target_get_regs(d->proc, t, &r, NULL) == 0 && r.rip == c->sc + 2;
	if (ts.kind == TARGET_STOP_EXITED || ts.kind == TARGET_STOP_SIGNALED)
		return -1;
	if (!ok && ts.tid == t && (ts.kind == TARGET_STOP_SIGNAL || ts.kind == TARGET_STOP_INTERRUPT) &&
	    !c->have_ev) {
		c->ev = ts;	/* (its pc: where the thread really is, below) */
		c->have_ev = 1;
	}
	target_set_regs(d->proc, t, &save, NULL);
	if (!ok)
		return -1;
	*ret = (int64_t)r.rax;
	return 0;
}

static uint64_t do_mmap(struct dbg *d, struct dbg_cache *c, pid_t t, uint64_t hint, uint64_t len, int prot,
			int fixed)
{
	uint64_t a[6] = { hint, len, (uint64_t)prot,
			  MAP_PRIVATE | MAP_ANONYMOUS | (fixed ? MAP_FIXED_NOREPLACE : 0), (uint64_t)-1, 0 };
	int64_t r;

	if (inject(d, c, t, SYS_mmap, a, &r) < 0 || (r < 0 && r > -4096))
		return 0;
	if (fixed && (uint64_t)r != hint) {	/* an old kernel took it as a hint */
		uint64_t u[6] = { (uint64_t)r, len };

		inject(d, c, t, SYS_munmap, u, &r);
		return 0;
	}
	return (uint64_t)r;
}

static int do_mprotect(struct dbg *d, struct dbg_cache *c, pid_t t, uint64_t addr, uint64_t len, int prot)
{
	uint64_t a[6] = { addr, len, (uint64_t)prot };
	int64_t r;

	return inject(d, c, t, SYS_mprotect, a, &r) < 0 || r != 0 ? -1 : 0;
}

/* The record buffer: a page holding the record pointer, the records, a
 * guard page the store past the end faults on. */
static int setup(struct dbg *d, struct dbg_cache *c, pid_t t)
{
	uint64_t p, b;

	c->sc = find_syscall(d);
	c->rec = do_mmap(d, c, t, 0, 4096 + REC_BYTES + 4096, PROT_READ | PROT_WRITE, 0);
	if (!c->rec)
		return -1;
	if (do_mprotect(d, c, t, c->rec + 4096 + REC_BYTES, 4096, PROT_NONE) < 0)
		return -1;
	p = rec_start(c);
	b = c->magic;
	if (target_write_mem(d->proc, c->rec, &p, 8, NULL) < 0 ||
	    target_write_mem(d->proc, c->rec + 8, &b, 8, NULL) < 0)
		return -1;
	c->cur = -1;
	c->ready = 1;
	return 0;
}

/* A region whose code is near addr (rel32 and RIP-relative reach). */
static struct region *region_near(struct dbg *d, struct dbg_cache *c, pid_t t, uint64_t addr, uint64_t need)
{
	uint8_t disp[512];
	uint32_t miss;
	size_t n;
	uint64_t a = 0;

	for (int i = 0; i < c->nreg; i++) {
		struct region *g = &c->reg[i];
		uint64_t code = g->addr + CCACHE_CODE_OFF;
		uint64_t dist = code > addr ? code - addr : addr - code;

		if (dist < REGION_REACH && g->used + need <= REGION_SIZE - CCACHE_CODE_OFF)
			return g;
	}
	if (c->nreg == MAX_REGIONS)
		return NULL;
	/* below the code first (where the kernel leaves room), then above */
	for (int k = 1; k <= 64 && !a; k++) {
		uint64_t base = (addr & ~((uint64_t)REGION_SIZE - 1)) - (uint64_t)k * REGION_SIZE;

		if (base < addr && base > 0x10000)
			a = do_mmap(d, c, t, base, REGION_SIZE, PROT_READ | PROT_WRITE, 1);
		if (!a)
			a = do_mmap(d, c, t, (addr & ~((uint64_t)REGION_SIZE - 1)) + (uint64_t)(k + 1) * REGION_SIZE,
				    REGION_SIZE, PROT_READ | PROT_WRITE, 1);
	}
	if (!a)
		return NULL;
	struct region *g = &c->reg[c->nreg++];

	memset(g, 0, sizeof(*g));
	g->addr = a;
	n = ccache_dispatcher(a, disp, sizeof(disp), &miss);
	g->dispatch = a + CCACHE_CODE_OFF;
	g->miss_off = miss;
	g->used = g->disp_len = (n + 63) & ~(uint64_t)63;
	/* code pages are not writable by the program (ptdb writes them
	 * through the debugger's access) */
	if (!n || target_write_mem(d->proc, g->dispatch, disp, n, NULL) < 0 ||
	    target_write_mem(d->proc, a, &c->magic, 8, NULL) < 0 ||
	    do_mprotect(d, c, t, a + CCACHE_CODE_OFF, REGION_SIZE - CCACHE_CODE_OFF, PROT_READ | PROT_EXEC) < 0) {
		c->nreg--;
		return NULL;
	}
	return g;
}

/* ---- blocks ---- */

static void hput(struct dbg_cache *c, uint64_t key, uint32_t id)
{
	if (2 * (c->hn + 1) > c->hcap) {
		uint64_t *ok = c->hkey;
		uint32_t *ov = c->hval;
		size_t ocap = c->hcap;

		c->hcap = c->hcap ? 2 * c->hcap : 4096;
		c->hkey = xcalloc(c->hcap, sizeof(*c->hkey));
		c->hval = xcalloc(c->hcap, sizeof(*c->hval));
		c->hn = 0;
		for (size_t i = 0; i < ocap; i++)
			if (ov[i])
				hput(c, ok[i], ov[i] - 1);
		free(ok);
		free(ov);
	}
	for (size_t h = (key * 0x9e3779b97f4a7c15ull) >> 20;; h++) {
		size_t i = h & (c->hcap - 1);

		if (!c->hval[i]) {
			c->hkey[i] = key;
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
		if (c->hkey[i] == key)
			return (int64_t)c->hval[i] - 1;
	}
}

static int is_stop(void *ctx, uint64_t addr)
{
	struct dbg_cache *c = ctx;

	if (target_bp_planted(c->d->proc, addr))
		return 1;
	for (int i = 0; i < c->ngoals; i++)
		if (c->goals[i].pc == addr)
			return 1;
	return 0;
}

static int runnable(struct dbg_cache *c, uint64_t addr)
{
	for (int pass = 0; pass < 2; pass++) {
		if (c->maps_stale || !c->maps) {
			free(c->maps);
			c->maps = NULL;
			c->nmaps = 0;
			c->maps_stale = 0;
			if (target_maps(c->d->proc, &c->maps, &c->nmaps, NULL) < 0)
				return 0;
		}
		for (int i = 0; i < c->nmaps; i++)
			if (addr >= c->maps[i].start && addr < c->maps[i].end)
				return c->maps[i].perms[2] == 'x' && c->maps[i].perms[1] != 'w';
		if (pass == 0)
			c->maps_stale = 1;	/* mapped since: read again, once */
	}
	return 0;
}

static size_t pset_slot(const struct pset *p, uint64_t pg)
{
	size_t i = (size_t)(((pg >> 12) ^ pg) * 0x9e3779b97f4a7c15ull >> 32) & (p->cap - 1);

	while (p->key[i] && p->key[i] != pg)
		i = (i + 1) & (p->cap - 1);
	return i;
}

static uint8_t **pset_find(struct pset *p, uint64_t pg)
{
	size_t i;

	if (!p->cap)
		return NULL;
	i = pset_slot(p, pg);
	return p->key[i] ? &p->val[i] : NULL;
}

static void pset_add(struct pset *p, uint64_t pg, uint8_t *v)
{
	size_t i;

	if (2 * (p->n + 1) > p->cap) {
		struct pset o = *p;

		p->cap = p->cap ? 2 * p->cap : 256;
		p->key = xcalloc(p->cap, sizeof(*p->key));
		p->val = xcalloc(p->cap, sizeof(*p->val));
		p->n = 0;
		for (size_t k = 0; k < o.cap; k++)
			if (o.key[k])
				pset_add(p, o.key[k], o.val[k]);
		free(o.key);
		free(o.val);
	}
	i = pset_slot(p, pg);
	if (!p->key[i]) {
		p->key[i] = pg;
		p->n++;
	}
	p->val[i] = v;
}

static void pset_clear(struct pset *p, int free_vals)
{
	for (size_t k = 0; free_vals && k < p->cap; k++)
		free(p->val[k]);
	free(p->key);
	free(p->val);
	memset(p, 0, sizeof(*p));
}

/* The original bytes of the page at addr (breakpoints masked), NULL if
 * it is not code the cache may translate. */
static const uint8_t *page_at(struct dbg_cache *c, uint64_t addr)
{
	uint64_t pg = addr & ~4095ull;
	uint8_t **v = pset_find(&c->pages, pg), *b;

	if (v)
		return *v;
	if (!runnable(c, pg))
		return NULL;
	b = xmalloc(4096);
	if (target_read_mem(c->d->proc, pg, b, 4096, NULL) < 0) {
		free(b);
		return NULL;
	}
	pset_add(&c->pages, pg, b);
	return b;
}

static void note_tpage(struct dbg_cache *c, uint64_t pg)
{
	if (!pset_find(&c->tpages, pg))
		pset_add(&c->tpages, pg, NULL);
}

static int decode(void *ctx, uint64_t addr, struct disasm_insn *in)
{
	struct dbg_cache *c = ctx;
	const uint8_t *p = page_at(c, addr), *q;
	uint8_t buf[16];
	size_t off = addr & 4095, n = 4096 - off;

	if (!p)
		return -1;
	if (n >= 16) {
		q = p + off;
		n = 16;
	} else {		/* it may go on into the next page */
		uint64_t pg2 = (addr & ~4095ull) + 4096;
		const uint8_t *p2 = page_at(c, pg2);

		memcpy(buf, p + off, n);
		if (p2) {
			memcpy(buf + n, p2, 16 - n);
			n = 16;
			note_tpage(c, pg2);
		}
		q = buf;
	}
	if (!dbg_disasm(c->d) || disasm_insn(dbg_disasm(c->d), q, n, addr, in, NULL) < 0)
		return -1;
	note_tpage(c, addr & ~4095ull);
	return 0;
}

static struct region *region_of(struct dbg_cache *c, uint64_t pc)
{
	for (int i = 0; i < c->nreg; i++)
		if (pc >= c->reg[i].addr && pc < c->reg[i].addr + REGION_SIZE)
			return &c->reg[i];
	return NULL;
}

/* The block holding cache address pc, or NULL. */
static struct ccache_block *block_of(struct dbg_cache *c, struct region *g, uint64_t pc)
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

static void write_link(struct dbg *d, const struct ccache_block *b, int k, uint64_t dest, uint8_t *local)
{
	uint8_t rel[4], far[8];
	uint32_t o1, o2;

	ccache_link(b, k, dest, rel, &o1, far, &o2);
	if (local) {
		memcpy(local + o1, rel, 4);
		if (o2 != UINT32_MAX)
			memcpy(local + o2, far, 8);
		return;
	}
	if (o2 != UINT32_MAX)
		target_write_mem(d->proc, b->base + o2, far, 8, NULL);
	target_write_mem(d->proc, b->base + o1, rel, 4, NULL);
}

/* The block at pc, translated now if need be.  A block at a stop is the
 * tracer's to enter only (not linked, not in the tables): private.
 * Returns its id, -1 if pc cannot run in the cache. */
static int64_t block_for(struct dbg_cache *c, pid_t t, uint64_t pc, int private)
{
	struct dbg *d = c->d;
	struct ccache_block b;
	struct region *g;
	int64_t id = private ? -1 : hget(c, pc);
	uint64_t t0;

	if (id >= 0)
		return id;
	t0 = now_ns();
	for (int tries = 0; tries < 2; tries++) {
		struct ccache_env env;

		g = region_near(d, c, t, pc, tries ? CCACHE_BLOCK_MAX_BYTES : 64);
		if (!g)
			return -1;
		env = (struct ccache_env){ g->addr, c->rec, g->dispatch, decode, is_stop, c };
		if (ccache_translate(&env, pc, g->addr + CCACHE_CODE_OFF + g->used, c->nblk, &b) < 0)
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
	int waiting[2], nw = 0;

	for (int k = 0; k < b.nexit; k++) {
		uint64_t tg = b.exit[k].target;
		int64_t to = is_stop(c, tg) ? -1 : hget(c, tg);

		if (to >= 0)
			write_link(d, &b, k, c->blk[to].base, b.code);
		else if (!is_stop(c, tg))
			waiting[nw++] = k;
	}
	if (target_write_mem(d->proc, b.base, b.code, b.len, NULL) < 0) {
		ccache_block_release(&b);
		return -1;
	}
	for (int w = 0; w < nw; w++) {
		uint64_t tg = b.exit[waiting[w]].target;
		uint8_t **h = pset_find(&c->pend_head, tg);

		if (c->npend == c->cpend) {
			c->cpend = c->cpend ? 2 * c->cpend : 1024;
			c->pend = xrealloc(c->pend, c->cpend * sizeof(*c->pend));
		}
		c->pend[c->npend] = (struct pend){ tg, c->nblk, waiting[w], h ? (int64_t)(uintptr_t)*h - 1 : -1 };
		pset_add(&c->pend_head, tg, (uint8_t *)(uintptr_t)(c->npend + 1));
		c->npend++;
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
	}
	c->blk[c->nblk] = b;
	{
		struct plan *pl = &c->plan[c->nblk];

		pl->pk = xmalloc((size_t)b.n * sizeof(*pl->pk));
		pl->npk = 0;
		for (int i = 0; i < b.n; i++)
			if (b.ins[i].kind != DISASM_KIND_OTHER && b.ins[i].kind != DISASM_KIND_JMP)
				pl->pk[pl->npk++] = (uint16_t)i;
	}
	if (g->nids == g->cids) {
		g->cids = g->cids ? 2 * g->cids : 1024;
		g->ids = xrealloc(g->ids, g->cids * sizeof(*g->ids));
	}
	g->ids[g->nids++] = c->nblk;
	if (!private) {
		uint8_t **h = pset_find(&c->pend_head, pc);

		hput(c, pc, c->nblk);
		/* exits waiting for it go straight to it now */
		for (int64_t i = h ? (int64_t)(uintptr_t)*h - 1 : -1; i >= 0; i = c->pend[i].next)
			if (c->pend[i].target == pc && c->pend[i].id < c->nblk) {
				write_link(d, &c->blk[c->pend[i].id], c->pend[i].k, b.base, NULL);
				c->st.links++;
			}
		if (h)
			*h = NULL;
	}
	c->st.translate_ns += now_ns() - t0;
	return c->nblk++;
}

/* ---- records -> instructions ---- */

/* The first k instructions of b; the k-th goes on to next.  Runs of
 * instructions that write no packets are counted at once. */
static void emit(struct trace_swc_thread *th, const struct ccache_block *b, int k, uint64_t next)
{
	int run = 0;

	for (int i = 0; i < k && i < b->n; i++) {
		const struct ccache_insn *ci = &b->ins[i];
		uint64_t to = i + 1 < b->n ? b->ins[i + 1].addr : next;
		struct disasm_insn in;

		if ((ci->kind == DISASM_KIND_OTHER && to == ci->addr + ci->len) ||
		    (ci->kind == DISASM_KIND_JMP && ci->has_target && to == ci->target)) {
			if (i + 1 < k && i + 1 < b->n) {
				run++;
				continue;
			}
			if (trace_swc_straight(th, (uint64_t)run + 1, to) == 0)
				return;
		} else if (run && trace_swc_straight(th, (uint64_t)run, ci->addr) == 0) {
			run = 0;
		}
		/* the run (if it could not be counted at once), then this one */
		for (int j = i - run; j <= i; j++) {
			ci = &b->ins[j];
			memset(&in, 0, sizeof(in));
			in.addr = ci->addr;
			in.len = ci->len;
			in.kind = (enum disasm_kind)ci->kind;
			in.has_target = ci->has_target;
			in.target = ci->target;
			trace_swc_executed(th, &in, j + 1 < b->n ? b->ins[j + 1].addr : next);
		}
		run = 0;
	}
}

static void emit_one(struct trace_swc_thread *th, const struct ccache_insn *ci, uint64_t next)
{
	struct disasm_insn in;

	in.addr = ci->addr;
	in.len = ci->len;
	in.kind = (enum disasm_kind)ci->kind;
	in.has_target = ci->has_target;
	in.target = ci->target;
	trace_swc_executed(th, &in, next);
}

/* All of block id, going on to next: the runs between the instructions
 * that write packets are counted at once. */
static void emit_all(struct dbg_cache *c, struct trace_swc_thread *th, int64_t id, uint64_t next)
{
	const struct ccache_block *b = &c->blk[id];
	const struct plan *pl = &c->plan[id];
	int prev = 0;

	for (int k = 0; k <= pl->npk; k++) {
		int p = k < pl->npk ? pl->pk[k] : b->n;
		uint64_t at = p < b->n ? b->ins[p].addr : next;

		if (p > prev && trace_swc_straight(th, (uint64_t)(p - prev), at) < 0)
			for (int j = prev; j < p; j++)
				emit_one(th, &b->ins[j], j + 1 < b->n ? b->ins[j + 1].addr : next);
		if (p < b->n)
			emit_one(th, &b->ins[p], p + 1 < b->n ? b->ins[p + 1].addr : next);
		prev = p + 1;
	}
}

/* Reads the records since the last drain: every block but the last is
 * complete (it went on to the next one's start). */
static int drain(struct dbg_cache *c, struct trace_swc_thread *th)
{
	struct dbg *d = c->d;
	uint64_t p, s = rec_start(c);
	uint32_t *ids;
	size_t n;

	if (target_read_mem(d->proc, c->rec, &p, 8, NULL) < 0 || p < s || p > s + REC_BYTES || (p - s) % 4)
		return -1;
	n = (p - s) / 4;
	if (!n)
		return 0;
	ids = xmalloc(n * 4);
	if (target_read_mem(d->proc, s, ids, n * 4, NULL) < 0) {
		free(ids);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (ids[i] >= c->nblk)
			continue;	/* cannot happen: the ids are ours */
		if (c->cur >= 0)
			emit_all(c, th, c->cur, c->blk[ids[i]].start);
		c->cur = ids[i];
	}
	c->st.records += n;
	free(ids);
	return target_write_mem(d->proc, c->rec, &s, 8, NULL);
}

/* The last block ran to its end and went on to pc. */
static void sync_done(struct dbg_cache *c, struct trace_swc_thread *th, uint64_t pc)
{
	if (c->cur >= 0)
		emit_all(c, th, c->cur, pc);
	c->cur = -1;
}

/* Where the thread is, if that is an original state: 1 with r->rip set
 * to the original pc (and rax/rcx/rdx back from the slots at a lookup
 * miss), the instructions before it recorded; 0 if it is inside a stub. */
static int map_back(struct dbg_cache *c, struct trace_swc_thread *th, struct user_regs_struct *r)
{
	struct dbg *d = c->d;
	struct region *g = region_of(c, r->rip);
	struct ccache_block *b;
	int idx;

	if (!g) {		/* outside the cache: an original pc */
		sync_done(c, th, r->rip);
		return 1;
	}
	if (r->rip == g->dispatch + g->miss_off + 1) {
		uint64_t v[7];

		if (target_read_mem(d->proc, g->addr, v, sizeof(v), NULL) < 0)
			return 0;
		r->rax = v[CCACHE_SLOT_A / 8];
		r->rcx = v[CCACHE_SLOT_C / 8];
		r->rdx = v[CCACHE_SLOT_D / 8];
		r->rip = v[CCACHE_SLOT_T / 8];
		sync_done(c, th, r->rip);
		return 1;
	}
	b = block_of(c, g, r->rip);
	switch (b ? ccache_where(b, r->rip, &idx) : CCACHE_INSIDE) {
	case CCACHE_AT_ENTRY:
		sync_done(c, th, b->start);
		r->rip = b->start;
		return 1;
	case CCACHE_AT_TRAP:
		sync_done(c, th, b->exit[idx].target);
		r->rip = b->exit[idx].target;
		return 1;
	case CCACHE_AT_INSN:
		if (c->cur >= 0 && &c->blk[c->cur] == b)
			emit(th, b, idx, b->ins[idx].addr);
		else
			sync_done(c, th, b->start);	/* (not reached: its record is out) */
		c->cur = -1;
		r->rip = b->ins[idx].addr;
		return 1;
	default:
		return 0;
	}
}

/* Brings a thread stopped in the cache to an original state, stepping it
 * through the stub it is in (a signal it stopped with stays pending). */
static int settle(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		  struct ptdb_err *err)
{
	struct dbg *d = c->d;
	int sig = target_pending_signal(d->proc, t), rc = -1;

	target_set_pending_signal(d->proc, t, 0);
	for (int steps = 0; steps < 256; steps++) {
		struct target_stop ts;

		if (drain(c, th) < 0)
			break;
		if (map_back(c, th, r)) {
			rc = target_set_regs(d->proc, t, r, err);
			break;
		}
		if (target_thread_step(d->proc, t, &ts, err) < 0 || ts.tid != t ||
		    (ts.kind != TARGET_STOP_STEP && ts.kind != TARGET_STOP_SIGNAL) ||
		    target_get_regs(d->proc, t, r, err) < 0)
			break;
		if (ts.kind == TARGET_STOP_SIGNAL) {
			if (ts.signo == SIGSEGV && ts.addr == c->rec + 4096 + REC_BYTES) {
				/* the record store met the guard page: drained
				 * above next time round; restart it */
				uint64_t s = rec_start(c);

				if (drain(c, th) < 0)
					break;
				r->rax = s;
				target_set_regs(d->proc, t, r, NULL);
			} else if (!(ts.signo == SIGTRAP && ts.si_code == SI_KERNEL) && !sig) {
				sig = ts.signo;	/* another arrived: kept for later */
			}
			target_set_pending_signal(d->proc, t, 0);
		}
	}
	target_set_pending_signal(d->proc, t, sig);
	if (rc < 0 && err && !err->msg[0])
		ptdb_err_set(err, "the cache engine lost thread %d", (int)t);
	return rc;
}

/* Everything translated goes (the code under it may have changed): the
 * blocks, their links and the lookup tables; the regions stay mapped.
 * Only with the thread at an original pc and its records out. */
static void flush(struct dbg_cache *c)
{
	uint8_t *zero = xcalloc(1, CCACHE_TABLE_ENTRIES * 16);

	for (int i = 0; i < c->nreg; i++) {
		struct region *g = &c->reg[i];

		target_write_mem(c->d->proc, g->addr + CCACHE_TABLE_OFF, zero, CCACHE_TABLE_ENTRIES * 16, NULL);
		g->used = g->disp_len;
		g->nids = 0;
	}
	free(zero);
	for (uint32_t i = 0; i < c->nblk; i++) {
		ccache_block_release(&c->blk[i]);
		free(c->plan[i].pk);
	}
	c->nblk = 0;
	free(c->hkey);
	free(c->hval);
	c->hkey = NULL;
	c->hval = NULL;
	c->hcap = c->hn = 0;
	pset_clear(&c->pages, 1);
	pset_clear(&c->tpages, 0);
	pset_clear(&c->pend_head, 0);
	c->npend = 0;
	c->maps_stale = 1;
	c->cur = -1;
	c->need_flush = 0;
	c->st.flushes++;
}

/* The thread left the cache at pc: a system call that maps, unmaps or
 * protects memory there makes the code read so far suspect; one over
 * pages translated code came from flushes the cache. */
static void mapping_call(struct dbg_cache *c, const struct user_regs_struct *r)
{
	uint8_t b[2];
	uint64_t lo = r->rdi & ~4095ull, hi = r->rdi + r->rsi;

	if (target_read_mem(c->d->proc, r->rip, b, 2, NULL) < 0 || b[0] != 0x0f || b[1] != 0x05)
		return;
	if (r->rax != SYS_mmap && r->rax != SYS_munmap && r->rax != SYS_mprotect && r->rax != SYS_mremap)
		return;
	c->maps_stale = 1;
	if (r->rax == SYS_mmap && !(r->r10 & MAP_FIXED))
		return;		/* (only fresh memory) */
	pset_clear(&c->pages, 1);
	for (size_t k = 0; k < c->tpages.cap; k++)
		if (c->tpages.key[k] && c->tpages.key[k] + 4096 > lo && c->tpages.key[k] < hi) {
			flush(c);
			return;
		}
}

/* ---- the run ---- */

static int enter(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		 struct target_stop *ts, struct ptdb_err *err);
static void unmap_left(struct dbg *d, struct dbg_cache *c);

/* The event that stopped an injected call: the thread is back in its own
 * state at r->rip. */
static int take_event(struct dbg_cache *c, struct trace_swc_thread *th, const struct user_regs_struct *r,
		      struct target_stop *ts)
{
	*ts = c->ev;
	c->have_ev = 0;
	if (ts->addr == c->sc || ts->addr == c->sc + 2 || region_of(c, ts->addr))
		ts->addr = r->rip;
	if (ts->kind == TARGET_STOP_SIGNAL)
		trace_swc_pause(th, r->rip);
	return DBG_CACHE_EVENT;
}

static int run(struct dbg *d, struct dbg_cache **cp, struct trace_swc_thread *th,
	       struct user_regs_struct *r, const struct dbg_goal *goals, int ngoals,
	       struct target_stop *ts, struct ptdb_err *err);

/* The process counts as running (so a Ctrl-C stops it) all the while,
 * translating included: an interrupt then stops the thread, and the
 * engine hands that stop on. */
int dbg_cache_run(struct dbg *d, struct dbg_cache **cp, struct trace_swc_thread *th,
		  struct user_regs_struct *r, const struct dbg_goal *goals, int ngoals,
		  struct target_stop *ts, struct ptdb_err *err)
{
	int rc;

	d->running = 1;
	if (d->interrupt_requested)
		target_interrupt(d->proc);
	rc = run(d, cp, th, r, goals, ngoals, ts, err);
	d->running = 0;
	return rc;
}

static int run(struct dbg *d, struct dbg_cache **cp, struct trace_swc_thread *th,
	       struct user_regs_struct *r, const struct dbg_goal *goals, int ngoals,
	       struct target_stop *ts, struct ptdb_err *err)
{
	struct target_thread_info ti[2];
	struct dbg_cache *c = *cp;
	pid_t t = th->tid;
	int64_t id;

	if (!c) {
		c = *cp = xcalloc(1, sizeof(*c));
		c->cur = -1;
	}
	c->d = d;
	c->tid = t;
	c->goals = goals;
	c->ngoals = ngoals;
	/* one thread only: the stubs' slots are per region, not per thread */
	if (c->broken || target_threads(d->proc, ti, 2) != 1) {
		c->need_flush = 1;	/* the ptrace engine runs: anything may change */
		return DBG_CACHE_OFF;
	}
	if (c->ready && c->need_flush)
		flush(c);
	if (!c->ready) {
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		c->magic = 0x70746462636163ull ^ ((uint64_t)now.tv_nsec << 20) ^ (uint64_t)d->pid;
		unmap_left(d, c);
		if (setup(d, c, t) < 0) {
			if (c->have_ev)
				return take_event(c, th, r, ts);
			c->broken = 1;	/* the ptrace engine does this run */
			return DBG_CACHE_OFF;
		}
	}
	id = block_for(c, t, r->rip, is_stop(c, r->rip));
	if (id < 0)
		return c->have_ev ? take_event(c, th, r, ts) : DBG_CACHE_NOTHING;
	c->st.entries++;
	r->rip = c->blk[id].base;
	if (target_set_regs(d->proc, t, r, err) < 0)
		return -1;
	{
		uint64_t t0 = now_ns();
		int rc = enter(c, th, t, r, ts, err);

		c->st.run_ns += now_ns() - t0;
		return rc;
	}
}

/* Translates the blocks the direct exits of block id lead to, and theirs,
 * a few: each would otherwise cost a trap when first reached (its exits
 * are linked as they land). */
static void ahead(struct dbg_cache *c, pid_t t, int64_t id)
{
	int64_t q[AHEAD];
	int nq = 0, done = 0;

	q[nq++] = id;
	for (int i = 0; i < nq && done < AHEAD; i++) {
		const struct ccache_block *b = &c->blk[q[i]];
		uint64_t tg[2];
		int n = b->nexit;

		for (int k = 0; k < n; k++)
			tg[k] = b->exit[k].target;
		for (int k = 0; k < n && done < AHEAD; k++) {
			int64_t to;

			if (is_stop(c, tg[k]) || hget(c, tg[k]) >= 0)
				continue;
			to = block_for(c, t, tg[k], 0);	/* (b may move) */
			done++;
			if (to >= 0 && nq < AHEAD)
				q[nq++] = to;
		}
	}
}

/* At an exit's trap or a lookup miss the thread is in the original state
 * before pc: on into pc's block (linking the exit, filling the table), or
 * out when pc is a stop or cannot run in the cache.  1: went on. */
static int go_on(struct dbg_cache *c, pid_t t, struct user_regs_struct *r, int64_t from, int k,
		 struct region *miss)
{
	struct dbg *d = c->d;
	uint64_t pc = r->rip;
	int64_t id;

	if (is_stop(c, pc) || (id = block_for(c, t, pc, 0)) < 0)
		return 0;
	ahead(c, t, id);
	if (from >= 0) {
		/* (block_for may have moved the array: from by index) */
		write_link(d, &c->blk[from], k, c->blk[id].base, NULL);
		c->st.links++;
	} else if (miss) {
		uint64_t e[2] = { (uint64_t)0 - pc, c->blk[id].base };

		target_write_mem(d->proc, miss->addr + CCACHE_TABLE_OFF + (pc & 0xffff) * 16, e, 16, NULL);
		c->st.misses++;
	}
	r->rip = c->blk[id].base;
	return 1;
}

static int enter(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		 struct target_stop *ts, struct ptdb_err *err)
{
	struct dbg *d = c->d;

	for (;;) {
		struct region *g;
		struct ccache_block *b = NULL;
		int64_t from = -1;
		int idx = -1;

		if (target_thread_cont_raw(d->proc, t, err) < 0)
			return -1;
		do {
			if (!target_thread_event(d->proc, 1, ts))
				return ptdb_err_set(err, "the traced thread %d vanished", (int)t);
		} while (ts->tid != t && ts->kind != TARGET_STOP_EXITED && ts->kind != TARGET_STOP_SIGNALED);
		c->st.traps++;
		if (ts->kind == TARGET_STOP_EXITED || ts->kind == TARGET_STOP_SIGNALED ||
		    target_get_regs(d->proc, t, r, NULL) < 0)
			return DBG_CACHE_EVENT;	/* (its last records are lost with it) */
		g = region_of(c, r->rip - 1);
		if (g)
			b = block_of(c, g, r->rip - 1);
		if (ts->kind == TARGET_STOP_SIGNAL && ts->signo == SIGTRAP && ts->si_code == SI_KERNEL && g &&
		    (r->rip == g->dispatch + g->miss_off + 1 ||
		     (b && ccache_where(b, r->rip, &idx) == CCACHE_AT_TRAP))) {
			int miss = r->rip == g->dispatch + g->miss_off + 1;

			if (b && !miss)
				from = b - c->blk;
			if (drain(c, th) < 0 || !map_back(c, th, r))
				return ptdb_err_set(err, "the cache engine lost thread %d", (int)t);
			if (go_on(c, t, r, from, idx, miss ? g : NULL)) {
				if (target_set_regs(d->proc, t, r, err) < 0)
					return -1;
				continue;
			}
			if (target_set_regs(d->proc, t, r, err) < 0)
				return -1;
			if (c->have_ev)
				return take_event(c, th, r, ts);
			mapping_call(c, r);
			return DBG_CACHE_AT;
		}
		if (ts->kind == TARGET_STOP_SIGNAL && ts->signo == SIGSEGV &&
		    ts->addr == c->rec + 4096 + REC_BYTES && region_of(c, r->rip)) {
			/* a full buffer: read it, restart the store */
			uint64_t s = rec_start(c);

			c->st.drains++;
			if (drain(c, th) < 0)
				return ptdb_err_set(err, "the cache engine lost thread %d", (int)t);
			r->rax = s;
			target_set_pending_signal(d->proc, t, 0);
			if (target_set_regs(d->proc, t, r, err) < 0)
				return -1;
			continue;
		}
		/* anything else happens to the program: out of the cache first */
		{
			uint64_t was = r->rip;

			if (settle(c, th, t, r, err) < 0)
				return -1;
			if (ts->addr == was || region_of(c, ts->addr))
				ts->addr = r->rip;
		}
		if (ts->kind == TARGET_STOP_SIGNAL)
			trace_swc_pause(th, r->rip);
		return DBG_CACHE_EVENT;
	}
}

/* Unmaps what earlier runs left in the inferior, through thread c->tid
 * when it can take an injected call (stopped, no signal to deliver, not
 * inside a system call); what cannot go now goes at the next chance. */
static void unmap_left(struct dbg *d, struct dbg_cache *c)
{
	struct user_regs_struct r;
	pid_t t = c->tid;
	int k = 0;

	if (c->left_pid != d->pid) {
		c->nleft = 0;	/* another process: its mappings went with it */
		return;
	}
	int sig;

	if (!c->nleft || !target_thread_stopped(d->proc, t) || target_get_regs(d->proc, t, &r, NULL) < 0 ||
	    ((long)r.orig_rax >= 0 && (long)r.rax < 0 && (long)r.rax >= -4095))
		return;
	/* a signal it stopped with waits while the calls run (one that
	 * arrives in the meantime stops them: they are tried again later) */
	sig = target_pending_signal(d->proc, t);
	target_set_pending_signal(d->proc, t, 0);
	if (!c->sc)
		c->sc = find_syscall(d);
	for (int i = 0; i < c->nleft; i++) {
		uint64_t m = 0, a[6] = { c->left[i].addr, c->left[i].len };
		int64_t ret;

		/* gone with an exec when the magic is not there any more */
		if (target_read_mem(d->proc, c->left[i].addr + c->left[i].magic_off, &m, 8, NULL) < 0 ||
		    m != c->left[i].magic)
			continue;
		if (target_pending_signal(d->proc, t) || inject(d, c, t, SYS_munmap, a, &ret) < 0)
			c->left[k++] = c->left[i];
	}
	c->nleft = k;
	c->have_ev = 0;		/* (a signal that came: pending, delivered on resume) */
	if (!target_pending_signal(d->proc, t))
		target_set_pending_signal(d->proc, t, sig);
}

static void leave_behind(struct dbg *d, struct dbg_cache *c, uint64_t addr, uint64_t len, uint64_t magic_off)
{
	if (c->nleft == MAX_REGIONS + 1)
		return;
	c->left[c->nleft++] = (struct left){ addr, len, magic_off, c->magic };
	c->left_pid = d ? d->pid : 0;
}

void dbg_cache_finish(struct dbg *d, struct dbg_cache *c)
{
	if (!c)
		return;
	if (c->ready) {
		c->nleft = c->left_pid == (d ? d->pid : 0) ? c->nleft : 0;
		for (int i = 0; i < c->nreg; i++)
			leave_behind(d, c, c->reg[i].addr, REGION_SIZE, 0);
		leave_behind(d, c, c->rec, 4096 + REC_BYTES + 4096, 8);
	}
	if (d && dbg_alive(d))
		unmap_left(d, c);
	if (c->run_bytes > c->st.peak_cache)
		c->st.peak_cache = c->run_bytes;
	for (uint32_t i = 0; i < c->nblk; i++) {
		ccache_block_release(&c->blk[i]);
		free(c->plan[i].pk);
	}
	for (int i = 0; i < c->nreg; i++)
		free(c->reg[i].ids);
	free(c->blk);
	free(c->plan);
	c->plan = NULL;
	free(c->hkey);
	free(c->hval);
	free(c->maps);
	c->maps = NULL;
	c->nmaps = 0;
	c->maps_stale = 0;
	pset_clear(&c->pages, 1);
	pset_clear(&c->tpages, 0);
	pset_clear(&c->pend_head, 0);
	free(c->pend);
	c->pend = NULL;
	c->npend = c->cpend = 0;
	c->need_flush = 0;
	c->blk = NULL;
	c->hkey = NULL;
	c->hval = NULL;
	c->nblk = c->cblk = 0;
	c->hcap = c->hn = 0;
	c->nreg = 0;
	c->ready = c->broken = 0;
	c->run_bytes = 0;
	c->cur = -1;
}

void dbg_cache_free(struct dbg_cache *c)
{
	if (!c)
		return;
	dbg_cache_finish(NULL, c);
	free(c);
}

void dbg_cache_count_fallback(struct dbg_cache *c)
{
	if (c)
		c->st.fallback++;
}

struct dbg_cache_stats dbg_cache_get_stats(const struct dbg_cache *c)
{
	struct dbg_cache_stats z;

	if (c)
		return c->st;
	memset(&z, 0, sizeof(z));
	return z;
}
