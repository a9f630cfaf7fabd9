/* target/target_int.h: private state shared by the target .c files
 * (process, thread and breakpoint records). Not for use outside target/. */
#ifndef PTDB_TARGET_INT_H
#define PTDB_TARGET_INT_H

#include "target/target.h"

#include <signal.h>

#define TARGET_NEV 4	/* stops queued on a thread at most */

struct target_thread {
	pid_t tid;
	unsigned index;
	int stopped;        /* in ptrace-stop */
	int starting;       /* clone seen, initial stop not yet */
	int stepping;       /* last resumed with PTRACE_SINGLESTEP */
	int pending_sig;    /* delivered at next resume */
	/* stopped inside a system call whose result the kernel writes to
	 * rax only as the thread resumes (target_thread_leave_call) */
	int in_call;        /* 0, TARGET_IN_EVENT, TARGET_IN_ENTRY */
	/* signals ptdb blocks in its mask that a task it makes (fork,
	 * clone) or the image it execs must not inherit
	 * (target_thread_pass_mask); the new thread's, to take off at its
	 * first stop */
	uint64_t pass_mask, drop_mask;
	/* stops queued, not yet reported, in order (queued[0] first): one
	 * that raced another's, and those a collector gives back (an
	 * interrupt and a signal of one thread, taken as it was stepped) */
	int has_event;      /* how many (0..TARGET_NEV) */
	struct target_stop queued[TARGET_NEV];
	struct target_proc *proc;	/* its process (a resume unparks it) */
};

struct target_bp {
	uint64_t addr;
	unsigned char orig;
	int refs;
};

#define TARGET_IN_EVENT 1	/* a clone, fork or exec event stop */
#define TARGET_IN_ENTRY 2	/* a syscall-entry stop: the call not run */

#define TARGET_GONE 1024	/* removed breakpoints remembered */

struct target_proc {
	pid_t pid;
	int launched;
	int alive;           /* threads traced and process not exited */
	int exit_reported;
	struct target_stop exit_stop;
	int running;         /* resumed; target_wait expected */
	int step_mode;       /* only step_tid was resumed */
	int one_by_one;      /* between target_thread_begin() and _end() */
	pid_t step_tid;
	int memfd;
	struct target_thread *threads;
	int nthreads, cap;
	unsigned next_index;
	int follow_child;	/* target_set_follow_fork */
	struct target_bp *bps;
	int nbps, bpcap;
	/* breakpoints removed lately: a thread may have trapped on one just
	 * before it went (its SIGTRAP is then not the program's own).  Room
	 * for a run's worth: the collector removes one per thread in a system
	 * call at once when a run ends, and tens of threads may be there. */
	uint64_t gone[TARGET_GONE];
	unsigned ngone;
	int parked;          /* breakpoint bytes out of memory while the user
			      * looks (target_park): a ptdb killed meanwhile
			      * leaves clean code behind */
	int stepover_active; /* bp at stepover_addr lifted while stepping */
	uint64_t stepover_addr;
	pid_t stepover_tid;
	uint64_t stop_id;
	/* target_interrupt's SIGSTOP is wanted as a stop: set by it (from a
	 * signal handler too), cleared once a stop is reported.  A SIGSTOP
	 * of ptdb's that comes after (the process stopped for another reason
	 * first, the signal was still queued) is swallowed, never reported
	 * at a later resume. */
	volatile sig_atomic_t interrupt_wanted;
	struct target_hooks hooks;
	uint64_t dr[4], dr7;	/* debug registers every thread gets
				 * (target_debugreg.c); dr7 0: none */
};

/* TRACEFORK: a forked child starts traced so that the breakpoints its copy
 * of memory holds are removed before it is let go (target_run.c);
 * without it the child would die of SIGTRAP at the first one it runs. */
#define TARGET_PTRACE_OPTS (PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE | \
	PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK)
/* An attached process is the user's own (an editor with unsaved work):
 * it must survive ptdb being killed, so no EXITKILL. */
#define TARGET_PTRACE_OPTS_ATTACH (TARGET_PTRACE_OPTS & ~PTRACE_O_EXITKILL)

/* Takes bits off the mask of task tid, in a ptrace-stop (target_proc.c). */
void target_drop_mask(pid_t tid, uint64_t bits);

/* target_detach.c */
int target_is_stop_signal(int sig);
/* SIGCONT to a detached pid that has a stop signal pending or is stopped. */
void target_leave_running(pid_t pid);
/* A forked child let go: its first stop taken, its copy of the
 * breakpoints and ptdb's bits in its mask removed, detached. */
void target_release_fork_child(struct target_proc *p, pid_t parent, pid_t child);

/* target_thread.c: a thread's queue of stops.  _push appends (-1 when
 * full), _pop takes the first into *st, _remove drops the i-th. */
int target_ev_push(struct target_thread *t, const struct target_stop *st);
void target_ev_pop(struct target_thread *t, struct target_stop *st);
void target_ev_remove(struct target_thread *t, int i);

/* target_proc.c */
struct target_thread *target_find_thread(const struct target_proc *p,
					 pid_t tid);
struct target_thread *target_add_thread(struct target_proc *p, pid_t tid);
void target_remove_thread(struct target_proc *p, pid_t tid);
int target_open_mem(struct target_proc *p);
int target_nproc_err(const struct target_proc *p, struct ptdb_err *err);

/* target_mem.c */
struct target_bp *target_find_bp(const struct target_proc *p, uint64_t addr);
int target_raw_write(struct target_proc *p, uint64_t addr, const void *buf,
		     size_t n);
int target_raw_read(struct target_proc *p, uint64_t addr, void *buf,
		    size_t n);
void target_unplant_all(struct target_proc *p);
/* The breakpoint bytes written back before any thread runs (no-op unless
 * parked); the original bytes re-read first (a memory write meanwhile). */
void target_unpark(struct target_proc *p);
/* Stopped threads take a SIGTRAP left queued by an int3 that raced their
 * stop (target_detach.c), its stop queued on the thread: none is left for
 * after a detach (all: even threads that hold an event already). */
void target_take_queued_traps(struct target_proc *p, int all);

/* target_run.c */
/* Queued interrupt stops of ptdb's own SIGSTOP that no interrupt wants
 * any more are dropped (the stop the interrupt asked for came first). */
void target_drop_stale_interrupts(struct target_proc *p);
enum { TARGET_EV_NONE, TARGET_EV_REPORT, TARGET_EV_EXIT };
int target_next_event(struct target_proc *p, pid_t *tid, int *status);
int target_bp_gone(const struct target_proc *p, uint64_t addr);
int target_handle_status(struct target_proc *p, pid_t tid, int status,
			 struct target_stop *st);
/* Thread tid's wait status, waited for alone (the others held, as it is
 * stepped or run into a call): handled, and a stop to report queued on
 * its thread, reported next (but for a step's own end unless queue_step:
 * the caller's to tell).  The target_handle_status code; *t the thread,
 * NULL when it (or the process) is gone. */
int target_status_alone(struct target_proc *p, pid_t tid, int status, int queue_step,
			struct target_thread **t);
int target_stop_all(struct target_proc *p, struct target_stop *exit_st);
/* target_run.c's parts of the collectors' control (target_thread.c) */
uint64_t target_thread_pc(pid_t tid);
/* cont: t is let run next, not stepped (a system call under the
 * breakpoint is then only entered, not stepped through). */
int target_step_over(struct target_proc *p, struct target_thread *t, uint64_t pc, int cont);
void target_resume_thread(struct target_thread *t);
void target_one_by_one_end(struct target_proc *p);

/* Gives tid the process's debug registers (a new thread's first stop). */
void target_dr_apply(struct target_proc *p, pid_t tid);

#endif
