/* cmd/script.h: running command scripts (-s FILE, -o CMD, command source). */
#ifndef PTDB_CMD_SCRIPT_H
#define PTDB_CMD_SCRIPT_H

#include <stdio.h>
#include "cmd/cmd.h"

/* Runs one command echoed as "(ptdb) <line>" first, as in batch mode.
 * Comment lines (#) and blank lines are skipped without echo.
 * Returns the status; *failed is set when the command failed. */
enum cmd_status script_run_line(struct session *s, const char *line, FILE *out, FILE *err, int *failed);
/* Runs every line of in.  Stops early on CMD_EXIT, and on failure when the
 * stop-on-error setting is true. */
enum cmd_status script_run_file(struct session *s, FILE *in, FILE *out, FILE *err, int *failed);

/* The script file path opened for reading, or NULL with a one-line
 * reason in why: a regular file, or a pipe (a FIFO, or '<(...)') whose
 * writer is there already; a FIFO with no writer, a directory, a device
 * or a socket is refused at once, never waited on. */
FILE *script_open(const char *path, char *why, size_t n);

#endif
