/* cmd/cmd-trace.h: what the trace commands (cmd-trace*.c) share: choosing
 * the threads a command is about and naming them. */
#ifndef PTDB_CMD_CMD_TRACE_H
#define PTDB_CMD_CMD_TRACE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cmd/cmd.h"
#include "core/session/dbg.h"

/* The threads a dump or export is about (indices, 'all', or the selected
 * one) of a traced process, in a heap array of *n (free it), however many
 * there are.  -1 after printing the error. */
int cmd_trace_thread_list(struct cmd_ctx *ctx, const struct cmd_args *a, pid_t **tids, int *n);
/* The thread's index ("thread #N"). */
int cmd_trace_thread_index(struct dbg *d, pid_t tid);
/* A live process for a trace command: 0, or -1 after the error ("Process
 * not available", "Process must be launched", a loaded trace's "Tracing is
 * not supported...", or without any target "invalid target, ..." unless
 * starts).  cmd/trace-threads.c, as the two above. */
int cmd_trace_need_live(struct cmd_ctx *ctx, int starts);

struct json_object;
struct trace_decoded;
struct trace_swc_thread;

/* cmd-trace-items.c: trace items in words.  Timestamps (-t) of a decoded
 * trace: nanoseconds since tracing started when the TSC conversion is known
 * (dbg_tsc_known), raw TSC otherwise. */
struct cmd_trace_clock {
	struct trace_decoded *dec;
	const struct dbg *d;
	int conv;		/* 0: no conversion, raw TSC */
	int has_start;		/* relative to tracing's start, else to the first timestamp */
	uint64_t base_ns;	/* times are shown relative to it */
};
void cmd_trace_clock_init(struct cmd_trace_clock *c, struct dbg *d, struct trace_decoded *dec);
/* LLDB's "[19691630.226 ns]", "[tsc=N]" without a conversion, or
 * "[unavailable]", for item index.  Returns buf. */
const char *cmd_trace_clock_text(const struct cmd_trace_clock *c, uint64_t index, char *buf,
				 size_t n);
/* JSON: "timestamp_ns" (with times: a decimal string, or null) and "tsc". */
void cmd_trace_clock_json(const struct cmd_trace_clock *c, uint64_t index, int times,
			  struct json_object *o);
size_t cmd_trace_clock_json_text(const struct cmd_trace_clock *c, uint64_t index, int times,
				 char *buf, size_t n);
struct dbg_item;
/* 1 for items shown as "(error) ...": gaps and overflows. */
int cmd_trace_is_error(const struct dbg_item *it);
/* LLDB's name of an event: "software disabled tracing", "HW clock tick"... */
const char *cmd_trace_event_name(const struct dbg_item *it);
/* An event or error as a listing shows it: "(event) HW clock tick [<tsc>]",
 * "(event) trace synchronization point [offset = 0x1331]", "(error) <libipt's
 * text>[: <address>] (trace offset 0x..)".  Returns buf. */
const char *cmd_trace_item_text(const struct dbg_item *it, char *buf, size_t n);

/* cmd-trace-dump.c: "thread trace dump instructions". */
enum cmd_status cmd_trace_dump_instructions(struct cmd_ctx *ctx, const struct cmd_args *a);
/* The thread's decoded trace, showing progress on a terminal when it takes
 * long and stopping at Ctrl-C (inside cmd_busy_begin/end; cmd/progress.h).
 * -1 after printing the error ("interrupted"). */
int cmd_trace_decode(struct cmd_ctx *ctx, struct trace_swc_thread *th, pid_t tid,
		     struct trace_decoded **dec);
/* dump info's Timestamps, Events and Errors sections in LLDB's wording,
 * as text and as members of the JSON threadStats object. */
void cmd_trace_info_sections(struct dbg *d, struct trace_decoded *dec, FILE *out);
/* dump info -v: the software engine and, for the cache engine, what it did
 * (cmd/cmd-trace-cache.c). */
void cmd_trace_cache_info(struct dbg *d, FILE *out);
void cmd_trace_info_json(struct dbg *d, struct trace_decoded *dec, struct json_object *stats);

#endif
