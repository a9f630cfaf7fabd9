/* cmd/complete.h: Tab completion of command arguments (complete.c):
 * setting names, help paths, variables and their members, register
 * names, breakpoint ids, thread indexes.  cmd-help.c's completion of
 * command words, options, paths and function names calls it. */
#ifndef CMD_COMPLETE_H
#define CMD_COMPLETE_H

struct dbg;
struct cmd_node;

typedef void (*cmd_add_fn)(void *ctx, const char *candidate);

/* The candidates for word, a positional argument of node after the
 * positional words args[0..nargs), by what its syntax names there
 * (<setting-name>, <cmd-name>, <variable-path>, <expr>, <reg-name>,
 * <breakpoint-id>, <watchpoint-id>, <thread-index>, <signal-name>); each
 * candidate is the whole word.  d may be NULL (no session).  1 when the
 * syntax named a kind (even with no candidate), else 0. */
int cmd_complete_arg(const struct cmd_node *node, struct dbg *d, char **args, int nargs,
		     const char *word, cmd_add_fn add, void *ctx);

/* Register names (cmd-register.c). */
void cmd_register_names(cmd_add_fn add, void *ctx);

#endif
