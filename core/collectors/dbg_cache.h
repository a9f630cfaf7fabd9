/* core/collectors/dbg_cache.h: the software backend's cache engine, process side
 * (core/collectors/dbg_cache.c): maps a code cache and a record buffer into the
 * inferior, runs a traced thread natively out of the cache (blocks from
 * trace/ccache), and turns its records into the same trace_swc_* calls
 * the ptrace engine makes.  Used by the software collector
 * (core/collectors/dbg_swc_cache.c). */
#ifndef PTDB_CORE_DBG_CACHE_H
#define PTDB_CORE_DBG_CACHE_H

#include <stdint.h>
#include <sys/user.h>

#include "core/collectors/collector.h"
#include "target/target.h"

struct dbg_cache;
struct trace_swc_thread;

enum { DBG_CACHE_NOTHING, DBG_CACHE_AT, DBG_CACHE_EVENT, DBG_CACHE_OFF, DBG_CACHE_YIELD };

/* Runs th (stopped at r->rip, no signal pending, trace enabled) out of
 * the cache.  DBG_CACHE_OFF: not now (a signal waits, or the cache could
 * not be mapped): the ptrace engine runs; DBG_CACHE_NOTHING: the
 * instruction at r->rip does not run in the cache (*r unchanged; the
 * caller runs it); DBG_CACHE_AT: th left the cache at r->rip
 * (original state, instructions recorded up to it): a breakpoint, a goal
 * or code the cache does not run; DBG_CACHE_YIELD: th's turn is over (its
 * quantum, with other traced threads waiting, or another thread's event,
 * given back to target_thread_event), th at an original r->rip; DBG_CACHE_EVENT: *ts happened to it (pc
 * and addresses mapped back, instructions recorded, a signal stop paused
 * the trace); -1 on error. *cc is created on first use. */
int dbg_cache_run(struct dbg_tracee *d, struct dbg_cache **cc, struct trace_swc_thread *th,
		  struct user_regs_struct *r, const struct dbg_goal *goals, int ngoals,
		  struct target_stop *ts, struct ptdb_err *err);
/* Threads in parallel: before dbg_cache_run, the run's own thread first
 * (th NULL: the offer cleared, waiting the traced threads left waiting
 * for a turn), then each other traced thread that may run in the cache
 * beside it (stopped at an original pc r->rip, no signal waiting, its
 * trace enabled; not the ones in a system call).  They run at once; a
 * stop of another that the collector must see is given back as its
 * event (an arrival at a stop: a breakpoint stop at its pc), every one
 * of them at an original pc when dbg_cache_run returns.  With no shared
 * slots (or turns asked for: dbg_cache_parallel) the offer is ignored. */
void dbg_cache_crew_offer(struct dbg_cache **cc, struct trace_swc_thread *th, pid_t tid,
			  const struct user_regs_struct *r, int waiting);
/* Threads in parallel are the default; PTDB_CACHE_PARALLEL=0 (or
 * PTDB_CACHE_TURNS set) in ptdb's environment asks for turns. */
int dbg_cache_parallel(void);
/* The end of one run (threads still held one by one): the cache and the
 * buffer leave the inferior; translations are forgotten. */
void dbg_cache_finish(struct dbg_tracee *d, struct dbg_cache *cc);
void dbg_cache_free(struct dbg_cache *cc);
void dbg_cache_count_fallback(struct dbg_cache *cc);
/* Thread t (at an original pc, its records out) is about to run the
 * system call at r->rip, whichever engine runs it: one that changes the
 * mappings drops the translations of the code it touches. */
void dbg_cache_syscall(struct dbg_tracee *d, struct dbg_cache *cc, pid_t t, const struct user_regs_struct *r);
/* Watchpoints checked in the cache (core/collectors/dbg_cache_watch.c): a
 * watched range, and access DISASM_MEM_READ | DISASM_MEM_WRITE: the
 * accesses that stop. */
struct dbg_cache_wrange {
	uint64_t addr;
	unsigned size;
	int access;
};
/* Runs thread t (stopped at an original r->rip, no signal pending) out
 * of *cc (created on first use; a cache of its own, never a trace's)
 * with no trace: nothing recorded, and every access that may touch one
 * of the n ranges w (n <= 16) trapping before it.  others: other threads
 * wait for their turn (the thread's ends after a while: DBG_CACHE_YIELD).
 * Returns as dbg_cache_run; DBG_CACHE_AT with *hit 1: the instruction at
 * r->rip may touch a range (the caller runs it, checking), *hit 0: a
 * stop (breakpoint, goal) or code the cache does not run is at r->rip.
 * The end of the run (the cache leaves the inferior): dbg_cache_finish. */
int dbg_cache_watch_run(struct dbg_tracee *d, struct dbg_cache **cc, pid_t t, const struct dbg_cache_wrange *w,
			int n, int others, struct user_regs_struct *r, const struct dbg_goal *goals, int ngoals,
			struct target_stop *ts, int *hit, struct ptdb_err *err);
/* The checks that trapped, and the thread's entries into the cache,
 * since it was created (NULL-safe). */
void dbg_cache_watch_counts(const struct dbg_cache *cc, uint64_t *traps, uint64_t *entries);
/* NULL-safe; zeros when the engine never ran. */
struct dbg_cache_stats dbg_cache_get_stats(const struct dbg_cache *cc);

#endif
