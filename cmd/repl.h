/* cmd/repl.h: the interactive prompt (libedit). */
#ifndef PTDB_CMD_REPL_H
#define PTDB_CMD_REPL_H

#include "core/session/session.h"

/* Runs the prompt until quit or end of input.  Returns CMD_EXIT or CMD_OK. */
int repl_run(struct session *s);
/* The history file: $PTDB_HISTORY, else ~/.ptdb_history (static buffer). */
const char *repl_history_path(void);

#endif
