/* core/tracing/dbg_trace_int.h: what the trace session's files share; not
 * for use elsewhere.
 *
 * The trace session (core/tracing/dbg_trace.c) owns which threads and CPUs
 * of the process are traced (struct dbg_trace, core/collectors/collector.h:
 * the struct trace_swc_thread of each, the per-CPU chain, the threads the
 * user excluded) and nothing else.  A collector fills them; the trace
 * session calls it only through struct dbg_collector, with dbg_tee(d). */
#ifndef PTDB_CORE_DBG_TRACE_INT_H
#define PTDB_CORE_DBG_TRACE_INT_H

#include "core/collectors/collector.h"
#include "core/collectors/run.h"
#include "core/data/frame.h"
#include "core/symbols/sym.h"
#include "core/tracing/tracing.h"
#include "target/target.h"
#include "trace/swc.h"

#include <stddef.h>

struct dbg_swc;
struct trace_state;

/* What the trace session asks of the session above it, each call with the
 * session (core/session/dbg_host.c fills it; dbg_tr(d)->host): it never
 * calls up by name. */
struct dbg_trace_host {
	int (*alive)(const struct dbg *d);	/* a live (stopped) process */
	struct dbg_module *(*module_for)(struct dbg *d, uint64_t addr);
	/* a loaded bundle's modules: appended to the session's */
	struct dbg_module *(*add_module)(struct dbg *d, struct sym_module *m, const char *path);
	/* the process, the modules, a loaded trace and the executable go
	 * (breakpoints stay, unresolved) */
	void (*drop_target)(struct dbg *d);
	void (*resolve_all)(struct dbg *d);	/* breakpoints resolved again */
	/* a loaded trace's thread where its trace ends, with the callers
	 * its calls and returns show */
	int (*pm_frames)(struct dbg *d, pid_t tid, struct dbg_frame *out, int max,
			 struct ptdb_err *err);
	struct disasm *(*disasm)(struct dbg *d);	/* AT&T, or NULL */
	/* up to n bytes at addr (live, or the modules' files): how many */
	size_t (*read_some)(struct dbg *d, uint64_t addr, void *buf, size_t n);
	/* source location of addr: 0 found, -1 not */
	int (*addr_line)(struct dbg *d, uint64_t addr, const char **file, unsigned *line,
			 unsigned *column);
	/* the session's state it reads, and sets (the process and pid:
	 * dbg_tr(d)->proc, ->pid) */
	/* the modules, [0] the executable; *n their count */
	struct dbg_module *(*modules)(struct dbg *d, int *n);
	struct dbg_stop *(*last)(struct dbg *d);	/* the last stop reported */
	void (*select)(struct dbg *d, pid_t tid);	/* tid selected, its frame 0 */
	/* a loaded bundle's target is the session's: its executable (a
	 * copy is kept), pid and selected thread; no stop yet */
	void (*loaded)(struct dbg *d, const char *exe, pid_t pid, pid_t tid);
	/* a replayed stop at ip, an enabled location of an enabled
	 * breakpoint, counts as a hit: 1 with *id, *loc (1-based) */
	int (*bp_replay_hit)(struct dbg *d, uint64_t ip, unsigned *id, unsigned *loc);
	/* the session's part of what a collector is handed: the process,
	 * its run flags, the selected thread, the collectors' host */
	void (*tee)(struct dbg *d, struct dbg_tracee *t);
};

/* The code pages the session's trace kept (trace/pages.h): the live
 * trace's, a loaded bundle's, or NULL (core/tracing/dbg_decoded.c). */
struct trace_pages *dbg_trace_pages(struct dbg *d);

/* The session's process, live or exited, or NULL. */
static inline struct target_proc *dbg_tr_proc(const struct dbg *d)
{
	return *dbg_tr(d)->proc;
}

/* A new thread, zeroed (xcalloc; free(dbg_traced(th)) after
 * dbg_trace_thread_release): every struct trace_swc_thread core holds is
 * allocated so (core/tracing/dbg_trace.c). */
struct trace_swc_thread *dbg_traced_new(void);
/* The collector of the live trace t. */
const struct dbg_collector *dbg_trace_collector(const struct dbg_trace *t);

/* The live process's threads, however many: a heap array of *n (free
 * it) (core/tracing/dbg_trace.c). */
struct target_thread_info *dbg_proc_threads(struct dbg *d, int *n);
/* The session's threads (core/tracing/dbg_trace.c). */
struct trace_swc_thread *dbg_trace_find(struct dbg *d, pid_t tid);
/* Starts tracing tid as 'all' adopts a new thread: -1 with err (a limit:
 * PTDB_E_LIMIT). */
int dbg_trace_adopt(struct dbg *d, pid_t tid, struct ptdb_err *err);
/* A new thread that the total limit leaves untraced: excluded, and the
 * stop says so. */
void dbg_trace_over_limit(struct dbg *d, pid_t tid, struct dbg_stop *stop);
/* Earlier traces, stopped and kept for dumps, go (before the resume, or
 * before a per-CPU trace takes their place). */
void dbg_trace_drop_kept(struct dbg *d);
/* What d's collector is handed: dbg_tr(d)->trace->tee, refreshed from d (dbg_tr(d)->trace
 * set). */
struct dbg_tracee *dbg_tee(struct dbg *d);
/* The trace session's part of struct dbg_host (core/session/dbg_host.c). */
void dbg_progress_begin(struct dbg *d);
void dbg_progress_tick(struct dbg *d);	/* cheap: reads the clock every 256 calls */
void dbg_progress_poll(struct dbg *d);	/* reads the clock at every call */

/* The trace session as the session drives it (core/tracing/dbg_trace.c):
 * a traced run, a stop the user sees; at the exit it keeps a software
 * trace readable (dbg_trace_kept) and ends any other. */
void dbg_trace_exited(struct dbg *d);
int dbg_trace_run(struct dbg *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		  struct ptdb_err *err);
void dbg_trace_did_stop(struct dbg *d);

/* A loaded trace's thread has one frame: where its trace ends
 * (core/tracing/dbg_bundle.c). */
int dbg_pm_frame(struct dbg *d, pid_t tid, struct dbg_frame *f, struct ptdb_err *err);
/* core/tracing/dbg_bundle_index.c: a loaded bundle's thread with tid (the
 * first listed), or NULL; the image of its modules, built once (NULL if
 * it cannot be); both freed with d->pm by dbg_pm_index_free. */
struct dbg_pm_thread *dbg_pm_thread_of(struct dbg *d, pid_t tid);
const struct trace_image *dbg_pm_image(struct dbg *d);
void dbg_pm_index_free(struct dbg_pm *pm);

/* Where the session's traces and threads come from (core/tracing/dbg_source.c):
 * the live process traced by the software or the intel-pt collector, or a
 * loaded bundle.  Readers ask the source, not the mode. */
struct dbg_source {
	const char *technology;		/* "software", "intel-pt" */
	int loaded;			/* a bundle: no process, memory from files */
	/* tid's trace (traced, or stopped and kept until the next resume) */
	struct trace_swc_thread *(*trace)(struct dbg *d, pid_t tid);
	/* every trace, in thread order */
	int (*traces)(struct dbg *d, struct trace_swc_thread **out, int max);
	struct trace_swc_cpu *(*cpu)(struct dbg *d);	/* per-CPU chain */
	int (*threads)(struct dbg *d, struct target_thread_info *out, int max);
	unsigned (*thread_index)(struct dbg *d, pid_t tid);
	/* memory is the modules' files only (a bundle; a process that exited
	 * with its trace): 1, and files_error says an address outside them */
	int (*files_only)(const struct dbg *d);
	const char *files_error;	/* printf format: the address (PRIx64) */
	/* tid is a thread the user can select */
	int (*selectable)(struct dbg *d, pid_t tid);
	/* the modules are at their run-time addresses */
	int (*mapped)(const struct dbg *d);
	/* a thread's frames when the source has no stack to unwind (NULL:
	 * unwind the live thread) */
	int (*frames)(struct dbg *d, pid_t tid, struct dbg_frame *out, int max,
		      struct ptdb_err *err);
	/* the CPU the trace ran on: 0, or -1 not known (software) */
	int (*cpu_info)(struct dbg *d, char *vendor, size_t n, int *family, int *model,
			int *stepping);
};
const struct dbg_source *dbg_source(const struct dbg *d);
int dbg_trace_cpu_info(struct dbg *d, char *vendor, size_t n, int *family, int *model,
		       int *stepping);

/* The live intel-pt collector, or NULL (software, loaded, none). */
struct dbg_ipt;
struct dbg_ipt *dbg_trace_ipt(const struct dbg *d);

/* The decode cache (core/tracing/dbg_decoded.c): th's decoded trace goes (th is
 * released or restarted); what it holds; how long its last decoding
 * took; all of it goes with the session. */
void dbg_decoded_forget(struct dbg *d, const struct trace_swc_thread *th);
/* What the cache holds for th (current or not), NULL if nothing. */
struct trace_decoded *dbg_decoded_cached(struct dbg *d, const struct trace_swc_thread *th);
double dbg_decoded_seconds(struct dbg *d, const struct trace_swc_thread *th);
void dbg_decoded_free(struct dbg *d);
/* Every traced thread is released through this (core/tracing/dbg_trace.c): its
 * decoded trace, its buffer and writer, the collector's part. */
void dbg_trace_thread_release(struct dbg *d, struct trace_swc_thread *th);

#endif
