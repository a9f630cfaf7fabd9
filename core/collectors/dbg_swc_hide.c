/* core/collectors/dbg_swc_hide.c: the ptrace engine's breakpoints out of
 * the program's sight.  Where the CPU and the kernel have protection keys
 * (pku, ospke), a mapping where the engine plants an int3 gets a key of
 * its own (pkey_alloc and pkey_mprotect injected into the stopped thread,
 * its protection unchanged), which every thread's PKRU denies data access
 * to (the kernel's default PKRU denies every key but 0).  The code runs as
 * before (a key does not stop instruction fetches); a load or store there
 * faults (SIGSEGV, SEGV_PKUERR) and ptdb serves it: the int3s of the pages
 * it touches out, PKRU opened for the key, the instruction single-stepped,
 * then both back; the signal never reaches the program, the instruction is
 * in the trace as it ran.  A store the page refuses faults again in that
 * step, as untraced (SEGV_ACCERR).  At the end of a run (the int3s out)
 * and before a system call that maps, protects or moves that memory,
 * forks, execs or is handed a pointer into it, the mappings get key 0
 * back (the key is freed at the end of the run).  A program that uses
 * protection keys itself (a pkey system call, a WRPKRU, a PKRU that
 * allows the key) turns it off for the session: the int3s are then
 * visible as before. */
#include "core/collectors/dbg_swc_int.h"
#include "core/collectors/dbg_cache_int.h"
#include "core/collectors/dbg_code.h"
#include "trace/swc.h"

#include <cpuid.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifndef SEGV_PKUERR
#define SEGV_PKUERR 4
#endif
#define XS_SIZE 16384

/* The offset of PKRU in the XSAVE area (CPUID 0xD.9) where the CPU and
 * the kernel have protection keys; 0 otherwise. */
static size_t pkru_offset(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(c & (1u << 3)) || !(c & (1u << 4)))
		return 0;
	if (!__get_cpuid_count(0xd, 9, &a, &b, &c, &d) || a < 4 || b < 576 || b + 4 > XS_SIZE)
		return 0;
	return b;
}

static int active(struct dbg_tracee *d, struct dbg_swc *s)
{
	if (s->hide_off || d->trace->opts.engine != DBG_ENGINE_PTRACE)
		return 0;
	if (!s->pkru_off && !(s->pkru_off = pkru_offset())) {
		s->hide_off = 1;
		return 0;
	}
	return 1;
}

/* Runs one system call in thread t (stopped, no signal waiting), its
 * registers restored.  -1 when it did not run (an event that came
 * instead is given back to the loop), or may not: t holds an event
 * target/ queued for it (a breakpoint's hit that raced another thread's
 * stop), which the step would take in the call's place and lose. */
static int inject(struct dbg_tracee *d, pid_t t, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		  int64_t *ret)
{
	struct dbg_swc *s = dbg_swc(d);
	struct user_regs_struct save;
	struct target_sigsets ss;
	struct target_stop ts;
	uint8_t b[2];

	/* (its bytes checked each time: the program may have unmapped it) */
	if (s->hide_sc && (target_read_mem(d->proc, s->hide_sc, b, 2, NULL) < 0 || b[0] != 0x0f || b[1] != 0x05))
		s->hide_sc = 0;
	if (!s->hide_sc)
		s->hide_sc = dbg_cache_find_syscall(d);
	if (!s->hide_sc || !target_thread_stopped(d->proc, t) || target_thread_has_event(d->proc, t) ||
	    target_pending_signal(d->proc, t) ||
	    target_thread_sigsets(d->pid, t, &ss) < 0 || (ss.pending & ~ss.blocked) ||
	    target_thread_leave_call(d->proc, t) < 0 || target_get_regs(d->proc, t, &save, NULL) < 0)
		return -1;
	if (dbg_cache_syscall_step(d, t, &save, s->hide_sc, nr,
				   (const uint64_t[6]){ a0, a1, a2, a3, save.r8, save.r9 }, &ts, ret) == 0) {
		/* (a signal that came with the call's end: the loop's) */
		if (ts.kind == TARGET_STOP_SIGNAL || ts.kind == TARGET_STOP_INTERRUPT) {
			ts.addr = save.rip;
			target_thread_requeue(d->proc, &ts);
		}
		return 0;
	}
	if (ts.tid == t && ts.kind == TARGET_STOP_SIGNAL &&
	    (ts.signo == SIGSEGV || ts.signo == SIGBUS || ts.signo == SIGILL)) {
		/* (the instruction is gone: another is found next time; the
		 * fault is ptdb's, not the program's) */
		target_set_pending_signal(d->proc, t, 0);
		s->hide_sc = 0;
		return -1;
	}
	if (ts.kind == TARGET_STOP_SIGNAL || ts.kind == TARGET_STOP_INTERRUPT) {
		if (ts.tid == t)
			ts.addr = save.rip;
		target_thread_requeue(d->proc, &ts);
	}
	return -1;
}

/* Thread t's PKRU (*buf its XSAVE area), or -1. */
static int64_t pkru_get(struct dbg_tracee *d, struct dbg_swc *s, pid_t t, size_t *len)
{
	uint32_t v = 0;

	if (!s->xs)
		s->xs = xmalloc(XS_SIZE);
	*len = XS_SIZE;
	if (target_get_xstate(d->proc, t, s->xs, len, NULL) < 0 || *len < s->pkru_off + 4)
		return -1;
	/* (a PKRU in its init state, bit 9 of XSTATE_BV clear, is 0) */
	if (s->xs[512 + 1] & 2)
		memcpy(&v, s->xs + s->pkru_off, 4);
	return v;
}

static int pkru_set(struct dbg_tracee *d, struct dbg_swc *s, pid_t t, uint32_t v)
{
	size_t len;

	if (pkru_get(d, s, t, &len) < 0)
		return -1;
	memcpy(s->xs + s->pkru_off, &v, 4);
	s->xs[512 + 1] |= 2;
	return target_set_xstate(d->proc, t, s->xs, len, NULL);
}

/* A key for this run, which every stopped thread's PKRU denies access to;
 * 0 none now, -1 none this session. */
static int key_alloc(struct dbg_tracee *d, struct dbg_swc *s, pid_t t)
{
	struct target_thread_info *ti;
	int64_t k, before, v;
	size_t len;
	int nt, ok = 1;

	if ((before = pkru_get(d, s, t, &len)) < 0)
		return -1;
	if (inject(d, t, SYS_pkey_alloc, 0, PKEY_DISABLE_ACCESS, 0, 0, &k) < 0)
		return 0;
	if (k <= 0 || k > 15)
		return -1;	/* (ENOSPC: the program holds them, ENOSYS) */
	ok = (before >> (2 * k)) & 1;
	ti = d->host->proc_threads(d->s, &nt);
	for (int i = 0; i < nt && ok; i++)
		if (ti[i].tid != t && target_thread_stopped(d->proc, ti[i].tid) &&
		    (v = pkru_get(d, s, ti[i].tid, &len)) >= 0)
			ok = (v >> (2 * k)) & 1;
	free(ti);
	if (!ok) {
		inject(d, t, SYS_pkey_free, (uint64_t)k, 0, 0, 0, &v);
		return -1;
	}
	return (int)k;
}

/* The hidden mapping (known: or one that refused the key) at addr, or -1. */
static int known_at(const struct dbg_swc *s, uint64_t addr, int plain_too)
{
	for (int i = 0; i < s->nhidden; i++)
		if (addr >= s->hidden[i].lo && addr < s->hidden[i].hi && (plain_too || !s->hidden[i].plain))
			return i;
	return -1;
}

static int hidden_at(const struct dbg_swc *s, uint64_t addr)
{
	return known_at(s, addr, 0);
}

int dbg_swc_hide(struct dbg_tracee *d, pid_t t, uint64_t addr)
{
	struct dbg_swc *s = dbg_swc(d);
	uint64_t lo, hi;
	int64_t rc;
	int k;

	if (!active(d, s) || known_at(s, addr, 1) >= 0)
		return 0;
	if (!s->hide_key) {
		if ((k = key_alloc(d, s, t)) < 0) {
			s->hide_off = 1;
			return 0;
		}
		if (!k)
			return -1;
		s->hide_key = k;
	}
	if (dbg_swc_map_range(d, addr, &lo, &hi) < 0)
		return -1;
	if (inject(d, t, SYS_pkey_mprotect, lo, hi - lo, PROT_READ | PROT_EXEC, (uint64_t)s->hide_key, &rc) < 0)
		return -1;
	if (s->nhidden == s->chidden) {
		s->chidden = s->chidden ? 2 * s->chidden : 16;
		s->hidden = xrealloc(s->hidden, (size_t)s->chidden * sizeof(*s->hidden));
	}
	/* (a mapping the kernel refuses a key, its int3s planted as before) */
	s->hidden[s->nhidden++] = (struct swc_range){ lo, hi, rc != 0 };
	return 0;
}

/* A system call injected into thread *t, else into any other stopped
 * thread (*t then that one); -1 when none could take it. */
static int inject_any(struct dbg_tracee *d, pid_t *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
		      uint64_t a3, int64_t *ret)
{
	struct target_thread_info *ti;
	int nt, rc = -1;

	if (inject(d, *t, nr, a0, a1, a2, a3, ret) == 0)
		return 0;
	ti = d->host->proc_threads(d->s, &nt);
	for (int i = 0; i < nt && rc < 0; i++)
		if (ti[i].tid != *t && inject(d, ti[i].tid, nr, a0, a1, a2, a3, ret) == 0) {
			*t = ti[i].tid;
			rc = 0;
		}
	free(ti);
	return rc;
}

/* Key 0 back on the hidden mappings that meet [lo, hi) (where they are
 * still mapped as ptdb left them).  0, or -1 when no thread could take
 * the call (they stay). */
static int unhide(struct dbg_tracee *d, pid_t t, uint64_t lo, uint64_t hi)
{
	struct dbg_swc *s = dbg_swc(d);
	struct target_map *m;
	int n, k = 0, rc = 0;

	if (!s->nhidden || !d->host->alive(d->s))
		return 0;
	if (target_maps(d->proc, &m, &n, NULL) < 0)
		return -1;
	for (int i = 0; i < s->nhidden; i++) {
		struct swc_range h = s->hidden[i];
		int left = 0;

		if (h.lo >= hi || h.hi <= lo) {
			s->hidden[k++] = h;
			continue;
		}
		if (h.plain)
			continue;
		for (int j = 0; j < n && !left; j++) {
			uint64_t a = m[j].start > h.lo ? m[j].start : h.lo, b = m[j].end < h.hi ? m[j].end : h.hi;
			int64_t r;

			if (a < b && !strcmp(m[j].perms, "r-xp"))
				left = inject_any(d, &t, SYS_pkey_mprotect, a, b - a, PROT_READ | PROT_EXEC, 0, &r) < 0;
		}
		if (left) {
			s->hidden[k++] = h;
			rc = -1;
		}
	}
	s->nhidden = k;
	free(m);
	return rc;
}

/* Everything hidden back to key 0, the key freed. */
static void release(struct dbg_tracee *d, pid_t t)
{
	struct dbg_swc *s = dbg_swc(d);
	int64_t r;

	unhide(d, t, 0, ~0ull);
	if (s->hide_key && !s->nhidden && d->host->alive(d->s) &&
	    inject_any(d, &t, SYS_pkey_free, (uint64_t)s->hide_key, 0, 0, 0, &r) == 0)
		s->hide_key = 0;
}

/* A thread to inject into at the end of a run: the user's, else any. */
static pid_t some_thread(struct dbg_tracee *d)
{
	if (*d->sel_tid && target_thread_stopped(d->proc, *d->sel_tid))
		return *d->sel_tid;
	for (int i = 0; i < d->trace->nth; i++)
		if (target_thread_stopped(d->proc, d->trace->th[i]->tid))
			return d->trace->th[i]->tid;
	return d->pid;
}

void dbg_swc_hide_end(struct dbg_tracee *d)
{
	struct dbg_swc *s = dbg_swc(d);
	pid_t t;

	/* (a read still deferred runs again when its thread resumes,
	 * from code with key 0) */
	for (int i = 0; i < s->ndeferred; i++)
		if (target_thread_index(d->proc, s->deferred[i].tid))
			target_set_pending_signal(d->proc, s->deferred[i].tid, 0);
	s->ndeferred = 0;
	if (!s->nhidden && !s->hide_key)
		return;
	if (!d->host->alive(d->s)) {
		s->nhidden = s->hide_key = 0;
		return;
	}
	t = some_thread(d);
	release(d, t);
	if (s->hide_key) {	/* (a key no thread could free: it stays the program's) */
		s->hide_key = 0;
		s->nhidden = 0;
	}
}

void dbg_swc_hide_gone(struct dbg_tracee *d)
{
	struct dbg_swc *s = dbg_swc(d);

	s->nhidden = s->hide_key = 0;
	s->ndeferred = 0;
	s->hide_sc = 0;
}

void dbg_swc_hide_free(struct dbg_swc *s)
{
	free(s->hidden);
	free(s->xs);
	free(s->deferred);
}

/* The program's own use of protection keys: the engine's off. */
static void turn_off(struct dbg_tracee *d, pid_t t)
{
	release(d, t);
	dbg_swc(d)->hide_off = 1;
}

int dbg_swc_hide_insn(const struct disasm_insn *in)
{
	return in->len == 3 && in->bytes[0] == 0x0f && in->bytes[1] == 0x01 && in->bytes[2] == 0xef;
}

void dbg_swc_hide_step(struct dbg_tracee *d, pid_t t, const struct disasm_insn *in)
{
	if (dbg_swc_hide_insn(in) && !dbg_swc(d)->hide_off)
		turn_off(d, t);
}

void dbg_swc_hide_syscall(struct dbg_tracee *d, pid_t t, const struct user_regs_struct *r)
{
	struct dbg_swc *s = dbg_swc(d);
	const uint64_t args[6] = { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 };
	uint64_t lo, hi, flags = r->rdi;

	if ((r->rax == SYS_pkey_alloc || r->rax == SYS_pkey_free || r->rax == SYS_pkey_mprotect) && !s->hide_off) {
		turn_off(d, t);
		return;
	}
	if (!s->nhidden && !s->hide_key) {
		if (r->rax == SYS_execve || r->rax == SYS_execveat)
			s->hide_sc = 0;	/* (another program's code next) */
		return;
	}
	/* a child that gets this memory (a copy or itself), a new program */
	if (r->rax == SYS_clone3 && target_read_mem(d->proc, r->rdi, &flags, 8, NULL) < 0)
		flags = 0;
	if (r->rax == SYS_fork || r->rax == SYS_vfork || r->rax == SYS_execve || r->rax == SYS_execveat ||
	    ((r->rax == SYS_clone || r->rax == SYS_clone3) && !(flags & 0x10000 /* CLONE_THREAD */))) {
		release(d, t);
		if (r->rax == SYS_execve || r->rax == SYS_execveat)
			s->hide_sc = 0;
		return;
	}
	if (!s->nhidden)
		return;
	if (dbg_code_call(d->pid, r, &lo, &hi) == DBG_CODE_MAPS) {
		unhide(d, t, lo, hi);
		return;
	}
	/* (the kernel reads or writes that memory: it reads the int3s, as
	 * before, rather than fail with EFAULT) */
	for (int i = 0; i < 6; i++)
		if (hidden_at(s, args[i]) >= 0)
			unhide(d, t, args[i], args[i] + 1);
}

/* The engine's block breakpoints near addr in a hidden mapping lifted
 * (lift 1) or back; a user's breakpoint at the same place stays, as the
 * program sees it untraced, and so does one where a thread waits in a
 * system call (it runs meanwhile: lifted, it would run past it).  (A
 * sticky breakpoint is in the list once.) */
static void lift_near(struct dbg_tracee *d, uint64_t addr, int lift)
{
	struct dbg_swc *s = dbg_swc(d);
	uint64_t lo = (addr & ~4095ull) - 4096, hi = (addr & ~4095ull) + 8192;

	if (hidden_at(s, addr) < 0 && hidden_at(s, addr + 64) < 0 && hidden_at(s, addr - 64) < 0)
		return;
	for (size_t i = 0; i < s->nsticky; i++) {
		uint64_t a = s->sticky[i];

		if (a >= lo && a < hi && hidden_at(s, a) >= 0 && target_bp_refs(d->proc, a) == 1)
			target_bp_lift(d->proc, a, lift);
	}
}

int dbg_swc_hide_is_fault(struct dbg_tracee *d, const struct target_stop *ts)
{
	struct dbg_swc *s = dbg_swc(d);

	return s->nhidden && ts->kind == TARGET_STOP_SIGNAL && ts->signo == SIGSEGV && ts->si_code == SEGV_PKUERR &&
	       hidden_at(s, ts->addr) >= 0;
}

void dbg_swc_hide_defer(struct dbg_tracee *d, const struct target_stop *ts)
{
	struct dbg_swc *s = dbg_swc(d);

	if (s->ndeferred == s->cdeferred) {
		s->cdeferred = s->cdeferred ? 2 * s->cdeferred : 8;
		s->deferred = xrealloc(s->deferred, (size_t)s->cdeferred * sizeof(*s->deferred));
	}
	s->deferred[s->ndeferred++] = *ts;
}

int dbg_swc_hide_fault(struct dbg_tracee *d, struct trace_swc_thread *th, const struct target_stop *fault,
		       struct target_stop *out)
{
	const struct target_stop f = *fault, *ts = &f;	/* (out may be fault) */
	struct dbg_swc *s = dbg_swc(d);
	struct user_regs_struct r;
	struct disasm_insn in;
	pid_t t = ts->tid;
	int64_t pkru;
	size_t len;
	int have, rc;

	if (!dbg_swc_hide_is_fault(d, ts) || target_get_regs(d->proc, t, &r, NULL) < 0 ||
	    (pkru = pkru_get(d, s, t, &len)) < 0)
		return 0;
	have = d->host->insn_at(d->s, r.rip, &in) == 0;
	target_set_pending_signal(d->proc, t, 0);
	lift_near(d, ts->addr, 1);
	lift_near(d, r.rsi, 1);
	lift_near(d, r.rdi, 1);
	rc = pkru_set(d, s, t, (uint32_t)pkru & ~(3u << (2 * s->hide_key)));
	memset(out, 0, sizeof(*out));
	if (rc == 0)
		rc = target_thread_step(d->proc, t, out, NULL);
	if (target_thread_index(d->proc, t) && target_thread_stopped(d->proc, t))
		pkru_set(d, s, t, (uint32_t)pkru);
	lift_near(d, ts->addr, 0);
	lift_near(d, r.rsi, 0);
	lift_near(d, r.rdi, 0);
	s->hide_served++;
	if (rc < 0) {
		/* (not stepped: the fault goes to the program) */
		target_set_pending_signal(d->proc, t, SIGSEGV);
		*out = *ts;
		return 1;
	}
	if (out->tid == t && (out->kind == TARGET_STOP_STEP || out->kind == TARGET_STOP_BREAKPOINT) && th && th->tracing && have &&
	    target_get_regs(d->proc, t, &r, NULL) == 0)
		trace_swc_executed(th, &in, r.rip);
	return 1;
}
