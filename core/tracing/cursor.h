/* core/tracing/cursor.h: reading a decoded trace — the instruction cache (each
 * instruction of the code read and disassembled once) and the cursor over
 * a thread's immutable decoded trace that every reader walks (dump,
 * replay, function calls, bundles, export). */
#ifndef PTDB_CORE_CURSOR_H
#define PTDB_CORE_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "disasm/disasm.h"
#include "trace/decode.h"

struct dbg;

/* One instruction of the code as the traces see it. */
struct dbg_insn {
	uint64_t ip;
	int ok;			/* 0: unreadable or undecodable at ip */
	size_t nbytes;		/* bytes readable at ip (up to 16) */
	struct disasm_insn in;	/* when ok */
};

/* The instruction at ip through the session's one instruction cache:
 * read and disassembled on the first use since the code may have
 * changed (another stop, process or loaded trace, or disassembly
 * flavor), then the cached copy.  Never NULL; valid until the next call
 * that may fill the cache. */
const struct dbg_insn *dbg_insn_cached(struct dbg *d, uint64_t ip);
/* Lookups, and how many of them read and disassembled (misses). */
void dbg_icache_stats(struct dbg *d, uint64_t *lookups, uint64_t *misses);
void dbg_icache_free(struct dbg *d);

/* What decoded traces are cached by: the process's stop id (a loaded or
 * exited trace never changes: 0). */
uint64_t dbg_trace_stop_id(struct dbg *d);

/* A cursor over one decoded trace: item index and instruction id, the
 * item, and its instruction.  Sequential steps are O(1); seeks O(log n). */
struct dbg_cursor;
struct dbg_cursor *dbg_cursor_new(struct dbg *d, const struct trace_decoded *dec);
void dbg_cursor_free(struct dbg_cursor *c);
/* 0, or -1 when out of range or the instructions there cannot be read
 * (the item's ip is then the block's last known address, or 0). */
int dbg_cursor_seek_item(struct dbg_cursor *c, uint64_t index);
int dbg_cursor_seek_insn(struct dbg_cursor *c, uint64_t id);
/* The next or previous item: 0, 1 at the end (the cursor stays), -1 as
 * above. */
int dbg_cursor_next(struct dbg_cursor *c);
int dbg_cursor_prev(struct dbg_cursor *c);
const struct trace_item *dbg_cursor_item(const struct dbg_cursor *c);
uint64_t dbg_cursor_index(const struct dbg_cursor *c);
/* The item's instruction id: an instruction's own, else the id of the
 * instruction after it (events and errors sit between instructions). */
uint64_t dbg_cursor_id(const struct dbg_cursor *c);
/* An instruction item's instruction (through dbg_insn_cached), else NULL. */
const struct dbg_insn *dbg_cursor_insn(struct dbg_cursor *c);
/* The next_ip function every walk of a decoded trace uses (through the
 * instruction cache); ctx is the struct dbg. */
uint64_t dbg_cursor_next_ip(void *ctx, uint64_t ip);

#endif
