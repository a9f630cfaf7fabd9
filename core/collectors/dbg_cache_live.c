/* core/collectors/dbg_cache_live.c: the cache engine's records read while
 * the thread runs.  While ptdb waits for the traced thread's next stop, a
 * thread of ptdb's (the drainer) reads the records the thread has written
 * so far and turns them into packets (the same calls as
 * dbg_cache_drain), so at the stop only the last few are left: the
 * program no longer waits for the packets of a whole buffer.  The drainer
 * runs only between dbg_cache_live_begin and dbg_cache_live_end (which
 * waits until it is idle): the engine's state and the thread's trace are
 * never used by both at once.  It reads with process_vm_readv alone (no
 * stop needed), never moves the record pointer (the stub owns it while
 * the thread runs; ptdb moves it back at a stop), takes no signal (the
 * collector waits for SIGCHLD in its own thread), and may run on any CPU
 * (a pinned session's traced thread keeps its own). */
#include "core/collectors/dbg_cache.h"
#include "trace/swc.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "core/collectors/dbg_cache_int.h"

enum { LIVE_IDLE, LIVE_RUN, LIVE_QUIT };
enum { LIVE_SLICE = 4096 };	/* records per pass while misses are served */

struct dbg_cache_live {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state, busy;
	int no_drain;		/* the records are left to the stop */
	struct dbg_cache *c;
	struct trace_swc_thread *th;
};

/* Records since the last read, while the thread runs: the number read,
 * or -1. */
static long live_drain(struct dbg_cache *c, struct trace_swc_thread *th)
{
	uint64_t p, s = rec_start(c), t0 = dbg_cache_now_ns(), cpu0 = dbg_cache_cpu_ns();
	struct iovec lo = { &p, 8 }, ro = { (void *)(uintptr_t)c->rec, 8 };
	size_t n;

	if (process_vm_readv(c->d->pid, &lo, 1, &ro, 1, 0) != 8 || p < s || p > s + REC_BYTES || (p - s) % 4 ||
	    c->rd < s || c->rd > p)
		return -1;
	n = (p - c->rd) / 4;
	if (n < 1024)
		return (long)n;	/* (a few: not worth a pass) */
	if (c->ctl_map && n > LIVE_SLICE) {
		/* (a miss the thread waits for is served between slices) */
		n = LIVE_SLICE;
		p = c->rd + 4 * n;
	}
	if (!c->ids)
		c->ids = xmalloc(REC_BYTES);
	lo = (struct iovec){ c->ids, n * 4 };
	ro = (struct iovec){ (void *)(uintptr_t)c->rd, n * 4 };
	if (process_vm_readv(c->d->pid, &lo, 1, &ro, 1, 0) != (ssize_t)(n * 4))
		return -1;
	dbg_cache_emit_ids(c, th, c->ids, n);
	c->rd = p;
	c->st.records += n;
	c->st.packet_ns += dbg_cache_now_ns() - t0;
	c->st.cpu_ns += dbg_cache_cpu_ns() - cpu0;	/* (the main thread's is added after the run) */
	return (long)n;
}

static void *drainer(void *arg)
{
	struct dbg_cache_live *l = arg;

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
		/* a miss the thread waits for first (dbg_cache_shm.c) */
		served = dbg_cache_shm_serve(l->c);
		n = l->no_drain ? 0 : live_drain(l->c, l->th);
		served |= dbg_cache_shm_serve(l->c);
		pthread_mutex_lock(&l->mu);
		l->busy = 0;
		pthread_cond_broadcast(&l->cv);
		if (served || n == LIVE_SLICE)
			continue;	/* (more may follow at once) */
		if (n < 0 && l->c->ctl_map) {
			l->no_drain = 1;	/* (the stop's drain says why; the
						 * thread may wait for a miss) */
		} else if (n < 0) {
			l->state = LIVE_IDLE;	/* (the stop's drain says why) */
		} else if (n < 16384 && l->state == LIVE_RUN) {
			struct timespec to;
			int waited;

			/* a request wakes it, and so does dbg_cache_live_end */
			pthread_mutex_unlock(&l->mu);
			waited = dbg_cache_shm_wait(l->c, 200000);
			pthread_mutex_lock(&l->mu);
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
	/* (misses served only while this thread runs: dbg_cache_shm.c) */
	dbg_cache_shm_begin(c);
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
}

void dbg_cache_live_end(struct dbg_cache *c)
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
