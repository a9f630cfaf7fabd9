/* cmd/dump.h: what the two halves of "thread trace dump instructions"
 * share: the options, the state of one thread's listing, and the
 * formatting (cmd/dump-format.c) the walk (cmd/cmd-trace-dump.c) calls. */
#ifndef CMD_DUMP_H
#define CMD_DUMP_H

#include "cmd/cmd-trace.h"
#include "cmd/json-stream.h"
#include "core/tracing/cursor.h"
#include "core/session/session.h"

#include <stdio.h>

struct dump_opts {
	uint64_t count, skip;
	int64_t id;		/* -i, or -1 */
	int count_given, forwards, all, raw, kinds, times, events, only_events;
	int json, pretty, cont;
	int source;		/* -m: source lines among the instructions */
	int64_t from, to;	/* --from/--to: an instruction id range, or -1 */
};

struct memo;

struct dump {
	struct cmd_ctx *ctx;
	struct dbg *d;
	FILE *out;
	struct disasm *ds;
	struct cmd_trace_clock clk;
	const struct dump_opts *o;
	int width;
	/* the symbol context of the previous line */
	const char *func, *file;
	unsigned line, column;
	int have_ctx;
	int prev_error;		/* "...missing instructions" once per run of errors */
	struct cmd_jstream *json;	/* -j/-J: the array, written as it goes */
	/* -m: the source line shown last */
	const char *src_file;
	unsigned src_line;
	/* replaying this thread: the cursor's instruction id, marked "->" */
	int64_t cursor;
	struct dbg_cursor *cur;	/* over the decoded trace */
	struct dump_cont *cont;	/* this thread's -C */
	/* each address's text, made once per dump (open addressing) */
	struct memo *memo;
	size_t mcap, mn;
	/* the listing, written in large pieces */
	size_t on;
	char obuf[1 << 16];
};

/* The listing's buffer, written out (before anything else writes to out). */
void dump_out_flush(struct dump *p);
/* Instruction id at item index, at ip: its line or JSON item. */
void dump_print_insn(struct dump *p, uint64_t id, uint64_t index, uint64_t ip);
/* An event or error at item index, before instruction id. */
void dump_print_side(struct dump *p, uint64_t id, uint64_t index, const struct dbg_item *it);
/* Frees the per-address text the listing made. */
void dump_memo_clear(struct dump *p);

#endif
