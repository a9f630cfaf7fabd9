/* cmd/replay.h: moving the replay cursor from the stepping commands
 * (cmd-replay.c). */
#ifndef PTDB_CMD_REPLAY_H
#define PTDB_CMD_REPLAY_H

#include "cmd/cmd.h"
#include "core/session/dbg.h"

/* Moves the selected thread's cursor (dir -1 back, +1 forward; backward
 * from the live process starts replay at the end of its trace) and reports
 * where it stopped; forward past the end leaves replay mode. */
enum cmd_status cmd_replay_run(struct cmd_ctx *ctx, int dir, enum dbg_replay_kind k);

#endif
