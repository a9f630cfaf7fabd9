/* tests/unit/test-cache-inject.c: the cache engine's system calls
 * injected into a stopped thread (core/collectors/dbg_cache_mem.c) and the
 * events target/ holds queued for that thread. */
#include "core/collectors/dbg_cache_int.h"
#include "tests/unit/test.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

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

TEST_MAIN(inject_keeps_queued_event, inject_checks_gadget)
