/* core/collectors/dbg_cache_shm.c: translation misses served without a
 * stop.  A page of a memfd is mapped in both the inferior and ptdb (the
 * control page, trace/ccache_shm.c): a lookup miss, or an exit to code
 * not translated yet, posts its target there and waits on the request
 * word with FUTEX_WAIT; ptdb's drainer thread (core/collectors/
 * dbg_cache_live.c), which already owns the engine's state while the
 * thread runs, translates the target, writes the block, then its lookup
 * table entry (in that order: the thread probes again once woken), sets
 * the word to 0 and wakes the thread, which was never stopped.  What
 * needs the thread stopped (a new region: an injected mmap) or cannot
 * run in the cache (a stop, untranslatable code) is answered with 2: the
 * thread takes the miss trap and the collector handles it as before.
 * Outside a wait for the thread the word stays 2: a miss then traps at
 * once (a thread stepped through the stub never waits for nobody).
 * The same memfd, from its second page on, holds the shared slot pool
 * (dbg_cache_gs.c): with it every thread has its own request word in
 * its slot page, a stub that posts rings the control page's doorbell
 * (CCACHE_CTL_BELL) and the drainer, waiting on the bell, looks at
 * every thread's word. */
#include "core/collectors/dbg_cache.h"
#include "trace/ccache.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "core/collectors/dbg_cache_int.h"

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 1u
#endif

enum { REQ_IDLE = 0, REQ_POSTED = 1, REQ_TRAP = 2 };

/* The request word: the running thread's own with per-thread requests
 * (c->pt: in its slot page), else the control page's. */
static uint8_t *req_ctl(struct dbg_cache *c)
{
	if (c->pt) {
		for (size_t i = 0; i < c->ngs; i++)
			if (c->gs[i].tid == c->tid && c->gs[i].ctl)
				return c->gs[i].ctl;
		return NULL;
	}
	return c->ctl_map;
}

static uint32_t *req_word(struct dbg_cache *c)
{
	uint8_t *m = req_ctl(c);

	return m ? (uint32_t *)(m + CCACHE_CTL_REQ) : NULL;
}

/* The doorbell the drainer waits on: a stub that posted rang it (pt),
 * else the request word itself. */
static uint32_t *bell(struct dbg_cache *c)
{
	return (uint32_t *)(c->ctl_map + (c->pt ? CCACHE_CTL_BELL : CCACHE_CTL_REQ));
}

static void wake(uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void unmap_pool(struct dbg_cache *c)
{
	if (c->gs_map)
		munmap(c->gs_map, GS_SHARED_BYTES);
	c->gs_map = NULL;
	c->gs_shared = 0;
}

/* The slot pages and the threads' rings, from the memfd's second page
 * on, mapped shared in the inferior and here (dbg_cache_gs.c hands them
 * out): none if either fails (the pool is then private, the ring one). */
static void shared_pool(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, int64_t fd, const char *path)
{
	uint64_t mm[6] = { 0, GS_SHARED_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, (uint64_t)fd, 4096 };
	int64_t r;
	int lfd;
	void *m;

	c->gs_shared = 0;
	c->gs_map = NULL;
	if (getenv("PTDB_CACHE_NO_PT"))
		return;
	lfd = open(path, O_RDWR | O_CLOEXEC);
	m = lfd < 0 ? MAP_FAILED : mmap(NULL, GS_SHARED_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, lfd, 4096);
	if (lfd >= 0)
		close(lfd);
	if (m == MAP_FAILED)
		return;
	if (dbg_cache_inject(d, c, t, SYS_mmap, mm, &r) < 0 || (r < 0 && r > -4096)) {
		munmap(m, GS_SHARED_BYTES);
		return;
	}
	c->gs_map = m;
	c->gs_shared = (uint64_t)r;
}

/* The inferior's file size limit (RLIMIT_FSIZE) allows a file of n
 * bytes: its ftruncate past the limit would fail with a SIGXFSZ sent to
 * the program (a program run under 'ulimit -f' must not see one). */
static int fsize_allows(pid_t pid, uint64_t n)
{
	struct rlimit rl;

	if (prlimit(pid, RLIMIT_FSIZE, NULL, &rl) < 0)
		return 0;
	return rl.rlim_cur == RLIM_INFINITY || n <= (uint64_t)rl.rlim_cur;
}

/* The control page: memfd_create (its name in the record buffer's first
 * page), ftruncate, mmap shared in the inferior over the last page of
 * the record buffer's mapping (unmapped with it), the same file mapped
 * here through /proc/PID/fd, then the inferior's descriptor closed (or
 * noted, closed at the next chance: dbg_cache_close_fd).  0, or -1 (no
 * service: misses trap). */
int dbg_cache_shm_setup(struct dbg_tracee *d, struct dbg_cache *c, pid_t t)
{
	static const char name[] = "ptdb-cache";
	uint64_t a[6] = { c->rec + 64, MFD_CLOEXEC }, f[6] = { 0 }, addr;
	int64_t fd, r;
	char path[64];
	int lfd, pool;
	void *m;

	c->ctl = 0;
	/* the slot pool only if the program's file size limit allows the
	 * file; not even the control page if it does not allow that */
	pool = fsize_allows(d->pid, 4096 + GS_SHARED_BYTES);
	if (!pool && !fsize_allows(d->pid, 4096))
		return -1;
	if (target_write_mem(d->proc, c->rec + 64, name, sizeof(name), NULL) < 0 ||
	    dbg_cache_inject(d, c, t, SYS_memfd_create, a, &fd) < 0 || fd < 0)
		return -1;
	f[0] = (uint64_t)fd;
	f[1] = pool ? 4096 + GS_SHARED_BYTES : 4096;	/* (sparse: pages cost once touched) */
	if (dbg_cache_inject(d, c, t, SYS_ftruncate, f, &r) < 0 || r != 0)
		goto close_fd;
	{
		uint64_t mm[6] = { c->rec + CTL_OFF, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
				   (uint64_t)fd, 0 };

		if (dbg_cache_inject(d, c, t, SYS_mmap, mm, &r) < 0 || (uint64_t)r != c->rec + CTL_OFF)
			goto close_fd;
		addr = (uint64_t)r;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)d->pid, (int)fd);
	lfd = open(path, O_RDWR | O_CLOEXEC);
	m = lfd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, lfd, 0);
	if (lfd >= 0)
		close(lfd);
	if (m == MAP_FAILED)
		goto close_fd;	/* (the page stays, unused, in the mapping) */
	c->gs_shared = 0;
	c->gs_map = NULL;
	if (pool)
		shared_pool(d, c, t, fd, path);
	dbg_cache_close_fd(d, c, t, fd);
	if (c->have_ev) {
		munmap(m, 4096);	/* (a signal stopped the close: the caller's) */
		/* the pool mapped in the inferior goes at the next chance,
		 * its magic first (the control page goes with the record
		 * buffer) */
		if (c->gs_map) {
			memcpy(c->gs_map, &c->magic, 8);
			dbg_cache_leave_behind(d, c, c->gs_shared, GS_SHARED_BYTES, 0);
		}
		unmap_pool(c);
		return -1;
	}
	c->ctl_map = m;
	__atomic_store_n(req_word(c), REQ_TRAP, __ATOMIC_RELEASE);
	c->ctl = addr;
	return 0;
close_fd:
	dbg_cache_close_fd(d, c, t, fd);
	return -1;
}

static void links_now(struct dbg_cache *c);

/* Region a's pages made a memfd's (the same steps as the control
 * page's, over the anonymous mapping thread t made, which nothing uses
 * yet), mapped here too: ptdb then writes code with plain stores and
 * links exits while threads run them (dbg_cache_xl.c).  NULL, a left as
 * it was, if any step fails (links then wait for every thread to stop). */
uint8_t *dbg_cache_shm_region(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, uint64_t a)
{
	static const char name[] = "ptdb-cache-code";
	uint64_t m[6] = { c->rec + 64, MFD_CLOEXEC }, f[6] = { 0, REGION_SIZE };
	int64_t fd = -1, r;
	char path[64];
	void *p = MAP_FAILED;
	int lfd;

	if (!c->ctl_map || getenv("PTDB_CACHE_NO_SHARED_CODE") || !fsize_allows(d->pid, REGION_SIZE) ||
	    target_write_mem(d->proc, c->rec + 64, name, sizeof(name), NULL) < 0 ||
	    dbg_cache_inject(d, c, t, SYS_memfd_create, m, &fd) < 0 || fd < 0)
		return NULL;
	f[0] = (uint64_t)fd;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)d->pid, (int)fd);
	lfd = open(path, O_RDWR | O_CLOEXEC);
	if (lfd >= 0 && dbg_cache_inject(d, c, t, SYS_ftruncate, f, &r) == 0 && r == 0)
		p = mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, lfd, 0);
	if (lfd >= 0)
		close(lfd);
	if (p != MAP_FAILED) {
		/* (MAP_FIXED over the anonymous pages: the same range, ours) */
		uint64_t mm[6] = { a, REGION_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, (uint64_t)fd, 0 };

		if (dbg_cache_inject(d, c, t, SYS_mmap, mm, &r) < 0 || (uint64_t)r != a) {
			munmap(p, REGION_SIZE);
			p = MAP_FAILED;
		}
	}
	dbg_cache_close_fd(d, c, t, fd);
	return p == MAP_FAILED ? NULL : p;
}

void dbg_cache_shm_close(struct dbg_cache *c)
{
	free(c->dl);
	c->dl = NULL;
	c->ndl = c->cdl = 0;
	if (c->ctl_map)
		munmap(c->ctl_map, 4096);
	c->ctl_map = NULL;
	c->rr0.map = NULL;
	c->rr = &c->rr0;
	c->ctl = 0;
	for (size_t i = 0; i < c->ngs; i++)
		c->gs[i].ctl = NULL;
	unmap_pool(c);
}

void dbg_cache_shm_begin(struct dbg_cache *c)
{
	if (c->ctl_map && req_word(c))
		__atomic_store_n(req_word(c), REQ_IDLE, __ATOMIC_RELEASE);
}

/* The thread stopped (ptdb's own thread idle): a request it posted and
 * any it would post go to the miss trap. */
void dbg_cache_shm_end(struct dbg_cache *c)
{
	if (c->ctl_map && req_word(c) &&
	    __atomic_exchange_n(req_word(c), REQ_TRAP, __ATOMIC_ACQ_REL) == REQ_POSTED)
		wake(req_word(c));
	links_now(c);
}

/* Wakes ptdb's thread from dbg_cache_shm_wait. */
void dbg_cache_shm_kick(struct dbg_cache *c)
{
	if (c->ctl_map) {
		if (c->pt)
			__atomic_store_n(bell(c), 1, __ATOMIC_RELEASE);
		wake(bell(c));
	}
}

/* Waits up to ns for a request (or a kick): 0, or -1 if no request can
 * come (the word is 2 until the thread stops: it takes the trap). */
int dbg_cache_shm_wait(struct dbg_cache *c, long ns)
{
	struct timespec to = { 0, ns };
	/* (per-thread requests: any thread's may come, the bell says) */
	uint32_t w = c->pt && c->ctl_map ? REQ_IDLE
		     : c->ctl_map && req_word(c) ? __atomic_load_n(req_word(c), __ATOMIC_ACQUIRE) : REQ_TRAP;

	if (w == REQ_POSTED)
		return 0;	/* (posted since it looked: served at once) */
	if (w != REQ_IDLE)
		return -1;
	/* (the doorbell: 1 if a stub posted since the drainer last looked,
	 * which looks again; a stub posts before it rings, so a post after
	 * the drainer looked leaves the bell 1 for this wait) */
	if (c->pt && __atomic_exchange_n(bell(c), 0, __ATOMIC_ACQ_REL) != 0)
		return 0;
	syscall(SYS_futex, bell(c), FUTEX_WAIT, c->pt ? 0 : REQ_IDLE, &to, NULL, 0);
	return 0;
}

void dbg_cache_shm_defer_link(struct dbg_cache *c, uint32_t id, int k, uint64_t dest)
{
	if (c->ndl == c->cdl) {
		c->cdl = c->cdl ? 2 * c->cdl : 256;
		c->dl = xrealloc(c->dl, c->cdl * sizeof(*c->dl));
	}
	c->dl[c->ndl++] = (struct dlink){ id, k, dest };
}

/* The links that waited (the thread waits or is stopped now; with a
 * crew running, none: another may run the code). */
static void links_now(struct dbg_cache *c)
{
	size_t n = c->ndl;

	if (c->crew_live)
		return;

	c->ndl = 0;
	for (size_t i = 0; i < n; i++)
		if (c->dl[i].id < c->nblk) {
			dbg_cache_write_link(c, &c->blk[c->dl[i].id], c->dl[i].k, c->dl[i].dest, NULL);
			c->st.links_late++;
		}
}

/* Entry e written through its region's mapping here (the table is the
 * region's memfd too): its key cleared, its block, its key, in that
 * order (release stores), as the three writes of one process_vm_writev
 * gave it, without a system call and the pinning of the inferior's
 * pages it costs (a large program enters every block it translates in
 * every region's table).  -1: the region is not mapped here. */
static int table_store(struct dbg_cache *c, const struct tput *e)
{
	struct region *g = dbg_cache_region_of(c, e->addr);
	uint64_t *p;

	if (!g || !g->map || e->addr + 16 > g->addr + REGION_SIZE)
		return -1;
	p = (uint64_t *)(void *)(g->map + (e->addr - g->addr));
	__atomic_store_n(&p[0], (uint64_t)0, __ATOMIC_RELEASE);
	__atomic_store_n(&p[1], e->e[1], __ATOMIC_RELEASE);
	__atomic_store_n(&p[0], e->e[0], __ATOMIC_RELEASE);
	return 0;
}

void dbg_cache_table_store_mapped(struct dbg_cache *c)
{
	size_t k = 0;

	for (size_t i = 0; i < c->ntq; i++)
		if (table_store(c, &c->tq[i]) < 0)
			c->tq[k++] = c->tq[i];
	c->ntq = k;
}

/* The staged code, then the lookup table entries queued, each as: its
 * key cleared, its block, its key (in one call, in that order: a probe
 * that runs meanwhile misses or finds a whole entry, never a key with
 * another's block). */
static void publish(struct dbg_cache *c)
{
	enum { N = 170 };
	static const uint64_t zero = 0;
	struct iovec lo[3 * N], ro[3 * N];

	if (c->stage_len)
		dbg_cache_code_write(c, c->stage_base, c->stage, c->stage_len);
	c->stage_len = 0;
	dbg_cache_links_live(c);
	dbg_cache_table_store_mapped(c);
	for (size_t i = 0; i < c->ntq; i += N) {
		size_t n = c->ntq - i < N ? c->ntq - i : N;

		for (size_t k = 0; k < n; k++) {
			struct tput *e = &c->tq[i + k];

			lo[3 * k] = (struct iovec){ (void *)&zero, 8 };
			ro[3 * k] = (struct iovec){ (void *)(uintptr_t)e->addr, 8 };
			lo[3 * k + 1] = (struct iovec){ &e->e[1], 8 };
			ro[3 * k + 1] = (struct iovec){ (void *)(uintptr_t)(e->addr + 8), 8 };
			lo[3 * k + 2] = (struct iovec){ &e->e[0], 8 };
			ro[3 * k + 2] = (struct iovec){ (void *)(uintptr_t)e->addr, 8 };
		}
		if (process_vm_writev(c->d->pid, lo, 3 * n, ro, 3 * n, 0) != (ssize_t)(24 * n))
			for (size_t k = 0; k < 3 * n; k++)
				target_write_mem(c->d->proc, (uint64_t)(uintptr_t)ro[k].iov_base, lo[k].iov_base, 8,
						 NULL);
	}
	c->ntq = 0;
}

void dbg_cache_shm_publish(struct dbg_cache *c)
{
	publish(c);
}

void dbg_cache_shm_links_now(struct dbg_cache *c)
{
	links_now(c);
}

void dbg_cache_words_trap(struct dbg_cache *c)
{
	uint32_t *w = dbg_cache_ring_word(c);

	if (w && __atomic_exchange_n(w, CCACHE_RING_TRAP, __ATOMIC_ACQ_REL) == CCACHE_RING_POSTED)
		wake(w);
	w = c->ctl_map ? req_word(c) : NULL;
	if (w && __atomic_exchange_n(w, REQ_TRAP, __ATOMIC_ACQ_REL) == REQ_POSTED)
		wake(w);
}

void dbg_cache_words_idle(struct dbg_cache *c)
{
	uint32_t *w = dbg_cache_ring_word(c);

	if (w)
		__atomic_store_n(w, CCACHE_RING_IDLE, __ATOMIC_RELEASE);
	w = c->ctl_map ? req_word(c) : NULL;
	if (w)
		__atomic_store_n(w, REQ_IDLE, __ATOMIC_RELEASE);
}

/* Whether the thread waits for a miss, while ptdb translates ahead. */
int dbg_cache_shm_posted(struct dbg_cache *c)
{
	return c->defer_links && req_word(c) && __atomic_load_n(req_word(c), __ATOMIC_ACQUIRE) == REQ_POSTED;
}

/* The request at m (a control block), posted by thread t. */
static int serve_one(struct dbg_cache *c, uint8_t *m, pid_t t)
{
	uint32_t *w = (uint32_t *)(m + CCACHE_CTL_REQ);
	uint64_t pc, rg;
	struct region *g = NULL;
	int64_t id = -1;
	uint64_t t0;

	if (__atomic_load_n(w, __ATOMIC_ACQUIRE) != REQ_POSTED)
		return 0;
	t0 = dbg_cache_now_ns();
	memcpy(&pc, m + CCACHE_CTL_TARGET, 8);
	memcpy(&rg, m + CCACHE_CTL_REGION, 8);
	for (int i = 0; i < c->nreg; i++)
		if (c->reg[i].addr == rg)
			g = &c->reg[i];
	c->serving = 1;		/* (no new region: that is an injected call) */
	c->hold_tables = 1;
	links_now(c);
	/* (other threads run: no link into code they may run) */
	c->defer_links = c->crew_live;
	if (g && !dbg_cache_is_stop(c, pc) && (id = dbg_cache_block_for(c, t, pc, 0)) >= 0)
		dbg_cache_table_fill(c, g, pc, c->blk[id].base);
	c->defer_links = 0;
	publish(c);
	if (id >= 0)
		c->st.served++;
	/* (the word is 1 until here: only this thread changes it now) */
	__atomic_store_n(w, id >= 0 ? REQ_IDLE : REQ_TRAP, __ATOMIC_RELEASE);
	wake(w);
	if (id >= 0) {
		c->defer_links = 1;
		dbg_cache_ahead(c, t, id);
		publish(c);
		c->defer_links = 0;
	}
	c->serving = 0;
	c->hold_tables = 0;
	c->st.serve_ns += dbg_cache_now_ns() - t0;
	return 1;
}

/* Serves the requests posted, if any: 1 if there was one.  The thread
 * waits for its block only: the blocks it leads to are translated
 * after it is woken, while it runs (published the same way, their links
 * into code it may run left for later).  With per-thread requests each
 * thread's word is looked at (one translator for them all). */
int dbg_cache_shm_serve(struct dbg_cache *c)
{
	int any = 0;

	if (!c->ctl_map)
		return 0;
	if (!c->pt)
		return serve_one(c, c->ctl_map, c->tid);
	for (size_t i = 0; i < c->ngs; i++)
		if (c->gs[i].ctl)
			any |= serve_one(c, c->gs[i].ctl, c->gs[i].tid);
	return any;
}
