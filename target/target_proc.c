/* target/target_proc.c: process lifecycle for the target layer: launch
 * (fork + PTRACE_SEIZE + execv), attach, detach, kill, thread bookkeeping,
 * registers, pending signals and signal descriptions (what it reads of
 * /proc: target_procfs.c). */
#include "target/target_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <elf.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct target_thread *target_find_thread(const struct target_proc *p, pid_t tid)
{
	for (int i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	return NULL;
}

struct target_thread *target_add_thread(struct target_proc *p, pid_t tid)
{
	struct target_thread *t = target_find_thread(p, tid);

	if (t)
		return t;
	if (p->nthreads == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->threads = xrealloc(p->threads, p->cap * sizeof(*p->threads));
	}
	t = &p->threads[p->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->proc = p;
	t->index = ++p->next_index;
	if (p->hooks.thread_created)
		p->hooks.thread_created(p->hooks.ctx, p, tid, t->index);
	return t;
}

void target_remove_thread(struct target_proc *p, pid_t tid)
{
	for (int i = 0; i < p->nthreads; i++) {
		if (p->threads[i].tid != tid)
			continue;
		if (p->hooks.thread_exited)
			p->hooks.thread_exited(p->hooks.ctx, p, tid,
					       p->threads[i].index);
		memmove(&p->threads[i], &p->threads[i + 1],
			(p->nthreads - i - 1) * sizeof(*p->threads));
		p->nthreads--;
		return;
	}
}

int target_open_mem(struct target_proc *p)
{
	char path[64];

	if (p->memfd >= 0)
		close(p->memfd);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)p->pid);
	p->memfd = open(path, O_RDWR | O_CLOEXEC);
	return p->memfd;
}

int target_nproc_err(const struct target_proc *p, struct ptdb_err *err)
{
	(void)p;
	ptdb_err_code(err, PTDB_E_NO_PROCESS, "process is not running");
	return TARGET_ERR_NOPROC;
}

static struct target_proc *proc_new(pid_t pid)
{
	struct target_proc *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->memfd = -1;
	p->alive = 1;
	return p;
}

static void reap_pid(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
}

static void child_exec(const struct target_launch_opts *o, int syncfd,
		       int errfd)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGPIPE, SIGTSTP,
		SIGTTIN, SIGTTOU, SIGCHLD, SIGTERM, SIGHUP };
	char *const defargv[] = { (char *)o->path, NULL };
	sigset_t none;
	char c;
	int e;

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	while (read(syncfd, &c, 1) < 0 && errno == EINTR)
		;
	close(syncfd);
	if (o->stdio) {
		setsid();
		for (int i = 0; i < 3; i++)
			if (o->fds[i] >= 0 && o->fds[i] != i)
				dup2(o->fds[i], i);
		for (int i = 0; i < 3; i++)
			if (o->fds[i] >= 0 && isatty(i)) {
				ioctl(i, TIOCSCTTY, 0);
				break;
			}
	}
	if (o->disable_aslr)
		personality(ADDR_NO_RANDOMIZE);
	execve(o->path, o->argv ? o->argv : defargv,
	       o->envp ? o->envp : environ);
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		e = 0;
	_exit(127);
}

int target_launch(const struct target_launch_opts *o, struct target_proc **out,
		  struct ptdb_err *err)
{
	int syncp[2], errp[2], st, e = 0;
	struct target_proc *p;
	pid_t pid;

	*out = NULL;
	if (!o || !o->path)
		return ptdb_err_set(err, "no program to launch");
	if (pipe2(syncp, O_CLOEXEC) < 0)
		return ptdb_err_errno(err, "pipe");
	if (pipe2(errp, O_CLOEXEC) < 0) {
		close(syncp[0]);
		close(syncp[1]);
		return ptdb_err_errno(err, "pipe");
	}
	pid = fork();
	if (pid < 0) {
		ptdb_err_errno(err, "failed to launch '%s': fork", o->path);
		close(syncp[0]); close(syncp[1]); close(errp[0]); close(errp[1]);
		return -1;
	}
	if (pid == 0) {
		close(syncp[1]);
		close(errp[0]);
		child_exec(o, syncp[0], errp[1]);
	}
	close(syncp[0]);
	close(errp[1]);
	if (ptrace(PTRACE_SEIZE, pid, 0, (void *)(long)TARGET_PTRACE_OPTS) < 0) {
		ptdb_err_errno(err, "failed to launch '%s': ptrace", o->path);
		kill(pid, SIGKILL);
		close(syncp[1]);
		close(errp[0]);
		reap_pid(pid);
		return -1;
	}
	if (write(syncp[1], "x", 1) < 0)
		e = errno;
	close(syncp[1]);
	for (;;) {
		if (waitpid(pid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			ptdb_err_errno(err, "failed to launch '%s': waitpid",
				       o->path);
			close(errp[0]);
			return -1;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (read(errp[0], &e, sizeof(e)) != sizeof(e))
				e = 0;
			close(errp[0]);
			if (e) {
				errno = e;
				return ptdb_err_errno(err,
					"failed to launch '%s'", o->path);
			}
			return ptdb_err_set(err,
				"failed to launch '%s': process exited before exec",
				o->path);
		}
		if (WIFSTOPPED(st) && (st >> 16) == PTRACE_EVENT_EXEC)
			break;
		/* Any other stop before the exec: let it go on. */
		ptrace(PTRACE_CONT, pid, 0, 0);
	}
	close(errp[0]);
	p = proc_new(pid);
	p->launched = 1;
	target_add_thread(p, pid)->stopped = 1;
	target_open_mem(p);
	p->stop_id = 1;
	*out = p;
	return 0;
}

static int seize_task_list(struct target_proc *p, int *added,
			   struct ptdb_err *err)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	*added = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	d = opendir(path);
	if (!d)
		return ptdb_err_errno(err, "attach to process %d failed",
				      (int)p->pid);
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || target_find_thread(p, tid))
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0,
			   (void *)(long)TARGET_PTRACE_OPTS_ATTACH) < 0) {
			if (errno == ESRCH && tid != p->pid)
				continue;
			if (errno == EPERM)
				ptdb_err_errno(err, "attach to process %d failed "
					"(check ptrace permissions, e.g. "
					"/proc/sys/kernel/yama/ptrace_scope)",
					(int)p->pid);
			else
				ptdb_err_errno(err, "attach to process %d failed",
					       (int)p->pid);
			closedir(d);
			return -1;
		}
		ptrace(PTRACE_INTERRUPT, tid, 0, 0);
		target_add_thread(p, tid);
		(*added)++;
	}
	closedir(d);
	return 0;
}

int target_attach(pid_t pid, struct target_proc **out, struct ptdb_err *err)
{
	struct target_proc *p;
	struct target_stop ex;
	int added;

	*out = NULL;
	if (pid <= 0)
		return ptdb_err_set(err, "invalid process id %d", (int)pid);
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return ptdb_err_set(err, "no such process: %d", (int)pid);
	p = proc_new(pid);
	do {
		if (seize_task_list(p, &added, err) < 0) {
			for (int i = 0; i < p->nthreads; i++)
				ptrace(PTRACE_DETACH, p->threads[i].tid, 0, 0);
			free(p->threads);
			free(p);
			return -1;
		}
	} while (added);
	if (target_stop_all(p, &ex) == TARGET_EV_EXIT) {
		target_free(p);
		return ptdb_err_set(err, "process %d exited while attaching",
				    (int)pid);
	}
	target_open_mem(p);
	p->stop_id = 1;
	*out = p;
	return 0;
}

int target_detach(struct target_proc *p, struct ptdb_err *err)
{
	if (!p->alive)
		return target_nproc_err(p, err);
	if (p->running) {
		struct target_stop ex;

		if (target_stop_all(p, &ex) == TARGET_EV_EXIT)
			return target_nproc_err(p, err);
		p->running = 0;
	}
	target_take_queued_traps(p, 1);
	if (!p->alive)
		return target_nproc_err(p, err);
	target_unplant_all(p);
	for (int i = 0; i < p->nthreads; i++) {
		int sig = p->threads[i].pending_sig;

		/* a stop signal (ptdb's own interrupt, most often) would
		 * leave the process stopped for good once nobody traces it */
		if (target_is_stop_signal(sig))
			sig = 0;
		ptrace(PTRACE_DETACH, p->threads[i].tid, 0, (void *)(long)sig);
	}
	target_leave_running(p->pid);
	p->nthreads = 0;
	p->alive = 0;
	p->exit_reported = 1;
	if (p->memfd >= 0)
		close(p->memfd);
	p->memfd = -1;
	return 0;
}

int target_kill(struct target_proc *p)
{
	pid_t tid;
	int st;

	if (!p->alive)
		return TARGET_ERR_NOPROC;
	kill(p->pid, SIGKILL);
	for (;;) {
		if (target_next_event(p, &tid, &st) < 0)
			break;
		if (tid == p->pid && (WIFEXITED(st) || WIFSIGNALED(st)))
			break;
	}
	p->nthreads = 0;
	p->alive = 0;
	p->running = 0;
	p->exit_reported = 1;
	if (p->memfd >= 0)
		close(p->memfd);
	p->memfd = -1;
	return 0;
}

void target_free(struct target_proc *p)
{
	if (!p)
		return;
	if (p->alive) {
		if (p->launched)
			target_kill(p);
		else
			target_detach(p, NULL);
	}
	if (p->memfd >= 0)
		close(p->memfd);
	free(p->threads);
	free(p->bps);
	free(p);
}

pid_t target_pid(const struct target_proc *p) { return p->pid; }
int target_is_alive(const struct target_proc *p) { return p->alive; }
int target_exited(const struct target_proc *p) { return !p->alive; }

int target_end_stop(const struct target_proc *p, struct target_stop *st)
{
	if (p->alive || (p->exit_stop.kind != TARGET_STOP_EXITED &&
			 p->exit_stop.kind != TARGET_STOP_SIGNALED))
		return 0;
	*st = p->exit_stop;
	return 1;
}
int target_was_launched(const struct target_proc *p) { return p->launched; }
void target_set_follow_fork(struct target_proc *p, int child) { p->follow_child = child; }
uint64_t target_stop_id(const struct target_proc *p) { return p->stop_id; }

void target_set_hooks(struct target_proc *p, const struct target_hooks *h)
{
	if (h)
		p->hooks = *h;
	else
		memset(&p->hooks, 0, sizeof(p->hooks));
}

int target_threads(struct target_proc *p, struct target_thread_info *out,
		   int max)
{
	for (int i = 0; i < p->nthreads && i < max; i++) {
		char path[80];
		FILE *f;

		out[i].tid = p->threads[i].tid;
		out[i].index = p->threads[i].index;
		out[i].name[0] = '\0';
		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm",
			 (int)p->pid, (int)p->threads[i].tid);
		f = fopen(path, "r");
		if (f) {
			if (fgets(out[i].name, sizeof(out[i].name), f))
				out[i].name[strcspn(out[i].name, "\n")] = '\0';
			fclose(f);
		}
	}
	return p->nthreads;
}

unsigned target_thread_index(const struct target_proc *p, pid_t tid)
{
	struct target_thread *t = target_find_thread(p, tid);

	return t ? t->index : 0;
}

static int stopped_thread(struct target_proc *p, pid_t tid,
			  struct ptdb_err *err)
{
	struct target_thread *t;

	if (!p->alive)
		return target_nproc_err(p, err);
	t = target_find_thread(p, tid);
	if (!t)
		return ptdb_err_set(err, "no thread %d", (int)tid);
	if (!t->stopped)
		return ptdb_err_set(err, "thread %d is running", (int)tid);
	return 0;
}

static int regs_op(struct target_proc *p, pid_t tid, int req, void *r,
		   const char *what, struct ptdb_err *err)
{
	int rc = stopped_thread(p, tid, err);

	if (rc < 0)
		return rc;
	if (ptrace(req, tid, 0, r) < 0)
		return ptdb_err_errno(err, "%s of thread %d failed", what,
				      (int)tid);
	return 0;
}

int target_get_regs(struct target_proc *p, pid_t tid,
		    struct user_regs_struct *r, struct ptdb_err *err)
{
	return regs_op(p, tid, PTRACE_GETREGS, r, "reading registers", err);
}

int target_set_regs(struct target_proc *p, pid_t tid,
		    const struct user_regs_struct *r, struct ptdb_err *err)
{
	return regs_op(p, tid, PTRACE_SETREGS, (void *)r, "writing registers",
		       err);
}

int target_get_fpregs(struct target_proc *p, pid_t tid,
		      struct user_fpregs_struct *r, struct ptdb_err *err)
{
	return regs_op(p, tid, PTRACE_GETFPREGS, r, "reading fp registers",
		       err);
}

int target_set_fpregs(struct target_proc *p, pid_t tid,
		      const struct user_fpregs_struct *r, struct ptdb_err *err)
{
	return regs_op(p, tid, PTRACE_SETFPREGS, (void *)r,
		       "writing fp registers", err);
}

/* The whole XSAVE area (x87, SSE, AVX, AVX-512 state): NT_X86_XSTATE. */
int target_get_xstate(struct target_proc *p, pid_t tid, void *buf, size_t *len,
		      struct ptdb_err *err)
{
	struct iovec iov = { buf, *len };
	int rc = stopped_thread(p, tid, err);

	if (rc < 0)
		return rc;
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0)
		return ptdb_err_errno(err, "reading the extended state of thread %d failed", (int)tid);
	*len = iov.iov_len;
	return 0;
}

int target_set_xstate(struct target_proc *p, pid_t tid, const void *buf, size_t len,
		      struct ptdb_err *err)
{
	struct iovec iov = { (void *)buf, len };
	int rc = stopped_thread(p, tid, err);

	if (rc < 0)
		return rc;
	if (ptrace(PTRACE_SETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0)
		return ptdb_err_errno(err, "writing the extended state of thread %d failed", (int)tid);
	return 0;
}

void target_set_pending_signal(struct target_proc *p, pid_t tid, int sig)
{
	struct target_thread *t = target_find_thread(p, tid);

	if (t)
		t->pending_sig = sig;
}

int target_thread_raise(struct target_proc *p, pid_t tid, int sig)
{
	return p->alive && sig > 0 ? (int)syscall(SYS_tgkill, (int)p->pid, (int)tid, sig) : -1;
}

int target_thread_block_signal(struct target_proc *p, pid_t tid, int sig, int block)
{
	uint64_t m, bit = sig > 0 && sig < 65 ? 1ull << (sig - 1) : 0;

	/* (PTRACE_GETSIGMASK's size argument: the kernel's sigset, 8 bytes) */
	if (!p->alive || !bit || ptrace(PTRACE_GETSIGMASK, tid, (void *)8, &m) < 0)
		return -1;
	if (!(m & bit) == !block)
		return 0;
	m = block ? m | bit : m & ~bit;
	return ptrace(PTRACE_SETSIGMASK, tid, (void *)8, &m) < 0 ? -1 : 1;
}

void target_thread_pass_mask(struct target_proc *p, pid_t tid, uint64_t bits)
{
	struct target_thread *t = target_find_thread(p, tid);

	if (t)
		t->pass_mask = bits;
}

void target_drop_mask(pid_t tid, uint64_t bits)
{
	uint64_t m;

	if (bits && ptrace(PTRACE_GETSIGMASK, tid, (void *)8, &m) == 0 && (m & bits)) {
		m &= ~bits;
		ptrace(PTRACE_SETSIGMASK, tid, (void *)8, &m);
	}
}

int target_pending_signal(const struct target_proc *p, pid_t tid)
{
	struct target_thread *t = target_find_thread(p, tid);

	return t ? t->pending_sig : 0;
}

const char *target_signal_name(int signo)
{
	/* LLDB's names for Linux's signals (its LinuxSignals table) */
	static const char *const names[65] = {
		NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS",
		"SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM",
		"SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN",
		"SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",
		"SIGIO", "SIGPWR", "SIGSYS", "SIG32", "SIG33", "SIGRTMIN", "SIGRTMIN+1",
		"SIGRTMIN+2", "SIGRTMIN+3", "SIGRTMIN+4", "SIGRTMIN+5", "SIGRTMIN+6",
		"SIGRTMIN+7", "SIGRTMIN+8", "SIGRTMIN+9", "SIGRTMIN+10", "SIGRTMIN+11",
		"SIGRTMIN+12", "SIGRTMIN+13", "SIGRTMIN+14", "SIGRTMIN+15", "SIGRTMAX-14",
		"SIGRTMAX-13", "SIGRTMAX-12", "SIGRTMAX-11", "SIGRTMAX-10", "SIGRTMAX-9",
		"SIGRTMAX-8", "SIGRTMAX-7", "SIGRTMAX-6", "SIGRTMAX-5", "SIGRTMAX-4",
		"SIGRTMAX-3", "SIGRTMAX-2", "SIGRTMAX-1", "SIGRTMAX",
	};

	return signo > 0 && signo < 65 ? names[signo] : NULL;
}

const char *target_signal_description(int signo, int si_code)
{
	const char *n;

	switch (signo) {
	case SIGFPE:
		switch (si_code) {
		case FPE_INTDIV: return "integer divide by zero";
		case FPE_INTOVF: return "integer overflow";
		case FPE_FLTDIV: return "floating point divide by zero";
		case FPE_FLTOVF: return "floating point overflow";
		case FPE_FLTUND: return "floating point underflow";
		case FPE_FLTRES: return "floating point inexact result";
		case FPE_FLTINV: return "invalid floating point operation";
		case FPE_FLTSUB: return "subscript out of range";
		}
		break;
	case SIGSEGV:
		switch (si_code) {
		case SEGV_MAPERR: return "address not mapped to object";
		case SEGV_ACCERR: return "invalid permissions for mapped object";
		case SI_KERNEL: return "general protection fault";
		}
		break;
	case SIGBUS:
		switch (si_code) {
		case BUS_ADRALN: return "illegal alignment";
		case BUS_ADRERR: return "illegal address";
		case BUS_OBJERR: return "hardware error";
		}
		break;
	case SIGILL:
		switch (si_code) {
		case ILL_ILLOPC: return "illegal opcode";
		case ILL_ILLOPN: return "illegal operand";
		case ILL_ILLADR: return "illegal addressing mode";
		case ILL_ILLTRP: return "illegal trap";
		case ILL_PRVOPC: return "privileged opcode";
		case ILL_PRVREG: return "privileged register";
		case ILL_COPROC: return "coprocessor error";
		case ILL_BADSTK: return "internal stack error";
		}
		break;
	}
	n = target_signal_name(signo);
	return n ? n : "unknown signal";
}
