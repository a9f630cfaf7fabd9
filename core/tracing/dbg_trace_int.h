/* core/tracing/dbg_trace_int.h: what the trace session (core/tracing/dbg_trace.c) and
 * its collectors share; not for use elsewhere.
 *
 * The session owns which threads and CPUs of the process are traced (the
 * struct trace_swc_thread of each, the per-CPU chain, the threads the user
 * excluded) and nothing else.  A collector fills them: the software one
 * (core/collectors/dbg_swc.c: runs the threads under ptrace, block by block, or out
 * of the cache engine) or the intel-pt one (core/collectors/dbg_ipt.c: perf events
 * while the process runs natively).  The session calls a
 * collector only through struct dbg_collector. */
#ifndef PTDB_CORE_DBG_TRACE_INT_H
#define PTDB_CORE_DBG_TRACE_INT_H

#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "trace/swc.h"

#include <stddef.h>

struct dbg_swc;
struct trace_state;

/* The software collector's part of a traced thread (core/dbg_swc*.c). */
struct dbg_swc_thread {
	uint64_t traps;		/* ptrace stops taken to record it */
	uint64_t emulated;	/* transfers computed, not run natively */
	uint64_t parked_at;	/* in a system call; runs on its own until it
				 * returns here (collector's breakpoint), 0 if not */
	uint64_t timer_at;	/* its instructions at its last timer signal
				 * + 1 (0: none yet) */
	uint64_t timer_ns;	/* and when (monotonic) */
	int timer_held;		/* a timer signal held back meanwhile */
};

/* A traced thread as the session holds it (live, or a loaded bundle's;
 * each its own allocation: the packet writer points at its ring).  The
 * decoded trace is not here: core/tracing/dbg_decoded.c keeps it. */
struct dbg_traced {
	struct trace_swc_thread s;	/* its trace: buffer, packet writer,
					 * per-CPU part (trace/swc.h) */
	struct dbg_swc_thread sw;	/* the software collector's */
	int loss_notice;		/* traced with the default buffer size:
					 * say once when it wraps */
};

/* A new thread, zeroed (xcalloc; free(dbg_traced(th)) after
 * dbg_trace_thread_release): every struct trace_swc_thread core holds is
 * allocated so (core/tracing/dbg_trace.c). */
struct trace_swc_thread *dbg_traced_new(void);
/* The session's part of th. */
static inline struct dbg_traced *dbg_traced(const struct trace_swc_thread *th)
{
	return (struct dbg_traced *)((char *)th - offsetof(struct dbg_traced, s));
}

struct dbg_trace {
	struct trace_swc_thread **th;	/* traced threads, and stopped ones
					 * kept dumpable until the next resume
					 * (each the s of a struct dbg_traced) */
	int nth;
	int all;			/* trace threads created later */
	int process;			/* "process trace start" */
	struct dbg_trace_opts opts;
	pid_t *excluded;		/* threads the user stopped tracing: not
					 * adopted again by 'all' */
	int nexcl;
	struct trace_swc_cpu *cpu;	/* per-CPU tracing: the CPU chain */
	int cpu_stopped;		/* its tracing stopped: freed on resume */
	/* the collector's own state: the software one's (NULL until it
	 * first runs), or the intel-pt one's (NULL: software) */
	struct dbg_swc *sw;
	struct dbg_ipt *hw;
	pid_t hw_limit_tid;		/* intel-pt: a new thread over the limit */
};

/* A collector: what fills the session's buffers.  Every function gets the
 * session's dbg (d->trace set). */
struct dbg_collector {
	const char *technology;		/* "software", "intel-pt" */
	/* tid starts recording into th, its own buffer (per-thread tracing):
	 * th is zeroed when fresh, else it holds tid's earlier trace, to be
	 * replaced.  -1 with err: th is forgotten by the session. */
	int (*thread_start)(struct dbg *d, struct trace_swc_thread *th, int fresh, pid_t tid,
			    struct ptdb_err *err);
	/* Before a new thread gets a buffer: -1 with err when the process's
	 * total limit leaves no room (NULL: the collector checks in start). */
	int (*thread_admit)(struct dbg *d, pid_t tid, struct ptdb_err *err);
	/* th stops recording (its trace stays readable until the resume). */
	void (*thread_stop)(struct dbg *d, struct trace_swc_thread *th);
	/* Per-CPU tracing: sets d->trace->cpu (dropping kept traces with
	 * dbg_trace_drop_kept when it takes the place). */
	int (*cpus_start)(struct dbg *d, const struct dbg_trace_opts *o, struct ptdb_err *err);
	void (*cpus_stop)(struct dbg *d);
	/* Runs the process as rq asks, recording (after will_resume). */
	int (*run)(struct dbg *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		   struct ptdb_err *err);
	/* A stop the user sees: buffers brought up to date. */
	void (*did_stop)(struct dbg *d);
	/* The process exited: 1 the traces stay readable, 0 the trace ends. */
	int (*exited)(struct dbg *d);
	/* The trace ends: the collector lets go of the process and frees its
	 * state (before the session frees the threads). */
	void (*end)(struct dbg *d);
	/* Its part of the trace state (core/tracing/dbg_state.c); NULL: none. */
	void (*state)(struct dbg *d, struct trace_state *s);
	/* The CPU the trace says it ran on (bundles, decoder): 0, or -1
	 * when the collector does not know (software: none). */
	int (*cpu_info)(struct dbg *d, char *vendor, size_t n, int *family, int *model,
			int *stepping);
};

extern const struct dbg_collector dbg_swc_collector;	/* core/collectors/dbg_swc.c */
extern const struct dbg_collector dbg_ipt_collector;	/* core/collectors/dbg_ipt.c */

/* Starts the intel-pt collector (creating d->trace): reads the PMU (the
 * "not available" error). */
int dbg_ipt_collector_new(struct dbg *d, const struct dbg_trace_opts *o, struct ptdb_err *err);

/* The collector of the live trace t. */
const struct dbg_collector *dbg_trace_collector(const struct dbg_trace *t);

/* The live process's threads, however many: a heap array of *n (free
 * it) (core/tracing/dbg_trace.c). */
struct target_thread_info *dbg_proc_threads(struct dbg *d, int *n);
/* The session's threads (core/tracing/dbg_trace.c). */
struct trace_swc_thread *dbg_trace_find(struct dbg *d, pid_t tid);
int dbg_trace_excluded(const struct dbg_trace *t, pid_t tid);
/* Starts tracing tid as 'all' adopts a new thread: -1 with err (a limit:
 * PTDB_E_LIMIT). */
int dbg_trace_adopt(struct dbg *d, pid_t tid, struct ptdb_err *err);
/* A new thread that the total limit leaves untraced: excluded, and the
 * stop says so. */
void dbg_trace_over_limit(struct dbg *d, pid_t tid, struct dbg_stop *stop);
/* Earlier traces, stopped and kept for dumps, go (before the resume, or
 * before a per-CPU trace takes their place). */
void dbg_trace_drop_kept(struct dbg *d);
/* Where a thread stopped inside a system call returns (it runs on its own
 * until then), else th's parked_at (0: not in one) (core/collectors/dbg_swc.c). */
uint64_t dbg_swc_parked_at(struct dbg *d, const struct trace_swc_thread *th, pid_t tid);

#endif
