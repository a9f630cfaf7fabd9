/* target/target_run.c: all-stop execution control: resume, single-step,
 * wait (classify ptrace stops, stop the other threads, queue racing
 * events), breakpoint step-over and interrupt. No SIGCHLD handler: events
 * come from waitid/waitpid(__WALL) loops. */
#include "target/target_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

static int task_is_ours(struct target_proc *p, pid_t pid)
{
	char path[64], line[128];
	int tgid = -1;
	FILE *f;

	if (pid == p->pid || target_find_thread(p, pid))
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid == p->pid;
}

/* Next wait status of one of p's tasks; never consumes a foreign child's. */
int target_next_event(struct target_proc *p, pid_t *tid, int *status)
{
	for (;;) {
		siginfo_t si;
		pid_t r;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOWAIT | __WALL)
		    < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (si.si_pid > 0 && task_is_ours(p, si.si_pid)) {
			r = waitpid(si.si_pid, status, __WALL);
			if (r == si.si_pid) {
				*tid = r;
				return 0;
			}
			continue;
		}
		/* A foreign child is waitable: poll our own tasks. */
		for (int i = -1; i < p->nthreads; i++) {
			pid_t t = i < 0 ? p->pid : p->threads[i].tid;

			r = waitpid(t, status, __WALL | WNOHANG);
			if (r == t) {
				*tid = r;
				return 0;
			}
		}
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
}

uint64_t target_thread_pc(pid_t tid)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
		return 0;
	return r.rip;
}

static void set_pc(pid_t tid, uint64_t pc)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
		return;
	r.rip = pc;
	ptrace(PTRACE_SETREGS, tid, 0, &r);
}

static void after_exec(struct target_proc *p, pid_t tid)
{
	struct target_thread keep;
	struct target_thread *t = target_find_thread(p, tid);

	keep = *t;
	keep.tid = p->pid;
	target_drop_mask(p->pid, keep.pass_mask);
	keep.pass_mask = 0;
	for (int i = p->nthreads - 1; i >= 0; i--)
		if (p->threads[i].tid != tid)
			target_remove_thread(p, p->threads[i].tid);
	p->threads[0] = keep;
	p->nthreads = 1;
	p->nbps = 0;             /* the old image and its int3s are gone */
	p->stepover_active = 0;
	target_open_mem(p);
}

/* Following the child of a single-threaded parent stopped at its fork
 * event: the parent gets its original bytes back and is detached; the
 * child (stopped, its memory a copy with the int3s in place) becomes the
 * process, thread #1, and runs on unless a step is in progress. */
static int follow_fork_child(struct target_proc *p, pid_t parent, pid_t child)
{
	int st;

	while (waitpid(child, &st, __WALL) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFSTOPPED(st))
		return -1;
	target_drop_mask(child, target_find_thread(p, parent)->pass_mask);
	/* a breakpoint lifted in the parent for a step-over is missing from
	 * the child's copy too: planted again there below */
	int lifted = p->stepover_active && target_find_bp(p, p->stepover_addr);
	uint64_t lifted_at = p->stepover_addr;

	p->stepover_active = 0;
	for (int i = 0; i < p->nbps; i++)
		if (target_bp_planted(p, p->bps[i].addr))
			target_raw_write(p, p->bps[i].addr, &p->bps[i].orig, 1);
	ptrace(PTRACE_DETACH, parent, 0, 0);
	p->pid = child;
	p->nthreads = 0;
	p->next_index = 0;
	target_add_thread(p, child)->stopped = 1;
	target_open_mem(p);
	if (lifted) {
		unsigned char cc = 0xCC;

		target_raw_write(p, lifted_at, &cc, 1);
	}
	if (p->running && !p->step_mode)
		target_resume_thread(&p->threads[0]);
	return 0;
}

/* A SIGSTOP sent by ptdb itself (target_interrupt), not from outside. */
static int own_sigstop(const siginfo_t *si)
{
	return si->si_code <= 0 && si->si_pid == getpid();
}

static int is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
	       sig == SIGILL;
}

/* While the collector runs threads one by one, a new thread is taken at
 * its initial stop right when its parent's clone reports it, so when it
 * joins the schedule depends on the parent's progress, not on when the
 * kernel first runs it; its arrival is queued as an event of its own. */
static void new_thread_stop(struct target_proc *p, pid_t tid)
{
	struct target_stop ev;
	struct target_thread *t;
	int status;

	while (waitpid(tid, &status, __WALL) < 0)
		if (errno != EINTR)
			return;
	if (target_handle_status(p, tid, status, &ev) == TARGET_EV_EXIT)
		return;	/* (only the main thread's exit ends the process) */
	t = target_find_thread(p, tid);
	if (!t || t->has_event)
		return;
	ev.tid = tid;	/* TARGET_STOP_NONE: "a thread started" */
	target_ev_push(t, &ev);
}

/* tid exited or was killed (status): a thread goes; the process's end
 * takes every thread with it and is reported (TARGET_EV_EXIT). */
static int exited(struct target_proc *p, pid_t tid, struct target_thread *t, int status,
		  struct target_stop *st)
{
	if (tid != p->pid) {
		if (t)
			target_remove_thread(p, tid);
		return TARGET_EV_NONE;
	}
	if (WIFEXITED(status)) {
		st->kind = TARGET_STOP_EXITED;
		st->exit_status = WEXITSTATUS(status);
	} else {
		st->kind = TARGET_STOP_SIGNALED;
		st->signo = WTERMSIG(status);
	}
	while (p->nthreads > 0)
		target_remove_thread(p, p->threads[p->nthreads - 1].tid);
	p->alive = 0;
	p->running = 0;
	p->stepover_active = 0;
	p->nbps = 0;
	p->exit_stop = *st;
	return TARGET_EV_EXIT;
}

/* A ptrace event stop of tid (ev: PTRACE_EVENT_*): a new thread noted, a
 * forked child let go (or followed), an exec reported. */
static int event_stop(struct target_proc *p, pid_t tid, int ev, struct target_stop *st)
{
	struct target_thread *t;

	if (ev == PTRACE_EVENT_CLONE) {
		unsigned long msg = 0;

		uint64_t pass = target_find_thread(p, tid)->pass_mask;

		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 && msg && (t = target_find_thread(p, (pid_t)msg)))
			target_drop_mask((pid_t)msg, pass);	/* (stopped already) */
		else if (msg) {
			t = target_add_thread(p, (pid_t)msg);
			t->starting = 1;
			t->drop_mask = pass;
			if (p->one_by_one)
				new_thread_stop(p, (pid_t)msg);
		}
		return TARGET_EV_NONE;
	}
	if (ev == PTRACE_EVENT_FORK) {
		unsigned long msg = 0;

		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0 && msg) {
			if (p->follow_child && p->nthreads == 1 && tid == p->pid &&
			    follow_fork_child(p, tid, (pid_t)msg) == 0)
				return TARGET_EV_NONE;
			target_release_fork_child(p, tid, (pid_t)msg);
		}
		return TARGET_EV_NONE;
	}
	if (ev == PTRACE_EVENT_EXEC) {
		after_exec(p, tid);
		t = target_find_thread(p, p->pid);
		t->stepping = 0;
		st->tid = p->pid;
		st->kind = TARGET_STOP_EXEC;
		st->addr = target_thread_pc(p->pid);
		return TARGET_EV_REPORT;
	}
	return TARGET_EV_NONE; /* interrupt, group-stop */
}

/* What a reportable signal stop of t (sig, si; st->addr its pc) is: a
 * breakpoint (pc moved back to it), a step, an interrupt, or a signal
 * (delivered at its next resume). */
static void classify_signal(struct target_thread *t, int sig, const siginfo_t *si,
			    struct target_stop *st)
{
	struct target_proc *p = t->proc;

	if (sig == SIGTRAP && (si->si_code == SI_KERNEL ||
			       si->si_code == TRAP_BRKPT) &&
	    target_find_bp(p, st->addr - 1)) {
		st->addr -= 1;
		set_pc(t->tid, st->addr);
		st->kind = TARGET_STOP_BREAKPOINT;
		t->pending_sig = 0;
	} else if (sig == SIGTRAP && t->stepping &&
		   (si->si_code == TRAP_TRACE || si->si_code == TRAP_BRKPT ||
		    si->si_code == 5 /* TRAP_UNK: a step that entered a signal handler */)) {
		st->kind = TARGET_STOP_STEP;
		t->pending_sig = 0;
	} else if (sig == SIGSTOP) {
		st->kind = TARGET_STOP_INTERRUPT;
		st->signo = 0;
		st->sender = si->si_pid;
		t->pending_sig = 0;
	} else {
		st->kind = TARGET_STOP_SIGNAL;
		if (is_fault(sig))
			st->addr = (uint64_t)(uintptr_t)si->si_addr;
		/* a stray int3 in the program is reported, not re-delivered */
		t->pending_sig = (sig == SIGTRAP && si->si_code == SI_KERNEL)
				 ? 0 : sig;
	}
	t->stepping = 0;
}

int target_handle_status(struct target_proc *p, pid_t tid, int status,
			 struct target_stop *st)
{
	struct target_thread *t = target_find_thread(p, tid);
	int sig, ev;
	siginfo_t si;

	memset(st, 0, sizeof(*st));
	st->tid = tid;
	if (WIFEXITED(status) || WIFSIGNALED(status))
		return exited(p, tid, t, status, st);
	if (!WIFSTOPPED(status))
		return TARGET_EV_NONE;
	if (!t)
		t = target_add_thread(p, tid);
	t->stopped = 1;
	t->in_call = 0;
	if (t->starting && p->dr7)
		target_dr_apply(p, tid);	/* threads do not inherit them */
	target_drop_mask(tid, t->drop_mask);
	t->drop_mask = 0;
	t->starting = 0;
	sig = WSTOPSIG(status);
	ev = status >> 16;
	if (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_EXEC)
		t->in_call = TARGET_IN_EVENT;
	if (ev != 0)
		return event_stop(p, tid, ev, st);
	if (sig == (SIGTRAP | 0x80))
		return TARGET_EV_NONE; /* syscall */
	memset(&si, 0, sizeof(si));
	ptrace(PTRACE_GETSIGINFO, tid, 0, &si);
	if (sig == SIGSTOP && own_sigstop(&si) && !p->interrupt_wanted) {
		/* an interrupt's SIGSTOP that came after the stop it asked
		 * for (the process stopped for another reason first): gone,
		 * and the thread goes on (a step too: t->stepping stays) */
		t->pending_sig = 0;
		return TARGET_EV_NONE;
	}
	/* A reportable stop ends a step-over: re-plant the lifted int3.
	 * (Interrupt/clone stops leave it lifted; the step goes on.) */
	if (p->stepover_active && p->stepover_tid == tid) {
		unsigned char cc = 0xCC;

		p->stepover_active = 0;
		if (target_find_bp(p, p->stepover_addr))
			target_raw_write(p, p->stepover_addr, &cc, 1);
	}
	st->signo = sig;
	st->si_code = si.si_code;
	st->addr = target_thread_pc(tid);
	if (sig == SIGTRAP && si.si_code == SI_KERNEL && !target_find_bp(p, st->addr - 1) &&
	    target_bp_gone(p, st->addr - 1)) {
		/* trapped on a breakpoint removed meanwhile: the instruction
		 * there has not run; back to it, nothing to report */
		set_pc(tid, st->addr - 1);
		t->pending_sig = 0;
		return TARGET_EV_NONE;	/* t->stepping stays: a step goes on */
	}
	classify_signal(t, sig, &si, st);
	return TARGET_EV_REPORT;
}

int target_status_alone(struct target_proc *p, pid_t tid, int status, int queue_step,
			struct target_thread **t)
{
	struct target_stop ev;
	int r = target_handle_status(p, tid, status, &ev);

	*t = r == TARGET_EV_EXIT ? NULL : target_find_thread(p, tid);
	if (r == TARGET_EV_REPORT && *t && (queue_step || ev.kind != TARGET_STOP_STEP))
		target_ev_push(*t, &ev);
	return r;
}

/* Stops every running thread; racing reportable stops are queued on their
 * threads.  Returns TARGET_EV_EXIT (with *exit_st) if the process died. */
int target_stop_all(struct target_proc *p, struct target_stop *exit_st)
{
	for (int i = 0; i < p->nthreads; i++)
		if (!p->threads[i].stopped && !p->threads[i].starting)
			ptrace(PTRACE_INTERRUPT, p->threads[i].tid, 0, 0);
	for (;;) {
		struct target_stop ev;
		struct target_thread *t;
		int busy = 0, st, r;
		pid_t tid;

		for (int i = 0; i < p->nthreads; i++)
			busy |= !p->threads[i].stopped;
		if (!busy)
			return TARGET_EV_NONE;
		if (target_next_event(p, &tid, &st) < 0)
			return TARGET_EV_NONE;
		t = target_find_thread(p, tid);
		if (!t && WIFSTOPPED(st))
			t = target_add_thread(p, tid);
		r = target_handle_status(p, tid, st, &ev);
		if (r == TARGET_EV_EXIT) {
			*exit_st = ev;
			return TARGET_EV_EXIT;
		}
		if (r == TARGET_EV_REPORT) {
			t = target_find_thread(p, ev.tid);
			if (t)
				target_ev_push(t, &ev);
		}
	}
}

/* Back to running threads together: a new thread's arrival is news only
 * to the collector. */
void target_one_by_one_end(struct target_proc *p)
{
	p->one_by_one = 0;
	for (int i = 0; i < p->nthreads; i++)
		for (int k = p->threads[i].has_event - 1; k >= 0; k--)
			if (p->threads[i].queued[k].kind == TARGET_STOP_NONE)
				target_ev_remove(&p->threads[i], k);
}

void target_resume_thread(struct target_thread *t)
{
	int sig = t->pending_sig;

	target_unpark(t->proc);	/* no thread runs without its breakpoints */
	t->pending_sig = 0;
	t->stopped = 0;
	if (ptrace(t->stepping ? PTRACE_SINGLESTEP : PTRACE_CONT, t->tid, 0,
		   (void *)(long)sig) < 0 && errno == ESRCH)
		t->stopped = 0; /* exiting; its exit status will arrive */
}

static int deliver(struct target_proc *p, struct target_stop *st)
{
	p->interrupt_wanted = 0;	/* a stop came: any interrupt has it */
	p->running = 0;
	p->step_mode = 0;
	p->stop_id++;
	if (p->hooks.did_stop)
		p->hooks.did_stop(p->hooks.ctx, p, st);
	return 0;
}

void target_drop_stale_interrupts(struct target_proc *p)
{
	if (p->interrupt_wanted)
		return;
	for (int i = 0; i < p->nthreads; i++) {
		struct target_thread *t = &p->threads[i];

		for (int k = t->has_event - 1; k >= 0; k--)
			if (t->queued[k].kind == TARGET_STOP_INTERRUPT && t->queued[k].sender == getpid())
				target_ev_remove(t, k);
	}
}

/* Drops queued breakpoint stops whose breakpoint was removed meanwhile,
 * and interrupt stops no interrupt wants any more. */
static int have_queued(struct target_proc *p, pid_t only)
{
	int any = 0;

	target_drop_stale_interrupts(p);
	for (int i = 0; i < p->nthreads; i++) {
		struct target_thread *t = &p->threads[i];

		if (only && t->tid != only)
			continue;
		for (int k = t->has_event - 1; k >= 0; k--)
			if (t->queued[k].kind == TARGET_STOP_BREAKPOINT &&
			    !target_find_bp(p, t->queued[k].addr))
				target_ev_remove(t, k);
		any |= t->has_event > 0;
	}
	return any;
}

/* Steps t synchronously over the breakpoint at its pc (others stopped). */
/* Whether tid stopped in a system call the kernel will restart when it
 * is resumed (rax one of the -ERESTART* codes). */
static int in_restart(pid_t tid)
{
	struct user_regs_struct r;
	long rax;

	if (ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
		return 0;
	rax = (long)r.rax;
	return (long)r.orig_rax >= 0 && (rax == -512 || rax == -513 || rax == -514 || rax == -516);
}

/* Whether the instruction under the breakpoint at pc (first byte orig)
 * is SYSCALL (0f 05). */
static int is_syscall_insn(struct target_proc *p, uint64_t pc, unsigned char orig)
{
	unsigned char second;

	return orig == 0x0f && target_raw_read(p, pc + 1, &second, 1) == 0 && second == 0x05;
}

/* Passes a breakpoint on a SYSCALL instruction for a thread about to be
 * let run: the call is entered with the breakpoint lifted (the
 * syscall-entry stop comes at once, whatever the call waits for), the
 * breakpoint planted again, and the thread left stopped inside the call
 * for the caller's resume, which runs it with the others.  Stepping it
 * through instead never ended when the call waits for one of the threads
 * held meanwhile (a read of a pipe another thread writes).  Returns -1
 * when the thread stopped otherwise before the call (a signal): the
 * caller steps it as any other. */
static int enter_call_alone(struct target_proc *p, struct target_thread *t, uint64_t pc,
			    unsigned char orig)
{
	struct __ptrace_syscall_info si;
	unsigned char cc = 0xCC;
	pid_t tid = t->tid;
	int st, r;

	if (target_raw_write(p, pc, &orig, 1) < 0)
		return -1;
	t->stopped = 0;
	if (ptrace(PTRACE_SYSCALL, tid, 0, 0) < 0) {
		t->stopped = 1;
		target_raw_write(p, pc, &cc, 1);
		return -1;
	}
	while ((r = waitpid(tid, &st, __WALL)) < 0 && errno == EINTR)
		;
	target_raw_write(p, pc, &cc, 1);
	if (r < 0)
		return 0;
	if (WIFSTOPPED(st) && (WSTOPSIG(st) & 0x7f) == SIGTRAP &&
	    ptrace(PTRACE_GET_SYSCALL_INFO, tid, sizeof(si), &si) > 0 &&
	    si.op == PTRACE_SYSCALL_INFO_ENTRY) {
		t->stopped = 1;
		t->in_call = TARGET_IN_ENTRY;
		return 0;
	}
	r = target_status_alone(p, tid, st, 1, &t);
	if (r == TARGET_EV_EXIT)
		return TARGET_EV_EXIT;
	if (!t || r == TARGET_EV_REPORT)
		return 0;
	return t->stopped && target_thread_pc(tid) == pc ? -1 : 0;
}

/* cont: the thread is let run next (not stepped), so a SYSCALL under the
 * breakpoint is only entered (enter_call_alone). */
static int step_over_alone(struct target_proc *p, struct target_thread *t,
			   uint64_t pc, int cont)
{
	unsigned char orig = target_find_bp(p, pc)->orig;
	pid_t tid = t->tid;
	int st, r, sig;

	if (orig == 0xCC) {	/* the program's own int3: it has trapped (the
				 * breakpoint's stop), it is stepped over as
				 * lldb-16 steps it: no second SIGTRAP */
		set_pc(tid, pc + 1);
		return 0;
	}
	if (cont && !t->pending_sig && is_syscall_insn(p, pc, orig)) {
		r = enter_call_alone(p, t, pc, orig);
		if (r != -1)
			return r;
		t = target_find_thread(p, tid);
		if (!t)
			return 0;
	}
	if (target_raw_write(p, pc, &orig, 1) < 0)
		return 0;
	p->stepover_active = 1;
	p->stepover_addr = pc;
	p->stepover_tid = tid;
	/* a signal the thread stopped with inside a system call the kernel
	 * restarts is delivered by the step (it lands on the handler, the
	 * instruction not run yet): without it the step restarted the call,
	 * and never ended if that call waits for one of the threads stopped
	 * meanwhile.  Anywhere else the signal stays pending for the next
	 * resume, after the instruction ran: delivered by the step, its
	 * handler returned to the breakpoint, which was hit a second time
	 * (Go's SIGURG at a breakpoint's stop) */
	sig = t->pending_sig && in_restart(tid) ? t->pending_sig : 0;
	if (sig)
		t->pending_sig = 0;
	for (;;) {
		t->stepping = 1;
		t->stopped = 0;
		if (ptrace(PTRACE_SINGLESTEP, tid, 0, (void *)(long)sig) < 0) {
			if (sig)
				t->pending_sig = sig;
			t->stopped = 1;
			t->stepping = 0;
			return 0;
		}
		sig = 0;
		while (waitpid(tid, &st, __WALL) < 0)
			if (errno != EINTR)
				return 0;
		/* (the step's own end: not queued, the caller's to tell) */
		r = target_status_alone(p, tid, st, 0, &t);
		if (r == TARGET_EV_EXIT)
			return TARGET_EV_EXIT;
		if (!t || r == TARGET_EV_REPORT)
			return 0;
	}
}

/* While the collector runs threads one by one, others may be running
 * (a traced thread to the end of its block, one in a system call, the
 * untraced): with the breakpoint lifted they would run past it, so they
 * are stopped for the step and then resumed as they were. */
int target_step_over(struct target_proc *p, struct target_thread *t,
		     uint64_t pc, int cont)
{
	struct target_stop ex;
	pid_t tid = t->tid, *paused;
	int n = 0, r;

	target_unpark(p);
	if (!p->one_by_one)
		return step_over_alone(p, t, pc, cont);
	paused = xmalloc((size_t)(p->nthreads + 1) * sizeof(*paused));
	for (int i = 0; i < p->nthreads; i++)
		if (!p->threads[i].stopped && !p->threads[i].starting)
			paused[n++] = p->threads[i].tid;
	if (n && target_stop_all(p, &ex) == TARGET_EV_EXIT) {
		free(paused);
		return TARGET_EV_EXIT;
	}
	t = target_find_thread(p, tid);
	r = t ? step_over_alone(p, t, pc, cont) : 0;
	for (int i = 0; i < n && r != TARGET_EV_EXIT; i++) {
		struct target_thread *o = target_find_thread(p, paused[i]);

		if (o && o->stopped && !o->has_event)
			target_resume_thread(o);
	}
	free(paused);
	return r;
}

int target_resume(struct target_proc *p, struct ptdb_err *err)
{
	if (!p->alive)
		return target_nproc_err(p, err);
	if (p->running)
		return ptdb_err_set(err, "process is already running");
	target_unpark(p);
	target_one_by_one_end(p);
	if (p->hooks.will_resume)
		p->hooks.will_resume(p->hooks.ctx, p);
	p->step_mode = 0;
	if (!have_queued(p, 0)) {
		for (int i = 0; i < p->nthreads; i++) {
			struct target_thread *t = &p->threads[i];
			uint64_t pc = target_thread_pc(t->tid);

			if (!t->stopped || !target_find_bp(p, pc))
				continue;
			if (target_step_over(p, t, pc, 1) == TARGET_EV_EXIT) {
				p->running = 1;
				return 0;
			}
		}
	}
	p->running = 1;
	if (have_queued(p, 0))
		return 0;
	for (int i = 0; i < p->nthreads; i++) {
		p->threads[i].stepping = 0;
		if (p->threads[i].stopped)
			target_resume_thread(&p->threads[i]);
	}
	return 0;
}

int target_step(struct target_proc *p, pid_t tid, struct ptdb_err *err)
{
	struct target_thread *t;
	uint64_t pc;

	if (!p->alive)
		return target_nproc_err(p, err);
	if (p->running)
		return ptdb_err_set(err, "process is already running");
	t = target_find_thread(p, tid);
	if (!t || !t->stopped)
		return ptdb_err_set(err, "no stopped thread %d", (int)tid);
	target_unpark(p);
	target_one_by_one_end(p);
	if (p->hooks.will_resume)
		p->hooks.will_resume(p->hooks.ctx, p);
	p->running = 1;
	p->step_mode = 1;
	p->step_tid = tid;
	if (have_queued(p, tid))
		return 0;
	pc = target_thread_pc(tid);
	if (target_find_bp(p, pc) && target_find_bp(p, pc)->orig == 0xCC) {
		/* the program's own int3 under a breakpoint: stepped over
		 * (step_over_alone), the step's stop made here */
		struct target_stop ev = { .kind = TARGET_STOP_STEP, .tid = tid, .addr = pc + 1 };

		set_pc(tid, pc + 1);
		target_ev_push(t, &ev);
		return 0;
	}
	if (target_find_bp(p, pc)) {
		unsigned char orig = target_find_bp(p, pc)->orig;

		if (target_raw_write(p, pc, &orig, 1) == 0) {
			p->stepover_active = 1;
			p->stepover_addr = pc;
			p->stepover_tid = tid;
		}
	}
	t->stepping = 1;
	target_resume_thread(t);
	return 0;
}

int target_wait(struct target_proc *p, struct target_stop *stop,
		struct ptdb_err *err)
{
	struct target_stop ev, ex;
	pid_t tid;
	int st, r;

	memset(stop, 0, sizeof(*stop));
	if (!p->alive) {
		if (p->exit_reported)
			return target_nproc_err(p, err);
		p->exit_reported = 1;
		*stop = p->exit_stop;
		return deliver(p, stop);
	}
	if (!p->running)
		return ptdb_err_set(err, "process is not running (resume first)");
	for (int i = 0; i < p->nthreads; i++) {
		struct target_thread *t = &p->threads[i];

		if (t->has_event && (!p->step_mode || t->tid == p->step_tid)) {
			target_ev_pop(t, stop);
			return deliver(p, stop);
		}
	}
	for (;;) {
		struct target_thread *t;

		if (target_next_event(p, &tid, &st) < 0)
			return ptdb_err_errno(err, "waiting for the process");
		r = target_handle_status(p, tid, st, &ev);
		if (r == TARGET_EV_EXIT) {
			p->exit_reported = 1;
			*stop = ev;
			return deliver(p, stop);
		}
		if (r == TARGET_EV_REPORT)
			break;
		t = target_find_thread(p, tid);
		if (!t || !t->stopped)
			continue;
		if (p->step_mode && tid != p->step_tid)
			continue; /* new threads stay stopped while stepping */
		target_resume_thread(t);
	}
	if (target_stop_all(p, &ex) == TARGET_EV_EXIT) {
		p->exit_reported = 1;
		*stop = ex;
		return deliver(p, stop);
	}
	*stop = ev;
	return deliver(p, stop);
}

int target_interrupt(struct target_proc *p)
{
	if (!p->alive)
		return TARGET_ERR_NOPROC;
	p->interrupt_wanted = 1;
	return kill(p->pid, SIGSTOP);
}
