/* cmd/cmd.h: the command tree as data, lookup, option parsing and dispatch.
 * Every command group file exports one const root node; help, apropos,
 * completion and the man page check walk the same tree. */
#ifndef PTDB_CMD_H
#define PTDB_CMD_H

#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

struct session;

enum cmd_status {
	CMD_OK,
	CMD_ERROR,		/* the handler reported an error */
	CMD_WRONG_ARGS,		/* the dispatcher prints the usage */
	CMD_EXIT,		/* quit the debugger */
};

/* What an option's value is, checked and converted once by the parser
 * (cmd_parse_args); a handler reads the result with cmd_opt_num.
 *   OPT_UINT      a number (0x for hex): "invalid value for option '-c': ..."
 *   OPT_SIZE      a size with an optional unit (core/session/size.c: B, KiB, MiB,
 *                 GiB; a bare number is bytes): "invalid value for option
 *                 '--size': ...", or "invalid --size: ..." on a node with
 *                 CMD_NAMED_ERRORS
 *   OPT_SIZE_KIB  the same where a bare number is KiB
 *   OPT_ENUM      one of the words the node's .choices give the option:
 *                 their index; "invalid <name> 'x': expected a, b or c" */
enum cmd_opt_type { OPT_FLAG, OPT_STRING, OPT_UINT, OPT_SIZE, OPT_SIZE_KIB, OPT_ENUM };

struct cmd_opt {
	char short_name;	/* 0: long only */
	const char *long_name;
	enum cmd_opt_type type;
	const char *arg_name;	/* shown as <arg_name> */
	const char *help;
};

/* The words of an OPT_ENUM option (cmd_node.choices). */
struct cmd_choices {
	const char *long_name;
	const char *const *words;	/* NULL-terminated */
};

#define CMD_MAX_OPTS 24

/* The parsed words of one command line after the command path. */
struct cmd_args {
	int argc;
	char **argv;			/* positional arguments (borrowed) */
	const char *opt_value[CMD_MAX_OPTS];	/* index = position in node->opts */
	int opt_set[CMD_MAX_OPTS];
	uint64_t opt_num[CMD_MAX_OPTS];	/* OPT_UINT, OPT_SIZE: the value;
					 * OPT_ENUM: the index in choices */
};

/* What a handler needs the session to have before it runs. */
enum cmd_needs {
	CMD_NEEDS_NOTHING = 0,
	CMD_NEEDS_TARGET = 0x1,		/* an executable ('file') */
	CMD_NEEDS_PROCESS = 0x2,	/* a live, stopped process */
	CMD_NEEDS_THREADS = 0x4,	/* a live process or a loaded trace */
};

/* Node flags. */
#define CMD_REPEAT	0x1	/* an empty line repeats this command */
#define CMD_ARGS_FILES	0x2	/* positional arguments complete as file paths */
#define CMD_RAW_ARGS	0x4	/* no option parsing: every word is positional */
#define CMD_ARGS_SYMBOLS 0x8	/* positional arguments and -n/--name values
				 * complete as function names */
#define CMD_NAMED_ERRORS 0x10	/* a size the parser rejects is "invalid
				 * --<name>: <why>" (the trace commands) */

struct cmd_ctx;
typedef enum cmd_status (*cmd_exec_fn)(struct cmd_ctx *ctx, const struct cmd_args *args);

struct cmd_node {
	const char *name;
	const char *summary;		/* one line, ends with a period */
	const char *syntax;		/* after the command path, e.g. "[<cmd-name>]" */
	const char *details;		/* optional longer help */
	const struct cmd_opt *opts;	/* terminated by a zero entry, or NULL */
	int min_args, max_args;		/* positional limits; max -1 = unlimited */
	unsigned needs;
	unsigned flags;
	cmd_exec_fn exec;		/* NULL for a multiword group */
	const struct cmd_node *const *children;	/* NULL-terminated, or NULL */
	/* Optional: the node whose help 'help' shows in the session's state
	 * (e.g. the trace backend's options only while a process lives). */
	const struct cmd_node *(*help_for)(const struct session *s);
	/* The words of its OPT_ENUM options, terminated by a zero entry. */
	const struct cmd_choices *choices;
	/* CMD_REPEAT: the line an empty line runs after it (NULL: the same
	 * line), as LLDB's GetRepeatCommand ("memory read" goes on). */
	const char *repeat;
};

struct cmd_alias {
	const char *name;
	const char *expansion;	/* words substituted for the alias */
};

/* Per-invocation context handed to a handler. */
struct cmd_ctx {
	struct session *s;
	FILE *out;
	FILE *err;
	const struct cmd_node *node;
	const char *path;		/* full command path, "thread trace start" */
	const char *line;		/* the line as typed (expression reads it raw) */
	int failed;
};

/* Reports an error: flushes out, prints "error: <msg>" on ctx->err. */
enum cmd_status cmd_error(struct cmd_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Common checks (cmd.c): print the error and return -1 when not met. */
int need_target(struct cmd_ctx *ctx);
int need_process(struct cmd_ctx *ctx);
/* A live process or a loaded trace (threads to list and select). */
int need_threads(struct cmd_ctx *ctx);

/* The threads the positional words name, resolved once for the handler:
 * thread indices (each counted once; among the live threads and the traced
 * ones that exited), 'all' (*all set, no tids), or none: the selected
 * thread.  *tids is a heap array of *n (free it).  -1 after the error
 * ("'all' cannot be combined with thread indices", "invalid thread
 * specification: \"x\"", "no thread with index: \"7\""). */
int cmd_thread_args(struct cmd_ctx *ctx, const struct cmd_args *a, pid_t **tids, int *n, int *all);

/* The root of the tree (cmd/cmd-root.c) and the alias table. */
const struct cmd_node *cmd_root(void);
const struct cmd_alias *cmd_aliases(void);

/* Splits a line into words: whitespace-separated, with '...' and "..."
 * quoting and backslash escapes.  Returns the count (>= 0) and a
 * NULL-terminated heap vector in *argv (free with cmd_argv_free), or -1 and
 * *errmsg on an unterminated quote. */
int cmd_split(const char *line, char ***argv, const char **errmsg);
void cmd_argv_free(char **argv);

/* Resolves words[0..] to a node: aliases, exact names, unique prefixes.
 * Returns the node and sets *used to the number of words consumed; NULL with
 * msg filled (LLDB wording) when nothing matches or a prefix is ambiguous. */
const struct cmd_node *cmd_lookup(char **words, int nwords, int *used,
	char *path, size_t pathsz, char *msg, size_t msgsz);

/* Parses options and positionals of words for node into args. */
int cmd_parse_args(const struct cmd_node *node, char **words, int nwords,
	struct cmd_args *args, char *msg, size_t msgsz);

/* Returns the option's value by long name, or NULL when not given. */
const char *cmd_opt(const struct cmd_node *node, const struct cmd_args *args, const char *long_name);
int cmd_opt_given(const struct cmd_node *node, const struct cmd_args *args, const char *long_name);
/* An OPT_UINT, OPT_SIZE or OPT_ENUM option's parsed value into *out:
 * 1 when given, 0 (and *out untouched) when not. */
int cmd_opt_num(const struct cmd_node *node, const struct cmd_args *args, const char *long_name,
		uint64_t *out);

/* Runs one command line (alias expansion included).  Returns the status;
 * an empty line is CMD_OK and does nothing. */
enum cmd_status cmd_run_line(struct session *s, const char *line, FILE *out, FILE *err);

/* Writes the help of a node (path given) or of the whole tree. */
void cmd_help_node(const struct cmd_node *node, const char *path, FILE *out);
void cmd_help_all(FILE *out);
/* Writes the usage line of a leaf: "path [-c <count>] ..." */
void cmd_usage(const struct cmd_node *node, const char *path, FILE *out);

/* Calls fn for every node of the tree with its full path (depth first). */
void cmd_walk(void (*fn)(const struct cmd_node *node, const char *path, void *ctx), void *ctx);

/* Completion: the candidates for the word ending at the end of line
 * (commands, subcommands, option names, file paths).  Returns the count,
 * a heap vector of heap strings in *out, and the length of the word being
 * completed in *wordlen. */
int cmd_complete(const char *line, char ***out, size_t *wordlen);
/* As cmd_complete, and function names of d's modules where a command
 * takes one (CMD_ARGS_SYMBOLS; d may be NULL). */
struct dbg;
int cmd_complete_in(const char *line, struct dbg *d, char ***out, size_t *wordlen);

#endif
