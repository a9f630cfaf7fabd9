/* core/session/watch.h: watchpoints (core/session/dbg_watch.c).  Up to four, as the x86
 * debug registers allow: DR0-DR3 where this machine delivers their traps
 * (probed once), else exact software checking: while one is enabled the
 * process runs out of the code cache up to an instruction that may touch
 * a watched range (or one instruction at a time), and that instruction's
 * memory accesses (disasm_mem_access) are compared with the watched
 * ranges.  A hit stops after the instruction, as the hardware does.
 * Functions returning int: >= 0 success, < 0 failure with err filled. */
#ifndef PTDB_CORE_WATCH_H
#define PTDB_CORE_WATCH_H

#include "core/session/dbg.h"

#define DBG_WATCH_MAX 4
enum { DBG_WATCH_READ = 1, DBG_WATCH_WRITE = 2 };

struct dbg_watchpoint {
	unsigned id;
	uint64_t addr;
	unsigned size;		/* 1, 2, 4, 8 */
	int access;		/* DBG_WATCH_READ | DBG_WATCH_WRITE */
	int enabled;
	unsigned hits;
	char *spec;		/* "watchpoint set variable": the variable, else NULL */
	const struct sym_type *type;	/* its type (NULL: shown as hex bytes) */
	char *decl;		/* where the variable watched is declared
				 * ("/src/prog.c:12:9"), or NULL */
	char *cond;		/* stop only when true (NULL: always) */
	uint8_t old[8], now[8];	/* the value before and after the last hit */
};

/* Adds an enabled watchpoint; errors: no process, a size other than 1, 2,
 * 4, 8, an address not a multiple of the size, all four in use. */
struct dbg_watchpoint *dbg_watch_add(struct dbg *d, uint64_t addr, unsigned size, int access,
				     const char *spec, const struct sym_type *type,
				     const char *decl, struct ptdb_err *err);
struct dbg_watchpoint *dbg_watch_find(struct dbg *d, unsigned id);
/* The watchpoints in id order: *n of them (the array is d's). */
struct dbg_watchpoint *dbg_watch_all(struct dbg *d, int *n);
int dbg_watch_delete(struct dbg *d, unsigned id);
/* Enabling counts against the four slots. */
int dbg_watch_enable(struct dbg *d, struct dbg_watchpoint *w, int on, struct ptdb_err *err);
void dbg_watch_set_condition(struct dbg_watchpoint *w, const char *cond);
/* "hardware", "software (code cache)" or "software (single-step)": how
 * they are checked here (probes the machine the first time).  Software
 * checking runs the threads out of the cache engine's code cache
 * (core/session/dbg_watch_cache.c) up to each instruction that may touch
 * a watched range, which it single-steps and checks; with
 * trace.software.engine ptrace it single-steps every instruction. */
const char *dbg_watch_method(struct dbg *d);
/* The software checking's code cache so far: checks that trapped (an
 * instruction that may touch a range, then single-stepped) and the
 * threads' entries into the cache. */
void dbg_watch_cache_counts(struct dbg *d, uint64_t *traps, uint64_t *entries);
/* The value bytes v (w->size of them) as LLDB shows them: by the
 * variable's type, else as a 64-bit hex number. */
void dbg_watch_format(struct dbg *d, const struct dbg_watchpoint *w, const uint8_t *v,
		      char *buf, size_t n);
/* Reads the current value of w into v; 0, or -1 unreadable. */
int dbg_watch_read(struct dbg *d, const struct dbg_watchpoint *w, uint8_t *v);
/* Forgets the variables' types (their modules are going). */
void dbg_watch_drop_types(struct dbg *d);
void dbg_watch_free(struct dbg *d);

#endif
