/* core/collectors/collector.h: a collector and the trace session that drives
 * it (core/tracing/dbg_trace.c).  The trace session owns which threads and
 * CPUs of the process are traced (struct dbg_trace, defined here so that
 * both sides read it); a collector fills their buffers: the software one
 * (dbg_swc.c: runs the threads under ptrace, block by block, or out of
 * the cache engine) or the intel-pt one (dbg_ipt.c: perf events while the
 * process runs natively).  The trace session calls a collector only
 * through struct dbg_collector, handing it a struct dbg_tracee; a
 * collector never calls up: what it needs of the session and the trace
 * session comes through tee->host (struct dbg_host). */
#ifndef PTDB_CORE_COLLECTORS_COLLECTOR_H
#define PTDB_CORE_COLLECTORS_COLLECTOR_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "core/collectors/run.h"
#include "disasm/disasm.h"
#include "target/target.h"
#include "trace/swc.h"
#include "trace/tsc.h"

struct dbg;			/* the session: opaque here, handed back to the host */
struct dbg_ipt;
struct dbg_swc;
struct dbg_trace;
struct trace_state;

/* What a collector asks of the session above it, each with the session
 * (tee->s) as first argument.  core/session/dbg_host.c fills it. */
struct dbg_host {
	/* the session's (core/session/) */
	int (*alive)(const struct dbg *s);	/* a live (stopped) process */
	/* the instruction at pc of the live process (breakpoints masked):
	 * 0 ok, -1 unreadable or undecodable */
	int (*insn_at)(struct dbg *s, uint64_t pc, struct disasm_insn *in);
	struct disasm *(*disasm)(struct dbg *s);	/* AT&T, or NULL */
	/* counts a hit if addr is a planted enabled user location */
	int (*bp_hit)(struct dbg *s, pid_t tid, uint64_t addr, unsigned *id, unsigned *loc);
	/* the mappings read again (at the module-load breakpoint) */
	void (*refresh_modules)(struct dbg *s);
	/* the signal policy: 1 with *stop filled when it stops, 0 it goes on */
	int (*signal_stop)(struct dbg *s, const struct target_stop *ts, struct dbg_stop *stop);
	/* an exit, an exec, a requested interrupt: 1 with *stop filled */
	int (*end_stop)(struct dbg *s, const struct target_stop *ts, struct dbg_stop *stop);
	/* runs the process natively as rq asks */
	int (*run_native)(struct dbg *s, const struct dbg_run_req *rq, struct dbg_stop *stop,
			  struct ptdb_err *err);
	/* the trace session's (core/tracing/) */
	void (*progress_begin)(struct dbg *s);
	void (*progress_tick)(struct dbg *s);	/* cheap: the clock every 256 calls */
	void (*progress_poll)(struct dbg *s);	/* the clock at every call */
	struct trace_swc_thread *(*trace_find)(struct dbg *s, pid_t tid);
	/* the live process's threads: a heap array of *n (free it) */
	struct target_thread_info *(*proc_threads)(struct dbg *s, int *n);
	/* starts tracing tid as 'all' adopts a new thread: -1 with err (a
	 * limit: PTDB_E_LIMIT) */
	int (*trace_adopt)(struct dbg *s, pid_t tid, struct ptdb_err *err);
	/* a new thread the total limit leaves untraced: excluded, and the
	 * stop says so */
	void (*trace_over_limit)(struct dbg *s, pid_t tid, struct dbg_stop *stop);
	/* earlier traces, stopped and kept for dumps, go */
	void (*trace_drop_kept)(struct dbg *s);
	/* th's decoded trace, buffer and writer, the collector's part go */
	void (*thread_release)(struct dbg *s, struct trace_swc_thread *th);
};

/* The process a collector records, as the trace session hands it: its
 * own fields refreshed at every call (dbg_tee), the rest pointing at the
 * session's. */
struct dbg_tracee {
	struct dbg_trace *trace;	/* the threads and CPUs it fills */
	struct target_proc *proc;	/* the live (or exited) process */
	pid_t pid;
	/* the session's: inside resume/wait, an interrupt asked for */
	volatile sig_atomic_t *running, *interrupt_requested;
	const uint64_t *load_bp;	/* internal breakpoint on module loads */
	const pid_t *sel_tid;		/* the selected thread */
	struct trace_tsc_conv *tsc_conv;	/* TSC -> ns of the traces */
	const struct dbg_host *host;
	struct dbg *s;			/* the session, for host's calls */
};

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
	int timer_masked;	/* the one ptdb blocks in its mask meanwhile
				 * (core/collectors/dbg_swc_timer.c), 0: none */
};

/* Interval timers' pace (core/collectors/dbg_swc.c): is th's next timer
 * signal due (blocks: th is at a system call that may block)?  Until it
 * is, one that comes is held back (timer_held), and the cache engine
 * merges the next ones into it where they stop th. */
int dbg_swc_timer_due(const struct trace_swc_thread *th, int blocks);
/* Does ptdb block a held timer signal in some traced thread's mask (the
 * cache engine then runs no rt_sigprocmask in the cache)?  _deadline: when
 * a turn in the cache that begins now ends (0: no such bound). */
int dbg_swc_timers_masked(const struct dbg_tracee *d);
uint64_t dbg_swc_timer_deadline(const struct dbg_tracee *d);

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

/* The session's part of th (every struct trace_swc_thread core holds is
 * allocated so: dbg_traced_new, core/tracing/dbg_trace.c). */
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
	/* the code as it ran: the pages the software collector recorded
	 * instructions of, a version each time they changed (trace/pages.h;
	 * core/collectors/dbg_code_pages.c), or a loaded bundle's; freed
	 * with the trace */
	struct trace_pages *pages;
	pid_t hw_limit_tid;		/* intel-pt: a new thread over the limit */
	struct dbg_tracee tee;		/* what the collector is handed
					 * (core/tracing/dbg_trace.c: dbg_tee) */
};

/* A collector: what fills the session's buffers.  Every function gets the
 * process as the trace session hands it (struct dbg_tracee, d->trace
 * set). */
struct dbg_collector {
	const char *technology;		/* "software", "intel-pt" */
	/* tid starts recording into th, its own buffer (per-thread tracing):
	 * th is zeroed when fresh, else it holds tid's earlier trace, to be
	 * replaced.  -1 with err: th is forgotten by the session. */
	int (*thread_start)(struct dbg_tracee *d, struct trace_swc_thread *th, int fresh, pid_t tid,
			    struct ptdb_err *err);
	/* Before a new thread gets a buffer: -1 with err when the process's
	 * total limit leaves no room (NULL: the collector checks in start). */
	int (*thread_admit)(struct dbg_tracee *d, pid_t tid, struct ptdb_err *err);
	/* th stops recording (its trace stays readable until the resume). */
	void (*thread_stop)(struct dbg_tracee *d, struct trace_swc_thread *th);
	/* Per-CPU tracing: sets d->trace->cpu (dropping kept traces with
	 * dbg_trace_drop_kept when it takes the place). */
	int (*cpus_start)(struct dbg_tracee *d, const struct dbg_trace_opts *o, struct ptdb_err *err);
	void (*cpus_stop)(struct dbg_tracee *d);
	/* Runs the process as rq asks, recording (after will_resume). */
	int (*run)(struct dbg_tracee *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		   struct ptdb_err *err);
	/* A stop the user sees: buffers brought up to date. */
	void (*did_stop)(struct dbg_tracee *d);
	/* The process exited: 1 the traces stay readable, 0 the trace ends. */
	int (*exited)(struct dbg_tracee *d);
	/* The trace ends: the collector lets go of the process and frees its
	 * state (before the session frees the threads). */
	void (*end)(struct dbg_tracee *d);
	/* Its part of the trace state (core/tracing/dbg_state.c); NULL: none. */
	void (*state)(struct dbg_tracee *d, struct trace_state *s);
	/* The CPU the trace says it ran on (bundles, decoder): 0, or -1
	 * when the collector does not know (software: none). */
	int (*cpu_info)(struct dbg_tracee *d, char *vendor, size_t n, int *family, int *model,
			int *stepping);
};

extern const struct dbg_collector dbg_swc_collector;	/* core/collectors/dbg_swc.c */
extern const struct dbg_collector dbg_ipt_collector;	/* core/collectors/dbg_ipt.c */

/* The threads the user stopped tracing ('all' adopts them no more). */
int dbg_trace_excluded(const struct dbg_trace *t, pid_t tid);
/* A process exit as the stop reported (run loops of every room). */
void dbg_exit_stop(struct dbg_stop *stop, const struct target_stop *ts);

/* Starts the intel-pt collector in d->trace: reads the PMU (the "not
 * available" error). */
int dbg_ipt_collector_new(struct dbg_tracee *d, const struct dbg_trace_opts *o,
			  struct ptdb_err *err);
/* Where a thread stopped inside a system call returns (it runs on its own
 * until then), else th's parked_at (0: not in one) (dbg_swc.c). */
uint64_t dbg_swc_parked_at(struct dbg_tracee *d, const struct trace_swc_thread *th, pid_t tid);
/* The cache engine's counters over t (zeros when it never ran). */
struct dbg_cache_stats dbg_swc_cache_stats(const struct dbg_trace *t);

/* The intel-pt collector's events (dbg_ipt.c).  Buffers are copied at
 * every stop into the containers dumps read: a thread's ring, or per CPU
 * the chain of struct trace_swc_cpu it owns. */
/* Reads the PMU (the "not available" error), /proc/cpuinfo, the limits. */
int dbg_ipt_new(struct dbg_ipt **out, const struct dbg_trace_opts *o, struct ptdb_err *err);
void dbg_ipt_free(struct dbg_ipt *h);
/* One event for tid (pid = tid, cpu = -1), created disabled; th becomes
 * its container.  With --tsc conv takes the perf page's parameters. */
int dbg_ipt_thread_start(struct dbg_ipt *h, struct trace_swc_thread *th, pid_t tid,
			 unsigned index, size_t size, size_t total_limit,
			 struct trace_tsc_conv *conv, struct ptdb_err *err);
/* Final copy of its buffer, then the event closes. */
int dbg_ipt_thread_stop(struct dbg_ipt *h, struct trace_swc_thread *th, struct ptdb_err *err);
/* An intel_pt and a context-switch event per online CPU (cgroup of pid
 * when cgroup_filter and cgroup v2, else every task), created disabled;
 * *chain the CPUs' containers (owned by h).  conv: the perf page's. */
int dbg_ipt_cpus_start(struct dbg_ipt *h, pid_t pid, size_t size, size_t total_limit,
		       int cgroup_filter, struct trace_tsc_conv *conv,
		       struct trace_swc_cpu **chain, struct ptdb_err *err);
void dbg_ipt_cpus_stop(struct dbg_ipt *h);
/* Enables everything (just before the process resumes). */
int dbg_ipt_will_resume(struct dbg_ipt *h, struct ptdb_err *err);
/* Pauses the CPUs and copies every buffer (the process stopped). */
int dbg_ipt_did_stop(struct dbg_ipt *h, struct ptdb_err *err);
size_t dbg_ipt_bytes(const struct dbg_ipt *h);
/* Per-CPU tracing limited to the process's cgroup: 1, else 0. */
int dbg_ipt_cgroup_filtering(const struct dbg_ipt *h);

#endif
