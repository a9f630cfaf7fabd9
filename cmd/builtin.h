/* cmd/builtin.h: the root nodes of the command groups, one per cmd-*.c. */
#ifndef PTDB_CMD_BUILTIN_H
#define PTDB_CMD_BUILTIN_H

#include "cmd/cmd.h"

#define PTDB_VERSION "0.1.0"

/* cmd-root.c: the top of the tree and the aliases (for cmd_set_tree). */
const struct cmd_node *cmd_builtin_root(void);
const struct cmd_alias *cmd_builtin_aliases(void);

extern const struct cmd_node cmd_help_node_def;
extern const struct cmd_node cmd_apropos_node;
extern const struct cmd_node cmd_quit_node;
extern const struct cmd_node cmd_version_node;
extern const struct cmd_node cmd_command_node;
extern const struct cmd_node cmd_settings_node;
/* cmd-process.c */
extern const struct cmd_node cmd_file_node;
extern const struct cmd_node cmd_process_node;
struct dbg;
/* After 'file': warns on err when the executable's DWARF is corrupt. */
void cmd_warn_dwarf(struct dbg *d, FILE *err);
/* cmd-breakpoint.c */
extern const struct cmd_node cmd_breakpoint_node;
/* cmd-thread.c */
extern const struct cmd_node cmd_thread_node;
/* cmd-jump.c */
extern const struct cmd_node cmd_thread_jump_node;
extern const struct cmd_node cmd_thread_return_node;
extern const struct cmd_node cmd_watchpoint_node;
extern const struct cmd_node cmd_frame_node;
/* cmd-trace.c */
extern const struct cmd_node cmd_thread_trace_node;
extern const struct cmd_node cmd_process_trace_node;
/* cmd-replay.c */
extern const struct cmd_node cmd_thread_trace_goto_node;
extern const struct cmd_node cmd_thread_step_back_node;
extern const struct cmd_node cmd_thread_reverse_stepi_node;
extern const struct cmd_node cmd_thread_reverse_step_node;
extern const struct cmd_node cmd_thread_reverse_next_node;
extern const struct cmd_node cmd_thread_reverse_finish_node;
extern const struct cmd_node cmd_thread_reverse_continue_node;
/* cmd-bundle.c */
extern const struct cmd_node cmd_trace_node;
/* cmd-trace-calls.c */
extern const struct cmd_node cmd_thread_trace_dump_function_calls_node;
extern const struct cmd_node cmd_thread_trace_export_node;
/* cmd-data.c */
extern const struct cmd_node cmd_register_node;
extern const struct cmd_node cmd_memory_node;
extern const struct cmd_node cmd_disassemble_node;
extern const struct cmd_node cmd_image_node;
extern const struct cmd_node cmd_target_modules_node;
extern const struct cmd_node cmd_source_node;
/* cmd-expr.c */
extern const struct cmd_node cmd_expression_node;
/* cmd-write.c */
extern const struct cmd_node cmd_register_write_node;
extern const struct cmd_node cmd_memory_write_node;
extern const struct cmd_node cmd_memory_region_node;
/* cmd-var.c */
extern const struct cmd_node cmd_frame_variable_node;
extern const struct cmd_node cmd_target_variable_node;
/* cmd-target.c */
extern const struct cmd_node cmd_target_node;

#endif
