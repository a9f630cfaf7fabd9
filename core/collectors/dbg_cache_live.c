/* core/collectors/dbg_cache_live.c: the cache engine's records read while
 * the thread runs.  While ptdb waits for the traced thread's next stop, a
 * thread of ptdb's (the drainer) reads the records the thread has written
 * so far into its record ring (trace/ccache_ring.h) and turns them into
 * packets (the same calls as dbg_cache_drain), so at the stop only the
 * last few are left.  The thread never stops for its ring: at the ring's
 * limit (its end, or the slot before the records not read yet) its ring
 * stub posts a request and waits on a futex; the drainer reads until
 * there is room (half the ring when it was full), moves head and limit
 * and wakes it.  The drainer runs only between dbg_cache_live_begin and
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
 * the ring read is the running thread's own (c->rr), into its trace. */
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

struct dbg_cache_live {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state, busy;
	int no_drain;		/* the records are left to the stop */
	struct dbg_cache *c;
	struct trace_swc_thread *th;
	uint64_t cpu_seen;	/* its CPU time counted so far */
};

/* Records since the last read, while the thread runs: the number read,
 * or -1. */
static long live_drain(struct dbg_cache *c, struct trace_swc_thread *th)
{
	uint64_t h = dbg_cache_ring_head(c), span[2][2];
	size_t n = 0;
	int k;

	if (!h)
		return -1;
	k = ccache_ring_spans(&c->rr->ring, h, REC_BYTES / 4, span);
	for (int i = 0; i < k; i++)
		n += (span[i][1] - span[i][0]) / 4;
	if (n < LIVE_MIN)
		return (long)n;	/* (a few: not worth a pass) */
	/* (a miss or a full ring the thread waits for is served between
	 * slices) */
	return dbg_cache_ring_read(c, th, c->ctl_map ? LIVE_SLICE : REC_BYTES / 4);
}

static void wake(uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* The ring's request (the thread waits in its ring stub: the head met
 * the limit): records read until there is room, head and limit moved
 * (head to the start at the ring's end), the word 0 and the thread
 * woken; 2 if the ring cannot be read (the thread takes the trap). */
int dbg_cache_ring_serve(struct dbg_cache *c, struct trace_swc_thread *th)
{
	uint32_t *w = dbg_cache_ring_word(c);
	uint64_t h, nh = 0, nl = 0, t0;
	int ok = 0, waited = 0;

	if (!w || __atomic_load_n(w, __ATOMIC_ACQUIRE) != CCACHE_RING_POSTED)
		return 0;
	t0 = dbg_cache_now_ns();
	h = dbg_cache_ring_head(c);
	/* a full ring is read down to half (the thread then fills half a
	 * ring while the rest is read, not a slice per wake) */
	while (h && (!(ok = ccache_ring_room(&c->rr->ring, h, &nh, &nl)) ||
		     (waited && nl - nh < (c->rr->ring.end - c->rr->ring.start) / 2))) {
		waited = 1;
		if (dbg_cache_ring_read(c, th, LIVE_SLICE) <= 0)
			break;
	}
	if (ok && dbg_cache_ring_set(c, nh, nl) == 0) {
		c->st.ring_served++;
		c->st.ring_full += (uint64_t)waited;
	} else {
		ok = 0;
	}
	/* (head and limit before the word: the thread reads them after) */
	__atomic_store_n(w, ok ? CCACHE_RING_IDLE : CCACHE_RING_TRAP, __ATOMIC_RELEASE);
	wake(w);
	c->st.serve_ns += dbg_cache_now_ns() - t0;
	return 1;
}

/* One pass: the rings' requests and the misses first (what a thread
 * waits for), the records read; with a crew every running member's
 * (c->tid and c->rr as they were after).  *n: the most records read. */
static int pass(struct dbg_cache_live *l, long *n)
{
	struct dbg_cache *c = l->c;
	pid_t tid = c->tid;
	struct rring *rr = c->rr;
	int served = 0;

	*n = 0;
	if (c->ncrew < 2 || !c->crew_live) {
		served = dbg_cache_ring_serve(c, l->th);
		served |= dbg_cache_shm_serve(c);
		*n = l->no_drain ? 0 : live_drain(c, l->th);
		served |= dbg_cache_ring_serve(c, l->th);
		served |= dbg_cache_shm_serve(c);
		return served;
	}
	served = dbg_cache_shm_serve(c);
	for (size_t i = 0; i < c->ncrew; i++) {
		long k;

		if (!c->crew[i].run)
			continue;
		c->tid = c->crew[i].tid;
		c->rr = dbg_cache_gs_ring(c, c->tid);
		served |= dbg_cache_ring_serve(c, c->crew[i].th);
		k = live_drain(c, c->crew[i].th);
		*n = k > *n ? k : *n;
		served |= dbg_cache_ring_serve(c, c->crew[i].th);
	}
	served |= dbg_cache_shm_serve(c);
	c->tid = tid;
	c->rr = rr;
	return served;
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
			waited = dbg_cache_shm_wait(l->c, n > 0 ? 20000 : 200000);
			pthread_mutex_lock(&l->mu);
			l->busy = 0;
			pthread_cond_broadcast(&l->cv);
			if (waited == 0 || l->state != LIVE_RUN)
				continue;

			clock_gettime(CLOCK_REALTIME, &to);
			to.tv_nsec += 200000;
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

static struct dbg_cache_live *live_new(void)
{
	struct dbg_cache_live *l = xcalloc(1, sizeof(*l));
	sigset_t all, old;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t cpus;

	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cv, NULL);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&l->tid, NULL, drainer, l) != 0) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		pthread_mutex_destroy(&l->mu);
		pthread_cond_destroy(&l->cv);
		free(l);
		return NULL;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	CPU_ZERO(&cpus);
	for (long i = 0; i < ncpu && i < CPU_SETSIZE; i++)
		CPU_SET((int)i, &cpus);
	pthread_setaffinity_np(l->tid, sizeof(cpus), &cpus);	/* (best effort) */
	return l;
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
	pthread_cond_broadcast(&l->cv);
	dbg_cache_shm_kick(c);
	while (l->busy)
		pthread_cond_wait(&l->cv, &l->mu);
	/* its CPU time, idle (the main thread's is added after the run):
	 * read here rather than around each pass, where the two reads (a
	 * system call each: the thread CPU clock has no vDSO path) cost
	 * more than many a pass (180,000 calls on a python3 run) */
	{
		clockid_t id;
		struct timespec t;

		if (pthread_getcpuclockid(l->tid, &id) == 0 && clock_gettime(id, &t) == 0) {
			uint64_t v = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;

			c->st.cpu_ns += v - l->cpu_seen;
			l->cpu_seen = v;
		}
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
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
}

void dbg_cache_live_free(struct dbg_cache *c)
{
	struct dbg_cache_live *l = c->live;

	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	l->state = LIVE_QUIT;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->tid, NULL);
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
	free(l);
	c->live = NULL;
}
