/* core/session/dbg.h: the debugger proper — the executable, its process, the
 * loaded modules, breakpoints, source- and instruction-level stepping, the
 * selected thread and frame, and stack unwinding.  One struct dbg lives in
 * the session; commands (cmd/) drive it and word its results.
 * Functions returning int: >= 0 success, < 0 failure with err filled. */
#ifndef PTDB_CORE_DBG_H
#define PTDB_CORE_DBG_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "core/collectors/run.h"
#include "core/data/frame.h"
#include "core/session/frame.h"
#include "core/symbols/sym.h"
#include "core/tracing/tracing.h"	/* struct dbg_tracing; the threads, tracing,
					 * bundles and replay on a struct dbg */
#include "target/target.h"

struct disasm;
struct expr_store;
struct dbg_host;

#define DBG_MAX_LOCS 64
#define DBG_MAX_FRAMES 256

struct dbg_bp_loc {
	uint64_t addr;
	int enabled;
	unsigned hits;
	int planted;
};

enum dbg_bp_kind { DBG_BP_NAME, DBG_BP_LINE, DBG_BP_ADDR, DBG_BP_REGEX };

struct dbg_bp {
	unsigned id;
	enum dbg_bp_kind kind;
	char *name;		/* DBG_BP_NAME; DBG_BP_REGEX: the regex (POSIX
				 * extended, unanchored) function names match */
	char *file;		/* DBG_BP_LINE: as given (NULL: main's file) */
	unsigned line;
	uint64_t addr;		/* DBG_BP_ADDR */
	int enabled;
	unsigned hits;
	int nlocs;
	int told;		/* locations the user was told of (set, or
				 * "N locations added" at a stop report) */
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



/* A thread stopped at a breakpoint (core/session/dbg_hits.c): every
 * location at its address, LLDB's reason ("1.1 2.1"), and the breakpoints
 * whose hit made the stop (their commands run), in order. */
struct dbg_bp_stop {
	pid_t tid;
	uint64_t addr;
	int nids;
	unsigned ids[8];
	char where[96];
};
#define DBG_MAX_BP_STOPS 16

/* A finish or a line step ('n', 's') another stop came before: as
 * LLDB's step-out and step range plans it stays on its thread's stack
 * until a continue completes it, or it is stale (core/session/dbg_plan.c). */
struct dbg_step_plan;
struct dbg_pend_out {
	pid_t tid;
	struct dbg_goal g;		/* a finish: where it returns */
	const struct sym_type *ret;	/* the function's return type (cmd's) */
	struct dbg_step_plan *step;	/* a line step's state (heap); NULL: a finish */
};
#define DBG_MAX_PEND_OUT 32

/* How a signal reaching the inferior is handled ("process handle"). */
struct dbg_sig {
	unsigned char stop, pass, notify;
};

struct dbg {
	/* the trace session's state (core/tracing/tracing.h): first, so that
	 * the trace session reaches it from a struct dbg * (dbg_tr) without
	 * reading this struct */
	struct dbg_tracing tr;
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
	uint64_t maps_sig;		/* the process's mappings at the last module
					 * refresh (0: none; breakpoints re-resolved) */
	struct dbg_sig sig[65];
	volatile sig_atomic_t interrupt_requested;
	volatile sig_atomic_t running;	/* inside resume/wait */
	/* a command that resumes the process has begun (dbg_interrupt_arm):
	 * an interrupt before it is inside resume/wait is kept, not lost */
	volatile sig_atomic_t interrupt_armed;
	volatile sig_atomic_t busy;	/* a long command that runs no inferior
					 * (decoding, dumping): Ctrl-C sets
					 * interrupt_requested for it to poll */
	/* called as a command resumes the process, before each resume (a
	 * front end that tells its client the program runs: the DAP's
	 * continued event); fn NULL: none */
	struct { void (*fn)(void *ctx); void *ctx; } on_resume;
	/* finishes and line steps that another stop came before (a
	 * breakpoint in another thread or deeper in the same one), oldest
	 * first: as LLDB's thread plans they stay; a later continue goes on
	 * with the newest step, or completes every thread's finishes ("stop
	 * reason = step out"); a stale one is dropped (dbg_plan.c) */
	struct dbg_pend_out pend_out[DBG_MAX_PEND_OUT];
	int npend_out;
	/* the return type of the finish the last continue completed */
	const struct sym_type *out_ret;
	/* the threads at a breakpoint at the last stop (d->last.tid's first,
	 * then those whose hits came with it), and the last hit counted */
	struct dbg_bp_stop bp_stops[DBG_MAX_BP_STOPS];
	int nbp_stops;
	struct dbg_bp_stop hit;
	struct disasm *dis;		/* for stepping over calls */
	int follow_fork_child;		/* target.follow-fork child (untraced runs) */
	int no_hw_watch;		/* target.hardware-watchpoints false */
	int watch_by_step;		/* trace.software.engine ptrace: software
					 * watchpoints single-step only (else
					 * the code cache runs between accesses) */
	char *debug_dirs;		/* target.debug-file-search-paths (owned) */
	char *source_map;		/* target.source-map pairs (owned) */
	char *step_avoid;		/* target.process.thread.step-avoid-regexp
					 * (owned; NULL: LLDB's default ^std::) */
	int no_dynamic;			/* target.prefer-dynamic-value is
					 * no-dynamic-values: static types */
	/* 'n' stopped where an inlined call starts: its frames are hidden
	 * and frame 0 shows the call site, as LLDB does; 's' reveals them
	 * one at a time.  Valid for that thread, pc and stop id only. */
	struct { unsigned n; pid_t tid; uint64_t pc, stop_id; } inl_hide;
	/* a plan's run-to goal (a finish's or a step's return) that tid
	 * reached through a user breakpoint's hit at the same place (counted,
	 * its condition true): lldb-16 reports the plan's stop there when
	 * the plan ends there (the breakpoint's commands run), the
	 * breakpoint when the plan runs on.  Valid for that stop id only. */
	struct { int on; pid_t tid; unsigned id, loc; uint64_t pc, stop_id; } goal_bp;
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
	const struct dbg_host *host;	/* the collectors' */
	struct value_env env;
};

_Static_assert(offsetof(struct dbg, tr) == 0, "dbg_tr: struct dbg begins with its tracing");

void dbg_init(struct dbg *d);
void dbg_release(struct dbg *d);	/* kills a launched, detaches an attached process */

/* "file": opens the executable's symbols; replaces any previous one (the
 * process, if live, is killed first). */
int dbg_set_exe(struct dbg *d, const char *path, struct ptdb_err *err);

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
 * its exit, the process and its trace gone; -1 with err when its threads
 * all die and its end does not come (target_poll_exit). */
int dbg_poll_exit(struct dbg *d, struct dbg_stop *stop, struct ptdb_err *err);
int dbg_step_line(struct dbg *d, int into, struct dbg_stop *stop,
		  struct ptdb_err *err);
int dbg_step_insn(struct dbg *d, int over, struct dbg_stop *stop,
		  struct ptdb_err *err);
int dbg_finish(struct dbg *d, struct dbg_stop *stop, struct ptdb_err *err);
/* The thread of the newest pending plan (a finish or a line step another
 * stop came before), or 0. */
pid_t dbg_plans_top_tid(struct dbg *d);
/* The newest pending finish, or NULL. */
struct dbg_pend_out *dbg_pend_out_top(struct dbg *d);
/* thread tid's breakpoint stop at the last stop, or NULL */
const struct dbg_bp_stop *dbg_bp_stop_of(const struct dbg *d, pid_t tid);
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

/* The process stopped for the user between commands: its breakpoint bytes
 * out of memory until the next resume (target_park). */
void dbg_park(struct dbg *d);

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

/* dbg_call.c: calls the function at fn in thread tid with the arguments
 * c places (SysV ABI: struct dbg_call_args), only that thread running; 0
 * with the result in c (rax, rdx, xmm0, xmm1, ret_buf).  Every register
 * of the thread is restored whatever happens; a crash or a breakpoint
 * inside is an error (the call is abandoned). */
int dbg_call(struct dbg *d, pid_t tid, uint64_t fn, struct dbg_call_args *c,
	     struct ptdb_err *err);

#endif
