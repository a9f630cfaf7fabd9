/* cmd/report.h: how stops, threads and frames are worded (LLDB's layout),
 * shared by the process, thread, frame and breakpoint commands. */
#ifndef PTDB_CMD_REPORT_H
#define PTDB_CMD_REPORT_H

#include <stdio.h>

#include "core/session/dbg.h"

/* "breakpoint 1.1", "step over", "signal SIGFPE: integer divide by zero";
 * "" when tid has no stop reason. */
const char *report_reason(struct dbg *d, pid_t tid, char *buf, size_t n);
/* "    frame #0: 0x0000000000401106 trace_loop`main at trace_loop.c:2:7"
 * (indent and the selected-frame marker are the caller's). */
void report_frame_line(FILE *out, struct dbg *d, const struct dbg_frame *f,
		       unsigned index);
/* The same for a frame of thread tid, with the function's arguments
 * ("add(a=1, b=2)") when the process is live; report_frame_line takes
 * the selected thread's. */
void report_frame_line_tid(FILE *out, struct dbg *d, pid_t tid,
			   const struct dbg_frame *f, unsigned index);
/* The source listing (or disassembly without line info) at a frame. */
void report_frame_source(FILE *out, struct dbg *d, const struct dbg_frame *f,
			 unsigned index);
/* The lines the last report_frame_source listed: its file (as DWARF
 * names it), their first line and count; returns the count of such
 * listings (0: none yet).  "source list" goes on from there, as lldb-16
 * goes on after a stop's lines. */
unsigned long report_source_shown(const char **file, unsigned *first, unsigned *count);
/* When a listing came after the count before (report_source_shown's),
 * it counts from the stop's line on, as after lldb-16's step commands;
 * returns the count of listings. */
unsigned long report_source_from_line(unsigned long before);
/* "* thread #1, name = 'x', stop reason = ..." */
void report_thread_line(FILE *out, struct dbg *d, pid_t tid);
/* The selected thread's top/selected frame with source. */
void report_thread_frame(FILE *out, struct dbg *d, pid_t tid, unsigned frame);
/* After a run command: "Process N stopped ..." or "Process N exited ...". */
void report_stop(FILE *out, struct dbg *d, const struct dbg_stop *stop);
/* "Process N exited with status = 0 (0x00000000)" */
void report_exit(FILE *out, struct dbg *d, const struct dbg_stop *stop);

/* After a run command: reports the stop, runs the hit breakpoint's
 * commands and, with auto-continue, continues and does it again
 * (cmd-breakpoint.c).  r < 0: prints err instead. */
struct cmd_ctx;
enum cmd_status cmd_after_stop(struct cmd_ctx *ctx, int r, struct dbg_stop *stop,
			       struct ptdb_err *err);

/* "Return value: (int) $0 = 3" for the next stop report, the value a
 * finished function of type ret left in tid (cmd-thread.c; ret NULL:
 * nothing). */
struct sym_type;
void cmd_note_return_value(struct dbg *d, pid_t tid, const struct sym_type *ret);

/* A signal by name (SIGUSR2, USR2) or number; -1 if none. */
int cmd_parse_signal(const char *s);

/* LLDB's "Watchpoint N hit:" with the old and new values (cmd/cmd-watch.c). */
void report_watch_hit(FILE *out, struct dbg *d, unsigned id);

#endif
