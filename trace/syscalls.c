/* trace/syscalls.c: the software collector's system-call table. */
#include "trace/syscalls.h"

int trace_syscall_returns_at_once(uint64_t nr, uint64_t arg1)
{
	switch (nr) {
	case 5: case 8: case 9: case 10: case 11: case 12:	/* fstat lseek mmap mprotect munmap brk */
	case 13: case 14: case 15:	/* rt_sigaction rt_sigprocmask rt_sigreturn */
	case 24: case 25: case 28:	/* sched_yield mremap madvise */
	case 39: case 56: case 63:	/* getpid clone uname */
	case 58:	/* vfork (see trace/syscalls.h) */
	case 96: case 97: case 102: case 104: case 107: case 108: case 110:	/* get*id, getrlimit */
	case 131: case 157: case 158: case 186:	/* sigaltstack prctl arch_prctl gettid */
	case 201: case 204: case 218: case 228: case 229:	/* time, sched_getaffinity, ... */
	case 262: case 273: case 302: case 332: case 334: case 435:	/* ... rseq clone3 */
	case 329:	/* pkey_mprotect */
	case 318:	/* getrandom (blocks only before the kernel's pool is ready, at boot) */
		return 1;
	case 202: {	/* futex: the wake operations */
		unsigned cmd = (unsigned)arg1 & 0x7f;

		return cmd == 1 || cmd == 5 || cmd == 10;
	}
	default:
		return 0;
	}
}
