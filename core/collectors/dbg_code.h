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

/* The code as it ran (core/collectors/dbg_code_pages.c over trace/pages.h):
 * the pages of the instructions both engines record, a version each time
 * they changed.  dbg_code_pages: t's store (made on first use);
 * dbg_code_pages_writer: th's packets say its generation. */
struct dbg_trace;
struct dbg_tracee;
struct disasm_insn;
struct trace_swc_thread;
struct trace_pages *dbg_code_pages(struct dbg_trace *t);
void dbg_code_pages_writer(struct dbg_trace *t, struct trace_swc_thread *th);
/* A system call about to run with registers r: code it may change is
 * read again when next run, in a new generation. */
void dbg_code_pages_syscall(struct dbg_tracee *d, const struct user_regs_struct *r);
/* Thread th (NULL: none in particular) is about to run in, at pc: its
 * page kept if its bytes are new (the generation said at once when they
 * changed unannounced). */
void dbg_code_pages_insn(struct dbg_tracee *d, struct trace_swc_thread *th,
			 const struct disasm_insn *in, uint64_t pc);
/* The bytes of a page as an engine read them to run them: t's copy of
 * them (kept until t's trace ends), NULL with no trace. */
const uint8_t *dbg_code_pages_page(struct dbg_trace *t, uint64_t page, const uint8_t *bytes);

#endif
