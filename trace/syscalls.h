/* trace/syscalls.h: what the software collector needs to know of Linux
 * x86-64 system calls. */
#ifndef PTDB_TRACE_SYSCALLS_H
#define PTDB_TRACE_SYSCALLS_H

#include <stdint.h>

/* 1 if system call nr (with its second argument, for futex) never blocks,
 * so the collector steps it like any instruction instead of letting the
 * thread run on its own: while one thread runs on its own the others are
 * stepped for as long as the kernel takes, and the schedule would follow
 * the kernel's timing.  rt_sigreturn is here too (it does not return to
 * the next instruction), and clone/clone3 (they return with the new
 * thread stopped, which joins the schedule right there), and vfork: the
 * child runs in the parent's memory until it execs or exits, so the
 * breakpoint a parked call plants at the return address would trap in
 * the child (not traced: killed by it); stepped, the parent waits for
 * the child without one. */
int trace_syscall_returns_at_once(uint64_t nr, uint64_t arg1);

#endif
