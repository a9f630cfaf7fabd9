/* core/session/dbg.h: the debugger proper — the executable, its process, the
 * loaded modules, breakpoints, source- and instruction-level stepping, the
 * selected thread and frame, and stack unwinding.  One struct dbg lives in
 * the session; commands (cmd/) drive it and word its results.
 * Functions returning int: >= 0 success, < 0 failure with err filled. */
#ifndef PTDB_CORE_DBG_H
#define PTDB_CORE_DBG_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "core/collectors/run.h"
#include "core/data/frame.h"
#include "core/session/frame.h"
#include "core/symbols/sym.h"
#include "target/target.h"

struct disasm;
struct dbg_trace;
struct trace_swc_thread;
struct trace_decoded;
struct trace_tsc_conv;
struct expr_store;
struct dbg_host;
struct dbg_trace_host;

#define DBG_MAX_LOCS 64
#define DBG_MAX_FRAMES 256

struct dbg_bp_loc {
	uint64_t addr;
	int enabled;
	unsigned hits;
	int planted;
};

enum dbg_bp_kind { DBG_BP_NAME, DBG_BP_LINE, DBG_BP_ADDR };

struct dbg_bp {
	unsigned id;
	enum dbg_bp_kind kind;
	char *name;		/* DBG_BP_NAME */
	char *file;		/* DBG_BP_LINE: as given (NULL: main's file) */
	unsigned line;
	uint64_t addr;		/* DBG_BP_ADDR */
	int enabled;
	unsigned hits;
	int nlocs;
	struct dbg_bp_loc locs[DBG_MAX_LOCS];
	/* "breakpoint command add": run at each hit (cmd/ does) */
	char **commands;
	int ncommands;
	int auto_continue;
	/* stop only when (core/session/dbg_cond.c): */
	char *cond;		/* this expression is true (NULL: always) */
	unsigned ignore;	/* ... after this many more hits were ignored */
	pid_t tid;		/* ... in this thread (0: any) */
	unsigned tindex;	/* ... in the thread with this index (0: any) */
};



/* How a signal reaching the inferior is handled ("process handle"). */
struct dbg_sig {
	unsigned char stop, pass, notify;
};

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
};
struct dbg_progress {
	void (*fn)(void *ctx, const struct dbg_progress_info *info);
	void *ctx;
	double t0, last;	/* CLOCK_MONOTONIC seconds */
	uint64_t insns0;
	unsigned n;		/* calls since the last clock read */
};

struct dbg {
	char *exe_path;			/* "file": absolute path */
	struct dbg_module *mods;	/* mods[0] is the executable */
	int nmods;
	struct target_proc *proc;	/* live or exited process, or NULL */
	pid_t pid;
	struct dbg_bp *bps;
	int nbps;
	unsigned next_bp_id;
	pid_t sel_tid;			/* selected thread */
	unsigned sel_frame;		/* selected frame of it */
	struct dbg_stop last;		/* the last stop reported */
	uint64_t load_bp;		/* internal breakpoint on module loads */
	struct dbg_sig sig[65];
	volatile sig_atomic_t interrupt_requested;
	volatile sig_atomic_t running;	/* inside resume/wait */
	/* a command that resumes the process has begun (dbg_interrupt_arm):
	 * an interrupt before it is inside resume/wait is kept, not lost */
	volatile sig_atomic_t interrupt_armed;
	/* a traced run's progress, for a caller that shows it (set fn; see
	 * core/tracing/dbg_progress.c) */
	struct dbg_progress progress;
	volatile sig_atomic_t busy;	/* a long command that runs no inferior
					 * (decoding, dumping): Ctrl-C sets
					 * interrupt_requested for it to poll */
	struct disasm *dis;		/* for stepping over calls */
	struct dbg_icache *icache;	/* instructions read and disassembled (core/tracing/dbg_cursor.c) */
	struct dbg_decoded_cache *decoded;	/* threads' decoded traces (core/tracing/dbg_decoded.c) */
	struct dbg_trace *trace;	/* the trace session (core/tracing/dbg_trace.c) or NULL */
	int follow_fork_child;		/* target.follow-fork child (untraced runs) */
	int no_hw_watch;		/* target.hardware-watchpoints false */
	char *debug_dirs;		/* target.debug-file-search-paths (owned) */
	char *source_map;		/* target.source-map pairs (owned) */
	char *step_avoid;		/* target.process.thread.step-avoid-regexp
					 * (owned; NULL: LLDB's default ^std::) */
	/* 'n' stopped where an inlined call starts: its frames are hidden
	 * and frame 0 shows the call site, as LLDB does; 's' reveals them
	 * one at a time.  Valid for that thread, pc and stop id only. */
	struct { unsigned n; pid_t tid; uint64_t pc, stop_id; } inl_hide;
	struct dbg_pm *pm;		/* a loaded trace, or NULL */
	struct dbg_replay *replay;	/* replaying a thread's trace, or NULL */
	/* TSC -> ns of the traces being shown: measured when tracing starts
	 * with timestamps, or read from a loaded bundle; heap, NULL until
	 * one is (core/tracing/dbg_items.c) */
	struct trace_tsc_conv *tsc_conv;
	/* signals passed on without stopping but with notify: told with the
	 * next stop report ("stopped and restarted") */
	/* index: the thread's, taken when the signal came (it may be gone
	 * by the report) */
	struct { pid_t tid; int signo; unsigned index; } notes[16];
	int nnotes, notes_lost;
	/* a line the next stop report prints after its thread line ("Return
	 * value: (int) $0 = 3" after finish); heap, or NULL */
	char *stop_note;
	unsigned exe_reread;	/* times the launch read a rebuilt executable again */
	/* why the next stop report's stop happened against the user's
	 * condition ("stopped due to an error evaluating condition ..."),
	 * heap, or NULL */
	char *stop_error;
	struct expr_store *results;	/* expression results $N (core/data/expr.h) */
	struct dbg_watch *watch;	/* watchpoints (core/session/dbg_watch.c), or NULL */
	/* what a collector calls instead of calling up, and what values and
	 * expressions read through (core/session/dbg_host.c) */
	const struct dbg_host *host;
	const struct dbg_trace_host *trace_host;	/* the trace session's */
	struct value_env env;
};

void dbg_init(struct dbg *d);
void dbg_release(struct dbg *d);	/* kills a launched, detaches an attached process */

/* "file": opens the executable's symbols; replaces any previous one (the
 * process, if live, is killed first). */
int dbg_set_exe(struct dbg *d, const char *path, struct ptdb_err *err);

/* The threads of the live process, or of a loaded trace; their count. */
int dbg_threads(struct dbg *d, struct target_thread_info *out, int max);
/* Index of tid ("thread #N"), 0 if unknown. */
unsigned dbg_thread_index(struct dbg *d, pid_t tid);

/* 1 if a process is live (stopped), 0 otherwise. */
int dbg_alive(const struct dbg *d);

/* Launch: the process is created and stopped at its exec, breakpoints
 * planted; dbg_continue then runs it.  argv[0] is the program path. */
int dbg_launch(struct dbg *d, char *const *argv, int disable_aslr,
	       struct ptdb_err *err);
/* The same, the program's fds 0, 1, 2 being fds[0..2] (-1: ptdb's), in a
 * session of its own (a terminal among them its controlling one). */
int dbg_launch_io(struct dbg *d, char *const *argv, int disable_aslr,
		  const int *fds, struct ptdb_err *err);
/* Attach to pid; the process stays stopped. */
int dbg_attach(struct dbg *d, pid_t pid, struct ptdb_err *err);
int dbg_detach(struct dbg *d, struct ptdb_err *err);
int dbg_kill(struct dbg *d, struct dbg_stop *stop, struct ptdb_err *err);

/* Execution control, all reporting the stop in *stop. */
int dbg_continue(struct dbg *d, struct dbg_stop *stop, struct ptdb_err *err);
/* The stopped process died meanwhile (killed from outside): 1 with *stop
 * its exit, the process and its trace gone. */
int dbg_poll_exit(struct dbg *d, struct dbg_stop *stop);
int dbg_step_line(struct dbg *d, int into, struct dbg_stop *stop,
		  struct ptdb_err *err);
int dbg_step_insn(struct dbg *d, int over, struct dbg_stop *stop,
		  struct ptdb_err *err);
int dbg_finish(struct dbg *d, struct dbg_stop *stop, struct ptdb_err *err);
/* Runs until one of addrs is reached in the selected frame, or the frame
 * returns. */
int dbg_until(struct dbg *d, const uint64_t *addrs, int n,
	      struct dbg_stop *stop, struct ptdb_err *err);
/* Asks a running dbg_* call to stop (signal-safe).  from_tty: the Ctrl-C
 * came from the terminal, so a launched inferior (same process group) got
 * its own SIGINT and needs no SIGSTOP.  While d->busy, it only sets
 * interrupt_requested. */
void dbg_request_interrupt(struct dbg *d, int from_tty);
/* A command is about to resume the process: forgets an older interrupt
 * (unless already armed by this command) and keeps any that comes from
 * now until dbg_interrupt_disarm (the command's end). */
void dbg_interrupt_arm(struct dbg *d);
void dbg_interrupt_disarm(struct dbg *d);

/* Breakpoints.  Adds, resolves (pending if no location yet) and plants. */
struct dbg_bp *dbg_bp_add(struct dbg *d, enum dbg_bp_kind kind,
			  const char *name, const char *file, unsigned line,
			  uint64_t addr);
struct dbg_bp *dbg_bp_find(struct dbg *d, unsigned id);
int dbg_bp_delete(struct dbg *d, unsigned id);
/* Replaces bp's commands (n 0: none). */
void dbg_bp_set_commands(struct dbg_bp *bp, char *const *cmds, int n, int auto_continue);
/* Replaces bp's condition (NULL or "": none). */
void dbg_bp_set_condition(struct dbg_bp *bp, const char *cond);
/* loc 0: the whole breakpoint. */
int dbg_bp_enable(struct dbg *d, struct dbg_bp *bp, int loc, int on,
		  struct ptdb_err *err);

/* Modules. */
struct dbg_module *dbg_module_for(struct dbg *d, uint64_t addr);
/* Re-reads the process's mappings; resolves pending breakpoints. */
void dbg_refresh_modules(struct dbg *d);

/* Threads and frames of the live process. */
int dbg_select_thread(struct dbg *d, pid_t tid);
/* Unwinds tid: fills up to max frames, returns the count (>= 1). */
int dbg_frames(struct dbg *d, pid_t tid, struct dbg_frame *out, int max,
	       struct ptdb_err *err);

/* How many inlined frames at the top of tid's stack (at pc) are hidden
 * (see inl_hide); 0 none. */
int dbg_inline_hidden(struct dbg *d, pid_t tid, uint64_t pc);

/* "trace_loop`main at trace_loop.c:2:7" for a frame (no offset when a line
 * is known), "libc.so.6`__libc_start_call_main + 128" otherwise; caller
 * frames are symbolized at pc - 1.  Returns buf. */
char *dbg_format_frame(struct dbg *d, const struct dbg_frame *f, int caller,
		       char *buf, size_t n);
/* The source location a frame shows (an inlined frame's: the call site of
 * the call inside it).  0 found, -1 not. */
int dbg_frame_line(struct dbg *d, const struct dbg_frame *f, int caller, const char **file,
		   unsigned *line, unsigned *column);
/* The function a frame is in (an inlined frame's: the inlined function),
 * demangled, without module or offset.  0, or -1 when no symbol covers it. */
int dbg_frame_function(struct dbg *d, const struct dbg_frame *f, int caller, char *buf,
		       size_t n);
/* Where to read a DWARF source path: through target.source-map (into buf)
 * or path itself. */
const char *dbg_source_path(struct dbg *d, const char *path, char *buf, size_t n);
/* "trace_loop`main + 4 at trace_loop.c:2:7" for any address. */
char *dbg_format_addr(struct dbg *d, uint64_t addr, char *buf, size_t n);
/* When addr is in inlined calls, the lines LLDB adds below that symbol
 * context, one per call outward, each indent + "mod`f + off at call site"
 * + "\n" ("" when none). */
char *dbg_format_inline_callers(struct dbg *d, uint64_t addr, const char *indent, char *buf,
				size_t n);
/* Source location of addr in a module with line info: file (full path),
 * line, column. 0 found, -1 not. */
int dbg_addr_line(struct dbg *d, uint64_t addr, const char **file,
		  unsigned *line, unsigned *column);

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
struct trace_decode_hook;
int dbg_trace_decode_hooked(struct dbg *d, struct trace_swc_thread *th,
			    const struct trace_decode_hook *hook,
			    struct trace_decoded **out, struct ptdb_err *err);
/* The decoder's memory image: the loaded modules' executable segments as
 * file sections (the vDSO through its copy). */
struct trace_image;
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
/* The process stopped for the user between commands: its breakpoint bytes
 * out of memory until the next resume (target_park). */
void dbg_park(struct dbg *d);

struct bundle;
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

/* Records a signal that was passed on with notify (dbg_sig.notify). */
void dbg_note_signal(struct dbg *d, pid_t tid, int signo);

/* The session's instruction decoder (AT&T, created on first use), or NULL. */
struct disasm *dbg_disasm(struct dbg *d);

/* Up to n bytes at addr from the live process or, post-mortem, the loaded
 * modules' files: how many could be read from addr on (0: none). */
size_t dbg_read_some(struct dbg *d, uint64_t addr, void *buf, size_t n);
/* Memory of the live process via target_read_mem (post-mortem: the
 * modules' files). */
int dbg_read(struct dbg *d, uint64_t addr, void *buf, size_t n,
	     struct ptdb_err *err);

/* dbg_call.c: calls the function at fn in thread tid with up to 6
 * integer or pointer arguments (SysV ABI), only that thread running; 0
 * with rax in *ret.  Every register of the thread is restored whatever
 * happens; a crash or a breakpoint inside is an error (the call is
 * abandoned). */
int dbg_call(struct dbg *d, pid_t tid, uint64_t fn, const uint64_t *args, int nargs,
	     uint64_t *ret, struct ptdb_err *err);

#endif
