/* core/collectors/dbg_cache_run.c: the cache engine's thread in the cache
 * (split from core/collectors/dbg_cache.c, which sets a run up): the
 * loop that resumes it and handles each of its stops (an exit's trap, a
 * lookup miss, the ring stub's trap, a watchpoint check's trap, anything
 * else the program's own), the wait for its next stop (other threads'
 * events held meanwhile, the quantum), and settling it back to an
 * original state (map_back: a cache pc to the original one). */
#include "core/collectors/dbg_cache.h"
#include "core/collectors/dbg_code.h"
#include "trace/ccache.h"
#include "trace/swc.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "core/collectors/dbg_cache_int.h"
#include "core/collectors/collector.h"

/* Where the thread is, if that is an original state: 1 with r->rip set
 * to the original pc (and rax/rcx/rdx back from the slots at a lookup
 * miss), the instructions before it recorded; 2 the same, the thread
 * having arrived there (an exit's trap, a lookup miss, a system call's
 * return: a transfer done, as at the stops enter1 handles, not the
 * entry of the block it was entered at); 0 if it is inside a stub. */
static int map_back(struct dbg_cache *c, struct trace_swc_thread *th, struct user_regs_struct *r)
{
	struct dbg_tracee *d = c->d;
	struct region *g = dbg_cache_region_of(c, r->rip);
	struct ccache_block *b;
	int idx, w;

	if (!g) {		/* outside the cache: an original pc */
		dbg_cache_sync_done(c, th, r->rip);
		return 1;
	}
	if (r->rip == g->dispatch + g->miss_off + 1) {
		uint64_t v[7];

		if (target_read_mem(d->proc, dbg_cache_slots(c, g, th->tid), v, sizeof(v), NULL) < 0)
			return 0;
		r->rax = v[CCACHE_SLOT_A / 8];
		r->rcx = v[CCACHE_SLOT_C / 8];
		r->rdx = v[CCACHE_SLOT_D / 8];
		r->rip = v[CCACHE_SLOT_T / 8];
		dbg_cache_sync_done(c, th, r->rip);
		return 2;
	}
	b = dbg_cache_block_of(c, g, r->rip);
	switch (b ? (w = ccache_where(b, r->rip, &idx)) : CCACHE_INSIDE) {
	case CCACHE_AT_ENTRY:
		dbg_cache_sync_done(c, th, b->start);
		r->rip = b->start;
		return 1;
	case CCACHE_AT_TRAP:
		if (idx == b->nside && b->ins[b->n - 1].kind == DISASM_KIND_SYSCALL) {
			/* the SYSCALL's check left the cache before it: the
			 * block but its SYSCALL ran (the tracer runs that) */
			idx = b->n - 1;
			goto at_insn;
		}
		dbg_cache_sync_done(c, th, b->exit[idx].target);
		r->rip = b->exit[idx].target;
		return 2;
	case CCACHE_AT_SYSRET:	/* (see core/collectors/dbg_cache_sys.c) */
		if (dbg_cache_sys_back(c, g, b, w, idx, r) < 0)
			return 0;
		dbg_cache_sync_done(c, th, r->rip);
		return 2;
	case CCACHE_AT_SYSCALL:
		if (dbg_cache_sys_back(c, g, b, w, idx, r) < 0)
			return 0;
		/* fall through */
	case CCACHE_AT_INSN:
	at_insn:
		if (c->rr->cur >= 0 && &c->blk[c->rr->cur] == b)
			dbg_cache_emit(th, b, idx, b->ins[idx].addr);
		else
			dbg_cache_sync_done(c, th, b->start);	/* (not reached: its record is out) */
		c->rr->cur = -1;
		r->rip = b->ins[idx].addr;
		return 1;
	default:
		return 0;
	}
}

static int signal_deliverable(struct dbg_tracee *d, pid_t t);
static int ring_trap(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r);

/* An event held until the thread's turn ends (given back, in order, to
 * target_thread_event then). */
void dbg_cache_hold(struct dbg_cache *c, const struct target_stop *ts)
{
	if (c->nheld == c->cheld) {
		c->cheld = c->cheld ? 2 * c->cheld : 16;
		c->held = xrealloc(c->held, c->cheld * sizeof(*c->held));
	}
	c->held[c->nheld++] = *ts;
}

/* Brings a thread stopped in the cache to an original state, stepping it
 * through the stub it is in (a signal it stopped with stays pending).
 * A stop that comes during a step (the SIGSTOP of an interrupt, a
 * signal) is the program's: held as t's event, at the original pc.
 * 0, or 1 when the thread arrived at a stop (a breakpoint: the quantum's
 * interrupt came as it reached it): it stops there as at that stop's
 * trap, or its next entry, there, would run past the breakpoint unseen;
 * -1 on error. */
static int settle(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		  struct ptdb_err *err)
{
	struct dbg_tracee *d = c->d;
	int sig = target_pending_signal(d->proc, t), rc = -1, at = 0, more[8], nmore = 0, merged = 0;
	size_t h0 = c->nheld;
	/* a signal the kernel holds for it (its own trap or fault, raised
	 * as it was interrupted) is taken first, by a step that runs
	 * nothing: left there, it would strike at an original pc */
	int held = signal_deliverable(d, t);

	/* (a message only from what fails below: the caller's err may
	 * hold stack garbage, printed as the error before) */
	ptdb_err_clear(err);
	target_set_pending_signal(d->proc, t, 0);
	for (int steps = 0; steps < 256; steps++) {
		struct target_stop ts;
		int dr;

		dr = dbg_cache_drain(c, th);
		if (dr < 0)
			break;
		if (!held && (at = map_back(c, th, r))) {
			rc = target_set_regs(d->proc, t, r, err);
			break;
		}
		if (target_thread_step(d->proc, t, &ts, err) < 0 || ts.tid != t ||
		    (ts.kind != TARGET_STOP_STEP && ts.kind != TARGET_STOP_SIGNAL &&
		     ts.kind != TARGET_STOP_INTERRUPT) ||
		    target_get_regs(d->proc, t, r, err) < 0)
			break;
		held = 0;
		if (ts.kind == TARGET_STOP_INTERRUPT)
			dbg_cache_hold(c, &ts);	/* (it ran nothing: stepped again) */
		if (ts.kind == TARGET_STOP_SIGNAL) {
			if (ts.signo == SIGTRAP && ts.si_code == SI_KERNEL) {
				/* (the ring stub's trap: the records read, the
				 * thread back in its record stub) */
				if (ring_trap(c, th, t, r) < 0)
					break;
			} else if (ts.signo == sig && sig < SIGRTMIN && merged < 4096) {
				/* the one it carries, again (a fast timer's next
				 * tick): merged as the kernel merges it; the step,
				 * which ran nothing, is not counted */
				merged++;
				steps--;
			} else if (!sig) {
				/* another arrived: pending again, and reported
				 * (or dropped) as 'process handle' says */
				sig = ts.signo;
				dbg_cache_hold(c, &ts);
			} else if (nmore < (int)(sizeof(more) / sizeof(more[0]))) {
				/* one more (SIGUSR2 sent after the SIGUSR1 it
				 * stopped with): t carries one to its resume, this
				 * one goes back to the kernel once the steps are
				 * done (pending now, it would stop every step) */
				more[nmore++] = ts.signo;
			}
			target_set_pending_signal(d->proc, t, 0);
		}
	}
	target_set_pending_signal(d->proc, t, sig);
	for (int i = 0; i < nmore; i++)
		target_thread_raise(d->proc, t, more[i]);
	for (size_t i = h0; rc == 0 && i < c->nheld; i++) {
		if (c->held[i].addr == c->sc || dbg_cache_region_of(c, c->held[i].addr))
			c->held[i].addr = r->rip;
		if (c->held[i].kind == TARGET_STOP_SIGNAL)
			trace_swc_pause(th, r->rip);
	}
	if (rc < 0 && err && !err->msg[0])
		ptdb_err_set(err, "the cache engine lost thread %d", (int)t);
	return rc < 0 ? rc : at == 2 && dbg_cache_is_stop(c, r->rip);
}


/* At an exit's trap or a lookup miss the thread is in the original state
 * before pc: on into pc's block (linking the exit, filling the table), or
 * out when pc is a stop or cannot run in the cache.  1: went on. */
static int go_on(struct dbg_cache *c, pid_t t, struct user_regs_struct *r, int64_t from, int k,
		 struct region *miss)
{
	uint64_t pc = r->rip;
	int64_t id;

	if (dbg_cache_is_stop(c, pc) || (id = dbg_cache_block_for(c, t, pc, 0)) < 0)
		return 0;
	dbg_cache_ahead(c, t, id);
	if (from >= 0) {
		/* (dbg_cache_block_for may have moved the array: from by index) */
		dbg_cache_write_link(c, &c->blk[from], k, c->blk[id].base, NULL);
		c->st.links++;
	} else if (miss) {
		dbg_cache_table_fill(c, miss, pc, c->blk[id].base);
		c->st.misses++;
	}
	r->rip = c->blk[id].base;
	return 1;
}

#define PROGRESS_NS 250000000ull	/* a run without stops: the progress line's wake */

/* Waits for the next stop of thread t, running in the cache.  Another
 * thread's event is held (given back to target_thread_event once t has
 * stopped) and ends t's turn; so does the quantum (c->deadline): t is
 * interrupted, and c->yield says its turn ends at the next original
 * state.  0: the process has no thread left to wait for. */
static int wait_thread(struct dbg_cache *c, pid_t t, struct target_stop *ts)
{
	struct dbg_tracee *d = c->d;
	sigset_t chld, old;
	/* woken for the quantum's end, and for the progress line (a
	 * trace's: a watched run has none) when the thread runs on
	 * without a stop (its records read while it runs) */
	int timed = c->deadline || !c->watch;
	int got = 0;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (timed)
		sigprocmask(SIG_BLOCK, &chld, &old);
	for (;;) {
		int block = !timed || c->yield;

		if (!target_thread_event(d->proc, block, ts)) {
			uint64_t now = dbg_cache_now_ns();

			if (block)
				break;
			if (!c->deadline || now < c->deadline) {
				/* a stop of any thread sends SIGCHLD (blocked:
				 * pending, so none is missed) */
				uint64_t left = c->deadline ? c->deadline - now : PROGRESS_NS;
				struct timespec to;

				left = left < PROGRESS_NS ? left : PROGRESS_NS;
				to = (struct timespec){ (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
				if (sigtimedwait(&chld, NULL, &to) >= 0 || errno != EAGAIN)
					continue;
				if (!c->deadline || dbg_cache_now_ns() < c->deadline) {
					if (!c->watch)
						d->host->progress_poll(d->s);
					continue;
				}
			}
			c->yield = 1;
			c->st.quanta++;
			target_thread_interrupt(d->proc, t);
			continue;
		}
		if (ts->tid == t || ts->kind == TARGET_STOP_EXITED || ts->kind == TARGET_STOP_SIGNALED) {
			got = 1;
			break;
		}
		if (c->nheld == c->cheld) {
			c->cheld = c->cheld ? 2 * c->cheld : 16;
			c->held = xrealloc(c->held, c->cheld * sizeof(*c->held));
		}
		c->held[c->nheld++] = *ts;
		if (!c->yield) {
			c->yield = 1;
			target_thread_interrupt(d->proc, t);
		}
	}
	if (timed)
		sigprocmask(SIG_SETMASK, &old, NULL);
	return got;
}

/* Does the kernel hold a signal for thread t that it does not block? */
static int signal_deliverable(struct dbg_tracee *d, pid_t t)
{
	struct target_sigsets s;

	return target_thread_sigsets(d->pid, t, &s) == 0 && (s.pending & ~s.blocked) != 0;
}

/* The events held while t ran go back to target_thread_event, in order. */
static void give_back(struct dbg_cache *c)
{
	for (size_t i = 0; i < c->nheld; i++)
		target_thread_requeue(c->d->proc, &c->held[i]);
	c->nheld = 0;
}

/* Thread t is gone with records not read: they are nobody's now. */
void dbg_cache_discard(struct dbg_cache *c)
{
	uint64_t h = dbg_cache_ring_head(c), span[2][2];
	size_t n = 0;
	int k;

	c->rr->cur = -1;
	k = h ? ccache_ring_spans(&c->rr->ring, h, REC_BYTES / 4, span) : 0;
	for (int i = 0; i < k; i++)
		n += (span[i][1] - span[i][0]) / 4;
	if (n)
		ccache_ring_consumed(&c->rr->ring, h, n);
}

/* A watchpoint check's trap, before the instruction that may touch a
 * watched range (the caller steps it): 1, with the thread back at the
 * original instruction; 0 if the stop is no such trap; -1 on error. */
static int watch_trap(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		      const struct target_stop *ts, struct ccache_block *b, struct ptdb_err *err)
{
	int idx;

	if (!c->watch || ts->kind != TARGET_STOP_SIGNAL || ts->signo != SIGTRAP || ts->si_code != SI_KERNEL ||
	    !b || ccache_where(b, r->rip, &idx) != CCACHE_AT_INSN)
		return 0;
	if (!map_back(c, th, r) || target_set_regs(c->d->proc, t, r, err) < 0)
		return ptdb_err_set(err, "the cache engine lost thread %d", (int)t);
	c->whit = 1;
	c->wtraps++;
	return 1;
}

static int enter1(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		  struct target_stop *ts, struct ptdb_err *err);

int dbg_cache_enter(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		    struct target_stop *ts, struct ptdb_err *err)
{
	int rc;

	/* (the other threads offered, in the cache beside it: all run at
	 * once, dbg_cache_crew.c) */
	if (c->ncrew && c->crew[0].tid == t) {
		c->crew[0].th = th;
		c->crew[0].r = *r;
		dbg_cache_crew_enter(c);
	}
	rc = c->ncrew > 1 ? dbg_cache_crew_run(c, r, ts, err) : enter1(c, th, t, r, ts, err);
	c->ncrew = 0;
	give_back(c);
	return rc;
}

/* The ring stub's trap (nobody served the ring: the thread stopped at
 * it): every record read, head and limit moved (the ring wraps at its
 * end), the thread sent back to its record stub (slot RRET, where rax
 * and rcx come back).  1 if r was there, 0 if not, -1 on error. */
static int ring_trap(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r)
{
	struct region *g = dbg_cache_region_of(c, r->rip - 1);
	uint64_t h, nh, nl, back;

	if (!g || !g->ring || r->rip != g->ring + g->ring_trap + 1)
		return 0;
	if (dbg_cache_drain(c, th) < 0 || !(h = dbg_cache_ring_head(c)) ||
	    !ccache_ring_room(&c->rr->ring, h, &nh, &nl) || dbg_cache_ring_set(c, nh, nl) < 0 ||
	    target_read_mem(c->d->proc, dbg_cache_slots(c, g, t) + CCACHE_SLOT_RRET, &back, 8, NULL) < 0)
		return -1;
	r->rip = back;
	c->st.drains++;
	target_set_pending_signal(c->d->proc, t, 0);
	return target_set_regs(c->d->proc, t, r, NULL) < 0 ? -1 : 1;
}

/* The ring's limit met with nobody serving it (a turn among several
 * threads, or no shared memory): read, and the thread runs on.  1: it
 * runs on; 0: its turn is over (settled out of the cache); 2: over, at a
 * stop it arrived at (see settle); -1: error. */
static int full_buffer(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t,
		       struct user_regs_struct *r, struct ptdb_err *err)
{
	if (ring_trap(c, th, t, r) <= 0)
		return ptdb_err_set(err, "the cache engine lost thread %d", (int)t);
	if (c->deadline && !c->yield && ++c->fills >= QUANTUM_FILLS) {
		c->yield = 1;	/* its quantum: from here, not interrupted */
		c->st.quanta++;
	}
	if (c->yield) {
		int at = settle(c, th, t, r, err);

		return at < 0 ? -1 : at ? 2 : 0;
	}
	return 1;
}

/* *ts happened to the program (a signal, an interrupt): the thread out of
 * the cache, DBG_CACHE_EVENT; DBG_CACHE_AT when it arrived at a stop on
 * its way out (that first, the event held: its next turn takes it). */
static int program_event(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t,
			 struct user_regs_struct *r, struct target_stop *ts, struct ptdb_err *err)
{
	uint64_t was = r->rip;
	int at = settle(c, th, t, r, err);

	if (at < 0)
		return -1;
	if (ts->addr == was || dbg_cache_region_of(c, ts->addr))
		ts->addr = r->rip;
	if (ts->kind == TARGET_STOP_SIGNAL)
		trace_swc_pause(th, r->rip);
	if (!at)
		return DBG_CACHE_EVENT;
	dbg_cache_hold(c, ts);
	return DBG_CACHE_AT;
}

static int one_stop(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		    struct target_stop *ts, int *kicked, int *resumed, struct ptdb_err *err);

/* A timer signal (SIGALRM, SIGVTALRM, SIGPROF) stopped t in the cache
 * while the collector holds one back for it (its pace, core/collectors/
 * dbg_swc.c) and the next is not due: it merges into the held one, as
 * the kernel merges a signal already pending, and t runs on where it is,
 * in the cache.  Handed to the collector (out of the cache, in again at
 * its next turn: a round trip longer than a fast timer's tick here) the
 * next tick stopped t again before it ran one instruction, and again:
 * neither the program nor its handler (paced by t's instructions) ever
 * ran.  'process handle' sees each tick first: one that stops ends the
 * turn as before.  Due, the tick is the collector's, which delivers it.
 * (t's instructions as of its last drain: not drained here, where t may
 * be inside a record stub; the pace's real-time bound covers the rest.)
 * 1: merged, t to resume. */
static int timer_merges(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, const struct target_stop *ts)
{
	struct dbg_stop stop;
	int sig = ts->signo;

	if (c->watch || ts->kind != TARGET_STOP_SIGNAL || ts->tid != t ||
	    (sig != SIGALRM && sig != SIGVTALRM && sig != SIGPROF) || !dbg_traced(th)->sw.timer_held)
		return 0;
	if (dbg_swc_timer_due(th, 0))
		return 0;
	memset(&stop, 0, sizeof(stop));
	if (c->d->host->signal_stop(c->d->s, ts, &stop))
		return 0;
	target_set_pending_signal(c->d->proc, t, 0);
	return 1;
}

/* A thread brought out of the cache (its turn over, the crew stopped) at
 * a stop's pc has arrived there (DBG_CACHE_AT: the stop is seen), unless
 * it is where the run entered it and it ran nothing since. */
int dbg_cache_one_stop(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		       struct target_stop *ts, int *kicked, int *resumed, struct ptdb_err *err)
{
	int rc = one_stop(c, th, t, r, ts, kicked, resumed, err);

	if (rc == DBG_CACHE_YIELD && dbg_cache_is_stop(c, r->rip) &&
	    !(t == c->entry_tid && r->rip == c->entry_pc && th->insns == c->entry_insns))
		rc = DBG_CACHE_AT;
	return rc;
}

static int one_stop(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		    struct target_stop *ts, int *kicked, int *resumed, struct ptdb_err *err)
{
	struct dbg_tracee *d = c->d;
	struct region *g;
	struct ccache_block *b = NULL;
	int64_t from = -1;
	int idx = -1, got;

	if (ts->kind == TARGET_STOP_EXITED || ts->kind == TARGET_STOP_SIGNALED ||
	    target_get_regs(d->proc, t, r, NULL) < 0) {
		dbg_cache_discard(c);	/* (its last records are lost with it) */
		return DBG_CACHE_EVENT;
	}
	if (ts->kind == TARGET_STOP_NONE && ts->tid == t) {
		/* interrupted (its turn is over).  A signal the kernel
		 * holds for it comes first: its own trap or guard-page
		 * fault, raised as the interrupt came (the kernel
		 * reports the interrupt first), would be seen later as
		 * the program's.  Resumed, it reports a signal it does
		 * not block before it runs an instruction. */
		if (!*kicked && signal_deliverable(d, t)) {
			*kicked = 1;
			if (target_thread_cont_raw(d->proc, t, err) < 0)
				return -1;
			*resumed = 1;
			return STOP_GO_ON;
		}
		/* out of the cache (at a stop it arrived at, it stops) */
		int at = settle(c, th, t, r, err);

		if (at < 0)
			return -1;
		return at ? DBG_CACHE_AT : DBG_CACHE_YIELD;
	}
	if (timer_merges(c, th, t, ts))
		return STOP_GO_ON;
	g = dbg_cache_region_of(c, r->rip - 1);
	if (g)
		b = dbg_cache_block_of(c, g, r->rip - 1);
	got = watch_trap(c, th, t, r, ts, b, err);
	if (got)
		return got < 0 ? -1 : DBG_CACHE_AT;
	if (ts->kind == TARGET_STOP_SIGNAL && ts->signo == SIGTRAP && ts->si_code == SI_KERNEL && g &&
	    (r->rip == g->dispatch + g->miss_off + 1 ||
	     (b && ccache_where(b, r->rip, &idx) == CCACHE_AT_TRAP))) {
		int miss = r->rip == g->dispatch + g->miss_off + 1;

		if (b && !miss)
			from = b - c->blk;
		if (dbg_cache_drain(c, th) < 0 || !map_back(c, th, r))
			return ptdb_err_set(err, "the cache engine lost thread %d", (int)t);
		if (c->deadline && !c->yield && dbg_cache_now_ns() >= c->deadline) {
			c->yield = 1;	/* (not interrupted: it stopped here) */
			c->st.quanta++;
		}
		if (c->yield && !dbg_cache_is_stop(c, r->rip)) {
			if (target_set_regs(d->proc, t, r, err) < 0)
				return -1;
			return DBG_CACHE_YIELD;
		}
		if (go_on(c, t, r, from, idx, miss ? g : NULL)) {
			if (target_set_regs(d->proc, t, r, err) < 0)
				return -1;
			return STOP_GO_ON;
		}
		if (target_set_regs(d->proc, t, r, err) < 0)
			return -1;
		if (c->have_ev)
			return dbg_cache_take_event(c, th, r, ts);
		return DBG_CACHE_AT_MCALL;
	}
	if (ts->kind == TARGET_STOP_SIGNAL && ts->signo == SIGTRAP && ts->si_code == SI_KERNEL && g &&
	    g->ring && r->rip == g->ring + g->ring_trap + 1) {
		int fr = full_buffer(c, th, t, r, err);

		if (fr <= 0)
			return fr < 0 ? -1 : DBG_CACHE_YIELD;
		if (fr == 2)
			return DBG_CACHE_AT;
		return STOP_GO_ON;
	}
	/* anything else happens to the program: out of the cache first */
	return program_event(c, th, t, r, ts, err);
}

static int enter1(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		  struct target_stop *ts, struct ptdb_err *err)
{
	struct dbg_tracee *d = c->d;
	int kicked = 0, resumed = 0;

	for (;;) {
		int got, rc;
		uint64_t t0;

		/* the progress line's turn: every trap (a full record buffer
		 * traps every 65536 blocks the thread runs) */
		if (!c->watch)	/* (a trace's line: a watched run has none) */
			d->host->progress_poll(d->s);
		dbg_cache_stage_flush(c);
		t0 = dbg_cache_now_ns();
		/* (the drainer first: it serves the misses the thread
		 * posts from its first instruction on) */
		dbg_cache_live_begin(c, th);
		if (!resumed && target_thread_cont_raw(d->proc, t, err) < 0) {
			dbg_cache_live_end(c);
			dbg_cache_shm_end(c);
			return -1;
		}
		resumed = 0;
		got = wait_thread(c, t, ts);
		dbg_cache_live_end(c);
		dbg_cache_shm_end(c);
		if (!got)
			return ptdb_err_set(err, "the traced thread %d vanished", (int)t);
		c->st.wait_ns += dbg_cache_now_ns() - t0;
		c->st.traps++;
		rc = dbg_cache_one_stop(c, th, t, r, ts, &kicked, &resumed, err);
		if (rc == STOP_GO_ON)
			continue;
		if (rc == DBG_CACHE_AT_MCALL) {
			dbg_cache_mapping_call(c, t, r);
			rc = DBG_CACHE_AT;
		}
		return rc;
	}
}
