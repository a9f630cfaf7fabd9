/* target/target.h: ptdb's process-control layer.  Launches or attaches to an
 * x86-64 Linux inferior with ptrace (PTRACE_SEIZE), all-stop: whenever
 * target_wait returns, every thread is in ptrace-stop.  Provides registers,
 * memory (breakpoint bytes masked), refcounted int3 breakpoints with
 * transparent step-over, thread bookkeeping, /proc maps and signal text.
 * Functions returning int: >= 0 success, < 0 failure with err filled;
 * TARGET_ERR_NOPROC (-2) means the process is gone (exited, killed,
 * detached; err's code is then PTDB_E_NO_PROCESS): the caller words it
 * ("Process must be launched."). */
#ifndef PTDB_TARGET_TARGET_H
#define PTDB_TARGET_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "base/err.h"

#define TARGET_ERR_NOPROC (-2)

struct target_proc; /* a traced process */

struct target_thread_info {
	pid_t tid;
	unsigned index;    /* 1-based, never reused within a process */
	char name[32];     /* /proc/PID/task/TID/comm */
};

enum target_stop_kind {
	TARGET_STOP_NONE,
	TARGET_STOP_BREAKPOINT, /* pc rewound to the breakpoint address */
	TARGET_STOP_STEP,       /* single-step trace trap */
	TARGET_STOP_SIGNAL,     /* signal-delivery stop; re-delivered on resume */
	TARGET_STOP_EXITED,     /* whole process exited; exit_status valid */
	TARGET_STOP_SIGNALED,   /* whole process killed by signo */
	TARGET_STOP_EXEC,       /* the process called execve (not the launch) */
	TARGET_STOP_INTERRUPT   /* target_interrupt() or an external SIGSTOP */
};

struct target_stop {
	enum target_stop_kind kind;
	pid_t tid;        /* thread that stopped (leader for EXITED/SIGNALED) */
	int signo;
	int si_code;
	uint64_t addr;    /* pc; for SIGSEGV/SIGBUS/SIGFPE/SIGILL the si_addr */
	int exit_status;
	pid_t sender;     /* INTERRUPT: the SIGSTOP's sender (ptdb's own pid:
			   * target_interrupt's) */
};

struct target_launch_opts {
	const char *path;
	char *const *argv;   /* NULL = { path, NULL } */
	char *const *envp;   /* NULL = environ */
	int disable_aslr;
	/* stdio nonzero: the program's fds 0, 1, 2 become fds[0..2] (each
	 * open in ptdb; -1 leaves that one as ptdb's), and it runs in a
	 * session of its own, so a terminal's Ctrl-C reaches ptdb only;
	 * among fds, a terminal (a pseudo-terminal's slave) becomes its
	 * controlling terminal. */
	int stdio;
	int fds[3];
};

/* A pseudo-terminal for a launched program (target_pty.c): *master for
 * ptdb (close-on-exec), *slave for the program's stdio, with like (if
 * >= 0, a terminal) giving its settings and window size.  0, or -1 with
 * err. */
int target_pty_open(int like, int *master, int *slave, struct ptdb_err *err);

/* Notifications for trace collectors; any pointer may be NULL. */
struct target_hooks {
	void (*will_resume)(void *ctx, struct target_proc *p);
	void (*did_stop)(void *ctx, struct target_proc *p,
			 const struct target_stop *stop);
	void (*thread_created)(void *ctx, struct target_proc *p, pid_t tid,
			       unsigned index);
	void (*thread_exited)(void *ctx, struct target_proc *p, pid_t tid,
			      unsigned index);
	void *ctx;
};

struct target_map {
	uint64_t start, end, offset;
	char perms[5];
	char path[256];
};

/* Lifecycle.  target_launch forks, seizes, execs (no shell) and returns with
 * the process stopped at its exec; exec failures are errors (child reaped). */
int target_launch(const struct target_launch_opts *o, struct target_proc **out,
		  struct ptdb_err *err);
int target_attach(pid_t pid, struct target_proc **out, struct ptdb_err *err);
int target_detach(struct target_proc *p, struct ptdb_err *err);
int target_kill(struct target_proc *p); /* kills and reaps; 0 or NOPROC */
void target_free(struct target_proc *p); /* kill if launched, else detach */
pid_t target_pid(const struct target_proc *p);
int target_is_alive(const struct target_proc *p);  /* traced and not exited */
int target_exited(const struct target_proc *p);    /* exit/kill/detach seen */
/* Once the process has ended (exited or killed, not detached): 1 with *st
 * its end, as a wait reported it (or would have), else 0. */
int target_end_stop(const struct target_proc *p, struct target_stop *st);
int target_was_launched(const struct target_proc *p);
/* At a fork: follow the child (nonzero) instead of the parent.  Following
 * the child detaches the parent with its breakpoints removed and makes the
 * child the process (its pid, one thread); it applies only to a parent
 * with one thread, else the child is let go as when following the parent. */
void target_set_follow_fork(struct target_proc *p, int child);
void target_set_hooks(struct target_proc *p, const struct target_hooks *h);

/* Threads, ordered by index; returns the total count (may exceed max). */
/* The processes whose command name, or the basename of whose executable
 * or argv[0], is name, and that can be attached (not this process, not a
 * zombie, not traced already): up to max pids; the count, -1 when /proc
 * cannot be read. */
int target_pids_named(const char *name, pid_t *pids, int max);
int target_threads(struct target_proc *p, struct target_thread_info *out,
		   int max);
/* Index of tid, 0 if unknown. */
unsigned target_thread_index(const struct target_proc *p, pid_t tid);

/* Registers of a stopped thread. */
int target_get_regs(struct target_proc *p, pid_t tid,
		    struct user_regs_struct *r, struct ptdb_err *err);
int target_set_regs(struct target_proc *p, pid_t tid,
		    const struct user_regs_struct *r, struct ptdb_err *err);
int target_get_fpregs(struct target_proc *p, pid_t tid,
		      struct user_fpregs_struct *r, struct ptdb_err *err);
int target_set_fpregs(struct target_proc *p, pid_t tid,
		      const struct user_fpregs_struct *r, struct ptdb_err *err);
/* The thread's whole XSAVE area (x87, SSE, AVX, AVX-512): *len in is the
 * buffer's size, out the area's. */
int target_get_xstate(struct target_proc *p, pid_t tid, void *buf, size_t *len,
		      struct ptdb_err *err);
int target_set_xstate(struct target_proc *p, pid_t tid, const void *buf, size_t len,
		      struct ptdb_err *err);

/* Memory.  Reads show original bytes under planted breakpoints; writes
 * over a breakpoint update its saved byte and keep the int3. */
int target_read_mem(struct target_proc *p, uint64_t addr, void *buf, size_t n,
		    struct ptdb_err *err);
int target_write_mem(struct target_proc *p, uint64_t addr, const void *buf,
		     size_t n, struct ptdb_err *err);

/* Software breakpoints, refcounted by address. */
int target_bp_insert(struct target_proc *p, uint64_t addr,
		     struct ptdb_err *err);
int target_bp_remove(struct target_proc *p, uint64_t addr,
		     struct ptdb_err *err);
int target_bp_planted(const struct target_proc *p, uint64_t addr);
/* The planted breakpoint at addr out of memory, its original byte back
 * (lift nonzero), or its int3 in again (0), the bookkeeping unchanged:
 * an instruction that reads that code runs meanwhile.  0, or -1 when the
 * write failed.  _refs: how many inserts hold the one at addr (0 none). */
int target_bp_lift(struct target_proc *p, uint64_t addr, int lift);
int target_bp_refs(const struct target_proc *p, uint64_t addr);
/* While the process is stopped for the user: the breakpoint bytes taken
 * out of memory (and any SIGTRAP an int3 left queued taken, its stop
 * queued for the next resume or step to report), so that a
 * ptdb killed meanwhile leaves the process clean code to run, as gdb
 * does; the next resume (or step) puts them back. */
void target_park(struct target_proc *p);

/* All-stop execution control.  resume/step return once the threads run;
 * target_wait blocks for the next user-visible stop and stops every thread.
 * Events that race with the stop are queued and reported by later
 * resume+wait pairs without running anything. */
int target_resume(struct target_proc *p, struct ptdb_err *err);
int target_step(struct target_proc *p, pid_t tid, struct ptdb_err *err);
int target_wait(struct target_proc *p, struct target_stop *stop,
		struct ptdb_err *err);
/* 0 if the process is dead by now, not yet reaped (killed from outside). */
int target_alive_now(const struct target_proc *p);
/* While stopped: has the process died (SIGKILL from outside)?  1 with *st
 * its exit (the process is gone), else 0; consumes nothing else.  Its
 * threads on their way out are waited for (their ends, not a time); -1
 * with err when they all die and its end does not come (30 s). */
int target_poll_exit(struct target_proc *p, struct target_stop *st, struct ptdb_err *err);
/* Stops the running process with a SIGSTOP (the next stop reported is
 * TARGET_STOP_INTERRUPT, unless a stop of another kind comes first: the
 * SIGSTOP then still queued is swallowed when it arrives, and an
 * interrupt stop queued meanwhile dropped).  Only kill(2) and a flag:
 * safe from a signal handler while the inferior runs. */
int target_interrupt(struct target_proc *p);
/* While stopped after a reported stop: a breakpoint stop of thread tid
 * that came at the same time (queued, or its int3's SIGTRAP still in the
 * kernel): 1 with *addr (the breakpoint's), else 0.  It stays queued until
 * target_drop_event takes it (then the thread, at the breakpoint, steps
 * over it at the next resume, its stop not reported again). */
int target_queued_bp(struct target_proc *p, pid_t tid, uint64_t *addr);
void target_drop_event(struct target_proc *p, pid_t tid);
/* Signal delivered to tid on its next resume; 0 suppresses. */
void target_set_pending_signal(struct target_proc *p, pid_t tid, int sig);
int target_pending_signal(const struct target_proc *p, pid_t tid);
/* Gives signal sig (one whose stop ptdb took while tid already carried
 * another to its resume) back to the kernel for thread tid: pending
 * again, it stops tid once more after the one carried is delivered (its
 * siginfo then says ptdb sent it).  0, or -1. */
int target_thread_raise(struct target_proc *p, pid_t tid, int sig);
/* Blocks (block 1) or unblocks signal sig in the mask of thread tid,
 * stopped: 1 if that changed the mask, 0 if it was so already, -1 on
 * error.  (Every thread recomputes its pending signals as it resumes.) */
int target_thread_block_signal(struct target_proc *p, pid_t tid, int sig, int block);
/* Signals (bit n-1 for signal n) ptdb blocks in thread tid's mask, not
 * the program, as it makes a task (fork, clone, clone3) or execs: the
 * new task, or the new image, starts with them off, as the thread's own
 * mask would have them (taken off at its first stop; 0: none). */
void target_thread_pass_mask(struct target_proc *p, pid_t tid, uint64_t bits);
/* Thread tid, stopped at a SYSCALL instruction with no breakpoint there,
 * enters the call (PTRACE_SYSCALL): 1, stopped inside it (a resume runs
 * it); 0 when something else stopped it first (its event reported next,
 * as any); -1 if it cannot (not stopped, a signal or event carried, a
 * breakpoint at its pc). */
int target_thread_enter_call(struct target_proc *p, pid_t tid);
/* The kernel's signal sets of thread tid (its /proc status SigPnd, SigBlk,
 * SigCgt, SigIgn: bit n-1 for signal n); -1 if it cannot be read. */
struct target_sigsets {
	uint64_t pending, blocked, caught, ignored;
};
int target_thread_sigsets(pid_t pid, pid_t tid, struct target_sigsets *s);
uint64_t target_stop_id(const struct target_proc *p);

/* Per-thread control for trace collectors.  Between begin and end the
 * caller runs threads individually: target_thread_step single-steps one
 * (the others stay as they are, stopped or running) and waits for that
 * thread only; target_thread_cont lets one run on its own; events of
 * running threads come from target_thread_event (block: wait for one; 1 =
 * *st filled — kind TARGET_STOP_NONE when a thread only started, stopped
 * or exited — 0 none).  target_thread_end stops every thread again (queued
 * events are reported later), counts a stop, and returns 1 if the process
 * died (exit_st filled). */
void target_thread_begin(struct target_proc *p);
int target_thread_stopped(const struct target_proc *p, pid_t tid);
int target_thread_step(struct target_proc *p, pid_t tid, struct target_stop *st,
		       struct ptdb_err *err);
int target_thread_cont(struct target_proc *p, pid_t tid, struct ptdb_err *err);
/* Lets tid run without stepping over a breakpoint at its pc: for a thread
 * inside (or entering) a system call, whose pc does not execute next. */
int target_thread_cont_raw(struct target_proc *p, pid_t tid, struct ptdb_err *err);
int target_thread_event(struct target_proc *p, int block, struct target_stop *st);
/* Single-steps tid without waiting: its stop (TARGET_STOP_STEP, or
 * another event first) comes from target_thread_event, so several threads
 * step at once (one blocking in a system call does not hold the others).
 * -1 if it is not stopped, holds an event or sits on a breakpoint. */
int target_thread_step_start(struct target_proc *p, pid_t tid);
/* Stops running thread tid (an interrupt stop: target_thread_event reports
 * it as TARGET_STOP_NONE); one already stopped stops again on its next
 * resume, before it runs. */
int target_thread_interrupt(struct target_proc *p, pid_t tid);
/* Gives back an event taken from target_thread_event: reported again by
 * a later target_thread_event (0), after any its thread holds already
 * (a thread holds up to 4, reported in the order given), or -1 if its
 * thread is gone, running or holds 4. */
int target_thread_requeue(struct target_proc *p, const struct target_stop *st);
/* 1 when thread tid holds a queued event, not yet reported (a stop that
 * raced another's): the next target_thread_step or _event of it returns
 * that event instead of running it, so whoever means to run tid for its
 * own purposes (an injected system call) must leave it be. */
int target_thread_has_event(const struct target_proc *p, pid_t tid);
/* Whoever sets registers of stopped thread tid to run it for its own
 * purposes (an injected system call) calls this first.  A thread stopped
 * at a clone, fork or exec event is still inside that call: the kernel
 * writes the call's result to rax only as the thread resumes, over the
 * registers set, and the registers put back afterwards would hold the
 * call's entry value (-ENOSYS) in place of its result.  Such a thread is
 * run to the call's end first (immediate: the call's work is done), its
 * result in rax then.  0 when the registers can be set; -1 when not: a
 * thread stopped as it entered a call (the call has not run, and may
 * wait for the threads held), or one that stopped otherwise on its way
 * to the call's end (that stop queued on it, reported next). */
int target_thread_leave_call(struct target_proc *p, pid_t tid);
int target_thread_end(struct target_proc *p, struct target_stop *exit_st);

/* /proc/PID/maps; caller frees *out. */
int target_maps(struct target_proc *p, struct target_map **out, int *n,
		struct ptdb_err *err);

/* LLDB-style text, e.g. "integer divide by zero" for SIGFPE/FPE_INTDIV;
 * falls back to the signal name ("SIGUSR1"). Never NULL. */
const char *target_signal_description(int signo, int si_code);
const char *target_signal_name(int signo); /* "SIGSEGV", NULL if unknown */

/* x86 debug registers (target_debugreg.c).  A slot watches len bytes
 * (1, 2, 4, 8; aligned) at addr for writes (rw 1) or reads and writes
 * (rw 3); x86 cannot watch reads alone. */
struct target_dr_slot {
	int enabled;
	uint64_t addr;
	unsigned len;
	unsigned rw;
};
/* DR7 for the four slots (local enable bits, R/W and LEN fields). */
uint64_t target_dr7_encode(const struct target_dr_slot slot[4]);
/* Programs DR0-DR3 and DR7 on every thread, and on threads created
 * later at their first stop. */
int target_dr_set(struct target_proc *p, const struct target_dr_slot slot[4],
		  struct ptdb_err *err);
/* Reads debug register i (0-7) of a stopped thread. */
int target_dr_get(struct target_proc *p, pid_t tid, int i, uint64_t *v, struct ptdb_err *err);
int target_dr_clear_status(struct target_proc *p, pid_t tid);
/* Whether this machine delivers debug-register traps: a forked child
 * watched by DR0 writes a variable; 1 the trap came, 0 not, -1 the probe
 * could not run. */
int target_dr_probe(void);

#endif
