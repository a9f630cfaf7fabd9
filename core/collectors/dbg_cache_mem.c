/* core/collectors/dbg_cache_mem.c: the cache engine's hold on the inferior's memory:
 * system calls injected into the stopped thread (mmap, mprotect, munmap
 * through a syscall instruction found in its code), the record buffer and
 * the code-cache regions near the code they translate, what a run could
 * not unmap, and the original code read a page at a time for the
 * translator (read-only executable mappings only). */
#include "core/collectors/dbg_cache_int.h"
#include "core/collectors/dbg_code.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <string.h>
#include <sys/syscall.h>

/* Finds the bytes of a syscall instruction in executable memory. */
uint64_t dbg_cache_find_syscall(struct dbg_tracee *d)
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

/* 1 when the kernel holds a signal for thread t that ptdb has not seen
 * yet.  The usual one: t ran into a breakpoint just as the process was
 * stopped (another thread's stop), and its SIGTRAP waits behind the
 * stop.  It comes out at t's next resume, where the target recognizes
 * a breakpoint removed meanwhile only at the original pc: a resume that
 * has moved the pc first (into the cache, to an injected system call)
 * would turn it into a real SIGTRAP for the program. */
int dbg_cache_signal_waits(const struct dbg_tracee *d, pid_t t)
{
	struct target_sigsets s;

	return target_thread_sigsets(d->pid, t, &s) == 0 && s.pending != 0;
}

/* Thread t, its registers *save, runs system call nr (arguments a)
 * through the syscall instruction at sc, one step, and gets *save back:
 * 0 with the call's result in *ret, else -1 with what came instead in *ts
 * (kind TARGET_STOP_NONE when t did not run; the registers not given back
 * when the process or t ended).  On 0, *ts is the step's stop or an event
 * that came with the call's end, the caller's: a thread-directed SIGTRAP
 * (tgkill, raise in another thread) that arrived while the call ran is
 * pending as the step's own trap is sent, and a SIGTRAP does not queue
 * twice: the stop is that signal's, at sc + 2, the call done, its result
 * in rax.  (A seccomp SIGSYS stops there too, the call not run: rax is
 * its number again.)  For the cache engine's injected calls and the
 * ptrace engine's (dbg_swc_hide.c). */
int dbg_cache_syscall_step(struct dbg_tracee *d, pid_t t, const struct user_regs_struct *save, uint64_t sc,
			   long nr, const uint64_t a[6], struct target_stop *ts, int64_t *ret)
{
	struct user_regs_struct r = *save;
	int ok;

	memset(ts, 0, sizeof(*ts));
	r.rip = sc;
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
	ok = target_thread_step(d->proc, t, ts, NULL) == 0 && ts->tid == t &&
	     (ts->kind == TARGET_STOP_STEP || (ts->kind == TARGET_STOP_SIGNAL && ts->signo != SIGSYS) ||
	      ts->kind == TARGET_STOP_INTERRUPT) &&
	     target_get_regs(d->proc, t, &r, NULL) == 0 && r.rip == sc + 2;
	if (ts->kind == TARGET_STOP_EXITED || ts->kind == TARGET_STOP_SIGNALED)
		return -1;
	target_set_regs(d->proc, t, save, NULL);
	if (!ok)
		return -1;
	*ret = (int64_t)r.rax;
	return 0;
}

/* Runs one system call in thread t, its registers restored afterwards.
 * -1 when it did not run (a signal came first: it stays pending), or
 * may not: t holds an event target/ queued for it (a stop that raced
 * another thread's, at the end of a run), which the step would take in
 * the call's place and lose; the call is left for later.  t stopped at
 * a clone, fork or exec event is run to that call's end first, its
 * result in rax (target_thread_leave_call): else the registers put back
 * gave the program -ENOSYS for it. */
int dbg_cache_inject(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, long nr, const uint64_t a[6], int64_t *ret)
{
	struct user_regs_struct save;
	struct target_stop ts;
	uint8_t b[2];
	int rc;

	/* (its bytes checked each time: the program may have rewritten or
	 * unmapped them) */
	if (c->sc && (target_read_mem(d->proc, c->sc, b, 2, NULL) < 0 || b[0] != 0x0f || b[1] != 0x05))
		c->sc = dbg_cache_find_syscall(d);
	if (!c->sc || target_thread_has_event(d->proc, t) || target_pending_signal(d->proc, t) ||
	    dbg_cache_signal_waits(d, t) || target_thread_leave_call(d->proc, t) < 0 ||
	    target_get_regs(d->proc, t, &save, NULL) < 0)
		return -1;
	rc = dbg_cache_syscall_step(d, t, &save, c->sc, nr, a, &ts, ret);
	/* (an event with the call's end too: the call ran, the event is
	 * the caller's all the same) */
	if (ts.tid == t && (ts.kind == TARGET_STOP_SIGNAL || ts.kind == TARGET_STOP_INTERRUPT) &&
	    !c->have_ev) {
		c->ev = ts;	/* (its pc: where the thread really is, below) */
		c->have_ev = 1;
	}
	return rc;
}

static uint64_t do_mmap(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, uint64_t hint, uint64_t len, int prot,
			int fixed)
{
	uint64_t a[6] = { hint, len, (uint64_t)prot,
			  MAP_PRIVATE | MAP_ANONYMOUS | (fixed ? MAP_FIXED_NOREPLACE : 0), (uint64_t)-1, 0 };
	int64_t r;

	if (dbg_cache_inject(d, c, t, SYS_mmap, a, &r) < 0 || (r < 0 && r > -4096))
		return 0;
	if (fixed && (uint64_t)r != hint) {	/* an old kernel took it as a hint */
		uint64_t u[6] = { (uint64_t)r, len };

		dbg_cache_inject(d, c, t, SYS_munmap, u, &r);
		return 0;
	}
	return (uint64_t)r;
}

static int do_mprotect(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, uint64_t addr, uint64_t len, int prot)
{
	uint64_t a[6] = { addr, len, (uint64_t)prot };
	int64_t r;

	return dbg_cache_inject(d, c, t, SYS_mprotect, a, &r) < 0 || r != 0 ? -1 : 0;
}

/* The record buffer: a page holding the ring's header when misses are
 * not served (else it is in the control page: shared), the records, a
 * guard page (a stub's store never goes past the ring's end: its limit
 * is there at most), and the control page (core/collectors/
 * dbg_cache_shm.c). */
int dbg_cache_setup(struct dbg_tracee *d, struct dbg_cache *c, pid_t t)
{
	uint64_t p, b, hdr[CCACHE_RING_HDR_BYTES / 8];

	c->sc = dbg_cache_find_syscall(d);
	c->rec = do_mmap(d, c, t, 0, REC_MAP_BYTES, PROT_READ | PROT_WRITE, 0);
	if (!c->rec)
		return -1;
	p = rec_start(c);
	b = c->magic;
	/* (the magic first: a buffer this fails to finish, a signal
	 * stopping the next call, is left behind, unmapped later) */
	/* (misses trap without the control page; a signal that stopped
	 * one of its calls is the caller's event, the setup tried again) */
	if (target_write_mem(d->proc, c->rec + 8, &b, 8, NULL) < 0 ||
	    do_mprotect(d, c, t, c->rec + 4096 + REC_BYTES, 4096, PROT_NONE) < 0 ||
	    (dbg_cache_shm_setup(d, c, t) < 0 && c->have_ev))
		goto fail;
	c->rr = &c->rr0;
	ccache_ring_init(&c->rr0.ring, p, REC_BYTES);
	hdr[0] = p;
	hdr[1] = (uint64_t)0 - c->rr0.ring.end;
	hdr[2] = CCACHE_RING_TRAP;	/* (served only while the drainer runs) */
	hdr[3] = p;
	hdr[4] = (uint64_t)0 - c->rr0.ring.end;
	hdr[5] = p;
	hdr[6] = 0;	/* (no wrap by itself until the tracer reads) */
	if (c->ctl_map) {
		c->rr0.hdr = c->ctl + CCACHE_CTL_RING;
		c->rr0.map = c->ctl_map + CCACHE_CTL_RING;
		memcpy(c->rr0.map, hdr, sizeof(hdr));
	} else {
		c->rr0.hdr = c->rec + 256;
		c->rr0.map = NULL;
		if (target_write_mem(d->proc, c->rr0.hdr, hdr, sizeof(hdr), NULL) < 0)
			goto fail;
	}
	/* (no pool: the regions' slots, as many threads take turns) */
	if (dbg_cache_gs_setup(d, c, t) < 0 && c->have_ev) {
		dbg_cache_shm_close(c);
		dbg_cache_leave_behind(d, c, c->rec, REC_MAP_BYTES, 8);
		c->rec = 0;
		return -1;
	}
	dbg_cache_gs_forget_cur(c);
	c->ready = 1;
	return 0;
fail:
	dbg_cache_shm_close(c);
	dbg_cache_leave_behind(d, c, c->rec, REC_MAP_BYTES, 8);
	c->rec = 0;
	return -1;
}

/* A region whose code is near addr (rel32 and RIP-relative reach). */
struct region *dbg_cache_region_near(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, uint64_t addr, uint64_t need)
{
	uint8_t disp[1024];
	uint32_t miss, rtrap = 0;
	size_t n, rn = 0;
	uint64_t a = 0;

	for (int i = 0; i < c->nreg; i++) {
		struct region *g = &c->reg[i];
		uint64_t code = g->addr + CCACHE_CODE_OFF;
		uint64_t dist = code > addr ? code - addr : addr - code;

		if (dist < REGION_REACH && g->used + need <= REGION_SIZE - CCACHE_CODE_OFF)
			return g;
	}
	if (c->nreg == MAX_REGIONS || c->serving)
		return NULL;	/* (serving: the thread runs, no call injected) */
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
	g->map = dbg_cache_shm_region(d, c, t, a);
	/* (int3 between the dispatcher and the ring stub: every byte
	 * written is defined) */
	memset(disp, 0xcc, sizeof(disp));
	n = c->ctl ? ccache_dispatcher_served(dbg_cache_gs_region(c, a), c->ctl, disp, sizeof(disp), &miss)
		   : ccache_dispatcher(dbg_cache_gs_region(c, a), disp, sizeof(disp), &miss);
	g->dispatch = a + CCACHE_CODE_OFF;
	g->miss_off = miss;
	g->used = g->disp_len = (n + 63) & ~(uint64_t)63;
	/* the ring stub after it (trace/ccache_shm.c) */
	if (n && n + 64 < sizeof(disp)) {
		g->ring = g->dispatch + g->disp_len;
		/* (per-thread rings: the doorbell, the headers the threads') */
		uint64_t wake = c->pt ? c->ctl + CCACHE_CTL_BELL
				      : c->ctl ? c->ctl + CCACHE_CTL_REQ : c->rr0.hdr + CCACHE_RING_WORD;

		rn = ccache_ring_code(g->ring, dbg_cache_gs_region(c, a), c->rr0.hdr, wake, disp + g->disp_len, sizeof(disp) - g->disp_len,
				      &rtrap);
		g->ring_trap = rtrap;
		if (rn)
			n = g->disp_len + rn;
		g->used = g->disp_len = rn ? (n + 63) & ~(uint64_t)63 : g->disp_len;
		if (!rn)
			g->ring = 0;
	}
	if (c->pt && !g->ring)
		n = 0;	/* (a thread's ring has no guard page: its limit is a must) */
	/* code pages are not writable by the program (ptdb writes them
	 * through the debugger's access); one this fails to finish (a
	 * signal stopped the call) is left behind, unmapped later */
	if (target_write_mem(d->proc, a, &c->magic, 8, NULL) < 0 || !n ||
	    target_write_mem(d->proc, g->dispatch, disp, n, NULL) < 0 || dbg_cache_sys_table_write(d, a) < 0 ||
	    do_mprotect(d, c, t, a + CCACHE_CODE_OFF, REGION_SIZE - CCACHE_CODE_OFF, PROT_READ | PROT_EXEC) < 0) {
		c->nreg--;
		if (g->map)
			munmap(g->map, REGION_SIZE);
		dbg_cache_leave_behind(d, c, a, REGION_SIZE, 0);
		return NULL;
	}
	return g;
}

void *dbg_cache_zalloc(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* (small pages: a huge one is 2 MiB zeroed at the first touch) */
	madvise(p, n, MADV_NOHUGEPAGE);
	return p;
}

void dbg_cache_zfree(void *p, size_t n)
{
	if (p)
		munmap(p, n);
}

/* Which of pc's two slots (s, s + 1) a fill that replaces takes when
 * both hold other entries: one entered only because its block was
 * translated (age 0) before one a lookup asked for, else the one filled
 * longer ago.  (Always the second, as before, let two hot targets whose
 * low bits agree evict each other at every call while a cold entry sat
 * in the first: every lookup of either then missed, a round trip to
 * ptdb each.) */
static uint32_t table_victim(const struct dbg_cache *c, const struct region *g, uint32_t s)
{
	uint16_t a0, a1;

	if (!g->tage)
		return s + 1;
	a0 = g->tage[s] ? (uint16_t)(c->tclock - g->tage[s]) : UINT16_MAX;
	a1 = g->tage[s + 1] ? (uint16_t)(c->tclock - g->tage[s + 1]) : UINT16_MAX;
	return a0 > a1 ? s : s + 1;
}

/* What slot s of a table mirror (tkey) says of pc there: pc's bits above
 * the 16 that index it, and whether s is their slot's next (4 bytes a
 * slot, not 8: the mirror is the largest thing ptdb keeps per region, its
 * pages touched as far apart as the table's); 0 is no pc (page 0 is
 * never code).  A pc beyond 47 bits reads as one that is not there: the
 * mirror only says where entries go, the dispatcher checks the whole key. */
static uint32_t tkey_of(uint64_t pc, uint32_t s)
{
	if (pc >> 47)
		return UINT32_MAX;
	return (uint32_t)(pc >> 16) << 1 | ((pc & 0xffff) != (s & 0xffff));
}

void dbg_cache_table_put(struct dbg_cache *c, struct region *g, uint64_t pc, uint64_t base, int replace)
{
	uint32_t s = (uint32_t)(pc & 0xffff);

	if (!g->tkey) {
		g->tkey = dbg_cache_zalloc(TKEY_BYTES);
		g->tage = dbg_cache_zalloc(TAGE_BYTES);
	}
	if (!g->tkey && !replace)
		return;
	/* the dispatcher probes the slot of pc's low 16 bits and the next */
	if (g->tkey && g->tkey[s] && g->tkey[s] != tkey_of(pc, s)) {
		if (!g->tkey[s + 1] || g->tkey[s + 1] == tkey_of(pc, s + 1))
			s++;
		else if (!replace)
			return;
		else
			s = table_victim(c, g, s);
	}
	if (g->tkey)
		g->tkey[s] = tkey_of(pc, s);
	if (g->tage && replace) {
		if (!++c->tclock)
			c->tclock = 1;	/* (0 marks an entry no lookup asked for) */
		g->tage[s] = c->tclock;
	}
	if (c->ntq == c->ctq) {
		c->ctq = c->ctq ? 2 * c->ctq : 1024;
		c->tq = xrealloc(c->tq, c->ctq * sizeof(*c->tq));
	}
	c->tq[c->ntq++] = (struct tput){ g->addr + CCACHE_TABLE_OFF + s * 16ull, { (uint64_t)0 - pc, base } };
}

/* Into every region's lookup table where a slot is free: an indirect
 * transfer there (a call through the PLT into another module, a return
 * from it) then hits at once. */
void dbg_cache_table_enter(struct dbg_cache *c, uint64_t pc, uint64_t base)
{
	for (int i = 0; i < c->nreg; i++)
		dbg_cache_table_put(c, &c->reg[i], pc, base, 0);
}

/* (process_vm_writev: many scattered 16-byte entries in one call; the
 * tables are writable, unlike the code) */
void dbg_cache_table_flush(struct dbg_cache *c)
{
	enum { N = 512 };
	struct iovec lo[N], ro[N];

	if (c->hold_tables)
		return;	/* (after the code they lead to: dbg_cache_shm.c) */
	dbg_cache_table_store_mapped(c);
	for (size_t i = 0; i < c->ntq; i += N) {
		size_t n = c->ntq - i < N ? c->ntq - i : N;
		ssize_t w;

		for (size_t k = 0; k < n; k++) {
			lo[k] = (struct iovec){ c->tq[i + k].e, 16 };
			ro[k] = (struct iovec){ (void *)(uintptr_t)c->tq[i + k].addr, 16 };
		}
		w = process_vm_writev(c->d->pid, lo, n, ro, n, 0);
		if (w != (ssize_t)(16 * n))
			for (size_t k = 0; k < n; k++)
				target_write_mem(c->d->proc, c->tq[i + k].addr, c->tq[i + k].e, 16, NULL);
	}
	c->ntq = 0;
}

void dbg_cache_table_reset(struct dbg_cache *c)
{
	for (int i = 0; i < c->nreg; i++) {
		if (c->reg[i].tkey)	/* (zero again, and no longer resident) */
			madvise(c->reg[i].tkey, TKEY_BYTES, MADV_DONTNEED);
		if (c->reg[i].tage)
			madvise(c->reg[i].tage, TAGE_BYTES, MADV_DONTNEED);
	}
	c->ntq = 0;
}

static int dbg_cache_runnable(struct dbg_cache *c, uint64_t addr)
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
		/* not writable code (a JIT's: the ptrace engine runs it),
		 * nor shared code (another view of it may be writable), nor a
		 * memfd's (written with pwrite) */
		for (int i = 0; i < c->nmaps; i++)
			if (addr >= c->maps[i].start && addr < c->maps[i].end)
				return c->maps[i].perms[2] == 'x' && c->maps[i].perms[1] != 'w' &&
				       c->maps[i].perms[3] == 'p' && strncmp(c->maps[i].path, "/memfd:", 7);
		if (pass == 0)
			c->maps_stale = 1;	/* mapped since: read again, once */
	}
	return 0;
}

static size_t pset_slot_home(const struct pset *p, uint64_t pg)
{
	return (size_t)(((pg >> 12) ^ pg) * 0x9e3779b97f4a7c15ull >> 32) & (p->cap - 1);
}

static size_t pset_slot(const struct pset *p, uint64_t pg)
{
	size_t i = pset_slot_home(p, pg);

	while (p->key[i] && p->key[i] != pg)
		i = (i + 1) & (p->cap - 1);
	return i;
}

uint8_t **dbg_cache_pset_find(struct pset *p, uint64_t pg)
{
	size_t i;

	if (!p->cap)
		return NULL;
	/* (the same page again and again while a block is decoded) */
	if (p->last && p->key[p->last - 1] == pg)
		return &p->val[p->last - 1];
	i = pset_slot(p, pg);
	if (!p->key[i])
		return NULL;
	p->last = i + 1;
	return &p->val[i];
}

void dbg_cache_pset_add(struct pset *p, uint64_t pg, uint8_t *v)
{
	size_t i;

	if (2 * (p->n + 1) > p->cap) {
		struct pset o = *p;

		p->cap = p->cap ? 2 * p->cap : 256;
		p->last = 0;
		p->key = xcalloc(p->cap, sizeof(*p->key));
		p->val = xcalloc(p->cap, sizeof(*p->val));
		p->n = 0;
		for (size_t k = 0; k < o.cap; k++)
			if (o.key[k])
				dbg_cache_pset_add(p, o.key[k], o.val[k]);
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

/* (linear probing: the keys after the hole that would no longer be
 * found across it move back into it, so no tombstones stay) */
void dbg_cache_pset_del(struct pset *p, uint64_t pg)
{
	size_t i, j, home, mask = p->cap - 1;

	if (!p->cap || !p->key[i = pset_slot(p, pg)])
		return;
	p->last = 0;
	p->n--;
	for (j = (i + 1) & mask; p->key[j]; j = (j + 1) & mask) {
		home = pset_slot_home(p, p->key[j]);
		/* (j's key stays if its home lies cyclically in (i, j]) */
		if (i <= j ? home > i && home <= j : home > i || home <= j)
			continue;
		p->key[i] = p->key[j];
		p->val[i] = p->val[j];
		i = j;
	}
	p->key[i] = 0;
	p->val[i] = NULL;
}

void dbg_cache_pset_clear(struct pset *p, int free_vals)
{
	/* (a value whose low bit is set is borrowed: c->pages's from the
	 * trace, dbg_cache_page_at) */
	for (size_t k = 0; free_vals && k < p->cap; k++)
		if (!((uintptr_t)p->val[k] & 1))
			free(p->val[k]);
	free(p->key);
	free(p->val);
	memset(p, 0, sizeof(*p));
}

/* The original bytes of the page at addr (breakpoints masked), NULL if
 * it is not code the cache may translate. */
static const uint8_t *dbg_cache_page_at(struct dbg_cache *c, uint64_t addr)
{
	uint64_t pg = addr & ~4095ull;
	uint8_t **v = dbg_cache_pset_find(&c->pages, pg), *b;
	const uint8_t *kept;

	if (v)
		return (const uint8_t *)((uintptr_t)*v & ~(uintptr_t)1);
	if (!dbg_cache_runnable(c, pg))
		return NULL;
	b = xmalloc(4096);
	if (target_read_mem(c->d->proc, pg, b, 4096, NULL) < 0) {
		free(b);
		return NULL;
	}
	/* (the code as it ran; the trace's copy is the same bytes, kept for
	 * longer than the cache keeps its pages: borrowed, not kept twice) */
	kept = dbg_code_pages_page(c->d->trace, pg, b);
	if (kept) {
		free(b);
		dbg_cache_pset_add(&c->pages, pg, (uint8_t *)((uintptr_t)kept | 1));
		return kept;
	}
	dbg_cache_pset_add(&c->pages, pg, b);
	return b;
}

static void dbg_cache_note_tpage(struct dbg_cache *c, uint64_t pg)
{
	if (!dbg_cache_pset_find(&c->tpages, pg))
		dbg_cache_pset_add(&c->tpages, pg, NULL);
}

/* The instructions decoded for translation, by address: a block runs on
 * through direct jumps and calls, so the start of a function called from
 * many places is in many blocks; each is decoded once.  An entry is used
 * only if its bytes are the code's now. */
static struct dcent *decoded_slot(struct dbg_cache *c, uint64_t addr)
{
	if (!c->dcache) {
		c->dcache = dbg_cache_zalloc(DCACHE_MIN * sizeof(*c->dcache));
		c->ndcache = c->dcache ? DCACHE_MIN : 0;
	}
	return c->dcache ? &c->dcache[(addr ^ addr >> 14) & (c->ndcache - 1)] : NULL;
}

/* The decode cache twice as large, its entries moved (a hash spreads
 * them over the whole table: its size is what it touches). */
static void decoded_grow(struct dbg_cache *c)
{
	struct dcent *o = c->dcache, *n = dbg_cache_zalloc(2 * c->ndcache * sizeof(*n));
	size_t on = c->ndcache;

	if (!n)
		return;
	c->dcache = n;
	c->ndcache = 2 * on;
	for (size_t i = 0; i < on; i++)
		if (o[i].len)
			*decoded_slot(c, o[i].addr) = o[i];
	dbg_cache_zfree(o, on * sizeof(*o));
}

static int decoded_before(struct dbg_cache *c, uint64_t addr, const uint8_t *q, size_t n,
			  struct disasm_insn *in)
{
	const struct dcent *e = decoded_slot(c, addr);

	if (!e || e->addr != addr || !e->len || e->len > n || memcmp(e->bytes, q, e->len))
		return -1;
	in->addr = addr;
	in->len = e->len;
	memcpy(in->bytes, e->bytes, sizeof(e->bytes));
	in->kind = (enum disasm_kind)e->kind;
	in->has_target = e->has_target;
	in->target = e->target;
	in->ret_imm = e->ret_imm;
	in->riprel_off = e->riprel_off;
	in->riprel_odd = e->riprel_odd;
	in->from_zydis = 1;
	memcpy(in->mnemonic, e->mnem, sizeof(e->mnem));
	in->mnemonic[sizeof(e->mnem)] = 0;
	in->operands[0] = 0;
	return 0;
}

static void decoded_keep(struct dbg_cache *c, const struct disasm_insn *in)
{
	struct dcent *e;

	if (c->dcache && ++c->dcache_kept > c->ndcache / 2 && c->ndcache < DCACHE_SIZE)
		decoded_grow(c);
	e = decoded_slot(c, in->addr);
	if (!e)
		return;
	e->addr = in->addr;
	e->target = in->target;
	memcpy(e->bytes, in->bytes, sizeof(e->bytes));
	e->len = in->len;
	e->kind = (uint8_t)in->kind;
	e->has_target = (uint8_t)in->has_target;
	e->ret_imm = in->ret_imm;
	e->riprel_off = in->riprel_off;
	e->riprel_odd = in->riprel_odd;
	/* (its start: "xbegin" is all a copier asks) */
	memset(e->mnem, 0, sizeof(e->mnem));
	memcpy(e->mnem, in->mnemonic, strnlen(in->mnemonic, sizeof(e->mnem)));
}

int dbg_cache_decode(void *ctx, uint64_t addr, struct disasm_insn *in)
{
	struct dbg_cache *c = ctx;
	const uint8_t *p = dbg_cache_page_at(c, addr), *q;
	uint8_t buf[16];
	size_t off = addr & 4095, n = 4096 - off;

	if (!p)
		return -1;
	if (n >= 16) {
		q = p + off;
		n = 16;
	} else {		/* it may go on into the next page */
		uint64_t pg2 = (addr & ~4095ull) + 4096;
		const uint8_t *p2 = dbg_cache_page_at(c, pg2);

		memcpy(buf, p + off, n);
		if (p2) {
			memcpy(buf + n, p2, 16 - n);
			n = 16;
			dbg_cache_note_tpage(c, pg2);
		}
		q = buf;
	}
	if (decoded_before(c, addr, q, n, in) < 0) {
		if (!c->d->host->disasm(c->d->s) || disasm_flow(c->d->host->disasm(c->d->s), q, n, addr, in) < 0)
			return -1;
		decoded_keep(c, in);
	}
	dbg_cache_note_tpage(c, addr & ~4095ull);
	return 0;
}

/* The identity of process pid's descriptor fd, -1 when it has none. */
static int fd_ident(pid_t pid, int64_t fd, uint64_t *dev, uint64_t *ino)
{
	char path[64];
	struct stat sb;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, (int)fd);
	if (stat(path, &sb) < 0)
		return -1;
	*dev = sb.st_dev;
	*ino = sb.st_ino;
	return 0;
}

/* Closes the inferior's descriptor fd (a memfd of ptdb's) through thread
 * t.  A close that ran closed it, whatever it returned (Linux frees the
 * descriptor before an EINTR: one closed again could be the program's
 * by then); one that did not run (refused: a signal came first, or t
 * holds an event) leaves it for the next chance, the file it is noted. */
void dbg_cache_close_fd(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, int64_t fd)
{
	uint64_t a[6] = { (uint64_t)fd }, dev, ino;
	int64_t r;

	if (fd < 0 || dbg_cache_inject(d, c, t, SYS_close, a, &r) == 0 || fd_ident(d->pid, fd, &dev, &ino) < 0)
		return;
	if (c->nleft_fd == c->cleft_fd) {
		c->cleft_fd = c->cleft_fd ? 2 * c->cleft_fd : 4;
		c->left_fd = xrealloc(c->left_fd, (size_t)c->cleft_fd * sizeof(*c->left_fd));
	}
	c->left_fd[c->nleft_fd++] = (struct left_fd){ (int)fd, dev, ino };
	c->left_pid = d->pid;
}

/* The descriptors left open (dbg_cache_close_fd), closed now if still the
 * same file (the program may have closed it and reused the number; an
 * exec closed it: close-on-exec). */
static void close_left_fds(struct dbg_tracee *d, struct dbg_cache *c, pid_t t)
{
	int k = 0;

	for (int i = 0; i < c->nleft_fd; i++) {
		uint64_t a[6] = { (uint64_t)c->left_fd[i].fd }, dev, ino;
		int64_t r;

		if (fd_ident(d->pid, c->left_fd[i].fd, &dev, &ino) < 0 || dev != c->left_fd[i].dev ||
		    ino != c->left_fd[i].ino)
			continue;
		if (target_pending_signal(d->proc, t) || dbg_cache_inject(d, c, t, SYS_close, a, &r) < 0)
			c->left_fd[k++] = c->left_fd[i];
	}
	c->nleft_fd = k;
}

/* Unmaps what earlier runs left in the inferior, through thread c->tid
 * when it can take an injected call (stopped, no signal to deliver);
 * what cannot go now goes at the next chance.  A thread stopped inside
 * an interrupted system call takes it too: the call runs with orig_rax
 * -1 (no restart of it), and the registers put back (orig_rax the
 * interrupted call, rax -ERESTART*) make the kernel restart the
 * interrupted one when the thread resumes, as after any stop there. */
void dbg_cache_unmap_left(struct dbg_tracee *d, struct dbg_cache *c)
{
	struct user_regs_struct r;
	pid_t t = c->tid;
	int k = 0;

	if (c->left_pid != d->pid) {
		c->nleft = c->nleft_fd = 0;	/* another process: its mappings went with it */
		return;
	}
	int sig;

	if ((!c->nleft && !c->nleft_fd) || !target_thread_stopped(d->proc, t) ||
	    target_get_regs(d->proc, t, &r, NULL) < 0)
		return;
	/* a signal it stopped with waits while the calls run (one that
	 * arrives in the meantime stops them: they are tried again later) */
	sig = target_pending_signal(d->proc, t);
	target_set_pending_signal(d->proc, t, 0);
	if (!c->sc)
		c->sc = dbg_cache_find_syscall(d);
	close_left_fds(d, c, t);
	for (int i = 0; i < c->nleft; i++) {
		uint64_t m = 0, a[6] = { c->left[i].addr, c->left[i].len };
		int64_t ret;

		/* gone with an exec when the magic is not there any more */
		if (target_read_mem(d->proc, c->left[i].addr + c->left[i].magic_off, &m, 8, NULL) < 0 ||
		    m != c->left[i].magic)
			continue;
		if (target_pending_signal(d->proc, t) || dbg_cache_inject(d, c, t, SYS_munmap, a, &ret) < 0)
			c->left[k++] = c->left[i];
	}
	c->nleft = k;
	c->have_ev = 0;		/* (a signal that came: pending, delivered on resume) */
	if (!target_pending_signal(d->proc, t)) {
		target_set_pending_signal(d->proc, t, sig);
	} else if (sig) {
		/* (both: t carries the one it stopped with, the kernel the
		 * other, delivered after it) */
		target_thread_raise(d->proc, t, target_pending_signal(d->proc, t));
		target_set_pending_signal(d->proc, t, sig);
	}
}

void dbg_cache_leave_behind(struct dbg_tracee *d, struct dbg_cache *c, uint64_t addr, uint64_t len, uint64_t magic_off)
{
	if (c->nleft == MAX_REGIONS + 2)
		return;
	c->left[c->nleft++] = (struct left){ addr, len, magic_off, c->magic };
	c->left_pid = d ? d->pid : 0;
}
