/* target/target_debugreg.c: the x86 debug registers (DR0-DR3, DR6, DR7)
 * through PTRACE_POKEUSER, for hardware watchpoints, on every thread of
 * the process; and a probe of whether the machine delivers their traps
 * (virtual machines may accept the registers and never trap). */
#include "target/target.h"
#include "target/target_int.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define DR_OFF(i) (offsetof(struct user, u_debugreg) + (size_t)(i) * sizeof(long))

uint64_t target_dr7_encode(const struct target_dr_slot slot[4])
{
	uint64_t dr7 = 0;

	for (int i = 0; i < 4; i++) {
		unsigned len;

		if (!slot[i].enabled)
			continue;
		/* LEN: 00 one byte, 01 two, 11 four, 10 eight */
		len = slot[i].len == 2 ? 1 : slot[i].len == 4 ? 3 : slot[i].len == 8 ? 2 : 0;
		dr7 |= 1ull << (i * 2);				/* L0..L3 */
		dr7 |= (uint64_t)(slot[i].rw & 3) << (16 + i * 4);	/* R/W0..3 */
		dr7 |= (uint64_t)len << (18 + i * 4);			/* LEN0..3 */
	}
	return dr7;
}

static int poke_all(pid_t tid, const uint64_t dr[4], uint64_t dr7)
{
	/* DR7 off first so a half-programmed slot never arms */
	if (ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFF(7), (void *)0) < 0)
		return -1;
	for (int i = 0; i < 4; i++)
		if (ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFF(i), (void *)(uintptr_t)dr[i]) < 0)
			return -1;
	return ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFF(7), (void *)(uintptr_t)dr7) < 0 ? -1 : 0;
}

void target_dr_apply(struct target_proc *p, pid_t tid)
{
	(void)poke_all(tid, p->dr, p->dr7);
}

int target_dr_set(struct target_proc *p, const struct target_dr_slot slot[4],
		  struct ptdb_err *err)
{
	if (!p->alive)
		return ptdb_err_code(err, PTDB_E_NO_PROCESS, "Process must be launched.");
	for (int i = 0; i < 4; i++)
		p->dr[i] = slot[i].enabled ? slot[i].addr : 0;
	p->dr7 = target_dr7_encode(slot);
	for (int i = 0; i < p->nthreads; i++) {
		struct target_thread *t = &p->threads[i];

		if (!t->stopped || t->starting)
			continue;	/* programmed at its first stop */
		if (poke_all(t->tid, p->dr, p->dr7) < 0)
			return ptdb_err_set(err, "cannot set the debug registers of thread %d: %s",
					    (int)t->tid, strerror(errno));
	}
	return 0;
}

int target_dr_get(struct target_proc *p, pid_t tid, int i, uint64_t *v, struct ptdb_err *err)
{
	long r;

	(void)p;
	errno = 0;
	r = ptrace(PTRACE_PEEKUSER, tid, (void *)DR_OFF(i), NULL);
	if (r == -1 && errno)
		return ptdb_err_set(err, "cannot read debug register %d of thread %d: %s", i,
				    (int)tid, strerror(errno));
	*v = (uint64_t)r;
	return 0;
}

int target_dr_clear_status(struct target_proc *p, pid_t tid)
{
	(void)p;
	return ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFF(6), (void *)0) < 0 ? -1 : 0;
}

static volatile int probe_var;

int target_dr_probe(void)
{
	struct target_dr_slot s[4] = { { 1, (uint64_t)(uintptr_t)&probe_var, 4, 1 } };
	uint64_t dr[4] = { (uint64_t)(uintptr_t)&probe_var, 0, 0, 0 };
	int status, trapped = -1;
	pid_t c = fork();

	if (c < 0)
		return -1;
	if (c == 0) {
		/* the child: stopped for the parent, then writes the variable */
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(2);
		raise(SIGSTOP);
		probe_var = 1;
		_exit(0);
	}
	while (waitpid(c, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFSTOPPED(status) || poke_all(c, dr, target_dr7_encode(s)) < 0) {
		kill(c, SIGKILL);
		waitpid(c, &status, 0);
		return -1;
	}
	ptrace(PTRACE_CONT, c, NULL, NULL);
	while (waitpid(c, &status, 0) < 0)
		if (errno != EINTR)
			break;
	if (WIFSTOPPED(status))
		trapped = WSTOPSIG(status) == SIGTRAP;
	else if (WIFEXITED(status))
		trapped = WEXITSTATUS(status) == 0 ? 0 : -1;
	if (!WIFEXITED(status) && !WIFSIGNALED(status)) {
		kill(c, SIGKILL);
		while (waitpid(c, &status, 0) < 0 && errno == EINTR)
			;
	}
	return trapped;
}
