/* target/target_thread.c: the trace collectors' per-thread control —
 * threads run one by one between target_thread_begin() and
 * target_thread_end(), some single-stepped, some let run on their own,
 * events waited for per thread — and whether the process has ended
 * (target_alive_now, target_poll_exit). */
#include "target/target_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int target_ev_push(struct target_thread *t, const struct target_stop *st)
{
	if (t->has_event >= TARGET_NEV)
		return -1;
	t->queued[t->has_event++] = *st;
	return 0;
}

void target_ev_remove(struct target_thread *t, int i)
{
	if (i < 0 || i >= t->has_event)
		return;
	memmove(&t->queued[i], &t->queued[i + 1], (size_t)(t->has_event - i - 1) * sizeof(t->queued[0]));
	t->has_event--;
}

void target_ev_pop(struct target_thread *t, struct target_stop *st)
{
	*st = t->queued[0];
	target_ev_remove(t, 0);
}

/* ---- per-thread control for trace collectors ----
 * Between target_thread_begin() and target_thread_end() the collector runs
 * threads one by one: some single-stepped synchronously, some let run
 * (PTRACE_CONT) on their own; events are waited for per thread. */

void target_thread_begin(struct target_proc *p)
{
	p->one_by_one = 1;
	target_drop_stale_interrupts(p);
	if (p->hooks.will_resume)
		p->hooks.will_resume(p->hooks.ctx, p);
}

int target_thread_stopped(const struct target_proc *p, pid_t tid)
{
	for (int i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			return p->threads[i].stopped && !p->threads[i].starting;
	return 0;
}

/* tid's wait status handled: 1 when it is reported in *st (the process
 * exited, or a stop to report), else 0. */
static int wait_reported(struct target_proc *p, pid_t tid, int status, struct target_stop *st)
{
	int r = target_handle_status(p, tid, status, st);

	if (r == TARGET_EV_EXIT)
		p->exit_reported = 1;
	return r == TARGET_EV_EXIT || r == TARGET_EV_REPORT;
}

int target_thread_step(struct target_proc *p, pid_t tid, struct target_stop *st,
		       struct ptdb_err *err)
{
	struct target_thread *t = target_find_thread(p, tid);
	uint64_t pc;

	memset(st, 0, sizeof(*st));
	st->tid = tid;
	if (!p->alive)
		return target_nproc_err(p, err);
	if (!t || !t->stopped)
		return ptdb_err_set(err, "thread %d is not stopped", (int)tid);
	if (t->has_event) {
		target_ev_pop(t, st);
		return 0;
	}
	pc = target_thread_pc(tid);
	if (target_find_bp(p, pc)) {
		int r = target_step_over(p, t, pc, 0);

		if (r == TARGET_EV_EXIT) {
			p->exit_reported = 1;
			*st = p->exit_stop;
			return 0;
		}
		t = target_find_thread(p, tid);
		if (!t) {
			st->kind = TARGET_STOP_NONE;	/* the thread is gone */
			return 0;
		}
		if (t->has_event) {
			target_ev_pop(t, st);
		} else {
			st->kind = TARGET_STOP_STEP;
			st->addr = target_thread_pc(tid);
		}
		return 0;
	}
	t->stepping = 1;
	target_resume_thread(t);
	for (;;) {
		int status;

		while (waitpid(tid, &status, __WALL) < 0)
			if (errno != EINTR) {
				st->kind = TARGET_STOP_NONE;
				return 0;
			}
		if (wait_reported(p, tid, status, st))
			return 0;
		t = target_find_thread(p, tid);
		if (!t) {
			st->kind = TARGET_STOP_NONE;
			st->tid = tid;
			return 0;
		}
		if (t->stopped) {	/* clone event or group stop: go on stepping */
			t->stepping = 1;
			target_resume_thread(t);
		}
	}
}

/* The stopped thread tid that a continue resumes, or NULL with *rc: an
 * error (no process: TARGET_ERR_NOPROC; not stopped: -1), or 0 when an
 * event waits (reported by the next target_thread_event). */
static struct target_thread *cont_thread(struct target_proc *p, pid_t tid, struct ptdb_err *err,
					 int *rc)
{
	struct target_thread *t = target_find_thread(p, tid);

	*rc = 0;
	if (!p->alive)
		*rc = target_nproc_err(p, err);
	else if (!t || !t->stopped || t->starting)
		*rc = ptdb_err_set(err, "thread %d is not stopped", (int)tid);
	else if (!t->has_event)
		return t;
	return NULL;
}

int target_thread_cont(struct target_proc *p, pid_t tid, struct ptdb_err *err)
{
	int rc;
	struct target_thread *t = cont_thread(p, tid, err, &rc);

	if (!t)
		return rc;
	{
		struct user_regs_struct r;

		/* stopped inside a system call (orig_rax >= 0): its pc does
		 * not execute next, and stepping would block with the call */
		if (ptrace(PTRACE_GETREGS, tid, 0, &r) == 0 && (long)r.orig_rax >= 0) {
			t->stepping = 0;
			target_resume_thread(t);
			return 0;
		}
	}
	if (target_find_bp(p, target_thread_pc(tid))) {
		/* stepped over (a system call only entered), then let run */
		if (target_step_over(p, t, target_thread_pc(tid), 1) == TARGET_EV_EXIT) {
			p->exit_reported = 1;
			return 0;
		}
		t = target_find_thread(p, tid);
		if (!t || t->has_event || !t->stopped)
			return 0;	/* gone, or its stop is reported next */
	}
	t->stepping = 0;
	target_resume_thread(t);
	return 0;
}

int target_thread_enter_call(struct target_proc *p, pid_t tid)
{
	struct target_thread *t = target_find_thread(p, tid);
	struct __ptrace_syscall_info si;
	struct target_stop ev;
	int st, r;

	if (!t || !t->stopped || t->has_event || t->pending_sig || target_find_bp(p, target_thread_pc(tid)))
		return -1;
	t->stopped = 0;
	if (ptrace(PTRACE_SYSCALL, tid, 0, 0) < 0) {
		t->stopped = 1;
		return -1;
	}
	while ((r = waitpid(tid, &st, __WALL)) < 0 && errno == EINTR)
		;
	if (r < 0)
		return 0;
	if (WIFSTOPPED(st) && (WSTOPSIG(st) & 0x7f) == SIGTRAP &&
	    ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(si), &si) > 0 && si.op == PTRACE_SYSCALL_INFO_ENTRY) {
		t->stopped = 1;
		return 1;
	}
	/* (anything else: handled as any stop, its event reported next) */
	r = target_handle_status(p, tid, st, &ev);
	if (r == TARGET_EV_EXIT)
		p->exit_reported = 1;
	else if (r == TARGET_EV_REPORT && (t = target_find_thread(p, tid)))
		target_ev_push(t, &ev);
	return 0;
}

int target_thread_cont_raw(struct target_proc *p, pid_t tid, struct ptdb_err *err)
{
	int rc;
	struct target_thread *t = cont_thread(p, tid, err, &rc);

	if (!t)
		return rc;
	t->stepping = 0;
	target_resume_thread(t);
	return 0;
}

int target_thread_event(struct target_proc *p, int block, struct target_stop *st)
{
	memset(st, 0, sizeof(*st));
	if (!p->alive) {
		*st = p->exit_stop;
		return 1;
	}
	for (int i = 0; i < p->nthreads; i++) {
		struct target_thread *t = &p->threads[i];

		if (t->has_event && t->stopped) {
			target_ev_pop(t, st);
			return 1;
		}
	}
	for (;;) {
		int status = 0, any = 0;
		pid_t tid = 0;

		for (int i = 0; i < p->nthreads && !tid; i++) {
			struct target_thread *t = &p->threads[i];

			if (t->stopped && !t->starting)
				continue;
			any = 1;
			if (waitpid(t->tid, &status, __WALL | WNOHANG) == t->tid)
				tid = t->tid;
		}
		if (!tid && (!block || !any))
			return 0;
		if (!tid && target_next_event(p, &tid, &status) < 0)
			return 0;
		if (wait_reported(p, tid, status, st))
			return 1;
		st->kind = TARGET_STOP_NONE;	/* a thread started, stopped or left */
		st->tid = tid;
		return 1;
	}
}

/* tid has exited and its end waits to be reaped (nothing is consumed). */
static int ended(pid_t tid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)tid, &si, WEXITED | WNOHANG | WNOWAIT | __WALL) == 0 &&
	       si.si_pid == tid;
}

int target_alive_now(const struct target_proc *p)
{
	return p->alive && !ended(p->pid);
}

/* Is thread tid on its way out: SIGKILL pending for it (a kill from
 * outside puts it in every thread's set at once), exiting (PF_EXITING in
 * the flags of its stat), a zombie, or gone? */
static int dying(pid_t pid, pid_t tid)
{
	char path[80], buf[512], *q, state = 0;
	unsigned long flags = 0;
	struct target_sigsets s;
	ssize_t n;
	int fd;

	if (target_thread_sigsets(pid, tid, &s) < 0)
		return 1;
	if (s.pending & (1ull << (SIGKILL - 1)))
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	q = strrchr(buf, ')');	/* (the name may hold anything) */
	if (!q || sscanf(q + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
		return 0;
	return state == 'Z' || state == 'X' || (flags & 0x4);
}

/* Takes the ends of the threads but the leader that are there (only ends
 * are taken: any other event stays for the next wait). */
static void reap_ended(struct target_proc *p, struct target_stop *st)
{
	int status;

	for (int i = p->nthreads - 1; i >= 0; i--) {
		pid_t tid = p->threads[i].tid;

		if (tid != p->pid && ended(tid) && waitpid(tid, &status, __WALL | WNOHANG) == tid)
			target_handle_status(p, tid, status, st);
	}
}

#define TARGET_END_WAIT_S 30	/* a safety net only (see await_end) */

/* Killed from outside, the threads are on their way out: their ends come
 * with nothing else to wait for.  Each end sends ptdb SIGCHLD (blocked
 * meanwhile: one that comes between a look and the wait is pending, not
 * missed); the others' ends are taken as they come, until the leader's
 * is there.  The bound is a safety net, not a wait: a process whose
 * threads all die and whose end does not come within TARGET_END_WAIT_S
 * is an error (-1 with err), never taken for a live one. */
static int await_end(struct target_proc *p, struct target_stop *st, struct ptdb_err *err)
{
	struct timespec now, until;
	sigset_t chld, old;
	int rc = 0;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += TARGET_END_WAIT_S;
	for (;;) {
		struct timespec left;

		reap_ended(p, st);
		if (ended(p->pid))
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = until.tv_sec - now.tv_sec;
		left.tv_nsec = until.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		if (left.tv_sec < 0) {
			rc = ptdb_err_set(err, "process %d was killed, but its end did not come "
					  "within %d s", (int)p->pid, TARGET_END_WAIT_S);
			break;
		}
		sigtimedwait(&chld, NULL, &left);	/* (woken: look again) */
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

int target_poll_exit(struct target_proc *p, struct target_stop *st, struct ptdb_err *err)
{
	int status, all_dying = 1;

	if (!p->alive || p->running)
		return 0;
	/* the other threads die first; then the leader's end is there */
	reap_ended(p, st);
	for (int i = 0; i < p->nthreads && all_dying && !ended(p->pid); i++)
		all_dying = dying(p->pid, p->threads[i].tid);
	if (all_dying && !ended(p->pid) && await_end(p, st, err) < 0)
		return -1;
	if (!ended(p->pid) || waitpid(p->pid, &status, __WALL) != p->pid)
		return 0;
	if (target_handle_status(p, p->pid, status, st) != TARGET_EV_EXIT)
		return 0;
	p->exit_reported = 1;
	p->stop_id++;
	return 1;
}

int target_thread_end(struct target_proc *p, struct target_stop *exit_st)
{
	int r = TARGET_EV_NONE;

	if (p->alive)
		r = target_stop_all(p, exit_st);
	target_one_by_one_end(p);
	p->interrupt_wanted = 0;	/* the run is over: any interrupt has its stop */
	p->running = 0;
	p->step_mode = 0;
	p->stop_id++;
	if (r == TARGET_EV_EXIT) {
		p->exit_reported = 1;
		return 1;
	}
	return 0;
}

int target_thread_interrupt(struct target_proc *p, pid_t tid)
{
	struct target_thread *t = target_find_thread(p, tid);

	if (!p->alive || !t)
		return -1;
	return ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0 ? -1 : 0;
}

int target_thread_requeue(struct target_proc *p, const struct target_stop *st)
{
	struct target_thread *t = target_find_thread(p, st->tid);

	if (!p->alive || !t || !t->stopped)
		return -1;
	return target_ev_push(t, st);
}

int target_thread_has_event(const struct target_proc *p, pid_t tid)
{
	struct target_thread *t = target_find_thread(p, tid);

	return t && t->has_event;
}

int target_thread_leave_call(struct target_proc *p, pid_t tid)
{
	struct target_thread *t = target_find_thread(p, tid);
	int st, r;

	if (!p->alive || !t || !t->stopped || t->starting)
		return -1;
	if (t->in_call != TARGET_IN_EVENT)
		return t->in_call ? -1 : 0;
	/* (no signal given: one it holds waits for its resume) */
	if (ptrace(PTRACE_SYSCALL, tid, 0, 0) < 0)
		return -1;
	t->stopped = 0;
	while ((r = waitpid(tid, &st, __WALL)) < 0 && errno == EINTR)
		;
	if (r < 0)
		return -1;
	/* (the call's syscall-exit stop: nothing to report, in_call 0) */
	r = target_status_alone(p, tid, st, 1, &t);
	return r == TARGET_EV_NONE && WIFSTOPPED(st) && WSTOPSIG(st) == (SIGTRAP | 0x80) ? 0 : -1;
}

int target_thread_step_start(struct target_proc *p, pid_t tid)
{
	struct target_thread *t = target_find_thread(p, tid);

	if (!p->alive || !t || !t->stopped || t->starting || t->has_event ||
	    target_find_bp(p, target_thread_pc(tid)))
		return -1;
	t->stepping = 1;
	target_resume_thread(t);
	return 0;
}
