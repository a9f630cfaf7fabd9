/* cmd/trace-loss.h: saying when a trace buffer wrapped and history is gone
 * (dump header, dump info, a one-time notice at the next stop). */
#ifndef CMD_TRACE_LOSS_H
#define CMD_TRACE_LOSS_H

#include <stdio.h>

struct dbg;
struct json_object;
struct trace_swc_thread;

/* 1 if th's ring wrapped, with *written the bytes ever written into it
 * and *size its size; 0 if it holds all it got. */
int cmd_trace_wrapped(const struct trace_swc_thread *th, unsigned long long *written,
		      unsigned long long *size);
/* "  (trace buffer wrapped: 1.50 MiB written into 4 KiB; the oldest part
 * of the history is lost)\n" under a dump header, nothing when whole. */
void cmd_trace_loss_line(FILE *out, const struct trace_swc_thread *th);
/* dump info's lines (text) or keys (json, into threadStats). */
void cmd_trace_loss_info(FILE *out, const struct trace_swc_thread *th);
void cmd_trace_loss_json(struct dbg *d, const struct trace_swc_thread *th, struct json_object *stats);
/* At a stop: once per thread started without -s whose buffer has wrapped
 * since, says so and how to keep more. */
void cmd_trace_loss_notice(FILE *out, struct dbg *d);
/* The same warning for thread #index of a loaded trace whose bundle says
 * its buffer wrapped (nothing if it did not). */
void cmd_trace_loss_loaded(FILE *out, unsigned index, const struct trace_swc_thread *th);

/* At the exit report: the traces that stay readable until the next run. */
void cmd_trace_kept_note(FILE *out, struct dbg *d);

#endif
