/* core/session/dbg_int.h: what core/dbg*.c share; not for use elsewhere. */
#ifndef PTDB_CORE_DBG_INT_H
#define PTDB_CORE_DBG_INT_H

/* Declares what it needs instead of including core/session/dbg.h (which its
 * users include first), so the dbg module and it form no cycle. */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/collectors/collector.h"
#include "disasm/disasm.h"

struct dbg;
struct dbg_bp;
struct dbg_frame;
struct dbg_module;
struct dbg_stop;
struct ptdb_err;
struct sym_loc;
struct sym_module;
struct sym_regs;
struct target_proc;
struct target_stop;
struct target_thread_info;
struct trace_swc_cpu;
struct trace_swc_thread;

/* What collectors call instead of calling up (core/session/dbg_host.c). */
extern const struct dbg_host dbg_host;
/* What the trace session calls instead of calling up (d->tr.host). */
extern const struct dbg_trace_host dbg_trace_host;
/* Its tee: the session's fields of a collector's struct dbg_tracee (the
 * rest, t->s included, is the caller's). */
void dbg_host_tee(struct dbg *d, struct dbg_tracee *t);
/* d->env: what values and expressions read of d. */
void dbg_env_init(struct dbg *d);

void dbg_resolve_all(struct dbg *d);
/* Forgets the process, the modules, a loaded trace and the executable
 * (breakpoints stay, unresolved). */
void dbg_drop_target(struct dbg *d);
/* core/session/dbg_life.c: the process goes (its trace, watchpoints, plantings);
 * the modules go (keep_exe: the executable stays, unrelocated). */
void dbg_drop_process(struct dbg *d);
void dbg_drop_modules(struct dbg *d, int keep_exe);
/* dbg_module.c: a module added for path (m NULL: no ELF file, remembered);
 * a path the kernel marks as a file deleted since it was mapped or run
 * ("/p (deleted)", and no file is so named): the mark taken away, 1;
 * else 0, path unchanged. */
struct dbg_module *dbg_add_module(struct dbg *d, struct sym_module *m, const char *path);
int dbg_path_undelete(char *path);
/* core/session/dbg_linkmap.c: loaded libraries renamed by the path the
 * dynamic linker opened (its link map's names), as lldb-16 names them. */
void dbg_link_map_names(struct dbg *d);
/* A loaded trace's thread where its trace ends, with the callers its
 * calls and returns show (dbg_inline.c). */
int dbg_pm_frames(struct dbg *d, pid_t tid, struct dbg_frame *out, int max,
		  struct ptdb_err *err);
/* Counts a hit if addr is a planted enabled user location. */
int dbg_bp_hit(struct dbg *d, pid_t tid, uint64_t addr, unsigned *id, unsigned *loc);
/* A replayed stop at ip, an enabled location: counts the hit (dbg_bp.c). */
int dbg_bp_replay_hit(struct dbg *d, uint64_t ip, unsigned *id, unsigned *loc);
/* dbg_cond.c: whether a hit of bp's location by tid stops: 0 not a hit
 * (another thread, condition false), 1 stop, 2 a hit ignored (-i).  A
 * condition that cannot be evaluated stops, with d->stop_error saying
 * why. */
int dbg_bp_passes(struct dbg *d, struct dbg_bp *bp, pid_t tid, int loc);
/* Whether cond is true in tid's frame 0: 1 true, 0 false, -1 could not
 * be evaluated (*why says). */
int dbg_cond_true(struct dbg *d, const char *cond, pid_t tid, struct ptdb_err *why);
/* Decodes the instruction at pc of the live process (breakpoints masked);
 * 0 ok, -1 unreadable or undecodable. */
int dbg_insn_at(struct dbg *d, uint64_t pc, struct disasm_insn *in);
/* The frames the unwinder finds in tid's stack, without inlined calls
 * (the live process; dbg_frames adds them). */
int dbg_frames_concrete(struct dbg *d, pid_t tid, struct dbg_frame *out, int max,
			struct ptdb_err *err);
/* An inlined frame's symbol context (core/session/dbg_inline.c): "mod`f [inlined]
 * g at file:line", "mod`f at file:line" for the function itself. */
char *dbg_format_inlined(struct dbg_module *m, const struct dbg_frame *f,
			 const struct sym_loc *loc, char *buf, size_t n);
/* One frame of a live thread's stack (core/session/dbg_unwind.c): CFI where a
 * module has it, else a return address only where one provably is (after
 * a call instruction): at a ret or a function's entry, through the rbp
 * chain, or (frame 0) at the top of the stack.  look is pc, or pc - 1 for
 * a caller frame.  0 ok, -1 no caller found. */
int dbg_unwind_step(struct dbg *d, uint64_t pc, uint64_t look, uint64_t rsp, uint64_t rbp,
		    int first, uint64_t *cpc, uint64_t *crsp, uint64_t *crbp);
/* The same step for a frame's registers (in->r[16] is its look address):
 * by the CFI's rules (sym_unwind_step_regs), else the caller
 * dbg_unwind_step finds, its callee-saved registers (rbx, r12-r15)
 * unchanged, as LLDB assumes of a frame without unwind information.
 * 0 ok, -1 no caller. */
int dbg_unwind_regs(struct dbg *d, const struct sym_regs *in, int first, struct sym_regs *out);
/* Applies the signal policy ("process handle") to a signal stop: returns
 * 1 with *stop filled when it stops the process, 0 when the signal goes on
 * (passed or suppressed, told later when notify). */
int dbg_signal_stop(struct dbg *d, const struct target_stop *ts, struct dbg_stop *stop);
/* The stops every run loop reports alike: an exit, an exec, a requested
 * interrupt.  1 with *stop filled, 0 for any other stop. */
int dbg_end_stop(struct dbg *d, const struct target_stop *ts, struct dbg_stop *stop);

/* Runs the process natively as rq asks (traced: dbg_trace_run). */
int dbg_run_native(struct dbg *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		   struct ptdb_err *err);
/* core/session/dbg_run.c, for stepping (dbg_step.c): a run as the session
 * makes it (the trace session's collector when tracing, else checking
 * watchpoints, else natively), RW_* as dbg_run_native; what a stop the
 * user sees updates (selection, modules, a kept trace); a thread's
 * registers; "Process must be launched." when there is no process. */
int dbg_run_wait(struct dbg *d, pid_t step_tid, pid_t tid, const struct dbg_goal *goals,
		 int ngoals, struct dbg_stop *stop, struct ptdb_err *err);
void dbg_user_stop(struct dbg *d, struct dbg_stop *stop);
/* dbg_hits.c: the threads at breakpoints at a stop for one (d->bp_stops);
 * the thread to select */
pid_t dbg_bp_stops_take(struct dbg *d, struct dbg_stop *stop, pid_t prev);
/* dbg_plan.c: pending finishes and line steps (d->pend_out, newest on
 * top).  prune drops the stale ones; at stop (NULL: none) of a command's
 * own that finds its thread's step stale, the stop is reported as that
 * step's (LLDB reports the plans its stop completed). */
void dbg_plans_prune(struct dbg *d, struct dbg_stop *stop);
void dbg_plans_clear(struct dbg *d);
void dbg_pend_out_push(struct dbg *d, pid_t tid, const struct dbg_goal *g);
void dbg_plan_push_step(struct dbg *d, pid_t tid, const struct dbg_step_plan *p, size_t size);
/* dbg_step.c: a pending line step's reason, whether it is stale (LLDB's
 * IsPlanStale), going on with it (0 it stopped, 1 another stop came
 * first, -1); a finish's own stop at pc (out_done) */
enum dbg_reason dbg_step_plan_reason(const struct dbg_step_plan *p);
int dbg_step_plan_stale(struct dbg *d, pid_t tid, struct dbg_step_plan *p);
int dbg_step_resume(struct dbg *d, pid_t tid, struct dbg_step_plan *p,
		    struct dbg_stop *stop, struct ptdb_err *err);
void dbg_step_out_stop(struct dbg *d, struct dbg_stop *stop, pid_t tid, uint64_t pc);
/* dbg_step.c, for finish and until (dbg_finish.c): a run to any of goals
 * (planted for it); one instruction of tid (over: a call run to its
 * return), RW_USER or RW_STEPPED; a command's own stop reported; the end
 * of a command's run (rr: -1, RW_USER reported, else its own stop why) */
int dbg_run_to(struct dbg *d, pid_t tid, const struct dbg_goal *goals, int n,
	       struct dbg_stop *stop, struct ptdb_err *err);
/* dbg_run.c: dbg_run_wait for a plan whose goal may be where a user
 * breakpoint is (d->goal_bp); dbg_run_to so */
int dbg_run_plan(struct dbg *d, pid_t step_tid, pid_t tid, const struct dbg_goal *goals,
		 int ngoals, struct dbg_stop *stop, struct ptdb_err *err);
int dbg_run_to_plan(struct dbg *d, pid_t tid, const struct dbg_goal *goals, int n,
		    struct dbg_stop *stop, struct ptdb_err *err);
int dbg_one_insn(struct dbg *d, pid_t tid, int over, struct dbg_stop *stop,
		 struct ptdb_err *err);
void dbg_step_done(struct dbg *d, struct dbg_stop *stop, pid_t tid, enum dbg_reason why);
int dbg_step_end(struct dbg *d, int rr, struct dbg_stop *stop, pid_t tid,
		 enum dbg_reason why);
int dbg_thread_regs(struct dbg *d, pid_t tid, struct user_regs_struct *r, struct ptdb_err *err);
int dbg_check_alive(struct dbg *d, struct ptdb_err *err);
/* The same checking the watchpoints (core/session/dbg_watch.c); -2 when none is
 * enabled (the caller runs the process). */
int dbg_watch_run(struct dbg *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		  struct ptdb_err *err);

/* dbg_watch.c: thread t arrived at r->rip (after a step of the watchpoints'
 * checking, or a turn in the code cache): RW_USER at a breakpoint (*stop
 * filled), RW_GOAL at a goal of tid, else DBG_WA_ON (go on; the modules
 * refreshed at the load breakpoint).  DBG_WA_ON is none of the RW_*
 * (RW_USER is 0). */
enum { DBG_WA_ON = -13 };
int dbg_watch_arrive(struct dbg *d, pid_t t, pid_t tid, const struct user_regs_struct *r,
		     const struct dbg_goal *goals, int ngoals, struct dbg_stop *stop);

/* core/session/dbg_watch_cache.c: one turn of thread t in the code cache
 * while watchpoints are checked (the ranges rg): DBG_WC_STEP (the
 * instruction at t's pc is the single-stepping's: it may touch a range,
 * the cache does not run it, or the cache is not used), DBG_WC_NEXT (t's
 * turn is over: the next thread's), DBG_WC_EVENT (*ts happened to t, its
 * addresses original), an RW_* result (*stop filled), or -1.  Its end
 * (the cache leaves the inferior): dbg_watch_cache_end. */
enum { DBG_WC_STEP = -10, DBG_WC_NEXT = -11, DBG_WC_EVENT = -12 };
struct dbg_cache;
struct dbg_cache_wrange;
int dbg_watch_cache_turn(struct dbg *d, struct dbg_cache **cc, pid_t t, pid_t tid,
			 const struct dbg_goal *goals, int ngoals, const struct dbg_cache_wrange *rg,
			 int nrg, struct target_stop *ts, struct dbg_stop *stop, struct ptdb_err *err);
void dbg_watch_cache_end(struct dbg *d, struct dbg_cache *cc);

/* The trace session's functions the session calls (dbg_source,
 * dbg_trace_run, ...; it calls no function of the session). */
#include "core/tracing/dbg_trace_int.h"

#endif
