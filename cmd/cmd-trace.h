/* cmd/cmd-trace.h: what the trace commands (cmd-trace*.c) share: choosing
 * the threads a command is about and naming them. */
#ifndef PTDB_CMD_CMD_TRACE_H
#define PTDB_CMD_CMD_TRACE_H

#include <sys/types.h>

#include "cmd/cmd.h"
#include "core/dbg.h"

#define CMD_TRACE_MAX_THREADS 1024

/* The threads a dump or export is about (indices, 'all', or the selected
 * one) of a traced process: tids[] (room for CMD_TRACE_MAX_THREADS).
 * -1 after printing the error. */
int cmd_trace_threads(struct cmd_ctx *ctx, const struct cmd_args *a, pid_t *tids, int *n);
/* The thread's index ("thread #N"). */
int cmd_trace_thread_index(struct dbg *d, pid_t tid);

#endif
