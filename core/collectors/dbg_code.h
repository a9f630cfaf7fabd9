/* core/collectors/dbg_code.h: the system calls that change code under
 * both software engines (core/collectors/dbg_code.c): the cache engine
 * drops its translations there, the ptrace engine its breakpoints and
 * blocks. */
#ifndef PTDB_CORE_DBG_CODE_H
#define PTDB_CORE_DBG_CODE_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

enum { DBG_CODE_NONE, DBG_CODE_MAPS, DBG_CODE_WRITE };

/* What the system call about to run with registers r in process pid does
 * to code: DBG_CODE_NONE nothing; DBG_CODE_MAPS it maps, unmaps, moves or
 * protects memory, or discards pages ([*lo, *hi) the addresses it
 * touches, empty for fresh memory, everything for calls that move
 * memory); DBG_CODE_WRITE it writes into a process's memory file
 * (/proc/PID/mem: code written, even read-only code), [*lo, *hi) where. */
int dbg_code_call(pid_t pid, const struct user_regs_struct *r, uint64_t *lo, uint64_t *hi);

#endif
