/* core/tracing/cursor.h: reading a decoded trace — the instruction cache (each
 * instruction of the code read and disassembled once) and the cursor over
 * a thread's immutable decoded trace that every reader walks (dump,
 * replay, function calls, bundles, export). */
#ifndef PTDB_CORE_CURSOR_H
#define PTDB_CORE_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "disasm/disasm.h"

struct dbg;
struct trace_decoded;	/* a thread's decoded trace: opaque, core reads it */

/* ---- a decoded trace's items, as core gives them ---- */

/* What an item is (the values of trace/decode.h's, which
 * core/tracing/dbg_items.c checks at compile time). */
enum dbg_item_kind {
	DBG_ITEM_INSN = 0,
	DBG_ITEM_GAP,		/* decode error; error text and offset set */
	DBG_ITEM_EVENT,
};

enum dbg_event_kind {
	DBG_EV_ENABLED = 1,	/* ip = where tracing resumed; resumed flag */
	DBG_EV_DISABLED,	/* synchronous disable (after SYSCALL); ip 0 */
	DBG_EV_ASYNC_DISABLED,	/* stop / signal / INT; ip = the 'at' address */
	DBG_EV_OVERFLOW,	/* ip = resume ip or 0 */
	DBG_EV_TICK,		/* time changed; ip = the branch */
	DBG_EV_OTHER,		/* any other libipt event; libipt_type set */
	DBG_EV_SYNC,		/* a PSB the decoder (re)synchronized at: offset */
	DBG_EV_CPU,		/* execution goes on on another CPU: cpu set */
	DBG_EV_NKINDS
};

/* One item: an instruction, a gap or an event.  The timing points are
 * exactly the items with has_tsc (a DBG_EV_TICK is recorded whenever the
 * time changes). */
struct dbg_item {
	enum dbg_item_kind kind;
	uint64_t ip;		/* instruction address, the event's ip, or a
				 * gap's ip when known (0 if not) */
	const char *error;	/* gap, overflow: the decoder's text (static) */
	uint64_t offset;	/* gap: trace offset of the error; sync: of the PSB */
	int event;		/* event: enum dbg_event_kind */
	int resumed;		/* enabled event: resumed where it stopped */
	int hw;			/* disabled: by the hardware at a privilege
				 * change, not asynchronously; enabled: the
				 * return from such a disable */
	int libipt_type;	/* event: libipt's event type */
	uint64_t tsc;
	int has_tsc;
	int cpu;		/* CPU event: the new CPU's id */
	uint32_t code_tag;	/* instruction: the code version it ran in
				 * (trace/pages.h), 0: the memory's */
};

/* A decoded trace's counts: instructions, items (instructions + gaps +
 * events), gaps; its serial (unique in the process: state kept about one
 * decoded trace is keyed by it). */
uint64_t dbg_decoded_insn_count(const struct trace_decoded *dec);
uint64_t dbg_decoded_item_count(const struct trace_decoded *dec);
uint64_t dbg_decoded_gap_count(const struct trace_decoded *dec);
uint64_t dbg_decoded_serial(const struct trace_decoded *dec);
/* The item index of instruction id (< the instruction count), O(log n). */
uint64_t dbg_decoded_insn_item(const struct trace_decoded *dec, uint64_t id);
/* Gaps and events ("side items"), stored apart: how many, and the k-th
 * with its item index. */
uint64_t dbg_decoded_side_count(const struct trace_decoded *dec);
int dbg_decoded_side(const struct trace_decoded *dec, uint64_t k, uint64_t *index,
		     struct dbg_item *it);
/* Events by kind (events[k] for enum dbg_event_kind k < nkinds) and the
 * timestamp range, from the side table. */
void dbg_decoded_summary(const struct trace_decoded *dec, uint64_t *events, int nkinds,
			 uint64_t *tsc_lo, uint64_t *tsc_hi, int *have_tsc);
/* The timing points around item index: the last item at or before it
 * with a timestamp (lo) and the first after it (hi). */
struct dbg_time_span {
	int has_lo, has_hi;
	uint64_t lo_index, lo_tsc, hi_index, hi_tsc;
};
void dbg_decoded_time_span(const struct trace_decoded *dec, uint64_t index,
			   struct dbg_time_span *s);
/* Errors by the decoder's text: up to max distinct texts (static) with
 * their counts; how many were filled. */
int dbg_decoded_error_kinds(const struct trace_decoded *dec, const char **texts,
			    uint64_t *counts, int max);

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
/* The instruction at ip as it ran in code version tag (an item's
 * code_tag, not 0: code that changed while traced), into *e. */
const struct dbg_insn *dbg_insn_version(struct dbg *d, uint64_t ip, uint32_t tag, struct dbg_insn *e);
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
/* The code generation (trace/pages.h) the item at the cursor ran in. */
uint64_t dbg_cursor_gen(const struct dbg_cursor *c);
int dbg_cursor_seek_insn(struct dbg_cursor *c, uint64_t id);
/* The next or previous item: 0, 1 at the end (the cursor stays), -1 as
 * above. */
int dbg_cursor_next(struct dbg_cursor *c);
int dbg_cursor_prev(struct dbg_cursor *c);
const struct dbg_item *dbg_cursor_item(const struct dbg_cursor *c);
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
