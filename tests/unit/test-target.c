/* tests/unit/test-target.c: unit tests for target/ (launch, breakpoints,
 * memory, stepping, threads, signals, kill, attach/detach, interrupt). */
#include "target/target.h"
#include "tests/unit/test.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOOP "tests/programs/trace_loop"
#define THREADS "tests/programs/tgt_threads"
#define FPE "tests/programs/tgt_fpe"
#define SPIN "tests/programs/tgt_spin"

static struct target_proc *launch(const char *path)
{
	struct target_launch_opts o = { .path = path, .disable_aslr = 1 };
	struct target_proc *p = NULL;
	struct ptdb_err err;

	if (target_launch(&o, &p, &err) < 0) {
		printf("#   launch %s: %s\n", path, err.msg);
		return NULL;
	}
	return p;
}

static int cont(struct target_proc *p, struct target_stop *st)
{
	struct ptdb_err err;

	if (target_resume(p, &err) < 0 || target_wait(p, st, &err) < 0) {
		printf("#   cont: %s\n", err.msg);
		return -1;
	}
	return 0;
}

TEST(launch_exit_status)
{
	struct target_proc *p = launch(LOOP);
	struct target_stop st;
	struct ptdb_err err;
	pid_t pid;

	CHECK(p);
	pid = target_pid(p);
	CHECK(target_is_alive(p));
	CHECK_INT(target_threads(p, NULL, 0), 1);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_EXITED);
	CHECK_INT(st.exit_status, 0);
	CHECK(!target_is_alive(p));
	CHECK_INT(target_wait(p, &st, &err), TARGET_ERR_NOPROC);
	CHECK_INT(target_resume(p, &err), TARGET_ERR_NOPROC);
	target_free(p);
	CHECK_INT(waitpid(pid, NULL, WNOHANG), -1);
}

TEST(breakpoint_hit_and_mask)
{
	struct target_proc *p = launch(LOOP);
	uint64_t main_ = test_nm(LOOP, "main");
	struct user_regs_struct r;
	struct target_stop st;
	struct ptdb_err err;
	unsigned char b[4];

	CHECK(p);
	CHECK(main_ == 0x401106);
	CHECK_INT(target_bp_insert(p, main_, &err), 0);
	CHECK(target_bp_planted(p, main_));
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_BREAKPOINT);
	CHECK_INT(st.addr, main_);
	CHECK_INT(st.tid, target_pid(p));
	CHECK_INT(target_get_regs(p, st.tid, &r, &err), 0);
	CHECK_INT(r.rip, main_);
	CHECK_INT(target_read_mem(p, main_, b, 4, &err), 0);
	CHECK_INT(b[0], 0x55); /* push %rbp, not 0xCC */
	CHECK_INT(b[1], 0x48);
	CHECK(target_stop_id(p) >= 2);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_EXITED);
	CHECK_INT(st.exit_status, 0);
	target_free(p);
}

TEST(breakpoint_in_loop_refcount)
{
	struct target_proc *p = launch(LOOP);
	struct target_stop st;
	struct ptdb_err err;
	int hits = 0;

	CHECK(p);
	CHECK_INT(target_bp_insert(p, 0x40111a, &err), 0);
	CHECK_INT(target_bp_insert(p, 0x40111a, &err), 0);
	CHECK_INT(target_bp_remove(p, 0x40111a, &err), 0);
	CHECK(target_bp_planted(p, 0x40111a));
	for (;;) {
		CHECK_INT(cont(p, &st), 0);
		if (st.kind != TARGET_STOP_BREAKPOINT)
			break;
		CHECK_INT(st.addr, 0x40111a);
		hits++;
	}
	CHECK_INT(hits, 4);
	CHECK_INT(st.kind, TARGET_STOP_EXITED);
	CHECK_INT(st.exit_status, 0);
	CHECK(target_bp_remove(p, 0x40111a, &err) < 0);
	target_free(p);
}

TEST(step_advances_over_bp)
{
	struct target_proc *p = launch(LOOP);
	struct user_regs_struct r;
	struct target_stop st;
	struct ptdb_err err;
	unsigned char b;

	CHECK(p);
	CHECK_INT(target_bp_insert(p, 0x401106, &err), 0);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_BREAKPOINT);
	CHECK_INT(target_step(p, st.tid, &err), 0);
	CHECK_INT(target_wait(p, &st, &err), 0);
	CHECK_INT(st.kind, TARGET_STOP_STEP);
	CHECK_INT(st.addr, 0x401107);
	CHECK_INT(target_get_regs(p, st.tid, &r, &err), 0);
	CHECK_INT(r.rip, 0x401107);
	/* the breakpoint was re-planted behind the step */
	CHECK_INT(target_read_mem(p, 0x401106, &b, 1, &err), 0);
	CHECK_INT(b, 0x55);
	CHECK(target_bp_planted(p, 0x401106));
	CHECK_INT(target_step(p, st.tid, &err), 0);
	CHECK_INT(target_wait(p, &st, &err), 0);
	CHECK_INT(st.kind, TARGET_STOP_STEP);
	CHECK_INT(st.addr, 0x40110a);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_EXITED);
	target_free(p);
}

TEST(memory_write_and_errors)
{
	struct target_proc *p = launch(LOOP);
	struct target_map *m = NULL;
	struct ptdb_err err;
	unsigned char b[2] = { 0x90, 0x90 }, c[2];
	int n = 0, found = 0;

	CHECK(p);
	CHECK_INT(target_read_mem(p, 0x10, c, 1, &err), -1);
	CHECK_STR(err.msg, "memory read failed for 0x10");
	CHECK(target_bp_insert(p, 0x10, &err) < 0);
	CHECK_INT(target_bp_insert(p, 0x40111a, &err), 0);
	CHECK_INT(target_write_mem(p, 0x40111a, b, 2, &err), 0);
	CHECK_INT(target_read_mem(p, 0x40111a, c, 2, &err), 0);
	CHECK_INT(c[0], 0x90);
	CHECK_INT(c[1], 0x90);
	CHECK_INT(target_maps(p, &m, &n, &err), 0);
	for (int i = 0; i < n; i++)
		if (m[i].start <= 0x401106 && 0x401106 < m[i].end &&
		    m[i].perms[2] == 'x' && strstr(m[i].path, "trace_loop"))
			found = 1;
	free(m);
	CHECK(found);
	target_free(p);
}

TEST(launch_missing_file)
{
	struct target_launch_opts o = { .path = "tests/programs/no_such_prog" };
	struct target_proc *p = (struct target_proc *)1;
	struct ptdb_err err;

	CHECK_INT(target_launch(&o, &p, &err), -1);
	CHECK(p == NULL);
	CHECK(strstr(err.msg, "No such file or directory"));
	o.path = "tests/unit/test.h"; /* not executable */
	CHECK_INT(target_launch(&o, &p, &err), -1);
	CHECK(strstr(err.msg, "Permission denied"));
	CHECK_INT(waitpid(-1, NULL, WNOHANG), -1); /* no zombie */
}

struct hook_counts { int created, exited, stops, resumes; };
static void h_created(void *c, struct target_proc *p, pid_t t, unsigned i)
{ (void)p; (void)t; (void)i; ((struct hook_counts *)c)->created++; }
static void h_exited(void *c, struct target_proc *p, pid_t t, unsigned i)
{ (void)p; (void)t; (void)i; ((struct hook_counts *)c)->exited++; }
static void h_stop(void *c, struct target_proc *p, const struct target_stop *s)
{ (void)p; (void)s; ((struct hook_counts *)c)->stops++; }
static void h_resume(void *c, struct target_proc *p)
{ (void)p; ((struct hook_counts *)c)->resumes++; }

TEST(threads_indices_names)
{
	struct target_proc *p = launch(THREADS);
	struct hook_counts hc = { 0, 0, 0, 0 };
	struct target_hooks h = { h_resume, h_stop, h_created, h_exited, &hc };
	struct target_thread_info ti[8];
	struct target_stop st;
	struct ptdb_err err;
	int n;

	CHECK(p);
	target_set_hooks(p, &h);
	CHECK_INT(target_bp_insert(p, test_nm(THREADS, "threads_ready"), &err), 0);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_BREAKPOINT);
	CHECK_INT(st.tid, target_pid(p));
	n = target_threads(p, ti, 8);
	CHECK_INT(n, 3);
	for (int i = 0; i < 3; i++) {
		struct user_regs_struct r;

		CHECK_INT(ti[i].index, i + 1);
		CHECK_INT(target_get_regs(p, ti[i].tid, &r, &err), 0);
	}
	CHECK_STR(ti[0].name, "tgt_threads");
	CHECK_STR(ti[1].name, "worker1");
	CHECK_STR(ti[2].name, "worker2");
	CHECK_INT(hc.created, 2);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_EXITED);
	CHECK_INT(st.exit_status, 0);
	CHECK_INT(hc.exited, 3);
	CHECK_INT(hc.stops, 2);
	CHECK_INT(hc.resumes, 2);
	target_free(p);
}

TEST(threads_racing_breakpoints)
{
	struct target_proc *p = launch(THREADS);
	uint64_t hit = test_nm(THREADS, "hit_me");
	struct target_stop st;
	struct ptdb_err err;
	pid_t tids[4];
	int hits = 0;

	CHECK(p);
	CHECK_INT(target_bp_insert(p, hit, &err), 0);
	for (;;) {
		CHECK_INT(cont(p, &st), 0);
		if (st.kind != TARGET_STOP_BREAKPOINT)
			break;
		CHECK_INT(st.addr, hit);
		CHECK(hits < 4);
		tids[hits++] = st.tid;
	}
	CHECK_INT(hits, 2);
	CHECK(tids[0] != tids[1]);
	CHECK_INT(st.kind, TARGET_STOP_EXITED);
	CHECK_INT(st.exit_status, 0);
	target_free(p);
}

TEST(sigfpe_signal_stop)
{
	struct target_proc *p = launch(FPE);
	struct target_stop st;

	CHECK(p);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_SIGNAL);
	CHECK_INT(st.signo, SIGFPE);
	CHECK_INT(st.si_code, FPE_INTDIV);
	CHECK_STR(target_signal_description(st.signo, st.si_code),
		  "integer divide by zero");
	CHECK_STR(target_signal_description(SIGSEGV, SEGV_MAPERR),
		  "address not mapped to object");
	CHECK_INT(target_pending_signal(p, st.tid), SIGFPE);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_SIGNALED);
	CHECK_INT(st.signo, SIGFPE);
	target_free(p);
}

TEST(sigfpe_suppressed_keeps_faulting)
{
	struct target_proc *p = launch(FPE);
	struct target_stop st;

	CHECK(p);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_SIGNAL);
	target_set_pending_signal(p, st.tid, 0);
	CHECK_INT(cont(p, &st), 0); /* re-executes the idiv */
	CHECK_INT(st.kind, TARGET_STOP_SIGNAL);
	CHECK_INT(st.signo, SIGFPE);
	target_free(p);
}

TEST(kill_no_zombie)
{
	struct target_proc *p = launch(SPIN);
	struct target_stop st;
	struct ptdb_err err;
	pid_t pid;

	CHECK(p);
	pid = target_pid(p);
	CHECK_INT(target_kill(p), 0);
	CHECK(!target_is_alive(p));
	CHECK_INT(target_wait(p, &st, &err), TARGET_ERR_NOPROC);
	CHECK_INT(waitpid(pid, NULL, WNOHANG), -1);
	CHECK_INT(errno, ECHILD);
	CHECK_INT(kill(pid, 0), -1);
	target_free(p);
}

/* Killed from outside while stopped with three threads: the tracer reaps
 * each thread's end before the leader's can come, and right after the
 * kill the threads are still on their way out; target_poll_exit waits
 * for them instead of reporting a live process that no request reaches. */
TEST(poll_exit_after_outside_kill)
{
	struct target_proc *p = launch(THREADS);
	struct target_stop st;
	struct ptdb_err err;

	CHECK(p);
	CHECK_INT(target_bp_insert(p, test_nm(THREADS, "threads_ready"), &err), 0);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_BREAKPOINT);
	CHECK_INT(target_threads(p, NULL, 0), 3);
	CHECK_INT(kill(target_pid(p), SIGKILL), 0);
	memset(&st, 0, sizeof(st));
	CHECK_INT(target_poll_exit(p, &st, &err), 1);
	CHECK_INT(st.kind, TARGET_STOP_SIGNALED);
	CHECK_INT(st.signo, SIGKILL);
	CHECK(!target_is_alive(p));
	target_free(p);
}

TEST(interrupt_running)
{
	struct target_proc *p = launch(SPIN);
	struct target_stop st;
	struct ptdb_err err;
	pid_t pid;

	CHECK(p);
	pid = target_pid(p);
	CHECK_INT(target_resume(p, &err), 0);
	nanosleep(&(struct timespec){ 0, 50000000 }, NULL);
	CHECK_INT(target_interrupt(p), 0);
	CHECK_INT(target_wait(p, &st, &err), 0);
	CHECK_INT(st.kind, TARGET_STOP_INTERRUPT);
	CHECK_INT(target_pending_signal(p, st.tid), 0);
	CHECK_INT(target_resume(p, &err), 0);
	nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	CHECK_INT(target_interrupt(p), 0);
	CHECK_INT(target_wait(p, &st, &err), 0);
	CHECK_INT(st.kind, TARGET_STOP_INTERRUPT);
	target_free(p);
	CHECK_INT(waitpid(pid, NULL, WNOHANG), -1);
}

/* Waits until the process's main thread is in a ptrace stop, consuming
 * nothing (the target's wait takes it later). */
static void await_stopped(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)pid, &si, WSTOPPED | WNOWAIT | __WALL) < 0 && errno == EINTR)
		;
}

/* An interrupt that comes while the process already stopped for another
 * reason (a breakpoint, not yet waited for): the breakpoint's stop is the
 * one reported, and the SIGSTOP the interrupt sent, still queued, does not
 * show up later as an interrupt stop at the next continue or step. */
TEST(interrupt_after_other_stop_does_not_linger)
{
	for (int stepping = 0; stepping < 2; stepping++) {
		struct target_proc *p = launch(LOOP);
		uint64_t main_ = test_nm(LOOP, "main");
		struct target_stop st;
		struct ptdb_err err;

		CHECK(p);
		CHECK_INT(target_bp_insert(p, main_, &err), 0);
		CHECK_INT(target_resume(p, &err), 0);
		await_stopped(target_pid(p));	/* trapped on main's int3 */
		CHECK_INT(target_interrupt(p), 0);
		CHECK_INT(target_wait(p, &st, &err), 0);
		CHECK_INT(st.kind, TARGET_STOP_BREAKPOINT);
		CHECK_INT(st.addr, main_);
		if (stepping) {
			CHECK_INT(target_step(p, st.tid, &err), 0);
			CHECK_INT(target_wait(p, &st, &err), 0);
			CHECK_INT(st.kind, TARGET_STOP_STEP);
			CHECK_INT(st.addr, main_ + 1);	/* push %rbp */
		}
		CHECK_INT(cont(p, &st), 0);
		CHECK_INT(st.kind, TARGET_STOP_EXITED);
		target_free(p);
	}
}

/* A SIGSTOP from outside is still a stop of its own (signal SIGSTOP). */
TEST(outside_sigstop_reported)
{
	struct target_proc *p = launch(LOOP);
	uint64_t main_ = test_nm(LOOP, "main");
	struct target_stop st;
	struct ptdb_err err;
	pid_t pid, k;

	CHECK(p);
	pid = target_pid(p);
	CHECK_INT(target_bp_insert(p, main_, &err), 0);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_BREAKPOINT);
	k = fork();
	if (k == 0) {
		kill(pid, SIGSTOP);
		_exit(0);
	}
	CHECK_INT(waitpid(k, NULL, 0), k);
	CHECK_INT(target_bp_remove(p, main_, &err), 0);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_INTERRUPT);
	CHECK(st.sender == k);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_EXITED);
	target_free(p);
}

/* A signal queued for a thread while the process is stopped for the user
 * (here a SIGTRAP sent from outside; in the wild the SIGTRAP of an int3
 * that a thread ran as the stop's interrupt came, while the stop was
 * another thread's) is taken when the breakpoints are parked: its stop
 * is kept for the next continue, not lost. */
TEST(park_keeps_queued_trap_stop)
{
	struct target_proc *p = launch(LOOP);
	uint64_t main_ = test_nm(LOOP, "main");
	struct target_stop st;
	struct ptdb_err err;
	pid_t pid;

	CHECK(p);
	pid = target_pid(p);
	CHECK_INT(target_bp_insert(p, main_, &err), 0);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_BREAKPOINT);
	CHECK_INT(syscall(SYS_tgkill, pid, pid, SIGTRAP), 0);
	target_park(p);
	CHECK_INT(cont(p, &st), 0);
	CHECK_INT(st.kind, TARGET_STOP_SIGNAL);
	CHECK_INT(st.signo, SIGTRAP);
	CHECK_INT(st.tid, pid);
	target_kill(p);
	target_free(p);
}

/* Two stops of one thread given back by a collector (the cache engine's
 * settle() holds an interrupt's stop and a signal's that came as it
 * stepped the thread out of a stub): both are reported, in order, by the
 * next target_thread_event calls.  The second was refused (one event a
 * thread): the signal was delivered at the next resume, its stop never
 * reported. */
TEST(requeue_keeps_two_stops_of_a_thread)
{
	struct target_proc *p = launch(LOOP);
	struct target_stop in = { .kind = TARGET_STOP_INTERRUPT }, sig = { .kind = TARGET_STOP_SIGNAL },
			   st, ex;

	CHECK(p);
	in.tid = sig.tid = target_pid(p);
	sig.signo = SIGUSR1;
	target_thread_begin(p);
	CHECK_INT(target_thread_requeue(p, &in), 0);
	CHECK_INT(target_thread_requeue(p, &sig), 0);
	CHECK(target_thread_has_event(p, in.tid));
	CHECK_INT(target_thread_event(p, 0, &st), 1);
	CHECK_INT(st.kind, TARGET_STOP_INTERRUPT);
	CHECK_INT(target_thread_event(p, 0, &st), 1);
	CHECK_INT(st.kind, TARGET_STOP_SIGNAL);
	CHECK_INT(st.signo, SIGUSR1);
	CHECK(!target_thread_has_event(p, in.tid));
	CHECK_INT(target_thread_event(p, 0, &st), 0);
	/* a thread holds a bounded number: the fifth is refused */
	for (int i = 0; i < 4; i++)
		CHECK_INT(target_thread_requeue(p, &sig), 0);
	CHECK_INT(target_thread_requeue(p, &sig), -1);
	for (int i = 0; i < 4; i++)
		CHECK_INT(target_thread_event(p, 0, &st), 1);
	CHECK_INT(target_thread_end(p, &ex), 0);
	target_kill(p);
	target_free(p);
}

TEST(attach_detach)
{
	struct target_thread_info ti[4];
	struct user_regs_struct r;
	struct target_proc *p;
	struct target_stop st;
	struct ptdb_err err;
	char path[64], buf[256], state = '?';
	pid_t child = fork();
	FILE *f;

	if (child == 0) {
		for (;;)
			pause();
	}
	CHECK(child > 0);
	nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	CHECK_INT(target_attach(child, &p, &err), 0);
	CHECK(!target_was_launched(p));
	CHECK_INT(target_threads(p, ti, 4), 1);
	CHECK_INT(ti[0].tid, child);
	CHECK_INT(target_get_regs(p, child, &r, &err), 0);
	CHECK_INT(target_detach(p, &err), 0);
	CHECK_INT(target_wait(p, &st, &err), TARGET_ERR_NOPROC);
	target_free(p);
	nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
	f = fopen(path, "r");
	CHECK(f);
	if (fgets(buf, sizeof(buf), f))
		sscanf(strrchr(buf, ')') + 2, "%c", &state);
	fclose(f);
	CHECK_INT(waitpid(child, NULL, WNOHANG), 0); /* still running */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK_INT(state, 'S');
}

TEST(attach_missing)
{
	struct target_proc *p = NULL;
	struct ptdb_err err;

	CHECK_INT(target_attach(999999999, &p, &err), -1);
	CHECK(p == NULL);
}

TEST_MAIN(launch_exit_status, breakpoint_hit_and_mask,
	  breakpoint_in_loop_refcount, step_advances_over_bp,
	  memory_write_and_errors, launch_missing_file, threads_indices_names,
	  threads_racing_breakpoints, sigfpe_signal_stop,
	  sigfpe_suppressed_keeps_faulting, kill_no_zombie, poll_exit_after_outside_kill,
	  interrupt_running, interrupt_after_other_stop_does_not_linger, outside_sigstop_reported,
	  park_keeps_queued_trap_stop, requeue_keeps_two_stops_of_a_thread,
	  attach_detach, attach_missing)
