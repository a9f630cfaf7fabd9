/* cmd/cmd-root.c: the top of the command tree and the alias table. */
#include "cmd/builtin.h"

static const struct cmd_node *const top[] = {
	&cmd_apropos_node,
	&cmd_command_node,
	&cmd_help_node_def,
	&cmd_quit_node,
	&cmd_settings_node,
	&cmd_version_node,
	NULL,
};

static const struct cmd_node root = {
	.name = "", .summary = "ptdb commands.", .children = top,
};

/* Aliases are expanded before lookup; only aliases of existing commands. */
static const struct cmd_alias aliases[] = {
	{ "exit", "quit" },
	{ "q", "quit" },
	{ NULL, NULL },
};

const struct cmd_node *cmd_root(void)
{
	return &root;
}

const struct cmd_alias *cmd_aliases(void)
{
	return aliases;
}
