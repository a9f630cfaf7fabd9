/* cmd/trace-progress.h: the one-line progress of a traced run on a
 * terminal (instructions so far, rate, buffer fill), gone at the stop. */
#ifndef CMD_TRACE_PROGRESS_H
#define CMD_TRACE_PROGRESS_H

#include <stdio.h>

struct dbg;

/* Shows the progress of d's traced runs on tty (a terminal; NULL: never). */
void cmd_trace_progress_install(struct dbg *d, FILE *tty);
/* Clears the line if it is on screen (before the stop is reported). */
void cmd_trace_progress_clear(struct dbg *d);
/* Writes n bytes of the program's output to ptdb's stdout, the progress
 * line cleared before and drawn again after (any thread). */
void cmd_trace_progress_output(const char *buf, size_t n);

#endif
