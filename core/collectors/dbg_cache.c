/* core/collectors/dbg_cache.c: the cache engine's process side.  For one run of the
 * collector (with core/collectors/dbg_cache_mem.c, which maps code-cache regions near
 * the code they translate and a record buffer followed by a guard page
 * into the inferior, and core/collectors/dbg_cache_xl.c, which translates blocks on
 * demand, links them and fills the dispatchers' lookup tables) it runs
 * the thread in the cache and reads the block records back into
 * trace_swc_executed calls, so the Intel PT stream is the one the ptrace
 * engine writes.  This file sets a run up (the cache made ready,
 * flushed when code changed, the thread entered at its block) and notes
 * the system calls that change code; core/collectors/dbg_cache_run.c runs
 * the thread in the cache and handles its stops.  The thread leaves the
 * cache only in an original state: at an exit's trap, a lookup miss, or
 * an instruction boundary it is stepped to; nothing outside these files
 * sees a cache pc.  With the slot pool shared (per-thread rings and
 * requests) the traced threads the collector offers run in the cache at
 * once (dbg_cache_crew.c); otherwise threads take turns: one at a time in the cache (the
 * stubs' slots, and with the shared pool their record rings and request
 * words, are each thread's own, dbg_cache_gs.c, but one thread is
 * waited for at a time), its records read into its own trace before its
 * turn ends, always at an original pc; a turn ends when another thread
 * has an event (held meanwhile, then given back) or, with other traced
 * threads waiting, after a quantum (the thread is interrupted, like by
 * Ctrl-C). */
#include "core/collectors/dbg_cache.h"
#include "core/collectors/dbg_code.h"
#include "trace/ccache.h"
#include "trace/swc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/collectors/dbg_cache_int.h"
#include "core/collectors/collector.h"

/* Everything translated goes (the code under it may have changed): the
 * blocks, their links and the lookup tables; the regions stay mapped.
 * Only with the thread at an original pc and its records out. */
void dbg_cache_flush(struct dbg_cache *c)
{
	uint8_t *zero = xcalloc(1, (CCACHE_TABLE_ENTRIES + 1) * 16);

	for (int i = 0; i < c->nreg; i++) {
		struct region *g = &c->reg[i];

		/* a shared region's table pages given back (a hole in the
		 * memfd: zeros in both views), not all written with zeros
		 * and so all resident in the program; the entry after the
		 * last page's end written */
		if (g->map && madvise(g->map + CCACHE_TABLE_OFF, CCACHE_TABLE_ENTRIES * 16, MADV_REMOVE) == 0)
			memset(g->map + CCACHE_TABLE_OFF + CCACHE_TABLE_ENTRIES * 16, 0, 16);
		else
			target_write_mem(c->d->proc, g->addr + CCACHE_TABLE_OFF, zero,
					 (CCACHE_TABLE_ENTRIES + 1) * 16, NULL);
		g->used = g->disp_len;
		g->nids = 0;
	}
	free(zero);
	dbg_cache_table_reset(c);
	c->stage_len = 0;
	dbg_cache_ins_free(c);
	for (uint32_t i = 0; i < c->nblk; i++) {
		ccache_block_release(&c->blk[i]);
		free(c->plan[i]);
	}
	c->nblk = 0;
	free(c->hval);
	c->hval = NULL;
	c->hcap = c->hn = 0;
	dbg_cache_pset_clear(&c->pages, 1);
	dbg_cache_pset_clear(&c->tpages, 0);
	dbg_cache_pset_clear(&c->pend_head, 0);
	c->npend = c->pend_free = 0;
	/* (the cache is empty again: its code is written over) */
	if (c->run_bytes > c->st.peak_cache)
		c->st.peak_cache = c->run_bytes;
	c->run_bytes = 0;
	c->ndl = 0;		/* (links into blocks gone) */
	c->maps_stale = 1;
	dbg_cache_gs_forget_cur(c);
	c->need_flush = 0;
	c->st.flushes++;
}

/* The thread is at pc (an original one, its records out): a system call
 * there that maps, unmaps, moves or protects memory, or discards its
 * pages, makes the code read so far suspect; one over pages translated
 * code came from flushes the cache.  The mappings are read again once
 * the call has run (see run: not before, or they would be the old ones
 * and a page made writable would still count as code the cache runs). */
void dbg_cache_mapping_call(struct dbg_cache *c, pid_t t, const struct user_regs_struct *r)
{
	uint8_t b[2];
	uint64_t lo, hi;
	int k;

	if (target_read_mem(c->d->proc, r->rip, b, 2, NULL) < 0 || b[0] != 0x0f || b[1] != 0x05)
		return;
	k = dbg_code_call(c->d->pid, r, &lo, &hi);
	if (k == DBG_CODE_NONE)
		return;
	if (k == DBG_CODE_MAPS) {
		c->maps_stale = 1;
		c->mcall_pc = r->rip;
		c->mcall_tid = t;
	}
	if (lo < hi)
		dbg_cache_pset_clear(&c->pages, 1);
	for (size_t i = 0; i < c->tpages.cap && lo < hi; i++)
		if (c->tpages.key[i] && c->tpages.key[i] + 4096 > lo && c->tpages.key[i] < hi) {
			dbg_cache_flush(c);
			return;
		}
}

void dbg_cache_syscall(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, const struct user_regs_struct *r)
{
	if (c && c->ready) {
		c->d = d;
		dbg_cache_mapping_call(c, t, r);
	}
}

/* ---- the run ---- */

/* The event that stopped an injected call: the thread is back in its own
 * state at r->rip. */
int dbg_cache_take_event(struct dbg_cache *c, struct trace_swc_thread *th, const struct user_regs_struct *r,
			  struct target_stop *ts)
{
	*ts = c->ev;
	c->have_ev = 0;
	if (ts->addr == c->sc || ts->addr == c->sc + 2 || dbg_cache_region_of(c, ts->addr))
		ts->addr = r->rip;
	if (ts->kind == TARGET_STOP_SIGNAL)
		trace_swc_pause(th, r->rip);
	return DBG_CACHE_EVENT;
}

static int run(struct dbg_tracee *d, struct dbg_cache **cp, struct trace_swc_thread *th,
	       struct user_regs_struct *r, const struct dbg_goal *goals, int ngoals,
	       struct target_stop *ts, struct ptdb_err *err);

/* The process counts as running (so a Ctrl-C stops it) all the while,
 * translating included: an interrupt then stops the thread, and the
 * engine hands that stop on. */
int dbg_cache_run(struct dbg_tracee *d, struct dbg_cache **cp, struct trace_swc_thread *th,
		  struct user_regs_struct *r, const struct dbg_goal *goals, int ngoals,
		  struct target_stop *ts, struct ptdb_err *err)
{
	uint64_t c0 = dbg_cache_cpu_ns(), tc0, tc1;
	int rc;

	if (!*cp) {
		*cp = xcalloc(1, sizeof(**cp));
		(*cp)->rr0.cur = -1;
	}
	tc0 = dbg_cache_thread_cpu_ns(*cp, d->pid, th->tid);

	*d->running = 1;
	if (*d->interrupt_requested)
		target_interrupt(d->proc);
	rc = run(d, cp, th, r, goals, ngoals, ts, err);
	if (*cp)
		(*cp)->ncrew = 0;	/* (an offer is for one run) */
	if (*cp)
		dbg_cache_gs_leave(*cp, th->tid, r);	/* (the program's gs base back) */
	if (*cp) {
		dbg_cache_stage_flush(*cp);
		(*cp)->st.cpu_ns += dbg_cache_cpu_ns() - c0;
		tc1 = dbg_cache_thread_cpu_ns(*cp, d->pid, th->tid);
		if (tc0 && tc1 > tc0)
			(*cp)->st.thread_cpu_ns += tc1 - tc0;
	}
	*d->running = 0;
	return rc;
}

static int run(struct dbg_tracee *d, struct dbg_cache **cp, struct trace_swc_thread *th,
	       struct user_regs_struct *r, const struct dbg_goal *goals, int ngoals,
	       struct target_stop *ts, struct ptdb_err *err)
{
	struct dbg_cache *c = *cp;
	pid_t t = th->tid;
	int64_t id;

	if (!c) {
		c = *cp = xcalloc(1, sizeof(*c));
		c->rr0.cur = -1;
	}
	c->d = d;
	c->tid = t;
	if (!c->rr)
		c->rr = &c->rr0;
	c->goals = goals;
	c->ngoals = ngoals;
	/* several threads: one at a time in the cache (the stubs' slots are
	 * per region), each turn ending at an original pc with its records
	 * read into its own trace; a turn has a quantum when other traced
	 * threads wait */
	c->yield = 0;
	c->fills = 0;
	/* (threads in parallel: only when the collector's offer found one
	 * waiting for a turn — the others, parked in a system call or
	 * running, end the turn by an event — so a lone thread's ring is
	 * served while it runs, not a trap at each full ring: a thread
	 * whose main thread waits in pthread_join ran 2.5x slower) */
	c->deadline = d->trace && d->trace->nth > 1 && (!dbg_cache_parallel() || !c->pt || c->crew_waiting)
		      ? dbg_cache_now_ns() + QUANTUM_NS : 0;
	if (c->watch)
		c->deadline = c->wquantum ? dbg_cache_now_ns() + c->wquantum : 0;
	/* (a held timer signal blocked in a thread's mask, core/collectors/
	 * dbg_swc_timer.c: nothing else may end a loop's turn, and the
	 * signal is delivered at the next) */
	if (dbg_swc_timer_deadline(d) && (!c->deadline || dbg_swc_timer_deadline(d) < c->deadline))
		c->deadline = dbg_swc_timer_deadline(d);
	c->whit = 0;
	/* (a signal the kernel holds for it: the ptrace engine takes this
	 * turn, at the original pc; see dbg_cache_signal_waits) */
	if (c->mcall_pc) {
		/* a mapping call: not run yet (it is stepped), or run, and
		 * the mappings are read again */
		if (t == c->mcall_tid && r->rip == c->mcall_pc)
			return DBG_CACHE_NOTHING;
		c->mcall_pc = 0;
		c->maps_stale = 1;
		dbg_cache_pset_clear(&c->pages, 1);
	}
	if (c->broken || dbg_cache_signal_waits(d, t)) {
		c->need_flush = 1;	/* the ptrace engine runs: anything may change */
		return DBG_CACHE_OFF;
	}
	if (c->ready && c->need_flush)
		dbg_cache_flush(c);
	if (!c->ready) {
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		c->magic = 0x70746462636163ull ^ ((uint64_t)now.tv_nsec << 20) ^ (uint64_t)d->pid;
		dbg_cache_unmap_left(d, c);
		if (dbg_cache_setup(d, c, t) < 0) {
			if (c->have_ev)
				return dbg_cache_take_event(c, th, r, ts);
			c->broken = 1;	/* the ptrace engine does this run */
			return DBG_CACHE_OFF;
		}
	}
	id = dbg_cache_block_for(c, t, r->rip, dbg_cache_is_stop(c, r->rip));
	if (id < 0)
		return c->have_ev ? dbg_cache_take_event(c, th, r, ts) : DBG_CACHE_NOTHING;
	if (dbg_cache_gs_enter(c, t, r) < 0)
		return DBG_CACHE_OFF;	/* (no slot page for it: the ptrace engine) */
	c->rr = dbg_cache_gs_ring(c, t);	/* (its records: its own ring) */
	dbg_cache_sys_sync(c);
	c->st.entries++;
	c->entry_tid = t;
	c->entry_pc = r->rip;
	c->entry_insns = th->insns;
	r->rip = c->blk[id].base;
	if (target_set_regs(d->proc, t, r, err) < 0)
		return -1;
	{
		uint64_t t0 = dbg_cache_now_ns();
		int rc = dbg_cache_enter(c, th, t, r, ts, err);

		c->st.run_ns += dbg_cache_now_ns() - t0;
		return rc;
	}
}


void dbg_cache_finish(struct dbg_tracee *d, struct dbg_cache *c)
{
	if (!c)
		return;
	if (c->ready) {
		c->nleft = c->left_pid == (d ? d->pid : 0) ? c->nleft : 0;
		for (int i = 0; i < c->nreg; i++)
			dbg_cache_leave_behind(d, c, c->reg[i].addr, REGION_SIZE, 0);
		dbg_cache_leave_behind(d, c, c->rec, REC_MAP_BYTES, 8);
	}
	dbg_cache_gs_finish(c->ready ? d : NULL, c);
	dbg_cache_shm_close(c);
	if (d && d->host->alive(d->s))
		dbg_cache_unmap_left(d, c);
	if (c->run_bytes > c->st.peak_cache)
		c->st.peak_cache = c->run_bytes;
	dbg_cache_ins_free(c);
	for (uint32_t i = 0; i < c->nblk; i++) {
		ccache_block_release(&c->blk[i]);
		free(c->plan[i]);
	}
	for (int i = 0; i < c->nreg; i++) {
		if (c->reg[i].map)
			munmap(c->reg[i].map, REGION_SIZE);
		c->reg[i].map = NULL;
		free(c->reg[i].ids);
		dbg_cache_zfree(c->reg[i].tkey, TKEY_BYTES);
		dbg_cache_zfree(c->reg[i].tage, TAGE_BYTES);
	}
	free(c->tq);
	c->tq = NULL;
	free(c->ids);
	c->ids = NULL;
	dbg_cache_zfree(c->dcache, c->ndcache * sizeof(*c->dcache));
	c->dcache = NULL;
	c->ndcache = c->dcache_kept = 0;
	c->ntq = c->ctq = 0;
	free(c->blk);
	free(c->plan);
	c->plan = NULL;
	free(c->pk);
	c->pk = NULL;
	free(c->hval);
	free(c->maps);
	c->maps = NULL;
	c->nmaps = 0;
	c->maps_stale = 0;
	c->mcall_pc = 0;
	dbg_cache_pset_clear(&c->pages, 1);
	dbg_cache_pset_clear(&c->tpages, 0);
	dbg_cache_pset_clear(&c->pend_head, 0);
	free(c->pend);
	c->pend = NULL;
	free(c->held);
	c->held = NULL;
	free(c->crew);
	c->crew = NULL;
	c->ncrew = c->ccrew = 0;
	c->nheld = c->cheld = 0;
	if (c->sched_fd > 0)
		close(c->sched_fd);
	c->sched_fd = 0;
	free(c->stage);
	c->stage = NULL;
	c->stage_len = c->stage_cap = 0;
	c->npend = c->cpend = c->pend_free = 0;
	c->need_flush = 0;
	c->blk = NULL;
	c->hval = NULL;
	c->nblk = c->cblk = 0;
	c->hcap = c->hn = 0;
	c->nreg = 0;
	c->ready = c->broken = 0;
	c->run_bytes = 0;
	c->rr0.cur = -1;
}

void dbg_cache_free(struct dbg_cache *c)
{
	if (!c)
		return;
	dbg_cache_live_free(c);
	dbg_cache_finish(NULL, c);
	free(c->left_fd);
	free(c);
}

void dbg_cache_crew_offer(struct dbg_cache **cp, struct trace_swc_thread *th, pid_t tid,
			  const struct user_regs_struct *r, int waiting)
{
	struct dbg_cache *c;

	if (!*cp) {
		*cp = xcalloc(1, sizeof(**cp));
		(*cp)->rr0.cur = -1;
	}
	c = *cp;
	if (!th) {
		c->ncrew = 0;
		c->crew_waiting = waiting;
		return;
	}
	if (c->ncrew == c->ccrew) {
		c->ccrew = c->ccrew ? 2 * c->ccrew : 8;
		c->crew = xrealloc(c->crew, c->ccrew * sizeof(*c->crew));
	}
	c->crew[c->ncrew++] = (struct crew){ .tid = tid, .th = th, .r = *r };
}

void dbg_cache_count_fallback(struct dbg_cache *c)
{
	if (c)
		c->st.fallback++;
}

struct dbg_cache_stats dbg_cache_get_stats(const struct dbg_cache *c)
{
	struct dbg_cache_stats z;

	if (!c) {
		memset(&z, 0, sizeof(z));
		return z;
	}
	z = c->st;
	/* (the run going on, or ended with the program and not finished yet,
	 * counts: otherwise a program traced to its exit showed 0) */
	if (c->run_bytes > z.peak_cache)
		z.peak_cache = c->run_bytes;
	return z;
}
