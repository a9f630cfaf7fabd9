/* target/target_detach.c: what a detached process is left with: running,
 * no stop signal pending or in effect, whatever stopped it last; a forked
 * child let go with its own code and mask. */
#include "target/target_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int target_is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Mask of the stop signals in a /proc status "SigPnd:"/"ShdPnd:" value. */
static int stop_bits(const char *hex)
{
	unsigned long long m = strtoull(hex, NULL, 16);
	int sigs[] = { SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU };

	for (int i = 0; i < 4; i++)
		if (m & (1ULL << (sigs[i] - 1)))
			return 1;
	return 0;
}

/* 1 when the task's status shows a pending stop signal (pending: 1) or a
 * stopped state (pending: 0). */
static int task_shows(pid_t pid, long tid, int pending)
{
	char path[96], line[256];
	int hit = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%ld/status", (int)pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (pending && (!strncmp(line, "SigPnd:", 7) || !strncmp(line, "ShdPnd:", 7)))
			hit |= stop_bits(line + 7);
		if (!pending && !strncmp(line, "State:", 6))
			hit |= strchr(line + 6, 'T') != NULL;
	}
	fclose(f);
	return hit;
}

static int any_task_shows(pid_t pid, int pending)
{
	char path[64];
	struct dirent *de;
	int hit = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!hit && (de = readdir(d)))
		if (de->d_name[0] != '.')
			hit = task_shows(pid, atol(de->d_name), pending);
	closedir(d);
	return hit;
}

/* After PTRACE_DETACH: a stop signal still queued (an interrupt's SIGSTOP
 * not yet taken) or a group stop in effect would leave the process in
 * state T with nobody to continue it.  SIGCONT discards the queued ones
 * and ends the stop.  Pending signals are read before the state: a
 * signal taken between the two reads shows as the stop it caused (the
 * kernel dequeues it and stops the task under one lock). */
void target_leave_running(pid_t pid)
{
	if (any_task_shows(pid, 1) || any_task_shows(pid, 0))
		kill(pid, SIGCONT);
}

/* 1 if the thread has a SIGTRAP queued (its own queue) that it does not
 * block: an int3 it ran just as it was interrupted (the interrupt's stop
 * is taken before the signal), its pc one past the breakpoint. */
static int trap_queued(pid_t pid, pid_t tid)
{
	char path[96], line[256];
	unsigned long long pnd = 0, blk = 0, bit = 1ULL << (SIGTRAP - 1);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "SigPnd:", 7))
			pnd = strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "SigBlk:", 7))
			blk = strtoull(line + 7, NULL, 16);
	}
	fclose(f);
	return (pnd & bit) && !(blk & bit);
}

/* Each stopped thread with such a SIGTRAP queued takes it now, under
 * ptrace: resumed, it stops at once for the signal (no instruction runs
 * first), and target_handle_status moves its pc back to the breakpoint
 * (planted or removed meanwhile).  Detached with it queued, the thread
 * would die of it, or run on from the middle of an instruction.  Its stop
 * is queued on the thread (the breakpoint's hit, reported by the next
 * resume: dropped, the thread would step over the breakpoint unseen);
 * all: a thread that holds an event already takes it too (a detach),
 * else it keeps the signal for when it runs again (one event a thread). */
void target_take_queued_traps(struct target_proc *p, int all)
{
	for (int i = 0; i < p->nthreads; i++) {
		struct target_thread *t = &p->threads[i];

		for (int tries = 0; tries < 4 && t->stopped && !t->starting && (all || !t->has_event) &&
				    trap_queued(p->pid, t->tid); tries++) {
			struct target_stop ev;
			pid_t tid = t->tid;
			int st, r;

			t->stopped = 0;
			if (ptrace(PTRACE_CONT, tid, 0, 0) < 0) {
				t->stopped = 1;
				break;
			}
			while (waitpid(tid, &st, __WALL) < 0 && errno == EINTR)
				;
			r = target_handle_status(p, tid, st, &ev);
			if (r == TARGET_EV_EXIT)
				return;
			if (!(t = target_find_thread(p, tid)))
				break;	/* it exited */
			if (!t->stopped)
				break;
			if (r == TARGET_EV_REPORT && !t->has_event)
				target_ev_push(t, &ev);
		}
	}
}

/* A breakpoint stop of tid's that came with the one reported: queued, or
 * an int3 it ran as it was interrupted (its SIGTRAP taken now, as
 * target_take_queued_traps does).  1 with *addr; the stop stays queued
 * (target_drop_event takes it).  Any other event taken is queued too. */
int target_queued_bp(struct target_proc *p, pid_t tid, uint64_t *addr)
{
	struct target_thread *t = target_find_thread(p, tid);

	if (!p->alive || p->running || !t || !t->stopped || t->starting)
		return 0;
	if (!t->has_event && trap_queued(p->pid, tid)) {
		struct target_stop ev;
		int st;

		t->stopped = 0;
		if (ptrace(PTRACE_CONT, tid, 0, 0) < 0) {
			t->stopped = 1;
			return 0;
		}
		while (waitpid(tid, &st, __WALL) < 0 && errno == EINTR)
			;
		if (target_handle_status(p, tid, st, &ev) != TARGET_EV_REPORT ||
		    !(t = target_find_thread(p, tid)) || !t->stopped)
			return 0;
		target_ev_push(t, &ev);
	}
	if (!t->has_event || t->queued[0].kind != TARGET_STOP_BREAKPOINT ||
	    !target_find_bp(p, t->queued[0].addr))
		return 0;
	*addr = t->queued[0].addr;
	return 1;
}

void target_drop_event(struct target_proc *p, pid_t tid)
{
	struct target_thread *t = target_find_thread(p, tid);

	if (t)
		target_ev_remove(t, 0);
}

/* A child the process forked: waits for its first stop, writes the
 * original bytes over the breakpoints its copy of the memory holds, and
 * detaches it, so it runs on as if never traced.  A child that shares the
 * parent's memory (clone with CLONE_VM) has no copy: the bytes written
 * would be the parent's, whose breakpoints would be gone for good; it is
 * let go as it is. */
void target_release_fork_child(struct target_proc *p, pid_t parent, pid_t child)
{
	char path[64];
	int st, fd;

	while (waitpid(child, &st, __WALL) < 0)
		if (errno != EINTR)
			return;
	if (!WIFSTOPPED(st))
		return;	/* gone already */
	target_drop_mask(child, target_find_thread(p, parent)->pass_mask);
	if (syscall(SYS_kcmp, parent, child, KCMP_VM, 0, 0) == 0) {
		ptrace(PTRACE_DETACH, child, 0, 0);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)child);
	fd = open(path, O_RDWR | O_CLOEXEC);
	for (int i = 0; fd >= 0 && i < p->nbps; i++)
		if (target_bp_planted(p, p->bps[i].addr) &&
		    pwrite(fd, &p->bps[i].orig, 1, (off_t)p->bps[i].addr) != 1)
			break;
	if (fd >= 0)
		close(fd);
	ptrace(PTRACE_DETACH, child, 0, 0);
}
