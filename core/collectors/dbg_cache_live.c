/* core/collectors/dbg_cache_live.c: the cache engine's records read while
 * the thread runs.  While ptdb waits for the traced thread's next stop, a
 * thread of ptdb's (the drainer) reads the records the thread has written
 * so far into its record ring (trace/ccache_ring.h) and turns them into
 * packets (the same calls as dbg_cache_drain), so at the stop only the
 * last few are left.  The thread never stops for its ring: at the ring's
 * end its ring stub goes back to the start by itself as far as the
 * drainer has read there (trace/ccache_ring.h); at the ring's limit
 * otherwise (the slot before the records not read yet) it posts a
 * request and waits on a futex; the drainer reads until there is room
 * (half the ring when it was full), moves head and limit and wakes it.  The drainer runs only between dbg_cache_live_begin and
 * dbg_cache_live_end (which waits until it is idle, then makes a request
 * posted or to come take the ring stub's trap): the engine's state and
 * the thread's trace are never used by both at once.  It reads the
 * records from its own mapping of the ring where the ring is shared
 * (per-thread rings, dbg_cache_gs.c), else with process_vm_readv (no
 * stop needed either way), the ring's header in memory shared with the
 * program, takes no signal (the collector waits
 * for SIGCHLD in its own thread), and may run on any CPU (a pinned
 * session's traced thread keeps its own).  With several traced threads
 * (turns counted in full rings) the ring is not served: each limit is a
 * trap, as with no shared memory.  With per-thread rings (dbg_cache_gs.c)
 * the ring read is the running thread's own (c->rr), into its trace.
 * With threads in the cache at once (dbg_cache_crew.c) the rings are
 * shared among up to one drainer per CPU (PTDB_CACHE_DRAINERS: how
 * many at most): member i's ring is drainer i % n's alone, read into
 * that member's own trace, so each trace's packets are what one drainer
 * writes, while the threads' records become packets on several CPUs at
 * once.  The first drainer also serves every miss: it translates only
 * while no other reads records (the blocks, plans and packet plans the
 * records name may move: a write lock against their read locks, one
 * slice each), and it passes a ring's request on to the ring's drainer
 * (it waits on the doorbell, the others on their condition variable).
 * A pause waits until every drainer is idle (none touches a ring the
 * engine may unmap next). */
#include "core/collectors/dbg_cache.h"
#include "trace/swc.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "core/collectors/dbg_cache_int.h"

enum { LIVE_IDLE, LIVE_RUN, LIVE_QUIT };
enum { LIVE_SLICE = 4096 };	/* records per pass while misses are served */
enum { LIVE_MIN = 1024 };	/* fewer: not worth a pass yet */
enum { DRN_MAX = 8 };		/* drainers for a crew, at most */
/* How soon a drainer looks again when a ring had records but fewer than
 * LIVE_MIN (its thread not running, or just started): soon while the
 * drainers have CPUs of their own, later when they take turns with the
 * threads on the same CPUs (a wake-up then preempts a thread for a few
 * records: a context switch each way, in CPU time the threads lose).
 * A full ring's request wakes the first drainer at once either way. */
enum { POLL_NS = 20000, POLL_SHARED_NS = 200000, IDLE_NS = 200000 };

struct dbg_cache_live;

/* A drainer besides the first (for a crew): its share of the rings. */
struct drn {
	pthread_t tid;
	pthread_cond_t cv;	/* its wake-ups (the mutex is the first's) */
	int busy, poke;		/* poke: a request waits in its share */
	unsigned idx;
	uint32_t *ids;		/* the records it read (REC_BYTES) */
	struct dbg_cache_stats st;	/* its figures, merged at a pause */
	uint64_t cpu_seen;	/* its CPU time counted so far */
	struct dbg_cache_live *l;
};

struct dbg_cache_live {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state, busy;
	int no_drain;		/* the records are left to the stop */
	int crew;		/* serving a crew (dbg_cache_live_crew) */
	long poll_ns;		/* POLL_NS, or POLL_SHARED_NS */
	struct dbg_cache *c;
	struct trace_swc_thread *th;
	uint64_t cpu_seen;	/* its CPU time counted so far */
	/* a crew's drainers: ndrn in all (this thread the first), the
	 * others made as needed; xl: translating against reading */
	unsigned ndrn, nmade;
	struct drn *drn[DRN_MAX];
	pthread_rwlock_t xl;
};

/* Records since the last read, while the thread runs: the number read,
 * or -1. */
static long live_drain(struct dbg_cache *c, const struct reader *rd, struct trace_swc_thread *th)
{
	uint64_t h = dbg_cache_rr_head(c, rd->rr), span[2][2];
	size_t n = 0;
	int k;

	if (!h)
		return -1;
	k = ccache_ring_spans(&rd->rr->ring, h, REC_BYTES / 4, span);
	for (int i = 0; i < k; i++)
		n += (span[i][1] - span[i][0]) / 4;
	if (n < LIVE_MIN)
		return (long)n;	/* (a few: not worth a pass) */
	/* (a miss or a full ring the thread waits for is served between
	 * slices) */
	return dbg_cache_rd_read(c, rd, th, c->ctl_map ? LIVE_SLICE : REC_BYTES / 4);
}

static void wake(uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* The ring's request (the thread waits in its ring stub: the head met
 * the limit): records read until there is room, head and limit moved
 * (head to the start at the ring's end), the word 0 and the thread
 * woken; 2 if the ring cannot be read (the thread takes the trap). */
int dbg_cache_ring_serve(struct dbg_cache *c, const struct reader *rd, struct trace_swc_thread *th)
{
	struct rring *rr = rd->rr;
	uint32_t *w = dbg_cache_rr_word(rr);
	uint64_t h, nh = 0, nl = 0, t0;
	int ok = 0, waited = 0;

	if (!w || __atomic_load_n(w, __ATOMIC_ACQUIRE) != CCACHE_RING_POSTED)
		return 0;
	t0 = dbg_cache_now_ns();
	h = dbg_cache_rr_head(c, rr);
	/* a full ring is read down to half (the thread then fills half a
	 * ring while the rest is read, not a slice per wake) */
	while (h && (!(ok = ccache_ring_room(&rr->ring, h, &nh, &nl)) ||
		     (waited && nl - nh < (rr->ring.end - rr->ring.start) / 2))) {
		waited = 1;
		if (dbg_cache_rd_read(c, rd, th, LIVE_SLICE) <= 0)
			break;
	}
	if (ok && dbg_cache_rr_set(c, rr, nh, nl) == 0) {
		rd->st->ring_served++;
		rd->st->ring_full += (uint64_t)waited;
	} else {
		ok = 0;
	}
	/* (head and limit before the word: the thread reads them after) */
	__atomic_store_n(w, ok ? CCACHE_RING_IDLE : CCACHE_RING_TRAP, __ATOMIC_RELEASE);
	wake(w);
	rd->st->serve_ns += dbg_cache_now_ns() - t0;
	return 1;
}

/* The misses posted, served (the first drainer's): while no other
 * drainer reads records. */
static int serve_misses(struct dbg_cache_live *l)
{
	int served;

	pthread_rwlock_wrlock(&l->xl);
	served = dbg_cache_shm_serve(l->c);
	pthread_rwlock_unlock(&l->xl);
	return served;
}

/* Member i's ring's requests and records (its drainer's), into its
 * trace: the records read (-1: none can be); *served set if a request
 * was. */
static long member_drain(struct dbg_cache *c, const struct reader *r0, size_t i, int *served)
{
	struct reader rd = { dbg_cache_gs_ring(c, c->crew[i].tid), r0->ids, r0->st };
	long k;

	*served |= dbg_cache_ring_serve(c, &rd, c->crew[i].th);
	k = live_drain(c, &rd, c->crew[i].th);
	*served |= dbg_cache_ring_serve(c, &rd, c->crew[i].th);
	return k;
}

/* A request posted in drainer k's share: it is woken for it. */
static void poke(struct dbg_cache_live *l, unsigned k)
{
	struct drn *w = l->drn[k];

	pthread_mutex_lock(&l->mu);
	w->poke = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&l->mu);
}

/* One pass: the rings' requests and the misses first (what a thread
 * waits for), the records read; with a crew every running member's in
 * its share (member i's ring is drainer i % ndrn's), the requests in
 * the others' shares passed on.  *n: the most records read. */
static int pass(struct dbg_cache_live *l, long *n)
{
	struct dbg_cache *c = l->c;
	struct reader rd = { c->rr, c->ids, &c->st };
	int served = 0;

	*n = 0;
	if (!rd.ids)
		rd.ids = c->ids = xmalloc(REC_BYTES);
	if (c->ncrew < 2 || !c->crew_live || !l->crew) {
		served = dbg_cache_ring_serve(c, &rd, l->th);
		served |= dbg_cache_shm_serve(c);
		*n = l->no_drain ? 0 : live_drain(c, &rd, l->th);
		served |= dbg_cache_ring_serve(c, &rd, l->th);
		served |= dbg_cache_shm_serve(c);
		return served;
	}
	served = serve_misses(l);
	for (size_t i = 0; i < c->ncrew; i++) {
		unsigned k = (unsigned)(i % l->ndrn);
		long got;

		if (!c->crew[i].run)
			continue;
		if (k) {
			uint32_t *w = dbg_cache_rr_word(dbg_cache_gs_ring(c, c->crew[i].tid));

			if (w && __atomic_load_n(w, __ATOMIC_ACQUIRE) == CCACHE_RING_POSTED)
				poke(l, k);
			continue;
		}
		got = member_drain(c, &rd, i, &served);
		*n = got > *n ? got : *n;
	}
	served |= serve_misses(l);
	return served;
}

/* A pass of drainer w (not the first) over its share: its members'
 * rings, each slice read while nothing is translated. */
static int share(struct drn *w, long *n)
{
	struct dbg_cache_live *l = w->l;
	struct dbg_cache *c = l->c;
	struct reader rd = { NULL, w->ids, &w->st };
	int served = 0;

	*n = 0;
	for (size_t i = w->idx; i < c->ncrew; i += l->ndrn) {
		long got;

		if (!c->crew[i].run)
			continue;
		pthread_rwlock_rdlock(&l->xl);
		got = member_drain(c, &rd, i, &served);
		pthread_rwlock_unlock(&l->xl);
		*n = got > *n ? got : *n;
	}
	return served;
}

/* Drainer w (not the first): while a crew runs and w has a share, passes
 * over it; between them it waits on its condition variable (the first
 * drainer pokes it for a request, a pause or the end wakes it). */
static void *worker(void *arg)
{
	struct drn *w = arg;
	struct dbg_cache_live *l = w->l;

	prctl(PR_SET_TIMERSLACK, 1000ul);
	pthread_mutex_lock(&l->mu);
	for (;;) {
		long n;
		int served;
		struct timespec to;

		while (l->state == LIVE_IDLE || (l->state == LIVE_RUN && (!l->crew || w->idx >= l->ndrn)))
			pthread_cond_wait(&w->cv, &l->mu);
		if (l->state == LIVE_QUIT)
			break;
		w->busy = 1;
		w->poke = 0;
		pthread_mutex_unlock(&l->mu);
		served = share(w, &n);
		pthread_mutex_lock(&l->mu);
		w->busy = 0;
		pthread_cond_broadcast(&l->cv);
		if (served || n >= LIVE_MIN || w->poke || l->state != LIVE_RUN)
			continue;
		/* (records coming in: a pass soon, as the first drainer's) */
		clock_gettime(CLOCK_REALTIME, &to);
		to.tv_nsec += n > 0 ? l->poll_ns : IDLE_NS;
		if (to.tv_nsec >= 1000000000) {
			to.tv_sec++;
			to.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&w->cv, &l->mu, &to);
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

static void *drainer(void *arg)
{
	struct dbg_cache_live *l = arg;

	prctl(PR_SET_TIMERSLACK, 1000ul);	/* (its short waits stay short) */
	pthread_mutex_lock(&l->mu);
	for (;;) {
		long n;
		int served;

		while (l->state == LIVE_IDLE)
			pthread_cond_wait(&l->cv, &l->mu);
		if (l->state == LIVE_QUIT)
			break;
		l->busy = 1;
		pthread_mutex_unlock(&l->mu);
		/* what the thread waits for first: a full ring, a miss
		 * (dbg_cache_shm.c) */
		served = pass(l, &n);
		pthread_mutex_lock(&l->mu);
		l->busy = 0;
		pthread_cond_broadcast(&l->cv);
		if (served || n >= LIVE_MIN)
			continue;	/* (more may follow at once) */
		if (n < 0 && l->c->ctl_map) {
			l->no_drain = 1;	/* (the stop's drain says why; the
						 * thread may wait for a miss) */
		} else if (n < 0) {
			l->state = LIVE_IDLE;	/* (the stop's drain says why) */
		} else if (n < 16384 && l->state == LIVE_RUN) {
			struct timespec to;
			int waited;

			/* a request wakes it, and so does dbg_cache_live_end;
			 * records coming in, a pass soon (the thread fills
			 * the ring in a few hundred microseconds).  Busy while
			 * it waits: the wait reads the engine's shared page,
			 * which the engine unmaps once a pause (its kick ends
			 * the wait) has seen the drainer idle; a fault here,
			 * with every signal blocked, killed ptdb (SIGSEGV) */
			l->busy = 1;
			pthread_mutex_unlock(&l->mu);
			waited = dbg_cache_shm_wait(l->c, n > 0 ? l->poll_ns : IDLE_NS);
			pthread_mutex_lock(&l->mu);
			l->busy = 0;
			pthread_cond_broadcast(&l->cv);
			if (waited == 0 || l->state != LIVE_RUN)
				continue;

			clock_gettime(CLOCK_REALTIME, &to);
			to.tv_nsec += IDLE_NS;
			if (to.tv_nsec >= 1000000000) {
				to.tv_sec++;
				to.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&l->cv, &l->mu, &to);
		}
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

/* A thread of ptdb's running fn(arg): it takes no signal (the
 * collector waits for SIGCHLD in its own thread) and may run on any CPU
 * (a pinned session's traced thread keeps its own).  0, or -1. */
static int spawn(pthread_t *tid, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t cpus;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(tid, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return -1;
	CPU_ZERO(&cpus);
	for (long i = 0; i < ncpu && i < CPU_SETSIZE; i++)
		CPU_SET((int)i, &cpus);
	pthread_setaffinity_np(*tid, sizeof(cpus), &cpus);	/* (best effort) */
	return 0;
}

static struct dbg_cache_live *live_new(void)
{
	struct dbg_cache_live *l = xcalloc(1, sizeof(*l));
	pthread_rwlockattr_t ra;

	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cv, NULL);
	/* (a miss a thread waits for goes first: the readers hold the
	 * lock a slice at a time) */
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&l->xl, &ra);
	pthread_rwlockattr_destroy(&ra);
	l->ndrn = 1;
	if (spawn(&l->tid, drainer, l) < 0) {
		pthread_mutex_destroy(&l->mu);
		pthread_cond_destroy(&l->cv);
		pthread_rwlock_destroy(&l->xl);
		free(l);
		return NULL;
	}
	return l;
}

/* The CPUs the drainers may use: those of the first drainer, which
 * spawn() let run anywhere it could (the calling thread's own set is
 * narrower under `taskset`), while a cpuset that bounds the process
 * bounds the drainer too. */
static long drain_cpus(const struct dbg_cache_live *l)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (pthread_getaffinity_np(l->tid, sizeof(set), &set) == 0 && CPU_COUNT(&set) < cpus)
		cpus = CPU_COUNT(&set);
	return cpus < 1 ? 1 : cpus;
}

/* How many drainers a crew of n gets: one per CPU ptdb may use, at most
 * one per member, PTDB_CACHE_DRAINERS at most.  A drainer turns a
 * thread's records into packets in less CPU time than the thread takes
 * to write them (0.3 against 0.4 ns an instruction in a loop), but with
 * more threads than CPUs the scheduler gives each runnable thread the
 * same share: one drainer among four threads on two CPUs got a fifth of
 * the CPU time while its work was two fifths, the threads waited for it
 * with full rings, and while they all waited the other CPU idled (four
 * threads ran 1.18x one thread's rate, ~1.1 CPUs busy).  One per CPU
 * drains on both CPUs while the threads wait. */
static unsigned drainers_for(const struct dbg_cache_live *l, size_t n)
{
	const char *e = getenv("PTDB_CACHE_DRAINERS");
	long cpus = drain_cpus(l), want = e && *e ? atol(e) : cpus;

	want = want < cpus ? want : cpus;
	want = want < (long)n ? want : (long)n;
	want = want < DRN_MAX ? want : DRN_MAX;
	return want < 1 ? 1 : (unsigned)want;
}

/* Drainers 1..k-1 made (l->mu held): as many as could be. */
static unsigned make_drainers(struct dbg_cache_live *l, unsigned k)
{
	while (l->nmade + 1 < k) {
		struct drn *w = xcalloc(1, sizeof(*w));

		pthread_cond_init(&w->cv, NULL);
		w->idx = l->nmade + 1;
		w->l = l;
		w->ids = xmalloc(REC_BYTES);
		l->drn[w->idx] = w;
		if (spawn(&w->tid, worker, w) < 0) {
			l->drn[w->idx] = NULL;
			pthread_cond_destroy(&w->cv);
			free(w->ids);
			free(w);
			break;
		}
		l->nmade++;
	}
	return l->nmade + 1 < k ? l->nmade + 1 : k;
}

/* Every drainer woken (l->mu held): the state changed. */
static void wake_all(struct dbg_cache_live *l)
{
	pthread_cond_broadcast(&l->cv);
	for (unsigned k = 1; k <= l->nmade; k++)
		pthread_cond_broadcast(&l->drn[k]->cv);
}

static int any_busy(const struct dbg_cache_live *l)
{
	int b = l->busy;

	for (unsigned k = 1; k <= l->nmade; k++)
		b |= l->drn[k]->busy;
	return b;
}

/* Thread t's CPU time since *seen (ns), *seen brought up to now. */
static uint64_t cpu_since(pthread_t t, uint64_t *seen)
{
	clockid_t id;
	struct timespec ts;
	uint64_t v, d;

	if (pthread_getcpuclockid(t, &id) || clock_gettime(id, &ts))
		return 0;
	v = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	d = v - *seen;
	*seen = v;
	return d;
}

/* A drainer's figures added to the engine's (what its reads count). */
static void merge(struct dbg_cache_stats *st, struct dbg_cache_stats *w)
{
	st->records += w->records;
	st->records_mapped += w->records_mapped;
	st->packet_ns += w->packet_ns;
	st->ring_served += w->ring_served;
	st->ring_full += w->ring_full;
	st->serve_ns += w->serve_ns;
	st->cpu_ns += w->cpu_ns;
	memset(w, 0, sizeof(*w));
}

void dbg_cache_live_begin(struct dbg_cache *c, struct trace_swc_thread *th)
{
	struct dbg_cache_live *l;

	if (!c->live && !c->live_failed && !(c->live = live_new()))
		c->live_failed = 1;
	l = c->live;
	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	l->c = c;
	l->th = th;
	l->state = LIVE_RUN;
	l->no_drain = 0;
	l->crew = 0;
	l->poll_ns = POLL_NS;
	/* (misses served only while this thread runs: dbg_cache_shm.c;
	 * the ring too, but when turns among threads count full rings) */
	dbg_cache_shm_begin(c);
	if (dbg_cache_ring_word(c) && !c->deadline && !c->watch)
		__atomic_store_n(dbg_cache_ring_word(c), CCACHE_RING_IDLE, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
}

void dbg_cache_live_end(struct dbg_cache *c)
{
	if (!c->live)
		return;
	dbg_cache_live_pause(c);
	/* (the thread stopped: a request it posted, or would post, takes
	 * the ring stub's trap) */
	if (dbg_cache_ring_word(c) &&
	    __atomic_exchange_n(dbg_cache_ring_word(c), CCACHE_RING_TRAP, __ATOMIC_ACQ_REL) == CCACHE_RING_POSTED)
		wake(dbg_cache_ring_word(c));
}

void dbg_cache_live_crew(struct dbg_cache *c)
{
	if (!c->live && !c->live_failed && !(c->live = live_new()))
		c->live_failed = 1;
	if (!c->live)
		return;
	pthread_mutex_lock(&c->live->mu);
	c->live->c = c;
	c->live->th = NULL;
	c->live->no_drain = 0;
	c->live->crew = 1;
	c->live->ndrn = make_drainers(c->live, drainers_for(c->live, c->ncrew));
	/* (more threads and drainers than CPUs: they take turns) */
	c->live->poll_ns = (long)(c->ncrew + c->live->ndrn) > drain_cpus(c->live) ? POLL_SHARED_NS : POLL_NS;
	pthread_mutex_unlock(&c->live->mu);
	dbg_cache_live_go(c);
}

void dbg_cache_live_pause(struct dbg_cache *c)
{
	struct dbg_cache_live *l = c->live;

	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	l->state = LIVE_IDLE;
	wake_all(l);
	dbg_cache_shm_kick(c);
	while (any_busy(l))
		pthread_cond_wait(&l->cv, &l->mu);
	/* the drainers' CPU time, idle (the main thread's is added after
	 * the run): read here rather than around each pass, where the two
	 * reads (a system call each: the thread CPU clock has no vDSO path)
	 * cost more than many a pass (180,000 calls on a python3 run) */
	c->st.cpu_ns += cpu_since(l->tid, &l->cpu_seen);
	/* (every drainer idle: their figures are the engine's now) */
	for (unsigned k = 1; k <= l->nmade; k++) {
		c->st.cpu_ns += cpu_since(l->drn[k]->tid, &l->drn[k]->cpu_seen);
		merge(&c->st, &l->drn[k]->st);
	}
	pthread_mutex_unlock(&l->mu);
}

void dbg_cache_live_go(struct dbg_cache *c)
{
	struct dbg_cache_live *l = c->live;

	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	l->state = LIVE_RUN;
	wake_all(l);
	pthread_mutex_unlock(&l->mu);
}

void dbg_cache_live_free(struct dbg_cache *c)
{
	struct dbg_cache_live *l = c->live;

	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	l->state = LIVE_QUIT;
	wake_all(l);
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->tid, NULL);
	for (unsigned k = 1; k <= l->nmade; k++) {
		struct drn *w = l->drn[k];

		pthread_join(w->tid, NULL);
		merge(&c->st, &w->st);
		pthread_cond_destroy(&w->cv);
		free(w->ids);
		free(w);
	}
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
	pthread_rwlock_destroy(&l->xl);
	free(l);
	c->live = NULL;
}
