/* cmd/outfile.h: the files a command writes (-F, -f): every write is
 * checked, and the first failure (a full disk, a file size limit) is what
 * the command reports when it closes the file. */
#ifndef PTDB_CMD_OUTFILE_H
#define PTDB_CMD_OUTFILE_H

#include <stdio.h>

#include "cmd/cmd.h"

/* path opened for writing (truncated), or NULL after cmd_error. */
FILE *cmd_outfile_open(struct cmd_ctx *ctx, const char *path);

/* Closes f (from cmd_outfile_open): st, or CMD_ERROR after
 * "error: cannot write 'PATH': REASON" when a write or the close failed. */
enum cmd_status cmd_outfile_close(struct cmd_ctx *ctx, const char *path, FILE *f,
				  enum cmd_status st);

/* 1 once a write to f failed: the command may stop early. */
int cmd_outfile_failed(FILE *f);

#endif
