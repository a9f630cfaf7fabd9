/* core/collectors/dbg_code.c: the system calls that change code (see
 * dbg_code.h). */
#include "core/collectors/dbg_code.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Is fd of pid a process's memory file? */
static int mem_file(pid_t pid, int fd)
{
	char path[64], link[128];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
	n = readlink(path, link, sizeof(link) - 1);
	return n >= 10 && !memcmp(link + n - 4, "/mem", 4) && !strncmp(link, "/proc/", 6);
}

int dbg_code_call(pid_t pid, const struct user_regs_struct *r, uint64_t *lo, uint64_t *hi)
{
	*lo = r->rdi & ~4095ull;
	*hi = r->rdi + r->rsi;
	switch (r->rax) {
	case SYS_write: case SYS_pwrite64: case SYS_writev: case SYS_pwritev: case SYS_pwritev2:
		if (!mem_file(pid, (int)r->rdi))
			return DBG_CODE_NONE;
		*lo = 0, *hi = ~0ull;
		if (r->rax == SYS_pwrite64)	/* (its offset is the address) */
			*lo = r->r10 & ~4095ull, *hi = r->r10 + r->rdx;
		return DBG_CODE_WRITE;
	case SYS_mmap:
		if (!(r->r10 & MAP_FIXED))
			*lo = *hi = 0;	/* (only fresh memory) */
		return DBG_CODE_MAPS;
	case SYS_munmap: case SYS_mprotect: case SYS_pkey_mprotect: case SYS_madvise:
		return DBG_CODE_MAPS;
	case SYS_mremap:
		/* what it moves, and where to when fixed; else it moves to
		 * fresh memory (realloc moves large data blocks so: flushing
		 * all code there cost the cache engine its every block) */
		if (r->r10 & MREMAP_FIXED) {
			*lo = r->rdi < r->r8 ? *lo : r->r8 & ~4095ull;
			*hi = r->rdi + r->rsi > r->r8 + r->rdx ? *hi : r->r8 + r->rdx;
		}
		return DBG_CODE_MAPS;
	case SYS_shmat: case SYS_shmdt: case SYS_remap_file_pages:
		*lo = 0, *hi = ~0ull;	/* (where to: anywhere) */
		return DBG_CODE_MAPS;
	default:
		return DBG_CODE_NONE;
	}
}
