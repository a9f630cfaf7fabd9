/* cmd/cmd-root.c: the top of the command tree and the alias table. */
#include "cmd/builtin.h"

static const struct cmd_node *const top[] = {
	&cmd_apropos_node,
	&cmd_breakpoint_node,
	&cmd_command_node,
	&cmd_disassemble_node,
	&cmd_expression_node,
	&cmd_file_node,
	&cmd_frame_node,
	&cmd_help_node_def,
	&cmd_image_node,
	&cmd_memory_node,
	&cmd_process_node,
	&cmd_quit_node,
	&cmd_register_node,
	&cmd_settings_node,
	&cmd_source_node,
	&cmd_target_node,
	&cmd_thread_node,
	&cmd_trace_node,
	&cmd_version_node,
	&cmd_watchpoint_node,
	NULL,
};

static const struct cmd_node root = {
	.name = "", .summary = "ptdb commands.", .children = top,
};

/* Aliases are expanded before lookup; only aliases of existing commands. */
static const struct cmd_alias aliases[] = {
	{ "attach", "process attach -p" },
	{ "b", "breakpoint set" },
	{ "bt", "thread backtrace" },
	{ "c", "process continue" },
	{ "call", "expression" },
	{ "continue", "process continue" },
	{ "detach", "process detach" },
	{ "dis", "disassemble" },
	{ "down", "frame select -r -1" },
	{ "exit", "quit" },
	{ "expr", "expression" },
	{ "f", "frame select" },
	{ "finish", "thread step-out" },
	{ "kill", "process kill" },
	{ "l", "source list" },
	{ "list", "source list" },
	{ "n", "thread step-over" },
	{ "next", "thread step-over" },
	{ "nexti", "thread step-inst-over" },
	{ "ni", "thread step-inst-over" },
	{ "p", "expression" },
	{ "print", "expression" },
	{ "q", "quit" },
	{ "r", "process launch --" },
	{ "rc", "thread reverse-continue" },
	{ "reverse-continue", "thread reverse-continue" },
	{ "reverse-finish", "thread reverse-finish" },
	{ "reverse-next", "thread reverse-next" },
	{ "reverse-step", "thread reverse-step" },
	{ "reverse-stepi", "thread reverse-stepi" },
	{ "rn", "thread reverse-next" },
	{ "rs", "thread reverse-step" },
	{ "rsi", "thread reverse-stepi" },
	{ "run", "process launch --" },
	{ "s", "thread step-in" },
	{ "si", "thread step-inst" },
	{ "step", "thread step-in" },
	{ "stepi", "thread step-inst" },
	{ "up", "frame select -r 1" },
	{ "v", "frame variable" },
	{ "x", "memory read" },
	{ NULL, NULL },
};

const struct cmd_node *cmd_builtin_root(void)
{
	return &root;
}

const struct cmd_alias *cmd_builtin_aliases(void)
{
	return aliases;
}
