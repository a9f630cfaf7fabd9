/* cmd/bpcond.h: breakpoint conditions, ignore counts and thread filters
 * (cmd/cmd-bpcond.c) for cmd-breakpoint.c. */
#ifndef PTDB_CMD_BPCOND_H
#define PTDB_CMD_BPCOND_H

#include <stdio.h>

#include "cmd/cmd.h"
#include "core/session/dbg.h"

/* The options of "breakpoint set": location and -c -i -t -x. */
extern const struct cmd_opt bp_cond_opts_for_set[];
extern const struct cmd_node cmd_bp_modify_node;
/* Checks -i -t -x (error printed, -1); then applies -c -i -t -x to bp. */
int bp_check_options(struct cmd_ctx *ctx, const struct cmd_args *a);
void bp_apply_options(struct cmd_ctx *ctx, const struct cmd_args *a, struct dbg_bp *bp);
/* " Options: ignore: 2 enabled tid: 0x4d2 " after the list header. */
void bp_print_options(FILE *out, const struct dbg_bp *bp);
/* "Condition: a == 1" and a blank line, after the header's line. */
void bp_print_condition(FILE *out, const struct dbg_bp *bp);

#endif
