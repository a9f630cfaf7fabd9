/* core/collectors/dbg_swc_code.c: the ptrace engine and code that changes.
 * Its breakpoints go only where the program cannot write (private,
 * executable, read-only mappings): code in a writable or shared mapping
 * (a JIT's, a second view of a memfd) or where ptdb cannot write is
 * single-stepped, and a system call that maps, unmaps, moves or protects
 * memory, or writes /proc/PID/mem, takes the engine's breakpoints out of
 * the memory it touches and its blocks are decoded again: code rewritten
 * after such a call is never run with a stale block or a lost breakpoint,
 * and code moved with mremap carries no int3 of ptdb's. */
#include "core/collectors/dbg_swc_int.h"
#include "core/collectors/dbg_code.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

/* The mappings, read again after a mapping call has run (the first
 * question after it: the call runs by a single step right after). */
static const struct target_map *map_of(struct dbg_swc *s, struct dbg_tracee *d, uint64_t addr)
{
	for (int pass = 0; pass < 2; pass++) {
		if (s->maps_stale || !s->maps) {
			free(s->maps);
			s->maps = NULL;
			s->nmaps = s->maps_stale = 0;
			if (target_maps(d->proc, &s->maps, &s->nmaps, NULL) < 0)
				return NULL;
		}
		if (s->last_map < s->nmaps && addr >= s->maps[s->last_map].start &&
		    addr < s->maps[s->last_map].end)
			return &s->maps[s->last_map];
		for (int i = 0; i < s->nmaps; i++)
			if (addr >= s->maps[i].start && addr < s->maps[i].end) {
				s->last_map = i;
				return &s->maps[i];
			}
		s->maps_stale = 1;	/* mapped since: read again, once */
	}
	return NULL;
}

int dbg_swc_map_range(struct dbg_tracee *d, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	const struct target_map *m = map_of(dbg_swc(d), d, addr);

	if (!m)
		return -1;
	*lo = m->start;
	*hi = m->end;
	return 0;
}

/* Is the memory-sharing child still running (not gone, not a zombie)? */
static int child_runs(pid_t child)
{
	char path[64], buf[256], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
	if (!(f = fopen(path, "r")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

void dbg_swc_vm_child(struct dbg_tracee *d, pid_t child)
{
	struct dbg_swc *s = dbg_swc(d);

	dbg_swc_unplant_sticky(d);
	dbg_swc_bcache_clear(s);
	s->vm_child = child;
	s->vm_checks = 0;
}

int dbg_swc_plantable(struct dbg_tracee *d, uint64_t addr)
{
	struct dbg_swc *s = dbg_swc(d);
	const struct target_map *m;

	/* (whether the child is gone: now and then, the blocks built
	 * meanwhile are stepped until then) */
	if (s->vm_child) {
		if (s->vm_checks++ % 64 || child_runs(s->vm_child))
			return 0;
		s->vm_child = 0;
		dbg_swc_bcache_clear(s);
	}
	m = map_of(s, d, addr);

	return m && m->perms[2] == 'x' && m->perms[1] != 'w' && m->perms[3] == 'p';
}

/* Does [lo, hi) meet executable memory (as mapped before the call: the
 * only place blocks come from)?  A program that maps and unmaps data keeps
 * its blocks. */
static int touches_code(struct dbg_swc *s, struct dbg_tracee *d, uint64_t lo, uint64_t hi)
{
	if (!map_of(s, d, lo) && !s->maps)
		return 1;
	for (int i = 0; i < s->nmaps; i++)
		if (s->maps[i].perms[2] == 'x' && s->maps[i].start < hi && s->maps[i].end > lo)
			return 1;
	return 0;
}

void dbg_swc_code_syscall(struct dbg_tracee *d, const struct user_regs_struct *r)
{
	struct dbg_swc *s = dbg_swc(d);
	uint64_t lo, hi;
	size_t k = 0;
	int kind = dbg_code_call(d->pid, r, &lo, &hi), exec;

	if (kind == DBG_CODE_NONE)
		return;
	/* (memory made executable: its blocks, built while it was not,
	 * step; built again, they run) */
	exec = (r->rax == SYS_mprotect || r->rax == SYS_pkey_mprotect || r->rax == SYS_mmap) && (r->rdx & PROT_EXEC);
	if (lo >= hi || (!exec && !touches_code(s, d, lo, hi))) {
		s->maps_stale |= kind == DBG_CODE_MAPS;
		return;
	}
	if (kind == DBG_CODE_MAPS)
		s->maps_stale = 1;
	for (size_t i = 0; i < s->nsticky; i++) {
		if (s->sticky[i] >= lo && s->sticky[i] < hi) {
			if (d->host->alive(d->s))
				target_bp_remove(d->proc, s->sticky[i], NULL);
		} else {
			s->sticky[k++] = s->sticky[i];
		}
	}
	s->nsticky = k;
	/* (the blocks: all decoded again, as they are reached) */
	dbg_swc_bcache_clear(s);
}
