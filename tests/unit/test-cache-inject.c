/* tests/unit/test-cache-inject.c: the cache engine's system calls
 * injected into a stopped thread (core/collectors/dbg_cache_mem.c) and the
 * events target/ holds queued for that thread.  Linked with
 * -Wl,--wrap=target_thread_step (Makefile): a signal is sent to the thread
 * right as a chosen injected call's step starts, the moment a signal from
 * elsewhere would have to hit by chance. */
#include "core/collectors/dbg_cache_int.h"
#include "tests/unit/test.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int __real_target_thread_step(struct target_proc *p, pid_t tid, struct target_stop *st, struct ptdb_err *err);

/* The call (number) whose step gets arm_sig sent first, once; -1: none. */
static long arm_nr = -1;
static int arm_sig;

int __wrap_target_thread_step(struct target_proc *p, pid_t tid, struct target_stop *st, struct ptdb_err *err)
{
	struct user_regs_struct r;

	if (arm_nr >= 0 && target_get_regs(p, tid, &r, NULL) == 0 && r.rax == (uint64_t)arm_nr &&
	    r.orig_rax == (uint64_t)-1) {
		arm_nr = -1;
		syscall(SYS_tgkill, (int)target_pid(p), (int)tid, arm_sig);	/* (pending on return) */
	}
	return __real_target_thread_step(p, tid, st, err);
}

/* How many descriptors of process pid are a memfd of ptdb's. */
static int ptdb_memfds(pid_t pid)
{
	char dir[64], path[320], link[256];
	struct dirent *e;
	int n = 0;
	DIR *dd;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	dd = opendir(dir);
	while (dd && (e = readdir(dd))) {
		ssize_t k;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		k = readlink(path, link, sizeof(link) - 1);
		if (k > 0 && (link[k] = 0, !strncmp(link, "/memfd:ptdb-cache", 17)))
			n++;
	}
	if (dd)
		closedir(dd);
	return n;
}

#define LOOP "tests/programs/trace_loop"
#define LOOP_MAIN 0x401106	/* (test-target checks it is main) */

static struct target_proc *stopped_at_main(void)
{
	struct target_launch_opts o = { .path = LOOP, .disable_aslr = 1 };
	struct target_proc *p = NULL;
	struct target_stop st;
	struct ptdb_err err;

	if (target_launch(&o, &p, &err) < 0 || target_bp_insert(p, LOOP_MAIN, &err) < 0 ||
	    target_resume(p, &err) < 0 || target_wait(p, &st, &err) < 0 ||
	    st.kind != TARGET_STOP_BREAKPOINT) {
		printf("#   launch %s to main failed\n", LOOP);
		if (p)
			target_free(p);
		return NULL;
	}
	return p;
}

/* Each test's start: the loop program stopped at main, a tracee over it
 * with its syscall instruction found (c->sc), the thread held
 * (target_thread_begin).  0, or -1 with what failed said. */
struct inject_fix {
	struct target_proc *p;
	struct dbg_cache *c;
	struct dbg_tracee d;
	pid_t pid;
};

static int set_up(struct inject_fix *f)
{
	memset(f, 0, sizeof(*f));
	f->p = stopped_at_main();
	f->c = calloc(1, sizeof(*f->c));
	if (!f->p || !f->c)
		return -1;
	f->pid = target_pid(f->p);
	f->d.proc = f->p;
	f->d.pid = f->pid;
	f->c->tid = f->pid;
	f->c->left_pid = f->pid;
	f->c->sc = dbg_cache_find_syscall(&f->d);
	if (!f->c->sc) {
		printf("#   no syscall instruction found\n");
		return -1;
	}
	target_thread_begin(f->p);
	return 0;
}

static void tear_down(struct inject_fix *f)
{
	if (f->p)
		target_free(f->p);
	if (f->c)
		free(f->c->left_fd);	/* (what dbg_cache_free frees of it) */
	free(f->c);
}

/* A thread holding a queued event (a stop that raced another's, here a
 * breakpoint stop given back) gets no system call injected: the call
 * would take the event in the thread's place and lose it.  The event is
 * reported next; once it is, the injection runs. */
TEST(inject_keeps_queued_event)
{
	struct inject_fix f;
	struct user_regs_struct r;
	struct target_stop q, ts;
	uint64_t a[6] = { 0 };
	int64_t ret = 0;

	CHECK_INT(set_up(&f), 0);
	memset(&q, 0, sizeof(q));
	q.kind = TARGET_STOP_BREAKPOINT;
	q.tid = f.pid;
	q.addr = LOOP_MAIN;
	CHECK_INT(target_thread_requeue(f.p, &q), 0);
	CHECK_INT(target_thread_has_event(f.p, f.pid), 1);
	CHECK_INT(dbg_cache_inject(&f.d, f.c, f.pid, SYS_getpid, a, &ret), -1);
	CHECK_INT(target_thread_has_event(f.p, f.pid), 1);
	CHECK_INT(target_thread_event(f.p, 0, &ts), 1);
	CHECK_INT(ts.kind, TARGET_STOP_BREAKPOINT);
	CHECK_INT(ts.addr, LOOP_MAIN);
	CHECK_INT(target_thread_has_event(f.p, f.pid), 0);
	/* nothing queued now: the call runs, the thread's registers kept */
	CHECK_INT(dbg_cache_inject(&f.d, f.c, f.pid, SYS_getpid, a, &ret), 0);
	CHECK_INT(ret, f.pid);
	CHECK_INT(target_get_regs(f.p, f.pid, &r, NULL), 0);
	CHECK_INT(r.rip, LOOP_MAIN);
	CHECK_INT(target_thread_end(f.p, &ts), 0);
	tear_down(&f);
}

/* The syscall instruction found once is checked before each use: a
 * program that rewrote its bytes (or unmapped them) does not get the
 * call stepped through something else; another one is found. */
TEST(inject_checks_gadget)
{
	struct inject_fix f;
	struct user_regs_struct r;
	struct target_stop ts;
	uint64_t a[6] = { 0 }, old;
	uint8_t nops[2] = { 0x90, 0x90 }, b[2];
	int64_t ret = 0;

	CHECK_INT(set_up(&f), 0);
	old = f.c->sc;
	CHECK_INT(target_write_mem(f.p, f.c->sc, nops, 2, NULL), 0);
	CHECK_INT(dbg_cache_inject(&f.d, f.c, f.pid, SYS_getpid, a, &ret), 0);
	CHECK_INT(ret, f.pid);
	CHECK(f.c->sc != old);
	CHECK_INT(target_read_mem(f.p, f.c->sc, b, 2, NULL), 0);
	CHECK_INT(b[0], 0x0f);
	CHECK_INT(b[1], 0x05);
	CHECK_INT(target_get_regs(f.p, f.pid, &r, NULL), 0);
	CHECK_INT(r.rip, LOOP_MAIN);
	CHECK_INT(target_thread_end(f.p, &ts), 0);
	tear_down(&f);
}

/* Sends sig to thread tid of pid once it waits in system call nr (a
 * child process: the tracer is inside the call's step meanwhile). */
static pid_t signal_in_call(pid_t pid, long nr, int sig)
{
	pid_t k = fork();

	if (k == 0) {
		char path[64], buf[64];

		snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, (int)pid);
		/* (the deadline only turns a hang into a failure) */
		for (int i = 0; i < 600000; i++) {
			FILE *f = fopen(path, "r");
			long n = -2;

			if (f && fgets(buf, sizeof(buf), f))
				n = strtol(buf, NULL, 10);
			if (f)
				fclose(f);
			if (n == nr)
				break;
			usleep(100);
		}
		syscall(SYS_tgkill, (int)pid, (int)pid, sig);
		_exit(0);
	}
	return k;
}

/* A thread-directed SIGTRAP that arrives while the injected call runs is
 * pending when the step's own trap is sent, which it swallows (a SIGTRAP
 * does not queue twice): the stop is that signal's, at the end of the
 * syscall instruction, the call done.  Its result is kept, and the
 * signal is the engine's event (the program's: not lost either).  The
 * call here waits for a signal (rt_sigtimedwait for SIGUSR2, no timeout)
 * and the SIGTRAP ends it: -EINTR, its result. */
TEST(inject_keeps_result_at_signal)
{
	struct inject_fix f;
	struct user_regs_struct r, r0;
	struct target_stop ts;
	uint64_t set = 1ull << (SIGUSR2 - 1), a[6] = { 0 }, keep;
	int64_t ret = 0;
	pid_t k;
	int rc, st;

	CHECK_INT(set_up(&f), 0);
	CHECK_INT(target_get_regs(f.p, f.pid, &r0, NULL), 0);
	/* (the set below the red zone, put back after) */
	CHECK_INT(target_read_mem(f.p, r0.rsp - 512, &keep, 8, NULL), 0);
	CHECK_INT(target_write_mem(f.p, r0.rsp - 512, &set, 8, NULL), 0);
	a[0] = r0.rsp - 512;
	a[3] = 8;
	k = signal_in_call(f.pid, SYS_rt_sigtimedwait, SIGTRAP);
	CHECK(k > 0);
	rc = dbg_cache_inject(&f.d, f.c, f.pid, SYS_rt_sigtimedwait, a, &ret);
	CHECK_INT(waitpid(k, &st, 0), k);
	CHECK_INT(target_write_mem(f.p, r0.rsp - 512, &keep, 8, NULL), 0);
	CHECK_INT(f.c->have_ev, 1);
	CHECK_INT(f.c->ev.kind, TARGET_STOP_SIGNAL);
	CHECK_INT(f.c->ev.signo, SIGTRAP);
	CHECK(f.c->ev.addr == f.c->sc + 2);	/* (the call ran) */
	CHECK_INT(rc, 0);
	CHECK_INT(ret, -EINTR);
	CHECK_INT(target_pending_signal(f.p, f.pid), SIGTRAP);
	CHECK_INT(target_get_regs(f.p, f.pid, &r, NULL), 0);
	CHECK_INT(r.rip, LOOP_MAIN);
	CHECK_INT(r.rsp, r0.rsp);
	/* the signal pending: no call injected now */
	CHECK_INT(dbg_cache_inject(&f.d, f.c, f.pid, SYS_getpid, a, &ret), -1);
	target_set_pending_signal(f.p, f.pid, 0);
	CHECK_INT(target_thread_end(f.p, &ts), 0);
	tear_down(&f);
}

/* The control page's memfd is the program's descriptor only until the
 * setup closes it: a signal that stops the injected close (here, sent as
 * its step starts) leaves it open; it is closed at the next chance, with
 * the mappings left behind, never left in the program. */
static void shm_setup_close(int interrupt)
{
	struct inject_fix f;
	struct target_stop ts;
	uint64_t a[6] = { 0, REC_MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0 };
	int64_t ret = 0;
	int rc;

	CHECK_INT(set_up(&f), 0);
	f.c->magic = 0x7074646274657374ull;
	CHECK_INT(dbg_cache_inject(&f.d, f.c, f.pid, SYS_mmap, a, &ret), 0);
	CHECK(ret > 0);
	f.c->rec = (uint64_t)ret;
	CHECK_INT(target_write_mem(f.p, f.c->rec + 8, &f.c->magic, 8, NULL), 0);
	if (interrupt) {
		arm_nr = SYS_close;
		arm_sig = SIGUSR1;
	}
	rc = dbg_cache_shm_setup(&f.d, f.c, f.pid);
	CHECK_INT(arm_nr, -1);
	CHECK_INT(rc, interrupt ? -1 : 0);
	CHECK_INT(f.c->have_ev, interrupt);
	if (interrupt) {
		CHECK_INT(f.c->ev.signo, SIGUSR1);
		/* (the signal waits for the thread's resume meanwhile) */
		CHECK_INT(target_pending_signal(f.p, f.pid), SIGUSR1);
		f.c->have_ev = 0;
	}
	CHECK_INT(f.c->ctl ? 1 : 0, !interrupt);
	/* the next chance: where the engine unmaps what was left */
	dbg_cache_shm_close(f.c);
	dbg_cache_leave_behind(&f.d, f.c, f.c->rec, REC_MAP_BYTES, 8);
	dbg_cache_unmap_left(&f.d, f.c);
	CHECK_INT(ptdb_memfds(f.pid), 0);
	CHECK_INT(f.c->nleft, 0);
	if (interrupt)
		CHECK_INT(target_pending_signal(f.p, f.pid), SIGUSR1);
	target_set_pending_signal(f.p, f.pid, 0);
	CHECK_INT(target_thread_end(f.p, &ts), 0);
	tear_down(&f);
}

TEST(shm_setup_closes_memfd)
{
	shm_setup_close(0);
}

TEST(shm_setup_interrupted_close)
{
	shm_setup_close(1);
}

/* A thread stopped at a fork's ptrace event is inside the call, its
 * result not yet in rax: the kernel writes it as the thread resumes.  A
 * call injected there ran (and its registers were put back) with rax
 * then holding the -ENOSYS of the call's entry, which the program got
 * as fork's result.  The injection first lets the fork end (its result
 * in rax, kept by the registers put back): the program's fork succeeds,
 * and so does the injected call. */
TEST(inject_at_fork_event_keeps_result)
{
	struct target_launch_opts o = { .path = "tests/programs/fork_pipe", .disable_aslr = 1 };
	struct target_proc *p = NULL;
	struct dbg_cache *c = calloc(1, sizeof(*c));
	struct dbg_tracee d;
	struct target_stop ts;
	struct ptdb_err err;
	uint64_t a[6] = { 0 };
	int64_t ret = 0;
	pid_t pid;
	int n = 0, rc;

	CHECK(c != NULL);
	CHECK_INT(target_launch(&o, &p, &err), 0);
	pid = target_pid(p);
	memset(&d, 0, sizeof(d));
	d.proc = p;
	d.pid = pid;
	c->tid = pid;
	target_thread_begin(p);
	/* (the fork's event stop: reported as nothing to tell, the thread
	 * left stopped) */
	CHECK_INT(target_thread_cont_raw(p, pid, &err), 0);
	CHECK_INT(target_thread_event(p, 1, &ts), 1);
	CHECK_INT(ts.kind, TARGET_STOP_NONE);
	CHECK_INT(ts.tid, pid);
	CHECK_INT(target_thread_stopped(p, pid), 1);
	c->sc = dbg_cache_find_syscall(&d);
	CHECK(c->sc != 0);
	rc = dbg_cache_inject(&d, c, pid, SYS_getpid, a, &ret);
	CHECK_INT(target_thread_cont_raw(p, pid, &err), 0);
	/* (on through the child's SIGCHLD, delivered) */
	do
		CHECK_INT(target_thread_event(p, 1, &ts), 1);
	while ((ts.kind == TARGET_STOP_NONE || (ts.kind == TARGET_STOP_SIGNAL && ts.signo == SIGCHLD)) && ++n < 100 &&
	       target_thread_cont_raw(p, ts.tid, &err) == 0);
	CHECK_INT(ts.kind, TARGET_STOP_EXITED);
	CHECK_INT(ts.exit_status, 0);	/* (2: fork failed) */
	CHECK_INT(rc, 0);
	CHECK_INT(ret, pid);
	target_free(p);
	free(c);
}

/* Descriptors whose close could not be injected (here: the thread holds
 * a queued event) are noted and closed at the next chance, however many
 * there are: a fifth was dropped, and stayed open in the program. */
TEST(close_fd_keeps_every_left)
{
	struct inject_fix f;
	struct target_stop q, ts;
	uint64_t a[6] = { 1 };
	int64_t fd[6];
	char path[64];
	int n = 6;

	CHECK_INT(set_up(&f), 0);
	for (int i = 0; i < n; i++) {
		CHECK_INT(dbg_cache_inject(&f.d, f.c, f.pid, SYS_dup, a, &fd[i]), 0);
		CHECK(fd[i] > 2);
	}
	memset(&q, 0, sizeof(q));
	q.kind = TARGET_STOP_BREAKPOINT;
	q.tid = f.pid;
	q.addr = LOOP_MAIN;
	CHECK_INT(target_thread_requeue(f.p, &q), 0);
	for (int i = 0; i < n; i++)
		dbg_cache_close_fd(&f.d, f.c, f.pid, fd[i]);
	CHECK_INT(f.c->nleft_fd, n);
	CHECK_INT(target_thread_event(f.p, 0, &ts), 1);
	CHECK_INT(ts.kind, TARGET_STOP_BREAKPOINT);
	dbg_cache_unmap_left(&f.d, f.c);
	CHECK_INT(f.c->nleft_fd, 0);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)f.pid, (int)fd[i]);
		CHECK_INT(access(path, F_OK), -1);
	}
	CHECK_INT(target_thread_end(f.p, &ts), 0);
	tear_down(&f);
}

TEST_MAIN(inject_at_fork_event_keeps_result, inject_keeps_queued_event, inject_checks_gadget, inject_keeps_result_at_signal, shm_setup_closes_memfd,
	  shm_setup_interrupted_close, close_fd_keeps_every_left)
