/* core/tracing/tracing.h: the trace session as the session holds and drives
 * it — its state (struct dbg_tracing, the first member of struct dbg: d->tr)
 * and the functions cmd/ and the session call on a struct dbg (the threads,
 * live tracing, bundles, replay).  core/session/dbg.h includes it, so cmd/
 * reads it through dbg.h.
 *
 * The trace session's functions take the session (struct dbg *) and read
 * nothing of it but their own part, dbg_tr(d) (struct dbg begins with it,
 * core/session/dbg.h checks); whatever else they need of the session they
 * ask through dbg_tr(d)->host (struct dbg_trace_host,
 * core/tracing/dbg_trace_int.h), but the process and its pid, which they
 * read through dbg_tr(d)->proc and ->pid.  Functions returning int: >= 0 success,
 * < 0 failure with err filled. */
#ifndef PTDB_CORE_TRACING_H
#define PTDB_CORE_TRACING_H

#include <stdint.h>
#include <sys/types.h>

struct bundle;
struct dbg;
struct dbg_cache_stats;
struct dbg_decoded_cache;
struct dbg_frame;
struct dbg_icache;
struct dbg_replay;
struct dbg_stop;
struct dbg_trace;
struct dbg_trace_host;
struct dbg_trace_opts;
struct ptdb_err;
struct target_proc;
struct target_thread_info;
struct trace_decoded;
struct trace_decode_hook;
struct trace_image;
struct trace_swc_cpu;
struct trace_swc_thread;
struct trace_tsc_conv;

/* A post-mortem session: a trace bundle loaded with "trace load"
 * (core/tracing/dbg_bundle.c).  Its modules are d->mods; no process lives. */
struct dbg_pm_thread {
	pid_t tid;
	unsigned index;
	struct trace_swc_thread *th;	/* its trace (NULL: listed, not traced) */
};

/* Every process of a loaded bundle ("target list"); one is loaded. */
struct dbg_pm_proc {
	pid_t pid;
	char *exe;			/* its first module's file, or NULL */
	char *triple;			/* or NULL */
};

struct dbg_pm {
	char *json;			/* the trace.json loaded */
	int allow_outside;		/* loaded with files outside its directory allowed */
	pid_t pid;
	struct dbg_pm_proc *procs;	/* the bundle's processes, in order */
	int nproc, proc;		/* how many; which is loaded */
	int kernel;			/* a kernel bundle (saved as one again) */
	struct dbg_pm_thread *th;
	int nth;
	struct trace_swc_cpu *cpu;	/* a per-CPU bundle's CPU stream, or NULL */
	char vendor[32];		/* cpuInfo */
	unsigned family, model, stepping;
	struct dbg_pm_index *index;	/* core/tracing/dbg_bundle_index.c's */
	struct trace_pages *pages;	/* the code as it ran (trace/pages.h), or NULL */
};

/* While a traced run goes on: the figures handed to progress.fn, about
 * every DBG_PROGRESS_EVERY seconds (core/tracing/dbg_progress.c). */
#define DBG_PROGRESS_EVERY 0.25
struct dbg_progress_info {
	double seconds;		/* since the run began */
	uint64_t insns;		/* recorded in this run, all traced threads */
	double rate;		/* instructions per second */
	unsigned fill_pct;	/* fullest buffer, percent (100 once wrapped) */
	int wrapped;		/* a buffer wrapped (now or before the run) */
	int watching;		/* no trace: the run single-steps for software
				 * watchpoints, insns the instructions stepped */
};
struct dbg_progress {
	void (*fn)(void *ctx, const struct dbg_progress_info *info);
	void *ctx;
	double t0, last;	/* CLOCK_MONOTONIC seconds */
	uint64_t insns0;
	unsigned n;		/* calls since the last clock read */
};

/* The trace session's state: what is traced and how (trace), a loaded
 * bundle (pm), replay, the instruction cache and the decoded traces every
 * reader shares, the TSC conversion of the traces shown, a traced run's
 * progress; and what it asks of the session (host).  The session embeds
 * it as the first member of struct dbg (d->tr); the trace session reaches
 * it as dbg_tr(d). */
struct dbg_tracing {
	struct dbg_trace *trace;	/* the live trace (core/tracing/dbg_trace.c) or NULL */
	struct dbg_pm *pm;		/* a loaded trace, or NULL */
	struct dbg_replay *replay;	/* replaying a thread's trace, or NULL */
	struct dbg_icache *icache;	/* instructions read and disassembled (core/tracing/dbg_cursor.c) */
	struct dbg_decoded_cache *decoded;	/* threads' decoded traces (core/tracing/dbg_decoded.c) */
	/* TSC -> ns of the traces being shown: measured when tracing starts
	 * with timestamps, or read from a loaded bundle; heap, NULL until
	 * one is (core/tracing/dbg_items.c) */
	struct trace_tsc_conv *tsc_conv;
	/* a traced run's progress, for a caller that shows it (set fn; see
	 * core/tracing/dbg_progress.c) */
	struct dbg_progress progress;
	/* what the trace session asks of the session (core/session/dbg_host.c) */
	const struct dbg_trace_host *host;
	/* the session's process (live or exited, or NULL) and pid, read
	 * where the session keeps them (set with host by dbg_init, as a
	 * collector's struct dbg_tracee points at the session's run flags):
	 * the instruction cache checks them at every lookup */
	struct target_proc *const *proc;
	const pid_t *pid;
};

/* d's trace session: struct dbg begins with it (C11 6.7.2.1: a pointer to
 * a struct, converted, points to its first member). */
#define dbg_tr(d)                                                                   \
	_Generic((d), const struct dbg *: (const struct dbg_tracing *)(const void *)(d), \
		 default: (struct dbg_tracing *)(void *)(d))

/* The threads of the live process, or of a loaded trace; their count. */
int dbg_threads(struct dbg *d, struct target_thread_info *out, int max);
/* Index of tid ("thread #N"), 0 if unknown. */
unsigned dbg_thread_index(struct dbg *d, pid_t tid);

/* Live tracing: the trace session (core/tracing/dbg_trace.c), its collectors
 * (core/collectors/dbg_swc.c, core/collectors/dbg_ipt.c) and sources
 * (core/tracing/dbg_source.c); struct dbg_trace_opts: core/collectors/run.h. */

/* "intel-pt" or "software": what the live (or loaded) trace came from. */
const char *dbg_trace_technology(const struct dbg *d);
int dbg_tracing(const struct dbg *d);
/* The session shows a loaded bundle (no process). */
int dbg_trace_loaded(const struct dbg *d);
/* Registers and memory are a live process's own (not a loaded bundle's
 * nor a replayed position's). */
int dbg_live_state(const struct dbg *d);
/* The process exited with (software) traces: they stay readable (dump,
 * function-calls) until the next run; the threads keep their numbers. */
int dbg_trace_kept(const struct dbg *d);
/* Threads for the trace commands: the live ones, then traced threads that
 * exited (core/tracing/dbg_exited.c); dbg_thread_exited says which is which. */
int dbg_trace_threads(struct dbg *d, struct target_thread_info *out, int max);
int dbg_thread_exited(struct dbg *d, pid_t tid);
int dbg_trace_is_process(const struct dbg *d);
int dbg_trace_single_step(const struct dbg *d);
/* The software engine of the live trace: "ptrace" or "cache". */
const char *dbg_trace_engine(const struct dbg *d);
/* The cache engine's counters (zeros when it never ran; struct
 * dbg_cache_stats: core/collectors/run.h). */
void dbg_trace_cache_stats(const struct dbg *d, struct dbg_cache_stats *out);
/* The per-CPU stream of per-CPU tracing (live or loaded), or NULL. */
struct trace_swc_cpu *dbg_trace_cpu(struct dbg *d);
/* Starts tracing tids (or all current and future threads); a traced
 * thread's trace restarts.  Error "Thread N can't be traced as the process
 * trace size limit has been reached..." */
int dbg_trace_start(struct dbg *d, const pid_t *tids, int n, int all, int process,
		    const struct dbg_trace_opts *o, struct ptdb_err *err);
/* Errors: "Process is not being traced", "thread not traced". */
int dbg_trace_stop(struct dbg *d, const pid_t *tids, int n, int all,
		   struct ptdb_err *err);
void dbg_trace_end(struct dbg *d);
/* The thread's trace (traced, or stopped and kept until the next resume). */
struct trace_swc_thread *dbg_trace_thread(struct dbg *d, pid_t tid);
/* Its decoded trace, cached until the process runs again. */
int dbg_trace_decode(struct dbg *d, struct trace_swc_thread *th,
		     struct trace_decoded **out, struct ptdb_err *err);
/* The same with trace_decode_hooked's hook (NULL: none): a cancelled
 * decode returns TRACE_DECODE_CANCELLED ("interrupted") and caches nothing. */
int dbg_trace_decode_hooked(struct dbg *d, struct trace_swc_thread *th,
			    const struct trace_decode_hook *hook,
			    struct trace_decoded **out, struct ptdb_err *err);
/* The decoder's memory image: the loaded modules' executable segments as
 * file sections (the vDSO through its copy). */
int dbg_trace_build_image(struct dbg *d, struct trace_image *img, struct ptdb_err *err);
/* trace_next_ip_fn over the live process (ctx = the dbg). */
uint64_t dbg_trace_next_ip(void *ctx, uint64_t ip);

/* Every trace the session holds (traced threads, stopped ones kept until
 * the next resume, a loaded bundle's), in thread order; the count. */
int dbg_trace_all(struct dbg *d, struct trace_swc_thread **out, int max);
/* The live trace's state as LLDB's jLLDBTraceGetState response (JSON text,
 * heap; core/tracing/dbg_state.c), or NULL with err when nothing is traced. */
char *dbg_trace_state(struct dbg *d, int pretty, struct ptdb_err *err);

/* Trace bundles (core/tracing/dbg_bundle.c).  Loading replaces the session's
 * target (a live process is killed or detached first) with the bundle's
 * post-mortem one; *info (free with bundle_free) tells what was loaded. */
int dbg_load_bundle(struct dbg *d, const char *path, int allow_outside, struct bundle **info,
		    struct ptdb_err *err);
/* The same with the bundle's process index loaded (a bundle of several
 * processes loads the first; "target select" another). */
int dbg_load_bundle_process(struct dbg *d, const char *path, int index, int allow_outside,
			    struct bundle **info, struct ptdb_err *err);
/* Drops a loaded trace (no-op without one). */
void dbg_unload_bundle(struct dbg *d);
/* Writes the session's traces (live or loaded) as a bundle in dir; compact:
 * only the threads and modules the traces touch; force: write into a
 * non-empty dir.  json (n bytes) receives the path of trace.json. */
int dbg_save_bundle(struct dbg *d, const char *dir, int compact, int force,
		    char *json, size_t n, struct ptdb_err *err);

/* Replay: a cursor over one thread's trace stands for the thread
 * (core/tracing/dbg_replay.c).  Moving it reports DBG_R_REPLAY stops. */
enum dbg_replay_kind {
	DBG_RP_INSN,		/* stepi / reverse-stepi */
	DBG_RP_LINE_IN,		/* step / reverse-step */
	DBG_RP_LINE_OVER,	/* next / reverse-next */
	DBG_RP_OUT,		/* finish / reverse-finish */
	DBG_RP_CONTINUE,	/* continue / reverse-continue: to a breakpoint */
};
int dbg_replaying(const struct dbg *d);
pid_t dbg_replay_tid(const struct dbg *d);
int dbg_replay_cursor(const struct dbg *d, uint64_t *id, uint64_t *total);
uint64_t dbg_replay_pc(struct dbg *d);
/* The code generation (trace/pages.h) at the cursor: the one its
 * instruction ran in; past the end UINT64_MAX (the newest).  -1: not
 * replaying. */
int dbg_replay_code_gen(struct dbg *d, uint64_t *gen);
/* The code a software trace kept as it ran (core/tracing/dbg_code_read.c),
 * for the memory commands: up to n bytes at addr, to its page's end, when
 * addr's page was kept and no module file has its code (its code changed,
 * or no module covers it): at the replay cursor's generation, else the
 * newest; 0 else.  _overlay: a live process's bytes read at addr, the
 * pages whose code changed put back as at the replay cursor (nothing when
 * not replaying). */
size_t dbg_trace_code_read(struct dbg *d, uint64_t addr, void *buf, size_t n);
void dbg_trace_code_overlay(struct dbg *d, uint64_t addr, void *buf, size_t n);
/* 1 when every page of [addr, addr + n) is code a software trace kept. */
int dbg_trace_code_kept(struct dbg *d, uint64_t addr, size_t n);
/* Enters (or moves within) replay: tid's cursor at instruction id. */
int dbg_replay_goto(struct dbg *d, pid_t tid, uint64_t id, struct dbg_stop *stop,
		    struct ptdb_err *err);
/* Enters replay one past the end of tid's trace (where the live thread
 * is), for a backward move to start from. */
int dbg_replay_from_end(struct dbg *d, pid_t tid, struct ptdb_err *err);
/* dir -1 back in time, +1 forward. */
int dbg_replay_move(struct dbg *d, int dir, enum dbg_replay_kind kind, struct dbg_stop *stop,
		    struct ptdb_err *err);
/* Back to the live process (its last stop is current again). */
void dbg_replay_leave(struct dbg *d);
/* The call stack at the cursor from the trace's calls and returns: frame
 * 0 at the cursor, callers at their return addresses, and a last frame
 * with untraced set when the trace began inside a call. */
int dbg_replay_frames(struct dbg *d, struct dbg_frame *out, int max, struct ptdb_err *err);

#endif
