/* cmd/cmd.c: word splitting, lookup by alias/name/unique prefix, option
 * parsing and dispatch over the command tree. */
#include "cmd/cmd.h"
#include "cmd/report.h"
#include "core/session/session.h"
#include "core/session/size.h"
#include "core/tracing/trace_info.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum cmd_status cmd_error(struct cmd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	fflush(ctx->out);
	fputs("error: ", ctx->err);
	va_start(ap, fmt);
	vfprintf(ctx->err, fmt, ap);
	va_end(ap);
	fputc('\n', ctx->err);
	fflush(ctx->err);
	ctx->failed = 1;
	return CMD_ERROR;
}

void cmd_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}

int cmd_split(const char *line, char ***argv, const char **errmsg)
{
	size_t cap = 8, n = 0, len = strlen(line);
	char **v = xcalloc(cap, sizeof(*v));
	char *word = xmalloc(len + 1);
	const char *p = line;

	for (;;) {
		size_t w = 0;
		char quote = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p)
			break;
		while (*p && (quote || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r'))) {
			if (quote) {
				if (*p == quote) {
					quote = 0;
				} else if (*p == '\\' && quote == '"' && (p[1] == '"' || p[1] == '\\')) {
					word[w++] = *++p;
				} else {
					word[w++] = *p;
				}
			} else if (*p == '\'' || *p == '"') {
				quote = *p;
			} else if (*p == '\\' && p[1]) {
				word[w++] = *++p;
			} else {
				word[w++] = *p;
			}
			p++;
		}
		if (quote) {
			*errmsg = "unterminated quote in command line";
			free(word);
			v[n] = NULL;
			cmd_argv_free(v);
			return -1;
		}
		word[w] = '\0';
		if (n + 2 > cap)
			v = xrealloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = xstrdup(word);
	}
	v[n] = NULL;
	free(word);
	*argv = v;
	return (int)n;
}

/* Finds a child by exact name, then unique prefix.  Returns NULL and fills
 * msg when there is none or the prefix is ambiguous. */
static const struct cmd_node *find_child(const struct cmd_node *const *kids,
	const char *word, const char *parent, char *msg, size_t msgsz)
{
	const struct cmd_node *hit = NULL;
	int nhits = 0;
	size_t len = strlen(word), off;

	for (const struct cmd_node *const *k = kids; *k; k++) {
		if (!strcmp((*k)->name, word))
			return *k;
		if (!strncmp((*k)->name, word, len)) {
			hit = *k;
			nhits++;
		}
	}
	if (nhits == 1)
		return hit;
	if (nhits == 0) {
		if (parent)
			snprintf(msg, msgsz, "'%s' does not have a subcommand named '%s'. "
				"Try 'help %s'.", parent, word, parent);
		else
			snprintf(msg, msgsz, "'%s' is not a valid command.", word);
		return NULL;
	}
	off = (size_t)snprintf(msg, msgsz, "ambiguous command '%s'. Possible matches:", word);
	for (const struct cmd_node *const *k = kids; *k && off < msgsz; k++)
		if (!strncmp((*k)->name, word, len))
			off += (size_t)snprintf(msg + off, msgsz - off, " %s", (*k)->name);
	return NULL;
}

const struct cmd_node *cmd_lookup(char **words, int nwords, int *used,
	char *path, size_t pathsz, char *msg, size_t msgsz)
{
	const struct cmd_node *node = cmd_root();
	int i = 0;

	path[0] = '\0';
	while (i < nwords && node->children) {
		const struct cmd_node *kid;

		if (i > 0 && words[i][0] == '-')
			break;
		kid = find_child(node->children, words[i], i ? path : NULL, msg, msgsz);
		if (!kid) {
			if (i == 0 || !node->exec)
				return NULL;
			break;	/* a group with its own handler takes arguments */
		}
		node = kid;
		snprintf(path + strlen(path), pathsz - strlen(path), "%s%s", i ? " " : "", node->name);
		i++;
	}
	*used = i;
	return node;
}

static int opt_count(const struct cmd_node *node)
{
	int n = 0;

	while (node->opts && (node->opts[n].long_name || node->opts[n].short_name))
		n++;
	return n;
}

/* val's index among o's choices; -1 with "invalid <option> '<val>':
 * expected a, b or c". */
static int enum_parse(const struct cmd_node *node, const struct cmd_opt *o, const char *val,
		      uint64_t *v, char *msg, size_t msgsz)
{
	const char *const *w = NULL;
	size_t used, n = 0;

	for (const struct cmd_choices *c = node->choices; c && c->long_name; c++)
		if (!strcmp(c->long_name, o->long_name))
			w = c->words;
	for (; w && w[n]; n++)
		if (!strcmp(w[n], val)) {
			*v = n;
			return 0;
		}
	used = (size_t)snprintf(msg, msgsz, "invalid %s '%s': expected", o->long_name, val);
	for (size_t k = 0; k < n && used < msgsz; k++)
		used += (size_t)snprintf(msg + used, msgsz - used, "%s%s",
					 k == 0 ? " " : k + 1 == n ? " or " : ", ", w[k]);
	return -1;
}

static int set_opt(const struct cmd_node *node, int idx, char **words, int nwords,
	int *i, const char *inline_val, struct cmd_args *a, const char *shown, char *msg, size_t msgsz)
{
	const struct cmd_opt *o = &node->opts[idx];
	const char *val = inline_val;
	struct ptdb_err err;
	uint64_t v;

	if (o->type == OPT_FLAG) {
		if (inline_val) {
			snprintf(msg, msgsz, "option '%s' takes no value", shown);
			return -1;
		}
		a->opt_set[idx] = 1;
		a->opt_value[idx] = "";
		return 0;
	}
	if (!val) {
		if (*i + 1 >= nwords) {
			snprintf(msg, msgsz, "option '%s' requires a value <%s>", shown,
				o->arg_name ? o->arg_name : "value");
			return -1;
		}
		val = words[++*i];
	}
	v = 0;
	if (o->type == OPT_UINT && uint_parse(val, &v, &err) < 0) {
		snprintf(msg, msgsz, "invalid value for option '%s': %s", shown, err.msg);
		return -1;
	}
	if ((o->type == OPT_SIZE || o->type == OPT_SIZE_KIB) &&
	    size_parse(val, o->type == OPT_SIZE_KIB ? 1024 : 1, &v, &err) < 0) {
		if (node->flags & CMD_NAMED_ERRORS)
			snprintf(msg, msgsz, "invalid --%s: %s", o->long_name, err.msg);
		else
			snprintf(msg, msgsz, "invalid value for option '%s': %s", shown, err.msg);
		return -1;
	}
	if (o->type == OPT_ENUM && enum_parse(node, o, val, &v, msg, msgsz) < 0)
		return -1;
	a->opt_set[idx] = 1;
	a->opt_value[idx] = val;
	a->opt_num[idx] = v;
	return 0;
}

/* A long option given by a unique prefix (--forw for --forwards), as
 * LLDB's getopt_long takes it: *idx, or -1 with msg when ambiguous. */
static int long_prefix(const struct cmd_node *node, int nopts, const char *name, size_t len,
		       int *idx, char *msg, size_t msgsz)
{
	int n = 0;
	size_t used;

	for (int k = 0; k < nopts; k++)
		if (len && node->opts[k].long_name && !strncmp(node->opts[k].long_name, name, len)) {
			*idx = k;
			n++;
		}
	if (n <= 1)
		return 0;
	*idx = -1;
	used = (size_t)snprintf(msg, msgsz, "ambiguous option: '--%.*s' could be", (int)len, name);
	for (int k = 0; k < nopts && used < msgsz; k++)
		if (node->opts[k].long_name && !strncmp(node->opts[k].long_name, name, len))
			used += (size_t)snprintf(msg + used, msgsz - used, " --%s", node->opts[k].long_name);
	return -1;
}

int cmd_parse_args(const struct cmd_node *node, char **words, int nwords,
	struct cmd_args *a, char *msg, size_t msgsz)
{
	int nopts = opt_count(node), npos = 0, only_pos = node->flags & CMD_RAW_ARGS;

	memset(a, 0, sizeof(*a));
	a->argv = xcalloc((size_t)nwords + 1, sizeof(char *));
	for (int i = 0; i < nwords; i++) {
		const char *w = words[i];

		if (only_pos || w[0] != '-' || !w[1] || (w[1] >= '0' && w[1] <= '9')) {
			a->argv[npos++] = words[i];
			continue;
		}
		if (!strcmp(w, "--")) {
			only_pos = 1;
			continue;
		}
		if (w[1] == '-') {
			const char *name = w + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			int idx = -1;

			for (int k = 0; k < nopts; k++)
				if (node->opts[k].long_name && strlen(node->opts[k].long_name) == len &&
				    !strncmp(node->opts[k].long_name, name, len))
					idx = k;
			if (idx < 0 && long_prefix(node, nopts, name, len, &idx, msg, msgsz) < 0)
				return -1;
			if (idx < 0) {
				snprintf(msg, msgsz, "invalid option: '%.*s'", (int)(len + 2), w);
				return -1;
			}
			if (set_opt(node, idx, words, nwords, &i, eq ? eq + 1 : NULL, a,
				    words[i], msg, msgsz) < 0)
				return -1;
			continue;
		}
		for (const char *c = w + 1; *c; c++) {
			int idx = -1;
			char shown[3] = { '-', *c, 0 };

			for (int k = 0; k < nopts; k++)
				if (node->opts[k].short_name == *c)
					idx = k;
			if (idx < 0) {
				snprintf(msg, msgsz, "invalid option: '-%c'", *c);
				return -1;
			}
			if (node->opts[idx].type != OPT_FLAG) {
				if (set_opt(node, idx, words, nwords, &i, c[1] ? c + 1 : NULL, a,
					    shown, msg, msgsz) < 0)
					return -1;
				break;
			}
			set_opt(node, idx, words, nwords, &i, NULL, a, shown, msg, msgsz);
		}
	}
	a->argc = npos;
	if (npos < node->min_args) {
		snprintf(msg, msgsz, "'%s' requires %s%d argument%s", node->name,
			node->max_args == node->min_args ? "" : "at least ", node->min_args,
			node->min_args == 1 ? "" : "s");
		return -1;
	}
	if (node->max_args >= 0 && npos > node->max_args) {
		if (node->max_args == 0)
			snprintf(msg, msgsz, "'%s' takes no arguments", node->name);
		else
			snprintf(msg, msgsz, "'%s' takes at most %d argument%s", node->name,
				node->max_args, node->max_args == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

static int opt_index(const struct cmd_node *node, const char *long_name)
{
	int n = opt_count(node);

	for (int k = 0; k < n; k++)
		if (node->opts[k].long_name && !strcmp(node->opts[k].long_name, long_name))
			return k;
	return -1;
}

const char *cmd_opt(const struct cmd_node *node, const struct cmd_args *args, const char *long_name)
{
	int k = opt_index(node, long_name);

	return k >= 0 && args->opt_set[k] ? args->opt_value[k] : NULL;
}

int cmd_opt_given(const struct cmd_node *node, const struct cmd_args *args, const char *long_name)
{
	return cmd_opt(node, args, long_name) != NULL;
}

int cmd_opt_num(const struct cmd_node *node, const struct cmd_args *args, const char *long_name,
		uint64_t *out)
{
	int k = opt_index(node, long_name);

	if (k < 0 || !args->opt_set[k])
		return 0;
	*out = args->opt_num[k];
	return 1;
}

/* GDB's "x/NFU" (count, format letter, unit b h w g, in any order) as
 * memory read's options, as LLDB reads it.  -1 when fmt is not one. */
static int x_gdb_format(const char *fmt, char *buf, size_t n)
{
	unsigned long count = 0;
	char f = 0, u = 0;

	for (const char *p = fmt; *p; p++) {
		if (*p >= '0' && *p <= '9' && !count && p == fmt) {
			count = strtoul(p, (char **)&p, 10);
			p--;
		} else if (strchr("bhwg", *p) && !u) {
			u = *p;
		} else if (strchr("xduotacfsiz", *p) && !f) {
			f = *p;
		} else {
			return -1;
		}
	}
	snprintf(buf, n, "memory read");
	if (count)
		snprintf(buf + strlen(buf), n - strlen(buf), " -c %lu", count);
	if (f)
		snprintf(buf + strlen(buf), n - strlen(buf), " -f %c", f);
	if (u && f != 's')	/* x/s reads up to 1024 characters whatever its unit */
		snprintf(buf + strlen(buf), n - strlen(buf), " -s %d",
			 u == 'b' ? 1 : u == 'h' ? 2 : u == 'w' ? 4 : 8);
	return 0;
}

/* Replaces an alias in the first word by its expansion. */
static char **expand_alias(char **words, int *n)
{
	const struct cmd_alias *al;
	char **exp, **out;
	const char *errmsg;
	char gdbx[96];
	int ne;

	/* "p/x EXPR": GDB's format suffix on LLDB's expression commands (the
	 * command reads the format from the raw line) */
	{
		char *slash = strchr(words[0], '/');

		if (slash && slash != words[0]) {
			static const char *const fmt_cmds[] = { "p", "print", "expr", "expression", "call" };

			for (size_t i = 0; i < sizeof(fmt_cmds) / sizeof(fmt_cmds[0]); i++)
				if (!strncmp(words[0], fmt_cmds[i], (size_t)(slash - words[0])) &&
				    !fmt_cmds[i][slash - words[0]])
					*slash = 0;
		}
	}
	for (al = cmd_aliases(); al->name; al++)
		if (!strcmp(al->name, words[0]))
			break;
	if (!strncmp(words[0], "x/", 2) && x_gdb_format(words[0] + 2, gdbx, sizeof(gdbx)) == 0)
		ne = cmd_split(gdbx, &exp, &errmsg);
	else if (!al->name)
		return words;
	/* LLDB's bt is a regex alias: "bt 3" shows three frames */
	else if (!strcmp(al->name, "bt") && *n == 2 && words[1][0] &&
	    strspn(words[1], "0123456789") == strlen(words[1]))
		ne = cmd_split("thread backtrace -c", &exp, &errmsg);
	/* and up/down: "up 3" selects the frame three up */
	else if ((!strcmp(al->name, "up") || !strcmp(al->name, "down")) && *n == 2 &&
		 words[1][0] && strspn(words[1], "0123456789") == strlen(words[1])) {
		char rel[64];

		snprintf(rel, sizeof(rel), "frame select -r %s%s", al->name[0] == 'd' ? "-" : "",
			 words[1]);
		free(words[1]);
		*n = 1;
		ne = cmd_split(rel, &exp, &errmsg);
	}
	/* and list: "list 40" (a line), "list f.c:40", "list main" (a function) */
	else if ((!strcmp(al->name, "list") || !strcmp(al->name, "l")) && *n == 2 &&
		 words[1][0] && words[1][0] != '-') {
		char *colon = strrchr(words[1], ':');
		char line[4096];

		if (strspn(words[1], "0123456789") == strlen(words[1]))
			snprintf(line, sizeof(line), "source list -l");
		else if (colon && colon != words[1] && colon[1] &&
			 strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
			*colon = 0;
			snprintf(line, sizeof(line), "source list -l %s -f", colon + 1);
		} else
			snprintf(line, sizeof(line), "source list -n");
		ne = cmd_split(line, &exp, &errmsg);
	}
	/* LLDB's attach is a regex alias too: a pid, a name, or options */
	else if (!strcmp(al->name, "attach") && *n == 1)
		ne = cmd_split("process attach", &exp, &errmsg);
	else if (!strcmp(al->name, "attach") && *n == 2 && words[1][0] != '-' &&
		 strspn(words[1], "0123456789") != strlen(words[1]))
		ne = cmd_split("process attach -n", &exp, &errmsg);
	else if (!strcmp(al->name, "attach") && words[1][0] == '-')
		ne = cmd_split("process attach", &exp, &errmsg);
	else
		ne = cmd_split(al->expansion, &exp, &errmsg);
	if (ne < 0)
		return words;
	out = xcalloc((size_t)(ne + *n), sizeof(char *));
	for (int i = 0; i < ne; i++)
		out[i] = exp[i];
	for (int i = 1; i < *n; i++)
		out[ne + i - 1] = words[i];
	free(words[0]);
	free(words);
	free(exp);
	*n = ne + *n - 1;
	out[*n] = NULL;
	return out;
}

char *cmd_repeat_line(const char *line)
{
	char path[256], msg[256], buf[1024], **w;
	const char *errmsg, *rep = NULL;
	const struct cmd_node *node;
	int n, used;

	n = cmd_split(line, &w, &errmsg);
	if (n <= 0) {
		if (n == 0)
			cmd_argv_free(w);
		return NULL;
	}
	w = expand_alias(w, &n);
	node = cmd_lookup(w, n, &used, path, sizeof(path), msg, sizeof(msg));
	if (node && node->exec && !(node->flags & CMD_NO_REPEAT))
		rep = node->repeat ? node->repeat(line, buf, sizeof(buf)) : line;
	cmd_argv_free(w);
	return rep ? xstrdup(rep) : NULL;
}

/* LLDB's words when a command needs a process: none yet ("Command
 * requires a current process."), one that exited or was killed ("Process
 * must be launched."), or no target at all. */
/* The commands lldb-16 runs only in a stopped process (its frame, thread
 * and register commands): after the process exited they say so. */
static int needs_stopped(const char *path)
{
	static const char *const cmds[] = { "frame ", "register read", "register write",
		"watchpoint set", "thread step-", "thread until", "thread backtrace", NULL };

	for (int i = 0; path && cmds[i]; i++)
		if (!strncmp(path, cmds[i], strlen(cmds[i])))
			return 1;
	return 0;
}

enum cmd_status cmd_no_process(struct cmd_ctx *ctx)
{
	if (ctx->s->dbg.proc && needs_stopped(ctx->path))
		return cmd_error(ctx, "Command requires a process which is currently stopped.");
	if (ctx->s->dbg.proc)
		return cmd_error(ctx, "Process must be launched.");
	if (ctx->s->dbg.exe_path)
		return cmd_error(ctx, "Command requires a current process.");
	return cmd_error(ctx, "invalid target, create a target using the 'file' command");
}

enum cmd_status cmd_run_line(struct session *s, const char *line, FILE *out, FILE *errf)
{
	struct cmd_ctx ctx = { .s = s, .out = out, .err = errf, .line = line };
	char path[256], msg[1024];
	const struct cmd_node *node;
	struct cmd_args args;
	enum cmd_status st;
	const char *errmsg;
	char **words;
	int n, used;

	{
		struct dbg_stop gone;
		struct ptdb_err perr;
		int rc;

		/* killed from outside while stopped: said before the command */
		ptdb_err_clear(&perr);
		rc = dbg_poll_exit(&s->dbg, &gone, &perr);
		if (rc > 0) {
			report_exit(out, &s->dbg, &gone);
		} else if (rc < 0) {
			fflush(out);
			fprintf(errf, "error: %s\n", perr.msg);
			fflush(errf);
		}
	}
	n = cmd_split(line, &words, &errmsg);
	if (n < 0)
		return cmd_error(&ctx, "%s", errmsg);
	if (n == 0) {
		cmd_argv_free(words);
		return CMD_OK;
	}
	words = expand_alias(words, &n);
	node = cmd_lookup(words, n, &used, path, sizeof(path), msg, sizeof(msg));
	if (!node) {
		cmd_argv_free(words);
		return cmd_error(&ctx, "%s", msg);
	}
	ctx.node = node;
	ctx.path = path;
	if (!node->exec) {
		if (used < n)
			st = cmd_error(&ctx, "'%s' does not have a subcommand named '%s'. Try 'help %s'.",
				path, words[used], path);
		else
			st = cmd_error(&ctx, "'%s' is a group of commands; try 'help %s'.", path, path);
		cmd_argv_free(words);
		return st;
	}
	if (cmd_parse_args(node, words + used, n - used, &args, msg, sizeof(msg)) < 0) {
		st = cmd_error(&ctx, "%s", msg);
		fputs("Usage: ", errf);
		cmd_usage(node, path, errf);
		free(args.argv);
		cmd_argv_free(words);
		return st;
	}
	if ((node->needs & CMD_NEEDS_THREADS) && !dbg_alive(&s->dbg) && !s->dbg.tr.pm)
		st = cmd_no_process(&ctx);
	else if ((node->needs & CMD_NEEDS_PROCESS) && s->dbg.tr.pm)
		st = cmd_error(&ctx, "the process of a loaded trace is not live");
	else if ((node->needs & CMD_NEEDS_PROCESS) && !dbg_alive(&s->dbg))
		st = cmd_no_process(&ctx);
	else if ((node->needs & CMD_NEEDS_TARGET) && !s->dbg.exe_path)
		st = cmd_error(&ctx, "invalid target, create a target using the 'file' command");
	else
		st = node->exec(&ctx, &args);
	dbg_interrupt_disarm(&s->dbg);
	dbg_park(&s->dbg);	/* clean code while the user looks */
	if (st == CMD_WRONG_ARGS) {
		fputs("Usage: ", errf);
		cmd_usage(node, path, errf);
		st = CMD_ERROR;
	}
	fflush(out);
	free(args.argv);
	cmd_argv_free(words);
	return st;
}

int need_target(struct cmd_ctx *ctx)
{
	if (ctx->s->dbg.exe_path)
		return 0;
	cmd_error(ctx, "invalid target, create a target using the 'file' command");
	return -1;
}

int need_threads(struct cmd_ctx *ctx)
{
	return ctx->s->dbg.tr.pm ? 0 : need_process(ctx);
}

int need_process(struct cmd_ctx *ctx)
{
	if (dbg_alive(&ctx->s->dbg))
		return 0;
	if (ctx->s->dbg.tr.pm) {
		cmd_error(ctx, "the process of a loaded trace is not live");
		return -1;
	}
	cmd_no_process(ctx);
	return -1;
}

int cmd_thread_args(struct cmd_ctx *ctx, const struct cmd_args *a, pid_t **tids, int *n, int *all)
{
	struct dbg *d = &ctx->s->dbg;
	struct target_thread_info *ti;
	int nt;

	*n = 0;
	*all = 0;
	*tids = NULL;
	if (a->argc == 0) {
		*tids = xmalloc(sizeof(**tids));
		(*tids)[(*n)++] = d->sel_tid;
		return 0;
	}
	ti = dbg_thread_list(d, 1, &nt);
	*tids = xmalloc((size_t)(nt + 1) * sizeof(**tids));
	for (int i = 0; i < a->argc; i++) {
		const char *w = a->argv[i];
		char *end;
		unsigned long idx;
		int found = 0;

		if (!strcmp(w, "all")) {
			if (a->argc > 1) {
				cmd_error(ctx, "'all' cannot be combined with thread indices");
				goto fail;
			}
			*all = 1;
			continue;
		}
		errno = 0;
		idx = strtoul(w, &end, 10);
		if (!isdigit((unsigned char)*w) || *end || errno) {
			cmd_error(ctx, "invalid thread specification: \"%s\"", w);
			goto fail;
		}
		for (int k = 0; k < nt; k++)
			if (ti[k].index == idx) {
				int dup = 0;

				/* an index given twice counts once: *n stays within
				 * the threads there are, the size of tids */
				for (int j = 0; j < *n; j++)
					dup |= (*tids)[j] == ti[k].tid;
				if (!dup)
					(*tids)[(*n)++] = ti[k].tid;
				found = 1;
			}
		if (!found) {
			cmd_error(ctx, "no thread with index: \"%s\"", w);
			goto fail;
		}
	}
	free(ti);
	return 0;
fail:
	free(ti);
	free(*tids);
	*tids = NULL;
	return -1;
}

/* ---- the tree ---- */

static const struct cmd_node *tree_root;
static const struct cmd_alias *tree_aliases;

void cmd_set_tree(const struct cmd_node *root, const struct cmd_alias *aliases)
{
	static const struct cmd_alias none[] = { { NULL, NULL } };

	tree_root = root;
	tree_aliases = aliases ? aliases : none;
}

const struct cmd_node *cmd_root(void)
{
	return tree_root;
}

const struct cmd_alias *cmd_aliases(void)
{
	return tree_aliases;
}

/* ---- usage ---- */

static void opt_usage(const struct cmd_opt *o, FILE *out)
{
	if (o->short_name && o->type == OPT_FLAG)
		fprintf(out, " [-%c]", o->short_name);
	else if (o->short_name)
		fprintf(out, " [-%c <%s>]", o->short_name, o->arg_name ? o->arg_name : "value");
	else if (o->type == OPT_FLAG)
		fprintf(out, " [--%s]", o->long_name);
	else
		fprintf(out, " [--%s <%s>]", o->long_name, o->arg_name ? o->arg_name : "value");
}

void cmd_usage(const struct cmd_node *node, const char *path, FILE *out)
{
	fputs(path, out);
	for (const struct cmd_opt *o = node->opts; o && (o->long_name || o->short_name); o++)
		opt_usage(o, out);
	if (node->syntax && *node->syntax)
		fprintf(out, " %s", node->syntax);
	fputc('\n', out);
}
