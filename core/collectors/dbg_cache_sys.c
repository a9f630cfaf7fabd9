/* core/collectors/dbg_cache_sys.c: system calls in the code cache.  A
 * SYSCALL in a translated block (trace/ccache_sys.c) runs there, with no
 * stop, when its number is listed in its region's table: those that
 * return at once (trace_syscall_returns_at_once: the ptrace engine steps
 * them, the thread keeps its turn) and that the engine need not see.  It
 * must see the calls that make or end threads and processes (clone,
 * clone3, fork, vfork, execve, execveat, exit, exit_group), that change
 * mappings (mmap, mprotect, pkey_mprotect, munmap, mremap, madvise: code
 * may go), that change how signals reach the program or where from
 * (rt_sigaction, rt_sigreturn, sigaltstack), and the few that change the
 * thread's own machinery (arch_prctl, prctl, rseq); and those that may
 * block (a parked call: the other threads go on meanwhile).  Any other
 * number leaves the cache before its SYSCALL, which the collector's loop
 * then runs as before.  Where a thread stopped in or after the check, its
 * original state (dbg_cache_sys_back). */
#include "core/collectors/dbg_cache.h"
#include "trace/ccache.h"
#include "trace/syscalls.h"

#include <string.h>
#include <sys/syscall.h>

#include "core/collectors/dbg_cache_int.h"

static int engine_sees(unsigned nr)
{
	switch (nr) {
	case SYS_mmap: case SYS_mprotect: case SYS_munmap: case SYS_mremap: case SYS_madvise:
	case SYS_pkey_mprotect:
	case SYS_rt_sigaction: case SYS_rt_sigreturn: case SYS_sigaltstack:
	case SYS_clone: case SYS_clone3: case SYS_fork: case SYS_vfork:
	case SYS_execve: case SYS_execveat: case SYS_exit: case SYS_exit_group:
	case SYS_arch_prctl: case SYS_prctl: case SYS_rseq:
		return 1;
	default:
		return 0;
	}
}

/* 1 if system call nr runs in the cache. */
int dbg_cache_sys_runs(unsigned nr)
{
	/* (futex: only its wake operations return at once; by number it
	 * is out) */
	return nr < CCACHE_SYSTAB_ENTRIES && nr != SYS_futex && trace_syscall_returns_at_once(nr, 0) &&
	       !engine_sees(nr);
}

int dbg_cache_sys_table_write(struct dbg_tracee *d, uint64_t region)
{
	uint8_t tab[CCACHE_SYSTAB_ENTRIES];

	for (unsigned nr = 0; nr < CCACHE_SYSTAB_ENTRIES; nr++)
		tab[nr] = (uint8_t)dbg_cache_sys_runs(nr);
	if (dbg_swc_timers_masked(d))
		tab[SYS_rt_sigprocmask] = 0;
	return target_write_mem(d->proc, region + CCACHE_SYSTAB_OFF, tab, sizeof(tab), NULL);
}

/* While ptdb blocks a held timer signal in a thread's mask, the program's
 * rt_sigprocmask leaves the cache: the collector gives the thread its
 * own mask back before the call reads or sets it. */
void dbg_cache_sys_sync(struct dbg_cache *c)
{
	int m = dbg_swc_timers_masked(c->d);
	uint8_t on = (uint8_t)dbg_cache_sys_runs(SYS_rt_sigprocmask) && !m;

	if (m == c->sys_masked)
		return;
	for (int i = 0; i < c->nreg; i++)
		target_write_mem(c->d->proc, c->reg[i].addr + CCACHE_SYSTAB_OFF + SYS_rt_sigprocmask, &on, 1, NULL);
	c->sys_masked = m;
}

int dbg_cache_sys_back(struct dbg_cache *c, const struct region *g, const struct ccache_block *b, int where,
		       int idx, struct user_regs_struct *r)
{
	const struct ccache_insn *ci = &b->ins[idx];
	uint64_t v[2];
	unsigned saved = 0;

	if (where == CCACHE_AT_SYSRET) {
		/* (the kernel's restart of an interrupted call moves the pc
		 * back 2 bytes: onto the original SYSCALL now) */
		r->rip = r->rcx = ci->addr + ci->len;
		return 0;
	}
	if (ccache_sys_where(ci->coff, (uint32_t)(r->rip - b->base), &saved) != 1 ||
	    target_read_mem(c->d->proc, dbg_cache_slots(c, g, c->tid) + CCACHE_SLOT_S1, v, sizeof(v), NULL) < 0)
		return -1;
	if (saved & 1)
		r->rcx = v[0];
	if (saved & 2)
		r->r11 = v[1];
	r->rip = ci->addr;
	return 0;
}
