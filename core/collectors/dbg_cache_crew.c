/* core/collectors/dbg_cache_crew.c: the cache engine's threads in
 * parallel.  With per-thread slots, rings and requests shared with ptdb
 * (dbg_cache_gs.c, c->pt) the traced threads the collector offers beside
 * the run's own thread (c->crew, each stopped at an original pc with no
 * signal waiting) enter the cache too and all run at once: no turns
 * (the default; PTDB_CACHE_PARALLEL=0 or PTDB_CACHE_TURNS: turns).
 * One loop (dbg_cache_crew_run) waits for the stops of all of them and
 * handles each for its own thread (its ring read into its own trace, its
 * miss or exit served, and it runs on), while ptdb's drainer serves
 * every running member's ring and requests (dbg_cache_live.c); the two
 * never work at once: the loop pauses the drainer (the lock between
 * them) for every stop it handles.  While others run, code they may be
 * executing is never patched: a link waits (c->defer_links) until every
 * member is stopped, new code and table entries are published in an
 * order a probe never misreads (c->hold_tables).  The first stop that
 * needs the collector (an event, a breakpoint, a system call the engine
 * must see, code the cache does not run, the quantum when other traced
 * threads wait for a turn) stops the whole crew: every other member is
 * interrupted and brought back to an original pc, its records read into
 * its trace; a flush or a mapping call is handled only then.  The run's
 * own thread's result is returned; another's is held as that thread's
 * event (an arrival at a stop as a breakpoint stop at its pc), given
 * back to the collector in order.  Each thread's trace stays the
 * sequence it executed; the threads' interleaving is the machine's. */
#include "core/collectors/dbg_cache.h"
#include "trace/ccache.h"
#include "trace/swc.h"

#include <errno.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "core/collectors/dbg_cache_int.h"
#include "core/collectors/collector.h"

#define CREW_PROGRESS_NS 250000000ull
#define CREW_QUANTUM_NS 10000000ull	/* the crew's run while a traced thread waits */

static void use(struct dbg_cache *c, const struct crew *m)
{
	c->tid = m->tid;
	c->rr = dbg_cache_gs_ring(c, m->tid);
}

static int running(const struct dbg_cache *c)
{
	int n = 0;

	for (size_t i = 0; i < c->ncrew; i++)
		n += c->crew[i].run;
	return n;
}

int dbg_cache_parallel(void)
{
	const char *v = getenv("PTDB_CACHE_PARALLEL");

	return !getenv("PTDB_CACHE_TURNS") && !(v && !strcmp(v, "0"));
}

void dbg_cache_crew_enter(struct dbg_cache *c)
{
	struct dbg_tracee *d = c->d;
	size_t k = 1;

	if (!c->pt || c->watch || !dbg_cache_parallel())
		c->ncrew = c->ncrew ? 1 : 0;
	for (size_t i = 1; i < c->ncrew; i++) {
		struct crew *m = &c->crew[i];
		uint64_t pc = m->r.rip;
		uint8_t sc[2];
		int64_t id;

		/* (left for its own turn: a mapping call not run yet, a
		 * signal, a stop at its pc, a system call, code the cache
		 * does not run) */
		if ((c->mcall_pc && m->tid == c->mcall_tid) || dbg_cache_signal_waits(d, m->tid) ||
		    dbg_cache_is_stop(c, pc) || target_read_mem(d->proc, pc, sc, 2, NULL) < 0 ||
		    (sc[0] == 0x0f && sc[1] == 0x05))
			goto out;
		id = dbg_cache_block_for(c, m->tid, pc, 0);
		if (c->have_ev) {
			/* (a signal stopped a call injected through it: its
			 * event, given back) */
			c->have_ev = 0;
			if (c->ev.addr == c->sc || c->ev.addr == c->sc + 2)
				c->ev.addr = pc;
			dbg_cache_hold(c, &c->ev);
			goto out;
		}
		if (id < 0 || dbg_cache_gs_enter(c, m->tid, &m->r) < 0)
			goto out;
		m->r.rip = c->blk[id].base;
		if (target_set_regs(d->proc, m->tid, &m->r, NULL) < 0) {
			m->r.rip = pc;
			dbg_cache_gs_leave(c, m->tid, &m->r);
			goto out;
		}
		trace_swc_resume(m->th, pc);
		c->st.entries++;
		m->run = m->kicked = 0;
		c->crew[k++] = *m;
		continue;
out:
		c->crew_waiting++;
	}
	c->ncrew = c->ncrew ? k : 0;
	/* (a thread left out, one with a signal to take, may be what the
	 * others wait for: its turn comes soon) */
	if (c->ncrew > 1)
		c->deadline = c->crew_waiting ? dbg_cache_now_ns() + CREW_QUANTUM_NS : 0;
	else if (c->crew_waiting && !c->deadline && !c->watch)
		c->deadline = dbg_cache_now_ns() + CREW_QUANTUM_NS;	/* (left alone) */
}

static int resume(struct dbg_cache *c, struct crew *m, struct ptdb_err *err)
{
	use(c, m);
	dbg_cache_words_idle(c);
	m->run = 1;
	if (target_thread_cont_raw(c->d->proc, m->tid, err) < 0) {
		m->run = 0;
		return -1;
	}
	return 0;
}

/* The next event of any thread (1), none before the deadline or the
 * progress line's turn (0), or none left to wait for (-1). */
static int crew_wait(struct dbg_cache *c, struct target_stop *ts)
{
	sigset_t chld, old;
	int rc = 0;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	for (;;) {
		uint64_t now, left;
		struct timespec to;

		if (target_thread_event(c->d->proc, 0, ts)) {
			rc = 1;
			break;
		}
		now = dbg_cache_now_ns();
		if (c->deadline && now >= c->deadline)
			break;
		left = c->deadline ? c->deadline - now : CREW_PROGRESS_NS;
		left = left < CREW_PROGRESS_NS ? left : CREW_PROGRESS_NS;
		to = (struct timespec){ (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
		/* (a stop of any thread sends SIGCHLD: blocked, pending, so
		 * none is missed) */
		if (sigtimedwait(&chld, NULL, &to) >= 0 || errno != EAGAIN)
			continue;
		if (!c->deadline || dbg_cache_now_ns() < c->deadline)
			break;	/* (the progress line's turn) */
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

static struct crew *member(struct dbg_cache *c, pid_t t)
{
	for (size_t i = 0; i < c->ncrew; i++)
		if (c->crew[i].tid == t)
			return &c->crew[i];
	return NULL;
}

/* A member's result that is not the caller's: held as its event. */
static void hold_result(struct dbg_cache *c, const struct crew *m, int rc, const struct target_stop *ts)
{
	struct target_stop at;

	if (rc == DBG_CACHE_EVENT) {
		dbg_cache_hold(c, ts);
	} else if (rc == DBG_CACHE_AT || rc == DBG_CACHE_AT_MCALL) {
		/* (at a stop: the collector sees it as a breakpoint stop
		 * there, whose hit, goal or nothing it decides) */
		memset(&at, 0, sizeof(at));
		at.kind = TARGET_STOP_BREAKPOINT;
		at.tid = m->tid;
		at.addr = m->r.rip;
		dbg_cache_hold(c, &at);
	}
}

/* A stop of running member m, handled for its own thread (the drainer
 * paused): its result, or STOP_GO_ON once it runs again. */
static int member_stop(struct dbg_cache *c, struct crew *m, struct target_stop *ts, struct ptdb_err *err)
{
	int resumed = 0, others, rc;

	/* (an interrupt nobody asked for now: one left from the crew's
	 * last stop, when the member had stopped at a trap first) */
	if (ts->kind == TARGET_STOP_NONE && ts->tid == m->tid && !c->yield && !*c->d->interrupt_requested)
		return target_thread_cont_raw(c->d->proc, m->tid, err) < 0 ? -1 : STOP_GO_ON;
	m->run = 0;
	use(c, m);
	dbg_cache_words_trap(c);
	others = running(c) > 0;
	c->defer_links = c->hold_tables = others;
	c->st.traps++;
	rc = dbg_cache_one_stop(c, m->th, m->tid, &m->r, ts, &m->kicked, &resumed, err);
	c->defer_links = c->hold_tables = 0;
	if (others)
		dbg_cache_shm_publish(c);
	else
		dbg_cache_stage_flush(c);
	if (rc == STOP_GO_ON) {
		if (resumed) {
			m->run = 1;
			use(c, m);
			dbg_cache_words_idle(c);
		} else if (resume(c, m, err) < 0) {
			return -1;
		}
	}
	return rc;
}

/* Every running member stopped and brought back to an original pc (the
 * drainer paused), each result but the caller's held; the caller's
 * (first) own thread's result if it had one, else DBG_CACHE_YIELD, or
 * -1 (*err) if one was lost. */
static int stop_all(struct dbg_cache *c, int *own, struct target_stop *own_ts, struct ptdb_err *err)
{
	struct target_stop ts;
	int rc = 0;

	c->yield = 1;
	for (size_t i = 0; i < c->ncrew; i++)
		if (c->crew[i].run)
			target_thread_interrupt(c->d->proc, c->crew[i].tid);
	while (running(c)) {
		struct crew *m;
		int r;

		if (!target_thread_event(c->d->proc, 1, &ts))
			return ptdb_err_set(err, "the traced threads vanished");
		m = member(c, ts.tid);
		if (ts.kind == TARGET_STOP_EXITED || ts.kind == TARGET_STOP_SIGNALED) {
			for (size_t i = 0; i < c->ncrew; i++)
				c->crew[i].run = 0;
			dbg_cache_hold(c, &ts);
			break;
		}
		if (!m || !m->run) {
			dbg_cache_hold(c, &ts);
			continue;
		}
		r = member_stop(c, m, &ts, err);
		if (r == STOP_GO_ON)
			continue;
		if (r < 0) {
			rc = -1;
			continue;
		}
		if (m == &c->crew[0] && *own < 0) {
			*own = r;
			*own_ts = ts;
		} else {
			hold_result(c, m, r, &ts);
		}
	}
	return rc;
}

int dbg_cache_crew_run(struct dbg_cache *c, struct user_regs_struct *r, struct target_stop *ts,
		       struct ptdb_err *err)
{
	struct dbg_tracee *d = c->d;
	int own = -1, rc = 0;
	struct target_stop own_ts;
	uint64_t t0 = dbg_cache_now_ns();

	c->crew[0].r = *r;
	c->crew_live = 1;
	c->st.crew_runs++;
	dbg_cache_stage_flush(c);
	dbg_cache_shm_links_now(c);
	for (size_t i = 0; i < c->ncrew; i++)
		if (resume(c, &c->crew[i], err) < 0) {
			rc = -1;
			break;
		}
	dbg_cache_live_crew(c);
	while (rc == 0) {
		struct crew *m;
		int got = crew_wait(c, ts);

		if (!c->watch)
			d->host->progress_poll(d->s);
		if (got == 0 && (!c->deadline || dbg_cache_now_ns() < c->deadline))
			continue;	/* (the progress line's turn) */
		dbg_cache_live_pause(c);
		if (got == 0) {
			c->st.quanta++;
			break;	/* (the quantum: others wait for a turn) */
		}
		if (ts->kind == TARGET_STOP_EXITED || ts->kind == TARGET_STOP_SIGNALED) {
			for (size_t i = 0; i < c->ncrew; i++)
				if (c->crew[i].run) {
					use(c, &c->crew[i]);
					dbg_cache_discard(c);
					c->crew[i].run = 0;
				}
			c->crew_live = 0;
			c->st.wait_ns += dbg_cache_now_ns() - t0;
			return DBG_CACHE_EVENT;
		}
		m = member(c, ts->tid);
		if (!m || !m->run) {
			dbg_cache_hold(c, ts);	/* (another thread's: the crew stops) */
			break;
		}
		rc = member_stop(c, m, ts, err);
		if (rc == STOP_GO_ON) {
			rc = 0;
			dbg_cache_live_go(c);
			continue;
		}
		if (rc < 0)
			break;
		if (m == &c->crew[0]) {
			own = rc;
			own_ts = *ts;
		} else {
			hold_result(c, m, rc, ts);
		}
		rc = 0;
		break;
	}
	dbg_cache_live_pause(c);	/* (paused already, but after an error) */
	if (stop_all(c, &own, &own_ts, err) < 0)
		rc = -1;
	c->st.wait_ns += dbg_cache_now_ns() - t0;
	c->crew_live = 0;
	dbg_cache_shm_links_now(c);
	/* (everyone at an original pc: a mapping call may flush now) */
	for (size_t i = 0; i < c->ncrew; i++) {
		struct crew *m = &c->crew[i];

		if (i > 0)
			dbg_cache_gs_leave(c, m->tid, &m->r);
	}
	if (own == DBG_CACHE_AT_MCALL || own == DBG_CACHE_AT) {
		if (own == DBG_CACHE_AT_MCALL)
			dbg_cache_mapping_call(c, c->crew[0].tid, &c->crew[0].r);
		own = DBG_CACHE_AT;
	}
	use(c, &c->crew[0]);
	*r = c->crew[0].r;
	if (rc < 0)
		return -1;
	if (own < 0)
		return DBG_CACHE_YIELD;
	*ts = own_ts;
	return own;
}
