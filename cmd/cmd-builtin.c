/* cmd/cmd-builtin.c: help, apropos, quit, version, command source, settings. */
#include "cmd/cmd.h"
#include "cmd/builtin.h"
#include "cmd/script.h"
#include "cmd/tty-relay.h"
#include "core/symbols/source.h"
#include "core/session/session.h"
#include "core/session/size.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static void help_list_one(const struct cmd_node *node, const char *path, void *out)
{
	fprintf(out, "  %s -- %s\n", path, node->summary);
}

static enum cmd_status exec_help(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	char path[256], msg[512];
	const struct cmd_node *node;
	int used;

	if (cmd_opt_given(ctx->node, a, "all")) {
		cmd_walk(help_list_one, ctx->out);
		return CMD_OK;
	}
	if (a->argc == 0) {
		cmd_help_all(ctx->out);
		return CMD_OK;
	}
	/* Aliases are shown as what they stand for. */
	for (const struct cmd_alias *al = cmd_aliases(); al->name; al++)
		if (a->argc == 1 && !strcmp(al->name, a->argv[0])) {
			fprintf(ctx->out, "'%s' is an abbreviation for '%s'\n", al->name, al->expansion);
			return CMD_OK;
		}
	node = cmd_lookup(a->argv, a->argc, &used, path, sizeof(path), msg, sizeof(msg));
	if (!node && strstr(msg, "is not a valid command")) {
		/* as LLDB: where to look instead */
		cmd_error(ctx, "'%s' is not a known command.", a->argv[0]);
		fprintf(ctx->err, "Try 'help' to see a current list of commands.\n"
			"Try 'apropos %s' for a list of related commands.\n", a->argv[0]);
		return CMD_ERROR;
	}
	if (!node)
		return cmd_error(ctx, "%s", msg);
	if (used < a->argc)
		return cmd_error(ctx, "'%s' does not have a subcommand named '%s'. Try 'help %s'.",
			path, a->argv[used], path);
	if (node->help_for)
		node = node->help_for(ctx->s);
	cmd_help_node(node, path, ctx->out);
	return CMD_OK;
}

struct apropos_ctx {
	const char *word;
	FILE *out;
	int hits;
};

static void apropos_one(const struct cmd_node *node, const char *path, void *p)
{
	struct apropos_ctx *ac = p;

	if (strcasestr(path, ac->word) || strcasestr(node->summary, ac->word) ||
	    (node->details && strcasestr(node->details, ac->word))) {
		if (!ac->hits++)
			fprintf(ac->out, "The following commands may relate to '%s':\n", ac->word);
		fprintf(ac->out, "  %s -- %s\n", path, node->summary);
	}
}

static enum cmd_status exec_apropos(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct apropos_ctx ac = { a->argv[0], ctx->out, 0 };

	cmd_walk(apropos_one, &ac);
	if (!ac.hits)
		fprintf(ctx->out, "No commands found pertaining to '%s'. "
			"Try 'help' to see a complete list of debugger commands.\n", a->argv[0]);
	return CMD_OK;
}

/* As LLDB: with a launched process alive, asks at the prompt on a
 * terminal (default yes) before killing it; scripts and batch mode go on. */
static enum cmd_status exec_quit(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;

	(void)a;
	if (ctx->s->interactive && dbg_alive(d) && target_was_launched(d->proc) &&
	    !cmd_ask_yes(ctx->out, dbg_tracing(d)
			 ? "Quitting ptdb will kill one or more processes and drop the trace it holds. "
			   "Do you really want to proceed: [Y/n] "
			 : "Quitting ptdb will kill one or more processes. "
			   "Do you really want to proceed: [Y/n] "))
		return CMD_OK;
	return CMD_EXIT;
}

static enum cmd_status exec_version(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	(void)a;
	fprintf(ctx->out, "ptdb version %s\n", PTDB_VERSION);
	return CMD_OK;
}

static enum cmd_status exec_source(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	enum cmd_status st;
	int failed = 0;
	char why[128];
	FILE *f;

	if (ctx->s->depth >= 16)
		return cmd_error(ctx, "command source nested too deeply (16 levels)");
	if (!(f = script_open(a->argv[0], why, sizeof(why))))
		return cmd_error(ctx, "cannot open command file '%s': %s", a->argv[0], why);
	ctx->s->depth++;
	st = script_run_file(ctx->s, f, ctx->out, ctx->err, &failed);
	ctx->s->depth--;
	fclose(f);
	if (st == CMD_EXIT)
		return CMD_EXIT;
	return failed ? CMD_ERROR : CMD_OK;
}

static enum cmd_status exec_settings_set(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct ptdb_err err;
	size_t len = 1, off = 0;
	char *value;
	int rc;

	/* LLDB's "settings set -- NAME VALUE" (a value starting with '-') */
	int k = a->argc > 2 && !strcmp(a->argv[0], "--");
	const char *name = a->argv[k];

	/* The value is the rest of the line, words joined by single spaces
	 * (as long as the line: no fixed buffer to overrun or truncate). */
	for (int i = k + 1; i < a->argc; i++)
		len += strlen(a->argv[i]) + 1;
	value = xmalloc(len);
	value[0] = 0;
	for (int i = k + 1; i < a->argc; i++)
		off += (size_t)snprintf(value + off, len - off, "%s%s", i > k + 1 ? " " : "", a->argv[i]);
	if (!strcmp(name, "target.source-map") && source_map_check(value, &err) < 0)
		rc = -1;
	else
		rc = settings_set(&ctx->s->settings, name, value, &err);
	free(value);
	if (rc < 0)
		return cmd_error(ctx, "%s", err.msg);
	ctx->s->dbg.follow_fork_child =
		!strcmp(settings_get(&ctx->s->settings, SETTING_FOLLOW_FORK), "child");
	ctx->s->dbg.no_hw_watch = !strcmp(settings_get(&ctx->s->settings, SETTING_HW_WATCH), "false");
	ctx->s->dbg.watch_by_step = !strcmp(settings_get(&ctx->s->settings, SETTING_TRACE_ENGINE), "ptrace");
	free(ctx->s->dbg.debug_dirs);
	ctx->s->dbg.debug_dirs = xstrdup(settings_get(&ctx->s->settings, SETTING_DEBUG_FILE_PATHS));
	free(ctx->s->dbg.source_map);
	ctx->s->dbg.source_map = xstrdup(settings_get(&ctx->s->settings, SETTING_SOURCE_MAP));
	free(ctx->s->dbg.step_avoid);
	ctx->s->dbg.step_avoid = xstrdup(settings_get(&ctx->s->settings, SETTING_STEP_AVOID));
	ctx->s->dbg.no_dynamic =
		!strcmp(settings_get(&ctx->s->settings, SETTING_DYNAMIC), "no-dynamic-values");
	return CMD_OK;
}

static enum cmd_status exec_settings_show(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct ptdb_err err;

	if (settings_show(&ctx->s->settings, a->argc ? a->argv[0] : NULL, ctx->out, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	return CMD_OK;
}

const struct cmd_node cmd_help_node_def = {
	.name = "help", .summary = "Show a list of all debugger commands, or give details about a specific command.",
	.syntax = "[<cmd-name> ...]", .min_args = 0, .max_args = -1, .exec = exec_help,
	.opts = (const struct cmd_opt[]){
		{ 'a', "all", OPT_FLAG, NULL, "List every command and subcommand with its summary." },
		{ 0 } },
};

const struct cmd_node cmd_apropos_node = {
	.name = "apropos", .summary = "List debugger commands related to a word or subject.",
	.syntax = "<search-word>", .min_args = 1, .max_args = 1, .exec = exec_apropos,
};

const struct cmd_node cmd_quit_node = {
	.name = "quit", .summary = "Quit the debugger, killing a launched inferior.",
	.syntax = "", .min_args = 0, .max_args = 0, .exec = exec_quit,
	.details = "With a launched process alive it asks first, at the prompt on a terminal: "
		"'Quitting ptdb will kill one or more processes. Do you really want to proceed: [Y/n]' "
		"(saying that the trace goes too when one is held); an empty answer or y quits.  "
		"Scripts and batch mode quit without asking.  An attached process is detached.",
};

const struct cmd_node cmd_version_node = {
	.name = "version", .summary = "Show the ptdb version.",
	.syntax = "", .min_args = 0, .max_args = 0, .exec = exec_version,
};

static const struct cmd_node command_source = {
	.name = "source", .summary = "Read and run debugger commands from a file.",
	.syntax = "<filename>", .min_args = 1, .max_args = 1, .flags = CMD_ARGS_FILES, .exec = exec_source,
	.details = "Each line is one command, echoed before it runs; '#' starts a comment line.",
};

const struct cmd_node cmd_command_node = {
	.name = "command", .summary = "Commands for running debugger command scripts.",
	.children = (const struct cmd_node *const[]){ &command_source, NULL },
};

static const struct cmd_node settings_set_node = {
	.name = "set", .summary = "Set the value of a debugger setting.",
	.syntax = "<setting-name> <value>", .min_args = 2, .max_args = -1, .flags = CMD_RAW_ARGS,
	.exec = exec_settings_set,
};

static const struct cmd_node settings_show_node = {
	.name = "show", .summary = "Show debugger settings and their values.",
	.syntax = "[<setting-name>]", .min_args = 0, .max_args = 1, .exec = exec_settings_show,
};

const struct cmd_node cmd_settings_node = {
	.name = "settings", .summary = "Commands for managing debugger settings.",
	.children = (const struct cmd_node *const[]){ &settings_set_node, &settings_show_node, NULL },
};
