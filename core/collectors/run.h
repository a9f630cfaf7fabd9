/* core/collectors/run.h: what a run asks for and how it stopped, what a
 * trace is started with, what the cache engine counted.  The session
 * (core/session/dbg.h) and the trace session hand these down to a
 * collector; a collector fills them.  Types only, below every room that
 * runs the process. */
#ifndef PTDB_CORE_COLLECTORS_RUN_H
#define PTDB_CORE_COLLECTORS_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum dbg_reason {
	DBG_R_NONE,
	DBG_R_BREAKPOINT,
	DBG_R_STEP_OVER,	/* next */
	DBG_R_STEP_IN,		/* step */
	DBG_R_STEP_OUT,		/* finish */
	DBG_R_ISTEP,		/* stepi */
	DBG_R_ISTEP_OVER,	/* nexti */
	DBG_R_UNTIL,		/* thread until */
	DBG_R_SIGNAL,
	DBG_R_INTERRUPT,
	DBG_R_EXEC,
	DBG_R_EXITED,		/* the process is gone (exit_status/signo) */
	DBG_R_TRACE_LIMIT,	/* a new thread could not be traced (tid) */
	DBG_R_REPLAY,		/* the replay cursor moved (replay_*) */
	DBG_R_WATCH,		/* a watchpoint hit (bp_id: its id; core/session/watch.h) */
};

struct dbg_stop {
	enum dbg_reason reason;
	pid_t tid;
	unsigned bp_id, loc_id;		/* DBG_R_BREAKPOINT */
	int signo, si_code;		/* DBG_R_SIGNAL; DBG_R_EXITED if signaled */
	uint64_t addr;			/* fault address for SIGSEGV & co */
	int exit_status, signaled;	/* DBG_R_EXITED */
	uint64_t replay_id, replay_total;	/* DBG_R_REPLAY: the cursor */
	int replay_edge;		/* 1 the trace's beginning, 2 its end */
	int replay_gap;			/* stopped before a gap in the trace */
	int trace_ended;		/* DBG_R_EXEC: the process's tracing ended */
	int out_done;			/* a finish completed (its return value
					 * shown), whatever the reason says */
};

/* A place an internal run waits for: pc reached by tid with rsp >= min_rsp
 * (the same or an outer frame, so recursion does not fool it); tid 0:
 * the run's (dbg_run_req's tid), else that thread's (a continue pursues
 * every thread's pending finish at once). */
struct dbg_goal {
	uint64_t pc, min_rsp;
	pid_t tid;
};

enum { RW_USER = 0, RW_GOAL = 1, RW_STEPPED = 2 };

/* What a run asks for: until a user-visible stop (RW_USER), a goal
 * reached by tid (RW_GOAL) or, with step_tid, one instruction of that
 * thread (RW_STEPPED). */
struct dbg_run_req {
	pid_t step_tid;			/* 0: run every thread */
	pid_t tid;			/* whose goals */
	const struct dbg_goal *goals;
	int ngoals;
};

/* Whether thread t has a goal of rq at pc (its registers are worth
 * reading), and whether it reached one there with stack pointer rsp. */
static inline int dbg_goal_at(const struct dbg_run_req *rq, pid_t t, uint64_t pc)
{
	for (int i = 0; i < rq->ngoals; i++)
		if (rq->goals[i].pc == pc && (rq->goals[i].tid ? rq->goals[i].tid : rq->tid) == t)
			return 1;
	return 0;
}

static inline int dbg_goal_reached(const struct dbg_run_req *rq, pid_t t, uint64_t pc,
				   uint64_t rsp)
{
	for (int i = 0; i < rq->ngoals; i++)
		if (rq->goals[i].pc == pc && rsp >= rq->goals[i].min_rsp &&
		    (rq->goals[i].tid ? rq->goals[i].tid : rq->tid) == t)
			return 1;
	return 0;
}

/* How a live trace records (trace start's options). */
struct dbg_trace_opts {
	size_t size;		/* per-thread buffer bytes */
	size_t total_limit;	/* process trace: all buffers; 0 none */
	size_t psb_period;	/* 0: default */
	int tsc;
	int single_step;	/* one trap per instruction (the reference) */
	int per_cpu;		/* process trace: one buffer per (emulated) CPU
				 * with context-switch records, split into
				 * threads when read */
	int backend;		/* DBG_BACKEND_* */
	uint64_t perf_config;	/* intel-pt: raw attr.config bits */
	int no_cgroup;		/* intel-pt per CPU: trace every task */
	int engine;		/* software: DBG_ENGINE_* */
};
enum { DBG_ENGINE_PTRACE = 0, DBG_ENGINE_CACHE = 1 };
enum { DBG_BACKEND_SOFTWARE = 0, DBG_BACKEND_INTEL_PT = 1 };

/* What the cache engine did, over the whole trace (dump info -v). */
struct dbg_cache_stats {
	uint64_t blocks, code_bytes;	/* translated (every run's) */
	uint64_t records;		/* block records read back */
	uint64_t records_mapped;	/* of them: copied from ptdb's own
					 * mapping of a shared ring (the rest
					 * read out of the process) */
	uint64_t traps;			/* stops of a thread in the cache */
	uint64_t links, misses, drains;	/* of which: exits linked, lookup
					 * misses, full buffers */
	uint64_t links_live;		/* exits linked while threads ran the
					 * code (one aligned store, through
					 * ptdb's mapping of it) */
	uint64_t links_late;		/* exits whose link waited until every
					 * thread stopped (no mapping) */
	uint64_t entries;		/* times a thread entered the cache */
	uint64_t fallback;		/* instructions the ptrace engine ran
					 * (system calls, untranslatable code,
					 * runs the engine does not handle) */
	uint64_t peak_cache;		/* largest code cache of a run, bytes */
	uint64_t run_ns, translate_ns;	/* time in the engine, and translating */
	uint64_t packet_ns;		/* of it: records read back into packets */
	uint64_t wait_ns;		/* of it: the thread running (ptdb waiting) */
	uint64_t cpu_ns, thread_cpu_ns;	/* CPU time in the engine: ptdb's, and
					 * the traced thread's (schedstat) */
	uint64_t flushes;		/* translations dropped: code mapping changed */
	uint64_t quanta;		/* turns in the cache ended by the quantum */
	uint64_t served;		/* misses served while the thread ran (no
					 * stop: dbg_cache_shm.c) */
	uint64_t serve_ns;		/* time serving requests (answered or not) */
	uint64_t ring_served;		/* record ring requests served while the
					 * thread ran (a wrap or a full ring:
					 * no stop) */
	uint64_t ring_full;		/* of them: the thread waited for
					 * records to be read */
	uint64_t slot_pages;		/* threads given their own slots (a page
					 * their gs base points at in the cache:
					 * dbg_cache_gs.c) */
	uint64_t crew_runs;		/* runs with threads in the cache at
					 * once (dbg_cache_crew.c) */
};

#endif
